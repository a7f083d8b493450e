/* launch.c - launching a kernel: the launch keywords (grid=, block=,
 * shared=, stream=), the arguments packed by pack.c into a stack buffer
 * and handed to cudyn_launch, or, for a first call, to a cudyn_args pack
 * whose launch checks them against the kernel before anything runs.  In/Out
 * host buffers go through cudyn's own (cudyn_args_launch_async); the wait
 * for their copies back is ours, so that Ctrl-C answers it.  A Function's
 * calls (function.c) and prepared calls (prepared.c) launch through here,
 * and are timed here (time_kernel=, prepared_timed_call) between two
 * events on the launch's stream. */
#include "cudyn_py.h"
#include <limits.h>
#include <string.h>

/* launch keywords, interned once */
static PyObject *kw_grid, *kw_block, *kw_shared, *kw_stream, *kw_shared_size, *kw_time_kernel, *kw_texrefs;

/* a keyword's name is nearly always the interned string itself: compare
 * identities with every name before comparing texts */
static int kw_is(PyObject *name, PyObject *interned)
{
    return name == interned ||
           (name != kw_grid && name != kw_block && name != kw_shared && name != kw_stream &&
            name != kw_shared_size && name != kw_time_kernel && name != kw_texrefs &&
            PyUnicode_Compare(name, interned) == 0);
}

int cpy_refuse_texrefs(PyObject *texrefs, const char *who)
{
    int given = texrefs && texrefs != Py_None ? PyObject_IsTrue(texrefs) : 0;
    if (given > 0)
        cpy_invalid("%s: texrefs= names texture references, which CUDA 12 removed: pass a texture object "
                    "(cudyn.Texture over a cudyn.Array) as a kernel argument instead", who);
    return given ? -1 : 0;
}

int cpy_launch_shared(PyObject *v, unsigned int *out)
{
    unsigned long long bytes;
    if (cpy_integer(v, "shared (bytes of dynamic shared memory)", 0, UINT_MAX, &bytes) < 0)
        return -1;
    *out = (unsigned int)bytes;
    return 0;
}

int cpy_launch_keywords(PyObject *const *kwvalues, PyObject *kwnames, struct launch_opts *o, const char *who)
{
    Py_ssize_t nkw = kwnames ? PyTuple_Size(kwnames) : 0;
    for (Py_ssize_t i = 0; i < nkw; i++) {
        PyObject *k = PyTuple_GetItem(kwnames, i), *v = kwvalues[i];
        if (kw_is(k, kw_grid)) {
            if (cpy_dim3(v, &o->grid, "grid") < 0)
                return -1;
        } else if (kw_is(k, kw_block)) {
            if (cpy_dim3(v, &o->block, "block") < 0)
                return -1;
        } else if (kw_is(k, kw_shared) || kw_is(k, kw_shared_size)) {
            if (cpy_launch_shared(v, &o->shared) < 0)
                return -1;
        } else if (kw_is(k, kw_stream)) {
            if (cpy_stream(v, &o->stream) < 0)
                return -1;
        } else if (kw_is(k, kw_time_kernel)) {
            int timed = PyObject_IsTrue(v);
            if (timed < 0)
                return -1;
            o->timing = timed ? CPY_TIME_NOW : CPY_TIME_NONE;
        } else if (kw_is(k, kw_texrefs)) {
            if (cpy_refuse_texrefs(v, who) < 0)
                return -1;
        } else {
            PyErr_Format(PyExc_TypeError, "%s got an unexpected keyword argument '%U'", who, k);
            return -1;
        }
    }
    return 0;
}

/* ---------------------------------------------------------------- timing
 * A timer is a tuple of two Events (timing ones, Event's default); the
 * callable prepared_timed_call returns holds it. */
int cpy_timer_start(const struct launch_opts *o, PyObject **timer)
{
    *timer = NULL;
    if (o->timing == CPY_TIME_NONE)
        return 0;
    PyObject *start = PyObject_CallObject((PyObject *)Event_Type, NULL);
    PyObject *end = start ? PyObject_CallObject((PyObject *)Event_Type, NULL) : NULL;
    PyObject *pair = end ? PyTuple_Pack(2, start, end) : NULL;
    Py_XDECREF(start);
    Py_XDECREF(end);
    if (!pair)
        return -1;
    int st = cudyn_event_record(((EventObject *)start)->event, o->stream);
    if (st != CUDYN_OK) {
        Py_DECREF(pair);
        cpy_raise(st);
        return -1;
    }
    *timer = pair;
    return 0;
}

/* the timer's seconds, once its second event has happened (waited for,
 * Ctrl-C answers) */
