/*
 * context.c - primary contexts, and the calling thread's device.
 *
 * Like the CUDA runtime and PyCUDA's autoinit, cudyn works in each device's
 * primary context, retained once per process on first use and made current
 * on each thread that needs it.  A thread that already has a current
 * context (made by another library) keeps it.  cudyn_device_reset bumps a
 * generation counter so every thread re-checks its context on its next call.
 */
#include "config.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "hints.h"
#include "api/api.h"
#include "module/kernel_params.h"

#define MAX_DEVICES 64

_Thread_local unsigned int cudyn__tls_context_generation;
static _Thread_local int tls_device;        /* ordinal chosen by cudyn_device_use */
static _Thread_local bool tls_device_chosen; /* else: cudyn__first_device (CUDYN_DEVICE) */

/* The device the thread works on when it has no current context. */
static int thread_device(const char *api, int *ordinal)
{
    if (tls_device_chosen) {
        *ordinal = tls_device;
        return CUDYN_OK;
    }
    int st = cudyn__first_device(api, ordinal);
    if (st == CUDYN_OK) {
        tls_device = *ordinal;
        tls_device_chosen = true;
    }
    return st;
}

static pthread_mutex_t primary_lock = PTHREAD_MUTEX_INITIALIZER;
static cu_context primary[MAX_DEVICES];      /* retained by cudyn, or NULL */
static cu_context last_primary[MAX_DEVICES]; /* handle seen before a reset */

int cudyn__get_device(const char *api, int ordinal, cu_device *dev)
{
    int st = cudyn__need_driver();
    if (st != CUDYN_OK)
        return st;
    int count = 0;
    CUDYN_TRY_DRIVER(cudyn__drv.cuDeviceGetCount(&count), "cuDeviceGetCount", api);
    if (ordinal < 0 || ordinal >= count || ordinal >= MAX_DEVICES) {
        /* plain getenv on purpose: the value is only quoted in this
         * message (the driver reads it itself), see SECURITY.md */
        const char *visible = getenv("CUDA_VISIBLE_DEVICES");
        return cudyn__fail(CUDYN_ERROR_INVALID_DEVICE, CUDYN_ORIGIN_LIBRARY, 0, NULL, api, NULL,
                          "%s: device %d does not exist: %d device%s visible (valid ordinals 0..%d)%s%s%s", api,
                          ordinal, count, count == 1 ? " is" : "s are", count - 1,
                          visible ? "; CUDA_VISIBLE_DEVICES=\"" : "", visible ? visible : "", visible ? "\"" : "");
    }
    CUDYN_TRY_DRIVER(cudyn__drv.cuDeviceGet(dev, ordinal), "cuDeviceGet", api);
    return CUDYN_OK;
}

/* The primary context of `ordinal`, retained once for the process. */
static int retain_primary(const char *api, int ordinal, cu_context *ctx)
{
    cu_device dev;
    int st = cudyn__get_device(api, ordinal, &dev);
    if (st != CUDYN_OK)
        return st;
    pthread_mutex_lock(&primary_lock);
    if (!primary[ordinal]) {
        cu_context c = NULL;
        cu_result r = cudyn__drv.cuDevicePrimaryCtxRetain(&c, dev);
        if (r != CU_OK) {
            pthread_mutex_unlock(&primary_lock);
            return cudyn__fail_driver(r, "cuDevicePrimaryCtxRetain", api);
        }
        primary[ordinal] = last_primary[ordinal] = c;
    }
    *ctx = primary[ordinal];
    pthread_mutex_unlock(&primary_lock);
    return CUDYN_OK;
}

/* Ordinal whose primary context `ctx` was before a reset, or -1. */
static int reset_primary_ordinal(cu_context ctx)
{
    int found = -1;
    pthread_mutex_lock(&primary_lock);
    for (int i = 0; i < MAX_DEVICES && found < 0; i++)
        if (last_primary[i] == ctx && !primary[i])
            found = i;
    pthread_mutex_unlock(&primary_lock);
    return found;
}

/* The context the calling thread works in, as cudyn last saw it. */
static _Thread_local cu_context tls_context;

static int make_current(const char *api, int ordinal)
{
    cu_context ctx = NULL;
    int st = retain_primary(api, ordinal, &ctx);
    if (st != CUDYN_OK)
        return st;
    CUDYN_TRY_DRIVER(cudyn__drv.cuCtxSetCurrent(ctx), "cuCtxSetCurrent", api);
    tls_context = ctx;
    return CUDYN_OK;
}

int cudyn__need_context_slow(const char *api)
{
    int st = cudyn__need_driver();
    if (st != CUDYN_OK)
        return st;
    unsigned int generation = atomic_load_explicit(&cudyn__context_generation, memory_order_relaxed);
    cu_context current = NULL;
    CUDYN_TRY_DRIVER(cudyn__drv.cuCtxGetCurrent(&current), "cuCtxGetCurrent", api);
    if (!current) {
        int ordinal = 0;
        st = thread_device(api, &ordinal);
        if (st == CUDYN_OK)
            st = make_current(api, ordinal);
    } else {
        /* A context cudyn released in a reset is revived; any other current
         * context (ours or another library's) is used as it is. */
        int reset_ordinal = reset_primary_ordinal(current);
        if (reset_ordinal >= 0)
            st = make_current(api, reset_ordinal);
        else
            tls_context = current;
    }
    if (st == CUDYN_OK)
        cudyn__tls_context_generation = generation;
    return st;
}

