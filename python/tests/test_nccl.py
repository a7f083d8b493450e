"""cudyn.nccl on the mock libnccl (tests/mock/nccl): two ranks in this
process on the two mock devices (Communicator.for_devices, or a thread per
rank through a unique id), every call with its data checked, bad
arguments, NCCL's failures as cudyn's exceptions, and in child
interpreters what changes a process: no NCCL, an old NCCL, an
asynchronous error mid-collective (raised, never a hang).  On a real GPU
with an NCCL, test_nccl_on_a_gpu runs an all-reduce there."""

import ctypes
import os
import pickle
import shutil
import subprocess
import sys
import textwrap
import threading

import numpy as np
import pytest

from conftest import MOCK_LIBNCCL, run_python

@pytest.fixture
def nccl():
    """cudyn.nccl over the mock NCCL (every test but the GPU's)."""
    if not MOCK_LIBNCCL:
        pytest.skip("MOCK_LIBNCCL not set (run through make check)")
    import cudyn.nccl
    return cudyn.nccl


@pytest.fixture
def mock_nccl(nccl):
    """The loaded mock libnccl through ctypes (its mock_nccl_* controls)."""
    lib = ctypes.CDLL(nccl.info()["path"])
    lib.mock_nccl_fail_next.argtypes = [ctypes.c_char_p, ctypes.c_int]
    lib.mock_nccl_live_comms.restype = ctypes.c_int
    return lib


@pytest.fixture
def comms(nccl, mock_nccl):
    """A communicator per mock device; none left alive afterwards."""
    cs = nccl.Communicator.for_devices([0, 1])
    yield cs
    for c in cs:
        c.destroy()
    assert mock_nccl.mock_nccl_live_comms() == 0


def on(device, host):
    import cudyn
    with cudyn.Device(device):
        return cudyn.gpuarray.to_gpu(np.ascontiguousarray(host))


def get(device, array):
    import cudyn
    with cudyn.Device(device):
        cudyn.synchronize()
        return array.get()


# ------------------------------------------------------------ the module

def test_version_info_has_and_the_unique_id(nccl):
    assert nccl.version() == (2, 28, 9)
    info = nccl.info()
    assert info["status_name"] == "CUDYN_OK" and info["found_by"] == "CUDYN_LIBNCCL"
    assert info["path"] == MOCK_LIBNCCL and info["version"] == 22809
    assert nccl.has("ncclCommSplit") and nccl.has("CommSplit") and not nccl.has("ncclNoSuchFunction")
    uid = nccl.get_unique_id()
    assert isinstance(uid, bytes) and len(uid) == nccl.UNIQUE_ID_BYTES == 128
    assert pickle.loads(pickle.dumps(uid)) == uid and nccl.get_unique_id() != uid
    assert (nccl.SUM, nccl.PROD, nccl.MAX, nccl.MIN, nccl.AVG) == (0, 1, 2, 3, 4)
    assert nccl.DTYPES == "bBiIqQefdFD"
    import cudyn
    assert not any(name.startswith("_nccl") or "Nccl" in name for name in dir(cudyn))


def test_for_devices(comms, nccl):
    assert [(c.rank, c.size, c.device) for c in comms] == [(0, 2, 0), (1, 2, 1)]
    assert repr(comms[1]) == "<cudyn.nccl.Communicator rank 1 of 2 on device 1>"
    two = nccl.Communicator.for_devices(2)  # a count: devices 0 and 1
    assert [c.device for c in two] == [0, 1]
    for c in two:
        c.destroy()
        c.destroy()  # a second destroy does nothing
    assert "destroyed" in repr(two[0])


# ------------------------------------------------- every call, its data

