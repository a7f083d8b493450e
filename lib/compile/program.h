/*
 * program.h - a compiled program (cudyn_program), shared by compile.c
 * (compiling it, through the cache), module/module_source.c (loading it,
 * with rebuilds when the driver rejects it) and image.c (packing programs
 * into one multi-architecture image).
 */
#ifndef CUDYN_PROGRAM_H
#define CUDYN_PROGRAM_H

#include "api/api.h"
#include "compile/cache.h"
#include "compile/target.h"

#define CUDYN_MAX_ARCHS 64
#define CUDYN_MAX_OPTIONS 1000
#define CUDYN_MAX_NAMES 1000
#define CUDYN_MAX_HEADERS 1000

/* The caller's inputs, copied: a rebuild compiles them again. */
struct cudyn__inputs {
    char *source;
    char *name;
    char **options;
    int num_options;
    char **header_names;
    char **header_sources;
    int num_headers;
    char **expressions;
    int num_expressions;
    unsigned int flags; /* CUDYN_COMPILE_* */
};

struct cudyn_program {
    struct cudyn__inputs in;
    int device; /* ordinal, or CUDYN_DEVICE_NONE */
    int cc;     /* the device's compute capability (90), 0 without a device */
    /* the toolkit (loader/toolkit.c) whose key the cache was last asked
       under, or whose headers a compile gives NVRTC; NULL before either */
    const struct cudyn__toolkit *toolkit;
    unsigned char key[CUDYN_SHA256_BYTES]; /* of the inputs: the cache's, and the one compiles share */
    unsigned char entry_key[CUDYN_SHA256_BYTES]; /* of the entry read or written: key, or for a
                                                    compile that includes a toolkit header, the
                                                    toolkit's (compile.c) */
    /* NVRTC's architectures, known once NVRTC is loaded */
    int archs[CUDYN_MAX_ARCHS];
    size_t n_archs;
    /* what was built: from NVRTC, or the cache entry's own target */
    struct cudyn__target target;
    bool from_cache;
    struct cudyn__cache_entry out; /* image, PTX, log, names, interface, deps */
};

/* Checks a compile's arguments (size, pointers, counts, options); `fields`
 * receives a copy of what the caller's struct holds. */
int cudyn__compile_args_check(const char *api, const struct cudyn_compile_args *args,
                              struct cudyn_compile_args *fields);
/* The same for fields already copied (the older entry points, which name
 * arguments without the "args->" prefix). */
int cudyn__compile_fields_check(const char *api, const struct cudyn_compile_args *a, const char *prefix);
/* A new program: copies of the inputs, cc (args->device's compute
 * capability; ignored for CUDYN_DEVICE_NONE) and the
 * cache key.  Needs no NVRTC. */
int cudyn__program_new(const char *api, const struct cudyn_compile_args *args, int cc, struct cudyn_program **out);
/* The program's image: from the cache (checked against the files it
 * includes), from a compile of the same inputs running in another thread,
 * or from NVRTC (then stored).  `override` forces a target for a rebuild
 * after a load failure (it never reads the cache, and its result replaces
 * the entry).  On CUDYN_ERROR_COMPILE the log is in prog->out.log. */
int cudyn__program_build(const char *api, struct cudyn_program *prog, const char *override);
/* A copy of prog's inputs, built again for `override` (NULL: the target
 * NVRTC chooses now), replacing the cache entry.  NVRTC must be loaded. */
int cudyn__program_rebuild(const char *api, const struct cudyn_program *prog, const char *override,
                           struct cudyn_program **out);
/* A device's compute capability as major*10+minor (compile.c; the linker
 * asks it too). */
int cudyn__device_cc(const char *api, int device, int *cc);
/* The calling thread's device (its context's, made current if need be)
 * and its compute capability: three driver calls. */
int cudyn__current_device_cc(const char *api, int *device, int *cc);
/* NVRTC's architectures (NVRTC loaded); before 11.2 only cc itself. */
size_t cudyn__nvrtc_archs(int cc, int *archs);

#endif
