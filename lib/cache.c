/*
 * cache.c - the persistent kernel cache (see cache.h).
 *
 * File format (all integers little-endian):
 *   "CUDYNKC\0"  8 bytes magic
 *   u32          format version (CACHE_FORMAT)
 *   u32          number of sections
 *   32 bytes     the key the entry was stored under
 *   sections     u32 tag, u64 length, bytes
 *   32 bytes     SHA-256 of everything before it
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cache.h"
#include "internal.h"

#define CACHE_MAGIC "CUDYNKC"
#define CACHE_FORMAT 1u
#define MAX_ENTRY_BYTES ((size_t)256 << 20)
#define MAX_SECTIONS 4096
#define HEADER_BYTES (8 + 4 + 4 + CUDYN_SHA256_BYTES)

enum section_tag { TAG_TARGET = 1, TAG_IMAGE = 2, TAG_PTX = 3, TAG_LOG = 4, TAG_NAME = 5 };

void cudyn__cache_entry_free(struct cudyn__cache_entry *e)
{
    if (e->ptx != e->image)
        free(e->ptx);
    free(e->image);
    free(e->log);
    cudyn__names_free(&e->names);
    memset(e, 0, sizeof *e);
}

/* ------------------------------------------------------------ serialise */

struct writer {
    unsigned char *buf;
    size_t len, cap;
    bool failed;
};

static void put(struct writer *w, const void *data, size_t n)
{
    if (w->failed)
        return;
    if (w->len + n > w->cap) {
        size_t cap = w->cap ? w->cap : 4096;
        while (cap < w->len + n)
            cap *= 2;
        unsigned char *b = realloc(w->buf, cap);
        if (!b) {
            w->failed = true;
            return;
        }
        w->buf = b;
        w->cap = cap;
    }
    memcpy(w->buf + w->len, data, n);
    w->len += n;
}

static void put_u32(struct writer *w, uint32_t v)
{
    unsigned char b[4] = {(unsigned char)v, (unsigned char)(v >> 8), (unsigned char)(v >> 16), (unsigned char)(v >> 24)};
    put(w, b, 4);
}

static void put_u64(struct writer *w, uint64_t v)
{
    put_u32(w, (uint32_t)v);
    put_u32(w, (uint32_t)(v >> 32));
}

static void put_section(struct writer *w, uint32_t tag, const void *data, size_t n)
{
    put_u32(w, tag);
    put_u64(w, n);
    put(w, data, n);
}

unsigned char *cudyn__cache_serialise(const unsigned char key[CUDYN_SHA256_BYTES], const struct cudyn__cache_entry *e,
                                     size_t *size)
{
    struct writer w = {0};
    put(&w, CACHE_MAGIC, 8);
    put_u32(&w, CACHE_FORMAT);
    put_u32(&w, (uint32_t)(3 + (e->ptx && e->ptx != e->image) + e->names.n));
    put(&w, key, CUDYN_SHA256_BYTES);
    char target[64];
    int n = snprintf(target, sizeof target, "%s %d %d", e->target, e->arch, e->cubin ? 1 : 0);
    put_section(&w, TAG_TARGET, target, (size_t)n);
    put_section(&w, TAG_IMAGE, e->image, e->image_size);
    if (e->ptx && e->ptx != e->image)
        put_section(&w, TAG_PTX, e->ptx, e->ptx_size);
    put_section(&w, TAG_LOG, e->log ? e->log : "", e->log ? strlen(e->log) : 0);
    for (size_t i = 0; i < e->names.n; i++) {
        const struct cudyn__name_pair *pair = &e->names.pairs[i];
        size_t a = strlen(pair->expression) + 1, b = strlen(pair->lowered) + 1;
        put_u32(&w, TAG_NAME);
        put_u64(&w, a + b);
        put(&w, pair->expression, a);
        put(&w, pair->lowered, b);
    }
    if (!w.failed) {
        struct cudyn__sha256 h;
        unsigned char digest[CUDYN_SHA256_BYTES];
        cudyn__sha256_init(&h);
        cudyn__sha256_update(&h, w.buf, w.len);
        cudyn__sha256_final(&h, digest);
        put(&w, digest, sizeof digest);
    }
    if (w.failed) {
        free(w.buf);
        return NULL;
    }
    *size = w.len;
    return w.buf;
}

/* ---------------------------------------------------------------- parse */

