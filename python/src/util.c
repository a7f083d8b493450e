/* util.c - what every part uses that names none of the module's types:
 * making a heap type and calling it (the limited API's ways),
 * conversions (dim3, sizes, the current device, numpy imported lazily),
 * and waiting that answers Ctrl-C.  The conversions of device addresses
 * (array.c) and streams (streams.c) live with their types. */
#include "cudyn_py.h"
#include <limits.h>
#include <string.h>
#include <time.h>

/* ---- types and calls under the limited API (cudyn_py.h) */
int cpy_type_new(PyObject *module, PyTypeObject **type, const PyType_Spec *spec, unsigned long flags,
                 const char *name)
{
    PyType_Spec with_flags = *spec;
    with_flags.flags |= (unsigned int)flags;
    PyObject *made = PyType_FromSpec(&with_flags);
    if (!made)
        return -1;
    if (!name)
        name = strrchr(spec->name, '.') + 1;
    *type = (PyTypeObject *)made; /* the module's lifetime: never given back */
    Py_INCREF(made);
    if (PyModule_AddObject(module, name, made) < 0) {
        Py_DECREF(made);
        return -1;
    }
    return 0;
}

unsigned long cpy_vectorcall_flag(void)
{
#ifdef Py_LIMITED_API
    return Py_Version >= 0x030C0000 ? CPY_TPFLAGS_HAVE_VECTORCALL : 0;
#else
    return CPY_TPFLAGS_HAVE_VECTORCALL;
#endif
}

/* the arguments a tp_call turns into a vector without allocating */
#define CPY_CALL_STACK 16

/* cpy_call_vector with the dict's items: keys as kwnames, values after
 * the positional ones in vector (room for them all) */
static PyObject *call_with_keywords(cpy_vectorcallfunc call, PyObject *self, PyObject **vector, Py_ssize_t n,
                                    PyObject *kwargs)
{
    Py_ssize_t nkw = PyDict_Size(kwargs), pos = 0, i = 0;
    PyObject *kwnames = PyTuple_New(nkw), *key, *value;
    if (!kwnames)
        return NULL;
    while (i < nkw && PyDict_Next(kwargs, &pos, &key, &value)) {
        Py_INCREF(key);
        PyTuple_SetItem(kwnames, i, key);
        vector[n + i++] = value;
    }
    PyObject *r = call(self, vector, (size_t)n, kwnames);
    Py_DECREF(kwnames);
    return r;
}

PyObject *cpy_call_vector(cpy_vectorcallfunc call, PyObject *self, PyObject *args, PyObject *kwargs)
{
    Py_ssize_t n = PyTuple_Size(args), nkw = kwargs ? PyDict_Size(kwargs) : 0;
    PyObject *stack[CPY_CALL_STACK], **vector = stack, *r;
    if (n < 0 || nkw < 0)
        return NULL;
    if (n + nkw > CPY_CALL_STACK && !(vector = PyMem_Malloc((size_t)(n + nkw) * sizeof *vector)))
        return PyErr_NoMemory();
    for (Py_ssize_t i = 0; i < n; i++)
        vector[i] = PyTuple_GetItem(args, i); /* borrowed: the tuple holds them during the call */
    if (nkw)
        r = call_with_keywords(call, self, vector, n, kwargs);
    else
        r = call(self, vector, (size_t)n, NULL);
    if (vector != stack)
        PyMem_Free(vector);
    return r;
}

PyObject *cpy_tuple(PyObject *obj, const char *message)
{
    PyObject *t = PySequence_Tuple(obj);
    if (!t && PyErr_ExceptionMatches(PyExc_TypeError)) {
        PyErr_Clear();
        PyErr_SetString(PyExc_TypeError, message);
    }
    return t;
}

/* ---- conversions */
PyObject *cpy_numpy(void)
{
    static PyObject *numpy;
    if (!numpy)
        numpy = PyImport_ImportModule("numpy");
    return numpy;
}

PyObject *cpy_dtype(PyObject *obj)
{
    PyObject *np = cpy_numpy();
    if (!np)
        return NULL;
    return PyObject_CallMethod(np, "dtype", "O", obj);
}

/* a bound as people write it: 2**63-1, -2**63 for the large powers of two */
static void bound_text(char *buf, size_t size, unsigned long long magnitude, int negative)
{
    int bits = 0;
    while (bits < 64 && (magnitude >> bits) > 1)
        bits++;
    if (negative && magnitude >= 65536 && magnitude == 1ULL << bits)
        snprintf(buf, size, "-2**%d", bits);
    else if (!negative && magnitude >= 65535 && (magnitude == ~0ULL || (magnitude + 1) == 1ULL << (bits + 1)))
        snprintf(buf, size, "2**%d-1", bits + 1);
    else
        snprintf(buf, size, "%s%llu", negative ? "-" : "", magnitude);
}

