"""SourceModule, images, functions and launches: the seeds' kernels on the mock."""

import os
import subprocess

import numpy as np
import pytest

HERE = os.path.dirname(os.path.abspath(__file__))


pytestmark = pytest.mark.mock

SAXPY = """
__global__ void saxpy(float a, const float *x, const float *y, float *out, size_t n)
{
    size_t tid = blockIdx.x * blockDim.x + threadIdx.x;
    for (size_t i = tid; i < n; i += (size_t)blockDim.x * gridDim.x)
        out[i] = a * x[i] + y[i];
}
"""
MULTIPLY_THEM = """
__global__ void multiply_them(float *dest, float *a, float *b, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) dest[i] = a[i] * b[i];
}
"""
TEMPLATE = """
template <typename T> __global__ void scale(T a, T *x, size_t n)
{
    size_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= a;
}
"""


def test_a_call_with_another_number_of_arguments_says_what_it_gave():
    # the library's check names the launch format the module made of the
    # arguments ('the format ">"'), which the caller never wrote
    import cudyn
    f = cudyn.SourceModule(SAXPY).get_function("saxpy")
    for args, given in (((np.float32(1),), "1 given (float32)"), ((cudyn.Out(np.zeros(4, np.float32)),), "(Out)"),
                        ((), "0 given (none)")):
        with pytest.raises(cudyn.LaunchArgumentError) as info:
            f(*args, grid=(1,), block=(1,))
        assert str(info.value).startswith("saxpy takes 5 arguments, ") and given in str(info.value), str(info.value)
        assert "format" not in str(info.value) and isinstance(info.value, TypeError)


def test_source_module_facts_and_cache():
    import cudyn
    src = SAXPY + "// facts %d\n" % os.getpid()
    first = cudyn.SourceModule(src, options=["--fmad=false"])
    assert first.from_cache is False
    assert isinstance(first.log, str) and first.target and isinstance(first.handle, int)
    second = cudyn.SourceModule(src, options=["--fmad=false"])
    assert second.from_cache is True
    f = first.get_function("saxpy")
    assert f.param_count == 5 and isinstance(f.handle, int)
    assert f.max_threads_per_block > 0 and f.num_regs >= 0 and f.shared_size_bytes >= 0


def test_pycuda_only_arguments_are_refused():
    import cudyn
    with pytest.raises(TypeError):
        cudyn.SourceModule(SAXPY, arch="sm_90")


def test_saxpy_launch_exact():
    import cudyn
    n = 1000
    a = np.float32(2.5)
    x = np.random.default_rng(1).random(n, dtype=np.float32)
    y = np.random.default_rng(2).random(n, dtype=np.float32)
    f = cudyn.SourceModule(SAXPY, options=["--fmad=false"]).get_function("saxpy")
    dx, dy = cudyn.gpuarray.to_gpu(x), cudyn.gpuarray.to_gpu(y)
    out = cudyn.gpuarray.empty(n, np.float32)
    f(a, dx, dy, out, np.uint64(n), grid=(4,), block=(128,))
    expected = (a * x).astype(np.float32) + y
    np.testing.assert_array_equal(out.get(), expected)


def test_device_memory_and_foreign_interfaces_are_pointers():
    import cudyn
    n = 64
    f = cudyn.SourceModule(SAXPY).get_function("saxpy")
    x = cudyn.DeviceMemory(n * 4)
    cudyn.memcpy_htod(x.ptr, np.ones(n, np.float32))

    class Foreign:  # any object with __cuda_array_interface__
        def __init__(self, arr):
            self.arr = arr
            self.__cuda_array_interface__ = arr.__cuda_array_interface__

    out = cudyn.gpuarray.empty(n, np.float32)
    f(np.float32(3), x, Foreign(out), out, np.uint64(n), grid=(1,), block=(64,))


def test_in_out_host_arguments():
    import cudyn
    n = 400
    a = np.random.default_rng(3).standard_normal(n).astype(np.float32)
    b = np.random.default_rng(4).standard_normal(n).astype(np.float32)
    dest = np.zeros_like(a)
    f = cudyn.SourceModule(MULTIPLY_THEM, options=["--ptxas-options=-v"]).get_function("multiply_them")
    f(cudyn.Out(dest), cudyn.In(a), cudyn.In(b), np.int32(n), grid=(2,), block=(256,))
    np.testing.assert_array_equal(dest, a * b)
    inout = a.copy()
    f(cudyn.InOut(inout), cudyn.In(inout.copy()), cudyn.In(b), np.int32(n), grid=(2,), block=(256,))
    np.testing.assert_array_equal(inout, a * b)


