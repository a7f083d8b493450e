/*
 * loader/nvjitlink.c - finds libnvJitLink, the CUDA toolkit's device
 * linker, and binds the functions of nvjitlink_symbols.h, once per process
 * (pthread_once) and only when a link needs it (compile/link.c) or
 * cudyn_toolkit_info asks: nothing else loads it.  Without it, cudyn links
 * with the driver's own linker (cuLink*).
 *
 * Search order, as for NVRTC (load_nvrtc.c): CUDYN_LIBNVJITLINK (file or
 * directory; set but unusable: an error, no fall-through), a copy already
 * loaded, the sonames newest first (loader/sonames.h), the directory of
 * the NVRTC that was loaded (and pip's nvidia/nvjitlink/lib beside pip's
 * NVRTC), $CUDA_PATH and $CUDA_HOME (lib64, lib), /usr/local/cuda and
 * /usr/local/cuda-X.Y (lib64, newest first), the unversioned name last.
 * A candidate needs nvJitLinkCreate and a major whose calls cudyn knows
 * (NVJITLINK_OLDEST_MAJOR to _NEWEST_MAJOR, nvjitlink_abi.h: a newer
 * major is refused, never called with an older one's signatures); one
 * refused is closed again and named in the final message.  Its version is
 * nvJitLinkVersion's (12.3+), else the major of its file name.
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
static const char *const sonames[] = {CUDYN_NVJITLINK_SONAMES(SONAME_ENTRY, SONAME_ENTRY)};
#undef SONAME_ENTRY

struct cudyn__nvjitlink_table cudyn__nvjitlink;

static struct {
    struct cudyn__library lib;
    char rejected[LOADER_PATH_BYTES + 160]; /* why the last candidate found was not used, "" if none */
} state;
static pthread_once_t once_control = PTHREAD_ONCE_INIT;

#define LIB (&state.lib)
#define TRACE(...) cudyn__text_add(&LIB->trace, __VA_ARGS__)

/* The major version in a file name (libnvJitLink.so.13 -> 13), or 0. */
static int major_of_name(const char *path)
{
    const char *so = strstr(path, ".so.");
    return so ? atoi(so + 4) : 0;
}

/* The library's version (13000 = 13.0): nvJitLinkVersion, else the file
 * name's major. */
static int version_of(void *h, const char *path)
{
    cudyn__pfn_nvJitLinkVersion get_version;
    void *p = dlsym(h, "nvJitLinkVersion");
    memcpy(&get_version, &p, sizeof p); /* object to function pointer: POSIX dlsym's documented use */
    unsigned int major = 0, minor = 0;
    if (get_version && get_version(&major, &minor) == NVJITLINK_OK && major > 0)
        return (int)(major * 1000 + minor * 10);
    return major_of_name(path) * 1000;
}

static enum candidate_result try_nvjitlink(const char *file, enum cudyn__found_by how, int extra_flags)
{
    double t0 = cudyn__now_ms();
    char why[LOADER_PATH_BYTES + 64];
    void *h = cudyn__dlopen(file, RTLD_NOW | RTLD_LOCAL | extra_flags, why, sizeof why);
    if (!h) {
        TRACE("%s [%s]: %s", file, cudyn__found_by_name(how), why);
        return CANDIDATE_MISSING;
    }
    void *create = dlsym(h, "nvJitLinkCreate");
    char path[LOADER_PATH_BYTES];
    cudyn__library_path(create, file, path, sizeof path);
    int version = create ? version_of(h, path) : 0, major = version / 1000;
    bool usable = false;
    if (!create)
        snprintf(state.rejected, sizeof state.rejected, "%s has no nvJitLinkCreate", path);
    else if (major < NVJITLINK_OLDEST_MAJOR)
        snprintf(state.rejected, sizeof state.rejected, "%s is nvJitLink %d.%d, older than %d.0, the oldest cudyn uses",
                 path, major, version % 1000 / 10, NVJITLINK_OLDEST_MAJOR);
    else if (major > NVJITLINK_NEWEST_MAJOR) /* its calls may differ from those cudyn knows: never guessed */
        snprintf(state.rejected, sizeof state.rejected,
                 "%s is nvJitLink %d.%d, newer than %d.x, the newest whose calls cudyn knows", path, major,
                 version % 1000 / 10, NVJITLINK_NEWEST_MAJOR);
    else
        usable = true;
    if (!usable) {
        dlclose(h);
        TRACE("%s [%s]: rejected: %s", file, cudyn__found_by_name(how), state.rejected);
        return CANDIDATE_UNUSABLE;
    }
    LIB->handle = h;
    LIB->version = version;
    LIB->found_by = how;
    LIB->dlopen_ms = cudyn__now_ms() - t0;
    cudyn__copy_string(LIB->path, sizeof LIB->path, path);
    TRACE("%s [%s]: using %s, nvJitLink %d.%d", file, cudyn__found_by_name(how), path, version / 1000,
          version % 1000 / 10);
    return CANDIDATE_OK;
}

