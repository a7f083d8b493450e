"""The extension's types used directly, beyond what the seed programs touch."""

import numpy as np
import pytest

pytestmark = pytest.mark.mock

SAXPY = """
__global__ void saxpy(float a, const float *x, const float *y, float *out, size_t n)
{
    size_t tid = blockIdx.x * blockDim.x + threadIdx.x;
    for (size_t i = tid; i < n; i += (size_t)blockDim.x * gridDim.x)
        out[i] = a * x[i] + y[i];
}
"""


def test_module_from_source_and_from_image_of_its_ptx():
    import cudyn
    cubin = cudyn.Module.from_source(SAXPY, options=("--fmad=false",))
    assert isinstance(cubin, cudyn.Module) and cubin.device == 0
    assert cubin.target == "sm_90"
    mod = cudyn.Module.from_source(SAXPY, options=("-arch=compute_90",))
    assert mod.target == "compute_90" and ".entry saxpy" in mod.ptx
    again = cudyn.Module.from_image(mod.ptx.encode() + b"\0")
    f = again.get_function("saxpy")
    assert isinstance(f, cudyn.Function) and f.name == "saxpy" and f.module is again
    for attribute in ("num_regs", "shared_size_bytes", "local_size_bytes", "const_size_bytes", "ptx_version",
                      "binary_version", "max_threads_per_block"):
        assert isinstance(getattr(f, attribute), int), attribute


def test_function_layout_and_prepared_async_call():
    import cudyn
    f = cudyn.SourceModule(SAXPY).get_function("saxpy")
    x = cudyn.gpuarray.to_gpu(np.arange(64, dtype=np.float32))
    out = cudyn.gpuarray.empty(64, np.float32)
    f(np.float32(1), x, x, out, np.uint64(64), grid=(1,), block=(64,))
    assert f.layout  # the launch format found at the first call
    p = f.prepare("fPPPQ")
    assert isinstance(p, cudyn.PreparedFunction) and p.function is f and p.format
    s = cudyn.Stream()
    p.prepared_async_call((1,), (64,), s, 3.0, x, x, out, 64)
    s.synchronize()
    np.testing.assert_array_equal(out.get(), 4 * np.arange(64, dtype=np.float32))
    with pytest.raises(cudyn.InvalidArgument) as info:
        p((1,), (64,), 3.0, x, x, out)          # one argument short
    assert "takes 5 arguments, 4 given" in str(info.value)
    assert issubclass(cudyn.LaunchArgumentError, TypeError)


def test_elementwise_and_reduction_types():
    import cudyn
    k = cudyn.Elementwise("float a, const float *x, float *y", "y[i] = a * x[i] + y[i]", "saxpy")
    x = cudyn.gpuarray.to_gpu(np.ones(100, np.float32))
    y = cudyn.gpuarray.to_gpu(np.ones(100, np.float32))
    k.launch(100, 2.0, x, y)
    assert (y.get() == 3).all()
    r = cudyn.Reduction("float", "0", "a + b", "x[i] * y[i]", "const float *x, const float *y", "dot")
    assert r.run(100, x, y) == 300.0
    out = cudyn.gpuarray.empty((), np.float32)
    r.run(100, x, y, out=out)
    assert float(out.get()) == 300.0


def test_explicit_capture_graph_and_exec():
    import cudyn
    f = cudyn.SourceModule(SAXPY).get_function("saxpy")
    x = cudyn.gpuarray.to_gpu(np.ones(32, np.float32))
    out = cudyn.gpuarray.zeros(32, np.float32)
    s = cudyn.Stream()
    assert s.capture_status() == 0
    s.begin_capture()
    assert s.capture_status() == 1
    f(np.float32(2), x, x, out, np.uint64(32), grid=(1,), block=(32,), stream=s)
    graph = s.end_capture()
    assert isinstance(graph, cudyn.Graph)
    exec_ = graph.instantiate()
    assert isinstance(exec_, cudyn.GraphExec)
    exec_.launch(stream=s)
    s.synchronize()
    assert (out.get() == 3).all()
    assert isinstance(cudyn.CapturedGraph(s), cudyn.CapturedGraph)


def test_cuda_array_and_texture_objects():
    import cudyn
    image = np.arange(12, dtype=np.float32).reshape(3, 4)
    array = cudyn.Array((3, 4), np.float32)
    assert (array.height, array.width, array.channels) == (3, 4, 1) and array.depth in (0, 1)
    array.copy_from(image)
    back = np.zeros_like(image)
    array.copy_to(back)
    np.testing.assert_array_equal(back, image)
    with pytest.raises((ValueError, TypeError)):
        array.copy_from(np.zeros(5, np.float32))
    texture = cudyn.Texture(array, filter_mode=cudyn.FILTER_POINT, address_mode=cudyn.ADDRESS_CLAMP)
    assert isinstance(texture.handle, int) and texture.handle
    with pytest.raises(TypeError):
        cudyn.Texture(image)                     # a host array is not a CUDA array


def test_array_and_memory_attributes():
    import cudyn
    a = cudyn.gpuarray.zeros((2, 3), np.int16)
    assert a.ndim == 2 and a.readonly is False and a.stream is None and a.managed is False
    m = cudyn.managed_empty((4,), np.float32)
    assert m.managed is True and m.base.managed is True
    mem = cudyn.DeviceMemory(16)
    assert mem.freed is False and mem.managed is False
    mem.free()
    assert mem.freed is True
    s = cudyn.Stream()
    on_stream = cudyn.DeviceArray((4,), np.float32, stream=s)
    assert on_stream.stream is s


def test_device_attributes_and_peers():
    import cudyn
    attributes = cudyn.device_attributes(0)
    assert attributes and all(isinstance(v, int) for v in attributes.values())
    if cudyn.can_access_peer(0, 1):
        cudyn.enable_peer(0, 1)
        cudyn.enable_peer(0, 1)  # enabling what is enabled succeeds
    with pytest.raises(cudyn.DeviceError):
        cudyn.enable_peer(0, 9)
    cudyn.Device(0).use()


def test_gpuarray_helpers():
    from cudyn import gpuarray
    host = np.arange(5, dtype=np.float32)
    a = gpuarray.to_gpu_async(host)
    np.testing.assert_array_equal(a.get(), host)
    np.testing.assert_array_equal(gpuarray.ones_like(a).get(), np.ones(5, np.float32))
    np.testing.assert_array_equal(gpuarray.ones(3).get(), np.ones(3, np.float32))
    np.testing.assert_array_equal(a.astype(np.float32).get(), host)
