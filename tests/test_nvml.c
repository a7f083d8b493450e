/*
 * test_nvml.c - cudyn_nvml_* list the GPUs without touching the CUDA
 * driver: after them libcuda is still not loaded (so not initialised),
 * and a child forked afterwards initialises CUDA as a fresh process
 * would, not with CUDYN_ERROR_FORKED.  Runs on the CUDA and NVML mocks.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cudyn.h"
#include "testutil.h"

int main(void)
{
    use_mock_driver();
    const char *top = getenv("top_builddir");
    if (!top)
        TEST_SKIP("top_builddir not set (run through make check)");
    char path[4096];
    snprintf(path, sizeof path, "%s/tests/mock/nvml/.libs/libnvidia-ml.so.1", top);
    setenv("CUDYN_LIBNVML", path, 1);
    setenv("MOCK_CUDA_DEVICES", "A:90,B:80", 1);
    setenv("MOCK_NVML_MIG", "1:2", 1);

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
    return test_result("test_nvml");
}
