/*
 * test_gpu.c - the real driver and a real GPU; skipped (77) on a machine
 * without them.  Device info against the driver's own attributes, copies
 * of odd sizes and offsets, compile-load-launch, and a kernel that faults.
 * With two or more GPUs also: peer access and a kernel reading the other
 * GPU's memory, copies between them, and another device's module, kernel
 * and event refused as CUDYN_ERROR_WRONG_CONTEXT.  Beside other CUDA
 * users: runtime memory and a runtime stream used by a cudyn kernel, native
 * handles both ways, a foreign context that goes away, 32 threads loading
 * one new source (one module), fork.
 */
#include "config.h"

#include <complex.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "cudyn.h"
#include "testutil.h"

static const char kernels[] =
    "extern \"C\" __global__ void saxpy(float a, const float *x, const float *y, float *out, size_t n)\n"
    "{\n"
    "    for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)blockDim.x * gridDim.x)\n"
    "        out[i] = a * x[i] + y[i];\n"
    "}\n"
    "extern \"C\" __global__ void fault(int *p)\n"
    "{\n"
    "    p[threadIdx.x] = 1;\n" /* p is an address nobody allocated */
    "}\n"
    /* every kind of launchf argument, written back as 64-bit words */
    "struct cd { char c; double d; };\n"
    "extern \"C\" __global__ void kinds(bool b, signed char i8, unsigned short u16, long long i64,\n"
    "    unsigned short h, double d, float2 fc, size_t z, cd s, unsigned long long *out)\n"
    "{\n"
    "    out[0] = b; out[1] = (unsigned long long)(long long)i8; out[2] = u16; out[3] = (unsigned long long)i64;\n"
    "    out[4] = h; out[5] = __double_as_longlong(d);\n"
    "    out[6] = (unsigned long long)__float_as_uint(fc.x) | (unsigned long long)__float_as_uint(fc.y) << 32;\n"
    "    out[7] = z; out[8] = s.c; out[9] = __double_as_longlong(s.d);\n"
    "}\n"
    "extern \"C\" __global__ void scale(float *x, float a, int n)\n"
    "{\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n) x[i] *= a;\n"
    "}\n";

static void test_info(int n)
{
    for (int dev = 0; dev < n; dev++) {
        struct cudyn_device_info d = {.size = sizeof d};
        CHECK_STATUS(cudyn_device_info(dev, &d), CUDYN_OK);
        int v = 0;
        cudyn_device_attribute(dev, CUDYN_ATTR_MULTIPROCESSOR_COUNT, &v);
        CHECK_EQ_INT(d.multiprocessors, v);
        cudyn_device_attribute(dev, CUDYN_ATTR_COMPUTE_CAPABILITY_MAJOR, &v);
        CHECK_EQ_INT(d.cc_major, v);
        CHECK(d.total_memory > ((uint64_t)1 << 30));
        CHECK(strncmp(d.uuid_string, "GPU-", 4) == 0 && strlen(d.uuid_string) == 40);
        CHECK(d.name[0] != '\0');
        printf("device %d: %s, sm_%d%d, %.1f GiB, %d SMs, %s, %s\n", dev, d.name, d.cc_major, d.cc_minor,
               d.total_memory / 1073741824.0, d.multiprocessors, d.pci_bus_id, d.uuid_string);
    }
}

/* Each CUDA device's NVML record, matched by UUID (the real NVML of the
 * driver): the same GPU, and its CPU affinity known or said to be unknown. */
static void test_nvml_for_ordinal(int n)
{
    for (int dev = 0; dev < n; dev++) {
        struct cudyn_device_info d = {.size = sizeof d};
        struct cudyn_nvml_device g = {.size = sizeof g};
        CHECK_STATUS(cudyn_device_info(dev, &d), CUDYN_OK);
        int st = cudyn_nvml_device_for_ordinal(dev, &g);
        if (st == CUDYN_ERROR_DRIVER_NOT_FOUND) {
            printf("device %d: no NVML here, its CPU affinity not checked\n", dev);
            return;
        }
        CHECK_STATUS(st, CUDYN_OK);
        if (g.mig_mode != 1) /* a MIG instance's UUID is its own, the GPU's record has the GPU's */
            CHECK(strcasecmp(g.uuid + 4, d.uuid_string + 4) == 0);
        CHECK(g.cpu_affinity_status == CUDYN_OK || g.cpu_affinity_status == CUDYN_ERROR_NOT_SUPPORTED ||
              g.cpu_affinity_status == CUDYN_ERROR_SYMBOL_NOT_FOUND);
        CHECK((g.cpu_affinity_status == CUDYN_OK) == (g.cpu_count > 0));
        printf("device %d: NVML index %d, %s, %d CPUs next to it (%s)\n", dev, g.index, g.pci_bus_id, g.cpu_count,
               cudyn_status_name(g.cpu_affinity_status));
    }
}

