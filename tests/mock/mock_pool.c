/*
 * mock_pool.c - each device's default memory pool and stream-ordered
 * allocation from it.  A pool holds (reserves) device memory, charged to
 * its device, and hands it out: an allocation that fits in what is held
 * and unused takes no new device memory; freed memory stays held.  At a
 * synchronisation (stream, event or context) a pool gives back what it
 * holds above max(used, release threshold), as the driver does, and
 * cuMemPoolTrimTo gives back down to what it is asked to keep.  Work runs
 * at submission, so "ordered on the stream" needs nothing more here.
 */
#include "config.h"

#include "mock.h"

struct CUmemPoolHandle_st {
    int device;
    cu_uint64 threshold;
    size_t reserved, reserved_high, in_use, in_use_high;
};

static struct CUmemPoolHandle_st pools[MAX_DEVICES];

/* The pool `p` if it is one of the devices' pools. */
static struct CUmemPoolHandle_st *pool_live(cu_mem_pool p)
{
    for (int d = 0; d < mock.n_devices; d++)
        if (p == &pools[d])
            return p;
    return NULL;
}

static size_t larger(size_t a, size_t b)
{
    return a > b ? a : b;
}

/* Gives back what the pool holds above `keep` (never what is in use);
 * lock held. */
static size_t shrink_locked(struct CUmemPoolHandle_st *p, size_t keep)
{
    size_t target = larger(p->in_use, keep);
    size_t freed = p->reserved > target ? p->reserved - target : 0;
    p->reserved -= freed;
    return freed;
}

static void shrink(struct CUmemPoolHandle_st *p, size_t keep)
{
    pthread_mutex_lock(&mock.lock);
    size_t freed = shrink_locked(p, keep);
    pthread_mutex_unlock(&mock.lock);
    if (freed)
        memory_refund(p->device, freed);
}

void pools_settle(void)
{
    for (int d = 0; d < mock.n_devices; d++) {
        size_t keep = pools[d].threshold > SIZE_MAX ? SIZE_MAX : (size_t)pools[d].threshold;
        shrink(&pools[d], keep);
    }
}

void pool_forget(int device, size_t bytes)
{
    pools[device].in_use -= bytes;
}

/* Takes `bytes` from the pool of the current context's device, holding
 * more device memory when what it holds does not suffice. */
static cu_result pool_take(int device, size_t bytes)
{
    struct CUmemPoolHandle_st *p = &pools[device];
    pthread_mutex_lock(&mock.lock);
    p->device = device;
    size_t spare = p->reserved - p->in_use;
    size_t grow = bytes > spare ? bytes - spare : 0;
    pthread_mutex_unlock(&mock.lock);
    cu_result r = grow ? memory_charge(device, grow) : CU_OK;
    if (r)
        return r;
    pthread_mutex_lock(&mock.lock);
    p->reserved += grow;
    p->in_use += bytes;
    p->reserved_high = larger(p->reserved_high, p->reserved);
    p->in_use_high = larger(p->in_use_high, p->in_use);
    pthread_mutex_unlock(&mock.lock);
    return CU_OK;
}

static cu_result alloc_async(cu_deviceptr *ptr, size_t bytes, cu_stream s)
{
    struct CUctx_st *ctx;
    cu_result r = ctx_need_current(&ctx);
    if (r)
        return r;
    if ((r = stream_usable(s)) != CU_OK)
        return r;
    if (!ptr || bytes == 0)
        return CU_ERR_INVALID_VALUE;
    if (stream_capturing(s))
        return mock_refuse("a memory allocation node (cuMemAllocAsync in a stream capture)");
    if ((r = pool_take(ctx->device, bytes)) != CU_OK)
        return r;
    void *host = NULL;
    r = memory_allocate(&host, bytes, POOL_MEMORY);
    if (r) {
        pthread_mutex_lock(&mock.lock);
        pool_forget(ctx->device, bytes);
        pthread_mutex_unlock(&mock.lock);
        return r;
    }
    *ptr = (cu_deviceptr)(uintptr_t)host;
    return CU_OK;
}

