# Type stubs for cudyn.pycuda.characterize (what the current device can do).
__all__ = ["has_double_support", "has_stack", "platform_bits", "sizeof"]

def has_double_support() -> bool:
    """True: every device CUDA 12 and 13 run on computes in double precision."""
def has_stack() -> bool:
    """True: every such device has a call stack (recursion, printf)."""
def platform_bits() -> int:
    """The width of a device pointer in bits."""
def sizeof(type_name: str, preamble: str = "") -> int:
    """The size in bytes of a C type, as the device compiler lays it out (the preamble may include PyCUDA's headers)."""
