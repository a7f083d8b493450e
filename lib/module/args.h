/*
 * args.h - the launch format parser (a pure function of cudyn.h's
 * CUDYN_LAUNCH_FORMAT_MAP, fuzzed by tests/fuzz_format.c) and the argument
 * packs built from it.
 */
#ifndef CUDYN_ARGS_H
#define CUDYN_ARGS_H

#include <stdbool.h>
#include <stddef.h>

#include "cudyn.h" /* CUDYN_MAX_ARGS, CUDYN_LAUNCH_FORMAT_MAP */

/* The driver's limit on a kernel's parameter bytes (CUDA 12.1+). */
#define CUDYN_MAX_PARAM_BYTES 32764

struct cudyn__arg_spec {
    char code;
    cudyn_arg_kind kind; /* CUDYN_LAUNCH_FORMAT_MAP's */
    size_t size;         /* bytes the kernel receives (a struct's: known when set) */
    const char *what;
};

/* What a kind asks of the launch: a buffer is In, Out or InOut; a scalar
 * is a value of the format's size (neither a struct nor a buffer).
 * Constant expressions (format.c checks format_codes.h with them). */
#define ARG_IS_BUFFER(k) ((k) == CUDYN_ARG_IN || (k) == CUDYN_ARG_OUT || (k) == CUDYN_ARG_INOUT)
#define ARG_IS_SCALAR(k) ((k) != CUDYN_ARG_STRUCT && !ARG_IS_BUFFER(k))

struct cudyn__format {
    int n;
    bool has_buffers;
    bool has_structs; /* sizes of 's' arguments are set per call */
    struct cudyn__arg_spec args[CUDYN_MAX_ARGS];
};

/* Parses fmt; 0 on success, else -1 with a reason in err. */
int cudyn__format_parse(const char *fmt, struct cudyn__format *out, char *err, size_t err_cap);

/* IEEE binary16 bits of a double, rounded to nearest even. */
unsigned short cudyn__half_from_double(double v);

/* The conversions format_codes.h names (args.c and expr_args.c read
 * values with them). */
#define CONVERT_CAST(type, v) ((type)(v))
#define CONVERT_BOOL(type, v) ((type)((v) != 0))
#define CONVERT_HALF(type, v) ((type)cudyn__half_from_double(v))

#endif
