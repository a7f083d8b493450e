"""The dtypes of the kernels cudyn's Python layer writes, and the one rule
that gives every operation's result dtype.

Facts of the C side are derived from what the extension exports, never
restated: a dtype's launch character (``_cudyn._dtype_format``), each
scalar character's C spellings (``_cudyn._format_spellings``, the first
one the kernels write, C's and CUDA's other names after the library's)
and the argument limit (``_cudyn._MAX_ARGS``);
python/tests/test_format_exports.py fails when they drift.  Complex
numbers are this layer's own type (cudyn_complex<T>, _complex.py), and a
struct dtype is known by the C name registered for it.

The rule is numpy 2's: arrays and numpy scalars promote as
numpy.result_type says, Python numbers are weak (they take the array's
kind where it can hold them), and each operation keeps numpy's own
exceptions: true division and powers of integers, bool's refusals,
comparisons giving bool.  :func:`result_dtype` is the one function every
route asks, before it is chosen; python/tests/test_dtype_rules.py checks it
against numpy for every operation and pair of dtypes.
"""

import numpy as np

from . import _cudyn

#: The most parameters a kernel launch takes (CUDYN_MAX_ARGS).
MAX_PARAMS = _cudyn._MAX_ARGS
#: Every dtype the kernels compute with, in numpy's order of kinds and sizes.
NUMBERS = tuple(np.dtype(c) for c in "?bBhHiIqQefdFD")

# launch character -> every C spelling of its scalar (C's, CUDA's, the
# library's), the kernels' own first: the one table of them
_SPELLINGS = _cudyn._format_spellings()
_COMPLEX = {8: "cudyn_complex<float>", 16: "cudyn_complex<double>"}
# PyCUDA's name of this layer's complex type (pycuda-complex.hpp)
_PYCUDA_COMPLEX = {"pycuda::complex<float>": np.dtype(np.complex64), "pycuda::complex<double>": np.dtype(np.complex128)}
_registered = {}  # struct dtype -> the C name registered for it
_by_name = {}     # C name -> struct dtype


def register_dtype(dtype, name):
    """Makes the struct dtype known to generated kernels as the C type ``name``
    (whose definition the kernel's preamble gives, or CUDA's: float3 ...)."""
    dtype = np.dtype(dtype)
    _registered[dtype] = name
    _by_name[name] = dtype


def launch_code(dtype):
    """The launch-format character a value of this dtype is passed with ('f', 'D', 's' for a struct)."""
    code = _cudyn._dtype_format(np.dtype(dtype))
    if code is None:
        raise TypeError(f"cudyn: a value of dtype {np.dtype(dtype)} cannot be passed to a kernel")
    return code


def ctype(dtype):
    """The C type of a numpy dtype in generated kernels ('float', 'cudyn_complex<float>', a registered name)."""
    dtype = np.dtype(dtype)
    if not dtype.isnative:
        raise TypeError(f"cudyn: {dtype} is stored in the other byte order, which kernels do not read; convert it on"
                        " the host first (a.astype(a.dtype.newbyteorder('=')))")
    if dtype in _registered:
        return _registered[dtype]
    if dtype.kind == "c" and dtype.itemsize in _COMPLEX:
        return _COMPLEX[dtype.itemsize]
    names = _SPELLINGS.get(_cudyn._dtype_format(dtype) or "") if dtype.kind in "biuf" else None
    if not names:
        raise TypeError(f"cudyn: no C type for dtype {dtype} in generated kernels (register a struct's name with"
                        " register_dtype)")
    return names[0]


def dtype_of(name):
    """The numpy dtype of a C type name ('float', 'unsigned int', 'pycuda::complex<float>', a registered struct)."""
    name = " ".join(name.replace("const", " ").replace("volatile", " ").split())
    if name in _by_name:
        return _by_name[name]
    if name in _PYCUDA_COMPLEX:
        return _PYCUDA_COMPLEX[name]
    for dtype in NUMBERS:
        if name == ctype(dtype) or name in _SPELLINGS.get(_cudyn._dtype_format(dtype), ()):
            return dtype
    raise TypeError(f"cudyn: the C type {name!r} has no numpy dtype (register it with register_dtype)")


def real_of(dtype):
    """float32 for complex64, float64 for complex128; the dtype itself otherwise."""
    return np.dtype(np.float32) if dtype == np.complex64 else np.dtype(np.float64) if dtype == np.complex128 else dtype


# ------------------------------------------------------------ the rule

