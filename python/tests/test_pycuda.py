"""cudyn.pycuda, the PyCUDA layer, on the mock driver: install() and the
pycuda aliases, python3 -m cudyn.pycuda, devices, the context stack (across
threads too), memory and copies, Function's prepared calls, the tools (the
memory pool, the dtype table, the test helpers), gpuarray's PyCUDA
signatures, and every refusal (texture references, nvcc, the primary
context's settings, cuRAND without its headers); kernels written for
nvcc, DynamicModule and cuRAND's generators as far as the mock and, where
the toolkit is installed, the real NVRTC and nvJitLink reach (compiled,
linked, loaded; their plans and texts).  What needs kernels the mock
cannot run is in test_pycuda_gpu.py."""

import ctypes
import os
import sys
import textwrap
import threading

import numpy as np
import pytest

from conftest import mock_memory_in_use, run_python

pytestmark = pytest.mark.mock

SCALE = """
__global__ void scale(float a, float *x, size_t n)
{
    size_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = a * x[i];
}
"""


@pytest.fixture
def drv():
    import cudyn
    import cudyn.pycuda.driver as drv
    yield drv
    while drv.Context.get_current() is not None:  # leave no context pushed behind
        drv.Context.pop()
    cudyn.Device(0).use()  # the last pop leaves the thread on its device: the other tests expect device 0


# ------------------------------------------------------------ install and python -m

def test_install_makes_pycuda_the_layer_and_uninstall_undoes_it():
    p = run_python("""
        import importlib.util, sys
        import cudyn.pycuda
        assert importlib.util.find_spec("pycuda") is None or "cudyn" not in str(importlib.util.find_spec("pycuda"))
        assert not cudyn.pycuda.installed()
        cudyn.pycuda.install()
        cudyn.pycuda.install()  # twice is harmless
        import pycuda, pycuda.driver as drv, pycuda.gpuarray
        from pycuda.compiler import SourceModule
        from pycuda import cumath, scan, curandom, tools, characterize, elementwise, reduction
        import cudyn.pycuda.driver
        print(pycuda is cudyn.pycuda, drv is cudyn.pycuda.driver, pycuda.gpuarray.__name__,
              SourceModule.__module__, pycuda.driver is drv)
        try:
            import pycuda.gl
        except ImportError as e:
            print("gl:", "OpenGL" in str(e))
        cudyn.pycuda.uninstall()
        print("pycuda" in sys.modules, cudyn.pycuda.installed())
        """)
    assert p.returncode == 0, p.stderr
    assert p.stdout.splitlines() == ["True True cudyn.pycuda.gpuarray cudyn.pycuda.compiler True", "gl: True",
                                     "False False"]


def test_install_refuses_when_a_real_pycuda_is_imported():
    p = run_python("""
        import sys, types
        sys.modules["pycuda"] = types.ModuleType("pycuda")
        import cudyn.pycuda
        try:
            cudyn.pycuda.install()
        except ImportError as e:
            print("refused:", "already imported" in str(e))
        """)
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip() == "refused: True"


def test_nothing_is_installed_under_the_name_pycuda():
    import cudyn
    package = os.path.dirname(os.path.dirname(cudyn.__file__))
    assert not os.path.exists(os.path.join(package, "pycuda"))
    assert "pycuda" not in sys.modules or sys.modules["pycuda"].__name__ == "cudyn.pycuda"


