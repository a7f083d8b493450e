/*
 * preprocess.c - the part of the C preprocessor a test double can do
 * exactly: #include (found the way NVRTC finds it), #define / #undef for
 * conditionals, #if / #ifdef / #ifndef / #elif / #else / #endif with
 * integer expressions, #error, #warning, #pragma once and #line (which
 * renames and renumbers what messages point at).  Macros are not
 * expanded in the program text: the declaration reader refuses a
 * signature that names one.  What it cannot decide it refuses.
 *
 * Where NVRTC looks for an include (checked against NVRTC 13.0):
 *   1. a header given to nvrtcCreateProgram, by exact name ("" and <>);
 *   2. for "x.h", the directory of the including file's name (for the
 *      program itself, of its name: "kernel.cu" means the current
 *      directory; a header given in memory counts as living at its name);
 *   3. each -I / --include-path directory, in order.
 */
#include "config.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mock_nvrtc.h"

#define MAX_INCLUDE_DEPTH 100
#define MAX_EXPANSION_DEPTH 32

/* Macros NVRTC defines that the mock cannot know the value of start with
 * these; asking about one that the mock does not define is refused. */
static const char *const reserved_prefixes[] = {"__CUDA", "__NVCC", "__NVRTC"};

struct pp_state {
    const struct mock_source *src;
    const struct mock_options *o;
    struct mock_pp *pp;
    struct mock_log *log;
    int depth;
    bool stop; /* an error was logged (or memory ran out) */
    int shown_file; /* the file messages name: the file read, or what #line said */
    int next_line;  /* set by #line: the number of the next line (0: none) */
};

/* ------------------------------------------------------------ files */

static char *read_text_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    struct mbuf b = {0};
    char chunk[4096];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
        mbuf_add(&b, chunk, n);
    bool bad = ferror(f) != 0; /* a directory opens, but does not read */
    fclose(f);
    if (bad || b.failed) {
        mbuf_free(&b);
        return NULL;
    }
    if (!b.data)
        mbuf_add(&b, "", 0);
    return b.data;
}

static char *dir_of(const char *name)
{
    const char *slash = strrchr(name, '/');
    if (!slash)
        return strdup("");
    if (slash == name)
        return strdup("/");
    return strndup(name, (size_t)(slash - name));
}

static char *join(const char *dir, const char *name)
{
    struct mbuf b = {0};
    if (name[0] != '/' && dir[0]) {
        mbuf_str(&b, dir);
        if (dir[strlen(dir) - 1] != '/')
            mbuf_str(&b, "/");
    }
    mbuf_str(&b, name);
    return b.failed ? (mbuf_free(&b), NULL) : b.data;
}

/* The index of the file named `name` (as messages name it), added if new. */
static int file_index(struct pp_state *st, const char *name)
{
    struct mock_pp *pp = st->pp;
    for (size_t i = 0; i < pp->n_files; i++)
        if (strcmp(pp->files[i], name) == 0)
            return (int)i;
    char **files = realloc(pp->files, (pp->n_files + 1) * sizeof *files);
    if (files)
        pp->files = files;
    bool *once = realloc(pp->once, (pp->n_files + 1) * sizeof *once);
    if (once)
        pp->once = once;
    char *copy = strdup(name);
    if (!files || !once || !copy) {
        free(copy);
        pp->out_of_memory = st->stop = true;
        return -1;
    }
    pp->files[pp->n_files] = copy;
    pp->once[pp->n_files] = false;
    return (int)pp->n_files++;
}

/* A copy of `text` with comments replaced by a space (newlines inside a
 * block comment kept, so line numbers stay right).  *unclosed: where a
 * block comment that never ends starts, else NULL. */
