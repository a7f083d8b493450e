# Type stubs for cudyn._memory, whose public names the package re-exports
# (cudyn.mem_alloc ...) and cudyn.pycuda.driver names again.
from typing import Any, Sequence

from numpy.typing import DTypeLike, NDArray

from ._cudyn import DeviceMemory, _DevicePointer, _HostBuffer

def mem_alloc(nbytes: int) -> DeviceMemory:
    """``nbytes`` (at least 1) of device memory on the calling thread's device."""
def mem_alloc_like(ary: Any) -> DeviceMemory:
    """Device memory of a host array's size (``ary.nbytes``)."""
def mem_get_info() -> tuple[int, int]:
    """(free, total) bytes of the calling thread's device."""
def in_memory_order(buffer: _HostBuffer) -> _HostBuffer:
    """A host buffer whose bytes are contiguous in any order, as one that is C-contiguous over the same bytes."""
def to_device(buffer: _HostBuffer) -> DeviceMemory:
    """New device memory holding a copy of a host buffer, byte for byte."""
def from_device(devptr: _DevicePointer, shape: int | Sequence[int], dtype: DTypeLike,
                order: str = "C") -> NDArray[Any]:
    """A numpy array of shape and dtype copied from device memory at devptr."""
def from_device_like(devptr: _DevicePointer, other_ary: NDArray[Any]) -> NDArray[Any]:
    """from_device with the shape, dtype and order of a host array."""
def pagelocked_empty(shape: int | Sequence[int], dtype: DTypeLike = "float32") -> NDArray[Any]:
    """A numpy array in page-locked (pinned) host memory, uninitialised."""
def pagelocked_zeros(shape: int | Sequence[int], dtype: DTypeLike = "float32") -> NDArray[Any]:
    """As :func:`pagelocked_empty`, filled with zeros."""
