"""pycuda.tools over cudyn: the test helpers (mark_cuda_test,
init_cuda_context_fixture, make_default_context), the memory pool, and the
dtype table kernels are written from (dtype_to_ctype, register_dtype)."""

import functools
import gc
import operator
import os
import threading

import numpy as np

import cudyn
from cudyn import _codegen, _dtypes, _pool, _ranks

from . import Unsupported
from . import driver as cuda

__all__ = ["bitlog2", "DeviceMemoryPool", "PooledDeviceAllocation", "PageLockedMemoryPool", "dtype_to_ctype",
           "register_dtype", "get_or_register_dtype", "mark_cuda_test", "init_cuda_context_fixture",
           "make_default_context", "get_default_device", "clear_context_caches", "context_dependent_memoize",
           "DeviceData", "OccupancyRecord", "VectorArg", "ScalarArg", "parse_c_arg", "get_arg_type"]


def bitlog2(n):
    """floor(log2(n)) for n >= 1 (the position of the highest set bit)."""
    n = int(n)
    if n <= 0:
        raise ValueError(f"bitlog2({n}): needs a positive number")
    return n.bit_length() - 1


# ------------------------------------------------------------ memory pool

# Block sizes: 1 to 4 bytes, then (4 + m) << k for m = 0 ... 3, k >= 0
# (5, 6, 7, 8, 10, 12, 14, 16, 20 ...): four sizes per power of two, so a
# block wastes at most a quarter; bin 3 (4 bytes) is where both rules meet.
_SMALL = 4


def _size(size, what):
    """A pool size: an integer (not a float, not a string) of 0 or more."""
    if isinstance(size, bool) or not hasattr(type(size), "__index__"):
        raise TypeError(f"{what}: the size is an integer number of bytes, not {type(size).__name__}")
    size = operator.index(size)
    if size < 0:
        raise cudyn.InvalidArgument(f"{what}: the size {size} is negative (it is 0 or more bytes)")
    return size


class PooledDeviceAllocation:
    """A block of a DeviceMemoryPool: device memory wherever device memory is
    taken (int() is its address).  free() gives it up; the block goes back
    to the pool when nothing can use it any more: once freed and no longer
    held (an array made over it holds it; the pool's rule, python/README.md)."""

    def __init__(self, pool, memory, size, bin_number):
        self.pool, self._memory, self.size, self._bin = pool, memory, size, bin_number
        self._freed = False

    @property
    def ptr(self):
        """The device address."""
        if self._freed:
            raise cudyn.InvalidArgument("PooledDeviceAllocation: the block was freed")
        return self._memory.ptr

    def __int__(self):
        return self.ptr

    __index__ = __int__

    @property
    def __cuda_array_interface__(self):
        return {"shape": (self.size,), "typestr": "|u1", "data": (self.ptr, False), "version": 3, "strides": None}

    def free(self):
        """Gives the block up (its address is no longer this object's to use):
        it returns to the pool when this object goes, and so when every
        array made over it has gone."""
        self._freed = True

    def __del__(self):
        memory, self._memory = self._memory, None
        if memory is not None:
            try:
                self.pool._release(self._bin, memory)
            except Exception:  # at interpreter exit the pool may be gone
                pass


