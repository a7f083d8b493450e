/*
 * api.c - the mock libnccl's exported calls (lib/nccl_symbols.h): each
 * checks its arguments as NCCL documents them, then queues its operation
 * (mock_nccl.c runs it, world.c moves the data).
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "mock_nccl.h"

static const char id_magic[8] = "MOCKNCCL";

/* Every required row of lib/nccl_symbols.h, so that a row the mock does
 * not implement is a link error (-Wl,--no-undefined); the optional ones
 * are absent from the NCCL 2.12 build on purpose. */
#define MOCK_ROW_REQUIRED(name) (void (*)(void))name,
#define MOCK_ROW_OPTIONAL(name)
#define NCCL_SYMBOL(name, since, need, returns, params) MOCK_ROW_##need(name)
__attribute__((used)) static void (*const required_rows[])(void) = {
#include "nccl_symbols.h"
};
#undef NCCL_SYMBOL

/* ---------------------------------------------------- versions, errors */

nccl_result ncclGetVersion(int *version)
{
    ENTER("ncclGetVersion");
    if (!version)
        return mock_nccl_error(ncclInvalidArgument, false, "ncclGetVersion: version is NULL");
    *version = mock_nccl_version();
    return ncclSuccess;
}

const char *ncclGetErrorString(nccl_result result)
{
    static const char *const text[] = {"no error",
                                       "a CUDA call failed",
                                       "a system call failed",
                                       "an internal error",
                                       "an argument is invalid",
                                       "NCCL was used in a way it does not allow",
                                       "a remote rank or the network failed",
                                       "the operation is still in progress",
                                       "the operation timed out"};
    return result >= 0 && result < (int)(sizeof text / sizeof text[0]) ? text[result] : "an unknown result";
}

#if !MOCK_NCCL_OLD
const char *ncclGetLastError(nccl_comm comm)
{
    (void)comm; /* NCCL keeps one per thread, as the mock does */
    return mock_nccl_last_error();
}
#endif

/* -------------------------------------------------------- communicators */

nccl_result ncclGetUniqueId(nccl_unique_id *id)
{
    ENTER("ncclGetUniqueId");
    if (!id)
        return mock_nccl_error(ncclInvalidArgument, false, "ncclGetUniqueId: id is NULL");
    memset(id, 0, sizeof *id);
    memcpy(id->internal, id_magic, sizeof id_magic);
    new_world_name(id->internal + sizeof id_magic, sizeof id->internal - sizeof id_magic);
    return ncclSuccess;
}

static nccl_result check_ranks(const char *fn, int nranks, int rank)
{
    if (nranks < 1 || rank < 0 || rank >= nranks)
        return mock_nccl_error(ncclInvalidArgument, false, "%s: rank %d of %d ranks", fn, rank, nranks);
    if (nranks > MAX_RANKS)
        return mock_nccl_error(ncclInvalidUsage, true, "mock NCCL: %s: %d ranks; the mock emulates at most %d", fn,
                               nranks, MAX_RANKS);
    return ncclSuccess;
}

nccl_result ncclCommInitRank(nccl_comm *comm, int nranks, nccl_unique_id id, int rank)
{
    ENTER("ncclCommInitRank");
    if (!comm)
        return in_group(mock_nccl_error(ncclInvalidArgument, false, "ncclCommInitRank: comm is NULL"));
    nccl_result r = check_ranks("ncclCommInitRank", nranks, rank);
    if (!r && memcmp(id.internal, id_magic, sizeof id_magic) != 0)
        r = mock_nccl_error(ncclInvalidArgument, false, "ncclCommInitRank: the id was not made by ncclGetUniqueId");
    struct ncclComm *c = r ? NULL : comm_new();
    if (!r && !c)
        r = mock_nccl_error(ncclSystemError, false, "out of host memory");
    int device = 0;
    if (!r)
        r = current_device(&device);
    if (!r)
        r = world_join(c, id.internal + sizeof id_magic, nranks, rank, device);
    struct op wait = {.comm = c, .desc = {.kind = OP_JOIN}};
    if (!r) /* it returns once every rank is there (at the group's end, in one) */
        r = submit(&wait);
    if (r && c)
        comm_free(c);
    *comm = r ? NULL : c;
    return in_group(r);
}