static uint32_t get_u32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t get_u64(const unsigned char *p)
{
    return (uint64_t)get_u32(p) | (uint64_t)get_u32(p + 4) << 32;
}

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
    char text[64];
    if (n == 0 || n >= sizeof text)
        return -1;
    memcpy(text, p, n);
    text[n] = '\0';
    int cubin = -1;
    if (sscanf(text, "%31s %d %d", e->target, &e->arch, &cubin) != 3 || (cubin != 0 && cubin != 1))
        return -1;
    e->cubin = cubin == 1;
    return 0;
}

static int add_name(const unsigned char *p, size_t n, struct cudyn__cache_entry *e)
{
    const unsigned char *nul = memchr(p, '\0', n);
    if (!nul || nul == p || p[n - 1] != '\0' || (size_t)(nul - p) + 1 >= n ||
        memchr(nul + 1, '\0', n - (size_t)(nul - p) - 1) != p + n - 1)
        return -1;
    if (cudyn__names_add(&e->names, (const char *)p, (const char *)nul + 1) != 0)
        return -1;
    return 0;
}

int cudyn__cache_parse(const unsigned char *buf, size_t size, const unsigned char key[CUDYN_SHA256_BYTES],
                      struct cudyn__cache_entry *e)
{
    memset(e, 0, sizeof *e);
    if (size < HEADER_BYTES + CUDYN_SHA256_BYTES || size > MAX_ENTRY_BYTES)
        return -1;
    if (memcmp(buf, CACHE_MAGIC, 8) != 0 || get_u32(buf + 8) != CACHE_FORMAT)
        return -1;
    uint32_t sections = get_u32(buf + 12);
    if (sections > MAX_SECTIONS || memcmp(buf + 16, key, CUDYN_SHA256_BYTES) != 0)
        return -1;
    size_t body_end = size - CUDYN_SHA256_BYTES;
    struct cudyn__sha256 h;
    unsigned char digest[CUDYN_SHA256_BYTES];
    cudyn__sha256_init(&h);
    cudyn__sha256_update(&h, buf, body_end);
    cudyn__sha256_final(&h, digest);
    if (memcmp(digest, buf + body_end, sizeof digest) != 0)
        return -1;

    size_t pos = HEADER_BYTES;
    bool have_target = false;
    for (uint32_t s = 0; s < sections; s++) {
        if (body_end - pos < 12)
            goto bad;
        uint32_t tag = get_u32(buf + pos);
        uint64_t n = get_u64(buf + pos + 4);
        pos += 12;
        if (n > body_end - pos)
            goto bad;
        const unsigned char *p = buf + pos;
        pos += (size_t)n;
        switch (tag) {
        case TAG_TARGET:
            if (have_target || parse_target(p, (size_t)n, e) != 0)
                goto bad;
            have_target = true;
            break;
        case TAG_IMAGE:
            if (e->image || n == 0 || !(e->image = (unsigned char *)copy_text(p, (size_t)n)))
                goto bad;
            e->image_size = (size_t)n;
            break;
        case TAG_PTX:
            if (e->ptx || n == 0 || !(e->ptx = (unsigned char *)copy_text(p, (size_t)n)))
                goto bad;
            e->ptx_size = (size_t)n;
            break;
        case TAG_LOG:
            if (e->log || !(e->log = copy_text(p, (size_t)n)))
                goto bad;
            break;
        case TAG_NAME:
            if (add_name(p, (size_t)n, e) != 0)
                goto bad;
            break;
        default:
            goto bad;
        }
    }
    if (pos != body_end || !have_target || !e->image)
        goto bad;
    if (!e->cubin) {
        /* a PTX image must be text ending in NUL, and is its own PTX */
        if (e->image[e->image_size - 1] != '\0' || e->ptx)
            goto bad;
        e->ptx = e->image;
        e->ptx_size = e->image_size;
    }
    return 0;
bad:
    cudyn__cache_entry_free(e);
    return -1;
}

/* ------------------------------------------------------------ directory */

static struct {
    pthread_once_t once;
    char dir[4096];
    bool enabled;
} cache = {.once = PTHREAD_ONCE_INIT};

/* mkdir -p, new directories 0700. */
static int make_dirs(const char *path)
{
    char tmp[4096];
    cudyn__copy_string(tmp, sizeof tmp, path);
    for (char *p = tmp + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(tmp, 0700) != 0 && errno != EEXIST)
            return -1;
        *p = '/';
    }
    if (mkdir(tmp, 0700) != 0 && errno != EEXIST)
        return -1;
    return 0;
}

/* Owned by us and writable by nobody else. */
static bool trusted(const struct stat *st)
{
    return st->st_uid == geteuid() && (st->st_mode & (S_IWGRP | S_IWOTH)) == 0;
}

