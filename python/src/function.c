/* function.c - Function, a kernel: f(*args, grid=, block=, shared=,
 * stream=, time_kernel=) launches it.  The kernel's parameter layout (one
 * launch-format code per parameter) is found at the first call from the
 * arguments' types (pack.c's candidates), confirmed by cudyn's argument
 * check, and kept; later calls only pack and launch (launch.c).  Python
 * ints and floats take the type the check finds for their parameter; numpy
 * scalars keep their dtype, so a mismatch is a TypeError
 * (LaunchArgumentError) naming the parameter. */
#include "cudyn_py.h"
#include <string.h>

/* what a failed format check says: the 0-based parameter it names, -2 for
 * a count mismatch, -1 for neither */
static int named_parameter(int *count)
{
    cudyn_error e = {.size = sizeof e};
    cudyn_last_error(&e);
    const char *p = strstr(e.message, " takes ");
    if (p && sscanf(p, " takes %d parameter", count) == 1)
        return -2;
    p = strstr(e.message, "parameter ");
    int n;
    if (p && sscanf(p, "parameter %d", &n) == 1 && n >= 1)
        return n - 1;
    return -1;
}

/* The kernel's parameter count as cudyn knows it (its PTX or the driver's
 * parameter info): >= 0, or -1 where the kernel is not described, or -2
 * with an exception set.  cudyn.h has no query for the count, so this asks
 * the check of cudyn_args_launch with the empty format and a grid of 0: a
 * described kernel with parameters is refused by the check ("takes N
 * parameters"), before launching; otherwise the check passes and the
 * grid's 0 is refused by cudyn_launch itself (an invalid argument), so no
 * launch happens and no driver call is made, let alone one that fails.
 * Used by param_count and, at a first call only, where Python numbers need
 * the kernel's types; calls themselves are checked by their own launch. */
static int described_count(cudyn_function f)
{
    char probe[2] = {0, 0}; /* "" and a one-byte scalar */
    const char *formats[] = {"", probe};
    probe[0] = cpy_format_char(CUDYN_ARG_SIGNED, 1);
    int verdict[2];
    for (int k = 0; k < 2; k++) {
        cudyn_args *pack = NULL;
        int st = cudyn_args_create(&pack, f, formats[k]);
        if (st == CUDYN_OK && k == 1)
            st = cudyn_args_set_value(pack, 0, "", 1);
        if (st == CUDYN_OK)
            st = cudyn_args_launch(pack, (cudyn_dim3){0, 1, 1}, (cudyn_dim3){1, 1, 1}, 0, NULL);
        cudyn_args_free(pack);
        if (st == CUDYN_ERROR_INVALID_LAUNCH_ARGUMENTS) {
            int count = 0;
            int named = named_parameter(&count);
            cudyn_clear_error();
            if (named == -2)
                return count;
            verdict[k] = 1; /* refused otherwise: described */
        } else if (st == CUDYN_ERROR_INVALID_ARGUMENT) { /* the grid: the check passed */
            cudyn_clear_error();
            verdict[k] = 0;
        } else {
            cpy_raise(st);
            return -2;
        }
    }
    /* "" passed: no parameters, or not described (then the scalar passes too) */
    return verdict[1] ? 0 : -1;
}

/* A first call's starting layout: each argument's candidate codes, the
 * first of each in fmt; refuses an argument no code suits.  *ambiguous: a
 * Python number may take another code.  0 or -1. */
