/*
 * test_image.c - precompiled kernels for several architectures (issue 14):
 * one image built with the real NVRTC (skipped without one) for sm_75,
 * sm_80 and compute_86, loaded by cudyn_module_load_image on mock devices
 * of six compute capabilities, each of which must get the entry the rules
 * choose (the kernel's name says which entry it came from); a damaged image
 * is refused; the argument checks of the building functions, and
 * programs too large for one image (their sizes faked through program.h).
 */
#include "config.h"

#include "cudyn.h"
#include "compile/program.h" /* to fake a program's size: struct cudyn_program */
#include "mock/mock_control.h"
#include "testutil.h"

/* The kernel is named after the architecture it was compiled for. */
static const char arch_named_src[] = "#if __CUDA_ARCH__ == 750\n#define KNAME k750\n"
                                     "#elif __CUDA_ARCH__ == 800\n#define KNAME k800\n"
                                     "#elif __CUDA_ARCH__ == 860\n#define KNAME k860\n"
                                     "#else\n#define KNAME kother\n#endif\n"
                                     "extern \"C\" __global__ void KNAME(int *x) { x[0] = 1; }\n";

static const char *const kernel_names[] = {"k750", "k800", "k860", "kother"};

static const struct {
    int device;
    const char *cc;
    const char *expected; /* the kernel found, or NULL: no entry suits */
} devices[] = {
    {0, "9.0", "k860"},  /* no sm_9x CUBIN: the compute_86 PTX */
    {1, "8.0", "k800"},  /* its own CUBIN */
    {2, "7.5", "k750"},  /* its own CUBIN */
    {3, "8.6", "k800"},  /* the older CUBIN of its major before any PTX */
    {4, "7.0", NULL},    /* older than every entry */
    {5, "10.0", "k860"}, /* a newer major: the PTX */
};

static void test_round_trip(const void *image)
{
    for (size_t d = 0; d < sizeof devices / sizeof devices[0]; d++) {
        CHECK_STATUS(cudyn_device_use(devices[d].device), CUDYN_OK);
        cudyn_module m = NULL;
        int st = cudyn_module_load_image(&m, image);
        if (!devices[d].expected) {
            CHECK_STATUS(st, CUDYN_ERROR_NO_BINARY_FOR_GPU);
            cudyn_error e = {.size = sizeof e};
            cudyn_last_error(&e);
            CHECK_CONTAINS(e.message, devices[d].cc);
            CHECK_CONTAINS(e.message, "sm_75 sm_80 compute_86");
            continue;
        }
        CHECK_STATUS(st, CUDYN_OK);
        for (size_t k = 0; k < sizeof kernel_names / sizeof kernel_names[0]; k++) {
            cudyn_function f = NULL;
            int want = strcmp(kernel_names[k], devices[d].expected) == 0 ? CUDYN_OK : CUDYN_ERROR_NOT_FOUND;
            if (cudyn_module_function(&f, m, kernel_names[k]) != want) {
                fprintf(stderr, "device %d (cc %s): kernel %s %s\n", devices[d].device, devices[d].cc,
                        kernel_names[k], want == CUDYN_OK ? "missing" : "present, the wrong entry was chosen");
                test_failures++;
            }
        }
        cudyn_module_unload(m);
    }
    CHECK_STATUS(cudyn_device_use(0), CUDYN_OK);
}

static void test_damage(const unsigned char *image, size_t bytes)
{
    unsigned char *copy = malloc(bytes);
    const size_t places[] = {9, 12, 40, bytes / 2, bytes - 1}; /* version, count, an entry, payload, checksum */
    for (size_t i = 0; i < sizeof places / sizeof places[0]; i++) {
        memcpy(copy, image, bytes);
        copy[places[i]] ^= 0x5A;
        cudyn_module m = NULL;
        CHECK_STATUS(cudyn_module_load_image(&m, copy), CUDYN_ERROR_INVALID_IMAGE);
        CHECK(m == NULL);
    }
    free(copy);
}

