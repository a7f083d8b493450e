/*
 * test_expr_tables.c - the pure parts of elementwise and reduction kernels
 * against tables: the parameter-list parser (lib/expr/params_decl.c), how
 * the user's text reaches the pointers (lib/expr/expr_scan.c), the launch
 * shape and the variant choice (lib/expr/expr_shape.c), and what the
 * generated source holds (lib/expr/expr_source.c).  No driver, no NVRTC.
 */
#include "config.h"

#include "module/args.h"
#include "expr/expr.h"
#include "testutil.h"

/* ------------------------------------------------------------ parser */

struct list_case {
    const char *text;
    const char *format; /* NULL: refused */
    const char *detail; /* the canonical types joined by ';', or a word of the reason */
};

static const struct list_case lists[] = {
    {"float a, const float *x, float *y", "fpp", "float;const float *;float *"},
    {"", "", ""},
    {"   ", "", ""},
    {"double d", "d", "double"},
    {"bool b, char c, signed char sc, unsigned char uc", "?bbB", "bool;char;signed char;unsigned char"},
    {"short s, short int si, signed short ss, unsigned short us, unsigned short int usi", "hhhHH",
     "short;short;short;unsigned short;unsigned short"},
    {"int i1, signed s, signed int si, unsigned u, unsigned int ui", "iiiII", "int;int;int;unsigned int;unsigned int"},
    {"long l, long int li, unsigned long ul, long long ll, long long int lli, unsigned long long ull", "qqQqqQ",
     "long;long;unsigned long;long long;long long;unsigned long long"},
    {"int8_t a, uint8_t b, int16_t c, uint16_t d, int32_t e, uint32_t f, int64_t g, uint64_t h, size_t z",
     "bBhHiIqQz",
     "signed char;unsigned char;short;unsigned short;int;unsigned int;long long;unsigned long long;size_t"},
    {"__half h, const __half *hp", "ep", "__half;const __half *"},
    {"float const *x", "p", "const float *"},
    {"const float *__restrict__ x, float *__restrict__ y", "pp", "const float *__restrict__;float *__restrict__"},
    {"float *const x, volatile int *v, const volatile double *cv", "ppp",
     "float *const;volatile int *;const volatile double *"},
    {"float*x,int*y", "pp", "float *;int *"},
    {"const float a", "f", "const float"},
    {"  unsigned   long   long   n2  ", "Q", "unsigned long long"},
    /* refused, each naming the parameter */
    {"float a, float **p", NULL, "parameter 2 ('float **p') is a pointer to a pointer"},
    {"void *p", NULL, "parameter 1 ('void *p') has a type cudyn does not know"},
    {"float4 v", NULL, "parameter 1 ('float4 v') has a type"},
    {"struct s v", NULL, "parameter 1"},
    {"float x[]", NULL, "contains '['"},
    {"float a,", NULL, "parameter 2 ('') is empty"},
    {",float a", NULL, "parameter 1 ('') is empty"},
    {"float", NULL, "parameter 1 ('float') has no name"},
    {"float a, int a", NULL, "repeats the name 'a'"},
    {"float i", NULL, "may not be named 'i'"},
    {"size_t n", NULL, "may not be named 'n'"},
    {"float cudyn_x", NULL, "may not be named 'cudyn_x'"},
    {"float __x", NULL, "may not be named '__x'"},
    {"int new", NULL, "may not be named 'new'"},
    {"float blockDim", NULL, "may not be named 'blockDim'"},
    {"long double d", NULL, "do not make a C type"},
    {"unsigned float f", NULL, "do not make a C type"},
    {"signed unsigned x", NULL, "do not make a C type"},
    {"short long s", NULL, "do not make a C type"},
    {"long long long l", NULL, "do not make a C type"},
    {"int8_t int x", NULL, "cannot be combined"},
    {"__restrict__ float *x", NULL, "qualifies no pointer"},
    {"float __restrict__ x", NULL, "qualifies no pointer"},
    {"float a b", NULL, "more than one name"},
    {"float &r", NULL, "contains '&'"},
    {"float a = 1", NULL, "contains '='"},
    {"int (*f)(int)", NULL, "contains '('"},
};

static void join_types(const struct cudyn__param_list *l, char *out, size_t cap)
{
    out[0] = '\0';
    for (int k = 0; k < l->count; k++)
        snprintf(out + strlen(out), cap - strlen(out), "%s%s", k ? ";" : "", l->p[k].type);
}

