/*
 * cudyn-cc - compile CUDA C++ with NVRTC alone (no nvcc, no GPU) into one
 * image for several architectures, which cudyn_module_load_image loads on
 * a machine without NVRTC; and show or clear the kernel cache.  See
 * man/cudyn-cc.1.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common.h"
#include "cudyn.h"

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
    "  --nvcc-names        give device code what nvcc gives it without #include\n"
    "                      (uint, M_PI, INT_MAX, malloc, std::sqrt ...)\n"
    "  -Xnvrtc OPTION      pass OPTION to NVRTC unchanged\n"
    "  --cache-info        show the kernel cache (directory, entries, size, limit)\n"
    "  --cache-clear       remove every entry of the kernel cache\n"
    "  -h, --help          show this help\n"
    "  --version           show the version\n"
    "\n";

struct request {
    char **argv; /* -Xnvrtc takes its value from the next argument */
    const char *output, *source_path;
    const char *format;
    bool format_given;
    char *archs[MAX_ARCHS]; /* each target once, from every --arch; freed at exit */
    int n_archs;
    char *options[MAX_OPTIONS]; /* for NVRTC ("-I" "DIR" joined); freed at exit */
    int n_options;
    const char *header_names[MAX_HEADERS];
    const char *header_files[MAX_HEADERS];
    int n_headers;
    enum { DO_COMPILE, DO_CACHE_INFO, DO_CACHE_CLEAR } action;
};

/* ---------------------------------------------------------------- options */

/* An NVRTC option from a flag and its value ("-I" "dir" -> "-Idir"). */
static void add_option(struct request *r, struct failure *f, const char *flag, const char *value)
{
    if (r->n_options >= MAX_OPTIONS) {
        failure_set(f, EXIT_USAGE, "%s: more than %d options", flag, MAX_OPTIONS);
        return;
    }
    size_t n = strlen(flag) + strlen(value) + 1;
    if (!(r->options[r->n_options] = malloc(n))) {
        failure_set(f, EXIT_USAGE, "%s: out of memory", flag);
        return;
    }
    snprintf(r->options[r->n_options++], n, "%s%s", flag, value);
}

/* One target of --arch: well-formed, and not given before.  The compute
 * capability is written as NVRTC writes it, 2 or 3 digits with no leading
 * zero (sm_90, sm_100): so each target has one spelling, which the "given
 * twice" check compares, and a malformed one (sm_00, sm_090, sm_9999) is a
 * usage error here rather than NVRTC's. */
static void add_arch(struct request *r, struct failure *f, const char *tok)
{
    bool sm = strncmp(tok, "sm_", 3) == 0, compute = strncmp(tok, "compute_", 8) == 0;
    const char *digits = sm ? tok + 3 : tok + 8;
    size_t n_digits = strlen(digits);
    if ((!sm && !compute) || n_digits < 2 || n_digits > 3 || strspn(digits, "0123456789") != n_digits ||
        digits[0] == '0') {
        failure_set(f, EXIT_USAGE, "--arch: '%s' is not sm_XY or compute_XY (2 or 3 digits, no leading zero: sm_90)",
                    tok);
        return;
    }
    for (int i = 0; i < r->n_archs; i++)
        if (strcmp(r->archs[i], tok) == 0) {
            failure_set(f, EXIT_USAGE, "--arch: '%s' given twice", tok);
            return;
        }
    if (r->n_archs >= MAX_ARCHS)
        failure_set(f, EXIT_USAGE, "--arch: more than %d targets", MAX_ARCHS);
    else if (!(r->archs[r->n_archs] = strdup(tok)))
        failure_set(f, EXIT_USAGE, "--arch: out of memory");
    else
        r->n_archs++;
}

/* A comma-separated list of targets; --arch may be given again. */
static void split_archs(struct request *r, struct failure *f, const char *list)
{
    char *copy = strdup(list);
    if (!copy) {
        failure_set(f, EXIT_USAGE, "--arch: out of memory");
        return;
    }
    int before = r->n_archs;
    char *save = NULL;
    for (char *tok = strtok_r(copy, ",", &save); tok && f->exit_code == EXIT_OK; tok = strtok_r(NULL, ",", &save))
        add_arch(r, f, tok);
    free(copy);
    if (f->exit_code == EXIT_OK && r->n_archs == before)
        failure_set(f, EXIT_USAGE, "--arch: no target given");
}

