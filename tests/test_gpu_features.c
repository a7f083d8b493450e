/*
 * test_gpu_features.c - arrays, textures, surfaces, extended launches,
 * graphs, stream-ordered and managed memory on a real GPU; skipped (77)
 * without one.  Kernels are CUDA C++ compiled by NVRTC through cudyn.
 *   - texture sampling exact against a host reference for point filtering
 *     (clamp, border, wrap, mirror; floats and bytes read as normalised
 *     floats) and within the 8-bit weights' tolerance for linear filtering;
 *     linear and pitched memory; a surface written in place
 *   - a cluster launch reading %cluster_ctarank (compute capability 9.0+),
 *     a cooperative launch synchronising its grid with cooperative_groups,
 *     a launch priority, 100 KiB of dynamic shared memory
 *   - a captured graph of 100 kernels giving the same result as the kernels
 *     launched singly, an update, and the two launch rates
 *   - stream-ordered allocation in a loop without growth of device memory
 *     use; managed memory prefetched to the GPU and back
 * The last line is one summary a person can quote.
 */
#include "config.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <time.h>

#include "cudyn.h"
#include "testutil.h"

static const char kernels[] =
    "extern \"C\" __global__ void tex2d_read(float *out, cudaTextureObject_t tex, const float *xy, int n)\n"
    "{\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n) out[i] = tex2D<float>(tex, xy[2 * i], xy[2 * i + 1]);\n"
    "}\n"
    "extern \"C\" __global__ void tex1d_fetch(float *out, cudaTextureObject_t tex, int n)\n"
    "{\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n) out[i] = tex1Dfetch<float>(tex, i);\n"
    "}\n"
    "extern \"C\" __global__ void surf2d_scale(cudaSurfaceObject_t surf, int width, int height, float a)\n"
    "{\n"
    "    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;\n"
    "    if (x >= width || y >= height) return;\n"
    "    float v = surf2Dread<float>(surf, x * 4, y);\n"
    "    surf2Dwrite(v * a, surf, x * 4, y);\n"
    "}\n"
    "extern \"C\" __global__ void step(float *x, float a, float b, size_t n)\n"
    "{\n"
    "    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;\n"
    "    if (i < n) x[i] = x[i] * a + b;\n"
    "}\n"
    "extern \"C\" __global__ void shared_reverse(float *out, const float *in, int n)\n"
    "{\n"
    "    extern __shared__ float buf[];\n"
    "    for (int i = threadIdx.x; i < n; i += blockDim.x) buf[i] = in[i];\n"
    "    __syncthreads();\n"
    "    for (int i = threadIdx.x; i < n; i += blockDim.x) out[i] = buf[n - 1 - i];\n"
    "}\n";

/* A grid-wide barrier from cooperative_groups, without -rdc: NVRTC builds
 * grid.sync() inline against the workspace a cooperative launch sets up. */
static const char cooperative_kernels[] =
    "#include <cooperative_groups.h>\n"
    "namespace cg = cooperative_groups;\n"
    "extern \"C\" __global__ void coop_shift(int *a, int *b, int n)\n"
    "{\n"
    "    cg::grid_group grid = cg::this_grid();\n"
    "    for (int i = grid.thread_rank(); i < n; i += grid.size()) a[i] = 3 * i;\n"
    "    grid.sync();\n"
    "    for (int i = grid.thread_rank(); i < n; i += grid.size()) b[i] = a[(i + 1) % n];\n"
    "}\n";

/* %cluster_ctarank by inline PTX (sm_90+): no headers needed. */
static const char cluster_kernels[] =
    "extern \"C\" __global__ void cluster_rank(unsigned int *out)\n"
    "{\n"
    "    unsigned int rank;\n"
    "    asm volatile(\"mov.u32 %0, %%cluster_ctarank;\" : \"=r\"(rank));\n"
    "    if (threadIdx.x == 0) out[blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z)] = rank;\n"
    "}\n";

static cudyn_module mod;
static cudyn_function tex2d_read, tex1d_fetch, surf2d_scale, step, shared_reverse;
static char summary[1024];

static void note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void note(const char *fmt, ...)
{
    size_t len = strlen(summary);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(summary + len, sizeof summary - len, fmt, ap);
    va_end(ap);
}

