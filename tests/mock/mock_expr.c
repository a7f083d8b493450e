/*
 * mock_expr.c - the statement a map kernel runs for each element
 * (mock_eval.c finds it in the kernel's loops): "z = EXPR", EXPR C++ over
 * the kernel's operands and scalars of type bool, the integer types, float
 * or double.  It reads decimal literals (int, long long, unsigned, float,
 * double), + - * / %, unary - + !, the comparisons, && ||, ?:, casts to
 * those types, CUDA's math functions of one floating type (sqrt, exp,
 * log, ... and their f forms, pow, fmod), and the integer power _ops
 * defines (cudyn_ipow<U>(base, e): in a module that defines it token for
 * token as mock_eval.c has it).
 *
 * Types are C++'s, with int of 32 bits and long of 64 as on the GPU: the
 * integer promotions, the usual arithmetic conversions, bool from the
 * comparisons, ! && ||.  Values are the GPU's: integers wrap in two's
 * complement (as nvcc's code does, and numpy), float and double arithmetic
 * is IEEE in its own precision (float's + - * / computed in double and
 * rounded once, which is exact), the math functions are the host's
 * (within a few units in the last place of CUDA's, as CUDA documents its
 * own).  What C++ leaves undefined is refused where it happens (a
 * division by zero or of the most negative integer by -1, a floating
 * value converted to an integer type that cannot hold it: nvcc's code
 * gives values that depend on the instructions it chose), except signed
 * overflow, which wraps on purpose: the GPU's integer add, subtract,
 * multiply and negate are two's complement, so what nvcc makes of
 * "z = x * y" gives the wrapped value (and numpy does the same).
 * Anything else (another name or function, member access, bitwise
 * operators, __half, complex numbers) is refused when read: the mock
 * never guesses.
 */
#include "config.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mock_eval.h"

#define MAX_NODES 256

/* ------------------------------------------------------------ types */

static const struct {
    const char *spelling;
    enum eval_type type;
} spellings[] = {
    /* the spellings _codegen writes (lib's format table's first ones), and plain C's */
    {"bool", E_BOOL},          {"signed char", E_I8},         {"char", E_I8}, /* signed, as on the GPU's hosts */
    {"unsigned char", E_U8},   {"short", E_I16},              {"unsigned short", E_U16},
    {"int", E_I32},            {"unsigned int", E_U32},       {"unsigned", E_U32},
    {"long long", E_I64},      {"long", E_I64},               {"unsigned long long", E_U64},
    {"unsigned long", E_U64},  {"float", E_F32},              {"double", E_F64},
};

static const unsigned char sizes[] = {1, 1, 1, 2, 2, 4, 4, 8, 8, 4, 8, 0};

enum eval_type eval_type_of(const char *spelling)
{
    for (size_t i = 0; i < sizeof spellings / sizeof spellings[0]; i++)
        if (strcmp(spellings[i].spelling, spelling) == 0)
            return spellings[i].type;
    return E_NONE;
}

size_t eval_type_size(enum eval_type t)
{
    return sizes[t];
}

static bool is_float(enum eval_type t)
{
    return t == E_F32 || t == E_F64;
}

static bool is_signed(enum eval_type t)
{
    return t == E_I8 || t == E_I16 || t == E_I32 || t == E_I64;
}

static enum eval_type promoted(enum eval_type t)
{
    return t < E_I32 ? E_I32 : t;
}

/* The usual arithmetic conversions (long and long long are one type here:
 * both 64 bits, so the result's values are the same). */
static enum eval_type common_type(enum eval_type a, enum eval_type b)
{
    if (a == E_F64 || b == E_F64)
        return E_F64;
    if (a == E_F32 || b == E_F32)
        return E_F32;
    a = promoted(a);
    b = promoted(b);
    if (a == b)
        return a;
    if (is_signed(a) == is_signed(b))
        return sizes[a] > sizes[b] ? a : b;
    enum eval_type u = is_signed(a) ? b : a, s = is_signed(a) ? a : b;
    return sizes[u] >= sizes[s] ? u : s; /* a wider signed type holds every value of the unsigned one */
}

