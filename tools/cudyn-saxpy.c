/*
 * cudyn-saxpy - the cuda-python documentation's SAXPY as an end-to-end check
 * of a GPU stack: compile with NVRTC (cached), load, copy, launch, verify
 * exactly on non-constant inputs, with per-phase timings and bandwidths.
 *
 * Exit codes: those of cudainfo (0 ok, 2 usage, 3 no driver library,
 * 4 cuInit failed, 5 no device, 6 device not found), plus 1 wrong result,
 * 8 CUDA error during the run, 9 timeout.
 */
#include "config.h"

#include <getopt.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cudyn.h"
#include "device_select.h"
#include "json.h"

enum exit_code {
    EXIT_PASS = 0,
    EXIT_WRONG = 1,
    EXIT_USAGE = 2,
    EXIT_NO_DRIVER = 3,
    EXIT_INIT_FAILED = 4,
    EXIT_NO_DEVICES = 5,
    EXIT_DEVICE_NOT_FOUND = 6,
    EXIT_CUDA_ERROR = 8,
    EXIT_TIMEOUT = 9,
};

/* The kernel: float4 loads and stores, a grid-stride loop sized to fill the
 * device, and a scalar tail.  --naive runs the documentation's kernel, one
 * element per thread, for comparison. */
static const char kernel_source[] =
    "extern \"C\" __global__ void saxpy(float a, const float *__restrict__ x, const float *__restrict__ y,\n"
    "                                   float *__restrict__ out, size_t n)\n"
    "{\n"
    "    size_t stride = (size_t)gridDim.x * blockDim.x;\n"
    "    size_t first = (size_t)blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    size_t n4 = n / 4;\n"
    "    const float4 *x4 = (const float4 *)x, *y4 = (const float4 *)y;\n"
    "    float4 *out4 = (float4 *)out;\n"
    "    for (size_t i = first; i < n4; i += stride) {\n"
    "        float4 xv = x4[i], yv = y4[i];\n"
    "        out4[i] = make_float4(a * xv.x + yv.x, a * xv.y + yv.y, a * xv.z + yv.z, a * xv.w + yv.w);\n"
    "    }\n"
    "    for (size_t i = 4 * n4 + first; i < n; i += stride)\n"
    "        out[i] = a * x[i] + y[i];\n"
    "}\n"
    "extern \"C\" __global__ void saxpy_naive(float a, float *x, float *y, float *out, size_t n)\n"
    "{\n"
    "    size_t tid = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (tid < n) {\n"
    "        out[tid] = a * x[tid] + y[tid];\n"
    "    }\n"
    "}\n";

#define MAX_PHASES 16

struct options {
    const char *device; /* NULL: 0 */
    size_t n;
    int iters;
    bool pinned, naive, json, quiet;
    double timeout_s;
};

struct phase {
    const char *name;
    int status;       /* cudyn_status */
    double ms;
    bool wrong;       /* ran, but the result is wrong */
    char note[160];
    char error[1024];
};

struct device_run {
    int ordinal;
    struct cudyn_device_info info;
    struct phase phases[MAX_PHASES];
    int n_phases;
    int exit_code;
    /* verification */
    size_t checked, mismatches, first_bad;
    float expected, actual;
    bool verified;
    /* bandwidths */
    double h2d_gbps, d2h_gbps, copy_gbps, kernel_gbps, kernel_ms;
    bool from_cache;
    char target[32];
};

/* ------------------------------------------------------------ watchdog */

static _Atomic(const char *) current_phase = "start";
static atomic_bool finished;
static struct options *watch_opts;

