/*
 * ipc.c - sharing device memory with other processes of the node: CUDA
 * IPC memory and event handles, and pools whose memory other processes
 * import through a POSIX file descriptor.
 *
 * A process that opens its own IPC handle gets an unhelpful driver error
 * (CUDA_ERROR_INVALID_CONTEXT on current drivers); cudyn remembers the
 * handles this process made (ipc_exports.c) and says what happened before
 * asking the driver.  The driver cannot tell an exporter that exited from a handle
 * of a device this process cannot see, so a failed open names both.
 */
#include "config.h"

#include <string.h>

#include "api/api.h"

#define CU_EVENT(e) ((cu_event)(void *)(e))
#define CU_POOL(p) ((cu_mem_pool)(void *)(p))

_Static_assert(sizeof(cudyn_ipc_mem_handle) == sizeof(cu_ipc_mem_handle), "IPC memory handle size");
_Static_assert(sizeof(cudyn_ipc_event_handle) == sizeof(cu_ipc_event_handle), "IPC event handle size");
_Static_assert(sizeof(cudyn_pool_ptr_export) == sizeof(cu_mem_pool_ptr_export), "pool export data size");

CUDYN_API int cudyn_ipc_mem_get_handle(cudyn_ipc_mem_handle *out, cudyn_devptr ptr)
{
    static const char api[] = "cudyn_ipc_mem_get_handle";
    if (!out)
        return cudyn__fail_arg(api, "out", "must not be NULL");
    memset(out, 0, sizeof *out);
    if (ptr == 0)
        return cudyn__fail_arg(api, "ptr", "must be device memory from cudyn_mem_alloc, not 0");
    int st = cudyn__need_context(api);
    if (st != CUDYN_OK)
        return st;
    cu_ipc_mem_handle h;
    CUDYN_TRY_DRIVER(cudyn__drv.cuIpcGetMemHandle(&h, ptr), "cuIpcGetMemHandle", api);
    memcpy(out, &h, sizeof *out);
    cudyn__ipc_remember(out, ptr);
    return CUDYN_OK;
}

CUDYN_API int cudyn_ipc_mem_open(cudyn_devptr *out, const cudyn_ipc_mem_handle *handle, unsigned int flags)
{
    static const char api[] = "cudyn_ipc_mem_open";
    if (!out)
        return cudyn__fail_arg(api, "out", "must not be NULL");
    *out = 0;
    if (!handle)
        return cudyn__fail_arg(api, "handle", "must not be NULL");
    if (flags & ~CUDYN_IPC_LAZY_PEER_ACCESS)
        return cudyn__fail_arg(api, "flags", "has unknown bits (use 0 or CUDYN_IPC_LAZY_PEER_ACCESS)");
    cudyn_devptr own = cudyn__ipc_exported_by_us(handle);
    if (own)
        return cudyn__fail(CUDYN_ERROR_INVALID_ARGUMENT, CUDYN_ORIGIN_LIBRARY, 0, NULL, api,
                           "use the pointer itself in the exporting process; open a handle only in another process",
                           "%s: the handle was exported by this process (pointer 0x%llx); CUDA opens IPC handles "
                           "only in other processes",
                           api, (unsigned long long)own);
    int st = cudyn__need_context(api);
    if (st != CUDYN_OK)
        return st;
    cu_ipc_mem_handle h;
    memcpy(&h, handle, sizeof h);
    cu_deviceptr p = 0;
    cu_result r;
    CUDYN_DRIVER_CALL(r, cudyn__drv.cuIpcOpenMemHandle_v2(&p, h, flags ? CU_IPC_LAZY_PEER_ACCESS : 0), api);
    if (r != CU_OK) {
        st = cudyn__fail_driver(r, "cuIpcOpenMemHandle", api);
        if (!cudyn__driver_stub_answered(r))
            cudyn__error_append(" (the exporting process may have exited or freed the memory, the memory may be "
                                "on a device this process cannot see (CUDA_VISIBLE_DEVICES), or, without "
                                "CUDYN_IPC_LAZY_PEER_ACCESS, on a device other than this thread's)");
        return st;
    }
    *out = p;
    return CUDYN_OK;
}