static double now_us(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

static void report_error(const char *what)
{
    cudyn_error e = {.size = sizeof e};
    cudyn_last_error(&e);
    fprintf(stderr, "%s: %s\n", what, e.message);
}

/* ------------------------------------------------------------------ textures */

enum { TW = 64, TH = 48 };
static float texels[TH][TW];

static float at(long x, long y, int mode, float border)
{
    long n[2] = {TW, TH}, i[2] = {x, y};
    for (int d = 0; d < 2; d++) {
        long m = ((i[d] % (2 * n[d])) + 2 * n[d]) % (2 * n[d]);
        switch (mode) {
        case CUDYN_ADDRESS_WRAP: i[d] = ((i[d] % n[d]) + n[d]) % n[d]; break;
        case CUDYN_ADDRESS_MIRROR: i[d] = m < n[d] ? m : 2 * n[d] - 1 - m; break;
        case CUDYN_ADDRESS_BORDER:
            if (i[d] < 0 || i[d] >= n[d])
                return border;
            break;
        default: i[d] = i[d] < 0 ? 0 : i[d] >= n[d] ? n[d] - 1 : i[d];
        }
    }
    return texels[i[1]][i[0]];
}

/* The host's tex2D<float>; `bits` > 0 keeps that many fractional bits of
 * the linear weights, as the hardware does. */
static float reference(float x, float y, int filter, int mode, int normalized, int bits)
{
    if (normalized) {
        x *= TW;
        y *= TH;
    }
    if (filter == CUDYN_FILTER_POINT)
        return at((long)floorf(x), (long)floorf(y), mode, 7.0f);
    x -= 0.5f;
    y -= 0.5f;
    float x0 = floorf(x), y0 = floorf(y), a = x - x0, b = y - y0;
    if (bits) {
        a = roundf(a * (float)(1 << bits)) / (float)(1 << bits);
        b = roundf(b * (float)(1 << bits)) / (float)(1 << bits);
    }
    long i = (long)x0, j = (long)y0;
    return (1 - a) * (1 - b) * at(i, j, mode, 7) + a * (1 - b) * at(i + 1, j, mode, 7) +
           (1 - a) * b * at(i, j + 1, mode, 7) + a * b * at(i + 1, j + 1, mode, 7);
}

/* Samples n coordinates on the GPU. */
static int gpu_sample(cudyn_texture tex, const float *xy, int n, float *out)
{
    return cudyn_launchf(tex2d_read, (cudyn_dim3){(unsigned)(n + 255) / 256, 1, 1}, (cudyn_dim3){256, 1, 1}, 0, NULL,
                         ">t<i", out, n * sizeof(float), tex, xy, 2 * n * sizeof(float), n);
}

static cudyn_texture make_texture(cudyn_array a, int filter, int mode, int normalized)
{
    struct cudyn_texture_desc t = {.size = sizeof t, .resource = CUDYN_RESOURCE_ARRAY, .array = a,
                                   .address_mode = {mode, mode, mode}, .filter = filter,
                                   .read_mode = CUDYN_READ_ELEMENT_TYPE, .normalized_coords = normalized,
                                   .border_color = {7, 7, 7, 7}};
    cudyn_texture tex = 0;
    CHECK_STATUS(cudyn_texture_create(&tex, &t), CUDYN_OK);
    return tex;
}

/* Point sampling at element centres (nothing to round), every mode: exact. */
static int point_mismatches(cudyn_array a, int *samples)
{
    enum { N = 4096 };
    static float xy[2 * N], got[N];
    static const struct {
        int mode, normalized;
    } cases[] = {{CUDYN_ADDRESS_CLAMP, 0}, {CUDYN_ADDRESS_CLAMP, 1}, {CUDYN_ADDRESS_BORDER, 1},
                 {CUDYN_ADDRESS_WRAP, 1}, {CUDYN_ADDRESS_MIRROR, 1}};
    int wrong = 0;
    *samples = (int)(sizeof cases / sizeof cases[0]) * N;
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        for (int i = 0; i < N; i++) {
            float x = (float)((i * 37) % (3 * TW)) - TW + 0.5f, y = (float)((i * 11) % (3 * TH)) - TH + 0.5f;
            xy[2 * i] = cases[c].normalized ? x / TW : x;
            xy[2 * i + 1] = cases[c].normalized ? y / TH : y;
        }
        cudyn_texture tex = make_texture(a, CUDYN_FILTER_POINT, cases[c].mode, cases[c].normalized);
        CHECK_STATUS(gpu_sample(tex, xy, N, got), CUDYN_OK);
        for (int i = 0; i < N; i++)
            wrong += got[i] != reference(xy[2 * i], xy[2 * i + 1], CUDYN_FILTER_POINT, cases[c].mode,
                                         cases[c].normalized, 0);
        cudyn_texture_destroy(tex);
    }
    return wrong;
}

/* Linear filtering at random coordinates: the error against exact weights
 * (bounded by the 8-bit weights) and against 8-bit weights. */
