/*
 * sha256.h - SHA-256 for the kernel cache (keys and entry checksums).
 */
#ifndef CUDYN_SHA256_H
#define CUDYN_SHA256_H

#include <stddef.h>
#include <stdint.h>

#define CUDYN_SHA256_BYTES 32

struct cudyn__sha256 {
    uint32_t h[8];
    uint64_t bytes;
    unsigned char block[64];
    size_t used;
};

void cudyn__sha256_init(struct cudyn__sha256 *s);
void cudyn__sha256_update(struct cudyn__sha256 *s, const void *data, size_t n);
void cudyn__sha256_final(struct cudyn__sha256 *s, unsigned char digest[CUDYN_SHA256_BYTES]);

#endif