static void *watchdog(void *arg)
{
    double seconds = *(double *)arg;
    struct timespec ts = {(time_t)seconds, (long)((seconds - (time_t)seconds) * 1e9)};
    nanosleep(&ts, NULL);
    if (atomic_load(&finished))
        return NULL;
    const char *phase = atomic_load(&current_phase);
    if (watch_opts->json)
        printf("{\"schema\":\"cudyn-saxpy/1\",\"result\":{\"exit_code\":%d,\"status\":\"FAIL\",\"message\":"
               "\"timed out after %g s in phase %s\"}}\n",
               EXIT_TIMEOUT, seconds, phase);
    else
        printf("cudyn-saxpy: timed out after %g s in phase '%s'\nResult = FAIL\n", seconds, phase);
    fflush(stdout);
    _exit(EXIT_TIMEOUT); /* the stuck call cannot be interrupted */
}

/* ----------------------------------------------------------- utilities */

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* Milliseconds since the process started (kernel start time, 10 ms steps). */
static double process_age_ms(void)
{
    FILE *f = fopen("/proc/self/stat", "r");
    unsigned long long start_ticks = 0;
    if (f) {
        char buf[1024];
        size_t n = fread(buf, 1, sizeof buf - 1, f);
        buf[n] = '\0';
        fclose(f);
        const char *p = strrchr(buf, ')'); /* the command name may hold spaces */
        for (int field = 2; p && field < 22; field++)
            p = strchr(p + 1, ' ');
        if (p)
            start_ticks = strtoull(p + 1, NULL, 10);
    }
    struct timespec boot;
    clock_gettime(CLOCK_BOOTTIME, &boot);
    long hz = sysconf(_SC_CLK_TCK);
    if (!start_ticks || hz <= 0)
        return -1;
    return (boot.tv_sec + boot.tv_nsec / 1e9 - (double)start_ticks / hz) * 1e3;
}

static int cmp_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return x < y ? -1 : x > y;
}

static double trace_us(const char *trace, const char *key)
{
    const char *p = trace ? strstr(trace, key) : NULL;
    return p ? atof(p + strlen(key)) : 0;
}

/* Records a phase; returns its status. */
static int phase_end(struct device_run *run, const char *name, int status, double t0, const char *fmt, ...)
{
    struct phase *p = &run->phases[run->n_phases < MAX_PHASES ? run->n_phases++ : MAX_PHASES - 1];
    p->name = name;
    p->status = status;
    p->ms = now_ms() - t0;
    p->note[0] = p->error[0] = '\0';
    if (fmt) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(p->note, sizeof p->note, fmt, ap);
        va_end(ap);
    }
    if (status != CUDYN_OK) {
        cudyn_error e = {.size = sizeof e};
        cudyn_last_error(&e);
        snprintf(p->error, sizeof p->error, "%s", e.message);
    }
    return status;
}

#define PHASE(run, label, call, ...)                                                  \
    do {                                                                              \
        atomic_store(&current_phase, label);                                          \
        double t0_ = now_ms();                                                        \
        if (phase_end(run, label, (call), t0_, __VA_ARGS__) != CUDYN_OK) {            \
            run->exit_code = EXIT_CUDA_ERROR;                                         \
            goto cleanup;                                                             \
        }                                                                             \
    } while (0)

/* Median milliseconds of iters runs of op, each between two events. */
typedef int (*timed_op)(const void *ctx);

static int median_event_ms(timed_op op, const void *ctx, int iters, double *ms)
{
    cudyn_event a = NULL, b = NULL;
    float *samples = calloc((size_t)iters, sizeof *samples);
    int st = samples ? cudyn_event_create(&a, 0) : CUDYN_ERROR_OUT_OF_MEMORY;
    if (st == CUDYN_OK)
        st = cudyn_event_create(&b, 0);
    for (int i = 0; i < iters && st == CUDYN_OK; i++) {
        st = cudyn_event_record(a, NULL);
        if (st == CUDYN_OK)
            st = op(ctx);
        if (st == CUDYN_OK)
            st = cudyn_event_record(b, NULL);
        if (st == CUDYN_OK)
            st = cudyn_event_synchronize(b);
        if (st == CUDYN_OK)
            st = cudyn_event_elapsed_ms(&samples[i], a, b);
    }
    if (st == CUDYN_OK) {
        qsort(samples, (size_t)iters, sizeof *samples, cmp_float);
        *ms = samples[iters / 2];
    }
    if (a)
        cudyn_event_destroy(a);
    if (b)
        cudyn_event_destroy(b);
    free(samples);
    return st;
}

