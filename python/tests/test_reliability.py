"""The reliability audit of the module (its eleven defects): one test per
defect, asserting what the module must do instead -- a clean exception of
the documented type naming the argument, no crash, no write through freed
or read-only memory, the producer's own exception unchanged.

Each case that could crash the interpreter runs in a child interpreter
(conftest.run_python), so that a crash is this test's failure, not the end
of pytest.  A defect not fixed yet keeps its test marked xfail(strict=True)
with the defect's number: the fix makes it pass, which strict turns into a
failure until the marker goes.
"""

import numpy as np
import pytest

import cudyn
from conftest import run_python

pytestmark = pytest.mark.mock


def defect(number, what):
    return pytest.mark.xfail(strict=True, reason=f"defect {number} of the reliability audit: {what}")


def child_lines(code, extra=None):
    """Runs code in a child interpreter; its output lines (it must exit 0)."""
    p = run_python(code, extra=extra)
    assert p.returncode == 0, f"the child exited {p.returncode}:\n{p.stdout}\n{p.stderr}"
    return p.stdout.splitlines()


# A child's helper: what a call raised, as "TYPE" or "ok".
OUTCOME = """
import numpy as np, cudyn
from cudyn import gpuarray
def outcome(f):
    try:
        f()
        return "ok"
    except BaseException as e:
        return type(e).__name__
"""


def test_object_dtype_refused_everywhere():
    lines = child_lines(OUTCOME + """
import dlpack_capsules as dl
keep = gpuarray.to_gpu(np.zeros(8, np.float64))
class Producer:
    def __init__(self, typestr):
        self.__cuda_array_interface__ = {"shape": (4,), "typestr": typestr, "data": (keep.ptr, False), "version": 3}
# what the device can hold is accepted
for dtype in ("f4", "c16", "?", [("a", "<i4"), ("b", "<f8")]):
    print("accepted", dtype, outcome(lambda: cudyn.DeviceArray((2,), dtype)))
print("accepted CAI", outcome(lambda: cudyn.asarray(Producer("<f8"))))
# what holds pointers is not
print("DeviceArray", outcome(lambda: cudyn.DeviceArray((4,), object)))
print("DeviceArray record", outcome(lambda: cudyn.DeviceArray((2,), [("p", object), ("x", "<f4")])))
print("to_gpu", outcome(lambda: gpuarray.to_gpu(np.array([1, "a"], dtype=object))))
print("set", outcome(lambda: keep.set(np.array([None] * 8, dtype=object))))
print("CAI", outcome(lambda: cudyn.asarray(Producer("|O"))))
print("DLPack", outcome(lambda: cudyn.from_dlpack(dl.capsule(keep.ptr, (4,), code=dl.OPAQUE_HANDLE, bits=64))))
""")
    accepted = [line for line in lines if line.startswith("accepted")]
    assert accepted and all(line.endswith(" ok") for line in accepted), lines
    refused = [line for line in lines if not line.startswith("accepted")]
    assert refused == [f"{entry} TypeError" for entry in
                       ("DeviceArray", "DeviceArray record", "to_gpu", "set", "CAI", "DLPack")]


def test_view_of_freed_memory_refuses_access():
    lines = child_lines(OUTCOME + """
x = gpuarray.to_gpu(np.arange(8, dtype=np.float32))
views = {"reshape": x.reshape(2, 4), "ptr=array": cudyn.DeviceArray((8,), np.float32, ptr=x),
         "from_dlpack": cudyn.from_dlpack(x)}
x.base.free()
y = gpuarray.to_gpu(np.zeros(8, np.float32))   # may get the freed address
for name, v in views.items():
    ones = np.ones(v.shape, np.float32)
    print(name, outcome(lambda: v.ptr), outcome(lambda: v.get()), outcome(lambda: v.set(ones)))
print("y", y.get().tolist())
""")
    assert lines == [f"{name} InvalidArgument InvalidArgument InvalidArgument"
                     for name in ("reshape", "ptr=array", "from_dlpack")] + ["y " + str([0.0] * 8)]


