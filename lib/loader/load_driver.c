/*
 * load_driver.c - finds libcuda, rejects stubs, binds the symbol table and
 * calls cuInit, once per process (pthread_once).
 *
 * Search order (first usable wins): CUDYN_LIBCUDA (file or directory; if set
 * but unusable: error, no fall-through), a copy already loaded in the
 * process (RTLD_NOLOAD), libcuda.so.1 by soname (if that is a stub: the
 * other LD_LIBRARY_PATH directories by full path), WSL's directory, fixed
 * system directories, plain libcuda.so last.  Never the toolkit directory.
 * Libraries are never dlclose'd: function pointers into them live in the
 * dispatch tables for the life of the process.
 */
#include "config.h"

#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hints.h"
#include "loader/loader.h"
#include "loader/sonames.h"

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

struct cudyn__driver_state cudyn__driver;
atomic_int cudyn__driver_ready;

static pthread_once_t driver_once_control = PTHREAD_ONCE_INIT;
static pthread_mutex_t flags_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned int requested_flags;

#define TRACE(...) cudyn__text_add(&cudyn__driver.lib.trace, __VA_ARGS__)

/* Records why a candidate was rejected, in the trace and in `why`. */
static enum candidate_result reject(enum candidate_result r, const char *file, enum cudyn__found_by how, char *why,
                                    size_t why_cap, const char *fmt, ...) CUDYN_PRINTF(6, 7);
static enum candidate_result reject(enum candidate_result r, const char *file, enum cudyn__found_by how, char *why,
                                    size_t why_cap, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, why_cap, fmt, ap);
    va_end(ap);
    TRACE("%s [%s]: rejected: %s", file, cudyn__found_by_name(how), why);
    return r;
}

/* Opens one candidate and decides whether it is a usable driver. */
static enum candidate_result try_driver(const char *file, enum cudyn__found_by how, int extra_flags, char *why,
                                        size_t why_cap)
{
    /* RTLD_LAZY: libcuda is large and most of its own relocations are
     * never used by a process; binding them up front would dominate the
     * load time. */
    double t0 = cudyn__now_ms();
    void *h = cudyn__dlopen(file, RTLD_LAZY | RTLD_LOCAL | extra_flags, why, why_cap);
    if (!h) {
        TRACE("%s [%s]: %s", file, cudyn__found_by_name(how), why);
        return CANDIDATE_MISSING;
    }
    cudyn__pfn_cuDriverGetVersion get_version = (cudyn__pfn_cuDriverGetVersion)dlsym(h, "cuDriverGetVersion");
    char path[LOADER_PATH_BYTES];
    cudyn__library_path((void *)get_version, file, path, sizeof path);

    if (strstr(path, "/stubs/"))
        return reject(CANDIDATE_STUB, file, how, why, why_cap, "%s is the CUDA toolkit's stub library, not a driver",
                      path);
    if (!get_version)
        return reject(CANDIDATE_UNUSABLE, file, how, why, why_cap, "%s has no cuDriverGetVersion: not a CUDA driver",
                      path);
    int version = 0;
    cu_result r = get_version(&version);
    if (r == CU_ERR_STUB_LIBRARY)
        return reject(CANDIDATE_STUB, file, how, why, why_cap,
                      "%s answers CUDA_ERROR_STUB_LIBRARY (34): it is a stub, not a driver", path);
    if (r != CU_OK)
        return reject(CANDIDATE_UNUSABLE, file, how, why, why_cap, "cuDriverGetVersion in %s failed with %u", path, r);
    struct cudyn__library *lib = &cudyn__driver.lib;
    lib->handle = h;
    lib->version = version;
    lib->found_by = how;
    cudyn__copy_string(lib->path, sizeof lib->path, path);
    lib->dlopen_ms = cudyn__now_ms() - t0;
    TRACE("%s [%s]: using %s, CUDA %d.%d (dlopen %.0f us)", file, cudyn__found_by_name(how), path, version / 1000,
          version % 1000 / 10, lib->dlopen_ms * 1e3);
    return CANDIDATE_OK;
}

