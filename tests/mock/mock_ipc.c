/*
 * mock_ipc.c - sharing device memory between processes, emulated with
 * host memory that both processes map: CUDA IPC memory handles, virtual
 * memory (reserve, create, map, access, export as a file descriptor) and
 * pools created for export.
 *
 * Device memory lives in a memfd (mock_memory.c).  An IPC memory handle
 * names the exporting process, its descriptor and the size; the opener
 * maps /proc/PID/fd/FD, so both see the same bytes; an exporter that has
 * exited shows as a missing /proc entry.  A physical allocation of
 * cuMemCreate is a memfd too: exporting it dups the descriptor, which a
 * Unix socket carries to another process like a real one.  Reserved
 * ranges are PROT_NONE address space; cuMemMap maps the memfd there and
 * cuMemSetAccess makes the range device memory of the thread's context.
 * Pool export (a pool's descriptor and its pointers' export data) is not
 * emulated: those calls refuse.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mock.h"

#define GRANULARITY ((size_t)2 << 20) /* what current GPUs report */

/* ---- IPC memory handles ---- */

struct ipc_wire {
    char magic[8]; /* "mockIPC" */
    int32_t pid, fd, device, pad;
    uint64_t bytes;
};
_Static_assert(sizeof(struct ipc_wire) <= sizeof(cu_ipc_mem_handle), "IPC handle holds the wire form");
static const char ipc_magic[8] = "mockIPC";

cu_result cuIpcGetMemHandle(cu_ipc_mem_handle *handle, cu_deviceptr ptr)
{
    ENTER("cuIpcGetMemHandle");
    NEED_CONTEXT();
    if (!handle)
        return CU_ERR_INVALID_VALUE;
    struct ipc_wire w = {.pid = (int32_t)getpid()};
    size_t bytes = 0;
    int device = 0;
    w.fd = memory_shared_fd((uintptr_t)ptr, &bytes, &device);
    if (w.fd < 0)
        return CU_ERR_INVALID_VALUE; /* not the start of a cuMemAlloc allocation */
    memcpy(w.magic, ipc_magic, sizeof w.magic);
    w.device = device;
    w.bytes = bytes;
    memset(handle, 0, sizeof *handle);
    memcpy(handle, &w, sizeof w);
    return CU_OK;
}

cu_result cuIpcOpenMemHandle_v2(cu_deviceptr *ptr, cu_ipc_mem_handle handle, unsigned int flags)
{
    ENTER("cuIpcOpenMemHandle_v2");
    struct CUctx_st *ctx;
    cu_result r = ctx_need_current(&ctx);
    if (r)
        return r;
    struct ipc_wire w;
    memcpy(&w, &handle, sizeof w);
    if (!ptr || (flags & ~1u) || memcmp(w.magic, ipc_magic, sizeof w.magic) != 0)
        return CU_ERR_INVALID_VALUE;
    if (w.pid == (int32_t)getpid())
        return CU_ERR_INVALID_CONTEXT; /* what drivers answer in the exporting process */
    if (w.device < 0 || w.device >= mock.n_devices)
        return CU_ERR_INVALID_DEVICE;
    if (w.device != ctx->device && !(flags & 1u))
        return CU_ERR_INVALID_DEVICE;
    if (w.device != ctx->device && !mock.p2p[ctx->device][w.device])
        return CU_ERR_PEER_ACCESS_UNSUPPORTED;
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/fd/%d", (int)w.pid, (int)w.fd);
    int fd = open(path, O_RDWR | O_CLOEXEC);
    if (fd < 0)
        return errno == ENOENT ? CU_ERR_INVALID_HANDLE : mock_refuse("an IPC handle whose %s cannot be opened (%s)",
                                                                      path, strerror(errno));
    struct stat st;
    void *p = fstat(fd, &st) == 0 && (uint64_t)st.st_size >= w.bytes
                  ? mmap(NULL, (size_t)w.bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)
                  : MAP_FAILED;
    close(fd);
    if (p == MAP_FAILED)
        return CU_ERR_INVALID_HANDLE;
    r = memory_adopt(p, (size_t)w.bytes, IPC_MEMORY);
    if (r) {
        munmap(p, (size_t)w.bytes);
        return r;
    }
    *ptr = (cu_deviceptr)(uintptr_t)p;
    return CU_OK;
}

