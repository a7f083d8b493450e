/*
 * mock_launch.c - kernel launches, occupancy, and the kernels the mock can
 * run on the host.
 *
 * A host kernel does what its CUDA source does, with its parameters read
 * as the PTX declares them; when the PTX is known its parameter sizes must
 * be the ones the host version reads, else the mock refuses the launch.
 * Kernels are matched by exact name: extern "C" names, and for templates
 * the lowered names the real NVRTC (CUDA 13.0) gave for them.  Threads run
 * one after the other: where the threads of a launch race on the same
 * element (more than one block or thread along y or z of a kernel indexed
 * by x alone) the result is that of one such order.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "mock.h"

/* A kernel indexed by blockIdx.x * blockDim.x + threadIdx.x alone sees the
 * indices [0, x_threads), each in `repeats` threads (one per position
 * along y and z). */
static size_t x_threads(const struct launch *l)
{
    return (size_t)l->grid[0] * l->block[0];
}

static size_t repeats(const struct launch *l)
{
    return (size_t)l->grid[1] * l->grid[2] * l->block[1] * l->block[2];
}

static size_t smaller(size_t a, size_t b)
{
    return a < b ? a : b;
}

/* A kernel's access outside every allocation faults, as on a GPU. */
static void kernel_fault(void)
{
    pthread_mutex_lock(&mock.lock);
    mock.sticky_error = CU_ERR_ILLEGAL_ADDRESS;
    pthread_mutex_unlock(&mock.lock);
}

/* Parameter i, a device pointer to `bytes` bytes the kernel touches: the
 * host address, or NULL after a fault. */
static void *buffer(const struct launch *l, int i, size_t bytes)
{
    cu_deviceptr p;
    memcpy(&p, l->params[i], sizeof p);
    if (bytes == 0)
        return (void *)(uintptr_t)p;
    void *host = memory_range(p, bytes);
    if (!host)
        kernel_fault();
    return host;
}

void *launch_buffer(const struct launch *l, int i, size_t bytes)
{
    return buffer(l, i, bytes);
}

#define SCALAR(type, l, i) (*(const type *)(l)->params[i])

/* saxpy(float a, const float *x, const float *y, float *out, size_t n):
 * the cuda-python documentation's kernel, on the first `count` elements. */
static void saxpy_first(const struct launch *l, size_t count)
{
    float a = SCALAR(float, l, 0);
    const float *x = buffer(l, 1, count * sizeof *x), *y = buffer(l, 2, count * sizeof *y);
    float *out = buffer(l, 3, count * sizeof *out);
    if (!x || !y || !out)
        return;
    for (size_t i = 0; i < count; i++)
        out[i] = a * x[i] + y[i];
    if (mock.corrupt >= 0 && (size_t)mock.corrupt < count)
        out[mock.corrupt] += 1.0f;
}

/* The grid-stride version covers n whatever the grid. */
static void run_saxpy(const struct launch *l)
{
    saxpy_first(l, SCALAR(size_t, l, 4));
}

/* The documentation's kernel: one element per thread, no loop. */
static void run_saxpy_naive(const struct launch *l)
{
    saxpy_first(l, smaller(SCALAR(size_t, l, 4), x_threads(l)));
}

static void run_fault(const struct launch *l)
{
    (void)l;
    kernel_fault();
}

static void run_nothing(const struct launch *l)
{
    (void)l;
}

/* testkernel(int i, int *pi, float f, float *pf, testStruct s, testStruct *ps)
 * of the cuda-python documentation, with struct testStruct { int value; }. */
static void run_testkernel(const struct launch *l)
{
    int *pi = buffer(l, 1, sizeof(int));
    float *pf = buffer(l, 3, sizeof(float));
    int *ps = buffer(l, 5, sizeof(int));
    if (!pi || !pf || !ps)
        return;
    *pi = SCALAR(int, l, 0);
    *pf = SCALAR(float, l, 2);
    *ps = SCALAR(int, l, 4);
}

/* in_out.c's multiply_them(float *dest, const float *a, const float *b, int n):
 * dest[i] = a[i] * b[i] for i < n, one element per thread. */