/* devlist[0 .. ndev) names ndev different devices of the mock driver. */
static nccl_result check_devices(int ndev, const int *devlist)
{
    int count = 0;
    nccl_result r = device_count(&count);
    for (int i = 0; !r && i < ndev; i++) {
        int d = devlist ? devlist[i] : i;
        if (d < 0 || d >= count)
            return mock_nccl_error(ncclInvalidArgument, false, "ncclCommInitAll: device %d of %d", d, count);
        for (int j = 0; j < i; j++)
            if (devlist && devlist[j] == d)
                return mock_nccl_error(ncclInvalidUsage, false, "ncclCommInitAll: device %d twice", d);
    }
    return r;
}

nccl_result ncclCommInitAll(nccl_comm *comms, int ndev, const int *devlist)
{
    ENTER("ncclCommInitAll");
    if (!comms || ndev < 1)
        return mock_nccl_error(ncclInvalidArgument, false, "ncclCommInitAll: comms %p, ndev %d", (void *)comms, ndev);
    nccl_result r = check_ranks("ncclCommInitAll", ndev, 0);
    if (!r)
        r = check_devices(ndev, devlist);
    char name[sizeof comms[0]->name];
    new_world_name(name, sizeof name);
    for (int i = 0; i < ndev; i++) {
        comms[i] = r ? NULL : comm_new();
        if (!r && !comms[i])
            r = mock_nccl_error(ncclSystemError, false, "out of host memory");
        if (!r)
            r = world_join(comms[i], name, ndev, i, devlist ? devlist[i] : i);
    }
    for (int i = 0; r && i < ndev; i++) {
        if (comms[i])
            comm_free(comms[i]);
        comms[i] = NULL;
    }
    return r;
}

#if !MOCK_NCCL_OLD
nccl_result ncclCommSplit(nccl_comm comm, int color, int key, nccl_comm *newcomm, void *config)
{
    ENTER("ncclCommSplit");
    NEED_COMM(comm, "ncclCommSplit");
    if (!newcomm || color < -1 || config)
        return in_group(mock_nccl_error(ncclInvalidArgument, false, "ncclCommSplit: newcomm %p, color %d, config %p",
                                        (void *)newcomm, color, config));
    *newcomm = NULL;
    struct op split = {.comm = comm, .desc = {.kind = OP_SPLIT, .type = ncclInt32, .count = 2},
                       .color = color, .key = key, .newcomm = newcomm};
    return in_group(submit(&split));
}
#endif

nccl_result ncclCommDestroy(nccl_comm comm)
{
    ENTER("ncclCommDestroy");
    NEED_COMM(comm, "ncclCommDestroy");
    comm_free(comm);
    return ncclSuccess;
}

nccl_result ncclCommAbort(nccl_comm comm)
{
    ENTER("ncclCommAbort");
    NEED_COMM(comm, "ncclCommAbort");
    int none = 0;
    if (comm->world) /* the other ranks' operations now fail as a remote error */
        atomic_compare_exchange_strong(&comm->world->aborted, &none, comm->rank + 1);
    comm_free(comm);
    return ncclSuccess;
}

nccl_result ncclCommGetAsyncError(nccl_comm comm, nccl_result *async_error)
{
    ENTER("ncclCommGetAsyncError");
    NEED_COMM(comm, "ncclCommGetAsyncError");
    if (!async_error)
        return mock_nccl_error(ncclInvalidArgument, false, "ncclCommGetAsyncError: asyncError is NULL");
    bool due = comm->async && comm->async_due_ms >= 0 && mock_now_ms() >= comm->async_due_ms;
    *async_error = due ? comm->async : ncclSuccess;
    if (due)
        mock_nccl_error(comm->async, false, "%s", comm->async_message);
    return ncclSuccess;
}