static void test_copies(void)
{
    const size_t sizes[] = {1, 3, 4097, (1u << 20) + 7, (16u << 20) + 1};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        size_t n = sizes[s], off = s % 8;
        unsigned char *in = malloc(n + 8), *out = malloc(n + 8);
        for (size_t i = 0; i < n + 8; i++)
            in[i] = (unsigned char)(i * 131 + s);
        cudyn_devptr a = 0, b = 0;
        CHECK_STATUS(cudyn_mem_alloc(&a, n + 8), CUDYN_OK);
        CHECK_STATUS(cudyn_mem_alloc(&b, n + 8), CUDYN_OK);
        CHECK_STATUS(cudyn_memcpy_htod(a + off, in + off, n), CUDYN_OK);
        CHECK_STATUS(cudyn_memcpy_dtod(b + 1, a + off, n), CUDYN_OK);
        memset(out, 0, n + 8);
        CHECK_STATUS(cudyn_memcpy_dtoh(out + 5, b + 1, n), CUDYN_OK);
        CHECK(memcmp(out + 5, in + off, n) == 0);
        cudyn_mem_free(a);
        cudyn_mem_free(b);
        free(in);
        free(out);
    }
}

/* The kernel of `kernels` named `name`, compiled (cached) for device 0. */
static cudyn_function kernel(const char *name, cudyn_module *mod)
{
    cudyn_function f = NULL;
    if (cudyn_module_load_source(mod, kernels, NULL, 0) == CUDYN_OK)
        cudyn_module_function(&f, *mod, name);
    return f;
}

/* A faulting kernel: translated status and a hint; the error is sticky
 * (driver 580 recovers the device by no sequence of calls in-process), so
 * this runs in a process of its own. */
static int scenario_fault(void)
{
    cudyn_module m = NULL;
    cudyn_function fault = kernel("fault", &m);
    if (!fault)
        return 77;
    cudyn_devptr wild = (cudyn_devptr)0x10;
    void *fargs[] = {&wild};
    CHECK_STATUS(cudyn_launch(fault, (cudyn_dim3){1, 1, 1}, (cudyn_dim3){32, 1, 1}, 0, NULL, fargs), CUDYN_OK);
    CHECK_STATUS(cudyn_synchronize(), CUDYN_ERROR_ILLEGAL_ADDRESS);
    cudyn_error e = {.size = sizeof e};
    cudyn_last_error(&e);
    printf("fault kernel: %s\n", e.message);
    CHECK_EQ_INT(e.native_code, 700);
    CHECK_CONTAINS(e.message, "sticky");
    CHECK_STATUS(cudyn_device_reset(0), CUDYN_OK);
    cudyn_devptr after = 0;
    int st2 = cudyn_mem_alloc(&after, 1024);
    cudyn_last_error(&e);
    printf("after reset: %s: %s\n", cudyn_status_name(st2), e.message);
    CHECK(st2 == CUDYN_ERROR_ILLEGAL_ADDRESS || st2 == CUDYN_OK);
    if (st2 == CUDYN_OK)
        cudyn_mem_free(after);
    return test_result("test_gpu fault");
}

/* A context another library made current, then popped and destroyed:
 * cudyn goes on in the primary context with no error. */
