/*
 * texture.c - texture objects over arrays, linear and pitched memory, and
 * surface objects over arrays.  cudyn's description is checked against
 * what CUDA documents as valid (filtering needs float results, wrap and
 * mirror need normalised coordinates, linear memory is read by index) and
 * turned into the driver's CUDA_RESOURCE_DESC and CUDA_TEXTURE_DESC.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "api/api.h"
#include "api/array.h"

/* The format and the number of addressed dimensions of what is read. */
struct texel {
    int format;
    int dimensions; /* 0: LINEAR (read by index) */
};

static int describe_array(const char *api, const struct cudyn_texture_desc *t, cu_resource_desc *res,
                          struct texel *out)
{
    if (!t->array)
        return cudyn__fail_arg(api, "desc->array", "must not be NULL for CUDYN_RESOURCE_ARRAY");
    cu_array3d_desc shape;
    int st = cudyn__array_shape(api, t->array, &shape);
    if (st != CUDYN_OK)
        return st;
    res->resType = CU_RESTYPE_ARRAY;
    res->res.array.hArray = (cu_array)(void *)t->array;
    out->format = (int)shape.Format;
    bool layered = shape.Flags & CU_ARRAYFLAG_LAYERED;
    out->dimensions = shape.Depth && !layered ? 3 : shape.Height ? 2 : 1;
    return CUDYN_OK;
}

static int describe_linear(const char *api, const struct cudyn_texture_desc *t, cu_resource_desc *res,
                           struct texel *out)
{
    if (!t->device)
        return cudyn__fail_arg(api, "desc->device", "must not be 0 for CUDYN_RESOURCE_LINEAR");
    int st = cudyn__check_format(api, "desc->format", t->format, "desc->channels", t->channels);
    if (st != CUDYN_OK)
        return st;
    if (t->bytes < t->channels * cudyn__format_bytes(t->format))
        return cudyn__fail_arg(api, "desc->bytes", "must hold at least one element");
    if (t->filter != CUDYN_FILTER_POINT)
        return cudyn__fail_arg(api, "desc->filter", "must be CUDYN_FILTER_POINT for linear memory (read by index)");
    if (t->normalized_coords)
        return cudyn__fail_arg(api, "desc->normalized_coords", "must be 0 for linear memory (read by index)");
    res->resType = CU_RESTYPE_LINEAR;
    res->res.linear.devPtr = t->device;
    res->res.linear.format = (cu_enum)t->format;
    res->res.linear.numChannels = t->channels;
    res->res.linear.sizeInBytes = t->bytes;
    *out = (struct texel){t->format, 0};
    return CUDYN_OK;
}

static int describe_pitch2d(const char *api, const struct cudyn_texture_desc *t, cu_resource_desc *res,
                            struct texel *out)
{
    if (!t->device)
        return cudyn__fail_arg(api, "desc->device", "must not be 0 for CUDYN_RESOURCE_PITCH2D");
    int st = cudyn__check_format(api, "desc->format", t->format, "desc->channels", t->channels);
    if (st != CUDYN_OK)
        return st;
    if (t->width == 0 || t->height == 0)
        return cudyn__fail_arg(api, t->width ? "desc->height" : "desc->width", "must be greater than 0");
    if (t->pitch / (t->channels * cudyn__format_bytes(t->format)) < t->width)
        return cudyn__fail_arg(api, "desc->pitch", "must hold a row: at least width x the element size");
    res->resType = CU_RESTYPE_PITCH2D;
    res->res.pitch2D.devPtr = t->device;
    res->res.pitch2D.format = (cu_enum)t->format;
    res->res.pitch2D.numChannels = t->channels;
    res->res.pitch2D.width = t->width;
    res->res.pitch2D.height = t->height;
    res->res.pitch2D.pitchInBytes = t->pitch;
    *out = (struct texel){t->format, 2};
    return CUDYN_OK;
}

/* The sampling fields that need no texel format: checked with the other
 * arguments before the driver is loaded. */
