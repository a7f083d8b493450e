/*
 * saxpy_device.c - one device's SAXPY run, on a thread of its own: the
 * context (with the kernel compiled alongside), the module, memory, the
 * copies, the launch, exact verification and the bandwidths; and what is
 * freed after the result.  Each phase is timed and recorded; the first
 * failure fails the run.
 */
#include "config.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "saxpy.h"
#include "saxpy_host.h"
#include "saxpy_stage.h"

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

/* The pinned buffer that measures host-device bandwidth, and through
 * which the pageable vectors are copied (saxpy_stage.h): large enough
 * that a copy takes far longer than its latency, small enough that
 * pinning it is cheap (pinning costs about 0.4 ms per MiB). */
#define PROBE_BYTES ((size_t)16 << 20)
/* Probe copies timed: each is ~0.3 ms on PCIe 5; a median of 5 is steady. */
#define PROBE_ITERS_MAX 5

/* ---------------------------------------------------------------- phases */

double phase_begin(struct phases *ph, const char *name)
{
    atomic_store(&ph->now, name);
    return now_ms();
}

struct phase *phase_add(struct phases *ph, const char *name, int status, double ms)
{
    struct phase *p = &ph->list[ph->n < MAX_PHASES ? ph->n++ : MAX_PHASES - 1];
    *p = (struct phase){.name = name, .status = status, .ms = ms};
    return p;
}

void phase_note(struct phases *ph, const char *fmt, ...)
{
    struct phase *p = &ph->list[ph->n - 1];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(p->note, sizeof p->note, fmt, ap);
    va_end(ap);
}

/* Phase p failed for `why` (what, and the library's hint), and so does
 * the run; its first failure is the one reported.  Returns false. */
static bool phase_fail(struct device_run *run, struct phase *p, const struct failure *why)
{
    snprintf(p->error, sizeof p->error, "%s", why->what);
    snprintf(p->hint, sizeof p->hint, "%s", why->hint);
    if (run->failure.exit_code == EXIT_OK) {
        run->failure.exit_code = EXIT_CUDA_ERROR;
        snprintf(run->failure.what, sizeof run->failure.what, "device %d failed in phase '%s': %s", run->ordinal,
                 p->name, p->error);
        snprintf(run->failure.hint, sizeof run->failure.hint, "%s", p->hint);
    }
    return false;
}

/* Ends a device phase begun at t0; a failure is `error`, or if NULL this
 * thread's last cudyn error, and fails the run.  True if it succeeded. */
static bool step_with(struct device_run *run, const char *name, int status, double t0, const cudyn_error *error)
{
    struct phase *p = phase_add(&run->phases, name, status, now_ms() - t0);
    if (status == CUDYN_OK)
        return true;
    struct failure why;
    if (error)
        failure_from_error(&why, EXIT_CUDA_ERROR, NULL, error);
    else
        failure_from_last_error(&why, EXIT_CUDA_ERROR, NULL);
    return phase_fail(run, p, &why);
}

static bool step(struct device_run *run, const char *name, int status, double t0)
{
    return step_with(run, name, status, t0, NULL);
}

/* A device phase that failed for a reason of the tool's own. */
static bool step_fail(struct device_run *run, const char *name, int status, double t0, const char *what)
{
    struct failure why;
    failure_set(&why, EXIT_CUDA_ERROR, "%s", what);
    return phase_fail(run, phase_add(&run->phases, name, status, now_ms() - t0), &why);
}

/* ------------------------------------------------------------ rendezvous */

void rendezvous_init(struct rendezvous *r, int expected)
{
    pthread_mutex_init(&r->lock, NULL);
    pthread_cond_init(&r->all_here, NULL);
    r->expected = expected;
    r->arrived = 0;
}

