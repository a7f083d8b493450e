/*
 * memory.c - device and pinned host memory, copies and memset.
 */
#include "config.h"

#include "api/api.h"

int cudyn__alloc_prologue(const char *api, cudyn_devptr *out, size_t bytes)
{
    if (!out)
        return cudyn__fail_arg(api, "out", "must not be NULL");
    *out = 0;
    if (bytes == 0)
        return cudyn__fail_arg(api, "bytes", "must be greater than 0");
    return cudyn__need_context(api);
}

int cudyn__alloc_failed(int status, size_t bytes)
{
    cudyn__error_append(" (asked for %zu bytes)", bytes);
    return status;
}

CUDYN_API int cudyn_mem_alloc(cudyn_devptr *out, size_t bytes)
{
    static const char api[] = "cudyn_mem_alloc";
    int st = cudyn__alloc_prologue(api, out, bytes);
    if (st != CUDYN_OK)
        return st;
    cu_deviceptr p = 0;
    cu_result r;
    CUDYN_DRIVER_CALL(r, cudyn__drv.cuMemAlloc_v2(&p, bytes), api);
    if (r != CU_OK)
        return cudyn__alloc_failed(cudyn__fail_driver(r, "cuMemAlloc", api), bytes);
    *out = p;
    return CUDYN_OK;
}

CUDYN_API int cudyn_mem_free(cudyn_devptr ptr)
{
    static const char api[] = "cudyn_mem_free";
    if (ptr == 0)
        return CUDYN_OK;
    int st = cudyn__need_context(api);
    if (st != CUDYN_OK)
        return st;
    cudyn__ipc_forget(ptr); /* before the free: after it, another thread may get the address and export it */
    CUDYN_TRY_DRIVER(cudyn__drv.cuMemFree_v2(ptr), "cuMemFree", api);
    return CUDYN_OK;
}

CUDYN_API int cudyn_host_alloc(void **out, size_t bytes)
{
    static const char api[] = "cudyn_host_alloc";
    if (!out)
        return cudyn__fail_arg(api, "out", "must not be NULL");
    *out = NULL;
    if (bytes == 0)
        return cudyn__fail_arg(api, "bytes", "must be greater than 0");
    int st = cudyn__need_context(api);
    if (st != CUDYN_OK)
        return st;
    /* Portable: usable from every context, as callers expect of host memory. */
    CUDYN_TRY_DRIVER(cudyn__drv.cuMemHostAlloc(out, bytes, CU_HOSTALLOC_PORTABLE), "cuMemHostAlloc", api);
    return CUDYN_OK;
}

CUDYN_API int cudyn_host_free(void *ptr)
{
    static const char api[] = "cudyn_host_free";
    if (!ptr)
        return CUDYN_OK;
    int st = cudyn__need_context(api);
    if (st != CUDYN_OK)
        return st;
    CUDYN_TRY_DRIVER(cudyn__drv.cuMemFreeHost(ptr), "cuMemFreeHost", api);
    return CUDYN_OK;
}

CUDYN_API int cudyn_mem_info(size_t *free_bytes, size_t *total_bytes)
{
    static const char api[] = "cudyn_mem_info";
    if (!free_bytes)
        return cudyn__fail_arg(api, "free_bytes", "must not be NULL");
    if (!total_bytes)
        return cudyn__fail_arg(api, "total_bytes", "must not be NULL");
    *free_bytes = *total_bytes = 0;
    int st = cudyn__need_context(api);
    if (st != CUDYN_OK)
        return st;
    CUDYN_TRY_DRIVER(cudyn__drv.cuMemGetInfo_v2(free_bytes, total_bytes), "cuMemGetInfo", api);
    return CUDYN_OK;
}

/* Shared checks of the copy functions: pointers given unless size is 0. */
static int copy_prologue(const char *api, bool dst_ok, bool src_ok, size_t bytes)
{
    if (bytes == 0)
        return -1; /* nothing to do */
    if (!dst_ok)
        return cudyn__fail_arg(api, "dst", "must not be NULL or 0");
    if (!src_ok)
        return cudyn__fail_arg(api, "src", "must not be NULL or 0");
    return cudyn__need_context(api);
}

#define COPY_PROLOGUE(api, dst_ok, src_ok, bytes)               \
    do {                                                        \
        int pro_ = copy_prologue((api), (dst_ok), (src_ok), (bytes)); \
        if (pro_ < 0)                                           \
            return CUDYN_OK;                                    \
        if (pro_ != CUDYN_OK)                                   \
            return pro_;                                        \
    } while (0)

CUDYN_API int cudyn_memcpy_htod(cudyn_devptr dst, const void *src, size_t bytes)
{
    static const char api[] = "cudyn_memcpy_htod";
    COPY_PROLOGUE(api, dst != 0, src != NULL, bytes);
    CUDYN_TRY_DRIVER(cudyn__drv.cuMemcpyHtoD_v2(dst, src, bytes), "cuMemcpyHtoD", api);
    return CUDYN_OK;
}

