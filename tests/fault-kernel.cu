// The kernel source cudyn-cc compiles in the fault sweep (tests/fault-workflows):
// a quoted include given by --header, and two kernels.
#include "scale.h"

extern "C" __global__ void saxpy(float a, const float *x, const float *y, float *out, unsigned long n)
{
    unsigned long i = blockIdx.x * (unsigned long)blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = SCALE * a * x[i] + y[i];
}

extern "C" __global__ void fill(float *out, float value, unsigned long n)
{
    unsigned long i = blockIdx.x * (unsigned long)blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = value;
}