static void test_parser(void)
{
    for (size_t c = 0; c < sizeof lists / sizeof lists[0]; c++) {
        const struct list_case *t = &lists[c];
        struct cudyn__param_list l;
        char why[400] = "", types[2000];
        int rc = cudyn__params_parse(t->text, &l, why, sizeof why);
        if (t->format) {
            join_types(&l, types, sizeof types);
            if (rc != 0 || strcmp(l.format, t->format) != 0 || strcmp(types, t->detail) != 0) {
                fprintf(stderr, "\"%s\": got %d \"%s\" \"%s\" (%s), expected \"%s\" \"%s\"\n", t->text, rc, l.format,
                        types, why, t->format, t->detail);
                test_failures++;
            }
        } else if (rc == 0 || !strstr(why, t->detail)) {
            fprintf(stderr, "\"%s\": expected a refusal with \"%s\", got %d \"%s\"\n", t->text, t->detail, rc, why);
            test_failures++;
        }
    }
}

/* What the parser records besides the spelling. */
static void test_parser_facts(void)
{
    struct cudyn__param_list l;
    char why[400];
    CHECK_EQ_INT(cudyn__params_parse("float a, const float *x, float *y, volatile float *v, const __half *h", &l, why,
                                     sizeof why),
                 0);
    CHECK(!l.p[0].pointer && l.p[0].elem_size == 4 && strcmp(l.p[0].name, "a") == 0);
    CHECK(l.p[1].pointer && !l.p[1].writable && l.p[1].elem_size == 4 && strcmp(l.p[1].scalar, "float") == 0);
    CHECK(l.p[2].pointer && l.p[2].writable);
    CHECK(l.p[3].pointer && !l.p[3].writable && l.p[3].is_volatile);
    CHECK(l.p[4].elem_size == 2 && l.uses_half);
    CHECK_EQ_INT(cudyn__params_parse("float a", &l, why, sizeof why), 0);
    CHECK(!l.uses_half);
    /* 62 parameters fit (CUDYN_MAX_ARGS less two generated ones), 63 do not */
    char big[2000] = "";
    for (int k = 0; k < 63; k++)
        snprintf(big + strlen(big), sizeof big - strlen(big), "%sint p%d", k ? ", " : "", k);
    CHECK(cudyn__params_parse(big, &l, why, sizeof why) != 0);
    CHECK_CONTAINS(why, "more than 62");
    *strrchr(big, ',') = '\0';
    CHECK_EQ_INT(cudyn__params_parse(big, &l, why, sizeof why), 0);
    CHECK_EQ_INT(l.count, 62);
}

/* Every scalar's format character takes a value of the scalar's size, as
 * CUDYN_LAUNCH_FORMAT_MAP says (cudyn__format_parse reads it). */
static void test_codes_match_the_format(void)
{
    static const char *const all = "bool a, char b, signed char c, unsigned char d, short e, unsigned short f, "
                                   "int g, unsigned h, long j, unsigned long k, long long l, unsigned long long m, "
                                   "size_t o, float p, double q, __half r, float *s";
    struct cudyn__param_list l;
    char why[400];
    CHECK_EQ_INT(cudyn__params_parse(all, &l, why, sizeof why), 0);
    struct cudyn__format f;
    CHECK_EQ_INT(cudyn__format_parse(l.format, &f, why, sizeof why), 0);
    CHECK_EQ_INT(f.n, l.count);
    for (int k = 0; k < l.count; k++) {
        size_t want = l.p[k].pointer ? sizeof(cudyn_devptr) : l.p[k].elem_size;
        if (f.args[k].size != want) {
            fprintf(stderr, "%s: format '%c' is %zu bytes, the type %zu\n", l.p[k].type, l.format[k], f.args[k].size,
                    want);
            test_failures++;
        }
    }
}

