/*
 * bench.c - `make bench`: cudyn's overhead against the same work done by
 * direct calls into the same libcuda, in one run.  On a machine with a GPU
 * it measures the real driver; elsewhere it re-runs itself on the mock
 * driver, whose numbers show cudyn's own cost only (ratios, not GPU times).
 *
 * Targets (the brief): a trivial call <= 1.05x direct; cudyn_launch of an
 * empty kernel <= direct + 50 ns; cudyn_launchf <= direct + 150 ns and a
 * reused argument pack <= direct + 50 ns (the same kernel launched by a
 * direct cuLaunchKernel); load + resolve everything <= 1 ms; warm-cache
 * cudyn_module_load_source <= 0.3 ms, in this process and in a fresh one
 * (which must not load NVRTC); elementwise SAXPY and the reduction's dot
 * product on 2^24 floats >= 95 % and 85 % of a device-to-device copy's
 * bandwidth (GPU only); a 16 MiB halo from device 0 into another
 * process's buffer on device 1 through CUDA IPC >= 80 % of
 * cudyn_memcpy_dtod with peer access (two GPUs), against staging through
 * pinned host memory; examples/mpi_stencil's 2-GPU weak-scaling efficiency
 * >= 90 % by the IPC path, beside the staged and NCCL paths (when make
 * bench finds mpirun); examples/allreduce's bus bandwidth from 8 B to
 * 256 MiB and its 8-byte time on 2 GPUs (torch.distributed's are in make
 * bench-peers, bench/peers_nccl.py).  Without
 * targets: empty-kernel launches one by one against the same launches
 * replayed from a CUDA graph, a copy from device 1 to device 0 without and
 * with peer access, and the time to open an IPC handle.
 */
#include "config.h"

#include <dlfcn.h>
#include <limits.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench_util.h"
#include "cudyn.h"

typedef unsigned int (*stream_query_fn)(void *stream);
typedef unsigned int (*launch_fn)(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                                  unsigned bz, unsigned shared, void *stream, void **params, void **extra);

static const char empty_source[] =
    "extern \"C\" __global__ void empty() {}\n"
    "extern \"C\" __global__ void five(float a, const float *x, const float *y, float *out, size_t n) {}\n";
static const char mock_image[] = ".version 8.0\n.visible .entry empty(\n)\n{\n}\n"
                                 ".visible .entry five(.param .f32 a, .param .u64 x, .param .u64 y, .param .u64 out,"
                                 " .param .u64 n)\n{\n}\n";

/* Median per-launch cost of `launch` and `direct` over alternating rounds
 * of LAUNCHES calls, each round drained outside the timed region. */
enum { LAUNCHES = 100, LAUNCH_ROUNDS = 301 };
typedef void (*launch_body)(int use_cudyn, void *ctx);

/* Per round, the difference cudyn - direct; the median difference and the
 * middle half of the differences show whether it stands out of the noise. */
static void report_pair(const char *what, double *c, double *d, int rounds, double target_ns)
{
    double diff[rounds];
    for (int r = 0; r < rounds; r++)
        diff[r] = c[r] - d[r];
    qsort(diff, (size_t)rounds, sizeof diff[0], cmp_double);
    printf("%-44s %9.1f ns %9.1f ns %+8.1f ns   (middle half %+.0f..%+.0f; target <= +%.0f ns)\n", what,
           median(c, rounds), median(d, rounds), diff[rounds / 2], diff[rounds / 4], diff[3 * rounds / 4], target_ns);
}

static void compare_launches(const char *what, launch_body body, void *ctx, double target_ns)
{
    double lc[LAUNCH_ROUNDS], ld[LAUNCH_ROUNDS];
    for (int r = 0; r < LAUNCH_ROUNDS; r++)
        for (int side = 0; side < 2; side++) {
            int use_cudyn = (side + r) % 2 == 0; /* alternate who goes first */
            double t0 = now_ns();
            for (int i = 0; i < LAUNCHES; i++)
                body(use_cudyn, ctx);
            (use_cudyn ? lc : ld)[r] = (now_ns() - t0) / LAUNCHES;
            cudyn_synchronize();
        }
    report_pair(what, lc, ld, LAUNCH_ROUNDS, target_ns);
}

struct launch_ctx {
    cudyn_function f;
    launch_fn direct;
    cudyn_args *pack;
    void **params;
    float a;
    cudyn_devptr x, y, out;
    size_t n;
};

static const cudyn_dim3 one = {1, 1, 1};

static void body_launch(int use_cudyn, void *p)
{
    struct launch_ctx *c = p;
    if (use_cudyn)
        cudyn_launch(c->f, one, one, 0, NULL, NULL);
    else
        c->direct((void *)c->f, 1, 1, 1, 1, 1, 1, 0, NULL, NULL, NULL);
}

static void body_launchf(int use_cudyn, void *p)
{
    struct launch_ctx *c = p;
    if (use_cudyn)
        cudyn_launchf(c->f, one, one, 0, NULL, "fpppz", c->a, c->x, c->y, c->out, c->n);
    else
        c->direct((void *)c->f, 1, 1, 1, 1, 1, 1, 0, NULL, c->params, NULL);
}

static void body_pack(int use_cudyn, void *p)
{
    struct launch_ctx *c = p;
    if (use_cudyn)
        cudyn_args_launch(c->pack, one, one, 0, NULL);
    else
        c->direct((void *)c->f, 1, 1, 1, 1, 1, 1, 0, NULL, c->params, NULL);
}

