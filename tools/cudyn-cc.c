/*
 * cudyn-cc - compile CUDA C++ with NVRTC alone (no nvcc, no GPU) into one
 * image for several architectures, which cudyn_module_load_image loads on
 * a machine without NVRTC; and show or clear the kernel cache.  See
 * man/cudyn-cc.1.
 */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cudyn.h"

/* Exit codes (man/cudyn-cc.1). */
enum {
    EXIT_OK = 0,
    EXIT_COMPILE = 1,   /* the source did not compile: NVRTC's log is on stderr */
    EXIT_USAGE = 2,
    EXIT_FILE = 3,      /* an input could not be read or the output written */
    EXIT_NO_NVRTC = 4,
    EXIT_NO_NVFATBIN = 5,
    EXIT_FAILED = 6     /* anything else cudyn reports */
};

#define MAX_ARCHS 64
#define MAX_OPTIONS 256
#define MAX_HEADERS 64
#define MAX_FILE_BYTES ((size_t)64 << 20)

static const char usage_text[] =
    "Usage: cudyn-cc -o OUTPUT --arch LIST [options] SOURCE\n"
    "       cudyn-cc --cache-info | --cache-clear\n"
    "Compile CUDA C++ with NVRTC into one image for several GPU architectures,\n"
    "for cudyn_module_load_image (no NVRTC needed where it is loaded).\n"
    "\n"
    "  -o FILE             write the image to FILE (- for standard output)\n"
    "  --arch LIST         targets, comma-separated: sm_XY (CUBIN), compute_XY (PTX);\n"
    "                      repeatable\n"
    "  --format FORMAT     cudyn (default), fatbin (needs nvFatbin), or for one\n"
    "                      target only, cubin or ptx\n"
    "  -I DIR              search DIR for included files (also -IDIR)\n"
    "  -D NAME[=VALUE]     define a macro (also -DNAME)\n"
    "  --std STD           language dialect: c++11, c++14, c++17, c++20\n"
    "  --header NAME=FILE  FILE's contents are the header #include \"NAME\" finds\n"
    "  -Xnvrtc OPTION      pass OPTION to NVRTC unchanged\n"
    "  --cache-info        show the kernel cache (directory, entries, size, limit)\n"
    "  --cache-clear       remove every entry of the kernel cache\n"
    "  -h, --help          show this help\n"
    "  --version           show the version\n"
    "\n"
    "Exit status: 0 ok, 1 compile error, 2 usage error, 3 file error,\n"
    "4 NVRTC not found, 5 nvFatbin not found, 6 other failure.\n";

struct request {
    const char *output, *source_path;
    const char *format;
    char *archs[MAX_ARCHS]; /* each target once, from every --arch; freed at exit */
    int n_archs;
    const char *options[MAX_OPTIONS];
    char *owned_options[MAX_OPTIONS]; /* "-I" "DIR" joined, freed at exit */
    int n_options;
    const char *header_names[MAX_HEADERS];
    const char *header_files[MAX_HEADERS];
    int n_headers;
    enum { DO_COMPILE, DO_CACHE_INFO, DO_CACHE_CLEAR, DO_HELP, DO_VERSION } action;
};

static int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int usage_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("cudyn-cc: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputs("\nTry 'cudyn-cc --help'.\n", stderr);
    va_end(ap);
    return EXIT_USAGE;
}

/* An NVRTC option from a flag and its value ("-I" "dir" -> "-Idir"). */
static int add_option(struct request *r, const char *flag, const char *value)
{
    if (r->n_options >= MAX_OPTIONS)
        return usage_error("%s: too many options", flag);
    size_t n = strlen(flag) + strlen(value) + 1;
    char *opt = malloc(n);
    if (!opt)
        return usage_error("%s: out of memory", flag);
    snprintf(opt, n, "%s%s", flag, value);
    r->owned_options[r->n_options] = opt;
    r->options[r->n_options++] = opt;
    return EXIT_OK;
}

