/*
 * saxpy.c - the SAXPY of the cuda-python documentation, in C with cudyn:
 * compile a kernel string with NVRTC for this GPU, load it, move data,
 * launch, check, clean up.  Build: cc saxpy.c $(pkg-config --cflags --libs cudyn)
 */
#include <stdio.h>
#include <stdlib.h>

#include <cudyn.h>

static const char saxpy_source[] =
    "extern \"C\" __global__\n"
    "void saxpy(float a, float *x, float *y, float *out, size_t n)\n"
    "{\n"
    "    size_t tid = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (tid < n) {\n"
    "        out[tid] = a * x[tid] + y[tid];\n"
    "    }\n"
    "}\n";

/* On failure: say what failed and why (cudyn's message has a hint). */
#define CHECK(call)                                                           \
    do {                                                                      \
        if ((call) != CUDYN_OK) {                                             \
            cudyn_error e = {.size = sizeof e};                               \
            cudyn_last_error(&e);                                             \
            fprintf(stderr, "saxpy: %s failed: %s\n", #call, e.message);      \
            return 1;                                                         \
        }                                                                     \
    } while (0)

int main(void)
{
    const unsigned int threads = 512, blocks = 32768;
    const size_t n = (size_t)threads * blocks, bytes = n * sizeof(float);

    cudyn_program *prog = NULL;
    CHECK(cudyn_compile(&prog, saxpy_source, "saxpy.cu", 0, NULL, 0));
    cudyn_module module;
    cudyn_function saxpy;
    CHECK(cudyn_module_load(&module, prog));
    CHECK(cudyn_module_function(&saxpy, module, "saxpy"));

    float a = 2.0f, *x = malloc(bytes), *y = malloc(bytes), *out = malloc(bytes);
    if (!x || !y || !out)
        return 1;
    for (size_t i = 0; i < n; i++) { /* exact in float32, and not constant */
        x[i] = (float)(i % 1024);
        y[i] = (float)(i % 37);
    }

    cudyn_devptr dx, dy, dout;
    CHECK(cudyn_mem_alloc(&dx, bytes));
    CHECK(cudyn_mem_alloc(&dy, bytes));
    CHECK(cudyn_mem_alloc(&dout, bytes));
    CHECK(cudyn_memcpy_htod(dx, x, bytes));
    CHECK(cudyn_memcpy_htod(dy, y, bytes));

    void *args[] = {&a, &dx, &dy, &dout, (void *)&n};
    CHECK(cudyn_launch(saxpy, (cudyn_dim3){blocks, 1, 1}, (cudyn_dim3){threads, 1, 1}, 0, NULL, args));
    CHECK(cudyn_memcpy_dtoh(out, dout, bytes));

    size_t wrong = 0;
    for (size_t i = 0; i < n; i++)
        wrong += out[i] != a * x[i] + y[i];
    printf("saxpy on %zu floats for %s: %s\n", n, cudyn_program_target(prog), wrong ? "FAIL" : "PASS");

    cudyn_mem_free(dx);
    cudyn_mem_free(dy);
    cudyn_mem_free(dout);
    cudyn_module_unload(module);
    cudyn_program_free(prog);
    free(x);
    free(y);
    free(out);
    return wrong ? 1 : 0;
}
