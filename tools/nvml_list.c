/*
 * nvml_list.c - see nvml_list.h.
 *
 * CUDA names a MIG instance by its own UUID ("MIG-..."; cudyn writes every
 * UUID with the "GPU-" prefix), so UUIDs are compared without the prefix.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nvml_list.h"

/* The UUID without its "GPU-" or "MIG-" prefix. */
static const char *uuid_body(const char *uuid)
{
    return strncmp(uuid, "GPU-", 4) == 0 || strncmp(uuid, "MIG-", 4) == 0 ? uuid + 4 : uuid;
}

static int cuda_ordinal_of(const char *uuid, const struct cudyn_device_info *cuda, int n_cuda)
{
    for (int i = 0; cuda && i < n_cuda; i++)
        if (strcasecmp(uuid_body(uuid), uuid_body(cuda[i].uuid_string)) == 0)
            return i;
    return -1;
}

static void append(char *buf, size_t cap, const char *text)
{
    size_t len = strlen(buf);
    snprintf(buf + len, cap - len, "%s%s", len ? "; " : "", text);
}

/* Why NVML's set and CUDA's differ, from what was matched. */
static void explain_difference(struct nvml_listing *l, int n_cuda, const char *cuda_failure)
{
    char text[512];
    if (!l->cuda_known) {
        snprintf(l->differs, sizeof l->differs, "CUDA cannot list the GPUs: %s",
                 cuda_failure ? cuda_failure : "cuInit failed");
        return;
    }
    int hidden = 0, mig_gpus = 0, matched = 0;
    for (int g = 0; g < l->count; g++) {
        const struct nvml_gpu *gpu = &l->gpus[g];
        bool shown = gpu->cuda_ordinal >= 0;
        for (int m = 0; m < gpu->info.mig_count; m++)
            shown |= gpu->mig_cuda_ordinal[m] >= 0;
        matched += gpu->cuda_ordinal >= 0;
        for (int m = 0; m < gpu->info.mig_count; m++)
            matched += gpu->mig_cuda_ordinal[m] >= 0;
        hidden += !shown;
        mig_gpus += gpu->info.mig_mode == 1;
    }
    const char *visible = getenv("CUDA_VISIBLE_DEVICES");
    if (hidden > 0) {
        snprintf(text, sizeof text, "%d GPU%s NVML sees %s not visible to CUDA%s%s%s", hidden,
                 hidden == 1 ? "" : "s", hidden == 1 ? "is" : "are", visible ? " (CUDA_VISIBLE_DEVICES=" : "",
                 visible ? visible : "", visible ? ")" : "");
        append(l->differs, sizeof l->differs, text);
    }
    if (mig_gpus > 0) {
        snprintf(text, sizeof text,
                 "%d GPU%s in MIG mode: CUDA shows MIG instances, not the GPU (a process uses one instance, "
                 "chosen by CUDA_VISIBLE_DEVICES=MIG-...)",
                 mig_gpus, mig_gpus == 1 ? " is" : "s are");
        append(l->differs, sizeof l->differs, text);
    }
    if (matched < n_cuda) {
        snprintf(text, sizeof text, "%d CUDA device%s not found by NVML UUID", n_cuda - matched,
                 n_cuda - matched == 1 ? "" : "s");
        append(l->differs, sizeof l->differs, text);
    }
}

bool nvml_listing_gather(struct nvml_listing *l, const struct cudyn_device_info *cuda, int n_cuda,
                         const char *cuda_failure)
{
    memset(l, 0, sizeof *l);
    l->gathered = true;
    l->cuda_known = cuda != NULL;
    cudyn_error e = {.size = sizeof e};
    l->status = cudyn_nvml_device_count(&l->count);
    if (l->status == CUDYN_OK && l->count > 0 && !(l->gpus = calloc((size_t)l->count, sizeof *l->gpus)))
        return false;
    for (int g = 0; l->status == CUDYN_OK && g < l->count; g++) {
        struct nvml_gpu *gpu = &l->gpus[g];
        gpu->info.size = sizeof gpu->info;
        l->status = cudyn_nvml_device_info(g, &gpu->info);
        gpu->cuda_ordinal = cuda_ordinal_of(gpu->info.uuid, cuda, n_cuda);
        for (int m = 0; m < CUDYN_NVML_MAX_MIG; m++)
            gpu->mig_cuda_ordinal[m] = m < gpu->info.mig_count ? cuda_ordinal_of(gpu->info.mig_uuids[m], cuda, n_cuda)
                                                              : -1;
    }
    if (l->status != CUDYN_OK) {
        cudyn_last_error(&e);
        snprintf(l->why, sizeof l->why, "%s", e.message);
        l->count = 0;
        return true;
    }
    explain_difference(l, n_cuda, cuda_failure);
    cudyn_clear_error(); /* NVML's answers are not the run's failure */
    return true;
}

/* The GPU's CPU affinity as a cpulist ("0-15,32-47") in buf; false, with
 * why it is not known in buf, when NVML cannot tell. */
