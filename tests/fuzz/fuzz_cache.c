/*
 * fuzz_cache.c - the cache-file parser (cudyn__cache_parse) fed damaged
 * entries.  `make check` runs a bounded, seeded run (checksums are also
 * recomputed after mutating, so the section parser is reached, not only
 * the checksum test); `make fuzz` builds the same target for libFuzzer.
 * Under AddressSanitizer (CI) any read outside the buffer fails the run.
 * The libFuzzer run starts from the seeds of tests/fuzz/corpus/cache (written
 * and checked by fuzz_seeds.c).
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compile/cache.h"
#include "fuzz_common.h"
#include "internal.h"

static const unsigned char key[CUDYN_SHA256_BYTES] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};

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
        /* and serialises to an entry that parses again */
        size_t again = 0;
        unsigned char *round = cudyn__cache_serialise(key, &e, &again);
        struct cudyn__cache_entry back;
        if (!round || cudyn__cache_parse(round, again, key, &back) != 0 || back.image_size != e.image_size ||
            back.deps.n != e.deps.n || back.names.n != e.names.n)
            abort();
        cudyn__cache_entry_free(&back);
        free(round);
        cudyn__cache_entry_free(&e);
    }
    free(copy);
    return rc;
}

/* The key in its place in the header (bytes 24-55): an entry stored under
 * another key is refused before anything else is read. */
static void put_key(unsigned char *buf)
{
    memcpy(buf + 24, key, sizeof key);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_one(data, size, CUDYN_CACHE_HEADER_BYTES, parse, put_key);
    return 0;
}

#ifndef CUDYN_LIBFUZZER
static struct cudyn__name_pair pairs[] = {{"scale<float>", "_Z5scaleIfEvPT_S0_m"}, {"&counter", "counter"}};
static struct cudyn__dep deps[] = {
    {"include/saxpy.h", true, 2049, 131, 512, 1700000000123456789, 1700000000123456789, {7, 7, 7}},
    {"other/saxpy.h", false, 0, 0, 0, 0, 0, {0}},
};
static const char ptx[] = "//\n.version 9.0\n.target sm_90\n.visible .entry k(\n\t.param .u64 k_param_0\n)\n{ ret; }\n";

/* A CUBIN entry with everything, and a PTX entry with the minimum. */
static unsigned char *valid_entry(int which, size_t *size)
{
    static unsigned char image[300];
    for (size_t i = 0; i < sizeof image; i++)
        image[i] = (unsigned char)(i * 31);
    struct cudyn__cache_entry cubin = {.target = "sm_90", .arch = 90, .cubin = true, .nvrtc_version = 13000,
                                      .image = image, .image_size = sizeof image, .log = "a log",
                                      .interface = "k(.param .u64 k_param_0)\n", .names = {2, pairs},
                                      .deps = {2, 2, deps, ""}};
    struct cudyn__cache_entry text = {.target = "compute_80", .arch = 80, .nvrtc_version = 12080,
                                     .image = (unsigned char *)ptx, .image_size = sizeof ptx};
    return cudyn__cache_serialise(key, which ? &text : &cubin, size);
}

static void mutate(unsigned char *buf, size_t *n, size_t cap)
{
    int edits = 1 + (int)(fuzz_next() % 4);
    for (int k = 0; k < edits; k++) {
        switch (fuzz_next() % 5) {
        case 0: buf[fuzz_next() % *n] ^= (unsigned char)(1u << (fuzz_next() % 8)); break;
        case 1: buf[fuzz_next() % *n] = (unsigned char)fuzz_next(); break;
        case 2: *n = 1 + fuzz_next() % *n; break;                         /* truncate */
        case 3: {                                                         /* a huge length field */
            size_t at = CUDYN_CACHE_HEADER_BYTES + 4 + fuzz_next() % 16;
            if (at + 8 <= *n)
                memset(buf + at, 0xFF, 1 + fuzz_next() % 8);
            break;
        }
        default: if (*n + 16 <= cap) *n += fuzz_next() % 16; break;       /* grow */
        }
    }
}

int main(int argc, char **argv)
{
    long iterations = argc > 1 ? atol(argv[1]) : 20000;
    size_t size = 0;
    unsigned char *valid = valid_entry(0, &size);
    if (!valid || parse(valid, size) != 0) {
        fprintf(stderr, "fuzz_cache: a valid entry does not parse\n");
        return 1;
    }
    long accepted = fuzz_rounds(0x9E3779B97F4A7C15ull, valid, size, size + 64, iterations, mutate, parse);
    printf("fuzz_cache: %ld damaged entries, %ld accepted as consistent, no fault\n", iterations, accepted);
    free(valid);
    return 0;
}
#endif
