/* interop.c - zero-copy exchange: __cuda_array_interface__ (v3, with its
 * stream) and DLPack (the capsule ABI "dltensor" / "used_dltensor",
 * written here from the DLPack specification), both ways. */
#include "cudyn_py.h"
#include <string.h>

/* ---- DLPack's ABI (dlpack.h, version 0.8 layout of the unversioned tensor) */
enum { kDLCPU = 1, kDLCUDA = 2, kDLCUDAHost = 3, kDLCUDAManaged = 13 };
enum { kDLInt = 0, kDLUInt = 1, kDLFloat = 2, kDLBfloat = 4, kDLComplex = 5, kDLBool = 6 };
typedef struct {
    int32_t device_type;
    int32_t device_id;
} DLDevice;
typedef struct {
    uint8_t code;
    uint8_t bits;
    uint16_t lanes;
} DLDataType;
typedef struct {
    void *data;
    DLDevice device;
    int32_t ndim;
    DLDataType dtype;
    int64_t *shape;
    int64_t *strides;
    uint64_t byte_offset;
} DLTensor;
typedef struct DLManagedTensor {
    DLTensor dl_tensor;
    void *manager_ctx;
    void (*deleter)(struct DLManagedTensor *self);
} DLManagedTensor;

/* an exported tensor: the managed tensor, its shape and strides, and the
 * array it keeps alive */
typedef struct {
    DLManagedTensor managed;
    int64_t shape[CPY_MAX_DIMS];
    int64_t strides[CPY_MAX_DIMS];
    PyObject *array;
} Export;

