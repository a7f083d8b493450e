#!/usr/bin/env python3
"""cuda-python's kernel with struct arguments, with cudyn: testkernel takes
ints, floats, pointers, and a struct both by value (a numpy structured
scalar, packed as the C struct) and by pointer (device memory)."""

import sys

import numpy as np

import cudyn
import cudyn.autoinit  # noqa: F401

mod = cudyn.SourceModule("""
struct testStruct {
    int value;
};

__global__ void testkernel(int i, int *pi, float f, float *pf, struct testStruct s, struct testStruct *ps)
{
    *pi = i;
    *pf = f;
    ps->value = s.value;
}
""")
testkernel = mod.get_function("testkernel")

test_struct = np.dtype([("value", np.int32)])       # the C struct's layout
s = np.zeros((), dtype=test_struct)
s["value"] = 4321

pi = cudyn.gpuarray.zeros(1, np.int32)
pf = cudyn.gpuarray.zeros(1, np.float32)
ps = cudyn.gpuarray.zeros(1, test_struct)

testkernel(np.int32(1234), pi, np.float32(3.25), pf, s[()], ps, grid=(1,), block=(1,))

i, f, value = int(pi.get()[0]), float(pf.get()[0]), int(ps.get()[0]["value"])
print(f"*pi = {i}, *pf = {f}, ps->value = {value}")
ok = (i, f, value) == (1234, 3.25, 4321)
print("PASS" if ok else "FAIL")
sys.exit(0 if ok else 1)