/* libcuda.so.1 in each LD_LIBRARY_PATH directory that is not a stubs dir. */
static enum candidate_result try_library_path_dirs(char *why, size_t why_cap)
{
    const char *path = cudyn__getenv("LD_LIBRARY_PATH");
    if (!path)
        return CANDIDATE_MISSING;
    char dirs[LOADER_PATH_BYTES];
    cudyn__copy_string(dirs, sizeof dirs, path);
    char *save = NULL;
    for (char *dir = strtok_r(dirs, ":", &save); dir; dir = strtok_r(NULL, ":", &save)) {
        if (!dir[0] || strstr(dir, "/stubs"))
            continue;
        char file[LOADER_PATH_BYTES + 16];
        snprintf(file, sizeof file, "%s/libcuda.so.1", dir);
        struct stat st;
        if (stat(file, &st) == 0 && try_driver(file, FOUND_BY_LD_LIBRARY_PATH, 0, why, why_cap) == CANDIDATE_OK)
            return CANDIDATE_OK;
    }
    return CANDIDATE_MISSING;
}

static int override_failed(const char *override, enum candidate_result r, const char *why)
{
    bool stub = r == CANDIDATE_STUB;
    return cudyn__fail(stub ? CUDYN_ERROR_STUB_DRIVER : CUDYN_ERROR_DRIVER_NOT_FOUND, CUDYN_ORIGIN_LOADER, 0, NULL,
                       "dlopen", stub ? HINT_OVERRIDE_STUB : HINT_DRIVER_OVERRIDE, "CUDYN_LIBCUDA=%s is not usable: %s",
                       override, why);
}

static int nothing_found(bool saw_stub, const char *stub_why)
{
    if (saw_stub)
        return cudyn__fail(CUDYN_ERROR_STUB_DRIVER, CUDYN_ORIGIN_LOADER, CU_ERR_STUB_LIBRARY,
                           "CUDA_ERROR_STUB_LIBRARY", "dlopen", HINT_ONLY_STUB, "only a stub libcuda was found (%s)",
                           stub_why);
    /* the kernel module without its library is a broken install, not a
     * machine without NVIDIA hardware: say which */
    bool module_loaded = access("/proc/driver/nvidia/version", F_OK) == 0;
    return cudyn__fail(CUDYN_ERROR_DRIVER_NOT_FOUND, CUDYN_ORIGIN_LOADER, 0, NULL, "dlopen",
                       module_loaded ? HINT_NO_DRIVER_LIBRARY : HINT_NO_DRIVER,
                       "the NVIDIA driver library libcuda.so.1 was not found (tried: the process, the loader's search "
                       "path, /usr/lib/wsl/lib, %zu system directories, libcuda.so)",
                       N_ELEMS(driver_system_dirs));
}

/* Walks the search order; returns the cudyn_status of the search. */
static int find_driver(void)
{
    int st = cudyn__refuse_static_program(CUDYN_ERROR_DRIVER_NOT_FOUND, "the NVIDIA driver (libcuda.so.1)");
    if (st != CUDYN_OK)
        return st;
    char why[1024] = "", stub_why[1024] = "";
    const char *override = cudyn__getenv("CUDYN_LIBCUDA");
    if (override && override[0]) {
        char file[LOADER_PATH_BYTES + 16];
        if (cudyn__is_directory(override))
            snprintf(file, sizeof file, "%s/libcuda.so.1", override);
        else
            cudyn__copy_string(file, sizeof file, override);
        enum candidate_result r = try_driver(file, FOUND_BY_DRIVER_ENV, 0, why, sizeof why);
        return r == CANDIDATE_OK ? CUDYN_OK : override_failed(override, r, why);
    }

    struct candidate {
        char file[LOADER_PATH_BYTES];
        enum cudyn__found_by how;
        int flags;
    } order[4 + N_ELEMS(driver_system_dirs)];
    size_t n = 0;
    order[n++] = (struct candidate){CUDYN_DRIVER_SONAME, FOUND_BY_ALREADY_LOADED, RTLD_NOLOAD};
    order[n++] = (struct candidate){CUDYN_DRIVER_SONAME, FOUND_BY_SONAME, 0};
    order[n++] = (struct candidate){"/usr/lib/wsl/lib/libcuda.so.1", FOUND_BY_WSL, 0};
    for (size_t i = 0; i < N_ELEMS(driver_system_dirs); i++) {
        snprintf(order[n].file, sizeof order[n].file, "%s/libcuda.so.1", driver_system_dirs[i]);
        order[n].how = FOUND_BY_SYSTEM_DIR;
        order[n++].flags = 0;
    }
    order[n++] = (struct candidate){"libcuda.so", FOUND_BY_UNVERSIONED, 0};

    bool saw_stub = false;
    for (size_t i = 0; i < n; i++) {
        enum candidate_result r = try_driver(order[i].file, order[i].how, order[i].flags, why, sizeof why);
        if (r == CANDIDATE_OK)
            return CUDYN_OK;
        if (r != CANDIDATE_STUB || saw_stub)
            continue;
        saw_stub = true;
        cudyn__copy_string(stub_why, sizeof stub_why, why);
        /* Once a stub is loaded under the soname, ld.so hands it back for
         * every later "libcuda.so.1"; the rest of LD_LIBRARY_PATH is only
         * reachable by full path. */
        if (order[i].how == FOUND_BY_SONAME && try_library_path_dirs(why, sizeof why) == CANDIDATE_OK)
            return CUDYN_OK;
    }
    return nothing_found(saw_stub, stub_why);
}

