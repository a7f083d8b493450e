/* launch.c - Function (a kernel) and PreparedFunction.  A call packs its
 * arguments into a stack buffer and launches through cudyn_launch: the
 * kernel's parameter layout (one launch-format code per parameter) is
 * found at the first call from the arguments' types, confirmed by cudyn's
 * argument check (cudyn_args_create), and kept; later calls only pack.
 * Python ints and floats take the type the check finds for their
 * parameter; numpy scalars keep their dtype, so a mismatch is a TypeError
 * (LaunchArgumentError) naming the parameter. */
#include "cudyn_py.h"
#include <string.h>

#if PY_VERSION_HEX >= 0x03090000
#define CPY_HAVE_VECTORCALL Py_TPFLAGS_HAVE_VECTORCALL
#define CPY_VECTORCALL_NARGS PyVectorcall_NARGS
#else
#define CPY_HAVE_VECTORCALL _Py_TPFLAGS_HAVE_VECTORCALL
#define CPY_VECTORCALL_NARGS PyVectorcall_NARGS
#endif

/* a launch-format code's value size; 's' varies */
size_t cpy_code_size(char code)
{
    switch (code) {
    case '?': case 'b': case 'B': return 1;
    case 'h': case 'H': case 'e': return 2;
    case 'i': case 'I': case 'f': return 4;
    case 'q': case 'Q': case 'd': case 'F': case 'p': case 't': case 'u': case '<': case '>': case '=': return 8;
    case 'z': return sizeof(size_t);
    case 'D': return 16;
    default: return 0;
    }
}

/* ---------------------------------------------------------------- numpy scalars
 * Types seen before, with the code of their dtype.  `fast`: the value sits
 * right after the object header (numpy's scalar layout, checked against
 * the buffer protocol when the type is first seen). */
struct scalar_type {
    PyTypeObject *type;
    char code;
    char fast;
};
static struct scalar_type scalar_types[48];
static int n_scalar_types;

static char dtype_code(PyObject *dtype)
{
    PyObject *k = PyObject_GetAttrString(dtype, "kind");
    Py_ssize_t size = 0;
    char code = 0;
    if (!k)
        return 0;
    PyObject *s = PyObject_GetAttrString(dtype, "itemsize");
    if (s) {
        size = PyLong_AsSsize_t(s);
        Py_DECREF(s);
    }
    const char *kind = PyUnicode_Check(k) ? PyUnicode_AsUTF8(k) : NULL;
    if (kind) {
        switch (kind[0]) {
        case 'b': code = '?'; break;
        case 'i': code = size == 1 ? 'b' : size == 2 ? 'h' : size == 4 ? 'i' : size == 8 ? 'q' : 0; break;
        case 'u': code = size == 1 ? 'B' : size == 2 ? 'H' : size == 4 ? 'I' : size == 8 ? 'Q' : 0; break;
        case 'f': code = size == 2 ? 'e' : size == 4 ? 'f' : size == 8 ? 'd' : 0; break;
        case 'c': code = size == 8 ? 'F' : size == 16 ? 'D' : 0; break;
        case 'V': code = 's'; break;
        }
    }
    Py_DECREF(k);
    PyErr_Clear();
    return code;
}

/* the entry for obj's type if obj is a numpy scalar, else NULL */
static const struct scalar_type *scalar_type_of(PyObject *obj)
{
    PyTypeObject *t = Py_TYPE(obj);
    for (int i = 0; i < n_scalar_types; i++)
        if (scalar_types[i].type == t)
            return &scalar_types[i];
    /* not seen yet: a numpy.generic? (numpy is imported if such a thing exists) */
    PyObject *mods = PyImport_GetModuleDict();
    PyObject *np = mods ? PyDict_GetItemString(mods, "numpy") : NULL;
    if (!np || n_scalar_types == (int)(sizeof scalar_types / sizeof scalar_types[0]))
        return NULL;
    PyObject *generic = PyObject_GetAttrString(np, "generic");
    if (!generic) {
        PyErr_Clear();
        return NULL;
    }
    int is = PyObject_IsInstance(obj, generic);
    Py_DECREF(generic);
    if (is != 1) {
        PyErr_Clear();
        return NULL;
    }
    PyObject *dtype = PyObject_GetAttrString(obj, "dtype");
    if (!dtype) {
        PyErr_Clear();
        return NULL;
    }
    char code = dtype_code(dtype);
    Py_DECREF(dtype);
    if (!code)
        return NULL;
    char fast = 0;
    size_t size = cpy_code_size(code);
    Py_buffer view;
    if (code != 's' && PyObject_GetBuffer(obj, &view, PyBUF_SIMPLE) == 0) {
        fast = (size_t)view.len == size && memcmp(view.buf, (char *)obj + sizeof(PyObject), size) == 0;
        PyBuffer_Release(&view);
    }
    PyErr_Clear();
    Py_INCREF(t); /* kept for the table's lifetime */
    scalar_types[n_scalar_types] = (struct scalar_type){t, code, fast};
    return &scalar_types[n_scalar_types++];
}

