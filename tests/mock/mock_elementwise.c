/*
 * mock_elementwise.c - host versions of kernels that cudyn generates from
 * expressions (lib/expr/expr_source.c), for the parameter lists and texts of
 * examples/elementwise.c.  mock_launch.c lists them by their exact
 * generated names; each does what the generated CUDA code does, in the
 * order it does it, so results match a GPU's up to the compiler's choice
 * of fused multiply-adds.  Another text with the same name would be a
 * different kernel: the names are the examples' own.
 *
 *   cudyn_elementwise_create(&k, "float a, const float *x, float *y",
 *                            "y[i] = a * x[i] + y[i]", "saxpy", NULL)
 *   cudyn_reduction_create(&r, "float", "0", "a + b", "x[i] * y[i]",
 *                          "const float *x, const float *y", "dot", NULL)
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "mock.h"

#define SCALAR(type, l, i) (*(const type *)(l)->params[i])
#define MAX_BLOCK 1024 /* the largest block the mock launches */

/* cudyn_elementwise_saxpy and its _vec variant (float a, const float *x,
 * float *y, size_t n): y[i] = a * x[i] + y[i] for every i < n, whatever
 * the grid (a grid-stride loop); the variant loads and stores four at a
 * time, which changes nothing here. */
void run_cudyn_elementwise_saxpy(const struct launch *l)
{
    float a = SCALAR(float, l, 0);
    size_t n = SCALAR(size_t, l, 3);
    const float *x = launch_buffer(l, 1, n * sizeof *x);
    float *y = launch_buffer(l, 2, n * sizeof *y);
    if (!x || !y)
        return;
    for (size_t i = 0; i < n; i++)
        y[i] = a * x[i] + y[i];
}

/* '+' sum, '>' max, '<' min: the reduce expressions of the kernels here
 * (examples/elementwise.c's dot sums; gpuarray's sum, max and min) */
static float reduce_neutral(char kind)
{
    return kind == '+' ? 0.0f : kind == '>' ? -INFINITY : INFINITY;
}

static float reduce_combine(char kind, float a, float b)
{
    if (kind == '+')
        return a + b;
    if (kind == '>')
        return (a > b || a != a) ? a : b;
    return (a < b || a != a) ? a : b;
}

/* cudyn_block_reduce's order (blockDim.x a power of two): halving within
 * each warp of 32 values, then halving over the warps' results. */
static float block_tree(char kind, float *v, unsigned int threads)
{
    unsigned int width = threads < 32 ? threads : 32;
    for (unsigned int w = 0; w < threads; w += width)
        for (unsigned int h = width / 2; h > 0; h /= 2)
            for (unsigned int t = 0; t < h; t++)
                v[w + t] = reduce_combine(kind, v[w + t], v[w + t + h]);
    if (threads <= 32)
        return v[0];
    unsigned int warps = threads / 32;
    for (unsigned int k = 1; k < warps; k++) /* each warp's result, gathered */
        v[k] = v[k * 32];
    for (unsigned int h = warps / 2; h > 0; h /= 2)
        for (unsigned int t = 0; t < h; t++)
            v[t] = reduce_combine(kind, v[t], v[t + h]);
    return v[0];
}

/* What the block that finishes last does (cudyn_last_block): thread t
 * combines partials t, t + threads, ..., then the block's tree. */
static float last_block(char kind, const float *partials, unsigned int blocks, unsigned int threads, float *shared)
{
    for (unsigned int t = 0; t < threads; t++) {
        float acc = reduce_neutral(kind);
        for (size_t j = t; j < blocks; j += threads)
            acc = reduce_combine(kind, acc, partials[j]);
        shared[t] = acc;
    }
    return block_tree(kind, shared, threads);
}

/* One thread's sum of x[i] * y[i] over i = first, first + stride, ... < n. */
static float thread_dot(const float *x, const float *y, size_t first, size_t stride, size_t n)
{
    float acc = 0;
    for (size_t i = first; i < n; i += stride)
        acc = acc + x[i] * y[i];
    return acc;
}

