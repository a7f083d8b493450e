/*
 * test_libc_headers.c - the C and C++ library headers cudyn gives NVRTC
 * (lib/compile/libc_headers.c), with the real libnvrtc (skipped when none
 * is installed) and no driver: every kernel of tests/libc compiles without
 * a warning (test_gpu_libc runs them and checks their values on a GPU;
 * check-libc-nvcc.sh compiles them with nvcc); assert obeys NDEBUG at
 * each inclusion; a header of the same name in memory or on the caller's
 * include path wins, and one appearing there later is not hidden by the
 * cache; the nvcc-names header gives what nvcc gives without #include, and
 * no more; every header works inside extern "C" { }; libcu++'s headers of
 * the toolkit go with cudyn's.
 */
#include "config.h"

#include <sys/stat.h>
#include <unistd.h>

#include "cudyn.h"
#include "libc_kernels.h"
#include "testutil.h"

static char arch_option[64], ptx_option[64];

/* "--gpu-architecture=sm_XY" for the oldest architecture NVRTC builds for. */
static void choose_arch(void)
{
    typedef int (*count_fn)(int *);
    typedef int (*list_fn)(int *);
    count_fn count = (count_fn)cudyn_nvrtc_proc("nvrtcGetNumSupportedArchs");
    list_fn list = (list_fn)cudyn_nvrtc_proc("nvrtcGetSupportedArchs");
    int n = 0, archs[64], arch = 75;
    if (count && list && count(&n) == 0 && n > 0 && n <= 64 && list(archs) == 0)
        arch = archs[0];
    snprintf(arch_option, sizeof arch_option, "--gpu-architecture=sm_%d", arch);
    snprintf(ptx_option, sizeof ptx_option, "--gpu-architecture=compute_%d", arch);
}

/* Every kernel of tests/libc compiles, and its log has no warning. */
static void test_kernels(void)
{
    char **files = NULL;
    int n = libc_kernels(&files);
    const char *options[] = {arch_option};
    for (int i = 0; i < n; i++) {
        cudyn_program *p = NULL;
        int st = libc_compile(&p, files[i], CUDYN_DEVICE_NONE, options, 1);
        if (st != CUDYN_OK)
            fprintf(stderr, "%s:\n%s\n", files[i], p ? cudyn_program_log(p) : "(no log)");
        CHECK_STATUS(st, CUDYN_OK);
        if (p && strstr(cudyn_program_log(p), "warning")) {
            fprintf(stderr, "%s: warnings:\n%s\n", files[i], cudyn_program_log(p));
            CHECK(!"a kernel of tests/libc compiled with warnings");
        }
        cudyn_program_free(p);
    }
    printf("%d kernels of tests/libc compiled\n", n);
    libc_kernels_free(files, n);
}

static int compile(cudyn_program **p, const char *source, const char *const *extra, int n_extra, unsigned flags)
{
    const char *options[8] = {arch_option};
    for (int i = 0; i < n_extra && i < 7; i++)
        options[i + 1] = extra[i];
    struct cudyn_compile_args a = {.size = sizeof a, .source = source, .name = "libc.cu",
                                   .device = CUDYN_DEVICE_NONE, .options = options, .num_options = n_extra + 1,
                                   .flags = flags};
    return cudyn_compile_ex(p, &a);
}

static void expect_compiles(const char *what, const char *source, const char *const *extra, int n_extra)
{
    cudyn_program *p = NULL;
    int st = compile(&p, source, extra, n_extra, CUDYN_COMPILE_NO_CACHE);
    if (st != CUDYN_OK)
        fprintf(stderr, "%s: %s\n%s\n", what, cudyn_status_name(st), p ? cudyn_program_log(p) : "");
    CHECK_STATUS(st, CUDYN_OK);
    cudyn_program_free(p);
}

/* The compile fails, and NVRTC's log names `needle`. */
static void expect_fails(const char *what, const char *source, const char *const *extra, int n_extra,
                         const char *needle)
{
    cudyn_program *p = NULL;
    int st = compile(&p, source, extra, n_extra, CUDYN_COMPILE_NO_CACHE);
    if (st != CUDYN_ERROR_COMPILE)
        fprintf(stderr, "%s: expected a compile error\n", what);
    CHECK_STATUS(st, CUDYN_ERROR_COMPILE);
    if (p)
        CHECK_CONTAINS(cudyn_program_log(p), needle);
    cudyn_program_free(p);
}

/* assert: NDEBUG decides at each inclusion; no guard keeps the second
 * inclusion out, and <cassert> is the same. */
