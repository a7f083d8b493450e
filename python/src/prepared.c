/* prepared.c - PreparedFunction: a kernel with a fixed launch format,
 * given to Function.prepare() as cudyn's format or PyCUDA's ("PiF", 'P'
 * a pointer, 'l'/'L' 64-bit integers) or as numpy dtypes, checked by
 * cudyn when prepared and against the kernel at its first call.  Called
 * as p(grid, block, *args) (PyCUDA's prepared_call), or as p(*args) when
 * prepare() bound the launch configuration: a hot loop then parses only
 * the kernel's arguments.  prepare() also records the format on the
 * Function, for PyCUDA's f.prepare(...) then f.prepared_call(...),
 * f.prepared_async_call(...) and f.prepared_timed_call(...) (their forms
 * are here; function.c lists them as the Function's methods). */
#include "cudyn_py.h"
#include <string.h>

typedef struct {
    PyObject_HEAD
    cpy_vectorcallfunc vectorcall;
    FunctionObject *fn;
    struct cpy_signature sig;
    /* grid and block given to prepare(): a call takes only the kernel's
     * arguments and launches with these, parsing nothing else */
    int bound;
    struct launch_opts opts;
    PyObject *stream; /* the bound stream's object, kept alive; NULL for the default stream */
} PreparedObject;

/* PyCUDA's format letters (Python's struct module's) that differ from
 * cudyn's, and cudyn's for them */
static const char pycuda_letters[][2] = {{'P', 'p'}, {'l', 'q'}, {'L', 'Q'}, {'n', 'q'}, {'N', 'z'}};

/* One item of a sequence format as text: a str as it is (PyCUDA's "P"), a
 * dtype (or what numpy.dtype takes) as its numpy character code, a struct
 * (numpy's 'V', such as vec.float3) as cudyn's struct character. */
static PyObject *item_text(PyObject *item)
{
    if (PyUnicode_Check(item)) {
        Py_INCREF(item);
        return item;
    }
    PyObject *dt = cpy_dtype(item), *ch = dt ? PyObject_GetAttrString(dt, "char") : NULL;
    Py_XDECREF(dt);
    if (ch && PyUnicode_CompareWithASCIIString(ch, "V") == 0) {
        char code[2] = {cpy_format_char(CUDYN_ARG_STRUCT, 0), 0};
        Py_DECREF(ch);
        ch = PyUnicode_FromString(code);
    }
    return ch;
}

/* The format as text: a str as it is, a sequence as its items' texts.  A
 * new reference, or NULL with an exception. */
static PyObject *format_text(PyObject *fmt)
{
    if (PyUnicode_Check(fmt)) {
        Py_INCREF(fmt);
        return fmt;
    }
    PyObject *seq = cpy_tuple(fmt, "prepare: the format must be a str or a sequence of dtypes");
    if (!seq)
        return NULL;
    Py_ssize_t k = PyTuple_Size(seq);
    PyObject *s = PyUnicode_FromString("");
    for (Py_ssize_t i = 0; s && i < k; i++) {
        PyObject *ch = item_text(PyTuple_GetItem(seq, i));
        if (!ch) {
            Py_CLEAR(s);
            break;
        }
        PyObject *t = PyUnicode_Concat(s, ch);
        Py_DECREF(ch);
        Py_DECREF(s);
        s = t;
    }
    Py_DECREF(seq);
    return s;
}

/* prepare(fmt): the format in cudyn's letters (spaces dropped) into out,
 * its length in *n; refuses In/Out buffers, which are for plain calls */
static int translate_format(PyObject *fmt, char *out, int *n)
{
    PyObject *s = format_text(fmt);
    const char *text = s ? cpy_utf8(s, "prepare: the format") : NULL; /* a NUL would end it early */
    int k = 0, rc = text ? 0 : -1;
    for (const char *p = text; rc == 0 && *p; p++) {
        char c = *p;
        if (c == ' ')
            continue;
        for (size_t i = 0; i < sizeof pycuda_letters / sizeof pycuda_letters[0]; i++)
            if (c == pycuda_letters[i][0])
                c = pycuda_letters[i][1];
        cudyn_arg_kind kind = cpy_code(c)->kind;
        if (k == CUDYN_MAX_ARGS) {
            cpy_invalid("prepare: more than %d parameters", CUDYN_MAX_ARGS);
            rc = -1;
        } else if (kind == CUDYN_ARG_IN || kind == CUDYN_ARG_OUT || kind == CUDYN_ARG_INOUT) {
            cpy_invalid("prepare: In/Out/InOut buffers ('%c') are for plain calls, not prepared ones", c);
            rc = -1;
        } else
            out[k++] = c;
    }
    Py_XDECREF(s);
    out[k] = 0;
    *n = k;
    return rc;
}

