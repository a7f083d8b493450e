/*
 * mock_stream.c - streams and events.  Work runs when it is submitted, so
 * a stream is always idle (unless it captures: mock_graph.c); events keep
 * the host time they were recorded at.  Both belong to the context current
 * when they were made and are known by handle lookup, so a stale handle is
 * refused, never read.
 */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "mock.h"

struct CUstream_st {
    struct CUctx_st *ctx;
    struct CUstream_st *next;
};

struct CUevent_st {
    struct CUctx_st *ctx;
    unsigned int flags;
    int recorded;
    double recorded_ms;
    struct CUevent_st *next;
};

static struct CUstream_st *streams;
static struct CUevent_st *events;

/* CU_STREAM_LEGACY and CU_STREAM_PER_THREAD: the two default streams by name */
#define STREAM_LEGACY ((cu_stream)(uintptr_t)1)
#define STREAM_PER_THREAD ((cu_stream)(uintptr_t)2)

static struct CUstream_st *stream_live_locked(cu_stream s)
{
    for (struct CUstream_st *x = streams; x; x = x->next)
        if (x == s)
            return x;
    return NULL;
}

static struct CUevent_st *event_live_locked(cu_event e)
{
    for (struct CUevent_st *x = events; x; x = x->next)
        if (x == e)
            return x;
    return NULL;
}

cu_result stream_context(cu_stream s, struct CUctx_st **owner)
{
    struct CUctx_st *ctx;
    cu_result r = ctx_need_current(&ctx);
    *owner = ctx;
    if (r || !s || s == STREAM_LEGACY || s == STREAM_PER_THREAD)
        return r;
    pthread_mutex_lock(&mock.lock);
    const struct CUstream_st *x = stream_live_locked(s);
    if (x)
        *owner = x->ctx;
    pthread_mutex_unlock(&mock.lock);
    return x ? CU_OK : CU_ERR_INVALID_HANDLE;
}

cu_result stream_usable(cu_stream s)
{
    struct CUctx_st *owner;
    return stream_context(s, &owner);
}

static cu_result stream_get_ctx(cu_stream s, cu_context *ctx)
{
    struct CUctx_st *owner;
    cu_result r = stream_context(s, &owner);
    if (r == CU_OK)
        *ctx = owner;
    return r;
}

TWO_FLAVOURS(cuStreamGetCtx, cuStreamGetCtx_ptsz, (cu_stream s, cu_context *ctx), stream_get_ctx(s, ctx))

void streams_release_context(const struct CUctx_st *ctx)
{
    pthread_mutex_lock(&mock.lock);
    MOCK_LIST_UNLINK_IF(struct CUstream_st, streams, x, x->ctx == ctx, free(x));
    MOCK_LIST_UNLINK_IF(struct CUevent_st, events, x, x->ctx == ctx, free(x));
    pthread_mutex_unlock(&mock.lock);
}

/* ------------------------------------------------------------------ streams */

cu_result cuStreamCreate(cu_stream *s, unsigned int flags)
{
    ENTER("cuStreamCreate");
    struct CUctx_st *ctx;
    cu_result r = ctx_need_current(&ctx);
    if (r)
        return r;
    if (!s || flags > CU_STREAM_FLAG_NON_BLOCKING)
        return CU_ERR_INVALID_VALUE;
    struct CUstream_st *x = calloc(1, sizeof *x);
    if (!x)
        return CU_ERR_OUT_OF_MEMORY;
    x->ctx = ctx;
    pthread_mutex_lock(&mock.lock);
    x->next = streams;
    streams = x;
    pthread_mutex_unlock(&mock.lock);
    *s = x;
    return CU_OK;
}

cu_result cuStreamDestroy_v2(cu_stream s)
{
    ENTER("cuStreamDestroy_v2");
    NEED_CONTEXT();
    struct CUstream_st *found = NULL;
    pthread_mutex_lock(&mock.lock);
    MOCK_LIST_UNLINK_IF(struct CUstream_st, streams, x, !found && x == s, found = x);
    if (found)
        free(found);
    pthread_mutex_unlock(&mock.lock);
    return found ? CU_OK : CU_ERR_INVALID_HANDLE;
}

/* Streams the mock libnccl holds busy (a collective that never ends), by
 * handle: NULL stands for a default stream, by whichever name. */
#define MAX_HELD 16
static cu_stream held[MAX_HELD];
static int n_held;

