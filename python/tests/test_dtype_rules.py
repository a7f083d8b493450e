"""One dtype rule for every operation, computed before a route is chosen
(cudyn._dtypes.result_dtype), against numpy's: every operator, every pair
of the dtypes device arrays compute with (bool and complex included), and
Python scalars (weak, numpy 2's rule) and numpy scalars on either side.

On the host, without a launch: the dtype, and numpy's refusals (TypeError)
where numpy refuses.  On the mock: the plans (route, kernel text, launch
format, parameter count), and that ``x + 2`` and ``x * True`` on bool
arrays, contiguous and strided, reach the launch (the bool cases of issue
42).  On a GPU (test_every_operation_and_pair_numerically): the same
matrix computed, against numpy's values.

The reference is numpy itself, run on host arrays: numpy 2's promotion,
or numpy 1.24's with the state numpy 2 made the default (weak Python
scalars).  Intended differences, each with its reason, are DIFFERENCES.
"""

import contextlib
import os
import subprocess
import sys
import warnings

import numpy as np
import pytest

import cudyn
from cudyn import _codegen, _dtypes, _ops

pytestmark = pytest.mark.mock

DTYPES = [np.dtype(c) for c in "?bBhHiIqQefdFD"]
BINARY = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.true_divide, "pow": np.power,
          "fmod": np.fmod, "maximum": np.maximum, "minimum": np.minimum, "lt": np.less, "le": np.less_equal,
          "eq": np.equal, "ne": np.not_equal, "gt": np.greater, "ge": np.greater_equal,
          "logical_and": np.logical_and, "logical_or": np.logical_or}
UNARY = {"neg": np.negative, "pos": np.positive, "abs": np.absolute, "logical_not": np.logical_not,
         "conj": np.conjugate, "real": np.real, "imag": np.imag}
SCALARS = [True, 2, 2.5, 2j, np.float32(2), np.int8(2), np.float64(2), np.complex64(2), np.uint64(2), np.bool_(True)]

# What cudyn does differently from numpy on purpose, and why.
DIFFERENCES = {
    # numpy 1.x copies a bool array for unary + (a DeprecationWarning: "in the
    # future this will error"); numpy 2 and cudyn refuse it (TypeError)
    ("pos", "?"): "numpy 2's refusal, which numpy 1.x announces",
}
# Values (not dtypes) where a kernel cannot do what numpy does: an integer
# raised to a negative integer power from an array exponent gives C's
# integer result (0, or 1 and -1 for bases 1 and -1) where numpy raises
# ValueError (a scalar exponent is refused as numpy refuses it); a kernel
# cannot raise.


@contextlib.contextmanager
def numpy2_promotion():
    """numpy 2's promotion of Python scalars (weak), on numpy 1.24 too."""
    if int(np.__version__.split(".")[0]) >= 2:
        yield
        return
    if not hasattr(np, "_set_promotion_state"):
        pytest.skip(f"numpy {np.__version__} has not numpy 2's promotion")
    state = np._get_promotion_state()
    np._set_promotion_state("weak")
    try:
        yield
    finally:
        np._set_promotion_state(state)


def reference(function, *operands):
    """numpy's result dtype of function on operands (dtypes stand for
    one-element arrays of ones), or TypeError where numpy refuses."""
    values = [np.ones(1, o) if isinstance(o, np.dtype) else o for o in operands]
    with numpy2_promotion(), warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)
        warnings.simplefilter("ignore", RuntimeWarning)
        try:
            return function(*values).dtype
        except (TypeError, DeprecationWarning):
            return TypeError


class Array:
    """What result_dtype asks of an array operand: its dtype and shape."""

    def __init__(self, dtype):
        self.dtype, self.shape = dtype, (1,)


def ours(op, *operands):
    arrays = [Array(o) if isinstance(o, np.dtype) else o for o in operands]
    try:
        return _dtypes.result_dtype(op, *arrays)[1]
    except TypeError:
        return TypeError


