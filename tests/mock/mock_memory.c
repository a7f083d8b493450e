/*
 * mock_memory.c - device and pinned host memory (kept in host memory, at
 * the addresses handed out: one unified address space), copies, memsets,
 * pointer attributes, and the count of copies between devices.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "mock.h"

enum { DEVICE_MEMORY, HOST_MEMORY };

struct allocation {
    void *host;
    size_t bytes;
    int kind;
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

static cu_result allocate(void **out, size_t bytes, int kind)
{
    struct CUctx_st *ctx;
    cu_result r = ctx_need_current(&ctx);
    if (r)
        return r;
    if (!out || bytes == 0)
        return CU_ERR_INVALID_VALUE;
    if (kind == DEVICE_MEMORY) {
        pthread_mutex_lock(&mock.lock);
        int fits = bytes <= mock.mem_limit - used[ctx->device];
        pthread_mutex_unlock(&mock.lock);
        if (!fits)
            return CU_ERR_OUT_OF_MEMORY;
    }
    struct allocation *a = calloc(1, sizeof *a);
    void *host = malloc(bytes);
    if (!a || !host) {
        free(a);
        free(host);
        return CU_ERR_OUT_OF_MEMORY;
    }
    if (kind == DEVICE_MEMORY)
        memset(host, 0xA5, bytes); /* device memory is not zeroed */
    a->host = host;
    a->bytes = bytes;
    a->kind = kind;
    a->ctx = ctx;
    pthread_mutex_lock(&mock.lock);
    a->next = allocations;
    allocations = a;
    if (kind == DEVICE_MEMORY)
        used[ctx->device] += bytes;
    pthread_mutex_unlock(&mock.lock);
    *out = host;
    return CU_OK;
}

/* Unlinks and frees the allocation *link; lock held. */
static void unlink_locked(struct allocation **link)
{
    struct allocation *a = *link;
    *link = a->next;
    if (a->kind == DEVICE_MEMORY)
        used[a->ctx->device] -= a->bytes;
    free(a->host);
    free(a);
}

/* Frees the allocation of this kind that starts at ptr. */
static cu_result release(uintptr_t ptr, int kind)
{
    NEED_CONTEXT();
    cu_result r = CU_ERR_INVALID_VALUE;
    pthread_mutex_lock(&mock.lock);
    for (struct allocation **link = &allocations; *link; link = &(*link)->next)
        if ((uintptr_t)(*link)->host == ptr && (*link)->kind == kind) {
            unlink_locked(link);
            r = CU_OK;
            break;
        }
    pthread_mutex_unlock(&mock.lock);
    return r;
}

void memory_release_context(const struct CUctx_st *ctx)
{
    pthread_mutex_lock(&mock.lock);
    struct allocation **link = &allocations;
    while (*link)
        if ((*link)->ctx == ctx)
            unlink_locked(link);
        else
            link = &(*link)->next;
    pthread_mutex_unlock(&mock.lock);
}

cu_result cuMemAlloc_v2(cu_deviceptr *ptr, size_t bytes)
{
    ENTER("cuMemAlloc_v2");
    void *host = NULL;
    cu_result r = allocate(&host, bytes, DEVICE_MEMORY);
    if (r == CU_OK)
        *ptr = (cu_deviceptr)(uintptr_t)host;
    return r;
}

cu_result cuMemFree_v2(cu_deviceptr ptr)
{
    ENTER("cuMemFree_v2");
    return release((uintptr_t)ptr, DEVICE_MEMORY);
}

/* CU_MEMHOSTALLOC_PORTABLE, _DEVICEMAP, _WRITECOMBINED */
#define HOSTALLOC_FLAGS 0x7u

cu_result cuMemHostAlloc(void **ptr, size_t bytes, unsigned int flags)
{
    ENTER("cuMemHostAlloc");
    if (flags & ~HOSTALLOC_FLAGS)
        return CU_ERR_INVALID_VALUE;
    return allocate(ptr, bytes, HOST_MEMORY);
}

