"""gpuarray's reductions: sum, dot, max, min, any, all and the subset_
ones, each returning a GPUArray of shape ().

Real dtypes run the C library's expression reductions (cudyn_reduction_*,
lib/expr: one launch, deterministic, kept per operation and dtype in the
table below; measured twice as fast as _reduce's two launches, see
python/README.md); complex numbers and other C types run the reductions
_reduce writes.  Layouts: a reduction whose result does not depend on the
order of the elements reads a dense layout's bytes as they lie and a view
with gaps through a compact copy; one that pairs elements by index (dot,
the subset ones) reads C-contiguous copies of what is not.
"""

import builtins as _builtins

import numpy as np

from . import _cudyn, _ops, _reduce, _result, _views
from ._bounded import Bounded
from ._dtypes import ctype, sum_type

_DeviceArray = _cudyn.DeviceArray
_kernels = Bounded(1024)  # (operation, dtypes) -> cudyn.Reduction (lib/expr), per process


def c_type(dtype):
    """The C type of a dtype in lib/expr's reductions, or None for one its
    alphabet lacks (complex numbers, structs, the other byte order)."""
    dtype = np.dtype(dtype)
    return ctype(dtype) if dtype.kind in "biuf" and dtype.isnative else None


def _char(dtype):
    """The dtype's letter in kernel names (which take identifier characters only)."""
    return {"q": "l", "Q": "L", "?": "bool"}.get(dtype.char, dtype.char)


def _name(*parts):
    return "_".join(str(p) for p in parts)


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
        kernel = _kernels.put(key, _cudyn.Reduction(c_type(result_dtype), neutral, reduce_expr, map_expr, params,
                                                     name))
    return kernel


def _out(dtype, stream, allocator):
    """The result of shape (): from ``allocator`` (PyCUDA's) when given, else the pool."""
    if allocator is None:
        return _result.new_array((), dtype, None, stream)
    return _result.array_type((), dtype, allocator=allocator)


def _reduce_into(kernel, dtype, n, args, stream, allocator=None):
    out = _out(dtype, stream, allocator)
    if stream is not None:
        _result.mark_used(stream, (out,) + tuple(args))
    kernel.run(n, *args, out=out, stream=stream)
    return out


def _device_operand(a, what):
    if not isinstance(a, _DeviceArray):
        if isinstance(a, np.ndarray) or not (hasattr(a, "__cuda_array_interface__") or hasattr(a, "__dlpack__")):
            raise TypeError(f"cudyn.gpuarray.{what}: a device array is needed, not {type(a).__name__}")
        a = _cudyn.asarray(a)
    return a


def _reducible(a, what):
    """`a` as a contiguous one-dimensional array of its elements in any
    order (reductions whose result does not depend on it): a view of a
    dense layout's bytes, or a compact copy of a view with gaps."""
    a = _device_operand(a, what)
    if a.is_contiguous:
        return a
    if not _views.is_dense(a.shape, a.strides, a.itemsize):
        a = _ops.copy(a)
    low = _views.extent(a.shape, a.strides, a.itemsize)[0]
    return _result.view_of(a, low, (a.size,), (a.itemsize,))


def _in_c_order(a, what):
    """`a` C-contiguous (a copy when it is not): reductions that pair elements by index."""
    a = _device_operand(a, what)
    return a if a.is_contiguous else _ops.astype(a, a.dtype, like=False)


def _general_reduce(dtype, neutral, reduce_expr, map_expr, params, values, n, stream, allocator, hint):
    out = _out(dtype, stream, allocator)
    return _reduce.reduce(dtype, neutral, reduce_expr, map_expr, params, values, n, out, stream, hint)