static void *thread_foreign_context(void *arg)
{
    (void)arg;
    typedef unsigned int (*create_v2_fn)(void **ctx, unsigned int flags, int dev);
    typedef unsigned int (*create_v4_fn)(void **ctx, void *params, unsigned int flags, int dev);
    typedef unsigned int (*pop_fn)(void **ctx);
    typedef unsigned int (*destroy_fn)(void *ctx);
    create_v4_fn create4 = (create_v4_fn)cudyn_driver_proc("cuCtxCreate", 12050);
    create_v2_fn create2 = create4 ? NULL : (create_v2_fn)cudyn_driver_proc("cuCtxCreate", 3020);
    pop_fn pop = (pop_fn)cudyn_driver_proc("cuCtxPopCurrent", 4000);
    destroy_fn destroy = (destroy_fn)cudyn_driver_proc("cuCtxDestroy", 4000);
    void *foreign = NULL, *used = NULL, *popped = NULL;
    unsigned int r = create4 ? create4(&foreign, NULL, 0, 0) : create2 ? create2(&foreign, 0, 0) : 999;
    CHECK_EQ_INT(r, 0);
    cudyn_devptr p = 0;
    CHECK_STATUS(cudyn_mem_alloc(&p, 4096), CUDYN_OK);
    CHECK_STATUS(cudyn_context_native(&used), CUDYN_OK);
    CHECK(used == foreign);
    CHECK_STATUS(cudyn_mem_free(p), CUDYN_OK);
    CHECK(pop && pop(&popped) == 0 && popped == foreign);
    CHECK(destroy && destroy(foreign) == 0);
    /* the driver says INVALID_CONTEXT to the next call, and cudyn recovers */
    if (test_may_fail_on_purpose("a call in the foreign context destroyed under cudyn")) {
        int st = cudyn_mem_alloc(&p, 4096);
        cudyn_error e = {.size = sizeof e};
        cudyn_last_error(&e);
        CHECK_STATUS(st, CUDYN_OK);
        CHECK_STATUS(cudyn_context_native(&used), CUDYN_OK);
        CHECK(used != foreign);
        printf("foreign context popped and destroyed: cudyn went on in %p (%s)\n", used,
               st == CUDYN_OK ? "no error" : e.message);
        cudyn_mem_free(p);
    }
    return NULL;
}

static void test_foreign_context(void)
{
    pthread_t t;
    pthread_create(&t, NULL, thread_foreign_context, NULL);
    pthread_join(t, NULL);
}

/* Memory from the CUDA runtime (cudaMalloc, in the same primary context)
 * used by a cudyn kernel, when libcudart is installed. */
