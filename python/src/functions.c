/* functions.c - the module's functions: versions, statuses, the loader,
 * devices, memory copies and sets, the cache, pointer queries. */
#include "cudyn_py.h"
#include <limits.h>
#include <stddef.h>
#include <string.h>

/* sets d[key] = v (stealing v); 0 or -1 */
static int put(PyObject *d, const char *key, PyObject *v)
{
    if (!v)
        return -1;
    int rc = PyDict_SetItemString(d, key, v);
    Py_DECREF(v);
    return rc;
}

static PyObject *f_version(PyObject *m, PyObject *u)
{
    (void)m, (void)u;
    return PyUnicode_FromString(cudyn_version());
}

PyDoc_STRVAR(f_init_doc, CPY_SIG("init($module, /, flags=0)",
                                 "Loads the driver now (flags: 1 legacy, 2 per-thread default stream)."));
static PyObject *f_init(PyObject *m, PyObject *args, PyObject *kwds)
{
    (void)m;
    static char *kw[] = {"flags", NULL};
    unsigned int flags = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "|O&:init", kw, cpy_flags, &flags))
        return NULL;
    int st;
    CPY_NOGIL(st, cudyn_init(flags));
    if (st != CUDYN_OK)
        return cpy_raise(st);
    Py_RETURN_NONE;
}

static PyObject *f_status_name(PyObject *m, PyObject *n)
{
    (void)m;
    int v;
    return cpy_int(n, &v, "status", INT_MIN, INT_MAX) < 0 ? NULL : PyUnicode_FromString(cudyn_status_name(v));
}

static PyObject *f_status_string(PyObject *m, PyObject *n)
{
    (void)m;
    int v;
    return cpy_int(n, &v, "status", INT_MIN, INT_MAX) < 0 ? NULL : PyUnicode_FromString(cudyn_status_string(v));
}

PyDoc_STRVAR(f_loader_info_doc, CPY_SIG("loader_info($module, /, load=3)", "What the loader found, as a dict."));
static PyObject *f_loader_info(PyObject *m, PyObject *args, PyObject *kwds)
{
    (void)m;
    static char *kw[] = {"load", NULL};
    unsigned int load = CUDYN_LOAD_ALL;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "|O&:loader_info", kw, cpy_flags, &load))
        return NULL;
    struct cudyn_loader_info l = {.size = sizeof l};
    int st;
    CPY_NOGIL(st, cudyn_loader_info_ex(&l, load));
    (void)st; /* the report says what failed */
    cudyn_clear_error();
    PyObject *d = PyDict_New();
    if (!d)
        return NULL;
    if (put(d, "driver_status", PyUnicode_FromString(cudyn_status_name(l.driver_status))) ||
        put(d, "init_status", PyUnicode_FromString(cudyn_status_name(l.init_status))) ||
        put(d, "driver_path", cpy_text(l.driver_path)) || put(d, "driver_found_by", cpy_text(l.driver_found_by)) ||
        put(d, "driver_version", PyLong_FromLong(l.driver_version)) ||
        put(d, "entry_mechanism", cpy_text(l.entry_mechanism_name)) ||
        put(d, "symbols_bound", PyLong_FromLong(l.symbols_bound)) ||
        put(d, "symbols_missing", PyLong_FromLong(l.symbols_missing)) ||
        put(d, "per_thread_stream", PyBool_FromLong(l.per_thread_stream)) ||
        put(d, "driver_trace", cpy_text(l.driver_trace)) ||
        put(d, "nvrtc_status", PyUnicode_FromString(cudyn_status_name(l.nvrtc_status))) ||
        put(d, "nvrtc_path", cpy_text(l.nvrtc_path)) || put(d, "nvrtc_found_by", cpy_text(l.nvrtc_found_by)) ||
        put(d, "nvrtc_version", PyLong_FromLong(l.nvrtc_version)) || put(d, "nvrtc_trace", cpy_text(l.nvrtc_trace)) ||
        put(d, "nvrtc_builtins_path", cpy_text(l.nvrtc_builtins_path)) ||
        put(d, "driver_load_ms", PyFloat_FromDouble(l.driver_load_ms)) ||
        put(d, "init_ms", PyFloat_FromDouble(l.init_ms)) ||
        put(d, "nvrtc_load_ms", PyFloat_FromDouble(l.nvrtc_load_ms)) ||
        put(d, "driver_dlopen_ms", PyFloat_FromDouble(l.driver_dlopen_ms))) {
        Py_DECREF(d);
        return NULL;
    }
    return d;
}

