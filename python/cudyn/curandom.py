"""Random numbers on the device, as PyCUDA's ``pycuda.curandom``.

``rand(shape, dtype)`` fills a new array with values in [0, 1) (float32
and float64) or with 32 random bits (int32, uint32).  The generator is
counter based: element k of a call is a function of the call's 64-bit
seed and k alone (SplitMix64's mixing of seed + k), so the numbers do not
depend on the launch shape, and each call takes a fresh seed from numpy's
global generator: ``numpy.random.seed(s)`` makes a program's sequence of
calls repeat.  It is not cryptographic, and needs nothing but the driver
and NVRTC.

cuRAND's generators, through its device API (``curand_kernel.h``, which
cudyn finds among the CUDA toolkit's headers at run time, as
cudyn.toolkit_info() says; without it, making one raises
:class:`cudyn.pycuda.Unsupported` saying what to install, and
get_curand_version() is None): XORWOWRandomNumberGenerator,
MRG32k3aRandomNumberGenerator, Philox4_32_10RandomNumberGenerator (not
in PyCUDA), Sobol32RandomNumberGenerator, Sobol64RandomNumberGenerator
and their scrambled kinds, with PyCUDA's methods: fill_uniform,
fill_normal, fill_log_normal, fill_poisson, their gen_* counterparts and
the call_skip_ahead* family.  One generator per thread of a grid of one
block per multiprocessor, each drawing elements g, g + count, g + 2 count
... of an array, its state kept on the device between calls.

A Sobol generator's default direction vectors and scramble constants are
Joe and Kuo's numbers, which cuRAND keeps in tables of its host library
(libcurand.so), not in its headers: cudyn takes them from the libcurand.so
beside the headers it found (the toolkit's and pip's wheels have both),
for 20000 dimensions, repeated past them as PyCUDA repeats them.  They
cannot be computed (they came from a search), so without that library
making a Sobol generator without dir_vector= raises Unsupported naming it.
"""

import ctypes
import enum
import functools
import glob
import os
import re

import numpy as np

from . import _codegen, _cudyn, _result
from . import gpuarray  # noqa: F401 (registers GPUArray, the type _result.new_array makes)
from ._errors import Unsupported
from ._views import normalize_shape

__all__ = ["rand", "seed_getter_uniform", "seed_getter_unique", "get_curand_version", "direction_vector_set",
           "generate_direction_vectors", "generate_scramble_constants32", "generate_scramble_constants64",
           "XORWOWRandomNumberGenerator", "MRG32k3aRandomNumberGenerator", "Philox4_32_10RandomNumberGenerator",
           "Sobol32RandomNumberGenerator", "ScrambledSobol32RandomNumberGenerator", "Sobol64RandomNumberGenerator",
           "ScrambledSobol64RandomNumberGenerator"]

_SOURCE = r"""
__device__ unsigned long long cudyn_mix64(unsigned long long z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}
"""

# dtype -> (C type, the value from 64 random bits r)
_VALUES = {
    "f4": ("float", "(float)(r >> 40) * (1.0f / 16777216.0f)"),
    "f8": ("double", "(double)(r >> 11) * (1.0 / 9007199254740992.0)"),
    "i4": ("int", "(int)(unsigned int)(r >> 32)"),
    "u4": ("unsigned int", "(unsigned int)(r >> 32)"),
}


def _seed():
    return int(np.random.randint(0, 2 ** 31, dtype=np.int64)) << 32 | int(np.random.randint(0, 2 ** 31,
                                                                                            dtype=np.int64))


def rand(shape, dtype=np.float32, stream=None):
    """A new device array of uniform random values in [0, 1) (float32,
    float64) or of random 32-bit integers (int32, uint32)."""
    dtype = np.dtype(dtype)
    key = f"{dtype.kind}{dtype.itemsize}"
    if key not in _VALUES:
        raise TypeError(f"cudyn.curandom.rand: dtype {dtype} is not float32, float64, int32 or uint32")
    result = _result.new_array(normalize_shape(shape), dtype, None, stream)
    t, value = _VALUES[key]
    body = f"unsigned long long r = cudyn_mix64(seed + 0x9e3779b97f4a7c15ULL * (i + 1)); z = {value}"
    _codegen.run_map(body, [("z", result, True)], [("seed", np.uint64(_seed()))], result.shape, stream, "rand",
                     _SOURCE)
    return result


