/* memory.c - DeviceMemory (an allocation the object owns, freed in its own
 * device's context) and PinnedMemory (page-locked host memory with the
 * buffer protocol). */
#include "cudyn_py.h"

/* frees ptr on `device`, making that device current for the call when it
 * is not; returns the status */
static int free_on_device(cudyn_devptr ptr, int device)
{
    int cur = -1, st;
    if (cudyn_device_current(&cur) == CUDYN_OK && cur != device && device >= 0) {
        st = cudyn_device_use(device);
        if (st == CUDYN_OK)
            st = cudyn_mem_free(ptr);
        cudyn_device_use(cur);
        return st;
    }
    return cudyn_mem_free(ptr);
}

PyObject *cpy_device_memory_new(size_t nbytes, int managed)
{
    if (nbytes == 0)
        return cpy_invalid("DeviceMemory: nbytes must be at least 1");
    int device = cpy_current_device();
    if (device < 0)
        return NULL;
    cudyn_devptr p = 0;
    int st;
    if (managed)
        CPY_NOGIL(st, cudyn_mem_alloc_managed(&p, nbytes, CUDYN_MEM_ATTACH_GLOBAL));
    else
        CPY_NOGIL(st, cudyn_mem_alloc(&p, nbytes));
    if (st != CUDYN_OK)
        return cpy_raise(st);
    DeviceMemoryObject *m = (DeviceMemoryObject *)PyType_GenericAlloc(DeviceMemory_Type, 0);
    if (!m) {
        cudyn_mem_free(p);
        return NULL;
    }
    m->ptr = p;
    m->nbytes = nbytes;
    m->device = device;
    m->managed = managed;
    return (PyObject *)m;
}

PyDoc_STRVAR(dm_doc, CPY_SIG("DeviceMemory(nbytes, managed=False)",
                             "Device (or managed) memory this object owns; freed in its own device's context when "
                             "the object goes, or by free(); a context manager."));
static PyObject *dm_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    static char *kw[] = {"nbytes", "managed", NULL};
    PyObject *n;
    int managed = 0;
    size_t nbytes;
    (void)type;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O|p:DeviceMemory", kw, &n, &managed))
        return NULL;
    if (cpy_size(n, &nbytes, "DeviceMemory: nbytes") < 0)
        return NULL;
    return cpy_device_memory_new(nbytes, managed);
}

static int dm_release(DeviceMemoryObject *m)
{
    if (m->freed)
        return CUDYN_OK;
    /* marked before the GIL goes: while the driver frees, another thread
     * must not pack or hold the address (it did, and a launch ran on
     * memory freed under it); and even when the free is refused the
     * address is not ours any more to hand out */
    m->freed = 1;
    int st;
    CPY_NOGIL(st, free_on_device(m->ptr, m->device));
    return st;
}

static void dm_dealloc(DeviceMemoryObject *m)
{
    if (m->weakrefs)
        PyObject_ClearWeakRefs((PyObject *)m);
    if (!m->freed) {
        PyObject *t, *v, *tb;
        PyErr_Fetch(&t, &v, &tb);
        if (dm_release(m) != CUDYN_OK)
            cudyn_clear_error(); /* a forked child, a reset device: nothing to do */
        PyErr_Restore(t, v, tb);
    }
    cpy_free(m);
}

/* The lifetime rule's holds of a DeviceMemory (cudyn_py.h, cpy_hold). */
void cpy_memory_hold(DeviceMemoryObject *m)
{
    cpy_hold((PyObject *)m, &m->in_use);
}

void cpy_memory_release(DeviceMemoryObject *m)
{
    if (m)
        cpy_let_go((PyObject *)m, &m->in_use);
}

static PyObject *dm_free(DeviceMemoryObject *m, PyObject *unused)
{
    (void)unused;
    if (m->freed)
        Py_RETURN_NONE;
    if (cpy_refuse_in_use("DeviceMemory.free", m->in_use) < 0)
        return NULL;
    int st = dm_release(m);
    if (st != CUDYN_OK)
        return cpy_raise(st);
    Py_RETURN_NONE;
}

static PyObject *dm_exit(DeviceMemoryObject *m, PyObject *args)
{
    (void)args;
    return dm_free(m, NULL);
}

static PyObject *dm_ptr(DeviceMemoryObject *m, void *closure)
{
    (void)closure;
    if (m->freed)
        return cpy_invalid("DeviceMemory.ptr: the memory was freed");
    return PyLong_FromUnsignedLongLong(m->ptr);
}

static PyObject *dm_int(DeviceMemoryObject *m) { return dm_ptr(m, NULL); }

static PyObject *dm_repr(DeviceMemoryObject *m)
{
    if (m->freed)
        return PyUnicode_FromFormat("<cudyn.DeviceMemory freed, %zu bytes>", m->nbytes);
    return PyUnicode_FromFormat("<cudyn.DeviceMemory %p, %zu bytes on device %d%s>", (void *)(uintptr_t)m->ptr,
                                m->nbytes, m->device, m->managed ? ", managed" : "");
}

