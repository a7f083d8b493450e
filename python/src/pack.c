/* pack.c - Python objects as kernel arguments: the bytes each launch-format
 * character takes (its size and kind from cudyn.h, through format.c), the
 * codes an object may take, and a kernel's scalar back as a Python number.
 * Python ints and floats take whatever code their parameter has; numpy
 * scalars keep their dtype (an int32 is an 'i'), device arrays and
 * DeviceMemory are pointers, Textures texture objects, bytes and
 * structured scalars structs by value. */
#include "cudyn_py.h"
#include <math.h>
#include <string.h>

/* ---------------------------------------------------------------- numpy scalars
 * Types seen before, with the code of their dtype.  `fast`: the value sits
 * right after the object header (numpy's scalar layout, checked against
 * the buffer protocol when the type is first seen). */
struct scalar_type {
    PyTypeObject *type;
    char code;
    char fast;
};
static struct scalar_type scalar_types[48];
static int n_scalar_types;

/* Whether obj is a numpy scalar (numpy is imported if such a thing exists) */
static int is_numpy_scalar(PyObject *obj)
{
    PyObject *mods = PyImport_GetModuleDict();
    PyObject *np = mods ? PyDict_GetItemString(mods, "numpy") : NULL;
    if (!np)
        return 0;
    PyObject *generic = PyObject_GetAttrString(np, "generic");
    if (!generic) {
        PyErr_Clear();
        return 0;
    }
    int is = PyObject_IsInstance(obj, generic);
    Py_DECREF(generic);
    if (is != 1)
        PyErr_Clear();
    return is == 1;
}

/* the entry for obj's type if obj is a numpy scalar, else NULL */
static const struct scalar_type *scalar_type_of(PyObject *obj)
{
    PyTypeObject *t = Py_TYPE(obj);
    for (int i = 0; i < n_scalar_types; i++)
        if (scalar_types[i].type == t)
            return &scalar_types[i];
    if (n_scalar_types == (int)(sizeof scalar_types / sizeof scalar_types[0]) || !is_numpy_scalar(obj))
        return NULL;
    PyObject *dtype = PyObject_GetAttrString(obj, "dtype");
    if (!dtype) {
        PyErr_Clear();
        return NULL;
    }
    char code = cpy_dtype_format_char(dtype);
    Py_DECREF(dtype);
    if (!code)
        return NULL;
    char fast = 0;
    size_t size = cpy_code(code)->size;
    Py_buffer view;
    if (size && PyObject_GetBuffer(obj, &view, PyBUF_SIMPLE) == 0) {
        fast = (size_t)view.len == size && memcmp(view.buf, (char *)obj + sizeof(PyObject), size) == 0;
        PyBuffer_Release(&view);
    }
    PyErr_Clear();
    Py_INCREF((PyObject *)t); /* kept for the table's lifetime */
    scalar_types[n_scalar_types] = (struct scalar_type){t, code, fast};
    return &scalar_types[n_scalar_types++];
}

/* ---------------------------------------------------------------- numbers */
/* An int for an integer-like code (bool, integers, pointers, texture and
 * surface objects), range-checked against its size and signedness: a
 * value in range goes straight in, any other through the module's one
 * checked conversion (cpy_integer), which takes a 64-bit unsigned one
 * above 2**63-1 and refuses the rest as InvalidArgument, never
 * OverflowError. */
