# Type stubs for cudyn.scan (PyCUDA's prefix sums).
from typing import Any, Callable

import numpy as np
from numpy.typing import DTypeLike

from ._cudyn import DeviceArray, _StreamLike

__all__ = ["InclusiveScanKernel", "ExclusiveScanKernel"]

TILE: int

class _ScanKernel:
    exclusive: bool
    dtype: np.dtype[Any]
    scan_expr: str
    neutral: object
    name: str
    source: str
    def __init__(self, dtype: DTypeLike, scan_expr: str, neutral: object = None, name_prefix: str = "scan",
                 keep: bool = False, options: None = None, preamble: str = "", devices: object = None) -> None: ...
    def __call__(self, input_ary: DeviceArray, output_ary: DeviceArray | None = None,
                 allocator: Callable[[int], Any] | None = None, stream: _StreamLike = None,
                 queue: _StreamLike = None) -> DeviceArray: ...

class InclusiveScanKernel(_ScanKernel):
    """out[k] = in[0] OP in[1] OP ... OP in[k]."""

class ExclusiveScanKernel(_ScanKernel):
    """out[k] = neutral OP in[0] OP ... OP in[k-1] (out[0] = neutral)."""
