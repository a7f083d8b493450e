/*
 * mock_memory.c - device, pinned host and managed memory (kept in host
 * memory, at the addresses handed out: one unified address space),
 * copies, memsets, managed-memory prefetch and advice, pointer
 * attributes, and the count of copies between devices.
 *
 * Device memory is charged to its device (MOCK_CUDA_MEM_LIMIT); managed
 * memory lives on the host and is charged to none; pool memory is charged
 * through its pool (mock_pool.c).  Prefetch and advice move nothing, but
 * are checked as a driver checks them (managed memory only, a valid
 * location) and the last prefetch's location is kept for tests.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "mock.h"

#define NOT_PREFETCHED (-2)

struct allocation {
    void *host;
    size_t bytes;
    int kind;
    int fd;               /* DEVICE_MEMORY: the memfd holding it */
    int prefetched;       /* managed: last prefetch location (-1 host), or NOT_PREFETCHED */
    struct CUctx_st *ctx; /* current when it was made; it goes with it */
    struct allocation *next;
};
static struct allocation *allocations;
static size_t used[MAX_DEVICES];  /* device memory per device */
static long cross_device_copies[2]; /* [1]: with peer access enabled */

/* The allocation holding [ptr, ptr+bytes), or NULL; lock held. */
static struct allocation *find_locked(cu_deviceptr ptr, size_t bytes)
{
    for (struct allocation *a = allocations; a; a = a->next) {
        uintptr_t base = (uintptr_t)a->host;
        if (ptr >= base && ptr - base <= a->bytes && bytes <= a->bytes - (ptr - base))
            return a;
    }
    return NULL;
}

void *memory_range(cu_deviceptr ptr, size_t bytes)
{
    pthread_mutex_lock(&mock.lock);
    struct allocation *a = find_locked(ptr, bytes);
    pthread_mutex_unlock(&mock.lock);
    return a ? (void *)(uintptr_t)ptr : NULL;
}

cu_result memory_charge(int device, size_t bytes)
{
    pthread_mutex_lock(&mock.lock);
    int fits = bytes <= mock.mem_limit - used[device];
    if (fits)
        used[device] += bytes;
    pthread_mutex_unlock(&mock.lock);
    return fits ? CU_OK : CU_ERR_OUT_OF_MEMORY;
}

void memory_refund(int device, size_t bytes)
{
    pthread_mutex_lock(&mock.lock);
    used[device] -= bytes;
    pthread_mutex_unlock(&mock.lock);
}

/* Device memory: pages of a memfd, which cuIpcGetMemHandle names to other
 * processes (they open it through /proc/PID/fd/FD). */
static void *shared_pages(size_t bytes, int *fd)
{
    *fd = memfd_create("mock-cuda-device-memory", MFD_CLOEXEC);
    if (*fd < 0)
        return NULL;
    void *p = ftruncate(*fd, (off_t)bytes) == 0 ? mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, *fd, 0)
                                               : MAP_FAILED;
    if (p == MAP_FAILED) {
        close(*fd);
        *fd = -1;
        return NULL;
    }
    return p;
}

static void shared_pages_free(void *host, size_t bytes, int fd)
{
    munmap(host, bytes);
    if (fd >= 0)
        close(fd);
}

