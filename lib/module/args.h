/*
 * args.h - the launch format parser (a pure function, fuzzed by
 * tests/fuzz_format.c) and the argument packs built from it.
 */
#ifndef CUDYN_ARGS_H
#define CUDYN_ARGS_H

#include <stdbool.h>
#include <stddef.h>

#include "compile/ptx_interface.h" /* CUDYN_MAX_ARGS */

/* The driver's limit on a kernel's parameter bytes (CUDA 12.1+). */
#define CUDYN_MAX_PARAM_BYTES 32764

enum cudyn__arg_kind { ARG_NONE, ARG_SCALAR, ARG_STRUCT, ARG_IN, ARG_OUT, ARG_INOUT };

struct cudyn__arg_spec {
    char code;
    enum cudyn__arg_kind kind;
    size_t size; /* bytes the kernel receives (a struct's: known when set) */
    const char *what;
};

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
