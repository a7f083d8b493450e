/*
 * test_cache_deps.c - what a cache hit depends on besides its key, and what
 * it does not need (issue 14, issue 11 item 8):
 *  - headers in memory are part of the key;
 *  - files reached by #include (through -I, beside the source, in the
 *    working directory, a C library header of the caller's in a -I
 *    directory after the toolkit's) are checked on each hit: an edit, or
 *    a file that would now be found first, compiles again, never
 *    returning old code;
 *  - a hit loads no NVRTC, and works where there is none, in a fresh
 *    process that finds the toolkit at /usr/local/cuda (CUDA_HOME and
 *    CUDA_PATH unset) as in one told where it is, for a kernel that
 *    includes no toolkit header and for one that does;
 *  - an entry whose compile included a toolkit header needs the same
 *    toolkit; one that included none serves with another, or none;
 * and a warm hit's cost in a fresh process, printed (not asserted).
 * Uses the real libnvrtc (skipped without one) and the mock driver.
 */
#include "config.h"

#include <time.h>

#include "cachetest.h"
#include "mock/mock_control.h"

static char work[700]; /* headers and working directories */

/* Compiles; 1 hit, 0 NVRTC, -1 error; and whether the image names `word`. */
static int compile_names(const struct cudyn_compile_args *a, const char *word, bool *has)
{
    cudyn_program *p = NULL;
    int hit = compile_args_hit(a, &p);
    size_t n = 0;
    const void *image = p ? cudyn_program_image(p, &n) : NULL;
    *has = image && memmem(image, n, word, strlen(word)) != NULL;
    cudyn_program_free(p);
    return hit;
}

/* Expects a compile from NVRTC (hit 0) or the cache (1) whose kernel is `word`. */
#define EXPECT_BUILD(a, hit, word)                                     \
    do {                                                               \
        bool has_ = false;                                             \
        CHECK_EQ_INT(compile_names((a), (word), &has_), (hit));        \
        if (!has_) {                                                   \
            fprintf(stderr, "%s:%d: the image has no '%s'\n", __FILE__, __LINE__, (word)); \
            test_failures++;                                           \
        }                                                              \
    } while (0)

static const char kname_src[] = "extern \"C\" __global__ void KNAME(int *x) { x[0] = 1; }\n";

static char *with_include(const char *include_line)
{
    static char src[512];
    snprintf(src, sizeof src, "%s\n%s", include_line, kname_src);
    return src;
}

static void test_headers_in_memory(void)
{
    const char *names[] = {"params.h"}, *one[] = {"#define KNAME mem_one\n"}, *two[] = {"#define KNAME mem_two\n"};
    struct cudyn_compile_args a = {.size = sizeof a, .source = with_include("#include \"params.h\""),
                                   .name = "mem.cu", .header_names = names, .header_sources = one,
                                   .num_headers = 1};
    EXPECT_BUILD(&a, 0, "mem_one");
    EXPECT_BUILD(&a, 1, "mem_one");
    a.header_sources = two;
    EXPECT_BUILD(&a, 0, "mem_two");
    EXPECT_BUILD(&a, 1, "mem_two");
    a.header_sources = one;
    EXPECT_BUILD(&a, 1, "mem_one"); /* each contents its own entry */
}

/* Issue 11, item 8: an edited -I header served the old kernel. */
static void test_include_path(void)
{
    test_write_file(work, "inc/k.h", "#include \"nested.h\"\n#define KNAME inc_one\n");
    test_write_file(work, "inc/nested.h", "#define NESTED 1\n");
    const char *opts[] = {"-I", test_path(work, "inc")};
    struct cudyn_compile_args a = {.size = sizeof a, .source = with_include("#include <k.h>"), .name = "inc.cu",
                                   .options = opts, .num_options = 2};
    EXPECT_BUILD(&a, 0, "inc_one");
    EXPECT_BUILD(&a, 1, "inc_one");
    test_write_file(work, "inc/k.h", "#include \"nested.h\"\n#define KNAME inc_two\n");
    EXPECT_BUILD(&a, 0, "inc_two");
    EXPECT_BUILD(&a, 1, "inc_two");
    test_write_file(work, "inc/k.h", "#include \"nested.h\"\n#define KNAME inc_two\n"); /* rewritten, same bytes */
    EXPECT_BUILD(&a, 1, "inc_two");
    test_write_file(work, "inc/nested.h", "#define NESTED 2\n"); /* a file it includes */
    EXPECT_BUILD(&a, 0, "inc_two");
    /* a file appearing in an earlier -I directory is the one NVRTC reads */
    const char *two_dirs[] = {"-I", test_path(work, "first"), "-I", test_path(work, "inc")};
    a.options = two_dirs;
    a.num_options = 4;
    EXPECT_BUILD(&a, 0, "inc_two");
    EXPECT_BUILD(&a, 1, "inc_two");
    test_write_file(work, "first/k.h", "#define KNAME first_one\n");
    EXPECT_BUILD(&a, 0, "first_one");
    EXPECT_BUILD(&a, 1, "first_one");
}

