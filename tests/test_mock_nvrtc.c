/*
 * test_mock_nvrtc.c - the mock NVRTC (tests/mock/nvrtc) through cudyn and
 * the mock driver: kernels and parameter types in the PTX, the CUBIN
 * wrapper, includes from memory, from -I directories and next to the
 * program, #error and refusals with their logs, name expressions, fault
 * injection, call counting, the environment settings, the pre-11.2 build,
 * and 32 threads compiling at once.  Every compile reaches the mock
 * (CUDYN_CACHE=0).
 */
#include "config.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cudyn.h"
#include "mock/nvrtc/mock_nvrtc_control.h"
#include "testutil.h"

/* The raw NVRTC entry points some checks call (through cudyn_nvrtc_proc). */
typedef int (*create_fn)(void **, const char *, const char *, int, const char *const *, const char *const *);
typedef int (*compile_fn)(void *, int, const char *const *);
typedef int (*size_fn)(void *, size_t *);
typedef int (*text_fn)(void *, char *);
typedef int (*destroy_fn)(void **);
typedef int (*add_name_fn)(void *, const char *);
typedef int (*lowered_fn)(void *, const char *, const char **);

enum {
    NVRTC_ERROR_INVALID_OPTION = 5,
    NVRTC_ERROR_COMPILATION = 6,
    NVRTC_ERROR_NO_LOWERED_NAMES = 9,
    NVRTC_ERROR_NAME_EXPRESSION_NOT_VALID = 10,
    NVRTC_ERROR_INTERNAL_ERROR = 11
};

static char tmpdir[] = "/tmp/cudyn-mock-nvrtc.XXXXXX";

/* The "// mock-nvrtc input HASH" line of a PTX text. */
static void input_hash(const char *ptx, char *out, size_t cap)
{
    const char *h = ptx ? strstr(ptx, "// mock-nvrtc input ") : NULL;
    snprintf(out, cap, "%.*s", h ? (int)strcspn(h, "\n") : 0, h ? h : "");
    CHECK(out[0] != '\0');
}

/* Compiles on device 0 and returns the PTX (the program in *p). */
static const char *compile_ptx(cudyn_program **p, const char *src, const char *const *opts, int n)
{
    *p = NULL;
    CHECK_STATUS(cudyn_compile(p, src, "kernel.cu", 0, opts, n), CUDYN_OK);
    return *p ? cudyn_program_ptx(*p, NULL) : NULL;
}

static void test_saxpy(void)
{
    cudyn_program *p = NULL;
    CHECK_STATUS(cudyn_compile(&p, test_saxpy_source, "saxpy.cu", 0, NULL, 0), CUDYN_OK);
    if (!p)
        return;
    CHECK(strcmp(cudyn_program_target(p), "sm_90") == 0); /* the mock GPU is 9.0 */
    size_t ptx_bytes = 0, image_bytes = 0;
    const char *ptx = cudyn_program_ptx(p, &ptx_bytes);
    CHECK_CONTAINS(ptx, "//\n// mock-nvrtc input ");
    CHECK_CONTAINS(ptx, "\n.version 9.0\n.target sm_90\n.address_size 64\n");
    CHECK_CONTAINS(ptx, "\n.visible .entry saxpy(\n"
                        "\t.param .f32 saxpy_param_0,\n"
                        "\t.param .u64 saxpy_param_1,\n"
                        "\t.param .u64 saxpy_param_2,\n"
                        "\t.param .u64 saxpy_param_3,\n"
                        "\t.param .u64 saxpy_param_4\n"
                        ")\n{\n\tret;\n}\n");
    CHECK(ptx && ptx_bytes == strlen(ptx) + 1);
    /* the CUBIN: a 64-byte ELF header, then the same text */
    const unsigned char *image = cudyn_program_image(p, &image_bytes);
    CHECK(image && memcmp(image, "\177ELF", 4) == 0);
    if (image && ptx) {
        uint64_t shoff = 0;
        for (int b = 7; b >= 0; b--)
            shoff = shoff << 8 | image[0x28 + b];
        CHECK_EQ_INT(image_bytes, 64 + strlen(ptx));
        CHECK_EQ_INT(shoff, image_bytes);
        CHECK(image[0x3A] == 0 && image[0x3B] == 0 && image[0x3C] == 0 && image[0x3D] == 0);
        CHECK(memcmp(image + 64, ptx, strlen(ptx)) == 0);
    }

    /* the mock driver loads it and runs its host saxpy */
    CHECK_STATUS(cudyn_device_use(0), CUDYN_OK);
    cudyn_module m = NULL;
    cudyn_function f = NULL;
    CHECK_STATUS(cudyn_module_load(&m, p), CUDYN_OK);
    CHECK_STATUS(cudyn_module_function(&f, m, "saxpy"), CUDYN_OK);
    enum { N = 100 };
    float x[N], y[N], out[N];
    for (int i = 0; i < N; i++) {
        x[i] = (float)i;
        y[i] = 1.0f;
    }
    cudyn_devptr dx = 0, dy = 0, dout = 0;
    CHECK_STATUS(cudyn_mem_alloc(&dx, sizeof x), CUDYN_OK);
    CHECK_STATUS(cudyn_mem_alloc(&dy, sizeof y), CUDYN_OK);
    CHECK_STATUS(cudyn_mem_alloc(&dout, sizeof out), CUDYN_OK);
    CHECK_STATUS(cudyn_memcpy_htod(dx, x, sizeof x), CUDYN_OK);
    CHECK_STATUS(cudyn_memcpy_htod(dy, y, sizeof y), CUDYN_OK);
    if (f)
        CHECK_STATUS(cudyn_launchf(f, (cudyn_dim3){1, 1, 1}, (cudyn_dim3){128, 1, 1}, 0, NULL, "fpppz", 2.0f, dx, dy,
                                   dout, (size_t)N),
                     CUDYN_OK);
    CHECK_STATUS(cudyn_memcpy_dtoh(out, dout, sizeof out), CUDYN_OK);
    CHECK(out[7] == 15.0f && out[N - 1] == 199.0f);
    cudyn_mem_free(dx);
    cudyn_mem_free(dy);
    cudyn_mem_free(dout);
    cudyn_module_unload(m);
    cudyn_program_free(p);
}

