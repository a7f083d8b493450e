/*
 * saxpy_stage.c - see saxpy_stage.h.
 *
 * The copy is cut into chunks of one slot each, chunk k going through
 * slot k mod slots.  The device thread (the leader) makes every driver
 * call; worker threads copy their part of each chunk between the vector
 * and the slot.  Chunks are handed over through two counters, changed
 * under a mutex and waited for with a condition variable after a short
 * spin: `released` says which chunks the workers may take, and `finished`
 * counts the workers done with the chunk now in each slot.
 *
 * Host to device, chunk k: the workers fill its slot (released once the
 * copy of chunk k - slots out of that slot is known to be over); the
 * leader, when all have, queues its copy and an event, then waits for the
 * copy before it (two in flight at most) and releases the chunk that
 * reuses that slot.
 *
 * Device to host: the leader queues copies into every slot; for chunk k it
 * waits for its event and releases it to the workers, then waits for them
 * to have emptied chunk k - 1 and queues the chunk that reuses that slot,
 * so the workers always have the next chunk while they finish one (with
 * a single slot, chunk k itself).
 */
#include "config.h"

#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>

#include "saxpy_stage.h"

/* Copies the device may have queued host-to-device before the leader waits
 * for the oldest (see the top of the file). */
#define STAGE_IN_FLIGHT 2
/* The least a copying thread is given of a chunk: 64 KiB take ~6 us to
 * copy, about what handing it over costs; smaller copies get fewer threads
 * (tiny ones none: the device thread copies them itself). */
#define STAGE_PART_MIN ((size_t)64 << 10)
/* How long a thread that waits for another spins before it sleeps: about
 * one chunk's transfer.  Waking a sleeping thread takes 10-100 us (more in
 * a virtual machine), as long as a chunk takes to move, so a handover that
 * slept each time would halve the pace; spinning costs a core that is
 * otherwise idle, and is done only when every thread has one. */
#define STAGE_SPIN_NS 100000L

void stage_buffer_init(struct stage_buffer *b, void *pinned, size_t bytes)
{
    b->pinned = pinned;
    b->slots = STAGE_SLOTS;
    b->slot = bytes / STAGE_SLOTS & ~(size_t)63; /* parts of a chunk start on cache lines */
    if (b->slot == 0) {
        b->slots = 1;
        b->slot = bytes;
    }
}

int stage_threads(const struct stage_buffer *b, int threads, int cores)
{
    size_t parts = b->slot / STAGE_PART_MIN;
    int spare = cores - 1; /* the device thread's */
    if (threads > STAGE_THREADS)
        threads = STAGE_THREADS;
    if ((size_t)threads > parts)
        threads = (int)parts;
    return threads > spare ? spare : threads;
}

struct stage {
    const struct stage_buffer *buf;
    bool to_device;
    const struct stage_vector *vec;
    size_t bytes;      /* per vector */
    long per_vector;   /* chunks per vector */
    long chunks;       /* in all */
    bool spin;         /* a core for every thread: wait spinning first */
    cudyn_event event[STAGE_SLOTS]; /* the copy through each slot, last queued */
    /* changed under the lock (so a sleeper cannot miss a change), read
     * without it while spinning */
    pthread_mutex_t lock;
    pthread_cond_t to_workers, to_leader;
    int workers;                       /* copying threads; fixed before the first chunk is released */
    _Atomic long released;             /* the workers may take chunks below this */
    _Atomic int finished[STAGE_SLOTS]; /* workers done with the chunk now in the slot */
    _Atomic bool stop;                 /* the leader failed: the workers leave */
};

/* ------------------------------------------------------------- waiting */

static void relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

typedef bool (*ready_fn)(struct stage *s, long arg);

/* Until ready(s, arg): spinning for up to STAGE_SPIN_NS where allowed,
 * then asleep on `cond`. */
static void wait_until(struct stage *s, ready_fn ready, long arg, pthread_cond_t *cond)
{
    if (s->spin) {
        struct timespec t0, t;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        for (unsigned i = 1;; i++) {
            if (ready(s, arg))
                return;
            relax();
            if (i % 64 == 0) {
                clock_gettime(CLOCK_MONOTONIC, &t);
                if ((t.tv_sec - t0.tv_sec) * 1000000000L + (t.tv_nsec - t0.tv_nsec) > STAGE_SPIN_NS)
                    break;
            }
        }
    }
    pthread_mutex_lock(&s->lock);
    while (!ready(s, arg))
        pthread_cond_wait(cond, &s->lock);
    pthread_mutex_unlock(&s->lock);
}