/* The caller's own <math.h> in a -I directory after the toolkit's: NVRTC
 * reads it (cudyn gives NVRTC no math.h of its own then), so an edit of
 * it compiles again. */
static void test_libc_header_behind_the_toolkit(void)
{
    struct cudyn_toolkit_info t = {.size = sizeof t};
    if (cudyn_toolkit_info(&t) != CUDYN_OK || !t.include_path) {
        printf("no toolkit headers: a -I directory after the toolkit's not tried\n");
        return;
    }
    char toolkit[4096];
    snprintf(toolkit, sizeof toolkit, "%.*s", (int)strcspn(t.include_path, ":"), t.include_path);
    test_write_file(work, "mine/math.h", "#define KNAME mine_one\n");
    const char *opts[] = {"-I", toolkit, "-I", test_path(work, "mine")};
    struct cudyn_compile_args a = {.size = sizeof a, .source = with_include("#include <math.h>"), .name = "m.cu",
                                   .options = opts, .num_options = 4};
    EXPECT_BUILD(&a, 0, "mine_one");
    EXPECT_BUILD(&a, 1, "mine_one");
    test_write_file(work, "mine/math.h", "#define KNAME mine_two\n");
    EXPECT_BUILD(&a, 0, "mine_two");
    EXPECT_BUILD(&a, 1, "mine_two");
}

/* Issue 11, item 8: "kernel.cu" includes "local.h" from the working directory. */
static void test_working_directory(void)
{
    char home[1024];
    if (!getcwd(home, sizeof home))
        return;
    test_write_file(work, "cwd1/local.h", "#define KNAME cwd_one\n");
    test_write_file(work, "cwd2/local.h", "#define KNAME cwd_three\n");
    struct cudyn_compile_args a = {.size = sizeof a, .source = with_include("#include \"local.h\"")};
    CHECK(chdir(test_path(work, "cwd1")) == 0);
    EXPECT_BUILD(&a, 0, "cwd_one");
    EXPECT_BUILD(&a, 1, "cwd_one");
    test_write_file(work, "cwd1/local.h", "#define KNAME cwd_two\n");
    EXPECT_BUILD(&a, 0, "cwd_two");
    EXPECT_BUILD(&a, 1, "cwd_two");
    CHECK(chdir(test_path(work, "cwd2")) == 0); /* another directory: another local.h */
    EXPECT_BUILD(&a, 0, "cwd_three");
    CHECK(chdir(home) == 0);
}

/* What cannot be known is not cached: every compile is NVRTC's. */
static void test_uncacheable(void)
{
    clear_dir();
    test_write_file(work, "inc/named.h", "#define KNAME computed_one\n");
    const char *opts[] = {"-I", test_path(work, "inc")};
    const char *sources[] = {"#define H <named.h>\n#include H\n",
                             "#if __has_include(<named.h>)\n#include <named.h>\n#endif\n"};
    for (int i = 0; i < 2; i++) {
        char src[512];
        snprintf(src, sizeof src, "%s%s", sources[i], kname_src);
        struct cudyn_compile_args a = {.size = sizeof a, .source = src, .options = opts, .num_options = 2};
        EXPECT_BUILD(&a, 0, "computed_one");
        EXPECT_BUILD(&a, 0, "computed_one");
    }
    CHECK_EQ_INT(entry_path(NULL, 0), 0);
    /* and the flags: no cache at all, or a rebuild that replaces the entry */
    struct cudyn_compile_args a = {.size = sizeof a, .source = test_saxpy_source, .flags = CUDYN_COMPILE_NO_CACHE};
    CHECK_EQ_INT(compile_args_hit(&a, NULL), 0);
    CHECK_EQ_INT(entry_path(NULL, 0), 0);
    a.flags = 0;
    CHECK_EQ_INT(compile_args_hit(&a, NULL), 0);
    CHECK_EQ_INT(compile_args_hit(&a, NULL), 1);
    a.flags = CUDYN_COMPILE_REBUILD;
    CHECK_EQ_INT(compile_args_hit(&a, NULL), 0);
    CHECK_EQ_INT(entry_path(NULL, 0), 1);
}

