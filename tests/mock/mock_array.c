/*
 * mock_array.c - CUDA arrays kept in host memory with their extents
 * (charged to their device's memory), pitched allocation, and 2D / 3D
 * copies between host memory, device memory and arrays, checked as the
 * driver checks them: each side's box must lie inside its memory.
 * Arrays of the flags the mock does not emulate (cubemaps, sparse, depth
 * textures ...) are refused.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "mock.h"

struct CUarray_st {
    struct CUctx_st *ctx;
    cu_array3d_desc desc;
    struct mock_array_view view;
    size_t bytes;
    struct CUarray_st *next;
};

static struct CUarray_st *arrays;

/* Flags the mock emulates: CUDA_ARRAY3D_LAYERED, _SURFACE_LDST, _TEXTURE_GATHER. */
#define EMULATED_FLAGS (CU_ARRAYFLAG_LAYERED | CU_ARRAYFLAG_SURFACE_LDST | CU_ARRAYFLAG_TEXTURE_GATHER)

static size_t at_least_one(size_t n)
{
    return n ? n : 1;
}

/* The live array a; lock held. */
static struct CUarray_st *array_live_locked(cu_array a)
{
    for (struct CUarray_st *x = arrays; x; x = x->next)
        if (x == a)
            return x;
    return NULL;
}

int array_view(cu_array a, struct mock_array_view *out)
{
    struct CUctx_st *ctx = ctx_current();
    pthread_mutex_lock(&mock.lock);
    const struct CUarray_st *x = array_live_locked(a);
    int ok = x && x->ctx == ctx;
    if (ok)
        *out = x->view;
    pthread_mutex_unlock(&mock.lock);
    return ok;
}

static cu_result check_descriptor(const cu_array3d_desc *d)
{
    if (!mock_format_bytes(d->Format) || (d->NumChannels != 1 && d->NumChannels != 2 && d->NumChannels != 4) ||
        d->Width == 0)
        return CU_ERR_INVALID_VALUE;
    if (d->Flags & ~EMULATED_FLAGS)
        return mock_refuse("arrays with flags 0x%x", d->Flags & ~EMULATED_FLAGS);
    int layered = d->Flags & CU_ARRAYFLAG_LAYERED;
    if ((layered && d->Depth == 0) || (!layered && d->Depth && !d->Height))
        return CU_ERR_INVALID_VALUE;
    return CU_OK;
}

cu_result cuArray3DCreate_v2(cu_array *out, const cu_array3d_desc *d)
{
    ENTER("cuArray3DCreate_v2");
    struct CUctx_st *ctx;
    cu_result r = ctx_need_current(&ctx);
    if (r)
        return r;
    if (!out || !d)
        return CU_ERR_INVALID_VALUE;
    if ((r = check_descriptor(d)) != CU_OK)
        return r;
    struct mock_array_view v = {NULL, d->NumChannels * mock_format_bytes(d->Format), d->Width, at_least_one(d->Height),
                                at_least_one(d->Depth), d->Format, d->NumChannels, d->Flags};
    size_t bytes = v.element * v.width * v.height * v.depth;
    if ((r = memory_charge(ctx->device, bytes)) != CU_OK)
        return r;
    struct CUarray_st *a = calloc(1, sizeof *a);
    v.data = malloc(bytes);
    if (!a || !v.data) {
        free(a);
        free(v.data);
        memory_refund(ctx->device, bytes);
        return CU_ERR_OUT_OF_MEMORY;
    }
    memset(v.data, 0xA5, bytes); /* not zeroed, as device memory */
    a->ctx = ctx;
    a->desc = *d;
    a->view = v;
    a->bytes = bytes;
    pthread_mutex_lock(&mock.lock);
    a->next = arrays;
    arrays = a;
    pthread_mutex_unlock(&mock.lock);
    *out = a;
    return CU_OK;
}

cu_result cuArray3DGetDescriptor_v2(cu_array3d_desc *d, cu_array a)
{
    ENTER("cuArray3DGetDescriptor_v2");
    NEED_CONTEXT();
    if (!d)
        return CU_ERR_INVALID_VALUE;
    pthread_mutex_lock(&mock.lock);
    const struct CUarray_st *x = array_live_locked(a);
    if (x)
        *d = x->desc;
    pthread_mutex_unlock(&mock.lock);
    return x ? CU_OK : CU_ERR_INVALID_HANDLE;
}

