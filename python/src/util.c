/* util.c - conversions every part uses that name none of the module's
 * types: dim3, sizes, the current device, numpy (imported lazily), and
 * waiting that answers Ctrl-C.  The conversions of device addresses
 * (array.c) and streams (streams.c) live with their types. */
#include "cudyn_py.h"
#include <time.h>

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

int cpy_size(PyObject *obj, size_t *out, const char *what)
{
    if (!PyLong_Check(obj) && !PyIndex_Check(obj)) {
        PyErr_Format(PyExc_TypeError, "%s must be an int, not %.100s", what, Py_TYPE(obj)->tp_name);
        return -1;
    }
    PyObject *n = PyNumber_Index(obj);
    if (!n)
        return -1;
    static PyObject *zero;
    if (!zero && !(zero = PyLong_FromLong(0))) {
        Py_DECREF(n);
        return -1;
    }
    if (PyObject_RichCompareBool(n, zero, Py_LT) == 1) {
        Py_DECREF(n);
        cpy_invalid("%s must not be negative", what);
        return -1;
    }
    size_t v = PyLong_AsSize_t(n);
    Py_DECREF(n);
    if (v == (size_t)-1 && PyErr_Occurred()) {
        PyErr_Clear();
        cpy_invalid("%s is too large", what);
        return -1;
    }
    *out = v;
    return 0;
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
    long v = PyLong_AsLong(o);
    if (v == -1 && PyErr_Occurred()) {
        if (PyErr_ExceptionMatches(PyExc_TypeError)) {
            PyErr_Clear();
            PyErr_Format(PyExc_TypeError, "%s: dimensions must be ints, not %.100s", what, Py_TYPE(o)->tp_name);
        }
        return -1;
    }
    if (v < 1 || v > 0x7fffffffL) {
        cpy_invalid("%s: dimension %ld is out of range (1 .. 2**31-1)", what, v);
        return -1;
    }
    *out = (unsigned int)v;
    return 0;
}

int cpy_dim3(PyObject *obj, cudyn_dim3 *out, const char *what)
{
    out->x = out->y = out->z = 1;
    if (PyLong_CheckExact(obj))
        return dim(obj, &out->x, what);
    if (PyTuple_Check(obj) || PyList_Check(obj)) {
        Py_ssize_t n = PySequence_Fast_GET_SIZE(obj);
        PyObject **items = PySequence_Fast_ITEMS(obj);
        if (n < 1 || n > 3) {
            cpy_invalid("%s: 1 to 3 dimensions, not %zd", what, n);
            return -1;
        }
        unsigned int *d[3] = {&out->x, &out->y, &out->z};
        for (Py_ssize_t i = 0; i < n; i++)
            if (dim(items[i], d[i], what) < 0)
                return -1;
        return 0;
    }
    if (PyIndex_Check(obj))
        return dim(obj, &out->x, what);
    PyErr_Format(PyExc_TypeError, "%s must be an int or a tuple of 1 to 3 ints, not %.100s", what,
                 Py_TYPE(obj)->tp_name);
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

/* Polls query() until it is not NOT_READY; its status, or -1 with a
 * Python exception (a signal handler's) set. */
static int poll_wait(int (*query)(void *), void *handle)
{
    long long start = now_ns();
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
        if (st != CUDYN_ERROR_NOT_READY)
            return st;
        if (PyErr_CheckSignals() < 0)
            return -1;
    }
}

static int query_stream(void *s) { return cudyn_stream_query((cudyn_stream)s); }
static int query_event(void *e) { return cudyn_event_query((cudyn_event)e); }

int cpy_wait_stream(cudyn_stream stream)
{
    int st = poll_wait(query_stream, stream);
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
    int st = poll_wait(query_event, event);
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
    int st = poll_wait(query_stream, NULL);
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