@pytest.mark.parametrize("op", sorted(BINARY))
def test_every_pair_of_dtypes(op):
    wrong = []
    for x in DTYPES:
        for y in DTYPES:
            want, got = reference(BINARY[op], x, y), ours(op, x, y)
            if got != want:
                wrong.append(f"{x} {op} {y}: cudyn {got}, numpy {want}")
    assert not wrong, "\n".join(wrong)


@pytest.mark.parametrize("op", sorted(BINARY))
def test_every_dtype_with_python_and_numpy_scalars(op):
    wrong = []
    for x in DTYPES:
        for s in SCALARS:
            for pair in ((x, s), (s, x)):
                want, got = reference(BINARY[op], *pair), ours(op, *pair)
                if got != want:
                    wrong.append(f"{pair[0]!r} {op} {pair[1]!r}: cudyn {got}, numpy {want}")
    assert not wrong, "\n".join(wrong)


def test_every_unary_operation():
    wrong = []
    for op, function in UNARY.items():
        for x in DTYPES:
            want, got = reference(function, x), ours(op, x)
            if (op, x.char) in DIFFERENCES:
                assert got is TypeError, (op, x)
                continue
            if got != want:
                wrong.append(f"{op} {x}: cudyn {got}, numpy {want}")
    assert not wrong, "\n".join(wrong)


def test_the_bool_cases_of_issue_42():
    b = np.dtype(np.bool_)
    assert ours("add", b, 2) == np.int64 and ours("add", 2, b) == np.int64
    assert ours("mul", b, True) == np.bool_ and ours("mul", True, b) == np.bool_
    assert ours("sub", b, True) is TypeError and ours("neg", b) is TypeError


def test_python_integers_out_of_range_are_refused_as_numpy_2_refuses_them():
    assert _dtypes.scalar_value(127, np.dtype(np.int8)) == 127
    for value, dtype in ((300, np.int8), (-1, np.uint8), (1 << 64, np.uint64)):
        with pytest.raises(OverflowError):
            _dtypes.scalar_value(value, np.dtype(dtype))
    converter = _ops.scalar_converter(int, np.dtype(np.int16))
    assert converter(-32768) == -32768
    with pytest.raises(OverflowError):
        converter(40000)


# ------------------------------------------------------------ plans on the mock

@pytest.fixture
def ga():
    from cudyn import gpuarray
    return gpuarray


def plan_of(op, x, y):
    return _ops._plan_binary(op, _ops.as_operand(x), _ops.as_operand(y), None)


def test_plans_name_their_dtype_route_text_format_and_parameters(ga):
    x = ga.to_gpu(np.arange(8, dtype=np.float32))
    i = ga.to_gpu(np.arange(8, dtype=np.int16))
    plan = plan_of("add", x, 2)
    assert plan.dtype == np.float32 and plan.map.flat and plan.map.count == 4
    assert plan.map.format == "ppfQ" and "z = (x + y)" in plan.map.source
    assert "float *__restrict__ cudyn_p_z" in plan.map.source and "uint4" in plan.map.source  # 16-byte vectors
    plan = plan_of("div", i, i)
    assert plan.dtype == np.float64 and plan.map.format == "pppQ"
    assert "(double)(x) / (double)(y)" in plan.map.source
    plan = plan_of("pow", i, 3)
    assert plan.dtype == np.int16 and "cudyn_ipow" in plan.map.source and plan.map.format == "pphQ"
    # the integer power multiplies in an unsigned type as wide as int or
    # wider (signed overflow is undefined in C++; unsigned wraps as numpy's
    # power does), and converts back
    assert "cudyn_ipow<unsigned int>(" in plan.map.source
    assert "U b = (U)base, r = 1;" in plan.map.source and "return (T)r;" in plan.map.source
    assert "base *= base" not in plan.map.source
    wide = plan_of("pow", ga.to_gpu(np.arange(8, dtype=np.int64)), ga.to_gpu(np.arange(8, dtype=np.uint8)))
    assert wide.dtype == np.int64 and "cudyn_ipow<unsigned long long>(" in wide.map.source
    plan = plan_of("add", x[::2], 2)  # a strided operand: the strided loop, one thread per element
    assert not plan.map.flat and plan.map.format == "ppfQQq" and plan.map.count == 6
    assert "cudyn_o_x" in plan.map.source and plan.map.grid == (1,)
    # complex numbers: the text and format alone (the mock NVRTC cannot read
    # the complex type's templates; test_pycuda.py compiles them with the real one)
    c = ga.to_gpu(np.zeros(4, np.complex64))
    assert _dtypes.result_dtype("lt", c, 1j) == (np.complex64, np.bool_)
    operands = (("z", "bool", "flat", True, 1), ("x", "cudyn_complex<float>", "flat", False, 8))
    source, name = _codegen.map_source("z = ((x < y))", operands, (("y", "cudyn_complex<float>"),), 0, "", "lt")
    assert _codegen.map_format(operands, (("y", "cudyn_complex<float>"),), 0) == "ppFQ"
    assert "template <typename T> struct __align__(2 * sizeof(T)) cudyn_complex" in source and name in source


