/*
 * loader/nvml.c - GPUs as NVML sees them, without cuInit
 * (cudyn_nvml_device_count, cudyn_nvml_device_info, and for
 * cudyn_nvml_device_for_ordinal the GPU of a UUID).
 *
 * libnvidia-ml.so.1 is opened once per process (pthread_once) and stays
 * loaded; NVML itself is initialised and shut down around each call, so
 * nothing of it is live between calls (NVML counts nested inits).  Only
 * the few functions below are bound.  Those of NVML_OPTIONAL_FUNCTIONS and
 * nvmlErrorString may be missing (older drivers): what they would answer
 * is then reported as unknown, never a failure to load NVML.
 */
#include "config.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "loader/loader.h"
#include "loader/sonames.h"

/* The NVML declarations used, as nvml.h has them. */
typedef int nvml_return;
typedef struct nvml_device_st *nvml_device;
typedef struct {
    char bus_id_legacy[16];
    unsigned int domain, bus, device, pci_device_id, pci_subsystem_id;
    char bus_id[32];
} nvml_pci_info; /* nvmlPciInfo_t */
typedef struct {
    unsigned long long total, free, used;
} nvml_memory; /* nvmlMemory_t */
#define NVML_SUCCESS 0
#define NVML_BUFFER_BYTES 96 /* NVML_DEVICE_UUID_V2_BUFFER_SIZE, _NAME_V2_ */

/* nvmlReturn_t values: X(name, value, cudyn status). */
#define NVML_RETURN_MAP(X)                                                                                     \
    X(NVML_ERROR_UNINITIALIZED, 1, CUDYN_ERROR_DRIVER)                                                         \
    X(NVML_ERROR_INVALID_ARGUMENT, 2, CUDYN_ERROR_INVALID_ARGUMENT)                                            \
    X(NVML_ERROR_NOT_SUPPORTED, 3, CUDYN_ERROR_NOT_SUPPORTED)                                                  \
    X(NVML_ERROR_NO_PERMISSION, 4, CUDYN_ERROR_NOT_PERMITTED)                                                  \
    X(NVML_ERROR_ALREADY_INITIALIZED, 5, CUDYN_ERROR_DRIVER)                                                   \
    X(NVML_ERROR_NOT_FOUND, 6, CUDYN_ERROR_INVALID_DEVICE)                                                     \
    X(NVML_ERROR_INSUFFICIENT_SIZE, 7, CUDYN_ERROR_DRIVER)                                                     \
    X(NVML_ERROR_INSUFFICIENT_POWER, 8, CUDYN_ERROR_DEVICE_UNAVAILABLE)                                        \
    X(NVML_ERROR_DRIVER_NOT_LOADED, 9, CUDYN_ERROR_DRIVER_NOT_FOUND)                                           \
    X(NVML_ERROR_TIMEOUT, 10, CUDYN_ERROR_TIMEOUT)                                                             \
    X(NVML_ERROR_IRQ_ISSUE, 11, CUDYN_ERROR_DEVICE_UNAVAILABLE)                                                \
    X(NVML_ERROR_LIBRARY_NOT_FOUND, 12, CUDYN_ERROR_DRIVER_NOT_FOUND)                                          \
    X(NVML_ERROR_FUNCTION_NOT_FOUND, 13, CUDYN_ERROR_SYMBOL_NOT_FOUND)                                         \
    X(NVML_ERROR_CORRUPTED_INFOROM, 14, CUDYN_ERROR_DEVICE_UNAVAILABLE)                                        \
    X(NVML_ERROR_GPU_IS_LOST, 15, CUDYN_ERROR_DEVICE_UNAVAILABLE)                                              \
    X(NVML_ERROR_RESET_REQUIRED, 16, CUDYN_ERROR_DEVICE_UNAVAILABLE)                                           \
    X(NVML_ERROR_OPERATING_SYSTEM, 17, CUDYN_ERROR_SYSTEM)                                                     \
    X(NVML_ERROR_LIB_RM_VERSION_MISMATCH, 18, CUDYN_ERROR_DRIVER_TOO_OLD)                                      \
    X(NVML_ERROR_IN_USE, 19, CUDYN_ERROR_DEVICE_UNAVAILABLE)                                                   \
    X(NVML_ERROR_MEMORY, 20, CUDYN_ERROR_OUT_OF_MEMORY)                                                        \
    X(NVML_ERROR_NO_DATA, 21, CUDYN_ERROR_DRIVER)                                                              \
    X(NVML_ERROR_INSUFFICIENT_RESOURCES, 23, CUDYN_ERROR_DEVICE_UNAVAILABLE)                                   \
    X(NVML_ERROR_ARGUMENT_VERSION_MISMATCH, 25, CUDYN_ERROR_DRIVER_TOO_OLD)                                    \
    X(NVML_ERROR_NOT_READY, 27, CUDYN_ERROR_NOT_READY)                                                         \
    X(NVML_ERROR_GPU_NOT_FOUND, 28, CUDYN_ERROR_INVALID_DEVICE)                                                \
    X(NVML_ERROR_UNKNOWN, 999, CUDYN_ERROR_DRIVER)