/* Programs more than a cudyn image holds (1 GiB) are refused naming the
 * limit, not taken for a lack of memory.  The sizes are faked: a CUBIN's
 * bytes are never read before the sizes are checked, and nothing that
 * large is allocated.  p[0] is a CUBIN, p[1] PTX. */
static void test_too_large(cudyn_program *const *p)
{
    const char *sm80[] = {"--gpu-architecture=sm_80"};
    struct cudyn_compile_args a = {.size = sizeof a, .source = test_saxpy_source, .device = CUDYN_DEVICE_NONE,
                                   .options = sm80, .num_options = 1, .flags = CUDYN_COMPILE_NO_CACHE};
    cudyn_program *cubins[2] = {p[0], NULL};
    CHECK_STATUS(cudyn_compile_ex(&cubins[1], &a), CUDYN_OK);
    if (!cubins[1])
        return;
    size_t real[2] = {cubins[0]->out.image_size, cubins[1]->out.image_size};
    void *image = NULL;
    size_t bytes = 0;
    cudyn_error e = {.size = sizeof e};
    cubins[0]->out.image_size = ((size_t)1 << 30) + 1; /* one entry over the limit */
    CHECK_STATUS(cudyn_image_build(&image, &bytes, (const cudyn_program *const *)cubins, 2, CUDYN_IMAGE_CUDYN),
                 CUDYN_ERROR_INVALID_ARGUMENT);
    cudyn_last_error(&e);
    CHECK_CONTAINS(e.message, "entry 0 (sm_90) is 1073741825 bytes, more than the 1073741824 bytes");
    cubins[0]->out.image_size = cubins[1]->out.image_size = (size_t)600 << 20; /* together over it */
    CHECK_STATUS(cudyn_image_build(&image, &bytes, (const cudyn_program *const *)cubins, 2, CUDYN_IMAGE_CUDYN),
                 CUDYN_ERROR_INVALID_ARGUMENT);
    cudyn_last_error(&e);
    CHECK_CONTAINS(e.message, "more than the 1073741824 bytes (1 GiB) it may hold");
    CHECK(image == NULL);
    cubins[0]->out.image_size = real[0];
    cubins[1]->out.image_size = real[1];
    cudyn_program_free(cubins[1]);
}

static void test_from_programs(void)
{
    const char *sm90[] = {"--gpu-architecture=sm_90"}, *c90[] = {"-arch", "compute_90"};
    struct cudyn_compile_args a = {.size = sizeof a, .source = test_saxpy_source, .device = CUDYN_DEVICE_NONE,
                                   .options = sm90, .num_options = 1, .flags = CUDYN_COMPILE_NO_CACHE};
    cudyn_program *p[3] = {NULL};
    CHECK_STATUS(cudyn_compile_ex(&p[0], &a), CUDYN_OK);
    a.options = c90;
    a.num_options = 2;
    CHECK_STATUS(cudyn_compile_ex(&p[1], &a), CUDYN_OK);
    p[2] = p[1];
    void *image = NULL;
    size_t bytes = 0;
    CHECK_STATUS(cudyn_image_build(&image, &bytes, (const cudyn_program *const *)p, 2, CUDYN_IMAGE_CUDYN), CUDYN_OK);
    CHECK(image && bytes > 64 && memcmp(image, "CUDYNIMG", 8) == 0);
    cudyn_module m = NULL;
    cudyn_function f = NULL;
    CHECK_STATUS(cudyn_module_load_image(&m, image), CUDYN_OK);
    CHECK_STATUS(cudyn_module_function(&f, m, "saxpy"), CUDYN_OK);
    cudyn_module_unload(m);
    cudyn_image_free(image);
    /* the same target twice */
    CHECK_STATUS(cudyn_image_build(&image, &bytes, (const cudyn_program *const *)p + 1, 2, CUDYN_IMAGE_CUDYN),
                 CUDYN_ERROR_INVALID_ARGUMENT);
    /* a fatbinary needs nvFatbin: made when it is there, refused with its name when not */
    int st = cudyn_image_build(&image, &bytes, (const cudyn_program *const *)p, 2, CUDYN_IMAGE_FATBIN);
    if (st == CUDYN_OK) {
        CHECK(bytes > 16 && ((unsigned char *)image)[0] == 0x50 && ((unsigned char *)image)[3] == 0xBA);
        cudyn_image_free(image);
    } else {
        CHECK_STATUS(st, CUDYN_ERROR_NOT_SUPPORTED);
        cudyn_error e = {.size = sizeof e};
        cudyn_last_error(&e);
        CHECK_CONTAINS(e.message, "libnvfatbin");
    }
    test_too_large((cudyn_program *const *)p);
    cudyn_program_free(p[0]);
    cudyn_program_free(p[1]);
}

