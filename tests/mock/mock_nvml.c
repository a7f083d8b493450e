/*
 * mock_nvml.c - a fake libnvidia-ml.so.1 with the functions cudainfo uses
 * for NVLink (tools/nvml_links.c) and those cudyn_nvml_* use
 * (lib/loader/nvml.c), for tests/check-cudainfo.sh and check-nvml.sh.
 * Never installed.  Any other NVML function is absent (dlsym fails).
 *
 * Its GPUs are those of the CUDA mock: one per name in MOCK_CUDA_DEVICES
 * (default one, "Mock GPU"), at PCI bus 0x17, 0x18, ... with the UUIDs and
 * memory (MOCK_CUDA_MEM_LIMIT) the CUDA mock reports for the same index.
 *   MOCK_NVML_GPUS=N     NVML sees N GPUs instead: those past the CUDA
 *                        mock's are "Mock GPU" (what CUDA_VISIBLE_DEVICES
 *                        hides from CUDA; the CUDA mock ignores it, so a
 *                        test lists only the visible ones there)
 *   MOCK_NVML_MIG=G:K,.. GPU G is in MIG mode with K instances (UUIDs
 *                        "MIG-<G><K>..."); the other GPUs have MIG off.
 *                        Unset: no GPU supports MIG (NOT_SUPPORTED)
 *   MOCK_NVML_CPUS=G:LIST;..  nvmlDeviceGetCpuAffinity of GPU G names the
 *                        CPUs of LIST, in the kernel's cpulist form
 *                        ("0-3,8"; empty: NVML names no CPU).  GPUs not
 *                        listed, and all when unset: NOT_SUPPORTED (NVML
 *                        cannot tell, as in many VMs).  A LIST it cannot
 *                        parse, or a CPU past the caller's mask, is refused
 *                        on stderr (NVML_ERROR_UNKNOWN).  Built with
 *                        MOCK_NVML_WITHOUT_AFFINITY (tests/mock/nvml_old/),
 *                        the library has no such function, as an old
 *                        driver's
 *   MOCK_NVML_FAIL=FN[:CODE]  function FN returns CODE (default 999,
 *                        NVML_ERROR_UNKNOWN)
 *   MOCK_NVML=direct:N   GPUs 0-1, 2-3, ... are joined by N links each
 *   MOCK_NVML=switch:N   every GPU has N links to an NVSwitch (bus 0xc0)
 *   MOCK_NVML=none       no NVLink (every link query: not supported)
 *   MOCK_NVML=fail       nvmlInit_v2 fails (as without a loaded driver)
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int nvml_return;
#define NVML_SUCCESS 0
#define NVML_ERROR_UNINITIALIZED 1
#define NVML_ERROR_INVALID_ARGUMENT 2
#define NVML_ERROR_NOT_SUPPORTED 3
#define NVML_ERROR_NOT_FOUND 6
#define NVML_ERROR_DRIVER_NOT_LOADED 9
#define LINKS 18 /* as a Hopper GPU */
#define SWITCH_BUS 0xc0

typedef struct {
    char bus_id_legacy[16];
    unsigned int domain, bus, device, pci_device_id, pci_subsystem_id;
    char bus_id[32];
} nvml_pci_info;

/* A device handle is its index + 1, so that NULL is never one. */
typedef uintptr_t nvml_device;

static int n_cuda_gpus(void)
{
    const char *v = getenv("MOCK_CUDA_DEVICES");
    if (!v || !v[0])
        return 1;
    if (strcmp(v, "none") == 0)
        return 0;
    int n = 1;
    for (; *v; v++)
        n += *v == ',';
    return n;
}

static int n_gpus(void)
{
    const char *v = getenv("MOCK_NVML_GPUS");
    return v && v[0] ? atoi(v) : n_cuda_gpus();
}

/* "direct" or "switch" and the link count, from MOCK_NVML. */
static const char *mode(int *links)
{
    const char *v = getenv("MOCK_NVML");
    *links = 0;
    if (!v)
        return "none";
    const char *colon = strchr(v, ':');
    if (colon)
        *links = atoi(colon + 1);
    return v;
}

