/*
 * launch.c - kernel launches.  This is the hot path: after the first call
 * it costs one thread-local check and one indirect call into the driver.
 */
#include "config.h"

#include "internal.h"

CUDYN_API int cudyn_launch(cudyn_function f, cudyn_dim3 grid, cudyn_dim3 block, unsigned int shared_bytes,
                           cudyn_stream stream, void **args)
{
    static const char api[] = "cudyn_launch";
    if (CUDYN_UNLIKELY(!f))
        return cudyn__fail_arg(api, "f", "must not be NULL");
    if (CUDYN_UNLIKELY(!grid.x || !grid.y || !grid.z))
        return cudyn__fail_arg(api, "grid", "has a zero dimension");
    if (CUDYN_UNLIKELY(!block.x || !block.y || !block.z))
        return cudyn__fail_arg(api, "block", "has a zero dimension");
    int st = cudyn__need_context(api);
    if (CUDYN_UNLIKELY(st != CUDYN_OK))
        return st;
    cu_result r = cudyn__drv.cuLaunchKernel((cu_function)(void *)f, grid.x, grid.y, grid.z, block.x, block.y, block.z,
                                           shared_bytes, (cu_stream)(void *)stream, args, NULL);
    if (CUDYN_UNLIKELY(r != CU_OK))
        return cudyn__fail_driver(r, "cuLaunchKernel", api);
    return CUDYN_OK;
}
