/*
 * module.c - loading images into the thread's context, looking up kernels
 * and globals, kernel attributes and occupancy.
 */
#include "config.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hints.h"
#include "loader/loader.h"
#include "compile/image.h"
#include "compile/includes.h"
#include "compile/names.h"
#include "compile/cubin.h"
#include "compile/ptx_interface.h"
#include "module/kernel_params.h"
#include "module/module.h"

#define CU_FUNCTION(f) ((cu_function)(void *)(f))
#define JIT_LOG_BYTES 8192

/*
 * A loaded module: the driver's handle and context, the name expressions
 * its program was compiled with, its kernels' PTX interface (for checking
 * launches) and, for cudyn_module_load_source, the key that hands the same
 * module to the same inputs in a context.
 *
 * Every live module is in the registry: kernels find the PTX of the module
 * they came from by its handle, and a device reset marks the modules of
 * its context dead (their handles died with it) and takes them out.  The
 * shareable ones are also found by key; while one is loading, threads
 * asking for its key wait for it (one compile and one load per input).
 */
struct cudyn_module_st {
    cu_module handle; /* NULL while loading */
    cu_context ctx;
    struct cudyn__names names;
    char *interface; /* "NAME(PARAMS)" per kernel, or NULL: no PTX known */
    /* the registry (all under registry_lock) */
    bool shareable;  /* found by key (cudyn_module_load_source) */
    bool loading;    /* a thread is loading it; others wait for it */
    bool failed;     /* that load failed: each waiter gets its error */
    /* a reset destroyed its context: written under registry_lock, read
     * without it by every lookup in the module (is_dead) */
    atomic_bool dead;
    cudyn_error error;
    unsigned char key[CUDYN_SHA256_BYTES];
    /* files its program included, checked on reuse (a stat each, maybe a
     * reread) under deps_lock, not registry_lock: the check refreshes them */
    struct cudyn__deps deps;
    pthread_mutex_t deps_lock;
    int refs;
    struct cudyn_module_st *next;
};

static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;

static bool is_dead(const struct cudyn_module_st *m)
{
    return atomic_load_explicit(&m->dead, memory_order_acquire);
}
static pthread_cond_t registry_loaded = PTHREAD_COND_INITIALIZER;
static struct cudyn_module_st *registry;

/* A zeroed module with its lock, or NULL when out of memory. */
static struct cudyn_module_st *new_module(void)
{
    struct cudyn_module_st *m = calloc(1, sizeof *m);
    if (m && pthread_mutex_init(&m->deps_lock, NULL) != 0) {
        free(m);
        m = NULL;
    }
    return m;
}

static void free_module(struct cudyn_module_st *m)
{
    cudyn__names_free(&m->names);
    cudyn__deps_free(&m->deps);
    pthread_mutex_destroy(&m->deps_lock);
    free(m->interface);
    free(m);
}

/* registry_lock held */
static void enlist(struct cudyn_module_st *m)
{
    m->next = registry;
    registry = m;
}

/* registry_lock held; nothing if m is not listed (a reset took it out) */
static void unlist(struct cudyn_module_st *m)
{
    for (struct cudyn_module_st **link = &registry; *link; link = &(*link)->next)
        if (*link == m) {
            *link = m->next;
            break;
        }
}

/* The name the driver knows a kernel or variable by. */
static const char *lowered_name(const struct cudyn_module_st *m, const char *name)
{
    const char *lowered = cudyn__names_lookup(&m->names, name);
    return lowered ? lowered : name;
}

static cu_context current_context(void)
{
    cu_context ctx = NULL;
    if (cudyn__drv.cuCtxGetCurrent(&ctx) != CU_OK)
        return NULL;
    return ctx;
}

/* Gives m what its program knows; false when out of memory. */
static bool describe(struct cudyn_module_st *m, const struct cudyn__names *names, const char *interface)
{
    if (names && cudyn__names_copy(&m->names, names) != 0)
        return false;
    return !interface || (m->interface = strdup(interface)) != NULL;
}

