# Type stubs for cudyn.gpuarray (gpuarray.py, with the functions it takes
# from _reductions, _gather and _vectors (whose stub states vec), and _dtypes's register_dtype).
# tests/check-stubs.sh runs mypy's stubtest against the module.
from typing import Any, Callable, Iterable, Sequence, Union

import numpy as np
from numpy.typing import DTypeLike, NDArray
from typing_extensions import Self, TypeAlias

from ._cudyn import DeviceArray, DeviceMemory, _StreamLike
from ._vectors import vec as vec

__all__ = ["GPUArray", "to_gpu", "to_gpu_async", "empty", "zeros", "ones", "empty_like", "zeros_like",
           "ones_like", "arange", "sum", "dot", "max", "min", "any", "all", "subset_sum", "subset_dot", "subset_max",
           "subset_min", "where", "if_positive", "maximum", "minimum", "logical_and", "logical_or", "logical_not",
           "concatenate", "stack", "take", "multi_take", "multi_put", "multi_take_put", "transpose", "reshape",
           "vec", "free_pool", "pool_info"]

# an operand: a device array or a scalar
_Operand: TypeAlias = Union[DeviceArray, int, float, complex, np.generic]
_Shape: TypeAlias = Union[int, Sequence[int]]
# an allocator: bytes -> DeviceMemory, or anything with __int__ that keeps the memory alive
_Allocator: TypeAlias = Callable[[int], Any]
# numpy's basic indexing: ints, slices, ..., None (numpy.newaxis)
_Index: TypeAlias = Union[int, slice, "ellipsis", None, tuple[Union[int, slice, "ellipsis", None], ...]]

class _Flags:
    c_contiguous: bool
    f_contiguous: bool
    @property
    def forc(self) -> bool: ...
    def __getitem__(self, name: str) -> bool: ...

