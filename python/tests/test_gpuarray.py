"""gpuarray: making arrays, copies, views, the pool, and the operations'
plans on the mock.

The mock driver runs no kernel the Python layer writes (it knows no
private names of gpuarray's): here the operations are checked as far as
their launch (their plans: test_dtype_rules.py) and the copies the mock
runs; the values of every operation come from a GPU (test_gpu.py,
test_pycuda_gpu.py, test_dtype_rules.py's GPU matrix)."""

import numpy as np
import pytest

import cudyn
from conftest import mock_calls, mock_memory_in_use

pytestmark = pytest.mark.mock


@pytest.fixture
def ga():
    from cudyn import gpuarray
    return gpuarray


def test_to_gpu_get_zeros_ones_like(ga):
    host = np.arange(12, dtype=np.int32).reshape(3, 4)
    a = ga.to_gpu(host)
    assert isinstance(a, ga.GPUArray) and a.shape == (3, 4) and a.dtype == np.int32
    np.testing.assert_array_equal(a.get(), host)
    z = ga.zeros((2, 5), np.float64)
    assert (z.get() == 0).all() and z.dtype == np.float64
    e = ga.empty_like(a)
    assert e.shape == a.shape and e.dtype == a.dtype
    assert (ga.zeros_like(a, np.float32).get() == 0).all()
    np.testing.assert_array_equal(ga.to_gpu(host[:, ::2]).get(), host[:, ::2])  # made contiguous on the host
    np.testing.assert_array_equal(ga.arange(5, dtype=np.float32).get(), np.arange(5, dtype=np.float32))
    assert ga.empty(0).size == 0 and ga.zeros(0).get().size == 0
    with pytest.raises(ValueError):
        ga.empty((-2, 3))
    with pytest.raises(ValueError):
        ga.empty(3, order="K")
    f = ga.zeros((2, 3), np.float32, order="F")
    assert f.strides == (4, 8) and f.flags.f_contiguous and not f.flags.c_contiguous
    assert (f.get() == 0).all() and f.get().flags.f_contiguous


def test_copy_reshape_len(ga):
    a = ga.to_gpu(np.arange(6, dtype=np.float32))
    b = a.copy()
    assert b.ptr != a.ptr
    np.testing.assert_array_equal(b.get(), a.get())
    r = a.reshape(2, 3)
    assert r.shape == (2, 3) and r.ptr == a.ptr and len(r) == 2
    assert a.reshape(-1, 2).shape == (3, 2) and a.ravel().shape == (6,)
    with pytest.raises(ValueError):
        a.reshape(4, 2)
    with pytest.raises(TypeError):
        len(ga.zeros(()))


def test_operators_give_numpys_values(ga):
    # the mock's host evaluator runs their kernels (tests/mock/mock_eval.c; more in test_mock_gpuarray.py)
    xs, ys = np.arange(1, 1001, dtype=np.float32), np.linspace(-3, 3, 1000).astype(np.float32)
    x, y = ga.to_gpu(xs), ga.to_gpu(ys)
    for run, want in ((lambda: 2 * x, 2 * xs), (lambda: x * 2, xs * 2), (lambda: np.float32(2) * x, 2 * xs),
                      (lambda: x + y, xs + ys), (lambda: x - y, xs - ys), (lambda: x * y, xs * ys),
                      (lambda: x / y, xs / ys), (lambda: x ** 2, xs ** 2), (lambda: -x, -xs), (lambda: abs(x), xs),
                      (lambda: x < y, xs < ys), (lambda: x.astype(np.float64), xs.astype(np.float64)),
                      (lambda: x[::2] + 1, xs[::2] + 1), (lambda: ga.maximum(x, y), np.maximum(xs, ys)),
                      (lambda: ga.zeros(4, np.float64).fill(1.0), np.ones(4)),
                      (lambda: x[::2].fill(7), np.full(500, 7, np.float32))):
        got = run()
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got.get(), want)


def test_fills_whose_bytes_repeat_are_memsets(ga):
    # zeros, ones of float32 and int32, bytes: the driver's memset, which the mock runs
    for dtype, value in ((np.float32, 7.5), (np.int32, -3), (np.uint8, 200), (np.float16, 1.0), (np.bool_, True),
                         (np.float64, 0.0), (np.int64, -1), (np.complex64, 0), (np.int16, 2.9)):
        a = ga.empty(5, dtype).fill(value)
        np.testing.assert_array_equal(a.get(), np.full(5, np.array(value).astype(dtype)))
    np.testing.assert_array_equal(ga.ones((2, 3), np.float32).get(), np.ones((2, 3), np.float32))
    with pytest.raises(OverflowError):
        ga.empty(3, np.int8).fill(300)  # numpy 2's refusal
    half = ga.zeros(8, np.float32)
    half[2:6] = 1.0  # a contiguous view: its bytes only
    np.testing.assert_array_equal(half.get(), [0, 0, 1, 1, 1, 1, 0, 0])