def seed_getter_uniform(n):
    """PyCUDA's seed getter: n copies of one random seed (an int32 device array)."""
    return _uploaded(np.full(n, np.random.randint(0, 2 ** 31 - 1), dtype=np.int32))


def seed_getter_unique(n):
    """PyCUDA's seed getter: n random seeds (an int32 device array)."""
    return _uploaded(np.random.randint(0, 2 ** 31 - 1, size=n).astype(np.int32))


def _uploaded(host):
    """A new device array holding a copy of a C-contiguous host array."""
    a = _result.new_array(host.shape, host.dtype)
    if a.nbytes:
        _cudyn.DeviceArray.set(a, host)
    return a


# ------------------------------------------------------------ cuRAND's device API

# cuRAND's curandDirectionVectorSet_t (curand.h): which direction vectors
# generate_direction_vectors takes from cuRAND's host library
class direction_vector_set(enum.IntEnum):  # noqa: N801 (PyCUDA's name)
    """The direction vectors of a Sobol generator, cuRAND's sets (Joe and Kuo's numbers, 20000 dimensions)."""
    VECTOR_32 = 101
    SCRAMBLED_VECTOR_32 = 102
    VECTOR_64 = 103
    SCRAMBLED_VECTOR_64 = 104


_SOBOL_DIMENSIONS = 20000  # the dimensions cuRAND's host library has vectors for (curand.h)
_LOAD_NVRTC = 2  # cudyn.h's CUDYN_LOAD_NVRTC: the toolkit beside NVRTC counts once NVRTC is loaded
_INSTALL = ("install the CUDA toolkit, or pip's nvidia-curand-cu13 with nvidia-cuda-runtime-cu13 (the -cu12 ones for"
            " CUDA 12), or point CUDYN_TOOLKIT at a toolkit")


@functools.lru_cache(maxsize=None)
def _toolkit():
    """(the include directory that has curand_kernel.h, or None; where cudyn looked), once per process."""
    _cudyn.loader_info(_LOAD_NVRTC)
    info = _cudyn.toolkit_info()
    for directory in (info["include_path"] or "").split(":"):
        if directory and os.path.isfile(os.path.join(directory, "curand_kernel.h")):
            return directory, info["trace"]
    return None, info["trace"]


def _looked(trace):
    return "cudyn looked in:\n  " + trace.strip().replace("\n", "\n  ")


def _curand_include(who):
    """The include directory of curand_kernel.h, or Unsupported saying what to install."""
    directory, trace = _toolkit()
    if directory is None:
        raise Unsupported(f"{who}: cuRAND's device API needs curand_kernel.h, which cudyn did not find among the CUDA"
                          f" toolkit's headers; {_INSTALL}; {_looked(trace)}")
    return directory


def get_curand_version():
    """cuRAND's version (major, minor, patch) from the curand.h cudyn found
    at run time, or None without cuRAND's headers (then PyCUDA's tests of
    its generators skip)."""
    directory, _ = _toolkit()
    if directory is None:
        return None
    with open(os.path.join(directory, "curand.h"), errors="replace") as header:
        text = header.read()
    parts = [re.search(rf"#define\s+CURAND_VER_{part}\s+(\d+)", text) for part in ("MAJOR", "MINOR", "PATCH")]
    return tuple(int(p.group(1)) for p in parts) if all(parts) else None


