/* array.c - DeviceArray: shape, dtype (a numpy dtype object; numpy is
 * imported when an array is first made, never at import) and strides over
 * device memory; copies to and from host arrays through the buffer
 * protocol; a device address from any object that has one (cpy_devptr).
 * Python subclasses it (gpuarray.GPUArray).  Its exchange with other
 * libraries is export.c's (its attributes and methods) and interop.c's. */
#include "cudyn_py.h"

static Py_ssize_t get_ssize_attr(PyObject *o, const char *name)
{
    PyObject *v = PyObject_GetAttrString(o, name);
    if (!v)
        return -1;
    Py_ssize_t n = PyLong_AsSsize_t(v);
    Py_DECREF(v);
    return n;
}

static int c_contiguous(int ndim, const Py_ssize_t *shape, const Py_ssize_t *strides, Py_ssize_t itemsize)
{
    Py_ssize_t want = itemsize;
    for (int i = ndim - 1; i >= 0; i--) {
        if (shape[i] == 0)
            return 1;
        if (shape[i] != 1 && strides[i] != want)
            return 0;
        want *= shape[i];
    }
    return 1;
}

PyObject *cpy_array_new(PyTypeObject *type, cudyn_devptr ptr, int ndim, const Py_ssize_t *shape,
                        const Py_ssize_t *strides, PyObject *dtype, PyObject *owner, PyObject *stream, int device,
                        int readonly)
{
    if (ndim < 0 || ndim > CPY_MAX_DIMS)
        return cpy_invalid("DeviceArray: %d dimensions (at most %d)", ndim, CPY_MAX_DIMS);
    Py_ssize_t itemsize = get_ssize_attr(dtype, "itemsize");
    if (itemsize < 0)
        return NULL;
    if (itemsize == 0)
        return cpy_invalid("DeviceArray: the dtype %R has no size", dtype);
    DeviceArrayObject *a = (DeviceArrayObject *)type->tp_alloc(type, 0);
    if (!a)
        return NULL;
    a->ptr = ptr;
    a->ndim = ndim;
    a->itemsize = itemsize;
    a->device = device;
    a->readonly = readonly;
    Py_ssize_t size = 1;
    for (int i = 0; i < ndim; i++) {
        if (shape[i] < 0) {
            Py_DECREF(a);
            return cpy_invalid("DeviceArray: dimension %d is negative (%zd)", i, shape[i]);
        }
        if (shape[i] && size > PY_SSIZE_T_MAX / itemsize / shape[i]) {
            Py_DECREF(a);
            return cpy_invalid("DeviceArray: the shape's size overflows");
        }
        size *= shape[i];
        a->shape[i] = shape[i];
    }
    a->size = size;
    Py_ssize_t step = itemsize;
    for (int i = ndim - 1; i >= 0; i--) {
        a->strides[i] = strides ? strides[i] : step;
        step *= shape[i] ? shape[i] : 1;
    }
    a->contiguous = c_contiguous(ndim, a->shape, a->strides, itemsize);
    Py_INCREF(dtype);
    a->dtype = dtype;
    Py_XINCREF(owner);
    a->owner = owner;
    if (!stream)
        stream = Py_None;
    Py_INCREF(stream);
    a->stream = stream;
    return (PyObject *)a;
}

/* an int's value as a device address (negative is refused) */
static int int_ptr(PyObject *obj, cudyn_devptr *out, const char *what)
{
    unsigned long long v = PyLong_AsUnsignedLongLong(obj);
    if (v == (unsigned long long)-1 && PyErr_Occurred()) {
        PyErr_Clear();
        cpy_invalid("%s: %R is not a device address (0 .. 2**64-1)", what, obj);
        return -1;
    }
    *out = (cudyn_devptr)v;
    return 0;
}

