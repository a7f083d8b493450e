/*
 * declarations.c - reads, from the preprocessed program, what the mock's
 * PTX needs and nothing more: every extern "C" __global__ kernel with its
 * parameters, the structs and typedefs those parameters use, and the
 * __device__ / __constant__ variables name expressions may point at.
 * Function bodies are skipped (only their braces are counted); a kernel's
 * definition is kept as text, which the PTX carries for the mock driver's
 * host evaluator (tests/mock/mock_eval.c).
 *
 * Parameters are passed as NVRTC 13.0 passes them (checked with it):
 * float .f32, double .f64, bool and char types .u8, short .u16, int and
 * unsigned .u32, long / long long / size_t / texture and surface objects
 * .u64, any pointer .u64, and a
 * struct, a vector type (float4 ...) or __half as ".align A .b8 [SIZE]"
 * with C layout.  A kernel the mock cannot describe exactly (a template, a
 * C++ name, a type it does not know, a macro in the signature) is refused.
 */
#include "config.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mock_nvrtc.h"

/* ------------------------------------------------------------ tokens */

enum token_kind { T_IDENT, T_NUMBER, T_STRING, T_PUNCT };

struct token {
    enum token_kind kind;
    const char *s;
    size_t len;
    size_t line; /* index into pp->lines */
    size_t col;
};

struct tokens {
    struct token *v;
    size_t n, cap;
};

static bool add_token(struct tokens *t, enum token_kind kind, const char *s, size_t len, size_t line, size_t col)
{
    if (t->n == t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 256;
        struct token *grown = realloc(t->v, cap * sizeof *grown);
        if (!grown)
            return false;
        t->v = grown;
        t->cap = cap;
    }
    t->v[t->n++] = (struct token){kind, s, len, line, col};
    return true;
}

static bool ident_char(char c)
{
    return isalnum((unsigned char)c) || c == '_' || c == '$';
}

/* ------------------------------------------------------------ parser */

/* A named type a parameter or member may use. */
struct type_def {
    const char *name;
    size_t len;
    bool known;
    struct mock_param layout;
    char why[160]; /* when not known */
};

struct parser {
    const struct mock_pp *pp;
    const struct token *t;
    size_t n;
    size_t pos;
    struct mock_log *log;
    struct mock_decls *out;
    /* open scopes: 'C' extern "C" { }, 'P' extern "C++" { }, 'N' namespace */
    char scopes[256];
    size_t scope_open[256]; /* token index of each scope's '{' */
    size_t depth;
    struct type_def *types;
    size_t n_types;
    bool failed;
};

static bool is_punct(const struct token *t, const char *p)
{
    return t->kind == T_PUNCT && t->len == strlen(p) && memcmp(t->s, p, t->len) == 0;
}

static bool is_ident(const struct token *t, const char *word)
{
    return t->kind == T_IDENT && t->len == strlen(word) && memcmp(t->s, word, t->len) == 0;
}

static const char *line_text(const struct parser *p, size_t line)
{
    return p->pp->text.data + p->pp->lines[line].offset;
}

static const char *line_file(const struct parser *p, size_t line)
{
    return p->pp->files[p->pp->lines[line].file];
}

static int line_number(const struct parser *p, size_t line)
{
    return p->pp->lines[line].line;
}

static void out_of_memory(struct parser *p)
{
    p->out->out_of_memory = p->failed = true;
}

/* A compile error at token i, in NVRTC's words. */
static void error_at(struct parser *p, size_t i, const char *message)
{
    const struct token *t = &p->t[i];
    log_diagnostic(p->log, line_file(p, t->line), line_number(p, t->line), "error", line_text(p, t->line), t->col, "%s",
                   message);
    p->failed = true;
}