@functools.lru_cache(maxsize=None)
def _host_library():
    """cuRAND's host library beside the headers cudyn found (its lib64 or
    lib), for the tables only it has; None where there is none."""
    directory, _ = _toolkit()
    if directory is None:
        return None
    for lib in ("lib64", "lib", os.path.join("lib", "x64")):
        folder = os.path.join(os.path.dirname(directory), lib)
        for path in sorted(glob.glob(os.path.join(folder, "libcurand.so.*")), reverse=True) + \
                [os.path.join(folder, "libcurand.so")]:
            try:
                return ctypes.CDLL(path)
            except OSError:
                continue
    return None


def _host_table(who, function, dtype, width, *args):
    """The table a function of cuRAND's host library hands out: 20000 rows of width values."""
    library = _host_library()
    if library is None:
        raise Unsupported(f"{who}: Sobol generators take their direction vectors and scramble constants (Joe and"
                          " Kuo's numbers, tabulated, not computed) from cuRAND's host library, libcurand.so, which"
                          " cudyn did not find beside cuRAND's headers; pass dir_vector= (and scramble_vector=) of"
                          f" your own, or {_INSTALL}")
    pointer = ctypes.c_void_p()
    status = getattr(library, function)(ctypes.byref(pointer), *args)
    if status != 0 or not pointer.value:
        raise _cudyn.Error(f"{who}: {function} returned curandStatus_t {status}")
    rows = (ctypes.c_char * (_SOBOL_DIMENSIONS * width * np.dtype(dtype).itemsize)).from_address(pointer.value)
    return np.frombuffer(rows, dtype).reshape(_SOBOL_DIMENSIONS, width) if width > 1 else \
        np.frombuffer(rows, dtype)


def _repeated(table, count):
    """count rows of a table of 20000, repeated from its start past its end (as PyCUDA does)."""
    return np.ascontiguousarray(table[np.arange(count) % len(table)])


def generate_direction_vectors(count, direction=None):
    """A device array of count Sobol direction vectors ((count, 32) uint32,
    or (count, 64) uint64 for the 64-bit sets) from cuRAND's host library;
    vectors past its 20000 dimensions repeat from the first."""
    direction = direction_vector_set(direction if direction is not None else direction_vector_set.VECTOR_32)
    wide = direction in (direction_vector_set.VECTOR_64, direction_vector_set.SCRAMBLED_VECTOR_64)
    function = "curandGetDirectionVectors64" if wide else "curandGetDirectionVectors32"
    table = _host_table("generate_direction_vectors", function, np.uint64 if wide else np.uint32, 64 if wide else 32,
                        ctypes.c_int(direction))
    return _uploaded(_repeated(table, count))


def generate_scramble_constants32(count):
    """A device array of count scramble constants (uint32) from cuRAND's host library."""
    return _uploaded(_repeated(_host_table("generate_scramble_constants32", "curandGetScrambleConstants32",
                                           np.uint32, 1), count))


def generate_scramble_constants64(count):
    """A device array of count scramble constants (uint64) from cuRAND's host library."""
    return _uploaded(_repeated(_host_table("generate_scramble_constants64", "curandGetScrambleConstants64",
                                           np.uint64, 1), count))


# The draws, each a kernel: name -> (C type of an element, the element
# from the thread's state s, the parameters before n).  A thread keeps one
# generator's state in registers while it draws elements g, g + count ...
_DRAWS = {
    "uniform_int": ("unsigned int", "(unsigned int)curand(&s)", ""),
    "uniform_long": ("unsigned long long", "(unsigned long long)curand(&s)", ""),
    "uniform_float": ("float", "curand_uniform(&s)", ""),
    "uniform_double": ("double", "curand_uniform_double(&s)", ""),
    "normal_float": ("float", "curand_normal(&s)", ""),
    "normal_double": ("double", "curand_normal_double(&s)", ""),
    "normal_float2": ("float2", "curand_normal2(&s)", ""),
    "normal_double2": ("double2", "curand_normal2_double(&s)", ""),
    "log_normal_float": ("float", "curand_log_normal(&s, mean, stddev)", "float mean, float stddev, "),
    "log_normal_double": ("double", "curand_log_normal_double(&s, mean, stddev)", "double mean, double stddev, "),
    "log_normal_float2": ("float2", "curand_log_normal2(&s, mean, stddev)", "float mean, float stddev, "),
    "log_normal_double2": ("double2", "curand_log_normal2_double(&s, mean, stddev)",
                           "double mean, double stddev, "),
    "poisson": ("unsigned int", "curand_poisson(&s, lambda)", "double lambda, "),
    "poisson_inplace_float": ("float", "(float)curand_poisson(&s, (double)out[k])", ""),
    "poisson_inplace_double": ("double", "(double)curand_poisson(&s, out[k])", ""),
    "poisson_inplace_int": ("unsigned int", "curand_poisson(&s, (double)out[k])", ""),
}

