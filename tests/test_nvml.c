/*
 * test_nvml.c - cudyn_nvml_* list the GPUs without touching the CUDA
 * driver: after them libcuda is still not loaded (so not initialised),
 * and a child forked afterwards initialises CUDA as a fresh process
 * would, not with CUDYN_ERROR_FORKED.  The GPUs' CPU affinity: NVML's
 * answer, a GPU NVML cannot tell for, an NVML without the function, a
 * failure; and the NVML record of a CUDA ordinal, matched by UUID.  Runs
 * on the CUDA and NVML mocks.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cudyn.h"
#include "testutil.h"

/* Whether CPU c is in d's affinity mask. */
static int has_cpu(const struct cudyn_nvml_device *d, unsigned int c)
{
    return (d->cpu_affinity[c / CUDYN_NVML_CPU_WORD_BITS] >> (c % CUDYN_NVML_CPU_WORD_BITS)) & 1;
}

static int mask_is_empty(const struct cudyn_nvml_device *d)
{
    for (size_t w = 0; w < CUDYN_NVML_CPU_WORDS; w++)
        if (d->cpu_affinity[w])
            return 0;
    return 1;
}

/* In a process of its own (NVML is opened once): an NVML of a driver
 * without nvmlDeviceGetCpuAffinity lists the GPUs all the same. */
static int old_nvml(const char *top)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/tests/mock/nvml_old/.libs/libnvidia-ml.so.1", top);
    setenv("CUDYN_LIBNVML", path, 1);
    struct cudyn_nvml_device d = {.size = sizeof d};
    CHECK_STATUS(cudyn_nvml_device_info(0, &d), CUDYN_OK);
    CHECK(strcmp(d.name, "A") == 0);
    CHECK_EQ_INT(d.cpu_affinity_status, CUDYN_ERROR_SYMBOL_NOT_FOUND);
    CHECK_EQ_INT(d.cpu_count, 0);
    CHECK(mask_is_empty(&d));
    return test_result("test_nvml old-nvml");
}

/* CPU affinity through cudyn_nvml_device_info, NVML's indices. */
static void cpu_affinity(void)
{
    /* GPU 0 next to CPUs 2, 3, 64 and the last a mask holds; GPU 1 not
     * listed: NVML cannot tell */
    setenv("MOCK_NVML_CPUS", "0:2-3,64,1023", 1);
    struct cudyn_nvml_device d = {.size = sizeof d};
    CHECK_STATUS(cudyn_nvml_device_info(0, &d), CUDYN_OK);
    CHECK_EQ_INT(d.cpu_affinity_status, CUDYN_OK);
    CHECK_EQ_INT(d.cpu_count, 4);
    CHECK(has_cpu(&d, 2) && has_cpu(&d, 3) && has_cpu(&d, 64) && has_cpu(&d, CUDYN_NVML_MAX_CPUS - 1));
    CHECK(!has_cpu(&d, 0) && !has_cpu(&d, 1) && !has_cpu(&d, 4) && !has_cpu(&d, 63) && !has_cpu(&d, 65));
    CHECK_STATUS(cudyn_nvml_device_info(1, &d), CUDYN_OK);
    CHECK_EQ_INT(d.cpu_affinity_status, CUDYN_ERROR_NOT_SUPPORTED);
    CHECK_EQ_INT(d.cpu_count, 0);
    CHECK(mask_is_empty(&d));
    CHECK_EQ_INT(d.mig_count, 2); /* the rest of the record is there */

    /* NVML answers, naming no CPU: cannot tell either */
    setenv("MOCK_NVML_CPUS", "0:0-1;1:", 1);
    CHECK_STATUS(cudyn_nvml_device_info(1, &d), CUDYN_OK);
    CHECK_EQ_INT(d.cpu_affinity_status, CUDYN_ERROR_NOT_SUPPORTED);
    CHECK_EQ_INT(d.cpu_count, 0);
    CHECK_STATUS(cudyn_nvml_device_info(0, &d), CUDYN_OK);
    CHECK_EQ_INT(d.cpu_count, 2);

    /* another NVML failure fails the call, as any other field's */
    setenv("MOCK_NVML_FAIL", "nvmlDeviceGetCpuAffinity:15", 1);
    CHECK_STATUS(cudyn_nvml_device_info(0, &d), CUDYN_ERROR_DEVICE_UNAVAILABLE);
    cudyn_error e = {.size = sizeof e};
    cudyn_last_error(&e);
    CHECK_CONTAINS(e.message, "nvmlDeviceGetCpuAffinity returned 15 (NVML_ERROR_GPU_IS_LOST");
    unsetenv("MOCK_NVML_FAIL");
    /* what the mock cannot emulate it refuses (stderr), and the call fails */
    setenv("MOCK_NVML_CPUS", "0:3-1", 1);
    CHECK_STATUS(cudyn_nvml_device_info(0, &d), CUDYN_ERROR_DRIVER);
    setenv("MOCK_NVML_CPUS", "0:0-1", 1);
}