static void add_header(struct request *r, struct failure *f, const char *spec)
{
    const char *eq = strchr(spec, '=');
    if (!eq || eq == spec || !eq[1])
        failure_set(f, EXIT_USAGE, "--header: '%s' is not NAME=FILE", spec);
    else if (r->n_headers >= MAX_HEADERS)
        failure_set(f, EXIT_USAGE, "--header: more than %d headers", MAX_HEADERS);
    else if (!(r->header_names[r->n_headers] = strndup(spec, (size_t)(eq - spec))))
        failure_set(f, EXIT_USAGE, "--header: out of memory");
    else
        r->header_files[r->n_headers++] = eq + 1;
}

enum {
    OPT_SOURCE = 1, /* getopt's code for an argument that is no option ('-' leads the short options) */
    OPT_ARCH = OPT_FIRST_TOOL_OPTION,
    OPT_FORMAT,
    OPT_STD,
    OPT_HEADER,
    OPT_NVCC_NAMES,
    OPT_CACHE_INFO,
    OPT_CACHE_CLEAR
};

/* An NVRTC option that chooses the target (--gpu-architecture, -arch, with
 * or without "=VALUE"): it would override --arch for every compile. */
static bool names_target(const char *option)
{
    static const char *const names[] = {"--gpu-architecture", "-gpu-architecture", "-arch", "--arch"};
    size_t len = strcspn(option, "=");
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strlen(names[i]) == len && strncmp(option, names[i], len) == 0)
            return true;
    return false;
}

static void take_option(void *options, int c, const char *arg, struct failure *f)
{
    struct request *r = options;
    switch (c) {
    case OPT_SOURCE:
        if (r->source_path)
            failure_set(f, EXIT_USAGE, "one source file only ('%s' is a second)", arg);
        else
            r->source_path = arg;
        break;
    case 'o': r->output = arg; break;
    case OPT_ARCH: split_archs(r, f, arg); break;
    case OPT_FORMAT:
        r->format = arg;
        r->format_given = true;
        break;
    case OPT_HEADER: add_header(r, f, arg); break;
    case OPT_NVCC_NAMES: add_option(r, f, "", CUDYN_OPTION_NVCC_NAMES); break;
    case OPT_STD: add_option(r, f, "--std=", arg); break;
    case 'I': add_option(r, f, "-I", arg); break;
    case 'D': add_option(r, f, "-D", arg); break;
    case 'X': /* getopt reads -Xnvrtc as -X with "nvrtc": the option is the next argument */
        if (strcmp(arg, "nvrtc") != 0)
            failure_set(f, EXIT_USAGE, "invalid option '-X%s'", arg);
        else if (!r->argv[optind])
            failure_set(f, EXIT_USAGE, "missing value for option '-Xnvrtc'");
        else if (names_target(r->argv[optind]))
            failure_set(f, EXIT_USAGE, "-Xnvrtc %s: targets are given with --arch only (one compile each)",
                        r->argv[optind]);
        else
            add_option(r, f, "", r->argv[optind++]);
        break;
    case OPT_CACHE_INFO:
    case OPT_CACHE_CLEAR:
        if (r->action != DO_COMPILE)
            failure_set(f, EXIT_USAGE, "--cache-info and --cache-clear exclude each other");
        r->action = c == OPT_CACHE_INFO ? DO_CACHE_INFO : DO_CACHE_CLEAR;
        break;
    }
}

/* Fills *f if the output is one of the inputs (the source or a --header
 * file): the same file by device and inode, so that the name itself, a
 * symbolic link to it (stat follows it, on either side) and a hard link
 * are all refused, and a slip such as -o k.cu never replaces the source
 * with an image. */
static void refuse_output_as_input(const struct request *r, struct failure *f)
{
    struct stat out;
    if (strcmp(r->output, "-") == 0 || stat(r->output, &out) != 0)
        return; /* standard output, or a file still to be made */
    for (int i = -1; i < r->n_headers; i++) {
        const char *input = i < 0 ? r->source_path : r->header_files[i];
        struct stat in;
        if (stat(input, &in) == 0 && in.st_dev == out.st_dev && in.st_ino == out.st_ino) {
            failure_set(f, EXIT_USAGE, "the output '%s' is the input '%s'; it would be overwritten", r->output, input);
            return;
        }
    }
}

/* Returns -1 to go on, or the exit code (after --help or --version, or a
 * usage error in *f). */
