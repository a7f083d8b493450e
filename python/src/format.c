/* format.c - the launch format's characters as the module reads them from
 * cudyn.h (CUDYN_LAUNCH_FORMAT_MAP): each one's size and kind, the
 * character of a kind and size or of a numpy dtype, whether pack.c can
 * pass it, the order in which a Python number tries them, and the C
 * spellings of the scalar ones.  Nothing here restates the table:
 * a character the library gains is read from it, and one of a kind or size
 * pack.c cannot pass is reported (python/tests/test_launch_format.py). */
#include "cudyn_py.h"

const struct cpy_format_code cpy_format_codes[128] = {
#define CPY_FORMAT_ROW_(code, bytes, kind, parameter, pass) [code] = {bytes, CUDYN_ARG_##kind},
    CUDYN_LAUNCH_FORMAT_MAP(CPY_FORMAT_ROW_)
#undef CPY_FORMAT_ROW_
};

/* the characters in the map's order */
static const char map_order[] = {
#define CPY_FORMAT_CHAR_(code, bytes, kind, parameter, pass) code,
    CUDYN_LAUNCH_FORMAT_MAP(CPY_FORMAT_CHAR_)
#undef CPY_FORMAT_CHAR_
    0};

char cpy_format_char(cudyn_arg_kind kind, size_t size)
{
    for (const char *c = map_order; *c; c++)
        if (cpy_code(*c)->kind == kind && (size == 0 || cpy_code(*c)->size == size))
            return *c;
    return 0;
}

/* A numpy dtype's character: that of its kind and size, 0 if none or if
 * pack.c cannot pass it (numpy's kind letters; 'V', a record, is a struct
 * of any size) */
char cpy_dtype_format_char(PyObject *dtype)
{
    PyObject *k = PyObject_GetAttrString(dtype, "kind");
    Py_ssize_t size = 0;
    char code = 0;
    if (!k)
        return 0;
    PyObject *s = PyObject_GetAttrString(dtype, "itemsize");
    if (s) {
        size = PyLong_AsSsize_t(s);
        Py_DECREF(s);
    }
    const char *kind = PyUnicode_Check(k) ? PyUnicode_AsUTF8AndSize(k, NULL) : NULL;
    if (kind && size > 0) {
        switch (kind[0]) {
        case 'b': code = cpy_format_char(CUDYN_ARG_BOOL, (size_t)size); break;
        case 'i': code = cpy_format_char(CUDYN_ARG_SIGNED, (size_t)size); break;
        case 'u': code = cpy_format_char(CUDYN_ARG_UNSIGNED, (size_t)size); break;
        case 'f': code = cpy_format_char(CUDYN_ARG_FLOAT, (size_t)size); break;
        case 'c': code = cpy_format_char(CUDYN_ARG_COMPLEX, (size_t)size); break;
        case 'V': code = cpy_format_char(CUDYN_ARG_STRUCT, 0); break;
        }
    }
    Py_DECREF(k);
    PyErr_Clear();
    return code && cpy_format_supported(code) ? code : 0;
}

/* The kinds and sizes pack.c packs.  A kind cudyn.h gains fails to compile
 * here with -Werror (-Wswitch: no default) until pack.c learns it. */
int cpy_format_supported(char c)
{
    const struct cpy_format_code *f = cpy_code(c);
    switch ((cudyn_arg_kind)f->kind) {
    case CUDYN_ARG_BOOL:
        return f->size == 1;
    case CUDYN_ARG_SIGNED:
    case CUDYN_ARG_UNSIGNED:
        return f->size == 1 || f->size == 2 || f->size == 4 || f->size == 8;
    case CUDYN_ARG_FLOAT: /* binary16, binary32, binary64 */
        return f->size == 2 || f->size == 4 || f->size == 8;
    case CUDYN_ARG_COMPLEX: /* two binary32 or two binary64 */
        return f->size == 8 || f->size == 16;
    case CUDYN_ARG_POINTER:
    case CUDYN_ARG_TEXTURE:
    case CUDYN_ARG_SURFACE:
        return f->size == 8;
    case CUDYN_ARG_STRUCT:
    case CUDYN_ARG_IN:
    case CUDYN_ARG_OUT:
    case CUDYN_ARG_INOUT:
        return 1;
    }
    return 0; /* not a format character */
}

char cpy_int_codes[32], cpy_bool_codes[32], cpy_float_codes[32], cpy_complex_codes[32];

/* Appends to out the supported characters of the kinds listed (ended by 0),
 * those of 4 and 8 bytes first (C's int and long long before the narrow
 * types), each in the map's order, and each kind and size once. */
