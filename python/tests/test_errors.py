"""Every error path of the C tests, as Python exceptions carrying cudyn_error."""

import numpy as np
import pytest

from conftest import MOCK_LIBCUDA, run_python

pytestmark = pytest.mark.mock

SHOW = """
import cudyn
try:
    {call}
    print("no error")
except cudyn.Error as e:
    print(type(e).__name__, e.status_name, e.origin, isinstance(e, {also}))
    print(e.function)
    print(str(e))
"""


def scenario(call, extra, also="cudyn.Error"):
    p = run_python(SHOW.format(call=call, also=also), extra=extra)
    assert p.returncode == 0, p.stderr
    return p.stdout.splitlines()


def test_no_driver():
    out = scenario("cudyn.device_count()", {"CUDYN_LIBCUDA": "/nonexistent/libcuda.so.1"})
    assert out[0].split() == ["LoaderError", "CUDYN_ERROR_DRIVER_NOT_FOUND", "loader", "True"]
    assert "/nonexistent/libcuda.so.1" in out[2]


def test_stub_driver():
    out = scenario("cudyn.device_count()", {"MOCK_CUDA_STUB": "1"})
    assert out[0].split()[:2] == ["LoaderError", "CUDYN_ERROR_STUB_DRIVER"]


def test_old_driver():
    out = scenario("cudyn.device_count()", {"MOCK_CUDA_VERSION": "10010"})
    assert out[0].split()[:2] == ["LoaderError", "CUDYN_ERROR_DRIVER_TOO_OLD"]


def test_no_nvrtc():
    out = scenario("cudyn.SourceModule('__global__ void k() {}')",
                   {"CUDYN_LIBNVRTC": "/nonexistent/libnvrtc.so.13"})
    assert out[0].split()[:2] == ["LoaderError", "CUDYN_ERROR_NVRTC_NOT_FOUND"]


def test_no_device():
    out = scenario("assert cudyn.device_count() == 0; cudyn.Device(0).use()", {"MOCK_CUDA_DEVICES": "none"},
                   also="cudyn.DeviceError")
    assert out[0].split()[0] == "DeviceError" and out[0].split()[3] == "True"
    assert out[0].split()[1] in ("CUDYN_ERROR_NO_DEVICE", "CUDYN_ERROR_INVALID_DEVICE")


def test_out_of_memory_by_fault_injection():
    # the mock's cuMemAlloc_v2 answers CUDA_ERROR_OUT_OF_MEMORY (2) once
    out = scenario("cudyn.DeviceMemory(1024)", {"MOCK_CUDA_FAIL": "cuMemAlloc_v2:1:2"}, also="MemoryError")
    assert out[0].split() == ["OutOfMemory", "CUDYN_ERROR_OUT_OF_MEMORY", "driver", "True"]
    assert out[1] == "cuMemAlloc"


def test_error_attributes_carry_cudyn_error():
    import cudyn
    with pytest.raises(cudyn.DeviceError) as info:
        cudyn.device_use(77)
    e = info.value
    assert e.status == 8 and e.status_name == "CUDYN_ERROR_INVALID_DEVICE"
    assert isinstance(e.origin, str) and e.function
    assert isinstance(e.native_code, int)
    assert "77" in str(e) and str(e) == e.message
    last = cudyn.last_error()
    assert last["status"] == 8 and last["message"] == e.message


def test_oversized_allocation_is_out_of_memory():
    import cudyn
    with pytest.raises(cudyn.OutOfMemory) as info:
        cudyn.DeviceMemory(1 << 50)
    assert isinstance(info.value, MemoryError)
    assert info.value.status_name == "CUDYN_ERROR_OUT_OF_MEMORY"


def test_negative_and_wrong_type_sizes():
    import cudyn
    with pytest.raises(cudyn.InvalidArgument, match=r"nbytes must be 0 \.\. 2\*\*64-1, not -1"):
        cudyn.DeviceMemory(-1)
    with pytest.raises(TypeError):
        cudyn.DeviceMemory("12")


def test_every_integer_is_checked_naming_it():
    # beyond the audit's cases (test_reliability.py): flags, peers, statuses,
    # a consumer's stream, the module's device, a kernel attribute
    import cudyn
    x = cudyn.DeviceArray((2,), np.float32)
    cases = [("flags", lambda: cudyn.Stream(flags=2**32)), ("flags", lambda: cudyn.Event(flags=-1)),
             ("flags", lambda: cudyn.init(2**64)), ("ordinal", lambda: cudyn.can_access_peer(0, 2**31)),
             ("ordinal", lambda: cudyn.enable_peer(-2**40, 0)), ("status", lambda: cudyn.status_name(2**63)),
             ("stream", lambda: x.__dlpack__(stream=-2)), ("ordinal", lambda: cudyn.device_attribute(2**70, 1)),
             ("attribute", lambda: cudyn.device_attribute(0, -1)),
             ("device", lambda: cudyn.SourceModule("__global__ void k() {}", device=2**64))]
    for name, call in cases:
        with pytest.raises(cudyn.InvalidArgument, match=name):
            call()


