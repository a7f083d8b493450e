/* nccl.c - cudyn.nccl's Communicator over cudyn_nccl_* alone (made from a
 * unique id, or one per device of this process): its collectives, send
 * and receive, asynchronous error, waits, abort and destroy; the module's
 * _nccl_* functions are nccl_functions.c's, python/cudyn/nccl.py the face.
 * Buffers are anything interop.c takes, of a dtype in CUDYN_NCCL_DTYPES
 * (else TypeError).  What a buffer must hold is the library's rule: a call
 * passes the count of the buffer its C function counts, and the library
 * checks the others against their allocations.
 * The lifetime rule (cudyn_py.h, cpy_hold): a call holds its Communicator
 * and the DeviceMemory of its buffers while it runs without the GIL, and
 * inside a group until the group's end (cpy_nccl_group_keep), as do
 * communicators made in a group: free(), destroy() and abort() from any
 * thread raise meanwhile, and the library never meets a freed buffer or
 * communicator. */
#include "cudyn_py.h"
#include <limits.h>
#include <math.h>
#include <string.h>

typedef struct {
    PyObject_HEAD
    cudyn_nccl_comm comm; /* NULL once destroyed */
    int rank, size, device;
    Py_ssize_t in_use; /* the lifetime rule's holds: destroy() and abort() refuse while any */
    int aborting;      /* abort() runs without the GIL: every other call refuses meanwhile */
    PyObject *weakrefs;
} CommObject;

static PyTypeObject *Comm_Type;

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

/* the communicator, or NULL with an exception once destroyed, while
 * abort() runs in another thread, or when not made yet */
static cudyn_nccl_comm live(CommObject *self, const char *who)
{
    if (!self->comm)
        cpy_invalid("%s: this Communicator was destroyed", who);
    else if (self->aborting)
        cpy_invalid("%s: this Communicator is being aborted in another thread", who);
    return self->comm && !self->aborting && described(self) == 0 ? self->comm : NULL;
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
    char what[64];
    *out = CUDYN_NCCL_SUM;
    if (!obj)
        return 0;
    snprintf(what, sizeof what, "%s: op", who);
    const char *name = PyUnicode_Check(obj) ? cpy_utf8(obj, what) : NULL;
    if (PyUnicode_Check(obj) && !name)
        return -1;
    int value = INT_MIN;
    if (PyLong_Check(obj) && !PyBool_Check(obj) && cpy_int(obj, &value, "op", INT_MIN, INT_MAX) < 0)
        PyErr_Clear(); /* out of range: no operation's value, refused below */
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
        if ((name && PyOS_stricmp(name, ops[i].name) == 0) || (!name && value == ops[i].value)) {
            *out = ops[i].value;
            return 0;
        }
    cpy_invalid("%s: op must be one of" CUDYN_NCCL_OP_MAP(CPY_NCCL_OP_NAME_) " (any case) or its cudyn.nccl "
                "constant, not %R", who, obj);
    return -1;
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
 * refused).  What NCCL needs that the library cannot see: one block
 * (contiguous), writable, and a type NCCL carries. */
static int buffer_of(PyObject *obj, const char *who, const char *what, int written, struct nccl_buf *b)
{
    if (obj == Py_None) {
        PyErr_Format(PyExc_TypeError, "%s: %s must be a device array, not None", who, what);
        return -1;
    }
    if (!(b->array = cpy_asarray(NULL, obj)))
        return -1;
    DeviceArrayObject *a = (DeviceArrayObject *)b->array;
    b->count = (size_t)a->size;
    b->dtype = cpy_dtype_format_char(a->dtype);
    if (!a->contiguous)
        cpy_invalid("%s: %s must be contiguous (NCCL moves one block of memory)", who, what);
    else if (written && a->readonly)
        cpy_invalid("%s: %s is read-only, and the call writes it", who, what);
    else if (!b->dtype || !strchr(CUDYN_NCCL_DTYPES, b->dtype))
        PyErr_Format(PyExc_TypeError,
                     "%s: NCCL cannot carry %s's dtype %S; it carries the launch-format types \"%s\" "
                     "(CUDYN_NCCL_DTYPES: 8-, 32- and 64-bit integers, float16, float32, float64, complex64, "
                     "complex128)",
                     who, what, a->dtype, CUDYN_NCCL_DTYPES);
    else
        return cpy_array_ptr(a, &b->ptr);
    return -1;
}