static PyObject *f_last_error(PyObject *m, PyObject *u)
{
    (void)m, (void)u;
    cudyn_error e = {.size = sizeof e};
    if (cudyn_last_error(&e) == CUDYN_OK)
        Py_RETURN_NONE;
    return Py_BuildValue("{s:i,s:s,s:s,s:i,s:N,s:N,s:N,s:N}", "status", e.status, "status_name",
                         cudyn_status_name(e.status), "origin", cpy_origin_name(e.origin), "native_code",
                         e.native_code, "native_name", cpy_text(e.native_name), "function", cpy_text(e.function),
                         "message", cpy_text(e.message), "hint", cpy_text(e.hint));
}

static PyObject *f_device_count(PyObject *m, PyObject *u)
{
    (void)m, (void)u;
    int n = 0, st;
    CPY_NOGIL(st, cudyn_device_count(&n));
    if (st != CUDYN_OK)
        return cpy_raise(st);
    return PyLong_FromLong(n);
}

static int ordinal_arg(PyObject *o, int *out)
{
    return cpy_int(o, out, "ordinal", INT_MIN, INT_MAX); /* the driver names a device out of range */
}

/* every field of struct cudyn_device_info, in its order: the dict's keys
 * are the field names (compute_capability is the pair cc_major, cc_minor) */
enum field_kind { F_INT, F_TEXT, F_BYTES16, F_U64, F_INT3, F_CC };
#define FIELD(name, kind) {#name, offsetof(struct cudyn_device_info, name), kind}
static const struct device_field {
    const char *name;
    size_t offset;
    enum field_kind kind;
} device_fields[] = {
    FIELD(ordinal, F_INT), FIELD(name, F_TEXT), FIELD(uuid, F_BYTES16), FIELD(uuid_string, F_TEXT),
    FIELD(pci_bus_id, F_TEXT), FIELD(pci_domain, F_INT), FIELD(pci_bus, F_INT), FIELD(pci_device, F_INT),
    {"compute_capability", offsetof(struct cudyn_device_info, cc_major), F_CC}, FIELD(cc_major, F_INT),
    FIELD(cc_minor, F_INT), FIELD(total_memory, F_U64), FIELD(multiprocessors, F_INT), FIELD(clock_khz, F_INT),
    FIELD(memory_clock_khz, F_INT), FIELD(memory_bus_width, F_INT), FIELD(l2_cache_bytes, F_INT),
    FIELD(shared_memory_per_block, F_INT), FIELD(shared_memory_per_block_optin, F_INT),
    FIELD(shared_memory_per_multiprocessor, F_INT), FIELD(registers_per_block, F_INT),
    FIELD(registers_per_multiprocessor, F_INT), FIELD(warp_size, F_INT), FIELD(max_threads_per_block, F_INT),
    FIELD(max_threads_per_multiprocessor, F_INT), FIELD(max_block_dim, F_INT3), FIELD(max_grid_dim, F_INT3),
    FIELD(async_engines, F_INT), FIELD(ecc_enabled, F_INT), FIELD(integrated, F_INT), FIELD(managed_memory, F_INT),
    FIELD(unified_addressing, F_INT), FIELD(concurrent_kernels, F_INT), FIELD(compute_mode, F_INT),
    FIELD(kernel_exec_timeout, F_INT), FIELD(cooperative_launch, F_INT),
};
#undef FIELD

static PyObject *device_field_value(const struct cudyn_device_info *info, const struct device_field *f)
{
    const char *at = (const char *)info + f->offset;
    const int *ints = (const int *)(const void *)at;
    switch (f->kind) {
    case F_INT: return PyLong_FromLong(ints[0]);
    case F_TEXT: return cpy_text(at);
    case F_BYTES16: return PyBytes_FromStringAndSize(at, 16);
    case F_U64: return PyLong_FromUnsignedLongLong(*(const uint64_t *)(const void *)at);
    case F_INT3: return Py_BuildValue("(iii)", ints[0], ints[1], ints[2]);
    case F_CC: return Py_BuildValue("(ii)", info->cc_major, info->cc_minor);
    }
    return NULL;
}

