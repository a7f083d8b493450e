# Type stubs for the C extension cudyn._cudyn (python/src).  Its classes
# call themselves cudyn.X; the package re-exports them (__init__.pyi).
# `make check` runs mypy's stubtest against the built module
# (tests/check-stubs.sh): a name added to or removed from the module without
# this file fails it, and so does a parameter that differs from the text
# signature its C docstring starts with (CPY_SIG, python/src/cudyn_py.h:
# names, positional-only and keyword-only, defaults).  The constructors'
# signatures (tp_doc) are compared with __init__/__new__ here by
# python/tests/test_signatures.py, which stubtest of this mypy does not do.
import os
from collections.abc import Sequence
from typing import Any, Callable, Protocol, final, SupportsIndex, SupportsInt, Union

import numpy as np
from numpy.typing import DTypeLike, NDArray
from typing_extensions import Self, TypeAlias

# --- what the module accepts ------------------------------------------------
class _HasCudaArrayInterface(Protocol):
    @property
    def __cuda_array_interface__(self) -> dict[str, Any]: ...

class _HasDLPack(Protocol):
    def __dlpack__(self, *args: Any, **kwargs: Any) -> Any: ...
    def __dlpack_device__(self) -> tuple[int, int]: ...

class _HasHandle(Protocol):
    @property
    def handle(self) -> int: ...

class _HasCudaStream(Protocol):
    @property
    def cuda_stream(self) -> int: ...

class _HasPtr(Protocol):
    @property
    def ptr(self) -> int: ...

# a device address: an int, DeviceMemory (or anything with __int__), an array
_DevicePointer: TypeAlias = Union[SupportsInt, _HasCudaArrayInterface]
# a stream: Stream, a CUstream as an int, or another library's stream object
_StreamLike: TypeAlias = Union["Stream", int, _HasHandle, _HasCudaStream, _HasPtr, None]
# a host array: numpy arrays and other buffers (this mypy's typeshed has no
# type for "supports the buffer protocol" that numpy arrays match)
_HostBuffer: TypeAlias = Any
# a launch dimension: x, (x,), (x, y) or (x, y, z)
_Dim: TypeAlias = Union[int, tuple[int], tuple[int, int], tuple[int, int, int]]

# --- exceptions (errors.c) --------------------------------------------------
class Error(Exception):
    """A cudyn failure: status, status_name, origin, native_code, native_name, function, message and hint."""
    status: int | None
    status_name: str | None
    origin: str | None
    native_code: int | None
    native_name: str | None
    function: str | None
    message: str | None
    hint: str | None

class LoaderError(Error):
    """The driver or NVRTC was not found, is a stub, too old, or lacks a function."""

class InvalidArgument(Error, ValueError):
    """An argument is invalid."""

class DeviceError(Error):
    """No such device, or no device at all."""

class OutOfMemory(Error, MemoryError):
    """The device (or host) is out of memory."""

class CompileError(Error):
    """A kernel failed to compile; `log` is NVRTC's log."""
    log: str | None
    @property
    def stderr(self) -> str | None:
        """The compile log (PyCUDA's name for it), set by the package (cudyn/__init__.py)."""

class LaunchError(Error):
    """A kernel launch or its execution failed."""

class LaunchArgumentError(Error, TypeError):
    """The arguments do not match the kernel's parameters (also a TypeError)."""

class ForkedError(Error):
    """CUDA was initialised before fork(): the child cannot use it."""

