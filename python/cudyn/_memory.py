"""PyCUDA's names for raw device memory, in cudyn's own vocabulary:
mem_alloc gives a :class:`cudyn.DeviceMemory` (PyCUDA's DeviceAllocation:
``int()`` is its address, ``free()`` frees it now, and it is freed when it
goes), to_device and from_device copy host buffers in and out."""

from . import _cudyn


def mem_alloc(nbytes):
    """``nbytes`` (at least 1) of device memory on the calling thread's device."""
    return _cudyn.DeviceMemory(nbytes)


def mem_alloc_like(ary):
    """Device memory of a host array's size (``ary.nbytes``)."""
    import numpy as np
    return _cudyn.DeviceMemory(np.asarray(ary).nbytes)


def mem_get_info():
    """(free, total) bytes of the calling thread's device."""
    return _cudyn.mem_info()


def in_memory_order(buffer):
    """A host buffer whose bytes are contiguous in any order, as one that
    is C-contiguous over the same bytes (a Fortran-order numpy array's
    transpose); other buffers as they are."""
    if type(buffer).__module__ == "numpy" and getattr(buffer, "ndim", 0) > 1 and \
            buffer.flags.f_contiguous and not buffer.flags.c_contiguous:
        return buffer.T
    return buffer


def to_device(buffer):
    """New device memory holding a copy of a host buffer (a numpy array in C
    or Fortran order, bytes ...), byte for byte."""
    buffer = in_memory_order(buffer)
    view = memoryview(buffer)
    memory = _cudyn.DeviceMemory(max(view.nbytes, 1))
    if view.nbytes:
        _cudyn.memcpy_htod(memory, buffer)
    return memory


def from_device(devptr, shape, dtype, order="C"):
    """A numpy array of shape and dtype copied from device memory at devptr
    (a DeviceMemory, an int address or any device array)."""
    import numpy as np
    result = np.empty(shape, dtype, order=order)
    if result.nbytes:
        host = result if result.flags.c_contiguous else result.T
        _cudyn.memcpy_dtoh(host, devptr)
    return result


def from_device_like(devptr, other_ary):
    """from_device with the shape, dtype and order of a host array."""
    order = "F" if other_ary.flags.f_contiguous and not other_ary.flags.c_contiguous else "C"
    return from_device(devptr, other_ary.shape, other_ary.dtype, order)