def test_free_while_copying_is_safe():
    # The mock holds each device-to-host copy 1 s inside the driver, the raw
    # address already taken; free() comes meanwhile (once the mock's call
    # counter shows the copy inside) and must wait or raise: the copy then
    # completes.  Today the memory goes from under it (the mock, which looks
    # the address up after the wait, refuses; a larger copy crashes).
    lines = child_lines("""
import ctypes, os, threading, time, numpy as np, cudyn
calls = ctypes.CDLL(os.environ["CUDYN_LIBCUDA"]).mock_calls
calls.restype, calls.argtypes = ctypes.c_long, [ctypes.c_char_p]
for _ in range(2):
    m = cudyn.DeviceMemory(1 << 16)
    cudyn.memset_d8(m, 7, 1 << 16)
    host = np.zeros(1 << 16, np.uint8)
    copy = []
    def work():
        try:
            cudyn.memcpy_dtoh(host, m)
            copy.append("copied" if (host == 7).all() else "wrong-bytes")
        except cudyn.Error:
            copy.append("refused")
    before = calls(b"cuMemcpyDtoH_v2")
    t = threading.Thread(target=work)
    t.start()
    for _ in range(1000):
        if calls(b"cuMemcpyDtoH_v2") > before:
            break
        time.sleep(0.01)
    try:
        m.free()
        freed = "freed"
    except cudyn.Error:
        freed = "busy"
    t.join()
    m.free()
    print(copy[0], freed)
""", extra={"MOCK_CUDA_HANG": "cuMemcpyDtoH_v2:1"})
    assert len(lines) == 2 and all(line.split()[0] == "copied" for line in lines), lines


def test_read_only_array_refuses_writes():
    lines = child_lines(OUTCOME + """
import dlpack_capsules as dl
x = gpuarray.to_gpu(np.zeros(4, np.float32))
src = gpuarray.to_gpu(np.ones(4, np.float32))
class ReadOnly:
    __cuda_array_interface__ = {"shape": (4,), "typestr": "<f4", "data": (x.ptr, True), "version": 3}
ro = cudyn.asarray(ReadOnly())
print("readonly", ro.readonly)
for target in (ro, ReadOnly()):
    print("htod", outcome(lambda: cudyn.memcpy_htod(target, np.ones(4, np.float32))))
    print("dtod", outcome(lambda: cudyn.memcpy_dtod(target, src, 16)))
    for width in (8, 16, 32):
        print("memset", outcome(lambda: getattr(cudyn, f"memset_d{width}")(target, 1, 32 // width)))
print("device", x.get().tolist())
def export(**kw):
    try:
        cap = ro.__dlpack__(**kw)
    except (BufferError, ValueError, TypeError):
        return "refused"
    if dl.name(cap) == b"dltensor_versioned":
        return "read-only" if dl.versioned_flags(cap) & dl.READ_ONLY else "writable"
    return "writable"
print("dlpack", export(), export(max_version=(1, 0)))
""")
    writes = [line for line in lines if line.split()[0] in ("htod", "dtod", "memset")]
    assert len(writes) == 10 and all(line.endswith(" InvalidArgument") for line in writes), lines
    assert "readonly True" in lines and "device [0.0, 0.0, 0.0, 0.0]" in lines, lines
    dlpack = next(line for line in lines if line.startswith("dlpack")).split()[1:]
    assert dlpack[0] == "refused" and dlpack[1] in ("refused", "read-only"), lines


def test_shape_and_stride_overflow_refused():
    lines = child_lines(OUTCOME + """
import dlpack_capsules as dl
m = cudyn.DeviceMemory(8)
keep = gpuarray.to_gpu(np.zeros(2, np.float32))
class Producer:
    __cuda_array_interface__ = {"shape": (2**62, 4), "typestr": "<f4", "data": (keep.ptr, False), "version": 3}
print(outcome(lambda: cudyn.DeviceArray((5,), "f4", strides=(2**62 + 1,), memory=m)))
print(outcome(lambda: cudyn.DeviceArray((3,), "f4", strides=(2**62,), memory=m)))
print(outcome(lambda: cudyn.DeviceArray((1000,), "f4", ptr=m)))
print(outcome(lambda: cudyn.asarray(Producer())))
print(outcome(lambda: cudyn.from_dlpack(dl.capsule(keep.ptr, (3,), strides=(2**61,)))))
print(outcome(lambda: cudyn.from_dlpack(dl.capsule(keep.ptr, (2**40, 2**40)))))
""")
    assert lines == ["InvalidArgument"] * 6


