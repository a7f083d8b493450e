/* link.c - Linker: device linking over cudyn_link_* (relocatable device
 * code, libraries, LTO-IR, libcudadevrt.a for dynamic parallelism), as
 * cuda.core's Linker; and toolkit_info(), what cudyn takes of the CUDA
 * toolkit at run time (headers, libcudadevrt.a, nvJitLink).
 * The lifetime rule (cudyn_py.h, cpy_hold): a call on the linker holds it
 * while it runs without the GIL, so that close() raises meanwhile and a
 * second call from another thread raises too (cudyn.h: a linker is used
 * by one thread at a time). */
#include "cudyn_py.h"
#include <string.h>

#define MAX_LINK_OPTIONS CUDYN_LINK_MAX_OPTIONS

typedef struct {
    PyObject_HEAD
    cudyn_linker *linker; /* NULL once closed */
    int device;           /* add_source compiles for it */
    Py_ssize_t in_use;    /* the lifetime rule's hold: a call on the linker running without the GIL */
    PyObject *weakrefs;
} LinkerObject;

/* The linker for a call that runs without the GIL, held (cpy_hold) until
 * let_go: the lifetime rule, and cudyn.h's "one thread at a time".  NULL
 * with InvalidArgument once closed, or while another call holds it. */
static cudyn_linker *take(LinkerObject *self, const char *who)
{
    if (!self->linker) {
        cpy_invalid("%s: the Linker was closed", who);
        return NULL;
    }
    if (cpy_refuse_in_use(who, self->in_use) < 0)
        return NULL;
    cpy_hold((PyObject *)self, &self->in_use);
    return self->linker;
}

static void let_go(LinkerObject *self)
{
    cpy_let_go((PyObject *)self, &self->in_use);
}

/* the linker's failure, with its log (read with the GIL held, after the
 * call: no other call can have started) */
static PyObject *link_failed(LinkerObject *self, int st)
{
    return cpy_raise_with_log(st, cudyn_link_log(self->linker));
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
    const char **opts = NULL;
    PyObject *keep = PyList_New(0);
    int n = 0, ok = keep && cpy_str_array(options, NULL, &opts, &n, keep, "options") == 0;
    if (ok && n > MAX_LINK_OPTIONS) {
        cpy_invalid("Linker: options: %d of them (at most %d)", n, MAX_LINK_OPTIONS);
        ok = 0;
    }
    LinkerObject *self = ok ? (LinkerObject *)PyType_GenericAlloc(type, 0) : NULL;
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
    PyMem_Free(opts);
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

PyDoc_STRVAR(add_data_doc, CPY_SIG("add_data($self, /, data, kind=0, name=None)",
                                   "Adds an input (a bytes-like object): kind a LINK_* constant (LINK_AUTO: "
                                   "told from its first bytes), name for the log."));
static PyObject *linker_add_data(LinkerObject *self, PyObject *args, PyObject *kwds)
{
    static char *kw[] = {"data", "kind", "name", NULL};
    PyObject *data, *kind_obj = NULL;
    const char *name = NULL;
    int kind = CUDYN_LINK_AUTO;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O|Oz:add_data", kw, &data, &kind_obj, &name) ||
        (kind_obj && input_kind(kind_obj, &kind) < 0))
        return NULL;
    Py_buffer view;
    if (PyObject_GetBuffer(data, &view, PyBUF_SIMPLE) < 0)
        return NULL;
    cudyn_linker *linker = take(self, "Linker.add_data");
    int st = -1;
    if (linker) {
        CPY_NOGIL(st, cudyn_link_add_data(linker, kind, view.buf, (size_t)view.len, name));
        let_go(self);
    }
    PyBuffer_Release(&view);
    if (st < 0)
        return NULL;
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
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O|O:add_file", kw, &path_obj, &kind_obj) ||
        (kind_obj && input_kind(kind_obj, &kind) < 0) || !PyUnicode_FSConverter(path_obj, &bytes))
        return NULL;
    cudyn_linker *linker = take(self, "Linker.add_file");
    int st = -1;
    const char *path = PyBytes_AsString(bytes);
    if (linker) {
        CPY_NOGIL(st, cudyn_link_add_file(linker, kind, path));
        let_go(self);
    }
    Py_DECREF(bytes);
    if (st < 0)
        return NULL;
    if (st != CUDYN_OK)
        return link_failed(self, st);
    Py_RETURN_NONE;
}

/* Compiles for the linker's device (the linker untouched meanwhile:
 * another call may run); *prog the program, or NULL with the exception */
static cudyn_program *compile_rdc(LinkerObject *self, const char *source, const char *name, PyObject *options,
                                  PyObject *headers)
{
    struct cudyn_compile_args ca = {.size = sizeof ca, .source = source, .name = name, .device = self->device};
    PyObject *keep = PyList_New(0);
    const char **opts = NULL, **hnames = NULL, **htexts = NULL;
    cudyn_program *prog = NULL;
    if (keep && cpy_str_array(options, "-rdc=true", &opts, &ca.num_options, keep, "options") == 0 &&
        cpy_header_arrays(headers, &hnames, &htexts, &ca.num_headers, keep) == 0) {
        int st;
        ca.options = opts;
        ca.header_names = hnames;
        ca.header_sources = htexts;
        CPY_NOGIL(st, cudyn_compile_ex(&prog, &ca));
        if (st != CUDYN_OK) {
            cpy_raise_with_log(st, prog ? cudyn_program_log(prog) : NULL);
            cudyn_program_free(prog);
            prog = NULL;
        }
    }
    PyMem_Free(opts);
    PyMem_Free(hnames);
    PyMem_Free(htexts);
    Py_XDECREF(keep);
    return prog;
}