static char *strip_comments(const char *text, const char **unclosed)
{
    *unclosed = NULL;
    char *out = malloc(strlen(text) + 1);
    if (!out)
        return NULL;
    char *w = out;
    for (const char *p = text; *p;) {
        if (p[0] == '/' && p[1] == '/') {
            while (*p && *p != '\n')
                p++;
            *w++ = ' ';
        } else if (p[0] == '/' && p[1] == '*') {
            const char *start = p;
            p += 2;
            while (*p && !(p[0] == '*' && p[1] == '/'))
                if (*p++ == '\n')
                    *w++ = '\n';
            if (*p)
                p += 2;
            else
                *unclosed = start;
            *w++ = ' ';
        } else if (*p == '"' || *p == '\'') {
            char quote = *p;
            *w++ = *p++;
            while (*p && *p != quote && *p != '\n') {
                if (*p == '\\' && p[1] && p[1] != '\n')
                    *w++ = *p++;
                *w++ = *p++;
            }
            if (*p == quote)
                *w++ = *p++;
        } else {
            *w++ = *p++;
        }
    }
    *w = '\0';
    return out;
}

/* ------------------------------------------------------------ macros */

static const char *skip_space(const char *s)
{
    while (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\f' || *s == '\v')
        s++;
    return s;
}

static size_t ident_length(const char *s)
{
    size_t n = 0;
    if (isalpha((unsigned char)s[0]) || s[0] == '_')
        while (isalnum((unsigned char)s[n]) || s[n] == '_')
            n++;
    return n;
}

static struct mock_macro *find_macro(const struct mock_pp *pp, const char *name, size_t len)
{
    for (size_t i = 0; i < pp->n_macros; i++)
        if (strlen(pp->macros[i].name) == len && memcmp(pp->macros[i].name, name, len) == 0)
            return &pp->macros[i];
    return NULL;
}

bool mock_pp_defined(const struct mock_pp *pp, const char *name, size_t len)
{
    return find_macro(pp, name, len) != NULL;
}

static void undefine(struct mock_pp *pp, const char *name, size_t len)
{
    struct mock_macro *m = find_macro(pp, name, len);
    if (!m)
        return;
    free(m->name);
    free(m->value);
    *m = pp->macros[--pp->n_macros];
}

/* value NULL: a function-like macro. */
static void define(struct pp_state *st, const char *name, size_t len, const char *value)
{
    struct mock_pp *pp = st->pp;
    undefine(pp, name, len);
    struct mock_macro *grown = realloc(pp->macros, (pp->n_macros + 1) * sizeof *grown);
    if (grown)
        pp->macros = grown;
    char *n = strndup(name, len);
    char *v = value ? strdup(value) : NULL;
    if (!grown || !n || (value && !v)) {
        free(n);
        free(v);
        pp->out_of_memory = st->stop = true;
        return;
    }
    pp->macros[pp->n_macros++] = (struct mock_macro){n, v};
}

static bool has_word(const char *text, const char *word)
{
    size_t n = strlen(word);
    for (const char *p = text; (p = strstr(p, word)); p += n)
        if ((p == text || !(isalnum((unsigned char)p[-1]) || p[-1] == '_')) &&
            !(isalnum((unsigned char)p[n]) || p[n] == '_'))
            return true;
    return false;
}

/* "#define NAME VALUE", "#define F(x) BODY", or -D's "NAME=VALUE". */
static bool define_text(struct pp_state *st, const char *def, bool from_option, const char *file, int line,
                        const char *source_line)
{
    def = skip_space(def);
    size_t len = ident_length(def);
    if (!len) {
        log_diagnostic(st->log, file, line, "error", source_line, strlen(source_line), "expected an identifier");
        return !(st->stop = true);
    }
    const char *rest = def + len;
    bool function_like = *rest == '(';
    if (from_option)
        rest = *rest == '=' ? rest + 1 : function_like ? strchr(rest, '=') ? strchr(rest, '=') + 1 : "" : "1";
    /* a macro that writes a kernel declaration would hide it from the mock */
    if (has_word(rest, "__global__") || has_word(rest, "extern")) {
        log_refusal(st->log, file, line, source_line, "macro %.*s writes a declaration the mock must read", (int)len,
                    def);
        return !(st->stop = true);
    }
    if (function_like) {
        define(st, def, len, NULL);
    } else {
        char *value = strdup(skip_space(rest));
        if (!value) {
            st->pp->out_of_memory = st->stop = true;
            return false;
        }
        for (size_t n = strlen(value); n && isspace((unsigned char)value[n - 1]); n--)
            value[n - 1] = '\0';
        define(st, def, len, value);
        free(value);
    }
    return !st->stop;
}

/* What NVRTC itself defines, as far as the mock knows it (checked against
 * NVRTC 13.0), then -D / -U in order. */
static void predefine(struct pp_state *st)
{
    const struct mock_options *o = st->o;
    char value[32];
    define(st, "__CUDACC__", 10, "1");
    define(st, "__CUDACC_RTC__", 14, "1");
    define(st, "__LP64__", 8, "1");
    snprintf(value, sizeof value, "%d", o->arch * 10);
    define(st, "__CUDA_ARCH__", 13, value);
    snprintf(value, sizeof value, "%d", st->src->nvrtc_version / 1000);
    define(st, "__CUDACC_VER_MAJOR__", 20, value);
    snprintf(value, sizeof value, "%d", st->src->nvrtc_version % 1000 / 10);
    define(st, "__CUDACC_VER_MINOR__", 20, value);
    snprintf(value, sizeof value, "%ldL", o->cplusplus);
    define(st, "__cplusplus", 11, value);
    define(st, "__USE_FAST_MATH__", 17, o->fast_math ? "1" : "0");
    if (o->device_debug)
        define(st, "__CUDACC_DEBUG__", 16, "1");
    for (int i = 0; i < o->n_defines && !st->stop; i++) {
        const char *d = o->defines[i].text;
        if (o->defines[i].undefine)
            undefine(st->pp, d, ident_length(d));
        else if (ident_length(d))
            define_text(st, d, true, "<command-line>", 1, d);
    }
}

/* ------------------------------------------------------------ #if */

/* A macro name the mock must not guess about: reserved for NVRTC, not
 * defined by the mock. */
static bool unknowable(const struct mock_pp *pp, const char *name, size_t len)
{
    for (size_t i = 0; i < sizeof reserved_prefixes / sizeof reserved_prefixes[0]; i++)
        if (len >= strlen(reserved_prefixes[i]) &&
            strncmp(name, reserved_prefixes[i], strlen(reserved_prefixes[i])) == 0)
            return !find_macro(pp, name, len);
    return false;
}

struct expr {
    const char *p;
    const char *why; /* set when the expression cannot be evaluated */
};

static long long expr_or(struct expr *e);

/* Eats the operator op if it comes next; a one-character op is not the
 * first half of a two-character operator ("<" of "<=", "!" of "!="). */
static bool expr_eat(struct expr *e, const char *op)
{
    static const char *const pairs[] = {"<=", ">=", "==", "!=", "&&", "||", "<<", ">>", "++", "--"};
    e->p = skip_space(e->p);
    size_t n = strlen(op);
    if (strncmp(e->p, op, n) != 0)
        return false;
    for (size_t i = 0; n == 1 && i < sizeof pairs / sizeof pairs[0]; i++)
        if (strncmp(e->p, pairs[i], 2) == 0)
            return false;
    e->p += n;
    return true;
}

/* 'c', '\n', '\\', '\'', '\xHH' or '\ooo' (one char only); its value as a
 * signed char. */
static long long expr_char(struct expr *e)
{
    const char *p = e->p + 1;
    long value = (unsigned char)*p;
    if (*p == '\\') {
        char *end = NULL;
        p++;
        if (*p == 'x')
            value = strtol(p + 1, &end, 16);
        else if (*p >= '0' && *p <= '7')
            value = strtol(p, &end, 8);
        else
            value = *p == 'n' ? '\n' : *p == 't' ? '\t' : *p == '0' ? 0 : (unsigned char)*p;
        p = end ? end - 1 : p;
    }
    if (!*p || p[1] != '\'') {
        e->why = "a character constant the mock does not evaluate";
        return 0;
    }
    e->p = p + 2;
    return (signed char)(unsigned char)value;
}

static long long expr_primary(struct expr *e)
{
    e->p = skip_space(e->p);
    if (expr_eat(e, "(")) {
        long long v = expr_or(e);
        if (!expr_eat(e, ")") && !e->why)
            e->why = "unbalanced parentheses";
        return v;
    }
    if (isdigit((unsigned char)*e->p)) {
        char *end;
        long long v = strtoll(e->p, &end, 0);
        while (*end == 'u' || *end == 'U' || *end == 'l' || *end == 'L')
            end++;
        if (isalnum((unsigned char)*end) || *end == '.' || *end == '_')
            e->why = "a number that is not a plain integer";
        e->p = end;
        return v;
    }
    if (*e->p == '\'') /* a character constant: a char, signed, as NVRTC has it on x86-64 */
        return expr_char(e);
    if (!e->why)
        e->why = *e->p ? "an operator or operand the mock does not evaluate" : "a missing operand";
    return 0;
}

static long long expr_unary(struct expr *e)
{
    if (expr_eat(e, "!"))
        return !expr_unary(e);
    if (expr_eat(e, "-"))
        return -expr_unary(e);
    if (expr_eat(e, "+"))
        return expr_unary(e);
    return expr_primary(e);
}

static long long expr_mul(struct expr *e)
{
    long long v = expr_unary(e);
    for (;;) {
        int op = expr_eat(e, "*") ? '*' : expr_eat(e, "/") ? '/' : expr_eat(e, "%") ? '%' : 0;
        if (!op)
            return v;
        long long r = expr_unary(e);
        if (op != '*' && r == 0) {
            e->why = "division by zero";
            return 0;
        }
        v = op == '*' ? v * r : op == '/' ? v / r : v % r;
    }
}

static long long expr_add(struct expr *e)
{
    long long v = expr_mul(e);
    for (;;) {
        if (expr_eat(e, "+"))
            v += expr_mul(e);
        else if (expr_eat(e, "-"))
            v -= expr_mul(e);
        else
            return v;
    }
}

static long long expr_rel(struct expr *e)
{
    long long v = expr_add(e);
    for (;;) {
        if (expr_eat(e, "<="))
            v = v <= expr_add(e);
        else if (expr_eat(e, ">="))
            v = v >= expr_add(e);
        else if (expr_eat(e, "<"))
            v = v < expr_add(e);
        else if (expr_eat(e, ">"))
            v = v > expr_add(e);
        else
            return v;
    }
}

static long long expr_eq(struct expr *e)
{
    long long v = expr_rel(e);
    for (;;) {
        if (expr_eat(e, "=="))
            v = v == expr_rel(e);
        else if (expr_eat(e, "!="))
            v = v != expr_rel(e);
        else
            return v;
    }
}

static long long expr_and(struct expr *e)
{
    long long v = expr_eq(e);
    while (expr_eat(e, "&&")) {
        long long r = expr_eq(e);
        v = v && r;
    }
    return v;
}

static long long expr_or(struct expr *e)
{
    long long v = expr_and(e);
    while (expr_eat(e, "||")) {
        long long r = expr_and(e);
        v = v || r;
    }
    return v;
}

/* Replaces defined(X), true/false and object-like macros (recursively);
 * an unknown identifier is 0, as in C; character constants are kept.
 * NULL `why`: ok. */
static void expand_condition(const struct mock_pp *pp, const char *in, struct mbuf *out, int depth, const char **why)
{
    if (depth > MAX_EXPANSION_DEPTH) {
        *why = "macros nested too deeply";
        return;
    }
    for (const char *p = in; *p && !*why;) {
        size_t n = ident_length(p);
        if (!n && *p == '\'') { /* a character constant, as it is ('\xff' holds no identifier) */
            const char *q = p + 1;
            while (*q && *q != '\'')
                q += *q == '\\' && q[1] ? 2 : 1;
            mbuf_add(out, p, (size_t)(q - p) + (*q == '\''));
            p = *q ? q + 1 : q;
            continue;
        }
        if (!n) {
            if (isdigit((unsigned char)*p)) /* a number with its suffix */
                while (isalnum((unsigned char)*p) || *p == '_' || *p == '.')
                    mbuf_add(out, p++, 1);
            else
                mbuf_add(out, p++, 1);
            continue;
        }
        if (n == 7 && strncmp(p, "defined", 7) == 0) {
            const char *q = skip_space(p + 7);
            bool paren = *q == '(';
            q = skip_space(q + paren);
            size_t m = ident_length(q);
            const char *after = skip_space(q + m);
            if (!m || (paren && *after != ')')) {
                *why = "a malformed defined()";
                return;
            }
            if (unknowable(pp, q, m)) {
                *why = "a macro only the real NVRTC knows";
                return;
            }
            mbuf_str(out, find_macro(pp, q, m) ? " 1 " : " 0 ");
            p = paren ? after + 1 : q + m;
            continue;
        }
        const struct mock_macro *mac = find_macro(pp, p, n);
        if (mac && !mac->value) {
            *why = "a function-like macro";
            return;
        }
        if (!mac && unknowable(pp, p, n)) {
            *why = "a macro only the real NVRTC knows";
            return;
        }
        mbuf_str(out, " ");
        if (mac)
            expand_condition(pp, mac->value, out, depth + 1, why);
        else
            mbuf_str(out, (n == 4 && strncmp(p, "true", 4) == 0) ? "1" : "0");
        mbuf_str(out, " ");
        p += n;
    }
}

/* -1: cannot be evaluated (refusal logged), else 0 / 1. */
static int condition(struct pp_state *st, const char *args, const char *file, int line, const char *source_line)
{
    struct mbuf text = {0};
    const char *why = NULL;
    expand_condition(st->pp, args, &text, 0, &why);
    long long v = 0;
    if (!why && !text.failed) {
        struct expr e = {text.data ? text.data : "", NULL};
        v = expr_or(&e);
        why = e.why ? e.why : *skip_space(e.p) ? "an operator or operand the mock does not evaluate" : NULL;
    }
    if (text.failed)
        st->pp->out_of_memory = st->stop = true;
    mbuf_free(&text);
    if (st->stop)
        return -1;
    if (why) {
        log_refusal(st->log, file, line, source_line, "#if %s: %s", skip_space(args), why);
        st->stop = true;
        return -1;
    }
    return v != 0;
}

/* ------------------------------------------------------------ lines */

static void emit_line(struct pp_state *st, int file, int line, const char *text)
{
    struct mock_pp *pp = st->pp;
    if (!*skip_space(text))
        return;
    if (pp->n_lines == pp->cap_lines) {
        size_t cap = pp->cap_lines ? 2 * pp->cap_lines : 64;
        struct pp_line *grown = realloc(pp->lines, cap * sizeof *grown);
        if (!grown) {
            pp->out_of_memory = st->stop = true;
            return;
        }
        pp->lines = grown;
        pp->cap_lines = cap;
    }
    pp->lines[pp->n_lines++] = (struct pp_line){file, line, pp->text.len};
    mbuf_str(&pp->text, text);
    mbuf_str(&pp->text, "\n");
    if (pp->text.failed)
        pp->out_of_memory = st->stop = true;
}

static bool process_file(struct pp_state *st, int file, const char *dir, const char *text);

/* #include "x" / <x>. */
static void include(struct pp_state *st, const char *file, const char *dir, int line, const char *source_line,
                    const char *args)
{
    args = skip_space(args);
    char close = *args == '"' ? '"' : *args == '<' ? '>' : 0;
    const char *end = close ? strchr(args + 1, close) : NULL;
    if (!*args || (close && (!end || end == args + 1))) {
        log_diagnostic(st->log, file, line, "catastrophic error", source_line,
                       *args ? (size_t)(args - source_line) : strlen(source_line), "expected a file name");
        st->stop = true;
        return;
    }
    if (!close) {
        log_refusal(st->log, file, line, source_line, "#include of a macro");
        st->stop = true;
        return;
    }
    if (st->depth >= MAX_INCLUDE_DEPTH) {
        log_refusal(st->log, file, line, source_line, "#include nested more than %d deep", MAX_INCLUDE_DEPTH);
        st->stop = true;
        return;
    }
    char *name = strndup(args + 1, (size_t)(end - args - 1));
    if (!name) {
        st->pp->out_of_memory = st->stop = true;
        return;
    }
    /* 1. in memory, by exact name */
    const char *text = NULL;
    char *path = NULL, *owned = NULL;
    for (int i = 0; i < st->src->n_headers && !text; i++)
        if (strcmp(st->src->headers[i].name, name) == 0) {
            text = st->src->headers[i].text;
            path = strdup(name);
        }
    /* 2. next to the including file; 3. the -I directories */
    if (!text && close == '"') {
        path = join(dir, name);
        text = owned = path ? read_text_file(path) : NULL;
    }
    for (int i = 0; i < st->o->n_include_dirs && !text; i++) {
        free(path);
        path = join(st->o->include_dirs[i], name);
        text = owned = path ? read_text_file(path) : NULL;
    }
    if (!text) {
        if (close == '>' && st->o->n_include_dirs == 0)
            log_diagnostic(st->log, file, line, "catastrophic error", source_line, strlen(source_line),
                           "could not open source file \"%s\" (no directories in search list)", name);
        else
            log_diagnostic(st->log, file, line, "catastrophic error", source_line, strlen(source_line),
                           "cannot open source file \"%s\"", name);
        st->stop = true;
    } else if (path) {
        int index = file_index(st, path);
        char *subdir = dir_of(path);
        if (!subdir)
            st->pp->out_of_memory = st->stop = true;
        else if (index >= 0 && !st->pp->once[index]) {
            st->depth++;
            process_file(st, index, subdir, text);
            st->depth--;
        }
        free(subdir);
    } else {
        st->pp->out_of_memory = st->stop = true;
    }
    free(owned);
    free(path);
    free(name);
}

struct cond {
    bool active; /* this branch's lines count */
    bool taken;  /* some branch of this #if was (or cannot be) chosen */
    bool seen_else;
    int line;
    char *source_line; /* for "the #endif for this directive is missing" */
};

struct cond_stack {
    struct cond *v;
    size_t n, cap;
};

static bool all_active(const struct cond_stack *c)
{
    return c->n == 0 || c->v[c->n - 1].active;
}

static bool push_cond(struct pp_state *st, struct cond_stack *c, bool active, bool taken, int line, const char *text)
{
    if (c->n == c->cap) {
        size_t cap = c->cap ? 2 * c->cap : 8;
        struct cond *grown = realloc(c->v, cap * sizeof *grown);
        if (!grown)
            return !(st->pp->out_of_memory = st->stop = true);
        c->v = grown;
        c->cap = cap;
    }
    char *copy = strdup(text);
    if (!copy)
        return !(st->pp->out_of_memory = st->stop = true);
    c->v[c->n++] = (struct cond){active, taken, false, line, copy};
    return true;
}

/* #line N ["NAME"]: the next line is line N (of NAME).  Macros in it are
 * refused. */
static void line_directive(struct pp_state *st, const char *fname, int line, const char *source_line,
                           const char *args)
{
    char *end;
    long n = strtol(args, &end, 10);
    const char *rest = skip_space(end);
    const char *close = *rest == '"' ? strchr(rest + 1, '"') : NULL;
    if (!isdigit((unsigned char)*args) || n < 1 || n > 2147483647 || (*rest && (!close || *skip_space(close + 1)))) {
        log_refusal(st->log, fname, line, source_line, "#line %s", args);
        st->stop = true;
        return;
    }
    if (close) {
        char *name = strndup(rest + 1, (size_t)(close - rest - 1));
        int index = name ? file_index(st, name) : -1;
        free(name);
        if (index < 0) {
            st->pp->out_of_memory = st->stop = true;
            return;
        }
        st->shown_file = index;
    }
    st->next_line = (int)n;
}

/* One directive line ("#" already seen at `hash`). */
static void directive(struct pp_state *st, int file, const char *dir, int line, const char *source_line,
                      const char *hash, struct cond_stack *conds)
{
    const char *fname = st->pp->files[st->shown_file];
    const char *name = skip_space(hash + 1);
    size_t n = ident_length(name);
    const char *args = skip_space(name + n);
    size_t caret = (size_t)(name - source_line);
    bool parent_active = all_active(conds);
#define IS(word) (n == strlen(word) && strncmp(name, word, n) == 0)
    if (IS("if") || IS("ifdef") || IS("ifndef")) {
        int v = 0;
        if (parent_active) {
            if (IS("if")) {
                v = condition(st, args, fname, line, source_line);
            } else {
                size_t m = ident_length(args);
                if (!m) {
                    log_diagnostic(st->log, fname, line, "error", source_line, strlen(source_line),
                                   "expected an identifier");
                    st->stop = true;
                } else if (unknowable(st->pp, args, m)) {
                    log_refusal(st->log, fname, line, source_line, "#%.*s %.*s: a macro only the real NVRTC knows",
                                (int)n, name, (int)m, args);
                    st->stop = true;
                }
                v = (find_macro(st->pp, args, m) != NULL) == IS("ifdef");
            }
        }
        if (!st->stop)
            push_cond(st, conds, parent_active && v == 1, !parent_active || v == 1, line, source_line);
        return;
    }
    if (IS("elif") || IS("else") || IS("endif")) {
        if (conds->n == 0) {
            log_diagnostic(st->log, fname, line, "error", source_line, caret, "the #if for this directive is missing");
            st->stop = true;
            return;
        }
        struct cond *c = &conds->v[conds->n - 1];
        bool outer = conds->n == 1 || conds->v[conds->n - 2].active;
        if (IS("endif")) {
            free(c->source_line);
            conds->n--;
        } else if (c->seen_else) {
            log_diagnostic(st->log, fname, line, "error", source_line, caret,
                           "directive is not allowed -- an #else has already appeared");
            st->stop = true;
        } else if (IS("else")) {
            c->active = outer && !c->taken;
            c->taken = c->seen_else = true;
        } else {
            int v = outer && !c->taken ? condition(st, args, fname, line, source_line) : 0;
            c->active = v == 1;
            c->taken = c->taken || v == 1;
        }
        return;
    }
    if (!parent_active)
        return; /* other directives in a skipped branch do nothing */
    if (n == 0 && !*args)
        return; /* the null directive "#" */
    if (IS("include")) {
        include(st, fname, dir, line, source_line, args);
    } else if (IS("define")) {
        define_text(st, args, false, fname, line, source_line);
    } else if (IS("undef")) {
        undefine(st->pp, args, ident_length(args));
    } else if (IS("error")) {
        log_diagnostic(st->log, fname, line, "catastrophic error", source_line, caret, "#error directive: %s", args);
        st->stop = true;
    } else if (IS("warning")) {
        log_diagnostic(st->log, fname, line, "warning #1105-D", source_line, caret, "#warning directive: %s", args);
    } else if (IS("pragma")) {
        if (ident_length(args) == 4 && strncmp(args, "once", 4) == 0)
            st->pp->once[file] = true;
        /* other pragmas (unroll, ...) do not change kernel signatures */
    } else if (IS("line")) {
        line_directive(st, fname, line, source_line, args);
    } else {
        log_diagnostic(st->log, fname, line, "error", source_line, caret, "unrecognized preprocessing directive");
        st->stop = true;
    }
#undef IS
}

static bool process_file(struct pp_state *st, int file, const char *dir, const char *text)
{
    /* the whole file, even what no branch uses: an edit anywhere changes the output */
    st->pp->hash = mock_fnv1a(st->pp->hash, st->pp->files[file], strlen(st->pp->files[file]) + 1);
    st->pp->hash = mock_fnv1a(st->pp->hash, text, strlen(text) + 1);
    const char *unclosed;
    char *clean = strip_comments(text, &unclosed);
    if (!clean)
        return !(st->pp->out_of_memory = st->stop = true);
    struct cond_stack conds = {0};
    struct mbuf logical = {0};
    int line = 1;
    int shown_before = st->shown_file;
    st->shown_file = file;
    for (const char *p = clean; *p && !st->stop;) {
        /* one logical line: physical lines joined at a backslash-newline */
        int first_line = line;
        logical.len = 0;
        mbuf_add(&logical, "", 0);
        for (;;) {
            size_t n = strcspn(p, "\n");
            size_t keep = n;
            if (keep && p[keep - 1] == '\r')
                keep--;
            bool more = keep && p[keep - 1] == '\\';
            mbuf_add(&logical, p, more ? keep - 1 : keep);
            p += n;
            if (*p == '\n') {
                p++;
                line++;
            }
            if (!more || !*p)
                break;
        }
        if (logical.failed) {
            st->pp->out_of_memory = st->stop = true;
            break;
        }
        const char *start = skip_space(logical.data);
        if (*start == '#')
            directive(st, file, dir, first_line, logical.data, start, &conds);
        else if (all_active(&conds))
            emit_line(st, st->shown_file, first_line, logical.data);
        if (st->next_line) {
            line = st->next_line;
            st->next_line = 0;
        }
    }
    if (!st->stop && unclosed) {
        const char *line_start = unclosed;
        int comment_line = 1;
        for (const char *q = text; q < unclosed; q++)
            comment_line += *q == '\n';
        while (line_start > text && line_start[-1] != '\n')
            line_start--;
        log_diagnostic(st->log, st->pp->files[file], comment_line, "error", line_start, (size_t)(unclosed - line_start),
                       "comment unclosed at end of file");
        st->stop = true;
    }
    if (!st->stop && conds.n > 0) {
        const struct cond *c = &conds.v[conds.n - 1];
        log_diagnostic(st->log, st->pp->files[file], c->line, "error", c->source_line,
                       (size_t)(skip_space(c->source_line) - c->source_line) + 1,
                       "the #endif for this directive is missing");
        st->stop = true;
    }
    for (size_t i = 0; i < conds.n; i++)
        free(conds.v[i].source_line);
    free(conds.v);
    mbuf_free(&logical);
    free(clean);
    st->shown_file = shown_before;
    return !st->stop;
}

/* --pre-include: each header as if the source's first line included it
 * ("..."), before the source. */
static void pre_include(struct pp_state *st, int file, const char *dir)
{
    for (int i = 0; i < st->o->n_pre_includes && !st->stop; i++) {
        struct mbuf line = {0};
        mbuf_printf(&line, "\"%s\"", st->o->pre_includes[i]);
        if (line.failed)
            st->pp->out_of_memory = st->stop = true;
        else
            include(st, st->pp->files[file], dir, 1, line.data, line.data);
        mbuf_free(&line);
    }
}

bool mock_preprocess(const struct mock_source *src, const struct mock_options *o, struct mock_pp *pp,
                     struct mock_log *log)
{
    memset(pp, 0, sizeof *pp);
    pp->hash = MOCK_FNV1A_START;
    struct pp_state st = {src, o, pp, log, 0, false, 0, 0};
    predefine(&st);
    int file = st.stop ? -1 : file_index(&st, src->name);
    char *dir = dir_of(src->name);
    if (!dir)
        pp->out_of_memory = true;
    else if (file >= 0)
        pre_include(&st, file, dir);
    if (dir && file >= 0 && !st.stop)
        process_file(&st, file, dir, src->text);
    free(dir);
    if (!pp->text.data && !pp->out_of_memory)
        mbuf_add(&pp->text, "", 0);
    return !st.stop && !pp->out_of_memory;
}

void mock_pp_free(struct mock_pp *pp)
{
    mbuf_free(&pp->text);
    free(pp->lines);
    for (size_t i = 0; i < pp->n_files; i++)
        free(pp->files[i]);
    free(pp->files);
    free(pp->once);
    for (size_t i = 0; i < pp->n_macros; i++) {
        free(pp->macros[i].name);
        free(pp->macros[i].value);
    }
    free(pp->macros);
    memset(pp, 0, sizeof *pp);
}
