"""gpuarray's general elementwise operations: any dtype cudyn has a C type
for (complex numbers and structs included), operands of any layout
(strided views, Fortran order, broadcasting), scalars, and an ``out`` of
another dtype where numpy's same-kind rule allows the cast.

gpuarray.py keeps its measured fast path (cudyn's expression kernels over
contiguous real arrays of one shape) and sends everything else here; the
kernels are written by _codegen.  Each operation is planned once per
signature of its operands (dtypes, shapes, strides, devices; the types of
scalars): the checks, the result's dtype and layout, the kernel and its
launch shape; a later call with the same signature only allocates the
result and launches.
"""

import numpy as np

from . import _cudyn
from ._codegen import ctype, plan_map  # noqa: F401 (ctype: cumath's too)
from ._views import compact_strides, extent, is_dense

_DeviceArray = _cudyn.DeviceArray
_device_current = _cudyn.device_current

ARITHMETIC = {"add": "+", "sub": "-", "mul": "*", "div": "/"}
COMPARISONS = {"lt": "<", "le": "<=", "eq": "==", "ne": "!=", "gt": ">", "ge": ">="}
LOGICAL = {"logical_and": "&&", "logical_or": "||"}
_PLAN_LIMIT = 4096  # plans kept; more distinct signatures start the table afresh


# ------------------------------------------------------------ dtypes

def weak_result(dtype, scalar):
    """The dtype of an array of ``dtype`` combined with a scalar: Python
    numbers are weak (they take the array's kind where it can hold them),
    numpy scalars are not (numpy 2's rules)."""
    if isinstance(scalar, np.generic):
        return np.result_type(dtype, scalar.dtype)
    kind = dtype.kind
    if type(scalar) is bool:
        return dtype
    if type(scalar) is int:
        return np.dtype(np.int64) if kind == "b" else dtype
    if type(scalar) is float:
        return dtype if kind in "fc" else np.dtype(np.float64)
    if type(scalar) is complex:
        if kind == "c":
            return dtype
        return np.dtype(np.complex64) if kind == "f" and dtype.itemsize <= 4 else np.dtype(np.complex128)
    raise TypeError(f"cudyn.gpuarray: cannot combine an array with {type(scalar).__name__}")


def common_dtype(x, y):
    """numpy's result dtype of two operands, arrays or scalars."""
    x_array, y_array = isinstance(x, _DeviceArray), isinstance(y, _DeviceArray)
    if x_array and y_array:
        return np.result_type(x.dtype, y.dtype)
    if x_array:
        return weak_result(x.dtype, y)
    if y_array:
        return weak_result(y.dtype, x)
    return np.result_type(x, y)


def real_of(dtype):
    """float32 for complex64, float64 for complex128; the dtype itself otherwise."""
    return np.dtype(np.float32) if dtype == np.complex64 else np.dtype(np.float64) if dtype == np.complex128 else dtype


def convert(expr, source, target):
    """C text converting ``expr`` from one dtype's C type to another's
    (complex to real keeps the real part, as numpy's unsafe cast)."""
    if source == target:
        return expr
    t = ctype(target)
    if target.kind == "c":
        return f"{t}({expr})"
    if source.kind == "c":
        expr = f"({expr}).re"
    return f"({t})({expr})"


def truth(expr, dtype):
    """C text that is true where ``expr`` (of dtype) is nonzero."""
    if dtype.kind == "c":
        return f"({expr}.re != 0 || {expr}.im != 0)"
    return f"({expr} != 0)"


# ------------------------------------------------------------ operands and results

def as_operand(value):
    """A device array, or a scalar (numpy scalar or Python number) as given;
    a 0-d numpy array is its scalar; a host array is refused."""
    if isinstance(value, _DeviceArray):
        return value
    if isinstance(value, np.ndarray):
        if value.ndim == 0:
            return value[()]
        raise TypeError("cudyn.gpuarray: a numpy array is host memory; copy it to the device first"
                        " (cudyn.gpuarray.to_gpu)")
    if isinstance(value, (np.generic, bool, int, float, complex)):
        return value
    if hasattr(value, "__cuda_array_interface__"):
        return _cudyn.asarray(value)
    raise TypeError(f"cudyn.gpuarray: cannot combine an array with {type(value).__name__}")