static PyObject *f_device_info(PyObject *m, PyObject *o)
{
    (void)m;
    int dev, st;
    if (ordinal_arg(o, &dev) < 0)
        return NULL;
    struct cudyn_device_info i = {.size = sizeof i};
    CPY_NOGIL(st, cudyn_device_info(dev, &i));
    if (st != CUDYN_OK)
        return cpy_raise(st);
    PyObject *d = PyDict_New();
    for (size_t k = 0; d && k < sizeof device_fields / sizeof device_fields[0]; k++)
        if (put(d, device_fields[k].name, device_field_value(&i, &device_fields[k])) < 0)
            Py_CLEAR(d);
    return d;
}

/* The CPUs next to the device, NVML's (cudyn_nvml_device_for_ordinal),
 * as a frozenset of CPU numbers for os.sched_setaffinity; None where NVML
 * cannot tell.  NVML missing or not matching the device raises. */
static PyObject *f_cpu_affinity(PyObject *m, PyObject *o)
{
    (void)m;
    int dev, st;
    if (ordinal_arg(o, &dev) < 0)
        return NULL;
    struct cudyn_nvml_device d = {.size = sizeof d};
    CPY_NOGIL(st, cudyn_nvml_device_for_ordinal(dev, &d));
    if (st != CUDYN_OK)
        return cpy_raise(st);
    if (d.cpu_affinity_status != CUDYN_OK)
        Py_RETURN_NONE;
    PyObject *cpus = PySet_New(NULL);
    for (unsigned int c = 0; cpus && c < CUDYN_NVML_MAX_CPUS; c++) {
        if (!((d.cpu_affinity[c / CUDYN_NVML_CPU_WORD_BITS] >> (c % CUDYN_NVML_CPU_WORD_BITS)) & 1))
            continue;
        PyObject *n = PyLong_FromUnsignedLong(c);
        if (!n || PySet_Add(cpus, n) < 0)
            Py_CLEAR(cpus);
        Py_XDECREF(n);
    }
    PyObject *frozen = cpus ? PyFrozenSet_New(cpus) : NULL;
    Py_XDECREF(cpus);
    return frozen;
}

/* attribute values 1 .. 255 that have a name */
static PyObject *f_device_attributes(PyObject *m, PyObject *o)
{
    (void)m;
    int dev;
    if (ordinal_arg(o, &dev) < 0)
        return NULL;
    PyObject *d = PyDict_New();
    for (int a = 1; d && a < 256; a++) {
        const char *name = cudyn_device_attr_name(a);
        if (!name)
            continue;
        int v = 0, st = cudyn_device_attribute(dev, a, &v);
        if (st == CUDYN_ERROR_NOT_SUPPORTED) {
            cudyn_clear_error();
            continue;
        }
        if (st != CUDYN_OK) {
            Py_DECREF(d);
            return cpy_raise(st);
        }
        if (put(d, name, PyLong_FromLong(v)) < 0)
            Py_CLEAR(d);
    }
    return d;
}

static PyObject *f_device_attribute(PyObject *m, PyObject *args)
{
    (void)m;
    int dev;
    PyObject *ordinal, *which;
    if (!PyArg_ParseTuple(args, "OO:device_attribute", &ordinal, &which) || ordinal_arg(ordinal, &dev) < 0)
        return NULL;
    int attr = -1;
    if (PyLong_Check(which)) {
        if (cpy_int(which, &attr, "device_attribute: attribute", 0, INT_MAX) < 0)
            return NULL;
    } else {
        const char *name = PyUnicode_AsUTF8AndSize(which, NULL);
        if (!name)
            return NULL;
        for (int a = 1; a < 256 && attr < 0; a++) {
            const char *n = cudyn_device_attr_name(a);
            if (n && strcmp(n, name) == 0)
                attr = a;
        }
        if (attr < 0)
            return cpy_invalid("device_attribute: no attribute named '%s'", name);
    }
    int v = 0, st = cudyn_device_attribute(dev, attr, &v);
    if (st != CUDYN_OK)
        return cpy_raise(st);
    return PyLong_FromLong(v);
}

