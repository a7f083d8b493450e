/*
 * launch_ex.c - launches with attributes (cudyn_launch_ex): thread-block
 * clusters, cooperative launches, priority, and dynamic shared memory
 * above a kernel's current limit.  Dynamic shared memory above the
 * kernel's limit is allowed (the limit raised, launch.c) before the
 * launch.  As in launch.c, the launch is then made and only a refusal is
 * diagnosed: what the device lacks is named then.  What the driver lacks is
 * known without asking it, and refused before launching.  A driver
 * without cuLaunchKernelEx (before 11.8) still launches cooperative
 * kernels, through cuLaunchCooperativeKernel; clusters and priorities
 * need it.
 */
#include "config.h"

#include <string.h>

#include "hints.h"
#include "module/module.h"

#define LAUNCH_FLAGS (CUDYN_LAUNCH_COOPERATIVE | CUDYN_LAUNCH_PRIORITY)

/* What a launch asks for beyond cudyn_launch. */
struct wants {
    bool cluster, cooperative, priority;
};

/* Nothing beyond cudyn_launch: it launches, and fails, as cudyn_launch. */
static bool plain(const struct wants *w)
{
    return !w->cluster && !w->cooperative && !w->priority;
}

static int check_config(const char *api, const struct cudyn_launch_config *c, struct wants *w)
{
    if (c->size < sizeof *c)
        return cudyn__fail_arg(api, "config->size", "must be set to sizeof(struct cudyn_launch_config)");
    if (!c->grid.x || !c->grid.y || !c->grid.z)
        return cudyn__fail_arg(api, "config->grid", "has a zero dimension");
    if (!c->block.x || !c->block.y || !c->block.z)
        return cudyn__fail_arg(api, "config->block", "has a zero dimension");
    if (c->flags & ~LAUNCH_FLAGS)
        return cudyn__fail_arg(api, "config->flags", "has unknown bits (use CUDYN_LAUNCH_*)");
    w->cluster = c->cluster.x || c->cluster.y || c->cluster.z;
    w->cooperative = c->flags & CUDYN_LAUNCH_COOPERATIVE;
    w->priority = c->flags & CUDYN_LAUNCH_PRIORITY;
    if (!w->cluster)
        return CUDYN_OK;
    if (!c->cluster.x || !c->cluster.y || !c->cluster.z)
        return cudyn__fail_arg(api, "config->cluster", "has a zero dimension (use {0, 0, 0} for no clusters)");
    if (c->grid.x % c->cluster.x || c->grid.y % c->cluster.y || c->grid.z % c->cluster.z)
        return cudyn__fail(CUDYN_ERROR_INVALID_ARGUMENT, CUDYN_ORIGIN_LIBRARY, 0, NULL, api, HINT_CLUSTER_SIZE,
                           "%s: argument 'config->cluster' %ux%ux%u does not divide the grid %ux%ux%u", api,
                           c->cluster.x, c->cluster.y, c->cluster.z, c->grid.x, c->grid.y, c->grid.z);
    return CUDYN_OK;
}

/* After a refused launch: NOT_SUPPORTED naming `attr` when the current
 * device lacks it, else CUDYN_OK (also when the driver cannot say). */
static int device_lacks(const char *api, int attr, const char *what, const char *hint)
{
    cu_device dev = 0;
    cu_result failure = CU_OK;
    if (cudyn__drv.cuCtxGetDevice(&dev) != CU_OK || cudyn__device_attr_or_zero(dev, attr, &failure) != 0 ||
        failure != CU_OK)
        return CUDYN_OK;
    char name[128] = "";
    if (cudyn__drv.cuDeviceGetName(name, (int)sizeof name, dev) != CU_OK)
        name[0] = '\0';
    return cudyn__fail(CUDYN_ERROR_NOT_SUPPORTED, CUDYN_ORIGIN_LIBRARY, 0, NULL, api, hint,
                       "%s: %s: device %d (%s) has device attribute %s = 0", api, what, (int)dev, name,
                       cudyn_device_attr_name(attr));
}

/* CUDYN_OK if the driver has `fn` (at `version` or later), else
 * NOT_SUPPORTED naming what is missing. */
static int need_driver(const char *api, bool has, const char *fn, int version, const char *what, const char *hint)
{
    int v = cudyn__driver_version_loaded();
    if (has && v >= version)
        return CUDYN_OK;
    return cudyn__fail(CUDYN_ERROR_NOT_SUPPORTED, CUDYN_ORIGIN_LOADER, 0, NULL, fn, hint,
                       "%s: %s need %s of a CUDA %d.%d+ driver; the loaded driver is CUDA %d.%d%s", api, what, fn,
                       version / 1000, version % 1000 / 10, v / 1000, v % 1000 / 10,
                       has ? "" : " and does not provide it");
}

/* What the driver lacks, known without a call: checked before launching. */
static int check_driver(const char *api, const struct wants *w)
{
    bool ex = DRIVER_HAS(cuLaunchKernelEx);
    int st = CUDYN_OK;
    if (w->cluster)
        st = need_driver(api, ex, "cuLaunchKernelEx", 11080, "thread-block clusters", HINT_LAUNCH_EX_DRIVER);
    if (st == CUDYN_OK && w->priority)
        st = need_driver(api, ex, "cuLaunchKernelEx", 12000, "launch priorities", HINT_PRIORITY_DRIVER);
    if (st == CUDYN_OK && w->cooperative)
        st = need_driver(api, ex || DRIVER_HAS(cuLaunchCooperativeKernel), "cuLaunchCooperativeKernel", 9000,
                         "cooperative launches", HINT_NEWER_DRIVER_FOR);
    return st;
}

