/*
 * test_includes.c - the include scanner (lib/compile/includes.c): the
 * lexer finds every #include and nothing else, resolution follows NVRTC's
 * order and records the missing candidates, and a recorded list notices
 * edits, vanished files and files that would shadow the one found; the C
 * library headers cudyn gives NVRTC (lib/compile/libc_headers.c) resolve
 * in memory unless the caller gives one of the same name.
 */
#include "config.h"

#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "compile/includes.h"
#include "compile/libc_headers.h"
#include "testutil.h"

/* ------------------------------------------------------------ the lexer */

struct found {
    char text[512];
};

static int collect(void *ctx, bool quoted, const char *name, size_t n)
{
    struct found *f = ctx;
    size_t len = strlen(f->text);
    snprintf(f->text + len, sizeof f->text - len, "%c%.*s%c ", quoted ? '"' : '<', (int)n, name, quoted ? '"' : '>');
    return 0;
}

static void expect_includes(const char *what, const char *text, int rc, const char *expected)
{
    struct found f = {""};
    int got = cudyn__includes_list(text, strlen(text), collect, &f);
    if (got != rc || strcmp(f.text, expected) != 0) {
        fprintf(stderr, "%s: got %d '%s', expected %d '%s'\n", what, got, f.text, rc, expected);
        test_failures++;
    }
}

static void test_lexer(void)
{
    expect_includes("plain", "#include \"a.h\"\n#include <b.h>\n", 0, "\"a.h\" <b.h> ");
    expect_includes("spaces and a comment", "  #  include /* x */ <c.h> // d\n", 0, "<c.h> ");
    expect_includes("every branch counts", "#if 0\n#include \"off.h\"\n#else\n#include \"on.h\"\n#endif\n", 0,
                    "\"off.h\" \"on.h\" ");
    expect_includes("include_next and import", "#include_next <n.h>\n#import \"i.h\"\n", 0, "<n.h> \"i.h\" ");
    expect_includes("continued line", "#inc\\\nlude \"split.h\"\n", 0, "\"split.h\" ");
    expect_includes("not at a line start", "int x; #include \"no.h\"\n", 0, "");
    expect_includes("in a block comment", "/*\n#include \"no.h\"\n*/\n#include \"yes.h\"\n", 0, "\"yes.h\" ");
    expect_includes("after a comment on the line", "/* c */ #include \"yes.h\"\n", 0, "\"yes.h\" ");
    expect_includes("in a line comment", "// #include \"no.h\"\n", 0, "");
    expect_includes("in a string", "const char *s = \"\\n#include <no.h>\";\n", 0, "");
    expect_includes("in a raw string", "auto s = R\"x(\n#include <no.h>\n)x\";\n#include <yes.h>\n", 0, "<yes.h> ");
    expect_includes("digit separators", "int n = 1'000; /* '\n#include \"no.h\" */\n#include \"yes.h\"\n", 0,
                    "\"yes.h\" ");
    expect_includes("a computed include", "#define H <x.h>\n#include H\n", 1, "");
    expect_includes("__has_include", "#if __has_include(<x.h>)\n#include <x.h>\n#endif\n", 1, "<x.h> ");
    expect_includes("__has_include in a comment", "// __has_include\n", 0, "");
    expect_includes("malformed names are NVRTC's to report", "#include \"open\n#include <>\n#include\n", 0, "");
}

/* ------------------------------------------------------------ resolution */

static char root[256];

/* A path under this test's root. */
static const char *at(const char *rel)
{
    return test_path(root, rel);
}

/* The recorded entry for a path: 1 present, 0 absent, -1 not recorded. */
static int recorded(const struct cudyn__deps *d, const char *path)
{
    for (size_t i = 0; i < d->n; i++)
        if (strcmp(d->v[i].path, path) == 0)
            return d->v[i].present;
    return -1;
}

static const char main_src[] = "#include \"a.h\"\n"   /* next to the source */
                               "#include <b.h>\n"     /* in the second -I directory */
                               "#include \"mem.h\"\n" /* in memory */
                               "#include <cuda_fp16.h>\n"; /* the toolkit's */

