/*
 * format.c - the parser of cudyn_launchf's format strings (the alphabet,
 * each character's size and kind are CUDYN_LAUNCH_FORMAT_MAP in cudyn.h),
 * a pure function fuzzed by tests/fuzz_format.c; the compile-time check of
 * format_codes.h against that map; and the float-to-half conversion 'e'
 * arguments need.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "cudyn.h"
#include "module/args.h"
#include "module/format_codes.h"

struct code_info {
    cudyn_arg_kind kind; /* 0: not a format character */
    size_t size;
    const char *what;
};

/* Indexed by the format character: cudyn.h's CUDYN_LAUNCH_FORMAT_MAP. */
static const struct code_info codes[128] = {
#define FROM_MAP(code, bytes, kind, parameter, pass) [code] = {CUDYN_ARG_##kind, bytes, parameter},
    CUDYN_LAUNCH_FORMAT_MAP(FROM_MAP)
#undef FROM_MAP
};

/* format_codes.h agrees with the map, or this does not compile: each of
 * its rows reads a value of the size the map gives that scalar character,
 * and each scalar character of the map has a row.  (Never called: the
 * checks are declarations, each in a block of its own.) */
#define MAP_SCALAR_BYTES(code, bytes, kind, parameter, pass) \
    ((code) == row && ARG_IS_SCALAR(CUDYN_ARG_##kind) ? (size_t)(bytes) : 0) +
#define READ_BYTES(code, stored, promoted, convert) ((code) == row ? sizeof(stored) : 0) +
#define CHECK_READ(code, stored, promoted, convert)                                                            \
    {                                                                                                          \
        enum { row = code };                                                                                   \
        _Static_assert((CUDYN_LAUNCH_FORMAT_MAP(MAP_SCALAR_BYTES) 0) == sizeof(stored),                        \
                       "format_codes.h reads a value CUDYN_LAUNCH_FORMAT_MAP has no scalar of that size for"); \
    }
#define CHECK_SCALAR(code, bytes, kind, parameter, pass)                                                       \
    {                                                                                                          \
        enum { row = code };                                                                                   \
        _Static_assert(!ARG_IS_SCALAR(CUDYN_ARG_##kind) || (FORMAT_SCALAR_READS(READ_BYTES) 0) == (bytes),     \
                       "a scalar of CUDYN_LAUNCH_FORMAT_MAP has no row of its size in format_codes.h");        \
    }
static inline void format_codes_agree(void)
{
    FORMAT_SCALAR_READS(CHECK_READ)
    CUDYN_LAUNCH_FORMAT_MAP(CHECK_SCALAR)
}
#undef MAP_SCALAR_BYTES
#undef READ_BYTES
#undef CHECK_READ
#undef CHECK_SCALAR

int cudyn__format_parse(const char *fmt, struct cudyn__format *out, char *err, size_t err_cap)
{
    out->n = 0;
    out->has_buffers = out->has_structs = false;
    for (const char *c = fmt; *c; c++) {
        if (*c == ' ')
            continue;
        unsigned char u = (unsigned char)*c;
        if (u >= 128 || codes[u].kind == 0) {
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
        if (ARG_IS_BUFFER(a->kind))
            out->has_buffers = true;
        if (a->kind == CUDYN_ARG_STRUCT)
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

