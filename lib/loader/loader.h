/*
 * loader/loader.h - the loader wing: finding and binding libcuda and NVRTC
 * (load_driver.c, load_nvrtc.c) and describing what was found
 * (loader_info.c).  First what the wings above call; then what the two
 * loaders found, for loader_info.c, which describes it and hands out raw
 * entry points.  Each state is written once inside its pthread_once
 * routine and read-only after `done` is set.
 */
#ifndef CUDYN_LOADER_LOADER_H
#define CUDYN_LOADER_LOADER_H

#include <pthread.h>

#include "internal.h"

/* ---- what the wings above call ---- */
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


/* ---- what the loaders found ---- */
#define LOADER_TRACE_BYTES 16384
#define LOADER_PATH_BYTES 4096

enum candidate_result { CANDIDATE_OK, CANDIDATE_MISSING, CANDIDATE_STUB, CANDIDATE_UNUSABLE };

/* What both loaders record about the library they looked for. */
struct cudyn__library {
    atomic_bool done;          /* the search ran; the fields below are final */
    int status;                /* cudyn_status of finding, loading and binding */
    cudyn_error error;         /* the failure, replayed to each caller */
    void *handle;
    char path[LOADER_PATH_BYTES];
    enum cudyn__found_by found_by;
    int version;               /* 13000 = 13.0 */
    double load_ms;
    double dlopen_ms; /* of load_ms, opening the file that was used */
    struct cudyn__bind_result bind;
    char trace_buf[LOADER_TRACE_BYTES];
    struct cudyn__text trace;
};

struct cudyn__driver_state {
    struct cudyn__library lib;
    int init_status;           /* cuInit */
    cudyn_error init_error;
    double init_ms;
    bool per_thread_stream;
};

struct cudyn__nvrtc_state {
    struct cudyn__library lib;
    char dir[LOADER_PATH_BYTES];
    char builtins_path[LOADER_PATH_BYTES];
    char rejected[LOADER_PATH_BYTES + 128]; /* why the last libnvrtc found was not used, "" if none */
};

extern struct cudyn__driver_state cudyn__driver;
extern struct cudyn__nvrtc_state cudyn__nvrtc_state;

/* Runs the NVRTC search if it has not run (cudyn__need_nvrtc without
 * replaying its error). */
void cudyn__load_nvrtc(void);

/* The file a handle was loaded from, found through one of its symbols. */
void cudyn__library_path(void *symbol, const char *fallback, char *out, size_t cap);
bool cudyn__is_directory(const char *path);

/* CUDYN_OK, or the failure `status` naming `library` when this process
 * is a statically linked program, which cannot load a shared library. */
int cudyn__refuse_static_program(int status, const char *library);

#endif
