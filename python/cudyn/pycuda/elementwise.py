"""pycuda.elementwise over cudyn: ElementwiseKernel, cudyn's own
(cudyn.elementwise: the one class of that name, PyCUDA's signature), and
PyCUDA's functions that build elementwise modules: get_elwise_module and
get_linear_combination_kernel."""

from cudyn.elementwise import ElementwiseKernel, get_elwise_kernel  # noqa: F401

from . import Unsupported
from .compiler import SourceModule
from .tools import ScalarArg, VectorArg, context_dependent_memoize, dtype_to_ctype

__all__ = ["ElementwiseKernel", "get_elwise_kernel", "get_elwise_module", "get_linear_combination_kernel"]

# PyCUDA's loop over i in [0, n): n is one of the arguments, and the
# operation may use (and advance) i, tid, total_threads and cta_start
_LOOP = """#include <pycuda-complex.hpp>
{preamble}
extern "C" __global__ void {name}({arguments})
{{
    const size_t tid = threadIdx.x;
    const size_t total_threads = (size_t)gridDim.x * blockDim.x;
    const size_t cta_start = (size_t)blockDim.x * blockIdx.x;
    size_t i;
    {loop_prep};
    for (i = cta_start + tid; i < n; i += total_threads) {{
        {operation};
    }}
    {after_loop};
}}
"""


def get_elwise_module(arguments, operation, name="kernel", keep=False, options=None, preamble="", loop_prep="",
                      after_loop=""):
    """A SourceModule with the kernel ``name``(arguments) that runs
    ``operation`` for i over [0, n) (n: one of the arguments, a VectorArg /
    ScalarArg list), as PyCUDA's: launch it with grid and block of your own."""
    declarations = ", ".join(a.declarator() for a in arguments)
    return SourceModule(_LOOP.format(preamble=preamble, name=name, arguments=declarations, loop_prep=loop_prep,
                                     operation=operation, after_loop=after_loop),
                        options=options, keep=keep, no_extern_c=True)


@context_dependent_memoize
def get_linear_combination_kernel(summand_descriptors, dtype_z):
    """(kernel, texrefs): the kernel "linear_combination" computing
    z[i] = a0*x0[i] + a1*x1[i] + ... for i < n, prepared for
    prepared_call(grid, block, a0, x0, a1, x1, ..., z, n); a summand is
    (is_gpu_scalar, scalar dtype, vector dtype).  PyCUDA reads a scalar in
    device memory (is_gpu_scalar) through a texture reference, which CUDA 12
    removed: refused; texrefs is always empty."""
    args, summands = [], []
    for k, (is_gpu_scalar, scalar_dtype, vector_dtype) in enumerate(summand_descriptors):
        if is_gpu_scalar:
            raise Unsupported(f"get_linear_combination_kernel: summand {k} reads its scalar from device memory"
                              " through a texture reference, which CUDA 12 removed; pass it as a host scalar"
                              " (is_gpu_scalar=False), or write the kernel with ElementwiseKernel and read it"
                              " through a pointer")
        args += [ScalarArg(scalar_dtype, f"a{k}"), VectorArg(vector_dtype, f"x{k}")]
        summands.append(f"a{k} * x{k}[i]")
    args += [VectorArg(dtype_z, "z"), ScalarArg("uintp", "n")]
    module = get_elwise_module(args, f"z[i] = {' + '.join(summands) or dtype_to_ctype(dtype_z) + '()'}",
                               "linear_combination")
    kernel = module.get_function("linear_combination")
    kernel.prepare("".join(a.struct_char for a in args))
    return kernel, []