/* ---------------------------------------------------------------- packing */
static int pack_int(char code, PyObject *obj, void *buf)
{
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(obj, &overflow);
    if (v == -1 && PyErr_Occurred())
        return -1;
    if (overflow > 0 && (code == 'Q' || code == 'z' || code == 'p' || code == 't' || code == 'u')) {
        unsigned long long u = PyLong_AsUnsignedLongLong(obj);
        if (u == (unsigned long long)-1 && PyErr_Occurred())
            return -1;
        memcpy(buf, &u, 8);
        return 0;
    }
    long long lo, hi;
    switch (code) {
    case '?': lo = 0; hi = 1; break;
    case 'b': lo = INT8_MIN; hi = INT8_MAX; break;
    case 'B': lo = 0; hi = UINT8_MAX; break;
    case 'h': lo = INT16_MIN; hi = INT16_MAX; break;
    case 'H': lo = 0; hi = UINT16_MAX; break;
    case 'i': lo = INT32_MIN; hi = INT32_MAX; break;
    case 'I': lo = 0; hi = UINT32_MAX; break;
    case 'q': lo = INT64_MIN; hi = INT64_MAX; break;
    default: lo = 0; hi = INT64_MAX; break; /* Q z p t u */
    }
    if (overflow || v < lo || v > hi) {
        cpy_invalid("the int %R does not fit the kernel's parameter ('%c')", obj, code);
        return -1;
    }
    switch (cpy_code_size(code)) {
    case 1: { int8_t x = (int8_t)v; memcpy(buf, &x, 1); break; }
    case 2: { int16_t x = (int16_t)v; memcpy(buf, &x, 2); break; }
    case 4: { int32_t x = (int32_t)v; memcpy(buf, &x, 4); break; }
    default: memcpy(buf, &v, 8); break;
    }
    return 0;
}

static int pack_double(char code, double d, void *buf)
{
    if (code == 'f') {
        float f = (float)d;
        memcpy(buf, &f, 4);
    } else if (code == 'd')
        memcpy(buf, &d, 8);
    else { /* 'e' */
#if PY_VERSION_HEX >= 0x030B0000
        if (PyFloat_Pack2(d, (char *)buf, 1) < 0)
#else
        if (_PyFloat_Pack2(d, (unsigned char *)buf, 1) < 0)
#endif
            return -1;
    }
    return 0;
}

int cpy_pack(char code, PyObject *obj, void *buf, size_t *size, int current_device)
{
    PyTypeObject *t = Py_TYPE(obj);
    *size = cpy_code_size(code);
    switch (code) {
    case 'p':
        if (t == &DeviceArray_Type || PyObject_TypeCheck(obj, &DeviceArray_Type)) {
            DeviceArrayObject *a = (DeviceArrayObject *)obj;
            if (current_device >= 0 && a->device != current_device && a->device >= 0) {
                cpy_invalid("an array of device %d was given to a kernel on device %d (copy it, or use the kernel "
                            "on its device)", a->device, current_device);
                return -1;
            }
            cudyn_devptr p;
            if (cpy_array_ptr(a, &p) < 0)
                return -1;
            memcpy(buf, &p, 8);
            return 0;
        }
        if (obj == Py_None) {
            memset(buf, 0, 8);
            return 0;
        }
        if (PyLong_CheckExact(obj) || t == &DeviceMemory_Type || PyObject_HasAttrString(obj, "__cuda_array_interface__")) {
            cudyn_devptr p;
            if (cpy_devptr(obj, &p, "kernel argument") < 0)
                return -1;
            memcpy(buf, &p, 8);
            return 0;
        }
        PyErr_Clear();
        break;
    case '<': case '>': case '=':
        return -1; /* the caller handles host buffers */
    case 's': {
        if (PyObject_TypeCheck(obj, &DeviceArray_Type) || PyLong_Check(obj) || PyFloat_Check(obj))
            return 1;
        Py_buffer view;
        if (PyObject_GetBuffer(obj, &view, PyBUF_SIMPLE) < 0) {
            PyErr_Clear();
            return 1;
        }
        if (view.len <= 0 || view.len > 4096) {
            PyBuffer_Release(&view);
            cpy_invalid("a struct argument of %zd bytes (1 .. 4096)", view.len);
            return -1;
        }
        memcpy(buf, view.buf, (size_t)view.len);
        *size = (size_t)view.len;
        PyBuffer_Release(&view);
        return 0;
    }
    case 't': case 'u':
        if (PyObject_TypeCheck(obj, &Texture_Type)) {
            memcpy(buf, &((TextureObject *)obj)->tex, 8);
            return 0;
        }
        break;
    default:
        break;
    }
    /* numbers: Python's own types first, then numpy scalars by their dtype */
    if (t == &PyLong_Type || t == &PyBool_Type) {
        if (code == '?' || code == 'b' || code == 'B' || code == 'h' || code == 'H' || code == 'i' || code == 'I' ||
            code == 'q' || code == 'Q' || code == 'z' || code == 'p' || code == 't' || code == 'u')
            return pack_int(code, obj, buf);
        if (code == 'f' || code == 'd' || code == 'e') {
            double d = PyLong_AsDouble(obj);
            return d == -1.0 && PyErr_Occurred() ? -1 : pack_double(code, d, buf);
        }
        return 1;
    }
    if (t == &PyFloat_Type) {
        if (code == 'f' || code == 'd' || code == 'e')
            return pack_double(code, PyFloat_AS_DOUBLE(obj), buf);
        return 1;
    }
    if (t == &PyComplex_Type) {
        Py_complex c = PyComplex_AsCComplex(obj);
        if (code == 'F') {
            float v[2] = {(float)c.real, (float)c.imag};
            memcpy(buf, v, 8);
            return 0;
        }
        if (code == 'D') {
            double v[2] = {c.real, c.imag};
            memcpy(buf, v, 16);
            return 0;
        }
        return 1;
    }
    const struct scalar_type *st = scalar_type_of(obj);
    if (st) {
        /* an unsigned 64-bit numpy integer may serve a pointer or size_t */
        int same = st->code == code || (code == 'p' && (st->code == 'Q' || st->code == 'q')) ||
                   (code == 'z' && st->code == (sizeof(size_t) == 8 ? 'Q' : 'I'));
        if (!same)
            return 1;
        if (st->fast) {
            memcpy(buf, (char *)obj + sizeof(PyObject), *size);
            return 0;
        }
        Py_buffer view;
        if (PyObject_GetBuffer(obj, &view, PyBUF_SIMPLE) < 0)
            return -1;
        int ok = (size_t)view.len == *size;
        if (ok)
            memcpy(buf, view.buf, *size);
        PyBuffer_Release(&view);
        return ok ? 0 : 1;
    }
    return 1;
}

