/*
 * test_stage.c - cudyn-saxpy's staged copies (tools/saxpy_stage.c) against
 * a fake device whose copy engine is a thread of its own that runs the
 * queued copies late, at random: the mock driver runs every copy as it is
 * queued, so it cannot tell a slot refilled before the device read it, or
 * emptied before the device wrote it.  Every byte is compared, for sizes
 * that do and do not fill a slot, one slot or several, no copying thread
 * or several, threads that wait asleep or spinning, and a copy that fails
 * halfway (no hang, the error kept, the device idle after).
 */
#include "config.h"

#include <pthread.h>
#include <stdint.h>
#include <time.h>

#include "saxpy_stage.h"
#include "testutil.h"

/* ------------------------------------------------------- the fake device */

struct cudyn_event_st {
    unsigned long seq; /* of its last record */
};

struct op {
    void *dst;
    const void *src;
    size_t len; /* 0: an event record */
    unsigned long seq;
};

#define QUEUE_MAX 4096
static struct {
    pthread_mutex_t lock;
    pthread_cond_t queued, done;
    struct op queue[QUEUE_MAX];
    unsigned long submitted, completed; /* ops, by sequence number */
    unsigned head, tail;
    unsigned rand_state;
    long copies;   /* queued so far */
    long fail_at;  /* the copy that fails (1: the first), 0: none */
    int last_status;
    bool quit;
} dev = {.lock = PTHREAD_MUTEX_INITIALIZER, .queued = PTHREAD_COND_INITIALIZER, .done = PTHREAD_COND_INITIALIZER,
         .rand_state = 12345};

static unsigned next_rand(void)
{
    dev.rand_state = dev.rand_state * 1103515245u + 12345u;
    return dev.rand_state >> 16;
}

/* The copy engine: each op in order, some after a pause. */
static void *engine(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&dev.lock);
    for (;;) {
        while (dev.head == dev.tail && !dev.quit)
            pthread_cond_wait(&dev.queued, &dev.lock);
        if (dev.head == dev.tail)
            break;
        struct op op = dev.queue[dev.head % QUEUE_MAX];
        unsigned pause_us = next_rand() % 4 == 0 ? next_rand() % 200 : 0;
        pthread_mutex_unlock(&dev.lock);
        if (pause_us) {
            struct timespec ts = {0, (long)pause_us * 1000};
            nanosleep(&ts, NULL);
        }
        if (op.len)
            memcpy(op.dst, op.src, op.len);
        pthread_mutex_lock(&dev.lock);
        dev.head++;
        dev.completed = op.seq;
        pthread_cond_broadcast(&dev.done);
    }
    pthread_mutex_unlock(&dev.lock);
    return NULL;
}

static unsigned long submit(void *dst, const void *src, size_t len)
{
    pthread_mutex_lock(&dev.lock);
    unsigned long seq = ++dev.submitted;
    CHECK(dev.tail - dev.head < QUEUE_MAX);
    dev.queue[dev.tail++ % QUEUE_MAX] = (struct op){dst, src, len, seq};
    pthread_cond_signal(&dev.queued);
    pthread_mutex_unlock(&dev.lock);
    return seq;
}

static void wait_seq(unsigned long seq)
{
    pthread_mutex_lock(&dev.lock);
    while (dev.completed < seq)
        pthread_cond_wait(&dev.done, &dev.lock);
    pthread_mutex_unlock(&dev.lock);
}

static int copy(void *dst, const void *src, size_t len)
{
    pthread_mutex_lock(&dev.lock);
    bool fail = ++dev.copies == dev.fail_at;
    pthread_mutex_unlock(&dev.lock);
    if (fail)
        return dev.last_status = CUDYN_ERROR_LAUNCH_FAILED;
    submit(dst, src, len);
    return CUDYN_OK;
}

int cudyn_memcpy_htod_async(cudyn_devptr dst, const void *src, size_t bytes, cudyn_stream stream)
{
    CHECK(stream == NULL);
    return copy((void *)(uintptr_t)dst, src, bytes);
}

