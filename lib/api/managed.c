/*
 * managed.c - managed (unified) memory: allocation, prefetch and advice
 * through adapters over the two ABI variants of cuMemPrefetchAsync and
 * cuMemAdvise (v2, CUDA 12.2+, takes a CUmemLocation by value; v1 a
 * device, with CU_DEVICE_CPU for the host); and pointer queries.
 */
#include "config.h"

#include <string.h>

#include "hints.h"
#include "api/api.h"

CUDYN_API int cudyn_mem_alloc_managed(cudyn_devptr *out, size_t bytes, unsigned int flags)
{
    static const char api[] = "cudyn_mem_alloc_managed";
    int st = cudyn__alloc_prologue(api, out, bytes);
    if (st != CUDYN_OK)
        return st;
    if (flags != CUDYN_MEM_ATTACH_GLOBAL && flags != CUDYN_MEM_ATTACH_HOST)
        return cudyn__fail_arg(api, "flags", "must be CUDYN_MEM_ATTACH_GLOBAL or CUDYN_MEM_ATTACH_HOST");
    cu_deviceptr p = 0;
    cu_result r;
    CUDYN_DRIVER_CALL(r, cudyn__drv.cuMemAllocManaged(&p, bytes, flags), api);
    if (r == CU_ERR_NOT_SUPPORTED)
        return cudyn__fail(CUDYN_ERROR_NOT_SUPPORTED, CUDYN_ORIGIN_DRIVER, (int)r, "CUDA_ERROR_NOT_SUPPORTED",
                           "cuMemAllocManaged", HINT_MANAGED, "%s: cuMemAllocManaged returned "
                           "CUDA_ERROR_NOT_SUPPORTED (801)", api);
    if (r != CU_OK)
        return cudyn__alloc_failed(cudyn__fail_driver(r, "cuMemAllocManaged", api), bytes);
    *out = p;
    return CUDYN_OK;
}

/* A location as both ABI variants take it: the host, or a device. */
struct location {
    cu_mem_location v2;
    cu_device v1;
};

static int resolve_location(const char *api, int location, struct location *out)
{
    if (location == CUDYN_HOST) {
        out->v2 = (cu_mem_location){CU_MEMLOC_HOST, 0};
        out->v1 = CU_DEVICE_HOST;
        return CUDYN_OK;
    }
    if (location < 0)
        return cudyn__fail_arg(api, "location", "must be a device ordinal or CUDYN_HOST");
    cu_device dev;
    int st = cudyn__get_device(api, location, &dev);
    if (st != CUDYN_OK)
        return st;
    out->v2 = (cu_mem_location){CU_MEMLOC_DEVICE, dev};
    out->v1 = dev;
    return CUDYN_OK;
}

/* The checks prefetch and advice share. */
static int range_prologue(const char *api, cudyn_devptr ptr, size_t bytes, int location, struct location *where)
{
    if (!ptr)
        return cudyn__fail_arg(api, "ptr", "must not be 0");
    if (bytes == 0)
        return cudyn__fail_arg(api, "bytes", "must be greater than 0");
    int st = cudyn__need_context(api);
    if (st == CUDYN_OK)
        st = resolve_location(api, location, where);
    return st;
}

CUDYN_API int cudyn_mem_prefetch(cudyn_devptr ptr, size_t bytes, int location, cudyn_stream stream)
{
    static const char api[] = "cudyn_mem_prefetch";
    struct location where;
    int st = range_prologue(api, ptr, bytes, location, &where);
    if (st != CUDYN_OK)
        return st;
    cu_result r;
    if (DRIVER_HAS(cuMemPrefetchAsync_v2))
        CUDYN_DRIVER_CALL(r, cudyn__drv.cuMemPrefetchAsync_v2(ptr, bytes, where.v2, 0, CU_STREAM(stream)), api);
    else
        CUDYN_DRIVER_CALL(r, cudyn__drv.cuMemPrefetchAsync(ptr, bytes, where.v1, CU_STREAM(stream)), api);
    if (r != CU_OK)
        return cudyn__fail_driver(r, "cuMemPrefetchAsync", api);
    return CUDYN_OK;
}

CUDYN_API int cudyn_mem_advise(cudyn_devptr ptr, size_t bytes, int advice, int location)
{
    static const char api[] = "cudyn_mem_advise";
    if (advice < CUDYN_ADVISE_SET_READ_MOSTLY || advice > CUDYN_ADVISE_UNSET_ACCESSED_BY)
        return cudyn__fail_arg(api, "advice", "must be a CUDYN_ADVISE_* value");
    struct location where;
    int st = range_prologue(api, ptr, bytes, location, &where);
    if (st != CUDYN_OK)
        return st;
    cu_result r;
    if (DRIVER_HAS(cuMemAdvise_v2))
        CUDYN_DRIVER_CALL(r, cudyn__drv.cuMemAdvise_v2(ptr, bytes, (cu_enum)advice, where.v2), api);
    else
        CUDYN_DRIVER_CALL(r, cudyn__drv.cuMemAdvise(ptr, bytes, (cu_enum)advice, where.v1), api);
    if (r != CU_OK)
        return cudyn__fail_driver(r, "cuMemAdvise", api);
    return CUDYN_OK;
}

/* CU_MEMORYTYPE_* and IS_MANAGED as the runtime's cudaMemoryType: the
 * driver reports managed memory as host or device, wherever it is. */
static int pointer_kind(unsigned int memory_type, unsigned int managed)
{
    if (managed)
        return CUDYN_POINTER_MANAGED;
    if (memory_type == CU_MEMTYPE_HOST)
        return CUDYN_POINTER_HOST;
    if (memory_type == CU_MEMTYPE_DEVICE)
        return CUDYN_POINTER_DEVICE;
    return CUDYN_POINTER_UNREGISTERED;
}

CUDYN_API int cudyn_pointer_info(cudyn_devptr ptr, struct cudyn_pointer_info *out)
{
    static const char api[] = "cudyn_pointer_info";
    if (!out)
        return cudyn__fail_arg(api, "out", "must not be NULL");
    if (out->size <= sizeof out->size)
        return cudyn__fail_arg(api, "out->size", "must be set to sizeof(struct cudyn_pointer_info)");
    int st = cudyn__need_driver();
    if (st != CUDYN_OK)
        return st;
    /* one call; unlike cuPointerGetAttribute it answers for memory CUDA
     * does not know (zeros) instead of failing */
    unsigned int memory_type = 0, managed = 0; /* zeroed: a driver may write only a bool's byte */
    int device = -1;
    cu_deviceptr start = 0;
    size_t bytes = 0;
    cu_enum attrs[] = {CU_POINTER_ATTR_MEMORY_TYPE, CU_POINTER_ATTR_IS_MANAGED, CU_POINTER_ATTR_DEVICE_ORDINAL,
                       CU_POINTER_ATTR_RANGE_START_ADDR, CU_POINTER_ATTR_RANGE_SIZE};
    void *data[] = {&memory_type, &managed, &device, &start, &bytes};
    CUDYN_TRY_DRIVER(cudyn__drv.cuPointerGetAttributes(5, attrs, data, ptr), "cuPointerGetAttributes", api);
    int kind = pointer_kind(memory_type, managed);
    bool known = kind != CUDYN_POINTER_UNREGISTERED;
    struct cudyn_pointer_info full = {sizeof full, kind, known ? device : -1, known ? start : 0, known ? bytes : 0};
    size_t n = out->size < sizeof full ? out->size : sizeof full;
    memcpy(out, &full, n); /* an older, smaller struct gets what fits */
    out->size = n;
    return CUDYN_OK;
}