# --- constants (init.c) -----------------------------------------------------
# the statuses of cudyn.h's CUDYN_STATUS_MAP, without the CUDYN_ prefix
OK: int
ERROR_DRIVER_NOT_FOUND: int
ERROR_STUB_DRIVER: int
ERROR_DRIVER_TOO_OLD: int
ERROR_NVRTC_NOT_FOUND: int
ERROR_SYMBOL_NOT_FOUND: int
ERROR_INIT_FAILED: int
ERROR_INVALID_ARGUMENT: int
ERROR_INVALID_DEVICE: int
ERROR_NO_DEVICE: int
ERROR_INVALID_CONTEXT: int
ERROR_INVALID_HANDLE: int
ERROR_NOT_FOUND: int
ERROR_NOT_READY: int
ERROR_NOT_SUPPORTED: int
ERROR_NOT_PERMITTED: int
ERROR_ALREADY_INITIALIZED: int
ERROR_OUT_OF_MEMORY: int
ERROR_DEVICE_UNAVAILABLE: int
ERROR_COMPILE: int
ERROR_INVALID_IMAGE: int
ERROR_NO_BINARY_FOR_GPU: int
ERROR_UNSUPPORTED_PTX: int
ERROR_UNSUPPORTED_ARCH: int
ERROR_LAUNCH_FAILED: int
ERROR_ILLEGAL_ADDRESS: int
ERROR_LAUNCH_TIMEOUT: int
ERROR_LAUNCH_OUT_OF_RESOURCES: int
ERROR_INVALID_LAUNCH_ARGUMENTS: int
ERROR_ILLEGAL_INSTRUCTION: int
ERROR_ASSERT: int
ERROR_DRIVER: int
ERROR_NVRTC: int
ERROR_SYSTEM: int
ERROR_TIMEOUT: int
ERROR_FORKED: int
ERROR_WRONG_CONTEXT: int
ERROR_NCCL_NOT_FOUND: int
ERROR_NCCL: int
ERROR_NCCL_REMOTE: int
ERROR_LINK: int
# flags and modes
STREAM_NON_BLOCKING: int
EVENT_BLOCKING_SYNC: int
EVENT_DISABLE_TIMING: int
INIT_LEGACY_STREAM: int
INIT_PER_THREAD_STREAM: int
FILTER_POINT: int
FILTER_LINEAR: int
ADDRESS_WRAP: int
ADDRESS_CLAMP: int
ADDRESS_MIRROR: int
ADDRESS_BORDER: int
READ_ELEMENT_TYPE: int
READ_NORMALIZED_FLOAT: int
CAPTURE_GLOBAL: int
CAPTURE_THREAD_LOCAL: int
CAPTURE_RELAXED: int

# --- memory.c ---------------------------------------------------------------
@final
class DeviceMemory:
    """DeviceMemory(nbytes, managed=False): device (or managed) memory this object owns."""
    def __init__(self, nbytes: int, managed: bool = False) -> None: ...
    @property
    def nbytes(self) -> int:
        """size in bytes"""
    @property
    def device(self) -> int:
        """the device (ordinal) it lives on"""
    @property
    def managed(self) -> bool:
        """True for managed (unified) memory"""
    @property
    def freed(self) -> bool:
        """True once free() was called"""
    @property
    def ptr(self) -> int:
        """the device address (int)"""
    def free(self) -> None:
        """Frees the memory now (otherwise when the object goes)."""
    def __enter__(self) -> Self: ...
    def __exit__(self, *exc: object) -> None: ...
    def __int__(self) -> int: ...
    def __index__(self) -> int: ...

class PinnedMemory:
    """PinnedMemory(nbytes): page-locked host memory (writable buffer; numpy.frombuffer views it)."""
    def __init__(self, nbytes: int) -> None: ...
    @property
    def nbytes(self) -> int:
        """size in bytes"""
    @property
    def ptr(self) -> int:
        """the host address (int)"""
    def __len__(self) -> int: ...

