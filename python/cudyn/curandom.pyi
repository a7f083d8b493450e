# Type stubs for cudyn.curandom (PyCUDA's rand and seed getters).
from typing import Sequence

from numpy.typing import DTypeLike

from ._cudyn import _StreamLike
from .gpuarray import GPUArray

__all__ = ["rand", "seed_getter_uniform", "seed_getter_unique"]

def rand(shape: int | Sequence[int], dtype: DTypeLike = ..., stream: _StreamLike = None) -> GPUArray:
    """A new device array of uniform random values in [0, 1) (float32, float64) or of random 32-bit integers."""
def seed_getter_uniform(n: int) -> GPUArray:
    """PyCUDA's seed getter: n copies of one random seed (an int32 device array)."""
def seed_getter_unique(n: int) -> GPUArray:
    """PyCUDA's seed getter: n random seeds (an int32 device array)."""