/* Workers: chunk k may be taken, or the copy has failed. */
static bool released_past(struct stage *s, long k)
{
    return atomic_load(&s->released) > k || atomic_load(&s->stop);
}

/* Leader: every worker is done with the chunk in the slot. */
static bool slot_finished(struct stage *s, long slot)
{
    return atomic_load(&s->finished[slot]) >= s->workers;
}

/* --------------------------------------------------------------- chunks */

struct chunk {
    char *host, *slot;
    cudyn_devptr dev;
    size_t len;
};

static struct chunk chunk_at(const struct stage *s, long k)
{
    const struct stage_vector *v = &s->vec[k / s->per_vector];
    size_t off = (size_t)(k % s->per_vector) * s->buf->slot;
    size_t len = s->bytes - off < s->buf->slot ? s->bytes - off : s->buf->slot;
    return (struct chunk){(char *)v->host + off, s->buf->pinned + (size_t)(k % s->buf->slots) * s->buf->slot,
                          v->dev + off, len};
}

/* Part `part` of `parts` of chunk k, between the vector and the slot. */
static void copy_part(const struct stage *s, long k, int part, int parts)
{
    struct chunk c = chunk_at(s, k);
    size_t begin = (c.len * (size_t)part / (size_t)parts) & ~(size_t)63;
    size_t end = part + 1 == parts ? c.len : (c.len * (size_t)(part + 1) / (size_t)parts) & ~(size_t)63;
    if (s->to_device)
        memcpy(c.slot + begin, c.host + begin, end - begin);
    else
        memcpy(c.host + begin, c.slot + begin, end - begin);
}

struct worker {
    struct stage *s;
    int index;
    pthread_t thread;
};

static void *work(void *arg)
{
    struct worker *w = arg;
    struct stage *s = w->s;
    for (long k = 0; k < s->chunks; k++) {
        wait_until(s, released_past, k, &s->to_workers);
        if (atomic_load(&s->stop))
            break;
        copy_part(s, k, w->index, s->workers);
        pthread_mutex_lock(&s->lock);
        if (atomic_fetch_add(&s->finished[k % s->buf->slots], 1) + 1 == s->workers)
            pthread_cond_signal(&s->to_leader);
        pthread_mutex_unlock(&s->lock);
    }
    return NULL;
}

static void release(struct stage *s, long below)
{
    if (below > s->chunks)
        below = s->chunks;
    pthread_mutex_lock(&s->lock);
    if (below > atomic_load(&s->released)) {
        atomic_store(&s->released, below);
        pthread_cond_broadcast(&s->to_workers);
    }
    pthread_mutex_unlock(&s->lock);
}

/* Chunk k is in its slot (host to device) or out of it (device to host):
 * the workers are done with it, or with none the leader does it here. */
static void chunk_done(struct stage *s, long k)
{
    if (!s->workers) {
        copy_part(s, k, 0, 1);
        return;
    }
    long slot = k % s->buf->slots;
    wait_until(s, slot_finished, slot, &s->to_leader);
    pthread_mutex_lock(&s->lock);
    atomic_store(&s->finished[slot], 0); /* nobody takes the slot's next chunk before it is released */
    pthread_mutex_unlock(&s->lock);
}

/* Queues the device's copy of chunk k and the event after it. */
static int queue_copy(struct stage *s, long k)
{
    struct chunk c = chunk_at(s, k);
    int st = s->to_device ? cudyn_memcpy_htod_async(c.dev, c.slot, c.len, NULL)
                          : cudyn_memcpy_dtoh_async(c.slot, c.dev, c.len, NULL);
    return st == CUDYN_OK ? cudyn_event_record(s->event[k % s->buf->slots], NULL) : st;
}

static int wait_copy(const struct stage *s, long k)
{
    return cudyn_event_synchronize(s->event[k % s->buf->slots]);
}