static int pack_int(char code, const struct cpy_format_code *f, PyObject *obj, void *buf)
{
    int overflow = 0, is_signed = f->kind == CUDYN_ARG_SIGNED, bits = 8 * f->size;
    long long v = PyLong_AsLongLongAndOverflow(obj, &overflow);
    if (v == -1 && PyErr_Occurred())
        return -1;
    unsigned long long hi = f->kind == CUDYN_ARG_BOOL ? 1
                            : is_signed            ? (~0ULL >> (65 - bits))
                                                   : (~0ULL >> (64 - bits));
    long long lo = is_signed ? -(long long)hi - 1 : 0;
    if (overflow || v < lo || (v > 0 && (unsigned long long)v > hi)) {
        char what[80];
        unsigned long long u;
        snprintf(what, sizeof what, "the int does not fit the kernel's parameter ('%c'), which", code);
        if (cpy_integer(obj, what, lo, hi, &u) < 0)
            return -1;
        v = (long long)u; /* a 64-bit unsigned value above 2**63-1 */
    }
    switch (f->size) {
    case 1: { int8_t x = (int8_t)v; memcpy(buf, &x, 1); break; }
    case 2: { int16_t x = (int16_t)v; memcpy(buf, &x, 2); break; }
    case 4: { int32_t x = (int32_t)v; memcpy(buf, &x, 4); break; }
    default: memcpy(buf, &v, 8); break;
    }
    return 0;
}

/* ---------------------------------------------------------------- binary16
 * IEEE 754 binary16 (__half, numpy's float16) from and to a double, as
 * CPython's struct module's 'e' does it (PyFloat_Pack2 and _Unpack2,
 * which the limited API lacks): rounded to nearest, ties to even; a
 * finite value that rounds past the largest half (65504) is refused with
 * OverflowError; an infinity stays one, a NaN is the quiet NaN of its
 * sign. */
static int half_from_double(double d, uint16_t *out)
{
    uint16_t sign = signbit(d) ? 0x8000 : 0;
    double a = fabs(d);
    if (isnan(d) || isinf(d) || a == 0) {
        *out = sign | (isnan(d) ? 0x7e00 : isinf(d) ? 0x7c00 : 0);
        return 0;
    }
    int e;
    frexp(a, &e); /* a in [2**(e-1), 2**e) */
    /* the distance between halves there: 2**(e-11), or 2**-24 below 2**-14 (the subnormals) */
    int step = e - 11 < -24 ? -24 : e - 11;
    double x = ldexp(a, -step), units = floor(x), rest = x - units; /* exact: a power of two apart */
    if (rest > 0.5 || (rest == 0.5 && fmod(units, 2) == 1))
        units++;
    /* units * 2**step: a subnormal's mantissa below 1024, else 1024 .. 2048 */
    if (units < 1024) {
        *out = sign | (uint16_t)units;
        return 0;
    }
    if (units == 2048) { /* rounded up into the next power of two */
        units = 1024;
        step++;
    }
    int biased = step + 25; /* the exponent of units * 2**step, as binary16 stores it */
    if (biased >= 31) {
        PyErr_SetString(PyExc_OverflowError, "float too large to pack with e format");
        return -1;
    }
    *out = sign | (uint16_t)(biased << 10) | (uint16_t)(units - 1024);
    return 0;
}

static double half_to_double(uint16_t h)
{
    int biased = (h >> 10) & 0x1f, mantissa = h & 0x3ff;
    double v = biased == 0 ? ldexp(mantissa, -24)
               : biased == 31 ? (mantissa ? NAN : INFINITY)
                              : ldexp(mantissa + 1024, biased - 25);
    return h & 0x8000 ? -v : v;
}

/* A double as a binary16, binary32 or binary64 of the code's size */
static int pack_double(const struct cpy_format_code *f, double d, void *buf)
{
    if (f->size == 4) {
        float x = (float)d;
        memcpy(buf, &x, 4);
    } else if (f->size == 8)
        memcpy(buf, &d, 8);
    else {
        uint16_t h;
        if (half_from_double(d, &h) < 0)
            return -1;
        memcpy(buf, &h, 2);
    }
    return 0;
}

static int is_integer_like(cudyn_arg_kind k)
{
    return k == CUDYN_ARG_BOOL || k == CUDYN_ARG_SIGNED || k == CUDYN_ARG_UNSIGNED || k == CUDYN_ARG_POINTER ||
           k == CUDYN_ARG_TEXTURE || k == CUDYN_ARG_SURFACE;
}

/* A numpy scalar of the code's own type, or of one that passes for it: any
 * type of the same kind and size (a uint64 for a size_t), an 8-byte
 * integer for a pointer. */
