"""gpuarray's elementwise operations, every one: arithmetic, comparisons,
logic, maximum and minimum, unary operations, cumath's functions, where,
assignment and conversion; any dtype cudyn has a C type for (complex
numbers and structs included), operands of any layout (strided views,
Fortran order, broadcasting), scalars, and an ``out`` of another dtype
where numpy's same-kind rule allows the cast.

One route for all: the result dtype comes first, from _dtypes'
result_dtype (the one rule), then a plan (the checks, the kernel's text
from _codegen, the result's layout and the launch shape) made once per
signature of the operands (dtypes, shapes, strides, devices; the types of
scalars).  Operands that are contiguous and of one shape also find their
plan without their shape (the fast-path table), so ``2 * x`` in a loop
costs one dict lookup, one allocation from the pool and one launch.
Both tables are bounded.
"""

import numpy as np

from . import _cudyn, _dtypes, _result
from ._bounded import Bounded
from ._codegen import plan_map
from ._dtypes import ARITHMETIC, COMPARISONS, LOGICAL, ctype, result_dtype
from ._views import compact_strides, extent, is_c_contiguous, is_dense

_DeviceArray = _cudyn.DeviceArray
_device_current = _cudyn.device_current
_plans = Bounded(4096)  # signature -> _Plan
_flat = Bounded(1024)   # the fast-path table: signature without shapes -> _Plan whose loop is flat


# ------------------------------------------------------------ C text

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
    """C text that is true where ``expr`` (of dtype) is nonzero (a __half
    compared as a float: comparing it with 0 is ambiguous in CUDA C++)."""
    if dtype.kind == "c":
        return f"({expr}.re != 0 || {expr}.im != 0)"
    if dtype.char == "e":
        return f"((float)({expr}) != 0.0f)"
    return f"({expr} != 0)"


# the integer power numpy computes (exact, wrapping as its loop does; a
# negative exponent gives what C's integer division would: see
# test_dtype_rules.py's DIFFERENCES).  The products are computed in U, an
# unsigned type as wide as T and at least as wide as int (a narrower one
# would be promoted to int, whose overflow is undefined as T's is):
# unsigned arithmetic wraps, and the conversion back to T keeps T's low
# bits, numpy's wraparound.  tests/mock/mock_eval.c knows this text token
# for token (its host evaluator computes the power where it is this one).
_IPOW = """template <typename U, typename T> __device__ T cudyn_ipow(T base, T e)
{
    if (e < 0)
        return base == 1 ? 1 : base == (T)-1 ? ((e & 1) ? (T)-1 : 1) : 0;
    U b = (U)base, r = 1;
    for (; e; e >>= 1, b *= b)
        if (e & 1) r *= b;
    return (T)r;
}
"""


def ipow_text(a, b, compute):
    """The integer power of a and b in ``compute`` (an integer dtype): the
    call of _IPOW's function with its unsigned type."""
    unsigned = ctype(np.dtype(np.uint64 if compute.itemsize == 8 else np.uint32))
    return f"cudyn_ipow<{unsigned}>({a}, {b})"


def binary_text(op, a, b, dx, dy, compute):
    """The C text of op on a and b (read as dx and dy), computed in ``compute``; (text, preamble)."""
    a, b = convert(a, dx, compute), convert(b, dy, compute)
    if op in ARITHMETIC:
        return f"{a} {ARITHMETIC[op]} {b}", ""
    if op in ("pow", "fmod"):
        if compute.kind in "iu" and op == "pow":
            return ipow_text(a, b, compute), _IPOW
        if compute.kind in "iu":  # numpy's: the sign of a, 0 for a zero divisor
            return f"(({b}) == 0 ? ({ctype(compute)})0 : ({a}) % ({b}))", ""
        if compute.char == "e":  # CUDA has no __half pow or fmod: computed in float, rounded once
            return f"(__half){op}((float)({a}), (float)({b}))", ""
        return f"{op}({a}, {b})", ""
    if op in COMPARISONS:
        return f"{a} {COMPARISONS[op]} {b}", ""
    if op in LOGICAL:
        return f"{truth('x', dx)} {LOGICAL[op]} {truth('y', dy)}", ""
    pick = ">" if op == "maximum" else "<"  # NaN wins, as in numpy
    return f"(({a} {pick} {b}) || ({a} != {a})) ? ({a}) : ({b})", ""