static int out_of_range(PyObject *n, const char *what, long long min, unsigned long long max)
{
    char lo[32], hi[32];
    bound_text(lo, sizeof lo, min < 0 ? 0ULL - (unsigned long long)min : (unsigned long long)min, min < 0);
    bound_text(hi, sizeof hi, max, 0);
    cpy_invalid("%s must be %s .. %s, not %R", what, lo, hi, n);
    return -1;
}

int cpy_integer(PyObject *obj, const char *what, long long min, unsigned long long max, unsigned long long *out)
{
    PyObject *n = obj;
    if (PyLong_CheckExact(obj)) /* the common case, without the calls that find it an integer */
        Py_INCREF(n);
    else if (!PyIndex_Check(obj)) {
        PyObject *type = cpy_type_name(obj);
        PyErr_Format(PyExc_TypeError, "%s must be an int, not %V", what, type, "?");
        Py_XDECREF(type);
        return -1;
    } else if (!(n = PyNumber_Index(obj)))
        return -1;
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(n, &overflow);
    unsigned long long u = (unsigned long long)v;
    if (v == -1 && !overflow && PyErr_Occurred()) {
        Py_DECREF(n);
        return -1;
    }
    if (overflow > 0) { /* above 2**63-1: maybe still an unsigned 64-bit value */
        u = PyLong_AsUnsignedLongLong(n);
        if (u == ~0ULL && PyErr_Occurred()) {
            PyErr_Clear();
            overflow = 2;
        }
    }
    int fits = overflow == 0 ? v >= min && (v < 0 || u <= max) : overflow == 1 && u <= max;
    int rc = fits ? 0 : out_of_range(n, what, min, max);
    Py_DECREF(n);
    if (fits)
        *out = u;
    return rc;
}

int cpy_size(PyObject *obj, size_t *out, const char *what)
{
    unsigned long long v;
    if (cpy_integer(obj, what, 0, SIZE_MAX, &v) < 0)
        return -1;
    *out = (size_t)v;
    return 0;
}

int cpy_ssize(PyObject *obj, Py_ssize_t *out, const char *what, Py_ssize_t min)
{
    unsigned long long v;
    if (cpy_integer(obj, what, min, PY_SSIZE_T_MAX, &v) < 0)
        return -1;
    *out = (Py_ssize_t)(long long)v;
    return 0;
}

int cpy_flags(PyObject *obj, void *out)
{
    unsigned long long v;
    if (cpy_integer(obj, "flags", 0, UINT_MAX, &v) < 0)
        return 0;
    *(unsigned int *)out = (unsigned int)v;
    return 1;
}

int cpy_int(PyObject *obj, int *out, const char *what, int min, int max)
{
    unsigned long long v;
    if (cpy_integer(obj, what, min, (unsigned long long)max, &v) < 0)
        return -1;
    *out = (int)(long long)v;
    return 0;
}

/* ---- the dtype rule: what the device can hold */
static int holdable(PyObject *dtype, int depth)
{
    PyObject *kind = PyObject_GetAttrString(dtype, "kind");
    const char *k = kind ? PyUnicode_AsUTF8AndSize(kind, NULL) : NULL;
    int ok = k && k[0] && strchr("biufc", k[0]) != NULL;
    Py_XDECREF(kind);
    if (!k)
        return -1;
    if (ok || k[0] != 'V' || depth > 32)
        return ok;
    /* a record (its fields' dtypes) or a fixed block of one dtype (its base) */
    PyObject *names = PyObject_GetAttrString(dtype, "names"), *fields = PyObject_GetAttrString(dtype, "fields"),
             *subdtype = PyObject_GetAttrString(dtype, "subdtype");
    if (!names || !fields || !subdtype)
        ok = -1;
    else if (subdtype != Py_None) {
        PyObject *base = PyTuple_Check(subdtype) ? PyTuple_GetItem(subdtype, 0) : NULL;
        ok = base ? holdable(base, depth + 1) : -1;
    } else if (PyTuple_Check(names) && PyTuple_Size(names) > 0) {
        ok = 1;
        for (Py_ssize_t i = 0; ok == 1 && i < PyTuple_Size(names); i++) {
            PyObject *field = PyObject_GetItem(fields, PyTuple_GetItem(names, i)); /* (dtype, offset[, title]) */
            ok = field && PyTuple_Check(field) && PyTuple_Size(field) >= 2
                     ? holdable(PyTuple_GetItem(field, 0), depth + 1)
                     : -1;
            Py_XDECREF(field);
        }
    }
    Py_XDECREF(names);
    Py_XDECREF(fields);
    Py_XDECREF(subdtype);
    return ok;
}