struct kernel_op {
    cudyn_function f;
    cudyn_dim3 grid, block;
    void **args;
};

static int run_kernel(const void *ctx)
{
    const struct kernel_op *k = ctx;
    return cudyn_launch(k->f, k->grid, k->block, 0, NULL, k->args);
}

struct copy_op {
    cudyn_devptr dst, src;
    size_t bytes;
};

static int run_copy(const void *ctx)
{
    const struct copy_op *c = ctx;
    return cudyn_memcpy_dtod_async(c->dst, c->src, c->bytes, NULL);
}

/* ------------------------------------------------------------- the run */

struct buffers {
    float *hx, *hy, *hout;
    cudyn_devptr dx, dy, dout;
    bool pinned;
};

static int load_kernel(const cudyn_program *prog, bool naive, cudyn_module *mod, cudyn_function *f)
{
    int st = cudyn_module_load(mod, prog);
    if (st == CUDYN_OK)
        st = cudyn_module_function(f, *mod, naive ? "saxpy_naive" : "saxpy");
    return st;
}

/* Host vectors (pinned or pageable) and device vectors; the output is
 * poisoned with NaN so an element the kernel never writes cannot pass. */
static int allocate(struct buffers *b, size_t n)
{
    size_t bytes = n * sizeof(float);
    int st = CUDYN_OK;
    if (b->pinned) {
        st = cudyn_host_alloc((void **)&b->hx, bytes);
        if (st == CUDYN_OK)
            st = cudyn_host_alloc((void **)&b->hy, bytes);
        if (st == CUDYN_OK)
            st = cudyn_host_alloc((void **)&b->hout, bytes);
    } else if (!(b->hx = malloc(bytes)) || !(b->hy = malloc(bytes)) || !(b->hout = malloc(bytes))) {
        st = CUDYN_ERROR_OUT_OF_MEMORY;
    }
    if (st == CUDYN_OK)
        st = cudyn_mem_alloc(&b->dx, bytes);
    if (st == CUDYN_OK)
        st = cudyn_mem_alloc(&b->dy, bytes);
    if (st == CUDYN_OK)
        st = cudyn_mem_alloc(&b->dout, bytes);
    if (st == CUDYN_OK)
        st = cudyn_memset_d32(b->dout, 0xFFFFFFFFu, n);
    return st;
}

static int free_buffers(struct buffers *b)
{
    int st = CUDYN_OK, r;
    cudyn_devptr d[3] = {b->dx, b->dy, b->dout};
    for (int i = 0; i < 3; i++)
        if (d[i] && (r = cudyn_mem_free(d[i])) != CUDYN_OK)
            st = r;
    float *h[3] = {b->hx, b->hy, b->hout};
    for (int i = 0; i < 3; i++)
        if (b->pinned)
            cudyn_host_free(h[i]);
        else
            free(h[i]);
    return st;
}

static int copy_in(const struct buffers *b, size_t bytes)
{
    int st = cudyn_memcpy_htod(b->dx, b->hx, bytes);
    if (st == CUDYN_OK)
        st = cudyn_memcpy_htod(b->dy, b->hy, bytes);
    return st;
}