int cudyn__module_wrap(const char *api, cu_module handle, const struct cudyn__names *names, const char *interface,
                       cudyn_module *out)
{
    struct cudyn_module_st *m = new_module();
    if (!m || !describe(m, names, interface)) {
        if (m)
            free_module(m);
        cudyn__drv.cuModuleUnload(handle);
        return cudyn__fail_oom(api);
    }
    m->handle = handle;
    m->ctx = current_context();
    m->refs = 1;
    pthread_mutex_lock(&registry_lock);
    enlist(m);
    pthread_mutex_unlock(&registry_lock);
    *out = m;
    return CUDYN_OK;
}

static struct cudyn_module_st *shared_by(cu_context ctx, const unsigned char *key)
{
    for (struct cudyn_module_st *m = registry; m; m = m->next)
        if (m->shareable && m->ctx == ctx && memcmp(m->key, key, CUDYN_SHA256_BYTES) == 0)
            return m;
    return NULL;
}

/* A placeholder for the caller to load; others find it and wait. */
static int place(const char *api, cu_context ctx, const unsigned char *key, cudyn_module *claim)
{
    struct cudyn_module_st *p = new_module();
    if (!p)
        return cudyn__fail_oom(api);
    p->ctx = ctx;
    memcpy(p->key, key, sizeof p->key);
    p->loading = p->shareable = true;
    p->refs = 1;
    enlist(p);
    *claim = p;
    return CUDYN_OK;
}

/* Drops a reference taken under the lock (and releases the lock); the
 * module is unloaded if it was the last. */
static void drop_locked_ref(struct cudyn_module_st *m)
{
    bool last = --m->refs == 0;
    if (last)
        unlist(m);
    pthread_mutex_unlock(&registry_lock);
    if (!last)
        return;
    if (m->handle && !is_dead(m) && cudyn__drv.cuModuleUnload(m->handle) == CU_OK)
        cudyn__kernel_forget_module(m->handle); /* its function handles may be reused */
    free_module(m);
}

int cudyn__module_claim(const char *api, const unsigned char *key, cudyn_module *found, cudyn_module *claim)
{
    cu_context ctx = current_context();
    *found = *claim = NULL;
    for (;;) {
        pthread_mutex_lock(&registry_lock);
        struct cudyn_module_st *m = shared_by(ctx, key);
        if (!m) {
            int st = place(api, ctx, key, claim);
            pthread_mutex_unlock(&registry_lock);
            return st;
        }
        m->refs++; /* held while waiting and checking */
        while (m->loading)
            pthread_cond_wait(&registry_loaded, &registry_lock);
        if (m->failed) {
            cudyn_error e = m->error;
            drop_locked_ref(m);
            cudyn__error_restore(&e);
            return e.status;
        }
        if (!is_dead(m)) {
            /* the files it included, checked without the registry's lock
             * (the reference keeps m) */
            pthread_mutex_unlock(&registry_lock);
            bool refreshed;
            pthread_mutex_lock(&m->deps_lock);
            bool current = cudyn__deps_check(&m->deps, &refreshed) == 0;
            pthread_mutex_unlock(&m->deps_lock);
            if (current) {
                *found = m;
                return CUDYN_OK;
            }
            pthread_mutex_lock(&registry_lock);
        }
        /* an included file changed (or a reset came in between): this
         * module serves its holders only */
        m->shareable = false;
        drop_locked_ref(m);
    }
}

int cudyn__module_publish(const char *api, cudyn_module p, int status, cu_module handle,
                          const struct cudyn__names *names, const char *interface, const struct cudyn__deps *deps)
{
    if (status == CUDYN_OK && (!describe(p, names, interface) || (deps && cudyn__deps_copy(&p->deps, deps) != 0))) {
        cudyn__drv.cuModuleUnload(handle);
        status = cudyn__fail_oom(api);
    }
    pthread_mutex_lock(&registry_lock);
    p->loading = false;
    if (status == CUDYN_OK) {
        p->handle = handle;
        pthread_cond_broadcast(&registry_loaded);
        pthread_mutex_unlock(&registry_lock);
        return CUDYN_OK;
    }
    p->failed = true;
    cudyn__error_save(&p->error);
    p->shareable = false;
    pthread_cond_broadcast(&registry_loaded);
    drop_locked_ref(p); /* the loader's reference; waiters hold their own */
    return status;
}