/* One launch through cuLaunchKernelEx with the attributes asked for. */
static cu_result launch_ex(const char *api, cu_function fn, const struct cudyn_launch_config *c,
                           const struct wants *w, void **args)
{
    cu_launch_attribute attrs[3];
    memset(attrs, 0, sizeof attrs);
    unsigned int n = 0;
    if (w->cooperative) {
        attrs[n].id = CU_LAUNCH_ATTR_COOPERATIVE;
        attrs[n++].value.cooperative = 1;
    }
    if (w->cluster) {
        attrs[n].id = CU_LAUNCH_ATTR_CLUSTER_DIMENSION;
        attrs[n].value.clusterDim.x = c->cluster.x;
        attrs[n].value.clusterDim.y = c->cluster.y;
        attrs[n++].value.clusterDim.z = c->cluster.z;
    }
    if (w->priority) {
        attrs[n].id = CU_LAUNCH_ATTR_PRIORITY;
        attrs[n++].value.priority = c->priority;
    }
    cu_launch_config lc = {c->grid.x, c->grid.y, c->grid.z, c->block.x, c->block.y, c->block.z, c->shared_bytes,
                           (cu_stream)(void *)c->stream, attrs, n};
    cu_result r;
    CUDYN_DRIVER_CALL(r, cudyn__drv.cuLaunchKernelEx(&lc, fn, args, NULL), api);
    return r;
}

/* One attempt: cuLaunchKernel for a plain launch, else cuLaunchKernelEx,
 * or cuLaunchCooperativeKernel on a driver before 11.8 (check_driver
 * allowed nothing else there). */
static cu_result launch_once(const char *api, cu_function fn, const struct cudyn_launch_config *c,
                             const struct wants *w, void **args, const char **cufn)
{
    cu_result r;
    if (plain(w)) {
        *cufn = "cuLaunchKernel";
        CUDYN_DRIVER_CALL(r,
                          cudyn__drv.cuLaunchKernel(fn, c->grid.x, c->grid.y, c->grid.z, c->block.x, c->block.y,
                                                    c->block.z, c->shared_bytes, (cu_stream)(void *)c->stream, args,
                                                    NULL),
                          api);
    } else if (DRIVER_HAS(cuLaunchKernelEx)) {
        *cufn = "cuLaunchKernelEx";
        r = launch_ex(api, fn, c, w, args);
    } else {
        *cufn = "cuLaunchCooperativeKernel";
        CUDYN_DRIVER_CALL(r,
                          cudyn__drv.cuLaunchCooperativeKernel(fn, c->grid.x, c->grid.y, c->grid.z, c->block.x,
                                                               c->block.y, c->block.z, c->shared_bytes,
                                                               (cu_stream)(void *)c->stream, args),
                          api);
    }
    return r;
}

CUDYN_API int cudyn_launch_ex(cudyn_function f, const struct cudyn_launch_config *config, void **args)
{
    static const char api[] = "cudyn_launch_ex";
    if (!f)
        return cudyn__fail_arg(api, "f", "must not be NULL");
    if (!config)
        return cudyn__fail_arg(api, "config", "must not be NULL");
    struct wants w;
    int st = check_config(api, config, &w);
    if (st == CUDYN_OK)
        st = cudyn__need_context(api);
    if (st == CUDYN_OK)
        st = check_driver(api, &w);
    const struct cudyn_launch_config *c = config;
    cu_function fn = (cu_function)(void *)f;
    if (st == CUDYN_OK) /* raised before the launch, not after a refusal */
        st = cudyn__allow_dynamic_shared(api, "config->shared_bytes", fn, c->shared_bytes);
    if (st != CUDYN_OK)
        return st;
    const char *cufn = NULL;
    cu_result r = launch_once(api, fn, c, &w, args, &cufn);
    if (r == CU_OK)
        return CUDYN_OK;
    if (plain(&w))
        return cudyn__launch_refused(api, r, fn, c->grid, c->block, c->shared_bytes, c->stream);
    st = CUDYN_OK; /* refused: what the device lacks is the likely reason */
    if (w.cluster)
        st = device_lacks(api, CUDYN_ATTR_CLUSTER_LAUNCH, "thread-block clusters", HINT_CLUSTER_DEVICE);
    if (st == CUDYN_OK && w.cooperative)
        st = device_lacks(api, CUDYN_ATTR_COOPERATIVE_LAUNCH, "cooperative launches", HINT_COOPERATIVE_DEVICE);
    if (st != CUDYN_OK)
        return st;
    st = cudyn__fail_driver(r, cufn, api);
    cudyn__error_append(" (grid %ux%ux%u, block %ux%ux%u, cluster %ux%ux%u%s, %u bytes of dynamic shared memory)",
                        c->grid.x, c->grid.y, c->grid.z, c->block.x, c->block.y, c->block.z, c->cluster.x,
                        c->cluster.y, c->cluster.z, w.cooperative ? ", cooperative" : "", c->shared_bytes);
    return st;
}