def test_in_out_faults_raise_and_leave_nothing(mock_lib):
    # cudyn copies In/Out buffers and launches without waiting; the module
    # waits (answering Ctrl-C) and finishes: a fault in any step raises it
    # and every device buffer is freed
    import cudyn
    from conftest import mock_fail_next, mock_memory_in_use
    f = cudyn.SourceModule(MULTIPLY_THEM).get_function("multiply_them")
    a = np.ones(64, np.float32)
    dest = np.zeros_like(a)
    f(cudyn.Out(dest), cudyn.In(a), cudyn.In(a), np.int32(64), grid=(1,), block=(64,))
    before = mock_memory_in_use(mock_lib)
    for fn, function in (("cuMemAlloc_v2", "cuMemAlloc"), ("cuMemcpyHtoDAsync_v2", "cuMemcpyHtoDAsync"),
                         ("cuLaunchKernel", "cuLaunchKernel"), ("cuMemcpyDtoHAsync_v2", "cuMemcpyDtoHAsync"),
                         ("cuStreamQuery", "cuStreamQuery")):
        mock_fail_next(mock_lib, fn, 2)
        with pytest.raises(cudyn.OutOfMemory) as info:
            f(cudyn.Out(dest), cudyn.In(a), cudyn.In(a), np.int32(64), grid=(1,), block=(64,))
        assert info.value.function == function, fn
        assert mock_memory_in_use(mock_lib) == before, fn
    dest[:] = 0
    f(cudyn.Out(dest), cudyn.In(a), cudyn.In(a), np.int32(64), grid=(1,), block=(64,))
    np.testing.assert_array_equal(dest, a * a)


def test_include_dirs_become_include_paths(tmp_path):
    import cudyn
    (tmp_path / "factor.h").write_text("#define FACTOR 3\n")
    src = '#include "factor.h"\n__global__ void scale(float a, float *x, size_t n) { x[0] = a * FACTOR; }\n'
    mod = cudyn.SourceModule(src, include_dirs=[str(tmp_path)])
    assert mod.get_function("scale").param_count == 3
    with pytest.raises(cudyn.CompileError):
        cudyn.SourceModule(src)  # without the directory


def test_host_arguments_need_contiguous_writable_arrays():
    import cudyn
    f = cudyn.SourceModule(MULTIPLY_THEM).get_function("multiply_them")
    a = np.ones(8, np.float32)
    readonly = np.zeros(8, np.float32)
    readonly.flags.writeable = False
    for dest in (readonly, np.zeros(16, np.float32)[::2]):
        with pytest.raises(ValueError) as info:
            f(cudyn.Out(dest), cudyn.In(a), cudyn.In(a), np.int32(8), grid=(1,), block=(8,))
        assert "argument 1 (Out)" in str(info.value)
    with pytest.raises(ValueError) as info:
        f(cudyn.Out(np.zeros(8, np.float32)), cudyn.In(np.ones(16, np.float32)[::2]), cudyn.In(a), np.int32(8),
          grid=(1,), block=(8,))
    assert "argument 2 (In)" in str(info.value) and "contiguous" in str(info.value)


def test_prepared_call():
    import cudyn
    n = 256
    f = cudyn.SourceModule(SAXPY).get_function("saxpy")
    p = f.prepare("fPPPQ")
    x = cudyn.gpuarray.to_gpu(np.arange(n, dtype=np.float32))
    y = cudyn.gpuarray.to_gpu(np.ones(n, np.float32))
    out = cudyn.gpuarray.empty(n, np.float32)
    p((1,), (256,), 2.0, x, y, out, n)
    np.testing.assert_array_equal(out.get(), 2 * np.arange(n, dtype=np.float32) + 1)
    p.prepared_call((1,), (256,), 3.0, x, y, out, n)
    np.testing.assert_array_equal(out.get(), 3 * np.arange(n, dtype=np.float32) + 1)


