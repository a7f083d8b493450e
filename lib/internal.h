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

/* ---- symbol tables (driver_symbols.h, nvrtc_symbols.h) ---- */
enum { NOSTREAM = 0, PTDS = 1, PTSZ = 2 };
enum { OPTIONAL = 0, REQUIRED = 1 };

#define DRIVER_SYMBOL(exported, base, version, stream, need, params) typedef cu_result(*cudyn_pfn_##exported) params;
#include "driver_symbols.h"
#undef DRIVER_SYMBOL

/* One slot per row; every slot holds the driver's function or a stub. */
struct cudyn_driver_table {
#define DRIVER_SYMBOL(exported, base, version, stream, need, params) cudyn_pfn_##exported exported;
#include "driver_symbols.h"
#undef DRIVER_SYMBOL
};

enum cudyn_driver_row {
#define DRIVER_SYMBOL(exported, base, version, stream, need, params) DRIVER_ROW_##exported,
#include "driver_symbols.h"
#undef DRIVER_SYMBOL
    DRIVER_ROW_COUNT
};

#define NVRTC_SYMBOL(name, since, need, params) typedef nvrtc_result (*cudyn_pfn_##name) params;
#include "nvrtc_symbols.h"
#undef NVRTC_SYMBOL

struct cudyn_nvrtc_table {
#define NVRTC_SYMBOL(name, since, need, params) cudyn_pfn_##name name;
#include "nvrtc_symbols.h"
#undef NVRTC_SYMBOL
};

enum cudyn_nvrtc_row {
#define NVRTC_SYMBOL(name, since, need, params) NVRTC_ROW_##name,
#include "nvrtc_symbols.h"
#undef NVRTC_SYMBOL
    NVRTC_ROW_COUNT
};

/* Written once under the loader's pthread_once, read-only afterwards. */
extern struct cudyn_driver_table cudyn_drv;
extern bool cudyn_drv_present[DRIVER_ROW_COUNT];
extern struct cudyn_nvrtc_table cudyn_nvrtc;
extern bool cudyn_nvrtc_present[NVRTC_ROW_COUNT];
#define DRIVER_HAS(exported) (cudyn_drv_present[DRIVER_ROW_##exported])
#define NVRTC_HAS(name) (cudyn_nvrtc_present[NVRTC_ROW_##name])

/* ---- dispatch.c: binding the tables ---- */
struct cudyn_text; /* trace buffer, below */
struct cudyn_bind_result {
    int mechanism;            /* cudyn_entry_mechanism */
    int bound, missing;       /* rows */
    const char *first_missing_required; /* NULL if all required rows bound */
};
void cudyn_bind_driver(void *handle, int driver_version, bool per_thread_stream, struct cudyn_text *trace,
                       struct cudyn_bind_result *out);
void cudyn_bind_nvrtc(void *handle, struct cudyn_text *trace, struct cudyn_bind_result *out);
/* Set by the stubs; read (and cleared) by cudyn_fail_driver. */
const char *cudyn_take_missing_symbol(void);
/* 1 if a row named `name` (base or exported) is bound, 0 if rows exist but
 * none is bound, -1 if the table has no such row. */
int cudyn_table_has(const char *name);
void *cudyn_resolve_driver_proc(void *handle, int mechanism, int driver_version, bool per_thread_stream,
                                const char *name, int abi_version);

/* ---- loader.c ---- */
/* Fast check used by every public call; after init it is one load. */
extern atomic_int cudyn_driver_ready;
int cudyn_need_driver_slow(const char *api);
static inline int cudyn_need_driver(const char *api)
{
    if (CUDYN_LIKELY(atomic_load_explicit(&cudyn_driver_ready, memory_order_acquire)))
        return CUDYN_OK;
    return cudyn_need_driver_slow(api);
}
int cudyn_need_nvrtc(const char *api);
int cudyn_driver_version_loaded(void);
int cudyn_nvrtc_version_loaded(void);
const char *cudyn_nvrtc_dir(void); /* directory libnvrtc was loaded from, or NULL */
/* Loads the driver without requiring cuInit to succeed (for cudyn_has,
 * cudyn_driver_proc, cudyn_loader_info). */