/* Parameter types as NVRTC 13.0 prints them for the same declarations. */
static void test_types(void)
{
    static const char src[] =
        "struct P { char c; double d; int i; };\n"
        "typedef struct { float x, y; int n[3]; } Q;\n"
        "union U { int i; double d; };\n"
        "typedef unsigned int uint_t;\n"
        "extern \"C\" __global__ void types(float a, double b, int c, unsigned d, long long e, size_t f,\n"
        "                                  const float *__restrict__ g, char h, bool i, short j, P k, Q l,\n"
        "                                  __half m, float4 n, int32_t o, uint64_t p, U q, uint_t r, float3 s,\n"
        "                                  unsigned long long t, long u, const __grid_constant__ P v)\n"
        "{\n"
        "    if (a > 0) { g = 0; }\n"
        "}\n"
        "extern \"C\" { __global__ void __launch_bounds__(256) empty() {} }\n";
    static const char *const expected[] = {
        ".f32",
        ".f64",
        ".u32",
        ".u32",
        ".u64",
        ".u64",
        ".u64",
        ".u8",
        ".u8",
        ".u16",
        ".align 8 .b8 types_param_10[24]",
        ".align 4 .b8 types_param_11[20]",
        ".align 2 .b8 types_param_12[2]",
        ".align 16 .b8 types_param_13[16]",
        ".u32",
        ".u64",
        ".align 8 .b8 types_param_16[8]",
        ".u32",
        ".align 4 .b8 types_param_18[12]",
        ".u64",
        ".u64",
        ".align 8 .b8 types_param_21[24]",
    };
    const char *opts[] = {"--gpu-architecture=compute_80"};
    cudyn_program *p;
    const char *ptx = compile_ptx(&p, src, opts, 1);
    if (!ptx)
        return;
    CHECK(strcmp(cudyn_program_target(p), "compute_80") == 0);
    CHECK(cudyn_program_image(p, NULL) == (const void *)ptx); /* PTX only */
    CHECK_CONTAINS(ptx, "\n.target sm_80\n");
    for (size_t i = 0; i < sizeof expected / sizeof expected[0]; i++) {
        char line[120];
        if (strstr(expected[i], "types_param"))
            snprintf(line, sizeof line, "\t.param %s%s", expected[i],
                     i + 1 < sizeof expected / sizeof expected[0] ? ",\n" : "\n)");
        else
            snprintf(line, sizeof line, "\t.param %s types_param_%zu%s", expected[i], i,
                     i + 1 < sizeof expected / sizeof expected[0] ? ",\n" : "\n)");
        CHECK_CONTAINS(ptx, line);
    }
    CHECK_CONTAINS(ptx, "}\n\n.visible .entry empty()\n{\n\tret;\n}\n");
    cudyn_program_free(p);
}

