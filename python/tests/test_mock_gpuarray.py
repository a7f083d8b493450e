"""gpuarray's elementwise arithmetic computed on the mock driver and
compared with numpy: the mock's host evaluator (tests/mock/mock_eval.c)
runs the map kernels _codegen writes, which it knows by the shape of their
source (the mock NVRTC carries it in its PTX), never by name.  What it does
not recognise, or what C++ leaves undefined, it refuses loudly."""

import gc

import numpy as np
import pytest

import cudyn
from cudyn import _codegen, _ops, cumath
from cudyn import gpuarray as ga

pytestmark = pytest.mark.mock

REAL = [np.bool_, np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64, np.uint64, np.float32,
        np.float64]


@pytest.fixture(autouse=True, scope="module")
def unload_the_kernels_afterwards():
    """These tests load some hundreds of kernels; the plans and modules go
    when they end, so that the tests after them do not meet a full table of
    kernel facts (lib/module/kernel_params.c: 512 slots; a kernel that finds
    no free one nearby goes unchecked)."""
    yield
    for table in (_ops._plans, _ops._flat, _codegen._plans, _codegen._maps, _codegen._loaded):
        table.clear()
    gc.collect()


@pytest.fixture(autouse=True)
def no_fast_path_plans_of_earlier_tests():
    """Each test plans its own operations: a plan another test (of any file)
    put in _ops' fast-path table must not decide these values (see
    test_a_one_element_arrays_plan_serves_it_alone)."""
    _ops._flat.clear()


def same(got, want):
    """The device array holds numpy's result: dtype, shape and every value."""
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    np.testing.assert_array_equal(got.get(), want)


def values(dtype, n=37, low=-40):
    """n values of dtype, negative ones wrapped for unsigned types as numpy wraps them."""
    if np.dtype(dtype) == np.bool_:
        return np.arange(n) % 3 == 0
    return np.arange(low, low + n).astype(dtype)


def test_a_strided_view_plus_a_scalar():
    x = np.arange(1001, dtype=np.float32)
    same(ga.to_gpu(x)[::2] + 2, x[::2] + 2)
    same(2 + ga.to_gpu(x)[::-3], 2 + x[::-3])


@pytest.mark.parametrize("n", [1, 3, 4, 5, 16, 1001])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.uint8, np.int64])
def test_a_scalar_times_an_array(n, dtype):
    # n around the vector loop's lanes: the vector loop, its tail, or the element loop alone
    x = values(dtype, n)
    same(2 * ga.to_gpu(x), 2 * x)
    same(ga.to_gpu(x) * 2, x * 2)


def test_a_one_element_arrays_plan_serves_it_alone():
    # the fast-path table keeps plans without shapes: a one-element array's
    # plan read it as a scalar (p[0]) and then gave a five-element array
    # element 0 five times, here and on a GPU
    one, five = np.array([3.0]), np.arange(5.0)
    same(ga.to_gpu(one) * 7, one * 7)
    same(ga.to_gpu(five) * 7, five * 7)   # [0 0 0 0 0]: element 0, five times


def test_unaligned_views_take_the_element_loop():
    x = np.arange(103, dtype=np.float32)
    d = ga.to_gpu(x)
    same(d[1:] * 3, x[1:] * 3)
    same(d[1:] + d[:-1], x[1:] + x[:-1])


def test_a_times_x_plus_y():
    x = np.linspace(-3, 3, 1000).astype(np.float32)
    y = np.arange(1000, dtype=np.float32)
    a = np.float32(2.5)
    same(a * ga.to_gpu(x) + ga.to_gpu(y), a * x + y)
    same(ga.to_gpu(x).mul_add(a, ga.to_gpu(y), np.float32(-1)), a * x - y)


def test_assigning_a_strided_slice():
    y = np.arange(64, dtype=np.float32)
    z = ga.zeros(64, np.float32)
    z[::2] = ga.to_gpu(y)[::2]
    want = np.zeros(64, np.float32)
    want[::2] = y[::2]
    same(z, want)
    m = ga.to_gpu(np.zeros((6, 8), np.float64))
    m[1:5, ::3] = ga.to_gpu(np.arange(12, dtype=np.int16).reshape(4, 3))
    want = np.zeros((6, 8))
    want[1:5, ::3] = np.arange(12).reshape(4, 3)
    same(m, want)


