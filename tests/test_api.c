/*
 * test_api.c - the public ABI against the mock driver with three devices:
 * device description, contexts across threads and devices, memory, streams,
 * events, modules and launches (the mock runs saxpy on the host), and fault
 * injection in every driver call those functions make.  check-valgrind.sh
 * runs this under valgrind to prove nothing leaks on any path.
 */
#include "config.h"

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "cudyn.h"
#include "fault_sweep.h"

/* A PTX-like image the mock accepts; it declares the kernels it runs. */
static const char mock_image[] = "//\n.version 8.0\n.target sm_90\n"
                                 ".visible .entry saxpy(.param .f32 a, .param .u64 x, .param .u64 y, .param .u64 out,"
                                 " .param .u64 n)\n{\n}\n.visible .entry fault(\n)\n{\n}\n";

static void test_devices(void)
{
    int n = 0;
    CHECK_STATUS(cudyn_device_count(&n), CUDYN_OK);
    CHECK_EQ_INT(n, 3);
    struct cudyn_device_info d = {.size = sizeof d};
    CHECK_STATUS(cudyn_device_info(1, &d), CUDYN_OK);
    CHECK(strcmp(d.name, "Tesla T4") == 0);
    CHECK_EQ_INT(d.cc_major, 7);
    CHECK_EQ_INT(d.cc_minor, 5);
    CHECK_EQ_INT(d.ordinal, 1);
    CHECK_EQ_INT(d.multiprocessors, 6);
    CHECK_EQ_INT(d.warp_size, 32);
    CHECK_EQ_INT(d.max_block_dim[2], 64);
    CHECK_EQ_INT(d.size, sizeof d);
    CHECK(strcmp(d.uuid_string, "GPU-20212223-2425-2627-2829-2a2b2c2d2e2f") == 0);
    CHECK(strcmp(d.pci_bus_id, "00000000:18:00.0") == 0);
    CHECK(d.total_memory == (uint64_t)256 << 20);

    /* an older, smaller struct is filled only as far as it goes */
    struct {
        struct cudyn_device_info d;
    } small;
    memset(&small, 0x77, sizeof small);
    small.d.size = offsetof(struct cudyn_device_info, total_memory);
    CHECK_STATUS(cudyn_device_info(2, &small.d), CUDYN_OK);
    CHECK_EQ_INT(small.d.size, offsetof(struct cudyn_device_info, total_memory));
    CHECK(strcmp(small.d.name, "NVIDIA B200") == 0);
    CHECK(small.d.total_memory == 0x7777777777777777ull);

    /* a query that fails is an error naming it; one the driver does not
     * answer (an attribute it does not know) is a field left 0 */
    static const char *const failing[] = {"cuDeviceGetUuid_v2", "cuDeviceGetPCIBusId", "cuDeviceGetAttribute"};
    for (size_t i = 0; i < sizeof failing / sizeof failing[0]; i++) {
        mock_fail_next(failing[i], 2); /* CUDA_ERROR_OUT_OF_MEMORY */
        CHECK_STATUS(cudyn_device_info(1, &d), CUDYN_ERROR_OUT_OF_MEMORY);
        cudyn_error e = {.size = sizeof e};
        cudyn_last_error(&e);
        CHECK_CONTAINS(e.message, strncmp(failing[i], "cuDeviceGetUuid", 15) == 0 ? "cuDeviceGetUuid" : failing[i]);
    }
    mock_fail_next("cuDeviceGetAttribute", 1); /* CUDA_ERROR_INVALID_VALUE: not known */
    CHECK_STATUS(cudyn_device_info(1, &d), CUDYN_OK);

    int v = 0;
    CHECK_STATUS(cudyn_device_attribute(2, CUDYN_ATTR_COMPUTE_CAPABILITY_MAJOR, &v), CUDYN_OK);
    CHECK_EQ_INT(v, 10);
    CHECK(cudyn_device_attr_count() >= 148);
    int can = -1;
    CHECK_STATUS(cudyn_device_can_access_peer(0, 1, &can), CUDYN_OK);
    CHECK_EQ_INT(can, 1);
    CHECK_STATUS(cudyn_device_can_access_peer(1, 1, &can), CUDYN_OK);
    CHECK_EQ_INT(can, 0);
}

struct thread_case {
    int use;      /* device to select, -1: none */
    int expected; /* device the thread ends up on */
    int failures;
};