CUDYN_API int cudyn_ipc_mem_close(cudyn_devptr ptr)
{
    static const char api[] = "cudyn_ipc_mem_close";
    if (ptr == 0)
        return cudyn__fail_arg(api, "ptr", "must be a pointer from cudyn_ipc_mem_open, not 0");
    int st = cudyn__need_context(api);
    if (st != CUDYN_OK)
        return st;
    CUDYN_TRY_DRIVER(cudyn__drv.cuIpcCloseMemHandle(ptr), "cuIpcCloseMemHandle", api);
    return CUDYN_OK;
}

/* ---- event handles ---- */

CUDYN_API int cudyn_ipc_event_get_handle(cudyn_ipc_event_handle *out, cudyn_event event)
{
    static const char api[] = "cudyn_ipc_event_get_handle";
    if (!out)
        return cudyn__fail_arg(api, "out", "must not be NULL");
    memset(out, 0, sizeof *out);
    if (!event)
        return cudyn__fail_arg(api, "event", "must not be NULL");
    int st = cudyn__need_context(api);
    if (st != CUDYN_OK)
        return st;
    cu_ipc_event_handle h;
    cu_result r;
    CUDYN_DRIVER_CALL(r, cudyn__drv.cuIpcGetEventHandle(&h, CU_EVENT(event)), api);
    /* drivers answer either for an event made without the flag */
    if (r == CU_ERR_INVALID_VALUE || r == CU_ERR_INVALID_HANDLE)
        return cudyn__fail(CUDYN_ERROR_INVALID_ARGUMENT, CUDYN_ORIGIN_DRIVER, (int)r,
                           r == CU_ERR_INVALID_VALUE ? "CUDA_ERROR_INVALID_VALUE" : "CUDA_ERROR_INVALID_HANDLE",
                           "cuIpcGetEventHandle", "create the event with CUDYN_EVENT_INTERPROCESS",
                           "%s: the event was not created for interprocess use (or is no longer a live event)", api);
    if (r != CU_OK)
        return cudyn__fail_driver(r, "cuIpcGetEventHandle", api);
    memcpy(out, &h, sizeof *out);
    return CUDYN_OK;
}

CUDYN_API int cudyn_ipc_event_open(cudyn_event *out, const cudyn_ipc_event_handle *handle)
{
    static const char api[] = "cudyn_ipc_event_open";
    if (!out)
        return cudyn__fail_arg(api, "out", "must not be NULL");
    *out = NULL;
    if (!handle)
        return cudyn__fail_arg(api, "handle", "must not be NULL");
    int st = cudyn__need_context(api);
    if (st != CUDYN_OK)
        return st;
    cu_ipc_event_handle h;
    memcpy(&h, handle, sizeof h);
    cu_event e = NULL;
    cu_result r;
    CUDYN_DRIVER_CALL(r, cudyn__drv.cuIpcOpenEventHandle(&e, h), api);
    if (r != CU_OK) {
        st = cudyn__fail_driver(r, "cuIpcOpenEventHandle", api);
        if (!cudyn__driver_stub_answered(r))
            cudyn__error_append(" (the exporting process may have exited or destroyed the event, or opened it "
                                "in this same process)");
        return st;
    }
    cudyn__event_adopt(e);
    *out = (cudyn_event)(void *)e;
    return CUDYN_OK;
}

/* ---- exportable pools ---- */

CUDYN_API int cudyn_mem_pool_create_exportable(cudyn_mem_pool *out, int ordinal, size_t max_bytes)
{
    static const char api[] = "cudyn_mem_pool_create_exportable";
    if (!out)
        return cudyn__fail_arg(api, "out", "must not be NULL");
    *out = NULL;
    cu_device dev;
    int st = cudyn__get_device(api, ordinal, &dev);
    if (st != CUDYN_OK)
        return st;
    cu_mem_pool_props props;
    memset(&props, 0, sizeof props);
    props.allocType = CU_MEM_ALLOCATION_PINNED;
    props.handleTypes = CU_MEM_HANDLE_POSIX_FD;
    props.location.type = CU_MEMLOC_DEVICE;
    props.location.id = dev;
    props.maxSize = max_bytes;
    cu_mem_pool pool = NULL;
    CUDYN_TRY_DRIVER(cudyn__drv.cuMemPoolCreate(&pool, &props), "cuMemPoolCreate", api);
    *out = (cudyn_mem_pool)(void *)pool;
    return CUDYN_OK;
}