/* After the entries, each kernel's definition as written, one comment
 * line per line (comments and directives gone), which the mock driver's
 * host evaluator reads; none for a kernel that names a macro, whose text
 * would not be what NVRTC compiles. */
static void test_sources(void)
{
    static const char src[] = "#define TWO 2.0f\n"
                              "extern \"C\" __global__ void plain(float *x, float a)\n"
                              "{\n"
                              "#pragma unroll\n"
                              "    x[0] = a; /* the first */\n"
                              "}\n"
                              "extern \"C\" __global__ void named(float *x) { x[0] = TWO; }\n";
    cudyn_program *p;
    const char *ptx = compile_ptx(&p, src, NULL, 0);
    CHECK_CONTAINS(ptx, "\n.visible .entry named(\n\t.param .u64 named_param_0\n)\n{\n\tret;\n}\n\n"
                        "// mock-nvrtc source plain\n"
                        "//>extern \"C\" __global__ void plain(float *x, float a)\n"
                        "//>{\n"
                        "//>    x[0] = a;  \n" /* the comment: a space */
                        "//>}\n");
    CHECK(ptx && !strstr(ptx, "source named"));
    cudyn_program_free(p);
}

static void test_includes(void)
{
    /* in memory, through the raw API (cudyn passes no headers itself) */
    create_fn create = (create_fn)cudyn_nvrtc_proc("nvrtcCreateProgram");
    compile_fn compile = (compile_fn)cudyn_nvrtc_proc("nvrtcCompileProgram");
    size_fn ptx_size = (size_fn)cudyn_nvrtc_proc("nvrtcGetPTXSize");
    text_fn get_ptx = (text_fn)cudyn_nvrtc_proc("nvrtcGetPTX");
    destroy_fn destroy = (destroy_fn)cudyn_nvrtc_proc("nvrtcDestroyProgram");
    CHECK(create && compile && ptx_size && get_ptx && destroy);
    if (!create || !compile || !ptx_size || !get_ptx || !destroy)
        return;
    const char *names[] = {"mem/scale.h"};
    const char *versions[] = {"#define SCALE 2\nextern \"C\" __global__ void from_memory(float *x) {}\n",
                              "#define SCALE 3\nextern \"C\" __global__ void from_memory(float *x) {}\n"};
    char hashes[2][64];
    for (int v = 0; v < 2; v++) {
        void *prog = NULL;
        const char *opts[] = {"--gpu-architecture=compute_90"};
        CHECK_EQ_INT(create(&prog, "#include <mem/scale.h>\n", "kernel.cu", 1, &versions[v], names), 0);
        CHECK_EQ_INT(compile(prog, 1, opts), 0);
        size_t n = 0;
        CHECK_EQ_INT(ptx_size(prog, &n), 0);
        char *ptx = calloc(1, n + 1);
        CHECK_EQ_INT(get_ptx(prog, ptx), 0);
        CHECK_CONTAINS(ptx, ".visible .entry from_memory(\n\t.param .u64 from_memory_param_0\n)");
        input_hash(ptx, hashes[v], sizeof hashes[v]);
        free(ptx);
        CHECK_EQ_INT(destroy(&prog), 0);
        CHECK(prog == NULL);
    }
    CHECK(strcmp(hashes[0], hashes[1]) != 0); /* the header's edit shows */

    /* from an -I directory, and next to the program's name */
    char include[300], named[300], hash1[64], hash2[64];
    snprintf(include, sizeof include, "-I%s", tmpdir);
    const char *opts[] = {include};
    test_write_file(tmpdir, "inc.h",
                    "#pragma once\n#define SCALE 2\nextern \"C\" __global__ void from_dir(float *x) {}\n");
    cudyn_program *p;
    const char *ptx = compile_ptx(&p, "#include \"inc.h\"\n#include <inc.h>\n", opts, 1);
    CHECK_CONTAINS(ptx, ".visible .entry from_dir(\n\t.param .u64 from_dir_param_0\n)");
    input_hash(ptx, hash1, sizeof hash1);
    cudyn_program_free(p);
    test_write_file(tmpdir, "inc.h",
                    "#pragma once\n#define SCALE 3\nextern \"C\" __global__ void from_dir(float *x) {}\n");
    ptx = compile_ptx(&p, "#include \"inc.h\"\n#include <inc.h>\n", opts, 1);
    input_hash(ptx, hash2, sizeof hash2);
    CHECK(strcmp(hash1, hash2) != 0);
    cudyn_program_free(p);
    snprintf(named, sizeof named, "%s/kernel.cu", tmpdir);
    CHECK_STATUS(cudyn_compile(&p, "#include \"inc.h\"\n", named, 0, NULL, 0), CUDYN_OK);
    CHECK_CONTAINS(p ? cudyn_program_ptx(p, NULL) : NULL, ".entry from_dir(");
    cudyn_program_free(p);

    /* not found, as NVRTC says it */
    CHECK_STATUS(cudyn_compile(&p, "\n#include \"nothere.h\"\n", "kernel.cu", 0, opts, 1), CUDYN_ERROR_COMPILE);
    CHECK_CONTAINS(cudyn_program_log(p), "kernel.cu(2): catastrophic error: cannot open source file \"nothere.h\"\n"
                                         "  #include \"nothere.h\"\n");
    cudyn_program_free(p);
    CHECK_STATUS(cudyn_compile(&p, "#include <inc.h>\n", "kernel.cu", 0, NULL, 0), CUDYN_ERROR_COMPILE);
    CHECK_CONTAINS(cudyn_program_log(p), "could not open source file \"inc.h\" (no directories in search list)");
    cudyn_program_free(p);
}