def test_prepared_call_with_its_launch_configuration_bound():
    import cudyn
    n = 256
    f = cudyn.SourceModule(SAXPY).get_function("saxpy")
    stream = cudyn.Stream()
    p = f.prepare("fPPPQ", grid=(1,), block=(256,), stream=stream)
    assert p.bound == {"grid": (1, 1, 1), "block": (256, 1, 1), "shared": 0, "stream": stream}
    assert f.prepare("fPPPQ").bound is None
    x = cudyn.gpuarray.to_gpu(np.arange(n, dtype=np.float32))
    y = cudyn.gpuarray.to_gpu(np.ones(n, np.float32))
    out = cudyn.gpuarray.zeros(n, np.float32)
    del stream  # the prepared call keeps it
    p(4.0, x, y, out, n)
    p.bound["stream"].synchronize()
    np.testing.assert_array_equal(out.get(), 4 * np.arange(n, dtype=np.float32) + 1)
    # prepared_call still takes a geometry of its own
    p.prepared_call((2,), (128,), 5.0, x, y, out, n)
    cudyn.synchronize()
    np.testing.assert_array_equal(out.get(), 5 * np.arange(n, dtype=np.float32) + 1)
    with pytest.raises(TypeError, match="bound by prepare"):
        p(4.0, x, y, out, n, grid=(2,))
    with pytest.raises(cudyn.InvalidArgument, match="takes 5 arguments, 7 given"):
        p((1,), (256,), 4.0, x, y, out, n)
    with pytest.raises(TypeError, match="both grid= and block="):
        f.prepare("fPPPQ", grid=(1,))
    with pytest.raises(TypeError, match="only with grid= and block="):
        f.prepare("fPPPQ", shared=16)
    with pytest.raises(TypeError, match="grid must be"):
        f.prepare("fPPPQ", grid="x", block=(1,))


def test_templates_are_refused_by_the_mock_nvrtc_with_its_reason():
    # the mock NVRTC reads no templates; name expressions run on a GPU (test_gpu.py)
    import cudyn
    with pytest.raises(cudyn.CompileError) as info:
        cudyn.SourceModule(TEMPLATE, no_extern_c=True, name_expressions=["scale<float>"])
    assert "template" in info.value.log


@pytest.mark.skipif(os.environ.get("CUDYN_PYTEST_REAL_NVRTC") != "1", reason="no real NVRTC installed")
def test_name_expressions_with_a_real_nvrtc_on_the_mock_driver():
    # the toolkit's NVRTC compiles the template; the mock driver runs scale<float> and scale<double>
    from conftest import run_python
    p = run_python("""
        import numpy as np, cudyn
        from test_module import TEMPLATE
        mod = cudyn.SourceModule(TEMPLATE, no_extern_c=True, name_expressions=["scale<float>", "scale<double>"])
        x = cudyn.gpuarray.to_gpu(np.arange(32, dtype=np.float32))
        mod.get_function("scale<float>")(np.float32(3), x, np.uint64(32), grid=(1,), block=(32,))
        y = cudyn.gpuarray.to_gpu(np.arange(8, dtype=np.float64))
        mod.get_function("scale<double>")(np.float64(0.5), y, np.uint64(8), grid=(1,), block=(8,))
        print(mod.lowered_name("scale<float>"), (x.get() == 3 * np.arange(32)).all(),
              (y.get() == 0.5 * np.arange(8)).all())
        """, extra={"CUDYN_LIBNVRTC": None, "PYTHONPATH": os.pathsep.join([HERE, os.environ.get("PYTHONPATH", "")])})
    assert p.returncode == 0, p.stderr
    assert p.stdout.split() == ["_Z5scaleIfEvT_PS0_m", "True", "True"]


def test_in_memory_headers():
    import cudyn
    src = '#include "factor.h"\n__global__ void scale(float a, float *x, size_t n) { x[0] = a * FACTOR; }\n'
    mod = cudyn.SourceModule(src, headers={"factor.h": "#define FACTOR 2\n"})
    assert mod.get_function("scale").param_count == 3
    with pytest.raises(cudyn.CompileError):
        cudyn.SourceModule(src)  # without the header


def test_struct_argument_by_value():
    import cudyn
    src = """
struct testStruct { int value; };
__global__ void testkernel(int i, int *pi, float f, float *pf, testStruct s, testStruct *ps)
{
    *pi = i; *pf = f; ps->value = s.value;
}
"""
    f = cudyn.SourceModule(src).get_function("testkernel")
    pi, pf, ps = (cudyn.gpuarray.zeros(1, t) for t in (np.int32, np.float32, np.int32))
    struct = np.zeros((), dtype=[("value", np.int32)])
    struct["value"] = 42
    f(np.int32(7), pi, np.float32(1.5), pf, struct[()], ps, grid=(1,), block=(1,))
    assert pi.get()[0] == 7 and pf.get()[0] == 1.5 and ps.get()[0] == 42


