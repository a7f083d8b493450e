/* cudyn_py.h - what the files of the extension cudyn._cudyn share.
 * Written over cudyn.h alone (never lib/ internals), C11, and over
 * Python's limited C API: the build defines Py_LIMITED_API as the
 * version pyproject.toml's requires-python names (3.11, where the buffer
 * protocol joined the limited API), so that one build, the abi3 module,
 * loads in that CPython and every later one (python/README.md, "Types
 * under the limited API").  Nothing here loads the driver at import:
 * every cudyn call that does is made by a function or method the user
 * calls.
 *
 * The files stand in an order, bottom to top, and a file calls only into
 * the files below it (python/README.md says what each owns;
 * tests/check-layers.sh checks the order from the objects' symbols):
 *   errors < util < format < memory < streams < textures < export < array
 *   < interop < nccl_functions < nccl < host_args < pack < launch < prepared
 *   < function < module < link < expressions < functions < init
 * The sections below follow it. */
#ifndef CUDYN_PY_H
#define CUDYN_PY_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cudyn.h>

/* the most dimensions a DeviceArray has (numpy's limit) */
#define CPY_MAX_DIMS 32

/* A docstring that starts with its text signature, CPython's convention
 * (__text_signature__, inspect.signature, help(), mypy's stubtest):
 * "name($module or $self or $type, params)" for a function or method,
 * "Type(params)" for a type's constructor; `/` ends the positional-only
 * ones (METH_O, METH_VARARGS, FASTCALL's leading ones), `*` starts the
 * keyword-only ones.  Its names and defaults are those the C parses: a
 * PyArg_ParseTupleAndKeywords keyword list stands next to its signature
 * (python/tests/test_signatures.py compares the two). */
#define CPY_SIG(signature, text) signature "\n--\n\n" text
/* a method table's function and flags for one that takes keywords */
#define CPY_KW(f) (PyCFunction)(void (*)(void))(f), METH_VARARGS | METH_KEYWORDS

/* ---- the module's types: heap types, made from a PyType_Spec at import
 * (util.c cpy_type_new; init.c's list), so that no type object's layout is
 * compiled in.  Every type is immutable, as a static type was (attributes
 * cannot be set on it: a __call__ set from Python would bypass the
 * vectorcall slot); one without a constructor cannot be instantiated from
 * Python. */
#define CPY_TPFLAGS (Py_TPFLAGS_DEFAULT | Py_TPFLAGS_IMMUTABLETYPE)
#define CPY_TPFLAGS_NO_NEW (CPY_TPFLAGS | Py_TPFLAGS_DISALLOW_INSTANTIATION)
/* a member that says where an instance keeps its weak references */
#define CPY_WEAKLIST(type) {"__weaklistoffset__", T_PYSSIZET, offsetof(type, weakrefs), READONLY, NULL}
/* The end of every type's deallocator: the instance's memory goes back
 * through its type's tp_free (GC or not), then the reference to its type
 * that every instance of a heap type holds. */
static inline void cpy_free(void *self)
{
    PyTypeObject *type = Py_TYPE((PyObject *)self);
    freefunc free_slot = (freefunc)PyType_GetSlot(type, Py_tp_free);
    free_slot(self);
    Py_DECREF(type);
}

/* ---- calls: the vectorcall protocol (PEP 590), whose pieces 3.11's
 * limited API lacks and 3.12's stable ABI has (the same values it always
 * had): a Function's or PreparedFunction's call comes through its
 * vectorcall slot where the type has the flag (cpy_vectorcall_flag), and
 * through tp_call with a tuple and a dict otherwise (cpy_call_vector),
 * both into the one vectorcall function. */
typedef PyObject *(*cpy_vectorcallfunc)(PyObject *callable, PyObject *const *args, size_t nargsf,
                                        PyObject *kwnames);
#define CPY_TPFLAGS_HAVE_VECTORCALL (1UL << 11)
#define CPY_VECTORCALL_ARGUMENTS_OFFSET ((size_t)1 << (8 * sizeof(size_t) - 1))
static inline Py_ssize_t cpy_nargs(size_t nargsf)
{
    return (Py_ssize_t)(nargsf & ~CPY_VECTORCALL_ARGUMENTS_OFFSET);
}
/* the member that says where an instance keeps its vectorcall function */
#define CPY_VECTORCALL(type) {"__vectorcalloffset__", T_PYSSIZET, offsetof(type, vectorcall), READONLY, NULL}

