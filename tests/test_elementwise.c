/*
 * test_elementwise.c - cudyn_elementwise_* and cudyn_reduction_* on the mock
 * driver and the mock NVRTC (the real NVRTC in one scenario of its own,
 * skipped without it): NULL and range checks, what creation derives, errors
 * in the user's text named by it, SAXPY and the dot product on the mock's
 * host versions of their generated kernels (both variants), argument
 * counts, determinism, streams, devices and threads, resets of another
 * device (which leave the objects' modules in use), and a fault in each
 * driver and NVRTC call the new code makes, with nothing left behind.
 */
#include "config.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "cudyn.h"
#include "mock/mock_control.h"
#include "mock/nvrtc/mock_nvrtc_control.h"
#include "testutil.h"

/* The texts of examples/elementwise.c: the mock runs their kernels. */
#define SAXPY_PARAMS "float a, const float *x, float *y"
#define SAXPY_BODY "y[i] = a * x[i] + y[i]"
#define DOT_PARAMS "const float *x, const float *y"

static int make_saxpy(cudyn_elementwise **k)
{
    return cudyn_elementwise_create(k, SAXPY_PARAMS, SAXPY_BODY, "saxpy", NULL);
}

static int make_dot(cudyn_reduction **r)
{
    return cudyn_reduction_create(r, "float", "0", "a + b", "x[i] * y[i]", DOT_PARAMS, "dot", NULL);
}

static void last_message(char *out, size_t cap)
{
    cudyn_error e = {.size = sizeof e};
    cudyn_last_error(&e);
    snprintf(out, cap, "%s", e.message);
}

#define CHECK_MESSAGE(needle)              \
    do {                                   \
        char m_[1100];                     \
        last_message(m_, sizeof m_);       \
        CHECK_CONTAINS(m_, (needle));      \
    } while (0)

/* Device buffers of n floats holding the SAXPY inputs (test_saxpy_inputs). */
struct buffers {
    size_t n;
    float *x, *y;
    cudyn_devptr dx, dy;
};

static int buffers_make(struct buffers *b, size_t n)
{
    b->n = n;
    b->x = malloc(n * sizeof *b->x);
    b->y = malloc(n * sizeof *b->y);
    test_saxpy_inputs(b->x, b->y, n);
    int st = cudyn_mem_alloc(&b->dx, n * sizeof(float));
    if (st == CUDYN_OK)
        st = cudyn_mem_alloc(&b->dy, n * sizeof(float));
    if (st == CUDYN_OK)
        st = cudyn_memcpy_htod(b->dx, b->x, n * sizeof(float));
    if (st == CUDYN_OK)
        st = cudyn_memcpy_htod(b->dy, b->y, n * sizeof(float));
    return st;
}

static void buffers_free(struct buffers *b)
{
    cudyn_mem_free(b->dx);
    cudyn_mem_free(b->dy);
    free(b->x);
    free(b->y);
    memset(b, 0, sizeof *b);
}

/* Elements of dy (from `first`, `count` of them) that are not a * x + y. */
static size_t saxpy_wrong(const struct buffers *b, float a, size_t first, size_t count)
{
    float *out = malloc(b->n * sizeof *out);
    size_t wrong = 0;
    if (cudyn_memcpy_dtoh(out, b->dy, b->n * sizeof *out) != CUDYN_OK)
        wrong = b->n;
    for (size_t i = 0; i < b->n && !wrong; i++) {
        float want = i >= first && i < first + count ? a * b->x[i] + b->y[i] : b->y[i];
        wrong += out[i] != want;
    }
    free(out);
    return wrong;
}

static double dot_reference(const struct buffers *b, size_t first, size_t count)
{
    double sum = 0;
    for (size_t i = first; i < first + count; i++)
        sum += (double)b->x[i] * b->y[i];
    return sum;
}

/* ------------------------------------------------------------ checks */

