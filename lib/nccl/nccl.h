/*
 * nccl/nccl.h - the nccl wing: the public collectives over the NCCL the
 * loader found (loader/nccl.c).  comm.c keeps the communicators (which
 * handles are live, their rank, size and device), their errors and their
 * waits; collectives.c checks a call's arguments; group.c hands it to
 * NCCL, at once or at the end of the thread's group.
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
    struct cudyn_nccl_comm_st *next; /* the list of live communicators */
};

/* comm.c: CUDYN_OK when comm is a live communicator, made and not
 * aborted, and NCCL and the calling thread's context are ready; else
 * the failure. */
int cudyn__nccl_comm_use(const char *api, cudyn_nccl_comm comm);
/* A call for NCCL, kept in a group until its end (group.c). */
enum cudyn__nccl_kind {
    NCCL_CALL_ALL_REDUCE,
    NCCL_CALL_BROADCAST,
    NCCL_CALL_REDUCE,
    NCCL_CALL_ALL_GATHER,
    NCCL_CALL_REDUCE_SCATTER,
    NCCL_CALL_SEND,
    NCCL_CALL_RECV
};
struct cudyn__nccl_call {
    enum cudyn__nccl_kind kind;
    nccl_comm comm;
    const void *send;
    void *recv;
    size_t count; /* in NCCL's elements */
    nccl_data_type type;
    nccl_red_op op;
    int rank; /* root, or peer */
    nccl_stream stream;
};
/* group.c: runs the call now, or keeps it in the calling thread's group. */
int cudyn__nccl_issue(const char *api, const struct cudyn__nccl_call *call);
/* group.c: st, the result of a call; a failure inside a group fails the
 * group, whose end then starts nothing of it. */
int cudyn__nccl_group_mark(int st);

/* comm.c: records NCCL's failure r of function fn, called for api; comm
 * (may be NULL) is asked for NCCL's own message. */
int cudyn__fail_nccl(nccl_result r, const char *fn, const char *api, nccl_comm comm);
/* comm.c: the stream NCCL is given for a cudyn stream (NULL: the default
 * stream in cudyn's mode, per-thread or legacy). */
nccl_stream cudyn__nccl_stream(cudyn_stream stream);

#endif