def test_record_kernel_packs_scalar_types(mock_lib):
    import ctypes

    import cudyn
    src = ('extern "C" __global__ void record(signed char a, short b, unsigned int c, long long d, float e,'
           ' double f) {}\n')
    f = cudyn.SourceModule(src, no_extern_c=True).get_function("record")
    values = (np.int8(-3), np.int16(-300), np.uint32(4000000000), np.int64(-1 << 40), np.float32(1.25),
              np.float64(-2.5))
    f(*values, grid=(1,), block=(1,))
    buf = ctypes.create_string_buffer(256)
    mock_lib.mock_recorded.restype = ctypes.c_size_t
    size = mock_lib.mock_recorded(buf, 256)
    expected = b"".join(v.tobytes() for v in values)
    assert buf.raw[:size] == expected


def test_unknown_global_variable():
    import cudyn
    mod = cudyn.SourceModule('__global__ void empty() {}\n')
    with pytest.raises(cudyn.Error) as info:
        mod.get_global("nothing")
    assert info.value.status_name == "CUDYN_ERROR_NOT_FOUND" and "nothing" in str(info.value)


def test_module_from_buffer_and_file(tmp_path):
    import cudyn
    cc = os.path.join(os.environ.get("top_builddir", ""), "tools", "cudyn-cc")
    if not os.access(cc, os.X_OK):
        pytest.skip("tools/cudyn-cc not built here")
    (tmp_path / "k.cu").write_text(SAXPY.replace("__global__", 'extern "C" __global__'))
    image = tmp_path / "k.img"
    p = subprocess.run([cc, "-o", str(image), "--arch", "sm_90", str(tmp_path / "k.cu")], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, universal_newlines=True)
    assert p.returncode == 0, p.stderr
    from_file = cudyn.module_from_file(image)
    assert from_file.get_function("saxpy").param_count == 5
    from_buffer = cudyn.module_from_buffer(image.read_bytes())
    assert from_buffer.get_function("saxpy")
    with pytest.raises(cudyn.Error):
        cudyn.module_from_buffer(b"not an image at all" * 10)


def test_compile_once_per_source():
    import ctypes

    import cudyn
    nvrtc = ctypes.CDLL(os.environ["MOCK_LIBNVRTC"])
    nvrtc.mock_nvrtc_calls.restype = ctypes.c_long
    nvrtc.mock_nvrtc_calls.argtypes = [ctypes.c_char_p]
    src = SAXPY + "// once %d\n" % os.getpid()
    before = nvrtc.mock_nvrtc_calls(b"nvrtcCompileProgram")
    a = cudyn.SourceModule(src)
    b = cudyn.SourceModule(src)
    assert not a.from_cache and b.from_cache and a.get_function("saxpy") and b.get_function("saxpy")
    assert nvrtc.mock_nvrtc_calls(b"nvrtcCompileProgram") - before == 1


# ------------------------------------------------------------ PyCUDA's prepared calls on the Function itself

RECORD_POINTER = 'extern "C" __global__ void record(float *p, unsigned long long n) {}\n'


def recorded(mock_lib, size=16):
    import ctypes
    buf = ctypes.create_string_buffer(size)
    mock_lib.mock_recorded.restype = ctypes.c_size_t
    assert mock_lib.mock_recorded(buf, size) == size
    return buf.raw


