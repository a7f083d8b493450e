/* streams.c - Stream, Event, Graph (from a stream's capture) and
 * GraphExec, and a stream from any object that names one (cpy_stream).
 * Waiting releases the GIL and answers Ctrl-C. */
#include "cudyn_py.h"
#include <limits.h>

int cpy_stream(PyObject *obj, cudyn_stream *out)
{
    if (obj == NULL || obj == Py_None) {
        *out = NULL;
        return 0;
    }
    if (PyObject_TypeCheck(obj, Stream_Type)) {
        *out = ((StreamObject *)obj)->stream;
        return 0;
    }
    PyObject *v = NULL;
    if (PyLong_Check(obj)) {
        v = obj;
        Py_INCREF(v);
    } else {
        static const char *const attrs[] = {"handle", "cuda_stream", "ptr"};
        for (size_t i = 0; i < 3 && !v; i++) {
            v = PyObject_GetAttrString(obj, attrs[i]);
            if (!v)
                PyErr_Clear();
            else if (!PyLong_Check(v))
                Py_CLEAR(v);
        }
    }
    if (!v) {
        PyObject *type = cpy_type_name(obj);
        PyErr_Format(PyExc_TypeError, "stream must be None, a cudyn.Stream or a CUstream handle (int), not %V",
                     type, "?");
        Py_XDECREF(type);
        return -1;
    }
    unsigned long long h;
    int rc = cpy_integer(v, "stream: handle", 0, UINTPTR_MAX, &h);
    Py_DECREF(v);
    if (rc < 0)
        return -1;
    *out = cudyn_stream_from_native((void *)(uintptr_t)h);
    return 0;
}


/* ---------------------------------------------------------------- Stream */
PyDoc_STRVAR(stream_doc, CPY_SIG("Stream(flags=0)", "A CUDA stream (flags 1: non-blocking)."));
static PyObject *stream_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    static char *kw[] = {"flags", NULL};
    unsigned int flags = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "|O&:Stream", kw, cpy_flags, &flags))
        return NULL;
    cudyn_stream s = NULL;
    int st = cudyn_stream_create(&s, flags);
    if (st != CUDYN_OK)
        return cpy_raise(st);
    StreamObject *o = (StreamObject *)PyType_GenericAlloc(type, 0);
    if (!o) {
        cudyn_stream_destroy(s);
        return NULL;
    }
    o->stream = s;
    o->owned = 1;
    return (PyObject *)o;
}

static PyObject *stream_from_handle(PyObject *cls, PyObject *h)
{
    unsigned long long v;
    if (cpy_integer(h, "Stream.from_handle: handle", 0, UINTPTR_MAX, &v) < 0)
        return NULL;
    StreamObject *o = (StreamObject *)PyType_GenericAlloc((PyTypeObject *)cls, 0);
    if (!o)
        return NULL;
    o->stream = cudyn_stream_from_native((void *)(uintptr_t)v);
    o->owned = 0;
    return (PyObject *)o;
}

static void stream_dealloc(StreamObject *o)
{
    if (o->weakrefs)
        PyObject_ClearWeakRefs((PyObject *)o);
    if (o->owned && o->stream && cudyn_stream_destroy(o->stream) != CUDYN_OK)
        cudyn_clear_error();
    cpy_free(o);
}

static PyObject *stream_synchronize(StreamObject *o, PyObject *u)
{
    (void)u;
    if (cpy_wait_stream(o->stream) < 0)
        return NULL;
    Py_RETURN_NONE;
}

static PyObject *stream_query(StreamObject *o, PyObject *u)
{
    (void)u;
    int st = cudyn_stream_query(o->stream);
    if (st == CUDYN_OK)
        Py_RETURN_TRUE;
    if (st == CUDYN_ERROR_NOT_READY)
        Py_RETURN_FALSE;
    return cpy_raise(st);
}

static PyObject *stream_wait_event(StreamObject *o, PyObject *e)
{
    if (!PyObject_TypeCheck(e, Event_Type)) {
        PyErr_SetString(PyExc_TypeError, "wait_event takes a cudyn.Event");
        return NULL;
    }
    int st = cudyn_stream_wait_event(o->stream, ((EventObject *)e)->event);
    if (st != CUDYN_OK)
        return cpy_raise(st);
    Py_RETURN_NONE;
}

