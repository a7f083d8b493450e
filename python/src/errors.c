/* errors.c - cudyn's failures as Python exceptions.  Every class carries
 * all of cudyn_error: status, status_name, origin, native_code,
 * native_name, function, message, hint (str(e) is the message).  Text
 * from the library (messages, logs, paths) is decoded by cpy_text, which
 * never fails: bytes that are not UTF-8 (a message cut inside a
 * character, a path of another encoding) become backslash escapes. */
#include "cudyn_py.h"
#include <stdarg.h>

static PyObject *Error, *LoaderError, *InvalidArgument, *DeviceError, *OutOfMemory, *CompileError, *LaunchError,
    *LaunchArgumentError, *ForkedError;

/* status -> class: the one table (statuses not named here raise Error) */
#define CPY_ERROR_CLASS_MAP(X)                                                                                 \
    X(ERROR_DRIVER_NOT_FOUND, LoaderError)                                                                     \
    X(ERROR_STUB_DRIVER, LoaderError)                                                                          \
    X(ERROR_DRIVER_TOO_OLD, LoaderError)                                                                       \
    X(ERROR_NVRTC_NOT_FOUND, LoaderError)                                                                      \
    X(ERROR_SYMBOL_NOT_FOUND, LoaderError)                                                                     \
    X(ERROR_INVALID_ARGUMENT, InvalidArgument)                                                                 \
    X(ERROR_INVALID_DEVICE, DeviceError)                                                                       \
    X(ERROR_NO_DEVICE, DeviceError)                                                                            \
    X(ERROR_OUT_OF_MEMORY, OutOfMemory)                                                                        \
    X(ERROR_COMPILE, CompileError)                                                                             \
    X(ERROR_LAUNCH_FAILED, LaunchError)                                                                        \
    X(ERROR_ILLEGAL_ADDRESS, LaunchError)                                                                      \
    X(ERROR_LAUNCH_TIMEOUT, LaunchError)                                                                       \
    X(ERROR_LAUNCH_OUT_OF_RESOURCES, LaunchError)                                                              \
    X(ERROR_ILLEGAL_INSTRUCTION, LaunchError)                                                                  \
    X(ERROR_ASSERT, LaunchError)                                                                               \
    X(ERROR_INVALID_LAUNCH_ARGUMENTS, LaunchArgumentError)                                                     \
    X(ERROR_FORKED, ForkedError)

static PyObject *class_for(int status)
{
    switch (status) {
#define CPY_ERROR_CASE_(name, cls)                                                                             \
    case CUDYN_##name:                                                                                         \
        return cls;
        CPY_ERROR_CLASS_MAP(CPY_ERROR_CASE_)
#undef CPY_ERROR_CASE_
    default:
        return Error;
    }
}

/* origin -> name: the one table (Error.origin, last_error()["origin"]);
 * each row is tied to cudyn.h's enumerator, so a renumbering cannot
 * shift the names, and an origin appended there without a row here is
 * "unknown" until it gets one */
static const char *const origin_names[] = {
    [CUDYN_ORIGIN_NONE] = "none",     [CUDYN_ORIGIN_LIBRARY] = "library", [CUDYN_ORIGIN_LOADER] = "loader",
    [CUDYN_ORIGIN_DRIVER] = "driver", [CUDYN_ORIGIN_NVRTC] = "nvrtc",     [CUDYN_ORIGIN_SYSTEM] = "system",
    [CUDYN_ORIGIN_NVML] = "nvml",     [CUDYN_ORIGIN_NCCL] = "nccl",       [CUDYN_ORIGIN_NVJITLINK] = "nvjitlink",
};

const char *cpy_origin_name(int origin)
{
    const char *name = origin >= 0 && origin < (int)(sizeof origin_names / sizeof origin_names[0])
                           ? origin_names[origin]
                           : NULL;
    return name ? name : "unknown";
}

PyObject *cpy_text(const char *s)
{
    if (!s)
        Py_RETURN_NONE;
    return PyUnicode_DecodeUTF8(s, (Py_ssize_t)strlen(s), "backslashreplace");
}

/* A message or hint of the library, for a Python user: where it sends the
 * reader to cudainfo (CUDYN_EXPLAIN_COMMAND), which a wheel does not
 * install, it names the module's own command, which every installation
 * of the module has. */
