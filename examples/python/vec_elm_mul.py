#!/usr/bin/env python3
"""PyCUDA's first example with cudyn: multiply_them, with host arrays handed
to the kernel as In/Out (copied in before the launch and back after it) and
ptxas's report of the registers it used (--ptxas-options=-v)."""

import sys

import numpy as np

import cudyn
import cudyn.autoinit  # noqa: F401  (device 0, or the MPI rank's)

mod = cudyn.SourceModule("""
__global__ void multiply_them(float *dest, float *a, float *b, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        dest[i] = a[i] * b[i];
}
""", options=["--ptxas-options=-v"])

multiply_them = mod.get_function("multiply_them")

n = 400
a = np.random.randn(n).astype(np.float32)
b = np.random.randn(n).astype(np.float32)
dest = np.zeros_like(a)
multiply_them(cudyn.Out(dest), cudyn.In(a), cudyn.In(b), np.int32(n), block=(400, 1, 1), grid=(1, 1))

print("compile log:", (mod.log or "").strip() or "(empty)")
print(f"registers per thread: {multiply_them.num_regs}")
print("dest - a*b:", dest - a * b)
ok = np.array_equal(dest, a * b)
print("PASS" if ok else "FAIL")
sys.exit(0 if ok else 1)
