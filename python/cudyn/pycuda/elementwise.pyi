# Type stubs for cudyn.pycuda.elementwise (cudyn.elementwise's ElementwiseKernel).
from cudyn.elementwise import ElementwiseKernel as ElementwiseKernel
from cudyn.elementwise import get_elwise_kernel as get_elwise_kernel

__all__ = ["ElementwiseKernel", "get_elwise_kernel"]
