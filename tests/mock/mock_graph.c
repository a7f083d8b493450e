/*
 * mock_graph.c - stream capture and graphs.  A capturing stream records
 * the work submitted to it (kernel launches with a copy of their
 * parameters, copies, memsets) instead of running it; ending the capture
 * gives a graph of those operations in order; an instance replays them on
 * the host each time it is launched.  An instance is updated from a graph
 * of the same shape, as cuGraphExecUpdate allows.
 *
 * As with the driver: the legacy default stream cannot be captured (900);
 * a synchronous allocation, copy, memset or context synchronisation while
 * a GLOBAL capture (any thread) or THREAD_LOCAL capture (this thread) is
 * active fails with 900 and invalidates it, and so does synchronising or
 * querying the capturing stream; ending an invalidated capture is 901.
 * Capturing the per-thread default stream, events, prefetches, allocation
 * nodes and child graphs are refused (mock_refuse).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "mock.h"

struct ops {
    struct mock_op *v;
    size_t n, cap;
};

struct capture {
    cu_stream stream;
    cu_enum mode;
    pthread_t thread;
    int invalidated;
    cu_uint64 id;
    struct ops ops;
    struct capture *next;
};

struct CUgraph_st {
    struct ops ops;
    struct CUgraph_st *next;
};

struct CUgraphExec_st {
    struct ops ops;
    struct CUctx_st *ctx;
    struct CUgraphExec_st *next;
};

static struct capture *captures;
static struct CUgraph_st *graphs;
static struct CUgraphExec_st *execs;
static cu_uint64 capture_ids;

/* CU_STREAM_LEGACY and CU_STREAM_PER_THREAD, the default streams by name */
#define STREAM_LEGACY ((cu_stream)(uintptr_t)1)
#define STREAM_PER_THREAD ((cu_stream)(uintptr_t)2)
enum { MODE_GLOBAL = 0, MODE_THREAD_LOCAL = 1, MODE_RELAXED = 2 };

/* ----------------------------------------------------------------- op lists */

/* A kernel op's own copy of its parameters: the pointers, then the bytes. */
static void **copy_params(const struct mock_op *op)
{
    size_t total = 0;
    for (int i = 0; i < op->kernel.n_params; i++)
        total += (op->kernel.param_size[i] + 15) / 16 * 16;
    void **ptrs = malloc(sizeof(void *) * MOCK_MAX_PARAMS + total + 1);
    if (!ptrs)
        return NULL;
    unsigned char *bytes = (unsigned char *)(ptrs + MOCK_MAX_PARAMS);
    for (int i = 0; i < op->kernel.n_params; i++) {
        memcpy(bytes, op->kernel.params[i], op->kernel.param_size[i]);
        ptrs[i] = bytes;
        bytes += (op->kernel.param_size[i] + 15) / 16 * 16;
    }
    return ptrs;
}

static void op_free(struct mock_op *op)
{
    if (op->kind == OP_KERNEL)
        free((void *)op->kernel.params);
}

/* Appends a copy of op (owning its parameters); 0 or OUT_OF_MEMORY. */
static cu_result ops_append(struct ops *ops, const struct mock_op *op)
{
    if (ops->n == ops->cap) {
        size_t cap = ops->cap ? 2 * ops->cap : 16;
        struct mock_op *grown = realloc(ops->v, cap * sizeof *grown);
        if (!grown)
            return CU_ERR_OUT_OF_MEMORY;
        ops->v = grown;
        ops->cap = cap;
    }
    struct mock_op copy = *op;
    if (op->kind == OP_KERNEL && !(copy.kernel.params = copy_params(op)))
        return CU_ERR_OUT_OF_MEMORY;
    ops->v[ops->n++] = copy;
    return CU_OK;
}

static void ops_free(struct ops *ops)
{
    for (size_t i = 0; i < ops->n; i++)
        op_free(&ops->v[i]);
    free(ops->v);
    *ops = (struct ops){0};
}