/* The count of blocks done (params[done_at]) must read 0 before a launch,
 * as the generated code leaves it; the mock never counts (it runs the
 * blocks in order, so the last is the last), and a count left set would
 * be a broken buffer: a fault, as a GPU would give a wrong result. */
static int count_is_clear(const struct launch *l, int done_at)
{
    const unsigned int *done = launch_buffer(l, done_at, sizeof *done);
    if (done && *done != 0)
        kernel_fault();
    return done && *done == 0;
}

/* cudyn_reduce_dot (const float *x, const float *y, size_t n, float
 * *partials, unsigned int *done, float *out), plain (`lanes` 0) or _vec
 * (each thread takes `lanes` consecutive elements per step, then the
 * tail): each block's partial, then what the last block does: thread t
 * sums partials t, t + blockDim.x, ... and the tree combines them. */
static void dot_reduce(const struct launch *l, size_t lanes)
{
    size_t n = SCALAR(size_t, l, 2);
    unsigned int blocks = l->grid[0], threads = l->block[0];
    const float *x = launch_buffer(l, 0, n * sizeof *x), *y = launch_buffer(l, 1, n * sizeof *y);
    float *partials = launch_buffer(l, 3, blocks * sizeof *partials);
    float *out = launch_buffer(l, 5, sizeof *out);
    if (!x || !y || !partials || !out || !count_is_clear(l, 4) || threads > MAX_BLOCK)
        return;
    size_t stride = (size_t)blocks * threads;
    float shared[MAX_BLOCK];
    for (unsigned int b = 0; b < blocks; b++) {
        for (unsigned int t = 0; t < threads; t++) {
            size_t first = (size_t)b * threads + t;
            if (!lanes) {
                shared[t] = thread_dot(x, y, first, stride, n);
                continue;
            }
            float acc = 0;
            for (size_t v = first; v < n / lanes; v += stride)
                for (size_t k = 0; k < lanes; k++)
                    acc = acc + x[v * lanes + k] * y[v * lanes + k];
            for (size_t i = n / lanes * lanes + first; i < n; i += stride)
                acc = acc + x[i] * y[i];
            shared[t] = acc;
        }
        partials[b] = block_tree('+', shared, threads);
    }
    *out = last_block('+', partials, blocks, threads, shared);
}

void run_cudyn_reduce_dot(const struct launch *l)
{
    dot_reduce(l, 0);
}

/* cudyn_reduce_dot_vec: the same, four consecutive floats per step */
void run_cudyn_reduce_dot_vec(const struct launch *l)
{
    dot_reduce(l, 4);
}

/* ------------------------------------------------ python/cudyn/gpuarray.py
 * The float32 kernels that gpuarray's operators and reductions generate,
 * named as gpuarray.py names them (the names fix the texts):
 *   ga_OP_s_f_f   (float a, const float *x, float *z)  z[i] = x[i] OP a
 *   ga_OP_rs_f_f  (float a, const float *x, float *z)  z[i] = a OP x[i]
 *   ga_OP_f_f_f   (const float *x, const float *y, float *z)  z[i] = x[i] OP y[i]
 *   ga_neg_f      (const float *x, float *z)           z[i] = -x[i]
 *   ga_fill_f     (float a, float *z)                  z[i] = a
 * with OP add, sub, mul or div; and the reductions over const float *x
 *   ga_sum_f_f (a + b, from 0), ga_max_f and ga_min_f ((a > b || a != a) ?
 *   a : b and its < twin, from -inf / +inf), map x[i].
 * Each elementwise kernel reads x[i] before it writes z[i], so x and z may
 * be the same array (gpuarray's in-place operators). */

static float ga_apply(char op, float left, float right)
{
    switch (op) {
    case '+': return left + right;
    case '-': return left - right;
    case '*': return left * right;
    default: return left / right;
    }
}

