"""``ElementwiseKernel`` and ``ReductionKernel``: PyCUDA's front ends over
cudyn's expression kernels (``cudyn_elementwise_*``, ``cudyn_reduction_*``).

::

    from cudyn.elementwise import ElementwiseKernel, ReductionKernel

    lin_comb = ElementwiseKernel("float a, const float *x, float b, const float *y, float *z",
                                 "z[i] = a * x[i] + b * y[i]", "lin_comb")
    lin_comb(np.float32(2), x, np.float32(3), y, z)     # n = x.size

    dot = ReductionKernel(np.float32, neutral="0", reduce_expr="a + b", map_expr="x[i] * y[i]",
                          arguments="const float *x, const float *y")
    print(dot(x, y).get())

The kernel is written, compiled (through cudyn's cache) and loaded on the
first call, on the calling thread's device; later calls reuse it.  Errors
in the text raise :class:`cudyn.CompileError` naming the line of the
operation or map expression at fault.
"""

import threading

from . import _numpy
from . import _cudyn

np = _numpy("cudyn.elementwise")  # arrays need numpy: an ImportError that says so

__all__ = ["ElementwiseKernel", "ReductionKernel", "get_elwise_kernel"]


def _element_count(args, what):
    for a in args:
        if isinstance(a, _cudyn.DeviceArray):
            return a.size
        interface = getattr(a, "__cuda_array_interface__", None)
        if interface is not None:
            count = 1
            for s in interface["shape"]:
                count *= s
            return count
    raise TypeError(f"{what}: no device array among the arguments to take the element count from;"
                    " pass range=N")


class _LazyKernel:
    """What both front ends share: the C kernel object, made by ``_make()``
    on first use, once even when threads call at the same time."""

    def __init__(self):
        self._kernel = None
        self._lock = threading.Lock()

    def _make(self):
        raise NotImplementedError

    @property
    def kernel(self):
        """The underlying :class:`cudyn.Elementwise` or :class:`cudyn.Reduction` (compiled on first use)."""
        k = self._kernel
        if k is None:
            with self._lock:
                if self._kernel is None:
                    self._kernel = self._make()
                k = self._kernel
        return k

    @property
    def source(self):
        """The generated CUDA C++ source."""
        return self.kernel.source


class ElementwiseKernel(_LazyKernel):
    """A kernel that runs ``operation`` for each index ``i`` (PyCUDA's ElementwiseKernel).

    ``arguments``: C declarations, e.g. ``"float a, const float *x, float *y"``
    (scalars and pointers to scalars: bool, integers, __half, float,
    double).  ``operation``: statements using ``i``, ``n`` and the arguments.
    ``preamble``: ``#include`` lines and ``__device__`` helpers.  Call it with
    one value per argument (numpy scalars or Python numbers for scalars,
    device arrays for pointers); ``n`` is the size of the first device array
    unless ``range=N`` is given.  ``stream=`` runs it on a stream.
    """

    def __init__(self, arguments, operation, name="kernel", preamble="", options=None):
        if options:
            raise TypeError("ElementwiseKernel: options are not supported; cudyn compiles expression kernels"
                            " with its own settings")
        if not isinstance(arguments, str):
            raise TypeError("ElementwiseKernel: arguments is one string of C declarations, e.g."
                            " 'float a, const float *x'")
        self.arguments = arguments
        self.operation = operation
        self.name = name
        self.preamble = preamble or ""
        super().__init__()

    def _make(self):
        return _cudyn.Elementwise(self.arguments, self.operation, self.name, self.preamble)

    def __call__(self, *args, stream=None, range=None):
        n = _element_count(args, f"ElementwiseKernel {self.name}") if range is None else int(range)
        k = self._kernel or self.kernel
        k.launch(n, *args, stream=stream)


def get_elwise_kernel(arguments, operation, name="kernel", preamble=""):
    """PyCUDA's name for making an :class:`ElementwiseKernel`."""
    return ElementwiseKernel(arguments, operation, name, preamble)


class ReductionKernel(_LazyKernel):
    """A reduction (PyCUDA's ReductionKernel): ``map_expr`` gives element
    ``i``'s value, ``reduce_expr`` combines two values ``a`` and ``b``, starting
    from ``neutral``.  Calling it returns a :class:`cudyn.gpuarray.GPUArray`
    of shape () and dtype ``dtype_out``; ``.get()`` reads it.  The result is
    deterministic: a fixed order per device and size, whichever block ends last.

    ``arguments`` default to ``"const T *in"`` and ``map_expr`` to ``"in[i]"``
    (T from ``dtype_out``).
    """

    def __init__(self, dtype_out, neutral, reduce_expr, map_expr=None, arguments=None, name="reduce_kernel",
                 preamble="", options=None):
        from .gpuarray import c_type
        if options:
            raise TypeError("ReductionKernel: options are not supported")
        self.dtype_out = np.dtype(dtype_out)
        result = c_type(self.dtype_out)
        self.neutral = str(neutral)
        self.reduce_expr = reduce_expr
        self.arguments = arguments if arguments is not None else f"const {result} *in"
        self.map_expr = map_expr if map_expr is not None else "in[i]"
        self.name = name
        self.preamble = preamble or ""
        self._result = result
        super().__init__()

    def _make(self):
        return _cudyn.Reduction(self._result, self.neutral, self.reduce_expr, self.map_expr, self.arguments,
                                self.name, self.preamble)

    def __call__(self, *args, stream=None, range=None, out=None):
        from .gpuarray import GPUArray, _allocate
        n = _element_count(args, f"ReductionKernel {self.name}") if range is None else int(range)
        k = self._kernel or self.kernel
        if out is None:
            out = GPUArray((), self.dtype_out, memory=_allocate(self.dtype_out.itemsize))
        k.run(n, *args, out=out, stream=stream)
        return out
