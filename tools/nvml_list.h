/*
 * nvml_list.h - cudainfo's listing of the GPUs through NVML
 * (cudyn_nvml_device_info), without cuInit: asked for with --nvml, and
 * shown whenever the CUDA driver cannot initialise.  Each GPU and MIG
 * instance is matched to a CUDA ordinal by UUID; where the two sets
 * differ, `differs` says why.
 */
#ifndef CUDYN_NVML_LIST_H
#define CUDYN_NVML_LIST_H

#include <stdbool.h>

#include "cudyn.h"
#include "json.h"

struct nvml_gpu {
    struct cudyn_nvml_device info;
    int cuda_ordinal;                    /* -1: CUDA does not show the whole GPU */
    int mig_cuda_ordinal[CUDYN_NVML_MAX_MIG]; /* per MIG instance, -1 if not shown */
};

struct nvml_listing {
    bool gathered;
    int status;          /* CUDYN_OK, or why NVML could not list the GPUs */
    char why[1024];      /* the failure's message, when status != CUDYN_OK */
    int count;
    struct nvml_gpu *gpus;
    bool cuda_known;     /* the CUDA listing was there to compare with */
    char differs[1024];  /* why NVML's and CUDA's sets differ; "" if they agree */
};

/* Lists NVML's GPUs and matches them with CUDA's (cuda: n_cuda devices;
 * NULL when CUDA could not list them, cuda_failure then says why).
 * False only when out of host memory. */
bool nvml_listing_gather(struct nvml_listing *l, const struct cudyn_device_info *cuda, int n_cuda,
                         const char *cuda_failure);
void nvml_listing_print(const struct nvml_listing *l);
void nvml_listing_json(struct json *j, const struct nvml_listing *l);
void nvml_listing_free(struct nvml_listing *l);

#endif
