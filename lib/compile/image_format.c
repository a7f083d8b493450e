/*
 * image_format.c - packing and checking cudyn's multi-architecture image
 * (the format is in image.h).  Pure: no driver, no NVRTC.
 */
#include "config.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compile/cubin.h"
#include "compile/image.h"
#include "compile/little_endian.h"
#include "compile/sha256.h"

#define IMAGE_VERSION 1u
#define ENTRY_BYTES 24
#define ALIGN 64
#define KIND_CUBIN 1u
#define KIND_PTX 2u

static uint64_t align_up(uint64_t n)
{
    return (n + ALIGN - 1) / ALIGN * ALIGN;
}

static bool part_ok(const struct cudyn__image_part *p)
{
    return p->data && p->size > 0 && p->arch > 0 && (p->cubin || p->data[p->size - 1] == '\0');
}

/* Where the entries' bytes start. */
static uint64_t first_offset(size_t n)
{
    return align_up(CUDYN_IMAGE_HEADER_BYTES + n * ENTRY_BYTES);
}

/* The image's size, checksum included (parts of at most 1 GiB each: no
 * overflow). */
static uint64_t image_bytes(const struct cudyn__image_part *parts, size_t n)
{
    uint64_t total = first_offset(n);
    for (size_t i = 0; i < n; i++)
        total = align_up(total + parts[i].size);
    return total + CUDYN_SHA256_BYTES;
}

int cudyn__image_check(const struct cudyn__image_part *parts, size_t n, char *why, size_t cap)
{
    if (n == 0 || n > CUDYN_IMAGE_MAX_ENTRIES) {
        snprintf(why, cap, "%zu entries; an image holds 1 to %d", n, CUDYN_IMAGE_MAX_ENTRIES);
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        const struct cudyn__image_part *p = &parts[i];
        if (p->size > CUDYN_IMAGE_MAX_BYTES) { /* before part_ok, which reads the last byte */
            snprintf(why, cap, "entry %zu (%s_%d) is %zu bytes, more than the %zu bytes (1 GiB) an image may hold",
                     i, p->cubin ? "sm" : "compute", p->arch, p->size, CUDYN_IMAGE_MAX_BYTES);
            return -1;
        }
        if (!part_ok(p)) {
            snprintf(why, cap, "entry %zu (%s_%d) is empty, has no architecture or is PTX without its final NUL", i,
                     p->cubin ? "sm" : "compute", p->arch);
            return -1;
        }
    }
    uint64_t total = image_bytes(parts, n);
    if (total > CUDYN_IMAGE_MAX_BYTES) {
        snprintf(why, cap, "the image would be %llu bytes, more than the %zu bytes (1 GiB) it may hold",
                 (unsigned long long)total, CUDYN_IMAGE_MAX_BYTES);
        return -1;
    }
    return 0;
}

int cudyn__image_pack(const struct cudyn__image_part *parts, size_t n, int built_by, unsigned char **out,
                      size_t *size)
{
    if (cudyn__image_check(parts, n, NULL, 0) != 0)
        return -2;
    size_t total = (size_t)image_bytes(parts, n); /* at most 1 GiB: checked */
    unsigned char *buf = calloc(1, total);
    if (!buf)
        return -1;
    memcpy(buf, CUDYN_IMAGE_MAGIC, 8);
    cudyn__set_u32(buf + 8, IMAGE_VERSION);
    cudyn__set_u32(buf + 12, (uint32_t)n);
    cudyn__set_u64(buf + 16, total);
    cudyn__set_u32(buf + 24, (uint32_t)built_by);
    size_t offset = (size_t)first_offset(n);
    for (size_t i = 0; i < n; i++) {
        unsigned char *e = buf + CUDYN_IMAGE_HEADER_BYTES + i * ENTRY_BYTES;
        cudyn__set_u32(e, (uint32_t)parts[i].arch);
        cudyn__set_u32(e + 4, parts[i].cubin ? KIND_CUBIN : KIND_PTX);
        cudyn__set_u64(e + 8, offset);
        cudyn__set_u64(e + 16, parts[i].size);
        memcpy(buf + offset, parts[i].data, parts[i].size);
        offset = (size_t)align_up(offset + parts[i].size);
    }
    struct cudyn__sha256 h;
    cudyn__sha256_init(&h);
    cudyn__sha256_update(&h, buf, total - CUDYN_SHA256_BYTES);
    cudyn__sha256_final(&h, buf + total - CUDYN_SHA256_BYTES);
    *out = buf;
    *size = total;
    return 0;
}

