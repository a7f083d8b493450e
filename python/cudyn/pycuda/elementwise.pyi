# Type stubs for cudyn.pycuda.elementwise (PyCUDA's ElementwiseKernel).
from typing import Any, Sequence

from cudyn._cudyn import _StreamLike

from .tools import ScalarArg, VectorArg

__all__ = ["ElementwiseKernel", "get_elwise_kernel"]

class ElementwiseKernel:
    """PyCUDA's ElementwiseKernel; call it with one value per argument and range=, slice=, stream=."""
    arguments: str
    name: str
    source: str
    def __init__(self, arguments: str | Sequence[VectorArg | ScalarArg], operation: str, name: str = "kernel",
                 keep: bool = False, options: None = None, preamble: str = "", loop_prep: str = "",
                 after_loop: str = "") -> None: ...
    def __call__(self, *args: Any, range: int | range | slice | None = None, slice: slice | None = None,
                 stream: _StreamLike = None) -> None: ...

def get_elwise_kernel(arguments: str | Sequence[VectorArg | ScalarArg], operation: str, name: str = "kernel",
                      keep: bool = False, options: None = None, **kwargs: Any) -> ElementwiseKernel:
    """An ElementwiseKernel (PyCUDA's older entry point)."""
