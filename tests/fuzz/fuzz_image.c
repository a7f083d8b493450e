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

#include "fuzz_common.h"
#include "compile/image.h"

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
    fuzz_one(data, size, CUDYN_IMAGE_HEADER_BYTES, parse, NULL);
    return 0;
}

#ifndef CUDYN_LIBFUZZER
/* Bytes overwritten, mostly in the header and the entry table; the size
 * stays. */
static void mutate(unsigned char *buf, size_t *n, size_t cap)
{
    (void)cap;
    int edits = 1 + (int)(fuzz_next() % 4);
    for (int k = 0; k < edits; k++) {
        size_t at = fuzz_next() % 4 ? 8 + fuzz_next() % 80 : fuzz_next() % *n;
        buf[at] = fuzz_next() % 2 ? (unsigned char)fuzz_next() : 0xFF;
    }
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
    long accepted = fuzz_rounds(0x2545F4914F6CDD1Dull, valid, size, size, iterations, mutate, parse);
    printf("fuzz_image: %ld damaged images, %ld accepted as consistent, no fault\n", iterations, accepted);
    free(valid);
    return 0;
}
#endif