static PyObject *text_for_python(const char *s)
{
    PyObject *text = cpy_text(s);
    if (!text || !s || !strstr(s, CUDYN_EXPLAIN_COMMAND))
        return text;
    PyObject *from = PyUnicode_FromString(CUDYN_EXPLAIN_COMMAND), *to = PyUnicode_FromString(CPY_EXPLAIN_COMMAND);
    PyObject *named = from && to ? PyUnicode_Replace(text, from, to, -1) : NULL;
    Py_XDECREF(from);
    Py_XDECREF(to);
    Py_DECREF(text);
    return named;
}

static int set_str(PyObject *e, const char *name, const char *value)
{
    PyObject *v = text_for_python(value);
    if (!v)
        return -1;
    int rc = PyObject_SetAttrString(e, name, v);
    Py_DECREF(v);
    return rc;
}

static int set_int(PyObject *e, const char *name, long value)
{
    PyObject *v = PyLong_FromLong(value);
    if (!v)
        return -1;
    int rc = PyObject_SetAttrString(e, name, v);
    Py_DECREF(v);
    return rc;
}

/* raises cls with the fields of err */
static PyObject *raise_error(PyObject *cls, const cudyn_error *err)
{
    PyObject *text = text_for_python(err->message);
    PyObject *e = text ? PyObject_CallFunctionObjArgs(cls, text, NULL) : NULL;
    Py_XDECREF(text);
    if (!e)
        return NULL;
    if (set_int(e, "status", err->status) < 0 || set_str(e, "status_name", cudyn_status_name(err->status)) < 0 ||
        set_str(e, "origin", cpy_origin_name(err->origin)) < 0 || set_int(e, "native_code", err->native_code) < 0 ||
        set_str(e, "native_name", err->native_name) < 0 || set_str(e, "function", err->function) < 0 ||
        set_str(e, "message", err->message) < 0 || set_str(e, "hint", err->hint) < 0 ||
        (cls == CompileError && PyObject_SetAttrString(e, "log", Py_None) < 0)) {
        Py_DECREF(e);
        return NULL;
    }
    PyErr_SetObject(cls, e);
    Py_DECREF(e);
    return NULL;
}

PyObject *cpy_raise(int status)
{
    cudyn_error err = {.size = sizeof err};
    if (cudyn_last_error(&err) != status || err.status != status) {
        /* no detail recorded for this status (NOT_READY, say): its text */
        err.status = status;
        err.origin = CUDYN_ORIGIN_LIBRARY;
        err.native_code = 0;
        err.native_name[0] = err.function[0] = err.hint[0] = 0;
        snprintf(err.message, sizeof err.message, "%s", cudyn_status_string(status));
    }
    return raise_error(class_for(status), &err);
}

/* e's message with the log after it, as PyCUDA shows a compile's */
static void message_with_log(PyObject *e, PyObject *log)
{
    PyObject *msg = PyObject_GetAttrString(e, "message");
    PyObject *full = msg ? PyUnicode_FromFormat("%U\n%U", msg, log) : NULL;
    PyObject *args = full ? PyTuple_Pack(1, full) : NULL;
    if (args)
        PyObject_SetAttrString(e, "args", args);
    Py_XDECREF(args);
    Py_XDECREF(full);
    Py_XDECREF(msg);
}

PyObject *cpy_raise_with_log(int status, const char *log)
{
    cpy_raise(status);
    if (!log || !log[0])
        return NULL;
    PyObject *t, *v, *tb;
    PyErr_Fetch(&t, &v, &tb);
    PyErr_NormalizeException(&t, &v, &tb);
    PyObject *text = cpy_text(log);
    if (text && v && PyObject_SetAttrString(v, "log", text) == 0 && status == CUDYN_ERROR_COMPILE)
        message_with_log(v, text);
    Py_XDECREF(text);
    PyErr_Clear(); /* a failure above leaves the exception as cpy_raise made it */
    PyErr_Restore(t, v, tb);
    return NULL;
}

PyObject *cpy_result(int status)
{
    if (status != CUDYN_OK)
        return cpy_raise(status);
    Py_RETURN_NONE;
}

/* our own message (PyUnicode_FromFormat's conversions: %U, %R, %zd ...) */
static PyObject *raise_ours(PyObject *cls, int status, const char *fmt, va_list ap)
{
    cudyn_error err = {.size = sizeof err, .status = status, .origin = CUDYN_ORIGIN_LIBRARY};
    PyObject *msg = PyUnicode_FromFormatV(fmt, ap);
    if (!msg)
        return NULL;
    /* an object's str() may hold lone surrogates: escaped, never lost */
    PyObject *bytes = PyUnicode_AsEncodedString(msg, "utf-8", "backslashreplace");
    const char *text = bytes ? PyBytes_AsString(bytes) : NULL;
    snprintf(err.message, sizeof err.message, "%s", text ? text : "");
    Py_XDECREF(bytes);
    Py_DECREF(msg);
    PyErr_Clear();
    snprintf(err.function, sizeof err.function, "cudyn._cudyn");
    return raise_error(cls, &err);
}