static void test_runtime_memory(void)
{
    void *rt = dlopen("libcudart.so.13", RTLD_NOW | RTLD_LOCAL);
    if (!rt)
        rt = dlopen("/usr/local/cuda/lib64/libcudart.so", RTLD_NOW | RTLD_LOCAL);
    if (!rt) {
        printf("CUDA runtime: not installed, skipped\n");
        return;
    }
    typedef int (*malloc_fn)(void **p, size_t n);
    typedef int (*memcpy_fn)(void *dst, const void *src, size_t n, int kind);
    typedef int (*free_fn)(void *p);
    malloc_fn rt_malloc = (malloc_fn)dlsym(rt, "cudaMalloc");
    memcpy_fn rt_memcpy = (memcpy_fn)dlsym(rt, "cudaMemcpy");
    free_fn rt_free = (free_fn)dlsym(rt, "cudaFree");
    float host[256];
    for (int i = 0; i < 256; i++)
        host[i] = (float)i;
    void *dev = NULL;
    CHECK(rt_malloc && rt_malloc(&dev, sizeof host) == 0);
    CHECK(rt_memcpy && rt_memcpy(dev, host, sizeof host, 1 /* host to device */) == 0);
    cudyn_module m = NULL;
    cudyn_function scale = kernel("scale", &m);
    CHECK_STATUS(cudyn_launchf(scale, (cudyn_dim3){1, 1, 1}, (cudyn_dim3){256, 1, 1}, 0, NULL, "pfi",
                               (cudyn_devptr)(uintptr_t)dev, 4.0, 256),
                 CUDYN_OK);
    CHECK_STATUS(cudyn_synchronize(), CUDYN_OK);
    CHECK(rt_memcpy(host, dev, sizeof host, 2 /* device to host */) == 0);
    CHECK(host[255] == 1020.0f && host[3] == 12.0f);
    printf("CUDA runtime memory used by a cudyn kernel: %s\n", host[255] == 1020.0f ? "ok" : "WRONG");

    /* the same kernel through its CUfunction and back, on a stream the
     * runtime made, synchronised by the runtime */
    typedef int (*stream_fn)(void *s);
    typedef int (*stream_create_fn)(void **s);
    stream_create_fn rt_stream_create = (stream_create_fn)dlsym(rt, "cudaStreamCreate");
    stream_fn rt_stream_sync = (stream_fn)dlsym(rt, "cudaStreamSynchronize");
    stream_fn rt_stream_destroy = (stream_fn)dlsym(rt, "cudaStreamDestroy");
    void *rt_stream = NULL;
    CHECK(rt_stream_create && rt_stream_sync && rt_stream_destroy && rt_stream_create(&rt_stream) == 0);
    cudyn_stream theirs = cudyn_stream_from_native(rt_stream);
    CHECK(cudyn_stream_native(theirs) == rt_stream);
    cudyn_function again = cudyn_function_from_native(cudyn_function_native(scale));
    CHECK(cudyn_function_native(again) == cudyn_function_native(scale));
    CHECK_STATUS(cudyn_launchf(again, (cudyn_dim3){1, 1, 1}, (cudyn_dim3){256, 1, 1}, 0, theirs, "pfi",
                               (cudyn_devptr)(uintptr_t)dev, 0.25, 256),
                 CUDYN_OK);
    CHECK(rt_stream_sync(rt_stream) == 0);
    CHECK(rt_memcpy(host, dev, sizeof host, 2) == 0);
    CHECK(host[255] == 255.0f && host[3] == 3.0f);
    printf("kernel from its CUfunction on a CUDA runtime stream: %s\n", host[255] == 255.0f ? "ok" : "WRONG");
    rt_stream_destroy(rt_stream);
    rt_free(dev);
    cudyn_module_unload(m);
}

/* Threads loading one source no one compiled before, all at once: one
 * module for all (and so one compile), as cudyn.h promises. */
enum { LOADERS = 32 };
static char once_src[160];
static cudyn_module once_mod[LOADERS];
static int once_status[LOADERS];
static pthread_barrier_t once_start;

static void *thread_load_once(void *arg)
{
    int i = (int)(intptr_t)arg;
    cudyn_device_use(0);
    pthread_barrier_wait(&once_start);
    once_status[i] = cudyn_module_load_source(&once_mod[i], once_src, NULL, 0);
    return NULL;
}

static double seconds_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + t.tv_nsec * 1e-9;
}

static void test_one_compile_for_many_threads(void)
{
    /* new to the kernel cache: the process id and the time are in it */
    snprintf(once_src, sizeof once_src,
             "extern \"C\" __global__ void once_%ld_%ld(float *x) { x[threadIdx.x] += 1.0f; }\n", (long)getpid(),
             (long)time(NULL));
    pthread_t t[LOADERS];
    pthread_barrier_init(&once_start, NULL, LOADERS);
    double t0 = seconds_now();
    for (int i = 0; i < LOADERS; i++)
        pthread_create(&t[i], NULL, thread_load_once, (void *)(intptr_t)i);
    for (int i = 0; i < LOADERS; i++)
        pthread_join(t[i], NULL);
    double ms = (seconds_now() - t0) * 1e3;
    pthread_barrier_destroy(&once_start);
    int same = 1;
    for (int i = 0; i < LOADERS; i++) {
        CHECK_STATUS(once_status[i], CUDYN_OK);
        same &= once_mod[i] == once_mod[0];
    }
    CHECK(same);
    printf("%d threads loading one new source at once: %s, %.1f ms in all\n", LOADERS,
           same ? "one module for all" : "DIFFERENT MODULES", ms);
    for (int i = 0; i < LOADERS; i++)
        cudyn_module_unload(once_mod[i]);
}

/* A refused launch names the limit; a double for a pointer is caught from
 * the PTX before the GPU sees it. */