/* prepare()'s grid=, block=, shared=, stream=: both or neither of grid and
 * block; 0 or -1 */
static int bind_launch(PreparedObject *p, PyObject *grid, PyObject *block, PyObject *shared, PyObject *stream)
{
    if (!grid && !block) {
        if (shared || stream) {
            PyErr_SetString(PyExc_TypeError, "prepare: shared= and stream= are bound only with grid= and block=");
            return -1;
        }
        return 0;
    }
    if (!grid || !block) {
        PyErr_SetString(PyExc_TypeError, "prepare: give both grid= and block=, or neither");
        return -1;
    }
    if (cpy_dim3(grid, &p->opts.grid, "grid") < 0 || cpy_dim3(block, &p->opts.block, "block") < 0)
        return -1;
    if (shared && cpy_launch_shared(shared, &p->opts.shared) < 0)
        return -1;
    if (cpy_stream(stream, &p->opts.stream) < 0)
        return -1;
    if (stream && stream != Py_None) {
        Py_INCREF(stream);
        p->stream = stream;
    }
    p->bound = 1;
    return 0;
}

static PyObject *prepared_vectorcall(PyObject *self, PyObject *const *args, size_t nargsf, PyObject *kwnames);

/* A format cudyn refuses (an unknown letter) is refused now; one the module
 * cannot pass (a library newer than it) too; the kernel checks the rest at
 * the first call. */
static int format_accepted(FunctionObject *fn, const char *codes)
{
    cudyn_args *pack = NULL;
    int st = cudyn_args_create(&pack, fn->f, codes);
    cudyn_args_free(pack);
    if (st != CUDYN_OK) {
        cpy_raise(st);
        return -1;
    }
    for (const char *c = codes; *c; c++)
        if (!cpy_format_supported(*c)) {
            cpy_invalid("prepare: this cudyn module cannot pass arguments of format '%c' (a newer libcudyn "
                        "than the module)", *c);
            return -1;
        }
    return 0;
}

const char cpy_prepare_doc[] = CPY_SIG(
    "prepare($self, /, arg_types, texrefs=None, *, grid=None, block=None, shared=None, stream=None)",
    "A PreparedFunction for hot loops; arg_types is a launch format (\"PPi\", \"fppp\") or a sequence of numpy "
    "dtypes, checked against the kernel at its first call, before it runs.  Called as p(grid, block, *args) "
    "(PyCUDA's prepared_call); with grid= and block= given here, as p(*args), the launch configuration bound "
    "once (cuda.core's LaunchConfig; shared= and stream= too).  The format is also recorded on this Function, "
    "for PyCUDA's f.prepared_call(...).  texrefs: texture references, which CUDA 12 removed; only an empty "
    "list is accepted.");
PyObject *cpy_prepare(FunctionObject *fn, PyObject *args, PyObject *kwds)
{
    static char *kw[] = {"arg_types", "texrefs", "grid", "block", "shared", "stream", NULL};
    PyObject *fmt, *texrefs = NULL, *grid = NULL, *block = NULL, *shared = NULL, *stream = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O|O$OOOO:prepare", kw, &fmt, &texrefs, &grid, &block, &shared,
                                     &stream) ||
        cpy_refuse_texrefs(texrefs, "prepare") < 0)
        return NULL;
    PyObject **given[] = {&grid, &block, &shared, &stream};
    for (size_t i = 0; i < sizeof given / sizeof *given; i++)
        if (*given[i] == Py_None) /* None: not given, as the signature says */
            *given[i] = NULL;
    PreparedObject *p = (PreparedObject *)PyType_GenericAlloc(PreparedFunction_Type, 0);
    if (!p)
        return NULL;
    p->vectorcall = prepared_vectorcall;
    Py_INCREF((PyObject *)fn);
    p->fn = fn;
    p->opts = (struct launch_opts)CPY_LAUNCH_DEFAULTS;
    if (bind_launch(p, grid, block, shared, stream) < 0 || translate_format(fmt, p->sig.codes, &p->sig.n) < 0 ||
        format_accepted(fn, p->sig.codes) < 0) {
        Py_DECREF(p);
        return NULL;
    }
    fn->prepared = p->sig; /* PyCUDA's prepared calls on the Function itself */
    return (PyObject *)p;
}

/* The kernel's arguments launched with sig's format, checked against the
 * kernel at sig's first launch, timed as o says.  The codes are copied
 * first: another thread may prepare the Function again while an
 * argument's conversion runs Python code. */