/* The sized load (issue 24, row 2) on a container whose length is wrong:
 * truncated in memory, or its total-size field off by one bit.  Each copy
 * is exactly as long as the size given, so a read past it is seen under
 * AddressSanitizer; the unsized call cannot know, the sized one must
 * refuse before it reads past the header. */
static void expect_refused(const void *image, size_t given, size_t real, const char *why)
{
    unsigned char *exact = malloc(given);
    memcpy(exact, image, given < real ? given : real);
    if (given > real)
        memset(exact + real, 0, given - real);
    cudyn_module m = NULL;
    CHECK_STATUS(cudyn_module_load_image_sized(&m, exact, given), CUDYN_ERROR_INVALID_IMAGE);
    CHECK(m == NULL);
    cudyn_error e = {.size = sizeof e};
    cudyn_last_error(&e);
    CHECK_CONTAINS(e.message, why);
    free(exact);
}

static void test_sized(const unsigned char *image, size_t bytes)
{
    cudyn_module m = NULL;
    CHECK_STATUS(cudyn_module_load_image_sized(&m, image, bytes), CUDYN_OK);
    cudyn_module_unload(m);
    expect_refused(image, bytes - 1, bytes, "announces");
    expect_refused(image, bytes / 2, bytes, "announces");
    expect_refused(image, 31, bytes, "shorter than its 32-byte header");
    expect_refused(image, 8, bytes, "shorter than its 32-byte header");
    expect_refused(image, bytes + 64, bytes, "announces");
    /* one bit of the total-size field (offset 16) flipped, high and low */
    const int bits[] = {3, 29};
    for (size_t i = 0; i < sizeof bits / sizeof bits[0]; i++) {
        unsigned char *flipped = malloc(bytes);
        memcpy(flipped, image, bytes);
        flipped[16 + bits[i] / 8] ^= (unsigned char)(1u << (bits[i] % 8));
        CHECK_STATUS(cudyn_module_load_image_sized(&m, flipped, bytes), CUDYN_ERROR_INVALID_IMAGE);
        /* (the unsized call must trust this field: it would read 512 MiB on) */
        free(flipped);
    }
    /* an entry's offset past the end (the checksum is over what the header
     * claims, so it cannot catch this: the bounds must) */
    unsigned char *moved = malloc(bytes);
    memcpy(moved, image, bytes);
    moved[32 + 8 + 3] ^= 0x40;
    CHECK_STATUS(cudyn_module_load_image_sized(&m, moved, bytes), CUDYN_ERROR_INVALID_IMAGE);
    free(moved);
    CHECK_STATUS(cudyn_module_load_image_sized(&m, image, 0), CUDYN_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(cudyn_module_load_image_sized(&m, NULL, 1), CUDYN_ERROR_INVALID_ARGUMENT);
}

/* Faults of the driver while an image loads (MOCK_CUDA_FAIL's calls, one
 * at a time): the device's capability for choosing the entry, the load
 * itself; each is reported, nothing is half made, and the next load works. */
static void test_faults(const unsigned char *image, size_t bytes)
{
    static const struct {
        const char *fn;
        unsigned int code; /* CUresult */
        int expected;
    } faults[] = {
        {"cuCtxGetDevice", 201, CUDYN_ERROR_INVALID_CONTEXT},         /* choosing the entry */
        {"cuDeviceGetAttribute", 999, CUDYN_ERROR_DRIVER},            /* its compute capability */
        {"cuModuleLoadDataEx", 2, CUDYN_ERROR_OUT_OF_MEMORY},         /* the load */
        {"cuModuleLoadDataEx", 200, CUDYN_ERROR_INVALID_IMAGE},
    };
    for (size_t i = 0; i < sizeof faults / sizeof faults[0]; i++) {
        long loads = mock_call_count("cuModuleLoadDataEx");
        CHECK_EQ_INT(mock_fail_next(faults[i].fn, faults[i].code), 0);
        cudyn_module m = NULL;
        int st = cudyn_module_load_image_sized(&m, image, bytes);
        if (st != faults[i].expected) {
            fprintf(stderr, "a failing %s (%u): status %d, expected %d\n", faults[i].fn, faults[i].code, st,
                    faults[i].expected);
            test_failures++;
        }
        CHECK(m == NULL);
        if (strcmp(faults[i].fn, "cuModuleLoadDataEx") != 0) /* refused before the driver saw the image */
            CHECK_EQ_INT(mock_call_count("cuModuleLoadDataEx"), loads);
        mock_fail_next("", 0);
        CHECK_STATUS(cudyn_module_load_image_sized(&m, image, bytes), CUDYN_OK);
        CHECK_STATUS(cudyn_module_unload(m), CUDYN_OK);
    }
}

/* The sized load of the other kinds, without NVRTC: PTX must hold its NUL
 * within the size, a CUBIN's tables must lie within it. */
static void test_sized_other_kinds(void)
{
    cudyn_module m = NULL;
    static const char ptx[] = ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k()\n{\n ret;\n}\n";
    char *exact = malloc(sizeof ptx - 1);
    memcpy(exact, ptx, sizeof ptx - 1); /* no NUL */
    CHECK_STATUS(cudyn_module_load_image_sized(&m, exact, sizeof ptx - 1), CUDYN_ERROR_INVALID_IMAGE);
    free(exact);
    CHECK_STATUS(cudyn_module_load_image_sized(&m, ptx, sizeof ptx), CUDYN_OK);
    cudyn_module_unload(m);
    unsigned char elf[64] = {0x7F, 'E', 'L', 'F', 2, 1};
    elf[40] = 200; /* e_shoff */
    elf[58] = 64;  /* e_shentsize */
    elf[60] = 1;   /* e_shnum: one section header, at 200, past the end */
    CHECK_STATUS(cudyn_module_load_image_sized(&m, elf, sizeof elf), CUDYN_ERROR_INVALID_IMAGE);
    cudyn_error e = {.size = sizeof e};
    cudyn_last_error(&e);
    CHECK_CONTAINS(e.message, "the CUBIN: its header tables lie past its 64 bytes");
    CHECK_STATUS(cudyn_module_load_image_sized(&m, elf, 3), CUDYN_ERROR_INVALID_IMAGE); /* 3 bytes: PTX without NUL */
    unsigned char fatbin[16] = {0x50, 0xED, 0x55, 0xBA, 1, 0, 16, 0, 0xFF, 0xFF};
    CHECK_STATUS(cudyn_module_load_image_sized(&m, fatbin, sizeof fatbin), CUDYN_ERROR_INVALID_IMAGE);
    cudyn_last_error(&e);
    CHECK_CONTAINS(e.message, "the fatbinary's header announces 16 + 65535 bytes, 16 were given");
}

/* PTX text shorter than any magic (issue 24, row 1): in an exactly-sized
 * heap buffer, so AddressSanitizer (the asan CI job runs make check) sees
 * a read past its end.  The driver refuses the text; cudyn must not read
 * beyond its NUL to find that out. */
static void test_short_text(void)
{
    static const char *const texts[] = {"", "x", "CUDYNIM", "\x7f" "EL"};
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
        size_t n = strlen(texts[i]) + 1;
        char *exact = malloc(n);
        memcpy(exact, texts[i], n);
        cudyn_module m = NULL;
        int st = cudyn_module_load_image(&m, exact);
        CHECK(st != CUDYN_OK && m == NULL);
        free(exact);
    }
}

