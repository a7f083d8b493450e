/*
 * vmm.c - virtual memory management: reserve device address space, create
 * physical allocations, map them, give devices access, and export or
 * import an allocation as a POSIX file descriptor.
 *
 * The driver answers a size that is not a multiple of the granularity
 * with a bare CUDA_ERROR_INVALID_VALUE; cudyn checks first and names the
 * granularity.  A device without peer access to the memory's gets a bare
 * error as well; cudyn asks cuDeviceCanAccessPeer first.
 */
#include "config.h"

#include <string.h>

#include "api/api.h"

_Static_assert(sizeof(cudyn_vmm_alloc) == sizeof(cu_mem_handle), "cudyn_vmm_alloc is a CUmemGenericAllocationHandle");

static void pinned_on(cu_mem_alloc_prop *prop, cu_device dev, cu_enum handle_types)
{
    memset(prop, 0, sizeof *prop);
    prop->type = CU_MEM_ALLOCATION_PINNED;
    prop->requestedHandleTypes = handle_types;
    prop->location.type = CU_MEMLOC_DEVICE;
    prop->location.id = dev;
}

static int granularity_of(const char *api, cu_device dev, cu_enum option, size_t *out)
{
    cu_mem_alloc_prop prop;
    pinned_on(&prop, dev, CU_MEM_HANDLE_NONE);
    *out = 0;
    CUDYN_TRY_DRIVER(cudyn__drv.cuMemGetAllocationGranularity(out, &prop, option), "cuMemGetAllocationGranularity",
                     api);
    if (*out == 0) /* never from a working driver; keeps the checks below from dividing by 0 */
        *out = 1;
    return CUDYN_OK;
}

/* The thread's device and its minimum granularity. */
static int current_granularity(const char *api, cu_device *dev, size_t *gran)
{
    int st = cudyn__need_context(api);
    if (st != CUDYN_OK)
        return st;
    CUDYN_TRY_DRIVER(cudyn__drv.cuCtxGetDevice(dev), "cuCtxGetDevice", api);
    return granularity_of(api, *dev, CU_MEM_GRANULARITY_MINIMUM, gran);
}

/* bytes (named what) is a positive multiple of gran, else the failure. */
static int check_multiple(const char *api, const char *what, size_t bytes, size_t gran)
{
    if (bytes != 0 && bytes % gran == 0)
        return CUDYN_OK;
    size_t up = bytes / gran * gran + gran;
    return cudyn__fail(CUDYN_ERROR_INVALID_ARGUMENT, CUDYN_ORIGIN_LIBRARY, 0, NULL, api,
                       "round sizes up to a multiple of cudyn_vmm_granularity()",
                       "%s: %s is %zu bytes, not a positive multiple of the device's allocation granularity %zu "
                       "(the next one is %zu)",
                       api, what, bytes, gran, up);
}

CUDYN_API int cudyn_vmm_granularity(size_t *out, int ordinal, int recommended)
{
    static const char api[] = "cudyn_vmm_granularity";
    if (!out)
        return cudyn__fail_arg(api, "out", "must not be NULL");
    *out = 0;
    cu_device dev;
    int st = cudyn__get_device(api, ordinal, &dev);
    if (st != CUDYN_OK)
        return st;
    return granularity_of(api, dev, recommended ? CU_MEM_GRANULARITY_RECOMMENDED : CU_MEM_GRANULARITY_MINIMUM, out);
}

CUDYN_API int cudyn_vmm_reserve(cudyn_devptr *out, size_t bytes, size_t alignment)
{
    static const char api[] = "cudyn_vmm_reserve";
    if (!out)
        return cudyn__fail_arg(api, "out", "must not be NULL");
    *out = 0;
    if (alignment & (alignment - 1))
        return cudyn__fail_arg(api, "alignment", "must be 0 or a power of two");
    cu_device dev;
    size_t gran;
    int st = current_granularity(api, &dev, &gran);
    if (st == CUDYN_OK)
        st = check_multiple(api, "the range", bytes, gran);
    if (st != CUDYN_OK)
        return st;
    cu_deviceptr p = 0;
    CUDYN_TRY_DRIVER(cudyn__drv.cuMemAddressReserve(&p, bytes, alignment, 0, 0), "cuMemAddressReserve", api);
    *out = p;
    return CUDYN_OK;
}

