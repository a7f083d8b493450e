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

/* a*b and a+b of Py_ssize_t, 0 when they overflow (a >= 0 for mul) */
static int mul_ok(Py_ssize_t a, Py_ssize_t b, Py_ssize_t *r)
{
    if (a && (b > 0 ? b > PY_SSIZE_T_MAX / a : b < PY_SSIZE_T_MIN / a))
        return 0;
    *r = a * b;
    return 1;
}
static int add_ok(Py_ssize_t a, Py_ssize_t b, Py_ssize_t *r)
{
    if (b > 0 ? a > PY_SSIZE_T_MAX - b : a < PY_SSIZE_T_MIN - b)
        return 0;
    *r = a + b;
    return 1;
}

/* The lowest byte offset of the elements (<= 0) and the bytes from there
 * to one past the last (0 if empty); -1 when that arithmetic overflows. */
static int extent_of(int ndim, const Py_ssize_t *shape, const Py_ssize_t *strides, Py_ssize_t itemsize,
                     Py_ssize_t *low, Py_ssize_t *span)
{
    Py_ssize_t lo = 0, hi = itemsize;
    *low = *span = 0;
    for (int i = 0; i < ndim; i++)
        if (shape[i] == 0)
            return 0;
    for (int i = 0; i < ndim; i++) {
        Py_ssize_t d;
        if (!mul_ok(shape[i] - 1, strides[i], &d) || !(d < 0 ? add_ok(lo, d, &lo) : add_ok(hi, d, &hi)))
            return -1;
    }
    if (!add_ok(hi, -lo, span))
        return -1;
    *low = lo;
    return 0;
}

static Py_ssize_t extent(const DeviceArrayObject *a, Py_ssize_t *low)
{
    Py_ssize_t span;
    extent_of(a->ndim, a->shape, a->strides, a->itemsize, low, &span); /* checked when the array was made */
    return span;
}

PyObject *cpy_array_new(PyTypeObject *type, cudyn_devptr ptr, int ndim, const Py_ssize_t *shape,
                        const Py_ssize_t *strides, PyObject *dtype, PyObject *owner, PyObject *stream, int device,
                        int readonly)
{
    if (ndim < 0 || ndim > CPY_MAX_DIMS)
        return cpy_invalid("DeviceArray: %d dimensions (at most %d)", ndim, CPY_MAX_DIMS);
    if (!(dtype = cpy_device_dtype(dtype, "DeviceArray"))) /* the dtype rule, for every way in */
        return NULL;
    Py_ssize_t itemsize = get_ssize_attr(dtype, "itemsize");
    if (itemsize <= 0) {
        if (itemsize == 0)
            cpy_invalid("DeviceArray: the dtype %R has no size", dtype);
        Py_DECREF(dtype);
        return NULL;
    }
    DeviceArrayObject *a = (DeviceArrayObject *)PyType_GenericAlloc(type, 0);
    if (!a) {
        Py_DECREF(dtype);
        return NULL;
    }
    a->dtype = dtype;
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
    for (int i = ndim - 1; i >= 0; i--) { /* C strides cannot overflow: the size did not */
        a->strides[i] = strides ? strides[i] : step;
        step *= shape[i] ? shape[i] : 1;
    }
    Py_ssize_t low, span;
    if (extent_of(ndim, a->shape, a->strides, itemsize, &low, &span) < 0) {
        Py_DECREF(a);
        return cpy_invalid("DeviceArray: the strides reach past any address (their extent overflows)");
    }
    a->contiguous = c_contiguous(ndim, a->shape, a->strides, itemsize);
    Py_XINCREF(owner);
    a->owner = owner;
    if (!stream)
        stream = Py_None;
    Py_INCREF(stream);
    a->stream = stream;
    return (PyObject *)a;
}

/* an int's value as a device address */
static int int_ptr(PyObject *obj, cudyn_devptr *out, const char *what)
{
    unsigned long long v;
    if (cpy_integer(obj, what, 0, UINT64_MAX, &v) < 0)
        return -1;
    *out = (cudyn_devptr)v;
    return 0;
}