static void test_refusals(void)
{
    cudyn_module m = NULL;
    cudyn_function scale = kernel("scale", &m);
    cudyn_error e = {.size = sizeof e};
    if (test_may_fail_on_purpose("a block of 2048 threads")) {
        CHECK_STATUS(cudyn_launch(scale, (cudyn_dim3){1, 1, 1}, (cudyn_dim3){2048, 1, 1}, 0, NULL, NULL),
                     CUDYN_ERROR_INVALID_ARGUMENT);
        cudyn_last_error(&e);
        printf("block of 2048: %s\n", e.message);
        CHECK_CONTAINS(e.message, "block 2048x1x1 has 2048 threads; scale allows at most 1024 on ");
    }
    CHECK_STATUS(cudyn_launchf(scale, (cudyn_dim3){1, 1, 1}, (cudyn_dim3){1, 1, 1}, 0, NULL, "dfi", 1.0, 2.0, 3),
                 CUDYN_ERROR_INVALID_LAUNCH_ARGUMENTS);
    cudyn_last_error(&e);
    printf("double for a pointer: %s\n", e.message);
    CHECK_CONTAINS(e.message, "argument 1 ('d') is double");
    CHECK_STATUS(cudyn_device_enable_peer(0, 0), CUDYN_OK);
    cudyn_module_unload(m);
}

/* Two devices: peer access, a copy and a kernel across them, and what
 * belongs to one device's context refused on the other. */
static void test_two_devices(void)
{
    enum { N = 1 << 20 };
    int can = 0;
    CHECK_STATUS(cudyn_device_can_access_peer(0, 1, &can), CUDYN_OK);
    int rank = -1, atomics = -1;
    CHECK_STATUS(cudyn_device_p2p_attribute(0, 1, CUDYN_P2P_PERFORMANCE_RANK, &rank), CUDYN_OK);
    CHECK_STATUS(cudyn_device_p2p_attribute(0, 1, CUDYN_P2P_NATIVE_ATOMIC_SUPPORTED, &atomics), CUDYN_OK);
    printf("devices 0 and 1: peer access %s, performance rank %d, native atomics %d\n", can ? "possible" : "impossible",
           rank, atomics);

    /* x on device 1, y and out on device 0 */
    float *x = malloc(N * sizeof *x), *y = malloc(N * sizeof *y), *out = malloc(N * sizeof *out);
    test_saxpy_inputs(x, y, N);
    cudyn_devptr dx = 0, dy = 0, dout = 0, staged = 0;
    CHECK_STATUS(cudyn_device_use(1), CUDYN_OK);
    CHECK_STATUS(cudyn_mem_alloc(&dx, N * 4), CUDYN_OK);
    CHECK_STATUS(cudyn_memcpy_htod(dx, x, N * 4), CUDYN_OK);
    cudyn_module m1 = NULL;
    cudyn_function saxpy1 = kernel("saxpy", &m1); /* the module of device 1 */
    cudyn_event e1 = NULL;
    CHECK_STATUS(cudyn_event_create(&e1, 0), CUDYN_OK);
    CHECK_STATUS(cudyn_device_use(0), CUDYN_OK);
    CHECK_STATUS(cudyn_mem_alloc(&dy, N * 4), CUDYN_OK);
    CHECK_STATUS(cudyn_mem_alloc(&dout, N * 4), CUDYN_OK);
    CHECK_STATUS(cudyn_mem_alloc(&staged, N * 4), CUDYN_OK);
    CHECK_STATUS(cudyn_memcpy_htod(dy, y, N * 4), CUDYN_OK);
    /* a copy between the devices works with or without peer access */
    CHECK_STATUS(cudyn_memcpy_dtod(staged, dx, N * 4), CUDYN_OK);
    CHECK_STATUS(cudyn_memcpy_dtoh(out, staged, N * 4), CUDYN_OK);
    CHECK(memcmp(out, x, N * 4) == 0);

    /* device 1's kernel and event, used from device 0 (cudyn names the
     * mistake once the driver has refused the handle) */
    cudyn_error e = {.size = sizeof e};
    cudyn_function f = NULL;
    CHECK_STATUS(cudyn_module_function(&f, m1, "saxpy"), CUDYN_ERROR_WRONG_CONTEXT);
    cudyn_last_error(&e);
    printf("device 1's module on device 0: %s\n", e.message);
    if (test_may_fail_on_purpose("device 1's kernel and event used from device 0")) {
        CHECK_STATUS(cudyn_launchf(saxpy1, (cudyn_dim3){64, 1, 1}, (cudyn_dim3){256, 1, 1}, 0, NULL, "fpppz", 2.0, dx,
                                   dy, dout, (size_t)N),
                     CUDYN_ERROR_WRONG_CONTEXT);
        cudyn_last_error(&e);
        printf("device 1's kernel on device 0's stream: %s\n", e.message);
        CHECK_STATUS(cudyn_event_record(e1, NULL), CUDYN_ERROR_WRONG_CONTEXT);
        cudyn_last_error(&e);
        printf("device 1's event on device 0's stream: %s\n", e.message);
    }

    /* device 0's kernel reading device 1's memory, with peer access */
    if (can) {
        CHECK_STATUS(cudyn_device_enable_peer(0, 1), CUDYN_OK);
        CHECK_STATUS(cudyn_device_enable_peer(0, 1), CUDYN_OK); /* idempotent */
        cudyn_module m0 = NULL;
        cudyn_function saxpy0 = kernel("saxpy", &m0);
        CHECK(m0 != m1);
        CHECK_STATUS(cudyn_launchf(saxpy0, (cudyn_dim3){64, 1, 1}, (cudyn_dim3){256, 1, 1}, 0, NULL, "fpppz", 2.0, dx,
                                   dy, dout, (size_t)N),
                     CUDYN_OK);
        CHECK_STATUS(cudyn_memcpy_dtoh(out, dout, N * 4), CUDYN_OK);
        int wrong = 0;
        for (int i = 0; i < N; i++)
            wrong += out[i] != 2.0f * x[i] + y[i];
        CHECK_EQ_INT(wrong, 0);
        printf("device 0 kernel reading device 1 memory over peer access: %d wrong\n", wrong);
        CHECK_STATUS(cudyn_device_disable_peer(0, 1), CUDYN_OK);
        CHECK_STATUS(cudyn_device_disable_peer(0, 1), CUDYN_OK);
        cudyn_module_unload(m0);
    }
    cudyn_mem_free(dy);
    cudyn_mem_free(dout);
    cudyn_mem_free(staged);
    CHECK_STATUS(cudyn_device_use(1), CUDYN_OK);
    cudyn_mem_free(dx);
    cudyn_event_destroy(e1);
    cudyn_module_unload(m1);
    CHECK_STATUS(cudyn_device_use(0), CUDYN_OK);
    free(x);
    free(y);
    free(out);
}

