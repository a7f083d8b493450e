/*
 * cache_entry.c - the kernel cache's file format (see cache.h).
 *
 * All integers little-endian:
 *   offset  bytes
 *    0       8     magic "CUDYNKC\0"
 *    8       4     format version (CACHE_FORMAT)
 *   12       4     number of sections
 *   16       8     total size of the entry in bytes (= the file's size)
 *   24      32     the key the entry was stored under
 *   56             sections: u32 tag, u64 length, then that many bytes
 *   size-32 32     SHA-256 of every byte before it
 *
 * Sections (each at most once unless noted):
 *   TARGET     text "TARGET ARCH CUBIN NVRTC": "sm_90 90 1 13000"
 *   IMAGE      the CUBIN or the NUL-terminated PTX; never empty
 *   LOG        NVRTC's log, without a NUL
 *   NAME       (any number) expression NUL lowered-name NUL
 *   DEP        (any number) a file the compile read, or a candidate that
 *              did not exist: u32 present, u64 dev, ino, size, i64 mtime_ns,
 *              ctime_ns, 32 bytes SHA-256 of the contents, path NUL
 *   INTERFACE  the kernels' PTX parameter lists (ptx_interface.c), no NUL
 * The header is checked before anything else is read, and every length
 * before the bytes it announces.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "compile/cache.h"
#include "compile/little_endian.h"

#define CACHE_MAGIC "CUDYNKC"
#define CACHE_FORMAT 2u
#define MAX_SECTIONS (16 + 1000 + CUDYN_MAX_DEPS)
#define DEP_FIXED_BYTES (4 + 5 * 8 + CUDYN_SHA256_BYTES)

enum section_tag { TAG_TARGET = 1, TAG_IMAGE = 2, TAG_LOG = 3, TAG_NAME = 4, TAG_DEP = 5, TAG_INTERFACE = 6 };

void cudyn__cache_entry_free(struct cudyn__cache_entry *e)
{
    if (e->ptx != e->image)
        free(e->ptx);
    free(e->image);
    free(e->log);
    free(e->interface);
    cudyn__names_free(&e->names);
    cudyn__deps_free(&e->deps);
    memset(e, 0, sizeof *e);
}

static unsigned char *copy_bytes(const void *p, size_t n, bool *ok)
{
    if (!p)
        return NULL;
    unsigned char *c = malloc(n ? n : 1);
    if (c)
        memcpy(c, p, n);
    else
        *ok = false;
    return c;
}

int cudyn__cache_entry_copy(struct cudyn__cache_entry *dst, const struct cudyn__cache_entry *src)
{
    bool ok = true;
    *dst = *src;
    dst->image = copy_bytes(src->image, src->image_size, &ok);
    dst->ptx = src->ptx == src->image ? dst->image : copy_bytes(src->ptx, src->ptx_size, &ok);
    dst->log = (char *)copy_bytes(src->log, src->log ? strlen(src->log) + 1 : 0, &ok);
    dst->interface = (char *)copy_bytes(src->interface, src->interface ? strlen(src->interface) + 1 : 0, &ok);
    memset(&dst->names, 0, sizeof dst->names);
    memset(&dst->deps, 0, sizeof dst->deps);
    if (!ok || cudyn__names_copy(&dst->names, &src->names) != 0 || cudyn__deps_copy(&dst->deps, &src->deps) != 0) {
        cudyn__cache_entry_free(dst);
        return -1;
    }
    return 0;
}

/* ------------------------------------------------------------ serialise */

struct writer {
    struct cudyn__text bytes; /* growing */
    uint32_t sections;
};

static void put(struct writer *w, const void *data, size_t n)
{
    cudyn__text_put(&w->bytes, data, n);
}

static void put_u32(struct writer *w, uint32_t v)
{
    unsigned char b[4];
    cudyn__set_u32(b, v);
    put(w, b, sizeof b);
}

static void put_u64(struct writer *w, uint64_t v)
{
    unsigned char b[8];
    cudyn__set_u64(b, v);
    put(w, b, sizeof b);
}

/* A section header; its `n` bytes follow through put(). */
static void begin_section(struct writer *w, uint32_t tag, size_t n)
{
    put_u32(w, tag);
    put_u64(w, n);
    w->sections++;
}

static void put_dep(struct writer *w, const struct cudyn__dep *d)
{
    size_t path = strlen(d->path) + 1;
    begin_section(w, TAG_DEP, DEP_FIXED_BYTES + path);
    put_u32(w, d->present ? 1 : 0);
    put_u64(w, d->dev);
    put_u64(w, d->ino);
    put_u64(w, d->size);
    put_u64(w, (uint64_t)d->mtime_ns);
    put_u64(w, (uint64_t)d->ctime_ns);
    put(w, d->sha256, CUDYN_SHA256_BYTES);
    put(w, d->path, path);
}