int cudyn_memcpy_dtoh_async(void *dst, cudyn_devptr src, size_t bytes, cudyn_stream stream)
{
    CHECK(stream == NULL);
    return copy(dst, (const void *)(uintptr_t)src, bytes);
}

int cudyn_event_create(cudyn_event *out, unsigned int flags)
{
    CHECK(flags == CUDYN_EVENT_DISABLE_TIMING);
    *out = calloc(1, sizeof **out);
    return *out ? CUDYN_OK : CUDYN_ERROR_OUT_OF_MEMORY;
}

int cudyn_event_destroy(cudyn_event event)
{
    free(event);
    return CUDYN_OK;
}

int cudyn_event_record(cudyn_event event, cudyn_stream stream)
{
    CHECK(stream == NULL);
    event->seq = submit(NULL, NULL, 0);
    return CUDYN_OK;
}

int cudyn_event_synchronize(cudyn_event event)
{
    wait_seq(event->seq);
    return CUDYN_OK;
}

int cudyn_synchronize(void)
{
    pthread_mutex_lock(&dev.lock);
    unsigned long seq = dev.submitted;
    pthread_mutex_unlock(&dev.lock);
    wait_seq(seq);
    return CUDYN_OK;
}

int cudyn_last_error(cudyn_error *out)
{
    if (out) {
        memset(out, 0, out->size);
        out->size = sizeof *out;
        out->status = dev.last_status;
        snprintf(out->function, sizeof out->function, "cuMemcpyAsync");
    }
    return dev.last_status;
}

static bool device_idle(void)
{
    pthread_mutex_lock(&dev.lock);
    bool idle = dev.completed == dev.submitted;
    pthread_mutex_unlock(&dev.lock);
    return idle;
}

/* ------------------------------------------------------------- the tests */

static void fill(unsigned char *p, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (unsigned char)(i * 131 + seed * 7 + (i >> 8));
}

/* Both ways with `count` vectors of `bytes` through `pinned_bytes`, with
 * `cores` to count on (1: waiting asleep). */
static void round_trip(size_t bytes, int count, size_t pinned_bytes, int threads, int cores)
{
    unsigned char *host[2], *devmem[2], *back[2];
    unsigned char *pinned = malloc(pinned_bytes);
    struct stage_vector to[2], from[2];
    for (int v = 0; v < count; v++) {
        host[v] = malloc(bytes);
        devmem[v] = malloc(bytes);
        back[v] = malloc(bytes);
        fill(host[v], bytes, (unsigned)v + 1);
        memset(devmem[v], 0xEE, bytes);
        memset(back[v], 0xDD, bytes);
        to[v] = (struct stage_vector){host[v], (cudyn_devptr)(uintptr_t)devmem[v]};
        from[v] = (struct stage_vector){back[v], (cudyn_devptr)(uintptr_t)devmem[v]};
    }
    memset(pinned, 0xCC, pinned_bytes);
    struct stage_buffer b;
    stage_buffer_init(&b, pinned, pinned_bytes);
    CHECK(b.slots == 1 || b.slots == STAGE_SLOTS);
    CHECK(b.slot > 0 && (size_t)b.slots * b.slot <= pinned_bytes);
    int used = -1;
    cudyn_error e;
    CHECK_EQ_INT(stage_copy(&b, true, to, count, bytes, threads, cores, &used, &e), CUDYN_OK);
    CHECK_EQ_INT(used, threads > STAGE_THREADS ? STAGE_THREADS : threads);
    CHECK(device_idle());
    for (int v = 0; v < count; v++)
        if (memcmp(devmem[v], host[v], bytes) != 0) {
            fprintf(stderr, "to the device: %zu bytes x %d through %zu, %d threads, %d cores: vector %d differs\n",
                    bytes, count, pinned_bytes, threads, cores, v);
            test_failures++;
        }
    memset(pinned, 0xCC, pinned_bytes); /* stale slots must never reach the host */
    CHECK_EQ_INT(stage_copy(&b, false, from, count, bytes, threads, cores, &used, &e), CUDYN_OK);
    CHECK(device_idle());
    for (int v = 0; v < count; v++) {
        if (memcmp(back[v], host[v], bytes) != 0) {
            fprintf(stderr, "to the host: %zu bytes x %d through %zu, %d threads, %d cores: vector %d differs\n",
                    bytes, count, pinned_bytes, threads, cores, v);
            test_failures++;
        }
        free(host[v]);
        free(devmem[v]);
        free(back[v]);
    }
    free(pinned);
}

