/*
 * loader/toolkit.c - where the CUDA toolkit's files that kernels need at
 * run time lie: its headers (cuda_fp16.h, curand_kernel.h, CUB, libcu++),
 * which compile.c puts on NVRTC's include path, and libcudadevrt.a, which
 * the linker (compile/link.c) adds for dynamic parallelism.  Nothing is
 * loaded: only directories are looked at.
 *
 * The places, in order, the first that has them winning (the headers and
 * libcudadevrt.a each from the first place that has it):
 *  1. CUDYN_TOOLKIT: toolkit directories separated by ':' (each with an
 *     include and a lib64 or lib), or "none"; when set, nothing else;
 *  2. $CUDA_PATH, then $CUDA_HOME;
 *  3. the toolkit NVRTC was loaded from (the directory above NVRTC's), or
 *     for pip's NVRTC the NVIDIA wheels beside it;
 *  4. /usr/local/cuda, then /usr/local/cuda-X.Y, newest first;
 *  5. pip's NVIDIA wheels (site-packages/nvidia/<package>/include and lib)
 *     in the site-packages python_sites.c finds;
 *  6. the conda environment of CONDA_PREFIX (targets/<arch>-linux, or the
 *     prefix itself).
 * Headers are there when an include directory has cuda_runtime.h; each
 * include directory comes with its cccl directory, where CUDA 13 keeps
 * libcu++, CUB and Thrust.  All variables are read with secure_getenv:
 * under secure execution only the fixed places are searched.
 *
 * Step 3 needs NVRTC loaded, and a kernel found in the cache must not load
 * it; so the search runs once for a process without NVRTC and once more
 * when NVRTC is loaded (each in a pthread_once), and cudyn__toolkit()
 * answers with the one that fits the process now.  Include directories
 * are named by their canonical paths and told apart by their identities
 * (device, inode, modification and change times), never by spelling, so
 * that the two searches agree wherever they reach the same toolkit by
 * different paths (/usr/local/cuda, a symbolic link, and the
 * /usr/local/cuda-13.0 NVRTC lies in).  A compile that includes a
 * toolkit header is cached under a key holding those identities
 * (compile.c).
 */
#include "config.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "loader/loader.h"

#define TOOLKIT_TRACE_BYTES 8192

struct toolkit_search {
    struct cudyn__toolkit *t;
    char trace_buf[TOOLKIT_TRACE_BYTES];
    struct cudyn__text trace;
};

static struct cudyn__toolkit without_nvrtc, with_nvrtc;
static pthread_once_t without_once = PTHREAD_ONCE_INIT, with_once = PTHREAD_ONCE_INIT;

/* ---------------------------------------------------------- the places */

/* Adds dir (and its cccl directory) to the include path, each by its
 * canonical path (realpath): /usr/local/cuda/include and
 * /usr/local/cuda-13.0/include are one directory, whichever place of the
 * search reached it, and both searches (with and without NVRTC) name it
 * alike.  Its identity is taken with it. */