static int first_candidates(FunctionObject *fn, PyObject *const *args, Py_ssize_t nargs, const char **cand,
                            char (*ones)[2], char *fmt, int *ambiguous)
{
    *ambiguous = 0;
    for (Py_ssize_t i = 0; i < nargs; i++) {
        cand[i] = cpy_candidates(args[i], ones[i]);
        if (!cand[i])
            return -1; /* the exception a producer raised */
        if (!cand[i][0]) {
            int host = PyObject_CheckBuffer(args[i]) || PyObject_HasAttrString(args[i], "__array_interface__");
            PyErr_Clear();
            PyObject *type = cpy_type_name(args[i]);
            if (host)
                cpy_type_error("%U: argument %zd is a host array (%V) where device memory is needed: copy it to "
                               "the device (cudyn.gpuarray.to_gpu) or wrap it in cudyn.In/Out/InOut",
                               fn->name, i + 1, type, "?");
            else
                PyErr_Format(PyExc_TypeError, "%U: argument %zd: %V cannot be passed to a kernel", fn->name, i + 1,
                             type, "?");
            Py_XDECREF(type);
            return -1;
        }
        *ambiguous |= cand[i][1] != 0;
        fmt[i] = cand[i][0];
    }
    fmt[nargs] = 0;
    return 0;
}

/* Python numbers take the kernel's types: are they known?  0, or -1 with
 * the TypeError that says what to pass instead. */
static int number_types_known(FunctionObject *fn, PyObject *const *args, Py_ssize_t nargs, const char **cand)
{
    int count = described_count(fn->f);
    if (count == -2)
        return -1;
    for (Py_ssize_t i = 0; count == -1 && i < nargs; i++)
        if (cand[i][1]) {
            PyObject *type = cpy_type_name(args[i]);
            PyErr_Format(PyExc_TypeError,
                         "%U: argument %zd is a Python %V, but the kernel's parameter types are not known (no PTX, "
                         "or a driver before CUDA 12.4): pass a numpy scalar of the parameter's type, e.g. "
                         "numpy.int32(...) or numpy.float32(...)",
                         fn->name, i + 1, type, "?");
            Py_XDECREF(type);
            return -1;
        }
    return 0;
}

/* Raises the call's count mismatch as the caller sees it: the kernel's
 * parameter count and the arguments given, by their types ("scale takes
 * 3 arguments, 1 given (float32)"). */
static void miscounted(FunctionObject *fn, int count, PyObject *const *args, Py_ssize_t nargs)
{
    PyObject *names = PyList_New(0), *sep = PyUnicode_FromString(", "), *given = NULL;
    for (Py_ssize_t i = 0; names && i < nargs; i++) {
        PyObject *type = PyObject_Type(args[i]);
        PyObject *name = type ? PyType_GetName((PyTypeObject *)type) : NULL;
        Py_XDECREF(type);
        if (!name || PyList_Append(names, name) < 0)
            Py_CLEAR(names);
        Py_XDECREF(name);
    }
    if (names && sep)
        given = nargs ? PyUnicode_Join(sep, names) : PyUnicode_FromString("none");
    if (given)
        cpy_fail(CUDYN_ERROR_INVALID_LAUNCH_ARGUMENTS, "%U takes %d argument%s, %zd given (%U)", fn->name, count,
                 count == 1 ? "" : "s", nargs, given);
    Py_XDECREF(names);
    Py_XDECREF(sep);
    Py_XDECREF(given);
}

/* After a refused try: the argument whose next code to try (an int beyond
 * its code's range, or a parameter the check refused), or -1 to give up
 * with the exception set.  range_error marks ints refused for their
 * range. */
static int argument_to_retry(FunctionObject *fn, PyObject *const *args, Py_ssize_t nargs, const char **cand,
                             const int *pick, const struct call_state *cs, char *range_error)
{
    int idx = -1, count = 0;
    if (cs->pack_error >= 0 && PyLong_Check(args[cs->pack_error]) && PyErr_ExceptionMatches(PyExc_ValueError))
        idx = cs->pack_error;
    else if (cs->status == CUDYN_ERROR_INVALID_LAUNCH_ARGUMENTS)
        idx = named_parameter(&count);
    if (idx == -2) { /* the library's message names the format made of the arguments, which nobody wrote */
        PyErr_Clear();
        cudyn_clear_error();
        miscounted(fn, count, args, nargs);
        return -1;
    }
    if (idx < 0 || idx >= nargs)
        return -1;
    if (idx == cs->pack_error)
        range_error[idx] = 1;
    if (cand[idx][pick[idx] + 1])
        return idx;
    if (range_error[idx]) { /* the types that fit it were refused */
        PyErr_Clear();
        cudyn_clear_error();
        cpy_invalid("%U: argument %zd: the int %R fits no integer type the kernel's parameter %zd takes", fn->name,
                    (Py_ssize_t)idx + 1, args[idx], (Py_ssize_t)idx + 1);
    }
    return -1;
}

