/*
 * loader.c - finds libcuda and libnvrtc, rejects stubs, and initialises
 * them once per process (pthread_once), the driver and NVRTC separately.
 *
 * Search order for libcuda (first usable wins):
 *   CUDYN_LIBCUDA (file or directory; if set but unusable: error, no
 *   fall-through), a copy already loaded in the process (RTLD_NOLOAD),
 *   libcuda.so.1 by soname (if that is a stub: the other LD_LIBRARY_PATH
 *   directories by full path), WSL's directory, fixed system directories,
 *   plain libcuda.so last.  Never the toolkit directory.
 * Search order for libnvrtc:
 *   CUDYN_LIBNVRTC, already loaded, sonames newest first, CUDA_PATH /
 *   CUDA_HOME, /usr/local/cuda and /usr/local/cuda-X.Y, unversioned last.
 * Libraries are never dlclose'd: function pointers into them live in the
 * dispatch tables for the life of the process.
 */
#include "config.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "internal.h"

/* ---- search lists, as data ---- */

/* The oldest driver cudyn's tables are written for. */
#define MIN_DRIVER_VERSION 11000

static const char *const driver_system_dirs[] = {
    "/usr/lib/x86_64-linux-gnu", /* Debian, Ubuntu */
    "/usr/lib/aarch64-linux-gnu",
    "/usr/lib64",                /* Fedora, RHEL, SUSE */
    "/usr/lib",                  /* Arch */
    "/usr/local/nvidia/lib64",   /* NVIDIA container toolkit */
    "/run/opengl-driver/lib",    /* NixOS */
};

static const char *const nvrtc_sonames[] = {
    "libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so.11.2", "libnvrtc.so.11.1", "libnvrtc.so.11.0", "libnvrtc.so.10.2",
};

static const char *const nvrtc_env_roots[] = {"CUDA_PATH", "CUDA_HOME"};
static const char *const toolkit_lib_subdirs[] = {"lib64", "lib"};

#define N_ELEMS(a) (sizeof(a) / sizeof((a)[0]))
#define TRACE_BYTES 16384

/* ---- small shared helpers ---- */

const char *cudyn__getenv(const char *name)
{
#if defined(HAVE_SECURE_GETENV)
    return secure_getenv(name);
#elif defined(HAVE___SECURE_GETENV)
    return __secure_getenv(name);
#else
    return getenv(name);
#endif
}

static bool debug_enabled(void)
{
    const char *v = cudyn__getenv("CUDYN_DEBUG");
    return v && v[0] && strcmp(v, "0") != 0;
}