static void run_device(struct device_run *run, const struct options *opt)
{
    const size_t n = opt->n, bytes = n * sizeof(float);
    struct buffers b = {.pinned = opt->pinned};
    cudyn_program *prog = NULL;
    cudyn_module mod = NULL;
    cudyn_function f = NULL;
    run->exit_code = EXIT_PASS;

    PHASE(run, "context", cudyn_device_use(run->ordinal), NULL);
    PHASE(run, "compile", cudyn_compile(&prog, kernel_source, "saxpy.cu", run->ordinal, NULL, 0), NULL);
    run->from_cache = cudyn_program_from_cache(prog);
    snprintf(run->target, sizeof run->target, "%s", cudyn_program_target(prog));
    snprintf(run->phases[run->n_phases - 1].note, sizeof run->phases[0].note, "cache %s, %s",
             run->from_cache ? "hit" : "miss", run->target);
    PHASE(run, "module load", load_kernel(prog, opt->naive, &mod, &f), NULL);
    PHASE(run, "allocate", allocate(&b, n), "3 x %.1f MiB, host %s", bytes / 1048576.0,
          opt->pinned ? "pinned" : "pageable");
    /* x[i] = i mod 1024, y[i] = i mod 37: exact in float32, not constant */
    for (size_t i = 0, mx = 0, my = 0; i < n; i++) {
        b.hx[i] = (float)mx;
        b.hy[i] = (float)my;
        mx = mx == 1023 ? 0 : mx + 1;
        my = my == 36 ? 0 : my + 1;
    }
    double t0 = now_ms();
    PHASE(run, "host-to-device", copy_in(&b, bytes), NULL);
    run->h2d_gbps = 2.0 * bytes / ((now_ms() - t0) * 1e6);
    snprintf(run->phases[run->n_phases - 1].note, sizeof run->phases[0].note, "%.1f GB/s", run->h2d_gbps);

    /* the grid-stride kernel gets a grid that fills the device; the
     * documentation's kernel one thread per element */
    int blocks_per_sm = 0;
    if (cudyn_occupancy_max_blocks(&blocks_per_sm, f, 256, 0) != CUDYN_OK || blocks_per_sm <= 0)
        blocks_per_sm = 4;
    cudyn_dim3 grid = {opt->naive ? (unsigned)((n + 511) / 512) : (unsigned)(run->info.multiprocessors * blocks_per_sm),
                       1, 1};
    cudyn_dim3 block = {opt->naive ? 512u : 256u, 1, 1};
    float a = 2.0f;
    size_t count = n;
    void *args[] = {&a, &b.dx, &b.dy, &b.dout, &count};
    PHASE(run, "launch", cudyn_launch(f, grid, block, 0, NULL, args), "%u x %u threads", grid.x, block.x);
    PHASE(run, "synchronize", cudyn_synchronize(), NULL);
    t0 = now_ms();
    PHASE(run, "device-to-host", cudyn_memcpy_dtoh(b.hout, b.dout, bytes), NULL);
    run->d2h_gbps = bytes / ((now_ms() - t0) * 1e6);
    snprintf(run->phases[run->n_phases - 1].note, sizeof run->phases[0].note, "%.1f GB/s", run->d2h_gbps);

    t0 = now_ms();
    atomic_store(&current_phase, "verify");
    run->verified = true;
    for (size_t i = 0; i < n; i++) {
        float want = a * b.hx[i] + b.hy[i];
        if (b.hout[i] != want && run->mismatches++ == 0) {
            run->first_bad = i;
            run->expected = want;
            run->actual = b.hout[i];
        }
    }
    run->checked = n;
    if (run->mismatches) {
        phase_end(run, "verify", CUDYN_OK, t0, "%zu of %zu wrong, first at [%zu]: expected %g, got %g",
                  run->mismatches, n, run->first_bad, run->expected, run->actual);
        run->phases[run->n_phases - 1].wrong = true;
        run->exit_code = EXIT_WRONG;
    } else {
        phase_end(run, "verify", CUDYN_OK, t0, "%zu exact", n);
    }

    /* bandwidths: the kernel (12 n bytes) against a device-to-device copy */
    if (opt->iters > 0 && run->exit_code == EXIT_PASS) {
        atomic_store(&current_phase, "timing");
        t0 = now_ms();
        struct kernel_op kernel = {f, grid, block, args};
        struct copy_op copy = {b.dout, b.dx, bytes};
        double copy_ms = 0;
        int st = median_event_ms(run_kernel, &kernel, opt->iters, &run->kernel_ms);
        if (st == CUDYN_OK)
            st = median_event_ms(run_copy, &copy, opt->iters, &copy_ms);
        /* bytes moved: a kernel reads x and y and writes out (12 n); a copy
         * reads and writes its bytes once each */
        run->kernel_gbps = run->kernel_ms > 0 ? 12.0 * n / (run->kernel_ms * 1e6) : 0;
        run->copy_gbps = copy_ms > 0 ? 2.0 * bytes / (copy_ms * 1e6) : 0;
        if (phase_end(run, "timing", st, t0, "%d iterations", opt->iters) != CUDYN_OK)
            run->exit_code = EXIT_CUDA_ERROR;
    }

cleanup:
    t0 = now_ms();
    atomic_store(&current_phase, "free");
    int st = free_buffers(&b), r;
    if (mod && (r = cudyn_module_unload(mod)) != CUDYN_OK)
        st = r;
    cudyn_program_free(prog);
    if (phase_end(run, "free", st, t0, NULL) != CUDYN_OK && run->exit_code == EXIT_PASS)
        run->exit_code = EXIT_CUDA_ERROR;
}