/* What codes might suit an argument, in the order tried; "" for none. */
static const char *candidates(PyObject *obj, char *one)
{
    PyTypeObject *t = Py_TYPE(obj);
    one[1] = 0;
    if (t == &PyBool_Type)
        return "?iBq";
    if (t == &PyLong_Type)
        return "iqIQpzhHbB";
    if (t == &PyFloat_Type)
        return "fde";
    if (t == &PyComplex_Type)
        return "FD";
    if (PyObject_TypeCheck(obj, &DeviceArray_Type) || t == &DeviceMemory_Type || obj == Py_None)
        return "p";
    if (t == &In_Type || t == &Out_Type || t == &InOut_Type) {
        one[0] = ((HostArgObject *)obj)->code;
        return one;
    }
    if (PyObject_TypeCheck(obj, &Texture_Type))
        return "t";
    const struct scalar_type *st = scalar_type_of(obj);
    if (st) {
        one[0] = st->code;
        return one;
    }
    if (PyObject_HasAttrString(obj, "__cuda_array_interface__"))
        return "p";
    PyErr_Clear();
    if (PyBytes_Check(obj) || PyByteArray_Check(obj) || PyMemoryView_Check(obj))
        return "s";
    return "";
}

/* ---------------------------------------------------------------- Function */
typedef struct {
    PyObject_HEAD
    vectorcallfunc vectorcall;
    cudyn_function f;
    PyObject *module;
    PyObject *name;
    int layout_n; /* -1: not known yet */
    int has_host_args;
    char layout[CPY_MAX_PARAMS + 1];
    PyObject *weakrefs;
} FunctionObject;

struct launch_opts {
    cudyn_dim3 grid, block;
    unsigned int shared;
    cudyn_stream stream;
};

typedef struct {
    PyObject_HEAD
    vectorcallfunc vectorcall;
    FunctionObject *fn;
    int n;
    int checked; /* its first launch, through a checking pack, went ahead */
    char codes[CPY_MAX_PARAMS + 1];
    /* grid and block given to prepare(): a call takes only the kernel's
     * arguments and launches with these, parsing nothing else */
    int bound;
    struct launch_opts opts;
    PyObject *stream; /* the bound stream's object, kept alive; NULL for the default stream */
} PreparedObject;

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
    static const char *const formats[] = {"", "b"};
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
    /* "" passed: no parameters, or not described (then "b" passes too) */
    return verdict[1] ? 0 : -1;
}

/* What to launch with: the codes, their values and sizes */
struct call_state {
    int checking;   /* launch through a cudyn_args pack: checked before it runs */
    int status;     /* the cudyn status of a refused launch, else CUDYN_OK */
    int unsuited;   /* an argument the codes cannot take, else -1 */
    int pack_error; /* an argument whose packing raised, else -1 */
};

/* Launches argv, packed for codes (host buffers already replaced by their
 * device buffers' addresses).  A checking launch goes through a cudyn_args
 * pack, whose first launch checks the arguments against the kernel before
 * anything runs (CUDYN_ERROR_INVALID_LAUNCH_ARGUMENTS naming the
 * parameter); later calls with the same layout skip the check. */
