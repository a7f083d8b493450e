/* host_args.c - In, Out, InOut: PyCUDA's host-buffer kernel arguments,
 * copied to a device buffer before the launch and/or back after it. */
#include "cudyn_py.h"

PyDoc_STRVAR(in_doc, CPY_SIG("In(array)", "A host array copied to the device before the launch (the kernel reads "
                                           "it)."));
PyDoc_STRVAR(out_doc, CPY_SIG("Out(array)", "A host array copied back after the launch (contiguous, writable)."));
PyDoc_STRVAR(inout_doc, CPY_SIG("InOut(array)", "A host array copied in before and back after the launch."));
static PyObject *ha_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    PyObject *array;
    static char *kw[] = {"array", NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O", kw, &array))
        return NULL;
    if (PyObject_TypeCheck(array, &DeviceArray_Type))
        return cpy_invalid("%s: a DeviceArray is already on the device: pass it directly", type->tp_name);
    if (!PyObject_CheckBuffer(array)) {
        PyErr_Format(PyExc_TypeError, "%s takes a host array (buffer protocol), not %.100s", type->tp_name,
                     Py_TYPE(array)->tp_name);
        return NULL;
    }
    HostArgObject *h = (HostArgObject *)type->tp_alloc(type, 0);
    if (!h)
        return NULL;
    Py_INCREF(array);
    h->array = array;
    cudyn_arg_kind kind = type == &In_Type ? CUDYN_ARG_IN : type == &Out_Type ? CUDYN_ARG_OUT : CUDYN_ARG_INOUT;
    h->code = cpy_format_char(kind, 0);
    return (PyObject *)h;
}

static void ha_dealloc(HostArgObject *h)
{
    Py_XDECREF(h->array);
    Py_TYPE(h)->tp_free((PyObject *)h);
}

static PyMemberDef ha_members[] = {
    {"array", T_OBJECT, offsetof(HostArgObject, array), READONLY, "the host array"},
    {NULL},
};

#define CPY_HOST_ARG_TYPE_(var, name, doc)                                                                     \
    PyTypeObject var = {                                                                                       \
        PyVarObject_HEAD_INIT(NULL, 0).tp_name = "cudyn." name,                                                \
        .tp_basicsize = sizeof(HostArgObject),                                                                 \
        .tp_dealloc = (destructor)ha_dealloc,                                                                  \
        .tp_flags = Py_TPFLAGS_DEFAULT,                                                                        \
        .tp_doc = doc,                                                                                         \
        .tp_members = ha_members,                                                                              \
        .tp_new = ha_new,                                                                                      \
    };
CPY_HOST_ARG_TYPE_(In_Type, "In", in_doc)
CPY_HOST_ARG_TYPE_(Out_Type, "Out", out_doc)
CPY_HOST_ARG_TYPE_(InOut_Type, "InOut", inout_doc)
