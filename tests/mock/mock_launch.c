/*
 * mock_launch.c - kernel launches (plain, cooperative, and with cluster,
 * cooperative and priority attributes), occupancy, and the kernels the
 * mock can run on the host.  A launch on a capturing stream is checked as
 * any other, then recorded (mock_graph.c).
 *
 * A host kernel does what its CUDA source does, with its parameters read
 * as the PTX declares them; when the PTX is known its parameter sizes must
 * be the ones the host version reads, else the mock refuses the launch.
 * Kernels are matched by exact name: extern "C" names, and for templates
 * the lowered names the real NVRTC (CUDA 13.0) gave for them.  Any other
 * kernel the mock NVRTC compiled goes to the host evaluator (mock_eval.c),
 * which runs the map kernels python/cudyn writes, known by the shape of
 * their source, and refuses everything else.  Threads run
 * one after the other: where the threads of a launch race on the same
 * element (more than one block or thread along y or z of a kernel indexed
 * by x alone) the result is that of one such order.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
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

void kernel_fault(void)
{
    pthread_mutex_lock(&mock.lock);
    mock.sticky_error = CU_ERR_ILLEGAL_ADDRESS;
    pthread_mutex_unlock(&mock.lock);
}

void *launch_buffer(const struct launch *l, int i, size_t bytes)
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

/* saxpy(float a, const float *x, const float *y, float *out, size_t n):
 * the cuda-python documentation's kernel, on the first `count` elements. */