CUDYN_API int cudyn_mem_pool_destroy(cudyn_mem_pool pool)
{
    static const char api[] = "cudyn_mem_pool_destroy";
    if (!pool)
        return cudyn__fail_arg(api, "pool", "must not be NULL");
    int st = cudyn__need_driver();
    if (st != CUDYN_OK)
        return st;
    CUDYN_TRY_DRIVER(cudyn__drv.cuMemPoolDestroy(CU_POOL(pool)), "cuMemPoolDestroy", api);
    return CUDYN_OK;
}

CUDYN_API int cudyn_mem_alloc_from_pool_async(cudyn_devptr *out, size_t bytes, cudyn_mem_pool pool,
                                              cudyn_stream stream)
{
    static const char api[] = "cudyn_mem_alloc_from_pool_async";
    int st = cudyn__alloc_prologue(api, out, bytes);
    if (st != CUDYN_OK)
        return st;
    if (!pool)
        return cudyn__fail_arg(api, "pool", "must not be NULL");
    cu_deviceptr p = 0;
    cu_result r;
    CUDYN_DRIVER_CALL(r, cudyn__drv.cuMemAllocFromPoolAsync(&p, bytes, CU_POOL(pool), CU_STREAM(stream)), api);
    if (r != CU_OK)
        return cudyn__alloc_failed(cudyn__fail_driver(r, "cuMemAllocFromPoolAsync", api), bytes);
    *out = p;
    return CUDYN_OK;
}

CUDYN_API int cudyn_mem_pool_export_fd(int *fd_out, cudyn_mem_pool pool)
{
    static const char api[] = "cudyn_mem_pool_export_fd";
    if (!fd_out)
        return cudyn__fail_arg(api, "fd_out", "must not be NULL");
    *fd_out = -1;
    if (!pool)
        return cudyn__fail_arg(api, "pool", "must not be NULL");
    int st = cudyn__need_driver();
    if (st != CUDYN_OK)
        return st;
    int fd = -1;
    cu_result r = cudyn__drv.cuMemPoolExportToShareableHandle(&fd, CU_POOL(pool), CU_MEM_HANDLE_POSIX_FD, 0);
    return cudyn__exported_fd(r, fd, fd_out, "cuMemPoolExportToShareableHandle", "the pool",
                              "create the pool with cudyn_mem_pool_create_exportable", api);
}

int cudyn__exported_fd(cu_result r, int fd, int *fd_out, const char *cufn, const char *what, const char *hint,
                       const char *api)
{
    if (r == CU_ERR_INVALID_VALUE)
        return cudyn__fail(CUDYN_ERROR_INVALID_ARGUMENT, CUDYN_ORIGIN_DRIVER, (int)r, "CUDA_ERROR_INVALID_VALUE", cufn,
                           hint, "%s: %s cannot be exported as a file descriptor", api, what);
    if (r != CU_OK)
        return cudyn__fail_driver(r, cufn, api);
    *fd_out = fd;
    return CUDYN_OK;
}

CUDYN_API int cudyn_mem_pool_import_fd(cudyn_mem_pool *out, int fd)
{
    static const char api[] = "cudyn_mem_pool_import_fd";
    if (!out)
        return cudyn__fail_arg(api, "out", "must not be NULL");
    *out = NULL;
    if (fd < 0)
        return cudyn__fail_arg(api, "fd", "must be a file descriptor from cudyn_mem_pool_export_fd");
    int st = cudyn__need_context(api);
    if (st != CUDYN_OK)
        return st;
    cu_mem_pool pool = NULL;
    /* the POSIX handle is the descriptor's value, passed as the pointer */
    CUDYN_TRY_DRIVER(cudyn__drv.cuMemPoolImportFromShareableHandle(&pool, (void *)(intptr_t)fd,
                                                                   CU_MEM_HANDLE_POSIX_FD, 0),
                     "cuMemPoolImportFromShareableHandle", api);
    *out = (cudyn_mem_pool)(void *)pool;
    return CUDYN_OK;
}

