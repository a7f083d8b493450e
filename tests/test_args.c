/*
 * test_args.c - typed launches on the mock driver: the bytes each format
 * character produces (the mock's "record" kernel keeps what it received,
 * sized by the PTX's own .param declarations), half rounding, struct
 * layouts, malformed formats, the check against cuFuncGetParamInfo (asked
 * once per kernel), In/Out buffers with a fault in every step (waited for
 * by the launch, or by the caller before cudyn_args_finish), and reusable
 * packs.
 */
#include "config.h"

#include <complex.h>
#include <stdalign.h>
#include <stdint.h>

#include "cudyn.h"
#include "mock/mock_control.h"
#include "testutil.h"

static const char image[] =
    ".version 8.0\n.target sm_90\n.address_size 64\n"
    ".visible .entry record(.param .u8 p0, .param .s8 p1, .param .u8 p2, .param .s16 p3, .param .u16 p4,\n"
    "  .param .s32 p5, .param .u32 p6, .param .s64 p7, .param .u64 p8, .param .b16 p9, .param .f32 p10,\n"
    "  .param .f64 p11, .param .align 4 .b8 p12[8], .param .align 8 .b8 p13[16], .param .u64 p14,\n"
    "  .param .u64 p15, .param .align 8 .b8 p16[16], .param .align 8 .b8 p17[16])\n{\n}\n"
    ".visible .entry saxpy(.param .f32 a, .param .u64 x, .param .u64 y, .param .u64 out, .param .u64 n)\n{\n}\n";

static const char half_image[] =
    ".version 8.0\n.visible .entry record(.param .b16 a, .param .b16 b, .param .b16 c, .param .b16 d,\n"
    "  .param .b16 e, .param .b16 f, .param .b16 g, .param .b16 h, .param .b16 i, .param .b16 j)\n{\n}\n";

static const char pair_image[] = ".version 8.0\n.visible .entry record(.param .u32 a, .param .u32 b)\n{\n}\n";
static const char struct_image[] = ".version 8.0\n.visible .entry record(.param .align 8 .b8 s[16])\n{\n}\n";

struct char_double {
    char c;
    double d;
};
struct int_float2 {
    int i;
    struct {
        alignas(8) float x;
        float y;
    } f2; /* CUDA's float2 is 8-byte aligned */
};

static const cudyn_dim3 one = {1, 1, 1};
static cudyn_module mod;
static cudyn_function record, saxpy;

/* The call fails with CUDYN_ERROR_INVALID_ARGUMENT saying `why`. */
#define CHECK_BAD_STATUS(call, why)                               \
    do {                                                          \
        CHECK_STATUS(call, CUDYN_ERROR_INVALID_ARGUMENT);         \
        cudyn_error e_ = {.size = sizeof e_};                     \
        cudyn_last_error(&e_);                                    \
        CHECK_CONTAINS(e_.message, why);                          \
    } while (0)

static void expect_bytes(const void *want, size_t n, const char *what)
{
    unsigned char got[4096];
    size_t m = mock_recorded_args(got, sizeof got);
    if (m != n || memcmp(got, want, n) != 0) {
        fprintf(stderr, "%s: recorded %zu bytes, expected %zu:\n ", what, m, n);
        for (size_t i = 0; i < m && i < 128; i++)
            fprintf(stderr, " %02x%s", got[i], i < n && got[i] != ((const unsigned char *)want)[i] ? "*" : "");
        fprintf(stderr, "\n");
        test_failures++;
    }
}

/* Appends a value's bytes to the expected record. */
#define PUT(buf, len, value)                           \
    do {                                               \
        __typeof__(value) v_ = (value);                \
        memcpy((buf) + (len), &v_, sizeof v_);         \
        (len) += sizeof v_;                            \
    } while (0)