static void linear_errors(cudyn_array a, float *exact_err, float *bits_err)
{
    enum { N = 1 << 16 };
    static float xy[2 * N], got[N];
    uint32_t r = 12345;
    for (int i = 0; i < 2 * N; i++) {
        r = r * 1664525u + 1013904223u;
        xy[i] = (float)(r >> 8) / (float)(1 << 24) * ((i % 2 ? TH : TW) + 4) - 2;
    }
    cudyn_texture tex = make_texture(a, CUDYN_FILTER_LINEAR, CUDYN_ADDRESS_CLAMP, 0);
    CHECK_STATUS(gpu_sample(tex, xy, N, got), CUDYN_OK);
    *exact_err = *bits_err = 0;
    for (int i = 0; i < N; i++) {
        float e = fabsf(got[i] - reference(xy[2 * i], xy[2 * i + 1], CUDYN_FILTER_LINEAR, CUDYN_ADDRESS_CLAMP, 0, 0));
        float q = fabsf(got[i] - reference(xy[2 * i], xy[2 * i + 1], CUDYN_FILTER_LINEAR, CUDYN_ADDRESS_CLAMP, 0, 8));
        *exact_err = e > *exact_err ? e : *exact_err;
        *bits_err = q > *bits_err ? q : *bits_err;
    }
    cudyn_texture_destroy(tex);
}

/* Bytes read as normalised floats from pitched memory, and floats fetched
 * by index from linear memory. */
static int other_resources(void)
{
    int wrong = 0;
    enum { W = 100, H = 3 };
    unsigned char bytes[H][W];
    for (int i = 0; i < W * H; i++)
        bytes[i / W][i % W] = (unsigned char)(i * 7);
    cudyn_devptr img = 0;
    size_t pitch = 0;
    CHECK_STATUS(cudyn_mem_alloc_pitch(&img, &pitch, W, H, 4), CUDYN_OK);
    struct cudyn_copy c = {.size = sizeof c, .src = {.kind = CUDYN_COPY_HOST, .host = bytes},
                           .dst = {.kind = CUDYN_COPY_DEVICE, .device = img, .pitch = pitch}, .width_bytes = W,
                           .height = H};
    CHECK_STATUS(cudyn_memcpy_2d(&c), CUDYN_OK);
    struct cudyn_texture_desc t = {.size = sizeof t, .resource = CUDYN_RESOURCE_PITCH2D, .device = img,
                                   .format = CUDYN_FORMAT_UINT8, .channels = 1, .width = W, .height = H,
                                   .pitch = pitch, .address_mode = {CUDYN_ADDRESS_CLAMP, CUDYN_ADDRESS_CLAMP},
                                   .read_mode = CUDYN_READ_NORMALIZED_FLOAT};
    cudyn_texture tex = 0;
    CHECK_STATUS(cudyn_texture_create(&tex, &t), CUDYN_OK);
    float xy[2 * W * H], got[W * H];
    for (int i = 0; i < W * H; i++) {
        xy[2 * i] = i % W + 0.5f;
        xy[2 * i + 1] = i / W + 0.5f;
    }
    CHECK_STATUS(gpu_sample(tex, xy, W * H, got), CUDYN_OK);
    for (int i = 0; i < W * H; i++)
        wrong += fabsf(got[i] - bytes[i / W][i % W] / 255.0f) > 1e-6f;
    cudyn_texture_destroy(tex);
    cudyn_mem_free(img);

    float lin[1000], fetched[1000];
    for (int i = 0; i < 1000; i++)
        lin[i] = (float)i * 0.25f;
    int align = 0; /* linear textures start at the device's texture alignment */
    if (cudyn_device_attribute(0, 14, &align) != CUDYN_OK || align <= 0) /* 14: texture_alignment */
        align = 512;
    cudyn_devptr base = 0;
    CHECK_STATUS(cudyn_mem_alloc(&base, sizeof lin + (size_t)align), CUDYN_OK);
    cudyn_devptr d = (base + (cudyn_devptr)align - 1) / (cudyn_devptr)align * (cudyn_devptr)align;
    CHECK_STATUS(cudyn_memcpy_htod(d, lin, sizeof lin), CUDYN_OK);
    struct cudyn_texture_desc lt = {.size = sizeof lt, .resource = CUDYN_RESOURCE_LINEAR, .device = d,
                                    .format = CUDYN_FORMAT_FLOAT, .channels = 1, .bytes = sizeof lin};
    CHECK_STATUS(cudyn_texture_create(&tex, &lt), CUDYN_OK);
    CHECK_STATUS(cudyn_launchf(tex1d_fetch, (cudyn_dim3){4, 1, 1}, (cudyn_dim3){256, 1, 1}, 0, NULL, ">ti", fetched,
                               sizeof fetched, tex, 1000),
                 CUDYN_OK);
    wrong += memcmp(fetched, lin, sizeof lin) != 0;
    cudyn_texture_destroy(tex);
    cudyn_mem_free(base);
    return wrong;
}

