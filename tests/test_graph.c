/*
 * test_graph.c - stream capture and graphs against the mock driver, which
 * records captured launches, copies and memsets and replays them on the
 * host: a graph gives what the same work launched singly gives, an
 * instance is updated from a re-capture of the same shape and refuses
 * another shape unchanged, calls not allowed during a capture are refused
 * and invalidate it, and every driver call fails in turn with nothing left
 * behind.  Children check the adapters on older drivers: the capture
 * status through cuStreamGetCaptureInfo_v2 (CUDA 12.2), the update through
 * the v1 cuGraphExecUpdate (11.8), no graphs before 11.4.
 */
#include "config.h"

#include "cudyn.h"
#include "fault_sweep.h"

/* The README's scale(float a, float *x, size_t n): x[i] *= a. */
static const char image[] = ".version 8.0\n.target sm_90\n"
                            ".visible .entry scale(.param .f32 a, .param .u64 x, .param .u64 n)\n{\n}\n";

enum { N = 256, KERNELS = 10 };

static cudyn_module mod;
static cudyn_function scale;

static void expect_message(const char *text)
{
    cudyn_error e = {.size = sizeof e};
    cudyn_last_error(&e);
    CHECK_CONTAINS(e.message, text);
}

/* The work captured and launched singly: fill x with 1, KERNELS scalings
 * by factor, a copy back to the host. */
static int queue_work(cudyn_stream s, cudyn_devptr x, float factor, float *host)
{
    size_t n = N;
    int st = cudyn_memset_d32_async(x, 0x3F800000u, N, s); /* 1.0f */
    for (int k = 0; k < KERNELS && st == CUDYN_OK; k++)
        st = cudyn_launchf(scale, (cudyn_dim3){N / 64, 1, 1}, (cudyn_dim3){64, 1, 1}, 0, s, "fpz", (double)factor,
                           x, n);
    if (st == CUDYN_OK)
        st = cudyn_memcpy_dtoh_async(host, x, N * sizeof(float), s);
    return st;
}

/* Captures queue_work into a graph. */
static int capture(cudyn_stream s, cudyn_devptr x, float factor, float *host, cudyn_graph *g)
{
    int st = cudyn_stream_begin_capture(s, CUDYN_CAPTURE_GLOBAL);
    if (st != CUDYN_OK)
        return st;
    st = queue_work(s, x, factor, host);
    cudyn_graph got = NULL;
    int end = cudyn_stream_end_capture(s, &got);
    *g = got;
    return st != CUDYN_OK ? st : end;
}

static int all_equal(const float *v, float want)
{
    for (int i = 0; i < N; i++)
        if (v[i] != want)
            return 0;
    return 1;
}

