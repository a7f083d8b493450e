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


# ------------------------------------------- the lifetime rule under races
# free(), destroy() and abort() from other threads against work in flight:
# each either raises InvalidArgument ("in use") or, where nothing holds the
# object any more, succeeds; the work never runs on freed memory or a
# destroyed communicator, and every result is checked.

FREERS = 4
RACE_ROUNDS = 6


def _nccl():
    from conftest import MOCK_LIBNCCL
    if not MOCK_LIBNCCL:
        pytest.skip("MOCK_LIBNCCL not set (run through make check)")
    import ctypes
    import cudyn.nccl as nccl
    mock = ctypes.CDLL(nccl.info()["path"])
    mock.mock_nccl_calls.restype, mock.mock_nccl_calls.argtypes = ctypes.c_long, [ctypes.c_char_p]
    return nccl, mock


def _on(device, host):
    with cudyn.Device(device):
        return gpuarray.to_gpu(host)


def _hammer(targets, times, outcomes):
    """Calls each of targets `times` times from FREERS threads at once,
    recording what each call raised (its class name) or "ok"."""
    start = threading.Barrier(FREERS)

    def one():
        start.wait()
        for _ in range(times):
            for name, call in targets:
                try:
                    call()
                    outcomes.append((name, "ok"))
                except cudyn.InvalidArgument as e:
                    outcomes.append((name, "in use" if "in use" in str(e) else str(e)))
                except Exception as e:  # noqa: BLE001 (the wrong kind is the finding)
                    outcomes.append((name, repr(e)))

    threads = [threading.Thread(target=one) for _ in range(FREERS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()


def test_free_destroy_and_abort_race_a_group_not_yet_ended():
    nccl, _ = _nccl()
    comms = nccl.Communicator.for_devices([0, 1])
    for r in range(RACE_ROUNDS):
        xs = [_on(k, np.full(N, k + r, np.float32)) for k in range(2)]
        outcomes = []
        with nccl.group():
            for c in comms:
                c.all_reduce(xs[c.rank])
            _hammer([("free", xs[0].base.free), ("destroy", comms[1].destroy), ("abort", comms[0].abort)], 3,
                    outcomes)
        assert outcomes and all(o == "in use" for _, o in outcomes), outcomes
        for k in range(2):
            with cudyn.Device(k):
                np.testing.assert_array_equal(xs[k].get(), np.full(N, 1 + 2 * r, np.float32))
    for c in comms:
        c.destroy()


def test_free_destroy_and_abort_race_a_collective_without_the_gil():
    # rank 0's all-reduce waits inside the mock NCCL for rank 1, the GIL
    # released: what the other threads try meanwhile must raise
    nccl, mock = _nccl()
    comms = nccl.Communicator.for_devices([0, 1])
    for r in range(RACE_ROUNDS):
        xs = [_on(k, np.full(N, k + r, np.float32)) for k in range(2)]
        before = mock.mock_nccl_calls(b"ncclAllReduce")
        result, outcomes = [], []
        waiting = threading.Thread(target=lambda: result.append(comms[0].all_reduce(xs[0])))
        waiting.start()
        while mock.mock_nccl_calls(b"ncclAllReduce") == before:
            threading.Event().wait(0.001)
        _hammer([("free", xs[0].base.free), ("destroy", comms[0].destroy), ("abort", comms[0].abort)], 3,
                outcomes)
        comms[1].all_reduce(xs[1])
        waiting.join()
        assert result == [None] and outcomes and all(o == "in use" for _, o in outcomes), outcomes
        for k in range(2):
            with cudyn.Device(k):
                np.testing.assert_array_equal(xs[k].get(), np.full(N, 1 + 2 * r, np.float32))
    for c in comms:
        c.destroy()


def test_free_races_launches_with_in_out_buffers():
    # free() of a device argument while launches with In/Out buffers run in
    # other threads: it raises while a launch holds the memory and frees it
    # once none does; a launch then refuses the freed memory, and one that
    # ran computed from live memory
    module = cudyn.SourceModule(SAXPY, options=["--fmad=false"])
    saxpy = module.get_function("saxpy")
    a, xs = np.float32(2.5), np.arange(N, dtype=np.float32)
    # many rounds: a free() that marked the memory freed only after the
    # driver's free (without the GIL) let a launch pack the address in
    # between, about once in 300 rounds
    for r in range(50 * RACE_ROUNDS):
        ys = np.full(N, float(r), np.float32)
        y = cudyn.DeviceMemory(N * 4)  # its own: not the pool's, which a free() would confuse
        cudyn.memcpy_htod(y, ys)
        results = {}

        def launch(index):
            out = np.zeros(N, np.float32)
            try:
                saxpy(a, cudyn.In(xs), y, cudyn.Out(out), np.uint64(N), grid=(2,), block=(128,))
                results[index] = "ok" if np.array_equal(out, a * xs + ys) else "wrong values"
            except cudyn.InvalidArgument as e:
                results[index] = "freed" if "freed" in str(e) else str(e)

        launchers = [threading.Thread(target=launch, args=(i,)) for i in range(THREADS // 2)]
        for t in launchers:
            t.start()
        freed = []
        while not freed:
            try:
                y.free()
                freed.append(True)
            except cudyn.InvalidArgument as e:
                assert "in use" in str(e), e
        for t in launchers:
            t.join()
        assert len(results) == len(launchers) and set(results.values()) <= {"ok", "freed"}, results


def test_calls_and_close_race_a_linker():
    # the Linker under the lifetime rule: calls on one linker from several
    # threads at once each run or raise "in use" (cudyn.h: a linker is used
    # by one thread at a time), and close() raises while one runs; nothing
    # runs on a closed linker
    from test_link import CALLEE_PTX, CALLER_PTX
    closed = "Linker.add_data: the Linker was closed"
    for r in range(RACE_ROUNDS):
        linker = cudyn.Linker(driver=True)
        linker.add_data(CALLER_PTX.encode(), cudyn.LINK_PTX, "caller.ptx")
        outcomes = []
        _hammer([("add", lambda: linker.add_data(CALLEE_PTX.encode(), cudyn.LINK_PTX, "callee.ptx")),
                 ("log", lambda: linker.log)], 3, outcomes)
        assert {o for _, o in outcomes} <= {"ok", "in use"} and ("add", "ok") in outcomes, outcomes
        assert cudyn.Module.from_image(linker.complete()).get_function("k").name == "k"
        linker.close()
        racing = cudyn.Linker(driver=True)
        outcomes = []
        _hammer([("add", lambda: racing.add_data(CALLEE_PTX.encode(), cudyn.LINK_PTX)), ("close", racing.close)], 2,
                outcomes)
        assert {o for _, o in outcomes} <= {"ok", "in use", closed} and ("close", "ok") in outcomes, outcomes
        with pytest.raises(cudyn.InvalidArgument, match="closed"):
            racing.add_data(CALLEE_PTX.encode())