static PyObject *timer_seconds(PyObject *timer, PyObject *unused)
{
    (void)unused;
    cudyn_event start = ((EventObject *)PyTuple_GetItem(timer, 0))->event,
                end = ((EventObject *)PyTuple_GetItem(timer, 1))->event;
    if (cpy_wait_event(end) < 0)
        return NULL;
    float ms = 0;
    int st = cudyn_event_elapsed_ms(&ms, start, end);
    return st == CUDYN_OK ? PyFloat_FromDouble(ms / 1000.0) : cpy_raise(st);
}

static PyMethodDef timer_seconds_def = {
    "kernel_seconds", timer_seconds, METH_NOARGS,
    CPY_SIG("kernel_seconds($self, /)", "Waits for the kernel; its time in seconds.")};

PyObject *cpy_timer_finish(PyObject *timer, PyObject *result, const struct launch_opts *o)
{
    if (!timer || !result) {
        Py_XDECREF(timer);
        return result;
    }
    Py_DECREF(result);
    PyObject *r = NULL;
    int st = cudyn_event_record(((EventObject *)PyTuple_GetItem(timer, 1))->event, o->stream);
    if (st != CUDYN_OK)
        cpy_raise(st);
    else if (o->timing == CPY_TIME_LATER)
        r = PyCFunction_New(&timer_seconds_def, timer);
    else
        r = timer_seconds(timer, NULL);
    Py_DECREF(timer);
    return r;
}

/* ---------------------------------------------------------------- launching
 * Launches argv, packed for codes.  A checking launch goes through a
 * cudyn_args pack, whose first launch checks the arguments against the
 * kernel before anything runs (CUDYN_ERROR_INVALID_LAUNCH_ARGUMENTS naming
 * the parameter); later calls with the same layout skip the check. */
static int launch_argv(cudyn_function f, const char *codes, void **argv, size_t *sizes, int n,
                       const struct launch_opts *o, struct call_state *cs)
{
    int st;
    if (!cs->checking)
        st = cudyn_launch(f, o->grid, o->block, o->shared, o->stream, argv);
    else {
        cudyn_args *pack = NULL;
        st = cudyn_args_create(&pack, f, codes);
        for (int i = 0; st == CUDYN_OK && i < n; i++)
            st = cudyn_args_set_value(pack, i, argv[i], sizes[i]);
        if (st == CUDYN_OK)
            st = cudyn_args_launch(pack, o->grid, o->block, o->shared, o->stream);
        cudyn_args_free(pack);
    }
    cs->status = st;
    return st;
}

static int is_host_arg(char code)
{
    cudyn_arg_kind k = cpy_code(code)->kind;
    return k == CUDYN_ARG_IN || k == CUDYN_ARG_OUT || k == CUDYN_ARG_INOUT;
}

/* The host arrays of In/Out/InOut arguments as C-contiguous buffers (and
 * writable where copied back); have[i] marks those taken.  0 or -1. */
static int host_views(FunctionObject *fn, const char *codes, PyObject *const *args, int n, Py_buffer *views,
                      char *have)
{
    for (int i = 0; i < n; i++) {
        if (!is_host_arg(codes[i]))
            continue;
        int in = cpy_code(codes[i])->kind == CUDYN_ARG_IN;
        PyObject *host = ((HostArgObject *)args[i])->array;
        const char *type = cpy_host_arg_name(codes[i]);
        int rc = cpy_host_buffer(host, &views[i], (in ? PyBUF_SIMPLE : PyBUF_WRITABLE) | PyBUF_C_CONTIGUOUS, type);
        if (rc == -1)
            return -1;
        if (rc < 0) {
            cpy_invalid("%U: argument %d (%s): the host array must be C-contiguous%s", fn->name, i + 1,
                        strrchr(type, '.') + 1, in ? "" : " and writable");
            return -1;
        }
        have[i] = 1;
    }
    return 0;
}

/* A pack of the values and host buffers, launched without waiting for the
 * copies back (cudyn_args_launch_async); checked as cs says. */
static int launch_pack_async(FunctionObject *fn, const char *codes, void **argv, size_t *sizes, int n,
                             Py_buffer *views, const struct launch_opts *o, struct call_state *cs, cudyn_args **pack)
{
    int st = cudyn_args_create(pack, fn->f, codes);
    if (st == CUDYN_OK)
        st = cudyn_args_check(*pack, cs->checking);
    for (int i = 0; st == CUDYN_OK && i < n; i++)
        st = is_host_arg(codes[i]) ? cudyn_args_set_buffer(*pack, i, views[i].buf, (size_t)views[i].len)
                                   : cudyn_args_set_value(*pack, i, argv[i], sizes[i]);
    if (st == CUDYN_OK)
        CPY_NOGIL(st, cudyn_args_launch_async(*pack, o->grid, o->block, o->shared, o->stream));
    cs->status = st;
    return st;
}