def test_python_m_runs_a_script_with_its_arguments(tmp_path):
    script = tmp_path / "prog.py"
    script.write_text(textwrap.dedent("""
        import sys
        import pycuda.autoinit
        import pycuda.driver as drv
        print(drv.__name__, sys.argv[1:], __name__, pycuda.autoinit.device.name())
        sys.exit(int(sys.argv[2]))
        """))
    import subprocess

    from conftest import child_env
    run = lambda *args: subprocess.run([sys.executable, "-m", "cudyn.pycuda", *args], env=child_env(),  # noqa: E731
                                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
    p = run(str(script), "one", "3")
    assert p.returncode == 3, p.stderr
    assert p.stdout.strip() == "cudyn.pycuda.driver ['one', '3'] __main__ Mock GPU A"
    module_dir = tmp_path / "mods"
    module_dir.mkdir()
    (module_dir / "runme.py").write_text("import sys, pycuda\nprint(pycuda.__name__, sys.argv[1:])\n")
    env = child_env({"PYTHONPATH": os.pathsep.join([str(module_dir), child_env()["PYTHONPATH"]])})
    p = subprocess.run([sys.executable, "-m", "cudyn.pycuda", "-m", "runme", "x"], env=env, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, universal_newlines=True)
    assert p.returncode == 0 and p.stdout.strip() == "cudyn.pycuda ['x']", p.stderr
    assert run().returncode == 2 and "usage" in run().stderr
    assert run(str(tmp_path / "missing.py")).returncode == 2


# ------------------------------------------------------------ devices and contexts

def test_device_methods(drv):
    dev = drv.Device(0)
    assert drv.Device.count() == 2 and dev.name() == "Mock GPU A" and dev.compute_capability() == (9, 0)
    assert dev.total_memory() > 0 and dev.pci_bus_id().endswith("17:00.0") and int(dev) == 0
    attributes = dev.get_attributes()
    assert attributes[drv.device_attribute.MAX_THREADS_PER_BLOCK] == 1024
    assert dev.get_attribute(drv.device_attribute.WARP_SIZE) == 32 and dev.max_threads_per_block == 1024
    assert drv.Device(dev.pci_bus_id()) == dev and drv.Device(1) != dev
    with pytest.raises(AttributeError):
        dev.no_such_attribute
    assert drv.get_version()[0] >= 11 and drv.get_driver_version() >= 11000


def test_context_stack(drv):
    import cudyn
    assert drv.Context.get_current() is None
    ctx0 = drv.Device(0).make_context()
    assert drv.Context.get_current() is ctx0 and cudyn.device_current() == 0
    ctx1 = drv.Device(1).make_context()
    assert drv.Context.get_device() == drv.Device(1) and cudyn.device_current() == 1
    memory = drv.mem_alloc(64)  # on device 1
    drv.Context.pop()
    assert drv.Context.get_current() is ctx0 and cudyn.device_current() == 0
    ctx1.push()
    assert cudyn.device_current() == 1
    ctx1.detach()  # the last reference, current: popped
    assert drv.Context.get_current() is ctx0 and cudyn.device_current() == 0
    assert memory.device == 1 and not memory.freed  # the primary context keeps it
    with pytest.raises(drv.LogicError):
        ctx1.push()  # detached
    primary = drv.Device(1).retain_primary_context()
    assert drv.Context.get_current() is ctx0  # retained, not pushed
    primary.push()
    assert primary == ctx1 and cudyn.device_current() == 1  # the same primary context
    primary.pop()
    ctx0.pop()
    assert drv.Context.get_current() is None and cudyn.device_current() == 0  # still on the last device
    with pytest.raises(drv.LogicError):
        drv.Context.pop()
    drv.Context.synchronize()
    from cudyn.pycuda import Unsupported
    with pytest.raises(Unsupported):
        drv.Device(0).make_context(drv.ctx_flags.SCHED_BLOCKING_SYNC)


def test_context_stacks_are_per_thread(drv):
    import cudyn
    ctx = drv.Device(1).make_context()
    seen = {}

    def worker():
        seen["before"] = (drv.Context.get_current(), cudyn.device_current())
        mine = drv.Device(0).make_context()
        seen["mine"] = (drv.Context.get_current() is mine, cudyn.device_current())
        mine.pop()
        seen["after"] = drv.Context.get_current()

    t = threading.Thread(target=worker)
    t.start()
    t.join()
    assert seen == {"before": (None, 0), "mine": (True, 0), "after": None}
    assert drv.Context.get_current() is ctx and cudyn.device_current() == 1
    ctx.pop()


# ------------------------------------------------------------ memory

def test_memory_and_copies(drv):
    a = np.arange(64, dtype=np.float32)
    m = drv.mem_alloc(a.nbytes)
    drv.memcpy_htod(m, a)
    back = np.empty_like(a)
    drv.memcpy_dtoh(back, m)
    np.testing.assert_array_equal(back, a)
    other = drv.mem_alloc_like(a)
    drv.memcpy_dtod(other, m, a.nbytes)
    drv.memset_d32(m, 0, a.size)
    np.testing.assert_array_equal(drv.from_device_like(other, a), a)
    np.testing.assert_array_equal(drv.from_device(m, (64,), np.float32), np.zeros(64, np.float32))
    f = np.asfortranarray(np.arange(12.0).reshape(3, 4))
    np.testing.assert_array_equal(drv.from_device_like(drv.to_device(f), f), f)
    s = drv.Stream()
    pinned = drv.pagelocked_zeros((8, 8), np.float32)
    drv.memcpy_htod_async(m, pinned, s)
    drv.memcpy_dtoh_async(pinned, other, s)
    s.synchronize()
    assert s.is_done() and (pinned.ravel() == a).all()
    assert drv.pagelocked_empty_like(f).flags.f_contiguous and drv.pagelocked_zeros_like(a).sum() == 0
    assert drv.aligned_empty((100,), np.float64, alignment=4096).ctypes.data % 4096 == 0
    free, total = drv.mem_get_info()
    assert 0 < free <= total
    m.free()
    assert m.freed


def test_pointer_holder_base(drv):
    from cudyn.pycuda import gpuarray

    class Held(drv.PointerHolderBase):
        def __init__(self, memory):
            super().__init__()
            self.memory = memory

        def get_pointer(self):
            return self.memory.ptr

    held = Held(drv.mem_alloc(16))
    drv.memcpy_htod(held, np.arange(4, dtype=np.float32))
    a = gpuarray.GPUArray((4,), np.float32, gpudata=held)
    np.testing.assert_array_equal(a.get(), np.arange(4, dtype=np.float32))
    assert a.gpudata is held and int(held) == held.memory.ptr


# ------------------------------------------------------------ kernels

def test_prepared_calls_and_timing(drv):
    import cudyn
    from cudyn.pycuda.compiler import SourceModule
    func = SourceModule(SCALE).get_function("scale")
    x = drv.to_device(np.ones(64, np.float32))
    with pytest.raises(cudyn.InvalidArgument, match="before prepare"):  # cudyn's Function says so
        func.prepared_call((1,), (64,), np.float32(2), x, np.uint64(64))
    assert func.prepare("fPQ") is func
    func.prepared_call((1, 1), (64, 1, 1), 2.0, np.intp(int(x)), 64)  # an address as numpy.intp, as PyCUDA allows
    s = drv.Stream()
    func.prepared_async_call((1,), (64,), s, np.float32(3), x, np.uint64(64))
    s.synchronize()
    elapsed = func.prepared_timed_call((1,), (64,), np.float32(0.5), x, 64)
    assert elapsed() >= 0
    seconds = func(np.float32(2), x, np.uint64(64), block=(64, 1, 1), grid=(1, 1), time_kernel=True)
    assert isinstance(seconds, float) and seconds >= 0
    np.testing.assert_array_equal(drv.from_device(x, (64,), np.float32), np.full(64, 6, np.float32))
    assert isinstance(func.num_regs, int) and func.get_attribute(drv.function_attribute.NUM_REGS) >= 0


def test_vector_types_pass_by_value(drv, mock_lib):
    from cudyn.pycuda import gpuarray
    from cudyn.pycuda.compiler import SourceModule
    record = SourceModule("__global__ void record(float3 v, int k) { }").get_function("record")
    value = gpuarray.vec.make_float3(1, 2, 3)
    assert value.shape == () and value.dtype == gpuarray.vec.float3 and gpuarray.vec.float3.itemsize == 12
    record(value, np.int32(7), block=(1, 1, 1))
    buf = ctypes.create_string_buffer(64)
    mock_lib.mock_recorded.restype = ctypes.c_size_t
    n = mock_lib.mock_recorded(buf, 64)
    assert n == 16 and np.frombuffer(buf.raw[:12], np.float32).tolist() == [1, 2, 3]
    assert np.frombuffer(buf.raw[12:16], np.int32)[0] == 7
    record.prepare([gpuarray.vec.float3, np.int32])
    record.prepared_call((1,), (1,), gpuarray.vec.make_float3(4, 5, 6), np.int32(8))
    mock_lib.mock_recorded(buf, 64)
    assert np.frombuffer(buf.raw[:12], np.float32).tolist() == [4, 5, 6]


# ------------------------------------------------------------ refusals

def test_refusals_name_the_replacement(drv):
    import cudyn
    from cudyn.pycuda import Unsupported, compiler, gpuarray, tools
    mod = compiler.SourceModule(SCALE)
    cases = [
        (lambda: mod.get_texref("tex"), "texture objects"),
        (lambda: mod.get_surfref("surf"), "surface objects"),
        (lambda: drv.matrix_to_texref(np.zeros((2, 2)), None, "C"), "texture objects"),
        (lambda: gpuarray.zeros(4).bind_to_texref_ext(None, allow_double_hack=True), "texture object"),
        (lambda: gpuarray.zeros(4).bind_to_texref(None), "CUDA 12"),
        (lambda: drv.bind_array_to_texref(None, None), "CUDA 12"),
        (lambda: drv.np_to_array(np.zeros((2, 2)), "C"), "cudyn.Array"),
        (lambda: drv.Memcpy2D(), "cudyn.Array"),
        (lambda: compiler.SourceModule(SCALE, keep=True), "cache"),
        (lambda: compiler.SourceModule(SCALE, cache_dir="/tmp/x"), "CUDYN_CACHE_DIR"),
        (lambda: compiler.SourceModule(SCALE, arch="sm_90"), "cudyn-cc"),
        (lambda: compiler.SourceModule(SCALE, nvcc="/usr/bin/nvcc"), "NVRTC"),
        (lambda: compiler.DynamicSourceModule(SCALE, nvcc="/usr/bin/nvcc"), "NVRTC"),
        (lambda: compiler.DynamicModule(arch="sm_90"), "cudyn-cc"),
        (lambda: compiler.compile(SCALE), "cudyn-cc"),
        (lambda: compiler.get_nvcc_version(), "NVRTC"),
        (lambda: tools.dtype_to_ctype(np.float32, with_fp_tex_hack=True), "texture references"),
        (lambda: drv.register_host_memory(np.zeros(4)), "pagelocked_empty"),
        (lambda: drv.Context.set_cache_config(0), "primary context"),
        (lambda: drv.module_from_buffer(b"x", options=[(drv.jit_option.WALL_TIME, 1)]), "MAX_REGISTERS"),
    ]
    for call, named in cases:
        with pytest.raises(Unsupported) as info:
            call()
        assert named in str(info.value), (named, str(info.value))
        assert isinstance(info.value, NotImplementedError)
    # texrefs= is refused by cudyn's own Function, with its InvalidArgument
    for call in (lambda: mod.get_function("scale")(np.float32(1), 0, np.uint64(0), texrefs=[object()]),
                 lambda: mod.get_function("scale").prepare("fPQ", texrefs=[object()])):
        with pytest.raises(cudyn.InvalidArgument, match="pass a texture object"):
            call()
    mod.get_function("scale").prepare("fPQ", texrefs=[])  # PyCUDA's default
    # cache_dir=False and keep=False are what PyCUDA's own tests pass: accepted
    compiler.SourceModule(SCALE, cache_dir=False, keep=False)


# ------------------------------------------------------------ tools

def test_memory_pool(drv, mock_lib):
    from cudyn.pycuda.tools import DeviceMemoryPool, bitlog2
    assert bitlog2(1) == 0 and bitlog2(17) == 4 and bitlog2(0xCC3AFFE) == 27
    with pytest.raises(ValueError):
        bitlog2(0)
    pool = DeviceMemoryPool()
    for size in list(range(0, 300)) + [1 << 20, (1 << 20) + 1, 3 << 30]:
        b = pool.bin_number(size)
        assert size <= pool.alloc_size(b) <= max(4, size * 1.25 + 1) and pool.bin_number(pool.alloc_size(b)) == b
    block = pool.allocate(1000)
    ptr = int(block)
    drv.memcpy_htod(block, np.zeros(250, np.float32))  # a block is device memory wherever one is taken
    del block
    assert pool.held_blocks == 1 and pool.active_blocks == 0
    again = pool.allocate(1010)  # the same bin: the same memory
    assert int(again) == ptr
    again.free()
    del again  # back in the pool once nothing can use it (test_pools.py)
    in_use = mock_memory_in_use(mock_lib)
    pool.stop_holding()
    assert pool.held_blocks == 0 and mock_memory_in_use(mock_lib) < in_use


def test_dtype_table():
    from cudyn.pycuda import gpuarray, tools
    assert tools.dtype_to_ctype(np.float32) == "float" and tools.dtype_to_ctype(np.uint64) == "unsigned long long"
    assert tools.dtype_to_ctype(np.complex64) == "pycuda::complex<float>"
    assert tools.dtype_to_ctype(gpuarray.vec.float3) == "float3"
    pair = np.dtype([("lo", np.float32), ("hi", np.float32)])
    tools.register_dtype(pair, "my_pair")
    assert tools.dtype_to_ctype(pair) == "my_pair" and tools.get_or_register_dtype("my_pair") == pair
    assert tools.parse_c_arg("const float *x").declarator() == "float *x"
    assert tools.get_arg_type("unsigned int n") == "I" and tools.get_arg_type("double *p") == "P"


def test_test_helpers_push_and_pop_a_context(drv, monkeypatch):
    from cudyn.pycuda import tools
    seen = []

    @tools.mark_cuda_test
    def inner(x):
        seen.append((x, drv.Context.get_current() is not None, drv.Context.get_device().ordinal))

    monkeypatch.setenv("CUDA_DEVICE", "1")
    inner(5)
    assert seen == [(5, True, 1)] and drv.Context.get_current() is None
    fixture = tools.init_cuda_context_fixture()
    next(fixture)
    assert drv.Context.get_current() is not None
    with pytest.raises(StopIteration):
        next(fixture)
    assert drv.Context.get_current() is None
    assert tools.DeviceData().warp_size == 32


def test_autoinit_pushes_the_default_context():
    p = run_python("""
        import cudyn.pycuda
        cudyn.pycuda.install()
        import pycuda.autoinit, pycuda.driver as drv
        from pycuda.characterize import has_double_support
        print(pycuda.autoinit.device.ordinal, drv.Context.get_current() is pycuda.autoinit.context,
              has_double_support())
        """, extra={"CUDA_DEVICE": "1"})
    assert p.returncode == 0, p.stderr
    assert p.stdout.split() == ["1", "True", "True"]


# ------------------------------------------------------------ gpuarray's PyCUDA signatures and views

def test_gpuarray_defaults_and_allocators():
    from cudyn.pycuda import gpuarray
    from cudyn.pycuda.tools import DeviceMemoryPool
    assert gpuarray.zeros(4).dtype == np.float64 and gpuarray.empty(3).dtype == np.float64
    assert gpuarray.zeros(4, np.float32).get().sum() == 0
    pool = DeviceMemoryPool()
    a = gpuarray.zeros((8,), np.float32, pool.allocate)
    b = gpuarray.to_gpu(np.arange(8, dtype=np.float32), pool.allocate)
    assert pool.active_blocks == 2 and (b.get() == np.arange(8)).all() and (a.get() == 0).all()
    f = gpuarray.empty((3, 5), np.float32, order="F")
    assert f.flags.f_contiguous and gpuarray.empty_like(f).flags.f_contiguous
    assert gpuarray.zeros_like(f, order="C").flags.c_contiguous
    assert gpuarray.empty_like(f, dtype=np.complex64, order="K").flags.f_contiguous
    assert gpuarray.splay(1000)[1] == (256, 1, 1)


def test_views_and_their_metadata():
    from cudyn.pycuda import gpuarray
    host = np.arange(60, dtype=np.float32).reshape(3, 4, 5)
    a = gpuarray.to_gpu(host)
    for key in (1, (slice(None), 2), (Ellipsis, 1), (None, 1), (slice(None, None, -1),), (0, slice(1, 4, 2), -1),
                (slice(1, 2), slice(None), None, slice(0, 5, 3))):
        view, expected = a[key], host[key]
        assert view.shape == expected.shape and view.strides == expected.strides, key
        np.testing.assert_array_equal(view.get(), expected)
    assert isinstance(a[1].gpudata, int) and a[1].gpudata == a.ptr + 80 and a.gpudata is a.base
    assert a[1].base is a and a[1][2].base is a and a.reshape(60).base is a  # numpy's bases
    assert a.transpose(axes=(1, 0, 2)).strides == host.transpose(1, 0, 2).strides
    assert a.T.shape == (5, 4, 3) and a.transpose(2, 0, 1).shape == (5, 3, 4)
    assert a[0:1, 1:2].squeeze().shape == (5,) and a[0:1, 1:2].flags.c_contiguous
    assert not a[:, :, 2:3].flags.c_contiguous and a[:, :, 2:3].squeeze().shape == (3, 4)
    assert a.view(np.int16).shape == (3, 4, 10) and a.view().strides == a.strides
    assert gpuarray.zeros((2, 8), np.float32).view(np.complex64).shape == (2, 4)
    assert a.reshape(12, 5).ptr == a.ptr and a.reshape((4, -1), order="C").shape == (4, 15)
    assert a.ravel().shape == (60,) and a[0].reshape(20).ptr == a.ptr
    with pytest.raises(IndexError):
        a[np.array([0, 1])]
    with pytest.raises(IndexError):
        a[0, 0, 0, 0]
    with pytest.raises(ValueError):
        a.reshape(7, 7)
    with pytest.raises(ValueError):
        a[:, ::2].view(np.complex64)


def test_setitem_and_layouts():
    from cudyn.pycuda import gpuarray
    a = gpuarray.zeros((4, 6), np.float32)
    a[1] = np.arange(6)                           # a host row, converted to float32
    a[2, 1:4] = np.array([7, 8, 9], np.float32)
    a[3:, :] = np.ones((1, 6), np.float32)
    b = gpuarray.to_gpu(np.full(6, 5, np.float32))
    a[0] = b                                      # a device row of the same dtype: one copy
    want = np.zeros((4, 6), np.float32)
    want[1] = np.arange(6)
    want[2, 1:4] = [7, 8, 9]
    want[3:] = 1
    want[0] = 5
    np.testing.assert_array_equal(a.get(), want)
    f = np.asfortranarray(np.arange(12.0).reshape(3, 4))
    d = gpuarray.to_gpu(f)
    assert d.strides == f.strides and d.copy().strides == f.strides
    np.testing.assert_array_equal(d.get(), f)
    d.set(np.asfortranarray(f * 2))
    np.testing.assert_array_equal(d.get(), f * 2)
    g = gpuarray.GPUArray((4, 3), np.float64, gpudata=d.gpudata, order="C")  # the same bytes, read in C order
    np.testing.assert_array_equal(g.get(), (f * 2).ravel(order="F").reshape(4, 3))
    assert d.__cuda_array_interface__["strides"] == f.strides


def test_concatenate_and_stack_of_contiguous_pieces():
    from cudyn.pycuda import gpuarray
    x, y = np.arange(6, dtype=np.float32).reshape(2, 3), np.arange(6, 15, dtype=np.float32).reshape(3, 3)
    out = gpuarray.concatenate((gpuarray.to_gpu(x), gpuarray.to_gpu(y)))
    np.testing.assert_array_equal(out.get(), np.concatenate((x, y)))
    s = gpuarray.stack((gpuarray.to_gpu(x), gpuarray.to_gpu(x * 2)))
    np.testing.assert_array_equal(s.get(), np.stack((x, x * 2)))
    with pytest.raises(ValueError):
        gpuarray.concatenate((gpuarray.to_gpu(x), gpuarray.to_gpu(np.zeros((2, 4), np.float32))))
    with pytest.raises(ValueError):
        gpuarray.stack(())


def test_truth_of_one_element():
    from cudyn.pycuda import gpuarray
    assert bool(gpuarray.to_gpu(np.ones((1, 1), np.float32))) and not bool(gpuarray.zeros((), np.float32))
    with pytest.raises(ValueError):
        bool(gpuarray.zeros(2, np.float32))


@pytest.mark.skipif(os.environ.get("CUDYN_PYTEST_REAL_NVRTC") != "1", reason="no real NVRTC installed")
def test_generated_kernels_compile_with_the_real_nvrtc():
    # every family of kernel gpuarray, cumath, scan, curandom and the layer
    # write is compiled by the toolkit's NVRTC and loaded by the mock driver,
    # which then refuses to run it (it runs only kernels it knows): any
    # error but that refusal is a fault of the generated text
    p = run_python("""
        import numpy as np, cudyn
        from cudyn import gpuarray as ga, cumath, curandom
        from cudyn.scan import ExclusiveScanKernel
        from cudyn.pycuda.elementwise import ElementwiseKernel
        from cudyn.pycuda.reduction import ReductionKernel
        f = ga.to_gpu(np.arange(12, dtype=np.float32).reshape(3, 4))
        c = ga.to_gpu(np.arange(6, dtype=np.complex64))
        i = ga.to_gpu(np.arange(6, dtype=np.int32))
        twice = ElementwiseKernel("pycuda::complex<float> *z", "z[i] = z[i] * 2.0f", "twice")
        squares = ReductionKernel(np.float32, "0", "a + b", "x[i] * x[i]", "const float *x")
        stdio = '#include <stdio.h>\\n__global__ void p(int *x) { printf("%d", x[0]); }'
        vec3 = ga.vec.make_float3(1, 2, 3)
        cases = {
            "complex arithmetic": lambda: c * 2j / c, "int / complex": lambda: i / c, "comparison": lambda: f > 0.5,
            "strided": lambda: 2 * f[:, ::2], "broadcast": lambda: f + f[:, :1],
            "logical": lambda: ga.logical_or(f, i[:4]), "maximum": lambda: ga.maximum(f, 1),
            "where": lambda: ga.where(f > 1, f, 0.0), "conj": lambda: c.conj(), "abs complex": lambda: abs(c),
            "astype": lambda: c.astype(np.complex128), "fill vec": lambda: ga.GPUArray(4, ga.vec.float3).fill(vec3),
            "exp f32": lambda: cumath.exp(f), "sin c64": lambda: cumath.sin(c),
            "log10 c128": lambda: cumath.log10(c.astype(np.complex128)), "frexp": lambda: cumath.frexp(f),
            "modf": lambda: cumath.modf(f), "ldexp": lambda: cumath.ldexp(f, f), "fmod": lambda: cumath.fmod(f, 3.0),
            "complex sum": lambda: ga.sum(c), "any complex": lambda: ga.any(c), "rand": lambda: curandom.rand(8),
            "scan": lambda: ExclusiveScanKernel(np.int32, "a + b", "0")(i), "take": lambda: ga.take(f, i),
            "concatenate axis 1": lambda: ga.concatenate((f, f), axis=1),
            "elementwise": lambda: twice(c, slice=slice(1, 5)), "reduction": lambda: squares(f.ravel()),
            "stdio": lambda: cudyn.SourceModule(stdio),
        }
        for name, run in cases.items():
            try:
                run()
            except cudyn.CompileError as e:
                print("compile error:", name, str(e).splitlines()[0][:300])
            except cudyn.Error as e:
                if "not emulate" not in str(e) and "801" not in str(e) and "NOT_SUPPORTED" not in str(e):
                    print("error:", name, e)
        print("checked", len(cases))
        """, extra={"CUDYN_LIBNVRTC": None}, timeout=600)
    assert p.returncode == 0, p.stderr[-3000:]
    assert p.stdout.splitlines() == ["checked 28"], p.stdout


# ------------------------------------------------------------ issue 41: the layer's findings

def test_copies_of_functions_and_modules_do_not_recurse():
    import copy
    import cudyn.pycuda.driver as drv
    from cudyn.pycuda.compiler import SourceModule
    mod = SourceModule("__global__ void doublify(float *a) { a[threadIdx.x] *= 2; }")
    f = mod.get_function("doublify")
    for original in (f, mod):
        assert type(copy.copy(original)) is type(original)
    assert copy.copy(f).function is f.function and copy.copy(mod).module is mod.module
    with pytest.raises(AttributeError):
        f._no_such_private_name
    assert isinstance(drv.Function(f.function).num_regs, int)


def test_install_keeps_each_modules_own_spec():
    p = run_python("""
        import sys, cudyn.pycuda
        cudyn.pycuda.install()
        import pycuda.driver, pycuda.gpuarray
        for name in ("cudyn.pycuda.driver", "cudyn.pycuda.gpuarray"):
            print(sys.modules[name].__spec__.name)
        """)
    assert p.returncode == 0, p.stderr
    assert p.stdout.split() == ["cudyn.pycuda.driver", "cudyn.pycuda.gpuarray"]


def test_install_refuses_an_impostor_and_a_leftover_real_submodule():
    p = run_python("""
        import sys, types, cudyn.pycuda
        for name, attrs in (("pycuda", {"__name__": "cudyn.pycuda_evil"}), ("pycuda.driver", {})):
            fake = types.ModuleType(attrs.get("__name__", name))
            sys.modules[name] = fake
            try:
                cudyn.pycuda.install()
                print("installed")
            except ImportError as e:
                print("refused", name in str(e))
            del sys.modules[name]
        cudyn.pycuda.install()
        import pycuda.driver
        print(pycuda.driver is sys.modules["cudyn.pycuda.driver"])
        """)
    assert p.returncode == 0, p.stderr
    assert p.stdout.split() == ["refused", "True", "refused", "True", "True"]


def test_lists_of_texts_are_never_split_into_characters():
    import cudyn
    from cudyn.pycuda.compiler import SourceModule
    source = "__global__ void doublify(float *a) { a[threadIdx.x] *= 2; }"
    for kwargs in ({"include_dirs": "/tmp"}, {"options": "-O3"}):
        for make in (SourceModule, cudyn.SourceModule):
            with pytest.raises(TypeError) as info:
                make(source, **kwargs)
            assert next(iter(kwargs)) in str(info.value)
    with pytest.raises(TypeError):
        cudyn.SourceModule(source, name_expressions="doublify")
    SourceModule(source, include_dirs=["/tmp"], options=["-DX=1"])


def test_detaching_a_context_below_the_top_takes_it_off_the_stack():
    import cudyn
    import cudyn.pycuda.driver as drv
    below = drv.Device(1).make_context()
    top = drv.Device(0).make_context()
    try:
        below.detach()
        assert drv.Context.get_current() is top and cudyn.device_current() == 0
        drv.Context.pop()
        assert drv.Context.get_current() is not below
    finally:
        while drv.Context.get_current() is not None:
            drv.Context.pop()


def test_detaching_the_top_makes_the_one_below_current_and_counts_references():
    import cudyn
    import cudyn.pycuda.driver as drv
    below = drv.Device(0).make_context()
    top = drv.Device(1).make_context()
    try:
        top.attach()
        top.detach()               # one reference left: still current
        assert drv.Context.get_current() is top and cudyn.device_current() == 1
        top.detach()
        assert drv.Context.get_current() is below and cudyn.device_current() == 0
    finally:
        while drv.Context.get_current() is not None:
            drv.Context.pop()


def test_event_flags_are_cudyns_constants():
    import cudyn
    import cudyn.pycuda.driver as drv
    assert drv.event_flags.BLOCKING_SYNC == cudyn.EVENT_BLOCKING_SYNC
    assert drv.event_flags.DISABLE_TIMING == cudyn.EVENT_DISABLE_TIMING
    drv.Event(drv.event_flags.DISABLE_TIMING).record()


# ------------------------------------------------------------ issue 43: kernels written for nvcc

REAL_NVRTC = pytest.mark.skipif(os.environ.get("CUDYN_PYTEST_REAL_NVRTC") != "1", reason="no real NVRTC installed")


def test_nvcc_names_option_is_cudyn_hs():
    # the option the PyCUDA layer asks nvcc's predefined names with is the
    # one include/cudyn.h defines (CUDYN_OPTION_NVCC_NAMES)
    import re

    from cudyn import _codegen
    from conftest import SRCDIR
    header = open(os.path.join(SRCDIR, "include", "cudyn.h")).read()
    name = re.search(r'#define CUDYN_NVCC_NAMES_HEADER "([^"]+)"', header).group(1)
    prefix = re.search(r'#define CUDYN_OPTION_NVCC_NAMES "([^"]+)" CUDYN_NVCC_NAMES_HEADER', header).group(1)
    assert _codegen.NVCC_NAMES == prefix + name == _codegen._cudyn._OPTION_NVCC_NAMES


def test_the_layers_texts_compile_with_nvccs_names_and_pycudas_headers():
    # on the mock NVRTC (which emulates --pre-include and in-memory
    # headers): what a PyCUDA text gets, and that a plain compile gets none of it
    import cudyn
    from cudyn import _codegen, _complex
    from cudyn.pycuda.compiler import SourceModule
    mod = SourceModule("#include <pycuda-helpers.hpp>\n__global__ void k(float *x, uint n) { }")
    assert mod.get_function("k").param_count == 2
    assert SourceModule("__global__ void k(float *x) { }", options=[_codegen.NVCC_NAMES, "-DX=1"])
    assert set(_complex.PYCUDA_HEADERS) == {"pycuda-complex.hpp", "pycuda-helpers.hpp"}
    with pytest.raises(cudyn.CompileError, match="pycuda-helpers.hpp"):  # cudyn's own compile: NVRTC's names only
        cudyn.SourceModule("#include <pycuda-helpers.hpp>\n__global__ void k(float *x) { }")
    a = _codegen.function('extern "C" __global__ void k(float *x) { }', "k")
    b = _codegen.function('extern "C" __global__ void k(float *x) { }', "k", nvcc=True)
    assert a.module is not b.module  # compiled apart: one text, two compiles


@REAL_NVRTC
def test_nvcc_era_texts_compile_with_the_real_nvrtc():
    # issue 43's findings, compiled by the toolkit's NVRTC and loaded by the
    # mock driver (which then refuses to run them): <math.h> and uint in a
    # SourceModule, <pycuda-complex.hpp> inside its extern "C", in an
    # ElementwiseKernel's preamble, a ReductionKernel's, a scan's and
    # characterize.sizeof's
    p = run_python(r"""
        import numpy as np, cudyn
        from cudyn import gpuarray as ga
        from cudyn.scan import InclusiveScanKernel
        from cudyn.pycuda.compiler import SourceModule
        from cudyn.pycuda.characterize import sizeof
        from cudyn.pycuda.elementwise import ElementwiseKernel
        from cudyn.pycuda.reduction import ReductionKernel
        c = ga.to_gpu(np.arange(6, dtype=np.complex64))
        f = ga.to_gpu(np.arange(6, dtype=np.float32))
        u = ga.to_gpu(np.arange(6, dtype=np.uint32))
        nvcc_era = '''
        #include <math.h>
        #include <stdint.h>
        #include <pycuda-complex.hpp>
        #include <pycuda-helpers.hpp>
        __global__ void k(float *x, uint n, pycuda::complex<float> *z, fp_tex_cdouble *unused)
        {
            uint i = threadIdx.x;
            if (i < n) x[i] = M_PI + INFINITY + INT_MAX + (int32_t)n + pycuda::abs(pycuda::exp(z[i]))
                              + pycuda::polar(1.0f, 2.0f).real();
        }'''
        cases = {
            "SourceModule": lambda: SourceModule(nvcc_era).get_function("k"),
            "ElementwiseKernel": lambda: ElementwiseKernel(
                "pycuda::complex<float> *z, float *y", "z[i] = pycuda::exp(z[i]) * (float)M_PI; y[i] = (uint)i",
                "elw", preamble="#include <math.h>\n#include <pycuda-complex.hpp>\n")(c, f),
            "ReductionKernel": lambda: ReductionKernel(np.float32, "0", "a + b", "x[i] * (ushort)M_E",
                                                       "const float *x", preamble="#include <cmath>\n")(f),
            "scan": lambda: InclusiveScanKernel(np.uint32, "cudyn_max_u(a, b)",
                                                preamble="#include <stdlib.h>\n__device__ uint cudyn_max_u(uint a,"
                                                " uint b) { return a > b ? a : b; }")(u),
            "sizeof": lambda: sizeof("fp_tex_cdouble", "#include <pycuda-helpers.hpp>"),
        }
        for name, run in cases.items():
            try:
                run()
                print(name, "ok")
            except cudyn.CompileError as e:
                print("compile error:", name, e.log)
            except cudyn.Error as e:
                print(name, "ok" if "emulate" in str(e) or "801" in str(e) else e)
        try:
            cudyn.SourceModule("__global__ void k(uint n) { }")  # cudyn's own: NVRTC's names only
        except cudyn.CompileError as e:
            print("plain:", '"uint" is undefined' in e.log)
        """, extra={"CUDYN_LIBNVRTC": None}, timeout=600)
    assert p.returncode == 0, p.stderr[-3000:]
    assert p.stdout.splitlines() == ["SourceModule ok", "ElementwiseKernel ok", "ReductionKernel ok", "scan ok",
                                     "sizeof ok", "plain: True"], p.stdout


# ------------------------------------------------------------ issue 43: DynamicModule, drv.Linker

def test_jit_options_become_the_linkers():
    import cudyn.pycuda.driver as drv
    from cudyn.pycuda import Unsupported
    o = drv.jit_option
    assert drv._link_options([(o.MAX_REGISTERS, 32), (o.OPTIMIZATION_LEVEL, 3), (o.GENERATE_DEBUG_INFO, 1),
                              (o.GENERATE_LINE_INFO, 0), (o.LOG_VERBOSE, 1)], log_verbose=True) == \
        ["-maxrregcount=32", "-O3", "-g", "-verbose"]
    assert drv._link_options({o.MAX_REGISTERS: 64}) == ["-maxrregcount=64"] and drv._link_options(None) == []
    for option, named in ((o.WALL_TIME, "WALL_TIME"), (o.TARGET, "current device"), (99, "not one of CUDA's")):
        with pytest.raises(Unsupported, match=named):
            drv.Linker(options=[(option, 1)])


def test_dynamic_module_links_with_the_drivers_linker_on_the_mock(tmp_path):
    # the mock's linker joins PTX and refuses libraries (it cannot emulate
    # them); nvJitLink, where installed, is kept away for the driver's
    from test_link import CALLEE_PTX, CALLER_PTX  # noqa: F401 (the child imports them)
    toolkit = tmp_path / "toolkit"
    (toolkit / "include").mkdir(parents=True)
    (toolkit / "include" / "cuda_runtime.h").write_text("")
    (toolkit / "lib64").mkdir()
    (toolkit / "lib64" / "libcudadevrt.a").write_bytes(b"!<arch>\n")
    (tmp_path / "libmine.a").write_bytes(b"!<arch>\n")
    code = """
        import sys, cudyn, cudyn.pycuda.driver as drv
        from cudyn.pycuda.compiler import DynamicModule
        from test_link import CALLEE_PTX, CALLER_PTX
        seen = []
        mod = DynamicModule(link_options=[(drv.jit_option.MAX_REGISTERS, 32)], log_verbose=True,
                            message_handler=lambda *a: seen.append(a))
        try:
            mod.get_function("k")
        except drv.LogicError as e:
            print("before link:", "link()" in str(e))
        linked = mod.add_data(CALLER_PTX, drv.jit_input_type.PTX, "caller.ptx").add_data(
            CALLEE_PTX.encode(), drv.jit_input_type.PTX).link()
        print(linked is mod, mod.get_function("k").param_count, mod.linker, [(ok, "linked" in info, error)
                                                                            for ok, info, error in seen])
        try:
            mod.add_stdlib("cudadevrt")
        except drv.LogicError as e:
            print("after link:", "already" in str(e))
        broken, seen[:] = DynamicModule(message_handler=lambda *a: seen.append(a)), []
        try:
            broken.add_data(CALLER_PTX, drv.jit_input_type.PTX).link()
        except cudyn.Error as e:
            print(e.status_name, [(ok, info, "twice" in error) for ok, info, error in seen])
        for lib, kwargs in (("cudadevrt", {}), ("mine", {"cuda_libdir": sys.argv[1]}), ("nothing", {})):
            try:
                DynamicModule(**kwargs).add_stdlib(lib)
            except FileNotFoundError as e:
                print(lib, "not found:", "libnothing.a" in str(e), "looked in" in str(e))
            except cudyn.Error as e:  # the mock refuses a library: it was found and given to the linker
                print(lib, "found:", e.status_name)
        mod = drv.module_from_buffer(CALLER_PTX.replace(".extern", "// ").encode(),
                                     options=[(drv.jit_option.OPTIMIZATION_LEVEL, 2)])
        print(mod.get_function("k").param_count)
        """
    env = {"CUDYN_LIBNVJITLINK": "/nonexistent/libnvJitLink.so.13", "CUDYN_TOOLKIT": str(toolkit),
           "PYTHONPATH": os.pathsep.join([os.path.dirname(__file__), os.environ.get("PYTHONPATH", "")])}
    p = run_python(code, extra=env, args=[str(tmp_path)])
    assert p.returncode == 0, p.stderr[-3000:]
    assert p.stdout.splitlines() == [
        "before link: True", "True 1 None [(True, True, '')]", "after link: True",
        "CUDYN_ERROR_LINK [(False, '', True)]", "cudadevrt found: CUDYN_ERROR_NOT_SUPPORTED",
        "mine found: CUDYN_ERROR_NOT_SUPPORTED", "nothing not found: True True", "1"], p.stdout


def test_add_stdlib_says_where_cudyn_looked():
    p = run_python("""
        from cudyn.pycuda.compiler import DynamicModule
        try:
            DynamicModule().add_stdlib("cudadevrt")
        except FileNotFoundError as e:
            print(e)
        """, extra={"CUDYN_TOOLKIT": "none", "CUDYN_LIBNVJITLINK": "/nonexistent/libnvJitLink.so.13"})
    assert p.returncode == 0, p.stderr
    assert "libcudadevrt.a was not found (dynamic parallelism needs it)" in p.stdout
    assert "CUDYN_TOOLKIT=none" in p.stdout and "install the CUDA toolkit" in p.stdout


def test_a_linked_source_gets_pycudas_headers_in_memory_and_its_compile_options():
    # the source goes to cudyn.Linker.add_source as written (in extern "C"),
    # PyCUDA's headers beside it in memory, as SourceModule has them; of
    # PyCUDA's nvcc options only what links is left out (-lineinfo compiles)
    from cudyn import _complex
    from cudyn.pycuda.compiler import DynamicModule, _rdc_options

    class Recorder:
        def add_source(self, *args):
            self.args = args

    mod = DynamicModule(include_dirs=["/opt/inc"])
    mod.linker = Recorder()
    source = '#include <pycuda-complex.hpp>\n__global__ void k();\n'
    mod.add_source(source, nvcc_options=["-rdc=true", "-lcudadevrt", "-lineinfo", "-DX=1"], name="mine.cu")
    assert mod.linker.args == ('extern "C" {\n' + source + '\n}\n',
                               ["--pre-include=cudyn/nvcc.h", "-lineinfo", "-DX=1", "-I/opt/inc"], "mine.cu",
                               _complex.PYCUDA_HEADERS)
    assert _rdc_options(["--library=cudadevrt", "--relocatable-device-code=true", "-dc", "-lm"], []) == \
        ["--pre-include=cudyn/nvcc.h"]
    with pytest.raises(TypeError, match="DynamicModule.add_source: nvcc_options is a list"):
        _rdc_options("-rdc=true", [])


@REAL_NVRTC
def test_dynamic_modules_link_with_the_real_nvrtc_nvjitlink_and_cudadevrt():
    # what PyCUDA's test_recursive_launch and test_jit_link_module do,
    # compiled by the toolkit's NVRTC, linked by its nvJitLink with its
    # libcudadevrt.a, and loaded by the mock driver (which cannot run them:
    # test_pycuda_gpu.py does)
    from test_pycuda_gpu import JIT_INNER, JIT_OUTER, RECURSIVE
    p = run_python(r"""
        import sys, cudyn
        t = cudyn.toolkit_info()
        if t["nvjitlink_status"] != "CUDYN_OK" or not t["cudadevrt"]:
            print("skip"); raise SystemExit(0)
        from cudyn.pycuda.compiler import DEFAULT_NVCC_FLAGS, DynamicModule, DynamicSourceModule
        RECURSIVE, JIT_OUTER, JIT_INNER = sys.argv[1:]
        mod = DynamicSourceModule(RECURSIVE, keep=True)
        print(mod.get_function("parent").name, mod.get_function("doubled_minus").name, mod.linker)
        mod = DynamicModule()
        for source in (JIT_OUTER, JIT_INNER):
            mod.add_source(source, nvcc_options=["-rdc=true", "-lcudadevrt", *DEFAULT_NVCC_FLAGS])
        print(mod.add_stdlib("cudadevrt").link().get_function("launcher").name, mod.get_function("ping").name)
        complex_cdp = DynamicSourceModule(
            '#include <pycuda-complex.hpp>\n'
            '__global__ void child(pycuda::complex<float> *z) { z[0] = pycuda::exp(z[0]); }\n'
            '__global__ void parent(pycuda::complex<float> *z, uint n) { child<<<1, 1>>>(z); }\n')
        print(complex_cdp.get_function("parent").name)
        try:
            DynamicSourceModule("#include <pycuda-helpers.hpp>\n\n__global__ void k(float *x) { undefined_name; }\n")
        except cudyn.CompileError as e:
            print(e.stderr.splitlines()[0])
        """, extra={"CUDYN_LIBNVRTC": None}, args=[RECURSIVE, JIT_OUTER, JIT_INNER], timeout=600)
    assert p.returncode == 0, p.stderr[-3000:]
    if p.stdout.strip() != "skip":
        assert p.stdout.splitlines() == ["parent doubled_minus None", "launcher ping", "parent",
                                         'kernel.ptx(4): error: identifier "undefined_name" is undefined'], p.stdout


# ------------------------------------------------------------ issue 43: the names PyCUDA programs reach first

def test_drivers_enums_have_cudas_values():
    import cudyn
    import cudyn.pycuda.driver as drv
    assert (drv.func_cache.PREFER_L1, drv.shared_config.EIGHT_BYTE_BANK_SIZE, drv.limit.STACK_SIZE,
            drv.limit.DEV_RUNTIME_PENDING_LAUNCH_COUNT, drv.jit_option.GENERATE_LINE_INFO,
            drv.jit_target.COMPUTE_90, drv.jit_fallback.PREFER_BINARY) == (2, 2, 0, 4, 13, 90, 1)
    assert drv.jit_input_type.PTX == cudyn.LINK_PTX and drv.jit_input_type.LIBRARY == cudyn.LINK_LIBRARY
    assert drv.mem_host_register_flags.READ_ONLY == 8
    header = os.path.join(os.environ.get("CUDA_HOME") or "/usr/local/cuda", "include", "cuda.h")
    if not os.path.isfile(header):
        return
    import re
    values = {m.group(1): int(m.group(2), 0) for m in re.finditer(r"\b(CU_\w+)\s*=\s*(0x[0-9a-fA-F]+|\d+)",
                                                                   open(header).read())}
    for enum, prefix in ((drv.func_cache, "CU_FUNC_CACHE_"), (drv.shared_config, "CU_SHARED_MEM_CONFIG_"),
                         (drv.limit, "CU_LIMIT_"), (drv.jit_option, "CU_JIT_")):
        for member in enum:
            assert values[prefix + member.name] == member.value, (enum, member)


def test_context_and_function_settings_are_refused_with_the_reason(drv):
    from cudyn.pycuda import Unsupported
    from cudyn.pycuda.compiler import SourceModule
    f = SourceModule(SCALE).get_function("scale")
    cases = [(lambda: drv.Context.set_limit(drv.limit.STACK_SIZE, 1 << 14), "driver's defaults"),
             (lambda: drv.Context.get_limit(drv.limit.MALLOC_HEAP_SIZE), "driver's defaults"),
             (lambda: drv.Context.set_cache_config(drv.func_cache.PREFER_L1), "cache preference"),
             (lambda: drv.Context.get_cache_config(), "cache preference"),
             (lambda: drv.Context.set_shared_config(drv.shared_config.FOUR_BYTE_BANK_SIZE), "4 bytes"),
             (lambda: drv.Context.get_shared_config(), "4 bytes"),
             (lambda: f.set_cache_config(drv.func_cache.PREFER_SHARED), "driver's default"),
             (lambda: f.set_shared_config(drv.shared_config.DEFAULT_BANK_SIZE), "4 bytes"),
             (lambda: f.set_attribute(drv.function_attribute.MAX_THREADS_PER_BLOCK, 1), "48 KiB"),
             (lambda: drv.register_host_memory(np.zeros(4), drv.mem_host_register_flags.DEVICEMAP),
              "pagelocked_empty")]
    for call, why in cases:
        with pytest.raises(Unsupported, match=why):
            call()


def test_compile_errors_carry_the_log_as_stderr():
    import cudyn
    import cudyn.pycuda.driver as drv
    from cudyn.pycuda.compiler import SourceModule
    with pytest.raises(drv.CompileError) as info:
        SourceModule("#include <no_such_header.h>\n__global__ void k() { }")
    assert info.value.stderr == info.value.log and "no_such_header.h" in info.value.stderr
    assert cudyn.CompileError("by hand").stderr is None


def test_too_few_arguments_name_what_the_call_gave(drv):
    import cudyn
    from cudyn.pycuda.compiler import SourceModule
    f = SourceModule(SCALE).get_function("scale")
    for args, given in (((np.float32(1),), "1 given (float32)"), ((drv.Out(np.zeros(4, np.float32)),), "(Out)"),
                        ((), "0 given (none)"), ((np.float32(1), drv.mem_alloc(4), np.uint64(1), 2), "4 given")):
        with pytest.raises(cudyn.LaunchArgumentError) as info:
            f(*args, block=(1, 1, 1))
        assert str(info.value).startswith("scale takes 3 arguments, ") and given in str(info.value)
        assert '">"' not in str(info.value) and info.value.status_name == "CUDYN_ERROR_INVALID_LAUNCH_ARGUMENTS"
        assert isinstance(info.value, TypeError) and info.value.message == str(info.value)


def test_linear_combination_kernel():
    from cudyn.pycuda import Unsupported, gpuarray
    from cudyn.pycuda.elementwise import get_elwise_module, get_linear_combination_kernel
    from cudyn.pycuda.tools import ScalarArg, VectorArg
    summands = ((False, np.float32, np.float32), (False, np.float64, np.float32))  # the mock: no pycuda::complex
    kernel, texrefs = get_linear_combination_kernel(summands, np.float64)
    assert texrefs == [] and kernel.param_count == 6 and kernel.name == "linear_combination"
    assert get_linear_combination_kernel(summands, np.float64)[0] is kernel  # per device, once
    with pytest.raises(Unsupported, match="texture reference"):
        get_linear_combination_kernel(((True, np.float32, np.float32),), np.float32)
    args = [ScalarArg(np.float32, "a0"), VectorArg(np.float32, "x0"), VectorArg(np.float32, "z"),
            ScalarArg(np.uintp, "n")]
    assert "".join(a.struct_char for a in args) == "fPPQ"
    code = get_elwise_module(args, "z[i] = a0 * x0[i]", "lc", preamble="// mine").code
    assert "extern \"C\" __global__ void lc(float a0, float *x0, float *z, unsigned long long n)" in code
    assert "// mine" in code and "z[i] = a0 * x0[i];" in code and "total_threads" in code
    x = gpuarray.zeros(1000, np.float32)
    assert x._grid[0] >= 1 and x._grid[1] == 1 and x._block == (256, 1, 1)


# ------------------------------------------------------------ issue 43: cuRAND's device API

GENERATORS = ("XORWOWRandomNumberGenerator", "MRG32k3aRandomNumberGenerator", "Philox4_32_10RandomNumberGenerator",
              "Sobol32RandomNumberGenerator", "ScrambledSobol32RandomNumberGenerator", "Sobol64RandomNumberGenerator",
              "ScrambledSobol64RandomNumberGenerator")


def test_curand_without_its_headers_is_refused_saying_what_to_install():
    p = run_python("""
        import sys, cudyn.curandom, cudyn.pycuda.curandom as curandom
        from cudyn.pycuda import Unsupported
        print(curandom.get_curand_version())
        for name in sys.argv[1:]:
            assert getattr(curandom, name) is getattr(cudyn.curandom, name), name
            try:
                getattr(curandom, name)()
            except Unsupported as e:
                print(name, all(w in str(e) for w in ("curand_kernel.h", "CUDA toolkit", "nvidia-curand-cu13",
                                                      "CUDYN_TOOLKIT=none")))
        """, extra={"CUDYN_TOOLKIT": "none"}, args=GENERATORS)
    assert p.returncode == 0, p.stderr
    assert p.stdout.splitlines() == ["None"] + [f"{name} True" for name in GENERATORS]


def test_curand_version_and_sobols_tables_need_curands_files(tmp_path):
    # a toolkit with cuRAND's headers and no host library: the version is
    # its curand.h's, the Sobol tables are refused naming libcurand.so
    include = tmp_path / "include"
    include.mkdir()
    for name in ("cuda_runtime.h", "curand_kernel.h"):
        (include / name).write_text("")
    (include / "curand.h").write_text("#define CURAND_VER_MAJOR 10\n#define CURAND_VER_MINOR 3\n"
                                      "#define CURAND_VER_PATCH 7\n")
    p = run_python("""
        from cudyn import curandom
        from cudyn.pycuda import Unsupported
        print(curandom.get_curand_version())
        for make in (lambda: curandom.generate_direction_vectors(4), lambda: curandom.generate_scramble_constants64(4)):
            try:
                make()
            except Unsupported as e:
                print("refused:", "libcurand.so" in str(e), "dir_vector=" in str(e), "not computed" in str(e))
        """, extra={"CUDYN_TOOLKIT": str(tmp_path)})
    assert p.returncode == 0, p.stderr
    assert p.stdout.splitlines() == ["(10, 3, 7)", "refused: True True True", "refused: True True True"]


def test_curand_draw_plans():
    from cudyn.curandom import _draw_kernel
    plans = [(("uniform", np.float32, 10, True, 32), ("uniform_float", 10)),
             (("uniform", np.uint32, 10, False, 32), ("uniform_int", 10)),
             (("uniform", np.int64, 10, False, 64), ("uniform_long", 10)),
             (("normal", np.float64, 10, True, 32), ("normal_double2", 5)),   # Box-Muller pairs
             (("normal", np.float64, 11, True, 32), ("normal_double", 11)),   # odd: one at a time
             (("normal", np.float32, 10, False, 32), ("normal_float", 10)),   # Sobol: no pairs
             (("log_normal", np.float32, 4, True, 32), ("log_normal_float2", 2)),
             (("poisson", np.uint32, 7, True, 32), ("poisson", 7)),
             (("poisson", np.float64, 7, True, 32, True), ("poisson_inplace_double", 7))]
    for args, plan in plans:
        assert _draw_kernel(*args) == plan, args
    for args in (("uniform", np.int64, 10, False, 32), ("normal", np.int32, 10, True, 32),
                 ("poisson", np.float32, 10, True, 32), ("uniform", np.complex64, 10, True, 64)):
        with pytest.raises(NotImplementedError):
            _draw_kernel(*args)


def test_curand_sources():
    from cudyn import curandom
    sources = {name: getattr(curandom, name)._plan() for name in GENERATORS}
    xorwow, names = sources["XORWOWRandomNumberGenerator"]
    assert "typedef curandStateXORWOW cudyn_state;" in xorwow and "#include <curand_kernel.h>" in xorwow
    assert "curand_init((unsigned int)seeds[g], g, offset, &s)" in xorwow and "uniform_long" not in names
    assert {"init", "normal_float2", "skip_ahead_sequence_array", "poisson_inplace_int"} <= set(names)
    sobol32, names = sources["Sobol32RandomNumberGenerator"]
    assert "curand_init(vectors[g], (unsigned int)offset, &s)" in sobol32 and "curandDirectionVectors32_t" in sobol32
    assert "unsigned int distance" in sobol32 and "normal_float2" not in names and "skip_ahead_sequence" not in names
    scrambled64, names = sources["ScrambledSobol64RandomNumberGenerator"]
    assert "curand_init(vectors[g], scramble[g], (unsigned long long)offset, &s)" in scrambled64
    assert "uniform_long" in names and "const unsigned long long *scramble" in scrambled64
    assert "skip_ahead_subsequence" in sources["MRG32k3aRandomNumberGenerator"][1]
    assert "curandStatePhilox4_32_10_t" in sources["Philox4_32_10RandomNumberGenerator"][0]
    for source, names in sources.values():
        for name in names:
            assert f"void cudyn_curand_{name}(" in source, name


@REAL_NVRTC
def test_curand_generators_compile_with_the_real_nvrtc_and_sobols_tables_come_from_libcurand():
    # every generator's kernels compiled by the toolkit's NVRTC with its
    # curand_kernel.h (the mock driver loads them; making a generator runs
    # its init kernel, which test_pycuda_gpu.py does), and the direction
    # vectors and scramble constants from its libcurand.so
    p = run_python("""
        import sys, numpy as np, cudyn
        from cudyn import curandom
        if curandom.get_curand_version() is None:
            print("skip"); raise SystemExit(0)
        for name in sys.argv[1:]:
            source, kernels = getattr(curandom, name)._plan()
            module = cudyn.Module.from_source(source, no_extern_c=True)
            print(name, all(module.get_function("cudyn_curand_" + k).name for k in kernels))
        if curandom._host_library() is None:
            print("no libcurand"); raise SystemExit(0)
        v = curandom.generate_direction_vectors(20001).get()
        print(v.shape, v.dtype, (v[0] == 2 ** (31 - np.arange(32))).all(), (v[20000] == v[0]).all(),
              (v[1] != v[0]).any())
        v = curandom.generate_direction_vectors(3, curandom.direction_vector_set.SCRAMBLED_VECTOR_64).get()
        s = curandom.generate_scramble_constants32(20001).get()
        print(v.shape, v.dtype, s.shape, s.dtype, s[20000] == s[0])
        """, extra={"CUDYN_LIBNVRTC": None}, args=GENERATORS, timeout=600)
    assert p.returncode == 0, p.stderr[-3000:]
    if p.stdout.strip() != "skip":
        lines = p.stdout.splitlines()
        assert lines[:7] == [f"{name} True" for name in GENERATORS], p.stdout
        assert lines[7:] in (["no libcurand"], ["(20001, 32) uint32 True True True",
                                                "(3, 64) uint64 (20001,) uint32 True"]), p.stdout