void cudyn__module_ptx_params(cu_module handle, const char *name, struct cudyn__ptx_kernel *out, cu_context *ctx)
{
    out->count = -1;
    pthread_mutex_lock(&registry_lock);
    for (struct cudyn_module_st *m = registry; m; m = m->next)
        if (m->handle == handle && !m->loading) {
            *ctx = m->ctx;
            if (m->interface && name[0])
                cudyn__ptx_kernel_params(m->interface, strlen(m->interface), name, out);
            break;
        }
    pthread_mutex_unlock(&registry_lock);
}

void cudyn__module_forget_context(cu_context ctx)
{
    pthread_mutex_lock(&registry_lock);
    for (struct cudyn_module_st **link = &registry; *link;) {
        struct cudyn_module_st *m = *link;
        if (m->ctx == ctx && !m->loading) {
            /* its owners still free it with cudyn_module_unload */
            atomic_store_explicit(&m->dead, true, memory_order_release);
            m->shareable = false;
            *link = m->next;
        } else {
            link = &m->next;
        }
    }
    pthread_mutex_unlock(&registry_lock);
}

/* A module whose context a reset destroyed cannot be used; one loaded on
 * another device's context than this thread's gives kernels this thread
 * cannot launch (the driver would only say "invalid handle" at launch). */
static int check_usable(const char *api, const struct cudyn_module_st *m)
{
    if (CUDYN_UNLIKELY(is_dead(m)))
        return cudyn__fail(CUDYN_ERROR_INVALID_HANDLE, CUDYN_ORIGIN_LIBRARY, 0, NULL, api, HINT_RELOAD_AFTER_RESET,
                           "%s: the module was destroyed by cudyn_device_reset", api);
    int st = cudyn__need_context(api);
    if (st != CUDYN_OK)
        return st;
    cu_context current = current_context();
    if (CUDYN_UNLIKELY(m->ctx && current && current != m->ctx))
        return cudyn__fail_wrong_context(api, "the module", m->ctx, current);
    return CUDYN_OK;
}

/* Appends the versions line (loader/versions.c) for an image that failed
 * to load: its PTX ISA when it is PTX text, the current device's compute
 * capability.  Failure path only. */
static void append_versions(const void *image)
{
    const unsigned char *b = image;
    bool elf = b[0] == 0x7f && b[1] == 'E' && b[2] == 'L' && b[3] == 'F';
    bool fatbin = b[0] == 0x50 && b[1] == 0xed && b[2] == 0x55 && b[3] == 0xba;
    int cc = 0, major = 0, minor = 0;
    cu_device dev = 0;
    if (cudyn__drv.cuCtxGetDevice(&dev) == CU_OK &&
        cudyn__drv.cuDeviceGetAttribute(&major, (cu_enum)CUDYN_ATTR_COMPUTE_CAPABILITY_MAJOR, dev) == CU_OK &&
        cudyn__drv.cuDeviceGetAttribute(&minor, (cu_enum)CUDYN_ATTR_COMPUTE_CAPABILITY_MINOR, dev) == CU_OK)
        cc = major * 10 + minor;
    char line[768];
    cudyn__versions_line(line, sizeof line, elf || fatbin ? NULL : (const char *)image, cc, NULL);
    cudyn__error_append("; %s", line);
}