static PyObject *f_device_use(PyObject *m, PyObject *o)
{
    (void)m;
    int dev, st;
    if (ordinal_arg(o, &dev) < 0)
        return NULL;
    CPY_NOGIL(st, cudyn_device_use(dev));
    if (st != CUDYN_OK)
        return cpy_raise(st);
    Py_RETURN_NONE;
}

static PyObject *f_device_current(PyObject *m, PyObject *u)
{
    (void)m, (void)u;
    int d = cpy_current_device();
    return d < 0 ? NULL : PyLong_FromLong(d);
}

static PyObject *f_synchronize(PyObject *m, PyObject *u)
{
    (void)m, (void)u;
    if (cpy_wait_context() < 0)
        return NULL;
    Py_RETURN_NONE;
}

static PyObject *f_mem_info(PyObject *m, PyObject *u)
{
    (void)m, (void)u;
    size_t fr = 0, total = 0;
    int st = cudyn_mem_info(&fr, &total);
    if (st != CUDYN_OK)
        return cpy_raise(st);
    return Py_BuildValue("(nn)", (Py_ssize_t)fr, (Py_ssize_t)total);
}

static PyObject *f_can_access_peer(PyObject *m, PyObject *args)
{
    (void)m;
    int a, b, can = 0;
    PyObject *oa, *ob;
    if (!PyArg_ParseTuple(args, "OO:can_access_peer", &oa, &ob) || ordinal_arg(oa, &a) < 0 || ordinal_arg(ob, &b) < 0)
        return NULL;
    int st = cudyn_device_can_access_peer(a, b, &can);
    if (st != CUDYN_OK)
        return cpy_raise(st);
    return PyBool_FromLong(can);
}

static PyObject *f_enable_peer(PyObject *m, PyObject *args)
{
    (void)m;
    int a, b;
    PyObject *oa, *ob;
    if (!PyArg_ParseTuple(args, "OO:enable_peer", &oa, &ob) || ordinal_arg(oa, &a) < 0 || ordinal_arg(ob, &b) < 0)
        return NULL;
    int st = cudyn_device_enable_peer(a, b);
    if (st != CUDYN_OK)
        return cpy_raise(st);
    Py_RETURN_NONE;
}

static PyObject *f_cache_info(PyObject *m, PyObject *u)
{
    (void)m, (void)u;
    struct cudyn_cache_info c = {.size = sizeof c};
    int st = cudyn_cache_info(&c);
    if (st != CUDYN_OK)
        return cpy_raise(st);
    PyObject *d = PyDict_New();
    if (d && (put(d, "enabled", PyBool_FromLong(c.enabled)) || put(d, "directory", cpy_text(c.directory)) ||
              put(d, "reason", cpy_text(c.reason)) || put(d, "entries", PyLong_FromUnsignedLongLong(c.entries)) ||
              put(d, "bytes", PyLong_FromUnsignedLongLong(c.bytes)) ||
              put(d, "max_bytes", PyLong_FromUnsignedLongLong(c.max_bytes))))
        Py_CLEAR(d);
    return d;
}

static PyObject *f_cache_clear(PyObject *m, PyObject *u)
{
    (void)m, (void)u;
    uint64_t removed = 0;
    int st;
    CPY_NOGIL(st, cudyn_cache_clear(&removed));
    if (st != CUDYN_OK)
        return cpy_raise(st);
    return PyLong_FromUnsignedLongLong(removed);
}

/* Each copy and set holds the DeviceMemory behind its device operand
 * (cpy_devptr_use) while it runs without the GIL: free() from another
 * thread refuses meanwhile.  A host operand is any contiguous buffer (C or
 * Fortran order: the bytes are copied as they lie). */

PyDoc_STRVAR(f_memcpy_htod_doc, CPY_SIG("memcpy_htod($module, /, dst, src, stream=None)",
                                        "Copies the host buffer src to device memory dst."));
