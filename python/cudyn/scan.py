"""Prefix scans (cumulative sums and the like), as PyCUDA's ``pycuda.scan``.

::

    from cudyn.scan import InclusiveScanKernel
    cumsum = InclusiveScanKernel(np.int32, "a + b")
    cumsum(x)                    # in place: x[k] = x[0] + ... + x[k]

``scan_expr`` combines an earlier value ``a`` with a later one ``b``; it
must be associative (not necessarily commutative: the order is kept).
ExclusiveScanKernel needs ``neutral``, the value before the first.

Three launches over 64-bit indices: each block folds its chunk of the
input, tile by tile, to one total; one block scans the totals; each block
then scans its chunk again, starting from the totals before it, and
writes the result (in place when no output is given).  A chunk's tiles
are scanned in shared memory, so the input is read twice and written once.
"""

import numpy as np

from . import _codegen, _cudyn, _result
from ._dtypes import ctype

__all__ = ["InclusiveScanKernel", "ExclusiveScanKernel"]

TILE = 256  # threads per block, elements per tile

_SOURCE = r"""
__device__ {t} cudyn_scan_op(const {t} &a, const {t} &b) {{ return ({t})({expr}); }}

/* Scans in[start, end) tile by tile, starting from *carry when have_carry;
 * writes the inclusive or exclusive results to out (when out is not null)
 * and returns the total in *carry (have_carry set when end > start). */
__device__ void cudyn_scan_chunk(const {t} *in, {t} *out, unsigned long long start, unsigned long long end,
                                 {t} *carry, bool *have_carry, bool exclusive, {t} *s)
{{
    for (unsigned long long base = start; base < end; base += {tile}) {{
        unsigned int count = end - base < {tile} ? (unsigned int)(end - base) : {tile};
        unsigned int k = threadIdx.x;
        if (k < count)
            s[k] = in[base + k];
        __syncthreads();
        for (unsigned int d = 1; d < count; d <<= 1) {{
            {t} v;
            bool take = k >= d && k < count;
            if (take)
                v = cudyn_scan_op(s[k - d], s[k]);
            __syncthreads();
            if (take)
                s[k] = v;
            __syncthreads();
        }}
        if (out && k < count) {{
            {t} before = *carry;
            if (exclusive)
                out[base + k] = k == 0 ? ({neutral_or_carry})
                                       : (*have_carry ? cudyn_scan_op(before, s[k - 1]) : s[k - 1]);
            else
                out[base + k] = *have_carry ? cudyn_scan_op(before, s[k]) : s[k];
        }}
        __syncthreads();
        if (k == 0) {{
            *carry = *have_carry ? cudyn_scan_op(*carry, s[count - 1]) : s[count - 1];
            *have_carry = true;
        }}
        __syncthreads();
    }}
}}

#define CUDYN_SHARED __shared__ __align__(16) unsigned char cudyn_raw[{tile} * sizeof({t})]; \
    {t} *s = ({t} *)cudyn_raw; __shared__ __align__(16) unsigned char cudyn_carry_raw[sizeof({t})]; \
    {t} *carry = ({t} *)cudyn_carry_raw; __shared__ bool have;

extern "C" __global__ void {name}_totals(const {t} *in, {t} *totals, unsigned long long n, unsigned long long chunk)
{{
    CUDYN_SHARED
    if (threadIdx.x == 0) have = false;
    __syncthreads();
    unsigned long long start = blockIdx.x * chunk, end = start + chunk < n ? start + chunk : n;
    cudyn_scan_chunk(in, 0, start, end, carry, &have, false, s);
    if (threadIdx.x == 0) totals[blockIdx.x] = *carry;
}}

extern "C" __global__ void {name}_scan_totals({t} *totals, unsigned long long blocks)
{{
    CUDYN_SHARED
    if (threadIdx.x == 0) have = false;
    __syncthreads();
    cudyn_scan_chunk(totals, totals, 0, blocks, carry, &have, false, s);
}}

extern "C" __global__ void {name}_apply(const {t} *in, {t} *out, const {t} *totals, unsigned long long n,
                                        unsigned long long chunk, int exclusive)
{{
    CUDYN_SHARED
    if (threadIdx.x == 0) {{
        have = blockIdx.x > 0;
        if (have) *carry = totals[blockIdx.x - 1];
    }}
    __syncthreads();
    unsigned long long start = blockIdx.x * chunk, end = start + chunk < n ? start + chunk : n;
    cudyn_scan_chunk(in, out, start, end, carry, &have, exclusive != 0, s);
}}
"""


