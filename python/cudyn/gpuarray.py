"""Device arrays with numpy-style arithmetic, as PyCUDA's ``pycuda.gpuarray``.

::

    import numpy as np
    import cudyn.autoinit
    from cudyn import gpuarray

    x = gpuarray.to_gpu(np.random.rand(1 << 20).astype(np.float32))
    y = 2 * x + 1                   # two cached elementwise kernels
    print(y.get()[:4], gpuarray.sum(y).get(), gpuarray.dot(x, y).get())

Arithmetic on contiguous real arrays of one shape runs cudyn's expression
kernels (``cudyn_elementwise_*`` and ``cudyn_reduction_*``): each operator
and dtype combination is compiled once per machine (the persistent kernel
cache makes later processes skip NVRTC) and kept in this process, so a
repeated operation builds no string and looks up one dict entry.  Every
other case (complex numbers, comparisons, views with strides, Fortran
order, shapes that broadcast, an ``out`` of another dtype) runs kernels
written for its operands' layout (cudyn._ops, cudyn._codegen), compiled
and kept the same way.  Operands live on one device.

Indexing gives views (ints, slices with steps, ``...``, ``numpy.newaxis``);
``get``, ``set``, ``copy`` and assignment to an index take any layout.

Results are allocated on the calling thread's device.  Memory of arrays
that die is kept for the next array of the same size (as CuPy's pool does)
while the legacy default stream orders all work; :func:`free_pool` gives
it back to the driver.
"""

import builtins as _builtins
import os
import sys

from . import _numpy
from . import _cudyn

np = _numpy("cudyn.gpuarray")  # arrays need numpy: an ImportError that says so

# they need numpy too, asked for above
from . import _ops, _strided, _views  # noqa: E402
from ._codegen import ctype as _codegen_ctype  # noqa: E402
from ._codegen import register_dtype  # noqa: E402,F401 (kernels know a struct dtype by the name registered)