/* The last error's message, for rows that cannot run. */
static const char *last_message(void)
{
    static cudyn_error e;
    e.size = sizeof e;
    cudyn_last_error(&e);
    return e.message;
}

/* ---- kernels from expressions against a device-to-device copy ---- */

typedef unsigned int (*copy_fn)(cudyn_devptr dst, cudyn_devptr src, size_t bytes, void *stream);

struct expr_bench {
    cudyn_elementwise *saxpy;
    cudyn_reduction *dot;
    copy_fn copy; /* cuMemcpyDtoDAsync, called directly */
    cudyn_devptr x, y, copy_dst, result;
    size_t n;
};

/* Each time is the median of EXPR_RUNS runs, timed with events
 * (event_median_ms) around one of these. */
#define EXPR_RUNS 21

static int run_copy(void *p)
{
    struct expr_bench *b = p;
    /* a direct driver call: a CUresult, not a cudyn status */
    return b->copy(b->copy_dst, b->x, b->n * sizeof(float), NULL) == 0 ? CUDYN_OK : CUDYN_ERROR_DRIVER;
}

static int run_saxpy(void *p)
{
    struct expr_bench *b = p;
    return cudyn_elementwise_launch(b->saxpy, b->n, NULL, 2.0f, b->x, b->y);
}

static int run_dot(void *p)
{
    struct expr_bench *b = p;
    return cudyn_reduction_run(b->dot, NULL, b->result, b->n, NULL, b->x, b->y);
}

/* One row: the kernel's bandwidth (bytes it moves per run) against the
 * copy's (its bytes read and written), as the brief's targets count them;
 * ms or copy_gbps below 0: a run failed. */
static void expr_row(const char *what, double bytes, double ms, double copy_gbps, double target)
{
    if (ms < 0 || copy_gbps < 0) { /* a direct call leaves no last error */
        printf("%-44s skipped: %s\n", what, copy_gbps < 0 ? "the direct cuMemcpyDtoDAsync failed" : last_message());
        return;
    }
    double gbps = bytes / (ms * 1e6);
    printf("%-44s %7.0f GB/s %7.0f GB/s %9.1f%%   (%.3f ms; target >= %.0f%% of the copy)\n", what, gbps, copy_gbps,
           100 * gbps / copy_gbps, ms, target);
}

/* Elementwise SAXPY (y = a x + y: reads x and y, writes y) on 2^24 and
 * 2^28 floats and the dot product of 2^24 floats (reads x and y), generated
 * from expressions, against a device-to-device copy of one vector made by
 * a direct driver call: "cudyn" is the kernel, "direct" the copy. */
static void bench_expressions(void)
{
    struct expr_bench b = {0};
    b.copy = (copy_fn)cudyn_driver_proc("cuMemcpyDtoDAsync", 3020);
    if (!b.copy || cudyn_elementwise_create(&b.saxpy, "float a, const float *x, float *y", "y[i] = a * x[i] + y[i]",
                                            "saxpy", NULL) != CUDYN_OK ||
        cudyn_reduction_create(&b.dot, "float", "0", "a + b", "x[i] * y[i]", "const float *x, const float *y", "dot",
                               NULL) != CUDYN_OK) {
        cudyn_error e = {.size = sizeof e};
        cudyn_last_error(&e);
        printf("expression benchmarks skipped: %s\n", e.message);
        cudyn_elementwise_free(b.saxpy);
        return;
    }
    const int shifts[] = {24, 28};
    for (int s = 0; s < 2; s++) {
        b.n = (size_t)1 << shifts[s];
        size_t bytes = b.n * sizeof(float);
        float *host = malloc(bytes);
        int st = host && cudyn_mem_alloc(&b.x, bytes) == CUDYN_OK && cudyn_mem_alloc(&b.y, bytes) == CUDYN_OK &&
                         cudyn_mem_alloc(&b.copy_dst, bytes) == CUDYN_OK && cudyn_mem_alloc(&b.result, 4) == CUDYN_OK
                     ? CUDYN_OK
                     : CUDYN_ERROR_OUT_OF_MEMORY;
        for (size_t i = 0; st == CUDYN_OK && i < b.n; i++) /* y changes every run: every vector is stored */
            host[i] = (float)(i % 1024 + 1);
        if (st == CUDYN_OK && cudyn_memcpy_htod(b.x, host, bytes) == CUDYN_OK &&
            cudyn_memcpy_htod(b.y, host, bytes) == CUDYN_OK) {
            event_median_ms(EXPR_RUNS, run_saxpy, &b); /* warm up: first launch loads the module */
            double copy_ms = event_median_ms(EXPR_RUNS, run_copy, &b), copy_gbps = 2.0 * bytes / (copy_ms * 1e6);
            char what[64];
            snprintf(what, sizeof what, "elementwise saxpy, 2^%d floats", shifts[s]);
            expr_row(what, 3.0 * bytes, event_median_ms(EXPR_RUNS, run_saxpy, &b), copy_gbps, 95);
            if (shifts[s] == 24) {
                event_median_ms(EXPR_RUNS, run_dot, &b);
                expr_row("reduction dot product, 2^24 floats", 2.0 * bytes, event_median_ms(EXPR_RUNS, run_dot, &b),
                         copy_gbps, 85);
            }
        } else {
            printf("elementwise saxpy, 2^%d floats: no memory for three vectors\n", shifts[s]);
        }
        cudyn_mem_free(b.x);
        cudyn_mem_free(b.y);
        cudyn_mem_free(b.copy_dst);
        cudyn_mem_free(b.result);
        b.x = b.y = b.copy_dst = b.result = 0;
        free(host);
    }
    cudyn_elementwise_free(b.saxpy);
    cudyn_reduction_free(b.dot);
}

