"""pycuda.driver over cudyn: devices, contexts, memory, streams, events,
kernels (Function, with PyCUDA's prepared calls) and the In/Out/InOut
argument handlers.

Contexts are the devices' primary contexts (the ones the CUDA runtime,
PyTorch and CuPy use), so memory and streams are shared with them:
``Device(n).make_context()`` pushes device n's primary context on this
thread's context stack instead of creating a new context; ``pop``,
``push``, ``detach`` and ``Context.get_current`` work on that stack, and
the device of its top context is the one cudyn works on.  Popping the last
one leaves the thread on that device (cudyn never runs without a context),
and memory is not freed when a context is detached, only when its objects
go.  Texture and surface references (removed in CUDA 12) and nvcc-only
features raise :class:`cudyn.pycuda.Unsupported` naming the replacement.
"""

import enum
import threading

import numpy as np

import cudyn
from cudyn import _result
from cudyn._memory import in_memory_order

from . import Unsupported

# ------------------------------------------------------------ errors, names kept from cudyn

Error = cudyn.Error
MemoryError = cudyn.OutOfMemory  # noqa: A001 (PyCUDA's name)
LaunchError = cudyn.LaunchError
CompileError = cudyn.CompileError


class LogicError(Error):
    """PyCUDA's error for a call that cannot be right (no context to pop ...)."""


class RuntimeError(Error):  # noqa: A001 (PyCUDA's name)
    """PyCUDA's error for a failure of the moment."""


In, Out, InOut = cudyn.In, cudyn.Out, cudyn.InOut
DeviceAllocation = cudyn.DeviceMemory
Event = cudyn.Event
mem_alloc = cudyn.mem_alloc
mem_alloc_like = cudyn.mem_alloc_like
mem_get_info = cudyn.mem_get_info
to_device = cudyn.to_device
from_device = cudyn.from_device
from_device_like = cudyn.from_device_like


def init(flags=0):
    """Loads and initialises the driver (every call does that on first use anyway)."""
    if flags:
        raise LogicError("cudyn.pycuda.driver.init: cuInit's flags must be 0")
    cudyn.init()


def get_driver_version():
    """The driver's CUDA version as an int (12080 for 12.8)."""
    return int(cudyn.loader_info()["driver_version"])


