/*
 * array.c - CUDA arrays: creation from cudyn's own description, the
 * driver's description back, and whole-array copies to and from host
 * memory.  cudyn_array is the driver's CUarray.
 */
#include "config.h"

#include <string.h>

#include "api/api.h"
#include "api/array.h"

/* The public formats are CUDA's CUarray_format values (check_cuda_abi.c
 * compares both lists with cuda.h), so one table serves both. */
static const struct format_row {
    int value;
    unsigned int bytes;
    bool integer;
} formats[] = {
#define FORMAT_ROW(name, value, bytes, is_float) {value, bytes, !(is_float)},
    CU_ARRAY_FORMAT_MAP(FORMAT_ROW)
#undef FORMAT_ROW
};

static const struct format_row *format_row(int format)
{
    for (size_t i = 0; i < sizeof formats / sizeof formats[0]; i++)
        if (formats[i].value == format)
            return &formats[i];
    return NULL;
}

unsigned int cudyn__format_bytes(int format)
{
    const struct format_row *f = format_row(format);
    return f ? f->bytes : 0;
}

bool cudyn__format_is_integer(int format)
{
    const struct format_row *f = format_row(format);
    return f && f->integer;
}

int cudyn__check_format(const char *api, const char *format_arg, int format, const char *channels_arg,
                        unsigned int channels)
{
    if (!format_row(format))
        return cudyn__fail_arg(api, format_arg, "must be a CUDYN_FORMAT_* value (CUDYN_FORMAT_MAP in cudyn.h)");
    if (channels != 1 && channels != 2 && channels != 4)
        return cudyn__fail_arg(api, channels_arg, "must be 1, 2 or 4");
    return CUDYN_OK;
}

int cudyn__array_shape(const char *api, cudyn_array array, cu_array3d_desc *out)
{
    memset(out, 0, sizeof *out);
    int st = cudyn__need_context(api);
    if (st != CUDYN_OK)
        return st;
    CUDYN_TRY_DRIVER(cudyn__drv.cuArray3DGetDescriptor_v2(out, (cu_array)(void *)array), "cuArray3DGetDescriptor",
                     api);
    return CUDYN_OK;
}

/* A 1D, 2D, 3D or layered shape the driver can make. */
static int check_shape(const char *api, const struct cudyn_array_desc *d)
{
    int st = cudyn__check_format(api, "desc->format", d->format, "desc->channels", d->channels);
    if (st != CUDYN_OK)
        return st;
    if (d->width == 0)
        return cudyn__fail_arg(api, "desc->width", "must be greater than 0");
    if (d->flags & ~(CUDYN_ARRAY_LAYERED | CUDYN_ARRAY_SURFACE | CUDYN_ARRAY_TEXTURE_GATHER))
        return cudyn__fail_arg(api, "desc->flags", "has unknown bits (use CUDYN_ARRAY_*)");
    if ((d->flags & CUDYN_ARRAY_LAYERED) && d->depth == 0)
        return cudyn__fail_arg(api, "desc->depth", "is the number of layers of a layered array and must be > 0");
    if (!(d->flags & CUDYN_ARRAY_LAYERED) && d->depth > 0 && d->height == 0)
        return cudyn__fail_arg(api, "desc->height", "must be > 0 for a 3D array (depth > 0)");
    return CUDYN_OK;
}