static void export_deleter(DLManagedTensor *m)
{
    Export *e = (Export *)m;
    PyGILState_STATE g = PyGILState_Ensure();
    Py_XDECREF(e->array);
    PyMem_RawFree(e);
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

static int dl_dtype(PyObject *dtype, DLDataType *out)
{
    PyObject *k = PyObject_GetAttrString(dtype, "kind"), *s = PyObject_GetAttrString(dtype, "itemsize");
    const char *kind = k ? PyUnicode_AsUTF8(k) : NULL;
    long size = s ? PyLong_AsLong(s) : -1;
    int rc = 0;
    if (!kind || size < 0)
        rc = -1;
    else {
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
    return rc;
}

static int array_managed(DeviceArrayObject *a)
{
    return a->owner && Py_TYPE(a->owner) == &DeviceMemory_Type && ((DeviceMemoryObject *)a->owner)->managed;
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
    long long h = PyLong_AsLongLong(stream_obj);
    if (h == -1 && PyErr_Occurred())
        return -1;
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
    cudyn_devptr p;
    if (cpy_array_ptr(self, &p) < 0 || order_for_consumer(self, stream) < 0)
        return NULL;
    Export *e = PyMem_RawCalloc(1, sizeof *e);
    if (!e)
        return PyErr_NoMemory();
    DLTensor *t = &e->managed.dl_tensor;
    if (dl_dtype(self->dtype, &t->dtype) < 0) {
        PyMem_RawFree(e);
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
    Py_INCREF(self);
    e->array = (PyObject *)self;
    e->managed.manager_ctx = e;
    e->managed.deleter = export_deleter;
    PyObject *cap = PyCapsule_New(&e->managed, "dltensor", capsule_destructor);
    if (!cap) {
        Py_DECREF(self);
        PyMem_RawFree(e);
    }
    return cap;
}

/* ---- import: the consumed tensor lives as long as this owner */
typedef struct {
    PyObject_HEAD
    DLManagedTensor *managed;
} DLPackOwnerObject;

static void owner_dealloc(DLPackOwnerObject *o)
{
    if (o->managed && o->managed->deleter)
        o->managed->deleter(o->managed);
    PyObject_Free(o);
}

PyTypeObject DLPackOwner_Type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "cudyn.DLPackOwner",
    .tp_basicsize = sizeof(DLPackOwnerObject),
    .tp_dealloc = (destructor)owner_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Keeps a DLPack producer's tensor alive for a DeviceArray.",
};

static PyObject *dtype_from_dl(DLDataType t)
{
    char kind;
    switch (t.code) {
    case kDLInt: kind = 'i'; break;
    case kDLUInt: kind = 'u'; break;
    case kDLFloat: kind = 'f'; break;
    case kDLComplex: kind = 'c'; break;
    case kDLBool: kind = 'b'; break;
    default: return cpy_invalid("from_dlpack: DLPack type code %d (bfloat16?) has no numpy dtype", t.code);
    }
    if (t.lanes != 1 || t.bits % 8)
        return cpy_invalid("from_dlpack: %u lanes of %u bits are not supported", t.lanes, t.bits);
    char text[16];
    snprintf(text, sizeof text, kind == 'b' ? "?" : "<%c%u", kind, t.bits / 8);
    PyObject *s = PyUnicode_FromString(text);
    if (!s)
        return NULL;
    PyObject *d = cpy_dtype(s);
    Py_DECREF(s);
    return d;
}

static const char *device_name(int type)
{
    return type == kDLCPU ? "host (CPU)" : type == kDLCUDAHost ? "pinned host" : "non-CUDA";
}

static PyObject *from_capsule(PyObject *cap)
{
    DLManagedTensor *m = PyCapsule_GetPointer(cap, "dltensor");
    if (!m) {
        PyErr_Clear();
        return cpy_invalid("from_dlpack: not an unconsumed DLPack capsule (\"dltensor\"; one already used cannot be "
                           "taken twice)");
    }
    DLTensor *t = &m->dl_tensor;
    if (t->device.device_type != kDLCUDA && t->device.device_type != kDLCUDAManaged)
        return cpy_invalid("from_dlpack: the tensor lives in %s memory (device type %d) where device memory is "
                           "needed: copy it to the device (cudyn.gpuarray.to_gpu)",
                           device_name(t->device.device_type), t->device.device_type);
    if (t->ndim < 0 || t->ndim > CPY_MAX_DIMS)
        return cpy_invalid("from_dlpack: %d dimensions", t->ndim);
    PyObject *dtype = dtype_from_dl(t->dtype);
    if (!dtype)
        return NULL;
    Py_ssize_t shape[CPY_MAX_DIMS], strides[CPY_MAX_DIMS], item = t->dtype.bits / 8;
    for (int i = 0; i < t->ndim; i++) {
        shape[i] = (Py_ssize_t)t->shape[i];
        if (t->strides)
            strides[i] = (Py_ssize_t)t->strides[i] * item;
    }
    DLPackOwnerObject *owner = PyObject_New(DLPackOwnerObject, &DLPackOwner_Type);
    if (!owner) {
        Py_DECREF(dtype);
        return NULL;
    }
    owner->managed = NULL;
    PyObject *a = cpy_array_new(&DeviceArray_Type, (cudyn_devptr)(uintptr_t)t->data + t->byte_offset, t->ndim, shape,
                                t->strides ? strides : NULL, dtype, (PyObject *)owner, NULL, t->device.device_id, 0);
    Py_DECREF(dtype);
    if (a && PyCapsule_SetName(cap, "used_dltensor") == 0)
        owner->managed = m; /* ours now: the owner deletes it */
    else
        Py_CLEAR(a);
    Py_DECREF(owner);
    return a;
}

PyObject *cpy_from_dlpack(PyObject *self, PyObject *obj)
{
    (void)self;
    if (PyCapsule_CheckExact(obj))
        return from_capsule(obj);
    PyObject *dev = PyObject_CallMethod(obj, "__dlpack_device__", NULL);
    if (!dev) {
        if (PyErr_ExceptionMatches(PyExc_AttributeError)) {
            PyErr_Clear();
            PyErr_Format(PyExc_TypeError, "from_dlpack: %.100s has no __dlpack__ / __dlpack_device__",
                         Py_TYPE(obj)->tp_name);
        }
        return NULL;
    }
    int type = -1, id = -1;
    int ok = PyArg_ParseTuple(dev, "ii", &type, &id);
    Py_DECREF(dev);
    if (!ok)
        return NULL;
    if (type != kDLCUDA && type != kDLCUDAManaged)
        return cpy_invalid("from_dlpack: %.100s lives in %s memory (device type %d) where device memory is needed: "
                           "copy it to the device (cudyn.gpuarray.to_gpu)",
                           Py_TYPE(obj)->tp_name, device_name(type), type);
    /* our work goes on the legacy default stream: the producer orders its own before it */
    PyObject *kw = Py_BuildValue("{s:i}", "stream", 1);
    PyObject *meth = PyObject_GetAttrString(obj, "__dlpack__");
    PyObject *empty = PyTuple_New(0);
    PyObject *cap = kw && meth && empty ? PyObject_Call(meth, empty, kw) : NULL;
    Py_XDECREF(kw);
    Py_XDECREF(meth);
    Py_XDECREF(empty);
    if (!cap)
        return NULL;
    PyObject *a = from_capsule(cap);
    Py_DECREF(cap);
    if (a) { /* the producer itself stays alive too (some tensors' deleters need it) */
        DeviceArrayObject *da = (DeviceArrayObject *)a;
        PyObject *pair = PyTuple_Pack(2, da->owner, obj);
        if (!pair) {
            Py_DECREF(a);
            return NULL;
        }
        Py_SETREF(da->owner, pair);
    }
    return a;
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
        PyTuple_SET_ITEM(shape, i, PyLong_FromSsize_t(self->shape[i]));
    if (self->contiguous) {
        strides = Py_None;
        Py_INCREF(strides);
    } else {
        strides = PyTuple_New(self->ndim);
        for (int i = 0; strides && i < self->ndim; i++)
            PyTuple_SET_ITEM(strides, i, PyLong_FromSsize_t(self->strides[i]));
    }
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
    PyObject *d = strides && typestr && stream
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

static PyObject *from_cai(PyObject *obj, PyObject *cai)
{
    if (!PyDict_Check(cai))
        return cpy_invalid("asarray: __cuda_array_interface__ is not a dict");
    PyObject *shape_o = PyDict_GetItemString(cai, "shape"), *typestr = PyDict_GetItemString(cai, "typestr"),
             *data = PyDict_GetItemString(cai, "data"), *strides_o = PyDict_GetItemString(cai, "strides"),
             *mask = PyDict_GetItemString(cai, "mask"), *stream = PyDict_GetItemString(cai, "stream");
    if (!shape_o || !typestr || !data || !PyTuple_Check(data) || PyTuple_GET_SIZE(data) != 2)
        return cpy_invalid("asarray: __cuda_array_interface__ lacks shape, typestr or data (ptr, readonly)");
    if (mask && mask != Py_None)
        return cpy_invalid("asarray: masked arrays are not supported");
    Py_ssize_t shape[CPY_MAX_DIMS], strides[CPY_MAX_DIMS];
    PyObject *seq = PySequence_Fast(shape_o, "shape");
    if (!seq)
        return NULL;
    Py_ssize_t nd = PySequence_Fast_GET_SIZE(seq);
    if (nd > CPY_MAX_DIMS) {
        Py_DECREF(seq);
        return cpy_invalid("asarray: %zd dimensions", nd);
    }
    for (Py_ssize_t i = 0; i < nd; i++)
        shape[i] = PyLong_AsSsize_t(PySequence_Fast_GET_ITEM(seq, i));
    Py_DECREF(seq);
    int have_strides = strides_o && strides_o != Py_None;
    if (have_strides) {
        seq = PySequence_Fast(strides_o, "strides");
        if (!seq)
            return NULL;
        if (PySequence_Fast_GET_SIZE(seq) != nd) {
            Py_DECREF(seq);
            return cpy_invalid("asarray: strides and shape differ in length");
        }
        for (Py_ssize_t i = 0; i < nd; i++)
            strides[i] = PyLong_AsSsize_t(PySequence_Fast_GET_ITEM(seq, i));
        Py_DECREF(seq);
    }
    if (PyErr_Occurred())
        return NULL;
    unsigned long long ptr = PyLong_AsUnsignedLongLong(PyTuple_GET_ITEM(data, 0));
    if (ptr == (unsigned long long)-1 && PyErr_Occurred())
        return NULL;
    int readonly = PyObject_IsTrue(PyTuple_GET_ITEM(data, 1));
    /* the producer's pending work comes first */
    if (stream && stream != Py_None) {
        unsigned long long h = PyLong_AsUnsignedLongLong(stream);
        if (h == (unsigned long long)-1 && PyErr_Occurred())
            return NULL;
        if (h == 0)
            return cpy_invalid("asarray: stream 0 is not allowed by the CUDA Array Interface (1 is the legacy "
                               "default stream, 2 the per-thread one)");
        if (cpy_wait_stream(cudyn_stream_from_native((void *)(uintptr_t)h)) < 0)
            return NULL;
    }
    int device = -1;
    if (ptr) {
        struct cudyn_pointer_info info = {.size = sizeof info};
        int st = cudyn_pointer_info(ptr, &info);
        if (st != CUDYN_OK)
            return cpy_raise(st);
        if (info.kind != CUDYN_POINTER_DEVICE && info.kind != CUDYN_POINTER_MANAGED)
            return cpy_invalid("asarray: the pointer %p is not device memory", (void *)(uintptr_t)ptr);
        device = info.device;
    }
    if (device < 0 && (device = cpy_current_device()) < 0)
        return NULL;
    PyObject *dtype = cpy_dtype(typestr);
    if (!dtype)
        return NULL;
    PyObject *a = cpy_array_new(&DeviceArray_Type, ptr, (int)nd, shape, have_strides ? strides : NULL, dtype, obj,
                                NULL, device, readonly == 1);
    Py_DECREF(dtype);
    return a;
}

PyObject *cpy_asarray(PyObject *self, PyObject *obj)
{
    if (PyObject_TypeCheck(obj, &DeviceArray_Type)) {
        Py_INCREF(obj);
        return obj;
    }
    PyObject *cai = PyObject_GetAttrString(obj, "__cuda_array_interface__");
    if (cai) {
        PyObject *a = from_cai(obj, cai);
        Py_DECREF(cai);
        return a;
    }
    if (!PyErr_ExceptionMatches(PyExc_AttributeError))
        return NULL;
    PyErr_Clear();
    if (PyObject_HasAttrString(obj, "__dlpack__") || PyCapsule_CheckExact(obj))
        return cpy_from_dlpack(self, obj);
    if (PyObject_CheckBuffer(obj) || PyObject_HasAttrString(obj, "__array_interface__"))
        return cpy_type_error("asarray: %.100s is a host array where device memory is needed: copy it to the device "
                           "(cudyn.gpuarray.to_gpu)", Py_TYPE(obj)->tp_name);
    PyErr_Format(PyExc_TypeError, "asarray: %.100s has neither __cuda_array_interface__ nor __dlpack__",
                 Py_TYPE(obj)->tp_name);
    return NULL;
}
