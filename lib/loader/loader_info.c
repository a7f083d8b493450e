/*
 * loader_info.c - what the loaders found (cudyn_loader_info), whether the
 * driver has a function (cudyn_has), and raw entry points for code written
 * against <cuda.h> (cudyn_driver_proc, cudyn_nvrtc_proc).
 */
#include "config.h"

#include <dlfcn.h>
#include <string.h>

#include "hints.h"
#include "loader/loader.h"

/* A library's status as loader_info reports it: NOT_READY until searched. */
static bool describe(const struct cudyn__library *lib, int *status)
{
    if (!atomic_load_explicit(&lib->done, memory_order_acquire)) {
        *status = CUDYN_ERROR_NOT_READY;
        return false;
    }
    *status = lib->status;
    return true;
}

static void describe_driver(struct cudyn_loader_info *info)
{
    const struct cudyn__driver_state *d = &cudyn__driver;
    info->entry_mechanism_name = cudyn__mechanism_name(CUDYN_ENTRY_NONE);
    if (!describe(&d->lib, &info->driver_status)) {
        info->init_status = CUDYN_ERROR_NOT_READY;
        return;
    }
    bool ok = d->lib.status == CUDYN_OK;
    info->init_status = d->init_status;
    info->driver_path = ok ? d->lib.path : NULL;
    info->driver_found_by = ok ? cudyn__found_by_name(d->lib.found_by) : NULL;
    info->driver_version = d->lib.version;
    info->entry_mechanism = ok ? d->lib.bind.mechanism : CUDYN_ENTRY_NONE;
    info->entry_mechanism_name = cudyn__mechanism_name(info->entry_mechanism);
    info->symbols_bound = d->lib.bind.bound;
    info->symbols_missing = d->lib.bind.missing;
    info->per_thread_stream = d->per_thread_stream;
    info->driver_trace = d->lib.trace_buf;
    info->driver_load_ms = d->lib.load_ms;
    info->driver_dlopen_ms = d->lib.dlopen_ms;
    info->init_ms = d->init_ms;
    const struct cudyn__compat *c = &d->compat;
    info->kernel_module_version = c->kmod_version[0] ? c->kmod_version : NULL;
    info->kernel_module_file = c->kmod_file[0] ? c->kmod_file : NULL;
    info->driver_release = ok && c->driver_release[0] ? c->driver_release : NULL;
    info->driver_is_compat = ok && c->driver_is_compat;
    info->compat_policy = cudyn__compat_policy_name(c->policy);
    info->compat_path = c->compat_path[0] ? c->compat_path : NULL;
    info->compat_decision = c->decision[0] ? c->decision : NULL;
    info->compat_probe_result = (int)c->probe_result;
}

static void describe_nvrtc(struct cudyn_loader_info *info)
{
    const struct cudyn__nvrtc_state *n = &cudyn__nvrtc_state;
    if (!describe(&n->lib, &info->nvrtc_status))
        return;
    bool ok = n->lib.status == CUDYN_OK;
    info->nvrtc_path = ok ? n->lib.path : NULL;
    info->nvrtc_found_by = ok ? cudyn__found_by_name(n->lib.found_by) : NULL;
    info->nvrtc_version = ok ? n->lib.version : 0;
    info->nvrtc_trace = n->lib.trace_buf;
    info->nvrtc_builtins_path = n->builtins_path[0] ? n->builtins_path : NULL;
    info->nvrtc_load_ms = n->lib.load_ms;
}