def signature(value):
    """What a plan depends on: an array's layout and device, a scalar's type."""
    if isinstance(value, _DeviceArray):
        return (value.dtype, value.shape, value.strides, value.device)
    if isinstance(value, np.generic):
        return value.dtype
    return type(value)


def loop_shape(*operands):
    """The broadcast shape of the array operands (numpy's rules)."""
    shapes = [a.shape for a in operands if isinstance(a, _DeviceArray)]
    try:
        return tuple(np.broadcast_shapes(*shapes))
    except ValueError:
        raise ValueError("cudyn.gpuarray: shapes " + " and ".join(str(s) for s in shapes) + " do not broadcast")


def same_device(*operands):
    devices = {a.device for a in operands if isinstance(a, _DeviceArray)}
    if len(devices) > 1:
        raise ValueError(f"cudyn.gpuarray: operands on devices {sorted(devices)} (copy them to one device first)")


def result_strides(shape, dtype, like=()):
    """The strides of a result: the memory order its same-shaped dense
    operands share (Fortran order stays Fortran order), else None (C order)."""
    layouts = {(a.strides, a.itemsize) for a in like if isinstance(a, _DeviceArray) and a.shape == shape and
               a.size > 1}
    if len(layouts) != 1:
        return None
    strides, itemsize = layouts.pop()
    if _views_c_contiguous(shape, strides, itemsize) or not is_dense(shape, strides, itemsize) or \
            extent(shape, strides, itemsize)[0] != 0:
        return None
    return compact_strides(shape, strides, dtype.itemsize)


def _views_c_contiguous(shape, strides, itemsize):
    from ._views import is_c_contiguous
    return is_c_contiguous(shape, strides, itemsize)


_gpuarray = None  # cudyn.gpuarray, imported on first use (it imports this module)


def new_array(shape, dtype, strides=None):
    """An uninitialised result array (from gpuarray's pool)."""
    global _gpuarray
    if _gpuarray is None:
        from . import gpuarray as _gpuarray
    count = 1
    for n in shape:
        count *= n
    nbytes = count * dtype.itemsize
    if not nbytes:
        return _DeviceArray.__new__(_gpuarray.GPUArray, shape, dtype, strides)
    return _DeviceArray.__new__(_gpuarray.GPUArray, shape, dtype, strides, _gpuarray._allocate(nbytes))


def check_out(out, shape, dtype, what):
    """``out`` must have the result's shape, and its dtype must take the
    result's under numpy's same-kind rule (float64 into float32 yes, float
    into int no)."""
    if not isinstance(out, _DeviceArray):
        raise TypeError(f"cudyn.gpuarray.{what}: out must be a device array, not {type(out).__name__}")
    if out.shape != shape:
        raise ValueError(f"cudyn.gpuarray.{what}: out has shape {out.shape}, the result {shape}")
    if not np.can_cast(dtype, out.dtype, "same_kind"):
        raise TypeError(f"cudyn.gpuarray.{what}: cannot write a {dtype} result into an array of {out.dtype}"
                        " (numpy's same-kind rule)")


def scalar_converter(dtype):
    """A function making a numpy scalar of dtype from a scalar operand."""
    if dtype.kind == "V":
        return lambda value: value
    if dtype.kind != "c":
        def real_part(value, make=dtype.type):
            return make(value.real if isinstance(value, (complex, np.complexfloating)) else value)
        return real_part
    return dtype.type


# ------------------------------------------------------------ plans

class _Plan:
    """An operation planned for one signature of its operands: the map
    plan, how each input is passed (as an array, or a scalar converted to
    its dtype), the layout of a new result, and the byte spans (from
    element 0) of a given out and of the array inputs, to see overlaps."""

    __slots__ = ("map", "inputs", "shape", "dtype", "strides", "spans")

    def __init__(self, map_plan, inputs, shape, dtype, strides, spans):
        self.map, self.inputs, self.shape, self.dtype, self.strides = map_plan, inputs, shape, dtype, strides
        self.spans = spans

    def run(self, out, operands, stream):
        if out is None:
            out = new_array(self.shape, self.dtype, self.strides)
        elif self.spans:
            operands = self._apart(out, operands)
        if self.map is not None:
            arrays, scalars = [out], []
            for operand, converter in zip(operands, self.inputs):
                if converter is None:
                    arrays.append(operand)
                else:
                    scalars.append(converter(operand))
            self.map.launch(arrays, scalars, stream)
        return out

    def _apart(self, out, operands):
        """The inputs, each one that shares bytes with out (other than as out
        itself, element for element) replaced by a copy: numpy's result for
        overlapping operands, whatever order the threads run in."""
        (out_low, out_high), inputs = self.spans[0], list(operands)
        for k, span in enumerate(self.spans[1:]):
            if span is None:
                continue
            a = inputs[k]
            low, high = a.ptr + span[0], a.ptr + span[1]
            if low < out.ptr + out_high and out.ptr + out_low < high and not \
                    (a.ptr == out.ptr and a.strides == out.strides and a.shape == out.shape and a.dtype == out.dtype):
                from ._strided import copy
                inputs[k] = copy(a)
        return inputs