def test_half_precision_texts_compile_where_cuda_has_no_half_overload():
    # found by the GPU matrix: CUDA C++ has no pow or fmod of __half, and
    # `__half != 0` is ambiguous; the mock NVRTC reads no bodies, so the
    # texts are checked here and compiled on a GPU
    h = np.dtype(np.float16)
    for op in ("pow", "fmod"):
        text, _ = _ops.binary_text(op, "x", "y", h, h, h)
        assert text == f"(__half){op}((float)(x), (float)(y))"
    text, _ = _ops.binary_text("logical_and", "x", "y", h, np.dtype(np.int8), np.dtype(np.int8))
    assert text == "((float)(x) != 0.0f) && (y != 0)"
    assert _ops.unary_text("abs", h) == "((float)({x}) < 0.0f ? -{x} : {x})"


def test_contiguous_operands_find_their_plan_without_their_shape(ga):
    _ops._flat.clear()
    for n in (3, 5, 1000):
        x = ga.to_gpu(np.arange(n, dtype=np.float32))
        assert ((2 * x).get() == 2 * np.arange(n, dtype=np.float32)).all()
    assert sum(1 for key in _ops._flat if key[1] == "mul") == 1


@pytest.mark.parametrize("strided", [False, True])
def test_the_bool_cases_give_numpys_values(ga, strided):
    # the mock's host evaluator runs these kernels (tests/mock/mock_eval.c)
    host = np.array([True, False, True, True])
    b = ga.to_gpu(host)
    x, xs = (b[::2], host[::2]) if strided else (b, host)
    for op, scalar, dtype in (("add", 2, np.int64), ("mul", True, np.bool_), ("sub", 1, np.int64)):
        assert plan_of(op, x, scalar).dtype == dtype
        run = {"add": lambda a: a + scalar, "mul": lambda a: a * scalar, "sub": lambda a: a - scalar}[op]
        got, want = run(x), run(xs)
        assert got.dtype == want.dtype == dtype
        np.testing.assert_array_equal(got.get(), want)


def test_refusals_come_before_any_launch(ga):
    b = ga.to_gpu(np.array([True, False]))
    i = ga.to_gpu(np.arange(4, dtype=np.int8))
    with pytest.raises(TypeError):
        b - True
    with pytest.raises(TypeError):
        -b
    with pytest.raises(OverflowError):
        i + 300
    with pytest.raises(ValueError, match="negative integer powers"):
        i ** -1
    with pytest.raises(TypeError):
        i += 1.5  # a float64 result into int8 in place: numpy's same-kind rule


# ------------------------------------------------------------ on a GPU

