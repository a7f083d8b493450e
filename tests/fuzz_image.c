/*
 * fuzz_image.c - the multi-architecture image parser (cudyn__image_header
 * and cudyn__image_unpack) fed damaged images: what cudyn_module_load_image
 * checks before it hands an entry to the driver.  `make check` runs a
 * bounded, seeded run (checksums recomputed after mutating, so the entry
 * checks are reached); `make fuzz` builds the same target for libFuzzer.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "image.h"
#include "sha256.h"

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
    /* an exact-size copy, so AddressSanitizer sees any over-read */
    unsigned char *copy = malloc(size ? size : 1);
    memcpy(copy, data, size);
    struct cudyn__image_part parts[CUDYN_IMAGE_MAX_ENTRIES];
    size_t n = 0, total = 0;
    int built_by = 0, rc = -1;
    if (size >= CUDYN_IMAGE_HEADER_BYTES && cudyn__image_header(copy, &total) == 1 && total == size)
        rc = cudyn__image_unpack(copy, size, parts, &n, &built_by);
    for (size_t i = 0; rc == 0 && i < n; i++) /* whatever parses lies inside the image */
        if (parts[i].data < copy || parts[i].data + parts[i].size > copy + size - CUDYN_SHA256_BYTES ||
            parts[i].size == 0 || (!parts[i].cubin && parts[i].data[parts[i].size - 1] != '\0'))
            abort();
    free(copy);
    return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    parse(data, size);
    if (size >= CUDYN_IMAGE_HEADER_BYTES + CUDYN_SHA256_BYTES) {
        unsigned char *copy = malloc(size);
        memcpy(copy, data, size);
        for (int i = 0; i < 8; i++) /* the announced size: the input's own */
            copy[16 + i] = (unsigned char)((uint64_t)size >> (8 * i));
        reseal(copy, size);
        parse(copy, size);
        free(copy);
    }
    return 0;
}

#ifndef CUDYN_LIBFUZZER
static uint64_t rng = 0x2545F4914F6CDD1Dull;
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
    static unsigned char cubin[200];
    static const char ptx[] = ".version 9.0\n.target sm_80\n.visible .entry k()\n{ ret; }\n";
    for (size_t i = 0; i < sizeof cubin; i++)
        cubin[i] = (unsigned char)(i * 7);
    struct cudyn__image_part parts[] = {{80, true, cubin, sizeof cubin},
                                        {80, false, (const unsigned char *)ptx, sizeof ptx}};
    unsigned char *valid = NULL;
    size_t size = 0;
    if (cudyn__image_pack(parts, 2, 13000, &valid, &size) != 0 || parse(valid, size) != 0) {
        fprintf(stderr, "fuzz_image: a valid image does not parse\n");
        return 1;
    }
    unsigned char *buf = malloc(size);
    long accepted = 0;
    for (long it = 0; it < iterations; it++) {
        memcpy(buf, valid, size);
        int edits = 1 + (int)(next() % 4);
        for (int k = 0; k < edits; k++) {
            size_t at = next() % 4 ? 8 + next() % 80 : next() % size; /* mostly the header and entries */
            buf[at] = next() % 2 ? (unsigned char)next() : 0xFF;
        }
        if (next() % 2)
            reseal(buf, size);
        accepted += parse(buf, size) == 0;
    }
    printf("fuzz_image: %ld damaged images, %ld accepted as consistent, no fault\n", iterations, accepted);
    free(buf);
    free(valid);
    return 0;
}
#endif