static void test_result_types_and_names(void)
{
    static const struct {
        const char *text;
        const char *type; /* NULL: refused, with detail */
        const char *detail;
    } types[] = {
        {"float", "float", NULL},        {" double ", "double", NULL},
        {"unsigned long long", "unsigned long long", NULL}, {"int64_t", "long long", NULL},
        {"__half", "__half", NULL},      {"float *", NULL, "is a pointer"},
        {"const float", NULL, "qualifier"}, {"float4", NULL, "'float4' is not a type cudyn knows"},
        {"", NULL, "no type"},           {"float x", NULL, "'x' is not a type"},
    };
    for (size_t c = 0; c < sizeof types / sizeof types[0]; c++) {
        struct cudyn__param p;
        char why[400] = "";
        int rc = cudyn__type_parse(types[c].text, &p, why, sizeof why);
        if (types[c].type ? rc != 0 || strcmp(p.type, types[c].type) != 0 : rc == 0 || !strstr(why, types[c].detail)) {
            fprintf(stderr, "result type \"%s\": %d \"%s\" \"%s\"\n", types[c].text, rc, rc ? "" : p.type, why);
            test_failures++;
        }
    }
    static const struct {
        const char *name;
        int ok;
    } names[] = {{"saxpy", 0}, {"_k9", 0}, {"a", 0}, {"", -1}, {"9lives", -1}, {"has space", -1}, {"dash-ed", -1},
                 {"abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuv", 0},
                 {"abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvw", -1}};
    for (size_t c = 0; c < sizeof names / sizeof names[0]; c++) {
        char why[200];
        CHECK_EQ_INT(cudyn__kernel_name_check(names[c].name, why, sizeof why), names[c].ok);
    }
}

/* ------------------------------------------------------------ scan */

struct scan_case {
    const char *params, *text, *preamble;
    bool lanes;
    const char *used;   /* per parameter: '1' used, 'w' only assigned (an output), '0' not named */
    const char *reason; /* a word of why not, when !lanes */
};

static const struct scan_case scans[] = {
    {"float a, const float *x, float *y", "y[i] = a * x[i] + y[i]", NULL, true, "011", NULL},
    {"float a, const float *x, float *y", "y [ i ]=a*x[ i ]+y[i];", NULL, true, "011", NULL},
    {"float a, const float *x, float *y", "y[i] = x[i + 1]", NULL, false, "01w", "x"},
    {"float a, const float *x, float *y", "y[i] = *x", NULL, false, "01w", "x"},
    {"float a, const float *x, float *y", "y[i] = x[n - 1 - i]", NULL, false, "01w", "x"},
    {"float *x, float *y", "atomicAdd(&y[i], x[i])", NULL, false, "11", "address"},
    {"float *x, float *y", "f(x, i)", NULL, false, "10", "x"},
    {"float *x, float *y", "y[i] = 1", NULL, true, "0w", NULL},
    {"float *x", "// x[0] is not read\n x[i] = 2 * x[i]; /* *x */", NULL, true, "1", NULL},
    {"float *x", "x[i] = sizeof(\"x + 1\") + 'x'", NULL, true, "w", NULL},
    {"float *x, float *xs", "xs[i] = x[i]", NULL, true, "1w", NULL},
    {"float *x", "x[i] = 1", "#define X x[0]", false, "w", "preamble"},
    {"float *x", "X(i) = 1", "  #  define X(k) \\\n    x[k]\n", false, "0", "preamble"},
    {"float *x", "x[i] = sq(x[i])", "__device__ float sq(float x) { return x * x; }\n#define TWO 2", true, "1", NULL},
    {"float *x", "x[i] = helper(1)", "__device__ float helper(float v) { return v; }", true, "w", NULL},
    {"volatile float *x", "x[i] = 1", NULL, false, "1", "volatile"},
    {"float a", "printf(\"%f\", a)", NULL, false, "0", "no pointer"},
    {"const float *x, float *y", "y[i] = 0", NULL, true, "0w", NULL},
    {"float *x", "x[i]=1; s.x[i]", NULL, true, "1", NULL},
    /* outputs ('w'): assigned as NAME[i] = and never read */
    {"const float *x, float *y", "if (x[i] > 0) y[i] = x[i]", NULL, true, "1w", NULL},
    {"const float *x, float *y", "y[i] = x[i], y[i] = 2 * y[i]", NULL, true, "11", NULL},
    {"float *y", "y[i] += 1", NULL, true, "1", NULL},
    {"float *y", "y[i]++", NULL, true, "1", NULL},
    {"float *y", "y[i] == 0 ? 1 : 2", NULL, true, "1", NULL},
    {"float *y", "(y[i]) = 1", NULL, true, "1", NULL},
    {"float *y, float *z", "z[i] = y[i] = 0", NULL, true, "ww", NULL},
    {"float *y", "y [ i ] =-1", NULL, true, "w", NULL},
};

