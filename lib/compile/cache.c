/*
 * cache.c - the kernel cache's directory (see cache.h): finding, creating
 * and trusting it, reading and writing entries through one directory
 * descriptor, least-recently-used eviction, and the public cudyn_cache_info
 * and cudyn_cache_clear.
 *
 * The directory is opened once and everything after works relative to that
 * descriptor (openat, renameat, unlinkat, fstatat without following links),
 * so swapping the path after the check changes nothing.  An entry's
 * modification time is its last use: a hit sets it, eviction removes the
 * oldest first.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"
#include "compile/cache.h"
#include "loader/loader.h"

#define ENTRY_SUFFIX ".kc"
#define TMP_MARK ".tmp."
#define STALE_TMP_SECONDS 600 /* a temporary file this old lost its writer */
#define ENTRY_NAME_BYTES (2 * CUDYN_SHA256_BYTES + sizeof ENTRY_SUFFIX)

static struct {
    pthread_once_t once;
    int fd;                 /* the directory, or -1 */
    char dir[PATH_MAX];
    char reason[PATH_MAX + 128]; /* why it is off */
    uint64_t max_bytes;     /* 0 = no limit */
} cache = {.once = PTHREAD_ONCE_INIT, .fd = -1};

/* ------------------------------------------------------------ directory */

/* mkdir -p, new directories 0700. */
static int make_dirs(const char *path)
{
    char tmp[PATH_MAX];
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

static void off(const char *fmt, ...) CUDYN_PRINTF(1, 2);
static void off(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cache.reason, sizeof cache.reason, fmt, ap);
    va_end(ap);
    cudyn__debug("cache: off (%s)", cache.reason);
}

/* The directory's path from the environment; false (and the reason) if
 * none, or if it does not fit PATH_MAX: a cut path is another directory. */
static bool choose_dir(void)
{
    const char *dir = cudyn__getenv("CUDYN_CACHE_DIR");
    const char *xdg = cudyn__getenv("XDG_CACHE_HOME");
    const char *home = cudyn__getenv("HOME");
    int n;
    if (dir && dir[0])
        n = snprintf(cache.dir, sizeof cache.dir, "%s", dir);
    else if (xdg && xdg[0] == '/')
        n = snprintf(cache.dir, sizeof cache.dir, "%s/cudyn", xdg);
    else if (home && home[0] == '/')
        n = snprintf(cache.dir, sizeof cache.dir, "%s/.cache/cudyn", home);
    else {
        off("%s", "no CUDYN_CACHE_DIR, XDG_CACHE_HOME or HOME");
        return false;
    }
    if (n < 0 || (size_t)n >= sizeof cache.dir) {
        cache.dir[0] = '\0';
        off("the cache directory's path is longer than PATH_MAX (%d bytes); refusing to cut it", PATH_MAX);
        return false;
    }
    return true;
}

/* CUDYN_CACHE_MAX_BYTES: bytes, with an optional K, M or G (binary). */
static uint64_t max_bytes_setting(void)
{
    const char *v = cudyn__getenv("CUDYN_CACHE_MAX_BYTES");
    if (!v || !v[0])
        return CUDYN_CACHE_DEFAULT_MAX_BYTES;
    char *end = NULL;
    errno = 0;
    unsigned long long n = strtoull(v, &end, 10);
    int shift = *end == 'K' ? 10 : *end == 'M' ? 20 : *end == 'G' ? 30 : 0;
    if (shift)
        end++;
    if (errno || end == v || *end || v[0] == '-' || n > (UINT64_MAX >> shift)) {
        cudyn__debug("cache: CUDYN_CACHE_MAX_BYTES=%s is not a size; using %llu", v,
                     (unsigned long long)CUDYN_CACHE_DEFAULT_MAX_BYTES);
        return CUDYN_CACHE_DEFAULT_MAX_BYTES;
    }
    return (uint64_t)n << shift;
}