/* --pre-include reads a header before the source (cudyn's nvcc names
 * among them: uint from <sys/types.h>); #if evaluates character
 * constants, signed as NVRTC's char is on x86-64. */
static void test_pre_include_and_characters(void)
{
    static const char src[] = "#if '\\xff' < 0 && 'a' == 97\n"
                              "extern \"C\" __global__ void named(uint n, float *x) { x[0] = M_PI + n; }\n#endif\n";
    const char *nvcc[] = {CUDYN_OPTION_NVCC_NAMES}, *mine[] = {"-include", "mine.h"};
    cudyn_program *p = NULL;
    const char *ptx = compile_ptx(&p, src, nvcc, 1);
    CHECK_CONTAINS(ptx, ".visible .entry named(\n\t.param .u32 named_param_0,\n\t.param .u64 named_param_1\n)");
    cudyn_program_free(p);
    CHECK_STATUS(cudyn_compile(&p, src, "kernel.cu", 0, NULL, 0), CUDYN_ERROR_COMPILE); /* no uint without it */
    cudyn_program_free(p);
    const char *names[] = {"mine.h"}, *texts[] = {"typedef float uint;\n"};
    struct cudyn_compile_args a = {.size = sizeof a, .source = src, .name = "kernel.cu", .device = 0,
                                   .options = mine, .num_options = 2, .header_names = names,
                                   .header_sources = texts, .num_headers = 1};
    CHECK_STATUS(cudyn_compile_ex(&p, &a), CUDYN_OK);
    if (p)
        CHECK_CONTAINS(cudyn_program_ptx(p, NULL), "\t.param .f32 named_param_0,");
    cudyn_program_free(p);
}