/* The calls, as their C functions take them */
enum call_kind { ALL_REDUCE, BROADCAST, REDUCE, ALL_GATHER, REDUCE_SCATTER, SEND, RECV };

/* A call of a Communicator: what it was given and made of it. */
struct call {
    CommObject *self;
    PyObject *send_obj, *recv_obj, *op_obj, *rank_obj, *stream_obj;
    struct nccl_buf send, recv;
    int op, rank;
    cudyn_stream stream;
};

static PyObject *collective(CommObject *self, PyObject *args, PyObject *kwds, char **kw, const char *format,
                            enum call_kind k);

/* -------------------------------------------------------- collectives */

PyDoc_STRVAR(comm_all_reduce_doc,
             CPY_SIG("all_reduce($self, /, sendbuf, recvbuf=None, op='sum', stream=None)",
                     "The reduction of every rank's sendbuf into recvbuf (in place without one)."));
static PyObject *comm_all_reduce(CommObject *self, PyObject *args, PyObject *kwds)
{
    static char *kw[] = {"sendbuf", "recvbuf", "op", "stream", NULL};
    return collective(self, args, kwds, kw, "O|OOO:all_reduce", ALL_REDUCE);
}

PyDoc_STRVAR(comm_broadcast_doc, CPY_SIG("broadcast($self, /, sendbuf, recvbuf=None, root=0, stream=None)",
                                         "root's sendbuf into every rank's recvbuf."));
static PyObject *comm_broadcast(CommObject *self, PyObject *args, PyObject *kwds)
{
    static char *kw[] = {"sendbuf", "recvbuf", "root", "stream", NULL};
    return collective(self, args, kwds, kw, "O|OOO:broadcast", BROADCAST);
}

PyDoc_STRVAR(comm_reduce_doc, CPY_SIG("reduce($self, /, sendbuf, recvbuf=None, op='sum', root=0, stream=None)",
                                      "The reduction into root's recvbuf."));
static PyObject *comm_reduce(CommObject *self, PyObject *args, PyObject *kwds)
{
    static char *kw[] = {"sendbuf", "recvbuf", "op", "root", "stream", NULL};
    return collective(self, args, kwds, kw, "O|OOOO:reduce", REDUCE);
}

PyDoc_STRVAR(comm_all_gather_doc,
             CPY_SIG("all_gather($self, /, sendbuf, recvbuf, stream=None)",
                     "Every rank's sendbuf, in rank order, into every recvbuf (size x as large)."));
static PyObject *comm_all_gather(CommObject *self, PyObject *args, PyObject *kwds)
{
    static char *kw[] = {"sendbuf", "recvbuf", "stream", NULL};
    return collective(self, args, kwds, kw, "OO|O:all_gather", ALL_GATHER);
}

PyDoc_STRVAR(comm_reduce_scatter_doc,
             CPY_SIG("reduce_scatter($self, /, sendbuf, recvbuf, op='sum', stream=None)",
                     "The reduction of size blocks of sendbuf, block r into rank r's recvbuf."));
static PyObject *comm_reduce_scatter(CommObject *self, PyObject *args, PyObject *kwds)
{
    static char *kw[] = {"sendbuf", "recvbuf", "op", "stream", NULL};
    return collective(self, args, kwds, kw, "OO|OO:reduce_scatter", REDUCE_SCATTER);
}