static cu_stream held_key(cu_stream s)
{
    return s == STREAM_LEGACY || s == STREAM_PER_THREAD ? NULL : s;
}

void mock_stream_hold(void *stream_handle, int hold)
{
    cu_stream stream = held_key(stream_handle);
    pthread_mutex_lock(&mock.lock);
    int i = 0;
    while (i < n_held && held[i] != stream)
        i++;
    if (hold && i == n_held && n_held < MAX_HELD)
        held[n_held++] = stream;
    else if (!hold && i < n_held)
        held[i] = held[--n_held];
    pthread_mutex_unlock(&mock.lock);
}

static int stream_held(cu_stream s)
{
    pthread_mutex_lock(&mock.lock);
    int found = 0;
    for (int i = 0; i < n_held; i++)
        found |= held[i] == held_key(s);
    pthread_mutex_unlock(&mock.lock);
    return found;
}

/* Everything submitted has run: what is left to report is a fault.  A
 * synchronisation is when memory pools give memory back.  A stream the
 * mock libnccl holds is still at work: a query says so, and waiting for
 * it, which would never end, is refused. */
static cu_result stream_wait(cu_stream s, int query)
{
    cu_result r = stream_usable(s);
    if (!r)
        r = capture_blocks_wait(s);
    if (r)
        return r;
    if (stream_held(s))
        return query ? CU_ERR_NOT_READY
                     : mock_refuse("a wait for a stream whose NCCL collective never finishes (it would never end)");
    pools_settle();
    return mock.sticky_error;
}

static cu_result stream_wait_event(cu_stream s, cu_event e, unsigned int flags)
{
    cu_result r = stream_usable(s);
    if (r)
        return r;
    if (stream_capturing(s))
        return mock_refuse("an event wait in a stream capture");
    pthread_mutex_lock(&mock.lock);
    int ok = event_live_locked(e) != NULL;
    pthread_mutex_unlock(&mock.lock);
    if (!ok)
        return CU_ERR_INVALID_HANDLE;
    return flags > 1 ? CU_ERR_INVALID_VALUE : CU_OK; /* CU_EVENT_WAIT_DEFAULT or _EXTERNAL */
}

TWO_FLAVOURS(cuStreamSynchronize, cuStreamSynchronize_ptsz, (cu_stream s), stream_wait(s, 0))
TWO_FLAVOURS(cuStreamQuery, cuStreamQuery_ptsz, (cu_stream s), stream_wait(s, 1))
TWO_FLAVOURS(cuStreamWaitEvent, cuStreamWaitEvent_ptsz, (cu_stream s, cu_event e, unsigned int f),
             stream_wait_event(s, e, f))

/* ------------------------------------------------------------------- events */

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* CU_EVENT_DEFAULT, _BLOCKING_SYNC, _DISABLE_TIMING, _INTERPROCESS */
#define EVENT_FLAGS 0x7u

cu_result cuEventCreate(cu_event *e, unsigned int flags)
{
    ENTER("cuEventCreate");
    struct CUctx_st *ctx;
    cu_result r = ctx_need_current(&ctx);
    if (r)
        return r;
    if (!e || (flags & ~EVENT_FLAGS))
        return CU_ERR_INVALID_VALUE;
    struct CUevent_st *x = calloc(1, sizeof *x);
    if (!x)
        return CU_ERR_OUT_OF_MEMORY;
    x->ctx = ctx;
    x->flags = flags;
    pthread_mutex_lock(&mock.lock);
    x->next = events;
    events = x;
    pthread_mutex_unlock(&mock.lock);
    *e = x;
    return CU_OK;
}

/* As the real driver: an event is recorded on a stream of its own context
 * (the NULL stream is the current context's), whatever is current. */
static cu_result record(cu_event e, cu_stream s)
{
    struct CUctx_st *owner;
    cu_result r = stream_context(s, &owner);
    if (r)
        return r;
    if (stream_capturing(s))
        return mock_refuse("an event record in a stream capture");
    double t = now_ms();
    pthread_mutex_lock(&mock.lock);
    struct CUevent_st *x = event_live_locked(e);
    int ok = x && x->ctx == owner;
    if (ok) {
        x->recorded = 1;
        x->recorded_ms = t;
    }
    pthread_mutex_unlock(&mock.lock);
    return ok ? CU_OK : CU_ERR_INVALID_HANDLE;
}

TWO_FLAVOURS(cuEventRecord, cuEventRecord_ptsz, (cu_event e, cu_stream s), record(e, s))