static int surface_check(void)
{
    enum { W = 40, H = 30 };
    float v[H][W], back[H][W];
    for (int i = 0; i < W * H; i++)
        v[i / W][i % W] = (float)i;
    struct cudyn_array_desc d = {.size = sizeof d, .format = CUDYN_FORMAT_FLOAT, .channels = 1, .width = W,
                                 .height = H, .flags = CUDYN_ARRAY_SURFACE};
    cudyn_array a = NULL;
    cudyn_surface s = 0;
    CHECK_STATUS(cudyn_array_create(&a, &d), CUDYN_OK);
    CHECK_STATUS(cudyn_array_copy_from_host(a, v), CUDYN_OK);
    CHECK_STATUS(cudyn_surface_create(&s, a), CUDYN_OK);
    CHECK_STATUS(cudyn_launchf(surf2d_scale, (cudyn_dim3){3, 2, 1}, (cudyn_dim3){16, 16, 1}, 0, NULL, "uiif", s, W, H,
                               0.5),
                 CUDYN_OK);
    CHECK_STATUS(cudyn_array_copy_to_host(back, a), CUDYN_OK);
    int wrong = 0;
    for (int i = 0; i < W * H; i++)
        wrong += back[i / W][i % W] != (float)i * 0.5f;
    cudyn_surface_destroy(s);
    cudyn_array_destroy(a);
    return wrong;
}

static void test_textures(void)
{
    uint32_t r = 99;
    for (int i = 0; i < TW * TH; i++) {
        r = r * 1664525u + 1013904223u;
        texels[i / TW][i % TW] = (float)(r >> 8) / (float)(1 << 24);
    }
    struct cudyn_array_desc d = {.size = sizeof d, .format = CUDYN_FORMAT_FLOAT, .channels = 1, .width = TW,
                                 .height = TH};
    cudyn_array a = NULL;
    CHECK_STATUS(cudyn_array_create(&a, &d), CUDYN_OK);
    CHECK_STATUS(cudyn_array_copy_from_host(a, texels), CUDYN_OK);
    int samples = 0, point = point_mismatches(a, &samples);
    CHECK_EQ_INT(point, 0);
    float exact_err = 0, bits_err = 0;
    linear_errors(a, &exact_err, &bits_err);
    CHECK(exact_err <= 2.0f / 256); /* two axes, each weight within 1/256 */
    cudyn_array_destroy(a);
    int others = other_resources(), surface = surface_check();
    CHECK_EQ_INT(others, 0);
    CHECK_EQ_INT(surface, 0);
    printf("texture: point %s (%d samples: clamp, border, wrap, mirror); linear max err %.2g against exact "
           "weights, %.2g against 8-bit weights; pitched bytes and linear memory %s; surface %s\n",
           point ? "WRONG" : "exact", samples, exact_err, bits_err, others ? "WRONG" : "ok", surface ? "WRONG" : "ok");
    note("texture point %s, linear max err %.1e; surface %s; ", point ? "WRONG" : "exact", exact_err,
         surface ? "WRONG" : "ok");
}

/* ------------------------------------------------------- extended launches */

static void test_clusters(int cc_major)
{
    int can = 0;
    cudyn_device_attribute(0, CUDYN_ATTR_CLUSTER_LAUNCH, &can);
    struct cudyn_launch_config c = {.size = sizeof c, .grid = {8, 2, 1}, .block = {32, 1, 1}, .cluster = {2, 2, 1}};
    if (!can || cc_major < 9) {
        CHECK_STATUS(cudyn_launch_ex(step, &c, NULL), CUDYN_ERROR_NOT_SUPPORTED);
        printf("clusters: not supported on this device, refused as documented\n");
        note("clusters n/a; ");
        return;
    }
    cudyn_module m = NULL;
    cudyn_function f = NULL;
    CHECK_STATUS(cudyn_module_load_source(&m, cluster_kernels, NULL, 0), CUDYN_OK);
    CHECK_STATUS(cudyn_module_function(&f, m, "cluster_rank"), CUDYN_OK);
    unsigned int ranks[16];
    cudyn_devptr d = 0;
    CHECK_STATUS(cudyn_mem_alloc(&d, sizeof ranks), CUDYN_OK);
    void *args[] = {&d};
    CHECK_STATUS(cudyn_launch_ex(f, &c, args), CUDYN_OK);
    CHECK_STATUS(cudyn_memcpy_dtoh(ranks, d, sizeof ranks), CUDYN_OK);
    int wrong = 0;
    for (unsigned int b = 0; b < 16; b++)
        wrong += ranks[b] != b % 8 % 2 + 2 * (b / 8 % 2);
    CHECK_EQ_INT(wrong, 0);
    c.cluster = (cudyn_dim3){8, 2, 1}; /* 16 blocks: not portable */
    int big = CUDYN_ERROR_INVALID_ARGUMENT;
    if (test_may_fail_on_purpose("a 16-block cluster")) {
        big = cudyn_launch_ex(f, &c, args);
        CHECK(big == CUDYN_ERROR_INVALID_ARGUMENT || big == CUDYN_ERROR_NOT_SUPPORTED);
    }
    cudyn_mem_free(d);
    cudyn_module_unload(m);
    printf("clusters: %%cluster_ctarank of an 8x2 grid in 2x2 clusters %s; a 16-block cluster refused (%s)\n",
           wrong ? "WRONG" : "as expected", cudyn_status_name(big));
    note("cluster ranks %s; ", wrong ? "WRONG" : "ok");
}

