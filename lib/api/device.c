/*
 * device.c - device count, description, attributes and peer access.
 */
#include "config.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "api/api.h"

CUDYN_API int cudyn_device_count(int *count)
{
    static const char api[] = "cudyn_device_count";
    if (!count)
        return cudyn__fail_arg(api, "count", "must not be NULL");
    *count = 0;
    int st = cudyn__need_driver();
    if (st == CUDYN_ERROR_NO_DEVICE)
        return CUDYN_OK; /* a machine with a driver and no GPU has zero devices */
    if (st != CUDYN_OK)
        return st;
    CUDYN_TRY_DRIVER(cudyn__drv.cuDeviceGetCount(count), "cuDeviceGetCount", api);
    return CUDYN_OK;
}

/* What a driver does not report: an attribute it does not know (drivers
 * older than the attribute answer CUDA_ERROR_INVALID_VALUE), or a function
 * it lacks (its stub answers). */
static bool not_reported(cu_result r)
{
    return r == CU_ERR_INVALID_VALUE || cudyn__driver_stub_answered(r) != NULL;
}

int cudyn__device_attr_or_zero(cu_device dev, int attr, cu_result *failure)
{
    int v = 0;
    cu_result r = cudyn__drv.cuDeviceGetAttribute(&v, (cu_enum)attr, dev);
    if (failure)
        *failure = not_reported(r) ? CU_OK : r;
    return r == CU_OK ? v : 0;
}

int cudyn__func_attr_or_zero(cu_function fn, int attr, cu_result *failure)
{
    int v = 0;
    cu_result r = cudyn__drv.cuFuncGetAttribute(&v, (cu_enum)attr, fn);
    if (failure)
        *failure = not_reported(r) ? CU_OK : r;
    return r == CU_OK ? v : 0;
}

CUDYN_API int cudyn_device_attribute(int ordinal, cudyn_device_attr attr, int *value)
{
    static const char api[] = "cudyn_device_attribute";
    if (!value)
        return cudyn__fail_arg(api, "value", "must not be NULL");
    *value = 0;
    if (attr <= 0)
        return cudyn__fail_arg(api, "attr", "must be a positive CUDYN_ATTR_* value");
    cu_device dev;
    int st = cudyn__get_device(api, ordinal, &dev);
    if (st != CUDYN_OK)
        return st;
    cu_result r = cudyn__drv.cuDeviceGetAttribute(value, (cu_enum)attr, dev);
    if (not_reported(r))
        return cudyn__fail(CUDYN_ERROR_NOT_SUPPORTED, CUDYN_ORIGIN_DRIVER, (int)r, "CUDA_ERROR_INVALID_VALUE",
                          "cuDeviceGetAttribute", NULL, "%s: the driver (CUDA %d.%d) does not know attribute %d (%s)",
                          api, cudyn__driver_version_loaded() / 1000, cudyn__driver_version_loaded() % 1000 / 10, attr,
                          cudyn_device_attr_name(attr) ? cudyn_device_attr_name(attr) : "unnamed");
    if (r != CU_OK)
        return cudyn__fail_driver(r, "cuDeviceGetAttribute", api);
    return CUDYN_OK;
}

/* The first real failure while describing a device.  What a driver does
 * not report is not one (not_reported): clock rates, which newer drivers
 * dropped, read as 0; UUIDs before CUDA 9.2 are left empty. */
struct describe_failure {
    cu_result r;
    const char *fn;
};

static void note(struct describe_failure *f, cu_result r, const char *fn)
{
    if (r != CU_OK && !not_reported(r) && f->r == CU_OK) {
        f->r = r;
        f->fn = fn;
    }
}

/* An attribute for the info struct: 0 where the driver does not report it. */
static int attribute_or_zero(cu_device dev, int attr, struct describe_failure *f)
{
    cu_result failure;
    int v = cudyn__device_attr_or_zero(dev, attr, &failure);
    note(f, failure, "cuDeviceGetAttribute");
    return v;
}

/* The device's UUID, through the newest entry point the driver has; its
 * name in *fn (if fn is not NULL) for messages. */
static cu_result read_uuid(cu_device dev, cu_uuid *uuid, const char **fn)
{
    bool v2 = DRIVER_HAS(cuDeviceGetUuid_v2);
    if (fn)
        *fn = v2 ? "cuDeviceGetUuid_v2" : "cuDeviceGetUuid";
    return v2 ? cudyn__drv.cuDeviceGetUuid_v2(uuid, dev) : cudyn__drv.cuDeviceGetUuid(uuid, dev);
}

static void format_uuid(char *out, size_t cap, const unsigned char u[16])
{
    snprintf(out, cap, "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", u[0], u[1], u[2],
             u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13], u[14], u[15]);
}