__all__ = ["GPUArray", "to_gpu", "to_gpu_async", "empty", "zeros", "ones", "empty_like", "zeros_like",
           "ones_like", "arange", "sum", "dot", "max", "min", "any", "all", "subset_sum", "subset_dot", "subset_max",
           "subset_min", "where", "if_positive", "maximum", "minimum", "logical_and", "logical_or", "logical_not",
           "concatenate", "stack", "take", "multi_take", "multi_put", "multi_take_put", "transpose", "reshape",
           "vec", "free_pool", "pool_info"]

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
    if not dtype.isnative:
        return _codegen_ctype(dtype)  # which refuses it, saying why
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

    Made by :func:`to_gpu`, :func:`empty`, :func:`zeros` and the operators,
    or over existing memory: ``GPUArray(shape, dtype, gpudata=memory,
    strides=..., order="C"|"F")`` (PyCUDA's keywords; ``gpudata`` is a
    :class:`cudyn.DeviceMemory`, an int address or any object with
    ``__int__``, kept alive by the array).  Attributes (from
    :class:`cudyn.DeviceArray`): ``shape``, ``dtype``, ``strides``,
    ``size``, ``nbytes``, ``itemsize``, ``ptr``, ``device``, ``flags``,
    ``gpudata``.  ``get()`` copies to numpy, ``set(a)`` from numpy, any
    layout.  Indexing with ints, slices (steps too), ``...`` and
    ``numpy.newaxis`` gives views; assigning to an index writes into them.
    Operators follow numpy: ``+ - * / **``, comparisons (giving bool
    arrays), unary ``-`` and ``abs``, in place ``+= -= *= /= **=``, with
    scalars or arrays whose shapes broadcast, complex numbers included.
    It speaks ``__cuda_array_interface__`` and DLPack, so CuPy, PyTorch,
    JAX and Numba take it without a copy.
    """

    __array_ufunc__ = None  # numpy scalars defer to our reflected operators

    def __new__(cls, shape, dtype=np.float32, strides=None, memory=None, ptr=None, owner=None, stream=None, *,
                allocator=None, base=None, gpudata=None, order="C"):
        if callable(strides):  # PyCUDA's third positional parameter is the allocator
            strides, allocator = None, strides
        shape, dtype = _shape(shape), np.dtype(dtype)
        if order not in ("C", "F"):
            raise ValueError(f"cudyn.gpuarray: order must be 'C' or 'F', not {order!r}")
        if strides is None and order == "F":
            strides = _views.f_strides(shape, dtype.itemsize)
        if owner is None and base is not None:
            owner = base
        if gpudata is not None:
            if memory is not None or ptr is not None:
                raise ValueError("cudyn.gpuarray: give gpudata, memory or ptr, not more than one")
            if type(gpudata) is _DeviceMemory and not gpudata.freed and gpudata.ptr:
                memory = gpudata
            else:
                ptr = int(gpudata)
                owner = gpudata if owner is None and not isinstance(gpudata, int) else owner
        elif allocator is not None and memory is None and ptr is None:
            low, high = _views.extent(shape, strides or _views.c_strides(shape, dtype.itemsize), dtype.itemsize)
            block = allocator(_builtins.max(high - low, 1))
            if type(block) is _DeviceMemory and not low:
                memory = block
            else:
                ptr, owner = int(block) - low, block
        return _DeviceArray.__new__(cls, shape, dtype, strides, memory, ptr, owner, stream)

    def __del__(self):
        # keep the memory of a dying array for the next one of its size,
        # unless someone else holds it (a view, a DLPack consumer)
        global _pool_bytes
        if not _pool_enabled:
            return
        try:
            memory = self.base  # held by our owner and memory slots, this name and getrefcount's argument
            if type(memory) is not _DeviceMemory or _getrefcount(memory) > 4 or self.stream is not None:
                return
            nbytes = memory.nbytes
            if _pool_bytes + nbytes > _POOL_LIMIT or getattr(memory, "managed", False):
                return
            _pool.setdefault((memory.device, nbytes), []).append(memory)
            _pool_bytes += nbytes
        except Exception:  # at interpreter exit modules may be gone
            pass

    # -- PyCUDA's attributes -----------------------------------------
    @property
    def gpudata(self):
        """The memory the array starts at, as PyCUDA names it: the
        :class:`cudyn.DeviceMemory` (or the object given as gpudata) when
        the array starts where it does, else the address as an int (a view)."""
        owner = self.base
        ptr = self.ptr
        if owner is not None and not isinstance(owner, _DeviceArray):
            try:
                if int(owner) == ptr:
                    return owner
            except (TypeError, ValueError):
                pass
        return ptr

    @property
    def flags(self):
        """c_contiguous, f_contiguous and forc, as numpy's (axes of length 1 do not count)."""
        return _views.Flags(self.shape, self.strides, self.itemsize)

    @property
    def mem_size(self):
        """The number of elements (PyCUDA's name)."""
        return self.size

    @property
    def __cuda_array_interface__(self):
        interface = _DeviceArray.__cuda_array_interface__.__get__(self)
        interface["strides"] = self.strides  # always given (numpy's), as PyCUDA does
        return interface

    def __bool__(self):
        if self.size != 1:
            raise ValueError("the truth value of an array with more than one element is ambiguous; use a.any() or"
                             " a.all()")
        return bool(self.get().reshape(()))

    __hash__ = None  # == compares elements

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

    def __ipow__(self, other):
        return _binary(self, other, "pow", False, self)

    def __lt__(self, other):
        return _compare(self, other, "lt")

    def __le__(self, other):
        return _compare(self, other, "le")

    def __eq__(self, other):
        return _compare(self, other, "eq")

    def __ne__(self, other):
        return _compare(self, other, "ne")

    def __gt__(self, other):
        return _compare(self, other, "gt")

    def __ge__(self, other):
        return _compare(self, other, "ge")

    def __neg__(self):
        return _unary(self, "neg")

    def __pos__(self):
        return self.copy()

    def __abs__(self):
        return _unary(self, "abs")

    def mul_add(self, selffac, other, otherfac, add_timer=None, stream=None, out=None):
        """``selffac * self + otherfac * other`` in one kernel (PyCUDA's mul_add)."""
        if add_timer is not None:
            raise TypeError("cudyn.gpuarray.mul_add: add_timer is not supported; time with cudyn.Event")
        return _axpbyz(selffac, self, otherfac, other, out, stream)

    # -- complex numbers ---------------------------------------------
    @property
    def real(self):
        """The real part (a new array; the array itself for real dtypes)."""
        return _ops.unary("real", self) if self.dtype.kind == "c" else self

    @property
    def imag(self):
        """The imaginary part (a new array; zeros for real dtypes)."""
        return _ops.unary("imag", self) if self.dtype.kind == "c" else zeros_like(self)

    def conj(self, out=None, stream=None):
        """The complex conjugate (into ``out`` if given; the array itself for real dtypes)."""
        if self.dtype.kind != "c" and out is None:
            return self
        return _ops.unary("conj", self, out, stream)

    conjugate = conj

    # -- whole-array operations --------------------------------------
    def fill(self, value, stream=None):
        """Sets every element to ``value``; returns self."""
        if self.is_contiguous and self.dtype.char in _C_TYPES and not isinstance(value, complex):
            _fill_kernel(self.dtype).launch(self.size, value, self, stream=stream)
        else:
            _ops.assign(self, value, stream)
        return self

    def copy(self, stream=None):
        """A new array with the same contents: a device-to-device copy, in the
        same layout for C, Fortran and other dense orders, compact for views
        with gaps."""
        if not self.is_contiguous:
            return _strided.copy(self, stream)
        out = _new_like(self, self.dtype)
        if self.nbytes:
            _cudyn.memcpy_dtod(out.ptr, self.ptr, self.nbytes, stream=stream)
        return out

    def astype(self, dtype, stream=None):
        """A new array with the elements converted to ``dtype``."""
        dtype = np.dtype(dtype)
        if dtype == self.dtype:
            return self.copy(stream)
        if not self.is_contiguous or self.dtype.char not in _C_TYPES or dtype.char not in _C_TYPES:
            return _ops.astype(self, dtype, stream)
        out = _new_like(self, dtype)
        _convert_kernel(self.dtype, dtype).launch(self.size, self, out, stream=stream)
        return out

    def get(self, ary=None, stream=None, pagelocked=False, async_=False):
        """A numpy copy (into ``ary`` if given); any layout (dense layouts keep
        their strides).  ``pagelocked=True`` copies into pinned memory.
        PyCUDA's get(ary, pagelocked, async_, stream) order is understood too
        (a bool second argument is ``pagelocked``)."""
        if isinstance(stream, bool):
            stream, pagelocked = None, stream
        if not self.is_contiguous:
            return _strided.get(self, ary, stream)
        if pagelocked and ary is None:
            from . import pagelocked_empty
            ary = pagelocked_empty(self.shape, self.dtype)
        return _DeviceArray.get(self, ary, stream)

    def get_async(self, stream=None, ary=None):
        """As get(..., stream=stream)."""
        return self.get(ary, stream=stream)

    def set(self, ary, stream=None, async_=False):
        """Copies a host array of the same shape and dtype in; any layout.
        PyCUDA's set(ary, async_, stream) order is understood too."""
        if isinstance(stream, bool):
            stream = async_ if not isinstance(async_, bool) else None
        if not self.is_contiguous:
            return _strided.set(self, np.asarray(ary), stream)
        return _DeviceArray.set(self, ary, stream)

    def set_async(self, ary, stream=None):
        """As set(ary, stream=stream)."""
        return self.set(ary, stream=stream)

    # -- views -------------------------------------------------------
    def _view(self, offset, shape, strides, dtype=None):
        return _view_of(self, offset, shape, strides, dtype)

    def __getitem__(self, key):
        offset, shape, strides = _views.index(self.shape, self.strides, key)
        return self._view(offset, shape, strides)

    def __setitem__(self, key, value):
        self.setitem(key, value)

    def setitem(self, key, value, stream=None):
        """``self[key] = value``: a scalar, a device array or a host array
        (broadcast to the view's shape, converted to the array's dtype)."""
        target = self[key]
        if isinstance(value, np.ndarray) and value.ndim:
            value = np.broadcast_to(np.asarray(value, dtype=self.dtype), target.shape)
            if target.is_contiguous:
                _DeviceArray.set(target, np.ascontiguousarray(value), stream)
            else:
                target.set(np.array(value, order="C"), stream=stream)
        elif isinstance(value, _DeviceArray) and value.dtype == target.dtype and value.shape == target.shape \
                and value.is_contiguous and target.is_contiguous:
            if target.nbytes and value.ptr != target.ptr:
                if value.ptr < target.ptr + target.nbytes and target.ptr < value.ptr + value.nbytes:
                    value = value.copy(stream=stream)  # overlapping: numpy copies the source first
                _cudyn.memcpy_dtod(target.ptr, value.ptr, target.nbytes, stream=stream)
        elif isinstance(value, _DeviceArray):
            _ops.assign(target, value, stream)
        else:
            target.fill(value, stream=stream)

    def view(self, dtype=None):
        """The same memory, as another dtype (the innermost axis rescales) or as is."""
        if dtype is None:
            return self._view(0, self.shape, self.strides)
        dtype = np.dtype(dtype)
        shape, strides = _views.view_as(self.shape, self.strides, self.itemsize, dtype.itemsize)
        return self._view(0, shape, strides, dtype)

    def reshape(self, *shape, order="C"):
        """The elements in another shape, read in ``order`` ('C' or 'F'): a
        view when the array is contiguous in that order, else a copy laid
        out in it (numpy's values; PyCUDA reinterprets the memory instead)."""
        if len(shape) == 1 and not isinstance(shape[0], (int, np.integer)):
            shape = shape[0]
        shape = _views.resolve_shape(shape, self.size)
        if order not in ("C", "F"):
            raise ValueError(f"cudyn.gpuarray.reshape: order must be 'C' or 'F', not {order!r}")
        flags = self.flags
        if order == "C" and flags.c_contiguous:
            return self._view(0, shape, _views.c_strides(shape, self.itemsize))
        if order == "F" and flags.f_contiguous:
            return self._view(0, shape, _views.f_strides(shape, self.itemsize))
        # read in `order` into a compact array of that order, then view it
        source = self if order == "C" else self.transpose()
        compact = empty(source.shape, self.dtype)
        _ops.assign(compact, source)
        strides = _views.c_strides if order == "C" else _views.f_strides
        return compact._view(0, shape, strides(shape, self.itemsize))

    def ravel(self):
        """The elements as one dimension (a view when C-contiguous)."""
        return self.reshape((self.size,))

    def transpose(self, *args, axes=None):
        """A view with the axes permuted (reversed by default): transpose(1, 0),
        transpose((1, 0)) or transpose(axes=(1, 0))."""
        if args:
            axes = args[0] if len(args) == 1 and not isinstance(args[0], (int, np.integer)) else args
        shape, strides = _views.transpose(self.shape, self.strides, axes)
        return self._view(0, shape, strides)

    @property
    def T(self):  # noqa: N802 (numpy's name)
        """The transpose (a view)."""
        return self.transpose()

    def squeeze(self, axis=None):
        """A view without the axes of length 1."""
        shape, strides = _views.squeeze(self.shape, self.strides, axis)
        return self._view(0, shape, strides)

    def reverse(self, stream=None):
        """A copy with the elements of a one-dimensional array in reverse order."""
        if self.ndim != 1:
            raise ValueError("cudyn.gpuarray.reverse: only one-dimensional arrays (use a[::-1] for a view)")
        return self[::-1].copy(stream=stream) if self.size else self.copy(stream=stream)

    def bind_to_texref(self, texref, *args, **kwargs):
        """Refused: texture references were removed in CUDA 12."""
        from .pycuda import Unsupported
        raise Unsupported("GPUArray.bind_to_texref: texture references were removed in CUDA 12; read the array"
                          " through a texture object (cudyn.Texture over a cudyn.Array), or index it directly")

    bind_to_texref_ext = bind_to_texref

    # -- reductions ---------------------------------------------------
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

    def any(self, stream=None, allocator=None):
        """Whether any element is nonzero, as a bool GPUArray of shape ()."""
        return any(self, stream=stream)

    def all(self, stream=None, allocator=None):
        """Whether every element is nonzero, as a bool GPUArray of shape ()."""
        return all(self, stream=stream)

    def __len__(self):
        if not self.shape:
            raise TypeError("len() of a 0-d array")
        return self.shape[0]

    def __repr__(self):
        return f"GPUArray({self.get()!r}, device={self.device})"

    __str__ = lambda self: str(self.get())  # noqa: E731