static void add_include(struct cudyn__toolkit *t, const char *dir)
{
    for (int cccl = 0; cccl < 2 && t->n_include < CUDYN_TOOLKIT_MAX_INCLUDE; cccl++) {
        char spelled[LOADER_PATH_BYTES + 8];
        snprintf(spelled, sizeof spelled, "%s%s", dir, cccl ? "/cccl" : "");
        char *real = realpath(spelled, NULL);
        struct stat st;
        if (!real || strlen(real) >= LOADER_PATH_BYTES || stat(real, &st) != 0 || !S_ISDIR(st.st_mode)) {
            free(real);
            continue;
        }
        cudyn__copy_string(t->include[t->n_include], LOADER_PATH_BYTES, real);
        free(real);
        struct cudyn__dir_identity *id = &t->identity[t->n_include++];
        id->dev = (uint64_t)st.st_dev;
        id->ino = (uint64_t)st.st_ino;
        id->mtime_ns = (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
        id->ctime_ns = (int64_t)st.st_ctim.tv_sec * 1000000000 + st.st_ctim.tv_nsec;
    }
}

/* One place: `includes` its include directories, `libs` its library
 * directories (n each).  Takes what it has that is still missing; true
 * when nothing is missing any more. */
static bool consider(struct toolkit_search *S, const char *where, enum cudyn__found_by how, char (*includes)[LOADER_PATH_BYTES],
                     int n_includes, char (*libs)[LOADER_PATH_BYTES], int n_libs)
{
    struct cudyn__toolkit *t = S->t;
    bool headers = false;
    for (int i = 0; i < n_includes && !headers; i++) {
        char probe[LOADER_PATH_BYTES + 32];
        snprintf(probe, sizeof probe, "%s/cuda_runtime.h", includes[i]);
        headers = cudyn__is_regular_file(probe);
    }
    char devrt[LOADER_PATH_BYTES + 32] = "";
    for (int i = 0; i < n_libs && !devrt[0]; i++) {
        snprintf(devrt, sizeof devrt, "%s/libcudadevrt.a", libs[i]);
        if (!cudyn__is_regular_file(devrt))
            devrt[0] = '\0';
    }
    cudyn__text_add(&S->trace, "%s [%s]: %s, %s", where, cudyn__found_by_name(how),
                    headers ? "headers" : "no headers (cuda_runtime.h)", devrt[0] ? devrt : "no libcudadevrt.a");
    size_t used = strlen(t->looked);
    snprintf(t->looked + used, sizeof t->looked - used, "%s%s (%s)%s", used ? ", " : "", where,
             cudyn__found_by_name(how), headers ? "" : ": none");
    if (headers && !t->n_include) {
        for (int i = 0; i < n_includes; i++)
            add_include(t, includes[i]);
        t->headers_found_by = how;
        cudyn__copy_string(t->headers_where, sizeof t->headers_where, where);
    }
    if (devrt[0] && !t->cudadevrt[0]) {
        cudyn__copy_string(t->cudadevrt, sizeof t->cudadevrt, devrt);
        t->cudadevrt_found_by = how;
    }
    return t->n_include > 0 && t->cudadevrt[0];
}

/* A toolkit directory: include, and its library directories
 * (toolkit_roots.c: lib64, lib). */
static bool consider_root(struct toolkit_search *S, const char *root, enum cudyn__found_by how)
{
    char includes[1][LOADER_PATH_BYTES], libs[CUDYN_TOOLKIT_LIB_SUBDIRS][LOADER_PATH_BYTES];
    snprintf(includes[0], LOADER_PATH_BYTES, "%s/include", root);
    for (size_t i = 0; i < CUDYN_TOOLKIT_LIB_SUBDIRS; i++)
        snprintf(libs[i], LOADER_PATH_BYTES, "%s/%s", root, cudyn__toolkit_lib_subdirs[i]);
    return consider(S, root, how, includes, 1, libs, CUDYN_TOOLKIT_LIB_SUBDIRS);
}

static int compare_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* pip's NVIDIA wheels in one site-packages: every nvidia/<package>/include
 * and nvidia/<package>/lib, packages in name order. */
static bool consider_wheels(struct toolkit_search *S, const char *site, enum cudyn__found_by how)
{
    char nvidia[LOADER_PATH_BYTES + 16];
    snprintf(nvidia, sizeof nvidia, "%s/nvidia", site);
    DIR *d = opendir(nvidia);
    if (!d)
        return false;
    char *names[CUDYN_TOOLKIT_MAX_INCLUDE];
    size_t n = 0;
    struct dirent *e;
    while ((e = readdir(d)) && n < N_ELEMS(names))
        if (e->d_name[0] != '.' && (names[n] = strdup(e->d_name)))
            n++;
    closedir(d);
    qsort(names, n, sizeof names[0], compare_names);
    char(*includes)[LOADER_PATH_BYTES] = calloc(n + 1, LOADER_PATH_BYTES);
    char(*libs)[LOADER_PATH_BYTES] = calloc(n + 1, LOADER_PATH_BYTES);
    int n_includes = 0, n_libs = 0;
    for (size_t i = 0; includes && libs && i < n; i++) {
        snprintf(includes[n_includes], LOADER_PATH_BYTES, "%s/%s/include", nvidia, names[i]);
        n_includes += cudyn__is_directory(includes[n_includes]);
        snprintf(libs[n_libs], LOADER_PATH_BYTES, "%s/%s/lib", nvidia, names[i]);
        n_libs += cudyn__is_directory(libs[n_libs]);
    }
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    bool done = includes && libs && (n_includes || n_libs) && consider(S, nvidia, how, includes, n_includes, libs, n_libs);
    free(includes);
    free(libs);
    return done;
}

static bool wheels_cb(const char *site, enum cudyn__found_by how, void *ctx)
{
    return consider_wheels(ctx, site, how);
}

static bool root_cb(const char *root, enum cudyn__found_by how, void *ctx)
{
    return consider_root(ctx, root, how);
}

/* The toolkit NVRTC came from: pip's wheels when NVRTC lies in
 * site-packages/nvidia/<package>/lib, else the directory above NVRTC's. */
static bool consider_nvrtc(struct toolkit_search *S)
{
    const char *dir = cudyn__nvrtc_dir();
    if (!dir) {
        cudyn__text_add(&S->trace, "beside NVRTC: NVRTC not loaded (yet)");
        return false;
    }
    char above[LOADER_PATH_BYTES];
    cudyn__copy_string(above, sizeof above, dir);
    char *slash = strrchr(above, '/');
    if (slash)
        *slash = '\0';
    const char *nvidia = strstr(above, "/nvidia/");
    slash = strrchr(above, '/');
    if (nvidia && slash == nvidia + strlen("/nvidia")) { /* .../site-packages/nvidia/<package> */
        char site[LOADER_PATH_BYTES];
        snprintf(site, sizeof site, "%.*s", (int)(nvidia - above), above);
        return consider_wheels(S, site, FOUND_BY_NVRTC_DIR);
    }
    return consider_root(S, above, FOUND_BY_NVRTC_DIR);
}

/* conda: its toolkit packages keep headers and libraries in
 * targets/<arch>-linux; older ones in the prefix itself. */
static bool consider_conda(struct toolkit_search *S)
{
    const char *prefix = cudyn__getenv("CONDA_PREFIX");
    if (!prefix || !prefix[0]) {
        cudyn__text_add(&S->trace, "CONDA_PREFIX: not set");
        return false;
    }
    char targets[LOADER_PATH_BYTES];
    snprintf(targets, sizeof targets, "%s/targets", prefix);
    DIR *d = opendir(targets);
    struct dirent *e;
    while (d && (e = readdir(d)))
        if (strstr(e->d_name, "-linux")) {
            char root[LOADER_PATH_BYTES * 2];
            snprintf(root, sizeof root, "%s/%s", targets, e->d_name);
            if (consider_root(S, root, FOUND_BY_CONDA)) {
                closedir(d);
                return true;
            }
        }
    if (d)
        closedir(d);
    return consider_root(S, prefix, FOUND_BY_CONDA);
}

/* CUDYN_TOOLKIT: its directories alone, or none. */
static void search_override(struct toolkit_search *S, const char *value)
{
    if (strcmp(value, "none") == 0) {
        cudyn__text_add(&S->trace, "CUDYN_TOOLKIT=none: no toolkit headers, no libcudadevrt.a");
        cudyn__copy_string(S->t->looked, sizeof S->t->looked, "nowhere: CUDYN_TOOLKIT=none");
        return;
    }
    char *copy = strdup(value), *save = NULL;
    for (char *root = copy ? strtok_r(copy, ":", &save) : NULL; root; root = strtok_r(NULL, ":", &save))
        if (consider_root(S, root, FOUND_BY_TOOLKIT_ENV) || consider_wheels(S, root, FOUND_BY_TOOLKIT_ENV))
            break;
    free(copy);
}

/* ------------------------------------------------------------ the search */

#define NO_WHEELS_HERE "no nvidia/*/include or lib in its python3* site-packages"

static void search(struct cudyn__toolkit *t, bool nvrtc)
{
    struct toolkit_search *S = calloc(1, sizeof *S);
    if (!S) {
        cudyn__copy_string(t->trace, sizeof t->trace, "out of memory: no toolkit search");
        return;
    }
    S->t = t;
    S->trace = (struct cudyn__text){.buf = S->trace_buf, .cap = sizeof S->trace_buf, .echo_prefix = "cudyn: toolkit: "};
    const char *override = cudyn__getenv("CUDYN_TOOLKIT");
    if (override && override[0]) {
        search_override(S, override);
    } else {
        cudyn__text_add(&S->trace, "CUDYN_TOOLKIT: not set");
        (void)(cudyn__toolkit_env_roots(root_cb, S) || (nvrtc && consider_nvrtc(S)) ||
               cudyn__toolkit_fixed_roots(root_cb, S) || cudyn__sites_of_loaded(wheels_cb, S, &S->trace) ||
               cudyn__sites_of_environments(wheels_cb, S, &S->trace, NO_WHEELS_HERE) ||
               cudyn__sites_of_user_and_system(wheels_cb, S, &S->trace, NO_WHEELS_HERE) || consider_conda(S));
    }
    if (!t->n_include)
        cudyn__text_add(&S->trace, "no CUDA toolkit headers found");
    if (!t->cudadevrt[0])
        cudyn__text_add(&S->trace, "no libcudadevrt.a found");
    size_t used = 0;
    for (int i = 0; i < t->n_include && used < sizeof t->include_path; i++)
        used += (size_t)snprintf(t->include_path + used, sizeof t->include_path - used, "%s%s", i ? ":" : "",
                                 t->include[i]);
    t->with_nvrtc = nvrtc;
    cudyn__copy_string(t->trace, sizeof t->trace, S->trace_buf);
    free(S);
}

static void search_without_nvrtc(void)
{
    search(&without_nvrtc, false);
}

static void search_with_nvrtc(void)
{
    search(&with_nvrtc, true);
}

const struct cudyn__toolkit *cudyn__toolkit(void)
{
    if (cudyn__nvrtc_dir()) {
        pthread_once(&with_once, search_with_nvrtc);
        return &with_nvrtc;
    }
    pthread_once(&without_once, search_without_nvrtc);
    return &without_nvrtc;
}

void cudyn__toolkit_where(char *buf, size_t cap)
{
    const struct cudyn__toolkit *t = cudyn__toolkit();
    if (t->n_include)
        snprintf(buf, cap, "the CUDA toolkit headers NVRTC was given: %s (from %s, %s)", t->include_path,
                 t->headers_where, cudyn__found_by_name(t->headers_found_by));
    else
        snprintf(buf, cap,
                 "no CUDA toolkit headers were found (looked in: %s; the places: $CUDYN_TOOLKIT, $CUDA_PATH, "
                 "$CUDA_HOME, NVRTC's toolkit, /usr/local/cuda*, pip's nvidia/*/include, $CONDA_PREFIX)",
                 t->looked[0] ? t->looked : "none of them exists");
}

CUDYN_API int cudyn_toolkit_info(struct cudyn_toolkit_info *out)
{
    static const char api[] = "cudyn_toolkit_info";
    if (!out)
        return cudyn__fail_arg(api, "out", "must not be NULL");
    if (out->size < sizeof out->size)
        return cudyn__fail_arg(api, "out", "size must be set to sizeof(struct cudyn_toolkit_info)");
    const struct cudyn__toolkit *t = cudyn__toolkit();
    cudyn_error saved;
    cudyn__error_save(&saved); /* nvJitLink's absence is an answer, not this call's failure */
    const struct cudyn__library *jl = cudyn__nvjitlink_library();
    cudyn__error_restore(&saved);
    bool headers = t->n_include > 0, devrt = t->cudadevrt[0] != '\0', linker = jl->status == CUDYN_OK;
    struct cudyn_toolkit_info full = {
        .size = sizeof full,
        .include_path = headers ? t->include_path : NULL,
        .headers_found_by = headers ? cudyn__found_by_name(t->headers_found_by) : NULL,
        .headers_location = headers ? t->headers_where : NULL,
        .cudadevrt = devrt ? t->cudadevrt : NULL,
        .cudadevrt_found_by = devrt ? cudyn__found_by_name(t->cudadevrt_found_by) : NULL,
        .trace = t->trace,
        .nvjitlink_status = jl->status,
        .nvjitlink_path = linker ? jl->path : NULL,
        .nvjitlink_found_by = linker ? cudyn__found_by_name(jl->found_by) : NULL,
        .nvjitlink_version = linker ? jl->version : 0,
        .nvjitlink_trace = jl->trace.buf,
        .nvjitlink_load_ms = jl->load_ms,
    };
    size_t n = out->size < sizeof full ? out->size : sizeof full;
    memcpy(out, &full, n); /* an older, smaller struct gets what fits */
    out->size = n;
    return CUDYN_OK;
}