static void test_scan(void)
{
    for (size_t c = 0; c < sizeof scans / sizeof scans[0]; c++) {
        const struct scan_case *t = &scans[c];
        struct cudyn__param_list l;
        char why[400];
        CHECK_EQ_INT(cudyn__params_parse(t->params, &l, why, sizeof why), 0);
        struct cudyn__scan s;
        cudyn__scan_text(t->text, t->preamble, &l, &s);
        char used[CUDYN_EXPR_MAX_PARAMS + 1] = "";
        for (int k = 0; k < l.count; k++)
            used[k] = s.write_only[k] ? 'w' : s.used[k] ? '1' : '0';
        if (s.lanes != t->lanes || strcmp(used, t->used) != 0 || (!t->lanes && !strstr(s.why, t->reason))) {
            fprintf(stderr, "scan \"%s\": lanes %d used %s why \"%s\"; expected %d %s \"%s\"\n", t->text, s.lanes, used,
                    s.why, t->lanes, t->used, t->reason ? t->reason : "");
            test_failures++;
        }
    }
}

/* ------------------------------------------------------------ shape */

struct shape_case {
    const char *what;
    struct cudyn__shape_limits lim;
    size_t items;
    unsigned int grid, block;
};

static const struct shape_case shapes[] = {
    {"H200, 2^24 floats as float4: one full wave", {256, 8, 132, 2147483647}, (size_t)1 << 22, 1056, 256},
    {"H200, 2^24 elements one at a time", {256, 8, 132, 2147483647}, (size_t)1 << 24, 1056, 256},
    {"few elements: one block per 256", {256, 8, 132, 2147483647}, 1000, 4, 256},
    {"exactly one block", {256, 8, 132, 2147483647}, 256, 1, 256},
    {"one more than a block", {256, 8, 132, 2147483647}, 257, 2, 256},
    {"one element", {256, 8, 132, 2147483647}, 1, 1, 256},
    {"no elements: still a valid grid", {256, 8, 132, 2147483647}, 0, 1, 256},
    {"register-heavy kernel: fewer resident blocks", {128, 3, 132, 2147483647}, (size_t)1 << 30, 396, 128},
    {"the mock's device 0", {256, 8, 4, 2147483647}, (size_t)1 << 20, 32, 256},
    {"the device's grid limit caps the wave", {256, 8, 132, 1000}, (size_t)1 << 30, 1000, 256},
    {"occupancy said 0 blocks: one per SM", {256, 0, 132, 2147483647}, (size_t)1 << 30, 132, 256},
};

static void test_shape(void)
{
    for (size_t c = 0; c < sizeof shapes / sizeof shapes[0]; c++) {
        const struct shape_case *t = &shapes[c];
        unsigned int grid = 0, block = 0;
        cudyn__shape(&t->lim, t->items, &grid, &block);
        if (grid != t->grid || block != t->block) {
            fprintf(stderr, "shape \"%s\": %u x %u, expected %u x %u\n", t->what, grid, block, t->grid, t->block);
            test_failures++;
        }
    }
    /* occupancy's suggestion, limited, and a power of two where asked */
    static const int blocks[][4] = {/* suggested, limit, pow2, expected */
                                    {1024, 256, 0, 256}, {1024, 256, 1, 256}, {768, 1024, 0, 768}, {768, 1024, 1, 512},
                                    {96, 256, 1, 64},    {96, 256, 0, 96},    {1, 256, 1, 1},      {0, 256, 0, 0},
                                    {-1, 256, 1, 0}};
    for (size_t c = 0; c < sizeof blocks / sizeof blocks[0]; c++)
        CHECK_EQ_INT(cudyn__shape_block(blocks[c][0], blocks[c][1], blocks[c][2] != 0), blocks[c][3]);
}

/* ------------------------------------------------------------ variant */

static void test_lanes(void)
{
    static const struct {
        const char *params, *text;
        int lanes;
    } cases[] = {
        {"float a, const float *x, float *y", "y[i] = a * x[i] + y[i]", 4},
        {"const double *x, double *y", "y[i] = x[i]", 2},
        {"const float *x, double *y", "y[i] = x[i]", 2},
        {"const unsigned char *x, unsigned char *y", "y[i] = x[i]", 16},
        {"const __half *x, __half *y", "y[i] = x[i]", 8},
        {"const double *unused, float *y", "y[i] = 1", 4}, /* only what the text indexes counts */
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        struct cudyn__param_list l;
        char why[400];
        CHECK_EQ_INT(cudyn__params_parse(cases[c].params, &l, why, sizeof why), 0);
        struct cudyn__scan s;
        cudyn__scan_text(cases[c].text, NULL, &l, &s);
        CHECK_EQ_INT(cudyn__lanes(&l, &s), cases[c].lanes);
    }
}

