/*
 * nccl/comm.c - communicators: which handles are live, what they are,
 * what holds them, their asynchronous errors, waiting in bounded time,
 * abort and destroy; the stream NCCL is given; and how NCCL's results
 * become statuses.  Making them is init.c's.
 *
 * cudyn hands out its own handle around NCCL's: a list of the live ones
 * (comms_lock) lets every call refuse a destroyed or made-up handle
 * instead of passing it to NCCL, and an aborted one (its NCCL
 * communicator gone) is told apart until it is destroyed.  A group not
 * yet ended holds the communicators it will hand to NCCL (`held`):
 * destroy, abort and wait refuse those, so that the end never meets a
 * freed or aborted one.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hints.h"
#include "loader/loader.h"
#include "nccl/nccl.h"

static pthread_mutex_t comms_lock = PTHREAD_MUTEX_INITIALIZER;
static struct cudyn_nccl_comm_st *comms;

int cudyn__fail_nccl(nccl_result r, const char *fn, const char *api, nccl_comm comm)
{
    const char *name = "an unknown ncclResult_t";
    int status = CUDYN_ERROR_NCCL;
#define NCCL_RESULT_ROW(n, value, st)                                                                          \
    if (r == value) {                                                                                          \
        name = #n;                                                                                             \
        status = st;                                                                                           \
    }
    NCCL_RESULT_MAP(NCCL_RESULT_ROW)
#undef NCCL_RESULT_ROW
    const char *text = cudyn__nccl.ncclGetErrorString ? cudyn__nccl.ncclGetErrorString(r) : NULL;
    const char *last = NCCL_HAS(ncclGetLastError) ? cudyn__nccl.ncclGetLastError(comm) : NULL;
    return cudyn__fail(status, CUDYN_ORIGIN_NCCL, r, name, fn,
                       status == CUDYN_ERROR_NCCL_REMOTE ? HINT_NCCL_PEER : NULL, "%s: %s returned %s (%s)%s%s", api,
                       fn, name, text ? text : "no ncclGetErrorString", last && last[0] ? "; NCCL says: " : "",
                       last ? last : "");
}

int cudyn__nccl_stream(const char *api, cudyn_stream stream, nccl_stream *out)
{
    *out = (nccl_stream)(void *)stream;
    if (!stream) {
        if (cudyn__driver.per_thread_stream)
            *out = (nccl_stream)(uintptr_t)2; /* CU_STREAM_PER_THREAD: cudyn's NULL stream in that mode */
        return CUDYN_OK;
    }
    /* NCCL would take any pointer as a stream and write through it: the
     * driver's answer first, as cudyn's waits (cuStreamQuery) have it */
    cu_context ctx = NULL;
    cu_result r = DRIVER_HAS(cuStreamGetCtx) ? cudyn__drv.cuStreamGetCtx(CU_STREAM(stream), &ctx) : CU_OK;
    if (r == CU_OK)
        return CUDYN_OK;
    int st = cudyn__fail_driver(r, "cuStreamGetCtx", api);
    cudyn__error_append("; argument 'stream' (%p) is not a stream of the driver", (void *)stream);
    return st;
}

/* ---- the live communicators ---- */

cudyn_nccl_comm cudyn__nccl_new_handle(void)
{
    struct cudyn_nccl_comm_st *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    pthread_mutex_lock(&comms_lock);
    c->next = comms;
    comms = c;
    pthread_mutex_unlock(&comms_lock);
    return c;
}

void cudyn__nccl_comm_hold(cudyn_nccl_comm comm)
{
    pthread_mutex_lock(&comms_lock);
    comm->held++;
    pthread_mutex_unlock(&comms_lock);
}

void cudyn__nccl_comm_let_go(cudyn_nccl_comm comm)
{
    pthread_mutex_lock(&comms_lock);
    comm->held--;
    pthread_mutex_unlock(&comms_lock);
}

/* Whether c is live and whether a group holds it, as one answer. */
enum standing { NOT_LIVE, FREE, HELD };

static enum standing standing_locked(const struct cudyn_nccl_comm_st *c)
{
    for (const struct cudyn_nccl_comm_st *x = comms; x; x = x->next)
        if (x == c)
            return c->held > 0 ? HELD : FREE;
    return NOT_LIVE;
}

static enum standing standing_of(cudyn_nccl_comm c)
{
    pthread_mutex_lock(&comms_lock);
    enum standing s = standing_locked(c);
    pthread_mutex_unlock(&comms_lock);
    return s;
}

