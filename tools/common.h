/*
 * common.h - what the tools share, stated once: exit codes (one table for
 * the three tools), option parsing (--json, --quiet, --help, --version and
 * usage errors), how a failure is reported (what went wrong, and the
 * library's hint on its own line), the start-up sequence (load the driver,
 * cuInit, count devices) and the loader's JSON object.
 */
#ifndef CUDYN_TOOLS_COMMON_H
#define CUDYN_TOOLS_COMMON_H

#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "cudyn.h"
#include "json.h"

/*
 * The exit codes of all three tools, one table: a number means the same
 * thing in every tool, and each tool uses the subset its letters say
 * (i cudainfo, s cudyn-saxpy, c cudyn-cc).  X(number, name, tools, what
 * --help says).  Every man page's EXIT STATUS lists exactly its tool's
 * subset (tests/check-exit-codes.sh); --help prints it from here.
 * Numbers are never reused for another meaning; new ones are appended.
 */
#define TOOL_EXIT_CODES(X)                                                                                       \
    X(0, EXIT_OK, "isc", "ok")                                                                                  \
    X(1, EXIT_WRONG, "s", "wrong result")                                                                       \
    X(2, EXIT_USAGE, "isc", "usage error")                                                                      \
    X(3, EXIT_NO_DRIVER, "is", "no driver library")                                                             \
    X(4, EXIT_INIT_FAILED, "is", "cuInit failed")            /* or the driver cannot count its devices */       \
    X(5, EXIT_NO_DEVICES, "is", "no or too few devices")                                                        \
    X(6, EXIT_DEVICE_NOT_FOUND, "is", "device not found")    /* a -d selector matches none, or several */       \
    X(7, EXIT_PARTIAL, "i", "partial failure")               /* something asked for could not be read */        \
    X(8, EXIT_CUDA_ERROR, "sc", "cudyn or CUDA error")       /* during the work; the message says which */      \
    X(9, EXIT_TIMEOUT, "s", "timeout")                       /* the watchdog fired */                           \
    X(10, EXIT_COMPILE, "c", "compile error")                /* NVRTC's log is on stderr */                     \
    X(11, EXIT_FILE, "c", "file error")                      /* an input unreadable, the output unwritable */   \
    X(12, EXIT_NO_NVRTC, "c", "NVRTC not found")                                                                \
    X(13, EXIT_NO_NVFATBIN, "c", "nvFatbin not found")

enum tool_exit {
#define TOOL_EXIT_ENUM(code, name, tools, what) name = code,
    TOOL_EXIT_CODES(TOOL_EXIT_ENUM)
#undef TOOL_EXIT_ENUM
};

/* "Exit codes: 0 ok, 2 usage error, ..." for the tool of letter `tool`
 * (see TOOL_EXIT_CODES), wrapped for --help. */
void exit_codes_print(FILE *out, char tool);

/* A failure as the tools report it: what went wrong, and the library's
 * hint apart (empty for the tools' own failures, which need none). */
struct failure {
    int exit_code; /* EXIT_OK: no failure */
    char what[1024];
    char hint[512];
};

/* From the calling thread's last cudyn error; `context` ("device 1"), if
 * not NULL, goes before what the library says. */
void failure_from_last_error(struct failure *f, int exit_code, const char *context);
/* As failure_from_last_error, from an error kept earlier (another
 * thread's, or one from before other calls). */
void failure_from_error(struct failure *f, int exit_code, const char *context, const cudyn_error *e);
/* A failure of the tool's own, with no hint. */
void failure_set(struct failure *f, int exit_code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* "TOOL: what" and "TOOL: hint: hint" on stderr, each once. */
void failure_print(const char *tool, const struct failure *f);
/* The message of a cudyn_error without its "; hint: ..." ending. */
void error_what(const cudyn_error *e, char *out, size_t cap);

/* ---- options ---- */

/* Option values of the options every tool has. */
enum { OPT_JSON = 1000, OPT_VERSION, OPT_FIRST_TOOL_OPTION };
#define TOOL_SHORT_OPTIONS ":qh" /* ':' first: a missing argument is told apart */
#define TOOL_LONG_OPTIONS                                                                                      \
    {"json", no_argument, NULL, OPT_JSON}, {"quiet", no_argument, NULL, 'q'},                                 \
        {"version", no_argument, NULL, OPT_VERSION}, {"help", no_argument, NULL, 'h'}

struct tool {
    const char *name;   /* "cudainfo" */
    char letter;        /* its letter in TOOL_EXIT_CODES */
    const char *schema; /* its JSON documents' schema; NULL: no --json */
    const char *ok;     /* result.status of a success ("ok", "PASS") */
    const char *usage;  /* the --help text, before the exit codes */
    bool json, quiet;
};

/* Takes one tool-specific option; on a bad value fills *f (EXIT_USAGE). */
typedef void (*option_fn)(void *options, int option, const char *arg, struct failure *f);

/*
 * Parses the command line.  Every argument is read even after a usage
 * error, so --json and -q anywhere still count and a usage error is
 * reported as JSON too.  Returns -1 to go on, or the exit code: EXIT_OK
 * after printing --help (the usage, then the tool's exit codes) or
 * --version, each as a JSON document with --json (where the tool has a
 * schema), EXIT_USAGE with *f naming the bad argument in one line.
 */
int tool_parse(struct tool *t, int argc, char **argv, const char *short_options, const struct option *long_options,
               option_fn take, void *options, struct failure *f);
/* Ends a usage error's message with " (see TOOL --help)", as tool_parse
 * does, for one found after it (a required argument missing). */
void failure_see_help(const struct tool *t, struct failure *f);

/* ---- start-up ---- */

/*
 * Loads the driver (and NVRTC too if `load` has CUDYN_LOAD_NVRTC), calls
 * cuInit and counts the devices.  *l is filled in any case.  Returns
 * EXIT_OK with *count > 0, or EXIT_NO_DRIVER, EXIT_INIT_FAILED or
 * EXIT_NO_DEVICES with *f filled from the library's error.
 */
int tool_start(struct cudyn_loader_info *l, unsigned int load, int *count, struct failure *f);

/* "580.95.05" from /proc/driver/nvidia/version, or "" if the kernel
 * module is not loaded. */
void kernel_module_version(char *out, size_t cap);

/* ---- JSON ---- */

/* Opens the document: its object, "schema" and "cudyn_version". */
void json_document_begin(struct json *j, const char *schema);
/* The "loader" object: driver and NVRTC as found, and the kernel module's
 * version as kernel_module_version read it; traces too if asked. */
void json_loader(struct json *j, const struct cudyn_loader_info *l, const char *kernel_module, bool traces);
/* The "result" object: exit_code, status (the tool's word), message, hint. */
void json_result(struct json *j, int exit_code, const char *status, const struct failure *f);

/* Milliseconds on a monotonic clock. */
double now_ms(void);

#endif
