"""Uniform random numbers on the device, as PyCUDA's ``pycuda.curandom.rand``.

``rand(shape, dtype)`` fills a new array with values in [0, 1) (float32
and float64) or with 32 random bits (int32, uint32).  The generator is
counter based: element k of a call is a function of the call's 64-bit
seed and k alone (SplitMix64's mixing of seed + k), so the numbers do not
depend on the launch shape, and each call takes a fresh seed from numpy's
global generator: ``numpy.random.seed(s)`` makes a program's sequence of
calls repeat.  It is not cryptographic.  cuRAND's generators
(XORWOWRandomNumberGenerator ...) are not wrapped: cudyn links no CUDA
library but the driver and NVRTC.
"""

import numpy as np

from . import _codegen, _cudyn, _result
from ._views import normalize_shape

__all__ = ["rand", "seed_getter_uniform", "seed_getter_unique"]

_SOURCE = r"""
__device__ unsigned long long cudyn_mix64(unsigned long long z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}
"""

# dtype -> (C type, the value from 64 random bits r)
_VALUES = {
    "f4": ("float", "(float)(r >> 40) * (1.0f / 16777216.0f)"),
    "f8": ("double", "(double)(r >> 11) * (1.0 / 9007199254740992.0)"),
    "i4": ("int", "(int)(unsigned int)(r >> 32)"),
    "u4": ("unsigned int", "(unsigned int)(r >> 32)"),
}


def _seed():
    return int(np.random.randint(0, 2 ** 31, dtype=np.int64)) << 32 | int(np.random.randint(0, 2 ** 31,
                                                                                            dtype=np.int64))


def rand(shape, dtype=np.float32, stream=None):
    """A new device array of uniform random values in [0, 1) (float32,
    float64) or of random 32-bit integers (int32, uint32)."""
    dtype = np.dtype(dtype)
    key = f"{dtype.kind}{dtype.itemsize}"
    if key not in _VALUES:
        raise TypeError(f"cudyn.curandom.rand: dtype {dtype} is not float32, float64, int32 or uint32")
    result = _result.new_array(normalize_shape(shape), dtype, None, stream)
    t, value = _VALUES[key]
    body = f"unsigned long long r = cudyn_mix64(seed + 0x9e3779b97f4a7c15ULL * (i + 1)); z = {value}"
    _codegen.run_map(body, [("z", result, True)], [("seed", np.uint64(_seed()))], result.shape, stream, "rand",
                     _SOURCE)
    return result


def seed_getter_uniform(n):
    """PyCUDA's seed getter: n copies of one random seed (an int32 device array)."""
    return _uploaded(np.full(n, np.random.randint(0, 2 ** 31 - 1), dtype=np.int32))


def seed_getter_unique(n):
    """PyCUDA's seed getter: n random seeds (an int32 device array)."""
    return _uploaded(np.random.randint(0, 2 ** 31 - 1, size=n).astype(np.int32))


def _uploaded(host):
    """A new device array holding a copy of a C-contiguous host array."""
    a = _result.new_array(host.shape, host.dtype)
    if a.nbytes:
        _cudyn.DeviceArray.set(a, host)
    return a
