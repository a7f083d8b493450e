/* interop.c - other libraries' arrays as DeviceArrays, zero-copy:
 * asarray (__cuda_array_interface__ v3, waiting for the producer's
 * stream) and from_dlpack (the capsule ABI "dltensor" / "used_dltensor",
 * dlpack.h).  export.c does the reverse. */
#include "cudyn_py.h"
#include "dlpack.h"
#include <limits.h>
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
    cpy_free(o);
}

static PyType_Slot owner_slots[] = {
    {Py_tp_doc, "Keeps a DLPack producer's tensor alive for a DeviceArray."},
    {Py_tp_dealloc, (void *)owner_dealloc},
    {0, NULL},
};
PyTypeObject *DLPackOwner_Type;
const PyType_Spec DLPackOwner_Spec = {"cudyn.DLPackOwner", sizeof(DLPackOwnerObject), 0, CPY_TPFLAGS_NO_NEW,
                                      owner_slots};

/* a DLPack type as a numpy dtype; what has none is refused with TypeError
 * (the dtype rule: a handle or a bfloat16 is not a number numpy holds) */
static PyObject *dtype_from_dl(DLDataType t)
{
    char kind;
    switch (t.code) {
    case kDLInt: kind = 'i'; break;
    case kDLUInt: kind = 'u'; break;
    case kDLFloat: kind = 'f'; break;
    case kDLComplex: kind = 'c'; break;
    case kDLBool: kind = 'b'; break;
    default:
        PyErr_Format(PyExc_TypeError, "from_dlpack: DLPack type code %d (an opaque handle, bfloat16 ...) has no "
                     "numpy dtype the device array could hold", t.code);
        return NULL;
    }
    if (t.lanes != 1 || t.bits % 8 || t.bits == 0)
        return cpy_invalid("from_dlpack: %u lanes of %u bits are not supported", t.lanes, t.bits);
    if (kind == 'b' && t.bits != 8) {
        PyErr_Format(PyExc_TypeError, "from_dlpack: a bool of %u bits (numpy's bool is one byte)", t.bits);
        return NULL;
    }
    char text[16];
    snprintf(text, sizeof text, kind == 'b' ? "?" : "=%c%u", kind, t.bits / 8);
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

/* The one check of an address another library hands us (CAI, DLPack):
 * device memory the driver knows (host memory is refused), on the device
 * it claims (claimed < 0: any; 0 .. count-1 else).  *device gets its
 * device.  0 or -1. */
static int check_device_address(cudyn_devptr ptr, int claimed, int *device, const char *what)
{
    int count = 0, st;
    if (claimed >= 0 && ((st = cudyn_device_count(&count)) != CUDYN_OK || claimed >= count)) {
        if (st != CUDYN_OK)
            cpy_raise(st);
        else
            cpy_invalid("%s: there is no device %d (%d devices)", what, claimed, count);
        return -1;
    }
    *device = claimed;
    if (ptr) {
        struct cudyn_pointer_info info = {.size = sizeof info};
        if ((st = cudyn_pointer_info(ptr, &info)) != CUDYN_OK) {
            cpy_raise(st);
            return -1;
        }
        if (info.kind != CUDYN_POINTER_DEVICE && info.kind != CUDYN_POINTER_MANAGED) {
            cpy_invalid("%s: the pointer %p is not device memory (host memory where device memory is needed)", what,
                        (void *)(uintptr_t)ptr);
            return -1;
        }
        if (claimed >= 0 && info.device >= 0 && info.device != claimed) {
            cpy_invalid("%s: the pointer %p is on device %d, not %d as its producer says", what,
                        (void *)(uintptr_t)ptr, info.device, claimed);
            return -1;
        }
        if (info.device >= 0)
            *device = info.device;
    }
    if (*device < 0 && (*device = cpy_current_device()) < 0)
        return -1;
    return 0;
}

/* the tensor's shape and strides (in bytes), each checked */
static int dl_layout(const DLTensor *t, Py_ssize_t item, Py_ssize_t *shape, Py_ssize_t *strides)
{
    for (int i = 0; i < t->ndim; i++) {
        shape[i] = (Py_ssize_t)t->shape[i];
        if (t->shape[i] < 0 || t->shape[i] > PY_SSIZE_T_MAX) {
            cpy_invalid("from_dlpack: dimension %d is %lld", i, (long long)t->shape[i]);
            return -1;
        }
        if (t->strides && (t->strides[i] > PY_SSIZE_T_MAX / item || t->strides[i] < PY_SSIZE_T_MIN / item)) {
            cpy_invalid("from_dlpack: stride %lld of dimension %d overflows", (long long)t->strides[i], i);
            return -1;
        }
        if (t->strides)
            strides[i] = (Py_ssize_t)t->strides[i] * item;
    }
    return 0;
}

/* The consumed tensor's array.  One of ours (exported by a DeviceArray)
 * becomes a plain view of the exporting array, which sees its memory's
 * free(); another library's is kept alive by a DLPackOwner. */
static PyObject *tensor_array(DLManagedTensor *m, const Py_ssize_t *shape, const Py_ssize_t *strides,
                              PyObject *dtype, int device)
{
    const DLTensor *t = &m->dl_tensor;
    PyObject *ours = cpy_exported_array(m), *owner = ours;
    if (ours)
        Py_INCREF(owner);
    else
        owner = PyType_GenericAlloc(DLPackOwner_Type, 0); /* managed: NULL until it is ours */
    if (!owner)
        return NULL;
    PyObject *a = cpy_array_new(DeviceArray_Type, (cudyn_devptr)(uintptr_t)t->data + t->byte_offset, t->ndim,
                                shape, t->strides ? strides : NULL, dtype, owner, NULL, device, 0);
    DeviceMemoryObject *memory = ours ? cpy_array_memory((DeviceArrayObject *)ours) : NULL;
    if (a && memory && cpy_array_attach((DeviceArrayObject *)a, memory, "from_dlpack") < 0)
        Py_CLEAR(a);
    if (a && !ours)
        ((DLPackOwnerObject *)owner)->managed = m; /* ours now: the owner deletes it */
    Py_DECREF(owner);
    return a;
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
    if (t->device.device_id < 0)
        return cpy_invalid("from_dlpack: there is no device %d", t->device.device_id);
    Py_ssize_t shape[CPY_MAX_DIMS], strides[CPY_MAX_DIMS];
    int device, ours = cpy_exported_array(m) != NULL;
    PyObject *dtype = dtype_from_dl(t->dtype);
    if (!dtype)
        return NULL;
    PyObject *a = NULL;
    if (dl_layout(t, t->dtype.bits / 8, shape, strides) == 0 &&
        check_device_address((cudyn_devptr)(uintptr_t)t->data, t->device.device_id, &device, "from_dlpack") == 0)
        a = tensor_array(m, shape, strides, dtype, device);
    Py_DECREF(dtype);
    if (a && PyCapsule_SetName(cap, "used_dltensor") < 0) {
        if (!ours) /* the tensor stays the capsule's */
            ((DLPackOwnerObject *)((DeviceArrayObject *)a)->owner)->managed = NULL;
        Py_CLEAR(a);
    }
    if (a && ours)
        m->deleter(m); /* our own tensor: the view holds the exporting array itself */
    return a;
}

/* A producer's __dlpack_device__(): a CUDA device's (type, id), else
 * refused (host memory, no DLPack); 0 or -1. */
static int producer_device(PyObject *obj, int *type, int *id)
{
    PyObject *dev = PyObject_CallMethod(obj, "__dlpack_device__", NULL), *name = NULL;
    int ok = dev && PyTuple_Check(dev) && PyTuple_Size(dev) == 2;
    if (ok)
        ok = cpy_int(PyTuple_GetItem(dev, 0), type, "from_dlpack: __dlpack_device__()'s device type", 0,
                     INT_MAX) == 0 &&
             cpy_int(PyTuple_GetItem(dev, 1), id, "from_dlpack: __dlpack_device__()'s device id", 0, INT_MAX) == 0;
    else if (!dev && PyErr_ExceptionMatches(PyExc_AttributeError)) {
        PyErr_Clear();
        name = cpy_type_name(obj);
        PyErr_Format(PyExc_TypeError, "from_dlpack: %V has no __dlpack__ / __dlpack_device__", name, "?");
    } else if (dev) {
        name = cpy_type_name(obj);
        cpy_invalid("from_dlpack: %V.__dlpack_device__() gave %R, not a (device type, device id) pair", name, "?",
                    dev);
    }
    Py_XDECREF(dev);
    if (ok && *type != kDLCUDA && *type != kDLCUDAManaged) {
        name = cpy_type_name(obj);
        cpy_invalid("from_dlpack: %V lives in %s memory (device type %d) where device memory is needed: copy it to "
                    "the device (cudyn.gpuarray.to_gpu)", name, "?", device_name(*type), *type);
        ok = 0;
    }
    Py_XDECREF(name);
    return ok ? 0 : -1;
}

PyObject *cpy_from_dlpack(PyObject *self, PyObject *obj)
{
    (void)self;
    if (PyCapsule_CheckExact(obj))
        return from_capsule(obj);
    int type = -1, id = -1;
    if (producer_device(obj, &type, &id) < 0)
        return NULL;
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
    if (a && ((DeviceArrayObject *)a)->owner != obj) { /* the producer stays alive too (some deleters need it) */
        DeviceArrayObject *da = (DeviceArrayObject *)a;
        PyObject *pair = PyTuple_Pack(2, da->owner, obj), *old = da->owner;
        if (!pair) {
            Py_DECREF(a);
            return NULL;
        }
        da->owner = pair;
        Py_DECREF(old);
    }
    return a;
}

/* a CAI dict's shape or strides: a sequence of ints, each checked */
static int cai_ints(PyObject *o, Py_ssize_t *out, Py_ssize_t *n, const char *what, Py_ssize_t min)
{
    PyObject *seq = cpy_tuple(o, what);
    if (!seq)
        return -1;
    Py_ssize_t len = PyTuple_Size(seq);
    int rc = 0;
    if (len > CPY_MAX_DIMS || (*n >= 0 && len != *n)) {
        cpy_invalid("%s: %zd entries (%s)", what, len, *n >= 0 ? "not as many as the shape's" : "too many");
        rc = -1;
    }
    for (Py_ssize_t i = 0; rc == 0 && i < len; i++)
        rc = cpy_ssize(PyTuple_GetItem(seq, i), &out[i], what, min);
    Py_DECREF(seq);
    *n = len;
    return rc;
}

/* the producer's pending work comes first: waits for its stream */
static int cai_wait(PyObject *stream)
{
    unsigned long long h;
    if (!stream || stream == Py_None)
        return 0;
    if (cpy_integer(stream, "asarray: stream", 0, UINTPTR_MAX, &h) < 0)
        return -1;
    if (h == 0) {
        cpy_invalid("asarray: stream 0 is not allowed by the CUDA Array Interface (1 is the legacy default stream, "
                    "2 the per-thread one)");
        return -1;
    }
    return cpy_wait_stream(cudyn_stream_from_native((void *)(uintptr_t)h));
}

static PyObject *from_cai(PyObject *obj, PyObject *cai)
{
    if (!PyDict_Check(cai))
        return cpy_invalid("asarray: __cuda_array_interface__ is not a dict");
    PyObject *shape_o = PyDict_GetItemString(cai, "shape"), *typestr = PyDict_GetItemString(cai, "typestr"),
             *data = PyDict_GetItemString(cai, "data"), *strides_o = PyDict_GetItemString(cai, "strides"),
             *mask = PyDict_GetItemString(cai, "mask"), *stream = PyDict_GetItemString(cai, "stream");
    if (!shape_o || !typestr || !data || !PyTuple_Check(data) || PyTuple_Size(data) != 2)
        return cpy_invalid("asarray: __cuda_array_interface__ lacks shape, typestr or data (ptr, readonly)");
    if (mask && mask != Py_None)
        return cpy_invalid("asarray: masked arrays are not supported");
    Py_ssize_t shape[CPY_MAX_DIMS], strides[CPY_MAX_DIMS], nd = -1;
    int have_strides = strides_o && strides_o != Py_None;
    if (cai_ints(shape_o, shape, &nd, "asarray: shape", 0) < 0 ||
        (have_strides && cai_ints(strides_o, strides, &nd, "asarray: strides", PY_SSIZE_T_MIN) < 0))
        return NULL;
    unsigned long long ptr;
    int readonly = PyObject_IsTrue(PyTuple_GetItem(data, 1)), device;
    if (readonly < 0 || cpy_integer(PyTuple_GetItem(data, 0), "asarray: data pointer", 0, UINT64_MAX, &ptr) < 0)
        return NULL;
    PyObject *dtype = cpy_device_dtype(typestr, "asarray");
    if (!dtype)
        return NULL;
    PyObject *a = NULL;
    if (cai_wait(stream) == 0 && check_device_address(ptr, -1, &device, "asarray") == 0)
        a = cpy_array_new(DeviceArray_Type, ptr, (int)nd, shape, have_strides ? strides : NULL, dtype, obj, NULL,
                          device, readonly);
    Py_DECREF(dtype);
    return a;
}

PyObject *cpy_asarray(PyObject *self, PyObject *obj)
{
    if (PyObject_TypeCheck(obj, DeviceArray_Type)) {
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
    PyObject *type = cpy_type_name(obj);
    if (PyObject_CheckBuffer(obj) || PyObject_HasAttrString(obj, "__array_interface__"))
        cpy_type_error("asarray: %V is a host array where device memory is needed: copy it to the device "
                       "(cudyn.gpuarray.to_gpu)", type, "?");
    else
        PyErr_Format(PyExc_TypeError, "asarray: %V has neither __cuda_array_interface__ nor __dlpack__", type, "?");
    Py_XDECREF(type);
    return NULL;
}