def _view_of(a, offset, shape, strides, dtype=None):
    """A GPUArray over a's memory at ``offset`` bytes from its element 0.
    Its base is the array that owns the memory, as numpy's views have:
    ``a`` itself, or ``a.base`` when ``a`` is a view already."""
    dtype = a.dtype if dtype is None else dtype
    owner = a.base if isinstance(a.base, _DeviceArray) else a
    ptr = a.ptr + (0 if 0 in shape else offset)  # an empty view stays at the start: never past the end
    return _DeviceArray.__new__(GPUArray, shape, dtype, strides, None, ptr, owner)


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
    """The dtype's letter in kernel names (which take identifier characters only)."""
    return {"q": "l", "Q": "L", "?": "bool"}.get(dtype.char, dtype.char)


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
    return _DeviceArray.__new__(GPUArray, a.shape, dtype, None, _allocate(nbytes)) if nbytes else \
        _DeviceArray.__new__(GPUArray, a.shape, dtype)


def _fits_out(out, shape, dtype):
    """Whether the fast path may write this result into `out`: same shape and
    dtype, contiguous (anything else goes the general way, which checks)."""
    return out.shape == shape and out.dtype == dtype and out.is_contiguous


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


_scalars = {}  # (op, reflected, dtype, type of the scalar) -> (kernel, result dtype), or None: the general way
_arrays = {}   # (op, dtype, dtype) -> (kernel, result dtype)
_SCALAR_TYPES = (int, float, bool)