static void run_multiply_them(const struct launch *l)
{
    int n = SCALAR(int, l, 3);
    size_t count = n > 0 ? smaller((size_t)n, x_threads(l)) : 0;
    float *dest = buffer(l, 0, count * sizeof *dest);
    const float *a = buffer(l, 1, count * sizeof *a), *b = buffer(l, 2, count * sizeof *b);
    if (!dest || !a || !b)
        return;
    for (size_t i = 0; i < count; i++)
        dest[i] = a[i] * b[i];
}

/* x[i] *= a and x[i] = a * x[i] + b for i < n, one element per thread
 * along x, once for each thread along y and z. */
#define ELEMENTWISE(T, suffix)                                                   \
    static void scale_##suffix(const struct launch *l, int x_at, T a, size_t n) \
    {                                                                            \
        size_t count = smaller(n, x_threads(l));                                 \
        T *x = buffer(l, x_at, count * sizeof *x);                               \
        for (size_t r = 0; x && r < repeats(l); r++)                            \
            for (size_t i = 0; i < count; i++)                                   \
                x[i] *= a;                                                       \
    }                                                                            \
    static void axpb_##suffix(const struct launch *l, T a, T b, size_t n)       \
    {                                                                            \
        size_t count = smaller(n, x_threads(l));                                 \
        T *x = buffer(l, 0, count * sizeof *x);                                  \
        for (size_t r = 0; x && r < repeats(l); r++)                            \
            for (size_t i = 0; i < count; i++)                                   \
                x[i] = a * x[i] + b;                                             \
    }
ELEMENTWISE(float, f)
ELEMENTWISE(double, d)

/* the README's scale(float a, float *x, size_t n), and as a template */
static void run_scale_axn_f(const struct launch *l)
{
    scale_f(l, 1, SCALAR(float, l, 0), SCALAR(size_t, l, 2));
}

static void run_scale_axn_d(const struct launch *l)
{
    scale_d(l, 1, SCALAR(double, l, 0), SCALAR(size_t, l, 2));
}

/* test_cache.c's scale<T>(T *x, T a, size_t n) */
static void run_scale_xan_f(const struct launch *l)
{
    scale_f(l, 0, SCALAR(float, l, 1), SCALAR(size_t, l, 2));
}

static void run_scale_xan_d(const struct launch *l)
{
    scale_d(l, 0, SCALAR(double, l, 1), SCALAR(size_t, l, 2));
}

/* template_kernel.c's axpb<T>(T *x, T a, T b, size_t n) */
static void run_axpb_f(const struct launch *l)
{
    axpb_f(l, SCALAR(float, l, 1), SCALAR(float, l, 2), SCALAR(size_t, l, 3));
}

static void run_axpb_d(const struct launch *l)
{
    axpb_d(l, SCALAR(double, l, 1), SCALAR(double, l, 2), SCALAR(size_t, l, 3));
}

/* What the "record" kernel received: each parameter's bytes in turn. */
static unsigned char recorded[4096];
static size_t recorded_bytes;

/* record(...): copies the bytes of every parameter, as its PTX declares
 * them, for tests of argument packing. */
static void run_record(const struct launch *l)
{
    recorded_bytes = 0;
    for (int i = 0; i < l->fn->n_params; i++) {
        size_t n = l->fn->param_size[i];
        if (recorded_bytes + n > sizeof recorded)
            break;
        memcpy(recorded + recorded_bytes, l->params[i], n);
        recorded_bytes += n;
    }
}

size_t mock_recorded(void *buf, size_t cap)
{
    size_t n = recorded_bytes < cap ? recorded_bytes : cap;
    memcpy(buf, recorded, n);
    return recorded_bytes;
}

#define ANY_PARAMS -1
#define MAX_HOST_PARAMS 8

/* The kernels the mock can run, with the parameter sizes their PTX must
 * declare (ANY_PARAMS: whatever it declares). */
