/*
 * test_nvrtc.c - run-time compilation with the real libnvrtc (skipped when
 * none is installed), for mock devices of several compute capabilities:
 * the target follows the rule, a bad kernel returns its log, options pass
 * through, <stdio.h> (cudyn's, in memory) gives device code printf, and a
 * compiled saxpy loads and runs (on the mock's host kernel).
 */
#include "config.h"

#include <unistd.h>

#include "cudyn.h"
#include "testutil.h"

static const char broken_src[] = "extern \"C\" __global__ void broken(float *x)\n"
                                 "{\n"
                                 "    x[0] = undefined_name;\n"
                                 "}\n";

static const char option_src[] = "#if SCALE != 3\n#error SCALE was not passed\n#endif\n"
                                 "extern \"C\" __global__ void k(float *x) { x[0] = SCALE; }\n";

static int nvrtc_supports(int arch)
{
    typedef int (*count_fn)(int *);
    typedef int (*list_fn)(int *);
    count_fn count = (count_fn)cudyn_nvrtc_proc("nvrtcGetNumSupportedArchs");
    list_fn list = (list_fn)cudyn_nvrtc_proc("nvrtcGetSupportedArchs");
    int n = 0, archs[64];
    if (!count || !list || count(&n) != 0 || n > 64 || list(archs) != 0)
        return 0;
    for (int i = 0; i < n; i++)
        if (archs[i] == arch)
            return 1;
    return 0;
}

static void test_targets(void)
{
    /* devices 0..2: sm_75, sm_90, sm_89 */
    const char *expected[] = {"sm_75", "sm_90", "sm_89"};
    for (int dev = 0; dev < 3; dev++) {
        cudyn_program *p = NULL;
        CHECK_STATUS(cudyn_compile(&p, test_saxpy_source, "saxpy.cu", dev, NULL, 0), CUDYN_OK);
        if (!p)
            continue;
        int cc = dev == 0 ? 75 : dev == 1 ? 90 : 89;
        if (nvrtc_supports(cc))
            CHECK(strcmp(cudyn_program_target(p), expected[dev]) == 0);
        size_t bytes = 0;
        const unsigned char *image = cudyn_program_image(p, &bytes);
        CHECK(image && bytes > 64 && memcmp(image, "\177ELF", 4) == 0); /* a CUBIN */
        cudyn_program_free(p);
    }
    /* sm_50 is older than anything NVRTC 13 builds: a clear error */
    cudyn_program *p = NULL;
    if (!nvrtc_supports(50)) {
        CHECK_STATUS(cudyn_compile(&p, test_saxpy_source, NULL, 3, NULL, 0), CUDYN_ERROR_UNSUPPORTED_ARCH);
        CHECK(p == NULL);
        cudyn_error e = {.size = sizeof e};
        cudyn_last_error(&e);
        CHECK_CONTAINS(e.message, "5.0");
        CHECK_CONTAINS(e.message, "supports");
    }
    /* a forced PTX target wins and yields PTX text */
    const char *ptx_opts[] = {"--gpu-architecture=compute_75"};
    CHECK_STATUS(cudyn_compile(&p, test_saxpy_source, NULL, 1, ptx_opts, 1), CUDYN_OK);
    if (p) {
        CHECK(strcmp(cudyn_program_target(p), "compute_75") == 0);
        size_t n = 0;
        const char *ptx = cudyn_program_ptx(p, &n);
        CHECK(ptx && n > 0);
        CHECK_CONTAINS(ptx, ".entry saxpy");
        CHECK(cudyn_program_image(p, NULL) == (const void *)ptx);
        cudyn_program_free(p);
    }
}

static void test_compile_errors(void)
{
    cudyn_program *p = NULL;
    CHECK_STATUS(cudyn_compile(&p, broken_src, "broken.cu", 1, NULL, 0), CUDYN_ERROR_COMPILE);
    CHECK(p != NULL);
    CHECK_CONTAINS(cudyn_program_log(p), "broken.cu(3)");
    CHECK_CONTAINS(cudyn_program_log(p), "undefined_name");
    CHECK(cudyn_program_image(p, NULL) == NULL);
    cudyn_error e = {.size = sizeof e};
    cudyn_last_error(&e);
    CHECK_EQ_INT(e.origin, CUDYN_ORIGIN_NVRTC);
    CHECK(strcmp(e.native_name, "NVRTC_ERROR_COMPILATION") == 0);
    CHECK_CONTAINS(e.message, "undefined_name");
    cudyn_module m = NULL;
    CHECK_STATUS(cudyn_module_load(&m, p), CUDYN_ERROR_INVALID_ARGUMENT);
    cudyn_program_free(p);

    /* an option NVRTC does not know is an invalid argument, not a crash */
    const char *bad[] = {"--no-such-option"};
    p = NULL;
    CHECK_STATUS(cudyn_compile(&p, test_saxpy_source, NULL, 1, bad, 1), CUDYN_ERROR_INVALID_ARGUMENT);
    cudyn_program_free(p);

    /* options pass through */
    const char *define[] = {"-DSCALE=3"};
    CHECK_STATUS(cudyn_compile(&p, option_src, NULL, 1, define, 1), CUDYN_OK);
    cudyn_program_free(p);
    CHECK_STATUS(cudyn_compile(&p, option_src, NULL, 1, NULL, 0), CUDYN_ERROR_COMPILE);
    CHECK_CONTAINS(cudyn_program_log(p), "SCALE was not passed");
    cudyn_program_free(p);
}