CUDYN_API int cudyn_array_create(cudyn_array *out, const struct cudyn_array_desc *desc)
{
    static const char api[] = "cudyn_array_create";
    if (!out)
        return cudyn__fail_arg(api, "out", "must not be NULL");
    *out = NULL;
    if (!desc)
        return cudyn__fail_arg(api, "desc", "must not be NULL");
    if (desc->size < sizeof *desc)
        return cudyn__fail_arg(api, "desc->size", "must be set to sizeof(struct cudyn_array_desc)");
    int st = check_shape(api, desc);
    if (st == CUDYN_OK)
        st = cudyn__need_context(api);
    if (st != CUDYN_OK)
        return st;
    cu_array3d_desc d = {desc->width, desc->height, desc->depth, (cu_enum)desc->format, desc->channels, desc->flags};
    cu_array a = NULL;
    cu_result r;
    CUDYN_DRIVER_CALL(r, cudyn__drv.cuArray3DCreate_v2(&a, &d), api);
    if (r != CU_OK) {
        st = cudyn__fail_driver(r, "cuArray3DCreate", api);
        cudyn__error_append(" (%zu x %zu x %zu elements of %u x %u bytes, flags 0x%x)", desc->width, desc->height,
                            desc->depth, desc->channels, cudyn__format_bytes(desc->format), desc->flags);
        return st;
    }
    *out = (cudyn_array)(void *)a;
    return CUDYN_OK;
}

CUDYN_API int cudyn_array_destroy(cudyn_array array)
{
    static const char api[] = "cudyn_array_destroy";
    if (!array)
        return CUDYN_OK;
    int st = cudyn__need_context(api);
    if (st != CUDYN_OK)
        return st;
    CUDYN_TRY_DRIVER(cudyn__drv.cuArrayDestroy((cu_array)(void *)array), "cuArrayDestroy", api);
    return CUDYN_OK;
}

CUDYN_API int cudyn_array_describe(cudyn_array array, struct cudyn_array_desc *out)
{
    static const char api[] = "cudyn_array_describe";
    if (!out)
        return cudyn__fail_arg(api, "out", "must not be NULL");
    if (out->size < sizeof out->size)
        return cudyn__fail_arg(api, "out->size", "must be set to sizeof(struct cudyn_array_desc)");
    if (!array)
        return cudyn__fail_arg(api, "array", "must not be NULL");
    cu_array3d_desc d;
    int st = cudyn__array_shape(api, array, &d);
    if (st != CUDYN_OK)
        return st;
    struct cudyn_array_desc full = {sizeof full, (int)d.Format, d.NumChannels, d.Width, d.Height, d.Depth, d.Flags};
    size_t n = out->size < sizeof full ? out->size : sizeof full;
    memcpy(out, &full, n); /* an older, smaller struct gets what fits */
    out->size = n;
    return CUDYN_OK;
}

/* Both sides of a whole-array copy: the array, and packed host memory. */
static int whole_array_copy(const char *api, cudyn_array array, void *host, bool to_host)
{
    if (!array)
        return cudyn__fail_arg(api, to_host ? "src" : "dst", "must not be NULL");
    if (!host)
        return cudyn__fail_arg(api, to_host ? "dst" : "src", "must not be NULL");
    cu_array3d_desc d;
    int st = cudyn__array_shape(api, array, &d);
    if (st != CUDYN_OK)
        return st;
    size_t element = d.NumChannels * cudyn__format_bytes((int)d.Format);
    if (element == 0)
        return cudyn__fail(CUDYN_ERROR_NOT_SUPPORTED, CUDYN_ORIGIN_LIBRARY, 0, NULL, api, NULL,
                           "%s: the array's format 0x%x is none of cudyn's (CUDYN_FORMAT_MAP); copy it with "
                           "cudyn_memcpy_3d",
                           api, d.Format);
    size_t row = d.Width * element;
    struct cudyn_copy_side packed = {.kind = CUDYN_COPY_HOST, .host = host};
    struct cudyn_copy_side whole = {.kind = CUDYN_COPY_ARRAY, .array = array};
    struct cudyn_copy c = {.size = sizeof c, .width_bytes = row, .height = d.Height, .depth = d.Depth};
    c.src = to_host ? whole : packed;
    c.dst = to_host ? packed : whole;
    return cudyn__memcpy_3d(api, &c, NULL, false);
}

CUDYN_API int cudyn_array_copy_from_host(cudyn_array dst, const void *src)
{
    return whole_array_copy("cudyn_array_copy_from_host", dst, (void *)src, false);
}

CUDYN_API int cudyn_array_copy_to_host(void *dst, cudyn_array src)
{
    return whole_array_copy("cudyn_array_copy_to_host", src, dst, true);
}
