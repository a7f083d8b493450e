/*
 * inflight.c - one compile per input (see inflight.h): a list of the
 * compiles running now, keyed by what they compute, and one condition
 * variable the waiters sleep on.
 */
#include "config.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "compile/inflight.h"

struct cudyn__flight {
    unsigned char id[CUDYN_SHA256_BYTES];
    int users; /* the leader and its waiters; the last one frees it */
    bool landed;
    /* the result, written once by the leader before `landed` */
    int status;
    cudyn_error error;
    bool have_entry;
    struct cudyn__cache_entry entry;
    struct cudyn__flight *next;
};

static pthread_mutex_t flights_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t flights_landed = PTHREAD_COND_INITIALIZER;
static struct cudyn__flight *flying; /* not landed yet */

struct cudyn__flight *cudyn__flight_join(const unsigned char id[CUDYN_SHA256_BYTES], bool *leader)
{
    pthread_mutex_lock(&flights_lock);
    struct cudyn__flight *f = flying;
    while (f && memcmp(f->id, id, CUDYN_SHA256_BYTES) != 0)
        f = f->next;
    if (f) {
        f->users++;
        *leader = false;
    } else if ((f = calloc(1, sizeof *f))) {
        memcpy(f->id, id, CUDYN_SHA256_BYTES);
        f->users = 1;
        f->next = flying;
        flying = f;
        *leader = true;
    }
    pthread_mutex_unlock(&flights_lock);
    return f;
}

/* Drops one user; the last frees the flight. */
static void leave(struct cudyn__flight *f)
{
    pthread_mutex_lock(&flights_lock);
    bool last = --f->users == 0;
    pthread_mutex_unlock(&flights_lock);
    if (last) {
        if (f->have_entry)
            cudyn__cache_entry_free(&f->entry);
        free(f);
    }
}

void cudyn__flight_land(struct cudyn__flight *f, int status, const struct cudyn__cache_entry *e)
{
    f->status = status;
    cudyn__error_save(&f->error);
    /* a program, or a compile error's log */
    f->have_entry = e && (e->image || e->log) && cudyn__cache_entry_copy(&f->entry, e) == 0;
    pthread_mutex_lock(&flights_lock);
    for (struct cudyn__flight **link = &flying; *link; link = &(*link)->next)
        if (*link == f) {
            *link = f->next;
            break;
        }
    f->landed = true;
    pthread_cond_broadcast(&flights_landed);
    pthread_mutex_unlock(&flights_lock);
    leave(f);
}

int cudyn__flight_wait(const char *api, struct cudyn__flight *f, struct cudyn__cache_entry *e)
{
    pthread_mutex_lock(&flights_lock);
    while (!f->landed)
        pthread_cond_wait(&flights_landed, &flights_lock);
    pthread_mutex_unlock(&flights_lock);
    /* landed: the result no longer changes */
    int status = f->status;
    cudyn__error_restore(&f->error);
    memset(e, 0, sizeof *e);
    if (f->have_entry && cudyn__cache_entry_copy(e, &f->entry) != 0)
        status = cudyn__fail_oom(api);
    else if (!f->have_entry && status == CUDYN_OK)
        status = cudyn__fail_oom(api); /* the leader could not copy its result */
    leave(f);
    return status;
}