static void rendezvous_arrive(struct rendezvous *r)
{
    pthread_mutex_lock(&r->lock);
    r->arrived++;
    pthread_cond_broadcast(&r->all_here);
    while (r->arrived < r->expected)
        pthread_cond_wait(&r->all_here, &r->lock);
    pthread_mutex_unlock(&r->lock);
}

void rendezvous_leave(struct rendezvous *r)
{
    pthread_mutex_lock(&r->lock);
    r->expected--;
    pthread_cond_broadcast(&r->all_here);
    pthread_mutex_unlock(&r->lock);
}

/* ------------------------------------------------------------ the device */

/* What one device's run works with.  None of it is freed before the
 * result: what holds host memory is released by run_release after it, the
 * rest goes with the context (see run_release). */
struct work {
    cudyn_function f;
    cudyn_devptr dx, dy, dout;
    float *hx, *hy, *hout;
    bool pinned;
    void *probe;  /* pinned; NULL if none could be had */
    struct stage_buffer stage; /* the probe, when staged() */
    cudyn_dim3 grid, block;
    float a;
    size_t n;
};

/* Pageable vectors are copied through the probe, when there is one. */
static bool staged(const struct work *w)
{
    return w->probe && !w->pinned;
}

/* The kernel is compiled on its own thread while the device thread
 * creates the context: compiling needs only the device's attributes. */
struct compile_job {
    int ordinal;
    cudyn_program *prog;
    int status;
    double ms;
    cudyn_error error;
};

static void *compile_kernel(void *arg)
{
    struct compile_job *job = arg;
    double t0 = now_ms();
    job->status = cudyn_compile(&job->prog, kernel_source, "saxpy.cu", job->ordinal, NULL, 0);
    job->ms = now_ms() - t0;
    if (job->status != CUDYN_OK)
        cudyn_last_error(&job->error);
    return NULL;
}

static bool context_and_compile(struct device_run *run)
{
    struct compile_job job = {.ordinal = run->ordinal, .error = {.size = sizeof job.error}};
    pthread_t tid;
    bool threaded = pthread_create(&tid, NULL, compile_kernel, &job) == 0;
    double t0 = phase_begin(&run->phases, "context");
    bool ok = step(run, "context", cudyn_device_use(run->ordinal), t0);
    atomic_store(&run->phases.now, "compile");
    if (threaded)
        pthread_join(tid, NULL);
    else
        compile_kernel(&job);
    run->prog = job.prog;
    struct phase *p = phase_add(&run->phases, "compile", job.status, job.ms);
    if (job.status != CUDYN_OK) {
        struct failure why;
        failure_from_error(&why, EXIT_CUDA_ERROR, NULL, &job.error);
        return phase_fail(run, p, &why);
    }
    run->from_cache = cudyn_program_from_cache(job.prog);
    snprintf(run->target, sizeof run->target, "%s", cudyn_program_target(job.prog));
    phase_note(&run->phases, "cache %s, %s%s", run->from_cache ? "hit" : "miss", run->target,
               threaded ? "; alongside the context" : "");
    return ok;
}

static bool load_module(struct device_run *run, struct work *w, bool naive)
{
    double t0 = phase_begin(&run->phases, "module load");
    int st = cudyn_module_load(&run->mod, run->prog);
    if (st == CUDYN_OK)
        st = cudyn_module_function(&w->f, run->mod, naive ? "saxpy_naive" : "saxpy");
    return step(run, "module load", st, t0);
}

/* Device vectors (the output poisoned with NaN, so an element the kernel
 * never writes cannot pass), the pinned probe, and with --pinned the host
 * vectors too.  Pageable vectors can do without the probe: out of
 * page-locked memory for it, their copies go straight from pageable memory
 * and the host link is not probed. */
