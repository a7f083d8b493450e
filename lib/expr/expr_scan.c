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
 */
#include "config.h"

#include <ctype.h>
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

/* Marks the pointer parameters the text names; true if each is used only
 * as NAME[i] and never after '&'. */
static void scan_uses(const char *text, const struct cudyn__param_list *params, struct cudyn__scan *out)
{
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
        if (!indexed)
            no_lanes(out, "the text uses a pointer other than as NAME[i]:", params->p[k].name);
        else if (is(&prev, "&"))
            no_lanes(out, "the text takes the address of an element of", params->p[k].name);
    }
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