static void put_sections(struct writer *w, const struct cudyn__cache_entry *e)
{
    char target[96];
    int n = snprintf(target, sizeof target, "%s %d %d %d", e->target, e->arch, e->cubin ? 1 : 0, e->nvrtc_version);
    begin_section(w, TAG_TARGET, (size_t)n);
    put(w, target, (size_t)n);
    begin_section(w, TAG_IMAGE, e->image_size);
    put(w, e->image, e->image_size);
    size_t log = e->log ? strlen(e->log) : 0;
    begin_section(w, TAG_LOG, log);
    put(w, e->log, log);
    for (size_t i = 0; i < e->names.n; i++) {
        const struct cudyn__name_pair *pair = &e->names.pairs[i];
        size_t a = strlen(pair->expression) + 1, b = strlen(pair->lowered) + 1;
        begin_section(w, TAG_NAME, a + b);
        put(w, pair->expression, a);
        put(w, pair->lowered, b);
    }
    for (size_t i = 0; i < e->deps.n; i++)
        put_dep(w, &e->deps.v[i]);
    if (e->interface) {
        begin_section(w, TAG_INTERFACE, strlen(e->interface));
        put(w, e->interface, strlen(e->interface));
    }
}

unsigned char *cudyn__cache_serialise(const unsigned char key[CUDYN_SHA256_BYTES], const struct cudyn__cache_entry *e,
                                     size_t *size)
{
    if (!e->image || e->image_size == 0)
        return NULL; /* an empty image is never an entry */
    struct writer w = {.bytes = {.grows = true}};
    put(&w, CACHE_MAGIC, 8);
    put_u32(&w, CACHE_FORMAT);
    put_u32(&w, 0);   /* sections: set below */
    put_u64(&w, 0);   /* total size: set below */
    put(&w, key, CUDYN_SHA256_BYTES);
    put_sections(&w, e);
    size_t total = w.bytes.len + CUDYN_SHA256_BYTES;
    unsigned char *buf = (unsigned char *)w.bytes.buf;
    if (w.bytes.failed || total > CUDYN_CACHE_MAX_ENTRY_BYTES) {
        free(buf);
        return NULL;
    }
    cudyn__set_u32(buf + 12, w.sections);
    cudyn__set_u64(buf + 16, total);
    struct cudyn__sha256 h;
    unsigned char digest[CUDYN_SHA256_BYTES];
    cudyn__sha256_init(&h);
    cudyn__sha256_update(&h, buf, w.bytes.len);
    cudyn__sha256_final(&h, digest);
    put(&w, digest, sizeof digest);
    if (w.bytes.failed) {
        free(w.bytes.buf);
        return NULL;
    }
    *size = w.bytes.len;
    return (unsigned char *)w.bytes.buf;
}

/* ---------------------------------------------------------------- parse */

/* A NUL-terminated copy of n bytes. */
static char *copy_text(const unsigned char *p, size_t n)
{
    char *s = malloc(n + 1);
    if (s) {
        memcpy(s, p, n);
        s[n] = '\0';
    }
    return s;
}

static int parse_target(const unsigned char *p, size_t n, struct cudyn__cache_entry *e)
{
    char text[96];
    if (n == 0 || n >= sizeof text || memchr(p, '\0', n))
        return CACHE_PARSE_DAMAGED;
    memcpy(text, p, n);
    text[n] = '\0';
    int cubin = -1;
    if (sscanf(text, "%31s %d %d %d", e->target, &e->arch, &cubin, &e->nvrtc_version) != 4 ||
        (cubin != 0 && cubin != 1))
        return CACHE_PARSE_DAMAGED;
    e->cubin = cubin == 1;
    return 0;
}

static int add_name(const unsigned char *p, size_t n, struct cudyn__cache_entry *e)
{
    const unsigned char *nul = memchr(p, '\0', n);
    if (!nul || nul == p || p[n - 1] != '\0' || (size_t)(nul - p) + 1 >= n ||
        memchr(nul + 1, '\0', n - (size_t)(nul - p) - 1) != p + n - 1)
        return CACHE_PARSE_DAMAGED;
    return cudyn__names_add(&e->names, (const char *)p, (const char *)nul + 1) == 0 ? 0 : CACHE_PARSE_NO_MEMORY;
}

