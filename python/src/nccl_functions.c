/* nccl_functions.c - cudyn.nccl's module functions (_nccl_*, with
 * python/cudyn/nccl.py as their face): a unique id, what cudyn found of
 * NCCL, whether it has a function, whether MPI itself moves device memory
 * (the choice beside NCCL), and groups.
 *
 * The calling thread's group as the module keeps it: how deep (as the
 * library's, cudyn_nccl_group_*), and the lifetime rule's holds
 * (cudyn_py.h, cpy_hold) that the calls it keeps take: their
 * Communicators, the memory of their buffers, the communicators made in
 * it.  They are let go at the outermost end, once NCCL has the calls (or
 * the end refused them all), so that nothing a kept call will use can be
 * freed, destroyed or aborted before. */
#include "cudyn_py.h"

static _Thread_local struct {
    int depth;
    struct cpy_held *held; /* PyMem */
    size_t n, cap;
} group;

int cpy_nccl_group_keep(const struct cpy_held *held, int n)
{
    if (group.depth == 0)
        return 0;
    if (group.n + (size_t)n > group.cap) {
        size_t cap = group.cap ? 2 * group.cap + (size_t)n : 16 + (size_t)n;
        struct cpy_held *more = PyMem_Realloc(group.held, cap * sizeof *more);
        if (!more) {
            PyErr_NoMemory();
            return -1;
        }
        group.held = more;
        group.cap = cap;
    }
    for (int i = 0; i < n; i++)
        if (held[i].owner) {
            cpy_hold(held[i].owner, held[i].count);
            group.held[group.n++] = held[i];
        }
    return 0;
}

/* The outermost end: every hold of the group goes. */
static void group_lets_go(void)
{
    struct cpy_held *held = group.held;
    size_t n = group.n;
    group.held = NULL;
    group.n = group.cap = 0;
    for (size_t i = 0; i < n; i++)
        cpy_let_go(held[i].owner, held[i].count);
    PyMem_Free(held);
}

static PyObject *f_group_start(PyObject *self, PyObject *unused)
{
    (void)self, (void)unused;
    int st = cudyn_nccl_group_start();
    if (st == CUDYN_OK)
        group.depth++;
    return cpy_result(st);
}

static PyObject *f_group_end(PyObject *self, PyObject *unused)
{
    (void)self, (void)unused;
    int st;
    CPY_NOGIL(st, cudyn_nccl_group_end());
    if (group.depth > 0 && --group.depth == 0)
        group_lets_go();
    return cpy_result(st);
}

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
    return Py_BuildValue("{s:i,s:s,s:N,s:N,s:i,s:N,s:d,s:N}", "status", info.status, "status_name",
                         cudyn_status_name(info.status), "path", cpy_text(info.path), "found_by",
                         cpy_text(info.found_by), "version", info.version, "version_string",
                         cpy_text(info.version_string), "load_ms", info.load_ms, "trace", cpy_text(info.trace));
}

static PyObject *f_has(PyObject *self, PyObject *name)
{
    (void)self;
    const char *s = cpy_utf8(name, "has: name");
    int has;
    if (!s)
        return NULL;
    CPY_NOGIL(has, cudyn_has(s));
    return PyBool_FromLong(has);
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
    return Py_BuildValue("{s:s,s:N,s:N}", "answer", answer, "source", cpy_text(m.source), "reason",
                         cpy_text(m.reason));
}

static PyMethodDef nccl_functions[] = {
    {"_nccl_unique_id", f_unique_id, METH_NOARGS,
     CPY_SIG("_nccl_unique_id($module, /)", "A new unique id: 128 bytes (cudyn_nccl_unique_id).")},
    {"_nccl_info", CPY_KW(f_info), f_info_doc},
    {"_nccl_has", f_has, METH_O,
     CPY_SIG("_nccl_has($module, name, /)", "Whether the NCCL found has the function (cudyn_has).")},
    {"_nccl_group_start", f_group_start, METH_NOARGS,
     CPY_SIG("_nccl_group_start($module, /)", "cudyn_nccl_group_start.")},
    {"_nccl_group_end", f_group_end, METH_NOARGS,
     CPY_SIG("_nccl_group_end($module, /)", "cudyn_nccl_group_end; the outermost end lets go of what its calls held.")},
    {"_mpi_cuda_support", f_mpi_cuda_support, METH_NOARGS,
     CPY_SIG("_mpi_cuda_support($module, /)", "cudyn_mpi_cuda_support as a dict.")},
    {NULL, NULL, 0, NULL},
};

int cpy_nccl_functions_init(PyObject *module)
{
    if (PyModule_AddFunctions(module, nccl_functions) < 0 ||
        PyModule_AddStringConstant(module, "_nccl_dtypes", CUDYN_NCCL_DTYPES) < 0 ||
        PyModule_AddIntConstant(module, "_NCCL_ID_BYTES", CUDYN_NCCL_ID_BYTES) < 0)
        return -1;
    return 0;
}
