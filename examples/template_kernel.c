/*
 * template_kernel.c - a C++ template kernel, instantiated for float and
 * double and found by its C++ name through NVRTC name expressions.
 */
#include <stdio.h>

#include <cudyn.h>

static const char source[] =
    "template <typename T>\n"
    "__global__ void axpb(T *x, T a, T b, size_t n)\n"
    "{\n"
    "    size_t i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n) x[i] = a * x[i] + b;\n"
    "}\n";

#define CHECK(call)                                                                \
    do {                                                                           \
        if ((call) != CUDYN_OK) {                                                  \
            cudyn_error e = {.size = sizeof e};                                    \
            cudyn_last_error(&e);                                                  \
            fprintf(stderr, "template_kernel: %s failed: %s\n", #call, e.message); \
            return 1;                                                              \
        }                                                                          \
    } while (0)

int main(void)
{
    const char *names[] = {"axpb<float>", "axpb<double>"};
    cudyn_program *prog = NULL;
    cudyn_module mod;
    cudyn_function f_float, f_double;
    CHECK(cudyn_compile_names(&prog, source, "axpb.cu", 0, NULL, 0, names, 2));
    CHECK(cudyn_module_load(&mod, prog));
    CHECK(cudyn_module_function(&f_float, mod, "axpb<float>"));
    CHECK(cudyn_module_function(&f_double, mod, "axpb<double>"));
    printf("axpb<float> is %s, axpb<double> is %s\n", cudyn_program_lowered_name(prog, "axpb<float>"),
           cudyn_program_lowered_name(prog, "axpb<double>"));

    enum { N = 1000 };
    float xf[N];
    double xd[N];
    for (int i = 0; i < N; i++) {
        xf[i] = (float)i;
        xd[i] = (double)i;
    }
    cudyn_devptr df, dd;
    CHECK(cudyn_mem_alloc(&df, sizeof xf));
    CHECK(cudyn_mem_alloc(&dd, sizeof xd));
    CHECK(cudyn_memcpy_htod(df, xf, sizeof xf));
    CHECK(cudyn_memcpy_htod(dd, xd, sizeof xd));
    float af = 2.0f, bf = 1.0f;
    double ad = 0.5, bd = -3.0;
    size_t n = N;
    cudyn_dim3 grid = {(N + 255) / 256, 1, 1}, block = {256, 1, 1};
    CHECK(cudyn_launch(f_float, grid, block, 0, NULL, (void *[]){&df, &af, &bf, &n}));
    CHECK(cudyn_launch(f_double, grid, block, 0, NULL, (void *[]){&dd, &ad, &bd, &n}));
    CHECK(cudyn_memcpy_dtoh(xf, df, sizeof xf));
    CHECK(cudyn_memcpy_dtoh(xd, dd, sizeof xd));
    int wrong = 0;
    for (int i = 0; i < N; i++)
        wrong += xf[i] != 2.0f * (float)i + 1.0f || xd[i] != 0.5 * i - 3.0;
    printf("axpb on float and double: %s\n", wrong ? "FAIL" : "PASS");
    cudyn_mem_free(df);
    cudyn_mem_free(dd);
    cudyn_module_unload(mod);
    cudyn_program_free(prog);
    return wrong ? 1 : 0;
}
