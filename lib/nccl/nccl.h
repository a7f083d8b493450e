/*
 * nccl/nccl.h - the nccl wing: the public collectives over the NCCL the
 * loader found (loader/nccl.c).  Its files, bottom to top:
 *   comm.c         the communicators (which handles are live, their rank,
 *                  size and device, what holds them), NCCL's results as
 *                  statuses, errors, waits, abort and destroy;
 *   group.c        the calling thread's group: the calls kept for its end,
 *                  the communicators it holds;
 *   init.c         making communicators: unique ids, one rank, all of a
 *                  process, a split;
 *   collectives.c  each call's checks, from NCCL_CALL_MAP below.
 */
#ifndef CUDYN_NCCL_NCCL_H
#define CUDYN_NCCL_NCCL_H

#include "api/api.h"

/* cudyn's communicator: NCCL's, and what cudyn checks calls against.
 * NCCL writes `nccl` itself, at the end of the group when the call that
 * makes it is inside one (a split, an init of several ranks by one
 * thread): rank, nranks and device are read at its first use. */
struct cudyn_nccl_comm_st {
    nccl_comm nccl;
    bool aborted; /* nccl is gone */
    bool known;   /* rank, nranks and device are read */
    int rank, nranks, device;
    int held;                        /* open groups that use it (comms_lock): destroy, abort, wait refuse */
    struct cudyn_nccl_comm_st *next; /* the list of live communicators */
};

/* ---- comm.c ---- */
/* CUDYN_OK when comm is a live communicator, made and not aborted, and
 * NCCL and the calling thread's context are ready; else the failure. */
int cudyn__nccl_comm_use(const char *api, cudyn_nccl_comm comm);
/* A new handle, live and empty (NCCL writes its communicator into it), or
 * NULL when memory ran out; cudyn__nccl_drop takes back one whose making
 * failed and returns st. */
cudyn_nccl_comm cudyn__nccl_new_handle(void);
int cudyn__nccl_drop(cudyn_nccl_comm c, int st);
/* An open group uses comm (a call kept for its end, or a communicator
 * NCCL finishes there): while any does, destroy, abort and wait refuse
 * it (CUDYN_ERROR_INVALID_ARGUMENT), so that the group's end never meets
 * a destroyed or aborted one.  The group's end lets go. */
void cudyn__nccl_comm_hold(cudyn_nccl_comm comm);
void cudyn__nccl_comm_let_go(cudyn_nccl_comm comm);
/* Records NCCL's failure r of function fn, called for api; comm (may be
 * NULL) is asked for NCCL's own message. */
int cudyn__fail_nccl(nccl_result r, const char *fn, const char *api, nccl_comm comm);
/* *out: the stream NCCL is given for a cudyn stream (NULL: the default
 * stream in cudyn's mode, per-thread or legacy), once the driver has said
 * that `stream` is one (as cudyn's own waits ask it); else the failure. */
int cudyn__nccl_stream(const char *api, cudyn_stream stream, nccl_stream *out);

/* ---- the calls cudyn hands to NCCL ----
 * Which blocks of its buffers a call reads and writes: `count` values
 * (ONE), `count` values per rank (RANKS), `count` values on the root only
 * (AT_ROOT), or none. */
enum cudyn__nccl_blocks { BLOCKS_NONE, BLOCKS_ONE, BLOCKS_RANKS, BLOCKS_AT_ROOT };

/* One row per call: X(KIND, name, reduces, rank, send, recv, nccl_fn,
 * args).  cudyn_nccl_<name> is its public function (collectives.c; its
 * name in messages); `reduces`: it takes an operation, checked against the
 * element type; `rank`: the rank argument it takes ("root", "peer") or
 * NULL; `send` and `recv`: the blocks it reads and writes (BLOCKS_ and
 * the name); `nccl_fn` and
 * `args`: NCCL's function and its arguments, of the kept call `c` and its
 * NCCL communicator `n` (group.c's run()).  From the map come the kinds
 * below, the checks (collectives.c) and the dispatch (group.c). */
#define NCCL_CALL_MAP(X)                                                                                       \
    X(ALL_REDUCE, all_reduce, true, NULL, ONE, ONE, ncclAllReduce,                                             \
      (c->send, c->recv, c->count, c->type, c->op, n, c->stream))                                              \
    X(BROADCAST, broadcast, false, "root", AT_ROOT, ONE, ncclBroadcast,                                        \
      (c->send, c->recv, c->count, c->type, c->rank, n, c->stream))                                            \
    X(REDUCE, reduce, true, "root", ONE, AT_ROOT, ncclReduce,                                                  \
      (c->send, c->recv, c->count, c->type, c->op, c->rank, n, c->stream))                                     \
    X(ALL_GATHER, all_gather, false, NULL, ONE, RANKS, ncclAllGather,                                          \
      (c->send, c->recv, c->count, c->type, n, c->stream))                                                     \
    X(REDUCE_SCATTER, reduce_scatter, true, NULL, RANKS, ONE, ncclReduceScatter,                               \
      (c->send, c->recv, c->count, c->type, c->op, n, c->stream))                                              \
    X(SEND, send, false, "peer", ONE, NONE, ncclSend, (c->send, c->count, c->type, c->rank, n, c->stream))    \
    X(RECV, recv, false, "peer", NONE, ONE, ncclRecv, (c->recv, c->count, c->type, c->rank, n, c->stream))

enum cudyn__nccl_kind {
#define NCCL_CALL_KIND(kind, name, reduces, rank, send, recv, fn, args) NCCL_CALL_##kind,
    NCCL_CALL_MAP(NCCL_CALL_KIND)
#undef NCCL_CALL_KIND
};

/* A call for NCCL, checked, kept in a group until its end. */
struct cudyn__nccl_call {
    enum cudyn__nccl_kind kind;
    cudyn_nccl_comm comm; /* held by the group while kept */
    const void *send;
    void *recv;
    size_t count; /* in NCCL's elements */
    nccl_data_type type;
    nccl_red_op op;
    int rank; /* root, or peer */
    nccl_stream stream;
};

/* ---- group.c ---- */
/* Runs the call now, or keeps it in the calling thread's group. */
int cudyn__nccl_issue(const char *api, const struct cudyn__nccl_call *call);
/* st, the result of a call; a failure inside a group fails the group,
 * whose end then starts nothing of it. */
int cudyn__nccl_group_mark(int st);
/* A communicator made or used by a call NCCL finishes at the end of the
 * calling thread's group (an init, a split) is held until that end
 * (nothing outside a group).  cudyn__nccl_group_room first makes room for
 * n holds, so that the hold after the NCCL call cannot fail: CUDYN_OK, or
 * out of memory. */
int cudyn__nccl_group_room(const char *api, size_t n);
void cudyn__nccl_group_hold(cudyn_nccl_comm comm);

#endif