def _scalar_entry(op, reflected, dtype, other):
    key = (op, reflected, dtype, type(other))
    try:
        return _scalars[key]
    except KeyError:
        pass
    fast = dtype.char in _C_TYPES and (type(other) in _SCALAR_TYPES or
                                       (isinstance(other, np.generic) and other.dtype.char in _C_TYPES))
    entry = _scalars[key] = _scalar_kernel(op, reflected, dtype, type(other), other) if fast else None
    return entry


def _general(op, x, other, reflected, out):
    return _ops.binary(op, other, x, out) if reflected else _ops.binary(op, x, other, out)


def _binary(x, other, op, reflected, out):
    """x OP other (reflected: other OP x), into `out` or a new array: cudyn's
    expression kernels for contiguous real arrays of one shape (the fast
    path), the general kernels (_ops) for every other case."""
    y = other if isinstance(other, _DeviceArray) else _as_device_array(other)
    if y is None:  # a scalar
        if isinstance(other, np.ndarray):
            other = other[()]
        if not (isinstance(other, np.generic) or type(other) in (int, float, bool, complex)):
            return NotImplemented
        entry = _scalar_entry(op, reflected, x.dtype, other)
        if entry is None or not x.is_contiguous:
            return _general(op, x, other, reflected, out)
        kernel, result = entry
        if out is None:
            out = _new_like(x, result)
        elif not _fits_out(out, x.shape, result):
            return _general(op, x, other, reflected, out)
        if isinstance(other, np.generic) and other.dtype != result:
            other = result.type(other)  # the kernel's scalar parameter has the result's type
        kernel.launch(x.size, other, x, out)
        return out
    if y.shape != x.shape or not (x.is_contiguous and y.is_contiguous) or y.device != x.device or \
            x.dtype.char not in _C_TYPES or y.dtype.char not in _C_TYPES:
        return _general(op, x, y, reflected, out)
    if reflected:
        x, y = y, x
    key = (op, x.dtype, y.dtype)
    entry = _arrays.get(key)
    if entry is None:
        entry = _arrays[key] = _array_kernel(op, x.dtype, y.dtype)
    kernel, result = entry
    if out is None:
        out = _new_like(x, result)
    elif not _fits_out(out, x.shape, result) or _overlaps(out, x) or _overlaps(out, y):
        return _ops.binary(op, x, y, out)  # which reads overlapping operands first, as numpy
    kernel.launch(x.size, x, y, out)
    return out