static PyObject *f_memcpy_htod(PyObject *m, PyObject *args, PyObject *kwds)
{
    (void)m;
    static char *kw[] = {"dst", "src", "stream", NULL};
    PyObject *dst, *src, *so = Py_None;
    cudyn_devptr p;
    cudyn_stream s;
    DeviceMemoryObject *held;
    Py_buffer v;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "OO|O:memcpy_htod", kw, &dst, &src, &so) || cpy_stream(so, &s) < 0)
        return NULL;
    int rc = cpy_host_buffer(src, &v, PyBUF_ANY_CONTIGUOUS, "memcpy_htod: src");
    if (rc < 0)
        return rc == -1 ? NULL : cpy_invalid("memcpy_htod: src must be a contiguous host buffer (C or Fortran order)");
    int st = CUDYN_OK;
    if (cpy_devptr_use(dst, &p, "memcpy_htod: dst", 1, &held) < 0)
        st = -1;
    else if (so == Py_None)
        CPY_NOGIL(st, cudyn_memcpy_htod(p, v.buf, (size_t)v.len));
    else
        CPY_NOGIL(st, cudyn_memcpy_htod_async(p, v.buf, (size_t)v.len, s));
    PyBuffer_Release(&v);
    cpy_memory_release(held);
    if (st != CUDYN_OK)
        return st < 0 ? NULL : cpy_raise(st);
    Py_RETURN_NONE;
}

PyDoc_STRVAR(f_memcpy_dtoh_doc, CPY_SIG("memcpy_dtoh($module, /, dst, src, stream=None)",
                                        "Copies device memory src into the writable host buffer dst."));
static PyObject *f_memcpy_dtoh(PyObject *m, PyObject *args, PyObject *kwds)
{
    (void)m;
    static char *kw[] = {"dst", "src", "stream", NULL};
    PyObject *dst, *src, *so = Py_None;
    cudyn_devptr p;
    cudyn_stream s;
    DeviceMemoryObject *held;
    Py_buffer v;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "OO|O:memcpy_dtoh", kw, &dst, &src, &so) || cpy_stream(so, &s) < 0)
        return NULL;
    int rc = cpy_host_buffer(dst, &v, PyBUF_WRITABLE | PyBUF_ANY_CONTIGUOUS, "memcpy_dtoh: dst");
    if (rc < 0)
        return rc == -1 ? NULL
                        : cpy_invalid("memcpy_dtoh: dst must be a writable, contiguous host buffer (C or Fortran "
                                      "order)");
    int st = CUDYN_OK;
    if (cpy_devptr_use(src, &p, "memcpy_dtoh: src", 0, &held) < 0)
        st = -1;
    else if (so == Py_None)
        CPY_NOGIL(st, cudyn_memcpy_dtoh(v.buf, p, (size_t)v.len));
    else
        CPY_NOGIL(st, cudyn_memcpy_dtoh_async(v.buf, p, (size_t)v.len, s));
    PyBuffer_Release(&v);
    cpy_memory_release(held);
    if (st != CUDYN_OK)
        return st < 0 ? NULL : cpy_raise(st);
    Py_RETURN_NONE;
}

PyDoc_STRVAR(f_memcpy_dtod_doc, CPY_SIG("memcpy_dtod($module, /, dst, src, nbytes, stream=None)",
                                        "Copies nbytes of device memory from src to dst."));
static PyObject *f_memcpy_dtod(PyObject *m, PyObject *args, PyObject *kwds)
{
    (void)m;
    static char *kw[] = {"dst", "src", "nbytes", "stream", NULL};
    PyObject *dst, *src, *n, *so = Py_None;
    cudyn_devptr d, sp;
    cudyn_stream s;
    size_t bytes;
    DeviceMemoryObject *held_dst, *held_src;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "OOO|O:memcpy_dtod", kw, &dst, &src, &n, &so) ||
        cpy_size(n, &bytes, "memcpy_dtod: nbytes") < 0 || cpy_stream(so, &s) < 0 ||
        cpy_devptr_use(dst, &d, "memcpy_dtod: dst", 1, &held_dst) < 0)
        return NULL;
    if (cpy_devptr_use(src, &sp, "memcpy_dtod: src", 0, &held_src) < 0) {
        cpy_memory_release(held_dst);
        return NULL;
    }
    int st;
    if (so == Py_None)
        CPY_NOGIL(st, cudyn_memcpy_dtod(d, sp, bytes));
    else
        CPY_NOGIL(st, cudyn_memcpy_dtod_async(d, sp, bytes, s));
    cpy_memory_release(held_dst);
    cpy_memory_release(held_src);
    if (st != CUDYN_OK)
        return cpy_raise(st);
    Py_RETURN_NONE;
}