class DeviceMemoryPool:
    """Keeps freed device memory in bins of similar sizes and hands it out
    again, as PyCUDA's pool: allocate(size) gives a PooledDeviceAllocation.
    The pool cannot see which streams used a block, so it hands out a block
    that came back since it last waited for the device only when one
    stream ordered all the work (cudyn._pool.one_stream_orders_all: no
    stream given to an operation or a kernel of this layer, the legacy
    default stream); otherwise it waits for the device's work first
    (cudyn.synchronize), once for all the blocks that came back."""

    def __init__(self, allocator=None):
        self._allocator = allocator or cudyn.DeviceMemory
        self._held = {}   # (device, bin) -> [DeviceMemory] back before the pool last waited, never an empty list
        self._fresh = {}  # the same, back since
        self._lock = threading.Lock()
        self._holding = True
        self.active_blocks = 0

    @staticmethod
    def bin_number(size):
        """The bin of the smallest block size that holds ``size`` bytes."""
        size = _size(size, "DeviceMemoryPool.bin_number")
        if size <= _SMALL:
            return max(size, 1) - 1
        k = bitlog2(size) - 2
        m = (size >> k) - _SMALL
        if size > (_SMALL + m) << k:
            m += 1
            if m == _SMALL:
                k, m = k + 1, 0
        return _SMALL - 1 + _SMALL * k + m

    @staticmethod
    def alloc_size(bin_number):
        """The block size of a bin (at least 1 byte)."""
        bin_number = _size(bin_number, "DeviceMemoryPool.alloc_size")
        if bin_number < _SMALL - 1:
            return bin_number + 1
        k, m = divmod(bin_number - (_SMALL - 1), _SMALL)
        return (_SMALL + m) << k

    @property
    def held_blocks(self):
        """The blocks kept for reuse now."""
        with self._lock:
            return sum(len(v) for held in (self._held, self._fresh) for v in held.values())

    def _take(self, key):
        """A held block of key's bin, or None; waits for the device first
        when only a block back since the last wait would do (see the class)."""
        with self._lock:
            held = self._held if key in self._held else self._fresh if key in self._fresh else None
            if held is self._fresh and not _pool.one_stream_orders_all():
                held = None
            if held is not None:
                blocks = held[key]
                memory = blocks.pop()
                if not blocks:
                    del held[key]
                return memory
            if key not in self._fresh:
                return None
        cudyn.synchronize()  # every stream's work with the blocks back since the last wait is done
        with self._lock:
            for k in [k for k in self._fresh if k[0] == key[0]]:
                self._held.setdefault(k, []).extend(self._fresh.pop(k))
        return self._take(key)

    def allocate(self, size):
        """A block of at least ``size`` bytes (an integer, 0 or more), reused
        when one of its bin is held."""
        size = _size(size, "DeviceMemoryPool.allocate")
        bin_number = self.bin_number(size)
        key = (cudyn.device_current(), bin_number)
        memory = self._take(key)
        if memory is None:
            nbytes = self.alloc_size(bin_number)
            try:
                memory = self._allocator(nbytes)
            except cudyn.OutOfMemory:
                self.free_held()
                memory = self._allocator(nbytes)
        self.active_blocks += 1
        return PooledDeviceAllocation(self, memory, size, key)

    __call__ = allocate

    def _release(self, key, memory):
        self.active_blocks -= 1
        if self._holding and not memory.freed:
            with self._lock:
                self._fresh.setdefault(key, []).append(memory)
        else:
            memory.free()

    def free_held(self):
        """Frees every held block."""
        with self._lock:
            blocks = [m for held in (self._held, self._fresh) for ms in held.values() for m in ms]
            self._held.clear()
            self._fresh.clear()
        for memory in blocks:
            memory.free()

    def stop_holding(self):
        """Frees the held blocks, and frees blocks given back from now on."""
        self._holding = False
        self.free_held()


class PageLockedMemoryPool:
    """Page-locked host arrays (allocate(shape, dtype)); not pooled: each is pinned afresh."""

    def allocate(self, shape, dtype, order="C"):
        """A new page-locked numpy array."""
        return cuda.pagelocked_empty(shape, dtype, order)

    def free_held(self):
        """Nothing is held."""

    def stop_holding(self):
        """Nothing is held."""


# ------------------------------------------------------------ dtypes and C types

_PYCUDA_NAMES = {np.dtype(np.complex64): "pycuda::complex<float>", np.dtype(np.complex128): "pycuda::complex<double>"}


def dtype_to_ctype(dtype, with_fp_tex_hack=False):
    """The C type of a dtype in kernels ('float', 'pycuda::complex<float>', a registered struct's name)."""
    if with_fp_tex_hack:
        raise Unsupported("dtype_to_ctype(with_fp_tex_hack=True): the fp_tex types are for texture references,"
                          " removed in CUDA 12")
    dtype = np.dtype(dtype)
    if dtype in _PYCUDA_NAMES:
        return _PYCUDA_NAMES[dtype]
    return _dtypes.ctype(dtype)


def register_dtype(dtype, c_names, alias_ok=False):
    """Makes a (struct) dtype known to generated kernels as the C type c_names
    (a name or a sequence of names, the first one used)."""
    names = [c_names] if isinstance(c_names, str) else list(c_names)
    for name in names[::-1]:
        _dtypes.register_dtype(dtype, name)


def get_or_register_dtype(c_names, dtype=None):
    """The dtype of a C type name; with dtype, registers it first."""
    names = [c_names] if isinstance(c_names, str) else list(c_names)
    if dtype is not None:
        register_dtype(dtype, names)
        return np.dtype(dtype)
    return _dtypes.dtype_of(names[0])


class Argument:
    def __init__(self, dtype, name):
        self.dtype, self.name = np.dtype(dtype), name

    def __repr__(self):
        return f"{type(self).__name__}({self.name!r}, {self.dtype})"


class VectorArg(Argument):
    """A pointer argument of a generated kernel."""

    def declarator(self):
        """The C declaration ('float *x')."""
        return f"{dtype_to_ctype(self.dtype)} *{self.name}"

    @property
    def struct_char(self):
        """Its character of a prepare() format: 'P'."""
        return "P"


class ScalarArg(Argument):
    """A value argument of a generated kernel."""

    def declarator(self):
        """The C declaration ('float a')."""
        return f"{dtype_to_ctype(self.dtype)} {self.name}"

    @property
    def struct_char(self):
        """Its character of a prepare() format ('f' for float32)."""
        return _dtypes.launch_code(self.dtype)