static void test_every_type(void)
{
    struct char_double cd;
    memset(&cd, 0, sizeof cd); /* padding is part of what the kernel gets */
    cd.c = 'x';
    cd.d = 6.5;
    struct int_float2 if2;
    memset(&if2, 0, sizeof if2); /* padding is part of what the kernel gets */
    if2.i = 7;
    if2.f2.x = 1.5f;
    if2.f2.y = 2.5f;
    CHECK_EQ_INT(sizeof cd, 16);
    CHECK_EQ_INT(sizeof if2, 16);
    float _Complex fc = 1.0f + 2.0f * I;
    double _Complex dc = 3.0 - 4.0 * I;
    float fl = 3.25f; /* promoted to double by the call, back to float by cudyn */
    CHECK_STATUS(cudyn_launchf(record, one, one, 0, NULL, "? b B h H i I q Q e f d F D p z s s", 1, -5, 250, -30000,
                               60000, -2000000000, 4000000000u, -9000000000000000000ll, 18000000000000000000ull, 1.5,
                               fl, 2.5, fc, dc, (cudyn_devptr)0x1234567890ull, (size_t)12345, &cd, sizeof cd, &if2,
                               sizeof if2),
                 CUDYN_OK);
    unsigned char want[256];
    size_t n = 0;
    PUT(want, n, (uint8_t)1);
    PUT(want, n, (int8_t)-5);
    PUT(want, n, (uint8_t)250);
    PUT(want, n, (int16_t)-30000);
    PUT(want, n, (uint16_t)60000);
    PUT(want, n, (int32_t)-2000000000);
    PUT(want, n, (uint32_t)4000000000u);
    PUT(want, n, (int64_t)-9000000000000000000ll);
    PUT(want, n, (uint64_t)18000000000000000000ull);
    PUT(want, n, (uint16_t)0x3E00); /* 1.5 in binary16 */
    PUT(want, n, 3.25f);
    PUT(want, n, 2.5);
    PUT(want, n, fc);
    PUT(want, n, dc);
    PUT(want, n, (uint64_t)0x1234567890ull);
    PUT(want, n, (size_t)12345);
    memcpy(want + n, &cd, sizeof cd);
    n += sizeof cd;
    memcpy(want + n, &if2, sizeof if2);
    n += sizeof if2;
    expect_bytes(want, n, "every type");
}

static void test_half_rounding(void)
{
    cudyn_module m = NULL;
    cudyn_function f = NULL;
    CHECK_STATUS(cudyn_module_load_image(&m, half_image), CUDYN_OK);
    CHECK_STATUS(cudyn_module_function(&f, m, "record"), CUDYN_OK);
    CHECK_STATUS(cudyn_launchf(f, one, one, 0, NULL, "eeeeeeeeee", 0.0, -0.0, 65504.0, 65520.0, 1e-8, 6e-8,
                               1.0 + 1.0 / 2048, 1.0 + 3.0 / 2048, -2.0, 1.0 / 0.0),
                 CUDYN_OK);
    const uint16_t want[] = {
        0x0000, 0x8000, /* zeros keep their sign */
        0x7BFF,         /* the largest half */
        0x7C00,         /* rounds up to infinity */
        0x0000,         /* underflows */
        0x0001,         /* the smallest subnormal (5.96e-8) */
        0x3C00,         /* a tie rounds to even (down) */
        0x3C02,         /* a tie rounds to even (up) */
        0xC000, 0x7C00,
    };
    expect_bytes(want, sizeof want, "half rounding");
    cudyn_module_unload(m);
}