/* A system libcuda to use instead of a forward-compat one: each
 * LD_LIBRARY_PATH directory, then the system directories, by full path
 * (by soname, ld.so would hand back the compat copy).  One whose release
 * differs from the kernel module's is another compat library: skipped. */
static bool find_system_driver(const struct cudyn__compat *c, char *why, size_t why_cap)
{
    char dirs[LOADER_PATH_BYTES] = "";
    const char *ld_path = cudyn__getenv("LD_LIBRARY_PATH");
    cudyn__copy_string(dirs, sizeof dirs, ld_path ? ld_path : "");
    const char *list[64];
    enum cudyn__found_by how[64];
    size_t n = 0;
    char *save = NULL;
    for (char *dir = strtok_r(dirs, ":", &save); dir && n < 64 - N_ELEMS(driver_system_dirs);
         dir = strtok_r(NULL, ":", &save))
        if (dir[0] && !strstr(dir, "/stubs")) {
            list[n] = dir;
            how[n++] = FOUND_BY_LD_LIBRARY_PATH;
        }
    for (size_t i = 0; i < N_ELEMS(driver_system_dirs); i++) {
        list[n] = driver_system_dirs[i];
        how[n++] = FOUND_BY_SYSTEM_DIR;
    }
    for (size_t i = 0; i < n; i++) {
        char file[LOADER_PATH_BYTES + 16], real[LOADER_PATH_BYTES], release[64];
        snprintf(file, sizeof file, "%s/libcuda.so.1", list[i]);
        struct stat st;
        if (stat(file, &st) != 0)
            continue;
        bool has_release = cudyn__library_release(file, release, sizeof release, real, sizeof real);
        if (strcmp(real, c->compat_path) == 0 || cudyn__in_compat_dir(real))
            continue;
        if (has_release && c->kmod_version[0] && strcmp(release, c->kmod_version) != 0) {
            TRACE("%s: skipped: release %s does not match the kernel module %s", real, release, c->kmod_version);
            continue;
        }
        if (try_driver(file, how[i], 0, why, why_cap) == CANDIDATE_OK)
            return true;
    }
    return false;
}

#define COMPAT_DECIDE(...) snprintf(c->decision, sizeof c->decision, __VA_ARGS__)

/* Appends to the decision (what followed from it). */
static void compat_decide_more(struct cudyn__compat *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void compat_decide_more(struct cudyn__compat *c, const char *fmt, ...)
{
    size_t used = strlen(c->decision);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->decision + used, sizeof c->decision - used, fmt, ap);
    va_end(ap);
}

/* The forward-compat libcuda at `real` cannot be used (why_not): the
 * system driver of the kernel module instead, unless CUDYN_COMPAT=require
 * or CUDYN_LIBCUDA rule that out.  The decision says what was found and
 * why it was not used on every path, failures included. */