/* ------------------------------------------------------------ values */

/* A value: integers (bool too) in u, sign-extended for signed types. */
struct value {
    enum eval_type type;
    union {
        uint64_t u;
        float f;
        double d;
    };
};

/* u as the integer type t holds it: two's complement, the high bits dropped. */
static uint64_t wrapped(uint64_t u, enum eval_type t)
{
    switch (t) {
    case E_BOOL: return u != 0;
    case E_I8: return (uint64_t)(int64_t)(int8_t)u;
    case E_U8: return (uint8_t)u;
    case E_I16: return (uint64_t)(int64_t)(int16_t)u;
    case E_U16: return (uint16_t)u;
    case E_I32: return (uint64_t)(int64_t)(int32_t)u;
    case E_U32: return (uint32_t)u;
    default: return u;
    }
}

static double as_double(struct value v)
{
    if (v.type == E_F64)
        return v.d;
    if (v.type == E_F32)
        return v.f;
    return is_signed(v.type) ? (double)(int64_t)v.u : (double)v.u;
}

/* v converted to t as C++ converts it (an integer straight to float, not
 * through double, which could round twice); NULL, or why C++ leaves it
 * undefined. */
static const char *convert(struct value v, enum eval_type t, struct value *out)
{
    out->type = t;
    if (t == E_BOOL) {
        out->u = is_float(v.type) ? as_double(v) != 0 : v.u != 0; /* NaN is true */
    } else if (t == E_F32) {
        out->f = v.type == E_F32   ? v.f
                 : v.type == E_F64 ? (float)v.d
                 : is_signed(v.type) ? (float)(int64_t)v.u
                                     : (float)v.u;
    } else if (t == E_F64) {
        out->d = as_double(v);
    } else if (!is_float(v.type)) {
        out->u = wrapped(v.u, t);
    } else {
        double x = trunc(as_double(v)), bits = 8.0 * sizes[t];
        double low = is_signed(t) ? -ldexp(1, (int)bits - 1) : 0, high = ldexp(1, (int)bits - is_signed(t));
        if (!(x >= low && x < high)) /* NaN too */
            return "a floating value converted to an integer type that cannot hold it (undefined in C++)";
        out->u = is_signed(t) ? (uint64_t)(int64_t)x : (uint64_t)x;
    }
    return NULL;
}

static struct value load(enum eval_type t, const void *p)
{
    struct value v = {.type = t};
    if (t == E_F32) {
        memcpy(&v.f, p, sizeof v.f);
    } else if (t == E_F64) {
        memcpy(&v.d, p, sizeof v.d);
    } else {
        memcpy(&v.u, p, sizes[t]); /* little-endian, as the GPU */
        v.u = wrapped(v.u, t);
    }
    return v;
}

static void store(struct value v, void *p)
{
    if (v.type == E_F32)
        memcpy(p, &v.f, sizeof v.f);
    else if (v.type == E_F64)
        memcpy(p, &v.d, sizeof v.d);
    else
        memcpy(p, &v.u, sizes[v.type]);
}

/* ------------------------------------------------------------ the tree */

/* CUDA's math functions the evaluator computes, of one or two arguments. */
static const struct math {
    const char *name;
    double (*d1)(double);
    float (*f1)(float);
    double (*d2)(double, double);
    float (*f2)(float, float);
} maths[] = {
    {"sqrt", sqrt, sqrtf, NULL, NULL}, {"exp", exp, expf, NULL, NULL},     {"log", log, logf, NULL, NULL},
    {"log10", log10, log10f, NULL, NULL}, {"sin", sin, sinf, NULL, NULL},  {"cos", cos, cosf, NULL, NULL},
    {"tan", tan, tanf, NULL, NULL},    {"asin", asin, asinf, NULL, NULL},  {"acos", acos, acosf, NULL, NULL},
    {"atan", atan, atanf, NULL, NULL}, {"sinh", sinh, sinhf, NULL, NULL},  {"cosh", cosh, coshf, NULL, NULL},
    {"tanh", tanh, tanhf, NULL, NULL}, {"fabs", fabs, fabsf, NULL, NULL},  {"ceil", ceil, ceilf, NULL, NULL},
    {"floor", floor, floorf, NULL, NULL}, {"pow", NULL, NULL, pow, powf}, {"fmod", NULL, NULL, fmod, fmodf},
};