UNARY_TEXT = {"neg": "-{x}", "pos": "{x}", "conj": "conj({x})", "real": "{x}.re", "imag": "{x}.im",
              "abs": "abs({x})", "logical_not": "!{t}"}


def unary_text(op, dtype):
    """The C text of a unary op of UNARY_TEXT on {x} of dtype."""
    if op == "abs" and dtype.kind != "c":
        if dtype.char == "e":  # __half < 0 is ambiguous: compared as a float
            return "((float)({x}) < 0.0f ? -{x} : {x})"
        return "{x}" if dtype.kind in "bu" else "({x} < 0 ? -{x} : {x})"
    if op in ("conj", "real", "imag") and dtype.kind != "c":
        return "{x}" if op != "imag" else "0"
    return UNARY_TEXT[op]


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
    if hasattr(value, "__cuda_array_interface__") or hasattr(value, "__dlpack__"):
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
    if is_c_contiguous(shape, strides, itemsize) or not is_dense(shape, strides, itemsize) or \
            extent(shape, strides, itemsize)[0] != 0:
        return None
    return compact_strides(shape, strides, dtype.itemsize)


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


def scalar_converter(kind, dtype):
    """A function making a scalar operand of Python type or numpy dtype
    ``kind`` what the kernel's parameter of ``dtype`` takes: Python numbers
    pass as they are where the launch converts them exactly (an int is
    range-checked first, as numpy 2 checks it), anything else becomes a
    numpy scalar of the dtype."""
    if dtype.kind == "V" or (isinstance(kind, np.dtype) and kind == dtype):
        return None
    if kind is int and dtype.kind in "iu":
        info = np.iinfo(dtype)
        low, high = int(info.min), int(info.max)

        def checked(value):
            if not low <= value <= high:
                raise OverflowError(f"Python integer {value} out of bounds for {dtype}")
            return value
        return checked
    if (kind in (int, bool, float) and dtype.kind == "f") or (kind is bool and dtype.kind == "b") or \
            (kind is complex and dtype.kind == "c"):
        return None
    return lambda value: _dtypes.scalar_value(value, dtype)


# ------------------------------------------------------------ plans

class _Plan:
    """An operation planned for one signature of its operands: the map
    plan, how each input is passed (None: an array; else a scalar and the
    function converting it, None for as it is), the layout of a new result,
    and the byte spans (from element 0) of a given out and of the array
    inputs, to see overlaps."""

    __slots__ = ("map", "inputs", "shape", "dtype", "strides", "spans", "arrays_only")

    def __init__(self, map_plan, inputs, shape, dtype, strides, spans):
        self.map, self.inputs, self.shape, self.dtype, self.strides = map_plan, inputs, shape, dtype, strides
        self.spans = spans
        self.arrays_only = all(converter is None for converter in inputs)  # nothing for _split to do

    def _split(self, out, operands):
        arrays, scalars = [out], []
        for operand, converter in zip(operands, self.inputs):
            if converter is None:
                arrays.append(operand)
            elif converter is True:
                scalars.append(operand)
            else:
                scalars.append(converter(operand))
        return arrays, scalars

    def run(self, out, operands, stream):
        if out is None:
            out = _result.new_array(self.shape, self.dtype, self.strides, stream)
            _result.mark_used(stream, operands)
        else:
            if self.spans:
                operands = self._apart(out, operands)
            _result.mark_used(stream, (out, *operands))
        if self.map is None:
            return out
        if self.arrays_only:
            self.map.launch((out, *operands), (), stream)
        else:
            arrays, scalars = self._split(out, operands)
            self.map.launch(arrays, scalars, stream)
        return out

    def run_flat(self, like, operands, stream, device):
        """A new result of like's shape, for a plan whose loop is flat."""
        out = _result.new_array(like.shape, self.dtype, None, stream, device)
        _result.mark_used(stream, operands)
        if self.arrays_only:
            self.map.launch_n((out, *operands), (), like.size, stream, device)
        else:
            arrays, scalars = self._split(out, operands)
            self.map.launch_n(arrays, scalars, like.size, stream, device)
        return out

    def _apart(self, out, operands):
        """The inputs, each one that shares bytes with out (other than as out
        itself, element for element) replaced by a copy: numpy's result for
        overlapping operands, whatever order the threads run in."""
        (out_low, out_high), inputs = self.spans[0], None
        out_low += out.ptr
        out_high += out.ptr
        for k, span in enumerate(self.spans[1:]):
            if span is None:
                continue
            a = operands[k]
            low, high = a.ptr + span[0], a.ptr + span[1]
            if low < out_high and out_low < high and not \
                    (a.ptr == out.ptr and a.strides == out.strides and a.shape == out.shape and a.dtype == out.dtype):
                if inputs is None:  # (copied only when one overlaps: the common case makes no list)
                    inputs = list(operands)
                inputs[k] = copy(a)
        return operands if inputs is None else inputs


