# Type stubs for cudyn.pycuda.driver (pycuda.driver over cudyn).
# tests/check-stubs.sh runs mypy's stubtest against the module.
import enum
from typing import Any, Callable, NoReturn, Sequence

import numpy as np
from numpy.typing import DTypeLike, NDArray
from typing_extensions import Self

import cudyn
from cudyn._cudyn import _DevicePointer, _Dim, _HostBuffer, _StreamLike
from cudyn._memory import from_device as from_device
from cudyn._memory import from_device_like as from_device_like
from cudyn._memory import mem_alloc as mem_alloc
from cudyn._memory import mem_alloc_like as mem_alloc_like
from cudyn._memory import mem_get_info as mem_get_info
from cudyn._memory import to_device as to_device

# errors and names kept from cudyn
Error = cudyn.Error
MemoryError = cudyn.OutOfMemory
LaunchError = cudyn.LaunchError
CompileError = cudyn.CompileError

class LogicError(cudyn.Error):
    """PyCUDA's error for a call that cannot be right (no context to pop ...)."""

class RuntimeError(cudyn.Error):
    """PyCUDA's error for a failure of the moment."""

In = cudyn.In
Out = cudyn.Out
InOut = cudyn.InOut
DeviceAllocation = cudyn.DeviceMemory
Event = cudyn.Event

def init(flags: int = 0) -> None:
    """Loads and initialises the driver (every call does that on first use anyway)."""
def get_driver_version() -> int:
    """The driver's CUDA version as an int (12080 for 12.8)."""
def get_version() -> tuple[int, int, int]:
    """The CUDA version PyCUDA reports as (major, minor, 0): the driver's."""

# enums PyCUDA code names
class _Named(str):
    """An enum member by name (device_attribute.MAX_THREADS_PER_BLOCK)."""

class _Names(type):
    def __getattr__(cls, name: str) -> _Named: ...

class device_attribute(metaclass=_Names):
    """Device attributes by PyCUDA's names: device_attribute.MAX_THREADS_PER_BLOCK ..."""

class compute_mode:
    """CUcomputemode values (Device.compute_mode gives one)."""
    DEFAULT: int
    EXCLUSIVE: int
    PROHIBITED: int
    EXCLUSIVE_PROCESS: int

class ctx_flags:
    """CUctx_flags values (make_context accepts 0 and MAP_HOST only)."""
    SCHED_AUTO: int
    SCHED_SPIN: int
    SCHED_YIELD: int
    SCHED_BLOCKING_SYNC: int
    MAP_HOST: int
    LMEM_RESIZE_TO_MAX: int

class event_flags:
    """CUevent_flags values, for Event(flags)."""
    DEFAULT: int
    BLOCKING_SYNC: int
    DISABLE_TIMING: int
    INTERPROCESS: int

class host_alloc_flags:
    """cuMemHostAlloc's flags (pinned memory is always portable and mapped with unified addressing)."""
    PORTABLE: int
    DEVICEMAP: int
    WRITECOMBINED: int

class mem_host_register_flags:
    """cuMemHostRegister's flags (register_host_memory's, which is refused)."""
    PORTABLE: int
    DEVICEMAP: int
    IOMEMORY: int
    READ_ONLY: int

class mem_attach_flags:
    """cuMemAllocManaged's flags."""
    GLOBAL: int
    HOST: int
    SINGLE: int

class function_attribute:
    """Function.get_attribute's names for the kernel's attributes."""
    MAX_THREADS_PER_BLOCK: str
    SHARED_SIZE_BYTES: str
    CONST_SIZE_BYTES: str
    LOCAL_SIZE_BYTES: str
    NUM_REGS: str
    PTX_VERSION: str
    BINARY_VERSION: str

# CUDA's enums PyCUDA names, with CUDA's values
class func_cache(enum.IntEnum):
    """CUfunc_cache: Context.set_cache_config's and Function.set_cache_config's values (refused)."""
    PREFER_NONE = 0
    PREFER_SHARED = 1
    PREFER_L1 = 2
    PREFER_EQUAL = 3

class shared_config(enum.IntEnum):
    """CUsharedconfig: Context.set_shared_config's values (refused)."""
    DEFAULT_BANK_SIZE = 0
    FOUR_BYTE_BANK_SIZE = 1
    EIGHT_BYTE_BANK_SIZE = 2

