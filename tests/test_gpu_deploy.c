/*
 * test_gpu_deploy.c - kernels on a machine without NVRTC, on a real GPU
 * (skipped, 77, without one or without NVRTC to prepare them):
 *  - a kernel cache hit in a fresh process whose NVRTC is unreachable
 *    (CUDYN_LIBNVRTC names nothing) loads and runs SAXPY right, and no
 *    libnvrtc is mapped in that process;
 *  - images made by the cudyn-cc tool for several architectures load
 *    there and run: CUBIN for this GPU, PTX that the driver JIT-compiles,
 *    and an image with neither is CUDYN_ERROR_NO_BINARY_FOR_GPU naming the
 *    device's compute capability.
 * The children print what they measured (load times in a fresh process).
 */
#include "config.h"

#include <time.h>

#include "cachetest.h"

#define N ((size_t)1 << 20)

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

/* Runs the module's saxpy on N elements; 0 when every result is exact. */
static int run_saxpy(cudyn_module m)
{
    cudyn_function f = NULL;
    CHECK_STATUS(cudyn_module_function(&f, m, "saxpy"), CUDYN_OK);
    float *x = malloc(N * sizeof *x), *y = malloc(N * sizeof *y), *out = malloc(N * sizeof *out);
    cudyn_devptr dx = 0, dy = 0, dout = 0;
    int wrong = -1;
    if (f && x && y && out && cudyn_mem_alloc(&dx, N * 4) == CUDYN_OK && cudyn_mem_alloc(&dy, N * 4) == CUDYN_OK &&
        cudyn_mem_alloc(&dout, N * 4) == CUDYN_OK) {
        test_saxpy_inputs(x, y, N);
        CHECK_STATUS(cudyn_memcpy_htod(dx, x, N * 4), CUDYN_OK);
        CHECK_STATUS(cudyn_memcpy_htod(dy, y, N * 4), CUDYN_OK);
        CHECK_STATUS(cudyn_launchf(f, (cudyn_dim3){256, 1, 1}, (cudyn_dim3){256, 1, 1}, 0, NULL, "fpppz", 2.0, dx, dy,
                                   dout, N),
                     CUDYN_OK);
        CHECK_STATUS(cudyn_memcpy_dtoh(out, dout, N * 4), CUDYN_OK);
        wrong = 0;
        for (size_t i = 0; i < N; i++)
            wrong += out[i] != 2.0f * x[i] + y[i];
    }
    cudyn_mem_free(dx);
    cudyn_mem_free(dy);
    cudyn_mem_free(dout);
    free(x);
    free(y);
    free(out);
    return wrong;
}

static bool nvrtc_mapped(void)
{
    FILE *f = fopen("/proc/self/maps", "r");
    char line[4096];
    bool found = false;
    while (f && fgets(line, sizeof line, f))
        found = found || strstr(line, "libnvrtc") != NULL;
    if (f)
        fclose(f);
    return found;
}

/* A fresh process with NVRTC out of reach: the cached SAXPY. */
static int child_warm(void)
{
    CHECK_STATUS(cudyn_device_use(0), CUDYN_OK);
    double t0 = now_ms();
    cudyn_module m = NULL;
    CHECK_STATUS(cudyn_module_load_source(&m, test_saxpy_source, NULL, 0), CUDYN_OK);
    double ms = now_ms() - t0;
    struct cudyn_loader_info l = {.size = sizeof l};
    cudyn_loader_info(&l);
    CHECK(l.nvrtc_status != CUDYN_OK);
    CHECK(!nvrtc_mapped());
    int wrong = m ? run_saxpy(m) : -1;
    CHECK_EQ_INT(wrong, 0);
    printf("warm cache hit, fresh process, NVRTC unreachable (%s): load %.3f ms; saxpy on %zu floats: %d wrong\n",
           cudyn_status_name(l.nvrtc_status), ms, N, wrong);
    cudyn_module_unload(m);
    return test_result("test_gpu_deploy (warm)");
}

static void *read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *p = n > 0 ? malloc((size_t)n + 1) : NULL;
    if (p && fread(p, 1, (size_t)n, f) != (size_t)n) {
        free(p);
        p = NULL;
    }
    if (p)
        p[n] = '\0';
    fclose(f);
    return p;
}

