/*
 * stream.c - streams and events.  cudyn_stream and cudyn_event are the
 * driver's CUstream and CUevent; NULL is the default stream, legacy or
 * per-thread as chosen at initialisation.
 */
#include "config.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

#include "api/api.h"

#define CU_EVENT(e) ((cu_event)(void *)(e))

/*
 * The context each event cudyn made belongs to, so a record on another
 * context's stream (the driver says only "invalid handle") can be named.
 * The driver cannot tell an event's context (there is no cuEventGetCtx,
 * and no call answers it without side effects), so cudyn keeps it: taken
 * at create (a lock and cuCtxGetCurrent; creating events is no hot path,
 * recording them is and costs nothing here), dropped at destroy (whatever
 * the driver answers: the caller has given the handle up) and when a reset
 * or the last release destroys the context.  A handle the driver hands
 * out again replaces what was known of it.  An event missing here (made
 * elsewhere, or no memory for its entry) is only described less precisely.
 */
#define EVENT_BUCKETS 256

struct event_owner {
    cu_event event;
    cu_context ctx;
    struct event_owner *next;
};

static pthread_mutex_t events_lock = PTHREAD_MUTEX_INITIALIZER;
static struct event_owner *event_owners[EVENT_BUCKETS];

/* The link to e's entry, or the empty link ending its bucket (events_lock
 * held). */
static struct event_owner **event_link(cu_event e)
{
    struct event_owner **link = &event_owners[((uintptr_t)e >> 4) % EVENT_BUCKETS];
    while (*link && (*link)->event != e)
        link = &(*link)->next;
    return link;
}

static void remember_event(cu_event e, cu_context ctx)
{
    pthread_mutex_lock(&events_lock);
    struct event_owner **link = event_link(e);
    if (!*link && (*link = malloc(sizeof **link)))
        **link = (struct event_owner){e, NULL, NULL};
    if (*link)
        (*link)->ctx = ctx;
    pthread_mutex_unlock(&events_lock);
}

static void forget_event(cu_event e)
{
    pthread_mutex_lock(&events_lock);
    struct event_owner **link = event_link(e), *gone = *link;
    if (gone) {
        *link = gone->next;
        free(gone);
    }
    pthread_mutex_unlock(&events_lock);
}

/* e's context, or NULL if unknown. */
static cu_context event_owner(cu_event e)
{
    pthread_mutex_lock(&events_lock);
    struct event_owner *known = *event_link(e);
    cu_context ctx = known ? known->ctx : NULL;
    pthread_mutex_unlock(&events_lock);
    return ctx;
}

void cudyn__events_forget_context(cu_context ctx)
{
    pthread_mutex_lock(&events_lock);
    for (size_t b = 0; b < EVENT_BUCKETS; b++)
        for (struct event_owner **link = &event_owners[b]; *link;) {
            struct event_owner *o = *link;
            if (o->ctx == ctx) {
                *link = o->next;
                free(o);
            } else {
                link = &o->next;
            }
        }
    pthread_mutex_unlock(&events_lock);
}

/* The context a stream's work runs in: the current one for the NULL stream. */
cu_context cudyn__stream_context(cudyn_stream stream)
{
    cu_context ctx = NULL;
    cu_result r = stream ? (DRIVER_HAS(cuStreamGetCtx) ? cudyn__drv.cuStreamGetCtx((cu_stream)(void *)stream, &ctx)
                                                       : CU_ERR_NOT_SUPPORTED)
                         : cudyn__drv.cuCtxGetCurrent(&ctx);
    return r == CU_OK ? ctx : NULL;
}

/* Query results: NOT_READY is an answer, not a failure, so the thread's
 * last error is left alone for it. */
static int query_result(cu_result r, const char *cufn, const char *api)
{
    if (r == CU_OK)
        return CUDYN_OK;
    if (r == CU_ERR_NOT_READY)
        return CUDYN_ERROR_NOT_READY;
    return cudyn__fail_driver(r, cufn, api);
}

/* What every call on a given event checks first: that there is one, and
 * that the thread has a context. */