CUDYN_API int cudyn_device_info(int ordinal, struct cudyn_device_info *out)
{
    static const char api[] = "cudyn_device_info";
    if (!out)
        return cudyn__fail_arg(api, "out", "must not be NULL");
    if (out->size < sizeof out->size)
        return cudyn__fail_arg(api, "out->size", "must be set to sizeof(struct cudyn_device_info)");
    cu_device dev;
    int st = cudyn__get_device(api, ordinal, &dev);
    if (st != CUDYN_OK)
        return st;

    struct cudyn_device_info info;
    memset(&info, 0, sizeof info);
    info.ordinal = ordinal;
    CUDYN_TRY_DRIVER(cudyn__drv.cuDeviceGetName(info.name, (int)sizeof info.name, dev), "cuDeviceGetName", api);

    struct describe_failure failed = {CU_OK, NULL};
    cu_uuid uuid;
    cu_result r = read_uuid(dev, &uuid, NULL);
    note(&failed, r, "cuDeviceGetUuid");
    if (r == CU_OK) {
        memcpy(info.uuid, uuid.bytes, sizeof info.uuid);
        format_uuid(info.uuid_string, sizeof info.uuid_string, info.uuid);
    }

    info.pci_domain = attribute_or_zero(dev, CUDYN_ATTR_PCI_DOMAIN_ID, &failed);
    info.pci_bus = attribute_or_zero(dev, CUDYN_ATTR_PCI_BUS_ID, &failed);
    info.pci_device = attribute_or_zero(dev, CUDYN_ATTR_PCI_DEVICE_ID, &failed);
    r = cudyn__drv.cuDeviceGetPCIBusId(info.pci_bus_id, (int)sizeof info.pci_bus_id, dev);
    note(&failed, r, "cuDeviceGetPCIBusId");
    if (r != CU_OK) {
        snprintf(info.pci_bus_id, sizeof info.pci_bus_id, "%08x:%02x:%02x.0", (unsigned)info.pci_domain,
                 (unsigned)info.pci_bus, (unsigned)info.pci_device);
    }

    size_t total = 0;
    CUDYN_TRY_DRIVER(cudyn__drv.cuDeviceTotalMem_v2(&total, dev), "cuDeviceTotalMem", api);
    info.total_memory = total;
    info.cc_major = attribute_or_zero(dev, CUDYN_ATTR_COMPUTE_CAPABILITY_MAJOR, &failed);
    info.cc_minor = attribute_or_zero(dev, CUDYN_ATTR_COMPUTE_CAPABILITY_MINOR, &failed);
    info.multiprocessors = attribute_or_zero(dev, CUDYN_ATTR_MULTIPROCESSOR_COUNT, &failed);
    info.clock_khz = attribute_or_zero(dev, CUDYN_ATTR_CLOCK_RATE, &failed);
    info.memory_clock_khz = attribute_or_zero(dev, CUDYN_ATTR_MEMORY_CLOCK_RATE, &failed);
    info.memory_bus_width = attribute_or_zero(dev, CUDYN_ATTR_GLOBAL_MEMORY_BUS_WIDTH, &failed);
    info.l2_cache_bytes = attribute_or_zero(dev, CUDYN_ATTR_L2_CACHE_SIZE, &failed);
    info.shared_memory_per_block = attribute_or_zero(dev, CUDYN_ATTR_SHARED_MEMORY_PER_BLOCK, &failed);
    info.shared_memory_per_block_optin = attribute_or_zero(dev, CUDYN_ATTR_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, &failed);
    info.shared_memory_per_multiprocessor = attribute_or_zero(dev, CUDYN_ATTR_SHARED_MEMORY_PER_MULTIPROCESSOR, &failed);
    info.registers_per_block = attribute_or_zero(dev, CUDYN_ATTR_REGISTERS_PER_BLOCK, &failed);
    info.registers_per_multiprocessor = attribute_or_zero(dev, CUDYN_ATTR_REGISTERS_PER_MULTIPROCESSOR, &failed);
    info.warp_size = attribute_or_zero(dev, CUDYN_ATTR_WARP_SIZE, &failed);
    info.max_threads_per_block = attribute_or_zero(dev, CUDYN_ATTR_MAX_THREADS_PER_BLOCK, &failed);
    info.max_threads_per_multiprocessor = attribute_or_zero(dev, CUDYN_ATTR_MAX_THREADS_PER_MULTIPROCESSOR, &failed);
    for (int i = 0; i < 3; i++) {
        info.max_block_dim[i] = attribute_or_zero(dev, CUDYN_ATTR_MAX_BLOCK_DIM_X + i, &failed);
        info.max_grid_dim[i] = attribute_or_zero(dev, CUDYN_ATTR_MAX_GRID_DIM_X + i, &failed);
    }
    info.async_engines = attribute_or_zero(dev, CUDYN_ATTR_ASYNC_ENGINE_COUNT, &failed);
    info.ecc_enabled = attribute_or_zero(dev, CUDYN_ATTR_ECC_ENABLED, &failed);
    info.integrated = attribute_or_zero(dev, CUDYN_ATTR_INTEGRATED, &failed);
    info.managed_memory = attribute_or_zero(dev, CUDYN_ATTR_MANAGED_MEMORY, &failed);
    info.unified_addressing = attribute_or_zero(dev, CUDYN_ATTR_UNIFIED_ADDRESSING, &failed);
    info.concurrent_kernels = attribute_or_zero(dev, CUDYN_ATTR_CONCURRENT_KERNELS, &failed);
    info.compute_mode = attribute_or_zero(dev, CUDYN_ATTR_COMPUTE_MODE, &failed);
    info.kernel_exec_timeout = attribute_or_zero(dev, CUDYN_ATTR_KERNEL_EXEC_TIMEOUT, &failed);
    info.cooperative_launch = attribute_or_zero(dev, CUDYN_ATTR_COOPERATIVE_LAUNCH, &failed);

    if (failed.r != CU_OK)
        return cudyn__fail_driver(failed.r, failed.fn, api);
    info.size = out->size < sizeof info ? out->size : sizeof info;
    memcpy(out, &info, info.size);
    return CUDYN_OK;
}

