/*
 * peers_c.c - the two C columns of `make bench-peers` ("direct C" and
 * "cudyn") for the rows measured inside one process: an empty-kernel
 * launch loop and a trivial call.  "Direct" calls the entry points of the
 * same libcuda cudyn loaded, taken with dlsym by their exported names;
 * "cudyn" calls the library.  The two run in alternating rounds, so drift
 * affects both alike.  bench/peers.py runs it and reads its output: one
 * "key<TAB>value" line per fact.
 *
 * Like bench, it measures the real driver where there is a GPU, else it
 * runs itself again on the mock driver named by MOCK_LIBCUDA (and says
 * so with mock=1: the numbers are then cudyn's own cost only).
 *
 * Usage: peers_c [--launches N] [--calls N] [--rounds R]
 */
#include "config.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_util.h"
#include "cudyn.h"

typedef unsigned int (*launch_fn)(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                                  unsigned bz, unsigned shared, void *stream, void **params, void **extra);
typedef unsigned int (*stream_query_fn)(void *stream);
typedef unsigned int (*synchronize_fn)(void);

static const char empty_source[] = "extern \"C\" __global__ void empty() {}\n";
/* What the mock driver loads without NVRTC. */
static const char mock_image[] = ".version 8.0\n.visible .entry empty(\n)\n{\n}\n";
static const cudyn_dim3 one = {1, 1, 1};

static int fail(const char *what)
{
    cudyn_error e = {.size = sizeof e};
    cudyn_last_error(&e);
    printf("error\t%s: %s\n", what, e.message);
    return 1;
}

/* One value per line; tabs or newlines in strings would break the format. */
static void put(const char *key, const char *value)
{
    printf("%s\t", key);
    for (const char *c = value ? value : ""; *c; c++)
        putchar(*c == '\t' || *c == '\n' ? ' ' : *c);
    putchar('\n');
}

struct direct {
    launch_fn launch;
    stream_query_fn query;
    synchronize_fn synchronize;
    void *f; /* the CUfunction of the cudyn kernel */
};

enum { MAX_ROUNDS = 101 };

/* Per launch, in microseconds: `launches` launches of the empty kernel on
 * the default stream and one synchronisation, the whole timed, as a
 * program launching many small kernels sees it (once the driver's queue is
 * full, launches wait for the GPU). */
static void launch_loop(const struct direct *d, cudyn_function f, int launches, int rounds)
{
    double direct[MAX_ROUNDS], lib[MAX_ROUNDS];
    for (int r = 0; r < rounds; r++)
        for (int side = 0; side < 2; side++) {
            int use_cudyn = (side + r) % 2 == 0;
            double t0 = now_ns();
            if (use_cudyn) {
                for (int i = 0; i < launches; i++)
                    cudyn_launch(f, one, one, 0, NULL, NULL);
                cudyn_synchronize();
            } else {
                for (int i = 0; i < launches; i++)
                    d->launch(d->f, 1, 1, 1, 1, 1, 1, 0, NULL, NULL, NULL);
                d->synchronize();
            }
            (use_cudyn ? lib : direct)[r] = (now_ns() - t0) / launches / 1e3;
        }
    printf("launch_us.direct\t%.4f\nlaunch_us.cudyn\t%.4f\n", median(direct, rounds), median(lib, rounds));
}

/* Per call, in nanoseconds: a query of the idle default stream, which asks
 * the driver but gives the GPU no work. */
static void trivial_call(const struct direct *d, int calls, int rounds)
{
    double direct[MAX_ROUNDS], lib[MAX_ROUNDS];
    for (int r = 0; r < rounds; r++)
        for (int side = 0; side < 2; side++) {
            int use_cudyn = (side + r) % 2 == 0;
            double t0 = now_ns();
            if (use_cudyn)
                for (int i = 0; i < calls; i++)
                    cudyn_stream_query(NULL);
            else
                for (int i = 0; i < calls; i++)
                    d->query(NULL);
            (use_cudyn ? lib : direct)[r] = (now_ns() - t0) / calls;
        }
    printf("call_ns.direct\t%.2f\ncall_ns.cudyn\t%.2f\n", median(direct, rounds), median(lib, rounds));
}

/* Kernels from expressions on 2^24 floats, beside CuPy's ElementwiseKernel
 * and ReductionKernel on the same data: SAXPY in place (y = a x + y) and a
 * dot product into device memory, each timed with events around one run,
 * median of 21 after a warm-up.  Not on the mock: it cannot time kernels. */
#define EXPR_ELEMENTS ((size_t)1 << 24)
#define EXPR_RUNS 21

struct expr_work {
    cudyn_elementwise *saxpy;
    cudyn_reduction *dot;
    cudyn_devptr x, y, result;
};

static int run_saxpy(void *ctx)
{
    struct expr_work *w = ctx;
    return cudyn_elementwise_launch(w->saxpy, EXPR_ELEMENTS, NULL, 2.0f, w->x, w->y);
}

static int run_dot(void *ctx)
{
    struct expr_work *w = ctx;
    return cudyn_reduction_run(w->dot, NULL, w->result, EXPR_ELEMENTS, NULL, w->x, w->y);
}

