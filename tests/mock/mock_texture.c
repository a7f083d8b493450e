/*
 * mock_texture.c - texture and surface objects, and the host kernels that
 * read them.
 *
 * A texture is sampled as the CUDA programming guide's "Texture Fetching"
 * appendix describes: coordinates in elements (or normalised, times the
 * extent); point filtering takes element floor(x), linear filtering mixes
 * floor(x - 0.5) and the next with the weight frac(x - 0.5) kept to 8
 * fractional bits as the hardware does; each element index is addressed
 * by its mode (clamp, border, wrap, mirror).  Integers are read as
 * normalised floats unless CU_TRSF_READ_AS_INTEGER.  Mipmaps, resource
 * views, anisotropy, sRGB and cubemap seams are refused.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mock.h"

struct texture {
    cu_texobj handle;
    int surface;
    struct CUctx_st *ctx;
    cu_resource_desc res;
    cu_texture_desc tex;
    struct texture *next;
};

static struct texture *textures;
static cu_texobj next_handle = 1;

/* CU_TRSF_* the mock emulates */
#define EMULATED_TEXTURE_FLAGS (CU_TEXFLAG_READ_AS_INTEGER | CU_TEXFLAG_NORMALIZED_COORDINATES)

static int good_channels(unsigned int n)
{
    return n == 1 || n == 2 || n == 4;
}

/* The memory a resource descriptor names exists, and its shape is valid. */
static cu_result check_resource(const cu_resource_desc *r)
{
    if (r->flags)
        return CU_ERR_INVALID_VALUE;
    switch (r->resType) {
    case CU_RESTYPE_ARRAY: {
        struct mock_array_view v;
        return array_view(r->res.array.hArray, &v) ? CU_OK : CU_ERR_INVALID_VALUE;
    }
    case CU_RESTYPE_LINEAR: {
        const __typeof__(r->res.linear) *l = &r->res.linear;
        int ok = mock_format_bytes(l->format) && good_channels(l->numChannels) && l->sizeInBytes &&
                 memory_range(l->devPtr, l->sizeInBytes);
        return ok ? CU_OK : CU_ERR_INVALID_VALUE;
    }
    case CU_RESTYPE_PITCH2D: {
        const __typeof__(r->res.pitch2D) *p = &r->res.pitch2D;
        size_t element = mock_format_bytes(p->format) * p->numChannels;
        int ok = element && good_channels(p->numChannels) && p->width && p->height &&
                 p->pitchInBytes >= p->width * element && p->pitchInBytes % 32 == 0 && /* texture_pitch_alignment */
                 memory_range(p->devPtr, p->pitchInBytes * p->height);
        return ok ? CU_OK : CU_ERR_INVALID_VALUE;
    }
    default:
        return mock_refuse("texture resources of type %u (mipmapped arrays)", r->resType);
    }
}

static cu_enum resource_format(const cu_resource_desc *r)
{
    struct mock_array_view v;
    if (r->resType == CU_RESTYPE_LINEAR)
        return r->res.linear.format;
    if (r->resType == CU_RESTYPE_PITCH2D)
        return r->res.pitch2D.format;
    return array_view(r->res.array.hArray, &v) ? v.format : 0;
}

/* The sampling the mock emulates, with the driver's rules: only clamp and
 * border without normalised coordinates, filtering of float results only. */