/* ---- empty kernels one by one against the same kernels in a graph ---- */

/* GRAPH_KERNELS launches of the empty kernel on a stream, then a stream
 * synchronisation: issued one by one with cudyn_launch, against one
 * cudyn_graph_launch of a graph that holds the same launches (captured and
 * instantiated once, outside the timing).  Both include the GPU running
 * the kernels, so this is the rate at which empty kernels get through, not
 * the host cost of one call; rounds alternate which goes first. */
static void bench_graph(cudyn_function f)
{
    enum { GRAPH_KERNELS = 1000, GRAPH_ROUNDS = 21 };
    cudyn_stream s = NULL;
    cudyn_graph g = NULL;
    cudyn_graph_exec exec = NULL;
    int st = cudyn_stream_create(&s, CUDYN_STREAM_NON_BLOCKING);
    if (st == CUDYN_OK)
        st = cudyn_stream_begin_capture(s, CUDYN_CAPTURE_GLOBAL);
    if (st == CUDYN_OK) {
        for (int k = 0; k < GRAPH_KERNELS && st == CUDYN_OK; k++)
            st = cudyn_launch(f, one, one, 0, s, NULL);
        int end = cudyn_stream_end_capture(s, &g); /* always ends the capture */
        st = st != CUDYN_OK ? st : end;
    }
    if (st == CUDYN_OK)
        st = cudyn_graph_instantiate(&exec, g, 0);
    if (st == CUDYN_OK) /* warm up both */
        st = cudyn_graph_launch(exec, s);
    for (int k = 0; k < GRAPH_KERNELS && st == CUDYN_OK; k++)
        st = cudyn_launch(f, one, one, 0, s, NULL);
    if (st == CUDYN_OK)
        st = cudyn_stream_synchronize(s);
    if (st != CUDYN_OK) {
        printf("graph benchmarks skipped: %s\n", last_message());
    } else {
        double single[GRAPH_ROUNDS], graph[GRAPH_ROUNDS], call[GRAPH_ROUNDS];
        for (int r = 0; r < GRAPH_ROUNDS; r++)
            for (int side = 0; side < 2; side++) {
                double t0 = now_ns();
                if ((side + r) % 2 == 0) {
                    for (int k = 0; k < GRAPH_KERNELS; k++)
                        cudyn_launch(f, one, one, 0, s, NULL);
                    cudyn_stream_synchronize(s);
                    single[r] = (now_ns() - t0) / GRAPH_KERNELS;
                } else {
                    cudyn_graph_launch(exec, s);
                    call[r] = now_ns() - t0;
                    cudyn_stream_synchronize(s);
                    graph[r] = (now_ns() - t0) / GRAPH_KERNELS;
                }
            }
        double us1 = median(single, GRAPH_ROUNDS) / 1e3, usg = median(graph, GRAPH_ROUNDS) / 1e3;
        printf("%-44s %9.3f us   per launch: %.2f M launches/s (%d cudyn_launch, one stream sync)\n",
               "empty kernels, launched one by one", us1, 1 / us1, GRAPH_KERNELS);
        printf("%-44s %9.3f us   per launch: %.2f M launches/s (one cudyn_graph_launch of %d, one stream sync;"
               " the call %.1f us); %.2fx the rate one by one\n",
               "the same kernels replayed from a graph", usg, 1 / usg, GRAPH_KERNELS, median(call, GRAPH_ROUNDS) / 1e3,
               us1 / usg);
    }
    cudyn_graph_exec_destroy(exec);
    cudyn_graph_destroy(g);
    cudyn_stream_destroy(s);
}

/* ---- a warm cache hit in a fresh process ---- */

/* The argument that makes bench the child of bench_fresh_process. */
#define FRESH_CHILD_ARG "--fresh-process-child"

/* 1 if a library whose path contains `name` is mapped into this process. */
static int mapped(const char *name)
{
    FILE *maps = fopen("/proc/self/maps", "r");
    char line[4096];
    int found = 0;
    while (maps && !found && fgets(line, sizeof line, maps))
        found = strstr(line, name) != NULL;
    if (maps)
        fclose(maps);
    return found;
}

/* The child: makes the context first (driver load, cuInit, primary
 * context), then times the first cudyn_module_load_source of a source the
 * parent has put in the cache, and says whether NVRTC got loaded (cudyn's
 * own view, which loads nothing, and the process's mappings).  One line:
 * status, context ms, load ms, NVRTC loaded (0 or 1). */
static int fresh_process_child(const char *source)
{
    double t0 = now_ns();
    int st = cudyn_device_use(0);
    double t1 = now_ns();
    cudyn_module mod = NULL;
    if (st == CUDYN_OK)
        st = cudyn_module_load_source(&mod, source, NULL, 0);
    double t2 = now_ns();
    struct cudyn_loader_info l = {.size = sizeof l};
    cudyn_loader_info_ex(&l, CUDYN_LOAD_NOTHING);
    int nvrtc = l.nvrtc_status == CUDYN_OK || mapped("libnvrtc");
    printf("%d %.6f %.6f %d\n", st, (t1 - t0) / 1e6, (t2 - t1) / 1e6, nvrtc);
    if (st != CUDYN_OK)
        fprintf(stderr, "bench child: %s\n", last_message());
    cudyn_module_unload(mod);
    return st == CUDYN_OK ? 0 : 1;
}

