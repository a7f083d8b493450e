/*
 * fuzz_common.h - what the fuzzers of cudyn's checksummed files (cache
 * entries: fuzz_cache.c; multi-architecture images: fuzz_image.c) share.
 * Both formats keep their total size as a little-endian u64 at bytes 16-23
 * and end with the SHA-256 of every byte before it.  A damaged input mostly
 * fails those two checks, so the fuzzers also make them right, to reach
 * the parsing behind them.
 */
#ifndef CUDYN_FUZZ_COMMON_H
#define CUDYN_FUZZ_COMMON_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "compile/sha256.h"

/* Recomputes the trailing checksum. */
static inline void fuzz_reseal(unsigned char *buf, size_t size)
{
    if (size < CUDYN_SHA256_BYTES)
        return;
    struct cudyn__sha256 h;
    cudyn__sha256_init(&h);
    cudyn__sha256_update(&h, buf, size - CUDYN_SHA256_BYTES);
    cudyn__sha256_final(&h, buf + size - CUDYN_SHA256_BYTES);
}

/* libFuzzer's input to `parse` as it is, then, when it can hold a header
 * of header_bytes and a checksum, a copy of it with `fix` applied (unless
 * NULL), its announced size its own and its checksum recomputed. */
static inline void fuzz_one(const uint8_t *data, size_t size, size_t header_bytes,
                            int (*parse)(const unsigned char *data, size_t size), void (*fix)(unsigned char *buf))
{
    parse(data, size);
    if (size < header_bytes + CUDYN_SHA256_BYTES)
        return;
    unsigned char *copy = malloc(size);
    memcpy(copy, data, size);
    if (fix)
        fix(copy);
    for (int i = 0; i < 8; i++)
        copy[16 + i] = (unsigned char)((uint64_t)size >> (8 * i));
    fuzz_reseal(copy, size);
    parse(copy, size);
    free(copy);
}

#ifndef CUDYN_LIBFUZZER
/* The bounded runs of `make check`: xorshift64 from a fixed seed, so a run
 * that fails fails the same way again. */
static uint64_t fuzz_rng;

static inline uint64_t fuzz_next(void)
{
    fuzz_rng ^= fuzz_rng << 13;
    fuzz_rng ^= fuzz_rng >> 7;
    fuzz_rng ^= fuzz_rng << 17;
    return fuzz_rng;
}

/* `iterations` copies of a valid input of `size` bytes, each damaged by
 * `mutate` (which may change its length *n, up to cap) and, every other
 * time, resealed, then given to `parse`; returns how many it accepted (0). */
static inline long fuzz_rounds(uint64_t seed, const unsigned char *valid, size_t size, size_t cap, long iterations,
                               void (*mutate)(unsigned char *buf, size_t *n, size_t cap),
                               int (*parse)(const unsigned char *data, size_t size))
{
    fuzz_rng = seed;
    unsigned char *buf = malloc(cap);
    long accepted = 0;
    for (long it = 0; it < iterations; it++) {
        memcpy(buf, valid, size);
        size_t n = size;
        mutate(buf, &n, cap);
        if (fuzz_next() % 2)
            fuzz_reseal(buf, n);
        accepted += parse(buf, n) == 0;
    }
    free(buf);
    return accepted;
}
#endif

#endif