CUDYN_API int cudyn_vmm_free(cudyn_devptr ptr, size_t bytes)
{
    static const char api[] = "cudyn_vmm_free";
    if (ptr == 0)
        return cudyn__fail_arg(api, "ptr", "must be a range from cudyn_vmm_reserve, not 0");
    int st = cudyn__need_context(api);
    if (st != CUDYN_OK)
        return st;
    CUDYN_TRY_DRIVER(cudyn__drv.cuMemAddressFree(ptr, bytes), "cuMemAddressFree", api);
    return CUDYN_OK;
}

CUDYN_API int cudyn_vmm_create(cudyn_vmm_alloc *out, int ordinal, size_t bytes, unsigned int flags)
{
    static const char api[] = "cudyn_vmm_create";
    if (!out)
        return cudyn__fail_arg(api, "out", "must not be NULL");
    *out = 0;
    if (flags & ~CUDYN_VMM_EXPORTABLE)
        return cudyn__fail_arg(api, "flags", "has unknown bits (use 0 or CUDYN_VMM_EXPORTABLE)");
    cu_device dev;
    int st = cudyn__get_device(api, ordinal, &dev);
    if (st != CUDYN_OK)
        return st;
    st = cudyn__need_context(api);
    if (st != CUDYN_OK)
        return st;
    size_t gran;
    st = granularity_of(api, dev, CU_MEM_GRANULARITY_MINIMUM, &gran);
    if (st == CUDYN_OK)
        st = check_multiple(api, "the allocation", bytes, gran);
    if (st != CUDYN_OK)
        return st;
    cu_mem_alloc_prop prop;
    pinned_on(&prop, dev, (flags & CUDYN_VMM_EXPORTABLE) ? CU_MEM_HANDLE_POSIX_FD : CU_MEM_HANDLE_NONE);
    cu_mem_handle h = 0;
    cu_result r;
    CUDYN_DRIVER_CALL(r, cudyn__drv.cuMemCreate(&h, bytes, &prop, 0), api);
    if (r != CU_OK)
        return cudyn__alloc_failed(cudyn__fail_driver(r, "cuMemCreate", api), bytes);
    *out = h;
    return CUDYN_OK;
}

CUDYN_API int cudyn_vmm_release(cudyn_vmm_alloc alloc)
{
    static const char api[] = "cudyn_vmm_release";
    if (alloc == 0)
        return cudyn__fail_arg(api, "alloc", "must be an allocation from cudyn_vmm_create or _import_fd, not 0");
    int st = cudyn__need_context(api);
    if (st != CUDYN_OK)
        return st;
    CUDYN_TRY_DRIVER(cudyn__drv.cuMemRelease(alloc), "cuMemRelease", api);
    return CUDYN_OK;
}

CUDYN_API int cudyn_vmm_map(cudyn_devptr ptr, size_t bytes, cudyn_vmm_alloc alloc)
{
    static const char api[] = "cudyn_vmm_map";
    if (ptr == 0 || alloc == 0)
        return cudyn__fail_arg(api, ptr ? "alloc" : "ptr", "must not be 0");
    cu_device dev;
    size_t gran;
    int st = current_granularity(api, &dev, &gran);
    if (st == CUDYN_OK)
        st = check_multiple(api, "the mapping", bytes, gran);
    if (st == CUDYN_OK && ptr % gran != 0)
        st = cudyn__fail(CUDYN_ERROR_INVALID_ARGUMENT, CUDYN_ORIGIN_LIBRARY, 0, NULL, api,
                         "map at the start of a reserved range plus a multiple of cudyn_vmm_granularity()",
                         "%s: address 0x%llx is not aligned to the allocation granularity %zu", api,
                         (unsigned long long)ptr, gran);
    if (st != CUDYN_OK)
        return st;
    CUDYN_TRY_DRIVER(cudyn__drv.cuMemMap(ptr, bytes, 0, alloc, 0), "cuMemMap", api);
    return CUDYN_OK;
}

