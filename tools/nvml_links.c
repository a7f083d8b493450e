/*
 * nvml_links.c - see nvml_links.h.
 *
 * For each GPU, NVML says which of its NVLink links are active and the PCI
 * bus id at the other end of each.  That end is either another GPU (a
 * direct link, as with a bridge) or an NVSwitch (HGX boards: every GPU has
 * all its links to switches, and any two GPUs reach each other over them).
 * A remote end NVML does not know as a GPU is taken for a switch; two GPUs
 * that both reach switches are linked by as many links as the fewer of the
 * two has, which is what nvidia-smi topo -m shows (NV18 between two H200s
 * of an HGX board).
 */
#include "config.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device_select.h"
#include "nvml_links.h"

/* The few NVML declarations used, as nvml.h has them. */
typedef int nvml_return;
typedef struct nvml_device_st *nvml_device;
#define NVML_SUCCESS 0
#define NVML_ERROR_INVALID_ARGUMENT 2 /* e.g. a link index beyond the device's */
#define NVML_FEATURE_ENABLED 1
typedef struct {
    char bus_id_legacy[16];
    unsigned int domain, bus, device, pci_device_id, pci_subsystem_id;
    char bus_id[32];
} nvml_pci_info; /* nvmlPciInfo_t */

struct nvml {
    nvml_return (*init)(void);
    nvml_return (*shutdown)(void);
    nvml_return (*by_bus_id)(const char *bus_id, nvml_device *dev);
    nvml_return (*link_state)(nvml_device dev, unsigned int link, int *active);
    nvml_return (*remote_pci)(nvml_device dev, unsigned int link, nvml_pci_info *pci);
};

/* More than any GPU has (18 on Hopper and Blackwell); NVML answers
 * "invalid argument" past the last link of a device. */
#define MAX_LINKS 64

static const char *nvml_library(void)
{
    /* CUDYN_LIBNVML, the library's choice (cudyn_nvml_*), unless told
     * otherwise: --p2p and --nvml then read the same NVML */
    static const char *const vars[] = {"CUDAINFO_NVML", "CUDYN_LIBNVML"};
    for (int i = 0; i < 2; i++) {
#if defined(HAVE_SECURE_GETENV)
        const char *v = secure_getenv(vars[i]);
#else
        const char *v = getenv(vars[i]);
#endif
        if (v && v[0])
            return v;
    }
    return "libnvidia-ml.so.1";
}

/* Opens NVML and binds the functions used; false with t->why if it cannot.
 * The library stays loaded (as libraries do in cudyn): NVML keeps threads. */
static bool open_nvml(struct nvml *nv, struct nvlink_topology *t)
{
    const char *library = nvml_library();
    snprintf(t->library, sizeof t->library, "%s", library);
    void *h = dlopen(library, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char *e = dlerror();
        snprintf(t->why, sizeof t->why, "NVML not available: %s", e ? e : t->library);
        return false;
    }
    static const char *const names[] = {"nvmlInit_v2", "nvmlShutdown", "nvmlDeviceGetHandleByPciBusId_v2",
                                        "nvmlDeviceGetNvLinkState", "nvmlDeviceGetNvLinkRemotePciInfo_v2"};
    void *fns[5];
    for (int i = 0; i < 5; i++)
        if (!(fns[i] = dlsym(h, names[i]))) {
            snprintf(t->why, sizeof t->why, "%s has no %s", t->library, names[i]);
            return false;
        }
    /* object to function pointer: POSIX dlsym's documented use */
    memcpy(&nv->init, &fns[0], sizeof fns[0]);
    memcpy(&nv->shutdown, &fns[1], sizeof fns[1]);
    memcpy(&nv->by_bus_id, &fns[2], sizeof fns[2]);
    memcpy(&nv->link_state, &fns[3], sizeof fns[3]);
    memcpy(&nv->remote_pci, &fns[4], sizeof fns[4]);
    nvml_return r = nv->init();
    if (r != NVML_SUCCESS) {
        snprintf(t->why, sizeof t->why, "nvmlInit_v2 returned %d", r);
        return false;
    }
    return true;
}

/* Counts device `row`'s active links: to each of the devices (direct[])
 * and to switches.  False if NVML does not know the device. */
static bool count_links(const struct nvml *nv, const char *const *ids, int n, int row, int *direct, int *switched)
{
    nvml_device dev;
    if (nv->by_bus_id(ids[row], &dev) != NVML_SUCCESS)
        return false;
    for (unsigned int link = 0; link < MAX_LINKS; link++) {
        int active = 0;
        nvml_pci_info remote;
        if (nv->link_state(dev, link, &active) != NVML_SUCCESS)
            break; /* past the last link, or no NVLink at all */
        if (active != NVML_FEATURE_ENABLED || nv->remote_pci(dev, link, &remote) != NVML_SUCCESS)
            continue;
        remote.bus_id[sizeof remote.bus_id - 1] = '\0';
        int peer = -1;
        for (int j = 0; j < n && peer < 0; j++)
            if (pci_bus_id_equal(remote.bus_id, ids[j]))
                peer = j;
        nvml_device other;
        if (peer >= 0)
            direct[peer]++;
        else if (nv->by_bus_id(remote.bus_id, &other) != NVML_SUCCESS)
            (*switched)++; /* not a GPU: an NVSwitch */
        /* else a GPU cudyn does not show (CUDA_VISIBLE_DEVICES) */
    }
    return true;
}

/* Fills the matrix from the per-device counts; -1 rows stay unknown. */
static void combine(struct nvlink_topology *t, const int *direct, const int *switched, const bool *seen)
{
    int n = t->n;
    for (int a = 0; a < n; a++)
        for (int b = 0; b < n; b++) {
            int *cell = &t->links[a * n + b];
            if (!seen[a] || !seen[b] || a == b) {
                *cell = seen[a] && seen[b] ? 0 : -1;
                continue;
            }
            int via_switch = switched[a] < switched[b] ? switched[a] : switched[b];
            *cell = direct[a * n + b] + via_switch;
        }
}

bool nvlink_topology(struct nvlink_topology *t, const char *const *ids, int n)
{
    memset(t, 0, sizeof *t);
    t->n = n;
    t->links = malloc(sizeof *t->links * (size_t)(n > 0 ? n * n : 1));
    int *direct = calloc((size_t)(n > 0 ? n * n : 1), sizeof *direct);
    int *switched = calloc((size_t)(n > 0 ? n : 1), sizeof *switched);
    bool *seen = calloc((size_t)(n > 0 ? n : 1), sizeof *seen);
    bool ok = t->links && direct && switched && seen;
    if (!ok)
        snprintf(t->why, sizeof t->why, "out of host memory");
    for (int i = 0; ok && i < n * n; i++)
        t->links[i] = -1;
    struct nvml nv;
    if (ok && open_nvml(&nv, t)) {
        t->known = true;
        for (int a = 0; a < n; a++)
            seen[a] = count_links(&nv, ids, n, a, &direct[a * n], &switched[a]);
        combine(t, direct, switched, seen);
        nv.shutdown();
    }
    free(direct);
    free(switched);
    free(seen);
    return ok;
}

int nvlink_links(const struct nvlink_topology *t, int a, int b)
{
    if (!t->links || a < 0 || b < 0 || a >= t->n || b >= t->n)
        return -1;
    return t->links[a * t->n + b];
}

void nvlink_topology_free(struct nvlink_topology *t)
{
    free(t->links);
    t->links = NULL;
}