static void refuse_at(struct parser *p, size_t i, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* What a test double cannot emulate: refused, never guessed. */
static void refuse_at(struct parser *p, size_t i, const char *fmt, ...)
{
    char what[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    const struct token *t = &p->t[i < p->n ? i : p->n - 1];
    log_refusal(p->log, line_file(p, t->line), line_number(p, t->line), line_text(p, t->line), "%s", what);
    p->failed = true;
}

/* "At end of source: error: expected a "}"" with a note at the '{'. */
static void unclosed(struct parser *p, size_t open)
{
    const struct token *t = &p->t[open];
    char what[8];
    snprintf(what, sizeof what, "%s", is_punct(t, "{") ? "}" : is_punct(t, "(") ? ")" : "]");
    log_diagnostic(p->log, NULL, 0, "error", NULL, 0, "expected a \"%s\"", what);
    log_diagnostic(p->log, line_file(p, t->line), line_number(p, t->line), "note #3196-D", line_text(p, t->line),
                   t->col, "to match this \"%.*s\"", (int)t->len, t->s);
    p->failed = true;
}

/* The index just past the bracket matching the one at `open`. */
static size_t skip_balanced(struct parser *p, size_t open)
{
    size_t depth = 0;
    for (size_t i = open; i < p->n; i++) {
        const struct token *t = &p->t[i];
        if (is_punct(t, "{") || is_punct(t, "(") || is_punct(t, "["))
            depth++;
        else if (is_punct(t, "}") || is_punct(t, ")") || is_punct(t, "]"))
            if (--depth == 0)
                return i + 1;
    }
    unclosed(p, open);
    return p->n;
}

static bool head_has(const struct parser *p, size_t a, size_t b, const char *word)
{
    for (size_t i = a; i < b; i++)
        if (is_ident(&p->t[i], word))
            return true;
    return false;
}

/* ------------------------------------------------------------ types */

static const struct {
    const char *name;
    const char *ptx;
    size_t size;
} named_scalars[] = {
    {"int8_t", ".u8", 1},   {"uint8_t", ".u8", 1},    {"int16_t", ".u16", 2},  {"uint16_t", ".u16", 2},
    {"int32_t", ".u32", 4}, {"uint32_t", ".u32", 4},  {"int64_t", ".u64", 8},  {"uint64_t", ".u64", 8},
    {"size_t", ".u64", 8},  {"ptrdiff_t", ".u64", 8}, {"intptr_t", ".u64", 8}, {"uintptr_t", ".u64", 8},
    /* texture and surface objects: unsigned long long handles */
    {"cudaTextureObject_t", ".u64", 8}, {"cudaSurfaceObject_t", ".u64", 8},
};

/* cuda_fp16.h / cuda_bf16.h types: structs of unsigned shorts. */
static const struct {
    const char *name;
    size_t size, align;
} named_structs[] = {{"__half", 2, 2}, {"__half2", 4, 4}, {"__nv_bfloat16", 2, 2}, {"__nv_bfloat162", 4, 4}};

/* CUDA's vector types: BASE1..BASE4, aligned as vector_types.h aligns
 * them (2: twice the element, 4: four times up to 16, 1 and 3: the
 * element's own). */
static const struct {
    const char *base;
    size_t size;
} vector_bases[] = {{"char", 1}, {"uchar", 1}, {"short", 2},    {"ushort", 2},    {"int", 4},   {"uint", 4},
                    {"long", 8}, {"ulong", 8}, {"longlong", 8}, {"ulonglong", 8}, {"float", 4}, {"double", 8}};

static bool vector_type(const char *name, size_t len, struct mock_param *out)
{
    for (size_t i = 0; i < sizeof vector_bases / sizeof vector_bases[0]; i++) {
        size_t b = strlen(vector_bases[i].base);
        if (len != b + 1 || memcmp(name, vector_bases[i].base, b) != 0 || name[b] < '1' || name[b] > '4')
            continue;
        size_t n = (size_t)(name[b] - '0'), s = vector_bases[i].size;
        size_t align = n == 2 ? 2 * s : n == 4 ? (4 * s < 16 ? 4 * s : 16) : s;
        *out = (struct mock_param){NULL, n * s, align};
        return true;
    }
    return false;
}

static const struct type_def *find_type(const struct parser *p, const char *name, size_t len)
{
    for (size_t i = p->n_types; i-- > 0;) /* the latest definition wins */
        if (p->types[i].len == len && memcmp(p->types[i].name, name, len) == 0)
            return &p->types[i];
    return NULL;
}

/* The keywords of a builtin arithmetic type, combined as C does. */
static bool builtin_type(const struct token *words, size_t n, struct mock_param *out)
{
    enum { SIGNED, UNSIGNED, CHAR, SHORT, INT, LONG, FLOAT, DOUBLE, BOOL, N_KEYS };
    static const char *const keys[N_KEYS] = {"signed", "unsigned", "char",   "short", "int",
                                             "long",   "float",    "double", "bool"};
    int count[N_KEYS] = {0};
    for (size_t i = 0; i < n; i++) {
        size_t k = 0;
        while (k < N_KEYS && !is_ident(&words[i], keys[k]))
            k++;
        if (k == N_KEYS)
            return false;
        count[k]++;
    }
    int sign = count[SIGNED] + count[UNSIGNED];
    int other = count[CHAR] + count[SHORT] + count[LONG] + count[FLOAT] + count[DOUBLE] + count[BOOL];
    if (n == 0 || sign > 1)
        return false;
#define SCALAR(type, bytes) (*out = (struct mock_param){type, bytes, bytes}, true)
    if (count[FLOAT] == 1 && n == 1)
        return SCALAR(".f32", 4);
    if (count[DOUBLE] == 1 && n == 1)
        return SCALAR(".f64", 8);
    if (count[BOOL] == 1 && n == 1)
        return SCALAR(".u8", 1);
    if (count[CHAR] == 1 && other == 1 && count[INT] == 0)
        return SCALAR(".u8", 1);
    if (count[SHORT] == 1 && other == 1 && count[INT] <= 1)
        return SCALAR(".u16", 2);
    if (count[LONG] >= 1 && count[LONG] <= 2 && other == count[LONG] && count[INT] <= 1)
        return SCALAR(".u64", 8);
    if (other == 0 && count[INT] <= 1)
        return SCALAR(".u32", 4);
#undef SCALAR
    return false;
}

static const char *const qualifiers[] = {"const",  "volatile", "__restrict__", "__restrict", "__grid_constant__",
                                         "struct", "class",    "union"};

/* How a value of the type spelled by tokens [a, b) is passed (no
 * declarator name among them).  False with `why` set if the mock cannot
 * tell. */
static bool resolve_type(struct parser *p, size_t a, size_t b, struct mock_param *out, char *why, size_t cap)
{
    struct token words[16];
    size_t n = 0;
    bool pointer = false;
    for (size_t i = a; i < b; i++) {
        const struct token *t = &p->t[i];
        bool qualifier = false;
        for (size_t q = 0; q < sizeof qualifiers / sizeof qualifiers[0]; q++)
            qualifier = qualifier || is_ident(t, qualifiers[q]);
        if (qualifier)
            continue;
        if (is_punct(t, "*")) {
            pointer = true;
        } else if (t->kind == T_IDENT && mock_pp_defined(p->pp, t->s, t->len)) {
            snprintf(why, cap, "the macro %.*s in a declaration the mock must read", (int)t->len, t->s);
            return false;
        } else if (t->kind != T_IDENT || is_ident(t, "enum") || is_ident(t, "typename") || n == 16) {
            snprintf(why, cap, "the type \"%.*s\"", (int)(p->t[b - 1].s + p->t[b - 1].len - p->t[a].s), p->t[a].s);
            return false;
        } else {
            words[n++] = *t;
        }
    }
    if (n == 0) {
        snprintf(why, cap, "a declaration without a type");
        return false;
    }
    if (pointer) {
        *out = (struct mock_param){".u64", 8, 8};
        return true;
    }
    if (builtin_type(words, n, out))
        return true;
    if (n == 1) {
        const struct token *w = &words[0];
        for (size_t i = 0; i < sizeof named_scalars / sizeof named_scalars[0]; i++)
            if (is_ident(w, named_scalars[i].name)) {
                *out = (struct mock_param){named_scalars[i].ptx, named_scalars[i].size, named_scalars[i].size};
                return true;
            }
        const struct type_def *def = find_type(p, w->s, w->len);
        if (def && def->known) {
            *out = def->layout;
            return true;
        }
        if (def) {
            snprintf(why, cap, "%s", def->why);
            return false;
        }
        for (size_t i = 0; i < sizeof named_structs / sizeof named_structs[0]; i++)
            if (is_ident(w, named_structs[i].name)) {
                *out = (struct mock_param){NULL, named_structs[i].size, named_structs[i].align};
                return true;
            }
        if (vector_type(w->s, w->len, out))
            return true;
    }
    snprintf(why, cap, "the type \"%.*s\"", (int)(p->t[b - 1].s + p->t[b - 1].len - p->t[a].s), p->t[a].s);
    return false;
}

static void add_type(struct parser *p, const struct token *name, const struct mock_param *layout, const char *why)
{
    struct type_def *grown = realloc(p->types, (p->n_types + 1) * sizeof *grown);
    if (!grown) {
        out_of_memory(p);
        return;
    }
    p->types = grown;
    struct type_def *d = &p->types[p->n_types++];
    memset(d, 0, sizeof *d);
    d->name = name->s;
    d->len = name->len;
    d->known = layout != NULL;
    if (layout)
        d->layout = *layout;
    else
        snprintf(d->why, sizeof d->why, "%.*s (%s)", (int)name->len, name->s, why);
}

/* The element count of "[N][M]..." starting at i (0 if not literal). */
static size_t array_count(const struct parser *p, size_t i, size_t end, size_t *after)
{
    size_t count = 1;
    while (i < end && is_punct(&p->t[i], "[")) {
        if (i + 2 >= end || p->t[i + 1].kind != T_NUMBER || !is_punct(&p->t[i + 2], "]"))
            return 0;
        char *stop;
        unsigned long long v = strtoull(p->t[i + 1].s, &stop, 0);
        if (stop == p->t[i + 1].s || ident_char(*stop) || v == 0)
            return 0;
        count *= (size_t)v;
        i += 3;
    }
    *after = i;
    return count;
}

/* Lays out the members of a struct or union body (tokens (open, close)).
 * False with `why` if a member is not plain data the mock can size. */
static bool layout_members(struct parser *p, size_t open, size_t close, bool is_union, struct mock_param *out,
                           char *why, size_t cap)
{
    static const char *const not_plain[] = {"static",  "template", "using", "typedef",   "friend",
                                            "virtual", "operator", "enum",  "__align__", "alignas"};
    size_t size = 0, align = 1;
    for (size_t m = open + 1; m < close;) {
        size_t end = m;
        while (end < close && !is_punct(&p->t[end], ";"))
            end++;
        if (end == m) { /* a stray ';' */
            m++;
            continue;
        }
        for (size_t i = m; i < end; i++) {
            const struct token *t = &p->t[i];
            bool bad = is_punct(t, "(") || is_punct(t, "{") || is_punct(t, ":") || is_punct(t, "=") ||
                       is_punct(t, "<") || is_punct(t, "::") || is_punct(t, "&");
            for (size_t k = 0; k < sizeof not_plain / sizeof not_plain[0]; k++)
                bad = bad || is_ident(t, not_plain[k]);
            if (bad) {
                snprintf(why, cap, "a member that is not plain data: \"%.*s\"", (int)t->len, t->s);
                return false;
            }
        }
        /* "TYPE a, *b, c[3];": the first declarator's name ends the type */
        size_t type_end = m;
        while (type_end < end && !is_punct(&p->t[type_end], ",") && !is_punct(&p->t[type_end], "["))
            type_end++;
        if (type_end == m || p->t[type_end - 1].kind != T_IDENT) {
            snprintf(why, cap, "a member it cannot read");
            return false;
        }
        size_t base_end = type_end - 1; /* the first name */
        size_t base_stop = base_end;
        while (base_stop > m && is_punct(&p->t[base_stop - 1], "*"))
            base_stop--;
        struct mock_param base;
        if (base_stop > m && !resolve_type(p, m, base_stop, &base, why, cap))
            return false;
        for (size_t d = base_stop; d < end;) {
            bool pointer = false;
            while (d < end && is_punct(&p->t[d], "*")) {
                pointer = true;
                d++;
            }
            if (d >= end || p->t[d].kind != T_IDENT || base_stop == m) {
                snprintf(why, cap, "a member it cannot read");
                return false;
            }
            size_t after = d + 1;
            size_t count = array_count(p, d + 1, end, &after);
            if (!count || (after < end && !is_punct(&p->t[after], ","))) {
                snprintf(why, cap, "a member array without a literal size");
                return false;
            }
            struct mock_param f = pointer ? (struct mock_param){".u64", 8, 8} : base;
            if (is_union) {
                size = f.size * count > size ? f.size * count : size;
            } else {
                size = (size + f.align - 1) / f.align * f.align + f.size * count;
            }
            align = f.align > align ? f.align : align;
            d = after + 1;
        }
        m = end + 1;
    }
    size = size ? (size + align - 1) / align * align : 1; /* C++: an empty struct has size 1 */
    *out = (struct mock_param){NULL, size, align};
    return true;
}

/* "[typedef] struct|class|union [NAME] { members } [declarators];" with
 * the head [a, open).  Returns the index after the body. */
static size_t parse_struct(struct parser *p, size_t a, size_t open)
{
    size_t close = skip_balanced(p, open);
    if (p->failed)
        return close;
    close--; /* the '}' */
    size_t k = a;
    while (!is_ident(&p->t[k], "struct") && !is_ident(&p->t[k], "class") && !is_ident(&p->t[k], "union"))
        k++;
    /* "struct S {", "struct __align__(16) S {", "struct S : Base {" */
    size_t colon = k;
    while (colon < open && !is_punct(&p->t[colon], ":"))
        colon++;
    const struct token *name = colon > k + 1 && p->t[colon - 1].kind == T_IDENT ? &p->t[colon - 1] : NULL;
    char why[160] = "";
    struct mock_param layout;
    bool known = false;
    if (colon != open)
        snprintf(why, sizeof why, "a base class");
    else if (k + (name ? 2 : 1) != open)
        snprintf(why, sizeof why, "an explicit alignment or attribute");
    else
        known = layout_members(p, open, close, is_ident(&p->t[k], "union"), &layout, why, sizeof why);
    if (name)
        add_type(p, name, known ? &layout : NULL, why);
    /* typedef struct { ... } ALIAS, *POINTER; */
    size_t i = close + 1;
    bool is_typedef = is_ident(&p->t[a], "typedef");
    static const struct mock_param pointer = {".u64", 8, 8};
    for (; i < p->n && !is_punct(&p->t[i], ";") && !p->failed; i++)
        if (is_typedef && p->t[i].kind == T_IDENT)
            add_type(p, &p->t[i], is_punct(&p->t[i - 1], "*") ? &pointer : known ? &layout : NULL, why);
    if (i == p->n && !p->failed) {
        log_diagnostic(p->log, NULL, 0, "error", NULL, 0, "expected a \";\"");
        p->failed = true;
    }
    return i < p->n ? i + 1 : i;
}

/* typedef TYPE NAME;  using NAME = TYPE; */
static void parse_alias(struct parser *p, size_t a, size_t end)
{
    const struct token *name;
    size_t ta, tb;
    if (is_ident(&p->t[a], "using")) {
        if (end - a < 4 || p->t[a + 1].kind != T_IDENT || !is_punct(&p->t[a + 2], "="))
            return;
        name = &p->t[a + 1];
        ta = a + 3;
        tb = end;
    } else {
        if (end - a < 3 || p->t[end - 1].kind != T_IDENT)
            return; /* function pointers, arrays ...: stay unknown */
        name = &p->t[end - 1];
        ta = a + 1;
        tb = end - 1;
    }
    struct mock_param layout;
    char why[160];
    bool known = resolve_type(p, ta, tb, &layout, why, sizeof why);
    add_type(p, name, known ? &layout : NULL, why);
}

static bool has_namespace(const struct parser *p)
{
    for (size_t i = 0; i < p->depth; i++)
        if (p->scopes[i] == 'N')
            return true;
    return false;
}

static bool extern_c_scope(const struct parser *p)
{
    for (size_t i = p->depth; i-- > 0;)
        if (p->scopes[i] != 'N')
            return p->scopes[i] == 'C';
    return false;
}

static char *token_string(const struct token *t)
{
    return strndup(t->s, t->len);
}

/* __device__ / __constant__ variables: the names in "[extern]
 * __device__ TYPE a = 1, b[4];" (a namespace would mangle them). */
static void parse_variables(struct parser *p, size_t a, size_t end)
{
    if (has_namespace(p))
        return;
    size_t depth = 0;
    bool in_init = false;
    for (size_t i = a; i < end && !p->failed; i++) {
        const struct token *t = &p->t[i];
        if (depth == 0 && is_punct(t, "(") && !in_init)
            return; /* a function declaration */
        if (is_punct(t, "(") || is_punct(t, "["))
            depth++;
        if (is_punct(t, ")") || is_punct(t, "]"))
            depth--;
        bool ends_name =
            i + 1 == end || is_punct(&p->t[i + 1], "=") || is_punct(&p->t[i + 1], ",") || is_punct(&p->t[i + 1], "[");
        if (depth == 0 && is_punct(t, ","))
            in_init = false;
        else if (depth == 0 && is_punct(t, "="))
            in_init = true;
        else if (!in_init && depth == 0 && t->kind == T_IDENT && ends_name) {
            char **grown = realloc(p->out->variables, (size_t)(p->out->n_variables + 1) * sizeof *grown);
            char *name = token_string(t);
            if (!grown || !name) {
                free(name);
                if (grown)
                    p->out->variables = grown;
                out_of_memory(p);
                return;
            }
            p->out->variables = grown;
            p->out->variables[p->out->n_variables++] = name;
        }
    }
}

/* Kernel qualifiers that take an argument list and change no parameter. */
static const char *const launch_qualifiers[] = {"__launch_bounds__", "__maxnreg__", "__cluster_dims__"};

static bool launch_qualifier(const struct token *t)
{
    for (size_t i = 0; i < sizeof launch_qualifiers / sizeof launch_qualifiers[0]; i++)
        if (is_ident(t, launch_qualifiers[i]))
            return true;
    return false;
}

/* One parameter, tokens [a, b). */
static bool parse_param(struct parser *p, size_t a, size_t b, struct mock_param *out)
{
    for (size_t i = a; i < b; i++)
        if (is_punct(&p->t[i], "=")) /* a default argument */
            b = i;
    bool array = false;
    for (size_t i = a; i < b; i++)
        if (is_punct(&p->t[i], "[")) { /* float x[]: a pointer */
            array = true;
            b = i;
        }
    if (b == a) {
        refuse_at(p, a, "a parameter it cannot read");
        return false;
    }
    for (size_t i = a; i < b; i++) {
        const struct token *t = &p->t[i];
        if (is_punct(t, "&") || is_punct(t, "&&")) {
            refuse_at(p, i, "a reference parameter");
            return false;
        }
        if (is_punct(t, "<") || is_punct(t, "::") || is_punct(t, "...") || is_punct(t, "(")) {
            refuse_at(p, i, "a parameter declared with \"%.*s\"", (int)t->len, t->s);
            return false;
        }
    }
    /* "unsigned" is a whole type, "unsigned n" a type and a name */
    char why[200], why_named[200];
    bool named = b - a > 1 && p->t[b - 1].kind == T_IDENT && !mock_pp_defined(p->pp, p->t[b - 1].s, p->t[b - 1].len);
    if (resolve_type(p, a, b, out, why, sizeof why) ||
        (named && resolve_type(p, a, b - 1, out, why_named, sizeof why_named))) {
        if (array)
            *out = (struct mock_param){".u64", 8, 8};
        return true;
    }
    refuse_at(p, a, "%s", named ? why_named : why);
    return false;
}

/* A kernel's definition, tokens [a, next), as written (comments and
 * directives removed) into *out; NULL there when a name in it is a macro,
 * since macros are not expanded here and the text would not be what NVRTC
 * compiles.  False when memory ran out. */
static bool definition_text(const struct parser *p, size_t a, size_t next, char **out)
{
    *out = NULL;
    for (size_t i = a; i < next; i++)
        if (p->t[i].kind == T_IDENT && mock_pp_defined(p->pp, p->t[i].s, p->t[i].len))
            return true;
    const struct token *last = &p->t[next - 1];
    *out = strndup(p->t[a].s, (size_t)(last->s + last->len - p->t[a].s));
    return *out != NULL;
}

/* A declaration with __global__, head [a, end); body: `end` is '{'. */
static size_t parse_kernel(struct parser *p, size_t a, size_t end, bool body)
{
    bool extern_c = extern_c_scope(p), is_void = false;
    size_t i = a;
    for (; i < end; i++) {
        const struct token *t = &p->t[i];
        if (is_ident(t, "template")) {
            refuse_at(p, i, "a template kernel");
            return end;
        }
        if (is_ident(t, "extern") && i + 1 < end && p->t[i + 1].kind == T_STRING) {
            extern_c = p->t[i + 1].len == 3 && memcmp(p->t[i + 1].s, "\"C\"", 3) == 0;
            i++;
        } else if (is_ident(t, "void")) {
            is_void = true;
        } else if (launch_qualifier(t) && i + 1 < end && is_punct(&p->t[i + 1], "(")) {
            i = skip_balanced(p, i + 1) - 1;
        } else if (t->kind == T_IDENT && i + 1 < end && is_punct(&p->t[i + 1], "(")) {
            break; /* the kernel's name */
        } else if (!is_ident(t, "__global__")) {
            refuse_at(p, i, "\"%.*s\" in a kernel declaration", (int)t->len, t->s);
            return end;
        }
    }
    if (p->failed)
        return end;
    if (i == end) {
        refuse_at(p, a, "a kernel declaration it cannot read");
        return end;
    }
    const struct token *name = &p->t[i];
    if (!extern_c) {
        refuse_at(p, i, "kernel %.*s is not extern \"C\", so its name would be mangled", (int)name->len, name->s);
        return end;
    }
    if (mock_pp_defined(p->pp, name->s, name->len)) {
        refuse_at(p, i, "the macro %.*s in a declaration the mock must read", (int)name->len, name->s);
        return end;
    }
    if (!is_void) {
        refuse_at(p, i, "kernel %.*s does not return void", (int)name->len, name->s);
        return end;
    }
    size_t close = skip_balanced(p, i + 1) - 1; /* the ')' */
    if (p->failed)
        return end;
    if (close + 1 != end) {
        refuse_at(p, close + 1, "\"%.*s\" after a kernel's parameters", (int)p->t[close + 1].len, p->t[close + 1].s);
        return end;
    }
    size_t next = body ? skip_balanced(p, end) : end + 1;
    if (!body || p->failed)
        return next; /* a declaration makes no entry */
    for (int k = 0; k < p->out->n_kernels; k++)
        if (strlen(p->out->kernels[k].name) == name->len && memcmp(p->out->kernels[k].name, name->s, name->len) == 0) {
            char message[300];
            snprintf(message, sizeof message,
                     "function \"%.*s\" has already been defined (previous definition at line %d)", (int)name->len,
                     name->s, p->out->kernels[k].line);
            error_at(p, i, message);
            return next;
        }
    struct mock_kernel k = {token_string(name), NULL, 0, NULL, line_number(p, name->line), has_namespace(p)};
    if (!k.name || !definition_text(p, a, next, &k.source)) {
        free(k.name);
        out_of_memory(p);
        return next;
    }
    bool empty = close == i + 2 || (close == i + 3 && is_ident(&p->t[i + 2], "void"));
    for (size_t s = i + 2; !empty && s <= close && !p->failed;) {
        size_t e = s, depth = 0;
        while (e < close && (depth || !is_punct(&p->t[e], ","))) {
            if (is_punct(&p->t[e], "(") || is_punct(&p->t[e], "["))
                depth++;
            if (is_punct(&p->t[e], ")") || is_punct(&p->t[e], "]"))
                depth--;
            e++;
        }
        struct mock_param param;
        if (!parse_param(p, s, e, &param))
            break;
        struct mock_param *grown = realloc(k.params, (size_t)(k.n_params + 1) * sizeof *grown);
        if (!grown) {
            out_of_memory(p);
            break;
        }
        k.params = grown;
        k.params[k.n_params++] = param;
        s = e + 1;
    }
    struct mock_kernel *grown =
        p->failed ? NULL : realloc(p->out->kernels, (size_t)(p->out->n_kernels + 1) * sizeof *grown);
    if (!grown) {
        if (!p->failed)
            out_of_memory(p);
        free(k.name);
        free(k.params);
        free(k.source);
        return next;
    }
    p->out->kernels = grown;
    p->out->kernels[p->out->n_kernels++] = k;
    return next;
}

/* The end of the declaration starting at `a`: its ';' or the '{' of its
 * body (an initializer's braces are skipped).  p->n if none. */
static size_t head_end(struct parser *p, size_t a)
{
    size_t depth = 0;
    bool initializer = false;
    for (size_t i = a; i < p->n; i++) {
        const struct token *t = &p->t[i];
        if (is_ident(t, "operator")) { /* its name (operator<<=) up to its "(" is no initializer */
            while (i + 1 < p->n && !is_punct(&p->t[i + 1], "(") && !is_punct(&p->t[i + 1], ";"))
                i++;
            continue;
        }
        if (is_punct(t, "(") || is_punct(t, "["))
            depth++;
        else if ((is_punct(t, ")") || is_punct(t, "]")) && depth)
            depth--;
        else if (depth == 0 && is_punct(t, "="))
            initializer = true;
        else if (depth == 0 && is_punct(t, ";"))
            return i;
        else if (is_punct(t, "{") && (depth || initializer))
            i = skip_balanced(p, i) - 1;
        else if (is_punct(t, "{"))
            return i;
        else if (is_punct(t, "}")) {
            error_at(p, i, "expected a \";\"");
            return p->n;
        }
        if (p->failed)
            return p->n;
    }
    log_diagnostic(p->log, NULL, 0, "error", NULL, 0, "expected a \";\"");
    p->failed = true;
    return p->n;
}

static void push_scope(struct parser *p, char kind, size_t open)
{
    if (p->depth == sizeof p->scopes) {
        refuse_at(p, open, "scopes nested more than %zu deep", sizeof p->scopes);
        return;
    }
    p->scopes[p->depth] = kind;
    p->scope_open[p->depth++] = open;
}

/* The definition [a, next) of a __device__ function, kept for the PTX's
 * trailer (mock_eval.c reads the one _ops writes for the integer power). */
static void keep_function(struct parser *p, size_t a, size_t next)
{
    char *text;
    if (!definition_text(p, a, next, &text)) {
        out_of_memory(p);
        return;
    }
    char **grown = text ? realloc(p->out->functions, (size_t)(p->out->n_functions + 1) * sizeof *grown) : NULL;
    if (!grown) {
        if (text)
            out_of_memory(p);
        free(text);
        return;
    }
    p->out->functions = grown;
    p->out->functions[p->out->n_functions++] = text;
}

/* One declaration at namespace scope, starting at p->pos. */
static void parse_declaration(struct parser *p)
{
    size_t a = p->pos;
    size_t end = head_end(p, a);
    if (p->failed)
        return;
    bool body = is_punct(&p->t[end], "{");
    for (size_t i = a; i + 1 < end; i++)
        if (is_ident(&p->t[i], "extern") && p->t[i + 1].kind == T_STRING &&
            !(p->t[i + 1].len == 3 && memcmp(p->t[i + 1].s, "\"C\"", 3) == 0) &&
            !(p->t[i + 1].len == 5 && memcmp(p->t[i + 1].s, "\"C++\"", 5) == 0)) {
            error_at(p, i + 1, "unknown external linkage specification");
            return;
        }
    if (body && a == end) {
        error_at(p, end, "expected a declaration");
    } else if (body && end - a == 2 && is_ident(&p->t[a], "extern") && p->t[a + 1].kind == T_STRING) {
        push_scope(p, p->t[a + 1].len == 3 && memcmp(p->t[a + 1].s, "\"C\"", 3) == 0 ? 'C' : 'P', end);
        p->pos = end + 1;
    } else if (body && (is_ident(&p->t[a], "namespace") ||
                        (is_ident(&p->t[a], "inline") && end - a > 1 && is_ident(&p->t[a + 1], "namespace")))) {
        push_scope(p, 'N', end);
        p->pos = end + 1;
    } else if (head_has(p, a, end, "__global__")) {
        p->pos = parse_kernel(p, a, end, body);
    } else if (body && !head_has(p, a, end, "template") &&
               (head_has(p, a, end, "struct") || head_has(p, a, end, "class") || head_has(p, a, end, "union"))) {
        bool function = false; /* "struct S f() {": a function returning a struct */
        for (size_t i = a; i < end; i++)
            function = function || is_punct(&p->t[i], "(");
        p->pos = function ? skip_balanced(p, end) : parse_struct(p, a, end);
    } else if (body) {
        p->pos = skip_balanced(p, end); /* a function, an enum, a template ... */
        if (!p->failed && head_has(p, a, end, "__device__"))
            keep_function(p, a, p->pos);
    } else {
        if (is_ident(&p->t[a], "typedef") || is_ident(&p->t[a], "using"))
            parse_alias(p, a, end);
        else if (head_has(p, a, end, "__device__") || head_has(p, a, end, "__constant__") ||
                 head_has(p, a, end, "__managed__"))
            parse_variables(p, a, end);
        p->pos = end + 1;
    }
}

static bool tokenize(const struct mock_pp *pp, struct tokens *out, struct parser *p)
{
    for (size_t l = 0; l < pp->n_lines; l++) {
        const char *line = pp->text.data + pp->lines[l].offset;
        for (const char *s = line; *s && *s != '\n';) {
            if (isspace((unsigned char)*s)) {
                s++;
                continue;
            }
            const char *start = s;
            enum token_kind kind = T_PUNCT;
            if (isalpha((unsigned char)*s) || *s == '_' || *s == '$') {
                kind = T_IDENT;
                while (ident_char(*s))
                    s++;
            } else if (isdigit((unsigned char)*s) || (*s == '.' && isdigit((unsigned char)s[1]))) {
                kind = T_NUMBER;
                while (ident_char(*s) || *s == '.' || (*s == '\'' && ident_char(s[1])) ||
                       ((*s == '+' || *s == '-') && strchr("eEpP", s[-1])))
                    s++;
            } else if (*s == '"' || *s == '\'') {
                kind = T_STRING;
                char quote = *s++;
                while (*s && *s != '\n' && *s != quote)
                    s += s[0] == '\\' && s[1] && s[1] != '\n' ? 2 : 1;
                if (*s != quote) {
                    log_refusal(p->log, pp->files[pp->lines[l].file], pp->lines[l].line, line,
                                "a string or character literal that does not end on its line");
                    return false;
                }
                s++;
            } else if (strncmp(s, "::", 2) == 0 || strncmp(s, "&&", 2) == 0) {
                s += 2;
            } else if (strncmp(s, "...", 3) == 0) {
                s += 3;
            } else {
                s++;
            }
            if (!add_token(out, kind, start, (size_t)(s - start), l, (size_t)(start - line))) {
                p->out->out_of_memory = true;
                return false;
            }
        }
    }
    return true;
}

bool mock_find_declarations(const struct mock_pp *pp, struct mock_decls *out, struct mock_log *log)
{
    memset(out, 0, sizeof *out);
    struct parser p = {.pp = pp, .log = log, .out = out};
    struct tokens toks = {0};
    if (!tokenize(pp, &toks, &p)) {
        free(toks.v);
        return false;
    }
    p.t = toks.v;
    p.n = toks.n;
    while (p.pos < p.n && !p.failed) {
        const struct token *t = &p.t[p.pos];
        if (is_punct(t, "}")) {
            if (p.depth == 0)
                error_at(&p, p.pos, "expected a declaration");
            else
                p.depth--;
            p.pos++;
        } else if (is_punct(t, ";")) {
            p.pos++;
        } else {
            parse_declaration(&p);
        }
    }
    if (!p.failed && p.depth > 0)
        unclosed(&p, p.scope_open[p.depth - 1]);
    free(p.types);
    free(toks.v);
    return !p.failed;
}

void mock_decls_free(struct mock_decls *d)
{
    for (int i = 0; i < d->n_kernels; i++) {
        free(d->kernels[i].name);
        free(d->kernels[i].params);
        free(d->kernels[i].source);
    }
    free(d->kernels);
    for (int i = 0; i < d->n_variables; i++)
        free(d->variables[i]);
    free(d->variables);
    for (int i = 0; i < d->n_functions; i++)
        free(d->functions[i]);
    free(d->functions);
    memset(d, 0, sizeof *d);
}