/* The functions bound, all returning nvmlReturn_t: X(member, exported
 * name, parameters). */
#define NVML_FUNCTIONS(X)                                                                                      \
    X(init, "nvmlInit_v2", (void))                                                              \
    X(shutdown, "nvmlShutdown", (void))                                                         \
    X(count, "nvmlDeviceGetCount_v2", (unsigned int *))                                         \
    X(by_index, "nvmlDeviceGetHandleByIndex_v2", (unsigned int, nvml_device *))                 \
    X(uuid, "nvmlDeviceGetUUID", (nvml_device, char *, unsigned int))                           \
    X(pci, "nvmlDeviceGetPciInfo_v3", (nvml_device, nvml_pci_info *))                           \
    X(name, "nvmlDeviceGetName", (nvml_device, char *, unsigned int))                           \
    X(memory, "nvmlDeviceGetMemoryInfo", (nvml_device, nvml_memory *))                          \
    X(mig_mode, "nvmlDeviceGetMigMode", (nvml_device, unsigned int *, unsigned int *))          \
    X(mig_max, "nvmlDeviceGetMaxMigDeviceCount", (nvml_device, unsigned int *))                 \
    X(mig_by_index, "nvmlDeviceGetMigDeviceHandleByIndex", (nvml_device, unsigned int, nvml_device *)) \
    X(driver_version, "nvmlSystemGetDriverVersion", (char *, unsigned int))

/* Bound where the NVML has them, NULL otherwise: X(member, exported name,
 * parameters).  nvmlDeviceGetCpuAffinity(device, words, mask) writes
 * `words` unsigned longs of CPU bits (NVML's documented signature). */
#define NVML_OPTIONAL_FUNCTIONS(X)                                                                             \
    X(cpu_affinity, "nvmlDeviceGetCpuAffinity", (nvml_device, unsigned int, unsigned long *))

static struct {
#define NVML_MEMBER(member, name, params) nvml_return(*member) params;
    NVML_FUNCTIONS(NVML_MEMBER)
    NVML_OPTIONAL_FUNCTIONS(NVML_MEMBER)
#undef NVML_MEMBER
    const char *(*error_string)(nvml_return);
    int status; /* of opening and binding */
    char path[LOADER_PATH_BYTES];
    char why[512]; /* why it cannot be used, when status != CUDYN_OK */
} nvml;
static pthread_once_t nvml_once = PTHREAD_ONCE_INIT;

static void *bind_symbol(void *handle, const char *name)
{
    void *p = dlsym(handle, name);
    if (!p && nvml.status == CUDYN_OK) {
        nvml.status = CUDYN_ERROR_SYMBOL_NOT_FOUND;
        snprintf(nvml.why, sizeof nvml.why, "%s has no %s (a driver older than NVML 11's API)", nvml.path, name);
    }
    return p;
}