static void scan(const char *const *options, int n, struct cudyn__deps *deps)
{
    const char *names[] = {"mem.h"}, *sources[] = {"#include <d.h>\n"};
    char name[512];
    snprintf(name, sizeof name, "%s/src/k.cu", root);
    char toolkit[2][600];
    snprintf(toolkit[0], sizeof toolkit[0], "%s", at("toolkit"));
    snprintf(toolkit[1], sizeof toolkit[1], "%s", at("toolkit/cccl"));
    const char *toolkit_dirs[] = {toolkit[0], toolkit[1]};
    struct cudyn__include_env env = {name, names, sources, 1, options, n, toolkit_dirs, 2};
    CHECK_EQ_INT(cudyn__deps_scan(main_src, &env, deps), 0);
}

static void test_resolution(void)
{
    const char *opts[] = {"-I", at("inc1"), "--include-path", at("inc2"), "-include", "pre.h"};
    struct cudyn__deps d;
    scan(opts, 6, &d);
    CHECK(d.uncacheable[0] == '\0');
    CHECK_EQ_INT(recorded(&d, at("src/a.h")), 1);
    CHECK_EQ_INT(recorded(&d, at("src/c.h")), 1);     /* a.h's "c.h", beside it */
    CHECK_EQ_INT(recorded(&d, at("inc1/b.h")), 0);    /* an earlier candidate, missing */
    CHECK_EQ_INT(recorded(&d, at("inc2/b.h")), 1);
    CHECK_EQ_INT(recorded(&d, at("src/b.h")), -1);    /* <...> never looks beside the source */
    CHECK_EQ_INT(recorded(&d, at("inc2/d.h")), 1);    /* included by the in-memory header */
    CHECK_EQ_INT(recorded(&d, at("src/pre.h")), 1);   /* -include pre.h */
    CHECK_EQ_INT(recorded(&d, "mem.h"), -1);          /* in memory: part of the key */
    CHECK_EQ_INT(recorded(&d, at("toolkit/cuda_fp16.h")), -1); /* the toolkit's: not tracked, */
    CHECK(d.uses_toolkit);                                     /* the toolkit is the entry's */
    CHECK_EQ_INT(recorded(&d, at("inc1/cuda_fp16.h")), 0);     /* but a file there would win */
    bool refreshed = true;
    CHECK_EQ_INT(cudyn__deps_check(&d, &refreshed), 0);
    CHECK(!refreshed);

    /* touched, same contents: current, identity refreshed */
    struct timespec later[2] = {{0, UTIME_NOW}, {0, UTIME_NOW}};
    usleep(2000);
    CHECK_EQ_INT(utimensat(AT_FDCWD, at("inc2/b.h"), later, 0), 0);
    CHECK_EQ_INT(cudyn__deps_check(&d, &refreshed), 0);
    CHECK(refreshed);
    /* edited: stale */
    test_write_file(root, "inc2/b.h", "#define B 2\n");
    CHECK_EQ_INT(cudyn__deps_check(&d, &refreshed), 1);
    test_write_file(root, "inc2/b.h", "#define B 1\n"); /* the same bytes again: current */
    CHECK_EQ_INT(cudyn__deps_check(&d, &refreshed), 0);
    /* a file appearing where a candidate was missing would be included */
    test_write_file(root, "inc1/b.h", "#define B 3\n");
    CHECK_EQ_INT(cudyn__deps_check(&d, &refreshed), 1);
    unlink(at("inc1/b.h"));
    CHECK_EQ_INT(cudyn__deps_check(&d, &refreshed), 0);
    /* a file that vanished */
    rename(at("src/c.h"), at("src/c.h.away"));
    CHECK_EQ_INT(cudyn__deps_check(&d, &refreshed), 1);
    rename(at("src/c.h.away"), at("src/c.h"));
    cudyn__deps_free(&d);
}

