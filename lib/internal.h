/*
 * internal.h - the base wing's header (dispatch.c, error.c, status.c,
 * util.c; lib/README.md maps the wings): what every file of the library
 * shares.  Nothing here is exported: the library is built with
 * -fvisibility=hidden and only CUDYN_API functions reach the dynamic
 * symbol table.
 */
#ifndef CUDYN_INTERNAL_H
#define CUDYN_INTERNAL_H

#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

#include "cuda_abi.h"
#include "cudyn.h"

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

/* ---- util.c: small shared helpers ---- */
void cudyn__copy_string(char *dst, size_t cap, const char *src);
bool cudyn__starts_with(const char *s, const char *prefix);
const char *cudyn__getenv(const char *name); /* secure_getenv where available */
void cudyn__debug(const char *fmt, ...) CUDYN_PRINTF(1, 2);
double cudyn__now_ms(void); /* CLOCK_MONOTONIC */
/* The `size` bytes an open file has (as fstat gave them), read whole into a
 * malloc'd buffer with `pad` zero bytes after them; NULL with errno ENOMEM,
 * or EIO where the file gave fewer (it shrank, or a read failed). */
void *cudyn__read_whole(int fd, size_t size, size_t pad);

/* The library's one text buffer, in two kinds.  Bounded: buf and cap given
 * (the loaders' traces), what does not fit is dropped.  Growing: all zero
 * but grows (the PTX interface, a cache entry), buf is malloc'd and
 * doubled as needed, and the caller owns it; when memory runs out, failed
 * is set and nothing more is added.  Once anything was added, buf ends in
 * a NUL that len does not count (the bytes may hold NULs of their own). */
struct cudyn__text {
    char *buf;
    size_t cap, len;
    const char *echo_prefix; /* if not NULL and CUDYN_DEBUG is on, lines go to stderr too */
    bool grows;
    bool failed;
};
void cudyn__text_put(struct cudyn__text *t, const void *data, size_t n);
/* A line: fmt's text and a newline. */
void cudyn__text_add(struct cudyn__text *t, const char *fmt, ...) CUDYN_PRINTF(2, 3);
/* fmt's text as it is, of any length (a bounded buffer keeps what fits). */
void cudyn__text_vprintf(struct cudyn__text *t, const char *fmt, va_list ap) CUDYN_PRINTF(2, 0);

/* How a library was found: CUDYN_FOUND_BY_MAP of cudyn.h. */
enum cudyn__found_by {
#define FOUND_BY_ENUM(name, string, meaning) FOUND_BY_##name,
    CUDYN_FOUND_BY_MAP(FOUND_BY_ENUM)
#undef FOUND_BY_ENUM
};
const char *cudyn__found_by_name(enum cudyn__found_by how);
const char *cudyn__mechanism_name(int mechanism); /* CUDYN_ENTRY_MECHANISM_MAP */

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
/* driver_log.c: the driver's error log (cuLogs*).  _start once the
 * driver is bound; _append on a driver call's failure path only. */
void cudyn__driver_log_start(void);
void cudyn__driver_log_append(void);
/* Appends detail to the last error's message (before its hint). */
void cudyn__error_append(const char *fmt, ...) CUDYN_PRINTF(1, 2);
/* Saves and restores the thread's record (the loader replays its failure
 * to every caller; helpers keep a caller's first error). */
void cudyn__error_restore(const cudyn_error *saved);
void cudyn__error_save(cudyn_error *saved);

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