nvml_return nvmlInit_v2(void);
nvml_return nvmlShutdown(void);
nvml_return nvmlDeviceGetHandleByPciBusId_v2(const char *bus_id, nvml_device *dev);
nvml_return nvmlDeviceGetNvLinkState(nvml_device dev, unsigned int link, int *active);
nvml_return nvmlDeviceGetNvLinkRemotePciInfo_v2(nvml_device dev, unsigned int link, nvml_pci_info *pci);

/* MOCK_NVML_FAIL's code for function fn, NVML_SUCCESS if it names another. */
static nvml_return injected(const char *fn)
{
    const char *v = getenv("MOCK_NVML_FAIL");
    size_t n = strlen(fn);
    if (!v || strncmp(v, fn, n) != 0 || (v[n] != '\0' && v[n] != ':'))
        return NVML_SUCCESS;
    return v[n] == ':' ? atoi(v + n + 1) : 999;
}

nvml_return nvmlInit_v2(void)
{
    int links;
    if (injected("nvmlInit_v2"))
        return injected("nvmlInit_v2");
    return strncmp(mode(&links), "fail", 4) == 0 ? NVML_ERROR_DRIVER_NOT_LOADED : NVML_SUCCESS;
}

nvml_return nvmlShutdown(void)
{
    return NVML_SUCCESS;
}

nvml_return nvmlDeviceGetHandleByPciBusId_v2(const char *bus_id, nvml_device *dev)
{
    unsigned int domain, bus, device, function;
    if (!bus_id || !dev || sscanf(bus_id, "%x:%x:%x.%x", &domain, &bus, &device, &function) != 4)
        return NVML_ERROR_INVALID_ARGUMENT;
    if (domain != 0 || device != 0 || bus < 0x17 || bus >= 0x17u + (unsigned)n_gpus())
        return NVML_ERROR_NOT_FOUND;
    *dev = bus - 0x17 + 1;
    return NVML_SUCCESS;
}

nvml_return nvmlDeviceGetNvLinkState(nvml_device dev, unsigned int link, int *active)
{
    int links;
    const char *m = mode(&links);
    if (!dev || dev > (nvml_device)n_gpus() || !active)
        return NVML_ERROR_INVALID_ARGUMENT;
    if (link >= LINKS)
        return NVML_ERROR_INVALID_ARGUMENT;
    if (strncmp(m, "direct", 6) != 0 && strncmp(m, "switch", 6) != 0)
        return NVML_ERROR_NOT_SUPPORTED;
    int gpu = (int)dev - 1;
    int partnered = strncmp(m, "switch", 6) == 0 || (gpu ^ 1) < n_gpus();
    *active = partnered && link < (unsigned)links;
    return NVML_SUCCESS;
}

nvml_return nvmlDeviceGetNvLinkRemotePciInfo_v2(nvml_device dev, unsigned int link, nvml_pci_info *pci)
{
    int active = 0, links;
    nvml_return r = nvmlDeviceGetNvLinkState(dev, link, &active);
    if (r != NVML_SUCCESS)
        return r;
    if (!active || !pci)
        return NVML_ERROR_INVALID_ARGUMENT;
    int gpu = (int)dev - 1;
    unsigned int bus = strncmp(mode(&links), "switch", 6) == 0 ? SWITCH_BUS : 0x17u + (unsigned)(gpu ^ 1);
    memset(pci, 0, sizeof *pci);
    pci->bus = bus;
    snprintf(pci->bus_id, sizeof pci->bus_id, "00000000:%02X:00.0", bus);
    snprintf(pci->bus_id_legacy, sizeof pci->bus_id_legacy, "0000:%02X:00.0", bus);
    return NVML_SUCCESS;
}

/* ---- the GPU listing of cudyn_nvml_* ---- */

/* A MIG instance's handle: GPU handle + MIG_HANDLE * (instance + 1). */
#define MIG_HANDLE 0x1000u
#define NVML_ERROR_INSUFFICIENT_SIZE 7

