# Type stubs for cudyn.elementwise (PyCUDA's ElementwiseKernel and
# ReductionKernel over cudyn's expression kernels).
from typing import Any

import numpy as np
from numpy.typing import DTypeLike

from ._cudyn import Elementwise, Reduction, _StreamLike
from .gpuarray import GPUArray

__all__ = ["ElementwiseKernel", "ReductionKernel", "get_elwise_kernel"]

class _LazyKernel:
    @property
    def kernel(self) -> Any:
        """The C kernel object, made (compiled) on first use."""
    @property
    def source(self) -> str:
        """The generated CUDA C++ source."""

class ElementwiseKernel(_LazyKernel):
    """A kernel that runs ``operation`` for each index ``i`` (PyCUDA's ElementwiseKernel)."""
    arguments: str
    operation: str
    name: str
    preamble: str
    def __init__(self, arguments: str, operation: str, name: str = "kernel", preamble: str = "",
                 options: None = None) -> None: ...
    @property
    def kernel(self) -> Elementwise:
        """The C kernel object, made (compiled) on first use."""
    def __call__(self, *args: Any, stream: _StreamLike = None, range: int | None = None) -> None: ...

def get_elwise_kernel(arguments: str, operation: str, name: str = "kernel", preamble: str = "") -> ElementwiseKernel:
    """PyCUDA's name for making an :class:`ElementwiseKernel`."""

class ReductionKernel(_LazyKernel):
    """A reduction (PyCUDA's ReductionKernel): a GPUArray of shape () and dtype ``dtype_out``."""
    dtype_out: np.dtype[Any]
    neutral: str
    reduce_expr: str
    arguments: str
    map_expr: str
    name: str
    preamble: str
    def __init__(self, dtype_out: DTypeLike, neutral: object, reduce_expr: str, map_expr: str | None = None,
                 arguments: str | None = None, name: str = "reduce_kernel", preamble: str = "",
                 options: None = None) -> None: ...
    @property
    def kernel(self) -> Reduction:
        """The C kernel object, made (compiled) on first use."""
    def __call__(self, *args: Any, stream: _StreamLike = None, range: int | None = None,
                 out: GPUArray | None = None) -> GPUArray: ...