static void test_errors(void)
{
    cudyn_program *p = NULL;
    CHECK_STATUS(cudyn_compile(&p, "// a kernel\n#error \"stop here\"\n", "kernel.cu", 0, NULL, 0),
                 CUDYN_ERROR_COMPILE);
    CHECK_CONTAINS(cudyn_program_log(p), "kernel.cu(2): catastrophic error: #error directive: \"stop here\"\n"
                                         "  #error \"stop here\"\n   ^\n\n"
                                         "1 catastrophic error detected in the compilation of \"kernel.cu\".\n");
    CHECK(p && cudyn_program_image(p, NULL) == NULL);
    cudyn_error e = {.size = sizeof e};
    cudyn_last_error(&e);
    CHECK_EQ_INT(e.origin, CUDYN_ORIGIN_NVRTC);
    CHECK(strcmp(e.native_name, "NVRTC_ERROR_COMPILATION") == 0);
    CHECK_CONTAINS(e.message, "#error directive");
    cudyn_program_free(p);

    /* conditionals with -D, as test_nvrtc uses them with the real NVRTC */
    static const char option_src[] = "#if SCALE != 3\n#error SCALE was not passed\n#endif\n"
                                     "extern \"C\" __global__ void k(float *x) { x[0] = SCALE; }\n";
    const char *define[] = {"-DSCALE=3"};
    CHECK_STATUS(cudyn_compile(&p, option_src, NULL, 0, define, 1), CUDYN_OK);
    cudyn_program_free(p);
    CHECK_STATUS(cudyn_compile(&p, option_src, NULL, 0, NULL, 0), CUDYN_ERROR_COMPILE);
    CHECK_CONTAINS(cudyn_program_log(p), "SCALE was not passed");
    cudyn_program_free(p);

    /* what the mock cannot emulate it refuses, saying so */
    static const char *const refused[] = {
        "template <typename T> __global__ void t(T *x) {}\n",
        "__global__ void cxx(float *x) {}\n",
        "struct V { float x; V() {} };\nextern \"C\" __global__ void k(V v) {}\n",
        "extern \"C\" __global__ void k(std::size_t n) {}\n",
        "#define REAL float\nextern \"C\" __global__ void k(REAL a) {}\n",
        "#if __CUDACC_VER_BUILD__ > 80\n#endif\n",
    };
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        CHECK_STATUS(cudyn_compile(&p, refused[i], "kernel.cu", 0, NULL, 0), CUDYN_ERROR_COMPILE);
        CHECK_CONTAINS(cudyn_program_log(p), "error: mock NVRTC cannot compile this (");
        CHECK_CONTAINS(cudyn_program_log(p), "); use the real NVRTC\n");
        cudyn_program_free(p);
    }
    CHECK_STATUS(cudyn_compile(&p, "extern \"C\" __global__ void k(float *x) {\n", "kernel.cu", 0, NULL, 0),
                 CUDYN_ERROR_COMPILE);
    CHECK_CONTAINS(cudyn_program_log(p), "At end of source: error: expected a \"}\"\n"
                                         "kernel.cu(1): note #3196-D: to match this \"{\"\n");
    cudyn_program_free(p);
    CHECK_STATUS(cudyn_compile(&p, "extern \"C\" __global__ void k() {}\n}\n", "kernel.cu", 0, NULL, 0),
                 CUDYN_ERROR_COMPILE);
    CHECK_CONTAINS(cudyn_program_log(p), "kernel.cu(2): error: expected a declaration");
    cudyn_program_free(p);

    /* options: NVRTC's messages */
    const char *bad[] = {"--no-such-option"};
    CHECK_STATUS(cudyn_compile(&p, test_saxpy_source, NULL, 0, bad, 1), CUDYN_ERROR_INVALID_ARGUMENT);
    cudyn_last_error(&e);
    CHECK_CONTAINS(e.message, "nvrtc: error: unrecognized option --no-such-option found");
    cudyn_program_free(p);
    const char *accepted[] = {"-I",
                              "/nonexistent",
                              "--include-path=/nonexistent",
                              "-DA",
                              "-D",
                              "B=2",
                              "-UA",
                              "--std=c++17",
                              "-default-device",
                              "--use_fast_math",
                              "-lineinfo",
                              "-G",
                              "--device-debug",
                              "-arch",
                              "sm_80"};
    CHECK_STATUS(cudyn_compile(&p, test_saxpy_source, NULL, 0, accepted, 15), CUDYN_OK);
    cudyn_program_free(p);
    void *prog = NULL;
    create_fn create = (create_fn)cudyn_nvrtc_proc("nvrtcCreateProgram");
    compile_fn compile = (compile_fn)cudyn_nvrtc_proc("nvrtcCompileProgram");
    size_fn log_size = (size_fn)cudyn_nvrtc_proc("nvrtcGetProgramLogSize");
    text_fn get_log = (text_fn)cudyn_nvrtc_proc("nvrtcGetProgramLog");
    destroy_fn destroy = (destroy_fn)cudyn_nvrtc_proc("nvrtcDestroyProgram");
    if (create && compile && log_size && get_log && destroy &&
        create(&prog, test_saxpy_source, NULL, 0, NULL, NULL) == 0) {
        const char *old_arch[] = {"--gpu-architecture=sm_61"};
        CHECK_EQ_INT(compile(prog, 1, old_arch), NVRTC_ERROR_INVALID_OPTION);
        char log[200] = "";
        size_t n = 0;
        CHECK(log_size(prog, &n) == 0 && n < sizeof log && get_log(prog, log) == 0);
        CHECK(strcmp(log, "nvrtc: error: invalid value for --gpu-architecture (-arch)\n") == 0);
        destroy(&prog);
    }
}

/* Options a real NVRTC takes that change nothing the mock emulates:
 * --fmad (its host kernels never fuse) and --ptxas-options, whose -v
 * writes ptxas's report with the registers the mock driver reports. */
