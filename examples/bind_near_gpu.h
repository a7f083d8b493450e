/*
 * bind_near_gpu.h - for the MPI examples (one rank per GPU): binds every
 * thread of this process to the CPUs next to its GPU, so that its host
 * work and its copies run on the GPU's NUMA node.
 *
 * The CPUs are NVML's for the device (cudyn_nvml_device_for_ordinal,
 * cpu_affinity), intersected with the CPUs the process may already use: a
 * launcher's binding (mpirun --bind-to, srun --cpu-bind, Slurm's cgroups)
 * is only ever narrowed, never widened.  Where NVML cannot tell, or none
 * of its CPUs is allowed, nothing changes and the line says why.
 *
 * Linux only (sched_setaffinity); a program including this defines
 * _GNU_SOURCE before its first #include.  Header only: copy it with the
 * example.
 */
#ifndef BIND_NEAR_GPU_H
#define BIND_NEAR_GPU_H

#include <ctype.h>
#include <dirent.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cudyn.h>

/* The set as a cpulist, "0-3,8", in buf. */
static void cpu_list_text(const cpu_set_t *set, char *buf, size_t cap)
{
    size_t len = 0;
    buf[0] = '\0';
    for (int c = 0; c < CPU_SETSIZE; c++) {
        if (!CPU_ISSET(c, set))
            continue;
        int last = c;
        while (last + 1 < CPU_SETSIZE && CPU_ISSET(last + 1, set))
            last++;
        int n = last == c ? snprintf(buf + len, cap - len, "%s%d", len ? "," : "", c)
                          : snprintf(buf + len, cap - len, "%s%d-%d", len ? "," : "", c, last);
        if (n < 0 || (size_t)n >= cap - len)
            return; /* a long list stops where buf ends */
        len += (size_t)n;
        c = last;
    }
}

/* Binds every thread of this process to cpus, those the CUDA driver has
 * already started too (sched_setaffinity binds one thread; threads started
 * later inherit their creator's set).  Returns the threads it could not
 * bind. */
static int bind_all_threads(const cpu_set_t *cpus)
{
    DIR *tasks = opendir("/proc/self/task");
    if (!tasks)
        return sched_setaffinity(0, sizeof *cpus, cpus) == 0 ? 0 : 1;
    int failed = 0;
    struct dirent *e;
    while ((e = readdir(tasks)) != NULL)
        if (isdigit((unsigned char)e->d_name[0]) && sched_setaffinity(atoi(e->d_name), sizeof *cpus, cpus) != 0)
            failed++;
    closedir(tasks);
    return failed;
}

/*
 * Binds this process's threads to the CPUs next to CUDA device `ordinal`
 * (unless `enabled` is 0: --no-bind) and writes what it did into line,
 * for one line of output: "device 1, CPUs 16-31 (NVML affinity)", or the
 * CPUs it keeps and why it did not bind.  Returns 1 if it bound.
 */
static int bind_near_gpu(int ordinal, int enabled, char *line, size_t cap)
{
    cpu_set_t allowed, near, both;
    char allowed_text[512], near_text[512], both_text[512];
    CPU_ZERO(&allowed);
    if (sched_getaffinity(0, sizeof allowed, &allowed) != 0) {
        snprintf(line, cap, "device %d, not bound: sched_getaffinity failed", ordinal);
        return 0;
    }
    cpu_list_text(&allowed, allowed_text, sizeof allowed_text);
    if (!enabled) {
        snprintf(line, cap, "device %d, CPUs %s (not bound: --no-bind)", ordinal, allowed_text);
        return 0;
    }
    struct cudyn_nvml_device gpu = {.size = sizeof gpu};
    if (cudyn_nvml_device_for_ordinal(ordinal, &gpu) != CUDYN_OK) {
        cudyn_error e = {.size = sizeof e};
        cudyn_last_error(&e);
        snprintf(line, cap, "device %d, CPUs %s (not bound: %s)", ordinal, allowed_text, e.message);
        return 0;
    }
    if (gpu.cpu_affinity_status != CUDYN_OK) {
        snprintf(line, cap, "device %d, CPUs %s (not bound: %s)", ordinal, allowed_text,
                 gpu.cpu_affinity_status == CUDYN_ERROR_SYMBOL_NOT_FOUND
                     ? "this driver's NVML has no nvmlDeviceGetCpuAffinity"
                     : "NVML cannot tell which CPUs are next to this GPU");
        return 0;
    }
    CPU_ZERO(&near);
    for (int c = 0; c < CUDYN_NVML_MAX_CPUS && c < CPU_SETSIZE; c++)
        if ((gpu.cpu_affinity[c / CUDYN_NVML_CPU_WORD_BITS] >> (c % CUDYN_NVML_CPU_WORD_BITS)) & 1)
            CPU_SET(c, &near);
    CPU_AND(&both, &near, &allowed);
    cpu_list_text(&near, near_text, sizeof near_text);
    if (CPU_COUNT(&both) == 0) {
        snprintf(line, cap, "device %d, CPUs %s (not bound: NVML's CPUs %s are none of those this process may use)",
                 ordinal, allowed_text, near_text);
        return 0;
    }
    int failed = bind_all_threads(&both);
    cpu_set_t now;
    CPU_ZERO(&now);
    if (sched_getaffinity(0, sizeof now, &now) != 0 || !CPU_EQUAL(&now, &both)) {
        snprintf(line, cap, "device %d, CPUs %s (not bound: sched_setaffinity failed)", ordinal, allowed_text);
        return 0;
    }
    cpu_list_text(&both, both_text, sizeof both_text);
    char threads[64] = "";
    if (failed)
        snprintf(threads, sizeof threads, "; %d thread%s not bound", failed, failed == 1 ? "" : "s");
    char narrowed[600] = "";
    if (!CPU_EQUAL(&both, &near))
        snprintf(narrowed, sizeof narrowed, ", within the CPUs already allowed; NVML's: %s", near_text);
    snprintf(line, cap, "device %d, CPUs %s (NVML affinity%s%s)", ordinal, both_text, narrowed, threads);
    return 1;
}

#endif /* BIND_NEAR_GPU_H */