PyDoc_STRVAR(comm_send_doc, CPY_SIG("send($self, /, buf, peer, stream=None)",
                                    "buf to peer, inside cudyn.nccl.group() with its recv."));
static PyObject *comm_send(CommObject *self, PyObject *args, PyObject *kwds)
{
    static char *kw[] = {"buf", "peer", "stream", NULL};
    return collective(self, args, kwds, kw, "OO|O:send", SEND);
}

PyDoc_STRVAR(comm_recv_doc, CPY_SIG("recv($self, /, buf, peer, stream=None)",
                                    "buf from peer, inside cudyn.nccl.group() with its send."));
static PyObject *comm_recv(CommObject *self, PyObject *args, PyObject *kwds)
{
    static char *kw[] = {"buf", "peer", "stream", NULL};
    return collective(self, args, kwds, kw, "OO|O:recv", RECV);
}

/* The method's arguments by their keywords: sendbuf (send and recv's
 * buf), recvbuf (None: in place), op, root or peer, stream.  0 or -1. */
static int given(struct call *c, PyObject *args, PyObject *kwds, char **kw, const char *format)
{
    PyObject *o[5] = {NULL, NULL, NULL, NULL, NULL};
    PyObject **slot[] = {&c->send_obj, &c->recv_obj, &c->op_obj, &c->rank_obj, &c->stream_obj};
    static const char *const names[][2] = {{"sendbuf", "buf"}, {"recvbuf", ""}, {"op", ""}, {"root", "peer"},
                                            {"stream", ""}};
    if (!PyArg_ParseTupleAndKeywords(args, kwds, format, kw, &o[0], &o[1], &o[2], &o[3], &o[4]))
        return -1;
    for (int i = 0; kw[i]; i++)
        for (int j = 0; j < 5; j++)
            if (o[i] && (strcmp(kw[i], names[j][0]) == 0 || strcmp(kw[i], names[j][1]) == 0))
                *slot[j] = o[i];
    return 0;
}

/* The buffers (of one dtype), the operation, the rank (root or peer) and
 * the stream of a call.  0 or -1. */
static int call_of(struct call *c, enum call_kind k, const char *who)
{
    int p2p = k == SEND || k == RECV, in_place = c->recv_obj == Py_None && !p2p;
    if (op_of(c->op_obj, &c->op, who) < 0 ||
        (c->rank_obj && int_of(c->rank_obj, &c->rank, who, p2p ? "peer" : "root") < 0) || !live(c->self, who) ||
        buffer_of(c->send_obj, who, p2p ? "buf" : "sendbuf", in_place || k == RECV, &c->send) < 0)
        return -1;
    if (p2p || in_place) {
        c->recv = c->send;
        Py_INCREF(c->recv.array);
    } else if (buffer_of(c->recv_obj, who, "recvbuf", 1, &c->recv) < 0) {
        return -1;
    }
    if (c->recv.dtype != c->send.dtype) {
        PyErr_Format(PyExc_TypeError, "%s: recvbuf's dtype %S differs from sendbuf's %S", who,
                     ((DeviceArrayObject *)c->recv.array)->dtype, ((DeviceArrayObject *)c->send.array)->dtype);
        return -1;
    }
    return cpy_stream(c->stream_obj, &c->stream);
}

/* The library's call of kind k; the count is that of the buffer its C
 * function counts (reduce-scatter: the block each rank receives). */