class GPUArray(DeviceArray):
    """An n-dimensional array in device memory (PyCUDA's ``GPUArray``)."""
    __array_ufunc__: None
    # == and != compare elementwise (numpy's), hence the overrides of object's
    def __new__(cls, shape: _Shape, dtype: DTypeLike = ..., strides: tuple[int, ...] | _Allocator | None = None,
                memory: DeviceMemory | None = None, ptr: int | None = None, owner: object = None,
                stream: _StreamLike = None, *, allocator: _Allocator | None = None, base: object = None,
                gpudata: Any = None, order: str = "C") -> Self: ...
    @property
    def gpudata(self) -> Any:
        """The memory the array starts at, as PyCUDA names it (a DeviceMemory, or an int address for a view)."""
    @property
    def flags(self) -> _Flags:
        """c_contiguous, f_contiguous and forc, as numpy's (axes of length 1 do not count)."""
    @property
    def mem_size(self) -> int:
        """The number of elements (PyCUDA's name)."""
    @property
    def _grid(self) -> tuple[int, int]:
        """PyCUDA's grid for a grid-stride kernel over the elements."""
    @property
    def _block(self) -> tuple[int, int, int]:
        """PyCUDA's block for a grid-stride kernel over the elements."""
    def __bool__(self) -> bool: ...
    __hash__: None  # type: ignore[assignment]
    def __add__(self, other: _Operand) -> GPUArray: ...
    def __radd__(self, other: _Operand) -> GPUArray: ...
    def __sub__(self, other: _Operand) -> GPUArray: ...
    def __rsub__(self, other: _Operand) -> GPUArray: ...
    def __mul__(self, other: _Operand) -> GPUArray: ...
    def __rmul__(self, other: _Operand) -> GPUArray: ...
    def __truediv__(self, other: _Operand) -> GPUArray: ...
    def __rtruediv__(self, other: _Operand) -> GPUArray: ...
    def __iadd__(self, other: _Operand) -> Self: ...
    def __isub__(self, other: _Operand) -> Self: ...
    def __imul__(self, other: _Operand) -> Self: ...
    def __itruediv__(self, other: _Operand) -> Self: ...
    def __pow__(self, other: _Operand) -> GPUArray: ...
    def __rpow__(self, other: _Operand) -> GPUArray: ...
    def __ipow__(self, other: _Operand) -> Self: ...
    def __lt__(self, other: _Operand) -> GPUArray: ...
    def __le__(self, other: _Operand) -> GPUArray: ...
    def __eq__(self, other: _Operand) -> GPUArray: ...  # type: ignore[override]
    def __ne__(self, other: _Operand) -> GPUArray: ...  # type: ignore[override]
    def __gt__(self, other: _Operand) -> GPUArray: ...
    def __ge__(self, other: _Operand) -> GPUArray: ...
    def __neg__(self) -> GPUArray: ...
    def __pos__(self) -> GPUArray: ...
    def __abs__(self) -> GPUArray: ...
    def mul_add(self, selffac: _Operand, other: DeviceArray, otherfac: _Operand, add_timer: None = None,
                stream: _StreamLike = None, out: GPUArray | None = None) -> GPUArray:
        """``selffac * self + otherfac * other`` in one kernel (PyCUDA's mul_add)."""
    @property
    def real(self) -> GPUArray:
        """The real part (a new array; the array itself for real dtypes)."""
    @property
    def imag(self) -> GPUArray:
        """The imaginary part (a new array; zeros for real dtypes)."""
    def conj(self, out: GPUArray | None = None, stream: _StreamLike = None) -> GPUArray:
        """The complex conjugate (into ``out`` if given; the array itself for real dtypes)."""
    def conjugate(self, out: GPUArray | None = None, stream: _StreamLike = None) -> GPUArray:
        """The complex conjugate (into ``out`` if given; the array itself for real dtypes)."""
    def fill(self, value: int | float | complex | np.generic, stream: _StreamLike = None) -> Self:
        """Sets every element to ``value``; returns self."""
    def copy(self, stream: _StreamLike = None) -> GPUArray:
        """A new array with the same contents (a device-to-device copy)."""
    def astype(self, dtype: DTypeLike, stream: _StreamLike = None) -> GPUArray:
        """A new array with the elements converted to ``dtype``."""
    def get(self, ary: NDArray[Any] | None = None, stream: _StreamLike | bool = None,
            pagelocked: bool = False, async_: bool = False) -> NDArray[Any]:
        """A numpy copy (into ``ary`` if given); any layout."""
    def get_async(self, stream: _StreamLike = None, ary: NDArray[Any] | None = None) -> NDArray[Any]:
        """As get(..., stream=stream)."""
    def set(self, ary: Any, stream: _StreamLike | bool = None,
            async_: _StreamLike | bool = False) -> None:
        """Copies a host array of the same shape and dtype in; any layout."""
    def set_async(self, ary: Any, stream: _StreamLike = None) -> None:
        """As set(ary, stream=stream)."""
    def __getitem__(self, key: _Index) -> GPUArray: ...
    def __setitem__(self, key: _Index, value: Any) -> None: ...
    def setitem(self, key: _Index, value: Any, stream: _StreamLike = None) -> None:
        """``self[key] = value``: a scalar, a device array or a host array."""
    def view(self, dtype: DTypeLike | None = None) -> GPUArray:
        """The same memory, as another dtype (the innermost axis rescales) or as is."""
    def reshape(self, *shape: int | Sequence[int], order: str = "C") -> GPUArray:
        """The elements in another shape, read in ``order`` ('C' or 'F')."""
    def ravel(self) -> GPUArray:
        """The elements as one dimension (a view when C-contiguous)."""
    def transpose(self, *args: int | Sequence[int], axes: Sequence[int] | None = None) -> GPUArray:
        """A view with the axes permuted (reversed by default)."""
    @property
    def T(self) -> GPUArray:
        """The transpose (a view)."""
    def squeeze(self, axis: int | tuple[int, ...] | None = None) -> GPUArray:
        """A view without the axes of length 1."""
    def reverse(self, stream: _StreamLike = None) -> GPUArray:
        """A copy with the elements of a one-dimensional array in reverse order."""
    def bind_to_texref(self, texref: Any, *args: Any, **kwargs: Any) -> None:
        """Refused: texture references were removed in CUDA 12."""
    def bind_to_texref_ext(self, texref: Any, *args: Any, **kwargs: Any) -> None:
        """Refused: texture references were removed in CUDA 12."""
    def sum(self, stream: _StreamLike = None) -> GPUArray:
        """The sum of the elements as a GPUArray of shape ()."""
    def dot(self, other: DeviceArray, stream: _StreamLike = None) -> GPUArray:
        """The dot product with ``other`` as a GPUArray of shape ()."""
    def max(self, stream: _StreamLike = None) -> GPUArray:
        """The largest element as a GPUArray of shape () (NaN if any is NaN)."""
    def min(self, stream: _StreamLike = None) -> GPUArray:
        """The smallest element as a GPUArray of shape () (NaN if any is NaN)."""
    def any(self, stream: _StreamLike = None, allocator: _Allocator | None = None) -> GPUArray:
        """Whether any element is nonzero, as a bool GPUArray of shape ()."""
    def all(self, stream: _StreamLike = None, allocator: _Allocator | None = None) -> GPUArray:
        """Whether every element is nonzero, as a bool GPUArray of shape ()."""

