"""The CUDA C++ kernels cudyn's Python layer writes at run time: the one
text generator of gpuarray's operators, cumath, the gathers, rand and the
PyCUDA-style ElementwiseKernel (python/README.md, "Who writes which
kernel").  Each text is compiled once per machine (cudyn's kernel cache)
and loaded once per process and device (the tables below, bounded).

A map kernel runs ``body`` once per element of a shape; each array operand
is a C++ reference named as the operand, to its element: ``z = x + y``.
An operand is read or written in one of three ways, chosen per call from
its layout: ``flat`` (the same C order as the loop: p[i]), ``scalar`` (one
element for all: p[0]) or ``strided`` (byte offsets from the loop's
multi-index, with the operand's strides, 0 where it is broadcast).  A
``raw`` operand is the pointer itself, named as the operand, for bodies
that index it (gathers and scatters).  A writable operand is written by
the body, never read (flat loads skip it).

The two loop shapes: operands all flat or scalar make a grid-stride loop
over restrict pointers that moves 16 bytes of the widest operand per
thread and step when every flat pointer is aligned to its vector (the
element loop, unrolled, otherwise and for the tail); any strided operand
makes a loop of one element per thread (the grid as large as the
elements), whose offsets come from the multi-index, dividing nothing for
the outermost axis.
"""

import hashlib
import re
import threading

import numpy as np

from . import _complex, _cudyn
from ._bounded import Bounded
from ._dtypes import MAX_PARAMS, ctype, dtype_of, launch_code
from ._views import broadcast, extent, is_dense

BLOCK = 256   # threads per block of every map kernel
UNROLL = 4    # elements a thread of the flat element loop has in flight at once
VECTOR = 16   # bytes of the widest flat operand a thread moves per step
FLAT, SCALAR, STRIDED, RAW = "flat", "scalar", "strided", "raw"
_BLOCK_SHAPE = (BLOCK,)
_VECTOR_TYPES = {16: "uint4", 8: "uint2", 4: "unsigned int", 2: "unsigned short"}

_device_current = _cudyn.device_current
_lock = threading.Lock()
_loaded = Bounded(512)    # (device, source, nvcc) -> {kernel name: Function, "": Module}
_maps = Bounded(2048)     # (body, operands, scalars, ndim, preamble, hint, device) -> prepared kernel
_plans = Bounded(4096)    # run_map's plans, by body and the operands' layouts
_sm_blocks: dict = {}     # device -> the most blocks a grid-stride loop takes (8 per multiprocessor)


def preamble_for(types):
    """What a kernel using these C types needs before its own code."""
    text = ""
    if any("__half" in t for t in types):
        text += "#include <cuda_fp16.h>\n"
    if any("complex" in t for t in types):
        text += _complex.SOURCE
    return text


def digest(text):
    """A short name-safe digest of a kernel's text, for its name."""
    return hashlib.sha1(text.encode()).hexdigest()[:16]


# What a kernel text written for nvcc (PyCUDA's texts: ElementwiseKernel,
# ReductionKernel, the scans, SourceModule) is compiled with: nvcc's
# predefined names (cudyn.h's CUDYN_OPTION_NVCC_NAMES, which _cudyn
# exports: uint, M_PI, INT_MAX, malloc, std::sqrt ...) and PyCUDA's headers
# in memory.
NVCC_NAMES = _cudyn._OPTION_NVCC_NAMES
_NVCC_OPTIONS = (NVCC_NAMES,)


def function(source, name, nvcc=False):
    """The kernel ``name`` of ``source`` (extern "C" kernels) on the calling
    thread's device: compiled through the cache once, loaded once per device;
    ``nvcc=True`` for a text written for nvcc (see NVCC_NAMES)."""
    key = (_device_current(), source, nvcc)
    functions = _loaded.get(key)
    if functions is None:
        module = _cudyn.Module.from_source(source, no_extern_c=True, name="cudyn_generated.cu",
                                           options=_NVCC_OPTIONS if nvcc else None,
                                           headers=_complex.PYCUDA_HEADERS if nvcc else None)
        with _lock:
            functions = _loaded.get(key) or _loaded.put(key, {"": module})
    f = functions.get(name)
    if f is None:
        f = functions[name] = functions[""].get_function(name)
    return f


def grid_for(n, device=None):
    """Blocks of BLOCK threads for a grid-stride loop over n elements on
    device (the current one for None): enough for every element, at most
    8 per multiprocessor."""
    if device is None:
        device = _device_current()
    most = _sm_blocks.get(device)
    if most is None:
        most = _sm_blocks[device] = 8 * max(1, int(_cudyn.device_info(device).get("multiprocessors", 1)))
    blocks = (n + BLOCK - 1) // BLOCK  # (an if costs less than the builtins max and min: it runs per operation)
    return most if blocks > most else blocks or 1