static int run(enum call_kind k, const struct call *c)
{
    cudyn_nccl_comm comm = c->self->comm;
    char t = c->send.dtype;
    switch (k) {
    case ALL_REDUCE:
        return cudyn_nccl_all_reduce(comm, c->send.ptr, c->recv.ptr, c->send.count, t, c->op, c->stream);
    case BROADCAST:
        return cudyn_nccl_broadcast(comm, c->send.ptr, c->recv.ptr, c->send.count, t, c->rank, c->stream);
    case REDUCE:
        return cudyn_nccl_reduce(comm, c->send.ptr, c->recv.ptr, c->send.count, t, c->op, c->rank, c->stream);
    case ALL_GATHER:
        return cudyn_nccl_all_gather(comm, c->send.ptr, c->recv.ptr, c->send.count, t, c->stream);
    case REDUCE_SCATTER:
        return cudyn_nccl_reduce_scatter(comm, c->send.ptr, c->recv.ptr, c->recv.count, t, c->op, c->stream);
    case SEND:
        return cudyn_nccl_send(comm, c->send.ptr, c->send.count, t, c->rank, c->stream);
    case RECV:
        return cudyn_nccl_recv(comm, c->send.ptr, c->send.count, t, c->rank, c->stream);
    }
    return CUDYN_ERROR_INVALID_ARGUMENT;
}

/* A call of kind k: its arguments by the method's keywords (kw, format),
 * checked, then run without the GIL holding what it uses (its
 * Communicator, the memory of its buffers); inside a group the holds stay
 * until the group's end.  None once queued, else the exception. */
static PyObject *collective(CommObject *self, PyObject *args, PyObject *kwds, char **kw, const char *format,
                            enum call_kind k)
{
    const char *who = strchr(format, ':') + 1;
    struct call c = {self, NULL, Py_None, NULL, NULL, Py_None, {NULL, 0, 0, 0}, {NULL, 0, 0, 0}, 0, 0, NULL};
    int st = -1;
    DeviceMemoryObject *m[2] = {NULL, NULL};
    struct cpy_held used[3] = {{(PyObject *)self, &self->in_use}, {NULL, NULL}, {NULL, NULL}};
    if (given(&c, args, kwds, kw, format) == 0 && call_of(&c, k, who) == 0) {
        for (int i = 0; i < 2; i++)
            if ((m[i] = cpy_memory_of(i ? c.recv.array : c.send.array)))
                used[i + 1] = (struct cpy_held){(PyObject *)m[i], &m[i]->in_use};
        if (cpy_nccl_group_keep(used, 3) == 0) { /* in a group: until its end, whatever the call answers */
            for (int i = 0; i < 3; i++)
                if (used[i].owner)
                    cpy_hold(used[i].owner, used[i].count);
            CPY_NOGIL(st, run(k, &c));
            for (int i = 0; i < 3; i++)
                if (used[i].owner)
                    cpy_let_go(used[i].owner, used[i].count);
        }
    }
    Py_XDECREF(c.send.array);
    Py_XDECREF(c.recv.array);
    if (st < 0)
        return NULL;
    if (st != CUDYN_OK)
        return cpy_raise(st);
    Py_RETURN_NONE;
}

/* -------------------------------------------- errors, waits, the end */

static PyObject *comm_check(CommObject *self, PyObject *unused)
{
    (void)unused;
    cudyn_nccl_comm comm = live(self, "check");
    return comm ? cpy_result(cudyn_nccl_comm_check(comm)) : NULL;
}

/* What a wait polls: done (CUDYN_OK) once the stream's work has finished
 * or NCCL has an error, either of which cudyn_nccl_comm_wait collects. */
struct nccl_poll {
    cudyn_nccl_comm comm;
    cudyn_stream stream;
};

static int nccl_query(void *p)
{
    const struct nccl_poll *q = p;
    if (cudyn_stream_query(q->stream) != CUDYN_ERROR_NOT_READY || cudyn_nccl_comm_check(q->comm) != CUDYN_OK)
        return CUDYN_OK;
    return CUDYN_ERROR_NOT_READY;
}

/* abort(): refused while in use (a call of another thread, a group not
 * yet ended); every other call refuses while it runs. */
static int abort_now(CommObject *self, const char *who)
{
    cudyn_nccl_comm comm = live(self, who);
    if (!comm || cpy_refuse_in_use(who, self->in_use) < 0)
        return -1;
    int st;
    self->aborting = 1;
    CPY_NOGIL(st, cudyn_nccl_comm_abort(comm));
    self->aborting = 0;
    return st;
}