#define MEMSET_DOC(name, what)                                                                                 \
    CPY_SIG(name "($module, /, ptr, value, count, stream=None)", "Sets count " what " at ptr to value.")
PyDoc_STRVAR(f_memset_d8_doc, MEMSET_DOC("memset_d8", "bytes"));
PyDoc_STRVAR(f_memset_d16_doc, MEMSET_DOC("memset_d16", "16-bit words"));
PyDoc_STRVAR(f_memset_d32_doc, MEMSET_DOC("memset_d32", "32-bit words"));
static PyObject *memset_any(PyObject *args, PyObject *kwds, int width, const char *fmt)
{
    static char *kw[] = {"ptr", "value", "count", "stream", NULL};
    PyObject *dst, *value_obj, *n, *so = Py_None;
    unsigned long long value;
    cudyn_devptr p;
    cudyn_stream s;
    size_t count;
    DeviceMemoryObject *held;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, fmt, kw, &dst, &value_obj, &n, &so) ||
        cpy_integer(value_obj, "memset: value", 0, ~0ULL >> (64 - 8 * width), &value) < 0 ||
        cpy_size(n, &count, "memset: count") < 0 || cpy_stream(so, &s) < 0 ||
        cpy_devptr_use(dst, &p, "memset: ptr", 1, &held) < 0)
        return NULL;
    int st;
    if (width == 4 && so != Py_None)
        CPY_NOGIL(st, cudyn_memset_d32_async(p, (uint32_t)value, count, s));
    else if (width == 4)
        CPY_NOGIL(st, cudyn_memset_d32(p, (uint32_t)value, count));
    else if (width == 2)
        CPY_NOGIL(st, cudyn_memset_d16(p, (uint16_t)value, count));
    else
        CPY_NOGIL(st, cudyn_memset_d8(p, (uint8_t)value, count));
    cpy_memory_release(held);
    if (st != CUDYN_OK)
        return cpy_raise(st);
    Py_RETURN_NONE;
}

static PyObject *f_memset_d8(PyObject *m, PyObject *a, PyObject *k)
{
    (void)m;
    return memset_any(a, k, 1, "OOO|O:memset_d8");
}
static PyObject *f_memset_d16(PyObject *m, PyObject *a, PyObject *k)
{
    (void)m;
    return memset_any(a, k, 2, "OOO|O:memset_d16");
}
static PyObject *f_memset_d32(PyObject *m, PyObject *a, PyObject *k)
{
    (void)m;
    return memset_any(a, k, 4, "OOO|O:memset_d32");
}

static PyObject *f_pointer_info(PyObject *m, PyObject *o)
{
    (void)m;
    cudyn_devptr p;
    if (PyObject_CheckBuffer(o) && !PyObject_TypeCheck(o, DeviceArray_Type)) {
        Py_buffer v;
        if (PyObject_GetBuffer(o, &v, PyBUF_SIMPLE) < 0)
            return NULL;
        p = (cudyn_devptr)(uintptr_t)v.buf;
        PyBuffer_Release(&v);
    } else if (cpy_devptr(o, &p, "pointer_info") < 0)
        return NULL;
    struct cudyn_pointer_info i = {.size = sizeof i};
    int st = cudyn_pointer_info(p, &i);
    if (st != CUDYN_OK)
        return cpy_raise(st);
    static const char *const kinds[] = {"unregistered", "host", "device", "managed"};
    return Py_BuildValue("{s:s,s:i,s:i,s:K,s:n}", "kind", i.kind >= 0 && i.kind <= 3 ? kinds[i.kind] : "unknown",
                         "kind_code", i.kind, "device", i.device, "range_start", (unsigned long long)i.range_start,
                         "range_bytes", (Py_ssize_t)i.range_bytes);
}