static int use_system_driver_instead(struct cudyn__compat *c, const char *real, const char *why_not)
{
    struct cudyn__library *lib = &cudyn__driver.lib;
    const char *kmod = c->kmod_version[0] ? c->kmod_version : "unknown";
    const char *kmod_file = c->kmod_file[0] ? c->kmod_file : "no version file";
    const char *release = c->compat_release;
    COMPAT_DECIDE("not using the forward-compatibility libcuda %s (release %s): %s", real, release, why_not);
    int status = c->probe_result ? CUDYN_ERROR_INIT_FAILED : CUDYN_ERROR_DRIVER_NOT_FOUND;
    const char *native = c->probe_result ? cudyn__cuda_code((int)c->probe_result)->name : NULL;
    if (c->policy == COMPAT_REQUIRE) {
        compat_decide_more(c, "; CUDYN_COMPAT=require allows no other libcuda");
        return cudyn__fail(status, CUDYN_ORIGIN_LOADER, (int)c->probe_result, native, "cudyn_init",
                           HINT_COMPAT_REQUIRE,
                           "CUDYN_COMPAT=require, but the forward-compatibility libcuda %s (release %s) cannot work "
                           "with the kernel module %s (%s): %s",
                           real, release, kmod, kmod_file, why_not);
    }
    if (lib->found_by == FOUND_BY_DRIVER_ENV) {
        compat_decide_more(c, "; CUDYN_LIBCUDA names it, so no other libcuda is tried");
        return cudyn__fail(status, CUDYN_ORIGIN_LOADER, (int)c->probe_result, native, "cudyn_init",
                           HINT_COMPAT_OVERRIDE,
                           "CUDYN_LIBCUDA names the forward-compatibility libcuda %s (release %s), which cannot "
                           "work with the kernel module %s (%s): %s",
                           real, release, kmod, kmod_file, why_not);
    }
    TRACE("compat: not using %s: %s", real, why_not);
    char why[1024];
    if (!find_system_driver(c, why, sizeof why)) {
        compat_decide_more(c, "; and no system libcuda matching the kernel module %s (%s) was found", kmod,
                           kmod_file);
        return cudyn__fail(status, CUDYN_ORIGIN_LOADER, (int)c->probe_result, native, "cudyn_init",
                           HINT_COMPAT_NO_SYSTEM,
                           "the forward-compatibility libcuda %s (release %s) cannot work: %s; and no system "
                           "libcuda matching the kernel module %s (%s) was found on LD_LIBRARY_PATH or in %zu "
                           "system directories",
                           real, release, why_not, kmod, kmod_file, N_ELEMS(driver_system_dirs));
    }
    char system[LOADER_PATH_BYTES];
    bool has_release =
        cudyn__library_release(lib->path, c->driver_release, sizeof c->driver_release, system, sizeof system);
    compat_decide_more(c, "; using the system driver %s (release %s), kernel module %s (%s)", system,
                       has_release ? c->driver_release : "unknown", kmod, kmod_file);
    TRACE("compat: %s", c->decision);
    return CUDYN_OK;
}

/* What the decision needs to know of the libcuda found (at lib->path);
 * real gets the file it resolves to, c->driver_release its release. */
static void compat_facts(struct cudyn__compat *c, const struct cudyn__library *lib, char *real, size_t real_cap,
                         struct cudyn__compat_facts *f)
{
    bool has_release =
        cudyn__library_release(lib->path, c->driver_release, sizeof c->driver_release, real, real_cap);
    bool known = has_release && c->kmod_version[0];
    *f = (struct cudyn__compat_facts){
        .policy = c->policy,
        .is_compat = cudyn__in_compat_dir(real) || (known && strcmp(c->driver_release, c->kmod_version) != 0),
        .already_loaded = lib->found_by == FOUND_BY_ALREADY_LOADED,
        .not_newer = known && cudyn__compare_release(c->driver_release, c->kmod_version) <= 0,
        .release = has_release ? c->driver_release : "unknown",
        .kmod = c->kmod_version[0] ? c->kmod_version : "unknown",
        .probe = PROBE_NOT_RUN,
    };
}