/* What an abort that did not answer CUDYN_OK did, for a message: the
 * exception abort_now raised (st < 0, taken: not aborted), or the
 * library's error, after which the communicator is aborted where NCCL's
 * abort itself failed (origin NCCL) and not where the library refused it
 * (a group not yet ended holds it).  *aborted says which; NULL with an
 * exception. */
static PyObject *abort_outcome(int st, int *aborted)
{
    *aborted = 0;
    if (st >= 0) {
        cudyn_error err = {.size = sizeof err};
        int known = cudyn_last_error(&err) == st;
        *aborted = known && err.origin == CUDYN_ORIGIN_NCCL;
        return cpy_text(known ? err.message : cudyn_status_string(st));
    }
    PyObject *t, *v, *tb;
    PyErr_Fetch(&t, &v, &tb);
    PyObject *why = v ? PyObject_Str(v) : cpy_text(cudyn_status_string(CUDYN_ERROR_INVALID_ARGUMENT));
    Py_XDECREF(t);
    Py_XDECREF(v);
    Py_XDECREF(tb);
    return why;
}

/* wait()'s timeout: the communicator aborted as abort() aborts it
 * (abort_now: refused while another thread's call or a group not yet
 * ended holds it, and every other call refuses while it runs), then
 * CUDYN_ERROR_TIMEOUT saying what the abort did.  NULL. */
static PyObject *timed_out(CommObject *self, double seconds)
{
    int ms = (int)ceil(fmin(seconds * 1e3, INT_MAX)), aborted = 1;
    int st = abort_now(self, "wait");
    PyObject *why = st == CUDYN_OK ? NULL : abort_outcome(st, &aborted);
    if (st != CUDYN_OK && !why)
        return NULL;
    cpy_fail(CUDYN_ERROR_TIMEOUT, "wait: the work queued for rank %d of %d did not finish within %d ms, and NCCL "
             "reported no error (a peer rank may be stuck or dead, or the ranks called different collectives); "
             "the communicator was %s%V", self->rank, self->size, ms,
             !why ? "aborted" : aborted ? "aborted, with an error: " : "not aborted: ", why, "");
    Py_XDECREF(why);
    return NULL;
}

PyDoc_STRVAR(comm_wait_doc,
             CPY_SIG("wait($self, /, stream=None, timeout=None)",
                     "Waits for the stream's work, raising NCCL's asynchronous error (and aborting) if one comes; "
                     "timeout in seconds (then aborted too, unless another thread's call or a group not yet ended "
                     "holds it: the error says which).  Ctrl-C answers it."));
/* The module's interruptible wait (cpy_poll: cudyn_nccl_comm_wait does not
 * answer Ctrl-C) until the work is done or NCCL has an error, which
 * cudyn_nccl_comm_wait then collects at once (an error aborts the
 * communicator); or until the timeout (timed_out). */
static PyObject *comm_wait(CommObject *self, PyObject *args, PyObject *kwds)
{
    static char *kw[] = {"stream", "timeout", NULL};
    PyObject *stream_obj = Py_None, *timeout = Py_None;
    struct nccl_poll q = {NULL, NULL};
    double seconds = -1;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "|OO:wait", kw, &stream_obj, &timeout) ||
        !(q.comm = live(self, "wait")) || cpy_stream(stream_obj, &q.stream) < 0 ||
        (timeout != Py_None && (seconds = PyFloat_AsDouble(timeout)) == -1.0 && PyErr_Occurred()))
        return NULL;
    if (timeout != Py_None && !(seconds >= 0))
        return cpy_invalid("wait: timeout must be None or >= 0 seconds, not %R", timeout);
    cpy_hold((PyObject *)self, &self->in_use);
    int st = cpy_poll(nccl_query, &q, seconds);
    if (st >= 0 && st != CUDYN_ERROR_NOT_READY)
        CPY_NOGIL(st, cudyn_nccl_comm_wait(q.comm, q.stream, -1));
    cpy_let_go((PyObject *)self, &self->in_use);
    if (st == CUDYN_ERROR_NOT_READY)
        return timed_out(self, seconds);
    return st < 0 ? NULL : cpy_result(st);
}

