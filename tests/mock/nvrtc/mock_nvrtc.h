/*
 * mock_nvrtc.h - internals shared by the files of the mock NVRTC (a fake
 * libnvrtc.so.13 for tests; see mock_nvrtc.c).  Not for tests: they use
 * mock_nvrtc_control.h.
 *
 * The NVRTC ABI is declared here, not taken from <nvrtc.h>, as cudyn's
 * lib/cuda_abi.h does: the values are those of CUDA 13.0's nvrtc.h.
 */
#ifndef CUDYN_MOCK_NVRTC_H
#define CUDYN_MOCK_NVRTC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifndef MOCK_NVRTC_LEGACY
#define MOCK_NVRTC_LEGACY 0
#endif

/* The library is built with -fvisibility=hidden: only what NVRTC exports
 * (and the mock_nvrtc_* inspection functions) is visible. */
#define MOCK_EXPORT __attribute__((visibility("default")))

typedef enum {
    NVRTC_SUCCESS = 0,
    NVRTC_ERROR_OUT_OF_MEMORY = 1,
    NVRTC_ERROR_PROGRAM_CREATION_FAILURE = 2,
    NVRTC_ERROR_INVALID_INPUT = 3,
    NVRTC_ERROR_INVALID_PROGRAM = 4,
    NVRTC_ERROR_INVALID_OPTION = 5,
    NVRTC_ERROR_COMPILATION = 6,
    NVRTC_ERROR_BUILTIN_OPERATION_FAILURE = 7,
    NVRTC_ERROR_NO_NAME_EXPRESSIONS_AFTER_COMPILATION = 8,
    NVRTC_ERROR_NO_LOWERED_NAMES_BEFORE_COMPILATION = 9,
    NVRTC_ERROR_NAME_EXPRESSION_NOT_VALID = 10,
    NVRTC_ERROR_INTERNAL_ERROR = 11,
    NVRTC_ERROR_TIME_FILE_WRITE_FAILED = 12,
    NVRTC_ERROR_NO_PCH_CREATE_ATTEMPTED = 13,
    NVRTC_ERROR_PCH_CREATE_HEAP_EXHAUSTED = 14,
    NVRTC_ERROR_PCH_CREATE = 15,
    NVRTC_ERROR_CANCELLED = 16,
    NVRTC_ERROR_TIME_TRACE_FILE_WRITE_FAILED = 17,
} nvrtcResult;

typedef struct _nvrtcProgram *nvrtcProgram;

/* What the mock exports, with NVRTC's signatures.  A build for NVRTC
 * before 11.2 (MOCK_NVRTC_LEGACY) lacks the architecture list, as those
 * versions do. */
MOCK_EXPORT const char *nvrtcGetErrorString(nvrtcResult result);
MOCK_EXPORT nvrtcResult nvrtcVersion(int *major, int *minor);
#if !MOCK_NVRTC_LEGACY
MOCK_EXPORT nvrtcResult nvrtcGetNumSupportedArchs(int *num_archs);
MOCK_EXPORT nvrtcResult nvrtcGetSupportedArchs(int *archs);
#endif
MOCK_EXPORT nvrtcResult nvrtcCreateProgram(nvrtcProgram *prog, const char *src, const char *name, int num_headers,
                                           const char *const *headers, const char *const *include_names);
MOCK_EXPORT nvrtcResult nvrtcDestroyProgram(nvrtcProgram *prog);
MOCK_EXPORT nvrtcResult nvrtcCompileProgram(nvrtcProgram prog, int num_options, const char *const *options);
MOCK_EXPORT nvrtcResult nvrtcGetPTXSize(nvrtcProgram prog, size_t *size);
MOCK_EXPORT nvrtcResult nvrtcGetPTX(nvrtcProgram prog, char *ptx);
MOCK_EXPORT nvrtcResult nvrtcGetCUBINSize(nvrtcProgram prog, size_t *size);
MOCK_EXPORT nvrtcResult nvrtcGetCUBIN(nvrtcProgram prog, char *cubin);
MOCK_EXPORT nvrtcResult nvrtcGetProgramLogSize(nvrtcProgram prog, size_t *size);
MOCK_EXPORT nvrtcResult nvrtcGetProgramLog(nvrtcProgram prog, char *log);
MOCK_EXPORT nvrtcResult nvrtcAddNameExpression(nvrtcProgram prog, const char *const name_expression);
MOCK_EXPORT nvrtcResult nvrtcGetLoweredName(nvrtcProgram prog, const char *const name_expression,
                                            const char **lowered_name);

/* For tests (through mock_nvrtc_control.h). */
MOCK_EXPORT long mock_nvrtc_calls(const char *fn);
MOCK_EXPORT void mock_nvrtc_fail_next(const char *fn, int code);
MOCK_EXPORT long mock_nvrtc_live_programs(void);
MOCK_EXPORT long mock_nvrtc_most_compiling(void);

/* ------------------------------------------------------------ text */

/* A growable NUL-terminated text.  Out of memory sets `failed` and later
 * appends do nothing, so callers check once at the end. */
struct mbuf {
    char *data;
    size_t len, cap;
    bool failed;
};