/* ---- errors.c */
/* What the module's exceptions name where the library's hints name
 * CUDYN_EXPLAIN_COMMAND (python/cudyn/__main__.py is that command). */
#define CPY_EXPLAIN_COMMAND "python3 -m cudyn --explain"
/* Raises the exception for `status` from the calling thread's cudyn_error
 * (its message and hint naming CPY_EXPLAIN_COMMAND); returns NULL. */
PyObject *cpy_raise(int status);
/* cpy_raise(status) with `log` (a compile's or a linker's; NULL or "":
 * none) as the exception's attribute `log` (cpy_text), and for a
 * CompileError after its message too, as PyCUDA shows it; returns NULL. */
PyObject *cpy_raise_with_log(int status, const char *log);
/* None for CUDYN_OK, else cpy_raise(status). */
PyObject *cpy_result(int status);
/* Raises class InvalidArgument (a ValueError) with a message of ours. */
PyObject *cpy_invalid(const char *fmt, ...);
/* Text of the library's (a message, a log, a path) as a str, None for
 * NULL: UTF-8 where it is, any other byte as a backslash escape (\xff),
 * so that decoding never raises and never hides the exception it
 * belongs to. */
PyObject *cpy_text(const char *s);
/* a cudyn_origin's name ("driver", "nvml" ...; "unknown" for others) */
const char *cpy_origin_name(int origin);
/* Raises the class of `status` with that status and a message of ours
 * (a failure the module finds itself, such as its own timeout). */
PyObject *cpy_fail(int status, const char *fmt, ...);
/* Whether the exception set is an InvalidArgument. */
int cpy_invalid_pending(void);
/* Raises LaunchArgumentError (an Error and a TypeError): a wrong kind of
 * argument, such as a host array where device memory is needed. */
PyObject *cpy_type_error(const char *fmt, ...);
/* The name of obj's type for a message, as CPython's own messages give it
 * (the limited API hides tp_name): "module.qualname", the qualname alone
 * for a builtin ("float", "numpy.ndarray", "cudyn.DeviceArray").  A new
 * reference, or NULL with no exception set (a message takes it as %V with
 * a fallback: "%V", name, "?"); an exception already set stays. */
PyObject *cpy_type_name(PyObject *obj);
int cpy_errors_init(PyObject *module);

/* ---- util.c: conversions that name none of the module's types */
/* The heap type of spec, with `flags` added to the spec's, made at import
 * into *type (a reference kept for the module's lifetime) and added to the
 * module as `name` (NULL: the last part of the spec's name).  0 or -1. */
int cpy_type_new(PyObject *module, PyTypeObject **type, const PyType_Spec *spec, unsigned long flags,
                 const char *name);
/* The vectorcall flag for the types whose calls have a vectorcall
 * function (Function, PreparedFunction), or 0 where the call goes through
 * tp_call (cudyn_py.h, "calls") */
unsigned long cpy_vectorcall_flag(void);
/* tp_call of a type whose call is `call`, a vectorcall function: the
 * tuple's items and the dict's values as its vector, the dict's keys as
 * its kwnames. */
PyObject *cpy_call_vector(cpy_vectorcallfunc call, PyObject *self, PyObject *args, PyObject *kwargs);
/* obj's items as a tuple (a tuple itself, a list or any iterable), or
 * NULL with a TypeError saying `message` where obj is not iterable (what
 * PySequence_Fast did, whose item macros the limited API lacks) */
PyObject *cpy_tuple(PyObject *obj, const char *message);
/* A dim3 from an int or a tuple/list of 1 to 3 ints, each >= 1. */
int cpy_dim3(PyObject *obj, cudyn_dim3 *out, const char *what);
/* The one polling wait: query(handle) with the GIL released until it is
 * not CUDYN_ERROR_NOT_READY, answering Ctrl-C (KeyboardInterrupt) within a
 * millisecond or so; seconds >= 0 ends it with CUDYN_ERROR_NOT_READY once
 * they have passed (< 0, or past 2^63 nanoseconds, as inf: no end).  The
 * status, or -1 with the exception. */
int cpy_poll(int (*query)(void *), void *handle, double seconds);
/* Waits for a stream (NULL: the default stream and then the context) or an
 * event with the GIL released, answering Ctrl-C (KeyboardInterrupt). */