@pytest.mark.gpu
def test_every_operation_and_pair_numerically(real_gpu):
    # about 8000 kernels, each compiled by NVRTC at its first use: the
    # operations are shared out among as many interpreters as there are
    # processors, run at once
    from conftest import child_env
    operations = tuple(BINARY)  # GPU_MATRIX's OPS, which checks it has no other
    shards = max(1, min(len(operations), os.cpu_count() or 1))
    children = [subprocess.Popen([sys.executable, "-c", GPU_MATRIX, ",".join(operations[i::shards])],
                                 env=child_env(mock=False), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                 universal_newlines=True) for i in range(shards)]
    for child in children:
        out, err = child.communicate(timeout=900)
        assert child.returncode == 0, out[-3000:] + err[-3000:]
        assert out.split()[-1] == "ok", out[-3000:]


GPU_MATRIX = """
import sys
import warnings
import numpy as np
from cudyn import gpuarray as ga
if int(np.__version__.split(".")[0]) < 2:
    np._set_promotion_state("weak")
warnings.simplefilter("ignore", RuntimeWarning)
DTYPES = [np.dtype(c) for c in "?bBhHiIqQefdFD"]
OPS = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.true_divide, "pow": np.power,
       "fmod": np.fmod, "maximum": np.maximum, "minimum": np.minimum, "lt": np.less, "le": np.less_equal,
       "eq": np.equal, "ne": np.not_equal, "gt": np.greater, "ge": np.greater_equal,
       "logical_and": np.logical_and, "logical_or": np.logical_or}
wanted = sys.argv[1].split(",")  # the operations this interpreter checks
assert set(OPS) == set(""" + repr(tuple(BINARY)) + """), "OPS and BINARY differ"
assert set(wanted) <= set(OPS), wanted
OPS = {name: f for name, f in OPS.items() if name in wanted}
CALLS = {"add": lambda a, b: a + b, "sub": lambda a, b: a - b, "mul": lambda a, b: a * b,
         "div": lambda a, b: a / b, "pow": lambda a, b: a ** b, "lt": lambda a, b: a < b,
         "le": lambda a, b: a <= b, "eq": lambda a, b: a == b, "ne": lambda a, b: a != b,
         "gt": lambda a, b: a > b, "ge": lambda a, b: a >= b}
from cudyn import cumath
def call(op, a, b):
    if op in CALLS:
        return CALLS[op](a, b)
    if op == "fmod":
        return cumath.fmod(a, b)
    return getattr(ga, op)(a, b)
def host(dtype, n=6):
    return (np.arange(n) % 3 + 1).astype(dtype)  # 1, 2, 3: no overflow, no zero divisor
failures = []
def check(what, want, got):
    if got.dtype != want.dtype or not np.allclose(got.astype(np.complex128), want.astype(np.complex128), rtol=2e-3):
        failures.append(f"{what}: cudyn {got.dtype} {got}, numpy {want.dtype} {want}")
for op, f in OPS.items():
    for x in DTYPES:
        hx = host(x)
        for y in DTYPES + [True, 2, 2.5, 2j]:
            hy = host(y) if isinstance(y, np.dtype) else y
            try:
                want = f(hx, hy)
            except TypeError:
                continue
            if op == "pow" and want.dtype.kind in "iu" and x.kind in "iub":
                hx = hx.copy(); hx[:] = np.minimum(hx, 2)  # 2 ** 3: no wrap to compare
                want = f(hx, hy)
            dx = ga.to_gpu(hx)
            dy = ga.to_gpu(hy) if isinstance(y, np.dtype) else hy
            check(f"{x} {op} {y!r}", want, call(op, dx, dy).get())
            check(f"{x} {op} {y!r} strided", f(np.repeat(hx, 2)[::2], hy),
                  call(op, ga.to_gpu(np.repeat(hx, 2))[::2], dy).get())
b = ga.to_gpu(np.array([True, False, True, True]))
for view in (b, b[::2]) if "add" in OPS else ():
    hv = view.get()
    check("bool + 2", hv + 2, (view + 2).get())
    check("bool * True", hv * True, (view * True).get())
print("\\n".join(failures[:40]))
print(len(failures), "failures")
print("ok" if not failures else "failed")
"""