static void *thread_device(void *arg)
{
    struct thread_case *c = arg;
    if (c->use >= 0 && cudyn_device_use(c->use) != CUDYN_OK)
        c->failures++;
    cudyn_devptr p = 0;
    if (cudyn_mem_alloc(&p, 1024) != CUDYN_OK)
        c->failures++;
    int cur = -1;
    if (cudyn_device_current(&cur) != CUDYN_OK || cur != c->expected)
        c->failures++;
    if (cudyn_mem_free(p) != CUDYN_OK)
        c->failures++;
    return NULL;
}

/* A context made current by another library (here: raw driver calls). */
static void *thread_foreign_context(void *arg)
{
    struct thread_case *c = arg;
    typedef unsigned int (*retain_fn)(void **ctx, int dev);
    typedef unsigned int (*set_fn)(void *ctx);
    retain_fn retain = (retain_fn)cudyn_driver_proc("cuDevicePrimaryCtxRetain", 7000);
    set_fn set = (set_fn)cudyn_driver_proc("cuCtxSetCurrent", 4000);
    void *ctx = NULL;
    if (!retain || !set || retain(&ctx, 2) != 0 || set(ctx) != 0)
        c->failures++;
    int cur = -1;
    if (cudyn_device_current(&cur) != CUDYN_OK || cur != 2)
        c->failures++;
    return NULL;
}

static void test_contexts(void)
{
    struct thread_case cases[] = {{-1, 0, 0}, {1, 1, 0}, {2, 2, 0}, {0, 0, 0}};
    pthread_t t[4];
    for (int i = 0; i < 4; i++)
        pthread_create(&t[i], NULL, thread_device, &cases[i]);
    for (int i = 0; i < 4; i++) {
        pthread_join(t[i], NULL);
        CHECK_EQ_INT(cases[i].failures, 0);
    }
    struct thread_case foreign = {0, 2, 0};
    pthread_create(&t[0], NULL, thread_foreign_context, &foreign);
    pthread_join(t[0], NULL);
    CHECK_EQ_INT(foreign.failures, 0);
    /* primary contexts are retained once per device, not per thread */
    CHECK_EQ_INT(mock_call_count("cuDevicePrimaryCtxRetain"), 4); /* 3 by cudyn + 1 raw */
}

/* Odd sizes and offsets round-trip, in every direction. */
static void test_copies_round_trip(void)
{
    CHECK_STATUS(cudyn_device_use(0), CUDYN_OK);
    const size_t sizes[] = {1, 3, 255, 4097, (1u << 20) + 7};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        size_t n = sizes[s];
        unsigned char *in = malloc(n + 8), *out = malloc(n + 8);
        for (size_t i = 0; i < n + 8; i++)
            in[i] = (unsigned char)(i * 7 + s);
        cudyn_devptr a = 0, b = 0;
        CHECK_STATUS(cudyn_mem_alloc(&a, n + 8), CUDYN_OK);
        CHECK_STATUS(cudyn_mem_alloc(&b, n + 8), CUDYN_OK);
        size_t off = s % 8;
        CHECK_STATUS(cudyn_memcpy_htod(a + off, in + off, n), CUDYN_OK);
        CHECK_STATUS(cudyn_memcpy_dtod(b + 1, a + off, n), CUDYN_OK);
        memset(out, 0, n + 8);
        CHECK_STATUS(cudyn_memcpy_dtoh(out + 3, b + 1, n), CUDYN_OK);
        CHECK(memcmp(out + 3, in + off, n) == 0);
        CHECK_STATUS(cudyn_mem_free(a), CUDYN_OK);
        CHECK_STATUS(cudyn_mem_free(b), CUDYN_OK);
        free(in);
        free(out);
    }
}

static void test_memset_widths(void)
{
    cudyn_devptr d = 0;
    uint32_t words[16];
    CHECK_STATUS(cudyn_mem_alloc(&d, sizeof words), CUDYN_OK);
    CHECK_STATUS(cudyn_memset_d32(d, 0xDEADBEEF, 16), CUDYN_OK);
    CHECK_STATUS(cudyn_memset_d16(d, 0x1234, 2), CUDYN_OK);
    CHECK_STATUS(cudyn_memset_d8(d + 60, 0x5A, 4), CUDYN_OK);
    CHECK_STATUS(cudyn_memcpy_dtoh(words, d, sizeof words), CUDYN_OK);
    CHECK(words[0] == 0x12341234u && words[1] == 0xDEADBEEFu && words[15] == 0x5A5A5A5Au);
    CHECK_STATUS(cudyn_mem_free(d), CUDYN_OK);
}