static void open_nvml(void)
{
    const char *override = cudyn__getenv("CUDYN_LIBNVML");
    cudyn__copy_string(nvml.path, sizeof nvml.path, override && override[0] ? override : CUDYN_NVML_SONAME);
    char why[LOADER_PATH_BYTES + 64];
    void *handle = cudyn__dlopen(nvml.path, RTLD_NOW | RTLD_LOCAL, why, sizeof why);
    if (!handle) {
        nvml.status = CUDYN_ERROR_DRIVER_NOT_FOUND;
        snprintf(nvml.why, sizeof nvml.why, "NVML (%s) could not be loaded: %s; it ships with the NVIDIA driver",
                 nvml.path, why);
        return;
    }
    void *p;
    /* object to function pointer: POSIX dlsym's documented use */
#define NVML_BIND(member, name, params)                                                                          \
    p = bind_symbol(handle, name);                                                                                    \
    memcpy(&nvml.member, &p, sizeof p);
    NVML_FUNCTIONS(NVML_BIND)
#undef NVML_BIND
#define NVML_BIND_OPTIONAL(member, name, params)                                                                 \
    p = dlsym(handle, name);                                                                                          \
    memcpy(&nvml.member, &p, sizeof p);
    NVML_OPTIONAL_FUNCTIONS(NVML_BIND_OPTIONAL)
#undef NVML_BIND_OPTIONAL
    p = dlsym(handle, "nvmlErrorString");
    memcpy(&nvml.error_string, &p, sizeof p);
    cudyn__debug("NVML: %s %s", nvml.path, nvml.status == CUDYN_OK ? "bound" : nvml.why);
}

static int need_nvml(const char *api)
{
    pthread_once(&nvml_once, open_nvml);
    if (nvml.status != CUDYN_OK)
        return cudyn__fail(nvml.status, CUDYN_ORIGIN_LOADER, 0, NULL, api, NULL, "%s: %s", api, nvml.why);
    return CUDYN_OK;
}

/* Records NVML's failure r of function fn, called for api. */
static int fail_nvml(nvml_return r, const char *fn, const char *api)
{
    const char *name = "NVML_ERROR_UNKNOWN";
    int status = CUDYN_ERROR_DRIVER;
#define NVML_RETURN_ROW(n, value, st)                                                                          \
    if (r == value) {                                                                                          \
        name = #n;                                                                                             \
        status = st;                                                                                           \
    }
    NVML_RETURN_MAP(NVML_RETURN_ROW)
#undef NVML_RETURN_ROW
    const char *text = nvml.error_string ? nvml.error_string(r) : NULL;
    return cudyn__fail(status, CUDYN_ORIGIN_NVML, r, name, fn, NULL, "%s: %s returned %d (%s: %s)", api, fn, r,
                       name, text ? text : "no nvmlErrorString");
}

/* NVML's handle of device `index` into *dev, with NVML initialised; on
 * CUDYN_OK the caller shuts NVML down.  *count is the number of GPUs. */
static int start(const char *api, unsigned int *count)
{
    int st = need_nvml(api);
    if (st != CUDYN_OK)
        return st;
    nvml_return r = nvml.init();
    if (r != NVML_SUCCESS)
        return fail_nvml(r, "nvmlInit_v2", api);
    r = nvml.count(count);
    if (r != NVML_SUCCESS) {
        nvml.shutdown();
        return fail_nvml(r, "nvmlDeviceGetCount_v2", api);
    }
    return CUDYN_OK;
}

CUDYN_API int cudyn_nvml_device_count(int *count)
{
    static const char api[] = "cudyn_nvml_device_count";
    if (!count)
        return cudyn__fail_arg(api, "count", "must not be NULL");
    unsigned int n = 0;
    int st = start(api, &n);
    if (st != CUDYN_OK)
        return st;
    nvml.shutdown();
    *count = (int)n;
    return CUDYN_OK;
}

/* The MIG mode and instances of GPU dev into *info.  A GPU without MIG
 * (NOT_SUPPORTED) is mode -1, not a failure. */