/* Takes c out of the list of live ones unless a group holds it; what it
 * was. */
static enum standing forget(cudyn_nccl_comm c)
{
    pthread_mutex_lock(&comms_lock);
    enum standing s = standing_locked(c);
    for (struct cudyn_nccl_comm_st **link = &comms; s == FREE && *link; link = &(*link)->next)
        if (*link == c) {
            *link = c->next;
            break;
        }
    pthread_mutex_unlock(&comms_lock);
    return s;
}

int cudyn__nccl_drop(cudyn_nccl_comm c, int st)
{
    forget(c);
    free(c);
    return st;
}

/* The refusal of api (destroy, abort, wait) for a communicator an open
 * group holds. */
static int fail_held(const char *api, cudyn_nccl_comm comm)
{
    return cudyn__fail(CUDYN_ERROR_INVALID_ARGUMENT, CUDYN_ORIGIN_LIBRARY, 0, NULL, api, NULL,
                       "%s: comm %p is in use by a group not yet ended (calls kept for its end, or a split or init "
                       "NCCL finishes there): end the group first (cudyn_nccl_group_end)",
                       api, (void *)comm);
}

/* ---- using one ---- */

/* rank, nranks and device of a communicator NCCL has made. */
static int learn(const char *api, cudyn_nccl_comm comm)
{
    const char *fn = "ncclCommUserRank";
    nccl_result r = cudyn__nccl.ncclCommUserRank(comm->nccl, &comm->rank);
    if (r == NCCL_OK) {
        fn = "ncclCommCount";
        r = cudyn__nccl.ncclCommCount(comm->nccl, &comm->nranks);
    }
    if (r == NCCL_OK) {
        fn = "ncclCommCuDevice";
        r = cudyn__nccl.ncclCommCuDevice(comm->nccl, &comm->device);
    }
    if (r != NCCL_OK)
        return cudyn__fail_nccl(r, fn, api, comm->nccl);
    comm->known = true;
    return CUDYN_OK;
}

int cudyn__nccl_comm_use(const char *api, cudyn_nccl_comm comm)
{
    if (!comm)
        return cudyn__fail_arg(api, "comm", "must not be NULL");
    int st = cudyn__need_nccl();
    if (st != CUDYN_OK)
        return st;
    if (standing_of(comm) == NOT_LIVE)
        return cudyn__fail(CUDYN_ERROR_INVALID_HANDLE, CUDYN_ORIGIN_LIBRARY, 0, NULL, api, NULL,
                           "%s: comm %p is not a live communicator (destroyed, or not made by "
                           "cudyn_nccl_comm_init_*)",
                           api, (void *)comm);
    if (comm->aborted)
        return cudyn__fail(CUDYN_ERROR_INVALID_HANDLE, CUDYN_ORIGIN_LIBRARY, 0, NULL, api, HINT_NCCL_ABORTED,
                           "%s: communicator rank %d of %d was aborted", api, comm->rank, comm->nranks);
    if (!comm->nccl)
        return cudyn__fail(CUDYN_ERROR_INVALID_HANDLE, CUDYN_ORIGIN_LIBRARY, 0, NULL, api, NULL,
                           "%s: comm %p is not made yet: the group that makes it has not ended "
                           "(cudyn_nccl_group_end), or it failed",
                           api, (void *)comm);
    st = comm->known ? CUDYN_OK : learn(api, comm);
    return st == CUDYN_OK ? cudyn__need_context(api) : st;
}

CUDYN_API int cudyn_nccl_comm_rank(cudyn_nccl_comm comm, int *rank, int *nranks, int *device)
{
    int st = cudyn__nccl_comm_use("cudyn_nccl_comm_rank", comm);
    if (st != CUDYN_OK)
        return st;
    if (rank)
        *rank = comm->rank;
    if (nranks)
        *nranks = comm->nranks;
    if (device)
        *device = comm->device;
    return CUDYN_OK;
}

/* NCCL's asynchronous error of a live communicator, as a status. */
static int async_error(const char *api, cudyn_nccl_comm comm)
{
    nccl_result async = NCCL_OK;
    nccl_result r = cudyn__nccl.ncclCommGetAsyncError(comm->nccl, &async);
    if (r == NCCL_OK)
        r = async == NCCL_IN_PROGRESS ? NCCL_OK : async; /* a non-blocking one still at work */
    return r == NCCL_OK ? CUDYN_OK : cudyn__fail_nccl(r, "ncclCommGetAsyncError", api, comm->nccl);
}

