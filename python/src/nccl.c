/* nccl.c - the C side of cudyn.nccl, over cudyn_nccl_* alone: the type
 * Communicator (a cudyn_nccl_comm made from a unique id, or one per device
 * of this process; its collectives, send and receive, its asynchronous
 * error, abort and destroy), the module's NCCL functions (_nccl_*) and
 * whether MPI itself moves device memory (_mpi_cuda_support), the choice
 * beside NCCL.
 * python/cudyn/nccl.py is what users import.  Buffers are DeviceArrays or
 * anything interop.c takes (__cuda_array_interface__, DLPack); their
 * dtype is a launch-format character of CUDYN_NCCL_DTYPES, or a
 * TypeError.  NCCL's failures are cudyn's exceptions (cpy_raise). */
#include "cudyn_py.h"
#include <limits.h>
#include <math.h>
#include <time.h>

typedef struct {
    PyObject_HEAD
    cudyn_nccl_comm comm; /* NULL once destroyed */
    int rank, size, device;
    PyObject *weakrefs;
} CommObject;

static PyTypeObject Comm_Type;

/* ---------------------------------------------------------- arguments */

/* Fills in rank, size and device once the communicator is made: one made
 * inside a group (a split, an init) is only after the group's end.  0 or
 * -1 with the exception. */
static int described(CommObject *self)
{
    if (self->size > 0)
        return 0;
    int st = self->comm ? cudyn_nccl_comm_rank(self->comm, &self->rank, &self->size, &self->device) : CUDYN_OK;
    if (st != CUDYN_OK) {
        self->rank = self->size = self->device = -1;
        cpy_raise(st);
        return -1;
    }
    return 0;
}

/* the communicator, or NULL with an exception once destroyed (or not made
 * yet) */
static cudyn_nccl_comm live(CommObject *self, const char *who)
{
    if (!self->comm)
        cpy_invalid("%s: this Communicator was destroyed", who);
    return self->comm && described(self) == 0 ? self->comm : NULL;
}

/* a C int from a Python int (the module's one checked conversion),
 * named "who: what" in its error; -1 with an exception */
static int int_of(PyObject *obj, int *out, const char *who, const char *what)
{
    char name[96];
    snprintf(name, sizeof name, "%s: %s", who, what);
    return cpy_int(obj, out, name, INT_MIN, INT_MAX);
}

/* The operations, from cudyn.h */
static const struct {
    const char *name;
    int value;
} ops[] = {
#define CPY_NCCL_OP_ROW_(name, value, text) {#name, value},
    CUDYN_NCCL_OP_MAP(CPY_NCCL_OP_ROW_)
#undef CPY_NCCL_OP_ROW_
};
#define CPY_NCCL_OP_NAME_(name, value, text) " '" #name "'"

/* op: a name of CUDYN_NCCL_OP_MAP in any case ("sum") or its value
 * (cudyn.nccl.SUM); NULL is the sum */
static int op_of(PyObject *obj, int *out, const char *who)
{
    *out = CUDYN_NCCL_SUM;
    if (!obj)
        return 0;
    const char *name = PyUnicode_Check(obj) ? PyUnicode_AsUTF8(obj) : NULL;
    long value = PyLong_Check(obj) && !PyBool_Check(obj) ? PyLong_AsLong(obj) : LONG_MIN;
    PyErr_Clear();
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
        if ((name && PyOS_stricmp(name, ops[i].name) == 0) || value == ops[i].value) {
            *out = ops[i].value;
            return 0;
        }
    cpy_invalid("%s: op must be one of" CUDYN_NCCL_OP_MAP(CPY_NCCL_OP_NAME_) " (any case) or its cudyn.nccl "
                "constant, not %R", who, obj);
    return -1;
}

/* The launch-format character of a numpy dtype that NCCL carries, or -1
 * with a TypeError */
static int dtype_char(PyObject *dtype, char *out, const char *who, const char *what)
{
    char c = cpy_dtype_format_char(dtype);
    if (!c || !strchr(CUDYN_NCCL_DTYPES, c)) {
        PyErr_Format(PyExc_TypeError,
                     "%s: NCCL cannot carry %s's dtype %S; it carries the launch-format types \"%s\" "
                     "(CUDYN_NCCL_DTYPES: 8-, 32- and 64-bit integers, float16, float32, float64, complex64, "
                     "complex128)",
                     who, what, dtype, CUDYN_NCCL_DTYPES);
        return -1;
    }
    *out = c;
    return 0;
}

/* A buffer of a call: the DeviceArray (a reference), its address, its
 * elements and their launch-format character. */
