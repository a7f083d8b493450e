/*
 * format.c - the alphabet of cudyn_launchf's format strings (the table in
 * cudyn.h) and its parser, a pure function fuzzed by tests/fuzz_format.c;
 * and the float-to-half conversion 'e' arguments need.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "args.h"

struct code_info {
    enum cudyn__arg_kind kind;
    size_t size;
    const char *what;
};

/* Indexed by the format character; documented in cudyn.h. */
static const struct code_info codes[128] = {
    ['?'] = {ARG_SCALAR, 1, "bool"},
    ['b'] = {ARG_SCALAR, 1, "int8"},
    ['B'] = {ARG_SCALAR, 1, "uint8"},
    ['h'] = {ARG_SCALAR, 2, "int16"},
    ['H'] = {ARG_SCALAR, 2, "uint16"},
    ['i'] = {ARG_SCALAR, 4, "int32"},
    ['I'] = {ARG_SCALAR, 4, "uint32"},
    ['q'] = {ARG_SCALAR, 8, "int64"},
    ['Q'] = {ARG_SCALAR, 8, "uint64"},
    ['e'] = {ARG_SCALAR, 2, "half"},
    ['f'] = {ARG_SCALAR, 4, "float"},
    ['d'] = {ARG_SCALAR, 8, "double"},
    ['F'] = {ARG_SCALAR, 8, "float complex"},
    ['D'] = {ARG_SCALAR, 16, "double complex"},
    ['p'] = {ARG_SCALAR, 8, "device pointer"},
    ['z'] = {ARG_SCALAR, sizeof(size_t), "size_t"},
    ['s'] = {ARG_STRUCT, 0, "struct"},
    ['<'] = {ARG_IN, 8, "In buffer"},
    ['>'] = {ARG_OUT, 8, "Out buffer"},
    ['='] = {ARG_INOUT, 8, "InOut buffer"},
};

int cudyn__format_parse(const char *fmt, struct cudyn__format *out, char *err, size_t err_cap)
{
    out->n = 0;
    out->has_buffers = false;
    for (const char *c = fmt; *c; c++) {
        if (*c == ' ')
            continue;
        unsigned char u = (unsigned char)*c;
        if (u >= 128 || !codes[u].what) {
            snprintf(err, err_cap, "'%c' (position %d) is not a format character", u >= 32 && u < 127 ? u : '?',
                     (int)(c - fmt) + 1);
            return -1;
        }
        if (out->n == CUDYN_MAX_ARGS) {
            snprintf(err, err_cap, "more than %d parameters", CUDYN_MAX_ARGS);
            return -1;
        }
        struct cudyn__arg_spec *a = &out->args[out->n++];
        a->code = *c;
        a->kind = codes[u].kind;
        a->size = codes[u].size;
        a->what = codes[u].what;
        if (a->kind == ARG_IN || a->kind == ARG_OUT || a->kind == ARG_INOUT)
            out->has_buffers = true;
    }
    return 0;
}

unsigned short cudyn__half_from_double(double v)
{
    float f = (float)v;
    uint32_t x;
    memcpy(&x, &f, sizeof x);
    uint32_t sign = (x >> 16) & 0x8000u;
    uint32_t exp = (x >> 23) & 0xFFu;
    uint32_t mant = x & 0x7FFFFFu;
    if (exp == 0xFF) /* inf or NaN (keep NaN quiet and non-zero) */
        return (unsigned short)(sign | 0x7C00u | (mant ? 0x200u | (mant >> 13) : 0));
    int e = (int)exp - 127 + 15;
    if (e >= 31) /* too large: infinity */
        return (unsigned short)(sign | 0x7C00u);
    if (e <= 0) { /* subnormal or zero in half */
        if (e < -10)
            return (unsigned short)sign;
        mant |= 0x800000u;
        int shift = 14 - e;
        uint32_t half = mant >> shift, rest = mant & ((1u << shift) - 1), mid = 1u << (shift - 1);
        if (rest > mid || (rest == mid && (half & 1u)))
            half++;
        return (unsigned short)(sign | half);
    }
    uint32_t half = sign | ((uint32_t)e << 10) | (mant >> 13);
    uint32_t rest = mant & 0x1FFFu;
    if (rest > 0x1000u || (rest == 0x1000u && (half & 1u)))
        half++; /* may carry into the exponent: that is the right rounding */
    return (unsigned short)half;
}

