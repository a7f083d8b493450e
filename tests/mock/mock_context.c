/*
 * mock_context.c - contexts as the driver documents them: primary contexts
 * (retained, released, reset), created contexts (cuCtxCreate, cuCtxDestroy),
 * each thread's context stack, and peer access between contexts.
 *
 * Context handles are never freed: a destroyed context stays readable so
 * that a thread that still has it current gets CONTEXT_IS_DESTROYED, and
 * any handle can be checked against the list before it is used.
 */
#include "config.h"

#include <stdlib.h>

#include "mock.h"

#define MAX_STACK 64

static struct CUctx_st primary_ctx[MAX_DEVICES];
static struct CUctx_st *created; /* every cuCtxCreate'd context, destroyed ones too */

static _Thread_local struct CUctx_st *stack[MAX_STACK];
static _Thread_local int depth;

struct CUctx_st *ctx_current(void)
{
    return depth ? stack[depth - 1] : NULL;
}

static int is_primary(const struct CUctx_st *ctx)
{
    uintptr_t p = (uintptr_t)ctx, first = (uintptr_t)primary_ctx;
    return p >= first && p < first + sizeof primary_ctx;
}

/* Whether ctx is usable now (lock held). */
static int alive_locked(const struct CUctx_st *ctx)
{
    return is_primary(ctx) ? ctx->retained > 0 : !ctx->destroyed;
}

/* A handle the mock made (lock held): a primary or a created context. */
static int known_locked(const struct CUctx_st *ctx)
{
    if (is_primary(ctx))
        return 1;
    for (const struct CUctx_st *c = created; c; c = c->next)
        if (c == ctx)
            return 1;
    return 0;
}

/* 0 if ctx may be handed to a call (known and alive), else 201. */
static cu_result check_handle(const struct CUctx_st *ctx)
{
    pthread_mutex_lock(&mock.lock);
    int ok = ctx && known_locked(ctx) && alive_locked(ctx);
    pthread_mutex_unlock(&mock.lock);
    return ok ? CU_OK : CU_ERR_INVALID_CONTEXT;
}

cu_result ctx_need_current(struct CUctx_st **ctx)
{
    struct CUctx_st *cur = ctx_current();
    *ctx = cur;
    if (!cur)
        return CU_ERR_INVALID_CONTEXT;
    pthread_mutex_lock(&mock.lock);
    int ok = alive_locked(cur);
    pthread_mutex_unlock(&mock.lock);
    return ok ? CU_OK : CU_ERR_CONTEXT_IS_DESTROYED;
}

int ctx_peer_enabled_locked(const struct CUctx_st *from, const struct CUctx_st *to)
{
    for (int i = 0; i < MAX_PEERS; i++)
        if (from->peers[i] == to)
            return 1;
    return 0;
}

/* Frees everything ctx owns and ends peer access to and from it: what a
 * destroyed or reset context leaves behind. */
static void release_resources(struct CUctx_st *ctx)
{
    textures_release_context(ctx);
    arrays_release_context(ctx);
    memory_release_context(ctx);
    modules_release_context(ctx);
    streams_release_context(ctx);
    pthread_mutex_lock(&mock.lock);
    for (int i = 0; i < MAX_PEERS; i++)
        ctx->peers[i] = NULL;
    for (int d = 0; d < MAX_DEVICES; d++)
        for (int i = 0; i < MAX_PEERS; i++)
            if (primary_ctx[d].peers[i] == ctx)
                primary_ctx[d].peers[i] = NULL;
    for (struct CUctx_st *c = created; c; c = c->next)
        for (int i = 0; i < MAX_PEERS; i++)
            if (c->peers[i] == ctx)
                c->peers[i] = NULL;
    pthread_mutex_unlock(&mock.lock);
}

/* ------------------------------------------------------- primary contexts */

cu_result cuDevicePrimaryCtxRetain(cu_context *ctx, cu_device dev)
{
    ENTER("cuDevicePrimaryCtxRetain");
    CHECK_DEVICE(dev);
    /* as on driver 580: after a kernel fault nothing in the process
     * recovers the device, not even reset, release and retain */
    if (mock.sticky_error)
        return mock.sticky_error;
    pthread_mutex_lock(&mock.lock);
    primary_ctx[dev].device = dev;
    primary_ctx[dev].retained++;
    pthread_mutex_unlock(&mock.lock);
    *ctx = &primary_ctx[dev];
    return CU_OK;
}