int cpy_wait_stream(cudyn_stream stream);
int cpy_wait_event(cudyn_event event);
int cpy_wait_context(void);
/* numpy, imported on first use */
PyObject *cpy_numpy(void);
/* numpy.dtype(obj) */
PyObject *cpy_dtype(PyObject *obj);
/* The one conversion of an integer from Python: obj (an int, or anything
 * with __index__) in min .. max, else InvalidArgument (a ValueError)
 * naming `what` and the range (never OverflowError); TypeError for a
 * non-integer.  *out gets the value's 64 bits (a negative one in two's
 * complement: cast it back). */
int cpy_integer(PyObject *obj, const char *what, long long min, unsigned long long max, unsigned long long *out);
/* cpy_integer for a size (0 .. SIZE_MAX), a Py_ssize_t (min ..
 * PY_SSIZE_T_MAX) and an int (min .. max) */
int cpy_size(PyObject *obj, size_t *out, const char *what);
int cpy_ssize(PyObject *obj, Py_ssize_t *out, const char *what, Py_ssize_t min);
int cpy_int(PyObject *obj, int *out, const char *what, int min, int max);
/* A str as UTF-8 for a C string: TypeError for another type, and an
 * embedded NUL (where C would end the text, naming something else) is
 * InvalidArgument naming `what`; NULL with the exception. */
const char *cpy_utf8(PyObject *obj, const char *what);
/* A sequence of str (None or NULL: none) for C: *out gets a
 * NULL-terminated array (PyMem_Free it) of cpy_utf8 pointers into the str
 * objects, which the list `keep` then holds, `lead` first where it is not
 * NULL; *n their count.  A str itself is refused (TypeError), never split
 * into characters, and so is an item with a NUL (cpy_utf8).  0, or -1 with
 * the exception and nothing to free. */
int cpy_str_array(PyObject *seq, const char *lead, const char ***out, int *n, PyObject *keep, const char *what);
/* In-memory headers, a dict {name: text} (None: none), as the two arrays
 * cudyn_compile_args takes (cpy_str_array's: PyMem_Free both); 0 or -1. */
int cpy_header_arrays(PyObject *headers, const char ***names, const char ***texts, int *n, PyObject *keep);
/* flags (an unsigned int) as a PyArg "O&" converter: 1, or 0 with an exception */
int cpy_flags(PyObject *obj, void *out);
/* The dtype rule: numpy.dtype(obj) if the device can hold it (numbers,
 * bool, complex, records and fixed blocks of those), else TypeError
 * naming `what`.  Every entry that makes or fills a DeviceArray asks it. */
PyObject *cpy_device_dtype(PyObject *obj, const char *what);
/* A host buffer of obj for a copy to or from the device (flags: PyBUF_*),
 * under the dtype rule: an object with a dtype must pass it, and a buffer
 * whose format holds Python objects is refused (TypeError naming `what`),
 * before a copy could write device bytes over its pointers.  0; -1 with
 * that exception; -2 with none where obj gives no such buffer (not
 * contiguous, read-only, no buffer at all): the caller says what it
 * needed. */
int cpy_host_buffer(PyObject *obj, Py_buffer *view, int flags, const char *what);
/* the current device (ordinal) or -1 with an exception */
int cpy_current_device(void);

/* The lifetime rule (python/README.md, "Lifetime: one rule"), in one
 * place: work in flight (a copy or a launch with In/Out buffers running
 * without the GIL, a collective, a call kept in a group not yet ended, a
 * DLPack tensor exported, a Linker's call) holds what it uses, a count
 * beside a reference, taken and given back with the GIL held; free(),
 * destroy(), abort() and close() of a held object raise InvalidArgument
 * (cpy_refuse_in_use), never wait. */
static inline void cpy_hold(PyObject *owner, Py_ssize_t *count)
{
    Py_INCREF(owner);
    (*count)++;
}
static inline void cpy_let_go(PyObject *owner, Py_ssize_t *count)
{
    (*count)--;
    Py_DECREF(owner);
}
/* 0 when count is 0; else -1 with InvalidArgument "`who`: ... in use". */
int cpy_refuse_in_use(const char *who, Py_ssize_t count);
/* __enter__ of the objects that free or destroy in __exit__: themselves */
PyObject *cpy_enter(PyObject *self, PyObject *unused);

/* GIL release around a blocking cudyn call: st = call */
#define CPY_NOGIL(st, call)                                                                                    \
    do {                                                                                                       \
        Py_BEGIN_ALLOW_THREADS(st) = (call);                                                                   \
        Py_END_ALLOW_THREADS                                                                                   \
    } while (0)