static int launch_argv(cudyn_function f, const char *codes, void **argv, size_t *sizes, int n,
                       const struct launch_opts *o, struct call_state *cs)
{
    int st;
    if (!cs->checking)
        st = cudyn_launch(f, o->grid, o->block, o->shared, o->stream, argv);
    else {
        char fmt[CPY_MAX_PARAMS + 1];
        for (int i = 0; i < n; i++)
            fmt[i] = codes[i] == '<' || codes[i] == '>' || codes[i] == '=' ? 'p' : codes[i];
        fmt[n] = 0;
        cudyn_args *pack = NULL;
        st = cudyn_args_create(&pack, f, fmt);
        for (int i = 0; st == CUDYN_OK && i < n; i++)
            st = cudyn_args_set_value(pack, i, argv[i], sizes[i]);
        if (st == CUDYN_OK)
            st = cudyn_args_launch(pack, o->grid, o->block, o->shared, o->stream);
        cudyn_args_free(pack);
    }
    cs->status = st;
    return st;
}

/* launch keywords, interned once */
static PyObject *kw_grid, *kw_block, *kw_shared, *kw_stream, *kw_shared_size, *kw_time_kernel;

/* a keyword's name is nearly always the interned string itself: compare
 * identities with every name before comparing texts */
static int kw_is(PyObject *name, PyObject *interned)
{
    return name == interned ||
           (name != kw_grid && name != kw_block && name != kw_shared && name != kw_stream &&
            name != kw_shared_size && name != kw_time_kernel && PyUnicode_Compare(name, interned) == 0);
}

/* shared= (bytes of dynamic shared memory); 0 or -1 */
static int parse_shared(PyObject *v, unsigned int *out)
{
    unsigned long bytes = PyLong_AsUnsignedLong(v);
    if (bytes == (unsigned long)-1 && PyErr_Occurred())
        return -1;
    if (bytes > 0xffffffffUL) {
        cpy_invalid("shared: %lu bytes is too many", bytes);
        return -1;
    }
    *out = (unsigned int)bytes;
    return 0;
}

/* reads grid=, block=, shared=, stream= from the keywords; 0 or -1 */
static int parse_kw(PyObject *const *kwvalues, PyObject *kwnames, struct launch_opts *o, const char *who)
{
    Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
    for (Py_ssize_t i = 0; i < nkw; i++) {
        PyObject *k = PyTuple_GET_ITEM(kwnames, i), *v = kwvalues[i];
        if (kw_is(k, kw_grid)) {
            if (cpy_dim3(v, &o->grid, "grid") < 0)
                return -1;
        } else if (kw_is(k, kw_block)) {
            if (cpy_dim3(v, &o->block, "block") < 0)
                return -1;
        } else if (kw_is(k, kw_shared) || kw_is(k, kw_shared_size)) {
            if (parse_shared(v, &o->shared) < 0)
                return -1;
        } else if (kw_is(k, kw_stream)) {
            if (cpy_stream(v, &o->stream) < 0)
                return -1;
        } else if (kw_is(k, kw_time_kernel)) {
            /* accepted for PyCUDA's signature; timing is done with Events */
        } else {
            PyErr_Format(PyExc_TypeError, "%s got an unexpected keyword argument '%U'", who, k);
            return -1;
        }
    }
    return 0;
}

/* A launch with In/Out/InOut buffers: copied in, launched, copied back on
 * the stream, waited for (Ctrl-C answers), freed; nothing left on failure. */
static PyObject *launch_with_host_args(FunctionObject *fn, const char *codes, PyObject *const *args, int n,
                                       void **argv, size_t *sizes, const struct launch_opts *o, struct call_state *cs)
{
    Py_buffer views[CPY_MAX_PARAMS];
    cudyn_devptr dev[CPY_MAX_PARAMS];
    int have[CPY_MAX_PARAMS] = {0};
    PyObject *result = NULL;
    int st;
    for (int i = 0; i < n; i++) {
        char c = codes[i];
        if (c != '<' && c != '>' && c != '=')
            continue;
        PyObject *host = ((HostArgObject *)args[i])->array;
        int flags = (c == '<' ? PyBUF_SIMPLE : PyBUF_WRITABLE) | PyBUF_C_CONTIGUOUS;
        if (PyObject_GetBuffer(host, &views[i], flags) < 0) {
            PyErr_Clear();
            cpy_invalid("%U: argument %d (%s): the host array must be C-contiguous%s", fn->name, i + 1,
                        c == '<' ? "In" : c == '>' ? "Out" : "InOut", c == '<' ? "" : " and writable");
            goto done;
        }
        have[i] = 1;
        dev[i] = 0;
        size_t bytes = views[i].len ? (size_t)views[i].len : 1;
        CPY_NOGIL(st, cudyn_mem_alloc(&dev[i], bytes));
        if (st != CUDYN_OK) {
            cpy_raise(st);
            goto done;
        }
        have[i] = 2;
        if (c != '>' && views[i].len) {
            CPY_NOGIL(st, cudyn_memcpy_htod_async(dev[i], views[i].buf, (size_t)views[i].len, o->stream));
            if (st != CUDYN_OK) {
                cpy_raise(st);
                goto done;
            }
        }
        argv[i] = &dev[i];
    }
    st = launch_argv(fn->f, codes, argv, sizes, n, o, cs);
    if (st != CUDYN_OK) {
        cpy_raise(st);
        goto done;
    }
    for (int i = 0; i < n; i++)
        if (have[i] == 2 && codes[i] != '<' && views[i].len) {
            CPY_NOGIL(st, cudyn_memcpy_dtoh_async(views[i].buf, dev[i], (size_t)views[i].len, o->stream));
            if (st != CUDYN_OK) {
                cpy_raise(st);
                goto done;
            }
        }
    if (cpy_wait_stream(o->stream) < 0)
        goto done;
    result = Py_None;
    Py_INCREF(result);
done:
    if (!result) { /* the stream may still use the buffers: wait before freeing them */
        Py_BEGIN_ALLOW_THREADS
        cudyn_stream_synchronize(o->stream);
        Py_END_ALLOW_THREADS
    }
    for (int i = 0; i < n; i++) {
        if (have[i] == 2)
            cudyn_mem_free(dev[i]);
        if (have[i])
            PyBuffer_Release(&views[i]);
    }
    return result;
}

