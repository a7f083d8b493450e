/*
 * world.c - where the ranks of a mock communicator meet: one POSIX
 * shared-memory object per communicator (its name is in the unique id),
 * mapped by every rank, whether the ranks are threads of one process
 * (ncclCommInitAll) or processes (MPI ranks): the mock driver's device
 * memory is host memory, so a rank's buffers are plain pointers in its
 * own process and only the staging area is shared.
 *
 * A collective goes in rounds of at most CHUNK bytes a rank.  In round R
 * each rank stages its part in its slot once every rank has read round
 * R - 1 (`read`), says so (`written` = R), and once every rank has
 * written R reads what it needs of all the slots and says so (`read` =
 * R).  Sends and receives go through one channel per direction, a piece
 * at a time.  Nothing blocks here: op_step does what the others allow
 * and returns, and the caller (a group's end, mock_nccl.c) goes round
 * its operations until all are done.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "mock_nccl.h"

static const char world_magic[8] = "mocknccl";

nccl_result world_join(struct ncclComm *c, const char *name, int nranks, int rank, int device)
{
    int fd = shm_open(name, O_CREAT | O_RDWR, 0600);
    if (fd < 0)
        return mock_nccl_error(ncclSystemError, true, "mock NCCL: shm_open(%s) failed: %s", name, strerror(errno));
    struct world *w = MAP_FAILED;
    if (ftruncate(fd, sizeof *w) == 0)
        w = mmap(NULL, sizeof *w, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (w == MAP_FAILED)
        return mock_nccl_error(ncclSystemError, true, "mock NCCL: cannot map %s: %s", name, strerror(errno));
    memcpy(w->magic, world_magic, sizeof w->magic); /* the same bytes from every rank */
    int expected = 0;
    if (!atomic_compare_exchange_strong(&w->nranks, &expected, nranks) && expected != nranks) {
        munmap(w, sizeof *w);
        return mock_nccl_error(ncclInvalidUsage, false, "rank %d was told of %d ranks, another rank of %d", rank,
                               nranks, expected);
    }
    if (atomic_exchange(&w->ranks[rank].joined, 1)) {
        munmap(w, sizeof *w);
        return mock_nccl_error(ncclInvalidUsage, false, "rank %d joined the communicator twice", rank);
    }
    w->ranks[rank].device = device;
    c->world = w;
    snprintf(c->name, sizeof c->name, "%s", name);
    c->rank = rank;
    c->nranks = nranks;
    c->device = device;
    if (atomic_fetch_add(&w->joined, 1) == nranks - 1)
        shm_unlink(name); /* everyone has it mapped: no name is left behind */
    return ncclSuccess;
}

bool world_complete(struct ncclComm *c)
{
    return atomic_load(&c->world->joined) == c->nranks;
}

void world_leave(struct ncclComm *c)
{
    if (!c->world)
        return;
    if (!world_complete(c))
        shm_unlink(c->name); /* the others never came: the name goes too */
    munmap(c->world, sizeof *c->world);
    c->world = NULL;
}

/* ---------------------------------------------------------- collectives */

/* Elements of a rank's part per round. */
static size_t per_round(const struct op *op)
{
    size_t es = type_size(op->desc.type);
    return op->desc.kind == OP_REDUCE_SCATTER ? CHUNK / es / (size_t)op->comm->nranks : CHUNK / es;
}

static uint64_t rounds_of(const struct op *op)
{
    if (op->desc.kind == OP_SPLIT)
        return 1;
    size_t e = per_round(op);
    return (op->desc.count + e - 1) / e;
}

static bool peer_aborted(struct op *op)
{
    int by = atomic_load(&op->comm->world->aborted);
    if (!by)
        return false;
    op->failed = mock_nccl_error(ncclRemoteError, false, "rank %d of the communicator aborted it", by - 1);
    return true;
}