/* ---- format.c: the launch format's characters, as cudyn.h states them
 * (CUDYN_LAUNCH_FORMAT_MAP) */
struct cpy_format_code {
    unsigned char size; /* bytes the kernel receives (0: a struct's, given with it) */
    unsigned char kind; /* a cudyn_arg_kind; 0: not a format character */
};
extern const struct cpy_format_code cpy_format_codes[128];
static inline const struct cpy_format_code *cpy_code(char c)
{
    return &cpy_format_codes[(unsigned char)c < 128 ? (unsigned char)c : 0];
}
/* the first character of the map of that kind and size (size 0: any), or 0 */
char cpy_format_char(cudyn_arg_kind kind, size_t size);
/* whether the module can pass arguments of that character (pack.c packs
 * each kind it names); every character cudyn.h lists, unless the module
 * lags behind the library (the drift test, python/tests) */
int cpy_format_supported(char c);
/* the character an element of a numpy dtype is passed as (a record: the
 * struct character), or 0 (no exception) where there is none */
char cpy_dtype_format_char(PyObject *dtype);
/* the characters a Python number may take, in the order a first call
 * tries them: 4- and 8-byte ones first, then the rest, each size of a kind
 * once (set by cpy_format_init) */
extern char cpy_int_codes[32], cpy_bool_codes[32], cpy_float_codes[32], cpy_complex_codes[32];
void cpy_format_init(void);
/* the C spellings of a scalar character (NULL-terminated, the one the
 * module's kernels write first, lib/expr's before the others), NULL for a
 * character of no scalar */
const char *const *cpy_format_spellings(char c);
/* The spelling lib/expr takes for a C spelling of a scalar: itself, or
 * its character's first ("half" -> "__half"); *c its character ('e').
 * NULL (and 0) for a spelling of none. */
const char *cpy_expr_spelling(const char *spelling, char *c);

/* ---- memory.c */
typedef struct {
    PyObject_HEAD
    cudyn_devptr ptr;
    size_t nbytes;
    int device;
    int managed;
    int freed;
    Py_ssize_t in_use; /* the lifetime rule's holds (cpy_hold): free() refuses while any */
    PyObject *weakrefs;
} DeviceMemoryObject;
extern PyTypeObject *DeviceMemory_Type, *PinnedMemory_Type;
extern const PyType_Spec DeviceMemory_Spec, PinnedMemory_Spec;
/* a new DeviceMemory of nbytes on the current device */
PyObject *cpy_device_memory_new(size_t nbytes, int managed);
/* cpy_hold of a DeviceMemory: taken before a copy, a launch with In/Out
 * buffers or a collective releases the GIL (kept while the call waits in
 * a group) or a DLPack tensor is exported, given back after;
 * release(NULL) does nothing */
void cpy_memory_hold(DeviceMemoryObject *m);
void cpy_memory_release(DeviceMemoryObject *m);

/* ---- streams.c */
typedef struct {
    PyObject_HEAD
    cudyn_stream stream;
    int owned;
    PyObject *weakrefs;
} StreamObject;
typedef struct {
    PyObject_HEAD
    cudyn_event event;
    int owned;
    PyObject *weakrefs;
} EventObject;
extern PyTypeObject *Stream_Type, *Event_Type, *Graph_Type, *GraphExec_Type;
extern const PyType_Spec Stream_Spec, Event_Spec, Graph_Spec, GraphExec_Spec;
/* A stream from None (the default), a Stream, an int (a CUstream), or an
 * object with .handle / .cuda_stream / .ptr (PyTorch, CuPy). */
int cpy_stream(PyObject *obj, cudyn_stream *out);

/* ---- textures.c */
typedef struct {
    PyObject_HEAD
    cudyn_texture tex;
    PyObject *array;
} TextureObject;
extern PyTypeObject *Array_Type, *Texture_Type;
extern const PyType_Spec Array_Spec, Texture_Spec;

