/*
 * text.c - growable text, and the compile log in the shape NVRTC 13.0
 * writes it:
 *
 *   kernel.cu(3): catastrophic error: #error directive: "text"
 *     #error "text"
 *      ^
 *
 *   1 catastrophic error detected in the compilation of "kernel.cu".
 *   Compilation terminated.
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mock_nvrtc.h"

void mbuf_add(struct mbuf *b, const char *s, size_t n)
{
    if (b->failed)
        return;
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->len + n + 1)
            cap *= 2;
        char *grown = realloc(b->data, cap);
        if (!grown) {
            b->failed = true;
            return;
        }
        b->data = grown;
        b->cap = cap;
    }
    memcpy(b->data + b->len, s, n);
    b->len += n;
    b->data[b->len] = '\0';
}

void mbuf_str(struct mbuf *b, const char *s)
{
    mbuf_add(b, s, strlen(s));
}

static void mbuf_vprintf(struct mbuf *b, const char *fmt, va_list ap)
{
    va_list copy;
    va_copy(copy, ap);
    int n = vsnprintf(NULL, 0, fmt, copy);
    va_end(copy);
    if (n < 0) {
        b->failed = true;
        return;
    }
    char *s = malloc((size_t)n + 1);
    if (!s) {
        b->failed = true;
        return;
    }
    vsnprintf(s, (size_t)n + 1, fmt, ap);
    mbuf_add(b, s, (size_t)n);
    free(s);
}

void mbuf_printf(struct mbuf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    mbuf_vprintf(b, fmt, ap);
    va_end(ap);
}

uint64_t mock_fnv1a(uint64_t h, const void *data, size_t n)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= 0x100000001b3ULL;
    }
    return h;
}

void mbuf_free(struct mbuf *b)
{
    free(b->data);
    memset(b, 0, sizeof *b);
}

static void vdiagnostic(struct mock_log *log, const char *file, int line, const char *severity, const char *source_line,
                        size_t caret, const char *fmt, va_list ap)
{
    if (file)
        mbuf_printf(&log->text, "%s(%d): %s: ", file, line, severity);
    else
        mbuf_printf(&log->text, "At end of source: %s: ", severity);
    mbuf_vprintf(&log->text, fmt, ap);
    mbuf_str(&log->text, "\n");
    if (source_line) {
        /* the line as written, then a caret under the spot */
        mbuf_printf(&log->text, "  %.*s\n%*s^\n\n", (int)strcspn(source_line, "\n"), source_line, (int)caret + 2, "");
    }
    if (strcmp(severity, "catastrophic error") == 0)
        log->catastrophic++;
    else if (strcmp(severity, "error") == 0)
        log->errors++;
    else if (strncmp(severity, "warning", 7) == 0)
        log->warnings++;
}

void log_diagnostic(struct mock_log *log, const char *file, int line, const char *severity, const char *source_line,
                    size_t caret, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vdiagnostic(log, file, line, severity, source_line, caret, fmt, ap);
    va_end(ap);
}

void log_refusal(struct mock_log *log, const char *file, int line, const char *source_line, const char *fmt, ...)
{
    char what[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    size_t caret = source_line ? strspn(source_line, " \t") : 0;
    log_diagnostic(log, file, line, "error", source_line, caret,
                   "mock NVRTC cannot compile this (%s); use the real NVRTC", what);
}

void log_summary(struct mock_log *log, const char *program_name)
{
    if (!log->errors && !log->catastrophic && !log->warnings)
        return;
    if (log->text.len && !(log->text.len >= 2 && strcmp(log->text.data + log->text.len - 2, "\n\n") == 0))
        mbuf_str(&log->text, "\n");
    if (log->catastrophic)
        mbuf_printf(&log->text,
                    "%d catastrophic error%s detected in the compilation of \"%s\".\nCompilation terminated.\n",
                    log->catastrophic, log->catastrophic > 1 ? "s" : "", program_name);
    else if (log->errors)
        mbuf_printf(&log->text, "%d error%s detected in the compilation of \"%s\".\n", log->errors,
                    log->errors > 1 ? "s" : "", program_name);
    else
        mbuf_str(&log->text, "Remark: The warnings can be suppressed with \"-diag-suppress <warning-number>\"\n\n");
}