def _overlaps(out, a):
    """Whether a contiguous array shares bytes with out other than as out itself."""
    return a.ptr != out.ptr and a.ptr < out.ptr + out.nbytes and out.ptr < a.ptr + a.nbytes


def _compare(x, other, op):
    """x OP other for the comparisons: a bool array (numpy's result)."""
    try:
        other = _ops.as_operand(other)
    except TypeError:
        return NotImplemented
    return _ops.binary(op, x, other)


def _unary(x, op):
    if not x.is_contiguous or x.dtype.char not in _C_TYPES:
        return _ops.unary(op, x)
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
    fast = x.shape == y.shape and x.is_contiguous and y.is_contiguous and x.dtype.char in _C_TYPES and \
        y.dtype.char in _C_TYPES and type(a) in _SCALAR_TYPES + (np.float32, np.float64) and \
        type(b) in _SCALAR_TYPES + (np.float32, np.float64)
    dtype = np.result_type(x.dtype, y.dtype)
    if not fast or (out is not None and not _fits_out(out, x.shape, dtype)):
        return _ops.binary("add", _ops.binary("mul", x, a, None, stream), _ops.binary("mul", y, b, None, stream),
                           out, stream)
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


# ------------------------------------------------------------ making arrays

def _shape(shape):
    if isinstance(shape, (int, np.integer)):
        return (int(shape),)
    return _views.normalize_shape(shape)