def get_version():
    """The CUDA version PyCUDA reports as (major, minor, 0): the driver's, since
    cudyn is built against none."""
    v = get_driver_version()
    return (v // 1000, v % 1000 // 10, 0)


# ------------------------------------------------------------ enums PyCUDA code names

class _Named(str):
    """An enum member by name (device_attribute.MAX_THREADS_PER_BLOCK)."""

    __slots__ = ()

    def __repr__(self):
        return f"device_attribute.{self}"


class _Names(type):
    def __getattr__(cls, name):
        if name.startswith("_") or not name.isupper():
            raise AttributeError(name)
        return _Named(name)


class device_attribute(metaclass=_Names):  # noqa: N801 (PyCUDA's names)
    """Device attributes by PyCUDA's names: device_attribute.MAX_THREADS_PER_BLOCK ..."""


class compute_mode:  # noqa: N801
    """CUcomputemode values (Device.compute_mode gives one)."""
    DEFAULT, EXCLUSIVE, PROHIBITED, EXCLUSIVE_PROCESS = 0, 1, 2, 3


class ctx_flags:  # noqa: N801
    """CUctx_flags values (make_context accepts 0 and MAP_HOST only)."""
    SCHED_AUTO, SCHED_SPIN, SCHED_YIELD, SCHED_BLOCKING_SYNC, MAP_HOST, LMEM_RESIZE_TO_MAX = 0, 1, 2, 4, 8, 16


class event_flags:  # noqa: N801
    """Event(flags)'s values: cudyn's own (INTERPROCESS, which cudyn's
    events do not offer, keeps CUDA's value and is refused by Event)."""
    DEFAULT = 0
    BLOCKING_SYNC = cudyn.EVENT_BLOCKING_SYNC
    DISABLE_TIMING = cudyn.EVENT_DISABLE_TIMING
    INTERPROCESS = 4


class host_alloc_flags:  # noqa: N801
    """cuMemHostAlloc's flags (pinned memory is always portable and mapped with unified addressing)."""
    PORTABLE, DEVICEMAP, WRITECOMBINED = 1, 2, 4


class mem_host_register_flags:  # noqa: N801
    """cuMemHostRegister's flags (register_host_memory's, which is refused)."""
    PORTABLE, DEVICEMAP, IOMEMORY, READ_ONLY = 1, 2, 4, 8


class mem_attach_flags:  # noqa: N801
    """cuMemAllocManaged's flags."""
    GLOBAL, HOST, SINGLE = 1, 2, 4


class function_attribute:  # noqa: N801
    """Function.get_attribute's names for the kernel's attributes."""
    MAX_THREADS_PER_BLOCK = "max_threads_per_block"
    SHARED_SIZE_BYTES = "shared_size_bytes"
    CONST_SIZE_BYTES = "const_size_bytes"
    LOCAL_SIZE_BYTES = "local_size_bytes"
    NUM_REGS = "num_regs"
    PTX_VERSION = "ptx_version"
    BINARY_VERSION = "binary_version"


# CUDA's enums PyCUDA names, with CUDA's values (cuda.h), for the calls
# below that take them: what cudyn does not set is refused there, naming why.

class func_cache(enum.IntEnum):  # noqa: N801
    """CUfunc_cache: Context.set_cache_config's and Function.set_cache_config's values (refused)."""
    PREFER_NONE, PREFER_SHARED, PREFER_L1, PREFER_EQUAL = 0, 1, 2, 3


class shared_config(enum.IntEnum):  # noqa: N801
    """CUsharedconfig: Context.set_shared_config's values (refused)."""
    DEFAULT_BANK_SIZE, FOUR_BYTE_BANK_SIZE, EIGHT_BYTE_BANK_SIZE = 0, 1, 2


class limit(enum.IntEnum):  # noqa: N801
    """CUlimit: Context.get_limit's and set_limit's names (refused)."""
    STACK_SIZE, PRINTF_FIFO_SIZE, MALLOC_HEAP_SIZE, DEV_RUNTIME_SYNC_DEPTH = 0, 1, 2, 3
    DEV_RUNTIME_PENDING_LAUNCH_COUNT, MAX_L2_FETCH_GRANULARITY, PERSISTING_L2_CACHE_SIZE = 4, 5, 6


class jit_option(enum.IntEnum):  # noqa: N801
    """CUjit_option: the (option, value) pairs of Linker, DynamicModule's
    link_options and module_from_buffer's options; those the linker takes
    (MAX_REGISTERS, OPTIMIZATION_LEVEL, GENERATE_DEBUG_INFO, LOG_VERBOSE,
    GENERATE_LINE_INFO) become its options, the others are refused."""
    MAX_REGISTERS, THREADS_PER_BLOCK, WALL_TIME, INFO_LOG_BUFFER, INFO_LOG_BUFFER_SIZE_BYTES = 0, 1, 2, 3, 4
    ERROR_LOG_BUFFER, ERROR_LOG_BUFFER_SIZE_BYTES, OPTIMIZATION_LEVEL, TARGET_FROM_CUCONTEXT, TARGET = 5, 6, 7, 8, 9
    FALLBACK_STRATEGY, GENERATE_DEBUG_INFO, LOG_VERBOSE, GENERATE_LINE_INFO, CACHE_MODE = 10, 11, 12, 13, 14


jit_target = enum.IntEnum("jit_target", [(f"COMPUTE_{cc}", cc) for cc in (
    50, 52, 53, 60, 61, 62, 70, 72, 75, 80, 86, 87, 88, 89, 90, 100, 101, 103, 110, 120, 121)])
jit_target.__doc__ = "CUjit_target: COMPUTE_50 = 50 ... (jit_option.TARGET's; refused: cudyn links for the device)"


class jit_fallback(enum.IntEnum):  # noqa: N801
    """CUjit_fallback: jit_option.FALLBACK_STRATEGY's values."""
    PREFER_PTX, PREFER_BINARY = 0, 1


class jit_input_type(enum.IntEnum):  # noqa: N801
    """What a Linker input is: cudyn's numbers (cudyn.LINK_*), under PyCUDA's
    names (NVVM is LTO-IR, which nvJitLink links)."""
    CUBIN = cudyn.LINK_CUBIN
    PTX = cudyn.LINK_PTX
    FATBINARY = cudyn.LINK_FATBIN
    OBJECT = cudyn.LINK_OBJECT
    LIBRARY = cudyn.LINK_LIBRARY
    NVVM = cudyn.LINK_LTOIR


# ------------------------------------------------------------ devices

class Device:
    """A GPU by ordinal (or PCI bus id), with PyCUDA's methods."""

    def __init__(self, number):
        if isinstance(number, str):
            matches = [d for d in range(cudyn.device_count())
                       if cudyn.device_info(d)["pci_bus_id"].lower().endswith(number.lower())]
            if not matches:
                raise LogicError(f"cudyn.pycuda.driver.Device: no device at PCI bus id {number!r}")
            number = matches[0]
        self._device = cudyn.Device(int(number))

    @staticmethod
    def count():
        """The number of devices."""
        return cudyn.device_count()

    @property
    def ordinal(self):
        """The device's ordinal (int(device) too)."""
        return self._device.ordinal

    def name(self):
        """The device's name ("NVIDIA H200")."""
        return self._device.name

    def pci_bus_id(self):
        """The PCI bus id ("0000:17:00.0")."""
        return self._device.pci_bus_id

    def compute_capability(self):
        """(major, minor)."""
        return tuple(self._device.compute_capability)

    def total_memory(self):
        """The device's memory in bytes."""
        return int(self._device.total_memory)

    def get_attribute(self, attribute):
        """One attribute: device_attribute.MAX_THREADS_PER_BLOCK ... (or its name)."""
        return cudyn.device_attribute(self.ordinal, str(attribute).lower())

    def get_attributes(self):
        """Every attribute the driver reports, as {device_attribute.NAME: value}."""
        return {_Named(name.upper()): value for name, value in cudyn.device_attributes(self.ordinal).items()}

    def __getattr__(self, name):
        # dev.max_threads_per_block, dev.compute_mode ... as PyCUDA gives them
        if name.startswith("_"):
            raise AttributeError(name)
        try:
            return cudyn.device_attribute(self.ordinal, name.lower())
        except (cudyn.Error, ValueError, TypeError):
            raise AttributeError(f"Device has no attribute {name!r}") from None

    def can_access_peer(self, device):
        """Whether kernels on this device can reach ``device``'s memory directly."""
        return bool(cudyn.can_access_peer(self.ordinal, Device._ordinal_of(device)))

    @staticmethod
    def _ordinal_of(device):
        return device.ordinal if isinstance(device, Device) else int(device)

    def make_context(self, flags=0):
        """Pushes this device's primary context on the thread's stack and
        returns it (PyCUDA makes a new context; cudyn shares the primary one,
        whose scheduling flags are the driver's: only MAP_HOST, always in
        effect with unified addressing, is accepted)."""
        if flags & ~ctx_flags.MAP_HOST:
            raise Unsupported("make_context(flags): cudyn shares the device's primary context, whose scheduling"
                              " flags are the driver's default; call it without flags")
        context = Context(self.ordinal)
        context.push()
        return context

    def retain_primary_context(self):
        """This device's primary context, not pushed (push() makes it current)."""
        return Context(self.ordinal)

    def __eq__(self, other):
        return isinstance(other, Device) and other.ordinal == self.ordinal

    def __hash__(self):
        return hash(("cudyn.pycuda.Device", self.ordinal))

    def __int__(self):
        return self.ordinal

    def __repr__(self):
        return f"<cudyn.pycuda.driver.Device {self.ordinal}>"


# ------------------------------------------------------------ contexts

_DEFAULT_LIMITS = "the driver's defaults apply (a kernel gets the stack its code needs, but for recursion)"
_stack = threading.local()  # .contexts: this thread's context stack, top last


def _contexts():
    contexts = getattr(_stack, "contexts", None)
    if contexts is None:
        contexts = _stack.contexts = []
    return contexts


class Context:
    """A device's primary context as an entry of the thread's context stack."""

    def __init__(self, ordinal):
        self._ordinal = ordinal
        self._attached = 1

    def _live(self, what):
        if self._attached <= 0:
            raise LogicError(f"cudyn.pycuda.driver.Context.{what}: the context was detached")

    def push(self):
        """Makes it the thread's current context (its device cudyn's device on this thread)."""
        self._live("push")
        cudyn.device_use(self._ordinal)
        _contexts().append(self)

    @staticmethod
    def pop():
        """Removes the thread's current context; the one below (if any) becomes current."""
        contexts = _contexts()
        if not contexts:
            raise LogicError("cudyn.pycuda.driver.Context.pop: this thread has no context to pop")
        contexts.pop()
        if contexts:
            cudyn.device_use(contexts[-1]._ordinal)

    def detach(self):
        """Drops this reference; the last one takes it off the thread's
        context stack, wherever it stands there (the context below the top
        becomes current when it was the top).  cudyn keeps the primary
        context (and the memory in it) alive."""
        self._live("detach")
        self._attached -= 1
        if self._attached:
            return
        contexts = _contexts()
        top = contexts[-1] if contexts else None
        contexts[:] = [c for c in contexts if c is not self]
        if contexts and top is self:
            cudyn.device_use(contexts[-1]._ordinal)

    def attach(self, flags=0):
        """One more reference (detach drops one)."""
        self._live("attach")
        self._attached += 1
        return self

    @staticmethod
    def get_current():
        """The thread's current context from this stack, or None (never a
        detached one: another thread may have detached a context this
        thread's stack holds)."""
        contexts = _contexts()
        while contexts and contexts[-1]._attached <= 0:
            contexts.pop()
        return contexts[-1] if contexts else None

    @staticmethod
    def get_device():
        """The device of the thread's current context (cudyn's device for the thread)."""
        contexts = _contexts()
        return Device(contexts[-1]._ordinal if contexts else cudyn.device_current())

    @staticmethod
    def synchronize():
        """Waits for all work of the thread's device."""
        cudyn.synchronize()

    @staticmethod
    def get_api_version():
        """The driver's CUDA version as an int."""
        return get_driver_version()

    def __eq__(self, other):
        return isinstance(other, Context) and other._ordinal == self._ordinal

    def __hash__(self):
        return hash(("cudyn.pycuda.Context", self._ordinal))

    def __repr__(self):
        return f"<cudyn.pycuda.driver.Context: primary context of device {self._ordinal}>"

    @staticmethod
    def _unsupported(what, instead):
        raise Unsupported(f"Context.{what}: cudyn shares the device's primary context with the other libraries"
                          f" of the process and neither reads nor changes its settings; {instead}")

    @staticmethod
    def set_cache_config(config):
        """Refused: the primary context's settings are its maker's."""
        Context._unsupported("set_cache_config", "the driver's default cache preference applies")

    @staticmethod
    def get_cache_config():
        """Refused: the primary context's settings are its maker's."""
        Context._unsupported("get_cache_config", "the driver's default cache preference applies")

    @staticmethod
    def set_shared_config(config):
        """Refused: the primary context's settings are its maker's."""
        Context._unsupported("set_shared_config", "shared memory banks are 4 bytes wide on every GPU CUDA 12 and 13"
                             " run on")

    @staticmethod
    def get_shared_config():
        """Refused: the primary context's settings are its maker's."""
        Context._unsupported("get_shared_config", "shared memory banks are 4 bytes wide on every GPU CUDA 12 and 13"
                             " run on")

    @staticmethod
    def set_limit(limit, value):
        """Refused: the primary context's limits are its maker's."""
        Context._unsupported("set_limit", _DEFAULT_LIMITS)

    @staticmethod
    def get_limit(limit):
        """Refused: the primary context's limits are its maker's."""
        Context._unsupported("get_limit", _DEFAULT_LIMITS)


# ------------------------------------------------------------ streams

class Stream(cudyn.Stream):
    """A stream, with PyCUDA's method names (is_done, wait_for_event)."""

    __slots__ = ()

    def is_done(self):
        """Whether all work submitted to the stream has finished."""
        return bool(self.query())

    def wait_for_event(self, event):
        """Later work on this stream waits for the event."""
        self.wait_event(event)


# ------------------------------------------------------------ copies and memset

def memcpy_htod(dest, src, stream=None):
    """Copies a host buffer (C or Fortran order) to device memory (dest:
    DeviceAllocation, address or device array)."""
    cudyn.memcpy_htod(dest, in_memory_order(src), stream=stream)


def memcpy_dtoh(dest, src, stream=None):
    """Copies device memory into a writable host buffer (C or Fortran order)."""
    cudyn.memcpy_dtoh(in_memory_order(dest), src, stream=stream)


def memcpy_dtod(dest, src, size, stream=None):
    """Copies size bytes between device memory."""
    cudyn.memcpy_dtod(dest, src, size, stream=stream)


# the default stream as a handle: an asynchronous copy on it (cudyn's
# copies without a stream are synchronous ones)
_DEFAULT = 0


def memcpy_htod_async(dest, src, stream=None):
    """As memcpy_htod, asynchronous on ``stream`` (the default stream if None; pinned host memory overlaps)."""
    _result.mark_used(stream, (dest,))
    cudyn.memcpy_htod(dest, in_memory_order(src), stream=stream if stream is not None else _DEFAULT)


def memcpy_dtoh_async(dest, src, stream=None):
    """As memcpy_dtoh, asynchronous on ``stream`` (the default stream if None)."""
    _result.mark_used(stream, (src,))
    cudyn.memcpy_dtoh(in_memory_order(dest), src, stream=stream if stream is not None else _DEFAULT)


def memcpy_dtod_async(dest, src, size, stream=None):
    """As memcpy_dtod, asynchronous on ``stream`` (the default stream if None)."""
    _result.mark_used(stream, (dest, src))
    cudyn.memcpy_dtod(dest, src, size, stream=stream if stream is not None else _DEFAULT)


def memset_d8(dest, data, count, stream=None):
    """Sets count bytes to data."""
    cudyn.memset_d8(dest, data, count, stream=stream)


def memset_d16(dest, data, count, stream=None):
    """Sets count 16-bit words to data."""
    cudyn.memset_d16(dest, data, count, stream=stream)


def memset_d32(dest, data, count, stream=None):
    """Sets count 32-bit words to data."""
    cudyn.memset_d32(dest, data, count, stream=stream)


memset_d8_async, memset_d16_async, memset_d32_async = memset_d8, memset_d16, memset_d32


# ------------------------------------------------------------ host memory

def pagelocked_empty(shape, dtype, order="C", mem_flags=0):
    """A numpy array in page-locked host memory (C order; F by a transposed view)."""
    shape = (shape,) if isinstance(shape, (int, np.integer)) else tuple(shape)
    if order == "F":
        return cudyn.pagelocked_empty(shape[::-1], dtype).T
    return cudyn.pagelocked_empty(shape, dtype)


def pagelocked_zeros(shape, dtype, order="C", mem_flags=0):
    """As pagelocked_empty, filled with zeros."""
    array = pagelocked_empty(shape, dtype, order, mem_flags)
    array.fill(0)
    return array


def _order_of(array):
    return "F" if array.flags.f_contiguous and not array.flags.c_contiguous else "C"


def pagelocked_empty_like(array, mem_flags=0):
    """A page-locked array of the shape, dtype and order of ``array``."""
    return pagelocked_empty(array.shape, array.dtype, _order_of(array), mem_flags)


def pagelocked_zeros_like(array, mem_flags=0):
    """As pagelocked_empty_like, filled with zeros."""
    return pagelocked_zeros(array.shape, array.dtype, _order_of(array), mem_flags)


def aligned_empty(shape, dtype, order="C", alignment=4096):
    """A numpy array whose data starts at a multiple of ``alignment`` bytes."""
    dtype = np.dtype(dtype)
    count = int(np.prod(shape)) if not isinstance(shape, (int, np.integer)) else int(shape)
    raw = np.empty(count * dtype.itemsize + alignment, np.uint8)
    start = -raw.ctypes.data % alignment
    return raw[start:start + count * dtype.itemsize].view(dtype).reshape(shape, order=order)


def aligned_zeros(shape, dtype, order="C", alignment=4096):
    """As aligned_empty, filled with zeros."""
    array = aligned_empty(shape, dtype, order, alignment)
    array.fill(0)
    return array


def aligned_empty_like(array, alignment=4096):
    """An aligned array of the shape, dtype and order of ``array``."""
    return aligned_empty(array.shape, array.dtype, _order_of(array), alignment)


def register_host_memory(ary, flags=0):
    """Refused: cudyn pins only memory it allocates."""
    raise Unsupported("register_host_memory: cudyn does not page-lock memory it did not allocate; allocate it"
                      " page-locked with pagelocked_empty")


# ------------------------------------------------------------ pointers held by user objects

class PointerHolderBase:
    """Base of user classes that hold device memory: get_pointer() gives its
    address; instances are accepted wherever device memory is."""

    def get_pointer(self):
        """The device address (subclasses define it)."""
        raise NotImplementedError("PointerHolderBase subclasses define get_pointer()")

    def __int__(self):
        return int(self.get_pointer())

    __index__ = __int__

    @property
    def __cuda_array_interface__(self):
        return {"shape": (1,), "typestr": "|u1", "data": (int(self.get_pointer()), False), "version": 3,
                "strides": None}


# ------------------------------------------------------------ kernels

def _argument(value):
    """A kernel argument as cudyn's launch takes it: a 0-d numpy array (PyCUDA's
    vec.make_float3 makes one) is passed as its scalar."""
    if type(value) is np.ndarray and value.ndim == 0:
        return value[()]
    return value


class Function:
    """A kernel with PyCUDA's calls: f(*args, block=, grid=, stream=,
    shared=, time_kernel=), and prepare(...) then prepared_call(grid,
    block, *args), prepared_async_call(grid, block, stream, *args) and
    prepared_timed_call(grid, block, *args): cudyn's Function does them
    all; this adds PyCUDA's vector values and refusals."""

    __slots__ = ("_function",)

    def __init__(self, function):
        self._function = function

    @property
    def function(self):
        """The cudyn.Function underneath."""
        return self._function

    def __call__(self, *args, **kwargs):
        """Launches; with time_kernel=True, returns the kernel's time in seconds."""
        stream = kwargs.get("stream")
        if stream is not None:  # the pools' rule: memory used on a stream is reused only after that work
            _result.mark_used(stream, args)
        return self._function(*[_argument(a) for a in args], **kwargs)

    def prepare(self, arg_types, texrefs=None, block=None, shared=None):
        """Fixes the argument types (a struct-module format such as "PiP" or a
        list of dtypes) on the Function; returns self, as PyCUDA does."""
        if block is not None or shared is not None:
            raise TypeError("prepare(): block= and shared= belong to prepared_call (PyCUDA's current API)")
        self._function.prepare(arg_types, texrefs)
        return self

    @property
    def prepared_call(self):
        """prepared_call(grid, block, *args, shared_size=0): cudyn.Function's."""
        return self._function.prepared_call

    def prepared_async_call(self, grid, block, stream, *args, shared_size=0):
        """cudyn.Function's prepared_async_call, the arguments noted as used
        on ``stream`` (the pools' rule)."""
        if stream is not None:
            _result.mark_used(stream, args)
        return self._function.prepared_async_call(grid, block, stream, *args, shared_size=shared_size)

    @property
    def prepared_timed_call(self):
        """prepared_timed_call(grid, block, *args, shared_size=0) -> a callable giving seconds: cudyn.Function's."""
        return self._function.prepared_timed_call

    def get_attribute(self, attribute):
        """A kernel attribute: function_attribute.NUM_REGS ..."""
        return getattr(self._function, str(attribute))

    def set_cache_config(self, config):
        """Refused: cudyn leaves the cache preference to the driver."""
        raise Unsupported("Function.set_cache_config: cudyn does not set cache preferences; the driver's default"
                          " applies")

    def set_shared_config(self, config):
        """Refused: shared memory banks are 4 bytes wide on every GPU CUDA 12 and 13 run on."""
        raise Unsupported("Function.set_shared_config: shared memory banks are 4 bytes wide on every GPU CUDA 12 and"
                          " 13 run on")

    def set_attribute(self, attribute, value):
        """Refused: cudyn raises a kernel's dynamic shared memory limit itself when a launch needs it."""
        raise Unsupported(f"Function.set_attribute({attribute!r}): cudyn raises a kernel's dynamic shared memory"
                          " limit itself when a launch's shared= needs more than 48 KiB")

    def set_shared_size(self, nbytes):
        """Refused: dynamic shared memory is the call's shared=."""
        raise Unsupported("Function.set_shared_size: pass shared= (dynamic shared memory) to the call instead")

    def __getattr__(self, name):
        # num_regs, shared_size_bytes, local_size_bytes, max_threads_per_block
        # ...; never a private name, which copy.copy looks for on an empty
        # instance (its _function unset: asking for it would recurse)
        if name.startswith("_"):
            raise AttributeError(name)
        return getattr(self._function, name)

    def __repr__(self):
        return f"<cudyn.pycuda.driver.Function {self._function.name}>"


class Module:
    """A loaded module with PyCUDA's methods."""

    def __init__(self, module):
        self._module = module

    @property
    def module(self):
        """The cudyn.Module underneath."""
        return self._module

    def get_function(self, name):
        """The kernel ``name`` as a Function."""
        return Function(self.module.get_function(name))

    def get_global(self, name):
        """(device address, size in bytes) of a __device__ or __constant__ variable."""
        return self.module.get_global(name)

    def get_texref(self, name):
        """Refused: texture references were removed in CUDA 12."""
        raise Unsupported(f"get_texref({name!r}): texture references were removed in CUDA 12; use texture objects"
                          " (cudyn.Array and cudyn.Texture, passed as kernel arguments)")

    def get_surfref(self, name):
        """Refused: surface references were removed in CUDA 12."""
        raise Unsupported(f"get_surfref({name!r}): surface references were removed in CUDA 12; use surface"
                          " objects (cudyn.Array with surface access)")

    def __getattr__(self, name):
        if name.startswith("_"):  # as Function's: copy.copy asks an empty instance
            raise AttributeError(name)
        return getattr(self._module, name)


def module_from_file(filename):
    """A module from a CUBIN, PTX, fatbin or cudyn-cc image file."""
    return Module(cudyn.module_from_file(filename))


def module_from_buffer(buffer, options=None, message_handler=None):
    """A module from CUBIN, PTX, fatbin or a cudyn-cc image in memory.  With
    JIT options ((jit_option, value) pairs) or a message_handler, the image
    (CUBIN, PTX or fatbin) goes through cudyn's linker, which takes the
    options Linker takes and gives the handler its log."""
    if not options and message_handler is None:
        return Module(cudyn.module_from_buffer(buffer))
    linker = Linker(message_handler, options)
    linker.add_data(buffer, cudyn.LINK_AUTO, "module_from_buffer")
    return linker.link_module()


# ------------------------------------------------------------ linking (DynamicModule's)

def _link_option(option, value):
    """cudyn's linker option for a (jit_option, value) pair, or Unsupported."""
    try:
        option = jit_option(option)
    except ValueError:
        raise Unsupported(f"jit option {option!r}: not one of CUDA's jit_option values") from None
    if option == jit_option.MAX_REGISTERS:
        return f"-maxrregcount={int(value)}"
    if option == jit_option.OPTIMIZATION_LEVEL:
        return f"-O{int(value)}"
    taken = {jit_option.GENERATE_DEBUG_INFO: "-g", jit_option.GENERATE_LINE_INFO: "-lineinfo",
             jit_option.LOG_VERBOSE: "-verbose"}
    if option in taken:
        return taken[option] if value else None
    raise Unsupported(f"jit_option.{option.name}: cudyn's linker (nvJitLink or the driver's) takes MAX_REGISTERS,"
                      " OPTIMIZATION_LEVEL, GENERATE_DEBUG_INFO, GENERATE_LINE_INFO and LOG_VERBOSE; it links for"
                      " the current device and keeps its own log (Linker's message_handler gets it)")


def _link_options(options, log_verbose=False):
    """cudyn's linker options for PyCUDA's: (jit_option, value) pairs, or a dict of them."""
    pairs = list(options.items()) if isinstance(options, dict) else list(options or ())
    texts = [_link_option(*pair) for pair in pairs] + (["-verbose"] if log_verbose else [])
    return [t for i, t in enumerate(texts) if t is not None and t not in texts[:i]]


class Linker:
    """PyCUDA's linker, Linker(message_handler=None, options=None,
    log_verbose=False), over cudyn.Linker: nvJitLink, else the driver's.
    ``options`` are (jit_option, value) pairs; ``message_handler(success,
    info_log, error_log)`` is called once the link is done or has failed.
    Inputs are kinds of jit_input_type (or cudyn.LINK_*)."""

    def __init__(self, message_handler=None, options=None, log_verbose=False):
        self._handler = message_handler
        self._linker = cudyn.Linker(_link_options(options, log_verbose))

    @property
    def linker(self):
        """The cudyn.Linker underneath (None once linked)."""
        return self._linker

    def _live(self, what):
        if self._linker is None:
            raise LogicError(f"cudyn.pycuda.driver.Linker.{what}: it has linked already")
        return self._linker

    def _run(self, what, call):
        """call(the cudyn.Linker); a failure goes to the message handler too."""
        linker = self._live(what)
        try:
            return call(linker)
        except cudyn.Error as e:
            if self._handler is not None:
                self._handler(False, "", getattr(e, "log", None) or str(e))
            raise

    def add_data(self, data, input_type, name="unknown"):
        """Adds an input in memory (bytes-like; PTX text may be a str)."""
        data = data.encode() if isinstance(data, str) else data
        self._run("add_data", lambda linker: linker.add_data(data, int(input_type), name))

    def add_file(self, filename, input_type):
        """Adds a file's contents."""
        self._run("add_file", lambda linker: linker.add_file(filename, int(input_type)))

    def add_source(self, source, options=None, name="kernel.cu", headers=None):
        """Compiles CUDA C++ as relocatable device code (cudyn.Linker.add_source;
        headers: {name: text}, found in memory) and adds it."""
        self._run("add_source", lambda linker: linker.add_source(source, options, name, headers))

    def link_module(self):
        """Links and loads: a Module on the current device; the linker is done."""
        linker = self._linker
        try:
            module = Module(self._run("link_module", lambda linker: cudyn.module_from_buffer(linker.complete())))
        finally:
            self._linker = None
        if self._handler is not None:
            self._handler(True, linker.log, "")
        linker.close()
        return module


# ------------------------------------------------------------ removed in CUDA 12, or nvcc's

def _refused(name, why, short):
    """A stand-in for a PyCUDA name that raises Unsupported saying why."""
    def refused(*args, **kwargs):
        raise Unsupported(f"{name}: {why}")
    refused.__name__ = name
    refused.__doc__ = f"Refused: {short}."
    return refused


def _texture_reference(name):
    return _refused(name, "texture references were removed in CUDA 12; use texture objects (cudyn.Array,"
                    " cudyn.Texture) passed as kernel arguments", "texture references were removed in CUDA 12")


def _array_copy(name):
    return _refused(name, "cudyn's CUDA arrays are cudyn.Array (copy_from, copy_to) with cudyn.Texture; PyCUDA's"
                    " descriptor-based arrays and 2D/3D copies are not provided", "cudyn's CUDA arrays are cudyn.Array")


matrix_to_texref = _texture_reference("matrix_to_texref")
bind_array_to_texref = _texture_reference("bind_array_to_texref")
TextureReference = _texture_reference("TextureReference")
SurfaceReference = _texture_reference("SurfaceReference")
matrix_to_array = _array_copy("matrix_to_array")
np_to_array = _array_copy("np_to_array")
gpuarray_to_array = _array_copy("gpuarray_to_array")
make_multichannel_2d_array = _array_copy("make_multichannel_2d_array")
Array = _array_copy("Array")
ArrayDescriptor = _array_copy("ArrayDescriptor")
ArrayDescriptor3D = _array_copy("ArrayDescriptor3D")
Memcpy2D = _array_copy("Memcpy2D")
Memcpy3D = _array_copy("Memcpy3D")


def dtype_to_array_format(dtype):
    """Refused: cudyn.Array takes the numpy dtype."""
    raise Unsupported("dtype_to_array_format: cudyn.Array takes the numpy dtype itself")


def set_debugging(flag=True):
    """Refused: pass -G in SourceModule's options."""
    raise Unsupported("set_debugging: compile with NVRTC's -G in SourceModule's options")