static void test_arguments(void)
{
    void *image = NULL;
    size_t bytes = 0;
    struct cudyn_compile_args a = {.size = sizeof a, .source = test_saxpy_source};
    const char *archs[] = {"sm_80", "sm_90a"};
    CHECK_STATUS(cudyn_compile_image(&image, &bytes, &a, archs, 0, CUDYN_IMAGE_CUDYN), CUDYN_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(cudyn_compile_image(&image, &bytes, &a, archs, 2, CUDYN_IMAGE_CUDYN), CUDYN_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(cudyn_compile_image(&image, &bytes, &a, archs, 1, 7), CUDYN_ERROR_INVALID_ARGUMENT);
    const char *forced[] = {"-arch=sm_80"};
    a.options = forced;
    a.num_options = 1;
    CHECK_STATUS(cudyn_compile_image(&image, &bytes, &a, archs, 1, CUDYN_IMAGE_CUDYN), CUDYN_ERROR_INVALID_ARGUMENT);
    CHECK(image == NULL && bytes == 0);
    /* an architecture named twice is refused before anything compiles */
    const char *twice[] = {"sm_80", "compute_86", "sm_80"};
    a.options = NULL;
    a.num_options = 0;
    CHECK_STATUS(cudyn_compile_image(&image, &bytes, &a, twice, 3, CUDYN_IMAGE_CUDYN), CUDYN_ERROR_INVALID_ARGUMENT);
    cudyn_error twice_e = {.size = sizeof twice_e};
    cudyn_last_error(&twice_e);
    CHECK_CONTAINS(twice_e.message, "'archs' names sm_80 twice");
    /* a compile error names the architecture */
    struct cudyn_compile_args broken = {.size = sizeof broken, .source = "__global__ void k() { nope; }"};
    CHECK_STATUS(cudyn_compile_image(&image, &bytes, &broken, archs, 1, CUDYN_IMAGE_CUDYN), CUDYN_ERROR_COMPILE);
    cudyn_error e = {.size = sizeof e};
    cudyn_last_error(&e);
    CHECK_CONTAINS(e.message, "sm_80");
    /* no device needs a named target */
    cudyn_program *p = NULL;
    struct cudyn_compile_args none = {.size = sizeof none, .source = test_saxpy_source, .device = CUDYN_DEVICE_NONE};
    CHECK_STATUS(cudyn_compile_ex(&p, &none), CUDYN_ERROR_INVALID_ARGUMENT);
    cudyn_last_error(&e);
    CHECK_CONTAINS(e.message, "'device'");
}

int main(void)
{
    setenv("MOCK_CUDA_DEVICES", "A:90,B:80,C:75,D:86,E:70,F:100", 1);
    use_mock_driver();
    test_short_text(); /* these need no NVRTC */
    test_sized_other_kinds();
    struct cudyn_loader_info l = {.size = sizeof l};
    cudyn_loader_info(&l);
    if (l.nvrtc_status != CUDYN_OK)
        TEST_SKIP("no libnvrtc on this machine");
    struct cudyn_compile_args a = {.size = sizeof a, .source = arch_named_src, .name = "arch_named.cu"};
    const char *archs[] = {"sm_75", "sm_80", "compute_86"};
    void *image = NULL;
    size_t bytes = 0;
    CHECK_STATUS(cudyn_compile_image(&image, &bytes, &a, archs, 3, CUDYN_IMAGE_CUDYN), CUDYN_OK);
    if (image) {
        CHECK(memcmp(image, "CUDYNIMG", 8) == 0);
        test_round_trip(image);
        test_damage(image, bytes);
        test_sized(image, bytes);
        test_faults(image, bytes);
    }
    cudyn_image_free(image);
    test_from_programs();
    test_arguments();
    return test_result("test_image");
}
