# Type stubs for cudyn.pycuda.reduction (PyCUDA's ReductionKernel).
from typing import Any, Callable

import numpy as np
from numpy.typing import DTypeLike

from cudyn._cudyn import _StreamLike
from cudyn.gpuarray import GPUArray

__all__ = ["ReductionKernel", "get_sum_kernel", "get_dot_kernel"]

class ReductionKernel:
    """PyCUDA's ReductionKernel; a call returns a GPUArray of shape () (or fills ``out=``, one element)."""
    dtype_out: np.dtype[Any]
    arguments: str
    allocator: Callable[[int], Any] | None
    source: str
    def __init__(self, dtype_out: DTypeLike, neutral: object, reduce_expr: str, map_expr: str | None = None,
                 arguments: str | None = None, name: str = "reduce_kernel", keep: bool = False,
                 options: None = None, preamble: str = "", allocator: Callable[[int], Any] | None = None) -> None: ...
    def __call__(self, *args: Any, stream: _StreamLike = None, out: GPUArray | None = None,
                 allocator: Callable[[int], Any] | None = None, range: None = None,
                 slice: None = None) -> GPUArray: ...

def get_sum_kernel(dtype_out: DTypeLike, dtype_in: DTypeLike) -> ReductionKernel:
    """A ReductionKernel summing an array of dtype_in into dtype_out."""
def get_dot_kernel(dtype_out: DTypeLike, dtype_a: DTypeLike, dtype_b: DTypeLike) -> ReductionKernel:
    """A ReductionKernel of the dot product of two arrays."""
