"""The exception of what cudyn refuses to emulate: CUDA features removed in
CUDA 12 (texture and surface references) and nvcc-only features, which
both the array layer and the PyCUDA layer (cudyn.pycuda.Unsupported)
raise, each message naming the modern replacement."""


class Unsupported(NotImplementedError):
    """What PyCUDA does with CUDA features removed in CUDA 12 (texture and
    surface references) or with nvcc itself, which cudyn does not use: the
    message names the modern replacement."""


Unsupported.__module__ = "cudyn.pycuda"  # its public name