static const struct host_version {
    const char *name;
    host_kernel run;
    int n_params;
    size_t sizes[MAX_HOST_PARAMS];
} host_kernels[] = {
    {"saxpy", run_saxpy, 5, {4, 8, 8, 8, 8}},
    {"saxpy_naive", run_saxpy_naive, 5, {4, 8, 8, 8, 8}},
    {"testkernel", run_testkernel, 6, {4, 8, 4, 8, 4, 8}},
    {"multiply_them", run_multiply_them, 4, {8, 8, 8, 4}},
    {"scale", run_scale_axn_f, 3, {4, 8, 8}},                  /* README: scale(float a, float *x, size_t n) */
    {"_Z5scaleIfEvT_PS0_m", run_scale_axn_f, 3, {4, 8, 8}},    /* scale<float>(T a, T *x, size_t n) */
    {"_Z5scaleIdEvT_PS0_m", run_scale_axn_d, 3, {8, 8, 8}},    /* scale<double>(T a, T *x, size_t n) */
    {"_Z5scaleIfEvPT_S0_m", run_scale_xan_f, 3, {8, 4, 8}},    /* scale<float>(T *x, T a, size_t n) */
    {"_Z5scaleIdEvPT_S0_m", run_scale_xan_d, 3, {8, 8, 8}},    /* scale<double>(T *x, T a, size_t n) */
    {"_Z4axpbIfEvPT_S0_S0_m", run_axpb_f, 4, {8, 4, 4, 8}},    /* axpb<float>(T *x, T a, T b, size_t n) */
    {"_Z4axpbIdEvPT_S0_S0_m", run_axpb_d, 4, {8, 8, 8, 8}},    /* axpb<double>(T *x, T a, T b, size_t n) */
    {"five", run_nothing, 5, {4, 8, 8, 8, 8}},                 /* bench.c's five(float, 3 pointers, size_t) {} */
    {"empty", run_nothing, ANY_PARAMS, {0}},
    {"fault", run_fault, ANY_PARAMS, {0}},                     /* an illegal address, sticky */
    {"record", run_record, ANY_PARAMS, {0}},
    /* examples/elementwise.c's kernels, generated by cudyn (mock_elementwise.c) */
    {"cudyn_elementwise_saxpy", run_cudyn_elementwise_saxpy, 4, {4, 8, 8, 8}},
    {"cudyn_elementwise_saxpy_vec", run_cudyn_elementwise_saxpy, 4, {4, 8, 8, 8}},
    {"cudyn_reduce_dot", run_cudyn_reduce_dot, 4, {8, 8, 8, 8}},
    {"cudyn_reduce_dot_vec", run_cudyn_reduce_dot_vec, 4, {8, 8, 8, 8}},
    {"cudyn_reduce_dot_final", run_cudyn_reduce_dot_final, 3, {8, 8, 8}},
};

/* The host version of fn if the mock has one that reads what fn's PTX
 * declares (when the PTX is known). */
static const struct host_version *host_version_of(const struct CUfunc_st *fn)
{
    for (size_t i = 0; i < sizeof host_kernels / sizeof host_kernels[0]; i++) {
        const struct host_version *k = &host_kernels[i];
        if (strcmp(k->name, fn->name) != 0)
            continue;
        if (k->n_params == ANY_PARAMS || fn->n_params < 0)
            return k;
        if (k->n_params != fn->n_params)
            return NULL;
        for (int p = 0; p < k->n_params; p++)
            if (k->sizes[p] != fn->param_size[p])
                return NULL;
        return k;
    }
    return NULL;
}

/* The mock never pretends to have run a kernel. */
static cu_result cannot_emulate(struct CUfunc_st *fn)
{
    pthread_mutex_lock(&mock.lock);
    int first = !fn->warned;
    fn->warned = 1;
    pthread_mutex_unlock(&mock.lock);
    if (first)
        fprintf(stderr, "mock libcuda: cannot emulate kernel '%s'; run this test on a real GPU\n", fn->name);
    return CU_ERR_NOT_SUPPORTED;
}

