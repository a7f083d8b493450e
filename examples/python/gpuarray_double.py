#!/usr/bin/env python3
"""PyCUDA's gpuarray example with cudyn: 2 * an array, on the GPU, by an
elementwise kernel that cudyn writes, compiles once and caches."""

import sys

import numpy as np

import cudyn.autoinit  # noqa: F401
from cudyn import gpuarray

a = np.random.randn(4, 4).astype(np.float32)
a_gpu = gpuarray.to_gpu(a)
a_doubled = (2 * a_gpu).get()
print("a:\n", a)
print("2 * a on the GPU:\n", a_doubled)
ok = np.array_equal(a_doubled, 2 * a)
print("PASS" if ok else "FAIL")
sys.exit(0 if ok else 1)
