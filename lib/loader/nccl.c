/*
 * loader/nccl.c - finds libnccl.so.2, checks its version and binds the
 * functions of nccl_symbols.h, once per process (pthread_once) and only
 * when a cudyn_nccl_* call, cudyn_has("nccl...") or cudyn_nccl_info needs
 * it: nothing else loads NCCL.
 *
 * Search order (first usable wins; cudyn.h's "Collectives" says why):
 * CUDYN_LIBNCCL (file or directory; set but unusable: an error, no
 * fall-through), a copy already loaded, the pip wheel's
 * site-packages/nvidia/nccl/lib in the site-packages of the libraries
 * already loaded, then in the Python environments named by VIRTUAL_ENV,
 * CONDA_PREFIX and the program's own prefix, the soname, and last the
 * user's and the system's site-packages (python_sites.c finds them from
 * paths alone: no Python runs).  A candidate too old, or
 * without ncclGetVersion, is closed again (it holds no pointer of ours)
 * and named in the final message.
 */
#include "config.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hints.h"
#include "loader/loader.h"
#include "loader/sonames.h"

#define WHEEL_LIB_DIR "nvidia/nccl/lib"

struct cudyn__nccl_table cudyn__nccl;

static struct {
    struct cudyn__library lib;
    char rejected[LOADER_PATH_BYTES + 160]; /* why the last candidate found was not used, "" if none */
    char version_string[32];
} state;
static pthread_once_t nccl_once_control = PTHREAD_ONCE_INIT;

#define LIB (&state.lib)
#define TRACE(...) cudyn__text_add(&LIB->trace, __VA_ARGS__)

/* The oldest NCCL cudyn accepts: the newest `since` of the required rows. */
static int minimum_version(void)
{
    int least = 0;
#define NCCL_SYMBOL(name, since, need, returns, params)                                                        \
    if (need == REQUIRED && since > least)                                                                     \
        least = since;
#include "nccl_symbols.h"
#undef NCCL_SYMBOL
    return least;
}

static void format_version(int code, char *out, size_t cap)
{
    snprintf(out, cap, "%d.%d.%d", nccl_version_major(code), nccl_version_minor(code), nccl_version_patch(code));
}

static enum candidate_result reject(void *h, const char *file, enum cudyn__found_by how)
{
    dlclose(h);
    TRACE("%s [%s]: rejected: %s", file, cudyn__found_by_name(how), state.rejected);
    return CANDIDATE_UNUSABLE;
}

/* Opens one candidate and decides whether it is a usable NCCL. */
static enum candidate_result try_nccl(const char *file, enum cudyn__found_by how, int extra_flags)
{
    double t0 = cudyn__now_ms();
    /* RTLD_LAZY: NCCL is large, and most of its relocations are never used */
    char why[LOADER_PATH_BYTES + 64];
    void *h = cudyn__dlopen(file, RTLD_LAZY | RTLD_LOCAL | extra_flags, why, sizeof why);
    if (!h) {
        TRACE("%s [%s]: %s", file, cudyn__found_by_name(how), why);
        if (how == FOUND_BY_NCCL_ENV) /* the override's failure names it */
            cudyn__copy_string(state.rejected, sizeof state.rejected, why);
        return CANDIDATE_MISSING;
    }
    cudyn__pfn_ncclGetVersion get_version;
    void *p = dlsym(h, "ncclGetVersion");
    memcpy(&get_version, &p, sizeof p); /* object to function pointer: POSIX dlsym's documented use */
    char path[LOADER_PATH_BYTES];
    cudyn__library_path(p, file, path, sizeof path);
    int version = 0;
    if (!get_version) {
        snprintf(state.rejected, sizeof state.rejected, "%s has no ncclGetVersion: not NCCL 2.3 or newer", path);
        return reject(h, file, how);
    }
    nccl_result r = get_version(&version);
    char have[32], need[32];
    format_version(version, have, sizeof have);
    format_version(minimum_version(), need, sizeof need);
    if (r != NCCL_OK)
        snprintf(state.rejected, sizeof state.rejected, "ncclGetVersion in %s returned %d", path, r);
    else if (version < minimum_version())
        snprintf(state.rejected, sizeof state.rejected, "%s is NCCL %s, older than %s, the oldest cudyn uses", path,
                 have, need);
    if (r != NCCL_OK || version < minimum_version())
        return reject(h, file, how);
    LIB->handle = h;
    LIB->version = version;
    LIB->found_by = how;
    LIB->dlopen_ms = cudyn__now_ms() - t0;
    cudyn__copy_string(LIB->path, sizeof LIB->path, path);
    cudyn__copy_string(state.version_string, sizeof state.version_string, have);
    TRACE("%s [%s]: using %s, NCCL %s (dlopen %.0f us)", file, cudyn__found_by_name(how), path, have,
          LIB->dlopen_ms * 1e3);
    return CANDIDATE_OK;
}

static const char *const sonames[] = {CUDYN_NCCL_SONAME};