static void array_free(struct CUarray_st *a)
{
    memory_refund(a->ctx->device, a->bytes);
    free(a->view.data);
    free(a);
}

cu_result cuArrayDestroy(cu_array a)
{
    ENTER("cuArrayDestroy");
    NEED_CONTEXT();
    struct CUarray_st *found = NULL;
    pthread_mutex_lock(&mock.lock);
    MOCK_LIST_UNLINK_IF(struct CUarray_st, arrays, x, !found && x == a, found = x);
    pthread_mutex_unlock(&mock.lock);
    if (!found)
        return CU_ERR_INVALID_HANDLE;
    array_free(found);
    return CU_OK;
}

void arrays_release_context(const struct CUctx_st *ctx)
{
    struct CUarray_st *gone = NULL;
    pthread_mutex_lock(&mock.lock);
    MOCK_LIST_UNLINK_IF(struct CUarray_st, arrays, a, a->ctx == ctx, (a->next = gone, gone = a));
    pthread_mutex_unlock(&mock.lock);
    while (gone) {
        struct CUarray_st *next = gone->next;
        array_free(gone);
        gone = next;
    }
}

int mock_arrays_alive(void)
{
    int n = 0;
    pthread_mutex_lock(&mock.lock);
    for (const struct CUarray_st *a = arrays; a; a = a->next)
        n++;
    pthread_mutex_unlock(&mock.lock);
    return n;
}

/* ------------------------------------------------------------ pitched memory */

cu_result cuMemAllocPitch_v2(cu_deviceptr *ptr, size_t *pitch, size_t width, size_t height, unsigned int element)
{
    ENTER("cuMemAllocPitch_v2");
    if (!ptr || !pitch || !width || !height || (element != 4 && element != 8 && element != 16))
        return CU_ERR_INVALID_VALUE;
    cu_result r = capture_forbids();
    if (r)
        return r;
    size_t rows = (width + MOCK_PITCH_ALIGNMENT - 1) / MOCK_PITCH_ALIGNMENT * MOCK_PITCH_ALIGNMENT;
    void *host = NULL;
    r = memory_allocate(&host, rows * height, DEVICE_MEMORY);
    if (r)
        return r;
    *ptr = (cu_deviceptr)(uintptr_t)host;
    *pitch = rows;
    return CU_OK;
}

/* ---------------------------------------------------------- 2D and 3D copies */

/* One side of a copy resolved to host addresses: where its box starts and
 * how rows and slices follow each other. */
struct side {
    unsigned char *base;
    size_t pitch, slice;
};

/* Resolves a side (type, pointers, offsets, pitch, rows) for a box of
 * width x height x depth; INVALID_VALUE where the driver would refuse it. */
static cu_result resolve(cu_enum type, const void *host, cu_deviceptr device, cu_array array, size_t x, size_t y,
                         size_t z, size_t pitch, size_t rows, const cu_memcpy3d *c, struct side *out)
{
    size_t w = c->WidthInBytes, h = at_least_one(c->Height), d = at_least_one(c->Depth);
    if (type == CU_MEMTYPE_ARRAY) {
        struct mock_array_view v;
        if (!array_view(array, &v))
            return CU_ERR_INVALID_VALUE;
        size_t row = v.element * v.width;
        if (x % v.element || x > row || w > row - x || y > v.height || h > v.height - y || z > v.depth ||
            d > v.depth - z)
            return CU_ERR_INVALID_VALUE;
        out->pitch = row;
        out->slice = row * v.height;
        out->base = v.data + z * out->slice + y * row + x;
        return CU_OK;
    }
    if (type != CU_MEMTYPE_HOST && type != CU_MEMTYPE_DEVICE)
        return type == 4 ? mock_refuse("copies of CU_MEMORYTYPE_UNIFIED") : CU_ERR_INVALID_VALUE;
    if (pitch < x || w > pitch - x || (d > 1 && (rows < y || h > rows - y)))
        return CU_ERR_INVALID_VALUE;
    out->pitch = pitch;
    out->slice = pitch * rows;
    size_t start = z * out->slice + y * pitch + x, span = (d - 1) * out->slice + (h - 1) * pitch + w;
    if (type == CU_MEMTYPE_HOST) {
        if (!host)
            return CU_ERR_INVALID_VALUE;
        out->base = (unsigned char *)host + start; /* host memory: the driver cannot check it either */
        return CU_OK;
    }
    out->base = memory_range(device + start, span);
    return out->base ? CU_OK : CU_ERR_INVALID_VALUE;
}

