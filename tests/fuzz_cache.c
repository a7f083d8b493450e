/*
 * fuzz_cache.c - the cache-file parser (cudyn__cache_parse) fed damaged
 * entries.  `make check` runs a bounded, seeded run (checksums are also
 * recomputed after mutating, so the section parser is reached, not only
 * the checksum test); `make fuzz` builds the same target for libFuzzer.
 * Under AddressSanitizer (CI) any read outside the buffer fails the run.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cache.h"
#include "internal.h"

static const unsigned char key[CUDYN_SHA256_BYTES] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};

static void reseal(unsigned char *buf, size_t size)
{
    if (size < CUDYN_SHA256_BYTES)
        return;
    struct cudyn__sha256 h;
    cudyn__sha256_init(&h);
    cudyn__sha256_update(&h, buf, size - CUDYN_SHA256_BYTES);
    cudyn__sha256_final(&h, buf + size - CUDYN_SHA256_BYTES);
}

static int parse(const unsigned char *data, size_t size)
{
    /* copy into an exact-size buffer so ASan sees any over-read */
    unsigned char *copy = malloc(size ? size : 1);
    memcpy(copy, data, size);
    struct cudyn__cache_entry e;
    int rc = cudyn__cache_parse(copy, size, key, &e);
    if (rc == 0) {
        /* whatever parses is self-consistent */
        if (!e.image || e.image_size == 0 || (!e.cubin && e.image[e.image_size - 1] != '\0'))
            abort();
        cudyn__cache_entry_free(&e);
    }
    free(copy);
    return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    parse(data, size);
    if (size >= CUDYN_SHA256_BYTES + 48) {
        unsigned char *copy = malloc(size);
        memcpy(copy, data, size);
        memcpy(copy + 16, key, sizeof key);
        reseal(copy, size);
        parse(copy, size);
        free(copy);
    }
    return 0;
}

#ifndef CUDYN_LIBFUZZER
static uint64_t rng = 0x9E3779B97F4A7C15ull;
static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

int main(int argc, char **argv)
{
    long iterations = argc > 1 ? atol(argv[1]) : 20000;
    static struct cudyn__name_pair pairs[] = {{"scale<float>", "_Z5scaleIfEvPT_S0_m"}, {"&counter", "counter"}};
    unsigned char image[300];
    for (size_t i = 0; i < sizeof image; i++)
        image[i] = (unsigned char)(i * 31);
    struct cudyn__cache_entry e = {.target = "sm_90", .arch = 90, .cubin = true, .image = image,
                                  .image_size = sizeof image, .ptx = (unsigned char *)".version 8.0\n",
                                  .ptx_size = 14, .log = "a log", .names = {2, pairs}};
    size_t size = 0;
    unsigned char *valid = cudyn__cache_serialise(key, &e, &size);
    if (!valid || parse(valid, size) != 0) {
        fprintf(stderr, "fuzz_cache: a valid entry does not parse\n");
        return 1;
    }
    unsigned char *buf = malloc(size + 64);
    long accepted = 0;
    for (long it = 0; it < iterations; it++) {
        memcpy(buf, valid, size);
        size_t n = size;
        int edits = 1 + (int)(next() % 4);
        for (int k = 0; k < edits; k++) {
            switch (next() % 5) {
            case 0: buf[next() % n] ^= (unsigned char)(1u << (next() % 8)); break;
            case 1: buf[next() % n] = (unsigned char)next(); break;
            case 2: n = 1 + next() % n; break;                              /* truncate */
            case 3: {                                                       /* a huge length field */
                size_t at = 16 + CUDYN_SHA256_BYTES + 4 + next() % 16;
                if (at + 8 <= n)
                    memset(buf + at, 0xFF, 1 + next() % 8);
                break;
            }
            default: if (n + 16 <= size + 64) n += next() % 16; break;      /* grow */
            }
        }
        if (next() % 2)
            reseal(buf, n);
        accepted += parse(buf, n) == 0;
    }
    printf("fuzz_cache: %ld damaged entries, %ld accepted as consistent, no fault\n", iterations, accepted);
    free(buf);
    free(valid);
    return 0;
}
#endif
