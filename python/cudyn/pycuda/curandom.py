"""pycuda.curandom over cudyn: cudyn.curandom's rand() (a counter-based
generator written for cudyn) and cuRAND's generators through its device
API (curand_kernel.h, found among the CUDA toolkit's headers at run time):
XORWOW, MRG32k3a, Philox4_32_10 (cudyn's addition), Sobol32 and Sobol64
and their scrambled kinds, with PyCUDA's methods.  Without cuRAND's
headers get_curand_version() is None (PyCUDA's tests of the generators
skip) and making one raises :class:`cudyn.pycuda.Unsupported` saying what
to install; cudyn.curandom says where Sobol's direction vectors come
from."""

from cudyn.curandom import (MRG32k3aRandomNumberGenerator, Philox4_32_10RandomNumberGenerator,  # noqa: F401
                            ScrambledSobol32RandomNumberGenerator, ScrambledSobol64RandomNumberGenerator,
                            Sobol32RandomNumberGenerator, Sobol64RandomNumberGenerator, XORWOWRandomNumberGenerator,
                            direction_vector_set, generate_direction_vectors, generate_scramble_constants32,
                            generate_scramble_constants64, get_curand_version, rand, seed_getter_uniform,
                            seed_getter_unique)

__all__ = ["rand", "get_curand_version", "seed_getter_uniform", "seed_getter_unique", "direction_vector_set",
           "generate_direction_vectors", "generate_scramble_constants32", "generate_scramble_constants64",
           "XORWOWRandomNumberGenerator", "MRG32k3aRandomNumberGenerator", "Philox4_32_10RandomNumberGenerator",
           "Sobol32RandomNumberGenerator", "ScrambledSobol32RandomNumberGenerator", "Sobol64RandomNumberGenerator",
           "ScrambledSobol64RandomNumberGenerator"]