static void test_capture_and_replay(void)
{
    cudyn_stream s = NULL;
    cudyn_devptr x = 0;
    static float single[N], replayed[N];
    CHECK_STATUS(cudyn_stream_create(&s, CUDYN_STREAM_NON_BLOCKING), CUDYN_OK);
    CHECK_STATUS(cudyn_mem_alloc(&x, N * sizeof(float)), CUDYN_OK);
    CHECK_STATUS(queue_work(s, x, 2.0f, single), CUDYN_OK);
    CHECK_STATUS(cudyn_stream_synchronize(s), CUDYN_OK);
    CHECK(all_equal(single, 1024.0f));

    int status = -1;
    CHECK_STATUS(cudyn_stream_capture_status(s, &status), CUDYN_OK);
    CHECK_EQ_INT(status, CUDYN_CAPTURE_NONE);
    CHECK_STATUS(cudyn_stream_begin_capture(s, CUDYN_CAPTURE_GLOBAL), CUDYN_OK);
    CHECK_STATUS(cudyn_stream_capture_status(s, &status), CUDYN_OK);
    CHECK_EQ_INT(status, CUDYN_CAPTURE_ACTIVE);
    memset(replayed, 0, sizeof replayed);
    CHECK_STATUS(queue_work(s, x, 2.0f, replayed), CUDYN_OK);
    cudyn_graph g = NULL;
    CHECK_STATUS(cudyn_stream_end_capture(s, &g), CUDYN_OK);
    CHECK(g != NULL);
    CHECK(all_equal(replayed, 0.0f)); /* captured, not run */
    cudyn_graph_exec e = NULL;
    CHECK_STATUS(cudyn_graph_instantiate(&e, g, 0), CUDYN_OK);
    CHECK_STATUS(cudyn_graph_destroy(g), CUDYN_OK); /* the instance keeps what it needs */
    for (int round = 0; round < 3; round++) {
        memset(replayed, 0, sizeof replayed);
        CHECK_STATUS(cudyn_graph_launch(e, s), CUDYN_OK);
        CHECK_STATUS(cudyn_stream_synchronize(s), CUDYN_OK);
        CHECK(memcmp(replayed, single, sizeof single) == 0);
    }

    /* the same shape with another factor: updated in place */
    CHECK_STATUS(capture(s, x, 3.0f, replayed, &g), CUDYN_OK);
    CHECK_STATUS(cudyn_graph_exec_update(e, g), CUDYN_OK);
    CHECK_STATUS(cudyn_graph_launch(e, NULL), CUDYN_OK);
    CHECK_STATUS(cudyn_synchronize(), CUDYN_OK);
    CHECK(all_equal(replayed, 59049.0f)); /* 3^10 */
    CHECK_STATUS(cudyn_graph_destroy(g), CUDYN_OK);
    /* another shape is refused, and the instance is unchanged */
    CHECK_STATUS(cudyn_stream_begin_capture(s, CUDYN_CAPTURE_THREAD_LOCAL), CUDYN_OK);
    CHECK_STATUS(cudyn_launchf(scale, (cudyn_dim3){4, 1, 1}, (cudyn_dim3){64, 1, 1}, 0, s, "fpz", 5.0, x, (size_t)N),
                 CUDYN_OK);
    CHECK_STATUS(cudyn_stream_end_capture(s, &g), CUDYN_OK);
    CHECK_STATUS(cudyn_graph_exec_update(e, g), CUDYN_ERROR_NOT_SUPPORTED);
    expect_message("the graph does not fit the instance: the topology changed");
    expect_message("cudyn_graph_instantiate");
    memset(replayed, 0, sizeof replayed);
    CHECK_STATUS(cudyn_graph_launch(e, s), CUDYN_OK);
    CHECK_STATUS(cudyn_stream_synchronize(s), CUDYN_OK);
    CHECK(all_equal(replayed, 59049.0f));
    CHECK_STATUS(cudyn_graph_destroy(g), CUDYN_OK);
    CHECK_STATUS(cudyn_graph_exec_destroy(e), CUDYN_OK);
    cudyn_mem_free(x);
    cudyn_stream_destroy(s);
}

/* What a capture forbids is refused and breaks it; RELAXED forbids none. */
static void test_forbidden_calls(void)
{
    cudyn_stream s = NULL;
    CHECK_STATUS(cudyn_stream_create(&s, 0), CUDYN_OK);
    CHECK_STATUS(cudyn_stream_begin_capture(NULL, CUDYN_CAPTURE_GLOBAL), CUDYN_ERROR_NOT_PERMITTED);
    expect_message("legacy default stream");

    CHECK_STATUS(cudyn_stream_begin_capture(s, CUDYN_CAPTURE_GLOBAL), CUDYN_OK);
    cudyn_devptr p = 0;
    CHECK_STATUS(cudyn_mem_alloc(&p, 64), CUDYN_ERROR_NOT_PERMITTED);
    expect_message("CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED");
    int status = -1;
    CHECK_STATUS(cudyn_stream_capture_status(s, &status), CUDYN_OK);
    CHECK_EQ_INT(status, CUDYN_CAPTURE_INVALIDATED);
    cudyn_graph g = (cudyn_graph)1;
    CHECK_STATUS(cudyn_stream_end_capture(s, &g), CUDYN_ERROR_DRIVER);
    expect_message("CUDA_ERROR_STREAM_CAPTURE_INVALIDATED");
    expect_message("capture again");
    CHECK(g == NULL);

    /* In/Out buffers allocate and synchronise: not in a capture */
    float host[4] = {0};
    CHECK_STATUS(cudyn_stream_begin_capture(s, CUDYN_CAPTURE_GLOBAL), CUDYN_OK);
    CHECK_STATUS(cudyn_launchf(scale, (cudyn_dim3){1, 1, 1}, (cudyn_dim3){4, 1, 1}, 0, s, "f=z", 2.0, host,
                               sizeof host, (size_t)4),
                 CUDYN_ERROR_NOT_PERMITTED);
    CHECK_STATUS(cudyn_stream_end_capture(s, &g), CUDYN_ERROR_DRIVER);

    CHECK_STATUS(cudyn_stream_begin_capture(s, CUDYN_CAPTURE_RELAXED), CUDYN_OK);
    CHECK_STATUS(cudyn_mem_alloc(&p, 64), CUDYN_OK);
    CHECK_STATUS(cudyn_stream_end_capture(s, &g), CUDYN_OK);
    CHECK_STATUS(cudyn_graph_destroy(g), CUDYN_OK);
    cudyn_mem_free(p);
    cudyn_stream_destroy(s);
}