/* a producer's __cuda_array_interface__ data: (address, readonly) */
static int cai_ref(PyObject *cai, struct cpy_device_ref *r, const char *what)
{
    PyObject *data = PyDict_Check(cai) ? PyDict_GetItemString(cai, "data") : NULL;
    if (!data || !PyTuple_Check(data) || PyTuple_Size(data) != 2) {
        cpy_invalid("%s: its __cuda_array_interface__ has no data (pointer, readonly)", what);
        return -1;
    }
    r->readonly = PyObject_IsTrue(PyTuple_GetItem(data, 1));
    return r->readonly < 0 ? -1 : int_ptr(PyTuple_GetItem(data, 0), &r->ptr, what);
}

int cpy_device_ref(PyObject *obj, struct cpy_device_ref *r, const char *what)
{
    r->memory = NULL;
    r->readonly = 0;
    if (PyObject_TypeCheck(obj, DeviceArray_Type)) {
        DeviceArrayObject *a = (DeviceArrayObject *)obj;
        r->memory = a->memory;
        r->readonly = a->readonly;
        return cpy_array_ptr(a, &r->ptr);
    }
    if (PyObject_TypeCheck(obj, DeviceMemory_Type)) {
        DeviceMemoryObject *m = (DeviceMemoryObject *)obj;
        if (m->freed) {
            cpy_invalid("%s: the DeviceMemory was freed", what);
            return -1;
        }
        r->memory = m;
        r->ptr = m->ptr;
        return 0;
    }
    if (PyLong_Check(obj))
        return int_ptr(obj, &r->ptr, what);
    PyObject *cai = PyObject_GetAttrString(obj, "__cuda_array_interface__");
    if (cai) {
        int rc = cai_ref(cai, r, what);
        Py_DECREF(cai);
        return rc;
    }
    if (!PyErr_ExceptionMatches(PyExc_AttributeError))
        return -1; /* the producer's own exception (KeyboardInterrupt, MemoryError ...) */
    PyErr_Clear();
    PyObject *type = cpy_type_name(obj);
    if (PyObject_CheckBuffer(obj) || PyObject_HasAttrString(obj, "__array_interface__"))
        cpy_type_error("%s: a host array (%V) was given where device memory is needed: copy it to the device "
                       "first (cudyn.gpuarray.to_gpu), or pass cudyn.In/Out/InOut to a kernel", what, type, "?");
    else
        PyErr_Format(PyExc_TypeError, "%s: %V is not device memory (a DeviceArray, a DeviceMemory, an int "
                     "address or an object with __cuda_array_interface__)", what, type, "?");
    Py_XDECREF(type);
    return -1;
}

int cpy_devptr(PyObject *obj, cudyn_devptr *out, const char *what)
{
    struct cpy_device_ref r;
    if (cpy_device_ref(obj, &r, what) < 0)
        return -1;
    *out = r.ptr;
    return 0;
}

int cpy_devptr_use(PyObject *obj, cudyn_devptr *out, const char *what, int writing, DeviceMemoryObject **held)
{
    struct cpy_device_ref r;
    *held = NULL;
    if (cpy_device_ref(obj, &r, what) < 0)
        return -1;
    if (writing && r.readonly) {
        cpy_invalid("%s: the device array is read-only (its producer said so)", what);
        return -1;
    }
    if (r.memory) {
        cpy_memory_hold(r.memory);
        *held = r.memory;
    }
    *out = r.ptr;
    return 0;
}