static bool cpu_affinity_text(const struct cudyn_nvml_device *d, char *buf, size_t cap)
{
    if (d->cpu_affinity_status != CUDYN_OK) {
        snprintf(buf, cap, "%s", d->cpu_affinity_status == CUDYN_ERROR_SYMBOL_NOT_FOUND
                                     ? "this NVML has no nvmlDeviceGetCpuAffinity"
                                     : "NVML cannot tell");
        return false;
    }
    size_t len = 0;
    buf[0] = '\0';
    for (unsigned int c = 0; c < CUDYN_NVML_MAX_CPUS; c++) {
#define CPU_IN(c) ((d->cpu_affinity[(c) / CUDYN_NVML_CPU_WORD_BITS] >> ((c) % CUDYN_NVML_CPU_WORD_BITS)) & 1)
        if (!CPU_IN(c))
            continue;
        unsigned int last = c;
        while (last + 1 < CUDYN_NVML_MAX_CPUS && CPU_IN(last + 1))
            last++;
#undef CPU_IN
        int n = last == c ? snprintf(buf + len, cap - len, "%s%u", len ? "," : "", c)
                          : snprintf(buf + len, cap - len, "%s%u-%u", len ? "," : "", c, last);
        if (n < 0 || (size_t)n >= cap - len)
            break;
        len += (size_t)n;
        c = last;
    }
    return true;
}

static const char *mig_mode_text(int mode)
{
    return mode == 1 ? "enabled" : mode == 0 ? "disabled" : "not supported";
}

void nvml_listing_print(const struct nvml_listing *l)
{
    if (!l->gathered)
        return;
    if (l->status != CUDYN_OK) {
        printf("NVML: not available (%s)\n", l->why);
        return;
    }
    printf("NVML: %d GPU%s, driver %s (without cuInit)\n", l->count, l->count == 1 ? "" : "s",
           l->count > 0 ? l->gpus[0].info.driver_version : "unknown");
    for (int g = 0; g < l->count; g++) {
        const struct nvml_gpu *gpu = &l->gpus[g];
        const struct cudyn_nvml_device *d = &gpu->info;
        char ordinal[32] = "not visible";
        if (gpu->cuda_ordinal >= 0)
            snprintf(ordinal, sizeof ordinal, "%d", gpu->cuda_ordinal);
        else if (!l->cuda_known)
            snprintf(ordinal, sizeof ordinal, "unknown");
        printf("  [nvml %d] %s  %s  %s  %.1f GiB  MIG %s%s  CUDA ordinal: %s\n", d->index, d->name, d->uuid,
               d->pci_bus_id, (double)d->total_memory / (1024.0 * 1024.0 * 1024.0), mig_mode_text(d->mig_mode),
               d->mig_mode_pending >= 0 && d->mig_mode_pending != d->mig_mode ? " (pending change)" : "", ordinal);
        for (int m = 0; m < d->mig_count; m++) {
            snprintf(ordinal, sizeof ordinal, "%s", l->cuda_known ? "not visible" : "unknown");
            if (gpu->mig_cuda_ordinal[m] >= 0)
                snprintf(ordinal, sizeof ordinal, "%d", gpu->mig_cuda_ordinal[m]);
            printf("      MIG %d: %s  CUDA ordinal: %s\n", m, d->mig_uuids[m], ordinal);
        }
        char cpus[4096];
        if (cpu_affinity_text(d, cpus, sizeof cpus))
            printf("      CPU affinity: %s (%d CPU%s)\n", cpus, d->cpu_count, d->cpu_count == 1 ? "" : "s");
        else
            printf("      CPU affinity: unknown (%s)\n", cpus);
    }
    if (l->differs[0])
        printf("  NVML and CUDA differ: %s\n", l->differs);
}

void nvml_listing_json(struct json *j, const struct nvml_listing *l)
{
    if (!l->gathered)
        return;
    json_object_begin(j, "nvml");
    json_bool(j, "available", l->status == CUDYN_OK);
    json_string(j, "error", l->status == CUDYN_OK ? NULL : l->why);
    json_string(j, "driver_version", l->status == CUDYN_OK && l->count > 0 ? l->gpus[0].info.driver_version : NULL);
    json_array_begin(j, "gpus");
    for (int g = 0; g < l->count; g++) {
        const struct nvml_gpu *gpu = &l->gpus[g];
        const struct cudyn_nvml_device *d = &gpu->info;
        json_object_begin(j, NULL);
        json_int(j, "index", d->index);
        json_string(j, "name", d->name);
        json_string(j, "uuid", d->uuid);
        json_string(j, "pci_bus_id", d->pci_bus_id);
        json_uint(j, "total_memory", d->total_memory);
        json_uint(j, "free_memory", d->free_memory);
        json_string(j, "mig_mode", mig_mode_text(d->mig_mode));
        json_string(j, "mig_mode_pending", mig_mode_text(d->mig_mode_pending));
        json_int_or_null(j, "cuda_ordinal", gpu->cuda_ordinal >= 0, gpu->cuda_ordinal);
        char cpus[4096];
        json_string(j, "cpu_affinity", cpu_affinity_text(d, cpus, sizeof cpus) ? cpus : NULL);
        json_array_begin(j, "mig_instances");
        for (int m = 0; m < d->mig_count; m++) {
            json_object_begin(j, NULL);
            json_string(j, "uuid", d->mig_uuids[m]);
            json_int_or_null(j, "cuda_ordinal", gpu->mig_cuda_ordinal[m] >= 0, gpu->mig_cuda_ordinal[m]);
            json_object_end(j);
        }
        json_array_end(j);
        json_object_end(j);
    }
    json_array_end(j);
    json_string(j, "differs", l->differs[0] ? l->differs : NULL);
    json_object_end(j);
}

void nvml_listing_free(struct nvml_listing *l)
{
    free(l->gpus);
    l->gpus = NULL;
}
