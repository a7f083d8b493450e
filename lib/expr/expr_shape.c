/*
 * expr_shape.c - how a generated kernel is launched: the block and grid
 * for n elements, and which variant runs.  Pure functions of the device's
 * limits, occupancy, the pointers and n, table-tested by
 * tests/test_expr_tables.c.
 *
 * Shape.  Generated kernels loop with a grid stride, so any grid covers n.
 * A grid larger than the device holds at once only adds blocks that start
 * after others finish; one that fills every multiprocessor to occupancy's
 * limit keeps the most loads in flight, which is what a memory-bound loop
 * needs.  So: occupancy's block size, and as many blocks as there are work
 * items per block, at most blocks_per_sm x multiprocessors (and the
 * device's grid limit), at least one.
 *
 * Variant.  The vectorised kernel loads `lanes` consecutive elements of
 * every pointer the text indexes with one 16-byte (or narrower) load and
 * stores back, with one store, the vectors of writable pointers whose
 * elements the text changed.  It is used when
 *   - the text allows it (expr_scan.c) and n >= lanes;
 *   - every pointer the text indexes is aligned to lanes x its element size
 *     (a vector load of a misaligned address faults);
 *   - the element ranges [p, p + n * size) of the writable pointers the text
 *     indexes do not overlap one another: a vector stored back holds the
 *     lanes the text did not change too, so two writable views of the same
 *     memory could undo each other's writes.  Read-only pointers may alias
 *     anything (x == y for y[i] = 2 * x[i] is fine).
 * Otherwise the plain kernel runs: the user's text as written, one element
 * at a time, four elements a stride apart per loop step.
 */
#include "config.h"

#include "expr/expr.h"

unsigned int cudyn__shape_grid_cap(const struct cudyn__shape_limits *lim)
{
    long long cap = (long long)(lim->blocks_per_sm > 0 ? lim->blocks_per_sm : 1) * (lim->sms > 0 ? lim->sms : 1);
    if (lim->max_grid > 0 && cap > lim->max_grid)
        cap = lim->max_grid;
    return (unsigned int)cap;
}

void cudyn__shape(const struct cudyn__shape_limits *lim, size_t items, unsigned int *grid, unsigned int *block)
{
    size_t b = lim->block > 0 ? (size_t)lim->block : 1;
    size_t blocks = items / b + (items % b != 0);
    size_t cap = cudyn__shape_grid_cap(lim);
    *block = (unsigned int)b;
    *grid = (unsigned int)(blocks == 0 ? 1 : blocks < cap ? blocks : cap);
}

int cudyn__shape_block(int suggested, int limit, bool pow2)
{
    int b = suggested < limit ? suggested : limit;
    if (b < 1)
        return 0;
    if (pow2)
        while (b & (b - 1))
            b &= b - 1; /* clear low bits down to the highest one */
    return b;
}

int cudyn__lanes(const struct cudyn__param_list *params, const struct cudyn__scan *scan)
{
    size_t widest = 1;
    for (int k = 0; k < params->count; k++)
        if (params->p[k].pointer && scan->used[k] && params->p[k].elem_size > widest)
            widest = params->p[k].elem_size;
    return widest >= 16 ? 1 : (int)(16 / widest);
}

/* Whether [a, a + n * sa) and [b, b + n * sb) share a byte. */
static bool overlap(uint64_t a, size_t sa, uint64_t b, size_t sb, size_t n)
{
    if (n > UINT64_MAX / 16)
        return true; /* no such allocation; do not risk the arithmetic */
    uint64_t end_a = a + (uint64_t)n * sa, end_b = b + (uint64_t)n * sb;
    return a < end_b && b < end_a;
}

enum cudyn__variant cudyn__choose_variant(bool vector_kernel, int lanes, const struct cudyn__lane_pointer *ptrs,
                                          int count, size_t n)
{
    if (!vector_kernel || lanes < 2 || n < (size_t)lanes)
        return VARIANT_PLAIN;
    for (int k = 0; k < count; k++)
        if (ptrs[k].used && ptrs[k].address % ((uint64_t)lanes * ptrs[k].elem_size) != 0)
            return VARIANT_PLAIN;
    for (int a = 0; a < count; a++)
        for (int b = a + 1; b < count; b++)
            if (ptrs[a].used && ptrs[a].writable && ptrs[b].used && ptrs[b].writable &&
                overlap(ptrs[a].address, ptrs[a].elem_size, ptrs[b].address, ptrs[b].elem_size, n))
                return VARIANT_PLAIN;
    return VARIANT_VECTOR;
}
