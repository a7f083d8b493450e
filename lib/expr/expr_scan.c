/*
 * expr_scan.c - how the user's text reaches the pointer parameters: a pure
 * function, table-tested by tests/test_expr_tables.c.
 *
 * The vectorised variant of a generated kernel loads the elements a thread
 * handles into registers with 16-byte loads and runs the user's text on
 * them: inside it, a pointer parameter x is a "lane" whose x[i] is the
 * element in a register (any other index still reaches memory).  That is
 * only the same program when the text uses x as x[i] and nothing else:
 * x + 1, *x, &x[i] (an atomic on it, say) or passing x on need the real
 * pointer.  So the text is read as C++ tokens (comments, string and
 * character literals skipped) and every mention of a pointer parameter
 * must be NAME [ i ].  A #define in the preamble that names a pointer
 * parameter (the macro could hide another use) and a volatile pointee
 * (each access must happen as written) also keep the kernel scalar.
 *
 * A writable pointer the text only assigns (every mention is NAME[i] = ...,
 * never read, never compound-assigned) is an output: the vectorised
 * variant then does not load it first, which saves a third of the memory
 * traffic of z[i] = x[i] + y[i].
 */
#include "config.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "expr/expr.h"

struct token {
    const char *s;
    size_t len;
    bool word;
};

/* The next token at *p (false at the end). */
static bool next_token(const char **p, struct token *t)
{
    const char *s = *p;
    for (;;) {
        while (isspace((unsigned char)*s))
            s++;
        if (s[0] == '/' && s[1] == '/') {
            s += strcspn(s, "\n");
        } else if (s[0] == '/' && s[1] == '*') {
            const char *close = strstr(s + 2, "*/");
            s = close ? close + 2 : s + strlen(s);
        } else if (*s == '"' || *s == '\'') {
            char quote = *s++;
            while (*s && *s != quote)
                s += s[0] == '\\' && s[1] ? 2 : 1;
            if (*s)
                s++;
        } else {
            break;
        }
    }
    if (!*s)
        return false;
    t->s = s;
    t->word = isalpha((unsigned char)*s) || *s == '_';
    if (t->word || isdigit((unsigned char)*s)) {
        while (isalnum((unsigned char)*s) || *s == '_')
            s++;
    } else {
        s++;
    }
    t->len = (size_t)(s - t->s);
    *p = s;
    return true;
}

static bool is(const struct token *t, const char *text)
{
    return t->len == strlen(text) && memcmp(t->s, text, t->len) == 0;
}

/* The pointer parameter a word names, or -1. */
static int pointer_named(const struct cudyn__param_list *params, const struct token *t)
{
    if (!t->word)
        return -1;
    for (int k = 0; k < params->count; k++)
        if (params->p[k].pointer && strlen(params->p[k].name) == t->len &&
            memcmp(params->p[k].name, t->s, t->len) == 0)
            return k;
    return -1;
}

/* No vectorised variant, for the first reason met: "WHAT NAME". */
static void no_lanes(struct cudyn__scan *out, const char *what, const char *name)
{
    if (out->lanes)
        snprintf(out->why, sizeof out->why, "%s %s", what, name);
    out->lanes = false;
}

/* Marks the pointer parameters the text names, and those it only assigns;
 * lanes stay possible if each is used only as NAME[i] and never after '&'. */
static void scan_uses(const char *text, const struct cudyn__param_list *params, struct cudyn__scan *out)
{
    bool read[CUDYN_EXPR_MAX_PARAMS] = {false};
    struct token prev = {"", 0, false}, t;
    for (const char *p = text; next_token(&p, &t); prev = t) {
        int k = pointer_named(params, &t);
        if (k < 0)
            continue;
        out->used[k] = true;
        struct token open, index, close;
        const char *q = p;
        bool indexed = next_token(&q, &open) && is(&open, "[") && next_token(&q, &index) && is(&index, "i") &&
                       next_token(&q, &close) && is(&close, "]");
        /* NAME[i] = but not NAME[i] == */
        struct token assign, after;
        const char *r = q;
        bool assigned = indexed && !is(&prev, "&") && next_token(&r, &assign) && is(&assign, "=") &&
                        !(next_token(&r, &after) && after.s == assign.s + 1 && is(&after, "="));
        read[k] = read[k] || !assigned;
        if (!indexed)
            no_lanes(out, "the text uses a pointer other than as NAME[i]:", params->p[k].name);
        else if (is(&prev, "&"))
            no_lanes(out, "the text takes the address of an element of", params->p[k].name);
    }
    for (int k = 0; k < params->count; k++)
        out->write_only[k] = out->used[k] && !read[k] && params->p[k].writable;
}

