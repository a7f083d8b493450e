/* cudyn_py.h - what the files of the extension cudyn._cudyn share.
 * Written over cudyn.h alone (never lib/ internals), C11, CPython >= 3.8.
 * Nothing here loads the driver at import: every cudyn call that does is
 * made by a function or method the user calls. */
#ifndef CUDYN_PY_H
#define CUDYN_PY_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>
#include <stdint.h>
#include <cudyn.h>

/* the most dimensions a DeviceArray has (numpy's limit) */
#define CPY_MAX_DIMS 32
/* the most kernel parameters (cudyn's format limit) */
#define CPY_MAX_PARAMS 64

/* ---- errors.c */
/* Raises the exception for `status` from the calling thread's cudyn_error;
 * returns NULL. */
PyObject *cpy_raise(int status);
/* Raises class InvalidArgument (a ValueError) with a message of ours. */
PyObject *cpy_invalid(const char *fmt, ...);
/* Whether the exception set is an InvalidArgument. */
int cpy_invalid_pending(void);
/* Raises LaunchArgumentError (an Error and a TypeError): a wrong kind of
 * argument, such as a host array where device memory is needed. */
PyObject *cpy_type_error(const char *fmt, ...);
int cpy_errors_init(PyObject *module);

/* ---- util.c */
/* A device address from an int, a DeviceMemory, a DeviceArray or an object
 * with __cuda_array_interface__; a host buffer (numpy array, bytes) is
 * refused saying so.  `what` names the argument.  0 on success. */
int cpy_devptr(PyObject *obj, cudyn_devptr *out, const char *what);
/* A stream from None (the default), a Stream, an int (a CUstream), or an
 * object with .handle / .cuda_stream / .ptr (PyTorch, CuPy). */
int cpy_stream(PyObject *obj, cudyn_stream *out);
/* A dim3 from an int or a tuple/list of 1 to 3 ints, each >= 1. */
int cpy_dim3(PyObject *obj, cudyn_dim3 *out, const char *what);
/* Waits for a stream (NULL: the default stream and then the context) or an
 * event with the GIL released, answering Ctrl-C (KeyboardInterrupt). */
int cpy_wait_stream(cudyn_stream stream);
int cpy_wait_event(cudyn_event event);
int cpy_wait_context(void);
/* numpy, imported on first use */
PyObject *cpy_numpy(void);
/* numpy.dtype(obj) */
PyObject *cpy_dtype(PyObject *obj);
/* a nonnegative size from an int */
int cpy_size(PyObject *obj, size_t *out, const char *what);
/* the current device (ordinal) or -1 with an exception */
int cpy_current_device(void);

/* ---- memory.c */
typedef struct {
    PyObject_HEAD
    cudyn_devptr ptr;
    size_t nbytes;
    int device;
    int managed;
    int freed;
    PyObject *weakrefs;
} DeviceMemoryObject;
extern PyTypeObject DeviceMemory_Type;
extern PyTypeObject PinnedMemory_Type;
/* a new DeviceMemory of nbytes on the current device */
PyObject *cpy_device_memory_new(size_t nbytes, int managed);

/* ---- array.c */
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
    PyObject *owner;                  /* keeps the memory alive: DeviceMemory, a producer ... */
    PyObject *stream;                 /* None or what was given */
    PyObject *weakrefs;
} DeviceArrayObject;
extern PyTypeObject DeviceArray_Type;
/* a new DeviceArray (or subclass `type`) viewing ptr with the owner kept alive */
PyObject *cpy_array_new(PyTypeObject *type, cudyn_devptr ptr, int ndim, const Py_ssize_t *shape,
                        const Py_ssize_t *strides, PyObject *dtype, PyObject *owner, PyObject *stream, int device,
                        int readonly);
/* the array's address, refusing one whose memory was freed */
int cpy_array_ptr(DeviceArrayObject *a, cudyn_devptr *out);

/* ---- host_args.c: In, Out, InOut */
typedef struct {
    PyObject_HEAD
    PyObject *array;
    char code; /* '<' In, '>' Out, '=' InOut */
} HostArgObject;
extern PyTypeObject In_Type, Out_Type, InOut_Type;

/* ---- module.c */
typedef struct {
    PyObject_HEAD
    cudyn_module mod;
    cudyn_program *prog; /* NULL for images */
    int device;
    PyObject *weakrefs;
} ModuleObject;
extern PyTypeObject Module_Type;

/* ---- launch.c */
extern PyTypeObject Function_Type, PreparedFunction_Type;
PyObject *cpy_function_new(PyObject *module, cudyn_function f, const char *name);
/* Packs `obj` for the launch format `code` into buf (at least 16 bytes,
 * 16-aligned); *size gets its size.  0 on success, -1 with an exception,
 * 1 when the object does not suit the code (no exception). */
int cpy_pack(char code, PyObject *obj, void *buf, size_t *size, int current_device);
/* size in bytes of a format code's value (0 for unknown) */
size_t cpy_code_size(char code);

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
extern PyTypeObject Stream_Type, Event_Type, Graph_Type, GraphExec_Type;

/* ---- expressions.c */
extern PyTypeObject Elementwise_Type, Reduction_Type;

/* ---- textures.c */
typedef struct {
    PyObject_HEAD
    cudyn_texture tex;
    PyObject *array;
} TextureObject;
extern PyTypeObject Array_Type, Texture_Type;

/* ---- interop.c */
PyObject *cpy_from_dlpack(PyObject *self, PyObject *obj);
PyObject *cpy_asarray(PyObject *self, PyObject *obj);
PyObject *cpy_array_cai(DeviceArrayObject *self, void *closure);
PyObject *cpy_array_dlpack(DeviceArrayObject *self, PyObject *args, PyObject *kwds);
PyObject *cpy_array_dlpack_device(DeviceArrayObject *self, PyObject *unused);
extern PyTypeObject DLPackOwner_Type;

/* ---- functions.c */
extern PyMethodDef cpy_functions[];

/* GIL release around a blocking cudyn call: st = call */
#define CPY_NOGIL(st, call)                                                                                    \
    do {                                                                                                       \
        Py_BEGIN_ALLOW_THREADS(st) = (call);                                                                   \
        Py_END_ALLOW_THREADS                                                                                   \
    } while (0)

#endif