/* Runs one child on `source`; false if it could not run or said nothing. */
static bool run_fresh_child(const char *exe, const char *source, int *st, double *ctx_ms, double *load_ms,
                            int *nvrtc)
{
    extern char **environ;
    int fd[2];
    if (pipe(fd) != 0)
        return false;
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, fd[1], STDOUT_FILENO);
    posix_spawn_file_actions_addclose(&actions, fd[0]);
    posix_spawn_file_actions_addclose(&actions, fd[1]);
    char *argv[] = {(char *)exe, FRESH_CHILD_ARG, (char *)source, NULL};
    pid_t pid;
    int spawned = posix_spawn(&pid, exe, &actions, NULL, argv, environ) == 0;
    posix_spawn_file_actions_destroy(&actions);
    close(fd[1]);
    FILE *out = fdopen(fd[0], "r");
    bool got = out && fscanf(out, "%d %lf %lf %d", st, ctx_ms, load_ms, nvrtc) == 4;
    if (out)
        fclose(out);
    else
        close(fd[0]);
    int wstatus = 0;
    if (spawned)
        waitpid(pid, &wstatus, 0);
    return spawned && got;
}

/* The brief: a warm-cache hit in a fresh process costs <= 0.3 ms once the
 * context exists, and loads no NVRTC.  `source` is already in the cache
 * (CUDYN_CACHE_DIR and the rest of the environment are inherited); each
 * child is this program run again with FRESH_CHILD_ARG. */
static void bench_fresh_process(const char *source)
{
    enum { CHILDREN = 5 };
    char exe[PATH_MAX];
    ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (len <= 0) {
        printf("warm cache, fresh process: skipped (no /proc/self/exe)\n");
        return;
    }
    exe[len] = '\0';
    double load[CHILDREN], ctx[CHILDREN];
    int ran = 0, with_nvrtc = 0;
    for (int c = 0; c < CHILDREN; c++) {
        int st = -1, nvrtc = 0;
        double x = 0, l = 0;
        if (run_fresh_child(exe, source, &st, &x, &l, &nvrtc) && st == CUDYN_OK) {
            ctx[ran] = x;
            load[ran] = l;
            with_nvrtc += nvrtc;
            ran++;
        }
    }
    if (ran == 0) {
        printf("warm cache, fresh process: skipped (the child processes failed; see above)\n");
        return;
    }
    char nvrtc[32] = "no";
    if (with_nvrtc)
        snprintf(nvrtc, sizeof nvrtc, "YES (%d of %d)", with_nvrtc, ran);
    printf("%-44s %9.3f ms %12s %10s   (target <= 0.3 ms, no NVRTC; NVRTC loaded: %s)\n",
           "warm cache, fresh process", median(load, ran), "-", "-", nvrtc);
    printf("%-44s %9.1f ms   (median of %d processes; driver load, cuInit and context, before the load)\n",
           "  context first", median(ctx, ran), ran);
}

/* ---- device-to-device copies between two GPUs ---- */

struct copy_job {
    cudyn_devptr dst, src;
    size_t bytes;
};

static int run_copy_job(void *p)
{
    const struct copy_job *c = p;
    return cudyn_memcpy_dtod_async(c->dst, c->src, c->bytes, NULL);
}

/* Median GB/s of 11 copies of `bytes` from src to dst, after one to warm
 * up, queued on device 0's default stream and timed with events there. */
static double copy_gbps(cudyn_devptr dst, cudyn_devptr src, size_t bytes, const char **error)
{
    struct copy_job c = {dst, src, bytes};
    double ms = run_copy_job(&c) == CUDYN_OK ? event_median_ms(11, run_copy_job, &c) : -1;
    if (ms < 0) {
        *error = last_message();
        return 0;
    }
    return ms > 0 ? bytes / (ms * 1e6) : 0;
}

/* Bytes copied per second from device 1 to device 0 (256 MiB; 16 MiB on
 * the mock, whose devices are small): without peer access, where the driver
 * copies as it can (through host memory on most systems), and with it
 * enabled both ways (cudyn_device_enable_peer), directly over NVLink or
 * PCIe.  The thread is back on device 0 afterwards. */
