/* expressions.c - Elementwise and Reduction: thin wrappers over cudyn's
 * expression kernels (cudyn_elementwise_* / cudyn_reduction_*).  The
 * parameter types are declared, so Python ints and floats convert. */
#include "cudyn_py.h"
#include <string.h>

typedef struct {
    PyObject_HEAD
    cudyn_elementwise *k;
    cudyn_reduction *r;
    char format[CUDYN_MAX_ARGS + 1];
    char result_code; /* reductions: the result's launch code */
} ExprObject;

/* packs args (by `format`) into arena/argv; the count must match */
static int pack_args(const char *what, const char *format, PyObject *const *args, Py_ssize_t n, unsigned char *arena,
                     size_t arena_size, void **argv)
{
    Py_ssize_t want = (Py_ssize_t)strlen(format);
    if (n != want) {
        cpy_invalid("%s takes %zd arguments after n (format \"%s\"), %zd given", what, want, format, n);
        return -1;
    }
    int dev = -2;
    size_t used = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        size_t size;
        if (dev == -2 && PyObject_TypeCheck(args[i], DeviceArray_Type) && cudyn_device_current(&dev) != CUDYN_OK)
            dev = -1;
        if (used + 16 > arena_size) {
            cpy_invalid("%s: too many arguments", what);
            return -1;
        }
        int rc = cpy_pack(format[i], args[i], arena + used, &size, dev);
        if (rc < 0)
            return -1;
        if (rc > 0 && cpy_code(format[i])->kind == CUDYN_ARG_POINTER) { /* a host array: say so */
            cudyn_devptr p;
            if (cpy_devptr(args[i], &p, what) < 0)
                return -1;
            memcpy(arena + used, &p, sizeof p);
            size = sizeof p;
        } else if (rc > 0) {
            PyObject *type = cpy_type_name(args[i]);
            PyErr_Format(PyExc_TypeError, "%s: argument %zd (%V) does not suit parameter %zd ('%c')", what, i + 1, type,
                         "?", i + 1, format[i]);
            Py_XDECREF(type);
            return -1;
        }
        argv[i] = arena + used;
        used += (size + 15) & ~(size_t)15;
    }
    return 0;
}

/* n, *args, stream=None (, out=None): the positional part and keywords */
static int parse_run(PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames, size_t *n, cudyn_stream *stream,
                     PyObject **out, const char *what)
{
    *stream = NULL;
    if (out)
        *out = NULL;
    if (nargs < 1) {
        PyErr_Format(PyExc_TypeError, "%s takes n first", what);
        return -1;
    }
    if (cpy_size(args[0], n, "n") < 0)
        return -1;
    Py_ssize_t nkw = kwnames ? PyTuple_Size(kwnames) : 0;
    for (Py_ssize_t i = 0; i < nkw; i++) {
        PyObject *k = PyTuple_GetItem(kwnames, i), *v = args[nargs + i];
        if (PyUnicode_CompareWithASCIIString(k, "stream") == 0) {
            if (cpy_stream(v, stream) < 0)
                return -1;
        } else if (out && PyUnicode_CompareWithASCIIString(k, "out") == 0) {
            *out = v == Py_None ? NULL : v;
        } else {
            PyErr_Format(PyExc_TypeError, "%s got an unexpected keyword argument '%U'", what, k);
            return -1;
        }
    }
    return 0;
}

PyDoc_STRVAR(ew_doc, CPY_SIG("Elementwise(params, body, name='kernel', preamble=None)", "cudyn_elementwise_create."));
static PyObject *ew_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    static char *kw[] = {"params", "body", "name", "preamble", NULL};
    const char *params, *body, *name = "kernel", *preamble = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "ss|zz:Elementwise", kw, &params, &body, &name, &preamble))
        return NULL;
    cudyn_elementwise *k = NULL;
    int st;
    CPY_NOGIL(st, cudyn_elementwise_create(&k, params, body, name, preamble));
    if (st != CUDYN_OK)
        return cpy_raise(st);
    ExprObject *o = (ExprObject *)PyType_GenericAlloc(type, 0);
    if (!o) {
        cudyn_elementwise_free(k);
        return NULL;
    }
    o->k = k;
    snprintf(o->format, sizeof o->format, "%s", cudyn_elementwise_format(k));
    return (PyObject *)o;
}

static void expr_dealloc(ExprObject *o)
{
    cudyn_elementwise_free(o->k);
    cudyn_reduction_free(o->r);
    cpy_free(o);
}

static PyObject *ew_launch(ExprObject *o, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    size_t n;
    cudyn_stream stream;
    _Alignas(16) unsigned char arena[CUDYN_MAX_ARGS * 16];
    void *argv[CUDYN_MAX_ARGS];
    if (parse_run(args, nargs, kwnames, &n, &stream, NULL, "Elementwise.launch") < 0 ||
        pack_args("Elementwise.launch", o->format, args + 1, nargs - 1, arena, sizeof arena, argv) < 0)
        return NULL;
    int st = cudyn_elementwise_launch_args(o->k, n, stream, argv, (int)(nargs - 1));
    if (st != CUDYN_OK)
        return cpy_raise(st);
    Py_RETURN_NONE;
}

