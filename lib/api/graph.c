/*
 * graph.c - CUDA graphs from stream capture: begin and end a capture, ask
 * whether a stream is capturing, instantiate, launch, update, destroy.
 *
 * Updating an instance takes a whole graph of the same shape
 * (cuGraphExecUpdate), not a kernel node and its new parameters
 * (cuGraphExecKernelNodeSetParams).  A re-capture of the same code is how
 * callers already describe the work, so updating needs no node handles in
 * the public ABI, covers every node kind (kernels, copies, memsets) and not
 * only kernels, and lets the driver check the shape and say which rule a
 * change broke, leaving the instance untouched; the node route would need
 * the nodes' order from cuGraphGetNodes, which the driver does not promise,
 * and a CUDA_KERNEL_NODE_PARAMS whose layout changed in 12.0.
 */
#include "config.h"

#include "hints.h"
#include "api/api.h"

#define CU_GRAPH(g) ((cu_graph)(void *)(g))
#define CU_GRAPH_EXEC(e) ((cu_graph_exec)(void *)(e))

CUDYN_API int cudyn_stream_begin_capture(cudyn_stream stream, int mode)
{
    static const char api[] = "cudyn_stream_begin_capture";
    if (mode != CUDYN_CAPTURE_GLOBAL && mode != CUDYN_CAPTURE_THREAD_LOCAL && mode != CUDYN_CAPTURE_RELAXED)
        return cudyn__fail_arg(api, "mode", "must be CUDYN_CAPTURE_GLOBAL, _THREAD_LOCAL or _RELAXED");
    int st = cudyn__need_context(api);
    if (st != CUDYN_OK)
        return st;
    CUDYN_TRY_DRIVER(cudyn__drv.cuStreamBeginCapture_v2(CU_STREAM(stream), (cu_enum)mode), "cuStreamBeginCapture",
                     api);
    return CUDYN_OK;
}

CUDYN_API int cudyn_stream_end_capture(cudyn_stream stream, cudyn_graph *out)
{
    static const char api[] = "cudyn_stream_end_capture";
    if (!out)
        return cudyn__fail_arg(api, "out", "must not be NULL");
    *out = NULL;
    int st = cudyn__need_context(api);
    if (st != CUDYN_OK)
        return st;
    cu_graph g = NULL;
    CUDYN_TRY_DRIVER(cudyn__drv.cuStreamEndCapture(CU_STREAM(stream), &g), "cuStreamEndCapture", api);
    *out = (cudyn_graph)(void *)g;
    return CUDYN_OK;
}

/* cuStreamGetCaptureInfo: the newest variant the driver has (v3, 12.3+;
 * v2, 11.3+).  Only the status is asked for. */
CUDYN_API int cudyn_stream_capture_status(cudyn_stream stream, int *status)
{
    static const char api[] = "cudyn_stream_capture_status";
    if (!status)
        return cudyn__fail_arg(api, "status", "must not be NULL");
    *status = CUDYN_CAPTURE_NONE;
    int st = cudyn__need_context(api);
    if (st != CUDYN_OK)
        return st;
    cu_enum s = CU_CAPTURE_STATUS_NONE;
    cu_result r;
    if (DRIVER_HAS(cuStreamGetCaptureInfo_v3))
        CUDYN_DRIVER_CALL(r, cudyn__drv.cuStreamGetCaptureInfo_v3(CU_STREAM(stream), &s, NULL, NULL, NULL, NULL, NULL),
                          api);
    else
        CUDYN_DRIVER_CALL(r, cudyn__drv.cuStreamGetCaptureInfo_v2(CU_STREAM(stream), &s, NULL, NULL, NULL, NULL), api);
    if (r != CU_OK)
        return cudyn__fail_driver(r, "cuStreamGetCaptureInfo", api);
    *status = (int)s;
    return CUDYN_OK;
}

CUDYN_API int cudyn_graph_instantiate(cudyn_graph_exec *out, cudyn_graph graph, unsigned int flags)
{
    static const char api[] = "cudyn_graph_instantiate";
    if (!out)
        return cudyn__fail_arg(api, "out", "must not be NULL");
    *out = NULL;
    if (!graph)
        return cudyn__fail_arg(api, "graph", "must not be NULL");
    if (flags & ~CUDYN_GRAPH_AUTO_FREE_ON_LAUNCH)
        return cudyn__fail_arg(api, "flags", "has unknown bits (use 0 or CUDYN_GRAPH_AUTO_FREE_ON_LAUNCH)");
    int st = cudyn__need_context(api);
    if (st != CUDYN_OK)
        return st;
    cu_graph_exec e = NULL;
    CUDYN_TRY_DRIVER(cudyn__drv.cuGraphInstantiateWithFlags(&e, CU_GRAPH(graph), flags),
                     "cuGraphInstantiateWithFlags", api);
    *out = (cudyn_graph_exec)(void *)e;
    return CUDYN_OK;
}

