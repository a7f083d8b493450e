"""Device arrays with numpy-style arithmetic, as PyCUDA's ``pycuda.gpuarray``.

::

    import numpy as np
    import cudyn.autoinit
    from cudyn import gpuarray

    x = gpuarray.to_gpu(np.random.rand(1 << 20).astype(np.float32))
    y = 2 * x + 1                   # two cached elementwise kernels
    print(y.get()[:4], gpuarray.sum(y).get(), gpuarray.dot(x, y).get())

Arithmetic runs cudyn's expression kernels (``cudyn_elementwise_*`` and
``cudyn_reduction_*``): each operator and dtype combination is compiled once
per machine (the persistent kernel cache makes later processes skip NVRTC)
and kept in this process, so a repeated operation builds no string and
looks up one dict entry.  Arrays are C-contiguous for arithmetic; shapes
must match (no broadcasting, as in PyCUDA); operands live on one device.

Results are allocated on the calling thread's device.  Memory of arrays
that die is kept for the next array of the same size (as CuPy's pool does)
while the legacy default stream orders all work; :func:`free_pool` gives
it back to the driver.
"""

import os
import sys

from . import _numpy
from . import _cudyn

np = _numpy("cudyn.gpuarray")  # arrays need numpy: an ImportError that says so

__all__ = ["GPUArray", "to_gpu", "to_gpu_async", "empty", "zeros", "ones", "empty_like", "zeros_like",
           "ones_like", "arange", "sum", "dot", "max", "min", "free_pool", "pool_info"]

_DeviceArray = _cudyn.DeviceArray
_DeviceMemory = _cudyn.DeviceMemory

# numpy type character -> the C type cudyn's expression kernels accept
_C_TYPES = {
    "?": "bool", "b": "signed char", "B": "unsigned char", "h": "short", "H": "unsigned short",
    "i": "int", "I": "unsigned int", "l": "long long", "L": "unsigned long long", "q": "long long",
    "Q": "unsigned long long", "e": "__half", "f": "float", "d": "double",
}
_OPERATORS = {"add": "+", "sub": "-", "mul": "*", "div": "/"}


def c_type(dtype):
    """The C type of a numpy dtype in cudyn's expression kernels ('float' for float32)."""
    dtype = np.dtype(dtype)
    try:
        return _C_TYPES[dtype.char]
    except KeyError:
        raise TypeError(f"cudyn.gpuarray: no kernel type for dtype {dtype} (supported: bool, integers,"
                        " float16, float32, float64)") from None


# ------------------------------------------------------------ memory pool

_POOL_LIMIT = 1 << 30  # bytes kept for reuse at most
_pool = {}             # (device, nbytes) -> [DeviceMemory, ...]
_pool_bytes = 0
# Reuse is safe while one stream orders all the work: the legacy default
# stream (cudyn's default).  With the per-thread default stream two
# threads' work is not ordered, so nothing is pooled.
_pool_enabled = os.environ.get("CUDYN_PTDS", "0") in ("", "0") and \
    os.environ.get("CUDYN_GPUARRAY_POOL", "1") != "0"


def free_pool():
    """Frees the device memory kept for reuse by arrays that died; returns the bytes freed."""
    global _pool_bytes
    freed = _pool_bytes
    blocks = [m for ms in _pool.values() for m in ms]
    _pool.clear()
    _pool_bytes = 0
    for memory in blocks:
        memory.free()
    return freed


def pool_info():
    """(blocks, bytes) of device memory kept for reuse now."""
    return (len([m for ms in _pool.values() for m in ms]), _pool_bytes)


def _allocate(nbytes):
    if _pool:  # empty unless pooling is enabled
        blocks = _pool.get((_device_current(), nbytes))
        if blocks:
            global _pool_bytes
            _pool_bytes -= nbytes
            return blocks.pop()
    try:
        return _DeviceMemory(nbytes)
    except _cudyn.OutOfMemory:
        if not _pool_bytes:
            raise
        free_pool()
        return _DeviceMemory(nbytes)


_getrefcount = sys.getrefcount
_device_current = _cudyn.device_current


# ------------------------------------------------------------ the array