static void test_async_copies_on_a_stream(void)
{
    cudyn_devptr d = 0;
    uint32_t words[16];
    CHECK_STATUS(cudyn_mem_alloc(&d, sizeof words), CUDYN_OK);
    cudyn_stream s = NULL;
    uint32_t *pinned = NULL;
    CHECK_STATUS(cudyn_stream_create(&s, CUDYN_STREAM_NON_BLOCKING), CUDYN_OK);
    CHECK_STATUS(cudyn_host_alloc((void **)&pinned, sizeof words), CUDYN_OK);
    for (int i = 0; i < 16; i++)
        pinned[i] = (uint32_t)i * 3u;
    CHECK_STATUS(cudyn_memcpy_htod_async(d, pinned, sizeof words, s), CUDYN_OK);
    CHECK_STATUS(cudyn_memset_d32_async(d + 4, 99, 1, s), CUDYN_OK);
    memset(pinned, 0, sizeof words);
    CHECK_STATUS(cudyn_memcpy_dtoh_async(pinned, d, sizeof words, s), CUDYN_OK);
    CHECK_STATUS(cudyn_stream_synchronize(s), CUDYN_OK);
    CHECK(pinned[0] == 0 && pinned[1] == 99 && pinned[15] == 45);
    CHECK_STATUS(cudyn_stream_query(s), CUDYN_OK);
    CHECK_STATUS(cudyn_host_free(pinned), CUDYN_OK);
    CHECK_STATUS(cudyn_stream_destroy(s), CUDYN_OK);
    CHECK_STATUS(cudyn_mem_free(d), CUDYN_OK);
    CHECK_STATUS(cudyn_mem_free(0), CUDYN_OK);
    CHECK_STATUS(cudyn_host_free(NULL), CUDYN_OK);
}

/* Out of memory is translated, with the size asked for, and costs nothing. */
static void test_out_of_memory(void)
{
    size_t base_free = 0, total = 0;
    CHECK_STATUS(cudyn_mem_info(&base_free, &total), CUDYN_OK);
    CHECK(total == (size_t)256 << 20);
    cudyn_devptr d = 0;
    CHECK_STATUS(cudyn_mem_alloc(&d, (size_t)1 << 40), CUDYN_ERROR_OUT_OF_MEMORY);
    cudyn_error e = {.size = sizeof e};
    cudyn_last_error(&e);
    CHECK_CONTAINS(e.message, "CUDA_ERROR_OUT_OF_MEMORY");
    CHECK_CONTAINS(e.message, "1099511627776 bytes");
    size_t free_now = 0;
    CHECK_STATUS(cudyn_mem_info(&free_now, &total), CUDYN_OK);
    CHECK(free_now == base_free);
}

static void test_events(void)
{
    cudyn_event a = NULL, b = NULL;
    float ms = -1;
    CHECK_STATUS(cudyn_event_create(&a, CUDYN_EVENT_DEFAULT), CUDYN_OK);
    CHECK_STATUS(cudyn_event_create(&b, CUDYN_EVENT_BLOCKING_SYNC), CUDYN_OK);
    CHECK_STATUS(cudyn_event_record(a, NULL), CUDYN_OK);
    CHECK_STATUS(cudyn_event_record(b, NULL), CUDYN_OK);
    CHECK_STATUS(cudyn_event_synchronize(b), CUDYN_OK);
    CHECK_STATUS(cudyn_event_query(b), CUDYN_OK);
    CHECK_STATUS(cudyn_stream_wait_event(NULL, b), CUDYN_OK);
    CHECK_STATUS(cudyn_event_elapsed_ms(&ms, a, b), CUDYN_OK);
    CHECK(ms >= 0);
    CHECK_STATUS(cudyn_event_destroy(a), CUDYN_OK);
    CHECK_STATUS(cudyn_event_destroy(b), CUDYN_OK);
}

/* A kernel or variable that is not there is NOT_FOUND, with a hint. */
static void test_lookup_errors(void)
{
    cudyn_module mod = NULL;
    CHECK_STATUS(cudyn_module_load_image(&mod, mock_image), CUDYN_OK);
    cudyn_function none = NULL;
    CHECK_STATUS(cudyn_module_function(&none, mod, "no_such_kernel"), CUDYN_ERROR_NOT_FOUND);
    cudyn_error e = {.size = sizeof e};
    cudyn_last_error(&e);
    CHECK_CONTAINS(e.message, "no_such_kernel");
    CHECK_CONTAINS(e.message, "extern \"C\"");
    cudyn_devptr g;
    CHECK_STATUS(cudyn_module_global(&g, NULL, mod, "nothing"), CUDYN_ERROR_NOT_FOUND);
    CHECK_STATUS(cudyn_module_unload(mod), CUDYN_OK);
}