def test_function_prepared_calls_after_prepare():
    import cudyn
    n = 256
    f = cudyn.SourceModule(SAXPY).get_function("saxpy")
    x = cudyn.gpuarray.to_gpu(np.arange(n, dtype=np.float32))
    y = cudyn.gpuarray.to_gpu(np.ones(n, np.float32))
    out = cudyn.gpuarray.zeros(n, np.float32)
    for name, lead in (("prepared_call", ((1,), (256,))), ("prepared_async_call", ((1,), (256,), None)),
                       ("prepared_timed_call", ((1,), (256,)))):
        with pytest.raises(cudyn.InvalidArgument, match=name + r" before prepare\(\).*f.prepare"):
            getattr(f, name)(*lead, 2.0, x, y, out, n)
    assert isinstance(f.prepare("fPPPQ"), cudyn.PreparedFunction)  # still the PreparedFunction cudyn returns
    assert f.prepared_call((1,), (256,), 2.0, x, y, out, n, shared_size=16) is None
    np.testing.assert_array_equal(out.get(), 2 * np.arange(n, dtype=np.float32) + 1)
    stream = cudyn.Stream()
    assert f.prepared_async_call((2,), (128,), stream, 3.0, x, y, out, n) is None
    stream.synchronize()
    np.testing.assert_array_equal(out.get(), 3 * np.arange(n, dtype=np.float32) + 1)
    elapsed = f.prepared_timed_call((1,), (256,), 4.0, x, y, out, n)
    assert callable(elapsed)
    seconds = elapsed()
    assert isinstance(seconds, float) and seconds >= 0 and elapsed() == seconds
    np.testing.assert_array_equal(out.get(), 4 * np.arange(n, dtype=np.float32) + 1)
    # the format is checked, and the positional launch arguments are counted
    with pytest.raises(cudyn.InvalidArgument, match="takes 5 arguments, 4 given"):
        f.prepared_call((1,), (256,), 2.0, x, y, out)
    with pytest.raises(TypeError, match=r"prepared_async_call takes \(grid, block, stream"):
        f.prepared_async_call((1,), (256,))
    with pytest.raises(TypeError, match="unexpected keyword"):
        f.prepared_call((1,), (256,), 2.0, x, y, out, n, shared_bytes=16)
    # a new prepare() replaces the recorded format
    f.prepare([np.float32, np.intp, np.intp, np.intp, np.uint64])
    f.prepared_call((1,), (256,), np.float32(5), x.gpudata, y.gpudata, out.gpudata, np.uint64(n))
    np.testing.assert_array_equal(out.get(), 5 * np.arange(n, dtype=np.float32) + 1)


def test_prepared_function_has_the_timed_call_too():
    import cudyn
    f = cudyn.SourceModule(SAXPY).get_function("saxpy")
    p = f.prepare("fPPPQ")
    x = cudyn.gpuarray.to_gpu(np.ones(64, np.float32))
    out = cudyn.gpuarray.zeros(64, np.float32)
    seconds = p.prepared_timed_call((1,), (64,), 2.0, x, x, out, 64)()
    assert isinstance(seconds, float) and seconds >= 0
    np.testing.assert_array_equal(out.get(), np.full(64, 3, np.float32))


def test_time_kernel_returns_the_kernel_time_in_seconds():
    import cudyn
    n = 64
    f = cudyn.SourceModule(SAXPY).get_function("saxpy")
    x = cudyn.gpuarray.to_gpu(np.ones(n, np.float32))
    out = cudyn.gpuarray.zeros(n, np.float32)
    assert f(np.float32(2), x, x, out, np.uint64(n), grid=(1,), block=(n,)) is None
    assert f(np.float32(2), x, x, out, np.uint64(n), grid=(1,), block=(n,), time_kernel=False) is None
    for stream in (None, cudyn.Stream()):
        seconds = f(np.float32(3), x, x, out, np.uint64(n), grid=(1,), block=(n,), stream=stream, time_kernel=True)
        assert isinstance(seconds, float) and seconds >= 0
    np.testing.assert_array_equal(out.get(), np.full(n, 4, np.float32))
    # In/Out buffers too (the time then includes their copies)
    g = cudyn.SourceModule(MULTIPLY_THEM).get_function("multiply_them")
    a, dest = np.full(n, 3, np.float32), np.zeros(n, np.float32)
    seconds = g(cudyn.Out(dest), cudyn.In(a), cudyn.In(a), np.int32(n), grid=(1,), block=(n,), time_kernel=True)
    assert isinstance(seconds, float) and seconds >= 0
    np.testing.assert_array_equal(dest, np.full(n, 9, np.float32))
    # a failed launch gives its error, not a time
    with pytest.raises(cudyn.LaunchArgumentError):
        f(np.float32(3), x, x, out, grid=(1,), block=(n,), time_kernel=True)


