/*
 * module/module.h - the module wing: image to module to kernel to launch
 * (module.c, module_source.c, kernel_params.c, launch.c, launch_ex.c,
 * args.c, format.c).  What its files, and the expr wing above, share.
 */
#ifndef CUDYN_MODULE_MODULE_H
#define CUDYN_MODULE_MODULE_H

#include "api/api.h"

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

/* ---- module_source.c ---- */
/* What a compile error leaves for a caller that explains it itself. */
struct cudyn__compile_failure {
    char *log;      /* NVRTC's log (malloc'd; the caller frees it), or NULL */
    char target[32]; /* what it compiled for ("sm_90"), or "" */
};
/* cudyn_module_load_source of a source the library generated (no options,
 * checked): on CUDYN_ERROR_COMPILE *failure holds the log, so the caller
 * needs no second compile to read it. */
int cudyn__module_load_generated(cudyn_module *out, const char *source, struct cudyn__compile_failure *failure);

/* launch.c: what cudyn_launch reports when cuLaunchKernel answered r:
 * the failure for api, with the kernel's context or the limit the launch
 * broke named where cudyn can tell. */
int cudyn__launch_refused(const char *api, cu_result r, cu_function fn, cudyn_dim3 grid, cudyn_dim3 block,
                          unsigned int shared_bytes, cudyn_stream stream);
/* The dynamic shared memory every kernel may use without opting in. */
#define CUDYN__DEFAULT_DYNAMIC_SHARED 49152u
/* Before a launch with more than that: raises fn's limit to `shared`
 * (once; what each kernel allows is remembered), or refuses with
 * INVALID_ARGUMENT naming `arg` when the device cannot give it. */
int cudyn__allow_dynamic_shared(const char *api, const char *arg, cu_function fn, unsigned int shared);
#endif /* CUDYN_MODULE_MODULE_H */