/* The last release resets the context, as the driver documents. */
static cu_result release(cu_device dev)
{
    CHECK_DEVICE(dev);
    pthread_mutex_lock(&mock.lock);
    int ok = primary_ctx[dev].retained > 0;
    if (ok)
        primary_ctx[dev].retained--;
    int last = ok && primary_ctx[dev].retained == 0;
    pthread_mutex_unlock(&mock.lock);
    if (last)
        release_resources(&primary_ctx[dev]);
    return ok ? CU_OK : CU_ERR_INVALID_CONTEXT;
}

cu_result cuDevicePrimaryCtxRelease(cu_device dev)
{
    ENTER("cuDevicePrimaryCtxRelease");
    return release(dev);
}

cu_result cuDevicePrimaryCtxRelease_v2(cu_device dev)
{
    ENTER("cuDevicePrimaryCtxRelease_v2");
    return release(dev);
}

/* Frees everything of the primary context; it stays retained (the driver:
 * "resetting the primary context does not release it").  A sticky error
 * stays too: see retain. */
static cu_result reset(cu_device dev)
{
    CHECK_DEVICE(dev);
    release_resources(&primary_ctx[dev]);
    return CU_OK;
}

cu_result cuDevicePrimaryCtxReset(cu_device dev)
{
    ENTER("cuDevicePrimaryCtxReset");
    return reset(dev);
}

cu_result cuDevicePrimaryCtxReset_v2(cu_device dev)
{
    ENTER("cuDevicePrimaryCtxReset_v2");
    return reset(dev);
}

cu_result cuDevicePrimaryCtxGetState(cu_device dev, unsigned int *flags, int *active)
{
    ENTER("cuDevicePrimaryCtxGetState");
    CHECK_DEVICE(dev);
    pthread_mutex_lock(&mock.lock);
    *flags = 0;
    *active = primary_ctx[dev].retained > 0;
    pthread_mutex_unlock(&mock.lock);
    return CU_OK;
}

/* ------------------------------------------------------ the context stack */

cu_result cuCtxGetCurrent(cu_context *ctx)
{
    ENTER("cuCtxGetCurrent");
    NEED_INIT();
    *ctx = ctx_current();
    return CU_OK;
}

/* Replaces the top of the stack (pushes onto an empty one); NULL pops. */
cu_result cuCtxSetCurrent(cu_context ctx)
{
    ENTER("cuCtxSetCurrent");
    NEED_INIT();
    if (!ctx) {
        if (depth)
            depth--;
        return CU_OK;
    }
    /* a primary context nobody retains may be made current (its use then
     * fails with 709); a destroyed or unknown one may not */
    pthread_mutex_lock(&mock.lock);
    int ok = known_locked(ctx) && (is_primary(ctx) || !ctx->destroyed);
    pthread_mutex_unlock(&mock.lock);
    if (!ok)
        return CU_ERR_INVALID_CONTEXT;
    if (depth)
        stack[depth - 1] = ctx;
    else
        stack[depth++] = ctx;
    return CU_OK;
}

cu_result cuCtxPushCurrent_v2(cu_context ctx)
{
    ENTER("cuCtxPushCurrent_v2");
    NEED_INIT();
    pthread_mutex_lock(&mock.lock);
    int ok = ctx && known_locked(ctx) && (is_primary(ctx) || !ctx->destroyed);
    pthread_mutex_unlock(&mock.lock);
    if (!ok)
        return CU_ERR_INVALID_CONTEXT;
    if (depth == MAX_STACK)
        return CU_ERR_OUT_OF_MEMORY; /* the mock's limit; a driver's is larger */
    stack[depth++] = ctx;
    return CU_OK;
}

cu_result cuCtxPopCurrent_v2(cu_context *ctx)
{
    ENTER("cuCtxPopCurrent_v2");
    NEED_INIT();
    if (!depth)
        return CU_ERR_INVALID_CONTEXT;
    struct CUctx_st *top = stack[--depth];
    if (ctx)
        *ctx = top;
    return CU_OK;
}

cu_result cuCtxGetDevice(cu_device *dev)
{
    ENTER("cuCtxGetDevice");
    struct CUctx_st *ctx;
    cu_result r = ctx_need_current(&ctx);
    if (r)
        return r;
    *dev = ctx->device;
    return CU_OK;
}

cu_result cuCtxSynchronize(void)
{
    ENTER("cuCtxSynchronize");
    NEED_CONTEXT();
    cu_result r = capture_forbids();
    if (r)
        return r;
    pools_settle();
    return mock.sticky_error;
}

/* ------------------------------------------------------- created contexts */