def test_texture_references_are_refused_naming_texture_objects():
    import cudyn
    f = cudyn.SourceModule(SAXPY).get_function("saxpy")
    x = cudyn.gpuarray.to_gpu(np.ones(8, np.float32))
    for empty in (None, [], ()):
        assert isinstance(f.prepare("fPPPQ", empty), cudyn.PreparedFunction)
        assert isinstance(f.prepare("fPPPQ", texrefs=empty), cudyn.PreparedFunction)
        f(np.float32(1), x, x, x, np.uint64(8), grid=(1,), block=(8,), texrefs=empty)
    f.prepare("fPQ")
    for call in (lambda: f.prepare("fPPPQ", texrefs=[object()]),
                 lambda: f.prepare("fPPPQ", [object()]),
                 lambda: f(np.float32(1), x, x, x, np.uint64(8), grid=(1,), block=(8,), texrefs=[object()])):
        with pytest.raises(cudyn.InvalidArgument, match="CUDA 12 removed: pass a texture object"):
            call()
    assert f.prepare("fPQ") is not None  # a refused prepare() left the format it had
    with pytest.raises(cudyn.InvalidArgument, match="takes 3 arguments"):
        f.prepared_call((1,), (8,), np.float32(1), x, x, x, np.uint64(8))


def test_pointer_parameters_take_every_form_of_address(mock_lib):
    import cudyn
    f = cudyn.SourceModule(RECORD_POINTER, no_extern_c=True).get_function("record")
    mem = cudyn.DeviceMemory(64)
    array = cudyn.gpuarray.zeros(16, np.float32)

    class Int:  # PyCUDA's PointerHolderBase: int() gives the address
        def __int__(self):
            return mem.ptr

    class Index:
        def __index__(self):
            return mem.ptr

    class Foreign:
        __cuda_array_interface__ = array.__cuda_array_interface__

    forms = [(mem.ptr, mem.ptr), (np.intp(mem.ptr), mem.ptr), (np.uint64(mem.ptr), mem.ptr),
             (np.int64(mem.ptr), mem.ptr), (np.uint32(4096), 4096), (mem, mem.ptr), (Int(), mem.ptr),
             (Index(), mem.ptr), (array, array.ptr), (array[2:], array.ptr + 8), (Foreign(), array.ptr),
             (None, 0)]
    for prepared in ("PQ", "pQ", ["P", np.uint64]):
        f.prepare(prepared)
        for value, address in forms:
            f.prepared_call((1,), (1,), value, np.uint64(7))
            assert recorded(mock_lib) == np.array([address, 7], np.uint64).tobytes(), (prepared, value)
    # numpy's intp as an integer parameter (PyCUDA's prepare([numpy.intp])) takes what has __index__
    f.prepare([np.intp, np.uint64])
    f.prepared_call((1,), (1,), mem, 7)
    assert recorded(mock_lib) == np.array([mem.ptr, 7], np.uint64).tobytes()


def test_pointer_parameters_refuse_what_is_no_address():
    import cudyn
    f = cudyn.SourceModule(RECORD_POINTER, no_extern_c=True).get_function("record")
    f.prepare("PQ")
    refused = [(1.5, cudyn.LaunchArgumentError, "a float is not a device address"),
               (np.float32(1), cudyn.LaunchArgumentError, "numpy.float32 is not a device address"),
               (np.zeros(4, np.float32), cudyn.LaunchArgumentError, "host array"),
               (b"abcd", cudyn.LaunchArgumentError, "host array"),
               ("x", TypeError, "str is not device memory"),
               (-1, cudyn.InvalidArgument, r"must be 0 \.\. 2\*\*64-1, not -1"),
               (np.int64(-1), cudyn.InvalidArgument, "does not fit"),
               (2 ** 64, cudyn.InvalidArgument, r"must be 0 \.\. 2\*\*64-1")]
    for value, error, named in refused:
        with pytest.raises(error, match=named) as info:
            f.prepared_call((1,), (1,), value, np.uint64(7))
        assert "record: argument 1" in str(info.value)
    freed = cudyn.DeviceMemory(64)
    freed.free()
    with pytest.raises(cudyn.InvalidArgument, match="freed"):
        f.prepared_call((1,), (1,), freed, np.uint64(7))
    f.prepare([np.intp, np.uint64])  # an integer parameter: a device array is no integer (as in PyCUDA)
    with pytest.raises(cudyn.LaunchArgumentError, match=r"does not suit the prepared format's 'q'"):
        f.prepared_call((1,), (1,), cudyn.gpuarray.zeros(4, np.float32), np.uint64(7))
