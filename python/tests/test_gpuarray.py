"""gpuarray: making arrays, arithmetic on cached expression kernels, reductions.

Float32 arithmetic runs on the mock (it has host versions of those
generated kernels, tests/mock/mock_elementwise.c); other dtypes are
checked for their kernels' text here and run on a GPU (test_gpu.py)."""

import numpy as np
import pytest

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


def test_scalar_and_array_arithmetic_float32(ga):
    x = np.arange(1, 1001, dtype=np.float32)
    y = np.linspace(-3, 3, 1000).astype(np.float32)
    dx, dy = ga.to_gpu(x), ga.to_gpu(y)
    np.testing.assert_array_equal((2 * dx).get(), 2 * x)
    np.testing.assert_array_equal((dx * 2).get(), x * 2)
    np.testing.assert_array_equal((np.float32(2) * dx).get(), np.float32(2) * x)
    np.testing.assert_array_equal((dx + dy).get(), x + y)
    np.testing.assert_array_equal((dx - dy).get(), x - y)
    np.testing.assert_array_equal((dx * dy).get(), x * y)
    np.testing.assert_array_equal((dx / dy).get(), x / y)
    np.testing.assert_array_equal((2 * dx + dy).get(), 2 * x + y)   # the seed's a*x + y
    np.testing.assert_array_equal((-dx).get(), -x)
    assert (2 * dx).dtype == np.float32 and isinstance(2 * dx, ga.GPUArray)
    dz = dx.copy()
    dz += dy
    np.testing.assert_array_equal(dz.get(), x + y)
    dz *= 2
    np.testing.assert_array_equal(dz.get(), (x + y) * 2)
    dx.fill(7)
    assert (dx.get() == 7).all()


def test_reductions_float32(ga):
    x = (np.arange(10000) % 13).astype(np.float32)
    y = (np.arange(10000) % 3).astype(np.float32)
    dx, dy = ga.to_gpu(x), ga.to_gpu(y)
    s = ga.sum(dx)
    assert s.shape == () and s.dtype == np.float32 and float(s.get()) == float(x.sum(dtype=np.float64))
    assert float(dx.sum().get()) == float(s.get())
    d = ga.dot(dx, dy)
    assert float(d.get()) == float(np.dot(x.astype(np.float64), y)) and float(dx.dot(dy).get()) == float(d.get())
    assert float(ga.max(dx).get()) == 12 and float(dx.min().get()) == 0


def test_kernels_are_cached_per_process(ga, mock_lib):
    x = ga.to_gpu(np.ones(64, np.float32))
    2 * x
    before = mock_calls(mock_lib, "cuModuleLoadData")
    for _ in range(20):
        2 * x
    assert mock_calls(mock_lib, "cuModuleLoadData") == before
    assert len(ga._scalars) >= 1


def test_pool_reuses_memory_of_dead_arrays(ga, mock_lib):
    x = ga.to_gpu(np.ones(1 << 16, np.float32))
    y = 2 * x
    ptr = y.ptr
    del y
    assert ga.pool_info()[0] >= 1
    y = 2 * x
    assert y.ptr == ptr
    del y
    in_use = mock_memory_in_use(mock_lib)
    freed = ga.free_pool()
    assert freed >= x.nbytes and ga.pool_info() == (0, 0)
    assert mock_memory_in_use(mock_lib) <= in_use - x.nbytes


def test_kernel_texts_for_other_dtypes(ga):
    # the generated parameter lists and bodies, checked without running them
    kernel, result = ga._scalar_kernel("mul", True, np.dtype(np.int32), float, 2.0)
    assert result == np.float64 and "double a, const int *x, double *z" in kernel.source
    assert "z[i] = a * (double)x[i]" in kernel.source
    kernel, result = ga._array_kernel("div", np.dtype(np.int16), np.dtype(np.int16))
    assert result == np.float64
    kernel, result = ga._array_kernel("add", np.dtype(np.float32), np.dtype(np.float64))
    assert result == np.float64 and "const float *x, const double *y, double *z" in kernel.source
    assert ga._scalar_type(np.dtype(np.float32), 2) == np.float32
    assert ga._scalar_type(np.dtype(np.float32), np.float64(2)) == np.float64
    assert ga._sum_type(np.dtype(np.int8)) == np.int64 and ga._sum_type(np.dtype(np.uint16)) == np.uint64
    assert ga.c_type(np.int64) == "long long" and ga.c_type(np.float16) == "__half"
    with pytest.raises(TypeError):
        ga.c_type(np.complex64)


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
    from cudyn import _ops
    f32, i32 = np.dtype(np.float32), np.dtype(np.int32)
    assert _ops.weak_result(f32, 2) == f32 and _ops.weak_result(f32, 2.5) == f32
    assert _ops.weak_result(i32, 2.5) == np.float64 and _ops.weak_result(f32, 1j) == np.complex64
    assert _ops.weak_result(i32, 1j) == np.complex128 and _ops.weak_result(f32, np.float64(1)) == np.float64
    a, c = ga.zeros(4, np.float32), ga.zeros((), np.int64)
    assert _ops.common_dtype(a, c) == np.float64 and _ops.loop_shape(a, c) == (4,)
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
        from cudyn import gpuarray as ga
        x = ga.to_gpu(np.arange(64, dtype=np.float32))
        y = ga.sum(2 * x + x)
        assert float(y.get()) == 3 * sum(range(64))
        nvrtc = ctypes.CDLL(os.environ["CUDYN_LIBNVRTC"])
        nvrtc.mock_nvrtc_calls.restype = ctypes.c_long
        print(nvrtc.mock_nvrtc_calls(b"nvrtcCompileProgram"))
        """
    cache = {"CUDYN_CACHE_DIR": str(tmp_path / "cache")}
    first, second = run_python(code, extra=cache), run_python(code, extra=cache)
    assert first.returncode == 0 and second.returncode == 0, first.stderr + second.stderr
    assert int(first.stdout) >= 3 and int(second.stdout) == 0