static cu_result ops_copy(struct ops *dst, const struct ops *src)
{
    *dst = (struct ops){0};
    for (size_t i = 0; i < src->n; i++) {
        cu_result r = ops_append(dst, &src->v[i]);
        if (r) {
            ops_free(dst);
            return r;
        }
    }
    return CU_OK;
}

cu_result op_run(const struct mock_op *op)
{
    switch (op->kind) {
    case OP_KERNEL: return kernel_replay(op);
    case OP_COPY:
        return memory_copy(op->copy.dst, op->copy.dst_device, op->copy.src, op->copy.src_device, op->copy.bytes);
    case OP_COPY3D: return copy3d_run(&op->copy3d);
    default: return memory_fill(op->fill.dst, op->fill.value, op->fill.width, op->fill.count);
    }
}

/* ------------------------------------------------------------------ capture */

/* The capture of stream s; lock held. */
static struct capture *capture_of_locked(cu_stream s)
{
    for (struct capture *c = captures; c; c = c->next)
        if (c->stream == s)
            return c;
    return NULL;
}

int stream_capturing(cu_stream s)
{
    pthread_mutex_lock(&mock.lock);
    int capturing = s && capture_of_locked(s) != NULL;
    pthread_mutex_unlock(&mock.lock);
    return capturing;
}

cu_result capture_record(cu_stream s, const struct mock_op *op, int *recorded)
{
    *recorded = 0;
    pthread_mutex_lock(&mock.lock);
    struct capture *c = s ? capture_of_locked(s) : NULL;
    cu_result r = !c ? CU_OK : c->invalidated ? CU_ERR_STREAM_CAPTURE_INVALIDATED : ops_append(&c->ops, op);
    pthread_mutex_unlock(&mock.lock);
    *recorded = c != NULL;
    return r;
}

cu_result capture_forbids(void)
{
    int forbidden = 0;
    pthread_t self = pthread_self();
    pthread_mutex_lock(&mock.lock);
    for (struct capture *c = captures; c; c = c->next)
        if (c->mode == MODE_GLOBAL || (c->mode == MODE_THREAD_LOCAL && pthread_equal(c->thread, self))) {
            c->invalidated = 1;
            forbidden = 1;
        }
    pthread_mutex_unlock(&mock.lock);
    return forbidden ? CU_ERR_STREAM_CAPTURE_UNSUPPORTED : CU_OK;
}

/* Synchronising or querying a capturing stream breaks its capture. */
cu_result capture_blocks_wait(cu_stream s)
{
    pthread_mutex_lock(&mock.lock);
    struct capture *c = s ? capture_of_locked(s) : NULL;
    if (c)
        c->invalidated = 1;
    pthread_mutex_unlock(&mock.lock);
    return c ? CU_ERR_STREAM_CAPTURE_UNSUPPORTED : CU_OK;
}

static cu_result begin_capture(cu_stream s, cu_enum mode, int per_thread)
{
    NEED_CONTEXT();
    if (mode > MODE_RELAXED)
        return CU_ERR_INVALID_VALUE;
    if ((!s && per_thread) || s == STREAM_PER_THREAD)
        return mock_refuse("capture of the per-thread default stream");
    if (!s || s == STREAM_LEGACY)
        return CU_ERR_STREAM_CAPTURE_UNSUPPORTED; /* the legacy stream synchronises with every other */
    cu_result r = stream_usable(s);
    if (r)
        return r;
    struct capture *c = calloc(1, sizeof *c);
    if (!c)
        return CU_ERR_OUT_OF_MEMORY;
    c->stream = s;
    c->mode = mode;
    c->thread = pthread_self();
    pthread_mutex_lock(&mock.lock);
    r = capture_of_locked(s) ? MOCK_ERR_ILLEGAL_STATE : CU_OK;
    if (!r) {
        c->id = ++capture_ids;
        c->next = captures;
        captures = c;
    }
    pthread_mutex_unlock(&mock.lock);
    if (r)
        free(c);
    return r;
}