int cpy_array_attach(DeviceArrayObject *a, DeviceMemoryObject *m, const char *what)
{
    Py_ssize_t low, span = extent(a, &low);
    cudyn_devptr below = (cudyn_devptr)0 - (cudyn_devptr)low; /* low <= 0: the bytes before element 0 */
    if (m->freed) {
        cpy_invalid("%s: the DeviceMemory was freed", what);
        return -1;
    }
    if (a->ptr < m->ptr + below || a->ptr - below - m->ptr > m->nbytes ||
        (size_t)span > m->nbytes - (a->ptr - below - m->ptr)) {
        cpy_invalid("%s: the view's %zd bytes at offset %lld do not fit the DeviceMemory's %zu", what, span,
                    (long long)(a->ptr - m->ptr) + (long long)low, m->nbytes);
        return -1;
    }
    DeviceMemoryObject *old = a->memory;
    Py_INCREF((PyObject *)m);
    a->memory = m;
    Py_XDECREF((PyObject *)old);
    a->device = m->device;
    return 0;
}

/* a shape from an int or a sequence of ints */
static int parse_shape(PyObject *obj, Py_ssize_t *shape, int *ndim, const char *what, Py_ssize_t min)
{
    if (PyIndex_Check(obj)) {
        *ndim = 1;
        return cpy_ssize(obj, &shape[0], what, min);
    }
    PyObject *seq = PySequence_Tuple(obj);
    if (!seq) {
        PyErr_Clear();
        PyObject *type = cpy_type_name(obj);
        PyErr_Format(PyExc_TypeError, "%s must be an int or a tuple of ints, not %V", what, type, "?");
        Py_XDECREF(type);
        return -1;
    }
    Py_ssize_t n = PyTuple_Size(seq);
    if (n > CPY_MAX_DIMS) {
        Py_DECREF(seq);
        cpy_invalid("%s: %zd dimensions (at most %d)", what, n, CPY_MAX_DIMS);
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++)
        if (cpy_ssize(PyTuple_GetItem(seq, i), &shape[i], what, min) < 0) {
            Py_DECREF(seq);
            return -1;
        }
    Py_DECREF(seq);
    *ndim = (int)n;
    return 0;
}

/* the owner= keyword, or `fallback` when it is None */
static void keep_owner(DeviceArrayObject *a, PyObject *owner, PyObject *fallback)
{
    PyObject *keep = owner != Py_None ? owner : fallback;
    Py_XINCREF(keep);
    a->owner = keep;
}

/* memory=: the array views a DeviceMemory at offset bytes (its elements
 * must lie inside), which it keeps alive; 0 or -1 */
static int view_memory(DeviceArrayObject *a, PyObject *memory, Py_ssize_t offset, PyObject *owner)
{
    if (!PyObject_TypeCheck(memory, DeviceMemory_Type)) {
        PyObject *type = cpy_type_name(memory);
        PyErr_Format(PyExc_TypeError, "DeviceArray: memory must be a DeviceMemory, not %V", type, "?");
        Py_XDECREF(type);
        return -1;
    }
    DeviceMemoryObject *m = (DeviceMemoryObject *)memory;
    a->ptr = m->ptr + (cudyn_devptr)offset;
    if (cpy_array_attach(a, m, "DeviceArray") < 0)
        return -1;
    keep_owner(a, owner, memory);
    return 0;
}

/* ptr=: the array views device memory at an address (+ offset), keeping
 * `owner` alive, or the object that gave the address when it is not a
 * plain int.  Where the address comes from a DeviceMemory (itself, an
 * array's, owner='s) the view lies inside it and sees its free(); else
 * the driver is asked that it is device memory (host memory is refused).
 * 0 or -1 */