/* An argument refused as an invalid value (a number out of range, an array
 * of another device): its message names the kernel and the argument. */
static void name_the_argument(PyObject *kernel, int i)
{
    if (!cpy_invalid_pending())
        return;
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    PyObject *text = value ? PyObject_Str(value) : NULL;
    if (text)
        cpy_invalid("%U: argument %d: %U", kernel, i + 1, text);
    else
        PyErr_Restore(type, value, tb), type = value = tb = NULL;
    Py_XDECREF(text);
    Py_XDECREF(type);
    Py_XDECREF(value);
    Py_XDECREF(tb);
}

/* packs args by codes and launches */
static PyObject *pack_and_launch(FunctionObject *fn, const char *codes, int host_args, PyObject *const *args, int n,
                                 const struct launch_opts *o, struct call_state *cs)
{
    _Alignas(16) unsigned char arena[CPY_MAX_PARAMS * 16 + 4096];
    void *argv[CPY_MAX_PARAMS];
    size_t sizes[CPY_MAX_PARAMS];
    size_t used = 0;
    /* the kernel's device: its module's, known without a driver call */
    int dev = ((ModuleObject *)fn->module)->device;
    for (int i = 0; i < n; i++) {
        char c = codes[i];
        size_t size = 0;
        if (c == '<' || c == '>' || c == '=') {
            if (Py_TYPE(args[i]) != (c == '<' ? &In_Type : c == '>' ? &Out_Type : &InOut_Type)) {
                cs->unsuited = i;
                return NULL;
            }
            argv[i] = NULL; /* set to its device buffer by launch_with_host_args */
            sizes[i] = sizeof(cudyn_devptr);
            continue;
        }
        if (used + (c == 's' ? 4096 : 16) > sizeof arena) {
            cpy_invalid("%U: the arguments take more than %zu bytes", fn->name, sizeof arena);
            return NULL;
        }
        int rc = cpy_pack(c, args[i], arena + used, &size, dev);
        if (rc < 0) {
            cs->pack_error = i;
            name_the_argument(fn->name, i);
            return NULL;
        }
        if (rc > 0) {
            cs->unsuited = i;
            return NULL;
        }
        argv[i] = arena + used;
        sizes[i] = size;
        used += (size + 15) & ~(size_t)15;
    }
    if (host_args)
        return launch_with_host_args(fn, codes, args, n, argv, sizes, o, cs);
    int st = launch_argv(fn->f, codes, argv, sizes, n, o, cs);
    if (st != CUDYN_OK)
        return cpy_raise(st);
    Py_RETURN_NONE;
}

/* The first call with this many arguments: a layout from the arguments'
 * types, launched through a checking pack; where the check names a
 * parameter whose argument (a Python number) may take another code, the
 * next is tried (nothing ran).  The layout that launched is kept. */