/* One target of --arch: well-formed, and not given before. */
static int add_arch(struct request *r, const char *tok)
{
    bool sm = strncmp(tok, "sm_", 3) == 0, compute = strncmp(tok, "compute_", 8) == 0;
    const char *digits = sm ? tok + 3 : tok + 8;
    if ((!sm && !compute) || strlen(digits) < 2 || strspn(digits, "0123456789") != strlen(digits))
        return usage_error("--arch: '%s' is not sm_XY or compute_XY", tok);
    for (int i = 0; i < r->n_archs; i++)
        if (strcmp(r->archs[i], tok) == 0)
            return usage_error("--arch: '%s' given twice", tok);
    if (r->n_archs >= MAX_ARCHS)
        return usage_error("--arch: more than %d targets", MAX_ARCHS);
    if (!(r->archs[r->n_archs] = strdup(tok)))
        return usage_error("--arch: %s", "out of memory");
    r->n_archs++;
    return EXIT_OK;
}

/* A comma-separated list of targets; --arch may be given again. */
static int split_archs(struct request *r, const char *list)
{
    char *copy = strdup(list);
    if (!copy)
        return usage_error("--arch: %s", "out of memory");
    int rc = EXIT_OK, before = r->n_archs;
    char *save = NULL;
    for (char *tok = strtok_r(copy, ",", &save); tok && rc == EXIT_OK; tok = strtok_r(NULL, ",", &save))
        rc = add_arch(r, tok);
    free(copy);
    if (rc == EXIT_OK && r->n_archs == before)
        rc = usage_error("--arch: %s", "no target given");
    return rc;
}

static int add_header(struct request *r, const char *spec)
{
    const char *eq = strchr(spec, '=');
    if (!eq || eq == spec || !eq[1])
        return usage_error("--header: '%s' is not NAME=FILE", spec);
    if (r->n_headers >= MAX_HEADERS)
        return usage_error("--header: more than %d headers", MAX_HEADERS);
    char *name = strndup(spec, (size_t)(eq - spec));
    if (!name)
        return usage_error("--header: %s", "out of memory");
    r->header_names[r->n_headers] = name;
    r->header_files[r->n_headers++] = eq + 1;
    return EXIT_OK;
}

/* One command-line argument (and its value); *i advances past what it used. */
static int parse_one(struct request *r, int argc, char **argv, int *i)
{
    const char *a = argv[*i];
    const char *next = *i + 1 < argc ? argv[*i + 1] : NULL;
    static const char *const with_value[] = {"-o", "--arch", "--format", "-I", "-D", "--std", "--header", "-Xnvrtc"};
    for (size_t k = 0; k < sizeof with_value / sizeof with_value[0]; k++) {
        const char *flag = with_value[k];
        bool attached = (strcmp(flag, "-I") == 0 || strcmp(flag, "-D") == 0) && strncmp(a, flag, 2) == 0 && a[2];
        if (strcmp(a, flag) != 0 && !attached)
            continue;
        const char *v = attached ? a + 2 : next;
        if (!v)
            return usage_error("%s needs a value", flag);
        if (!attached)
            (*i)++;
        if (strcmp(flag, "-o") == 0)
            r->output = v;
        else if (strcmp(flag, "--arch") == 0)
            return split_archs(r, v);
        else if (strcmp(flag, "--format") == 0)
            r->format = v;
        else if (strcmp(flag, "--header") == 0)
            return add_header(r, v);
        else if (strcmp(flag, "--std") == 0)
            return add_option(r, "--std=", v);
        else if (strcmp(flag, "-Xnvrtc") == 0)
            return add_option(r, "", v);
        else
            return add_option(r, flag, v); /* -I, -D */
        return EXIT_OK;
    }
    if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0)
        r->action = DO_HELP;
    else if (strcmp(a, "--version") == 0)
        r->action = DO_VERSION;
    else if (strcmp(a, "--cache-info") == 0)
        r->action = DO_CACHE_INFO;
    else if (strcmp(a, "--cache-clear") == 0)
        r->action = DO_CACHE_CLEAR;
    else if (a[0] == '-' && a[1])
        return usage_error("unknown option '%s'", a);
    else if (r->source_path)
        return usage_error("one source file only ('%s' is a second)", a);
    else
        r->source_path = a;
    return EXIT_OK;
}

