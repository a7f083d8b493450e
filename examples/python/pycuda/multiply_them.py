#!/usr/bin/env python3
"""PyCUDA's first program: two host arrays handed to a kernel with
drv.In, the result taken back with drv.Out, one block of 400 threads.
Unchanged PyCUDA code: python3 -m cudyn.pycuda multiply_them.py"""

import sys

import numpy

import pycuda.autoinit  # noqa: F401
import pycuda.driver as drv
from pycuda.compiler import SourceModule

mod = SourceModule("""
__global__ void multiply_them(float *dest, float *a, float *b)
{
    const int i = threadIdx.x;
    dest[i] = a[i] * b[i];
}
""")
multiply_them = mod.get_function("multiply_them")

a = numpy.random.randn(400).astype(numpy.float32)
b = numpy.random.randn(400).astype(numpy.float32)
dest = numpy.zeros_like(a)
multiply_them(drv.Out(dest), drv.In(a), drv.In(b), block=(400, 1, 1), grid=(1, 1))

difference = dest - a * b
print("largest |dest - a*b|:", numpy.abs(difference).max())
ok = not difference.any()
print("PASS" if ok else "FAIL")
sys.exit(0 if ok else 1)
