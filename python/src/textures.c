/* textures.c - Array (a CUDA array) and Texture (a texture object over
 * one, passed to kernels as its handle). */
#include "cudyn_py.h"
#include <limits.h>

typedef struct {
    PyObject_HEAD
    cudyn_array array;
    struct cudyn_array_desc desc;
    size_t bytes; /* tightly packed host size */
} ArrayObject;

/* a cudyn_format and element size from a numpy dtype (or an int format) */
static int array_format(PyObject *obj, int *format, size_t *elem)
{
    if (PyLong_Check(obj)) {
        if (cpy_int(obj, format, "Array: format", INT_MIN, INT_MAX) < 0)
            return -1;
    } else {
        PyObject *dt = cpy_dtype(obj), *ch = dt ? PyObject_GetAttrString(dt, "char") : NULL;
        Py_XDECREF(dt);
        const char *c = ch ? PyUnicode_AsUTF8AndSize(ch, NULL) : NULL;
        if (!c) {
            Py_XDECREF(ch);
            return -1;
        }
        switch (c[0]) {
        case 'B': *format = CUDYN_FORMAT_UINT8; break;
        case 'H': *format = CUDYN_FORMAT_UINT16; break;
        case 'I': *format = CUDYN_FORMAT_UINT32; break;
        case 'b': *format = CUDYN_FORMAT_INT8; break;
        case 'h': *format = CUDYN_FORMAT_INT16; break;
        case 'i': *format = CUDYN_FORMAT_INT32; break;
        case 'e': *format = CUDYN_FORMAT_HALF; break;
        case 'f': *format = CUDYN_FORMAT_FLOAT; break;
        default:
            Py_DECREF(ch);
            cpy_invalid("Array: dtype %R has no CUDA array format (uint8/16/32, int8/16/32, float16, float32)", obj);
            return -1;
        }
        Py_DECREF(ch);
    }
    switch (*format) {
    case CUDYN_FORMAT_UINT8: case CUDYN_FORMAT_INT8: *elem = 1; return 0;
    case CUDYN_FORMAT_UINT16: case CUDYN_FORMAT_INT16: case CUDYN_FORMAT_HALF: *elem = 2; return 0;
    case CUDYN_FORMAT_UINT32: case CUDYN_FORMAT_INT32: case CUDYN_FORMAT_FLOAT: *elem = 4; return 0;
    default: cpy_invalid("Array: unknown format %d", *format); return -1;
    }
}

PyDoc_STRVAR(arr_doc, CPY_SIG("Array(shape, dtype, channels=1, flags=0)",
                              "A CUDA array; shape in numpy order (depth, height, width)."));
static PyObject *arr_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    static char *kw[] = {"shape", "dtype", "channels", "flags", NULL};
    PyObject *shape, *dtype, *channels_obj = NULL;
    int channels = 1;
    unsigned int flags = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "OO|OO&:Array", kw, &shape, &dtype, &channels_obj, cpy_flags, &flags))
        return NULL;
    if (channels_obj && cpy_int(channels_obj, &channels, "Array: channels", 1, 4) < 0)
        return NULL;
    struct cudyn_array_desc d = {.size = sizeof d, .channels = (unsigned)channels, .flags = flags};
    size_t elem, dims[3] = {0, 0, 0};
    Py_ssize_t nd = 1;
    if (array_format(dtype, &d.format, &elem) < 0)
        return NULL;
    if (PyLong_Check(shape)) {
        if (cpy_size(shape, &dims[0], "Array: shape") < 0)
            return NULL;
    } else {
        PyObject *seq = cpy_tuple(shape, "Array: shape must be an int or a tuple of 1 to 3 ints");
        if (!seq)
            return NULL;
        nd = PyTuple_Size(seq);
        for (Py_ssize_t i = 0; i < nd && i < 3; i++)
            if (cpy_size(PyTuple_GetItem(seq, i), &dims[i], "Array: shape") < 0) {
                Py_DECREF(seq);
                return NULL;
            }
        Py_DECREF(seq);
        if (nd < 1 || nd > 3)
            return cpy_invalid("Array: 1 to 3 dimensions, not %zd", nd);
    }
    /* numpy order: (width), (height, width), (depth, height, width) */
    d.width = dims[nd - 1];
    d.height = nd >= 2 ? dims[nd - 2] : 0;
    d.depth = nd == 3 ? dims[0] : 0;
    cudyn_array a = NULL;
    int st = cudyn_array_create(&a, &d);
    if (st != CUDYN_OK)
        return cpy_raise(st);
    ArrayObject *o = (ArrayObject *)PyType_GenericAlloc(type, 0);
    if (!o) {
        cudyn_array_destroy(a);
        return NULL;
    }
    o->array = a;
    o->desc = d;
    o->bytes = d.width * (d.height ? d.height : 1) * (d.depth ? d.depth : 1) * (size_t)channels * elem;
    return (PyObject *)o;
}