PyDoc_STRVAR(add_source_doc,
             CPY_SIG("add_source($self, /, source, options=None, name='kernel.cu', headers=None)",
                     "Compiles CUDA C++ as relocatable device code (-rdc=true, through cudyn's cache) for the "
                     "linker's device and adds it; headers a dict {name: text} that #include finds in memory; "
                     "CompileError with NVRTC's log when it does not compile."));
static PyObject *linker_add_source(LinkerObject *self, PyObject *args, PyObject *kwds)
{
    static char *kw[] = {"source", "options", "name", "headers", NULL};
    const char *source, *name = "kernel.cu";
    PyObject *options = Py_None, *headers = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "s|OsO:add_source", kw, &source, &options, &name, &headers))
        return NULL;
    if (!self->linker) /* before compiling for nothing */
        return cpy_invalid("Linker.add_source: the Linker was closed");
    cudyn_program *prog = compile_rdc(self, source, name, options, headers);
    cudyn_linker *linker = prog ? take(self, "Linker.add_source") : NULL;
    int st = -1;
    if (linker) {
        CPY_NOGIL(st, cudyn_link_add_program(linker, prog));
        let_go(self);
    }
    cudyn_program_free(prog);
    if (st < 0)
        return NULL;
    if (st != CUDYN_OK)
        return link_failed(self, st);
    Py_RETURN_NONE;
}

static PyObject *linker_complete(LinkerObject *self, PyObject *unused)
{
    (void)unused;
    cudyn_linker *linker = take(self, "Linker.complete");
    if (!linker)
        return NULL;
    const void *image = NULL;
    size_t bytes = 0;
    int st;
    CPY_NOGIL(st, cudyn_link_complete(linker, &image, &bytes));
    let_go(self);
    if (st != CUDYN_OK)
        return link_failed(self, st);
    return PyBytes_FromStringAndSize(image, (Py_ssize_t)bytes);
}

/* close(): refused while a call holds the linker (the lifetime rule);
 * a second close() does nothing */
static PyObject *linker_close(LinkerObject *self, PyObject *unused)
{
    (void)unused;
    if (cpy_refuse_in_use("Linker.close", self->in_use) < 0)
        return NULL;
    cudyn_link_destroy(self->linker);
    self->linker = NULL;
    Py_RETURN_NONE;
}

/* the log, which a call running in another thread may be writing: refused meanwhile */
static PyObject *linker_log(LinkerObject *self, void *closure)
{
    (void)closure;
    if (cpy_refuse_in_use("Linker.log", self->in_use) < 0)
        return NULL;
    return cpy_text(self->linker ? cudyn_link_log(self->linker) : "");
}

static PyObject *linker_backend(LinkerObject *self, void *closure)
{
    (void)closure;
    return cpy_text(self->linker ? cudyn_link_backend(self->linker) : "");
}

static PyMethodDef linker_methods[] = {
    {"add_data", CPY_KW(linker_add_data), add_data_doc},
    {"add_file", CPY_KW(linker_add_file), add_file_doc},
    {"add_source", CPY_KW(linker_add_source), add_source_doc},
    {"complete", (PyCFunction)linker_complete, METH_NOARGS,
     CPY_SIG("complete($self, /)", "Links: the CUBIN (PTX with -ptx) as bytes, for Module.from_image; once.")},
    {"close", (PyCFunction)linker_close, METH_NOARGS,
     CPY_SIG("close($self, /)", "Frees the linker now; InvalidArgument while a call on it runs in another thread.")},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef linker_getset[] = {
    {"log", (getter)linker_log, NULL, "the linker's log so far, errors first (InvalidArgument while a call on it runs)",
     NULL},
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
    /* paths and traces as cpy_text decodes them: a toolkit under a path
     * that is not UTF-8 still answers */
    return Py_BuildValue("{s:N,s:N,s:N,s:N,s:N,s:N,s:s,s:N,s:N,s:i,s:N,s:d}", "include_path",
                         cpy_text(t.include_path), "headers_found_by", cpy_text(t.headers_found_by),
                         "headers_location", cpy_text(t.headers_location), "cudadevrt", cpy_text(t.cudadevrt),
                         "cudadevrt_found_by", cpy_text(t.cudadevrt_found_by), "trace", cpy_text(t.trace),
                         "nvjitlink_status", cudyn_status_name(t.nvjitlink_status), "nvjitlink_path",
                         cpy_text(t.nvjitlink_path), "nvjitlink_found_by", cpy_text(t.nvjitlink_found_by),
                         "nvjitlink_version", t.nvjitlink_version, "nvjitlink_trace", cpy_text(t.nvjitlink_trace),
                         "nvjitlink_load_ms", t.nvjitlink_load_ms);
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
