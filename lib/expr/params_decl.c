/*
 * params_decl.c - the parser of the C parameter lists elementwise and
 * reduction kernels are made from ("float a, const float *x, float *y"):
 * a pure function, table-tested by tests/test_expr_tables.c.
 *
 * A parameter is a scalar type of the launch format's alphabet, or a
 * pointer to one, with const / volatile qualifiers and __restrict__ on the
 * pointer.  The kernel declares it with a canonical spelling of builtin
 * types only (<stdint.h> names become the builtin of their width), because
 * NVRTC knows int8_t ... uint64_t only when headers are on its include path.
 */
#include "config.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "expr/expr.h"

/* The scalars, as the kernel spells them: X(spelling, format code, bytes).
 * The codes and sizes are those of cudyn.h's CUDYN_LAUNCH_FORMAT_MAP (the
 * table test checks). */
static const struct scalar {
    const char *spelling;
    char code;
    size_t size;
} scalars[] = {
    {"bool", '?', 1},      {"char", 'b', 1},          {"signed char", 'b', 1},        {"unsigned char", 'B', 1},
    {"short", 'h', 2},     {"unsigned short", 'H', 2}, {"int", 'i', 4},               {"unsigned int", 'I', 4},
    {"long", 'q', 8},      {"unsigned long", 'Q', 8},  {"long long", 'q', 8},          {"unsigned long long", 'Q', 8},
    {"size_t", 'z', 8},    {"float", 'f', 4},          {"double", 'd', 8},             {"__half", 'e', 2},
};

/* Names that stand alone for a scalar: <stdint.h>'s, written as the
 * builtin of their width (Linux is LP64), and size_t and __half. */
static const struct {
    const char *name, *spelling;
} named_scalars[] = {
    {"int8_t", "signed char"},  {"uint8_t", "unsigned char"},       {"int16_t", "short"},
    {"uint16_t", "unsigned short"}, {"int32_t", "int"},             {"uint32_t", "unsigned int"},
    {"int64_t", "long long"},   {"uint64_t", "unsigned long long"}, {"size_t", "size_t"},
    {"__half", "__half"},
};

/* Words a parameter may not be named: C++ and CUDA keywords, the builtins
 * a generated kernel reads, and the names the body itself gets (i, n). */
static const char *const reserved[] = {
    "alignas", "alignof", "and", "and_eq", "asm", "auto", "bitand", "bitor", "bool", "break", "case", "catch",
    "char", "char8_t", "char16_t", "char32_t", "class", "compl", "concept", "const", "consteval", "constexpr",
    "constinit", "const_cast", "continue", "co_await", "co_return", "co_yield", "decltype", "default", "delete",
    "do", "double", "dynamic_cast", "else", "enum", "explicit", "export", "extern", "false", "float", "for",
    "friend", "goto", "if", "inline", "int", "long", "mutable", "namespace", "new", "noexcept", "not", "not_eq",
    "nullptr", "operator", "or", "or_eq", "private", "protected", "public", "register", "reinterpret_cast",
    "requires", "return", "short", "signed", "sizeof", "static", "static_assert", "static_cast", "struct",
    "switch", "template", "this", "thread_local", "throw", "true", "try", "typedef", "typeid", "typename",
    "union", "unsigned", "using", "virtual", "void", "volatile", "wchar_t", "while", "xor", "xor_eq",
    "threadIdx", "blockIdx", "blockDim", "gridDim", "warpSize", "size_t", "i", "n",
};

static bool word_in(const char *w, size_t len, const char *const *list, size_t count)
{
    for (size_t k = 0; k < count; k++)
        if (strlen(list[k]) == len && memcmp(list[k], w, len) == 0)
            return true;
    return false;
}

static bool is_word(const char *w, size_t len, const char *word)
{
    return strlen(word) == len && memcmp(w, word, len) == 0;
}

static void say(char *why, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void say(char *why, size_t cap, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, cap, fmt, ap);
    va_end(ap);
}

/* ---------------------------------------------------------- type words */