/* ---- issue 14: hits without NVRTC ---- */

static int nvrtc_status_now(void)
{
    struct cudyn_loader_info l = {.size = sizeof l};
    cudyn_loader_info_ex(&l, CUDYN_LOAD_NOTHING);
    return l.nvrtc_status;
}

/* A kernel that includes a toolkit header: its entry holds the toolkit's
 * identities (compile.c). */
static const char half_source[] = "#include <cuda_fp16.h>\n"
                                  "extern \"C\" __global__ void half_one(__half *x) { x[0] = __float2half(1.0f); }\n";

/* Whether a libnvrtc is mapped into this process (whoever loaded it). */
static bool nvrtc_mapped(void)
{
    FILE *f = fopen("/proc/self/maps", "r");
    char line[4096];
    bool mapped = false;
    while (f && !mapped && fgets(line, sizeof line, f))
        mapped = strstr(line, "libnvrtc") != NULL;
    if (f)
        fclose(f);
    return mapped;
}

static bool compiled_from_cache(const char *source)
{
    cudyn_program *p = NULL;
    bool hit = cudyn_compile(&p, source, NULL, 0, NULL, 0) == CUDYN_OK && cudyn_program_from_cache(p);
    cudyn_program_free(p);
    return hit;
}

/* Compiles both kernels into the cache: 0, or 3 when the half one cannot
 * serve the test (no toolkit headers, or not those at /usr/local/cuda,
 * which a process without CUDA_HOME and CUDA_PATH finds before loading
 * NVRTC). */
static int child_prepare(void)
{
    if (compiled_from_cache(test_saxpy_source) || cudyn_last_error(NULL) != CUDYN_OK)
        return 10;
    cudyn_program *p = NULL;
    if (cudyn_compile(&p, half_source, NULL, 0, NULL, 0) != CUDYN_OK) {
        fprintf(stderr, "no toolkit headers to compile cuda_fp16.h with: %s\n", p ? cudyn_program_log(p) : "");
        cudyn_program_free(p);
        return 3;
    }
    cudyn_program_free(p);
    struct cudyn_toolkit_info t = {.size = sizeof t};
    char *usr_local = realpath("/usr/local/cuda/include", NULL);
    bool there = cudyn_toolkit_info(&t) == CUDYN_OK && t.include_path && usr_local &&
                 strncmp(t.include_path, usr_local, strlen(usr_local)) == 0;
    if (!there)
        fprintf(stderr, "the toolkit headers NVRTC was given (%s) are not /usr/local/cuda's (%s)\n",
                t.include_path ? t.include_path : "none", usr_local ? usr_local : "none");
    free(usr_local);
    return there ? 0 : 3;
}

/* A hit in a fresh process loads no NVRTC (nor maps it); with none
 * installed, a miss says so. */