/* -I for CUDA 13's CCCL headers (cuda/std ...), which cooperative_groups.h
 * includes and which sit in include/cccl next to NVRTC's include/. */
static int cccl_option(char *buf, size_t cap)
{
    struct cudyn_loader_info l = {.size = sizeof l};
    if (cudyn_loader_info_ex(&l, CUDYN_LOAD_NVRTC) != CUDYN_OK || !l.nvrtc_path)
        return 0;
    const char *slash = strrchr(l.nvrtc_path, '/');
    if (!slash)
        return 0;
    snprintf(buf, cap, "-I%.*s/../include/cccl", (int)(slash - l.nvrtc_path), l.nvrtc_path);
    return access(buf + 2, R_OK) == 0;
}

static void test_cooperative(void)
{
    int can = 0, sms = 0, per_sm = 0;
    cudyn_device_attribute(0, CUDYN_ATTR_COOPERATIVE_LAUNCH, &can);
    cudyn_device_attribute(0, CUDYN_ATTR_MULTIPROCESSOR_COUNT, &sms);
    char include[1100];
    const char *options[] = {include};
    cudyn_module m = NULL;
    cudyn_function f = NULL;
    int st = cudyn_module_load_source(&m, cooperative_kernels, options, cccl_option(include, sizeof include));
    if (st != CUDYN_OK || !can) {
        if (st != CUDYN_OK)
            report_error("cooperative_groups kernel");
        printf("cooperative: %s\n", can ? "skipped: cooperative_groups.h did not compile with this NVRTC"
                                        : "not supported on this device");
        note("cooperative n/a; ");
        return;
    }
    CHECK_STATUS(cudyn_module_function(&f, m, "coop_shift"), CUDYN_OK);
    CHECK_STATUS(cudyn_occupancy_max_blocks(&per_sm, f, 256, 0), CUDYN_OK);
    unsigned int blocks = (unsigned int)(per_sm * sms);
    int n = 3000000;
    cudyn_devptr a = 0, b = 0;
    CHECK_STATUS(cudyn_mem_alloc(&a, n * sizeof(int)), CUDYN_OK);
    CHECK_STATUS(cudyn_mem_alloc(&b, n * sizeof(int)), CUDYN_OK);
    struct cudyn_launch_config c = {.size = sizeof c, .grid = {blocks, 1, 1}, .block = {256, 1, 1},
                                    .flags = CUDYN_LAUNCH_COOPERATIVE};
    void *args[] = {&a, &b, &n};
    CHECK_STATUS(cudyn_launch_ex(f, &c, args), CUDYN_OK);
    int *out = malloc(n * sizeof(int));
    CHECK_STATUS(cudyn_memcpy_dtoh(out, b, n * sizeof(int)), CUDYN_OK);
    int wrong = 0;
    for (int i = 0; i < n; i++)
        wrong += out[i] != 3 * ((i + 1) % n);
    CHECK_EQ_INT(wrong, 0);
    c.grid.x = blocks + (unsigned int)sms; /* more than fit at once */
    if (test_may_fail_on_purpose("a cooperative grid too large to fit"))
        CHECK_STATUS(cudyn_launch_ex(f, &c, args), CUDYN_ERROR_LAUNCH_OUT_OF_RESOURCES);
    free(out);
    cudyn_mem_free(a);
    cudyn_mem_free(b);
    cudyn_module_unload(m);
    printf("cooperative: grid sync over %u blocks x 256 threads, %d elements %s; %u blocks refused\n", blocks, n,
           wrong ? "WRONG" : "right", blocks + (unsigned int)sms);
    note("cooperative grid sync %s (%u blocks); ", wrong ? "WRONG" : "ok", blocks);
}