static int parse_args(struct tool *t, struct request *r, int argc, char **argv, struct failure *f)
{
    static const struct option long_options[] = {
        {"arch", required_argument, NULL, OPT_ARCH},
        {"format", required_argument, NULL, OPT_FORMAT},
        {"std", required_argument, NULL, OPT_STD},
        {"header", required_argument, NULL, OPT_HEADER},
        {"nvcc-names", no_argument, NULL, OPT_NVCC_NAMES},
        {"cache-info", no_argument, NULL, OPT_CACHE_INFO},
        {"cache-clear", no_argument, NULL, OPT_CACHE_CLEAR},
        {"version", no_argument, NULL, OPT_VERSION},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    r->argv = argv;
    r->format = "cudyn";
    int code = tool_parse(t, argc, argv, "-:ho:I:D:X:", long_options, take_option, r, f);
    if (code >= 0)
        return code;
    if (r->action != DO_COMPILE) {
        /* the cache commands act on the user's cache as a whole: a
         * compile argument beside them would be ignored, so it is refused */
        if (!r->source_path && !r->output && !r->n_archs && !r->n_options && !r->n_headers && !r->format_given)
            return -1;
        failure_set(f, EXIT_USAGE, "%s takes no compile arguments",
                    r->action == DO_CACHE_INFO ? "--cache-info" : "--cache-clear");
        failure_see_help(t, f);
        return EXIT_USAGE;
    }
    bool single = strcmp(r->format, "cubin") == 0 || strcmp(r->format, "ptx") == 0;
    if (!r->source_path)
        failure_set(f, EXIT_USAGE, "no source file given");
    else if (!r->output)
        failure_set(f, EXIT_USAGE, "no output given (-o FILE)");
    else if (!r->n_archs)
        failure_set(f, EXIT_USAGE, "no target given (--arch sm_80,compute_90)");
    else if (!single && strcmp(r->format, "cudyn") != 0 && strcmp(r->format, "fatbin") != 0)
        failure_set(f, EXIT_USAGE, "--format: '%s' is not cudyn, fatbin, cubin or ptx", r->format);
    else if (single && (r->n_archs != 1 || (r->format[0] == 'c') != (strncmp(r->archs[0], "sm_", 3) == 0)))
        failure_set(f, EXIT_USAGE, "--format %s takes one target of its kind (sm_XY for cubin, compute_XY for ptx)",
                    r->format);
    else
        refuse_output_as_input(r, f);
    if (f->exit_code == EXIT_OK)
        return -1;
    failure_see_help(t, f);
    return EXIT_USAGE;
}

/* ---------------------------------------------------------------- files */

/* An input (the source, a --header file) whole, NUL-terminated: a file
 * of at most MAX_FILE_BYTES (the limit included) with no NUL byte. */
static char *read_file(const char *path)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd >= 0 && fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
        close(fd);
        fd = -1;
        errno = EISDIR; /* said as such, not as a failed read */
    }
    if (fd < 0) {
        fprintf(stderr, "cudyn-cc: cannot read %s: %s\n", path, strerror(errno));
        return NULL;
    }
    /* read up to one byte past the limit: only then is the file too large */
    size_t cap = 65536, n = 0;
    char *buf = malloc(cap + 1);
    const char *why = buf ? NULL : "out of memory";
    while (!why) {
        if (n == cap) {
            if (cap > MAX_FILE_BYTES) {
                why = "larger than 64 MiB, the limit for a source or header";
                break;
            }
            size_t grown_cap = cap * 2 > MAX_FILE_BYTES ? MAX_FILE_BYTES + 1 : cap * 2;
            char *grown = realloc(buf, grown_cap + 1);
            if (!grown) {
                why = "out of memory";
                break;
            }
            buf = grown;
            cap = grown_cap;
        }
        ssize_t got = read(fd, buf + n, cap - n);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0)
            why = strerror(errno);
        else if (got == 0)
            break;
        else
            n += (size_t)got;
    }
    close(fd);
    if (why) {
        fprintf(stderr, "cudyn-cc: cannot read %s: %s\n", path, why);
        free(buf);
        return NULL;
    }
    /* NVRTC takes a source or header as a C string: it would compile only
     * up to the first NUL, silently */
    const char *nul = memchr(buf, '\0', n);
    if (nul) {
        fprintf(stderr, "cudyn-cc: %s: a NUL byte at offset %zu; a source or header must be text\n", path,
                (size_t)(nul - buf));
        free(buf);
        return NULL;
    }
    buf[n] = '\0';
    return buf;
}

/* Writes all n bytes; false with errno set on a failure (ENOSPC, EFBIG). */
static bool write_all(int fd, const char *data, size_t n)
{
    while (n > 0) {
        ssize_t put = write(fd, data, n);
        if (put < 0 && errno == EINTR)
            continue;
        if (put <= 0)
            return false;
        data += put;
        n -= (size_t)put;
    }
    return true;
}

/*
 * Writes the output whole or not at all: into a new file in the output's
 * directory, renamed over the output only once complete, so that a failed
 * write (a full disk, a file size limit) leaves a previous output as it
 * was and no partial file behind.  The new file gets the previous
 * output's permissions, or those a created file gets (0666 less the
 * umask).  Through a symbolic link, the file it points to is replaced.  An
 * output that exists and is not a regular file (/dev/null, a pipe) is
 * written in place: it cannot be replaced.
 */
