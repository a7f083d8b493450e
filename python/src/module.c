/* module.c - Module: kernels compiled from source (through cudyn's cache,
 * PyCUDA's SourceModule), loaded from images (cudyn-cc, CUBIN, PTX,
 * fatbin) or files; kernels and globals by name. */
#include "cudyn_py.h"
#include <limits.h>
#include <string.h>

static ModuleObject *module_alloc(void)
{
    ModuleObject *m = (ModuleObject *)PyType_GenericAlloc(Module_Type, 0);
    if (m)
        m->device = -1;
    return m;
}

/* What from_source hands cudyn_compile_ex: UTF-8 arrays pointing into
 * the str objects `keep` holds, and the source wrapped in extern "C". */
struct source_inputs {
    PyObject *keep;
    const char **opts, **exprs, **hnames, **hsrcs;
    int nopts, nexprs, nheaders;
    char *wrapped; /* NULL: the source as given */
};

static void source_inputs_free(struct source_inputs *in)
{
    PyMem_Free(in->opts);
    PyMem_Free(in->exprs);
    PyMem_Free(in->hnames);
    PyMem_Free(in->hsrcs);
    PyMem_Free(in->wrapped);
    Py_XDECREF(in->keep);
}

/* NVRTC's options: `options`, then -I for each of include_dirs (this is
 * where include_dirs become options); a str for either is refused, never
 * split into characters.  0 or -1 */
static int compile_options(PyObject *options, PyObject *include_dirs, struct source_inputs *in)
{
    if (PyUnicode_Check(options) || PyUnicode_Check(include_dirs)) {
        PyErr_Format(PyExc_TypeError, "%s must be a sequence of str, not a str",
                     PyUnicode_Check(options) ? "options" : "include_dirs");
        return -1;
    }
    PyObject *list = options == Py_None ? PyList_New(0) : PySequence_List(options);
    PyObject *it = list && include_dirs != Py_None ? PyObject_GetIter(include_dirs) : NULL, *d;
    int rc = list && (include_dirs == Py_None || it) ? 0 : -1;
    while (rc == 0 && it && (d = PyIter_Next(it))) {
        PyObject *o = PyUnicode_FromFormat("-I%S", d);
        Py_DECREF(d);
        rc = o && PyList_Append(list, o) == 0 ? 0 : -1;
        Py_XDECREF(o);
    }
    Py_XDECREF(it);
    if (rc == 0 && !PyErr_Occurred())
        rc = cpy_str_array(list, NULL, &in->opts, &in->nopts, in->keep, "options");
    else
        rc = -1;
    Py_XDECREF(list);
    return rc;
}

/* The source inside extern "C" { }, so kernels keep their names (PyCUDA's
 * default); *source then points to the copy.  0 or -1 */
static int wrap_extern_c(const char **source, struct source_inputs *in)
{
    size_t len = strlen(*source);
    static const char head[] = "extern \"C\" {\n", tail[] = "\n}\n";
    in->wrapped = PyMem_Malloc(len + sizeof head + sizeof tail);
    if (!in->wrapped) {
        PyErr_NoMemory();
        return -1;
    }
    memcpy(in->wrapped, head, sizeof head - 1);
    memcpy(in->wrapped + sizeof head - 1, *source, len);
    memcpy(in->wrapped + sizeof head - 1 + len, tail, sizeof tail);
    *source = in->wrapped;
    return 0;
}

/* device=: makes it current, *prev getting the one to go back to; 1 if it
 * switched, 0 for None, -1 with an exception */
static int use_device(PyObject *device_obj, int *prev)
{
    if (device_obj == Py_None)
        return 0;
    int dev;
    if (cpy_int(device_obj, &dev, "device (ordinal)", INT_MIN, INT_MAX) < 0)
        return -1;
    if ((*prev = cpy_current_device()) < 0)
        return -1;
    int st = cudyn_device_use(dev);
    if (st != CUDYN_OK) {
        cpy_raise(st);
        return -1;
    }
    return 1;
}

