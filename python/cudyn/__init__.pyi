# Type stubs for the package cudyn (__init__.py): the C extension's names
# (_cudyn.pyi), re-exported, and the Python vocabulary added on top.
# tests/check-stubs.sh runs mypy's stubtest against the built module.
import os
from types import TracebackType
from typing import Any, Iterable, Mapping, Sequence

from numpy.typing import DTypeLike, NDArray
from typing_extensions import Self

from . import _cudyn as _cudyn
from . import cumath as cumath
from . import curandom as curandom
from . import elementwise as elementwise
from . import gpuarray as gpuarray
from . import pycuda as pycuda
from . import scan as scan
from ._memory import from_device as from_device
from ._memory import from_device_like as from_device_like
from ._memory import mem_alloc as mem_alloc
from ._memory import mem_alloc_like as mem_alloc_like
from ._memory import mem_get_info as mem_get_info
from ._memory import pagelocked_empty as pagelocked_empty
from ._memory import pagelocked_zeros as pagelocked_zeros
from ._memory import to_device as to_device
from .elementwise import ElementwiseKernel as ElementwiseKernel
from .elementwise import ReductionKernel as ReductionKernel

__version__: str
__all__ = [
    "Error", "LoaderError", "InvalidArgument", "DeviceError", "OutOfMemory", "CompileError", "LaunchError",
    "ForkedError", "version", "init", "status_name", "status_string", "loader_info", "last_error",
    "device_count", "device_info", "device_attributes", "device_attribute", "device_use", "device_current",
    "cpu_affinity", "synchronize", "mem_info", "can_access_peer", "enable_peer", "cache_info", "cache_clear",
    "memcpy_htod", "memcpy_dtoh", "memcpy_dtod", "memset_d8", "memset_d16", "memset_d32", "pointer_info",
    "DeviceMemory", "PinnedMemory", "DeviceArray", "from_dlpack", "asarray", "In", "Out", "InOut", "Module",
    "Function", "PreparedFunction", "Stream", "Event", "Graph", "GraphExec", "Elementwise", "Reduction", "Array",
    "Texture", "Linker", "toolkit_info",
    "Device", "CapturedGraph", "current_device", "SourceModule", "module_from_file", "module_from_buffer", "info",
    "pagelocked_empty", "pagelocked_zeros", "managed_empty", "ElementwiseKernel", "ReductionKernel", "gpuarray",
    "mem_alloc", "mem_alloc_like", "mem_get_info", "to_device", "from_device", "from_device_like",
]

class Device:
    """One GPU, by ordinal, as cuda.core's ``Device`` and PyCUDA's ``Device``."""
    ordinal: int
    def __init__(self, ordinal: int | Device = 0) -> None: ...
    @staticmethod
    def count() -> int:
        """The number of devices cudyn sees (0 is an exception: see device_count)."""
    @property
    def info(self) -> dict[str, Any]:
        """Every fact of ``cudyn_device_info`` for this device, as a dict."""
    def __getattr__(self, name: str) -> Any:
        """A fact of ``info`` as an attribute (name, uuid, pci_bus_id, total_memory, ...)."""
    @property
    def compute_capability(self) -> tuple[int, int]:
        """(major, minor), e.g. (9, 0) for an H100."""
    @property
    def attributes(self) -> dict[str, int]:
        """Every device attribute cudyn knows, as a dict name -> int."""
    def attribute(self, name: str | int) -> int:
        """One device attribute by name (as ``attributes`` lists them)."""
    def use(self) -> Self:
        """Makes this device the calling thread's (its primary context); returns self."""
    def set_current(self) -> Self:
        """Makes this device the calling thread's (its primary context); returns self."""
    def synchronize(self) -> None:
        """Waits for all work on this device (it becomes the thread's device)."""
    def mem_info(self) -> tuple[int, int]:
        """(free, total) bytes of this device's memory."""
    def can_access_peer(self, peer: int | Device) -> bool:
        """Whether this device can access ``peer``'s memory directly."""
    def enable_peer(self, peer: int | Device) -> None:
        """Lets this device's context access ``peer``'s memory."""
    def __enter__(self) -> Self: ...
    def __exit__(self, *exc: object) -> bool: ...
    def __eq__(self, other: object) -> bool: ...
    def __hash__(self) -> int: ...

class CapturedGraph:
    """What ``with stream.capture() as graph:`` gives: the captured graph, and launch() to replay it."""
    stream: _cudyn.Stream
    graph: Graph | None
    def __init__(self, stream: _cudyn.Stream) -> None: ...
    def __enter__(self) -> Self: ...
    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None,
                 traceback: TracebackType | None) -> bool: ...
    def instantiate(self) -> GraphExec:
        """The executable graph (made once)."""
    def launch(self, stream: Any = None) -> None:
        """Replays the captured work on ``stream`` (default: the capturing stream)."""

class Stream(_cudyn.Stream):
    """Stream(flags=0): a CUDA stream (flags 1: non-blocking)."""
    def capture(self) -> CapturedGraph:
        """A context manager that captures the work submitted to this stream into a graph."""

def current_device() -> Device:
    """The calling thread's device as a :class:`Device` (device 0 until one is chosen)."""
def SourceModule(source: str, options: Sequence[str] | None = None, no_extern_c: bool = False,
                 name_expressions: Iterable[str] = (), headers: Mapping[str, str] | None = None,
                 name: str = "kernel.cu", device: int | Device | None = None, arch: None = None, code: None = None,
                 keep: None | bool = None, cache_dir: None = None, include_dirs: Iterable[str] = ()) -> Module:
    """Compiles CUDA C++ ``source`` with NVRTC through cudyn's cache, as PyCUDA's SourceModule."""
def module_from_file(path: str | os.PathLike[str]) -> Module:
    """Loads a module from a file: a cudyn-cc image, CUBIN, PTX or fatbin."""
def module_from_buffer(image: bytes | bytearray | memoryview) -> Module:
    """Loads a module from bytes in memory: a cudyn-cc image, CUBIN or PTX."""
def info() -> dict[str, Any]:
    """The facts of ``cudainfo --json`` as a dict."""
def managed_empty(shape: int | Sequence[int], dtype: DTypeLike = "float32") -> gpuarray.GPUArray:
    """A :class:`cudyn.gpuarray.GPUArray` in managed (unified) memory, uninitialised."""

# the extension's names (Stream above is the package's subclass of
# _cudyn.Stream, which the star import must not replace)
from ._cudyn import *  # type: ignore[assignment]
