/*
 * cubin.c - a CUBIN's ELF64 headers and its kernels' parameter records,
 * each read only after its bounds are checked (the layout is in cubin.h).
 */
#include "config.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compile/cubin.h"
#include "compile/little_endian.h"
#include "internal.h"

#define EHDR_BYTES 64
#define SHDR_BYTES 64
#define PHDR_BYTES 56
#define SHT_NOBITS 8u
/* .nv.info attributes: u8 format, u8 attribute, then by format nothing
 * (EIFMT_NVAL 1), u16 (EIFMT_HVAL 3), or u16 size and that many bytes
 * (EIFMT_SVAL 4; EIFMT_BVAL 2 is one byte) */
#define EIFMT_NVAL 1u
#define EIFMT_BVAL 2u
#define EIFMT_HVAL 3u
#define EIFMT_SVAL 4u
#define EIATTR_KPARAM_INFO 0x17u
#define EIATTR_PARAM_CBANK 0x0Au
#define EIATTR_CBANK_PARAM_SIZE 0x19u

struct elf {
    const unsigned char *p;
    size_t bytes;
    uint64_t shoff, phoff;
    unsigned shnum, phnum, shstrndx;
};

/* Whether [offset, offset + n) lies within bytes (no overflow). */
static bool within(uint64_t offset, uint64_t n, size_t bytes)
{
    return offset <= bytes && n <= bytes - offset;
}

static int open_elf(struct elf *e, const unsigned char *p, size_t bytes, char *why, size_t cap)
{
    if (bytes < EHDR_BYTES) {
        snprintf(why, cap, "%zu bytes, shorter than an ELF64 header (%d)", bytes, EHDR_BYTES);
        return -1;
    }
    if (memcmp(p, "\177ELF", 4) != 0 || p[4] != 2 || p[5] != 1) {
        snprintf(why, cap, "not a 64-bit little-endian ELF file");
        return -1;
    }
    *e = (struct elf){p, bytes, cudyn__get_u64(p + 40), cudyn__get_u64(p + 32), cudyn__get_u16(p + 60),
                      cudyn__get_u16(p + 56), cudyn__get_u16(p + 62)};
    if (e->shnum && cudyn__get_u16(p + 58) != SHDR_BYTES) {
        snprintf(why, cap, "section headers of %u bytes, not %d", cudyn__get_u16(p + 58), SHDR_BYTES);
        return -1;
    }
    if (e->phnum && cudyn__get_u16(p + 54) != PHDR_BYTES) {
        snprintf(why, cap, "program headers of %u bytes, not %d", cudyn__get_u16(p + 54), PHDR_BYTES);
        return -1;
    }
    if (!within(e->shoff, (uint64_t)e->shnum * SHDR_BYTES, bytes) ||
        !within(e->phoff, (uint64_t)e->phnum * PHDR_BYTES, bytes)) {
        snprintf(why, cap, "its header tables lie past its %zu bytes", bytes);
        return -1;
    }
    if (e->shnum && e->shstrndx >= e->shnum) {
        snprintf(why, cap, "section-name table %u of %u sections", e->shstrndx, e->shnum);
        return -1;
    }
    return 0;
}

static const unsigned char *section(const struct elf *e, unsigned i)
{
    return e->p + e->shoff + (uint64_t)i * SHDR_BYTES;
}

int cudyn__cubin_check(const unsigned char *p, size_t bytes, char *why, size_t cap)
{
    struct elf e;
    if (open_elf(&e, p, bytes, why, cap) != 0)
        return -1;
    for (unsigned i = 0; i < e.shnum; i++) {
        const unsigned char *s = section(&e, i);
        if (cudyn__get_u32(s + 4) != SHT_NOBITS && !within(cudyn__get_u64(s + 24), cudyn__get_u64(s + 32), bytes)) {
            snprintf(why, cap, "section %u lies past its %zu bytes", i, bytes);
            return -1;
        }
    }
    for (unsigned i = 0; i < e.phnum; i++) {
        const unsigned char *ph = p + e.phoff + (uint64_t)i * PHDR_BYTES;
        if (!within(cudyn__get_u64(ph + 8), cudyn__get_u64(ph + 32), bytes)) {
            snprintf(why, cap, "segment %u lies past its %zu bytes", i, bytes);
            return -1;
        }
    }
    return 0;
}

static uint64_t max_u64(uint64_t a, uint64_t b)
{
    return a > b ? a : b;
}

size_t cudyn__cubin_extent(const unsigned char *p)
{
    if (memcmp(p, "\177ELF", 4) != 0 || p[4] != 2 || p[5] != 1)
        return 0;
    uint64_t shoff = cudyn__get_u64(p + 40), phoff = cudyn__get_u64(p + 32);
    unsigned shnum = cudyn__get_u16(p + 60), phnum = cudyn__get_u16(p + 56);
    uint64_t end = EHDR_BYTES;
    if (shnum)
        end = max_u64(end, shoff + (uint64_t)shnum * SHDR_BYTES);
    if (phnum)
        end = max_u64(end, phoff + (uint64_t)phnum * PHDR_BYTES);
    for (unsigned i = 0; i < shnum; i++) {
        const unsigned char *s = p + shoff + (uint64_t)i * SHDR_BYTES;
        if (cudyn__get_u32(s + 4) != SHT_NOBITS)
            end = max_u64(end, cudyn__get_u64(s + 24) + cudyn__get_u64(s + 32));
    }
    return end > SIZE_MAX ? 0 : (size_t)end;
}