def test_all_reduce_every_op(comms, nccl):
    data = [np.array([1, 5, -2, 8], np.float32), np.array([4, 2, 3, -1], np.float32)]
    want = {"sum": data[0] + data[1], "prod": data[0] * data[1], "max": np.maximum(*data),
            "min": np.minimum(*data), "avg": (data[0] + data[1]) / 2}
    for op, expected in want.items():
        for how in (op, op.upper(), getattr(nccl, op.upper())):
            xs = [on(r, data[r]) for r in range(2)]
            ys = [on(r, np.zeros(4, np.float32)) for r in range(2)]
            with nccl.group():
                for c in comms:
                    c.all_reduce(xs[c.rank], ys[c.rank], op=how)
            for r in range(2):
                np.testing.assert_array_equal(get(r, ys[r]), expected, err_msg=f"{op} as {how!r}")
                np.testing.assert_array_equal(get(r, xs[r]), data[r])  # the send buffer is untouched


def test_all_reduce_in_place_on_a_stream_every_dtype(comms, nccl):
    import cudyn
    for dtype in (np.int8, np.uint8, np.int32, np.uint32, np.int64, np.uint64, np.float16, np.float32,
                  np.float64, np.complex64, np.complex128):
        xs = [on(r, (np.arange(6) + r).astype(dtype)) for r in range(2)]
        streams = []
        for c in comms:
            with cudyn.Device(c.device):
                streams.append(cudyn.Stream())
        with nccl.group():
            for c in comms:
                c.all_reduce(xs[c.rank], stream=streams[c.rank])
        for c in comms:
            with cudyn.Device(c.device):
                c.wait(streams[c.rank])
            np.testing.assert_array_equal(get(c.rank, xs[c.rank]), (2 * np.arange(6) + 1).astype(dtype),
                                          err_msg=str(dtype))


def test_broadcast_and_reduce(comms, nccl):
    xs = [on(r, np.full(5, 10.0 * (r + 1))) for r in range(2)]
    ys = [on(r, np.zeros(5)) for r in range(2)]
    with nccl.group():
        for c in comms:
            c.broadcast(xs[c.rank], ys[c.rank], root=1)
    for r in range(2):
        np.testing.assert_array_equal(get(r, ys[r]), np.full(5, 20.0))
    with nccl.group():
        for c in comms:
            c.reduce(xs[c.rank], ys[c.rank], op="max", root=0)
    np.testing.assert_array_equal(get(0, ys[0]), np.full(5, 20.0))
    with nccl.group():  # in place, from root 0
        for c in comms:
            c.broadcast(xs[c.rank])
    np.testing.assert_array_equal(get(1, xs[1]), np.full(5, 10.0))


def test_all_gather_and_reduce_scatter(comms, nccl):
    xs = [on(r, np.arange(3, dtype=np.int32) + 10 * r) for r in range(2)]
    gathered = [on(r, np.zeros(6, np.int32)) for r in range(2)]
    with nccl.group():
        for c in comms:
            c.all_gather(xs[c.rank], gathered[c.rank])
    for r in range(2):
        np.testing.assert_array_equal(get(r, gathered[r]), [0, 1, 2, 10, 11, 12])
    blocks = [on(r, np.zeros(3, np.int32)) for r in range(2)]
    with nccl.group():
        for c in comms:
            c.reduce_scatter(gathered[c.rank], blocks[c.rank], op="sum")
    np.testing.assert_array_equal(get(0, blocks[0]), [0, 2, 4])
    np.testing.assert_array_equal(get(1, blocks[1]), [20, 22, 24])


def test_send_and_recv_in_a_group(comms, nccl):
    out = [on(r, np.full(4, r + 1.0, np.float32)) for r in range(2)]
    got = [on(r, np.zeros(4, np.float32)) for r in range(2)]
    with nccl.group():
        for c in comms:  # a ring of two: each sends to and receives from the other
            c.send(out[c.rank], peer=1 - c.rank)
            c.recv(got[c.rank], 1 - c.rank)
    np.testing.assert_array_equal(get(0, got[0]), np.full(4, 2.0))
    np.testing.assert_array_equal(get(1, got[1]), np.full(4, 1.0))
    nccl.group_start()  # the plain calls, nested
    with nccl.group():
        for c in comms:
            c.send(got[c.rank], 1 - c.rank)
            c.recv(out[c.rank], 1 - c.rank)
    nccl.group_end()
    np.testing.assert_array_equal(get(0, out[0]), np.full(4, 1.0))