struct nccl_buf {
    PyObject *array;
    cudyn_devptr ptr;
    size_t count;
    char dtype;
};

/* obj as a call's buffer; `written`: the call writes it (read-only is
 * refused) */
static int buffer_of(CommObject *self, PyObject *obj, const char *who, const char *what, int written,
                     struct nccl_buf *b)
{
    if (obj == Py_None) {
        PyErr_Format(PyExc_TypeError, "%s: %s must be a device array, not None", who, what);
        return -1;
    }
    if (!(b->array = cpy_asarray(NULL, obj)))
        return -1;
    DeviceArrayObject *a = (DeviceArrayObject *)b->array;
    b->count = (size_t)a->size;
    if (!a->contiguous) {
        cpy_invalid("%s: %s must be contiguous (NCCL moves one block of memory)", who, what);
        return -1;
    }
    if (written && a->readonly) {
        cpy_invalid("%s: %s is read-only, and the call writes it", who, what);
        return -1;
    }
    if (a->device >= 0 && a->device != self->device) {
        cpy_invalid("%s: %s lives on device %d, the communicator's is device %d", who, what, a->device,
                    self->device);
        return -1;
    }
    return cpy_array_ptr(a, &b->ptr) < 0 ? -1 : dtype_char(a->dtype, &b->dtype, who, what);
}

/* What a call was given. */
struct call {
    cudyn_nccl_comm comm;
    struct nccl_buf send, recv;
    int op;
    cudyn_stream stream;
};

static void call_release(struct call *c)
{
    Py_XDECREF(c->send.array);
    Py_XDECREF(c->recv.array);
}

/* The communicator, sendbuf and recvbuf (None: the send buffer, in
 * place) of one dtype, and the stream.  0 or -1. */
static int call_of(CommObject *self, PyObject *send, PyObject *recv, PyObject *stream, const char *who,
                   struct call *c)
{
    if (!(c->comm = live(self, who)) || buffer_of(self, send, who, "sendbuf", recv == Py_None, &c->send) < 0)
        return -1;
    if (recv == Py_None) {
        c->recv = c->send;
        Py_INCREF(c->recv.array);
    } else if (buffer_of(self, recv, who, "recvbuf", 1, &c->recv) < 0) {
        return -1;
    }
    if (c->recv.dtype != c->send.dtype) {
        PyErr_Format(PyExc_TypeError, "%s: recvbuf's dtype %S differs from sendbuf's %S", who,
                     ((DeviceArrayObject *)c->recv.array)->dtype, ((DeviceArrayObject *)c->send.array)->dtype);
        return -1;
    }
    return cpy_stream(stream, &c->stream);
}

/* recvbuf holds `need` elements */
static int fits(const struct call *c, size_t need, const char *who)
{
    if (c->recv.count >= need)
        return 0;
    cpy_invalid("%s: recvbuf holds %zu elements, fewer than the %zu the call writes", who, c->recv.count, need);
    return -1;
}

/* None once queued, else the exception; releases the call's buffers */
static PyObject *queued(struct call *c, int st)
{
    call_release(c);
    if (st < 0)
        return NULL;
    if (st != CUDYN_OK)
        return cpy_raise(st);
    Py_RETURN_NONE;
}

/* -------------------------------------------------------- collectives */

PyDoc_STRVAR(comm_all_reduce_doc,
             CPY_SIG("all_reduce($self, /, sendbuf, recvbuf=None, op='sum', stream=None)",
                     "The reduction of every rank's sendbuf into recvbuf (in place without one)."));
static PyObject *comm_all_reduce(CommObject *self, PyObject *args, PyObject *kwds)
{
    static char *kw[] = {"sendbuf", "recvbuf", "op", "stream", NULL};
    PyObject *send, *recv = Py_None, *op = NULL, *stream = Py_None;
    struct call c = {0};
    int st = -1;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O|OOO:all_reduce", kw, &send, &recv, &op, &stream))
        return NULL;
    if (op_of(op, &c.op, "all_reduce") == 0 && call_of(self, send, recv, stream, "all_reduce", &c) == 0 &&
        fits(&c, c.send.count, "all_reduce") == 0)
        CPY_NOGIL(st, cudyn_nccl_all_reduce(c.comm, c.send.ptr, c.recv.ptr, c.send.count, c.send.dtype, c.op,
                                            c.stream));
    return queued(&c, st);
}

PyDoc_STRVAR(comm_broadcast_doc, CPY_SIG("broadcast($self, /, sendbuf, recvbuf=None, root=0, stream=None)",
                                         "root's sendbuf into every rank's recvbuf."));