cu_result cuStreamBeginCapture_v2(cu_stream s, cu_enum mode)
{
    ENTER("cuStreamBeginCapture_v2");
    return begin_capture(s, mode, 0);
}

cu_result cuStreamBeginCapture_v2_ptsz(cu_stream s, cu_enum mode)
{
    ENTER("cuStreamBeginCapture_v2_ptsz");
    return begin_capture(s, mode, 1);
}

static cu_result end_capture(cu_stream s, cu_graph *out)
{
    NEED_CONTEXT();
    if (!out)
        return CU_ERR_INVALID_VALUE;
    *out = NULL;
    cu_result r = stream_usable(s);
    if (r)
        return r;
    struct capture *c = NULL;
    pthread_mutex_lock(&mock.lock);
    MOCK_LIST_UNLINK_IF(struct capture, captures, x, !c && x->stream == s, c = x);
    pthread_mutex_unlock(&mock.lock);
    if (!c)
        return MOCK_ERR_ILLEGAL_STATE;
    struct CUgraph_st *g = c->invalidated ? NULL : calloc(1, sizeof *g);
    r = c->invalidated ? CU_ERR_STREAM_CAPTURE_INVALIDATED : g ? CU_OK : CU_ERR_OUT_OF_MEMORY;
    if (g) {
        g->ops = c->ops;
        pthread_mutex_lock(&mock.lock);
        g->next = graphs;
        graphs = g;
        pthread_mutex_unlock(&mock.lock);
        *out = g;
    } else {
        ops_free(&c->ops);
    }
    free(c);
    return r;
}

TWO_FLAVOURS(cuStreamEndCapture, cuStreamEndCapture_ptsz, (cu_stream s, cu_graph *g), end_capture(s, g))

/* The status (and id) of a stream's capture; the graph and dependencies
 * being built are not emulated. */
static cu_result capture_info(cu_stream s, cu_enum *status, cu_uint64 *id, const void *graph, const void *deps)
{
    cu_result r = stream_usable(s);
    if (r)
        return r;
    if (!status)
        return CU_ERR_INVALID_VALUE;
    if (graph || deps)
        return mock_refuse("the graph and dependencies of a capture in progress");
    pthread_mutex_lock(&mock.lock);
    const struct capture *c = s ? capture_of_locked(s) : NULL;
    *status = !c ? CU_CAPTURE_STATUS_NONE : c->invalidated ? CU_CAPTURE_STATUS_INVALIDATED : CU_CAPTURE_STATUS_ACTIVE;
    if (id && c)
        *id = c->id;
    pthread_mutex_unlock(&mock.lock);
    return CU_OK;
}

TWO_FLAVOURS(cuStreamGetCaptureInfo_v2, cuStreamGetCaptureInfo_v2_ptsz,
             (cu_stream s, cu_enum *status, cu_uint64 *id, cu_graph *graph, const cu_graph_node **deps,
              size_t *num_deps),
             ((void)num_deps, capture_info(s, status, id, graph, deps)))
TWO_FLAVOURS(cuStreamGetCaptureInfo_v3, cuStreamGetCaptureInfo_v3_ptsz,
             (cu_stream s, cu_enum *status, cu_uint64 *id, cu_graph *graph, const cu_graph_node **deps,
              const struct CUgraphEdgeData_st **edges, size_t *num_deps),
             ((void)num_deps, capture_info(s, status, id, graph, deps ? (const void *)deps : (const void *)edges)))

/* ------------------------------------------------------------------- graphs */

static struct CUgraph_st *graph_live_locked(cu_graph g)
{
    for (struct CUgraph_st *x = graphs; x; x = x->next)
        if (x == g)
            return x;
    return NULL;
}

