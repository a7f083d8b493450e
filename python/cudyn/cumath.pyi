# Type stubs for cudyn.cumath (elementwise math on device arrays).
from typing import Any

from ._cudyn import DeviceArray, _StreamLike
from .gpuarray import GPUArray

__all__ = ["fabs", "ceil", "floor", "exp", "log", "log10", "sqrt", "sin", "cos", "tan", "asin", "acos", "atan",
           "sinh", "cosh", "tanh", "fmod", "ldexp", "modf", "frexp"]

# stream_or_out: PyCUDA's second positional parameter, a stream or an out array
def fabs(array: DeviceArray | Any, stream_or_out: _StreamLike | GPUArray = None, out: GPUArray | None = None,
       stream: _StreamLike = None) -> GPUArray:
    """Elementwise fabs of a device array (into out=, on stream=)."""
def ceil(array: DeviceArray | Any, stream_or_out: _StreamLike | GPUArray = None, out: GPUArray | None = None,
       stream: _StreamLike = None) -> GPUArray:
    """Elementwise ceil of a device array (into out=, on stream=)."""
def floor(array: DeviceArray | Any, stream_or_out: _StreamLike | GPUArray = None, out: GPUArray | None = None,
       stream: _StreamLike = None) -> GPUArray:
    """Elementwise floor of a device array (into out=, on stream=)."""
def exp(array: DeviceArray | Any, stream_or_out: _StreamLike | GPUArray = None, out: GPUArray | None = None,
       stream: _StreamLike = None) -> GPUArray:
    """Elementwise exp of a device array (into out=, on stream=)."""
def log(array: DeviceArray | Any, stream_or_out: _StreamLike | GPUArray = None, out: GPUArray | None = None,
       stream: _StreamLike = None) -> GPUArray:
    """Elementwise log of a device array (into out=, on stream=)."""
def log10(array: DeviceArray | Any, stream_or_out: _StreamLike | GPUArray = None, out: GPUArray | None = None,
       stream: _StreamLike = None) -> GPUArray:
    """Elementwise log10 of a device array (into out=, on stream=)."""
def sqrt(array: DeviceArray | Any, stream_or_out: _StreamLike | GPUArray = None, out: GPUArray | None = None,
       stream: _StreamLike = None) -> GPUArray:
    """Elementwise sqrt of a device array (into out=, on stream=)."""
def sin(array: DeviceArray | Any, stream_or_out: _StreamLike | GPUArray = None, out: GPUArray | None = None,
       stream: _StreamLike = None) -> GPUArray:
    """Elementwise sin of a device array (into out=, on stream=)."""
def cos(array: DeviceArray | Any, stream_or_out: _StreamLike | GPUArray = None, out: GPUArray | None = None,
       stream: _StreamLike = None) -> GPUArray:
    """Elementwise cos of a device array (into out=, on stream=)."""
def tan(array: DeviceArray | Any, stream_or_out: _StreamLike | GPUArray = None, out: GPUArray | None = None,
       stream: _StreamLike = None) -> GPUArray:
    """Elementwise tan of a device array (into out=, on stream=)."""
def asin(array: DeviceArray | Any, stream_or_out: _StreamLike | GPUArray = None, out: GPUArray | None = None,
       stream: _StreamLike = None) -> GPUArray:
    """Elementwise asin of a device array (into out=, on stream=)."""
def acos(array: DeviceArray | Any, stream_or_out: _StreamLike | GPUArray = None, out: GPUArray | None = None,
       stream: _StreamLike = None) -> GPUArray:
    """Elementwise acos of a device array (into out=, on stream=)."""
def atan(array: DeviceArray | Any, stream_or_out: _StreamLike | GPUArray = None, out: GPUArray | None = None,
       stream: _StreamLike = None) -> GPUArray:
    """Elementwise atan of a device array (into out=, on stream=)."""
def sinh(array: DeviceArray | Any, stream_or_out: _StreamLike | GPUArray = None, out: GPUArray | None = None,
       stream: _StreamLike = None) -> GPUArray:
    """Elementwise sinh of a device array (into out=, on stream=)."""
def cosh(array: DeviceArray | Any, stream_or_out: _StreamLike | GPUArray = None, out: GPUArray | None = None,
       stream: _StreamLike = None) -> GPUArray:
    """Elementwise cosh of a device array (into out=, on stream=)."""
def tanh(array: DeviceArray | Any, stream_or_out: _StreamLike | GPUArray = None, out: GPUArray | None = None,
       stream: _StreamLike = None) -> GPUArray:
    """Elementwise tanh of a device array (into out=, on stream=)."""
def fmod(arg: DeviceArray | Any, mod: DeviceArray | Any, stream: _StreamLike = None,
         out: GPUArray | None = None) -> GPUArray:
    """The remainder of arg / mod with arg's sign (C's fmod), elementwise."""
def ldexp(significand: DeviceArray | Any, exponent: DeviceArray | Any, stream: _StreamLike = None,
          out: GPUArray | None = None) -> GPUArray:
    """significand * 2**exponent, elementwise (the exponent truncated to an integer)."""
def modf(arg: DeviceArray, stream: _StreamLike = None) -> tuple[GPUArray, GPUArray]:
    """(fractional parts, integral parts), both with arg's sign."""
def frexp(arg: DeviceArray, stream: _StreamLike = None) -> tuple[GPUArray, GPUArray]:
    """(significands in [0.5, 1), int32 exponents) with arg == significand * 2**exponent."""