static cu_result free_async(cu_deviceptr ptr, cu_stream s)
{
    cu_result r = stream_usable(s);
    if (r)
        return r;
    if (stream_capturing(s))
        return mock_refuse("a memory free node (cuMemFreeAsync in a stream capture)");
    return memory_release((uintptr_t)ptr, POOL_MEMORY, NULL, NULL);
}

TWO_FLAVOURS(cuMemAllocAsync, cuMemAllocAsync_ptsz, (cu_deviceptr *ptr, size_t bytes, cu_stream s),
             alloc_async(ptr, bytes, s))
TWO_FLAVOURS(cuMemFreeAsync, cuMemFreeAsync_ptsz, (cu_deviceptr ptr, cu_stream s), free_async(ptr, s))

cu_result cuDeviceGetDefaultMemPool(cu_mem_pool *pool, cu_device dev)
{
    ENTER("cuDeviceGetDefaultMemPool");
    CHECK_DEVICE(dev);
    if (!pool)
        return CU_ERR_INVALID_VALUE;
    pools[dev].device = dev;
    *pool = &pools[dev];
    return CU_OK;
}

/* CU_MEMPOOL_ATTR_*: the three reuse policies (1-3, ints) are accepted
 * and change nothing; the byte counts are cuuint64_t, the high-water
 * marks may only be reset to 0. */
cu_result cuMemPoolSetAttribute(cu_mem_pool pool, cu_enum attr, void *value)
{
    ENTER("cuMemPoolSetAttribute");
    NEED_INIT();
    struct CUmemPoolHandle_st *p = pool_live(pool);
    if (!p || !value)
        return CU_ERR_INVALID_VALUE;
    cu_uint64 v = attr >= CU_MEMPOOL_RELEASE_THRESHOLD ? *(const cu_uint64 *)value : 0;
    pthread_mutex_lock(&mock.lock);
    cu_result r = CU_OK;
    switch (attr) {
    case 1: case 2: case 3: break;
    case CU_MEMPOOL_RELEASE_THRESHOLD: p->threshold = v; break;
    case CU_MEMPOOL_RESERVED_MEM_HIGH:
        r = v ? CU_ERR_INVALID_VALUE : CU_OK;
        p->reserved_high = r ? p->reserved_high : p->reserved;
        break;
    case CU_MEMPOOL_USED_MEM_HIGH:
        r = v ? CU_ERR_INVALID_VALUE : CU_OK;
        p->in_use_high = r ? p->in_use_high : p->in_use;
        break;
    default: r = CU_ERR_INVALID_VALUE;
    }
    pthread_mutex_unlock(&mock.lock);
    return r;
}

cu_result cuMemPoolGetAttribute(cu_mem_pool pool, cu_enum attr, void *value)
{
    ENTER("cuMemPoolGetAttribute");
    NEED_INIT();
    struct CUmemPoolHandle_st *p = pool_live(pool);
    if (!p || !value)
        return CU_ERR_INVALID_VALUE;
    pthread_mutex_lock(&mock.lock);
    cu_result r = CU_OK;
    cu_uint64 *out = value;
    switch (attr) {
    case 1: case 2: case 3: *(int *)value = 1; break;
    case CU_MEMPOOL_RELEASE_THRESHOLD: *out = p->threshold; break;
    case CU_MEMPOOL_RESERVED_MEM_CURRENT: *out = p->reserved; break;
    case CU_MEMPOOL_RESERVED_MEM_HIGH: *out = p->reserved_high; break;
    case CU_MEMPOOL_USED_MEM_CURRENT: *out = p->in_use; break;
    case CU_MEMPOOL_USED_MEM_HIGH: *out = p->in_use_high; break;
    default: r = CU_ERR_INVALID_VALUE;
    }
    pthread_mutex_unlock(&mock.lock);
    return r;
}

cu_result cuMemPoolTrimTo(cu_mem_pool pool, size_t keep)
{
    ENTER("cuMemPoolTrimTo");
    NEED_INIT();
    struct CUmemPoolHandle_st *p = pool_live(pool);
    if (!p)
        return CU_ERR_INVALID_VALUE;
    shrink(p, keep);
    return CU_OK;
}