/* -------------------------------------------------------------- output */

static const char *status_word(const struct phase *p)
{
    return p->status != CUDYN_OK ? "FAILED" : p->wrong ? "WRONG" : "ok";
}

static void print_run(const struct device_run *run, const struct options *opt)
{
    printf("Device %d: %s (sm_%d%d, %d SMs, %s)\n", run->ordinal, run->info.name, run->info.cc_major,
           run->info.cc_minor, run->info.multiprocessors, run->info.pci_bus_id);
    for (int i = 0; i < run->n_phases; i++) {
        const struct phase *p = &run->phases[i];
        printf("  %-16s %-6s %9.3f ms%s%s%s\n", p->name, status_word(p), p->ms, p->note[0] ? "  (" : "",
               p->note, p->note[0] ? ")" : "");
        if (p->status != CUDYN_OK)
            printf("    %s\n", p->error);
    }
    if (run->kernel_ms > 0)
        printf("Kernel (%s): %.4f ms median of %d, %.0f GB/s; device-to-device copy %.0f GB/s: %.1f %%\n",
               opt->naive ? "documentation's" : "vectorised grid-stride", run->kernel_ms, opt->iters,
               run->kernel_gbps, run->copy_gbps, run->copy_gbps > 0 ? 100.0 * run->kernel_gbps / run->copy_gbps : 0);
}

static void json_run(struct json *j, const struct device_run *run, const struct options *opt)
{
    json_object_begin(j, NULL);
    json_int(j, "ordinal", run->ordinal);
    json_string(j, "name", run->info.name);
    json_string(j, "uuid", run->info.uuid_string[0] ? run->info.uuid_string : NULL);
    json_string(j, "target", run->target[0] ? run->target : NULL);
    json_bool(j, "cache_hit", run->from_cache);
    json_array_begin(j, "phases");
    for (int i = 0; i < run->n_phases; i++) {
        const struct phase *p = &run->phases[i];
        json_object_begin(j, NULL);
        json_string(j, "name", p->name);
        json_string(j, "status", p->wrong ? "WRONG" : cudyn_status_name(p->status));
        json_double(j, "ms", p->ms);
        json_string(j, "note", p->note[0] ? p->note : NULL);
        json_string(j, "error", p->status != CUDYN_OK ? p->error : NULL);
        json_object_end(j);
    }
    json_array_end(j);
    json_object_begin(j, "verify");
    json_bool(j, "done", run->verified);
    json_uint(j, "checked", run->checked);
    json_uint(j, "mismatches", run->mismatches);
    if (run->mismatches) {
        json_uint(j, "first_bad_index", run->first_bad);
        json_double(j, "expected", run->expected);
        json_double(j, "actual", run->actual);
    } else {
        json_null(j, "first_bad_index");
    }
    json_object_end(j);
    json_object_begin(j, "bandwidth");
    json_string(j, "host_memory", opt->pinned ? "pinned" : "pageable");
    json_double(j, "host_to_device_gbps", run->h2d_gbps);
    json_double(j, "device_to_host_gbps", run->d2h_gbps);
    if (run->kernel_ms > 0) {
        json_string(j, "kernel", opt->naive ? "naive" : "vectorised");
        json_int(j, "iterations", opt->iters);
        json_double(j, "kernel_ms_median", run->kernel_ms);
        json_double(j, "kernel_gbps", run->kernel_gbps);
        json_double(j, "device_to_device_copy_gbps", run->copy_gbps);
        json_double(j, "kernel_fraction_of_copy", run->copy_gbps > 0 ? run->kernel_gbps / run->copy_gbps : 0);
    }
    json_object_end(j);
    json_int(j, "exit_code", run->exit_code);
    json_object_end(j);
}