static void test_function_info_and_occupancy(void)
{
    cudyn_module mod = NULL;
    cudyn_function f = NULL;
    CHECK_STATUS(cudyn_module_load_image(&mod, mock_image), CUDYN_OK);
    CHECK_STATUS(cudyn_module_function(&f, mod, "saxpy"), CUDYN_OK);
    struct cudyn_function_info fi = {.size = sizeof fi};
    CHECK_STATUS(cudyn_function_info(f, &fi), CUDYN_OK);
    CHECK_EQ_INT(fi.max_threads_per_block, 1024);
    CHECK_EQ_INT(fi.num_registers, 16);
    int blocks = 0, grid = 0, block = 0;
    CHECK_STATUS(cudyn_occupancy_max_blocks(&blocks, f, 256, 0), CUDYN_OK);
    CHECK_EQ_INT(blocks, 8);
    CHECK_STATUS(cudyn_occupancy_block_size(&grid, &block, f, 0, 512), CUDYN_OK);
    CHECK_EQ_INT(block, 512);
    CHECK_STATUS(cudyn_module_unload(mod), CUDYN_OK);
}

/* cudyn_launch runs the kernel (the mock's host saxpy) as the driver takes
 * its arguments. */
static void test_launch_runs_the_kernel(void)
{
    cudyn_module mod = NULL;
    cudyn_function f = NULL;
    CHECK_STATUS(cudyn_module_load_image(&mod, mock_image), CUDYN_OK);
    CHECK_STATUS(cudyn_module_function(&f, mod, "saxpy"), CUDYN_OK);
    test_launch_saxpy(f, 1000, 4);
    CHECK_STATUS(cudyn_module_unload(mod), CUDYN_OK);
}

/* A kernel that faults: the launch succeeds, the next synchronising call
 * reports it, and the error is sticky for the process.  It poisons the
 * process, so main runs it in a child of its own. */
static void test_sticky_fault(void)
{
    cudyn_module mod = NULL;
    cudyn_function fault = NULL;
    CHECK_STATUS(cudyn_module_load_image(&mod, mock_image), CUDYN_OK);
    CHECK_STATUS(cudyn_module_function(&fault, mod, "fault"), CUDYN_OK);
    cudyn_dim3 one = {1, 1, 1};
    CHECK_STATUS(cudyn_launch(fault, one, one, 0, NULL, NULL), CUDYN_OK);
    CHECK_STATUS(cudyn_synchronize(), CUDYN_ERROR_ILLEGAL_ADDRESS);
    cudyn_error e = {.size = sizeof e};
    cudyn_last_error(&e);
    CHECK_EQ_INT(e.native_code, 700);
    CHECK_CONTAINS(e.message, "sticky");
    CHECK_CONTAINS(e.message, "the process must exit");
    cudyn_module_unload(mod); /* the mock allows it; a real driver may answer 700 */
    /* a reset does not bring the device back; calls keep saying why */
    CHECK_STATUS(cudyn_device_reset(0), CUDYN_OK);
    cudyn_devptr p = 0;
    CHECK_STATUS(cudyn_mem_alloc(&p, 64), CUDYN_ERROR_ILLEGAL_ADDRESS);
    CHECK_STATUS(cudyn_synchronize(), CUDYN_ERROR_ILLEGAL_ADDRESS);
}

/* Each driver call the memory, stream, event and module functions make
 * fails in turn: the translated status comes back, nothing is left over. */
