/*
 * mempool.c - stream-ordered allocation (cuMemAllocAsync, cuMemFreeAsync)
 * from each device's default memory pool, and that pool's attributes:
 * its release threshold, what it holds and what is allocated from it.
 */
#include "config.h"

#include "hints.h"
#include "api/api.h"

/* A driver or device without pools answers CUDA_ERROR_NOT_SUPPORTED; say
 * what to use instead. */
static int pool_failed(cu_result r, const char *cufn, const char *api)
{
    if (r == CU_ERR_NOT_SUPPORTED)
        return cudyn__fail(CUDYN_ERROR_NOT_SUPPORTED, CUDYN_ORIGIN_DRIVER, (int)r, "CUDA_ERROR_NOT_SUPPORTED", cufn,
                           HINT_MEMORY_POOLS, "%s: %s returned CUDA_ERROR_NOT_SUPPORTED (801)", api, cufn);
    return cudyn__fail_driver(r, cufn, api);
}

CUDYN_API int cudyn_mem_alloc_async(cudyn_devptr *out, size_t bytes, cudyn_stream stream)
{
    static const char api[] = "cudyn_mem_alloc_async";
    int st = cudyn__alloc_prologue(api, out, bytes);
    if (st != CUDYN_OK)
        return st;
    cu_deviceptr p = 0;
    cu_result r;
    CUDYN_DRIVER_CALL(r, cudyn__drv.cuMemAllocAsync(&p, bytes, CU_STREAM(stream)), api);
    if (r != CU_OK)
        return cudyn__alloc_failed(pool_failed(r, "cuMemAllocAsync", api), bytes);
    *out = p;
    return CUDYN_OK;
}

CUDYN_API int cudyn_mem_free_async(cudyn_devptr ptr, cudyn_stream stream)
{
    static const char api[] = "cudyn_mem_free_async";
    if (ptr == 0)
        return CUDYN_OK;
    int st = cudyn__need_context(api);
    if (st != CUDYN_OK)
        return st;
    cudyn__ipc_forget(ptr); /* cuMemAlloc memory may be freed this way too */
    cu_result r;
    CUDYN_DRIVER_CALL(r, cudyn__drv.cuMemFreeAsync(ptr, CU_STREAM(stream)), api);
    return r == CU_OK ? CUDYN_OK : pool_failed(r, "cuMemFreeAsync", api);
}

/* The default pool of device `ordinal`. */
static int default_pool(const char *api, int ordinal, cu_mem_pool *pool)
{
    cu_device dev;
    int st = cudyn__get_device(api, ordinal, &dev);
    if (st != CUDYN_OK)
        return st;
    cu_result r = cudyn__drv.cuDeviceGetDefaultMemPool(pool, dev);
    return r == CU_OK ? CUDYN_OK : pool_failed(r, "cuDeviceGetDefaultMemPool", api);
}

CUDYN_API int cudyn_mem_pool_attribute(int ordinal, int attr, uint64_t *value)
{
    static const char api[] = "cudyn_mem_pool_attribute";
    if (!value)
        return cudyn__fail_arg(api, "value", "must not be NULL");
    *value = 0;
    if (attr < CUDYN_POOL_RELEASE_THRESHOLD || attr > CUDYN_POOL_USED_HIGH)
        return cudyn__fail_arg(api, "attr", "must be a CUDYN_POOL_* value");
    cu_mem_pool pool;
    int st = default_pool(api, ordinal, &pool);
    if (st != CUDYN_OK)
        return st;
    cu_uint64 v = 0; /* every byte-count attribute is a cuuint64_t */
    CUDYN_TRY_DRIVER(cudyn__drv.cuMemPoolGetAttribute(pool, (cu_enum)attr, &v), "cuMemPoolGetAttribute", api);
    *value = v;
    return CUDYN_OK;
}

CUDYN_API int cudyn_mem_pool_set_release_threshold(int ordinal, uint64_t bytes)
{
    static const char api[] = "cudyn_mem_pool_set_release_threshold";
    cu_mem_pool pool;
    int st = default_pool(api, ordinal, &pool);
    if (st != CUDYN_OK)
        return st;
    cu_uint64 v = bytes;
    CUDYN_TRY_DRIVER(cudyn__drv.cuMemPoolSetAttribute(pool, CU_MEMPOOL_RELEASE_THRESHOLD, &v),
                     "cuMemPoolSetAttribute", api);
    return CUDYN_OK;
}

CUDYN_API int cudyn_mem_pool_trim(int ordinal, size_t keep_bytes)
{
    static const char api[] = "cudyn_mem_pool_trim";
    cu_mem_pool pool;
    int st = default_pool(api, ordinal, &pool);
    if (st != CUDYN_OK)
        return st;
    CUDYN_TRY_DRIVER(cudyn__drv.cuMemPoolTrimTo(pool, keep_bytes), "cuMemPoolTrimTo", api);
    return CUDYN_OK;
}
