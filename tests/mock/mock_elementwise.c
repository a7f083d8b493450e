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

/* cudyn_block_reduce: the block's values combined by halving, as the
 * generated tree does (blockDim.x a power of two). */
static float block_tree(float *shared, unsigned int threads)
{
    for (unsigned int h = threads / 2; h > 0; h /= 2)
        for (unsigned int t = 0; t < h; t++)
            shared[t] = shared[t] + shared[t + h];
    return shared[0];
}

/* One thread's sum of x[i] * y[i] over i = first, first + stride, ... < n. */
static float thread_dot(const float *x, const float *y, size_t first, size_t stride, size_t n)
{
    float acc = 0;
    for (size_t i = first; i < n; i += stride)
        acc = acc + x[i] * y[i];
    return acc;
}

/* The partials of pass 1; `lanes` 0 is the plain kernel, else each thread
 * takes `lanes` consecutive elements per step, then the tail. */
static void dot_partials(const struct launch *l, size_t lanes)
{
    size_t n = SCALAR(size_t, l, 2);
    unsigned int blocks = l->grid[0], threads = l->block[0];
    const float *x = launch_buffer(l, 0, n * sizeof *x), *y = launch_buffer(l, 1, n * sizeof *y);
    float *partials = launch_buffer(l, 3, blocks * sizeof *partials);
    if (!x || !y || !partials || threads > MAX_BLOCK)
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
}

/* cudyn_reduce_dot(const float *x, const float *y, size_t n, float *partials) */
void run_cudyn_reduce_dot(const struct launch *l)
{
    dot_partials(l, 0);
}

/* cudyn_reduce_dot_vec: the same, four consecutive floats per step */
void run_cudyn_reduce_dot_vec(const struct launch *l)
{
    dot_partials(l, 4);
}

/* cudyn_reduce_dot_final(const float *partials, size_t count, float *out):
 * one block; thread t sums partials t, t + blockDim.x, ...; the tree. */
void run_cudyn_reduce_dot_final(const struct launch *l)
{
    size_t count = SCALAR(size_t, l, 1);
    unsigned int threads = l->block[0];
    const float *partials = launch_buffer(l, 0, count * sizeof *partials);
    float *out = launch_buffer(l, 2, sizeof *out);
    if (!partials || !out || threads > MAX_BLOCK)
        return;
    float shared[MAX_BLOCK];
    for (unsigned int t = 0; t < threads; t++) {
        float acc = 0;
        for (size_t j = t; j < count; j += threads)
            acc = acc + partials[j];
        shared[t] = acc;
    }
    *out = block_tree(shared, threads);
}