static PyObject *comm_broadcast(CommObject *self, PyObject *args, PyObject *kwds)
{
    static char *kw[] = {"sendbuf", "recvbuf", "root", "stream", NULL};
    PyObject *send, *recv = Py_None, *stream = Py_None;
    int root = 0, st = -1;
    struct call c = {0};
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O|OiO:broadcast", kw, &send, &recv, &root, &stream))
        return NULL;
    if (call_of(self, send, recv, stream, "broadcast", &c) == 0 && fits(&c, c.send.count, "broadcast") == 0)
        CPY_NOGIL(st, cudyn_nccl_broadcast(c.comm, c.send.ptr, c.recv.ptr, c.send.count, c.send.dtype, root,
                                           c.stream));
    return queued(&c, st);
}

PyDoc_STRVAR(comm_reduce_doc, CPY_SIG("reduce($self, /, sendbuf, recvbuf=None, op='sum', root=0, stream=None)",
                                      "The reduction into root's recvbuf."));
static PyObject *comm_reduce(CommObject *self, PyObject *args, PyObject *kwds)
{
    static char *kw[] = {"sendbuf", "recvbuf", "op", "root", "stream", NULL};
    PyObject *send, *recv = Py_None, *op = NULL, *stream = Py_None;
    int root = 0, st = -1;
    struct call c = {0};
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O|OOiO:reduce", kw, &send, &recv, &op, &root, &stream))
        return NULL;
    if (op_of(op, &c.op, "reduce") == 0 && call_of(self, send, recv, stream, "reduce", &c) == 0 &&
        fits(&c, c.send.count, "reduce") == 0)
        CPY_NOGIL(st, cudyn_nccl_reduce(c.comm, c.send.ptr, c.recv.ptr, c.send.count, c.send.dtype, c.op, root,
                                        c.stream));
    return queued(&c, st);
}

PyDoc_STRVAR(comm_all_gather_doc,
             CPY_SIG("all_gather($self, /, sendbuf, recvbuf, stream=None)",
                     "Every rank's sendbuf, in rank order, into every recvbuf (size x as large)."));
static PyObject *comm_all_gather(CommObject *self, PyObject *args, PyObject *kwds)
{
    static char *kw[] = {"sendbuf", "recvbuf", "stream", NULL};
    PyObject *send, *recv, *stream = Py_None;
    struct call c = {0};
    int st = -1;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "OO|O:all_gather", kw, &send, &recv, &stream))
        return NULL;
    if (call_of(self, send, recv, stream, "all_gather", &c) == 0 &&
        fits(&c, c.send.count * (size_t)self->size, "all_gather") == 0)
        CPY_NOGIL(st, cudyn_nccl_all_gather(c.comm, c.send.ptr, c.recv.ptr, c.send.count, c.send.dtype, c.stream));
    return queued(&c, st);
}

PyDoc_STRVAR(comm_reduce_scatter_doc,
             CPY_SIG("reduce_scatter($self, /, sendbuf, recvbuf, op='sum', stream=None)",
                     "The reduction of size blocks of sendbuf, block r into rank r's recvbuf."));
static PyObject *comm_reduce_scatter(CommObject *self, PyObject *args, PyObject *kwds)
{
    static char *kw[] = {"sendbuf", "recvbuf", "op", "stream", NULL};
    PyObject *send, *recv, *op = NULL, *stream = Py_None;
    struct call c = {0};
    int st = -1;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "OO|OO:reduce_scatter", kw, &send, &recv, &op, &stream))
        return NULL;
    if (op_of(op, &c.op, "reduce_scatter") < 0 || call_of(self, send, recv, stream, "reduce_scatter", &c) < 0)
        return queued(&c, -1);
    size_t block = c.send.count / (size_t)self->size;
    if (block * (size_t)self->size != c.send.count)
        cpy_invalid("reduce_scatter: sendbuf's %zu elements are not a whole block for each of the %d ranks",
                    c.send.count, self->size);
    else if (fits(&c, block, "reduce_scatter") == 0)
        CPY_NOGIL(st, cudyn_nccl_reduce_scatter(c.comm, c.send.ptr, c.recv.ptr, block, c.send.dtype, c.op,
                                                c.stream));
    return queued(&c, st);
}

PyDoc_STRVAR(comm_send_doc, CPY_SIG("send($self, /, buf, peer, stream=None)",
                                    "buf to peer, inside cudyn.nccl.group() with its recv."));