static cu_result check_sampling(const cu_resource_desc *r, const cu_texture_desc *t)
{
    if (t->flags & ~EMULATED_TEXTURE_FLAGS)
        return mock_refuse("texture flags 0x%x", t->flags & ~EMULATED_TEXTURE_FLAGS);
    if (t->maxAnisotropy > 1)
        return mock_refuse("anisotropic filtering");
    if (t->filterMode > CU_FILTER_LINEAR)
        return CU_ERR_INVALID_VALUE;
    if (r->resType == CU_RESTYPE_LINEAR) /* read by index: the rest is ignored */
        return CU_OK;
    for (int i = 0; i < 3; i++) {
        cu_enum m = t->addressMode[i];
        if (m > CU_ADDRESS_BORDER)
            return CU_ERR_INVALID_VALUE;
        if (!(t->flags & CU_TEXFLAG_NORMALIZED_COORDINATES) && (m == CU_ADDRESS_WRAP || m == CU_ADDRESS_MIRROR))
            return CU_ERR_INVALID_VALUE;
    }
    int integers = mock_format_is_integer(resource_format(r)) && (t->flags & CU_TEXFLAG_READ_AS_INTEGER);
    if (t->filterMode == CU_FILTER_LINEAR && integers)
        return CU_ERR_INVALID_VALUE;
    return CU_OK;
}

static cu_result add(int surface, const cu_resource_desc *r, const cu_texture_desc *t, cu_texobj *out)
{
    struct texture *x = calloc(1, sizeof *x);
    if (!x)
        return CU_ERR_OUT_OF_MEMORY;
    x->surface = surface;
    x->ctx = ctx_current();
    x->res = *r;
    if (t)
        x->tex = *t;
    pthread_mutex_lock(&mock.lock);
    x->handle = next_handle++;
    x->next = textures;
    textures = x;
    pthread_mutex_unlock(&mock.lock);
    *out = x->handle;
    return CU_OK;
}

cu_result cuTexObjectCreate(cu_texobj *out, const cu_resource_desc *r, const cu_texture_desc *t,
                            const struct CUDA_RESOURCE_VIEW_DESC_st *view)
{
    ENTER("cuTexObjectCreate");
    NEED_CONTEXT();
    if (!out || !r || !t)
        return CU_ERR_INVALID_VALUE;
    if (view)
        return mock_refuse("texture resource views");
    cu_result e = check_resource(r);
    if (!e)
        e = check_sampling(r, t);
    return e ? e : add(0, r, t, out);
}

cu_result cuSurfObjectCreate(cu_surfobj *out, const cu_resource_desc *r)
{
    ENTER("cuSurfObjectCreate");
    NEED_CONTEXT();
    if (!out || !r || r->resType != CU_RESTYPE_ARRAY)
        return CU_ERR_INVALID_VALUE;
    struct mock_array_view v;
    if (r->flags || !array_view(r->res.array.hArray, &v) || !(v.flags & CU_ARRAYFLAG_SURFACE_LDST))
        return CU_ERR_INVALID_VALUE;
    return add(1, r, NULL, out);
}

static cu_result destroy(cu_texobj handle, int surface)
{
    NEED_CONTEXT();
    struct texture *found = NULL;
    pthread_mutex_lock(&mock.lock);
    MOCK_LIST_UNLINK_IF(struct texture, textures, x, !found && x->handle == handle && x->surface == surface,
                        found = x);
    pthread_mutex_unlock(&mock.lock);
    free(found);
    return found ? CU_OK : CU_ERR_INVALID_VALUE;
}

cu_result cuTexObjectDestroy(cu_texobj t)
{
    ENTER("cuTexObjectDestroy");
    return destroy(t, 0);
}

cu_result cuSurfObjectDestroy(cu_surfobj s)
{
    ENTER("cuSurfObjectDestroy");
    return destroy(s, 1);
}

void textures_release_context(const struct CUctx_st *ctx)
{
    pthread_mutex_lock(&mock.lock);
    MOCK_LIST_UNLINK_IF(struct texture, textures, x, x->ctx == ctx, free(x));
    pthread_mutex_unlock(&mock.lock);
}

int mock_textures_alive(void)
{
    int n = 0;
    pthread_mutex_lock(&mock.lock);
    for (const struct texture *x = textures; x; x = x->next)
        n++;
    pthread_mutex_unlock(&mock.lock);
    return n;
}

/* ------------------------------------------------------------------ sampling */