static void test_arguments(void)
{
    cudyn_graph_exec e = (cudyn_graph_exec)1;
    CHECK_STATUS(cudyn_stream_begin_capture(NULL, 3), CUDYN_ERROR_INVALID_ARGUMENT);
    expect_message("'mode'");
    CHECK_STATUS(cudyn_stream_end_capture(NULL, NULL), CUDYN_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(cudyn_stream_capture_status(NULL, NULL), CUDYN_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(cudyn_graph_instantiate(&e, NULL, 0), CUDYN_ERROR_INVALID_ARGUMENT);
    CHECK(e == NULL);
    CHECK_STATUS(cudyn_graph_instantiate(NULL, (cudyn_graph)1, 0), CUDYN_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(cudyn_graph_instantiate(&e, (cudyn_graph)1, 4), CUDYN_ERROR_INVALID_ARGUMENT);
    expect_message("'flags'");
    CHECK_STATUS(cudyn_graph_launch(NULL, NULL), CUDYN_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(cudyn_graph_exec_update(NULL, (cudyn_graph)1), CUDYN_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(cudyn_graph_exec_update((cudyn_graph_exec)1, NULL), CUDYN_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(cudyn_graph_exec_destroy(NULL), CUDYN_OK);
    CHECK_STATUS(cudyn_graph_destroy(NULL), CUDYN_OK);
    int status = 0;
    CHECK_STATUS(cudyn_stream_capture_status(NULL, &status), CUDYN_OK); /* the default stream never captures here */
    CHECK_EQ_INT(status, CUDYN_CAPTURE_NONE);
}

/* Capture, instantiate, launch, update and destroy, for fault injection. */
static int op_graph(void)
{
    static float host[N];
    cudyn_stream s = NULL;
    cudyn_devptr x = 0;
    if (cudyn_stream_create(&s, 0) != CUDYN_OK || cudyn_mem_alloc(&x, N * sizeof(float)) != CUDYN_OK)
        return -1;
    int status = 0;
    cudyn_graph g = NULL, g2 = NULL;
    cudyn_graph_exec e = NULL;
    int st = capture(s, x, 2.0f, host, &g);
    if (st == CUDYN_OK)
        st = cudyn_stream_capture_status(s, &status);
    if (st == CUDYN_OK)
        st = cudyn_graph_instantiate(&e, g, CUDYN_GRAPH_AUTO_FREE_ON_LAUNCH);
    if (st == CUDYN_OK)
        st = cudyn_graph_launch(e, s);
    if (st == CUDYN_OK)
        st = capture(s, x, 2.0f, host, &g2);
    if (st == CUDYN_OK)
        st = cudyn_graph_exec_update(e, g2);
    int st_stop = CUDYN_OK;
    if (cudyn_stream_capture_status(s, &status) == CUDYN_OK && status != CUDYN_CAPTURE_NONE) {
        cudyn_graph left = NULL; /* a capture a failure left open */
        cudyn_stream_end_capture(s, &left);
        cudyn_graph_destroy(left);
    }
    /* destroy each once more if the driver refused */
    if (e && cudyn_graph_exec_destroy(e) != CUDYN_OK && (st_stop = cudyn_last_error(NULL)))
        cudyn_graph_exec_destroy(e);
    if (g && cudyn_graph_destroy(g) != CUDYN_OK && (st_stop = cudyn_last_error(NULL)))
        cudyn_graph_destroy(g);
    if (g2 && cudyn_graph_destroy(g2) != CUDYN_OK && (st_stop = cudyn_last_error(NULL)))
        cudyn_graph_destroy(g2);
    cudyn_mem_free(x);
    cudyn_stream_destroy(s);
    return st != CUDYN_OK ? st : st_stop;
}

static void test_fault_injection(void)
{
    static const struct fault_case cases[] = {
        {"cuStreamBeginCapture_v2", op_graph},      {"cuStreamEndCapture", op_graph},
        {"cuStreamGetCaptureInfo_v3", op_graph},    {"cuGraphInstantiateWithFlags", op_graph},
        {"cuGraphLaunch", op_graph},                {"cuGraphExecUpdate_v2", op_graph},
        {"cuGraphExecDestroy", op_graph},           {"cuGraphDestroy", op_graph},
    };
    static const struct fault_code codes[] = {
        {2, CUDYN_ERROR_OUT_OF_MEMORY}, {999, CUDYN_ERROR_DRIVER}, {900, CUDYN_ERROR_NOT_PERMITTED},
    };
    FAULT_SWEEP(cases, codes, NULL);
}

static void load(void)
{
    CHECK_STATUS(cudyn_module_load_image(&mod, image), CUDYN_OK);
    CHECK_STATUS(cudyn_module_function(&scale, mod, "scale"), CUDYN_OK);
}

/* CUDA 12.2: the capture status through cuStreamGetCaptureInfo_v2. */
static int child_cuda_12_2(void)
{
    use_mock_driver();
    load();
    CHECK(!cudyn_has("cuStreamGetCaptureInfo_v3"));
    long v2 = mock_call_count("cuStreamGetCaptureInfo_v2");
    CHECK_EQ_INT(op_graph(), CUDYN_OK);
    CHECK(mock_call_count("cuStreamGetCaptureInfo_v2") > v2);
    CHECK_EQ_INT(mock_call_count("cuStreamGetCaptureInfo_v3"), 0);
    cudyn_module_unload(mod);
    return test_failures ? 1 : 0;
}

/* CUDA 11.8: the update through the v1 cuGraphExecUpdate. */
static int child_cuda_11_8(void)
{
    use_mock_driver();
    load();
    CHECK_EQ_INT(op_graph(), CUDYN_OK);
    CHECK_EQ_INT(mock_call_count("cuGraphExecUpdate"), 1);
    CHECK_EQ_INT(mock_call_count("cuGraphExecUpdate_v2"), 0);
    cudyn_module_unload(mod);
    return test_failures ? 1 : 0;
}

/* CUDA 11.2: capture works; the capture status (11.3) and instantiation
 * (11.4) are missing and say so. */
static int child_cuda_11_2(void)
{
    use_mock_driver();
    load();
    static float host[N];
    cudyn_stream s = NULL;
    cudyn_devptr x = 0;
    cudyn_graph g = NULL;
    cudyn_graph_exec e = NULL;
    int status = 0;
    CHECK_STATUS(cudyn_stream_create(&s, 0), CUDYN_OK);
    CHECK_STATUS(cudyn_mem_alloc(&x, N * sizeof(float)), CUDYN_OK);
    CHECK_STATUS(capture(s, x, 2.0f, host, &g), CUDYN_OK);
    CHECK_STATUS(cudyn_stream_capture_status(s, &status), CUDYN_ERROR_SYMBOL_NOT_FOUND);
    expect_message("does not provide cuStreamGetCaptureInfo");
    CHECK_STATUS(cudyn_graph_instantiate(&e, g, 0), CUDYN_ERROR_SYMBOL_NOT_FOUND);
    expect_message("the loaded driver (CUDA 11.2) does not provide cuGraphInstantiateWithFlags");
    CHECK_STATUS(cudyn_graph_destroy(g), CUDYN_OK);
    cudyn_mem_free(x);
    cudyn_stream_destroy(s);
    cudyn_module_unload(mod);
    return test_failures ? 1 : 0;
}

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "cuda-12.2") == 0)
        return child_cuda_12_2();
    if (argc == 2 && strcmp(argv[1], "cuda-11.8") == 0)
        return child_cuda_11_8();
    if (argc == 2 && strcmp(argv[1], "cuda-11.2") == 0)
        return child_cuda_11_2();
    use_mock_driver();
    load();
    test_arguments();
    test_capture_and_replay();
    test_forbidden_calls();
    test_fault_injection();
    CHECK_EQ_INT(mock_graph_count(), 0);
    cudyn_module_unload(mod);
    CHECK_EQ_INT(test_run_child(argv[0], "cuda-12.2", "MOCK_LIBCUDA", "12020"), 0);
    CHECK_EQ_INT(test_run_child(argv[0], "cuda-11.8", "MOCK_LIBCUDA_V11_8", "11080"), 0);
    CHECK_EQ_INT(test_run_child(argv[0], "cuda-11.2", "MOCK_LIBCUDA_V11_8", "11020"), 0);
    return test_result("test_graph");
}