/*
 * A call answered that the thread's context is gone: another library popped
 * or destroyed the context cudyn had adopted.  cudyn goes on with whatever
 * is current now, or with the thread's device's primary context, and the
 * caller retries once.  Only failures come here: the success path never
 * asks the driver which context is current.
 */
bool cudyn__context_recovered(cu_result r, const char *api)
{
    static _Thread_local bool recovering; /* the calls below must not recover in turn */
    if ((r != CU_ERR_INVALID_CONTEXT && r != CU_ERR_CONTEXT_IS_DESTROYED) || recovering)
        return false;
    recovering = true;
    cudyn_error caller;
    cudyn__error_save(&caller);
    cu_context failed = tls_context, current = NULL;
    bool retry = false;
    if (cudyn__drv.cuCtxGetCurrent(&current) == CU_OK) {
        if (current && current != failed && r == CU_ERR_INVALID_CONTEXT) {
            tls_context = current; /* the library that pushed its own popped it: the one below */
            retry = true;
        } else {
            int ordinal = 0;
            retry = thread_device(api, &ordinal) == CUDYN_OK && make_current(api, ordinal) == CUDYN_OK &&
                    tls_context != failed;
        }
    }
    cudyn__error_restore(&caller); /* the call's own answer is what the caller reports */
    recovering = false;
    if (retry)
        cudyn__debug("%s: the thread's context was popped or destroyed by another library; going on in %p", api,
                     (void *)tls_context);
    return retry;
}

CUDYN_API int cudyn_device_use(int ordinal)
{
    int st = make_current("cudyn_device_use", ordinal);
    if (st != CUDYN_OK)
        return st;
    tls_device = ordinal;
    tls_device_chosen = true;
    cudyn__tls_context_generation = atomic_load_explicit(&cudyn__context_generation, memory_order_relaxed);
    return CUDYN_OK;
}

CUDYN_API int cudyn_device_current(int *ordinal)
{
    static const char api[] = "cudyn_device_current";
    if (!ordinal)
        return cudyn__fail_arg(api, "ordinal", "must not be NULL");
    int st = cudyn__need_context(api);
    if (st != CUDYN_OK)
        return st;
    cu_device dev;
    CUDYN_TRY_DRIVER(cudyn__drv.cuCtxGetDevice(&dev), "cuCtxGetDevice", api);
    int count = 0;
    CUDYN_TRY_DRIVER(cudyn__drv.cuDeviceGetCount(&count), "cuDeviceGetCount", api);
    for (int i = 0; i < count; i++) {
        cu_device d;
        CUDYN_TRY_DRIVER(cudyn__drv.cuDeviceGet(&d, i), "cuDeviceGet", api);
        if (d == dev) {
            *ordinal = i;
            return CUDYN_OK;
        }
    }
    return cudyn__fail(CUDYN_ERROR_INVALID_DEVICE, CUDYN_ORIGIN_LIBRARY, 0, NULL, api, NULL,
                      "%s: the current context's device is not among the visible devices", api);
}

/* Drops cudyn's retain of `ordinal`'s primary context, after resetting it
 * when `reset` says so.  A release that fails keeps the retain recorded,
 * so a later call tries again instead of leaking it.  Either way threads
 * re-check their context at their next call (the generation moves). */
static int drop_primary(const char *api, int ordinal, bool reset)
{
    cu_device dev;
    int st = cudyn__get_device(api, ordinal, &dev);
    if (st != CUDYN_OK)
        return st;
    pthread_mutex_lock(&primary_lock);
    cu_context dying = primary[ordinal];
    cu_result r = CU_OK;
    const char *failed = NULL;
    bool reset_done = false;
    if (reset) {
        /* Reset first: after a kernel fault the context holds a sticky
         * error that every other call, the release included, would return. */
        r = DRIVER_HAS(cuDevicePrimaryCtxReset_v2) ? cudyn__drv.cuDevicePrimaryCtxReset_v2(dev)
                                                    : cudyn__drv.cuDevicePrimaryCtxReset(dev);
        reset_done = r == CU_OK;
        failed = reset_done ? NULL : "cuDevicePrimaryCtxReset";
    }
    if (!failed && dying) {
        r = DRIVER_HAS(cuDevicePrimaryCtxRelease_v2) ? cudyn__drv.cuDevicePrimaryCtxRelease_v2(dev)
                                                     : cudyn__drv.cuDevicePrimaryCtxRelease(dev);
        if (r == CU_OK)
            primary[ordinal] = NULL;
        else
            failed = "cuDevicePrimaryCtxRelease";
    }
    /* a reset destroys the context's modules, kernels and events (a
     * refused one destroys nothing); so does the last release, which the
     * driver answers by resetting the context */
    unsigned int flags = 0;
    int active = 1;
    bool gone = reset ? reset_done
                      : (!failed && dying && DRIVER_HAS(cuDevicePrimaryCtxGetState) &&
                         cudyn__drv.cuDevicePrimaryCtxGetState(dev, &flags, &active) == CU_OK && !active);
    if (gone) {
        if (dying) {
            cudyn__module_forget_context(dying);
            cudyn__events_forget_context(dying);
        }
        cudyn__kernel_forget_all();
    }
    atomic_fetch_add_explicit(&cudyn__context_generation, 1, memory_order_relaxed);
    pthread_mutex_unlock(&primary_lock);
    if (failed)
        return cudyn__fail_driver(r, failed, api);
    return CUDYN_OK;
}

