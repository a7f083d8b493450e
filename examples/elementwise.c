/*
 * elementwise.c - kernels written by cudyn from expressions (PyCUDA's
 * ElementwiseKernel and ReductionKernel): SAXPY and a dot product without
 * writing a kernel, checked on the host.
 * Build: cc elementwise.c $(pkg-config --cflags --libs cudyn)
 */
#include <stdio.h>
#include <stdlib.h>

#include <cudyn.h>

/* On failure: say what failed and why (cudyn's message has a hint). */
#define CHECK(call)                                                              \
    do {                                                                         \
        if ((call) != CUDYN_OK) {                                                \
            cudyn_error e = {.size = sizeof e};                                  \
            cudyn_last_error(&e);                                                \
            fprintf(stderr, "elementwise: %s failed: %s\n", #call, e.message);   \
            return 1;                                                            \
        }                                                                        \
    } while (0)

int main(void)
{
    const size_t n = (size_t)1 << 20, bytes = n * sizeof(float);
    float a = 2.0f, *x = malloc(bytes), *y = malloc(bytes);
    if (!x || !y)
        return 1;
    for (size_t i = 0; i < n; i++) { /* exact in float32, and not constant */
        x[i] = (float)(i % 1024);
        y[i] = (float)(i % 37);
    }
    cudyn_devptr dx, dy;
    CHECK(cudyn_mem_alloc(&dx, bytes));
    CHECK(cudyn_mem_alloc(&dy, bytes));
    CHECK(cudyn_memcpy_htod(dx, x, bytes));
    CHECK(cudyn_memcpy_htod(dy, y, bytes));

    /* y = a * x + y: the parameters, the body for element i, a name */
    cudyn_elementwise *saxpy;
    CHECK(cudyn_elementwise_create(&saxpy, "float a, const float *x, float *y", "y[i] = a * x[i] + y[i]", "saxpy",
                                   NULL));
    CHECK(cudyn_elementwise_launch(saxpy, n, NULL, a, dx, dy));

    /* x . y: result type, neutral value, how two results combine, element i's value */
    cudyn_reduction *dot;
    CHECK(cudyn_reduction_create(&dot, "float", "0", "a + b", "x[i] * y[i]", "const float *x, const float *y", "dot",
                                 NULL));
    float result = 0;
    CHECK(cudyn_reduction_run(dot, &result, 0, n, NULL, dx, dy)); /* into a host float */

    float *out = malloc(bytes);
    if (!out)
        return 1;
    CHECK(cudyn_memcpy_dtoh(out, dy, bytes));
    size_t wrong = 0;
    double want = 0;
    for (size_t i = 0; i < n; i++) {
        wrong += out[i] != a * x[i] + y[i];
        want += (double)x[i] * out[i];
    }
    double error = (result > want ? result - want : want - result) / want;
    printf("saxpy on %zu floats: %zu wrong; dot = %.7g (double: %.7g, relative error %.1e): %s\n", n, wrong,
           (double)result, want, error, !wrong && error < 1e-5 ? "PASS" : "FAIL");

    cudyn_elementwise_free(saxpy);
    cudyn_reduction_free(dot);
    cudyn_mem_free(dx);
    cudyn_mem_free(dy);
    free(x);
    free(y);
    free(out);
    return !wrong && error < 1e-5 ? 0 : 1;
}