/* Loads with a JIT error log; on failure the log ends the error message. */
int cudyn__load_image(const char *api, cu_module *mod, const void *image)
{
    int st = cudyn__need_context(api);
    if (st != CUDYN_OK)
        return st;
    if (!DRIVER_HAS(cuModuleLoadDataEx)) {
        CUDYN_TRY_DRIVER(cudyn__drv.cuModuleLoadData(mod, image), "cuModuleLoadData", api);
        return CUDYN_OK;
    }
    char log[JIT_LOG_BYTES] = "";
    cu_enum options[2] = {CU_JITOPT_ERROR_LOG_BUFFER, CU_JITOPT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void *values[2] = {log, (void *)(uintptr_t)sizeof log};
    cu_result r;
    CUDYN_DRIVER_CALL(r, cudyn__drv.cuModuleLoadDataEx(mod, image, 2, options, values), api);
    if (r == CU_OK)
        return CUDYN_OK;
    st = cudyn__fail_driver(r, "cuModuleLoadDataEx", api);
    if (r == CU_ERR_UNSUPPORTED_PTX_VERSION || r == CU_ERR_INVALID_PTX || r == CU_ERR_NO_BINARY_FOR_GPU)
        append_versions(image); /* a version skew can be the cause */
    log[sizeof log - 1] = '\0';
    if (log[0]) {
        for (char *p = log; *p; p++)
            if (*p == '\n')
                *p = ' ';
        cudyn__error_append("; JIT log: %s", log);
    }
    return st;
}

/* Both image loads: checked (image.c, within bytes when sized), then
 * loaded with what cudyn can tell of the kernels' parameters, from the
 * image's PTX or its CUBIN's own records. */
static int load_image(const char *api, cudyn_module *out, const void *image, size_t bytes, bool sized)
{
    const void *code = image;
    char *interface = NULL;
    const unsigned char *cubin = NULL;
    size_t cubin_bytes = 0;
    int st = cudyn__image_select(api, image, bytes, sized, &code, &interface, &cubin, &cubin_bytes);
    if (st == CUDYN_OK && !interface && cubin && cubin_bytes)
        interface = cudyn__cubin_interface(cubin, cubin_bytes);
    cu_module mod = NULL;
    if (st == CUDYN_OK)
        st = cudyn__load_image(api, &mod, code);
    if (st == CUDYN_OK)
        st = cudyn__module_wrap(api, mod, NULL, interface, out);
    free(interface);
    return st;
}

CUDYN_API int cudyn_module_load_image(cudyn_module *out, const void *image)
{
    static const char api[] = "cudyn_module_load_image";
    if (!out)
        return cudyn__fail_arg(api, "out", "must not be NULL");
    *out = NULL;
    if (!image)
        return cudyn__fail_arg(api, "image", "must not be NULL");
    return load_image(api, out, image, 0, false);
}

CUDYN_API int cudyn_module_load_image_sized(cudyn_module *out, const void *image, size_t bytes)
{
    static const char api[] = "cudyn_module_load_image_sized";
    if (!out)
        return cudyn__fail_arg(api, "out", "must not be NULL");
    *out = NULL;
    if (!image)
        return cudyn__fail_arg(api, "image", "must not be NULL");
    if (bytes == 0)
        return cudyn__fail_arg(api, "bytes", "must not be 0");
    return load_image(api, out, image, bytes, true);
}

CUDYN_API int cudyn_module_unload(cudyn_module mod)
{
    static const char api[] = "cudyn_module_unload";
    if (!mod)
        return cudyn__fail_arg(api, "mod", "must not be NULL");
    int st = cudyn__need_context(api);
    if (st != CUDYN_OK)
        return st;
    /* a module shared by cudyn_module_load_source goes with its last user;
     * if the driver refuses the unload, nothing changes and the caller may
     * try again; a module a reset destroyed is only freed */
    pthread_mutex_lock(&registry_lock);
    if (mod->refs > 1) {
        mod->refs--;
        pthread_mutex_unlock(&registry_lock);
        return CUDYN_OK;
    }
    bool dead = is_dead(mod);
    cu_result r = dead ? CU_OK : cudyn__drv.cuModuleUnload(mod->handle);
    if (r == CU_OK)
        unlist(mod);
    pthread_mutex_unlock(&registry_lock);
    if (r != CU_OK)
        return cudyn__fail_driver(r, "cuModuleUnload", api);
    if (!dead)
        cudyn__kernel_forget_module(mod->handle); /* its function handles may be reused */
    free_module(mod);
    return CUDYN_OK;
}

/* Records what a kernel takes, from the module's PTX (found by the name
 * the PTX knows it by) or its CUBIN's records, and from the driver, asked
 * only about the parameters those declare, for checking launches; once per
 * kernel while its module lives. */
static void register_kernel(const struct cudyn_module_st *m, cu_function f, const char *name, const char *lowered)
{
    cudyn_function kernel = (cudyn_function)(void *)f;
    if (cudyn__kernel_known(kernel, m->handle))
        return;
    struct cudyn__kernel_facts facts;
    struct cudyn__ptx_kernel ptx = {.count = -1};
    if (m->interface)
        cudyn__ptx_kernel_params(m->interface, strlen(m->interface), lowered, &ptx);
    int driver_count = cudyn__kernel_driver_facts(kernel, m->handle, ptx.count, &facts);
    cudyn__copy_string(facts.who.name, sizeof facts.who.name, name);
    facts.who.ctx = m->ctx;
    cudyn__kernel_merge(&facts, driver_count, &ptx);
    cudyn__kernel_register(kernel, &facts);
}

CUDYN_API int cudyn_module_function(cudyn_function *out, cudyn_module mod, const char *name)
{
    static const char api[] = "cudyn_module_function";
    if (!out)
        return cudyn__fail_arg(api, "out", "must not be NULL");
    *out = NULL;
    if (!mod)
        return cudyn__fail_arg(api, "mod", "must not be NULL");
    if (!name || !name[0])
        return cudyn__fail_arg(api, "name", "must be a kernel name");
    int st = check_usable(api, mod);
    if (st != CUDYN_OK)
        return st;
    cu_function f = NULL;
    const char *lowered = lowered_name(mod, name);
    cu_result r;
    CUDYN_DRIVER_CALL(r, cudyn__drv.cuModuleGetFunction(&f, mod->handle, lowered), api);
    if (r == CU_ERR_NOT_FOUND)
        return cudyn__fail(CUDYN_ERROR_NOT_FOUND, CUDYN_ORIGIN_DRIVER, (int)r, "CUDA_ERROR_NOT_FOUND",
                           "cuModuleGetFunction", HINT_KERNEL_NAME, "%s: no kernel named '%s' in the module", api,
                           name);
    if (r != CU_OK)
        return cudyn__fail_driver(r, "cuModuleGetFunction", api);
    register_kernel(mod, f, name, lowered);
    *out = (cudyn_function)(void *)f;
    return CUDYN_OK;
}

CUDYN_API int cudyn_module_global(cudyn_devptr *ptr, size_t *bytes, cudyn_module mod, const char *name)
{
    static const char api[] = "cudyn_module_global";
    if (!ptr)
        return cudyn__fail_arg(api, "ptr", "must not be NULL");
    *ptr = 0;
    if (bytes)
        *bytes = 0;
    if (!mod)
        return cudyn__fail_arg(api, "mod", "must not be NULL");
    if (!name || !name[0])
        return cudyn__fail_arg(api, "name", "must be a variable name");
    int st = check_usable(api, mod);
    if (st != CUDYN_OK)
        return st;
    cu_deviceptr p = 0;
    size_t size = 0;
    cu_result r;
    CUDYN_DRIVER_CALL(r, cudyn__drv.cuModuleGetGlobal_v2(&p, &size, mod->handle, lowered_name(mod, name)), api);
    if (r == CU_ERR_NOT_FOUND)
        return cudyn__fail(CUDYN_ERROR_NOT_FOUND, CUDYN_ORIGIN_DRIVER, (int)r, "CUDA_ERROR_NOT_FOUND",
                          "cuModuleGetGlobal", NULL, "%s: no __device__ or __constant__ variable named '%s' in the module",
                          api, name);
    if (r != CU_OK)
        return cudyn__fail_driver(r, "cuModuleGetGlobal", api);
    *ptr = p;
    if (bytes)
        *bytes = size;
    return CUDYN_OK;
}

CUDYN_API int cudyn_function_info(cudyn_function f, struct cudyn_function_info *out)
{
    static const char api[] = "cudyn_function_info";
    if (!f)
        return cudyn__fail_arg(api, "f", "must not be NULL");
    if (!out)
        return cudyn__fail_arg(api, "out", "must not be NULL");
    if (out->size < sizeof out->size)
        return cudyn__fail_arg(api, "out->size", "must be set to sizeof(struct cudyn_function_info)");
    int st = cudyn__need_context(api);
    if (st != CUDYN_OK)
        return st;
    struct cudyn_function_info info;
    memset(&info, 0, sizeof info);
    static const struct {
        int attr;
        size_t offset;
    } fields[] = {
        {CU_FUNC_ATTR_NUM_REGS, offsetof(struct cudyn_function_info, num_registers)},
        {CU_FUNC_ATTR_SHARED_SIZE_BYTES, offsetof(struct cudyn_function_info, shared_bytes)},
        {CU_FUNC_ATTR_CONST_SIZE_BYTES, offsetof(struct cudyn_function_info, const_bytes)},
        {CU_FUNC_ATTR_LOCAL_SIZE_BYTES, offsetof(struct cudyn_function_info, local_bytes)},
        {CU_FUNC_ATTR_MAX_THREADS_PER_BLOCK, offsetof(struct cudyn_function_info, max_threads_per_block)},
        {CU_FUNC_ATTR_PTX_VERSION, offsetof(struct cudyn_function_info, ptx_version)},
        {CU_FUNC_ATTR_BINARY_VERSION, offsetof(struct cudyn_function_info, binary_version)},
    };
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
        int v = 0;
        CUDYN_TRY_DRIVER(cudyn__drv.cuFuncGetAttribute(&v, (cu_enum)fields[i].attr, CU_FUNCTION(f)),
                         "cuFuncGetAttribute", api);
        memcpy((char *)&info + fields[i].offset, &v, sizeof v);
    }
    info.size = out->size < sizeof info ? out->size : sizeof info;
    memcpy(out, &info, info.size);
    return CUDYN_OK;
}