CUDYN_API int cudyn_device_reset(int ordinal)
{
    return drop_primary("cudyn_device_reset", ordinal, true);
}

CUDYN_API int cudyn_device_release(int ordinal)
{
    return drop_primary("cudyn_device_release", ordinal, false);
}

/* The ordinal whose primary context ctx is, or -1 (another library's). */
static int context_ordinal(cu_context ctx)
{
    int found = -1;
    pthread_mutex_lock(&primary_lock);
    for (int i = 0; i < MAX_DEVICES && found < 0; i++)
        if (ctx && (primary[i] == ctx || last_primary[i] == ctx))
            found = i;
    pthread_mutex_unlock(&primary_lock);
    return found;
}

static void describe_context(cu_context ctx, char *out, size_t cap)
{
    int ordinal = context_ordinal(ctx);
    if (ordinal >= 0)
        snprintf(out, cap, "device %d's context", ordinal);
    else
        snprintf(out, cap, "another library's context %p", (void *)ctx);
}

int cudyn__fail_wrong_context(const char *api, const char *what, cu_context owner, cu_context used)
{
    char of[96], in[96];
    describe_context(owner, of, sizeof of);
    describe_context(used, in, sizeof in);
    return cudyn__fail(CUDYN_ERROR_WRONG_CONTEXT, CUDYN_ORIGIN_LIBRARY, 0, NULL, api, HINT_WRONG_CONTEXT,
                       "%s: %s belongs to %s, but this thread works in %s", api, what, of, in);
}

/* Enables or disables access from `ordinal`'s primary context to `peer`'s.
 * cuCtx{Enable,Disable}PeerAccess act on the current context, so the
 * thread's own is set aside for the call and put back. */
static int peer_access(const char *api, int ordinal, int peer, bool enable)
{
    cu_context from = NULL, to = NULL;
    int st = retain_primary(api, ordinal, &from);
    if (st == CUDYN_OK)
        st = retain_primary(api, peer, &to);
    if (st != CUDYN_OK || ordinal == peer)
        return st;
    if (enable) {
        int can = 0;
        st = cudyn_device_can_access_peer(ordinal, peer, &can);
        if (st != CUDYN_OK)
            return st;
        if (!can)
            return cudyn__fail(CUDYN_ERROR_NOT_SUPPORTED, CUDYN_ORIGIN_LIBRARY, 0, NULL, api, HINT_NO_PEER,
                               "%s: device %d cannot reach device %d's memory directly (the driver reports no "
                               "peer access between them)",
                               api, ordinal, peer);
    }
    cu_context saved = NULL;
    CUDYN_TRY_DRIVER(cudyn__drv.cuCtxGetCurrent(&saved), "cuCtxGetCurrent", api);
    CUDYN_TRY_DRIVER(cudyn__drv.cuCtxSetCurrent(from), "cuCtxSetCurrent", api);
    cu_result r = enable ? cudyn__drv.cuCtxEnablePeerAccess(to, 0) : cudyn__drv.cuCtxDisablePeerAccess(to);
    const char *fn = enable ? "cuCtxEnablePeerAccess" : "cuCtxDisablePeerAccess";
    cu_result restored = cudyn__drv.cuCtxSetCurrent(saved);
    /* the state asked for is already there: idempotent */
    if (r == (enable ? CU_ERR_PEER_ACCESS_ALREADY_ENABLED : CU_ERR_PEER_ACCESS_NOT_ENABLED))
        r = CU_OK;
    if (r != CU_OK)
        return cudyn__fail_driver(r, fn, api);
    if (restored != CU_OK)
        return cudyn__fail_driver(restored, "cuCtxSetCurrent", api);
    return CUDYN_OK;
}

CUDYN_API int cudyn_device_enable_peer(int ordinal, int peer)
{
    return peer_access("cudyn_device_enable_peer", ordinal, peer, true);
}

CUDYN_API int cudyn_device_disable_peer(int ordinal, int peer)
{
    return peer_access("cudyn_device_disable_peer", ordinal, peer, false);
}

CUDYN_API int cudyn_synchronize(void)
{
    static const char api[] = "cudyn_synchronize";
    int st = cudyn__need_context(api);
    if (st != CUDYN_OK)
        return st;
    CUDYN_TRY_DRIVER(cudyn__drv.cuCtxSynchronize(), "cuCtxSynchronize", api);
    return CUDYN_OK;
}
