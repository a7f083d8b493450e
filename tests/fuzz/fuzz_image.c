/*
 * fuzz_image.c - what cudyn_module_load_image_sized checks before the
 * driver sees an image (cudyn__image_inspect, sized: the length, a
 * container's header, its entries' bounds and checksum, a CUBIN's tables,
 * a fatbinary's header, PTX's NUL), fed damaged images of any length.
 *
 * An input is a u16 (little-endian) `cut` and then the image's bytes: the
 * call is given the image's first (length - cut) bytes, in a heap buffer
 * of exactly that size, so the length is chosen independently of the
 * content (an image truncated in memory, a header that claims more or
 * less than it has) and inputs shorter than the 32-byte header are
 * reached; AddressSanitizer sees any read past the end.  `make check` runs
 * a bounded, seeded run (checksums and total sizes recomputed after
 * mutating, half the time, so the entry checks are reached); `make fuzz`
 * builds the same target for libFuzzer.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"
#include "compile/image.h"

#define CUT_BYTES 2

/* The sized call's check on data's image cut short as its prefix says;
 * 0 when a container was accepted. */
static int parse(const unsigned char *data, size_t size)
{
    if (size < CUT_BYTES)
        return -1;
    size_t cut = (size_t)data[0] | (size_t)data[1] << 8, n = size - CUT_BYTES;
    size_t given = cut >= n ? 0 : n - cut;
    unsigned char *copy = malloc(given ? given : 1);
    memcpy(copy, data + CUT_BYTES, given);
    static struct cudyn__image_view v;
    char why[256];
    int rc = cudyn__image_inspect(copy, given, true, &v, why, sizeof why);
    if (rc == 0 && v.kind == CUDYN__IMAGE_OURS) /* whatever parses lies inside what was given */
        for (size_t i = 0; i < v.n; i++)
            if (v.bytes != given || v.parts[i].data < copy ||
                v.parts[i].data + v.parts[i].size > copy + given - CUDYN_SHA256_BYTES || v.parts[i].size == 0 ||
                (!v.parts[i].cubin && v.parts[i].data[v.parts[i].size - 1] != '\0'))
                abort();
    if (rc == 0 && v.kind == CUDYN__IMAGE_PTX && !memchr(copy, '\0', given))
        abort();
    if (rc == 0 && v.kind == CUDYN__IMAGE_ELF && v.bytes > given)
        abort();
    free(copy);
    return rc == 0 && v.kind == CUDYN__IMAGE_OURS ? 0 : -1;
}

/* Makes the image's announced total its real one (what the cut leaves)
 * and its checksum right, so the entry checks behind them are reached. */
static void reseal(unsigned char *buf, size_t size)
{
    if (size < CUT_BYTES + CUDYN_IMAGE_HEADER_BYTES + CUDYN_SHA256_BYTES)
        return;
    size_t cut = (size_t)buf[0] | (size_t)buf[1] << 8, n = size - CUT_BYTES;
    size_t given = cut >= n ? 0 : n - cut;
    if (given < CUDYN_IMAGE_HEADER_BYTES + CUDYN_SHA256_BYTES)
        return;
    unsigned char *image = buf + CUT_BYTES;
    for (int i = 0; i < 8; i++)
        image[16 + i] = (unsigned char)((uint64_t)given >> (8 * i));
    fuzz_reseal(image, given);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    parse(data, size);
    unsigned char *copy = malloc(size ? size : 1);
    memcpy(copy, data, size);
    reseal(copy, size);
    parse(copy, size);
    free(copy);
    return 0;
}

#ifndef CUDYN_LIBFUZZER
/* Bytes overwritten, mostly in the header and the entry table, and the
 * cut: none, a few bytes, most of the image, or all but a short head. */
static void mutate(unsigned char *buf, size_t n)
{
    int edits = 1 + (int)(fuzz_next() % 4);
    size_t image = n - CUT_BYTES;
    for (int k = 0; k < edits; k++) {
        size_t at = fuzz_next() % 4 ? 8 + fuzz_next() % 80 : fuzz_next() % image;
        buf[CUT_BYTES + at] = fuzz_next() % 2 ? (unsigned char)fuzz_next() : 0xFF;
    }
    size_t cut = 0;
    switch (fuzz_next() % 4) {
    case 0: break;
    case 1: cut = fuzz_next() % 64; break;
    case 2: cut = fuzz_next() % image; break;
    default: cut = image - fuzz_next() % 40; break; /* 0 to 39 bytes left */
    }
    buf[0] = (unsigned char)cut;
    buf[1] = (unsigned char)(cut >> 8);
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
    unsigned char *image = NULL;
    size_t size = 0;
    if (cudyn__image_pack(parts, 2, 13000, &image, &size) != 0 || size > 0xFFFF) {
        fprintf(stderr, "fuzz_image: cannot pack the valid image\n");
        return 1;
    }
    size_t n = CUT_BYTES + size;
    unsigned char *valid = calloc(1, n), *buf = malloc(n);
    memcpy(valid + CUT_BYTES, image, size);
    if (parse(valid, n) != 0) {
        fprintf(stderr, "fuzz_image: a valid image does not parse\n");
        return 1;
    }
    fuzz_rng = 0x2545F4914F6CDD1Dull;
    long accepted = 0, short_inputs = 0;
    for (long it = 0; it < iterations; it++) {
        memcpy(buf, valid, n);
        mutate(buf, n);
        if (fuzz_next() % 2)
            reseal(buf, n);
        size_t cut = (size_t)buf[0] | (size_t)buf[1] << 8;
        short_inputs += cut > size - CUDYN_IMAGE_HEADER_BYTES;
        accepted += parse(buf, n) == 0;
    }
    printf("fuzz_image: %ld damaged images (%ld given fewer than 32 bytes), %ld accepted as consistent, no fault\n",
           iterations, short_inputs, accepted);
    free(buf);
    free(valid);
    free(image);
    return short_inputs > 0 ? 0 : 1;
}
#endif
