/*
 * format.c - the parser of cudyn_launchf's format strings (the alphabet is
 * format_codes.h, documented by CUDYN_LAUNCH_FORMAT_MAP in cudyn.h), a pure
 * function fuzzed by tests/fuzz_format.c; and the float-to-half conversion
 * 'e' arguments need.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "cudyn.h"
#include "module/args.h"

struct code_info {
    enum cudyn__arg_kind kind; /* ARG_NONE: not a format character */
    size_t size;
    const char *what;
};

/* Indexed by the format character: the kind and size from format_codes.h,
 * the description from cudyn.h's CUDYN_LAUNCH_FORMAT_MAP. */
static const struct code_info codes[128] = {
#define SCALAR_CODE(code, stored, promoted, convert) [code].kind = ARG_SCALAR, [code].size = sizeof(stored),
#define OTHER_CODE(code, kind_) [code].kind = kind_, [code].size = kind_ == ARG_STRUCT ? 0 : sizeof(cudyn_devptr),
#include "module/format_codes.h"
#undef SCALAR_CODE
#undef OTHER_CODE
#define DOCUMENTED(code, parameter, pass) [code].what = parameter,
    CUDYN_LAUNCH_FORMAT_MAP(DOCUMENTED)
#undef DOCUMENTED
};

int cudyn__format_parse(const char *fmt, struct cudyn__format *out, char *err, size_t err_cap)
{
    out->n = 0;
    out->has_buffers = out->has_structs = false;
    for (const char *c = fmt; *c; c++) {
        if (*c == ' ')
            continue;
        unsigned char u = (unsigned char)*c;
        if (u >= 128 || codes[u].kind == ARG_NONE) {
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
        if (a->kind == ARG_STRUCT)
            out->has_structs = true;
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