def _planned(key, make, out, operands, stream):
    """Runs the plan of ``key`` (made by ``make()`` the first time)."""
    plan = _plans.get(key)
    if plan is None:
        plan = _plans.put(key, make())
    return plan.run(out, operands, stream)


def _plan(body, result, shape, out, inputs, hint, like, preamble=""):
    """A plan writing z (out, or a new array of result's dtype) from inputs:
    (name, operand, dtype it is read as)."""
    strides = None if out is not None else result_strides(shape, result, like)
    target = out if out is not None else _result.layout(shape, result, strides)  # its layout alone: no memory
    arrays, scalars, converters = [("z", target, True)], [], []
    for name, operand, dtype in inputs:
        if isinstance(operand, _DeviceArray):
            arrays.append((name, operand, False))
            converters.append(None)
        else:
            scalars.append((name, dtype))
            kind = operand.dtype if isinstance(operand, np.generic) else type(operand)
            converters.append(scalar_converter(kind, dtype) or True)
    spans = None
    if out is not None:
        spans = [extent(out.shape, out.strides, out.itemsize)] + \
            [extent(a.shape, a.strides, a.itemsize) if isinstance(a, _DeviceArray) else None for _, a, _ in inputs]
    return _Plan(plan_map(body, arrays, scalars, shape, hint, preamble), converters, shape, result, strides, spans)


# ------------------------------------------------------------ operations

def _flat_key(kind, op, operands, device):
    """The fast-path table's key: operands contiguous and of one shape (or
    scalars) need no shape in it; with the first array operand, or (None,
    None) for any other call."""
    like, key = None, [kind, op, device]
    for value in operands:
        if isinstance(value, _DeviceArray):
            if like is None:
                like = value
            elif value.shape != like.shape:
                return None, None
            if not value.is_contiguous:
                return None, None
            key.append(value.dtype)
        else:  # a scalar: tagged, so that it never matches an array of its dtype
            key.append(("scalar", value.dtype if isinstance(value, np.generic) else type(value)))
    return tuple(key), like


def _run(kind, op, operands, out, stream, make):
    """Runs an operation: the fast-path table's flat plan when the operands
    allow one and there is no out, else the plan of their signature."""
    device = _device_current()
    if out is None:
        key, like = _flat_key(kind, op, operands, device)
        if key is not None:
            plan = _flat.get(key)
            if plan is not None:
                return plan.run_flat(like, operands, stream, device)
            plan = make()
            if plan.map is not None and plan.map.flat and plan.strides is None:
                _flat.put(key, plan)
            return plan.run(None, operands, stream)
    key = (kind, op) + tuple(signature(v) for v in operands) + (signature(out) if out is not None else None, device)
    return _planned(key, make, out, operands, stream)


def binary(op, x, y, out=None, stream=None):
    """x OP y for op in _dtypes.BINARY: the arithmetic (add, sub, mul, div,
    pow, fmod), the comparisons (lt ... ge), logical_and, logical_or,
    maximum, minimum; numpy's result dtypes (_dtypes.result_dtype)."""
    return binary_operands(op, as_operand(x), as_operand(y), out, stream)


def binary_operands(op, x, y, out=None, stream=None):
    """binary() of operands that as_operand has made already (the operators')."""
    if not (isinstance(x, _DeviceArray) or isinstance(y, _DeviceArray)):
        raise TypeError("cudyn.gpuarray: one operand must be a device array")
    if op == "pow" and isinstance(y, (int, np.integer)) and not isinstance(y, (bool, np.bool_)) and y < 0 and \
            isinstance(x, _DeviceArray) and result_dtype(op, x, y)[0].kind in "iu":
        raise ValueError("Integers to negative integer powers are not allowed.")  # numpy's words
    return _run("binary", op, (x, y), out, stream, lambda: _plan_binary(op, x, y, out))


