/*
 * test_gpu_link.c - device linking on a GPU (skipped without one, and
 * without a real NVRTC): a kernel calling a __device__ function of another
 * source, both compiled with -rdc=true, linked by nvJitLink and by the
 * driver's linker, runs and computes; LTO-IR linked with -lto runs; a
 * kernel launching kernels (dynamic parallelism), linked with the
 * toolkit's libcudadevrt.a by each linker, runs.  Each result is checked.
 */
#include "config.h"

#include <stdbool.h>

#include "cudyn.h"
#include "testutil.h"

static const char callee_src[] = "extern \"C\" __device__ int twice(int x) { return 2 * x; }\n";
static const char caller_src[] = "extern \"C\" __device__ int twice(int x);\n"
                                 "extern \"C\" __global__ void k(int *x) { x[threadIdx.x] = twice(x[threadIdx.x]) + 1; }\n";
static const char cdp_src[] = "extern \"C\" __global__ void child(int *x, int base) { x[threadIdx.x] = base + threadIdx.x; }\n"
                              "extern \"C\" __global__ void parent(int *x) { child<<<1, 32>>>(x + 32 * threadIdx.x, 100 * threadIdx.x); }\n";

static cudyn_program *compile_rdc(const char *src, const char *name, const char *extra)
{
    const char *options[] = {"-rdc=true", extra};
    cudyn_program *p = NULL;
    int st = cudyn_compile(&p, src, name, 0, options, extra ? 2 : 1);
    if (st != CUDYN_OK)
        fprintf(stderr, "%s: %s\n", name, p ? cudyn_program_log(p) : "");
    CHECK_STATUS(st, CUDYN_OK);
    return p;
}

/* Loads the linker's image and runs `kernel` on 32 ints (in: i), one
 * block of `threads`; returns the values in out. */
static bool run(cudyn_linker *l, const char *kernel, unsigned int threads, int *out, size_t n)
{
    const void *image = NULL;
    size_t bytes = 0;
    int st = cudyn_link_complete(l, &image, &bytes);
    if (st != CUDYN_OK)
        fprintf(stderr, "%s: %s\n", cudyn_link_backend(l), cudyn_link_log(l));
    CHECK_STATUS(st, CUDYN_OK);
    cudyn_module m = NULL;
    cudyn_function f = NULL;
    if (st == CUDYN_OK)
        CHECK_STATUS(cudyn_module_load_image_sized(&m, image, bytes), CUDYN_OK);
    if (m)
        CHECK_STATUS(cudyn_module_function(&f, m, kernel), CUDYN_OK);
    cudyn_devptr d = 0;
    for (size_t i = 0; i < n; i++)
        out[i] = (int)i;
    bool ran = false;
    if (f && cudyn_mem_alloc(&d, n * sizeof *out) == CUDYN_OK) {
        CHECK_STATUS(cudyn_memcpy_htod(d, out, n * sizeof *out), CUDYN_OK);
        void *args[] = {&d};
        ran = cudyn_launch(f, (cudyn_dim3){1, 1, 1}, (cudyn_dim3){threads, 1, 1}, 0, NULL, args) == CUDYN_OK &&
              cudyn_synchronize() == CUDYN_OK && cudyn_memcpy_dtoh(out, d, n * sizeof *out) == CUDYN_OK;
        CHECK(ran);
        cudyn_mem_free(d);
    }
    if (m)
        cudyn_module_unload(m);
    return ran;
}

/* Links, runs caller_src's k on x[i] = i (32 threads) and
 * checks it wrote twice(i) + 1. */
static void run_caller(cudyn_linker *l, const char *what)
{
    int out[32];
    if (run(l, "k", 32, out, 32)) {
        int wrong = 0;
        for (int i = 0; i < 32; i++)
            wrong += out[i] != 2 * i + 1;
        CHECK_EQ_INT(wrong, 0);
        printf("%s: %s: %s\n", cudyn_link_backend(l), what, wrong ? "WRONG" : "right");
    }
}