static PyObject *comm_abort(CommObject *self, PyObject *unused)
{
    (void)unused;
    int st = abort_now(self, "Communicator.abort");
    return st < 0 ? NULL : cpy_result(st);
}

/* Frees the communicator (a second destroy does nothing; refused while in
 * use, or while abort() runs); the C handle is gone whatever NCCL
 * answers.  -1 with the exception, else the status. */
static int destroy(CommObject *self, const char *who)
{
    if (self->aborting) {
        cpy_invalid("%s: this Communicator is being aborted in another thread", who);
        return -1;
    }
    if (cpy_refuse_in_use(who, self->in_use) < 0)
        return -1;
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
    int st = destroy(self, "Communicator.destroy");
    return st < 0 ? NULL : cpy_result(st);
}

/* Leaving a with-block destroys; leaving it by an exception aborts first
 * (the destroy would wait for work the peers may never do), and the
 * block's exception wins over theirs. */
static PyObject *comm_exit(CommObject *self, PyObject *args)
{
    int st;
    if (PyTuple_Size(args) > 0 && PyTuple_GetItem(args, 0) != Py_None) {
        if (self->comm) /* one aborted before refuses: destroyed anyway */
            abort_now(self, "Communicator.__exit__");
        destroy(self, "Communicator.__exit__");
        PyErr_Clear();
        Py_RETURN_FALSE;
    }
    if ((st = destroy(self, "Communicator.__exit__")) != CUDYN_OK)
        return st < 0 ? NULL : cpy_raise(st);
    Py_RETURN_FALSE;
}

/* ------------------------------------------------ making communicators */

/* A Communicator around comm (destroyed if that fails); its rank, size
 * and device once it is made (described).  Made inside a group, the group
 * holds it until its end, when NCCL has made it. */
static PyObject *comm_wrap(PyTypeObject *type, cudyn_nccl_comm comm)
{
    CommObject *self = (CommObject *)PyType_GenericAlloc(type, 0);
    if (!self) {
        cudyn_nccl_comm_destroy(comm);
        return NULL;
    }
    self->comm = comm;
    self->rank = self->size = self->device = -1;
    if (described(self) < 0) /* made inside a group: known after its end */
        PyErr_Clear();
    struct cpy_held held = {(PyObject *)self, &self->in_use};
    if (cpy_nccl_group_keep(&held, 1) < 0)
        Py_CLEAR(self);
    return (PyObject *)self;
}