static void test_shared_and_priority(void)
{
    enum { N = 25600 }; /* 100 KiB of floats */
    float *in = malloc(N * sizeof(float)), *out = malloc(N * sizeof(float));
    for (int i = 0; i < N; i++)
        in[i] = (float)i;
    cudyn_devptr din = 0, dout = 0;
    CHECK_STATUS(cudyn_mem_alloc(&din, N * sizeof(float)), CUDYN_OK);
    CHECK_STATUS(cudyn_mem_alloc(&dout, N * sizeof(float)), CUDYN_OK);
    CHECK_STATUS(cudyn_memcpy_htod(din, in, N * sizeof(float)), CUDYN_OK);
    int n = N;
    void *args[] = {&dout, &din, &n};
    /* above the 48 KiB default: cudyn raises the kernel's limit first */
    int plain = cudyn_launch(shared_reverse, (cudyn_dim3){1, 1, 1}, (cudyn_dim3){256, 1, 1}, N * 4, NULL, args);
    CHECK_STATUS(plain, CUDYN_OK);
    CHECK_STATUS(cudyn_memcpy_dtoh(out, dout, N * sizeof(float)), CUDYN_OK);
    int plain_wrong = 0;
    for (int i = 0; i < N; i++)
        plain_wrong += out[i] != in[N - 1 - i];
    CHECK_EQ_INT(plain_wrong, 0);
    CHECK_STATUS(cudyn_memset_d8(dout, 0, N * sizeof(float)), CUDYN_OK);
    struct cudyn_launch_config c = {.size = sizeof c, .grid = {1, 1, 1}, .block = {256, 1, 1},
                                    .shared_bytes = N * 4};
    CHECK_STATUS(cudyn_launch_ex(shared_reverse, &c, args), CUDYN_OK);
    CHECK_STATUS(cudyn_memcpy_dtoh(out, dout, N * sizeof(float)), CUDYN_OK);
    int wrong = 0;
    for (int i = 0; i < N; i++)
        wrong += out[i] != in[N - 1 - i];
    CHECK_EQ_INT(wrong, 0);
    c.flags = CUDYN_LAUNCH_PRIORITY;
    c.priority = -1;
    int prio = cudyn_launch_ex(shared_reverse, &c, args);
    CHECK_STATUS(prio, CUDYN_OK);
    CHECK_STATUS(cudyn_synchronize(), CUDYN_OK);
    printf("dynamic shared memory: 102400 bytes raised and %s by cudyn_launch, %s by cudyn_launch_ex; "
           "priority launch %s\n",
           plain_wrong ? "WRONG" : "right", wrong ? "WRONG" : "right", cudyn_status_name(prio));
    note("100 KiB shared %s; ", wrong ? "WRONG" : "ok");
    cudyn_mem_free(din);
    cudyn_mem_free(dout);
    free(in);
    free(out);
}

/* ------------------------------------------------------------------- graphs */

enum { GRAPH_KERNELS = 100, GRAPH_N = 1 << 16 };

/* The 100 launches: x = x * a_k + b_k, in order (the result depends on it). */
static int launch_steps(cudyn_stream s, cudyn_devptr *x, float shift)
{
    static float a[GRAPH_KERNELS], b[GRAPH_KERNELS];
    static size_t n = GRAPH_N;
    for (int k = 0; k < GRAPH_KERNELS; k++) {
        a[k] = 1.0f + k * 1e-3f;
        b[k] = (float)k + shift;
        void *args[] = {x, &a[k], &b[k], &n};
        int st = cudyn_launch(step, (cudyn_dim3){GRAPH_N / 256, 1, 1}, (cudyn_dim3){256, 1, 1}, 0, s, args);
        if (st != CUDYN_OK)
            return st;
    }
    return CUDYN_OK;
}

static void reset(cudyn_devptr x, cudyn_stream s)
{
    CHECK_STATUS(cudyn_memset_d32_async(x, 0x3F800000u, GRAPH_N, s), CUDYN_OK); /* 1.0f */
}