static int pack_numpy(char code, const struct cpy_format_code *f, const struct scalar_type *st, PyObject *obj,
                      void *buf)
{
    const struct cpy_format_code *s = cpy_code(st->code);
    int same = st->code == code || (s->kind == f->kind && s->size == f->size) ||
               (f->kind == CUDYN_ARG_POINTER && s->size == f->size &&
                (s->kind == CUDYN_ARG_SIGNED || s->kind == CUDYN_ARG_UNSIGNED));
    if (!same)
        return 1;
    if (st->fast) {
        memcpy(buf, (char *)obj + sizeof(PyObject), f->size);
        return 0;
    }
    Py_buffer view;
    if (PyObject_GetBuffer(obj, &view, PyBUF_SIMPLE) < 0)
        return -1;
    int ok = (size_t)view.len == f->size;
    if (ok)
        memcpy(buf, view.buf, f->size);
    PyBuffer_Release(&view);
    return ok ? 0 : 1;
}

/* Whether obj, no numpy scalar (those pass by their dtype), stands for an
 * integer where a launch format has one, as in PyCUDA's struct formats: it
 * has __index__ (a DeviceMemory does), or for a pointer __int__ too
 * (PyCUDA's PointerHolderBase), and it is no float and no host array
 * (numpy arrays have both) */
static int stands_for_integer(PyObject *obj, int pointer)
{
    return (PyIndex_Check(obj) || (pointer && PyType_GetSlot(Py_TYPE(obj), Py_nb_int))) && !PyFloat_Check(obj) &&
           !PyComplex_Check(obj) && !PyObject_CheckBuffer(obj);
}

/* Such an object, or a numpy integer, as the code's integer, range-checked */
static int pack_integer_like(char code, const struct cpy_format_code *f, PyObject *obj, void *buf)
{
    PyObject *v = PyIndex_Check(obj) ? PyNumber_Index(obj) : PyNumber_Long(obj);
    if (!v)
        return -1;
    int rc = pack_int(code, f, v, buf);
    Py_DECREF(v);
    return rc;
}

/* Numbers: Python's own types first, then numpy scalars by their dtype */
static int pack_number(char code, const struct cpy_format_code *f, PyObject *obj, void *buf)
{
    PyTypeObject *t = Py_TYPE(obj);
    if (t == &PyLong_Type || t == &PyBool_Type) {
        if (is_integer_like(f->kind))
            return pack_int(code, f, obj, buf);
        if (f->kind != CUDYN_ARG_FLOAT)
            return 1;
        double d = PyLong_AsDouble(obj);
        return d == -1.0 && PyErr_Occurred() ? -1 : pack_double(f, d, buf);
    }
    if (t == &PyFloat_Type)
        return f->kind == CUDYN_ARG_FLOAT ? pack_double(f, PyFloat_AsDouble(obj), buf) : 1;
    if (t == &PyComplex_Type) {
        if (f->kind != CUDYN_ARG_COMPLEX)
            return 1;
        struct cpy_format_code part = {(unsigned char)(f->size / 2), CUDYN_ARG_FLOAT};
        return pack_double(&part, PyComplex_RealAsDouble(obj), buf) < 0
                   ? -1
                   : pack_double(&part, PyComplex_ImagAsDouble(obj), (char *)buf + part.size);
    }
    const struct scalar_type *st = scalar_type_of(obj);
    if (st)
        return pack_numpy(code, f, st, obj, buf);
    PyErr_Clear();
    return is_integer_like(f->kind) && stands_for_integer(obj, 0) ? pack_integer_like(code, f, obj, buf) : 1;
}

/* ---------------------------------------------------------------- other kinds */
/* Whether obj offers __cuda_array_interface__: 1 or 0, or -1 with the
 * exception its producer raised (only an AttributeError means "no"). */