static int event_call_ready(const char *api, cudyn_event event)
{
    if (!event)
        return cudyn__fail_arg(api, "event", "must not be NULL");
    return cudyn__need_context(api);
}

CUDYN_API int cudyn_stream_create(cudyn_stream *out, unsigned int flags)
{
    static const char api[] = "cudyn_stream_create";
    if (!out)
        return cudyn__fail_arg(api, "out", "must not be NULL");
    *out = NULL;
    if (flags & ~CUDYN_STREAM_NON_BLOCKING)
        return cudyn__fail_arg(api, "flags", "has unknown bits (use CUDYN_STREAM_DEFAULT or CUDYN_STREAM_NON_BLOCKING)");
    int st = cudyn__need_context(api);
    if (st != CUDYN_OK)
        return st;
    cu_stream s = NULL;
    unsigned int cu_flags = (flags & CUDYN_STREAM_NON_BLOCKING) ? CU_STREAM_FLAG_NON_BLOCKING : 0;
    CUDYN_TRY_DRIVER(cudyn__drv.cuStreamCreate(&s, cu_flags), "cuStreamCreate", api);
    *out = (cudyn_stream)(void *)s;
    return CUDYN_OK;
}

CUDYN_API int cudyn_stream_destroy(cudyn_stream stream)
{
    static const char api[] = "cudyn_stream_destroy";
    if (!stream)
        return cudyn__fail_arg(api, "stream", "must not be NULL (the default stream cannot be destroyed)");
    int st = cudyn__need_context(api);
    if (st != CUDYN_OK)
        return st;
    CUDYN_TRY_DRIVER(cudyn__drv.cuStreamDestroy_v2(CU_STREAM(stream)), "cuStreamDestroy", api);
    return CUDYN_OK;
}

CUDYN_API int cudyn_stream_synchronize(cudyn_stream stream)
{
    static const char api[] = "cudyn_stream_synchronize";
    int st = cudyn__need_context(api);
    if (st != CUDYN_OK)
        return st;
    CUDYN_TRY_DRIVER(cudyn__drv.cuStreamSynchronize(CU_STREAM(stream)), "cuStreamSynchronize", api);
    return CUDYN_OK;
}

CUDYN_API int cudyn_stream_query(cudyn_stream stream)
{
    static const char api[] = "cudyn_stream_query";
    int st = cudyn__need_context(api);
    if (st != CUDYN_OK)
        return st;
    cu_result r;
    CUDYN_DRIVER_CALL(r, cudyn__drv.cuStreamQuery(CU_STREAM(stream)), api);
    return query_result(r, "cuStreamQuery", api);
}

CUDYN_API int cudyn_stream_wait_event(cudyn_stream stream, cudyn_event event)
{
    static const char api[] = "cudyn_stream_wait_event";
    int st = event_call_ready(api, event);
    if (st != CUDYN_OK)
        return st;
    CUDYN_TRY_DRIVER(cudyn__drv.cuStreamWaitEvent(CU_STREAM(stream), CU_EVENT(event), 0), "cuStreamWaitEvent", api);
    return CUDYN_OK;
}

CUDYN_API int cudyn_event_create(cudyn_event *out, unsigned int flags)
{
    static const char api[] = "cudyn_event_create";
    if (!out)
        return cudyn__fail_arg(api, "out", "must not be NULL");
    *out = NULL;
    if (flags & ~(CUDYN_EVENT_BLOCKING_SYNC | CUDYN_EVENT_INTERPROCESS))
        return cudyn__fail_arg(api, "flags", "has unknown bits");
    const unsigned int interprocess_bit = CUDYN_EVENT_INTERPROCESS & ~CUDYN_EVENT_DISABLE_TIMING;
    if ((flags & interprocess_bit) && !(flags & CUDYN_EVENT_DISABLE_TIMING))
        return cudyn__fail_arg(api, "flags", "has the interprocess bit without CUDYN_EVENT_DISABLE_TIMING (use "
                                             "CUDYN_EVENT_INTERPROCESS, which includes it)");
    int st = cudyn__need_context(api);
    if (st != CUDYN_OK)
        return st;
    unsigned int cu_flags = ((flags & CUDYN_EVENT_BLOCKING_SYNC) ? CU_EVENT_FLAG_BLOCKING_SYNC : 0) |
                            ((flags & CUDYN_EVENT_DISABLE_TIMING) ? CU_EVENT_FLAG_DISABLE_TIMING : 0) |
                            ((flags & interprocess_bit) ? CU_EVENT_FLAG_INTERPROCESS : 0);
    cu_event e = NULL;
    CUDYN_TRY_DRIVER(cudyn__drv.cuEventCreate(&e, cu_flags), "cuEventCreate", api);
    remember_event(e, cudyn__stream_context(NULL));
    *out = (cudyn_event)(void *)e;
    return CUDYN_OK;
}