CUDYN_API int cudyn_loader_info_ex(struct cudyn_loader_info *out, unsigned int load)
{
    static const char api[] = "cudyn_loader_info";
    if (!out)
        return cudyn__fail_arg(api, "out", "must not be NULL");
    if (out->size < sizeof out->size)
        return cudyn__fail_arg(api, "out->size", "must be set to sizeof(struct cudyn_loader_info)");
    if (load & ~CUDYN_LOAD_ALL)
        return cudyn__fail_arg(api, "load", "has bits other than CUDYN_LOAD_DRIVER and CUDYN_LOAD_NVRTC");
    if (load & CUDYN_LOAD_NVRTC)
        cudyn__load_nvrtc(); /* its failure is reported in *out, not as the thread's error */
    if (load & CUDYN_LOAD_DRIVER)
        (void)cudyn__need_driver(); /* as cudyn_init: a failure becomes the thread's last error */

    struct cudyn_loader_info info = {0};
    describe_driver(&info);
    describe_nvrtc(&info);
    info.size = out->size < sizeof info ? out->size : sizeof info;
    memcpy(out, &info, info.size);
    return CUDYN_OK;
}

CUDYN_API int cudyn_loader_info(struct cudyn_loader_info *out)
{
    return cudyn_loader_info_ex(out, CUDYN_LOAD_ALL);
}

CUDYN_API int cudyn_has(const char *entry_point)
{
    if (!entry_point || !entry_point[0])
        return 0;
    if (strncmp(entry_point, "nccl", 4) == 0)
        return cudyn__nccl_has(entry_point);
    if (cudyn__load_driver_only() != CUDYN_OK)
        return 0;
    int known = cudyn__table_has(entry_point);
    if (known >= 0)
        return known;
    const struct cudyn__driver_state *d = &cudyn__driver;
    return cudyn__resolve_driver_proc(d->lib.handle, d->lib.bind.mechanism, d->lib.version, d->per_thread_stream,
                                      entry_point, d->lib.version) != NULL;
}

CUDYN_API void *cudyn_driver_proc(const char *name, int abi_version)
{
    static const char api[] = "cudyn_driver_proc";
    if (!name || !name[0]) {
        cudyn__fail_arg(api, "name", "must be a driver function name");
        return NULL;
    }
    if (abi_version <= 0) {
        cudyn__fail_arg(api, "abi_version", "must be a CUDA version such as 12040");
        return NULL;
    }
    if (cudyn__load_driver_only() != CUDYN_OK)
        return NULL;
    const struct cudyn__driver_state *d = &cudyn__driver;
    int version = d->lib.version;
    if (abi_version > version) {
        /* a newer ABI is never requested: it could return a variant with
         * another signature */
        cudyn__fail(CUDYN_ERROR_DRIVER_TOO_OLD, CUDYN_ORIGIN_LOADER, 0, NULL, name, HINT_ABI_VERSION,
                    "%s: %s was asked for at CUDA %d.%d but the driver supports CUDA %d.%d", api, name,
                    abi_version / 1000, abi_version % 1000 / 10, version / 1000, version % 1000 / 10);
        return NULL;
    }
    void *fn = cudyn__resolve_driver_proc(d->lib.handle, d->lib.bind.mechanism, version, d->per_thread_stream, name,
                                          abi_version);
    if (!fn)
        cudyn__fail(CUDYN_ERROR_SYMBOL_NOT_FOUND, CUDYN_ORIGIN_LOADER, 0, NULL, name, NULL,
                    "%s: the driver (CUDA %d.%d) has no %s at ABI %d", api, version / 1000, version % 1000 / 10, name,
                    abi_version);
    return fn;
}

CUDYN_API void *cudyn_nvrtc_proc(const char *name)
{
    static const char api[] = "cudyn_nvrtc_proc";
    if (!name || !name[0]) {
        cudyn__fail_arg(api, "name", "must be an NVRTC function name");
        return NULL;
    }
    if (cudyn__need_nvrtc() != CUDYN_OK)
        return NULL;
    const struct cudyn__library *lib = &cudyn__nvrtc_state.lib;
    void *fn = dlsym(lib->handle, name);
    if (!fn)
        cudyn__fail(CUDYN_ERROR_SYMBOL_NOT_FOUND, CUDYN_ORIGIN_LOADER, 0, NULL, name, NULL,
                    "%s: %s (NVRTC %d.%d) has no %s", api, lib->path, lib->version / 1000, lib->version % 1000 / 10,
                    name);
    return fn;
}

CUDYN_API const char *cudyn_version(void)
{
    return PACKAGE_VERSION;
}