enum { K_SIGNED, K_UNSIGNED, K_CHAR, K_SHORT, K_INT, K_LONG, K_FLOAT, K_DOUBLE, K_BOOL, N_KEYS };
static const char *const keys[N_KEYS] = {"signed", "unsigned", "char", "short", "int", "long", "float", "double", "bool"};

/* The canonical spelling of builtin keywords combined as C combines them
 * ("unsigned long int" -> "unsigned long"), or NULL. */
static const char *builtin_spelling(const int k[N_KEYS])
{
    int sign = k[K_SIGNED] + k[K_UNSIGNED];
    int words = sign + k[K_CHAR] + k[K_SHORT] + k[K_INT] + k[K_LONG] + k[K_FLOAT] + k[K_DOUBLE] + k[K_BOOL];
    bool u = k[K_UNSIGNED] == 1;
    if (sign > 1 || words == 0 || k[K_INT] > 1)
        return NULL;
    if (k[K_FLOAT] || k[K_DOUBLE] || k[K_BOOL])
        return words == 1 ? (k[K_FLOAT] ? "float" : k[K_DOUBLE] ? "double" : "bool") : NULL;
    if (k[K_CHAR])
        return words == 1 + sign && k[K_CHAR] == 1 ? (u ? "unsigned char" : k[K_SIGNED] ? "signed char" : "char")
                                                   : NULL;
    if (k[K_SHORT])
        return k[K_SHORT] == 1 && !k[K_LONG] ? (u ? "unsigned short" : "short") : NULL;
    if (k[K_LONG] == 1)
        return u ? "unsigned long" : "long";
    if (k[K_LONG] == 2)
        return u ? "unsigned long long" : "long long";
    if (k[K_LONG] == 0)
        return u ? "unsigned int" : "int";
    return NULL;
}

static const struct scalar *scalar_of(const char *spelling)
{
    for (size_t i = 0; i < sizeof scalars / sizeof scalars[0]; i++)
        if (strcmp(scalars[i].spelling, spelling) == 0)
            return &scalars[i];
    return NULL;
}

/* ---------------------------------------------------------- declarations */

/* What one declaration (a parameter, or a lone type) says. */
struct decl {
    int keys[N_KEYS];
    const char *named; /* spelling of a named scalar, or NULL */
    int stars;
    bool const_data, volatile_data;        /* before the '*' */
    bool const_ptr, volatile_ptr, restrict_ptr; /* after it */
    bool restrict_early;                   /* __restrict__ before any '*' */
    char unknown[64];                      /* a word that is no type or qualifier */
    char name[64];
    bool named_twice;
    const char *repeated; /* a qualifier given twice in one place ("const const") */
};

/* Reads the tokens of [s, end): words, '*'.  -1 on another character. */
static int read_decl(const char *s, const char *end, struct decl *d, char *bad)
{
    memset(d, 0, sizeof *d);
    while (s < end) {
        if (isspace((unsigned char)*s)) {
            s++;
            continue;
        }
        if (*s == '*') {
            d->stars++;
            s++;
            continue;
        }
        if (!isalpha((unsigned char)*s) && *s != '_') {
            *bad = *s;
            return -1;
        }
        const char *w = s;
        while (s < end && (isalnum((unsigned char)*s) || *s == '_'))
            s++;
        size_t len = (size_t)(s - w);
        bool after_star = d->stars > 0;
        size_t k = 0;
        while (k < N_KEYS && !is_word(w, len, keys[k]))
            k++;
        const char *named = NULL;
        for (size_t i = 0; i < sizeof named_scalars / sizeof named_scalars[0] && !named; i++)
            if (is_word(w, len, named_scalars[i].name))
                named = named_scalars[i].spelling;
        bool *qualifier = is_word(w, len, "const")          ? (after_star ? &d->const_ptr : &d->const_data)
                          : is_word(w, len, "volatile")     ? (after_star ? &d->volatile_ptr : &d->volatile_data)
                          : is_word(w, len, "__restrict__") ? (after_star ? &d->restrict_ptr : &d->restrict_early)
                                                            : NULL;
        if (qualifier) {
            if (*qualifier && !d->repeated) /* C allows it, C++ (NVRTC) does not: say it here */
                d->repeated = is_word(w, len, "const") ? "const" : is_word(w, len, "volatile") ? "volatile"
                                                                                                : "__restrict__";
            *qualifier = true;
        }
        else if (k < N_KEYS && !after_star && !d->name[0])
            d->keys[k]++;
        else if (named && !after_star && !d->name[0] && !d->named)
            d->named = named;
        else if (d->name[0])
            d->named_twice = true;
        else if (len < sizeof d->name)
            memcpy(d->name, w, len); /* the last plain word: the name, or a type we do not know */
        else
            d->named_twice = true;
    }
    return 0;
}

