/* export.c - a DeviceArray for other libraries, zero-copy: its
 * __cuda_array_interface__ (v3, with its stream) and __dlpack__ /
 * __dlpack_device__ (the capsule ABI "dltensor", dlpack.h).  array.c
 * makes them the array's attributes and methods; interop.c does the
 * reverse (other libraries' arrays as DeviceArrays). */
#include "cudyn_py.h"
#include "dlpack.h"
#include <stdlib.h>
#include <string.h>

/* an exported tensor: the managed tensor, its shape and strides, and the
 * array it keeps alive (malloc's: a consumer may delete it on any thread,
 * before it takes the GIL) */
typedef struct {
    DLManagedTensor managed;
    int64_t shape[CPY_MAX_DIMS];
    int64_t strides[CPY_MAX_DIMS];
    PyObject *array;
} Export;

/* the consumer is done: the memory's hold and the array go */
static void export_deleter(DLManagedTensor *m)
{
    Export *e = (Export *)m;
    PyGILState_STATE g = PyGILState_Ensure();
    if (e->array)
        cpy_memory_release(cpy_array_memory((DeviceArrayObject *)e->array));
    Py_XDECREF(e->array);
    free(e);
    PyGILState_Release(g);
}

/* the capsule's destructor: a tensor nobody consumed is ours to delete */
static void capsule_destructor(PyObject *capsule)
{
    if (PyCapsule_IsValid(capsule, "dltensor")) {
        DLManagedTensor *m = PyCapsule_GetPointer(capsule, "dltensor");
        if (m && m->deleter)
            m->deleter(m);
    } else
        PyErr_Clear();
}

PyObject *cpy_exported_array(const DLManagedTensor *m)
{
    return m->deleter == export_deleter ? ((const Export *)m)->array : NULL;
}

/* DLPack's type of a dtype; DLPack has no byte order, so the other one
 * is refused (a consumer would read other numbers) */
static int dl_dtype(PyObject *dtype, DLDataType *out)
{
    PyObject *k = PyObject_GetAttrString(dtype, "kind"), *s = PyObject_GetAttrString(dtype, "itemsize"),
             *native = PyObject_GetAttrString(dtype, "isnative");
    const char *kind = k ? PyUnicode_AsUTF8AndSize(k, NULL) : NULL;
    long size = s ? PyLong_AsLong(s) : -1;
    int rc = 0;
    if (!kind || size < 0 || !native)
        rc = -1;
    else if (native != Py_True && strchr("iufc", kind[0])) {
        cpy_invalid("DLPack: the dtype %R is of the other byte order, which DLPack cannot say (astype makes a "
                    "native copy)", dtype);
        rc = -1;
    } else {
        out->bits = (uint8_t)(size * 8);
        out->lanes = 1;
        switch (kind[0]) {
        case 'i': out->code = kDLInt; break;
        case 'u': out->code = kDLUInt; break;
        case 'f': out->code = kDLFloat; break;
        case 'c': out->code = kDLComplex; break;
        case 'b': out->code = kDLBool; break;
        default:
            cpy_invalid("DLPack: the dtype %R has no DLPack type", dtype);
            rc = -1;
        }
    }
    Py_XDECREF(k);
    Py_XDECREF(s);
    Py_XDECREF(native);
    return rc;
}

static int array_managed(const DeviceArrayObject *a)
{
    const DeviceMemoryObject *m = cpy_array_memory(a);
    return m && m->managed;
}

PyObject *cpy_array_dlpack_device(DeviceArrayObject *self, PyObject *unused)
{
    (void)unused;
    return Py_BuildValue("(ii)", array_managed(self) ? kDLCUDAManaged : kDLCUDA, self->device);
}

/* The consumer's stream waits for ours (the array's stream, or the
 * default stream): an event recorded on ours, waited for on theirs. */
static int order_for_consumer(DeviceArrayObject *a, PyObject *stream_obj)
{
    if (!stream_obj || stream_obj == Py_None)
        return 0;
    unsigned long long bits;
    if (cpy_integer(stream_obj, "__dlpack__: stream", -1, UINTPTR_MAX, &bits) < 0)
        return -1;
    long long h = (long long)bits;
    if (h == -1) /* the consumer asks for no synchronisation */
        return 0;
    cudyn_stream ours, theirs = cudyn_stream_from_native((void *)(uintptr_t)h);
    if (cpy_stream(a->stream, &ours) < 0)
        return -1;
    if (ours == theirs || (ours == NULL && (h == 1 || h == 2)))
        return 0;
    cudyn_event e = NULL;
    int st = cudyn_event_create(&e, CUDYN_EVENT_DISABLE_TIMING);
    if (st == CUDYN_OK)
        st = cudyn_event_record(e, ours);
    if (st == CUDYN_OK)
        st = cudyn_stream_wait_event(theirs, e);
    if (e)
        cudyn_event_destroy(e);
    if (st != CUDYN_OK) {
        cpy_raise(st);
        return -1;
    }
    return 0;
}