int cpy_devptr(PyObject *obj, cudyn_devptr *out, const char *what)
{
    if (PyObject_TypeCheck(obj, &DeviceArray_Type))
        return cpy_array_ptr((DeviceArrayObject *)obj, out);
    if (PyObject_TypeCheck(obj, &DeviceMemory_Type)) {
        DeviceMemoryObject *m = (DeviceMemoryObject *)obj;
        if (m->freed) {
            cpy_invalid("%s: the DeviceMemory was freed", what);
            return -1;
        }
        *out = m->ptr;
        return 0;
    }
    if (PyLong_Check(obj))
        return int_ptr(obj, out, what);
    PyObject *cai = PyObject_GetAttrString(obj, "__cuda_array_interface__");
    if (cai) {
        PyObject *data = PyDict_Check(cai) ? PyDict_GetItemString(cai, "data") : NULL;
        int rc = -1;
        if (data && PyTuple_Check(data) && PyTuple_GET_SIZE(data) == 2)
            rc = int_ptr(PyTuple_GET_ITEM(data, 0), out, what);
        else
            cpy_invalid("%s: its __cuda_array_interface__ has no data (pointer, readonly)", what);
        Py_DECREF(cai);
        return rc;
    }
    PyErr_Clear();
    if (PyObject_CheckBuffer(obj) || PyObject_HasAttrString(obj, "__array_interface__")) {
        cpy_type_error("%s: a host array (%.100s) was given where device memory is needed: copy it to the device "
                    "first (cudyn.gpuarray.to_gpu), or pass cudyn.In/Out/InOut to a kernel",
                    what, Py_TYPE(obj)->tp_name);
        return -1;
    }
    PyErr_Format(PyExc_TypeError, "%s: %.100s is not device memory (a DeviceArray, a DeviceMemory, an int "
                 "address or an object with __cuda_array_interface__)", what, Py_TYPE(obj)->tp_name);
    return -1;
}

/* a shape from an int or a sequence of ints */
static int parse_shape(PyObject *obj, Py_ssize_t *shape, int *ndim, const char *what)
{
    if (PyIndex_Check(obj)) {
        shape[0] = PyNumber_AsSsize_t(obj, PyExc_OverflowError);
        *ndim = 1;
        return shape[0] == -1 && PyErr_Occurred() ? -1 : 0;
    }
    PyObject *seq = PySequence_Fast(obj, "");
    if (!seq) {
        PyErr_Clear();
        PyErr_Format(PyExc_TypeError, "%s must be an int or a tuple of ints, not %.100s", what,
                     Py_TYPE(obj)->tp_name);
        return -1;
    }
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    if (n > CPY_MAX_DIMS) {
        Py_DECREF(seq);
        cpy_invalid("%s: %zd dimensions (at most %d)", what, n, CPY_MAX_DIMS);
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        shape[i] = PyNumber_AsSsize_t(PySequence_Fast_GET_ITEM(seq, i), PyExc_OverflowError);
        if (shape[i] == -1 && PyErr_Occurred()) {
            Py_DECREF(seq);
            return -1;
        }
    }
    Py_DECREF(seq);
    *ndim = (int)n;
    return 0;
}

/* the bytes from the first to one past the last element (0 if empty) */
static Py_ssize_t extent(const DeviceArrayObject *a, Py_ssize_t *low)
{
    Py_ssize_t lo = 0, hi = a->itemsize;
    if (a->size == 0) {
        *low = 0;
        return 0;
    }
    for (int i = 0; i < a->ndim; i++) {
        Py_ssize_t span = (a->shape[i] - 1) * a->strides[i];
        if (span < 0)
            lo += span;
        else
            hi += span;
    }
    *low = lo;
    return hi - lo;
}

/* memory=: the array views a DeviceMemory (its extent must fit), which it
 * keeps alive; 0 or -1 */