/* The dtypes the rule has let in, held: every array (a view too) asks
 * the rule, and numpy hands out the same few dtype objects again and
 * again, so one pointer comparison answers most asks.  The GIL guards it. */
static PyObject *held_dtypes[8];
static unsigned next_held;

PyObject *cpy_device_dtype(PyObject *obj, const char *what)
{
    for (size_t i = 0; i < sizeof held_dtypes / sizeof held_dtypes[0]; i++)
        if (held_dtypes[i] == obj) {
            Py_INCREF(obj);
            return obj;
        }
    PyObject *dtype = cpy_dtype(obj);
    if (!dtype)
        return NULL;
    int ok = holdable(dtype, 0);
    if (ok == 1 && dtype == obj) {
        PyObject **slot = &held_dtypes[next_held++ % (sizeof held_dtypes / sizeof held_dtypes[0])], *old = *slot;
        Py_INCREF(dtype);
        *slot = dtype;
        Py_XDECREF(old);
    }
    if (ok == 1)
        return dtype;
    if (ok == 0)
        PyErr_Format(PyExc_TypeError,
                     "%s: the dtype %R cannot live in device memory (numbers, bool, complex and records of them "
                     "can; objects, strings, dates and raw bytes cannot)",
                     what, dtype);
    Py_DECREF(dtype);
    return NULL;
}

/* Whether a buffer's struct-module format holds Python objects ('O'
 * outside the ":name:" of a field). */
static int format_holds_objects(const char *format)
{
    for (const char *p = format; p && *p; p++) {
        if (*p == ':') {
            p = strchr(p + 1, ':');
            if (!p)
                return 0;
        } else if (*p == 'O') {
            return 1;
        }
    }
    return 0;
}

int cpy_host_buffer(PyObject *obj, Py_buffer *view, int flags, const char *what)
{
    PyObject *dtype = PyObject_GetAttrString(obj, "dtype"), *held;
    if (dtype) {
        held = cpy_device_dtype(dtype, what); /* an object array's bytes are pointers */
        Py_DECREF(dtype);
        if (!held)
            return -1;
        Py_DECREF(held);
    } else if (PyErr_ExceptionMatches(PyExc_AttributeError)) {
        PyErr_Clear(); /* a buffer without a dtype: its format tells */
    } else {
        return -1;
    }
    if (PyObject_GetBuffer(obj, view, flags | PyBUF_FORMAT) == 0) {
        if (!format_holds_objects(view->format))
            return 0;
        PyErr_Format(PyExc_TypeError, "%s: the host buffer holds Python objects (format '%s'), whose bytes are "
                     "pointers: device memory holds numbers, bool, complex and records of them", what, view->format);
        PyBuffer_Release(view);
        return -1;
    }
    PyErr_Clear(); /* no format to give (numpy's dates): the dtype rule has spoken */
    if (PyObject_GetBuffer(obj, view, flags) == 0)
        return 0;
    PyErr_Clear();
    return -2;
}

const char *cpy_utf8(PyObject *obj, const char *what)
{
    Py_ssize_t n;
    if (!PyUnicode_Check(obj)) {
        PyObject *type = cpy_type_name(obj);
        PyErr_Format(PyExc_TypeError, "%s must be a str, not %V", what, type, "?");
        Py_XDECREF(type);
        return NULL;
    }
    const char *s = PyUnicode_AsUTF8AndSize(obj, &n);
    if (s && (size_t)n != strlen(s)) {
        cpy_invalid("%s must not hold a NUL character (C would end the text there), not %R", what, obj);
        return NULL;
    }
    return s;
}

