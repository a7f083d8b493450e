"""Eight threads sharing one Module, its Function (called and prepared),
Streams and arrays on the mock: launches, copies, allocations and frees,
modules loaded and dropped, events, expression kernels and garbage
collection, all racing.  Bounded: a fixed number of rounds per thread, no
timing asserted; every result is checked against numpy.  Each thread frees
only memory no other thread is using (a free under another thread's copy is
defect 3 of test_reliability.py).  CI runs this file, with the module's
other thread tests, under ThreadSanitizer (.ci/run's tsan-python job)."""

import gc
import threading

import numpy as np
import pytest

import cudyn
from cudyn import gpuarray
from test_module import SAXPY

pytestmark = pytest.mark.mock

THREADS = 8
ROUNDS = 12
N = 256


def test_threads_share_functions_modules_streams_and_arrays():
    a = np.float32(2.5)
    xs = np.arange(N, dtype=np.float32)
    ys = np.linspace(-1, 1, N, dtype=np.float32)
    expected = (a * xs).astype(np.float32) + ys
    module = cudyn.SourceModule(SAXPY, options=["--fmad=false"])
    saxpy = module.get_function("saxpy")
    prepared = saxpy.prepare("fPPPQ")
    streams = [cudyn.Stream() for _ in range(3)]
    x, y = gpuarray.to_gpu(xs), gpuarray.to_gpu(ys)  # read by every thread
    start = threading.Barrier(THREADS)
    failures = []

    def launch(kind, out, stream, own):
        if kind == 0:
            saxpy(a, x, y, out, np.uint64(N), grid=(2,), block=(128,), stream=stream)
        elif kind == 1:
            prepared.prepared_async_call((2,), (128,), stream, a, x, y, out, N)
        elif kind == 2:  # a module of its own, of the same source, dropped by the next round
            own[:] = [cudyn.SourceModule(SAXPY, options=["--fmad=false"])]
            own[0].get_function("saxpy")(a, x, y, out, np.uint64(N), grid=(1,), block=(256,), stream=stream)
        else:  # the expression kernels gpuarray shares between threads
            stream.synchronize()
            out.set(((a * x) + y).get())

    def work(index):
        own = []
        try:
            start.wait()
            for r in range(ROUNDS):
                stream = streams[(index + r) % len(streams)]
                out = gpuarray.empty(N, np.float32)
                launch((index + r) % 4, out, stream, own)
                done = cudyn.Event()
                done.record(stream)
                done.synchronize()
                np.testing.assert_array_equal(out.get(), expected)
                scratch = cudyn.DeviceMemory(N * 4)  # copies of shared memory into its own
                cudyn.memcpy_dtod(scratch, x, N * 4)
                host = np.empty(N, np.float32)
                cudyn.memcpy_dtoh(host, scratch)
                np.testing.assert_array_equal(host, xs)
                scratch.free()
                cycle = [gpuarray.empty(N, np.float32), out]  # freed by whichever thread collects
                cycle.append(cycle)
                if r % 4 == index % 4:
                    gc.collect()
        except Exception as e:  # noqa: BLE001 (reported with its thread below)
            failures.append((index, repr(e)))

    threads = [threading.Thread(target=work, args=(i,)) for i in range(THREADS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    gc.collect()
    cudyn.synchronize()
    assert not failures, failures
    np.testing.assert_array_equal(x.get(), xs)