@pytest.mark.parametrize("strided", [False, True])
def test_the_bool_cases(strided):
    b = np.array([True, False, True, True, False, False, True] * 5)
    x, d = (b[::2], ga.to_gpu(b)[::2]) if strided else (b, ga.to_gpu(b))
    same(d + 2, x + 2)                   # int64, as numpy's weak Python int
    same(d * True, x * True)             # bool
    same(d + np.int8(2), x + np.int8(2))


def test_broadcasting_and_layouts():
    m = np.arange(24, dtype=np.float32).reshape(4, 6)
    row = np.arange(6, dtype=np.float32)
    col = np.arange(4, dtype=np.int32).reshape(4, 1)
    dm = ga.to_gpu(m)
    same(dm + ga.to_gpu(row), m + row)
    same(dm * ga.to_gpu(col), m * col)
    same(dm.T - 1, m.T - 1)
    same(dm[::2, ::-1] * dm[1::2, :], m[::2, ::-1] * m[1::2, :])
    f = np.asfortranarray(m)
    same(ga.to_gpu(f) * 2, f * 2)


@pytest.mark.parametrize("source", REAL)
@pytest.mark.parametrize("target", REAL)
def test_casts(source, target):
    # in range wherever a float meets an integer type: C++ leaves the rest undefined
    x = np.array([0, 1, 2, 5, 7, 100, 126, -1, -7.75, 3.5, 0.25, -0.5], np.float64)
    if np.dtype(target).kind in "iu" or np.dtype(source).kind in "iu":
        x = np.trunc(x)
    if np.dtype(target).kind == "u" and np.dtype(source).kind == "f":
        x = np.abs(x)
    a = x.astype(source)
    with np.errstate(invalid="ignore"):
        want = a.astype(target)
    same(ga.to_gpu(a).astype(target), want)


# pairs of dtypes that numpy promotes in every way: same kind, mixed
# signedness (int16, int64, float64), integers with floats, bool with numbers
PAIRS = [(np.int8, np.int8), (np.uint8, np.int8), (np.uint16, np.int32), (np.uint32, np.int32),
         (np.uint64, np.int64), (np.int64, np.uint8), (np.int32, np.float32), (np.float32, np.float64),
         (np.bool_, np.int16), (np.bool_, np.float32), (np.uint64, np.uint32), (np.float64, np.int8)]


@pytest.mark.parametrize("dx,dy", PAIRS)
def test_operators_across_dtypes(dx, dy):
    x, y = values(dx), values(dy, low=1)       # y: no zero divisor
    gx, gy = ga.to_gpu(x), ga.to_gpu(y)
    with np.errstate(all="ignore"):
        for run, want in ((lambda: gx + gy, x + y), (lambda: gx * gy, x * y), (lambda: gx / gy, x / y),
                          (lambda: gx < gy, x < y), (lambda: gx == gy, x == y), (lambda: gx >= gy, x >= y),
                          (lambda: gx != gy, x != y), (lambda: ga.maximum(gx, gy), np.maximum(x, y)),
                          (lambda: ga.minimum(gx, gy), np.minimum(x, y)),
                          (lambda: ga.logical_and(gx, gy), np.logical_and(x, y)),
                          (lambda: ga.logical_or(gx, gy), np.logical_or(x, y)),
                          (lambda: ga.where(gx, gy, 7), np.where(x, y, np.array(7, y.dtype)))):
            same(run(), want)
        if np.dtype(dx) != np.bool_ or np.dtype(dy) != np.bool_:
            same(gx - gy, x - y)
        if np.result_type(dx, dy).kind != "b":
            same(cumath.fmod(gx, gy), np.fmod(x, y))


