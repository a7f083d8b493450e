/*
 * reduce.c - the arithmetic of the mock's reductions: element by element,
 * the ranks folded in rank order (so a run gives the same bits every
 * time), half precision through float.
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "mock_nccl.h"

size_t type_size(int type)
{
#define TYPE_SIZE(name, value, bytes)                                                                          \
    if (type == value)                                                                                         \
        return bytes;
    NCCL_DATA_TYPE_MAP(TYPE_SIZE)
#undef TYPE_SIZE
    return 0;
}

static float half_to_float(uint16_t h)
{
    int sign = h >> 15, exp = (h >> 10) & 0x1f, man = h & 0x3ff;
    float v = exp == 0 ? ldexpf((float)man, -24) : exp == 31 ? (man ? NAN : INFINITY) : ldexpf((float)(man | 0x400), exp - 25);
    return sign ? -v : v;
}

/* Rounded to nearest even, as the GPU converts. */
static uint16_t float_to_half(float f)
{
    uint32_t x;
    memcpy(&x, &f, sizeof x);
    uint16_t sign = (uint16_t)((x >> 16) & 0x8000);
    float a = fabsf(f);
    if (isnan(f))
        return sign | 0x7e00;
    if (a >= 65520.0f)
        return sign | 0x7c00;
    if (a < 6.103515625e-05f) /* subnormal: a multiple of 2^-24 */
        return sign | (uint16_t)lrintf(a * 16777216.0f);
    int e;
    float m = frexpf(a, &e); /* a = m * 2^e, m in [0.5, 1) */
    long mant = lrintf(ldexpf(m, 11)); /* 11 significant bits, rounded */
    if (mant == 2048) {
        mant = 1024;
        e++;
    }
    return sign | (uint16_t)(((e + 14) << 10) | (mant & 0x3ff));
}

#define FOLD(T, acc_type, load, store)                                                                         \
    for (size_t i = 0; i < n; i++) {                                                                           \
        acc_type acc = load(((const T *)in[0])[i]);                                                             \
        for (int r = 1; r < nranks; r++) {                                                                     \
            acc_type v = load(((const T *)in[r])[i]);                                                           \
            acc = op == 1 ? acc * v : op == 2 ? (v > acc ? v : acc) : op == 3 ? (v < acc ? v : acc) : acc + v;  \
        }                                                                                                      \
        if (op == NCCL_AVG)                                                                                    \
            acc = acc / (acc_type)nranks;                                                                      \
        ((T *)out)[i] = store(acc);                                                                            \
    }

#define SAME(x) (x)

void reduce_elements(void *out, const void *const *in, int nranks, size_t n, int type, int op)
{
    switch (type) {
    case ncclInt8: FOLD(int8_t, int8_t, SAME, SAME); break;
    case ncclUint8: FOLD(uint8_t, uint8_t, SAME, SAME); break;
    case ncclInt32: FOLD(int32_t, int32_t, SAME, SAME); break;
    case ncclUint32: FOLD(uint32_t, uint32_t, SAME, SAME); break;
    case ncclInt64: FOLD(int64_t, int64_t, SAME, SAME); break;
    case ncclUint64: FOLD(uint64_t, uint64_t, SAME, SAME); break;
    case ncclFloat16: FOLD(uint16_t, float, half_to_float, float_to_half); break;
    case ncclFloat32: FOLD(float, float, SAME, SAME); break;
    case ncclFloat64: FOLD(double, double, SAME, SAME); break;
    default: break; /* refused before: mock_nccl.c checks the type */
    }
}