/* fork() after init: the child is told, the parent carries on. */
static void test_fork(void)
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        cudyn_devptr p = 0;
        int st = cudyn_mem_alloc(&p, 64);
        cudyn_error e = {.size = sizeof e};
        cudyn_last_error(&e);
        printf("child after fork: %s: %s\n", cudyn_status_name(st), e.message);
        fflush(stdout);
        _exit(st == CUDYN_ERROR_FORKED ? 0 : 1);
    }
    int status = -1;
    CHECK(waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0);
    cudyn_devptr p = 0;
    CHECK_STATUS(cudyn_mem_alloc(&p, 64), CUDYN_OK);
    cudyn_mem_free(p);
}

/* saxpy on 2^20 + 3 floats, timed by events, every result checked. */
static void test_saxpy_timed(cudyn_function saxpy)
{
    size_t n = ((size_t)1 << 20) + 3;
    float *x = malloc(n * 4), *y = malloc(n * 4), *out = malloc(n * 4);
    test_saxpy_inputs(x, y, (size_t)n);
    cudyn_devptr dx, dy, dout;
    CHECK_STATUS(cudyn_mem_alloc(&dx, n * 4), CUDYN_OK);
    CHECK_STATUS(cudyn_mem_alloc(&dy, n * 4), CUDYN_OK);
    CHECK_STATUS(cudyn_mem_alloc(&dout, n * 4), CUDYN_OK);
    CHECK_STATUS(cudyn_memset_d32(dout, 0xFFFFFFFFu, n), CUDYN_OK); /* poison: NaN */
    cudyn_memcpy_htod(dx, x, n * 4);
    cudyn_memcpy_htod(dy, y, n * 4);
    float a = 2.0f;
    void *args[] = {&a, &dx, &dy, &dout, &n};
    cudyn_event e0, e1;
    cudyn_event_create(&e0, 0);
    cudyn_event_create(&e1, 0);
    cudyn_event_record(e0, NULL);
    CHECK_STATUS(cudyn_launch(saxpy, (cudyn_dim3){264, 1, 1}, (cudyn_dim3){256, 1, 1}, 0, NULL, args), CUDYN_OK);
    cudyn_event_record(e1, NULL);
    CHECK_STATUS(cudyn_event_synchronize(e1), CUDYN_OK);
    float ms = 0;
    CHECK_STATUS(cudyn_event_elapsed_ms(&ms, e0, e1), CUDYN_OK);
    CHECK(ms > 0);
    CHECK_STATUS(cudyn_memcpy_dtoh(out, dout, n * 4), CUDYN_OK);
    size_t wrong = 0;
    for (size_t i = 0; i < n; i++)
        wrong += out[i] != 2.0f * x[i] + y[i];
    CHECK_EQ_INT(wrong, 0);
    printf("saxpy on %zu floats: %zu wrong, %.3f ms\n", n, wrong, ms);
    cudyn_event_destroy(e0);
    cudyn_event_destroy(e1);
    cudyn_mem_free(dx);
    cudyn_mem_free(dy);
    cudyn_mem_free(dout);
    free(x);
    free(y);
    free(out);
}