def test_kernels_are_cached_per_process(ga, mock_lib):
    x = ga.to_gpu(np.ones(64, np.float32))
    2 * x
    before = mock_calls(mock_lib, "cuModuleLoadData")
    for _ in range(20):
        assert ((2 * x).get() == 2).all()
    assert mock_calls(mock_lib, "cuModuleLoadData") == before


def test_planning_allocates_nothing():
    # a new signature's plan reads the result's layout from an array with
    # no memory: without the pool (CUDYN_GPUARRAY_POOL=0) the first call of
    # a signature allocates as every later call does, once for its result;
    # an empty result allocates nothing
    from conftest import run_python
    p = run_python("""
        import ctypes, numpy as np, cudyn
        from cudyn import gpuarray
        mock = ctypes.CDLL(cudyn.loader_info()["driver_path"])
        mock.mock_calls.restype, mock.mock_calls.argtypes = ctypes.c_long, [ctypes.c_char_p]
        x = gpuarray.to_gpu(np.arange(6, dtype=np.float32))
        def allocations(f):
            before = mock.mock_calls(b"cuMemAlloc_v2")
            f()
            return mock.mock_calls(b"cuMemAlloc_v2") - before
        for name, f in (("flat", lambda: x + 1), ("strided", lambda: x.reshape(2, 3).T + 1),
                        ("fortran", lambda: x.reshape(2, 3).T.copy() * 2), ("empty", lambda: x[:0] + 1)):
            print(name, allocations(f), allocations(f))
        """, extra={"CUDYN_GPUARRAY_POOL": "0"})
    assert p.returncode == 0, p.stderr
    assert p.stdout.splitlines() == ["flat 1 1", "strided 1 1", "fortran 2 2", "empty 0 0"], p.stdout


def test_pool_reuses_memory_of_dead_arrays(ga, mock_lib):
    x = ga.to_gpu(np.ones(1 << 16, np.float32))
    y = x.copy()
    ptr = y.ptr
    del y
    assert ga.pool_info()[0] >= 1
    y = x.copy()
    assert y.ptr == ptr
    del y
    in_use = mock_memory_in_use(mock_lib)
    freed = ga.free_pool()
    assert freed >= x.nbytes and ga.pool_info() == (0, 0)
    assert mock_memory_in_use(mock_lib) <= in_use - x.nbytes


def test_kernel_types_for_other_dtypes(ga):
    from cudyn import _ops, _reductions
    plan = _ops._plan_binary("mul", 2.0, ga.zeros(4, np.int32), None)
    assert plan.dtype == np.float64 and "(double)(y)" in plan.map.source and plan.map.format == "ppdQ"
    plan = _ops._plan_binary("div", ga.zeros(4, np.int16), ga.zeros(4, np.int16), None)
    assert plan.dtype == np.float64
    plan = _ops._plan_binary("add", ga.zeros(4, np.float32), ga.zeros(4, np.float64), None)
    assert plan.dtype == np.float64 and "const float *__restrict__ cudyn_p_x" in plan.map.source
    assert _reductions.c_type(np.int64) == "long long" and _reductions.c_type(np.float16) == "__half"
    assert _reductions.c_type(np.complex64) is None
    assert ga.c_type(np.float32) == "float"


def test_bad_operands(ga):
    a = ga.zeros(8, np.float32)
    with pytest.raises(ValueError):
        a + ga.zeros(9, np.float32)                 # shapes that do not broadcast
    with pytest.raises(TypeError) as info:
        a + np.zeros(8, np.float32)                 # a host array
    assert "host" in str(info.value)
    with pytest.raises(TypeError):
        a + "text"
    b = ga.to_gpu(np.zeros(4, np.int32))
    with pytest.raises(TypeError):
        b += 1.5                                    # a float64 result into int32 in place (numpy's same-kind rule)
    with pytest.raises(ValueError):
        ga.max(ga.zeros(0, np.float32))
    with pytest.raises(ValueError):
        ga.dot(a, ga.zeros(3, np.float32))
    with pytest.raises(TypeError):
        ga.sum(np.zeros(3, np.float32))
    with pytest.raises(TypeError):
        ga.max(ga.zeros(3, np.complex64))           # complex numbers have no order
    swapped = ga.to_gpu(np.arange(4, dtype=">f4"))  # copies keep its bytes; kernels would misread them
    np.testing.assert_array_equal(swapped.get(), np.arange(4, dtype=">f4"))
    with pytest.raises(TypeError) as info:
        2 * swapped
    assert "byte order" in str(info.value)