def test_out_of_range_integers_raise_invalid_argument():
    f = cudyn.SourceModule('__global__ void empty() {}').get_function("empty")
    m = cudyn.DeviceMemory(8)
    array = cudyn.Array((4,), np.float32)

    class DeviceClaim:
        """A DLPack producer whose __dlpack_device__ says the given tuple."""

        def __init__(self, device):
            self.device = device

        def __dlpack_device__(self):
            return self.device

        def __dlpack__(self, **kwargs):
            raise AssertionError("the device was refused before any capsule was asked for")

    cases = [
        ("nbytes", lambda: cudyn.DeviceMemory(2**64)),
        ("shape", lambda: cudyn.DeviceArray((2**63,), "f4")),
        ("strides", lambda: cudyn.DeviceArray((2,), "f4", strides=(2**64,))),
        ("ordinal", lambda: cudyn.device_info(2**64)),
        ("ordinal", lambda: cudyn.device_use(-2**63 - 1)),
        ("handle", lambda: cudyn.Stream.from_handle(2**64)),
        ("handle", lambda: cudyn.Stream.from_handle(-1)),
        ("grid", lambda: f(grid=(2**64,), block=(1,))),
        ("block", lambda: f(grid=(1,), block=(1, 2**63))),
        ("shared", lambda: f(grid=(1,), block=(1,), shared=2**64)),
        ("shared", lambda: f(grid=(1,), block=(1,), shared=-1)),
        ("count", lambda: cudyn.memset_d8(m, 1, 2**64)),
        ("nbytes", lambda: cudyn.memcpy_dtod(m, m, 2**64)),
        ("channels", lambda: cudyn.Array((4,), np.float32, channels=2**32 + 1)),
        ("channels", lambda: cudyn.Array((4,), np.float32, channels=5)),
        ("flags", lambda: cudyn.Array((4,), np.float32, flags=2**32)),
        ("format", lambda: cudyn.Array((4,), 2**64)),
        ("filter_mode", lambda: cudyn.Texture(array, filter_mode=2**64)),
        ("read_mode", lambda: cudyn.Texture(array, read_mode=-2**63)),
        ("address_mode", lambda: cudyn.Texture(array, address_mode=2**32)),
        ("address_mode", lambda: cudyn.Texture(array, address_mode=(0, 2**40))),
        ("address_mode", lambda: cudyn.Texture(array, address_mode=(0, 0, 0, 0))),
        ("border_color", lambda: cudyn.Texture(array, border_color=(0.0,) * 5)),
        ("mode", lambda: cudyn.Stream().begin_capture(2**64)),
        ("device type", lambda: cudyn.from_dlpack(DeviceClaim((2**70, 0)))),
        ("device id", lambda: cudyn.from_dlpack(DeviceClaim((2, -1)))),
        ("device type", lambda: cudyn.from_dlpack(DeviceClaim((2,)))),
    ]
    wrong = []
    for argument, call in cases:
        try:
            call()
            wrong.append(f"{argument}: accepted")
        except cudyn.InvalidArgument as e:
            if argument not in str(e):
                wrong.append(f"{argument}: not named in {e}")
        except Exception as e:  # noqa: BLE001 (the wrong kind is the finding)
            wrong.append(f"{argument}: {type(e).__name__}: {e}")
    assert not wrong, wrong


