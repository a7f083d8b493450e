# Type stubs for cudyn.pycuda.elementwise (cudyn.elementwise's ElementwiseKernel, PyCUDA's module builders).
from typing import Sequence

from numpy.typing import DTypeLike

from cudyn.elementwise import ElementwiseKernel as ElementwiseKernel
from cudyn.elementwise import get_elwise_kernel as get_elwise_kernel

from .compiler import SourceModule
from .driver import Function
from .tools import ScalarArg, VectorArg

__all__ = ["ElementwiseKernel", "get_elwise_kernel", "get_elwise_module", "get_linear_combination_kernel"]

def get_elwise_module(arguments: Sequence[VectorArg | ScalarArg], operation: str, name: str = "kernel",
                      keep: bool = False, options: Sequence[str] | None = None, preamble: str = "",
                      loop_prep: str = "", after_loop: str = "") -> SourceModule:
    """A SourceModule with the kernel ``name``(arguments) that runs ``operation`` for i over [0, n)."""
def get_linear_combination_kernel(summand_descriptors: Sequence[tuple[bool, DTypeLike, DTypeLike]],
                                  dtype_z: DTypeLike) -> tuple[Function, list[object]]:
    """(kernel, texrefs): z[i] = a0*x0[i] + a1*x1[i] + ..., prepared; texrefs is always empty."""