static int allocate_all(struct work *w, size_t probe_bytes)
{
    size_t bytes = w->n * sizeof(float);
    int st = cudyn_mem_alloc(&w->dx, bytes);
    if (st == CUDYN_OK)
        st = cudyn_mem_alloc(&w->dy, bytes);
    if (st == CUDYN_OK)
        st = cudyn_mem_alloc(&w->dout, bytes);
    if (st == CUDYN_OK)
        st = cudyn_memset_d32(w->dout, 0xFFFFFFFFu, w->n);
    if (st == CUDYN_OK && (st = cudyn_host_alloc(&w->probe, probe_bytes)) == CUDYN_ERROR_OUT_OF_MEMORY &&
        !w->pinned) {
        cudyn_clear_error();
        st = CUDYN_OK;
    }
    if (st == CUDYN_OK && w->pinned) {
        st = cudyn_host_alloc((void **)&w->hx, bytes);
        if (st == CUDYN_OK)
            st = cudyn_host_alloc((void **)&w->hy, bytes);
        if (st == CUDYN_OK)
            st = cudyn_host_alloc((void **)&w->hout, bytes);
    }
    return st;
}

static bool allocate(struct device_run *run, struct work *w)
{
    size_t bytes = w->n * sizeof(float);
    size_t probe_bytes = bytes < PROBE_BYTES ? bytes : PROBE_BYTES;
    double t0 = phase_begin(&run->phases, "allocate");
    if (!step(run, "allocate", allocate_all(w, probe_bytes), t0))
        return false;
    run->probe_bytes = w->probe ? probe_bytes : 0;
    if (!w->probe) {
        /* a fallback, not an error: said in words (the run still passes) */
        phase_note(&run->phases, "3 x %.1f MiB on the device, host pageable; pinned memory unavailable (the driver "
                   "is out of it): copies unstaged, host link not probed", bytes / 1048576.0);
        return true;
    }
    if (staged(w))
        stage_buffer_init(&w->stage, w->probe, run->probe_bytes);
    phase_note(&run->phases, "3 x %.1f MiB on the device, host %s; %.1f MiB pinned probe%s", bytes / 1048576.0,
               w->pinned ? "pinned" : "pageable", run->probe_bytes / 1048576.0,
               staged(w) ? ", staging the copies" : "");
    return true;
}

/* The host vectors: with --pinned generated here, else those the
 * background threads made while the driver started. */
static bool host_inputs(struct device_run *run, struct work *w)
{
    int threads = run->threads;
    double t0 = phase_begin(&run->phases, "inputs");
    if (w->pinned) {
        fill_inputs(w->hx, w->hy, w->n, threads);
        poison(w->hout, w->n, threads);
        step(run, "inputs", CUDYN_OK, t0);
        phase_note(&run->phases, "generated into pinned memory, %d threads", threads);
        return true;
    }
    struct inputs *in = run->inputs;
    if (!inputs_wait(in))
        return step_fail(run, "inputs", CUDYN_ERROR_OUT_OF_MEMORY, t0, "out of host memory for the vectors");
    w->hx = in->x;
    w->hy = in->y;
    w->hout = inputs_take_out(in);
    if (!w->hout) { /* another device has the one made in the background */
        if (!(w->hout = run->own_out = malloc(w->n * sizeof(float))))
            return step_fail(run, "inputs", CUDYN_ERROR_OUT_OF_MEMORY, t0, "out of host memory for the output");
        poison(w->hout, w->n, threads);
    }
    step(run, "inputs", CUDYN_OK, t0);
    phase_note(&run->phases, "%s", run->own_out ? "generated in the background; output buffer made here"
                                                : "generated in the background");
    return true;
}

/* How a copy went: staged (through how much pinned memory, by how many
 * threads) or straight from the vectors, and its bandwidth. */