class GPUArray(_DeviceArray):
    """An n-dimensional array in device memory (PyCUDA's ``GPUArray``).

    Made by :func:`to_gpu`, :func:`empty`, :func:`zeros` and the operators.
    Attributes (from :class:`cudyn.DeviceArray`): ``shape``, ``dtype``,
    ``strides``, ``size``, ``nbytes``, ``itemsize``, ``ptr``, ``device``.
    ``get()`` copies to numpy, ``set(a)`` from numpy.  ``+ - * / **`` and
    unary ``-`` take another array of the same shape or a scalar and make a
    new array; ``+= -= *= /=`` write in place.  It speaks
    ``__cuda_array_interface__`` and DLPack, so CuPy, PyTorch, JAX and Numba
    take it without a copy.
    """

    __array_ufunc__ = None  # numpy scalars defer to our reflected operators

    def __del__(self):
        # keep the memory of a dying array for the next one of its size,
        # unless someone else holds it (a view, a DLPack consumer)
        global _pool_bytes
        if not _pool_enabled:
            return
        try:
            memory = self.base
            if type(memory) is not _DeviceMemory or _getrefcount(memory) > 3 or self.stream is not None:
                return
            nbytes = memory.nbytes
            if _pool_bytes + nbytes > _POOL_LIMIT or getattr(memory, "managed", False):
                return
            _pool.setdefault((memory.device, nbytes), []).append(memory)
            _pool_bytes += nbytes
        except Exception:  # at interpreter exit modules may be gone
            pass

    # -- arithmetic --------------------------------------------------
    def __add__(self, other):
        return _binary(self, other, "add", False, None)

    def __radd__(self, other):
        return _binary(self, other, "add", True, None)

    def __sub__(self, other):
        return _binary(self, other, "sub", False, None)

    def __rsub__(self, other):
        return _binary(self, other, "sub", True, None)

    def __mul__(self, other):
        return _binary(self, other, "mul", False, None)

    def __rmul__(self, other):
        return _binary(self, other, "mul", True, None)

    def __truediv__(self, other):
        return _binary(self, other, "div", False, None)

    def __rtruediv__(self, other):
        return _binary(self, other, "div", True, None)

    def __iadd__(self, other):
        return _binary(self, other, "add", False, self)

    def __isub__(self, other):
        return _binary(self, other, "sub", False, self)

    def __imul__(self, other):
        return _binary(self, other, "mul", False, self)

    def __itruediv__(self, other):
        return _binary(self, other, "div", False, self)

    def __pow__(self, other):
        return _binary(self, other, "pow", False, None)

    def __rpow__(self, other):
        return _binary(self, other, "pow", True, None)

    def __neg__(self):
        return _unary(self, "neg")

    def __pos__(self):
        return self.copy()

    def __abs__(self):
        return _unary(self, "abs")

    def mul_add(self, selffac, other, otherfac, stream=None):
        """``selffac * self + otherfac * other`` in one kernel (PyCUDA's mul_add)."""
        return _axpbyz(selffac, self, otherfac, other, None, stream)

    # -- whole-array operations --------------------------------------
    def fill(self, value, stream=None):
        """Sets every element to ``value``; returns self."""
        _require_contiguous(self, "fill")
        kernel = _fill_kernel(self.dtype)
        kernel.launch(self.size, value, self, stream=stream)
        return self

    def copy(self, stream=None):
        """A new array with the same contents (a device-to-device copy)."""
        _require_contiguous(self, "copy")
        out = _new_like(self, self.dtype)
        if self.nbytes:
            _cudyn.memcpy_dtod(out.ptr, self.ptr, self.nbytes, stream=stream)
        return out

    def astype(self, dtype, stream=None):
        """A new array with the elements converted to ``dtype``."""
        dtype = np.dtype(dtype)
        if dtype == self.dtype:
            return self.copy(stream)
        _require_contiguous(self, "astype")
        out = _new_like(self, dtype)
        _convert_kernel(self.dtype, dtype).launch(self.size, self, out, stream=stream)
        return out

    def reshape(self, *shape):
        """A view with another shape and the same elements (C order)."""
        if len(shape) == 1 and not isinstance(shape[0], int):
            shape = tuple(shape[0])
        shape = tuple(int(s) for s in shape)
        if -1 in shape:
            known = 1
            for s in shape:
                if s != -1:
                    known *= s
            shape = tuple(self.size // known if s == -1 else s for s in shape)
        count = 1
        for s in shape:
            count *= s
        if count != self.size:
            raise ValueError(f"cannot reshape an array of {self.size} elements into shape {shape}")
        _require_contiguous(self, "reshape")
        return type(self)(shape, self.dtype, ptr=self.ptr, owner=self)

    def ravel(self):
        """A one-dimensional view of a contiguous array."""
        return self.reshape((self.size,))

    def sum(self, stream=None):
        """The sum of the elements as a GPUArray of shape () (see :func:`sum`)."""
        return sum(self, stream=stream)

    def dot(self, other, stream=None):
        """The dot product with ``other`` as a GPUArray of shape () (see :func:`dot`)."""
        return dot(self, other, stream=stream)

    def max(self, stream=None):
        """The largest element as a GPUArray of shape () (NaN if any is NaN)."""
        return max(self, stream=stream)

    def min(self, stream=None):
        """The smallest element as a GPUArray of shape () (NaN if any is NaN)."""
        return min(self, stream=stream)

    def __len__(self):
        if not self.shape:
            raise TypeError("len() of a 0-d array")
        return self.shape[0]

    def __repr__(self):
        return f"GPUArray({self.get()!r}, device={self.device})"

    __str__ = lambda self: str(self.get())  # noqa: E731


# ------------------------------------------------------------ kernels

_kernels = {}  # key -> kernel object, per process


def _elementwise(key, params, body, name):
    kernel = _kernels.get(key)
    if kernel is None:
        kernel = _kernels[key] = _cudyn.Elementwise(params, body, name)
    return kernel


def _name(*parts):
    return "_".join(str(p) for p in parts)


def _char(dtype):
    return "l" if dtype.char == "q" else "L" if dtype.char == "Q" else dtype.char


def _scalar_type(dtype, scalar):
    """The result dtype of an array of ``dtype`` with a scalar (numpy 2 rules:
    Python numbers are weak, numpy scalars are not)."""
    if isinstance(scalar, (bool, np.bool_)) and dtype.kind != "b":
        return dtype
    if type(scalar) in (int, float, complex):
        if type(scalar) is float and dtype.kind in "biu":
            return np.dtype(np.float64)
        if type(scalar) is complex:
            raise TypeError("cudyn.gpuarray: complex arithmetic is not supported")
        return dtype
    if isinstance(scalar, np.generic):
        return np.result_type(dtype, scalar.dtype)
    raise TypeError(f"cudyn.gpuarray: cannot combine an array with {type(scalar).__name__}")


def _result_dtype(op, dtype):
    if op in ("div", "pow") and dtype.kind in "biu":
        return np.dtype(np.float64)
    return dtype


def _expression(op, left, right, result_ctype):
    if op == "pow":
        if result_ctype == "float":
            return f"powf({left}, {right})"
        return f"({result_ctype})pow((double)({left}), (double)({right}))"
    return f"{left} {_OPERATORS[op]} {right}"


def _scalar_kernel(op, reflected, x_dtype, scalar_type, scalar):
    """(kernel, result dtype) for array OP scalar."""
    result = _result_dtype(op, _scalar_type(x_dtype, scalar))
    r, t = c_type(result), c_type(x_dtype)
    x = f"({r})x[i]" if r != t else "x[i]"
    body = "z[i] = " + (_expression(op, "a", x, r) if reflected else _expression(op, x, "a", r))
    name = _name("ga", op, "rs" if reflected else "s", _char(x_dtype), _char(result))
    kernel = _cudyn.Elementwise(f"{r} a, const {t} *x, {r} *z", body, name)
    return kernel, result


def _array_kernel(op, x_dtype, y_dtype):
    """(kernel, result dtype) for array OP array."""
    result = _result_dtype(op, np.result_type(x_dtype, y_dtype))
    r, tx, ty = c_type(result), c_type(x_dtype), c_type(y_dtype)
    x = f"({r})x[i]" if r != tx else "x[i]"
    y = f"({r})y[i]" if r != ty else "y[i]"
    name = _name("ga", op, _char(x_dtype), _char(y_dtype), _char(result))
    kernel = _cudyn.Elementwise(f"const {tx} *x, const {ty} *y, {r} *z", "z[i] = " + _expression(op, x, y, r),
                                name)
    return kernel, result


def _require_contiguous(a, what):
    if not a.is_contiguous:
        raise ValueError(f"cudyn.gpuarray.{what}: the array is not contiguous (strides {a.strides} for shape"
                         f" {a.shape}); make a contiguous copy first")


def _new_like(a, dtype):
    # positional arguments: (shape, dtype, strides, memory) parse fastest
    nbytes = a.size * dtype.itemsize
    return GPUArray(a.shape, dtype, None, _allocate(nbytes)) if nbytes else GPUArray(a.shape, dtype)


def _check_out(out, shape, dtype):
    if out.shape != shape:
        raise ValueError(f"cudyn.gpuarray: in-place result of shape {out.shape} for operands of shape {shape}")
    if out.dtype != dtype:
        raise TypeError(f"cudyn.gpuarray: cannot write a {dtype} result into an array of {out.dtype} in place")


def _as_device_array(other):
    if isinstance(other, _DeviceArray):
        return other
    if isinstance(other, np.ndarray):
        if other.ndim == 0:
            return None
        raise TypeError("cudyn.gpuarray: a numpy array is host memory; copy it to the device first"
                        " (cudyn.gpuarray.to_gpu)")
    if hasattr(other, "__cuda_array_interface__") or hasattr(other, "__dlpack__"):
        return _cudyn.asarray(other)
    return None


_scalars = {}  # (op, reflected, dtype, type of the scalar) -> (kernel, result dtype)
_arrays = {}   # (op, dtype, dtype) -> (kernel, result dtype)


def _binary(x, other, op, reflected, out):
    """x OP other (reflected: other OP x), into `out` or a new array."""
    if not x.is_contiguous:
        _require_contiguous(x, _OPERATORS.get(op, op))
    y = other if isinstance(other, _DeviceArray) else _as_device_array(other)
    if y is None:  # a scalar
        if isinstance(other, np.ndarray):
            other = other[()]
        key = (op, reflected, x.dtype, type(other))
        entry = _scalars.get(key)
        if entry is None:
            if isinstance(other, np.generic) or type(other) in (int, float, bool, complex):
                entry = _scalars[key] = _scalar_kernel(op, reflected, x.dtype, type(other), other)
            else:
                return NotImplemented
        kernel, result = entry
        if out is None:
            out = _new_like(x, result)
        else:
            _check_out(out, x.shape, result)
        kernel.launch(x.size, other, x, out)
        return out
    if y.shape != x.shape:
        raise ValueError(f"cudyn.gpuarray: shapes {x.shape} and {y.shape} differ (no broadcasting)")
    if not y.is_contiguous:
        _require_contiguous(y, _OPERATORS.get(op, op))
    if y.device != x.device:
        raise ValueError(f"cudyn.gpuarray: operands on devices {x.device} and {y.device}; copy one first")
    if reflected:
        x, y = y, x
    key = (op, x.dtype, y.dtype)
    entry = _arrays.get(key)
    if entry is None:
        entry = _arrays[key] = _array_kernel(op, x.dtype, y.dtype)
    kernel, result = entry
    if out is None:
        out = _new_like(x, result)
    else:
        _check_out(out, x.shape, result)
    kernel.launch(x.size, x, y, out)
    return out


def _unary(x, op):
    _require_contiguous(x, op)
    key = ("unary", op, x.dtype)
    kernel = _kernels.get(key)
    if kernel is None:
        t = c_type(x.dtype)
        body = {"neg": "z[i] = -x[i]", "abs": "z[i] = x[i] < 0 ? -x[i] : x[i]"}[op]
        kernel = _elementwise(key, f"const {t} *x, {t} *z", body, _name("ga", op, _char(x.dtype)))
    out = _new_like(x, x.dtype)
    kernel.launch(x.size, x, out)
    return out


def _axpbyz(a, x, b, y, out, stream):
    if x.shape != y.shape:
        raise ValueError(f"cudyn.gpuarray: shapes {x.shape} and {y.shape} differ (no broadcasting)")
    _require_contiguous(x, "mul_add")
    _require_contiguous(y, "mul_add")
    dtype = np.result_type(x.dtype, y.dtype)
    key = ("axpbyz", x.dtype, y.dtype)
    kernel = _kernels.get(key)
    if kernel is None:
        r = c_type(dtype)
        kernel = _elementwise(key, f"{r} a, const {c_type(x.dtype)} *x, {r} b, const {c_type(y.dtype)} *y, {r} *z",
                              f"z[i] = a * ({r})x[i] + b * ({r})y[i]", _name("ga_axpbyz", _char(x.dtype),
                                                                          _char(y.dtype)))
    if out is None:
        out = _new_like(x, dtype)
    kernel.launch(x.size, a, x, b, y, out, stream=stream)
    return out


def _fill_kernel(dtype):
    key = ("fill", dtype)
    kernel = _kernels.get(key)
    if kernel is None:
        t = c_type(dtype)
        kernel = _elementwise(key, f"{t} a, {t} *z", "z[i] = a", _name("ga_fill", _char(dtype)))
    return kernel


def _convert_kernel(source, target):
    key = ("astype", source, target)
    kernel = _kernels.get(key)
    if kernel is None:
        s, t = c_type(source), c_type(target)
        kernel = _elementwise(key, f"const {s} *x, {t} *z", f"z[i] = ({t})x[i]",
                              _name("ga_astype", _char(source), _char(target)))
    return kernel


# ------------------------------------------------------------ reductions

def _sum_type(dtype):
    """numpy's accumulator for sum: integers widen to 64 bits."""
    if dtype.kind == "b" or (dtype.kind == "i" and dtype.itemsize < 8):
        return np.dtype(np.int64)
    if dtype.kind == "u" and dtype.itemsize < 8:
        return np.dtype(np.uint64)
    if dtype.char == "e":
        return np.dtype(np.float32)
    return dtype


_LOWEST = {"f": "__int_as_float(0xff800000)", "d": "__longlong_as_double(0xfff0000000000000ULL)"}
_HIGHEST = {"f": "__int_as_float(0x7f800000)", "d": "__longlong_as_double(0x7ff0000000000000ULL)"}


def _limit(dtype, lowest):
    table = _LOWEST if lowest else _HIGHEST
    if dtype.char in table:
        return table[dtype.char]
    info = np.iinfo(dtype)
    value = info.min if lowest else info.max
    suffix = "ULL" if dtype.kind == "u" else "LL"
    if value == -(1 << 63):
        return "(-9223372036854775807LL - 1)"
    return f"({c_type(dtype)}){value}{suffix}"


def _reduction(key, result_dtype, neutral, reduce_expr, map_expr, params, name):
    kernel = _kernels.get(key)
    if kernel is None:
        kernel = _kernels[key] = _cudyn.Reduction(c_type(result_dtype), neutral, reduce_expr, map_expr, params, name)
    return kernel


def _reduce_into(kernel, dtype, n, args, stream):
    out = GPUArray((), dtype, memory=_allocate(dtype.itemsize))
    kernel.run(n, *args, out=out, stream=stream)
    return out


def _reducible(a, what):
    if not isinstance(a, _DeviceArray):
        a = _as_device_array(a)
        if a is None:
            raise TypeError(f"cudyn.gpuarray.{what}: a device array is needed")
    _require_contiguous(a, what)
    return a


def sum(a, dtype=None, stream=None):
    """The sum of the elements as a GPUArray of shape () (numpy's result
    type: integers accumulate in 64 bits).  Deterministic: the same
    input gives the same bits on a device every time."""
    a = _reducible(a, "sum")
    result = np.dtype(dtype) if dtype is not None else _sum_type(a.dtype)
    key = ("sum", a.dtype, result)
    kernel = _kernels.get(key)
    if kernel is None:
        r = c_type(result)
        kernel = _reduction(key, result, "0", "a + b", f"({r})x[i]", f"const {c_type(a.dtype)} *x",
                            _name("ga_sum", _char(a.dtype), _char(result)))
    return _reduce_into(kernel, result, a.size, (a,), stream)


def dot(a, b, dtype=None, stream=None):
    """The dot product of two arrays of the same size (flattened) as a GPUArray of shape ()."""
    a = _reducible(a, "dot")
    b = _reducible(b, "dot")
    if a.size != b.size:
        raise ValueError(f"cudyn.gpuarray.dot: sizes {a.size} and {b.size} differ")
    if a.device != b.device:
        raise ValueError(f"cudyn.gpuarray.dot: operands on devices {a.device} and {b.device}")
    result = np.dtype(dtype) if dtype is not None else np.result_type(a.dtype, b.dtype)
    key = ("dot", a.dtype, b.dtype, result)
    kernel = _kernels.get(key)
    if kernel is None:
        r, ta, tb = c_type(result), c_type(a.dtype), c_type(b.dtype)
        if r == ta == tb == "float":  # the name and text of examples/elementwise.c's dot
            name, map_expr = "dot", "x[i] * y[i]"
        else:
            name, map_expr = _name("ga_dot", _char(a.dtype), _char(b.dtype), _char(result)), \
                f"({r})x[i] * ({r})y[i]"
        kernel = _reduction(key, result, "0", "a + b", map_expr, f"const {ta} *x, const {tb} *y", name)
    return _reduce_into(kernel, result, a.size, (a, b), stream)


def _extremum(a, lowest, what, stream):
    a = _reducible(a, what)
    if a.size == 0:
        raise ValueError(f"cudyn.gpuarray.{what}: a zero-size array has no {'maximum' if lowest else 'minimum'}")
    key = (what, a.dtype)
    kernel = _kernels.get(key)
    if kernel is None:
        t = c_type(a.dtype)
        compare = ">" if lowest else "<"
        kernel = _reduction(key, a.dtype, _limit(a.dtype, lowest), f"(a {compare} b || a != a) ? a : b", "x[i]",
                            f"const {t} *x", _name("ga", what, _char(a.dtype)))
    return _reduce_into(kernel, a.dtype, a.size, (a,), stream)


def max(a, stream=None):
    """The largest element as a GPUArray of shape (); NaN if any element is NaN."""
    return _extremum(a, True, "max", stream)


def min(a, stream=None):
    """The smallest element as a GPUArray of shape (); NaN if any element is NaN."""
    return _extremum(a, False, "min", stream)


# ------------------------------------------------------------ making arrays

def _shape(shape):
    if isinstance(shape, (int, np.integer)):
        return (int(shape),)
    return tuple(int(s) for s in shape)


def empty(shape, dtype=np.float32, order="C", managed=False):
    """An uninitialised device array (C order only)."""
    if order != "C":
        raise ValueError("cudyn.gpuarray: only C order is supported")
    shape, dtype = _shape(shape), np.dtype(dtype)
    if any(s < 0 for s in shape):
        raise ValueError(f"cudyn.gpuarray: negative dimension in shape {shape}")
    count = 1
    for s in shape:
        count *= s
    nbytes = count * dtype.itemsize
    if managed:
        return GPUArray(shape, dtype, memory=_DeviceMemory(nbytes or 1, managed=True))
    return GPUArray(shape, dtype, memory=_allocate(nbytes)) if nbytes else GPUArray(shape, dtype)


def zeros(shape, dtype=np.float32, order="C"):
    """A device array filled with zeros."""
    a = empty(shape, dtype, order)
    if a.nbytes:
        _cudyn.memset_d8(a.ptr, 0, a.nbytes)
    return a


def ones(shape, dtype=np.float32, order="C"):
    """A device array filled with ones."""
    return empty(shape, dtype, order).fill(1)


def empty_like(a, dtype=None):
    """An uninitialised array with ``a``'s shape (and dtype unless given)."""
    return empty(a.shape, a.dtype if dtype is None else dtype)


def zeros_like(a, dtype=None):
    """A zero-filled array with ``a``'s shape (and dtype unless given)."""
    return zeros(a.shape, a.dtype if dtype is None else dtype)


def ones_like(a, dtype=None):
    """An array of ones with ``a``'s shape (and dtype unless given)."""
    return ones(a.shape, a.dtype if dtype is None else dtype)


def to_gpu(ary, stream=None):
    """A device copy of a host array (numpy or anything with the buffer protocol)."""
    ary = np.asarray(ary)
    if not ary.flags.c_contiguous:
        ary = np.ascontiguousarray(ary)
    a = empty(ary.shape, ary.dtype)
    if a.nbytes:
        a.set(ary, stream=stream)
    return a


def to_gpu_async(ary, stream=None):
    """As :func:`to_gpu`, asynchronous on ``stream`` (use pinned memory for a real overlap)."""
    return to_gpu(ary, stream=stream)


def arange(*args, dtype=None):
    """numpy.arange's values in a device array."""
    return to_gpu(np.arange(*args, dtype=dtype))