PyDoc_STRVAR(stream_begin_capture_doc,
             CPY_SIG("begin_capture($self, /, mode=1)", "Records work into a graph instead of running it."));
static PyObject *stream_begin_capture(StreamObject *o, PyObject *args, PyObject *kwds)
{
    static char *kw[] = {"mode", NULL};
    PyObject *mode_obj = NULL;
    int mode = CUDYN_CAPTURE_THREAD_LOCAL;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "|O:begin_capture", kw, &mode_obj) ||
        (mode_obj && cpy_int(mode_obj, &mode, "begin_capture: mode", INT_MIN, INT_MAX) < 0))
        return NULL;
    int st = cudyn_stream_begin_capture(o->stream, mode);
    if (st != CUDYN_OK)
        return cpy_raise(st);
    Py_RETURN_NONE;
}

typedef struct {
    PyObject_HEAD
    cudyn_graph graph;
} GraphObject;
typedef struct {
    PyObject_HEAD
    cudyn_graph_exec exec;
} GraphExecObject;

static PyObject *stream_end_capture(StreamObject *o, PyObject *u)
{
    (void)u;
    cudyn_graph g = NULL;
    int st = cudyn_stream_end_capture(o->stream, &g);
    if (st != CUDYN_OK)
        return cpy_raise(st);
    GraphObject *go = (GraphObject *)PyType_GenericAlloc(Graph_Type, 0);
    if (!go) {
        cudyn_graph_destroy(g);
        return NULL;
    }
    go->graph = g;
    return (PyObject *)go;
}

static PyObject *stream_capture_status(StreamObject *o, PyObject *u)
{
    (void)u;
    int status = 0;
    int st = cudyn_stream_capture_status(o->stream, &status);
    if (st != CUDYN_OK)
        return cpy_raise(st);
    return PyLong_FromLong(status);
}

static PyObject *stream_handle(StreamObject *o, void *c)
{
    (void)c;
    return PyLong_FromVoidPtr(cudyn_stream_native(o->stream));
}

static PyMethodDef stream_methods[] = {
    {"synchronize", (PyCFunction)stream_synchronize, METH_NOARGS,
     CPY_SIG("synchronize($self, /)", "Waits for the stream's work (Ctrl-C works).")},
    {"query", (PyCFunction)stream_query, METH_NOARGS, CPY_SIG("query($self, /)", "True if all its work is done.")},
    {"wait_event", (PyCFunction)stream_wait_event, METH_O,
     CPY_SIG("wait_event($self, event, /)", "Later work waits for the event.")},
    {"begin_capture", CPY_KW(stream_begin_capture),
     stream_begin_capture_doc},
    {"end_capture", (PyCFunction)stream_end_capture, METH_NOARGS,
     CPY_SIG("end_capture($self, /)", "Ends a capture: the Graph.")},
    {"capture_status", (PyCFunction)stream_capture_status, METH_NOARGS,
     CPY_SIG("capture_status($self, /)", "0 none, 1 active, 2 invalidated.")},
    {"from_handle", (PyCFunction)stream_from_handle, METH_O | METH_CLASS,
     CPY_SIG("from_handle($type, handle, /)", "A CUstream made elsewhere, an int (stays its maker's).")},
    {NULL},
};
static PyGetSetDef stream_getset[] = {
    {"handle", (getter)stream_handle, NULL, "the native CUstream (int)", NULL},
    {NULL},
};
static PyMemberDef stream_members[] = {
    CPY_WEAKLIST(StreamObject),
    {NULL},
};
static PyType_Slot stream_slots[] = {
    {Py_tp_doc, (void *)stream_doc},
    {Py_tp_new, (void *)stream_new},
    {Py_tp_dealloc, (void *)stream_dealloc},
    {Py_tp_methods, stream_methods},
    {Py_tp_members, stream_members},
    {Py_tp_getset, stream_getset},
    {0, NULL},
};
PyTypeObject *Stream_Type;
const PyType_Spec Stream_Spec = {"cudyn.Stream", sizeof(StreamObject), 0, CPY_TPFLAGS | Py_TPFLAGS_BASETYPE,
                                 stream_slots};