/* The scalar a declaration's type words spell, or NULL with a reason. */
static const struct scalar *decl_scalar(const struct decl *d, char *why, size_t cap)
{
    int words = 0;
    for (int k = 0; k < N_KEYS; k++)
        words += d->keys[k];
    if (d->named && words) {
        say(why, cap, "%s cannot be combined with other type words", d->named);
        return NULL;
    }
    const char *spelling = d->named ? d->named : builtin_spelling(d->keys);
    if (!spelling) {
        say(why, cap, words ? "the type words do not make a C type" : "no type");
        return NULL;
    }
    return scalar_of(spelling);
}

static void canonical_type(const struct decl *d, const struct scalar *s, char *out, size_t cap)
{
    snprintf(out, cap, "%s%s%s%s%s%s%s", d->const_data ? "const " : "", d->volatile_data ? "volatile " : "",
             s->spelling, d->stars ? " *" : "", d->const_ptr ? "const " : "", d->volatile_ptr ? "volatile " : "",
             d->restrict_ptr ? "__restrict__ " : "");
    size_t len = strlen(out);
    if (len && out[len - 1] == ' ')
        out[len - 1] = '\0';
}

static const char supported[] =
    "types are bool, (un)signed char/short/int/long/long long, int8_t ... uint64_t, size_t, float, double, "
    "__half, and pointers to them";

/* Checks the name of parameter `index`; names must differ from those of
 * earlier parameters. */
static int check_name(const struct decl *d, const struct cudyn__param_list *list, char *why, size_t cap)
{
    size_t len = strlen(d->name);
    if (!len) {
        say(why, cap, "has no name");
        return -1;
    }
    if (d->named_twice) {
        say(why, cap, "has more than one name, or a type cudyn does not know (%s)", supported);
        return -1;
    }
    if (word_in(d->name, len, reserved, sizeof reserved / sizeof reserved[0]) || strncmp(d->name, "cudyn_", 6) == 0 ||
        strncmp(d->name, "__", 2) == 0) {
        say(why, cap, "may not be named '%s' (reserved: C++ and CUDA keywords, i, n, cudyn_..., __...)", d->name);
        return -1;
    }
    for (int k = 0; k < list->count; k++)
        if (strcmp(list->p[k].name, d->name) == 0) {
            say(why, cap, "repeats the name '%s'", d->name);
            return -1;
        }
    return 0;
}

