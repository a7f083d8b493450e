/*
 * nccl/comm.c - communicators: unique ids, making them (one rank, all of
 * a process, a split), what they are, their asynchronous errors, waiting
 * in bounded time, abort and destroy; and how NCCL's results become
 * statuses.
 *
 * cudyn hands out its own handle around NCCL's: a list of the live ones
 * (comms_lock) lets every call refuse a destroyed or made-up handle
 * instead of passing it to NCCL, and an aborted one (its NCCL
 * communicator gone) is told apart until it is destroyed.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hints.h"
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

nccl_stream cudyn__nccl_stream(cudyn_stream stream)
{
    if (stream || !cudyn__driver.per_thread_stream)
        return (nccl_stream)(void *)stream;
    return (nccl_stream)(uintptr_t)2; /* CU_STREAM_PER_THREAD: cudyn's NULL stream in that mode */
}

static bool live_locked(const struct cudyn_nccl_comm_st *c)
{
    for (const struct cudyn_nccl_comm_st *x = comms; x; x = x->next)
        if (x == c)
            return true;
    return false;
}

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
    pthread_mutex_lock(&comms_lock);
    bool live = live_locked(comm);
    pthread_mutex_unlock(&comms_lock);
    if (!live)
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

/* A new handle, live and empty: NCCL writes its communicator into it. */
static cudyn_nccl_comm new_handle(void)
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

/* Takes c out of the list of live ones; false if it was not there. */
static bool forget(cudyn_nccl_comm c)
{
    bool live = false;
    pthread_mutex_lock(&comms_lock);
    for (struct cudyn_nccl_comm_st **link = &comms; *link; link = &(*link)->next)
        if (*link == c) {
            *link = c->next;
            live = true;
            break;
        }
    pthread_mutex_unlock(&comms_lock);
    return live;
}

/* A handle made for a call that failed: NCCL made nothing. */
static int drop(cudyn_nccl_comm c, int st)
{
    forget(c);
    free(c);
    return st;
}

CUDYN_API int cudyn_nccl_unique_id(cudyn_nccl_id *out)
{
    static const char api[] = "cudyn_nccl_unique_id";
    if (!out)
        return cudyn__fail_arg(api, "out", "must not be NULL");
    memset(out, 0, sizeof *out);
    int st = cudyn__need_nccl();
    if (st != CUDYN_OK)
        return st;
    nccl_unique_id id;
    nccl_result r = cudyn__nccl.ncclGetUniqueId(&id);
    if (r != NCCL_OK)
        return cudyn__fail_nccl(r, "ncclGetUniqueId", api, NULL);
    memcpy(out->bytes, id.internal, sizeof out->bytes);
    return CUDYN_OK;
}

static int init_rank(const char *api, cudyn_nccl_comm *out, int nranks, const cudyn_nccl_id *id, int rank)
{
    if (!out)
        return cudyn__fail_arg(api, "out", "must not be NULL");
    *out = NULL;
    if (!id)
        return cudyn__fail_arg(api, "id", "must not be NULL (one rank makes it with cudyn_nccl_unique_id)");
    if (nranks < 1)
        return cudyn__fail_arg(api, "nranks", "must be at least 1");
    if (rank < 0 || rank >= nranks)
        return cudyn__fail(CUDYN_ERROR_INVALID_ARGUMENT, CUDYN_ORIGIN_LIBRARY, 0, NULL, api, NULL,
                           "%s: rank %d is not a rank of %d (0 to %d)", api, rank, nranks, nranks - 1);
    int st = cudyn__need_nccl();
    if (st == CUDYN_OK)
        st = cudyn__need_context(api); /* NCCL takes the thread's current device */
    if (st != CUDYN_OK)
        return st;
    nccl_unique_id nid;
    memcpy(nid.internal, id->bytes, sizeof nid.internal);
    cudyn_nccl_comm c = new_handle();
    if (!c)
        return cudyn__fail_oom(api);
    nccl_result r = cudyn__nccl.ncclCommInitRank(&c->nccl, nranks, nid, rank);
    if (r != NCCL_OK)
        return drop(c, cudyn__fail_nccl(r, "ncclCommInitRank", api, NULL));
    *out = c;
    return CUDYN_OK;
}

CUDYN_API int cudyn_nccl_comm_init_rank(cudyn_nccl_comm *out, int nranks, const cudyn_nccl_id *id, int rank)
{
    /* inside a group, a failure fails the group (group.c) */
    return cudyn__nccl_group_mark(init_rank("cudyn_nccl_comm_init_rank", out, nranks, id, rank));
}