cu_result cuIpcCloseMemHandle(cu_deviceptr ptr)
{
    ENTER("cuIpcCloseMemHandle");
    return memory_release((uintptr_t)ptr, IPC_MEMORY, NULL, NULL);
}

/* ---- virtual memory ---- */

static cu_result check_prop(const cu_mem_alloc_prop *prop)
{
    if (!prop || prop->type != CU_MEM_ALLOCATION_PINNED || prop->location.type != CU_MEMLOC_DEVICE ||
        (prop->requestedHandleTypes & ~(cu_enum)CU_MEM_HANDLE_POSIX_FD))
        return prop && prop->requestedHandleTypes & ~(cu_enum)CU_MEM_HANDLE_POSIX_FD
                   ? mock_refuse("allocation handle types 0x%x", prop->requestedHandleTypes)
                   : CU_ERR_INVALID_VALUE;
    if (prop->location.id < 0 || prop->location.id >= mock.n_devices)
        return CU_ERR_INVALID_DEVICE;
    return CU_OK;
}

cu_result cuMemGetAllocationGranularity(size_t *granularity, const cu_mem_alloc_prop *prop, cu_enum option)
{
    ENTER("cuMemGetAllocationGranularity");
    NEED_INIT();
    cu_result r = check_prop(prop);
    if (r)
        return r;
    if (!granularity || option > CU_MEM_GRANULARITY_RECOMMENDED)
        return CU_ERR_INVALID_VALUE;
    *granularity = GRANULARITY;
    return CU_OK;
}

struct reservation {
    uintptr_t base;
    size_t bytes;
    void *mapping_start; /* what mmap returned (before alignment) */
    size_t mapping_bytes;
    struct reservation *next;
};
static struct reservation *reservations;

/* A physical allocation; its handle is its address. */
struct physical {
    int fd;
    size_t bytes;
    int device;
    int exportable;
    int released;
    int mapped; /* mappings of it that exist */
};

struct mapping {
    uintptr_t ptr;
    size_t bytes;
    struct physical *phys;
    int accessible;
    struct mapping *next;
};
static struct mapping *mappings;

static int within_reservation_locked(uintptr_t p, size_t bytes)
{
    for (struct reservation *r = reservations; r; r = r->next)
        if (p >= r->base && p - r->base <= r->bytes && bytes <= r->bytes - (p - r->base))
            return 1;
    return 0;
}