/* What a kernel reads through an object: its memory, as it is now. */
struct texels {
    const unsigned char *base;
    cu_enum format;
    unsigned int channels;
    size_t element, extent[3], pitch, slice;
};

/* The object `handle` (a copy) and its memory; 0 if either is gone. */
static int resolve(cu_texobj handle, int surface, struct texture *t, struct texels *m)
{
    pthread_mutex_lock(&mock.lock);
    const struct texture *x = textures;
    while (x && !(x->handle == handle && x->surface == surface))
        x = x->next;
    if (x)
        *t = *x;
    pthread_mutex_unlock(&mock.lock);
    if (!x)
        return 0;
    const cu_resource_desc *r = &t->res;
    struct mock_array_view v;
    switch (r->resType) {
    case CU_RESTYPE_ARRAY:
        if (!array_view(r->res.array.hArray, &v))
            return 0;
        *m = (struct texels){v.data, v.format, v.channels, v.element, {v.width, v.height, v.depth},
                             v.element * v.width, v.element * v.width * v.height};
        return 1;
    case CU_RESTYPE_LINEAR:
        *m = (struct texels){memory_range(r->res.linear.devPtr, r->res.linear.sizeInBytes), r->res.linear.format,
                             r->res.linear.numChannels, 0, {0, 1, 1}, 0, 0};
        m->element = mock_format_bytes(m->format) * m->channels;
        m->extent[0] = r->res.linear.sizeInBytes / m->element;
        return m->base != NULL;
    default: /* CU_RESTYPE_PITCH2D */
        *m = (struct texels){memory_range(r->res.pitch2D.devPtr, r->res.pitch2D.pitchInBytes * r->res.pitch2D.height),
                             r->res.pitch2D.format, r->res.pitch2D.numChannels, 0,
                             {r->res.pitch2D.width, r->res.pitch2D.height, 1}, r->res.pitch2D.pitchInBytes, 0};
        m->element = mock_format_bytes(m->format) * m->channels;
        return m->base != NULL;
    }
}

static float half_to_float(uint16_t h)
{
    int exponent = (h >> 10) & 0x1F, mantissa = h & 0x3FF;
    float v = exponent == 0 ? ldexpf((float)mantissa, -24)
              : exponent == 31 ? (mantissa ? NAN : INFINITY)
                               : ldexpf((float)(mantissa | 0x400), exponent - 25);
    return (h & 0x8000) ? -v : v;
}

/* Channel c of the element at p, as a kernel's float fetch returns it. */
static float channel(const struct texels *m, const unsigned char *p, unsigned int c, int as_integer)
{
    switch (m->format) {
#define READ(format, type, scale, low)                                                 \
    case format: {                                                                   \
        type v;                                                                      \
        memcpy(&v, p + c * sizeof v, sizeof v);                                      \
        return as_integer || !(scale) ? (float)v : fmaxf((float)v / (scale), (low)); \
    }
        READ(CU_FORMAT_UNSIGNED_INT8, uint8_t, 255.0f, 0.0f)
        READ(CU_FORMAT_UNSIGNED_INT16, uint16_t, 65535.0f, 0.0f)
        READ(CU_FORMAT_UNSIGNED_INT32, uint32_t, 0.0f, 0.0f)
        READ(CU_FORMAT_SIGNED_INT8, int8_t, 127.0f, -1.0f)
        READ(CU_FORMAT_SIGNED_INT16, int16_t, 32767.0f, -1.0f)
        READ(CU_FORMAT_SIGNED_INT32, int32_t, 0.0f, 0.0f)
        READ(CU_FORMAT_FLOAT, float, 0.0f, 0.0f)
#undef READ
    case CU_FORMAT_HALF: {
        uint16_t h;
        memcpy(&h, p + c * 2, 2);
        return half_to_float(h);
    }
    }
    return 0.0f;
}

