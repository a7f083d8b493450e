"""pycuda.curandom over cudyn: rand() from cudyn.curandom (a counter-based
generator written for cudyn).  cuRAND's generators are not wrapped: cudyn
links no CUDA library but the driver and NVRTC, so get_curand_version()
is None (PyCUDA's tests skip what needs them) and making one raises
:class:`cudyn.pycuda.Unsupported`."""

from cudyn.curandom import rand, seed_getter_uniform, seed_getter_unique  # noqa: F401

from . import Unsupported

__all__ = ["rand", "get_curand_version", "seed_getter_uniform", "seed_getter_unique"]


def get_curand_version():
    """None: cuRAND is not wrapped (see the module's note)."""
    return None


class _CurandGenerator:
    def __init__(self, *args, **kwargs):
        raise Unsupported(f"{type(self).__name__}: cuRAND is not wrapped by cudyn (it links no CUDA library);"
                          " use curandom.rand for uniform numbers, or CuPy's cupy.random, which takes cudyn's"
                          " arrays through DLPack")


class XORWOWRandomNumberGenerator(_CurandGenerator):
    pass


class MRG32k3aRandomNumberGenerator(_CurandGenerator):
    pass


class Sobol32RandomNumberGenerator(_CurandGenerator):
    pass


class ScrambledSobol32RandomNumberGenerator(_CurandGenerator):
    pass


class Sobol64RandomNumberGenerator(_CurandGenerator):
    pass


class ScrambledSobol64RandomNumberGenerator(_CurandGenerator):
    pass
