/*
 * testutil.h - what cudyn's tests share: assertion helpers, the SAXPY
 * kernel with its inputs and a checked launch, files under a directory,
 * child processes, and the skip of tests that need a real GPU.  Tests use
 * the Automake exit-code protocol: 0 pass, 77 skip, anything else fail.
 */
#ifndef CUDYN_TESTUTIL_H
#define CUDYN_TESTUTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cudyn.h"

static int test_failures;

#define CHECK(cond)                                                                \
    do {                                                                           \
        if (!(cond)) {                                                             \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
            test_failures++;                                                       \
        }                                                                          \
    } while (0)

#define CHECK_EQ_INT(a, b)                                                                          \
    do {                                                                                            \
        long long a_ = (long long)(a), b_ = (long long)(b);                                        \
        if (a_ != b_) {                                                                             \
            fprintf(stderr, "%s:%d: CHECK failed: %s == %s (%lld vs %lld)\n", __FILE__, __LINE__, #a, #b, \
                    a_, b_);                                                                        \
            test_failures++;                                                                        \
        }                                                                                           \
    } while (0)

#define CHECK_STATUS(call, expected)                                                                    \
    do {                                                                                                \
        int got_ = (call);                                                                              \
        if (got_ != (expected)) {                                                                       \
            cudyn_error e_ = {.size = sizeof e_};                                                       \
            cudyn_last_error(&e_);                                                                      \
            fprintf(stderr, "%s:%d: %s returned %s, expected %s (last error: %s)\n", __FILE__, __LINE__, #call, \
                    cudyn_status_name(got_), cudyn_status_name(expected), e_.message);                  \
            test_failures++;                                                                            \
        }                                                                                               \
    } while (0)

#define CHECK_CONTAINS(haystack, needle)                                                                   \
    do {                                                                                                   \
        const char *h_ = (haystack);                                                                       \
        if (!h_ || !strstr(h_, (needle))) {                                                                \
            fprintf(stderr, "%s:%d: expected \"%s\" in \"%s\"\n", __FILE__, __LINE__, (needle), h_ ? h_ : "(null)"); \
            test_failures++;                                                                               \
        }                                                                                                  \
    } while (0)

#define TEST_SKIP(why)                        \
    do {                                      \
        fprintf(stderr, "SKIP: %s\n", (why)); \
        exit(77);                             \
    } while (0)

/* The cuda-python documentation's SAXPY with a grid-stride loop; the mock
 * driver runs a host version of it. */
static const char test_saxpy_source[] =
    "extern \"C\" __global__ void saxpy(float a, const float *x, const float *y, float *out, size_t n)\n"
    "{\n"
    "    for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)blockDim.x * gridDim.x)\n"
    "        out[i] = a * x[i] + y[i];\n"
    "}\n";

/* The inputs every SAXPY test uses: not constant, and exact in float, so
 * a*x+y can be compared exactly (with or without a fused multiply-add). */
static inline void test_saxpy_inputs(float *x, float *y, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        x[i] = (float)(i % 1024);
        y[i] = (float)(i % 37);
    }
}

/* Writes text to the file dir/name; a test that cannot stops there. */
static inline void test_write_file(const char *dir, const char *name, const char *text)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "cannot write %s\n", path);
        exit(1);
    }
    fputs(text, f);
    fclose(f);
}

/* dir/name, in one of eight buffers used in turn: a path stays valid for
 * the seven calls after the one that made it. */
static inline const char *test_path(const char *dir, const char *name)
{
    static char paths[8][1024];
    static int next;
    char *p = paths[next++ % 8];
    snprintf(p, sizeof paths[0], "%s/%s", dir, name);
    return p;
}

/* Launches f, a kernel of test_saxpy_source's signature, through
 * cudyn_launch on n floats (blocks of 256 threads) and checks every result
 * exactly. */
static inline void test_launch_saxpy(cudyn_function f, size_t n, unsigned int blocks)
{
    size_t bytes = n * sizeof(float);
    float *x = malloc(bytes), *y = malloc(bytes), *out = malloc(bytes);
    if (!x || !y || !out) {
        fprintf(stderr, "test_launch_saxpy: out of host memory\n");
        exit(1);
    }
    test_saxpy_inputs(x, y, n);
    cudyn_devptr dx = 0, dy = 0, dout = 0;
    CHECK_STATUS(cudyn_mem_alloc(&dx, bytes), CUDYN_OK);
    CHECK_STATUS(cudyn_mem_alloc(&dy, bytes), CUDYN_OK);
    CHECK_STATUS(cudyn_mem_alloc(&dout, bytes), CUDYN_OK);
    CHECK_STATUS(cudyn_memcpy_htod(dx, x, bytes), CUDYN_OK);
    CHECK_STATUS(cudyn_memcpy_htod(dy, y, bytes), CUDYN_OK);
    float a = 2.0f;
    void *args[] = {&a, &dx, &dy, &dout, &n};
    CHECK_STATUS(cudyn_launch(f, (cudyn_dim3){blocks, 1, 1}, (cudyn_dim3){256, 1, 1}, 0, NULL, args), CUDYN_OK);
    CHECK_STATUS(cudyn_synchronize(), CUDYN_OK);
    CHECK_STATUS(cudyn_memcpy_dtoh(out, dout, bytes), CUDYN_OK);
    size_t wrong = 0;
    for (size_t i = 0; i < n; i++)
        wrong += out[i] != a * x[i] + y[i];
    CHECK_EQ_INT(wrong, 0);
    CHECK_STATUS(cudyn_mem_free(dx), CUDYN_OK);
    CHECK_STATUS(cudyn_mem_free(dy), CUDYN_OK);
    CHECK_STATUS(cudyn_mem_free(dout), CUDYN_OK);
    free(x);
    free(y);
    free(out);
}