static void bench_peer_copy(bool mock)
{
    const char *what = "copy device 1 -> device 0";
    int n = 0;
    if (cudyn_device_count(&n) != CUDYN_OK || n < 2) {
        printf("%-44s skipped: needs 2 GPUs, this machine has %d\n", what, n);
        return;
    }
    size_t bytes = (size_t)(mock ? 16 : 256) << 20;
    cudyn_devptr src = 0, dst = 0;
    const char *error = NULL;
    int st = cudyn_device_use(1);
    if (st == CUDYN_OK)
        st = cudyn_mem_alloc(&src, bytes);
    if (st == CUDYN_OK)
        st = cudyn_memset_d8(src, 1, bytes);
    if (st == CUDYN_OK)
        st = cudyn_synchronize();
    if (st == CUDYN_OK)
        st = cudyn_device_use(0);
    if (st == CUDYN_OK)
        st = cudyn_mem_alloc(&dst, bytes);
    if (st != CUDYN_OK)
        error = last_message();
    double staged = st == CUDYN_OK ? copy_gbps(dst, src, bytes, &error) : 0;
    if (error) {
        printf("%-44s skipped: %s\n", what, error);
    } else {
        printf("%-44s %9.1f GB/s   (%zu MiB, peer access not enabled: the driver's own path)\n", what, staged,
               bytes >> 20);
        int can01 = 0, can10 = 0;
        cudyn_device_can_access_peer(0, 1, &can01);
        cudyn_device_can_access_peer(1, 0, &can10);
        if (!can01 || !can10) {
            printf("%-44s skipped: devices 0 and 1 cannot access each other's memory\n", "  with peer access");
        } else if (cudyn_device_enable_peer(0, 1) != CUDYN_OK || cudyn_device_enable_peer(1, 0) != CUDYN_OK) {
            printf("%-44s skipped: %s\n", "  with peer access", last_message());
        } else {
            double direct = copy_gbps(dst, src, bytes, &error);
            if (error)
                printf("%-44s skipped: %s\n", "  with peer access", error);
            else
                printf("%-44s %9.1f GB/s   (cudyn_device_enable_peer both ways; %.1fx without)\n",
                       "  with peer access", direct, staged > 0 ? direct / staged : 0);
            cudyn_device_disable_peer(0, 1);
            cudyn_device_disable_peer(1, 0);
        }
    }
    cudyn_mem_free(dst);
    if (cudyn_device_use(1) == CUDYN_OK)
        cudyn_mem_free(src);
    cudyn_device_use(0);
}


/* ---- a halo between two GPUs: IPC, peer copy, staged ---- */

/* The argument that makes bench the exporting process of bench_halo. */
#define IPC_CHILD_ARG "--ipc-exporter"
#define HALO_BYTES ((size_t)16 << 20)

/* The exporter: 16 MiB on device 1, its handle to the parent, then waits
 * for the parent to be done with it. */
static int ipc_exporter(int sock)
{
    cudyn_devptr p = 0;
    cudyn_ipc_mem_handle h;
    memset(&h, 0, sizeof h);
    int st = cudyn_device_use(1);
    if (st == CUDYN_OK)
        st = cudyn_mem_alloc(&p, HALO_BYTES);
    if (st == CUDYN_OK)
        st = cudyn_ipc_mem_get_handle(&h, p);
    if (st != CUDYN_OK)
        fprintf(stderr, "bench exporter: %s\n", last_message());
    if (write(sock, &h, sizeof h) != (ssize_t)sizeof h)
        st = CUDYN_ERROR_SYSTEM;
    char done;
    if (read(sock, &done, 1) < 0) /* the parent closes the socket when done */
        st = CUDYN_ERROR_SYSTEM;
    cudyn_mem_free(p);
    return st == CUDYN_OK ? 0 : 1;
}

struct staged_job {
    cudyn_devptr dst, src;
    void *pinned;
    size_t bytes;
};

static int run_staged_job(void *p)
{
    const struct staged_job *j = p;
    int st = cudyn_memcpy_dtoh_async(j->pinned, j->src, j->bytes, NULL);
    return st == CUDYN_OK ? cudyn_memcpy_htod_async(j->dst, j->pinned, j->bytes, NULL) : st;
}

/* A 16 MiB row block from device 0 into device 1: into another process's
 * buffer opened by IPC handle (the stencil's IPC path), by
 * cudyn_memcpy_dtod between this process's buffers with peer access, and
 * staged through pinned host memory; and what opening the handle costs. */
static void bench_halo(const char *exe)
{
    const char *what = "halo 16 MiB, device 0 -> 1";
    int n = 0;
    if (cudyn_device_count(&n) != CUDYN_OK || n < 2) {
        printf("%-44s skipped: needs 2 GPUs, this machine has %d\n", what, n);
        return;
    }
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0) {
        printf("%-44s skipped: socketpair failed\n", what);
        return;
    }
    char arg[16];
    snprintf(arg, sizeof arg, "%d", sv[1]);
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        close(sv[0]); /* else the exporter never sees the parent close it */
        execl(exe, exe, IPC_CHILD_ARG, arg, (char *)NULL);
        _exit(127);
    }
    close(sv[1]);
    cudyn_ipc_mem_handle h;
    cudyn_devptr src = 0, dst = 0, mapped_dst = 0;
    void *pinned = NULL;
    const char *error = NULL;
    int st = read(sv[0], &h, sizeof h) == (ssize_t)sizeof h ? cudyn_device_use(0) : CUDYN_ERROR_SYSTEM;
    if (st == CUDYN_OK)
        st = cudyn_mem_alloc(&src, HALO_BYTES);
    if (st == CUDYN_OK)
        st = cudyn_memset_d8(src, 7, HALO_BYTES);
    enum { OPENS = 11 };
    double open_ms[OPENS];
    for (int i = 0; st == CUDYN_OK && i < OPENS; i++) {
        double t0 = now_ns();
        st = cudyn_ipc_mem_open(&mapped_dst, &h, CUDYN_IPC_LAZY_PEER_ACCESS);
        open_ms[i] = (now_ns() - t0) / 1e6;
        if (st == CUDYN_OK && i + 1 < OPENS)
            st = cudyn_ipc_mem_close(mapped_dst);
    }
    if (st != CUDYN_OK)
        error = last_message();
    double ipc = st == CUDYN_OK ? copy_gbps(mapped_dst, src, HALO_BYTES, &error) : 0;
    if (error) {
        printf("%-44s skipped: %s\n", what, error);
    } else {
        printf("%-44s %9.3f ms   (first %.3f ms; median of %d, closed in between)\n", "cudyn_ipc_mem_open",
               median(open_ms + 1, OPENS - 1), open_ms[0], OPENS - 1);
        /* staged: device 0 -> pinned -> device 1 (this process's buffer) */
        struct staged_job j = {0, src, NULL, HALO_BYTES};
        st = cudyn_host_alloc(&pinned, HALO_BYTES);
        if (st == CUDYN_OK)
            st = cudyn_device_use(1);
        if (st == CUDYN_OK)
            st = cudyn_mem_alloc(&dst, HALO_BYTES);
        if (st == CUDYN_OK)
            st = cudyn_device_use(0);
        j.dst = dst;
        j.pinned = pinned;
        double staged_ms = st == CUDYN_OK ? event_median_ms(11, run_staged_job, &j) : -1;
        double staged = staged_ms > 0 ? HALO_BYTES / (staged_ms * 1e6) : 0;
        double peer = 0;
        int can = 0;
        cudyn_device_can_access_peer(0, 1, &can);
        if (can && cudyn_device_enable_peer(0, 1) == CUDYN_OK) {
            const char *peer_error = NULL;
            peer = copy_gbps(dst, src, HALO_BYTES, &peer_error);
            cudyn_device_disable_peer(0, 1);
        }
        printf("%-44s %9.1f GB/s   (IPC-mapped buffer of another process; target >= 80 %% of peer: %.0f %%)\n",
               what, ipc, peer > 0 ? 100 * ipc / peer : 0);
        printf("%-44s %9.1f GB/s   (cudyn_memcpy_dtod, peer access enabled)\n", "  peer copy in one process", peer);
        printf("%-44s %9.1f GB/s   (through pinned host memory)\n", "  staged", staged);
        cudyn_ipc_mem_close(mapped_dst);
    }
    close(sv[0]); /* the exporter frees its buffer and exits */
    int status = 0;
    waitpid(pid, &status, 0);
    cudyn_mem_free(src);
    cudyn_host_free(pinned);
    if (dst && cudyn_device_use(1) == CUDYN_OK)
        cudyn_mem_free(dst);
    cudyn_device_use(0);
}