_plans = {}


def _planned(key, make, out, operands, stream):
    """Runs the plan of ``key`` (made by ``make()`` the first time)."""
    plan = _plans.get(key)
    if plan is None:
        if len(_plans) >= _PLAN_LIMIT:
            _plans.clear()
        plan = _plans[key] = make()
    return plan.run(out, operands, stream)


def _plan(body, result, shape, out, inputs, hint, like):
    """A plan writing z (out, or a new array of result's dtype) from inputs:
    (name, operand, dtype it is read as)."""
    strides = None if out is not None else result_strides(shape, result, like)
    target = out if out is not None else new_array(shape, result, strides)  # its layout, for planning
    arrays, scalars, converters = [("z", target, True)], [], []
    for name, operand, dtype in inputs:
        if isinstance(operand, _DeviceArray):
            arrays.append((name, operand, False))
            converters.append(None)
        else:
            scalars.append((name, dtype))
            converters.append(scalar_converter(dtype))
    spans = None
    if out is not None:
        spans = [extent(out.shape, out.strides, out.itemsize)] + \
            [extent(a.shape, a.strides, a.itemsize) if isinstance(a, _DeviceArray) else None for _, a, _ in inputs]
    return _Plan(plan_map(body, arrays, scalars, shape, hint), converters, shape, result, strides, spans)


# ------------------------------------------------------------ operations

def binary(op, x, y, out=None, stream=None):
    """x OP y for op in add, sub, mul, div, pow, the comparisons (lt ... ge),
    logical_and, logical_or, maximum, minimum, fmod; numpy's result dtypes
    (bool for comparisons and logic, float64 for integer division and
    powers)."""
    x, y = as_operand(x), as_operand(y)
    key = ("binary", op, signature(x), signature(y), signature(out) if out is not None else None,
           _device_current())
    return _planned(key, lambda: _plan_binary(op, x, y, out), out, (x, y), stream)


def _plan_binary(op, x, y, out):
    same_device(x, y, out)
    shape = loop_shape(x, y)
    compute = common_dtype(x, y)
    if op in ("div", "pow", "fmod") and compute.kind in "biu":
        compute = np.dtype(np.float64)
    result = np.dtype(np.bool_) if op in COMPARISONS or op in LOGICAL else compute
    if out is not None:
        check_out(out, shape, result, op)
    dx = x.dtype if isinstance(x, _DeviceArray) else compute
    dy = y.dtype if isinstance(y, _DeviceArray) else compute
    a, b = convert("x", dx, compute), convert("y", dy, compute)
    if op in ARITHMETIC:
        value = f"{a} {ARITHMETIC[op]} {b}"
    elif op in ("pow", "fmod"):
        value = f"{op}({a}, {b})"
    elif op in COMPARISONS:
        value = f"{a} {COMPARISONS[op]} {b}"
    elif op in LOGICAL:
        value = f"{truth('x', dx)} {LOGICAL[op]} {truth('y', dy)}"
    elif op in ("maximum", "minimum"):
        pick = ">" if op == "maximum" else "<"  # NaN wins, as in numpy
        value = f"(({a} {pick} {b}) || ({a} != {a})) ? ({a}) : ({b})"
    else:
        raise ValueError(f"cudyn.gpuarray: no operation {op!r}")
    body = f"z = {convert('(' + value + ')', result, out.dtype if out is not None else result)}"
    return _plan(body, result, shape, out, [("x", x, dx), ("y", y, dy)], op, (x, y))