CUDYN_API int cudyn_occupancy_max_blocks(int *blocks, cudyn_function f, int block_size, size_t dynamic_shared)
{
    static const char api[] = "cudyn_occupancy_max_blocks";
    if (!blocks)
        return cudyn__fail_arg(api, "blocks", "must not be NULL");
    *blocks = 0;
    if (!f)
        return cudyn__fail_arg(api, "f", "must not be NULL");
    if (block_size <= 0)
        return cudyn__fail_arg(api, "block_size", "must be greater than 0");
    int st = cudyn__need_context(api);
    if (st != CUDYN_OK)
        return st;
    CUDYN_TRY_DRIVER(cudyn__drv.cuOccupancyMaxActiveBlocksPerMultiprocessor(blocks, CU_FUNCTION(f), block_size,
                                                                           dynamic_shared),
                     "cuOccupancyMaxActiveBlocksPerMultiprocessor", api);
    return CUDYN_OK;
}

CUDYN_API int cudyn_occupancy_block_size(int *min_grid, int *block_size, cudyn_function f, size_t dynamic_shared,
                                         int block_size_limit)
{
    static const char api[] = "cudyn_occupancy_block_size";
    if (!min_grid)
        return cudyn__fail_arg(api, "min_grid", "must not be NULL");
    if (!block_size)
        return cudyn__fail_arg(api, "block_size", "must not be NULL");
    *min_grid = *block_size = 0;
    if (!f)
        return cudyn__fail_arg(api, "f", "must not be NULL");
    if (block_size_limit < 0)
        return cudyn__fail_arg(api, "block_size_limit", "must be 0 (no limit) or positive");
    int st = cudyn__need_context(api);
    if (st != CUDYN_OK)
        return st;
    CUDYN_TRY_DRIVER(cudyn__drv.cuOccupancyMaxPotentialBlockSize(min_grid, block_size, CU_FUNCTION(f), NULL,
                                                                dynamic_shared, block_size_limit),
                     "cuOccupancyMaxPotentialBlockSize", api);
    return CUDYN_OK;
}

CUDYN_API void *cudyn_module_native(cudyn_module mod)
{
    return mod && !is_dead(mod) ? (void *)mod->handle : NULL;
}