static int view_address(DeviceArrayObject *a, PyObject *ptr_obj, Py_ssize_t offset, PyObject *owner)
{
    struct cpy_device_ref r;
    if (cpy_device_ref(ptr_obj, &r, "DeviceArray: ptr") < 0)
        return -1;
    if (!r.memory && owner != Py_None && owner != ptr_obj) {
        struct cpy_device_ref o;
        if (PyObject_TypeCheck(owner, DeviceArray_Type) || PyObject_TypeCheck(owner, DeviceMemory_Type)) {
            if (cpy_device_ref(owner, &o, "DeviceArray: owner") < 0)
                return -1;
            r.memory = o.memory;
        }
    }
    a->ptr = r.ptr + (cudyn_devptr)offset;
    a->readonly = r.readonly;
    keep_owner(a, owner, PyLong_Check(ptr_obj) ? NULL : ptr_obj);
    if (r.memory)
        return cpy_array_attach(a, r.memory, "DeviceArray");
    struct cudyn_pointer_info info = {.size = sizeof info};
    int st = cudyn_pointer_info(a->ptr, &info);
    if (st != CUDYN_OK) {
        cpy_raise(st);
        return -1;
    }
    if (a->ptr && info.kind != CUDYN_POINTER_DEVICE && info.kind != CUDYN_POINTER_MANAGED) {
        cpy_invalid("DeviceArray: ptr %p is not device memory (host memory where device memory is needed)",
                    (void *)(uintptr_t)a->ptr);
        return -1;
    }
    a->device = info.device >= 0 ? info.device : cpy_current_device();
    return a->device < 0 ? -1 : 0;
}

/* Neither: new memory on the current device for the array's extent; 0 or -1 */
static int own_new_memory(DeviceArrayObject *a, int strided, Py_ssize_t offset, PyObject *owner)
{
    Py_ssize_t low, span = extent(a, &low);
    if ((strided && low < 0) || offset) {
        cpy_invalid("DeviceArray: %s memory= or ptr=", offset ? "an offset is one into" : "negative strides need");
        return -1;
    }
    PyObject *m = cpy_device_memory_new(span ? (size_t)span : 1, 0);
    if (!m)
        return -1;
    a->ptr = ((DeviceMemoryObject *)m)->ptr;
    int rc = cpy_array_attach(a, (DeviceMemoryObject *)m, "DeviceArray");
    keep_owner(a, owner, m);
    Py_DECREF(m);
    return rc;
}

/* the layout arguments: shape, strides (None: C order), offset */
static int parse_layout(PyObject *shape_obj, PyObject *strides_obj, PyObject *offset_obj, Py_ssize_t *shape,
                        Py_ssize_t *strides, int *ndim, Py_ssize_t *offset)
{
    int nstrides = 0;
    if (parse_shape(shape_obj, shape, ndim, "DeviceArray: shape", 0) < 0)
        return -1;
    if (strides_obj != Py_None) {
        if (parse_shape(strides_obj, strides, &nstrides, "DeviceArray: strides", PY_SSIZE_T_MIN) < 0)
            return -1;
        if (nstrides != *ndim) {
            cpy_invalid("DeviceArray: %d strides for %d dimensions", nstrides, *ndim);
            return -1;
        }
    }
    *offset = 0;
    return offset_obj == Py_None ? 0 : cpy_ssize(offset_obj, offset, "DeviceArray: offset", 0);
}

PyDoc_STRVAR(da_doc, CPY_SIG("DeviceArray(shape, dtype, strides=None, memory=None, ptr=None, owner=None, "
                             "stream=None, offset=0)",
                             "An array in device memory: new memory, or a view of memory= (a DeviceMemory) or "
                             "ptr= (an address or anything that has one) at offset bytes, its elements inside "
                             "that memory; owner= is kept alive (.base).  A view sees its memory's free()."));
static PyObject *da_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    static char *kw[] = {"shape", "dtype", "strides", "memory", "ptr", "owner", "stream", "offset", NULL};
    PyObject *shape_obj, *dtype_obj, *strides_obj = Py_None, *memory = Py_None, *ptr_obj = Py_None,
                                      *owner = Py_None, *stream = Py_None, *offset_obj = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "OO|OOOOOO:DeviceArray", kw, &shape_obj, &dtype_obj, &strides_obj,
                                     &memory, &ptr_obj, &owner, &stream, &offset_obj))
        return NULL;
    Py_ssize_t shape[CPY_MAX_DIMS], strides[CPY_MAX_DIMS], offset;
    int ndim = 0;
    if (parse_layout(shape_obj, strides_obj, offset_obj, shape, strides, &ndim, &offset) < 0)
        return NULL;
    cudyn_stream s;
    if (stream != Py_None && cpy_stream(stream, &s) < 0)
        return NULL;
    if (memory != Py_None && ptr_obj != Py_None)
        return cpy_invalid("DeviceArray: give memory or ptr, not both");
    DeviceArrayObject *a = (DeviceArrayObject *)cpy_array_new(
        type, 0, ndim, shape, strides_obj != Py_None ? strides : NULL, dtype_obj, NULL, stream, -1, 0);
    if (!a)
        return NULL;
    int rc;
    if (memory != Py_None)
        rc = view_memory(a, memory, offset, owner);
    else if (ptr_obj != Py_None)
        rc = view_address(a, ptr_obj, offset, owner);
    else
        rc = own_new_memory(a, strides_obj != Py_None, offset, owner);
    if (rc < 0)
        Py_CLEAR(a);
    return (PyObject *)a;
}

