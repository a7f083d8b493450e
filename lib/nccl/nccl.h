/*
 * nccl/nccl.h - the nccl wing: the public collectives over the NCCL the
 * loader found (loader/nccl.c).  comm.c keeps the communicators (which
 * handles are live, their rank, size and device), their errors and their
 * waits; collectives.c checks a call's arguments and queues it.
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
/* comm.c: records NCCL's failure r of function fn, called for api; comm
 * (may be NULL) is asked for NCCL's own message. */
int cudyn__fail_nccl(nccl_result r, const char *fn, const char *api, nccl_comm comm);
/* comm.c: the stream NCCL is given for a cudyn stream (NULL: the default
 * stream in cudyn's mode, per-thread or legacy). */
nccl_stream cudyn__nccl_stream(cudyn_stream stream);

#endif