static void test_null_and_range(void)
{
    cudyn_elementwise *k = (cudyn_elementwise *)1;
    CHECK_STATUS(cudyn_elementwise_create(NULL, SAXPY_PARAMS, SAXPY_BODY, "saxpy", NULL), CUDYN_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(cudyn_elementwise_create(&k, NULL, SAXPY_BODY, "saxpy", NULL), CUDYN_ERROR_INVALID_ARGUMENT);
    CHECK(k == NULL);
    CHECK_MESSAGE("'params'");
    CHECK_STATUS(cudyn_elementwise_create(&k, SAXPY_PARAMS, NULL, "saxpy", NULL), CUDYN_ERROR_INVALID_ARGUMENT);
    CHECK_MESSAGE("'body'");
    CHECK_STATUS(cudyn_elementwise_create(&k, SAXPY_PARAMS, SAXPY_BODY, "9lives", NULL), CUDYN_ERROR_INVALID_ARGUMENT);
    CHECK_MESSAGE("'name'");
    CHECK_STATUS(cudyn_elementwise_create(&k, SAXPY_PARAMS, SAXPY_BODY, "", NULL), CUDYN_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(cudyn_elementwise_launch(NULL, 10, NULL, 1.0, (cudyn_devptr)0, (cudyn_devptr)0),
                 CUDYN_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(cudyn_elementwise_launch_args(NULL, 10, NULL, NULL, 0), CUDYN_ERROR_INVALID_ARGUMENT);
    CHECK(strcmp(cudyn_elementwise_format(NULL), "") == 0);
    CHECK(strcmp(cudyn_elementwise_source(NULL), "") == 0);
    cudyn_elementwise_free(NULL);

    cudyn_reduction *r = (cudyn_reduction *)1;
    const char *good[] = {"float", "0", "a + b", "x[i] * y[i]", DOT_PARAMS};
    const char *names[] = {"'result_type'", "'neutral'", "'reduce'", "'map'", "'params'"};
    for (int missing = 0; missing < 5; missing++) {
        const char *v[5];
        for (int j = 0; j < 5; j++)
            v[j] = j == missing ? NULL : good[j];
        CHECK_STATUS(cudyn_reduction_create(&r, v[0], v[1], v[2], v[3], v[4], "dot", NULL),
                     CUDYN_ERROR_INVALID_ARGUMENT);
        CHECK_MESSAGE(names[missing]);
        CHECK(r == NULL);
    }
    CHECK_STATUS(cudyn_reduction_create(NULL, "float", "0", "a + b", "x[i]", "const float *x", "s", NULL),
                 CUDYN_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(cudyn_reduction_create(&r, "float", "0", "a + b", "x[i]", "const float *x", "a b", NULL),
                 CUDYN_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(cudyn_reduction_create(&r, "float *", "0", "a + b", "x[i]", "const float *x", "s", NULL),
                 CUDYN_ERROR_INVALID_ARGUMENT);
    CHECK_MESSAGE("the result type \"float *\" is a pointer");
    float out;
    CHECK_STATUS(cudyn_reduction_run(NULL, &out, 0, 10, NULL), CUDYN_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(cudyn_reduction_run_args(NULL, &out, 0, 10, NULL, NULL, 0), CUDYN_ERROR_INVALID_ARGUMENT);
    CHECK(strcmp(cudyn_reduction_format(NULL), "") == 0);
    CHECK(strcmp(cudyn_reduction_source(NULL), "") == 0);
    cudyn_reduction_free(NULL);
}

/* What creation derives from the text, and bad lists named by parameter. */
static void test_creation(void)
{
    cudyn_elementwise *k = NULL;
    CHECK_STATUS(make_saxpy(&k), CUDYN_OK);
    CHECK(strcmp(cudyn_elementwise_format(k), "fpp") == 0);
    const char *src = cudyn_elementwise_source(k);
    CHECK_CONTAINS(src, "extern \"C\" __global__ void cudyn_elementwise_saxpy(float a, const float *x, float *y, "
                        "size_t n)");
    CHECK_CONTAINS(src, "cudyn_elementwise_saxpy_vec(");
    CHECK_CONTAINS(src, "#line 1 \"elementwise body\"\n" SAXPY_BODY "\n");
    cudyn_elementwise_free(k);

    /* NULL name: "kernel"; every scalar type reaches the format */
    CHECK_STATUS(cudyn_elementwise_create(&k, "bool b, int8_t c, unsigned short h, int j, uint32_t u, long long q, "
                                              "size_t z, float f, double d, double *p",
                                          "p[i] = b + c + h + j + u + q + z + f + d", NULL, "// nothing"),
                 CUDYN_OK);
    CHECK(strcmp(cudyn_elementwise_format(k), "?bHiIqzfdp") == 0);
    CHECK_CONTAINS(cudyn_elementwise_source(k), "cudyn_elementwise_kernel(");
    cudyn_elementwise_free(k);

    static const struct {
        const char *params, *detail;
    } bad[] = {
        {"float a, float **x", "parameter 2 ('float **x') is a pointer to a pointer"},
        {"float a, float4 v", "parameter 2 ('float4 v') has a type cudyn does not know"},
        {"float a, float a", "parameter 2 ('float a') repeats the name 'a'"},
        {"float n", "may not be named 'n'"},
        {"float *x,", "parameter 2 ('') is empty"},
    };
    for (size_t c = 0; c < sizeof bad / sizeof bad[0]; c++) {
        CHECK_STATUS(cudyn_elementwise_create(&k, bad[c].params, "", "bad", NULL), CUDYN_ERROR_INVALID_ARGUMENT);
        CHECK(k == NULL);
        CHECK_MESSAGE(bad[c].detail);
        CHECK_MESSAGE("cudyn_elementwise_create: \"bad\"");
    }
    cudyn_reduction *r = NULL;
    CHECK_STATUS(make_dot(&r), CUDYN_OK);
    CHECK(strcmp(cudyn_reduction_format(r), "pp") == 0);
    CHECK_CONTAINS(cudyn_reduction_source(r), "cudyn_reduce_dot(const float *x, const float *y, size_t n, float "
                                              "*cudyn_partials, unsigned int *cudyn_done, float *cudyn_out)");
    cudyn_reduction_free(r);
    CHECK_STATUS(cudyn_reduction_create(&r, "float", "0", "a + b", "x[i]", "const float *x, void *v", "s", NULL),
                 CUDYN_ERROR_INVALID_ARGUMENT);
    CHECK_MESSAGE("parameter 2 ('void *v')");
    /* the kernel adds four parameters of its own: 61 of the user's are one too many */
    char many[61 * 24] = "", one[24];
    for (int j = 0; j < 61; j++) {
        snprintf(one, sizeof one, "%sconst float *p%d", j ? ", " : "", j);
        strcat(many, one);
    }
    CHECK_STATUS(cudyn_reduction_create(&r, "float", "0", "a + b", "p0[i]", many, "many", NULL),
                 CUDYN_ERROR_INVALID_ARGUMENT);
    CHECK(r == NULL);
    CHECK_MESSAGE("61 parameters; a reduction takes at most 60");
    many[strlen(many) - strlen(", const float *p60")] = '\0'; /* 60: accepted */
    CHECK_STATUS(cudyn_reduction_create(&r, "float", "0", "a + b", "p0[i]", many, "many", NULL), CUDYN_OK);
    cudyn_reduction_free(r);
}

/* An #error in a preamble (the mock NVRTC reports it as NVRTC does):
 * CUDYN_ERROR_COMPILE whose message names that text and line.  In the
 * confined texts a '#' is refused before NVRTC, naming the text and line. */
static void test_expression_errors(void)
{
    cudyn_elementwise *k = NULL;
    long runs = mock_nvrtc_call_count("nvrtcCompileProgram");
    CHECK_STATUS(cudyn_elementwise_create(&k, SAXPY_PARAMS, SAXPY_BODY, "e2", "\n#error the preamble"),
                 CUDYN_ERROR_COMPILE);
    CHECK_EQ_INT(mock_nvrtc_call_count("nvrtcCompileProgram"), runs + 1); /* its log explains it: no second run */
    CHECK(k == NULL);
    CHECK_MESSAGE("elementwise preamble(2): catastrophic error: #error directive: the preamble");
    CHECK_MESSAGE("elementwise \"e2\"");
    CHECK_STATUS(cudyn_elementwise_create(&k, SAXPY_PARAMS, "y[i] = 0;\n#error the body is wrong", "e1", NULL),
                 CUDYN_ERROR_INVALID_ARGUMENT);
    CHECK_MESSAGE("the body, line 2, column 1: '#' is not allowed");

    static const struct {
        const char *neutral, *reduce, *map, *preamble, *where;
        int status;
    } red[] = {
        {"0", "a + b", "x[i]\n#error map", NULL, "the map expression, line 2, column 1", CUDYN_ERROR_INVALID_ARGUMENT},
        {"0", "#error reduce", "x[i]", NULL, "the reduce expression, line 1, column 1", CUDYN_ERROR_INVALID_ARGUMENT},
        {"#error neutral", "a + b", "x[i]", NULL, "the neutral, line 1, column 1", CUDYN_ERROR_INVALID_ARGUMENT},
        {"0", "a + b", "x[i]", "\n\n#error pre", "reduction preamble(3)", CUDYN_ERROR_COMPILE},
    };
    for (size_t c = 0; c < sizeof red / sizeof red[0]; c++) {
        cudyn_reduction *r = NULL;
        CHECK_STATUS(cudyn_reduction_create(&r, "float", red[c].neutral, red[c].reduce, red[c].map, "const float *x",
                                            "e3", red[c].preamble),
                     red[c].status);
        CHECK(r == NULL);
        CHECK_MESSAGE(red[c].where);
    }
    /* __half: the source includes cuda_fp16.h, which no include path here has */
    CHECK_STATUS(cudyn_elementwise_create(&k, "__half a, __half *x", "x[i] = a * x[i]", "h", NULL),
                 CUDYN_ERROR_COMPILE);
    CHECK_MESSAGE("cuda_fp16.h");
    CHECK_MESSAGE("__half needs cuda_fp16.h");
    CHECK_EQ_INT(mock_nvrtc_programs_alive(), 0);
}

/* Texts that would reach outside their place in the generated source are
 * refused before NVRTC sees them, saying what and where (issue 24, rows 9
 * and 10); texts with braces in literals or balanced blocks still build. */
static void test_hostile_texts(void)
{
    static const struct {
        const char *body, *detail;
    } bad[] = {
        {"y[i] = a * x[i] + y[i]; }\nextern \"C\" __global__ void extra(float *p) { p[0] = 1;",
         "the body, line 1, column 25: '}' closes nothing that the text opened"},
        {"#include \"/etc/passwd\"\ny[i] = x[i];", "the body, line 1, column 1: '#' is not allowed"},
        {"  #define size_t int\ny[i] = x[i];", "the body, line 1, column 3: '#' is not allowed"},
        {"y[i] = x[i]; # define X", "line 1, column 14: '#' is not allowed"},
        {"%:include \"/etc/passwd\"\ny[i] = x[i];", "the digraph '%:' is not allowed"},
        {"y[i] = x[i]; <% y[i] = 0;", "the digraph '<%' is not allowed"},
        {"y[i] = x[i]; \\", "the body, line 1, column 14: the text ends in a backslash"},
        {"y[i] = x[i]; // a comment \\\n}", "line 1, column 27: a backslash ends the line (a line splice)"},
        {"y[i] = (x[i] + 1;", "the body, line 1, column 8: '(' is never closed"},
        {"y[i] = x[i]);", "line 1, column 12: ')' closes nothing"},
        {"y[i] = x[i]; { y[i] = 0; )", "')' does not match the bracket"},
        {"y[i] = x[i]; /* } hidden", "line 1, column 14: a /* comment is not closed"},
        {"y[i] = x[i]; const char *s = \"}\n\";", "a string literal is not closed on its line"},
    };
    for (size_t c = 0; c < sizeof bad / sizeof bad[0]; c++) {
        cudyn_elementwise *k = NULL;
        long runs = mock_nvrtc_call_count("nvrtcCompileProgram");
        CHECK_STATUS(cudyn_elementwise_create(&k, SAXPY_PARAMS, bad[c].body, "hostile", NULL),
                     CUDYN_ERROR_INVALID_ARGUMENT);
        CHECK(k == NULL);
        CHECK_EQ_INT(mock_nvrtc_call_count("nvrtcCompileProgram"), runs); /* refused before NVRTC */
        CHECK_MESSAGE(bad[c].detail);
        CHECK_MESSAGE("cudyn_elementwise_create: \"hostile\"");
    }
    /* a reduction's texts are confined the same way */
    cudyn_reduction *r = NULL;
    CHECK_STATUS(cudyn_reduction_create(&r, "float", "0", "a + b) + (0", "x[i]", "const float *x", "r", NULL),
                 CUDYN_ERROR_INVALID_ARGUMENT);
    CHECK_MESSAGE("the reduce expression, line 1, column 6: ')' closes nothing");
    CHECK_STATUS(cudyn_reduction_create(&r, "float", "0", "a + b", "x[i] }; __global__ void k() {", "const float *x",
                                        "r", NULL),
                 CUDYN_ERROR_INVALID_ARGUMENT);
    CHECK_MESSAGE("the map expression, line 1, column 6: '}' closes nothing");
    CHECK_STATUS(cudyn_reduction_create(&r, "float", "0", "a + b", "x[i]", "const float *x", "r", "int f() {"),
                 CUDYN_ERROR_INVALID_ARGUMENT);
    CHECK_MESSAGE("the preamble, line 1, column 9: '{' is never closed");
    CHECK(r == NULL);
    /* row 9: a qualifier twice is named with its parameter */
    cudyn_elementwise *k = NULL;
    CHECK_STATUS(cudyn_elementwise_create(&k, "float a, const const float *x, float *y", SAXPY_BODY, "cc", NULL),
                 CUDYN_ERROR_INVALID_ARGUMENT);
    CHECK_MESSAGE("parameter 2 ('const const float *x') repeats the qualifier 'const'");

    /* still accepted: braces and '#' in literals and comments, balanced
     * blocks, digit separators, a preamble's own directives */
    static const char *const good[] = {
        "if (x[i] > 0) { y[i] = a * x[i]; } else { y[i] = 0; }",
        "const char *s = \"} { # ( [\"; char c = '}'; (void)s; (void)c; y[i] = x[i]; // } #include\n",
        "/* } #define \\ */ y[i] = x[i] * 1'000;",
    };
    for (size_t c = 0; c < sizeof good / sizeof good[0]; c++) {
        CHECK_STATUS(cudyn_elementwise_create(&k, SAXPY_PARAMS, good[c], "fine", NULL), CUDYN_OK);
        cudyn_elementwise_free(k);
        k = NULL;
    }
    CHECK_STATUS(cudyn_elementwise_create(&k, SAXPY_PARAMS, SAXPY_BODY, "pre", "#define TWICE(v) ((v) * 2)\n"),
                 CUDYN_OK);
    cudyn_elementwise_free(k);
}

/* Issue 24, row 11: cudyn knows a kernel's parameter count from the PTX
 * it compiled or generated, so it never asks the driver about a parameter
 * past the last (a failing cuFuncGetParamInfo is an error of the program
 * under compute-sanitizer): none refused for an expression kernel, a
 * reduction, a kernel compiled from source and one loaded as PTX. */
static void test_no_parameter_probing(void)
{
    long refused = mock_refusal_count("param_info"), asked = mock_call_count("cuFuncGetParamInfo");
    CHECK(refused >= 0);
    cudyn_elementwise *k = NULL;
    struct buffers b;
    CHECK_STATUS(make_saxpy(&k), CUDYN_OK); /* kernels the mock runs */
    CHECK_STATUS(buffers_make(&b, 64), CUDYN_OK);
    if (k)
        CHECK_STATUS(cudyn_elementwise_launch(k, b.n, NULL, 2.0f, b.dx, b.dy), CUDYN_OK);
    cudyn_reduction *r = NULL;
    CHECK_STATUS(make_dot(&r), CUDYN_OK);
    float sum = 0;
    if (r)
        CHECK_STATUS(cudyn_reduction_run(r, &sum, 0, b.n, NULL, b.dx, b.dy), CUDYN_OK);
    cudyn_module m = NULL;
    cudyn_function f = NULL;
    CHECK_STATUS(cudyn_module_load_source(&m, test_saxpy_source, NULL, 0), CUDYN_OK);
    CHECK_STATUS(cudyn_module_function(&f, m, "saxpy"), CUDYN_OK);
    if (f)
        CHECK_STATUS(cudyn_launchf(f, (cudyn_dim3){1, 1, 1}, (cudyn_dim3){64, 1, 1}, 0, NULL, "fpppz", 2.0f, b.dx,
                                   b.dx, b.dy, (size_t)b.n),
                     CUDYN_OK);
    cudyn_module_unload(m);
    CHECK(mock_call_count("cuFuncGetParamInfo") > asked); /* the driver was asked, within bounds */
    CHECK_EQ_INT(mock_refusal_count("param_info"), refused);
    cudyn_reduction_free(r);
    cudyn_elementwise_free(k);
    buffers_free(&b);
}

static void test_saxpy(void)
{
    cudyn_elementwise *k = NULL;
    struct buffers b;
    CHECK_STATUS(make_saxpy(&k), CUDYN_OK);
    CHECK_STATUS(buffers_make(&b, 1003), CUDYN_OK);
    if (!k)
        return;
    long launches = mock_call_count("cuLaunchKernel");
    /* aligned pointers and n >= 4: the vectorised kernel (the mock runs both) */
    CHECK_STATUS(cudyn_elementwise_launch(k, b.n, NULL, 2.0f, b.dx, b.dy), CUDYN_OK);
    CHECK_EQ_INT(saxpy_wrong(&b, 2.0f, 0, b.n), 0);
    CHECK_EQ_INT(mock_call_count("cuLaunchKernel") - launches, 1);
    /* one float in: the plain kernel, on the elements from 1 */
    cudyn_memcpy_htod(b.dy, b.y, b.n * sizeof(float));
    CHECK_STATUS(cudyn_elementwise_launch(k, b.n - 1, NULL, 2.0f, b.dx + 4, b.dy + 4), CUDYN_OK);
    CHECK_EQ_INT(saxpy_wrong(&b, 2.0f, 1, b.n - 1), 0);
    /* fewer elements than a vector; none at all */
    cudyn_memcpy_htod(b.dy, b.y, b.n * sizeof(float));
    CHECK_STATUS(cudyn_elementwise_launch(k, 3, NULL, 2.0f, b.dx, b.dy), CUDYN_OK);
    CHECK_EQ_INT(saxpy_wrong(&b, 2.0f, 0, 3), 0);
    launches = mock_call_count("cuLaunchKernel");
    CHECK_STATUS(cudyn_elementwise_launch(k, 0, NULL, 2.0f, b.dx, b.dy), CUDYN_OK);
    CHECK_EQ_INT(mock_call_count("cuLaunchKernel"), launches);
    /* the values as cudyn_launch takes them, on a stream */
    cudyn_memcpy_htod(b.dy, b.y, b.n * sizeof(float));
    cudyn_stream s = NULL;
    CHECK_STATUS(cudyn_stream_create(&s, 0), CUDYN_OK);
    float a = 3.0f;
    void *args[] = {&a, &b.dx, &b.dy};
    CHECK_STATUS(cudyn_elementwise_launch_args(k, b.n, s, args, 3), CUDYN_OK);
    CHECK_STATUS(cudyn_stream_synchronize(s), CUDYN_OK);
    CHECK_EQ_INT(saxpy_wrong(&b, 3.0f, 0, b.n), 0);
    CHECK_STATUS(cudyn_elementwise_launch_args(k, b.n, s, args, 2), CUDYN_ERROR_INVALID_LAUNCH_ARGUMENTS);
    CHECK_MESSAGE("elementwise \"saxpy\" takes 3 arguments (" SAXPY_PARAMS "), not 2");
    CHECK_STATUS(cudyn_elementwise_launch_args(k, b.n, s, NULL, 3), CUDYN_ERROR_INVALID_ARGUMENT);
    void *holes[] = {&a, NULL, &b.dy};
    CHECK_STATUS(cudyn_elementwise_launch_args(k, b.n, s, holes, 3), CUDYN_ERROR_INVALID_LAUNCH_ARGUMENTS);
    CHECK_MESSAGE("args[1] (parameter 'x') points to no value");
    cudyn_stream_destroy(s);
    /* a kernel the mock cannot run: the launch reaches the driver, which says so */
    cudyn_elementwise *ones = NULL;
    CHECK_STATUS(cudyn_elementwise_create(&ones, "float *x", "x[i] = 1", "ones", NULL), CUDYN_OK);
    CHECK_STATUS(cudyn_elementwise_launch(ones, 8, NULL, b.dx), CUDYN_ERROR_NOT_SUPPORTED);
    cudyn_elementwise_free(ones);
    cudyn_elementwise_free(k);
    buffers_free(&b);
}

static void test_dot(void)
{
    cudyn_reduction *r = NULL;
    struct buffers b;
    CHECK_STATUS(make_dot(&r), CUDYN_OK);
    CHECK_STATUS(buffers_make(&b, 100003), CUDYN_OK);
    if (!r)
        return;
    float first = 0, again = -1;
    CHECK_STATUS(cudyn_reduction_run(r, &first, 0, b.n, NULL, b.dx, b.dy), CUDYN_OK);
    double want = dot_reference(&b, 0, b.n);
    CHECK((first - want) / want < 1e-6 && (want - first) / want < 1e-6);
    CHECK_STATUS(cudyn_reduction_run(r, &again, 0, b.n, NULL, b.dx, b.dy), CUDYN_OK);
    CHECK(memcmp(&first, &again, sizeof first) == 0); /* the same bits */
    /* into device memory, into both, from a void *[] */
    cudyn_devptr dres = 0;
    float copied = -1, both = -1;
    CHECK_STATUS(cudyn_mem_alloc(&dres, sizeof(float)), CUDYN_OK);
    CHECK_STATUS(cudyn_reduction_run(r, NULL, dres, b.n, NULL, b.dx, b.dy), CUDYN_OK);
    CHECK_STATUS(cudyn_memcpy_dtoh(&copied, dres, sizeof copied), CUDYN_OK);
    CHECK(memcmp(&first, &copied, sizeof first) == 0);
    void *args[] = {&b.dx, &b.dy};
    CHECK_STATUS(cudyn_reduction_run_args(r, &both, dres, b.n, NULL, args, 2), CUDYN_OK);
    CHECK(memcmp(&first, &both, sizeof first) == 0);
    CHECK_STATUS(cudyn_reduction_run_args(r, &both, 0, b.n, NULL, args, 1), CUDYN_ERROR_INVALID_LAUNCH_ARGUMENTS);
    CHECK_STATUS(cudyn_reduction_run(r, NULL, 0, b.n, NULL, b.dx, b.dy), CUDYN_ERROR_INVALID_ARGUMENT);
    CHECK_MESSAGE("host_result and device_result");
    /* nothing to reduce: the neutral value */
    float none = -1;
    CHECK_STATUS(cudyn_reduction_run(r, &none, 0, 0, NULL, b.dx, b.dy), CUDYN_OK);
    CHECK(none == 0.0f);
    /* misaligned by one float: the plain kernel, the same sum up to rounding */
    float shifted = 0;
    CHECK_STATUS(cudyn_reduction_run(r, &shifted, 0, b.n - 1, NULL, b.dx + 4, b.dy + 4), CUDYN_OK);
    double want1 = dot_reference(&b, 1, b.n - 1);
    CHECK((shifted - want1) / want1 < 1e-6 && (want1 - shifted) / want1 < 1e-6);
    /* another stream waits for the last run; the same stream does not */
    cudyn_stream s = NULL;
    CHECK_STATUS(cudyn_stream_create(&s, 0), CUDYN_OK);
    long waits = mock_call_count("cuStreamWaitEvent");
    CHECK_STATUS(cudyn_reduction_run(r, NULL, dres, b.n, s, b.dx, b.dy), CUDYN_OK);
    CHECK_EQ_INT(mock_call_count("cuStreamWaitEvent") - waits, 1);
    CHECK_STATUS(cudyn_reduction_run(r, &again, 0, b.n, s, b.dx, b.dy), CUDYN_OK);
    CHECK_EQ_INT(mock_call_count("cuStreamWaitEvent") - waits, 1);
    CHECK(memcmp(&first, &again, sizeof first) == 0);
    cudyn_stream_destroy(s);
    cudyn_mem_free(dres);
    cudyn_reduction_free(r);
    buffers_free(&b);
}

/* ------------------------------------------------------------ devices */

struct thread_job {
    cudyn_elementwise *k;
    pthread_barrier_t *start;
    int status;
    size_t wrong;
};

/* On device 1, with buffers of its own, at the same moment as the others. */
static void *launch_on_device_1(void *arg)
{
    struct thread_job *job = arg;
    struct buffers b = {0};
    job->status = cudyn_device_use(1);
    if (job->status == CUDYN_OK)
        job->status = buffers_make(&b, 512);
    pthread_barrier_wait(job->start);
    if (job->status == CUDYN_OK)
        job->status = cudyn_elementwise_launch(job->k, b.n, NULL, 2.0f, b.dx, b.dy);
    if (job->status == CUDYN_OK)
        job->wrong = saxpy_wrong(&b, 2.0f, 0, b.n);
    buffers_free(&b);
    return NULL;
}

/* The first launches on another device load one module there, however
 * many threads make them; a reset device gets a fresh one. */
static void test_devices_and_threads(void)
{
    cudyn_elementwise *k = NULL;
    CHECK_STATUS(make_saxpy(&k), CUDYN_OK);
    if (!k)
        return;
    enum { THREADS = 8 };
    pthread_barrier_t start;
    pthread_barrier_init(&start, NULL, THREADS);
    pthread_t t[THREADS];
    struct thread_job jobs[THREADS];
    long loads = mock_call_count("cuModuleLoadDataEx");
    for (int i = 0; i < THREADS; i++) {
        jobs[i] = (struct thread_job){k, &start, -1, 0};
        pthread_create(&t[i], NULL, launch_on_device_1, &jobs[i]);
    }
    for (int i = 0; i < THREADS; i++) {
        pthread_join(t[i], NULL);
        CHECK_STATUS(jobs[i].status, CUDYN_OK);
        CHECK_EQ_INT(jobs[i].wrong, 0);
    }
    pthread_barrier_destroy(&start);
    CHECK_EQ_INT(mock_call_count("cuModuleLoadDataEx") - loads, 1);

    CHECK_STATUS(cudyn_device_reset(0), CUDYN_OK);
    struct buffers b;
    CHECK_STATUS(buffers_make(&b, 100), CUDYN_OK);
    loads = mock_call_count("cuModuleLoadDataEx");
    CHECK_STATUS(cudyn_elementwise_launch(k, b.n, NULL, 2.0f, b.dx, b.dy), CUDYN_OK);
    CHECK_EQ_INT(saxpy_wrong(&b, 2.0f, 0, b.n), 0);
    CHECK_EQ_INT(mock_call_count("cuModuleLoadDataEx") - loads, 1);
    buffers_free(&b);
    cudyn_elementwise_free(k);
}

/* Resets of another device leave this device's modules alive: the objects
 * keep using what they made here (no new module reference, kernel lookup,
 * partials buffer or event per reset). */
static void test_other_device_resets(void)
{
    cudyn_elementwise *k = NULL;
    cudyn_reduction *r = NULL;
    struct buffers b;
    CHECK_STATUS(make_saxpy(&k), CUDYN_OK);
    CHECK_STATUS(make_dot(&r), CUDYN_OK);
    CHECK_STATUS(buffers_make(&b, 100), CUDYN_OK);
    if (!k || !r) {
        cudyn_elementwise_free(k);
        cudyn_reduction_free(r);
        buffers_free(&b);
        return;
    }
    float dot = 0;
    CHECK_STATUS(cudyn_elementwise_launch(k, b.n, NULL, 2.0f, b.dx, b.dy), CUDYN_OK);
    CHECK_STATUS(cudyn_reduction_run(r, &dot, 0, b.n, NULL, b.dx, b.dy), CUDYN_OK);
    long lookups = mock_call_count("cuModuleGetFunction"), events = mock_call_count("cuEventCreate");
    size_t memory = mock_device_memory_in_use();
    for (int i = 0; i < 5; i++) {
        CHECK_STATUS(cudyn_device_reset(1), CUDYN_OK);
        CHECK_STATUS(cudyn_elementwise_launch(k, b.n, NULL, 2.0f, b.dx, b.dy), CUDYN_OK);
        CHECK_STATUS(cudyn_reduction_run(r, &dot, 0, b.n, NULL, b.dx, b.dy), CUDYN_OK);
    }
    CHECK_EQ_INT(mock_call_count("cuModuleGetFunction"), lookups);
    CHECK_EQ_INT(mock_call_count("cuEventCreate"), events);
    CHECK_EQ_INT(mock_device_memory_in_use(), memory);
    cudyn_elementwise_free(k);
    cudyn_reduction_free(r);
    buffers_free(&b);
}

/* ------------------------------------------------------------ faults */

/* What the fault operations work on, made before any fault is armed, so
 * that every call the operations count is one the new code makes. */
static struct buffers fault_buffers;
static cudyn_stream fault_stream;
static cudyn_devptr fault_result;

/* Create, launch and free an elementwise kernel. */
static int op_elementwise(void)
{
    struct buffers *b = &fault_buffers;
    cudyn_elementwise *k = NULL;
    int st = make_saxpy(&k);
    if (st == CUDYN_OK)
        st = cudyn_elementwise_launch(k, b->n, NULL, 2.0f, b->dx, b->dy);
    cudyn_elementwise_free(k);
    return st;
}

/* Create a reduction, run it into the host, then on another stream into
 * the device, and free it. */
static int op_reduction(void)
{
    struct buffers *b = &fault_buffers;
    float out = 0;
    cudyn_reduction *r = NULL;
    int st = make_dot(&r);
    if (st == CUDYN_OK)
        st = cudyn_reduction_run(r, &out, 0, b->n, NULL, b->dx, b->dy);
    if (st == CUDYN_OK)
        st = cudyn_reduction_run(r, NULL, fault_result, b->n, fault_stream, b->dx, b->dy);
    cudyn_reduction_free(r);
    return st;
}

/* Every call of these the operations make fails in turn, with each code:
 * the operation returns the translated status and leaves no memory, no
 * NVRTC program behind (valgrind checks the host side).  The calls freeing
 * things (cuModuleUnload, cuMemFree, cuEventDestroy) are left out: a
 * driver that refuses to free keeps the memory, whatever cudyn does. */
static void test_driver_faults(void)
{
    /* tolerant: other files make calls of it whose failure they forgive
     * (module.c asks for the current context only to name it in messages) */
    static const struct {
        const char *fn;
        bool tolerant;
    } fns[] = {
        {"cuModuleLoadDataEx", false},   {"cuModuleGetFunction", false},
        {"cuOccupancyMaxPotentialBlockSize", false}, {"cuOccupancyMaxActiveBlocksPerMultiprocessor", false},
        {"cuDeviceGetAttribute", false}, {"cuCtxGetDevice", false},
        {"cuCtxGetCurrent", true},       {"cuLaunchKernel", false},
        {"cuMemAlloc_v2", false},        {"cuEventCreate", false},
        {"cuEventRecord", false},        {"cuMemcpyDtoHAsync_v2", false},
        {"cuStreamSynchronize", false},  {"cuStreamWaitEvent", false},
    };
    static const struct {
        unsigned int code;
        int status;
    } codes[] = {{2, CUDYN_ERROR_OUT_OF_MEMORY}, {999, CUDYN_ERROR_DRIVER}};
    int (*const ops[])(void) = {op_elementwise, op_reduction};
    CHECK_STATUS(buffers_make(&fault_buffers, 64), CUDYN_OK);
    CHECK_STATUS(cudyn_stream_create(&fault_stream, 0), CUDYN_OK);
    CHECK_STATUS(cudyn_mem_alloc(&fault_result, sizeof(float)), CUDYN_OK);
    size_t before = mock_device_memory_in_use();
    int faults = 0;
    for (size_t o = 0; o < 2; o++)
        for (size_t f = 0; f < sizeof fns / sizeof fns[0]; f++) {
            long calls = mock_call_count(fns[f].fn);
            CHECK_STATUS(ops[o](), CUDYN_OK);
            long made = mock_call_count(fns[f].fn) - calls;
            for (long nth = 1; nth <= made; nth++)
                for (size_t c = 0; c < sizeof codes / sizeof codes[0]; c++) {
                    mock_fail_nth_call(fns[f].fn, nth, codes[c].code);
                    int st = ops[o]();
                    mock_fail_nth_call(fns[f].fn, 1, 0); /* nothing pending for what follows */
                    faults++;
                    if (st != codes[c].status && !(fns[f].tolerant && st == CUDYN_OK)) {
                        fprintf(stderr, "op %zu, fault in call %ld of %s (%u): got %s, expected %s\n", o, nth,
                                fns[f].fn, codes[c].code, cudyn_status_name(st), cudyn_status_name(codes[c].status));
                        test_failures++;
                    }
                    CHECK_EQ_INT(mock_device_memory_in_use(), before);
                    CHECK_EQ_INT(mock_nvrtc_programs_alive(), 0);
                }
        }
    CHECK(faults > 50);
    CHECK_STATUS(op_elementwise(), CUDYN_OK);
    CHECK_STATUS(op_reduction(), CUDYN_OK);
}

static void test_nvrtc_faults(void)
{
    static const char *const fns[] = {"nvrtcCreateProgram", "nvrtcCompileProgram", "nvrtcGetCUBINSize",
                                      "nvrtcGetCUBIN"};
    int (*const ops[])(void) = {op_elementwise, op_reduction};
    size_t before = mock_device_memory_in_use();
    for (size_t o = 0; o < 2; o++)
        for (size_t f = 0; f < sizeof fns / sizeof fns[0]; f++) {
            long calls = mock_nvrtc_call_count(fns[f]);
            mock_nvrtc_fail_next_call(fns[f], 1); /* NVRTC_ERROR_OUT_OF_MEMORY */
            int st = ops[o]();
            CHECK(mock_nvrtc_call_count(fns[f]) > calls);
            if (st != CUDYN_ERROR_OUT_OF_MEMORY) {
                fprintf(stderr, "op %zu, fault in %s: got %s\n", o, fns[f], cudyn_status_name(st));
                test_failures++;
            }
            CHECK_EQ_INT(mock_device_memory_in_use(), before);
            CHECK_EQ_INT(mock_nvrtc_programs_alive(), 0);
        }
    cudyn_mem_free(fault_result);
    cudyn_stream_destroy(fault_stream);
    buffers_free(&fault_buffers);
}

/* ------------------------------------------------------------ real NVRTC */

/* A genuine syntax error, named by the user's text, and both kernels
 * built by the real NVRTC and run on the mock's host versions. */
static int scenario_real_nvrtc(void)
{
    struct cudyn_loader_info l = {.size = sizeof l};
    cudyn_loader_info(&l);
    if (l.nvrtc_status != CUDYN_OK || mock_nvrtc_call_count(NULL) >= 0)
        return 77; /* no NVRTC, or the mock's */
    cudyn_elementwise *k = NULL;
    CHECK_STATUS(cudyn_elementwise_create(&k, SAXPY_PARAMS, "float t = a * x[i];\ny[i] = t + * y[i] +;", "bad",
                                          NULL),
                 CUDYN_ERROR_COMPILE);
    CHECK_MESSAGE("elementwise body(2): error: expected an expression");
    cudyn_reduction *r = NULL;
    CHECK_STATUS(cudyn_reduction_create(&r, "float", "0", "a + b", "x[i] * undefined_name", DOT_PARAMS, "bad", NULL),
                 CUDYN_ERROR_COMPILE);
    CHECK_MESSAGE("reduction map(1): error: identifier \"undefined_name\" is undefined");
    int st = cudyn_elementwise_create(&k, "__half a, __half *x", "x[i] = a * x[i]", "h", NULL);
    printf("__half with this NVRTC: %s\n", cudyn_status_name(st));
    if (st == CUDYN_OK)
        cudyn_elementwise_free(k);
    else
        CHECK_MESSAGE("__half needs cuda_fp16.h");

    struct buffers b;
    CHECK_STATUS(buffers_make(&b, 4099), CUDYN_OK);
    CHECK_STATUS(make_saxpy(&k), CUDYN_OK);
    CHECK_STATUS(make_dot(&r), CUDYN_OK);
    if (k && r) {
        CHECK_STATUS(cudyn_elementwise_launch(k, b.n, NULL, 2.0f, b.dx, b.dy), CUDYN_OK);
        CHECK_EQ_INT(saxpy_wrong(&b, 2.0f, 0, b.n), 0);
        float dot = 0;
        CHECK_STATUS(cudyn_reduction_run(r, &dot, 0, b.n, NULL, b.dx, b.dx), CUDYN_OK);
        double want = 0;
        for (size_t i = 0; i < b.n; i++)
            want += (double)b.x[i] * b.x[i];
        CHECK((dot - want) / want < 1e-6 && (want - dot) / want < 1e-6);
    }
    cudyn_elementwise_free(k);
    cudyn_reduction_free(r);
    buffers_free(&b);
    return test_result("test_elementwise real-nvrtc");
}

/* Two threads create the same kernel with the same error at once: the one
 * that waited for the other's compile explains it as well (MOCK_NVRTC_DELAY_MS
 * keeps the first compile running while the second arrives). */
struct bad_create {
    pthread_barrier_t *start;
    int status;
    char message[1100];
};

static void *create_bad(void *arg)
{
    struct bad_create *job = arg;
    cudyn_elementwise *k = NULL;
    pthread_barrier_wait(job->start);
    job->status = cudyn_elementwise_create(&k, SAXPY_PARAMS, "y[i] = 0;", "same", "\n#error twice");
    cudyn_error e = {.size = sizeof e};
    cudyn_last_error(&e);
    snprintf(job->message, sizeof job->message, "%s", e.message);
    cudyn_elementwise_free(k);
    return NULL;
}

static int scenario_concurrent_error(void)
{
    const char *mock = getenv("MOCK_LIBNVRTC");
    if (!mock)
        TEST_SKIP("MOCK_LIBNVRTC not set (run through make check)");
    setenv("CUDYN_LIBNVRTC", mock, 1);
    pthread_barrier_t start;
    pthread_barrier_init(&start, NULL, 2);
    struct bad_create jobs[2] = {{&start, 0, ""}, {&start, 0, ""}};
    pthread_t t[2];
    for (int i = 0; i < 2; i++)
        pthread_create(&t[i], NULL, create_bad, &jobs[i]);
    for (int i = 0; i < 2; i++) {
        pthread_join(t[i], NULL);
        CHECK_STATUS(jobs[i].status, CUDYN_ERROR_COMPILE);
        CHECK_CONTAINS(jobs[i].message, "cudyn_elementwise_create: elementwise \"same\" does not compile for sm_90: "
                                        "elementwise preamble(2): catastrophic error: #error directive: twice");
    }
    pthread_barrier_destroy(&start);
    return test_result("test_elementwise concurrent-error");
}

int main(int argc, char **argv)
{
    setenv("MOCK_CUDA_DEVICES", "Mock H200:90,Mock H100:90", 1);
    setenv("CUDYN_CACHE", "0", 1); /* every create reaches NVRTC */
    use_mock_driver();
    if (argc == 2 && strcmp(argv[1], "real-nvrtc") == 0)
        return scenario_real_nvrtc();
    if (argc == 2 && strcmp(argv[1], "concurrent-error") == 0)
        return scenario_concurrent_error();
    /* before this process loads NVRTC: the NVRTC the machine has */
    int rc = run_self(argv[0], "real-nvrtc");
    if (rc != 0 && rc != 77) {
        fprintf(stderr, "the real-NVRTC scenario failed (%d)\n", rc);
        test_failures++;
    }
    setenv("MOCK_NVRTC_DELAY_MS", "300", 1); /* the child's compiles only */
    rc = run_self(argv[0], "concurrent-error");
    unsetenv("MOCK_NVRTC_DELAY_MS");
    if (rc != 0 && rc != 77) {
        fprintf(stderr, "the concurrent-error scenario failed (%d)\n", rc);
        test_failures++;
    }
    const char *mock = getenv("MOCK_LIBNVRTC");
    if (!mock)
        TEST_SKIP("MOCK_LIBNVRTC not set (run through make check)");
    setenv("CUDYN_LIBNVRTC", mock, 1);
    unsetenv("MOCK_NVRTC_FAIL");
    unsetenv("MOCK_CUDA_FAIL");
    test_null_and_range();
    test_creation();
    test_expression_errors();
    test_hostile_texts();
    test_saxpy();
    test_no_parameter_probing();
    test_dot();
    test_driver_faults();
    test_nvrtc_faults();
    test_other_device_resets();
    test_devices_and_threads(); /* last: it resets device 0 */
    return test_result("test_elementwise");
}
