"""Reductions cudyn writes as CUDA C++ where its expression reductions do
not reach: results of any C type (complex numbers, structs), PyCUDA's
ReductionKernel with its preamble, complex sums and dot products.

Two launches on the caller's stream: blocks of BLOCK threads each fold a
grid-stride share of the elements (``map`` of element i, combined by
``reduce`` from ``neutral``) into one partial through a tree in shared
memory; one block then folds the partials the same way.  The number of
blocks depends only on the device and n, so a result is the same bits on
every run.
"""

import numpy as np

from . import _codegen, _result
from ._bounded import Bounded
from ._dtypes import ctype

BLOCK = 256


def source(result_type, neutral, reduce_expr, map_expr, arguments, name, preamble=""):
    """(source, launch format of the arguments, parsed arguments) of the two kernels
    NAME_stage1(arguments..., T *partial, n) and NAME_stage2(const T *partial, T *out, m)."""
    parsed = _codegen.parse_arguments(arguments) if arguments.strip() else []
    head = _codegen.preamble_for([t for t, _, _ in parsed] + [result_type]) + (preamble or "")
    t = result_type
    fold = f"""    __shared__ __align__(16) unsigned char cudyn_raw[{BLOCK} * sizeof({t})];
    {t} *cudyn_s = ({t} *)cudyn_raw;
    cudyn_s[threadIdx.x] = cudyn_acc;
    __syncthreads();
    for (unsigned int cudyn_h = {BLOCK} / 2; cudyn_h > 0; cudyn_h >>= 1) {{
        if (threadIdx.x < cudyn_h)
            cudyn_s[threadIdx.x] = cudyn_reduce_{name}(cudyn_s[threadIdx.x], cudyn_s[threadIdx.x + cudyn_h]);
        __syncthreads();
    }}
"""
    args = arguments.strip()
    text = f"""{head}
__device__ {t} cudyn_reduce_{name}(const {t} &a, const {t} &b) {{ return ({reduce_expr}); }}

extern "C" __global__ void {name}_stage1({args + ", " if args else ""}{t} *cudyn_partial, unsigned long long n)
{{
    {t} cudyn_acc = ({neutral});
    for (unsigned long long i = (unsigned long long)blockIdx.x * {BLOCK} + threadIdx.x; i < n;
         i += (unsigned long long){BLOCK} * gridDim.x)
        cudyn_acc = cudyn_reduce_{name}(cudyn_acc, ({map_expr}));
{fold}    if (threadIdx.x == 0)
        cudyn_partial[blockIdx.x] = cudyn_s[0];
}}

extern "C" __global__ void {name}_stage2(const {t} *cudyn_in, {t} *cudyn_out, unsigned int m)
{{
    {t} cudyn_acc = ({neutral});
    for (unsigned int i = threadIdx.x; i < m; i += {BLOCK})
        cudyn_acc = cudyn_reduce_{name}(cudyn_acc, cudyn_in[i]);
{fold}    if (threadIdx.x == 0)
        cudyn_out[0] = cudyn_s[0];
}}
"""
    return text, _codegen.argument_codes(parsed), parsed


_prepared = Bounded(512)  # (text, device, nvcc) -> (stage1, stage2)
_texts = Bounded(512)     # reduce()'s arguments -> (text, name, codes)


def kernels(text, name, codes, nvcc=False):
    """The two stages, prepared, on the calling thread's device (``nvcc``:
    _codegen.function's, for ReductionKernel's texts)."""
    key = (text, _codegen._device_current(), nvcc)
    stages = _prepared.get(key)
    if stages is None:
        stages = _prepared.put(key, (_codegen.function(text, f"{name}_stage1", nvcc).prepare(codes + "pQ"),
                                     _codegen.function(text, f"{name}_stage2", nvcc).prepare("ppI")))
    return stages


def run(stages, dtype, n, values, out, stream=None):
    """Reduces n elements into out (a device array of one element of dtype)."""
    stage1, stage2 = stages
    blocks = _codegen.grid_for(n)
    partial = _result.new_array((blocks,), dtype, None, stream)
    if stream is not None:
        _result.mark_used(stream, (out, partial) + tuple(values))
    stage1((blocks,), (BLOCK,), *values, partial, n, stream=stream)
    stage2((1,), (BLOCK,), partial, out, blocks, stream=stream)
    return out


def reduce(dtype, neutral, reduce_expr, map_expr, arguments, values, n, out=None, stream=None, hint="reduce",
           preamble=""):
    """One reduction: its kernels written (or found) and run; returns out
    (a new array of shape () when not given)."""
    dtype = np.dtype(dtype)
    key = (dtype, str(neutral), reduce_expr, map_expr, arguments, hint, preamble)
    written = _texts.get(key)
    if written is None:
        t = ctype(dtype)
        name = f"cudyn_{hint}_{_codegen.digest(chr(0).join((t,) + key[1:5] + (preamble,)))}"
        text, codes, _ = source(t, str(neutral), reduce_expr, map_expr, arguments, name, preamble)
        written = _texts.put(key, (text, name, codes))
    text, name, codes = written
    if out is None:
        out = _result.new_array((), dtype, None, stream)
    return run(kernels(text, name, codes), dtype, n, values, out, stream)
