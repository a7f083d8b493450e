/*
 * mock_eval.c - the host evaluator of the map kernels python/cudyn writes
 * (_codegen.map_source: gpuarray's operators, comparisons, conversions,
 * assignment, where, cumath's functions), so that make check computes
 * their values on a CPU and compares them with numpy's.
 *
 * A kernel is recognised by the shape of its source, never by its name:
 * the mock NVRTC writes each kernel's definition into its PTX
 * (kernel_facts.h), and the evaluator takes a kernel only when that text
 * is, token for token, one of the two loops _codegen writes for the
 * operands its signature declares, around one statement, the same
 * wherever it appears, that mock_expr.c computes exactly:
 *
 *   flat     every operand flat (its element i: p[i]) or scalar (p[0]):
 *            a grid-stride loop that moves 16 bytes of the widest operand
 *            per thread and step (vectors of CUDA's uint4, uint2 ...) while
 *            the flat pointers are aligned, then an element loop, unrolled,
 *            for the tail or all of it;
 *   strided  a grid-stride loop over i in which each strided operand's byte
 *            offset comes from i's C-order multi-index over the dimensions
 *            cudyn_dK and the operand's strides cudyn_s_NAME_K.
 *
 * Either runs the statement once for every i < n, each operand a reference
 * to its element i (flat), 0 (scalar) or at its offset (strided).  That is
 * what the evaluator does, for i = 0, 1, ... in turn (a GPU's threads run
 * in any order; _ops copies overlapping inputs first, so it changes
 * nothing).  The text is compared whole so that any other loop, however
 * close, is refused loudly ("cannot emulate kernel 'NAME' (why)") rather
 * than run as if it were one of these: a change to _codegen's loops comes
 * here too, or python/tests/test_mock_gpuarray.py fails.  Launches must be
 * one-dimensional, as _codegen's are.
 */
#include "config.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel_facts.h"
#include "mock_eval.h"

#define NAME_BYTES 64
#define TYPE_BYTES 48

enum mode { FLAT, SCALAR, STRIDED };

/* An array operand (parameter cudyn_p_NAME) or a scalar parameter. */
struct param {
    char name[NAME_BYTES];
    char spelling[TYPE_BYTES]; /* its C type as written */
    enum eval_type type;
    bool writable;
    enum mode mode;
};

struct mock_eval {
    char why[256]; /* why the kernel is not evaluated; empty with no statement: it has no source */
    struct param operands[MOCK_MAX_PARAMS], scalars[MOCK_MAX_PARAMS];
    int n_operands, n_scalars, n_strided, ndim;
    int lanes, unroll;    /* of the flat loop, as its text says: elements per vector (0: none), per element step */
    bool vector_index;    /* the vector loop declares i for the statement */
    bool ipow;            /* its module defines _ops's integer power (defines_ipow) */
    struct eval_expr *statement;
};

void mock_eval_free(struct mock_eval *e)
{
    if (e)
        eval_expr_free(e->statement);
    free(e);
}

static void fail(struct mock_eval *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void fail(struct mock_eval *e, const char *fmt, ...)
{
    if (e->why[0])
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->why, sizeof e->why, fmt, ap);
    va_end(ap);
}

static bool is_word(const char *t, size_t len, const char *word)
{
    return len == strlen(word) && memcmp(t, word, len) == 0;
}

/* ------------------------------------------------------------ the source */

/* The text of the comment lines (MOCK_SOURCE_LINE) from `line` on, or
 * NULL (out of memory). */
static char *definition_at(const char *line)
{
    size_t mark = strlen(MOCK_SOURCE_LINE);
    char *source = malloc(strlen(line) + 1), *w = source;
    for (; source && strncmp(line, MOCK_SOURCE_LINE, mark) == 0; line += strcspn(line, "\n") + 1) {
        size_t len = strcspn(line + mark, "\n");
        memcpy(w, line + mark, len);
        w += len;
        *w++ = '\n';
        if (!line[mark + len])
            break;
    }
    if (source)
        *w = '\0';
    return source;
}

/* The definition of kernel `name` the mock NVRTC wrote after the PTX's
 * entries (kernel_facts.h), or NULL. */