/* The operator of "cudyn_elementwise_ga_OP_..." */
static char ga_operator(const char *name)
{
    const char *op = name + strlen("cudyn_elementwise_ga_");
    if (strncmp(op, "add", 3) == 0)
        return '+';
    if (strncmp(op, "sub", 3) == 0)
        return '-';
    return strncmp(op, "mul", 3) == 0 ? '*' : '/';
}

void run_ga_scalar(const struct launch *l)
{
    float a = SCALAR(float, l, 0);
    size_t n = SCALAR(size_t, l, 3);
    const float *x = launch_buffer(l, 1, n * sizeof *x);
    float *z = launch_buffer(l, 2, n * sizeof *z);
    if (!x || !z)
        return;
    char op = ga_operator(l->fn->name);
    int reflected = strstr(l->fn->name, "_rs_") != NULL;
    for (size_t i = 0; i < n; i++)
        z[i] = reflected ? ga_apply(op, a, x[i]) : ga_apply(op, x[i], a);
}

void run_ga_binary(const struct launch *l)
{
    size_t n = SCALAR(size_t, l, 3);
    const float *x = launch_buffer(l, 0, n * sizeof *x), *y = launch_buffer(l, 1, n * sizeof *y);
    float *z = launch_buffer(l, 2, n * sizeof *z);
    if (!x || !y || !z)
        return;
    char op = ga_operator(l->fn->name);
    for (size_t i = 0; i < n; i++)
        z[i] = ga_apply(op, x[i], y[i]);
}

void run_ga_neg(const struct launch *l)
{
    size_t n = SCALAR(size_t, l, 2);
    const float *x = launch_buffer(l, 0, n * sizeof *x);
    float *z = launch_buffer(l, 1, n * sizeof *z);
    if (!x || !z)
        return;
    for (size_t i = 0; i < n; i++)
        z[i] = -x[i];
}

void run_ga_fill(const struct launch *l)
{
    float a = SCALAR(float, l, 0);
    size_t n = SCALAR(size_t, l, 2);
    float *z = launch_buffer(l, 1, n * sizeof *z);
    if (!z)
        return;
    for (size_t i = 0; i < n; i++)
        z[i] = a;
}

/* gpuarray's reduce expression, from the kernel's name */
static char ga_reduce_kind(const char *name)
{
    return strstr(name, "_ga_max_") ? '>' : strstr(name, "_ga_min_") ? '<' : '+';
}

/* (const float *x, size_t n, float *partials, unsigned int *done, float
 * *out), plain or _vec (four consecutive floats per step, then the tail),
 * in dot_reduce's order, the last block's total included */
void run_ga_reduce(const struct launch *l)
{
    size_t n = SCALAR(size_t, l, 1);
    unsigned int blocks = l->grid[0], threads = l->block[0];
    const float *x = launch_buffer(l, 0, n * sizeof *x);
    float *partials = launch_buffer(l, 2, blocks * sizeof *partials);
    float *out = launch_buffer(l, 4, sizeof *out);
    if (!x || !partials || !out || !count_is_clear(l, 3) || threads > MAX_BLOCK)
        return;
    char kind = ga_reduce_kind(l->fn->name);
    size_t lanes = strstr(l->fn->name, "_vec") ? 4 : 0;
    size_t stride = (size_t)blocks * threads;
    float shared[MAX_BLOCK];
    for (unsigned int b = 0; b < blocks; b++) {
        for (unsigned int t = 0; t < threads; t++) {
            size_t first = (size_t)b * threads + t;
            float acc = reduce_neutral(kind);
            if (!lanes) {
                for (size_t i = first; i < n; i += stride)
                    acc = reduce_combine(kind, acc, x[i]);
            } else {
                for (size_t v = first; v < n / lanes; v += stride)
                    for (size_t k = 0; k < lanes; k++)
                        acc = reduce_combine(kind, acc, x[v * lanes + k]);
                for (size_t i = n / lanes * lanes + first; i < n; i += stride)
                    acc = reduce_combine(kind, acc, x[i]);
            }
            shared[t] = acc;
        }
        partials[b] = block_tree(kind, shared, threads);
    }
    *out = last_block(kind, partials, blocks, threads, shared);
}
