/*
 * nccl/init.c - making communicators: a unique id, one rank of a
 * communicator (init_rank), one communicator per device of the process
 * (init_all), a split.  Each hands NCCL a new handle of comm.c's, which
 * NCCL writes its communicator into; inside a group NCCL finishes the
 * making at the group's end, so the group holds the new handle (and a
 * split's parent) until then (group.c).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "nccl/nccl.h"

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

static int check_rank_args(const char *api, cudyn_nccl_comm *out, int nranks, const cudyn_nccl_id *id, int rank)
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
    return CUDYN_OK;
}

static int init_rank(const char *api, cudyn_nccl_comm *out, int nranks, const cudyn_nccl_id *id, int rank)
{
    int st = check_rank_args(api, out, nranks, id, rank);
    if (st == CUDYN_OK)
        st = cudyn__need_nccl();
    if (st == CUDYN_OK)
        st = cudyn__need_context(api); /* NCCL takes the thread's current device */
    if (st == CUDYN_OK)
        st = cudyn__nccl_group_room(api, 1);
    if (st != CUDYN_OK)
        return st;
    nccl_unique_id nid;
    memcpy(nid.internal, id->bytes, sizeof nid.internal);
    cudyn_nccl_comm c = cudyn__nccl_new_handle();
    if (!c)
        return cudyn__fail_oom(api);
    nccl_result r = cudyn__nccl.ncclCommInitRank(&c->nccl, nranks, nid, rank);
    if (r != NCCL_OK)
        return cudyn__nccl_drop(c, cudyn__fail_nccl(r, "ncclCommInitRank", api, NULL));
    cudyn__nccl_group_hold(c);
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

/* The handles of comms_out[0 .. ndev) made (st CUDYN_OK: given NCCL's
 * communicators n[i], and held by the thread's group) or dropped. */
static int settle_all(cudyn_nccl_comm *comms_out, int ndev, const nccl_comm *n, int st)
{
    for (int i = 0; i < ndev; i++) {
        if (st == CUDYN_OK) {
            comms_out[i]->nccl = n[i];
            cudyn__nccl_group_hold(comms_out[i]);
            continue;
        }
        if (comms_out[i])
            cudyn__nccl_drop(comms_out[i], st);
        comms_out[i] = NULL;
    }
    return st;
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
    if (st == CUDYN_OK)
        st = cudyn__nccl_group_room(api, (size_t)ndev);
    if (st != CUDYN_OK)
        return st;
    nccl_comm *n = calloc((size_t)ndev, sizeof *n);
    bool made = n != NULL;
    for (int i = 0; made && i < ndev; i++)
        made = (comms_out[i] = cudyn__nccl_new_handle()) != NULL;
    nccl_result r = made ? cudyn__nccl.ncclCommInitAll(n, ndev, devices) : NCCL_OK;
    st = !made ? cudyn__fail_oom(api) : r != NCCL_OK ? cudyn__fail_nccl(r, "ncclCommInitAll", api, NULL) : CUDYN_OK;
    settle_all(comms_out, ndev, n, st);
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
    if (st == CUDYN_OK)
        st = cudyn__nccl_group_room(api, 2);
    if (st != CUDYN_OK)
        return st;
    if (!NCCL_HAS(ncclCommSplit))
        return cudyn__fail(CUDYN_ERROR_NOT_SUPPORTED, CUDYN_ORIGIN_LOADER, 0, NULL, "ncclCommSplit", NULL,
                           "%s: %s has no ncclCommSplit, which came with NCCL 2.18", api, cudyn__nccl_path());
    nccl_comm none = NULL; /* NCCL writes nothing there for no color */
    cudyn_nccl_comm c = color == CUDYN_NCCL_NO_COLOR ? NULL : cudyn__nccl_new_handle();
    if (color != CUDYN_NCCL_NO_COLOR && !c)
        return cudyn__fail_oom(api);
    nccl_result r = cudyn__nccl.ncclCommSplit(comm->nccl, color, key, c ? &c->nccl : &none, NULL);
    if (r != NCCL_OK) {
        st = cudyn__fail_nccl(r, "ncclCommSplit", api, comm->nccl);
        return c ? cudyn__nccl_drop(c, st) : st;
    }
    cudyn__nccl_group_hold(comm); /* NCCL splits it at the group's end */
    if (c)
        cudyn__nccl_group_hold(c);
    *out = c;
    return CUDYN_OK;
}

CUDYN_API int cudyn_nccl_comm_split(cudyn_nccl_comm comm, int color, int key, cudyn_nccl_comm *out)
{
    return cudyn__nccl_group_mark(split("cudyn_nccl_comm_split", comm, color, key, out));
}
