# Type stubs for cudyn.curandom (PyCUDA's rand and seed getters, cuRAND's generators through its device API).
import enum
from typing import Any, Callable, Sequence

from numpy.typing import DTypeLike

from . import _cudyn
from ._cudyn import _StreamLike
from .gpuarray import GPUArray

__all__ = ["rand", "seed_getter_uniform", "seed_getter_unique", "get_curand_version", "direction_vector_set",
           "generate_direction_vectors", "generate_scramble_constants32", "generate_scramble_constants64",
           "XORWOWRandomNumberGenerator", "MRG32k3aRandomNumberGenerator", "Philox4_32_10RandomNumberGenerator",
           "Sobol32RandomNumberGenerator", "ScrambledSobol32RandomNumberGenerator", "Sobol64RandomNumberGenerator",
           "ScrambledSobol64RandomNumberGenerator"]

_Shape = int | Sequence[int]

def rand(shape: _Shape, dtype: DTypeLike = ..., stream: _StreamLike = None) -> GPUArray:
    """A new device array of uniform random values in [0, 1) (float32, float64) or of random 32-bit integers."""
def seed_getter_uniform(n: int) -> GPUArray:
    """PyCUDA's seed getter: n copies of one random seed (an int32 device array)."""
def seed_getter_unique(n: int) -> GPUArray:
    """PyCUDA's seed getter: n random seeds (an int32 device array)."""

class direction_vector_set(enum.IntEnum):
    """The direction vectors of a Sobol generator, cuRAND's sets (Joe and Kuo's numbers, 20000 dimensions)."""
    VECTOR_32 = 101
    SCRAMBLED_VECTOR_32 = 102
    VECTOR_64 = 103
    SCRAMBLED_VECTOR_64 = 104

def get_curand_version() -> tuple[int, int, int] | None:
    """cuRAND's version from the curand.h cudyn found at run time, or None without cuRAND's headers."""
def generate_direction_vectors(count: int, direction: direction_vector_set | int | None = None) -> GPUArray:
    """A device array of count Sobol direction vectors from cuRAND's host library."""
def generate_scramble_constants32(count: int) -> GPUArray:
    """A device array of count scramble constants (uint32) from cuRAND's host library."""
def generate_scramble_constants64(count: int) -> GPUArray:
    """A device array of count scramble constants (uint64) from cuRAND's host library."""

class _Generator:
    has_box_muller: bool
    state_type: str
    generator_bits: int
    module: _cudyn.Module
    block_count: int
    generators_per_block: int
    state: _cudyn.DeviceMemory
    def __init__(self) -> None: ...
    @property
    def generator_count(self) -> int:
        """The number of generators (one per thread): block_count * generators_per_block."""
    @property
    def generators(self) -> dict[str, _cudyn.Function]:
        """The draw kernels by name (uniform_float, normal_double2, poisson ...)."""
    def fill_uniform(self, data: _cudyn.DeviceArray, stream: _StreamLike = None) -> None:
        """Fills data with uniform values."""
    def fill_normal(self, data: _cudyn.DeviceArray, stream: _StreamLike = None) -> None:
        """Fills data (float32, float64) with standard normal values."""
    def fill_log_normal(self, data: _cudyn.DeviceArray, mean: float, stddev: float,
                        stream: _StreamLike = None) -> None:
        """Fills data (float32, float64) with values whose logarithm is normal(mean, stddev)."""
    def fill_poisson(self, data: _cudyn.DeviceArray, lambda_value: float | None = None,
                     stream: _StreamLike = None) -> None:
        """Fills data with Poisson values of lambda_value (uint32), or in place of the means it holds."""
    def gen_uniform(self, shape: _Shape, dtype: DTypeLike, stream: _StreamLike = None) -> GPUArray:
        """A new array of uniform values (see fill_uniform)."""
    def gen_normal(self, shape: _Shape, dtype: DTypeLike, stream: _StreamLike = None) -> GPUArray:
        """A new array of standard normal values."""
    def gen_log_normal(self, shape: _Shape, dtype: DTypeLike, mean: float, stddev: float,
                       stream: _StreamLike = None) -> GPUArray:
        """A new array of log-normal values."""
    def gen_poisson(self, shape: _Shape, dtype: DTypeLike, lambda_value: float,
                    stream: _StreamLike = None) -> GPUArray:
        """A new array of Poisson values of lambda_value (uint32)."""
    def call_skip_ahead(self, i: int, stream: _StreamLike = None) -> None:
        """Moves every generator i draws on."""
    def call_skip_ahead_array(self, i: _cudyn.DeviceArray, stream: _StreamLike = None) -> None:
        """Moves generator g i[g] draws on (i: a device array, one per generator)."""