static void copy_note(struct device_run *run, const struct work *w, const char *what, int threads, double gbps)
{
    if (!staged(w)) {
        phase_note(&run->phases, "%s%s: %.1f GB/s", what, w->pinned ? "pinned" : "pageable", gbps);
        return;
    }
    char slot[32], by[32];
    if (w->stage.slot >= 1048576)
        snprintf(slot, sizeof slot, "%.1f MiB", w->stage.slot / 1048576.0);
    else if (w->stage.slot >= 1024)
        snprintf(slot, sizeof slot, "%.1f KiB", w->stage.slot / 1024.0);
    else
        snprintf(slot, sizeof slot, "%zu bytes", w->stage.slot);
    if (threads)
        snprintf(by, sizeof by, "%d thread%s", threads, threads == 1 ? "" : "s");
    else
        snprintf(by, sizeof by, "by the device thread");
    phase_note(&run->phases, "%sstaged through %d x %s pinned, %s: %.1f GB/s", what, w->stage.slots, slot, by, gbps);
}

/* x and y to the device, or the result back: staged when the host vectors
 * are pageable, else (--pinned, or no pinned memory to stage through)
 * copied straight. */
static bool copy(struct device_run *run, struct work *w, bool to_device)
{
    const char *name = to_device ? "host-to-device" : "device-to-host";
    struct stage_vector v[2] = {{w->hx, w->dx}, {w->hy, w->dy}};
    if (!to_device)
        v[0] = (struct stage_vector){w->hout, w->dout};
    int count = to_device ? 2 : 1, st = CUDYN_OK, threads = 0;
    size_t bytes = w->n * sizeof(float);
    cudyn_error e;
    double t0 = phase_begin(&run->phases, name);
    if (staged(w))
        st = stage_copy(&w->stage, to_device, v, count, bytes, stage_threads(&w->stage, run->threads, run->cores),
                        run->cores_shared, &threads, &e);
    else
        for (int i = 0; i < count && st == CUDYN_OK; i++)
            st = to_device ? cudyn_memcpy_htod(v[i].dev, v[i].host, bytes)
                           : cudyn_memcpy_dtoh(v[i].host, v[i].dev, bytes);
    if (!step_with(run, name, st, t0, staged(w) ? &e : NULL))
        return false;
    double gbps = (double)count * bytes / (run->phases.list[run->phases.n - 1].ms * 1e6);
    if (to_device)
        run->bw.h2d = gbps;
    else
        run->bw.d2h = gbps;
    copy_note(run, w, to_device ? "x and y, " : "", threads, gbps);
    return true;
}

/* The grid-stride kernel gets a grid that fills the device, the
 * documentation's kernel one thread per element. */
static void choose_grid(const struct device_run *run, struct work *w, bool naive)
{
    if (naive) {
        w->grid = (cudyn_dim3){(unsigned)((w->n + 511) / 512), 1, 1};
        w->block = (cudyn_dim3){512, 1, 1};
        return;
    }
    int blocks_per_sm = 0;
    if (cudyn_occupancy_max_blocks(&blocks_per_sm, w->f, 256, 0) != CUDYN_OK || blocks_per_sm <= 0)
        blocks_per_sm = 4;
    w->grid = (cudyn_dim3){(unsigned)(run->info.multiprocessors * blocks_per_sm), 1, 1};
    w->block = (cudyn_dim3){256, 1, 1};
}

static int launch_kernel(const struct work *w)
{
    float a = w->a;
    size_t n = w->n;
    cudyn_devptr x = w->dx, y = w->dy, out = w->dout;
    void *args[] = {&a, &x, &y, &out, &n};
    return cudyn_launch(w->f, w->grid, w->block, 0, NULL, args);
}

static bool launch(struct device_run *run, struct work *w, bool naive)
{
    choose_grid(run, w, naive);
    double t0 = phase_begin(&run->phases, "launch");
    if (!step(run, "launch", launch_kernel(w), t0))
        return false;
    phase_note(&run->phases, "%u x %u threads", w->grid.x, w->block.x);
    t0 = phase_begin(&run->phases, "synchronize");
    return step(run, "synchronize", cudyn_synchronize(), t0);
}