# --- streams.c --------------------------------------------------------------
class Stream:
    """Stream(flags=0): a CUDA stream (flags 1: non-blocking)."""
    def __init__(self, flags: int = 0) -> None: ...
    @classmethod
    def from_handle(cls, handle: int, /) -> Self:
        """Stream.from_handle(int): a CUstream made elsewhere (stays its maker's)."""
    @property
    def handle(self) -> int:
        """the native CUstream (int)"""
    def synchronize(self) -> None:
        """Waits for the stream's work (Ctrl-C works)."""
    def query(self) -> bool:
        """True if all its work is done."""
    def wait_event(self, event: Event, /) -> None:
        """Later work waits for the event."""
    def begin_capture(self, mode: int = 1) -> None:
        """begin_capture(mode=1): record work into a graph instead of running it."""
    def end_capture(self) -> Graph:
        """Ends a capture: the Graph."""
    def capture_status(self) -> int:
        """0 none, 1 active, 2 invalidated."""

class Event:
    """Event(flags=0): a CUDA event (flags 1: blocking sync, 2: no timing)."""
    def __init__(self, flags: int = 0) -> None: ...
    @property
    def handle(self) -> int:
        """the native CUevent (int)"""
    def record(self, stream: _StreamLike = None) -> Self:
        """record(stream=None): records the event; returns it."""
    def synchronize(self) -> None:
        """Waits for the event (Ctrl-C works)."""
    def query(self) -> bool:
        """True if it has happened."""
    def time_since(self, start: Event, /) -> float:
        """Milliseconds from start to this event."""
    def time_till(self, end: Event, /) -> float:
        """Milliseconds from this event to end."""

@final
class Graph:
    """Captured work (Stream.end_capture); instantiate() to launch it."""
    def instantiate(self, flags: int = 0) -> GraphExec:
        """instantiate(flags=0): a launchable GraphExec."""

@final
class GraphExec:
    """An instantiated graph: launch(stream=None)."""
    def launch(self, stream: _StreamLike = None) -> None:
        """launch(stream=None): runs the whole graph."""
    def update(self, graph: Graph, /) -> None:
        """update(graph): new parameters from a graph of the same shape."""

# --- textures.c -------------------------------------------------------------
@final
class Array:
    """Array(shape, dtype, channels=1, flags=0): a CUDA array; shape in numpy order (depth, height, width)."""
    def __init__(self, shape: int | tuple[int, ...], dtype: DTypeLike, channels: int = 1, flags: int = 0) -> None: ...
    @property
    def width(self) -> int:
        """elements per row"""
    @property
    def height(self) -> int:
        """rows (0 for a 1D array)"""
    @property
    def depth(self) -> int:
        """slices of a 3D array, or layers of a layered one; 0 otherwise"""
    @property
    def channels(self) -> int:
        """values per element (1, 2 or 4)"""
    @property
    def format(self) -> int:
        """a cudyn_format"""
    @property
    def nbytes(self) -> int:
        """bytes of the packed host copy"""
    def copy_from(self, host: _HostBuffer, /) -> None:
        """copy_from(host): the whole array from a packed host array."""
    def copy_to(self, host: _HostBuffer, /) -> None:
        """copy_to(host): the whole array into a packed host array."""

@final
class Texture:
    """Texture(array, ...): a texture object; pass it (or its handle) to kernels."""
    def __init__(self, array: Array, filter_mode: int = 0, address_mode: int | tuple[int, ...] | None = None,
                 normalized_coords: bool = False, read_mode: int = 0,
                 border_color: tuple[float, ...] | None = None) -> None: ...
    @property
    def handle(self) -> int:
        """the texture object (int; np.uint64 for kernels)"""
    @property
    def array(self) -> Array:
        """the Array it reads"""
    def __int__(self) -> int: ...
    def __index__(self) -> int: ...

