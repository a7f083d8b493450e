/*
 * in_out.c - PyCUDA's drv.In / drv.Out in C: host arrays passed straight
 * to cudyn_launchf with '<' (copied to the GPU before the launch), '>'
 * (copied back after it) or '=' (both).  cudyn allocates, copies, launches,
 * copies back and frees; the arrays are ready when the call returns.
 */
#include <stdio.h>

#include <cudyn.h>

static const char source[] =
    "extern \"C\" __global__ void multiply_them(float *dest, const float *a, const float *b, int n)\n"
    "{\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n) dest[i] = a[i] * b[i];\n"
    "}\n";

#define CHECK(call)                                                         \
    do {                                                                    \
        if ((call) != CUDYN_OK) {                                           \
            cudyn_error e = {.size = sizeof e};                             \
            cudyn_last_error(&e);                                           \
            fprintf(stderr, "in_out: %s failed: %s\n", #call, e.message);   \
            return 1;                                                       \
        }                                                                   \
    } while (0)

int main(void)
{
    enum { N = 400 };
    float a[N], b[N], dest[N];
    for (int i = 0; i < N; i++) {
        a[i] = (float)(i % 13);
        b[i] = (float)(i % 7) - 3.0f;
    }
    cudyn_module mod;
    cudyn_function f;
    CHECK(cudyn_module_load_source(&mod, source, NULL, 0));
    CHECK(cudyn_module_function(&f, mod, "multiply_them"));
    CHECK(cudyn_launchf(f, (cudyn_dim3){(N + 127) / 128, 1, 1}, (cudyn_dim3){128, 1, 1}, 0, NULL, ">< <i",
                        dest, sizeof dest, a, sizeof a, b, sizeof b, N));
    int wrong = 0;
    for (int i = 0; i < N; i++)
        wrong += dest[i] != a[i] * b[i];
    printf("multiply_them with In/Out buffers: %s\n", wrong ? "FAIL" : "PASS");
    cudyn_module_unload(mod);
    return wrong ? 1 : 0;
}