static void test_switches(void)
{
    struct cudyn__deps d;
    /* --no-source-include: "a.h" is looked for in -I only */
    const char *no_source[] = {"-no-source-include", "-I", at("inc2")};
    scan(no_source, 3, &d);
    CHECK_EQ_INT(recorded(&d, at("src/a.h")), -1);
    CHECK_EQ_INT(recorded(&d, at("inc2/a.h")), 0);
    cudyn__deps_free(&d);
    /* a toolkit directory the caller names ends the search where it has
     * the file (cuda_fp16.h, untracked: the toolkit's); where it has not,
     * NVRTC looks on, and a file appearing there would be used */
    const char *toolkit_first[] = {"-I", at("toolkit"), "-I", at("inc2")};
    scan(toolkit_first, 4, &d);
    CHECK_EQ_INT(recorded(&d, at("toolkit/b.h")), 0);
    CHECK_EQ_INT(recorded(&d, at("inc2/b.h")), 1);
    CHECK_EQ_INT(recorded(&d, at("inc2/cuda_fp16.h")), -1);
    CHECK(d.uses_toolkit);
    cudyn__deps_free(&d);
    /* and so does its cccl directory (libcu++, CUB, Thrust) */
    const char *cccl_first[] = {"-I", at("toolkit/cccl"), "-I", at("inc2")};
    scan(cccl_first, 4, &d);
    CHECK_EQ_INT(recorded(&d, at("toolkit/cccl/b.h")), 0);
    CHECK_EQ_INT(recorded(&d, at("inc2/b.h")), 1);
    cudyn__deps_free(&d);
    /* options that read or write other files make it uncacheable */
    const char *pch[] = {"--use-pch=k.pch"};
    scan(pch, 1, &d);
    CHECK(strstr(d.uncacheable, "--use-pch") != NULL);
    cudyn__deps_free(&d);
    /* a computed include in an included file too */
    test_write_file(root, "inc2/computed.h", "#define X <b.h>\n#include X\n");
    const char *opts[] = {"-I", at("inc2")};
    const char *names[] = {"unused.h"}, *sources[] = {""};
    struct cudyn__include_env env = {"k.cu", names, sources, 1, opts, 2, NULL, 0};
    CHECK_EQ_INT(cudyn__deps_scan("#include <computed.h>\n", &env, &d), 0);
    CHECK(strstr(d.uncacheable, "computed") != NULL);
    cudyn__deps_free(&d);
    /* cycles end */
    test_write_file(root, "inc2/loop.h", "#include <loop.h>\n#include \"loop.h\"\n");
    CHECK_EQ_INT(cudyn__deps_scan("#include <loop.h>\n", &env, &d), 0);
    CHECK_EQ_INT(recorded(&d, at("inc2/loop.h")), 1);
    CHECK_EQ_INT(d.n, 1); /* "loop.h" beside loop.h is the same file */
    cudyn__deps_free(&d);
}

/* Whether a compile depends on the toolkit: an include found in one of
 * its directories, or found nowhere (NVRTC's own, which a toolkit header
 * of the name would shadow); not one that includes only the caller's
 * files, in-memory headers and cudyn's C library headers: its entry
 * serves whatever toolkit a machine has. */