static int op_alloc(void)
{
    cudyn_devptr p = 0;
    int st = cudyn_mem_alloc(&p, 64);
    if (st == CUDYN_OK)
        cudyn_mem_free(p);
    return st;
}
static int op_free(void)
{
    cudyn_devptr p = 0;
    if (cudyn_mem_alloc(&p, 64) != CUDYN_OK)
        return -1;
    int st = cudyn_mem_free(p);
    if (st != CUDYN_OK)
        cudyn_mem_free(p); /* the driver kept it: free for real */
    return st;
}
static int op_host(void)
{
    void *p = NULL;
    int st = cudyn_host_alloc(&p, 64);
    if (st != CUDYN_OK)
        return st;
    st = cudyn_host_free(p);
    if (st != CUDYN_OK)
        cudyn_host_free(p); /* the driver kept it: free for real */
    return st;
}
static int op_copies(void)
{
    cudyn_devptr p = 0;
    char buf[64] = {0};
    if (cudyn_mem_alloc(&p, sizeof buf) != CUDYN_OK)
        return -1;
    int st = cudyn_memcpy_htod(p, buf, sizeof buf);
    if (st == CUDYN_OK)
        st = cudyn_memcpy_dtoh(buf, p, sizeof buf);
    if (st == CUDYN_OK)
        st = cudyn_memcpy_dtod(p, p, sizeof buf);
    if (st == CUDYN_OK)
        st = cudyn_memset_d32(p, 1, 4);
    cudyn_mem_free(p);
    return st;
}
static int op_stream(void)
{
    cudyn_stream s = NULL;
    int st = cudyn_stream_create(&s, 0);
    if (st != CUDYN_OK)
        return st;
    st = cudyn_stream_synchronize(s);
    int st2 = cudyn_stream_destroy(s);
    if (st2 != CUDYN_OK) {
        cudyn_stream_destroy(s);
        return st2;
    }
    return st;
}
static int op_event(void)
{
    cudyn_event a = NULL;
    int st = cudyn_event_create(&a, 0);
    if (st != CUDYN_OK)
        return st;
    st = cudyn_event_record(a, NULL);
    if (st == CUDYN_OK)
        st = cudyn_event_synchronize(a);
    float ms;
    if (st == CUDYN_OK)
        st = cudyn_event_elapsed_ms(&ms, a, a);
    int st2 = cudyn_event_destroy(a);
    if (st2 != CUDYN_OK) {
        cudyn_event_destroy(a);
        return st2;
    }
    return st;
}
static int op_module(void)
{
    cudyn_module m = NULL;
    cudyn_function f = NULL;
    int st = cudyn_module_load_image(&m, mock_image);
    if (st != CUDYN_OK)
        return st;
    st = cudyn_module_function(&f, m, "saxpy");
    int st2 = cudyn_module_unload(m);
    if (st2 != CUDYN_OK) {
        cudyn_module_unload(m);
        return st2;
    }
    return st;
}

static void test_fault_injection(void)
{
    static const struct fault_case cases[] = {
        {"cuMemAlloc_v2", op_alloc},         {"cuMemFree_v2", op_free},           {"cuMemHostAlloc", op_host},
        {"cuMemFreeHost", op_host},          {"cuMemcpyHtoD_v2", op_copies},      {"cuMemcpyDtoH_v2", op_copies},
        {"cuMemcpyDtoD_v2", op_copies},      {"cuMemsetD32_v2", op_copies},       {"cuStreamCreate", op_stream},
        {"cuStreamSynchronize", op_stream},  {"cuStreamDestroy_v2", op_stream},   {"cuEventCreate", op_event},
        {"cuEventRecord", op_event},         {"cuEventSynchronize", op_event},    {"cuEventElapsedTime_v2", op_event},
        {"cuEventDestroy_v2", op_event},     {"cuModuleLoadDataEx", op_module},   {"cuModuleGetFunction", op_module},
        {"cuModuleUnload", op_module},
    };
    static const struct fault_code codes[] = {
        {2, CUDYN_ERROR_OUT_OF_MEMORY}, {999, CUDYN_ERROR_DRIVER}, {700, CUDYN_ERROR_ILLEGAL_ADDRESS},
    };
    FAULT_SWEEP(cases, codes, NULL);
}

int main(int argc, char **argv)
{
    setenv("MOCK_CUDA_DEVICES", "NVIDIA H100 80GB HBM3:90,Tesla T4:75,NVIDIA B200:100", 1);
    use_mock_driver();
    if (argc == 2 && strcmp(argv[1], "sticky-fault") == 0) {
        test_sticky_fault();
        return test_result("test_api sticky-fault");
    }
    test_devices();
    test_contexts();
    test_copies_round_trip();
    test_memset_widths();
    test_async_copies_on_a_stream();
    test_out_of_memory();
    test_events();
    test_lookup_errors();
    test_function_info_and_occupancy();
    test_launch_runs_the_kernel();
    test_fault_injection();
    CHECK_EQ_INT(run_self(argv[0], "sticky-fault"), 0);
    return test_result("test_api");
}