def test_foreign_arrays_through_cai_and_dlpack(comms, nccl):
    class CAI:  # only __cuda_array_interface__
        def __init__(self, a):
            self.a, self.__cuda_array_interface__ = a, a.__cuda_array_interface__

    class DLPack:  # only DLPack
        def __init__(self, a):
            self.a = a

        def __dlpack__(self, stream=None):
            return self.a.__dlpack__()

        def __dlpack_device__(self):
            return self.a.__dlpack_device__()

    xs = [on(r, np.full(8, r + 2, np.int64)) for r in range(2)]
    with nccl.group():
        comms[0].all_reduce(CAI(xs[0]))
        comms[1].all_reduce(DLPack(xs[1]))
    for r in range(2):
        np.testing.assert_array_equal(get(r, xs[r]), np.full(8, 5))


def test_a_thread_per_rank_through_a_unique_id(nccl, mock_nccl):
    import cudyn
    uid = nccl.get_unique_id()
    results, errors = {}, []

    def rank(r):
        try:
            with nccl.Communicator(2, bytearray(uid), r, device=r) as c:
                assert (c.rank, c.size, c.device) == (r, 2, r)
                x = cudyn.gpuarray.to_gpu(np.full(1000, r + 1, np.float64))
                c.all_reduce(x)
                c.wait(timeout=60)
                results[r] = x.get()
        except BaseException as e:  # noqa: BLE001 - reported by the main thread
            errors.append(e)

    threads = [threading.Thread(target=rank, args=(r,)) for r in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert not errors, errors
    for r in range(2):
        np.testing.assert_array_equal(results[r], np.full(1000, 3.0))
    assert mock_nccl.mock_nccl_live_comms() == 0  # the with-blocks destroyed them
    with nccl.Communicator(1, memoryview(uid), 0) as alone:  # one rank, this thread's device
        assert (alone.rank, alone.size) == (0, 1)


def test_split(comms, nccl):
    with nccl.group():
        subs = [c.split(0 if c.rank == 1 else -1) for c in comms]
        assert "made when its group ends" in repr(subs[1])
    assert subs[0] is None and (subs[1].rank, subs[1].size, subs[1].device) == (0, 1, 1)
    subs[1].destroy()


# ------------------------------------------------------- bad arguments

def test_bad_buffers(comms, nccl):
    import cudyn
    c = comms[0]
    x = on(0, np.zeros(8, np.float32))
    with pytest.raises(TypeError, match="sendbuf must be a device array, not None"):
        c.all_reduce(None)
    with pytest.raises(cudyn.Error, match="host .*memory.* where device memory is needed"):
        c.all_reduce(np.zeros(8, np.float32))
    for dtype in (np.int16, np.bool_):
        with pytest.raises(TypeError, match="NCCL cannot carry sendbuf's dtype"):
            c.all_reduce(on(0, np.zeros(8, dtype)))
    with pytest.raises(TypeError, match="recvbuf's dtype float64 differs from sendbuf's float32"):
        c.all_reduce(x, on(0, np.zeros(8)))
    # what a buffer must hold is the library's rule, against its allocation
    with pytest.raises(cudyn.InvalidArgument, match="argument 'recv': 32 bytes .* run past the end of its allocation"):
        c.all_reduce(x, on(0, np.zeros(4, np.float32)))
    with pytest.raises(cudyn.InvalidArgument, match="cudyn_nccl_all_gather: argument 'recv': 64 bytes"):
        c.all_gather(x, on(0, np.zeros(8, np.float32)))
    with pytest.raises(cudyn.InvalidArgument, match="cudyn_nccl_reduce_scatter: argument 'send': 64 bytes"):
        c.reduce_scatter(on(0, np.zeros(15, np.float32)), x)  # 8 for each of the 2 ranks
    with pytest.raises(cudyn.InvalidArgument, match="must be contiguous"):
        c.all_reduce(on(0, np.zeros((4, 4), np.float32))[:, 1])
    with pytest.raises(cudyn.InvalidArgument, match="'send' .* lives on device 1, the communicator's is device 0"):
        c.all_reduce(on(1, np.zeros(8, np.float32)))
    with pytest.raises(cudyn.InvalidArgument, match="op must be one of 'SUM' 'PROD' 'MAX' 'MIN' 'AVG'"):
        c.all_reduce(x, op="mean")
    with pytest.raises(cudyn.InvalidArgument, match="op must be one of"):
        c.all_reduce(x, op=7)
    with pytest.raises(TypeError, match="stream must be None, a cudyn.Stream"):
        c.all_reduce(x, stream="default")

    class ReadOnly:  # a producer that says its memory must not be written
        def __init__(self, a):
            self.__cuda_array_interface__ = dict(a.__cuda_array_interface__, data=(a.ptr, True))

    with pytest.raises(cudyn.InvalidArgument, match="recvbuf is read-only, and the call writes it"):
        c.all_reduce(x, ReadOnly(x))
    with pytest.raises(cudyn.InvalidArgument, match="sendbuf is read-only"):
        c.all_reduce(ReadOnly(x))  # in place
    with pytest.raises(cudyn.InvalidArgument, match="buf is read-only"):
        c.recv(ReadOnly(x), 1)
    np.testing.assert_array_equal(get(0, x), np.zeros(8))  # nothing ran


def test_bad_ranks_and_ids(comms, nccl):
    import cudyn
    x = on(0, np.zeros(8, np.float32))
    with pytest.raises(cudyn.InvalidArgument) as e:
        comms[0].broadcast(x, root=2)
    assert "root 2 is not a rank of this communicator (0 to 1)" in str(e.value)
    assert e.value.function == "cudyn_nccl_broadcast"
    with pytest.raises(cudyn.InvalidArgument, match="peer -1 is not a rank"):
        comms[0].send(x, -1)
    uid = nccl.get_unique_id()
    with pytest.raises(cudyn.InvalidArgument, match="rank"):
        nccl.Communicator(2, uid, 2)
    with pytest.raises(cudyn.InvalidArgument):
        nccl.Communicator(0, uid, 0)
    with pytest.raises(cudyn.InvalidArgument, match="the 128 bytes of cudyn.nccl.get_unique_id[(][)], not 5 bytes"):
        nccl.Communicator(1, b"short", 0)
    with pytest.raises(TypeError, match="unique_id must be the 128 bytes"):
        nccl.Communicator(1, None, 0)
    with pytest.raises(TypeError, match="device must be an int"):
        nccl.Communicator(1, uid, 0, device="0")
    with pytest.raises(cudyn.InvalidArgument, match=r"Communicator: nranks must be -2\*\*31 \.\. 2\*\*31-1"):
        nccl.Communicator(2**64, uid, 0)
    with pytest.raises(cudyn.InvalidArgument, match=r"Communicator: rank must be"):
        nccl.Communicator(1, uid, -2**40)
    with pytest.raises(cudyn.InvalidArgument, match=r"split: color must be"):
        comms[0].split(2**31)
    with pytest.raises(cudyn.InvalidArgument, match="at least one device"):
        nccl.Communicator.for_devices([])
    with pytest.raises(TypeError, match="a device must be an int"):
        nccl.Communicator.for_devices([0, None])
    with pytest.raises(cudyn.Error):
        nccl.Communicator.for_devices([0, 7])
    with pytest.raises(cudyn.InvalidArgument, match="no group was started"):
        nccl.group_end()


def test_a_failed_call_fails_its_group_and_starts_none(comms, nccl):
    import cudyn
    xs = [on(r, np.ones(4, np.float32)) for r in range(2)]
    with pytest.raises(cudyn.InvalidArgument, match="root 5"):
        with nccl.group():
            comms[0].all_reduce(xs[0])
            comms[1].broadcast(xs[1], root=5)  # refused: the group ends, starting nothing
    np.testing.assert_array_equal(get(0, xs[0]), np.ones(4))
    with nccl.group():  # the next group is whole
        for c in comms:
            c.all_reduce(xs[c.rank])
    np.testing.assert_array_equal(get(0, xs[0]), np.full(4, 2.0))


def test_a_destroyed_or_aborted_communicator(nccl, mock_nccl):
    import cudyn
    x = on(0, np.zeros(4, np.float32))
    [c] = nccl.Communicator.for_devices([0])
    c.abort()
    with pytest.raises(cudyn.Error, match="was aborted") as e:
        c.all_reduce(x)
    assert e.value.status_name == "CUDYN_ERROR_INVALID_HANDLE"
    c.destroy()
    for call in (lambda: c.all_reduce(x), lambda: c.send(x, 0), c.check, c.wait, c.abort, lambda: c.split(0)):
        with pytest.raises(cudyn.InvalidArgument, match="this Communicator was destroyed"):
            call()
    with nccl.Communicator.for_devices([0])[0] as d:
        pass
    with pytest.raises(cudyn.InvalidArgument, match="destroyed"):
        d.all_reduce(x)
    with pytest.raises(ZeroDivisionError):  # leaving by an exception aborts, then destroys
        with nccl.Communicator.for_devices([0])[0]:
            1 / 0
    assert mock_nccl.mock_nccl_live_comms() == 0


# ------------------------------------------------------ NCCL's failures

def test_an_nccl_failure_is_cudyns_exception_with_nccls_message(comms, nccl, mock_nccl):
    import cudyn
    x = on(0, np.zeros(4, np.float32))
    mock_nccl.mock_nccl_fail_next(b"ncclAllReduce", 1)  # ncclUnhandledCudaError
    with pytest.raises(cudyn.Error) as e:
        comms[0].all_reduce(x)
    assert e.value.status_name == "CUDYN_ERROR_DRIVER"
    assert (e.value.native_code, e.value.native_name, e.value.function) == (1, "ncclUnhandledCudaError",
                                                                             "ncclAllReduce")
    assert "NCCL says: mock NCCL: ncclAllReduce failed as MOCK_NCCL_FAIL asked" in str(e.value)
    mock_nccl.mock_nccl_fail_next(b"ncclGroupEnd", 6)  # ncclRemoteError
    with pytest.raises(cudyn.Error) as e:
        with nccl.group():
            pass
    assert e.value.status_name == "CUDYN_ERROR_NCCL_REMOTE" and "peer rank" in e.value.hint
    mock_nccl.mock_nccl_fail_next(b"ncclGetUniqueId", 3)  # ncclInternalError
    with pytest.raises(cudyn.Error, match="ncclGetUniqueId returned ncclInternalError") as e:
        nccl.get_unique_id()
    assert e.value.status_name == "CUDYN_ERROR_NCCL"
    mock_nccl.mock_nccl_fail_next(b"ncclCommGetAsyncError", 5)  # ncclInvalidUsage
    with pytest.raises(cudyn.Error) as e:
        comms[0].check()
    assert e.value.status_name == "CUDYN_ERROR_NCCL"


def test_an_nccl_failure_has_origin_nccl(comms, nccl, mock_nccl):
    import cudyn
    mock_nccl.mock_nccl_fail_next(b"ncclAllReduce", 1)
    with pytest.raises(cudyn.Error) as e:
        comms[0].all_reduce(on(0, np.zeros(4, np.float32)))
    assert e.value.origin == "nccl"


ASYNC = """
import time, numpy as np, cudyn, cudyn.nccl as nccl
[c] = nccl.Communicator.for_devices([0])
x = cudyn.gpuarray.to_gpu(np.ones(4, np.float32))
c.all_reduce(x)   # the mock's first operation: it never finishes
t0 = time.monotonic()
try:
    c.wait({timeout})
    print("no error")
except cudyn.Error as e:
    print(e.status_name, time.monotonic() - t0 < 30)
    print(e)
try:
    c.check()
except cudyn.Error as e:
    print("after:", e.status_name)
c.destroy()
"""


@pytest.mark.parametrize("timeout", ["", "timeout=60"])
def test_an_asynchronous_error_mid_collective_is_raised_never_a_hang(nccl, timeout):
    p = run_python(ASYNC.format(timeout=timeout), extra={"MOCK_NCCL_ASYNC_ERROR": "1:50"}, timeout=60)
    assert p.returncode == 0, p.stdout + p.stderr
    out = p.stdout.splitlines()
    assert out[0] == "CUDYN_ERROR_NCCL_REMOTE True", p.stdout
    assert "a peer stopped answering" in out[1] and "the communicator was aborted" in out[1]
    assert out[2] == "after: CUDYN_ERROR_INVALID_HANDLE"  # aborted by the wait


def test_a_silent_hang_ends_at_the_timeout(nccl):
    p = run_python(ASYNC.format(timeout="timeout=0.2"), extra={"MOCK_NCCL_ASYNC_ERROR": "1:-1"}, timeout=60)
    assert p.returncode == 0, p.stdout + p.stderr
    out = p.stdout.splitlines()
    assert out[0] == "CUDYN_ERROR_TIMEOUT True" and "did not finish within 200 ms" in out[1], p.stdout


# ------------------------------------------- finding NCCL (in children)

MISSING = """
import cudyn, cudyn.nccl as nccl
i = nccl.info()
print(i["status_name"], nccl.has("AllReduce"))
try:
    nccl.get_unique_id()
except cudyn.Error as e:
    print(e.status_name)
    print(e)
    print(e.hint)
print(cudyn.device_count())   # the rest of cudyn works on
"""


def test_no_nccl_where_cudyn_libnccl_names_a_missing_file(nccl):
    p = run_python(MISSING, extra={"CUDYN_LIBNCCL": "/nonexistent/libnccl.so.2"})
    assert p.returncode == 0, p.stderr
    out = p.stdout.splitlines()
    assert out[:2] == ["CUDYN_ERROR_NCCL_NOT_FOUND False", "CUDYN_ERROR_NCCL_NOT_FOUND"], p.stdout
    assert "CUDYN_LIBNCCL=/nonexistent/libnccl.so.2 is not a usable NCCL" in out[2]
    assert "point CUDYN_LIBNCCL at libnccl.so.2" in out[3] and out[4] == "2"


def _dynamic_loader():
    with open("/proc/self/maps") as maps:
        for line in maps:
            path = line.split()[-1]
            if os.path.basename(path).startswith("ld-linux") and os.access(path, os.X_OK):
                return path
    return None


def test_no_nccl_anywhere_names_what_to_install(nccl):
    # run through the dynamic loader with its cache off, so that an NCCL
    # that ldconfig knows of (a CUDA toolkit's) is not found by soname
    loader = _dynamic_loader()
    if not loader:
        pytest.skip("no dynamic loader to run the interpreter with --inhibit-cache")
    import subprocess
    import sys

    from conftest import child_env
    env = child_env({"CUDYN_LIBNCCL": None, "VIRTUAL_ENV": None, "CONDA_PREFIX": None, "HOME": "/nonexistent"})
    p = subprocess.run([loader, "--inhibit-cache", sys.executable, "-c", MISSING], env=env, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, universal_newlines=True, timeout=120)
    assert p.returncode == 0, p.stderr
    out = p.stdout.splitlines()
    if out[0].startswith("CUDYN_OK"):
        pytest.skip("this machine has an NCCL of its own beside the interpreter")
    assert out[1] == "CUDYN_ERROR_NCCL_NOT_FOUND" and "NCCL (libnccl.so.2) was not found" in out[2], p.stdout
    assert "pip install nvidia-nccl-cu13" in out[3] and "libnccl2" in out[3]


OLD = """
import numpy as np, cudyn, cudyn.nccl as nccl
print(nccl.version(), nccl.has("CommSplit"), nccl.has("Send"))
[c] = nccl.Communicator.for_devices([0])
for call in (lambda: c.split(0), lambda: c.all_reduce(cudyn.gpuarray.to_gpu(np.ones(4, np.float32)), op="avg")):
    try:
        call()
        print("ok")
    except cudyn.Error as e:
        print(e.status_name, e)
c.destroy()
"""


def test_an_old_nccl(nccl):
    old = os.environ.get("MOCK_LIBNCCL_OLD")
    if not old:
        pytest.skip("MOCK_LIBNCCL_OLD not set (run through make check)")
    p = run_python(OLD, extra={"CUDYN_LIBNCCL": old})
    assert p.returncode == 0, p.stdout + p.stderr
    out = p.stdout.splitlines()
    assert out[0] == "(2, 12, 12) False True", p.stdout
    assert out[1].startswith("CUDYN_ERROR_NOT_SUPPORTED") and "has no ncclCommSplit" in out[1]
    assert out[2] == "ok"  # a mean from 2.10
    p = run_python(OLD, extra={"CUDYN_LIBNCCL": old, "MOCK_NCCL_VERSION": "2904"})
    out = p.stdout.splitlines()
    assert out[0] == "(2, 9, 4) False True" and "CUDYN_NCCL_AVG needs NCCL 2.10 or newer" in out[2], p.stdout


def test_an_nccl_too_old_to_use(nccl):
    p = run_python(MISSING, extra={"MOCK_NCCL_VERSION": "2604"})
    assert p.returncode == 0, p.stderr
    out = p.stdout.splitlines()
    assert out[1] == "CUDYN_ERROR_NCCL_NOT_FOUND" and "is NCCL 2.6.4, older than 2.7.3" in out[2], p.stdout


# --------------------------------------------------- MPI's own device path

AWARE = """
import cudyn.nccl
s = cudyn.nccl.mpi_cuda_support()
print(s["answer"], s["source"])
print(s["reason"])
"""
LAUNCHERS = ("OMPI_MCA_opal_cuda_support", "MV2_USE_CUDA", "MPICH_GPU_SUPPORT_ENABLED", "UCX_TLS")


@pytest.mark.parametrize("variable, value, answer", [("MV2_USE_CUDA", "1", "yes"), ("UCX_TLS", "tcp,self", "no"),
                                                     (None, None, "unknown")])
def test_mpi_cuda_support_from_the_launchers_variables(nccl, variable, value, answer):
    env = dict.fromkeys(LAUNCHERS)
    if variable:
        env[variable] = value
    p = run_python(AWARE, extra=env)
    assert p.returncode == 0, p.stderr
    out = p.stdout.splitlines()
    assert out[0] == f"{answer} {variable}", p.stdout
    assert out[1].startswith("because ")


MPI4PY_DEVICE = """
import sys
from mpi4py import MPI
import numpy as np, cudyn, cudyn.autoinit, cudyn.nccl
comm = MPI.COMM_WORLD
aware = cudyn.nccl.mpi_cuda_support()
if aware["answer"] != "yes":
    print("skip: this MPI is not CUDA-aware,", aware["reason"]); sys.exit(0)
x = cudyn.gpuarray.to_gpu(np.full(1 << 16, comm.rank + 1.0, np.float32))
y = cudyn.gpuarray.empty_like(x)
cudyn.synchronize()                  # MPI reads the memory, not the stream's queued work
comm.Allreduce(x, y, op=MPI.SUM)     # mpi4py takes the arrays through __cuda_array_interface__
ok = np.array_equal(y.get(), np.full(1 << 16, comm.size * (comm.size + 1) / 2, np.float32))
print("mpi4py Allreduce on device arrays:", "PASS" if comm.allreduce(ok, op=MPI.LAND) else "FAIL")
"""


@pytest.mark.gpu
def test_mpi4py_allreduce_on_device_arrays_where_mpi_is_cuda_aware(real_gpu, tmp_path):
    import shutil
    import subprocess
    import sys

    from conftest import child_env
    mpirun = os.environ.get("MPIRUN") or shutil.which("mpirun")
    if not mpirun or real_gpu < 2:
        pytest.skip("needs mpirun and two GPUs")
    script = tmp_path / "mpi4py_device.py"
    script.write_text(MPI4PY_DEVICE)
    env = child_env(mock=False)
    env.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    p = subprocess.run([mpirun, "--oversubscribe", "-n", "2", sys.executable, str(script)], env=env,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True, timeout=300)
    if "No module named 'mpi4py'" in p.stderr:
        pytest.skip("mpi4py is not installed")
    assert p.returncode == 0, p.stdout + p.stderr
    if p.stdout.startswith("skip:"):
        pytest.skip(p.stdout.splitlines()[0])
    assert "mpi4py Allreduce on device arrays: PASS" in p.stdout, p.stdout


# ------------------------------------------------------------ a real GPU

GPU = """
import numpy as np, cudyn, cudyn.nccl as nccl
if nccl.info()["status"] != 0:
    print("skip: no NCCL:", nccl.info()["trace"].splitlines()[-1]); raise SystemExit
n = min(cudyn.device_count(), 2)
cs = nccl.Communicator.for_devices(n)
xs = []
for c in cs:
    with cudyn.Device(c.device):
        xs.append(cudyn.gpuarray.to_gpu(np.arange(1 << 20, dtype=np.float32) * (c.rank + 1)))
held = []
with nccl.group():
    for c in cs:
        c.all_reduce(xs[c.rank])
    for attempt in (cs[0].destroy, cs[0].abort, xs[0].base.free):  # the group holds them until its end
        try:
            attempt()
            held.append("accepted")
        except cudyn.InvalidArgument as e:
            held.append("in use" in str(e))
ok = held == [True, True, True]
if not ok:
    print("inside the group:", held)
for c in cs:
    with cudyn.Device(c.device):
        c.wait(timeout=60)
        ok &= np.array_equal(xs[c.rank].get(), np.arange(1 << 20, dtype=np.float32) * (n * (n + 1) // 2))
    c.destroy()
print("NCCL", nccl.version(), n, "GPUs", "PASS" if ok else "FAIL")
"""


@pytest.mark.gpu
def test_nccl_on_a_gpu(real_gpu):
    p = run_python(GPU, mock=False, timeout=300)
    assert p.returncode == 0, p.stdout + p.stderr
    if p.stdout.startswith("skip:"):
        pytest.skip(p.stdout.strip())
    assert p.stdout.strip().endswith("PASS"), p.stdout


def test_gpu_children_keep_the_users_nccl_under_xdist(tmp_path):
    # pytest -n: the workers inherit the environment conftest gave the mock;
    # a GPU test's child must still get the user's NCCL and kernel cache (the
    # mock NCCL on a real GPU's memory is a segfault)
    pytest.importorskip("xdist")
    if not MOCK_LIBNCCL:
        pytest.skip("MOCK_LIBNCCL not set (run through make check)")
    here = os.path.dirname(os.path.abspath(__file__))
    shutil.copy(os.path.join(here, "conftest.py"), tmp_path)
    (tmp_path / "test_probe.py").write_text(textwrap.dedent("""
        import os
        from conftest import child_env
        def test_probe():
            assert os.environ["CUDYN_LIBNCCL"] == os.environ["MOCK_LIBNCCL"]  # the mock's, in this worker
            env = child_env(mock=False)
            assert "CUDYN_LIBNCCL" not in env and env["CUDYN_CACHE_DIR"] == "/the/user/s/cache"
        """))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CUDYN_LIBNCCL", "CUDYN_PYTEST_USER_", "PYTEST_"))}
    env["CUDYN_CACHE_DIR"] = "/the/user/s/cache"
    p = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "-n", "2", "test_probe.py"],
                       cwd=str(tmp_path), env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       universal_newlines=True, timeout=120)
    assert p.returncode == 0 and "1 passed" in p.stdout, p.stdout
