/*
 * internal.h - what the library's files share.  Nothing here is exported:
 * the library is built with -fvisibility=hidden and only CUDYN_API
 * functions reach the dynamic symbol table.
 */
#ifndef CUDYN_INTERNAL_H
#define CUDYN_INTERNAL_H

#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

#include "cudyn.h"
#include "cuda_abi.h"

#if defined(__GNUC__)
#define CUDYN_LIKELY(x) __builtin_expect(!!(x), 1)
#define CUDYN_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define CUDYN_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define CUDYN_LIKELY(x) (x)
#define CUDYN_UNLIKELY(x) (x)
#define CUDYN_PRINTF(f, a)
#endif

#define N_ELEMS(a) (sizeof(a) / sizeof((a)[0]))

/* The stream handle the driver takes: cudyn_stream is CUstream. */
#define CU_STREAM(s) ((cu_stream)(void *)(s))

/* ---- symbol tables (driver_symbols.h, nvrtc_symbols.h) ---- */
enum { NOSTREAM = 0, PTDS = 1, PTSZ = 2 };
enum { OPTIONAL = 0, REQUIRED = 1 };

#define DRIVER_SYMBOL(exported, base, version, stream, need, params) typedef cu_result(*cudyn__pfn_##exported) params;
#include "driver_symbols.h"
#undef DRIVER_SYMBOL

/* One slot per row; every slot holds the driver's function or a stub. */
struct cudyn__driver_table {
#define DRIVER_SYMBOL(exported, base, version, stream, need, params) cudyn__pfn_##exported exported;
#include "driver_symbols.h"
#undef DRIVER_SYMBOL
};

enum cudyn__driver_row {
#define DRIVER_SYMBOL(exported, base, version, stream, need, params) DRIVER_ROW_##exported,
#include "driver_symbols.h"
#undef DRIVER_SYMBOL
    DRIVER_ROW_COUNT
};

#define NVRTC_SYMBOL(name, since, need, params) typedef nvrtc_result (*cudyn__pfn_##name) params;
#include "nvrtc_symbols.h"
#undef NVRTC_SYMBOL

struct cudyn__nvrtc_table {
#define NVRTC_SYMBOL(name, since, need, params) cudyn__pfn_##name name;
#include "nvrtc_symbols.h"
#undef NVRTC_SYMBOL
};

enum cudyn__nvrtc_row {
#define NVRTC_SYMBOL(name, since, need, params) NVRTC_ROW_##name,
#include "nvrtc_symbols.h"
#undef NVRTC_SYMBOL
    NVRTC_ROW_COUNT
};

/* Written once under the loader's pthread_once, read-only afterwards. */
extern struct cudyn__driver_table cudyn__drv;
extern bool cudyn__drv_present[DRIVER_ROW_COUNT];
extern struct cudyn__nvrtc_table cudyn__nvrtc;
extern bool cudyn__nvrtc_present[NVRTC_ROW_COUNT];
/* The version of the library bound into each table (13000 = 13.0), or 0
 * until its loader has bound one: stored by the loader, with release, once
 * the table is final, so that the layers below the loaders (error.c) can
 * name it without asking them. */
extern atomic_int cudyn__driver_bound_version;
extern atomic_int cudyn__nvrtc_bound_version;
static inline int cudyn__driver_version_loaded(void)
{
    return atomic_load_explicit(&cudyn__driver_bound_version, memory_order_acquire);
}
static inline int cudyn__nvrtc_version_loaded(void)
{
    return atomic_load_explicit(&cudyn__nvrtc_bound_version, memory_order_acquire);
}
/* The process's context epoch: bumped by a fork after cuInit (the loader)
 * and by a context reset or release (context.c); a thread's cached "has a
 * context" (cudyn__need_context) and other per-context caches hold only
 * while it is unchanged. */
extern atomic_uint cudyn__context_generation;
#define DRIVER_HAS(exported) (cudyn__drv_present[DRIVER_ROW_##exported])
#define NVRTC_HAS(name) (cudyn__nvrtc_present[NVRTC_ROW_##name])

