/*
 * test_gpu_libc.c - on a GPU (skipped without one): every kernel of
 * tests/libc, compiled through cudyn with the C and C++ library headers it
 * gives NVRTC, writes the values its header gives device code; each REAL
 * and INT must equal the same expression evaluated here by the host's C
 * library (NaN matching NaN), each TRUE must hold (tests/libc/harness.cuh).
 * A failing assert stops its kernel (in a process of its own: it leaves
 * the context unusable), and one that holds does not.
 */
#include "config.h"

#include <assert.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "cudyn.h"
#include "libc/pair.h"
#include "libc_kernels.h"
#include "testutil.h"

#define MAX_VALUES 256

struct values {
    long long ints[MAX_VALUES];
    double reals[MAX_VALUES];
    int ni, nr;
};

/* The host's side of a .values file: REAL and INT evaluated here, TRUE
 * expected to hold (its expression is the device's alone). */
#define REAL(x) e->reals[e->nr++] = (double)(x);
#define INT(x) e->ints[e->ni++] = (long long)(x);
#define TRUE(x) e->ints[e->ni++] = 1;

static void math_values(struct values *e)
{
#include "libc/math.values"
}
static void cmath_values(struct values *e)
{
#include "libc/cmath.values"
}
static void stdint_values(struct values *e)
{
#include "libc/stdint.values"
}
static void cstdint_values(struct values *e)
{
#include "libc/cstdint.values"
}
static void limits_values(struct values *e)
{
#include "libc/limits.values"
}
static void float_values(struct values *e)
{
#include "libc/float.values"
}
static void stddef_values(struct values *e)
{
#include "libc/stddef.values"
}
static void cstddef_values(struct values *e)
{
#include "libc/cstddef.values"
}
static void stdbool_values(struct values *e)
{
#include "libc/stdbool.values"
}
static void stdlib_values(struct values *e)
{
#include "libc/stdlib.values"
}
static void cstdlib_values(struct values *e)
{
#include "libc/cstdlib.values"
}
static void string_values(struct values *e)
{
#include "libc/string.values"
}
static void cstring_values(struct values *e)
{
#include "libc/cstring.values"
}
static void stdio_values(struct values *e)
{
#include "libc/stdio.values"
}
static void cstdio_values(struct values *e)
{
#include "libc/cstdio.values"
}
static void types_values(struct values *e)
{
#include "libc/types.values"
}
static void assert_values(struct values *e)
{
#include "libc/assert.values"
}

static const struct {
    const char *file;
    void (*fill)(struct values *);
} value_lists[] = {
    {"math.values", math_values},       {"cmath.values", cmath_values},     {"stdint.values", stdint_values},
    {"cstdint.values", cstdint_values}, {"limits.values", limits_values},   {"float.values", float_values},
    {"stddef.values", stddef_values},   {"cstddef.values", cstddef_values}, {"stdbool.values", stdbool_values},
    {"stdlib.values", stdlib_values},   {"cstdlib.values", cstdlib_values}, {"string.values", string_values},
    {"cstring.values", cstring_values}, {"stdio.values", stdio_values},     {"cstdio.values", cstdio_values},
    {"types.values", types_values},     {"assert.values", assert_values},
};

/* What the kernel in `file` should write: the host's side of each
 * .values file it includes, in order.  0, or -1 naming one not known. */
static int expected_values(const char *file, struct values *e)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/%s", libc_kernel_dir(), file);
    char *text = libc_read(path);
    memset(e, 0, sizeof *e);
    int rc = 0;
    for (const char *at = text; (at = strstr(at, "#include \"")) != NULL; at++) {
        const char *name = at + strlen("#include \"");
        size_t len = strcspn(name, "\"");
        if (len < 7 || strncmp(name + len - 7, ".values", 7) != 0)
            continue;
        size_t k = 0;
        while (k < sizeof value_lists / sizeof value_lists[0] &&
               (strlen(value_lists[k].file) != len || strncmp(value_lists[k].file, name, len) != 0))
            k++;
        if (k == sizeof value_lists / sizeof value_lists[0]) {
            fprintf(stderr, "%s includes %.*s, which test_gpu_libc.c does not know\n", file, (int)len, name);
            rc = -1;
            continue;
        }
        value_lists[k].fill(e);
    }
    free(text);
    return rc;
}

static bool same_real(double a, double b)
{
    return (isnan(a) && isnan(b)) || a == b;
}

