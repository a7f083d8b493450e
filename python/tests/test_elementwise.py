"""ElementwiseKernel and ReductionKernel: one class of each name (PyCUDA's
signature) for cudyn.elementwise, cudyn's top level and the PyCUDA layer,
written by the Python layer's generator; and cudyn.Elementwise /
cudyn.Reduction, the C library's confined expression kernels.

The mock runs the expression kernels it knows by name and text (those of
examples/elementwise.c: saxpy and dot) and none of the generated ones,
which it compiles and loads, then refuses at launch; their values come
from a GPU (test_pycuda_gpu.py)."""

import numpy as np
import pytest

import cudyn
from conftest import mock_calls

pytestmark = pytest.mark.mock


def test_one_class_of_each_name():
    import cudyn.elementwise
    import cudyn.pycuda.elementwise
    import cudyn.pycuda.reduction
    assert cudyn.ElementwiseKernel is cudyn.elementwise.ElementwiseKernel is cudyn.pycuda.elementwise.ElementwiseKernel
    assert cudyn.ReductionKernel is cudyn.elementwise.ReductionKernel is cudyn.pycuda.reduction.ReductionKernel


def test_elementwise_kernel_text_and_launch():
    k = cudyn.ElementwiseKernel("float a, const float *x, float *y", "y[i] = a * x[i] + y[i]", "saxpy")
    assert 'extern "C" __global__ void saxpy(float a, const float *x, float *y' in k.source
    x = cudyn.gpuarray.zeros(16, np.float32)
    with pytest.raises(cudyn.Error, match="cannot emulate kernel 'saxpy'"):
        k(np.float32(2), x, x)
    with pytest.raises(cudyn.Error, match="cannot emulate kernel 'saxpy'"):
        k(2.0, x, x, range=10)  # a Python float where the type is known; the count given


def test_elementwise_kernel_compiles_once(mock_lib):
    k = cudyn.ElementwiseKernel("float a, const float *x, float *y", "y[i] = a * x[i] + y[i]", "saxpy_once")
    x = cudyn.gpuarray.zeros(16, np.float32)
    with pytest.raises(cudyn.Error):
        k(np.float32(1), x, x)
    before = mock_calls(mock_lib, "cuModuleLoadData")
    for _ in range(10):
        with pytest.raises(cudyn.Error):
            k(np.float32(1), x, x)
    assert mock_calls(mock_lib, "cuModuleLoadData") == before


def test_elementwise_kernel_errors():
    k = cudyn.ElementwiseKernel("float a, const float *x, float *y", "y[i] = a * x[i] + y[i]", "saxpy")
    with pytest.raises(TypeError):
        k(np.float32(2), np.float32(1), np.float32(3))    # no device array to take n from
    x = cudyn.gpuarray.zeros(4, np.float32)
    with pytest.raises(TypeError):
        k(np.float32(2), x)                                # too few arguments
    with pytest.raises((TypeError, cudyn.Error)):
        k(np.float32(2), x, np.zeros(4, np.float32))       # a host array for a pointer
    with pytest.raises(TypeError):
        cudyn.ElementwiseKernel(["float a"], "y[i] = a")   # neither a string nor arguments that declare themselves
    with pytest.raises(cudyn.pycuda.Unsupported):
        cudyn.ElementwiseKernel("float *y", "y[i] = 0", options=["-O3"])
    broken = cudyn.ElementwiseKernel("float *y", "y[i] = 0", "broken", preamble="#error broken preamble\n")
    with pytest.raises(cudyn.CompileError) as info:
        broken(x)
    assert "broken preamble" in str(info.value)


def test_the_c_librarys_expression_kernels_confine_their_texts():
    # cudyn.Elementwise / cudyn.Reduction (lib/expr) run the examples' saxpy and dot on the mock
    saxpy = cudyn.Elementwise("float a, const float *x, float *y", "y[i] = a * x[i] + y[i]", "saxpy")
    n = 1000
    x = np.arange(n, dtype=np.float32)
    dx, dy = cudyn.gpuarray.to_gpu(x), cudyn.gpuarray.to_gpu(np.ones(n, np.float32))
    saxpy.launch(n, np.float32(2), dx, dy)
    np.testing.assert_array_equal(dy.get(), 2 * x + 1)
    with pytest.raises(cudyn.InvalidArgument) as info:    # confined: no directives in a body
        cudyn.Elementwise("float *y", "#include \"/etc/passwd\"\n", "hostile")
    assert "'#' is not allowed" in str(info.value)
    with pytest.raises(cudyn.InvalidArgument) as info:
        cudyn.Elementwise("float a, float **p", "p[i][0] = a", "bad")
    assert "p" in str(info.value)
    dot = cudyn.Reduction("float", "0", "a + b", "x[i] * y[i]", "const float *x, const float *y", "dot")
    y = (np.arange(n) % 5).astype(np.float32)
    out = cudyn.gpuarray.empty((), np.float32)
    dot.run(n, dx, cudyn.gpuarray.to_gpu(y), out=out)
    assert float(out.get()) == float(np.dot(x.astype(np.float64), y))


def test_reduction_kernel_text():
    dot = cudyn.ReductionKernel(np.float32, neutral="0", reduce_expr="a + b", map_expr="x[i] * y[i]",
                                arguments="const float *x, const float *y", name="dot")
    assert "_stage1(const float *x, const float *y, float *cudyn_partial" in dot.source
    x = cudyn.gpuarray.zeros(8, np.float32)
    with pytest.raises(cudyn.Error, match="cannot emulate kernel 'cudyn_dot_"):
        dot(x, x)
    with pytest.raises(ValueError):
        dot(x[::2], x[::2])  # the arrays must be C-contiguous


def test_get_elwise_kernel():
    from cudyn.elementwise import ElementwiseKernel, get_elwise_kernel
    k = get_elwise_kernel("float *y", "y[i] = 0", "zero")
    assert isinstance(k, ElementwiseKernel) and k.name == "zero"