static int view_memory(DeviceArrayObject *a, PyObject *memory, Py_ssize_t low, Py_ssize_t span)
{
    if (!PyObject_TypeCheck(memory, &DeviceMemory_Type)) {
        PyErr_Format(PyExc_TypeError, "DeviceArray: memory must be a DeviceMemory, not %.100s",
                     Py_TYPE(memory)->tp_name);
        return -1;
    }
    DeviceMemoryObject *m = (DeviceMemoryObject *)memory;
    if (m->freed || low < 0 || (size_t)span > m->nbytes) {
        if (m->freed)
            cpy_invalid("DeviceArray: the DeviceMemory was freed");
        else
            cpy_invalid("DeviceArray: %zd bytes do not fit the DeviceMemory's %zu", span, m->nbytes);
        return -1;
    }
    a->ptr = m->ptr;
    a->device = m->device;
    Py_INCREF(memory);
    a->owner = memory;
    return 0;
}

/* ptr=: the array views device memory at an address (host memory is
 * refused), keeping `owner` alive, or the object that gave the address
 * when it is not a plain int; 0 or -1 */
static int view_address(DeviceArrayObject *a, PyObject *ptr_obj, PyObject *owner)
{
    cudyn_devptr p;
    if (cpy_devptr(ptr_obj, &p, "DeviceArray: ptr") < 0)
        return -1;
    struct cudyn_pointer_info info = {.size = sizeof info};
    int st = cudyn_pointer_info(p, &info);
    if (st != CUDYN_OK) {
        cpy_raise(st);
        return -1;
    }
    if (p && info.kind != CUDYN_POINTER_DEVICE && info.kind != CUDYN_POINTER_MANAGED) {
        cpy_invalid("DeviceArray: ptr %p is not device memory (host memory where device memory is needed)",
                    (void *)(uintptr_t)p);
        return -1;
    }
    a->ptr = p;
    a->device = info.device >= 0 ? info.device : cpy_current_device();
    if (a->device < 0)
        return -1;
    PyObject *keep = owner != Py_None ? owner : (PyLong_Check(ptr_obj) ? NULL : ptr_obj);
    Py_XINCREF(keep);
    a->owner = keep;
    return 0;
}

/* Neither: new memory on the current device for the array's extent; 0 or -1 */
static int own_new_memory(DeviceArrayObject *a, int strided, Py_ssize_t low, Py_ssize_t span)
{
    if (strided && low < 0) {
        cpy_invalid("DeviceArray: negative strides need memory or ptr");
        return -1;
    }
    PyObject *m = cpy_device_memory_new(span ? (size_t)span : 1, 0);
    if (!m)
        return -1;
    a->ptr = ((DeviceMemoryObject *)m)->ptr;
    a->device = ((DeviceMemoryObject *)m)->device;
    a->owner = m;
    return 0;
}

static PyObject *da_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    static char *kw[] = {"shape", "dtype", "strides", "memory", "ptr", "owner", "stream", NULL};
    PyObject *shape_obj, *dtype_obj, *strides_obj = Py_None, *memory = Py_None, *ptr_obj = Py_None,
                                      *owner = Py_None, *stream = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "OO|OOOOO:DeviceArray", kw, &shape_obj, &dtype_obj, &strides_obj,
                                     &memory, &ptr_obj, &owner, &stream))
        return NULL;
    Py_ssize_t shape[CPY_MAX_DIMS], strides[CPY_MAX_DIMS];
    int ndim = 0, nstrides = 0;
    if (parse_shape(shape_obj, shape, &ndim, "DeviceArray: shape") < 0)
        return NULL;
    if (strides_obj != Py_None) {
        if (parse_shape(strides_obj, strides, &nstrides, "DeviceArray: strides") < 0)
            return NULL;
        if (nstrides != ndim)
            return cpy_invalid("DeviceArray: %d strides for %d dimensions", nstrides, ndim);
    }
    cudyn_stream s;
    if (stream != Py_None && cpy_stream(stream, &s) < 0)
        return NULL;
    PyObject *dtype = cpy_dtype(dtype_obj);
    if (!dtype)
        return NULL;
    DeviceArrayObject *a = (DeviceArrayObject *)cpy_array_new(
        type, 0, ndim, shape, strides_obj != Py_None ? strides : NULL, dtype, NULL, stream, -1, 0);
    Py_DECREF(dtype);
    if (!a)
        return NULL;
    Py_ssize_t low, span = extent(a, &low);
    int rc = -1;
    if (memory != Py_None && ptr_obj != Py_None)
        cpy_invalid("DeviceArray: give memory or ptr, not both");
    else if (memory != Py_None)
        rc = view_memory(a, memory, low, span);
    else if (ptr_obj != Py_None)
        rc = view_address(a, ptr_obj, owner);
    else
        rc = own_new_memory(a, strides_obj != Py_None, low, span);
    if (rc < 0)
        Py_CLEAR(a);
    return (PyObject *)a;
}

