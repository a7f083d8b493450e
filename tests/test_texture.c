/*
 * test_texture.c - CUDA arrays, pitched memory, 2D / 3D copies, texture
 * and surface objects against the mock driver, which keeps arrays in host
 * memory and samples textures on the host: shapes and copies round-trip,
 * sampling gives what CUDA's filtering and address modes give, bad
 * descriptions are refused naming the field, and every driver call these
 * functions make fails in turn with the right status and nothing left
 * behind.  A child process repeats the basics on a CUDA 11.0 driver, where
 * every entry point is found by dlsym of its exact versioned name.
 */
#include "config.h"

#include <stdint.h>

#include "cudyn.h"
#include "fault_sweep.h"

/* The kernels the mock samples textures with (mock_texture.c). */
static const char image[] =
    ".version 8.0\n.target sm_90\n"
    ".visible .entry tex2d_read(.param .u64 out, .param .u64 tex, .param .u64 xy, .param .u32 n)\n{\n}\n"
    ".visible .entry tex1d_fetch(.param .u64 out, .param .u64 tex, .param .u32 n)\n{\n}\n"
    ".visible .entry surf2d_scale(.param .u64 surf, .param .u32 w, .param .u32 h, .param .f32 a)\n{\n}\n";

static cudyn_module mod;
static cudyn_function tex2d_read, tex1d_fetch, surf2d_scale;

#define ARRAY_DESC(fmt, ch, w, h, d, fl) \
    ((struct cudyn_array_desc){.size = sizeof(struct cudyn_array_desc), .format = (fmt), .channels = (ch), \
                               .width = (w), .height = (h), .depth = (d), .flags = (fl)})

/* The last error's message contains `text`. */
static void expect_message(const char *text)
{
    cudyn_error e = {.size = sizeof e};
    cudyn_last_error(&e);
    CHECK_CONTAINS(e.message, text);
}

/* Whole-array copies of `bytes` bytes round-trip, and describe() agrees. */
static void roundtrip(struct cudyn_array_desc d, size_t bytes)
{
    cudyn_array a = NULL;
    CHECK_STATUS(cudyn_array_create(&a, &d), CUDYN_OK);
    unsigned char *in = malloc(bytes), *out = calloc(1, bytes);
    for (size_t i = 0; i < bytes; i++)
        in[i] = (unsigned char)(i * 7 + 3);
    CHECK_STATUS(cudyn_array_copy_from_host(a, in), CUDYN_OK);
    CHECK_STATUS(cudyn_array_copy_to_host(out, a), CUDYN_OK);
    CHECK(memcmp(in, out, bytes) == 0);
    struct cudyn_array_desc back = {.size = sizeof back};
    CHECK_STATUS(cudyn_array_describe(a, &back), CUDYN_OK);
    CHECK(back.format == d.format && back.channels == d.channels && back.width == d.width &&
          back.height == d.height && back.depth == d.depth && back.flags == d.flags);
    CHECK_STATUS(cudyn_array_destroy(a), CUDYN_OK);
    free(in);
    free(out);
}