/* Runs the compat library's cuInit in a child, for the decision. */
static void compat_probe(struct cudyn__compat *c, const struct cudyn__library *lib, const char *real,
                         struct cudyn__compat_facts *f)
{
    if (cudyn__probe_init_in_child(lib->handle, &c->probe_result) == 0) {
        TRACE("compat: cuInit(0) of %s in a child process: %u", real, c->probe_result);
        f->probe = PROBE_ANSWERED;
        f->probe_result = c->probe_result;
        f->probe_name = cudyn__cuda_code((int)c->probe_result)->name;
    } else {
        TRACE("compat: could not run cuInit in a child process; this process's cuInit decides");
        f->probe = PROBE_COULD_NOT_RUN;
    }
}

/* Decides, before anything is bound, whether the libcuda found is a
 * forward-compat library and whether it can work (cudyn__compat_decide,
 * a pure function of the facts), then acts on the verdict: keeps it,
 * fails, or falls back to the system driver. */
static int choose_compat(void)
{
    struct cudyn__compat *c = &cudyn__driver.compat;
    struct cudyn__library *lib = &cudyn__driver.lib;
    const char *kmod_file = c->kmod_file[0] ? c->kmod_file : "no version file";
    struct cudyn__compat_facts f;
    char real[LOADER_PATH_BYTES], why_not[512];
    compat_facts(c, lib, real, sizeof real, &f);
    TRACE("kernel module: %s (%s); CUDYN_COMPAT=%s", f.kmod, kmod_file, cudyn__compat_policy_name(c->policy));
    enum cudyn__compat_verdict v = cudyn__compat_decide(&f, why_not, sizeof why_not);
    if (v == COMPAT_USE_FOUND)
        return CUDYN_OK;
    if (v == COMPAT_REFUSE_NOT_COMPAT)
        return cudyn__fail(CUDYN_ERROR_DRIVER_NOT_FOUND, CUDYN_ORIGIN_LOADER, 0, NULL, "cudyn_init",
                           HINT_COMPAT_REQUIRE,
                           "CUDYN_COMPAT=require, but the libcuda found, %s (release %s), is not a "
                           "forward-compatibility library (kernel module %s, %s)",
                           real, f.release, f.kmod, kmod_file);
    cudyn__copy_string(c->compat_path, sizeof c->compat_path, real);
    cudyn__copy_string(c->compat_release, sizeof c->compat_release, f.release);
    if (v == COMPAT_PROBE) {
        compat_probe(c, lib, real, &f);
        v = cudyn__compat_decide(&f, why_not, sizeof why_not);
    }
    if (v == COMPAT_CANNOT_WORK)
        return use_system_driver_instead(c, real, why_not);
    c->driver_is_compat = true;
    if (v == COMPAT_USE_LOADED)
        /* another library already uses it: a second copy would be worse */
        COMPAT_DECIDE("using the forward-compatibility libcuda %s (release %s) as it is: it was already loaded "
                      "in the process",
                      real, c->compat_release);
    else
        COMPAT_DECIDE("using the forward-compatibility libcuda %s (release %s) on kernel module %s (%s)", real,
                      c->compat_release, f.kmod, kmod_file);
    TRACE("compat: %s", c->decision);
    return CUDYN_OK;
}

/* Legacy or per-thread default stream: explicit flags win over CUDYN_PTDS. */
static int choose_stream_mode(unsigned int flags, bool *per_thread)
{
    if (flags & (CUDYN_INIT_PER_THREAD_STREAM | CUDYN_INIT_LEGACY_STREAM)) {
        *per_thread = (flags & CUDYN_INIT_PER_THREAD_STREAM) != 0;
        return CUDYN_OK;
    }
    const char *env = cudyn__getenv("CUDYN_PTDS");
    if (!env || !env[0] || strcmp(env, "0") == 0 || strcmp(env, "1") == 0) {
        *per_thread = env && strcmp(env, "1") == 0;
        return CUDYN_OK;
    }
    return cudyn__fail(CUDYN_ERROR_INVALID_ARGUMENT, CUDYN_ORIGIN_LIBRARY, 0, NULL, "cudyn_init", HINT_PTDS_VALUE,
                       "CUDYN_PTDS='%s' is not valid", env);
}