static void da_dealloc(DeviceArrayObject *a)
{
    if (a->weakrefs)
        PyObject_ClearWeakRefs((PyObject *)a);
    Py_XDECREF(a->dtype);
    Py_XDECREF(a->owner);
    Py_XDECREF(a->stream);
    Py_TYPE(a)->tp_free((PyObject *)a);
}

static PyObject *tuple_of(int n, const Py_ssize_t *v)
{
    PyObject *t = PyTuple_New(n);
    for (int i = 0; t && i < n; i++) {
        PyObject *x = PyLong_FromSsize_t(v[i]);
        if (!x) {
            Py_CLEAR(t);
            break;
        }
        PyTuple_SET_ITEM(t, i, x);
    }
    return t;
}

static PyObject *da_shape(DeviceArrayObject *a, void *c)
{
    (void)c;
    return tuple_of(a->ndim, a->shape);
}
static PyObject *da_strides(DeviceArrayObject *a, void *c)
{
    (void)c;
    return tuple_of(a->ndim, a->strides);
}
static PyObject *da_nbytes(DeviceArrayObject *a, void *c)
{
    (void)c;
    return PyLong_FromSsize_t(a->size * a->itemsize);
}
static PyObject *da_ptr(DeviceArrayObject *a, void *c)
{
    (void)c;
    cudyn_devptr p;
    if (cpy_array_ptr(a, &p) < 0)
        return NULL;
    return PyLong_FromUnsignedLongLong(p);
}
static PyObject *da_base(DeviceArrayObject *a, void *c)
{
    (void)c;
    PyObject *o = a->owner ? a->owner : Py_None;
    Py_INCREF(o);
    return o;
}
static PyObject *da_managed(DeviceArrayObject *a, void *c)
{
    (void)c;
    const DeviceMemoryObject *m = cpy_array_memory(a);
    return PyBool_FromLong(m && m->managed);
}

static Py_ssize_t da_len(DeviceArrayObject *a)
{
    if (a->ndim == 0) {
        PyErr_SetString(PyExc_TypeError, "len() of a 0-d DeviceArray");
        return -1;
    }
    return a->shape[0];
}

/* a host buffer for a copy of the whole array: C-contiguous, the same
 * size and item size, writable if `writable` */
static int host_view(DeviceArrayObject *a, PyObject *host, Py_buffer *view, int writable, const char *what)
{
    if (PyObject_TypeCheck(host, &DeviceArray_Type)) {
        cpy_invalid("%s: a DeviceArray where a host array is needed", what);
        return -1;
    }
    if (PyObject_GetBuffer(host, view, PyBUF_RECORDS_RO) < 0) {
        if (!PyErr_ExceptionMatches(PyExc_BufferError))
            return -1;
        PyErr_Clear();
        if (PyObject_GetBuffer(host, view, PyBUF_FULL_RO) < 0) {
            PyErr_Clear();
            PyErr_Format(PyExc_TypeError, "%s: %.100s is not a host array (no buffer protocol)", what,
                         Py_TYPE(host)->tp_name);
            return -1;
        }
    }
    const char *why = NULL;
    if (writable && view->readonly)
        why = "the host array is read-only";
    else if (!PyBuffer_IsContiguous(view, 'C'))
        why = "the host array is not contiguous (numpy.ascontiguousarray makes a copy that is)";
    else if (view->len != a->size * a->itemsize)
        why = "the host array's size differs from the device array's";
    else if (view->itemsize != a->itemsize && view->ndim != 0 && view->format && strcmp(view->format, "B") != 0)
        why = "the host array's item size differs from the device array's dtype";
    if (!why) {
        PyObject *hd = PyObject_GetAttrString(host, "dtype");
        if (!hd)
            PyErr_Clear();
        else {
            int same = PyObject_RichCompareBool(hd, a->dtype, Py_EQ);
            Py_DECREF(hd);
            if (same == 0)
                why = "the host array's dtype differs from the device array's";
            else if (same < 0)
                PyErr_Clear();
        }
    }
    if (why) {
        PyBuffer_Release(view);
        cpy_invalid("%s: %s (host %zd bytes, device %zd x %zd bytes)", what, why, view->len, a->size, a->itemsize);
        return -1;
    }
    return 0;
}