static int child_hit(bool half, bool nvrtc_missing)
{
    cudyn_module m = NULL;
    if (cudyn_module_load_source(&m, test_saxpy_source, NULL, 0) != CUDYN_OK)
        return 10;
    cudyn_function f = NULL;
    if (cudyn_module_function(&f, m, "saxpy") != CUDYN_OK)
        return 11;
    cudyn_program *p = NULL;
    if (cudyn_compile(&p, test_saxpy_source, NULL, 0, NULL, 0) != CUDYN_OK || !cudyn_program_from_cache(p) ||
        strncmp(cudyn_program_target(p), "sm_", 3) != 0)
        return 12;
    cudyn_program_free(p);
    if (half && !compiled_from_cache(half_source))
        return 19;
    if (nvrtc_status_now() != CUDYN_ERROR_NOT_READY)
        return 13; /* NVRTC was loaded */
    if (nvrtc_mapped())
        return 20;
    if (!nvrtc_missing)
        return 0;
    cudyn_module other = NULL;
    if (cudyn_module_load_source(&other, "extern \"C\" __global__ void uncached() {}\n", NULL, 0) !=
        CUDYN_ERROR_NVRTC_NOT_FOUND)
        return 14;
    cudyn_error e = {.size = sizeof e};
    cudyn_last_error(&e);
    if (!strstr(e.message, "CUDYN_LIBNVRTC") || !strstr(e.message, "not in the kernel cache") || !e.hint[0])
        return 15;
    if (nvrtc_status_now() != CUDYN_ERROR_NVRTC_NOT_FOUND)
        return 16;
    /* a hit the driver rejects, with no NVRTC to rebuild it: said so,
     * with no NVRTC version */
    cudyn_module_unload(m);
    mock_reject_images("cubin");
    if (cudyn_module_load_source(&m, test_saxpy_source, NULL, 0) != CUDYN_ERROR_NO_BINARY_FOR_GPU)
        return 17;
    cudyn_last_error(&e);
    if (!strstr(e.message, "; no NVRTC to rebuild it)") || strstr(e.message, "NVRTC 0.0"))
        return 18;
    return 0;
}

/* Another toolkit (CUDYN_TOOLKIT, a fake one whose cuda_fp16.h is its
 * own) or none: the kernel that includes no toolkit header is a hit, with
 * no NVRTC; the one that includes cuda_fp16.h is not, and compiles with
 * this toolkit's header, or fails without one. */
static int child_other_toolkit(bool none)
{
    if (!compiled_from_cache(test_saxpy_source))
        return 10;
    if (nvrtc_status_now() != CUDYN_ERROR_NOT_READY || nvrtc_mapped())
        return 11;
    cudyn_program *p = NULL;
    int st = cudyn_compile(&p, half_source, NULL, 0, NULL, 0);
    bool hit = st == CUDYN_OK && cudyn_program_from_cache(p);
    size_t n = 0;
    const void *image = st == CUDYN_OK ? cudyn_program_image(p, &n) : NULL;
    bool fake = image && memmem(image, n, "fake_toolkit_half", strlen("fake_toolkit_half")) != NULL;
    cudyn_program_free(p);
    if (hit)
        return 12;
    if (none)
        return st == CUDYN_ERROR_COMPILE ? 0 : 13;
    return st == CUDYN_OK && fake ? 0 : 14;
}

/* A toolkit of its own: include/cuda_runtime.h (what the search looks
 * for) and a cuda_fp16.h whose __float2half sets a variable the image
 * names. */
static void make_fake_toolkit(char *root, size_t cap)
{
    snprintf(root, cap, "%s/faketk", work);
    char include[1024];
    snprintf(include, sizeof include, "%s/include", root);
    mkdir(root, 0700);
    mkdir(include, 0700);
    test_write_file(include, "cuda_runtime.h", "\n");
    test_write_file(include, "cuda_fp16.h",
                    "struct __half { unsigned short x; };\n"
                    "__device__ int fake_toolkit_half;\n"
                    "__device__ __half __float2half(float f)\n"
                    "{\n"
                    "    __half h = {(unsigned short)f};\n"
                    "    fake_toolkit_half = 1;\n"
                    "    return h;\n"
                    "}\n");
}