# --- array.c, export.c, interop.c -------------------------------------------
class DeviceArray:
    """DeviceArray(shape, dtype, strides=None, memory=None, ptr=None, owner=None, stream=None): an array in device memory."""
    def __new__(cls, shape: int | tuple[int, ...], dtype: DTypeLike, strides: tuple[int, ...] | None = None,
                memory: DeviceMemory | None = None, ptr: int | None = None, owner: object = None,
                stream: _StreamLike = None, offset: int = 0) -> Self: ...
    @property
    def dtype(self) -> np.dtype[Any]:
        """the numpy dtype"""
    @property
    def size(self) -> int:
        """number of elements"""
    @property
    def itemsize(self) -> int:
        """bytes per element"""
    @property
    def ndim(self) -> int:
        """number of dimensions"""
    @property
    def device(self) -> int:
        """the device (ordinal) it lives on"""
    @property
    def is_contiguous(self) -> bool:
        """True if C-contiguous"""
    @property
    def readonly(self) -> bool:
        """True if its producer said read-only"""
    @property
    def stream(self) -> Any:
        """the stream it was made for, or None"""
    @property
    def shape(self) -> tuple[int, ...]:
        """the shape (tuple)"""
    @property
    def strides(self) -> tuple[int, ...]:
        """the strides in bytes (tuple)"""
    @property
    def nbytes(self) -> int:
        """size * itemsize"""
    @property
    def ptr(self) -> int:
        """the device address of element 0 (int)"""
    @property
    def base(self) -> Any:
        """what keeps the memory alive (DeviceMemory, a producer), or None"""
    @property
    def owner(self) -> Any:
        """the same as base"""
    @property
    def managed(self) -> bool:
        """True if in managed memory"""
    @property
    def __cuda_array_interface__(self) -> dict[str, Any]:
        """CUDA Array Interface, version 3"""
    def get(self, ary: NDArray[Any] | None = None, stream: _StreamLike = None, pagelocked: bool = False) -> NDArray[Any]:
        """get(ary=None, stream=None): a numpy copy (into ary if given)."""
    def set(self, ary: _HostBuffer, stream: _StreamLike = None) -> None:
        """set(ary, stream=None): copies a contiguous host array of the same size and dtype in."""
    def __dlpack__(self, *, stream: int | None = None, max_version: tuple[int, int] | None = None,
                   dl_device: tuple[int, int] | None = None, copy: bool | None = None) -> Any:
        """A DLPack capsule (no copy)."""
    def __dlpack_device__(self) -> tuple[int, int]:
        """(device type, device id)"""
    def __len__(self) -> int: ...

@final
class DLPackOwner:
    """Keeps a DLPack producer's tensor alive for a DeviceArray."""

def from_dlpack(obj: _HasDLPack, /) -> DeviceArray:
    """from_dlpack(obj): a DeviceArray over a DLPack producer's memory."""
def asarray(obj: _HasCudaArrayInterface | _HasDLPack, /) -> DeviceArray:
    """asarray(obj): a DeviceArray over an object with __cuda_array_interface__ or __dlpack__ (no copy)."""

# --- host_args.c ------------------------------------------------------------
@final
class In:
    """In(array): a host array the kernel reads (copied in before the launch)."""
    def __init__(self, array: _HostBuffer) -> None: ...
    @property
    def array(self) -> Any:
        """the host array"""

@final
class Out:
    """Out(array): a host array the kernel writes (copied out after the launch)."""
    def __init__(self, array: _HostBuffer) -> None: ...
    @property
    def array(self) -> Any:
        """the host array"""

@final
class InOut:
    """InOut(array): a host array copied in before the launch and out after it."""
    def __init__(self, array: _HostBuffer) -> None: ...
    @property
    def array(self) -> Any:
        """the host array"""