static void test_graphs(void)
{
    cudyn_stream s = NULL;
    cudyn_devptr x = 0;
    static float single[GRAPH_N], replayed[GRAPH_N];
    CHECK_STATUS(cudyn_stream_create(&s, CUDYN_STREAM_NON_BLOCKING), CUDYN_OK);
    CHECK_STATUS(cudyn_mem_alloc(&x, sizeof single), CUDYN_OK);
    reset(x, s);
    CHECK_STATUS(launch_steps(s, &x, 0), CUDYN_OK);
    CHECK_STATUS(cudyn_memcpy_dtoh_async(single, x, sizeof single, s), CUDYN_OK);
    CHECK_STATUS(cudyn_stream_synchronize(s), CUDYN_OK);

    cudyn_graph g = NULL;
    cudyn_graph_exec e = NULL;
    CHECK_STATUS(cudyn_stream_begin_capture(s, CUDYN_CAPTURE_GLOBAL), CUDYN_OK);
    CHECK_STATUS(launch_steps(s, &x, 0), CUDYN_OK);
    CHECK_STATUS(cudyn_stream_end_capture(s, &g), CUDYN_OK);
    CHECK_STATUS(cudyn_graph_instantiate(&e, g, 0), CUDYN_OK);
    reset(x, s);
    CHECK_STATUS(cudyn_graph_launch(e, s), CUDYN_OK);
    CHECK_STATUS(cudyn_memcpy_dtoh_async(replayed, x, sizeof replayed, s), CUDYN_OK);
    CHECK_STATUS(cudyn_stream_synchronize(s), CUDYN_OK);
    int same = memcmp(single, replayed, sizeof single) == 0;
    CHECK(same);

    /* launch rates: 100 kernels singly vs one graph, each round synchronised */
    enum { ROUNDS = 50 };
    double t0 = now_us();
    for (int r = 0; r < ROUNDS; r++) {
        launch_steps(s, &x, 0);
        cudyn_stream_synchronize(s);
    }
    double t1 = now_us();
    for (int r = 0; r < ROUNDS; r++) {
        cudyn_graph_launch(e, s);
        cudyn_stream_synchronize(s);
    }
    double t2 = now_us();
    double us_single = (t1 - t0) / (ROUNDS * GRAPH_KERNELS), us_graph = (t2 - t1) / (ROUNDS * GRAPH_KERNELS);

    /* update: the same 100 launches with other constants */
    cudyn_graph g2 = NULL;
    CHECK_STATUS(cudyn_stream_begin_capture(s, CUDYN_CAPTURE_GLOBAL), CUDYN_OK);
    CHECK_STATUS(launch_steps(s, &x, 0.5f), CUDYN_OK);
    CHECK_STATUS(cudyn_stream_end_capture(s, &g2), CUDYN_OK);
    CHECK_STATUS(cudyn_graph_exec_update(e, g2), CUDYN_OK);
    reset(x, s);
    CHECK_STATUS(cudyn_graph_launch(e, s), CUDYN_OK);
    CHECK_STATUS(cudyn_memcpy_dtoh_async(replayed, x, sizeof replayed, s), CUDYN_OK);
    reset(x, s);
    CHECK_STATUS(launch_steps(s, &x, 0.5f), CUDYN_OK);
    CHECK_STATUS(cudyn_memcpy_dtoh_async(single, x, sizeof single, s), CUDYN_OK);
    CHECK_STATUS(cudyn_stream_synchronize(s), CUDYN_OK);
    int updated = memcmp(single, replayed, sizeof single) == 0;
    CHECK(updated);

    printf("graph: 100 captured kernels %s the kernels launched singly; updated in place: %s; "
           "%.2f us/kernel launched singly, %.2f us/kernel in the graph (%.1fx)\n",
           same ? "match" : "DIFFER FROM", updated ? "match" : "DIFFER", us_single, us_graph, us_single / us_graph);
    note("graph of 100 kernels %s single launches (%.2f us/kernel in the graph, %.2f singly); ",
         same && updated ? "=" : "!=", us_graph, us_single);
    cudyn_graph_destroy(g);
    cudyn_graph_destroy(g2);
    cudyn_graph_exec_destroy(e);
    cudyn_mem_free(x);
    cudyn_stream_destroy(s);
}

/* ------------------------------------------------------------------- memory */

static void test_async_alloc(void)
{
    int pools = 0;
    cudyn_device_attribute(0, CUDYN_ATTR_MEMORY_POOLS_SUPPORTED, &pools);
    if (!pools) {
        printf("stream-ordered allocation: no memory pools on this device\n");
        note("async alloc n/a; ");
        return;
    }
    cudyn_stream s = NULL;
    CHECK_STATUS(cudyn_stream_create(&s, CUDYN_STREAM_NON_BLOCKING), CUDYN_OK);
    const size_t bytes = (size_t)64 << 20;
    cudyn_devptr p = 0;
    /* one round first: the pool's first use, and what the driver sets up
     * lazily for the first memset on a stream (up to ~1 GiB measured on
     * an H100) is not growth */
    CHECK_STATUS(cudyn_mem_alloc_async(&p, bytes, s), CUDYN_OK);
    CHECK_STATUS(cudyn_memset_d32_async(p, 0, bytes / 4, s), CUDYN_OK);
    CHECK_STATUS(cudyn_mem_free_async(p, s), CUDYN_OK);
    CHECK_STATUS(cudyn_stream_synchronize(s), CUDYN_OK);
    size_t before = 0, after = 0, total = 0;
    CHECK_STATUS(cudyn_mem_info(&before, &total), CUDYN_OK);
    for (int i = 0; i < 1000; i++) {
        CHECK_STATUS(cudyn_mem_alloc_async(&p, bytes, s), CUDYN_OK);
        CHECK_STATUS(cudyn_memset_d32_async(p, (uint32_t)i, bytes / 4, s), CUDYN_OK);
        CHECK_STATUS(cudyn_mem_free_async(p, s), CUDYN_OK);
    }
    uint64_t high = 0, reserved = 0;
    CHECK_STATUS(cudyn_mem_pool_attribute(0, CUDYN_POOL_RESERVED_HIGH, &high), CUDYN_OK);
    CHECK_STATUS(cudyn_stream_synchronize(s), CUDYN_OK);
    CHECK_STATUS(cudyn_mem_pool_attribute(0, CUDYN_POOL_RESERVED_CURRENT, &reserved), CUDYN_OK);
    CHECK_STATUS(cudyn_mem_info(&after, &total), CUDYN_OK);
    /* no growth: the pool never held more than a few rounds and gave all
     * back at the synchronisation (its release threshold is 0).  Device
     * free memory is printed, not checked: it is the whole device's, and
     * moves with every other process on it (make -j check runs the GPU
     * tests side by side; compute-sanitizer takes memory of its own). */
    CHECK(high <= 4 * bytes);
    CHECK(reserved == 0);
    printf("stream-ordered allocation: 1000 x 64 MiB on one stream, the pool held at most %.0f MiB; device free "
           "%.1f MiB before, %.1f MiB after; pool holds %.0f MiB after synchronising\n",
           high / 1048576.0, before / 1048576.0, after / 1048576.0, reserved / 1048576.0);
    note("async alloc x1000 no growth (%+.1f MiB); ", ((double)after - (double)before) / 1048576.0);
    cudyn_stream_destroy(s);
}

