/* host_args.c - In, Out, InOut: PyCUDA's host-buffer kernel arguments,
 * copied to a device buffer before the launch and/or back after it. */
#include "cudyn_py.h"

/* the kind of each type's argument */
static cudyn_arg_kind kind_of(PyTypeObject *type)
{
    return type == In_Type ? CUDYN_ARG_IN : type == Out_Type ? CUDYN_ARG_OUT : CUDYN_ARG_INOUT;
}

const char *cpy_host_arg_name(char code)
{
    cudyn_arg_kind kind = cpy_code(code)->kind;
    return kind == CUDYN_ARG_IN ? In_Spec.name : kind == CUDYN_ARG_OUT ? Out_Spec.name : InOut_Spec.name;
}

PyDoc_STRVAR(in_doc, CPY_SIG("In(array)", "A host array copied to the device before the launch (the kernel reads "
                                           "it)."));
PyDoc_STRVAR(out_doc, CPY_SIG("Out(array)", "A host array copied back after the launch (contiguous, writable)."));
PyDoc_STRVAR(inout_doc, CPY_SIG("InOut(array)", "A host array copied in before and back after the launch."));
static PyObject *ha_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    PyObject *array;
    static char *kw[] = {"array", NULL};
    char code = cpy_format_char(kind_of(type), 0);
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O", kw, &array))
        return NULL;
    if (PyObject_TypeCheck(array, DeviceArray_Type))
        return cpy_invalid("%s: a DeviceArray is already on the device: pass it directly", cpy_host_arg_name(code));
    if (!PyObject_CheckBuffer(array)) {
        PyObject *given = cpy_type_name(array);
        PyErr_Format(PyExc_TypeError, "%s takes a host array (buffer protocol), not %V", cpy_host_arg_name(code),
                     given, "?");
        Py_XDECREF(given);
        return NULL;
    }
    HostArgObject *h = (HostArgObject *)PyType_GenericAlloc(type, 0);
    if (!h)
        return NULL;
    Py_INCREF(array);
    h->array = array;
    h->code = code;
    return (PyObject *)h;
}

/* The garbage collector's: the host array may be any object with the
 * buffer protocol, which may hold its In (and every instance holds its
 * heap type). */
static int ha_traverse(HostArgObject *h, visitproc visit, void *arg)
{
    Py_VISIT(Py_TYPE((PyObject *)h));
    Py_VISIT(h->array);
    return 0;
}

static int ha_clear(HostArgObject *h)
{
    Py_CLEAR(h->array);
    return 0;
}

static void ha_dealloc(HostArgObject *h)
{
    PyObject_GC_UnTrack(h);
    Py_XDECREF(h->array);
    cpy_free(h);
}

static PyMemberDef ha_members[] = {
    {"array", T_OBJECT, offsetof(HostArgObject, array), READONLY, "the host array"},
    {NULL},
};

#define CPY_HOST_ARG_TYPE_(var, name, doc)                                                                     \
    static PyType_Slot var##_slots[] = {                                                                       \
        {Py_tp_doc, (void *)doc},                                                                              \
        {Py_tp_new, (void *)ha_new},                                                                           \
        {Py_tp_dealloc, (void *)ha_dealloc},                                                                   \
        {Py_tp_traverse, (void *)ha_traverse},                                                                 \
        {Py_tp_clear, (void *)ha_clear},                                                                       \
        {Py_tp_members, ha_members},                                                                           \
        {0, NULL},                                                                                             \
    };                                                                                                         \
    PyTypeObject *var##_Type;                                                                                  \
    const PyType_Spec var##_Spec = {"cudyn." name, sizeof(HostArgObject), 0, CPY_TPFLAGS | Py_TPFLAGS_HAVE_GC,   \
                                    var##_slots};
CPY_HOST_ARG_TYPE_(In, "In", in_doc)
CPY_HOST_ARG_TYPE_(Out, "Out", out_doc)
CPY_HOST_ARG_TYPE_(InOut, "InOut", inout_doc)