/* The toolkit's headers next to NVRTC are found as nvcc finds them:
 * <cuda_fp16.h> in include, libcu++ in include/cccl (CUDA 13+). */
static void test_toolkit_headers(const char *nvrtc_path)
{
    char cccl[4200];
    snprintf(cccl, sizeof cccl, "%s", nvrtc_path);
    char *slash = strrchr(cccl, '/');
    if (!slash)
        return;
    snprintf(slash, sizeof cccl - (size_t)(slash - cccl), "/../include/cccl/cuda/std/limits");
    cudyn_program *p = NULL;
    if (access(cccl, R_OK) == 0) {
        static const char src[] = "#include <cuda/std/limits>\n"
                                  "extern \"C\" __global__ void k(int *x) { x[0] = cuda::std::numeric_limits<int>::max(); }\n";
        CHECK_STATUS(cudyn_compile(&p, src, "cccl.cu", 1, NULL, 0), CUDYN_OK);
        cudyn_program_free(p);
    } else {
        printf("no %s: libcu++ include not tried\n", cccl);
    }
}

/* PyCUDA's kernels include <stdio.h> (or <cstdio>) for printf: cudyn gives
 * NVRTC those headers; a caller's own header of the name wins; a header
 * cudyn does not supply is NVRTC's error as before (the other C library
 * headers: test_libc_headers). */
static void test_libc_headers(void)
{
    static const char with_stdio[] = "#include <stdio.h>\n#include <cstdio>\n"
                                     "extern \"C\" __global__ void k(int *x) { printf(\"%d\\n\", x[0]); }\n";
    /* not from the cache, which keeps no PTX for a CUBIN target */
    struct cudyn_compile_args fresh = {.size = sizeof fresh, .source = with_stdio, .name = "stdio.cu", .device = 1,
                                       .flags = CUDYN_COMPILE_NO_CACHE};
    cudyn_program *p = NULL;
    CHECK_STATUS(cudyn_compile_ex(&p, &fresh), CUDYN_OK);
    if (p)
        CHECK_CONTAINS(cudyn_program_ptx(p, NULL), "vprintf");
    cudyn_program_free(p);

    static const char wants_mine[] = "#include <stdio.h>\n#ifndef FROM_THE_CALLER\n#error cudyn's stdio.h won\n#endif\n"
                                     "extern \"C\" __global__ void k(int *x) { x[0] = FROM_THE_CALLER; }\n";
    const char *names[] = {"stdio.h"}, *texts[] = {"#define FROM_THE_CALLER 7\n"};
    struct cudyn_compile_args a = {.size = sizeof a, .source = wants_mine, .name = "mine.cu", .device = 1,
                                   .header_names = names, .header_sources = texts, .num_headers = 1};
    CHECK_STATUS(cudyn_compile_ex(&p, &a), CUDYN_OK);
    cudyn_program_free(p);

    static const char with_ctype[] = "#include <ctype.h>\nextern \"C\" __global__ void k(int *x) { }\n";
    CHECK_STATUS(cudyn_compile(&p, with_ctype, "ctype.cu", 1, NULL, 0), CUDYN_ERROR_COMPILE);
    if (p)
        CHECK_CONTAINS(cudyn_program_log(p), "ctype.h");
    cudyn_program_free(p);
}

static void test_compile_load_run(void)
{
    cudyn_program *p = NULL;
    CHECK_STATUS(cudyn_compile(&p, test_saxpy_source, "saxpy.cu", 1, NULL, 0), CUDYN_OK);
    if (!p)
        return;
    CHECK_STATUS(cudyn_device_use(1), CUDYN_OK);
    cudyn_module m = NULL;
    cudyn_function f = NULL;
    CHECK_STATUS(cudyn_module_load(&m, p), CUDYN_OK);
    CHECK_STATUS(cudyn_module_function(&f, m, "saxpy"), CUDYN_OK);
    test_launch_saxpy(f, 513, 2);
    cudyn_module_unload(m);
    cudyn_program_free(p);
}

int main(void)
{
    setenv("MOCK_CUDA_DEVICES", "Turing:75,Hopper:90,Ada:89,Maxwell:50", 1);
    use_mock_driver();
    struct cudyn_loader_info l = {.size = sizeof l};
    cudyn_loader_info(&l);
    if (l.nvrtc_status == CUDYN_ERROR_NVRTC_NOT_FOUND)
        TEST_SKIP("no libnvrtc on this machine");
    CHECK_STATUS(l.nvrtc_status, CUDYN_OK);
    CHECK(l.nvrtc_version >= 11000);
    CHECK(l.nvrtc_path && l.nvrtc_path[0] == '/');
    CHECK(nvrtc_supports(75) || nvrtc_supports(80));
    test_targets();
    test_compile_errors();
    test_libc_headers();
    test_compile_load_run();
    test_toolkit_headers(l.nvrtc_path);
    return test_result("test_nvrtc");
}