static int need_contiguous(DeviceArrayObject *a, const char *what)
{
    if (!a->contiguous) {
        cpy_invalid("%s: the device array is not contiguous", what);
        return -1;
    }
    return 0;
}

static PyObject *da_get(DeviceArrayObject *a, PyObject *args, PyObject *kwds)
{
    static char *kw[] = {"ary", "stream", "pagelocked", NULL};
    PyObject *ary = Py_None, *stream_obj = Py_None;
    int pagelocked = 0;
    cudyn_stream stream;
    cudyn_devptr p;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "|OOp:get", kw, &ary, &stream_obj, &pagelocked) ||
        cpy_stream(stream_obj, &stream) < 0 || need_contiguous(a, "DeviceArray.get") < 0 || cpy_array_ptr(a, &p) < 0)
        return NULL;
    (void)pagelocked;
    if (ary == Py_None) {
        PyObject *np = cpy_numpy(), *shape = da_shape(a, NULL);
        if (!np || !shape) {
            Py_XDECREF(shape);
            return NULL;
        }
        ary = PyObject_CallMethod(np, "empty", "OO", shape, a->dtype);
        Py_DECREF(shape);
        if (!ary)
            return NULL;
    } else
        Py_INCREF(ary);
    Py_buffer view;
    if (host_view(a, ary, &view, 1, "DeviceArray.get") < 0) {
        Py_DECREF(ary);
        return NULL;
    }
    int st;
    if (stream_obj == Py_None)
        CPY_NOGIL(st, cudyn_memcpy_dtoh(view.buf, p, (size_t)view.len));
    else
        CPY_NOGIL(st, cudyn_memcpy_dtoh_async(view.buf, p, (size_t)view.len, stream));
    PyBuffer_Release(&view);
    if (st != CUDYN_OK) {
        Py_DECREF(ary);
        return cpy_raise(st);
    }
    return ary;
}

static PyObject *da_set(DeviceArrayObject *a, PyObject *args, PyObject *kwds)
{
    static char *kw[] = {"ary", "stream", NULL};
    PyObject *ary, *stream_obj = Py_None;
    cudyn_stream stream;
    cudyn_devptr p;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O|O:set", kw, &ary, &stream_obj) ||
        cpy_stream(stream_obj, &stream) < 0 || need_contiguous(a, "DeviceArray.set") < 0 || cpy_array_ptr(a, &p) < 0)
        return NULL;
    if (a->readonly)
        return cpy_invalid("DeviceArray.set: the device array is read-only (its producer said so)");
    Py_buffer view;
    if (host_view(a, ary, &view, 0, "DeviceArray.set") < 0)
        return NULL;
    int st;
    if (stream_obj == Py_None)
        CPY_NOGIL(st, cudyn_memcpy_htod(p, view.buf, (size_t)view.len));
    else
        CPY_NOGIL(st, cudyn_memcpy_htod_async(p, view.buf, (size_t)view.len, stream));
    PyBuffer_Release(&view);
    if (st != CUDYN_OK)
        return cpy_raise(st);
    Py_RETURN_NONE;
}

