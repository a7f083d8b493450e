"""CUDA's vector types (float3, int2, uchar4 ...) as numpy structured dtypes.

``gpuarray.vec.float3`` has fields x, y, z with CUDA's layout, so device
arrays and kernel arguments of that dtype are what kernels declaring
``float3`` read; ``vec.make_float3(1, 2, 3)`` is one such value (a 0-d
array).  Generated kernels know each dtype by its CUDA name.
"""

import numpy as np

from ._dtypes import register_dtype

# CUDA's base name -> the numpy type of its fields (long is 64 bits on Linux)
_BASES = (
    ("char", np.int8), ("uchar", np.uint8), ("short", np.int16), ("ushort", np.uint16), ("int", np.int32),
    ("uint", np.uint32), ("long", np.int64), ("ulong", np.uint64), ("longlong", np.int64),
    ("ulonglong", np.uint64), ("float", np.float32), ("double", np.float64),
)


class vec:  # noqa: N801 (PyCUDA's name)
    """The vector types: vec.float3, vec.make_float3(x, y, z), vec.types."""

    types: dict = {}  # dtype -> its CUDA name


def _make(dtype, name):
    def make(*values):
        if len(values) != len(dtype.names):
            raise TypeError(f"make_{name} takes {len(dtype.names)} values, {len(values)} given")
        return np.array(tuple(values), dtype=dtype)
    make.__name__ = f"make_{name}"
    make.__doc__ = f"A {name} value ({', '.join(dtype.names)}) as a 0-d array of vec.{name}."
    return make


def _define():
    for base, scalar in _BASES:
        for count in (1, 2, 3, 4):
            name = f"{base}{count}"
            dtype = np.dtype([(field, scalar) for field in "xyzw"[:count]], align=True)
            register_dtype(dtype, name)
            vec.types[dtype] = name
            setattr(vec, name, dtype)
            setattr(vec, f"make_{name}", staticmethod(_make(dtype, name)))


_define()
