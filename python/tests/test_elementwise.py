"""ElementwiseKernel and ReductionKernel over cudyn's expression kernels.

The mock runs the expression kernels it knows by name and text (those of
examples/elementwise.c: saxpy and dot); others are compiled and refused at
launch, which the GPU run covers."""

import numpy as np
import pytest

from conftest import mock_calls

pytestmark = pytest.mark.mock


def test_elementwise_kernel_saxpy():
    import cudyn
    k = cudyn.ElementwiseKernel("float a, const float *x, float *y", "y[i] = a * x[i] + y[i]", "saxpy")
    n = 1000
    x = np.arange(n, dtype=np.float32)
    dx, dy = cudyn.gpuarray.to_gpu(x), cudyn.gpuarray.to_gpu(np.ones(n, np.float32))
    k(np.float32(2), dx, dy)
    np.testing.assert_array_equal(dy.get(), 2 * x + 1)
    k(2.0, dx, dy, range=10)           # a Python float where the type is known; n given
    np.testing.assert_array_equal(dy.get()[:10], 4 * x[:10] + 1)
    np.testing.assert_array_equal(dy.get()[10:], 2 * x[10:] + 1)
    assert "cudyn_elementwise_saxpy" in k.source


def test_elementwise_kernel_compiles_once(mock_lib):
    import cudyn
    k = cudyn.ElementwiseKernel("float a, const float *x, float *y", "y[i] = a * x[i] + y[i]", "saxpy")
    x = cudyn.gpuarray.zeros(16, np.float32)
    k(np.float32(1), x, x)
    before = mock_calls(mock_lib, "cuModuleLoadData")
    for _ in range(10):
        k(np.float32(1), x, x)
    assert mock_calls(mock_lib, "cuModuleLoadData") == before


def test_elementwise_kernel_errors():
    import cudyn
    k = cudyn.ElementwiseKernel("float a, const float *x, float *y", "y[i] = a * x[i] + y[i]", "saxpy")
    with pytest.raises(TypeError):
        k(np.float32(2), np.float32(1), np.float32(3))    # no device array to take n from
    x = cudyn.gpuarray.zeros(4, np.float32)
    with pytest.raises((TypeError, cudyn.Error)):
        k(np.float32(2), x)                                # too few arguments
    with pytest.raises((TypeError, cudyn.Error)):
        k(np.float32(2), x, np.zeros(4, np.float32))       # a host array for a pointer
    with pytest.raises(TypeError):
        cudyn.ElementwiseKernel(["float a"], "y[i] = a")
    bad = cudyn.ElementwiseKernel("float a, float **p", "p[i][0] = a", "bad")
    with pytest.raises(cudyn.InvalidArgument) as info:
        bad(np.float32(1), x)
    assert "p" in str(info.value)
    hostile = cudyn.ElementwiseKernel("float *y", "#include \"/etc/passwd\"\n", "hostile")
    with pytest.raises(cudyn.InvalidArgument) as info:    # confined: no directives in a body
        hostile(x)
    assert "'#' is not allowed" in str(info.value)
    broken = cudyn.ElementwiseKernel("float *y", "y[i] = 0", "broken", preamble="#error broken preamble\n")
    with pytest.raises(cudyn.CompileError) as info:
        broken(x)
    assert "broken preamble" in str(info.value)


def test_reduction_kernel_dot():
    import cudyn
    dot = cudyn.ReductionKernel(np.float32, neutral="0", reduce_expr="a + b", map_expr="x[i] * y[i]",
                                arguments="const float *x, const float *y", name="dot")
    n = 5000
    x = (np.arange(n) % 7).astype(np.float32)
    y = (np.arange(n) % 5).astype(np.float32)
    result = dot(cudyn.gpuarray.to_gpu(x), cudyn.gpuarray.to_gpu(y))
    assert isinstance(result, cudyn.gpuarray.GPUArray) and result.shape == () and result.dtype == np.float32
    assert float(result.get()) == float(np.dot(x.astype(np.float64), y))
    assert "cudyn_reduce_dot" in dot.source


def test_get_elwise_kernel():
    from cudyn.elementwise import ElementwiseKernel, get_elwise_kernel
    k = get_elwise_kernel("float *y", "y[i] = 0", "zero")
    assert isinstance(k, ElementwiseKernel) and k.name == "zero"
