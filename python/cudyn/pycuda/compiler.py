"""pycuda.compiler over cudyn: SourceModule compiles with NVRTC through
cudyn's kernel cache, for the current device, as nvcc would: with nvcc's
predefined names (``uint``, ``M_PI``, ``INT_MAX``, ``malloc`` ...), the C
library's headers (``#include <math.h>``, cudyn's, in memory) and
PyCUDA's (``#include <pycuda-complex.hpp>`` finds cudyn's complex type,
``pycuda::complex<float>``, inside the default ``extern "C"`` too).

DynamicModule and DynamicSourceModule link relocatable device code with
cudyn's linker (nvJitLink, else the driver's) and the toolkit's
libcudadevrt.a, found at run time: dynamic parallelism works.

What needs nvcc (its path, keep= of SourceModule, cache_dir=, arch=/code=,
compile() to a CUBIN) raises :class:`cudyn.pycuda.Unsupported` naming what
cudyn offers instead."""

import os

import cudyn
from cudyn import _codegen, _complex

from . import Unsupported
from .driver import Linker, LogicError, Module, jit_input_type

DEFAULT_NVCC_FLAGS = []


def _nvcc_options(options, who="SourceModule"):
    """NVRTC's options for a text written for nvcc: nvcc's predefined names first."""
    options = list(cudyn._texts(options, "options", "['--fmad=false']", who))
    return options if _codegen.NVCC_NAMES in options else [_codegen.NVCC_NAMES] + options


def _refuse_nvcc_only(who, nvcc, cache_dir, arch, code):
    """Refuses what only nvcc does: its path, a cache directory, a target."""
    if nvcc != "nvcc":
        raise Unsupported(f"{who}(nvcc=...): cudyn compiles with NVRTC, never nvcc")
    if cache_dir not in (None, False, True):
        raise Unsupported(f"{who}(cache_dir=...): cudyn keeps compiled kernels in its own cache: set CUDYN_CACHE_DIR"
                          " (or CUDYN_CACHE=0 to disable it)")
    if arch is not None or code is not None:
        raise Unsupported(f"{who}(arch=/code=): cudyn compiles for the current device; for images for several"
                          " architectures use the cudyn-cc tool and cudyn.pycuda.driver.module_from_file")


class SourceModule(Module):
    """CUDA C++ compiled with NVRTC (through cudyn's cache) and loaded on the
    current device.  ``options`` are NVRTC's (nvcc-only ones are refused by
    NVRTC, with its message); ``no_extern_c=True`` leaves C++ names mangled
    (get_function then takes the name NVRTC lowered them to, or use
    cudyn.SourceModule's name_expressions)."""

    def __init__(self, source, nvcc="nvcc", options=None, keep=False, no_extern_c=False, arch=None, code=None,
                 cache_dir=None, include_dirs=()):
        _refuse_nvcc_only("SourceModule", nvcc, cache_dir, arch, code)
        if keep:
            raise Unsupported("SourceModule(keep=True): NVRTC writes no intermediate files; the PTX is module.ptx"
                              " and the compiled kernels live in cudyn's cache (CUDYN_CACHE_DIR)")
        module = cudyn.SourceModule(source, options=_nvcc_options(options), no_extern_c=no_extern_c,
                                    include_dirs=include_dirs, headers=_complex.PYCUDA_HEADERS)
        super().__init__(module)
        self.code = source


def _links_only(option):
    """Whether an nvcc option only links: -rdc=true (which cudyn.Linker adds
    itself) and -lLIB or --library=LIB (a library, which nvcc ignores when
    it compiles to PTX as PyCUDA asks it to); -lineinfo, which also starts
    with -l, compiles."""
    if option in ("-rdc=true", "--relocatable-device-code=true", "-dc") or option.startswith("--library="):
        return True
    return option.startswith("-l") and option != "-lineinfo"


def _rdc_options(options, include_dirs):
    """NVRTC's options for a relocatable source of DynamicModule: nvcc's
    names, PyCUDA's nvcc options less what only links, then -I for each
    include directory."""
    kept = [o for o in cudyn._texts(options, "nvcc_options", "['-rdc=true']", "DynamicModule.add_source")
            if not _links_only(o)]
    return _nvcc_options(kept, "DynamicModule.add_source") + ["-I" + d for d in include_dirs]


