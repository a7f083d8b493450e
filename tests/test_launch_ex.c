/*
 * test_launch_ex.c - cudyn_launch_ex against the mock driver: thread-block
 * clusters (each block's rank in its cluster), cooperative launches (a
 * kernel with a grid sync the mock runs only when launched cooperatively),
 * priorities, and dynamic shared memory above the kernel's limit (cudyn
 * raises it when the driver refuses the launch, and launches again); a
 * launch that runs asks the device nothing.  What a device or driver
 * lacks is NOT_SUPPORTED naming it: clusters on a compute capability 7.5
 * device; on CUDA 11.4, which has no cuLaunchKernelEx, cooperative
 * launches go through cuLaunchCooperativeKernel while clusters and
 * priorities are refused; on 11.8 priorities are refused.  Every driver
 * call fails in turn.
 */
#include "config.h"

#include "cudyn.h"
#include "fault_sweep.h"

static const char image[] =
    ".version 8.0\n.target sm_90\n"
    ".visible .entry cluster_rank(.param .u64 out)\n{\n}\n"
    ".visible .entry coop_shift(.param .u64 a, .param .u64 b, .param .u32 n)\n{\n}\n"
    ".visible .entry empty()\n{\n .shared .align 4 .b8 tile[1024];\n}\n";

static cudyn_module mod;
static cudyn_function cluster_rank, coop_shift, empty;

static void expect_message(const char *text)
{
    cudyn_error e = {.size = sizeof e};
    cudyn_last_error(&e);
    CHECK_CONTAINS(e.message, text);
}

static struct cudyn_launch_config config(unsigned int gx, unsigned int gy, unsigned int bx)
{
    return (struct cudyn_launch_config){.size = sizeof(struct cudyn_launch_config), .grid = {gx, gy, 1},
                                        .block = {bx, 1, 1}};
}

static void load(void)
{
    CHECK_STATUS(cudyn_module_load_image(&mod, image), CUDYN_OK);
    CHECK_STATUS(cudyn_module_function(&cluster_rank, mod, "cluster_rank"), CUDYN_OK);
    CHECK_STATUS(cudyn_module_function(&coop_shift, mod, "coop_shift"), CUDYN_OK);
    CHECK_STATUS(cudyn_module_function(&empty, mod, "empty"), CUDYN_OK);
}

/* An 8 x 2 grid in 2 x 2 clusters: each block's rank is x % 2 + 2 (y % 2). */
static int launch_clusters(void)
{
    unsigned int ranks[16];
    cudyn_devptr d = 0;
    int st = cudyn_mem_alloc(&d, sizeof ranks);
    if (st != CUDYN_OK)
        return st;
    struct cudyn_launch_config c = config(8, 2, 32);
    c.cluster = (cudyn_dim3){2, 2, 1};
    void *args[] = {&d};
    st = cudyn_launch_ex(cluster_rank, &c, args);
    if (st == CUDYN_OK)
        st = cudyn_memcpy_dtoh(ranks, d, sizeof ranks);
    cudyn_mem_free(d);
    for (unsigned int b = 0; st == CUDYN_OK && b < 16; b++)
        CHECK_EQ_INT(ranks[b], b % 8 % 2 + 2 * (b / 8 % 2));
    return st;
}

/* b[i] = a[(i + 1) % n] after a grid sync, over 4 blocks of 256. */
static int launch_cooperative(unsigned int blocks)
{
    enum { N = 1000 };
    cudyn_devptr a = 0, b = 0;
    int st = cudyn_mem_alloc(&a, N * sizeof(int));
    if (st == CUDYN_OK)
        st = cudyn_mem_alloc(&b, N * sizeof(int));
    struct cudyn_launch_config c = config(blocks, 1, 256);
    c.flags = CUDYN_LAUNCH_COOPERATIVE;
    int n = N;
    void *args[] = {&a, &b, &n};
    if (st == CUDYN_OK)
        st = cudyn_launch_ex(coop_shift, &c, args);
    int out[N];
    if (st == CUDYN_OK)
        st = cudyn_memcpy_dtoh(out, b, sizeof out);
    for (int i = 0; st == CUDYN_OK && i < N; i++)
        if (out[i] != 3 * ((i + 1) % N)) {
            test_failures++;
            break;
        }
    cudyn_mem_free(a);
    cudyn_mem_free(b);
    return st;
}