static void cache_setup(void)
{
    const char *off = cudyn__getenv("CUDYN_CACHE");
    if (off && strcmp(off, "0") == 0) {
        cudyn__debug("cache: off (CUDYN_CACHE=0)");
        return;
    }
    const char *dir = cudyn__getenv("CUDYN_CACHE_DIR");
    const char *xdg = cudyn__getenv("XDG_CACHE_HOME");
    const char *home = cudyn__getenv("HOME");
    if (dir && dir[0])
        cudyn__copy_string(cache.dir, sizeof cache.dir, dir);
    else if (xdg && xdg[0] == '/')
        snprintf(cache.dir, sizeof cache.dir, "%s/cudyn", xdg);
    else if (home && home[0] == '/')
        snprintf(cache.dir, sizeof cache.dir, "%s/.cache/cudyn", home);
    else {
        cudyn__debug("cache: off (no CUDYN_CACHE_DIR, XDG_CACHE_HOME or HOME)");
        return;
    }
    struct stat st;
    if (make_dirs(cache.dir) != 0 || lstat(cache.dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        cudyn__debug("cache: off (%s cannot be created)", cache.dir);
        return;
    }
    if (!trusted(&st)) {
        cudyn__debug("cache: off (%s is not owned by this user or is writable by others)", cache.dir);
        return;
    }
    if (access(cache.dir, W_OK) != 0)
        cudyn__debug("cache: %s is not writable; entries will be read but not stored", cache.dir);
    cache.enabled = true;
    cudyn__debug("cache: %s", cache.dir);
}

const char *cudyn__cache_dir(void)
{
    pthread_once(&cache.once, cache_setup);
    return cache.enabled ? cache.dir : NULL;
}

static void entry_path(const unsigned char key[CUDYN_SHA256_BYTES], char *out, size_t cap)
{
    char hex[2 * CUDYN_SHA256_BYTES + 1];
    for (int i = 0; i < CUDYN_SHA256_BYTES; i++)
        snprintf(hex + 2 * i, 3, "%02x", key[i]);
    snprintf(out, cap, "%s/%s.kc", cache.dir, hex);
}

int cudyn__cache_load(const unsigned char key[CUDYN_SHA256_BYTES], struct cudyn__cache_entry *e)
{
    if (!cudyn__cache_dir())
        return -1;
    char path[4200];
    entry_path(key, path, sizeof path);
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return -1;
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || !trusted(&st)) {
        cudyn__debug("cache: %s is not trusted (owner or mode); ignored", path);
        close(fd);
        return -1;
    }
    if (st.st_size <= 0 || (size_t)st.st_size > MAX_ENTRY_BYTES) {
        close(fd);
        cudyn__debug("cache: %s has a bad size; removed", path);
        unlink(path);
        return -1;
    }
    size_t size = (size_t)st.st_size, got = 0;
    unsigned char *buf = malloc(size);
    while (buf && got < size) {
        ssize_t r = read(fd, buf + got, size - got);
        if (r <= 0)
            break;
        got += (size_t)r;
    }
    close(fd);
    int rc = buf && got == size ? cudyn__cache_parse(buf, size, key, e) : -1;
    free(buf);
    if (rc != 0) {
        cudyn__debug("cache: %s is damaged; removed", path);
        unlink(path);
    }
    return rc;
}

void cudyn__cache_store(const unsigned char key[CUDYN_SHA256_BYTES], const struct cudyn__cache_entry *e)
{
    if (!cudyn__cache_dir())
        return;
    size_t size = 0;
    unsigned char *buf = cudyn__cache_serialise(key, e, &size);
    if (!buf)
        return;
    char path[4200], tmp[4300];
    entry_path(key, path, sizeof path);
    static atomic_uint counter;
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld.%u", path, (long)getpid(), atomic_fetch_add(&counter, 1));
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    size_t done = 0;
    while (fd >= 0 && done < size) {
        ssize_t w = write(fd, buf + done, size - done);
        if (w <= 0)
            break;
        done += (size_t)w;
    }
    free(buf);
    bool ok = fd >= 0 && done == size;
    if (fd >= 0 && close(fd) != 0)
        ok = false;
    /* rename is atomic: readers see the old entry or the whole new one */
    if (!ok || rename(tmp, path) != 0) {
        cudyn__debug("cache: could not store %s: %s", path, strerror(errno));
        unlink(tmp);
    }
}

void cudyn__cache_remove(const unsigned char key[CUDYN_SHA256_BYTES])
{
    if (!cudyn__cache_dir())
        return;
    char path[4200];
    entry_path(key, path, sizeof path);
    unlink(path);
}