const char cpy_array_dlpack_doc[] = CPY_SIG("__dlpack__($self, /, *, stream=None, max_version=None, dl_device=None, "
                                            "copy=None)", "A DLPack capsule (no copy).");
PyObject *cpy_array_dlpack(DeviceArrayObject *self, PyObject *args, PyObject *kwds)
{
    static char *kw[] = {"stream", "max_version", "dl_device", "copy", NULL};
    PyObject *stream = Py_None, *max_version = Py_None, *dl_device = Py_None, *copy = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "|$OOOO:__dlpack__", kw, &stream, &max_version, &dl_device, &copy))
        return NULL;
    if (copy == Py_True)
        return cpy_invalid("__dlpack__: copy=True is not supported (the exchange is zero-copy)");
    if (dl_device != Py_None) {
        PyObject *mine = cpy_array_dlpack_device(self, NULL);
        int same = mine ? PyObject_RichCompareBool(mine, dl_device, Py_EQ) : -1;
        Py_XDECREF(mine);
        if (same < 0)
            return NULL;
        if (!same)
            return cpy_invalid("__dlpack__: the array lives on %R, not %R (no copies across devices)",
                               cpy_array_dlpack_device(self, NULL), dl_device);
    }
    if (self->readonly) /* an unversioned capsule cannot say read-only: a consumer would write */
        return cpy_invalid("__dlpack__: the array is read-only (its producer said so), which a DLPack tensor "
                           "cannot carry");
    cudyn_devptr p;
    if (cpy_array_ptr(self, &p) < 0 || order_for_consumer(self, stream) < 0)
        return NULL;
    Export *e = calloc(1, sizeof *e);
    if (!e)
        return PyErr_NoMemory();
    DLTensor *t = &e->managed.dl_tensor;
    if (dl_dtype(self->dtype, &t->dtype) < 0) {
        free(e);
        return NULL;
    }
    t->data = (void *)(uintptr_t)p;
    t->device.device_type = array_managed(self) ? kDLCUDAManaged : kDLCUDA;
    t->device.device_id = self->device;
    t->ndim = self->ndim;
    for (int i = 0; i < self->ndim; i++) {
        e->shape[i] = self->shape[i];
        e->strides[i] = self->strides[i] / self->itemsize;
    }
    t->shape = e->shape;
    t->strides = e->strides;
    t->byte_offset = 0;
    Py_INCREF((PyObject *)self);
    e->array = (PyObject *)self;
    if (cpy_array_memory(self)) /* the lifetime rule: free() waits for the consumer's deleter */
        cpy_memory_hold(cpy_array_memory(self));
    e->managed.manager_ctx = e;
    e->managed.deleter = export_deleter;
    PyObject *cap = PyCapsule_New(&e->managed, "dltensor", capsule_destructor);
    if (!cap)
        export_deleter(&e->managed);
    return cap;
}

/* ---- __cuda_array_interface__ */
PyObject *cpy_array_cai(DeviceArrayObject *self, void *closure)
{
    (void)closure;
    cudyn_devptr p;
    if (cpy_array_ptr(self, &p) < 0)
        return NULL;
    PyObject *shape = PyTuple_New(self->ndim), *strides = NULL, *stream = Py_None, *typestr = NULL;
    if (!shape)
        return NULL;
    for (int i = 0; i < self->ndim; i++)
        PyTuple_SetItem(shape, i, PyLong_FromSsize_t(self->shape[i]));
    strides = PyTuple_New(self->ndim); /* always given, C order too: consumers need not work them out */
    for (int i = 0; strides && i < self->ndim; i++)
        PyTuple_SetItem(strides, i, PyLong_FromSsize_t(self->strides[i]));
    typestr = PyObject_GetAttrString(self->dtype, "str");
    PyObject *stream_int = NULL;
    if (self->stream != Py_None) {
        cudyn_stream s;
        if (cpy_stream(self->stream, &s) == 0) {
            uintptr_t h = (uintptr_t)cudyn_stream_native(s);
            stream_int = PyLong_FromUnsignedLongLong(h ? h : 1); /* 0 is not allowed: the legacy stream is 1 */
            stream = stream_int;
        }
    }
    PyObject *d = strides && typestr && !PyErr_Occurred() /* an item that could not be made, a stream */
                      ? Py_BuildValue("{s:O,s:O,s:(KO),s:O,s:i,s:O}", "shape", shape, "typestr", typestr, "data",
                                      (unsigned long long)p, self->readonly ? Py_True : Py_False, "strides", strides,
                                      "version", 3, "stream", stream)
                      : NULL;
    Py_DECREF(shape);
    Py_XDECREF(strides);
    Py_XDECREF(typestr);
    Py_XDECREF(stream_int);
    return d;
}
