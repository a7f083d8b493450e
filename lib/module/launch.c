/*
 * launch.c - kernel launches.  This is the hot path: after the first call
 * it costs one thread-local check and one indirect call into the driver.
 * When the driver refuses a launch, the limit that was broken is found and
 * named with its numbers; that work happens on the failure path only.
 */
#include "config.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>

#include "hints.h"
#include "module/kernel_params.h"
#include "module/module.h"

/* What a kernel may be launched with, on the current context's device. */
struct launch_limits {
    int max_block[3], max_grid[3], device_threads;
    int function_threads, function_dynamic_shared, function_static_shared;
    char device_name[128];
    char kernel_name[64];
};

/* What the driver tells (0 for what it cannot: a limit that is 0 is not
 * named). */
static void read_limits(cu_function fn, struct launch_limits *l)
{
    cu_device dev = 0;
    bool have_dev = cudyn__drv.cuCtxGetDevice(&dev) == CU_OK;
    for (int i = 0; i < 3; i++) {
        l->max_block[i] = have_dev ? cudyn__device_attr_or_zero(dev, CUDYN_ATTR_MAX_BLOCK_DIM_X + i, NULL) : 0;
        l->max_grid[i] = have_dev ? cudyn__device_attr_or_zero(dev, CUDYN_ATTR_MAX_GRID_DIM_X + i, NULL) : 0;
    }
    l->device_threads = have_dev ? cudyn__device_attr_or_zero(dev, CUDYN_ATTR_MAX_THREADS_PER_BLOCK, NULL) : 0;
    if (!have_dev || cudyn__drv.cuDeviceGetName(l->device_name, (int)sizeof l->device_name, dev) != CU_OK)
        snprintf(l->device_name, sizeof l->device_name, "this device");
    l->function_threads = cudyn__func_attr_or_zero(fn, CU_FUNC_ATTR_MAX_THREADS_PER_BLOCK, NULL);
    l->function_dynamic_shared = cudyn__func_attr_or_zero(fn, CU_FUNC_ATTR_MAX_DYNAMIC_SHARED_SIZE_BYTES, NULL);
    l->function_static_shared = cudyn__func_attr_or_zero(fn, CU_FUNC_ATTR_SHARED_SIZE_BYTES, NULL);
    struct cudyn__kernel_identity who;
    if (cudyn__kernel_identify((cudyn_function)(void *)fn, &who) && who.name[0])
        cudyn__copy_string(l->kernel_name, sizeof l->kernel_name, who.name);
    else
        snprintf(l->kernel_name, sizeof l->kernel_name, "the kernel");
}

/* Appends which limit the launch broke, if one did. */
static void explain_refusal(cu_function fn, cudyn_dim3 grid, cudyn_dim3 block, unsigned int shared)
{
    struct launch_limits l;
    read_limits(fn, &l);
    const unsigned int b[3] = {block.x, block.y, block.z}, g[3] = {grid.x, grid.y, grid.z};
    const char axis[3] = {'x', 'y', 'z'};
    unsigned long long threads = (unsigned long long)block.x * block.y * block.z;
    if (l.function_threads && threads > (unsigned long long)l.function_threads) {
        cudyn__error_append(": block %ux%ux%u has %llu threads; %s allows at most %d on %s", block.x, block.y,
                            block.z, threads, l.kernel_name, l.function_threads, l.device_name);
        return;
    }
    if (l.device_threads && threads > (unsigned long long)l.device_threads) {
        cudyn__error_append(": block %ux%ux%u has %llu threads; %s allows at most %d", block.x, block.y, block.z,
                            threads, l.device_name, l.device_threads);
        return;
    }
    for (int i = 0; i < 3; i++)
        if (l.max_block[i] && b[i] > (unsigned)l.max_block[i]) {
            cudyn__error_append(": block %ux%ux%u: %c is %u, %s allows at most %d", block.x, block.y, block.z,
                                axis[i], b[i], l.device_name, l.max_block[i]);
            return;
        }
    for (int i = 0; i < 3; i++)
        if (l.max_grid[i] && g[i] > (unsigned)l.max_grid[i]) {
            cudyn__error_append(": grid %ux%ux%u: %c is %u, %s allows at most %d", grid.x, grid.y, grid.z, axis[i],
                                g[i], l.device_name, l.max_grid[i]);
            return;
        }
    if (shared > (unsigned)l.function_dynamic_shared)
        cudyn__error_append(": %u bytes of dynamic shared memory; %s allows %d (it uses %d static); raise its "
                            "CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES with cuFuncSetAttribute, up to the "
                            "device's max_shared_memory_per_block_optin",
                            shared, l.kernel_name, l.function_dynamic_shared, l.function_static_shared);
}