nccl_result ncclCommCount(nccl_comm comm, int *count)
{
    ENTER("ncclCommCount");
    NEED_COMM(comm, "ncclCommCount");
    if (!count)
        return mock_nccl_error(ncclInvalidArgument, false, "ncclCommCount: count is NULL");
    *count = comm->nranks;
    return ncclSuccess;
}

nccl_result ncclCommCuDevice(nccl_comm comm, int *device)
{
    ENTER("ncclCommCuDevice");
    NEED_COMM(comm, "ncclCommCuDevice");
    if (!device)
        return mock_nccl_error(ncclInvalidArgument, false, "ncclCommCuDevice: device is NULL");
    *device = comm->device;
    return ncclSuccess;
}

nccl_result ncclCommUserRank(nccl_comm comm, int *rank)
{
    ENTER("ncclCommUserRank");
    NEED_COMM(comm, "ncclCommUserRank");
    if (!rank)
        return mock_nccl_error(ncclInvalidArgument, false, "ncclCommUserRank: rank is NULL");
    *rank = comm->rank;
    return ncclSuccess;
}

/* ---------------------------------------------------------- operations */

/* What every operation checks: the communicator, the type, the
 * operation (NO_REDOP: none), the rank (root or peer, -1: none). */
#define NO_REDOP (-1)
static nccl_result check_op(const char *fn, nccl_comm comm, int type, int redop, int rank)
{
    NEED_COMM(comm, fn);
    if (!type_size(type))
        return mock_nccl_error(ncclInvalidArgument, false, "%s: data type %d", fn, type);
    int ops = mock_nccl_version() >= NCCL_AVG_SINCE ? NCCL_AVG + 1 : NCCL_AVG;
    if (redop != NO_REDOP && (redop < 0 || redop >= ops))
        return mock_nccl_error(ncclInvalidArgument, false, "%s: reduction operation %d", fn, redop);
    if (rank != -1 && (rank < 0 || rank >= comm->nranks))
        return mock_nccl_error(ncclInvalidArgument, false, "%s: rank %d of %d", fn, rank, comm->nranks);
    return ncclSuccess;
}

/* Queues a checked operation; one that MOCK_NCCL_ASYNC_ERROR picks, or
 * that follows one that never finished, never runs. */
static nccl_result queue(struct op *op, nccl_stream stream)
{
    long delay_ms;
    op->stream = stream;
    if (next_op_hangs(&delay_ms)) {
        char why[160];
        snprintf(why, sizeof why, "mock NCCL: rank %d: a peer stopped answering (MOCK_NCCL_ASYNC_ERROR)",
                 op->comm->rank);
        never_finishes(op->comm, stream, (double)delay_ms, why);
    }
    return op->comm->hung ? ncclSuccess : submit(op);
}

static nccl_result collective(const char *fn, struct op *op, const void *sendbuff, size_t send_elems,
                              void *recvbuff, size_t recv_elems, nccl_stream stream)
{
    nccl_result r = check_op(fn, op->comm, op->desc.type, op->desc.redop, op->desc.root);
    size_t es = r ? 0 : type_size(op->desc.type);
    if (!r)
        r = check_memory(fn, "sendbuff", sendbuff, send_elems * es);
    if (!r)
        r = check_memory(fn, "recvbuff", recvbuff, recv_elems * es);
    if (r)
        return in_group(r);
    op->send = sendbuff;
    op->recv = recvbuff;
    return in_group(queue(op, stream));
}

nccl_result ncclAllReduce(const void *sendbuff, void *recvbuff, size_t count, nccl_data_type type, nccl_red_op op,
                          nccl_comm comm, nccl_stream stream)
{
    ENTER("ncclAllReduce");
    struct op o = {.comm = comm, .desc = {.kind = OP_ALL_REDUCE, .type = type, .redop = op, .root = -1, .count = count}};
    return collective("ncclAllReduce", &o, sendbuff, count, recvbuff, count, stream);
}