/* The first call with this many arguments: a layout from the arguments'
 * types, launched through a checking pack; where the check names a
 * parameter whose argument (a Python number) may take another code, the
 * next is tried (nothing ran).  The layout that launched is kept. */
static PyObject *first_call(FunctionObject *fn, PyObject *const *args, Py_ssize_t nargs, const struct launch_opts *o)
{
    if (nargs > CUDYN_MAX_ARGS)
        return cpy_invalid("%U: %zd arguments (at most %d)", fn->name, nargs, CUDYN_MAX_ARGS);
    const char *cand[CUDYN_MAX_ARGS];
    char ones[CUDYN_MAX_ARGS][2];
    int pick[CUDYN_MAX_ARGS] = {0};
    char fmt[CUDYN_MAX_ARGS + 1], range_error[CUDYN_MAX_ARGS] = {0};
    int ambiguous;
    if (first_candidates(fn, args, nargs, cand, ones, fmt, &ambiguous) < 0 ||
        (ambiguous && number_types_known(fn, args, nargs, cand) < 0))
        return NULL;
    int has_host_args = 0;
    for (Py_ssize_t i = 0; i < nargs; i++) {
        cudyn_arg_kind k = cpy_code(fmt[i])->kind;
        has_host_args |= k == CUDYN_ARG_IN || k == CUDYN_ARG_OUT || k == CUDYN_ARG_INOUT;
    }
    for (;;) {
        struct call_state cs = {1, CUDYN_OK, -1, -1};
        PyObject *r = cpy_pack_and_launch(fn, fmt, has_host_args, args, (int)nargs, o, &cs);
        if (r) {
            memcpy(fn->layout, fmt, (size_t)nargs + 1);
            fn->layout_n = (int)nargs;
            fn->has_host_args = has_host_args;
            return r;
        }
        int idx = argument_to_retry(fn, args, nargs, cand, pick, &cs, range_error);
        if (idx < 0)
            return NULL;
        PyErr_Clear();
        cudyn_clear_error();
        fmt[idx] = cand[idx][++pick[idx]];
    }
}

/* A call with the kept layout, or a first call where there is none or an
 * argument's type differs from it */
static PyObject *call(FunctionObject *fn, PyObject *const *args, Py_ssize_t n, const struct launch_opts *o)
{
    if (fn->layout_n != n)
        return first_call(fn, args, n, o);
    struct call_state cs = {0, CUDYN_OK, -1, -1};
    PyObject *r = cpy_pack_and_launch(fn, fn->layout, fn->has_host_args, args, (int)n, o, &cs);
    if (r || cs.unsuited < 0)
        return r;
    return first_call(fn, args, n, o);
}

/* f(*args, grid=, block=, shared=, stream=, time_kernel=): None, or with
 * time_kernel=True the kernel's time in seconds */
static PyObject *fn_vectorcall(PyObject *self, PyObject *const *args, size_t nargsf, PyObject *kwnames)
{
    FunctionObject *fn = (FunctionObject *)self;
    Py_ssize_t n = cpy_nargs(nargsf);
    struct launch_opts o = CPY_LAUNCH_DEFAULTS;
    PyObject *timer;
    if ((kwnames && cpy_launch_keywords(args + n, kwnames, &o, "Function.__call__") < 0) ||
        cpy_timer_start(&o, &timer) < 0)
        return NULL;
    return cpy_timer_finish(timer, call(fn, args, n, &o), &o);
}