cu_result cuMemAddressReserve(cu_deviceptr *ptr, size_t bytes, size_t alignment, cu_deviceptr addr, unsigned long long flags)
{
    ENTER("cuMemAddressReserve");
    NEED_CONTEXT();
    (void)addr; /* a hint */
    if (!ptr || bytes == 0 || bytes % GRANULARITY || flags || (alignment & (alignment - 1)))
        return CU_ERR_INVALID_VALUE;
    size_t align = alignment > GRANULARITY ? alignment : GRANULARITY;
    size_t span = bytes + align;
    void *m = mmap(NULL, span, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (m == MAP_FAILED)
        return CU_ERR_OUT_OF_MEMORY;
    struct reservation *r = calloc(1, sizeof *r);
    if (!r) {
        munmap(m, span);
        return CU_ERR_OUT_OF_MEMORY;
    }
    r->mapping_start = m;
    r->mapping_bytes = span;
    r->base = ((uintptr_t)m + align - 1) / align * align;
    r->bytes = bytes;
    pthread_mutex_lock(&mock.lock);
    r->next = reservations;
    reservations = r;
    pthread_mutex_unlock(&mock.lock);
    *ptr = r->base;
    return CU_OK;
}

cu_result cuMemAddressFree(cu_deviceptr ptr, size_t bytes)
{
    ENTER("cuMemAddressFree");
    pthread_mutex_lock(&mock.lock);
    struct reservation *r = reservations;
    while (r && (r->base != ptr || r->bytes != bytes))
        r = r->next;
    for (struct mapping *m = mappings; r && m; m = m->next)
        if (m->ptr >= r->base && m->ptr < r->base + r->bytes) {
            pthread_mutex_unlock(&mock.lock);
            return mock_refuse("freeing a reserved range that still has mappings (unmap first)");
        }
    struct reservation *found = NULL;
    MOCK_LIST_UNLINK_IF(struct reservation, reservations, x, !found && x == r, found = x);
    pthread_mutex_unlock(&mock.lock);
    if (!found)
        return CU_ERR_INVALID_VALUE;
    munmap(found->mapping_start, found->mapping_bytes);
    free(found);
    return CU_OK;
}

static cu_result physical_new(cu_mem_handle *handle, int fd, size_t bytes, int device, int exportable)
{
    struct physical *p = calloc(1, sizeof *p);
    if (!p)
        return CU_ERR_OUT_OF_MEMORY;
    p->fd = fd;
    p->bytes = bytes;
    p->device = device;
    p->exportable = exportable;
    *handle = (cu_mem_handle)(uintptr_t)p;
    return CU_OK;
}

cu_result cuMemCreate(cu_mem_handle *handle, size_t bytes, const cu_mem_alloc_prop *prop, unsigned long long flags)
{
    ENTER("cuMemCreate");
    NEED_CONTEXT();
    cu_result r = check_prop(prop);
    if (r)
        return r;
    if (!handle || bytes == 0 || bytes % GRANULARITY || flags)
        return CU_ERR_INVALID_VALUE;
    if ((r = memory_charge(prop->location.id, bytes)) != CU_OK)
        return r;
    int fd = memfd_create("mock-cuda-physical", MFD_CLOEXEC);
    if (fd < 0 || ftruncate(fd, (off_t)bytes) != 0) {
        if (fd >= 0)
            close(fd);
        memory_refund(prop->location.id, bytes);
        return CU_ERR_OUT_OF_MEMORY;
    }
    r = physical_new(handle, fd, bytes, prop->location.id, prop->requestedHandleTypes == CU_MEM_HANDLE_POSIX_FD);
    if (r) {
        close(fd);
        memory_refund(prop->location.id, bytes);
    }
    return r;
}

/* Frees a released physical allocation once nothing maps it; lock held. */
static void physical_settle_locked(struct physical *p)
{
    if (p->released && p->mapped == 0) {
        close(p->fd);
        free(p);
    }
}

cu_result cuMemRelease(cu_mem_handle handle)
{
    ENTER("cuMemRelease");
    struct physical *p = (struct physical *)(uintptr_t)handle;
    if (!p || p->released)
        return CU_ERR_INVALID_VALUE;
    int device = p->device;
    size_t bytes = p->bytes;
    pthread_mutex_lock(&mock.lock);
    p->released = 1;
    physical_settle_locked(p);
    pthread_mutex_unlock(&mock.lock);
    memory_refund(device, bytes); /* charged once, at creation or import */
    return CU_OK;
}

cu_result cuMemMap(cu_deviceptr ptr, size_t bytes, size_t offset, cu_mem_handle handle, unsigned long long flags)
{
    ENTER("cuMemMap");
    NEED_CONTEXT();
    struct physical *p = (struct physical *)(uintptr_t)handle;
    if (!p || p->released || flags || bytes == 0 || bytes % GRANULARITY || ptr % GRANULARITY ||
        offset % GRANULARITY || offset > p->bytes || bytes > p->bytes - offset)
        return CU_ERR_INVALID_VALUE;
    struct mapping *m = calloc(1, sizeof *m);
    if (!m)
        return CU_ERR_OUT_OF_MEMORY;
    pthread_mutex_lock(&mock.lock);
    cu_result r = within_reservation_locked(ptr, bytes) ? CU_OK : CU_ERR_INVALID_VALUE;
    for (struct mapping *o = mappings; o && r == CU_OK; o = o->next)
        if (ptr < o->ptr + o->bytes && o->ptr < ptr + bytes)
            r = CU_ERR_ALREADY_MAPPED;
    if (r == CU_OK &&
        mmap((void *)(uintptr_t)ptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, p->fd, (off_t)offset) ==
            MAP_FAILED)
        r = CU_ERR_OUT_OF_MEMORY;
    if (r == CU_OK) {
        m->ptr = ptr;
        m->bytes = bytes;
        m->phys = p;
        m->next = mappings;
        mappings = m;
        p->mapped++;
    }
    pthread_mutex_unlock(&mock.lock);
    if (r)
        free(m);
    return r;
}

cu_result cuMemUnmap(cu_deviceptr ptr, size_t bytes)
{
    ENTER("cuMemUnmap");
    NEED_CONTEXT();
    struct mapping *found = NULL;
    pthread_mutex_lock(&mock.lock);
    MOCK_LIST_UNLINK_IF(struct mapping, mappings, x, !found && x->ptr == ptr && x->bytes == bytes, found = x);
    if (found) {
        /* back to reserved address space without memory */
        mmap((void *)(uintptr_t)ptr, bytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0);
        found->phys->mapped--;
        physical_settle_locked(found->phys);
    }
    pthread_mutex_unlock(&mock.lock);
    if (!found)
        return mock_refuse("unmapping anything but one whole mapping made by cuMemMap");
    if (found->accessible)
        memory_release((uintptr_t)ptr, VMM_MEMORY, NULL, NULL);
    free(found);
    return CU_OK;
}

cu_result cuMemSetAccess(cu_deviceptr ptr, size_t bytes, const cu_mem_access_desc *desc, size_t count)
{
    ENTER("cuMemSetAccess");
    struct CUctx_st *ctx;
    cu_result r = ctx_need_current(&ctx);
    if (r)
        return r;
    if (!desc || count != 1)
        return count > 1 ? mock_refuse("cuMemSetAccess with %zu descriptors", count) : CU_ERR_INVALID_VALUE;
    if (desc->location.type != CU_MEMLOC_DEVICE || desc->flags != CU_MEM_ACCESS_READWRITE)
        return desc->location.type == CU_MEMLOC_DEVICE ? mock_refuse("access flags 0x%x", desc->flags)
                                                       : CU_ERR_INVALID_VALUE;
    if (desc->location.id < 0 || desc->location.id >= mock.n_devices)
        return CU_ERR_INVALID_DEVICE;
    struct mapping *found = NULL;
    pthread_mutex_lock(&mock.lock);
    for (struct mapping *m = mappings; m; m = m->next)
        if (m->ptr == ptr && m->bytes == bytes)
            found = m;
    int peer_ok = found && (found->phys->device == desc->location.id ||
                            mock.p2p[desc->location.id][found->phys->device]);
    int first = found && peer_ok && !found->accessible;
    if (first)
        found->accessible = 1;
    pthread_mutex_unlock(&mock.lock);
    if (!found)
        return mock_refuse("access set on anything but one whole mapping made by cuMemMap");
    if (!peer_ok)
        return CU_ERR_INVALID_DEVICE;
    return first ? memory_adopt((void *)(uintptr_t)ptr, bytes, VMM_MEMORY) : CU_OK;
}

cu_result cuMemExportToShareableHandle(void *handle, cu_mem_handle alloc, cu_enum handle_type, unsigned long long flags)
{
    ENTER("cuMemExportToShareableHandle");
    struct physical *p = (struct physical *)(uintptr_t)alloc;
    if (!handle || !p || p->released || flags)
        return CU_ERR_INVALID_VALUE;
    if (handle_type != CU_MEM_HANDLE_POSIX_FD)
        return mock_refuse("shareable handle type %u", handle_type);
    if (!p->exportable)
        return CU_ERR_INVALID_VALUE;
    int fd = fcntl(p->fd, F_DUPFD_CLOEXEC, 0);
    if (fd < 0)
        return CU_ERR_OUT_OF_MEMORY;
    *(int *)handle = fd;
    return CU_OK;
}

cu_result cuMemImportFromShareableHandle(cu_mem_handle *alloc, void *handle, cu_enum handle_type)
{
    ENTER("cuMemImportFromShareableHandle");
    struct CUctx_st *ctx;
    cu_result r = ctx_need_current(&ctx);
    if (r)
        return r;
    if (!alloc)
        return CU_ERR_INVALID_VALUE;
    if (handle_type != CU_MEM_HANDLE_POSIX_FD)
        return mock_refuse("shareable handle type %u", handle_type);
    int fd = fcntl((int)(intptr_t)handle, F_DUPFD_CLOEXEC, 0);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0 || st.st_size <= 0 || (size_t)st.st_size % GRANULARITY) {
        if (fd >= 0)
            close(fd);
        return CU_ERR_INVALID_VALUE;
    }
    /* the mock cannot tell the exporter's device from a descriptor: the
     * allocation counts as the importing thread's device's */
    if ((r = memory_charge(ctx->device, (size_t)st.st_size)) != CU_OK) {
        close(fd);
        return r;
    }
    r = physical_new(alloc, fd, (size_t)st.st_size, ctx->device, 1);
    if (r) {
        close(fd);
        memory_refund(ctx->device, (size_t)st.st_size);
    }
    return r;
}

