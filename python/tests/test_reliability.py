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