def test_integers_wrap():
    for dtype in (np.int8, np.uint8, np.int32, np.uint32, np.int64, np.uint64):
        info = np.iinfo(dtype)
        x = np.array([info.max, info.min, info.max // 2 + 3], dtype)
        d = ga.to_gpu(x)
        same(d + dtype(1), x + dtype(1))
        same(d * dtype(3), x * dtype(3))
        same(-d, -x)
        same(abs(d), abs(x))


def test_integer_powers_wrap_as_numpys():
    # _ops' cudyn_ipow computes in an unsigned type and converts back: the
    # wraparound numpy's integer power gives (signed overflow would be
    # undefined), for every integer dtype, array and scalar exponents
    for dtype in (np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64, np.uint64):
        info = np.iinfo(dtype)
        base = np.array([3, 7, -3 if info.min else 250, info.max, info.min, 2, 0, 1, 5], dtype)
        e = np.array([5, 23, 9, 3, 2, info.bits - 1, 0, 63, 40], dtype)
        d = ga.to_gpu(base)
        same(d ** ga.to_gpu(e), base ** e)
        same(d ** dtype(7), base ** dtype(7))
        same(d ** 2, base ** 2)
    signed = np.array([1, -1, -1, 2, 0], np.int16)  # a negative exponent of an array: what C's integers give
    same(ga.to_gpu(signed) ** ga.to_gpu(np.array([-3, -3, -4, -1, -2], np.int16)),
         np.array([1, -1, 1, 0, 0], np.int16))


def test_the_integer_power_is_known_by_its_text():
    # the mock computes cudyn_ipow only where the module defines it as _ops
    # writes it, token for token (tests/mock/mock_eval.c)
    operands = (("z", "int", _codegen.FLAT, True, 4), ("x", "int", _codegen.FLAT, False, 4))
    body = f"z = {_ops.ipow_text('x', 'y', np.dtype(np.int32))}"
    for preamble in (_ops._IPOW.replace("r *= b", "r += b"), ""):
        source, name = _codegen.map_source(body, operands, (("y", "int"),), 0, preamble)
        z = ga.zeros(4, np.int32)
        with pytest.raises(cudyn.Error, match="cannot emulate kernel .*a call of cudyn_ipow, which its module does"):
            _codegen.function(source, name)(z, ga.to_gpu(np.arange(4, dtype=np.int32)), np.int32(2), np.uint64(4),
                                            grid=(1, 1, 1), block=(32, 1, 1))


def test_nan_and_infinities():
    x = np.array([np.nan, 1, -np.inf, np.inf, -0.0, 2], np.float32)
    y = np.array([1, np.nan, 0, np.inf, 0.0, -2], np.float32)
    with np.errstate(all="ignore"):
        for run, want in ((lambda a, b: a < b, lambda a, b: a < b), (lambda a, b: a != b, lambda a, b: a != b),
                          (ga.maximum, np.maximum), (ga.minimum, np.minimum), (lambda a, b: a / b, np.divide),
                          (ga.logical_and, np.logical_and)):
            same(run(ga.to_gpu(x), ga.to_gpu(y)), want(x, y))


def test_unary_operations():
    for dtype in (np.int8, np.int32, np.float32, np.float64):
        x = values(dtype)
        d = ga.to_gpu(x)
        same(-d, -x)
        same(abs(d), abs(x))
        same(+d, +x)
        same(ga.logical_not(d), np.logical_not(x))


def test_cumath():
    for dtype, rtol in ((np.float32, 1e-6), (np.float64, 1e-14), (np.int32, 1e-14)):
        x = (np.arange(1, 50) / 7).astype(dtype) if dtype != np.int32 else np.arange(1, 50, dtype=dtype)
        d = ga.to_gpu(x)
        for name in ("sin", "exp", "log", "sqrt", "tanh", "fabs", "floor"):
            got, want = getattr(cumath, name)(d), getattr(np, name.replace("fabs", "abs"))(x)
            want = want.astype(np.float64) if dtype == np.int32 else want
            assert got.dtype == want.dtype, (name, dtype)
            np.testing.assert_allclose(got.get(), want, rtol=rtol, err_msg=f"{name} of {np.dtype(dtype)}")
    x = np.linspace(0.5, 4, 20, dtype=np.float32)
    np.testing.assert_allclose((ga.to_gpu(x) ** np.float32(1.5)).get(), x ** np.float32(1.5), rtol=1e-6)


# ------------------------------------------------------------ the shape, not the name

def _map_kernel(body, change=None, name="any_name_at_all"):
    """A map kernel as _codegen writes it, for z, x (float, flat) and a
    scalar y; renamed, and with one change to its text when given."""
    operands = (("z", "float", _codegen.FLAT, True, 4), ("x", "float", _codegen.FLAT, False, 4))
    source, generated = _codegen.map_source(body, operands, (("y", "float"),), 0)
    source = source.replace(generated, name)
    if change:
        assert change[0] in source
        source = source.replace(change[0], change[1], 1)
    return _codegen.function(source, name)


def _launch(f, n, block=(256, 1, 1)):
    x = np.arange(n, dtype=np.float32)
    z = ga.zeros(n, np.float32)
    f(z, ga.to_gpu(x), np.float32(0.5), np.uint64(n), grid=(2, 1, 1), block=block)
    return z.get(), x


def test_the_mock_knows_the_shape_not_the_name():
    got, x = _launch(_map_kernel("z = x * y"), 1001)
    np.testing.assert_array_equal(got, x * np.float32(0.5))


@pytest.mark.parametrize("change, why", [
    (("i < n) {", "i <= n) {"), "not a map kernel's loop"),                     # one token of the element loop
    (("cudyn_nv * 4;", "cudyn_nv * 3;"), "not a map kernel's loop"),            # the vector loop's tail
    (("uint4 *)cudyn_v_x", "uint2 *)cudyn_v_x"), "not a map kernel's loop"),    # a vector of the wrong size
    (("z = x * y;", "z = x * y + 1;"), "its loops run different statements"),  # the two loops differ
])
def test_a_kernel_of_another_shape_is_refused_loudly(change, why):
    f = _map_kernel("z = x * y", change, name=f"near_miss_{abs(hash(change)) % 10000}")
    with pytest.raises(cudyn.Error, match="cannot emulate kernel 'near_miss_[0-9]+' \\(" + why):
        _launch(f, 100)


@pytest.mark.parametrize("body, why", [
    ("z = x + q", "'q', which is none of the kernel's operands"),
    ("z = z + x", "reads z, which it writes"),
    ("z = erff(x)", "a call of erff"),
    ("z = x.re", "'.' where the statement should end"),
    ("z = x & y", "'&' where the statement should end"),
])
def test_a_statement_it_cannot_compute_is_refused_loudly(body, why):
    with pytest.raises(cudyn.Error, match="cannot emulate kernel .*" + why):
        _launch(_map_kernel(body, name=f"statement_{abs(hash(body)) % 10000}"), 10)


def test_a_kernel_naming_a_macro_is_refused():
    # the mock NVRTC expands no macro, so it carries no text that is not what NVRTC compiles
    operands = (("z", "float", _codegen.FLAT, True, 4), ("x", "float", _codegen.FLAT, False, 4))
    source, name = _codegen.map_source("z = x * TWO", operands, (("y", "float"),), 0, preamble="#define TWO 2\n")
    with pytest.raises(cudyn.Error, match="cannot emulate kernel .*its PTX carries no source: a macro in it"):
        _launch(_codegen.function(source, name), 10)


def test_what_the_mock_does_not_compute_is_refused():
    with pytest.raises(cudyn.Error, match="cannot emulate kernel .*on a grid or block of more than one dimension"):
        _launch(_map_kernel("z = x * y", name="two_dimensional"), 10, block=(16, 2, 1))


def test_what_cxx_leaves_undefined_is_refused_where_it_happens():
    big = ga.to_gpu(np.array([1.0, 300.0], np.float32))
    with pytest.raises(cudyn.Error, match="at element 1: a floating value converted to an integer type that cannot"):
        big.astype(np.int8)
    with pytest.raises(cudyn.Error, match="at element 0: a floating value converted"):
        ga.to_gpu(np.array([np.nan], np.float64)).astype(np.int32)
    # an integer division the map kernels never write (they guard it), in their shape
    operands = (("z", "int", _codegen.FLAT, True, 4), ("x", "int", _codegen.FLAT, False, 4))
    source, name = _codegen.map_source("z = x / y", operands, (("y", "int"),), 0)
    with pytest.raises(cudyn.Error, match="at element 0: an integer division by zero"):
        _codegen.function(source, name)(ga.zeros(3, np.int32), ga.zeros(3, np.int32), np.int32(0), np.uint64(3),
                                        grid=(1, 1, 1), block=(256, 1, 1))
