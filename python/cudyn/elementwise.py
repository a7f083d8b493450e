"""``ElementwiseKernel`` and ``ReductionKernel``, as PyCUDA defines them:
one class of each name, which ``cudyn.pycuda.elementwise`` and
``cudyn.pycuda.reduction`` give PyCUDA programs too.

::

    from cudyn.elementwise import ElementwiseKernel, ReductionKernel

    lin_comb = ElementwiseKernel("float a, const float *x, float b, const float *y, float *z",
                                 "z[i] = a * x[i] + b * y[i]", "lin_comb")
    lin_comb(np.float32(2), x, np.float32(3), y, z)     # i over z's elements

    dot = ReductionKernel(np.float32, neutral="0", reduce_expr="a + b", map_expr="x[i] * y[i]",
                          arguments="const float *x, const float *y")
    print(dot(x, y).get())

The kernels are CUDA C++ written around the texts as they are (any C
types: numbers, ``pycuda::complex<float>``, registered structs; the
preamble with #include lines; loop_prep and after_loop), by the Python
layer's one generator (_codegen, _reduce), compiled once through cudyn's
cache and kept per device.  The texts are written for nvcc, and compile
as nvcc would compile them: with its predefined names (``uint``,
``M_PI``, ``INT_MAX`` ...), the C library's headers (``#include
<math.h>``) and PyCUDA's (``#include <pycuda-complex.hpp>``,
``<pycuda-helpers.hpp>``).  The texts are code, as in PyCUDA: for
formulas from untrusted users, cudyn.Elementwise and cudyn.Reduction (the
C library's expression kernels) confine each text to its place.
"""

import builtins

from . import _requires
from . import _codegen, _cudyn, _reduce, _result
from ._dtypes import ctype
from ._errors import Unsupported

np = _requires.numpy("cudyn.elementwise")  # arrays need numpy: an ImportError that says so

__all__ = ["ElementwiseKernel", "ReductionKernel", "get_elwise_kernel"]


def _arguments_text(arguments):
    """PyCUDA's arguments: a string of C declarations, or a list of
    arguments that declare themselves (tools.VectorArg, ScalarArg)."""
    if isinstance(arguments, str):
        return arguments
    try:
        return ", ".join(a.declarator() for a in arguments)
    except (AttributeError, TypeError):
        raise TypeError("arguments is one string of C declarations, e.g. 'float a, const float *x', or a list of"
                        " VectorArg and ScalarArg") from None


def _refuse_options(what, keep, options):
    if keep:
        raise Unsupported(f"{what}(keep=True): NVRTC writes no intermediate files; the source is kernel.source")
    if options:
        raise Unsupported(f"{what}(options=...): cudyn compiles generated kernels with NVRTC's defaults; compile a"
                           " SourceModule for other options")


def _count(args, parsed, what):
    for (t, name, pointer), a in zip(parsed, args):
        if pointer and isinstance(a, _cudyn.DeviceArray):
            return a.size
    raise TypeError(f"{what}: no device array among the pointer arguments to take the element count from;"
                    " pass range=")


def _bounds(n, range_, slice_):
    if range_ is not None and slice_ is not None:
        raise TypeError("give range= or slice=, not both")
    if slice_ is not None:
        return slice_.indices(n)
    if range_ is not None:
        if isinstance(range_, builtins.range):
            return range_.start, range_.stop, range_.step
        if isinstance(range_, slice):
            return (range_.start or 0, range_.stop, range_.step or 1)
        return 0, int(range_), 1
    return 0, n, 1


