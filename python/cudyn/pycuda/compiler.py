"""pycuda.compiler over cudyn: SourceModule compiles with NVRTC through
cudyn's kernel cache, for the current device, as nvcc would: with nvcc's
predefined names (``uint``, ``M_PI``, ``INT_MAX``, ``malloc`` ...), the C
library's headers (``#include <math.h>``, cudyn's, in memory) and
PyCUDA's (``#include <pycuda-complex.hpp>`` finds cudyn's complex type,
``pycuda::complex<float>``, inside the default ``extern "C"`` too).

What needs nvcc (its path, keep=, cache_dir=, arch=/code=, compile() to a
CUBIN) raises :class:`cudyn.pycuda.Unsupported` naming what cudyn offers
instead."""

import cudyn
from cudyn import _codegen, _complex

from . import Unsupported
from .driver import Module

DEFAULT_NVCC_FLAGS = []


def _nvcc_options(options):
    """NVRTC's options for a text written for nvcc: nvcc's predefined names first."""
    options = list(cudyn._texts(options, "options", "['--fmad=false']"))
    return options if _codegen.NVCC_NAMES in options else [_codegen.NVCC_NAMES] + options


def _refuse(what, why):
    raise Unsupported(f"SourceModule({what}): {why}")


class SourceModule(Module):
    """CUDA C++ compiled with NVRTC (through cudyn's cache) and loaded on the
    current device.  ``options`` are NVRTC's (nvcc-only ones are refused by
    NVRTC, with its message); ``no_extern_c=True`` leaves C++ names mangled
    (get_function then takes the name NVRTC lowered them to, or use
    cudyn.SourceModule's name_expressions)."""

    def __init__(self, source, nvcc="nvcc", options=None, keep=False, no_extern_c=False, arch=None, code=None,
                 cache_dir=None, include_dirs=()):
        if nvcc != "nvcc":
            _refuse("nvcc=...", "cudyn compiles with NVRTC, never nvcc")
        if keep:
            _refuse("keep=True", "NVRTC writes no intermediate files; the PTX is module.ptx and the compiled"
                    " kernels live in cudyn's cache (CUDYN_CACHE_DIR)")
        if cache_dir not in (None, False, True):
            _refuse("cache_dir=...", "cudyn keeps compiled kernels in its own cache: set CUDYN_CACHE_DIR (or"
                    " CUDYN_CACHE=0 to disable it)")
        if arch is not None or code is not None:
            _refuse("arch=/code=", "cudyn compiles for the current device; for images for several architectures"
                    " use the cudyn-cc tool and cudyn.pycuda.driver.module_from_file")
        module = cudyn.SourceModule(source, options=_nvcc_options(options), no_extern_c=no_extern_c,
                                    include_dirs=include_dirs, headers=_complex.PYCUDA_HEADERS)
        super().__init__(module)
        self.code = source


class DynamicModule:
    """PyCUDA's linker of several sources with the device runtime: not provided."""

    def __init__(self, *args, **kwargs):
        raise Unsupported("DynamicModule links relocatable device code with nvcc and cudadevrt, which cudyn does"
                          " not use; launch the child kernels from the host, or build the image with nvcc and"
                          " load it with driver.module_from_file")


class DynamicSourceModule(DynamicModule):
    """PyCUDA's SourceModule with dynamic parallelism: not provided (see DynamicModule)."""


def compile(source, nvcc="nvcc", options=None, keep=False, no_extern_c=False, arch=None, code=None,  # noqa: A001
            cache_dir=None, include_dirs=(), target="cubin"):
    """Refused: it runs nvcc (see the message for what cudyn offers)."""
    raise Unsupported("compiler.compile runs nvcc; cudyn compiles with SourceModule (NVRTC, cached), and the"
                      " cudyn-cc tool writes CUBIN, PTX and multi-architecture images")


def get_nvcc_version(nvcc="nvcc"):
    """Refused: cudyn uses NVRTC."""
    raise Unsupported("get_nvcc_version: cudyn uses NVRTC, never nvcc (cudyn.loader_info() says which NVRTC)")
