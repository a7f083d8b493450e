"""The module over Python's limited C API (python/README.md, "Types under
the limited API"), on the mock: its types are heap types, immutable as
the static ones were, refusing instantiation where they have no
constructor, and collected where they hold arbitrary objects in a cycle;
a call comes through vectorcall where the interpreter's stable ABI has it
(or the build is version-specific) and through tp_call otherwise, the
same either way; Python floats become binary16 as CPython's struct module
makes them; a launch reads a grid or block anew whenever it may differ."""

import ctypes
import gc
import math
import sys
import weakref

import numpy as np
import pytest

import cudyn
from cudyn import _cudyn

pytestmark = pytest.mark.mock

HAVE_VECTORCALL = 1 << 11  # Py_TPFLAGS_HAVE_VECTORCALL, a type's flag


def module_types():
    return [t for t in vars(_cudyn).values() if isinstance(t, type) and not issubclass(t, BaseException)]


def recorded(mock_lib, size):
    buf = ctypes.create_string_buffer(size)
    mock_lib.mock_recorded.restype = ctypes.c_size_t
    assert mock_lib.mock_recorded(buf, size) == size
    return buf.raw


def record_kernel(params):
    source = 'extern "C" __global__ void record(%s) {}\n' % ", ".join(params)
    return cudyn.SourceModule(source, no_extern_c=True).get_function("record")


# ------------------------------------------------------------ the types

def test_types_are_immutable():
    assert len(module_types()) >= 20
    for t in module_types():
        with pytest.raises(TypeError):
            t.planted = 1
        assert not hasattr(t, "planted"), t
    f = record_kernel(["int a"])
    with pytest.raises(TypeError):
        type(f).__call__ = lambda self, *a, **k: None  # would bypass the vectorcall slot


def test_types_without_a_constructor_refuse_instantiation():
    for t in (_cudyn.Module, _cudyn.Function, _cudyn.PreparedFunction, _cudyn.Graph, _cudyn.GraphExec,
              _cudyn.DLPackOwner):
        with pytest.raises(TypeError, match="cannot create"):
            t()


def collected(make):
    """Whether the cycle make() builds (it returns an object of it that
    takes a weak reference) is freed by the garbage collector."""
    gc.collect()
    ref = weakref.ref(make())
    gc.collect()
    return ref() is None


class Holder:
    """Any object that may hold what holds it."""


def test_cycles_through_device_arrays_are_collected():
    def through_owner():
        h = Holder()
        h.array = cudyn.DeviceArray((4,), np.float32, owner=h)
        return h

    def through_stream():
        h = Holder()
        h.handle = 0  # a stream by its .handle
        h.array = cudyn.DeviceArray((4,), np.float32, stream=h)
        return h
    assert collected(through_owner)
    assert collected(through_stream)


def test_cycles_through_host_arguments_are_collected():
    class Buffer(bytearray):
        pass

    def host_array():
        b = Buffer(16)
        b.argument = cudyn.In(b)
        return b
    assert collected(host_array)


def test_cycles_through_prepared_functions_are_collected():
    f = record_kernel(["int a"])

    def bound_stream():
        h = Holder()
        h.handle = 0
        h.prepared = f.prepare("i", grid=1, block=1, stream=h)
        return h
    assert collected(bound_stream)


# ------------------------------------------------------------ calls

def test_vectorcall_where_the_stable_abi_has_it():
    abi3 = _cudyn.__file__.endswith(".abi3.so")
    f = record_kernel(["int a"])
    for t in (type(f), type(f.prepare("i"))):
        # the abi3 module: from 3.12 (3.11's limited API has no vectorcall); a version-specific one: always
        assert bool(t.__flags__ & HAVE_VECTORCALL) == (not abi3 or sys.version_info >= (3, 12)), (t, abi3)


def test_tp_call_passes_what_vectorcall_passes(mock_lib):
    # 18 arguments and 2 keywords: more than the tp_call path holds on its stack
    f = record_kernel(["int a%d" % i for i in range(18)])
    values = [np.int32(3 * i - 20) for i in range(18)]
    want = np.array(values, np.int32).tobytes()
    f(*values, grid=(1,), block=(1,))
    assert recorded(mock_lib, 72) == want
    mock_lib.mock_recorded(None, 0)
    type(f).__call__(f, *values, grid=(1,), block=(1,))  # the slot wrapper calls tp_call
    assert recorded(mock_lib, 72) == want
    p = f.prepare("i" * 18)
    type(p).__call__(p, (1,), (1,), *[int(v) for v in values], shared=0)
    assert recorded(mock_lib, 72) == want
    for call in (f, type(f).__call__.__get__(f)):
        with pytest.raises(TypeError, match="unexpected keyword argument 'planted'"):
            call(*values, grid=(1,), block=(1,), planted=1)


# ------------------------------------------------------------ binary16

HALVES = [0.0, -0.0, 1.0, -2.25, 0.1, 1 / 3, 65504.0, 65519.99, -65504.0, 2.0 ** -14, 2.0 ** -24, 2.0 ** -25,
          3 * 2.0 ** -25, 2.0 ** -26, 1023 * 2.0 ** -24, 1 + 2.0 ** -11, 1 + 3 * 2.0 ** -11, 2048 + 1, 2048 + 3,
          math.pi, -math.e, 1e-9, math.inf, -math.inf, 1e-300]


def test_python_floats_become_binary16_as_numpy_makes_them(mock_lib):
    f = record_kernel(["__half a%d" % i for i in range(8)])
    prepared = f.prepare("e" * 8)
    rng = np.random.default_rng(7)
    spread = [float(v) for v in rng.uniform(-1, 1, 400) * 2.0 ** rng.integers(-26, 16, 400)]
    values = HALVES + spread
    values += [0.0] * (-len(values) % 8)
    for i in range(0, len(values), 8):
        chunk = values[i:i + 8]
        prepared((1,), (1,), *chunk)
        assert recorded(mock_lib, 16) == np.array(chunk, np.float16).tobytes(), chunk


def test_binary16_refuses_what_it_cannot_hold_and_keeps_nan(mock_lib):
    prepared = record_kernel(["__half a"]).prepare("e")
    for value in (65520.0, -1e6, 1e300):  # past 65504 once rounded: refused, as the struct module refuses
        with pytest.raises(OverflowError):
            prepared((1,), (1,), value)
    for value, bits in ((math.nan, 0x7e00), (-math.nan, 0xfe00)):
        prepared((1,), (1,), value)
        assert recorded(mock_lib, 2) == bits.to_bytes(2, "little")


# ------------------------------------------------------------ grid and block

class Changing:
    """An integer that says 1, then 4096 (more threads than a block has)."""

    def __init__(self):
        self.calls = 0

    def __index__(self):
        self.calls += 1
        return 1 if self.calls == 1 else 4096


def test_a_launch_reads_grid_and_block_anew_where_they_may_differ():
    f = record_kernel(["int a"])
    block = (1, 1, 1)
    for _ in range(3):  # the same tuple of ints, read once
        f(np.int32(1), grid=(1,), block=block)
    changing = (Changing(),)
    f(np.int32(1), grid=(1,), block=changing)
    with pytest.raises(cudyn.Error):
        f(np.int32(1), grid=(1,), block=changing)  # not an int: read again
    listed = [1]
    f(np.int32(1), grid=(1,), block=listed)
    listed[0] = 4096
    with pytest.raises(cudyn.Error):
        f(np.int32(1), grid=(1,), block=listed)  # a list may change
    with pytest.raises(cudyn.Error):
        f(np.int32(1), grid=(1,), block=(4096,))
    f(np.int32(1), grid=(1,), block=block)