cu_result memory_allocate(void **out, size_t bytes, int kind)
{
    struct CUctx_st *ctx;
    cu_result r = ctx_need_current(&ctx);
    if (r)
        return r;
    if (!out || bytes == 0)
        return CU_ERR_INVALID_VALUE;
    if (kind == DEVICE_MEMORY && (r = memory_charge(ctx->device, bytes)) != CU_OK)
        return r;
    struct allocation *a = calloc(1, sizeof *a);
    int fd = -1;
    void *host = kind == DEVICE_MEMORY ? shared_pages(bytes, &fd) : malloc(bytes);
    if (!a || !host) {
        free(a);
        if (kind == DEVICE_MEMORY && host)
            shared_pages_free(host, bytes, fd);
        else
            free(host);
        if (kind == DEVICE_MEMORY)
            memory_refund(ctx->device, bytes);
        return CU_ERR_OUT_OF_MEMORY;
    }
    if (kind != HOST_MEMORY)
        memset(host, 0xA5, bytes); /* device memory is not zeroed */
    a->host = host;
    a->bytes = bytes;
    a->kind = kind;
    a->fd = fd;
    a->prefetched = NOT_PREFETCHED;
    a->ctx = ctx;
    pthread_mutex_lock(&mock.lock);
    a->next = allocations;
    allocations = a;
    pthread_mutex_unlock(&mock.lock);
    *out = host;
    return CU_OK;
}

/* Frees an unlinked allocation; lock held. */
static void allocation_free_locked(struct allocation *a)
{
    if (a->kind == DEVICE_MEMORY)
        used[a->ctx->device] -= a->bytes;
    if (a->kind == POOL_MEMORY)
        pool_forget(a->ctx->device, a->bytes);
    if (a->kind == DEVICE_MEMORY || a->kind == IPC_MEMORY)
        shared_pages_free(a->host, a->bytes, a->fd);
    else if (a->kind != VMM_MEMORY)
        free(a->host);
    free(a);
}

cu_result memory_release(uintptr_t ptr, int kind, size_t *bytes, int *device)
{
    NEED_CONTEXT();
    struct allocation *found = NULL;
    pthread_mutex_lock(&mock.lock);
    MOCK_LIST_UNLINK_IF(struct allocation, allocations, a, !found && (uintptr_t)a->host == ptr && a->kind == kind,
                        found = a);
    if (found) {
        if (bytes)
            *bytes = found->bytes;
        if (device)
            *device = found->ctx->device;
        allocation_free_locked(found);
    }
    pthread_mutex_unlock(&mock.lock);
    return found ? CU_OK : CU_ERR_INVALID_VALUE;
}

cu_result memory_adopt(void *host, size_t bytes, int kind)
{
    struct CUctx_st *ctx;
    cu_result r = ctx_need_current(&ctx);
    if (r)
        return r;
    struct allocation *a = calloc(1, sizeof *a);
    if (!a)
        return CU_ERR_OUT_OF_MEMORY;
    a->host = host;
    a->bytes = bytes;
    a->kind = kind;
    a->fd = -1;
    a->prefetched = NOT_PREFETCHED;
    a->ctx = ctx;
    pthread_mutex_lock(&mock.lock);
    a->next = allocations;
    allocations = a;
    pthread_mutex_unlock(&mock.lock);
    return CU_OK;
}

int memory_shared_fd(uintptr_t ptr, size_t *bytes, int *device)
{
    int fd = -1;
    pthread_mutex_lock(&mock.lock);
    for (struct allocation *a = allocations; a; a = a->next)
        if ((uintptr_t)a->host == ptr && a->kind == DEVICE_MEMORY) {
            fd = a->fd;
            *bytes = a->bytes;
            *device = a->ctx->device;
        }
    pthread_mutex_unlock(&mock.lock);
    return fd;
}

void memory_release_context(const struct CUctx_st *ctx)
{
    pthread_mutex_lock(&mock.lock);
    MOCK_LIST_UNLINK_IF(struct allocation, allocations, a, a->ctx == ctx, allocation_free_locked(a));
    pthread_mutex_unlock(&mock.lock);
}

cu_result cuMemAlloc_v2(cu_deviceptr *ptr, size_t bytes)
{
    ENTER("cuMemAlloc_v2");
    cu_result r = capture_forbids();
    void *host = NULL;
    if (r == CU_OK)
        r = memory_allocate(&host, bytes, DEVICE_MEMORY);
    if (r == CU_OK)
        *ptr = (cu_deviceptr)(uintptr_t)host;
    return r;
}