int cpy_str_array(PyObject *seq_obj, const char *lead, const char ***out, int *n, PyObject *keep, const char *what)
{
    *out = NULL;
    *n = 0;
    if (!seq_obj)
        seq_obj = Py_None;
    if (seq_obj == Py_None && !lead)
        return 0;
    if (PyUnicode_Check(seq_obj)) {
        PyErr_Format(PyExc_TypeError, "%s must be a sequence of str, not a str", what);
        return -1;
    }
    PyObject *seq = seq_obj == Py_None ? PyTuple_New(0) : cpy_tuple(seq_obj, what);
    if (!seq)
        return -1;
    int first = lead ? 1 : 0;
    Py_ssize_t k = PyTuple_Size(seq);
    const char **arr = k < INT_MAX - first ? PyMem_Calloc((size_t)(k + first) + 1, sizeof *arr) : NULL;
    if (!arr || PyList_Append(keep, seq) < 0) {
        PyMem_Free(arr);
        Py_DECREF(seq);
        if (!PyErr_Occurred())
            PyErr_NoMemory();
        return -1;
    }
    Py_DECREF(seq); /* `keep` holds it */
    arr[0] = lead;
    for (Py_ssize_t i = 0; i < k; i++) {
        char item_what[96];
        snprintf(item_what, sizeof item_what, "%s: item %zd", what, i);
        if (!(arr[first + i] = cpy_utf8(PyTuple_GetItem(seq, i), item_what))) { /* a NUL would cut it */
            PyMem_Free(arr);
            return -1;
        }
    }
    *out = arr;
    *n = (int)k + first;
    return 0;
}

int cpy_header_arrays(PyObject *headers, const char ***names, const char ***texts, int *n, PyObject *keep)
{
    *names = *texts = NULL;
    *n = 0;
    if (headers == Py_None)
        return 0;
    if (!PyDict_Check(headers)) {
        PyObject *type = cpy_type_name(headers);
        PyErr_Format(PyExc_TypeError, "headers must be a dict of name -> text, not %V", type, "?");
        Py_XDECREF(type);
        return -1;
    }
    PyObject *hk = PyDict_Keys(headers), *hv = PyDict_Values(headers);
    int n_texts = 0, ok = hk && hv && cpy_str_array(hk, NULL, names, n, keep, "headers' names") == 0 &&
                          cpy_str_array(hv, NULL, texts, &n_texts, keep, "headers' texts") == 0;
    Py_XDECREF(hk);
    Py_XDECREF(hv);
    if (ok)
        return 0;
    PyMem_Free((void *)*names);
    *names = NULL;
    *n = 0;
    return -1;
}

PyObject *cpy_enter(PyObject *self, PyObject *unused)
{
    (void)unused;
    Py_INCREF(self);
    return self;
}

int cpy_refuse_in_use(const char *who, Py_ssize_t count)
{
    if (count == 0)
        return 0;
    cpy_invalid("%s: it is in use (%zd: a copy, a launch, a link or a collective running in another thread, a call kept "
                "in a cudyn.nccl group not yet ended, a DLPack tensor its consumer has not released); call it after "
                "they end, or let the object go with its last reference",
                who, count);
    return -1;
}

int cpy_current_device(void)
{
    int dev = 0;
    int st = cudyn_device_current(&dev);
    if (st != CUDYN_OK) {
        cpy_raise(st);
        return -1;
    }
    return dev;
}

static int dim(PyObject *o, unsigned int *out, const char *what)
{
    int v;
    if (cpy_int(o, &v, what, 1, 0x7fffffff) < 0)
        return -1;
    *out = (unsigned int)v;
    return 0;
}

/* The tuples of exact ints cpy_dim3 read last, and what they said.  A
 * launch loop passes the same grid and block tuples call after call, and
 * such a tuple is immutable: the same object says the same again, so a
 * pointer comparison answers (under the limited API a tuple's items are
 * read through function calls, which cost a launch some 10 %).  Each is
 * held, so that its address cannot come back as another tuple.  The GIL
 * guards them, as held_dtypes. */
static struct {
    PyObject *tuple;
    cudyn_dim3 dim;
} dims_seen[4];
static unsigned next_dims;

/* a tuple's or list's 1 to 3 ints; *exact: all of them Python ints */
static int dims_of(PyObject *obj, int tuple, cudyn_dim3 *out, const char *what, int *exact)
{
    Py_ssize_t n = tuple ? PyTuple_Size(obj) : PyList_Size(obj);
    if (n < 1 || n > 3) {
        cpy_invalid("%s: 1 to 3 dimensions, not %zd", what, n);
        return -1;
    }
    unsigned int *d[3] = {&out->x, &out->y, &out->z};
    *exact = 1;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *item = tuple ? PyTuple_GetItem(obj, i) : PyList_GetItem(obj, i); /* a list may shrink */
        Py_XINCREF(item);
        int rc = item ? dim(item, d[i], what) : -1;
        *exact &= item && PyLong_CheckExact(item);
        Py_XDECREF(item);
        if (rc < 0)
            return -1;
    }
    return 0;
}