int cudyn_load_driver_only(const char *api);
void cudyn_debug(const char *fmt, ...) CUDYN_PRINTF(1, 2);

/* A bounded text buffer for traces and logs. */
struct cudyn_text {
    char *buf;
    size_t cap, len;
    const char *echo_prefix; /* if not NULL and CUDYN_DEBUG is on, lines go to stderr too */
};
void cudyn_text_add(struct cudyn_text *t, const char *fmt, ...) CUDYN_PRINTF(2, 3);

/* ---- context.c ---- */
extern atomic_uint cudyn_context_generation;
extern _Thread_local unsigned int cudyn_tls_context_generation; /* 0: not ready */
int cudyn_need_context_slow(const char *api);
/* The calling thread has a current context (ours or another library's). */
static inline int cudyn_need_context(const char *api)
{
    if (CUDYN_LIKELY(cudyn_tls_context_generation != 0 &&
                     cudyn_tls_context_generation ==
                         atomic_load_explicit(&cudyn_context_generation, memory_order_relaxed)))
        return CUDYN_OK;
    return cudyn_need_context_slow(api);
}
/* Ordinal -> CUdevice, with range checks and messages. */
int cudyn_get_device(const char *api, int ordinal, cu_device *dev);

/* ---- error.c: the calling thread's last failure ---- */
int cudyn_fail(int status, int origin, int native_code, const char *native_name, const char *function,
               const char *fmt, ...) CUDYN_PRINTF(6, 7);
/* "api: argument 'arg' what" -> CUDYN_ERROR_INVALID_ARGUMENT */
int cudyn_fail_arg(const char *api, const char *arg, const char *what);
/* Translates a CUresult from driver function `cufn`, called for `api`. */
int cudyn_fail_driver(cu_result r, const char *cufn, const char *api);
int cudyn_fail_nvrtc(nvrtc_result r, const char *fn, const char *api, const char *detail);
/* Appends text to the last error's message (e.g. a JIT log). */
void cudyn_error_append(const char *fmt, ...) CUDYN_PRINTF(1, 2);
/* Copies an error record saved by the loader into this thread. */
void cudyn_error_restore(const cudyn_error *saved);
void cudyn_error_save(cudyn_error *saved);

/* Wrap a driver call: on failure record the translated error and return. */
#define CUDYN_TRY_DRIVER(call, cufn, api)                     \
    do {                                                       \
        cu_result try_r_ = (call);                             \
        if (CUDYN_UNLIKELY(try_r_ != CU_OK))                   \
            return cudyn_fail_driver(try_r_, (cufn), (api));   \
    } while (0)

/* ---- module.c ---- */
/* Loads an image with a JIT error log; the log ends the error message. */
int cudyn_load_image(const char *api, cu_module *mod, const void *image);
struct cudyn_cache_entry;
/* Wraps a loaded handle with the program's lowered names; with a key, the
 * module joins the registry cudyn_module_load_source shares modules by.
 * On failure the handle is unloaded. */
int cudyn_module_wrap(const char *api, cu_module handle, const struct cudyn_cache_entry *names,
                      const unsigned char *shared_key, cudyn_module *out);
/* A registered module for this key in the current context (its count
 * raised), if any. */
bool cudyn_module_find_shared(const unsigned char *key, cudyn_module *out);

/* ---- args.c ---- */
/* Forgets cached kernel parameters (a module was unloaded). */
void cudyn_param_cache_invalidate(void);

/* ---- status.c ---- */
struct cudyn_native_code {
    int code;
    const char *name;
    int status;        /* cudyn_status it maps to */
    const char *hint;  /* NULL if none */
};
const struct cudyn_native_code *cudyn_cuda_code(int code);  /* NULL if unknown */
const struct cudyn_native_code *cudyn_nvrtc_code(int code); /* NULL if unknown */
const char *cudyn_cuda_description(int code); /* from the driver when loaded, else NULL */

/* ---- small helpers ---- */
void cudyn_copy_string(char *dst, size_t cap, const char *src);
const char *cudyn_getenv(const char *name); /* secure_getenv where available */

#endif /* CUDYN_INTERNAL_H */