/* the same call through tp_call, where the type has no vectorcall flag */
static PyObject *fn_tp_call(PyObject *self, PyObject *args, PyObject *kwargs)
{
    return cpy_call_vector(fn_vectorcall, self, args, kwargs);
}

PyObject *cpy_function_new(PyObject *module, int device, cudyn_function f, const char *name)
{
    FunctionObject *fn = (FunctionObject *)PyType_GenericAlloc(Function_Type, 0);
    if (!fn)
        return NULL;
    fn->vectorcall = fn_vectorcall;
    fn->f = f;
    Py_INCREF(module);
    fn->module = module;
    fn->device = device;
    fn->name = PyUnicode_FromString(name);
    fn->layout_n = -1;
    fn->prepared.n = -1;
    if (!fn->name) {
        Py_DECREF(fn);
        return NULL;
    }
    return (PyObject *)fn;
}

static void fn_dealloc(FunctionObject *fn)
{
    if (fn->weakrefs)
        PyObject_ClearWeakRefs((PyObject *)fn);
    Py_XDECREF(fn->module);
    Py_XDECREF(fn->name);
    cpy_free(fn);
}

static PyObject *fn_info(FunctionObject *fn, void *which)
{
    struct cudyn_function_info info = {.size = sizeof info};
    int st = cudyn_function_info(fn->f, &info);
    if (st != CUDYN_OK)
        return cpy_raise(st);
    switch ((intptr_t)which) {
    case 0: return PyLong_FromLong(info.num_registers);
    case 1: return PyLong_FromLong(info.shared_bytes);
    case 2: return PyLong_FromLong(info.max_threads_per_block);
    case 3: return PyLong_FromLong(info.local_bytes);
    case 4: return PyLong_FromLong(info.const_bytes);
    case 5: return PyLong_FromLong(info.ptx_version);
    default: return PyLong_FromLong(info.binary_version);
    }
}

static PyObject *fn_param_count(FunctionObject *fn, void *c)
{
    (void)c;
    int count = described_count(fn->f);
    if (count == -2)
        return NULL;
    if (count == -1)
        Py_RETURN_NONE;
    return PyLong_FromLong(count);
}

static PyObject *fn_handle(FunctionObject *fn, void *c)
{
    (void)c;
    return PyLong_FromVoidPtr(cudyn_function_native(fn->f));
}

static PyObject *fn_layout(FunctionObject *fn, void *c)
{
    (void)c;
    if (fn->layout_n < 0)
        Py_RETURN_NONE;
    return PyUnicode_FromString(fn->layout);
}

/* PyCUDA's prepared calls on the Function, with the format its last
 * prepare() recorded */
static PyObject *fn_prepared_call(FunctionObject *fn, PyObject *const *args, Py_ssize_t n, PyObject *kwnames)
{
    return cpy_prepared_call(fn, &fn->prepared, CPY_PREPARED_CALL, args, n, kwnames);
}

static PyObject *fn_prepared_async_call(FunctionObject *fn, PyObject *const *args, Py_ssize_t n,
                                        PyObject *kwnames)
{
    return cpy_prepared_call(fn, &fn->prepared, CPY_PREPARED_ASYNC_CALL, args, n, kwnames);
}

static PyObject *fn_prepared_timed_call(FunctionObject *fn, PyObject *const *args, Py_ssize_t n,
                                        PyObject *kwnames)
{
    return cpy_prepared_call(fn, &fn->prepared, CPY_PREPARED_TIMED_CALL, args, n, kwnames);
}

static PyObject *fn_repr(FunctionObject *fn) { return PyUnicode_FromFormat("<cudyn.Function %U>", fn->name); }