# --- prepared.c, function.c, module.c ---------------------------------------
class _PreparedCalls:
    """PyCUDA's prepared calls, which PreparedFunction and Function both have (the C's CPY_LAUNCH_KEYWORDS)."""
    def prepared_call(self, grid: _Dim, block: _Dim, /, *args: Any, shared: int = 0, shared_size: int = 0,
                      time_kernel: bool = False, texrefs: object = None, stream: _StreamLike = None) -> float | None:
        """Launches with the prepared format; time_kernel=True waits and returns the kernel's seconds."""
    def prepared_async_call(self, grid: _Dim, block: _Dim, stream: _StreamLike, /, *args: Any, shared: int = 0,
                            shared_size: int = 0, time_kernel: bool = False, texrefs: object = None) -> float | None:
        """prepared_call on ``stream`` (PyCUDA's order)."""
    def prepared_timed_call(self, grid: _Dim, block: _Dim, /, *args: Any, shared: int = 0, shared_size: int = 0,
                            time_kernel: bool = False, texrefs: object = None,
                            stream: _StreamLike = None) -> Callable[[], float]:
        """Launches; returns a callable that waits and gives the kernel's time in seconds."""

@final
class PreparedFunction(_PreparedCalls):
    """A kernel with a fixed, checked argument format: p(grid, block, *args), or p(*args) when bound."""
    def __call__(self, *args: Any, shared: int = 0, stream: _StreamLike = None) -> None: ...
    @property
    def format(self) -> str:
        """the launch format"""
    @property
    def bound(self) -> dict[str, Any] | None:
        """the launch configuration prepare() bound, or None"""
    @property
    def function(self) -> Function:
        """the Function"""

@final
class Function(_PreparedCalls):
    """A kernel: f(*args, grid=(1,1,1), block=(1,1,1), shared=0, stream=None) launches it."""
    def __call__(self, *args: Any, grid: _Dim = 1, block: _Dim = 1, shared: int = 0,
                 stream: _StreamLike = None) -> None: ...
    def prepare(self, arg_types: str | tuple[DTypeLike, ...] | list[DTypeLike], texrefs: object = None, *,
                grid: _Dim | None = None, block: _Dim | None = None, shared: int | None = None,
                stream: _StreamLike = None) -> PreparedFunction:
        """A PreparedFunction for hot loops; grid= and block= bind the launch configuration (shared=, stream= too)."""
    @property
    def num_regs(self) -> int:
        """registers per thread"""
    @property
    def shared_size_bytes(self) -> int:
        """static shared memory in bytes"""
    @property
    def max_threads_per_block(self) -> int:
        """the most threads a block may have"""
    @property
    def local_size_bytes(self) -> int:
        """local memory per thread in bytes"""
    @property
    def const_size_bytes(self) -> int:
        """constant memory in bytes"""
    @property
    def ptx_version(self) -> int:
        """PTX ISA version (90 = 9.0)"""
    @property
    def binary_version(self) -> int:
        """binary architecture (90 = sm_90)"""
    @property
    def param_count(self) -> int | None:
        """the kernel's parameter count, or None where not known"""
    @property
    def handle(self) -> int:
        """the native CUfunction (int)"""
    @property
    def layout(self) -> str | None:
        """the launch format found at the first call, or None"""
    @property
    def name(self) -> str:
        """the kernel's name"""
    @property
    def module(self) -> Module:
        """the Module it comes from"""

@final
class Module:
    """Loaded kernels: Module.from_source / from_image / from_file."""
    @classmethod
    def from_source(cls, source: str, options: tuple[str, ...] | list[str] | None = None, name: str = "kernel.cu",
                    name_expressions: tuple[str, ...] | list[str] | None = None,
                    headers: dict[str, str] | None = None, device: int | None = None, no_extern_c: bool = False,
                    include_dirs: tuple[str, ...] | list[str] | None = None, nocache: bool = False) -> Module:
        """Compiles through cudyn's cache and loads."""
    @classmethod
    def from_image(cls, image: bytes | bytearray | memoryview, /) -> Module:
        """from_image(bytes_like): loads a cudyn-cc image, CUBIN, fatbin or PTX."""
    @classmethod
    def from_file(cls, path: str, /) -> Module:
        """from_file(path): from_image of a file."""
    def get_function(self, name: str, /) -> Function:
        """get_function(name): the kernel of that name or name expression."""
    def get_global(self, name: str, /) -> tuple[int, int]:
        """get_global(name): (device address, bytes)."""
    def lowered_name(self, expr: str, /) -> str:
        """lowered_name(expr): the mangled name."""
    @property
    def log(self) -> str | None:
        """NVRTC's log (None for images)"""
    @property
    def target(self) -> str | None:
        """the target compiled for ('sm_90', 'compute_90')"""
    @property
    def from_cache(self) -> bool:
        """True if the kernel came from the cache"""
    @property
    def handle(self) -> int:
        """the native CUmodule (int)"""
    @property
    def ptx(self) -> str | None:
        """the PTX text where there is one, else None"""
    @property
    def device(self) -> int:
        """the device it is loaded on"""