static int read_mig(nvml_device dev, struct cudyn_nvml_device *info, const char *api)
{
    unsigned int current = 0, pending = 0, max = 0;
    nvml_return r = nvml.mig_mode(dev, &current, &pending);
    info->mig_mode = info->mig_mode_pending = -1;
    if (r == 3 /* NVML_ERROR_NOT_SUPPORTED */)
        return CUDYN_OK;
    if (r != NVML_SUCCESS)
        return fail_nvml(r, "nvmlDeviceGetMigMode", api);
    info->mig_mode = current != 0;
    info->mig_mode_pending = pending != 0;
    if (!current)
        return CUDYN_OK;
    r = nvml.mig_max(dev, &max);
    if (r != NVML_SUCCESS)
        return fail_nvml(r, "nvmlDeviceGetMaxMigDeviceCount", api);
    for (unsigned int i = 0; i < max && info->mig_count < CUDYN_NVML_MAX_MIG; i++) {
        nvml_device mig;
        r = nvml.mig_by_index(dev, i, &mig);
        if (r == 6 /* NVML_ERROR_NOT_FOUND: an empty slot */)
            continue;
        if (r != NVML_SUCCESS)
            return fail_nvml(r, "nvmlDeviceGetMigDeviceHandleByIndex", api);
        char *uuid = info->mig_uuids[info->mig_count];
        r = nvml.uuid(mig, uuid, sizeof info->mig_uuids[0]);
        if (r != NVML_SUCCESS)
            return fail_nvml(r, "nvmlDeviceGetUUID", api);
        uuid[sizeof info->mig_uuids[0] - 1] = '\0';
        info->mig_count++;
    }
    return CUDYN_OK;
}

/* The CPUs next to GPU dev into info->cpu_*.  No such function, or a GPU
 * NVML cannot tell (NOT_SUPPORTED, or no CPU named), is a status in the
 * record, not a failure: a program binds its threads only where it can. */
static int read_cpu_affinity(nvml_device dev, struct cudyn_nvml_device *info, const char *api)
{
    memset(info->cpu_affinity, 0, sizeof info->cpu_affinity);
    info->cpu_count = 0;
    info->cpu_affinity_status = CUDYN_ERROR_SYMBOL_NOT_FOUND;
    if (!nvml.cpu_affinity)
        return CUDYN_OK;
    unsigned long mask[CUDYN_NVML_CPU_WORDS] = {0};
    nvml_return r = nvml.cpu_affinity(dev, CUDYN_NVML_CPU_WORDS, mask);
    info->cpu_affinity_status = CUDYN_ERROR_NOT_SUPPORTED;
    if (r == 3 /* NVML_ERROR_NOT_SUPPORTED */)
        return CUDYN_OK;
    if (r != NVML_SUCCESS)
        return fail_nvml(r, "nvmlDeviceGetCpuAffinity", api);
    int count = 0;
    for (size_t w = 0; w < CUDYN_NVML_CPU_WORDS; w++)
        count += __builtin_popcountl(mask[w]);
    if (count == 0)
        return CUDYN_OK;
    memcpy(info->cpu_affinity, mask, sizeof mask);
    info->cpu_count = count;
    info->cpu_affinity_status = CUDYN_OK;
    return CUDYN_OK;
}

static int read_device(unsigned int index, struct cudyn_nvml_device *info, const char *api)
{
    nvml_device dev;
    nvml_pci_info pci;
    nvml_memory mem;
    nvml_return r;
    info->index = (int)index;
    if ((r = nvml.by_index(index, &dev)) != NVML_SUCCESS)
        return fail_nvml(r, "nvmlDeviceGetHandleByIndex_v2", api);
    if ((r = nvml.name(dev, info->name, sizeof info->name)) != NVML_SUCCESS)
        return fail_nvml(r, "nvmlDeviceGetName", api);
    if ((r = nvml.uuid(dev, info->uuid, sizeof info->uuid)) != NVML_SUCCESS)
        return fail_nvml(r, "nvmlDeviceGetUUID", api);
    if ((r = nvml.pci(dev, &pci)) != NVML_SUCCESS)
        return fail_nvml(r, "nvmlDeviceGetPciInfo_v3", api);
    if ((r = nvml.memory(dev, &mem)) != NVML_SUCCESS)
        return fail_nvml(r, "nvmlDeviceGetMemoryInfo", api);
    if ((r = nvml.driver_version(info->driver_version, sizeof info->driver_version)) != NVML_SUCCESS)
        return fail_nvml(r, "nvmlSystemGetDriverVersion", api);
    info->name[sizeof info->name - 1] = info->uuid[sizeof info->uuid - 1] = '\0';
    info->driver_version[sizeof info->driver_version - 1] = '\0';
    info->pci_domain = (int)pci.domain;
    info->pci_bus = (int)pci.bus;
    info->pci_device = (int)pci.device;
    /* cuDeviceGetPCIBusId's form (NVML writes an 8-digit domain) */
    snprintf(info->pci_bus_id, sizeof info->pci_bus_id, "%04X:%02X:%02X.0", pci.domain & 0xffffu, pci.bus & 0xffu,
             pci.device & 0xffu);
    info->total_memory = mem.total;
    info->free_memory = mem.free;
    int st = read_mig(dev, info, api);
    return st == CUDYN_OK ? read_cpu_affinity(dev, info, api) : st;
}