static int check_sampling_values(const char *api, const struct cudyn_texture_desc *t)
{
    if (t->filter != CUDYN_FILTER_POINT && t->filter != CUDYN_FILTER_LINEAR)
        return cudyn__fail_arg(api, "desc->filter", "must be CUDYN_FILTER_POINT or CUDYN_FILTER_LINEAR");
    if (t->read_mode != CUDYN_READ_ELEMENT_TYPE && t->read_mode != CUDYN_READ_NORMALIZED_FLOAT)
        return cudyn__fail_arg(api, "desc->read_mode",
                               "must be CUDYN_READ_ELEMENT_TYPE or CUDYN_READ_NORMALIZED_FLOAT");
    for (int i = 0; i < 3; i++)
        if (t->address_mode[i] < CUDYN_ADDRESS_WRAP || t->address_mode[i] > CUDYN_ADDRESS_BORDER) {
            char arg[32];
            snprintf(arg, sizeof arg, "desc->address_mode[%d]", i);
            return cudyn__fail_arg(api, arg, "must be a CUDYN_ADDRESS_* value");
        }
    return CUDYN_OK;
}

/* How the texel is sampled, as CUDA_TEXTURE_DESC. */
static int describe_sampling(const char *api, const struct cudyn_texture_desc *t, const struct texel *x,
                             cu_texture_desc *tex)
{
    bool integer = cudyn__format_is_integer(x->format);
    if (t->read_mode == CUDYN_READ_NORMALIZED_FLOAT && integer && cudyn__format_bytes(x->format) == 4)
        return cudyn__fail_arg(api, "desc->read_mode",
                               "CUDYN_READ_NORMALIZED_FLOAT applies to 8- and 16-bit integers, not 32-bit ones");
    if (t->filter == CUDYN_FILTER_LINEAR && integer && t->read_mode == CUDYN_READ_ELEMENT_TYPE)
        return cudyn__fail_arg(api, "desc->filter",
                               "CUDYN_FILTER_LINEAR needs float results: integers must be read as "
                               "CUDYN_READ_NORMALIZED_FLOAT");
    memset(tex, 0, sizeof *tex);
    for (int i = 0; i < 3; i++) {
        int mode = t->address_mode[i];
        bool used = i < x->dimensions;
        bool needs_normalized = mode == CUDYN_ADDRESS_WRAP || mode == CUDYN_ADDRESS_MIRROR;
        if (used && needs_normalized && !t->normalized_coords) {
            char arg[32];
            snprintf(arg, sizeof arg, "desc->address_mode[%d]", i);
            return cudyn__fail_arg(api, arg,
                                   "is wrap or mirror, which need normalized_coords = 1 (use CUDYN_ADDRESS_CLAMP "
                                   "or _BORDER with coordinates in elements)");
        }
        /* a dimension the texture does not have is never addressed */
        tex->addressMode[i] = (cu_enum)(used || t->normalized_coords ? mode : CUDYN_ADDRESS_CLAMP);
    }
    tex->filterMode = (cu_enum)t->filter;
    tex->flags = (integer && t->read_mode == CUDYN_READ_ELEMENT_TYPE ? CU_TEXFLAG_READ_AS_INTEGER : 0u) |
                 (t->normalized_coords ? CU_TEXFLAG_NORMALIZED_COORDINATES : 0u);
    memcpy(tex->borderColor, t->border_color, sizeof tex->borderColor);
    return CUDYN_OK;
}

