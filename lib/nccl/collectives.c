/*
 * nccl/collectives.c - all-reduce, broadcast, reduce, all-gather,
 * reduce-scatter, send, receive and groups: each call's arguments are
 * checked (the communicator, the element type and the operation, ranks,
 * and where the driver can tell, that the counts fit the buffers'
 * allocations, the stream), then it goes to NCCL, at once or at the end
 * of the thread's group (group.c).  What each call checks is its row of
 * NCCL_CALL_MAP (nccl.h); the public functions below only name it.
 */
#include "config.h"

#include <stdint.h>
#include <string.h>

#include "nccl/nccl.h"

/* What NCCL moves for a launch-format character: X(code, NCCL type,
 * NCCL elements per value).  Complex values travel as pairs of reals,
 * which only a sum (or a mean) reduces the same way. */
#define NCCL_WIRE_MAP(X)                                                                                       \
    X('b', ncclInt8, 1)                                                                                        \
    X('B', ncclUint8, 1)                                                                                       \
    X('i', ncclInt32, 1)                                                                                       \
    X('I', ncclUint32, 1)                                                                                      \
    X('q', ncclInt64, 1)                                                                                       \
    X('Q', ncclUint64, 1)                                                                                      \
    X('e', ncclFloat16, 1)                                                                                     \
    X('f', ncclFloat32, 1)                                                                                     \
    X('d', ncclFloat64, 1)                                                                                     \
    X('F', ncclFloat32, 2)                                                                                     \
    X('D', ncclFloat64, 2)

struct wire {
    nccl_data_type type;
    size_t per_value;   /* NCCL elements per value */
    size_t value_bytes; /* bytes of one value */
};

static size_t type_bytes(nccl_data_type type)
{
#define TYPE_BYTES(name, value, bytes)                                                                         \
    if (type == value)                                                                                         \
        return bytes;
    NCCL_DATA_TYPE_MAP(TYPE_BYTES)
#undef TYPE_BYTES
    return 0;
}

/* The wire form of dtype, and for a call that `reduces`, whether op can
 * reduce it (every int is checked: no value stands for "no operation"). */
static int wire_of(const char *api, int dtype, bool reduces, int op, struct wire *w)
{
    w->per_value = 0;
#define WIRE_ROW(code, t, per)                                                                                 \
    if (dtype == code) {                                                                                       \
        w->type = t;                                                                                           \
        w->per_value = per;                                                                                    \
    }
    NCCL_WIRE_MAP(WIRE_ROW)
#undef WIRE_ROW
    if (!w->per_value || !dtype || !strchr(CUDYN_NCCL_DTYPES, dtype))
        return cudyn__fail_arg(api, "dtype", "must be a launch-format character NCCL can carry, one of \""
                                             CUDYN_NCCL_DTYPES "\" (CUDYN_NCCL_DTYPES)");
    w->value_bytes = w->per_value * type_bytes(w->type);
    if (!reduces)
        return CUDYN_OK;
    if (op < CUDYN_NCCL_SUM || op > CUDYN_NCCL_AVG)
        return cudyn__fail_arg(api, "op", "must be a cudyn_nccl_op (CUDYN_NCCL_SUM ... CUDYN_NCCL_AVG)");
    if (op == CUDYN_NCCL_AVG && cudyn__nccl_version() < NCCL_AVG_SINCE)
        return cudyn__fail(CUDYN_ERROR_NOT_SUPPORTED, CUDYN_ORIGIN_LIBRARY, 0, NULL, api, NULL,
                           "%s: CUDYN_NCCL_AVG needs NCCL 2.10 or newer; %s is %d.%d.%d", api, cudyn__nccl_path(),
                           nccl_version_major(cudyn__nccl_version()), nccl_version_minor(cudyn__nccl_version()),
                           nccl_version_patch(cudyn__nccl_version()));
    if (w->per_value > 1 && op != CUDYN_NCCL_SUM && op != CUDYN_NCCL_AVG)
        return cudyn__fail_arg(api, "op", "must be CUDYN_NCCL_SUM or CUDYN_NCCL_AVG for complex values");
    return CUDYN_OK;
}

/* [ptr, ptr + bytes) lies in device memory of the communicator's device,
 * inside one allocation, where the driver can say. */
