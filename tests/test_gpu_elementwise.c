/*
 * test_gpu_elementwise.c - elementwise and reduction kernels from
 * expressions on a real GPU; skipped (77) without one, or without NVRTC.
 * SAXPY on 2^24 floats is compared exactly with the host (both variants),
 * the dot product in float against a double reference, integer sums and a
 * maximum exactly, and a reduction twice for the same bits.  It prints the
 * bandwidths against a device-to-device copy of the same bytes (measured,
 * not asserted: `make bench` has the rows).
 */
#include "config.h"

#include <stdint.h>

#include "cudyn.h"
#include "testutil.h"

#define N ((size_t)1 << 24)
#define ITERS 20

static int cmp_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return x < y ? -1 : x > y;
}

/* Median milliseconds of ITERS runs of op, timed with events. */
static double median_ms(int (*op)(void *), void *ctx)
{
    cudyn_event a = NULL, b = NULL;
    float ms[ITERS];
    int st = cudyn_event_create(&a, 0);
    if (st == CUDYN_OK)
        st = cudyn_event_create(&b, 0);
    for (int i = 0; i < ITERS && st == CUDYN_OK; i++) {
        st = cudyn_event_record(a, NULL);
        if (st == CUDYN_OK)
            st = op(ctx);
        if (st == CUDYN_OK)
            st = cudyn_event_record(b, NULL);
        if (st == CUDYN_OK)
            st = cudyn_event_synchronize(b);
        if (st == CUDYN_OK)
            st = cudyn_event_elapsed_ms(&ms[i], a, b);
    }
    CHECK_STATUS(st, CUDYN_OK);
    cudyn_event_destroy(a);
    cudyn_event_destroy(b);
    qsort(ms, ITERS, sizeof ms[0], cmp_float);
    return st == CUDYN_OK ? ms[ITERS / 2] : -1;
}

struct work {
    cudyn_elementwise *saxpy;
    cudyn_reduction *dot;
    cudyn_devptr dx, dy, dcopy, dres;
    size_t offset; /* bytes into x and y: 4 makes the plain variant run */
};

static int op_copy(void *p)
{
    struct work *w = p;
    return cudyn_memcpy_dtod_async(w->dcopy, w->dx, N * sizeof(float), NULL);
}

static int op_saxpy(void *p)
{
    struct work *w = p;
    size_t n = N - w->offset / sizeof(float);
    return cudyn_elementwise_launch(w->saxpy, n, NULL, 2.0f, w->dx + w->offset, w->dy + w->offset);
}

static int op_dot(void *p)
{
    struct work *w = p;
    return cudyn_reduction_run(w->dot, NULL, w->dres, N, NULL, w->dx, w->dy);
}

static void check_saxpy(struct work *w, const float *x, const float *y, size_t offset)
{
    size_t first = offset / sizeof(float), wrong = 0;
    float *out = malloc(N * sizeof *out);
    CHECK_STATUS(cudyn_memcpy_htod(w->dy, y, N * sizeof *y), CUDYN_OK);
    w->offset = offset;
    CHECK_STATUS(op_saxpy(w), CUDYN_OK);
    CHECK_STATUS(cudyn_memcpy_dtoh(out, w->dy, N * sizeof *out), CUDYN_OK);
    for (size_t i = 0; i < N; i++)
        wrong += out[i] != (i >= first ? 2.0f * x[i] + y[i] : y[i]);
    printf("elementwise saxpy, 2^24 floats%s: %zu wrong\n", offset ? ", one float in (plain kernel)" : "", wrong);
    CHECK_EQ_INT(wrong, 0);
    free(out);
}

static void check_dot(struct work *w, const float *x, const float *y)
{
    float first = 0, again = 1;
    CHECK_STATUS(cudyn_reduction_run(w->dot, &first, 0, N, NULL, w->dx, w->dy), CUDYN_OK);
    CHECK_STATUS(cudyn_reduction_run(w->dot, &again, 0, N, NULL, w->dx, w->dy), CUDYN_OK);
    double want = 0;
    for (size_t i = 0; i < N; i++)
        want += (double)x[i] * y[i];
    double error = (first > want ? first - want : want - first) / want;
    printf("dot product, 2^24 floats: %.9g, double reference %.9g, relative error %.2e\n", first, want, error);
    CHECK(error < 1e-5);
    CHECK(memcmp(&first, &again, sizeof first) == 0);
}

/* Reductions whose exact answer is known: an integer sum (wrapping) and a
 * maximum. */