static cu_result launch(cu_function fn, unsigned int gx, unsigned int gy, unsigned int gz, unsigned int bx,
                        unsigned int by, unsigned int bz, unsigned int shared, cu_stream s, void **params,
                        void **extra)
{
    struct CUctx_st *ctx;
    cu_result r = ctx_need_current(&ctx);
    if (r)
        return r;
    struct CUfunc_st *f = function_live(fn);
    if (!f)
        return CU_ERR_INVALID_HANDLE;
    /* as the real driver: the kernel must belong to the context of the
     * stream it is launched on (the current one for the NULL stream) */
    struct CUctx_st *stream_ctx;
    r = stream_context(s, &stream_ctx);
    if (r)
        return r;
    pthread_mutex_lock(&mock.lock);
    int other_context = function_context_locked(f) != stream_ctx;
    unsigned int max_threads = (unsigned int)f->attributes[0], max_shared = (unsigned int)f->attributes[8];
    pthread_mutex_unlock(&mock.lock);
    if (other_context)
        return CU_ERR_INVALID_HANDLE; /* loaded in another context */
    if (mock.sticky_error)
        return mock.sticky_error;
    if (!gx || !gy || !gz || !bx || !by || !bz || bx > MOCK_MAX_BLOCK_X || by > MOCK_MAX_BLOCK_Y ||
        bz > MOCK_MAX_BLOCK_Z || (unsigned long long)bx * by * bz > max_threads || gx > MOCK_MAX_GRID_X ||
        gy > MOCK_MAX_GRID_Y || gz > MOCK_MAX_GRID_Z || shared > max_shared)
        return CU_ERR_INVALID_VALUE;
    if ((params && extra) || (!params && !extra && f->n_params > 0))
        return CU_ERR_INVALID_VALUE;
    const struct host_version *k = host_version_of(f);
    if (!k || extra || (!params && k->n_params > 0))
        return cannot_emulate(f); /* extra: packed parameters are not emulated */
    struct launch l = {f, params, {gx, gy, gz}, {bx, by, bz}};
    k->run(&l);
    return CU_OK;
}

#define LAUNCH_PARAMS                                                                                     \
    (cu_function fn, unsigned int gx, unsigned int gy, unsigned int gz, unsigned int bx, unsigned int by, \
     unsigned int bz, unsigned int shared, cu_stream s, void **params, void **extra)
TWO_FLAVOURS(cuLaunchKernel, cuLaunchKernel_ptsz, LAUNCH_PARAMS,
             launch(fn, gx, gy, gz, bx, by, bz, shared, s, params, extra))

/* Launch attributes (clusters, cooperative launches ...) are not emulated. */
TWO_FLAVOURS(cuLaunchKernelEx, cuLaunchKernelEx_ptsz,
             (const struct CUlaunchConfig_st *config, cu_function fn, void **params, void **extra),
             ((void)config, (void)fn, (void)params, (void)extra, CU_ERR_NOT_SUPPORTED))

/* ---------------------------------------------------------------- occupancy */

/* Blocks of block_size threads that fit on one multiprocessor, limited by
 * threads only (the mock has no registers to run out of); 0 if such a
 * block cannot be launched at all. */
static int blocks_per_sm(const struct CUfunc_st *f, int block_size, size_t shared)
{
    pthread_mutex_lock(&mock.lock);
    int fits = block_size <= f->attributes[0] && shared <= (size_t)f->attributes[8];
    pthread_mutex_unlock(&mock.lock);
    return fits ? MOCK_THREADS_PER_SM / block_size : 0;
}

cu_result cuOccupancyMaxActiveBlocksPerMultiprocessor(int *blocks, cu_function fn, int block_size, size_t shared)
{
    ENTER("cuOccupancyMaxActiveBlocksPerMultiprocessor");
    NEED_CONTEXT();
    const struct CUfunc_st *f = function_live(fn);
    if (!f)
        return CU_ERR_INVALID_HANDLE;
    if (!blocks || block_size <= 0)
        return CU_ERR_INVALID_VALUE;
    *blocks = blocks_per_sm(f, block_size, shared);
    return CU_OK;
}

/* The largest block the function allows (within limit), and the grid that
 * fills every multiprocessor with it. */
cu_result cuOccupancyMaxPotentialBlockSize(int *min_grid, int *block_size, cu_function fn, cu_occupancy_b2d_size f_shared,
                                           size_t shared, int limit)
{
    ENTER("cuOccupancyMaxPotentialBlockSize");
    NEED_CONTEXT();
    const struct CUfunc_st *f = function_live(fn);
    if (!f)
        return CU_ERR_INVALID_HANDLE;
    if (!min_grid || !block_size)
        return CU_ERR_INVALID_VALUE;
    pthread_mutex_lock(&mock.lock);
    int block = f->attributes[0];
    int device = function_context_locked(f)->device;
    pthread_mutex_unlock(&mock.lock);
    if (limit > 0 && limit < block)
        block = limit;
    size_t dynamic = f_shared ? f_shared(block) : shared;
    int per_sm = blocks_per_sm(f, block, dynamic);
    *block_size = per_sm ? block : 0;
    *min_grid = per_sm * mock_multiprocessors(device);
    return CU_OK;
}