static int lead_to_device(struct stage *s)
{
    int slots = s->buf->slots, in_flight = slots < STAGE_IN_FLIGHT ? slots : STAGE_IN_FLIGHT;
    int st = CUDYN_OK;
    for (long k = 0; k < s->chunks && st == CUDYN_OK; k++) {
        chunk_done(s, k);
        st = queue_copy(s, k);
        long oldest = k - in_flight + 1; /* its slot goes to chunk oldest + slots */
        if (st == CUDYN_OK && oldest >= 0 && oldest + slots < s->chunks && (st = wait_copy(s, oldest)) == CUDYN_OK)
            release(s, oldest + slots + 1);
    }
    return st == CUDYN_OK ? wait_copy(s, s->chunks - 1) : st;
}

static int lead_to_host(struct stage *s)
{
    int slots = s->buf->slots, st = CUDYN_OK;
    /* the slot re-armed is that of the chunk before (being emptied, or soon
     * done), except with one slot, which chunk k + 1 needs right away */
    long lag = slots > 1 ? 1 : 0;
    for (long k = 0; k < slots && k < s->chunks && st == CUDYN_OK; k++)
        st = queue_copy(s, k);
    for (long k = 0; k < s->chunks && st == CUDYN_OK; k++) {
        if ((st = wait_copy(s, k)) != CUDYN_OK)
            break;
        release(s, k + 1);
        long before = k - lag; /* its slot goes to chunk before + slots once it is emptied */
        if (before >= 0 && before + slots < s->chunks) {
            chunk_done(s, before);
            st = queue_copy(s, before + slots);
        }
    }
    /* the last chunks, whose slots were not needed again */
    for (long k = s->chunks - slots > 0 ? s->chunks - slots : 0; k < s->chunks && st == CUDYN_OK; k++)
        chunk_done(s, k);
    return st;
}

int stage_copy(const struct stage_buffer *b, bool to_device, const struct stage_vector *v, int count, size_t bytes,
               int threads, int cores, int *threads_used, cudyn_error *error)
{
    error->size = sizeof *error;
    struct stage s = {.buf = b, .to_device = to_device, .vec = v, .bytes = bytes};
    s.per_vector = (long)((bytes + b->slot - 1) / b->slot);
    s.chunks = s.per_vector * count;
    *threads_used = 0;
    if (s.chunks == 0)
        return CUDYN_OK;
    int st = CUDYN_OK, events = 0;
    while (events < b->slots && (st = cudyn_event_create(&s.event[events], CUDYN_EVENT_DISABLE_TIMING)) == CUDYN_OK)
        events++;
    if (st != CUDYN_OK) {
        cudyn_last_error(error);
        while (events > 0)
            cudyn_event_destroy(s.event[--events]);
        return st;
    }

    pthread_mutex_init(&s.lock, NULL);
    pthread_cond_init(&s.to_workers, NULL);
    pthread_cond_init(&s.to_leader, NULL);
    struct worker crew[STAGE_THREADS];
    if (threads > STAGE_THREADS)
        threads = STAGE_THREADS;
    s.spin = threads + 1 <= cores;
    int started = 0;
    /* the workers wait (released is 0) until they know how many they are */
    for (int i = 0; i < threads; i++) {
        crew[started] = (struct worker){.s = &s, .index = started};
        if (pthread_create(&crew[started].thread, NULL, work, &crew[started]) == 0)
            started++;
    }
    pthread_mutex_lock(&s.lock);
    s.workers = started;
    pthread_mutex_unlock(&s.lock);
    if (to_device)
        release(&s, b->slots); /* every slot is free; back to the host, none has arrived yet */

    st = to_device ? lead_to_device(&s) : lead_to_host(&s);
    if (st != CUDYN_OK) {
        cudyn_last_error(error);
        pthread_mutex_lock(&s.lock);
        atomic_store(&s.stop, true);
        pthread_cond_broadcast(&s.to_workers);
        pthread_mutex_unlock(&s.lock);
        (void)cudyn_synchronize(); /* nothing queued may still use the slots */
    }
    for (int i = 0; i < started; i++)
        pthread_join(crew[i].thread, NULL);
    for (int i = 0; i < b->slots; i++)
        cudyn_event_destroy(s.event[i]);
    pthread_cond_destroy(&s.to_leader);
    pthread_cond_destroy(&s.to_workers);
    pthread_mutex_destroy(&s.lock);
    *threads_used = started;
    return st;
}