static void test_clusters(void)
{
    long asked = mock_call_count("cuDeviceGetAttribute") + mock_call_count("cuCtxGetDevice");
    CHECK_STATUS(launch_clusters(), CUDYN_OK);
    CHECK_EQ_INT(mock_call_count("cuDeviceGetAttribute") + mock_call_count("cuCtxGetDevice"), asked);
    struct cudyn_launch_config c = config(8, 2, 32);
    c.cluster = (cudyn_dim3){3, 1, 1};
    CHECK_STATUS(cudyn_launch_ex(cluster_rank, &c, NULL), CUDYN_ERROR_INVALID_ARGUMENT);
    expect_message("'config->cluster' 3x1x1 does not divide the grid 8x2x1");
    c.cluster = (cudyn_dim3){2, 0, 1};
    CHECK_STATUS(cudyn_launch_ex(cluster_rank, &c, NULL), CUDYN_ERROR_INVALID_ARGUMENT);
    expect_message("zero dimension");
    /* 16 blocks: more than the portable 8, refused by the driver */
    cudyn_devptr d = 0;
    CHECK_STATUS(cudyn_mem_alloc(&d, 64), CUDYN_OK);
    void *args[] = {&d};
    c = config(8, 2, 32);
    c.cluster = (cudyn_dim3){8, 2, 1};
    CHECK_STATUS(cudyn_launch_ex(cluster_rank, &c, args), CUDYN_ERROR_INVALID_ARGUMENT);
    expect_message("CUDA_ERROR_INVALID_CLUSTER_SIZE");
    expect_message("non-portable");
    cudyn_mem_free(d);
}

static void test_cooperative(void)
{
    long before = mock_call_count("cuLaunchKernelEx"), asked = mock_call_count("cuDeviceGetAttribute");
    CHECK_STATUS(launch_cooperative(4), CUDYN_OK);
    CHECK_EQ_INT(mock_call_count("cuLaunchKernelEx"), before + 1);
    CHECK_EQ_INT(mock_call_count("cuDeviceGetAttribute"), asked); /* diagnosed only when refused */
    /* more blocks than fit at once (8 per multiprocessor x 4) */
    CHECK_STATUS(launch_cooperative(40), CUDYN_ERROR_LAUNCH_OUT_OF_RESOURCES);
    expect_message("CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE");
    expect_message("cudyn_occupancy_max_blocks");
    expect_message("grid 40x1x1, block 256x1x1, cluster 0x0x0, cooperative");
    /* launched plainly, the mock refuses to pretend the grid sync worked */
    cudyn_devptr a = 0;
    CHECK_STATUS(cudyn_mem_alloc(&a, 64), CUDYN_OK);
    int n = 16;
    void *args[] = {&a, &a, &n};
    CHECK_STATUS(cudyn_launch(coop_shift, (cudyn_dim3){1, 1, 1}, (cudyn_dim3){16, 1, 1}, 0, NULL, args),
                 CUDYN_ERROR_NOT_SUPPORTED);
    cudyn_mem_free(a);
}

static void test_shared_and_priority(void)
{
    struct cudyn_launch_config c = config(2, 1, 64);
    c.shared_bytes = 100 * 1024;
    long sets = mock_call_count("cuFuncSetAttribute"), refused = mock_refusal_count("shared");
    CHECK_STATUS(cudyn_launch_ex(empty, &c, NULL), CUDYN_OK);
    CHECK_EQ_INT(mock_call_count("cuFuncSetAttribute"), sets + 1);
    CHECK_EQ_INT(mock_refusal_count("shared"), refused); /* raised before the launch, none refused first */
    long reads = mock_call_count("cuFuncGetAttribute");
    CHECK_STATUS(cudyn_launch_ex(empty, &c, NULL), CUDYN_OK); /* raised already: nothing asked */
    CHECK_EQ_INT(mock_call_count("cuFuncSetAttribute"), sets + 1);
    CHECK_EQ_INT(mock_call_count("cuFuncGetAttribute"), reads);
    /* the device's opt-in maximum less the kernel's 1024 static bytes */
    c.shared_bytes = 232448 - 1024 + 1;
    CHECK_STATUS(cudyn_launch_ex(empty, &c, NULL), CUDYN_ERROR_INVALID_ARGUMENT);
    expect_message("'config->shared_bytes' is 231425; with the kernel's 1024 bytes of static shared memory that is "
                   "more than the 232448 bytes per block device 0 allows");
    c.shared_bytes = 0;
    c.flags = CUDYN_LAUNCH_PRIORITY;
    c.priority = -1;
    CHECK_STATUS(cudyn_launch_ex(empty, &c, NULL), CUDYN_OK);
    /* nothing beyond cudyn_launch: cuLaunchKernel */
    long plain = mock_call_count("cuLaunchKernel"), ex = mock_call_count("cuLaunchKernelEx");
    c.flags = 0;
    CHECK_STATUS(cudyn_launch_ex(empty, &c, NULL), CUDYN_OK);
    CHECK_EQ_INT(mock_call_count("cuLaunchKernel"), plain + 1);
    CHECK_EQ_INT(mock_call_count("cuLaunchKernelEx"), ex);
}