def sum(a, dtype=None, stream=None, allocator=None):
    """The sum of the elements as a GPUArray of shape () (numpy's result
    type: integers accumulate in 64 bits).  Deterministic: the same
    input gives the same bits on a device every time."""
    a = _reducible(a, "sum")
    result = np.dtype(dtype) if dtype is not None else sum_type(a.dtype)
    if c_type(result) is None or c_type(a.dtype) is None:
        return _general_reduce(result, "0", "a + b", _ops.convert("x[i]", a.dtype, result),
                               f"const {ctype(a.dtype)} *x", (a,), a.size, stream, allocator, "sum")
    key = ("sum", a.dtype, result)
    kernel = _kernels.get(key)
    if kernel is None:
        r = c_type(result)
        kernel = _reduction(key, result, "0", "a + b", f"({r})x[i]", f"const {c_type(a.dtype)} *x",
                            _name("ga_sum", _char(a.dtype), _char(result)))
    return _reduce_into(kernel, result, a.size, (a,), stream, allocator)


def subset_sum(subset, a, dtype=None, stream=None, allocator=None):
    """The sum of a[subset[k]] over the indices in ``subset`` (an integer device array)."""
    return _subset("sum", subset, a, None, dtype, stream, allocator)


def dot(a, b, dtype=None, stream=None, allocator=None):
    """The dot product of two arrays of the same size (flattened, no
    conjugation) as a GPUArray of shape ()."""
    a, b = _device_operand(a, "dot"), _device_operand(b, "dot")
    if a.size != b.size:
        raise ValueError(f"cudyn.gpuarray.dot: sizes {a.size} and {b.size} differ")
    if a.device != b.device:
        raise ValueError(f"cudyn.gpuarray.dot: operands on devices {a.device} and {b.device}")
    a, b = _in_c_order(a, "dot"), _in_c_order(b, "dot")
    result = np.dtype(dtype) if dtype is not None else np.result_type(a.dtype, b.dtype)
    if not _builtins.all(c_type(d) for d in (a.dtype, b.dtype, result)):
        product = f"{_ops.convert('x[i]', a.dtype, result)} * {_ops.convert('y[i]', b.dtype, result)}"
        return _general_reduce(result, "0", "a + b", product, f"const {ctype(a.dtype)} *x, const"
                               f" {ctype(b.dtype)} *y", (a, b), a.size, stream, allocator, "dot")
    key = ("dot", a.dtype, b.dtype, result)
    kernel = _kernels.get(key)
    if kernel is None:
        r, ta, tb = c_type(result), c_type(a.dtype), c_type(b.dtype)
        kernel = _reduction(key, result, "0", "a + b", f"({r})x[i] * ({r})y[i]", f"const {ta} *x, const {tb} *y",
                            _name("ga_dot", _char(a.dtype), _char(b.dtype), _char(result)))
    return _reduce_into(kernel, result, a.size, (a, b), stream, allocator)


def subset_dot(subset, a, b, dtype=None, stream=None, allocator=None):
    """The dot product of a and b over the indices in ``subset``."""
    return _subset("dot", subset, a, b, dtype, stream, allocator)


def _extremum(a, lowest, what, stream, allocator=None):
    a = _reducible(a, what)
    if a.size == 0:
        raise ValueError(f"cudyn.gpuarray.{what}: a zero-size array has no {'maximum' if lowest else 'minimum'}")
    if c_type(a.dtype) is None:
        raise TypeError(f"cudyn.gpuarray.{what}: {a.dtype} has no order (compare real arrays)")
    key = (what, a.dtype)
    kernel = _kernels.get(key)
    if kernel is None:
        t = c_type(a.dtype)
        kernel = _reduction(key, a.dtype, _limit(a.dtype, lowest), _pick(lowest), "x[i]", f"const {t} *x",
                            _name("ga", what, _char(a.dtype)))
    return _reduce_into(kernel, a.dtype, a.size, (a,), stream, allocator)


def _pick(lowest):
    """The reduce expression of max (lowest: starting from the lowest value) or min; NaN wins."""
    return f"(a {'>' if lowest else '<'} b || a != a) ? a : b"


def max(a, stream=None, allocator=None):
    """The largest element as a GPUArray of shape (); NaN if any element is NaN."""
    return _extremum(a, True, "max", stream, allocator)