#define P(address, size, used, writable) {address, size, used, writable}

struct variant_case {
    const char *what;
    bool vector_kernel;
    int lanes;
    struct cudyn__lane_pointer ptrs[3];
    int count;
    size_t n;
    enum cudyn__variant want;
};

static const struct variant_case variants[] = {
    {"SAXPY on cudyn_mem_alloc'd buffers", true, 4, {P(0x10000, 4, 1, 0), P(0x20000, 4, 1, 1)}, 2, 1 << 24,
     VARIANT_VECTOR},
    {"no vectorised kernel (the text)", false, 4, {P(0x10000, 4, 1, 0), P(0x20000, 4, 1, 1)}, 2, 1 << 24,
     VARIANT_PLAIN},
    {"x offset by one float", true, 4, {P(0x10004, 4, 1, 0), P(0x20000, 4, 1, 1)}, 2, 1 << 24, VARIANT_PLAIN},
    {"y offset by one float", true, 4, {P(0x10000, 4, 1, 0), P(0x20004, 4, 1, 1)}, 2, 1 << 24, VARIANT_PLAIN},
    {"both offset by four floats: 16-byte aligned", true, 4, {P(0x10010, 4, 1, 0), P(0x20010, 4, 1, 1)}, 2,
     1 << 24, VARIANT_VECTOR},
    {"8-byte aligned is not enough for float4", true, 4, {P(0x10008, 4, 1, 0), P(0x20000, 4, 1, 1)}, 2, 100,
     VARIANT_PLAIN},
    {"a misaligned pointer the text does not index", true, 4, {P(0x10001, 4, 0, 1), P(0x20000, 4, 1, 1)}, 2, 100,
     VARIANT_VECTOR},
    {"doubles: 2 lanes, 16-byte alignment", true, 2, {P(0x10010, 8, 1, 0), P(0x20000, 8, 1, 1)}, 2, 100,
     VARIANT_VECTOR},
    {"floats beside doubles: 2 lanes, 8 bytes suffice", true, 2, {P(0x10008, 4, 1, 0), P(0x20000, 8, 1, 1)}, 2, 100,
     VARIANT_VECTOR},
    {"n smaller than a vector", true, 4, {P(0x10000, 4, 1, 0), P(0x20000, 4, 1, 1)}, 2, 3, VARIANT_PLAIN},
    {"n of exactly one vector", true, 4, {P(0x10000, 4, 1, 0), P(0x20000, 4, 1, 1)}, 2, 4, VARIANT_VECTOR},
    {"n not a multiple of the lanes: the tail is scalar", true, 4, {P(0x10000, 4, 1, 0), P(0x20000, 4, 1, 1)}, 2,
     1001, VARIANT_VECTOR},
    {"in place through a const view (x == y)", true, 4, {P(0x20000, 4, 1, 0), P(0x20000, 4, 1, 1)}, 2, 1000,
     VARIANT_VECTOR},
    {"two writable views of one buffer", true, 4, {P(0x20000, 4, 1, 1), P(0x20000, 4, 1, 1)}, 2, 1000,
     VARIANT_PLAIN},
    {"writable ranges overlapping by one element", true, 4, {P(0x20000, 4, 1, 1), P(0x20000 + 4 * 996, 4, 1, 1)}, 2,
     1000, VARIANT_PLAIN},
    {"writable ranges that just touch", true, 4, {P(0x20000, 4, 1, 1), P(0x20000 + 4 * 1000, 4, 1, 1)}, 2, 1000,
     VARIANT_VECTOR},
    {"a writable view the text does not index may overlap", true, 4, {P(0x20000, 4, 0, 1), P(0x20000, 4, 1, 1)}, 2,
     1000, VARIANT_VECTOR},
    {"third pointer overlaps the first writable one", true, 4,
     {P(0x20000, 4, 1, 1), P(0x90000, 4, 1, 0), P(0x20010, 4, 1, 1)}, 3, 1000, VARIANT_PLAIN},
    {"an absurd n: no range arithmetic, no vectors", true, 4, {P(0x10000, 4, 1, 1), P(0x20000, 4, 1, 1)}, 2,
     SIZE_MAX / 2, VARIANT_PLAIN},
    {"one lane is no vector", true, 1, {P(0x10000, 4, 1, 0)}, 1, 1000, VARIANT_PLAIN},
};