cu_result cuMemFree_v2(cu_deviceptr ptr)
{
    ENTER("cuMemFree_v2");
    /* cuMemFree takes device and managed memory alike */
    cu_result r = memory_release((uintptr_t)ptr, DEVICE_MEMORY, NULL, NULL);
    return r == CU_ERR_INVALID_VALUE ? memory_release((uintptr_t)ptr, MANAGED_MEMORY, NULL, NULL) : r;
}

/* CU_MEMHOSTALLOC_PORTABLE, _DEVICEMAP, _WRITECOMBINED */
#define HOSTALLOC_FLAGS 0x7u

cu_result cuMemHostAlloc(void **ptr, size_t bytes, unsigned int flags)
{
    ENTER("cuMemHostAlloc");
    if (flags & ~HOSTALLOC_FLAGS)
        return CU_ERR_INVALID_VALUE;
    return memory_allocate(ptr, bytes, HOST_MEMORY);
}

cu_result cuMemFreeHost(void *ptr)
{
    ENTER("cuMemFreeHost");
    return memory_release((uintptr_t)ptr, HOST_MEMORY, NULL, NULL);
}

/* CU_MEM_ATTACH_GLOBAL or CU_MEM_ATTACH_HOST, as the driver requires */
cu_result cuMemAllocManaged(cu_deviceptr *ptr, size_t bytes, unsigned int flags)
{
    ENTER("cuMemAllocManaged");
    if (!ptr || (flags != 1 && flags != 2))
        return CU_ERR_INVALID_VALUE;
    void *host = NULL;
    cu_result r = memory_allocate(&host, bytes, MANAGED_MEMORY);
    if (r == CU_OK)
        *ptr = (cu_deviceptr)(uintptr_t)host;
    return r;
}

cu_result cuMemGetInfo_v2(size_t *free_bytes, size_t *total_bytes)
{
    ENTER("cuMemGetInfo_v2");
    struct CUctx_st *ctx;
    cu_result r = ctx_need_current(&ctx);
    if (r)
        return r;
    pthread_mutex_lock(&mock.lock);
    *total_bytes = mock.mem_limit;
    *free_bytes = mock.mem_limit - used[ctx->device];
    pthread_mutex_unlock(&mock.lock);
    return CU_OK;
}

/* A copy with each side in device (or pinned, unified) memory or in plain
 * host memory.  A copy between the memory of two devices works as with
 * unified addressing; it counts as going through peer access when either
 * side's context has enabled access to the other's. */
cu_result memory_copy(uintptr_t dst, int dst_device, uintptr_t src, int src_device, size_t bytes)
{
    NEED_CONTEXT();
    pthread_mutex_lock(&mock.lock);
    const struct allocation *d = dst_device ? find_locked(dst, bytes) : NULL;
    const struct allocation *s = src_device ? find_locked(src, bytes) : NULL;
    int ok = (!dst_device || d) && (!src_device || s) && dst && src;
    if (ok && d && s && d->kind == DEVICE_MEMORY && s->kind == DEVICE_MEMORY && d->ctx->device != s->ctx->device)
        cross_device_copies[ctx_peer_enabled_locked(d->ctx, s->ctx) || ctx_peer_enabled_locked(s->ctx, d->ctx)]++;
    pthread_mutex_unlock(&mock.lock);
    if (!ok)
        return CU_ERR_INVALID_VALUE;
    memmove((void *)dst, (const void *)src, bytes);
    return CU_OK;
}

/* A synchronous copy may not run while a capture forbids it. */
static cu_result copy_now(uintptr_t dst, int dst_device, uintptr_t src, int src_device, size_t bytes)
{
    cu_result r = capture_forbids();
    return r ? r : memory_copy(dst, dst_device, src, src_device, bytes);
}