typedef struct {
    unsigned long long total, free, used;
} nvml_memory;

nvml_return nvmlDeviceGetCount_v2(unsigned int *count);
nvml_return nvmlDeviceGetHandleByIndex_v2(unsigned int index, nvml_device *dev);
nvml_return nvmlDeviceGetUUID(nvml_device dev, char *uuid, unsigned int len);
nvml_return nvmlDeviceGetPciInfo_v3(nvml_device dev, nvml_pci_info *pci);
nvml_return nvmlDeviceGetName(nvml_device dev, char *name, unsigned int len);
nvml_return nvmlDeviceGetMemoryInfo(nvml_device dev, nvml_memory *mem);
nvml_return nvmlDeviceGetMigMode(nvml_device dev, unsigned int *current, unsigned int *pending);
nvml_return nvmlDeviceGetMaxMigDeviceCount(nvml_device dev, unsigned int *count);
nvml_return nvmlDeviceGetMigDeviceHandleByIndex(nvml_device dev, unsigned int index, nvml_device *mig);
nvml_return nvmlSystemGetDriverVersion(char *version, unsigned int len);
const char *nvmlErrorString(nvml_return r);

/* Starts each function: MOCK_NVML_FAIL, then a GPU handle check. */
#define ENTER_GPU(fn, dev)                                                                                     \
    do {                                                                                                       \
        if (injected(fn))                                                                                      \
            return injected(fn);                                                                               \
        if ((dev) == 0 || (dev) > (nvml_device)n_gpus())                                                       \
            return NVML_ERROR_INVALID_ARGUMENT;                                                                \
    } while (0)

/* MIG instances of GPU gpu (0-based) in MOCK_NVML_MIG; -1 if MIG is not
 * supported at all (MOCK_NVML_MIG unset). */
static int mig_instances(int gpu)
{
    const char *v = getenv("MOCK_NVML_MIG");
    if (!v)
        return -1;
    while (*v) {
        int g = -1, k = 0;
        if (sscanf(v, "%d:%d", &g, &k) == 2 && g == gpu)
            return k > 7 ? 7 : k;
        const char *comma = strchr(v, ',');
        if (!comma)
            break;
        v = comma + 1;
    }
    return 0;
}

nvml_return nvmlDeviceGetCount_v2(unsigned int *count)
{
    if (injected("nvmlDeviceGetCount_v2"))
        return injected("nvmlDeviceGetCount_v2");
    if (!count)
        return NVML_ERROR_INVALID_ARGUMENT;
    *count = (unsigned int)n_gpus();
    return NVML_SUCCESS;
}

nvml_return nvmlDeviceGetHandleByIndex_v2(unsigned int index, nvml_device *dev)
{
    if (injected("nvmlDeviceGetHandleByIndex_v2"))
        return injected("nvmlDeviceGetHandleByIndex_v2");
    if (!dev || index >= (unsigned int)n_gpus())
        return NVML_ERROR_INVALID_ARGUMENT;
    *dev = index + 1;
    return NVML_SUCCESS;
}

nvml_return nvmlDeviceGetUUID(nvml_device dev, char *uuid, unsigned int len)
{
    nvml_device gpu = dev % MIG_HANDLE;
    unsigned int mig = (unsigned int)(dev / MIG_HANDLE);
    ENTER_GPU("nvmlDeviceGetUUID", gpu);
    if (!uuid)
        return NVML_ERROR_INVALID_ARGUMENT;
    unsigned int b = 0x10u * (unsigned int)gpu; /* the CUDA mock's bytes: 0x10 * (index + 1) + i */
    char text[96];
    if (mig)
        snprintf(text, sizeof text, "MIG-%02x%02x0000-0000-0000-0000-000000000000", (unsigned)gpu - 1, mig - 1);
    else
        snprintf(text, sizeof text, "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b,
                 b + 1, b + 2, b + 3, b + 4, b + 5, b + 6, b + 7, b + 8, b + 9, b + 10, b + 11, b + 12, b + 13,
                 b + 14, b + 15);
    if (strlen(text) >= len)
        return NVML_ERROR_INSUFFICIENT_SIZE;
    memcpy(uuid, text, strlen(text) + 1);
    return NVML_SUCCESS;
}