class limit(enum.IntEnum):
    """CUlimit: Context.get_limit's and set_limit's names (refused)."""
    STACK_SIZE = 0
    PRINTF_FIFO_SIZE = 1
    MALLOC_HEAP_SIZE = 2
    DEV_RUNTIME_SYNC_DEPTH = 3
    DEV_RUNTIME_PENDING_LAUNCH_COUNT = 4
    MAX_L2_FETCH_GRANULARITY = 5
    PERSISTING_L2_CACHE_SIZE = 6

class jit_option(enum.IntEnum):
    """CUjit_option: the (option, value) pairs of Linker, DynamicModule and module_from_buffer."""
    MAX_REGISTERS = 0
    THREADS_PER_BLOCK = 1
    WALL_TIME = 2
    INFO_LOG_BUFFER = 3
    INFO_LOG_BUFFER_SIZE_BYTES = 4
    ERROR_LOG_BUFFER = 5
    ERROR_LOG_BUFFER_SIZE_BYTES = 6
    OPTIMIZATION_LEVEL = 7
    TARGET_FROM_CUCONTEXT = 8
    TARGET = 9
    FALLBACK_STRATEGY = 10
    GENERATE_DEBUG_INFO = 11
    LOG_VERBOSE = 12
    GENERATE_LINE_INFO = 13
    CACHE_MODE = 14

class jit_target(enum.IntEnum):
    """CUjit_target: COMPUTE_50 = 50 ... (cudyn links for the current device)."""
    COMPUTE_50 = 50
    COMPUTE_52 = 52
    COMPUTE_53 = 53
    COMPUTE_60 = 60
    COMPUTE_61 = 61
    COMPUTE_62 = 62
    COMPUTE_70 = 70
    COMPUTE_72 = 72
    COMPUTE_75 = 75
    COMPUTE_80 = 80
    COMPUTE_86 = 86
    COMPUTE_87 = 87
    COMPUTE_88 = 88
    COMPUTE_89 = 89
    COMPUTE_90 = 90
    COMPUTE_100 = 100
    COMPUTE_101 = 101
    COMPUTE_103 = 103
    COMPUTE_110 = 110
    COMPUTE_120 = 120
    COMPUTE_121 = 121

class jit_fallback(enum.IntEnum):
    """CUjit_fallback: jit_option.FALLBACK_STRATEGY's values."""
    PREFER_PTX = 0
    PREFER_BINARY = 1

class jit_input_type(enum.IntEnum):
    """What a Linker input is: cudyn's numbers (cudyn.LINK_*) under PyCUDA's names."""
    CUBIN = 1
    PTX = 2
    FATBINARY = 4
    OBJECT = 5
    LIBRARY = 6
    NVVM = 3

# devices and contexts
class Device:
    """A GPU by ordinal (or PCI bus id), with PyCUDA's methods."""
    def __init__(self, number: int | str) -> None: ...
    @staticmethod
    def count() -> int:
        """The number of devices."""
    @property
    def ordinal(self) -> int:
        """The device's ordinal (int(device) too)."""
    def name(self) -> str:
        """The device's name ("NVIDIA H200")."""
    def pci_bus_id(self) -> str:
        """The PCI bus id ("0000:17:00.0")."""
    def compute_capability(self) -> tuple[int, int]:
        """(major, minor)."""
    def total_memory(self) -> int:
        """The device's memory in bytes."""
    def get_attribute(self, attribute: str) -> int:
        """One attribute: device_attribute.MAX_THREADS_PER_BLOCK ... (or its name)."""
    def get_attributes(self) -> dict[_Named, int]:
        """Every attribute the driver reports, as {device_attribute.NAME: value}."""
    def __getattr__(self, name: str) -> int:
        """A device attribute by its lower-case name (dev.max_threads_per_block)."""
    def can_access_peer(self, device: Device | int) -> bool:
        """Whether kernels on this device can reach ``device``'s memory directly."""
    def make_context(self, flags: int = 0) -> Context:
        """Pushes this device's primary context on the thread's stack and returns it."""
    def retain_primary_context(self) -> Context:
        """This device's primary context, not pushed (push() makes it current)."""
    def __eq__(self, other: object) -> bool: ...
    def __hash__(self) -> int: ...
    def __int__(self) -> int: ...