/* ---- the DeviceArray's layout, which export.c and array.c share */
typedef struct {
    PyObject_HEAD
    cudyn_devptr ptr;
    int ndim;
    int device;
    int readonly;
    int contiguous;
    Py_ssize_t itemsize;
    Py_ssize_t size;
    Py_ssize_t shape[CPY_MAX_DIMS];
    Py_ssize_t strides[CPY_MAX_DIMS]; /* bytes */
    PyObject *dtype;                  /* a numpy dtype */
    PyObject *owner;                  /* keeps the memory alive: DeviceMemory, a producer ... (.base) */
    DeviceMemoryObject *memory;       /* the DeviceMemory it views, whose free() it sees; NULL: unknown */
    PyObject *stream;                 /* None or what was given */
    PyObject *weakrefs;
} DeviceArrayObject;
/* the DeviceMemory an array views, or NULL (another owner, or none) */
static inline DeviceMemoryObject *cpy_array_memory(const DeviceArrayObject *a)
{
    return a->memory;
}
/* the array's address, refusing one whose memory was freed (the view's
 * half of the lifetime rule) */
static inline int cpy_array_ptr(const DeviceArrayObject *a, cudyn_devptr *out)
{
    if (a->memory && a->memory->freed) {
        cpy_invalid("the DeviceArray's memory was freed (DeviceMemory.free() of its base)");
        return -1;
    }
    *out = a->ptr;
    return 0;
}

/* ---- export.c: a DeviceArray for other libraries (its methods) */
PyObject *cpy_array_cai(DeviceArrayObject *self, void *closure);
PyObject *cpy_array_dlpack(DeviceArrayObject *self, PyObject *args, PyObject *kwds);
extern const char cpy_array_dlpack_doc[];
PyObject *cpy_array_dlpack_device(DeviceArrayObject *self, PyObject *unused);
/* the DeviceArray a tensor of ours exports (borrowed), or NULL for
 * another library's tensor */
struct DLManagedTensor;
PyObject *cpy_exported_array(const struct DLManagedTensor *m);

/* ---- array.c */
extern PyTypeObject *DeviceArray_Type;
extern const PyType_Spec DeviceArray_Spec;
/* The DeviceMemory behind obj (a DeviceArray's, or obj itself), NULL where
 * there is none or it is unknown (an int, another library's array). */
static inline DeviceMemoryObject *cpy_memory_of(PyObject *obj)
{
    if (PyObject_TypeCheck(obj, DeviceArray_Type))
        return ((DeviceArrayObject *)obj)->memory;
    return PyObject_TypeCheck(obj, DeviceMemory_Type) ? (DeviceMemoryObject *)obj : NULL;
}
/* a new DeviceArray (or subclass `type`) viewing ptr with the owner kept alive */
PyObject *cpy_array_new(PyTypeObject *type, cudyn_devptr ptr, int ndim, const Py_ssize_t *shape,
                        const Py_ssize_t *strides, PyObject *dtype, PyObject *owner, PyObject *stream, int device,
                        int readonly);
/* A device address from an int, a DeviceMemory, a DeviceArray or an object
 * with __cuda_array_interface__; a host buffer (numpy array, bytes) is
 * refused saying so, freed memory too; what the producer's
 * __cuda_array_interface__ raises propagates.  `what` names the argument.
 * 0 on success. */
int cpy_devptr(PyObject *obj, cudyn_devptr *out, const char *what);
/* What an object says of the device memory it names */
struct cpy_device_ref {
    cudyn_devptr ptr;
    DeviceMemoryObject *memory; /* borrowed; NULL where unknown (an int, a foreign producer) */
    int readonly;               /* its producer said so */
};
int cpy_device_ref(PyObject *obj, struct cpy_device_ref *r, const char *what);
/* For a copy or set that releases the GIL: cpy_devptr, refusing a write
 * (`writing`) into a read-only array, with the memory behind it held
 * (cpy_memory_hold) until cpy_memory_release(*held). */
int cpy_devptr_use(PyObject *obj, cudyn_devptr *out, const char *what, int writing, DeviceMemoryObject **held);
/* Makes a (new) array view m, checking that its elements lie inside it;
 * 0 or -1 */
int cpy_array_attach(DeviceArrayObject *a, DeviceMemoryObject *m, const char *what);

/* ---- interop.c: other libraries' arrays as DeviceArrays */
PyObject *cpy_from_dlpack(PyObject *self, PyObject *obj);
PyObject *cpy_asarray(PyObject *self, PyObject *obj);
extern PyTypeObject *DLPackOwner_Type;
extern const PyType_Spec DLPackOwner_Spec;

/* ---- nccl_functions.c: cudyn.nccl's module functions (_nccl_*: unique
 * id, info, has, groups, MPI's CUDA support) and the calling thread's
 * group as the module keeps it */
