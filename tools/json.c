/*
 * json.c - see json.h.
 */
#include "config.h"

#include <math.h>

#include "json.h"

void json_init(struct json *j, FILE *out)
{
    j->out = out;
    j->depth = 0;
    j->need_comma[0] = false;
}

/* The length of the well-formed UTF-8 sequence at p (RFC 3629: no
 * overlong forms, no surrogates, nothing above U+10FFFF), or 0. */
static size_t utf8_length(const unsigned char *p)
{
    unsigned char c = p[0], lo = 0x80, hi = 0xBF;
    size_t n;
    if (c >= 0xC2 && c <= 0xDF) {
        n = 2;
    } else if (c >= 0xE0 && c <= 0xEF) {
        n = 3;
        lo = c == 0xE0 ? 0xA0 : 0x80; /* not overlong */
        hi = c == 0xED ? 0x9F : 0xBF; /* not a surrogate */
    } else if (c >= 0xF0 && c <= 0xF4) {
        n = 4;
        lo = c == 0xF0 ? 0x90 : 0x80; /* not overlong */
        hi = c == 0xF4 ? 0x8F : 0xBF; /* not above U+10FFFF */
    } else {
        return 0;
    }
    if (p[1] < lo || p[1] > hi)
        return 0;
    for (size_t i = 2; i < n; i++)
        if (p[i] < 0x80 || p[i] > 0xBF) /* the NUL ending the string too */
            return 0;
    return n;
}

/* The string as JSON: control characters escaped, valid UTF-8 as it is,
 * and each byte that is not part of a valid sequence (an environment
 * value, a path or an argument may hold any bytes) as U+FFFD. */
static void write_string(FILE *out, const char *s)
{
    fputc('"', out);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        switch (*p) {
        case '"': fputs("\\\"", out); break;
        case '\\': fputs("\\\\", out); break;
        case '\n': fputs("\\n", out); break;
        case '\r': fputs("\\r", out); break;
        case '\t': fputs("\\t", out); break;
        default:
            if (*p < 0x20) {
                fprintf(out, "\\u%04x", *p);
            } else if (*p < 0x80) {
                fputc(*p, out);
            } else {
                size_t n = utf8_length(p);
                if (n) {
                    fwrite(p, 1, n, out);
                    p += n - 1;
                } else {
                    fputs("\\ufffd", out);
                }
            }
        }
    }
    fputc('"', out);
}

/* Comma and key before any value. */
static void prefix(struct json *j, const char *key)
{
    if (j->need_comma[j->depth])
        fputc(',', j->out);
    j->need_comma[j->depth] = true;
    if (key) {
        write_string(j->out, key);
        fputc(':', j->out);
    }
}

static void open(struct json *j, const char *key, char c)
{
    prefix(j, key);
    fputc(c, j->out);
    if (j->depth + 1 < JSON_MAX_DEPTH)
        j->depth++;
    j->need_comma[j->depth] = false;
}

static void close_(struct json *j, char c)
{
    fputc(c, j->out);
    if (j->depth > 0)
        j->depth--;
}

void json_object_begin(struct json *j, const char *key) { open(j, key, '{'); }
void json_object_end(struct json *j) { close_(j, '}'); }
void json_array_begin(struct json *j, const char *key) { open(j, key, '['); }
void json_array_end(struct json *j) { close_(j, ']'); }

void json_string(struct json *j, const char *key, const char *value)
{
    prefix(j, key);
    if (value)
        write_string(j->out, value);
    else
        fputs("null", j->out);
}

void json_int(struct json *j, const char *key, long long value)
{
    prefix(j, key);
    fprintf(j->out, "%lld", value);
}

void json_uint(struct json *j, const char *key, uint64_t value)
{
    prefix(j, key);
    fprintf(j->out, "%llu", (unsigned long long)value);
}

void json_double(struct json *j, const char *key, double value)
{
    prefix(j, key);
    if (isfinite(value))
        fprintf(j->out, "%.6g", value);
    else
        fputs("null", j->out);
}

void json_bool(struct json *j, const char *key, bool value)
{
    prefix(j, key);
    fputs(value ? "true" : "false", j->out);
}

void json_null(struct json *j, const char *key)
{
    prefix(j, key);
    fputs("null", j->out);
}

void json_int_or_null(struct json *j, const char *key, bool known, long long value)
{
    if (known)
        json_int(j, key, value);
    else
        json_null(j, key);
}

void json_double_or_null(struct json *j, const char *key, bool known, double value)
{
    if (known)
        json_double(j, key, value);
    else
        json_null(j, key);
}

void json_finish(struct json *j)
{
    fputc('\n', j->out);
    fflush(j->out);
}