enum node_kind { N_NAME, N_CONST, N_CAST, N_NEG, N_PLUS, N_NOT, N_BINARY, N_AND, N_OR, N_COND, N_CALL, N_IPOW };

struct node {
    enum node_kind kind;
    enum eval_type type; /* of its value */
    enum eval_type work; /* N_BINARY: what its operands are converted to; N_IPOW: U */
    char op;             /* N_BINARY: + - * / % < > = ! and l (<=), g (>=) */
    int arg[3];          /* its operands; N_NAME: the name's index */
    struct value constant;
    const struct math *fn;
};

struct eval_expr {
    struct node nodes[MAX_NODES];
    int n_nodes, root, target;
    enum eval_type target_type;
};

void eval_expr_free(struct eval_expr *e)
{
    free(e);
}

/* ------------------------------------------------------------ tokens */

const char *eval_token(const char *s, size_t *len)
{
    static const char pairs[][3] = {"<=", ">=", "==", "!=", "&&", "||", "++", "--", "+=",
                                    "-=", "*=", "/=", "%=", "<<", ">>", "->", "::"};
    while (isspace((unsigned char)*s))
        s++;
    const char *t = s;
    if (isalpha((unsigned char)*s) || *s == '_') {
        while (isalnum((unsigned char)*s) || *s == '_')
            s++;
    } else if (isdigit((unsigned char)*s) || (*s == '.' && isdigit((unsigned char)s[1]))) {
        while (isalnum((unsigned char)*s) || *s == '.' || ((*s == '+' || *s == '-') && strchr("eE", s[-1])))
            s++;
    } else if (*s == '"') {
        for (s++; *s && *s != '"' && *s != '\n'; s++)
            ;
        s += *s == '"';
    } else if (*s) {
        s++;
        for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++)
            if (t[0] == pairs[i][0] && t[1] == pairs[i][1])
                s = t + 2;
    }
    *len = (size_t)(s - t);
    return t;
}

/* ------------------------------------------------------------ reading */

struct parser {
    const char *p, *end; /* what is left of the statement */
    const struct eval_name *names;
    int n_names;
    struct eval_expr *e;
    char *why;
    size_t cap;
    bool failed;
    bool ipow; /* the module defines _ops's integer power */
};

