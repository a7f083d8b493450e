/*
 * bench_util.h - the timing helpers of bench.c (`make bench`) and
 * peers_c.c (`make bench-peers`), two separate programs.
 */
#ifndef CUDYN_BENCH_UTIL_H
#define CUDYN_BENCH_UTIL_H

#include <stdlib.h>
#include <time.h>

#include "cudyn.h"

static inline double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static inline int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The median of v[0..n-1], which it sorts. */
static inline double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof v[0], cmp_double);
    return v[n / 2];
}

/* Median milliseconds of `runs` runs of run(ctx), each timed on the GPU by
 * events recorded around it on the default stream; -1 when a call fails
 * (run returns a cudyn status). */
static inline double event_median_ms(int runs, int (*run)(void *ctx), void *ctx)
{
    double ms[runs];
    cudyn_event a = NULL, b = NULL;
    int st = cudyn_event_create(&a, 0);
    if (st == CUDYN_OK)
        st = cudyn_event_create(&b, 0);
    for (int r = 0; st == CUDYN_OK && r < runs; r++) {
        float t = 0;
        st = cudyn_event_record(a, NULL);
        if (st == CUDYN_OK)
            st = run(ctx);
        if (st == CUDYN_OK)
            st = cudyn_event_record(b, NULL);
        if (st == CUDYN_OK)
            st = cudyn_event_synchronize(b);
        if (st == CUDYN_OK)
            st = cudyn_event_elapsed_ms(&t, a, b);
        ms[r] = t;
    }
    cudyn_event_destroy(a);
    cudyn_event_destroy(b);
    return st == CUDYN_OK ? median(ms, runs) : -1;
}

#endif