static cu_result copy_async(uintptr_t dst, int dst_device, uintptr_t src, int src_device, size_t bytes, cu_stream s)
{
    cu_result r = stream_usable(s);
    if (r)
        return r;
    struct mock_op op = {.kind = OP_COPY, .copy = {dst, src, dst_device, src_device, bytes}};
    int recorded = 0;
    r = capture_record(s, &op, &recorded);
    return r || recorded ? r : memory_copy(dst, dst_device, src, src_device, bytes);
}

#define D(p) (uintptr_t)(p), 1
#define H(p) (uintptr_t)(p), 0
TWO_FLAVOURS(cuMemcpyHtoD_v2, cuMemcpyHtoD_v2_ptds, (cu_deviceptr dst, const void *src, size_t bytes),
             copy_now(D(dst), H(src), bytes))
TWO_FLAVOURS(cuMemcpyDtoH_v2, cuMemcpyDtoH_v2_ptds, (void *dst, cu_deviceptr src, size_t bytes),
             copy_now(H(dst), D(src), bytes))
TWO_FLAVOURS(cuMemcpyDtoD_v2, cuMemcpyDtoD_v2_ptds, (cu_deviceptr dst, cu_deviceptr src, size_t bytes),
             copy_now(D(dst), D(src), bytes))
TWO_FLAVOURS(cuMemcpyHtoDAsync_v2, cuMemcpyHtoDAsync_v2_ptsz,
             (cu_deviceptr dst, const void *src, size_t bytes, cu_stream s), copy_async(D(dst), H(src), bytes, s))
TWO_FLAVOURS(cuMemcpyDtoHAsync_v2, cuMemcpyDtoHAsync_v2_ptsz,
             (void *dst, cu_deviceptr src, size_t bytes, cu_stream s), copy_async(H(dst), D(src), bytes, s))
TWO_FLAVOURS(cuMemcpyDtoDAsync_v2, cuMemcpyDtoDAsync_v2_ptsz,
             (cu_deviceptr dst, cu_deviceptr src, size_t bytes, cu_stream s), copy_async(D(dst), D(src), bytes, s))

cu_result memory_fill(cu_deviceptr dst, unsigned int value, size_t width, size_t count)
{
    NEED_CONTEXT();
    unsigned char *p = memory_range(dst, width * count);
    if (!p)
        return CU_ERR_INVALID_VALUE;
    for (size_t i = 0; i < count; i++)
        memcpy(p + i * width, &value, width); /* little-endian host */
    return CU_OK;
}

static cu_result fill_now(cu_deviceptr dst, unsigned int value, size_t width, size_t count)
{
    cu_result r = capture_forbids();
    return r ? r : memory_fill(dst, value, width, count);
}

static cu_result fill_async(cu_deviceptr dst, unsigned int value, size_t count, cu_stream s)
{
    cu_result r = stream_usable(s);
    if (r)
        return r;
    struct mock_op op = {.kind = OP_FILL, .fill = {dst, value, 4, count}};
    int recorded = 0;
    r = capture_record(s, &op, &recorded);
    return r || recorded ? r : memory_fill(dst, value, 4, count);
}

TWO_FLAVOURS(cuMemsetD8_v2, cuMemsetD8_v2_ptds, (cu_deviceptr dst, unsigned char v, size_t n), fill_now(dst, v, 1, n))
TWO_FLAVOURS(cuMemsetD16_v2, cuMemsetD16_v2_ptds, (cu_deviceptr dst, unsigned short v, size_t n), fill_now(dst, v, 2, n))
TWO_FLAVOURS(cuMemsetD32_v2, cuMemsetD32_v2_ptds, (cu_deviceptr dst, unsigned int v, size_t n), fill_now(dst, v, 4, n))
TWO_FLAVOURS(cuMemsetD32Async, cuMemsetD32Async_ptsz, (cu_deviceptr dst, unsigned int v, size_t n, cu_stream s),
             fill_async(dst, v, n, s))

/* ----------------------------------------------------------- managed memory */

/* -1 (the host) or a device ordinal, from either ABI's way of saying it;
 * -3 for a location the driver would refuse. */