static void test_malformed(void)
{
    cudyn_error e = {.size = sizeof e};
    CHECK_STATUS(cudyn_launchf(record, one, one, 0, NULL, "fx"), CUDYN_ERROR_INVALID_ARGUMENT);
    cudyn_last_error(&e);
    CHECK_CONTAINS(e.message, "'x' (position 2) is not a format character");
    CHECK_STATUS(cudyn_launchf(record, one, one, 0, NULL, NULL), CUDYN_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(cudyn_launchf(NULL, one, one, 0, NULL, "f", 1.0), CUDYN_ERROR_INVALID_ARGUMENT);
    char many[80];
    memset(many, 'i', 65);
    many[65] = '\0';
    CHECK_STATUS(cudyn_launchf(record, one, one, 0, NULL, many), CUDYN_ERROR_INVALID_ARGUMENT);
    cudyn_last_error(&e);
    CHECK_CONTAINS(e.message, "more than 64 parameters");
    CHECK_STATUS(cudyn_launchf(record, one, one, 0, NULL, "\xc3\xa9"), CUDYN_ERROR_INVALID_ARGUMENT);
    /* a struct argument with no struct, a buffer with no memory */
    CHECK_STATUS(cudyn_launchf(record, one, one, 0, NULL, "s", NULL, (size_t)8), CUDYN_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(cudyn_launchf(record, one, one, 0, NULL, "s", &e, (size_t)0), CUDYN_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(cudyn_launchf(record, one, one, 0, NULL, "<", NULL, (size_t)8), CUDYN_ERROR_INVALID_ARGUMENT);
}

static void test_parameter_check(void)
{
    cudyn_error e = {.size = sizeof e};
    cudyn_devptr d = 0;
    CHECK_STATUS(cudyn_launchf(saxpy, one, one, 0, NULL, "fpp", 2.0, d, d), CUDYN_ERROR_INVALID_LAUNCH_ARGUMENTS);
    cudyn_last_error(&e);
    CHECK_CONTAINS(e.message, "saxpy takes 5 parameters, the format \"fpp\" gives 3");
    CHECK_STATUS(cudyn_launchf(saxpy, one, one, 0, NULL, "dpppz", 2.0, d, d, d, (size_t)0),
                 CUDYN_ERROR_INVALID_LAUNCH_ARGUMENTS);
    cudyn_last_error(&e);
    CHECK_CONTAINS(e.message, "saxpy: parameter 1 is 4 bytes, argument 1 ('d', double) is 8");
    CHECK_STATUS(cudyn_launchf(saxpy, one, one, 0, NULL, "fpppf", 2.0, d, d, d, 1.0),
                 CUDYN_ERROR_INVALID_LAUNCH_ARGUMENTS);
    cudyn_last_error(&e);
    CHECK_CONTAINS(e.message, "parameter 5 is 8 bytes, argument 5 ('f', float) is 4");
    /* same size, other kind: the PTX tells int from float, and a double
     * from a pointer */
    long launches = mock_call_count("cuLaunchKernel");
    CHECK_STATUS(cudyn_launchf(saxpy, one, one, 0, NULL, "ipppz", 2, d, d, d, (size_t)0),
                 CUDYN_ERROR_INVALID_LAUNCH_ARGUMENTS);
    cudyn_last_error(&e);
    CHECK_CONTAINS(e.message, "saxpy: parameter 1 is a floating-point value (its PTX says so), argument 1 ('i')");
    CHECK_STATUS(cudyn_launchf(saxpy, one, one, 0, NULL, "fdppz", 2.0, 1.0, d, d, (size_t)0),
                 CUDYN_ERROR_INVALID_LAUNCH_ARGUMENTS);
    cudyn_last_error(&e);
    CHECK_CONTAINS(e.message, "parameter 2 is an integer (its PTX says so), argument 2 ('d') is double");
    CHECK_EQ_INT(mock_call_count("cuLaunchKernel"), launches);
    CHECK_STATUS(cudyn_launchf(saxpy, one, one, 0, NULL, "fpppz", 2.0, d, d, d, (size_t)0), CUDYN_OK);
    CHECK_EQ_INT(mock_call_count("cuLaunchKernel"), launches + 1);
}

/* A kernel looked up again is known: the driver is asked about it once
 * (and never which module it came from: cudyn knows). */
static void test_lookup_again(void)
{
    long infos = mock_call_count("cuFuncGetParamInfo"), names = mock_call_count("cuFuncGetName"),
         modules = mock_call_count("cuFuncGetModule");
    for (int i = 0; i < 3; i++) {
        cudyn_function again = NULL;
        CHECK_STATUS(cudyn_module_function(&again, mod, "saxpy"), CUDYN_OK);
        CHECK(again == saxpy);
    }
    CHECK_EQ_INT(mock_call_count("cuFuncGetParamInfo"), infos);
    CHECK_EQ_INT(mock_call_count("cuFuncGetName"), names);
    CHECK_EQ_INT(mock_call_count("cuFuncGetModule"), modules);
    cudyn_devptr d = 0;
    CHECK_STATUS(cudyn_launchf(saxpy, one, one, 0, NULL, "fpp", 2.0, d, d), CUDYN_ERROR_INVALID_LAUNCH_ARGUMENTS);
    CHECK_STATUS(cudyn_launchf(saxpy, one, one, 0, NULL, "fpppz", 2.0, d, d, d, (size_t)0), CUDYN_OK);
}

/* Many kernels loaded at once are each checked: the table of what kernels
 * take has room for them (a kernel that found no slot near its home went
 * unchecked; with the old 512 slots some of 1000 did). */
static void test_many_kernels_checked(void)
{
    enum { N = 1000 };
    static cudyn_module mods[N];
    int unchecked = 0;
    cudyn_devptr d = 0;
    for (int i = 0; i < N; i++) {
        cudyn_function f = NULL;
        CHECK_STATUS(cudyn_module_load_image(&mods[i], image), CUDYN_OK);
        CHECK_STATUS(cudyn_module_function(&f, mods[i], "saxpy"), CUDYN_OK);
        if (cudyn_launchf(f, one, one, 0, NULL, "fpp", 2.0, d, d) != CUDYN_ERROR_INVALID_LAUNCH_ARGUMENTS)
            unchecked++;
    }
    CHECK_EQ_INT(unchecked, 0);
    for (int i = 0; i < N; i++)
        CHECK_STATUS(cudyn_module_unload(mods[i]), CUDYN_OK);
}

/* The per-thread memo of cudyn_launchf never outlives what it remembers:
 * a format buffer rewritten in place, another kernel, or a kernel whose
 * module went away are checked afresh. */
static void test_launchf_memo(void)
{
    cudyn_devptr d = 0;
    char fmt[16] = "fpppz";
    CHECK_STATUS(cudyn_launchf(saxpy, one, one, 0, NULL, fmt, 2.0, d, d, d, (size_t)0), CUDYN_OK);
    CHECK_STATUS(cudyn_launchf(saxpy, one, one, 0, NULL, fmt, 2.0, d, d, d, (size_t)0), CUDYN_OK);
    strcpy(fmt, "fpp"); /* same pointer, other text */
    CHECK_STATUS(cudyn_launchf(saxpy, one, one, 0, NULL, fmt, 2.0, d, d), CUDYN_ERROR_INVALID_LAUNCH_ARGUMENTS);
    /* the same literal for another kernel */
    cudyn_module m = NULL;
    cudyn_function pair = NULL;
    CHECK_STATUS(cudyn_module_load_image(&m, pair_image), CUDYN_OK);
    CHECK_STATUS(cudyn_module_function(&pair, m, "record"), CUDYN_OK);
    for (int k = 0; k < 2; k++) {
        CHECK_STATUS(cudyn_launchf(pair, one, one, 0, NULL, "II", 1u, 2u), CUDYN_OK);
        CHECK_STATUS(cudyn_launchf(saxpy, one, one, 0, NULL, "II", 1u, 2u), CUDYN_ERROR_INVALID_LAUNCH_ARGUMENTS);
    }
    CHECK_STATUS(cudyn_module_unload(m), CUDYN_OK);
    /* a kernel of another shape, looked up after the unload */
    CHECK_STATUS(cudyn_module_load_image(&m, struct_image), CUDYN_OK);
    cudyn_function one_struct = NULL;
    CHECK_STATUS(cudyn_module_function(&one_struct, m, "record"), CUDYN_OK);
    CHECK_STATUS(cudyn_launchf(one_struct, one, one, 0, NULL, "II", 1u, 2u), CUDYN_ERROR_INVALID_LAUNCH_ARGUMENTS);
    CHECK_STATUS(cudyn_module_unload(m), CUDYN_OK);
}

static void test_in_out(void)
{
    enum { N = 777 };
    float x[N], y[N], out[N];
    test_saxpy_inputs(x, y, N);
    for (int i = 0; i < N; i++)
        out[i] = -1;
    size_t before = mock_device_memory_in_use();
    long htod = mock_call_count("cuMemcpyHtoDAsync_v2"), dtoh = mock_call_count("cuMemcpyDtoHAsync_v2");
    CHECK_STATUS(cudyn_launchf(saxpy, one, one, 0, NULL, "f<<>z", 2.0f, x, sizeof x, y, sizeof y, out, sizeof out,
                               (size_t)N),
                 CUDYN_OK);
    int wrong = 0;
    for (int i = 0; i < N; i++)
        wrong += out[i] != 2.0f * x[i] + y[i];
    CHECK_EQ_INT(wrong, 0);
    CHECK_EQ_INT(mock_call_count("cuMemcpyHtoDAsync_v2"), htod + 2); /* In: x and y only */
    CHECK_EQ_INT(mock_call_count("cuMemcpyDtoHAsync_v2"), dtoh + 1); /* Out: out only */
    CHECK_EQ_INT(mock_device_memory_in_use(), before);
    /* InOut: copied both ways */
    memset(out, 0, sizeof out);
    CHECK_STATUS(cudyn_launchf(saxpy, one, one, 0, NULL, "f<<=z", 3.0f, x, sizeof x, y, sizeof y, out, sizeof out,
                               (size_t)N),
                 CUDYN_OK);
    CHECK(out[5] == 3.0f * x[5] + y[5]);
    CHECK_EQ_INT(mock_call_count("cuMemcpyHtoDAsync_v2"), htod + 5);
    CHECK_EQ_INT(mock_call_count("cuMemcpyDtoHAsync_v2"), dtoh + 2);

    /* a fault in every step: the translated status, nothing left allocated */
    static const struct {
        const char *fn;
        int status;
    } faults[] = {
        {"cuMemAlloc_v2", CUDYN_ERROR_OUT_OF_MEMORY},       {"cuMemcpyHtoDAsync_v2", CUDYN_ERROR_OUT_OF_MEMORY},
        {"cuLaunchKernel", CUDYN_ERROR_OUT_OF_MEMORY},      {"cuMemcpyDtoHAsync_v2", CUDYN_ERROR_OUT_OF_MEMORY},
        {"cuStreamSynchronize", CUDYN_ERROR_OUT_OF_MEMORY}, {"cuMemFree_v2", CUDYN_ERROR_OUT_OF_MEMORY},
    };
    /* an unrelated earlier error must not stand in for a failed free */
    cudyn_devptr nothing;
    CHECK_STATUS(cudyn_mem_alloc(&nothing, 0), CUDYN_ERROR_INVALID_ARGUMENT);
    mock_fail_next("cuMemFree_v2", 999);
    CHECK_STATUS(cudyn_launchf(saxpy, one, one, 0, NULL, "f<<>z", 2.0f, x, sizeof x, y, sizeof y, out, sizeof out,
                               (size_t)N),
                 CUDYN_ERROR_DRIVER);
    cudyn_error e = {.size = sizeof e};
    CHECK_EQ_INT(cudyn_last_error(&e), CUDYN_ERROR_DRIVER);
    CHECK(strcmp(e.function, "cuMemFree") == 0);
    CHECK_CONTAINS(e.message, "cudyn_mem_free");
    before = mock_device_memory_in_use(); /* the driver kept the buffer it refused to free */
    for (size_t i = 0; i < sizeof faults / sizeof faults[0]; i++) {
        mock_fail_next(faults[i].fn, 2);
        int st = cudyn_launchf(saxpy, one, one, 0, NULL, "f<<>z", 2.0f, x, sizeof x, y, sizeof y, out, sizeof out,
                               (size_t)N);
        if (st != faults[i].status) {
            fprintf(stderr, "In/Out with %s failing: %s\n", faults[i].fn, cudyn_status_name(st));
            test_failures++;
        }
        if (strcmp(faults[i].fn, "cuMemFree_v2") != 0)
            CHECK_EQ_INT(mock_device_memory_in_use(), before);
    }
}

/* A pack of saxpy with In/Out buffers ("f<<>z"), set through set_value
 * and set_buffer. */
static cudyn_args *buffer_pack(float *x, float *y, float *out, size_t n)
{
    cudyn_args *pack = NULL;
    float a = 2.0f;
    CHECK_STATUS(cudyn_args_create(&pack, saxpy, "f<<>z"), CUDYN_OK);
    CHECK_STATUS(cudyn_args_set_value(pack, 0, &a, sizeof a), CUDYN_OK);
    CHECK_STATUS(cudyn_args_set_buffer(pack, 1, x, n * sizeof *x), CUDYN_OK);
    CHECK_STATUS(cudyn_args_set_buffer(pack, 2, y, n * sizeof *y), CUDYN_OK);
    CHECK_STATUS(cudyn_args_set_buffer(pack, 3, out, n * sizeof *out), CUDYN_OK);
    CHECK_STATUS(cudyn_args_set_value(pack, 4, &n, sizeof n), CUDYN_OK);
    return pack;
}

/* cudyn_args_launch_async: the launch returns with the copies back queued
 * and the buffers kept; the caller waits (an event here), then
 * cudyn_args_finish frees them.  A second launch before finishing is
 * refused, cudyn_args_free finishes, and a fault in any step fails the
 * step that met it with nothing left allocated or pending. */
static void test_in_out_async(void)
{
    enum { N = 300 };
    float x[N], y[N], out[N];
    test_saxpy_inputs(x, y, N);
    memset(out, 0, sizeof out);
    size_t before = mock_device_memory_in_use();
    cudyn_stream s = NULL;
    cudyn_event done = NULL;
    CHECK_STATUS(cudyn_stream_create(&s, 0), CUDYN_OK);
    CHECK_STATUS(cudyn_event_create(&done, 0), CUDYN_OK);
    cudyn_args *pack = buffer_pack(x, y, out, N);
    long syncs = mock_call_count("cuStreamSynchronize");
    CHECK_STATUS(cudyn_args_launch_async(pack, one, one, 0, s), CUDYN_OK);
    CHECK_EQ_INT(mock_call_count("cuStreamSynchronize"), syncs); /* no wait */
    CHECK_EQ_INT(mock_device_memory_in_use(), before + 3 * sizeof x); /* the buffers are kept */
    CHECK_BAD_STATUS(cudyn_args_launch_async(pack, one, one, 0, s), "cudyn_args_finish first");
    CHECK_BAD_STATUS(cudyn_args_launch(pack, one, one, 0, s), "not finished");
    CHECK_STATUS(cudyn_event_record(done, s), CUDYN_OK);
    CHECK_STATUS(cudyn_event_synchronize(done), CUDYN_OK);
    CHECK(out[7] == 2.0f * x[7] + y[7] && out[N - 1] == 2.0f * x[N - 1] + y[N - 1]);
    CHECK_STATUS(cudyn_args_finish(pack), CUDYN_OK);
    CHECK_EQ_INT(mock_device_memory_in_use(), before);
    CHECK_STATUS(cudyn_args_finish(pack), CUDYN_OK); /* nothing left to finish */
    /* launched again, then freed unfinished: the buffers go too */
    CHECK_STATUS(cudyn_args_launch_async(pack, one, one, 0, s), CUDYN_OK);
    cudyn_args_free(pack);
    CHECK_EQ_INT(mock_device_memory_in_use(), before);

    /* a fault in each step: the launch or the finish that met it fails with
     * the translated status and the call it names; nothing stays allocated,
     * nothing is left to finish */
    static const struct {
        const char *fn, *function;
        int in_finish;
    } faults[] = {
        {"cuMemAlloc_v2", "cuMemAlloc", 0},           {"cuMemcpyHtoDAsync_v2", "cuMemcpyHtoDAsync", 0},
        {"cuLaunchKernel", "cuLaunchKernel", 0},      {"cuMemcpyDtoHAsync_v2", "cuMemcpyDtoHAsync", 0},
        {"cuStreamSynchronize", "cuStreamSynchronize", 1},
    };
    for (size_t i = 0; i < sizeof faults / sizeof faults[0]; i++) {
        pack = buffer_pack(x, y, out, N);
        mock_fail_next(faults[i].fn, 2);
        int st = cudyn_args_launch_async(pack, one, one, 0, s);
        if (!faults[i].in_finish) {
            CHECK_EQ_INT(st, CUDYN_ERROR_OUT_OF_MEMORY);
            CHECK_EQ_INT(mock_device_memory_in_use(), before);
            st = cudyn_args_finish(pack);
            CHECK_EQ_INT(st, CUDYN_OK);
        } else {
            CHECK_EQ_INT(st, CUDYN_OK);
            st = cudyn_args_finish(pack);
            CHECK_EQ_INT(st, CUDYN_ERROR_OUT_OF_MEMORY);
            CHECK_EQ_INT(mock_device_memory_in_use(), before);
        }
        cudyn_error e = {.size = sizeof e};
        CHECK_EQ_INT(cudyn_last_error(&e), CUDYN_ERROR_OUT_OF_MEMORY);
        if (strcmp(e.function, faults[i].function) != 0) {
            fprintf(stderr, "In/Out async with %s failing: the error names %s\n", faults[i].fn, e.function);
            test_failures++;
        }
        CHECK_CONTAINS(e.message, "with In/Out buffers");
        cudyn_args_free(pack);
    }
    /* a free that fails is the finish's error, not an unrelated earlier one;
     * the driver keeps that buffer, the others are freed */
    pack = buffer_pack(x, y, out, N);
    CHECK_STATUS(cudyn_args_launch_async(pack, one, one, 0, s), CUDYN_OK);
    cudyn_devptr nothing;
    CHECK_STATUS(cudyn_mem_alloc(&nothing, 0), CUDYN_ERROR_INVALID_ARGUMENT);
    mock_fail_next("cuMemFree_v2", 999);
    CHECK_STATUS(cudyn_args_finish(pack), CUDYN_ERROR_DRIVER);
    cudyn_error e = {.size = sizeof e};
    cudyn_last_error(&e);
    CHECK(strcmp(e.function, "cuMemFree") == 0);
    CHECK_EQ_INT(mock_device_memory_in_use(), before + sizeof x);
    cudyn_args_free(pack);
    cudyn_event_destroy(done);
    cudyn_stream_destroy(s);
}

static void test_packs(void)
{
    enum { N = 100 };
    float x[N], y[N], out[N];
    for (int i = 0; i < N; i++) {
        x[i] = (float)i;
        y[i] = 1.0f;
    }
    cudyn_devptr dx, dy, dout;
    cudyn_mem_alloc(&dx, sizeof x);
    cudyn_mem_alloc(&dy, sizeof y);
    cudyn_mem_alloc(&dout, sizeof out);
    cudyn_memcpy_htod(dx, x, sizeof x);
    cudyn_memcpy_htod(dy, y, sizeof y);
    cudyn_args *pack = NULL;
    CHECK_STATUS(cudyn_args_create(&pack, saxpy, "fpppz"), CUDYN_OK);
    CHECK_STATUS(cudyn_args_set(pack, 2.0f, dx, dy, dout, (size_t)N), CUDYN_OK);
    long launches = mock_call_count("cuLaunchKernel");
    for (int k = 0; k < 3; k++)
        CHECK_STATUS(cudyn_args_launch(pack, one, one, 0, NULL), CUDYN_OK);
    CHECK_EQ_INT(mock_call_count("cuLaunchKernel"), launches + 3);
    cudyn_memcpy_dtoh(out, dout, sizeof out);
    CHECK(out[10] == 21.0f);
    float a = 5.0f;
    CHECK_STATUS(cudyn_args_set_value(pack, 0, &a, sizeof a), CUDYN_OK);
    CHECK_STATUS(cudyn_args_launch(pack, one, one, 0, NULL), CUDYN_OK);
    cudyn_memcpy_dtoh(out, dout, sizeof out);
    CHECK(out[10] == 51.0f);
    double wrong = 1;
    CHECK_STATUS(cudyn_args_set_value(pack, 0, &wrong, sizeof wrong), CUDYN_ERROR_INVALID_ARGUMENT);
    /* a pack whose scalars were never set is refused, naming the first */
    cudyn_args *unset = NULL;
    CHECK_STATUS(cudyn_args_create(&unset, saxpy, "fpppz"), CUDYN_OK);
    CHECK_STATUS(cudyn_args_set_value(unset, 0, &a, sizeof a), CUDYN_OK);
    launches = mock_call_count("cuLaunchKernel");
    CHECK_STATUS(cudyn_args_launch(unset, one, one, 0, NULL), CUDYN_ERROR_INVALID_ARGUMENT);
    cudyn_error e = {.size = sizeof e};
    cudyn_last_error(&e);
    CHECK_CONTAINS(e.message, "argument 2 ('p') was never set");
    CHECK_EQ_INT(mock_call_count("cuLaunchKernel"), launches);
    cudyn_args_free(unset);
    CHECK_STATUS(cudyn_args_set_value(pack, 5, &a, sizeof a), CUDYN_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(cudyn_args_set_value(pack, -1, &a, sizeof a), CUDYN_ERROR_INVALID_ARGUMENT);
    cudyn_args_free(pack);

    /* a pack that does not match is refused, unless the check is off */
    cudyn_module m = NULL;
    cudyn_function pair = NULL;
    CHECK_STATUS(cudyn_module_load_image(&m, pair_image), CUDYN_OK);
    CHECK_STATUS(cudyn_module_function(&pair, m, "record"), CUDYN_OK);
    CHECK_STATUS(cudyn_args_create(&pack, pair, "qq"), CUDYN_OK);
    CHECK_STATUS(cudyn_args_set(pack, 0x0102030405060708ll, 0x1112131415161718ll), CUDYN_OK);
    CHECK_STATUS(cudyn_args_launch(pack, one, one, 0, NULL), CUDYN_ERROR_INVALID_LAUNCH_ARGUMENTS);
    CHECK_STATUS(cudyn_args_check(pack, 0), CUDYN_OK);
    CHECK_STATUS(cudyn_args_launch(pack, one, one, 0, NULL), CUDYN_OK);
    const uint32_t low[] = {0x05060708, 0x15161718}; /* the kernel reads 4 of 8 bytes */
    expect_bytes(low, sizeof low, "unchecked pack");
    cudyn_args_free(pack);
    cudyn_module_unload(m);
    /* a struct in a pack is copied: changing the original later does not matter */
    cudyn_function one_struct = NULL;
    CHECK_STATUS(cudyn_module_load_image(&m, struct_image), CUDYN_OK);
    CHECK_STATUS(cudyn_module_function(&one_struct, m, "record"), CUDYN_OK);
    struct char_double cd;
    memset(&cd, 0, sizeof cd);
    cd.c = 'a';
    cd.d = 1.0;
    CHECK_STATUS(cudyn_args_create(&pack, one_struct, "s"), CUDYN_OK);
    CHECK_STATUS(cudyn_args_launch(pack, one, one, 0, NULL), CUDYN_ERROR_INVALID_ARGUMENT); /* never set */
    CHECK_STATUS(cudyn_args_set(pack, &cd, sizeof cd), CUDYN_OK);
    cd.c = 'z';
    CHECK_STATUS(cudyn_args_launch(pack, one, one, 0, NULL), CUDYN_OK);
    unsigned char got[8];
    mock_recorded_args(got, sizeof got);
    CHECK(got[0] == 'a');
    cudyn_args_free(pack);
    cudyn_args_free(NULL);
    cudyn_module_unload(m);
    cudyn_mem_free(dx);
    cudyn_mem_free(dy);
    cudyn_mem_free(dout);
}

/* A CUBIN-shaped image (the mock NVRTC's: an ELF header, then its text):
 * cudyn has no PTX for it, so only the driver could describe "record". */
static size_t elf_image(unsigned char *out, size_t cap, const char *text)
{
    size_t n = strlen(text);
    if (64 + n > cap)
        return 0;
    memset(out, 0, 64);
    memcpy(out, "\177ELF", 4);
    uint64_t shoff = 64 + n; /* e_shoff: the end, no sections */
    memcpy(out + 0x28, &shoff, 8);
    memcpy(out + 64, text, n);
    return 64 + n;
}

/* An older driver and no PTX: nothing can tell how many parameters
 * "record" takes.  A format that is too short must not leave the driver
 * reading uninitialised argument slots: the kernel sees zeros. */
static int child_unchecked_short_format(void)
{
    use_mock_driver();
    static unsigned char img[512];
    elf_image(img, sizeof img,
              ".version 8.0\n.visible .entry record(.param .u64 a, .param .u64 b, .param .u64 c, .param .u64 d)\n{\n}\n");
    cudyn_module m = NULL;
    cudyn_function f = NULL;
    if (cudyn_module_load_image(&m, img) || cudyn_module_function(&f, m, "record"))
        return 3;
    if (cudyn_launchf(f, one, one, 0, NULL, "QQ", 0x1111111111111111ull, 0x2222222222222222ull) != CUDYN_OK)
        return 4;
    const uint64_t want[4] = {0x1111111111111111ull, 0x2222222222222222ull, 0, 0};
    expect_bytes(want, sizeof want, "unchecked short format");
    cudyn_module_unload(m);
    return test_failures ? 5 : 0;
}

/* An older driver cannot describe parameters; the PTX still can. */
static int child_old_driver(void)
{
    use_mock_driver();
    cudyn_module m = NULL;
    cudyn_function f = NULL;
    if (cudyn_module_load_image(&m, image) || cudyn_module_function(&f, m, "saxpy"))
        return 3;
    if (cudyn_has("cuFuncGetParamInfo"))
        return 4;
    cudyn_devptr d = 0;
    long asked = mock_call_count("cuFuncGetParamInfo");
    int st = cudyn_launchf(f, one, one, 0, NULL, "fpppz", 2.0, d, d, d, (size_t)0);
    int short_st = cudyn_launchf(f, one, one, 0, NULL, "fpp", 2.0, d, d); /* the PTX says five */
    cudyn_module_unload(m);
    if (st != CUDYN_OK)
        return 5;
    if (short_st != CUDYN_ERROR_INVALID_LAUNCH_ARGUMENTS)
        return 7;
    return mock_call_count("cuFuncGetParamInfo") == asked ? 0 : 6; /* not even asked */
}

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "old-driver") == 0)
        return child_old_driver();
    if (argc == 2 && strcmp(argv[1], "unchecked-short-format") == 0)
        return child_unchecked_short_format();
    use_mock_driver();
    CHECK_STATUS(cudyn_module_load_image(&mod, image), CUDYN_OK);
    CHECK_STATUS(cudyn_module_function(&record, mod, "record"), CUDYN_OK);
    CHECK_STATUS(cudyn_module_function(&saxpy, mod, "saxpy"), CUDYN_OK);
    test_every_type();
    test_half_rounding();
    test_malformed();
    test_parameter_check();
    test_lookup_again();
    test_many_kernels_checked();
    test_launchf_memo();
    test_in_out();
    test_in_out_async();
    test_packs();
    cudyn_module_unload(mod);

    /* drivers before 12.4 have no cuFuncGetParamInfo */
    setenv("MOCK_CUDA_VERSION", "12030", 1);
    CHECK_EQ_INT(run_self(argv[0], "old-driver"), 0);
    CHECK_EQ_INT(run_self(argv[0], "unchecked-short-format"), 0);
    return test_result("test_args");
}
