/*
 * copy.c - pitched allocation and 2D / 3D copies between host memory,
 * device memory and arrays, described by cudyn's struct cudyn_copy and
 * handed to cuMemcpy2D / cuMemcpy3D.  Each side is checked before the
 * driver sees it, so a wrong pitch or a missing pointer is named.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>

#include "api/api.h"
#include "api/array.h"

static size_t at_least_one(size_t n)
{
    return n ? n : 1;
}

/* a + b <= limit, without overflow. */
static bool fits(size_t a, size_t b, size_t limit)
{
    return a <= limit && b <= limit - a;
}

/* Checks one side; fills in the pitch and rows a 0 stands for. */
static int check_side(const char *api, const char *side, const struct cudyn_copy_side *s, const struct cudyn_copy *c,
                      bool three_d, size_t *pitch, size_t *rows)
{
    char arg[32];
    size_t height = at_least_one(c->height);
    *pitch = s->pitch ? s->pitch : c->width_bytes;
    *rows = s->rows ? s->rows : height;
#define ARG(field) (snprintf(arg, sizeof arg, "copy->%s.%s", side, field), arg)
    switch (s->kind) {
    case CUDYN_COPY_HOST:
        if (!s->host)
            return cudyn__fail_arg(api, ARG("host"), "must not be NULL");
        break;
    case CUDYN_COPY_DEVICE:
        if (!s->device)
            return cudyn__fail_arg(api, ARG("device"), "must not be 0");
        break;
    case CUDYN_COPY_ARRAY:
        if (!s->array)
            return cudyn__fail_arg(api, ARG("array"), "must not be NULL");
        break;
    default:
        return cudyn__fail_arg(api, ARG("kind"), "must be CUDYN_COPY_HOST, CUDYN_COPY_DEVICE or CUDYN_COPY_ARRAY");
    }
    if (!three_d && s->z)
        return cudyn__fail_arg(api, ARG("z"), "must be 0 for a 2D copy (use cudyn_memcpy_3d)");
    if (s->kind == CUDYN_COPY_ARRAY) /* the driver knows the array's extent */
        return CUDYN_OK;
    if (!fits(s->x_bytes, c->width_bytes, *pitch))
        return cudyn__fail(CUDYN_ERROR_INVALID_ARGUMENT, CUDYN_ORIGIN_LIBRARY, 0, NULL, api, NULL,
                           "%s: argument 'copy->%s.pitch' is %zu bytes, less than x_bytes + width_bytes (%zu + %zu)",
                           api, side, *pitch, s->x_bytes, c->width_bytes);
    if (three_d && at_least_one(c->depth) > 1 && !fits(s->y, height, *rows))
        return cudyn__fail(CUDYN_ERROR_INVALID_ARGUMENT, CUDYN_ORIGIN_LIBRARY, 0, NULL, api, NULL,
                           "%s: argument 'copy->%s.rows' is %zu, less than y + height (%zu + %zu)", api, side,
                           *rows, s->y, height);
#undef ARG
    return CUDYN_OK;
}

/* The checks both copies share; CUDYN_OK and each side's pitch and rows. */
static int check_copy(const char *api, const struct cudyn_copy *c, bool three_d, size_t pitch[2], size_t rows[2])
{
    if (!c)
        return cudyn__fail_arg(api, "copy", "must not be NULL");
    if (c->size < sizeof *c)
        return cudyn__fail_arg(api, "copy->size", "must be set to sizeof(struct cudyn_copy)");
    if (c->width_bytes == 0)
        return cudyn__fail_arg(api, "copy->width_bytes", "must be greater than 0");
    if (!three_d && c->depth > 1)
        return cudyn__fail_arg(api, "copy->depth", "must be 0 or 1 for a 2D copy (use cudyn_memcpy_3d)");
    int st = check_side(api, "src", &c->src, c, three_d, &pitch[0], &rows[0]);
    if (st == CUDYN_OK)
        st = check_side(api, "dst", &c->dst, c, three_d, &pitch[1], &rows[1]);
    return st;
}

static const char *kind_name(int kind)
{
    return kind == CUDYN_COPY_HOST ? "host memory" : kind == CUDYN_COPY_DEVICE ? "device memory" : "an array";
}

/* What a failed copy was, after the driver's reason. */
static int copy_failed(cu_result r, const char *cufn, const char *api, const struct cudyn_copy *c)
{
    int st = cudyn__fail_driver(r, cufn, api);
    cudyn__error_append(" (%zu x %zu x %zu bytes from %s to %s)", c->width_bytes, at_least_one(c->height),
                        at_least_one(c->depth), kind_name(c->src.kind), kind_name(c->dst.kind));
    return st;
}

