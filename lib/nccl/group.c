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
 *
 * Until its end the group holds every communicator it will hand to NCCL
 * or NCCL will finish (comm.c's cudyn__nccl_comm_hold): destroy, abort
 * and wait refuse those, so that the end never meets a freed or aborted
 * communicator.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "nccl/nccl.h"

/* A thread's group: how deep, the calls kept, the communicators held,
 * its first failure. */
static _Thread_local struct {
    int depth;
    struct cudyn__nccl_call *calls;
    size_t n, cap;
    cudyn_nccl_comm *held;
    size_t n_held, cap_held;
    int failed;        /* the first failure's status, CUDYN_OK if none */
    cudyn_error error; /* and its record */
} group;

/* NCCL's function for a call (NCCL_CALL_MAP's), and its name for messages. */
static nccl_result run(const struct cudyn__nccl_call *c, const char **fn)
{
    nccl_comm n = c->comm->nccl;
    switch (c->kind) {
#define NCCL_CALL_RUN(kind, name, reduces, rank, send, recv, nccl_fn, args)                                    \
    case NCCL_CALL_##kind:                                                                                     \
        *fn = #nccl_fn;                                                                                        \
        return cudyn__nccl.nccl_fn args;
        NCCL_CALL_MAP(NCCL_CALL_RUN)
#undef NCCL_CALL_RUN
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

/* Room in *array (of *cap elements of `size` bytes) for `used` + n;
 * false when memory ran out. */
static bool room(void **array, size_t *cap, size_t used, size_t n, size_t size)
{
    if (used + n <= *cap)
        return true;
    size_t more = *cap ? 2 * *cap : 16;
    while (more < used + n)
        more *= 2;
    void *grown = realloc(*array, more * size);
    if (!grown)
        return false;
    *array = grown;
    *cap = more;
    return true;
}

int cudyn__nccl_group_room(const char *api, size_t n)
{
    if (group.depth == 0 ||
        room((void **)&group.held, &group.cap_held, group.n_held, n, sizeof *group.held))
        return CUDYN_OK;
    return cudyn__nccl_group_mark(cudyn__fail_oom(api));
}

void cudyn__nccl_group_hold(cudyn_nccl_comm comm)
{
    if (group.depth == 0)
        return;
    cudyn__nccl_comm_hold(comm);
    group.held[group.n_held++] = comm;
}

int cudyn__nccl_issue(const char *api, const struct cudyn__nccl_call *call)
{
    const char *fn;
    if (group.depth == 0) {
        nccl_result r = run(call, &fn);
        return r == NCCL_OK ? CUDYN_OK : cudyn__fail_nccl(r, fn, api, call->comm->nccl);
    }
    if (!room((void **)&group.calls, &group.cap, group.n, 1, sizeof *group.calls))
        return cudyn__nccl_group_mark(cudyn__fail_oom(api));
    int st = cudyn__nccl_group_room(api, 1);
    if (st != CUDYN_OK)
        return st;
    group.calls[group.n++] = *call;
    cudyn__nccl_group_hold(call->comm);
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

/* The kept calls handed to NCCL (none after a failure), then NCCL's end;
 * then the communicators held go free. */
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
    for (size_t i = 0; i < group.n_held; i++)
        cudyn__nccl_comm_let_go(group.held[i]);
    free(group.calls);
    free(group.held);
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
