/*
 * nccl/group.c - groups, all or nothing.  Between cudyn_nccl_group_start
 * and the outermost cudyn_nccl_group_end, the collectives, sends and
 * receives a thread asks for are checked and kept (per thread, as NCCL
 * keeps its groups), and handed to NCCL only at the end, inside NCCL's
 * own group.  When one of them fails cudyn's checks, the end hands NCCL
 * none of them and returns that first failure: NCCL never starts half a
 * group, whose other half its peers, or the process's other
 * communicators, would wait for forever.  Inits and splits go to NCCL at
 * once (NCCL finishes them at the group's end), as NCCL's group is open
 * from the start.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "nccl/nccl.h"

/* A thread's group: how deep, the calls kept, its first failure. */
static _Thread_local struct {
    int depth;
    struct cudyn__nccl_call *calls;
    size_t n, cap;
    int failed;       /* the first failure's status, CUDYN_OK if none */
    cudyn_error error; /* and its record */
} group;

/* NCCL's function for a call, and its name for messages. */
static nccl_result run(const struct cudyn__nccl_call *c, const char **fn)
{
    switch (c->kind) {
    case NCCL_CALL_ALL_REDUCE:
        *fn = "ncclAllReduce";
        return cudyn__nccl.ncclAllReduce(c->send, c->recv, c->count, c->type, c->op, c->comm, c->stream);
    case NCCL_CALL_BROADCAST:
        *fn = "ncclBroadcast";
        return cudyn__nccl.ncclBroadcast(c->send, c->recv, c->count, c->type, c->rank, c->comm, c->stream);
    case NCCL_CALL_REDUCE:
        *fn = "ncclReduce";
        return cudyn__nccl.ncclReduce(c->send, c->recv, c->count, c->type, c->op, c->rank, c->comm, c->stream);
    case NCCL_CALL_ALL_GATHER:
        *fn = "ncclAllGather";
        return cudyn__nccl.ncclAllGather(c->send, c->recv, c->count, c->type, c->comm, c->stream);
    case NCCL_CALL_REDUCE_SCATTER:
        *fn = "ncclReduceScatter";
        return cudyn__nccl.ncclReduceScatter(c->send, c->recv, c->count, c->type, c->op, c->comm, c->stream);
    case NCCL_CALL_SEND:
        *fn = "ncclSend";
        return cudyn__nccl.ncclSend(c->send, c->count, c->type, c->rank, c->comm, c->stream);
    case NCCL_CALL_RECV:
        *fn = "ncclRecv";
        return cudyn__nccl.ncclRecv(c->recv, c->count, c->type, c->rank, c->comm, c->stream);
    }
    *fn = "NCCL";
    return NCCL_OK;
}

int cudyn__nccl_group_mark(int st)
{
    if (st != CUDYN_OK && group.depth > 0 && group.failed == CUDYN_OK) {
        group.failed = st;
        cudyn__error_save(&group.error);
    }
    return st;
}

int cudyn__nccl_issue(const char *api, const struct cudyn__nccl_call *call)
{
    const char *fn;
    if (group.depth == 0) {
        nccl_result r = run(call, &fn);
        return r == NCCL_OK ? CUDYN_OK : cudyn__fail_nccl(r, fn, api, call->comm);
    }
    if (group.n == group.cap) {
        size_t cap = group.cap ? 2 * group.cap : 16;
        struct cudyn__nccl_call *more = realloc(group.calls, cap * sizeof *more);
        if (!more)
            return cudyn__nccl_group_mark(cudyn__fail_oom(api));
        group.calls = more;
        group.cap = cap;
    }
    group.calls[group.n++] = *call;
    return CUDYN_OK;
}

CUDYN_API int cudyn_nccl_group_start(void)
{
    static const char api[] = "cudyn_nccl_group_start";
    int st = cudyn__need_nccl();
    if (st != CUDYN_OK)
        return st;
    nccl_result r = cudyn__nccl.ncclGroupStart();
    if (r != NCCL_OK)
        return cudyn__fail_nccl(r, "ncclGroupStart", api, NULL);
    group.depth++;
    return CUDYN_OK;
}

/* The kept calls handed to NCCL (none after a failure), then NCCL's end. */
static int end_outermost(const char *api)
{
    int st = group.failed;
    nccl_result r = NCCL_OK;
    const char *fn = "ncclGroupEnd";
    for (size_t i = 0; st == CUDYN_OK && r == NCCL_OK && i < group.n; i++)
        r = run(&group.calls[i], &fn); /* NCCL keeps a failure for its group's end, which then starts nothing */
    nccl_result end = cudyn__nccl.ncclGroupEnd();
    if (st == CUDYN_OK && r == NCCL_OK && end != NCCL_OK)
        r = end, fn = "ncclGroupEnd";
    if (st != CUDYN_OK)
        cudyn__error_restore(&group.error);
    else if (r != NCCL_OK)
        st = cudyn__fail_nccl(r, fn, api, NULL);
    free(group.calls);
    memset(&group, 0, sizeof group);
    return st;
}

CUDYN_API int cudyn_nccl_group_end(void)
{
    static const char api[] = "cudyn_nccl_group_end";
    int st = cudyn__need_nccl();
    if (st != CUDYN_OK)
        return st;
    if (group.depth == 0)
        return cudyn__fail(CUDYN_ERROR_INVALID_ARGUMENT, CUDYN_ORIGIN_LIBRARY, 0, NULL, api, NULL,
                           "%s: no group was started on this thread (cudyn_nccl_group_start)", api);
    if (--group.depth > 0) {
        nccl_result r = cudyn__nccl.ncclGroupEnd();
        return r == NCCL_OK ? CUDYN_OK : cudyn__nccl_group_mark(cudyn__fail_nccl(r, "ncclGroupEnd", api, NULL));
    }
    return end_outermost(api);
}
