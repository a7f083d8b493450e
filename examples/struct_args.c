/*
 * struct_args.c - the cuda-python documentation's testkernel, which takes
 * every kind of argument: scalars, device pointers and a struct by value.
 * cudyn_launchf takes them as values, one format character each:
 * 'i' int, 'p' device pointer, 'f' float, 's' struct (pointer and size).
 * With the driver's CUDA 12.4+ parameter information, a mismatch is
 * reported before launching instead of faulting on the GPU.
 */
#include <stdio.h>

#include <cudyn.h>

static const char source[] =
    "struct testStruct { int value; };\n"
    "extern \"C\" __global__\n"
    "void testkernel(int i, int *pi, float f, float *pf, testStruct s, testStruct *ps)\n"
    "{\n"
    "    *pi = i;\n"
    "    *pf = f;\n"
    "    ps->value = s.value;\n"
    "}\n";

struct test_struct {
    int value;
};

#define CHECK(call)                                                               \
    do {                                                                          \
        if ((call) != CUDYN_OK) {                                                 \
            cudyn_error e = {.size = sizeof e};                                   \
            cudyn_last_error(&e);                                                 \
            fprintf(stderr, "struct_args: %s failed: %s\n", #call, e.message);    \
            return 1;                                                             \
        }                                                                         \
    } while (0)

int main(void)
{
    cudyn_module module;
    cudyn_function kernel;
    cudyn_program *prog = NULL;
    CHECK(cudyn_compile(&prog, source, "testkernel.cu", 0, NULL, 0));
    CHECK(cudyn_module_load(&module, prog));
    CHECK(cudyn_module_function(&kernel, module, "testkernel"));

    cudyn_devptr pi, pf, ps;
    CHECK(cudyn_mem_alloc(&pi, sizeof(int)));
    CHECK(cudyn_mem_alloc(&pf, sizeof(float)));
    CHECK(cudyn_mem_alloc(&ps, sizeof(struct test_struct)));

    int i = 123;
    float f = 123.456f;
    struct test_struct s = {.value = 789};
    cudyn_dim3 one = {1, 1, 1};

    /* A mistake first: a double where the kernel takes a float.  A driver
     * that describes parameters (CUDA 12.4+) lets cudyn refuse it; an
     * older one runs the kernel with wrong bytes, as cuLaunchKernel would. */
    if (cudyn_launchf(kernel, one, one, 0, NULL, "ipdpsp", i, pi, (double)f, pf, &s, sizeof s, ps) != CUDYN_OK) {
        cudyn_error e = {.size = sizeof e};
        cudyn_last_error(&e);
        printf("caught before launching: %s\n", e.message);
    }
    CHECK(cudyn_launchf(kernel, one, one, 0, NULL, "ipfpsp", i, pi, f, pf, &s, sizeof s, ps));

    int got_i = 0;
    float got_f = 0;
    struct test_struct got_s = {0};
    CHECK(cudyn_memcpy_dtoh(&got_i, pi, sizeof got_i));
    CHECK(cudyn_memcpy_dtoh(&got_f, pf, sizeof got_f));
    CHECK(cudyn_memcpy_dtoh(&got_s, ps, sizeof got_s));
    int ok = got_i == i && got_f == f && got_s.value == s.value;
    printf("testkernel: i=%d f=%g s.value=%d: %s\n", got_i, got_f, got_s.value, ok ? "PASS" : "FAIL");

    cudyn_mem_free(pi);
    cudyn_mem_free(pf);
    cudyn_mem_free(ps);
    cudyn_module_unload(module);
    cudyn_program_free(prog);
    return ok ? 0 : 1;
}