void cudyn__debug(const char *fmt, ...)
{
    if (!debug_enabled())
        return;
    va_list ap;
    va_start(ap, fmt);
    fputs("cudyn: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

void cudyn__text_add(struct cudyn__text *t, const char *fmt, ...)
{
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (t->echo_prefix && debug_enabled())
        fprintf(stderr, "%s%s\n", t->echo_prefix, line);
    if (t->len + 1 >= t->cap)
        return;
    int n = snprintf(t->buf + t->len, t->cap - t->len, "%s\n", line);
    if (n < 0)
        return;
    t->len += (size_t)n < t->cap - t->len ? (size_t)n : t->cap - t->len - 1;
}

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static bool is_directory(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* The file a handle was loaded from, found through one of its symbols. */
static void library_path(void *symbol, const char *fallback, char *out, size_t cap)
{
    Dl_info info;
    if (symbol && dladdr(symbol, &info) && info.dli_fname && info.dli_fname[0])
        cudyn__copy_string(out, cap, info.dli_fname);
    else
        cudyn__copy_string(out, cap, fallback);
}

/* ======================================================================
 * The driver
 * ====================================================================== */

typedef cu_result (*driver_version_fn)(int *version);

static struct {
    pthread_once_t once;
    pthread_mutex_t flags_lock;
    unsigned int requested_flags;
    /* results, written once inside the once-routine */
    int load_status;
    cudyn_error load_error;
    int init_status;
    cudyn_error init_error;
    void *handle;
    char path[4096];
    const char *found_by;
    int version;
    bool per_thread_stream;
    struct cudyn__bind_result bind;
    char trace_buf[TRACE_BYTES];
    struct cudyn__text trace;
} driver = {
    .once = PTHREAD_ONCE_INIT,
    .flags_lock = PTHREAD_MUTEX_INITIALIZER,
};

atomic_int cudyn__driver_ready;

enum candidate_result { CANDIDATE_OK, CANDIDATE_MISSING, CANDIDATE_STUB, CANDIDATE_UNUSABLE };

/* Opens one candidate and decides whether it is a usable driver. */
static enum candidate_result try_driver(const char *file, const char *found_by, int extra_flags, char *why,
                                        size_t why_cap)
{
    /* RTLD_LAZY: libcuda is large and most of its own relocations are
     * never used by a process; binding them up front would dominate the
     * load time. */
    double t0 = now_us();
    void *h = dlopen(file, RTLD_LAZY | RTLD_LOCAL | extra_flags);
    if (!h) {
        const char *e = (extra_flags & RTLD_NOLOAD) ? "not loaded in this process" : dlerror();
        snprintf(why, why_cap, "%s", e ? e : "cannot be opened");
        cudyn__text_add(&driver.trace, "%s [%s]: %s", file, found_by, why);
        return CANDIDATE_MISSING;
    }
    driver_version_fn get_version = (driver_version_fn)dlsym(h, "cuDriverGetVersion");
    char path[4096];
    library_path((void *)get_version, file, path, sizeof path);

    if (strstr(path, "/stubs/")) {
        snprintf(why, why_cap, "%s is the CUDA toolkit's stub library, not a driver", path);
        cudyn__text_add(&driver.trace, "%s [%s]: rejected: %s", file, found_by, why);
        return CANDIDATE_STUB;
    }
    if (!get_version) {
        snprintf(why, why_cap, "%s has no cuDriverGetVersion: not a CUDA driver", path);
        cudyn__text_add(&driver.trace, "%s [%s]: rejected: %s", file, found_by, why);
        return CANDIDATE_UNUSABLE;
    }
    int version = 0;
    cu_result r = get_version(&version);
    if (r == CU_ERR_STUB_LIBRARY) {
        snprintf(why, why_cap, "%s answers CUDA_ERROR_STUB_LIBRARY (34): it is a stub, not a driver", path);
        cudyn__text_add(&driver.trace, "%s [%s]: rejected: %s", file, found_by, why);
        return CANDIDATE_STUB;
    }
    if (r != CU_OK) {
        snprintf(why, why_cap, "cuDriverGetVersion in %s failed with %u", path, r);
        cudyn__text_add(&driver.trace, "%s [%s]: rejected: %s", file, found_by, why);
        return CANDIDATE_UNUSABLE;
    }
    driver.handle = h;
    driver.version = version;
    driver.found_by = found_by;
    cudyn__copy_string(driver.path, sizeof driver.path, path);
    cudyn__text_add(&driver.trace, "%s [%s]: using %s, CUDA %d.%d (dlopen %.0f us)", file, found_by, path,
                   version / 1000, version % 1000 / 10, now_us() - t0);
    return CANDIDATE_OK;
}

/* libcuda.so.1 in each LD_LIBRARY_PATH directory that is not a stubs dir. */
static enum candidate_result try_library_path_dirs(char *why, size_t why_cap)
{
    const char *path = cudyn__getenv("LD_LIBRARY_PATH");
    if (!path)
        return CANDIDATE_MISSING;
    char dirs[4096];
    cudyn__copy_string(dirs, sizeof dirs, path);
    char *save = NULL;
    for (char *dir = strtok_r(dirs, ":", &save); dir; dir = strtok_r(NULL, ":", &save)) {
        if (!dir[0] || strstr(dir, "/stubs"))
            continue;
        char file[4096];
        snprintf(file, sizeof file, "%s/libcuda.so.1", dir);
        struct stat st;
        if (stat(file, &st) == 0 && try_driver(file, "LD_LIBRARY_PATH", 0, why, why_cap) == CANDIDATE_OK)
            return CANDIDATE_OK;
    }
    return CANDIDATE_MISSING;
}

/* Walks the search order; returns the cudyn_status of the search. */
static int find_driver(void)
{
    char why[1024] = "";
    char stub_why[1024] = "";
    enum candidate_result r;

    const char *override = cudyn__getenv("CUDYN_LIBCUDA");
    if (override && override[0]) {
        char file[4096];
        if (is_directory(override))
            snprintf(file, sizeof file, "%s/libcuda.so.1", override);
        else
            cudyn__copy_string(file, sizeof file, override);
        r = try_driver(file, "CUDYN_LIBCUDA", 0, why, sizeof why);
        if (r == CANDIDATE_OK)
            return CUDYN_OK;
        return cudyn__fail(r == CANDIDATE_STUB ? CUDYN_ERROR_STUB_DRIVER : CUDYN_ERROR_DRIVER_NOT_FOUND,
                          CUDYN_ORIGIN_LOADER, 0, NULL, "dlopen",
                          "CUDYN_LIBCUDA=%s is not usable: %s; hint: point CUDYN_LIBCUDA at the driver's "
                          "libcuda.so.1 (or its directory), or unset it to search the usual places",
                          override, why);
    }

    struct candidate {
        char file[4096];
        const char *found_by;
        int flags;
    } order[3 + N_ELEMS(driver_system_dirs)];
    size_t n = 0;
    order[n++] = (struct candidate){"libcuda.so.1", "already loaded", RTLD_NOLOAD};
    order[n++] = (struct candidate){"libcuda.so.1", "soname", 0};
    order[n++] = (struct candidate){"/usr/lib/wsl/lib/libcuda.so.1", "wsl", 0};
    for (size_t i = 0; i < N_ELEMS(driver_system_dirs); i++) {
        snprintf(order[n].file, sizeof order[n].file, "%s/libcuda.so.1", driver_system_dirs[i]);
        order[n].found_by = "system dir";
        order[n++].flags = 0;
    }

    bool saw_stub = false;
    for (size_t i = 0; i < n; i++) {
        r = try_driver(order[i].file, order[i].found_by, order[i].flags, why, sizeof why);
        if (r == CANDIDATE_OK)
            return CUDYN_OK;
        if (r == CANDIDATE_STUB && !saw_stub) {
            saw_stub = true;
            cudyn__copy_string(stub_why, sizeof stub_why, why);
            /* Once a stub is loaded under the soname, ld.so hands it back
             * for every later "libcuda.so.1"; the rest of LD_LIBRARY_PATH is
             * only reachable by full path. */
            if (strcmp(order[i].found_by, "soname") == 0 && try_library_path_dirs(why, sizeof why) == CANDIDATE_OK)
                return CUDYN_OK;
        }
    }
    r = try_driver("libcuda.so", "unversioned", 0, why, sizeof why);
    if (r == CANDIDATE_OK)
        return CUDYN_OK;
    if (r == CANDIDATE_STUB && !saw_stub) {
        saw_stub = true;
        cudyn__copy_string(stub_why, sizeof stub_why, why);
    }

    if (saw_stub)
        return cudyn__fail(CUDYN_ERROR_STUB_DRIVER, CUDYN_ORIGIN_LOADER, CU_ERR_STUB_LIBRARY, "CUDA_ERROR_STUB_LIBRARY",
                          "dlopen",
                          "only a stub libcuda was found (%s); hint: remove the toolkit's lib64/stubs directory "
                          "from LD_LIBRARY_PATH and install the NVIDIA driver",
                          stub_why);
    return cudyn__fail(CUDYN_ERROR_DRIVER_NOT_FOUND, CUDYN_ORIGIN_LOADER, 0, NULL, "dlopen",
                      "the NVIDIA driver library libcuda.so.1 was not found (tried: the process, the loader's "
                      "search path, /usr/lib/wsl/lib, %zu system directories, libcuda.so); hint: install the "
                      "NVIDIA driver, or set CUDYN_LIBCUDA to its libcuda.so.1 (cudainfo --explain shows the "
                      "full search)",
                      N_ELEMS(driver_system_dirs));
}

/* Legacy or per-thread default stream: explicit flags win over CUDYN_PTDS. */
static int choose_stream_mode(unsigned int flags, bool *per_thread)
{
    if (flags & CUDYN_INIT_PER_THREAD_STREAM) {
        *per_thread = true;
        return CUDYN_OK;
    }
    if (flags & CUDYN_INIT_LEGACY_STREAM) {
        *per_thread = false;
        return CUDYN_OK;
    }
    const char *env = cudyn__getenv("CUDYN_PTDS");
    if (!env || !env[0] || strcmp(env, "0") == 0) {
        *per_thread = false;
        return CUDYN_OK;
    }
    if (strcmp(env, "1") == 0) {
        *per_thread = true;
        return CUDYN_OK;
    }
    return cudyn__fail(CUDYN_ERROR_INVALID_ARGUMENT, CUDYN_ORIGIN_LIBRARY, 0, NULL, "cudyn_init",
                      "CUDYN_PTDS='%s' is not valid; hint: set it to 0 (legacy default stream) or 1 "
                      "(per-thread default stream), or unset it",
                      env);
}

static int load_and_bind_driver(void)
{
    int st = find_driver();
    if (st != CUDYN_OK)
        return st;

    if (driver.version < MIN_DRIVER_VERSION)
        return cudyn__fail(CUDYN_ERROR_DRIVER_TOO_OLD, CUDYN_ORIGIN_LOADER, 0, NULL, "cuDriverGetVersion",
                          "the driver at %s supports CUDA %d.%d; cudyn needs CUDA %d.%d or newer; hint: update "
                          "the NVIDIA driver",
                          driver.path, driver.version / 1000, driver.version % 1000 / 10, MIN_DRIVER_VERSION / 1000,
                          MIN_DRIVER_VERSION % 1000 / 10);

    pthread_mutex_lock(&driver.flags_lock);
    unsigned int flags = driver.requested_flags;
    pthread_mutex_unlock(&driver.flags_lock);
    st = choose_stream_mode(flags, &driver.per_thread_stream);
    if (st != CUDYN_OK)
        return st;

    cudyn__bind_driver(driver.handle, driver.version, driver.per_thread_stream, &driver.trace, &driver.bind);
    if (driver.bind.first_missing_required)
        return cudyn__fail(CUDYN_ERROR_SYMBOL_NOT_FOUND, CUDYN_ORIGIN_LOADER, 0, NULL,
                          driver.bind.first_missing_required,
                          "the driver at %s (CUDA %d.%d) lacks %s, which cudyn requires; hint: the library is "
                          "damaged or not an NVIDIA driver; reinstall the driver",
                          driver.path, driver.version / 1000, driver.version % 1000 / 10,
                          driver.bind.first_missing_required);
    return CUDYN_OK;
}

static void driver_once(void)
{
    driver.trace = (struct cudyn__text){driver.trace_buf, sizeof driver.trace_buf, 0, "cudyn: "};
    cudyn_error saved_caller_error;
    cudyn__error_save(&saved_caller_error);

    double t0 = now_us();
    driver.load_status = load_and_bind_driver();
    double t1 = now_us();
    cudyn__text_add(&driver.trace, "load and bind: %.0f us", t1 - t0);
    if (driver.load_status != CUDYN_OK) {
        cudyn__error_save(&driver.load_error);
        cudyn__text_add(&driver.trace, "driver not usable: %s", driver.load_error.message);
        driver.init_status = driver.load_status;
        driver.init_error = driver.load_error;
        return;
    }

    cu_result r = cudyn__drv.cuInit(0);
    cudyn__text_add(&driver.trace, "cuInit: %.0f us", now_us() - t1);
    if (r != CU_OK) {
        /* Keep the driver's own status for "no device" so callers can tell
         * an empty machine from a broken one. */
        cudyn__fail_driver(r, "cuInit", "cudyn_init");
        cudyn__error_save(&driver.init_error);
        driver.init_status = r == CU_ERR_NO_DEVICE ? CUDYN_ERROR_NO_DEVICE : CUDYN_ERROR_INIT_FAILED;
        driver.init_error.status = driver.init_status;
        cudyn__text_add(&driver.trace, "cuInit(0) failed: %s", driver.init_error.message);
        cudyn__error_restore(&saved_caller_error);
        return;
    }
    cudyn__text_add(&driver.trace, "cuInit(0): ok");
    driver.init_status = CUDYN_OK;
    cudyn__error_restore(&saved_caller_error);
    atomic_store_explicit(&cudyn__driver_ready, 1, memory_order_release);
}

int cudyn__load_driver_only(const char *api)
{
    (void)api;
    pthread_once(&driver.once, driver_once);
    if (driver.load_status != CUDYN_OK)
        cudyn__error_restore(&driver.load_error);
    return driver.load_status;
}

int cudyn__need_driver_slow(const char *api)
{
    (void)api;
    pthread_once(&driver.once, driver_once);
    if (driver.init_status != CUDYN_OK) {
        cudyn__error_restore(&driver.init_error);
        return driver.init_status;
    }
    return CUDYN_OK;
}

int cudyn__driver_version_loaded(void)
{
    return driver.load_status == CUDYN_OK ? driver.version : 0;
}

CUDYN_API int cudyn_init(unsigned int flags)
{
    const unsigned int stream_flags = CUDYN_INIT_LEGACY_STREAM | CUDYN_INIT_PER_THREAD_STREAM;
    if (flags & ~stream_flags)
        return cudyn__fail_arg("cudyn_init", "flags", "has unknown bits");
    if ((flags & stream_flags) == stream_flags)
        return cudyn__fail_arg("cudyn_init", "flags", "asks for both the legacy and the per-thread default stream");

    pthread_mutex_lock(&driver.flags_lock);
    driver.requested_flags = flags;
    pthread_mutex_unlock(&driver.flags_lock);
    pthread_once(&driver.once, driver_once);

    if (driver.load_status == CUDYN_OK && (flags & stream_flags)) {
        bool want_per_thread = (flags & CUDYN_INIT_PER_THREAD_STREAM) != 0;
        if (want_per_thread != driver.per_thread_stream)
            return cudyn__fail(CUDYN_ERROR_ALREADY_INITIALIZED, CUDYN_ORIGIN_LIBRARY, 0, NULL, "cudyn_init",
                              "cudyn_init: cudyn was already initialised with the %s default stream; hint: call "
                              "cudyn_init before any other cudyn function",
                              driver.per_thread_stream ? "per-thread" : "legacy");
    }
    return cudyn__need_driver_slow("cudyn_init");
}

/* ======================================================================
 * NVRTC
 * ====================================================================== */

typedef nvrtc_result (*nvrtc_version_fn)(int *major, int *minor);

static struct {
    pthread_once_t once;
    int status;
    cudyn_error error;
    void *handle;
    char path[4096];
    char dir[4096];
    const char *found_by;
    int version;
    char builtins_path[4096];
    struct cudyn__bind_result bind;
    char trace_buf[TRACE_BYTES];
    struct cudyn__text trace;
} nvrtc = {.once = PTHREAD_ONCE_INIT};

static enum candidate_result try_nvrtc(const char *file, const char *found_by, int extra_flags)
{
    void *h = dlopen(file, RTLD_NOW | RTLD_LOCAL | extra_flags);
    if (!h) {
        const char *e = (extra_flags & RTLD_NOLOAD) ? "not loaded in this process" : dlerror();
        cudyn__text_add(&nvrtc.trace, "%s [%s]: %s", file, found_by, e ? e : "cannot be opened");
        return CANDIDATE_MISSING;
    }
    nvrtc_version_fn get_version = (nvrtc_version_fn)dlsym(h, "nvrtcVersion");
    char path[4096];
    library_path((void *)get_version, file, path, sizeof path);
    int major = 0, minor = 0;
    if (!get_version || get_version(&major, &minor) != NVRTC_OK) {
        cudyn__text_add(&nvrtc.trace, "%s [%s]: rejected: %s has no working nvrtcVersion", file, found_by, path);
        return CANDIDATE_UNUSABLE;
    }
    nvrtc.handle = h;
    nvrtc.version = major * 1000 + minor * 10;
    nvrtc.found_by = found_by;
    cudyn__copy_string(nvrtc.path, sizeof nvrtc.path, path);
    cudyn__copy_string(nvrtc.dir, sizeof nvrtc.dir, path);
    char *slash = strrchr(nvrtc.dir, '/');
    if (slash)
        *slash = '\0';
    else
        nvrtc.dir[0] = '\0';
    cudyn__text_add(&nvrtc.trace, "%s [%s]: using %s, NVRTC %d.%d", file, found_by, path, major, minor);
    return CANDIDATE_OK;
}

/* Tries every soname of the table inside `dir`. */
static bool try_nvrtc_dir(const char *dir, const char *found_by)
{
    for (size_t i = 0; i < N_ELEMS(nvrtc_sonames); i++) {
        char file[4096];
        snprintf(file, sizeof file, "%s/%s", dir, nvrtc_sonames[i]);
        struct stat st;
        if (stat(file, &st) != 0)
            continue; /* keep the trace to files that exist */
        if (try_nvrtc(file, found_by, 0) == CANDIDATE_OK)
            return true;
    }
    return false;
}

static int compare_versions_descending(const void *a, const void *b)
{
    return strverscmp(*(char *const *)b, *(char *const *)a);
}

/* /usr/local/cuda-X.Y/lib64, newest version first. */
static bool try_versioned_toolkits(void)
{
    DIR *d = opendir("/usr/local");
    if (!d)
        return false;
    char *names[64];
    size_t n = 0;
    struct dirent *e;
    while ((e = readdir(d)) && n < N_ELEMS(names))
        if (strncmp(e->d_name, "cuda-", 5) == 0)
            names[n++] = strdup(e->d_name);
    closedir(d);
    qsort(names, n, sizeof names[0], compare_versions_descending);
    bool found = false;
    for (size_t i = 0; i < n; i++) {
        if (!found && names[i]) {
            char dir[4096];
            snprintf(dir, sizeof dir, "/usr/local/%s/lib64", names[i]);
            found = try_nvrtc_dir(dir, "toolkit dir");
        }
        free(names[i]);
    }
    return found;
}

static int find_nvrtc(void)
{
    const char *override = cudyn__getenv("CUDYN_LIBNVRTC");
    if (override && override[0]) {
        bool ok = is_directory(override) ? try_nvrtc_dir(override, "CUDYN_LIBNVRTC")
                                         : try_nvrtc(override, "CUDYN_LIBNVRTC", 0) == CANDIDATE_OK;
        if (ok)
            return CUDYN_OK;
        return cudyn__fail(CUDYN_ERROR_NVRTC_NOT_FOUND, CUDYN_ORIGIN_LOADER, 0, NULL, "dlopen",
                          "CUDYN_LIBNVRTC=%s is not a usable libnvrtc; hint: point it at libnvrtc.so.N (or its "
                          "directory), or unset it to search the usual places",
                          override);
    }
    for (size_t i = 0; i < N_ELEMS(nvrtc_sonames); i++)
        if (try_nvrtc(nvrtc_sonames[i], "already loaded", RTLD_NOLOAD) == CANDIDATE_OK)
            return CUDYN_OK;
    for (size_t i = 0; i < N_ELEMS(nvrtc_sonames); i++)
        if (try_nvrtc(nvrtc_sonames[i], "soname", 0) == CANDIDATE_OK)
            return CUDYN_OK;
    for (size_t i = 0; i < N_ELEMS(nvrtc_env_roots); i++) {
        const char *root = cudyn__getenv(nvrtc_env_roots[i]);
        if (!root || !root[0])
            continue;
        for (size_t j = 0; j < N_ELEMS(toolkit_lib_subdirs); j++) {
            char dir[4096];
            snprintf(dir, sizeof dir, "%s/%s", root, toolkit_lib_subdirs[j]);
            if (try_nvrtc_dir(dir, nvrtc_env_roots[i]))
                return CUDYN_OK;
        }
    }
    if (try_nvrtc_dir("/usr/local/cuda/lib64", "toolkit dir") || try_versioned_toolkits())
        return CUDYN_OK;
    if (try_nvrtc("libnvrtc.so", "unversioned", 0) == CANDIDATE_OK)
        return CUDYN_OK;
    return cudyn__fail(CUDYN_ERROR_NVRTC_NOT_FOUND, CUDYN_ORIGIN_LOADER, 0, NULL, "dlopen",
                      "NVRTC (libnvrtc.so.13, .12 or .11.x) was not found; hint: install NVRTC (Debian/Ubuntu: "
                      "libnvrtc13 or cuda-nvrtc-13-0; pip: nvidia-cuda-nvrtc) or set CUDYN_LIBNVRTC; run-time "
                      "compilation needs it, everything else works without it");
}

/* NVRTC dlopens libnvrtc-builtins itself, by soname; loading it first from
 * NVRTC's own directory makes sure the matching one is used. */
static void preload_builtins(void)
{
    if (!nvrtc.dir[0])
        return;
    char file[4096];
    snprintf(file, sizeof file, "%s/libnvrtc-builtins.so.%d.%d", nvrtc.dir, nvrtc.version / 1000,
             nvrtc.version % 1000 / 10);
    if (dlopen(file, RTLD_NOW | RTLD_LOCAL)) {
        cudyn__copy_string(nvrtc.builtins_path, sizeof nvrtc.builtins_path, file);
        cudyn__text_add(&nvrtc.trace, "preloaded %s", file);
    } else {
        const char *e = dlerror();
        cudyn__text_add(&nvrtc.trace, "%s: %s (NVRTC will search for it itself)", file, e ? e : "cannot be opened");
    }
}

static void nvrtc_once(void)
{
    nvrtc.trace = (struct cudyn__text){nvrtc.trace_buf, sizeof nvrtc.trace_buf, 0, "cudyn: nvrtc: "};
    cudyn_error saved_caller_error;
    cudyn__error_save(&saved_caller_error);
    nvrtc.status = find_nvrtc();
    if (nvrtc.status == CUDYN_OK) {
        cudyn__bind_nvrtc(nvrtc.handle, &nvrtc.trace, &nvrtc.bind);
        if (nvrtc.bind.first_missing_required)
            nvrtc.status = cudyn__fail(CUDYN_ERROR_SYMBOL_NOT_FOUND, CUDYN_ORIGIN_LOADER, 0, NULL,
                                      nvrtc.bind.first_missing_required,
                                      "%s lacks %s, which cudyn requires; hint: reinstall NVRTC", nvrtc.path,
                                      nvrtc.bind.first_missing_required);
        else
            preload_builtins();
    }
    if (nvrtc.status != CUDYN_OK) {
        cudyn__error_save(&nvrtc.error);
        cudyn__text_add(&nvrtc.trace, "NVRTC not usable: %s", nvrtc.error.message);
    }
    cudyn__error_restore(&saved_caller_error);
}

int cudyn__need_nvrtc(const char *api)
{
    (void)api;
    pthread_once(&nvrtc.once, nvrtc_once);
    if (nvrtc.status != CUDYN_OK)
        cudyn__error_restore(&nvrtc.error);
    return nvrtc.status;
}

int cudyn__nvrtc_version_loaded(void)
{
    return nvrtc.status == CUDYN_OK ? nvrtc.version : 0;
}

const char *cudyn__nvrtc_dir(void)
{
    return nvrtc.status == CUDYN_OK && nvrtc.dir[0] ? nvrtc.dir : NULL;
}

/* ======================================================================
 * Introspection
 * ====================================================================== */

CUDYN_API int cudyn_loader_info(struct cudyn_loader_info *out)
{
    if (!out)
        return cudyn__fail_arg("cudyn_loader_info", "out", "must not be NULL");
    if (out->size < sizeof out->size)
        return cudyn__fail_arg("cudyn_loader_info", "out->size", "must be set to sizeof(struct cudyn_loader_info)");
    pthread_once(&driver.once, driver_once);
    pthread_once(&nvrtc.once, nvrtc_once);

    struct cudyn_loader_info info = {0};
    info.size = out->size < sizeof info ? out->size : sizeof info;
    info.driver_status = driver.load_status;
    info.init_status = driver.init_status;
    info.driver_path = driver.load_status == CUDYN_OK ? driver.path : NULL;
    info.driver_found_by = driver.load_status == CUDYN_OK ? driver.found_by : NULL;
    info.driver_version = driver.version;
    info.entry_mechanism = driver.load_status == CUDYN_OK ? driver.bind.mechanism : CUDYN_ENTRY_NONE;
    info.symbols_bound = driver.bind.bound;
    info.symbols_missing = driver.bind.missing;
    info.per_thread_stream = driver.per_thread_stream;
    info.driver_trace = driver.trace_buf;
    info.nvrtc_status = nvrtc.status;
    info.nvrtc_path = nvrtc.status == CUDYN_OK ? nvrtc.path : NULL;
    info.nvrtc_found_by = nvrtc.status == CUDYN_OK ? nvrtc.found_by : NULL;
    info.nvrtc_version = cudyn__nvrtc_version_loaded();
    info.nvrtc_trace = nvrtc.trace_buf;
    info.nvrtc_builtins_path = nvrtc.builtins_path[0] ? nvrtc.builtins_path : NULL;
    memcpy(out, &info, info.size);
    return CUDYN_OK;
}

CUDYN_API int cudyn_has(const char *entry_point)
{
    if (!entry_point || !entry_point[0])
        return 0;
    if (cudyn__load_driver_only("cudyn_has") != CUDYN_OK)
        return 0;
    int known = cudyn__table_has(entry_point);
    if (known >= 0)
        return known;
    return cudyn__resolve_driver_proc(driver.handle, driver.bind.mechanism, driver.version, driver.per_thread_stream,
                                     entry_point, driver.version) != NULL;
}

CUDYN_API void *cudyn_driver_proc(const char *name, int abi_version)
{
    if (!name || !name[0]) {
        cudyn__fail_arg("cudyn_driver_proc", "name", "must be a driver function name");
        return NULL;
    }
    if (abi_version <= 0) {
        cudyn__fail_arg("cudyn_driver_proc", "abi_version", "must be a CUDA version such as 12040");
        return NULL;
    }
    if (cudyn__load_driver_only("cudyn_driver_proc") != CUDYN_OK)
        return NULL;
    if (abi_version > driver.version) {
        cudyn__fail(CUDYN_ERROR_DRIVER_TOO_OLD, CUDYN_ORIGIN_LOADER, 0, NULL, name,
                   "cudyn_driver_proc: %s was asked for at CUDA %d.%d but the driver supports CUDA %d.%d; a newer "
                   "ABI is never requested (it could return a variant with another signature); hint: pass the "
                   "oldest CUDA version whose declaration your code uses, or update the driver",
                   name, abi_version / 1000, abi_version % 1000 / 10, driver.version / 1000,
                   driver.version % 1000 / 10);
        return NULL;
    }
    void *fn = cudyn__resolve_driver_proc(driver.handle, driver.bind.mechanism, driver.version,
                                         driver.per_thread_stream, name, abi_version);
    if (!fn)
        cudyn__fail(CUDYN_ERROR_SYMBOL_NOT_FOUND, CUDYN_ORIGIN_LOADER, 0, NULL, name,
                   "cudyn_driver_proc: the driver (CUDA %d.%d) has no %s at ABI %d", driver.version / 1000,
                   driver.version % 1000 / 10, name, abi_version);
    return fn;
}

CUDYN_API void *cudyn_nvrtc_proc(const char *name)
{
    if (!name || !name[0]) {
        cudyn__fail_arg("cudyn_nvrtc_proc", "name", "must be an NVRTC function name");
        return NULL;
    }
    if (cudyn__need_nvrtc("cudyn_nvrtc_proc") != CUDYN_OK)
        return NULL;
    void *fn = dlsym(nvrtc.handle, name);
    if (!fn)
        cudyn__fail(CUDYN_ERROR_SYMBOL_NOT_FOUND, CUDYN_ORIGIN_LOADER, 0, NULL, name,
                   "cudyn_nvrtc_proc: %s (NVRTC %d.%d) has no %s", nvrtc.path, nvrtc.version / 1000,
                   nvrtc.version % 1000 / 10, name);
    return fn;
}

CUDYN_API const char *cudyn_version(void)
{
    return PACKAGE_VERSION;
}