/* The garbage collector's: an array's owner and stream may be any object,
 * which may hold the array (a producer keeping its consumer's view); the
 * heap type is visited too, as every instance holds it. */
static int da_traverse(DeviceArrayObject *a, visitproc visit, void *arg)
{
    Py_VISIT(Py_TYPE((PyObject *)a));
    Py_VISIT(a->dtype);
    Py_VISIT(a->owner);
    Py_VISIT(a->memory);
    Py_VISIT(a->stream);
    return 0;
}

static int da_clear(DeviceArrayObject *a)
{
    Py_CLEAR(a->owner);
    Py_CLEAR(a->stream);
    return 0;
}

static void da_dealloc(DeviceArrayObject *a)
{
    PyObject_GC_UnTrack(a);
    if (a->weakrefs)
        PyObject_ClearWeakRefs((PyObject *)a);
    Py_XDECREF(a->dtype);
    Py_XDECREF(a->owner);
    Py_XDECREF((PyObject *)a->memory);
    Py_XDECREF(a->stream);
    cpy_free(a);
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
        PyTuple_SetItem(t, i, x);
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
    if (PyObject_TypeCheck(host, DeviceArray_Type)) {
        cpy_invalid("%s: a DeviceArray where a host array is needed", what);
        return -1;
    }
    /* the dtype rule (an object array's bytes are pointers), then the buffer:
     * a strided one too, to say below that it is not contiguous */
    int rc = cpy_host_buffer(host, view, PyBUF_RECORDS_RO, what);
    if (rc == -2)
        rc = cpy_host_buffer(host, view, PyBUF_FULL_RO, what);
    if (rc == -2) {
        PyObject *type = cpy_type_name(host);
        PyErr_Format(PyExc_TypeError, "%s: %V is not a host array (no buffer protocol)", what, type, "?");
        Py_XDECREF(type);
    }
    if (rc < 0)
        return -1;
    PyObject *hd = PyObject_GetAttrString(host, "dtype"); /* without one, its sizes are compared below */
    if (!hd)
        PyErr_Clear();
    const char *why = NULL;
    if (writable && view->readonly)
        why = "the host array is read-only";
    else if (!PyBuffer_IsContiguous(view, 'C'))
        why = "the host array is not contiguous (numpy.ascontiguousarray makes a copy that is)";
    else if (view->len != a->size * a->itemsize)
        why = "the host array's size differs from the device array's";
    else if (view->itemsize != a->itemsize && view->ndim != 0 && view->format && strcmp(view->format, "B") != 0)
        why = "the host array's item size differs from the device array's dtype";
    if (!why && hd) {
        int same = PyObject_RichCompareBool(hd, a->dtype, Py_EQ);
        if (same == 0)
            why = "the host array's dtype differs from the device array's";
        else if (same < 0)
            PyErr_Clear();
    }
    Py_XDECREF(hd);
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

PyDoc_STRVAR(da_get_doc, CPY_SIG("get($self, /, ary=None, stream=None, pagelocked=False)",
                                 "A numpy copy (into ary if given: contiguous, writable, same size and dtype)."));
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
    DeviceMemoryObject *held = NULL;
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
    if (cpy_devptr_use((PyObject *)a, &p, "DeviceArray.get", 0, &held) < 0) {
        PyBuffer_Release(&view);
        Py_DECREF(ary);
        return NULL;
    }
    int st;
    if (stream_obj == Py_None)
        CPY_NOGIL(st, cudyn_memcpy_dtoh(view.buf, p, (size_t)view.len));
    else
        CPY_NOGIL(st, cudyn_memcpy_dtoh_async(view.buf, p, (size_t)view.len, stream));
    PyBuffer_Release(&view);
    cpy_memory_release(held);
    if (st != CUDYN_OK) {
        Py_DECREF(ary);
        return cpy_raise(st);
    }
    return ary;
}