static void test_uses_toolkit(void)
{
    char inc2[600], toolkit[600];
    snprintf(inc2, sizeof inc2, "%s", at("inc2"));
    snprintf(toolkit, sizeof toolkit, "%s", at("toolkit"));
    const char *opts[] = {"-I", inc2};
    const char *names[] = {"mem.h"}, *sources[] = {"#include <d.h>\n"};
    const char *toolkit_dirs[] = {toolkit};
    struct cudyn__include_env env = {"k.cu", names, sources, 1, opts, 2, toolkit_dirs, 1};
    static const struct {
        const char *source;
        bool uses_toolkit;
    } cases[] = {
        {"extern \"C\" __global__ void k() {}\n", false},
        {"#include <b.h>\n#include \"mem.h\"\n#include <cmath>\n#include <stdint.h>\n", false},
        {"#include <cuda_fp16.h>\n", true},
        {"#include <b.h>\n#include <nowhere.h>\n", true},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct cudyn__deps d;
        CHECK_EQ_INT(cudyn__deps_scan(cases[i].source, &env, &d), 0);
        if (d.uses_toolkit != cases[i].uses_toolkit) {
            fprintf(stderr, "case %zu: uses_toolkit %d, expected %d\n", i, d.uses_toolkit, cases[i].uses_toolkit);
            test_failures++;
        }
        cudyn__deps_free(&d);
    }
    /* a file of a header's name in inc2, which the toolkit directory does
     * not have: found there, through it */
    test_write_file(root, "inc2/via.h", "#include <cuda_fp16.h>\n");
    struct cudyn__deps d;
    CHECK_EQ_INT(cudyn__deps_scan("#include <via.h>\n", &env, &d), 0);
    CHECK_EQ_INT(recorded(&d, at("inc2/via.h")), 1);
    CHECK(d.uses_toolkit);
    cudyn__deps_free(&d);
    remove(at("inc2/via.h"));
}

/* The C library headers are cudyn's, in memory (libc_headers.c): for
 * each, the caller's -I directories are looked in first (a file there
 * wins, so its absence is recorded), then cudyn's own text is read for
 * what it includes in turn (<cmath> includes <math.h>); a caller's
 * in-memory header of the name wins over both (and is read for
 * includes); headers cudyn does not supply are searched as any other. */
