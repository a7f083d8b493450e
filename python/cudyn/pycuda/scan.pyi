# Type stubs for cudyn.pycuda.scan: cudyn.scan under PyCUDA's name.
from cudyn.scan import ExclusiveScanKernel as ExclusiveScanKernel
from cudyn.scan import InclusiveScanKernel as InclusiveScanKernel

__all__ = ["InclusiveScanKernel", "ExclusiveScanKernel"]