# --- link.c -----------------------------------------------------------------
LINK_AUTO: int
LINK_CUBIN: int
LINK_PTX: int
LINK_LTOIR: int
LINK_FATBIN: int
LINK_OBJECT: int
LINK_LIBRARY: int

@final
class Linker:
    """A device linker (cudyn_link_create): nvJitLink, else the driver's."""
    def __new__(cls, options: Sequence[str] | None = None, *, device: int | None = None, devrt: bool = False,
                driver: bool = False, need_nvjitlink: bool = False) -> Linker: ...
    def add_data(self, data: bytes | bytearray | memoryview, kind: int = 0, name: str | None = None) -> None:
        """Adds an input (a bytes-like object)."""
    def add_file(self, path: str | os.PathLike[str], kind: int = 0) -> None:
        """Adds a file's contents."""
    def add_source(self, source: str, options: Sequence[str] | None = None, name: str = "kernel.cu",
                   headers: dict[str, str] | None = None) -> None:
        """Compiles CUDA C++ as relocatable device code (headers: {name: text}, found in memory) and adds it."""
    def complete(self) -> bytes:
        """Links: the CUBIN (PTX with -ptx) as bytes."""
    def close(self) -> None:
        """Frees the linker now; InvalidArgument while a call on it runs in another thread."""
    @property
    def log(self) -> str:
        """the linker's log so far, errors first (InvalidArgument while a call on it runs)"""
    @property
    def backend(self) -> str:
        """which linker: 'nvJitLink 13.0' or 'driver (CUDA 13.0)'"""

# --- expressions.c ----------------------------------------------------------
class Elementwise:
    """Elementwise(params, body, name='kernel', preamble=None): cudyn_elementwise_create."""
    def __init__(self, params: str, body: str, name: str | None = "kernel", preamble: str | None = None) -> None: ...
    def launch(self, n: int, /, *args: Any, stream: _StreamLike = None) -> None:
        """launch(n, *args, stream=None): runs the body for i in [0, n)."""
    @property
    def format(self) -> str:
        """the launch format of the parameters"""
    @property
    def source(self) -> str:
        """the generated CUDA C++ source"""

class Reduction:
    """Reduction(result_type, neutral, reduce_expr, map_expr, params, name='reduce', preamble=None)."""
    def __init__(self, result_type: str, neutral: str, reduce_expr: str, map_expr: str, params: str,
                 name: str | None = "reduce", preamble: str | None = None) -> None: ...
    def run(self, n: int, /, *args: Any, stream: _StreamLike = None, out: _DevicePointer | None = None) -> Any:
        """run(n, *args, stream=None, out=None): the reduction's value (a Python number), or written to out."""
    @property
    def format(self) -> str:
        """the launch format of the parameters"""
    @property
    def source(self) -> str:
        """the generated CUDA C++ source"""

# --- functions.c ------------------------------------------------------------
def version() -> str:
    """cudyn's version string."""
def init(flags: int = 0) -> None:
    """init(flags=0): loads the driver now (flags: 1 legacy, 2 per-thread default stream)."""
def status_name(status: int, /) -> str:
    """status_name(n): 'CUDYN_ERROR_...'."""