/* The name of section i, NUL-terminated within the name table, or NULL. */
static const char *section_name(const struct elf *e, unsigned i)
{
    const unsigned char *names = section(e, e->shstrndx);
    uint64_t base = cudyn__get_u64(names + 24), size = cudyn__get_u64(names + 32);
    uint64_t at = cudyn__get_u32(section(e, i));
    if (!within(base, size, e->bytes) || at >= size || !memchr(e->p + base + at, '\0', size - at))
        return NULL;
    return (const char *)e->p + base + at;
}

int cudyn__cubin_kernel_params(const unsigned char *p, size_t bytes, const char *kernel,
                               size_t sizes[CUDYN_CUBIN_MAX_PARAMS])
{
    struct elf e;
    char why[128];
    if (open_elf(&e, p, bytes, why, sizeof why) != 0 || e.shnum == 0)
        return -1;
    for (unsigned i = 0; i < e.shnum; i++) {
        const char *name = section_name(&e, i);
        if (!name || strncmp(name, ".nv.info.", 9) != 0 || strcmp(name + 9, kernel) != 0)
            continue;
        const unsigned char *s = section(&e, i);
        uint64_t at = cudyn__get_u64(s + 24), size = cudyn__get_u64(s + 32);
        if (!within(at, size, bytes))
            return -1;
        const unsigned char *q = p + at, *end = p + at + size;
        bool seen[CUDYN_CUBIN_MAX_PARAMS] = {false};
        int count = 0;
        /* the parameters' constant bank and total size: recorded for every
         * kernel that has parameters (NVRTC 13 writes neither for a kernel
         * without) */
        bool bank = false, sized = false;
        unsigned total = 0;
        while (end - q >= 2) {
            unsigned format = q[0], attribute = q[1];
            size_t value = format == EIFMT_NVAL ? 0 : format == EIFMT_BVAL ? 1 : format == EIFMT_HVAL ? 2 : 0;
            q += 2;
            if (format == EIFMT_SVAL) {
                if (end - q < 2)
                    return -1;
                value = cudyn__get_u16(q);
                q += 2;
            } else if (format != EIFMT_NVAL && format != EIFMT_BVAL && format != EIFMT_HVAL)
                return -1; /* a format this reader does not know: the rest cannot be framed */
            if ((size_t)(end - q) < value)
                return -1;
            if (attribute == EIATTR_PARAM_CBANK)
                bank = true;
            if (attribute == EIATTR_CBANK_PARAM_SIZE && format == EIFMT_HVAL) {
                sized = true;
                total = cudyn__get_u16(q);
            }
            if (attribute == EIATTR_KPARAM_INFO && format == EIFMT_SVAL && value >= 12) {
                /* u32 index, u16 ordinal, u16 offset, u32 flags with the
                 * size in bytes in bits 18-31 */
                unsigned ordinal = cudyn__get_u16(q + 4);
                size_t psize = cudyn__get_u32(q + 8) >> 18;
                if (ordinal >= CUDYN_CUBIN_MAX_PARAMS || seen[ordinal])
                    return -1;
                seen[ordinal] = true;
                if (sizes)
                    sizes[ordinal] = psize;
                if ((int)ordinal + 1 > count)
                    count = (int)ordinal + 1;
            }
            q += value;
        }
        for (int k = 0; k < count; k++)
            if (!seen[k])
                return -1; /* a gap: the records do not add up */
        if (count > 0)
            return count;
        /* no parameter records: none, unless the kernel has a parameter bank */
        return sized ? (total == 0 ? 0 : -1) : bank ? -1 : 0;
    }
    return -1;
}

/* A parameter of `size` bytes as PTX would declare one whose kind is not
 * known: bits of that width, or bytes. */
static void add_param(struct cudyn__text *t, int i, size_t size)
{
    char decl[64];
    int n = size == 1 || size == 2 || size == 4 || size == 8
                ? snprintf(decl, sizeof decl, "%s.param .b%zu p%d", i ? ", " : "", size * 8, i)
                : snprintf(decl, sizeof decl, "%s.param .b8 p%d[%zu]", i ? ", " : "", i, size);
    cudyn__text_put(t, decl, (size_t)n);
}

char *cudyn__cubin_interface(const unsigned char *p, size_t bytes)
{
    struct elf e;
    char why[128];
    if (open_elf(&e, p, bytes, why, sizeof why) != 0)
        return NULL;
    struct cudyn__text t = {.grows = true};
    for (unsigned i = 0; i < e.shnum; i++) {
        const char *name = section_name(&e, i);
        size_t sizes[CUDYN_CUBIN_MAX_PARAMS];
        int count;
        if (!name || strncmp(name, ".nv.info.", 9) != 0 || !name[9] ||
            (count = cudyn__cubin_kernel_params(p, bytes, name + 9, sizes)) < 0)
            continue;
        cudyn__text_put(&t, name + 9, strlen(name + 9));
        cudyn__text_put(&t, "(", 1);
        for (int k = 0; k < count; k++)
            add_param(&t, k, sizes[k]);
        cudyn__text_put(&t, ")\n", 2);
    }
    if (t.failed || t.len == 0) {
        free(t.buf);
        return NULL;
    }
    return t.buf;
}
