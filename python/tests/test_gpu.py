"""On a real GPU (child interpreters without the mock): gpuarray for every
dtype, and zero-copy interop with CuPy and PyTorch.  Skips without a GPU."""

import pytest

from conftest import run_python

pytestmark = pytest.mark.gpu


def gpu_run(code, real_gpu):
    p = run_python(code, mock=False, timeout=600)
    if p.returncode == 77:
        pytest.skip(p.stdout.strip().splitlines()[-1])
    assert p.returncode == 0, p.stdout + p.stderr
    return p.stdout


def test_gpuarray_arithmetic_all_dtypes(real_gpu):
    out = gpu_run("""
        import numpy as np, cudyn
        from cudyn import gpuarray as ga
        for dt in (np.float32, np.float64, np.int32, np.int64, np.uint8, np.int16):
            x = (np.arange(1, 3001) % 100 + 1).astype(dt)
            y = (np.arange(3000) % 7 + 1).astype(dt)
            dx, dy = ga.to_gpu(x), ga.to_gpu(y)
            for got, want in (((2 * dx).get(), 2 * x), ((dx + dy).get(), x + y), ((dx - dy).get(), x - y),
                              ((dx * dy).get(), x * y), ((dx / dy).get(), x / y), ((-dx).get(), -x),
                              ((dx * 3 + dy).get(), x * 3 + y)):
                assert got.dtype == want.dtype, (dt, got.dtype, want.dtype)
                np.testing.assert_allclose(got, want, rtol=1e-6)
            assert ga.sum(dx).get() == x.sum(), dt
            assert ga.max(dx).get() == x.max() and ga.min(dx).get() == x.min()
            got, want = ga.dot(dx, dy).get(), np.dot(x, y)   # integers wrap as numpy's do
            assert got.dtype == want.dtype, (dt, got.dtype)
            np.testing.assert_allclose(got, want, rtol=1e-5)
        nan = ga.to_gpu(np.array([1, np.nan, 3], np.float32))
        assert np.isnan(ga.max(nan).get()) and np.isnan(ga.min(nan).get())
        big = ga.to_gpu(np.ones(1 << 22, np.float32))   # every partial sum an integer below 2^24: exact
        assert ga.sum(2 * big + big).get() == 3 * (1 << 22)
        print("ok")
        """, real_gpu)
    assert out.split() == ["ok"]


def test_cupy_interop_same_pointer_both_ways(real_gpu):
    out = gpu_run("""
        import sys
        import numpy as np, cudyn
        try:
            import cupy as cp
        except ImportError as e:
            print("skip cupy not importable:", e); sys.exit(77)
        from cudyn import gpuarray as ga
        c = cp.arange(1 << 20, dtype=cp.float32)
        g = cudyn.asarray(c)                      # CuPy -> cudyn, array interface
        assert g.ptr == c.data.ptr
        g2 = cudyn.from_dlpack(c)                 # CuPy -> cudyn, DLPack
        assert g2.ptr == c.data.ptr
        x = ga.to_gpu(np.arange(1000, dtype=np.float32))
        cx = cp.asarray(x)                        # cudyn -> CuPy, array interface
        assert cx.data.ptr == x.ptr
        cd = cp.from_dlpack(x)                    # cudyn -> CuPy, DLPack
        assert cd.data.ptr == x.ptr
        cx *= 2                                   # writes seen through the other
        cp.cuda.runtime.deviceSynchronize()
        np.testing.assert_array_equal(x.get(), 2 * np.arange(1000, dtype=np.float32))
        y = 2 * ga.GPUArray(g.shape, g.dtype, ptr=g.ptr, owner=g)
        np.testing.assert_array_equal(y.get(), 2 * cp.asnumpy(c))
        print("ok")
        """, real_gpu)
    assert out.split() == ["ok"]


def test_torch_interop_same_pointer_both_ways(real_gpu):
    out = gpu_run("""
        import sys
        import numpy as np, cudyn
        try:
            import torch
        except ImportError as e:
            print("skip torch not importable:", e); sys.exit(77)
        if not torch.cuda.is_available():
            print("skip torch sees no GPU"); sys.exit(77)
        from cudyn import gpuarray as ga
        t = torch.arange(4096, dtype=torch.float32, device="cuda")
        g = cudyn.from_dlpack(t)                  # torch -> cudyn
        assert g.ptr == t.data_ptr()
        g2 = cudyn.asarray(t)
        assert g2.ptr == t.data_ptr()
        x = ga.to_gpu(np.arange(100, dtype=np.float64))
        tt = torch.from_dlpack(x)                 # cudyn -> torch
        assert tt.data_ptr() == x.ptr and tt.dtype == torch.float64
        tt.mul_(3)
        torch.cuda.synchronize()
        np.testing.assert_array_equal(x.get(), 3 * np.arange(100))
        ta = torch.as_tensor(x, device="cuda")    # through __cuda_array_interface__
        assert ta.data_ptr() == x.ptr
        print("ok")
        """, real_gpu)
    assert out.split() == ["ok"]