static int add_dep(const unsigned char *p, size_t n, struct cudyn__cache_entry *e)
{
    if (n < DEP_FIXED_BYTES + 2 || p[n - 1] != '\0' || memchr(p + DEP_FIXED_BYTES, '\0', n - DEP_FIXED_BYTES) != p + n - 1)
        return CACHE_PARSE_DAMAGED;
    uint32_t present = cudyn__get_u32(p);
    if (present > 1 || e->deps.n >= CUDYN_MAX_DEPS)
        return CACHE_PARSE_DAMAGED;
    struct cudyn__dep d = {
        .path = (char *)(p + DEP_FIXED_BYTES),
        .present = present == 1,
        .dev = cudyn__get_u64(p + 4),
        .ino = cudyn__get_u64(p + 12),
        .size = cudyn__get_u64(p + 20),
        .mtime_ns = (int64_t)cudyn__get_u64(p + 28),
        .ctime_ns = (int64_t)cudyn__get_u64(p + 36),
    };
    memcpy(d.sha256, p + 44, CUDYN_SHA256_BYTES);
    return cudyn__deps_add(&e->deps, &d) == 0 ? 0 : CACHE_PARSE_NO_MEMORY;
}

/* Copies a once-only byte section into *dst. */
static int take_once(unsigned char **dst, size_t *dst_size, const unsigned char *p, size_t n)
{
    if (*dst)
        return CACHE_PARSE_DAMAGED;
    if (!(*dst = (unsigned char *)copy_text(p, n)))
        return CACHE_PARSE_NO_MEMORY;
    if (dst_size)
        *dst_size = n;
    return 0;
}

static int parse_section(uint32_t tag, const unsigned char *p, size_t n, struct cudyn__cache_entry *e, bool *target)
{
    switch (tag) {
    case TAG_TARGET:
        if (*target)
            return CACHE_PARSE_DAMAGED;
        *target = true;
        return parse_target(p, n, e);
    case TAG_IMAGE:
        return n == 0 ? CACHE_PARSE_DAMAGED : take_once(&e->image, &e->image_size, p, n);
    case TAG_LOG:
        return take_once((unsigned char **)&e->log, NULL, p, n);
    case TAG_NAME:
        return add_name(p, n, e);
    case TAG_DEP:
        return add_dep(p, n, e);
    case TAG_INTERFACE:
        return take_once((unsigned char **)&e->interface, NULL, p, n);
    default:
        return CACHE_PARSE_DAMAGED;
    }
}

int cudyn__cache_header(const unsigned char *buf, size_t size, const unsigned char key[CUDYN_SHA256_BYTES],
                       size_t *total)
{
    if (size < CUDYN_CACHE_HEADER_BYTES || memcmp(buf, CACHE_MAGIC, 8) != 0 ||
        cudyn__get_u32(buf + 8) != CACHE_FORMAT || cudyn__get_u32(buf + 12) > MAX_SECTIONS ||
        memcmp(buf + 24, key, CUDYN_SHA256_BYTES) != 0)
        return -1;
    uint64_t announced = cudyn__get_u64(buf + 16);
    if (announced < CUDYN_CACHE_HEADER_BYTES + CUDYN_SHA256_BYTES || announced > CUDYN_CACHE_MAX_ENTRY_BYTES)
        return -1;
    *total = (size_t)announced;
    return 0;
}

int cudyn__cache_parse(const unsigned char *buf, size_t size, const unsigned char key[CUDYN_SHA256_BYTES],
                      struct cudyn__cache_entry *e)
{
    memset(e, 0, sizeof *e);
    size_t total = 0;
    if (cudyn__cache_header(buf, size, key, &total) != 0 || total != size)
        return CACHE_PARSE_DAMAGED;
    size_t body_end = size - CUDYN_SHA256_BYTES;
    struct cudyn__sha256 h;
    unsigned char digest[CUDYN_SHA256_BYTES];
    cudyn__sha256_init(&h);
    cudyn__sha256_update(&h, buf, body_end);
    cudyn__sha256_final(&h, digest);
    if (memcmp(digest, buf + body_end, sizeof digest) != 0)
        return CACHE_PARSE_DAMAGED;

    uint32_t sections = cudyn__get_u32(buf + 12);
    size_t pos = CUDYN_CACHE_HEADER_BYTES;
    bool have_target = false;
    int result = CACHE_PARSE_DAMAGED;
    for (uint32_t s = 0; s < sections; s++) {
        if (body_end - pos < 12)
            goto bad;
        uint32_t tag = cudyn__get_u32(buf + pos);
        uint64_t n = cudyn__get_u64(buf + pos + 4);
        pos += 12;
        if (n > body_end - pos)
            goto bad;
        int parsed = parse_section(tag, buf + pos, (size_t)n, e, &have_target);
        if (parsed != 0) {
            result = parsed;
            goto bad;
        }
        pos += (size_t)n;
    }
    if (pos != body_end || !have_target || !e->image)
        goto bad;
    if (!e->cubin) {
        /* a PTX image must be text ending in NUL, and is its own PTX */
        if (e->image[e->image_size - 1] != '\0')
            goto bad;
        e->ptx = e->image;
        e->ptx_size = e->image_size;
    }
    return 0;
bad:
    cudyn__cache_entry_free(e);
    return result;
}
