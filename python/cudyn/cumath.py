"""Elementwise math on device arrays, as PyCUDA's ``pycuda.cumath``.

::

    from cudyn import cumath, gpuarray
    y = cumath.exp(x)                    # a new array
    cumath.sin(x, out=y, stream=s)       # into y, on stream s

Each function takes one array (any layout, real or complex where numpy's
function is defined for complex numbers) and returns a new array, or
writes ``out=`` (same shape; a dtype numpy's same-kind rule allows) on
``stream=``; the second positional argument may be either, as PyCUDA
accepts.  Integer arrays give float64, as in numpy.  float32 values of
exp, log, sin ... come from CUDA's single-precision functions (expf, logf,
sinf ...: within two units in the last place, as CUDA documents them, and
as PyCUDA and CuPy compute them), at the memory's speed; complex64 values
are computed in double precision and rounded once.  sqrt, fabs, ceil,
floor and the decompositions are exact in their own precision.
"""

import numpy as np

from . import _cudyn, _ops, _result
from ._bounded import Bounded
from ._codegen import run_map
from ._dtypes import ctype

__all__ = ["fabs", "ceil", "floor", "exp", "log", "log10", "sqrt", "sin", "cos", "tan", "asin", "acos", "atan",
           "sinh", "cosh", "tanh", "fmod", "ldexp", "modf", "frexp"]

_DeviceArray = _cudyn.DeviceArray

# CUDA's single-precision function (its name + "f") for float32
_SINGLE = {"exp", "log", "log10", "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh"}
# numpy defines these for complex numbers too (cudyn's complex type has them)
_COMPLEX = {"exp", "log", "log10", "sqrt", "sin", "cos", "tan", "sinh", "cosh", "tanh"}


def _stream_or_out(stream_or_out, out, stream):
    if stream_or_out is not None:
        if isinstance(stream_or_out, _DeviceArray):
            out = stream_or_out
        else:
            stream = stream_or_out
    return out, stream


def _text(name, dtype):
    """The C text of name({x}) for an array of dtype, and the result dtype."""
    if dtype.kind == "c":
        if name not in _COMPLEX:
            raise TypeError(f"cudyn.cumath.{name}: not defined for complex numbers ({dtype})")
        if dtype == np.complex64:
            return f"cudyn_complex<float>({name}(cudyn_complex<double>({{x}})))", dtype
        return f"{name}({{x}})", dtype
    if dtype.kind in "biu":
        return f"{name}((double){{x}})", np.dtype(np.float64)
    if dtype == np.float32 and name in _SINGLE:
        return f"{name}f({{x}})", dtype
    if dtype == np.float16:
        return f"__float2half({name}(__half2float({{x}})))", dtype
    return f"{name}({{x}})", dtype


_operations = Bounded(256)  # (name, dtype) -> what _ops.unary takes: made once, not per call


def _unary(name):
    def function(array, stream_or_out=None, out=None, stream=None):
        out, stream = _stream_or_out(stream_or_out, out, stream)
        array = _ops.as_operand(array)
        if not isinstance(array, _DeviceArray):
            raise TypeError(f"cudyn.cumath.{name}: a device array is needed, not {type(array).__name__}")
        op = _operations.get((name, array.dtype))
        if op is None:
            text, result = _text(name, array.dtype)
            op = _operations.put((name, array.dtype), (text, result, name))
        return _ops.unary(op, array, out, stream)
    function.__name__ = name
    function.__doc__ = f"Elementwise {name} of a device array (into out=, on stream=)."
    return function


fabs = _unary("fabs")
ceil = _unary("ceil")
floor = _unary("floor")
exp = _unary("exp")
log = _unary("log")
log10 = _unary("log10")
sqrt = _unary("sqrt")
sin = _unary("sin")
cos = _unary("cos")
tan = _unary("tan")
asin = _unary("asin")
acos = _unary("acos")
atan = _unary("atan")
sinh = _unary("sinh")
cosh = _unary("cosh")
tanh = _unary("tanh")


def fmod(arg, mod, stream=None, out=None):
    """The remainder of arg / mod with arg's sign (C's fmod), elementwise."""
    return _ops.binary("fmod", arg, mod, out, stream)


def ldexp(significand, exponent, stream=None, out=None):
    """significand * 2**exponent, elementwise (the exponent truncated to an integer)."""
    significand, exponent = _ops.as_operand(significand), _ops.as_operand(exponent)
    if not isinstance(significand, _DeviceArray):
        raise TypeError("cudyn.cumath.ldexp: the significand must be a device array")
    _ops.same_device(significand, exponent, out)
    shape = _ops.loop_shape(significand, exponent)
    dtype = significand.dtype if significand.dtype.kind == "f" else np.dtype(np.float64)
    if out is None:
        out = _result.new_array(shape, dtype)
    else:
        _ops.check_out(out, shape, dtype, "ldexp")
    arrays, scalars = [("z", out, True), ("x", significand, False)], []
    if isinstance(exponent, _DeviceArray):
        arrays.append(("e", exponent, False))
    else:
        scalars.append(("e", np.int32(exponent)))
    body = f"z = {_ops.convert('ldexp((' + ctype(dtype) + ')x, (int)e)', dtype, out.dtype)}"
    run_map(body, arrays, scalars, shape, stream, "ldexp")
    return out


def _pair(name, array, stream, second_dtype, body):
    array = _ops.as_operand(array)
    if not isinstance(array, _DeviceArray) or array.dtype.kind not in "biuf":
        raise TypeError(f"cudyn.cumath.{name}: a device array of real numbers is needed")
    dtype = array.dtype if array.dtype.kind == "f" else np.dtype(np.float64)
    first, second = _result.new_array(array.shape, dtype), _result.new_array(array.shape, second_dtype or dtype)
    run_map(body.format(t=ctype(dtype)), [("z", first, True), ("w", second, True), ("x", array, False)], [],
            array.shape, stream, name)
    return first, second


def modf(arg, stream=None):
    """(fractional parts, integral parts), both with arg's sign."""
    return _pair("modf", arg, stream, None, "z = modf(({t})x, &w)")


def frexp(arg, stream=None):
    """(significands in [0.5, 1), int32 exponents) with arg == significand * 2**exponent."""
    return _pair("frexp", arg, stream, np.dtype(np.int32), "int e; z = frexp(({t})x, &e); w = e")