/* Stages this rank's part of round t. */
static void stage(struct op *op, uint64_t t)
{
    struct ncclComm *c = op->comm;
    struct rank_slot *mine = &c->world->ranks[c->rank];
    size_t es = type_size(op->desc.type), e = per_round(op), a = t * e;
    size_t m = op->desc.count - a < e ? op->desc.count - a : e;
    mine->desc = op->desc;
    switch (op->desc.kind) {
    case OP_BROADCAST:
        if (c->rank == op->desc.root)
            memcpy(mine->data, op->send + a * es, m * es);
        break;
    case OP_REDUCE_SCATTER:
        for (int i = 0; i < c->nranks; i++)
            memcpy(mine->data + (size_t)i * m * es, op->send + ((size_t)i * op->desc.count + a) * es, m * es);
        break;
    case OP_SPLIT: memcpy(mine->data, (int[2]){op->color, op->key}, 2 * sizeof(int)); break;
    default: memcpy(mine->data, op->send + a * es, m * es); break;
    }
}

static nccl_result split_join(struct op *op);

/* Reads round t of every rank into this rank's output. */
static nccl_result consume(struct op *op, uint64_t t)
{
    struct ncclComm *c = op->comm;
    struct world *w = c->world;
    size_t es = type_size(op->desc.type), e = per_round(op), a = t * e;
    size_t m = op->desc.count - a < e ? op->desc.count - a : e;
    const void *in[MAX_RANKS];
    for (int j = 0; j < c->nranks; j++)
        in[j] = w->ranks[j].data + (op->desc.kind == OP_REDUCE_SCATTER ? (size_t)c->rank * m * es : 0);
    switch (op->desc.kind) {
    case OP_ALL_REDUCE:
    case OP_REDUCE_SCATTER:
        reduce_elements(op->recv + a * es, in, c->nranks, m, op->desc.type, op->desc.redop);
        break;
    case OP_REDUCE:
        if (c->rank == op->desc.root)
            reduce_elements(op->recv + a * es, in, c->nranks, m, op->desc.type, op->desc.redop);
        break;
    case OP_BROADCAST: memcpy(op->recv + a * es, in[op->desc.root], m * es); break;
    case OP_ALL_GATHER:
        for (int j = 0; j < c->nranks; j++)
            memcpy(op->recv + ((size_t)j * op->desc.count + a) * es, in[j], m * es);
        break;
    case OP_SPLIT: return split_join(op);
    default: break;
    }
    return ncclSuccess;
}

static bool same_desc(const struct op_desc *a, const struct op_desc *b)
{
    return a->kind == b->kind && a->type == b->type && a->redop == b->redop && a->root == b->root &&
           a->count == b->count;
}

static enum step collective_step(struct op *op)
{
    struct ncclComm *c = op->comm;
    struct world *w = c->world;
    if (!op->first) {
        op->rounds = rounds_of(op);
        op->first = op->at = c->round + 1;
        c->round += op->rounds;
    }
    if (op->at == op->first + op->rounds)
        return STEP_DONE;
    uint64_t r = op->at;
    for (int j = 0; j < c->nranks && !op->writing_done; j++)
        if (atomic_load(&w->ranks[j].read) < r - 1)
            return peer_aborted(op) ? STEP_FAILED : STEP_WAIT;
    if (!op->writing_done) {
        stage(op, r - op->first);
        atomic_store(&w->ranks[c->rank].written, r);
        op->writing_done = true;
    }
    for (int j = 0; j < c->nranks; j++)
        if (atomic_load(&w->ranks[j].written) < r)
            return peer_aborted(op) ? STEP_FAILED : STEP_WAIT;
    for (int j = 0; j < c->nranks; j++)
        if (!same_desc(&w->ranks[j].desc, &op->desc)) {
            op->failed = mock_nccl_error(ncclInvalidUsage, true,
                                         "mock NCCL: rank %d and rank %d called different collectives (kind, "
                                         "type, operation, root or count differ); NCCL would hang or corrupt",
                                         c->rank, j);
            return STEP_FAILED;
        }
    op->failed = consume(op, r - op->first);
    if (op->failed)
        return STEP_FAILED;
    atomic_store(&w->ranks[c->rank].read, r);
    op->writing_done = false;
    op->at++;
    return op->at == op->first + op->rounds && !op->joining ? STEP_DONE : STEP_MOVED;
}