static void test_fmad_and_ptxas(void)
{
    cudyn_program *p = NULL;
    const char *cubin[] = {"--fmad=false", "-fmad=true", "--ptxas-options=-O3,-v", "-arch", "sm_90"};
    CHECK_STATUS(cudyn_compile(&p, test_saxpy_source, NULL, 0, cubin, 5), CUDYN_OK);
    const char *log = p ? cudyn_program_log(p) : NULL;
    CHECK(log != NULL);
    CHECK_CONTAINS(log ? log : "", "ptxas info    : Compiling entry function 'saxpy' for 'sm_90'\n");
    CHECK_CONTAINS(log ? log : "", "ptxas info    : Used 16 registers\n");
    cudyn_program_free(p);
    /* -Xptxas -v in two arguments; without -v, and for a PTX-only target
     * (no ptxas runs), no report */
    const char *split[] = {"-Xptxas", "-v", "-arch", "sm_90"};
    CHECK_STATUS(cudyn_compile(&p, test_saxpy_source, NULL, 0, split, 4), CUDYN_OK);
    CHECK_CONTAINS(p ? cudyn_program_log(p) : "", "Used 16 registers");
    cudyn_program_free(p);
    const char *quiet[][3] = {{"-Xptxas", "-O3", "sm_90"}, {"-Xptxas", "-v", "compute_90"}};
    for (int i = 0; i < 2; i++) {
        const char *opts[] = {quiet[i][0], quiet[i][1], "-arch", quiet[i][2]};
        CHECK_STATUS(cudyn_compile(&p, test_saxpy_source, NULL, 0, opts, 4), CUDYN_OK);
        const char *l = p ? cudyn_program_log(p) : NULL;
        CHECK(!l || !strstr(l, "ptxas"));
        cudyn_program_free(p);
    }
    /* a value NVRTC refuses */
    const char *bad[][1] = {{"--fmad=maybe"}, {"--fmad"}, {"--ptxas-options="}};
    for (int i = 0; i < 3; i++) {
        CHECK_STATUS(cudyn_compile(&p, test_saxpy_source, NULL, 0, bad[i], 1), CUDYN_ERROR_INVALID_ARGUMENT);
        cudyn_program_free(p);
    }
}

static void test_name_expressions(void)
{
    static const char src[] = "__device__ float dev_var;\n__constant__ int table[4];\n"
                              "extern \"C\" __global__ void scale(float *x) {}\n";
    const char *names[] = {"scale", "&dev_var", "&table", "&scale"};
    cudyn_program *p = NULL;
    CHECK_STATUS(cudyn_compile_names(&p, src, "kernel.cu", 0, NULL, 0, names, 4), CUDYN_OK);
    CHECK(p && strcmp(cudyn_program_lowered_name(p, "scale"), "scale") == 0);
    CHECK(p && strcmp(cudyn_program_lowered_name(p, "&dev_var"), "dev_var") == 0);
    CHECK(p && strcmp(cudyn_program_lowered_name(p, "&table"), "table") == 0);
    CHECK(p && strcmp(cudyn_program_lowered_name(p, "&scale"), "scale") == 0);
    cudyn_program_free(p);
    const char *cxx[] = {"scale<float>"};
    CHECK_STATUS(cudyn_compile_names(&p, src, "kernel.cu", 0, NULL, 0, cxx, 1), CUDYN_ERROR_COMPILE);
    CHECK_CONTAINS(cudyn_program_log(p), "__nv_name_map(2): error: mock NVRTC cannot compile this (name expression "
                                         "\"scale<float>\"");
    cudyn_program_free(p);

    /* the raw API's order rules */
    create_fn create = (create_fn)cudyn_nvrtc_proc("nvrtcCreateProgram");
    compile_fn compile = (compile_fn)cudyn_nvrtc_proc("nvrtcCompileProgram");
    add_name_fn add = (add_name_fn)cudyn_nvrtc_proc("nvrtcAddNameExpression");
    lowered_fn lowered = (lowered_fn)cudyn_nvrtc_proc("nvrtcGetLoweredName");
    destroy_fn destroy = (destroy_fn)cudyn_nvrtc_proc("nvrtcDestroyProgram");
    void *prog = NULL;
    const char *out = NULL;
    if (create && compile && add && lowered && destroy && create(&prog, src, "kernel.cu", 0, NULL, NULL) == 0) {
        CHECK_EQ_INT(add(prog, "scale"), 0);
        CHECK_EQ_INT(lowered(prog, "scale", &out), NVRTC_ERROR_NO_LOWERED_NAMES);
        CHECK_EQ_INT(compile(prog, 0, NULL), 0);
        CHECK_EQ_INT(lowered(prog, "scale", &out), 0);
        CHECK(out && strcmp(out, "scale") == 0);
        CHECK_EQ_INT(lowered(prog, "&dev_var", &out), NVRTC_ERROR_NAME_EXPRESSION_NOT_VALID);
        destroy(&prog);
    }
}