static void usage(FILE *out)
{
    fprintf(out,
            "Usage: cudyn-saxpy [OPTION]...\n"
            "Run SAXPY (out = a*x + y) on the GPU as an end-to-end check: compile with NVRTC,\n"
            "load, copy, launch, verify exactly, and time each phase.\n\n"
            "  -d, --device SEL   ordinal, UUID (or unique prefix), PCI bus id, or 'all' (default 0)\n"
            "  -n ELEMS           number of floats (default 16777216 = 512 x 32768)\n"
            "      --iters K      kernel and copy timings: median of K runs (default 20; 0: none)\n"
            "      --pinned       page-locked host memory (the default)\n"
            "      --pageable     ordinary host memory\n"
            "      --naive        the documentation's kernel, one element per thread\n"
            "      --timeout SEC  give up after SEC seconds, naming the phase (default 60)\n"
            "      --json         one JSON document (schema cudyn-saxpy/1) on stdout\n"
            "  -q, --quiet        only the final Result line\n"
            "      --version      cudyn's version\n"
            "  -h, --help         this help\n\n"
            "Exit codes: 0 pass, 1 wrong result, 2 usage, 3 no driver library, 4 cuInit failed,\n"
            "5 no device, 6 device not found, 8 CUDA error during the run, 9 timeout.\n");
}

