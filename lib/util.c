/*
 * util.c - small helpers the library's files share: secure environment
 * reads, the CUDYN_DEBUG switch, bounded text buffers, names from the
 * public maps, a file read whole.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"

/* Overrides are read with secure_getenv: a setuid program ignores them. */
const char *cudyn__getenv(const char *name)
{
#if defined(HAVE_SECURE_GETENV)
    return secure_getenv(name);
#elif defined(HAVE___SECURE_GETENV)
    return __secure_getenv(name);
#else
    return getenv(name);
#endif
}

/* CUDYN_DEBUG set to something other than 0 */
static bool debug_enabled(void)
{
    const char *v = cudyn__getenv("CUDYN_DEBUG");
    return v && v[0] && strcmp(v, "0") != 0;
}

void cudyn__debug(const char *fmt, ...)
{
    if (!debug_enabled())
        return;
    /* one line, one write: lines of several threads do not interleave */
    char line[2048] = "cudyn: ";
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line + 7, sizeof line - 8, fmt, ap);
    va_end(ap);
    size_t len = n < 0 ? 7 : 7 + ((size_t)n < sizeof line - 8 ? (size_t)n : sizeof line - 9);
    line[len++] = '\n';
    fwrite(line, 1, len, stderr);
}

/* Room for n more bytes and the NUL: false when a bounded buffer is full
 * (what fits of the n bytes is then n_fit) or memory ran out. */
static bool text_room(struct cudyn__text *t, size_t n, size_t *n_fit)
{
    *n_fit = n;
    if (t->len + n + 1 <= t->cap)
        return true;
    if (!t->grows) {
        *n_fit = t->len + 1 < t->cap ? t->cap - t->len - 1 : 0;
        return false;
    }
    size_t cap = t->cap ? t->cap : 256;
    while (cap < t->len + n + 1)
        cap *= 2;
    char *b = realloc(t->buf, cap);
    if (!b) {
        t->failed = true;
        *n_fit = 0;
        return false;
    }
    t->buf = b;
    t->cap = cap;
    return true;
}

void cudyn__text_put(struct cudyn__text *t, const void *data, size_t n)
{
    if (t->failed || n == 0)
        return;
    size_t fit;
    text_room(t, n, &fit);
    if (fit == 0)
        return;
    memcpy(t->buf + t->len, data, fit);
    t->len += fit;
    t->buf[t->len] = '\0';
}

void cudyn__text_vprintf(struct cudyn__text *t, const char *fmt, va_list ap)
{
    if (t->failed)
        return;
    va_list again;
    va_copy(again, ap);
    int n = vsnprintf(NULL, 0, fmt, ap);
    size_t fit = 0;
    if (n < 0)
        t->failed = true;
    else
        text_room(t, (size_t)n, &fit);
    if (fit) {
        vsnprintf(t->buf + t->len, fit + 1, fmt, again);
        t->len += fit;
    }
    va_end(again);
}

void cudyn__text_add(struct cudyn__text *t, const char *fmt, ...)
{
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if (t->echo_prefix && debug_enabled())
        fprintf(stderr, "%s%s\n", t->echo_prefix, line);
    cudyn__text_put(t, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
    cudyn__text_put(t, "\n", 1);
}

void cudyn__copy_string(char *dst, size_t cap, const char *src)
{
    if (cap == 0)
        return;
    size_t n = strlen(src);
    if (n >= cap)
        n = cap - 1;
    memcpy(dst, src, n);
    dst[n] = '\0';
}

bool cudyn__starts_with(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

void *cudyn__read_whole(int fd, size_t size, size_t pad)
{
    unsigned char *buf = malloc(size + pad ? size + pad : 1);
    if (!buf) {
        errno = ENOMEM;
        return NULL;
    }
    size_t got = 0;
    while (got < size) {
        ssize_t r = read(fd, buf + got, size - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        got += (size_t)r;
    }
    if (got != size) {
        free(buf);
        errno = EIO;
        return NULL;
    }
    memset(buf + size, 0, pad);
    return buf;
}

double cudyn__now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

const char *cudyn__found_by_name(enum cudyn__found_by how)
{
    static const char *const names[] = {
#define FOUND_BY_NAME(name, string, meaning) [FOUND_BY_##name] = string,
        CUDYN_FOUND_BY_MAP(FOUND_BY_NAME)
#undef FOUND_BY_NAME
    };
    return names[how];
}

const char *cudyn__mechanism_name(int mechanism)
{
    static const char *const names[] = {
#define MECHANISM_NAME(name, value, string) [value] = string,
        CUDYN_ENTRY_MECHANISM_MAP(MECHANISM_NAME)
#undef MECHANISM_NAME
    };
    if (mechanism < 0 || (size_t)mechanism >= sizeof names / sizeof names[0] || !names[mechanism])
        return "none";
    return names[mechanism];
}