class Context:
    """A device's primary context as an entry of the thread's context stack."""
    def __init__(self, ordinal: int) -> None: ...
    def push(self) -> None:
        """Makes it the thread's current context (its device cudyn's device on this thread)."""
    @staticmethod
    def pop() -> None:
        """Removes the thread's current context; the one below (if any) becomes current."""
    def detach(self) -> None:
        """Drops this reference; the last one pops it when it is current."""
    def attach(self, flags: int = 0) -> None:
        """One more reference (detach drops one)."""
    @staticmethod
    def get_current() -> Context | None:
        """The thread's current context from this stack, or None."""
    @staticmethod
    def get_device() -> Device:
        """The device of the thread's current context (cudyn's device for the thread)."""
    @staticmethod
    def synchronize() -> None:
        """Waits for all work of the thread's device."""
    @staticmethod
    def get_api_version() -> int:
        """The driver's CUDA version as an int."""
    @staticmethod
    def set_cache_config(config: object) -> NoReturn:
        """Refused: the primary context's settings are its maker's."""
    @staticmethod
    def get_cache_config() -> NoReturn:
        """Refused: the primary context's settings are its maker's."""
    @staticmethod
    def set_shared_config(config: object) -> NoReturn:
        """Refused: the primary context's settings are its maker's."""
    @staticmethod
    def get_shared_config() -> NoReturn:
        """Refused: the primary context's settings are its maker's."""
    @staticmethod
    def set_limit(limit: object, value: object) -> NoReturn:
        """Refused: the primary context's limits are its maker's."""
    @staticmethod
    def get_limit(limit: object) -> NoReturn:
        """Refused: the primary context's limits are its maker's."""
    def __eq__(self, other: object) -> bool: ...
    def __hash__(self) -> int: ...

class Stream(cudyn.Stream):
    """A stream, with PyCUDA's method names (is_done, wait_for_event)."""
    def is_done(self) -> bool:
        """Whether all work submitted to the stream has finished."""
    def wait_for_event(self, event: cudyn.Event) -> None:
        """Later work on this stream waits for the event."""

# copies and memset
def memcpy_htod(dest: _DevicePointer, src: _HostBuffer, stream: _StreamLike = None) -> None:
    """Copies a host buffer (C or Fortran order) to device memory."""
def memcpy_dtoh(dest: _HostBuffer, src: _DevicePointer, stream: _StreamLike = None) -> None:
    """Copies device memory into a writable host buffer (C or Fortran order)."""
def memcpy_dtod(dest: _DevicePointer, src: _DevicePointer, size: int, stream: _StreamLike = None) -> None:
    """Copies size bytes between device memory."""
def memcpy_htod_async(dest: _DevicePointer, src: _HostBuffer, stream: _StreamLike = None) -> None:
    """As memcpy_htod, asynchronous on ``stream`` (the default stream if None)."""
def memcpy_dtoh_async(dest: _HostBuffer, src: _DevicePointer, stream: _StreamLike = None) -> None:
    """As memcpy_dtoh, asynchronous on ``stream`` (the default stream if None)."""
def memcpy_dtod_async(dest: _DevicePointer, src: _DevicePointer, size: int, stream: _StreamLike = None) -> None:
    """As memcpy_dtod, asynchronous on ``stream`` (the default stream if None)."""
def memset_d8(dest: _DevicePointer, data: int, count: int, stream: _StreamLike = None) -> None:
    """Sets count bytes to data."""
def memset_d16(dest: _DevicePointer, data: int, count: int, stream: _StreamLike = None) -> None:
    """Sets count 16-bit words to data."""
def memset_d32(dest: _DevicePointer, data: int, count: int, stream: _StreamLike = None) -> None:
    """Sets count 32-bit words to data."""
memset_d8_async = memset_d8
memset_d16_async = memset_d16
memset_d32_async = memset_d32

# host memory
def pagelocked_empty(shape: int | Sequence[int], dtype: DTypeLike, order: str = "C",
                     mem_flags: int = 0) -> NDArray[Any]:
    """A numpy array in page-locked host memory (C order; F by a transposed view)."""
