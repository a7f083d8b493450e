/* link.c - Linker: device linking over cudyn_link_* (relocatable device
 * code, libraries, LTO-IR, libcudadevrt.a for dynamic parallelism), as
 * cuda.core's Linker; and toolkit_info(), what cudyn takes of the CUDA
 * toolkit at run time (headers, libcudadevrt.a, nvJitLink). */
#include "cudyn_py.h"
#include <string.h>

#define MAX_LINK_OPTIONS CUDYN_LINK_MAX_OPTIONS

typedef struct {
    PyObject_HEAD
    cudyn_linker *linker;
    int device; /* add_source compiles for it */
    PyObject *weakrefs;
} LinkerObject;

/* a sequence of str into out (at most `max`, `first` slots already used),
 * UTF-8 pointers into the str objects, which `keep` (a list) holds;
 * the count in all, or -1 with an exception */
static int options_into(PyObject *seq_obj, const char **out, int first, int max, PyObject *keep, const char *what)
{
    if (seq_obj == Py_None)
        return first;
    if (PyUnicode_Check(seq_obj)) {
        PyErr_Format(PyExc_TypeError, "%s must be a sequence of str, not a str", what);
        return -1;
    }
    PyObject *seq = cpy_tuple(seq_obj, what);
    if (!seq || PyList_Append(keep, seq) < 0) {
        Py_XDECREF(seq);
        return -1;
    }
    Py_DECREF(seq); /* `keep` holds it */
    Py_ssize_t n = PyTuple_Size(seq);
    if (n > max - first) {
        cpy_invalid("%s: more than %d options", what, max);
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *item = PyTuple_GetItem(seq, i);
        if (!PyUnicode_Check(item)) {
            PyObject *type = cpy_type_name(item);
            PyErr_Format(PyExc_TypeError, "%s: item %zd is %V, not str", what, i, type, "?");
            Py_XDECREF(type);
            return -1;
        }
        if (!(out[first + i] = PyUnicode_AsUTF8AndSize(item, NULL)))
            return -1;
    }
    return first + (int)n;
}

/* cudyn's exception for st, with `log` (a compile's or the linker's) as
 * its attribute `log`; NULL */
static PyObject *raise_with_log(int st, const char *log)
{
    cpy_raise(st);
    if (!log || !log[0])
        return NULL;
    PyObject *t, *v, *tb;
    PyErr_Fetch(&t, &v, &tb);
    PyErr_NormalizeException(&t, &v, &tb);
    PyObject *text = PyUnicode_DecodeUTF8(log, (Py_ssize_t)strlen(log), "replace");
    if (text && v)
        PyObject_SetAttrString(v, "log", text);
    Py_XDECREF(text);
    PyErr_Clear();
    PyErr_Restore(t, v, tb);
    return NULL;
}

static LinkerObject *live(LinkerObject *self)
{
    if (!self->linker)
        cpy_invalid("Linker: it was closed");
    return self->linker ? self : NULL;
}

PyDoc_STRVAR(linker_doc, CPY_SIG("Linker(options=None, *, device=None, devrt=False, driver=False, "
                                 "need_nvjitlink=False)",
                                 "A device linker (cudyn_link_create): nvJitLink's options (a sequence of str); "
                                 "device an ordinal (None: this thread's); devrt adds libcudadevrt.a (dynamic "
                                 "parallelism); driver links with the driver's linker; need_nvjitlink refuses "
                                 "the driver's."));
static PyObject *linker_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    static char *kw[] = {"options", "device", "devrt", "driver", "need_nvjitlink", NULL};
    PyObject *options = Py_None, *device_obj = Py_None;
    int devrt = 0, driver = 0, need = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "|O$Oppp:Linker", kw, &options, &device_obj, &devrt, &driver,
                                     &need))
        return NULL;
    int device = -1;
    if (device_obj == Py_None ? (device = cpy_current_device()) < 0
                              : cpy_int(device_obj, &device, "device (ordinal)", 0, INT_MAX) < 0)
        return NULL;
    const char *opts[MAX_LINK_OPTIONS];
    PyObject *keep = PyList_New(0);
    int n = keep ? options_into(options, opts, 0, MAX_LINK_OPTIONS, keep, "options") : -1;
    LinkerObject *self = n < 0 ? NULL : (LinkerObject *)PyType_GenericAlloc(type, 0);
    if (self) {
        unsigned int flags = (devrt ? CUDYN_LINK_DEVRT : 0u) | (driver ? CUDYN_LINK_USE_DRIVER : 0u) |
                             (need ? CUDYN_LINK_NEED_NVJITLINK : 0u);
        int st;
        self->device = device;
        CPY_NOGIL(st, cudyn_link_create(&self->linker, device, opts, n, flags));
        if (st != CUDYN_OK) {
            Py_DECREF(self);
            self = NULL;
            cpy_raise(st);
        }
    }
    Py_XDECREF(keep);
    return (PyObject *)self;
}