static void test_managed(void)
{
    int managed = 0;
    cudyn_device_attribute(0, CUDYN_ATTR_MANAGED_MEMORY, &managed);
    if (!managed) {
        printf("managed memory: not supported on this device\n");
        note("managed n/a");
        return;
    }
    const size_t n = (size_t)16 << 20;
    cudyn_devptr m = 0;
    CHECK_STATUS(cudyn_mem_alloc_managed(&m, n * sizeof(float), CUDYN_MEM_ATTACH_GLOBAL), CUDYN_OK);
    float *host = (float *)(uintptr_t)m;
    for (size_t i = 0; i < n; i++)
        host[i] = (float)(i % 1000);
    struct cudyn_pointer_info info = {.size = sizeof info};
    CHECK_STATUS(cudyn_pointer_info(m, &info), CUDYN_OK);
    CHECK_EQ_INT(info.kind, CUDYN_POINTER_MANAGED);
    cudyn_stream s = NULL;
    CHECK_STATUS(cudyn_stream_create(&s, CUDYN_STREAM_NON_BLOCKING), CUDYN_OK);
    CHECK_STATUS(cudyn_mem_advise(m, n * sizeof(float), CUDYN_ADVISE_SET_PREFERRED_LOCATION, 0), CUDYN_OK);
    CHECK_STATUS(cudyn_mem_prefetch(m, n * sizeof(float), 0, s), CUDYN_OK);
    float a = 2.0f, b = 1.0f;
    void *args[] = {&m, &a, &b, (void *)&n};
    CHECK_STATUS(cudyn_launch(step, (cudyn_dim3){(unsigned)(n / 256), 1, 1}, (cudyn_dim3){256, 1, 1}, 0, s, args),
                 CUDYN_OK);
    CHECK_STATUS(cudyn_mem_prefetch(m, n * sizeof(float), CUDYN_HOST, s), CUDYN_OK);
    CHECK_STATUS(cudyn_stream_synchronize(s), CUDYN_OK);
    size_t wrong = 0;
    for (size_t i = 0; i < n; i++)
        wrong += host[i] != 2.0f * (float)(i % 1000) + 1.0f;
    CHECK_EQ_INT(wrong, 0);
    CHECK_STATUS(cudyn_mem_advise(m, n * sizeof(float), CUDYN_ADVISE_UNSET_PREFERRED_LOCATION, 0), CUDYN_OK);
    printf("managed memory: 64 MiB written on the host, prefetched to the GPU, computed on, prefetched back: %s\n",
           wrong ? "WRONG" : "right");
    note("managed prefetch GPU and back %s", wrong ? "WRONG" : "ok");
    cudyn_stream_destroy(s);
    cudyn_mem_free(m);
}

int main(void)
{
    struct cudyn_loader_info l;
    test_need_real_gpu(&l);
    CHECK_STATUS(cudyn_device_use(0), CUDYN_OK);
    struct cudyn_device_info d = {.size = sizeof d};
    CHECK_STATUS(cudyn_device_info(0, &d), CUDYN_OK);
    printf("device 0: %s, sm_%d%d, driver CUDA %d.%d\n", d.name, d.cc_major, d.cc_minor, l.driver_version / 1000,
           l.driver_version % 1000 / 10);
    int st = cudyn_module_load_source(&mod, kernels, NULL, 0);
    if (st == CUDYN_ERROR_NVRTC_NOT_FOUND)
        TEST_SKIP("no NVRTC: the kernels cannot be compiled");
    CHECK_STATUS(st, CUDYN_OK);
    if (st != CUDYN_OK)
        return test_result("test_gpu_features");
    CHECK_STATUS(cudyn_module_function(&tex2d_read, mod, "tex2d_read"), CUDYN_OK);
    CHECK_STATUS(cudyn_module_function(&tex1d_fetch, mod, "tex1d_fetch"), CUDYN_OK);
    CHECK_STATUS(cudyn_module_function(&surf2d_scale, mod, "surf2d_scale"), CUDYN_OK);
    CHECK_STATUS(cudyn_module_function(&step, mod, "step"), CUDYN_OK);
    CHECK_STATUS(cudyn_module_function(&shared_reverse, mod, "shared_reverse"), CUDYN_OK);
    test_textures();
    test_clusters(d.cc_major);
    test_cooperative();
    test_shared_and_priority();
    test_graphs();
    test_async_alloc();
    test_managed();
    cudyn_module_unload(mod);
    printf("GPU features: %s\n", summary);
    return test_result("test_gpu_features");
}