static int load_and_bind_driver(void)
{
    struct cudyn__compat *c = &cudyn__driver.compat;
    cudyn__read_kernel_module_version(c);
    const char *policy = cudyn__getenv("CUDYN_COMPAT");
    if (!cudyn__parse_compat_policy(policy, &c->policy))
        return cudyn__fail(CUDYN_ERROR_INVALID_ARGUMENT, CUDYN_ORIGIN_LIBRARY, 0, NULL, "cudyn_init",
                           HINT_COMPAT_VALUE, "CUDYN_COMPAT='%s' is not valid", policy);
    int st = find_driver();
    if (st == CUDYN_OK)
        st = choose_compat();
    if (st != CUDYN_OK)
        return st;
    struct cudyn__library *lib = &cudyn__driver.lib;
    if (lib->version < MIN_DRIVER_VERSION)
        return cudyn__fail(CUDYN_ERROR_DRIVER_TOO_OLD, CUDYN_ORIGIN_LOADER, 0, NULL, "cuDriverGetVersion",
                           HINT_UPDATE_DRIVER, "the driver at %s supports CUDA %d.%d; cudyn needs CUDA %d.%d or newer",
                           lib->path, lib->version / 1000, lib->version % 1000 / 10, MIN_DRIVER_VERSION / 1000,
                           MIN_DRIVER_VERSION % 1000 / 10);

    pthread_mutex_lock(&flags_lock);
    unsigned int flags = requested_flags;
    pthread_mutex_unlock(&flags_lock);
    st = choose_stream_mode(flags, &cudyn__driver.per_thread_stream);
    if (st != CUDYN_OK)
        return st;

    cudyn__bind_driver(lib->handle, lib->version, cudyn__driver.per_thread_stream, &lib->trace, &lib->bind);
    if (lib->bind.first_missing_required)
        return cudyn__fail(CUDYN_ERROR_SYMBOL_NOT_FOUND, CUDYN_ORIGIN_LOADER, 0, NULL, lib->bind.first_missing_required,
                           HINT_DAMAGED_DRIVER, "the driver at %s (CUDA %d.%d) lacks %s, which cudyn requires",
                           lib->path, lib->version / 1000, lib->version % 1000 / 10, lib->bind.first_missing_required);
    return CUDYN_OK;
}

static void init_driver(void)
{
    cudyn__driver_log_start(); /* before cuInit, whose failure it may explain */
    double t0 = cudyn__now_ms();
    cu_result r = cudyn__drv.cuInit(0);
    cudyn__driver.init_ms = cudyn__now_ms() - t0;
    TRACE("cuInit: %.0f us", cudyn__driver.init_ms * 1e3);
    if (r == CU_OK) {
        TRACE("cuInit(0): ok");
        cudyn__driver.init_status = CUDYN_OK;
        return;
    }
    /* Keep the driver's own status for "no device" so callers can tell an
     * empty machine from a broken one. */
    cudyn__fail_driver(r, "cuInit", "cudyn_init");
    cudyn__error_save(&cudyn__driver.init_error);
    cudyn__driver.init_status = r == CU_ERR_NO_DEVICE ? CUDYN_ERROR_NO_DEVICE : CUDYN_ERROR_INIT_FAILED;
    cudyn__driver.init_error.status = cudyn__driver.init_status;
    TRACE("cuInit(0) failed: %s", cudyn__driver.init_error.message);
}

/* Set in a child forked after cuInit succeeded in the parent. */
static atomic_bool forked;
static long parent_pid;

/* Runs in the child of a fork(): the driver's state belongs to the parent.
 * Clearing the ready flag and moving the context generation sends every
 * later call down the slow paths, which answer CUDYN_ERROR_FORKED; the
 * fast paths stay untouched. */