static void add_codes(char *out, size_t cap, const cudyn_arg_kind *kinds)
{
    size_t n = strlen(out);
    for (int wide = 1; wide >= 0; wide--)
        for (const char *c = map_order; *c; c++) {
            const struct cpy_format_code *f = cpy_code(*c);
            int listed = 0;
            for (const cudyn_arg_kind *k = kinds; *k; k++)
                listed |= f->kind == *k;
            if (!listed || !cpy_format_supported(*c) || (f->size == 4 || f->size == 8) != wide)
                continue;
            int seen = 0;
            for (size_t i = 0; i < n; i++)
                seen |= cpy_code(out[i])->kind == f->kind && cpy_code(out[i])->size == f->size;
            if (!seen && n + 1 < cap)
                out[n++] = *c;
        }
    out[n] = 0;
}

void cpy_format_init(void)
{
    static const cudyn_arg_kind ints[] = {CUDYN_ARG_SIGNED, CUDYN_ARG_UNSIGNED, CUDYN_ARG_POINTER, 0},
                                bools[] = {CUDYN_ARG_BOOL, 0}, floats[] = {CUDYN_ARG_FLOAT, 0},
                                complexes[] = {CUDYN_ARG_COMPLEX, 0};
    cpy_int_codes[0] = cpy_bool_codes[0] = cpy_float_codes[0] = cpy_complex_codes[0] = 0;
    add_codes(cpy_int_codes, sizeof cpy_int_codes, ints);
    add_codes(cpy_bool_codes, sizeof cpy_bool_codes, bools); /* a bool: its own type, then as an int */
    add_codes(cpy_bool_codes, sizeof cpy_bool_codes, ints);
    add_codes(cpy_float_codes, sizeof cpy_float_codes, floats);
    add_codes(cpy_complex_codes, sizeof cpy_complex_codes, complexes);
}

/* The C spellings of a scalar of each kind and size: first those lib/expr's
 * parameter lists take (`exprs` of them; the first is the one the
 * module's kernels write), then other names C and CUDA give the same type
 * that a kernel text for NVRTC may use (PyCUDA's texts).  The one table of
 * them on the Python side: the Reduction type reads a result type here,
 * and the Python layer its kernels' C types and the types of PyCUDA's
 * argument lists (_cudyn exports them); python/tests/test_format_exports.py
 * checks the first `exprs` against the library's own parse of a parameter
 * list. */
static const struct {
    cudyn_arg_kind kind;
    size_t size;
    int exprs;
    const char *names[8];
} spellings[] = {
    {CUDYN_ARG_BOOL, 1, 1, {"bool"}},
    {CUDYN_ARG_SIGNED, 1, 3, {"signed char", "char", "int8_t"}},
    {CUDYN_ARG_SIGNED, 2, 3, {"short", "int16_t", "short int"}},
    {CUDYN_ARG_SIGNED, 4, 2, {"int", "int32_t"}},
    {CUDYN_ARG_SIGNED, 8, 5, {"long long", "long", "int64_t", "long int", "long long int", "ptrdiff_t"}},
    {CUDYN_ARG_UNSIGNED, 1, 2, {"unsigned char", "uint8_t"}},
    {CUDYN_ARG_UNSIGNED, 2, 3, {"unsigned short", "uint16_t", "unsigned short int"}},
    {CUDYN_ARG_UNSIGNED, 4, 3, {"unsigned int", "uint32_t", "unsigned"}},
    {CUDYN_ARG_UNSIGNED, 8, 6,
     {"unsigned long long", "unsigned long", "uint64_t", "size_t", "unsigned long int", "unsigned long long int"}},
    {CUDYN_ARG_FLOAT, 2, 1, {"__half", "half"}},
    {CUDYN_ARG_FLOAT, 4, 1, {"float"}},
    {CUDYN_ARG_FLOAT, 8, 1, {"double"}},
};

const char *const *cpy_format_spellings(char c)
{
    const struct cpy_format_code *f = cpy_code(c);
    for (size_t i = 0; f->kind && i < sizeof spellings / sizeof spellings[0]; i++)
        if (spellings[i].kind == (cudyn_arg_kind)f->kind && spellings[i].size == f->size)
            return spellings[i].names;
    return NULL;
}

const char *cpy_expr_spelling(const char *spelling, char *c)
{
    for (size_t i = 0; i < sizeof spellings / sizeof spellings[0]; i++)
        for (int k = 0; spellings[i].names[k]; k++)
            if (strcmp(spellings[i].names[k], spelling) == 0) {
                *c = cpy_format_char(spellings[i].kind, spellings[i].size);
                return k < spellings[i].exprs ? spelling : spellings[i].names[0];
            }
    *c = 0;
    return NULL;
}