static void cache_setup(void)
{
    const char *setting = cudyn__getenv("CUDYN_CACHE");
    if (setting && strcmp(setting, "0") == 0) {
        off("%s", "CUDYN_CACHE=0");
        return;
    }
    if (!choose_dir())
        return;
    cache.max_bytes = max_bytes_setting();
    if (make_dirs(cache.dir) != 0) {
        off("%s cannot be created", cache.dir);
        return;
    }
    /* opened once, without following a link; used only through fd */
    int fd = open(cache.dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        off("%s cannot be opened as a directory (a symbolic link is not followed)", cache.dir);
        if (fd >= 0)
            close(fd);
        return;
    }
    if (!trusted(&st)) {
        off("%s is not owned by this user or is writable by others", cache.dir);
        close(fd);
        return;
    }
    if (faccessat(fd, ".", W_OK, AT_EACCESS) != 0)
        cudyn__debug("cache: %s is not writable; entries will be read but not stored", cache.dir);
    cache.fd = fd;
    cudyn__debug("cache: %s (limit %llu bytes)", cache.dir, (unsigned long long)cache.max_bytes);
}

/* The directory descriptor, or -1 when the cache is off. */
static int cache_fd(void)
{
    pthread_once(&cache.once, cache_setup);
    return cache.fd;
}

static void entry_name(const unsigned char key[CUDYN_SHA256_BYTES], char out[ENTRY_NAME_BYTES])
{
    static const char hex[] = "0123456789abcdef";
    for (int i = 0; i < CUDYN_SHA256_BYTES; i++) {
        out[2 * i] = hex[key[i] >> 4];
        out[2 * i + 1] = hex[key[i] & 15];
    }
    memcpy(out + 2 * CUDYN_SHA256_BYTES, ENTRY_SUFFIX, sizeof ENTRY_SUFFIX);
}

/* ---------------------------------------------------------------- read */