/* *out = info, as far as out->size (checked by the caller) reaches. */
static void copy_out(struct cudyn_nvml_device *out, struct cudyn_nvml_device *info)
{
    info->size = out->size < sizeof *info ? out->size : sizeof *info;
    memcpy(out, info, info->size);
}

CUDYN_API int cudyn_nvml_device_info(int index, struct cudyn_nvml_device *out)
{
    static const char api[] = "cudyn_nvml_device_info";
    if (!out)
        return cudyn__fail_arg(api, "out", "must not be NULL");
    if (out->size < sizeof out->size)
        return cudyn__fail_arg(api, "out->size", "must be set to sizeof(struct cudyn_nvml_device)");
    if (index < 0)
        return cudyn__fail(CUDYN_ERROR_INVALID_DEVICE, CUDYN_ORIGIN_LIBRARY, 0, NULL, api, NULL,
                           "%s: index %d is negative", api, index);
    unsigned int n = 0;
    int st = start(api, &n);
    if (st != CUDYN_OK)
        return st;
    struct cudyn_nvml_device info;
    memset(&info, 0, sizeof info);
    if ((unsigned int)index >= n)
        st = cudyn__fail(CUDYN_ERROR_INVALID_DEVICE, CUDYN_ORIGIN_LIBRARY, 0, NULL, api, NULL,
                         "%s: index %d is out of range (NVML sees %u GPU%s)", api, index, n, n == 1 ? "" : "s");
    else
        st = read_device((unsigned int)index, &info, api);
    nvml.shutdown();
    if (st != CUDYN_OK)
        return st;
    copy_out(out, &info);
    return CUDYN_OK;
}

/* The UUID without its "GPU-" or "MIG-" prefix: cudyn_device_info writes
 * every UUID with "GPU-", NVML a MIG instance's with "MIG-". */
static const char *uuid_body(const char *uuid)
{
    return strncmp(uuid, "GPU-", 4) == 0 || strncmp(uuid, "MIG-", 4) == 0 ? uuid + 4 : uuid;
}

int cudyn__nvml_device_by_uuid(const char *uuid, struct cudyn_nvml_device *out, const char *api)
{
    unsigned int n = 0;
    int st = start(api, &n);
    if (st != CUDYN_OK)
        return st;
    struct cudyn_nvml_device info;
    bool found = false;
    for (unsigned int i = 0; i < n && st == CUDYN_OK && !found; i++) {
        memset(&info, 0, sizeof info);
        st = read_device(i, &info, api);
        found = st == CUDYN_OK && strcasecmp(uuid_body(info.uuid), uuid_body(uuid)) == 0;
        for (int m = 0; st == CUDYN_OK && !found && m < info.mig_count; m++)
            found = strcasecmp(uuid_body(info.mig_uuids[m]), uuid_body(uuid)) == 0;
    }
    nvml.shutdown();
    if (st != CUDYN_OK)
        return st;
    if (!found)
        return cudyn__fail(CUDYN_ERROR_NOT_FOUND, CUDYN_ORIGIN_LIBRARY, 0, NULL, api,
                           "NVML and CUDA of one driver see the same GPUs; compare cudainfo --nvml with cudainfo",
                           "%s: %s is none of the %u GPU%s NVML sees, nor one of their MIG instances", api, uuid, n,
                           n == 1 ? "" : "s");
    copy_out(out, &info);
    return CUDYN_OK;
}
