/*
 * load_nvrtc.c - finds libnvrtc and binds its table, once per process and
 * only when something needs it (a compile, cudyn_nvrtc_proc, or
 * cudyn_loader_info): a kernel found in the cache never loads NVRTC.
 *
 * Search order: CUDYN_LIBNVRTC, a copy already loaded, sonames newest first
 * (a data table), CUDA_PATH / CUDA_HOME, /usr/local/cuda and
 * /usr/local/cuda-X.Y (newest first), the unversioned name last.
 * libnvrtc-builtins is preloaded from the directory NVRTC came from.
 */
#include "config.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hints.h"
#include "loader/loader.h"
#include "loader/sonames.h"

#define SONAME_ENTRY(soname) soname,
static const char *const nvrtc_sonames[] = {CUDYN_NVRTC_SONAMES(SONAME_ENTRY, SONAME_ENTRY)};
#undef SONAME_ENTRY

struct cudyn__nvrtc_state cudyn__nvrtc_state;
static pthread_once_t nvrtc_once_control = PTHREAD_ONCE_INIT;

#define LIB (&cudyn__nvrtc_state.lib)
#define TRACE(...) cudyn__text_add(&LIB->trace, __VA_ARGS__)

static enum candidate_result try_nvrtc(const char *file, enum cudyn__found_by how, int extra_flags)
{
    char why[LOADER_PATH_BYTES + 64];
    void *h = cudyn__dlopen(file, RTLD_NOW | RTLD_LOCAL | extra_flags, why, sizeof why);
    if (!h) {
        TRACE("%s [%s]: %s", file, cudyn__found_by_name(how), why);
        if (how == FOUND_BY_NVRTC_ENV) /* the override's failure names it */
            cudyn__copy_string(cudyn__nvrtc_state.rejected, sizeof cudyn__nvrtc_state.rejected, why);
        return CANDIDATE_MISSING;
    }
    cudyn__pfn_nvrtcVersion get_version = (cudyn__pfn_nvrtcVersion)dlsym(h, "nvrtcVersion");
    char path[LOADER_PATH_BYTES];
    cudyn__library_path((void *)get_version, file, path, sizeof path);
    int major = 0, minor = 0;
    nvrtc_result r = get_version ? get_version(&major, &minor) : NVRTC_OK;
    if (!get_version || r != NVRTC_OK) {
        const struct cudyn__native_code *code = cudyn__nvrtc_code((int)r);
        if (get_version)
            snprintf(cudyn__nvrtc_state.rejected, sizeof cudyn__nvrtc_state.rejected,
                     "%s: nvrtcVersion returned %s (%d)", path, code ? code->name : "an unknown result", (int)r);
        else
            snprintf(cudyn__nvrtc_state.rejected, sizeof cudyn__nvrtc_state.rejected, "%s has no nvrtcVersion", path);
        TRACE("%s [%s]: rejected: %s", file, cudyn__found_by_name(how), cudyn__nvrtc_state.rejected);
        return CANDIDATE_UNUSABLE;
    }
    LIB->handle = h;
    LIB->version = major * 1000 + minor * 10;
    LIB->found_by = how;
    cudyn__copy_string(LIB->path, sizeof LIB->path, path);
    cudyn__copy_string(cudyn__nvrtc_state.dir, sizeof cudyn__nvrtc_state.dir, path);
    char *slash = strrchr(cudyn__nvrtc_state.dir, '/');
    if (slash)
        *slash = '\0';
    else
        cudyn__nvrtc_state.dir[0] = '\0';
    TRACE("%s [%s]: using %s, NVRTC %d.%d", file, cudyn__found_by_name(how), path, major, minor);
    return CANDIDATE_OK;
}