/* The lifetime rule for a launch that releases the GIL: the DeviceMemory
 * behind each device argument is held (cpy_memory_hold) until the launch
 * and its copies back are done, so that free() in another thread raises
 * instead of handing the kernel freed memory.  held[i] gets each, NULL
 * for none.  0, or -1 where one was freed after its address was packed (by
 * Python code a later argument ran). */
static int hold_device_args(const char *codes, PyObject *const *args, int n, DeviceMemoryObject **held)
{
    int freed = 0;
    for (int i = 0; i < n; i++) {
        held[i] = is_host_arg(codes[i]) ? NULL : cpy_memory_of(args[i]);
        if (held[i])
            cpy_memory_hold(held[i]);
        freed |= held[i] && held[i]->freed;
    }
    if (freed)
        cpy_invalid("a kernel argument's memory was freed while the arguments were packed");
    return freed ? -1 : 0;
}

/* A launch with In/Out/InOut buffers: cudyn copies them in, launches and
 * queues the copies back; we wait for the stream (Ctrl-C answers), then
 * cudyn_args_finish frees the device buffers once the stream is done, also
 * after a failure or an interrupt.  The first error is the one raised. */
static PyObject *launch_with_host_args(FunctionObject *fn, const char *codes, PyObject *const *args, int n,
                                       void **argv, size_t *sizes, const struct launch_opts *o, struct call_state *cs)
{
    Py_buffer views[CUDYN_MAX_ARGS];
    char have[CUDYN_MAX_ARGS] = {0};
    DeviceMemoryObject *held[CUDYN_MAX_ARGS];
    cudyn_args *pack = NULL;
    PyObject *result = NULL;
    if (hold_device_args(codes, args, n, held) == 0 && host_views(fn, codes, args, n, views, have) == 0) {
        int st = launch_pack_async(fn, codes, argv, sizes, n, views, o, cs, &pack);
        if (st != CUDYN_OK)
            cpy_raise(st);
        else if (cpy_wait_stream(o->stream) == 0) {
            Py_INCREF(Py_None);
            result = Py_None;
        }
    }
    if (pack) {
        int st;
        CPY_NOGIL(st, cudyn_args_finish(pack));
        if (st != CUDYN_OK && result) {
            Py_CLEAR(result);
            cpy_raise(st);
        }
        cudyn_args_free(pack);
    }
    for (int i = 0; i < n; i++) {
        if (have[i])
            PyBuffer_Release(&views[i]);
        cpy_memory_release(held[i]);
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

PyObject *cpy_pack_and_launch(FunctionObject *fn, const char *codes, int host_args, PyObject *const *args, int n,
                              const struct launch_opts *o, struct call_state *cs)
{
    _Alignas(16) unsigned char arena[CUDYN_MAX_ARGS * 16 + 4096];
    void *argv[CUDYN_MAX_ARGS];
    size_t sizes[CUDYN_MAX_ARGS];
    size_t used = 0;
    for (int i = 0; i < n; i++) {
        char c = codes[i];
        size_t size = 0;
        if (host_args && is_host_arg(c)) {
            PyTypeObject *t = Py_TYPE(args[i]);
            if ((t != In_Type && t != Out_Type && t != InOut_Type) || ((HostArgObject *)args[i])->code != c) {
                cs->unsuited = i;
                return NULL;
            }
            argv[i] = NULL; /* cudyn_args_set_buffer sets it */
            sizes[i] = 0;
            continue;
        }
        if (used + (cpy_code(c)->kind == CUDYN_ARG_STRUCT ? 4096 : 16) > sizeof arena) {
            cpy_invalid("%U: the arguments take more than %zu bytes", fn->name, sizeof arena);
            return NULL;
        }
        int rc = cpy_pack(c, args[i], arena + used, &size, fn->device);
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

int cpy_launch_init(void)
{
    return (kw_grid = PyUnicode_InternFromString("grid")) && (kw_block = PyUnicode_InternFromString("block")) &&
                   (kw_shared = PyUnicode_InternFromString("shared")) &&
                   (kw_stream = PyUnicode_InternFromString("stream")) &&
                   (kw_shared_size = PyUnicode_InternFromString("shared_size")) &&
                   (kw_time_kernel = PyUnicode_InternFromString("time_kernel")) &&
                   (kw_texrefs = PyUnicode_InternFromString("texrefs"))
               ? 0
               : -1;
}