CUDYN_API int cudyn_texture_create(cudyn_texture *out, const struct cudyn_texture_desc *desc)
{
    static const char api[] = "cudyn_texture_create";
    if (!out)
        return cudyn__fail_arg(api, "out", "must not be NULL");
    *out = 0;
    if (!desc)
        return cudyn__fail_arg(api, "desc", "must not be NULL");
    if (desc->size < sizeof *desc)
        return cudyn__fail_arg(api, "desc->size", "must be set to sizeof(struct cudyn_texture_desc)");
    if (desc->normalized_coords != 0 && desc->normalized_coords != 1)
        return cudyn__fail_arg(api, "desc->normalized_coords", "must be 0 or 1");
    /* every argument that can be checked without the driver is, first: a
     * bad one is named even where no driver can be loaded; only an array's
     * format needs the driver */
    cu_resource_desc res;
    memset(&res, 0, sizeof res);
    struct texel x = {0, 0};
    int st;
    switch (desc->resource) {
    case CUDYN_RESOURCE_ARRAY:
        st = desc->array ? CUDYN_OK
                         : cudyn__fail_arg(api, "desc->array", "must not be NULL for CUDYN_RESOURCE_ARRAY");
        break;
    case CUDYN_RESOURCE_LINEAR: st = describe_linear(api, desc, &res, &x); break;
    case CUDYN_RESOURCE_PITCH2D: st = describe_pitch2d(api, desc, &res, &x); break;
    default:
        return cudyn__fail_arg(api, "desc->resource",
                               "must be CUDYN_RESOURCE_ARRAY, CUDYN_RESOURCE_LINEAR or CUDYN_RESOURCE_PITCH2D");
    }
    if (st == CUDYN_OK)
        st = check_sampling_values(api, desc);
    if (st == CUDYN_OK)
        st = cudyn__need_context(api);
    if (st == CUDYN_OK && desc->resource == CUDYN_RESOURCE_ARRAY)
        st = describe_array(api, desc, &res, &x);
    cu_texture_desc tex;
    if (st == CUDYN_OK)
        st = describe_sampling(api, desc, &x, &tex);
    if (st != CUDYN_OK)
        return st;
    cu_texobj t = 0;
    CUDYN_TRY_DRIVER(cudyn__drv.cuTexObjectCreate(&t, &res, &tex, NULL), "cuTexObjectCreate", api);
    *out = t;
    return CUDYN_OK;
}

CUDYN_API int cudyn_texture_destroy(cudyn_texture texture)
{
    static const char api[] = "cudyn_texture_destroy";
    if (!texture)
        return CUDYN_OK;
    int st = cudyn__need_context(api);
    if (st != CUDYN_OK)
        return st;
    CUDYN_TRY_DRIVER(cudyn__drv.cuTexObjectDestroy(texture), "cuTexObjectDestroy", api);
    return CUDYN_OK;
}

CUDYN_API int cudyn_surface_create(cudyn_surface *out, cudyn_array array)
{
    static const char api[] = "cudyn_surface_create";
    if (!out)
        return cudyn__fail_arg(api, "out", "must not be NULL");
    *out = 0;
    if (!array)
        return cudyn__fail_arg(api, "array", "must not be NULL");
    cu_array3d_desc shape;
    int st = cudyn__array_shape(api, array, &shape);
    if (st != CUDYN_OK)
        return st;
    if (!(shape.Flags & CU_ARRAYFLAG_SURFACE_LDST))
        return cudyn__fail_arg(api, "array", "was not created with CUDYN_ARRAY_SURFACE");
    cu_resource_desc res;
    memset(&res, 0, sizeof res);
    res.resType = CU_RESTYPE_ARRAY;
    res.res.array.hArray = (cu_array)(void *)array;
    cu_surfobj s = 0;
    CUDYN_TRY_DRIVER(cudyn__drv.cuSurfObjectCreate(&s, &res), "cuSurfObjectCreate", api);
    *out = s;
    return CUDYN_OK;
}

CUDYN_API int cudyn_surface_destroy(cudyn_surface surface)
{
    static const char api[] = "cudyn_surface_destroy";
    if (!surface)
        return CUDYN_OK;
    int st = cudyn__need_context(api);
    if (st != CUDYN_OK)
        return st;
    CUDYN_TRY_DRIVER(cudyn__drv.cuSurfObjectDestroy(surface), "cuSurfObjectDestroy", api);
    return CUDYN_OK;
}