static void test_variant(void)
{
    for (size_t c = 0; c < sizeof variants / sizeof variants[0]; c++) {
        const struct variant_case *t = &variants[c];
        enum cudyn__variant got = cudyn__choose_variant(t->vector_kernel, t->lanes, t->ptrs, t->count, t->n);
        if (got != t->want) {
            fprintf(stderr, "variant \"%s\": got %d, expected %d\n", t->what, got, t->want);
            test_failures++;
        }
    }
}

/* ------------------------------------------------------------ source */

static int count(const char *haystack, const char *needle)
{
    int k = 0;
    for (const char *p = strstr(haystack, needle); p; p = strstr(p + 1, needle))
        k++;
    return k;
}

static void test_sources(void)
{
    struct cudyn__param_list l;
    char why[400];
    struct cudyn__scan s;
    CHECK_EQ_INT(cudyn__params_parse("float a, const float *x, float *y", &l, why, sizeof why), 0);
    const char *body = "y[i] = a * x[i] + y[i]";
    cudyn__scan_text(body, "// helpers", &l, &s);
    struct cudyn__ew_text t = {"saxpy", body, "// helpers"};
    char *src = cudyn__ew_source(&t, &l, &s, cudyn__lanes(&l, &s));
    CHECK(src != NULL);
    if (src) {
        CHECK_EQ_INT(count(src, body), 1); /* the text once: one error per mistake */
        CHECK_EQ_INT(count(src, "#line 1 \"elementwise body\"\n"), 1);
        CHECK_EQ_INT(count(src, "#line 1 \"elementwise preamble\"\n// helpers\n"), 1);
        CHECK_CONTAINS(src, "extern \"C\" __global__ void cudyn_elementwise_saxpy(float a, const float *x, float *y, "
                            "size_t n)");
        CHECK_CONTAINS(src, "extern \"C\" __global__ void cudyn_elementwise_saxpy_vec(");
        CHECK_CONTAINS(src, "cudyn_lane<const float>{cudyn_v1.e[cudyn_k], x, cudyn_at}");
        CHECK_CONTAINS(src, "((cudyn_vec<float, 4> *)y)[cudyn_vi] = cudyn_v2;"); /* only y is stored */
        CHECK(!strstr(src, ")x)[cudyn_vi] ="));
        CHECK(!strstr(src, "cuda_fp16.h"));
        /* after each #line back, the generated lines carry their own numbers */
        int line = 1;
        for (const char *p = src; *p; p++) {
            if (p == src || p[-1] == '\n') {
                int n = 0;
                char file[64];
                if (sscanf(p, "#line %d \"%63[^\"]\"", &n, file) == 2 && strcmp(file, "cudyn_elementwise_saxpy.cu") == 0)
                    CHECK_EQ_INT(n, line + 1);
            }
            line += *p == '\n';
        }
        free(src);
    }
    /* a body that is not vectorisable: the plain kernel alone */
    cudyn__scan_text("y[i] = x[i + 1]", NULL, &l, &s);
    t.body = "y[i] = x[i + 1]";
    t.preamble = NULL;
    src = cudyn__ew_source(&t, &l, &s, 4);
    CHECK(src && !strstr(src, "_vec") && !strstr(src, "cudyn_lane") && !strstr(src, "preamble"));
    free(src);
    /* a reduction: two kernels, its texts once each */
    struct cudyn__param result;
    CHECK_EQ_INT(cudyn__type_parse("__half", &result, why, sizeof why), 0);
    CHECK_EQ_INT(cudyn__params_parse("const __half *x", &l, why, sizeof why), 0);
    cudyn__scan_text("x[i]", NULL, &l, &s);
    struct cudyn__red_text r = {"hsum", &result, "0", "a + b", "x[i]", NULL};
    src = cudyn__red_source(&r, &l, &s, cudyn__lanes(&l, &s));
    CHECK(src != NULL);
    if (src) {
        CHECK_CONTAINS(src, "#include <cuda_fp16.h>");
        CHECK_CONTAINS(src, "cudyn_reduce_hsum(const __half *x, size_t n, __half *cudyn_partials, unsigned int "
                            "*cudyn_done, __half *cudyn_out)");
        CHECK_CONTAINS(src, "cudyn_reduce_hsum_vec(");
        CHECK(!strstr(src, "_final")); /* one launch: the last block combines the partials */
        CHECK_CONTAINS(src, "cudyn_last_block(cudyn_partials, cudyn_done, cudyn_out);");
        CHECK_CONTAINS(src, "#line 1 \"reduction map\"\nx[i]\n");
        CHECK_CONTAINS(src, "#line 1 \"reduction expression\"\na + b\n");
        CHECK_CONTAINS(src, "#line 1 \"reduction neutral\"\n0\n");
        CHECK_CONTAINS(src, "cudyn_vec<__half, 8>");
        CHECK(!strstr(src, "= cudyn_v0;")); /* nothing writable: nothing stored */
        free(src);
    }
}