ARITHMETIC = {"add": "+", "sub": "-", "mul": "*", "div": "/"}
COMPARISONS = {"lt": "<", "le": "<=", "eq": "==", "ne": "!=", "gt": ">", "ge": ">="}
LOGICAL = {"logical_and": "&&", "logical_or": "||"}
BINARY = frozenset(ARITHMETIC) | frozenset(COMPARISONS) | frozenset(LOGICAL) | {"pow", "fmod", "maximum", "minimum"}
UNARY = frozenset({"neg", "pos", "abs", "conj", "real", "imag", "logical_not"})
_BOOL = np.dtype(np.bool_)
_INT64, _FLOAT64 = np.dtype(np.int64), np.dtype(np.float64)


def weak_result(dtype, scalar):
    """The dtype of an array of ``dtype`` combined with a scalar: a Python
    number is weak (it takes the array's kind where it can hold it), a numpy
    scalar is not."""
    if isinstance(scalar, np.generic):
        return np.result_type(dtype, scalar.dtype)
    kind = dtype.kind
    if type(scalar) is bool:
        return dtype
    if type(scalar) is int:
        return _INT64 if kind == "b" else dtype
    if type(scalar) is float:
        return dtype if kind in "fc" else _FLOAT64
    if type(scalar) is complex:
        if kind == "c":
            return dtype
        return np.dtype(np.complex64) if kind == "f" and dtype.itemsize <= 4 else np.dtype(np.complex128)
    raise TypeError(f"cudyn.gpuarray: cannot combine an array with {type(scalar).__name__}")


def common_dtype(x, y):
    """numpy's promotion of two operands: arrays (anything with a dtype and
    a shape), numpy scalars, Python numbers."""
    x_array, y_array = hasattr(x, "shape"), hasattr(y, "shape")
    if x_array and y_array:
        return np.result_type(x.dtype, y.dtype)
    if x_array:
        return weak_result(x.dtype, y)
    if y_array:
        return weak_result(y.dtype, x)
    return np.result_type(x, y)


def result_dtype(op, x, y=None):
    """(compute, result): the dtype an operation computes in and the one it
    returns, as numpy gives them, for a binary op of BINARY on x and y or a
    unary op of UNARY on x; TypeError where numpy refuses the operation."""
    if op in UNARY:
        return _unary_dtypes(op, x.dtype)
    if op not in BINARY:
        raise ValueError(f"cudyn.gpuarray: no operation {op!r}")
    compute = common_dtype(x, y)
    if op in COMPARISONS or op in LOGICAL:
        return compute, _BOOL
    if compute == _BOOL:
        if op == "sub":
            raise TypeError("numpy boolean subtract, the `-` operator, is not supported, use the bitwise_xor, the `^`"
                            " operator, or the logical_xor function instead")
        if op in ("pow", "fmod"):  # numpy's loops for these start at int8
            compute = np.dtype(np.int8)
    if op == "div" and compute.kind in "biu":
        compute = _FLOAT64
    if op == "fmod" and compute.kind == "c":
        raise TypeError(f"fmod is not defined for complex numbers ({compute})")
    return compute, compute


def _unary_dtypes(op, dtype):
    if op == "logical_not":
        return dtype, _BOOL
    if dtype == _BOOL and op in ("neg", "pos"):
        raise TypeError("numpy boolean negative and positive, the `-` and `+` operators, are not supported; use the"
                        " `~` operator or logical_not instead")
    if op in ("abs", "real", "imag"):
        return dtype, real_of(dtype)
    if op == "conj" and dtype == _BOOL:  # numpy's conjugate loops start at int8
        return dtype, np.dtype(np.int8)
    return dtype, dtype


def sum_type(dtype):
    """numpy's accumulator for sum: bool and integers widen to 64 bits, float16 sums in float32."""
    if dtype.kind == "b" or (dtype.kind == "i" and dtype.itemsize < 8):
        return _INT64
    if dtype.kind == "u" and dtype.itemsize < 8:
        return np.dtype(np.uint64)
    if dtype.char == "e":
        return np.dtype(np.float32)
    return dtype


def scalar_value(value, dtype):
    """A scalar operand as a numpy scalar of the dtype its kernel parameter
    has: a Python int that the dtype cannot hold is refused as numpy 2
    refuses it (OverflowError), complex to real keeps the real part."""
    if dtype.kind == "V":
        return value
    if type(value) is int and dtype.kind in "iu":
        info = np.iinfo(dtype)
        if not info.min <= value <= info.max:
            raise OverflowError(f"Python integer {value} out of bounds for {dtype}")
    if dtype.kind != "c" and isinstance(value, (complex, np.complexfloating)):
        value = value.real
    return dtype.type(value)
