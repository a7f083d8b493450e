/*
 * saxpy_host.c - see saxpy_host.h.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common.h"
#include "saxpy_host.h"

/* ------------------------------------------------------- parallel loops */

/* Work on elements [begin, end) as part `part` of a loop. */
typedef void (*range_fn)(void *ctx, size_t begin, size_t end, int part);

struct part {
    range_fn fn;
    void *ctx;
    size_t begin, end;
    int index;
};

static void *run_part(void *arg)
{
    struct part *p = arg;
    p->fn(p->ctx, p->begin, p->end, p->index);
    return NULL;
}

/* Splits [0, n) into `threads` parts run at once, the last on the calling
 * thread; a part whose thread cannot be created runs here too. */
static void parallel_for(size_t n, int threads, range_fn fn, void *ctx)
{
    struct part parts[HOST_THREADS_MAX];
    pthread_t tid[HOST_THREADS_MAX];
    bool started[HOST_THREADS_MAX] = {false};
    if (threads < 1 || threads > HOST_THREADS_MAX)
        threads = 1;
    size_t chunk = (n + (size_t)threads - 1) / (size_t)threads;
    for (int t = 0; t < threads; t++) {
        size_t begin = chunk * (size_t)t < n ? chunk * (size_t)t : n;
        size_t end = begin + chunk < n ? begin + chunk : n;
        parts[t] = (struct part){fn, ctx, begin, end, t};
        if (t < threads - 1)
            started[t] = pthread_create(&tid[t], NULL, run_part, &parts[t]) == 0;
    }
    for (int t = threads - 1; t >= 0; t--) {
        if (started[t])
            pthread_join(tid[t], NULL);
        else
            run_part(&parts[t]);
    }
}

/* ---------------------------------------------------------------- fill */

struct fill_ctx {
    float *x, *y;
};

static void fill_range(void *ctx, size_t begin, size_t end, int part)
{
    (void)part;
    struct fill_ctx *c = ctx;
    size_t mx = begin % 1024, my = begin % 37;
    for (size_t i = begin; i < end; i++) {
        c->x[i] = (float)mx;
        c->y[i] = (float)my;
        mx = mx == 1023 ? 0 : mx + 1;
        my = my == 36 ? 0 : my + 1;
    }
}

void fill_inputs(float *x, float *y, size_t n, int threads)
{
    struct fill_ctx c = {x, y};
    parallel_for(n, threads, fill_range, &c);
}

static void poison_range(void *ctx, size_t begin, size_t end, int part)
{
    (void)part;
    float *out = ctx;
    for (size_t i = begin; i < end; i++)
        out[i] = NAN;
}

void poison(float *out, size_t n, int threads)
{
    parallel_for(n, threads, poison_range, out);
}

/* -------------------------------------------------------------- verify */

struct verify_ctx {
    const float *x, *y, *out;
    struct mismatches part[HOST_THREADS_MAX];
};

static void verify_range(void *ctx, size_t begin, size_t end, int part)
{
    struct verify_ctx *c = ctx;
    struct mismatches *m = &c->part[part];
    for (size_t i = begin; i < end; i++) {
        float want = SAXPY_A * c->x[i] + c->y[i];
        if (c->out[i] != want && m->count++ == 0) { /* NaN never compares equal */
            m->first = i;
            m->expected = want;
            m->actual = c->out[i];
        }
    }
}

void verify(const float *x, const float *y, const float *out, size_t n, int threads, struct mismatches *m)
{
    struct verify_ctx c = {.x = x, .y = y, .out = out};
    parallel_for(n, threads, verify_range, &c);
    *m = (struct mismatches){0};
    for (int t = 0; t < HOST_THREADS_MAX; t++) { /* parts are in index order */
        if (c.part[t].count && !m->count) {
            m->first = c.part[t].first;
            m->expected = c.part[t].expected;
            m->actual = c.part[t].actual;
        }
        m->count += c.part[t].count;
    }
}

/* -------------------------------------------------------------- inputs */

static void free_buffers(struct inputs *in)
{
    free(in->x);
    free(in->y);
    free(in->out);
    in->x = in->y = in->out = NULL;
}

static void *generate(void *arg)
{
    struct inputs *in = arg;
    double t0 = now_ms();
    size_t bytes = in->n * sizeof(float);
    in->x = malloc(bytes);
    in->y = malloc(bytes);
    in->out = malloc(bytes);
    bool ok = in->x && in->y && in->out;
    if (ok) {
        fill_inputs(in->x, in->y, in->n, in->threads);
        poison(in->out, in->n, in->threads);
    }
    pthread_mutex_lock(&in->lock);
    in->ms = now_ms() - t0;
    in->ok = ok;
    in->done = true;
    bool abandoned = in->abandoned;
    pthread_cond_broadcast(&in->ready);
    pthread_mutex_unlock(&in->lock);
    if (abandoned) /* nobody had them, nobody will: they are this thread's to free */
        free_buffers(in);
    return NULL;
}

void inputs_start(struct inputs *in, size_t n, int threads)
{
    in->n = n;
    in->threads = threads;
    pthread_mutex_init(&in->lock, NULL);
    pthread_cond_init(&in->ready, NULL);
    in->started = true;
    pthread_t tid;
    /* detached: inputs_wait tells when it is done, and a watchdog's exit
     * need not wait for it */
    if (pthread_create(&tid, NULL, generate, in) == 0) {
        pthread_detach(tid);
    } else {
        in->threads = 1;
        generate(in); /* no thread to spare: generate now */
    }
}

bool inputs_wait(struct inputs *in)
{
    pthread_mutex_lock(&in->lock);
    in->used = true;
    while (!in->done)
        pthread_cond_wait(&in->ready, &in->lock);
    pthread_mutex_unlock(&in->lock);
    return in->ok;
}

float *inputs_take_out(struct inputs *in)
{
    pthread_mutex_lock(&in->lock);
    float *out = in->out_taken ? NULL : in->out;
    in->out_taken = true;
    pthread_mutex_unlock(&in->lock);
    return out;
}

void inputs_free(struct inputs *in)
{
    if (!in->started)
        return;
    /* Not done yet: nothing used them (a device has them only once done),
     * so the process need not wait for them; the generator frees them when
     * it is done, or the process ends first (they are still reachable,
     * from *in, so no leak checker counts them). */
    pthread_mutex_lock(&in->lock);
    bool done = in->done;
    in->abandoned = !done;
    pthread_mutex_unlock(&in->lock);
    if (done)
        free_buffers(in);
}

/* ----------------------------------------------------------------- time */

double process_age_ms(void)
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