static int parse_args(struct request *r, int argc, char **argv)
{
    r->format = "cudyn";
    for (int i = 1; i < argc; i++) {
        int rc = parse_one(r, argc, argv, &i);
        if (rc != EXIT_OK)
            return rc;
    }
    if (r->action != DO_COMPILE)
        return EXIT_OK;
    if (!r->source_path)
        return usage_error("%s", "no source file given");
    if (!r->output)
        return usage_error("%s", "no output given (-o FILE)");
    if (!r->n_archs)
        return usage_error("%s", "no target given (--arch sm_80,compute_90)");
    bool single = strcmp(r->format, "cubin") == 0 || strcmp(r->format, "ptx") == 0;
    if (!single && strcmp(r->format, "cudyn") != 0 && strcmp(r->format, "fatbin") != 0)
        return usage_error("--format: '%s' is not cudyn, fatbin, cubin or ptx", r->format);
    if (single && (r->n_archs != 1 || (r->format[0] == 'c') != (strncmp(r->archs[0], "sm_", 3) == 0)))
        return usage_error("--format %s takes one target of its kind (sm_XY for cubin, compute_XY for ptx)",
                           r->format);
    return EXIT_OK;
}

/* ---------------------------------------------------------------- files */

static char *read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "cudyn-cc: cannot read %s: %s\n", path, strerror(errno));
        return NULL;
    }
    size_t cap = 65536, n = 0;
    char *buf = malloc(cap + 1);
    size_t got;
    while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap && cap < MAX_FILE_BYTES) {
            char *grown = realloc(buf, 2 * cap + 1);
            if (!grown) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = grown;
            cap *= 2;
        } else if (n == cap) {
            break;
        }
    }
    bool failed = !buf || ferror(f) || n == cap;
    fclose(f);
    if (failed) {
        fprintf(stderr, "cudyn-cc: cannot read %s: %s\n", path, buf ? "read error or larger than 64 MiB" : "out of memory");
        free(buf);
        return NULL;
    }
    buf[n] = '\0';
    return buf;
}

static int write_output(const char *path, const void *data, size_t n)
{
    bool to_stdout = strcmp(path, "-") == 0;
    FILE *f = to_stdout ? stdout : fopen(path, "wb");
    bool ok = f && fwrite(data, 1, n, f) == n;
    if (f && !to_stdout)
        ok &= fclose(f) == 0;
    else if (f)
        ok &= fflush(f) == 0;
    if (!ok) {
        fprintf(stderr, "cudyn-cc: cannot write %s: %s\n", path, strerror(errno));
        return EXIT_FILE;
    }
    return EXIT_OK;
}

/* -------------------------------------------------------------- actions */

/* The exit code for a cudyn failure, with its message on stderr. */
static int report(int status)
{
    cudyn_error e = {.size = sizeof e};
    cudyn_last_error(&e);
    fprintf(stderr, "cudyn-cc: %s\n", e.message[0] ? e.message : cudyn_status_string(status));
    if (status == CUDYN_ERROR_NVRTC_NOT_FOUND)
        return EXIT_NO_NVRTC;
    if (status == CUDYN_ERROR_NOT_SUPPORTED && strstr(e.message, "nvFatbin"))
        return EXIT_NO_NVFATBIN;
    return status == CUDYN_ERROR_COMPILE ? EXIT_COMPILE : EXIT_FAILED;
}

/* Compiles for one target; NVRTC's log (warnings, or the errors) on stderr. */
static int compile_one(const struct request *r, struct cudyn_compile_args *a, const char *arch, cudyn_program **out)
{
    const char *options[MAX_OPTIONS + 1];
    char target[64];
    snprintf(target, sizeof target, "--gpu-architecture=%s", arch);
    options[0] = target;
    memcpy(options + 1, r->options, (size_t)r->n_options * sizeof options[0]);
    a->options = options;
    a->num_options = r->n_options + 1;
    int st = cudyn_compile_ex(out, a);
    const char *log = *out ? cudyn_program_log(*out) : "";
    if (log[0])
        fprintf(stderr, "cudyn-cc: %s: NVRTC's log for %s:\n%s%s", r->source_path, arch, log,
                log[strlen(log) - 1] == '\n' ? "" : "\n");
    return st == CUDYN_OK ? EXIT_OK : report(st);
}

