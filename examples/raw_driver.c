/*
 * raw_driver.c - the cuda-python documentation's SAXPY written against the
 * driver API of <cuda.h>, as a `-lcuda` program would be, but linked with
 * -lcudyn only: every driver function is fetched from the driver cudyn
 * loaded, typed by <cudyn/driver.h>.  cudyn compiles the kernel (NVRTC,
 * for this GPU, cached) and provides the context; the rest is raw driver
 * calls, so existing driver-API code ports with few changes.
 *
 * Build (needs the CUDA headers, no CUDA library):
 *   cc raw_driver.c -I/usr/local/cuda/include $(pkg-config --cflags --libs cudyn)
 */
#include <stdio.h>
#include <stdlib.h>

#include <cudyn/driver.h> /* <cuda.h>, <cudaTypedefs.h> and <cudyn.h> */

static const char saxpy_source[] =
    "extern \"C\" __global__ void saxpy(float a, const float *x, const float *y, float *out, size_t n)\n"
    "{\n"
    "    for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)blockDim.x * gridDim.x)\n"
    "        out[i] = a * x[i] + y[i];\n"
    "}\n";

/*
 * Each entry point once, at the CUDA version whose declaration this code
 * calls (cudaTypedefs.h's PFN_<name>_v<version>): cuMemAlloc of CUDA 3.2
 * is the 64-bit cuMemAlloc_v2, cuStreamDestroy of 4.0 is cuStreamDestroy_v2.
 * The driver hands out exactly that variant, whatever its own version.
 * (The members are not named cuMemAlloc etc.: cuda.h defines those names
 * as macros for the _v2 functions.)
 */
static struct {
    PFN_cuGetErrorName_v6000 get_error_name;
    PFN_cuModuleLoadData_v2000 module_load_data;
    PFN_cuModuleGetFunction_v2000 module_get_function;
    PFN_cuModuleUnload_v2000 module_unload;
    PFN_cuMemAlloc_v3020 mem_alloc;
    PFN_cuMemFree_v3020 mem_free;
    PFN_cuStreamCreate_v2000 stream_create;
    PFN_cuStreamDestroy_v4000 stream_destroy;
    PFN_cuStreamSynchronize_v2000 stream_synchronize;
    PFN_cuMemcpyHtoDAsync_v3020 memcpy_htod_async;
    PFN_cuMemcpyDtoHAsync_v3020 memcpy_dtoh_async;
    PFN_cuLaunchKernel_v4000 launch_kernel;
} cu;

/* NULL from CUDYN_DRIVER_PROC: the driver lacks the function or is older
 * than the version asked for; cudyn's last error names it and says which. */
static int fetch_driver_functions(void)
{
    cu.get_error_name = CUDYN_DRIVER_PROC(cuGetErrorName, 6000);
    cu.module_load_data = CUDYN_DRIVER_PROC(cuModuleLoadData, 2000);
    cu.module_get_function = CUDYN_DRIVER_PROC(cuModuleGetFunction, 2000);
    cu.module_unload = CUDYN_DRIVER_PROC(cuModuleUnload, 2000);
    cu.mem_alloc = CUDYN_DRIVER_PROC(cuMemAlloc, 3020);
    cu.mem_free = CUDYN_DRIVER_PROC(cuMemFree, 3020);
    cu.stream_create = CUDYN_DRIVER_PROC(cuStreamCreate, 2000);
    cu.stream_destroy = CUDYN_DRIVER_PROC(cuStreamDestroy, 4000);
    cu.stream_synchronize = CUDYN_DRIVER_PROC(cuStreamSynchronize, 2000);
    cu.memcpy_htod_async = CUDYN_DRIVER_PROC(cuMemcpyHtoDAsync, 3020);
    cu.memcpy_dtoh_async = CUDYN_DRIVER_PROC(cuMemcpyDtoHAsync, 3020);
    cu.launch_kernel = CUDYN_DRIVER_PROC(cuLaunchKernel, 4000);
    if (cu.get_error_name && cu.module_load_data && cu.module_get_function && cu.module_unload && cu.mem_alloc &&
        cu.mem_free && cu.stream_create && cu.stream_destroy && cu.stream_synchronize && cu.memcpy_htod_async &&
        cu.memcpy_dtoh_async && cu.launch_kernel)
        return 0;
    cudyn_error e = {.size = sizeof e};
    cudyn_last_error(&e);
    fprintf(stderr, "raw_driver: a driver function is missing: %s\n", e.message);
    return 1;
}

