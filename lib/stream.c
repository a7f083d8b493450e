/*
 * stream.c - streams and events.  cudyn_stream and cudyn_event are the
 * driver's CUstream and CUevent; NULL is the default stream, legacy or
 * per-thread as chosen at initialisation.
 */
#include "config.h"

#include <pthread.h>
#include <stdlib.h>

#include "internal.h"

#define CU_EVENT(e) ((cu_event)(void *)(e))

/* The context each event cudyn made belongs to, so a record on another
 * context's stream (the driver says only "invalid handle") can be named.
 * Events are few and made outside hot loops: a locked list will do; an
 * event missing from it (made elsewhere, or the list could not grow) is
 * only described less precisely. */
static pthread_mutex_t events_lock = PTHREAD_MUTEX_INITIALIZER;
static struct event_owner {
    cu_event event;
    cu_context ctx;
} *event_owners;
static size_t n_event_owners, cap_event_owners;

static void remember_event(cu_event e, cu_context ctx)
{
    pthread_mutex_lock(&events_lock);
    if (n_event_owners == cap_event_owners) {
        size_t cap = cap_event_owners ? 2 * cap_event_owners : 64;
        struct event_owner *grown = realloc(event_owners, cap * sizeof *grown);
        if (grown) {
            event_owners = grown;
            cap_event_owners = cap;
        }
    }
    if (n_event_owners < cap_event_owners)
        event_owners[n_event_owners++] = (struct event_owner){e, ctx};
    pthread_mutex_unlock(&events_lock);
}

/* e's context, or NULL if unknown; `forget` drops it from the list. */
static cu_context event_owner(cu_event e, bool forget)
{
    cu_context ctx = NULL;
    pthread_mutex_lock(&events_lock);
    for (size_t i = 0; i < n_event_owners; i++)
        if (event_owners[i].event == e) {
            ctx = event_owners[i].ctx;
            if (forget)
                event_owners[i] = event_owners[--n_event_owners];
            break;
        }
    pthread_mutex_unlock(&events_lock);
    return ctx;
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
    if (flags & ~(CUDYN_EVENT_BLOCKING_SYNC | CUDYN_EVENT_DISABLE_TIMING))
        return cudyn__fail_arg(api, "flags", "has unknown bits");
    int st = cudyn__need_context(api);
    if (st != CUDYN_OK)
        return st;
    unsigned int cu_flags = ((flags & CUDYN_EVENT_BLOCKING_SYNC) ? CU_EVENT_FLAG_BLOCKING_SYNC : 0) |
                            ((flags & CUDYN_EVENT_DISABLE_TIMING) ? CU_EVENT_FLAG_DISABLE_TIMING : 0);
    cu_event e = NULL;
    CUDYN_TRY_DRIVER(cudyn__drv.cuEventCreate(&e, cu_flags), "cuEventCreate", api);
    remember_event(e, cudyn__stream_context(NULL));
    *out = (cudyn_event)(void *)e;
    return CUDYN_OK;
}

CUDYN_API int cudyn_event_destroy(cudyn_event event)
{
    static const char api[] = "cudyn_event_destroy";
    int st = event_call_ready(api, event);
    if (st != CUDYN_OK)
        return st;
    CUDYN_TRY_DRIVER(cudyn__drv.cuEventDestroy_v2(CU_EVENT(event)), "cuEventDestroy", api);
    (void)event_owner(CU_EVENT(event), true);
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
        cu_context owner = event_owner(CU_EVENT(event), false), in = cudyn__stream_context(stream);
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