static const struct cudyn__search_plan plan = {
    .what = "nvJitLink",
    .static_name = "nvJitLink (libnvJitLink)",
    .not_found = CUDYN_ERROR_NOT_SUPPORTED,
    .variable = "CUDYN_LIBNVJITLINK",
    .variable_how = FOUND_BY_NVJITLINK_ENV,
    .variable_hint = HINT_NVJITLINK_OVERRIDE,
    .sonames = sonames,
    .n_sonames = N_ELEMS(sonames),
    .try_file = try_nvjitlink,
    .rejected = state.rejected,
};

/* NVRTC's directory; for pip's nvidia/cuda_nvrtc/lib also the wheel
 * nvidia/nvjitlink/lib beside it. */
static bool try_beside_nvrtc(void)
{
    const char *dir = cudyn__nvrtc_dir();
    if (!dir)
        return false;
    if (cudyn__search_dir(&plan, dir, FOUND_BY_NVRTC_DIR))
        return true;
    const char *wheel = strstr(dir, "/nvidia/cuda_nvrtc/lib");
    if (!wheel)
        return false;
    char sibling[LOADER_PATH_BYTES];
    snprintf(sibling, sizeof sibling, "%.*s/nvidia/nvjitlink/lib", (int)(wheel - dir), dir);
    return cudyn__search_dir(&plan, sibling, FOUND_BY_NVRTC_DIR);
}

static int find_nvjitlink(void)
{
    int st;
    if (cudyn__search_override(&plan, &st))
        return st;
    if (cudyn__search_loaded(&plan) || cudyn__search_sonames(&plan) || try_beside_nvrtc() ||
        cudyn__search_toolkits(&plan) || try_nvjitlink("libnvJitLink.so", FOUND_BY_UNVERSIONED, 0) == CANDIDATE_OK)
        return CUDYN_OK;
    return cudyn__fail(CUDYN_ERROR_NOT_SUPPORTED, CUDYN_ORIGIN_LOADER, 0, NULL, "dlopen", HINT_NO_NVJITLINK,
                       "nvJitLink (libnvJitLink.so.13 or .12) was not found (tried: the process, the loader's search "
                       "path, NVRTC's directory, CUDA_PATH, CUDA_HOME, /usr/local/cuda*/lib64, libnvJitLink.so)%s%s",
                       state.rejected[0] ? "; found but not usable: " : "", state.rejected);
}

/* Each row: __<name>_<major>_0 where versioned and the library has it,
 * else the plain name (the major is one cudyn knows: try_nvjitlink). */
static int bind_nvjitlink(void)
{
    char versioned[96];
#define NVJITLINK_SYMBOL(name, since, need, how, params)                                                       \
    snprintf(versioned, sizeof versioned, "__%s_%d_0", #name, LIB->version / 1000);                            \
    cudyn__library_bind_one(LIB, #name, how == VERSIONED ? versioned : NULL, need == REQUIRED, &cudyn__nvjitlink.name);
#include "nvjitlink_symbols.h"
#undef NVJITLINK_SYMBOL
    return cudyn__library_bound(LIB, HINT_NO_NVJITLINK, "");
}

static void nvjitlink_once(void)
{
    cudyn__library_load(LIB, "cudyn: nvjitlink: ", "nvJitLink", find_nvjitlink, bind_nvjitlink, &cudyn__nvjitlink,
                        sizeof cudyn__nvjitlink);
}

int cudyn__need_nvjitlink(void)
{
    pthread_once(&once_control, nvjitlink_once);
    if (LIB->status != CUDYN_OK)
        cudyn__error_restore(&LIB->error);
    return LIB->status;
}

const struct cudyn__library *cudyn__nvjitlink_library(void)
{
    pthread_once(&once_control, nvjitlink_once);
    return LIB;
}