_DRAW = """
extern "C" __global__ void cudyn_curand_{name}(cudyn_state *states, {t} *out, {params}unsigned long long n)
{{
    const unsigned long long g = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    cudyn_state s = states[g];
    for (unsigned long long k = g; k < n; k += (unsigned long long)blockDim.x * gridDim.x)
        out[k] = {expr};
    states[g] = s;
}}
"""

_SKIP = """
extern "C" __global__ void cudyn_curand_{name}(cudyn_state *states, {t} distance, unsigned long long count)
{{
    const unsigned long long g = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (g < count)
        {function}(distance, &states[g]);
}}

extern "C" __global__ void cudyn_curand_{name}_array(cudyn_state *states, const {t} *distances,
                                                    unsigned long long count)
{{
    const unsigned long long g = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (g < count)
        {function}(distances[g], &states[g]);
}}
"""

# each kind of generator's curand_init: (its parameters after the states, its call)
_INITS = {
    "pseudo": ("const int *seeds", "curand_init((unsigned int)seeds[g], g, offset, &s)"),
    "sobol": ("{vectors} *vectors", "curand_init(vectors[g], ({skip})offset, &s)"),
    "scrambled": ("{vectors} *vectors, const {skip} *scramble",
                  "curand_init(vectors[g], scramble[g], ({skip})offset, &s)"),
}

_INIT = """
extern "C" __global__ void cudyn_curand_init(cudyn_state *states, {params}, unsigned long long offset,
                                             unsigned long long count)
{{
    const unsigned long long g = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (g < count) {{
        cudyn_state s;
        {call};
        states[g] = s;
    }}
}}
"""


def _source(state_type, kind, bits, draws, skips):
    """The CUDA C++ of one kind of generator: its init, its draws, its skips,
    and its state's size as a global (cudyn_curand_state_bytes)."""
    skip = "unsigned long long" if bits == 64 or kind == "pseudo" else "unsigned int"
    vectors = f"curandDirectionVectors{bits}_t"
    params, call = (text.format(vectors=vectors, skip=skip) for text in _INITS[kind])
    text = ("#include <curand_kernel.h>\n"
            f"typedef {state_type} cudyn_state;\n"
            'extern "C" __device__ unsigned long long cudyn_curand_state_bytes = sizeof(cudyn_state);\n')
    text += _INIT.format(params=params, call=call)
    for name in draws:
        t, expr, extra = _DRAWS[name]
        text += _DRAW.format(name=name, t=t, expr=expr, params=extra)
    for name in skips:
        text += _SKIP.format(name=name, t=skip, function=name.replace("skip_ahead", "skipahead"))
    return text