static inline int test_result(const char *name)
{
    if (test_failures)
        fprintf(stderr, "%s: %d check(s) failed\n", name, test_failures);
    return test_failures ? 1 : 0;
}

/* Runs this test program again with one argument, in a process of its own
 * (for a scenario that changes the process for good: a sticky fault, an
 * old driver, a fork); returns its exit code, or -1 if it did not exit. */
static inline int run_self(const char *argv0, const char *scenario)
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        execl(argv0, argv0, scenario, (char *)NULL);
        _exit(127);
    }
    int status = 0;
    if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
        return -1;
    return WEXITSTATUS(status);
}

/* Points cudyn at the mock driver (built by make check); must run before
 * the first cudyn call.  Skips when run outside the harness. */
static inline void use_mock_driver(void)
{
    const char *mock = getenv("MOCK_LIBCUDA");
    if (!mock)
        TEST_SKIP("MOCK_LIBCUDA not set (run through make check)");
    setenv("CUDYN_LIBCUDA", mock, 1);
}

/* For the tests that need a real GPU: cudyn must find a real driver (not
 * the mock) with a device, else the test skips.  Returns the device count;
 * *l gets the loader's report. */
static inline int test_need_real_gpu(struct cudyn_loader_info *l)
{
    unsetenv("CUDYN_LIBCUDA");
    int n = 0;
    int st = cudyn_device_count(&n);
    *l = (struct cudyn_loader_info){.size = sizeof *l};
    cudyn_loader_info(l);
    if (st != CUDYN_OK || n == 0 || !l->driver_path || strstr(l->driver_path, "tests/mock"))
        TEST_SKIP("no real GPU and driver on this machine");
    return n;
}

/* Whether the variable is set to something other than "" or "0". */
static inline int test_env_flag(const char *name)
{
    const char *s = getenv(name);
    return s && *s && strcmp(s, "0") != 0;
}

/* Under make check-gpu-sanitize (CUDYN_SANITIZE=1) the GPU tests leave out
 * what makes the driver fail on purpose (a faulting kernel, a launch the
 * driver refuses, an image with no code for this GPU): compute-sanitizer
 * reports every failed driver call, and those failures are the test's, not
 * cudyn's.  Returns whether `what` may run, and says when it may not. */
static inline int test_may_fail_on_purpose(const char *what)
{
    if (test_env_flag("CUDYN_SANITIZE")) {
        printf("under compute-sanitizer: %s left out (the driver would fail on purpose)\n", what);
        return 0;
    }
    return 1;
}

/* compute-sanitizer's racecheck, synccheck and initcheck do not follow a
 * kernel that launches kernels ("CUDA Dynamic Parallelism is not supported
 * by the selected tool", then errors of their own): check-gpu-sanitize.sh
 * sets CUDYN_SANITIZE_NO_CDP under those three, and a test leaves its
 * device-side launches out. */
static inline int test_may_launch_from_device(void)
{
    if (test_env_flag("CUDYN_SANITIZE_NO_CDP")) {
        printf("under a compute-sanitizer tool that does not follow dynamic parallelism: device-side launches left out\n");
        return 0;
    }
    return 1;
}

/* LTO-IR of `src` for `arch` ("-arch=sm_90") straight from NVRTC, through
 * cudyn_nvrtc_proc (cudyn_compile keeps to loadable images): malloc'd,
 * *bytes long; NULL when NVRTC makes none. */
static inline unsigned char *test_ltoir_of(const char *src, const char *arch, size_t *bytes)
{
    typedef int (*create_fn)(void **, const char *, const char *, int, const char *const *, const char *const *);
    typedef int (*compile_fn)(void *, int, const char *const *);
    typedef int (*size_fn)(void *, size_t *);
    typedef int (*get_fn)(void *, char *);
    typedef int (*destroy_fn)(void **);
    create_fn create = (create_fn)cudyn_nvrtc_proc("nvrtcCreateProgram");
    compile_fn compile = (compile_fn)cudyn_nvrtc_proc("nvrtcCompileProgram");
    size_fn get_size = (size_fn)cudyn_nvrtc_proc("nvrtcGetLTOIRSize");
    get_fn get = (get_fn)cudyn_nvrtc_proc("nvrtcGetLTOIR");
    destroy_fn destroy = (destroy_fn)cudyn_nvrtc_proc("nvrtcDestroyProgram");
    if (!create || !compile || !get_size || !get || !destroy)
        return NULL;
    void *prog = NULL;
    const char *options[] = {arch, "-rdc=true", "-dlto"};
    unsigned char *ir = NULL;
    if (create(&prog, src, "lto.cu", 0, NULL, NULL) == 0 && compile(prog, 3, options) == 0 &&
        get_size(prog, bytes) == 0 && *bytes > 0 && (ir = malloc(*bytes)) && get(prog, (char *)ir) != 0) {
        free(ir);
        ir = NULL;
    }
    destroy(&prog);
    return ir;
}

/* Runs this test program again as `argv0 mode`, in a fresh process whose
 * mock driver reports CUDA `version` and is the build named by the
 * environment variable `build` (MOCK_LIBCUDA, MOCK_LIBCUDA_V11_8 or
 * MOCK_LIBCUDA_V11_0); returns its exit status, or -1. */
static inline int test_run_child(const char *argv0, const char *mode, const char *build, const char *version)
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        const char *lib = getenv(build);
        if (lib)
            setenv("MOCK_LIBCUDA", lib, 1);
        setenv("MOCK_CUDA_VERSION", version, 1);
        execl(argv0, argv0, mode, (char *)NULL);
        _exit(99);
    }
    int status = 0;
    if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
        return -1;
    return WEXITSTATUS(status);
}

#endif