def _plan_binary(op, x, y, out):
    same_device(x, y, out)
    shape = loop_shape(x, y)
    compute, result = result_dtype(op, x, y)
    if out is not None:
        check_out(out, shape, result, op)
    dx = x.dtype if isinstance(x, _DeviceArray) else compute
    dy = y.dtype if isinstance(y, _DeviceArray) else compute
    value, preamble = binary_text(op, "x", "y", dx, dy, compute)
    body = f"z = {convert('(' + value + ')', result, out.dtype if out is not None else result)}"
    return _plan(body, result, shape, out, [("x", x, dx), ("y", y, dy)], op, (x, y), preamble)


def unary(op, x, out=None, stream=None):
    """An elementwise function of one array: op is a name of _dtypes.UNARY
    (neg, pos, abs, conj, real, imag, logical_not) or (C text of {x}, result
    dtype, kernel name hint), as cumath passes its functions."""
    x = as_operand(x)
    if not isinstance(x, _DeviceArray):
        raise TypeError(f"cudyn.gpuarray: a device array is needed, not {type(x).__name__}")
    return _run("unary", op, (x,), out, stream, lambda: _plan_unary(op, x, out))


def _plan_unary(op, x, out):
    dtype = x.dtype
    if isinstance(op, str):
        result, hint = result_dtype(op, x)[1], op
        text = unary_text(op, dtype)
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
    return _run("where", "where", operands, out, stream, lambda: _plan_where(*operands, out))


def _plan_where(condition, then, otherwise, out):
    same_device(condition, then, otherwise, out)
    shape = loop_shape(condition, then, otherwise)
    result = _dtypes.common_dtype(then, otherwise)
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


_MEMSETS: tuple = ((1, np.uint8, _cudyn.memset_d8), (2, np.uint16, _cudyn.memset_d16),
                   (4, np.uint32, _cudyn.memset_d32))


def _memset(dst, value, stream):
    """Fills a C-contiguous array of numbers with a scalar through the
    driver's memset when the value's bytes repeat every 1, 2 or 4 bytes
    (zeros, float32 and int32 values, bytes ...); False when they do not."""
    if not dst.is_contiguous or dst.dtype.kind not in "biufc" or not dst.dtype.isnative:
        return False
    raw = np.array(_dtypes.scalar_value(value, dst.dtype)).reshape(1).view(np.uint8)
    for width, word, memset in _MEMSETS:
        rows = raw.reshape(-1, width)
        if dst.itemsize % width == 0 and (rows == rows[0]).all():
            _result.mark_used(stream, (dst,))
            if dst.nbytes:
                memset(dst.ptr, int(rows[0].view(word)[0]), dst.nbytes // width, stream=stream)
            return True
    return False


def assign(dst, src, stream=None):
    """dst[...] = src: a device array (broadcast, converted to dst's dtype;
    complex to real keeps the real part, as numpy's unsafe cast) or a
    scalar (a contiguous dst whose value's bytes repeat: one memset);
    returns dst."""
    if not isinstance(src, _DeviceArray):
        src = as_operand(src)
        if not isinstance(src, _DeviceArray) and isinstance(dst, _DeviceArray) and _memset(dst, src, stream):
            return dst
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
    out = _result.new_array(x.shape, dtype, result_strides(x.shape, dtype, (x,)) if like else None, stream)
    return assign(out, x, stream)


def copy(a, stream=None):
    """A device copy: a dense layout is copied as one block and keeps its
    strides, a view with gaps becomes compact (the order of its axes kept)."""
    if is_dense(a.shape, a.strides, a.itemsize):
        low, high = extent(a.shape, a.strides, a.itemsize)
        memory = _result.allocate(max(high - low, 1), stream)
        out = _result.wrap(memory, a.shape, a.dtype, a.strides, memory.ptr - low if low else None, stream)
        if high > low:
            _cudyn.memcpy_dtod(memory.ptr, a.ptr + low, high - low, stream=stream)
        return out
    out = _result.new_array(a.shape, a.dtype, compact_strides(a.shape, a.strides, a.itemsize), stream)
    return assign(out, a, stream=stream)


def plans():
    """How many plans the two bounded tables hold (for tests)."""
    return len(_plans) + len(_flat)