def test_result_dtypes_follow_numpy(ga):
    # Python numbers are weak, numpy scalars and arrays are not; complex numbers too
    from cudyn import _dtypes, _ops
    f32, i32 = np.dtype(np.float32), np.dtype(np.int32)
    assert _dtypes.weak_result(f32, 2) == f32 and _dtypes.weak_result(f32, 2.5) == f32
    assert _dtypes.weak_result(i32, 2.5) == np.float64 and _dtypes.weak_result(f32, 1j) == np.complex64
    assert _dtypes.weak_result(i32, 1j) == np.complex128 and _dtypes.weak_result(f32, np.float64(1)) == np.float64
    a, c = ga.zeros(4, np.float32), ga.zeros((), np.int64)
    assert _dtypes.common_dtype(a, c) == np.float64 and _ops.loop_shape(a, c) == (4,)
    assert _ops.loop_shape(ga.zeros((3, 1)), ga.zeros((1, 5))) == (3, 5)


def test_strided_views_copy_on_the_mock(ga):
    # views with steps and transposes: their bytes move through copies the
    # mock runs (their arithmetic runs generated kernels: test_pycuda_gpu.py)
    import cudyn
    host = np.arange(48, dtype=np.float32).reshape(6, 8)
    base = ga.to_gpu(host)
    strided = ga.GPUArray((8,), np.float32, strides=(8,), ptr=base.ptr, owner=base)
    assert not strided.is_contiguous and isinstance(strided, cudyn.DeviceArray)
    np.testing.assert_array_equal(strided.get(), host.ravel()[:16:2])
    for view, expected in ((base[1:5, ::3], host[1:5, ::3]), (base.T, host.T), (base[::-1, 2], host[::-1, 2]),
                           (base[:, None, 3], host[:, None, 3]), (base[..., 1:2], host[..., 1:2])):
        assert view.shape == expected.shape and view.strides == expected.strides
        np.testing.assert_array_equal(view.get(), expected)
    t = base.T.copy()                               # dense: one block, its strides kept
    assert t.strides == base.T.strides and t.ptr != base.ptr
    np.testing.assert_array_equal(t.get(), host.T)
    out = np.empty((4, 3), np.float32)
    assert base[1:5, ::3].get(out) is out
    np.testing.assert_array_equal(out, host[1:5, ::3])


def test_only_an_input_sharing_bytes_with_out_is_copied_first(ga):
    # numpy reads an operand that overlaps the result before writing it:
    # the plan copies such an input (and only such: the common call makes
    # no copy and keeps the operands it was given)
    from cudyn import _ops
    d = ga.to_gpu(np.arange(8, dtype=np.float32))
    e = ga.to_gpu(np.arange(8, dtype=np.float32))
    plan = _ops._plan_assign(d[1:], d[:-1])
    shifted = (d[:-1],)
    apart = plan._apart(d[1:], shifted)
    assert apart[0] is not shifted[0] and apart[0].ptr not in (d.ptr, e.ptr)
    np.testing.assert_array_equal(apart[0].get(), np.arange(7, dtype=np.float32))
    disjoint = (e[:-1],)
    assert plan._apart(d[1:], disjoint) is disjoint
    same = (d[1:],)  # element for element the out itself: no copy
    assert plan._apart(d[1:], same) is same


def test_operands_on_another_device(ga):
    import cudyn
    a = ga.zeros(8, np.float32)
    with cudyn.Device(1):
        b = ga.zeros(8, np.float32)
    assert b.device == 1
    with pytest.raises(ValueError) as info:
        a + b
    assert "device" in str(info.value)


def test_repr_shows_the_values(ga):
    one = ga.to_gpu(np.array([3.5], np.float32))
    assert "3.5" in repr(one) and "3.5" in str(one) and "device=0" in repr(one)


def test_no_compile_on_a_warm_cache(tmp_path):
    # a second process finds gpuarray's kernels in cudyn's cache: NVRTC compiles nothing
    from conftest import run_python
    code = """
        import ctypes, os, numpy as np
        import cudyn
        from cudyn import gpuarray as ga
        x = ga.to_gpu(np.arange(64, dtype=np.float32))
        for run in (lambda: 2 * x + x, lambda: ga.sum(x), lambda: x[::2] * 3):
            try:
                run()
            except cudyn.Error as e:  # what the mock cannot run is compiled and loaded first
                assert "cannot emulate" in str(e), e
        nvrtc = ctypes.CDLL(os.environ["CUDYN_LIBNVRTC"])
        nvrtc.mock_nvrtc_calls.restype = ctypes.c_long
        print(nvrtc.mock_nvrtc_calls(b"nvrtcCompileProgram"))
        """
    cache = {"CUDYN_CACHE_DIR": str(tmp_path / "cache")}
    first, second = run_python(code, extra=cache), run_python(code, extra=cache)
    assert first.returncode == 0 and second.returncode == 0, first.stderr + second.stderr
    assert int(first.stdout) >= 3 and int(second.stdout) == 0