def parse_c_arg(c_arg):
    """A C declaration ('float *x') as a VectorArg or ScalarArg."""
    (t, name, pointer), = _codegen.parse_arguments(c_arg)
    return (VectorArg if pointer else ScalarArg)(_dtypes.dtype_of(t), name)


def get_arg_type(c_arg):
    """The launch format character of a C declaration ('P' for a pointer)."""
    (t, name, pointer), = _codegen.parse_arguments(c_arg)
    return "P" if pointer else _dtypes.launch_code(_dtypes.dtype_of(t))


# ------------------------------------------------------------ contexts and tests

def get_default_device(default=0):
    """The device of $CUDA_DEVICE (PyCUDA's variable), else cudyn.autoinit's
    choice ($CUDYN_DEVICE, else the node-local rank as the C library reads
    it), else ``default``."""
    value = os.environ.get("CUDA_DEVICE", "").strip()
    if value:
        return cuda.Device(_ranks.decimal(value, "CUDA_DEVICE"))
    if not os.environ.get("CUDYN_DEVICE", "").strip() and _ranks.local_rank() is None:
        return cuda.Device(default)
    return cuda.Device(_ranks.choose_ordinal())


def make_default_context(ctx_maker=None):
    """The default device's context, pushed (see get_default_device)."""
    cuda.init()
    device = get_default_device()
    return ctx_maker(device) if ctx_maker is not None else device.make_context()


def clear_context_caches():
    """Nothing to clear: cudyn's kernels are kept per device and stay valid."""


def context_dependent_memoize(func):
    """Memoizes func per device and arguments."""
    cache = {}

    @functools.wraps(func)
    def wrapper(*args):
        key = (cudyn.device_current(),) + args
        if key not in cache:
            cache[key] = func(*args)
        return cache[key]
    return wrapper


def _check_context(context):
    device = context.get_device()
    assert isinstance(device.name(), str)
    assert isinstance(device.compute_capability(), tuple)
    assert isinstance(device.get_attributes(), dict)


def mark_cuda_test(inner):
    """Runs a test inside a context made for it (popped afterwards), as PyCUDA's."""
    @functools.wraps(inner)
    def test(*args, **kwargs):
        cuda.init()
        context = make_default_context()
        try:
            _check_context(context)
            inner(*args, **kwargs)
        finally:
            context.pop()
            clear_context_caches()
            gc.collect()
    return test


def init_cuda_context_fixture():
    """A pytest fixture's body (``yield from init_cuda_context_fixture()``):
    a context for each test, popped after it."""
    cuda.init()
    context = make_default_context()
    _check_context(context)
    yield
    context.pop()
    clear_context_caches()
    gc.collect()


# ------------------------------------------------------------ device facts

class DeviceData:
    """A device's limits as PyCUDA's kernels size themselves by."""

    def __init__(self, dev=None):
        dev = dev if dev is not None else cuda.Context.get_device()
        info = cudyn.device_info(dev.ordinal)
        self.max_threads = info["max_threads_per_block"]
        self.warp_size = info["warp_size"]
        self.thread_blocks_per_mp = max(1, info["max_threads_per_multiprocessor"] // 32)
        self.warps_per_mp = info["max_threads_per_multiprocessor"] // self.warp_size
        self.registers = info["registers_per_block"]
        self.shared_memory = info["shared_memory_per_block"]
        self.smem_granularity = 32
        self.smem_alloc_granularity = 128

    def align(self, nbytes, word_size=4):
        """nbytes rounded up to a multiple of 32 words."""
        return -(-nbytes // (word_size * 32)) * (word_size * 32)

    def align_dtype(self, elements, dtype_size):
        """elements rounded up so that their bytes are aligned as align() does."""
        return self.align_words(dtype_size) * -(-elements // self.align_words(dtype_size))

    def align_words(self, word_size):
        """The words of word_size bytes in one alignment unit."""
        return self.align(1, word_size) // word_size

    def coalesce(self, thread_count):
        """thread_count rounded up to a multiple of 16."""
        return -(-thread_count // 16) * 16


class OccupancyRecord:
    """Blocks per multiprocessor for a launch shape, limited by threads, shared memory and registers."""

    def __init__(self, devdata, threads, shared_mem=0, registers=0):
        if threads > devdata.max_threads:
            raise ValueError("too many threads")
        alloc_warps = -(-threads // devdata.warp_size)
        limits = [devdata.thread_blocks_per_mp, devdata.warps_per_mp // alloc_warps]
        if shared_mem:
            limits.append(devdata.shared_memory // shared_mem)
        if registers:
            limits.append(devdata.registers // (registers * threads))
        self.tb_per_mp = max(0, min(limits))
        self.limited_by = ("device", "warps", "shared memory", "registers")[limits.index(self.tb_per_mp)]
        self.warps_per_mp = self.tb_per_mp * alloc_warps
        self.occupancy = self.warps_per_mp / devdata.warps_per_mp