static int check_buffer(const char *api, const char *arg, cudyn_devptr ptr, size_t bytes, cudyn_nccl_comm comm)
{
    if (bytes == 0)
        return CUDYN_OK;
    if (!ptr)
        return cudyn__fail_arg(api, arg, "must be device memory, not 0");
    if (!DRIVER_HAS(cuPointerGetAttributes))
        return CUDYN_OK;
    unsigned int memory_type = 0, managed = 0;
    int device = -1;
    cu_deviceptr start = 0;
    size_t size = 0;
    cu_enum attrs[] = {CU_POINTER_ATTR_MEMORY_TYPE, CU_POINTER_ATTR_IS_MANAGED, CU_POINTER_ATTR_RANGE_START_ADDR,
                       CU_POINTER_ATTR_RANGE_SIZE, CU_POINTER_ATTR_DEVICE_ORDINAL};
    void *data[] = {&memory_type, &managed, &start, &size, &device};
    if (cudyn__drv.cuPointerGetAttributes(N_ELEMS(attrs), attrs, data, ptr) != CU_OK)
        return CUDYN_OK; /* the driver cannot say: NCCL will */
    if (memory_type == 0 && !managed)
        return cudyn__fail(CUDYN_ERROR_INVALID_ARGUMENT, CUDYN_ORIGIN_LIBRARY, 0, NULL, api, NULL,
                           "%s: argument '%s' (0x%llx) is no memory CUDA knows: NCCL needs device memory", api, arg,
                           (unsigned long long)ptr);
    if (memory_type == CU_MEMTYPE_DEVICE && !managed && device >= 0 && device != comm->device)
        return cudyn__fail(CUDYN_ERROR_INVALID_ARGUMENT, CUDYN_ORIGIN_LIBRARY, 0, NULL, api, NULL,
                           "%s: argument '%s' (0x%llx) lives on device %d, the communicator's is device %d", api, arg,
                           (unsigned long long)ptr, device, comm->device);
    if (start && size && (ptr - start > size || bytes > size - (ptr - start)))
        return cudyn__fail(CUDYN_ERROR_INVALID_ARGUMENT, CUDYN_ORIGIN_LIBRARY, 0, NULL, api, NULL,
                           "%s: argument '%s': %zu bytes from 0x%llx run past the end of its allocation (%zu bytes "
                           "from 0x%llx)",
                           api, arg, bytes, (unsigned long long)ptr, size, (unsigned long long)start);
    return CUDYN_OK;
}

static int check_rank(const char *api, const char *arg, int value, cudyn_nccl_comm comm)
{
    if (value >= 0 && value < comm->nranks)
        return CUDYN_OK;
    return cudyn__fail(CUDYN_ERROR_INVALID_ARGUMENT, CUDYN_ORIGIN_LIBRARY, 0, NULL, api, NULL,
                       "%s: %s %d is not a rank of this communicator (0 to %d)", api, arg, value, comm->nranks - 1);
}

/* What every call checks first; *w, and *bytes of `count` values.  A
 * call with one block per rank (all-gather, reduce-scatter) passes
 * per_rank: the count times the ranks must fit in a size_t too. */
static int prologue(const char *api, cudyn_nccl_comm comm, int dtype, bool reduces, int op, size_t count,
                    bool per_rank, struct wire *w, size_t *bytes)
{
    int st = cudyn__nccl_comm_use(api, comm);
    if (st == CUDYN_OK)
        st = wire_of(api, dtype, reduces, op, w);
    if (st != CUDYN_OK)
        return st;
    if (count > SIZE_MAX / w->value_bytes / (per_rank ? (size_t)comm->nranks : 1))
        return cudyn__fail_arg(api, "count", "is too large: its bytes overflow size_t");
    *bytes = count * w->value_bytes;
    return CUDYN_OK;
}

#define PTR(p) ((void *)(uintptr_t)(p))

/* Each call's checks, as data (NCCL_CALL_MAP): its name, whether it
 * reduces, the rank argument it takes, its send and receive blocks. */