def pagelocked_zeros(shape: int | Sequence[int], dtype: DTypeLike, order: str = "C",
                     mem_flags: int = 0) -> NDArray[Any]:
    """As pagelocked_empty, filled with zeros."""
def pagelocked_empty_like(array: NDArray[Any], mem_flags: int = 0) -> NDArray[Any]:
    """A page-locked array of the shape, dtype and order of ``array``."""
def pagelocked_zeros_like(array: NDArray[Any], mem_flags: int = 0) -> NDArray[Any]:
    """As pagelocked_empty_like, filled with zeros."""
def aligned_empty(shape: int | Sequence[int], dtype: DTypeLike, order: str = "C",
                  alignment: int = 4096) -> NDArray[Any]:
    """A numpy array whose data starts at a multiple of ``alignment`` bytes."""
def aligned_zeros(shape: int | Sequence[int], dtype: DTypeLike, order: str = "C",
                  alignment: int = 4096) -> NDArray[Any]:
    """As aligned_empty, filled with zeros."""
def aligned_empty_like(array: NDArray[Any], alignment: int = 4096) -> NDArray[Any]:
    """An aligned array of the shape, dtype and order of ``array``."""
def register_host_memory(ary: Any, flags: int = 0) -> NoReturn:
    """Refused: cudyn pins only memory it allocates."""

class PointerHolderBase:
    """Base of user classes that hold device memory: get_pointer() gives its address."""
    def get_pointer(self) -> int:
        """The device address (subclasses define it)."""
    def __int__(self) -> int: ...
    def __index__(self) -> int: ...
    @property
    def __cuda_array_interface__(self) -> dict[str, Any]: ...

# kernels and modules
class Function:
    """A kernel with PyCUDA's calls: f(*args, block=, grid=, stream=, shared=, time_kernel=), prepare()."""
    def __init__(self, function: cudyn.Function) -> None: ...
    @property
    def function(self) -> cudyn.Function:
        """The cudyn.Function underneath."""
    def __call__(self, *args: Any, **kwargs: Any) -> float | None: ...
    def prepare(self, arg_types: str | Sequence[DTypeLike], texrefs: None = None, block: None = None,
                shared: None = None) -> Self:
        """Fixes the argument types (a struct-module format such as "PiP" or a list of dtypes); returns self."""
    @property
    def prepared_call(self) -> Callable[..., None]:
        """prepared_call(grid, block, *args, shared_size=0): on the default stream."""
    def prepared_async_call(self, grid: _Dim, block: _Dim, stream: _StreamLike, *args: Any,
                            shared_size: int = 0) -> None:
        """cudyn.Function's prepared_async_call, the arguments noted as used on ``stream`` (the pools' rule)."""
    @property
    def prepared_timed_call(self) -> Callable[..., Callable[[], float]]:
        """prepared_timed_call(grid, block, *args, shared_size=0): a callable that waits and gives seconds."""
    def get_attribute(self, attribute: str) -> int:
        """A kernel attribute: function_attribute.NUM_REGS ..."""
    def set_cache_config(self, config: object) -> NoReturn:
        """Refused: cudyn leaves the cache preference to the driver."""
    def set_shared_config(self, config: object) -> NoReturn:
        """Refused: shared memory banks are 4 bytes wide on every GPU CUDA 12 and 13 run on."""
    def set_attribute(self, attribute: object, value: int) -> NoReturn:
        """Refused: cudyn raises a kernel's dynamic shared memory limit itself when a launch needs it."""
    def set_shared_size(self, nbytes: int) -> NoReturn:
        """Refused: dynamic shared memory is the call's shared=."""
    def __getattr__(self, name: str) -> Any:
        """The cudyn.Function's attributes (num_regs, shared_size_bytes, ...)."""

class Module:
    """A loaded module with PyCUDA's methods."""
    def __init__(self, module: cudyn.Module) -> None: ...
    @property
    def module(self) -> cudyn.Module:
        """The cudyn.Module underneath."""
    def get_function(self, name: str) -> Function:
        """The kernel ``name`` as a Function."""
    def get_global(self, name: str) -> tuple[int, int]:
        """(device address, size in bytes) of a __device__ or __constant__ variable."""
    def get_texref(self, name: str) -> NoReturn:
        """Refused: texture references were removed in CUDA 12."""
    def get_surfref(self, name: str) -> NoReturn:
        """Refused: surface references were removed in CUDA 12."""
    def __getattr__(self, name: str) -> Any:
        """The cudyn.Module's attributes (log, target, ptx, ...)."""