/* Loads image file `name` of the test's directory and runs its saxpy. */
static void run_image(const char *name)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    void *image = read_file(path);
    CHECK(image != NULL);
    double t0 = now_ms();
    cudyn_module m = NULL;
    CHECK_STATUS(cudyn_module_load_image(&m, image), CUDYN_OK);
    double ms = now_ms() - t0;
    int wrong = m ? run_saxpy(m) : -1;
    CHECK_EQ_INT(wrong, 0);
    printf("%s: load %.3f ms; saxpy on %zu floats: %d wrong\n", name, ms, N, wrong);
    cudyn_module_unload(m);
    free(image);
}

/* A fresh process with NVRTC out of reach: the images cudyn-cc made. */
static int child_images(void)
{
    CHECK_STATUS(cudyn_device_use(0), CUDYN_OK);
    run_image("native.img"); /* CUBIN for this GPU among others */
    run_image("ptx.img");    /* only an older CUBIN and PTX: the driver JIT-compiles */
    char path[1024];
    snprintf(path, sizeof path, "%s/foreign.img", dir);
    if (test_may_fail_on_purpose("foreign.img (no code for this GPU)")) {
        void *image = read_file(path);
        cudyn_module m = NULL;
        CHECK_STATUS(cudyn_module_load_image(&m, image), CUDYN_ERROR_NO_BINARY_FOR_GPU);
        cudyn_error e = {.size = sizeof e};
        cudyn_last_error(&e);
        struct cudyn_device_info d = {.size = sizeof d};
        cudyn_device_info(0, &d);
        char cc[32];
        snprintf(cc, sizeof cc, "%d.%d", d.cc_major, d.cc_minor);
        CHECK_CONTAINS(e.message, cc);
        printf("foreign.img: %s\n", e.message);
        free(image);
    }
    CHECK(!nvrtc_mapped());
    return test_result("test_gpu_deploy (images)");
}

/* Runs cudyn-cc to make `out` for `archs` from saxpy.cu in the test's directory. */
static void cudyn_cc(const char *out, const char *archs)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "'%s/tools/cudyn-cc' -o '%s/%s' --arch %s '%s/saxpy.cu'", getenv("top_builddir"), dir,
             out, archs, dir);
    int rc = system(cmd);
    if (rc != 0)
        fprintf(stderr, "%s: exit %d\n", cmd, rc);
    CHECK_EQ_INT(rc, 0);
}

int main(int argc, char **argv)
{
    unsetenv("CUDYN_LIBCUDA");
    if (argc == 3 && strcmp(argv[1], "child") == 0) {
        snprintf(dir, sizeof dir, "%s", getenv("CUDYN_CACHE_DIR") ? getenv("CUDYN_CACHE_DIR") : ".");
        return strcmp(argv[2], "warm") == 0 ? child_warm() : child_images();
    }
    if (!getenv("top_builddir"))
        TEST_SKIP("top_builddir not set (run through make check)");
    int n = 0;
    int st = cudyn_device_count(&n);
    struct cudyn_loader_info l = {.size = sizeof l};
    cudyn_loader_info(&l);
    if (st != CUDYN_OK || n == 0 || !l.driver_path || strstr(l.driver_path, "tests/mock"))
        TEST_SKIP("no real GPU and driver on this machine");
    if (l.nvrtc_status != CUDYN_OK)
        TEST_SKIP("no NVRTC on this machine to prepare the kernels");
    use_own_cache_dir("test_gpu_deploy");

    /* fill the cache with NVRTC, then hit it without */
    cudyn_module m = NULL;
    CHECK_STATUS(cudyn_module_load_source(&m, test_saxpy_source, NULL, 0), CUDYN_OK);
    cudyn_module_unload(m);
    const char *no_nvrtc[] = {"CUDYN_LIBNVRTC", "/nonexistent/libnvrtc.so", NULL};
    CHECK_EQ_INT(run_child("warm", no_nvrtc), 0);

    /* images for this GPU's architecture and others, by the tool */
    struct cudyn_device_info d = {.size = sizeof d};
    CHECK_STATUS(cudyn_device_info(0, &d), CUDYN_OK);
    int cc = d.cc_major * 10 + d.cc_minor;
    char path[1024], archs[128];
    snprintf(path, sizeof path, "%s/saxpy.cu", dir);
    FILE *f = fopen(path, "w");
    CHECK(f && fputs(test_saxpy_source, f) >= 0);
    if (f)
        fclose(f);
    snprintf(archs, sizeof archs, "sm_75,sm_%d,compute_75", cc);
    cudyn_cc("native.img", archs);
    cudyn_cc("ptx.img", "sm_75,compute_75");
    cudyn_cc("foreign.img", cc >= 80 ? "sm_75" : "sm_120");
    CHECK_EQ_INT(run_child("images", no_nvrtc), 0);
    return test_result("test_gpu_deploy");
}