static int build_and_write(const struct request *r, cudyn_program *const *programs)
{
    if (strcmp(r->format, "cubin") == 0 || strcmp(r->format, "ptx") == 0) {
        size_t n = 0;
        const void *image = cudyn_program_image(programs[0], &n);
        if (strcmp(r->format, "ptx") == 0 && n > 0)
            n--; /* a .ptx file without the NUL */
        return write_output(r->output, image, n);
    }
    void *image = NULL;
    size_t n = 0;
    unsigned int format = strcmp(r->format, "fatbin") == 0 ? CUDYN_IMAGE_FATBIN : CUDYN_IMAGE_CUDYN;
    int st = cudyn_image_build(&image, &n, (const cudyn_program *const *)programs, r->n_archs, format);
    int rc = st == CUDYN_OK ? write_output(r->output, image, n) : report(st);
    cudyn_image_free(image);
    return rc;
}

static int compile(struct request *r)
{
    char *source = read_file(r->source_path);
    char *headers[MAX_HEADERS] = {0};
    int rc = source ? EXIT_OK : EXIT_FILE;
    for (int i = 0; i < r->n_headers && rc == EXIT_OK; i++)
        if (!(headers[i] = read_file(r->header_files[i])))
            rc = EXIT_FILE;
    cudyn_program *programs[MAX_ARCHS] = {0};
    struct cudyn_compile_args a = {.size = sizeof a, .source = source, .name = r->source_path, .device = CUDYN_DEVICE_NONE};
    a.header_names = r->header_names;
    a.header_sources = (const char *const *)headers;
    a.num_headers = r->n_headers;
    a.flags = CUDYN_COMPILE_NO_CACHE; /* a build step leaves the user's cache alone */
    for (int i = 0; i < r->n_archs && rc == EXIT_OK; i++)
        rc = compile_one(r, &a, r->archs[i], &programs[i]);
    if (rc == EXIT_OK)
        rc = build_and_write(r, programs);
    for (int i = 0; i < r->n_archs; i++)
        cudyn_program_free(programs[i]);
    for (int i = 0; i < r->n_headers; i++)
        free(headers[i]);
    free(source);
    return rc;
}

static int cache_info(void)
{
    struct cudyn_cache_info info = {.size = sizeof info};
    int st = cudyn_cache_info(&info);
    if (st != CUDYN_OK)
        return report(st);
    if (!info.enabled) {
        printf("cache: off (%s)\n", info.reason ? info.reason : "unknown reason");
        return EXIT_OK;
    }
    printf("directory: %s\nentries:   %llu\nbytes:     %llu\n", info.directory, (unsigned long long)info.entries,
           (unsigned long long)info.bytes);
    if (info.max_bytes)
        printf("limit:     %llu\n", (unsigned long long)info.max_bytes);
    else
        printf("limit:     none\n");
    return EXIT_OK;
}

static int cache_clear(void)
{
    uint64_t removed = 0;
    int st = cudyn_cache_clear(&removed);
    if (st != CUDYN_OK)
        return report(st);
    printf("removed %llu entr%s\n", (unsigned long long)removed, removed == 1 ? "y" : "ies");
    return EXIT_OK;
}

int main(int argc, char **argv)
{
    static struct request r;
    int rc = parse_args(&r, argc, argv);
    if (rc == EXIT_OK) {
        switch (r.action) {
        case DO_HELP: fputs(usage_text, stdout); break;
        case DO_VERSION: printf("cudyn-cc %s\n", cudyn_version()); break;
        case DO_CACHE_INFO: rc = cache_info(); break;
        case DO_CACHE_CLEAR: rc = cache_clear(); break;
        case DO_COMPILE: rc = compile(&r); break;
        }
    }
    for (int i = 0; i < r.n_options; i++)
        free(r.owned_options[i]);
    for (int i = 0; i < r.n_headers; i++)
        free((char *)r.header_names[i]);
    for (int i = 0; i < r.n_archs; i++)
        free(r.archs[i]);
    return rc;
}
