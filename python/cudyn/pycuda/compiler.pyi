# Type stubs for cudyn.pycuda.compiler (pycuda.compiler over cudyn: NVRTC, never nvcc).
from typing import Any, Iterable, NoReturn, Sequence

from .driver import Module

DEFAULT_NVCC_FLAGS: list[str]

class SourceModule(Module):
    """CUDA C++ compiled with NVRTC (through cudyn's cache) and loaded on the current device."""
    code: str
    def __init__(self, source: str, nvcc: str = "nvcc", options: Sequence[str] | None = None, keep: bool = False,
                 no_extern_c: bool = False, arch: None = None, code: None = None, cache_dir: bool | None = None,
                 include_dirs: Iterable[str] = ()) -> None: ...

class DynamicModule:
    """PyCUDA's linker of several sources with the device runtime: not provided."""
    def __init__(self, *args: Any, **kwargs: Any) -> None: ...

class DynamicSourceModule(DynamicModule):
    """PyCUDA's SourceModule with dynamic parallelism: not provided (see DynamicModule)."""

def compile(source: str, nvcc: str = "nvcc", options: Sequence[str] | None = None, keep: bool = False,
            no_extern_c: bool = False, arch: str | None = None, code: str | None = None,
            cache_dir: str | bool | None = None, include_dirs: Iterable[str] = (),
            target: str = "cubin") -> NoReturn:
    """Refused: it runs nvcc (see the message for what cudyn offers)."""
def get_nvcc_version(nvcc: str = "nvcc") -> NoReturn:
    """Refused: cudyn uses NVRTC."""