/* ---- dispatch.c: binding the tables ---- */
struct cudyn__text; /* trace buffer, below */
struct cudyn__bind_result {
    int mechanism;            /* cudyn_entry_mechanism */
    int bound, missing;       /* rows */
    const char *first_missing_required; /* NULL if all required rows bound */
};
void cudyn__bind_driver(void *handle, int driver_version, bool per_thread_stream, struct cudyn__text *trace,
                       struct cudyn__bind_result *out);
void cudyn__bind_nvrtc(void *handle, struct cudyn__text *trace, struct cudyn__bind_result *out);
/* The function whose stub gave r (a stub answers
 * CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER, or NVRTC_ERROR_INTERNAL_ERROR,
 * and names itself), or NULL when r is the library's own answer.  Clears
 * the thread's mark for that library either way (cudyn__fail_driver and
 * cudyn__fail_nvrtc call it).  A stub's answer a caller ignores leaves its
 * mark until then: call an optional function whose answer is ignored only
 * where DRIVER_HAS / NVRTC_HAS says it is there. */
const char *cudyn__driver_stub_answered(cu_result r);
const char *cudyn__nvrtc_stub_answered(nvrtc_result r);
/* 1 if a row named `name` (base or exported) is bound, 0 if rows exist but
 * none is bound, -1 if the table has no such row. */
int cudyn__table_has(const char *name);
void *cudyn__resolve_driver_proc(void *handle, int mechanism, int driver_version, bool per_thread_stream,
                                const char *name, int abi_version);

/* ---- load_driver.c, load_nvrtc.c ---- */
/* Fast check used by every public call; after init it is one load. */
extern atomic_int cudyn__driver_ready;
int cudyn__need_driver_slow(void);
static inline int cudyn__need_driver(void)
{
    if (CUDYN_LIKELY(atomic_load_explicit(&cudyn__driver_ready, memory_order_acquire)))
        return CUDYN_OK;
    return cudyn__need_driver_slow();
}
/* Loads the driver without requiring cuInit to succeed (for cudyn_has,
 * cudyn_driver_proc, cudyn_loader_info). */
int cudyn__load_driver_only(void);
int cudyn__need_nvrtc(void);
const char *cudyn__nvrtc_dir(void);     /* directory libnvrtc was loaded from, or NULL */

/* ---- util.c: small shared helpers ---- */
void cudyn__copy_string(char *dst, size_t cap, const char *src);
const char *cudyn__getenv(const char *name); /* secure_getenv where available */
bool cudyn__debug_enabled(void);
void cudyn__debug(const char *fmt, ...) CUDYN_PRINTF(1, 2);
double cudyn__now_ms(void); /* CLOCK_MONOTONIC */

/* A bounded text buffer for traces and logs. */
struct cudyn__text {
    char *buf;
    size_t cap, len;
    const char *echo_prefix; /* if not NULL and CUDYN_DEBUG is on, lines go to stderr too */
};
void cudyn__text_add(struct cudyn__text *t, const char *fmt, ...) CUDYN_PRINTF(2, 3);

/* How a library was found: CUDYN_FOUND_BY_MAP of cudyn.h. */
enum cudyn__found_by {
#define FOUND_BY_ENUM(name, string, meaning) FOUND_BY_##name,
    CUDYN_FOUND_BY_MAP(FOUND_BY_ENUM)
#undef FOUND_BY_ENUM
};
const char *cudyn__found_by_name(enum cudyn__found_by how);
const char *cudyn__mechanism_name(int mechanism); /* CUDYN_ENTRY_MECHANISM_MAP */

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
/* launch.c: what cudyn_launch reports when cuLaunchKernel answered r:
 * the failure for api, with the kernel's context or the limit the launch
 * broke named where cudyn can tell. */
int cudyn__launch_refused(const char *api, cu_result r, cu_function fn, cudyn_dim3 grid, cudyn_dim3 block,
                          unsigned int shared_bytes, cudyn_stream stream);
/* stream.c: a reset or the last release destroyed ctx and its events. */
void cudyn__events_forget_context(cu_context ctx);
/* stream.c: the context a stream's work runs in (the current one for
 * NULL), or NULL if the driver cannot say. */
cu_context cudyn__stream_context(cudyn_stream stream);
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

/* ---- error.c: the calling thread's last failure ---- */
/* Records a failure: `hint` (a HINT_* of hints.h, or NULL) ends the message
 * when a caller reads it. */