static void separate_units(unsigned int flags)
{
    cudyn_program *callee = compile_rdc(callee_src, "callee.cu", NULL), *caller = compile_rdc(caller_src, "caller.cu", NULL);
    cudyn_linker *l = NULL;
    CHECK_STATUS(cudyn_link_create(&l, 0, NULL, 0, flags), CUDYN_OK);
    if (l && callee && caller) {
        CHECK_STATUS(cudyn_link_add_program(l, caller), CUDYN_OK);
        CHECK_STATUS(cudyn_link_add_program(l, callee), CUDYN_OK);
        run_caller(l, "two relocatable units linked and run");
    }
    cudyn_link_destroy(l);
    cudyn_program_free(callee);
    cudyn_program_free(caller);
}

static void dynamic_parallelism(unsigned int flags)
{
    if (!test_may_launch_from_device())
        return;
    struct cudyn_toolkit_info t = {.size = sizeof t};
    cudyn_toolkit_info(&t);
    cudyn_program *p = compile_rdc(cdp_src, "cdp.cu", NULL);
    cudyn_linker *l = NULL;
    int st = cudyn_link_create(&l, 0, NULL, 0, flags | CUDYN_LINK_DEVRT);
    if (!t.cudadevrt) {
        CHECK_STATUS(st, CUDYN_ERROR_NOT_FOUND);
        printf("no libcudadevrt.a here: dynamic parallelism not run\n");
    } else if (st == CUDYN_OK && p) {
        CHECK_STATUS(cudyn_link_add_program(l, p), CUDYN_OK);
        int out[4 * 32];
        if (run(l, "parent", 4, out, 4 * 32)) {
            int wrong = 0;
            for (int t2 = 0; t2 < 4; t2++)
                for (int i = 0; i < 32; i++)
                    wrong += out[32 * t2 + i] != 100 * t2 + i;
            CHECK_EQ_INT(wrong, 0);
            printf("%s: a kernel launched 4 kernels (with %s): %s\n", cudyn_link_backend(l), t.cudadevrt,
                   wrong ? "WRONG" : "right");
        }
    } else {
        CHECK_STATUS(st, CUDYN_OK);
    }
    cudyn_link_destroy(l);
    cudyn_program_free(p);
}

static void link_time_optimisation(int cc)
{
    char arch[48];
    snprintf(arch, sizeof arch, "-arch=sm_%d", cc);
    size_t n1 = 0, n2 = 0;
    unsigned char *a = test_ltoir_of(callee_src, arch, &n1), *b = test_ltoir_of(caller_src, arch, &n2);
    cudyn_linker *l = NULL;
    const char *lto[] = {"-lto"};
    if (a && b && cudyn_link_create(&l, 0, lto, 1, CUDYN_LINK_NEED_NVJITLINK) == CUDYN_OK) {
        CHECK_STATUS(cudyn_link_add_data(l, CUDYN_LINK_AUTO, a, n1, "callee.ltoir"), CUDYN_OK);
        CHECK_STATUS(cudyn_link_add_data(l, CUDYN_LINK_AUTO, b, n2, "caller.ltoir"), CUDYN_OK);
        run_caller(l, "LTO-IR linked with -lto and run");
    } else {
        printf("LTO not tried (NVRTC made no LTO-IR for sm_%d, or no nvJitLink)\n", cc);
    }
    cudyn_link_destroy(l);
    free(a);
    free(b);
}

int main(void)
{
    struct cudyn_loader_info l;
    test_need_real_gpu(&l);
    if (l.nvrtc_status != CUDYN_OK)
        TEST_SKIP("no NVRTC to compile the relocatable units");
    struct cudyn_device_info d = {.size = sizeof d};
    CHECK_STATUS(cudyn_device_info(0, &d), CUDYN_OK);
    struct cudyn_toolkit_info t = {.size = sizeof t};
    cudyn_toolkit_info(&t);
    if (t.nvjitlink_status == CUDYN_OK) {
        separate_units(CUDYN_LINK_NEED_NVJITLINK);
        dynamic_parallelism(CUDYN_LINK_NEED_NVJITLINK);
        link_time_optimisation(d.cc_major * 10 + d.cc_minor);
    } else {
        printf("no nvJitLink: only the driver's linker tried\n");
    }
    separate_units(CUDYN_LINK_USE_DRIVER);
    dynamic_parallelism(CUDYN_LINK_USE_DRIVER);
    return test_result("test_gpu_link");
}