/* ---------------------------------------------------------------- Event */
PyDoc_STRVAR(event_doc, CPY_SIG("Event(flags=0)", "A CUDA event (flags 1: blocking sync, 2: no timing)."));
static PyObject *event_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    static char *kw[] = {"flags", NULL};
    unsigned int flags = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "|O&:Event", kw, cpy_flags, &flags))
        return NULL;
    cudyn_event e = NULL;
    int st = cudyn_event_create(&e, flags);
    if (st != CUDYN_OK)
        return cpy_raise(st);
    EventObject *o = (EventObject *)PyType_GenericAlloc(type, 0);
    if (!o) {
        cudyn_event_destroy(e);
        return NULL;
    }
    o->event = e;
    o->owned = 1;
    return (PyObject *)o;
}

static void event_dealloc(EventObject *o)
{
    if (o->weakrefs)
        PyObject_ClearWeakRefs((PyObject *)o);
    if (o->owned && o->event && cudyn_event_destroy(o->event) != CUDYN_OK)
        cudyn_clear_error();
    cpy_free(o);
}

PyDoc_STRVAR(event_record_doc, CPY_SIG("record($self, /, stream=None)", "Records the event; returns it."));
static PyObject *event_record(EventObject *o, PyObject *args, PyObject *kwds)
{
    static char *kw[] = {"stream", NULL};
    PyObject *so = Py_None;
    cudyn_stream s;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "|O:record", kw, &so) || cpy_stream(so, &s) < 0)
        return NULL;
    int st = cudyn_event_record(o->event, s);
    if (st != CUDYN_OK)
        return cpy_raise(st);
    Py_INCREF((PyObject *)o);
    return (PyObject *)o;
}

static PyObject *event_synchronize(EventObject *o, PyObject *u)
{
    (void)u;
    if (cpy_wait_event(o->event) < 0)
        return NULL;
    Py_INCREF((PyObject *)o);
    return (PyObject *)o;
}

static PyObject *event_query(EventObject *o, PyObject *u)
{
    (void)u;
    int st = cudyn_event_query(o->event);
    if (st == CUDYN_OK)
        Py_RETURN_TRUE;
    if (st == CUDYN_ERROR_NOT_READY)
        Py_RETURN_FALSE;
    return cpy_raise(st);
}

static PyObject *elapsed(cudyn_event start, cudyn_event end)
{
    float ms = 0;
    int st = cudyn_event_elapsed_ms(&ms, start, end);
    if (st != CUDYN_OK)
        return cpy_raise(st);
    return PyFloat_FromDouble(ms);
}

static int as_event(PyObject *e, cudyn_event *out)
{
    if (!PyObject_TypeCheck(e, Event_Type)) {
        PyErr_SetString(PyExc_TypeError, "an Event is needed");
        return -1;
    }
    *out = ((EventObject *)e)->event;
    return 0;
}

static PyObject *event_time_since(EventObject *o, PyObject *start)
{
    cudyn_event s;
    return as_event(start, &s) < 0 ? NULL : elapsed(s, o->event);
}

static PyObject *event_time_till(EventObject *o, PyObject *end)
{
    cudyn_event e;
    return as_event(end, &e) < 0 ? NULL : elapsed(o->event, e);
}

static PyObject *event_handle(EventObject *o, void *c)
{
    (void)c;
    return PyLong_FromVoidPtr(cudyn_event_native(o->event));
}

static PyMethodDef event_methods[] = {
    {"record", CPY_KW(event_record), event_record_doc},
    {"synchronize", (PyCFunction)event_synchronize, METH_NOARGS,
     CPY_SIG("synchronize($self, /)", "Waits for the event (Ctrl-C works).")},
    {"query", (PyCFunction)event_query, METH_NOARGS, CPY_SIG("query($self, /)", "True if it has happened.")},
    {"time_since", (PyCFunction)event_time_since, METH_O,
     CPY_SIG("time_since($self, start, /)", "Milliseconds from start to this event.")},
    {"time_till", (PyCFunction)event_time_till, METH_O,
     CPY_SIG("time_till($self, end, /)", "Milliseconds from this event to end.")},
    {NULL},
};
static PyGetSetDef event_getset[] = {
    {"handle", (getter)event_handle, NULL, "the native CUevent (int)", NULL},
    {NULL},
};
static PyMemberDef event_members[] = {
    CPY_WEAKLIST(EventObject),
    {NULL},
};
static PyType_Slot event_slots[] = {
    {Py_tp_doc, (void *)event_doc},
    {Py_tp_new, (void *)event_new},
    {Py_tp_dealloc, (void *)event_dealloc},
    {Py_tp_methods, event_methods},
    {Py_tp_members, event_members},
    {Py_tp_getset, event_getset},
    {0, NULL},
};
PyTypeObject *Event_Type;
const PyType_Spec Event_Spec = {"cudyn.Event", sizeof(EventObject), 0, CPY_TPFLAGS | Py_TPFLAGS_BASETYPE,
                                event_slots};