static void test_arguments(void)
{
    struct cudyn_launch_config c = config(1, 1, 32);
    CHECK_STATUS(cudyn_launch_ex(NULL, &c, NULL), CUDYN_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(cudyn_launch_ex(empty, NULL, NULL), CUDYN_ERROR_INVALID_ARGUMENT);
    expect_message("'config'");
    c.size = 4;
    CHECK_STATUS(cudyn_launch_ex(empty, &c, NULL), CUDYN_ERROR_INVALID_ARGUMENT);
    expect_message("config->size");
    c = config(0, 1, 32);
    CHECK_STATUS(cudyn_launch_ex(empty, &c, NULL), CUDYN_ERROR_INVALID_ARGUMENT);
    expect_message("config->grid");
    c = config(1, 1, 0);
    CHECK_STATUS(cudyn_launch_ex(empty, &c, NULL), CUDYN_ERROR_INVALID_ARGUMENT);
    expect_message("config->block");
    c = config(1, 1, 32);
    c.flags = 8;
    CHECK_STATUS(cudyn_launch_ex(empty, &c, NULL), CUDYN_ERROR_INVALID_ARGUMENT);
    expect_message("config->flags");
}

/* A device without clusters (compute capability 7.5) says so. */
static void test_device_without_clusters(void)
{
    CHECK_STATUS(cudyn_device_use(1), CUDYN_OK);
    cudyn_module m = NULL;
    cudyn_function f = NULL;
    CHECK_STATUS(cudyn_module_load_image(&m, image), CUDYN_OK);
    CHECK_STATUS(cudyn_module_function(&f, m, "cluster_rank"), CUDYN_OK);
    int v = -1;
    CHECK_STATUS(cudyn_device_attribute(1, CUDYN_ATTR_CLUSTER_LAUNCH, &v), CUDYN_OK);
    CHECK_EQ_INT(v, 0);
    struct cudyn_launch_config c = config(2, 1, 32);
    c.cluster = (cudyn_dim3){2, 1, 1};
    CHECK_STATUS(cudyn_launch_ex(f, &c, NULL), CUDYN_ERROR_NOT_SUPPORTED);
    expect_message("thread-block clusters: device 1 (Tesla T4) has device attribute cluster_launch = 0");
    expect_message("compute capability 9.0");
    cudyn_module_unload(m);
    CHECK_STATUS(cudyn_device_use(0), CUDYN_OK);
}

static int op_cluster(void)
{
    return launch_clusters();
}

static int op_cooperative(void)
{
    return launch_cooperative(4);
}

static int op_shared(void)
{
    cudyn_module m = NULL;
    cudyn_function f = NULL;
    if (cudyn_module_load_image(&m, image) != CUDYN_OK || cudyn_module_function(&f, m, "empty") != CUDYN_OK)
        return -1;
    struct cudyn_launch_config c = config(1, 1, 32);
    c.shared_bytes = 64 * 1024; /* a fresh module: the limit is raised each time */
    int st = cudyn_launch_ex(f, &c, NULL);
    cudyn_module_unload(m);
    return st;
}

static void test_fault_injection(void)
{
    /* a launch that runs asks the device nothing: the attribute calls come
     * only after the driver refused one (op_shared's first attempt) */
    static const struct fault_case cases[] = {
        {"cuLaunchKernelEx", op_cluster},  {"cuLaunchKernelEx", op_cooperative}, {"cuLaunchKernel", op_shared},
        {"cuFuncGetAttribute", op_shared}, {"cuCtxGetDevice", op_shared},         {"cuDeviceGetAttribute", op_shared},
        {"cuFuncSetAttribute", op_shared},
    };
    static const struct fault_code codes[] = {
        {2, CUDYN_ERROR_OUT_OF_MEMORY}, {999, CUDYN_ERROR_DRIVER}, {719, CUDYN_ERROR_LAUNCH_FAILED},
    };
    FAULT_SWEEP(cases, codes, NULL);
}

/* CUDA 11.4: no cuLaunchKernelEx. */
static int child_cuda_11_4(void)
{
    use_mock_driver();
    load();
    CHECK(!cudyn_has("cuLaunchKernelEx"));
    long coop = mock_call_count("cuLaunchCooperativeKernel");
    CHECK_STATUS(launch_cooperative(4), CUDYN_OK);
    CHECK_EQ_INT(mock_call_count("cuLaunchCooperativeKernel"), coop + 1);
    CHECK_STATUS(launch_cooperative(40), CUDYN_ERROR_LAUNCH_OUT_OF_RESOURCES);
    expect_message("cuLaunchCooperativeKernel returned CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE");
    CHECK_STATUS(launch_clusters(), CUDYN_ERROR_NOT_SUPPORTED);
    expect_message("thread-block clusters need cuLaunchKernelEx of a CUDA 11.8+ driver; the loaded driver is CUDA "
                   "11.4 and does not provide it");
    struct cudyn_launch_config c = config(1, 1, 32);
    c.flags = CUDYN_LAUNCH_PRIORITY;
    CHECK_STATUS(cudyn_launch_ex(empty, &c, NULL), CUDYN_ERROR_NOT_SUPPORTED);
    expect_message("launch priorities need cuLaunchKernelEx of a CUDA 12.0+ driver");
    /* a fault in the fallback is reported as its own */
    CHECK_EQ_INT(mock_fail_next("cuLaunchCooperativeKernel", 999), 0);
    CHECK_STATUS(launch_cooperative(4), CUDYN_ERROR_DRIVER);
    expect_message("cuLaunchCooperativeKernel");
    cudyn_module_unload(mod);
    return test_failures ? 1 : 0;
}

/* CUDA 11.8 (the 4-argument cuGetProcAddress): clusters yes, priority no. */
static int child_cuda_11_8(void)
{
    use_mock_driver();
    load();
    CHECK_STATUS(launch_clusters(), CUDYN_OK);
    CHECK_STATUS(launch_cooperative(4), CUDYN_OK);
    struct cudyn_launch_config c = config(1, 1, 32);
    c.flags = CUDYN_LAUNCH_PRIORITY;
    CHECK_STATUS(cudyn_launch_ex(empty, &c, NULL), CUDYN_ERROR_NOT_SUPPORTED);
    expect_message("the loaded driver is CUDA 11.8");
    cudyn_module_unload(mod);
    return test_failures ? 1 : 0;
}

/* CUDA 12.2: everything. */
static int child_cuda_12_2(void)
{
    use_mock_driver();
    load();
    CHECK_STATUS(launch_clusters(), CUDYN_OK);
    struct cudyn_launch_config c = config(1, 1, 32);
    c.flags = CUDYN_LAUNCH_PRIORITY | CUDYN_LAUNCH_COOPERATIVE;
    c.priority = -2;
    CHECK_STATUS(cudyn_launch_ex(empty, &c, NULL), CUDYN_OK);
    cudyn_module_unload(mod);
    return test_failures ? 1 : 0;
}

int main(int argc, char **argv)
{
    setenv("MOCK_CUDA_DEVICES", "NVIDIA H100:90,Tesla T4:75", 1);
    if (argc == 2 && strcmp(argv[1], "cuda-11.4") == 0)
        return child_cuda_11_4();
    if (argc == 2 && strcmp(argv[1], "cuda-11.8") == 0)
        return child_cuda_11_8();
    if (argc == 2 && strcmp(argv[1], "cuda-12.2") == 0)
        return child_cuda_12_2();
    use_mock_driver();
    load();
    test_arguments();
    test_clusters();
    test_cooperative();
    test_shared_and_priority();
    test_device_without_clusters();
    test_fault_injection();
    cudyn_module_unload(mod);
    CHECK_EQ_INT(test_run_child(argv[0], "cuda-11.4", "MOCK_LIBCUDA", "11040"), 0);
    CHECK_EQ_INT(test_run_child(argv[0], "cuda-11.8", "MOCK_LIBCUDA_V11_8", "11080"), 0);
    CHECK_EQ_INT(test_run_child(argv[0], "cuda-12.2", "MOCK_LIBCUDA", "12020"), 0);
    return test_result("test_launch_ex");
}