static bool check_result(struct device_run *run, const struct work *w)
{
    int threads = run->threads;
    double t0 = phase_begin(&run->phases, "verify");
    verify(w->hx, w->hy, w->hout, w->n, threads, &run->wrong);
    run->verified = true;
    struct phase *p = phase_add(&run->phases, "verify", CUDYN_OK, now_ms() - t0);
    if (!run->wrong.count) {
        phase_note(&run->phases, "%zu exact, %d threads", w->n, threads);
        return true;
    }
    const struct mismatches *m = &run->wrong;
    phase_note(&run->phases, "%zu of %zu wrong, first at [%zu]: expected %g, got %g", m->count, w->n, m->first,
               m->expected, m->actual);
    p->wrong = true;
    failure_set(&run->failure, EXIT_WRONG, "device %d: %s", run->ordinal, p->note);
    return false;
}

/* ---------------------------------------------------------------- timing */

static int cmp_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return x < y ? -1 : x > y;
}

/* What is timed, in this order: the kernel, a device-to-device copy of a
 * vector, and the pinned probe both ways. */
enum timed_op { TIME_KERNEL, TIME_COPY, TIME_PROBE_H2D, TIME_PROBE_D2H, TIMED_OPS };

/* Operations queued at once, each between two events, before the host
 * waits for them: the default 20 iterations (50 operations) are one batch,
 * which the device runs back to back while the host verifies. */
#define TIMING_BATCH 64

struct timing {
    const struct work *w;
    size_t probe_bytes;
    int runs[TIMED_OPS];
    float *samples[TIMED_OPS]; /* milliseconds of each run */
    int total, next;           /* operations in all; the first of the batch queued */
    int batch;                 /* operations in that batch */
    cudyn_event ev[TIMING_BATCH + 1];
    int events;                /* created */
};

static int run_op(const struct work *w, enum timed_op op, size_t probe_bytes)
{
    switch (op) {
    case TIME_KERNEL: return launch_kernel(w);
    case TIME_COPY: return cudyn_memcpy_dtod_async(w->dout, w->dx, w->n * sizeof(float), NULL);
    case TIME_PROBE_H2D: return cudyn_memcpy_htod_async(w->dout, w->probe, probe_bytes, NULL);
    case TIME_PROBE_D2H: return cudyn_memcpy_dtoh_async(w->probe, w->dout, probe_bytes, NULL);
    case TIMED_OPS: break;
    }
    return CUDYN_ERROR_INVALID_ARGUMENT;
}

/* The operation at position i of the order, and which of its runs it is. */
static enum timed_op op_at(const struct timing *t, int i, int *run)
{
    int op = TIME_KERNEL;
    while (i >= t->runs[op])
        i -= t->runs[op++];
    *run = i;
    return (enum timed_op)op;
}

/* Queues the batch from t->next: an event, then each operation and an
 * event after it, so each pair of events brackets one operation. */
static int queue_batch(struct timing *t)
{
    t->batch = t->total - t->next < TIMING_BATCH ? t->total - t->next : TIMING_BATCH;
    int st = cudyn_event_record(t->ev[0], NULL);
    for (int j = 0; j < t->batch && st == CUDYN_OK; j++) {
        int run;
        st = run_op(t->w, op_at(t, t->next + j, &run), t->probe_bytes);
        if (st == CUDYN_OK)
            st = cudyn_event_record(t->ev[j + 1], NULL);
    }
    return st;
}

/* Queues the first batch, which runs while the host does other work:
 * `iters` runs of the kernel and the copy, and up to PROBE_ITERS_MAX of
 * the probe each way (none without a probe). */
