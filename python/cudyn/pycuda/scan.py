"""pycuda.scan over cudyn: cudyn.scan's InclusiveScanKernel and ExclusiveScanKernel."""

from cudyn.scan import ExclusiveScanKernel, InclusiveScanKernel  # noqa: F401

__all__ = ["InclusiveScanKernel", "ExclusiveScanKernel"]
