# Type stubs for cudyn.pycuda.compiler (pycuda.compiler over cudyn: NVRTC and cudyn's linker, never nvcc).
from typing import Iterable, NoReturn, Sequence

from typing_extensions import Self

import cudyn

from .driver import Linker, Module, _JitOptions, _MessageHandler

DEFAULT_NVCC_FLAGS: list[str]

class SourceModule(Module):
    """CUDA C++ compiled with NVRTC (through cudyn's cache) and loaded on the current device."""
    code: str
    def __init__(self, source: str, nvcc: str = "nvcc", options: Sequence[str] | None = None, keep: bool = False,
                 no_extern_c: bool = False, arch: None = None, code: None = None, cache_dir: bool | None = None,
                 include_dirs: Iterable[str] = ()) -> None: ...

class DynamicModule(Module):
    """PyCUDA's DynamicModule over cudyn's linker: add_source, add_data, add_file, add_stdlib, link."""
    no_extern_c: bool
    include_dirs: list[str]
    cuda_libdir: str | None
    linker: Linker | None
    def __init__(self, nvcc: str = "nvcc", link_options: _JitOptions = None, keep: bool = False,
                 no_extern_c: bool = False, arch: None = None, code: None = None, cache_dir: bool | None = None,
                 include_dirs: Iterable[str] | None = None, message_handler: _MessageHandler | None = None,
                 log_verbose: bool = False, cuda_libdir: str | None = None) -> None: ...
    @property
    def module(self) -> cudyn.Module:
        """The linked cudyn.Module (after link())."""
    def add_source(self, source: str, nvcc_options: Sequence[str] | None = None, name: str = "kernel.ptx") -> Self:
        """Compiles CUDA C++ (NVRTC, as relocatable device code) and adds it."""
    def add_data(self, data: bytes | bytearray | memoryview | str, input_type: int, name: str = "unknown") -> Self:
        """Adds an input in memory: a jit_input_type (CUBIN, PTX, FATBINARY, OBJECT, LIBRARY)."""
    def add_file(self, filename: str, input_type: int) -> Self:
        """Adds a file's contents (see add_data)."""
    def add_stdlib(self, libname: str) -> Self:
        """Adds the toolkit's lib<libname>.a (cudadevrt where cudyn.toolkit_info() found it)."""
    def link(self) -> Self:
        """Links and loads the module on the current device; returns self."""

class DynamicSourceModule(DynamicModule):
    """PyCUDA's SourceModule with dynamic parallelism: relocatable device code linked with libcudadevrt.a."""
    def __init__(self, source: str, nvcc: str = "nvcc", options: Sequence[str] | None = None, keep: bool = False,
                 no_extern_c: bool = False, arch: None = None, code: None = None, cache_dir: bool | None = None,
                 include_dirs: Iterable[str] | None = None, cuda_libdir: str | None = None) -> None: ...

def compile(source: str, nvcc: str = "nvcc", options: Sequence[str] | None = None, keep: bool = False,
            no_extern_c: bool = False, arch: str | None = None, code: str | None = None,
            cache_dir: str | bool | None = None, include_dirs: Iterable[str] = (),
            target: str = "cubin") -> NoReturn:
    """Refused: it runs nvcc (see the message for what cudyn offers)."""
def get_nvcc_version(nvcc: str = "nvcc") -> NoReturn:
    """Refused: cudyn uses NVRTC."""