/* launchf with every kind of argument, on the real driver; a mismatch is
 * caught before it reaches the GPU. */
static void test_launchf_kinds(cudyn_module m)
{
    cudyn_error err = {.size = sizeof err};
    cudyn_function kinds = NULL, scale = NULL;
    CHECK_STATUS(cudyn_module_function(&kinds, m, "kinds"), CUDYN_OK);
    CHECK_STATUS(cudyn_module_function(&scale, m, "scale"), CUDYN_OK);
    struct {
        char c;
        double d;
    } cd;
    memset(&cd, 0, sizeof cd);
    cd.c = 'q';
    cd.d = -0.125;
    float _Complex fc = 1.5f - 2.25f * I;
    cudyn_devptr words = 0;
    CHECK_STATUS(cudyn_mem_alloc(&words, 10 * 8), CUDYN_OK);
    cudyn_dim3 one = {1, 1, 1};
    CHECK_STATUS(cudyn_launchf(kinds, one, one, 0, NULL, "?bHqedFzsp", 1, -7, 65000, -123456789012345ll, 1.5, 6.25,
                               fc, (size_t)987654321, &cd, sizeof cd, words),
                 CUDYN_OK);
    uint64_t got[10];
    CHECK_STATUS(cudyn_memcpy_dtoh(got, words, sizeof got), CUDYN_OK);
    double d625 = 6.25, dm = -0.125;
    uint64_t d625_bits, dm_bits;
    memcpy(&d625_bits, &d625, 8);
    memcpy(&dm_bits, &dm, 8);
    float re = 1.5f, im = -2.25f;
    uint32_t re_bits, im_bits;
    memcpy(&re_bits, &re, 4);
    memcpy(&im_bits, &im, 4);
    const uint64_t want[10] = {1, (uint64_t)(int64_t)-7, 65000, (uint64_t)-123456789012345ll, 0x3E00, d625_bits,
                               re_bits | (uint64_t)im_bits << 32, 987654321, 'q', dm_bits};
    for (int i = 0; i < 10; i++)
        if (got[i] != want[i]) {
            fprintf(stderr, "kinds: word %d is %llx, expected %llx\n", i, (unsigned long long)got[i],
                    (unsigned long long)want[i]);
            test_failures++;
        }
    printf("launchf with ?bHqedFzsp: %s\n", memcmp(got, want, sizeof want) ? "wrong" : "every value arrived");
    /* a mismatch is caught before it reaches the GPU */
    CHECK_STATUS(cudyn_launchf(kinds, one, one, 0, NULL, "?bHqedFzip", 1, -7, 65000, 0ll, 1.5, 6.25, fc,
                               (size_t)1, 5, words),
                 CUDYN_ERROR_INVALID_LAUNCH_ARGUMENTS);
    cudyn_last_error(&err);
    printf("deliberate mismatch: %s\n", err.message);
    CHECK_CONTAINS(err.message, "kinds: parameter 9 is 16 bytes, argument 9 ('i', int32_t) is 4");
    CHECK_STATUS(cudyn_launchf(scale, one, one, 0, NULL, "pf", words, 2.0), CUDYN_ERROR_INVALID_LAUNCH_ARGUMENTS);
    cudyn_mem_free(words);
}