static PyObject *prepared_launch(FunctionObject *fn, struct cpy_signature *sig, PyObject *const *args,
                                 Py_ssize_t n, const struct launch_opts *o)
{
    if (n != sig->n)
        return cpy_invalid("%U: the prepared format \"%s\" takes %d arguments, %zd given", fn->name, sig->codes,
                           sig->n, n);
    char codes[CUDYN_MAX_ARGS + 1];
    memcpy(codes, sig->codes, (size_t)n + 1);
    struct call_state cs = {!sig->checked, CUDYN_OK, -1, -1};
    PyObject *timer;
    if (cpy_timer_start(o, &timer) < 0)
        return NULL;
    PyObject *r = cpy_pack_and_launch(fn, codes, 0, args, (int)n, o, &cs);
    if (r && memcmp(codes, sig->codes, (size_t)n + 1) == 0)
        sig->checked = 1;
    else if (!r && cs.unsuited >= 0) {
        PyObject *who = PyUnicode_FromFormat("%U: argument %d", fn->name, cs.unsuited + 1);
        if (who)
            cpy_unsuited(codes[cs.unsuited], args[cs.unsuited], who);
        Py_XDECREF(who);
    }
    return cpy_timer_finish(timer, r, o);
}

/* PyCUDA's prepared calls: what each takes before the kernel's arguments */
static const struct {
    const char *name, *signature;
    int leading; /* grid, block (and stream) */
    enum cpy_timing timing;
} forms[] = {
    [CPY_PREPARED_CALL] = {"prepared_call", "(grid, block, *args, shared_size=0)", 2, CPY_TIME_NONE},
    [CPY_PREPARED_ASYNC_CALL] = {"prepared_async_call", "(grid, block, stream, *args, shared_size=0)", 3,
                                 CPY_TIME_NONE},
    [CPY_PREPARED_TIMED_CALL] = {"prepared_timed_call", "(grid, block, *args, shared_size=0)", 2, CPY_TIME_LATER},
};

PyObject *cpy_prepared_call(FunctionObject *fn, struct cpy_signature *sig, enum cpy_prepared_form form,
                            PyObject *const *args, Py_ssize_t n, PyObject *kwnames)
{
    const char *name = forms[form].name;
    int lead = forms[form].leading;
    struct launch_opts o = CPY_LAUNCH_DEFAULTS;
    if (sig->n < 0)
        return cpy_invalid("%U: %s before prepare(): prepare the argument types first, e.g. f.prepare(\"PPi\") "
                           "for (float *, float *, int)", fn->name, name);
    if (n < lead) {
        PyErr_Format(PyExc_TypeError, "%U: %s takes %s", fn->name, name, forms[form].signature);
        return NULL;
    }
    if (cpy_dim3(args[0], &o.grid, "grid") < 0 || cpy_dim3(args[1], &o.block, "block") < 0 ||
        (lead == 3 && cpy_stream(args[2], &o.stream) < 0))
        return NULL;
    if (kwnames && cpy_launch_keywords(args + n, kwnames, &o, name) < 0)
        return NULL;
    if (forms[form].timing != CPY_TIME_NONE)
        o.timing = forms[form].timing;
    return prepared_launch(fn, sig, args + lead, n - lead, &o);
}

/* bound: (*args) with prepare()'s geometry; else (grid, block, *args, ...) */
static PyObject *prepared_vectorcall(PyObject *self, PyObject *const *args, size_t nargsf, PyObject *kwnames)
{
    PreparedObject *p = (PreparedObject *)self;
    if (!p->bound)
        return cpy_prepared_call(p->fn, &p->sig, CPY_PREPARED_CALL, args, cpy_nargs(nargsf), kwnames);
    if (kwnames && PyTuple_Size(kwnames)) {
        PyErr_Format(PyExc_TypeError, "%U: this prepared call has its grid and block bound by prepare(): it takes "
                     "only the kernel's arguments (prepared_call(grid, block, ...) launches with others)",
                     p->fn->name);
        return NULL;
    }
    return prepared_launch(p->fn, &p->sig, args, cpy_nargs(nargsf), &p->opts);
}

/* the same call through tp_call, where the type has no vectorcall flag */
static PyObject *prepared_tp_call(PyObject *self, PyObject *args, PyObject *kwargs)
{
    return cpy_call_vector(prepared_vectorcall, self, args, kwargs);
}

static PyObject *prepared_call(PreparedObject *p, PyObject *const *args, Py_ssize_t n, PyObject *kwnames)
{
    return cpy_prepared_call(p->fn, &p->sig, CPY_PREPARED_CALL, args, n, kwnames);
}