/* "Invalid handle" from a launch: a kernel of another device's context is
 * the usual cause; say so when cudyn knows where the kernel was loaded. */
static int explain_invalid_handle(const char *api, cu_function fn, cudyn_stream stream)
{
    struct cudyn__kernel_identity who;
    cu_context in = cudyn__stream_context(stream);
    if (!cudyn__kernel_identify((cudyn_function)(void *)fn, &who) || !who.ctx || !in || who.ctx == in)
        return CUDYN_OK;
    char what[96];
    snprintf(what, sizeof what, "kernel %s", who.name[0] ? who.name : "(unnamed)");
    return cudyn__fail_wrong_context(api, what, who.ctx, in);
}

int cudyn__launch_refused(const char *api, cu_result r, cu_function fn, cudyn_dim3 grid, cudyn_dim3 block,
                          unsigned int shared_bytes, cudyn_stream stream)
{
    int st;
    if (r == CU_ERR_INVALID_HANDLE && (st = explain_invalid_handle(api, fn, stream)) != CUDYN_OK)
        return st;
    st = cudyn__fail_driver(r, "cuLaunchKernel", api);
    if (r == CU_ERR_INVALID_VALUE || r == CU_ERR_LAUNCH_OUT_OF_RESOURCES)
        explain_refusal(fn, grid, block, shared_bytes);
    return st;
}

/* ---------------------------------------- dynamic shared memory over 48 KiB */

/* What each kernel allows now, as last read or set: a launch asking for
 * more than 48 KiB raises the kernel's limit before it goes to the driver
 * (a refused launch is an error that tools such as compute-sanitizer
 * report), once per kernel.  An entry is valid while the kernel registry's
 * epoch is unchanged (an unload may hand the handle to another kernel);
 * after that the limit is read again, which cannot fail. */
#define SHARED_SLOTS 64

static struct {
    cu_function fn;
    unsigned int epoch;
    unsigned int allowed;
} shared_slots[SHARED_SLOTS];
static pthread_mutex_t shared_lock = PTHREAD_MUTEX_INITIALIZER;

static unsigned int shared_slot(cu_function fn)
{
    return (unsigned int)(((uintptr_t)fn >> 4) % SHARED_SLOTS);
}

static bool shared_known(cu_function fn, unsigned int shared)
{
    unsigned int i = shared_slot(fn), epoch = cudyn__kernel_epoch();
    pthread_mutex_lock(&shared_lock);
    bool ok = shared_slots[i].fn == fn && shared_slots[i].epoch == epoch && shared <= shared_slots[i].allowed;
    pthread_mutex_unlock(&shared_lock);
    return ok;
}

static void shared_remember(cu_function fn, unsigned int epoch, unsigned int allowed)
{
    unsigned int i = shared_slot(fn);
    pthread_mutex_lock(&shared_lock);
    shared_slots[i].fn = fn;
    shared_slots[i].epoch = epoch;
    shared_slots[i].allowed = allowed;
    pthread_mutex_unlock(&shared_lock);
}

