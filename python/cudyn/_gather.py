"""Arrays assembled from others: concatenate and stack, and the gathers and
scatters of PyCUDA (take, multi_take, multi_put, multi_take_put).

Contiguous pieces joined along their first axis are device-to-device
copies, one per piece; every other case writes each piece into its view of
the result with a copy kernel (any layout, dtypes converted as numpy's
result dtype says).  Gathers and scatters are map kernels over the indices.
"""

import numpy as np

from . import _cudyn, _result
from ._codegen import RAW, run_map
from ._ops import assign, copy, same_device

_DeviceArray = _cudyn.DeviceArray


def _empty(shape, dtype, allocator=None):
    """A new result, from PyCUDA's ``allocator`` when given, else the pool."""
    if allocator is None:
        return _result.new_array(shape, np.dtype(dtype))
    return _result.array_type(shape, dtype, allocator=allocator)


def _zeros(shape, dtype):
    out = _result.new_array(shape, np.dtype(dtype))
    if out.nbytes:
        _cudyn.memset_d8(out.ptr, 0, out.nbytes)
    return out


def _arrays(arrays, what):
    arrays = list(arrays)
    if not arrays:
        raise ValueError(f"cudyn.gpuarray.{what}: need at least one array")
    for a in arrays:
        if not isinstance(a, _DeviceArray):
            raise TypeError(f"cudyn.gpuarray.{what}: {type(a).__name__} is not a device array (to_gpu copies one)")
    same_device(*arrays)
    return arrays


def _fill_pieces(out, pieces, stream):
    """Writes each (view of out, array) pair: one copy for contiguous pieces
    of out's dtype, a copy kernel otherwise."""
    for view, a in pieces:
        if view.is_contiguous and a.is_contiguous and a.dtype == view.dtype and a.shape == view.shape:
            if a.nbytes:
                _cudyn.memcpy_dtod(view.ptr, a.ptr, a.nbytes, stream=stream)
        elif view.size:
            assign(view, a, stream)
    return out


def concatenate(arrays, axis=0, allocator=None, stream=None):
    """The arrays joined along an existing axis (numpy.concatenate)."""
    arrays = _arrays(arrays, "concatenate")
    first = arrays[0]
    ndim = first.ndim
    if ndim == 0:
        raise ValueError("cudyn.gpuarray.concatenate: 0-d arrays cannot be concatenated (use stack)")
    axis = axis + ndim if axis < 0 else axis
    if not 0 <= axis < ndim:
        raise ValueError(f"cudyn.gpuarray.concatenate: axis {axis} is out of range for {ndim} dimensions")
    rest = first.shape[:axis] + first.shape[axis + 1:]
    for a in arrays:
        if a.ndim != ndim or a.shape[:axis] + a.shape[axis + 1:] != rest:
            raise ValueError(f"cudyn.gpuarray.concatenate: shapes {[x.shape for x in arrays]} differ off axis {axis}")
    total = sum(a.shape[axis] for a in arrays)
    shape = first.shape[:axis] + (total,) + first.shape[axis + 1:]
    dtype = first.dtype if all(a.dtype == first.dtype for a in arrays) else np.result_type(*[a.dtype for a in arrays])
    out = _empty(shape, dtype, allocator)
    if axis == 0 and all(a.is_contiguous and a.dtype == dtype for a in arrays):
        at = out.ptr  # contiguous pieces one after the other: one copy each
        for a in arrays:
            if a.nbytes:
                _cudyn.memcpy_dtod(at, a.ptr, a.nbytes, stream=stream)
            at += a.nbytes
        return out
    pieces, start = [], 0
    step = out.strides[axis]
    for a in arrays:
        piece_shape = shape[:axis] + (a.shape[axis],) + shape[axis + 1:]
        pieces.append((_result.view_of(out, start * step, piece_shape, out.strides), a))
        start += a.shape[axis]
    return _fill_pieces(out, pieces, stream)


def stack(arrays, axis=0, allocator=None, stream=None):
    """The arrays joined along a new axis (numpy.stack)."""
    arrays = _arrays(arrays, "stack")
    shape = arrays[0].shape
    if any(a.shape != shape for a in arrays):
        raise ValueError(f"cudyn.gpuarray.stack: all arrays must have one shape, not {[a.shape for a in arrays]}")
    ndim = len(shape) + 1
    axis = axis + ndim if axis < 0 else axis
    if not 0 <= axis < ndim:
        raise ValueError(f"cudyn.gpuarray.stack: axis {axis} is out of range for {ndim} dimensions")
    out = _empty(shape[:axis] + (len(arrays),) + shape[axis:], np.result_type(*[a.dtype for a in arrays]),
                 allocator)
    pieces = [(out[(slice(None),) * axis + (k,)], a) for k, a in enumerate(arrays)]
    return _fill_pieces(out, pieces, stream)


def _indices(indices, what):
    if not isinstance(indices, _DeviceArray) or indices.dtype.kind not in "iu":
        raise TypeError(f"cudyn.gpuarray.{what}: the indices must be an integer device array")
    return indices


def take(a, indices, out=None, stream=None):
    """out[k] = a.ravel()[indices[k]] (an array of indices' shape)."""
    _indices(indices, "take")
    same_device(a, indices)
    source = a if a.is_contiguous else copy(a)
    if out is None:
        out = _empty(indices.shape, a.dtype)
    run_map("z = x[k]", [("z", out, True), ("k", indices, False), ("x", source, RAW)], [], indices.shape, stream,
            "take")
    return out


def multi_take(arrays, indices, out=None, stream=None):
    """[take(a, indices) for a in arrays], into the arrays of ``out`` if given."""
    arrays = _arrays(arrays, "multi_take")
    out = out if out is not None else [None] * len(arrays)
    return [take(a, indices, o, stream) for a, o in zip(arrays, out)]


def multi_put(arrays, dest_indices, dest_shape=None, out=None, stream=None):
    """o[dest_indices[k]] = a[k] for each array a and its result o (new
    arrays of dest_shape, zero-filled, unless ``out`` gives them)."""
    arrays = _arrays(arrays, "multi_put")
    _indices(dest_indices, "multi_put")
    if out is None:
        out = [_zeros(dest_shape if dest_shape is not None else a.shape, a.dtype) for a in arrays]
    for a, o in zip(arrays, out):
        run_map("o[d] = x", [("d", dest_indices, False), ("x", a, False), ("o", o, RAW)], [], dest_indices.shape,
                stream, "put")
    return out


def multi_take_put(arrays, dest_indices, src_indices, dest_shape=None, out=None, stream=None, src_offsets=None):
    """o[dest_indices[k]] = a[src_indices[k] + offset] for each array a (and
    its offset from ``src_offsets``, 0 by default) and its result o."""
    arrays = _arrays(arrays, "multi_take_put")
    _indices(dest_indices, "multi_take_put")
    _indices(src_indices, "multi_take_put")
    if dest_indices.shape != src_indices.shape:
        raise ValueError("cudyn.gpuarray.multi_take_put: dest_indices and src_indices differ in shape")
    offsets = list(src_offsets) if src_offsets is not None else [0] * len(arrays)
    if out is None:
        out = [_zeros(dest_shape if dest_shape is not None else a.shape, a.dtype) for a in arrays]
    for a, o, offset in zip(arrays, out, offsets):
        source = a if a.is_contiguous else copy(a)
        run_map("o[d] = x[s + offset]", [("d", dest_indices, False), ("s", src_indices, False), ("x", source, RAW),
                                          ("o", o, RAW)], [("offset", np.int64(offset))], dest_indices.shape,
                stream, "take_put")
    return out