/* NVML's record of the GPU CUDA device `ordinal` is (or is a MIG instance
 * of), found by the UUID CUDA gives it: NVML's indices ignore
 * CUDA_VISIBLE_DEVICES and CUDA's ordering, UUIDs do not. */
CUDYN_API int cudyn_nvml_device_for_ordinal(int ordinal, struct cudyn_nvml_device *out)
{
    static const char api[] = "cudyn_nvml_device_for_ordinal";
    if (!out)
        return cudyn__fail_arg(api, "out", "must not be NULL");
    if (out->size < sizeof out->size)
        return cudyn__fail_arg(api, "out->size", "must be set to sizeof(struct cudyn_nvml_device)");
    cu_device dev;
    int st = cudyn__get_device(api, ordinal, &dev);
    if (st != CUDYN_OK)
        return st;
    cu_uuid uuid;
    const char *fn;
    CUDYN_TRY_DRIVER(read_uuid(dev, &uuid, &fn), fn, api);
    unsigned char bytes[16];
    char text[48];
    memcpy(bytes, uuid.bytes, sizeof bytes);
    format_uuid(text, sizeof text, bytes);
    return cudyn__nvml_device_by_uuid(text, out, api);
}

/* Both devices of a peer query, checked. */
static int device_pair(const char *api, int ordinal, int peer, cu_device *a, cu_device *b)
{
    int st = cudyn__get_device(api, ordinal, a);
    return st == CUDYN_OK ? cudyn__get_device(api, peer, b) : st;
}

CUDYN_API int cudyn_device_can_access_peer(int ordinal, int peer, int *can)
{
    static const char api[] = "cudyn_device_can_access_peer";
    if (!can)
        return cudyn__fail_arg(api, "can", "must not be NULL");
    *can = 0;
    cu_device a, b;
    int st = device_pair(api, ordinal, peer, &a, &b);
    if (st != CUDYN_OK)
        return st;
    if (ordinal == peer)
        return CUDYN_OK; /* the driver answers 0 for a device with itself */
    CUDYN_TRY_DRIVER(cudyn__drv.cuDeviceCanAccessPeer(can, a, b), "cuDeviceCanAccessPeer", api);
    return CUDYN_OK;
}

CUDYN_API int cudyn_device_p2p_attribute(int ordinal, int peer, int attr, int *value)
{
    static const char api[] = "cudyn_device_p2p_attribute";
    if (!value)
        return cudyn__fail_arg(api, "value", "must not be NULL");
    *value = 0;
    if (attr < CUDYN_P2P_PERFORMANCE_RANK || attr > CUDYN_P2P_CUDA_ARRAY_ACCESS_SUPPORTED)
        return cudyn__fail_arg(api, "attr", "must be a CUDYN_P2P_* value");
    cu_device a, b;
    int st = device_pair(api, ordinal, peer, &a, &b);
    if (st != CUDYN_OK)
        return st;
    if (ordinal == peer)
        return cudyn__fail_arg(api, "peer", "must be another device than ordinal");
    CUDYN_TRY_DRIVER(cudyn__drv.cuDeviceGetP2PAttribute(value, (cu_enum)attr, a, b), "cuDeviceGetP2PAttribute", api);
    return CUDYN_OK;
}