void cudyn__event_adopt(cu_event e)
{
    remember_event(e, cudyn__stream_context(NULL));
}

CUDYN_API int cudyn_event_destroy(cudyn_event event)
{
    static const char api[] = "cudyn_event_destroy";
    int st = event_call_ready(api, event);
    if (st != CUDYN_OK)
        return st;
    forget_event(CU_EVENT(event)); /* first: once destroyed, another thread may get the handle again */
    CUDYN_TRY_DRIVER(cudyn__drv.cuEventDestroy_v2(CU_EVENT(event)), "cuEventDestroy", api);
    return CUDYN_OK;
}

CUDYN_API int cudyn_event_record(cudyn_event event, cudyn_stream stream)
{
    static const char api[] = "cudyn_event_record";
    int st = event_call_ready(api, event);
    if (st != CUDYN_OK)
        return st;
    cu_result r;
    CUDYN_DRIVER_CALL(r, cudyn__drv.cuEventRecord(CU_EVENT(event), CU_STREAM(stream)), api);
    if (CUDYN_UNLIKELY(r != CU_OK)) {
        cu_context owner = event_owner(CU_EVENT(event)), in = cudyn__stream_context(stream);
        if (r == CU_ERR_INVALID_HANDLE && owner && in && owner != in)
            return cudyn__fail_wrong_context(api, "the event", owner, in);
        return cudyn__fail_driver(r, "cuEventRecord", api);
    }
    return CUDYN_OK;
}

CUDYN_API int cudyn_event_synchronize(cudyn_event event)
{
    static const char api[] = "cudyn_event_synchronize";
    int st = event_call_ready(api, event);
    if (st != CUDYN_OK)
        return st;
    CUDYN_TRY_DRIVER(cudyn__drv.cuEventSynchronize(CU_EVENT(event)), "cuEventSynchronize", api);
    return CUDYN_OK;
}

CUDYN_API int cudyn_event_query(cudyn_event event)
{
    static const char api[] = "cudyn_event_query";
    int st = event_call_ready(api, event);
    if (st != CUDYN_OK)
        return st;
    cu_result r;
    CUDYN_DRIVER_CALL(r, cudyn__drv.cuEventQuery(CU_EVENT(event)), api);
    return query_result(r, "cuEventQuery", api);
}

CUDYN_API int cudyn_event_elapsed_ms(float *ms, cudyn_event start, cudyn_event end)
{
    static const char api[] = "cudyn_event_elapsed_ms";
    if (!ms)
        return cudyn__fail_arg(api, "ms", "must not be NULL");
    *ms = 0;
    if (!start)
        return cudyn__fail_arg(api, "start", "must not be NULL");
    if (!end)
        return cudyn__fail_arg(api, "end", "must not be NULL");
    int st = cudyn__need_context(api);
    if (st != CUDYN_OK)
        return st;
    /* Same signature in both variants; the newest the driver has is used. */
    cu_result r;
    if (DRIVER_HAS(cuEventElapsedTime_v2))
        CUDYN_DRIVER_CALL(r, cudyn__drv.cuEventElapsedTime_v2(ms, CU_EVENT(start), CU_EVENT(end)), api);
    else
        CUDYN_DRIVER_CALL(r, cudyn__drv.cuEventElapsedTime(ms, CU_EVENT(start), CU_EVENT(end)), api);
    if (r != CU_OK)
        return cudyn__fail_driver(r, "cuEventElapsedTime", api);
    return CUDYN_OK;
}
