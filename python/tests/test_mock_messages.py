"""What the mock driver cannot emulate, it refuses loudly, and the refusal
reaches the user whole: the mock writes its "cannot emulate ..." line into
the driver's error log (cuLogs*), which cudyn appends to the failed call's
message, so the exception says why and not only "error 801"."""

import pytest

import cudyn

pytestmark = pytest.mark.mock


def test_a_kernel_the_mock_cannot_run_names_itself_in_the_exception():
    mod = cudyn.SourceModule('__global__ void no_host_version(float *x) { x[0] = 1; }')
    f = mod.get_function("no_host_version")
    memory = cudyn.DeviceMemory(4)
    for _ in range(2):  # every launch says so, not only the first (stderr has it once)
        with pytest.raises(cudyn.Error) as info:
            f(memory, grid=(1,), block=(1,))
        assert "cannot emulate kernel 'no_host_version'" in str(info.value), str(info.value)


def test_what_else_the_mock_refuses_reaches_the_message_too():
    stream, event = cudyn.Stream(), cudyn.Event()
    with pytest.raises(cudyn.Error) as info:
        with stream.capture():
            event.record(stream)
    assert "cannot emulate an event record in a stream capture" in str(info.value), str(info.value)
