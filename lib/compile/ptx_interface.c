/*
 * ptx_interface.c - see ptx_interface.h: a program's kernel interfaces,
 * the parameter list of each `.entry NAME( ... )` of its PTX, kept with
 * the program, the cache entry and the module so launches can check
 * argument kinds without the PTX (a CUBIN entry stores only this, not the
 * whole PTX); and reading one kernel's parameters from it.
 *
 * The grammar read, per parameter, separated by commas up to ')':
 *   .param [.align A] .TYPE [.ptr [.STATE] [.align A]] NAME [ '[' N ']' ]
 * Anything else makes the entry unreadable (count -1): a launch is then
 * checked by size only, never refused for a text cudyn did not understand.
 */
#include "config.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "compile/ptx_interface.h"

static const struct {
    const char *name;
    size_t size;
    enum cudyn__param_class cls;
} ptx_types[] = {
    {"u8", 1, PARAM_INTEGER},  {"s8", 1, PARAM_INTEGER},  {"b8", 1, PARAM_BYTES},    {"u16", 2, PARAM_INTEGER},
    {"s16", 2, PARAM_INTEGER}, {"b16", 2, PARAM_UNKNOWN}, {"f16", 2, PARAM_FLOAT},   {"bf16", 2, PARAM_FLOAT},
    {"u32", 4, PARAM_INTEGER}, {"s32", 4, PARAM_INTEGER}, {"b32", 4, PARAM_UNKNOWN}, {"f32", 4, PARAM_FLOAT},
    {"u64", 8, PARAM_INTEGER}, {"s64", 8, PARAM_INTEGER}, {"b64", 8, PARAM_UNKNOWN}, {"f64", 8, PARAM_FLOAT},
};

/* A cursor over the declaration, never past `end`. */
struct cursor {
    const char *p, *end;
};

static void skip_space(struct cursor *c)
{
    while (c->p < c->end && isspace((unsigned char)*c->p))
        c->p++;
}

/* The next word (letters, digits, '_', '$', '.'), or 0 if none. */
static size_t word(struct cursor *c, const char **start)
{
    skip_space(c);
    *start = c->p;
    while (c->p < c->end && (isalnum((unsigned char)*c->p) || strchr("_$.", *c->p)))
        c->p++;
    return (size_t)(c->p - *start);
}

static bool is(const char *w, size_t n, const char *lit)
{
    return strlen(lit) == n && memcmp(w, lit, n) == 0;
}

/* ".align N": skips it if it comes next. */
static bool skip_align(struct cursor *c)
{
    struct cursor save = *c;
    const char *w;
    size_t n = word(c, &w);
    if (!is(w, n, ".align")) {
        *c = save;
        return true;
    }
    n = word(c, &w);
    return n > 0 && isdigit((unsigned char)w[0]);
}

static bool read_type(const char *w, size_t n, struct cudyn__ptx_param *p)
{
    if (n < 2 || w[0] != '.')
        return false;
    for (size_t i = 0; i < sizeof ptx_types / sizeof ptx_types[0]; i++)
        if (is(w + 1, n - 1, ptx_types[i].name)) {
            p->size = ptx_types[i].size;
            p->cls = ptx_types[i].cls;
            return true;
        }
    return false;
}

/* One ".param ..." up to the name and an optional [N]. */
static bool read_param(struct cursor *c, struct cudyn__ptx_param *p)
{
    const char *w;
    size_t n = word(c, &w);
    if (!is(w, n, ".param") || !skip_align(c))
        return false;
    n = word(c, &w);
    if (!read_type(w, n, p))
        return false;
    struct cursor save = *c;
    n = word(c, &w);
    if (is(w, n, ".ptr")) {
        p->cls = PARAM_POINTER;
        save = *c;
        n = word(c, &w);
        if (n && w[0] == '.' && !is(w, n, ".align"))
            save = *c; /* the state space: .global, .const ... */
        *c = save;
        if (!skip_align(c))
            return false;
        n = word(c, &w);
    }
    if (n == 0 || w[0] == '.')
        return false; /* the parameter's name */
    skip_space(c);
    if (c->p < c->end && *c->p == '[') {
        char *stop;
        unsigned long count = strtoul(c->p + 1, &stop, 10);
        if (stop >= c->end || *stop != ']' || count == 0 || count > 65536)
            return false;
        c->p = stop + 1;
        p->size *= count;
        if (p->cls != PARAM_BYTES)
            p->cls = PARAM_BYTES; /* an array of anything is bytes to a launch */
    } else if (p->cls == PARAM_BYTES) {
        p->cls = PARAM_INTEGER; /* a lone .b8 is a byte */
    }
    return true;
}