/* ---------------------------------------------------------------- split */

/* The child communicator of this rank's color: its rank is its place
 * among the ranks of that color, ordered by key, then by rank. */
static nccl_result split_join(struct op *op)
{
    struct ncclComm *c = op->comm;
    int n = 0, me = 0;
    c->splits++;
    if (op->color < 0)
        return ncclSuccess;
    for (int j = 0; j < c->nranks; j++) {
        const int *ck = (const int *)(const void *)c->world->ranks[j].data;
        if (ck[0] != op->color)
            continue;
        n++;
        me += ck[1] < op->key || (ck[1] == op->key && j < c->rank);
    }
    struct ncclComm *child = comm_new();
    if (!child)
        return mock_nccl_error(ncclSystemError, false, "out of host memory");
    char name[sizeof c->name];
    snprintf(name, sizeof name, "%.90s-s%d-c%d", c->name, c->splits, op->color);
    nccl_result r = world_join(child, name, n, me, c->device);
    if (r) {
        comm_free(child);
        return r;
    }
    *op->newcomm = child;
    op->joining = true;
    return ncclSuccess;
}

/* ------------------------------------------------------- send, receive */

static enum step send_step(struct op *op)
{
    struct ncclComm *c = op->comm;
    size_t total = op->desc.count * type_size(op->desc.type);
    struct channel *ch = &c->world->channels[c->rank][op->peer];
    if (op->bytes_done == total)
        return STEP_DONE;
    if (atomic_load(&ch->full))
        return peer_aborted(op) ? STEP_FAILED : STEP_WAIT;
    size_t piece = total - op->bytes_done < CHUNK ? total - op->bytes_done : CHUNK;
    memcpy(ch->data, op->send + op->bytes_done, piece);
    atomic_store(&ch->full, piece + 1);
    op->bytes_done += piece;
    return op->bytes_done == total ? STEP_DONE : STEP_MOVED;
}

static enum step recv_step(struct op *op)
{
    struct ncclComm *c = op->comm;
    size_t total = op->desc.count * type_size(op->desc.type);
    struct channel *ch = &c->world->channels[op->peer][c->rank];
    if (op->bytes_done == total)
        return STEP_DONE;
    size_t full = atomic_load(&ch->full);
    if (!full)
        return peer_aborted(op) ? STEP_FAILED : STEP_WAIT;
    if (full - 1 > total - op->bytes_done) {
        op->failed = mock_nccl_error(ncclInvalidUsage, true,
                                     "mock NCCL: rank %d sent rank %d more bytes than it receives (%zu); NCCL "
                                     "would corrupt memory",
                                     op->peer, c->rank, total);
        return STEP_FAILED;
    }
    memcpy(op->recv + op->bytes_done, ch->data, full - 1);
    op->bytes_done += full - 1;
    atomic_store(&ch->full, 0);
    return op->bytes_done == total ? STEP_DONE : STEP_MOVED;
}

/* A communicator's start, once its ranks are all there: NCCL refuses two
 * ranks of one communicator on one GPU (the mock's devices are the same
 * GPU in every process that sees them). */
static enum step join_step(struct op *op, struct ncclComm *c)
{
    if (!world_complete(c))
        return STEP_WAIT;
    for (int a = 0; a < c->nranks; a++)
        for (int b = a + 1; b < c->nranks; b++)
            if (c->world->ranks[a].device == c->world->ranks[b].device) {
                op->failed = mock_nccl_error(ncclInvalidUsage, true,
                                             "mock NCCL: ranks %d and %d of one communicator are both on device "
                                             "%d; NCCL takes one rank per GPU",
                                             a, b, c->world->ranks[a].device);
                return STEP_FAILED;
            }
    return STEP_DONE;
}

enum step op_step(struct op *op)
{
    switch (op->desc.kind) {
    case OP_SEND: return send_step(op);
    case OP_RECV: return recv_step(op);
    case OP_JOIN: return join_step(op, op->comm);
    default:
        if (op->joining) /* a split whose child waits for its other ranks */
            return join_step(op, *op->newcomm);
        return collective_step(op);
    }
}