static PyMemberDef dm_members[] = {
    {"nbytes", T_PYSSIZET, offsetof(DeviceMemoryObject, nbytes), READONLY, "size in bytes"},
    {"device", T_INT, offsetof(DeviceMemoryObject, device), READONLY, "the device (ordinal) it lives on"},
    {"managed", T_BOOL, offsetof(DeviceMemoryObject, managed), READONLY, "True for managed (unified) memory"},
    {"freed", T_BOOL, offsetof(DeviceMemoryObject, freed), READONLY, "True once free() was called"},
    CPY_WEAKLIST(DeviceMemoryObject),
    {NULL},
};
static PyGetSetDef dm_getset[] = {
    {"ptr", (getter)dm_ptr, NULL, "the device address (int)", NULL},
    {NULL},
};
static PyMethodDef dm_methods[] = {
    {"free", (PyCFunction)dm_free, METH_NOARGS,
     CPY_SIG("free($self, /)", "Frees the memory now (otherwise when the object goes); raises InvalidArgument while "
                               "it is in use (a copy, launch or collective running in another thread, a collective "
                               "kept in a group not yet ended, a DLPack tensor not released); views of it then "
                               "refuse.")},
    {"__enter__", cpy_enter, METH_NOARGS, CPY_SIG("__enter__($self, /)", "Returns itself.")},
    {"__exit__", (PyCFunction)dm_exit, METH_VARARGS, CPY_SIG("__exit__($self, /, *exc_info)", "free().")},
    {NULL},
};
static PyType_Slot dm_slots[] = {
    {Py_tp_doc, (void *)dm_doc},
    {Py_tp_new, (void *)dm_new},
    {Py_tp_dealloc, (void *)dm_dealloc},
    {Py_tp_repr, (void *)dm_repr},
    {Py_tp_methods, dm_methods},
    {Py_tp_members, dm_members},
    {Py_tp_getset, dm_getset},
    {Py_nb_int, (void *)dm_int},
    {Py_nb_index, (void *)dm_int},
    {0, NULL},
};
PyTypeObject *DeviceMemory_Type;
const PyType_Spec DeviceMemory_Spec = {"cudyn.DeviceMemory", sizeof(DeviceMemoryObject), 0, CPY_TPFLAGS, dm_slots};

/* ---------------------------------------------------------------- pinned */
typedef struct {
    PyObject_HEAD
    void *p;
    Py_ssize_t nbytes;
    Py_ssize_t exports;
    PyObject *weakrefs;
} PinnedObject;

PyDoc_STRVAR(pm_doc, CPY_SIG("PinnedMemory(nbytes)", "Page-locked host memory (writable buffer; numpy.frombuffer "
                                                     "views it); copies from and to it can be asynchronous."));
static PyObject *pm_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    static char *kw[] = {"nbytes", NULL};
    PyObject *n;
    size_t nbytes;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O:PinnedMemory", kw, &n) ||
        cpy_size(n, &nbytes, "PinnedMemory: nbytes") < 0)
        return NULL;
    if (nbytes == 0 || nbytes > PY_SSIZE_T_MAX)
        return cpy_invalid("PinnedMemory: nbytes must be 1 .. %zd, not %zu", PY_SSIZE_T_MAX, nbytes);
    void *p = NULL;
    int st;
    CPY_NOGIL(st, cudyn_host_alloc(&p, nbytes));
    if (st != CUDYN_OK)
        return cpy_raise(st);
    PinnedObject *o = (PinnedObject *)PyType_GenericAlloc(type, 0);
    if (!o) {
        cudyn_host_free(p);
        return NULL;
    }
    o->p = p;
    o->nbytes = (Py_ssize_t)nbytes;
    return (PyObject *)o;
}

static void pm_dealloc(PinnedObject *o)
{
    if (o->weakrefs)
        PyObject_ClearWeakRefs((PyObject *)o);
    if (o->p && cudyn_host_free(o->p) != CUDYN_OK)
        cudyn_clear_error();
    cpy_free(o);
}

static int pm_getbuffer(PinnedObject *o, Py_buffer *view, int flags)
{
    if (PyBuffer_FillInfo(view, (PyObject *)o, o->p, o->nbytes, 0, flags) < 0)
        return -1;
    o->exports++;
    return 0;
}

static void pm_releasebuffer(PinnedObject *o, Py_buffer *view)
{
    (void)view;
    o->exports--;
}

static PyObject *pm_address(PinnedObject *o, void *c)
{
    (void)c;
    return PyLong_FromVoidPtr(o->p);
}

static Py_ssize_t pm_len(PinnedObject *o) { return o->nbytes; }

static PyMemberDef pm_members[] = {
    {"nbytes", T_PYSSIZET, offsetof(PinnedObject, nbytes), READONLY, "size in bytes"},
    CPY_WEAKLIST(PinnedObject),
    {NULL},
};
static PyGetSetDef pm_getset[] = {
    {"ptr", (getter)pm_address, NULL, "the host address (int)", NULL},
    {NULL},
};

/* the buffer protocol's slots are in the limited API from 3.11 */
static PyType_Slot pm_slots[] = {
    {Py_tp_doc, (void *)pm_doc},
    {Py_tp_new, (void *)pm_new},
    {Py_tp_dealloc, (void *)pm_dealloc},
    {Py_tp_members, pm_members},
    {Py_tp_getset, pm_getset},
    {Py_sq_length, (void *)pm_len},
    {Py_bf_getbuffer, (void *)pm_getbuffer},
    {Py_bf_releasebuffer, (void *)pm_releasebuffer},
    {0, NULL},
};
PyTypeObject *PinnedMemory_Type;
const PyType_Spec PinnedMemory_Spec = {"cudyn.PinnedMemory", sizeof(PinnedObject), 0,
                                       CPY_TPFLAGS | Py_TPFLAGS_BASETYPE, pm_slots};
