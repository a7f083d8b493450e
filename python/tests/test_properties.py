"""Properties of the array layer, with hypothesis: shapes, strides, dtypes,
views, slices and reshapes of device arrays, the __cuda_array_interface__
dicts and DLPack capsules a producer may hand to cudyn, and NCCL's
communicators and groups on the mock NCCL (at the end).  Where the mock
driver computes (copies, get/set, memset, views, float32 fill and
arithmetic) the result is compared with numpy's; everywhere else a bad
input must raise a clean exception (cudyn.Error, TypeError, ValueError) and
nothing else.  The cases run in this process, so every input generated is
one that cannot crash the interpreter once the defects of test_reliability.py
are fixed; where a strategy steers clear of a defect not fixed yet, a comment
names it, and the fix widens the strategy.

Bounded for make check: the profile "check" (the default) runs a few
examples per property, derandomized, so a run is repeatable.
CUDYN_HYPOTHESIS_PROFILE=long runs many more, randomized (CI's properties
job).  Skips where hypothesis is not installed (python3-hypothesis).
"""

import os
import threading
import warnings

import numpy as np
import pytest

hypothesis = pytest.importorskip("hypothesis", reason="hypothesis is not installed (Debian: python3-hypothesis)")

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from hypothesis.extra import numpy as hnp  # noqa: E402

import cudyn  # noqa: E402
import dlpack_capsules as dl  # noqa: E402
from cudyn import gpuarray  # noqa: E402

pytestmark = pytest.mark.mock