/* Every ordinal of devices[0 .. ndev) names a device of this process. */
static int check_devices(const char *api, int ndev, const int *devices)
{
    int count = 0;
    int st = cudyn_device_count(&count);
    if (st != CUDYN_OK)
        return st;
    for (int i = 0; i < ndev; i++) {
        int d = devices ? devices[i] : i;
        if (d < 0 || d >= count)
            return cudyn__fail(CUDYN_ERROR_INVALID_DEVICE, CUDYN_ORIGIN_LIBRARY, 0, NULL, api, NULL,
                               "%s: devices[%d] is %d, not a device of this process (%d visible)", api, i, d,
                               count);
    }
    return CUDYN_OK;
}

CUDYN_API int cudyn_nccl_comm_init_all(cudyn_nccl_comm *comms_out, int ndev, const int *devices)
{
    static const char api[] = "cudyn_nccl_comm_init_all";
    if (!comms_out)
        return cudyn__fail_arg(api, "comms", "must not be NULL");
    if (ndev < 1)
        return cudyn__fail_arg(api, "ndev", "must be at least 1");
    memset(comms_out, 0, (size_t)ndev * sizeof *comms_out);
    int st = cudyn__need_nccl();
    if (st == CUDYN_OK)
        st = check_devices(api, ndev, devices);
    if (st != CUDYN_OK)
        return st;
    nccl_comm *n = calloc((size_t)ndev, sizeof *n);
    bool made = n != NULL;
    for (int i = 0; made && i < ndev; i++)
        made = (comms_out[i] = new_handle()) != NULL;
    nccl_result r = made ? cudyn__nccl.ncclCommInitAll(n, ndev, devices) : NCCL_OK;
    st = !made ? cudyn__fail_oom(api) : r != NCCL_OK ? cudyn__fail_nccl(r, "ncclCommInitAll", api, NULL) : CUDYN_OK;
    for (int i = 0; i < ndev; i++) {
        if (st == CUDYN_OK)
            comms_out[i]->nccl = n[i];
        else if (comms_out[i])
            drop(comms_out[i], st);
        if (st != CUDYN_OK)
            comms_out[i] = NULL;
    }
    free(n);
    return st;
}

static int split(const char *api, cudyn_nccl_comm comm, int color, int key, cudyn_nccl_comm *out)
{
    if (!out)
        return cudyn__fail_arg(api, "out", "must not be NULL");
    *out = NULL;
    if (color < CUDYN_NCCL_NO_COLOR)
        return cudyn__fail_arg(api, "color", "must be >= 0, or CUDYN_NCCL_NO_COLOR");
    int st = cudyn__nccl_comm_use(api, comm);
    if (st != CUDYN_OK)
        return st;
    if (!NCCL_HAS(ncclCommSplit))
        return cudyn__fail(CUDYN_ERROR_NOT_SUPPORTED, CUDYN_ORIGIN_LOADER, 0, NULL, "ncclCommSplit", NULL,
                           "%s: %s has no ncclCommSplit, which came with NCCL 2.18", api, cudyn__nccl_path());
    nccl_comm none = NULL; /* NCCL writes nothing there for no color */
    cudyn_nccl_comm c = color == CUDYN_NCCL_NO_COLOR ? NULL : new_handle();
    if (color != CUDYN_NCCL_NO_COLOR && !c)
        return cudyn__fail_oom(api);
    nccl_result r = cudyn__nccl.ncclCommSplit(comm->nccl, color, key, c ? &c->nccl : &none, NULL);
    if (r != NCCL_OK)
        return c ? drop(c, cudyn__fail_nccl(r, "ncclCommSplit", api, comm->nccl))
                 : cudyn__fail_nccl(r, "ncclCommSplit", api, comm->nccl);
    *out = c;
    return CUDYN_OK;
}

CUDYN_API int cudyn_nccl_comm_split(cudyn_nccl_comm comm, int color, int key, cudyn_nccl_comm *out)
{
    return cudyn__nccl_group_mark(split("cudyn_nccl_comm_split", comm, color, key, out));
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
    return st == CUDYN_OK ? abort_comm(api, comm) : st;
}

CUDYN_API int cudyn_nccl_comm_destroy(cudyn_nccl_comm comm)
{
    static const char api[] = "cudyn_nccl_comm_destroy";
    if (!comm)
        return CUDYN_OK;
    if (!forget(comm))
        return cudyn__fail(CUDYN_ERROR_INVALID_HANDLE, CUDYN_ORIGIN_LIBRARY, 0, NULL, api, NULL,
                           "%s: comm %p is not a live communicator (destroyed already?)", api, (void *)comm);
    nccl_result r = comm->nccl ? cudyn__nccl.ncclCommDestroy(comm->nccl) : NCCL_OK;
    free(comm);
    return r == NCCL_OK ? CUDYN_OK : cudyn__fail_nccl(r, "ncclCommDestroy", api, NULL);
}