def min(a, stream=None, allocator=None):
    """The smallest element as a GPUArray of shape (); NaN if any element is NaN."""
    return _extremum(a, False, "min", stream, allocator)


def subset_max(subset, a, stream=None, allocator=None):
    """The largest of a[subset[k]]."""
    return _subset("max", subset, a, None, None, stream, allocator)


def subset_min(subset, a, stream=None, allocator=None):
    """The smallest of a[subset[k]]."""
    return _subset("min", subset, a, None, None, stream, allocator)


def _subset(what, subset, a, b, dtype, stream, allocator):
    subset, a = _in_c_order(subset, "subset_" + what), _in_c_order(a, "subset_" + what)
    if subset.dtype.kind not in "iu":
        raise TypeError(f"cudyn.gpuarray.subset_{what}: the indices must be integers, not {subset.dtype}")
    b = _in_c_order(b, "subset_" + what) if b is not None else None
    if what in ("max", "min") and subset.size == 0:
        raise ValueError(f"cudyn.gpuarray.subset_{what}: an empty subset has no {what}imum")
    if what == "sum":
        result = np.dtype(dtype) if dtype is not None else sum_type(a.dtype)
    elif what == "dot":
        result = np.dtype(dtype) if dtype is not None else np.result_type(a.dtype, b.dtype)
    else:
        result = a.dtype
    dtypes = (a.dtype, result, subset.dtype) + ((b.dtype,) if b is not None else ())
    if not _builtins.all(c_type(d) for d in dtypes):
        raise TypeError(f"cudyn.gpuarray.subset_{what}: real dtypes only, not {a.dtype}")
    r, ti = c_type(result), c_type(subset.dtype)
    params = f"const {ti} *idx, const {c_type(a.dtype)} *x"
    if b is not None:
        params += f", const {c_type(b.dtype)} *y"
    map_expr = {"dot": f"({r})x[idx[i]] * ({r})y[idx[i]]"}.get(what, f"({r})x[idx[i]]")
    neutral = "0" if what in ("sum", "dot") else _limit(result, what == "max")
    reduce_expr = "a + b" if what in ("sum", "dot") else _pick(what == "max")
    key = ("subset", what, subset.dtype, a.dtype, b.dtype if b is not None else None, result)
    kernel = _kernels.get(key)
    if kernel is None:
        kernel = _reduction(key, result, neutral, reduce_expr, map_expr, params,
                            _name("ga_subset", what, _char(subset.dtype), _char(a.dtype),
                                      _char(result)))
    args = (subset, a) + ((b,) if b is not None else ())
    return _reduce_into(kernel, result, subset.size, args, stream, allocator)


def _truth_reduce(a, every, stream, allocator):
    a = _reducible(a, "all" if every else "any")
    if c_type(a.dtype) is None:
        return _general_reduce(np.dtype(np.bool_), "true" if every else "false", "a && b" if every else "a || b",
                               _ops.truth("x[i]", a.dtype), f"const {ctype(a.dtype)} *x", (a,), a.size,
                               stream, allocator, "all" if every else "any")
    key = ("all" if every else "any", a.dtype)
    kernel = _kernels.get(key)
    if kernel is None:
        kernel = _reduction(key, np.dtype(np.bool_), "true" if every else "false", "a && b" if every else "a || b",
                            "x[i] != 0", f"const {c_type(a.dtype)} *x",
                            _name("ga", key[0], _char(a.dtype)))
    return _reduce_into(kernel, np.dtype(np.bool_), a.size, (a,), stream, allocator)


def any(a, stream=None, allocator=None):
    """Whether any element is nonzero (NaN counts), as a bool GPUArray of shape ()."""
    return _truth_reduce(a, False, stream, allocator)


def all(a, stream=None, allocator=None):
    """Whether every element is nonzero, as a bool GPUArray of shape ()."""
    return _truth_reduce(a, True, stream, allocator)