static void linker_dealloc(LinkerObject *self)
{
    if (self->weakrefs)
        PyObject_ClearWeakRefs((PyObject *)self);
    cudyn_link_destroy(self->linker);
    cpy_free(self);
}

/* the kind of an input: a CUDYN_LINK_* number */
static int input_kind(PyObject *obj, int *kind)
{
    return cpy_int(obj, kind, "kind (a LINK_* constant)", CUDYN_LINK_AUTO, CUDYN_LINK_LIBRARY);
}

/* the linker's failure, with its log */
static PyObject *link_failed(LinkerObject *self, int st)
{
    return raise_with_log(st, cudyn_link_log(self->linker));
}

PyDoc_STRVAR(add_data_doc, CPY_SIG("add_data($self, /, data, kind=0, name=None)",
                                   "Adds an input (a bytes-like object): kind a LINK_* constant (LINK_AUTO: "
                                   "told from its first bytes), name for the log."));
static PyObject *linker_add_data(LinkerObject *self, PyObject *args, PyObject *kwds)
{
    static char *kw[] = {"data", "kind", "name", NULL};
    PyObject *data, *kind_obj = NULL;
    const char *name = NULL;
    int kind = CUDYN_LINK_AUTO;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O|Oz:add_data", kw, &data, &kind_obj, &name) || !live(self) ||
        (kind_obj && input_kind(kind_obj, &kind) < 0))
        return NULL;
    Py_buffer view;
    if (PyObject_GetBuffer(data, &view, PyBUF_SIMPLE) < 0)
        return NULL;
    int st;
    CPY_NOGIL(st, cudyn_link_add_data(self->linker, kind, view.buf, (size_t)view.len, name));
    PyBuffer_Release(&view);
    if (st != CUDYN_OK)
        return link_failed(self, st);
    Py_RETURN_NONE;
}

PyDoc_STRVAR(add_file_doc, CPY_SIG("add_file($self, /, path, kind=0)",
                                   "Adds a file's contents (a CUBIN, PTX, LTO-IR, fatbin, object or library)."));
static PyObject *linker_add_file(LinkerObject *self, PyObject *args, PyObject *kwds)
{
    static char *kw[] = {"path", "kind", NULL};
    PyObject *path_obj, *kind_obj = NULL, *bytes = NULL;
    int kind = CUDYN_LINK_AUTO;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O|O:add_file", kw, &path_obj, &kind_obj) || !live(self) ||
        (kind_obj && input_kind(kind_obj, &kind) < 0) || !PyUnicode_FSConverter(path_obj, &bytes))
        return NULL;
    int st;
    const char *path = PyBytes_AsString(bytes);
    CPY_NOGIL(st, cudyn_link_add_file(self->linker, kind, path));
    Py_DECREF(bytes);
    if (st != CUDYN_OK)
        return link_failed(self, st);
    Py_RETURN_NONE;
}

PyDoc_STRVAR(add_source_doc,
             CPY_SIG("add_source($self, /, source, options=None, name='kernel.cu')",
                     "Compiles CUDA C++ as relocatable device code (-rdc=true, through cudyn's cache) for the "
                     "linker's device and adds it; CompileError with NVRTC's log when it does not compile."));
static PyObject *linker_add_source(LinkerObject *self, PyObject *args, PyObject *kwds)
{
    static char *kw[] = {"source", "options", "name", NULL};
    const char *source, *name = "kernel.cu";
    PyObject *options = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "s|Os:add_source", kw, &source, &options, &name) || !live(self))
        return NULL;
    const char *opts[MAX_LINK_OPTIONS] = {"-rdc=true"};
    PyObject *keep = PyList_New(0);
    int n = keep ? options_into(options, opts, 1, MAX_LINK_OPTIONS, keep, "options") : -1;
    if (n < 0) {
        Py_XDECREF(keep);
        return NULL;
    }
    cudyn_program *prog = NULL;
    int st;
    CPY_NOGIL(st, cudyn_compile(&prog, source, name, self->device, opts, n));
    Py_DECREF(keep);
    if (st != CUDYN_OK) {
        raise_with_log(st, prog ? cudyn_program_log(prog) : NULL);
        cudyn_program_free(prog);
        return NULL;
    }
    CPY_NOGIL(st, cudyn_link_add_program(self->linker, prog));
    cudyn_program_free(prog);
    if (st != CUDYN_OK)
        return link_failed(self, st);
    Py_RETURN_NONE;
}