#define BAD_LOCATION (-3)

static int location_v1(cu_device dev)
{
    return dev == CU_DEVICE_HOST || (dev >= 0 && dev < mock.n_devices) ? dev : BAD_LOCATION;
}

static int location_v2(cu_mem_location loc)
{
    if (loc.type == CU_MEMLOC_HOST)
        return CU_DEVICE_HOST;
    if (loc.type == CU_MEMLOC_DEVICE && loc.id >= 0 && loc.id < mock.n_devices)
        return loc.id;
    return BAD_LOCATION;
}

/* The managed allocation holding [ptr, ptr+bytes); lock held. */
static struct allocation *managed_locked(cu_deviceptr ptr, size_t bytes)
{
    struct allocation *a = find_locked(ptr, bytes);
    return a && a->kind == MANAGED_MEMORY ? a : NULL;
}

/* Nothing moves on the host; the location is checked and remembered. */
static cu_result prefetch(cu_deviceptr ptr, size_t bytes, int location, unsigned int flags, cu_stream s)
{
    NEED_INIT();
    cu_result r = stream_usable(s);
    if (r)
        return r;
    if (stream_capturing(s))
        return mock_refuse("a prefetch in a stream capture");
    if (location == BAD_LOCATION || flags != 0 || bytes == 0)
        return CU_ERR_INVALID_VALUE;
    pthread_mutex_lock(&mock.lock);
    struct allocation *a = managed_locked(ptr, bytes);
    if (a)
        a->prefetched = location;
    pthread_mutex_unlock(&mock.lock);
    return a ? CU_OK : CU_ERR_INVALID_VALUE;
}

TWO_FLAVOURS(cuMemPrefetchAsync, cuMemPrefetchAsync_ptsz,
             (cu_deviceptr ptr, size_t bytes, cu_device dst, cu_stream s), prefetch(ptr, bytes, location_v1(dst), 0, s))
TWO_FLAVOURS(cuMemPrefetchAsync_v2, cuMemPrefetchAsync_v2_ptsz,
             (cu_deviceptr ptr, size_t bytes, cu_mem_location loc, unsigned int flags, cu_stream s),
             prefetch(ptr, bytes, location_v2(loc), flags, s))

/* CU_MEM_ADVISE_* 1..6; read-mostly advice ignores the location. */
static cu_result advise(cu_deviceptr ptr, size_t bytes, cu_enum advice, int location)
{
    NEED_INIT();
    if (advice < 1 || advice > 6 || bytes == 0 || (advice > 2 && location == BAD_LOCATION))
        return CU_ERR_INVALID_VALUE;
    pthread_mutex_lock(&mock.lock);
    int ok = managed_locked(ptr, bytes) != NULL;
    pthread_mutex_unlock(&mock.lock);
    return ok ? CU_OK : CU_ERR_INVALID_VALUE;
}

cu_result cuMemAdvise(cu_deviceptr ptr, size_t bytes, cu_enum advice, cu_device dev)
{
    ENTER("cuMemAdvise");
    return advise(ptr, bytes, advice, location_v1(dev));
}

cu_result cuMemAdvise_v2(cu_deviceptr ptr, size_t bytes, cu_enum advice, cu_mem_location loc)
{
    ENTER("cuMemAdvise_v2");
    return advise(ptr, bytes, advice, location_v2(loc));
}

/* --------------------------------------------------------- pointer queries */

/* CU_POINTER_ATTRIBUTE_* and CU_MEMORYTYPE_* (cuda.h) */
enum {
    PTR_CONTEXT = 1,
    PTR_MEMORY_TYPE = 2,
    PTR_DEVICE_POINTER = 3,
    PTR_HOST_POINTER = 4,
    PTR_IS_MANAGED = 8,
    PTR_DEVICE_ORDINAL = 9,
    PTR_RANGE_START_ADDR = 11,
    PTR_RANGE_SIZE = 12,
    MEMORYTYPE_HOST = 1,
    MEMORYTYPE_DEVICE = 2
};