/* Runs tests/libc/<file>'s kernel and compares what it wrote. */
static void check_kernel(const char *file, cudyn_devptr ints, cudyn_devptr reals, cudyn_devptr counts)
{
    struct values want, got;
    if (expected_values(file, &want) != 0) {
        CHECK(!"a .values file the test does not know");
        return;
    }
    cudyn_program *p = NULL;
    int st = libc_compile(&p, file, 0, NULL, 0);
    if (st != CUDYN_OK)
        fprintf(stderr, "%s:\n%s\n", file, p ? cudyn_program_log(p) : "");
    CHECK_STATUS(st, CUDYN_OK);
    cudyn_module m = NULL;
    cudyn_function f = NULL;
    if (st == CUDYN_OK) {
        CHECK_STATUS(cudyn_module_load(&m, p), CUDYN_OK);
        CHECK_STATUS(cudyn_module_function(&f, m, "values"), CUDYN_OK);
    }
    int n[2] = {-1, -1};
    if (f) {
        void *args[] = {&ints, &reals, &counts};
        CHECK_STATUS(cudyn_launch(f, (cudyn_dim3){1, 1, 1}, (cudyn_dim3){1, 1, 1}, 0, NULL, args), CUDYN_OK);
        CHECK_STATUS(cudyn_synchronize(), CUDYN_OK);
        CHECK_STATUS(cudyn_memcpy_dtoh(n, counts, sizeof n), CUDYN_OK);
        /* only what the kernel wrote: the rest was never written (initcheck
           under make check-gpu-sanitize would count reading it) */
        if (n[0] >= 0 && n[0] <= MAX_VALUES && n[1] >= 0 && n[1] <= MAX_VALUES) {
            CHECK_STATUS(cudyn_memcpy_dtoh(got.ints, ints, (size_t)n[0] * sizeof got.ints[0]), CUDYN_OK);
            CHECK_STATUS(cudyn_memcpy_dtoh(got.reals, reals, (size_t)n[1] * sizeof got.reals[0]), CUDYN_OK);
        }
    }
    if (n[0] != want.ni || n[1] != want.nr) {
        fprintf(stderr, "%s: the kernel wrote %d integers and %d reals, the host expects %d and %d\n", file, n[0],
                n[1], want.ni, want.nr);
        test_failures++;
    } else {
        for (int i = 0; i < want.ni; i++)
            if (got.ints[i] != want.ints[i]) {
                fprintf(stderr, "%s: integer %d (INT or TRUE, in order) is %lld on the device, %lld on the host\n",
                        file, i, got.ints[i], want.ints[i]);
                test_failures++;
            }
        for (int i = 0; i < want.nr; i++)
            if (!same_real(got.reals[i], want.reals[i])) {
                fprintf(stderr, "%s: REAL %d is %.17g on the device, %.17g on the host\n", file, i, got.reals[i],
                        want.reals[i]);
                test_failures++;
            }
        printf("%-18s %3d integers, %3d reals as the host's C library has them\n", file, want.ni, want.nr);
    }
    if (m)
        cudyn_module_unload(m);
    cudyn_program_free(p);
}

/* In a process of its own: a failing assert stops assert_fails, and the
 * next synchronising call reports it. */
static int assert_fails(int n)
{
    struct cudyn_loader_info l;
    test_need_real_gpu(&l);
    cudyn_program *p = NULL;
    cudyn_module m = NULL;
    cudyn_function f = NULL;
    CHECK_STATUS(libc_compile(&p, "assert_h.cu", 0, NULL, 0), CUDYN_OK);
    CHECK_STATUS(cudyn_module_load(&m, p), CUDYN_OK);
    CHECK_STATUS(cudyn_module_function(&f, m, "assert_fails"), CUDYN_OK);
    void *args[] = {&n};
    CHECK_STATUS(cudyn_launch(f, (cudyn_dim3){1, 1, 1}, (cudyn_dim3){1, 1, 1}, 0, NULL, args), CUDYN_OK);
    CHECK_STATUS(cudyn_synchronize(), n < 0 ? CUDYN_OK : CUDYN_ERROR_ASSERT);
    return test_result(n < 0 ? "test_gpu_libc (an assert that holds)" : "test_gpu_libc (a failing assert)");
}

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "assert-holds") == 0)
        return assert_fails(-1);
    if (argc == 2 && strcmp(argv[1], "assert-fails") == 0)
        return assert_fails(1);
    struct cudyn_loader_info l;
    test_need_real_gpu(&l);
    cudyn_devptr ints = 0, reals = 0, counts = 0;
    CHECK_STATUS(cudyn_mem_alloc(&ints, MAX_VALUES * sizeof(long long)), CUDYN_OK);
    CHECK_STATUS(cudyn_mem_alloc(&reals, MAX_VALUES * sizeof(double)), CUDYN_OK);
    CHECK_STATUS(cudyn_mem_alloc(&counts, 2 * sizeof(int)), CUDYN_OK);
    char **files = NULL;
    int n = libc_kernels(&files);
    for (int i = 0; i < n; i++)
        check_kernel(files[i], ints, reals, counts);
    libc_kernels_free(files, n);
    cudyn_mem_free(ints);
    cudyn_mem_free(reals);
    cudyn_mem_free(counts);
    CHECK_EQ_INT(run_self(argv[0], "assert-holds"), 0);
    if (test_may_fail_on_purpose("a failing assert"))
        CHECK_EQ_INT(run_self(argv[0], "assert-fails"), 0);
    return test_result("test_gpu_libc");
}