static const struct cudyn__search_plan plan = {
    .what = "NCCL",
    .static_name = "NCCL (" CUDYN_NCCL_SONAME ")",
    .not_found = CUDYN_ERROR_NCCL_NOT_FOUND,
    .variable = "CUDYN_LIBNCCL",
    .variable_how = FOUND_BY_NCCL_ENV,
    .variable_hint = HINT_NCCL_OVERRIDE,
    .sonames = sonames,
    .n_sonames = N_ELEMS(sonames),
    .try_file = try_nccl,
    .rejected = state.rejected,
};

static bool try_site(const char *site, enum cudyn__found_by how)
{
    char dir[LOADER_PATH_BYTES];
    snprintf(dir, sizeof dir, "%s/" WHEEL_LIB_DIR, site);
    return cudyn__search_dir(&plan, dir, how);
}

/* ---- the pip wheel, in the site-packages python_sites.c finds ---- */

static bool try_site_cb(const char *site, enum cudyn__found_by how, void *ctx)
{
    (void)ctx;
    return try_site(site, how);
}

#define NO_WHEEL_HERE "no " WHEEL_LIB_DIR "/" CUDYN_NCCL_SONAME " in its python3* site-packages"

static bool try_loaded_wheels(void)
{
    return cudyn__sites_of_loaded(try_site_cb, NULL, &LIB->trace);
}

static bool try_python_environments(void)
{
    return cudyn__sites_of_environments(try_site_cb, NULL, &LIB->trace, NO_WHEEL_HERE);
}

/* pip install --user, and pip run as root or the distribution's Python. */
static bool try_python_sites(void)
{
    return cudyn__sites_of_user_and_system(try_site_cb, NULL, &LIB->trace, NO_WHEEL_HERE);
}

/* ---- the search ---- */

static int find_nccl(void)
{
    int st;
    if (cudyn__search_override(&plan, &st))
        return st;
    if (cudyn__search_loaded(&plan) || try_loaded_wheels() || try_python_environments() ||
        cudyn__search_sonames(&plan) || try_python_sites())
        return CUDYN_OK;
    return cudyn__fail(CUDYN_ERROR_NCCL_NOT_FOUND, CUDYN_ORIGIN_LOADER, 0, NULL, "dlopen", HINT_NO_NCCL,
                       "NCCL (" CUDYN_NCCL_SONAME ") was not found (tried: the process, the pip wheel's "
                       WHEEL_LIB_DIR " in the site-packages of the loaded libraries, of VIRTUAL_ENV, CONDA_PREFIX "
                       "and the program's prefix, the loader's search path, the user's and the system's "
                       "site-packages)%s%s",
                       state.rejected[0] ? "; found but not usable: " : "", state.rejected);
}

static int bind_nccl(void)
{
    char what[48];
    snprintf(what, sizeof what, " (NCCL %s)", state.version_string);
#define NCCL_SYMBOL(name, since, need, returns, params)                                                        \
    cudyn__library_bind_one(LIB, #name, NULL, need == REQUIRED, &cudyn__nccl.name);
#include "nccl_symbols.h"
#undef NCCL_SYMBOL
    return cudyn__library_bound(LIB, HINT_NO_NCCL, what);
}

static void nccl_once(void)
{
    cudyn__library_load(LIB, "cudyn: nccl: ", "NCCL", find_nccl, bind_nccl, &cudyn__nccl, sizeof cudyn__nccl);
}

int cudyn__need_nccl(void)
{
    pthread_once(&nccl_once_control, nccl_once);
    if (LIB->status != CUDYN_OK)
        cudyn__error_restore(&LIB->error);
    return LIB->status;
}

int cudyn__nccl_version(void)
{
    return atomic_load_explicit(&LIB->done, memory_order_acquire) && LIB->status == CUDYN_OK ? LIB->version : 0;
}

const char *cudyn__nccl_path(void)
{
    return cudyn__nccl_version() ? LIB->path : NULL;
}

int cudyn__nccl_has(const char *name)
{
    pthread_once(&nccl_once_control, nccl_once);
    return LIB->status == CUDYN_OK && dlsym(LIB->handle, name) != NULL;
}

CUDYN_API int cudyn_nccl_info(struct cudyn_nccl_info *out)
{
    static const char api[] = "cudyn_nccl_info";
    if (!out)
        return cudyn__fail_arg(api, "out", "must not be NULL");
    if (out->size < sizeof out->size)
        return cudyn__fail_arg(api, "out", "size must be set to sizeof(struct cudyn_nccl_info)");
    cudyn__need_nccl(); /* its failure stays the thread's last error */
    bool ok = LIB->status == CUDYN_OK;
    struct cudyn_nccl_info full = {
        .size = sizeof full,
        .status = LIB->status,
        .path = ok ? LIB->path : NULL,
        .found_by = ok ? cudyn__found_by_name(LIB->found_by) : NULL,
        .version = ok ? LIB->version : 0,
        .version_string = ok ? state.version_string : NULL,
        .load_ms = LIB->load_ms,
        .trace = LIB->trace.buf,
    };
    size_t n = out->size < sizeof full ? out->size : sizeof full;
    memcpy(out, &full, n); /* an older, smaller struct gets what fits */
    out->size = n;
    return CUDYN_OK;
}