/* ---- examples/mpi_stencil on 1 and 2 GPUs ---- */

static void allow_mpirun_as_root(void)
{
    if (geteuid() == 0) { /* Open MPI runs as root only when told twice */
        setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 0);
        setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 0);
    }
}

/* Cells per second of one run, or 0 (the reason printed). */
static double stencil_cells(const char *mpirun, const char *stencil, int ranks, const char *path, int nx, int ny,
                            int steps)
{
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "%s -n %d %s --path=%s %d %d %d 2>&1", mpirun, ranks, stencil, path, nx, ny, steps);
    FILE *p = popen(cmd, "r");
    char line[1024];
    double cells = 0;
    while (p && fgets(line, sizeof line, p)) {
        const char *at = strstr(line, " cells/s: PASS");
        if (strncmp(line, "mpi_stencil: ", 13) == 0 && at) {
            const char *comma = at;
            while (comma > line && comma[-1] != ' ')
                comma--;
            cells = strtod(comma, NULL);
        }
    }
    if (p && pclose(p) != 0)
        cells = 0;
    return cells;
}

/* Weak scaling: 4096 x 4096 cells per GPU, 200 steps (512 x 512 and 20 on
 * the mock, which runs the kernel on the host); needs BENCH_MPIRUN and
 * BENCH_STENCIL (make bench sets them when configure found MPI).  Rank 0
 * also checks the result on the host, outside the timed steps. */
static void bench_stencil(bool mock)
{
    const char *mpirun = getenv("BENCH_MPIRUN"), *stencil = getenv("BENCH_STENCIL");
    const int side = mock ? 512 : 4096, steps = mock ? 20 : 200;
    const char *what = "stencil, cells per second";
    if (!mpirun || !*mpirun || !stencil || access(stencil, X_OK) != 0) {
        printf("%-44s skipped: no mpirun or examples/mpi_stencil (configure found no MPI)\n", what);
        return;
    }
    allow_mpirun_as_root();
    int n = 0;
    cudyn_device_count(&n);
    printf("%-44s %d x %d cells per GPU, %d steps\n", "stencil (examples/mpi_stencil)", side, side, steps);
    static const char *const paths[] = {"ipc", "staged", "nccl"};
    static const char *const labels[] = {"stencil, IPC halos", "stencil, staged halos", "stencil, NCCL halos"};
    for (int i = 0; i < 3; i++) {
        double on_one = stencil_cells(mpirun, stencil, 1, paths[i], side, side, steps);
        double on_two = n >= 2 ? stencil_cells(mpirun, stencil, 2, paths[i], side, 2 * side, steps) : 0;
        if (on_one <= 0) {
            printf("%-44s skipped: the %s run failed (%s -n 1 %s)\n", what, paths[i], mpirun, stencil);
            continue;
        }
        printf("%-44s %9.3g cells/s on 1 GPU, %.3g on 2: weak-scaling efficiency %.0f %%%s\n", labels[i], on_one,
               on_two,
               on_two > 0 ? 100 * on_two / (2 * on_one) : 0,
               i == 0 ? " (target >= 90 %)" : "");
    }
}

/* ---- examples/allreduce on 2 GPUs ---- */

static const char *size_name(size_t bytes, char *buf, size_t cap)
{
    if (bytes >= (1u << 20))
        snprintf(buf, cap, "%zu MiB", bytes >> 20);
    else if (bytes >= 1024)
        snprintf(buf, cap, "%zu KiB", bytes >> 10);
    else
        snprintf(buf, cap, "%zu B", bytes);
    return buf;
}