_quiet = dict(deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
settings.register_profile("check", max_examples=12, derandomize=True, **_quiet)
settings.register_profile("long", max_examples=400, print_blob=True, **_quiet)
settings.load_profile(os.environ.get("CUDYN_HYPOTHESIS_PROFILE", "check"))

# the exceptions a bad input may raise (cudyn.InvalidArgument is a ValueError)
CLEAN = (cudyn.Error, TypeError, ValueError)

# ------------------------------------------------------------ strategies

# What the device can hold: numbers, bool, complex and records of them;
# REFUSED (objects, strings, dates, raw bytes, records holding one) raise
# TypeError at every entry.
NATIVE = [np.dtype(t) for t in (np.bool_, np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64,
                                 np.uint64, np.float16, np.float32, np.float64, np.complex64, np.complex128)]
SWAPPED = [np.dtype(t).newbyteorder() for t in ("i2", "u4", "f4", "f8", "c16")]
RECORD = np.dtype([("a", "<i4"), ("b", "<f8"), ("c", "u1")])
# DLPack has no byte order: its tests take native dtypes (and see
# test_dlpack_export_keeps_the_byte_order)
native_dtypes = st.sampled_from(NATIVE)
numeric_dtypes = st.sampled_from(NATIVE + SWAPPED)
device_dtypes = st.sampled_from(NATIVE + SWAPPED + [RECORD])
REFUSED = [np.dtype(t) for t in (object, "U2", "S3", "M8[ms]", "m8[ns]", "V4", [("a", "<i4"), ("p", object)])]

# DLPack's code and bits of each numeric dtype
DL_TYPE = {"b": dl.BOOL, "i": dl.INT, "u": dl.UINT, "f": dl.FLOAT, "c": dl.COMPLEX}


def shapes(min_dims=0, max_dims=4, min_side=0, max_side=5):
    return hnp.array_shapes(min_dims=min_dims, max_dims=max_dims, min_side=min_side, max_side=max_side)


def host_arrays(dtypes=device_dtypes, shape=None):
    return hnp.arrays(dtypes, shape if shape is not None else shapes())


@st.composite
def array_and_view(draw, dtypes=numeric_dtypes):
    """A host array, a basic index (slices with steps, negative ones too,
    and dropped axes) and the non-empty view it gives."""
    a = draw(hnp.arrays(dtypes, shapes(min_dims=1, max_dims=3, min_side=1, max_side=6)))
    index = draw(hnp.basic_indices(a.shape, allow_ellipsis=False))
    view = a[index]
    hypothesis.assume(isinstance(view, np.ndarray) and view.size > 0)
    return a, index, view


def c_strides(view):
    return np.empty(view.shape, view.dtype).strides


def byte_offset(view, base):
    return view.__array_interface__["data"][0] - base.__array_interface__["data"][0]


def same(got, want):
    """Equal dtype, shape and bytes (NaN payloads and -0.0 included)."""
    assert got.dtype == want.dtype and got.shape == want.shape
    assert np.ascontiguousarray(got).tobytes() == np.ascontiguousarray(want).tobytes()


def same_or_mock_refused(produce, want):
    """What produce() gives is numpy's; or, where the copy needs a kernel
    (a GPUArray's strided gather), the mock stack refused it (the mock NVRTC
    parses a subset of CUDA C++, the mock driver runs no generated kernel),
    or the kernel refused a byte order it does not read."""
    try:
        got = produce()
    except TypeError as e:  # kernels read the native byte order only
        assert not want.dtype.isnative and "other byte order" in str(e)
        return
    except cudyn.CompileError as e:  # the mock NVRTC parses a subset of CUDA C++, with no cuda_fp16.h
        assert "/tests/mock/nvrtc/" in str(e)
        return
    except cudyn.Error as e:
        assert "cuLaunchKernel returned CUDA_ERROR_NOT_SUPPORTED" in str(e) and os.environ.get("MOCK_LIBCUDA")
        return
    same(got.get() if isinstance(got, gpuarray.GPUArray) else got, want)


def check_view(device_view, view, address, strides=None):
    """A device view matches numpy's view: layout (strides as given, else
    the view's), CAI, contents."""
    assert device_view.shape == view.shape and device_view.strides == (strides or view.strides)
    assert device_view.dtype == view.dtype and device_view.ptr == address
    assert device_view.is_contiguous == view.flags.c_contiguous
    cai = device_view.__cuda_array_interface__
    assert cai["shape"] == view.shape and cai["typestr"] == view.dtype.str and cai["data"][0] == address
    # cudyn always gives the strides (CAI v3 allows None for C order; consumers need not work them out)
    assert cai["strides"] == device_view.strides and type(cai["strides"]) is tuple
    if view.flags.c_contiguous:
        same(device_view.get(), view)
    elif isinstance(device_view, gpuarray.GPUArray):
        same_or_mock_refused(device_view.get, view)  # a GPUArray gathers a strided view
    else:
        with pytest.raises(cudyn.InvalidArgument, match="not contiguous"):
            device_view.get()


# ------------------------------------------------------------ arrays

@given(host_arrays())
def test_round_trip_keeps_shape_dtype_and_bytes(a):
    x = gpuarray.to_gpu(a)
    assert (x.shape, x.dtype, x.size, x.itemsize, x.nbytes) == (a.shape, a.dtype, a.size, a.itemsize, a.nbytes)
    if a.size:
        assert x.strides == a.strides and x.is_contiguous
    same(x.get(), a)
    y = cudyn.DeviceArray(a.shape, a.dtype)
    y.set(a)
    same(y.get(), a)
    out = np.empty_like(a)
    assert x.get(out) is out
    same(out, a)


@given(host_arrays(shape=shapes(min_dims=1, min_side=2)), st.sampled_from(["shape", "dtype", "contiguity"]),
       device_dtypes)
def test_get_and_set_refuse_a_mismatched_host_array(a, what, other_dtype):
    x = gpuarray.to_gpu(a)
    if what == "shape":
        other = np.zeros(a.size + 1, a.dtype)
    elif what == "dtype":
        hypothesis.assume(other_dtype != a.dtype)
        other = np.zeros(a.shape, other_dtype)
    else:
        other = np.zeros(a.shape + (2,), a.dtype)[..., 0]
    with pytest.raises(cudyn.InvalidArgument):
        x.set(other)
    with pytest.raises(cudyn.InvalidArgument):
        x.get(other)
    same(x.get(), a)


@st.composite
def reshapes(draw):
    """An array and another shape with as many elements."""
    a = draw(host_arrays(numeric_dtypes, shapes(min_dims=0, max_dims=3, max_side=6)))
    n, shape = a.size, []
    for _ in range(draw(st.integers(0, 4))):
        if n == 0:
            side = draw(st.integers(0, 3))
        else:
            side = draw(st.sampled_from([d for d in range(1, n + 1) if n % d == 0]))
            n //= side
        shape.append(side)
    if n != 1 or (a.size == 0 and 0 not in shape):
        shape.append(n if a.size else 0)
    return a, tuple(shape)


@given(reshapes())
def test_reshape_is_numpys(case):
    a, shape = case
    x = gpuarray.to_gpu(a)
    v = x.reshape(shape)
    assert v.ptr == x.ptr and v.base is x
    same(v.get(), a.reshape(shape))
    if a.size:
        same(x.reshape(-1).get(), a.reshape(-1))
        with pytest.raises(ValueError):
            x.reshape(a.size + 1)


@given(array_and_view())
def test_strided_views_are_numpys(case):
    a, index, view = case
    x = gpuarray.to_gpu(a)
    address = x.ptr + byte_offset(view, a)
    v = gpuarray.GPUArray(view.shape, view.dtype, strides=view.strides, ptr=address, owner=x)
    check_view(v, view, address)
    if view.flags.c_contiguous:
        same(v.copy().get(), view)
        new = np.ones_like(view)
        v.set(new)
        want = a.copy()
        want[index] = new
        same(x.get(), want)
    else:
        same_or_mock_refused(v.copy, view)


@given(hnp.arrays(numeric_dtypes, shapes(min_dims=1, max_dims=3, min_side=1, max_side=6)), st.data())
def test_gpuarray_indexing_is_numpys(a, data):
    """GPUArray's basic indexing (slices with steps, negative ones too,
    np.newaxis, an ellipsis, integers) gives numpy's view of the same
    memory; its contents where the mock can gather them."""
    index = data.draw(hnp.basic_indices(a.shape, allow_newaxis=True, allow_ellipsis=True))
    x = gpuarray.to_gpu(a)
    v = x[index]
    want = a[index]
    if not isinstance(want, np.ndarray):  # an integer for every axis: numpy's scalar, our 0-d array
        want = a[index + (Ellipsis,)] if isinstance(index, tuple) and Ellipsis not in index else a[index, ...]
    assert isinstance(v, gpuarray.GPUArray) and v.shape == want.shape and v.dtype == a.dtype
    if want.size:
        assert v.ptr == x.ptr + byte_offset(want, a)
        assert all(n == 1 or got == s for n, got, s in zip(want.shape, v.strides, want.strides))
        assert v.is_contiguous == want.flags.c_contiguous
    same_or_mock_refused(lambda: v, want)


@given(host_arrays(st.sampled_from([np.dtype(t) for t in (np.float32, np.int32, np.uint8, np.int16, np.bool_)]),
                   shapes(min_dims=1, max_side=6)).filter(lambda a: a.size > 0),
       st.one_of(st.integers(-100, 100), st.floats(width=32), st.booleans()))
def test_fills_are_numpys(a, value):
    # every fill of these dtypes is a memset, which the mock runs
    x = gpuarray.to_gpu(a)
    want = np.empty_like(a)
    with np.errstate(over="ignore", invalid="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            want.fill(value)
        except (OverflowError, ValueError) as e:  # numpy 2 refuses a Python int out of range (1.x wraps)
            with pytest.raises(type(e)):
                x.fill(value)
            return
    if isinstance(value, int) and not isinstance(value, bool) and a.dtype.kind in "iu" and \
            not np.iinfo(a.dtype).min <= value <= np.iinfo(a.dtype).max:
        with pytest.raises(OverflowError):
            x.fill(value)
        return
    same(x.fill(value).get(), want)


@given(st.sampled_from(NATIVE), st.sampled_from(NATIVE), st.sampled_from(["add", "sub", "mul", "div", "lt", "maximum"]),
       st.data())
def test_operations_plan_numpys_dtype_for_any_layout(dx, dy, op, data):
    # the plan (made without running it) has numpy's result dtype and the
    # loop its operands' layouts call for; a strided operand never makes a flat loop
    from cudyn import _dtypes, _ops
    a = data.draw(hnp.arrays(dx, shapes(min_dims=1, max_dims=3, min_side=1, max_side=4)))
    index = data.draw(hnp.basic_indices(a.shape, allow_ellipsis=False))
    view = gpuarray.to_gpu(a)[index]
    hypothesis.assume(isinstance(view, gpuarray.GPUArray) and view.size > 0)
    other = data.draw(st.one_of(st.just(2), st.just(2.5), st.just(True),
                                st.just(gpuarray.zeros(view.shape, dy))))
    try:
        compute, result = _dtypes.result_dtype(op, view, other)
    except TypeError:
        with pytest.raises(TypeError):
            _ops.binary(op, view, other)
        return
    try:
        plan = _ops._plan_binary(op, view, other, None)
    except cudyn.CompileError as e:  # the mock NVRTC cannot read the complex type's templates
        assert dx.kind == "c" or dy.kind == "c" or "cuda_fp16" in str(e), str(e)
        return
    assert plan.dtype == result
    if plan.map is not None:
        assert plan.map.flat == view.is_contiguous
        assert plan.map.count == len(plan.map.format)


@given(host_arrays(numeric_dtypes, shapes(min_dims=1)).filter(lambda a: a.nbytes >= 4), st.data())
def test_memset_and_copies_are_numpys(a, data):
    x = gpuarray.to_gpu(a)
    y = cudyn.DeviceArray(a.shape, a.dtype)
    cudyn.memcpy_dtod(y, x, a.nbytes)
    same(y.get(), a)
    host = np.empty_like(a)
    cudyn.memcpy_dtoh(host, y)
    same(host, a)
    width = data.draw(st.sampled_from([w for w in (1, 2, 4) if a.nbytes % w == 0]))
    memset = getattr(cudyn, f"memset_d{8 * width}")
    wrong = data.draw(st.one_of(st.integers(max_value=-1), st.integers(min_value=2 ** (8 * width))))
    with pytest.raises(cudyn.InvalidArgument, match="value"):  # never cut to the width
        memset(x, wrong, a.nbytes // width)
    same(x.get(), a)
    value = data.draw(st.integers(0, 2 ** (8 * width) - 1))
    memset(x, value, a.nbytes // width)
    want = np.full(a.nbytes // width, value, np.dtype(f"<u{width}")).view(a.dtype).reshape(a.shape)
    same(x.get(), want)
    cudyn.memcpy_htod(x, a)
    same(x.get(), a)


@st.composite
def memory_views(draw):
    """A DeviceArray's shape, dtype, strides, the size of its memory and
    an offset into it: mostly small, sometimes strides whose extent
    overflows any address."""
    dtype = draw(numeric_dtypes)
    shape = draw(shapes(min_dims=1, max_dims=3, max_side=5))
    stride = st.one_of(st.integers(-64, 64).map(lambda s, i=dtype.itemsize: s * i), st.integers(-2**63, 2**63 - 1))
    strides = draw(st.tuples(*[stride for _ in shape]))
    return shape, dtype, strides, draw(st.integers(1, 512)), draw(st.integers(0, 64))


def extent(shape, itemsize, strides):
    """(lowest byte offset, bytes spanned) of the elements, 0 span if empty."""
    if 0 in shape:
        return 0, 0
    low = sum(min(0, (n - 1) * s) for n, s in zip(shape, strides))
    high = itemsize + sum(max(0, (n - 1) * s) for n, s in zip(shape, strides))
    return low, high - low


@given(memory_views())
def test_views_of_device_memory_stay_inside_it(case):
    shape, dtype, strides, nbytes, offset = case
    m = cudyn.DeviceMemory(nbytes)
    low, span = extent(shape, dtype.itemsize, strides)
    inside = offset + low >= 0 and offset + low + span <= nbytes and span < 2**63
    try:
        v = cudyn.DeviceArray(shape, dtype, strides=strides, memory=m, offset=offset)
    except cudyn.InvalidArgument:
        assert not inside
        return
    assert inside and v.ptr == m.ptr + offset and v.base is m
    # a view of the view (ptr=) stays inside the same memory and sees its free()
    w = cudyn.DeviceArray(shape, dtype, strides=strides, ptr=v)
    assert w.ptr == v.ptr and w.base is v
    if v.is_contiguous and v.size:
        a = np.arange(v.size).astype(dtype).reshape(shape)
        v.set(a)
        same(v.get(), a)
    m.free()
    for view in (v, w):
        with pytest.raises(cudyn.InvalidArgument, match="freed"):
            view.ptr


# ------------------------------------------------------------ __cuda_array_interface__

class Producer:
    """An object that hands out one __cuda_array_interface__ dict."""

    def __init__(self, cai, keep=None):
        self.__cuda_array_interface__ = cai
        self.keep = keep


@given(array_and_view(), st.booleans(), st.sampled_from([2, 3]), st.sampled_from([None, 1, 2]), st.booleans())
def test_cai_views_are_numpys(case, readonly, version, stream, explicit_strides):
    a, _, view = case
    x = gpuarray.to_gpu(a)
    address = x.ptr + byte_offset(view, a)
    compact = view.flags.c_contiguous and not explicit_strides
    cai = {"shape": view.shape, "typestr": view.dtype.str, "data": (address, readonly), "version": version,
           "strides": None if compact else view.strides}
    if version == 3:
        cai["stream"] = stream
    producer = Producer(cai, keep=x)
    v = cudyn.asarray(producer)
    assert v.base is producer and v.readonly == readonly
    check_view(v, view, address, strides=c_strides(view) if compact else None)
    if readonly:
        writers = [lambda: cudyn.memcpy_htod(v, np.zeros_like(view)), lambda: cudyn.memcpy_dtod(v, x, 1),
                   lambda: cudyn.memset_d8(producer, 0, 1), lambda: v.__dlpack__()]
        if view.flags.c_contiguous:
            writers.append(lambda: v.set(np.zeros_like(view)))
        for write in writers:
            with pytest.raises(cudyn.InvalidArgument, match="read-only"):
                write()
    # the constructor's ptr= takes the producer (its address; the layout is the constructor's)
    check_view(cudyn.DeviceArray(view.shape, view.dtype, strides=view.strides, ptr=producer), view, address)
    # as a pointer argument: the dict's address, the view's first element
    first = np.empty(1, view.dtype)
    cudyn.memcpy_dtoh(first, producer)
    same(first, np.ascontiguousarray(view).reshape(-1)[:1])


# garbage a producer may put in a dict: no stream handle but None, 0, 1
# and 2 (a handle is trusted as the driver trusts it)
garbage = st.one_of(st.none(), st.booleans(), st.integers(-2**70, 2**70), st.floats(), st.text(max_size=4),
                    st.tuples(st.integers(0, 8)), st.tuples(st.integers(0, 8), st.integers(0, 8), st.integers(0, 8)),
                    st.lists(st.text(max_size=2), max_size=3), st.binary(max_size=4))


@given(array_and_view(), st.sampled_from(["shape", "typestr", "data", "strides", "version", "stream", "mask"]),
       st.one_of(st.just("delete"), garbage))
def test_bad_cai_dicts_raise_cleanly(case, key, value):
    a, _, view = case
    x = gpuarray.to_gpu(a)
    cai = {"shape": view.shape, "typestr": view.dtype.str, "data": (x.ptr + byte_offset(view, a), False),
           "strides": view.strides, "version": 3, "stream": None}
    if value == "delete":
        cai.pop(key, None)
    elif key == "stream" and not (value in (None, 0, 1, 2) or not isinstance(value, int)):
        hypothesis.assume(False)
    else:
        cai[key] = value
    try:
        cudyn.asarray(Producer(cai, keep=x))  # construction only: a dict that lies about its size is trusted
    except CLEAN:
        pass


def test_host_arrays_are_not_device_memory():
    with pytest.raises(CLEAN, match="host"):
        cudyn.asarray(np.zeros(4, np.float32))


# ------------------------------------------------------------ DLPack

def dl_type(dtype):
    return DL_TYPE[dtype.kind], dtype.itemsize * 8


@given(array_and_view(native_dtypes), st.booleans(), st.booleans())
def test_dlpack_capsules_are_numpys(case, through_offset, explicit_strides):
    a, _, view = case
    x = gpuarray.to_gpu(a)
    offset = byte_offset(view, a)
    address = x.ptr + offset
    code, bits = dl_type(view.dtype)
    compact = view.flags.c_contiguous and not explicit_strides  # no strides: C order
    strides = None if compact else tuple(s // view.itemsize for s in view.strides)
    cap = dl.capsule(x.ptr if through_offset else address, view.shape, strides=strides, code=code, bits=bits,
                     byte_offset=offset if through_offset else 0)
    v = cudyn.from_dlpack(cap)
    assert dl.name(cap) == b"used_dltensor"
    check_view(v, view, address, strides=c_strides(view) if compact else None)
    with pytest.raises(cudyn.InvalidArgument, match="already used"):
        cudyn.from_dlpack(cap)


@given(host_arrays(native_dtypes))
def test_dlpack_round_trip_shares_the_memory(a):
    x = gpuarray.to_gpu(a)
    y = cudyn.from_dlpack(x)
    assert y.ptr == x.ptr and y.shape == a.shape and y.dtype == a.dtype
    same(y.get(), a)
    assert cudyn.asarray(x) is x
    with pytest.raises(cudyn.InvalidArgument, match="host"):
        cudyn.from_dlpack(a)


@pytest.mark.parametrize("dtype", SWAPPED, ids=str)
def test_dlpack_export_keeps_the_byte_order(dtype):
    a = np.arange(1, 5).astype(dtype)
    x = gpuarray.to_gpu(a)
    try:
        y = cudyn.from_dlpack(x)
    except CLEAN:
        return  # refusing is right too: DLPack cannot say the byte order
    np.testing.assert_array_equal(y.get(), a)


# Well-formed but unsupported, or malformed: a host pointer labelled CUDA
# memory ("host": the test puts one there), a device that does not exist,
# a bool of more than one byte, strides that overflow.
bad_capsules = st.one_of(
    st.fixed_dictionaries({"host": st.just(True)}),
    st.fixed_dictionaries({"device_id": st.sampled_from([-1, 7, 2**31 - 1])}),
    st.fixed_dictionaries({"code": st.just(dl.BOOL), "bits": st.sampled_from([16, 32, 64])}),
    st.fixed_dictionaries({"strides": st.sampled_from([(2**61,), (-2**62,), (2**63 - 1,)])}),
    st.fixed_dictionaries({"device_type": st.sampled_from([dl.CPU, dl.CUDA_HOST, 7, 14])}),
    st.fixed_dictionaries({"code": st.sampled_from([dl.BFLOAT, dl.OPAQUE_HANDLE, 9, 200])}),
    st.fixed_dictionaries({"bits": st.sampled_from([0, 4, 12, 24, 40])}),
    st.fixed_dictionaries({"lanes": st.integers(2, 8)}),
    st.fixed_dictionaries({"shape": st.lists(st.integers(-4, -1), min_size=1, max_size=3).map(tuple)}),
    st.fixed_dictionaries({"shape": st.lists(st.integers(1, 2), min_size=40, max_size=40).map(tuple)}),
)


@given(bad_capsules)
def test_bad_dlpack_capsules_raise_cleanly(fields):
    x = gpuarray.to_gpu(np.zeros(16, np.float32))
    host = np.zeros(16, np.float32)
    address = host.ctypes.data if fields.pop("host", False) else x.ptr
    args = {"shape": (4,), "code": dl.FLOAT, "bits": 32, **fields}
    with pytest.raises(CLEAN):
        cudyn.from_dlpack(dl.capsule(address, **args))


# ------------------------------------------------------------ the dtype rule

@given(st.sampled_from(REFUSED), st.sampled_from(["DeviceArray", "to_gpu", "set", "get", "CAI"]))
def test_dtypes_the_device_cannot_hold_are_refused_everywhere(dtype, entry):
    x = gpuarray.to_gpu(np.zeros(8, np.uint8))
    host = np.zeros(2, dtype)
    calls = {"DeviceArray": lambda: cudyn.DeviceArray((2,), dtype),
             "to_gpu": lambda: gpuarray.to_gpu(host),
             "set": lambda: x.set(host),
             "get": lambda: x.get(host),
             "CAI": lambda: cudyn.asarray(Producer({"shape": (2,), "typestr": dtype.str, "data": (x.ptr, False),
                                                    "version": 3, "descr": dtype.descr}, keep=x))}
    with pytest.raises(TypeError, match="cannot live in device memory"):
        calls[entry]()


# ------------------------------------------------------------ the pools

@settings(max_examples=30 if os.environ.get("CUDYN_HYPOTHESIS_PROFILE") != "long" else 300)
@given(st.lists(st.tuples(st.sampled_from(["make", "drop", "free", "stream", "view"]), st.integers(0, 5),
                          st.sampled_from([16, 64, 256])), max_size=40))
def test_the_pool_never_hands_out_memory_in_use(steps):
    # any sequence of arrays made, dropped, freed by the user, used on a
    # stream or viewed: a live array's memory is never another's, a freed
    # block never comes back, and the pool's lists stay non-empty and bounded
    from cudyn import _pool
    stream = cudyn.Stream()
    live, views = {}, []
    for what, slot, n in steps:
        if what == "make":
            live[slot] = gpuarray.empty(n, np.float32)
        elif slot in live:
            a = live[slot]
            if what == "drop":
                del live[slot]
            elif what == "free":
                del live[slot]
                if not any(v.base is a for v in views):  # a view would see the free (its own test's)
                    a.base.free()
            elif what == "stream":
                a.get(stream=stream)
            else:
                views.append(a[::2])
            del a
        owners = {id(a): a for a in list(live.values()) + [v.base for v in views]}  # a view lies in its base
        spans = sorted((a.ptr, a.ptr + a.nbytes) for a in owners.values() if a.nbytes)
        assert all(end <= start for (_, end), (start, _) in zip(spans, spans[1:])), spans
        blocks = [m for ms in _pool._blocks.values() for m in ms]
        assert all(not m.freed for m in blocks) and all(_pool._blocks.values())
        assert len(_pool._blocks) <= _pool.LIMIT_LISTS
    stream.synchronize()


@given(st.lists(st.one_of(st.integers(-2, 5000), st.floats(allow_nan=False), st.text(max_size=3), st.none(),
                          st.booleans()), max_size=20))
def test_device_memory_pool_sizes(sizes):
    from cudyn.pycuda.tools import DeviceMemoryPool
    pool = DeviceMemoryPool()
    held = []
    for size in sizes:
        ok = isinstance(size, int) and not isinstance(size, bool) and size >= 0
        if not ok:
            with pytest.raises((TypeError, cudyn.InvalidArgument)):
                pool.allocate(size)
            continue
        block = pool.allocate(size)
        assert block.size == size and DeviceMemoryPool.alloc_size(DeviceMemoryPool.bin_number(size)) >= size
        held.append(block)
        spans = sorted((int(b), int(b) + b.size) for b in held if b.size)
        assert all(end <= start for (_, end), (start, _) in zip(spans, spans[1:]))
    assert pool.active_blocks == len(held)
    held.clear()
    block = None
    pool.stop_holding()
    assert pool.held_blocks == 0 and pool.active_blocks == 0


# ------------------------------------------------------------ the PyCUDA layer

@given(st.lists(st.tuples(st.sampled_from(["push", "pop", "detach", "attach", "make"]), st.integers(0, 1)),
                max_size=25))
def test_the_context_stack_never_shows_a_detached_context(steps):
    # pushes, pops, attaches and detaches in any order: get_current() is a
    # live context or None, and the thread's device is the current one's
    import cudyn.pycuda.driver as drv
    result = {}

    def run():  # a thread of its own: a stack of its own
        contexts = []
        for what, ordinal in steps:
            try:
                if what == "make":
                    contexts.append(drv.Device(ordinal).make_context())
                elif what == "push" and contexts:
                    contexts[-1].push()
                elif what == "pop":
                    drv.Context.pop()
                elif what == "attach" and contexts:
                    contexts[-1].attach()
                elif what == "detach" and contexts:
                    contexts.pop(0).detach()
            except drv.LogicError:
                pass
            current = drv.Context.get_current()
            assert current is None or current._attached > 0
            if current is not None:
                assert cudyn.device_current() == current.get_device().ordinal
        result["ok"] = True

    t = threading.Thread(target=run)
    t.start()
    t.join()
    assert result.get("ok")


@given(st.sampled_from(["", "-O3", "/tmp", "a"]), st.sampled_from(["options", "include_dirs", "name_expressions"]))
def test_sourcemodule_never_splits_a_string_into_characters(text, keyword):
    from cudyn.pycuda.compiler import SourceModule
    source = '__global__ void doublify(float *a) { a[threadIdx.x] *= 2; }'
    make = SourceModule if keyword != "name_expressions" else cudyn.SourceModule
    with pytest.raises(TypeError, match=keyword):
        make(source, **{keyword: text})

# ------------------------------------------- NCCL: communicators and groups
# Two ranks on the mock's two devices (Communicator.for_devices), driven by
# this thread in groups: a group of collectives computes numpy's results;
# a call cudyn refuses inside a group fails the whole group, which starts
# none of its calls; and while a group is open, what its calls use (their
# Communicators and buffers) can be neither destroyed, aborted nor freed.

NCCL_DTYPES = [np.dtype(t) for t in (np.float32, np.float64, np.int32, np.int64, np.uint8, np.complex64)]
NCCL_OPS = {"sum": lambda a, b: a + b, "prod": lambda a, b: a * b, "max": np.maximum, "min": np.minimum,
            "avg": lambda a, b: (a + b) / 2}


@pytest.fixture
def nccl():
    """cudyn.nccl over the mock NCCL."""
    from conftest import MOCK_LIBNCCL
    if not MOCK_LIBNCCL:
        pytest.skip("MOCK_LIBNCCL not set (run through make check)")
    import cudyn.nccl
    return cudyn.nccl


class NcclComms:
    """The two communicators of one example, destroyed at its end."""

    def __init__(self, nccl):
        self.comms = nccl.Communicator.for_devices([0, 1])

    def __enter__(self):
        return self.comms

    def __exit__(self, *exc):
        for c in self.comms:
            c.destroy()


def on_rank(rank, host):
    with cudyn.Device(rank):
        return gpuarray.to_gpu(np.ascontiguousarray(host))


def from_rank(rank, array):
    with cudyn.Device(rank):
        cudyn.synchronize()
        return array.get()


@st.composite
def collectives(draw):
    """A collective of both ranks: its kind, dtype, operation, root and
    each rank's send data (small integers: every reduction is exact)."""
    kind = draw(st.sampled_from(["all_reduce", "broadcast", "reduce", "all_gather", "reduce_scatter"]))
    dtype = draw(st.sampled_from(NCCL_DTYPES))
    ops = ["sum", "avg"] if dtype.kind == "c" else ["sum", "prod", "max", "min"] + (["avg"] if dtype.kind == "f" else [])
    n = draw(st.integers(1, 6)) * (2 if kind == "reduce_scatter" else 1)
    low = 0 if dtype.kind == "u" else -3
    data = [draw(hnp.arrays(dtype, n, elements=st.integers(low, 3).map(lambda v, t=dtype: t.type(v))))
            for _ in range(2)]
    return {"kind": kind, "op": draw(st.sampled_from(ops)), "root": draw(st.integers(0, 1)), "data": data}


def expected(c):
    """numpy's answer for each rank's receive buffer (None: not written)."""
    a, b = c["data"]
    reduced = NCCL_OPS[c["op"]](a, b).astype(a.dtype)
    if c["kind"] == "all_reduce":
        return [reduced, reduced]
    if c["kind"] == "broadcast":
        return [c["data"][c["root"]]] * 2
    if c["kind"] == "reduce":
        return [reduced if r == c["root"] else None for r in range(2)]
    if c["kind"] == "all_gather":
        return [np.concatenate([a, b])] * 2
    half = len(a) // 2
    return [reduced[:half], reduced[half:]]


def issue(comms, c, bufs, root=None):
    """Both ranks' calls of collective c on bufs [(send, recv)] per rank."""
    for r, comm in enumerate(comms):
        send, recv = bufs[r]
        if c["kind"] in ("all_reduce", "reduce_scatter"):
            getattr(comm, c["kind"])(send, recv, op=c["op"])
        elif c["kind"] == "broadcast":
            comm.broadcast(send, recv, root=c["root"] if root is None else root)
        elif c["kind"] == "reduce":
            comm.reduce(send, recv, op=c["op"], root=c["root"] if root is None else root)
        else:
            comm.all_gather(send, recv)


def buffers(c):
    """Each rank's (send, recv) on its device; recv starts as 7s."""
    n = len(c["data"][0])
    size = {"all_gather": 2 * n, "reduce_scatter": n // 2}.get(c["kind"], n)
    return [(on_rank(r, c["data"][r]), on_rank(r, np.full(size, 7, c["data"][r].dtype))) for r in range(2)]


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(calls=st.lists(collectives(), min_size=1, max_size=3), attack_after=st.integers(0, 3))
def test_a_group_of_collectives_is_numpys_and_holds_what_it_uses(nccl, calls, attack_after):
    with NcclComms(nccl) as comms:
        group_of_collectives(nccl, comms, calls, attack_after)


def group_of_collectives(nccl, comms, calls, attack_after):
    bufs = [buffers(c) for c in calls]
    with nccl.group():
        for i, c in enumerate(calls):
            issue(comms, c, bufs[i])
            if i == min(attack_after, len(calls) - 1):  # the group holds them until its end
                for attempt in (comms[0].destroy, comms[1].abort, comms[0].wait, bufs[0][0][0].base.free):
                    with pytest.raises(cudyn.InvalidArgument, match="in use"):
                        attempt()
    for i, c in enumerate(calls):
        for r, want in enumerate(expected(c)):
            got = from_rank(r, bufs[i][r][1])
            if want is None:
                want = np.full(got.shape, 7, got.dtype)
            np.testing.assert_array_equal(got, want, err_msg=f"{c['kind']} {c['op']} rank {r}")


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(calls=st.lists(collectives(), min_size=1, max_size=3), data=st.data())
def test_a_call_cudyn_refuses_fails_its_group_which_starts_none(nccl, calls, data):
    with NcclComms(nccl) as comms:
        refused_group(nccl, comms, calls, data)


def refused_group(nccl, comms, calls, data):
    bad = data.draw(st.integers(0, len(calls) - 1))
    bad_root = data.draw(st.sampled_from([2, -1, 2**20]))
    bufs = [buffers(c) for c in calls]
    before = [[from_rank(r, recv) for r, (_, recv) in enumerate(b)] for b in bufs]
    nccl.group_start()
    for i, c in enumerate(calls):
        if i == bad:  # a root out of range: the library refuses both ranks' call
            refused = dict(c, kind="broadcast")
            bufs[i] = buffers(refused)
            before[i] = [from_rank(r, recv) for r, (_, recv) in enumerate(bufs[i])]
            for r in range(2):
                with pytest.raises(cudyn.InvalidArgument, match="root"):
                    comms[r].broadcast(bufs[i][r][0], bufs[i][r][1], root=bad_root)
        else:
            issue(comms, c, bufs[i])
    with pytest.raises(cudyn.InvalidArgument, match="root"):
        nccl.group_end()
    for i in range(len(calls)):  # nothing ran
        for r, (_, recv) in enumerate(bufs[i]):
            np.testing.assert_array_equal(from_rank(r, recv), before[i][r])
    fresh = buffers(calls[0])
    with nccl.group():  # and the next group is whole again
        issue(comms, calls[0], fresh)
    for r, want in enumerate(expected(calls[0])):
        if want is not None:
            np.testing.assert_array_equal(from_rank(r, fresh[r][1]), want)