def status_string(status: int, /) -> str:
    """status_string(n): one sentence."""
def loader_info(load: int = 3) -> dict[str, Any]:
    """loader_info(load=3): what the loader found, as a dict."""
def toolkit_info() -> dict[str, Any]:
    """The toolkit's headers, libcudadevrt.a and nvJitLink cudyn found, as a dict."""
def last_error() -> dict[str, Any] | None:
    """The calling thread's last cudyn_error as a dict, or None."""
def device_count() -> int:
    """Number of visible devices."""
def device_info(ordinal: int, /) -> dict[str, Any]:
    """device_info(ordinal): every field of cudyn_device_info."""
def device_attributes(ordinal: int, /) -> dict[str, int]:
    """device_attributes(ordinal): name -> value."""
def device_attribute(ordinal: int, name_or_number: str | int, /) -> int:
    """device_attribute(ordinal, name_or_number)."""
def device_use(ordinal: int, /) -> None:
    """device_use(ordinal): this thread's device."""
def cpu_affinity(ordinal: int, /) -> frozenset[int] | None:
    """cpu_affinity(ordinal): the CPUs next to the device (NVML's), a frozenset; None where NVML cannot tell."""
def device_current() -> int:
    """This thread's device."""
def synchronize() -> None:
    """Waits for the device's work (Ctrl-C works)."""
def mem_info() -> tuple[int, int]:
    """(free, total) bytes of this thread's device."""
def can_access_peer(a: int, b: int, /) -> bool:
    """can_access_peer(a, b)."""
def enable_peer(a: int, b: int, /) -> None:
    """enable_peer(a, b): a's kernels reach b's memory."""
def cache_info() -> dict[str, Any]:
    """The kernel cache: a dict."""
def cache_clear() -> int:
    """Empties the kernel cache; returns how many entries went."""
def memcpy_htod(dst: _DevicePointer, src: _HostBuffer, stream: _StreamLike = None) -> None:
    """memcpy_htod(dst, src_buffer, stream=None)."""
def memcpy_dtoh(dst: _HostBuffer, src: _DevicePointer, stream: _StreamLike = None) -> None:
    """memcpy_dtoh(dst_buffer, src, stream=None)."""
def memcpy_dtod(dst: _DevicePointer, src: _DevicePointer, nbytes: SupportsIndex, stream: _StreamLike = None) -> None:
    """memcpy_dtod(dst, src, nbytes, stream=None)."""
def memset_d8(ptr: _DevicePointer, value: int, count: SupportsIndex, stream: _StreamLike = None) -> None:
    """memset_d8(ptr, value, count, stream=None)."""
def memset_d16(ptr: _DevicePointer, value: int, count: SupportsIndex, stream: _StreamLike = None) -> None:
    """memset_d16(ptr, value, count, stream=None)."""
def memset_d32(ptr: _DevicePointer, value: int, count: SupportsIndex, stream: _StreamLike = None) -> None:
    """memset_d32(ptr, value, count, stream=None)."""
def pointer_info(ptr: _DevicePointer, /) -> dict[str, Any]:
    """pointer_info(ptr): kind, device, range."""

# the facts the pure-Python layer derives from (python/src/functions.c, init.c)
_MAX_ARGS: int
_OPTION_NVCC_NAMES: str
def _launch_format_codes() -> dict[str, tuple[int, int]]:
    """The launch-format characters the module passes: {character: (bytes, kind)}."""
def _dtype_format(dtype: Any, /) -> str | None:
    """The launch-format character of a numpy dtype's elements, or None."""
def _format_spellings() -> dict[str, tuple[str, ...]]:
    """{scalar character: its C spellings, the kernels' own first}."""
def _local_rank_info() -> dict[str, Any] | None:
    """The launcher's node-local rank (cudyn_local_rank_info) as a dict; None where no launcher says."""
