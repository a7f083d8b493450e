/*
 * ptx_interface.h - a kernel's parameters as its PTX declares them
 * (".entry NAME(.param .f32 NAME_param_0, .param .u64 .ptr ...)"), kept as
 * an interface of one "NAME(PARAMS)" line per kernel, so a
 * launch can check the kind of each argument, not only its size: a double
 * passed for a float *, or a float for an int, is caught before the GPU
 * sees it.  A pure function of the text, fuzzed by tests/fuzz_format.c.
 */
#ifndef CUDYN_PTX_INTERFACE_H
#define CUDYN_PTX_INTERFACE_H

#include <stdbool.h>
#include <stddef.h>

#include "cudyn.h" /* CUDYN_MAX_ARGS: the most parameters cudyn reads of a kernel */

/* What a parameter holds, as far as PTX tells. */
enum cudyn__param_class {
    PARAM_UNKNOWN = 0, /* .b16/.b32/.b64 scalars: bits of any kind */
    PARAM_INTEGER,     /* .u8 ... .s64 */
    PARAM_FLOAT,       /* .f16 .bf16 .f32 .f64 */
    PARAM_POINTER,     /* a .u64 / .b64 marked .ptr */
    PARAM_BYTES        /* .b8 name[N]: a struct, a vector, __half ... */
};

struct cudyn__ptx_param {
    enum cudyn__param_class cls;
    size_t size;
};

struct cudyn__ptx_kernel {
    int count; /* -1: the text has no such .entry */
    struct cudyn__ptx_param params[CUDYN_MAX_ARGS];
};

/* Finds NAME in an interface (len bytes, need not end in NUL) and reads
 * its parameters.  Returns 0, or -1 when the entry is absent, has more than
 * CUDYN_MAX_ARGS parameters or cannot be read (out->count is -1 then). */
int cudyn__ptx_kernel_params(const char *text, size_t len, const char *name, struct cudyn__ptx_kernel *out);

/* "NAME(PARAMS)\n" for each .entry of PTX text (white space collapsed),
 * malloc'd; NULL if none or out of memory. */
char *cudyn__ptx_interface(const char *ptx, size_t n);

/* Whether an argument of a launch format's kind and size (cudyn.h,
 * CUDYN_LAUNCH_FORMAT_MAP) can be passed for a parameter of class `cls`. */
bool cudyn__param_accepts(enum cudyn__param_class cls, cudyn_arg_kind kind, size_t size);

#endif