static PyObject *linker_complete(LinkerObject *self, PyObject *unused)
{
    (void)unused;
    if (!live(self))
        return NULL;
    const void *image = NULL;
    size_t bytes = 0;
    int st;
    CPY_NOGIL(st, cudyn_link_complete(self->linker, &image, &bytes));
    if (st != CUDYN_OK)
        return link_failed(self, st);
    return PyBytes_FromStringAndSize(image, (Py_ssize_t)bytes);
}

static PyObject *linker_close(LinkerObject *self, PyObject *unused)
{
    (void)unused;
    cudyn_link_destroy(self->linker);
    self->linker = NULL;
    Py_RETURN_NONE;
}

static PyObject *linker_log(LinkerObject *self, void *closure)
{
    (void)closure;
    return self->linker ? PyUnicode_DecodeUTF8(cudyn_link_log(self->linker), (Py_ssize_t)strlen(cudyn_link_log(self->linker)),
                                               "replace")
                        : PyUnicode_FromString("");
}

static PyObject *linker_backend(LinkerObject *self, void *closure)
{
    (void)closure;
    return PyUnicode_FromString(self->linker ? cudyn_link_backend(self->linker) : "");
}

static PyMethodDef linker_methods[] = {
    {"add_data", CPY_KW(linker_add_data), add_data_doc},
    {"add_file", CPY_KW(linker_add_file), add_file_doc},
    {"add_source", CPY_KW(linker_add_source), add_source_doc},
    {"complete", (PyCFunction)linker_complete, METH_NOARGS,
     CPY_SIG("complete($self, /)", "Links: the CUBIN (PTX with -ptx) as bytes, for Module.from_image; once.")},
    {"close", (PyCFunction)linker_close, METH_NOARGS, CPY_SIG("close($self, /)", "Frees the linker now.")},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef linker_getset[] = {
    {"log", (getter)linker_log, NULL, "the linker's log so far, errors first", NULL},
    {"backend", (getter)linker_backend, NULL, "which linker: 'nvJitLink 13.0' or 'driver (CUDA 13.0)'", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyMemberDef linker_members[] = {
    CPY_WEAKLIST(LinkerObject),
    {NULL},
};
static PyType_Slot linker_slots[] = {
    {Py_tp_doc, (void *)linker_doc},
    {Py_tp_new, (void *)linker_new},
    {Py_tp_dealloc, (void *)linker_dealloc},
    {Py_tp_methods, linker_methods},
    {Py_tp_members, linker_members},
    {Py_tp_getset, linker_getset},
    {0, NULL},
};
PyTypeObject *Linker_Type;
const PyType_Spec Linker_Spec = {"cudyn._cudyn.Linker", sizeof(LinkerObject), 0, CPY_TPFLAGS, linker_slots};

/* ---- toolkit_info() */

PyObject *cpy_toolkit_info(PyObject *m, PyObject *unused)
{
    (void)m, (void)unused;
    struct cudyn_toolkit_info t = {.size = sizeof t};
    int st;
    CPY_NOGIL(st, cudyn_toolkit_info(&t));
    if (st != CUDYN_OK)
        return cpy_raise(st);
    return Py_BuildValue("{s:z,s:z,s:z,s:z,s:z,s:z,s:s,s:z,s:z,s:i,s:z,s:d}", "include_path", t.include_path,
                         "headers_found_by", t.headers_found_by, "headers_location", t.headers_location, "cudadevrt",
                         t.cudadevrt, "cudadevrt_found_by", t.cudadevrt_found_by, "trace", t.trace,
                         "nvjitlink_status", cudyn_status_name(t.nvjitlink_status), "nvjitlink_path",
                         t.nvjitlink_path, "nvjitlink_found_by", t.nvjitlink_found_by, "nvjitlink_version",
                         t.nvjitlink_version, "nvjitlink_trace", t.nvjitlink_trace, "nvjitlink_load_ms",
                         t.nvjitlink_load_ms);
}

int cpy_link_init(PyObject *module)
{
    static const struct {
        const char *name;
        int value;
    } kinds[] = {
        {"LINK_AUTO", CUDYN_LINK_AUTO},     {"LINK_CUBIN", CUDYN_LINK_CUBIN},   {"LINK_PTX", CUDYN_LINK_PTX},
        {"LINK_LTOIR", CUDYN_LINK_LTOIR},   {"LINK_FATBIN", CUDYN_LINK_FATBIN}, {"LINK_OBJECT", CUDYN_LINK_OBJECT},
        {"LINK_LIBRARY", CUDYN_LINK_LIBRARY},
    };
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        if (PyModule_AddIntConstant(module, kinds[i].name, kinds[i].value) < 0)
            return -1;
    return 0;
}