static PyObject *first_call(FunctionObject *fn, PyObject *const *args, Py_ssize_t nargs, const struct launch_opts *o)
{
    if (nargs > CPY_MAX_PARAMS)
        return cpy_invalid("%U: %zd arguments (at most %d)", fn->name, nargs, CPY_MAX_PARAMS);
    const char *cand[CPY_MAX_PARAMS];
    char ones[CPY_MAX_PARAMS][2];
    int pick[CPY_MAX_PARAMS];
    char fmt[CPY_MAX_PARAMS + 1];
    int ambiguous = 0;
    for (Py_ssize_t i = 0; i < nargs; i++) {
        cand[i] = candidates(args[i], ones[i]);
        if (!cand[i][0]) {
            if (PyObject_CheckBuffer(args[i]) || PyObject_HasAttrString(args[i], "__array_interface__")) {
                PyErr_Clear();
                cpy_type_error("%U: argument %zd is a host array (%.100s) where device memory is needed: copy it to "
                               "the device (cudyn.gpuarray.to_gpu) or wrap it in cudyn.In/Out/InOut",
                               fn->name, i + 1, Py_TYPE(args[i])->tp_name);
            } else {
                PyErr_Clear();
                PyErr_Format(PyExc_TypeError, "%U: argument %zd: %.100s cannot be passed to a kernel", fn->name, i + 1,
                             Py_TYPE(args[i])->tp_name);
            }
            return NULL;
        }
        pick[i] = 0;
        ambiguous |= cand[i][1] != 0;
        fmt[i] = cand[i][0];
    }
    fmt[nargs] = 0;
    if (ambiguous) { /* Python numbers take the kernel's types: are they known? */
        int count = described_count(fn->f);
        if (count == -2)
            return NULL;
        if (count == -1)
            for (Py_ssize_t i = 0; i < nargs; i++)
                if (cand[i][1])
                    return PyErr_Format(PyExc_TypeError,
                                        "%U: argument %zd is a Python %.20s, but the kernel's parameter types are not "
                                        "known (no PTX, or a driver before CUDA 12.4): pass a numpy scalar of the "
                                        "parameter's type, e.g. numpy.int32(...) or numpy.float32(...)",
                                        fn->name, i + 1, Py_TYPE(args[i])->tp_name);
    }
    int has_host_args = strpbrk(fmt, "<>=") != NULL;
    char range_error[CPY_MAX_PARAMS] = {0};
    for (;;) {
        struct call_state cs = {1, CUDYN_OK, -1, -1};
        PyObject *r = pack_and_launch(fn, fmt, has_host_args, args, (int)nargs, o, &cs);
        if (r) {
            memcpy(fn->layout, fmt, (size_t)nargs + 1);
            fn->layout_n = (int)nargs;
            fn->has_host_args = has_host_args;
            return r;
        }
        /* a Python number that does not fit this code (an int beyond 32
         * bits), or a parameter the check refused: the next code, if any */
        int idx = -1, count = 0;
        if (cs.pack_error >= 0 && PyLong_Check(args[cs.pack_error]) && PyErr_ExceptionMatches(PyExc_ValueError))
            idx = cs.pack_error;
        else if (cs.status == CUDYN_ERROR_INVALID_LAUNCH_ARGUMENTS)
            idx = named_parameter(&count);
        if (idx < 0 || idx >= nargs)
            return NULL;
        if (idx == cs.pack_error)
            range_error[idx] = 1;
        if (!cand[idx][pick[idx] + 1]) {
            if (range_error[idx]) { /* the types that fit it were refused */
                PyErr_Clear();
                cudyn_clear_error();
                return cpy_invalid("%U: argument %zd: the int %R fits no integer type the kernel's parameter %zd "
                                   "takes",
                                   fn->name, (Py_ssize_t)idx + 1, args[idx], (Py_ssize_t)idx + 1);
            }
            return NULL;
        }
        PyErr_Clear();
        cudyn_clear_error();
        fmt[idx] = cand[idx][++pick[idx]];
    }
}


static PyObject *fn_vectorcall(PyObject *self, PyObject *const *args, size_t nargsf, PyObject *kwnames)
{
    FunctionObject *fn = (FunctionObject *)self;
    Py_ssize_t n = CPY_VECTORCALL_NARGS(nargsf);
    struct launch_opts o = {{1, 1, 1}, {1, 1, 1}, 0, NULL};
    if (kwnames && parse_kw(args + n, kwnames, &o, "Function.__call__") < 0)
        return NULL;
    if (fn->layout_n != n)
        return first_call(fn, args, n, &o);
    struct call_state cs = {0, CUDYN_OK, -1, -1};
    PyObject *r = pack_and_launch(fn, fn->layout, fn->has_host_args, args, (int)n, &o, &cs);
    if (r || cs.unsuited < 0)
        return r;
    /* an argument of another type than the kept layout's: a first call again */
    return first_call(fn, args, n, &o);
}

