# Type stubs for cudyn.elementwise (ElementwiseKernel and ReductionKernel:
# one class of each name, PyCUDA's signature, which cudyn.pycuda re-exports).
from typing import Any, Callable, Protocol, Sequence

import numpy as np
from numpy.typing import DTypeLike

from ._cudyn import _StreamLike
from .gpuarray import GPUArray

__all__ = ["ElementwiseKernel", "ReductionKernel", "get_elwise_kernel"]

class _Declares(Protocol):
    def declarator(self) -> str: ...

_Arguments = str | Sequence[_Declares]

class ElementwiseKernel:
    """A kernel that runs ``operation`` for each index ``i`` (PyCUDA's ElementwiseKernel)."""
    arguments: str
    operation: str
    name: str
    preamble: str
    source: str
    def __init__(self, arguments: _Arguments, operation: str, name: str = "kernel", keep: bool = False,
                 options: None = None, preamble: str = "", loop_prep: str = "", after_loop: str = "") -> None: ...
    def __call__(self, *args: Any, range: int | range | slice | None = None, slice: slice | None = None,
                 stream: _StreamLike = None) -> None: ...

def get_elwise_kernel(arguments: _Arguments, operation: str, name: str = "kernel", keep: bool = False,
                      options: None = None, **kwargs: Any) -> ElementwiseKernel:
    """An ElementwiseKernel (PyCUDA's older entry point)."""

class ReductionKernel:
    """A reduction (PyCUDA's ReductionKernel): a GPUArray of shape () and dtype ``dtype_out``."""
    dtype_out: np.dtype[Any]
    neutral: str
    reduce_expr: str
    arguments: str
    map_expr: str
    name: str
    preamble: str
    source: str
    allocator: Callable[[int], Any] | None
    def __init__(self, dtype_out: DTypeLike, neutral: object, reduce_expr: str, map_expr: str | None = None,
                 arguments: _Arguments | None = None, name: str = "reduce_kernel", keep: bool = False,
                 options: None = None, preamble: str = "", allocator: Callable[[int], Any] | None = None) -> None: ...
    def __call__(self, *args: Any, stream: _StreamLike = None, out: GPUArray | None = None,
                 allocator: Callable[[int], Any] | None = None, range: None = None,
                 slice: None = None) -> GPUArray: ...