def test_invalid_device_ordinals():
    import cudyn
    for bad in (-1, 2, 1000):
        with pytest.raises(cudyn.DeviceError):
            cudyn.device_info(bad)
    with pytest.raises(cudyn.DeviceError):
        cudyn.Device(5).use()
    with pytest.raises(TypeError):
        cudyn.Device("0")


def test_compile_error_carries_the_log():
    import cudyn
    with pytest.raises(cudyn.CompileError) as info:
        cudyn.SourceModule("#error the kernel is broken on purpose\n__global__ void k() {}\n")
    e = info.value
    assert e.status_name == "CUDYN_ERROR_COMPILE"
    assert "the kernel is broken on purpose" in e.log
    assert "the kernel is broken on purpose" in str(e)


def test_bad_option_is_an_error():
    import cudyn
    with pytest.raises(cudyn.Error):
        cudyn.SourceModule('__global__ void empty() {}', options=["--no-such-option"])
    with pytest.raises(TypeError):
        cudyn.SourceModule('__global__ void empty() {}', options="--fmad=false")


def test_unknown_kernel_name():
    import cudyn
    mod = cudyn.SourceModule('__global__ void empty() {}')
    with pytest.raises(cudyn.Error) as info:
        mod.get_function("nope")
    assert info.value.status_name == "CUDYN_ERROR_NOT_FOUND"
    assert "nope" in str(info.value)


SAXPY = """
__global__ void saxpy(float a, const float *x, const float *y, float *out, size_t n)
{
    size_t tid = blockIdx.x * blockDim.x + threadIdx.x;
    for (size_t i = tid; i < n; i += (size_t)blockDim.x * gridDim.x)
        out[i] = a * x[i] + y[i];
}
"""


@pytest.fixture
def saxpy():
    import cudyn
    return cudyn.SourceModule(SAXPY).get_function("saxpy")


def test_launch_argument_mismatch_names_the_parameter(saxpy):
    import cudyn
    x = cudyn.DeviceMemory(64)
    with pytest.raises(TypeError) as info:  # a double where the kernel declares a float
        saxpy(np.float64(2), x, x, x, np.uint64(16), grid=(1,), block=(16,))
    message = str(info.value)
    assert "parameter 1" in message and "double" in message, message
    with pytest.raises(TypeError) as info:  # an int where a pointer is declared
        saxpy(np.float32(2), np.int32(3), x, x, np.uint64(16), grid=(1,), block=(16,))
    assert "parameter 2" in str(info.value)


def test_wrong_argument_count(saxpy):
    x = cudyn_memory(64)
    with pytest.raises(TypeError) as info:
        saxpy(np.float32(2), x, x, grid=(1,), block=(16,))
    assert "5" in str(info.value) or "argument" in str(info.value)


def cudyn_memory(n):
    import cudyn
    return cudyn.DeviceMemory(n)


def test_host_array_where_device_memory_is_needed(saxpy):
    x = cudyn_memory(64)
    host = np.zeros(16, np.float32)
    with pytest.raises(TypeError) as info:
        saxpy(np.float32(2), host, x, x, np.uint64(16), grid=(1,), block=(16,))
    assert "host" in str(info.value).lower()


def test_bad_launch_shape(saxpy):
    import cudyn
    x = cudyn.DeviceMemory(64)
    with pytest.raises((cudyn.Error, ValueError)):
        saxpy(np.float32(2), x, x, x, np.uint64(16), grid=(1,), block=(4096,))
    with pytest.raises((TypeError, ValueError)):
        saxpy(np.float32(2), x, x, x, np.uint64(16), grid="x", block=(16,))


def test_python_float_is_taken_where_the_type_is_known(saxpy):
    import cudyn
    x = cudyn.gpuarray.to_gpu(np.arange(16, dtype=np.float32))
    y = cudyn.gpuarray.to_gpu(np.ones(16, np.float32))
    out = cudyn.gpuarray.empty(16, np.float32)
    saxpy(2.0, x, y, out, 16, grid=(1,), block=(16,))
    np.testing.assert_array_equal(out.get(), 2 * np.arange(16, dtype=np.float32) + 1)


def test_sticky_fault_surfaces_as_launch_error():
    p = run_python("""
        import cudyn
        k = cudyn.SourceModule('__global__ void fault() {}').get_function("fault")
        k(grid=(1,), block=(1,))
        try:
            cudyn.synchronize()
            print("no error")
        except cudyn.LaunchError as e:
            print(e.status_name)
        """)
    assert p.returncode == 0, p.stderr
    assert p.stdout.split() == ["CUDYN_ERROR_ILLEGAL_ADDRESS"]


@pytest.mark.skipif(not MOCK_LIBCUDA, reason="mock only")
def test_missing_entry_point():
    out = scenario("cudyn.device_count()", {"MOCK_CUDA_MISSING": "cuInit"})
    assert out[0].split()[0] == "LoaderError"


def test_array_of_another_device_is_refused_at_launch(saxpy):
    import cudyn
    x = cudyn.gpuarray.zeros(8, np.float32)
    with cudyn.Device(1):
        other = cudyn.gpuarray.zeros(8, np.float32)
    assert other.device == 1 and cudyn.device_current() == 0
    with pytest.raises((TypeError, ValueError)) as info:
        saxpy(np.float32(1), x, other, x, np.uint64(8), grid=(1,), block=(8,))
    assert "argument 3" in str(info.value)
