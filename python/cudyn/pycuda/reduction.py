"""pycuda.reduction over cudyn: ReductionKernel as PyCUDA defines it, for
results of any C type (numbers, complex numbers, registered structs),
written as CUDA C++ (cudyn._reduce) and compiled through cudyn's cache."""

import numpy as np

import cudyn
from cudyn import _codegen, _reduce

from . import Unsupported

__all__ = ["ReductionKernel", "get_sum_kernel", "get_dot_kernel"]


class ReductionKernel:
    """PyCUDA's ReductionKernel(dtype_out, neutral, reduce_expr, map_expr,
    arguments, name, keep, options, preamble, allocator); a call returns a
    GPUArray of shape () (or fills ``out=``, one element)."""

    def __init__(self, dtype_out, neutral, reduce_expr, map_expr=None, arguments=None, name="reduce_kernel",
                 keep=False, options=None, preamble="", allocator=None):
        if keep or options:
            raise Unsupported("ReductionKernel(keep=, options=): generated kernels compile with NVRTC's defaults"
                              " and leave no files")
        self.dtype_out = np.dtype(dtype_out)
        t = _codegen.ctype(self.dtype_out)
        self.arguments = arguments if arguments is not None else f"const {t} *in"
        map_expr = map_expr if map_expr is not None else "in[i]"
        self.allocator = allocator
        texts = repr((t, neutral, reduce_expr, map_expr, self.arguments, preamble))
        self._name = f"cudyn_{name}_{_codegen.digest(texts)}"
        self.source, self._codes, self._parsed = _reduce.source(t, str(neutral), reduce_expr, map_expr,
                                                                 self.arguments, self._name, preamble)

    def __call__(self, *args, stream=None, out=None, allocator=None, range=None, slice=None):  # noqa: A002
        from cudyn.gpuarray import GPUArray
        if range is not None or slice is not None:
            raise Unsupported("ReductionKernel(range=/slice=): reduce a view instead (a[start:stop:step] is one)")
        values = _codegen.argument_values(self._parsed, args, f"ReductionKernel {self._name}")
        n = next((a.size for (t, _, pointer), a in zip(self._parsed, args)
                  if pointer and isinstance(a, cudyn.DeviceArray)), None)
        if n is None:
            raise TypeError("ReductionKernel: no device array among the pointer arguments to take the count from")
        for a in args:
            if isinstance(a, cudyn.DeviceArray) and not a.is_contiguous:
                raise ValueError("ReductionKernel: the arrays must be C-contiguous (copy() makes one)")
        if out is None:
            allocator = allocator or self.allocator
            out = GPUArray((), self.dtype_out, allocator=allocator) if allocator else \
                cudyn.gpuarray.empty((), self.dtype_out)
        elif out.size != 1 or out.dtype != self.dtype_out:
            raise ValueError(f"ReductionKernel: out must be one element of {self.dtype_out}")
        stages = _reduce.kernels(self.source, self._name, self._codes)
        return _reduce.run(stages, self.dtype_out, n, values, out, stream)


def get_sum_kernel(dtype_out, dtype_in):
    """A ReductionKernel summing an array of dtype_in into dtype_out."""
    return ReductionKernel(dtype_out, "0", "a + b", f"({_codegen.ctype(dtype_out)})in[i]",
                           f"const {_codegen.ctype(dtype_in)} *in")


def get_dot_kernel(dtype_out, dtype_a, dtype_b):
    """A ReductionKernel of the dot product of two arrays."""
    t = _codegen.ctype(dtype_out)
    return ReductionKernel(dtype_out, "0", "a + b", f"({t})a_in[i] * ({t})b_in[i]",
                           f"const {_codegen.ctype(dtype_a)} *a_in, const {_codegen.ctype(dtype_b)} *b_in")
