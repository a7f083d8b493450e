"""pycuda.characterize over cudyn: what the current device can do."""

import numpy as np

import cudyn

from .compiler import SourceModule

__all__ = ["has_double_support", "has_stack", "platform_bits", "sizeof"]


def has_double_support():
    """True: every device CUDA 12 and 13 run on computes in double precision."""
    return True


def has_stack():
    """True: every such device has a call stack (recursion, printf)."""
    return True


def platform_bits():
    """The width of a device pointer in bits."""
    return 64


def sizeof(type_name, preamble=""):
    """The size in bytes of a C type, as the device compiler lays it out (one
    small kernel, compiled as SourceModule compiles: the preamble may include
    PyCUDA's headers)."""
    mod = SourceModule(preamble + "\nextern \"C\" __global__ void cudyn_sizeof(unsigned int *out)"
                       " { *out = sizeof(" + type_name + "); }", no_extern_c=True)
    out = np.zeros(1, np.uint32)
    mod.get_function("cudyn_sizeof")(cudyn.Out(out), grid=(1,), block=(1,))
    return int(out[0])