static void test_without_nvrtc(void)
{
    /* a process told nothing of the toolkit finds the one at
     * /usr/local/cuda before NVRTC is loaded, beside NVRTC after: one
     * toolkit by two paths (a symbolic link there) */
    static const char *const untold[] = {"CUDA_HOME", NULL, "CUDA_PATH", NULL, "CUDYN_TOOLKIT", NULL, NULL};
    clear_dir();
    int prepared = run_child("prepare", untold);
    CHECK(prepared == 0 || prepared == 3);
    if (prepared == 3)
        printf("the kernel that includes cuda_fp16.h left out of the fresh-process hits\n");
    CHECK_EQ_INT(run_child(prepared == 0 ? "hit-half" : "hit", untold), 0);
    CHECK_EQ_INT(run_child(prepared == 0 ? "hit-half" : "hit", NULL), 0); /* this process's environment */
    if (prepared == 0) {
        char fake[1024];
        make_fake_toolkit(fake, sizeof fake);
        const char *other[] = {"CUDYN_TOOLKIT", fake, NULL};
        CHECK_EQ_INT(run_child("other-toolkit", other), 0);
        const char *none[] = {"CUDYN_TOOLKIT", "none", NULL};
        CHECK_EQ_INT(run_child("no-toolkit", none), 0);
    }
    const char *no_nvrtc[] = {"CUDYN_LIBNVRTC", "/nonexistent/libnvrtc.so.13", NULL};
    CHECK_EQ_INT(run_child("no-nvrtc", no_nvrtc), 0); /* last: it makes the driver refuse the saxpy entry */
}

/* ---- a warm hit's cost in a fresh process (printed, not asserted) ---- */

#define TIMED_KERNELS 40

static const char *timed_source(int i)
{
    static char src[256];
    snprintf(src, sizeof src, "extern \"C\" __global__ void timed%d(float *x) { x[0] *= %d.0f; }\n", i, i);
    return src;
}

static int child_timing(void)
{
    if (cudyn_device_use(0) != CUDYN_OK) /* the context exists before the clock starts */
        return 10;
    double total = 0, best = 1e9, worst = 0;
    for (int i = 0; i < TIMED_KERNELS; i++) {
        struct timespec t0, t1;
        cudyn_module m = NULL;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        int st = cudyn_module_load_source(&m, timed_source(i), NULL, 0);
        clock_gettime(CLOCK_MONOTONIC, &t1);
        if (st != CUDYN_OK)
            return 11;
        double ms = (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6;
        total += ms;
        best = ms < best ? ms : best;
        worst = ms > worst ? ms : worst;
    }
    fprintf(stderr, "warm hit in a fresh process, after the context exists: mean %.3f ms, min %.3f, max %.3f "
                    "(%d kernels, mock driver); NVRTC %s\n",
            total / TIMED_KERNELS, best, worst, TIMED_KERNELS,
            nvrtc_mapped() ? "loaded" : "not loaded");
    return nvrtc_status_now() == CUDYN_ERROR_NOT_READY && !nvrtc_mapped() ? 0 : 12;
}

static void test_timing(void)
{
    for (int i = 0; i < TIMED_KERNELS; i++) {
        cudyn_program *p = NULL;
        CHECK_STATUS(cudyn_compile(&p, timed_source(i), NULL, 0, NULL, 0), CUDYN_OK);
        cudyn_program_free(p);
    }
    static const char *const untold[] = {"CUDA_HOME", NULL, "CUDA_PATH", NULL, "CUDYN_TOOLKIT", NULL, NULL};
    CHECK_EQ_INT(run_child("timing", untold), 0);
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "child") == 0) {
        use_mock_driver();
        snprintf(dir, sizeof dir, "%s", getenv("CUDYN_CACHE_DIR"));
        if (strcmp(argv[2], "timing") == 0)
            return child_timing();
        if (strcmp(argv[2], "prepare") == 0)
            return child_prepare();
        if (strcmp(argv[2], "other-toolkit") == 0 || strcmp(argv[2], "no-toolkit") == 0)
            return child_other_toolkit(strcmp(argv[2], "no-toolkit") == 0);
        return child_hit(strcmp(argv[2], "hit-half") == 0, strcmp(argv[2], "no-nvrtc") == 0);
    }
    use_own_cache_dir("test_cache_deps");
    use_mock_driver();
    need_nvrtc();
    snprintf(work, sizeof work, "%s/work", dir);
    const char *dirs[] = {"", "/inc", "/first", "/cwd1", "/cwd2", "/mine"};
    for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s%s", work, dirs[i]);
        mkdir(path, 0700);
    }
    test_headers_in_memory();
    test_include_path();
    test_libc_header_behind_the_toolkit();
    test_working_directory();
    test_uncacheable();
    test_without_nvrtc();
    test_timing();
    return test_result("test_cache_deps");
}