/* One hold of the lifetime rule: the object and its count (cpy_hold). */
struct cpy_held {
    PyObject *owner; /* NULL: none */
    Py_ssize_t *count;
};
/* Inside a group not yet ended on this thread, takes the holds held[0 ..
 * n) (cpy_hold) and keeps them until the group's outermost end, when NCCL
 * has its calls; outside a group nothing.  0, or -1 (out of memory: none
 * taken). */
int cpy_nccl_group_keep(const struct cpy_held *held, int n);
int cpy_nccl_functions_init(PyObject *module);

/* ---- nccl.c: cudyn.nccl's Communicator (python/cudyn/nccl.py is its
 * face) */
int cpy_nccl_init(PyObject *module);

/* ---- host_args.c: In, Out, InOut */
typedef struct {
    PyObject_HEAD
    PyObject *array;
    char code; /* its launch-format character (kind CUDYN_ARG_IN, _OUT or _INOUT) */
} HostArgObject;
extern PyTypeObject *In_Type, *Out_Type, *InOut_Type;
extern const PyType_Spec In_Spec, Out_Spec, InOut_Spec;
/* "cudyn.In", "cudyn.Out" or "cudyn.InOut": the type of a host argument's
 * launch-format character (kind CUDYN_ARG_IN, _OUT or _INOUT) */
const char *cpy_host_arg_name(char code);

/* ---- pack.c: Python objects as kernel arguments, and back */
/* Packs `obj` for the launch format `code` into buf (at least 16 bytes,
 * 16-aligned; 4096 for a struct); *size gets its size.  0 on success, -1
 * with an exception, 1 when the object does not suit the code (no
 * exception).  current_device: the kernel's device (-1: unknown), which a
 * DeviceArray must live on. */
int cpy_pack(char code, PyObject *obj, void *buf, size_t *size, int current_device);
/* Raises the error for obj, which cpy_pack found does not suit code (it
 * gave 1): for a pointer, what a pointer takes (or cudyn's reason: a host
 * array).  `who` names the kernel and argument. */
void cpy_unsuited(char code, PyObject *obj, PyObject *who);
/* What codes might suit an argument, in the order tried; "" for none;
 * NULL with the exception its __cuda_array_interface__ raised.  `one`
 * holds a code of the object's own (2 chars). */
const char *cpy_candidates(PyObject *obj, char *one);
/* A scalar the kernel side wrote (a reduction's result) as a Python
 * number; the code is a scalar's. */
PyObject *cpy_unpack(char code, const void *value);

/* ---- launch.c: launching a kernel with arguments packed by pack.c */
/* A prepared launch format (PreparedFunction's, and the last one
 * Function.prepare() recorded on its Function): n < 0 before prepare() */
struct cpy_signature {
    int n;
    int checked; /* its first launch, through a checking pack, went ahead */
    char codes[CUDYN_MAX_ARGS + 1];
};
/* a Function's layout (function.c makes them; launch.c and prepared.c
 * launch them) */
typedef struct {
    PyObject_HEAD
    cpy_vectorcallfunc vectorcall;
    cudyn_function f;
    PyObject *module; /* the Module it comes from, kept alive */
    int device;       /* its module's device */
    PyObject *name;
    int layout_n; /* -1: not known yet */
    int has_host_args;
    char layout[CUDYN_MAX_ARGS + 1];
    struct cpy_signature prepared; /* PyCUDA's f.prepare(...) then f.prepared_call(...) */
    PyObject *weakrefs;
} FunctionObject;
/* whether a launch is timed: not, waited for and given in seconds
 * (time_kernel=True), or given as a callable that waits
 * (prepared_timed_call) */
enum cpy_timing { CPY_TIME_NONE, CPY_TIME_NOW, CPY_TIME_LATER };
struct launch_opts {
    cudyn_dim3 grid, block;
    unsigned int shared;
    cudyn_stream stream;
    enum cpy_timing timing;
};
#define CPY_LAUNCH_DEFAULTS {{1, 1, 1}, {1, 1, 1}, 0, NULL, CPY_TIME_NONE}
/* How a launch went */
struct call_state {
    int checking;   /* launch through a cudyn_args pack: checked before it runs */
    int status;     /* the cudyn status of a refused launch, else CUDYN_OK */
    int unsuited;   /* an argument the codes cannot take, else -1 */
    int pack_error; /* an argument whose packing raised, else -1 */
};
/* grid=, block=, shared= (or shared_size=), stream=, time_kernel= and
 * texrefs= from a vectorcall's keywords; 0 or -1.  CPY_LAUNCH_KEYWORDS is
 * them in a text signature after the positional grid and block of
 * PyCUDA's prepared calls (grid= and block= would replace those, as
 * stream= does the positional stream of prepared_async_call, whose
 * signature ends with CPY_LAUNCH_KEYWORDS_BUT_STREAM) */
