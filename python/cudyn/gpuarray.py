"""Device arrays with numpy-style arithmetic, as PyCUDA's ``pycuda.gpuarray``.

::

    import numpy as np
    import cudyn.autoinit
    from cudyn import gpuarray

    x = gpuarray.to_gpu(np.random.rand(1 << 20).astype(np.float32))
    y = 2 * x + 1                   # two cached elementwise kernels
    print(y.get()[:4], gpuarray.sum(y).get(), gpuarray.dot(x, y).get())

This module is the array type and its public functions; what it stands on
lies below it (python/README.md maps them): every elementwise operation
is planned by _ops (numpy's result dtype first, from _dtypes' one rule,
then a kernel _codegen writes for the operands' layout, kept per
signature, and per dtypes alone for contiguous operands of one shape), the
reductions are _reductions', joins and gathers _gather's, results come
from _result's factory and memory from _pool.  Each kernel is compiled
once per machine (the persistent kernel cache makes later processes skip
NVRTC) and kept in this process.  Operands live on one device.

Indexing gives views (ints, slices with steps, ``...``, ``numpy.newaxis``);
``get``, ``set``, ``copy`` and assignment to an index take any layout.

Results are allocated on the calling thread's device.  Memory of arrays
that die is kept for the next array of the same size made for the same
stream (_pool's rule); :func:`free_pool` gives it back to the driver.
"""

import builtins as _builtins

from . import _requires
from . import _cudyn

np = _requires.numpy("cudyn.gpuarray")  # arrays need numpy: an ImportError that says so

# they need numpy too, asked for above
from . import _codegen, _ops, _result, _strided, _views  # noqa: E402
from ._dtypes import register_dtype  # noqa: E402,F401 (kernels know a struct dtype by the name registered)
from ._errors import Unsupported  # noqa: E402
from ._gather import concatenate, multi_put, multi_take, multi_take_put, stack, take  # noqa: E402,F401
from ._memory import pagelocked_empty  # noqa: E402
from ._pool import free_pool, pool_info  # noqa: E402,F401
from ._reductions import (all, any, c_type, dot, max, min, subset_dot, subset_max,  # noqa: E402,F401,A004
                          subset_min, subset_sum, sum)
from ._vectors import vec  # noqa: E402,F401

__all__ = ["GPUArray", "to_gpu", "to_gpu_async", "empty", "zeros", "ones", "empty_like", "zeros_like",
           "ones_like", "arange", "sum", "dot", "max", "min", "any", "all", "subset_sum", "subset_dot", "subset_max",
           "subset_min", "where", "if_positive", "maximum", "minimum", "logical_and", "logical_or", "logical_not",
           "concatenate", "stack", "take", "multi_take", "multi_put", "multi_take_put", "transpose", "reshape",
           "vec", "free_pool", "pool_info"]

_DeviceArray = _cudyn.DeviceArray
_DeviceMemory = _cudyn.DeviceMemory


def _operand(other):
    """``other`` as an operand of an operator, or None where the operator
    should answer NotImplemented (a type it does not take)."""
    try:
        return _ops.as_operand(other)
    except TypeError:
        if isinstance(other, np.ndarray):
            raise  # a host array: the TypeError says to copy it first
        return None