/* Where NAME's parameter list starts in an interface ("NAME(PARAMS)" at
 * the start of a line, as cudyn__ptx_interface writes it), or NULL. */
static const char *find_entry(const char *text, size_t len, const char *name)
{
    size_t name_len = strlen(name);
    const char *end = text + len;
    for (const char *line = text; line < end;) {
        if ((size_t)(end - line) > name_len && memcmp(line, name, name_len) == 0 && line[name_len] == '(')
            return line + name_len + 1;
        const char *nl = memchr(line, '\n', (size_t)(end - line));
        line = nl ? nl + 1 : end;
    }
    return NULL;
}

int cudyn__ptx_kernel_params(const char *text, size_t len, const char *name, struct cudyn__ptx_kernel *out)
{
    out->count = -1;
    const char *start = text && name && name[0] ? find_entry(text, len, name) : NULL;
    if (!start)
        return -1;
    struct cursor c = {start, text + len};
    int count = 0;
    skip_space(&c);
    while (c.p < c.end && *c.p != ')') {
        if (count == CUDYN_MAX_ARGS || !read_param(&c, &out->params[count]))
            return -1;
        count++;
        skip_space(&c);
        if (c.p < c.end && *c.p == ',')
            c.p++;
        else if (c.p >= c.end || *c.p != ')')
            return -1;
        skip_space(&c);
    }
    if (c.p >= c.end)
        return -1;
    out->count = count;
    return 0;
}

bool cudyn__param_accepts(enum cudyn__param_class cls, cudyn_arg_kind kind, size_t size)
{
    switch (cls) {
    case PARAM_UNKNOWN:
    case PARAM_BYTES:
        return true; /* a struct, a vector or raw bits: any bytes of its size */
    case PARAM_FLOAT:
        return kind == CUDYN_ARG_FLOAT || kind == CUDYN_ARG_STRUCT;
    case PARAM_POINTER:
        /* a device address, however it is spelled (an integer of its size);
         * buffers pass one too */
        return kind == CUDYN_ARG_POINTER || kind == CUDYN_ARG_SIGNED || kind == CUDYN_ARG_UNSIGNED ||
               kind == CUDYN_ARG_STRUCT || kind == CUDYN_ARG_IN || kind == CUDYN_ARG_OUT || kind == CUDYN_ARG_INOUT;
    case PARAM_INTEGER:
        /* half bits are often carried in an unsigned short: sizes already
         * match, so only 32- and 64-bit floats (and complex) are refused */
        return !(kind == CUDYN_ARG_FLOAT && size > 2) && kind != CUDYN_ARG_COMPLEX;
    }
    return true;
}


/* ------------------------------------------------ extracting interfaces */

static bool ptx_ident(char c)
{
    return isalnum((unsigned char)c) || c == '_' || c == '$' || c == '%';
}

/* Appends "NAME(PARAMS)\n" for the .entry at p (just after ".entry"),
 * white space collapsed; returns where the scan goes on. */
static const char *one_entry(struct cudyn__text *t, const char *p, const char *end)
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
    cudyn__text_put(t, name, (size_t)(name_end - name));
    cudyn__text_put(t, "(", 1);
    bool space = false, first = true;
    for (const char *q = p + 1; q < close; q++) {
        if (isspace((unsigned char)*q)) {
            space = true;
            continue;
        }
        if (space && !first && *q != ',')
            cudyn__text_put(t, " ", 1);
        cudyn__text_put(t, q, 1);
        space = false;
        first = false;
    }
    cudyn__text_put(t, ")\n", 2);
    return close + 1;
}

char *cudyn__ptx_interface(const char *ptx, size_t n)
{
    if (!ptx)
        return NULL;
    struct cudyn__text t = {.grows = true};
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
        free(t.buf);
        return NULL;
    }
    return t.buf;
}