#define CPY_LAUNCH_KEYWORDS_BUT_STREAM "shared=0, shared_size=0, time_kernel=False, texrefs=None"
#define CPY_LAUNCH_KEYWORDS CPY_LAUNCH_KEYWORDS_BUT_STREAM ", stream=None"
int cpy_launch_keywords(PyObject *const *kwvalues, PyObject *kwnames, struct launch_opts *o, const char *who);
/* PyCUDA's texrefs= (texture references, which CUDA 12 removed): None or
 * an empty sequence is accepted (0); any other is refused naming texture
 * objects (-1, InvalidArgument) */
int cpy_refuse_texrefs(PyObject *texrefs, const char *who);
/* Timing a launch as o->timing asks: *timer gets two events, the first
 * recorded on o->stream (NULL when not timed); 0 or -1 */
int cpy_timer_start(const struct launch_opts *o, PyObject **timer);
/* After the launch gave `result` (NULL: it failed): with a timer, records
 * the second event and gives the kernel's time in seconds (a float), or
 * for CPY_TIME_LATER a callable that waits and gives it; without, result.
 * Steals both references. */
PyObject *cpy_timer_finish(PyObject *timer, PyObject *result, const struct launch_opts *o);
/* shared= (bytes of dynamic shared memory); 0 or -1 */
int cpy_launch_shared(PyObject *v, unsigned int *out);
/* Packs args by codes and launches fn; with host_args (In/Out/InOut among
 * the codes), waits for the copies back, answering Ctrl-C.  None, or NULL
 * with an exception and cs saying why. */
PyObject *cpy_pack_and_launch(FunctionObject *fn, const char *codes, int host_args, PyObject *const *args, int n,
                              const struct launch_opts *o, struct call_state *cs);
int cpy_launch_init(void);

/* ---- prepared.c */
extern PyTypeObject *PreparedFunction_Type;
extern const PyType_Spec PreparedFunction_Spec;
/* Function.prepare(arg_types, texrefs=None, *, grid=, block=, shared=,
 * stream=): a PreparedFunction, its format also recorded on fn */
PyObject *cpy_prepare(FunctionObject *fn, PyObject *args, PyObject *kwds);
extern const char cpy_prepare_doc[];
/* PyCUDA's three prepared calls, with the positional arguments before the
 * kernel's each takes */
enum cpy_prepared_form { CPY_PREPARED_CALL, CPY_PREPARED_ASYNC_CALL, CPY_PREPARED_TIMED_CALL };
/* A prepared call of fn with sig (refused naming prepare() while sig->n < 0) */
PyObject *cpy_prepared_call(FunctionObject *fn, struct cpy_signature *sig, enum cpy_prepared_form form,
                            PyObject *const *args, Py_ssize_t n, PyObject *kwnames);

/* ---- function.c */
extern PyTypeObject *Function_Type;
extern const PyType_Spec Function_Spec;
/* a Function for kernel f of `module` (loaded on `device`) */
PyObject *cpy_function_new(PyObject *module, int device, cudyn_function f, const char *name);

/* ---- module.c */
typedef struct {
    PyObject_HEAD
    cudyn_module mod;
    cudyn_program *prog; /* NULL for images */
    int device;
    PyObject *weakrefs;
} ModuleObject;
extern PyTypeObject *Module_Type;
extern const PyType_Spec Module_Spec;

/* ---- link.c */
extern PyTypeObject *Linker_Type;
extern const PyType_Spec Linker_Spec;
/* toolkit_info(): cudyn_toolkit_info as a dict */
PyObject *cpy_toolkit_info(PyObject *m, PyObject *unused);
/* the LINK_* constants */
int cpy_link_init(PyObject *module);

/* ---- expressions.c */
extern PyTypeObject *Elementwise_Type, *Reduction_Type;
extern const PyType_Spec Elementwise_Spec, Reduction_Spec;

/* ---- functions.c */
extern PyMethodDef cpy_functions[];

#endif