/* An event has completed as soon as it is recorded; a fault is reported. */
static cu_result event_wait(cu_event e)
{
    NEED_CONTEXT();
    pthread_mutex_lock(&mock.lock);
    int ok = event_live_locked(e) != NULL;
    pthread_mutex_unlock(&mock.lock);
    if (ok)
        pools_settle();
    return ok ? mock.sticky_error : CU_ERR_INVALID_HANDLE;
}

cu_result cuEventSynchronize(cu_event e)
{
    ENTER("cuEventSynchronize");
    return event_wait(e);
}

cu_result cuEventQuery(cu_event e)
{
    ENTER("cuEventQuery");
    return event_wait(e);
}

/* Both events must be recorded and keep timing, as the driver requires. */
static cu_result elapsed(float *ms, cu_event a, cu_event b)
{
    NEED_CONTEXT();
    if (!ms)
        return CU_ERR_INVALID_VALUE;
    cu_result r = CU_ERR_INVALID_HANDLE;
    pthread_mutex_lock(&mock.lock);
    const struct CUevent_st *x = event_live_locked(a), *y = event_live_locked(b);
    if (x && y && x->recorded && y->recorded && !((x->flags | y->flags) & CU_EVENT_FLAG_DISABLE_TIMING)) {
        *ms = (float)(y->recorded_ms - x->recorded_ms);
        r = CU_OK;
    }
    pthread_mutex_unlock(&mock.lock);
    return r;
}

cu_result cuEventElapsedTime(float *ms, cu_event a, cu_event b)
{
    ENTER("cuEventElapsedTime");
    return elapsed(ms, a, b);
}

cu_result cuEventElapsedTime_v2(float *ms, cu_event a, cu_event b)
{
    ENTER("cuEventElapsedTime_v2");
    return elapsed(ms, a, b);
}

cu_result cuEventDestroy_v2(cu_event e)
{
    ENTER("cuEventDestroy_v2");
    NEED_CONTEXT();
    struct CUevent_st *found = NULL;
    pthread_mutex_lock(&mock.lock);
    MOCK_LIST_UNLINK_IF(struct CUevent_st, events, x, !found && x == e, found = x);
    if (found)
        free(found);
    pthread_mutex_unlock(&mock.lock);
    return found ? CU_OK : CU_ERR_INVALID_HANDLE;
}

/* ---- IPC event handles: the mock runs work at submission, so an event
 * another process recorded is complete; the handle names the exporter so
 * that the exporter itself and a process outliving it are refused. */
struct ipc_event_wire {
    char magic[8]; /* "mockEVT" */
    int32_t pid;
};
static const char ipc_event_magic[8] = "mockEVT";

cu_result cuIpcGetEventHandle(cu_ipc_event_handle *handle, cu_event e)
{
    ENTER("cuIpcGetEventHandle");
    NEED_CONTEXT();
    pthread_mutex_lock(&mock.lock);
    struct CUevent_st *x = event_live_locked(e);
    int interprocess = x && (x->flags & 6u) == 6u; /* CU_EVENT_INTERPROCESS | CU_EVENT_DISABLE_TIMING */
    pthread_mutex_unlock(&mock.lock);
    if (!handle || !x)
        return CU_ERR_INVALID_HANDLE;
    if (!interprocess)
        return CU_ERR_INVALID_VALUE;
    struct ipc_event_wire w = {.pid = (int32_t)getpid()};
    memcpy(w.magic, ipc_event_magic, sizeof w.magic);
    memset(handle, 0, sizeof *handle);
    memcpy(handle, &w, sizeof w);
    return CU_OK;
}

cu_result cuIpcOpenEventHandle(cu_event *e, cu_ipc_event_handle handle)
{
    ENTER("cuIpcOpenEventHandle");
    struct ipc_event_wire w;
    memcpy(&w, &handle, sizeof w);
    if (!e || memcmp(w.magic, ipc_event_magic, sizeof w.magic) != 0)
        return CU_ERR_INVALID_VALUE;
    if (w.pid == (int32_t)getpid())
        return CU_ERR_INVALID_CONTEXT;
    if (kill((pid_t)w.pid, 0) != 0 && errno == ESRCH)
        return CU_ERR_INVALID_HANDLE;
    cu_result r = cuEventCreate(e, 6u);
    if (r == CU_OK) {
        pthread_mutex_lock(&mock.lock);
        event_live_locked(*e)->recorded = 1;
        pthread_mutex_unlock(&mock.lock);
    }
    return r;
}