/* ---- pools made for export ---- */

struct created_pool {
    int device;
    int handle_types;
};

cu_result cuMemPoolCreate(cu_mem_pool *pool, const cu_mem_pool_props *props)
{
    ENTER("cuMemPoolCreate");
    NEED_INIT();
    if (!pool || !props || props->allocType != CU_MEM_ALLOCATION_PINNED || props->location.type != CU_MEMLOC_DEVICE)
        return CU_ERR_INVALID_VALUE;
    if (props->location.id < 0 || props->location.id >= mock.n_devices)
        return CU_ERR_INVALID_DEVICE;
    struct created_pool *p = calloc(1, sizeof *p);
    if (!p)
        return CU_ERR_OUT_OF_MEMORY;
    p->device = props->location.id;
    p->handle_types = (int)props->handleTypes;
    *pool = (cu_mem_pool)(void *)p;
    return CU_OK;
}

cu_result cuMemPoolDestroy(cu_mem_pool pool)
{
    ENTER("cuMemPoolDestroy");
    if (!pool)
        return CU_ERR_INVALID_VALUE;
    free((void *)pool);
    return CU_OK;
}

cu_result cuMemPoolSetAccess(cu_mem_pool pool, const cu_mem_access_desc *map, size_t count)
{
    ENTER("cuMemPoolSetAccess");
    if (!pool || !map || count == 0)
        return CU_ERR_INVALID_VALUE;
    const struct created_pool *p = (const void *)pool;
    for (size_t i = 0; i < count; i++) {
        int to = map[i].location.id;
        if (map[i].location.type != CU_MEMLOC_DEVICE || to < 0 || to >= mock.n_devices)
            return CU_ERR_INVALID_DEVICE;
        if (to != p->device && !mock.p2p[to][p->device])
            return CU_ERR_INVALID_DEVICE;
    }
    return CU_OK;
}