static PyObject *prepared_async_call(PreparedObject *p, PyObject *const *args, Py_ssize_t n, PyObject *kwnames)
{
    return cpy_prepared_call(p->fn, &p->sig, CPY_PREPARED_ASYNC_CALL, args, n, kwnames);
}

static PyObject *prepared_timed_call(PreparedObject *p, PyObject *const *args, Py_ssize_t n, PyObject *kwnames)
{
    return cpy_prepared_call(p->fn, &p->sig, CPY_PREPARED_TIMED_CALL, args, n, kwnames);
}

/* The garbage collector's: the bound stream may be any object that names
 * a stream (and every instance holds its heap type). */
static int prepared_traverse(PreparedObject *p, visitproc visit, void *arg)
{
    Py_VISIT(Py_TYPE((PyObject *)p));
    Py_VISIT(p->fn);
    Py_VISIT(p->stream);
    return 0;
}

static int prepared_clear(PreparedObject *p)
{
    Py_CLEAR(p->stream);
    return 0;
}

static void prepared_dealloc(PreparedObject *p)
{
    PyObject_GC_UnTrack(p);
    Py_XDECREF((PyObject *)p->fn);
    Py_XDECREF(p->stream);
    cpy_free(p);
}

static PyObject *prepared_format(PreparedObject *p, void *c)
{
    (void)c;
    return PyUnicode_FromString(p->sig.codes);
}

static PyMethodDef prepared_methods[] = {
    {"prepared_call", (PyCFunction)(void (*)(void))prepared_call, METH_FASTCALL | METH_KEYWORDS,
     CPY_SIG("prepared_call($self, grid, block, /, *args, " CPY_LAUNCH_KEYWORDS ")",
             "The same as calling it unbound; time_kernel=True waits and returns the kernel's seconds.")},
    {"prepared_async_call", (PyCFunction)(void (*)(void))prepared_async_call, METH_FASTCALL | METH_KEYWORDS,
     CPY_SIG("prepared_async_call($self, grid, block, stream, /, *args, " CPY_LAUNCH_KEYWORDS_BUT_STREAM ")",
             "prepared_call on stream (PyCUDA's order).")},
    {"prepared_timed_call", (PyCFunction)(void (*)(void))prepared_timed_call, METH_FASTCALL | METH_KEYWORDS,
     CPY_SIG("prepared_timed_call($self, grid, block, /, *args, " CPY_LAUNCH_KEYWORDS ")",
             "Launches; returns a callable that waits for the kernel and gives its time in seconds.")},
    {NULL},
};
static PyObject *prepared_bound(PreparedObject *p, void *c)
{
    (void)c;
    if (!p->bound)
        Py_RETURN_NONE;
    return Py_BuildValue("{s:(III),s:(III),s:I,s:O}", "grid", p->opts.grid.x, p->opts.grid.y, p->opts.grid.z,
                         "block", p->opts.block.x, p->opts.block.y, p->opts.block.z, "shared", p->opts.shared,
                         "stream", p->stream ? p->stream : Py_None);
}

static PyGetSetDef prepared_getset[] = {
    {"format", (getter)prepared_format, NULL, "the launch format", NULL},
    {"bound", (getter)prepared_bound, NULL,
     "the launch configuration prepare() bound (grid, block, shared, stream) as a dict, or None", NULL},
    {NULL},
};
static PyMemberDef prepared_members[] = {
    {"function", T_OBJECT, offsetof(PreparedObject, fn), READONLY, "the Function"},
    CPY_VECTORCALL(PreparedObject),
    {NULL},
};

/* made with cpy_vectorcall_flag() added (init.c) */
static PyType_Slot prepared_slots[] = {
    {Py_tp_doc, "A kernel with a fixed, checked argument format: p(grid, block, *args, shared=0, stream=None), or "
                "p(*args) when prepare() bound grid= and block= (and shared=, stream=)."},
    {Py_tp_call, (void *)prepared_tp_call},
    {Py_tp_dealloc, (void *)prepared_dealloc},
    {Py_tp_traverse, (void *)prepared_traverse},
    {Py_tp_clear, (void *)prepared_clear},
    {Py_tp_methods, prepared_methods},
    {Py_tp_members, prepared_members},
    {Py_tp_getset, prepared_getset},
    {0, NULL},
};
PyTypeObject *PreparedFunction_Type;
const PyType_Spec PreparedFunction_Spec = {"cudyn.PreparedFunction", sizeof(PreparedObject), 0,
                                           CPY_TPFLAGS_NO_NEW | Py_TPFLAGS_HAVE_GC, prepared_slots};
