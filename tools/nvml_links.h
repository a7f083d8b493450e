/*
 * nvml_links.h - how many NVLink links join each pair of GPUs, as
 * `nvidia-smi topo -m` shows it ("NV18"), from NVML.
 *
 * NVML (libnvidia-ml.so.1) ships with the driver but is optional here: it is
 * opened by cudainfo alone, never by the library, and when it is absent or
 * does not answer, the links are "unknown", which is not an error.
 * CUDAINFO_NVML names another library to open instead (tests point it at a
 * fake, or at nothing), else CUDYN_LIBNVML, the library's own override for
 * cudyn_nvml_* (cudainfo --nvml), so that both read the same NVML.
 */
#ifndef CUDYN_NVML_LINKS_H
#define CUDYN_NVML_LINKS_H

#include <stdbool.h>

struct nvlink_topology {
    bool known;       /* NVML answered */
    char why[256];    /* why the links are unknown, when !known */
    char library[512]; /* the library asked for */
    int n;
    int *links;       /* n x n: links from row to column; -1 where unknown */
};

/* Fills *t for the devices with these PCI bus ids (as cudyn reports them).
 * Returns false only when out of memory. */
bool nvlink_topology(struct nvlink_topology *t, const char *const *pci_bus_ids, int n);
/* Links between devices a and b, -1 if unknown. */
int nvlink_links(const struct nvlink_topology *t, int a, int b);
void nvlink_topology_free(struct nvlink_topology *t);

#endif