class _PseudoGenerator(_Generator):
    def __init__(self, seed_getter: Callable[[int], Any] | None = None, offset: int = 0) -> None: ...
    def call_skip_ahead_sequence(self, i: int, stream: _StreamLike = None) -> None:
        """Moves every generator i subsequences of 2**67 draws on."""
    def call_skip_ahead_sequence_array(self, i: _cudyn.DeviceArray, stream: _StreamLike = None) -> None:
        """Moves generator g i[g] subsequences on."""

class XORWOWRandomNumberGenerator(_PseudoGenerator):
    """cuRAND's XORWOW generators, one per thread."""
    def __init__(self, seed_getter: Callable[[int], Any] | None = None,
                 offset: int = 0) -> None: ...

class MRG32k3aRandomNumberGenerator(_PseudoGenerator):
    """cuRAND's MRG32k3a generators (see XORWOWRandomNumberGenerator), with subsequence skips too."""
    def __init__(self, seed_getter: Callable[[int], Any] | None = None,
                 offset: int = 0) -> None: ...
    def call_skip_ahead_subsequence(self, i: int, stream: _StreamLike = None) -> None:
        """Moves every generator i subsequences of 2**76 draws on."""
    def call_skip_ahead_subsequence_array(self, i: _cudyn.DeviceArray, stream: _StreamLike = None) -> None:
        """Moves generator g i[g] subsequences of 2**76 draws on."""

class Philox4_32_10RandomNumberGenerator(_PseudoGenerator):
    """cuRAND's Philox4x32-10 generators (see XORWOWRandomNumberGenerator); not in PyCUDA."""
    def __init__(self, seed_getter: Callable[[int], Any] | None = None,
                 offset: int = 0) -> None: ...

class _SobolGenerator(_Generator):
    def __init__(self, dir_vector: _cudyn.DeviceArray | None = None, offset: int = 0,
                 scramble_vector: _cudyn.DeviceArray | None = None) -> None: ...

class Sobol32RandomNumberGenerator(_SobolGenerator):
    """cuRAND's Sobol32 quasi-random generators, one dimension per thread."""
    def __init__(self, dir_vector: _cudyn.DeviceArray | None = None,
                 offset: int = 0) -> None: ...

class ScrambledSobol32RandomNumberGenerator(_SobolGenerator):
    """cuRAND's scrambled Sobol32 generators."""
    def __init__(self, dir_vector: _cudyn.DeviceArray | None = None,
                 scramble_vector: _cudyn.DeviceArray | None = None, offset: int = 0) -> None: ...

class Sobol64RandomNumberGenerator(_SobolGenerator):
    """cuRAND's Sobol64 generators."""
    def __init__(self, dir_vector: _cudyn.DeviceArray | None = None,
                 offset: int = 0) -> None: ...

class ScrambledSobol64RandomNumberGenerator(_SobolGenerator):
    """cuRAND's scrambled Sobol64 generators."""
    def __init__(self, dir_vector: _cudyn.DeviceArray | None = None,
                 scramble_vector: _cudyn.DeviceArray | None = None, offset: int = 0) -> None: ...
