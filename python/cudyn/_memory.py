"""PyCUDA's names for raw device memory and page-locked host arrays, in
cudyn's own vocabulary: mem_alloc gives a :class:`cudyn.DeviceMemory`
(PyCUDA's DeviceAllocation: ``int()`` is its address, ``free()`` frees it
now, and it is freed when it goes), to_device and from_device copy host
buffers in and out, pagelocked_empty makes a numpy array in pinned
memory.  numpy is asked for by the functions that need it, so that
``import cudyn`` needs none (_requires)."""

from . import _cudyn, _requires


def mem_alloc(nbytes):
    """``nbytes`` (at least 1) of device memory on the calling thread's device."""
    return _cudyn.DeviceMemory(nbytes)


def mem_alloc_like(ary):
    """Device memory of a host array's size (``ary.nbytes``)."""
    np = _requires.numpy("cudyn.mem_alloc_like")
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
    np = _requires.numpy("cudyn.from_device")
    result = np.empty(shape, dtype, order=order)
    if result.nbytes:
        host = result if result.flags.c_contiguous else result.T
        _cudyn.memcpy_dtoh(host, devptr)
    return result


def from_device_like(devptr, other_ary):
    """from_device with the shape, dtype and order of a host array."""
    order = "F" if other_ary.flags.f_contiguous and not other_ary.flags.c_contiguous else "C"
    return from_device(devptr, other_ary.shape, other_ary.dtype, order)


def pagelocked_empty(shape, dtype="float32"):
    """A numpy array in page-locked (pinned) host memory, uninitialised.

    Copies between it and the device run at full speed and may be
    asynchronous.  The memory lives as long as the array."""
    np = _requires.numpy("cudyn.pagelocked_empty")
    dtype = np.dtype(dtype)
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    count = 1
    for extent in shape:
        count *= int(extent)
    memory = _cudyn.PinnedMemory(max(count * dtype.itemsize, 1))
    return np.frombuffer(memory, dtype=dtype, count=count).reshape(shape)


def pagelocked_zeros(shape, dtype="float32"):
    """As :func:`pagelocked_empty`, filled with zeros."""
    array = pagelocked_empty(shape, dtype)
    array.fill(0)
    return array
