#!/usr/bin/env python3
"""PyCUDA's tutorial, as a PyCUDA user writes it: a 4x4 float32 matrix
copied to memory from mem_alloc, doubled by a kernel launched with
block=(4, 4, 1), doubled again through a prepared call, copied back and
freed.  Unchanged PyCUDA code: run it with

    python3 -m cudyn.pycuda double_array.py
"""

import sys

import numpy

import pycuda.autoinit  # noqa: F401
import pycuda.driver as cuda
from pycuda.compiler import SourceModule

a = numpy.random.randn(4, 4).astype(numpy.float32)
a_gpu = cuda.mem_alloc(a.nbytes)
cuda.memcpy_htod(a_gpu, a)

mod = SourceModule("""
__global__ void doublify(float *a)
{
    int idx = threadIdx.x + threadIdx.y * 4;
    a[idx] *= 2;
}
""")
func = mod.get_function("doublify")
func(a_gpu, block=(4, 4, 1))

a_doubled = numpy.empty_like(a)
cuda.memcpy_dtoh(a_doubled, a_gpu)
print("doubled:\n", a_doubled)

func.prepare("P")
func.prepared_call((1, 1), (4, 4, 1), a_gpu)
a_quadrupled = numpy.empty_like(a)
cuda.memcpy_dtoh(a_quadrupled, a_gpu)
a_gpu.free()

ok = numpy.array_equal(a_doubled, 2 * a) and numpy.array_equal(a_quadrupled, 4 * a)
print("device:", pycuda.autoinit.device.name())
print("PASS" if ok else "FAIL")
sys.exit(0 if ok else 1)