static void refuse(struct parser *ps, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void refuse(struct parser *ps, const char *fmt, ...)
{
    if (ps->failed)
        return;
    ps->failed = true;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(ps->why, ps->cap, fmt, ap);
    va_end(ap);
}

/* The next token of the statement (length 0 at its end). */
static const char *peek(const struct parser *ps, size_t *len)
{
    const char *t = eval_token(ps->p, len);
    if (t >= ps->end)
        *len = 0;
    return t;
}

static bool accept(struct parser *ps, const char *word)
{
    size_t len;
    const char *t = peek(ps, &len);
    if (len != strlen(word) || memcmp(t, word, len) != 0)
        return false;
    ps->p = t + len;
    return true;
}

static void expect(struct parser *ps, const char *word)
{
    size_t len;
    const char *t = peek(ps, &len);
    if (!accept(ps, word))
        refuse(ps, "'%.*s' where '%s' should be", (int)len, t, word);
}

static int add(struct parser *ps, enum node_kind kind, enum eval_type type, int a, int b, int c)
{
    if (ps->failed)
        return -1;
    if (ps->e->n_nodes == MAX_NODES) {
        refuse(ps, "a statement of more than %d terms", MAX_NODES);
        return -1;
    }
    int k = ps->e->n_nodes++;
    ps->e->nodes[k] = (struct node){.kind = kind, .type = type, .arg = {a, b, c}};
    return k;
}

static enum eval_type type_of(const struct parser *ps, int node)
{
    return ps->e->nodes[node].type;
}

static int conditional(struct parser *ps);
static int unary(struct parser *ps);

/* A decimal literal: int (long long where int cannot hold it), with a u
 * or l suffix unsigned or 64 bits; with a point or an exponent double, or
 * float with f.  Octal and hexadecimal ones are refused. */
static int number(struct parser *ps, const char *t, size_t len)
{
    char text[64];
    snprintf(text, sizeof text, "%.*s", (int)len, t);
    bool floating = strpbrk(text, ".eE") != NULL;
    if (len >= sizeof text || (text[0] == '0' && isalnum((unsigned char)text[1]) && !floating)) {
        refuse(ps, "the literal %.*s (the mock reads decimal ones)", (int)len, t);
        return -1;
    }
    char *rest;
    struct value v;
    if (floating) {
        v.type = strchr("fF", text[len - 1]) ? E_F32 : E_F64;
        if (v.type == E_F32)
            v.f = strtof(text, &rest);
        else
            v.d = strtod(text, &rest);
        rest += v.type == E_F32;
    } else {
        v.u = strtoull(text, &rest, 10);
        bool u = strpbrk(rest, "uU") != NULL, l = strpbrk(rest, "lL") != NULL;
        rest += strspn(rest, "uUlL");
        v.type = u ? (l || v.u > UINT32_MAX ? E_U64 : E_U32) : (l || v.u > INT32_MAX ? E_I64 : E_I32);
        if (v.type == E_I64 && v.u > INT64_MAX)
            rest = text; /* no type holds it */
    }
    if (*rest) {
        refuse(ps, "the literal %s", text);
        return -1;
    }
    int k = add(ps, N_CONST, v.type, -1, -1, -1);
    if (k >= 0)
        ps->e->nodes[k].constant = v;
    return k;
}

/* An operand or scalar; the statement's target is never read. */
static int name(struct parser *ps, const char *t, size_t len)
{
    for (int k = 0; k < ps->n_names; k++) {
        const struct eval_name *n = &ps->names[k];
        if (strlen(n->name) != len || memcmp(n->name, t, len) != 0)
            continue;
        if (n->writable) {
            refuse(ps, "the statement reads %s, which it writes (the vector loop never loads it)", n->name);
            return -1;
        }
        return add(ps, N_NAME, n->type, k, -1, -1);
    }
    refuse(ps, "'%.*s', which is none of the kernel's operands and scalars", (int)len, t);
    return -1;
}

/* The rest of a call cudyn_ipow<U>(base, e) of _ops's integer power:
 * base and e of one integer type T (the template deduces T from both),
 * U the unsigned type it computes in, as wide as int or wider (a narrower
 * one would be promoted to int, whose overflow is undefined). */
static int ipow_call(struct parser *ps)
{
    static const char *const words = " unsigned int long ";
    char spelling[64] = "", word[16];
    size_t len;
    expect(ps, "<");
    for (const char *w = peek(ps, &len); !ps->failed && len && !(len == 1 && *w == '>'); w = peek(ps, &len)) {
        snprintf(word, sizeof word, " %.*s ", (int)(len < 12 ? len : 12), w);
        if (!strstr(words, word) || strlen(spelling) + len + 2 > sizeof spelling)
            break;
        snprintf(spelling + strlen(spelling), sizeof spelling - strlen(spelling), "%s%.*s", *spelling ? " " : "",
                 (int)len, w);
        ps->p = w + len;
    }
    enum eval_type u = eval_type_of(spelling);
    if (!ps->failed && u != E_U32 && u != E_U64) {
        refuse(ps, "cudyn_ipow<%s> (it computes in unsigned int or unsigned long long)", spelling);
        return -1;
    }
    expect(ps, ">");
    expect(ps, "(");
    int base = ps->failed ? -1 : conditional(ps);
    expect(ps, ",");
    int e = ps->failed ? -1 : conditional(ps);
    expect(ps, ")");
    if (ps->failed || base < 0 || e < 0)
        return -1;
    enum eval_type t = type_of(ps, base);
    if (t != type_of(ps, e) || is_float(t) || t == E_BOOL) {
        refuse(ps, "cudyn_ipow of arguments of two types or not integers (C++ deduces no T)");
        return -1;
    }
    int k = add(ps, N_IPOW, t, base, e, -1);
    if (k >= 0)
        ps->e->nodes[k].work = u;
    return k;
}

/* fn(args): the f forms (sqrtf ...) take float; the others, C++'s
 * overloads, the type of their arguments when all are float or all double
 * (for integers or a mix the mock does not choose an overload). */
static int call(struct parser *ps, const char *t, size_t len)
{
    const struct math *fn = NULL;
    bool single = false;
    for (size_t i = 0; i < sizeof maths / sizeof maths[0] && !fn; i++) {
        size_t n = strlen(maths[i].name);
        single = len == n + 1 && t[n] == 'f';
        if ((len == n || single) && memcmp(maths[i].name, t, n) == 0)
            fn = &maths[i];
    }
    if (len == 10 && memcmp(t, "cudyn_ipow", 10) == 0) {
        if (ps->ipow)
            return ipow_call(ps);
        refuse(ps, "a call of cudyn_ipow, which its module does not define as _ops writes it (mock_eval.c)");
        return -1;
    }
    if (!fn) {
        refuse(ps, "a call of %.*s, which is none of CUDA's math functions it computes", (int)len, t);
        return -1;
    }
    int arity = fn->d1 ? 1 : 2, args[2] = {-1, -1};
    expect(ps, "(");
    for (int i = 0; i < arity; i++) {
        if (i)
            expect(ps, ",");
        args[i] = ps->failed ? -1 : conditional(ps);
    }
    expect(ps, ")");
    if (ps->failed)
        return -1;
    enum eval_type type = single ? E_F32 : type_of(ps, args[0]);
    if (!single && (!is_float(type) || (arity == 2 && type_of(ps, args[1]) != type))) {
        refuse(ps, "%.*s of integer or mixed arguments (the overload is not emulated)", (int)len, t);
        return -1;
    }
    int k = add(ps, N_CALL, type, args[0], args[1], -1);
    if (k >= 0)
        ps->e->nodes[k].fn = fn;
    return k;
}

static int primary(struct parser *ps)
{
    size_t len;
    const char *t = peek(ps, &len);
    ps->p = t + len;
    if (len == 1 && *t == '(') {
        int k = conditional(ps);
        expect(ps, ")");
        return ps->failed ? -1 : k;
    }
    if (len && (isdigit((unsigned char)*t) || *t == '.'))
        return number(ps, t, len);
    if (len && (isalpha((unsigned char)*t) || *t == '_')) {
        size_t n;
        const char *next = peek(ps, &n);
        bool ipow = n == 1 && *next == '<' && len == 10 && memcmp(t, "cudyn_ipow", 10) == 0; /* cudyn_ipow<U>( */
        return n == 1 && (*next == '(' || ipow) ? call(ps, t, len) : name(ps, t, len);
    }
    if (len)
        refuse(ps, "'%.*s' in the statement", (int)len, t);
    else
        refuse(ps, "a statement that ends too soon");
    return -1;
}

/* "(TYPE)" at the cursor: the type, the cursor past it; E_NONE (the
 * cursor where it was) for anything else. */
static enum eval_type cast(struct parser *ps)
{
    static const char *const words = " bool char signed unsigned short int long float double ";
    size_t len;
    const char *t = peek(ps, &len), *q = t + len;
    char spelling[64] = "", word[16];
    if (len != 1 || *t != '(')
        return E_NONE;
    for (;;) {
        const char *w = eval_token(q, &len);
        snprintf(word, sizeof word, " %.*s ", (int)(len < 12 ? len : 12), w);
        if (!len || !strstr(words, word) || strlen(spelling) + len + 2 > sizeof spelling)
            break;
        snprintf(spelling + strlen(spelling), sizeof spelling - strlen(spelling), "%s%.*s", *spelling ? " " : "",
                 (int)len, w);
        q = w + len;
    }
    if (!*spelling)
        return E_NONE; /* a parenthesised expression */
    const char *close = eval_token(q, &len);
    enum eval_type type = eval_type_of(spelling);
    if (len != 1 || *close != ')' || type == E_NONE) {
        bool closed = len == 1 && *close == ')';
        refuse(ps, "a cast to %s%s%.*s", spelling, closed ? "" : " ", closed ? 0 : (int)len, close);
        return E_NONE;
    }
    ps->p = close + 1;
    return type;
}

static int unary(struct parser *ps)
{
    size_t len;
    const char *t = peek(ps, &len);
    if (len == 1 && strchr("-+!", *t)) {
        ps->p = t + 1;
        int x = unary(ps);
        if (x < 0)
            return -1;
        if (*t == '!')
            return add(ps, N_NOT, E_BOOL, x, -1, -1);
        return add(ps, *t == '-' ? N_NEG : N_PLUS, promoted(type_of(ps, x)), x, -1, -1);
    }
    enum eval_type to = cast(ps);
    if (ps->failed)
        return -1;
    if (to == E_NONE)
        return primary(ps);
    int x = unary(ps);
    return x < 0 ? -1 : add(ps, N_CAST, to, x, -1, -1);
}

/* The binary operators by precedence, tightest last; `code` is the node's op. */
static const struct {
    const char *text;
    char code;
    int level;
} binaries[] = {
    {"||", '|', 1}, {"&&", '&', 2}, {"==", '=', 3}, {"!=", '!', 3}, {"<", '<', 4}, {"<=", 'l', 4}, {">", '>', 4},
    {">=", 'g', 4}, {"+", '+', 5},  {"-", '-', 5},  {"*", '*', 6},  {"/", '/', 6},  {"%", '%', 6},
};

static int binary_node(struct parser *ps, char op, int x, int y)
{
    if (op == '&' || op == '|')
        return add(ps, op == '&' ? N_AND : N_OR, E_BOOL, x, y, -1);
    enum eval_type work = common_type(type_of(ps, x), type_of(ps, y));
    if (op == '%' && is_float(work)) {
        refuse(ps, "%% of floating values (not C++)");
        return -1;
    }
    int k = add(ps, N_BINARY, strchr("=!<l>g", op) ? E_BOOL : work, x, y, -1);
    if (k >= 0) {
        ps->e->nodes[k].work = work;
        ps->e->nodes[k].op = op;
    }
    return k;
}

/* Operators of `level` and tighter, left to right. */
static int binary(struct parser *ps, int level)
{
    int x = unary(ps);
    while (x >= 0) {
        size_t len, b = 0;
        const char *t = peek(ps, &len);
        while (b < sizeof binaries / sizeof binaries[0] &&
               !(len && strlen(binaries[b].text) == len && memcmp(binaries[b].text, t, len) == 0))
            b++;
        if (b == sizeof binaries / sizeof binaries[0] || binaries[b].level < level)
            break;
        ps->p = t + len;
        int y = binary(ps, binaries[b].level + 1);
        x = y < 0 ? -1 : binary_node(ps, binaries[b].code, x, y);
    }
    return x;
}

static int conditional(struct parser *ps)
{
    int c = binary(ps, 1);
    if (c < 0 || !accept(ps, "?"))
        return c;
    int a = conditional(ps);
    expect(ps, ":");
    int b = ps->failed ? -1 : conditional(ps);
    if (a < 0 || b < 0)
        return -1;
    enum eval_type ta = type_of(ps, a), tb = type_of(ps, b);
    return add(ps, N_COND, ta == tb ? ta : common_type(ta, tb), c, a, b);
}

struct eval_expr *eval_expr_parse(const char *text, const char *end, const struct eval_name *names, int n_names,
                                  bool ipow, char *why, size_t cap)
{
    struct eval_expr *e = calloc(1, sizeof *e);
    if (!e) {
        snprintf(why, cap, "out of memory");
        return NULL;
    }
    struct parser ps = {text, end, names, n_names, e, why, cap, false, ipow};
    size_t len;
    const char *t = peek(&ps, &len);
    e->target = -1;
    for (int k = 0; k < n_names; k++)
        if (names[k].writable && strlen(names[k].name) == len && memcmp(names[k].name, t, len) == 0)
            e->target = k;
    if (e->target < 0)
        refuse(&ps, "a statement that does not assign an output: '%.*s'", (int)(end - text), text);
    ps.p = t + len;
    expect(&ps, "=");
    e->root = ps.failed ? -1 : conditional(&ps);
    t = peek(&ps, &len);
    if (len)
        refuse(&ps, "'%.*s' where the statement should end", (int)len, t);
    if (ps.failed) {
        free(e);
        return NULL;
    }
    e->target_type = names[e->target].type;
    return e;
}

/* ------------------------------------------------------------ computing */

static const char *eval(const struct eval_expr *e, int k, void *const *at, struct value *out);

static bool compare(char op, enum eval_type t, struct value x, struct value y)
{
    bool lt, eq, gt; /* all false where a NaN is compared */
    if (is_float(t)) {
        double a = as_double(x), b = as_double(y);
        lt = a < b, eq = a == b, gt = a > b;
    } else if (is_signed(t)) {
        int64_t a = (int64_t)x.u, b = (int64_t)y.u;
        lt = a < b, eq = a == b, gt = a > b;
    } else {
        lt = x.u < y.u, eq = x.u == y.u, gt = x.u > y.u;
    }
    switch (op) {
    case '<': return lt;
    case 'l': return lt || eq;
    case '>': return gt;
    case 'g': return gt || eq;
    case '=': return eq;
    default: return !eq;
    }
}

/* x op y for op in + - * / % of integers of type t (int or wider). */
static const char *integer_op(char op, enum eval_type t, uint64_t a, uint64_t b, uint64_t *r)
{
    if (op == '+' || op == '-' || op == '*') {
        *r = wrapped(op == '+' ? a + b : op == '-' ? a - b : a * b, t);
        return NULL;
    }
    if (b == 0)
        return "an integer division by zero (undefined in C++)";
    if (is_signed(t)) {
        int64_t x = (int64_t)a, y = (int64_t)b;
        if (y == -1 && x == (t == E_I32 ? INT32_MIN : INT64_MIN))
            return "the most negative integer divided by -1 (undefined in C++)";
        *r = wrapped((uint64_t)(op == '/' ? x / y : x % y), t);
    } else {
        *r = op == '/' ? a / b : a % b;
    }
    return NULL;
}

/* The values of a node's first two operands (the second where it has one); NULL, or why not. */
static const char *operands(const struct eval_expr *e, const struct node *n, void *const *at, struct value *x,
                            struct value *y)
{
    const char *why = eval(e, n->arg[0], at, x);
    return why || n->arg[1] < 0 ? why : eval(e, n->arg[1], at, y);
}

static const char *eval_binary(const struct eval_expr *e, const struct node *n, void *const *at, struct value *out)
{
    struct value x, y;
    const char *why = operands(e, n, at, &x, &y);
    if (why)
        return why;
    convert(x, n->work, &x); /* to a type that holds it: never undefined */
    convert(y, n->work, &y);
    out->type = n->type;
    if (n->type == E_BOOL) {
        out->u = compare(n->op, n->work, x, y);
        return NULL;
    }
    if (!is_float(n->work))
        return integer_op(n->op, n->work, x.u, y.u, &out->u);
    double a = as_double(x), b = as_double(y);
    double r = n->op == '+' ? a + b : n->op == '-' ? a - b : n->op == '*' ? a * b : a / b;
    if (n->work == E_F32)
        out->f = (float)r; /* exact: double holds float's product and quotient before rounding once */
    else
        out->d = r;
    return NULL;
}

static const char *eval_call(const struct eval_expr *e, const struct node *n, void *const *at, struct value *out)
{
    struct value a, b = {.type = n->type};
    const char *why = operands(e, n, at, &a, &b);
    if (!why)
        why = convert(a, n->type, &a);
    if (!why)
        why = convert(b, n->type, &b);
    if (why)
        return why;
    out->type = n->type;
    if (n->type == E_F32)
        out->f = n->fn->f1 ? n->fn->f1(a.f) : n->fn->f2(a.f, b.f);
    else
        out->d = n->fn->d1 ? n->fn->d1(a.d) : n->fn->d2(a.d, b.d);
    return NULL;
}

/* _ops's cudyn_ipow<U>(base, e) of type T (n->type), as its text computes
 * it: a negative e (signed T) gives 1, -1 or 0; else square and multiply
 * in U, which wraps, and back to T, which keeps T's low bits. */
static const char *eval_ipow(const struct eval_expr *e, const struct node *n, void *const *at, struct value *out)
{
    struct value base, x;
    const char *why = operands(e, n, at, &base, &x);
    if (why)
        return why;
    out->type = n->type;
    int64_t b = (int64_t)base.u;
    if (is_signed(n->type) && (int64_t)x.u < 0) {
        out->u = wrapped(b == 1 ? 1 : b == -1 ? ((x.u & 1) ? (uint64_t)-1 : 1) : 0, n->type);
        return NULL;
    }
    uint64_t u = wrapped(base.u, n->work), r = 1;
    for (uint64_t k = x.u; k; k >>= 1, u = wrapped(u * u, n->work))
        if (k & 1)
            r = wrapped(r * u, n->work);
    out->u = wrapped(r, n->type);
    return NULL;
}

static const char *eval(const struct eval_expr *e, int k, void *const *at, struct value *out)
{
    const struct node *n = &e->nodes[k];
    struct value x;
    const char *why = NULL;
    switch (n->kind) {
    case N_NAME: *out = load(n->type, at[n->arg[0]]); return NULL;
    case N_CONST: *out = n->constant; return NULL;
    case N_BINARY: return eval_binary(e, n, at, out);
    case N_CALL: return eval_call(e, n, at, out);
    case N_IPOW: return eval_ipow(e, n, at, out);
    case N_AND:
    case N_OR:
        if ((why = eval(e, n->arg[0], at, &x)))
            return why;
        convert(x, E_BOOL, out);
        if (out->u == (n->kind == N_OR))
            return NULL; /* decided by the left operand: the right one is not evaluated, as in C++ */
        return (why = eval(e, n->arg[1], at, &x)) ? why : convert(x, E_BOOL, out);
    case N_COND:
        if ((why = eval(e, n->arg[0], at, &x)))
            return why;
        convert(x, E_BOOL, &x);
        why = eval(e, n->arg[x.u ? 1 : 2], at, &x); /* only the branch taken */
        break;
    default: /* N_CAST, N_NEG, N_PLUS, N_NOT */
        why = eval(e, n->arg[0], at, &x);
    }
    if (why || (why = convert(x, n->type, out)))
        return why;
    if (n->kind == N_NOT)
        out->u = !out->u;
    else if (n->kind == N_NEG && n->type == E_F32)
        out->f = -out->f;
    else if (n->kind == N_NEG && n->type == E_F64)
        out->d = -out->d;
    else if (n->kind == N_NEG)
        out->u = wrapped(0 - out->u, n->type);
    return NULL;
}

const char *eval_expr_run(const struct eval_expr *e, void *const *at)
{
    struct value v, stored;
    const char *why = eval(e, e->root, at, &v);
    if (!why)
        why = convert(v, e->target_type, &stored);
    if (!why)
        store(stored, at[e->target]);
    return why;
}