/* launchf with an In/Out buffer, and a reused argument pack. */
static void test_launchf_buffers(cudyn_module m)
{
    cudyn_function scale = NULL;
    CHECK_STATUS(cudyn_module_function(&scale, m, "scale"), CUDYN_OK);
    float host[300];
    for (int i = 0; i < 300; i++)
        host[i] = (float)i;
    CHECK_STATUS(cudyn_launchf(scale, (cudyn_dim3){3, 1, 1}, (cudyn_dim3){128, 1, 1}, 0, NULL, "=fi", host,
                               sizeof host, 3.0, 300),
                 CUDYN_OK);
    CHECK(host[299] == 897.0f && host[1] == 3.0f);
    cudyn_args *pack = NULL;
    CHECK_STATUS(cudyn_args_create(&pack, scale, "=fi"), CUDYN_OK);
    CHECK_STATUS(cudyn_args_set(pack, host, sizeof host, 0.5, 300), CUDYN_OK);
    for (int k = 0; k < 3; k++)
        CHECK_STATUS(cudyn_args_launch(pack, (cudyn_dim3){3, 1, 1}, (cudyn_dim3){128, 1, 1}, 0, NULL), CUDYN_OK);
    CHECK(host[299] == 897.0f / 8);
    cudyn_args_free(pack);
}

/* The kernels of gpu_test.cu compiled and loaded, then launched. */
static void test_launch_and_kinds(void)
{
    cudyn_program *p = NULL;
    int st = cudyn_compile(&p, kernels, "gpu_test.cu", 0, NULL, 0);
    if (st == CUDYN_ERROR_NVRTC_NOT_FOUND) {
        fprintf(stderr, "no NVRTC: launch tests skipped\n");
        return;
    }
    CHECK_STATUS(st, CUDYN_OK);
    if (!p)
        return;
    printf("compiled for %s\n", cudyn_program_target(p));
    cudyn_module m = NULL;
    cudyn_function saxpy = NULL, fault = NULL;
    CHECK_STATUS(cudyn_module_load(&m, p), CUDYN_OK);
    CHECK_STATUS(cudyn_module_function(&saxpy, m, "saxpy"), CUDYN_OK);
    CHECK_STATUS(cudyn_module_function(&fault, m, "fault"), CUDYN_OK);
    test_saxpy_timed(saxpy);
    test_launchf_kinds(m);
    test_launchf_buffers(m);
    cudyn_program_free(p);
}

int main(int argc, char **argv)
{
    struct cudyn_loader_info l;
    int n = test_need_real_gpu(&l);
    if (argc == 2 && strcmp(argv[1], "fault") == 0)
        return scenario_fault();
    printf("driver %s (CUDA %d.%d) via %s, %d of the table's rows bound, %d absent\n", l.driver_path,
           l.driver_version / 1000, l.driver_version % 1000 / 10, l.entry_mechanism_name, l.symbols_bound,
           l.symbols_missing);
    test_info(n);
    test_nvml_for_ordinal(n);
    CHECK_STATUS(cudyn_device_use(0), CUDYN_OK);
    test_copies();
    test_launch_and_kinds();
    if (l.nvrtc_status == CUDYN_OK) {
        test_refusals();
        test_runtime_memory();
        test_one_compile_for_many_threads();
        test_fork();
        if (n >= 2)
            test_two_devices();
    }
    test_foreign_context();
    if (l.nvrtc_status == CUDYN_OK && test_may_fail_on_purpose("the faulting kernel"))
        CHECK_EQ_INT(run_self(argv[0], "fault"), 0);
    return test_result("test_gpu");
}
