"""Result arrays: the factory every operation makes its new arrays with,
below the array type and the operations alike.

gpuarray defines the array type (GPUArray) on top of the operations, which
must make arrays of it: it registers the type here when it is defined
(``set_array_type``), so nothing below imports it.  A result's memory comes
from the pool (_pool), made for the stream of the work that writes it;
``mark_used`` records that an operation used arrays on a stream, so that
memory used on two streams is never pooled (_pool's rule).
"""

import sys

from . import _cudyn, _pool

_DeviceArray = _cudyn.DeviceArray
_DeviceMemory = _cudyn.DeviceMemory
_getrefcount = sys.getrefcount
array_type: type = _DeviceArray  # GPUArray, once gpuarray has registered it


def set_array_type(cls):
    """Makes ``cls`` (a DeviceArray subclass) the type of every result."""
    global array_type
    array_type = cls


def new_array(shape, dtype, strides=None, stream=None, device=None):
    """An uninitialised result of ``shape`` and ``dtype`` (C order, or the
    dense layout ``strides`` give, starting at its memory's first byte)
    on the calling thread's device (``device``, where the caller has
    asked already), its memory from the pool for work on ``stream``."""
    count = 1
    for n in shape:
        count *= n
    nbytes = count * dtype.itemsize
    if not nbytes:
        return layout(shape, dtype, strides)
    key = _pool.stream_key(stream)
    a = _DeviceArray.__new__(array_type, shape, dtype, strides, _pool.allocate(nbytes, key, device))
    a._pool_key = key
    return a


def layout(shape, dtype, strides=None):
    """An array of that layout with no memory (its address 0): what a plan
    reads of a result (dtype, shape, strides), or an empty result; nothing
    is allocated."""
    return _DeviceArray.__new__(array_type, shape, dtype, strides, None, 0)


def wrap(memory, shape, dtype, strides=None, ptr=None, stream=None):
    """A result over memory allocated for it (``allocate``), starting at
    ``ptr`` when the layout's first byte is not at element 0."""
    if ptr is None:
        a = _DeviceArray.__new__(array_type, shape, dtype, strides, memory)
    else:
        a = _DeviceArray.__new__(array_type, shape, dtype, strides, None, ptr, memory)
    a._pool_key = _pool.stream_key(stream)
    return a


def allocate(nbytes, stream=None):
    """Device memory for a result of ``nbytes`` made for work on ``stream`` (wrap it)."""
    return _pool.allocate(nbytes, _pool.stream_key(stream))


def view_of(a, offset, shape, strides, dtype=None):
    """An array over a's memory at ``offset`` bytes from its element 0.
    Its base is the array that owns the memory, as numpy's views have:
    ``a`` itself, or ``a.base`` when ``a`` is a view already."""
    base = a.base
    owner = base if isinstance(base, _DeviceArray) else a
    ptr = a.ptr + (0 if 0 in shape else offset)  # an empty view stays at the start: never past the end
    return _DeviceArray.__new__(array_type, shape, a.dtype if dtype is None else dtype, strides, None, ptr, owner)


def mark_used(stream, arrays):
    """Records that work on ``stream`` uses these arrays: one made for
    another stream becomes shared, and its memory is never pooled."""
    if stream is None and _pool._per_thread is False:
        if not _pool._streams_seen:
            return  # no stream given yet: every array is the legacy default stream's, none to mark
        key = None  # the legacy default stream (the common case, asked for cheaply)
    else:
        key = _pool.stream_key(stream)
    for a in arrays:
        own = getattr(a, "_pool_key", key)
        if own is key or own is _pool.SHARED:
            base = a.base if isinstance(a, _DeviceArray) else None
            if not isinstance(base, _DeviceArray):
                continue
            a, own = base, getattr(base, "_pool_key", key)  # a view: the array that owns its memory
            if own is key or own is _pool.SHARED:
                continue
        if own != key:
            try:
                a._pool_key = _pool.SHARED
            except AttributeError:  # an array type without attributes holds no pooled memory
                pass


def release(a):
    """Gives the memory of a dying array that owns it to the pool when
    nothing else can reach it (views hold the array itself; an exported
    DLPack tensor or a user's reference holds the memory); False if not."""
    memory = a.base  # held by the array's owner and memory slots, this name and getrefcount's argument
    if type(memory) is not _DeviceMemory or _getrefcount(memory) > 4 or a.stream is not None:
        return False
    return _pool.release(memory, getattr(a, "_pool_key", _pool.SHARED))