def test_compile_log_and_ptxas_report(real_gpu):
    out = gpu_run("""
        import cudyn
        m = cudyn.SourceModule("__global__ void k(float *x) { x[threadIdx.x] *= 2; }",
                               options=["--ptxas-options=-v"])
        print("registers" in m.log.lower() or "ptxas" in m.log.lower(), m.target.startswith(("sm_", "compute_")))
        """, real_gpu)
    assert out.split() == ["True", "True"]


def test_float16_and_complex_arguments(real_gpu):
    out = gpu_run("""
        import numpy as np, cudyn
        # a header of C++ overloads cannot sit inside extern "C" (PyCUDA's rule too)
        m = cudyn.SourceModule('''
        #include <cuda_fp16.h>
        struct c64 { float re, im; };
        extern "C" __global__ void k(__half h, c64 c, double2 z, float *out)
        { out[0] = __half2float(h); out[1] = c.re; out[2] = c.im; out[3] = (float)z.x; out[4] = (float)z.y; }''',
                               no_extern_c=True)
        out = cudyn.gpuarray.zeros(5, np.float32)
        m.get_function("k")(np.float16(1.5), np.complex64(2 + 3j), np.complex128(4 - 5j), out, grid=(1,), block=(1,))
        print(*out.get())
        """, real_gpu)
    assert out.split() == ["1.5", "2.0", "3.0", "4.0", "-5.0"]


def test_float16_packed_and_unpacked_by_the_module(real_gpu):
    # Python floats packed as binary16 by the module itself (the limited API
    # has no PyFloat_Pack2), and a __half reduction's result unpacked by it
    out = gpu_run("""
        import numpy as np, cudyn
        m = cudyn.SourceModule('''
        #include <cuda_fp16.h>
        extern "C" __global__ void widen(__half a, __half b, float *out)
        { out[0] = __half2float(a); out[1] = __half2float(b); }''', no_extern_c=True)
        out = cudyn.gpuarray.zeros(2, np.float32)
        m.get_function("widen").prepare("eeP")((1,), (1,), 0.1, -65504.0, out)
        hsum = cudyn.Reduction("__half", "0", "a + b", "x[i]", "const __half *x", "hsum")
        x = cudyn.gpuarray.to_gpu(np.full(64, 0.375, np.float16))
        print(*(float(v) for v in out.get()), hsum.run(64, x))
        """, real_gpu)
    assert [float(v) for v in out.split()] == [0.0999755859375, -65504.0, 24.0]  # 0.1 as binary16


def test_name_expressions_and_globals(real_gpu):
    out = gpu_run("""
        import numpy as np, cudyn
        mod = cudyn.SourceModule('''
        __device__ float table[16];
        template <typename T> __global__ void scale(T a, T *x, size_t n)
        {
            size_t i = blockIdx.x * blockDim.x + threadIdx.x;
            if (i < n) x[i] *= a + (T)table[0];
        }''', no_extern_c=True, name_expressions=["scale<float>", "scale<double>"])
        ptr, nbytes = mod.get_global("table")
        assert nbytes == 64
        cudyn.memcpy_htod(ptr, np.zeros(16, np.float32))
        x = cudyn.gpuarray.to_gpu(np.arange(32, dtype=np.float32))
        mod.get_function("scale<float>")(np.float32(3), x, np.uint64(32), grid=(1,), block=(32,))
        y = cudyn.gpuarray.to_gpu(np.arange(8, dtype=np.float64))
        mod.get_function("scale<double>")(np.float64(0.5), y, np.uint64(8), grid=(1,), block=(8,))
        print(mod.lowered_name("scale<float>"), (x.get() == 3 * np.arange(32)).all(),
              (y.get() == 0.5 * np.arange(8)).all())
        """, real_gpu)
    assert out.split() == ["_Z5scaleIfEvT_PS0_m", "True", "True"]