CUDYN_API int cudyn_nccl_comm_check(cudyn_nccl_comm comm)
{
    static const char api[] = "cudyn_nccl_comm_check";
    int st = cudyn__nccl_comm_use(api, comm);
    return st == CUDYN_OK ? async_error(api, comm) : st;
}

/* Aborts a live communicator; its handle stays until destroyed. */
static int abort_comm(const char *api, cudyn_nccl_comm comm)
{
    nccl_comm n = comm->nccl;
    comm->nccl = NULL;
    comm->aborted = true;
    nccl_result r = cudyn__nccl.ncclCommAbort(n);
    return r == NCCL_OK ? CUDYN_OK : cudyn__fail_nccl(r, "ncclCommAbort", api, NULL);
}

/* The failure `st` of a wait, after which the communicator is aborted. */
static int abort_after(const char *api, cudyn_nccl_comm comm, int st)
{
    cudyn_error failure;
    cudyn__error_save(&failure);
    int aborted = abort_comm(api, comm);
    cudyn__error_restore(&failure);
    cudyn__error_append("; the communicator was %s", aborted == CUDYN_OK ? "aborted" : "aborted, with an error");
    return st;
}

static void pause_us(long us)
{
    struct timespec ts = {us / 1000000, us % 1000000 * 1000};
    nanosleep(&ts, NULL);
}

CUDYN_API int cudyn_nccl_comm_wait(cudyn_nccl_comm comm, cudyn_stream stream, int timeout_ms)
{
    static const char api[] = "cudyn_nccl_comm_wait";
    int st = cudyn__nccl_comm_use(api, comm);
    if (st != CUDYN_OK)
        return st;
    if (standing_of(comm) == HELD) /* its kept calls have not started, and an error would abort it */
        return fail_held(api, comm);
    double start = cudyn__now_ms();
    /* polls at once at first (short work ends within microseconds), then
     * further and further apart, up to a millisecond */
    for (long polls = 0, pause = 0;; polls++, pause = polls < 64 ? 0 : pause < 500 ? pause * 2 + 1 : 1000) {
        int done = cudyn_stream_query(stream);
        st = async_error(api, comm); /* also once the stream is done: its results are not to be trusted */
        if (st != CUDYN_OK)
            return abort_after(api, comm, st);
        if (done != CUDYN_ERROR_NOT_READY)
            return done; /* CUDYN_OK, or the stream's own failure, already recorded */
        double waited = cudyn__now_ms() - start;
        if (timeout_ms >= 0 && waited >= timeout_ms)
            return abort_after(api, comm,
                               cudyn__fail(CUDYN_ERROR_TIMEOUT, CUDYN_ORIGIN_LIBRARY, 0, NULL, api, HINT_NCCL_STUCK,
                                           "%s: the work queued for rank %d of %d did not finish within %d ms, "
                                           "and NCCL reported no error",
                                           api, comm->rank, comm->nranks, timeout_ms));
        if (pause)
            pause_us(pause);
    }
}

CUDYN_API int cudyn_nccl_comm_abort(cudyn_nccl_comm comm)
{
    static const char api[] = "cudyn_nccl_comm_abort";
    int st = cudyn__nccl_comm_use(api, comm);
    if (st == CUDYN_OK && standing_of(comm) == HELD)
        st = fail_held(api, comm);
    return st == CUDYN_OK ? abort_comm(api, comm) : st;
}

CUDYN_API int cudyn_nccl_comm_destroy(cudyn_nccl_comm comm)
{
    static const char api[] = "cudyn_nccl_comm_destroy";
    if (!comm)
        return CUDYN_OK;
    enum standing s = forget(comm);
    if (s == HELD)
        return fail_held(api, comm);
    if (s == NOT_LIVE)
        return cudyn__fail(CUDYN_ERROR_INVALID_HANDLE, CUDYN_ORIGIN_LIBRARY, 0, NULL, api, NULL,
                           "%s: comm %p is not a live communicator (destroyed already?)", api, (void *)comm);
    /* In a child forked after CUDA was initialised, the communicator (its
     * device memory, its connections to the peers) is the parent's: the
     * handle goes, NCCL is not called, and the status says why. */
    int st = cudyn__need_driver();
    nccl_result r = st == CUDYN_OK && comm->nccl ? cudyn__nccl.ncclCommDestroy(comm->nccl) : NCCL_OK;
    free(comm);
    if (st != CUDYN_OK)
        return st;
    return r == NCCL_OK ? CUDYN_OK : cudyn__fail_nccl(r, "ncclCommDestroy", api, NULL);
}