static int timing_start(struct timing *t, const struct work *w, size_t probe_bytes, int iters)
{
    int probe_iters = !probe_bytes ? 0 : iters < PROBE_ITERS_MAX ? iters : PROBE_ITERS_MAX;
    *t = (struct timing){.w = w, .probe_bytes = probe_bytes, .runs = {iters, iters, probe_iters, probe_iters}};
    for (int op = 0; op < TIMED_OPS; op++) {
        t->total += t->runs[op];
        if (t->runs[op] && !(t->samples[op] = calloc((size_t)t->runs[op], sizeof(float))))
            return CUDYN_ERROR_OUT_OF_MEMORY;
    }
    int want = (t->total < TIMING_BATCH ? t->total : TIMING_BATCH) + 1, st = CUDYN_OK;
    while (t->events < want && (st = cudyn_event_create(&t->ev[t->events], CUDYN_EVENT_DEFAULT)) == CUDYN_OK)
        t->events++;
    return st == CUDYN_OK ? queue_batch(t) : st;
}

static double gbps(double bytes, double ms)
{
    return ms > 0 ? bytes / (ms * 1e6) : 0;
}

/* Waits for each batch and takes its times, queueing the next, then the
 * bandwidths from the medians: the kernel moves 12 n bytes, the copy
 * reads and writes 4 n bytes once each. */
static int timing_finish(struct timing *t, struct bandwidth *bw)
{
    int st = CUDYN_OK;
    for (;;) {
        st = cudyn_event_synchronize(t->ev[t->batch]);
        for (int j = 0; j < t->batch && st == CUDYN_OK; j++) {
            int run;
            enum timed_op op = op_at(t, t->next + j, &run);
            st = cudyn_event_elapsed_ms(&t->samples[op][run], t->ev[j], t->ev[j + 1]);
        }
        if (st != CUDYN_OK || (t->next += t->batch) == t->total)
            break;
        if ((st = queue_batch(t)) != CUDYN_OK)
            break;
    }
    if (st != CUDYN_OK)
        return st;
    double ms[TIMED_OPS] = {0}, bytes = (double)t->w->n * sizeof(float);
    for (int op = 0; op < TIMED_OPS; op++)
        if (t->runs[op]) {
            qsort(t->samples[op], (size_t)t->runs[op], sizeof(float), cmp_float);
            ms[op] = t->samples[op][t->runs[op] / 2];
        }
    bw->kernel_ms = ms[TIME_KERNEL];
    bw->kernel = gbps(3 * bytes, ms[TIME_KERNEL]);
    bw->copy = gbps(2 * bytes, ms[TIME_COPY]);
    bw->probe_h2d = gbps((double)t->probe_bytes, ms[TIME_PROBE_H2D]);
    bw->probe_d2h = gbps((double)t->probe_bytes, ms[TIME_PROBE_D2H]);
    return CUDYN_OK;
}

static void timing_end(struct timing *t)
{
    for (int i = 0; i < t->events; i++)
        cudyn_event_destroy(t->ev[i]);
    for (int op = 0; op < TIMED_OPS; op++)
        free(t->samples[op]);
}

/*
 * Verifies the result while the device times the kernel and the copies,
 * all devices at once: the timed work touches only device memory and the
 * probe, and what is verified is the host's copy of the result, which the
 * device no longer writes.  A wrong result is not timed: the times are
 * taken, then dropped.
 */
static void check_and_time(struct device_run *run, const struct work *w, int iters)
{
    struct timing t = {0};
    int st = CUDYN_OK;
    double t0 = 0;
    if (iters > 0) {
        if (!run->alone) {
            phase_begin(&run->phases, "waiting for the other devices");
            rendezvous_arrive(run->timing);
            run->at_rendezvous = true;
        }
        t0 = phase_begin(&run->phases, "timing");
        st = timing_start(&t, w, run->probe_bytes, iters);
    }
    bool right = check_result(run, w);
    if (iters <= 0)
        return;
    atomic_store(&run->phases.now, "timing");
    if (st == CUDYN_OK)
        st = timing_finish(&t, &run->bw);
    cudyn_error e = {.size = sizeof e};
    if (st != CUDYN_OK) {
        cudyn_last_error(&e);
        (void)cudyn_synchronize(); /* nothing queued may still use what is freed next */
    }
    timing_end(&t);
    if (!step_with(run, "timing", st, t0, &e))
        return;
    run->timed = right;
    phase_note(&run->phases, "%d iterations, overlapped with verify%s", iters,
               right ? "" : "; not reported: the result is wrong");
}