/* Whether p starts with the len bytes of magic (which hold no NUL),
 * reading at most avail bytes of p and none past the first that differs:
 * safe on a NUL-terminated text of any length, when avail is unknown
 * (SIZE_MAX). */
static bool starts_with(const unsigned char *p, size_t avail, const char *magic, size_t len)
{
    /* byte by byte, stopping at the first difference: a NUL-terminated
     * text shorter than the magic differs at its NUL at the latest (no
     * magic holds a NUL), so nothing past it is read */
    for (size_t i = 0; i < len; i++)
        if (i >= avail || p[i] != (unsigned char)magic[i])
            return false;
    return true;
}

/* Whether the first CUDYN_IMAGE_HEADER_BYTES are a cudyn image header:
 * 1 yes (with its announced *total size), 0 not one of ours (another
 * kind of image), -1 ours but damaged. */
static int image_header(const unsigned char *header, size_t *total)
{
    if (!starts_with(header, CUDYN_IMAGE_HEADER_BYTES, CUDYN_IMAGE_MAGIC, 8))
        return 0;
    uint32_t n = cudyn__get_u32(header + 12);
    uint64_t announced = cudyn__get_u64(header + 16);
    if (cudyn__get_u32(header + 8) != IMAGE_VERSION || n == 0 || n > CUDYN_IMAGE_MAX_ENTRIES ||
        announced < CUDYN_IMAGE_HEADER_BYTES + n * ENTRY_BYTES + CUDYN_SHA256_BYTES ||
        announced > CUDYN_IMAGE_MAX_BYTES)
        return -1;
    *total = (size_t)announced;
    return 1;
}

/* Checks a whole image (entries within bounds, checksum) and lists its
 * parts, which point into buf; 0, or -1 when damaged. */
static int image_unpack(const unsigned char *buf, size_t size, struct cudyn__image_part parts[CUDYN_IMAGE_MAX_ENTRIES],
                        size_t *n, int *built_by)
{
    size_t total = 0;
    if (size < CUDYN_IMAGE_HEADER_BYTES || image_header(buf, &total) != 1 || total != size)
        return -1;
    unsigned char digest[CUDYN_SHA256_BYTES];
    struct cudyn__sha256 h;
    cudyn__sha256_init(&h);
    cudyn__sha256_update(&h, buf, size - CUDYN_SHA256_BYTES);
    cudyn__sha256_final(&h, digest);
    if (memcmp(digest, buf + size - CUDYN_SHA256_BYTES, sizeof digest) != 0)
        return -1;
    *n = cudyn__get_u32(buf + 12);
    *built_by = (int)cudyn__get_u32(buf + 24);
    size_t first = CUDYN_IMAGE_HEADER_BYTES + *n * ENTRY_BYTES, end = size - CUDYN_SHA256_BYTES;
    for (size_t i = 0; i < *n; i++) {
        const unsigned char *e = buf + CUDYN_IMAGE_HEADER_BYTES + i * ENTRY_BYTES;
        uint32_t arch = cudyn__get_u32(e), kind = cudyn__get_u32(e + 4);
        uint64_t offset = cudyn__get_u64(e + 8), bytes = cudyn__get_u64(e + 16);
        if ((kind != KIND_CUBIN && kind != KIND_PTX) || arch == 0 || arch > 10000 || offset < first ||
            offset > end || bytes > end - offset)
            return -1;
        parts[i] = (struct cudyn__image_part){(int)arch, kind == KIND_CUBIN, buf + offset, (size_t)bytes};
        if (!part_ok(&parts[i]))
            return -1;
    }
    return 0;
}

static bool is_fatbin(const unsigned char *p)
{
    return p[0] == 0x50 && p[1] == 0xED && p[2] == 0x55 && p[3] == 0xBA; /* 0xBA55ED50 */
}

static bool is_elf(const unsigned char *p)
{
    return p[0] == 0x7F && p[1] == 'E' && p[2] == 'L' && p[3] == 'F';
}