static char *source_of(const char *text, const char *name)
{
    size_t head = strlen(MOCK_SOURCE_HEADER), n = strlen(name);
    const char *p = text ? strstr(text, MOCK_SOURCE_HEADER) : NULL;
    while (p && !((p == text || p[-1] == '\n') && strncmp(p + head, name, n) == 0 && p[head + n] == '\n'))
        p = strstr(p + 1, MOCK_SOURCE_HEADER);
    return p ? definition_at(p + head + n + 1) : NULL;
}

/* _ops's integer power (python/cudyn/_ops.py _IPOW), compared token for
 * token: a statement may call it (mock_expr.c computes it) only in a
 * module that defines exactly this function, so that a change there comes
 * here too or python/tests/test_mock_gpuarray.py fails. */
static const char ipow_definition[] = "template <typename U, typename T> __device__ T cudyn_ipow(T base, T e)\n"
                                      "{\n"
                                      "    if (e < 0)\n"
                                      "        return base == 1 ? 1 : base == (T)-1 ? ((e & 1) ? (T)-1 : 1) : 0;\n"
                                      "    U b = (U)base, r = 1;\n"
                                      "    for (; e; e >>= 1, b *= b)\n"
                                      "        if (e & 1) r *= b;\n"
                                      "    return (T)r;\n"
                                      "}\n";

static bool same_tokens(const char *a, const char *a_end, const char *b, const char *b_end);

/* Whether the module's text defines _ops's integer power (kernel_facts.h:
 * the mock NVRTC writes each __device__ function after the kernels). */
static bool defines_ipow(const char *text)
{
    size_t head = strlen(MOCK_FUNCTION_HEADER);
    bool found = false;
    for (const char *p = text ? strstr(text, MOCK_FUNCTION_HEADER) : NULL; p && !found;
         p = strstr(p + head, MOCK_FUNCTION_HEADER)) {
        char *def = p[head] == '\n' ? definition_at(p + head + 1) : NULL;
        found = def && same_tokens(def, def + strlen(def), ipow_definition, ipow_definition + strlen(ipow_definition));
        free(def);
    }
    return found;
}

/* One parameter "[const] TYPE [*] [__restrict__] NAME" at p, into *d;
 * after its ',' or ')' (*last for ')'), or NULL when it cannot be read. */
static const char *read_param(const char *p, struct param *d, bool *pointer, bool *last)
{
    memset(d, 0, sizeof *d);
    d->writable = true;
    *pointer = false;
    for (;;) {
        size_t n;
        const char *t = eval_token(p, &n);
        p = t + n;
        if (!n || n >= NAME_BYTES)
            return NULL;
        if (n == 1 && (*t == ',' || *t == ')')) {
            *last = *t == ')';
            d->type = eval_type_of(d->spelling);
            return d->name[0] ? p : NULL;
        }
        if (n == 1 && *t == '*') {
            *pointer = true;
        } else if (is_word(t, n, "const")) {
            d->writable = false;
        } else if (!is_word(t, n, "__restrict__")) { /* a word of the type, or the name if it is the last */
            size_t used = strlen(d->spelling);
            if (d->name[0] && used + strlen(d->name) + 2 > TYPE_BYTES)
                return NULL;
            if (d->name[0])
                snprintf(d->spelling + used, TYPE_BYTES - used, "%s%s", used ? " " : "", d->name);
            snprintf(d->name, NAME_BYTES, "%.*s", (int)n, t);
        }
    }
}

/* The operands (pointers named cudyn_p_NAME), the scalars before n and
 * the number of dimensions cudyn_dK after it, as the signature lists
 * them; strides are not read: match_signature expects them. */
