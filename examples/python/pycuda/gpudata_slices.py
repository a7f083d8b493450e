#!/usr/bin/env python3
"""gpuarray with PyCUDA's idioms: slices are views of the same memory, a
kernel takes an array's gpudata (or the slice's address), gpuarray
arithmetic works on slices, and setting a slice writes into the array.
Unchanged PyCUDA code: python3 -m cudyn.pycuda gpudata_slices.py"""

import sys

import numpy

import pycuda.autoinit  # noqa: F401
import pycuda.gpuarray as gpuarray
from pycuda.compiler import SourceModule

x = numpy.arange(32, dtype=numpy.float32)
x_gpu = gpuarray.to_gpu(x)

doublify = SourceModule("""
__global__ void doublify(float *a)
{
    int idx = threadIdx.x + threadIdx.y * 4;
    a[idx] *= 2;
}
""").get_function("doublify")

doublify(x_gpu.gpudata, block=(4, 4, 1))            # elements 0..15
doublify(x_gpu[16:].gpudata, block=(4, 2, 1))       # elements 16..23, through a view's address
tail = 3 * x_gpu[24:]                               # a new array from a view
x_gpu[29:32] = numpy.zeros(3, numpy.float32)        # written through a view

want = x.copy()
want[:24] *= 2
want[29:] = 0
got = x_gpu.get()
print("first three:", x_gpu[0:3].get(), "last eight:", got[24:])
ok = numpy.array_equal(got, want) and numpy.array_equal(tail.get(), 3 * x[24:]) \
    and x_gpu[16:].gpudata == int(x_gpu.gpudata) + 16 * 4
print("PASS" if ok else "FAIL")
sys.exit(0 if ok else 1)