/* The confinement rule (expr_scan.c, cudyn.h), one text at a time: NULL
 * detail = accepted, else the refusal must contain it. */
static void test_confine(void)
{
    static const struct {
        const char *text;
        unsigned int flags;
        const char *detail;
    } cases[] = {
        {"y[i] = a * x[i] + y[i]", 0, NULL},
        {"if (x[i] > 0) { y[i] = 1; } else { y[i] = (x[i] + 2) * 3; }", 0, NULL},
        {"const char *s = \"}{)(#\\\"\"; char c = '}'; char d = '\\''; (void)s;", 0, NULL},
        {"y[i] = x[i]; // } # \\ not a splice: no newline follows\n", 0, NULL},
        {"/* } # ( */ y[i] = 1'000'000 + 0x1'0;", 0, NULL},
        {"auto s = R\"d(} # \\\n)\" )d\"; (void)s;", 0, "a backslash ends the line"}, /* a splice even in a raw string */
        {"auto s = R\"d(} # ( [)d\"; (void)s;", 0, NULL},
        {"std::vector<::size_t> v;", 0, NULL}, /* <:: is not a digraph */
        {"#define TWICE(v) ((v) * 2)\n__device__ int f() { return 1; }", CUDYN_CONFINE_CODE, NULL},
        {"}", 0, "line 1, column 1: '}' closes nothing"},
        {"a\n  b)", 0, "line 2, column 4: ')' closes nothing"},
        {"(a]", 0, "column 3: ']' does not match"},
        {"{ (", 0, "column 3: '(' is never closed"},
        {"#include <x>", 0, "line 1, column 1: '#' is not allowed"},
        {"#include <x>", CUDYN_CONFINE_CODE, NULL},
        {"a # b", 0, "column 3: '#' is not allowed"},
        {"a ## b", 0, "'#' is not allowed"},
        {"%:define X", CUDYN_CONFINE_CODE, "the digraph '%:'"},
        {"a <% b", 0, "the digraph '<%'"},
        {"a[0 :> b", 0, "the digraph ':>'"},
        {"a\\\nb", 0, "line 1, column 2: a backslash ends the line"},
        {"a\\ \t\nb", 0, "a backslash ends the line"},
        {"a\\", 0, "the text ends in a backslash"},
        {"a /* b", 0, "column 3: a /* comment is not closed"},
        {"\"abc", 0, "a string literal is not closed on its line"},
        {"'a\nb'", 0, "a character literal is not closed on its line"},
        {"R\"x(abc)y\"", 0, "a raw string literal is not closed"},
        {"}", CUDYN_CONFINE_CODE, "closes nothing"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        char why[400] = "";
        int rc = cudyn__text_confine(cases[c].text, "body", cases[c].flags, why, sizeof why);
        if (cases[c].detail ? rc == 0 || !strstr(why, cases[c].detail) || !strstr(why, "the body, line ")
                            : rc != 0) {
            fprintf(stderr, "confine \"%s\" (flags %u): %d \"%s\", expected %s\n", cases[c].text, cases[c].flags, rc,
                    why, cases[c].detail ? cases[c].detail : "acceptance");
            test_failures++;
        }
    }
}

int main(void)
{
    test_parser();
    test_parser_facts();
    test_codes_match_the_format();
    test_result_types_and_names();
    test_confine();
    test_scan();
    test_shape();
    test_lanes();
    test_variant();
    test_sources();
    return test_result("test_expr_tables");
}