static void arr_dealloc(ArrayObject *o)
{
    if (o->array && cudyn_array_destroy(o->array) != CUDYN_OK)
        cudyn_clear_error();
    cpy_free(o);
}

static int arr_view(ArrayObject *o, PyObject *host, Py_buffer *v, int writable, const char *what)
{
    int rc = cpy_host_buffer(host, v, (writable ? PyBUF_WRITABLE : PyBUF_SIMPLE) | PyBUF_C_CONTIGUOUS, what);
    if (rc == -1)
        return -1;
    if (rc < 0) {
        cpy_invalid("%s: the host array must be C-contiguous%s", what, writable ? " and writable" : "");
        return -1;
    }
    if ((size_t)v->len != o->bytes) {
        PyBuffer_Release(v);
        cpy_invalid("%s: the host array has %zd bytes, the CUDA array %zu", what, v->len, o->bytes);
        return -1;
    }
    return 0;
}

static PyObject *arr_copy_from(ArrayObject *o, PyObject *host)
{
    Py_buffer v;
    if (arr_view(o, host, &v, 0, "Array.copy_from") < 0)
        return NULL;
    int st;
    CPY_NOGIL(st, cudyn_array_copy_from_host(o->array, v.buf));
    PyBuffer_Release(&v);
    if (st != CUDYN_OK)
        return cpy_raise(st);
    Py_RETURN_NONE;
}

static PyObject *arr_copy_to(ArrayObject *o, PyObject *host)
{
    Py_buffer v;
    if (arr_view(o, host, &v, 1, "Array.copy_to") < 0)
        return NULL;
    int st;
    CPY_NOGIL(st, cudyn_array_copy_to_host(v.buf, o->array));
    PyBuffer_Release(&v);
    if (st != CUDYN_OK)
        return cpy_raise(st);
    Py_INCREF(host);
    return host;
}

static PyMethodDef arr_methods[] = {
    {"copy_from", (PyCFunction)arr_copy_from, METH_O,
     CPY_SIG("copy_from($self, host, /)", "The whole array from a packed host array.")},
    {"copy_to", (PyCFunction)arr_copy_to, METH_O,
     CPY_SIG("copy_to($self, host, /)", "The whole array into a packed host array.")},
    {NULL},
};
static PyMemberDef arr_members[] = {
    {"width", T_PYSSIZET, offsetof(ArrayObject, desc.width), READONLY, NULL},
    {"height", T_PYSSIZET, offsetof(ArrayObject, desc.height), READONLY, NULL},
    {"depth", T_PYSSIZET, offsetof(ArrayObject, desc.depth), READONLY, NULL},
    {"channels", T_UINT, offsetof(ArrayObject, desc.channels), READONLY, NULL},
    {"format", T_INT, offsetof(ArrayObject, desc.format), READONLY, "a cudyn_format"},
    {"nbytes", T_PYSSIZET, offsetof(ArrayObject, bytes), READONLY, "bytes of the packed host copy"},
    {NULL},
};

static PyType_Slot arr_slots[] = {
    {Py_tp_doc, (void *)arr_doc},
    {Py_tp_new, (void *)arr_new},
    {Py_tp_dealloc, (void *)arr_dealloc},
    {Py_tp_methods, arr_methods},
    {Py_tp_members, arr_members},
    {0, NULL},
};
PyTypeObject *Array_Type;
const PyType_Spec Array_Spec = {"cudyn.Array", sizeof(ArrayObject), 0, CPY_TPFLAGS, arr_slots};

/* address_mode=(x, y, z): one CUDYN_ADDRESS_* per dimension, the ones
 * not given staying CUDYN_ADDRESS_WRAP (0) as in the C descriptor */
static int address_modes(PyObject *address, int modes[3])
{
    PyObject *seq = cpy_tuple(address, "Texture: address_mode must be an int or a tuple of 1 to 3 ints");
    if (!seq)
        return -1;
    Py_ssize_t n = PyTuple_Size(seq);
    int rc = n >= 1 && n <= 3 ? 0 : -1;
    if (rc < 0)
        cpy_invalid("Texture: address_mode takes 1 to 3 modes, not %zd", n);
    for (Py_ssize_t i = 0; rc == 0 && i < n; i++)
        rc = cpy_int(PyTuple_GetItem(seq, i), &modes[i], "Texture: address_mode", INT_MIN, INT_MAX);
    Py_DECREF(seq);
    return rc;
}

