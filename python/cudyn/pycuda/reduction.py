"""pycuda.reduction over cudyn: ReductionKernel, cudyn's own
(cudyn.elementwise: the one class of that name, PyCUDA's signature), and
PyCUDA's sum and dot kernels made with it."""

from cudyn._dtypes import ctype
from cudyn.elementwise import ReductionKernel

__all__ = ["ReductionKernel", "get_sum_kernel", "get_dot_kernel"]


def get_sum_kernel(dtype_out, dtype_in):
    """A ReductionKernel summing an array of dtype_in into dtype_out."""
    return ReductionKernel(dtype_out, "0", "a + b", f"({ctype(dtype_out)})in[i]",
                           f"const {ctype(dtype_in)} *in")


def get_dot_kernel(dtype_out, dtype_a, dtype_b):
    """A ReductionKernel of the dot product of two arrays."""
    t = ctype(dtype_out)
    return ReductionKernel(dtype_out, "0", "a + b", f"({t})a_in[i] * ({t})b_in[i]",
                           f"const {ctype(dtype_a)} *a_in, const {ctype(dtype_b)} *b_in")