class DynamicModule(Module):
    """PyCUDA's DynamicModule over cudyn's linker (nvJitLink, else the
    driver's): add_source (CUDA C++ compiled by NVRTC as relocatable device
    code, as SourceModule compiles it, ``extern "C"`` unless no_extern_c),
    add_data and add_file (jit_input_type inputs), add_stdlib("cudadevrt")
    (libcudadevrt.a, which dynamic parallelism needs, found as
    cudyn.toolkit_info() says), then link(); every call but link() returns
    self.  ``link_options`` are (jit_option, value) pairs (driver.Linker).
    ``cuda_libdir`` is searched first for add_stdlib's libraries.
    ``keep=True`` is accepted and keeps nothing: NVRTC and the linker work
    in memory.  nvcc=, cache_dir= (a path) and arch=/code= are refused as
    SourceModule refuses them."""

    def __init__(self, nvcc="nvcc", link_options=None, keep=False, no_extern_c=False, arch=None, code=None,
                 cache_dir=None, include_dirs=None, message_handler=None, log_verbose=False, cuda_libdir=None):
        _refuse_nvcc_only(type(self).__name__, nvcc, cache_dir, arch, code)
        super().__init__(None)
        self.no_extern_c = no_extern_c
        self.include_dirs = list(cudyn._texts(include_dirs, "include_dirs", "['/opt/include']", type(self).__name__))
        self.cuda_libdir = cuda_libdir
        self.linker = Linker(message_handler, link_options, log_verbose)

    @property
    def module(self):
        """The linked cudyn.Module (after link())."""
        if self._module is None:
            raise LogicError(f"{type(self).__name__}: call link() before using its kernels")
        return self._module

    def _linker(self, what):
        if self.linker is None:
            raise LogicError(f"{type(self).__name__}.{what}: link() was called already")
        return self.linker

    def add_source(self, source, nvcc_options=None, name="kernel.ptx"):
        """Compiles CUDA C++ (NVRTC, as relocatable device code) and adds it."""
        linker = self._linker("add_source")
        if not self.no_extern_c:
            source = 'extern "C" {\n' + source + '\n}\n'
        linker.add_source(source, _rdc_options(nvcc_options, self.include_dirs), name, _complex.PYCUDA_HEADERS)
        return self

    def add_data(self, data, input_type, name="unknown"):
        """Adds an input in memory: a jit_input_type (CUBIN, PTX, FATBINARY, OBJECT, LIBRARY)."""
        self._linker("add_data").add_data(data, input_type, name)
        return self

    def add_file(self, filename, input_type):
        """Adds a file's contents (see add_data)."""
        self._linker("add_file").add_file(filename, input_type)
        return self

    def add_stdlib(self, libname):
        """Adds the toolkit's lib<libname>.a: cudadevrt where cudyn.toolkit_info()
        found libcudadevrt.a, others beside it (cuda_libdir first)."""
        self._linker("add_stdlib").add_file(_stdlib(libname, self.cuda_libdir), jit_input_type.LIBRARY)
        return self

    def link(self):
        """Links and loads the module on the current device; returns self."""
        self._module = self._linker("link").link_module().module
        self.linker = None
        return self


def _stdlib(libname, cuda_libdir):
    """The path of the toolkit's lib<libname>.a, or FileNotFoundError naming where cudyn looked."""
    file = f"lib{libname}.a"
    toolkit = cudyn.toolkit_info()
    places = [cuda_libdir] if cuda_libdir else []
    if toolkit["cudadevrt"]:
        places.append(os.path.dirname(toolkit["cudadevrt"]))
    for place in places:
        if os.path.isfile(os.path.join(place, file)):
            return os.path.join(place, file)
    looked = (f"{cuda_libdir} (cuda_libdir), then " if cuda_libdir else "") + \
        "the CUDA toolkit as cudyn.toolkit_info() finds it:\n  " + toolkit["trace"].strip().replace("\n", "\n  ")
    raise FileNotFoundError(f"add_stdlib({libname!r}): {file} was not found"
                            f"{' (dynamic parallelism needs it)' if libname == 'cudadevrt' else ''}; install the"
                            f" CUDA toolkit or set CUDYN_TOOLKIT to it; cudyn looked in {looked}")


class DynamicSourceModule(DynamicModule):
    """PyCUDA's SourceModule with dynamic parallelism: the source compiled as
    relocatable device code, linked with libcudadevrt.a and loaded."""

    def __init__(self, source, nvcc="nvcc", options=None, keep=False, no_extern_c=False, arch=None, code=None,
                 cache_dir=None, include_dirs=None, cuda_libdir=None):
        super().__init__(nvcc=nvcc, keep=keep, no_extern_c=no_extern_c, arch=arch, code=code, cache_dir=cache_dir,
                         include_dirs=include_dirs, cuda_libdir=cuda_libdir)
        self.add_source(source, nvcc_options=options)
        self.add_stdlib("cudadevrt")
        self.link()


def compile(source, nvcc="nvcc", options=None, keep=False, no_extern_c=False, arch=None, code=None,  # noqa: A001
            cache_dir=None, include_dirs=(), target="cubin"):
    """Refused: it runs nvcc (see the message for what cudyn offers)."""
    raise Unsupported("compiler.compile runs nvcc; cudyn compiles with SourceModule (NVRTC, cached), and the"
                      " cudyn-cc tool writes CUBIN, PTX and multi-architecture images")


def get_nvcc_version(nvcc="nvcc"):
    """Refused: cudyn uses NVRTC."""
    raise Unsupported("get_nvcc_version: cudyn uses NVRTC, never nvcc (cudyn.loader_info() says which NVRTC)")