PyObject *cpy_function_new(PyObject *module, cudyn_function f, const char *name)
{
    FunctionObject *fn = PyObject_New(FunctionObject, &Function_Type);
    if (!fn)
        return NULL;
    fn->vectorcall = fn_vectorcall;
    fn->f = f;
    Py_INCREF(module);
    fn->module = module;
    fn->name = PyUnicode_FromString(name);
    fn->layout_n = -1;
    fn->has_host_args = 0;
    fn->layout[0] = 0;
    fn->weakrefs = NULL;
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
    PyObject_Free(fn);
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

static PyObject *fn_repr(FunctionObject *fn) { return PyUnicode_FromFormat("<cudyn.Function %U>", fn->name); }

/* prepare(fmt): fmt is a launch format ("PiF"; PyCUDA's 'P' for a
 * pointer, 'l'/'L' for 64-bit integers) or a sequence of numpy dtypes */
static int translate_format(PyObject *fmt, char *out, int *n)
{
    PyObject *s = NULL;
    if (PyUnicode_Check(fmt)) {
        s = fmt;
        Py_INCREF(s);
    } else {
        PyObject *seq = PySequence_Fast(fmt, "prepare: the format must be a str or a sequence of dtypes");
        if (!seq)
            return -1;
        Py_ssize_t k = PySequence_Fast_GET_SIZE(seq);
        s = PyUnicode_FromString("");
        for (Py_ssize_t i = 0; s && i < k; i++) {
            PyObject *dt = cpy_dtype(PySequence_Fast_GET_ITEM(seq, i)), *ch = NULL;
            if (dt)
                ch = PyObject_GetAttrString(dt, "char");
            Py_XDECREF(dt);
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
        if (!s)
            return -1;
    }
    const char *text = PyUnicode_AsUTF8(s);
    if (!text) {
        Py_DECREF(s);
        return -1;
    }
    int k = 0;
    for (const char *p = text; *p; p++) {
        char c = *p;
        if (c == ' ')
            continue;
        if (k == CPY_MAX_PARAMS) {
            Py_DECREF(s);
            cpy_invalid("prepare: more than %d parameters", CPY_MAX_PARAMS);
            return -1;
        }
        c = c == 'P' ? 'p' : c == 'l' ? 'q' : c == 'L' ? 'Q' : c == 'n' ? 'q' : c == 'N' ? 'z' : c;
        if (c == '<' || c == '>' || c == '=') {
            Py_DECREF(s);
            cpy_invalid("prepare: In/Out/InOut buffers ('%c') are for plain calls, not prepared ones", c);
            return -1;
        }
        out[k++] = c;
    }
    out[k] = 0;
    *n = k;
    Py_DECREF(s);
    return 0;
}

static PyObject *prepared_vectorcall(PyObject *self, PyObject *const *args, size_t nargsf, PyObject *kwnames);

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
    if (shared && parse_shared(shared, &p->opts.shared) < 0)
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

static PyObject *fn_prepare(FunctionObject *fn, PyObject *args, PyObject *kwds)
{
    static char *kw[] = {"arg_types", "texrefs", "grid", "block", "shared", "stream", NULL};
    PyObject *fmt, *texrefs = NULL, *grid = NULL, *block = NULL, *shared = NULL, *stream = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O|O$OOOO:prepare", kw, &fmt, &texrefs, &grid, &block, &shared,
                                     &stream))
        return NULL;
    PreparedObject *p = PyObject_New(PreparedObject, &PreparedFunction_Type);
    if (!p)
        return NULL;
    p->vectorcall = prepared_vectorcall;
    Py_INCREF(fn);
    p->fn = fn;
    p->bound = 0;
    p->opts = (struct launch_opts){{1, 1, 1}, {1, 1, 1}, 0, NULL};
    p->stream = NULL;
    if (bind_launch(p, grid, block, shared, stream) < 0 || translate_format(fmt, p->codes, &p->n) < 0) {
        Py_DECREF(p);
        return NULL;
    }
    p->checked = 0;
    /* a malformed format is refused now; the kernel checks it at the first call */
    cudyn_args *pack = NULL;
    int st = cudyn_args_create(&pack, fn->f, p->codes);
    cudyn_args_free(pack);
    if (st != CUDYN_OK) {
        Py_DECREF(p);
        return cpy_raise(st);
    }
    return (PyObject *)p;
}

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
    {NULL},
};
static PyMethodDef fn_methods[] = {
    {"prepare", (PyCFunction)(void (*)(void))fn_prepare, METH_VARARGS | METH_KEYWORDS,
     "prepare(arg_types, *, grid=None, block=None, shared=0, stream=None): a PreparedFunction for hot loops; "
     "arg_types is a launch format (\"PPi\", \"fppp\") or a sequence of numpy dtypes, checked against the kernel "
     "at its first call, before it runs.  Called as p(grid, block, *args) (PyCUDA's prepared_call); with grid= "
     "and block= given here, as p(*args), the launch configuration bound once (cuda.core's LaunchConfig)."},
    {NULL},
};

PyTypeObject Function_Type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "cudyn.Function",
    .tp_basicsize = sizeof(FunctionObject),
    .tp_dealloc = (destructor)fn_dealloc,
    .tp_vectorcall_offset = offsetof(FunctionObject, vectorcall),
    .tp_repr = (reprfunc)fn_repr,
    .tp_call = PyVectorcall_Call,
    .tp_flags = Py_TPFLAGS_DEFAULT | CPY_HAVE_VECTORCALL,
    .tp_doc = "A kernel: f(*args, grid=(1,1,1), block=(1,1,1), shared=0, stream=None) launches it.  Arguments: "
              "device arrays (any __cuda_array_interface__ object), numpy scalars by their dtype, Python "
              "ints and floats where the kernel's types are known, In/Out/InOut host arrays, structured "
              "numpy scalars or bytes for structs by value, Textures.",
    .tp_weaklistoffset = offsetof(FunctionObject, weakrefs),
    .tp_methods = fn_methods,
    .tp_members = fn_members,
    .tp_getset = fn_getset,
};

/* ---------------------------------------------------------------- prepared */
static PyObject *prepared_launch(PreparedObject *p, PyObject *const *args, Py_ssize_t n, struct launch_opts *o)
{
    if (n != p->n)
        return cpy_invalid("%U: the prepared format \"%s\" takes %d arguments, %zd given", p->fn->name, p->codes,
                           p->n, n);
    struct call_state cs = {!p->checked, CUDYN_OK, -1, -1};
    PyObject *r = pack_and_launch(p->fn, p->codes, 0, args, (int)n, o, &cs);
    if (r)
        p->checked = 1;
    else if (cs.unsuited >= 0)
        PyErr_Format(PyExc_TypeError, "%U: argument %d (%.100s) does not suit the prepared format's '%c'",
                     p->fn->name, cs.unsuited + 1, Py_TYPE(args[cs.unsuited])->tp_name, p->codes[cs.unsuited]);
    return r;
}

