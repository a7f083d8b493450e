# Type stubs for cudyn.pycuda.gpuarray: cudyn.gpuarray, with PyCUDA's
# float64 defaults and keyword orders where they differ, and splay.
from typing import Any, Callable, Sequence

from numpy.typing import DTypeLike

from cudyn._cudyn import _StreamLike
from cudyn.gpuarray import GPUArray

# cudyn.gpuarray's __all__ and splay
__all__ = ["GPUArray", "to_gpu", "to_gpu_async", "empty", "zeros", "ones", "empty_like", "zeros_like",
           "ones_like", "arange", "sum", "dot", "max", "min", "any", "all", "subset_sum", "subset_dot", "subset_max",
           "subset_min", "where", "if_positive", "maximum", "minimum", "logical_and", "logical_or", "logical_not",
           "concatenate", "stack", "take", "multi_take", "multi_put", "multi_take_put", "transpose", "reshape",
           "vec", "free_pool", "pool_info", "splay"]

def empty(shape: int | Sequence[int], dtype: DTypeLike = ..., allocator: Callable[[int], Any] | None = None,
          order: str = "C") -> GPUArray:
    """An uninitialised array (PyCUDA's gpuarray.empty, i.e. GPUArray(shape, dtype))."""
def zeros(shape: int | Sequence[int], dtype: DTypeLike = ..., allocator: Callable[[int], Any] | None = None,
          order: str = "C") -> GPUArray:
    """A zero-filled array; float64 unless dtype is given, as PyCUDA's."""
def ones(shape: int | Sequence[int], dtype: DTypeLike = ..., allocator: Callable[[int], Any] | None = None,
         order: str = "C") -> GPUArray:
    """An array of ones; float64 unless dtype is given, as PyCUDA's."""
def to_gpu(ary: Any, allocator: Callable[[int], Any] | None = None) -> GPUArray:
    """A device copy of a host array, in its layout."""
def to_gpu_async(ary: Any, allocator: Callable[[int], Any] | None = None, stream: _StreamLike = None) -> GPUArray:
    """As to_gpu, on ``stream``."""
def splay(n: int, dev: object = None) -> tuple[tuple[int, int], tuple[int, int, int]]:
    """(grid, block) covering n elements with a grid-stride kernel, as PyCUDA's."""

# the rest of cudyn.gpuarray (the functions above stay PyCUDA's)
from cudyn.gpuarray import *  # type: ignore[assignment]
