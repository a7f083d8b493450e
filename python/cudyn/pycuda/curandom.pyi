# Type stubs for cudyn.pycuda.curandom: cudyn.curandom, and cuRAND's generators refused.
from typing import Any

from cudyn.curandom import rand as rand
from cudyn.curandom import seed_getter_uniform as seed_getter_uniform
from cudyn.curandom import seed_getter_unique as seed_getter_unique

__all__ = ["rand", "get_curand_version", "seed_getter_uniform", "seed_getter_unique"]

def get_curand_version() -> None:
    """None: cuRAND is not wrapped (see the module's note)."""

class _CurandGenerator:
    def __init__(self, *args: Any, **kwargs: Any) -> None: ...

class XORWOWRandomNumberGenerator(_CurandGenerator):
    """Refused: cuRAND is not wrapped by cudyn (use curandom.rand, or CuPy's cupy.random)."""

class MRG32k3aRandomNumberGenerator(_CurandGenerator):
    """Refused: cuRAND is not wrapped by cudyn (use curandom.rand, or CuPy's cupy.random)."""

class Sobol32RandomNumberGenerator(_CurandGenerator):
    """Refused: cuRAND is not wrapped by cudyn (use curandom.rand, or CuPy's cupy.random)."""

class ScrambledSobol32RandomNumberGenerator(_CurandGenerator):
    """Refused: cuRAND is not wrapped by cudyn (use curandom.rand, or CuPy's cupy.random)."""

class Sobol64RandomNumberGenerator(_CurandGenerator):
    """Refused: cuRAND is not wrapped by cudyn (use curandom.rand, or CuPy's cupy.random)."""

class ScrambledSobol64RandomNumberGenerator(_CurandGenerator):
    """Refused: cuRAND is not wrapped by cudyn (use curandom.rand, or CuPy's cupy.random)."""