/* cudyn calls: its status and message. */
#define CHECK(call)                                                              \
    do {                                                                         \
        if ((call) != CUDYN_OK) {                                                \
            cudyn_error e = {.size = sizeof e};                                  \
            cudyn_last_error(&e);                                                \
            fprintf(stderr, "raw_driver: %s failed: %s\n", #call, e.message);    \
            return 1;                                                            \
        }                                                                        \
    } while (0)

/* Raw driver calls: the CUresult, named by the driver. */
#define CU_CHECK(call)                                                                 \
    do {                                                                               \
        CUresult r_ = (call);                                                          \
        if (r_ != CUDA_SUCCESS) {                                                      \
            const char *name_ = NULL;                                                  \
            cu.get_error_name(r_, &name_);                                             \
            fprintf(stderr, "raw_driver: %s failed: %s (%d)\n", #call, name_ ? name_ : "?", (int)r_); \
            return 1;                                                                  \
        }                                                                              \
    } while (0)

int main(void)
{
    const unsigned int threads = 512, blocks = 32768;
    size_t n = (size_t)threads * blocks, bytes = n * sizeof(float);

    /* Instead of cuInit + cuDeviceGet + cuCtxCreate: cudyn loads the
     * driver, initialises it and makes device 0's primary context current
     * on this thread, the one the CUDA runtime would use. */
    CHECK(cudyn_device_use(0));
    if (fetch_driver_functions())
        return 1;

    /* Instead of nvrtcCreateProgram ... nvrtcGetCUBIN: one call, for this
     * device's compute capability, through the kernel cache. */
    cudyn_program *prog = NULL;
    CHECK(cudyn_compile(&prog, saxpy_source, "saxpy.cu", 0, NULL, 0));
    const void *image = cudyn_program_image(prog, NULL);

    /* From here on, the documentation's driver calls. */
    CUmodule module;
    CUfunction kernel;
    CU_CHECK(cu.module_load_data(&module, image));
    CU_CHECK(cu.module_get_function(&kernel, module, "saxpy"));

    float a = 2.0f, *x = malloc(bytes), *y = malloc(bytes), *out = malloc(bytes);
    if (!x || !y || !out)
        return 1;
    for (size_t i = 0; i < n; i++) { /* small integers: a * x + y is exact in float */
        x[i] = (float)(i % 1024);
        y[i] = (float)(i % 37);
    }

    CUdeviceptr dx, dy, dout;
    CUstream stream;
    CU_CHECK(cu.mem_alloc(&dx, bytes));
    CU_CHECK(cu.mem_alloc(&dy, bytes));
    CU_CHECK(cu.mem_alloc(&dout, bytes));
    CU_CHECK(cu.stream_create(&stream, 0));
    CU_CHECK(cu.memcpy_htod_async(dx, x, bytes, stream));
    CU_CHECK(cu.memcpy_htod_async(dy, y, bytes, stream));

    void *args[] = {&a, &dx, &dy, &dout, &n};
    CU_CHECK(cu.launch_kernel(kernel, blocks, 1, 1, threads, 1, 1, 0, stream, args, NULL));
    CU_CHECK(cu.memcpy_dtoh_async(out, dout, bytes, stream));
    CU_CHECK(cu.stream_synchronize(stream));

    size_t wrong = 0;
    for (size_t i = 0; i < n; i++)
        wrong += out[i] != a * x[i] + y[i];
    printf("saxpy through raw driver calls on %zu floats for %s: %s\n", n, cudyn_program_target(prog),
           wrong ? "FAIL" : "PASS");

    CU_CHECK(cu.stream_destroy(stream));
    CU_CHECK(cu.mem_free(dx));
    CU_CHECK(cu.mem_free(dy));
    CU_CHECK(cu.mem_free(dout));
    CU_CHECK(cu.module_unload(module));
    cudyn_program_free(prog); /* the module keeps its own copy of the image */
    free(x);
    free(y);
    free(out);
    return wrong ? 1 : 0;
}