UNARY = {
    "neg": ("-{x}", None), "pos": ("{x}", None), "conj": ("conj({x})", None), "real": ("{x}.re", "real"),
    "imag": ("{x}.im", "real"), "abs": ("abs({x})", "real"), "logical_not": ("!{t}", "bool"),
}


def unary(op, x, out=None, stream=None):
    """An elementwise function of one array: op is a name of UNARY (neg,
    pos, conj, real, imag, abs, logical_not) or (C text of {x}, result
    dtype, kernel name hint), as cumath passes its functions."""
    x = as_operand(x)
    if not isinstance(x, _DeviceArray):
        raise TypeError(f"cudyn.gpuarray: a device array is needed, not {type(x).__name__}")
    key = ("unary", op, signature(x), signature(out) if out is not None else None, _device_current())
    return _planned(key, lambda: _plan_unary(op, x, out), out, (x,), stream)


def _plan_unary(op, x, out):
    dtype = x.dtype
    if isinstance(op, str):
        text, kind = UNARY[op]
        if op == "abs" and dtype.kind != "c":
            text, kind = "({x} < 0 ? -{x} : {x})", None
        if op in ("conj", "real", "imag") and dtype.kind != "c":
            text = "{x}" if op != "imag" else "0"
        result, hint = {None: dtype, "real": real_of(dtype), "bool": np.dtype(np.bool_)}[kind], op
    else:
        text, result, hint = op
    result = np.dtype(result)
    if out is not None:
        same_device(x, out)
        check_out(out, x.shape, result, hint)
    value = text.format(x="x", t=truth("x", dtype))
    body = f"z = {convert('(' + value + ')', result, out.dtype if out is not None else result)}"
    return _plan(body, result, x.shape, out, [("x", x, dtype)], hint, (x,))


def where(condition, then, otherwise, out=None, stream=None):
    """then where condition is nonzero, otherwise elsewhere (numpy.where)."""
    operands = (as_operand(condition), as_operand(then), as_operand(otherwise))
    key = ("where",) + tuple(signature(v) for v in operands) + (signature(out) if out is not None else None,
                                                               _device_current())
    return _planned(key, lambda: _plan_where(*operands, out), out, operands, stream)


def _plan_where(condition, then, otherwise, out):
    same_device(condition, then, otherwise, out)
    shape = loop_shape(condition, then, otherwise)
    result = common_dtype(then, otherwise)
    if out is not None:
        check_out(out, shape, result, "where")

    def read_as(v, fallback):
        return v.dtype if isinstance(v, _DeviceArray) else fallback
    dc = read_as(condition, np.dtype(np.bool_) if isinstance(condition, bool) else np.asarray(condition).dtype)
    dt, de = read_as(then, result), read_as(otherwise, result)
    value = f"{truth('c', dc)} ? {convert('x', dt, result)} : {convert('y', de, result)}"
    body = f"z = {convert('(' + value + ')', result, out.dtype if out is not None else result)}"
    return _plan(body, result, shape, out, [("c", condition, dc), ("x", then, dt), ("y", otherwise, de)], "where",
                 (then, otherwise))


def assign(dst, src, stream=None):
    """dst[...] = src: a device array (broadcast, converted to dst's dtype;
    complex to real keeps the real part, as numpy's unsafe cast) or a
    scalar; returns dst."""
    src = as_operand(src)
    key = ("assign", signature(dst), signature(src), _device_current())
    return _planned(key, lambda: _plan_assign(dst, src), dst, (src,), stream)


def _plan_assign(dst, src):
    same_device(dst, src)
    if isinstance(src, _DeviceArray):
        loop_shape(dst, src)  # src must broadcast to dst
        if len(src.shape) > len(dst.shape):
            raise ValueError(f"cudyn.gpuarray: shape {src.shape} does not broadcast to {dst.shape}")
        body = f"z = {convert('x', src.dtype, dst.dtype)}"
        return _plan(body, dst.dtype, dst.shape, dst, [("x", src, src.dtype)], "copy", ())
    return _plan("z = x", dst.dtype, dst.shape, dst, [("x", src, dst.dtype)], "fill", ())


def astype(x, dtype, stream=None, like=True):
    """A new array of dtype with x's values (dense layouts kept when like)."""
    dtype = np.dtype(dtype)
    out = new_array(x.shape, dtype, result_strides(x.shape, dtype, (x,)) if like else None)
    return assign(out, x, stream)