/* Bus bandwidth of every size from 8 B to 256 MiB (1 MiB on the mock)
 * and the time of the 8-byte one, 2 ranks, as examples/allreduce prints
 * them; NCCL_NVLS_ENABLE=0 unless set.  Needs BENCH_MPIRUN and
 * BENCH_ALLREDUCE (make bench sets them when configure found MPI). */
static void bench_allreduce(bool mock)
{
    const char *mpirun = getenv("BENCH_MPIRUN"), *prog = getenv("BENCH_ALLREDUCE");
    const char *what = "all-reduce, 2 ranks";
    int n = 0;
    cudyn_device_count(&n);
    if (!mpirun || !*mpirun || !prog || access(prog, X_OK) != 0) {
        printf("%-44s skipped: no mpirun or examples/allreduce (configure found no MPI)\n", what);
        return;
    }
    if (n < 2) {
        printf("%-44s skipped: needs 2 GPUs, this machine has %d\n", what, n);
        return;
    }
    allow_mpirun_as_root();
    setenv("NCCL_NVLS_ENABLE", "0", 0); /* never multicast on the shared machines */
    char cmd[4096], line[1024], path[256] = "?";
    snprintf(cmd, sizeof cmd, "%s -n 2 %s -b 8 -e %s -n %d 2>&1", mpirun, prog, mock ? "1M" : "256M", mock ? 2 : 20);
    FILE *p = popen(cmd, "r");
    int rows = 0, passed = 0;
    while (p && fgets(line, sizeof line, p)) {
        size_t bytes, count;
        double us, algbw, busbw;
        long wrong;
        char size[32];
        if (sscanf(line, "# path: %255[^\n]", path) == 1)
            printf("%-44s %s, NCCL_NVLS_ENABLE=%s\n", "all-reduce (examples/allreduce), 2 ranks", path,
                   getenv("NCCL_NVLS_ENABLE"));
        else if (sscanf(line, "%zu %zu float sum %lf %lf %lf %ld", &bytes, &count, &us, &algbw, &busbw, &wrong) == 6) {
            snprintf(cmd, sizeof cmd, "all-reduce %s", size_name(bytes, size, sizeof size));
            printf("%-44s %9.2f us   busbw %8.2f GB/s%s\n", cmd, us, busbw,
                   bytes == 8 ? "   (latency: no worse than torch.distributed's, make bench-peers)"
                   : bytes == 256u << 20 ? "   (target >= 98 % of torch.distributed's, make bench-peers)"
                                         : "");
            rows++;
        } else if (strncmp(line, "allreduce: ", 11) == 0 && strstr(line, ": PASS")) {
            passed = 1;
        }
    }
    if ((p && pclose(p) != 0) || !rows || !passed)
        printf("%-44s failed: %s\n", what, cmd);
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], FRESH_CHILD_ARG) == 0)
        return fresh_process_child(argv[2]);
    if (argc == 3 && strcmp(argv[1], IPC_CHILD_ARG) == 0)
        return ipc_exporter(atoi(argv[2]));
    int n = 0;
    if (cudyn_device_count(&n) != CUDYN_OK || n == 0) {
        const char *mock = getenv("MOCK_LIBCUDA");
        if (mock && !getenv("CUDYN_LIBCUDA")) {
            printf("bench: no GPU here; measuring cudyn's own overhead on the mock driver\n");
            fflush(stdout);
            setenv("CUDYN_LIBCUDA", mock, 1);
            if (getenv("MOCK_LIBNCCL")) /* and the mock NCCL, which needs the mock driver */
                setenv("CUDYN_LIBNCCL", getenv("MOCK_LIBNCCL"), 1);
            execv("/proc/self/exe", argv);
        }
        fprintf(stderr, "bench: no device\n");
        return 1;
    }
    struct cudyn_loader_info l = {.size = sizeof l};
    cudyn_loader_info(&l);
    struct cudyn_device_info d = {.size = sizeof d};
    cudyn_device_info(0, &d);
    printf("driver: %s (CUDA %d.%d), device 0: %s\n", l.driver_path, l.driver_version / 1000,
           l.driver_version % 1000 / 10, d.name);
    printf("%-44s %12s %12s %10s\n", "benchmark", "cudyn", "direct", "ratio");

    /* load + resolve (the loader times itself; cuInit is reported apart) */
    printf("%-44s %9.0f us %12s %10s   (target <= 1000 us; cuInit %.0f us)\n", "load + resolve all entry points",
           l.driver_load_ms * 1e3, "-", "-", l.init_ms * 1e3);
    printf("%-44s %9.0f us %12s %10s   (what ld.so pays for -lcuda too)\n", "  of which dlopen of libcuda",
           l.driver_dlopen_ms * 1e3, "-", "-");
    printf("%-44s %9.0f us\n", "  of which finding and binding", (l.driver_load_ms - l.driver_dlopen_ms) * 1e3);

    /* a trivial call through the table */
    void *drv = dlopen(l.driver_path, RTLD_NOW | RTLD_NOLOAD);
    stream_query_fn direct_query = (stream_query_fn)cudyn_driver_proc("cuStreamQuery", 2000);
    launch_fn direct_launch = (launch_fn)cudyn_driver_proc("cuLaunchKernel", 4000);
    if (!drv || !direct_query || !direct_launch) {
        fprintf(stderr, "bench: cannot reach the driver directly\n");
        return 1;
    }
    cudyn_stream_query(NULL); /* creates the context */
    enum { CALLS = 2000, CALL_ROUNDS = 301 };
    double qc[CALL_ROUNDS], qd[CALL_ROUNDS];
    for (int r = 0; r < CALL_ROUNDS; r++)
        for (int side = 0; side < 2; side++) {
            int use_cudyn = (side + r) % 2 == 0;
            double t0 = now_ns();
            for (int i = 0; i < CALLS; i++) {
                if (use_cudyn)
                    cudyn_stream_query(NULL);
                else
                    direct_query(NULL);
            }
            (use_cudyn ? qc : qd)[r] = (now_ns() - t0) / CALLS;
        }
    double ratio_c = 0, ratio_d = 0;
    for (int r = 0; r < CALL_ROUNDS; r++) {
        ratio_c += qc[r];
        ratio_d += qd[r];
    }
    double direct_sorted[CALL_ROUNDS]; /* median() sorts: the pairs must stay in order */
    memcpy(direct_sorted, qd, sizeof direct_sorted);
    report_pair("trivial call (stream query)", qc, qd, CALL_ROUNDS, 0.05 * median(direct_sorted, CALL_ROUNDS));
    printf("%-44s %9.3fx   (target <= 1.05x)\n", "  as a ratio of the means", ratio_c / ratio_d);

    /* launch of an empty kernel */
    cudyn_module mod = NULL;
    cudyn_function f = NULL;
    cudyn_program *prog = NULL;
    int st = strstr(l.driver_path, "mock") ? cudyn_module_load_image(&mod, mock_image)
                                           : (cudyn_compile(&prog, empty_source, "empty.cu", 0, NULL, 0) == CUDYN_OK
                                                  ? cudyn_module_load(&mod, prog)
                                                  : CUDYN_ERROR_COMPILE);
    if (st != CUDYN_OK || cudyn_module_function(&f, mod, "empty") != CUDYN_OK) {
        cudyn_error e = {.size = sizeof e};
        cudyn_last_error(&e);
        printf("launch benchmarks skipped: %s\n", e.message);
        return 0;
    }
    /* Launch cost, not GPU throughput: few enough launches per round that
     * the driver's queue never fills, drained outside the timed region. */
    for (int i = 0; i < 1000; i++) /* warm up */
        cudyn_launch(f, one, one, 0, NULL, NULL);
    cudyn_synchronize();
    struct launch_ctx ctx = {.f = f, .direct = direct_launch, .a = 2.0f, .n = 0};
    compare_launches("cudyn_launch, empty kernel", body_launch, &ctx, 50);

    cudyn_function five = NULL;
    if (cudyn_module_function(&five, mod, "five") == CUDYN_OK) {
        cudyn_mem_alloc(&ctx.x, 256);
        ctx.y = ctx.out = ctx.x;
        void *params[] = {&ctx.a, &ctx.x, &ctx.y, &ctx.out, &ctx.n};
        ctx.f = five;
        ctx.params = params;
        compare_launches("cudyn_launchf \"fpppz\", 5 parameters", body_launchf, &ctx, 150);
        cudyn_args_create(&ctx.pack, five, "fpppz");
        cudyn_args_set(ctx.pack, ctx.a, ctx.x, ctx.y, ctx.out, ctx.n);
        compare_launches("cudyn_args_launch (a reused pack)", body_pack, &ctx, 50);
        cudyn_args_free(ctx.pack);
        cudyn_mem_free(ctx.x);
    }
    bench_graph(f);

    /* compile + load through cudyn_module_load_source: cold (NVRTC, a
     * source never seen before) and warm (the persistent cache) */
    struct cudyn_loader_info info = {.size = sizeof info};
    cudyn_loader_info(&info);
    if (info.nvrtc_status == CUDYN_OK) {
        char src[256];
        snprintf(src, sizeof src, "extern \"C\" __global__ void empty() {}\n// bench %ld %.0f\n", (long)getpid(),
                 now_ns());
        cudyn_module m2 = NULL;
        double t0 = now_ns();
        int st2 = cudyn_module_load_source(&m2, src, NULL, 0);
        double cold = (now_ns() - t0) / 1e6;
        if (st2 == CUDYN_OK) {
            cudyn_module_unload(m2);
            enum { WARM_ROUNDS = 21 };
            double warm[WARM_ROUNDS];
            for (int r = 0; r < WARM_ROUNDS; r++) {
                t0 = now_ns();
                cudyn_module_load_source(&m2, src, NULL, 0);
                warm[r] = (now_ns() - t0) / 1e6;
                cudyn_module_unload(m2); /* the next call must go to the cache */
            }
            printf("%-44s %9.2f ms\n", "cudyn_module_load_source, cold NVRTC", cold);
            printf("%-44s %9.3f ms %12s %10s   (target <= 0.3 ms)\n", "cudyn_module_load_source, warm cache",
                   median(warm, WARM_ROUNDS), "-", "-");
            bench_fresh_process(src);
        }
    }
    if (info.nvrtc_status == CUDYN_OK && !strstr(l.driver_path, "mock"))
        bench_expressions();
    bench_peer_copy(strstr(l.driver_path, "mock") != NULL);
    bench_halo("/proc/self/exe");
    bench_stencil(strstr(l.driver_path, "mock") != NULL);
    bench_allreduce(strstr(l.driver_path, "mock") != NULL);
    cudyn_module_unload(mod);
    cudyn_program_free(prog);
    return 0;
}