/* One parameter from [s, end). */
static int parse_one(const char *s, const char *end, struct cudyn__param_list *list, char *why, size_t cap)
{
    struct decl d;
    char bad = 0;
    if (read_decl(s, end, &d, &bad) != 0) {
        say(why, cap, "contains '%c'; %s", isprint((unsigned char)bad) ? bad : '?', supported);
        return -1;
    }
    if (d.repeated) {
        say(why, cap, "repeats the qualifier '%s'", d.repeated);
        return -1;
    }
    if (d.stars > 1) {
        say(why, cap, "is a pointer to a pointer; %s", supported);
        return -1;
    }
    if (d.restrict_early || (d.restrict_ptr && !d.stars)) {
        say(why, cap, "has __restrict__ where it qualifies no pointer (write 'float *__restrict__ x')");
        return -1;
    }
    const struct scalar *sc = decl_scalar(&d, why, cap);
    if (!sc) {
        if (d.name[0] && !d.named && !d.keys[K_INT] && !d.keys[K_CHAR] && !d.keys[K_LONG] && !d.keys[K_SHORT] &&
            !d.keys[K_FLOAT] && !d.keys[K_DOUBLE] && !d.keys[K_BOOL] && !d.keys[K_SIGNED] && !d.keys[K_UNSIGNED])
            say(why, cap, "has a type cudyn does not know; %s", supported);
        return -1;
    }
    if (check_name(&d, list, why, cap) != 0)
        return -1;
    struct cudyn__param *p = &list->p[list->count];
    memset(p, 0, sizeof *p);
    snprintf(p->name, sizeof p->name, "%s", d.name);
    canonical_type(&d, sc, p->type, sizeof p->type);
    snprintf(p->scalar, sizeof p->scalar, "%s", sc->spelling);
    p->pointer = d.stars == 1;
    p->code = p->pointer ? 'p' : sc->code;
    p->elem_size = sc->size;
    p->writable = p->pointer && !d.const_data && !d.volatile_data;
    p->is_volatile = p->pointer && d.volatile_data;
    list->uses_half = list->uses_half || sc->code == 'e';
    list->format[list->count++] = p->code;
    list->format[list->count] = '\0';
    return 0;
}

static bool blank(const char *s, const char *end)
{
    while (s < end && isspace((unsigned char)*s))
        s++;
    return s == end;
}

int cudyn__params_parse(const char *text, struct cudyn__param_list *out, char *why, size_t cap)
{
    memset(out, 0, sizeof *out);
    if (blank(text, text + strlen(text)))
        return 0;
    for (const char *s = text;;) {
        const char *end = strchr(s, ',');
        if (!end)
            end = s + strlen(s);
        int index = out->count + 1;
        if (out->count == CUDYN_EXPR_MAX_PARAMS) {
            say(why, cap, "more than %d parameters", CUDYN_EXPR_MAX_PARAMS);
            return -1;
        }
        char reason[300] = "";
        if (blank(s, end))
            say(reason, sizeof reason, "is empty");
        else
            parse_one(s, end, out, reason, sizeof reason);
        if (reason[0]) {
            while (s < end && isspace((unsigned char)*s))
                s++;
            say(why, cap, "parameter %d ('%.*s') %s", index, (int)(end - s > 60 ? 60 : end - s), s, reason);
            return -1;
        }
        if (!*end)
            return 0;
        s = end + 1;
    }
}

int cudyn__type_parse(const char *text, struct cudyn__param *out, char *why, size_t cap)
{
    struct decl d;
    char bad = 0;
    memset(out, 0, sizeof *out);
    const struct scalar *sc = NULL;
    if (read_decl(text, text + strlen(text), &d, &bad) != 0)
        say(why, cap, "contains '%c'; %s", isprint((unsigned char)bad) ? bad : '?', supported);
    else if (d.stars || d.const_ptr || d.volatile_ptr || d.restrict_ptr || d.restrict_early)
        say(why, cap, "is a pointer; a result is a scalar");
    else if (d.const_data || d.volatile_data)
        say(why, cap, "has a qualifier; a result is a plain scalar type");
    else if (d.name[0])
        say(why, cap, "'%s' is not a type cudyn knows; %s", d.name, supported);
    else
        sc = decl_scalar(&d, why, cap);
    if (!sc)
        return -1;
    snprintf(out->type, sizeof out->type, "%s", sc->spelling);
    snprintf(out->scalar, sizeof out->scalar, "%s", sc->spelling);
    out->code = sc->code;
    out->elem_size = sc->size;
    return 0;
}

int cudyn__kernel_name_check(const char *name, char *why, size_t cap)
{
    size_t len = strlen(name);
    bool ok = len > 0 && len <= CUDYN_EXPR_MAX_NAME && (isalpha((unsigned char)name[0]) || name[0] == '_');
    for (size_t i = 0; ok && i < len; i++)
        ok = isalnum((unsigned char)name[i]) || name[i] == '_';
    if (!ok)
        say(why, cap, "must be an identifier of 1 to %d letters, digits and '_', not starting with a digit",
            CUDYN_EXPR_MAX_NAME);
    return ok ? 0 : -1;
}
