/*
 * loader/library.c - what the loaders of NVRTC, nvJitLink and NCCL share:
 *  - the one load of a library: under the caller's pthread_once, find it,
 *    bind its table, keep the failure to replay to every caller, and leave
 *    the caller's own last error as it was (loading is not the caller's
 *    failure);
 *  - the steps of a search, from the facts a loader states in its plan
 *    (its override variable, its sonames, how to try one file): the
 *    override, a copy already loaded, the dynamic loader's search by
 *    soname, a directory, the toolkit roots;
 *  - binding one row of a table, and the outcome of binding them all.
 * Each loader keeps what is its own: which candidate it accepts (a
 * version, a function it needs), the places only it searches, its table.
 */
#include "config.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "loader/loader.h"

void cudyn__library_load(struct cudyn__library *lib, const char *echo_prefix, const char *name, int (*find)(void),
                         int (*bind)(void), void *table, size_t table_size)
{
    lib->trace = (struct cudyn__text){.buf = lib->trace_buf, .cap = sizeof lib->trace_buf, .echo_prefix = echo_prefix};
    cudyn_error saved_caller_error;
    cudyn__error_save(&saved_caller_error);
    double t0 = cudyn__now_ms();
    lib->status = find();
    if (lib->status == CUDYN_OK)
        lib->status = bind();
    lib->load_ms = cudyn__now_ms() - t0;
    cudyn__text_add(&lib->trace, "load and bind: %.0f us", lib->load_ms * 1e3);
    if (lib->status != CUDYN_OK) {
        if (table)
            memset(table, 0, table_size); /* nothing half-bound is called */
        cudyn__error_save(&lib->error);
        cudyn__text_add(&lib->trace, "%s not usable: %s", name, lib->error.message);
    }
    cudyn__error_restore(&saved_caller_error);
    atomic_store_explicit(&lib->done, true, memory_order_release);
}

/* ------------------------------------------------------------ searching */

bool cudyn__search_override(const struct cudyn__search_plan *plan, int *status)
{
    *status = cudyn__refuse_static_program(plan->not_found, plan->static_name);
    if (*status != CUDYN_OK)
        return true;
    const char *value = cudyn__getenv(plan->variable);
    if (!value || !value[0])
        return false;
    bool ok = cudyn__is_directory(value) ? cudyn__search_dir(plan, value, plan->variable_how)
                                         : plan->try_file(value, plan->variable_how, 0) == CANDIDATE_OK;
    if (!ok)
        *status = cudyn__fail(plan->not_found, CUDYN_ORIGIN_LOADER, 0, NULL, "dlopen", plan->variable_hint,
                              "%s=%s is not a usable %s%s%s", plan->variable, value, plan->what,
                              plan->rejected[0] ? ": " : "", plan->rejected);
    return true;
}

bool cudyn__search_loaded(const struct cudyn__search_plan *plan)
{
    for (size_t i = 0; i < plan->n_sonames; i++)
        if (plan->try_file(plan->sonames[i], FOUND_BY_ALREADY_LOADED, RTLD_NOLOAD) == CANDIDATE_OK)
            return true;
    return false;
}

bool cudyn__search_sonames(const struct cudyn__search_plan *plan)
{
    for (size_t i = 0; i < plan->n_sonames; i++)
        if (plan->try_file(plan->sonames[i], FOUND_BY_SONAME, 0) == CANDIDATE_OK)
            return true;
    return false;
}

bool cudyn__search_dir(const struct cudyn__search_plan *plan, const char *dir, enum cudyn__found_by how)
{
    for (size_t i = 0; i < plan->n_sonames; i++) {
        char file[LOADER_PATH_BYTES + 32];
        snprintf(file, sizeof file, "%s/%s", dir, plan->sonames[i]);
        struct stat st;
        if (stat(file, &st) != 0)
            continue; /* keep the trace to files that exist */
        if (plan->try_file(file, how, 0) == CANDIDATE_OK)
            return true;
    }
    return false;
}

/* One toolkit root: lib64 and lib for the variables' toolkits, lib64
 * alone for /usr/local/cuda*. */
static bool search_toolkit_root(const char *root, enum cudyn__found_by how, void *ctx)
{
    const struct cudyn__search_plan *plan = ctx;
    for (size_t j = 0; j < (how == FOUND_BY_TOOLKIT_DIR ? 1 : CUDYN_TOOLKIT_LIB_SUBDIRS); j++) {
        char dir[LOADER_PATH_BYTES + 8];
        snprintf(dir, sizeof dir, "%s/%s", root, cudyn__toolkit_lib_subdirs[j]);
        if (cudyn__search_dir(plan, dir, how))
            return true;
    }
    return false;
}

bool cudyn__search_toolkits(const struct cudyn__search_plan *plan)
{
    void *ctx = (void *)plan; /* read only */
    return cudyn__toolkit_env_roots(search_toolkit_root, ctx) || cudyn__toolkit_fixed_roots(search_toolkit_root, ctx);
}

/* -------------------------------------------------------------- binding */

void cudyn__library_bind_one(struct cudyn__library *lib, const char *name, const char *preferred, bool required,
                             void *slot)
{
    void *p = preferred ? dlsym(lib->handle, preferred) : NULL;
    if (!p)
        p = dlsym(lib->handle, name);
    memcpy(slot, &p, sizeof p); /* object to function pointer: POSIX dlsym's documented use */
    if (p)
        lib->bind.bound++;
    else if (required && !lib->bind.first_missing_required)
        lib->bind.first_missing_required = name;
    else
        lib->bind.missing++;
}

int cudyn__library_bound(struct cudyn__library *lib, const char *hint, const char *what)
{
    cudyn__text_add(&lib->trace, "%d functions bound, %d optional ones absent", lib->bind.bound, lib->bind.missing);
    if (lib->bind.first_missing_required)
        return cudyn__fail(CUDYN_ERROR_SYMBOL_NOT_FOUND, CUDYN_ORIGIN_LOADER, 0, NULL, lib->bind.first_missing_required,
                           hint, "%s%s lacks %s, which cudyn needs", lib->path, what, lib->bind.first_missing_required);
    return CUDYN_OK;
}