def c_type(dtype: DTypeLike) -> str:
    """The C type of a numpy dtype in cudyn's expression kernels ('float' for float32)."""
def register_dtype(dtype: DTypeLike, name: str) -> None:
    """Makes the struct dtype known to generated kernels as the C type ``name``."""
def free_pool() -> int:
    """Frees the device memory kept for reuse by arrays that died; returns the bytes freed."""
def pool_info() -> tuple[int, int]:
    """(blocks, bytes) of device memory kept for reuse now."""

def empty(shape: _Shape, dtype: DTypeLike = ..., order: str = "C", managed: bool = False,
          allocator: _Allocator | None = None) -> GPUArray:
    """An uninitialised device array in C or Fortran order."""
def zeros(shape: _Shape, dtype: DTypeLike = ..., order: str = "C", allocator: _Allocator | None = None) -> GPUArray:
    """A device array filled with zeros."""
def ones(shape: _Shape, dtype: DTypeLike = ..., order: str = "C", allocator: _Allocator | None = None) -> GPUArray:
    """A device array filled with ones."""
def empty_like(a: DeviceArray, dtype: DTypeLike | None = None, order: str = "K") -> GPUArray:
    """An uninitialised array with ``a``'s shape (and dtype unless given)."""
def zeros_like(a: DeviceArray, dtype: DTypeLike | None = None, order: str = "K") -> GPUArray:
    """A zero-filled array like ``a`` (see :func:`empty_like`)."""
def ones_like(a: DeviceArray, dtype: DTypeLike | None = None, order: str = "K") -> GPUArray:
    """An array of ones like ``a`` (see :func:`empty_like`)."""
def to_gpu(ary: Any, stream: _StreamLike = None, allocator: _Allocator | None = None) -> GPUArray:
    """A device copy of a host array (numpy or anything with the buffer protocol)."""
def to_gpu_async(ary: Any, stream: _StreamLike = None, allocator: _Allocator | None = None) -> GPUArray:
    """As :func:`to_gpu`, asynchronous on ``stream`` (use pinned memory for a real overlap)."""
def arange(*args: int | float, dtype: DTypeLike | None = None, allocator: _Allocator | None = None) -> GPUArray:
    """numpy.arange's values in a device array."""
def where(criterion: DeviceArray, then_: _Operand, else_: _Operand, out: GPUArray | None = None,
          stream: _StreamLike = None) -> GPUArray:
    """``then_`` where ``criterion`` is nonzero, ``else_`` elsewhere (numpy.where; scalars too)."""
def if_positive(criterion: DeviceArray, then_: _Operand, else_: _Operand, out: GPUArray | None = None,
                stream: _StreamLike = None) -> GPUArray:
    """``then_`` where ``criterion`` is greater than zero, ``else_`` elsewhere."""
def maximum(a: _Operand, b: _Operand, out: GPUArray | None = None, stream: _StreamLike = None) -> GPUArray:
    """The elementwise maximum of two arrays or an array and a scalar (NaN wins, as in numpy)."""
def minimum(a: _Operand, b: _Operand, out: GPUArray | None = None, stream: _StreamLike = None) -> GPUArray:
    """The elementwise minimum of two arrays or an array and a scalar (NaN wins, as in numpy)."""
def logical_and(x1: _Operand, x2: _Operand, /, out: GPUArray | None = None, *,
                allocator: _Allocator | None = None, stream: _StreamLike = None) -> GPUArray:
    """Elementwise x1 and x2 (nonzero is true), as a bool array."""
def logical_or(x1: _Operand, x2: _Operand, /, out: GPUArray | None = None, *,
               allocator: _Allocator | None = None, stream: _StreamLike = None) -> GPUArray:
    """Elementwise x1 or x2 (nonzero is true), as a bool array."""
