/*
 * dynamic_parallelism.c - a kernel that launches kernels (CUDA dynamic
 * parallelism) with cudyn: compiled by NVRTC as relocatable device code
 * (-rdc=true), linked with the CUDA toolkit's libcudadevrt.a by cudyn's
 * linker (nvJitLink, else the driver's), loaded and checked.  cudyn finds
 * libcudadevrt.a at run time (cudainfo --explain says where); without it
 * the program says where it looked and exits 77.
 * Build: cc dynamic_parallelism.c $(pkg-config --cflags --libs cudyn)
 */
#include <stdio.h>
#include <stdlib.h>

#include <cudyn.h>

/* Each parent thread launches its own grid of `fill`: 8 x 256 values. */
static const char source[] =
    "extern \"C\" __global__ void fill(int *out, int parent)\n"
    "{\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    out[i] = parent * 1000 + i;\n"
    "}\n"
    "extern \"C\" __global__ void parent(int *out)\n"
    "{\n"
    "    int t = threadIdx.x;\n"
    "    fill<<<4, 64>>>(out + t * 256, t);\n"
    "}\n";

#define PARENTS 8
#define PER_PARENT 256

static int fail(const char *what)
{
    cudyn_error e = {.size = sizeof e};
    cudyn_last_error(&e);
    fprintf(stderr, "dynamic_parallelism: %s failed: %s\n", what, e.message);
    return e.status == CUDYN_ERROR_NOT_FOUND ? 77 : 1; /* 77: no libcudadevrt.a here */
}

int main(void)
{
    const char *options[] = {"-rdc=true"};
    cudyn_program *prog = NULL;
    cudyn_linker *linker = NULL;
    cudyn_module module = NULL;
    cudyn_function parent = NULL;
    const void *image = NULL;
    size_t bytes = 0;
    if (cudyn_compile(&prog, source, "dynamic_parallelism.cu", 0, options, 1) != CUDYN_OK)
        return fail("compiling with -rdc=true");
    /* CUDYN_LINK_DEVRT adds libcudadevrt.a, which device-side launches need */
    if (cudyn_link_create(&linker, 0, NULL, 0, CUDYN_LINK_DEVRT) != CUDYN_OK)
        return fail("making a linker with libcudadevrt.a");
    printf("linking with %s\n", cudyn_link_backend(linker));
    if (cudyn_link_add_program(linker, prog) != CUDYN_OK || cudyn_link_complete(linker, &image, &bytes) != CUDYN_OK)
        return fail("linking");
    if (cudyn_module_load_image_sized(&module, image, bytes) != CUDYN_OK ||
        cudyn_module_function(&parent, module, "parent") != CUDYN_OK)
        return fail("loading the linked image");

    cudyn_devptr out;
    int *host = calloc(PARENTS * PER_PARENT, sizeof *host);
    if (!host || cudyn_mem_alloc(&out, PARENTS * PER_PARENT * sizeof *host) != CUDYN_OK)
        return fail("allocating");
    void *args[] = {&out};
    if (cudyn_launch(parent, (cudyn_dim3){1, 1, 1}, (cudyn_dim3){PARENTS, 1, 1}, 0, NULL, args) != CUDYN_OK ||
        cudyn_synchronize() != CUDYN_OK)
        return fail("running the parent kernel");
    if (cudyn_memcpy_dtoh(host, out, PARENTS * PER_PARENT * sizeof *host) != CUDYN_OK)
        return fail("copying back");
    int wrong = 0;
    for (int t = 0; t < PARENTS; t++)
        for (int i = 0; i < PER_PARENT; i++)
            wrong += host[t * PER_PARENT + i] != t * 1000 + i;
    printf("%d parent threads launched %d grids, %d values: %s\n", PARENTS, PARENTS, PARENTS * PER_PARENT,
           wrong ? "FAIL" : "PASS");

    free(host);
    cudyn_mem_free(out);
    cudyn_module_unload(module);
    cudyn_link_destroy(linker);
    cudyn_program_free(prog);
    return wrong ? 1 : 0;
}