/* known: how many bytes may be read; for an image without a size, those
 * before its first NUL (the magics hold no NUL, so a shorter text cannot
 * be one and nothing past its NUL is read: "" and "x" are PTX). */
static enum cudyn__image_kind kind_of(const unsigned char *p, size_t known)
{
    if (known >= 8 && memcmp(p, CUDYN_IMAGE_MAGIC, 8) == 0)
        return CUDYN__IMAGE_OURS;
    if (known >= 4 && is_elf(p))
        return CUDYN__IMAGE_ELF;
    if (known >= 4 && is_fatbin(p))
        return CUDYN__IMAGE_FATBIN;
    return CUDYN__IMAGE_PTX;
}

/* A fatbinary's header: u32 magic, u16 version, u16 header size, u64 size
 * of what follows the header. */
static int check_fatbin(const unsigned char *p, size_t bytes, char *why, size_t cap)
{
    if (bytes < 16) {
        snprintf(why, cap, "the fatbinary is %zu bytes, shorter than its 16-byte header", bytes);
        return -1;
    }
    uint64_t header = cudyn__get_u16(p + 6), body = cudyn__get_u64(p + 8);
    if (header < 16 || header > bytes || body > bytes - header) {
        snprintf(why, cap, "the fatbinary's header announces %llu + %llu bytes, %zu were given",
                 (unsigned long long)header, (unsigned long long)body, bytes);
        return -1;
    }
    return 0;
}

static int check_container(const unsigned char *p, size_t bytes, bool sized, struct cudyn__image_view *v, char *why,
                           size_t cap)
{
    size_t total = 0;
    if (sized && bytes < CUDYN_IMAGE_HEADER_BYTES) {
        snprintf(why, cap, "the cudyn multi-architecture image is %zu bytes, shorter than its %d-byte header", bytes,
                 CUDYN_IMAGE_HEADER_BYTES);
        return -1;
    }
    if (image_header(p, &total) != 1) {
        snprintf(why, cap, "the cudyn multi-architecture image's header is damaged");
        return -1;
    }
    if (sized && total != bytes) {
        snprintf(why, cap,
                 "the cudyn multi-architecture image's header announces %zu bytes, %zu were given (damaged or "
                 "truncated)",
                 total, bytes);
        return -1;
    }
    if (image_unpack(p, total, v->parts, &v->n, &v->built_by) != 0) {
        snprintf(why, cap, "the cudyn multi-architecture image is damaged (entries or checksum)");
        return -1;
    }
    v->bytes = total;
    return 0;
}

int cudyn__image_inspect(const unsigned char *p, size_t bytes, bool sized, struct cudyn__image_view *v, char *why,
                         size_t cap)
{
    memset(v, 0, offsetof(struct cudyn__image_view, parts));
    v->n = 0;
    v->kind = kind_of(p, sized ? bytes : strnlen((const char *)p, 8));
    switch (v->kind) {
    case CUDYN__IMAGE_PTX:
        if (sized && !memchr(p, '\0', bytes)) {
            snprintf(why, cap, "the PTX text has no NUL within its %zu bytes", bytes);
            return -1;
        }
        return 0;
    case CUDYN__IMAGE_ELF:
        if (sized && cudyn__cubin_check(p, bytes, why, cap) != 0) {
            char detail[200];
            snprintf(detail, sizeof detail, "%s", why);
            snprintf(why, cap, "the CUBIN: %s", detail);
            return -1;
        }
        v->bytes = sized ? bytes : cudyn__cubin_extent(p);
        return 0;
    case CUDYN__IMAGE_FATBIN:
        return sized ? check_fatbin(p, bytes, why, cap) : 0;
    case CUDYN__IMAGE_OURS:
        break;
    }
    return check_container(p, bytes, sized, v, why, cap);
}

int cudyn__image_parse_arch(const char *name, int *arch, bool *cubin)
{
    const char *digits = strncmp(name, "sm_", 3) == 0 ? name + 3 : strncmp(name, "compute_", 8) == 0 ? name + 8 : NULL;
    size_t n = digits ? strspn(digits, "0123456789") : 0;
    if (!digits || n < 2 || n > 4 || digits[n] != '\0')
        return -1;
    *arch = atoi(digits);
    *cubin = name[0] == 's';
    return 0;
}