/* ---------------------------------------------------------------- the run */

/*
 * After the result (main's teardown): what holds host memory is freed, the
 * module (the driver's, and cudyn's record of it, which needs the device
 * current), the program and an output buffer of the run's own.  Device
 * memory and page-locked memory are left to the driver: its exit handler
 * destroys the contexts and everything in them (see teardown in
 * cudyn-saxpy.c), and freeing them first, before or after the result, only
 * costs time (unpinning the 16 MiB probe alone takes milliseconds).  With
 * --free they are freed all the same, and cudyn's hold on the primary
 * context released, so that a leak checker (compute-sanitizer
 * --leak-check full) finds nothing left.  A failure here changes nothing:
 * the result is out.
 */
void run_release(struct device_run *run)
{
    bool allocated = false; /* device or page-locked memory, which needs the device current to free */
    for (size_t i = 0; i < sizeof run->device_memory / sizeof run->device_memory[0]; i++)
        allocated |= run->device_memory[i] != 0;
    for (size_t i = 0; i < sizeof run->locked_memory / sizeof run->locked_memory[0]; i++)
        allocated |= run->locked_memory[i] != NULL;
    bool current = (run->mod || (run->opt->free_all && allocated)) && cudyn_device_use(run->ordinal) == CUDYN_OK;
    if (run->mod && current)
        (void)cudyn_module_unload(run->mod);
    cudyn_program_free(run->prog);
    free(run->own_out);
    /* without the device current nothing could be freed, the module
     * included: releasing the context then would leave its module record
     * to a handle no one unloads */
    if (!run->opt->free_all || (!current && (run->mod || allocated)))
        return;
    for (size_t i = 0; current && i < sizeof run->device_memory / sizeof run->device_memory[0]; i++)
        if (run->device_memory[i])
            (void)cudyn_mem_free(run->device_memory[i]);
    for (size_t i = 0; current && i < sizeof run->locked_memory / sizeof run->locked_memory[0]; i++)
        if (run->locked_memory[i])
            (void)cudyn_host_free(run->locked_memory[i]);
    (void)cudyn_device_release(run->ordinal); /* no retain of cudyn's is no error */
}

/* The "device" phase: how describing it went (before the run). */
static bool describe(struct device_run *run)
{
    struct phase *p = phase_add(&run->phases, "device", run->describe_status, run->describe_ms);
    if (run->describe_status != CUDYN_OK)
        return phase_fail(run, p, &run->undescribed);
    phase_note(&run->phases, "%s", run->info.name);
    return true;
}

void run_device(struct device_run *run)
{
    const struct options *opt = run->opt;
    struct work w = {.n = opt->n, .a = SAXPY_A, .pinned = opt->pinned};
    bool ok = describe(run) && context_and_compile(run) && load_module(run, &w, opt->naive) &&
              allocate(run, &w) && host_inputs(run, &w) && copy(run, &w, true) && launch(run, &w, opt->naive) &&
              copy(run, &w, false);
    if (ok)
        check_and_time(run, &w, opt->iters);
    /* kept for run_release (--free): what was allocated, however far the run went */
    run->device_memory[0] = w.dx;
    run->device_memory[1] = w.dy;
    run->device_memory[2] = w.dout;
    run->locked_memory[0] = w.probe;
    if (w.pinned) {
        run->locked_memory[1] = w.hx;
        run->locked_memory[2] = w.hy;
        run->locked_memory[3] = w.hout;
    }
    if (!run->at_rendezvous && !run->alone)
        rendezvous_leave(run->timing);
    atomic_store(&run->phases.now, "done");
}