int cudyn__fail(int status, int origin, int native_code, const char *native_name, const char *function,
                const char *hint, const char *fmt, ...) CUDYN_PRINTF(7, 8);
/* "api: argument 'arg' what" -> CUDYN_ERROR_INVALID_ARGUMENT */
int cudyn__fail_arg(const char *api, const char *arg, const char *what);
/* "api: out of host memory" -> CUDYN_ERROR_OUT_OF_MEMORY, ENOMEM */
int cudyn__fail_oom(const char *api);
/* Translates a CUresult from driver function `cufn`, called for `api`. */
int cudyn__fail_driver(cu_result r, const char *cufn, const char *api);
int cudyn__fail_nvrtc(nvrtc_result r, const char *fn, const char *api, const char *detail);
/* Appends detail to the last error's message (before its hint). */
void cudyn__error_append(const char *fmt, ...) CUDYN_PRINTF(1, 2);
/* Saves and restores the thread's record (the loader replays its failure
 * to every caller; helpers keep a caller's first error). */
void cudyn__error_restore(const cudyn_error *saved);
void cudyn__error_save(cudyn_error *saved);

/* context.c: the thread's context was popped or destroyed by another
 * library (r is CUDA_ERROR_INVALID_CONTEXT or _CONTEXT_IS_DESTROYED): cudyn
 * moved on to what is current now, or to its primary context; true if the
 * call should be tried once more. */
bool cudyn__context_recovered(cu_result r, const char *api);

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

/* ---- module.c ---- */
/* Loads an image with a JIT error log; the log ends the error message. */
int cudyn__load_image(const char *api, cu_module *mod, const void *image);
struct cudyn__names;
struct cudyn__deps;
/* Wraps a loaded handle with the program's lowered names and kernel
 * interface (NULL: none).  On failure the handle is unloaded. */
int cudyn__module_wrap(const char *api, cu_module handle, const struct cudyn__names *names, const char *interface,
                       cudyn_module *out);
/*
 * cudyn_module_load_source's registry: one module per key and context.
 * Either *found is the registered module for key in the current context
 * (its count raised; the files its program included checked unchanged), or
 * *claim is a placeholder the caller must load and hand to
 * cudyn__module_publish: threads asking for the key meanwhile wait for it.
 */
int cudyn__module_claim(const char *api, const unsigned char *key, cudyn_module *found, cudyn_module *claim);
/* Completes a claim: with CUDYN_OK the placeholder becomes the module
 * (handle, names, interface and included files copied) for the caller and
 * the waiters; with a failure each waiter gets this thread's error. */
int cudyn__module_publish(const char *api, cudyn_module claim, int status, cu_module handle,
                          const struct cudyn__names *names, const char *interface, const struct cudyn__deps *deps);

/* ---- load_source.c ---- */
/* What a compile error leaves for a caller that explains it itself. */
struct cudyn__compile_failure {
    char *log;      /* NVRTC's log (malloc'd; the caller frees it), or NULL */
    char target[32]; /* what it compiled for ("sm_90"), or "" */
};
/* cudyn_module_load_source of a source the library generated (no options,
 * checked): on CUDYN_ERROR_COMPILE *failure holds the log, so the caller
 * needs no second compile to read it. */
int cudyn__module_load_generated(cudyn_module *out, const char *source, struct cudyn__compile_failure *failure);

/* ---- image.c ---- */
/* For cudyn_module_load_image: when image is cudyn's multi-architecture
 * container, *code is the entry for the current device (else the image
 * itself); *interface receives the kernels' PTX interface when the image
 * has PTX (malloc'd, or NULL). */
int cudyn__image_select(const char *api, const void *image, const void **code, char **interface);

/* ---- status.c ---- */
struct cudyn__native_code {
    int code;
    const char *name;
    int status;        /* cudyn_status it maps to */
    const char *hint;  /* NULL if none */
};
const struct cudyn__native_code *cudyn__cuda_code(int code);  /* NULL if unknown */
const struct cudyn__native_code *cudyn__nvrtc_code(int code); /* NULL if unknown */
const char *cudyn__cuda_description(int code); /* from the driver when loaded, else NULL */

#endif /* CUDYN_INTERNAL_H */