CUDYN_API int cudyn_memcpy_dtoh(void *dst, cudyn_devptr src, size_t bytes)
{
    static const char api[] = "cudyn_memcpy_dtoh";
    COPY_PROLOGUE(api, dst != NULL, src != 0, bytes);
    CUDYN_TRY_DRIVER(cudyn__drv.cuMemcpyDtoH_v2(dst, src, bytes), "cuMemcpyDtoH", api);
    return CUDYN_OK;
}

CUDYN_API int cudyn_memcpy_dtod(cudyn_devptr dst, cudyn_devptr src, size_t bytes)
{
    static const char api[] = "cudyn_memcpy_dtod";
    COPY_PROLOGUE(api, dst != 0, src != 0, bytes);
    CUDYN_TRY_DRIVER(cudyn__drv.cuMemcpyDtoD_v2(dst, src, bytes), "cuMemcpyDtoD", api);
    return CUDYN_OK;
}

CUDYN_API int cudyn_memcpy_htod_async(cudyn_devptr dst, const void *src, size_t bytes, cudyn_stream stream)
{
    static const char api[] = "cudyn_memcpy_htod_async";
    COPY_PROLOGUE(api, dst != 0, src != NULL, bytes);
    CUDYN_TRY_DRIVER(cudyn__drv.cuMemcpyHtoDAsync_v2(dst, src, bytes, CU_STREAM(stream)), "cuMemcpyHtoDAsync", api);
    return CUDYN_OK;
}

CUDYN_API int cudyn_memcpy_dtoh_async(void *dst, cudyn_devptr src, size_t bytes, cudyn_stream stream)
{
    static const char api[] = "cudyn_memcpy_dtoh_async";
    COPY_PROLOGUE(api, dst != NULL, src != 0, bytes);
    CUDYN_TRY_DRIVER(cudyn__drv.cuMemcpyDtoHAsync_v2(dst, src, bytes, CU_STREAM(stream)), "cuMemcpyDtoHAsync", api);
    return CUDYN_OK;
}

CUDYN_API int cudyn_memcpy_dtod_async(cudyn_devptr dst, cudyn_devptr src, size_t bytes, cudyn_stream stream)
{
    static const char api[] = "cudyn_memcpy_dtod_async";
    COPY_PROLOGUE(api, dst != 0, src != 0, bytes);
    CUDYN_TRY_DRIVER(cudyn__drv.cuMemcpyDtoDAsync_v2(dst, src, bytes, CU_STREAM(stream)), "cuMemcpyDtoDAsync", api);
    return CUDYN_OK;
}

/* A memset's checks: that dst is aligned to the element, then a copy's
 * (which loads the driver: every argument is checked before it). */
#define MEMSET_PROLOGUE(api, dst, count, element_bytes)                                      \
    do {                                                                                     \
        if ((dst) % (element_bytes))                                                         \
            return cudyn__fail_arg((api), "dst", "must be " #element_bytes "-byte aligned"); \
        COPY_PROLOGUE((api), (dst) != 0, true, (count));                                     \
    } while (0)

CUDYN_API int cudyn_memset_d8(cudyn_devptr dst, uint8_t value, size_t count)
{
    static const char api[] = "cudyn_memset_d8";
    COPY_PROLOGUE(api, dst != 0, true, count);
    CUDYN_TRY_DRIVER(cudyn__drv.cuMemsetD8_v2(dst, value, count), "cuMemsetD8", api);
    return CUDYN_OK;
}

CUDYN_API int cudyn_memset_d16(cudyn_devptr dst, uint16_t value, size_t count)
{
    static const char api[] = "cudyn_memset_d16";
    MEMSET_PROLOGUE(api, dst, count, 2);
    CUDYN_TRY_DRIVER(cudyn__drv.cuMemsetD16_v2(dst, value, count), "cuMemsetD16", api);
    return CUDYN_OK;
}

CUDYN_API int cudyn_memset_d32(cudyn_devptr dst, uint32_t value, size_t count)
{
    static const char api[] = "cudyn_memset_d32";
    MEMSET_PROLOGUE(api, dst, count, 4);
    CUDYN_TRY_DRIVER(cudyn__drv.cuMemsetD32_v2(dst, value, count), "cuMemsetD32", api);
    return CUDYN_OK;
}

CUDYN_API int cudyn_memset_d32_async(cudyn_devptr dst, uint32_t value, size_t count, cudyn_stream stream)
{
    static const char api[] = "cudyn_memset_d32_async";
    MEMSET_PROLOGUE(api, dst, count, 4);
    CUDYN_TRY_DRIVER(cudyn__drv.cuMemsetD32Async(dst, value, count, CU_STREAM(stream)), "cuMemsetD32Async", api);
    return CUDYN_OK;
}