static int parse_options(int argc, char **argv, struct options *opt)
{
    enum { OPT_ITERS = 256, OPT_PINNED, OPT_PAGEABLE, OPT_NAIVE, OPT_TIMEOUT, OPT_JSON, OPT_VERSION };
    static const struct option longopts[] = {
        {"device", required_argument, NULL, 'd'},   {"iters", required_argument, NULL, OPT_ITERS},
        {"pinned", no_argument, NULL, OPT_PINNED},  {"pageable", no_argument, NULL, OPT_PAGEABLE},
        {"naive", no_argument, NULL, OPT_NAIVE},    {"timeout", required_argument, NULL, OPT_TIMEOUT},
        {"json", no_argument, NULL, OPT_JSON},      {"quiet", no_argument, NULL, 'q'},
        {"version", no_argument, NULL, OPT_VERSION}, {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    opterr = 0;
    int c;
    char *end;
    while ((c = getopt_long(argc, argv, ":d:n:qh", longopts, NULL)) != -1) {
        switch (c) {
        case 'd': opt->device = optarg; break;
        case 'n': {
            unsigned long long v = strtoull(optarg, &end, 10);
            if (!optarg[0] || *end || v == 0 || v > (1ull << 32) || optarg[0] == '-')
                return -1;
            opt->n = (size_t)v;
            break;
        }
        case OPT_ITERS: {
            long v = strtol(optarg, &end, 10);
            if (!optarg[0] || *end || v < 0 || v > 100000)
                return -1;
            opt->iters = (int)v;
            break;
        }
        case OPT_PINNED: opt->pinned = true; break;
        case OPT_PAGEABLE: opt->pinned = false; break;
        case OPT_NAIVE: opt->naive = true; break;
        case OPT_TIMEOUT: {
            double v = strtod(optarg, &end);
            if (!optarg[0] || *end || v <= 0 || v > 86400)
                return -1;
            opt->timeout_s = v;
            break;
        }
        case OPT_JSON: opt->json = true; break;
        case 'q': opt->quiet = true; break;
        case OPT_VERSION: return 1;
        case 'h': return 2;
        default: return -1;
        }
    }
    return optind < argc ? -1 : 0;
}

/* A failure before any device runs: message, hint and exit code. */
struct early {
    int exit_code;
    char message[1200];
};

static void finish_output(const struct options *opt, const struct cudyn_loader_info *l, struct device_run *runs,
                          int n_runs, const struct early *early, int exit_code, double app_ms)
{
    if (opt->json) {
        struct json j;
        json_init(&j, stdout);
        json_object_begin(&j, NULL);
        json_string(&j, "schema", "cudyn-saxpy/1");
        json_string(&j, "cudyn_version", cudyn_version());
        json_object_begin(&j, "loader");
        json_string(&j, "driver_status", cudyn_status_name(l->driver_status));
        json_string(&j, "driver_path", l->driver_path);
        if (l->driver_version)
            json_int(&j, "driver_version", l->driver_version);
        else
            json_null(&j, "driver_version");
        json_string(&j, "nvrtc_path", l->nvrtc_path);
        if (l->nvrtc_version)
            json_int(&j, "nvrtc_version", l->nvrtc_version);
        else
            json_null(&j, "nvrtc_version");
        json_object_end(&j);
        json_uint(&j, "elements", opt->n);
        json_array_begin(&j, "devices");
        for (int i = 0; i < n_runs; i++)
            json_run(&j, &runs[i], opt);
        json_array_end(&j);
        json_double(&j, "application_ms", app_ms);
        json_object_begin(&j, "result");
        json_int(&j, "exit_code", exit_code);
        json_string(&j, "status", exit_code == EXIT_PASS ? "PASS" : "FAIL");
        json_string(&j, "message", early->message[0] ? early->message : NULL);
        json_object_end(&j);
        json_object_end(&j);
        json_finish(&j);
        return;
    }
    if (!opt->quiet) {
        if (early->message[0])
            fprintf(stderr, "cudyn-saxpy: %s\n", early->message);
        for (int i = 0; i < n_runs; i++)
            print_run(&runs[i], opt);
        if (app_ms >= 0)
            printf("Application time: %.0f ms (from process start)\n", app_ms);
    }
    printf("Result = %s\n", exit_code == EXIT_PASS ? "PASS" : "FAIL");
}

int main(int argc, char **argv)
{
    struct options opt = {.n = (size_t)512 * 32768, .iters = 20, .pinned = true, .timeout_s = 60};
    int parsed = parse_options(argc, argv, &opt);
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--json") == 0)
            opt.json = true;
    if (parsed == 1) {
        printf("cudyn-saxpy (cudyn) %s\n", cudyn_version());
        return EXIT_PASS;
    }
    if (parsed == 2) {
        usage(stdout);
        return EXIT_PASS;
    }
    struct cudyn_loader_info l = {.size = sizeof l};
    struct early early = {0};
    if (parsed < 0) {
        if (!opt.json)
            usage(stderr);
        snprintf(early.message, sizeof early.message, "invalid usage (see cudyn-saxpy --help)");
        finish_output(&opt, &l, NULL, 0, &early, EXIT_USAGE, -1);
        return EXIT_USAGE;
    }

    watch_opts = &opt;
    pthread_t watcher;
    pthread_create(&watcher, NULL, watchdog, &opt.timeout_s);
    pthread_detach(watcher);

    /* load driver + init: one call; the loader's trace splits the time */
    atomic_store(&current_phase, "load driver");
    double t0 = now_ms();
    int st = cudyn_init(0);
    double init_total = now_ms() - t0;
    cudyn_loader_info(&l);
    cudyn_error e = {.size = sizeof e};
    int exit_code = EXIT_PASS;
    int n_devices = 0;
    if (l.driver_status != CUDYN_OK) {
        cudyn_last_error(&e);
        exit_code = EXIT_NO_DRIVER;
    } else if (st == CUDYN_ERROR_NO_DEVICE || (st == CUDYN_OK && cudyn_device_count(&n_devices) == CUDYN_OK &&
                                               n_devices == 0)) {
        cudyn_last_error(&e);
        exit_code = EXIT_NO_DEVICES;
    } else if (st != CUDYN_OK) {
        cudyn_last_error(&e);
        exit_code = EXIT_INIT_FAILED;
    }
    if (exit_code != EXIT_PASS) {
        snprintf(early.message, sizeof early.message, "%s", e.message[0] ? e.message : "no device");
        atomic_store(&finished, true);
        finish_output(&opt, &l, NULL, 0, &early, exit_code, process_age_ms());
        return exit_code;
    }

    /* the devices to run on */
    struct device_run *runs = calloc((size_t)n_devices, sizeof *runs);
    const struct cudyn_device_info **infos = calloc((size_t)n_devices, sizeof *infos);
    if (!runs || !infos) {
        fprintf(stderr, "cudyn-saxpy: out of memory\n");
        return EXIT_CUDA_ERROR;
    }
    for (int i = 0; i < n_devices; i++) {
        runs[i].ordinal = i;
        runs[i].info.size = sizeof runs[i].info;
        infos[i] = cudyn_device_info(i, &runs[i].info) == CUDYN_OK ? &runs[i].info : NULL;
    }
    int first = 0, last = 0;
    if (opt.device && strcmp(opt.device, "all") == 0) {
        last = n_devices - 1;
    } else if (opt.device) {
        first = last = device_select(opt.device, infos, n_devices);
        if (first < 0) {
            snprintf(early.message, sizeof early.message, "device '%s' %s (%d visible)", opt.device,
                     first == DEVICE_SELECT_AMBIGUOUS ? "is ambiguous" : "not found", n_devices);
            atomic_store(&finished, true);
            finish_output(&opt, &l, NULL, 0, &early, EXIT_DEVICE_NOT_FOUND, process_age_ms());
            free(runs);
            free(infos);
            return EXIT_DEVICE_NOT_FOUND;
        }
    }

    int n_runs = 0;
    for (int d = first; d <= last; d++) {
        struct device_run *run = &runs[n_runs++];
        *run = runs[d]; /* keep its description */
        double load_ms = trace_us(l.driver_trace, "load and bind: ") / 1e3;
        double init_ms = trace_us(l.driver_trace, "cuInit: ") / 1e3;
        struct phase *p = &run->phases[run->n_phases++];
        *p = (struct phase){.name = "load driver", .status = CUDYN_OK, .ms = d == first ? load_ms : 0};
        snprintf(p->note, sizeof p->note, "CUDA %d.%d, %s", l.driver_version / 1000, l.driver_version % 1000 / 10,
                 l.driver_path);
        p = &run->phases[run->n_phases++];
        *p = (struct phase){.name = "init", .status = CUDYN_OK, .ms = d == first ? init_ms : 0};
        if (d == first && init_ms <= 0)
            p->ms = init_total;
        p = &run->phases[run->n_phases++];
        *p = (struct phase){.name = "device", .status = infos[d] ? CUDYN_OK : CUDYN_ERROR_INVALID_DEVICE};
        snprintf(p->note, sizeof p->note, "%s", run->info.name);
        if (!infos[d]) {
            run->exit_code = EXIT_CUDA_ERROR;
            continue;
        }
        run_device(run, &opt);
        if (run->exit_code != EXIT_PASS && (exit_code == EXIT_PASS || exit_code == EXIT_WRONG))
            exit_code = run->exit_code;
    }
    atomic_store(&finished, true);
    if (!opt.json && !opt.quiet)
        printf("cudyn-saxpy %s: out = a*x + y on %zu floats (%.1f MiB per vector)\n", cudyn_version(), opt.n,
               opt.n * 4 / 1048576.0);
    finish_output(&opt, &l, runs, n_runs, &early, exit_code, process_age_ms());
    free(runs);
    free(infos);
    return exit_code;
}