static void test_faults_and_counts(void)
{
    long compiles = mock_nvrtc_call_count("nvrtcCompileProgram");
    long creates = mock_nvrtc_call_count("nvrtcCreateProgram");
    CHECK(compiles > 0);
    cudyn_program *p = NULL;
    CHECK_EQ_INT(mock_nvrtc_fail_next_call("nvrtcCompileProgram", NVRTC_ERROR_INTERNAL_ERROR), 0);
    CHECK_STATUS(cudyn_compile(&p, test_saxpy_source, NULL, 0, NULL, 0), CUDYN_ERROR_NVRTC);
    CHECK(p == NULL);
    cudyn_error e = {.size = sizeof e};
    cudyn_last_error(&e);
    CHECK(strcmp(e.native_name, "NVRTC_ERROR_INTERNAL_ERROR") == 0);
    CHECK(strcmp(e.function, "nvrtcCompileProgram") == 0);
    CHECK_EQ_INT(mock_nvrtc_fail_next_call("nvrtcCreateProgram", 1), 0); /* out of memory */
    CHECK_STATUS(cudyn_compile(&p, test_saxpy_source, NULL, 0, NULL, 0), CUDYN_ERROR_OUT_OF_MEMORY);
    CHECK_STATUS(cudyn_compile(&p, test_saxpy_source, NULL, 0, NULL, 0), CUDYN_OK); /* only the next one */
    cudyn_program_free(p);
    CHECK_EQ_INT(mock_nvrtc_call_count("nvrtcCompileProgram"), compiles + 2);
    CHECK_EQ_INT(mock_nvrtc_call_count("nvrtcCreateProgram"), creates + 3);
    CHECK_EQ_INT(mock_nvrtc_call_count("nvrtcDestroyProgram"), mock_nvrtc_call_count("nvrtcCreateProgram") - 1);
    CHECK(mock_nvrtc_call_count(NULL) > mock_nvrtc_call_count("nvrtcCompileProgram"));
    CHECK_EQ_INT(mock_nvrtc_programs_alive(), 0); /* cudyn destroyed every program */
}

/* ------------------------------------------------------- child processes */

/* Environment settings are read once per process: each case runs in a
 * child that sets them before its first cudyn call. */
static int child_settings(void)
{
    setenv("MOCK_NVRTC_VERSION", "12040", 1);
    setenv("MOCK_NVRTC_ARCHS", "75,80,86,89,90", 1);
    setenv("MOCK_NVRTC_FAIL", "nvrtcCompileProgram:2:6,nvrtcGetCUBIN:*:11", 1);
    struct cudyn_loader_info info = {.size = sizeof info};
    CHECK_STATUS(cudyn_loader_info(&info), CUDYN_OK);
    CHECK_EQ_INT(info.nvrtc_version, 12040);
    int (*count)(int *) = (int (*)(int *))cudyn_nvrtc_proc("nvrtcGetNumSupportedArchs");
    int n = 0;
    CHECK(count && count(&n) == 0 && n == 5);
    const char *ptx_target[] = {"--gpu-architecture=compute_89"};
    cudyn_program *p = NULL;
    CHECK_STATUS(cudyn_compile(&p, test_saxpy_source, NULL, 0, ptx_target, 1), CUDYN_OK); /* 1st */
    cudyn_program_free(p);
    CHECK_STATUS(cudyn_compile(&p, test_saxpy_source, NULL, 0, ptx_target, 1), CUDYN_ERROR_COMPILE); /* 2nd */
    cudyn_program_free(p);
    CHECK_STATUS(cudyn_compile(&p, test_saxpy_source, NULL, 0, NULL, 0), CUDYN_ERROR_NVRTC); /* sm_90: no CUBIN */
    cudyn_program_free(p);
    return test_failures;
}

static int child_legacy(void)
{
    setenv("CUDYN_LIBNVRTC", getenv("MOCK_LIBNVRTC_LEGACY"), 1);
    setenv("MOCK_CUDA_DEVICES", "Older GPU:80", 1);
    struct cudyn_loader_info info = {.size = sizeof info};
    CHECK_STATUS(cudyn_loader_info(&info), CUDYN_OK);
    CHECK_EQ_INT(info.nvrtc_version, 11010);
    CHECK(cudyn_nvrtc_proc("nvrtcGetSupportedArchs") == NULL);
    CHECK(cudyn_nvrtc_proc("nvrtcGetNumSupportedArchs") == NULL);
    CHECK(cudyn_nvrtc_proc("nvrtcGetCUBIN") != NULL);
    cudyn_program *p = NULL;
    CHECK_STATUS(cudyn_compile(&p, test_saxpy_source, NULL, 0, NULL, 0), CUDYN_OK);
    CHECK(p && strcmp(cudyn_program_target(p), "sm_80") == 0);
    cudyn_program_free(p);
    return test_failures;
}