/* The end of the logical line at s (backslash-newlines join lines). */
static const char *logical_end(const char *s)
{
    for (;;) {
        const char *nl = strchr(s, '\n');
        if (!nl)
            return s + strlen(s);
        if (nl == s || nl[-1] != '\\')
            return nl;
        s = nl + 1;
    }
}

/* A macro of the preamble could stand for any use of a parameter: a
 * #define whose text names a pointer parameter keeps the kernel scalar.
 * (Helper functions whose own parameters share a name are harmless.) */
static void scan_macros(const char *preamble, const struct cudyn__param_list *params, struct cudyn__scan *out)
{
    for (const char *line = preamble; *line;) {
        const char *end = logical_end(line), *p = line;
        struct token hash, word, t;
        if (next_token(&p, &hash) && hash.s < end && is(&hash, "#") && next_token(&p, &word) && word.s < end &&
            is(&word, "define"))
            while (next_token(&p, &t) && t.s < end) {
                int k = pointer_named(params, &t);
                if (k >= 0)
                    no_lanes(out, "a macro of the preamble names the parameter", params->p[k].name);
            }
        line = *end ? end + 1 : end;
    }
}

void cudyn__scan_text(const char *text, const char *preamble, const struct cudyn__param_list *params,
                      struct cudyn__scan *out)
{
    memset(out, 0, sizeof *out);
    out->lanes = true;
    scan_uses(text, params, out);
    scan_macros(preamble ? preamble : "", params, out);
    bool any = false;
    for (int k = 0; k < params->count; k++) {
        if (out->used[k] && params->p[k].is_volatile)
            no_lanes(out, "volatile data behind", params->p[k].name);
        any = any || out->used[k];
    }
    if (!any)
        no_lanes(out, "the text indexes no pointer", "parameter");
}

/* ------------------------------------------------------------ confinement */

/*
 * The user's texts are pasted into the generated source, so a text could
 * otherwise reach outside its place: a '}' closing the function and
 * adding kernels, a #include reading a file, a #define retyping the
 * generated loop, a backslash at a line's end joining the #line that
 * follows.  The rule (cudyn.h states it): outside comments and string or
 * character literals, no '#' and no digraph (%: <% %> <: :>); (), [] and
 * {} balanced and properly nested; no backslash-newline anywhere (the
 * preprocessor joins lines before anything else, inside comments too) and
 * no backslash at the very end; comments and literals closed within the
 * text, ordinary literals on one line.  A preamble (CONFINE_CODE) may hold
 * directives: it is code, from a trusted source.
 */

#define CONFINE_DEPTH 256

struct confine {
    const char *text, *what;
    char *why;
    size_t cap;
};

/* "line L, column C" of p. */
static void where(const struct confine *c, const char *p, int *line, int *col)
{
    *line = 1;
    *col = 1;
    for (const char *s = c->text; s < p; s++) {
        *col = *s == '\n' ? 1 : *col + 1;
        *line += *s == '\n';
    }
}

