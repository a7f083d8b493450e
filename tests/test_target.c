/*
 * test_target.c - the target decision (lib/compile/target.c) against a table of
 * cases: it is a pure function, so every rule of the brief is a row here.
 * Likewise the choice of a multi-architecture image's entry, and the
 * option syntax (lib/compile/options.c) the forced target is read with.
 */
#include "config.h"

#include "compile/options.h"
#include "compile/target.h"
#include "testutil.h"

static const int nvrtc13[] = {75, 80, 86, 87, 88, 89, 90, 100, 103, 110, 120, 121};
static const int nvrtc12[] = {50, 52, 53, 60, 61, 62, 70, 72, 75, 80, 86, 87, 89, 90};
static const int nvrtc11[] = {35, 37, 50, 52, 53, 60, 61, 62, 70, 72, 75, 80, 86};

struct target_case {
    const char *what;
    int cc;
    const int *archs;
    size_t n_archs;
    int nvrtc, driver;
    const char *forced;
    int ok;              /* 0 or -1 */
    const char *expected;  /* target name, or a word the error must contain */
};

#define LIST(a) a, sizeof a / sizeof a[0]

static const struct target_case cases[] = {
    {"exact match: CUBIN for the device", 90, LIST(nvrtc13), 13000, 13000, NULL, 0, "sm_90"},
    {"exact match on an older device", 75, LIST(nvrtc13), 13000, 13000, NULL, 0, "sm_75"},
    {"device newer than NVRTC, same major: older-minor CUBIN", 89, LIST(nvrtc11), 11020, 12000, NULL, 0, "sm_86"},
    {"device newer than NVRTC, same major (12.x on 9.x)", 92, LIST(nvrtc12), 12040, 12040, NULL, 0, "sm_90"},
    {"device of a newer major: PTX of the best older arch", 100, LIST(nvrtc12), 12040, 12080, NULL, 0, "compute_90"},
    {"newer major, driver equal to NVRTC: PTX allowed", 90, LIST(nvrtc11), 11020, 11020, NULL, 0, "compute_86"},
    {"newer major but driver older than NVRTC: cannot JIT", 100, LIST(nvrtc12), 12080, 12040, NULL, -1, "older than NVRTC"},
    {"device older than NVRTC's oldest arch", 61, LIST(nvrtc13), 13000, 13000, NULL, -1, "6.1"},
    {"error names the supported list", 52, LIST(nvrtc13), 13000, 13000, NULL, -1, "75 80 86"},
    {"NVRTC newer than the driver: CUBIN still (no JIT)", 90, LIST(nvrtc13), 13000, 12080, NULL, 0, "sm_90"},
    {"forced CUBIN target wins", 90, LIST(nvrtc13), 13000, 13000, "sm_80", 0, "sm_80"},
    {"forced PTX target wins", 90, LIST(nvrtc13), 13000, 13000, "compute_75", 0, "compute_75"},
    {"arch-specific target only when asked", 90, LIST(nvrtc13), 13000, 13000, "sm_90a", 0, "sm_90a"},
    {"forced target even if unlisted", 61, LIST(nvrtc13), 13000, 13000, "compute_61", 0, "compute_61"},
};

static void test_table(void)
{
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const struct target_case *c = &cases[i];
        struct cudyn__target t;
        int r = cudyn__choose_target(c->cc, c->archs, c->n_archs, c->nvrtc, c->driver, c->forced, &t);
        if (r != c->ok) {
            fprintf(stderr, "case '%s': returned %d, expected %d (%s)\n", c->what, r, c->ok, t.why);
            test_failures++;
            continue;
        }
        const char *got = r == 0 ? t.name : t.why;
        if (!strstr(got, c->expected)) {
            fprintf(stderr, "case '%s': got '%s', expected '%s'\n", c->what, got, c->expected);
            test_failures++;
        }
        if (r == 0)
            CHECK(t.cubin == (strncmp(t.name, "sm_", 3) == 0));
        CHECK(t.why[0] != '\0');
    }
    /* the arch-specific 'a' targets are never chosen unless forced */
    struct cudyn__target t;
    const int with_a[] = {90, 900};
    CHECK_EQ_INT(cudyn__choose_target(90, with_a, 2, 13000, 13000, NULL, &t), 0);
    CHECK(strcmp(t.name, "sm_90") == 0);
}

static void test_forced_option_parsing(void)
{
    const char *a[] = {"-default-device", "--gpu-architecture=sm_86"};
    CHECK(strcmp(cudyn__forced_target(a, 2), "sm_86") == 0);
    const char *b[] = {"-arch", "compute_80"};
    CHECK(strcmp(cudyn__forced_target(b, 2), "compute_80") == 0);
    const char *c[] = {"-arch=sm_75", "--gpu-architecture", "sm_90"};
    CHECK(strcmp(cudyn__forced_target(c, 3), "sm_90") == 0); /* last wins */
    const char *d[] = {"-std=c++17", "-architecture-is-not-this"};
    CHECK(cudyn__forced_target(d, 2) == NULL);
    const char *e[] = {"-arch"}; /* dangling: no value */
    CHECK(cudyn__forced_target(e, 1) == NULL);
    CHECK(cudyn__forced_target(NULL, 0) == NULL);
}

/* ---- which entry of a multi-architecture image a device loads ---- */