/* Allocation from and export of created pools is not emulated. */
static cu_result pool_refused(const char *what)
{
    return mock_refuse("%s of a memory pool created for export", what);
}

cu_result cuMemAllocFromPoolAsync(cu_deviceptr *ptr, size_t bytes, cu_mem_pool pool, cu_stream stream)
{
    ENTER("cuMemAllocFromPoolAsync");
    (void)ptr, (void)bytes, (void)pool, (void)stream;
    return pool_refused("allocation");
}

cu_result cuMemAllocFromPoolAsync_ptsz(cu_deviceptr *ptr, size_t bytes, cu_mem_pool pool, cu_stream stream)
{
    ENTER("cuMemAllocFromPoolAsync_ptsz");
    (void)ptr, (void)bytes, (void)pool, (void)stream;
    return pool_refused("allocation");
}

cu_result cuMemPoolExportToShareableHandle(void *handle, cu_mem_pool pool, cu_enum handle_type, unsigned long long flags)
{
    ENTER("cuMemPoolExportToShareableHandle");
    (void)handle, (void)pool, (void)handle_type, (void)flags;
    return pool_refused("export");
}

cu_result cuMemPoolImportFromShareableHandle(cu_mem_pool *pool, void *handle, cu_enum handle_type,
                                             unsigned long long flags)
{
    ENTER("cuMemPoolImportFromShareableHandle");
    (void)pool, (void)handle, (void)handle_type, (void)flags;
    return pool_refused("import");
}

cu_result cuMemPoolExportPointer(cu_mem_pool_ptr_export *data, cu_deviceptr ptr)
{
    ENTER("cuMemPoolExportPointer");
    (void)data, (void)ptr;
    return pool_refused("pointer export");
}

cu_result cuMemPoolImportPointer(cu_deviceptr *ptr, cu_mem_pool pool, cu_mem_pool_ptr_export *data)
{
    ENTER("cuMemPoolImportPointer");
    (void)ptr, (void)pool, (void)data;
    return pool_refused("pointer import");
}