def grid_each(n):
    """Blocks of BLOCK threads for one thread per element (at most the grid's limit)."""
    return max(1, min((n + BLOCK - 1) // BLOCK, (1 << 31) - 1))


# ------------------------------------------------------------ map kernels

def _element_refs(operands, indent, at=None):
    """The body's references to its operands' elements at index i (and the
    strided ones' byte offsets cudyn_o_NAME); ``at`` overrides where a
    flat operand's element is."""
    lines = []
    for name, t, mode, writable, _ in operands:
        const = "" if writable else "const "
        if mode == RAW:
            continue
        if mode == FLAT:
            where = at(name) if at else f"cudyn_p_{name}[i]"
        elif mode == SCALAR:
            where = f"cudyn_p_{name}[0]"
        else:
            where = f"*({const}{t} *)(({const}char *)cudyn_p_{name} + cudyn_o_{name})"
        lines.append(f"{indent}{const}{t} &{name} = {where};")
    return lines


def _strided_loop(operands, ndim, body):
    """A grid-stride loop over i that works out each strided operand's offset."""
    strided = [op for op in operands if op[2] == STRIDED]
    lines = ["    for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < n;",
             "         i += (unsigned long long)blockDim.x * gridDim.x) {"]
    if strided:
        lines.append("        unsigned long long cudyn_r = i, cudyn_c;")
        lines.append("        long long " + ", ".join(f"cudyn_o_{op[0]} = 0" for op in strided) + ";")
        for k in range(ndim - 1, -1, -1):
            adds = " ".join(f"cudyn_o_{op[0]} += (long long)cudyn_c * cudyn_s_{op[0]}_{k};" for op in strided)
            # what is left of i for the outermost axis is its index (i < n):
            # no 64-bit division there, none at all in a one-axis loop
            step = f"cudyn_c = cudyn_r % cudyn_d{k}; cudyn_r /= cudyn_d{k};" if k else "cudyn_c = cudyn_r;"
            lines.append(f"        {step} {adds}")
    return lines + _element_refs(operands, "        ") + [f"        {body};", "    }"]


def _element_loop(operands, body, start):
    """The flat grid-stride loop from element ``start``, UNROLL elements per
    thread and step: their loads can all be in flight before the first
    store (the pointers are __restrict__: an element is read, then written,
    by one thread)."""
    return ["    const unsigned long long cudyn_g = (unsigned long long)blockDim.x * gridDim.x;",
            f"    for (unsigned long long cudyn_b = {start} + (unsigned long long)blockIdx.x * blockDim.x"
            " + threadIdx.x;",
            f"         cudyn_b < n; cudyn_b += {UNROLL} * cudyn_g) {{",
            "#pragma unroll",
            f"        for (unsigned int cudyn_u = 0; cudyn_u < {UNROLL}; cudyn_u++) {{",
            "            const unsigned long long i = cudyn_b + cudyn_u * cudyn_g;",
            "            if (i < n) {"] + _element_refs(operands, "                ") + \
        [f"                {body};", "            }", "        }", "    }"]


def _vector_lanes(operands):
    """Elements per 16-byte step of the widest flat operand, or 0 where a
    vector path gains nothing or cannot be written."""
    flat = [op for op in operands if op[2] == FLAT]
    if not flat:
        return 0
    lanes = VECTOR // max(op[4] for op in flat)
    if lanes < 2 or any(lanes * op[4] not in _VECTOR_TYPES for op in flat):
        return 0
    return lanes


def _vector_loop(operands, body, lanes):
    """Each thread takes ``lanes`` elements per step, every flat operand as
    one vector load (writable ones: one store, no load); the tail, and
    every call whose flat pointers are not aligned to their vectors, go to
    the element loop."""
    flat = [op for op in operands if op[2] == FLAT]
    aligned = " && ".join(f"(unsigned long long)cudyn_p_{name} % {lanes * size} == 0" for name, _, _, _, size in flat)
    lines = ["    unsigned long long cudyn_tail = 0;",
             f"    if ({aligned}) {{",
             f"        const unsigned long long cudyn_nv = n / {lanes};",
             "        for (unsigned long long cudyn_v = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;",
             "             cudyn_v < cudyn_nv; cudyn_v += (unsigned long long)blockDim.x * gridDim.x) {"]
    for name, t, _, writable, size in flat:
        vt = _VECTOR_TYPES[lanes * size]
        lines.append(f"            __align__(16) {t} cudyn_v_{name}[{lanes}];")
        if not writable:
            lines.append(f"            *({vt} *)cudyn_v_{name} = ((const {vt} *)cudyn_p_{name})[cudyn_v];")
    lines += ["#pragma unroll", f"            for (unsigned int cudyn_u = 0; cudyn_u < {lanes}; cudyn_u++) {{"]
    if re.search(r"\bi\b", body):  # the body's own use of the index (rand's)
        lines.append(f"                const unsigned long long i = cudyn_v * {lanes} + cudyn_u;")
    lines += _element_refs(operands, "                ", lambda name: f"cudyn_v_{name}[cudyn_u]")
    lines += [f"                {body};", "            }"]
    for name, t, _, writable, size in flat:
        if writable:
            vt = _VECTOR_TYPES[lanes * size]
            lines.append(f"            (({vt} *)cudyn_p_{name})[cudyn_v] = *({vt} *)cudyn_v_{name};")
    return lines + ["        }", f"        cudyn_tail = cudyn_nv * {lanes};", "    }"]


def map_source(body, operands, scalars, ndim, preamble="", hint="map"):
    """(source, kernel name) of a map kernel.

    operands: (name, C type, mode, writable, itemsize) for each array, mode
    FLAT, SCALAR, STRIDED or RAW; scalars: (name, C type); ndim: the loop's
    dimensions (strided operands only).  See the module's note for the two
    loop shapes."""
    types = [op[1] for op in operands] + [t for _, t in scalars]
    flat = all(op[2] in (FLAT, SCALAR) for op in operands)
    restrict = "" if any(op[2] == RAW for op in operands) else "__restrict__ "
    params = []
    for name, t, mode, writable, _ in operands:
        pointer = name if mode == RAW else f"cudyn_p_{name}"
        params.append(f"{'' if writable else 'const '}{t} *{restrict}{pointer}")
    params += [f"{t} {name}" for name, t in scalars]
    params.append("unsigned long long n")
    strided = [op for op in operands if op[2] == STRIDED]
    if strided:
        params += [f"unsigned long long cudyn_d{k}" for k in range(ndim)]
        params += [f"long long cudyn_s_{op[0]}_{k}" for op in strided for k in range(ndim)]
    if flat:
        lanes = _vector_lanes(operands)
        lines = (_vector_loop(operands, body, lanes) if lanes else []) + \
            _element_loop(operands, body, "cudyn_tail" if lanes else "0")
    else:
        lines = _strided_loop(operands, ndim, body)
    text = preamble_for(types) + preamble
    inner = "\n".join(lines)
    name = f"cudyn_{hint}_{digest(text + ','.join(params) + inner)}"
    source = f"{text}\nextern \"C\" __global__ void {name}({', '.join(params)})\n{{\n{inner}\n}}\n"
    return source, name


def map_format(operands, scalars, ndim):
    """The launch format of a map kernel: its pointers, scalars, n, dims and strides."""
    codes = "p" * len(operands) + "".join(launch_code(dtype_of(t)) for _, t in scalars) + "Q"
    nstrided = sum(1 for op in operands if op[2] == STRIDED)
    if nstrided:
        codes += "Q" * ndim + "q" * (ndim * nstrided)
    return codes


def map_kernel(body, operands, scalars, ndim, preamble="", hint="map"):
    """(prepared, source, format): the map kernel for these operands on the
    calling thread's device (see map_source), prepared: called as
    prepared(grid, block, *arrays, *scalars, n, *dims, *strides)."""
    key = (body, operands, scalars, ndim, preamble, hint, _device_current())
    kernel = _maps.get(key)
    if kernel is None:
        source, name = map_source(body, operands, scalars, ndim, preamble, hint)
        codes = map_format(operands, scalars, ndim)
        kernel = _maps.put(key, (function(source, name).prepare(codes), source, codes))
    return kernel


def collapse(shape, strides_of):
    """The loop's shape with its axes of length 1 dropped and neighbouring
    axes merged wherever every strided operand steps through them as one
    (C order): (dims, [strides per operand]).  Fewer dimensions, fewer
    divisions per element."""
    dims, merged = [], [[] for _ in strides_of]
    for axis, n in enumerate(shape):
        if n == 1:
            continue
        if dims and all(m[-1] == s[axis] * n for m, s in zip(merged, strides_of)):
            dims[-1] *= n
            for m, s in zip(merged, strides_of):
                m[-1] = s[axis]
            continue
        dims.append(n)
        for m, s in zip(merged, strides_of):
            m.append(s[axis])
    if not dims:
        return [1], [[0] for _ in strides_of]
    return dims, merged


def _same_dense_layout(arrays, shape):
    """True when every array has the loop's shape and one shared layout whose
    elements fill their bytes from element 0 upwards: then the loop may walk
    memory order and every operand is read as p[i]."""
    first = arrays[0]
    if first.shape != shape or not is_dense(first.shape, first.strides, first.itemsize):
        return False
    if extent(first.shape, first.strides, first.itemsize)[0] != 0:
        return False
    return all(a.shape == shape and a.strides == first.strides and a.itemsize == first.itemsize for a in arrays)


class MapPlan:
    """A map kernel prepared for one layout of its operands: launch() takes
    the arrays and scalar values of any call with that layout; a flat plan
    (``flat``) runs any element count n with launch_n().  ``source`` and
    ``format`` are the kernel's text and launch format, ``count`` its
    parameters (what the host tests check)."""

    __slots__ = ("prepared", "grid", "tail", "flat", "count", "source", "format")

    def __init__(self, kernel, grid, tail, flat, count):
        self.prepared, self.source, self.format = kernel
        self.grid, self.tail, self.flat, self.count = grid, tail, flat, count

    def launch(self, arrays, scalars, stream=None):
        if stream is None:  # (a keyword costs the call a dict)
            self.prepared(self.grid, _BLOCK_SHAPE, *arrays, *scalars, *self.tail)
        else:
            self.prepared(self.grid, _BLOCK_SHAPE, *arrays, *scalars, *self.tail, stream=stream)

    def launch_n(self, arrays, scalars, n, stream=None, device=None):
        if not n:
            return
        if stream is None:  # (a keyword costs the call a dict)
            self.prepared((grid_for(n, device),), _BLOCK_SHAPE, *arrays, *scalars, n)
        else:
            self.prepared((grid_for(n, device),), _BLOCK_SHAPE, *arrays, *scalars, n, stream=stream)


def _operand(name, a, writable, shape, memory_order):
    """(operand tuple, its strides to the loop's shape or None)."""
    if writable == RAW:
        if not a.is_contiguous:
            raise ValueError(f"cudyn.gpuarray: {name} must be C-contiguous here; make a contiguous copy first")
        return (name, ctype(a.dtype), RAW, True, a.itemsize), None
    # an input of one element that broadcasts is read once for all; one of
    # the loop's own shape is a flat operand like any other, so that the
    # plan (which the fast path keeps without the shape) serves every length
    if a.size == 1 and not writable and a.shape != shape:
        return (name, ctype(a.dtype), SCALAR, False, a.itemsize), None
    if (a.shape == shape and a.is_contiguous) or (memory_order and a.shape == shape):
        return (name, ctype(a.dtype), FLAT, bool(writable), a.itemsize), None
    return (name, ctype(a.dtype), STRIDED, bool(writable), a.itemsize), broadcast(a.shape, a.strides, shape)


def plan_map(body, arrays, scalars, shape, hint="map", preamble=""):
    """The MapPlan that runs ``body`` for every element of ``shape`` (None
    when there is none).

    arrays: (name, array, writable), each array's shape broadcasting to
    ``shape`` (inputs of one element are read once for all), or (name,
    array, RAW) for a pointer the body indexes itself (the array is
    C-contiguous, any shape); scalars: (name, dtype), passed by value with
    the dtype's C type.  Only the arrays' layouts (dtype, shape, strides)
    count: the plan serves every call whose arrays share them."""
    n = 1
    for extent_ in shape:
        n *= extent_
    if n == 0:
        return None
    full = [a for _, a, w in arrays if w != RAW and not (a.size == 1 and a.shape != shape)]
    memory_order = bool(full) and _same_dense_layout(full, shape)
    operands, strided = [], []
    for name, a, writable in arrays:
        operand, strides = _operand(name, a, writable, shape, memory_order)
        operands.append(operand)
        if strides is not None:
            strided.append(strides)
    dims, strides = collapse(shape, strided) if strided else ([], [])
    scalar_decls = tuple((name, ctype(dtype)) for name, dtype in scalars)
    count = len(operands) + len(scalars) + 1 + len(dims) * (1 + len(strided))
    if count > MAX_PARAMS:
        raise ValueError(f"cudyn.gpuarray: operands of {len(dims)} discontiguous dimensions need {count} kernel"
                         f" parameters (at most {MAX_PARAMS}); make contiguous copies first (a.copy())")
    kernel = map_kernel(body, tuple(operands), scalar_decls, len(dims), preamble, hint)
    tail = [n] + dims
    for s in strides:
        tail += s
    flat = not strided and all(op[2] != RAW for op in operands)
    return MapPlan(kernel, ((grid_for if flat else grid_each)(n),), tuple(tail), flat, count)


def run_map(body, arrays, scalars, shape, stream=None, hint="map", preamble=""):
    """Runs ``body`` for every element of ``shape`` (see plan_map; scalars
    are (name, numpy scalar) here), planning once per layout."""
    key = (body, hint, preamble, shape, _device_current(),
           tuple((name, a.dtype, a.shape, a.strides, w) for name, a, w in arrays),
           tuple((name, value.dtype) for name, value in scalars))
    plan = _plans.get(key)
    if plan is None and key not in _plans:
        plan = _plans.put(key, plan_map(body, arrays, [(name, value.dtype) for name, value in scalars], shape, hint,
                                        preamble))
    if plan is not None:
        plan.launch([a for _, a, _ in arrays], [value for _, value in scalars], stream)


# ------------------------------------------------------------ argument lists

def split_top_level(text, separator=","):
    """Splits at separators outside (), [], {} and <>."""
    parts, depth, start = [], 0, 0
    for k, c in enumerate(text):
        if c in "([{<":
            depth += 1
        elif c in ")]}>":
            depth -= 1
        elif c == separator and depth == 0:
            parts.append(text[start:k])
            start = k + 1
    parts.append(text[start:])
    return [p.strip() for p in parts if p.strip()]


def parse_arguments(arguments):
    """C declarations 'float a, const float *x, pycuda::complex<float> *z'
    as (C type, name, is_pointer) each; the type without the pointer."""
    if not isinstance(arguments, str):
        raise TypeError("cudyn: arguments are one string of C declarations, e.g. 'float a, const float *x'")
    parsed = []
    for decl in split_top_level(arguments):
        pointer = "*" in decl or decl.rstrip().endswith("]")
        name_end = len(decl.rstrip(" []"))
        k = name_end
        while k > 0 and (decl[k - 1].isalnum() or decl[k - 1] == "_"):
            k -= 1
        name = decl[k:name_end]
        type_text = decl[:k].replace("*", " ").replace("__restrict__", " ").strip()
        if not name or not type_text or not (name[0].isalpha() or name[0] == "_"):
            raise ValueError(f"cudyn: cannot read the declaration {decl!r} (write 'type name' or 'type *name')")
        parsed.append((" ".join(type_text.split()), name, pointer))
    return parsed


def argument_codes(parsed):
    """The launch format of parsed arguments: 'p' for pointers, the value's code otherwise."""
    return "".join("p" if pointer else launch_code(dtype_of(t)) for t, _, pointer in parsed)


def argument_values(parsed, args, what):
    """The call's values as the kernel takes them: scalars as numpy scalars of
    their parameter's dtype, device memory as is."""
    if len(args) != len(parsed):
        raise TypeError(f"{what} takes {len(parsed)} arguments ({', '.join(n for _, n, _ in parsed)}),"
                        f" {len(args)} given")
    values = []
    for (t, name, pointer), value in zip(parsed, args):
        if pointer or isinstance(value, (np.void, bytes)):
            values.append(value)
        else:
            values.append(np.array(value).astype(dtype_of(t))[()])
    return values


def loop_source(arguments, operation, name, preamble="", loop_prep="", after_loop=""):
    """A PyCUDA-style elementwise kernel: ``operation`` runs for i in
    range(start, stop, step) (grid-stride), with i, n and the arguments in
    scope; the kernel takes (arguments..., start, stop, step)."""
    parsed = parse_arguments(arguments)
    types = [t for t, _, _ in parsed]
    params = arguments.strip()
    head = preamble_for(types) + (preamble or "")
    extra = "long long cudyn_start, long long cudyn_stop, long long cudyn_step"
    signature = f"{params}, {extra}" if params else extra
    body = (f"    const long long n = cudyn_step > 0 ? (cudyn_stop - cudyn_start + cudyn_step - 1) / cudyn_step\n"
            f"                                        : (cudyn_start - cudyn_stop - cudyn_step - 1) / -cudyn_step;\n"
            f"    {loop_prep}\n"
            f"    for (long long cudyn_k = (long long)blockIdx.x * blockDim.x + threadIdx.x; cudyn_k < n;\n"
            f"         cudyn_k += (long long)blockDim.x * gridDim.x) {{\n"
            f"        const long long i = cudyn_start + cudyn_k * cudyn_step;\n"
            f"        {operation};\n"
            f"    }}\n"
            f"    {after_loop}\n")
    source = f"{head}\nextern \"C\" __global__ void {name}({signature})\n{{\n{body}}}\n"
    return source, argument_codes(parsed) + "qqq", parsed