CUDYN_API int cudyn_vmm_unmap(cudyn_devptr ptr, size_t bytes)
{
    static const char api[] = "cudyn_vmm_unmap";
    if (ptr == 0)
        return cudyn__fail_arg(api, "ptr", "must not be 0");
    cu_device dev;
    size_t gran;
    int st = current_granularity(api, &dev, &gran);
    if (st == CUDYN_OK)
        st = check_multiple(api, "the range", bytes, gran);
    if (st != CUDYN_OK)
        return st;
    CUDYN_TRY_DRIVER(cudyn__drv.cuMemUnmap(ptr, bytes), "cuMemUnmap", api);
    return CUDYN_OK;
}

CUDYN_API int cudyn_vmm_set_access(cudyn_devptr ptr, size_t bytes, int ordinal)
{
    static const char api[] = "cudyn_vmm_set_access";
    if (ptr == 0)
        return cudyn__fail_arg(api, "ptr", "must not be 0");
    cu_device dev, to;
    size_t gran;
    int st = cudyn__get_device(api, ordinal, &to);
    if (st == CUDYN_OK)
        st = current_granularity(api, &dev, &gran);
    if (st == CUDYN_OK)
        st = check_multiple(api, "the range", bytes, gran);
    if (st != CUDYN_OK)
        return st;
    if (to != dev) {
        /* the memory is taken to be the thread's device's: the driver's
         * answer for another device's memory is a bare INVALID_DEVICE */
        int can = 0;
        CUDYN_TRY_DRIVER(cudyn__drv.cuDeviceCanAccessPeer(&can, to, dev), "cuDeviceCanAccessPeer", api);
        if (!can)
            return cudyn__fail(CUDYN_ERROR_NOT_SUPPORTED, CUDYN_ORIGIN_LIBRARY, 0, NULL, api,
                               "copy through host memory, or use devices linked by NVLink or the same PCIe switch",
                               "%s: device %d has no peer access to device %d's memory", api, ordinal, (int)dev);
    }
    cu_mem_access_desc desc;
    memset(&desc, 0, sizeof desc);
    desc.location.type = CU_MEMLOC_DEVICE;
    desc.location.id = to;
    desc.flags = CU_MEM_ACCESS_READWRITE;
    CUDYN_TRY_DRIVER(cudyn__drv.cuMemSetAccess(ptr, bytes, &desc, 1), "cuMemSetAccess", api);
    return CUDYN_OK;
}

CUDYN_API int cudyn_vmm_export_fd(int *fd_out, cudyn_vmm_alloc alloc)
{
    static const char api[] = "cudyn_vmm_export_fd";
    if (!fd_out)
        return cudyn__fail_arg(api, "fd_out", "must not be NULL");
    *fd_out = -1;
    if (alloc == 0)
        return cudyn__fail_arg(api, "alloc", "must not be 0");
    int st = cudyn__need_context(api);
    if (st != CUDYN_OK)
        return st;
    int fd = -1;
    cu_result r;
    CUDYN_DRIVER_CALL(r, cudyn__drv.cuMemExportToShareableHandle(&fd, alloc, CU_MEM_HANDLE_POSIX_FD, 0), api);
    return cudyn__exported_fd(r, fd, fd_out, "cuMemExportToShareableHandle", "the allocation",
                              "create the allocation with CUDYN_VMM_EXPORTABLE", api);
}

CUDYN_API int cudyn_vmm_import_fd(cudyn_vmm_alloc *out, int fd)
{
    static const char api[] = "cudyn_vmm_import_fd";
    if (!out)
        return cudyn__fail_arg(api, "out", "must not be NULL");
    *out = 0;
    if (fd < 0)
        return cudyn__fail_arg(api, "fd", "must be a file descriptor from cudyn_vmm_export_fd");
    int st = cudyn__need_context(api);
    if (st != CUDYN_OK)
        return st;
    cu_mem_handle h = 0;
    /* the POSIX handle is the descriptor's value, passed as the pointer */
    CUDYN_TRY_DRIVER(cudyn__drv.cuMemImportFromShareableHandle(&h, (void *)(intptr_t)fd, CU_MEM_HANDLE_POSIX_FD),
                     "cuMemImportFromShareableHandle", api);
    *out = h;
    return CUDYN_OK;
}