/* The launch-format characters this module passes, as it read them from
 * cudyn.h: {character: (bytes, kind)}, the kind a cudyn_arg_kind (for the
 * drift test, python/tests/test_launch_format.py) */
static PyObject *f_launch_format_codes(PyObject *m, PyObject *u)
{
    (void)m, (void)u;
    PyObject *d = PyDict_New();
    for (int c = 1; d && c < 128; c++) {
        if (!cpy_format_supported((char)c))
            continue;
        PyObject *v = Py_BuildValue("(ii)", cpy_code((char)c)->size, cpy_code((char)c)->kind);
        char key[2] = {(char)c, 0};
        if (!v || PyDict_SetItemString(d, key, v) < 0)
            Py_CLEAR(d);
        Py_XDECREF(v);
    }
    return d;
}

/* The launcher's node-local rank as the library reads it (the one reading
 * every autoinit uses): a dict, None when no launcher variable is set; a
 * value that is no rank raises, naming the variable. */
static PyObject *f_local_rank_info(PyObject *m, PyObject *u)
{
    (void)m, (void)u;
    struct cudyn_local_rank l = {.size = sizeof l};
    int st;
    CPY_NOGIL(st, cudyn_local_rank_info(&l));
    if (st == CUDYN_ERROR_NOT_FOUND) {
        cudyn_clear_error();
        Py_RETURN_NONE;
    }
    if (st != CUDYN_OK)
        return cpy_raise(st);
    return Py_BuildValue("{s:s,s:i,s:i,s:i,s:i,s:O}", "variable", l.variable ? l.variable : "", "local_rank",
                         l.local_rank, "local_size", l.local_size, "device_count", l.device_count, "device",
                         l.device, "shared", l.shared ? Py_True : Py_False);
}

/* The facts the pure-Python layer derives its kernels' types from, so that
 * it restates none (python/tests/test_format_exports.py): a numpy dtype's
 * launch character, and each scalar character's C spellings. */
static PyObject *f_dtype_format(PyObject *m, PyObject *dtype)
{
    (void)m;
    char code[2] = {cpy_dtype_format_char(dtype), 0};
    if (!code[0])
        Py_RETURN_NONE;
    return PyUnicode_FromString(code);
}

static PyObject *f_format_spellings(PyObject *m, PyObject *u)
{
    (void)m, (void)u;
    PyObject *d = PyDict_New();
    for (int c = 1; d && c < 128; c++) {
        const char *const *names = cpy_format_spellings((char)c);
        if (!names || !cpy_format_supported((char)c))
            continue;
        Py_ssize_t count = 0;
        while (names[count])
            count++;
        PyObject *t = PyTuple_New(count);
        for (Py_ssize_t k = 0; t && k < count; k++) {
            PyObject *name = PyUnicode_FromString(names[k]);
            if (!name)
                Py_CLEAR(t);
            else
                PyTuple_SetItem(t, k, name);
        }
        char key[2] = {(char)c, 0};
        if (!t || PyDict_SetItemString(d, key, t) < 0)
            Py_CLEAR(d);
        Py_XDECREF(t);
    }
    return d;
}