class _ScanKernel:
    exclusive = False

    def __init__(self, dtype, scan_expr, neutral=None, name_prefix="scan", keep=False, options=None, preamble="",
                 devices=None):
        if options:
            raise TypeError(f"{type(self).__name__}: options are not supported (cudyn compiles with NVRTC's"
                            " defaults)")
        if self.exclusive and neutral is None:
            raise ValueError("ExclusiveScanKernel needs neutral, the value before the first")
        self.dtype = np.dtype(dtype)
        self.scan_expr = scan_expr
        self.neutral = neutral
        t = ctype(self.dtype)
        text = _SOURCE.format(t=t, expr=scan_expr, tile=TILE, name="{name}",
                              neutral_or_carry=f"*have_carry ? before : ({t})({neutral})" if neutral is not None
                              else "before")
        self.name = f"cudyn_{name_prefix}_{_codegen.digest(t + scan_expr + str(neutral) + (preamble or ''))}"
        self.source = _codegen.preamble_for([t]) + (preamble or "") + text.replace("{name}", self.name)
        self._stages = {}  # device -> the three prepared kernels

    def _prepared(self):
        device = _codegen._device_current()
        stages = self._stages.get(device)
        if stages is None:
            def f(name):  # the texts are PyCUDA's, written for nvcc
                return _codegen.function(self.source, name, nvcc=True)
            stages = self._stages[device] = (f(self.name + "_totals").prepare("ppQQ"),
                                             f(self.name + "_scan_totals").prepare("pQ"),
                                             f(self.name + "_apply").prepare("pppQQi"))
        return stages

    def __call__(self, input_ary, output_ary=None, allocator=None, stream=None, queue=None):
        stream = stream if stream is not None else queue
        output_ary = input_ary if output_ary is None else output_ary
        for a in (input_ary, output_ary):
            if not isinstance(a, _cudyn.DeviceArray) or not a.is_contiguous or a.dtype != self.dtype:
                raise ValueError(f"{type(self).__name__}: contiguous arrays of {self.dtype} are needed")
        if output_ary.size != input_ary.size:
            raise ValueError(f"{type(self).__name__}: the output has {output_ary.size} elements, the input"
                             f" {input_ary.size}")
        n = input_ary.size
        if n == 0:
            return output_ary
        blocks = _codegen.grid_for(n)
        chunk = -(-(-(-n // blocks)) // TILE) * TILE
        blocks = -(-n // chunk)
        totals = _result.new_array((blocks,), self.dtype, None, stream)
        if stream is not None:
            _result.mark_used(stream, (input_ary, output_ary, totals))
        fold, scan_totals, apply = self._prepared()
        fold((blocks,), (TILE,), input_ary, totals, n, chunk, stream=stream)
        scan_totals((1,), (TILE,), totals, blocks, stream=stream)
        apply((blocks,), (TILE,), input_ary, output_ary, totals, n, chunk, int(self.exclusive), stream=stream)
        return output_ary


class InclusiveScanKernel(_ScanKernel):
    """out[k] = in[0] OP in[1] OP ... OP in[k]."""

    exclusive = False


class ExclusiveScanKernel(_ScanKernel):
    """out[k] = neutral OP in[0] OP ... OP in[k-1] (out[0] = neutral)."""

    exclusive = True