static const struct cudyn__search_plan plan = {
    .what = "libnvrtc",
    .static_name = "NVRTC (libnvrtc)",
    .not_found = CUDYN_ERROR_NVRTC_NOT_FOUND,
    .variable = "CUDYN_LIBNVRTC",
    .variable_how = FOUND_BY_NVRTC_ENV,
    .variable_hint = HINT_NVRTC_OVERRIDE,
    .sonames = nvrtc_sonames,
    .n_sonames = N_ELEMS(nvrtc_sonames),
    .try_file = try_nvrtc,
    .rejected = cudyn__nvrtc_state.rejected,
};

static int find_nvrtc(void)
{
    int st;
    if (cudyn__search_override(&plan, &st))
        return st;
    if (cudyn__search_loaded(&plan) || cudyn__search_sonames(&plan) || cudyn__search_toolkits(&plan) ||
        try_nvrtc("libnvrtc.so", FOUND_BY_UNVERSIONED, 0) == CANDIDATE_OK)
        return CUDYN_OK;
    return cudyn__fail(CUDYN_ERROR_NVRTC_NOT_FOUND, CUDYN_ORIGIN_LOADER, 0, NULL, "dlopen", HINT_NO_NVRTC,
                       "NVRTC (libnvrtc.so.13, .12, .11.x or .10.2) was not found (tried: the process, the loader's "
                       "search path, CUDA_PATH, CUDA_HOME, /usr/local/cuda*/lib64, libnvrtc.so)%s%s",
                       cudyn__nvrtc_state.rejected[0] ? "; found but not usable: " : "", cudyn__nvrtc_state.rejected);
}

/* NVRTC dlopens libnvrtc-builtins itself, by soname; loading it first from
 * NVRTC's own directory makes sure the matching one is used. */
static void preload_builtins(void)
{
    if (!cudyn__nvrtc_state.dir[0])
        return;
    char file[LOADER_PATH_BYTES + 64];
    snprintf(file, sizeof file, "%s/libnvrtc-builtins.so.%d.%d", cudyn__nvrtc_state.dir, LIB->version / 1000,
             LIB->version % 1000 / 10);
    char why[LOADER_PATH_BYTES + 64];
    if (cudyn__dlopen(file, RTLD_NOW | RTLD_LOCAL, why, sizeof why)) {
        cudyn__copy_string(cudyn__nvrtc_state.builtins_path, sizeof cudyn__nvrtc_state.builtins_path, file);
        TRACE("preloaded %s", file);
    } else {
        TRACE("%s: %s (NVRTC will search for it itself)", file, why);
    }
}

/* The table (dispatch.c: a row NVRTC lacks keeps its stub), the builtins;
 * the version others read says NVRTC is bound. */
static int bind_nvrtc(void)
{
    cudyn__bind_nvrtc(LIB->handle, &LIB->trace, &LIB->bind);
    if (LIB->bind.first_missing_required)
        return cudyn__fail(CUDYN_ERROR_SYMBOL_NOT_FOUND, CUDYN_ORIGIN_LOADER, 0, NULL, LIB->bind.first_missing_required,
                           HINT_REINSTALL_NVRTC, "%s lacks %s, which cudyn requires", LIB->path,
                           LIB->bind.first_missing_required);
    preload_builtins();
    atomic_store_explicit(&cudyn__nvrtc_bound_version, LIB->version, memory_order_release);
    return CUDYN_OK;
}

static void nvrtc_once(void)
{
    /* no table to clear on failure: its rows keep their stubs */
    cudyn__library_load(LIB, "cudyn: nvrtc: ", "NVRTC", find_nvrtc, bind_nvrtc, NULL, 0);
}

void cudyn__load_nvrtc(void)
{
    pthread_once(&nvrtc_once_control, nvrtc_once);
}

int cudyn__need_nvrtc(void)
{
    cudyn__load_nvrtc();
    if (LIB->status != CUDYN_OK)
        cudyn__error_restore(&LIB->error);
    return LIB->status;
}

const char *cudyn__nvrtc_dir(void)
{
    return cudyn__nvrtc_version_loaded() && cudyn__nvrtc_state.dir[0] ? cudyn__nvrtc_state.dir : NULL;
}