static cu_result create(cu_context *out, cu_device dev)
{
    CHECK_DEVICE(dev);
    if (!out)
        return CU_ERR_INVALID_VALUE;
    if (mock.sticky_error)
        return mock.sticky_error; /* see retain */
    if (depth == MAX_STACK)
        return CU_ERR_OUT_OF_MEMORY;
    struct CUctx_st *ctx = calloc(1, sizeof *ctx);
    if (!ctx)
        return CU_ERR_OUT_OF_MEMORY;
    ctx->device = dev;
    pthread_mutex_lock(&mock.lock);
    ctx->next = created;
    created = ctx;
    pthread_mutex_unlock(&mock.lock);
    stack[depth++] = ctx;
    *out = ctx;
    return CU_OK;
}

cu_result cuCtxCreate_v2(cu_context *ctx, unsigned int flags, cu_device dev)
{
    ENTER("cuCtxCreate_v2");
    (void)flags; /* scheduling and mapping flags change nothing on the host */
    return create(ctx, dev);
}

cu_result cuCtxCreate_v4(cu_context *ctx, struct CUctxCreateParams_st *params, unsigned int flags, cu_device dev)
{
    ENTER("cuCtxCreate_v4");
    (void)flags;
    if (params)
        return CU_ERR_NOT_SUPPORTED; /* execution affinity, CIG: not emulated */
    return create(ctx, dev);
}

/* A primary context cannot be destroyed this way (201).  The calling
 * thread loses the context wherever it is on its stack; other threads keep
 * it current and get 709 from calls that need it. */
cu_result cuCtxDestroy_v2(cu_context ctx)
{
    ENTER("cuCtxDestroy_v2");
    NEED_INIT();
    pthread_mutex_lock(&mock.lock);
    int ok = ctx && known_locked(ctx) && !is_primary(ctx) && !ctx->destroyed;
    if (ok)
        ctx->destroyed = 1;
    pthread_mutex_unlock(&mock.lock);
    if (!ok)
        return CU_ERR_INVALID_CONTEXT;
    int kept = 0;
    for (int i = 0; i < depth; i++)
        if (stack[i] != ctx)
            stack[kept++] = stack[i];
    depth = kept;
    release_resources(ctx);
    return CU_OK;
}

/* ------------------------------------------------------------ peer access */

cu_result cuCtxEnablePeerAccess(cu_context peer, unsigned int flags)
{
    ENTER("cuCtxEnablePeerAccess");
    struct CUctx_st *cur;
    cu_result r = ctx_need_current(&cur);
    if (r)
        return r;
    if (check_handle(peer) != CU_OK || peer == cur)
        return CU_ERR_INVALID_CONTEXT;
    if (flags != 0)
        return CU_ERR_INVALID_VALUE;
    if (peer->device == cur->device)
        return CU_ERR_INVALID_DEVICE;
    if (!mock.p2p[cur->device][peer->device])
        return CU_ERR_PEER_ACCESS_UNSUPPORTED;
    pthread_mutex_lock(&mock.lock);
    r = ctx_peer_enabled_locked(cur, peer) ? CU_ERR_PEER_ACCESS_ALREADY_ENABLED : MOCK_ERR_TOO_MANY_PEERS;
    for (int i = 0; i < MAX_PEERS && r == MOCK_ERR_TOO_MANY_PEERS; i++)
        if (!cur->peers[i]) {
            cur->peers[i] = peer;
            r = CU_OK;
        }
    pthread_mutex_unlock(&mock.lock);
    return r;
}

cu_result cuCtxDisablePeerAccess(cu_context peer)
{
    ENTER("cuCtxDisablePeerAccess");
    struct CUctx_st *cur;
    cu_result r = ctx_need_current(&cur);
    if (r)
        return r;
    if (check_handle(peer) != CU_OK)
        return CU_ERR_INVALID_CONTEXT;
    r = CU_ERR_PEER_ACCESS_NOT_ENABLED;
    pthread_mutex_lock(&mock.lock);
    for (int i = 0; i < MAX_PEERS; i++)
        if (cur->peers[i] == peer) {
            cur->peers[i] = NULL;
            r = CU_OK;
        }
    pthread_mutex_unlock(&mock.lock);
    return r;
}

/* ------------------------------------------------------------- inspection */

/* Contexts that exist now: active primary ones and created ones not
 * destroyed. */
int mock_contexts_alive(void)
{
    int n = 0;
    pthread_mutex_lock(&mock.lock);
    for (int d = 0; d < MAX_DEVICES; d++)
        n += primary_ctx[d].retained > 0;
    for (const struct CUctx_st *c = created; c; c = c->next)
        n += !c->destroyed;
    pthread_mutex_unlock(&mock.lock);
    return n;
}

void *mock_context_current(void)
{
    return ctx_current();
}

int mock_context_depth(void)
{
    return depth;
}
