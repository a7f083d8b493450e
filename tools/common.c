/*
 * common.c - see common.h.
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common.h"

/* ------------------------------------------------------------- failures */

void error_what(const cudyn_error *e, char *out, size_t cap)
{
    /* The library appends exactly "; hint: " and the hint to its message;
     * a message cut short at the size limit may end inside that suffix. */
    static const char sep[] = "; hint: ";
    size_t len = strlen(e->message);
    if (e->hint[0]) {
        const char *cut = NULL;
        for (const char *p = strstr(e->message, sep); p; p = strstr(p + 1, sep))
            if (strncmp(p + strlen(sep), e->hint, len - (size_t)(p - e->message) - strlen(sep)) == 0)
                cut = p;
        if (cut)
            len = (size_t)(cut - e->message);
    }
    snprintf(out, cap, "%.*s", (int)len, e->message);
}

void failure_from_error(struct failure *f, int exit_code, const char *context, const cudyn_error *e)
{
    char what[sizeof e->message];
    error_what(e, what, sizeof what);
    f->exit_code = exit_code;
    snprintf(f->what, sizeof f->what, "%s%s%s", context ? context : "", context ? ": " : "",
             what[0] ? what : cudyn_status_string(e->status));
    snprintf(f->hint, sizeof f->hint, "%s", e->hint);
}

void failure_from_last_error(struct failure *f, int exit_code, const char *context)
{
    cudyn_error e = {.size = sizeof e};
    cudyn_last_error(&e);
    failure_from_error(f, exit_code, context, &e);
}

void failure_set(struct failure *f, int exit_code, const char *fmt, ...)
{
    f->exit_code = exit_code;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(f->what, sizeof f->what, fmt, ap);
    va_end(ap);
    f->hint[0] = '\0';
}

void failure_print(const char *tool, const struct failure *f)
{
    if (f->what[0])
        fprintf(stderr, "%s: %s\n", tool, f->what);
    if (f->hint[0])
        fprintf(stderr, "%s: hint: %s\n", tool, f->hint);
}

/* -------------------------------------------------------------- options */

/* The argument getopt just rejected, as the user wrote it: "--bogus" (cut
 * at '='), or "-z" out of a group of short options such as "-qz". */
static void bad_option(char *out, size_t cap, const char *arg, int option_char)
{
    if (strncmp(arg, "--", 2) != 0 && option_char > 0 && option_char < 128)
        snprintf(out, cap, "-%c", option_char);
    else
        snprintf(out, cap, "%.*s", (int)strcspn(arg, "="), arg);
}

void failure_see_help(const struct tool *t, struct failure *f)
{
    size_t len = strlen(f->what);
    snprintf(f->what + len, sizeof f->what - len, " (see %s --help)", t->name);
}