static PyGetSetDef fn_getset[] = {
    {"num_regs", (getter)fn_info, NULL, "registers per thread", (void *)0},
    {"shared_size_bytes", (getter)fn_info, NULL, "static shared memory in bytes", (void *)1},
    {"max_threads_per_block", (getter)fn_info, NULL, "the most threads a block may have", (void *)2},
    {"local_size_bytes", (getter)fn_info, NULL, "local memory per thread in bytes", (void *)3},
    {"const_size_bytes", (getter)fn_info, NULL, "constant memory in bytes", (void *)4},
    {"ptx_version", (getter)fn_info, NULL, "PTX ISA version (90 = 9.0)", (void *)5},
    {"binary_version", (getter)fn_info, NULL, "binary architecture (90 = sm_90)", (void *)6},
    {"param_count", (getter)fn_param_count, NULL, "the kernel's parameter count, or None where not known", NULL},
    {"handle", (getter)fn_handle, NULL, "the native CUfunction (int)", NULL},
    {"layout", (getter)fn_layout, NULL, "the launch format found at the first call, or None", NULL},
    {NULL},
};
static PyMemberDef fn_members[] = {
    {"name", T_OBJECT, offsetof(FunctionObject, name), READONLY, "the kernel's name"},
    {"module", T_OBJECT, offsetof(FunctionObject, module), READONLY, "the Module it comes from"},
    CPY_WEAKLIST(FunctionObject),
    CPY_VECTORCALL(FunctionObject),
    {NULL},
};
static PyMethodDef fn_methods[] = {
    {"prepare", CPY_KW(cpy_prepare), cpy_prepare_doc},
    {"prepared_call", (PyCFunction)(void (*)(void))fn_prepared_call, METH_FASTCALL | METH_KEYWORDS,
     CPY_SIG("prepared_call($self, grid, block, /, *args, " CPY_LAUNCH_KEYWORDS ")",
             "Launches with the format of the last prepare() (PyCUDA's).")},
    {"prepared_async_call", (PyCFunction)(void (*)(void))fn_prepared_async_call, METH_FASTCALL | METH_KEYWORDS,
     CPY_SIG("prepared_async_call($self, grid, block, stream, /, *args, " CPY_LAUNCH_KEYWORDS_BUT_STREAM ")",
             "As prepared_call, on stream.")},
    {"prepared_timed_call", (PyCFunction)(void (*)(void))fn_prepared_timed_call, METH_FASTCALL | METH_KEYWORDS,
     CPY_SIG("prepared_timed_call($self, grid, block, /, *args, " CPY_LAUNCH_KEYWORDS ")",
             "As prepared_call; returns a callable that waits for the kernel and gives its time in seconds.")},
    {NULL},
};

/* made with cpy_vectorcall_flag() added (init.c); no GC: the one
 * reference it holds is to its Module, which holds none */
static PyType_Slot fn_slots[] = {
    {Py_tp_doc, "A kernel: f(*args, grid=(1,1,1), block=(1,1,1), shared=0, stream=None, time_kernel=False) "
                "launches it; with time_kernel=True it waits and returns the kernel's time in seconds.  Arguments: "
                "device arrays (any __cuda_array_interface__ object), numpy scalars by their dtype, Python "
                "ints and floats where the kernel's types are known, In/Out/InOut host arrays, structured "
                "numpy scalars or bytes for structs by value, Textures."},
    {Py_tp_call, (void *)fn_tp_call},
    {Py_tp_dealloc, (void *)fn_dealloc},
    {Py_tp_repr, (void *)fn_repr},
    {Py_tp_methods, fn_methods},
    {Py_tp_members, fn_members},
    {Py_tp_getset, fn_getset},
    {0, NULL},
};
PyTypeObject *Function_Type;
const PyType_Spec Function_Spec = {"cudyn.Function", sizeof(FunctionObject), 0, CPY_TPFLAGS_NO_NEW, fn_slots};
