"""pycuda.elementwise over cudyn: ElementwiseKernel, cudyn's own
(cudyn.elementwise: the one class of that name, PyCUDA's signature)."""

from cudyn.elementwise import ElementwiseKernel, get_elwise_kernel  # noqa: F401

__all__ = ["ElementwiseKernel", "get_elwise_kernel"]
