/*
 * mock_nvml.c - a fake libnvidia-ml.so.1 with the five functions cudainfo
 * uses for NVLink (tools/nvml_links.c), for tests/check-cudainfo.sh.
 * Never installed.
 *
 * Its GPUs are those of the CUDA mock: one per name in MOCK_CUDA_DEVICES
 * (default one), at PCI bus 0x17, 0x18, ... as the CUDA mock reports them.
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

static int n_gpus(void)
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

nvml_return nvmlInit_v2(void)
{
    int links;
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