def empty(shape, dtype=np.float32, order="C", managed=False, allocator=None):
    """An uninitialised device array in C or Fortran order."""
    shape, dtype = _shape(shape), np.dtype(dtype)
    if _builtins.any(s < 0 for s in shape):
        raise ValueError(f"cudyn.gpuarray: negative dimension in shape {shape}")
    if order not in ("C", "F"):
        raise ValueError(f"cudyn.gpuarray: order must be 'C' or 'F', not {order!r}")
    strides = _views.f_strides(shape, dtype.itemsize) if order == "F" else None
    if allocator is not None:
        return GPUArray(shape, dtype, strides, allocator=allocator)
    count = 1
    for s in shape:
        count *= s
    nbytes = count * dtype.itemsize
    if managed:
        return GPUArray(shape, dtype, strides, _DeviceMemory(nbytes or 1, managed=True))
    return _DeviceArray.__new__(GPUArray, shape, dtype, strides, _allocate(nbytes)) if nbytes else \
        _DeviceArray.__new__(GPUArray, shape, dtype, strides)


def zeros(shape, dtype=np.float32, order="C", allocator=None):
    """A device array filled with zeros."""
    a = empty(shape, dtype, order, allocator=allocator)
    if a.nbytes:
        _cudyn.memset_d8(a.ptr, 0, a.nbytes)
    return a


def ones(shape, dtype=np.float32, order="C", allocator=None):
    """A device array filled with ones."""
    return empty(shape, dtype, order, allocator=allocator).fill(1)


def _like_order(a, order):
    """The order of an array made like `a`: "K" and "A" keep Fortran order, else C."""
    if order in ("K", "A"):
        flags = _views.Flags(a.shape, a.strides, a.itemsize)
        return "F" if flags.f_contiguous and not flags.c_contiguous else "C"
    return order


def empty_like(a, dtype=None, order="K"):
    """An uninitialised array with ``a``'s shape (and dtype unless given),
    in its order ("K": Fortran order stays Fortran order) or the one given."""
    return empty(a.shape, a.dtype if dtype is None else dtype, _like_order(a, order))


def zeros_like(a, dtype=None, order="K"):
    """A zero-filled array like ``a`` (see :func:`empty_like`)."""
    return zeros(a.shape, a.dtype if dtype is None else dtype, _like_order(a, order))


def ones_like(a, dtype=None, order="K"):
    """An array of ones like ``a`` (see :func:`empty_like`)."""
    return ones(a.shape, a.dtype if dtype is None else dtype, _like_order(a, order))