static const struct shape {
    const char *api;
    bool reduces;
    const char *rank_arg;
    enum cudyn__nccl_blocks send, recv;
} shapes[] = {
#define NCCL_CALL_SHAPE(kind, name, reduces, rank, send, recv, fn, args)                                       \
    [NCCL_CALL_##kind] = {"cudyn_nccl_" #name, reduces, rank, BLOCKS_##send, BLOCKS_##recv},
    NCCL_CALL_MAP(NCCL_CALL_SHAPE)
#undef NCCL_CALL_SHAPE
};

/* The buffer `arg` of a call, `bytes` per block as `blocks` says. */
static int check_blocks(const char *api, const char *arg, cudyn_devptr ptr, size_t bytes,
                        enum cudyn__nccl_blocks blocks, cudyn_nccl_comm comm, int root)
{
    if (blocks == BLOCKS_NONE || (blocks == BLOCKS_AT_ROOT && comm->rank != root))
        return CUDYN_OK;
    return check_buffer(api, arg, ptr, blocks == BLOCKS_RANKS ? bytes * (size_t)comm->nranks : bytes, comm);
}

/* A call checked as its shape says, then handed to NCCL (group.c); any
 * failure of the call is its group's too. */
static int call(enum cudyn__nccl_kind kind, cudyn_nccl_comm comm, cudyn_devptr send, cudyn_devptr recv, size_t count,
                int dtype, int op, int rank, cudyn_stream stream)
{
    const struct shape *sh = &shapes[kind];
    struct wire w = {0, 0, 0};
    size_t bytes = 0;
    struct cudyn__nccl_call c = {kind, comm, PTR(send), PTR(recv), 0, 0, op, rank, NULL};
    int st = prologue(sh->api, comm, dtype, sh->reduces, op, count,
                      sh->send == BLOCKS_RANKS || sh->recv == BLOCKS_RANKS, &w, &bytes);
    if (st == CUDYN_OK && sh->rank_arg)
        st = check_rank(sh->api, sh->rank_arg, rank, comm);
    if (st == CUDYN_OK)
        st = check_blocks(sh->api, "send", send, bytes, sh->send, comm, rank);
    if (st == CUDYN_OK)
        st = check_blocks(sh->api, "recv", recv, bytes, sh->recv, comm, rank);
    if (st == CUDYN_OK)
        st = cudyn__nccl_stream(sh->api, stream, &c.stream);
    if (st == CUDYN_OK) {
        c.count = count * w.per_value;
        c.type = w.type;
        st = cudyn__nccl_issue(sh->api, &c);
    }
    return cudyn__nccl_group_mark(st);
}

CUDYN_API int cudyn_nccl_all_reduce(cudyn_nccl_comm comm, cudyn_devptr send, cudyn_devptr recv, size_t count,
                                    int dtype, int op, cudyn_stream stream)
{
    return call(NCCL_CALL_ALL_REDUCE, comm, send, recv, count, dtype, op, 0, stream);
}

CUDYN_API int cudyn_nccl_broadcast(cudyn_nccl_comm comm, cudyn_devptr send, cudyn_devptr recv, size_t count,
                                   int dtype, int root, cudyn_stream stream)
{
    return call(NCCL_CALL_BROADCAST, comm, send, recv, count, dtype, 0, root, stream);
}

CUDYN_API int cudyn_nccl_reduce(cudyn_nccl_comm comm, cudyn_devptr send, cudyn_devptr recv, size_t count, int dtype,
                                int op, int root, cudyn_stream stream)
{
    return call(NCCL_CALL_REDUCE, comm, send, recv, count, dtype, op, root, stream);
}

CUDYN_API int cudyn_nccl_all_gather(cudyn_nccl_comm comm, cudyn_devptr send, cudyn_devptr recv, size_t send_count,
                                    int dtype, cudyn_stream stream)
{
    return call(NCCL_CALL_ALL_GATHER, comm, send, recv, send_count, dtype, 0, 0, stream);
}

CUDYN_API int cudyn_nccl_reduce_scatter(cudyn_nccl_comm comm, cudyn_devptr send, cudyn_devptr recv,
                                        size_t recv_count, int dtype, int op, cudyn_stream stream)
{
    return call(NCCL_CALL_REDUCE_SCATTER, comm, send, recv, recv_count, dtype, op, 0, stream);
}

CUDYN_API int cudyn_nccl_send(cudyn_nccl_comm comm, cudyn_devptr send, size_t count, int dtype, int peer,
                              cudyn_stream stream)
{
    return call(NCCL_CALL_SEND, comm, send, 0, count, dtype, 0, peer, stream);
}

CUDYN_API int cudyn_nccl_recv(cudyn_nccl_comm comm, cudyn_devptr recv, size_t count, int dtype, int peer,
                              cudyn_stream stream)
{
    return call(NCCL_CALL_RECV, comm, 0, recv, count, dtype, 0, peer, stream);
}
