# Type stubs for cudyn.pycuda.tools (PyCUDA's memory pools, dtype names,
# default contexts and device facts).
from typing import Any, Callable, Generator, Iterable, Sequence, TypeVar

import numpy as np
from numpy.typing import DTypeLike, NDArray

import cudyn

from . import driver as cuda

__all__ = ["bitlog2", "DeviceMemoryPool", "PooledDeviceAllocation", "PageLockedMemoryPool", "dtype_to_ctype",
           "register_dtype", "get_or_register_dtype", "mark_cuda_test", "init_cuda_context_fixture",
           "make_default_context", "get_default_device", "clear_context_caches", "context_dependent_memoize",
           "DeviceData", "OccupancyRecord", "VectorArg", "ScalarArg", "parse_c_arg", "get_arg_type"]

_F = TypeVar("_F", bound=Callable[..., Any])

def bitlog2(n: int) -> int:
    """floor(log2(n)) for n >= 1 (the position of the highest set bit)."""

class PooledDeviceAllocation:
    """A block of a DeviceMemoryPool: device memory wherever device memory is taken (int() is its address)."""
    pool: DeviceMemoryPool
    size: int
    def __init__(self, pool: DeviceMemoryPool, memory: cudyn.DeviceMemory, size: int, bin_number: int) -> None: ...
    @property
    def ptr(self) -> int:
        """The device address."""
    def __int__(self) -> int: ...
    def __index__(self) -> int: ...
    @property
    def __cuda_array_interface__(self) -> dict[str, Any]: ...
    def free(self) -> None:
        """Gives the block back to its pool now."""

class DeviceMemoryPool:
    """Keeps freed device memory in bins of similar sizes and hands it out again, as PyCUDA's pool."""
    active_blocks: int
    def __init__(self, allocator: Callable[[int], cudyn.DeviceMemory] | None = None) -> None: ...
    @staticmethod
    def bin_number(size: int) -> int:
        """The bin of the smallest block size that holds ``size`` bytes."""
    @staticmethod
    def alloc_size(bin_number: int) -> int:
        """The block size of a bin (at least 1 byte)."""
    @property
    def held_blocks(self) -> int:
        """The blocks kept for reuse now."""
    def allocate(self, size: int) -> PooledDeviceAllocation:
        """A block of at least ``size`` bytes, reused when one of its bin is held."""
    def __call__(self, size: int) -> PooledDeviceAllocation:
        """A block of at least ``size`` bytes, reused when one of its bin is held."""
    def free_held(self) -> None:
        """Frees every held block."""
    def stop_holding(self) -> None:
        """Frees the held blocks, and frees blocks given back from now on."""

class PageLockedMemoryPool:
    """Page-locked host arrays (allocate(shape, dtype)); not pooled: each is pinned afresh."""
    def allocate(self, shape: int | Sequence[int], dtype: DTypeLike, order: str = "C") -> NDArray[Any]:
        """A new page-locked numpy array."""
    def free_held(self) -> None:
        """Nothing is held."""
    def stop_holding(self) -> None:
        """Nothing is held."""

def dtype_to_ctype(dtype: DTypeLike, with_fp_tex_hack: bool = False) -> str:
    """The C type of a dtype in kernels ('float', 'pycuda::complex<float>', a registered struct's name)."""
def register_dtype(dtype: DTypeLike, c_names: str | Sequence[str], alias_ok: bool = False) -> None:
    """Makes a (struct) dtype known to generated kernels as the C type c_names."""
def get_or_register_dtype(c_names: str | Sequence[str], dtype: DTypeLike | None = None) -> np.dtype[Any]:
    """The dtype of a C type name; with dtype, registers it first."""

class Argument:
    """A parameter of a generated kernel: its dtype and name."""
    dtype: np.dtype[Any]
    name: str
    def __init__(self, dtype: DTypeLike, name: str) -> None: ...

class VectorArg(Argument):
    """A pointer argument of a generated kernel."""
    def declarator(self) -> str:
        """The C declaration ('float *x')."""
    @property
    def struct_char(self) -> str:
        """Its character of a prepare() format: 'P'."""

class ScalarArg(Argument):
    """A value argument of a generated kernel."""
    def declarator(self) -> str:
        """The C declaration ('float a')."""
    @property
    def struct_char(self) -> str:
        """Its character of a prepare() format ('f' for float32)."""

def parse_c_arg(c_arg: str) -> VectorArg | ScalarArg:
    """A C declaration ('float *x') as a VectorArg or ScalarArg."""
def get_arg_type(c_arg: str) -> str:
    """The launch format character of a C declaration ('P' for a pointer)."""

def get_default_device(default: int = 0) -> cuda.Device:
    """The device of $CUDA_DEVICE (PyCUDA's variable), else cudyn.autoinit's choice, else ``default``."""
def make_default_context(ctx_maker: Callable[[cuda.Device], cuda.Context] | None = None) -> cuda.Context:
    """The default device's context, pushed (see get_default_device)."""
def clear_context_caches() -> None:
    """Nothing to clear: cudyn's kernels are kept per device and stay valid."""
def context_dependent_memoize(func: _F) -> _F:
    """Memoizes func per device and arguments."""
def mark_cuda_test(inner: _F) -> _F:
    """Runs a test inside a context made for it (popped afterwards), as PyCUDA's."""
def init_cuda_context_fixture() -> Generator[cuda.Context, None, None]:
    """A pytest fixture's body (``yield from init_cuda_context_fixture()``): a context for each test."""

class DeviceData:
    """A device's limits as PyCUDA's kernels size themselves by."""
    max_threads: int
    warp_size: int
    thread_blocks_per_mp: int
    warps_per_mp: int
    registers: int
    shared_memory: int
    smem_granularity: int
    smem_alloc_granularity: int
    def __init__(self, dev: cuda.Device | None = None) -> None: ...
    def align(self, nbytes: int, word_size: int = 4) -> int:
        """nbytes rounded up to a multiple of 32 words."""
    def align_dtype(self, elements: int, dtype_size: int) -> int:
        """elements rounded up so that their bytes are aligned as align() does."""
    def align_words(self, word_size: int) -> int:
        """The words of word_size bytes in one alignment unit."""
    def coalesce(self, thread_count: int) -> int:
        """thread_count rounded up to a multiple of 16."""

class OccupancyRecord:
    """Blocks per multiprocessor for a launch shape, limited by threads, shared memory and registers."""
    tb_per_mp: int
    limited_by: str
    warps_per_mp: int
    occupancy: float
    def __init__(self, devdata: DeviceData, threads: int, shared_mem: int = 0, registers: int = 0) -> None: ...