/* (grid, block, *args, shared=0, stream=None) */
static PyObject *call_with_geometry(PreparedObject *p, PyObject *const *args, size_t nargsf, PyObject *kwnames)
{
    Py_ssize_t n = CPY_VECTORCALL_NARGS(nargsf);
    struct launch_opts o = {{1, 1, 1}, {1, 1, 1}, 0, NULL};
    if (n < 2) {
        PyErr_SetString(PyExc_TypeError, "a prepared call takes (grid, block, *args, shared=0, stream=None)");
        return NULL;
    }
    if (cpy_dim3(args[0], &o.grid, "grid") < 0 || cpy_dim3(args[1], &o.block, "block") < 0)
        return NULL;
    if (kwnames && parse_kw(args + n, kwnames, &o, "prepared call") < 0)
        return NULL;
    return prepared_launch(p, args + 2, n - 2, &o);
}

/* bound: (*args) with prepare()'s geometry; else (grid, block, *args, ...) */
static PyObject *prepared_vectorcall(PyObject *self, PyObject *const *args, size_t nargsf, PyObject *kwnames)
{
    PreparedObject *p = (PreparedObject *)self;
    if (!p->bound)
        return call_with_geometry(p, args, nargsf, kwnames);
    if (kwnames && PyTuple_GET_SIZE(kwnames)) {
        PyErr_Format(PyExc_TypeError, "%U: this prepared call has its grid and block bound by prepare(): it takes "
                     "only the kernel's arguments (prepared_call(grid, block, ...) launches with others)",
                     p->fn->name);
        return NULL;
    }
    return prepared_launch(p, args, CPY_VECTORCALL_NARGS(nargsf), &p->opts);
}

static PyObject *prepared_call(PreparedObject *p, PyObject *const *args, Py_ssize_t n, PyObject *kwnames)
{
    return call_with_geometry(p, args, (size_t)n, kwnames);
}

/* PyCUDA's prepared_async_call(grid, block, stream, *args, shared_size=0) */
static PyObject *prepared_async_call(PreparedObject *p, PyObject *const *args, Py_ssize_t n, PyObject *kwnames)
{
    struct launch_opts o = {{1, 1, 1}, {1, 1, 1}, 0, NULL};
    if (n < 3) {
        PyErr_SetString(PyExc_TypeError, "prepared_async_call takes (grid, block, stream, *args, shared_size=0)");
        return NULL;
    }
    if (cpy_dim3(args[0], &o.grid, "grid") < 0 || cpy_dim3(args[1], &o.block, "block") < 0 ||
        cpy_stream(args[2], &o.stream) < 0)
        return NULL;
    if (kwnames && parse_kw(args + n, kwnames, &o, "prepared_async_call") < 0)
        return NULL;
    return prepared_launch(p, args + 3, n - 3, &o);
}

static void prepared_dealloc(PreparedObject *p)
{
    Py_XDECREF(p->fn);
    Py_XDECREF(p->stream);
    PyObject_Free(p);
}

static PyObject *prepared_format(PreparedObject *p, void *c)
{
    (void)c;
    return PyUnicode_FromString(p->codes);
}

static PyMethodDef prepared_methods[] = {
    {"prepared_call", (PyCFunction)(void (*)(void))prepared_call, METH_FASTCALL | METH_KEYWORDS,
     "prepared_call(grid, block, *args, shared=0, stream=None): the same as calling it."},
    {"prepared_async_call", (PyCFunction)(void (*)(void))prepared_async_call, METH_FASTCALL | METH_KEYWORDS,
     "prepared_async_call(grid, block, stream, *args, shared_size=0) (PyCUDA's order)."},
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
    {NULL},
};

PyTypeObject PreparedFunction_Type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "cudyn.PreparedFunction",
    .tp_basicsize = sizeof(PreparedObject),
    .tp_dealloc = (destructor)prepared_dealloc,
    .tp_vectorcall_offset = offsetof(PreparedObject, vectorcall),
    .tp_call = PyVectorcall_Call,
    .tp_flags = Py_TPFLAGS_DEFAULT | CPY_HAVE_VECTORCALL,
    .tp_doc = "A kernel with a fixed, checked argument format: p(grid, block, *args, shared=0, stream=None), or "
              "p(*args) when prepare() bound grid= and block= (and shared=, stream=).",
    .tp_methods = prepared_methods,
    .tp_members = prepared_members,
    .tp_getset = prepared_getset,
};

int cpy_launch_init(void);
int cpy_launch_init(void)
{
    return (kw_grid = PyUnicode_InternFromString("grid")) && (kw_block = PyUnicode_InternFromString("block")) &&
                   (kw_shared = PyUnicode_InternFromString("shared")) &&
                   (kw_stream = PyUnicode_InternFromString("stream")) &&
                   (kw_shared_size = PyUnicode_InternFromString("shared_size")) &&
                   (kw_time_kernel = PyUnicode_InternFromString("time_kernel"))
               ? 0
               : -1;
}