struct entry_case {
    const char *what;
    int cc;
    const char *entries; /* "sm_80 sm_90 compute_90" */
    int built_by, driver;
    const char *expected; /* the entry chosen, or a word of the error */
};

static const struct entry_case entry_cases[] = {
    {"exact CUBIN first", 90, "compute_90 sm_80 sm_90", 13000, 13000, "sm_90"},
    {"older CUBIN of the same major before any PTX", 86, "compute_86 sm_80 sm_90", 13000, 13000, "sm_80"},
    {"the highest older CUBIN of the major", 89, "sm_80 sm_86 sm_87", 13000, 13000, "sm_87"},
    {"a newer minor's CUBIN does not run", 80, "sm_86 compute_80", 13000, 13000, "compute_80"},
    {"newer major: the highest PTX at or below cc", 120, "sm_80 compute_75 compute_90 sm_90", 13000, 13000,
     "compute_90"},
    {"PTX above cc is not used", 86, "compute_90 compute_80", 13000, 13000, "compute_80"},
    {"PTX needs a driver as new as its NVRTC", 100, "sm_90 compute_90", 13000, 12080, "older than the NVRTC"},
    {"an unknown builder is trusted", 100, "compute_90", 0, 12000, "compute_90"},
    {"nothing for an older device", 75, "sm_80 sm_90 compute_90", 13000, 13000, "no code for compute capability 7.5"},
    {"CUBIN of another major never", 100, "sm_90", 13000, 13000, "it has sm_90"},
};

static void test_image_entries(void)
{
    for (size_t i = 0; i < sizeof entry_cases / sizeof entry_cases[0]; i++) {
        const struct entry_case *c = &entry_cases[i];
        struct cudyn__image_choice e[8];
        char names[8][16];
        size_t n = 0;
        char list[128];
        snprintf(list, sizeof list, "%s", c->entries);
        for (char *save = NULL, *tok = strtok_r(list, " ", &save); tok && n < 8; tok = strtok_r(NULL, " ", &save)) {
            e[n].cubin = strncmp(tok, "sm_", 3) == 0;
            e[n].arch = atoi(strchr(tok, '_') + 1);
            snprintf(names[n++], sizeof names[0], "%s", tok);
        }
        char why[512] = "";
        int got = cudyn__choose_image_entry(c->cc, e, n, c->built_by, c->driver, why, sizeof why);
        const char *result = got >= 0 ? names[got] : why;
        if (!strstr(result, c->expected)) {
            fprintf(stderr, "entry case '%s': got '%s', expected '%s'\n", c->what, result, c->expected);
            test_failures++;
        }
    }
}

/* ---- option syntax: values in every spelling NVRTC accepts ---- */

static void test_option_values(void)
{
    struct cudyn__option o;
    const char *a[] = {"-I", "inc", "-Idir", "-I=eq", "-I spaced", "--include-path=long", "--include-path", "l2",
                       "-DX=1", "-include", "pre.h", "--no-source-include", "-arch=sm_80", "-use-pch=x.pch"};
    const struct {
        enum cudyn__option_kind kind;
        const char *value;
        int used;
    } expect[] = {{OPTION_INCLUDE_PATH, "inc", 2},   {OPTION_INCLUDE_PATH, "dir", 1},
                  {OPTION_INCLUDE_PATH, "eq", 1},    {OPTION_INCLUDE_PATH, "spaced", 1},
                  {OPTION_INCLUDE_PATH, "long", 1},  {OPTION_INCLUDE_PATH, "l2", 2},
                  {OPTION_OTHER, "X=1", 1},          {OPTION_PRE_INCLUDE, "pre.h", 2},
                  {OPTION_NO_SOURCE_INCLUDE, NULL, 1}, {OPTION_ARCH, "sm_80", 1},
                  {OPTION_SIDE_FILES, "x.pch", 1}};
    int n = (int)(sizeof a / sizeof a[0]), k = 0;
    for (int i = 0; i < n; i += o.used, k++) {
        CHECK_EQ_INT(cudyn__option_read(a, n, i, &o), 0);
        CHECK_EQ_INT(o.kind, expect[k].kind);
        CHECK_EQ_INT(o.used, expect[k].used);
        CHECK(expect[k].value ? o.value && strcmp(o.value, expect[k].value) == 0 : o.value == NULL);
    }
    CHECK_EQ_INT(k, (int)(sizeof expect / sizeof expect[0]));
    /* a value-taking option with nothing after it is an error naming it */
    const char *bare[][2] = {{"-DX", "-I"}, {"-DX", "--include-path"}, {"-DX", "-D"}, {"-DX", "-Xptxas"},
                             {"-DX", "-I "}, {"-DX", "--ftz"}};
    for (size_t i = 0; i < sizeof bare / sizeof bare[0]; i++) {
        CHECK_EQ_INT(cudyn__option_read(bare[i], 2, 1, &o), -1);
        CHECK(strcmp(o.name, bare[i][1]) == 0);
    }
    /* an option taking its value only after '=' does not take the next */
    const char *eq_only[] = {"--time", "-DX"};
    CHECK_EQ_INT(cudyn__option_read(eq_only, 2, 0, &o), 0);
    CHECK_EQ_INT(o.used, 1);
}

int main(void)
{
    test_table();
    test_forced_option_parsing();
    test_image_entries();
    test_option_values();
    return test_result("test_target");
}
