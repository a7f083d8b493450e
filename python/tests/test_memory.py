"""Device memory, pinned memory, copies, device arrays and bad input."""

import numpy as np
import pytest

from conftest import mock_memory_in_use

pytestmark = pytest.mark.mock


def test_device_memory_round_trip():
    import cudyn
    host = np.arange(256, dtype=np.float32)
    with cudyn.DeviceMemory(host.nbytes) as mem:
        assert mem.nbytes == host.nbytes and mem.ptr != 0 and mem.device == 0
        cudyn.memcpy_htod(mem.ptr, host)
        back = np.empty_like(host)
        cudyn.memcpy_dtoh(back, mem.ptr)
        np.testing.assert_array_equal(back, host)
        other = cudyn.DeviceMemory(host.nbytes)
        cudyn.memcpy_dtod(other.ptr, mem.ptr, host.nbytes)
        cudyn.memset_d32(mem.ptr, 0x3F800000, 256)  # 1.0f
        cudyn.memcpy_dtoh(back, mem.ptr)
        assert (back == 1).all()
        cudyn.memcpy_dtoh(back, other.ptr)
        np.testing.assert_array_equal(back, host)
        cudyn.memset_d8(mem.ptr, 0, host.nbytes)
        cudyn.memset_d16(mem.ptr, 0, host.nbytes // 2)
        cudyn.memcpy_dtoh(back, mem.ptr)
        assert (back == 0).all()


def test_memory_is_freed(mock_lib):
    import cudyn
    before = mock_memory_in_use(mock_lib)
    mem = cudyn.DeviceMemory(1 << 20)
    assert mock_memory_in_use(mock_lib) >= before + (1 << 20)
    del mem
    assert mock_memory_in_use(mock_lib) == before
    mem = cudyn.DeviceMemory(1 << 20)
    mem.free()
    mem.free()  # twice is harmless
    assert mock_memory_in_use(mock_lib) == before


def test_freed_memory_is_refused():
    import cudyn
    mem = cudyn.DeviceMemory(64)
    address = mem.ptr
    mem.free()
    with pytest.raises(ValueError) as info:
        mem.ptr
    assert "freed" in str(info.value)
    with pytest.raises(cudyn.Error):
        cudyn.memcpy_htod(address, np.zeros(16, np.float32))


def test_foreign_pointer_is_refused():
    import cudyn
    with pytest.raises(cudyn.Error) as info:
        cudyn.memcpy_htod(0xdead0000, np.zeros(4, np.float32))
    assert info.value.function.startswith("cu")
    assert cudyn.pointer_info(0xdead0000)["kind"] == "unregistered"


def test_pointer_info():
    import cudyn
    mem = cudyn.DeviceMemory(64)
    info = cudyn.pointer_info(mem.ptr + 16)
    assert info["kind"] == "device" and info["device"] == 0
    assert info["range_start"] == mem.ptr and info["range_bytes"] >= 64


def test_copy_into_a_read_only_host_array_is_refused():
    import cudyn
    mem = cudyn.DeviceMemory(64)
    host = np.zeros(16, np.float32)
    host.flags.writeable = False
    with pytest.raises((ValueError, TypeError, BufferError)):
        cudyn.memcpy_dtoh(host, mem.ptr)


def test_copy_bigger_than_the_allocation_is_refused():
    import cudyn
    mem = cudyn.DeviceMemory(16)
    with pytest.raises(cudyn.Error):
        cudyn.memcpy_htod(mem.ptr, np.zeros(1024, np.float32))


def test_pinned_memory():
    import cudyn
    pinned = cudyn.PinnedMemory(1024)
    view = np.frombuffer(pinned, dtype=np.float32)
    assert view.size == 256 and view.flags.writeable
    view[:] = 3
    a = cudyn.pagelocked_empty((4, 8), np.float64)
    assert a.shape == (4, 8) and a.dtype == np.float64
    z = cudyn.pagelocked_zeros(5, np.int32)
    assert (z == 0).all()


def test_device_array_from_numpy_and_back():
    import cudyn
    host = np.arange(24, dtype=np.float64).reshape(4, 6)
    a = cudyn.DeviceArray(host.shape, host.dtype)
    a.set(host)
    assert a.shape == (4, 6) and a.dtype == np.float64 and a.size == 24 and a.nbytes == host.nbytes
    assert a.itemsize == 8 and a.strides == (48, 8) and a.is_contiguous
    np.testing.assert_array_equal(a.get(), host)
    into = np.empty_like(host)
    assert a.get(into) is into or np.shares_memory(a.get(into), into)
    np.testing.assert_array_equal(into, host)
    stream = cudyn.Stream()
    back = a.get(stream=stream)
    stream.synchronize()
    np.testing.assert_array_equal(back, host)


def test_device_array_bad_input():
    import cudyn
    a = cudyn.DeviceArray((4,), np.float32)
    with pytest.raises((ValueError, TypeError)):
        a.set(np.zeros(5, np.float32))          # wrong size
    with pytest.raises((ValueError, TypeError)):
        a.set(np.zeros(4, np.float64))          # wrong dtype
    with pytest.raises((ValueError, TypeError)):
        a.set(np.zeros(8, np.float32)[::2])     # not contiguous
    with pytest.raises((ValueError, TypeError)):
        a.get(np.zeros(4, np.int32))            # wrong dtype to get into
    readonly = np.zeros(4, np.float32)
    readonly.flags.writeable = False
    with pytest.raises((ValueError, TypeError, BufferError)):
        a.get(readonly)
    with pytest.raises((ValueError, TypeError)):
        cudyn.DeviceArray((-1,), np.float32)


def test_managed_memory():
    import cudyn
    a = cudyn.managed_empty((8,), np.float32)
    a.set(np.arange(8, dtype=np.float32))
    np.testing.assert_array_equal(a.get(), np.arange(8, dtype=np.float32))


def test_mem_info_and_cache():
    import cudyn
    free, total = cudyn.mem_info()
    assert 0 < free <= total
    info = cudyn.cache_info()
    assert isinstance(info, dict)
    cudyn.cache_clear()


def test_views_at_an_offset_into_memory():
    import cudyn
    m = cudyn.DeviceMemory(16)
    cudyn.memcpy_htod(m, np.arange(4, dtype=np.float32))
    owner = object()
    v = cudyn.DeviceArray((2,), np.float32, memory=m, offset=8, owner=owner)
    assert v.ptr == m.ptr + 8 and v.base is owner
    np.testing.assert_array_equal(v.get(), [2, 3])
    backwards = cudyn.DeviceArray((2,), np.float32, strides=(-4,), memory=m, offset=12)
    assert backwards.ptr == m.ptr + 12 and backwards.strides == (-4,)
    for offset, shape, strides in ((12, (2,), None), (16, (1,), None), (-4, (1,), None), (0, (2,), (-4,))):
        with pytest.raises(cudyn.InvalidArgument, match="offset|fit"):
            cudyn.DeviceArray(shape, np.float32, strides=strides, memory=m, offset=offset)
    with pytest.raises(cudyn.InvalidArgument, match="offset"):
        cudyn.DeviceArray((2,), np.float32, offset=8)


def test_free_refuses_while_a_dlpack_tensor_is_out_and_views_see_it():
    import cudyn
    m = cudyn.DeviceMemory(16)
    a = cudyn.DeviceArray((4,), np.float32, memory=m)
    view = cudyn.DeviceArray((2,), np.float32, ptr=a)
    capsule = a.__dlpack__()  # handed to a consumer that has not released it
    with pytest.raises(cudyn.InvalidArgument, match="in use"):
        m.free()
    del capsule  # never consumed: its destructor releases the tensor
    m.free()
    for use in (lambda: view.ptr, lambda: view.get(), lambda: cudyn.memset_d8(view, 0, 8),
                lambda: cudyn.DeviceArray((1,), np.float32, ptr=view)):
        with pytest.raises(cudyn.InvalidArgument, match="freed"):
            use()


def test_copies_take_any_contiguous_host_buffer():
    import cudyn
    host = np.asfortranarray(np.arange(6, dtype=np.int32).reshape(2, 3))
    m = cudyn.DeviceMemory(host.nbytes)
    cudyn.memcpy_htod(m, host)
    back = np.empty((2, 3), np.int32, order="F")
    cudyn.memcpy_dtoh(back, m)
    np.testing.assert_array_equal(back, host)  # the bytes as they lie: Fortran order both ways
    with pytest.raises(cudyn.InvalidArgument, match="contiguous"):
        cudyn.memcpy_htod(m, np.arange(12, dtype=np.int32)[::2])


def test_dtype_rule():
    import cudyn
    for dtype in ("U4", "S4", "M8[s]", "m8[s]", "V8", object, [("name", "U3")]):
        with pytest.raises(TypeError, match="cannot live in device memory"):
            cudyn.DeviceArray((2,), dtype)
    for dtype in ("?", "i1", "u8", "f2", "c8", ("f4", (3,)), [("a", "u1"), ("b", [("c", "<f8", (2,))])]):
        cudyn.DeviceArray((2,), dtype)