static void expressions(void)
{
    struct expr_work w = {0};
    size_t bytes = EXPR_ELEMENTS * sizeof(float);
    float *host = malloc(bytes);
    int st = host ? CUDYN_OK : CUDYN_ERROR_OUT_OF_MEMORY;
    for (size_t i = 0; host && i < EXPR_ELEMENTS; i++) /* as bench/peers.py's CuPy worker makes them */
        host[i] = (float)(i % 1024 + 1);
    if (st == CUDYN_OK)
        st = cudyn_elementwise_create(&w.saxpy, "float a, const float *x, float *y", "y[i] = a * x[i] + y[i]",
                                      "saxpy", NULL);
    if (st == CUDYN_OK)
        st = cudyn_reduction_create(&w.dot, "float", "0", "a + b", "x[i] * y[i]", "const float *x, const float *y",
                                    "dot", NULL);
    if (st == CUDYN_OK)
        st = cudyn_mem_alloc(&w.x, bytes);
    if (st == CUDYN_OK)
        st = cudyn_mem_alloc(&w.y, bytes);
    if (st == CUDYN_OK)
        st = cudyn_mem_alloc(&w.result, sizeof(float));
    if (st == CUDYN_OK)
        st = cudyn_memcpy_htod(w.x, host, bytes);
    if (st == CUDYN_OK)
        st = cudyn_memcpy_htod(w.y, host, bytes);
    if (st == CUDYN_OK) /* warm up: the modules load */
        st = run_saxpy(&w);
    if (st == CUDYN_OK)
        st = run_dot(&w);
    double saxpy_ms = st == CUDYN_OK ? event_median_ms(EXPR_RUNS, run_saxpy, &w) : -1;
    double dot_ms = st == CUDYN_OK ? event_median_ms(EXPR_RUNS, run_dot, &w) : -1;
    if (saxpy_ms >= 0 && dot_ms >= 0) {
        printf("elementwise_us.cudyn\t%.2f\nreduction_us.cudyn\t%.2f\n", saxpy_ms * 1e3, dot_ms * 1e3);
    } else {
        cudyn_error e = {.size = sizeof e};
        cudyn_last_error(&e);
        printf("expressions_error\t%s\n", e.message);
    }
    cudyn_mem_free(w.x);
    cudyn_mem_free(w.y);
    cudyn_mem_free(w.result);
    cudyn_elementwise_free(w.saxpy);
    cudyn_reduction_free(w.dot);
    free(host);
}

static int positive(const char *text, int max)
{
    char *end;
    long v = strtol(text, &end, 10);
    return *end || v < 1 || v > max ? -1 : (int)v;
}

int main(int argc, char **argv)
{
    int launches = 100000, calls = 100000, rounds = 7;
    for (int i = 1; i < argc; i++) {
        int *what = strcmp(argv[i], "--launches") == 0 ? &launches
                    : strcmp(argv[i], "--calls") == 0  ? &calls
                    : strcmp(argv[i], "--rounds") == 0 ? &rounds
                                                        : NULL;
        if (!what || i + 1 == argc || (*what = positive(argv[++i], what == &rounds ? MAX_ROUNDS : 100000000)) < 0) {
            fprintf(stderr, "usage: peers_c [--launches N] [--calls N] [--rounds R (at most %d)]\n", MAX_ROUNDS);
            return 2;
        }
    }
    int n = 0;
    if (cudyn_device_count(&n) != CUDYN_OK || n == 0) {
        const char *mock = getenv("MOCK_LIBCUDA");
        if (mock && !getenv("CUDYN_LIBCUDA")) {
            setenv("CUDYN_LIBCUDA", mock, 1);
            execv("/proc/self/exe", argv);
        }
        return fail("no GPU");
    }
    struct cudyn_loader_info l = {.size = sizeof l};
    cudyn_loader_info(&l);
    struct cudyn_device_info dev = {.size = sizeof dev};
    if (cudyn_device_info(0, &dev) != CUDYN_OK)
        return fail("device 0");
    int mock = strstr(l.driver_path, "mock") != NULL;
    char text[64];
    put("cudyn_version", cudyn_version());
    put("driver_path", l.driver_path);
    snprintf(text, sizeof text, "%d", l.driver_version);
    put("driver_version", text);
    put("nvrtc_path", l.nvrtc_status == CUDYN_OK ? l.nvrtc_path : "");
    put("device", dev.name);
    snprintf(text, sizeof text, "%d.%d", dev.cc_major, dev.cc_minor);
    put("compute_capability", text);
    put("mock", mock ? "1" : "0");

    struct direct d = {0};
    void *drv = dlopen(l.driver_path, RTLD_NOW | RTLD_NOLOAD);
    if (drv) {
        d.launch = (launch_fn)dlsym(drv, "cuLaunchKernel");
        d.query = (stream_query_fn)dlsym(drv, "cuStreamQuery"); /* the legacy default stream, as cudyn's */
        d.synchronize = (synchronize_fn)dlsym(drv, "cuCtxSynchronize");
    }
    if (!d.launch || !d.query || !d.synchronize) {
        printf("error\tcannot reach cuLaunchKernel, cuStreamQuery and cuCtxSynchronize in %s\n", l.driver_path);
        return 1;
    }
    cudyn_module mod = NULL;
    cudyn_function f = NULL;
    int st = mock ? cudyn_module_load_image(&mod, mock_image) : cudyn_module_load_source(&mod, empty_source, NULL, 0);
    if (st != CUDYN_OK || cudyn_module_function(&f, mod, "empty") != CUDYN_OK)
        return fail("the empty kernel");
    d.f = cudyn_function_native(f);
    for (int i = 0; i < 1000; i++) /* warm up: the first launches set things up */
        if (cudyn_launch(f, one, one, 0, NULL, NULL) != CUDYN_OK)
            return fail("cudyn_launch");
    if (cudyn_synchronize() != CUDYN_OK)
        return fail("cudyn_synchronize");
    launch_loop(&d, f, launches, rounds);
    trivial_call(&d, calls, rounds);
    if (!mock)
        expressions();
    printf("launches\t%d\ncalls\t%d\nrounds\t%d\n", launches, calls, rounds);
    cudyn_module_unload(mod);
    return 0;
}