/* Reads exactly n bytes at offset; false on a short read or an error. */
static bool read_at(int fd, unsigned char *buf, size_t n, off_t offset)
{
    size_t got = 0;
    while (got < n) {
        ssize_t r = pread(fd, buf + got, n - got, offset + (off_t)got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return false;
        got += (size_t)r;
    }
    return true;
}

enum read_result { READ_OK, READ_DAMAGED, READ_FAILED };

/* An opened entry: header first, bounded by what it and the file's size
 * say, then the rest.  Only a parse or checksum failure is damage; a
 * failed malloc or read is not. */
static enum read_result read_entry(int fd, const struct stat *st, const unsigned char key[CUDYN_SHA256_BYTES],
                                   struct cudyn__cache_entry *e)
{
    unsigned char header[CUDYN_CACHE_HEADER_BYTES];
    size_t total = 0;
    if (st->st_size < (off_t)sizeof header || (uint64_t)st->st_size > CUDYN_CACHE_MAX_ENTRY_BYTES)
        return READ_DAMAGED;
    if (!read_at(fd, header, sizeof header, 0))
        return READ_FAILED;
    if (cudyn__cache_header(header, sizeof header, key, &total) != 0 || total != (size_t)st->st_size)
        return READ_DAMAGED;
    unsigned char *buf = malloc(total);
    if (!buf)
        return READ_FAILED;
    memcpy(buf, header, sizeof header);
    enum read_result r = READ_FAILED;
    if (read_at(fd, buf + sizeof header, total - sizeof header, (off_t)sizeof header)) {
        int parsed = cudyn__cache_parse(buf, total, key, e);
        r = parsed == 0 ? READ_OK : parsed == CACHE_PARSE_NO_MEMORY ? READ_FAILED : READ_DAMAGED;
        if (parsed == CACHE_PARSE_NO_MEMORY)
            errno = ENOMEM; /* for the debug line */
    }
    free(buf);
    return r;
}

int cudyn__cache_load(const unsigned char key[CUDYN_SHA256_BYTES], struct cudyn__cache_entry *e)
{
    int dfd = cache_fd();
    if (dfd < 0)
        return -1;
    char name[ENTRY_NAME_BYTES];
    entry_name(key, name);
    /* never blocks (a FIFO), never follows a link; checked before reading */
    int fd = cudyn__open_regular(dfd, name, O_NOFOLLOW);
    struct stat st;
    if (fd < 0 && errno == EINVAL)
        cudyn__debug("cache: %s/%s is not a regular file; ignored", cache.dir, name);
    if (fd < 0)
        return -1;
    if (fstat(fd, &st) != 0 || !trusted(&st)) {
        cudyn__debug("cache: %s/%s is not a regular file of this user's that only it can write; ignored", cache.dir,
                     name);
        close(fd);
        return -1;
    }
    enum read_result r = read_entry(fd, &st, key, e);
    if (r == READ_OK)
        futimens(fd, NULL); /* its last use, for the LRU order */
    close(fd);
    if (r == READ_DAMAGED) {
        cudyn__debug("cache: %s/%s is damaged; removed", cache.dir, name);
        unlinkat(dfd, name, 0);
    } else if (r == READ_FAILED) {
        cudyn__debug("cache: %s/%s could not be read (%s); kept", cache.dir, name, strerror(errno));
    }
    return r == READ_OK ? 0 : -1;
}

void cudyn__cache_remove(const unsigned char key[CUDYN_SHA256_BYTES])
{
    int dfd = cache_fd();
    if (dfd < 0)
        return;
    char name[ENTRY_NAME_BYTES];
    entry_name(key, name);
    unlinkat(dfd, name, 0);
}

/* ------------------------------------------------------------- eviction */

struct entry_file {
    char name[ENTRY_NAME_BYTES];
    int64_t used_ns; /* modification time: last store or hit */
    uint64_t bytes;
};

struct listing {
    struct entry_file *v;
    size_t n, cap;
    uint64_t bytes;
};

static bool is_entry_name(const char *name)
{
    size_t n = strlen(name);
    return n == ENTRY_NAME_BYTES - 1 && strcmp(name + n - strlen(ENTRY_SUFFIX), ENTRY_SUFFIX) == 0;
}

/* Temporary files whose writer died long ago go. */
static void remove_stale_tmp(int dfd, const char *name, const struct stat *st)
{
    if (strstr(name, TMP_MARK) && S_ISREG(st->st_mode) && st->st_uid == geteuid() &&
        time(NULL) - st->st_mtime > STALE_TMP_SECONDS)
        unlinkat(dfd, name, 0);
}

/* The directory's entries (regular files of ours, by name); -1 with errno
 * on error (ENOMEM when the list cannot grow).
 * tidy: also remove temporary files whose writer died long ago. */
static int list_entries(int dfd, struct listing *out, bool tidy)
{
    /* a description of its own: a dup would share the read position with
     * other threads listing at the same time */
    int own = openat(dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    DIR *d = own >= 0 ? fdopendir(own) : NULL;
    if (!d) {
        if (own >= 0)
            close(own);
        return -1;
    }
    struct dirent *de;
    while ((de = readdir(d))) {
        struct stat st;
        if (fstatat(dfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0)
            continue;
        if (tidy)
            remove_stale_tmp(dfd, de->d_name, &st);
        if (!is_entry_name(de->d_name) || !S_ISREG(st.st_mode) || st.st_uid != geteuid())
            continue;
        if (out->n == out->cap) {
            size_t cap = out->cap ? 2 * out->cap : 64;
            struct entry_file *v = realloc(out->v, cap * sizeof *v);
            if (!v) { /* a partial list would under-count, or clear only part */
                closedir(d);
                errno = ENOMEM;
                return -1;
            }
            out->v = v;
            out->cap = cap;
        }
        struct entry_file *f = &out->v[out->n++];
        memcpy(f->name, de->d_name, ENTRY_NAME_BYTES);
        f->used_ns = (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
        f->bytes = (uint64_t)st.st_size;
        out->bytes += f->bytes;
    }
    closedir(d);
    return 0;
}

static int oldest_first(const void *a, const void *b)
{
    const struct entry_file *x = a, *y = b;
    return (x->used_ns > y->used_ns) - (x->used_ns < y->used_ns);
}

/* Over the limit: removes least recently used entries, never `keep`.
 * Concurrent evictions may both remove a file; unlinkat of a gone file
 * fails harmlessly, and readers keep what they opened. */
static void evict(int dfd, const char *keep)
{
    struct listing l = {0};
    if (list_entries(dfd, &l, true) != 0 || cache.max_bytes == 0 || l.bytes <= cache.max_bytes) {
        free(l.v);
        return;
    }
    qsort(l.v, l.n, sizeof *l.v, oldest_first);
    for (size_t i = 0; i < l.n && l.bytes > cache.max_bytes; i++) {
        if (strcmp(l.v[i].name, keep) == 0)
            continue;
        if (unlinkat(dfd, l.v[i].name, 0) == 0 || errno == ENOENT)
            l.bytes -= l.v[i].bytes;
        cudyn__debug("cache: evicted %s (%llu bytes, least recently used)", l.v[i].name,
                     (unsigned long long)l.v[i].bytes);
    }
    free(l.v);
}

/* --------------------------------------------------------------- store */

static bool write_all(int fd, const unsigned char *buf, size_t size)
{
    size_t done = 0;
    while (done < size) {
        ssize_t w = write(fd, buf + done, size - done);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return false;
        done += (size_t)w;
    }
    return true;
}

void cudyn__cache_store(const unsigned char key[CUDYN_SHA256_BYTES], const struct cudyn__cache_entry *e)
{
    int dfd = cache_fd();
    if (dfd < 0)
        return;
    size_t size = 0;
    unsigned char *buf = cudyn__cache_serialise(key, e, &size);
    if (!buf)
        return;
    char name[ENTRY_NAME_BYTES], tmp[ENTRY_NAME_BYTES + 64];
    entry_name(key, name);
    static atomic_uint counter;
    snprintf(tmp, sizeof tmp, "%s%s%ld.%u", name, TMP_MARK, (long)getpid(), atomic_fetch_add(&counter, 1));
    int fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    bool ok = fd >= 0 && write_all(fd, buf, size);
    free(buf);
    if (fd >= 0 && close(fd) != 0)
        ok = false;
    /* rename is atomic: readers see the old entry or the whole new one */
    if (!ok || renameat(dfd, tmp, dfd, name) != 0) {
        cudyn__debug("cache: could not store %s/%s: %s", cache.dir, name, strerror(errno));
        unlinkat(dfd, tmp, 0);
        return;
    }
    evict(dfd, name);
}

/* -------------------------------------------------------------- public */

/* list_entries failed: errno says why. */
static int listing_failed(const char *api)
{
    if (errno == ENOMEM)
        return cudyn__fail_oom(api);
    return cudyn__fail(CUDYN_ERROR_SYSTEM, CUDYN_ORIGIN_SYSTEM, errno, NULL, "readdir", NULL, "%s: cannot list %s: %s",
                       api, cache.dir, strerror(errno));
}

CUDYN_API int cudyn_cache_info(struct cudyn_cache_info *out)
{
    static const char api[] = "cudyn_cache_info";
    if (!out)
        return cudyn__fail_arg(api, "out", "must not be NULL");
    if (out->size < sizeof out->size)
        return cudyn__fail_arg(api, "out->size", "must be set to sizeof(struct cudyn_cache_info)");
    struct cudyn_cache_info info;
    memset(&info, 0, sizeof info);
    int dfd = cache_fd();
    info.enabled = dfd >= 0;
    info.directory = dfd >= 0 ? cache.dir : NULL;
    info.reason = dfd >= 0 ? NULL : cache.reason;
    info.max_bytes = cache.max_bytes;
    struct listing l = {0};
    if (dfd >= 0 && list_entries(dfd, &l, false) != 0) {
        free(l.v);
        return listing_failed(api);
    }
    info.entries = l.n;
    info.bytes = l.bytes;
    free(l.v);
    info.size = out->size < sizeof info ? out->size : sizeof info;
    memcpy(out, &info, info.size);
    return CUDYN_OK;
}

CUDYN_API int cudyn_cache_clear(uint64_t *removed)
{
    static const char api[] = "cudyn_cache_clear";
    if (removed)
        *removed = 0;
    int dfd = cache_fd();
    if (dfd < 0)
        return CUDYN_OK;
    struct listing l = {0};
    if (list_entries(dfd, &l, true) != 0) {
        free(l.v);
        return listing_failed(api);
    }
    int st = CUDYN_OK;
    for (size_t i = 0; i < l.n; i++) {
        if (unlinkat(dfd, l.v[i].name, 0) == 0 || errno == ENOENT) {
            if (removed)
                (*removed)++;
        } else if (st == CUDYN_OK) {
            st = cudyn__fail(CUDYN_ERROR_SYSTEM, CUDYN_ORIGIN_SYSTEM, errno, NULL, "unlinkat", NULL,
                             "%s: cannot remove %s/%s: %s", api, cache.dir, l.v[i].name, strerror(errno));
        }
    }
    free(l.v);
    return st;
}