static int offers_cai(PyObject *obj)
{
    PyObject *cai = PyObject_GetAttrString(obj, "__cuda_array_interface__");
    if (cai) {
        Py_DECREF(cai);
        return 1;
    }
    if (!PyErr_ExceptionMatches(PyExc_AttributeError))
        return -1;
    PyErr_Clear();
    return 0;
}

/* A device address: a DeviceArray (of the kernel's device), None, an int,
 * a DeviceMemory, a __cuda_array_interface__ object, a numpy integer (as
 * PyCUDA passes numpy.intp addresses), or an object with __index__ or
 * __int__; 1 for anything else (cpy_unsuited says why) */
static int pack_pointer(char code, const struct cpy_format_code *f, PyObject *obj, void *buf, int current_device)
{
    PyTypeObject *t = Py_TYPE(obj);
    cudyn_devptr p = 0;
    if (t == DeviceArray_Type || PyObject_TypeCheck(obj, DeviceArray_Type)) {
        DeviceArrayObject *a = (DeviceArrayObject *)obj;
        if (current_device >= 0 && a->device != current_device && a->device >= 0) {
            cpy_invalid("an array of device %d was given to a kernel on device %d (copy it, or use the kernel "
                        "on its device)", a->device, current_device);
            return -1;
        }
        if (cpy_array_ptr(a, &p) < 0)
            return -1;
    } else if (obj != Py_None) {
        const struct scalar_type *st = PyLong_CheckExact(obj) || t == DeviceMemory_Type ? NULL : scalar_type_of(obj);
        if (st) {
            cudyn_arg_kind k = cpy_code(st->code)->kind;
            return k == CUDYN_ARG_SIGNED || k == CUDYN_ARG_UNSIGNED ? pack_integer_like(code, f, obj, buf) : 1;
        }
        if (!PyLong_CheckExact(obj) && t != DeviceMemory_Type) {
            int cai = offers_cai(obj);
            if (cai < 0)
                return -1;
            if (!cai)
                return stands_for_integer(obj, 1) ? pack_integer_like(code, f, obj, buf) : 1;
        }
        if (cpy_devptr(obj, &p, "kernel argument") < 0)
            return -1;
    }
    memcpy(buf, &p, sizeof p);
    return 0;
}

void cpy_unsuited(char code, PyObject *obj, PyObject *who)
{
    if (cpy_code(code)->kind == CUDYN_ARG_POINTER && !PyFloat_Check(obj) && !PyComplex_Check(obj) &&
        !scalar_type_of(obj)) {
        cudyn_devptr ignored;
        const char *what = PyUnicode_AsUTF8AndSize(who, NULL);
        if (!what || cpy_devptr(obj, &ignored, what) < 0)
            return; /* cudyn's reason: a host array, or not device memory */
    }
    PyErr_Clear();
    PyObject *type = cpy_type_name(obj);
    if (cpy_code(code)->kind != CUDYN_ARG_POINTER)
        cpy_type_error("%U (%V) does not suit the prepared format's '%c'", who, type, "?", code);
    else
        cpy_type_error("%U: a %V is not a device address ('%c' takes a device array, a DeviceMemory, an int or "
                       "numpy integer, or an object with __cuda_array_interface__ or __int__)", who, type, "?", code);
    Py_XDECREF(type);
}

/* A struct by value: the bytes of a buffer (bytes, a structured numpy
 * scalar ...), 1 to 4096 of them */
static int pack_struct(PyObject *obj, void *buf, size_t *size)
{
    if (PyObject_TypeCheck(obj, DeviceArray_Type) || PyLong_Check(obj) || PyFloat_Check(obj))
        return 1;
    Py_buffer view;
    if (PyObject_GetBuffer(obj, &view, PyBUF_SIMPLE) < 0) {
        PyErr_Clear();
        return 1;
    }
    if (view.len <= 0 || view.len > 4096) {
        PyBuffer_Release(&view);
        cpy_invalid("a struct argument of %zd bytes (1 .. 4096)", view.len);
        return -1;
    }
    memcpy(buf, view.buf, (size_t)view.len);
    *size = (size_t)view.len;
    PyBuffer_Release(&view);
    return 0;
}