/* Records the first usage error only: it is the one to fix first. */
static void usage_error(struct failure *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void usage_error(struct failure *f, const char *fmt, ...)
{
    if (f->exit_code != EXIT_OK)
        return;
    va_list ap;
    va_start(ap, fmt);
    f->exit_code = EXIT_USAGE;
    vsnprintf(f->what, sizeof f->what, fmt, ap);
    f->hint[0] = '\0';
    va_end(ap);
}

void exit_codes_print(FILE *out, char tool)
{
    static const struct {
        int code;
        const char *tools, *what;
    } codes[] = {
#define EXIT_ROW(code, name, tools, what) {code, tools, what},
        TOOL_EXIT_CODES(EXIT_ROW)
#undef EXIT_ROW
    };
    int column = fprintf(out, "Exit codes:");
    bool first = true;
    for (size_t i = 0; i < sizeof codes / sizeof codes[0]; i++) {
        if (!strchr(codes[i].tools, tool))
            continue;
        char item[64];
        int n = snprintf(item, sizeof item, "%s%d %s", first ? "" : ",", codes[i].code, codes[i].what);
        if (!first && column + n > 78) { /* the comma stays on the line it ends */
            fputs(",\n", out);
            column = fprintf(out, "%s", item + 1);
        } else {
            column += fprintf(out, "%s%s", first ? " " : ", ", first ? item : item + 1);
        }
        first = false;
    }
    fputs(".\n", out);
}

/* --help or --version as a document of the tool's schema: its head, the
 * loader block (described, nothing loaded, as for a usage error), the
 * text asked for, and the result. */
static void help_version_json(const struct tool *t, bool help)
{
    struct cudyn_loader_info l = {.size = sizeof l};
    cudyn_loader_info_ex(&l, CUDYN_LOAD_NOTHING);
    char kernel_module[64];
    kernel_module_version(kernel_module, sizeof kernel_module);
    struct json j;
    json_init(&j, stdout);
    json_document_begin(&j, t->schema);
    json_loader(&j, &l, kernel_module, false);
    if (help) {
        /* the same text as without --json, in one string */
        char *text = NULL;
        size_t n = 0;
        FILE *mem = open_memstream(&text, &n);
        if (mem) {
            fputs(t->usage, mem);
            exit_codes_print(mem, t->letter);
            fclose(mem);
        }
        json_string(&j, "help", text ? text : t->usage);
        free(text);
    } else {
        json_string(&j, "version", cudyn_version());
    }
    struct failure none = {.exit_code = EXIT_OK};
    json_result(&j, EXIT_OK, t->ok, &none);
    json_object_end(&j);
    json_finish(&j);
}

/* What the command line asks for besides running. */
struct request {
    bool help, version;
};

/* One option as getopt returned it, read from argument `from`: the
 * options every tool has, errors, and the tool's own (to take()). */
static void take_one(struct tool *t, int c, const char *from, option_fn take, void *options, struct failure *f,
                     struct request *req)
{
    char arg[256];
    switch (c) {
    case OPT_JSON: t->json = true; break;
    case 'q': t->quiet = true; break;
    case 'h': req->help = true; break;
    case OPT_VERSION: req->version = true; break;
    case '?':
        bad_option(arg, sizeof arg, from, optopt);
        if (!optopt)
            usage_error(f, "unrecognized option '%s'", arg);
        else if (strncmp(from, "--", 2) == 0) /* known, but given a value: "--all=3" */
            usage_error(f, "option '%s' takes no value", arg);
        else
            usage_error(f, "invalid option '%s'", arg);
        break;
    case ':':
        bad_option(arg, sizeof arg, from, optopt);
        usage_error(f, "missing value for option '%s'", arg);
        break;
    default:
        if (f->exit_code == EXIT_OK)
            take(options, c, optarg, f);
        break;
    }
}

int tool_parse(struct tool *t, int argc, char **argv, const char *short_options, const struct option *long_options,
               option_fn take, void *options, struct failure *f)
{
    struct request req = {false, false};
    opterr = 0; /* errors are reported here, in one line, and in JSON */
    for (;;) {
        int last = optind;
        int c = getopt_long(argc, argv, short_options, long_options, NULL);
        if (c == -1)
            break;
        /* the argument getopt read the option from (it moves on past a
         * group of short options only after its last one) */
        take_one(t, c, argv[optind > last ? optind - 1 : last], take, options, f, &req);
    }
    if (optind < argc)
        usage_error(f, "unexpected argument '%s'", argv[optind]);
    if (f->exit_code != EXIT_OK) {
        failure_see_help(t, f);
        return EXIT_USAGE;
    }
    if (!req.help && !req.version)
        return -1;
    if (t->json && t->schema) /* --json promises JSON on every path, these too */
        help_version_json(t, req.help);
    else if (req.help) {
        fputs(t->usage, stdout);
        exit_codes_print(stdout, t->letter);
    } else {
        printf("%s (cudyn) %s\n", t->name, cudyn_version());
    }
    return EXIT_OK;
}

/* -------------------------------------------------------------- start-up */

int tool_start(struct cudyn_loader_info *l, unsigned int load, int *count, struct failure *f)
{
    *count = 0;
    l->size = sizeof *l;
    /* a driver that cannot be loaded or initialised leaves its error as
     * this thread's last error, with the library's hint */
    cudyn_loader_info_ex(l, load | CUDYN_LOAD_DRIVER);
    if (l->driver_status != CUDYN_OK) {
        failure_from_last_error(f, EXIT_NO_DRIVER, NULL);
        return f->exit_code;
    }
    if (l->init_status != CUDYN_OK && l->init_status != CUDYN_ERROR_NO_DEVICE) {
        failure_from_last_error(f, EXIT_INIT_FAILED, NULL);
        return f->exit_code;
    }
    if (cudyn_device_count(count) != CUDYN_OK) {
        failure_from_last_error(f, EXIT_INIT_FAILED, NULL);
        return f->exit_code;
    }
    if (*count == 0) {
        if (l->init_status == CUDYN_ERROR_NO_DEVICE)
            failure_from_last_error(f, EXIT_NO_DEVICES, NULL);
        else
            failure_set(f, EXIT_NO_DEVICES, "the driver reports no CUDA device");
        return f->exit_code;
    }
    return EXIT_OK;
}

void kernel_module_version(char *out, size_t cap)
{
    /* the first word of the first line that looks like a version: digits
     * with at least one dot ("NVRM version: NVIDIA UNIX ... 580.95.05 ...") */
    out[0] = '\0';
    FILE *f = fopen("/proc/driver/nvidia/version", "r");
    if (!f)
        return;
    char line[512];
    if (fgets(line, sizeof line, f)) {
        char *save = NULL;
        for (char *w = strtok_r(line, " \t\n", &save); w; w = strtok_r(NULL, " \t\n", &save)) {
            size_t digits = strspn(w, "0123456789."), n = strlen(w);
            if (n > 0 && digits == n && w[0] != '.' && strchr(w, '.')) {
                snprintf(out, cap, "%s", w);
                break;
            }
        }
    }
    fclose(f);
}

/* ------------------------------------------------------------------ JSON */

void json_document_begin(struct json *j, const char *schema)
{
    json_object_begin(j, NULL);
    json_string(j, "schema", schema);
    json_string(j, "cudyn_version", cudyn_version());
}

static void json_driver(struct json *j, const struct cudyn_loader_info *l, const char *kernel_module)
{
    bool ok = l->driver_status == CUDYN_OK;
    json_object_begin(j, "driver");
    json_string(j, "status", cudyn_status_name(l->driver_status));
    json_string(j, "init_status", cudyn_status_name(l->init_status));
    json_string(j, "path", l->driver_path);
    json_string(j, "found_by", l->driver_found_by);
    json_int_or_null(j, "version", l->driver_version != 0, l->driver_version);
    json_string(j, "entry_mechanism", ok ? l->entry_mechanism_name : NULL);
    json_int(j, "symbols_bound", l->symbols_bound);
    json_int(j, "symbols_missing", l->symbols_missing);
    json_bool(j, "per_thread_stream", l->per_thread_stream != 0);
    json_string(j, "kernel_module_version", kernel_module[0] ? kernel_module : NULL);
    json_double(j, "load_ms", l->driver_load_ms);
    json_double(j, "init_ms", l->init_ms);
    /* the forward-compat decision (CUDYN_COMPAT), as cudyn_loader_info gives it */
    json_object_begin(j, "compat");
    json_string(j, "policy", l->compat_policy);
    json_bool(j, "driver_is_compat", l->driver_is_compat != 0);
    json_string(j, "driver_release", l->driver_release);
    json_string(j, "kernel_module_file", l->kernel_module_file);
    json_string(j, "compat_path", l->compat_path);
    json_int_or_null(j, "probe_result", l->compat_probe_result != 0, l->compat_probe_result);
    json_string(j, "decision", l->compat_decision);
    json_object_end(j);
    json_object_end(j);
}

static void json_nvrtc(struct json *j, const struct cudyn_loader_info *l)
{
    json_object_begin(j, "nvrtc");
    /* CUDYN_ERROR_NOT_READY: not loaded because nothing needed it */
    json_string(j, "status", cudyn_status_name(l->nvrtc_status));
    json_string(j, "path", l->nvrtc_path);
    json_string(j, "found_by", l->nvrtc_found_by);
    json_int_or_null(j, "version", l->nvrtc_version != 0, l->nvrtc_version);
    json_string(j, "builtins_path", l->nvrtc_builtins_path);
    json_double_or_null(j, "load_ms", l->nvrtc_status != CUDYN_ERROR_NOT_READY, l->nvrtc_load_ms);
    json_object_end(j);
}

void json_loader(struct json *j, const struct cudyn_loader_info *l, const char *kernel_module, bool traces)
{
    json_object_begin(j, "loader");
    json_driver(j, l, kernel_module);
    json_nvrtc(j, l);
    if (traces) {
        json_string(j, "driver_trace", l->driver_trace);
        json_string(j, "nvrtc_trace", l->nvrtc_trace);
    }
    json_object_end(j);
}

void json_result(struct json *j, int exit_code, const char *status, const struct failure *f)
{
    json_object_begin(j, "result");
    json_int(j, "exit_code", exit_code);
    json_string(j, "status", status);
    json_string(j, "message", f->what[0] ? f->what : NULL);
    json_string(j, "hint", f->hint[0] ? f->hint : NULL);
    json_object_end(j);
}

double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}