PyDoc_STRVAR(comm_recv_doc, CPY_SIG("recv($self, /, buf, peer, stream=None)",
                                    "buf from peer, inside cudyn.nccl.group() with its send."));
static PyObject *point_to_point(CommObject *self, PyObject *args, PyObject *kwds, int receive)
{
    static char *kw[] = {"buf", "peer", "stream", NULL};
    const char *who = receive ? "recv" : "send";
    PyObject *buf, *stream = Py_None;
    int peer, st = -1;
    struct call c = {0};
    if (!PyArg_ParseTupleAndKeywords(args, kwds, receive ? "Oi|O:recv" : "Oi|O:send", kw, &buf, &peer, &stream))
        return NULL;
    if ((c.comm = live(self, who)) && buffer_of(self, buf, who, "buf", receive, &c.send) == 0 &&
        cpy_stream(stream, &c.stream) == 0) {
        if (receive)
            CPY_NOGIL(st, cudyn_nccl_recv(c.comm, c.send.ptr, c.send.count, c.send.dtype, peer, c.stream));
        else
            CPY_NOGIL(st, cudyn_nccl_send(c.comm, c.send.ptr, c.send.count, c.send.dtype, peer, c.stream));
    }
    return queued(&c, st);
}

static PyObject *comm_send(CommObject *self, PyObject *args, PyObject *kwds)
{
    return point_to_point(self, args, kwds, 0);
}

static PyObject *comm_recv(CommObject *self, PyObject *args, PyObject *kwds)
{
    return point_to_point(self, args, kwds, 1);
}

/* -------------------------------------------- errors, waits, the end */

/* None, or the status as the exception */
static PyObject *result(int st)
{
    if (st != CUDYN_OK)
        return cpy_raise(st);
    Py_RETURN_NONE;
}

static PyObject *comm_check(CommObject *self, PyObject *unused)
{
    (void)unused;
    cudyn_nccl_comm comm = live(self, "check");
    return comm ? result(cudyn_nccl_comm_check(comm)) : NULL;
}

/* Polls for up to about 50 ms (the GIL released): CUDYN_ERROR_NOT_READY
 * while the stream's work runs and NCCL reports no error, else CUDYN_OK
 * (finished, or an error for cudyn_nccl_comm_wait to collect). */
static int poll_slice(cudyn_nccl_comm comm, cudyn_stream stream)
{
    struct timespec pause = {0, 0};
    for (long waited_ns = 0; waited_ns < 50000000L; waited_ns += pause.tv_nsec) {
        if (cudyn_stream_query(stream) != CUDYN_ERROR_NOT_READY || cudyn_nccl_comm_check(comm) != CUDYN_OK)
            return CUDYN_OK;
        pause.tv_nsec = pause.tv_nsec < 500000 ? pause.tv_nsec * 2 + 1000 : 1000000;
        nanosleep(&pause, NULL);
    }
    return CUDYN_ERROR_NOT_READY;
}

PyDoc_STRVAR(comm_wait_doc,
             CPY_SIG("wait($self, /, stream=None, timeout=None)",
                     "Waits for the stream's work, raising NCCL's asynchronous error (and aborting) if one comes; "
                     "timeout in seconds (then aborted too)."));
/* cudyn_nccl_comm_wait.  With no timeout it waits in slices, answering Ctrl-C between them, then lets
 * cudyn_nccl_comm_wait collect the outcome (at once: the work finished or
 * NCCL has an error, which aborts the communicator). */
static PyObject *comm_wait(CommObject *self, PyObject *args, PyObject *kwds)
{
    static char *kw[] = {"stream", "timeout", NULL};
    PyObject *stream_obj = Py_None, *timeout = Py_None;
    cudyn_stream stream = NULL;
    cudyn_nccl_comm comm;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "|OO:wait", kw, &stream_obj, &timeout) ||
        !(comm = live(self, "wait")) || cpy_stream(stream_obj, &stream) < 0)
        return NULL;
    int ms = -1, st;
    if (timeout != Py_None) {
        double seconds = PyFloat_AsDouble(timeout);
        if (seconds == -1.0 && PyErr_Occurred())
            return NULL;
        if (!(seconds >= 0))
            return cpy_invalid("wait: timeout must be None or >= 0 seconds, not %R", timeout);
        ms = seconds * 1000 < INT_MAX ? (int)ceil(seconds * 1000) : INT_MAX;
    } else {
        do {
            CPY_NOGIL(st, poll_slice(comm, stream));
            if (st == CUDYN_ERROR_NOT_READY && PyErr_CheckSignals() < 0)
                return NULL;
        } while (st == CUDYN_ERROR_NOT_READY);
    }
    CPY_NOGIL(st, cudyn_nccl_comm_wait(comm, stream, ms));
    return result(st);
}