CUDYN_API int cudyn_mem_pool_set_access(cudyn_mem_pool pool, int ordinal)
{
    static const char api[] = "cudyn_mem_pool_set_access";
    if (!pool)
        return cudyn__fail_arg(api, "pool", "must not be NULL");
    cu_device dev;
    int st = cudyn__get_device(api, ordinal, &dev);
    if (st != CUDYN_OK)
        return st;
    cu_mem_access_desc desc;
    memset(&desc, 0, sizeof desc);
    desc.location.type = CU_MEMLOC_DEVICE;
    desc.location.id = dev;
    desc.flags = CU_MEM_ACCESS_READWRITE;
    CUDYN_TRY_DRIVER(cudyn__drv.cuMemPoolSetAccess(CU_POOL(pool), &desc, 1), "cuMemPoolSetAccess", api);
    return CUDYN_OK;
}

CUDYN_API int cudyn_mem_pool_export_pointer(cudyn_pool_ptr_export *out, cudyn_devptr ptr)
{
    static const char api[] = "cudyn_mem_pool_export_pointer";
    if (!out)
        return cudyn__fail_arg(api, "out", "must not be NULL");
    memset(out, 0, sizeof *out);
    if (ptr == 0)
        return cudyn__fail_arg(api, "ptr", "must be an allocation from an exportable pool, not 0");
    int st = cudyn__need_context(api);
    if (st != CUDYN_OK)
        return st;
    cu_mem_pool_ptr_export data;
    cu_result r;
    CUDYN_DRIVER_CALL(r, cudyn__drv.cuMemPoolExportPointer(&data, ptr), api);
    /* the driver's answer for an allocation of a pool not exported yet (or
     * of no exportable pool at all), as seen on CUDA 13.0 */
    if (r == CU_ERR_INVALID_VALUE)
        return cudyn__fail(CUDYN_ERROR_INVALID_ARGUMENT, CUDYN_ORIGIN_DRIVER, (int)r, "CUDA_ERROR_INVALID_VALUE",
                           "cuMemPoolExportPointer",
                           "export the pool first (cudyn_mem_pool_export_fd), from a pool made with "
                           "cudyn_mem_pool_create_exportable",
                           "%s: the driver exports no allocation of a pool that was not exported itself", api);
    if (r != CU_OK)
        return cudyn__fail_driver(r, "cuMemPoolExportPointer", api);
    memcpy(out, &data, sizeof *out);
    return CUDYN_OK;
}

CUDYN_API int cudyn_mem_pool_import_pointer(cudyn_devptr *out, cudyn_mem_pool pool, const cudyn_pool_ptr_export *data)
{
    static const char api[] = "cudyn_mem_pool_import_pointer";
    if (!out)
        return cudyn__fail_arg(api, "out", "must not be NULL");
    *out = 0;
    if (!pool || !data)
        return cudyn__fail_arg(api, pool ? "data" : "pool", "must not be NULL");
    int st = cudyn__need_context(api);
    if (st != CUDYN_OK)
        return st;
    cu_mem_pool_ptr_export d;
    memcpy(&d, data, sizeof d);
    cu_deviceptr p = 0;
    CUDYN_TRY_DRIVER(cudyn__drv.cuMemPoolImportPointer(&p, CU_POOL(pool), &d), "cuMemPoolImportPointer", api);
    *out = p;
    return CUDYN_OK;
}

CUDYN_API void *cudyn_mem_pool_native(cudyn_mem_pool pool)
{
    return (void *)pool;
}

CUDYN_API cudyn_mem_pool cudyn_mem_pool_from_native(void *native)
{
    return (cudyn_mem_pool)native;
}