def to_gpu(ary, stream=None, allocator=None):
    """A device copy of a host array (numpy or anything with the buffer
    protocol), in the same layout: C and Fortran order (and any other order
    of the axes) are kept, a view with gaps arrives compact."""
    if callable(stream):  # PyCUDA's to_gpu(ary, allocator)
        stream, allocator = None, stream
    ary = np.asarray(ary)
    if not ary.flags.c_contiguous:
        if not _views.is_dense(ary.shape, ary.strides, ary.itemsize) or _builtins.min(ary.strides, default=0) < 0:
            ary = np.array(ary, order="K")
        if not ary.flags.c_contiguous:
            return _to_gpu_dense(ary, stream, allocator)
    a = empty(ary.shape, ary.dtype, allocator=allocator)
    if a.nbytes:
        _DeviceArray.set(a, ary, stream)
    return a


def _to_gpu_dense(ary, stream, allocator):
    """A host array whose axes are a permutation of a contiguous layout: its
    bytes in one copy, its strides kept."""
    if allocator is not None:
        a = GPUArray(ary.shape, ary.dtype, ary.strides, allocator=allocator)
    else:
        a = _DeviceArray.__new__(GPUArray, ary.shape, ary.dtype, ary.strides, _allocate(ary.nbytes or 1))
    if ary.nbytes:
        in_memory_order = np.transpose(ary, sorted(range(ary.ndim), key=lambda axis: -ary.strides[axis]))
        _cudyn.memcpy_htod(a.ptr, np.ascontiguousarray(in_memory_order), stream=stream)
    return a


def to_gpu_async(ary, stream=None, allocator=None):
    """As :func:`to_gpu`, asynchronous on ``stream`` (use pinned memory for a real overlap)."""
    return to_gpu(ary, stream=stream, allocator=allocator)


def arange(*args, dtype=None, allocator=None):
    """numpy.arange's values in a device array."""
    return to_gpu(np.arange(*args, dtype=dtype), allocator=allocator)


# ------------------------------------------------------------ elementwise functions

def where(criterion, then_, else_, out=None, stream=None):
    """``then_`` where ``criterion`` is nonzero, ``else_`` elsewhere (numpy.where; scalars too)."""
    return _ops.where(criterion, then_, else_, out, stream)


def if_positive(criterion, then_, else_, out=None, stream=None):
    """``then_`` where ``criterion`` is greater than zero, ``else_`` elsewhere."""
    return _ops.where(_ops.binary("gt", criterion, 0), then_, else_, out, stream)


def maximum(a, b, out=None, stream=None):
    """The elementwise maximum of two arrays or an array and a scalar (NaN wins, as in numpy)."""
    return _ops.binary("maximum", a, b, out, stream)


def minimum(a, b, out=None, stream=None):
    """The elementwise minimum of two arrays or an array and a scalar (NaN wins, as in numpy)."""
    return _ops.binary("minimum", a, b, out, stream)


def logical_and(x1, x2, /, out=None, *, allocator=None, stream=None):
    """Elementwise x1 and x2 (nonzero is true), as a bool array."""
    return _ops.binary("logical_and", x1, x2, out, stream)


def logical_or(x1, x2, /, out=None, *, allocator=None, stream=None):
    """Elementwise x1 or x2 (nonzero is true), as a bool array."""
    return _ops.binary("logical_or", x1, x2, out, stream)


def logical_not(x, /, out=None, *, allocator=None, stream=None):
    """Elementwise not x (zero is false), as a bool array."""
    return _ops.unary("logical_not", x, out, stream)


def transpose(a, axes=None):
    """a.transpose(axes): a view."""
    return a.transpose(axes=axes)


def reshape(a, *shape, order="C"):
    """a.reshape(*shape, order=order)."""
    return a.reshape(*shape, order=order)


from ._gather import concatenate, multi_put, multi_take, multi_take_put, stack, take  # noqa: E402
from ._reductions import (_limit, _sum_type, all, any, dot, max, min, subset_dot, subset_max,  # noqa: E402,F401
                          subset_min, subset_sum, sum)
from ._vectors import vec  # noqa: E402