PyDoc_STRVAR(tex_doc, CPY_SIG("Texture(array, filter_mode=0, address_mode=None, normalized_coords=False, "
                              "read_mode=0, border_color=None)",
                              "A texture object over an Array; pass it (or its handle) to kernels.  address_mode: "
                              "one mode for every dimension or one per dimension; None, wrap (0)."));
static PyObject *tex_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    static char *kw[] = {"array", "filter_mode", "address_mode", "normalized_coords", "read_mode", "border_color",
                         NULL};
    PyObject *array, *filter_obj = NULL, *address = NULL, *read_obj = NULL, *border = NULL;
    int filter = CUDYN_FILTER_POINT, normalized = 0, read_mode = CUDYN_READ_ELEMENT_TYPE;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O!|OOpOO:Texture", kw, Array_Type, &array, &filter_obj, &address,
                                     &normalized, &read_obj, &border) ||
        (filter_obj && cpy_int(filter_obj, &filter, "Texture: filter_mode", INT_MIN, INT_MAX) < 0) ||
        (read_obj && cpy_int(read_obj, &read_mode, "Texture: read_mode", INT_MIN, INT_MAX) < 0))
        return NULL;
    struct cudyn_texture_desc d = {.size = sizeof d, .resource = CUDYN_RESOURCE_ARRAY,
                                   .array = ((ArrayObject *)array)->array, .filter = filter,
                                   .read_mode = read_mode, .normalized_coords = normalized};
    if (address && PyLong_Check(address)) {
        if (cpy_int(address, &d.address_mode[0], "Texture: address_mode", INT_MIN, INT_MAX) < 0)
            return NULL;
        d.address_mode[1] = d.address_mode[2] = d.address_mode[0];
    } else if (address && address != Py_None && address_modes(address, d.address_mode) < 0) {
        return NULL;
    }
    if (border && border != Py_None) {
        PyObject *seq = cpy_tuple(border, "Texture: border_color must be a tuple of 1 to 4 floats");
        if (!seq)
            return NULL;
        Py_ssize_t n = PyTuple_Size(seq);
        for (Py_ssize_t i = 0; i < n && i < 4; i++)
            d.border_color[i] = (float)PyFloat_AsDouble(PyTuple_GetItem(seq, i));
        Py_DECREF(seq);
        if (!PyErr_Occurred() && (n < 1 || n > 4))
            return cpy_invalid("Texture: border_color takes 1 to 4 values, not %zd", n);
    }
    if (PyErr_Occurred())
        return NULL;
    cudyn_texture t = 0;
    int st = cudyn_texture_create(&t, &d);
    if (st != CUDYN_OK)
        return cpy_raise(st);
    TextureObject *o = (TextureObject *)PyType_GenericAlloc(type, 0);
    if (!o) {
        cudyn_texture_destroy(t);
        return NULL;
    }
    o->tex = t;
    Py_INCREF(array);
    o->array = array;
    return (PyObject *)o;
}

static void tex_dealloc(TextureObject *o)
{
    if (o->tex && cudyn_texture_destroy(o->tex) != CUDYN_OK)
        cudyn_clear_error();
    Py_XDECREF(o->array);
    cpy_free(o);
}

static PyObject *tex_int(TextureObject *o) { return PyLong_FromUnsignedLongLong(o->tex); }
static PyMemberDef tex_members[] = {
    {"handle", T_ULONGLONG, offsetof(TextureObject, tex), READONLY, "the texture object (int; np.uint64 for kernels)"},
    {"array", T_OBJECT, offsetof(TextureObject, array), READONLY, "the Array it reads"},
    {NULL},
};

/* no GC: the one reference it holds is to an Array, which holds none */
static PyType_Slot tex_slots[] = {
    {Py_tp_doc, (void *)tex_doc},
    {Py_tp_new, (void *)tex_new},
    {Py_tp_dealloc, (void *)tex_dealloc},
    {Py_tp_members, tex_members},
    {Py_nb_int, (void *)tex_int},
    {Py_nb_index, (void *)tex_int},
    {0, NULL},
};
PyTypeObject *Texture_Type;
const PyType_Spec Texture_Spec = {"cudyn.Texture", sizeof(TextureObject), 0, CPY_TPFLAGS, tex_slots};