/* One attribute of an allocation (or of no allocation: found NULL, the
 * zeros cuPointerGetAttributes gives), with the types cuda.h documents
 * (memory type and IS_MANAGED as unsigned int).  Managed memory reports
 * the device memory type, as a driver may. */
static cu_result attribute(void *data, cu_enum attr, cu_deviceptr ptr, const struct allocation *found)
{
    int host = found && found->kind == HOST_MEMORY;
    switch (attr) {
    case PTR_CONTEXT: *(cu_context *)data = found ? found->ctx : NULL; break;
    case PTR_MEMORY_TYPE: *(unsigned int *)data = !found ? 0 : host ? MEMORYTYPE_HOST : MEMORYTYPE_DEVICE; break;
    case PTR_DEVICE_POINTER: *(cu_deviceptr *)data = found ? ptr : 0; break;
    case PTR_HOST_POINTER:
        *(void **)data = host || (found && found->kind == MANAGED_MEMORY) ? (void *)(uintptr_t)ptr : NULL;
        break;
    case PTR_IS_MANAGED: *(unsigned int *)data = found && found->kind == MANAGED_MEMORY; break;
    case PTR_DEVICE_ORDINAL: *(int *)data = found ? found->ctx->device : -2; break;
    case PTR_RANGE_START_ADDR: *(cu_deviceptr *)data = found ? (cu_deviceptr)(uintptr_t)found->host : 0; break;
    case PTR_RANGE_SIZE: *(size_t *)data = found ? found->bytes : 0; break;
    default: return CU_ERR_INVALID_VALUE;
    }
    return CU_OK;
}

/* A copy of the allocation holding the byte at ptr; 0 if none (an
 * address just past one allocation is the start of the next, if any). */
static int lookup(cu_deviceptr ptr, struct allocation *copy)
{
    pthread_mutex_lock(&mock.lock);
    const struct allocation *a = find_locked(ptr, 1);
    if (a)
        *copy = *a;
    pthread_mutex_unlock(&mock.lock);
    return a != NULL;
}

/* Many attributes at once; memory the mock does not know gets zeros (and
 * device ordinal -2), not an error, as the driver documents. */
cu_result cuPointerGetAttributes(unsigned int count, cu_enum *attrs, void **data, cu_deviceptr ptr)
{
    ENTER("cuPointerGetAttributes");
    NEED_INIT();
    if (!attrs || !data)
        return CU_ERR_INVALID_VALUE;
    struct allocation found;
    int known = lookup(ptr, &found);
    for (unsigned int i = 0; i < count; i++) {
        cu_result r = data[i] ? attribute(data[i], attrs[i], ptr, known ? &found : NULL) : CU_ERR_INVALID_VALUE;
        if (r)
            return r;
    }
    return CU_OK;
}

/* --------------------------------------------------------------- inspection */

size_t mock_memory_in_use(void)
{
    size_t n = 0;
    pthread_mutex_lock(&mock.lock);
    for (int i = 0; i < MAX_DEVICES; i++)
        n += used[i];
    pthread_mutex_unlock(&mock.lock);
    return n;
}

long mock_cross_device_copies(int through_peer)
{
    pthread_mutex_lock(&mock.lock);
    long n = cross_device_copies[through_peer != 0];
    pthread_mutex_unlock(&mock.lock);
    return n;
}

/* The last prefetch location of the managed allocation holding ptr: a
 * device ordinal, -1 for the host, -2 if never prefetched, -3 if ptr is
 * not managed memory. */
int mock_managed_location(uintptr_t ptr)
{
    pthread_mutex_lock(&mock.lock);
    const struct allocation *a = managed_locked(ptr, 0);
    int where = a ? a->prefetched : BAD_LOCATION;
    pthread_mutex_unlock(&mock.lock);
    return where;
}