static int memcpy_2d(const char *api, const struct cudyn_copy *c, cudyn_stream stream, bool async)
{
    size_t pitch[2], rows[2];
    int st = check_copy(api, c, false, pitch, rows);
    if (st == CUDYN_OK)
        st = cudyn__need_context(api);
    if (st != CUDYN_OK)
        return st;
    const struct cudyn_copy_side *s = &c->src, *d = &c->dst;
    cu_memcpy2d m = {
        .srcXInBytes = s->x_bytes, .srcY = s->y, .srcMemoryType = (cu_enum)s->kind, .srcHost = s->host,
        .srcDevice = s->device, .srcArray = (cu_array)(void *)s->array, .srcPitch = pitch[0],
        .dstXInBytes = d->x_bytes, .dstY = d->y, .dstMemoryType = (cu_enum)d->kind, .dstHost = d->host,
        .dstDevice = d->device, .dstArray = (cu_array)(void *)d->array, .dstPitch = pitch[1],
        .WidthInBytes = c->width_bytes, .Height = at_least_one(c->height),
    };
    cu_result r;
    if (async)
        CUDYN_DRIVER_CALL(r, cudyn__drv.cuMemcpy2DAsync_v2(&m, CU_STREAM(stream)), api);
    else
        CUDYN_DRIVER_CALL(r, cudyn__drv.cuMemcpy2D_v2(&m), api);
    return r == CU_OK ? CUDYN_OK : copy_failed(r, async ? "cuMemcpy2DAsync" : "cuMemcpy2D", api, c);
}

int cudyn__memcpy_3d(const char *api, const struct cudyn_copy *c, cudyn_stream stream, bool async)
{
    size_t pitch[2], rows[2];
    int st = check_copy(api, c, true, pitch, rows);
    if (st == CUDYN_OK)
        st = cudyn__need_context(api);
    if (st != CUDYN_OK)
        return st;
    const struct cudyn_copy_side *s = &c->src, *d = &c->dst;
    cu_memcpy3d m = {
        .srcXInBytes = s->x_bytes, .srcY = s->y, .srcZ = s->z, .srcMemoryType = (cu_enum)s->kind,
        .srcHost = s->host, .srcDevice = s->device, .srcArray = (cu_array)(void *)s->array, .srcPitch = pitch[0],
        .srcHeight = rows[0],
        .dstXInBytes = d->x_bytes, .dstY = d->y, .dstZ = d->z, .dstMemoryType = (cu_enum)d->kind,
        .dstHost = d->host, .dstDevice = d->device, .dstArray = (cu_array)(void *)d->array, .dstPitch = pitch[1],
        .dstHeight = rows[1],
        .WidthInBytes = c->width_bytes, .Height = at_least_one(c->height), .Depth = at_least_one(c->depth),
    };
    cu_result r;
    if (async)
        CUDYN_DRIVER_CALL(r, cudyn__drv.cuMemcpy3DAsync_v2(&m, CU_STREAM(stream)), api);
    else
        CUDYN_DRIVER_CALL(r, cudyn__drv.cuMemcpy3D_v2(&m), api);
    return r == CU_OK ? CUDYN_OK : copy_failed(r, async ? "cuMemcpy3DAsync" : "cuMemcpy3D", api, c);
}

CUDYN_API int cudyn_memcpy_2d(const struct cudyn_copy *copy)
{
    return memcpy_2d("cudyn_memcpy_2d", copy, NULL, false);
}

CUDYN_API int cudyn_memcpy_2d_async(const struct cudyn_copy *copy, cudyn_stream stream)
{
    return memcpy_2d("cudyn_memcpy_2d_async", copy, stream, true);
}

CUDYN_API int cudyn_memcpy_3d(const struct cudyn_copy *copy)
{
    return cudyn__memcpy_3d("cudyn_memcpy_3d", copy, NULL, false);
}

CUDYN_API int cudyn_memcpy_3d_async(const struct cudyn_copy *copy, cudyn_stream stream)
{
    return cudyn__memcpy_3d("cudyn_memcpy_3d_async", copy, stream, true);
}

CUDYN_API int cudyn_mem_alloc_pitch(cudyn_devptr *out, size_t *pitch, size_t width_bytes, size_t height,
                                    unsigned int element_bytes)
{
    static const char api[] = "cudyn_mem_alloc_pitch";
    if (!out)
        return cudyn__fail_arg(api, "out", "must not be NULL");
    *out = 0;
    if (!pitch)
        return cudyn__fail_arg(api, "pitch", "must not be NULL");
    *pitch = 0;
    if (width_bytes == 0)
        return cudyn__fail_arg(api, "width_bytes", "must be greater than 0");
    if (height == 0)
        return cudyn__fail_arg(api, "height", "must be greater than 0");
    if (element_bytes != 4 && element_bytes != 8 && element_bytes != 16)
        return cudyn__fail_arg(api, "element_bytes", "must be 4, 8 or 16");
    int st = cudyn__need_context(api);
    if (st != CUDYN_OK)
        return st;
    cu_deviceptr p = 0;
    size_t got = 0;
    cu_result r;
    CUDYN_DRIVER_CALL(r, cudyn__drv.cuMemAllocPitch_v2(&p, &got, width_bytes, height, element_bytes), api);
    if (r != CU_OK) {
        st = cudyn__fail_driver(r, "cuMemAllocPitch", api);
        cudyn__error_append(" (asked for %zu rows of %zu bytes)", height, width_bytes);
        return st;
    }
    *out = p;
    *pitch = got;
    return CUDYN_OK;
}