def _binary(op, x, other, reflected=False, out=None):
    y = _operand(other)
    if y is None:
        return NotImplemented
    return _ops.binary_operands(op, y, x, out) if reflected else _ops.binary_operands(op, x, y, out)


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
    # the pool's key of the array's memory (_result), a slot: every result
    # gets one, and an instance dict made for it would cost each operation
    __slots__ = ("_pool_key", "__dict__")

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
        # the memory of a dying array goes to the pool when nothing else
        # holds it (a view, a DLPack consumer): _pool's rule
        try:
            _result.release(self)
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
    def _grid(self):
        """PyCUDA's grid for a grid-stride kernel over the elements (its programs launch with it)."""
        return (_codegen.grid_for(self.size), 1)

    @property
    def _block(self):
        """PyCUDA's block for a grid-stride kernel over the elements."""
        return (_codegen.BLOCK, 1, 1)

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

    # -- arithmetic: every operator is one _ops call (numpy's dtypes and layouts)
    def __add__(self, other):
        return _binary("add", self, other)

    def __radd__(self, other):
        return _binary("add", self, other, True)

    def __iadd__(self, other):
        return _binary("add", self, other, False, self)

    def __sub__(self, other):
        return _binary("sub", self, other)

    def __rsub__(self, other):
        return _binary("sub", self, other, True)

    def __isub__(self, other):
        return _binary("sub", self, other, False, self)

    def __mul__(self, other):
        return _binary("mul", self, other)

    def __rmul__(self, other):
        return _binary("mul", self, other, True)

    def __imul__(self, other):
        return _binary("mul", self, other, False, self)

    def __truediv__(self, other):
        return _binary("div", self, other)

    def __rtruediv__(self, other):
        return _binary("div", self, other, True)

    def __itruediv__(self, other):
        return _binary("div", self, other, False, self)

    def __pow__(self, other):
        return _binary("pow", self, other)

    def __rpow__(self, other):
        return _binary("pow", self, other, True)

    def __ipow__(self, other):
        return _binary("pow", self, other, False, self)

    def __lt__(self, other):
        return _binary("lt", self, other)

    def __le__(self, other):
        return _binary("le", self, other)

    def __eq__(self, other):
        return _binary("eq", self, other)

    def __ne__(self, other):
        return _binary("ne", self, other)

    def __gt__(self, other):
        return _binary("gt", self, other)

    def __ge__(self, other):
        return _binary("ge", self, other)

    def __neg__(self):
        return _ops.unary("neg", self)

    def __pos__(self):
        _ops.result_dtype("pos", self)  # bool refuses it, as numpy's
        return self.copy()

    def __abs__(self):
        return _ops.unary("abs", self)

    def mul_add(self, selffac, other, otherfac, add_timer=None, stream=None, out=None):
        """``selffac * self + otherfac * other`` (PyCUDA's mul_add)."""
        if add_timer is not None:
            raise TypeError("cudyn.gpuarray.mul_add: add_timer is not supported; time with cudyn.Event")
        return _ops.binary("add", _ops.binary("mul", self, selffac, None, stream),
                           _ops.binary("mul", other, otherfac, None, stream), out, stream)

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
        if self.dtype.kind in "iuf" and out is None:
            return self
        return _ops.unary("conj", self, out, stream)

    conjugate = conj

    # -- whole-array operations --------------------------------------
    def fill(self, value, stream=None):
        """Sets every element to ``value``; returns self."""
        _ops.assign(self, value, stream)
        return self

    def copy(self, stream=None):
        """A new array with the same contents: a device-to-device copy, in the
        same layout for C, Fortran and other dense orders, compact for views
        with gaps."""
        if not self.is_contiguous:
            return _ops.copy(self, stream)
        out = _result.new_array(self.shape, self.dtype, None, stream)
        _result.mark_used(stream, (self,))
        if self.nbytes:
            _cudyn.memcpy_dtod(out.ptr, self.ptr, self.nbytes, stream=stream)
        return out

    def astype(self, dtype, stream=None):
        """A new array with the elements converted to ``dtype``."""
        dtype = np.dtype(dtype)
        if dtype == self.dtype:
            return self.copy(stream)
        return _ops.unary((_ops.convert("{x}", self.dtype, dtype), dtype, "astype"), self, None, stream)

    def get(self, ary=None, stream=None, pagelocked=False, async_=False):
        """A numpy copy (into ``ary`` if given); any layout (dense layouts keep
        their strides).  ``pagelocked=True`` copies into pinned memory.
        PyCUDA's get(ary, pagelocked, async_, stream) order is understood too
        (a bool second argument is ``pagelocked``)."""
        if isinstance(stream, bool):
            stream, pagelocked = None, stream
        _result.mark_used(stream, (self,))
        if not self.is_contiguous:
            return _strided.get(self, ary, stream)
        if pagelocked and ary is None:
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
        _result.mark_used(stream, (self,))
        if not self.is_contiguous:
            return _strided.set(self, np.asarray(ary), stream)
        return _DeviceArray.set(self, ary, stream)

    def set_async(self, ary, stream=None):
        """As set(ary, stream=stream)."""
        return self.set(ary, stream=stream)

    # -- views -------------------------------------------------------
    def _view(self, offset, shape, strides, dtype=None):
        return _result.view_of(self, offset, shape, strides, dtype)

    def __getitem__(self, key):
        return _result.view_of(self, *_views.index(self.shape, self.strides, key))

    def __setitem__(self, key, value):
        self.setitem(key, value)

    def setitem(self, key, value, stream=None):
        """``self[key] = value``: a scalar, a device array or a host array
        (broadcast to the view's shape, converted to the array's dtype)."""
        target = self[key]
        if isinstance(value, np.ndarray) and value.ndim:
            value = np.broadcast_to(np.asarray(value, dtype=self.dtype), target.shape)
            if target.is_contiguous:
                _result.mark_used(stream, (target,))
                _DeviceArray.set(target, np.ascontiguousarray(value), stream)
            else:
                target.set(np.array(value, order="C"), stream=stream)
        elif isinstance(value, _DeviceArray) and value.dtype == target.dtype and value.shape == target.shape \
                and value.is_contiguous and target.is_contiguous:
            _result.mark_used(stream, (target, value))
            if target.nbytes and value.ptr != target.ptr:
                if value.ptr < target.ptr + target.nbytes and target.ptr < value.ptr + value.nbytes:
                    value = _ops.copy(value, stream)  # overlapping: numpy copies the source first
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


_result.set_array_type(GPUArray)  # every operation's results are GPUArrays


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
    if managed:
        count = 1
        for s in shape:
            count *= s
        return GPUArray(shape, dtype, strides, _DeviceMemory(count * dtype.itemsize or 1, managed=True))
    return _result.new_array(shape, dtype, strides)


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
        a = _result.wrap(_result.allocate(ary.nbytes or 1, stream), ary.shape, ary.dtype, ary.strides,
                         stream=stream)
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