def logical_not(x: _Operand, /, out: GPUArray | None = None, *, allocator: _Allocator | None = None,
                stream: _StreamLike = None) -> GPUArray:
    """Elementwise not x (zero is false), as a bool array."""
def transpose(a: GPUArray, axes: Sequence[int] | None = None) -> GPUArray:
    """a.transpose(axes): a view."""
def reshape(a: GPUArray, *shape: int | Sequence[int], order: str = "C") -> GPUArray:
    """a.reshape(*shape, order=order)."""

# _reductions.py
def sum(a: DeviceArray, dtype: DTypeLike | None = None, stream: _StreamLike = None,
        allocator: _Allocator | None = None) -> GPUArray:
    """The sum of the elements as a GPUArray of shape ()."""
def subset_sum(subset: DeviceArray, a: DeviceArray, dtype: DTypeLike | None = None, stream: _StreamLike = None,
               allocator: _Allocator | None = None) -> GPUArray:
    """The sum of a[subset[k]] over the indices in ``subset`` (an integer device array)."""
def dot(a: DeviceArray, b: DeviceArray, dtype: DTypeLike | None = None, stream: _StreamLike = None,
        allocator: _Allocator | None = None) -> GPUArray:
    """The dot product of two arrays of the same size, as a GPUArray of shape ()."""
def subset_dot(subset: DeviceArray, a: DeviceArray, b: DeviceArray, dtype: DTypeLike | None = None,
               stream: _StreamLike = None, allocator: _Allocator | None = None) -> GPUArray:
    """The dot product of a and b over the indices in ``subset``."""
def max(a: DeviceArray, stream: _StreamLike = None, allocator: _Allocator | None = None) -> GPUArray:
    """The largest element as a GPUArray of shape (); NaN if any element is NaN."""
def min(a: DeviceArray, stream: _StreamLike = None, allocator: _Allocator | None = None) -> GPUArray:
    """The smallest element as a GPUArray of shape (); NaN if any element is NaN."""
def subset_max(subset: DeviceArray, a: DeviceArray, stream: _StreamLike = None,
               allocator: _Allocator | None = None) -> GPUArray:
    """The largest of a[subset[k]]."""
def subset_min(subset: DeviceArray, a: DeviceArray, stream: _StreamLike = None,
               allocator: _Allocator | None = None) -> GPUArray:
    """The smallest of a[subset[k]]."""
def any(a: DeviceArray, stream: _StreamLike = None, allocator: _Allocator | None = None) -> GPUArray:
    """Whether any element is nonzero (NaN counts), as a bool GPUArray of shape ()."""
def all(a: DeviceArray, stream: _StreamLike = None, allocator: _Allocator | None = None) -> GPUArray:
    """Whether every element is nonzero, as a bool GPUArray of shape ()."""

# _gather.py
def concatenate(arrays: Iterable[DeviceArray], axis: int = 0, allocator: _Allocator | None = None,
                stream: _StreamLike = None) -> GPUArray:
    """The arrays joined along an existing axis (numpy.concatenate)."""
def stack(arrays: Iterable[DeviceArray], axis: int = 0, allocator: _Allocator | None = None,
          stream: _StreamLike = None) -> GPUArray:
    """The arrays joined along a new axis (numpy.stack)."""
def take(a: DeviceArray, indices: DeviceArray, out: GPUArray | None = None, stream: _StreamLike = None) -> GPUArray:
    """out[k] = a.ravel()[indices[k]] (an array of indices' shape)."""
def multi_take(arrays: Sequence[DeviceArray], indices: DeviceArray, out: Sequence[GPUArray] | None = None,
               stream: _StreamLike = None) -> list[GPUArray]:
    """[take(a, indices) for a in arrays], into the arrays of ``out`` if given."""
def multi_put(arrays: Sequence[DeviceArray], dest_indices: DeviceArray, dest_shape: _Shape | None = None,
              out: Sequence[GPUArray] | None = None, stream: _StreamLike = None) -> list[GPUArray]:
    """o[dest_indices[k]] = a[k] for each array a and its result o."""
def multi_take_put(arrays: Sequence[DeviceArray], dest_indices: DeviceArray, src_indices: DeviceArray,
                   dest_shape: _Shape | None = None, out: Sequence[GPUArray] | None = None,
                   stream: _StreamLike = None, src_offsets: Sequence[int] | None = None) -> list[GPUArray]:
    """o[dest_indices[k]] = a[src_indices[k] + offset] for each array a."""
