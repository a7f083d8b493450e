"""Zero-copy exchange: __cuda_array_interface__ (v3) and DLPack, both ways."""

import sys

import numpy as np
import pytest

pytestmark = pytest.mark.mock


def test_cuda_array_interface_v3():
    import cudyn
    a = cudyn.gpuarray.to_gpu(np.arange(12, dtype=np.float32).reshape(3, 4))
    cai = a.__cuda_array_interface__
    assert cai["version"] == 3 and cai["shape"] == (3, 4) and cai["typestr"] == "<f4"
    assert cai["data"] == (a.ptr, False) and cai["strides"] == (16, 4) and "stream" in cai  # strides always given


def test_asarray_takes_a_foreign_interface_without_a_copy():
    import cudyn
    a = cudyn.gpuarray.to_gpu(np.arange(8, dtype=np.int64))

    class Producer:
        def __init__(self, cai):
            self.__cuda_array_interface__ = cai

    producer = Producer(a.__cuda_array_interface__)
    before = sys.getrefcount(producer)
    b = cudyn.asarray(producer)
    assert b.ptr == a.ptr and b.shape == a.shape and b.dtype == np.int64
    assert sys.getrefcount(producer) > before  # kept alive by the view
    np.testing.assert_array_equal(b.get(), np.arange(8))
    del b
    assert sys.getrefcount(producer) == before


def test_dlpack_round_trip_is_the_same_pointer():
    import cudyn
    a = cudyn.gpuarray.to_gpu(np.arange(10, dtype=np.float64))
    assert a.__dlpack_device__() == (2, 0)  # kDLCUDA, device 0
    b = cudyn.from_dlpack(a)
    assert b.ptr == a.ptr and b.shape == (10,) and b.dtype == np.float64
    capsule = a.__dlpack__()
    assert type(capsule).__name__ == "PyCapsule"
    np.testing.assert_array_equal(b.get(), np.arange(10))


def test_dlpack_exchange_is_o1():
    # the same pointer whatever the size: nothing is copied
    import cudyn
    for n in (1, 1 << 20):
        a = cudyn.gpuarray.zeros(n, np.float32)
        assert cudyn.from_dlpack(a).ptr == a.ptr
        assert cudyn.asarray(a).ptr == a.ptr


def test_numpy_refuses_a_device_array_and_we_refuse_host_memory():
    import cudyn
    a = cudyn.gpuarray.zeros(4, np.float32)
    with pytest.raises((TypeError, BufferError, RuntimeError)):
        np.from_dlpack(a)  # numpy takes CPU tensors only
    with pytest.raises((TypeError, BufferError, ValueError)):
        cudyn.from_dlpack(np.zeros(4, np.float32))  # host memory
    with pytest.raises(TypeError):
        cudyn.asarray(object())


def test_gpuarray_view_of_a_dlpack_producer():
    import cudyn
    from cudyn import gpuarray
    a = gpuarray.to_gpu(np.ones(4, np.float32))
    v = gpuarray.GPUArray(a.shape, a.dtype, ptr=a.ptr, owner=a)
    assert v.ptr == a.ptr and v.base is a or v.owner is a
