"""Streams, events with elapsed time, and graph capture."""

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


def test_stream_and_events():
    import cudyn
    s = cudyn.Stream()
    assert isinstance(s.handle, int) and s.handle
    start, end = cudyn.Event(), cudyn.Event()
    start.record(s)
    host = np.arange(64, dtype=np.float32)
    a = cudyn.gpuarray.empty(64, np.float32)
    a.set(host, stream=s)
    end.record(s)
    end.synchronize()
    assert end.query() is True and s.query() is True
    ms = end.time_since(start)
    assert ms >= 0 and start.time_till(end) == pytest.approx(ms)
    s.wait_event(end)
    s.synchronize()
    np.testing.assert_array_equal(a.get(stream=s), host)


def test_stream_from_handle_is_the_same_stream():
    import cudyn
    s = cudyn.Stream()
    again = cudyn.Stream.from_handle(s.handle)
    assert again.handle == s.handle
    again.synchronize()


def test_launch_on_a_stream():
    import cudyn
    n = 128
    f = cudyn.SourceModule(SAXPY).get_function("saxpy")
    s = cudyn.Stream()
    x = cudyn.gpuarray.to_gpu(np.ones(n, np.float32))
    out = cudyn.gpuarray.empty(n, np.float32)
    f(np.float32(2), x, x, out, np.uint64(n), grid=(1,), block=(128,), stream=s)
    s.synchronize()
    assert (out.get() == 3).all()


def test_graph_capture_as_a_context_manager():
    import cudyn
    n = 64
    f = cudyn.SourceModule(SAXPY).get_function("saxpy")
    s = cudyn.Stream()
    x = cudyn.gpuarray.to_gpu(np.ones(n, np.float32))
    out = cudyn.gpuarray.zeros(n, np.float32)
    with s.capture() as graph:
        f(np.float32(4), x, x, out, np.uint64(n), grid=(1,), block=(64,), stream=s)
    assert graph.graph is not None
    assert (out.get() == 0).all()  # captured, not run
    graph.launch()
    s.synchronize()
    assert (out.get() == 5).all()


def test_a_failed_capture_block_ends_the_capture():
    import cudyn
    s = cudyn.Stream()
    with pytest.raises(RuntimeError):
        with s.capture() as graph:
            raise RuntimeError("inside")
    assert graph.graph is None
    with pytest.raises(RuntimeError):
        graph.launch()
    s.synchronize()  # the stream works again
