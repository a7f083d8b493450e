/*
 * big_shared.c - a kernel with 96 KiB of dynamic shared memory.  A launch
 * may use at most 48 KiB of dynamic shared memory unless the kernel opts
 * in to more (up to the device's max_shared_memory_per_block_optin).
 * cudyn's launches raise the limit by themselves, before the launch; this
 * example shows the driver's own way too: a cudyn_function is the
 * driver's CUfunction, so cuFuncSetAttribute, fetched through
 * cudyn_driver_proc, raises it directly, as code written for the driver
 * API does.
 *
 * Each block stages its slice of x in shared memory and sums it there.
 * Build: cc big_shared.c $(pkg-config --cflags --libs cudyn)
 */
#include <stdio.h>
#include <stdlib.h>

#include <cudyn.h>

static const char source[] =
    "extern \"C\" __global__ void block_sum(const float *x, float *sums, unsigned int per_block)\n"
    "{\n"
    "    extern __shared__ float stage[]; /* per_block floats, sized at launch */\n"
    "    const float *slice = x + (size_t)blockIdx.x * per_block;\n"
    "    for (unsigned int i = threadIdx.x; i < per_block; i += blockDim.x)\n"
    "        stage[i] = slice[i];\n"
    "    __syncthreads();\n"
    "    /* pairwise sums: the upper half onto the lower half until one is left */\n"
    "    for (unsigned int n = per_block; n > 1; n = (n + 1) / 2) {\n"
    "        unsigned int half = (n + 1) / 2;\n"
    "        for (unsigned int i = threadIdx.x; i < n - half; i += blockDim.x)\n"
    "            stage[i] += stage[i + half];\n"
    "        __syncthreads();\n"
    "    }\n"
    "    if (threadIdx.x == 0)\n"
    "        sums[blockIdx.x] = per_block ? stage[0] : 0.0f;\n"
    "}\n";

/*
 * cuFuncSetAttribute as CUDA 9.0 declares it in <cuda.h>, written out
 * because this program does without the CUDA headers (with them, use
 * <cudyn/driver.h> and PFN_cuFuncSetAttribute_v9000): CUresult and
 * CUfunction_attribute are C enums (int), a CUfunction is a pointer.
 */
typedef int (*func_set_attribute_fn)(void *function, int attribute, int value);
enum { CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8 }; /* cuda.h's value */

/* Says what failed and why (cudyn's message has a hint); returns 1. */
static int fail(const char *what)
{
    cudyn_error e = {.size = sizeof e};
    cudyn_last_error(&e);
    fprintf(stderr, "big_shared: %s failed: %s\n", what, e.message);
    return 1;
}

#define CHECK(call)                 \
    do {                            \
        if ((call) != CUDYN_OK)     \
            return fail(#call);     \
    } while (0)

int main(void)
{
    enum { PER_BLOCK = 96 * 1024 / sizeof(float), BLOCKS = 64 }; /* 96 KiB per block */
    const unsigned int shared = PER_BLOCK * sizeof(float);

    /* Can this GPU give a block that much?  (Volta and newer: yes.) */
    int device = 0, optin = 0;
    CHECK(cudyn_device_current(&device));
    CHECK(cudyn_device_attribute(device, CUDYN_ATTR_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, &optin));
    if ((unsigned int)optin < shared) {
        printf("big_shared: device %d allows %d bytes of shared memory per block, fewer than %u: SKIP\n", device,
               optin, shared);
        return 77;
    }

    cudyn_module mod;
    cudyn_function block_sum;
    CHECK(cudyn_module_load_source(&mod, source, NULL, 0));
    CHECK(cudyn_module_function(&block_sum, mod, "block_sum"));

    float *x = malloc(sizeof(float) * PER_BLOCK * BLOCKS), sums[BLOCKS];
    if (!x)
        return 1;
    for (size_t i = 0; i < (size_t)PER_BLOCK * BLOCKS; i++) /* small integers: every sum is exact */
        x[i] = (float)(i % 5);
    cudyn_devptr dx, dsums;
    CHECK(cudyn_mem_alloc(&dx, sizeof(float) * PER_BLOCK * BLOCKS));
    CHECK(cudyn_mem_alloc(&dsums, sizeof sums));
    CHECK(cudyn_memcpy_htod(dx, x, sizeof(float) * PER_BLOCK * BLOCKS));
    const cudyn_dim3 grid = {BLOCKS, 1, 1}, block = {1024, 1, 1};

    /* Raise it: the driver's own call on the native CUfunction.  9000 is
     * the CUDA version whose declaration of cuFuncSetAttribute we wrote
     * above; the driver hands out exactly that variant. */
    func_set_attribute_fn set_attribute = (func_set_attribute_fn)cudyn_driver_proc("cuFuncSetAttribute", 9000);
    if (!set_attribute)
        return fail("cudyn_driver_proc(\"cuFuncSetAttribute\", 9000)");
    int rc = set_attribute(cudyn_function_native(block_sum), CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                           (int)shared);
    if (rc != 0) { /* a raw call: its CUresult, not a cudyn status */
        fprintf(stderr, "big_shared: cuFuncSetAttribute returned CUresult %d\n", rc);
        return 1;
    }

    CHECK(cudyn_launchf(block_sum, grid, block, shared, NULL, "ppI", dx, dsums, (unsigned int)PER_BLOCK));
    CHECK(cudyn_memcpy_dtoh(sums, dsums, sizeof sums));

    int wrong = 0;
    for (int b = 0; b < BLOCKS; b++) {
        float want = 0.0f;
        for (size_t i = 0; i < PER_BLOCK; i++)
            want += x[(size_t)b * PER_BLOCK + i];
        wrong += sums[b] != want;
    }
    printf("block_sum with %u bytes of dynamic shared memory: %s\n", shared, wrong ? "FAIL" : "PASS");
    cudyn_mem_free(dx);
    cudyn_mem_free(dsums);
    cudyn_module_unload(mod);
    free(x);
    return wrong ? 1 : 0;
}