static int refuse(const struct confine *c, const char *p, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int refuse(const struct confine *c, const char *p, const char *fmt, ...)
{
    int line, col;
    where(c, p, &line, &col);
    char said[200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(said, sizeof said, fmt, ap);
    va_end(ap);
    snprintf(c->why, c->cap, "the %s, line %d, column %d: %s", c->what, line, col, said);
    return -1;
}

static bool ident_char(char ch)
{
    return isalnum((unsigned char)ch) || ch == '_';
}

/* Whether the quote at q opens a raw string literal (R"..., u8R"...). */
static bool raw_prefix(const char *text, const char *q)
{
    if (q == text || q[-1] != 'R')
        return false;
    const char *w = q - 1;
    while (w > text && ident_char(w[-1]))
        w--;
    size_t len = (size_t)(q - w);
    return (len == 1 && w[0] == 'R') || (len == 2 && strchr("uUL", w[0])) || (len == 3 && strncmp(w, "u8", 2) == 0);
}

/* Skips a comment or literal at *p; -1 when it is not closed (or an
 * ordinary literal crosses a line). */
static int skip_quoted(const struct confine *c, const char **p)
{
    const char *s = *p;
    if (s[0] == '/' && s[1] == '/') {
        *p = s + strcspn(s, "\n");
        return 0;
    }
    if (s[0] == '/' && s[1] == '*') {
        const char *close = strstr(s + 2, "*/");
        if (!close)
            return refuse(c, s, "%s", "a /* comment is not closed");
        *p = close + 2;
        return 0;
    }
    if (*s == '"' && raw_prefix(c->text, s)) {
        size_t dlen = strcspn(s + 1, "( )\\\t\n\"");
        if (s[1 + dlen] != '(' || dlen > 16)
            return refuse(c, s, "%s", "a raw string literal has a bad delimiter");
        char end[20];
        snprintf(end, sizeof end, ")%.*s\"", (int)dlen, s + 1);
        const char *close = strstr(s + 2 + dlen, end);
        if (!close)
            return refuse(c, s, "%s", "a raw string literal is not closed");
        *p = close + strlen(end);
        return 0;
    }
    char quote = *s++;
    while (*s && *s != quote && *s != '\n')
        s += s[0] == '\\' && s[1] && s[1] != '\n' ? 2 : 1;
    if (*s != quote)
        return refuse(c, *p, "%s", quote == '"' ? "a string literal is not closed on its line"
                                                 : "a character literal is not closed on its line");
    *p = s + 1;
    return 0;
}

int cudyn__text_confine(const char *text, const char *what, unsigned int flags, char *why, size_t cap)
{
    struct confine c = {text, what, why, cap};
    /* line splices first: the preprocessor joins lines before anything */
    for (const char *s = strchr(text, '\\'); s; s = strchr(s + 1, '\\')) {
        const char *t = s + 1;
        while (*t == ' ' || *t == '\t' || *t == '\r') /* compilers splice over trailing blanks too */
            t++;
        if (*t == '\n')
            return refuse(&c, s, "%s", "a backslash ends the line (a line splice), which would join it to the next");
        if (*t == '\0')
            return refuse(&c, s, "%s", "the text ends in a backslash, which would join the line after it");
    }
    char open[CONFINE_DEPTH];
    const char *opened_at[CONFINE_DEPTH];
    int depth = 0;
    bool number = false; /* inside a pp-number, where ' separates digits */
    for (const char *s = text; *s;) {
        if ((s[0] == '/' && (s[1] == '/' || s[1] == '*')) || *s == '"' || (*s == '\'' && !number)) {
            if (skip_quoted(&c, &s) != 0)
                return -1;
            number = false;
            continue;
        }
        if (!number && isdigit((unsigned char)*s) && (s == text || !ident_char(s[-1])))
            number = true;
        else if (number && !(ident_char(*s) || *s == '.' || (*s == '\'' && ident_char(s[1])) ||
                             ((*s == '+' || *s == '-') && strchr("eEpP", s[-1]))))
            number = false;
        static const char *const digraphs[] = {"%:", "<%", "%>", "<:", ":>"};
        for (size_t k = 0; k < sizeof digraphs / sizeof digraphs[0]; k++)
            if (strncmp(s, digraphs[k], 2) == 0 && !(k == 3 && s[2] == ':' && s[3] != ':' && s[3] != '>'))
                return refuse(&c, s, "the digraph '%s' is not allowed (write the character it stands for)",
                              digraphs[k]);
        if (*s == '#' && !(flags & CUDYN_CONFINE_CODE))
            return refuse(&c, s, "%s", "'#' is not allowed: no preprocessor directives (#include, #define ...), "
                                       "no # or ## operators");
        if (strchr("([{", *s)) {
            if (depth == CONFINE_DEPTH)
                return refuse(&c, s, "%s", "brackets nest too deep");
            open[depth] = *s;
            opened_at[depth++] = s;
        } else if (strchr(")]}", *s)) {
            char want = *s == ')' ? '(' : *s == ']' ? '[' : '{';
            char closer[2] = {*s, '\0'};
            if (!depth)
                return refuse(&c, s, "'%s' closes nothing that the text opened", closer);
            if (open[--depth] != want)
                return refuse(&c, s, "'%s' does not match the bracket the text opened before it", closer);
        }
        s++;
    }
    if (depth) {
        char opener[2] = {open[depth - 1], '\0'};
        return refuse(&c, opened_at[depth - 1], "'%s' is never closed", opener);
    }
    return 0;
}