static PyObject *comm_abort(CommObject *self, PyObject *unused)
{
    (void)unused;
    cudyn_nccl_comm comm = live(self, "abort");
    int st = CUDYN_OK;
    if (!comm)
        return NULL;
    CPY_NOGIL(st, cudyn_nccl_comm_abort(comm));
    return result(st);
}

/* Frees the communicator (a second destroy does nothing); the C handle is
 * gone whatever NCCL answers. */
static int destroy(CommObject *self)
{
    int st = CUDYN_OK;
    cudyn_nccl_comm comm = self->comm;
    self->comm = NULL;
    if (comm)
        CPY_NOGIL(st, cudyn_nccl_comm_destroy(comm));
    return st;
}

static PyObject *comm_destroy(CommObject *self, PyObject *unused)
{
    (void)unused;
    return result(destroy(self));
}

static PyObject *comm_enter(PyObject *self, PyObject *unused)
{
    (void)unused;
    Py_INCREF(self);
    return self;
}

/* Leaving a with-block destroys; leaving it by an exception aborts first,
 * so that the destroy does not wait for work the peers may never do. */
static PyObject *comm_exit(CommObject *self, PyObject *args)
{
    PyObject *type = PyTuple_GET_SIZE(args) > 0 ? PyTuple_GET_ITEM(args, 0) : Py_None;
    int st = CUDYN_OK;
    if (type != Py_None && self->comm)
        CPY_NOGIL(st, cudyn_nccl_comm_abort(self->comm)); /* one aborted before refuses: destroyed anyway */
    st = destroy(self);
    if (type != Py_None || st == CUDYN_OK)
        Py_RETURN_FALSE;
    return cpy_raise(st);
}

/* ------------------------------------------------ making communicators */

/* A Communicator around comm (destroyed if that fails); its rank, size
 * and device once it is made (described) */
static PyObject *comm_wrap(PyTypeObject *type, cudyn_nccl_comm comm)
{
    CommObject *self = (CommObject *)type->tp_alloc(type, 0);
    if (!self) {
        cudyn_nccl_comm_destroy(comm);
        return NULL;
    }
    self->comm = comm;
    self->rank = self->size = self->device = -1;
    if (described(self) < 0) /* made inside a group: known after its end */
        PyErr_Clear();
    return (PyObject *)self;
}

static int unique_id_of(PyObject *obj, cudyn_nccl_id *id)
{
    Py_buffer view;
    if (!PyObject_CheckBuffer(obj)) {
        PyErr_Format(PyExc_TypeError,
                     "Communicator: unique_id must be the %d bytes of cudyn.nccl.get_unique_id(), not %.100s",
                     CUDYN_NCCL_ID_BYTES, Py_TYPE(obj)->tp_name);
        return -1;
    }
    if (PyObject_GetBuffer(obj, &view, PyBUF_SIMPLE) < 0)
        return -1;
    int ok = view.len == CUDYN_NCCL_ID_BYTES;
    if (ok)
        memcpy(id->bytes, view.buf, CUDYN_NCCL_ID_BYTES);
    else
        cpy_invalid("Communicator: unique_id must be the %d bytes of cudyn.nccl.get_unique_id(), not %zd bytes",
                    CUDYN_NCCL_ID_BYTES, view.len);
    PyBuffer_Release(&view);
    return ok ? 0 : -1;
}

PyDoc_STRVAR(comm_doc, CPY_SIG("Communicator(nranks, unique_id, rank, device=None)",
                               "Rank `rank` of the NCCL communicator that unique_id names "
                               "(cudyn.nccl.get_unique_id() on one rank, handed to the others), on `device` (made "
                               "this thread's device) or this thread's device."));
static PyObject *comm_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    static char *kw[] = {"nranks", "unique_id", "rank", "device", NULL};
    PyObject *nranks_obj, *uid, *rank_obj, *device = Py_None;
    int nranks, rank, st = CUDYN_OK;
    cudyn_nccl_id id;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "OOO|O:Communicator", kw, &nranks_obj, &uid, &rank_obj, &device) ||
        int_of(nranks_obj, &nranks, "Communicator", "nranks") < 0 ||
        int_of(rank_obj, &rank, "Communicator", "rank") < 0 || unique_id_of(uid, &id) < 0)
        return NULL;
    if (device != Py_None) {
        int d;
        if (int_of(device, &d, "Communicator", "device") < 0)
            return NULL;
        CPY_NOGIL(st, cudyn_device_use(d));
    }
    cudyn_nccl_comm comm = NULL;
    if (st == CUDYN_OK)
        CPY_NOGIL(st, cudyn_nccl_comm_init_rank(&comm, nranks, &id, rank));
    return st == CUDYN_OK ? comm_wrap(type, comm) : cpy_raise(st);
}