nvml_return nvmlDeviceGetPciInfo_v3(nvml_device dev, nvml_pci_info *pci)
{
    ENTER_GPU("nvmlDeviceGetPciInfo_v3", dev);
    if (!pci)
        return NVML_ERROR_INVALID_ARGUMENT;
    unsigned int bus = 0x17u + (unsigned int)dev - 1;
    memset(pci, 0, sizeof *pci);
    pci->bus = bus;
    pci->pci_device_id = 0x233010deu;
    snprintf(pci->bus_id, sizeof pci->bus_id, "00000000:%02X:00.0", bus);
    snprintf(pci->bus_id_legacy, sizeof pci->bus_id_legacy, "0000:%02X:00.0", bus);
    return NVML_SUCCESS;
}

nvml_return nvmlDeviceGetName(nvml_device dev, char *name, unsigned int len)
{
    ENTER_GPU("nvmlDeviceGetName", dev);
    if (!name || len == 0)
        return NVML_ERROR_INVALID_ARGUMENT;
    /* the CUDA mock's name for this index: MOCK_CUDA_DEVICES's entry, cc dropped */
    char buf[1024] = "Mock GPU";
    const char *v = getenv("MOCK_CUDA_DEVICES");
    int index = (int)dev - 1;
    if (v && v[0] && strcmp(v, "none") != 0 && index < n_cuda_gpus()) {
        for (int i = 0; i < index; i++)
            v = strchr(v, ',') + 1;
        snprintf(buf, sizeof buf, "%.*s", (int)strcspn(v, ","), v);
        char *colon = strrchr(buf, ':');
        if (colon)
            *colon = '\0';
    }
    if (strlen(buf) >= len)
        return NVML_ERROR_INSUFFICIENT_SIZE;
    memcpy(name, buf, strlen(buf) + 1);
    return NVML_SUCCESS;
}

nvml_return nvmlDeviceGetMemoryInfo(nvml_device dev, nvml_memory *mem)
{
    ENTER_GPU("nvmlDeviceGetMemoryInfo", dev);
    if (!mem)
        return NVML_ERROR_INVALID_ARGUMENT;
    const char *v = getenv("MOCK_CUDA_MEM_LIMIT");
    mem->total = v ? strtoull(v, NULL, 10) : 256ull << 20;
    mem->used = mem->total / 4;
    mem->free = mem->total - mem->used;
    return NVML_SUCCESS;
}

nvml_return nvmlDeviceGetMigMode(nvml_device dev, unsigned int *current, unsigned int *pending)
{
    ENTER_GPU("nvmlDeviceGetMigMode", dev);
    if (!current || !pending)
        return NVML_ERROR_INVALID_ARGUMENT;
    int k = mig_instances((int)dev - 1);
    if (k < 0)
        return NVML_ERROR_NOT_SUPPORTED;
    *current = *pending = k > 0;
    return NVML_SUCCESS;
}

nvml_return nvmlDeviceGetMaxMigDeviceCount(nvml_device dev, unsigned int *count)
{
    ENTER_GPU("nvmlDeviceGetMaxMigDeviceCount", dev);
    if (!count)
        return NVML_ERROR_INVALID_ARGUMENT;
    if (mig_instances((int)dev - 1) < 0)
        return NVML_ERROR_NOT_SUPPORTED;
    *count = 7; /* as an H100's */
    return NVML_SUCCESS;
}

/* Instances fill slots 0, 2, 4, ...: a real GPU's slots can have gaps. */
nvml_return nvmlDeviceGetMigDeviceHandleByIndex(nvml_device dev, unsigned int index, nvml_device *mig)
{
    ENTER_GPU("nvmlDeviceGetMigDeviceHandleByIndex", dev);
    if (!mig || index >= 7)
        return NVML_ERROR_INVALID_ARGUMENT;
    int k = mig_instances((int)dev - 1);
    if (k < 0)
        return NVML_ERROR_NOT_SUPPORTED;
    if (index % 2 != 0 || index / 2 >= (unsigned int)k)
        return NVML_ERROR_NOT_FOUND;
    *mig = dev + MIG_HANDLE * (index / 2 + 1);
    return NVML_SUCCESS;
}