static void check_exact_reductions(const struct work *w, const float *x)
{
    cudyn_reduction *isum = NULL, *fmax = NULL;
    CHECK_STATUS(cudyn_reduction_create(&isum, "unsigned int", "0", "a + b", "(unsigned int)x[i] * 2654435761u",
                                        "const float *x", "isum", NULL),
                 CUDYN_OK);
    CHECK_STATUS(cudyn_reduction_create(&fmax, "float", "-3.0e38f", "fmaxf(a, b)", "x[i] + (i == 777 ? 5000.0f : 0)",
                                        "const float *x", "fmax", NULL),
                 CUDYN_OK);
    if (!isum || !fmax)
        return;
    unsigned int got = 0, want = 0;
    for (size_t i = 0; i < N; i++)
        want += (unsigned int)x[i] * 2654435761u;
    CHECK_STATUS(cudyn_reduction_run(isum, &got, 0, N, NULL, w->dx), CUDYN_OK);
    CHECK_EQ_INT(got, want);
    float max = 0;
    CHECK_STATUS(cudyn_reduction_run(fmax, &max, 0, N, NULL, w->dx), CUDYN_OK);
    CHECK(max == x[777] + 5000.0f);
    cudyn_reduction_free(isum);
    cudyn_reduction_free(fmax);
}

static void report_bandwidths(struct work *w)
{
    double copy = median_ms(op_copy, w);
    w->offset = 0;
    double vec = median_ms(op_saxpy, w);
    w->offset = 4;
    double plain = median_ms(op_saxpy, w);
    double dot = median_ms(op_dot, w);
    double copy_gbps = 2.0 * N * sizeof(float) / (copy * 1e6); /* read and write */
    double saxpy_bytes = 3.0 * N * sizeof(float), dot_bytes = 2.0 * N * sizeof(float);
    printf("device-to-device copy of 2^24 floats: %.3f ms, %.0f GB/s\n", copy, copy_gbps);
    printf("elementwise saxpy (vectorised): %.3f ms, %.0f GB/s, %.0f%% of the copy (target 95%%)\n", vec,
           saxpy_bytes / (vec * 1e6), 100 * saxpy_bytes / (vec * 1e6) / copy_gbps);
    printf("elementwise saxpy (plain, misaligned): %.3f ms, %.0f GB/s, %.0f%% of the copy\n", plain,
           saxpy_bytes / (plain * 1e6), 100 * saxpy_bytes / (plain * 1e6) / copy_gbps);
    printf("dot product (reads 8 bytes per element): %.3f ms, %.0f GB/s, %.0f%% of the copy (target 85%%)\n", dot,
           dot_bytes / (dot * 1e6), 100 * dot_bytes / (dot * 1e6) / copy_gbps);
}

int main(void)
{
    struct cudyn_loader_info l;
    test_need_real_gpu(&l);
    if (l.nvrtc_status != CUDYN_OK)
        TEST_SKIP("no NVRTC on this machine");
    struct cudyn_device_info d = {.size = sizeof d};
    cudyn_device_info(0, &d);
    printf("device 0: %s, %d SMs\n", d.name, d.multiprocessors);
    float *x = malloc(N * sizeof *x), *y = malloc(N * sizeof *y);
    test_saxpy_inputs(x, y, N);
    struct work w = {0};
    CHECK_STATUS(cudyn_elementwise_create(&w.saxpy, "float a, const float *x, float *y", "y[i] = a * x[i] + y[i]",
                                          "saxpy", NULL),
                 CUDYN_OK);
    CHECK_STATUS(cudyn_reduction_create(&w.dot, "float", "0", "a + b", "x[i] * y[i]", "const float *x, const float *y",
                                        "dot", NULL),
                 CUDYN_OK);
    CHECK_STATUS(cudyn_mem_alloc(&w.dx, N * sizeof(float)), CUDYN_OK);
    CHECK_STATUS(cudyn_mem_alloc(&w.dy, N * sizeof(float)), CUDYN_OK);
    CHECK_STATUS(cudyn_mem_alloc(&w.dcopy, N * sizeof(float)), CUDYN_OK);
    CHECK_STATUS(cudyn_mem_alloc(&w.dres, sizeof(float)), CUDYN_OK);
    if (w.saxpy && w.dot && w.dx && w.dy && w.dcopy && w.dres) {
        CHECK_STATUS(cudyn_memcpy_htod(w.dx, x, N * sizeof *x), CUDYN_OK);
        check_saxpy(&w, x, y, 0);
        check_saxpy(&w, x, y, 4);
        CHECK_STATUS(cudyn_memcpy_htod(w.dy, y, N * sizeof *y), CUDYN_OK);
        check_dot(&w, x, y);
        check_exact_reductions(&w, x);
        report_bandwidths(&w);
    }
    cudyn_elementwise_free(w.saxpy);
    cudyn_reduction_free(w.dot);
    cudyn_mem_free(w.dx);
    cudyn_mem_free(w.dy);
    cudyn_mem_free(w.dcopy);
    cudyn_mem_free(w.dres);
    free(x);
    free(y);
    return test_result("test_gpu_elementwise");
}