static void test_arrays(void)
{
    roundtrip(ARRAY_DESC(CUDYN_FORMAT_FLOAT, 1, 37, 0, 0, 0), 37 * 4);                     /* 1D */
    roundtrip(ARRAY_DESC(CUDYN_FORMAT_UINT16, 2, 13, 7, 0, 0), 13 * 7 * 4);                /* 2D */
    roundtrip(ARRAY_DESC(CUDYN_FORMAT_UINT8, 4, 5, 4, 3, 0), 5 * 4 * 3 * 4);                /* 3D */
    roundtrip(ARRAY_DESC(CUDYN_FORMAT_HALF, 1, 6, 0, 5, CUDYN_ARRAY_LAYERED), 6 * 5 * 2);   /* 1D layered */
    roundtrip(ARRAY_DESC(CUDYN_FORMAT_INT32, 1, 4, 3, 2, CUDYN_ARRAY_LAYERED | CUDYN_ARRAY_SURFACE), 4 * 3 * 2 * 4);

    /* descriptions that cannot be an array are refused, naming the field */
    static const struct {
        struct cudyn_array_desc d;
        const char *field;
    } bad[] = {
        {ARRAY_DESC(0x77, 1, 4, 4, 0, 0), "desc->format"},
        {ARRAY_DESC(CUDYN_FORMAT_FLOAT, 3, 4, 4, 0, 0), "desc->channels"},
        {ARRAY_DESC(CUDYN_FORMAT_FLOAT, 1, 0, 4, 0, 0), "desc->width"},
        {ARRAY_DESC(CUDYN_FORMAT_FLOAT, 1, 4, 4, 0, CUDYN_ARRAY_LAYERED), "desc->depth"},
        {ARRAY_DESC(CUDYN_FORMAT_FLOAT, 1, 4, 0, 3, 0), "desc->height"},
        {ARRAY_DESC(CUDYN_FORMAT_FLOAT, 1, 4, 4, 0, 0x40), "desc->flags"},
    };
    cudyn_array a = (cudyn_array)1;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        CHECK_STATUS(cudyn_array_create(&a, &bad[i].d), CUDYN_ERROR_INVALID_ARGUMENT);
        expect_message(bad[i].field);
        CHECK(a == NULL);
    }
    struct cudyn_array_desc small = ARRAY_DESC(CUDYN_FORMAT_FLOAT, 1, 4, 4, 0, 0);
    small.size = 8;
    CHECK_STATUS(cudyn_array_create(&a, &small), CUDYN_ERROR_INVALID_ARGUMENT);
    expect_message("desc->size");
    CHECK_STATUS(cudyn_array_create(NULL, &small), CUDYN_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(cudyn_array_create(&a, NULL), CUDYN_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(cudyn_array_destroy(NULL), CUDYN_OK);
    CHECK_STATUS(cudyn_array_describe(NULL, &small), CUDYN_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(cudyn_array_copy_from_host(NULL, &small), CUDYN_ERROR_INVALID_ARGUMENT);
    expect_message("'dst'");
    /* larger than the device: the driver's out-of-memory, with the shape */
    struct cudyn_array_desc huge = ARRAY_DESC(CUDYN_FORMAT_FLOAT, 4, 65536, 65536, 0, 0);
    CHECK_STATUS(cudyn_array_create(&a, &huge), CUDYN_ERROR_OUT_OF_MEMORY);
    expect_message("65536 x 65536 x 0 elements of 4 x 4 bytes");
}

#define SIDE_HOST(p, pitch_) ((struct cudyn_copy_side){.kind = CUDYN_COPY_HOST, .host = (void *)(p), .pitch = (pitch_)})
#define SIDE_DEVICE(d, pitch_) ((struct cudyn_copy_side){.kind = CUDYN_COPY_DEVICE, .device = (d), .pitch = (pitch_)})
#define SIDE_ARRAY(a) ((struct cudyn_copy_side){.kind = CUDYN_COPY_ARRAY, .array = (a)})

enum { COPY_W = 25, COPY_H = 7 };

/* A COPY_W x COPY_H float image holding 100 * y + x. */
static void fill_image(float img[COPY_H][COPY_W])
{
    for (int y = 0; y < COPY_H; y++)
        for (int x = 0; x < COPY_W; x++)
            img[y][x] = (float)(100 * y + x);
}

/* The 2D copy of the whole image from the host into pitched memory. */
static struct cudyn_copy image_to_pitched(float img[COPY_H][COPY_W], cudyn_devptr pitched, size_t pitch)
{
    return (struct cudyn_copy){.size = sizeof(struct cudyn_copy), .src = SIDE_HOST(img, 0),
                               .dst = SIDE_DEVICE(pitched, pitch), .width_bytes = COPY_W * 4, .height = COPY_H};
}

/* The 2D copy of the box x 5..14, y 2..4 of array a into box. */
static struct cudyn_copy array_box_to_host(cudyn_array a, float box[3][10])
{
    struct cudyn_copy part = {.size = sizeof part, .src = SIDE_ARRAY(a), .dst = SIDE_HOST(box, 0),
                              .width_bytes = 10 * 4, .height = 3};
    part.src.x_bytes = 5 * 4;
    part.src.y = 2;
    return part;
}

/* Host -> pitched device memory -> array -> a box back to the host, in 2D
 * (sync, then the box on a stream). */
static void test_copies_2d(void)
{
    float img[COPY_H][COPY_W], box[3][10];
    fill_image(img);
    cudyn_devptr pitched = 0;
    size_t pitch = 0;
    CHECK_STATUS(cudyn_mem_alloc_pitch(&pitched, &pitch, COPY_W * 4, COPY_H, 4), CUDYN_OK);
    CHECK(pitch >= COPY_W * 4);
    struct cudyn_array_desc d = ARRAY_DESC(CUDYN_FORMAT_FLOAT, 1, COPY_W, COPY_H, 0, 0);
    cudyn_array a = NULL;
    CHECK_STATUS(cudyn_array_create(&a, &d), CUDYN_OK);
    struct cudyn_copy c = image_to_pitched(img, pitched, pitch);
    CHECK_STATUS(cudyn_memcpy_2d(&c), CUDYN_OK);
    c.src = SIDE_DEVICE(pitched, pitch);
    c.dst = SIDE_ARRAY(a);
    CHECK_STATUS(cudyn_memcpy_2d(&c), CUDYN_OK);
    cudyn_stream s = NULL;
    CHECK_STATUS(cudyn_stream_create(&s, 0), CUDYN_OK);
    struct cudyn_copy part = array_box_to_host(a, box);
    CHECK_STATUS(cudyn_memcpy_2d_async(&part, s), CUDYN_OK);
    CHECK_STATUS(cudyn_stream_synchronize(s), CUDYN_OK);
    int wrong = 0;
    for (int y = 0; y < 3; y++)
        for (int x = 0; x < 10; x++)
            wrong += box[y][x] != img[y + 2][x + 5];
    CHECK_EQ_INT(wrong, 0);
    cudyn_stream_destroy(s);
    cudyn_mem_free(pitched);
    cudyn_array_destroy(a);
}

/* The copy of a 6 x 4 x 3 byte volume into device memory of pitch 8 and
 * 5 rows per slice. */
static struct cudyn_copy volume_to_device(unsigned char vol[3][4][6], cudyn_devptr dv)
{
    struct cudyn_copy c3 = {.size = sizeof c3, .src = SIDE_HOST(vol, 0), .dst = SIDE_DEVICE(dv, 8),
                            .width_bytes = 6, .height = 4, .depth = 3};
    c3.dst.rows = 5;
    return c3;
}

/* 3D: a volume into device memory, then the box x 1..4, y 1..2, z 1..2
 * back on a stream: offsets in every dimension. */
static void test_copies_3d(void)
{
    unsigned char vol[3][4][6], sub[2][2][4];
    for (size_t i = 0; i < sizeof vol; i++)
        ((unsigned char *)vol)[i] = (unsigned char)i;
    cudyn_devptr dv = 0;
    CHECK_STATUS(cudyn_mem_alloc(&dv, 8 * 5 * 3), CUDYN_OK);
    cudyn_stream s = NULL;
    CHECK_STATUS(cudyn_stream_create(&s, 0), CUDYN_OK);
    struct cudyn_copy c3 = volume_to_device(vol, dv);
    CHECK_STATUS(cudyn_memcpy_3d(&c3), CUDYN_OK);
    struct cudyn_copy back = {.size = sizeof back, .src = SIDE_DEVICE(dv, 8), .dst = SIDE_HOST(sub, 0),
                              .width_bytes = 4, .height = 2, .depth = 2};
    back.src.rows = 5;
    back.src.x_bytes = 1;
    back.src.y = 1;
    back.src.z = 1;
    CHECK_STATUS(cudyn_memcpy_3d_async(&back, s), CUDYN_OK);
    CHECK_STATUS(cudyn_stream_synchronize(s), CUDYN_OK);
    int wrong = 0;
    for (int z = 0; z < 2; z++)
        for (int y = 0; y < 2; y++)
            for (int x = 0; x < 4; x++)
                wrong += sub[z][y][x] != vol[z + 1][y + 1][x + 1];
    CHECK_EQ_INT(wrong, 0);
    cudyn_stream_destroy(s);
    cudyn_mem_free(dv);
}

/* Copies refused before the driver, naming the field; a box that leaves
 * its array, refused by the driver; bad pitched allocations. */
static void test_copies_refused(void)
{
    float img[COPY_H][COPY_W], box[3][10];
    fill_image(img);
    cudyn_devptr pitched = 0, dv = 0;
    size_t pitch = 0;
    CHECK_STATUS(cudyn_mem_alloc_pitch(&pitched, &pitch, COPY_W * 4, COPY_H, 4), CUDYN_OK);
    CHECK_STATUS(cudyn_mem_alloc(&dv, 8 * 5 * 3), CUDYN_OK);
    struct cudyn_array_desc d = ARRAY_DESC(CUDYN_FORMAT_FLOAT, 1, COPY_W, COPY_H, 0, 0);
    cudyn_array a = NULL;
    CHECK_STATUS(cudyn_array_create(&a, &d), CUDYN_OK);
    cudyn_stream s = NULL;
    CHECK_STATUS(cudyn_stream_create(&s, 0), CUDYN_OK);
    unsigned char vol[3][4][6] = {{{0}}};
    struct cudyn_copy c = image_to_pitched(img, pitched, pitch), c3 = volume_to_device(vol, dv);

    struct cudyn_copy bad = c;
    bad.src.kind = 9;
    CHECK_STATUS(cudyn_memcpy_2d(&bad), CUDYN_ERROR_INVALID_ARGUMENT);
    expect_message("copy->src.kind");
    bad = c;
    bad.dst = SIDE_HOST(NULL, 0);
    CHECK_STATUS(cudyn_memcpy_2d(&bad), CUDYN_ERROR_INVALID_ARGUMENT);
    expect_message("copy->dst.host");
    bad = c;
    bad.src.pitch = COPY_W * 4 - 1;
    CHECK_STATUS(cudyn_memcpy_2d(&bad), CUDYN_ERROR_INVALID_ARGUMENT);
    expect_message("'copy->src.pitch' is 99 bytes, less than x_bytes + width_bytes (0 + 100)");
    bad = c;
    bad.depth = 2;
    CHECK_STATUS(cudyn_memcpy_2d(&bad), CUDYN_ERROR_INVALID_ARGUMENT);
    expect_message("copy->depth");
    bad = c;
    bad.width_bytes = 0;
    CHECK_STATUS(cudyn_memcpy_3d(&bad), CUDYN_ERROR_INVALID_ARGUMENT);
    bad = c3;
    bad.dst.rows = 3;
    CHECK_STATUS(cudyn_memcpy_3d(&bad), CUDYN_ERROR_INVALID_ARGUMENT);
    expect_message("copy->dst.rows");
    bad = c;
    bad.size = 1;
    CHECK_STATUS(cudyn_memcpy_2d(&bad), CUDYN_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(cudyn_memcpy_3d_async(NULL, s), CUDYN_ERROR_INVALID_ARGUMENT);
    /* refused by the driver: the box leaves the array */
    struct cudyn_copy part = array_box_to_host(a, box);
    part.src.y = 5;
    CHECK_STATUS(cudyn_memcpy_2d(&part), CUDYN_ERROR_INVALID_ARGUMENT);
    expect_message("cuMemcpy2D returned CUDA_ERROR_INVALID_VALUE");
    expect_message("(40 x 3 x 1 bytes from an array to host memory)");
    cudyn_devptr p = 0;
    CHECK_STATUS(cudyn_mem_alloc_pitch(&p, &pitch, 16, 2, 3), CUDYN_ERROR_INVALID_ARGUMENT);
    expect_message("element_bytes");
    CHECK_STATUS(cudyn_mem_alloc_pitch(&p, NULL, 16, 2, 4), CUDYN_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(cudyn_mem_alloc_pitch(&p, &pitch, 16, 0, 4), CUDYN_ERROR_INVALID_ARGUMENT);

    cudyn_stream_destroy(s);
    cudyn_mem_free(dv);
    cudyn_mem_free(pitched);
    cudyn_array_destroy(a);
}

/* Samples texture t at n coordinates through the mock's tex2d_read. */
static void sample(cudyn_texture t, const float *xy, int n, float *out)
{
    CHECK_STATUS(cudyn_launchf(tex2d_read, (cudyn_dim3){1, 1, 1}, (cudyn_dim3){64, 1, 1}, 0, NULL, ">t<i", out,
                               n * sizeof(float), t, xy, 2 * n * sizeof(float), n),
                 CUDYN_OK);
}

/* A 4 x 4 float array holding 10 * y + x. */
static cudyn_array grid_array(void)
{
    float v[4][4];
    for (int y = 0; y < 4; y++)
        for (int x = 0; x < 4; x++)
            v[y][x] = (float)(10 * y + x);
    struct cudyn_array_desc d = ARRAY_DESC(CUDYN_FORMAT_FLOAT, 1, 4, 4, 0, 0);
    cudyn_array a = NULL;
    CHECK_STATUS(cudyn_array_create(&a, &d), CUDYN_OK);
    CHECK_STATUS(cudyn_array_copy_from_host(a, v), CUDYN_OK);
    return a;
}

static struct cudyn_texture_desc over_array(cudyn_array a, int filter, int mode, int normalized)
{
    struct cudyn_texture_desc t = {.size = sizeof t, .resource = CUDYN_RESOURCE_ARRAY, .array = a, .filter = filter,
                                   .read_mode = CUDYN_READ_ELEMENT_TYPE, .normalized_coords = normalized};
    for (int i = 0; i < 3; i++)
        t.address_mode[i] = mode;
    for (int i = 0; i < 4; i++)
        t.border_color[i] = 7.0f;
    return t;
}

/* Samples `expect` at xy with the texture described by t. */
static void expect_samples(struct cudyn_texture_desc t, const float *xy, const float *expect, int n)
{
    cudyn_texture tex = 0;
    CHECK_STATUS(cudyn_texture_create(&tex, &t), CUDYN_OK);
    float got[8] = {0};
    sample(tex, xy, n, got);
    for (int i = 0; i < n; i++)
        if (got[i] != expect[i]) {
            fprintf(stderr, "sample %d at (%g, %g): %g, expected %g\n", i, xy[2 * i], xy[2 * i + 1], got[i],
                    expect[i]);
            test_failures++;
        }
    CHECK_STATUS(cudyn_texture_destroy(tex), CUDYN_OK);
}

/* Sampling an array: point and linear filters; clamp, border, wrap and
 * mirror addressing. */
static void test_sampling_array(void)
{
    cudyn_array a = grid_array();
    /* point, clamp, coordinates in elements */
    const float p_xy[] = {1.5f, 2.5f, -3.0f, 0.5f, 10.0f, 10.0f};
    const float p_want[] = {21, 0, 33};
    expect_samples(over_array(a, CUDYN_FILTER_POINT, CUDYN_ADDRESS_CLAMP, 0), p_xy, p_want, 3);
    /* linear: the four neighbours of the texel centres around (x - 0.5, y - 0.5) */
    const float l_xy[] = {1.0f, 2.0f, 1.25f, 1.5f};
    const float l_want[] = {15.5f, 10.75f};
    expect_samples(over_array(a, CUDYN_FILTER_LINEAR, CUDYN_ADDRESS_CLAMP, 0), l_xy, l_want, 2);
    /* border: outside reads the border colour */
    const float b_xy[] = {-1.0f, 0.5f, 3.5f, 3.5f};
    const float b_want[] = {7, 33};
    expect_samples(over_array(a, CUDYN_FILTER_POINT, CUDYN_ADDRESS_BORDER, 0), b_xy, b_want, 2);
    /* normalised coordinates: wrap and mirror (element 5 of 4 is 1, mirrored 2) */
    const float n_xy[] = {1.25f, 0.125f, 0.375f, 0.875f};
    const float wrap_want[] = {1, 31}, mirror_want[] = {2, 31};
    expect_samples(over_array(a, CUDYN_FILTER_POINT, CUDYN_ADDRESS_WRAP, 1), n_xy, wrap_want, 2);
    expect_samples(over_array(a, CUDYN_FILTER_POINT, CUDYN_ADDRESS_MIRROR, 1), n_xy, mirror_want, 2);
    cudyn_array_destroy(a);
}

/* A 3 x 2 byte image in pitched memory (*img, the caller frees it), and a
 * texture over it reading normalised floats. */
static struct cudyn_texture_desc pitched_bytes(cudyn_devptr *img)
{
    size_t pitch = 0;
    CHECK_STATUS(cudyn_mem_alloc_pitch(img, &pitch, 3, 2, 4), CUDYN_OK);
    const unsigned char bytes[2][3] = {{0, 51, 255}, {102, 204, 153}};
    struct cudyn_copy c = {.size = sizeof c, .src = SIDE_HOST(bytes, 3), .dst = SIDE_DEVICE(*img, pitch),
                           .width_bytes = 3, .height = 2};
    CHECK_STATUS(cudyn_memcpy_2d(&c), CUDYN_OK);
    struct cudyn_texture_desc t = {.size = sizeof t, .resource = CUDYN_RESOURCE_PITCH2D, .device = *img,
                                   .format = CUDYN_FORMAT_UINT8, .channels = 1, .width = 3, .height = 2,
                                   .pitch = pitch, .address_mode = {CUDYN_ADDRESS_CLAMP, CUDYN_ADDRESS_CLAMP},
                                   .read_mode = CUDYN_READ_NORMALIZED_FLOAT};
    return t;
}

/* Bytes read as normalised floats, through pitched memory. */
static void test_sampling_pitched(void)
{
    cudyn_devptr img = 0;
    struct cudyn_texture_desc t = pitched_bytes(&img);
    const float u_xy[] = {0.5f, 0.5f, 1.5f, 0.5f, 2.5f, 0.5f, 1.5f, 1.5f};
    const float u_want[] = {0.0f, 0.2f, 1.0f, 0.8f};
    expect_samples(t, u_xy, u_want, 4);
    cudyn_mem_free(img);
}

/* Ten floats i * 1.5 in linear memory (*lin, the caller frees it), and a
 * texture over them. */
static struct cudyn_texture_desc linear_floats(cudyn_devptr *lin)
{
    float ten[10];
    for (int i = 0; i < 10; i++)
        ten[i] = (float)i * 1.5f;
    CHECK_STATUS(cudyn_mem_alloc(lin, sizeof ten), CUDYN_OK);
    CHECK_STATUS(cudyn_memcpy_htod(*lin, ten, sizeof ten), CUDYN_OK);
    struct cudyn_texture_desc lt = {.size = sizeof lt, .resource = CUDYN_RESOURCE_LINEAR, .device = *lin,
                                    .format = CUDYN_FORMAT_FLOAT, .channels = 1, .bytes = sizeof ten};
    return lt;
}

/* Linear memory, read by index; past its end a fetch reads 0. */
static void test_sampling_linear(void)
{
    cudyn_devptr lin = 0;
    struct cudyn_texture_desc lt = linear_floats(&lin);
    cudyn_texture tex = 0;
    CHECK_STATUS(cudyn_texture_create(&tex, &lt), CUDYN_OK);
    float fetched[12];
    CHECK_STATUS(cudyn_launchf(tex1d_fetch, (cudyn_dim3){1, 1, 1}, (cudyn_dim3){32, 1, 1}, 0, NULL, ">ti", fetched,
                               sizeof fetched, tex, 12),
                 CUDYN_OK);
    CHECK(fetched[9] == 13.5f && fetched[3] == 4.5f && fetched[10] == 0.0f && fetched[11] == 0.0f);
    CHECK_STATUS(cudyn_texture_destroy(tex), CUDYN_OK);
    CHECK_STATUS(cudyn_texture_destroy(0), CUDYN_OK);
    cudyn_mem_free(lin);
}

/* What CUDA documents as invalid is refused, naming the field. */
static void test_texture_refused(void)
{
    cudyn_array a = grid_array();
    cudyn_devptr img = 0, lin = 0;
    struct cudyn_texture_desc t = pitched_bytes(&img), lt = linear_floats(&lin);
    cudyn_texture tex = 0;
    struct cudyn_array_desc bd = ARRAY_DESC(CUDYN_FORMAT_UINT8, 1, 4, 4, 0, 0);
    cudyn_array bytes_array = NULL;
    CHECK_STATUS(cudyn_array_create(&bytes_array, &bd), CUDYN_OK);
    static const struct {
        int which; /* 0: float array, 1: byte array, 2: linear, 3: int32 linear */
        int filter, mode, normalized, read_mode;
        const char *field;
    } bad[] = {
        {1, CUDYN_FILTER_LINEAR, CUDYN_ADDRESS_CLAMP, 0, CUDYN_READ_ELEMENT_TYPE, "desc->filter"},
        {0, CUDYN_FILTER_POINT, CUDYN_ADDRESS_WRAP, 0, CUDYN_READ_ELEMENT_TYPE, "desc->address_mode[0]"},
        {0, CUDYN_FILTER_POINT, 9, 1, CUDYN_READ_ELEMENT_TYPE, "desc->address_mode[0]"},
        {0, 5, CUDYN_ADDRESS_CLAMP, 0, CUDYN_READ_ELEMENT_TYPE, "desc->filter"},
        {0, CUDYN_FILTER_POINT, CUDYN_ADDRESS_CLAMP, 2, CUDYN_READ_ELEMENT_TYPE, "desc->normalized_coords"},
        {0, CUDYN_FILTER_POINT, CUDYN_ADDRESS_CLAMP, 0, 4, "desc->read_mode"},
        {2, CUDYN_FILTER_LINEAR, CUDYN_ADDRESS_CLAMP, 0, CUDYN_READ_ELEMENT_TYPE, "desc->filter"},
        {2, CUDYN_FILTER_POINT, CUDYN_ADDRESS_CLAMP, 1, CUDYN_READ_ELEMENT_TYPE, "desc->normalized_coords"},
        {3, CUDYN_FILTER_POINT, CUDYN_ADDRESS_CLAMP, 0, CUDYN_READ_NORMALIZED_FLOAT, "desc->read_mode"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct cudyn_texture_desc bt = bad[i].which < 2 ? over_array(bad[i].which ? bytes_array : a, bad[i].filter,
                                                                     bad[i].mode, bad[i].normalized)
                                                        : lt;
        bt.filter = bad[i].filter;
        bt.normalized_coords = bad[i].normalized;
        bt.read_mode = bad[i].read_mode;
        if (bad[i].which == 3)
            bt.format = CUDYN_FORMAT_INT32;
        cudyn_texture none = 1;
        CHECK_STATUS(cudyn_texture_create(&none, &bt), CUDYN_ERROR_INVALID_ARGUMENT);
        expect_message(bad[i].field);
        CHECK(none == 0);
    }
    struct cudyn_texture_desc bt = t;
    bt.pitch = 2;
    CHECK_STATUS(cudyn_texture_create(&tex, &bt), CUDYN_ERROR_INVALID_ARGUMENT);
    expect_message("desc->pitch");
    bt = t;
    bt.resource = 1;
    CHECK_STATUS(cudyn_texture_create(&tex, &bt), CUDYN_ERROR_INVALID_ARGUMENT);
    expect_message("desc->resource");
    bt = over_array(NULL, CUDYN_FILTER_POINT, CUDYN_ADDRESS_CLAMP, 0);
    CHECK_STATUS(cudyn_texture_create(&tex, &bt), CUDYN_ERROR_INVALID_ARGUMENT);
    expect_message("desc->array");
    bt.size = 0;
    CHECK_STATUS(cudyn_texture_create(&tex, &bt), CUDYN_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(cudyn_texture_create(NULL, &t), CUDYN_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(cudyn_texture_create(&tex, NULL), CUDYN_ERROR_INVALID_ARGUMENT);

    cudyn_array_destroy(bytes_array);
    cudyn_mem_free(lin);
    cudyn_mem_free(img);
    cudyn_array_destroy(a);
}

static void test_surfaces(void)
{
    enum { W = 8, H = 4 };
    float v[H][W], back[H][W];
    for (int i = 0; i < W * H; i++)
        v[i / W][i % W] = (float)i;
    struct cudyn_array_desc d = ARRAY_DESC(CUDYN_FORMAT_FLOAT, 1, W, H, 0, CUDYN_ARRAY_SURFACE);
    cudyn_array a = NULL;
    CHECK_STATUS(cudyn_array_create(&a, &d), CUDYN_OK);
    CHECK_STATUS(cudyn_array_copy_from_host(a, v), CUDYN_OK);
    cudyn_surface s = 0;
    CHECK_STATUS(cudyn_surface_create(&s, a), CUDYN_OK);
    CHECK(s != 0);
    CHECK_STATUS(cudyn_launchf(surf2d_scale, (cudyn_dim3){1, 1, 1}, (cudyn_dim3){W, H, 1}, 0, NULL, "uiif", s, W, H,
                               3.0),
                 CUDYN_OK);
    CHECK_STATUS(cudyn_array_copy_to_host(back, a), CUDYN_OK);
    CHECK(back[0][1] == 3.0f && back[3][7] == 93.0f);
    CHECK_STATUS(cudyn_surface_destroy(s), CUDYN_OK);
    CHECK_STATUS(cudyn_surface_destroy(0), CUDYN_OK);
    /* a surface needs an array made for one */
    cudyn_array plain = grid_array();
    CHECK_STATUS(cudyn_surface_create(&s, plain), CUDYN_ERROR_INVALID_ARGUMENT);
    expect_message("CUDYN_ARRAY_SURFACE");
    CHECK_STATUS(cudyn_surface_create(&s, NULL), CUDYN_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(cudyn_surface_create(NULL, a), CUDYN_ERROR_INVALID_ARGUMENT);
    cudyn_array_destroy(plain);
    cudyn_array_destroy(a);
}

/* ---- fault injection: each driver call fails in turn ---- */

static int op_array(void)
{
    struct cudyn_array_desc d = ARRAY_DESC(CUDYN_FORMAT_FLOAT, 1, 16, 4, 0, 0);
    cudyn_array a = NULL;
    int st = cudyn_array_create(&a, &d);
    float v[64] = {0};
    if (st == CUDYN_OK)
        st = cudyn_array_copy_from_host(a, v);
    struct cudyn_array_desc back = {.size = sizeof back};
    if (st == CUDYN_OK)
        st = cudyn_array_describe(a, &back);
    if (a && cudyn_array_destroy(a) != CUDYN_OK) {
        cudyn_array_destroy(a); /* the driver kept it: destroy for real */
        return st == CUDYN_OK ? cudyn_last_error(NULL) : st;
    }
    return st;
}

static int op_copies(void)
{
    cudyn_devptr p = 0;
    size_t pitch = 0;
    int st = cudyn_mem_alloc_pitch(&p, &pitch, 64, 4, 4);
    if (st != CUDYN_OK)
        return st;
    char host[256] = {0};
    struct cudyn_copy c = {.size = sizeof c, .src = SIDE_HOST(host, 64), .dst = SIDE_DEVICE(p, pitch),
                           .width_bytes = 64, .height = 4};
    st = cudyn_memcpy_2d(&c);
    if (st == CUDYN_OK)
        st = cudyn_memcpy_2d_async(&c, NULL);
    if (st == CUDYN_OK)
        st = cudyn_memcpy_3d(&c);
    if (st == CUDYN_OK)
        st = cudyn_memcpy_3d_async(&c, NULL);
    cudyn_mem_free(p);
    return st;
}

static int op_texture(void)
{
    struct cudyn_array_desc d = ARRAY_DESC(CUDYN_FORMAT_FLOAT, 1, 4, 4, 0, 0);
    cudyn_array a = NULL;
    if (cudyn_array_create(&a, &d) != CUDYN_OK)
        return -1;
    struct cudyn_texture_desc t = over_array(a, CUDYN_FILTER_POINT, CUDYN_ADDRESS_CLAMP, 0);
    cudyn_texture tex = 0;
    int st = cudyn_texture_create(&tex, &t);
    if (tex && cudyn_texture_destroy(tex) != CUDYN_OK) {
        st = cudyn_last_error(NULL);
        cudyn_texture_destroy(tex);
    }
    cudyn_array_destroy(a);
    return st;
}

static int op_surface(void)
{
    struct cudyn_array_desc d = ARRAY_DESC(CUDYN_FORMAT_FLOAT, 1, 4, 4, 0, CUDYN_ARRAY_SURFACE);
    cudyn_array a = NULL;
    if (cudyn_array_create(&a, &d) != CUDYN_OK)
        return -1;
    cudyn_surface s = 0;
    int st = cudyn_surface_create(&s, a);
    if (s && cudyn_surface_destroy(s) != CUDYN_OK) {
        st = cudyn_last_error(NULL);
        cudyn_surface_destroy(s);
    }
    cudyn_array_destroy(a);
    return st;
}

static void test_fault_injection(void)
{
    static const struct fault_case cases[] = {
        {"cuArray3DCreate_v2", op_array},        {"cuArray3DGetDescriptor_v2", op_array},
        {"cuMemcpy3D_v2", op_array},             {"cuArrayDestroy", op_array},
        {"cuMemAllocPitch_v2", op_copies},       {"cuMemcpy2D_v2", op_copies},
        {"cuMemcpy2DAsync_v2", op_copies},       {"cuMemcpy3DAsync_v2", op_copies},
        {"cuTexObjectCreate", op_texture},       {"cuTexObjectDestroy", op_texture},
        {"cuArray3DGetDescriptor_v2", op_texture}, {"cuSurfObjectCreate", op_surface},
        {"cuSurfObjectDestroy", op_surface},     {"cuArray3DGetDescriptor_v2", op_surface},
    };
    static const struct fault_code codes[] = {
        {2, CUDYN_ERROR_OUT_OF_MEMORY}, {999, CUDYN_ERROR_DRIVER}, {1, CUDYN_ERROR_INVALID_ARGUMENT},
    };
    FAULT_SWEEP(cases, codes, NULL);
}

/* CUDA 11.0: no cuGetProcAddress; every row found by its exact name. */
static int child_cuda_11_0(void)
{
    use_mock_driver();
    struct cudyn_loader_info l = {.size = sizeof l};
    cudyn_loader_info(&l);
    if (l.entry_mechanism != CUDYN_ENTRY_DLSYM)
        return 2;
    roundtrip(ARRAY_DESC(CUDYN_FORMAT_UINT16, 2, 13, 7, 0, 0), 13 * 7 * 4);
    CHECK_STATUS(cudyn_module_load_image(&mod, image), CUDYN_OK);
    CHECK_STATUS(cudyn_module_function(&tex2d_read, mod, "tex2d_read"), CUDYN_OK);
    cudyn_array a = grid_array();
    const float xy[] = {1.0f, 2.0f};
    const float want[] = {15.5f};
    expect_samples(over_array(a, CUDYN_FILTER_LINEAR, CUDYN_ADDRESS_CLAMP, 0), xy, want, 1);
    cudyn_array_destroy(a);
    cudyn_module_unload(mod);
    return test_failures ? 1 : 0;
}

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "cuda-11.0") == 0)
        return child_cuda_11_0();
    use_mock_driver();
    CHECK_STATUS(cudyn_module_load_image(&mod, image), CUDYN_OK);
    CHECK_STATUS(cudyn_module_function(&tex2d_read, mod, "tex2d_read"), CUDYN_OK);
    CHECK_STATUS(cudyn_module_function(&tex1d_fetch, mod, "tex1d_fetch"), CUDYN_OK);
    CHECK_STATUS(cudyn_module_function(&surf2d_scale, mod, "surf2d_scale"), CUDYN_OK);
    size_t memory = mock_device_memory_in_use();
    test_arrays();
    test_copies_2d();
    test_copies_3d();
    test_copies_refused();
    test_sampling_array();
    test_sampling_pitched();
    test_sampling_linear();
    test_texture_refused();
    test_surfaces();
    test_fault_injection();
    CHECK_EQ_INT(mock_device_memory_in_use(), memory);
    CHECK_EQ_INT(mock_array_count(), 0);
    CHECK_EQ_INT(mock_texture_count(), 0);
    cudyn_module_unload(mod);
    CHECK_EQ_INT(test_run_child(argv[0], "cuda-11.0", "MOCK_LIBCUDA_V11_0", "11000"), 0);
    return test_result("test_texture");
}
