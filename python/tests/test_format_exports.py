"""Facts cross the boundary by export: the pure-Python layer restates none
of what the library and the C extension know.  _cudyn exports the argument
limit (CUDYN_MAX_ARGS), the option of nvcc's names (CUDYN_OPTION_NVCC_NAMES),
each numpy dtype's launch-format character and each scalar character's C
spellings (python/src/format.c); these tests fail when an export drifts
from the library, and when the Python layer's tables (cudyn._dtypes,
cudyn._codegen) drift from the exports."""

import numpy as np
import pytest

import cudyn
from cudyn import _cudyn

pytestmark = pytest.mark.mock

NUMBERS = [np.dtype(t) for t in ("?", "i1", "u1", "i2", "u2", "i4", "u4", "i8", "u8", "f2", "f4", "f8", "c8", "c16")]


def library_code(spelling):
    """The launch character lib/expr gives a parameter spelled so."""
    k = cudyn.Elementwise(f"{spelling} a, {spelling} *z", "z[i] = a", "spelling")
    assert k.format.endswith("p"), k.format
    return k.format[0]


def test_every_spelling_is_the_librarys_own():
    # lib/expr's parameter lists take each spelling of the table, but for
    # the other names C and CUDA give those types (which PyCUDA's texts use);
    # the Reduction type takes them all as result types
    codes = _cudyn._launch_format_codes()
    spellings = _cudyn._format_spellings()
    assert set(spellings) >= {"?", "b", "B", "h", "H", "i", "I", "q", "Q", "e", "f", "d"}
    refused = set()
    for char, names in spellings.items():
        for k, name in enumerate(names):
            try:
                try:
                    # the library's character for it has the kind and size of ours
                    assert codes[library_code(name)] == codes[char], (char, name)
                except cudyn.InvalidArgument as e:
                    assert k > 0 and "a type cudyn does not know" in str(e), (char, name, str(e))
                    refused.add(name)
                cudyn.Reduction(name, "0", "a + b", "x[i]", f"const {names[0]} *x", "spelling")
            except cudyn.CompileError as e:
                # __half needs cuda_fp16.h, which the mock NVRTC has not: the
                # library parsed the parameter (a spelling it refuses is an
                # InvalidArgument before compiling), NVRTC could not go on
                assert char == "e" and "cuda_fp16.h" in str(e), str(e)
    assert refused == {"half", "ptrdiff_t"}, refused


def test_the_result_types_the_old_table_took_are_taken():
    # expressions.c's type_code took "unsigned" and "half"; the table that
    # replaced it had lost them, while the Python layer still named both
    cudyn.Reduction("unsigned", "0", "a + b", "x[i]", "const unsigned *x", "unsigned_sum")
    with pytest.raises(cudyn.CompileError, match="cuda_fp16.h"):  # parsed as __half, then NVRTC (the mock's)
        cudyn.Reduction("half", "0", "a + b", "x[i]", "const __half *x", "half_sum")


def test_a_result_type_the_library_refuses_is_refused_before_compiling():
    with pytest.raises(cudyn.InvalidArgument) as info:
        cudyn.Reduction("unsigned float", "0", "a + b", "x[i]", "const float *x")
    assert "not a scalar type" in str(info.value)


def test_dtype_characters_are_those_of_their_kind_and_size():
    codes = _cudyn._launch_format_codes()
    kinds = {"b": "?", "i": "b", "u": "B", "f": "e", "c": "F"}  # the kind's character of its smallest size
    for dtype in NUMBERS:
        char = _cudyn._dtype_format(dtype)
        assert codes[char] == (dtype.itemsize, codes[kinds[dtype.kind]][1]), (dtype, char)
    assert _cudyn._dtype_format(np.dtype([("a", "i4")])) == "s"
    assert _cudyn._dtype_format(np.dtype(object)) is None


def test_the_argument_limit_is_the_librarys():
    f = cudyn.SourceModule('extern "C" __global__ void k(int a) {}').get_function("k")
    f.prepare("i" * _cudyn._MAX_ARGS)
    with pytest.raises(cudyn.InvalidArgument):
        f.prepare("i" * (_cudyn._MAX_ARGS + 1))


def test_the_python_layer_derives_its_tables_from_the_exports():
    from cudyn import _codegen, _dtypes, _reductions
    assert _dtypes.MAX_PARAMS == _cudyn._MAX_ARGS
    assert _codegen.NVCC_NAMES is _cudyn._OPTION_NVCC_NAMES
    assert not hasattr(_dtypes, "_MORE_NAMES")  # one table: the export's
    spellings = _cudyn._format_spellings()
    for dtype in _dtypes.NUMBERS:
        code = _cudyn._dtype_format(dtype)
        assert _dtypes.launch_code(dtype) == code, dtype
        if dtype.kind == "c":
            continue  # the Python layer's own complex type
        assert _dtypes.ctype(dtype) == spellings[code][0] == _reductions.c_type(dtype), dtype
        for name in spellings[code]:
            back = _dtypes.dtype_of(name)
            assert (back.kind, back.itemsize) == (dtype.kind, dtype.itemsize), (name, back, dtype)


def test_plans_refuse_more_parameters_than_the_library_takes():
    from cudyn import _codegen, gpuarray
    view = gpuarray.zeros((2,) * 12, np.float32).T  # twelve axes that do not merge: one stride each
    arrays = [("z", gpuarray.zeros(view.shape, np.float32), True)] + [(f"a{k}", view, False) for k in range(4)]
    with pytest.raises(ValueError, match=f"at most {_cudyn._MAX_ARGS}"):
        _codegen.plan_map("z = a0", arrays, [], view.shape)