def module_from_file(filename: str) -> Module:
    """A module from a CUBIN, PTX, fatbin or cudyn-cc image file."""
_MessageHandler = Callable[[bool, str, str], object]
_JitOptions = Sequence[tuple[int, int]] | dict[int, int] | None

def module_from_buffer(buffer: bytes | bytearray | memoryview, options: _JitOptions = None,
                       message_handler: _MessageHandler | None = None) -> Module:
    """A module from CUBIN, PTX, fatbin or a cudyn-cc image in memory (with options: through the linker)."""

class Linker:
    """PyCUDA's linker over cudyn.Linker: nvJitLink, else the driver's."""
    def __init__(self, message_handler: _MessageHandler | None = None, options: _JitOptions = None,
                 log_verbose: bool = False) -> None: ...
    @property
    def linker(self) -> cudyn.Linker | None:
        """The cudyn.Linker underneath (None once linked)."""
    def add_data(self, data: bytes | bytearray | memoryview | str, input_type: int, name: str = "unknown") -> None:
        """Adds an input in memory (bytes-like; PTX text may be a str)."""
    def add_file(self, filename: str, input_type: int) -> None:
        """Adds a file's contents."""
    def add_source(self, source: str, options: Sequence[str] | None = None, name: str = "kernel.cu",
                   headers: dict[str, str] | None = None) -> None:
        """Compiles CUDA C++ as relocatable device code (cudyn.Linker.add_source) and adds it."""
    def link_module(self) -> Module:
        """Links and loads: a Module on the current device; the linker is done."""

# removed in CUDA 12, or nvcc's: each raises cudyn.pycuda.Unsupported saying why
def matrix_to_texref(*args: Any, **kwargs: Any) -> NoReturn:
    """Refused: texture references were removed in CUDA 12."""
def bind_array_to_texref(*args: Any, **kwargs: Any) -> NoReturn:
    """Refused: texture references were removed in CUDA 12."""
def TextureReference(*args: Any, **kwargs: Any) -> NoReturn:
    """Refused: texture references were removed in CUDA 12."""
def SurfaceReference(*args: Any, **kwargs: Any) -> NoReturn:
    """Refused: texture references were removed in CUDA 12."""
def matrix_to_array(*args: Any, **kwargs: Any) -> NoReturn:
    """Refused: cudyn's CUDA arrays are cudyn.Array."""
def np_to_array(*args: Any, **kwargs: Any) -> NoReturn:
    """Refused: cudyn's CUDA arrays are cudyn.Array."""
def gpuarray_to_array(*args: Any, **kwargs: Any) -> NoReturn:
    """Refused: cudyn's CUDA arrays are cudyn.Array."""
def make_multichannel_2d_array(*args: Any, **kwargs: Any) -> NoReturn:
    """Refused: cudyn's CUDA arrays are cudyn.Array."""
def Array(*args: Any, **kwargs: Any) -> NoReturn:
    """Refused: cudyn's CUDA arrays are cudyn.Array."""
def ArrayDescriptor(*args: Any, **kwargs: Any) -> NoReturn:
    """Refused: cudyn's CUDA arrays are cudyn.Array."""
def ArrayDescriptor3D(*args: Any, **kwargs: Any) -> NoReturn:
    """Refused: cudyn's CUDA arrays are cudyn.Array."""
def Memcpy2D(*args: Any, **kwargs: Any) -> NoReturn:
    """Refused: cudyn's CUDA arrays are cudyn.Array."""
def Memcpy3D(*args: Any, **kwargs: Any) -> NoReturn:
    """Refused: cudyn's CUDA arrays are cudyn.Array."""
def dtype_to_array_format(dtype: DTypeLike) -> NoReturn:
    """Refused: cudyn.Array takes the numpy dtype."""
def set_debugging(flag: bool = True) -> NoReturn:
    """Refused: pass -G in SourceModule's options."""
