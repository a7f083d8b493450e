# Type stubs for cudyn.pycuda.curandom: cudyn.curandom's rand and cuRAND's generators.
from cudyn.curandom import MRG32k3aRandomNumberGenerator as MRG32k3aRandomNumberGenerator
from cudyn.curandom import Philox4_32_10RandomNumberGenerator as Philox4_32_10RandomNumberGenerator
from cudyn.curandom import ScrambledSobol32RandomNumberGenerator as ScrambledSobol32RandomNumberGenerator
from cudyn.curandom import ScrambledSobol64RandomNumberGenerator as ScrambledSobol64RandomNumberGenerator
from cudyn.curandom import Sobol32RandomNumberGenerator as Sobol32RandomNumberGenerator
from cudyn.curandom import Sobol64RandomNumberGenerator as Sobol64RandomNumberGenerator
from cudyn.curandom import XORWOWRandomNumberGenerator as XORWOWRandomNumberGenerator
from cudyn.curandom import direction_vector_set as direction_vector_set
from cudyn.curandom import generate_direction_vectors as generate_direction_vectors
from cudyn.curandom import generate_scramble_constants32 as generate_scramble_constants32
from cudyn.curandom import generate_scramble_constants64 as generate_scramble_constants64
from cudyn.curandom import get_curand_version as get_curand_version
from cudyn.curandom import rand as rand
from cudyn.curandom import seed_getter_uniform as seed_getter_uniform
from cudyn.curandom import seed_getter_unique as seed_getter_unique

__all__ = ["rand", "get_curand_version", "seed_getter_uniform", "seed_getter_unique", "direction_vector_set",
           "generate_direction_vectors", "generate_scramble_constants32", "generate_scramble_constants64",
           "XORWOWRandomNumberGenerator", "MRG32k3aRandomNumberGenerator", "Philox4_32_10RandomNumberGenerator",
           "Sobol32RandomNumberGenerator", "ScrambledSobol32RandomNumberGenerator", "Sobol64RandomNumberGenerator",
           "ScrambledSobol64RandomNumberGenerator"]