def _draw_kernel(what, dtype, size, box_muller, bits, in_place=False):
    """(draw name, elements it writes) for filling size elements of dtype
    with ``what`` (uniform, normal, log_normal, poisson); NotImplementedError
    for a dtype it has no draw for, as PyCUDA raises."""
    kind = np.dtype(dtype)
    names = {
        "uniform": {"f4": "uniform_float", "f8": "uniform_double", "i4": "uniform_int", "u4": "uniform_int",
                    "i8": "uniform_long" if bits == 64 else None, "u8": "uniform_long" if bits == 64 else None},
        "normal": {"f4": "normal_float", "f8": "normal_double"},
        "log_normal": {"f4": "log_normal_float", "f8": "log_normal_double"},
        "poisson": {"u4": "poisson_inplace_int", "f4": "poisson_inplace_float", "f8": "poisson_inplace_double"}
        if in_place else {"u4": "poisson"},
    }[what]
    name = names.get(f"{kind.kind}{kind.itemsize}")
    if name is None:
        has = ", ".join(str(np.dtype(k)) for k in names if names[k])
        raise NotImplementedError(f"{what} random numbers of {kind}{' in place' if in_place else ''}: this"
                                  f" {bits}-bit generator has them of {has}")
    if what in ("normal", "log_normal") and box_muller and size % 2 == 0:
        return name + "2", size // 2  # pairs: Box-Muller's two values at once
    return name, size


class _Generator:
    """What every cuRAND generator has: a state per thread of a grid of
    block_count blocks of generators_per_block threads, made by its init
    kernel; fill_* and gen_* draw into device arrays on a stream,
    call_skip_ahead* move the states on."""

    has_box_muller = False
    state_type = ""  # cuRAND's state type, and the kind of its curand_init (_INITS)
    _kind = "pseudo"
    generator_bits = 32
    _skips = ("skip_ahead",)

    @classmethod
    def _plan(cls):
        """(the CUDA C++ of this kind of generator, the names of its kernels)."""
        draws = [name for name in _DRAWS if (cls.generator_bits == 64 or name != "uniform_long")
                 and (cls.has_box_muller or not name.endswith("2"))]
        names = ["init"] + draws + [skip + array for skip in cls._skips for array in ("", "_array")]
        return _source(cls.state_type, cls._kind, cls.generator_bits, draws, cls._skips), names

    def __init__(self):
        _curand_include(type(self).__name__)
        source, names = self._plan()
        self._kernels = {name: _codegen.function(source, f"cudyn_curand_{name}") for name in names}
        self.module = self._kernels["init"].module
        self.block_count = int(_cudyn.device_info(_cudyn.device_current())["multiprocessors"])
        self.generators_per_block = min(f.max_threads_per_block for f in self._kernels.values())
        address, _ = self.module.get_global("cudyn_curand_state_bytes")
        size = np.zeros(1, np.uint64)
        _cudyn.memcpy_dtoh(size, address)
        self.state = _cudyn.DeviceMemory(self.generator_count * int(size[0]))

    @property
    def generator_count(self):
        """The number of generators (one per thread): block_count * generators_per_block."""
        return self.block_count * self.generators_per_block

    @property
    def generators(self):
        """The draw kernels by name (uniform_float, normal_double2, poisson ...)."""
        return {name: f for name, f in self._kernels.items() if name in _DRAWS}

    def _launch(self, name, *args, stream=None, used=()):
        if stream is not None:
            _result.mark_used(stream, used)
        self._kernels[name](self.state, *args, grid=(self.block_count,), block=(self.generators_per_block,),
                            stream=stream)

    def _initialise(self, inputs, offset):
        self._launch("init", *inputs, np.uint64(offset), np.uint64(self.generator_count))

    def _fill(self, what, data, args=(), stream=None, in_place=False):
        if not isinstance(data, _cudyn.DeviceArray) or not data.is_contiguous:
            raise TypeError(f"{type(self).__name__}: fills a C-contiguous device array, not {type(data).__name__}")
        pairs = self.has_box_muller and data.ptr % (2 * data.itemsize) == 0  # float2 and double2 are aligned
        name, n = _draw_kernel(what, data.dtype, data.size, pairs, self.generator_bits, in_place)
        if name not in self._kernels:
            raise NotImplementedError(f"{type(self).__name__} has no {name} draw")
        if n:
            self._launch(name, data, *args, np.uint64(n), stream=stream, used=(data,))

    def fill_uniform(self, data, stream=None):
        """Fills data with uniform values: (0, 1] for float32 and float64, all bits for (u)int32 (and (u)int64
        for 64-bit generators)."""
        self._fill("uniform", data, stream=stream)

    def fill_normal(self, data, stream=None):
        """Fills data (float32, float64) with standard normal values."""
        self._fill("normal", data, stream=stream)

    def fill_log_normal(self, data, mean, stddev, stream=None):
        """Fills data (float32, float64) with values whose logarithm is normal(mean, stddev)."""
        t = np.float32 if data.dtype == np.float32 else np.float64
        self._fill("log_normal", data, (t(mean), t(stddev)), stream)

    def fill_poisson(self, data, lambda_value=None, stream=None):
        """Fills data with Poisson values: of lambda_value (uint32), or, without it, in place, each element
        of the mean it holds (float32, float64, uint32)."""
        if lambda_value is None:
            self._fill("poisson", data, stream=stream, in_place=True)
        else:
            self._fill("poisson", data, (np.float64(lambda_value),), stream)

    def _new(self, shape, dtype, stream):
        return _result.new_array(normalize_shape(shape), np.dtype(dtype), None, stream)

    def gen_uniform(self, shape, dtype, stream=None):
        """A new array of uniform values (see fill_uniform)."""
        result = self._new(shape, dtype, stream)
        self.fill_uniform(result, stream)
        return result

    def gen_normal(self, shape, dtype, stream=None):
        """A new array of standard normal values."""
        result = self._new(shape, dtype, stream)
        self.fill_normal(result, stream)
        return result

    def gen_log_normal(self, shape, dtype, mean, stddev, stream=None):
        """A new array of log-normal values."""
        result = self._new(shape, dtype, stream)
        self.fill_log_normal(result, mean, stddev, stream)
        return result

    def gen_poisson(self, shape, dtype, lambda_value, stream=None):
        """A new array of Poisson values of lambda_value (uint32)."""
        result = self._new(shape, dtype, stream)
        self.fill_poisson(result, lambda_value, stream)
        return result

    def _skip(self, name, distance, stream):
        if isinstance(distance, _cudyn.DeviceArray):
            self._launch(name + "_array", distance, np.uint64(self.generator_count), stream=stream, used=(distance,))
        else:
            wide = self.generator_bits == 64 or self._kind == "pseudo"  # as _source's skip type
            self._launch(name, (np.uint64 if wide else np.uint32)(distance), np.uint64(self.generator_count),
                         stream=stream)

    def call_skip_ahead(self, i, stream=None):
        """Moves every generator i draws on."""
        self._skip("skip_ahead", i, stream)

    def call_skip_ahead_array(self, i, stream=None):
        """Moves generator g i[g] draws on (i: a device array, one per generator)."""
        self._skip("skip_ahead", i, stream)