/* Compiles for the current device (through cudyn's cache) and loads: the
 * Module, which keeps the program for its log and facts */
static PyObject *compile_and_load(const char *source, const char *name, int nocache, const struct source_inputs *in)
{
    int device = cpy_current_device();
    if (device < 0)
        return NULL;
    struct cudyn_compile_args ca = {.size = sizeof ca,
                                    .source = source,
                                    .name = name,
                                    .device = device,
                                    .options = in->opts,
                                    .num_options = in->nopts,
                                    .header_names = in->hnames,
                                    .header_sources = in->hsrcs,
                                    .num_headers = in->nheaders,
                                    .name_expressions = in->exprs,
                                    .num_names = in->nexprs,
                                    .flags = nocache ? CUDYN_COMPILE_NO_CACHE : 0};
    cudyn_program *prog = NULL;
    cudyn_module mod = NULL;
    int st;
    CPY_NOGIL(st, cudyn_compile_ex(&prog, &ca));
    if (st != CUDYN_OK) {
        cpy_raise_with_log(st, prog ? cudyn_program_log(prog) : NULL);
        cudyn_program_free(prog);
        return NULL;
    }
    CPY_NOGIL(st, cudyn_module_load(&mod, prog));
    if (st != CUDYN_OK) {
        cpy_raise(st);
        cudyn_program_free(prog);
        return NULL;
    }
    ModuleObject *m = module_alloc();
    if (!m) {
        cudyn_module_unload(mod);
        cudyn_program_free(prog);
        return NULL;
    }
    m->mod = mod;
    m->prog = prog;
    m->device = device;
    return (PyObject *)m;
}

PyDoc_STRVAR(mod_from_source_doc,
             CPY_SIG("from_source($type, /, source, options=None, name='kernel.cu', name_expressions=None, "
                     "headers=None, device=None, no_extern_c=False, include_dirs=None, nocache=False)",
                     "Compiles through cudyn's cache and loads; options, name_expressions and include_dirs are "
                     "sequences of str, headers a dict {name: source}, device an ordinal (None: this "
                     "thread's)."));
static PyObject *mod_from_source(PyObject *cls, PyObject *args, PyObject *kwds)
{
    static char *kw[] = {"source", "options", "name", "name_expressions", "headers", "device", "no_extern_c",
                         "include_dirs", "nocache", NULL};
    const char *source, *name = "kernel.cu";
    PyObject *options = Py_None, *names = Py_None, *headers = Py_None, *device_obj = Py_None,
             *include_dirs = Py_None;
    int no_extern_c = 0, nocache = 0, prev = -1, switched = 0;
    (void)cls;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "s|OsOOOpOp:from_source", kw, &source, &options, &name, &names,
                                     &headers, &device_obj, &no_extern_c, &include_dirs, &nocache))
        return NULL;
    struct source_inputs in = {.keep = PyList_New(0)};
    PyObject *result = NULL;
    if (in.keep && compile_options(options, include_dirs, &in) == 0 &&
        cpy_str_array(names, NULL, &in.exprs, &in.nexprs, in.keep, "name_expressions") == 0 &&
        cpy_header_arrays(headers, &in.hnames, &in.hsrcs, &in.nheaders, in.keep) == 0 &&
        (no_extern_c || wrap_extern_c(&source, &in) == 0) &&
        (switched = use_device(device_obj, &prev)) >= 0)
        result = compile_and_load(source, name, nocache, &in);
    if (switched > 0)
        cudyn_device_use(prev);
    source_inputs_free(&in);
    return result;
}