int cpy_pack(char code, PyObject *obj, void *buf, size_t *size, int current_device)
{
    const struct cpy_format_code *f = cpy_code(code);
    *size = f->size;
    int rc = 1;
    switch (f->kind) {
    case CUDYN_ARG_POINTER:
        return pack_pointer(code, f, obj, buf, current_device);
    case CUDYN_ARG_STRUCT:
        return pack_struct(obj, buf, size);
    case CUDYN_ARG_IN:
    case CUDYN_ARG_OUT:
    case CUDYN_ARG_INOUT:
        return 1; /* host buffers: the launch's (launch.c) */
    case CUDYN_ARG_TEXTURE:
    case CUDYN_ARG_SURFACE:
        if (PyObject_TypeCheck(obj, Texture_Type)) {
            memcpy(buf, &((TextureObject *)obj)->tex, sizeof(cudyn_texture));
            return 0;
        }
        break;
    }
    return rc <= 0 ? rc : pack_number(code, f, obj, buf);
}

/* ---------------------------------------------------------------- codes */
const char *cpy_candidates(PyObject *obj, char *one)
{
    PyTypeObject *t = Py_TYPE(obj);
    int cai;
    one[1] = 0;
    one[0] = 0;
    if (t == &PyBool_Type)
        return cpy_bool_codes;
    if (t == &PyLong_Type)
        return cpy_int_codes;
    if (t == &PyFloat_Type)
        return cpy_float_codes;
    if (t == &PyComplex_Type)
        return cpy_complex_codes;
    if (PyObject_TypeCheck(obj, DeviceArray_Type) || t == DeviceMemory_Type || obj == Py_None)
        one[0] = cpy_format_char(CUDYN_ARG_POINTER, 0);
    else if (t == In_Type || t == Out_Type || t == InOut_Type)
        one[0] = ((HostArgObject *)obj)->code;
    else if (PyObject_TypeCheck(obj, Texture_Type))
        one[0] = cpy_format_char(CUDYN_ARG_TEXTURE, 0);
    else {
        const struct scalar_type *st = scalar_type_of(obj);
        if (st)
            one[0] = st->code;
        else if ((cai = offers_cai(obj)) < 0)
            return NULL;
        else if (cai)
            one[0] = cpy_format_char(CUDYN_ARG_POINTER, 0);
        else {
            if (PyBytes_Check(obj) || PyByteArray_Check(obj) || PyMemoryView_Check(obj))
                one[0] = cpy_format_char(CUDYN_ARG_STRUCT, 0);
        }
    }
    return one;
}

PyObject *cpy_unpack(char code, const void *v)
{
    const struct cpy_format_code *f = cpy_code(code);
    if (f->kind == CUDYN_ARG_FLOAT) {
        if (f->size == 4) {
            float x;
            memcpy(&x, v, 4);
            return PyFloat_FromDouble(x);
        }
        if (f->size == 8) {
            double x;
            memcpy(&x, v, 8);
            return PyFloat_FromDouble(x);
        }
        uint16_t h;
        memcpy(&h, v, 2);
        return PyFloat_FromDouble(half_to_double(h));
    }
    /* an integer of 1, 2, 4 or 8 bytes */
    long long x;
    unsigned long long u;
    switch (f->size) {
    case 1: { int8_t b; memcpy(&b, v, 1); x = b; u = (uint8_t)b; break; }
    case 2: { int16_t h; memcpy(&h, v, 2); x = h; u = (uint16_t)h; break; }
    case 4: { int32_t i; memcpy(&i, v, 4); x = i; u = (uint32_t)i; break; }
    default: { int64_t q; memcpy(&q, v, 8); x = q; u = (uint64_t)q; break; }
    }
    if (f->kind == CUDYN_ARG_BOOL)
        return PyBool_FromLong(u != 0);
    return f->kind == CUDYN_ARG_SIGNED ? PyLong_FromLongLong(x) : PyLong_FromUnsignedLongLong(u);
}
