/*
 * interface.c - a program's kernel interfaces: the parameter list of each
 * `.entry NAME( ... )` of its PTX, kept with the program, the cache entry
 * and the module so launches can check argument kinds without the PTX
 * (a CUBIN entry stores only this, not the whole PTX).
 */
#include "config.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

struct text {
    char *s;
    size_t len, cap;
    bool failed;
};

static void add(struct text *t, const char *p, size_t n)
{
    if (t->failed)
        return;
    if (t->len + n + 1 > t->cap) {
        size_t cap = t->cap ? t->cap : 256;
        while (cap < t->len + n + 1)
            cap *= 2;
        char *s = realloc(t->s, cap);
        if (!s) {
            t->failed = true;
            return;
        }
        t->s = s;
        t->cap = cap;
    }
    memcpy(t->s + t->len, p, n);
    t->len += n;
    t->s[t->len] = '\0';
}

static bool ptx_ident(char c)
{
    return isalnum((unsigned char)c) || c == '_' || c == '$' || c == '%';
}

/* Appends "NAME(PARAMS)\n" for the .entry at p (just after ".entry"),
 * white space collapsed; returns where the scan goes on. */
static const char *one_entry(struct text *t, const char *p, const char *end)
{
    while (p < end && isspace((unsigned char)*p))
        p++;
    const char *name = p;
    while (p < end && ptx_ident(*p))
        p++;
    const char *name_end = p;
    while (p < end && isspace((unsigned char)*p))
        p++;
    const char *close = p < end && *p == '(' ? memchr(p, ')', (size_t)(end - p)) : NULL;
    if (name == name_end || !close)
        return p;
    add(t, name, (size_t)(name_end - name));
    add(t, "(", 1);
    bool space = false, first = true;
    for (const char *q = p + 1; q < close; q++) {
        if (isspace((unsigned char)*q)) {
            space = true;
            continue;
        }
        if (space && !first && *q != ',')
            add(t, " ", 1);
        add(t, q, 1);
        space = false;
        first = false;
    }
    add(t, ")\n", 2);
    return close + 1;
}

char *cudyn__ptx_interface(const char *ptx, size_t n)
{
    if (!ptx)
        return NULL;
    struct text t = {0};
    const char *end = ptx + strnlen(ptx, n);
    for (const char *p = ptx; p < end;) {
        const char *hit = memmem(p, (size_t)(end - p), ".entry", 6);
        if (!hit)
            break;
        bool token = (hit == ptx || isspace((unsigned char)hit[-1])) && hit + 6 < end &&
                     isspace((unsigned char)hit[6]);
        p = token ? one_entry(&t, hit + 6, end) : hit + 6;
    }
    if (t.failed) {
        free(t.s);
        return NULL;
    }
    return t.s;
}
