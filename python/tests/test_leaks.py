"""No reference or memory growth over 10^5 calls, failing ones included."""

import gc
import sys
import tracemalloc

import numpy as np
import pytest

from conftest import mock_memory_in_use

pytestmark = pytest.mark.mock

CALLS = 100_000


def _growth(fn, calls=CALLS):
    """Traced bytes grown over `calls` calls: the smaller growth of two
    such rounds in a row, after as many calls again to warm up.  Caches
    and free lists the interpreter and numpy keep fill once, in whichever
    round (by tens of KiB with Python 3.12 and numpy 2, more on some
    machines), while a leak grows in both."""
    for _ in range(calls):
        fn()
    gc.collect()
    tracemalloc.start()
    grown = []
    for _ in range(2):
        before = tracemalloc.get_traced_memory()[0]
        for _ in range(calls):
            fn()
        gc.collect()
        grown.append(tracemalloc.get_traced_memory()[0] - before)
    tracemalloc.stop()
    return min(grown)


def test_launch_loop_leaks_nothing(mock_lib):
    import cudyn
    f = cudyn.SourceModule('__global__ void empty() {}').get_function("empty")
    grid, block = (1, 1, 1), (1, 1, 1)
    f(grid=grid, block=block)  # the module holds the last tuples of ints it read as a grid (util.c, cpy_dim3)
    refs = sys.getrefcount(grid), sys.getrefcount(f)
    gc.collect()  # what earlier tests left is freed before the baseline, not during the loop
    device = mock_memory_in_use(mock_lib)
    grown = _growth(lambda: f(grid=grid, block=block))
    cudyn.synchronize()
    assert grown < 64 * 1024, grown
    assert (sys.getrefcount(grid), sys.getrefcount(f)) == refs
    assert mock_memory_in_use(mock_lib) == device


def test_launch_with_arguments_and_prepared_call_leak_nothing(mock_lib):
    import cudyn
    src = ('__global__ void saxpy(float a, const float *x, const float *y, float *out, size_t n)'
           ' { size_t i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = a * x[i] + y[i]; }')
    f = cudyn.SourceModule(src).get_function("saxpy")
    x = cudyn.gpuarray.zeros(32, np.float32)
    a, n = np.float32(2), np.uint64(32)
    refs = [sys.getrefcount(o) for o in (x, a, n)]
    grown = _growth(lambda: f(a, x, x, x, n, grid=(1,), block=(32,)))
    assert grown < 64 * 1024, grown
    p = f.prepare("fPPPQ")
    grown = _growth(lambda: p((1,), (32,), 2.0, x, x, x, 32))
    assert grown < 64 * 1024, grown
    bound = f.prepare("fPPPQ", grid=(1,), block=(32,), stream=cudyn.Stream())
    grown = _growth(lambda: bound(2.0, x, x, x, 32))
    assert grown < 64 * 1024, grown
    cudyn.synchronize()
    assert [sys.getrefcount(o) for o in (x, a, n)] == refs


def test_failing_calls_leak_nothing():
    import cudyn
    f = cudyn.SourceModule('__global__ void empty() {}').get_function("empty")

    def failing():
        try:
            cudyn.device_use(9)
        except cudyn.DeviceError:
            pass
        try:
            f(np.float32(1), grid=(1,), block=(1,))
        except TypeError:
            pass

    grown = _growth(failing, CALLS // 2)
    assert grown < 64 * 1024, grown


def test_arrays_and_copies_leak_nothing(mock_lib):
    import cudyn
    from cudyn import gpuarray
    host = np.arange(64, dtype=np.float32)
    out = np.empty_like(host)
    gpuarray.free_pool()
    device = mock_memory_in_use(mock_lib)

    def roundtrip():
        a = gpuarray.to_gpu(host)
        a.get(out)
        cudyn.from_dlpack(a)
        a.__cuda_array_interface__

    grown = _growth(roundtrip, CALLS // 10)
    assert grown < 64 * 1024, grown
    gpuarray.free_pool()
    assert mock_memory_in_use(mock_lib) == device
    refs = sys.getrefcount(host), sys.getrefcount(out)
    for _ in range(1000):
        roundtrip()
    assert (sys.getrefcount(host), sys.getrefcount(out)) == refs


def test_gpuarray_arithmetic_leaks_nothing(mock_lib):
    # planned, packed and launched; the mock refuses the launch (it runs no
    # kernel gpuarray writes), and the result that was made for it goes
    import cudyn
    from cudyn import gpuarray
    x = gpuarray.to_gpu(np.ones(256, np.float32))
    gpuarray.free_pool()
    device = mock_memory_in_use(mock_lib)

    def twice():
        try:
            2 * x[::2]
        except cudyn.Error:
            pass
    grown = _growth(twice, CALLS)
    assert grown < 64 * 1024, grown
    gpuarray.free_pool()
    assert mock_memory_in_use(mock_lib) == device