nccl_result ncclBroadcast(const void *sendbuff, void *recvbuff, size_t count, nccl_data_type type, int root,
                          nccl_comm comm, nccl_stream stream)
{
    ENTER("ncclBroadcast");
    struct op o = {.comm = comm, .desc = {.kind = OP_BROADCAST, .type = type, .redop = NO_REDOP, .root = root,
                                          .count = count}};
    bool at_root = comm && comm_live(comm) && comm->rank == root;
    return collective("ncclBroadcast", &o, sendbuff, at_root ? count : 0, recvbuff, count, stream);
}

nccl_result ncclReduce(const void *sendbuff, void *recvbuff, size_t count, nccl_data_type type, nccl_red_op op,
                       int root, nccl_comm comm, nccl_stream stream)
{
    ENTER("ncclReduce");
    struct op o = {.comm = comm, .desc = {.kind = OP_REDUCE, .type = type, .redop = op, .root = root, .count = count}};
    bool at_root = comm && comm_live(comm) && comm->rank == root;
    return collective("ncclReduce", &o, sendbuff, count, recvbuff, at_root ? count : 0, stream);
}

nccl_result ncclAllGather(const void *sendbuff, void *recvbuff, size_t sendcount, nccl_data_type type,
                          nccl_comm comm, nccl_stream stream)
{
    ENTER("ncclAllGather");
    struct op o = {.comm = comm, .desc = {.kind = OP_ALL_GATHER, .type = type, .redop = NO_REDOP, .root = -1,
                                          .count = sendcount}};
    size_t ranks = comm && comm_live(comm) ? (size_t)comm->nranks : 0;
    return collective("ncclAllGather", &o, sendbuff, sendcount, recvbuff, sendcount * ranks, stream);
}

nccl_result ncclReduceScatter(const void *sendbuff, void *recvbuff, size_t recvcount, nccl_data_type type,
                              nccl_red_op op, nccl_comm comm, nccl_stream stream)
{
    ENTER("ncclReduceScatter");
    struct op o = {.comm = comm, .desc = {.kind = OP_REDUCE_SCATTER, .type = type, .redop = op, .root = -1,
                                          .count = recvcount}};
    size_t ranks = comm && comm_live(comm) ? (size_t)comm->nranks : 0;
    return collective("ncclReduceScatter", &o, sendbuff, recvcount * ranks, recvbuff, recvcount, stream);
}

static nccl_result point_to_point(const char *fn, struct op *op, const void *buf, nccl_stream stream)
{
    nccl_result r = check_op(fn, op->comm, op->desc.type, NO_REDOP, op->peer);
    if (!r)
        r = check_memory(fn, op->desc.kind == OP_SEND ? "sendbuff" : "recvbuff", buf,
                         op->desc.count * type_size(op->desc.type));
    return in_group(r ? r : queue(op, stream));
}

nccl_result ncclSend(const void *sendbuff, size_t count, nccl_data_type type, int peer, nccl_comm comm,
                     nccl_stream stream)
{
    ENTER("ncclSend");
    struct op o = {.comm = comm, .desc = {.kind = OP_SEND, .type = type, .count = count}, .peer = peer,
                   .send = sendbuff};
    return point_to_point("ncclSend", &o, sendbuff, stream);
}

nccl_result ncclRecv(void *recvbuff, size_t count, nccl_data_type type, int peer, nccl_comm comm, nccl_stream stream)
{
    ENTER("ncclRecv");
    struct op o = {.comm = comm, .desc = {.kind = OP_RECV, .type = type, .count = count}, .peer = peer,
                   .recv = recvbuff};
    return point_to_point("ncclRecv", &o, recvbuff, stream);
}