/* A setting the mock cannot honour: it refuses to work at all. */
static int child_bad_setting(void)
{
    setenv("CUDYN_LIBNVRTC", getenv("MOCK_LIBNVRTC_LEGACY"), 1);
    setenv("MOCK_NVRTC_VERSION", "12040", 1); /* the legacy build is older than 11.2 */
    struct cudyn_loader_info info = {.size = sizeof info};
    cudyn_loader_info(&info);
    CHECK_EQ_INT(info.nvrtc_status, CUDYN_ERROR_NVRTC_NOT_FOUND);
    return test_failures;
}

#define THREADS 32

static pthread_barrier_t start;
static int statuses[THREADS];

static void *compile_thread(void *arg)
{
    int *status = arg;
    /* a source of its own: cudyn shares one compile among identical ones */
    char source[256];
    snprintf(source, sizeof source, "extern \"C\" __global__ void thread%d(float *x) { }\n", (int)(status - statuses));
    pthread_barrier_wait(&start);
    cudyn_program *p = NULL;
    *status = cudyn_compile(&p, source, "thread.cu", 0, NULL, 0);
    cudyn_program_free(p);
    return NULL;
}

/* 32 threads compile at once, and cudyn lets their compiles overlap: the
 * mock holds each compile until all 32 are in NVRTC together, so a lock
 * around compiles would fail them (after the mock's guard), not slow them. */
static int child_threads(void)
{
    char together[16];
    snprintf(together, sizeof together, "%d", THREADS);
    setenv("MOCK_NVRTC_RENDEZVOUS", together, 1);
    struct cudyn_loader_info info = {.size = sizeof info};
    CHECK_STATUS(cudyn_loader_info(&info), CUDYN_OK);
    pthread_t t[THREADS];
    int *status = statuses;
    pthread_barrier_init(&start, NULL, THREADS);
    for (int i = 0; i < THREADS; i++)
        pthread_create(&t[i], NULL, compile_thread, &status[i]);
    for (int i = 0; i < THREADS; i++) {
        pthread_join(t[i], NULL);
        CHECK_STATUS(status[i], CUDYN_OK);
    }
    pthread_barrier_destroy(&start);
    CHECK_EQ_INT(mock_nvrtc_most_compiling(), THREADS); /* they overlapped */
    CHECK_EQ_INT(mock_nvrtc_call_count("nvrtcCompileProgram"), THREADS);
    CHECK_EQ_INT(mock_nvrtc_programs_alive(), 0);
    return test_failures;
}

static void in_child(const char *name, int (*body)(void))
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0)
        _exit(body() ? 1 : 0);
    int status = 0;
    CHECK(pid > 0 && waitpid(pid, &status, 0) == pid);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        fprintf(stderr, "%s: the child's checks failed\n", name);
        test_failures++;
    }
}

int main(void)
{
    use_mock_driver();
    const char *mock = getenv("MOCK_LIBNVRTC");
    if (!mock || !getenv("MOCK_LIBNVRTC_LEGACY"))
        TEST_SKIP("MOCK_LIBNVRTC not set (run through make check)");
    setenv("CUDYN_LIBNVRTC", mock, 1);
    setenv("CUDYN_CACHE", "0", 1); /* every compile reaches the mock */
    setenv("CUDYN_TOOLKIT", "none", 1); /* the machine's toolkit headers would change the include path */
    unsetenv("MOCK_NVRTC_VERSION");
    unsetenv("MOCK_NVRTC_ARCHS");
    unsetenv("MOCK_NVRTC_FAIL");
    unsetenv("MOCK_NVRTC_DELAY_MS");
    unsetenv("MOCK_NVRTC_RENDEZVOUS");
    unsetenv("MOCK_CUDA_DEVICES");
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        return 1;
    }

    /* before this process's first cudyn call, so each child starts fresh */
    in_child("settings", child_settings);
    in_child("legacy", child_legacy);
    in_child("bad setting", child_bad_setting);
    in_child("threads", child_threads);

    test_saxpy();
    test_types();
    test_sources();
    test_includes();
    test_pre_include_and_characters();
    test_errors();
    test_fmad_and_ptxas();
    test_name_expressions();
    test_faults_and_counts();

    char path[300];
    snprintf(path, sizeof path, "%s/inc.h", tmpdir);
    unlink(path);
    rmdir(tmpdir);
    return test_result("test_mock_nvrtc");
}