static struct CUgraphExec_st *exec_live_locked(cu_graph_exec e)
{
    for (struct CUgraphExec_st *x = execs; x; x = x->next)
        if (x == e)
            return x;
    return NULL;
}

/* CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH (the mock's graphs
 * allocate nothing), and the flags it does not emulate: UPLOAD,
 * DEVICE_LAUNCH, USE_NODE_PRIORITY. */
#define AUTO_FREE_ON_LAUNCH 1ull
#define NOT_EMULATED_FLAGS (2ull | 4ull | 8ull)

cu_result cuGraphInstantiateWithFlags(cu_graph_exec *out, cu_graph g, unsigned long long flags)
{
    ENTER("cuGraphInstantiateWithFlags");
    struct CUctx_st *ctx;
    cu_result r = ctx_need_current(&ctx);
    if (r)
        return r;
    if (!out || (flags & ~(AUTO_FREE_ON_LAUNCH | NOT_EMULATED_FLAGS)))
        return CU_ERR_INVALID_VALUE;
    if (flags & NOT_EMULATED_FLAGS)
        return mock_refuse("graph instantiation flags 0x%llx", flags & NOT_EMULATED_FLAGS);
    struct CUgraphExec_st *e = calloc(1, sizeof *e);
    if (!e)
        return CU_ERR_OUT_OF_MEMORY;
    pthread_mutex_lock(&mock.lock);
    const struct CUgraph_st *x = graph_live_locked(g);
    r = x ? ops_copy(&e->ops, &x->ops) : CU_ERR_INVALID_VALUE;
    if (!r) {
        e->ctx = ctx;
        e->next = execs;
        execs = e;
    }
    pthread_mutex_unlock(&mock.lock);
    if (r) {
        free(e);
        return r;
    }
    *out = e;
    return CU_OK;
}

/* Replays the instance's operations in order; the first failure ends it. */
static cu_result graph_launch(cu_graph_exec e, cu_stream s)
{
    struct CUctx_st *ctx;
    cu_result r = ctx_need_current(&ctx);
    if (r || (r = stream_usable(s)) != CU_OK)
        return r;
    if (stream_capturing(s))
        return mock_refuse("a graph launched into a stream capture (child graph nodes)");
    struct ops ops;
    pthread_mutex_lock(&mock.lock);
    const struct CUgraphExec_st *x = exec_live_locked(e);
    r = !x ? CU_ERR_INVALID_VALUE : x->ctx != ctx ? CU_ERR_INVALID_HANDLE : ops_copy(&ops, &x->ops);
    pthread_mutex_unlock(&mock.lock);
    if (r)
        return r;
    for (size_t i = 0; i < ops.n && !r; i++)
        r = mock.sticky_error ? mock.sticky_error : op_run(&ops.v[i]);
    ops_free(&ops);
    return r;
}

TWO_FLAVOURS(cuGraphLaunch, cuGraphLaunch_ptsz, (cu_graph_exec e, cu_stream s), graph_launch(e, s))

/* CUgraphExecUpdateResult: why `to` cannot take the place of `from`. */
enum {
    UPDATE_SUCCESS = 0,
    UPDATE_TOPOLOGY_CHANGED = 2,
    UPDATE_NODE_TYPE_CHANGED = 3,
    UPDATE_PARAMETERS_CHANGED = 5,
    UPDATE_ATTRIBUTES_CHANGED = 8
};