static int write_output(const char *path, const void *data, size_t n)
{
    if (strcmp(path, "-") == 0) {
        if (fwrite(data, 1, n, stdout) == n && fflush(stdout) == 0)
            return EXIT_OK;
        fprintf(stderr, "cudyn-cc: cannot write to standard output: %s\n", strerror(errno));
        return EXIT_FILE;
    }
    struct stat st;
    bool exists = stat(path, &st) == 0;
    if (exists && S_ISDIR(st.st_mode)) {
        fprintf(stderr, "cudyn-cc: cannot write %s: %s\n", path, strerror(EISDIR));
        return EXIT_FILE;
    }
    if (exists && !S_ISREG(st.st_mode)) {
        int fd = open(path, O_WRONLY | O_CLOEXEC);
        bool ok = fd >= 0 && write_all(fd, data, n);
        int saved = errno;
        if (fd >= 0 && close(fd) != 0 && ok) {
            ok = false;
            saved = errno;
        }
        if (ok)
            return EXIT_OK;
        fprintf(stderr, "cudyn-cc: cannot write %s: %s\n", path, strerror(saved));
        return EXIT_FILE;
    }
    char *resolved = exists ? realpath(path, NULL) : NULL; /* a symbolic link's target */
    const char *final = resolved ? resolved : path;
    const char *base = strrchr(final, '/');
    int dir_len = base ? (int)(base - final + 1) : 0;
    base = base ? base + 1 : final;
    size_t cap = strlen(final) + sizeof ".cudyn-cc-XXXXXX" + 1;
    char *temp = malloc(cap);
    int rc = EXIT_FILE, saved = ENOMEM;
    if (temp) {
        snprintf(temp, cap, "%.*s.%s.XXXXXX", dir_len, final, base);
        mode_t mode = 0666;
        if (exists) {
            mode = st.st_mode & 0777;
        } else {
            mode_t mask = umask(0); /* read it: there is no other way */
            umask(mask);
            mode &= ~mask;
        }
        int fd = mkostemp(temp, O_CLOEXEC);
        bool ok = fd >= 0 && fchmod(fd, mode) == 0 && write_all(fd, data, n);
        saved = errno;
        if (fd >= 0 && close(fd) != 0 && ok) {
            ok = false;
            saved = errno;
        }
        if (ok && rename(temp, final) != 0) {
            ok = false;
            saved = errno;
        }
        if (!ok && fd >= 0)
            unlink(temp);
        rc = ok ? EXIT_OK : EXIT_FILE;
    }
    if (rc != EXIT_OK)
        fprintf(stderr, "cudyn-cc: cannot write %s: %s\n", path, strerror(saved));
    free(temp);
    free(resolved);
    return rc;
}

/* -------------------------------------------------------------- actions */

/* The exit code for a cudyn failure, with what failed and the library's
 * hint on stderr. */
static int report(int status)
{
    struct failure f;
    failure_from_last_error(&f, EXIT_CUDA_ERROR, NULL);
    if (status == CUDYN_ERROR_NVRTC_NOT_FOUND)
        f.exit_code = EXIT_NO_NVRTC;
    else if (status == CUDYN_ERROR_NOT_SUPPORTED && (strstr(f.what, "nvFatbin") || strstr(f.hint, "nvFatbin")))
        f.exit_code = EXIT_NO_NVFATBIN;
    else if (status == CUDYN_ERROR_COMPILE)
        f.exit_code = EXIT_COMPILE;
    failure_print("cudyn-cc", &f);
    return f.exit_code;
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
    static struct tool t = {.name = "cudyn-cc", .letter = 'c', .usage = usage_text};
    static struct request r;
    struct failure f = {0};
    /* past a file size limit (ulimit -f), write() then fails with EFBIG,
     * which is reported, instead of the signal ending the process with a
     * partial file */
    signal(SIGXFSZ, SIG_IGN);
    int rc = parse_args(&t, &r, argc, argv, &f);
    if (rc == EXIT_USAGE)
        failure_print(t.name, &f);
    else if (rc < 0 && r.action == DO_CACHE_INFO)
        rc = cache_info();
    else if (rc < 0 && r.action == DO_CACHE_CLEAR)
        rc = cache_clear();
    else if (rc < 0)
        rc = compile(&r);
    for (int i = 0; i < r.n_options; i++)
        free(r.options[i]);
    for (int i = 0; i < r.n_headers; i++)
        free((char *)r.header_names[i]);
    for (int i = 0; i < r.n_archs; i++)
        free(r.archs[i]);
    return rc;
}