class _PseudoGenerator(_Generator):
    has_box_muller = True
    _skips = ("skip_ahead", "skip_ahead_sequence")

    def __init__(self, seed_getter=None, offset=0):
        super().__init__()
        count = self.generator_count
        seeds = seed_getter(count) if seed_getter is not None else \
            _uploaded(np.random.randint(0, (1 << 31) - 1, count).astype(np.int32))
        if not isinstance(seeds, _cudyn.DeviceArray) or seeds.dtype != np.int32 or seeds.size != count:
            raise TypeError(f"{type(self).__name__}: the seed getter must give a device array of {count} int32")
        self._initialise((seeds,), offset)

    def call_skip_ahead_sequence(self, i, stream=None):
        """Moves every generator i subsequences of 2**67 draws on."""
        self._skip("skip_ahead_sequence", i, stream)

    def call_skip_ahead_sequence_array(self, i, stream=None):
        """Moves generator g i[g] subsequences on."""
        self._skip("skip_ahead_sequence", i, stream)


class XORWOWRandomNumberGenerator(_PseudoGenerator):
    """cuRAND's XORWOW generators, one per thread: seed_getter(count) gives
    their int32 seeds (random ones by default), generator g starts at its
    subsequence g, ``offset`` draws in."""

    state_type = "curandStateXORWOW"