/* ---------------------------------------------------------------- graphs */
static void graph_dealloc(GraphObject *g)
{
    if (g->graph && cudyn_graph_destroy(g->graph) != CUDYN_OK)
        cudyn_clear_error();
    cpy_free(g);
}

PyDoc_STRVAR(graph_instantiate_doc, CPY_SIG("instantiate($self, /, flags=0)", "A launchable GraphExec."));
static PyObject *graph_instantiate(GraphObject *g, PyObject *args, PyObject *kwds)
{
    static char *kw[] = {"flags", NULL};
    unsigned int flags = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "|O&:instantiate", kw, cpy_flags, &flags))
        return NULL;
    cudyn_graph_exec e = NULL;
    int st = cudyn_graph_instantiate(&e, g->graph, flags);
    if (st != CUDYN_OK)
        return cpy_raise(st);
    GraphExecObject *o = (GraphExecObject *)PyType_GenericAlloc(GraphExec_Type, 0);
    if (!o) {
        cudyn_graph_exec_destroy(e);
        return NULL;
    }
    o->exec = e;
    return (PyObject *)o;
}

static PyMethodDef graph_methods[] = {
    {"instantiate", CPY_KW(graph_instantiate),
     graph_instantiate_doc},
    {NULL},
};

static PyType_Slot graph_slots[] = {
    {Py_tp_doc, "Captured work (Stream.end_capture); instantiate() to launch it."},
    {Py_tp_dealloc, (void *)graph_dealloc},
    {Py_tp_methods, graph_methods},
    {0, NULL},
};
PyTypeObject *Graph_Type;
const PyType_Spec Graph_Spec = {"cudyn.Graph", sizeof(GraphObject), 0, CPY_TPFLAGS_NO_NEW, graph_slots};

static void exec_dealloc(GraphExecObject *e)
{
    if (e->exec && cudyn_graph_exec_destroy(e->exec) != CUDYN_OK)
        cudyn_clear_error();
    cpy_free(e);
}

PyDoc_STRVAR(exec_launch_doc, CPY_SIG("launch($self, /, stream=None)", "Runs the whole graph."));
static PyObject *exec_launch(GraphExecObject *e, PyObject *args, PyObject *kwds)
{
    static char *kw[] = {"stream", NULL};
    PyObject *so = Py_None;
    cudyn_stream s;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "|O:launch", kw, &so) || cpy_stream(so, &s) < 0)
        return NULL;
    int st = cudyn_graph_launch(e->exec, s);
    if (st != CUDYN_OK)
        return cpy_raise(st);
    Py_RETURN_NONE;
}

static PyObject *exec_update(GraphExecObject *e, PyObject *g)
{
    if (!PyObject_TypeCheck(g, Graph_Type)) {
        PyErr_SetString(PyExc_TypeError, "update takes a Graph");
        return NULL;
    }
    int st = cudyn_graph_exec_update(e->exec, ((GraphObject *)g)->graph);
    if (st != CUDYN_OK)
        return cpy_raise(st);
    Py_RETURN_NONE;
}

static PyMethodDef exec_methods[] = {
    {"launch", CPY_KW(exec_launch), exec_launch_doc},
    {"update", (PyCFunction)exec_update, METH_O,
     CPY_SIG("update($self, graph, /)", "New parameters from a graph of the same shape.")},
    {NULL},
};

static PyType_Slot exec_slots[] = {
    {Py_tp_doc, "An instantiated graph: launch(stream=None)."},
    {Py_tp_dealloc, (void *)exec_dealloc},
    {Py_tp_methods, exec_methods},
    {0, NULL},
};
PyTypeObject *GraphExec_Type;
const PyType_Spec GraphExec_Spec = {"cudyn.GraphExec", sizeof(GraphExecObject), 0, CPY_TPFLAGS_NO_NEW, exec_slots};