int cpy_dim3(PyObject *obj, cudyn_dim3 *out, const char *what)
{
    out->x = out->y = out->z = 1;
    if (PyLong_CheckExact(obj))
        return dim(obj, &out->x, what);
    int tuple = PyTuple_CheckExact(obj), exact;
    for (size_t i = 0; tuple && i < sizeof dims_seen / sizeof dims_seen[0]; i++)
        if (dims_seen[i].tuple == obj) {
            *out = dims_seen[i].dim;
            return 0;
        }
    if (tuple || PyTuple_Check(obj) || PyList_Check(obj)) {
        if (dims_of(obj, tuple || PyTuple_Check(obj), out, what, &exact) < 0)
            return -1;
        if (tuple && exact) {
            unsigned slot = next_dims++ % (sizeof dims_seen / sizeof dims_seen[0]);
            PyObject *old = dims_seen[slot].tuple;
            Py_INCREF(obj);
            dims_seen[slot].tuple = obj;
            dims_seen[slot].dim = *out;
            Py_XDECREF(old);
        }
        return 0;
    }
    if (PyIndex_Check(obj))
        return dim(obj, &out->x, what);
    PyObject *type = cpy_type_name(obj);
    PyErr_Format(PyExc_TypeError, "%s must be an int or a tuple of 1 to 3 ints, not %V", what, type, "?");
    Py_XDECREF(type);
    return -1;
}

static long long now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* How a wait polls, the GIL released throughout.  For the first SPIN_NS
 * it queries back to back (a query costs a fraction of a microsecond, and
 * the driver's own default scheduling spins too), so that a short wait
 * ends within a microsecond of the work: a sleep would end tens of
 * microseconds late (the kernel's timer slack), which a loop of
 * 20-microsecond kernels and a synchronize would feel.  After that it
 * sleeps, from 20 us growing to 1 ms, to leave the CPU to others.
 * Signals (Ctrl-C) are checked every SLICE_NS at most. */
#define SPIN_NS 2000000LL
#define SLICE_NS 1000000LL

int cpy_poll(int (*query)(void *), void *handle, double seconds)
{
    /* no end for < 0, and for more nanoseconds than a long long holds
     * (timeout=inf, about 292 years and more): never converted out of range */
    long long start = now_ns(), budget = seconds < 0 || !(seconds * 1e9 < 0x1p63) ? -1 : (long long)(seconds * 1e9);
    long sleep_ns = 20000;
    for (;;) {
        int st;
        Py_BEGIN_ALLOW_THREADS
        long long slice_end = now_ns() + SLICE_NS;
        st = query(handle);
        if (now_ns() - start < SPIN_NS) {
            while (st == CUDYN_ERROR_NOT_READY && now_ns() < slice_end)
                st = query(handle);
        } else if (st == CUDYN_ERROR_NOT_READY) {
            struct timespec ts = {0, sleep_ns};
            nanosleep(&ts, NULL);
            if (sleep_ns < 1000000)
                sleep_ns *= 2;
            st = query(handle);
        }
        Py_END_ALLOW_THREADS
        if (st != CUDYN_ERROR_NOT_READY || (budget >= 0 && now_ns() - start >= budget))
            return st;
        if (PyErr_CheckSignals() < 0)
            return -1;
    }
}

static int query_stream(void *s) { return cudyn_stream_query((cudyn_stream)s); }
static int query_event(void *e) { return cudyn_event_query((cudyn_event)e); }

int cpy_wait_stream(cudyn_stream stream)
{
    int st = cpy_poll(query_stream, stream, -1);
    if (st < 0)
        return -1;
    if (st == CUDYN_OK) /* and report what the stream's work left (an execution error) */
        CPY_NOGIL(st, cudyn_stream_synchronize(stream));
    if (st != CUDYN_OK) {
        cpy_raise(st);
        return -1;
    }
    return 0;
}

int cpy_wait_event(cudyn_event event)
{
    int st = cpy_poll(query_event, event, -1);
    if (st < 0)
        return -1;
    if (st == CUDYN_OK)
        CPY_NOGIL(st, cudyn_event_synchronize(event));
    if (st != CUDYN_OK) {
        cpy_raise(st);
        return -1;
    }
    return 0;
}

int cpy_wait_context(void)
{
    /* the default stream first (interruptible), then the rest of the context */
    int st = cpy_poll(query_stream, NULL, -1);
    if (st < 0)
        return -1;
    if (st == CUDYN_OK)
        CPY_NOGIL(st, cudyn_synchronize());
    if (st != CUDYN_OK) {
        cpy_raise(st);
        return -1;
    }
    return 0;
}