PyDoc_STRVAR(da_set_doc, CPY_SIG("set($self, /, ary, stream=None)",
                                 "Copies a contiguous host array of the same size and dtype in."));
static PyObject *da_set(DeviceArrayObject *a, PyObject *args, PyObject *kwds)
{
    static char *kw[] = {"ary", "stream", NULL};
    PyObject *ary, *stream_obj = Py_None;
    cudyn_stream stream;
    cudyn_devptr p;
    DeviceMemoryObject *held = NULL;
    Py_buffer view;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O|O:set", kw, &ary, &stream_obj) ||
        cpy_stream(stream_obj, &stream) < 0 || need_contiguous(a, "DeviceArray.set") < 0 ||
        cpy_devptr_use((PyObject *)a, &p, "DeviceArray.set", 1, &held) < 0)
        return NULL;
    if (host_view(a, ary, &view, 0, "DeviceArray.set") < 0) {
        cpy_memory_release(held);
        return NULL;
    }
    int st;
    if (stream_obj == Py_None)
        CPY_NOGIL(st, cudyn_memcpy_htod(p, view.buf, (size_t)view.len));
    else
        CPY_NOGIL(st, cudyn_memcpy_htod_async(p, view.buf, (size_t)view.len, stream));
    PyBuffer_Release(&view);
    cpy_memory_release(held);
    if (st != CUDYN_OK)
        return cpy_raise(st);
    Py_RETURN_NONE;
}

static PyObject *da_repr(DeviceArrayObject *a)
{
    PyObject *shape = da_shape(a, NULL), *type = shape ? cpy_type_name((PyObject *)a) : NULL;
    PyObject *r = shape ? PyUnicode_FromFormat("<%V shape=%R dtype=%S at %p on device %d>", type, "DeviceArray",
                                               shape, a->dtype, (void *)(uintptr_t)a->ptr, a->device)
                        : NULL;
    Py_XDECREF(shape);
    Py_XDECREF(type);
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
    CPY_WEAKLIST(DeviceArrayObject),
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
    {"get", CPY_KW(da_get), da_get_doc},
    {"set", CPY_KW(da_set), da_set_doc},
    {"__dlpack__", CPY_KW(cpy_array_dlpack), cpy_array_dlpack_doc},
    {"__dlpack_device__", (PyCFunction)cpy_array_dlpack_device, METH_NOARGS,
     CPY_SIG("__dlpack_device__($self, /)", "(device type, device id)")},
    {NULL},
};
/* Python subclasses it (gpuarray.GPUArray, with a __dict__ of its own) */
static PyType_Slot da_slots[] = {
    {Py_tp_doc, (void *)da_doc},
    {Py_tp_new, (void *)da_new},
    {Py_tp_dealloc, (void *)da_dealloc},
    {Py_tp_traverse, (void *)da_traverse},
    {Py_tp_clear, (void *)da_clear},
    {Py_tp_repr, (void *)da_repr},
    {Py_tp_methods, da_methods},
    {Py_tp_members, da_members},
    {Py_tp_getset, da_getset},
    {Py_sq_length, (void *)da_len},
    {0, NULL},
};
PyTypeObject *DeviceArray_Type;
const PyType_Spec DeviceArray_Spec = {"cudyn.DeviceArray", sizeof(DeviceArrayObject), 0,
                                      CPY_TPFLAGS | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC, da_slots};