static void read_signature(struct mock_eval *e, const char *src)
{
    const char *p = strchr(src, '(');
    bool last = p == NULL, pointer, seen_n = false;
    for (p = p ? p + 1 : NULL; !last && !e->why[0];) {
        struct param d;
        if (!(p = read_param(p, &d, &pointer, &last))) {
            fail(e, "a parameter it cannot read");
        } else if (pointer && !seen_n && !e->n_scalars && strncmp(d.name, "cudyn_p_", 8) == 0 &&
                   e->n_operands < MOCK_MAX_PARAMS) {
            memmove(d.name, d.name + 8, strlen(d.name + 8) + 1);
            e->operands[e->n_operands++] = d;
        } else if (pointer) {
            fail(e, "the pointer parameter %s, not an operand of a map kernel", d.name);
        } else if (strcmp(d.name, "n") == 0 && !seen_n) {
            seen_n = true;
        } else if (!seen_n && e->n_scalars < MOCK_MAX_PARAMS) {
            e->scalars[e->n_scalars++] = d;
        } else if (strncmp(d.name, "cudyn_d", 7) == 0) {
            e->ndim++;
        }
    }
    for (int i = 0; i < e->n_operands + e->n_scalars; i++) {
        const struct param *d = i < e->n_operands ? &e->operands[i] : &e->scalars[i - e->n_operands];
        if (d->type == E_NONE)
            fail(e, "%s of type %s, which the mock does not compute with", d->name, d->spelling);
    }
    if (!e->n_operands || !seen_n)
        fail(e, "not a map kernel's signature");
}

static bool has_word(const char *text, const char *word)
{
    size_t n = strlen(word);
    for (const char *p = strstr(text, word); p; p = strstr(p + 1, word))
        if ((p == text || !(isalnum((unsigned char)p[-1]) || p[-1] == '_')) &&
            !(isalnum((unsigned char)p[n]) || p[n] == '_'))
            return true;
    return false;
}

/* The number _codegen writes after `text` (0 where there is none). */
static int number_after(const char *src, const char *text)
{
    const char *at = strstr(src, text);
    return at ? atoi(at + strlen(text)) : 0;
}

/* What the text must then show: each operand's mode (strided where it
 * has an offset, scalar where it reads p[0]) and the flat loop's vector
 * lanes and unrolling.  A wrong reading here only makes the comparison
 * fail. */
static void read_layout(struct mock_eval *e, const char *src)
{
    char probe[NAME_BYTES + 16];
    for (int i = 0; i < e->n_operands; i++) {
        struct param *o = &e->operands[i];
        snprintf(probe, sizeof probe, "cudyn_o_%s", o->name);
        o->mode = has_word(src, probe) ? STRIDED : FLAT;
        snprintf(probe, sizeof probe, "cudyn_p_%s[0]", o->name);
        if (o->mode == FLAT && strstr(src, probe))
            o->mode = SCALAR;
        e->n_strided += o->mode == STRIDED;
    }
    e->lanes = number_after(src, "cudyn_nv = n / ");
    e->unroll = number_after(src, "cudyn_b += ");
}

/* ------------------------------------------------------------ the shape */

/* The text not compared yet, and the statement where first seen. */
struct cursor {
    const char *p;
    const char *statement, *statement_end;
    struct mock_eval *e;
};

/* Whether the tokens of `want` come next (white space aside); past them if so. */
static bool take(struct cursor *c, const char *want)
{
    const char *p = c->p;
    for (;;) {
        size_t wn, pn;
        const char *w = eval_token(want, &wn), *t = eval_token(p, &pn);
        if (!wn) {
            c->p = p;
            return true;
        }
        if (wn != pn || memcmp(w, t, wn) != 0)
            return false;
        want = w + wn;
        p = t + pn;
    }
}

/* The tokens printf(fmt, ...) writes must come next; the first place they
 * do not is the reason the kernel is refused. */
