"""pycuda.gpuarray over cudyn: cudyn.gpuarray with PyCUDA's signatures
and defaults (zeros and ones make float64 arrays; ``allocator`` is the
third positional argument of empty, zeros, ones and to_gpu)."""

import numpy as np

from cudyn import _codegen
from cudyn import gpuarray as _ga
from cudyn.gpuarray import *  # noqa: F401,F403
from cudyn.gpuarray import GPUArray, vec  # noqa: F401

__all__ = list(_ga.__all__) + ["splay"]


def empty(shape, dtype=np.float64, allocator=None, order="C"):
    """An uninitialised array (PyCUDA's gpuarray.empty, i.e. GPUArray(shape, dtype))."""
    return _ga.empty(shape, dtype, order, allocator=allocator)


def zeros(shape, dtype=np.float64, allocator=None, order="C"):
    """A zero-filled array; float64 unless dtype is given, as PyCUDA's."""
    return _ga.zeros(shape, dtype, order, allocator=allocator)


def ones(shape, dtype=np.float64, allocator=None, order="C"):
    """An array of ones; float64 unless dtype is given, as PyCUDA's."""
    return _ga.ones(shape, dtype, order, allocator=allocator)


def to_gpu(ary, allocator=None):
    """A device copy of a host array, in its layout."""
    return _ga.to_gpu(ary, allocator=allocator)


def to_gpu_async(ary, allocator=None, stream=None):
    """As to_gpu, on ``stream``."""
    return _ga.to_gpu(ary, stream=stream, allocator=allocator)


def splay(n, dev=None):
    """(grid, block) covering n elements with a grid-stride kernel, as PyCUDA's."""
    return (_codegen.grid_for(n), 1), (_codegen.BLOCK, 1, 1)