/* Element index i along an extent of n, by address mode; -1 for border. */
static long address(long i, long n, cu_enum mode)
{
    switch (mode) {
    case CU_ADDRESS_WRAP: return ((i % n) + n) % n;
    case CU_ADDRESS_MIRROR: {
        long m = ((i % (2 * n)) + 2 * n) % (2 * n);
        return m < n ? m : 2 * n - 1 - m;
    }
    case CU_ADDRESS_BORDER: return i < 0 || i >= n ? -1 : i;
    default: return i < 0 ? 0 : i >= n ? n - 1 : i;
    }
}

/* The element at (i, j, k) (unaddressed indices), or the border colour. */
static void texel(const struct texture *t, const struct texels *m, const long idx[3], int dims, float out[4])
{
    long at[3] = {0, 0, 0};
    for (int d = 0; d < dims; d++) {
        at[d] = address(idx[d], (long)m->extent[d], t->tex.addressMode[d]);
        if (at[d] < 0) {
            memcpy(out, t->tex.borderColor, 4 * sizeof(float));
            return;
        }
    }
    const unsigned char *p = m->base + (size_t)at[2] * m->slice + (size_t)at[1] * m->pitch + (size_t)at[0] * m->element;
    int as_integer = t->tex.flags & CU_TEXFLAG_READ_AS_INTEGER;
    for (unsigned int c = 0; c < 4; c++)
        out[c] = c < m->channels ? channel(m, p, c, as_integer) : 0.0f;
}

/* tex1D / tex2D / tex3D<float4>(handle, x, y, z); 0 if the object or its
 * memory is gone (the caller faults). */
static int sample(cu_texobj handle, int dims, const float coord[3], float out[4])
{
    struct texture t;
    struct texels m;
    if (!resolve(handle, 0, &t, &m) || t.res.resType == CU_RESTYPE_LINEAR)
        return 0;
    long base[3] = {0, 0, 0};
    float weight[3] = {0, 0, 0};
    int linear = t.tex.filterMode == CU_FILTER_LINEAR;
    for (int d = 0; d < dims; d++) {
        float x = coord[d];
        if (t.tex.flags & CU_TEXFLAG_NORMALIZED_COORDINATES)
            x *= (float)m.extent[d];
        if (linear)
            x -= 0.5f;
        float f = floorf(x);
        base[d] = (long)f;
        weight[d] = linear ? roundf((x - f) * 256.0f) / 256.0f : 0.0f; /* 8 fractional bits */
    }
    memset(out, 0, 4 * sizeof(float));
    for (int corner = 0; corner < (linear ? 1 << dims : 1); corner++) {
        long idx[3];
        float w = 1.0f, v[4];
        for (int d = 0; d < dims; d++) {
            int up = (corner >> d) & 1;
            idx[d] = base[d] + up;
            w *= up ? weight[d] : 1.0f - weight[d];
        }
        texel(&t, &m, idx, dims, v);
        for (int c = 0; c < 4; c++)
            out[c] += w * v[c];
    }
    return 1;
}

/* ------------------------------------------------------------- host kernels */

static size_t threads_along(const struct launch *l, int axis)
{
    return (size_t)l->grid[axis] * l->block[axis];
}

/* transformKernel(float *output, cudaTextureObject_t tex, int width, int
 * height, float theta), the CUDA documentation's texture example: output
 * pixel (x, y) samples the texture at (x / width, y / height) rotated by
 * theta about the centre, in normalised coordinates. */
void run_transform_kernel(const struct launch *l)
{
    cu_texobj tex = SCALAR(cu_texobj, l, 1);
    int width = SCALAR(int, l, 2), height = SCALAR(int, l, 3);
    float theta = SCALAR(float, l, 4);
    if (width <= 0 || height <= 0)
        return;
    float *output = launch_buffer(l, 0, (size_t)width * (size_t)height * sizeof(float));
    if (!output)
        return;
    size_t nx = threads_along(l, 0), ny = threads_along(l, 1);
    for (size_t y = 0; y < ny && y < (size_t)height; y++)
        for (size_t x = 0; x < nx && x < (size_t)width; x++) {
            float u = (float)x / (float)width - 0.5f, v = (float)y / (float)height - 0.5f;
            float at[3] = {u * cosf(theta) - v * sinf(theta) + 0.5f, v * cosf(theta) + u * sinf(theta) + 0.5f, 0};
            float texel4[4];
            if (!sample(tex, 2, at, texel4)) {
                kernel_fault();
                return;
            }
            output[y * (size_t)width + x] = texel4[0];
        }
}