cu_result cuMemFreeHost(void *ptr)
{
    ENTER("cuMemFreeHost");
    return release((uintptr_t)ptr, HOST_MEMORY);
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
static cu_result copy(uintptr_t dst, int dst_device, uintptr_t src, int src_device, size_t bytes)
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

static cu_result copy_async(uintptr_t dst, int dst_device, uintptr_t src, int src_device, size_t bytes, cu_stream s)
{
    cu_result r = stream_usable(s);
    return r ? r : copy(dst, dst_device, src, src_device, bytes);
}

#define D(p) (uintptr_t)(p), 1
#define H(p) (uintptr_t)(p), 0
TWO_FLAVOURS(cuMemcpyHtoD_v2, cuMemcpyHtoD_v2_ptds, (cu_deviceptr dst, const void *src, size_t bytes),
             copy(D(dst), H(src), bytes))
TWO_FLAVOURS(cuMemcpyDtoH_v2, cuMemcpyDtoH_v2_ptds, (void *dst, cu_deviceptr src, size_t bytes),
             copy(H(dst), D(src), bytes))
TWO_FLAVOURS(cuMemcpyDtoD_v2, cuMemcpyDtoD_v2_ptds, (cu_deviceptr dst, cu_deviceptr src, size_t bytes),
             copy(D(dst), D(src), bytes))
TWO_FLAVOURS(cuMemcpyHtoDAsync_v2, cuMemcpyHtoDAsync_v2_ptsz,
             (cu_deviceptr dst, const void *src, size_t bytes, cu_stream s), copy_async(D(dst), H(src), bytes, s))
TWO_FLAVOURS(cuMemcpyDtoHAsync_v2, cuMemcpyDtoHAsync_v2_ptsz,
             (void *dst, cu_deviceptr src, size_t bytes, cu_stream s), copy_async(H(dst), D(src), bytes, s))
TWO_FLAVOURS(cuMemcpyDtoDAsync_v2, cuMemcpyDtoDAsync_v2_ptsz,
             (cu_deviceptr dst, cu_deviceptr src, size_t bytes, cu_stream s), copy_async(D(dst), D(src), bytes, s))

static cu_result fill(cu_deviceptr dst, unsigned int value, size_t width, size_t count)
{
    NEED_CONTEXT();
    unsigned char *p = memory_range(dst, width * count);
    if (!p)
        return CU_ERR_INVALID_VALUE;
    for (size_t i = 0; i < count; i++)
        memcpy(p + i * width, &value, width); /* little-endian host */
    return CU_OK;
}

static cu_result fill_async(cu_deviceptr dst, unsigned int value, size_t count, cu_stream s)
{
    cu_result r = stream_usable(s);
    return r ? r : fill(dst, value, 4, count);
}

TWO_FLAVOURS(cuMemsetD8_v2, cuMemsetD8_v2_ptds, (cu_deviceptr dst, unsigned char v, size_t n), fill(dst, v, 1, n))
TWO_FLAVOURS(cuMemsetD16_v2, cuMemsetD16_v2_ptds, (cu_deviceptr dst, unsigned short v, size_t n), fill(dst, v, 2, n))
TWO_FLAVOURS(cuMemsetD32_v2, cuMemsetD32_v2_ptds, (cu_deviceptr dst, unsigned int v, size_t n), fill(dst, v, 4, n))
TWO_FLAVOURS(cuMemsetD32Async, cuMemsetD32Async_ptsz, (cu_deviceptr dst, unsigned int v, size_t n, cu_stream s),
             fill_async(dst, v, n, s))

/* Hints about managed memory; nothing moves on the host. */
TWO_FLAVOURS(cuMemPrefetchAsync, cuMemPrefetchAsync_ptsz,
             (cu_deviceptr ptr, size_t bytes, cu_device dst, cu_stream s),
             ((void)ptr, (void)bytes, (void)dst, (void)s, CU_OK))
TWO_FLAVOURS(cuMemPrefetchAsync_v2, cuMemPrefetchAsync_v2_ptsz,
             (cu_deviceptr ptr, size_t bytes, cu_mem_location loc, unsigned int flags, cu_stream s),
             ((void)ptr, (void)bytes, (void)loc, (void)flags, (void)s, CU_OK))

cu_result cuMemAdvise(cu_deviceptr ptr, size_t bytes, cu_enum advice, cu_device dev)
{
    ENTER("cuMemAdvise");
    (void)ptr, (void)bytes, (void)advice, (void)dev;
    return CU_OK;
}

cu_result cuMemAdvise_v2(cu_deviceptr ptr, size_t bytes, cu_enum advice, cu_mem_location loc)
{
    ENTER("cuMemAdvise_v2");
    (void)ptr, (void)bytes, (void)advice, (void)loc;
    return CU_OK;
}

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

/* Answers for mock allocations, with the types cuda.h documents (memory
 * type and IS_MANAGED as unsigned int); any other pointer or attribute is
 * CUDA_ERROR_INVALID_VALUE. */
cu_result cuPointerGetAttribute(void *data, cu_enum attribute, cu_deviceptr ptr)
{
    ENTER("cuPointerGetAttribute");
    NEED_INIT();
    if (!data)
        return CU_ERR_INVALID_VALUE;
    if (attribute == PTR_DEVICE_POINTER)
        NEED_CONTEXT();
    pthread_mutex_lock(&mock.lock);
    const struct allocation *a = find_locked(ptr, 0);
    struct allocation found = a ? *a : (struct allocation){0};
    pthread_mutex_unlock(&mock.lock);
    if (!a)
        return CU_ERR_INVALID_VALUE;
    switch (attribute) {
    case PTR_CONTEXT: *(cu_context *)data = found.ctx; break;
    case PTR_MEMORY_TYPE:
        *(unsigned int *)data = found.kind == DEVICE_MEMORY ? MEMORYTYPE_DEVICE : MEMORYTYPE_HOST;
        break;
    case PTR_DEVICE_POINTER: *(cu_deviceptr *)data = ptr; break;
    case PTR_HOST_POINTER:
        if (found.kind != HOST_MEMORY)
            return CU_ERR_INVALID_VALUE; /* device memory has no host address */
        *(void **)data = (void *)(uintptr_t)ptr;
        break;
    case PTR_IS_MANAGED: *(unsigned int *)data = 0; break;
    case PTR_DEVICE_ORDINAL: *(int *)data = found.ctx->device; break;
    case PTR_RANGE_START_ADDR: *(cu_deviceptr *)data = (cu_deviceptr)(uintptr_t)found.host; break;
    case PTR_RANGE_SIZE: *(size_t *)data = found.bytes; break;
    default: return CU_ERR_INVALID_VALUE;
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