/* The ordinals of for_devices' argument: a sequence of ints, or a count
 * n for devices 0 .. n-1; a PyMem block of *n, or NULL with an exception */
static int *device_list(PyObject *devices, int *n)
{
    const char *who = "Communicator.for_devices";
    PyObject *seq = NULL;
    if (PyLong_Check(devices) ? int_of(devices, n, who, "devices") < 0
                              : !(seq = PySequence_Fast(devices, "Communicator.for_devices: devices must be a "
                                                                 "sequence of device ordinals, or a count")))
        return NULL;
    if (seq)
        *n = PySequence_Fast_GET_SIZE(seq) > INT_MAX ? INT_MAX : (int)PySequence_Fast_GET_SIZE(seq);
    int *ordinals = *n >= 1 ? PyMem_New(int, (size_t)*n) : NULL;
    if (*n < 1)
        cpy_invalid("%s: at least one device, not %d", who, *n);
    else if (!ordinals)
        PyErr_NoMemory();
    for (int i = 0; ordinals && i < *n; i++) {
        if (!seq)
            ordinals[i] = i;
        else if (int_of(PySequence_Fast_GET_ITEM(seq, i), &ordinals[i], who, "a device") < 0) {
            PyMem_Free(ordinals);
            ordinals = NULL;
        }
    }
    Py_XDECREF(seq);
    return ordinals;
}

/* Communicator.for_devices(devices): one per device of this process,
 * rank i on devices[i] (cudyn_nccl_comm_init_all) */
static PyObject *comm_for_devices(PyObject *cls, PyObject *devices)
{
    int n = 0, st;
    int *ordinals = device_list(devices, &n);
    cudyn_nccl_comm *comms = ordinals ? PyMem_New(cudyn_nccl_comm, (size_t)n) : NULL;
    PyObject *list = NULL;
    if (ordinals && !comms)
        PyErr_NoMemory();
    if (comms) {
        CPY_NOGIL(st, cudyn_nccl_comm_init_all(comms, n, ordinals));
        list = st == CUDYN_OK ? PyList_New(n) : cpy_raise(st);
        for (int i = 0; st == CUDYN_OK && i < n; i++) { /* past a failure, the rest are destroyed */
            PyObject *c = list ? comm_wrap((PyTypeObject *)cls, comms[i]) : NULL;
            if (!list)
                cudyn_nccl_comm_destroy(comms[i]);
            else if (c)
                PyList_SET_ITEM(list, i, c);
            else
                Py_CLEAR(list);
        }
    }
    PyMem_Free(ordinals);
    PyMem_Free(comms);
    return list;
}

PyDoc_STRVAR(comm_split_doc, CPY_SIG("split($self, /, color, key=None)",
                                     "A new Communicator of the ranks of one color, ordered by key (None: by rank); "
                                     "None for a rank given no color (a negative one)."));
static PyObject *comm_split(CommObject *self, PyObject *args, PyObject *kwds)
{
    static char *kw[] = {"color", "key", NULL};
    PyObject *color_obj, *key_obj = Py_None;
    int color, key, st;
    cudyn_nccl_comm comm, out = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O|O:split", kw, &color_obj, &key_obj) ||
        int_of(color_obj, &color, "split", "color") < 0 || !(comm = live(self, "split")))
        return NULL;
    key = self->rank;
    if (key_obj != Py_None && int_of(key_obj, &key, "split", "key") < 0)
        return NULL;
    CPY_NOGIL(st, cudyn_nccl_comm_split(comm, color < 0 ? CUDYN_NCCL_NO_COLOR : color, key, &out));
    if (st != CUDYN_OK)
        return cpy_raise(st);
    if (!out)
        Py_RETURN_NONE;
    return comm_wrap(Py_TYPE(self), out);
}