nvml_return nvmlSystemGetDriverVersion(char *version, unsigned int len)
{
    if (injected("nvmlSystemGetDriverVersion"))
        return injected("nvmlSystemGetDriverVersion");
    if (!version || len < 10)
        return NVML_ERROR_INVALID_ARGUMENT;
    snprintf(version, len, "575.57.08");
    return NVML_SUCCESS;
}

#ifndef MOCK_NVML_WITHOUT_AFFINITY
#define NVML_ERROR_UNKNOWN 999

static nvml_return refuse(const char *what, const char *text)
{
    fprintf(stderr, "mock NVML: cannot emulate %s (MOCK_NVML_CPUS=\"%s\"); fix the test\n", what, text);
    return NVML_ERROR_UNKNOWN;
}

/* Sets the bits of cpulist text[0..len) ("0-3,8") in mask (words
 * unsigned longs); NVML_SUCCESS or a refusal. */
static nvml_return parse_cpulist(const char *text, size_t len, unsigned int words, unsigned long *mask,
                                 const char *whole)
{
    const size_t bits = 8 * sizeof *mask;
    const char *p = text, *end = text + len;
    while (p < end) {
        char *after;
        unsigned long first = strtoul(p, &after, 10), last = first;
        if (after == p || after > end)
            return refuse("a CPU list that is not of the form 0-3,8", whole);
        p = after;
        if (p < end && *p == '-') {
            last = strtoul(++p, &after, 10);
            if (after == p || after > end || last < first)
                return refuse("a CPU range that is not first-last with first <= last", whole);
            p = after;
        }
        if (last >= words * bits)
            return refuse("a CPU beyond the mask the caller passed", whole);
        for (unsigned long c = first; c <= last; c++)
            mask[c / bits] |= 1ul << (c % bits);
        if (p < end && *p++ != ',')
            return refuse("a CPU list that is not of the form 0-3,8", whole);
    }
    return NVML_SUCCESS;
}

nvml_return nvmlDeviceGetCpuAffinity(nvml_device dev, unsigned int words, unsigned long *mask);
nvml_return nvmlDeviceGetCpuAffinity(nvml_device dev, unsigned int words, unsigned long *mask)
{
    ENTER_GPU("nvmlDeviceGetCpuAffinity", dev);
    if (words == 0 || !mask)
        return NVML_ERROR_INVALID_ARGUMENT;
    const char *v = getenv("MOCK_NVML_CPUS");
    for (const char *entry = v; entry && *entry;) {
        size_t len = strcspn(entry, ";");
        char *colon;
        long gpu = strtol(entry, &colon, 10);
        if (colon == entry || *colon != ':' || (size_t)(colon - entry) >= len)
            return refuse("an entry that is not GPU:CPUS", v);
        if (gpu == (long)dev - 1) {
            memset(mask, 0, words * sizeof *mask);
            return parse_cpulist(colon + 1, len - (size_t)(colon + 1 - entry), words, mask, v);
        }
        entry += len + (entry[len] == ';');
    }
    return NVML_ERROR_NOT_SUPPORTED;
}
#endif

const char *nvmlErrorString(nvml_return r)
{
    switch (r) {
    case NVML_SUCCESS: return "Success";
    case NVML_ERROR_INVALID_ARGUMENT: return "Invalid Argument";
    case NVML_ERROR_NOT_SUPPORTED: return "Not Supported";
    case NVML_ERROR_NOT_FOUND: return "Not Found";
    case NVML_ERROR_DRIVER_NOT_LOADED: return "Driver Not Loaded";
    case 15: return "GPU is lost";
    default: return "Unknown Error";
    }
}