/* The nth copy fails: the status and error come back, nothing hangs, and
 * nothing queued is left running. */
static void failing(bool to_device, long nth, int threads)
{
    size_t bytes = 300000, pinned_bytes = 65536;
    unsigned char *host = calloc(1, bytes), *devmem = calloc(1, bytes), *pinned = malloc(pinned_bytes);
    struct stage_vector v = {host, (cudyn_devptr)(uintptr_t)devmem};
    struct stage_buffer b;
    stage_buffer_init(&b, pinned, pinned_bytes);
    pthread_mutex_lock(&dev.lock);
    dev.copies = 0;
    dev.fail_at = nth;
    pthread_mutex_unlock(&dev.lock);
    int used;
    cudyn_error e;
    CHECK_EQ_INT(stage_copy(&b, to_device, &v, 1, bytes, threads, 1, &used, &e), CUDYN_ERROR_LAUNCH_FAILED);
    CHECK_EQ_INT(e.status, CUDYN_ERROR_LAUNCH_FAILED);
    CHECK(device_idle());
    pthread_mutex_lock(&dev.lock);
    dev.fail_at = 0;
    dev.last_status = CUDYN_OK;
    pthread_mutex_unlock(&dev.lock);
    free(host);
    free(devmem);
    free(pinned);
}

int main(void)
{
    pthread_t eng;
    if (pthread_create(&eng, NULL, engine, NULL) != 0)
        TEST_SKIP("no thread for the fake copy engine");
    static const size_t sizes[] = {4, 100, 4096 + 4, 65536, 400012, (1u << 20) + 12};
    static const size_t pinned[] = {4, 100, 256, 4096, 65536 + 64, 400012};
    static const int threads[] = {0, 1, 3, STAGE_THREADS, STAGE_THREADS + 4};
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++)
        for (size_t p = 0; p < sizeof pinned / sizeof *pinned; p++)
            for (size_t t = 0; t < sizeof threads / sizeof *threads; t++) {
                if (sizes[s] / (pinned[p] / STAGE_SLOTS + 1) > 300) /* hundreds of tiny chunks: slow, no news */
                    continue;
                for (int count = 1; count <= 2; count++) /* waiting asleep (1 core), then spinning */
                    round_trip(sizes[s], count, pinned[p], threads[t], count == 1 ? 1 : STAGE_THREADS + 1);
            }
    /* how many copy: never more than asked, STAGE_THREADS or the spare
     * cores, one per 64 KiB of a slot */
    struct stage_buffer big, tiny;
    stage_buffer_init(&big, NULL, (size_t)16 << 20);
    stage_buffer_init(&tiny, NULL, 1000);
    CHECK_EQ_INT(big.slots, STAGE_SLOTS);
    CHECK_EQ_INT(big.slot, (size_t)4 << 20);
    CHECK_EQ_INT(stage_threads(&big, 100, 64), STAGE_THREADS);
    CHECK_EQ_INT(stage_threads(&big, 8, 4), 3);
    CHECK_EQ_INT(stage_threads(&big, 1, 2), 1);
    CHECK_EQ_INT(stage_threads(&big, 1, 1), 0);
    CHECK_EQ_INT(stage_threads(&tiny, 8, 64), 0);
    for (long nth = 1; nth <= 6; nth++)
        for (int t = 0; t <= 3; t += 3) {
            failing(true, nth, t);
            failing(false, nth, t);
        }
    pthread_mutex_lock(&dev.lock);
    dev.quit = true;
    pthread_cond_signal(&dev.queued);
    pthread_mutex_unlock(&dev.lock);
    pthread_join(eng, NULL);
    if (test_failures)
        fprintf(stderr, "%d failure(s)\n", test_failures);
    return test_failures ? 1 : 0;
}
