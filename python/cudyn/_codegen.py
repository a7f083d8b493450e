"""CUDA C++ kernels that gpuarray, cumath and the PyCUDA layer write at run time.

cudyn's expression kernels (cudyn.Elementwise, cudyn.Reduction) take
scalar types of the launch alphabet over contiguous arrays; what they do
not cover (complex numbers, structs, strided and broadcast operands, scans,
random numbers) is written here as CUDA C++ and loaded through
cudyn.SourceModule, so each text is compiled once per machine (the kernel
cache) and loaded once per process and device (the dict below).

A map kernel runs ``body`` once per element of a shape; each array operand
is a C++ reference named as the operand, to its element: ``z = x + y``.
An operand is read or written in one of three ways, chosen per call from
its layout: ``flat`` (the same C order as the loop: p[i]), ``scalar`` (one
element for all: p[0]) or ``strided`` (byte offsets from the loop's
multi-index, with the operand's strides, 0 where it is broadcast).  A
``raw`` operand is the pointer itself, named as the operand, for bodies
that index it (gathers and scatters).
"""

import hashlib
import threading

import numpy as np

from . import _cudyn
from . import _complex

BLOCK = 256  # threads per block of every map kernel

# numpy dtype -> C type of the generated kernels
_C_TYPES = {
    "b": "bool", "i1": "signed char", "u1": "unsigned char", "i2": "short", "u2": "unsigned short",
    "i4": "int", "u4": "unsigned int", "i8": "long long", "u8": "unsigned long long", "f2": "__half",
    "f4": "float", "f8": "double", "c8": "cudyn_complex<float>", "c16": "cudyn_complex<double>",
}
_registered = {}  # numpy dtype (structs) -> the C type name registered for it
_by_name = {}     # C type name -> numpy dtype


def register_dtype(dtype, name):
    """Makes the struct dtype known to generated kernels as the C type ``name``
    (whose definition the kernel's preamble gives, or CUDA's: float3 ...)."""
    dtype = np.dtype(dtype)
    _registered[dtype] = name
    _by_name[name] = dtype


def ctype(dtype):
    """The C type of a numpy dtype in generated kernels ('cudyn_complex<float>' for complex64)."""
    dtype = np.dtype(dtype)
    if not dtype.isnative:
        raise TypeError(f"cudyn: {dtype} is stored in the other byte order, which kernels do not read; convert it on"
                        " the host first (a.astype(a.dtype.newbyteorder('=')))")
    if dtype in _registered:
        return _registered[dtype]
    key = "b" if dtype.kind == "b" else f"{dtype.kind}{dtype.itemsize}"
    try:
        return _C_TYPES[key]
    except KeyError:
        raise TypeError(f"cudyn: no C type for dtype {dtype} in generated kernels (register a struct's name with"
                        " register_dtype)") from None


def dtype_of(name):
    """The numpy dtype of a C type name ('float', 'unsigned int', 'pycuda::complex<float>', a registered struct)."""
    name = " ".join(name.replace("const", " ").replace("volatile", " ").split())
    if name in _by_name:
        return _by_name[name]
    for key, c in _C_TYPES.items():
        if c == name:
            return np.dtype("?" if key == "b" else key[0] + key[1:])
    aliases = {"char": "i1", "signed char": "i1", "int8_t": "i1", "uint8_t": "u1", "short int": "i2",
               "int16_t": "i2", "uint16_t": "u2", "unsigned short int": "u2", "unsigned": "u4", "int32_t": "i4",
               "uint32_t": "u4", "long": "i8", "long int": "i8", "long long int": "i8", "int64_t": "i8",
               "unsigned long": "u8", "unsigned long int": "u8", "unsigned long long int": "u8", "uint64_t": "u8",
               "size_t": "u8", "ptrdiff_t": "i8", "pycuda::complex<float>": "c8", "pycuda::complex<double>": "c16",
               "half": "f2"}
    if name in aliases:
        return np.dtype(aliases[name])
    raise TypeError(f"cudyn: the C type {name!r} has no numpy dtype (register it with register_dtype)")


# numpy dtype -> the launch format code its value is passed with
def launch_code(dtype):
    """The launch-format character of a value of this dtype ('f', 'D', 's' for a struct)."""
    dtype = np.dtype(dtype)
    if dtype.kind == "V":
        return "s"
    codes = {"b1": "?", "i1": "b", "u1": "B", "i2": "h", "u2": "H", "i4": "i", "u4": "I", "i8": "q", "u8": "Q",
             "f2": "e", "f4": "f", "f8": "d", "c8": "F", "c16": "D"}
    return codes[f"{dtype.kind}{dtype.itemsize}"]


def preamble_for(types):
    """What a kernel using these C types needs before its own code."""
    text = ""
    if any("__half" in t for t in types):
        text += "#include <cuda_fp16.h>\n"
    if any("complex" in t for t in types):
        text += _complex.SOURCE
    return text


