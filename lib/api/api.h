/*
 * api/api.h - the api wing: thin wrappers over the driver's objects
 * (contexts, devices, memory, copies, arrays, textures, streams, events,
 * graphs, pools, managed memory, interop).  What the wings above share
 * from it: the context fast path, device attributes, the allocation
 * prologue and the driver-call macros that recover a lost context.
 */
#ifndef CUDYN_API_API_H
#define CUDYN_API_API_H

#include "loader/loader.h"

/* ---- context.c ---- */
extern _Thread_local unsigned int cudyn__tls_context_generation; /* 0: not ready */
int cudyn__need_context_slow(const char *api);
/* The calling thread has a current context (ours or another library's). */
static inline int cudyn__need_context(const char *api)
{
    if (CUDYN_LIKELY(cudyn__tls_context_generation != 0 &&
                     cudyn__tls_context_generation ==
                         atomic_load_explicit(&cudyn__context_generation, memory_order_relaxed)))
        return CUDYN_OK;
    return cudyn__need_context_slow(api);
}
/* CUDYN_ERROR_WRONG_CONTEXT: `what` ("the module", "kernel saxpy") belongs to
 * context owner, the thread works in `used`; the message names devices. */
int cudyn__fail_wrong_context(const char *api, const char *what, cu_context owner, cu_context used);
/* stream.c: a reset or the last release destroyed ctx and its events. */
void cudyn__events_forget_context(cu_context ctx);
/* stream.c: the context a stream's work runs in (the current one for
 * NULL), or NULL if the driver cannot say. */
cu_context cudyn__stream_context(cudyn_stream stream);
/* stream.c: an event cudyn did not create with cudyn_event_create but
 * will destroy (one opened from an IPC handle), owned by the thread's
 * context. */
void cudyn__event_adopt(cu_event e);
/* local_rank.c: the device a thread starts on when it chose none (0, or
 * the local rank's under CUDYN_DEVICE=local). */
int cudyn__first_device(const char *api, int *ordinal);
/* Ordinal -> CUdevice, with range checks and messages. */
int cudyn__get_device(const char *api, int ordinal, cu_device *dev);

/* ---- device.c: attributes the library reads for itself ---- */
/* Attribute attr of dev (of fn), or 0 where the driver does not report it:
 * an attribute it does not know (older drivers answer
 * CUDA_ERROR_INVALID_VALUE) or a function it lacks.  *failure (may be
 * NULL) receives any other failure of the call, else CU_OK. */
int cudyn__device_attr_or_zero(cu_device dev, int attr, cu_result *failure);
int cudyn__func_attr_or_zero(cu_function fn, int attr, cu_result *failure);

/* ---- memory.c: what the allocation functions share ---- */
/* Clears *out, checks out and bytes, then that the thread has a context. */
int cudyn__alloc_prologue(const char *api, cudyn_devptr *out, size_t bytes);
/* A failed allocation's message gets the size asked for; returns status. */
int cudyn__alloc_failed(int status, size_t bytes);

/* context.c: the thread's context was popped or destroyed by another
 * library (r is CUDA_ERROR_INVALID_CONTEXT or _CONTEXT_IS_DESTROYED): cudyn
 * moved on to what is current now, or to its primary context; true if the
 * call should be tried once more. */
bool cudyn__context_recovered(cu_result r, const char *api);

/* ipc_exports.c: the IPC memory handles this process exported (ipc.c
 * names opening one's own handle for what it is).  remember: h was made
 * for ptr; exported_by_us: the pointer h was made for here, or 0; forget:
 * the memory at ptr is being freed, its handle is no longer this
 * process's to recognise. */
void cudyn__ipc_remember(const cudyn_ipc_mem_handle *h, cudyn_devptr ptr);
cudyn_devptr cudyn__ipc_exported_by_us(const cudyn_ipc_mem_handle *h);
void cudyn__ipc_forget(cudyn_devptr ptr);

/* ipc.c: the result of exporting `what` ("the pool", "the allocation") as
 * a file descriptor through driver function cufn: *fd_out = fd on success;
 * CUDA_ERROR_INVALID_VALUE (made without the POSIX handle type) is
 * CUDYN_ERROR_INVALID_ARGUMENT with `hint`; other failures as the driver's. */
int cudyn__exported_fd(cu_result r, int fd, int *fd_out, const char *cufn, const char *what, const char *hint,
                       const char *api);

/* Calls the driver into r, once more if the thread's context had gone. */
#define CUDYN_DRIVER_CALL(r, call, api)                                             \
    do {                                                                            \
        (r) = (call);                                                               \
        if (CUDYN_UNLIKELY((r) != CU_OK) && cudyn__context_recovered((r), (api)))   \
            (r) = (call);                                                           \
    } while (0)

/* Wrap a driver call: on failure record the translated error and return. */
#define CUDYN_TRY_DRIVER(call, cufn, api)                        \
    do {                                                          \
        cu_result try_r_;                                         \
        CUDYN_DRIVER_CALL(try_r_, call, api);                     \
        if (CUDYN_UNLIKELY(try_r_ != CU_OK))                      \
            return cudyn__fail_driver(try_r_, (cufn), (api));     \
    } while (0)

#endif /* CUDYN_API_API_H */