class MRG32k3aRandomNumberGenerator(_PseudoGenerator):
    """cuRAND's MRG32k3a generators (see XORWOWRandomNumberGenerator), with subsequence skips too."""

    state_type = "curandStateMRG32k3a"
    _skips = ("skip_ahead", "skip_ahead_sequence", "skip_ahead_subsequence")

    def call_skip_ahead_subsequence(self, i, stream=None):
        """Moves every generator i subsequences of 2**76 draws on."""
        self._skip("skip_ahead_subsequence", i, stream)

    def call_skip_ahead_subsequence_array(self, i, stream=None):
        """Moves generator g i[g] subsequences of 2**76 draws on."""
        self._skip("skip_ahead_subsequence", i, stream)


class Philox4_32_10RandomNumberGenerator(_PseudoGenerator):  # noqa: N801 (cuRAND's name)
    """cuRAND's Philox4x32-10 generators (see XORWOWRandomNumberGenerator);
    not in PyCUDA, which predates them."""

    state_type = "curandStatePhilox4_32_10_t"


def _device_table(value, make, dtype, shape, who, what):
    """The table given (a device array of shape and dtype), or make(count)'s."""
    value = make() if value is None else value
    if not isinstance(value, _cudyn.DeviceArray) or value.dtype != dtype or value.shape != shape:
        raise TypeError(f"{who}: {what} must be a device array of shape {shape} and dtype {np.dtype(dtype)}")
    return value


class _SobolGenerator(_Generator):
    _kind = "sobol"
    _vectors = direction_vector_set.VECTOR_32  # the vectors generate_direction_vectors gives by default

    def __init__(self, dir_vector=None, offset=0, scramble_vector=None):
        super().__init__()
        bits, count, who = self.generator_bits, self.generator_count, type(self).__name__
        dtype = np.uint32 if bits == 32 else np.uint64
        tables = [_device_table(dir_vector, lambda: generate_direction_vectors(count, self._vectors), dtype,
                                (count, bits), who, "dir_vector")]
        if self._kind == "scrambled":
            constants = generate_scramble_constants32 if bits == 32 else generate_scramble_constants64
            tables.append(_device_table(scramble_vector, lambda: constants(count), dtype, (count,), who,
                                        "scramble_vector"))
        self._initialise(tables, offset)


class Sobol32RandomNumberGenerator(_SobolGenerator):
    """cuRAND's Sobol32 quasi-random generators, one dimension per thread:
    dir_vector, a (count, 32) uint32 device array, gives their direction
    vectors (by default cuRAND's, from its host library)."""

    state_type = "curandStateSobol32"

    def __init__(self, dir_vector=None, offset=0):
        super().__init__(dir_vector, offset)


class ScrambledSobol32RandomNumberGenerator(_SobolGenerator):
    """cuRAND's scrambled Sobol32 generators (see Sobol32RandomNumberGenerator; scramble_vector: count uint32)."""

    state_type, _kind, _vectors = "curandStateScrambledSobol32", "scrambled", direction_vector_set.SCRAMBLED_VECTOR_32

    def __init__(self, dir_vector=None, scramble_vector=None, offset=0):
        super().__init__(dir_vector, offset, scramble_vector)


class Sobol64RandomNumberGenerator(_SobolGenerator):
    """cuRAND's Sobol64 generators (dir_vector: (count, 64) uint64)."""

    state_type, generator_bits, _vectors = "curandStateSobol64", 64, direction_vector_set.VECTOR_64

    def __init__(self, dir_vector=None, offset=0):
        super().__init__(dir_vector, offset)


class ScrambledSobol64RandomNumberGenerator(_SobolGenerator):
    """cuRAND's scrambled Sobol64 generators (scramble_vector: count uint64)."""

    state_type, _kind, generator_bits = "curandStateScrambledSobol64", "scrambled", 64
    _vectors = direction_vector_set.SCRAMBLED_VECTOR_64

    def __init__(self, dir_vector=None, scramble_vector=None, offset=0):
        super().__init__(dir_vector, offset, scramble_vector)