# ------------------------------------------------------------ loading

_loaded = {}  # (device, source) -> {kernel name: Function}
_sm_count = {}
_lock = threading.Lock()
_device_current = _cudyn.device_current


def function(source, name):
    """The kernel ``name`` of ``source`` (extern "C" kernels) on the calling
    thread's device: compiled through the cache once, loaded once per device."""
    device = _device_current()
    key = (device, source)
    functions = _loaded.get(key)
    if functions is None:
        from . import SourceModule
        module = SourceModule(source, no_extern_c=True, name="cudyn_generated.cu")
        with _lock:
            functions = _loaded.setdefault(key, {"": module})
    f = functions.get(name)
    if f is None:
        f = functions[name] = functions[""].get_function(name)
    return f


def grid_for(n):
    """Blocks of BLOCK threads for a grid-stride loop over n elements: enough
    for every element, at most 8 per multiprocessor."""
    device = _device_current()
    sms = _sm_count.get(device)
    if sms is None:
        sms = _sm_count[device] = max(1, int(_cudyn.device_info(device).get("multiprocessors", 1)))
    return max(1, min((n + BLOCK - 1) // BLOCK, 8 * sms))


def digest(text):
    """A short name-safe digest of a kernel's text, for its name."""
    return hashlib.sha1(text.encode()).hexdigest()[:16]


# ------------------------------------------------------------ map kernels

FLAT, SCALAR, STRIDED, RAW = "flat", "scalar", "strided", "raw"


_maps = {}  # (body, operands, scalars, ndim, preamble, hint, device) -> (prepared, ...)


UNROLL = 4  # elements a thread of a flat map kernel has in flight at once


def _element_refs(operands, indent):
    """The body's references to its operands' elements at index i (and
    the strided ones' byte offsets cudyn_o_NAME)."""
    lines = []
    for name, t, mode, writable in operands:
        const = "" if writable else "const "
        if mode == RAW:
            continue
        if mode == FLAT:
            at = f"cudyn_p_{name}[i]"
        elif mode == SCALAR:
            at = f"cudyn_p_{name}[0]"
        else:
            at = f"*({const}{t} *)(({const}char *)cudyn_p_{name} + cudyn_o_{name})"
        lines.append(f"{indent}{const}{t} &{name} = {at};")
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


def _flat_loop(operands, body):
    """A grid-stride loop taking UNROLL elements per thread and step: their
    loads can all be in flight before the first store (the pointers are
    __restrict__: an element is read, then written, by one thread)."""
    return ["    const unsigned long long cudyn_g = (unsigned long long)blockDim.x * gridDim.x;",
            "    for (unsigned long long cudyn_b = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;",
            f"         cudyn_b < n; cudyn_b += {UNROLL} * cudyn_g) {{",
            "#pragma unroll",
            f"        for (unsigned int cudyn_u = 0; cudyn_u < {UNROLL}; cudyn_u++) {{",
            "            const unsigned long long i = cudyn_b + cudyn_u * cudyn_g;",
            "            if (i < n) {"] + _element_refs(operands, "                ") + \
        [f"                {body};", "            }", "        }", "    }"]


def map_source(body, operands, scalars, ndim, preamble="", hint="map"):
    """(source, kernel name) of a map kernel.

    operands: (name, C type, mode, writable) for each array, mode FLAT,
    SCALAR, STRIDED or RAW; scalars: (name, C type); ndim: the loop's
    dimensions (strided operands only).  Operands all FLAT or SCALAR make
    an unrolled loop over restrict pointers; any other, a plain one."""
    types = [t for _, t, _, _ in operands] + [t for _, t in scalars]
    flat = all(mode in (FLAT, SCALAR) for _, _, mode, _ in operands)
    restrict = "__restrict__ " if flat else ""
    params = []
    for name, t, mode, writable in operands:
        pointer = name if mode == RAW else f"cudyn_p_{name}"
        params.append(f"{'' if writable else 'const '}{t} *{restrict}{pointer}")
    params += [f"{t} {name}" for name, t in scalars]
    params.append("unsigned long long n")
    strided = [op for op in operands if op[2] == STRIDED]
    if strided:
        params += [f"unsigned long long cudyn_d{k}" for k in range(ndim)]
        params += [f"long long cudyn_s_{op[0]}_{k}" for op in strided for k in range(ndim)]
    lines = _flat_loop(operands, body) if flat else _strided_loop(operands, ndim, body)
    text = preamble_for(types) + preamble
    inner = "\n".join(lines)
    name = f"cudyn_{hint}_{digest(text + ','.join(params) + inner)}"
    source = f"{text}\nextern \"C\" __global__ void {name}({', '.join(params)})\n{{\n{inner}\n}}\n"
    return source, name


def map_kernel(body, operands, scalars, ndim, preamble="", hint="map"):
    """The prepared map kernel for these operands on the calling thread's
    device (see map_source); called as prepared(grid, block, *arrays,
    *scalars, n, *dims, *strides)."""
    key = (body, operands, scalars, ndim, preamble, hint, _device_current())
    prepared = _maps.get(key)
    if prepared is None:
        source, name = map_source(body, operands, scalars, ndim, preamble, hint)
        codes = "p" * len(operands) + "".join(launch_code(dtype_of(t)) for _, t in scalars) + "Q"
        if any(op[2] == STRIDED for op in operands):
            nstrided = sum(1 for op in operands if op[2] == STRIDED)
            codes += "Q" * ndim + "q" * (ndim * nstrided)
        prepared = _maps[key] = function(source, name).prepare(codes)
    return prepared


def launch(prepared, n, args, stream=None):
    """Runs a prepared grid-stride kernel over n elements."""
    if n:
        prepared((grid_for(n),), (BLOCK,), *args, stream=stream)


_MAX_PARAMS = 64  # the most parameters a kernel call takes (the extension's limit)


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
    from ._views import extent, is_dense
    first = arrays[0]
    if first.shape != shape or not is_dense(first.shape, first.strides, first.itemsize):
        return False
    if extent(first.shape, first.strides, first.itemsize)[0] != 0:
        return False
    return all(a.shape == shape and a.strides == first.strides and a.itemsize == first.itemsize for a in arrays)


class MapPlan:
    """A map kernel prepared for one layout of its operands: launch() takes
    the arrays and scalar values of any call with that layout."""

    __slots__ = ("prepared", "grid", "tail")

    def __init__(self, prepared, grid, tail):
        self.prepared, self.grid, self.tail = prepared, grid, tail

    def launch(self, arrays, scalars, stream=None):
        self.prepared(self.grid, _BLOCK_SHAPE, *arrays, *scalars, *self.tail, stream=stream)


_BLOCK_SHAPE = (BLOCK,)


def plan_map(body, arrays, scalars, shape, hint="map", preamble=""):
    """The MapPlan that runs ``body`` for every element of ``shape`` (None
    when there is none).

    arrays: (name, array, writable), each array's shape broadcasting to
    ``shape`` (inputs of one element are read once for all), or (name,
    array, RAW) for a pointer the body indexes itself (the array is
    C-contiguous, any shape); scalars: (name, dtype), passed by value with
    the dtype's C type.  Only the arrays' layouts (dtype, shape, strides)
    count: the plan serves every call whose arrays share them."""
    from ._views import broadcast
    n = 1
    for extent_ in shape:
        n *= extent_
    if n == 0:
        return None
    full = [a for _, a, w in arrays if w != RAW and not (a.size == 1 and a.shape != shape)]
    memory_order = bool(full) and _same_dense_layout(full, shape)
    operands, strided = [], []
    for name, a, writable in arrays:
        if writable == RAW:
            if not a.is_contiguous:
                raise ValueError(f"cudyn.gpuarray: {name} must be C-contiguous here; make a contiguous copy first")
            operands.append((name, ctype(a.dtype), RAW, True))
            continue
        if a.size == 1 and not writable:
            mode = SCALAR
        elif (a.shape == shape and a.is_contiguous) or (memory_order and a.shape == shape):
            mode = FLAT
        else:
            mode = STRIDED
            strided.append(broadcast(a.shape, a.strides, shape))
        operands.append((name, ctype(a.dtype), mode, writable))
    dims, strides = collapse(shape, strided) if strided else ([], [])
    scalar_decls = tuple((name, ctype(dtype)) for name, dtype in scalars)
    count = len(operands) + len(scalars) + 1 + len(dims) * (1 + len(strided))
    if count > _MAX_PARAMS:
        raise ValueError(f"cudyn.gpuarray: operands of {len(dims)} discontiguous dimensions need {count} kernel"
                         f" parameters (at most {_MAX_PARAMS}); make contiguous copies first (a.copy())")
    prepared = map_kernel(body, tuple(operands), scalar_decls, len(dims), preamble, hint)
    tail = [n] + dims
    for s in strides:
        tail += s
    return MapPlan(prepared, (grid_for(n),), tuple(tail))


_plans = {}  # run_map's plans, by body and the operands' layouts


def run_map(body, arrays, scalars, shape, stream=None, hint="map", preamble=""):
    """Runs ``body`` for every element of ``shape`` (see plan_map; scalars
    are (name, numpy scalar) here), planning once per layout."""
    key = (body, hint, preamble, shape, _device_current(),
           tuple((name, a.dtype, a.shape, a.strides, w) for name, a, w in arrays),
           tuple((name, value.dtype) for name, value in scalars))
    plan = _plans.get(key)
    if plan is None:
        plan = _plans[key] = plan_map(body, arrays, [(name, value.dtype) for name, value in scalars], shape, hint,
                                      preamble)
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


# ------------------------------------------------------------ loop kernels

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
