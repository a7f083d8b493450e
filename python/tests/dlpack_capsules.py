"""DLPack capsules made by hand (ctypes, from the DLPack specification's
unversioned ABI), so that tests can give cudyn.from_dlpack any tensor a
producer could describe, well-formed or not.  Used by test_reliability.py
and test_properties.py; nothing here imports cudyn.

    cap = capsule(ptr, shape=(4,), strides=None, code=FLOAT, bits=32)
    cudyn.from_dlpack(cap)

The tensor's memory is not owned: the caller keeps it alive.  The capsule
keeps its ctypes structures alive until a consumer calls the deleter (a
capsule nobody consumed keeps them, which is what a test wants).
"""

import ctypes

CPU, CUDA, CUDA_HOST, CUDA_MANAGED = 1, 2, 3, 13
INT, UINT, FLOAT, OPAQUE_HANDLE, BFLOAT, COMPLEX, BOOL = 0, 1, 2, 3, 4, 5, 6


class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", DLDevice), ("ndim", ctypes.c_int32), ("dtype", DLDataType),
                ("shape", ctypes.POINTER(ctypes.c_int64)), ("strides", ctypes.POINTER(ctypes.c_int64)),
                ("byte_offset", ctypes.c_uint64)]


class DLManagedTensor(ctypes.Structure):
    pass


_DELETER = ctypes.CFUNCTYPE(None, ctypes.POINTER(DLManagedTensor))
DLManagedTensor._fields_ = [("dl_tensor", DLTensor), ("manager_ctx", ctypes.c_void_p), ("deleter", _DELETER)]

_capsule_new = ctypes.pythonapi.PyCapsule_New
_capsule_new.restype = ctypes.py_object
_capsule_new.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
_capsule_name = ctypes.pythonapi.PyCapsule_GetName
_capsule_name.restype = ctypes.c_char_p
_capsule_name.argtypes = [ctypes.py_object]
_capsule_pointer = ctypes.pythonapi.PyCapsule_GetPointer
_capsule_pointer.restype = ctypes.c_void_p
_capsule_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]

_alive = {}  # address of the managed tensor -> what it points into
deleted = []  # addresses whose deleter ran, in order


@_DELETER
def _delete(managed):
    address = ctypes.addressof(managed.contents)
    _alive.pop(address, None)
    deleted.append(address)


def capsule(ptr, shape, strides=None, code=FLOAT, bits=32, lanes=1, device_type=CUDA, device_id=0, byte_offset=0):
    """A "dltensor" capsule over ptr; strides in elements, as DLPack counts them."""
    ndim = len(shape)
    shape_array = (ctypes.c_int64 * max(ndim, 1))(*shape)
    strides_array = (ctypes.c_int64 * max(ndim, 1))(*strides) if strides is not None else None
    managed = DLManagedTensor()
    t = managed.dl_tensor
    t.data = ptr
    t.device = DLDevice(device_type, device_id)
    t.ndim = ndim
    t.dtype = DLDataType(code, bits, lanes)
    t.shape = ctypes.cast(shape_array, ctypes.POINTER(ctypes.c_int64))
    if strides_array is not None:
        t.strides = ctypes.cast(strides_array, ctypes.POINTER(ctypes.c_int64))
    t.byte_offset = byte_offset
    managed.deleter = _delete
    address = ctypes.addressof(managed)
    _alive[address] = (managed, shape_array, strides_array)
    return _capsule_new(address, b"dltensor", None)


def name(cap):
    """The capsule's name: b"dltensor", b"used_dltensor", b"dltensor_versioned" ..."""
    return _capsule_name(cap)


# The versioned ABI (DLPack 1.0): DLManagedTensorVersioned starts with its
# version, the manager's context and the deleter, then the flags.
READ_ONLY = 1


class _DLManagedTensorVersionedHead(ctypes.Structure):
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32), ("manager_ctx", ctypes.c_void_p),
                ("deleter", ctypes.c_void_p), ("flags", ctypes.c_uint64)]


def versioned_flags(cap):
    """The flags of a "dltensor_versioned" capsule."""
    head = _DLManagedTensorVersionedHead.from_address(_capsule_pointer(cap, b"dltensor_versioned"))
    return head.flags