PyMethodDef cpy_functions[] = {
    {"version", f_version, METH_NOARGS, CPY_SIG("version($module, /)", "cudyn's version string.")},
    {"init", CPY_KW(f_init), f_init_doc},
    {"status_name", f_status_name, METH_O, CPY_SIG("status_name($module, status, /)", "'CUDYN_ERROR_...'.")},
    {"status_string", f_status_string, METH_O, CPY_SIG("status_string($module, status, /)", "One sentence.")},
    {"loader_info", CPY_KW(f_loader_info), f_loader_info_doc},
    {"toolkit_info", cpy_toolkit_info, METH_NOARGS,
     CPY_SIG("toolkit_info($module, /)", "The toolkit's headers, libcudadevrt.a and nvJitLink cudyn found, as a dict.")},
    {"last_error", f_last_error, METH_NOARGS,
     CPY_SIG("last_error($module, /)", "The calling thread's last cudyn_error as a dict, or None.")},
    {"device_count", f_device_count, METH_NOARGS, CPY_SIG("device_count($module, /)", "Number of visible devices.")},
    {"device_info", f_device_info, METH_O,
     CPY_SIG("device_info($module, ordinal, /)", "Every field of cudyn_device_info.")},
    {"device_attributes", f_device_attributes, METH_O,
     CPY_SIG("device_attributes($module, ordinal, /)", "name -> value.")},
    {"device_attribute", f_device_attribute, METH_VARARGS,
     CPY_SIG("device_attribute($module, ordinal, name_or_number, /)", "One attribute's value.")},
    {"device_use", f_device_use, METH_O, CPY_SIG("device_use($module, ordinal, /)", "Makes it this thread's device.")},
    {"cpu_affinity", f_cpu_affinity, METH_O,
     CPY_SIG("cpu_affinity($module, ordinal, /)",
             "The CPUs next to the device (NVML's), a frozenset; None where NVML cannot tell.")},
    {"device_current", f_device_current, METH_NOARGS, CPY_SIG("device_current($module, /)", "This thread's device.")},
    {"synchronize", f_synchronize, METH_NOARGS,
     CPY_SIG("synchronize($module, /)", "Waits for the device's work (Ctrl-C works).")},
    {"mem_info", f_mem_info, METH_NOARGS,
     CPY_SIG("mem_info($module, /)", "(free, total) bytes of this thread's device.")},
    {"can_access_peer", f_can_access_peer, METH_VARARGS,
     CPY_SIG("can_access_peer($module, a, b, /)", "Whether a's kernels can reach b's memory.")},
    {"enable_peer", f_enable_peer, METH_VARARGS,
     CPY_SIG("enable_peer($module, a, b, /)", "a's kernels reach b's memory.")},
    {"cache_info", f_cache_info, METH_NOARGS, CPY_SIG("cache_info($module, /)", "The kernel cache: a dict.")},
    {"cache_clear", f_cache_clear, METH_NOARGS,
     CPY_SIG("cache_clear($module, /)", "Empties the kernel cache; returns how many entries went.")},
    {"memcpy_htod", CPY_KW(f_memcpy_htod), f_memcpy_htod_doc},
    {"memcpy_dtoh", CPY_KW(f_memcpy_dtoh), f_memcpy_dtoh_doc},
    {"memcpy_dtod", CPY_KW(f_memcpy_dtod), f_memcpy_dtod_doc},
    {"memset_d8", CPY_KW(f_memset_d8), f_memset_d8_doc},
    {"memset_d16", CPY_KW(f_memset_d16), f_memset_d16_doc},
    {"memset_d32", CPY_KW(f_memset_d32), f_memset_d32_doc},
    {"pointer_info", f_pointer_info, METH_O, CPY_SIG("pointer_info($module, ptr, /)", "kind, device, range.")},
    {"from_dlpack", cpy_from_dlpack, METH_O,
     CPY_SIG("from_dlpack($module, obj, /)", "A DeviceArray over a DLPack producer's memory.")},
    {"asarray", cpy_asarray, METH_O,
     CPY_SIG("asarray($module, obj, /)",
             "A DeviceArray over an object with __cuda_array_interface__ or __dlpack__ (no copy).")},
    {"_launch_format_codes", f_launch_format_codes, METH_NOARGS,
     CPY_SIG("_launch_format_codes($module, /)",
             "The launch-format characters the module passes: {character: (bytes, kind)}.")},
    {"_local_rank_info", f_local_rank_info, METH_NOARGS,
     CPY_SIG("_local_rank_info($module, /)",
             "The launcher's node-local rank (cudyn_local_rank_info) as a dict; None where no launcher says.")},
    {"_dtype_format", f_dtype_format, METH_O,
     CPY_SIG("_dtype_format($module, dtype, /)", "The launch-format character of a numpy dtype's elements, or None.")},
    {"_format_spellings", f_format_spellings, METH_NOARGS,
     CPY_SIG("_format_spellings($module, /)", "{scalar character: its C spellings, the kernels' own first}.")},
    {NULL},
};
