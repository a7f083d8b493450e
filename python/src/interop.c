/* interop.c - other libraries' arrays as DeviceArrays, zero-copy:
 * asarray (__cuda_array_interface__ v3, waiting for the producer's
 * stream) and from_dlpack (the capsule ABI "dltensor" / "used_dltensor",
 * dlpack.h).  export.c does the reverse. */
#include "cudyn_py.h"
#include "dlpack.h"
#include <string.h>

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