static void saxpy_first(const struct launch *l, size_t count)
{
    float a = SCALAR(float, l, 0);
    const float *x = launch_buffer(l, 1, count * sizeof *x), *y = launch_buffer(l, 2, count * sizeof *y);
    float *out = launch_buffer(l, 3, count * sizeof *out);
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

/* examples/mpi_stencil.c's jacobi(const float *in, float *out, int nx,
 * int first, int count, int step): rows first, first + step, ... (count
 * of them) of a strip with a halo row above and below; the edge columns
 * are copied, every other cell is the mean of its four neighbours, summed
 * in the kernel's order. */
static void run_jacobi(const struct launch *l)
{
    int nx = SCALAR(int, l, 2), first = SCALAR(int, l, 3), count = SCALAR(int, l, 4), step = SCALAR(int, l, 5);
    if (nx < 1 || count < 1 || first < 1 || step < 0)
        return;
    size_t cells = ((size_t)first + (size_t)(count - 1) * (size_t)step + 2) * (size_t)nx;
    const float *in = launch_buffer(l, 0, cells * sizeof *in);
    float *out = launch_buffer(l, 1, cells * sizeof *out);
    if (!in || !out)
        return;
    for (int y = 0; y < count; y++)
        for (int c = 0; c < nx; c++) {
            size_t i = (size_t)(first + y * step) * nx + c;
            out[i] = c == 0 || c == nx - 1 ? in[i]
                                           : 0.25f * ((in[i - nx] + in[i + nx]) + (in[i - 1] + in[i + 1]));
        }
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
    int *pi = launch_buffer(l, 1, sizeof(int));
    float *pf = launch_buffer(l, 3, sizeof(float));
    int *ps = launch_buffer(l, 5, sizeof(int));
    if (!pi || !pf || !ps)
        return;
    *pi = SCALAR(int, l, 0);
    *pf = SCALAR(float, l, 2);
    *ps = SCALAR(int, l, 4);
}

/* dest[i] = a[i] * b[i] for the first `count` elements of multiply_them's
 * dest, a and b (parameters 0, 1, 2). */
static void multiply_first(const struct launch *l, size_t count)
{
    float *dest = launch_buffer(l, 0, count * sizeof *dest);
    const float *a = launch_buffer(l, 1, count * sizeof *a), *b = launch_buffer(l, 2, count * sizeof *b);
    for (size_t i = 0; dest && a && b && i < count; i++)
        dest[i] = a[i] * b[i];
}

/* in_out.c's multiply_them(float *dest, const float *a, const float *b, int n):
 * i < n, one element per thread. */
static void run_multiply_them(const struct launch *l)
{
    int n = SCALAR(int, l, 3);
    multiply_first(l, n > 0 ? smaller((size_t)n, x_threads(l)) : 0);
}

/* PyCUDA's multiply_them(float *dest, float *a, float *b): i = threadIdx.x *
 * blockDim.y + threadIdx.y, one block (its examples index a one-dimensional
 * block, i = threadIdx.x, which this is too: examples/python/pycuda/multiply_them.py). */
static void run_multiply_them_block(const struct launch *l)
{
    multiply_first(l, (size_t)l->block[0] * l->block[1]);
}

/* PyCUDA's tutorial's doublify(float *a): a[idx] *= 2 for idx = threadIdx.x +
 * threadIdx.y * 4, one block (examples/python/pycuda/double_array.py). */
static void run_doublify(const struct launch *l)
{
    size_t count = (size_t)l->block[0] + ((size_t)l->block[1] - 1) * 4;
    float *a = launch_buffer(l, 0, count * sizeof *a);
    for (unsigned int y = 0; a && y < l->block[1]; y++)
        for (unsigned int x = 0; x < l->block[0]; x++)
            a[x + y * 4] *= 2;
}

/* x[i] *= a and x[i] = a * x[i] + b for i < n, one element per thread
 * along x, once for each thread along y and z. */
#define ELEMENTWISE(T, suffix)                                                   \
    static void scale_##suffix(const struct launch *l, int x_at, T a, size_t n) \
    {                                                                            \
        size_t count = smaller(n, x_threads(l));                                 \
        T *x = launch_buffer(l, x_at, count * sizeof *x);                        \
        for (size_t r = 0; x && r < repeats(l); r++)                            \
            for (size_t i = 0; i < count; i++)                                   \
                x[i] *= a;                                                       \
    }                                                                            \
    static void axpb_##suffix(const struct launch *l, T a, T b, size_t n)       \
    {                                                                            \
        size_t count = smaller(n, x_threads(l));                                 \
        T *x = launch_buffer(l, 0, count * sizeof *x);                           \
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

/* big_shared.c's block_sum(const float *x, float *sums, unsigned int per_block):
 * block b copies x[b * per_block, (b + 1) * per_block) to dynamic shared
 * memory, then adds the upper half onto the lower half (for n elements:
 * [i] += [i + (n + 1) / 2] for i < n / 2) until one is left, and writes it
 * to sums[b] (0 for per_block 0).  The same additions in the same order as
 * on a GPU, so the sums are bit for bit the GPU's.  Staging more than the
 * launch's dynamic shared memory faults, as it would there. */
static void run_block_sum(const struct launch *l)
{
    unsigned int per_block = SCALAR(unsigned int, l, 2);
    size_t blocks = l->grid[0];
    if ((size_t)per_block * sizeof(float) > l->shared) {
        kernel_fault();
        return;
    }
    const float *x = launch_buffer(l, 0, blocks * per_block * sizeof *x);
    float *sums = launch_buffer(l, 1, blocks * sizeof *sums);
    float *stage = malloc((per_block ? per_block : 1) * sizeof *stage);
    for (size_t b = 0; x && sums && stage && b < blocks; b++) {
        memcpy(stage, x + b * per_block, per_block * sizeof *stage);
        for (unsigned int n = per_block; n > 1; n = (n + 1) / 2)
            for (unsigned int i = 0; i < n - (n + 1) / 2; i++)
                stage[i] += stage[i + (n + 1) / 2];
        sums[b] = per_block ? stage[0] : 0.0f;
    }
    free(stage);
}

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

/* cluster_rank(unsigned int *out): every block writes its rank in its
 * cluster, %cluster_ctarank, to out[its linear block index]: x fastest,
 * within the cluster as within the grid. */
static void run_cluster_rank(const struct launch *l)
{
    const unsigned int *g = l->grid, *c = l->cluster;
    size_t blocks = (size_t)g[0] * g[1] * g[2];
    unsigned int *out = launch_buffer(l, 0, blocks * sizeof *out);
    for (size_t b = 0; out && b < blocks; b++) {
        unsigned int x = (unsigned int)(b % g[0]), y = (unsigned int)(b / g[0] % g[1]),
                     z = (unsigned int)(b / g[0] / g[1]);
        out[b] = x % c[0] + y % c[1] * c[0] + z % c[2] * c[0] * c[1];
    }
}

/* coop_shift(int *a, int *b, int n), a grid-stride kernel with one grid
 * sync: a[i] = 3 * i for every i < n; this_grid().sync(); b[i] =
 * a[(i + 1) % n].  Only a cooperative launch may run it (the host table
 * says so): on a GPU the sync would otherwise hang or race. */
static void run_coop_shift(const struct launch *l)
{
    int n = SCALAR(int, l, 2);
    size_t count = n > 0 ? (size_t)n : 0;
    int *a = launch_buffer(l, 0, count * sizeof *a), *b = launch_buffer(l, 1, count * sizeof *b);
    for (size_t i = 0; a && b && i < count; i++)
        a[i] = 3 * (int)i;
    for (size_t i = 0; a && b && i < count; i++)
        b[i] = a[(i + 1) % count];
}

size_t mock_recorded(void *buf, size_t cap)
{
    size_t n = recorded_bytes < cap ? recorded_bytes : cap;
    if (n) /* buf may be NULL with cap 0: only the count is asked */
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
    int cooperative; /* it synchronises the grid: only a cooperative launch may run it */
} host_kernels[] = {
    {"saxpy", run_saxpy, 5, {4, 8, 8, 8, 8}, 0},
    {"saxpy_naive", run_saxpy_naive, 5, {4, 8, 8, 8, 8}, 0},
    {"testkernel", run_testkernel, 6, {4, 8, 4, 8, 4, 8}, 0},
    {"multiply_them", run_multiply_them, 4, {8, 8, 8, 4}, 0},
    {"multiply_them", run_multiply_them_block, 3, {8, 8, 8}, 0}, /* PyCUDA's, without n */
    {"doublify", run_doublify, 1, {8}, 0},                        /* PyCUDA's tutorial */
    {"scale", run_scale_axn_f, 3, {4, 8, 8}, 0},                  /* README: scale(float a, float *x, size_t n) */
    {"_Z5scaleIfEvT_PS0_m", run_scale_axn_f, 3, {4, 8, 8}, 0},    /* scale<float>(T a, T *x, size_t n) */
    {"_Z5scaleIdEvT_PS0_m", run_scale_axn_d, 3, {8, 8, 8}, 0},    /* scale<double>(T a, T *x, size_t n) */
    {"_Z5scaleIfEvPT_S0_m", run_scale_xan_f, 3, {8, 4, 8}, 0},    /* scale<float>(T *x, T a, size_t n) */
    {"_Z5scaleIdEvPT_S0_m", run_scale_xan_d, 3, {8, 8, 8}, 0},    /* scale<double>(T *x, T a, size_t n) */
    {"_Z4axpbIfEvPT_S0_S0_m", run_axpb_f, 4, {8, 4, 4, 8}, 0},    /* axpb<float>(T *x, T a, T b, size_t n) */
    {"_Z4axpbIdEvPT_S0_S0_m", run_axpb_d, 4, {8, 8, 8, 8}, 0},    /* axpb<double>(T *x, T a, T b, size_t n) */
    {"block_sum", run_block_sum, 3, {8, 8, 4}, 0},                /* big_shared.c */
    {"jacobi", run_jacobi, 6, {8, 8, 4, 4, 4, 4}, 0},             /* mpi_stencil.c */
    {"five", run_nothing, 5, {4, 8, 8, 8, 8}, 0},                 /* bench.c's five(float, 3 pointers, size_t) {} */
    {"empty", run_nothing, ANY_PARAMS, {0}, 0},
    {"fault", run_fault, ANY_PARAMS, {0}, 0},                     /* an illegal address, sticky */
    {"record", run_record, ANY_PARAMS, {0}, 0},
    {"transformKernel", run_transform_kernel, 5, {8, 8, 4, 4, 4}, 0}, /* examples/texture.c */
    {"tex2d_read", run_tex2d_read, 4, {8, 8, 8, 4}, 0},
    {"tex1d_fetch", run_tex1d_fetch, 3, {8, 8, 4}, 0},
    {"surf2d_scale", run_surf2d_scale, 4, {8, 4, 4, 4}, 0},
    {"cluster_rank", run_cluster_rank, 1, {8}, 0},
    {"coop_shift", run_coop_shift, 3, {8, 8, 4}, 1},
    /* examples/elementwise.c's kernels, generated by cudyn (mock_elementwise.c) */
    {"cudyn_elementwise_saxpy", run_cudyn_elementwise_saxpy, 4, {4, 8, 8, 8}, 0},
    {"cudyn_elementwise_saxpy_vec", run_cudyn_elementwise_saxpy, 4, {4, 8, 8, 8}, 0},
    {"cudyn_reduce_dot", run_cudyn_reduce_dot, 6, {8, 8, 8, 8, 8, 8}, 0},
    {"cudyn_reduce_dot_vec", run_cudyn_reduce_dot_vec, 6, {8, 8, 8, 8, 8, 8}, 0},
};

/* The kernels the host evaluator runs (mock_eval.c), whatever their
 * names: their parameters are checked against the PTX there. */
static const struct host_version evaluated = {"", NULL, ANY_PARAMS, {0}, 0};

/* The host version of fn if the mock has one that reads what fn's PTX
 * declares (when the PTX is known); kernels of one name with different
 * parameters (in_out.c's multiply_them and PyCUDA's) are told apart by them. */
static const struct host_version *host_version_of(const struct CUfunc_st *fn)
{
    for (size_t i = 0; i < sizeof host_kernels / sizeof host_kernels[0]; i++) {
        const struct host_version *k = &host_kernels[i];
        if (strcmp(k->name, fn->name) != 0)
            continue;
        if (k->n_params == ANY_PARAMS || fn->n_params < 0)
            return k;
        if (k->n_params != fn->n_params)
            continue;
        int same = 1;
        for (int p = 0; p < k->n_params; p++)
            same &= k->sizes[p] == fn->param_size[p];
        if (same)
            return k;
    }
    return NULL;
}

/* The mock never pretends to have run a kernel: it refuses, saying why on
 * stderr (once per kernel) and in its driver log (every time); `why` is
 * the host evaluator's reason, where it read the kernel's source. */
static cu_result cannot_emulate(struct CUfunc_st *fn, const char *why)
{
    pthread_mutex_lock(&mock.lock);
    int first = !fn->warned;
    fn->warned = 1;
    pthread_mutex_unlock(&mock.lock);
    char line[560];
    snprintf(line, sizeof line, "mock libcuda: cannot emulate kernel '%.200s'%s%.300s%s; run this test on a real GPU",
             fn->name, *why ? " (" : "", why, *why ? ")" : "");
    if (first)
        fprintf(stderr, "%s\n", line);
    mock_log(line); /* the driver's log: cudyn appends it to the failed launch's message */
    return CU_ERR_NOT_SUPPORTED;
}

/* A launch as submitted, before it runs or is recorded. */
struct request {
    cu_function fn;
    unsigned int grid[3], block[3], cluster[3], shared;
    int cooperative;
    void **params, **extra;
    struct CUctx_st *in; /* the context of the stream it runs on; NULL: the current one */
};

/* Blocks of block_size threads that fit on one multiprocessor (below). */
static int blocks_per_sm(const struct CUfunc_st *f, int block_size, size_t shared);

/* Clusters as the driver checks them: compute capability 9.0+, each
 * dimension dividing the grid, at most 8 blocks (16 with the kernel's
 * non-portable attribute). */
static cu_result check_cluster(const struct CUfunc_st *f, const struct request *rq, int device)
{
    const unsigned int *c = rq->cluster;
    if (c[0] == 1 && c[1] == 1 && c[2] == 1)
        return CU_OK;
    if (mock.devices[device].cc < 90)
        return CU_ERR_NOT_SUPPORTED;
    pthread_mutex_lock(&mock.lock);
    int limit = f->attributes[14] ? MOCK_MAX_CLUSTER : MOCK_PORTABLE_CLUSTER; /* NON_PORTABLE_CLUSTER_SIZE_ALLOWED */
    pthread_mutex_unlock(&mock.lock);
    for (int d = 0; d < 3; d++)
        if (!c[d] || rq->grid[d] % c[d])
            return MOCK_ERR_INVALID_CLUSTER_SIZE;
    return (unsigned long long)c[0] * c[1] * c[2] > (unsigned long long)limit ? MOCK_ERR_INVALID_CLUSTER_SIZE : CU_OK;
}

/* Every check of a launch, as the driver makes them; the function and its
 * host version on success. */
static cu_result validate(const struct request *rq, struct CUfunc_st **fn_out, const struct host_version **k_out)
{
    struct CUctx_st *ctx;
    cu_result r = ctx_need_current(&ctx);
    if (r)
        return r;
    struct CUfunc_st *f = function_live(rq->fn);
    if (!f)
        return CU_ERR_INVALID_HANDLE;
    /* as the real driver: the kernel must belong to the context of the
     * stream it is launched on (the current one for the NULL stream) */
    pthread_mutex_lock(&mock.lock);
    int other_context = function_context_locked(f) != (rq->in ? rq->in : ctx);
    unsigned int max_threads = (unsigned int)f->attributes[0], max_shared = (unsigned int)f->attributes[8];
    pthread_mutex_unlock(&mock.lock);
    if (other_context)
        return CU_ERR_INVALID_HANDLE; /* loaded in another context */
    if (mock.sticky_error)
        return mock.sticky_error;
    const unsigned int *g = rq->grid, *b = rq->block;
    unsigned long long threads = (unsigned long long)b[0] * b[1] * b[2];
    if (!g[0] || !g[1] || !g[2] || !b[0] || !b[1] || !b[2] || b[0] > MOCK_MAX_BLOCK_X || b[1] > MOCK_MAX_BLOCK_Y ||
        b[2] > MOCK_MAX_BLOCK_Z || threads > max_threads || g[0] > MOCK_MAX_GRID_X || g[1] > MOCK_MAX_GRID_Y ||
        g[2] > MOCK_MAX_GRID_Z)
        return CU_ERR_INVALID_VALUE;
    if (rq->shared > max_shared) {
        pthread_mutex_lock(&mock.lock);
        mock.refused_shared++;
        pthread_mutex_unlock(&mock.lock);
        return CU_ERR_INVALID_VALUE;
    }
    if ((rq->params && rq->extra) || (!rq->params && !rq->extra && f->n_params > 0))
        return CU_ERR_INVALID_VALUE;
    if ((r = check_cluster(f, rq, ctx->device)) != CU_OK)
        return r;
    if (rq->cooperative && (unsigned long long)g[0] * g[1] * g[2] >
                               (unsigned long long)blocks_per_sm(f, (int)threads, rq->shared) *
                                   (unsigned long long)mock_multiprocessors(ctx->device))
        return CU_ERR_COOPERATIVE_LAUNCH_TOO_LARGE;
    const struct host_version *k = host_version_of(f);
    char why[300] = "";
    if (!k && mock_eval_of(f, why, sizeof why))
        k = &evaluated;
    if (!k || rq->extra || (!rq->params && k->n_params > 0))
        return cannot_emulate(f, why); /* extra: packed parameters are not emulated */
    if (k->cooperative && !rq->cooperative)
        return mock_refuse("kernel '%s' without a cooperative launch (its grid sync would hang or race on a GPU)",
                           f->name);
    *fn_out = f;
    *k_out = k;
    return CU_OK;
}

static cu_result run(const struct CUfunc_st *f, const struct host_version *k, const struct request *rq)
{
    struct launch l = {f, rq->params, {rq->grid[0], rq->grid[1], rq->grid[2]},
                       {rq->block[0], rq->block[1], rq->block[2]},
                       {rq->cluster[0], rq->cluster[1], rq->cluster[2]}, rq->cooperative, rq->shared};
    if (k == &evaluated)
        return mock_eval_run(&l); /* it may refuse what C++ leaves undefined */
    k->run(&l);
    return CU_OK;
}

/* The launch as a graph records it, with the parameter sizes its PTX (or,
 * for a real CUBIN, the host version) gives. */
static cu_result record(const struct CUfunc_st *f, const struct host_version *k, const struct request *rq,
                        cu_stream s)
{
    struct mock_op op = {.kind = OP_KERNEL};
    op.kernel.fn = f;
    memcpy(op.kernel.grid, rq->grid, sizeof rq->grid);
    memcpy(op.kernel.block, rq->block, sizeof rq->block);
    memcpy(op.kernel.cluster, rq->cluster, sizeof rq->cluster);
    op.kernel.shared = rq->shared;
    op.kernel.cooperative = rq->cooperative;
    op.kernel.params = rq->params;
    if (f->n_params >= 0) {
        op.kernel.n_params = f->n_params;
        memcpy(op.kernel.param_size, f->param_size, sizeof f->param_size);
    } else if (k->n_params != ANY_PARAMS) {
        op.kernel.n_params = k->n_params;
        memcpy(op.kernel.param_size, k->sizes, sizeof k->sizes);
    } else {
        return mock_refuse("a captured launch of '%s', whose parameters are unknown", f->name);
    }
    int captured = 0;
    return capture_record(s, &op, &captured);
}

/* Runs the launch now, or records it when `s` captures. */
static cu_result submit(struct request *rq, cu_stream s)
{
    cu_result r = stream_context(s, &rq->in);
    if (r)
        return r;
    struct CUfunc_st *f = NULL;
    const struct host_version *k = NULL;
    if ((r = validate(rq, &f, &k)) != CU_OK)
        return r;
    if (stream_capturing(s))
        return record(f, k, rq, s);
    return run(f, k, rq);
}

cu_result kernel_replay(const struct mock_op *op)
{
    struct request rq = {(cu_function)op->kernel.fn, {0}, {0}, {0}, op->kernel.shared, op->kernel.cooperative,
                         (void **)op->kernel.params, NULL, NULL};
    memcpy(rq.grid, op->kernel.grid, sizeof rq.grid);
    memcpy(rq.block, op->kernel.block, sizeof rq.block);
    memcpy(rq.cluster, op->kernel.cluster, sizeof rq.cluster);
    struct CUfunc_st *f = NULL;
    const struct host_version *k = NULL;
    cu_result r = validate(&rq, &f, &k);
    return r ? r : run(f, k, &rq);
}

static cu_result launch(cu_function fn, unsigned int gx, unsigned int gy, unsigned int gz, unsigned int bx,
                        unsigned int by, unsigned int bz, unsigned int shared, cu_stream s, void **params,
                        void **extra, int cooperative)
{
    struct request rq = {fn, {gx, gy, gz}, {bx, by, bz}, {1, 1, 1}, shared, cooperative, params, extra, NULL};
    return submit(&rq, s);
}

#define LAUNCH_PARAMS                                                                                     \
    (cu_function fn, unsigned int gx, unsigned int gy, unsigned int gz, unsigned int bx, unsigned int by, \
     unsigned int bz, unsigned int shared, cu_stream s, void **params, void **extra)
TWO_FLAVOURS(cuLaunchKernel, cuLaunchKernel_ptsz, LAUNCH_PARAMS,
             launch(fn, gx, gy, gz, bx, by, bz, shared, s, params, extra, 0))

#define COOPERATIVE_PARAMS                                                                                \
    (cu_function fn, unsigned int gx, unsigned int gy, unsigned int gz, unsigned int bx, unsigned int by, \
     unsigned int bz, unsigned int shared, cu_stream s, void **params)
TWO_FLAVOURS(cuLaunchCooperativeKernel, cuLaunchCooperativeKernel_ptsz, COOPERATIVE_PARAMS,
             launch(fn, gx, gy, gz, bx, by, bz, shared, s, params, NULL, 1))

/* Launch attributes: cooperative, cluster dimension and priority (which
 * changes nothing when work runs at submission); others are refused. */
static cu_result launch_ex(const cu_launch_config *c, cu_function fn, void **params, void **extra)
{
    if (!c || (c->numAttrs && !c->attrs))
        return CU_ERR_INVALID_VALUE;
    struct request rq = {fn, {c->gridDimX, c->gridDimY, c->gridDimZ}, {c->blockDimX, c->blockDimY, c->blockDimZ},
                         {1, 1, 1}, c->sharedMemBytes, 0, params, extra, NULL};
    for (unsigned int i = 0; i < c->numAttrs; i++) {
        const cu_launch_attribute *a = &c->attrs[i];
        switch (a->id) {
        case CU_LAUNCH_ATTR_COOPERATIVE: rq.cooperative = a->value.cooperative != 0; break;
        case CU_LAUNCH_ATTR_CLUSTER_DIMENSION:
            rq.cluster[0] = a->value.clusterDim.x;
            rq.cluster[1] = a->value.clusterDim.y;
            rq.cluster[2] = a->value.clusterDim.z;
            break;
        case CU_LAUNCH_ATTR_PRIORITY: break;
        default: return mock_refuse("launch attribute %u", a->id);
        }
    }
    return submit(&rq, c->hStream);
}

TWO_FLAVOURS(cuLaunchKernelEx, cuLaunchKernelEx_ptsz,
             (const cu_launch_config *config, cu_function fn, void **params, void **extra),
             launch_ex(config, fn, params, extra))

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
