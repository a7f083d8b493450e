# Type stubs for cudyn._vectors (CUDA's vector types as numpy structured
# dtypes; cudyn.gpuarray re-exports vec).  The attributes are made at
# import, so the stub states them.
from typing import Any

import numpy as np
from numpy.typing import NDArray

class vec:
    """The vector types: vec.float3, vec.make_float3(x, y, z), vec.types."""
    types: dict[np.dtype[Any], str]
    char1: np.dtype[np.void]
    char2: np.dtype[np.void]
    char3: np.dtype[np.void]
    char4: np.dtype[np.void]
    uchar1: np.dtype[np.void]
    uchar2: np.dtype[np.void]
    uchar3: np.dtype[np.void]
    uchar4: np.dtype[np.void]
    short1: np.dtype[np.void]
    short2: np.dtype[np.void]
    short3: np.dtype[np.void]
    short4: np.dtype[np.void]
    ushort1: np.dtype[np.void]
    ushort2: np.dtype[np.void]
    ushort3: np.dtype[np.void]
    ushort4: np.dtype[np.void]
    int1: np.dtype[np.void]
    int2: np.dtype[np.void]
    int3: np.dtype[np.void]
    int4: np.dtype[np.void]
    uint1: np.dtype[np.void]
    uint2: np.dtype[np.void]
    uint3: np.dtype[np.void]
    uint4: np.dtype[np.void]
    long1: np.dtype[np.void]
    long2: np.dtype[np.void]
    long3: np.dtype[np.void]
    long4: np.dtype[np.void]
    ulong1: np.dtype[np.void]
    ulong2: np.dtype[np.void]
    ulong3: np.dtype[np.void]
    ulong4: np.dtype[np.void]
    longlong1: np.dtype[np.void]
    longlong2: np.dtype[np.void]
    longlong3: np.dtype[np.void]
    longlong4: np.dtype[np.void]
    ulonglong1: np.dtype[np.void]
    ulonglong2: np.dtype[np.void]
    ulonglong3: np.dtype[np.void]
    ulonglong4: np.dtype[np.void]
    float1: np.dtype[np.void]
    float2: np.dtype[np.void]
    float3: np.dtype[np.void]
    float4: np.dtype[np.void]
    double1: np.dtype[np.void]
    double2: np.dtype[np.void]
    double3: np.dtype[np.void]
    double4: np.dtype[np.void]
    @staticmethod
    def make_char1(*values: Any) -> NDArray[np.void]:
        """A char1 value (x) as a 0-d array of vec.char1."""
    @staticmethod
    def make_char2(*values: Any) -> NDArray[np.void]:
        """A char2 value (x, y) as a 0-d array of vec.char2."""
    @staticmethod
    def make_char3(*values: Any) -> NDArray[np.void]:
        """A char3 value (x, y, z) as a 0-d array of vec.char3."""
    @staticmethod
    def make_char4(*values: Any) -> NDArray[np.void]:
        """A char4 value (x, y, z, w) as a 0-d array of vec.char4."""
    @staticmethod
    def make_uchar1(*values: Any) -> NDArray[np.void]:
        """A uchar1 value (x) as a 0-d array of vec.uchar1."""
    @staticmethod
    def make_uchar2(*values: Any) -> NDArray[np.void]:
        """A uchar2 value (x, y) as a 0-d array of vec.uchar2."""
    @staticmethod
    def make_uchar3(*values: Any) -> NDArray[np.void]:
        """A uchar3 value (x, y, z) as a 0-d array of vec.uchar3."""
    @staticmethod
    def make_uchar4(*values: Any) -> NDArray[np.void]:
        """A uchar4 value (x, y, z, w) as a 0-d array of vec.uchar4."""
    @staticmethod
    def make_short1(*values: Any) -> NDArray[np.void]:
        """A short1 value (x) as a 0-d array of vec.short1."""
    @staticmethod
    def make_short2(*values: Any) -> NDArray[np.void]:
        """A short2 value (x, y) as a 0-d array of vec.short2."""
    @staticmethod
    def make_short3(*values: Any) -> NDArray[np.void]:
        """A short3 value (x, y, z) as a 0-d array of vec.short3."""
    @staticmethod
    def make_short4(*values: Any) -> NDArray[np.void]:
        """A short4 value (x, y, z, w) as a 0-d array of vec.short4."""
    @staticmethod
    def make_ushort1(*values: Any) -> NDArray[np.void]:
        """A ushort1 value (x) as a 0-d array of vec.ushort1."""
    @staticmethod
    def make_ushort2(*values: Any) -> NDArray[np.void]:
        """A ushort2 value (x, y) as a 0-d array of vec.ushort2."""
    @staticmethod
    def make_ushort3(*values: Any) -> NDArray[np.void]:
        """A ushort3 value (x, y, z) as a 0-d array of vec.ushort3."""
    @staticmethod
    def make_ushort4(*values: Any) -> NDArray[np.void]:
        """A ushort4 value (x, y, z, w) as a 0-d array of vec.ushort4."""
    @staticmethod
    def make_int1(*values: Any) -> NDArray[np.void]:
        """A int1 value (x) as a 0-d array of vec.int1."""
    @staticmethod
    def make_int2(*values: Any) -> NDArray[np.void]:
        """A int2 value (x, y) as a 0-d array of vec.int2."""
    @staticmethod
    def make_int3(*values: Any) -> NDArray[np.void]:
        """A int3 value (x, y, z) as a 0-d array of vec.int3."""
    @staticmethod
    def make_int4(*values: Any) -> NDArray[np.void]:
        """A int4 value (x, y, z, w) as a 0-d array of vec.int4."""
    @staticmethod
    def make_uint1(*values: Any) -> NDArray[np.void]:
        """A uint1 value (x) as a 0-d array of vec.uint1."""
    @staticmethod
    def make_uint2(*values: Any) -> NDArray[np.void]:
        """A uint2 value (x, y) as a 0-d array of vec.uint2."""
    @staticmethod
    def make_uint3(*values: Any) -> NDArray[np.void]:
        """A uint3 value (x, y, z) as a 0-d array of vec.uint3."""
    @staticmethod
    def make_uint4(*values: Any) -> NDArray[np.void]:
        """A uint4 value (x, y, z, w) as a 0-d array of vec.uint4."""
    @staticmethod
    def make_long1(*values: Any) -> NDArray[np.void]:
        """A long1 value (x) as a 0-d array of vec.long1."""
    @staticmethod
    def make_long2(*values: Any) -> NDArray[np.void]:
        """A long2 value (x, y) as a 0-d array of vec.long2."""
    @staticmethod
    def make_long3(*values: Any) -> NDArray[np.void]:
        """A long3 value (x, y, z) as a 0-d array of vec.long3."""
    @staticmethod
    def make_long4(*values: Any) -> NDArray[np.void]:
        """A long4 value (x, y, z, w) as a 0-d array of vec.long4."""
    @staticmethod
    def make_ulong1(*values: Any) -> NDArray[np.void]:
        """A ulong1 value (x) as a 0-d array of vec.ulong1."""
    @staticmethod
    def make_ulong2(*values: Any) -> NDArray[np.void]:
        """A ulong2 value (x, y) as a 0-d array of vec.ulong2."""
    @staticmethod
    def make_ulong3(*values: Any) -> NDArray[np.void]:
        """A ulong3 value (x, y, z) as a 0-d array of vec.ulong3."""
    @staticmethod
    def make_ulong4(*values: Any) -> NDArray[np.void]:
        """A ulong4 value (x, y, z, w) as a 0-d array of vec.ulong4."""
    @staticmethod
    def make_longlong1(*values: Any) -> NDArray[np.void]:
        """A longlong1 value (x) as a 0-d array of vec.longlong1."""
    @staticmethod
    def make_longlong2(*values: Any) -> NDArray[np.void]:
        """A longlong2 value (x, y) as a 0-d array of vec.longlong2."""
    @staticmethod
    def make_longlong3(*values: Any) -> NDArray[np.void]:
        """A longlong3 value (x, y, z) as a 0-d array of vec.longlong3."""
    @staticmethod
    def make_longlong4(*values: Any) -> NDArray[np.void]:
        """A longlong4 value (x, y, z, w) as a 0-d array of vec.longlong4."""
    @staticmethod
    def make_ulonglong1(*values: Any) -> NDArray[np.void]:
        """A ulonglong1 value (x) as a 0-d array of vec.ulonglong1."""
    @staticmethod
    def make_ulonglong2(*values: Any) -> NDArray[np.void]:
        """A ulonglong2 value (x, y) as a 0-d array of vec.ulonglong2."""
    @staticmethod
    def make_ulonglong3(*values: Any) -> NDArray[np.void]:
        """A ulonglong3 value (x, y, z) as a 0-d array of vec.ulonglong3."""
    @staticmethod
    def make_ulonglong4(*values: Any) -> NDArray[np.void]:
        """A ulonglong4 value (x, y, z, w) as a 0-d array of vec.ulonglong4."""
    @staticmethod
    def make_float1(*values: Any) -> NDArray[np.void]:
        """A float1 value (x) as a 0-d array of vec.float1."""
    @staticmethod
    def make_float2(*values: Any) -> NDArray[np.void]:
        """A float2 value (x, y) as a 0-d array of vec.float2."""
    @staticmethod
    def make_float3(*values: Any) -> NDArray[np.void]:
        """A float3 value (x, y, z) as a 0-d array of vec.float3."""
    @staticmethod
    def make_float4(*values: Any) -> NDArray[np.void]:
        """A float4 value (x, y, z, w) as a 0-d array of vec.float4."""
    @staticmethod
    def make_double1(*values: Any) -> NDArray[np.void]:
        """A double1 value (x) as a 0-d array of vec.double1."""
    @staticmethod
    def make_double2(*values: Any) -> NDArray[np.void]:
        """A double2 value (x, y) as a 0-d array of vec.double2."""
    @staticmethod
    def make_double3(*values: Any) -> NDArray[np.void]:
        """A double3 value (x, y, z) as a 0-d array of vec.double3."""
    @staticmethod
    def make_double4(*values: Any) -> NDArray[np.void]:
        """A double4 value (x, y, z, w) as a 0-d array of vec.double4."""