static void test_assert(void)
{
    static const char twice[] = "#define NDEBUG\n#include <assert.h>\n"
                                "__device__ void quiet(int n) { assert(n > 0); }\n"
                                "#undef NDEBUG\n#include <cassert>\n"
                                "extern \"C\" __global__ void loud(int n) { assert(n > 0); }\n";
    const char *options[] = {ptx_option};
    struct cudyn_compile_args a = {.size = sizeof a, .source = twice, .name = "assert.cu",
                                   .device = CUDYN_DEVICE_NONE, .options = options, .num_options = 1,
                                   .flags = CUDYN_COMPILE_NO_CACHE};
    cudyn_program *p = NULL;
    CHECK_STATUS(cudyn_compile_ex(&p, &a), CUDYN_OK);
    if (p)
        CHECK_CONTAINS(cudyn_program_ptx(p, NULL), "__assertfail"); /* the loud one */
    cudyn_program_free(p);
    static const char quiet[] = "#define NDEBUG\n#include <assert.h>\n"
                                "extern \"C\" __global__ void quiet(int n) { assert(n > 0); }\n";
    a.source = quiet;
    CHECK_STATUS(cudyn_compile_ex(&p, &a), CUDYN_OK);
    if (p)
        CHECK(strstr(cudyn_program_ptx(p, NULL), "__assertfail") == NULL);
    cudyn_program_free(p);
}

/* A header of the same name that the caller gives in memory, or that lies
 * in one of its -I directories, wins over cudyn's. */
static void test_callers_header_wins(const char *dir)
{
    static const char wants_mine[] = "#include <math.h>\n#ifndef MINE\n#error cudyn's math.h won\n#endif\n"
                                     "extern \"C\" __global__ void k(float *x) { x[0] = MINE; }\n";
    const char *names[] = {"math.h"}, *texts[] = {"#define MINE 1\n"};
    const char *options[] = {arch_option};
    struct cudyn_compile_args a = {.size = sizeof a, .source = wants_mine, .name = "mine.cu",
                                   .device = CUDYN_DEVICE_NONE, .options = options, .num_options = 1,
                                   .header_names = names, .header_sources = texts, .num_headers = 1,
                                   .flags = CUDYN_COMPILE_NO_CACHE};
    cudyn_program *p = NULL;
    CHECK_STATUS(cudyn_compile_ex(&p, &a), CUDYN_OK);
    cudyn_program_free(p);

    test_write_file(dir, "math.h", "#define MINE 2\n");
    const char *include[] = {"-I", dir};
    expect_compiles("math.h on the include path", wants_mine, include, 2);
    remove(test_path(dir, "math.h"));
    expect_fails("math.h gone again", wants_mine, include, 2, "cudyn's math.h won");
}

/* A compile through the cache that used cudyn's <math.h> (through
 * <cmath>) is not used once a math.h appears on the include path. */
static void test_cache_sees_a_new_header(const char *dir)
{
    static const char src[] = "#include <cmath>\n#ifdef FROM_DISK\n#error the file on the include path was used\n"
                              "#endif\nextern \"C\" __global__ void k(float *x) { x[0] = M_PI; }\n";
    const char *include[] = {"-I", dir};
    cudyn_program *p = NULL;
    CHECK_STATUS(compile(&p, src, include, 2, CUDYN_COMPILE_REBUILD), CUDYN_OK);
    cudyn_program_free(p);
    CHECK_STATUS(compile(&p, src, include, 2, 0), CUDYN_OK);
    CHECK(p && cudyn_program_from_cache(p));
    cudyn_program_free(p);
    test_write_file(dir, "math.h", "#define FROM_DISK 1\n");
    CHECK_STATUS(compile(&p, src, include, 2, 0), CUDYN_ERROR_COMPILE);
    if (p) {
        CHECK(!cudyn_program_from_cache(p));
        CHECK_CONTAINS(cudyn_program_log(p), "the file on the include path was used");
    }
    cudyn_program_free(p);
    remove(test_path(dir, "math.h"));
}

/* What nvcc gives device code with no #include, with the option; without
 * it, NVRTC's own names only. */
