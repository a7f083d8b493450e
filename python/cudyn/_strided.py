"""Copies of arrays that are not C-contiguous, between host and device.

A dense layout (C or Fortran order, or any permutation of axes: the
elements fill their bytes exactly) moves as one block of bytes, the host
array arranged in the same layout.  A layout with gaps (a view with steps,
a slice of a matrix's columns) is read from its whole byte span when that
span is small, or gathered on the device into a compact copy first;
writing into one goes through the device (a compact upload, then a
strided copy kernel), so the bytes between its elements are never touched.
Device-to-device copies of any layout are _ops.copy.
"""

import numpy as np

from . import _cudyn, _result
from ._ops import assign, copy
from ._views import extent, is_dense

# a gapped view is read through its byte span when the span is at most
# this many times its own bytes, or this small
_SPAN_FACTOR = 4
_SPAN_SMALL = 1 << 20


def _span_to_host(a, low, high, stream):
    """The device bytes [low, high) around element 0, and the host array
    over them in a's layout."""
    raw = np.empty(high - low, np.uint8)
    _cudyn.memcpy_dtoh(raw, a.ptr + low, stream=stream)
    if stream is not None:
        stream.synchronize()
    return np.ndarray(a.shape, a.dtype, buffer=raw, offset=-low, strides=a.strides)


def _check_host(a, ary, what):
    if not isinstance(ary, np.ndarray):
        raise TypeError(f"cudyn.gpuarray.{what}: a numpy array is needed, not {type(ary).__name__}")
    if ary.shape != a.shape or ary.dtype != a.dtype:
        raise ValueError(f"cudyn.gpuarray.{what}: the host array has shape {ary.shape} and dtype {ary.dtype}, the"
                         f" device array {a.shape} and {a.dtype}")


def get(a, ary=None, stream=None):
    """A numpy copy of a device array that is not C-contiguous (into ary if
    given): dense layouts keep their strides (with negative steps made
    positive), views with gaps come back compact."""
    if ary is not None:
        _check_host(a, ary, "get")
    if a.size == 0:
        return np.empty(a.shape, a.dtype) if ary is None else ary
    low, high = extent(a.shape, a.strides, a.itemsize)
    dense = is_dense(a.shape, a.strides, a.itemsize)
    if not dense and high - low > max(_SPAN_FACTOR * a.nbytes, _SPAN_SMALL):
        return copy(a, stream).get(ary, stream=stream)  # gathered on the device, then one block
    host = _span_to_host(a, low, high, stream)
    if ary is not None:
        ary[...] = host
        return ary
    if dense and all(s >= 0 for s in a.strides):
        return host
    return np.array(host, order="K")


def set(a, ary, stream=None):
    """Copies a host array of the same shape and dtype into a device array
    that is not C-contiguous."""
    _check_host(a, ary, "set")
    if a.size == 0:
        return
    low, high = extent(a.shape, a.strides, a.itemsize)
    if is_dense(a.shape, a.strides, a.itemsize):
        raw = np.empty(high - low, np.uint8)
        np.ndarray(a.shape, a.dtype, buffer=raw, offset=-low, strides=a.strides)[...] = ary
        _cudyn.memcpy_htod(a.ptr + low, raw, stream=stream)
        if stream is not None:
            stream.synchronize()  # raw must live until the copy has read it
        return
    staged = _result.new_array(a.shape, a.dtype, None, stream)
    _cudyn.DeviceArray.set(staged, np.ascontiguousarray(ary, dtype=a.dtype), stream)
    assign(a, staged, stream=stream)