class ElementwiseKernel:
    """A kernel that runs ``operation`` for each index ``i`` (PyCUDA's
    ElementwiseKernel(arguments, operation, name, keep, options, preamble,
    loop_prep, after_loop)).  Call it with one value per argument (numpy
    scalars or Python numbers for scalars, device arrays for pointers); i
    runs over the first array's elements, or ``range=`` (an int, a range or
    a slice) or ``slice=`` (resolved against that size), grid-stride with
    64-bit indices; ``stream=`` runs it on a stream."""

    def __init__(self, arguments, operation, name="kernel", keep=False, options=None, preamble="", loop_prep="",
                 after_loop=""):
        _refuse_options("ElementwiseKernel", keep, options)
        self.arguments = _arguments_text(arguments)
        self.operation = operation
        self.name = name
        self.preamble = preamble or ""
        self.source, self._codes, self._parsed = _codegen.loop_source(self.arguments, operation, name, preamble,
                                                                      loop_prep, after_loop)
        self._prepared = {}  # device -> prepared kernel

    def _kernel(self):
        device = _cudyn.device_current()
        prepared = self._prepared.get(device)
        if prepared is None:
            prepared = self._prepared[device] = _codegen.function(self.source, self.name,
                                                                  nvcc=True).prepare(self._codes)
        return prepared

    def __call__(self, *args, range=None, slice=None, stream=None):  # noqa: A002 (PyCUDA's keywords)
        values = _codegen.argument_values(self._parsed, args, f"ElementwiseKernel {self.name}")
        n = _count(args, self._parsed, f"ElementwiseKernel {self.name}") if range is None else None
        start, stop, step = _bounds(n, range, slice)
        if step == 0:
            raise ValueError(f"ElementwiseKernel {self.name}: a step of 0")
        count = len(builtins.range(start, stop, step))
        if stream is not None:
            _result.mark_used(stream, args)
        if count:
            self._kernel()((_codegen.grid_for(count),), (_codegen.BLOCK,), *values, start, stop, step,
                           stream=stream)


def get_elwise_kernel(arguments, operation, name="kernel", keep=False, options=None, **kwargs):
    """An ElementwiseKernel (PyCUDA's older entry point)."""
    return ElementwiseKernel(arguments, operation, name, keep, options, **kwargs)


class ReductionKernel:
    """A reduction (PyCUDA's ReductionKernel(dtype_out, neutral, reduce_expr,
    map_expr, arguments, name, keep, options, preamble, allocator)):
    ``map_expr`` gives element ``i``'s value, ``reduce_expr`` combines two
    values ``a`` and ``b``, starting from ``neutral``; results of any C type
    (numbers, complex numbers, registered structs).  A call returns a
    GPUArray of shape () and dtype ``dtype_out`` (or fills ``out=``, one
    element); the same input gives the same bits on a device every time.
    ``arguments`` default to ``"const T *in"`` and ``map_expr`` to
    ``"in[i]"`` (T from ``dtype_out``)."""

    def __init__(self, dtype_out, neutral, reduce_expr, map_expr=None, arguments=None, name="reduce_kernel",
                 keep=False, options=None, preamble="", allocator=None):
        _refuse_options("ReductionKernel", keep, options)
        self.dtype_out = np.dtype(dtype_out)
        t = ctype(self.dtype_out)
        self.neutral = str(neutral)
        self.reduce_expr = reduce_expr
        self.arguments = _arguments_text(arguments) if arguments is not None else f"const {t} *in"
        self.map_expr = map_expr if map_expr is not None else "in[i]"
        self.name = name
        self.preamble = preamble or ""
        self.allocator = allocator
        texts = repr((t, self.neutral, reduce_expr, self.map_expr, self.arguments, self.preamble))
        self._name = f"cudyn_{name}_{_codegen.digest(texts)}"
        self.source, self._codes, self._parsed = _reduce.source(t, self.neutral, reduce_expr, self.map_expr,
                                                                 self.arguments, self._name, self.preamble)

    def __call__(self, *args, stream=None, out=None, allocator=None, range=None, slice=None):  # noqa: A002
        if range is not None or slice is not None:
            raise Unsupported("ReductionKernel(range=/slice=): reduce a view instead (a[start:stop:step] is one)")
        values = _codegen.argument_values(self._parsed, args, f"ReductionKernel {self.name}")
        n = next((a.size for (t, _, pointer), a in zip(self._parsed, args)
                  if pointer and isinstance(a, _cudyn.DeviceArray)), None)
        if n is None:
            raise TypeError("ReductionKernel: no device array among the pointer arguments to take the count from")
        for a in args:
            if isinstance(a, _cudyn.DeviceArray) and not a.is_contiguous:
                raise ValueError("ReductionKernel: the arrays must be C-contiguous (copy() makes one)")
        if out is None:
            allocator = allocator or self.allocator
            out = _result.array_type((), self.dtype_out, allocator=allocator) if allocator else \
                _result.new_array((), self.dtype_out, None, stream)
        elif out.size != 1 or out.dtype != self.dtype_out:
            raise ValueError(f"ReductionKernel: out must be one element of {self.dtype_out}")
        stages = _reduce.kernels(self.source, self._name, self._codes, nvcc=True)
        return _reduce.run(stages, self.dtype_out, n, values, out, stream)