static int unique_id_of(PyObject *obj, cudyn_nccl_id *id)
{
    Py_buffer view;
    if (!PyObject_CheckBuffer(obj)) {
        PyObject *type = cpy_type_name(obj);
        PyErr_Format(PyExc_TypeError, "Communicator: unique_id must be the %d bytes of cudyn.nccl.get_unique_id(), "
                     "not %V", CUDYN_NCCL_ID_BYTES, type, "?");
        Py_XDECREF(type);
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
    int nranks, rank, d, st = CUDYN_OK;
    cudyn_nccl_id id;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "OOO|O:Communicator", kw, &nranks_obj, &uid, &rank_obj, &device) ||
        int_of(nranks_obj, &nranks, "Communicator", "nranks") < 0 ||
        int_of(rank_obj, &rank, "Communicator", "rank") < 0 || unique_id_of(uid, &id) < 0 ||
        (device != Py_None && int_of(device, &d, "Communicator", "device") < 0))
        return NULL;
    if (device != Py_None)
        CPY_NOGIL(st, cudyn_device_use(d));
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
                              : !(seq = cpy_tuple(devices, "Communicator.for_devices: devices must be a sequence "
                                                           "of device ordinals, or a count")))
        return NULL;
    if (seq)
        *n = PyTuple_Size(seq) > INT_MAX ? INT_MAX : (int)PyTuple_Size(seq);
    int *ordinals = *n >= 1 ? PyMem_New(int, (size_t)*n) : NULL;
    if (*n < 1)
        cpy_invalid("%s: at least one device, not %d", who, *n);
    else if (!ordinals)
        PyErr_NoMemory();
    for (int i = 0; ordinals && i < *n; i++) {
        if (!seq)
            ordinals[i] = i;
        else if (int_of(PyTuple_GetItem(seq, i), &ordinals[i], who, "a device") < 0) {
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
                PyList_SetItem(list, i, c);
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
    struct cpy_held parent = {(PyObject *)self, &self->in_use}; /* NCCL splits it at the group's end */
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O|O:split", kw, &color_obj, &key_obj) ||
        int_of(color_obj, &color, "split", "color") < 0 || !(comm = live(self, "split")))
        return NULL;
    key = self->rank;
    if ((key_obj != Py_None && int_of(key_obj, &key, "split", "key") < 0) || cpy_nccl_group_keep(&parent, 1) < 0)
        return NULL;
    cpy_hold((PyObject *)self, &self->in_use);
    CPY_NOGIL(st, cudyn_nccl_comm_split(comm, color < 0 ? CUDYN_NCCL_NO_COLOR : color, key, &out));
    cpy_let_go((PyObject *)self, &self->in_use);
    if (st != CUDYN_OK)
        return cpy_raise(st);
    if (!out)
        Py_RETURN_NONE;
    return comm_wrap(Py_TYPE((PyObject *)self), out);
}

/* Going away destroys it (after its queued work, as NCCL does); nothing
 * in flight holds it then (a hold is a reference). */
static void comm_dealloc(CommObject *self)
{
    if (self->weakrefs)
        PyObject_ClearWeakRefs((PyObject *)self);
    PyObject *t, *v, *tb;
    PyErr_Fetch(&t, &v, &tb);
    if (destroy(self, "Communicator") != CUDYN_OK) {
        PyErr_Clear();
        cudyn_clear_error(); /* a forked child's: the communicator was the parent's */
    }
    PyErr_Restore(t, v, tb);
    cpy_free(self);
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
     CPY_SIG("abort($self, /)", "Stops the communicator's work at once; destroy() follows.  Raises while in use (a "
                                "call of another thread, a group not yet ended).")},
    {"destroy", (PyCFunction)comm_destroy, METH_NOARGS,
     CPY_SIG("destroy($self, /)", "Frees the communicator after its queued work.  Raises while in use (a call of "
                                  "another thread, a group not yet ended).")},
    {"__enter__", cpy_enter, METH_NOARGS, CPY_SIG("__enter__($self, /)", "Returns itself.")},
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
static PyMemberDef comm_members[] = {
    CPY_WEAKLIST(CommObject),
    {NULL},
};
static PyType_Slot comm_slots[] = {
    {Py_tp_doc, (void *)comm_doc},
    {Py_tp_new, (void *)comm_new},
    {Py_tp_dealloc, (void *)comm_dealloc},
    {Py_tp_repr, (void *)comm_repr},
    {Py_tp_methods, comm_methods},
    {Py_tp_members, comm_members},
    {Py_tp_getset, comm_getset},
    {0, NULL},
};
static const PyType_Spec comm_spec = {"cudyn.nccl.Communicator", sizeof(CommObject), 0, CPY_TPFLAGS, comm_slots};

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
    if (cpy_type_new(module, &Comm_Type, &comm_spec, 0, "_NcclCommunicator") < 0)
        return -1;
    return cpy_nccl_functions_init(module);
}