static void child_after_fork(void)
{
    atomic_store_explicit(&forked, true, memory_order_relaxed);
    atomic_store_explicit(&cudyn__driver_ready, 0, memory_order_release);
    atomic_fetch_add_explicit(&cudyn__context_generation, 1, memory_order_relaxed);
}

static int fail_forked(void)
{
    return cudyn__fail(CUDYN_ERROR_FORKED, CUDYN_ORIGIN_LIBRARY, 0, NULL, "fork", HINT_FORKED,
                       "this process (pid %ld) was forked from pid %ld after that process had initialised CUDA; "
                       "the driver cannot be used in the child",
                       (long)getpid(), parent_pid);
}

static void driver_once(void)
{
    struct cudyn__library *lib = &cudyn__driver.lib;
    lib->trace = (struct cudyn__text){.buf = lib->trace_buf, .cap = sizeof lib->trace_buf, .echo_prefix = "cudyn: "};
    cudyn_error saved_caller_error;
    cudyn__error_save(&saved_caller_error);

    double t0 = cudyn__now_ms();
    lib->status = load_and_bind_driver();
    lib->load_ms = cudyn__now_ms() - t0;
    TRACE("load and bind: %.0f us", lib->load_ms * 1e3);
    if (lib->status != CUDYN_OK) {
        cudyn__error_save(&lib->error);
        TRACE("driver not usable: %s", lib->error.message);
        cudyn__driver.init_status = lib->status;
        cudyn__driver.init_error = lib->error;
    } else {
        init_driver();
    }
    cudyn__error_restore(&saved_caller_error);
    if (lib->status == CUDYN_OK)
        atomic_store_explicit(&cudyn__driver_bound_version, lib->version, memory_order_release);
    atomic_store_explicit(&lib->done, true, memory_order_release);
    if (cudyn__driver.init_status == CUDYN_OK) {
        parent_pid = (long)getpid();
        pthread_atfork(NULL, NULL, child_after_fork);
        atomic_store_explicit(&cudyn__driver_ready, 1, memory_order_release);
    }
}

int cudyn__load_driver_only(void)
{
    pthread_once(&driver_once_control, driver_once);
    if (CUDYN_UNLIKELY(atomic_load_explicit(&forked, memory_order_relaxed)))
        return fail_forked();
    if (cudyn__driver.lib.status != CUDYN_OK)
        cudyn__error_restore(&cudyn__driver.lib.error);
    return cudyn__driver.lib.status;
}

int cudyn__need_driver_slow(void)
{
    pthread_once(&driver_once_control, driver_once);
    if (CUDYN_UNLIKELY(atomic_load_explicit(&forked, memory_order_relaxed)))
        return fail_forked();
    if (cudyn__driver.init_status != CUDYN_OK) {
        cudyn__error_restore(&cudyn__driver.init_error);
        return cudyn__driver.init_status;
    }
    return CUDYN_OK;
}

CUDYN_API int cudyn_init(unsigned int flags)
{
    const unsigned int stream_flags = CUDYN_INIT_LEGACY_STREAM | CUDYN_INIT_PER_THREAD_STREAM;
    if (flags & ~stream_flags)
        return cudyn__fail_arg("cudyn_init", "flags", "has unknown bits");
    if ((flags & stream_flags) == stream_flags)
        return cudyn__fail_arg("cudyn_init", "flags", "asks for both the legacy and the per-thread default stream");

    pthread_mutex_lock(&flags_lock);
    requested_flags = flags;
    pthread_mutex_unlock(&flags_lock);
    pthread_once(&driver_once_control, driver_once);

    if (cudyn__driver.lib.status == CUDYN_OK && (flags & stream_flags)) {
        bool want_per_thread = (flags & CUDYN_INIT_PER_THREAD_STREAM) != 0;
        if (want_per_thread != cudyn__driver.per_thread_stream)
            return cudyn__fail(CUDYN_ERROR_ALREADY_INITIALIZED, CUDYN_ORIGIN_LIBRARY, 0, NULL, "cudyn_init",
                               HINT_INIT_FIRST, "cudyn_init: cudyn was already initialised with the %s default stream",
                               cudyn__driver.per_thread_stream ? "per-thread" : "legacy");
    }
    return cudyn__need_driver_slow();
}