CUDYN_API int cudyn_graph_launch(cudyn_graph_exec exec, cudyn_stream stream)
{
    static const char api[] = "cudyn_graph_launch";
    if (CUDYN_UNLIKELY(!exec))
        return cudyn__fail_arg(api, "exec", "must not be NULL");
    int st = cudyn__need_context(api);
    if (CUDYN_UNLIKELY(st != CUDYN_OK))
        return st;
    CUDYN_TRY_DRIVER(cudyn__drv.cuGraphLaunch(CU_GRAPH_EXEC(exec), CU_STREAM(stream)), "cuGraphLaunch", api);
    return CUDYN_OK;
}

/* CUgraphExecUpdateResult, as the driver's reasons a graph did not fit. */
static const char *const update_reasons[] = {
    [0] = "it succeeded",
    [1] = "an unexpected error",
    [2] = "the topology changed (other nodes or dependencies)",
    [3] = "a node's type changed",
    [4] = "a kernel node's function changed",
    [5] = "a node's parameters changed in a way that cannot be updated",
    [6] = "a node cannot be updated",
    [7] = "a kernel node's function changed in an unsupported way",
    [8] = "a node's attributes changed in a way that cannot be updated",
};

static const char *update_reason(cu_enum result)
{
    if (result < sizeof update_reasons / sizeof update_reasons[0])
        return update_reasons[result];
    return "a reason this library does not know";
}

CUDYN_API int cudyn_graph_exec_update(cudyn_graph_exec exec, cudyn_graph graph)
{
    static const char api[] = "cudyn_graph_exec_update";
    if (!exec)
        return cudyn__fail_arg(api, "exec", "must not be NULL");
    if (!graph)
        return cudyn__fail_arg(api, "graph", "must not be NULL");
    int st = cudyn__need_context(api);
    if (st != CUDYN_OK)
        return st;
    /* v2 (12.0+) reports in a struct, v1 (10.2+) through two pointers */
    cu_enum result = CU_GRAPH_UPDATE_SUCCESS;
    cu_result r;
    if (DRIVER_HAS(cuGraphExecUpdate_v2)) {
        cu_graph_update_info info = {0};
        CUDYN_DRIVER_CALL(r, cudyn__drv.cuGraphExecUpdate_v2(CU_GRAPH_EXEC(exec), CU_GRAPH(graph), &info), api);
        result = info.result;
    } else {
        cu_graph_node node = NULL;
        CUDYN_DRIVER_CALL(r, cudyn__drv.cuGraphExecUpdate(CU_GRAPH_EXEC(exec), CU_GRAPH(graph), &node, &result), api);
    }
    if (r == CU_ERR_GRAPH_EXEC_UPDATE_FAILURE)
        return cudyn__fail(CUDYN_ERROR_NOT_SUPPORTED, CUDYN_ORIGIN_DRIVER, (int)r,
                           "CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE", "cuGraphExecUpdate", HINT_GRAPH_UPDATE,
                           "%s: the graph does not fit the instance: %s; the instance is unchanged", api,
                           update_reason(result));
    if (r != CU_OK)
        return cudyn__fail_driver(r, "cuGraphExecUpdate", api);
    return CUDYN_OK;
}

CUDYN_API int cudyn_graph_exec_destroy(cudyn_graph_exec exec)
{
    static const char api[] = "cudyn_graph_exec_destroy";
    if (!exec)
        return CUDYN_OK;
    int st = cudyn__need_context(api);
    if (st != CUDYN_OK)
        return st;
    CUDYN_TRY_DRIVER(cudyn__drv.cuGraphExecDestroy(CU_GRAPH_EXEC(exec)), "cuGraphExecDestroy", api);
    return CUDYN_OK;
}

CUDYN_API int cudyn_graph_destroy(cudyn_graph graph)
{
    static const char api[] = "cudyn_graph_destroy";
    if (!graph)
        return CUDYN_OK;
    int st = cudyn__need_context(api);
    if (st != CUDYN_OK)
        return st;
    CUDYN_TRY_DRIVER(cudyn__drv.cuGraphDestroy(CU_GRAPH(graph)), "cuGraphDestroy", api);
    return CUDYN_OK;
}