/* Going away destroys it (after its queued work, as NCCL does). */
static void comm_dealloc(CommObject *self)
{
    if (self->weakrefs)
        PyObject_ClearWeakRefs((PyObject *)self);
    destroy(self);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *comm_repr(CommObject *self)
{
    if (described(self) < 0) {
        PyErr_Clear();
        return PyUnicode_FromString("<cudyn.nccl.Communicator, made when its group ends>");
    }
    if (!self->comm)
        return PyUnicode_FromFormat("<cudyn.nccl.Communicator rank %d of %d, destroyed>", self->rank, self->size);
    return PyUnicode_FromFormat("<cudyn.nccl.Communicator rank %d of %d on device %d>", self->rank, self->size,
                                self->device);
}

static PyMethodDef comm_methods[] = {
    {"for_devices", comm_for_devices, METH_O | METH_CLASS,
     CPY_SIG("for_devices($type, devices, /)",
             "A Communicator per device of this process (a list of ordinals, or a count); drive their calls from "
             "one thread inside cudyn.nccl.group(), or from a thread each.")},
    {"all_reduce", CPY_KW(comm_all_reduce), comm_all_reduce_doc},
    {"broadcast", CPY_KW(comm_broadcast), comm_broadcast_doc},
    {"reduce", CPY_KW(comm_reduce), comm_reduce_doc},
    {"all_gather", CPY_KW(comm_all_gather), comm_all_gather_doc},
    {"reduce_scatter", CPY_KW(comm_reduce_scatter), comm_reduce_scatter_doc},
    {"send", CPY_KW(comm_send), comm_send_doc},
    {"recv", CPY_KW(comm_recv), comm_recv_doc},
    {"split", CPY_KW(comm_split), comm_split_doc},
    {"check", (PyCFunction)comm_check, METH_NOARGS,
     CPY_SIG("check($self, /)", "Raises NCCL's asynchronous error, if any (no abort).")},
    {"wait", CPY_KW(comm_wait), comm_wait_doc},
    {"abort", (PyCFunction)comm_abort, METH_NOARGS,
     CPY_SIG("abort($self, /)", "Stops the communicator's work at once; destroy() follows.")},
    {"destroy", (PyCFunction)comm_destroy, METH_NOARGS,
     CPY_SIG("destroy($self, /)", "Frees the communicator after its queued work.")},
    {"__enter__", comm_enter, METH_NOARGS, CPY_SIG("__enter__($self, /)", "Returns itself.")},
    {"__exit__", (PyCFunction)comm_exit, METH_VARARGS,
     CPY_SIG("__exit__($self, /, *exc_info)", "destroy(); abort() first when the block raised.")},
    {NULL, NULL, 0, NULL},
};

/* rank, size, device: closure is the field's offset */
static PyObject *comm_field(CommObject *self, void *closure)
{
    return described(self) < 0 ? NULL : PyLong_FromLong(*(int *)((char *)self + (size_t)closure));
}

static PyGetSetDef comm_getset[] = {
    {"rank", (getter)comm_field, NULL, "This rank (0 .. size - 1).", (void *)offsetof(CommObject, rank)},
    {"size", (getter)comm_field, NULL, "The number of ranks.", (void *)offsetof(CommObject, size)},
    {"device", (getter)comm_field, NULL, "Its device (an ordinal of this process).",
     (void *)offsetof(CommObject, device)},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject Comm_Type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "cudyn.nccl.Communicator",
    .tp_basicsize = sizeof(CommObject),
    .tp_dealloc = (destructor)comm_dealloc,
    .tp_repr = (reprfunc)comm_repr,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = comm_doc,
    .tp_weaklistoffset = offsetof(CommObject, weakrefs),
    .tp_methods = comm_methods,
    .tp_getset = comm_getset,
    .tp_new = comm_new,
};

/* ------------------------------------------------- module functions */

static PyObject *f_unique_id(PyObject *self, PyObject *unused)
{
    (void)self, (void)unused;
    cudyn_nccl_id id;
    int st;
    CPY_NOGIL(st, cudyn_nccl_unique_id(&id));
    return st == CUDYN_OK ? PyBytes_FromStringAndSize((const char *)id.bytes, CUDYN_NCCL_ID_BYTES) : cpy_raise(st);
}

PyDoc_STRVAR(f_info_doc, CPY_SIG("_nccl_info($module, /, check=False)",
                                 "cudyn_nccl_info as a dict; check=True raises the failure to load."));
static PyObject *f_info(PyObject *self, PyObject *args, PyObject *kwds)
{
    static char *kw[] = {"check", NULL};
    int check = 0, st;
    struct cudyn_nccl_info info = {.size = sizeof info};
    (void)self;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "|p:_nccl_info", kw, &check))
        return NULL;
    CPY_NOGIL(st, cudyn_nccl_info(&info));
    if (st != CUDYN_OK || (check && info.status != CUDYN_OK))
        return cpy_raise(st != CUDYN_OK ? st : info.status);
    return Py_BuildValue("{s:i,s:s,s:z,s:z,s:i,s:z,s:d,s:z}", "status", info.status, "status_name",
                         cudyn_status_name(info.status), "path", info.path, "found_by", info.found_by, "version",
                         info.version, "version_string", info.version_string, "load_ms", info.load_ms, "trace",
                         info.trace);
}