/* How many of n elements a launch reads: one per thread along x. */
static size_t elements_covered(const struct launch *l, int n)
{
    size_t count = n > 0 ? (size_t)n : 0, threads = threads_along(l, 0);
    return count < threads ? count : threads;
}

/* tex2d_read(float *out, cudaTextureObject_t tex, const float *xy, int n):
 * out[i] = tex2D<float>(tex, xy[2i], xy[2i + 1]), one i per thread along x. */
void run_tex2d_read(const struct launch *l)
{
    cu_texobj tex = SCALAR(cu_texobj, l, 1);
    int n = SCALAR(int, l, 3);
    size_t count = elements_covered(l, n);
    float *out = launch_buffer(l, 0, count * sizeof *out);
    const float *xy = launch_buffer(l, 2, 2 * count * sizeof *xy);
    for (size_t i = 0; out && xy && i < count; i++) {
        float at[3] = {xy[2 * i], xy[2 * i + 1], 0}, v[4];
        if (!sample(tex, 2, at, v)) {
            kernel_fault();
            return;
        }
        out[i] = v[0];
    }
}

/* tex1d_fetch(float *out, cudaTextureObject_t tex, int n):
 * out[i] = tex1Dfetch<float>(tex, i); beyond the memory it reads 0. */
void run_tex1d_fetch(const struct launch *l)
{
    cu_texobj tex = SCALAR(cu_texobj, l, 1);
    int n = SCALAR(int, l, 2);
    size_t count = elements_covered(l, n);
    float *out = launch_buffer(l, 0, count * sizeof *out);
    struct texture t;
    struct texels m;
    if (!out)
        return;
    if (!resolve(tex, 0, &t, &m) || t.res.resType != CU_RESTYPE_LINEAR) {
        kernel_fault();
        return;
    }
    for (size_t i = 0; i < count; i++)
        out[i] = i < m.extent[0] ? channel(&m, m.base + i * m.element, 0, t.tex.flags & CU_TEXFLAG_READ_AS_INTEGER)
                                 : 0.0f;
}

/* surf2d_scale(cudaSurfaceObject_t surf, int width, int height, float a):
 * each float (x, y) of a 2D surface times a, through surf2Dread /
 * surf2Dwrite at byte x * 4.  Outside the surface it traps, as the default
 * boundary mode does. */
void run_surf2d_scale(const struct launch *l)
{
    cu_surfobj surf = SCALAR(cu_surfobj, l, 0);
    int width = SCALAR(int, l, 1), height = SCALAR(int, l, 2);
    float a = SCALAR(float, l, 3);
    struct texture t;
    struct texels m;
    if (!resolve(surf, 1, &t, &m) || m.element != sizeof(float)) {
        kernel_fault();
        return;
    }
    size_t nx = threads_along(l, 0), ny = threads_along(l, 1);
    for (size_t y = 0; y < ny && y < (size_t)(height > 0 ? height : 0); y++)
        for (size_t x = 0; x < nx && x < (size_t)(width > 0 ? width : 0); x++) {
            if (x >= m.extent[0] || y >= m.extent[1]) {
                kernel_fault();
                return;
            }
            float v;
            unsigned char *p = (unsigned char *)m.base + y * m.pitch + x * sizeof v;
            memcpy(&v, p, sizeof v);
            v *= a;
            memcpy(p, &v, sizeof v);
        }
}
