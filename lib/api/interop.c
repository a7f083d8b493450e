/*
 * interop.c - native handles (cudyn.h, "Native handles"): cudyn's streams,
 * events and functions are the driver's own, so these only say so in code;
 * the context is whichever one the thread works in.
 */
#include "config.h"

#include "api/api.h"

CUDYN_API int cudyn_context_native(void **ctx)
{
    static const char api[] = "cudyn_context_native";
    if (!ctx)
        return cudyn__fail_arg(api, "ctx", "must not be NULL");
    *ctx = NULL;
    int st = cudyn__need_context(api);
    if (st != CUDYN_OK)
        return st;
    cu_context current = NULL;
    CUDYN_TRY_DRIVER(cudyn__drv.cuCtxGetCurrent(&current), "cuCtxGetCurrent", api);
    *ctx = current;
    return CUDYN_OK;
}

CUDYN_API void *cudyn_function_native(cudyn_function f)
{
    return (void *)f;
}

CUDYN_API cudyn_function cudyn_function_from_native(void *native)
{
    return (cudyn_function)native;
}

CUDYN_API void *cudyn_stream_native(cudyn_stream stream)
{
    return (void *)stream;
}

CUDYN_API cudyn_stream cudyn_stream_from_native(void *native)
{
    return (cudyn_stream)native;
}

CUDYN_API void *cudyn_event_native(cudyn_event event)
{
    return (void *)event;
}

CUDYN_API cudyn_event cudyn_event_from_native(void *native)
{
    return (cudyn_event)native;
}