static PyObject *expr_format(ExprObject *o, void *c)
{
    (void)c;
    return PyUnicode_FromString(o->format);
}

static PyObject *expr_source(ExprObject *o, void *c)
{
    (void)c;
    return PyUnicode_FromString(o->k ? cudyn_elementwise_source(o->k) : cudyn_reduction_source(o->r));
}

static PyGetSetDef expr_getset[] = {
    {"format", (getter)expr_format, NULL, "the launch format of the parameters", NULL},
    {"source", (getter)expr_source, NULL, "the generated CUDA C++ source", NULL},
    {NULL},
};
static PyMethodDef ew_methods[] = {
    {"launch", (PyCFunction)(void (*)(void))ew_launch, METH_FASTCALL | METH_KEYWORDS,
     CPY_SIG("launch($self, n, /, *args, stream=None)", "Runs the body for i in [0, n).")},
    {NULL},
};

static PyType_Slot ew_slots[] = {
    {Py_tp_doc, (void *)ew_doc},
    {Py_tp_new, (void *)ew_new},
    {Py_tp_dealloc, (void *)expr_dealloc},
    {Py_tp_methods, ew_methods},
    {Py_tp_getset, expr_getset},
    {0, NULL},
};
PyTypeObject *Elementwise_Type;
const PyType_Spec Elementwise_Spec = {"cudyn.Elementwise", sizeof(ExprObject), 0, CPY_TPFLAGS | Py_TPFLAGS_BASETYPE,
                                      ew_slots};

/* ---------------------------------------------------------------- Reduction */
PyDoc_STRVAR(red_doc, CPY_SIG("Reduction(result_type, neutral, reduce_expr, map_expr, params, name='reduce', "
                              "preamble=None)", "cudyn_reduction_create."));
static PyObject *red_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    static char *kw[] = {"result_type", "neutral", "reduce_expr", "map_expr", "params", "name", "preamble", NULL};
    const char *result, *neutral, *reduce, *map, *params, *name = "reduce", *preamble = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "sssss|zz:Reduction", kw, &result, &neutral, &reduce, &map, &params,
                                     &name, &preamble))
        return NULL;
    /* the result type's launch character, and its spelling as lib/expr
     * takes it (C's and CUDA's other names too: "half" is "__half") */
    char code;
    const char *spelled = cpy_expr_spelling(result, &code);
    if (!spelled)
        return cpy_invalid("Reduction: result type '%s' is not a scalar type of the parameter alphabet", result);
    cudyn_reduction *r = NULL;
    int st;
    CPY_NOGIL(st, cudyn_reduction_create(&r, spelled, neutral, reduce, map, params, name, preamble));
    if (st != CUDYN_OK)
        return cpy_raise(st);
    ExprObject *o = (ExprObject *)PyType_GenericAlloc(type, 0);
    if (!o) {
        cudyn_reduction_free(r);
        return NULL;
    }
    o->r = r;
    o->result_code = code;
    snprintf(o->format, sizeof o->format, "%s", cudyn_reduction_format(r));
    return (PyObject *)o;
}

static PyObject *red_run(ExprObject *o, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    size_t n;
    cudyn_stream stream;
    PyObject *out;
    _Alignas(16) unsigned char arena[CUDYN_MAX_ARGS * 16];
    void *argv[CUDYN_MAX_ARGS];
    if (parse_run(args, nargs, kwnames, &n, &stream, &out, "Reduction.run") < 0 ||
        pack_args("Reduction.run", o->format, args + 1, nargs - 1, arena, sizeof arena, argv) < 0)
        return NULL;
    int st;
    if (out) {
        cudyn_devptr p;
        if (cpy_devptr(out, &p, "Reduction.run: out") < 0)
            return NULL;
        st = cudyn_reduction_run_args(o->r, NULL, p, n, stream, argv, (int)(nargs - 1));
        if (st != CUDYN_OK)
            return cpy_raise(st);
        Py_RETURN_NONE;
    }
    _Alignas(16) unsigned char result[16] = {0};
    CPY_NOGIL(st, cudyn_reduction_run_args(o->r, result, 0, n, stream, argv, (int)(nargs - 1)));
    if (st != CUDYN_OK)
        return cpy_raise(st);
    return cpy_unpack(o->result_code, result);
}

static PyMethodDef red_methods[] = {
    {"run", (PyCFunction)(void (*)(void))red_run, METH_FASTCALL | METH_KEYWORDS,
     CPY_SIG("run($self, n, /, *args, stream=None, out=None)",
             "The reduction's value (a Python number), or written to out (device memory for one result) "
             "asynchronously.")},
    {NULL},
};

static PyType_Slot red_slots[] = {
    {Py_tp_doc, (void *)red_doc},
    {Py_tp_new, (void *)red_new},
    {Py_tp_dealloc, (void *)expr_dealloc},
    {Py_tp_methods, red_methods},
    {Py_tp_getset, expr_getset},
    {0, NULL},
};
PyTypeObject *Reduction_Type;
const PyType_Spec Reduction_Spec = {"cudyn.Reduction", sizeof(ExprObject), 0, CPY_TPFLAGS | Py_TPFLAGS_BASETYPE,
                                    red_slots};