static uint64_t le64(const unsigned char *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

/* Loads an image whose length is known: cudyn's container, ELF (CUBIN) and
 * fatbin are checked to lie within it; anything else is PTX text, given
 * its terminating NUL. */
static PyObject *load_image(const unsigned char *p, size_t len)
{
    const char *why = NULL;
    unsigned char *copy = NULL;
    const void *image = p;
    if (len >= 8 && memcmp(p, "CUDYNIMG", 8) == 0) {
        if (len < 24 || le64(p + 16) > len)
            why = "a cudyn image that is cut short (its header gives more bytes than there are)";
    } else if (len >= 4 && memcmp(p, "\177ELF", 4) == 0) {
        if (len < 64 || p[4] != 2)
            why = "an ELF image that is not 64-bit or is cut short";
        else {
            uint64_t shoff = le64(p + 0x28);
            unsigned shentsize = p[0x3a] | p[0x3b] << 8, shnum = p[0x3c] | p[0x3d] << 8;
            if (shoff > len || (uint64_t)shentsize * shnum > len - shoff)
                why = "an ELF image that is cut short (its section table lies past the end)";
        }
    } else if (len >= 4 && p[0] == 0x50 && p[1] == 0xed && p[2] == 0x55 && p[3] == 0xba) {
        if (len < 16 || (uint64_t)(p[6] | p[7] << 8) + le64(p + 8) > len)
            why = "a fatbin that is cut short";
    } else if (!memchr(p, 0, len)) {
        copy = PyMem_Malloc(len + 1);
        if (!copy)
            return PyErr_NoMemory();
        memcpy(copy, p, len);
        copy[len] = 0;
        image = copy;
    }
    if (why)
        return cpy_invalid("Module.from_image: %s (%zu bytes)", why, len);
    if (len == 0)
        return cpy_invalid("Module.from_image: an empty image");
    int device = cpy_current_device();
    if (device < 0) {
        PyMem_Free(copy);
        return NULL;
    }
    cudyn_module mod = NULL;
    int st;
    CPY_NOGIL(st, cudyn_module_load_image(&mod, image));
    PyMem_Free(copy);
    if (st != CUDYN_OK)
        return cpy_raise(st);
    ModuleObject *m = module_alloc();
    if (!m) {
        cudyn_module_unload(mod);
        return NULL;
    }
    m->mod = mod;
    m->device = device;
    return (PyObject *)m;
}

static PyObject *mod_from_image(PyObject *cls, PyObject *obj)
{
    (void)cls;
    Py_buffer view;
    if (PyObject_GetBuffer(obj, &view, PyBUF_SIMPLE) < 0)
        return NULL;
    PyObject *r = load_image(view.buf, (size_t)view.len);
    PyBuffer_Release(&view);
    return r;
}

static PyObject *mod_from_file(PyObject *cls, PyObject *path)
{
    (void)cls;
    PyObject *io = PyImport_ImportModule("io");
    if (!io)
        return NULL;
    PyObject *f = PyObject_CallMethod(io, "open", "Os", path, "rb");
    Py_DECREF(io);
    if (!f)
        return NULL;
    PyObject *data = PyObject_CallMethod(f, "read", NULL);
    PyObject *r = PyObject_CallMethod(f, "close", NULL);
    Py_XDECREF(r);
    Py_DECREF(f);
    if (!data)
        return NULL;
    r = mod_from_image(NULL, data);
    Py_DECREF(data);
    return r;
}

static void mod_dealloc(ModuleObject *m)
{
    if (m->weakrefs)
        PyObject_ClearWeakRefs((PyObject *)m);
    if (m->mod && cudyn_module_unload(m->mod) != CUDYN_OK)
        cudyn_clear_error();
    cudyn_program_free(m->prog);
    cpy_free(m);
}

static PyObject *mod_get_function(ModuleObject *m, PyObject *arg)
{
    const char *name = cpy_utf8(arg, "get_function: name");
    if (!name)
        return NULL;
    cudyn_function f = NULL;
    int st = cudyn_module_function(&f, m->mod, name);
    if (st != CUDYN_OK)
        return cpy_raise(st);
    return cpy_function_new((PyObject *)m, m->device, f, name);
}

static PyObject *mod_get_global(ModuleObject *m, PyObject *arg)
{
    const char *name = cpy_utf8(arg, "get_global: name");
    if (!name)
        return NULL;
    cudyn_devptr p = 0;
    size_t bytes = 0;
    int st = cudyn_module_global(&p, &bytes, m->mod, name);
    if (st != CUDYN_OK)
        return cpy_raise(st);
    return Py_BuildValue("(Kn)", (unsigned long long)p, (Py_ssize_t)bytes);
}

static PyObject *mod_lowered_name(ModuleObject *m, PyObject *arg)
{
    const char *expr = cpy_utf8(arg, "lowered_name: expr");
    if (!expr)
        return NULL;
    const char *low = m->prog ? cudyn_program_lowered_name(m->prog, expr) : NULL;
    if (!low) {
        PyErr_Format(PyExc_KeyError, "%R is not a name expression of this module", arg);
        return NULL;
    }
    return PyUnicode_FromString(low);
}

static PyObject *mod_log(ModuleObject *m, void *c)
{
    (void)c;
    return cpy_text(m->prog ? cudyn_program_log(m->prog) : NULL);
}
static PyObject *mod_target(ModuleObject *m, void *c)
{
    (void)c;
    return cpy_text(m->prog ? cudyn_program_target(m->prog) : NULL);
}
static PyObject *mod_from_cache(ModuleObject *m, void *c)
{
    (void)c;
    if (!m->prog)
        Py_RETURN_NONE;
    return PyBool_FromLong(cudyn_program_from_cache(m->prog));
}
static PyObject *mod_handle(ModuleObject *m, void *c)
{
    (void)c;
    return PyLong_FromVoidPtr(cudyn_module_native(m->mod));
}
static PyObject *mod_ptx(ModuleObject *m, void *c)
{
    (void)c;
    size_t n = 0;
    const char *ptx = m->prog ? cudyn_program_ptx(m->prog, &n) : NULL;
    return cpy_text(ptx);
}

static PyMethodDef mod_methods[] = {
    {"from_source", CPY_KW(mod_from_source) | METH_CLASS,
     mod_from_source_doc},
    {"from_image", (PyCFunction)mod_from_image, METH_O | METH_CLASS,
     CPY_SIG("from_image($type, image, /)", "Loads a cudyn-cc image, CUBIN, fatbin or PTX (a bytes-like object).")},
    {"from_file", (PyCFunction)mod_from_file, METH_O | METH_CLASS,
     CPY_SIG("from_file($type, path, /)", "from_image of a file.")},
    {"get_function", (PyCFunction)mod_get_function, METH_O,
     CPY_SIG("get_function($self, name, /)", "The kernel of that name or name expression.")},
    {"get_global", (PyCFunction)mod_get_global, METH_O,
     CPY_SIG("get_global($self, name, /)", "(device address, bytes).")},
    {"lowered_name", (PyCFunction)mod_lowered_name, METH_O,
     CPY_SIG("lowered_name($self, expr, /)", "The mangled name.")},
    {NULL},
};
static PyGetSetDef mod_getset[] = {
    {"log", (getter)mod_log, NULL, "NVRTC's log (None for images)", NULL},
    {"target", (getter)mod_target, NULL, "the target compiled for ('sm_90', 'compute_90')", NULL},
    {"from_cache", (getter)mod_from_cache, NULL, "True if the kernel came from the cache", NULL},
    {"handle", (getter)mod_handle, NULL, "the native CUmodule (int)", NULL},
    {"ptx", (getter)mod_ptx, NULL, "the PTX text where there is one, else None", NULL},
    {NULL},
};
static PyMemberDef mod_members[] = {
    {"device", T_INT, offsetof(ModuleObject, device), READONLY, "the device it is loaded on"},
    CPY_WEAKLIST(ModuleObject),
    {NULL},
};

/* made by its class methods alone */
static PyType_Slot mod_slots[] = {
    {Py_tp_doc, "Loaded kernels: Module.from_source / from_image / from_file."},
    {Py_tp_dealloc, (void *)mod_dealloc},
    {Py_tp_methods, mod_methods},
    {Py_tp_members, mod_members},
    {Py_tp_getset, mod_getset},
    {0, NULL},
};
PyTypeObject *Module_Type;
const PyType_Spec Module_Spec = {"cudyn.Module", sizeof(ModuleObject), 0, CPY_TPFLAGS_NO_NEW, mod_slots};