static void test_libc_headers(void)
{
    static const char *const supplied[] = {"math.h", "cmath", "stdint.h", "cstdint", "limits.h", "climits",
                                           "float.h", "cfloat", "stddef.h", "cstddef", "stdbool.h", "stdlib.h",
                                           "cstdlib", "string.h", "cstring", "assert.h", "cassert", "sys/types.h",
                                           "stdio.h", "cstdio", CUDYN_NVCC_NAMES_HEADER};
    for (size_t i = 0; i < sizeof supplied / sizeof supplied[0]; i++)
        CHECK(cudyn__libc_header(supplied[i]) != NULL);
    CHECK(cudyn__libc_header("ctype.h") == NULL && cudyn__libc_header("time.h") == NULL);
    char inc2[600];
    snprintf(inc2, sizeof inc2, "%s", at("inc2"));
    const char *opts[] = {"-I", inc2};
    struct cudyn__include_env env = {"k.cu", NULL, NULL, 0, opts, 2, NULL, 0};
    struct cudyn__deps d;
    CHECK_EQ_INT(cudyn__deps_scan("#include <stdio.h>\n#include <cmath>\n#include <ctype.h>\n", &env, &d), 0);
    CHECK(d.uncacheable[0] == '\0');
    CHECK_EQ_INT(recorded(&d, at("inc2/stdio.h")), 0); /* a file there would win */
    CHECK_EQ_INT(recorded(&d, at("inc2/cmath")), 0);
    CHECK_EQ_INT(recorded(&d, at("inc2/math.h")), 0);  /* through cudyn's <cmath> */
    CHECK_EQ_INT(recorded(&d, at("inc2/ctype.h")), 0); /* not cudyn's: searched as any other */
    cudyn__deps_free(&d);
    /* a file of the name on the include path wins, and is read */
    test_write_file(root, "inc2/stdint.h", "#include <d.h>\n");
    CHECK_EQ_INT(cudyn__deps_scan("#include <stdint.h>\n", &env, &d), 0);
    CHECK_EQ_INT(recorded(&d, at("inc2/stdint.h")), 1);
    CHECK_EQ_INT(recorded(&d, at("inc2/d.h")), 1);
    cudyn__deps_free(&d);
    const char *names[] = {"stdio.h"}, *sources[] = {"#include <b.h>\n"};
    struct cudyn__include_env mine = {"k.cu", names, sources, 1, opts, 2, NULL, 0};
    CHECK_EQ_INT(cudyn__deps_scan("#include <stdio.h>\n", &mine, &d), 0);
    CHECK_EQ_INT(recorded(&d, at("inc2/b.h")), 1); /* the caller's stdio.h was read */
    CHECK_EQ_INT(recorded(&d, at("inc2/stdio.h")), -1);
    cudyn__deps_free(&d);

    /* what NVRTC gets: the caller's headers first, then cudyn's it did not
     * name and has no file for on its include path (inc2/stdint.h) */
    const size_t all = sizeof supplied / sizeof supplied[0];
    const char **all_names = NULL, **all_texts = NULL;
    int n = 0;
    CHECK_EQ_INT(cudyn__headers_with_libc(names, sources, 1, opts, 2, &all_names, &all_texts, &n), 0);
    CHECK_EQ_INT(n, (int)all - 1);
    if (n == (int)all - 1) {
        CHECK(strcmp(all_names[0], "stdio.h") == 0 && all_texts[0] == sources[0]);
        for (int i = 1; i < n; i++) {
            CHECK(strcmp(all_names[i], "stdio.h") != 0 && strcmp(all_names[i], "stdint.h") != 0);
            CHECK(all_texts[i] == cudyn__libc_header(all_names[i])->text);
        }
    }
    free(all_names);
    free(all_texts);
    CHECK_EQ_INT(cudyn__headers_with_libc(NULL, NULL, 0, NULL, 0, &all_names, &all_texts, &n), 0);
    CHECK_EQ_INT(n, (int)all);
    free(all_names);
    free(all_texts);
    remove(at("inc2/stdint.h"));

    /* the caller's math.h in a -I directory after a toolkit one: NVRTC is
     * not given cudyn's (cudyn__header_on_path looks in every -I), so it
     * finds the caller's, through the toolkit directory; the scan records
     * and reads that file, whose edit must recompile */
    test_write_file(root, "inc2/math.h", "#include <d.h>\n");
    char toolkit[600];
    snprintf(toolkit, sizeof toolkit, "%s", at("toolkit"));
    const char *toolkit_then_mine[] = {"-I", toolkit, "-I", inc2};
    const char *toolkit_dirs[] = {toolkit};
    struct cudyn__include_env behind = {"k.cu", NULL, NULL, 0, toolkit_then_mine, 4, toolkit_dirs, 1};
    CHECK_EQ_INT(cudyn__deps_scan("#include <math.h>\n", &behind, &d), 0);
    CHECK_EQ_INT(recorded(&d, at("toolkit/math.h")), 0);
    CHECK_EQ_INT(recorded(&d, at("inc2/math.h")), 1);
    CHECK_EQ_INT(recorded(&d, at("inc2/d.h")), 1); /* the caller's math.h was read */
    CHECK(!d.uses_toolkit);
    cudyn__deps_free(&d);
    CHECK_EQ_INT(cudyn__headers_with_libc(NULL, NULL, 0, toolkit_then_mine, 4, &all_names, &all_texts, &n), 0);
    for (int i = 0; i < n; i++)
        CHECK(strcmp(all_names[i], "math.h") != 0);
    free(all_names);
    free(all_texts);
    remove(at("inc2/math.h"));
}

int main(void)
{
    test_lexer();
    snprintf(root, sizeof root, "%s/test_includes.%ld", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", (long)getpid());
    const char *dirs[] = {"", "/src", "/inc1", "/inc2", "/toolkit", "/toolkit/cccl"};
    for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
        char path[512];
        snprintf(path, sizeof path, "%s%s", root, dirs[i]);
        mkdir(path, 0700);
    }
    test_write_file(root, "src/a.h", "#include \"c.h\"\n");
    test_write_file(root, "src/c.h", "#define C 1\n");
    test_write_file(root, "src/pre.h", "#define PRE 1\n");
    test_write_file(root, "inc2/b.h", "#define B 1\n");
    test_write_file(root, "inc2/d.h", "#define D 1\n");
    test_write_file(root, "toolkit/cuda_fp16.h", "#include <never_tracked.h>\n");
    test_resolution();
    test_switches();
    test_uses_toolkit();
    test_libc_headers();
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", root);
    return test_result("test_includes");
}