static void expect(struct cursor *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void expect(struct cursor *c, const char *fmt, ...)
{
    if (c->e->why[0])
        return;
    char want[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(want, sizeof want, fmt, ap);
    va_end(ap);
    if (!take(c, want)) {
        size_t n;
        const char *t = eval_token(c->p, &n);
        size_t shown = strcspn(t, "\n");
        fail(c->e, "not a map kernel's loop: '%.*s' where '%.80s' was expected", (int)(shown < 60 ? shown : 60), t,
             want);
    }
}

static bool same_tokens(const char *a, const char *a_end, const char *b, const char *b_end)
{
    for (;;) {
        size_t an, bn;
        a = eval_token(a, &an);
        b = eval_token(b, &bn);
        an = a < a_end ? an : 0;
        bn = b < b_end ? bn : 0;
        if (an != bn || memcmp(a, b, an) != 0)
            return false;
        if (!an)
            return true;
        a += an;
        b += bn;
    }
}

/* The statement, up to its ';': kept the first time, the same tokens later. */
static void statement(struct cursor *c)
{
    const char *p = c->p, *end = p;
    size_t n;
    int depth = 0;
    for (const char *t = eval_token(p, &n); n && (depth || !(n == 1 && strchr(";{}", *t))); t = eval_token(end, &n)) {
        depth += n == 1 && *t == '(' ? 1 : n == 1 && *t == ')' ? -1 : 0;
        end = t + n;
    }
    if (!c->statement) {
        c->statement = p;
        c->statement_end = end;
    } else if (!c->e->why[0] && !same_tokens(c->statement, c->statement_end, p, end)) {
        fail(c->e, "its loops run different statements");
    }
    c->p = end;
    expect(c, ";");
}

static void match_signature(struct cursor *c)
{
    const struct mock_eval *e = c->e;
    size_t n;
    expect(c, "extern \"C\" __global__ void");
    c->p = eval_token(c->p, &n) + n; /* any name */
    expect(c, "(");
    for (int i = 0; i < e->n_operands; i++) {
        const struct param *o = &e->operands[i];
        expect(c, "%s%s%s *__restrict__ cudyn_p_%s", i ? ", " : "", o->writable ? "" : "const ", o->spelling,
               o->name);
    }
    for (int i = 0; i < e->n_scalars; i++)
        expect(c, ", %s %s", e->scalars[i].spelling, e->scalars[i].name);
    expect(c, ", unsigned long long n");
    for (int k = 0; k < e->ndim; k++)
        expect(c, ", unsigned long long cudyn_d%d", k);
    for (int i = 0; i < e->n_operands; i++)
        for (int k = 0; k < e->ndim && e->operands[i].mode == STRIDED; k++)
            expect(c, ", long long cudyn_s_%s_%d", e->operands[i].name, k);
    expect(c, ") {");
}

/* Each operand's reference to its element, then the statement. */
static void element(struct cursor *c, bool vector)
{
    for (int i = 0; i < c->e->n_operands; i++) {
        const struct param *o = &c->e->operands[i];
        const char *k = o->writable ? "" : "const ", *t = o->spelling, *n = o->name;
        expect(c, "%s%s &%s =", k, t, n);
        if (o->mode == FLAT)
            expect(c, vector ? "cudyn_v_%s[cudyn_u];" : "cudyn_p_%s[i];", n);
        else if (o->mode == SCALAR)
            expect(c, "cudyn_p_%s[0];", n);
        else
            expect(c, "*(%s%s *)((%schar *)cudyn_p_%s + cudyn_o_%s);", k, t, k, n, n);
    }
    statement(c);
}

static void strided_loop(struct cursor *c)
{
    const struct mock_eval *e = c->e;
    expect(c, "for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < n;"
              " i += (unsigned long long)blockDim.x * gridDim.x) {");
    expect(c, "unsigned long long cudyn_r = i, cudyn_c; long long");
    for (int i = 0, s = 0; i < e->n_operands; i++)
        if (e->operands[i].mode == STRIDED)
            expect(c, "%scudyn_o_%s = 0", s++ ? ", " : "", e->operands[i].name);
    expect(c, ";");
    for (int k = e->ndim - 1; k >= 0; k--) {
        if (k) /* what is left of i for the outermost axis is its index */
            expect(c, "cudyn_c = cudyn_r %% cudyn_d%d; cudyn_r /= cudyn_d%d;", k, k);
        else
            expect(c, "cudyn_c = cudyn_r;");
        for (int i = 0; i < e->n_operands; i++)
            if (e->operands[i].mode == STRIDED)
                expect(c, "cudyn_o_%s += (long long)cudyn_c * cudyn_s_%s_%d;", e->operands[i].name,
                       e->operands[i].name, k);
    }
    element(c, false);
    expect(c, "}");
}

/* CUDA's type of `bytes` bytes that moves a vector, or NULL. */
static const char *vector_type(size_t bytes)
{
    return bytes == 16 ? "uint4" : bytes == 8 ? "uint2" : bytes == 4 ? "unsigned int" : bytes == 2 ? "unsigned short"
                                                                                                     : NULL;
}

/* Elements 0 .. n / lanes * lanes, while every flat pointer is aligned to
 * its vector: each flat input loaded as one vector of `lanes` elements,
 * the statement run on each, each flat output stored as one vector. */
static void vector_loop(struct cursor *c)
{
    struct mock_eval *e = c->e;
    int lanes = e->lanes;
    bool first = true;
    expect(c, "unsigned long long cudyn_tail = 0; if (");
    for (int i = 0; i < e->n_operands; i++)
        if (e->operands[i].mode == FLAT) {
            size_t bytes = (size_t)lanes * eval_type_size(e->operands[i].type);
            if (!vector_type(bytes))
                fail(e, "a vector of %zu bytes", bytes);
            expect(c, "%s(unsigned long long)cudyn_p_%s %% %zu == 0", first ? "" : "&& ", e->operands[i].name,
                   bytes);
            first = false;
        }
    expect(c, ") { const unsigned long long cudyn_nv = n / %d;", lanes);
    expect(c, "for (unsigned long long cudyn_v = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;"
              " cudyn_v < cudyn_nv; cudyn_v += (unsigned long long)blockDim.x * gridDim.x) {");
    for (int i = 0; i < e->n_operands && !e->why[0]; i++) {
        const struct param *o = &e->operands[i];
        const char *vt = vector_type((size_t)lanes * eval_type_size(o->type));
        if (o->mode == FLAT)
            expect(c, "__align__(16) %s cudyn_v_%s[%d];", o->spelling, o->name, lanes);
        if (o->mode == FLAT && !o->writable)
            expect(c, "*(%s *)cudyn_v_%s = ((const %s *)cudyn_p_%s)[cudyn_v];", vt, o->name, vt, o->name);
    }
    expect(c, "for (unsigned int cudyn_u = 0; cudyn_u < %d; cudyn_u++) {", lanes);
    char index[96];
    snprintf(index, sizeof index, "const unsigned long long i = cudyn_v * %d + cudyn_u;", lanes);
    e->vector_index = take(c, index);
    element(c, true);
    expect(c, "}");
    for (int i = 0; i < e->n_operands && !e->why[0]; i++) {
        const struct param *o = &e->operands[i];
        const char *vt = vector_type((size_t)lanes * eval_type_size(o->type));
        if (o->mode == FLAT && o->writable)
            expect(c, "((%s *)cudyn_p_%s)[cudyn_v] = *(%s *)cudyn_v_%s;", vt, o->name, vt, o->name);
    }
    expect(c, "} cudyn_tail = cudyn_nv * %d; }", lanes);
}

/* Elements from the vector loop's tail (0 without one) to n, `unroll` per
 * thread and step. */
static void element_loop(struct cursor *c)
{
    int unroll = c->e->unroll;
    expect(c, "const unsigned long long cudyn_g = (unsigned long long)blockDim.x * gridDim.x;");
    expect(c, "for (unsigned long long cudyn_b = %s + (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;",
           c->e->lanes ? "cudyn_tail" : "0");
    expect(c, "cudyn_b < n; cudyn_b += %d * cudyn_g) {", unroll);
    expect(c, "for (unsigned int cudyn_u = 0; cudyn_u < %d; cudyn_u++) {", unroll);
    expect(c, "const unsigned long long i = cudyn_b + cudyn_u * cudyn_g; if (i < n) {");
    element(c, false);
    expect(c, "} } }");
}

/* The statement over the operands, the scalars and, where every loop
 * declares it, i. */
static void read_statement(struct mock_eval *e, const char *text, const char *end)
{
    struct eval_name names[2 * MOCK_MAX_PARAMS + 1];
    int n = 0, outputs = 0;
    for (int i = 0; i < e->n_operands; i++, n++) {
        names[n] = (struct eval_name){e->operands[i].name, e->operands[i].type, e->operands[i].writable};
        outputs += e->operands[i].writable;
    }
    for (int i = 0; i < e->n_scalars; i++)
        names[n++] = (struct eval_name){e->scalars[i].name, e->scalars[i].type, false};
    if (e->ndim || !e->lanes || e->vector_index)
        names[n++] = (struct eval_name){"i", E_U64, false};
    if (outputs != 1) /* a vector loop would store an output the statement does not write */
        fail(e, "%d outputs (the mock evaluates one)", outputs);
    if (!e->why[0])
        e->statement = eval_expr_parse(text, end, names, n, e->ipow, e->why, sizeof e->why);
}

/* Recognises the kernel in src; e->statement set, or e->why says why not. */
static void recognise(struct mock_eval *e, const char *src, const struct CUfunc_st *fn)
{
    read_signature(e, src);
    if (e->why[0])
        return;
    read_layout(e, src);
    struct cursor c = {src, NULL, NULL, e};
    match_signature(&c);
    if (e->ndim) {
        strided_loop(&c);
    } else {
        if (e->lanes)
            vector_loop(&c);
        element_loop(&c);
    }
    expect(&c, "}");
    size_t n;
    const char *rest = eval_token(c.p, &n);
    if (n)
        fail(e, "'%.40s' after the kernel", rest);
    int params = e->n_operands + e->n_scalars + 1 + e->ndim * (1 + e->n_strided);
    if (fn->n_params != params)
        fail(e, "its PTX declares %d parameters, its source %d", fn->n_params, params);
    for (int i = 0; i < params && !e->why[0]; i++) {
        size_t size = i >= e->n_operands && i < e->n_operands + e->n_scalars
                          ? eval_type_size(e->scalars[i - e->n_operands].type)
                          : 8;
        if (fn->param_size[i] != size)
            fail(e, "parameter %d is %zu bytes in its PTX, %zu in its source", i, fn->param_size[i], size);
    }
    if (!e->why[0])
        read_statement(e, c.statement, c.statement_end);
}

const struct mock_eval *mock_eval_of(struct CUfunc_st *fn, char *why, size_t cap)
{
    pthread_mutex_lock(&mock.lock);
    struct mock_eval *e = fn->eval;
    pthread_mutex_unlock(&mock.lock);
    if (!e) { /* the first launch: recognised once, kept with the function */
        if (!(e = calloc(1, sizeof *e))) {
            snprintf(why, cap, "out of memory");
            return NULL;
        }
        const char *text = module_text(fn->module);
        char *src = source_of(text, fn->name);
        e->ipow = defines_ipow(text);
        if (src)
            recognise(e, src, fn);
        else if (text && strstr(text, "// mock-nvrtc input ")) /* the mock NVRTC's, without it */
            fail(e, "its PTX carries no source: a macro in it, or a kernel cache older than the mock NVRTC's "
                    "source trailer (clear the cache)");
        free(src);
        pthread_mutex_lock(&mock.lock);
        if (fn->eval) { /* another thread was first */
            mock_eval_free(e);
            e = fn->eval;
        } else {
            fn->eval = e;
        }
        pthread_mutex_unlock(&mock.lock);
    }
    snprintf(why, cap, "%s", e->why);
    return e->statement ? e : NULL;
}

/* ------------------------------------------------------------ running */

/* One launch: its parameters, and each operand's element 0 in host memory. */
struct run {
    bool faulted;
    uint64_t n, i, dims[MOCK_MAX_PARAMS];
    int64_t strides[MOCK_MAX_PARAMS]; /* strided operand s, axis k: [s * ndim + k] */
    unsigned char *base[MOCK_MAX_PARAMS];
    void *at[2 * MOCK_MAX_PARAMS + 1]; /* the statement's names: their bytes for element i */
};

/* The bytes [low, high) around element 0 that operand `o` (strided ones:
 * the s-th) touches for every i < n; false where they overflow. */
static bool extent(const struct mock_eval *e, const struct run *r, const struct param *o, int s, int64_t *low,
                   int64_t *high)
{
    int64_t size = (int64_t)eval_type_size(o->type), lo = 0, hi = size;
    uint64_t bytes, inner = 1; /* inner: the elements of one step of the outermost axis */
    if (o->mode == FLAT) {
        if (__builtin_mul_overflow(r->n, (uint64_t)size, &bytes) || bytes > INT64_MAX)
            return false;
        hi = (int64_t)bytes;
    }
    for (int k = 1; k < e->ndim && o->mode == STRIDED; k++)
        if (__builtin_mul_overflow(inner, r->dims[k], &inner))
            return false;
    for (int k = 0; k < e->ndim && o->mode == STRIDED; k++) {
        uint64_t most = k ? r->dims[k] - 1 : (r->n - 1) / inner; /* the largest index on axis k */
        int64_t step;
        if (most > INT64_MAX || __builtin_mul_overflow((int64_t)most, r->strides[s * e->ndim + k], &step) ||
            __builtin_add_overflow(step < 0 ? lo : hi, step, step < 0 ? &lo : &hi))
            return false;
    }
    *low = lo;
    *high = hi;
    return true;
}

/* Reads the launch's parameters in the signature's order and finds each
 * operand's memory; a launch that reaches outside every allocation
 * faults, as on a GPU. */
static cu_result setup(const struct mock_eval *e, const struct launch *l, struct run *r)
{
    int p = e->n_operands + e->n_scalars;
    r->n = SCALAR(unsigned long long, l, p++);
    for (int k = 0; k < e->ndim; k++)
        if ((r->dims[k] = SCALAR(unsigned long long, l, p++)) == 0 && k && r->n)
            return mock_refuse("kernel '%s' with dimension %d of 0 (a division by zero on a GPU)", l->fn->name, k);
    for (int k = 0; k < e->ndim * e->n_strided; k++)
        r->strides[k] = SCALAR(long long, l, p++);
    for (int i = 0; i < e->n_scalars; i++)
        r->at[e->n_operands + i] = l->params[e->n_operands + i];
    r->at[e->n_operands + e->n_scalars] = &r->i;
    for (int i = 0, s = 0; i < e->n_operands && r->n; i++) {
        const struct param *o = &e->operands[i];
        int64_t low, high;
        cu_deviceptr at = SCALAR(cu_deviceptr, l, i);
        unsigned char *host = NULL;
        if (extent(e, r, o, s, &low, &high))
            host = memory_range(at + (uint64_t)low, (size_t)(high - low));
        if (!host) {
            kernel_fault();
            r->faulted = true;
            return CU_OK; /* the launch was made; the fault shows at the next call, as on a GPU */
        }
        r->base[i] = host - low;
        s += o->mode == STRIDED;
    }
    return CU_OK;
}

/* Points the operands' names at element i, as the kernel's references are. */
static void locate(const struct mock_eval *e, struct run *r)
{
    int64_t offset[MOCK_MAX_PARAMS] = {0};
    uint64_t rest = r->i;
    for (int k = e->ndim - 1; k >= 0; k--) {
        uint64_t c = k ? rest % r->dims[k] : rest;
        rest = k ? rest / r->dims[k] : rest;
        for (int s = 0; s < e->n_strided; s++)
            offset[s] += (int64_t)c * r->strides[s * e->ndim + k];
    }
    for (int i = 0, s = 0; i < e->n_operands; i++) {
        const struct param *o = &e->operands[i];
        int64_t size = (int64_t)eval_type_size(o->type);
        r->at[i] = r->base[i] + (o->mode == FLAT ? (int64_t)r->i * size : o->mode == SCALAR ? 0 : offset[s++]);
    }
}

cu_result mock_eval_run(const struct launch *l)
{
    pthread_mutex_lock(&mock.lock);
    const struct mock_eval *e = l->fn->eval;
    pthread_mutex_unlock(&mock.lock);
    if (l->grid[1] != 1 || l->grid[2] != 1 || l->block[1] != 1 || l->block[2] != 1)
        return mock_refuse("kernel '%s' on a grid or block of more than one dimension (a map kernel's loop is "
                           "indexed by x alone)",
                           l->fn->name);
    struct run *r = calloc(1, sizeof *r);
    if (!r)
        return CU_ERR_OUT_OF_MEMORY;
    cu_result result = setup(e, l, r);
    for (r->i = 0; result == CU_OK && !r->faulted && r->i < r->n; r->i++) {
        locate(e, r);
        const char *why = eval_expr_run(e->statement, r->at);
        if (why) /* the elements before it are written: a failed launch's output is undefined */
            result = mock_refuse("kernel '%s' at element %llu: %s", l->fn->name, (unsigned long long)r->i, why);
    }
    free(r);
    return result;
}