static void test_nvcc_names(void)
{
    static const char bare[] = "extern \"C\" __global__ void k(float *x, uint *u)\n{\n"
                               "    x[0] = M_PI + INFINITY + INT_MAX + std::sqrt(x[1]) + EXIT_SUCCESS + CHAR_BIT;\n"
                               "    ushort s = 1; ulong l = 2; int32_t i = 3; u[0] = s + l + i + sizeof(size_t);\n"
                               "    void *p = malloc(8); memset(p, 0, 8); free(p);\n}\n";
    const char *nvcc[] = {CUDYN_OPTION_NVCC_NAMES};
    expect_fails("no option", bare, NULL, 0, "uint");
    expect_compiles("nvcc names", bare, nvcc, 1);
    /* nvcc does not give these without their #include, nor does the option */
    expect_fails("uint32_t", "extern \"C\" __global__ void k(uint32_t *x) { }\n", nvcc, 1, "uint32_t");
    expect_fails("FLT_MAX", "extern \"C\" __global__ void k(float *x) { x[0] = FLT_MAX; }\n", nvcc, 1, "FLT_MAX");
    expect_compiles("nvcc names, included too",
                    "#include <math.h>\n#include <stdint.h>\n#include <sys/types.h>\n"
                    "extern \"C\" __global__ void k(uint32_t *x) { uint u = 1; x[0] = u + M_PI; }\n",
                    nvcc, 1);
}

/* Every header inside extern "C" { }, where PyCUDA's SourceModule puts a
 * kernel's #include lines: the C++ functions keep C++ linkage. */
static void test_inside_extern_c(void)
{
    static const char src[] = "extern \"C\" {\n#include <math.h>\n#include <cmath>\n#include <stdint.h>\n"
                              "#include <cstdint>\n#include <limits.h>\n#include <climits>\n#include <float.h>\n"
                              "#include <cfloat>\n#include <stddef.h>\n#include <cstddef>\n#include <stdbool.h>\n"
                              "#include <stdlib.h>\n#include <cstdlib>\n#include <string.h>\n#include <cstring>\n"
                              "#include <assert.h>\n#include <cassert>\n#include <sys/types.h>\n#include <stdio.h>\n"
                              "#include <cstdio>\n#include <cudyn/nvcc.h>\n"
                              "__global__ void k(float *x) { x[0] = fpclassify(x[1]) + std::fabs(x[2]) + isless(1.0, 2.0); }\n"
                              "}\n";
    expect_compiles("inside extern \"C\"", src, NULL, 0);
}

/* The toolkit's libcu++ defines some of the same names under NVRTC: cudyn's
 * headers go with it, in either order, and after it without a warning. */
static void test_with_libcudacxx(void)
{
    static const char theirs_first[] = "#include <cuda/std/cstdint>\n#include <cuda/std/climits>\n"
                                       "#include <cuda/std/cmath>\n#include <stdint.h>\n#include <limits.h>\n"
                                       "#include <cmath>\n#include <cstddef>\n"
                                       "extern \"C\" __global__ void k(int64_t *x) { x[0] = INT64_MAX - INT_MAX; }\n";
    cudyn_program *p = NULL;
    int st = compile(&p, theirs_first, NULL, 0, CUDYN_COMPILE_NO_CACHE);
    if (st == CUDYN_ERROR_COMPILE && p && strstr(cudyn_program_log(p), "cuda/std/cstdint")) {
        printf("no <cuda/std/cstdint> beside NVRTC: libcu++ not tried\n");
        cudyn_program_free(p);
        return;
    }
    CHECK_STATUS(st, CUDYN_OK);
    if (p && strstr(cudyn_program_log(p), "warning")) {
        fprintf(stderr, "%s\n", cudyn_program_log(p));
        CHECK(!"warnings with libcu++'s headers first");
    }
    cudyn_program_free(p);
    expect_compiles("cudyn's first", "#include <stdint.h>\n#include <cmath>\n#include <cuda/std/cstdint>\n"
                                     "extern \"C\" __global__ void k(int64_t *x) { x[0] = INT64_MAX; }\n",
                    NULL, 0);
}

int main(void)
{
    struct cudyn_loader_info l = {.size = sizeof l};
    cudyn_loader_info_ex(&l, CUDYN_LOAD_NVRTC);
    if (l.nvrtc_status == CUDYN_ERROR_NVRTC_NOT_FOUND || (l.nvrtc_path && strstr(l.nvrtc_path, "tests/mock")))
        TEST_SKIP("no real libnvrtc on this machine");
    CHECK_STATUS(l.nvrtc_status, CUDYN_OK);
    choose_arch();
    char dir[512];
    snprintf(dir, sizeof dir, "%s/test_libc_headers.%ld", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp",
             (long)getpid());
    mkdir(dir, 0700);
    test_kernels();
    test_assert();
    test_callers_header_wins(dir);
    test_cache_sees_a_new_header(dir);
    test_nvcc_names();
    test_inside_extern_c();
    test_with_libcudacxx();
    rmdir(dir);
    return test_result("test_libc_headers");
}