int cudyn__allow_dynamic_shared(const char *api, const char *arg, cu_function fn, unsigned int shared)
{
    if (shared <= CUDYN__DEFAULT_DYNAMIC_SHARED || shared_known(fn, shared))
        return CUDYN_OK;
    unsigned int epoch = cudyn__kernel_epoch(); /* read before the limit: a change meanwhile invalidates */
    cu_result failure = CU_OK;
    int allowed = cudyn__func_attr_or_zero(fn, CU_FUNC_ATTR_MAX_DYNAMIC_SHARED_SIZE_BYTES, &failure);
    if (failure != CU_OK)
        return cudyn__fail_driver(failure, "cuFuncGetAttribute", api);
    if (shared <= (unsigned int)allowed) {
        shared_remember(fn, epoch, (unsigned int)allowed);
        return CUDYN_OK;
    }
    int static_bytes = cudyn__func_attr_or_zero(fn, CU_FUNC_ATTR_SHARED_SIZE_BYTES, &failure);
    if (failure != CU_OK)
        return cudyn__fail_driver(failure, "cuFuncGetAttribute", api);
    cu_device dev = 0;
    CUDYN_TRY_DRIVER(cudyn__drv.cuCtxGetDevice(&dev), "cuCtxGetDevice", api);
    int optin = cudyn__device_attr_or_zero(dev, CUDYN_ATTR_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, &failure);
    if (failure != CU_OK)
        return cudyn__fail_driver(failure, "cuDeviceGetAttribute", api);
    if ((long long)shared + static_bytes > optin)
        return cudyn__fail(CUDYN_ERROR_INVALID_ARGUMENT, CUDYN_ORIGIN_LIBRARY, 0, NULL, api, HINT_SHARED_OPTIN,
                           "%s: argument '%s' is %u; with the kernel's %d bytes of static shared "
                           "memory that is more than the %d bytes per block device %d allows",
                           api, arg, shared, static_bytes, optin, (int)dev);
    CUDYN_TRY_DRIVER(cudyn__drv.cuFuncSetAttribute(fn, CU_FUNC_ATTR_MAX_DYNAMIC_SHARED_SIZE_BYTES, (int)shared),
                     "cuFuncSetAttribute", api);
    shared_remember(fn, epoch, shared);
    return CUDYN_OK;
}

CUDYN_API int cudyn_launch(cudyn_function f, cudyn_dim3 grid, cudyn_dim3 block, unsigned int shared_bytes,
                           cudyn_stream stream, void **args)
{
    static const char api[] = "cudyn_launch";
    if (CUDYN_UNLIKELY(!f))
        return cudyn__fail_arg(api, "f", "must not be NULL");
    if (CUDYN_UNLIKELY(!grid.x || !grid.y || !grid.z))
        return cudyn__fail_arg(api, "grid", "has a zero dimension");
    if (CUDYN_UNLIKELY(!block.x || !block.y || !block.z))
        return cudyn__fail_arg(api, "block", "has a zero dimension");
    int st = cudyn__need_context(api);
    if (CUDYN_UNLIKELY(st != CUDYN_OK))
        return st;
    cu_function fn = (cu_function)(void *)f;
    if (CUDYN_UNLIKELY(shared_bytes > CUDYN__DEFAULT_DYNAMIC_SHARED) &&
        (st = cudyn__allow_dynamic_shared(api, "shared_bytes", fn, shared_bytes)) != CUDYN_OK)
        return st;
    cu_result r;
    CUDYN_DRIVER_CALL(r,
                      cudyn__drv.cuLaunchKernel(fn, grid.x, grid.y, grid.z, block.x, block.y, block.z, shared_bytes,
                                                (cu_stream)(void *)stream, args, NULL),
                      api);
    if (CUDYN_UNLIKELY(r != CU_OK))
        return cudyn__launch_refused(api, r, fn, grid, block, shared_bytes, stream);
    return CUDYN_OK;
}