static cu_enum update_fits(const struct ops *from, const struct ops *to)
{
    if (from->n != to->n)
        return UPDATE_TOPOLOGY_CHANGED;
    for (size_t i = 0; i < to->n; i++) {
        const struct mock_op *a = &from->v[i], *b = &to->v[i];
        if (a->kind != b->kind)
            return UPDATE_NODE_TYPE_CHANGED;
        if (a->kind == OP_KERNEL && (a->kernel.cooperative != b->kernel.cooperative ||
                                     memcmp(a->kernel.cluster, b->kernel.cluster, sizeof a->kernel.cluster)))
            return UPDATE_ATTRIBUTES_CHANGED;
        if (a->kind == OP_COPY &&
            (a->copy.dst_device != b->copy.dst_device || a->copy.src_device != b->copy.src_device))
            return UPDATE_PARAMETERS_CHANGED;
        if (a->kind == OP_COPY3D && (a->copy3d.srcMemoryType != b->copy3d.srcMemoryType ||
                                     a->copy3d.dstMemoryType != b->copy3d.dstMemoryType))
            return UPDATE_PARAMETERS_CHANGED;
    }
    return UPDATE_SUCCESS;
}

/* The instance takes the graph's operations when they fit, else keeps its
 * own; *result says why not. */
static cu_result update(cu_graph_exec e, cu_graph g, cu_enum *result)
{
    NEED_CONTEXT();
    *result = UPDATE_SUCCESS;
    struct ops fresh = {0};
    pthread_mutex_lock(&mock.lock);
    struct CUgraphExec_st *x = exec_live_locked(e);
    const struct CUgraph_st *y = graph_live_locked(g);
    cu_result r = !x || !y ? CU_ERR_INVALID_VALUE : CU_OK;
    if (!r && (*result = update_fits(&x->ops, &y->ops)) != UPDATE_SUCCESS)
        r = CU_ERR_GRAPH_EXEC_UPDATE_FAILURE;
    if (!r && !(r = ops_copy(&fresh, &y->ops))) {
        ops_free(&x->ops);
        x->ops = fresh;
    }
    pthread_mutex_unlock(&mock.lock);
    return r;
}

cu_result cuGraphExecUpdate_v2(cu_graph_exec e, cu_graph g, cu_graph_update_info *info)
{
    ENTER("cuGraphExecUpdate_v2");
    if (!info)
        return CU_ERR_INVALID_VALUE;
    memset(info, 0, sizeof *info);
    return update(e, g, &info->result);
}

cu_result cuGraphExecUpdate(cu_graph_exec e, cu_graph g, cu_graph_node *error_node, cu_enum *result)
{
    ENTER("cuGraphExecUpdate");
    if (!error_node || !result)
        return CU_ERR_INVALID_VALUE;
    *error_node = NULL;
    return update(e, g, result);
}

cu_result cuGraphExecDestroy(cu_graph_exec e)
{
    ENTER("cuGraphExecDestroy");
    NEED_INIT();
    struct CUgraphExec_st *found = NULL;
    pthread_mutex_lock(&mock.lock);
    MOCK_LIST_UNLINK_IF(struct CUgraphExec_st, execs, x, !found && x == e, found = x);
    pthread_mutex_unlock(&mock.lock);
    if (!found)
        return CU_ERR_INVALID_VALUE;
    ops_free(&found->ops);
    free(found);
    return CU_OK;
}

cu_result cuGraphDestroy(cu_graph g)
{
    ENTER("cuGraphDestroy");
    NEED_INIT();
    struct CUgraph_st *found = NULL;
    pthread_mutex_lock(&mock.lock);
    MOCK_LIST_UNLINK_IF(struct CUgraph_st, graphs, x, !found && x == g, found = x);
    pthread_mutex_unlock(&mock.lock);
    if (!found)
        return CU_ERR_INVALID_VALUE;
    ops_free(&found->ops);
    free(found);
    return CU_OK;
}

/* Graphs and instances that exist now. */
int mock_graphs_alive(void)
{
    int n = 0;
    pthread_mutex_lock(&mock.lock);
    for (const struct CUgraph_st *g = graphs; g; g = g->next)
        n++;
    for (const struct CUgraphExec_st *e = execs; e; e = e->next)
        n++;
    pthread_mutex_unlock(&mock.lock);
    return n;
}
