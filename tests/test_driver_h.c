/*
 * test_driver_h.c - built only with CUDA headers (--with-cuda): code
 * written against <cuda.h> gets typed entry points of the driver cudyn
 * loaded through <cudyn/driver.h>, and runs them (on the mock driver).
 */
#include "config.h"

#include <cudyn/driver.h>

#include "testutil.h"

int main(void)
{
    use_mock_driver();
    CHECK_STATUS(cudyn_device_use(0), CUDYN_OK); /* a current context for the raw calls */
    PFN_cuMemAlloc_v3020 mem_alloc = CUDYN_DRIVER_PROC(cuMemAlloc, 3020);
    PFN_cuMemFree_v3020 mem_free = CUDYN_DRIVER_PROC(cuMemFree, 3020);
    PFN_cuDeviceGetCount_v2000 device_count = CUDYN_DRIVER_PROC(cuDeviceGetCount, 2000);
    CHECK(mem_alloc && mem_free && device_count);
    if (!mem_alloc || !mem_free || !device_count)
        return test_result("test_driver_h");
    CUdeviceptr p = 0;
    CHECK_EQ_INT(mem_alloc(&p, 4096), CUDA_SUCCESS);
    CHECK(p != 0);
    CHECK_EQ_INT(cudyn_memset_d32(p, 7, 1024), CUDYN_OK); /* the same context and memory as cudyn's */
    CHECK_EQ_INT(mem_free(p), CUDA_SUCCESS);
    int n = 0;
    CHECK_EQ_INT(device_count(&n), CUDA_SUCCESS);
    CHECK_EQ_INT(n, 1);
    /* asking above the driver's version is refused, not answered with a
     * variant of another signature */
    CHECK(CUDYN_DRIVER_PROC(cuCtxCreate, 12050) != NULL); /* the mock is CUDA 13.0 */
    CHECK(cudyn_driver_proc("cuCtxCreate", 99000) == NULL);
    CHECK_EQ_INT(cudyn_last_error(NULL), CUDYN_ERROR_DRIVER_TOO_OLD);
    return test_result("test_driver_h");
}