static PyObject *f_has(PyObject *self, PyObject *name)
{
    (void)self;
    const char *s = PyUnicode_Check(name) ? PyUnicode_AsUTF8(name) : NULL;
    if (!s) {
        if (!PyErr_Occurred())
            PyErr_Format(PyExc_TypeError, "has: name must be a str, not %.100s", Py_TYPE(name)->tp_name);
        return NULL;
    }
    int has;
    CPY_NOGIL(has, cudyn_has(s));
    return PyBool_FromLong(has);
}

static PyObject *f_group_start(PyObject *self, PyObject *unused)
{
    (void)self, (void)unused;
    return result(cudyn_nccl_group_start());
}

static PyObject *f_group_end(PyObject *self, PyObject *unused)
{
    (void)self, (void)unused;
    int st;
    CPY_NOGIL(st, cudyn_nccl_group_end());
    return result(st);
}

/* _mpi_cuda_support(): cudyn_mpi_cuda_support as a dict (answer "yes",
 * "no" or "unknown", source, reason): whether MPI itself (mpi4py's) may be
 * given device buffers, or NCCL (or staging) should carry them */
static PyObject *f_mpi_cuda_support(PyObject *self, PyObject *unused)
{
    (void)self, (void)unused;
    struct cudyn_mpi_cuda m = {.size = sizeof m};
    int st = cudyn_mpi_cuda_support(&m);
    if (st != CUDYN_OK)
        return cpy_raise(st);
    const char *answer = m.answer == CUDYN_MPI_CUDA_YES ? "yes" : m.answer == CUDYN_MPI_CUDA_NO ? "no" : "unknown";
    return Py_BuildValue("{s:s,s:z,s:s}", "answer", answer, "source", m.source, "reason", m.reason);
}

static PyMethodDef nccl_functions[] = {
    {"_nccl_unique_id", f_unique_id, METH_NOARGS,
     CPY_SIG("_nccl_unique_id($module, /)", "A new unique id: 128 bytes (cudyn_nccl_unique_id).")},
    {"_nccl_info", CPY_KW(f_info), f_info_doc},
    {"_nccl_has", f_has, METH_O,
     CPY_SIG("_nccl_has($module, name, /)", "Whether the NCCL found has the function (cudyn_has).")},
    {"_nccl_group_start", f_group_start, METH_NOARGS,
     CPY_SIG("_nccl_group_start($module, /)", "cudyn_nccl_group_start.")},
    {"_nccl_group_end", f_group_end, METH_NOARGS, CPY_SIG("_nccl_group_end($module, /)", "cudyn_nccl_group_end.")},
    {"_mpi_cuda_support", f_mpi_cuda_support, METH_NOARGS,
     CPY_SIG("_mpi_cuda_support($module, /)", "cudyn_mpi_cuda_support as a dict.")},
    {NULL, NULL, 0, NULL},
};

int cpy_nccl_init(PyObject *module)
{
    PyObject *names = PyDict_New();
    for (size_t i = 0; names && i < sizeof ops / sizeof ops[0]; i++) {
        PyObject *v = PyLong_FromLong(ops[i].value);
        if (!v || PyDict_SetItemString(names, ops[i].name, v) < 0)
            Py_CLEAR(names);
        Py_XDECREF(v);
    }
    if (!names || PyModule_AddObject(module, "_nccl_ops", names) < 0) {
        Py_XDECREF(names);
        return -1;
    }
    if (PyType_Ready(&Comm_Type) < 0 || PyModule_AddFunctions(module, nccl_functions) < 0 ||
        PyModule_AddStringConstant(module, "_nccl_dtypes", CUDYN_NCCL_DTYPES) < 0 ||
        PyModule_AddIntConstant(module, "_NCCL_ID_BYTES", CUDYN_NCCL_ID_BYTES) < 0)
        return -1;
    Py_INCREF(&Comm_Type);
    if (PyModule_AddObject(module, "_NcclCommunicator", (PyObject *)&Comm_Type) < 0) {
        Py_DECREF(&Comm_Type);
        return -1;
    }
    return 0;
}