static PyObject *da_repr(DeviceArrayObject *a)
{
    PyObject *shape = da_shape(a, NULL);
    if (!shape)
        return NULL;
    PyObject *r = PyUnicode_FromFormat("<%s shape=%R dtype=%S at %p on device %d>", Py_TYPE(a)->tp_name, shape,
                                       a->dtype, (void *)(uintptr_t)a->ptr, a->device);
    Py_DECREF(shape);
    return r;
}

static PyMemberDef da_members[] = {
    {"dtype", T_OBJECT, offsetof(DeviceArrayObject, dtype), READONLY, "the numpy dtype"},
    {"size", T_PYSSIZET, offsetof(DeviceArrayObject, size), READONLY, "number of elements"},
    {"itemsize", T_PYSSIZET, offsetof(DeviceArrayObject, itemsize), READONLY, "bytes per element"},
    {"ndim", T_INT, offsetof(DeviceArrayObject, ndim), READONLY, "number of dimensions"},
    {"device", T_INT, offsetof(DeviceArrayObject, device), READONLY, "the device (ordinal) it lives on"},
    {"is_contiguous", T_BOOL, offsetof(DeviceArrayObject, contiguous), READONLY, "True if C-contiguous"},
    {"readonly", T_BOOL, offsetof(DeviceArrayObject, readonly), READONLY, "True if its producer said read-only"},
    {"stream", T_OBJECT, offsetof(DeviceArrayObject, stream), READONLY, "the stream it was made for, or None"},
    {NULL},
};
static PyGetSetDef da_getset[] = {
    {"shape", (getter)da_shape, NULL, "the shape (tuple)", NULL},
    {"strides", (getter)da_strides, NULL, "the strides in bytes (tuple)", NULL},
    {"nbytes", (getter)da_nbytes, NULL, "size * itemsize", NULL},
    {"ptr", (getter)da_ptr, NULL, "the device address of element 0 (int)", NULL},
    {"base", (getter)da_base, NULL, "what keeps the memory alive (DeviceMemory, a producer), or None", NULL},
    {"owner", (getter)da_base, NULL, "the same as base", NULL},
    {"managed", (getter)da_managed, NULL, "True if in managed memory", NULL},
    {"__cuda_array_interface__", (getter)cpy_array_cai, NULL, "CUDA Array Interface, version 3", NULL},
    {NULL},
};
static PyMethodDef da_methods[] = {
    {"get", (PyCFunction)(void (*)(void))da_get, METH_VARARGS | METH_KEYWORDS,
     "get(ary=None, stream=None): a numpy copy (into ary if given: contiguous, writable, same size and dtype)."},
    {"set", (PyCFunction)(void (*)(void))da_set, METH_VARARGS | METH_KEYWORDS,
     "set(ary, stream=None): copies a contiguous host array of the same size and dtype in."},
    {"__dlpack__", (PyCFunction)(void (*)(void))cpy_array_dlpack, METH_VARARGS | METH_KEYWORDS,
     "__dlpack__(stream=None, max_version=None, dl_device=None, copy=None): a DLPack capsule (no copy)."},
    {"__dlpack_device__", (PyCFunction)cpy_array_dlpack_device, METH_NOARGS, "(device type, device id)"},
    {NULL},
};
static PySequenceMethods da_seq = {.sq_length = (lenfunc)da_len};

PyTypeObject DeviceArray_Type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "cudyn.DeviceArray",
    .tp_basicsize = sizeof(DeviceArrayObject),
    .tp_dealloc = (destructor)da_dealloc,
    .tp_repr = (reprfunc)da_repr,
    .tp_as_sequence = &da_seq,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
    .tp_doc = "DeviceArray(shape, dtype, strides=None, memory=None, ptr=None, owner=None, stream=None): an "
              "array in device memory (new memory unless memory or ptr is given).",
    .tp_weaklistoffset = offsetof(DeviceArrayObject, weakrefs),
    .tp_methods = da_methods,
    .tp_members = da_members,
    .tp_getset = da_getset,
    .tp_new = da_new,
};