/* The NVML record of a CUDA ordinal (loads the CUDA driver). */
static void for_ordinal(void)
{
    struct cudyn_nvml_device d = {.size = sizeof d};
    setenv("MOCK_NVML_CPUS", "0:0;1:1", 1);
    CHECK_STATUS(cudyn_nvml_device_for_ordinal(1, &d), CUDYN_OK);
    CHECK_EQ_INT(d.index, 1);
    CHECK(strcmp(d.uuid, "GPU-20212223-2425-2627-2829-2a2b2c2d2e2f") == 0);
    CHECK_EQ_INT(d.cpu_affinity_status, CUDYN_OK);
    CHECK_EQ_INT(d.cpu_count, 1);
    CHECK(has_cpu(&d, 1) && !has_cpu(&d, 0));
    CHECK_STATUS(cudyn_nvml_device_for_ordinal(0, &d), CUDYN_OK);
    CHECK_EQ_INT(d.index, 0);
    CHECK(has_cpu(&d, 0) && !has_cpu(&d, 1));
    /* NVML sees only the first GPU: CUDA's second is none of NVML's */
    setenv("MOCK_NVML_GPUS", "1", 1);
    CHECK_STATUS(cudyn_nvml_device_for_ordinal(1, &d), CUDYN_ERROR_NOT_FOUND);
    cudyn_error e = {.size = sizeof e};
    cudyn_last_error(&e);
    CHECK_CONTAINS(e.message, "GPU-20212223-2425-2627-2829-2a2b2c2d2e2f is none of the 1 GPU NVML sees");
    unsetenv("MOCK_NVML_GPUS");
    CHECK_STATUS(cudyn_nvml_device_for_ordinal(2, &d), CUDYN_ERROR_INVALID_DEVICE);
}

int main(int argc, char **argv)
{
    use_mock_driver();
    const char *top = getenv("top_builddir");
    if (!top)
        TEST_SKIP("top_builddir not set (run through make check)");
    setenv("MOCK_CUDA_DEVICES", "A:90,B:80", 1);
    setenv("MOCK_NVML_MIG", "1:2", 1);
    if (argc > 1 && strcmp(argv[1], "old-nvml") == 0)
        return old_nvml(top);
    CHECK_EQ_INT(run_self(argv[0], "old-nvml"), 0);
    char path[4096];
    snprintf(path, sizeof path, "%s/tests/mock/nvml/.libs/libnvidia-ml.so.1", top);
    setenv("CUDYN_LIBNVML", path, 1);

    int n = -1;
    CHECK_STATUS(cudyn_nvml_device_count(&n), CUDYN_OK);
    CHECK_EQ_INT(n, 2);
    struct cudyn_nvml_device d = {.size = sizeof d};
    CHECK_STATUS(cudyn_nvml_device_info(1, &d), CUDYN_OK);
    CHECK(strcmp(d.name, "B") == 0);
    CHECK(strcmp(d.uuid, "GPU-20212223-2425-2627-2829-2a2b2c2d2e2f") == 0);
    CHECK(strcmp(d.pci_bus_id, "0000:18:00.0") == 0);
    CHECK_EQ_INT(d.pci_bus, 0x18);
    CHECK(d.total_memory == 256u << 20);
    CHECK_EQ_INT(d.mig_mode, 1);
    CHECK_EQ_INT(d.mig_count, 2);
    CHECK(strcmp(d.mig_uuids[1], "MIG-01010000-0000-0000-0000-000000000000") == 0);
    CHECK(strcmp(d.driver_version, "575.57.08") == 0);
    cpu_affinity();

    /* the CUDA driver was never loaded */
    struct cudyn_loader_info li = {.size = sizeof li};
    CHECK_STATUS(cudyn_loader_info_ex(&li, CUDYN_LOAD_NOTHING), CUDYN_OK);
    CHECK_EQ_INT(li.driver_status, CUDYN_ERROR_NOT_READY);

    /* a child may use CUDA */
    fflush(NULL);
    pid_t child = fork();
    if (child == 0) {
        int count = 0;
        int st = cudyn_init(0);
        _exit(st == CUDYN_OK && cudyn_device_count(&count) == CUDYN_OK && count == 2 ? 0 : 1);
    }
    CHECK(child > 0);
    int status = 0;
    CHECK(waitpid(child, &status, 0) == child);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    for_ordinal();
    return test_result("test_nvml");
}