cu_result copy3d_run(const cu_memcpy3d *c)
{
    NEED_CONTEXT();
    if (!c || !c->WidthInBytes || c->srcLOD || c->dstLOD || c->reserved0 || c->reserved1)
        return CU_ERR_INVALID_VALUE;
    struct side s, d;
    cu_result r = resolve(c->srcMemoryType, c->srcHost, c->srcDevice, c->srcArray, c->srcXInBytes, c->srcY, c->srcZ,
                          c->srcPitch, c->srcHeight, c, &s);
    if (!r)
        r = resolve(c->dstMemoryType, c->dstHost, c->dstDevice, c->dstArray, c->dstXInBytes, c->dstY, c->dstZ,
                    c->dstPitch, c->dstHeight, c, &d);
    if (r)
        return r;
    for (size_t k = 0; k < at_least_one(c->Depth); k++)
        for (size_t j = 0; j < at_least_one(c->Height); j++)
            memmove(d.base + k * d.slice + j * d.pitch, s.base + k * s.slice + j * s.pitch, c->WidthInBytes);
    return CU_OK;
}

/* A 2D copy is a 3D copy of one slice. */
static cu_memcpy3d from_2d(const cu_memcpy2d *c)
{
    cu_memcpy3d m = {
        .srcXInBytes = c->srcXInBytes, .srcY = c->srcY, .srcMemoryType = c->srcMemoryType, .srcHost = c->srcHost,
        .srcDevice = c->srcDevice, .srcArray = c->srcArray, .srcPitch = c->srcPitch, .srcHeight = c->Height,
        .dstXInBytes = c->dstXInBytes, .dstY = c->dstY, .dstMemoryType = c->dstMemoryType, .dstHost = c->dstHost,
        .dstDevice = c->dstDevice, .dstArray = c->dstArray, .dstPitch = c->dstPitch, .dstHeight = c->Height,
        .WidthInBytes = c->WidthInBytes, .Height = c->Height, .Depth = 1,
    };
    return m;
}

static cu_result copy3d_now(const cu_memcpy3d *c)
{
    cu_result r = capture_forbids();
    return r ? r : copy3d_run(c);
}

static cu_result copy3d_async(const cu_memcpy3d *c, cu_stream s)
{
    cu_result r = stream_usable(s);
    if (r)
        return r;
    if (!c)
        return CU_ERR_INVALID_VALUE;
    struct mock_op op = {.kind = OP_COPY3D, .copy3d = *c};
    int recorded = 0;
    r = capture_record(s, &op, &recorded);
    return r || recorded ? r : copy3d_run(c);
}

static cu_result copy2d_now(const cu_memcpy2d *c)
{
    if (!c)
        return CU_ERR_INVALID_VALUE;
    cu_memcpy3d m = from_2d(c);
    return copy3d_now(&m);
}

static cu_result copy2d_async(const cu_memcpy2d *c, cu_stream s)
{
    if (!c)
        return CU_ERR_INVALID_VALUE;
    cu_memcpy3d m = from_2d(c);
    return copy3d_async(&m, s);
}

TWO_FLAVOURS(cuMemcpy3D_v2, cuMemcpy3D_v2_ptds, (const cu_memcpy3d *c), copy3d_now(c))
TWO_FLAVOURS(cuMemcpy3DAsync_v2, cuMemcpy3DAsync_v2_ptsz, (const cu_memcpy3d *c, cu_stream s), copy3d_async(c, s))
TWO_FLAVOURS(cuMemcpy2D_v2, cuMemcpy2D_v2_ptds, (const cu_memcpy2d *c), copy2d_now(c))
TWO_FLAVOURS(cuMemcpy2DAsync_v2, cuMemcpy2DAsync_v2_ptsz, (const cu_memcpy2d *c, cu_stream s), copy2d_async(c, s))