void mbuf_add(struct mbuf *b, const char *s, size_t n);
void mbuf_str(struct mbuf *b, const char *s);
void mbuf_printf(struct mbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void mbuf_free(struct mbuf *b);

/* 64-bit FNV-1a: the mock's fingerprint of its input. */
#define MOCK_FNV1A_START 0xcbf29ce484222325ULL
uint64_t mock_fnv1a(uint64_t h, const void *data, size_t n);

/* The compile log, in NVRTC's shape: "FILE(LINE): error: MESSAGE", the
 * source line, a caret; the summary line is added once at the end. */
struct mock_log {
    struct mbuf text;
    int errors;       /* "error" diagnostics */
    int catastrophic; /* "catastrophic error": compilation stops */
    int warnings;
};

/* file NULL: "At end of source".  source_line NULL: no echo.  caret: the
 * column of the caret under the echoed line. */
void log_diagnostic(struct mock_log *log, const char *file, int line, const char *severity, const char *source_line,
                    size_t caret, const char *fmt, ...) __attribute__((format(printf, 7, 8)));
/* The loud refusal: "FILE(LINE): error: mock NVRTC cannot compile this
 * (WHAT); use the real NVRTC". */
void log_refusal(struct mock_log *log, const char *file, int line, const char *source_line, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
/* The closing lines NVRTC writes after the diagnostics. */
void log_summary(struct mock_log *log, const char *program_name);

/* ------------------------------------------------------------ options */

/* A -D or -U, in the order given. */
struct mock_define {
    const char *text; /* "NAME", "NAME=VALUE" */
    bool undefine;
};

struct mock_options {
    int arch;       /* 90 for sm_90 / compute_90 */
    char suffix[2]; /* "a" for sm_90a, "f" for sm_100f, else "" */
    bool cubin;     /* sm_: CUBIN and PTX; compute_: PTX only */
    long cplusplus; /* the value of __cplusplus for --std */
    bool device_debug;
    bool fast_math;
    bool ptxas_verbose; /* --ptxas-options=-v: the log gets ptxas's report */
    const char **include_dirs;
    int n_include_dirs;
    const char **pre_includes; /* --pre-include, in order */
    int n_pre_includes;
    struct mock_define *defines;
    int n_defines;
};

/* Reads NVRTC's options; on a bad one writes NVRTC's message to the log
 * and returns NVRTC_ERROR_INVALID_OPTION. */
nvrtcResult mock_parse_options(int n, const char *const *options, const int *archs, int n_archs,
                               struct mock_options *out, struct mock_log *log);
void mock_options_free(struct mock_options *o);

/* ------------------------------------------------------------ preprocessing */

struct mock_header {
    char *name; /* the include name it answers to, exactly */
    char *text;
};

/* One active (non-directive) line of the preprocessed program. */
struct pp_line {
    int file;      /* index into files */
    int line;      /* 1-based, in that file */
    size_t offset; /* into text */
};

struct mock_macro {
    char *name;
    char *value; /* NULL for a function-like macro */
};

struct mock_pp {
    uint64_t hash;    /* of every file read (name and whole text), in order */
    struct mbuf text; /* the active lines, comments removed, each ending in '\n' */
    struct pp_line *lines;
    size_t n_lines, cap_lines;
    char **files; /* as NVRTC names them in messages */
    bool *once;   /* #pragma once seen in that file */
    size_t n_files;
    struct mock_macro *macros; /* defined at the end */
    size_t n_macros;
    bool out_of_memory;
};

struct mock_source {
    const char *name; /* the program's name ("default_program" if none) */
    const char *text;
    const struct mock_header *headers;
    int n_headers;
    int nvrtc_version;
};

/* Resolves #include and conditionals.  Returns false with the log filled
 * (or pp->out_of_memory set) on failure. */
bool mock_preprocess(const struct mock_source *src, const struct mock_options *o, struct mock_pp *pp,
                     struct mock_log *log);
void mock_pp_free(struct mock_pp *pp);
bool mock_pp_defined(const struct mock_pp *pp, const char *name, size_t len);

/* ------------------------------------------------------------ declarations */

/* How a kernel parameter is passed: a PTX scalar type (".f32", ".u64"),
 * or bytes with an alignment (structs, vector types). */
struct mock_param {
    const char *ptx_type; /* NULL: .align `align` .b8 [size] */
    size_t size, align;
};

struct mock_kernel {
    char *name;
    struct mock_param *params;
    int n_params;
    char *source;      /* its definition as written, for the PTX's trailer; NULL: it names a macro */
    int line;          /* of its definition, for messages */
    bool in_namespace; /* a plain name expression does not reach it */
};

struct mock_decls {
    struct mock_kernel *kernels; /* defined extern "C" kernels, in source order */
    int n_kernels;
    char **functions; /* definitions of __device__ functions (templates too) at namespace scope, as written,
                         for the PTX's trailer; those naming a macro are left out */
    int n_functions;
    char **variables; /* __device__ / __constant__ variables at global scope */
    int n_variables;
    bool out_of_memory;
};

/* Finds the kernels and variables; false with the log filled (or
 * out_of_memory set) on what it cannot parse. */
bool mock_find_declarations(const struct mock_pp *pp, struct mock_decls *out, struct mock_log *log);
void mock_decls_free(struct mock_decls *d);

#endif
