/*
 * mock_elementwise.c - host versions of kernels that cudyn generates from
 * expressions (lib/expr/expr_source.c), for the parameter lists and texts of
 * examples/elementwise.c.  mock_launch.c lists them by their exact
 * generated names; each does what the generated CUDA code does, in the
 * order it does it, so results match a GPU's up to the compiler's choice
 * of fused multiply-adds.  Another text with the same name would be a
 * different kernel: the names are the examples' own.  The kernels the
 * Python layer writes (python/cudyn) are not here: the host evaluator
 * (mock_eval.c) runs its map kernels, known by their source's shape.
 *
 *   cudyn_elementwise_create(&k, "float a, const float *x, float *y",
 *                            "y[i] = a * x[i] + y[i]", "saxpy", NULL)
 *   cudyn_reduction_create(&r, "float", "0", "a + b", "x[i] * y[i]",
 *                          "const float *x, const float *y", "dot", NULL)
 */
#include "config.h"

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

/* cudyn_block_reduce's order for a sum (blockDim.x a power of two): halving
 * within each warp of 32 values, then halving over the warps' results. */
static float block_tree(float *v, unsigned int threads)
{
    unsigned int width = threads < 32 ? threads : 32;
    for (unsigned int w = 0; w < threads; w += width)
        for (unsigned int h = width / 2; h > 0; h /= 2)
            for (unsigned int t = 0; t < h; t++)
                v[w + t] = v[w + t] + v[w + t + h];
    if (threads <= 32)
        return v[0];
    unsigned int warps = threads / 32;
    for (unsigned int k = 1; k < warps; k++) /* each warp's result, gathered */
        v[k] = v[k * 32];
    for (unsigned int h = warps / 2; h > 0; h /= 2)
        for (unsigned int t = 0; t < h; t++)
            v[t] = v[t] + v[t + h];
    return v[0];
}

/* What the block that finishes last does (cudyn_last_block): thread t
 * sums partials t, t + threads, ..., then the block's tree. */
static float last_block(const float *partials, unsigned int blocks, unsigned int threads, float *shared)
{
    for (unsigned int t = 0; t < threads; t++) {
        float acc = 0;
        for (size_t j = t; j < blocks; j += threads)
            acc = acc + partials[j];
        shared[t] = acc;
    }
    return block_tree(shared, threads);
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
        partials[b] = block_tree(shared, threads);
    }
    *out = last_block(partials, blocks, threads, shared);
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
