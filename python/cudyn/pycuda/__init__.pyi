# Type stubs for cudyn.pycuda (PyCUDA's modules over cudyn, and the import
# hook that answers `import pycuda` with them).
from . import characterize as characterize
from . import compiler as compiler
from . import cumath as cumath
from . import curandom as curandom
from . import driver as driver
from . import elementwise as elementwise
from . import gpuarray as gpuarray
from . import reduction as reduction
from . import scan as scan
from . import tools as tools

__all__ = ["install", "uninstall", "installed", "Unsupported", "VERSION", "VERSION_TEXT"]

VERSION: tuple[int, int, int]
VERSION_STATUS: str
VERSION_TEXT: str
MODULES: tuple[str, ...]
NOT_PROVIDED: dict[str, str]

class Unsupported(NotImplementedError):
    """A CUDA feature removed in CUDA 12, or nvcc's: the message names the modern replacement."""

def installed() -> bool:
    """Whether install() is in effect."""
def install() -> None:
    """Makes ``import pycuda`` and ``import pycuda.X`` give this layer."""
def uninstall() -> None:
    """Undoes install(): pycuda names resolve as they did before."""
