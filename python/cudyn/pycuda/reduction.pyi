# Type stubs for cudyn.pycuda.reduction (PyCUDA's ReductionKernel).
from numpy.typing import DTypeLike

from cudyn.elementwise import ReductionKernel as ReductionKernel

__all__ = ["ReductionKernel", "get_sum_kernel", "get_dot_kernel"]

def get_sum_kernel(dtype_out: DTypeLike, dtype_in: DTypeLike) -> ReductionKernel:
    """A ReductionKernel summing an array of dtype_in into dtype_out."""
def get_dot_kernel(dtype_out: DTypeLike, dtype_a: DTypeLike, dtype_b: DTypeLike) -> ReductionKernel:
    """A ReductionKernel of the dot product of two arrays."""