PyObject *cpy_invalid(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    PyObject *r = raise_ours(InvalidArgument, CUDYN_ERROR_INVALID_ARGUMENT, fmt, ap);
    va_end(ap);
    return r;
}

int cpy_invalid_pending(void)
{
    return InvalidArgument && PyErr_ExceptionMatches(InvalidArgument);
}

PyObject *cpy_fail(int status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    PyObject *r = raise_ours(class_for(status), status, fmt, ap);
    va_end(ap);
    return r;
}

PyObject *cpy_type_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    PyObject *r = raise_ours(LaunchArgumentError, CUDYN_ERROR_INVALID_LAUNCH_ARGUMENTS, fmt, ap);
    va_end(ap);
    return r;
}

PyObject *cpy_type_name(PyObject *obj)
{
    PyObject *type = (PyObject *)Py_TYPE(obj), *saved_type, *saved_value, *saved_tb;
    PyErr_Fetch(&saved_type, &saved_value, &saved_tb);
    PyObject *module = PyObject_GetAttrString(type, "__module__");
    PyObject *qualname = PyType_GetQualName(Py_TYPE(obj)), *name = NULL;
    if (qualname && module && PyUnicode_Check(module) && PyUnicode_CompareWithASCIIString(module, "builtins") != 0)
        name = PyUnicode_FromFormat("%U.%U", module, qualname);
    else if (qualname) {
        name = qualname;
        Py_INCREF(name);
    }
    Py_XDECREF(module);
    Py_XDECREF(qualname);
    PyErr_Clear();
    PyErr_Restore(saved_type, saved_value, saved_tb);
    return name;
}

/* Error.__str__ is the message (args[0]); the attributes default to None
 * for an Error made in Python */
static PyObject *make_class(PyObject *module, const char *name, PyObject *bases, const char *doc)
{
    char full[128];
    snprintf(full, sizeof full, "cudyn.%s", name);
    PyObject *cls = PyErr_NewExceptionWithDoc(full, doc, bases, NULL);
    if (!cls)
        return NULL;
    static const char *const fields[] = {"status", "status_name", "origin", "native_code", "native_name",
                                         "function", "message", "hint"};
    if (bases == NULL) /* the root class: defaults */
        for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++)
            if (PyObject_SetAttrString(cls, fields[i], Py_None) < 0)
                return NULL;
    if (PyModule_AddObject(module, name, cls) < 0)
        return NULL;
    Py_INCREF(cls); /* the module's reference and ours */
    return cls;
}

static PyObject *with(PyObject *a, PyObject *b)
{
    return b ? PyTuple_Pack(2, a, b) : PyTuple_Pack(1, a);
}

int cpy_errors_init(PyObject *module)
{
    PyObject *b;
    if (!(Error = make_class(module, "Error", NULL,
                             "A cudyn failure: status, status_name, origin, native_code, native_name, function, "
                             "message and hint are those of cudyn_error; str(e) is the message.")))
        return -1;
#define CPY_SUB_(var, name, other, doc)                                                                         \
    if (!(b = with(Error, other)))                                                                             \
        return -1;                                                                                             \
    var = make_class(module, name, b, doc);                                                                    \
    Py_DECREF(b);                                                                                              \
    if (!var)                                                                                                  \
        return -1;
    CPY_SUB_(LoaderError, "LoaderError", NULL, "The driver or NVRTC was not found, is a stub, too old, or lacks a function.")
    CPY_SUB_(InvalidArgument, "InvalidArgument", PyExc_ValueError, "An argument is invalid.")
    CPY_SUB_(DeviceError, "DeviceError", NULL, "No such device, or no device at all.")
    CPY_SUB_(OutOfMemory, "OutOfMemory", PyExc_MemoryError, "The device (or host) is out of memory.")
    CPY_SUB_(CompileError, "CompileError", NULL, "A kernel failed to compile; `log` is NVRTC's log.")
    CPY_SUB_(LaunchError, "LaunchError", NULL, "A kernel launch or its execution failed.")
    CPY_SUB_(LaunchArgumentError, "LaunchArgumentError", PyExc_TypeError,
             "The arguments do not match the kernel's parameters (also a TypeError).")
    CPY_SUB_(ForkedError, "ForkedError", NULL, "CUDA was initialised before fork(): the child cannot use it.")
#undef CPY_SUB_
    return 0;
}