def test_memset_value_out_of_range_refused():
    m = cudyn.DeviceMemory(8)
    cudyn.memset_d8(m, 0, 8)
    for width in (8, 16, 32):
        with pytest.raises(cudyn.InvalidArgument, match="value"):
            getattr(cudyn, f"memset_d{width}")(m, 2**64 + 7, 64 // width)
    host = np.ones(8, np.uint8)
    cudyn.memcpy_dtoh(host, m)
    assert host.tolist() == [0] * 8


def test_nvml_failure_origin_is_nvml():
    import os
    top = os.environ.get("top_builddir", "")
    mock_nvml = os.path.join(top, "tests", "mock", "nvml", ".libs", "libnvidia-ml.so.1")
    if not os.path.exists(mock_nvml):
        pytest.skip("the NVML mock is not built (run through make check)")
    lines = child_lines("""
import cudyn
try:
    cudyn.cpu_affinity(0)
    print("no error")
except cudyn.Error as e:
    print(e.origin, cudyn.last_error()["origin"])
""", extra={"CUDYN_LIBNVML": mock_nvml, "MOCK_NVML": "fail"})
    assert lines == ["nvml nvml"]


def test_name_with_embedded_nul_refused():
    mod = cudyn.SourceModule('__global__ void empty() {}\n__device__ int table[4];\n')
    mod.get_function("empty")
    for lookup in (mod.get_function, mod.get_global):
        with pytest.raises(ValueError, match="NUL"):
            lookup("empty\0x")
    for lookup in (mod.get_function, mod.get_global, mod.lowered_name):  # cpy_utf8's own TypeError
        with pytest.raises(TypeError, match="name must be a str, not int|expr must be a str, not int"):
            lookup(3)


def test_a_str_where_a_sequence_of_str_is_expected_is_refused():
    # found beside issue 41's rows: Module.from_source split a str into
    # its characters ("/tmp" became the directories /, t, m, p)
    for kw in ({"options": "-O3"}, {"include_dirs": "/tmp"}, {"name_expressions": "k"}):
        with pytest.raises(TypeError, match="a sequence of str, not a str"):
            cudyn.Module.from_source('__global__ void k() {}', **kw)


def test_dlpack_capsule_checked_like_cai():
    lines = child_lines(OUTCOME + """
import dlpack_capsules as dl
host = np.zeros(4, np.float32)
keep = gpuarray.to_gpu(np.zeros(4, np.float32))
print("host pointer", outcome(lambda: cudyn.from_dlpack(dl.capsule(host.ctypes.data, (4,)))))
print("no such device", outcome(lambda: cudyn.from_dlpack(dl.capsule(keep.ptr, (4,), device_id=7))))
print("4-byte bool", outcome(lambda: cudyn.from_dlpack(dl.capsule(keep.ptr, (4,), code=dl.BOOL, bits=32))))
print("well-formed", outcome(lambda: cudyn.from_dlpack(dl.capsule(keep.ptr, (4,))).get()))
""")
    outcome = dict(line.rsplit(" ", 1) for line in lines)
    assert outcome["well-formed"] == "ok"
    assert outcome["host pointer"] == "InvalidArgument"
    assert outcome["no such device"] in ("InvalidArgument", "DeviceError")
    assert outcome["4-byte bool"] in ("TypeError", "InvalidArgument")


PRODUCERS = OUTCOME + """
class Broken(Exception):
    pass
def producer(exc):
    class Producer:
        @property
        def __cuda_array_interface__(self):
            raise exc()
    return Producer()
"""


def test_producer_exceptions_propagate_unchanged():
    # defect 11 of the reliability audit
    lines = child_lines(PRODUCERS + """
buf = np.zeros(4, np.float32)
for exc in (KeyboardInterrupt, MemoryError, Broken):
    p = producer(exc)
    print(exc.__name__, *[outcome(call) for call in (
        lambda: cudyn.memcpy_htod(p, buf), lambda: cudyn.memcpy_dtoh(buf, p), lambda: cudyn.memcpy_dtod(p, p, 4),
        lambda: cudyn.memset_d8(p, 0, 4), lambda: cudyn.DeviceArray((4,), "f4", ptr=p),
        lambda: cudyn.asarray(p))])
""")
    assert lines == [" ".join([name] * 7) for name in ("KeyboardInterrupt", "MemoryError", "Broken")]


def test_producer_exceptions_propagate_through_a_launch():
    lines = child_lines(PRODUCERS + """
f = cudyn.SourceModule('__global__ void k(float *x) {}').get_function("k")
for exc in (KeyboardInterrupt, MemoryError, Broken):
    print(exc.__name__, outcome(lambda: f(producer(exc), grid=(1,), block=(1,))))
""")
    assert lines == [f"{name} {name}" for name in ("KeyboardInterrupt", "MemoryError", "Broken")]


# ---------------------------------------------------------------- round five
# The rows of the fifth audit (issue 41) that the C layers fix; each runs
# in a child interpreter, where a crash or a hang (the child's timeout)
# fails only this test.

NCCL_CHILD = OUTCOME + """
import ctypes, os, threading, time
import cudyn.nccl as nccl
mock = ctypes.CDLL(nccl.info()["path"])
mock.mock_nccl_calls.restype, mock.mock_nccl_calls.argtypes = ctypes.c_long, [ctypes.c_char_p]
def on(device, host):
    with cudyn.Device(device):
        return gpuarray.to_gpu(np.ascontiguousarray(host))
def until(count, fn, before):
    for _ in range(3000):
        if mock.mock_nccl_calls(fn) > before:
            return
        time.sleep(0.01)
"""


def needs_mock_nccl():
    from conftest import MOCK_LIBNCCL
    if not MOCK_LIBNCCL:
        pytest.skip("MOCK_LIBNCCL not set (run through make check)")


def test_destroy_and_abort_inside_an_open_group_raise_and_the_group_ends_whole():
    # row 1: the group's end handed NCCL the destroyed communicator
    needs_mock_nccl()
    lines = child_lines(NCCL_CHILD + """
comms = nccl.Communicator.for_devices([0, 1])
xs = [on(r, np.full(4, r + 1.0, np.float32)) for r in range(2)]
with nccl.group():
    for c in comms:
        c.all_reduce(xs[c.rank])
    print("destroy", outcome(comms[0].destroy), "abort", outcome(comms[0].abort), "wait", outcome(comms[0].wait),
          "free", outcome(xs[1].base.free))
    subs = [c.split(0) for c in comms]
    print("made in the group", outcome(subs[1].destroy))
    del subs  # the group holds them until its end
for r in range(2):
    with cudyn.Device(r):
        print("value", xs[r].get().tolist())
print("after", outcome(comms[0].destroy), outcome(comms[1].destroy), outcome(xs[1].base.free))
""")
    assert lines == ["destroy InvalidArgument abort InvalidArgument wait InvalidArgument free InvalidArgument",
                     "made in the group InvalidArgument", "value [3.0, 3.0, 3.0, 3.0]",
                     "value [3.0, 3.0, 3.0, 3.0]", "after ok ok ok"], lines


def test_free_in_another_thread_during_a_collective_raises():
    # row 2: the mock's all-reduce waits inside NCCL for rank 1, the GIL
    # released; free() then came, and the collective read freed memory
    needs_mock_nccl()
    lines = child_lines(NCCL_CHILD + """
comms = nccl.Communicator.for_devices([0, 1])
xs = [on(r, np.full(1 << 16, r + 1.0, np.float32)) for r in range(2)]
for _ in range(3):
    done = []
    before = mock.mock_nccl_calls(b"ncclAllReduce")
    t = threading.Thread(target=lambda: done.append(outcome(lambda: comms[0].all_reduce(xs[0]))))
    t.start()
    until(1, b"ncclAllReduce", before)
    print("free", outcome(xs[0].base.free), "destroy", outcome(comms[0].destroy), "abort", outcome(comms[0].abort))
    comms[1].all_reduce(xs[1])
    t.join()
    print("call", done[0])
for r in range(2):
    with cudyn.Device(r):
        print("value", xs[r].get()[:2].tolist())
""")
    assert lines == ["free InvalidArgument destroy InvalidArgument abort InvalidArgument", "call ok"] * 3 + \
        ["value [12.0, 12.0]", "value [12.0, 12.0]"], lines


def test_free_in_another_thread_during_a_launch_with_in_out_raises():
    # row 3: the mock holds the In buffer's copy 1 s inside the driver;
    # free() of a device argument then was accepted and the kernel got the
    # freed address
    from test_module import SAXPY
    lines = child_lines(OUTCOME + """
import ctypes, os, threading, time
calls = ctypes.CDLL(os.environ["CUDYN_LIBCUDA"]).mock_calls
calls.restype, calls.argtypes = ctypes.c_long, [ctypes.c_char_p]
saxpy = cudyn.SourceModule('''%s''').get_function("saxpy")
xs, ys = np.arange(64, dtype=np.float32), np.ones(64, np.float32)
y = gpuarray.to_gpu(ys)
out = np.zeros(64, np.float32)
before = calls(b"cuMemcpyHtoDAsync_v2")
launch = []
t = threading.Thread(target=lambda: launch.append(outcome(lambda: saxpy(
    np.float32(2), cudyn.In(xs), y, cudyn.Out(out), np.uint64(64), grid=(1,), block=(64,)))))
t.start()
for _ in range(1000):
    if calls(b"cuMemcpyHtoDAsync_v2") > before:
        break
    time.sleep(0.01)
print("free", outcome(y.base.free))
t.join()
print("launch", launch[0], (out == 2 * xs + ys).all())
print("after", outcome(y.base.free))
""" % SAXPY, extra={"MOCK_CUDA_HANG": "cuMemcpyHtoDAsync_v2:1"})
    assert lines == ["free InvalidArgument", "launch ok True", "after ok"], lines


def test_host_buffers_of_python_objects_are_refused():
    # row 4: memcpy_dtoh (and pycuda.driver.from_device) wrote device bytes
    # over an object array's pointers
    lines = child_lines(OUTCOME + """
import ctypes
m = cudyn.DeviceMemory(64)
cudyn.memset_d8(m, 0xff, 64)
f = cudyn.SourceModule('__global__ void k(float *x) {}').get_function("k")
record = [("a", "<f8"), ("p", object)]
for name, call in (
        ("memcpy_dtoh", lambda: cudyn.memcpy_dtoh(np.empty(4, object), m)),
        ("memcpy_dtoh record", lambda: cudyn.memcpy_dtoh(np.empty(2, record), m)),
        ("memcpy_dtoh memoryview", lambda: cudyn.memcpy_dtoh(memoryview(np.empty(4, object)), m)),
        ("get memoryview", lambda: gpuarray.to_gpu(np.zeros(4)).get(memoryview(np.empty(4, object)))),
        ("set memoryview", lambda: gpuarray.to_gpu(np.zeros(4)).set(memoryview(np.empty(4, object)))),
        ("memcpy_dtoh ctypes", lambda: cudyn.memcpy_dtoh((ctypes.py_object * 4)(), m)),
        ("memcpy_htod", lambda: cudyn.memcpy_htod(m, np.array([1, "a", None, 2.0], object))),
        ("from_device", lambda: cudyn.from_device(m, (4,), object)),
        ("Out", lambda: f(cudyn.Out(np.empty(4, object)), grid=(1,), block=(1,)))):
    print(name, outcome(call))
import cudyn.pycuda.driver as drv
print("pycuda from_device", outcome(lambda: drv.from_device(m, (4,), object)))
host = np.zeros(8, np.float64)
cudyn.memcpy_dtoh(host, m)
print("numbers", outcome(lambda: cudyn.memcpy_dtoh(host, m)))
""")
    assert lines == [f"{name} TypeError" for name in (
        "memcpy_dtoh", "memcpy_dtoh record", "memcpy_dtoh memoryview", "get memoryview", "set memoryview",
        "memcpy_dtoh ctypes", "memcpy_htod",
        "from_device", "Out", "pycuda from_device")] + ["numbers ok"], lines


def test_messages_that_are_not_utf8_keep_the_exception():
    # row 5: a message holding a path of another encoding raised
    # UnicodeDecodeError, losing status, origin and hint
    lines = child_lines("""
import cudyn, cudyn.nccl as nccl
try:
    nccl.get_unique_id()
except cudyn.Error as e:
    print(type(e).__name__, e.status_name, e.origin, "\\\\xff" in e.message, "\\\\xff" in str(e), bool(e.hint))
info = nccl.info()
print(info["status_name"], "\\\\xff" in info["trace"], "\\\\xff" in cudyn.last_error()["message"])
""", extra={"CUDYN_LIBNCCL": "/nonexistent/\udcff\udcfe/libnccl.so.2"})
    assert lines == ["Error CUDYN_ERROR_NCCL_NOT_FOUND loader True True True", "CUDYN_ERROR_NCCL_NOT_FOUND True True"]


def test_a_wait_with_a_timeout_answers_ctrl_c():
    # row 6: wait(timeout=60) sat in the library for the whole timeout; the
    # child's own timeout (30 s) fails this test if Ctrl-C is not answered
    needs_mock_nccl()
    lines = child_lines(NCCL_CHILD + """
import signal
# Python answers SIGINT only where it was not ignored at start (a background
# job of a script, such as CI's, starts with it ignored)
signal.signal(signal.SIGINT, signal.default_int_handler)
[c] = nccl.Communicator.for_devices([0])
c.all_reduce(on(0, np.ones(4, np.float32)))  # never finishes (MOCK_NCCL_ASYNC_ERROR), no error either
for timeout in (60, None, float("inf"), 1e10):  # past 2^63 ns: no end, never converted out of range
    threading.Timer(0.3, lambda: os.kill(os.getpid(), signal.SIGINT)).start()
    print(timeout, outcome(lambda: c.wait(timeout=timeout)), outcome(c.check))
c.abort()
c.destroy()
""", extra={"MOCK_NCCL_ASYNC_ERROR": "1:-1"})
    assert lines == ["60 KeyboardInterrupt ok", "None KeyboardInterrupt ok", "inf KeyboardInterrupt ok",
                     "10000000000.0 KeyboardInterrupt ok"], lines


@pytest.mark.parametrize("nccl_abort, said", [("", "aborted"), ("ncclCommAbort:1:2", "aborted, with an error")])
def test_a_wait_that_times_out_aborts_as_abort_does(nccl_abort, said):
    # wait(timeout=)'s abort follows abort()'s rule: refused while a call of
    # another thread holds the communicator (its collective would run
    # beside ncclCommAbort) or a group not yet ended does, and the error
    # says whether it was aborted
    needs_mock_nccl()
    lines = child_lines(NCCL_CHILD + """
[busy] = nccl.Communicator.for_devices([0])
busy.all_reduce(on(0, np.ones(4, np.float32)))  # never finishes (MOCK_NCCL_ASYNC_ERROR): device 0's stream busy
comms = nccl.Communicator.for_devices([0, 1])
xs = [on(k, np.ones(4, np.float32)) for k in range(2)]
def wait_on_0():
    try:
        with cudyn.Device(0):
            comms[0].wait(timeout=0.1)
        print("no error")
    except cudyn.Error as e:
        print(e.status_name, "within 100 ms" in str(e), str(e).split("; the communicator was ")[1].split(":")[0])
before = mock.mock_nccl_calls(b"ncclAllReduce")
waiting = threading.Thread(target=lambda: comms[0].all_reduce(xs[0]))  # waits in NCCL for rank 1
waiting.start()
until(1, b"ncclAllReduce", before)
wait_on_0()
comms[1].all_reduce(xs[1])
waiting.join()
with nccl.group():
    comms[0].all_reduce(xs[0])  # kept until the group's end: the group holds it
    wait_on_0()
    comms[1].all_reduce(xs[1])
wait_on_0()
try:
    comms[0].check()
except cudyn.Error as e:
    print(e.status_name)
busy.abort()
for c in [busy] + comms:
    c.destroy()
""", extra={"MOCK_NCCL_ASYNC_ERROR": "1:-1", "MOCK_NCCL_FAIL": nccl_abort or None})
    assert lines == ["CUDYN_ERROR_TIMEOUT True not aborted", "CUDYN_ERROR_TIMEOUT True not aborted",
                     f"CUDYN_ERROR_TIMEOUT True {said}", "CUDYN_ERROR_INVALID_HANDLE"], lines


def test_a_forked_child_leaves_the_parents_communicator_alone():
    # row 7: destroy() and the dealloc in a fork child called ncclCommDestroy
    # on the parent's communicator
    needs_mock_nccl()
    lines = child_lines(NCCL_CHILD + """
import gc
a, b = nccl.Communicator.for_devices([0]) + nccl.Communicator.for_devices([1])
read, write = os.pipe()
pid = os.fork()
if pid == 0:
    before = mock.mock_nccl_calls(b"ncclCommDestroy")
    result = outcome(a.destroy)
    del b
    gc.collect()
    os.write(write, f"{result} {mock.mock_nccl_calls(b'ncclCommDestroy') - before}".encode())
    os._exit(0)
os.waitpid(pid, 0)
print("child", os.read(read, 100).decode())
print("parent", outcome(a.destroy), outcome(b.destroy), mock.mock_nccl_live_comms())
""")
    assert lines == ["child ForkedError 0", "parent ok ok 0"], lines


def test_nccl_and_prepared_integers_raise_invalid_argument_naming_them():
    # row 13: OverflowError left for NCCL's root and peer and the ints of
    # (prepared) calls
    needs_mock_nccl()
    lines = child_lines(NCCL_CHILD + """
[c] = nccl.Communicator.for_devices([0])
x = on(0, np.zeros(4, np.float32))
f = cudyn.SourceModule('__global__ void k(unsigned long long a, int b) {}').get_function("k")
p = f.prepare("Qi")
for name, call in (("root", lambda: c.broadcast(x, root=2**40)), ("root", lambda: c.reduce(x, root=-2**70)),
                   ("peer", lambda: c.send(x, 2**64)), ("peer", lambda: c.recv(x, -2**63 - 1)),
                   ("('Q')", lambda: p((1,), (1,), 2**70, 1)), ("('i')", lambda: p((1,), (1,), 1, 2**31)),
                   ("('Q')", lambda: f.prepared_call((1,), (1,), -1, 1)),
                   ("fits no integer", lambda: f(2**70, 1, grid=(1,), block=(1,)))):
    try:
        call()
        print(name, "accepted")
    except Exception as e:
        print(name, type(e).__name__, name in str(e))
c.destroy()
""")
    assert all(line.endswith(" InvalidArgument True") for line in lines) and len(lines) == 8, lines


def test_strings_with_a_nul_are_refused_not_cut():
    # row 14: prepare() formats, SourceModule options, NCCL op names and
    # nccl.has were cut at an embedded NUL
    needs_mock_nccl()
    lines = child_lines(NCCL_CHILD + """
[c] = nccl.Communicator.for_devices([0])
x = on(0, np.zeros(4, np.float32))
f = cudyn.SourceModule('__global__ void k(int a, float *b) {}').get_function("k")
for name, call in (("prepare", lambda: f.prepare("iP\\0q")),
                   ("options", lambda: cudyn.SourceModule('__global__ void j() {}', options=["-DX=1\\0-DY=2"])),
                   ("include_dirs", lambda: cudyn.SourceModule('__global__ void j() {}', include_dirs=["/tmp\\0/x"])),
                   ("op", lambda: c.all_reduce(x, op="sum\\0max")),
                   ("has", lambda: nccl.has("AllReduce\\0Nothing"))):
    try:
        call()
        print(name, "accepted")
    except cudyn.InvalidArgument as e:
        print(name, "InvalidArgument", "NUL" in str(e))
c.destroy()
""")
    assert lines == [f"{name} InvalidArgument True" for name in ("prepare", "options", "include_dirs", "op", "has")]


def test_a_made_up_stream_is_refused_before_nccl():
    # the finding beside the rows: NCCL calls took stream=12345 unchecked
    needs_mock_nccl()
    lines = child_lines(NCCL_CHILD + """
[c] = nccl.Communicator.for_devices([0])
x = on(0, np.zeros(4, np.float32))
before = mock.mock_nccl_calls(b"ncclAllReduce")
for call in (lambda: c.all_reduce(x, stream=12345), lambda: cudyn.Stream.from_handle(12345).synchronize()):
    try:
        call()
        print("accepted")
    except cudyn.Error as e:
        print(e.status_name)
print(mock.mock_nccl_calls(b"ncclAllReduce") - before)
c.destroy()
""")
    assert lines == ["CUDYN_ERROR_INVALID_HANDLE", "CUDYN_ERROR_INVALID_HANDLE", "0"], lines


@pytest.mark.parametrize("variable, call", [
    ("CUDYN_LIBCUDA", "cudyn.device_count()"),
    ("CUDYN_LIBNVRTC", "cudyn.SourceModule('__global__ void k() {}')"),
    ("CUDYN_LIBNCCL", "cudyn.nccl.get_unique_id()"),
    ("CUDYN_LIBNVML", "cudyn.cpu_affinity(0)"),
])
def test_a_fifo_named_as_a_library_is_refused_never_waited_on(tmp_path, variable, call):
    # row 17: dlopen of a FIFO waited for a writer forever; the child's
    # timeout (30 s) fails this test if it still does
    import os
    fifo = tmp_path / "library.so"
    os.mkfifo(fifo)
    p = run_python(f"""
import cudyn, cudyn.nccl
try:
    {call}
    print("accepted")
except cudyn.Error as e:
    print(e.status_name, "is a FIFO, not a regular file" in str(e))
""", extra={variable: str(fifo)}, timeout=30)
    assert p.returncode == 0, p.stderr
    assert p.stdout.split()[-1] == "True", p.stdout
