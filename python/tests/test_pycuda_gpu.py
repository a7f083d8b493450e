"""What cudyn added for PyCUDA's programs, on a real GPU, against numpy:
gpuarray's general operations (complex numbers, comparisons and logic,
broadcasting, strided and Fortran-order operands, out= of another dtype),
cumath, reductions of every kind, scans, curandom.rand, gathers and
joins, copies of views, the layer's ElementwiseKernel and
ReductionKernel, and the kernel times time_kernel=True and
prepared_timed_call give; issue 43's: kernels written for nvcc, dynamic
parallelism through DynamicModule, the linear combination kernel, JIT
options, cuRAND's generators.  Each test runs in a child interpreter on the GPU and
skips without one (the mock cannot run these generated kernels)."""

import textwrap

import pytest

from conftest import run_python

pytestmark = pytest.mark.gpu

PRELUDE = """
import numpy as np
import cudyn
from cudyn import gpuarray as ga, cumath
rng = np.random.default_rng(7)

def rand(shape, dtype):
    dtype = np.dtype(dtype)
    if dtype.kind == "c":
        return (rng.random(shape) + 1j * rng.random(shape) + 0.1).astype(dtype)
    if dtype.kind in "iu":
        return rng.integers(1, 40, shape).astype(dtype)
    if dtype.kind == "b":
        return rng.random(shape) > 0.5
    return (rng.random(shape) + 0.1).astype(dtype)

def same(got, want, rtol=2e-6, what=""):
    got = got.get() if hasattr(got, "get") else got
    assert got.dtype == np.asarray(want).dtype, (what, got.dtype, np.asarray(want).dtype)
    assert got.shape == np.shape(want), (what, got.shape, np.shape(want))
    np.testing.assert_allclose(got, want, rtol=rtol, atol=1e-12, err_msg=str(what))
"""


# relocatable sources for DynamicModule, as PyCUDA's DynamicSourceModule
# and DynamicModule take them (each wrapped in extern "C"): a kernel that
# launches another one of its source, and one that launches a kernel of
# another source (test_pycuda.py compiles and links them without a GPU)
RECURSIVE = """
__device__ long plus_one(long v) { return v + 1; }
__global__ void doubled_minus(long *a, const long *b, long *d)
{
    int k = threadIdx.x;
    a[k] *= 2;
    d[k] = a[k] - b[k];
}
__global__ void parent(long *a, const long *b, long *c, long *d)
{
    int k = threadIdx.x;
    c[k] = plus_one(a[k]) + b[k];
    __syncthreads();  /* every c[k] has read its a[k] before the child doubles it */
    if (k == 0)
        doubled_minus<<<1, blockDim.x>>>(a, b, d);
}
"""
JIT_OUTER = """#include <cstdio>
extern __global__ void ping(int *hits);
__global__ void launcher(int *hits)
{
    printf("launcher block %d\\n", (int)blockIdx.x);
    ping<<<2, 1>>>(hits);
}
"""
JIT_INNER = """#include <cstdio>
__global__ void ping(int *hits)
{
    atomicAdd(hits, 1);
}
"""


def needs_toolkit(what):
    """Skips unless cudyn finds the toolkit's ``what`` ("cudadevrt": libcudadevrt.a, "curand": curand_kernel.h)."""
    p = run_python("""
        import sys, cudyn
        if sys.argv[1] == "cudadevrt":
            print(bool(cudyn.toolkit_info()["cudadevrt"]))
        else:
            from cudyn import curandom
            print(curandom.get_curand_version() is not None)
        """, mock=False, args=[what])
    if p.stdout.strip() != "True":
        pytest.skip(f"cudyn finds no {what} of a CUDA toolkit here ({p.stdout.strip() or p.stderr[-200:]})")


def on_gpu(code, timeout=600):
    p = run_python(PRELUDE + textwrap.dedent(code) + "\nprint('done')\n", mock=False, timeout=timeout)
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr[-6000:]
    assert p.stdout.strip().splitlines()[-1] == "done"


def test_binary_operations_of_every_dtype_pair(real_gpu):
    on_gpu("""
        import operator
        dtypes = [np.int32, np.int64, np.float32, np.float64, np.complex64, np.complex128]
        ops = [operator.add, operator.sub, operator.mul, operator.truediv]
        for l in dtypes:
            for r in dtypes:
                x, y = rand((10, 4), l), rand((10, 4), r)
                for op in ops:
                    same(op(ga.to_gpu(x), ga.to_gpu(y)), op(x, y), 2e-5, (op, l, r))
                for scalar in (3, 2.5, 2j, np.float32(2), np.complex64(1 + 1j)):
                    if np.dtype(l).kind in "iu" and isinstance(scalar, complex):
                        continue
                    same(ga.to_gpu(x) * scalar, x * scalar, 2e-5, (l, scalar))
                    same(scalar - ga.to_gpu(x), scalar - x, 2e-5, (scalar, l))
        x = rand((6, 5), np.float32)
        same(ga.to_gpu(x) ** ga.to_gpu(x.astype(np.float64)), x ** x.astype(np.float64), 1e-6, "pow")
        same(2.5 ** ga.to_gpu(x), np.float32(2.5) ** x, 1e-6, "rpow")
        c = rand(7, np.complex64)
        same(ga.to_gpu(c) ** 2, c ** 2, 1e-5, "complex pow")
    """)


def test_broadcasting_and_layouts(real_gpu):
    on_gpu("""
        x = rand((6, 8), np.float32)
        d = ga.to_gpu(x)
        same(d * ga.to_gpu(np.array(2.0)), x.astype(np.float64) * 2, what="0-d float64")  # numpy 2's rule
        same(ga.to_gpu(np.array([3], np.int64)) + d, np.array([3]) + x, what="size-1 int64")
        same(d + ga.to_gpu(x[:, :1]), x + x[:, :1], what="(6,1)")
        same(ga.to_gpu(x[:1]) - ga.to_gpu(x[:, :1]), x[:1] - x[:, :1], what="(1,8)-(6,1)")
        same(d[::2, 1::3] * 3, x[::2, 1::3] * 3, what="steps")
        same(d.T + d.T, x.T + x.T, what="transpose")
        same(d[::-1] - 1, x[::-1] - 1, what="reversed")
        f = ga.to_gpu(np.asfortranarray(x))
        r = f * f
        assert r.flags.f_contiguous
        same(r, x * x, what="fortran")
        same(f + d, x + x, what="fortran + C")
        y = d.copy()
        y[1:4, ::2] += 10
        z = x.copy()
        z[1:4, ::2] += 10
        same(y, z, what="in place on a view")
        w = ga.to_gpu(x.copy())
        w **= ga.to_gpu(x.astype(np.float64))
        same(w, (x ** x.astype(np.float64)).astype(np.float32), 1e-6, "float32 **= float64")
        out = ga.empty((6, 8), np.float64)
        ga.maximum(d, 0.5, out=out)
        same(out, np.maximum(x, 0.5).astype(np.float64), what="out of another dtype")
        try:
            ga.to_gpu(np.zeros(3, np.int32)).__iadd__(1.5)
            raise AssertionError("int32 += 1.5 was allowed")
        except TypeError:
            pass
    """)


def test_comparisons_logic_and_selection(real_gpu):
    on_gpu("""
        import operator
        x, y = rand((5, 7), np.float32), rand((5, 7), np.float32)
        x[0, 0] = y[0, 0]
        dx, dy = ga.to_gpu(x), ga.to_gpu(y)
        for op in (operator.lt, operator.le, operator.eq, operator.ne, operator.gt, operator.ge):
            same(op(dx, dy), op(x, y), what=op)
            same(op(dx, 0.5), op(x, 0.5), what=(op, "scalar"))
            same(op(dx[:, ::2], dy[:, ::2]), op(x[:, ::2], y[:, ::2]), what=(op, "strided"))
        c = rand(9, np.complex128)
        same(ga.to_gpu(c) == ga.to_gpu(c.copy()), c == c, what="complex ==")
        for name in ("logical_and", "logical_or"):
            same(getattr(ga, name)(dx > 0.5, dy), getattr(np, name)(x > 0.5, y), what=name)
            same(getattr(ga, name)(dx, 0.0), getattr(np, name)(x, 0.0), what=name)
        same(ga.logical_not(dx > 0.5), np.logical_not(x > 0.5), what="not")
        n = x.copy()
        n[1, 2] = np.nan
        dn = ga.to_gpu(n)
        same(ga.maximum(dn, dy), np.maximum(n, y), what="maximum NaN")
        same(ga.minimum(0.3, dy), np.minimum(0.3, y), what="minimum scalar")
        same(ga.where(dx > 0.5, dx, dy), np.where(x > 0.5, x, y), what="where")
        same(ga.where(ga.to_gpu(np.array([1, 0, -1])), 2, ga.to_gpu(np.full(3, 3))), np.where([1, 0, -1], 2, 3),
             what="where scalars")
        same(ga.if_positive(dx - 0.5, dx, dy), np.where(x - 0.5 > 0, x, y), what="if_positive")
        for dtype in (np.int32, np.bool_, np.float32, np.float64, np.complex64):
            for a in (np.ones(10, dtype), np.zeros(10, dtype), rand(1000, dtype)):
                same(ga.to_gpu(a).any(), np.any(a), what=("any", dtype))
                same(ga.to_gpu(a).all(), np.all(a), what=("all", dtype))
        assert bool(ga.to_gpu(np.ones((1, 1)))) and not bool(ga.zeros((), np.float32))
    """)


def test_unary_operations_conversions_and_complex_parts(real_gpu):
    on_gpu("""
        for dtype in (np.float32, np.int64, np.complex64, np.complex128):
            a = rand((4, 6), dtype) - 0.5 * (np.dtype(dtype).kind != "i")
            d = ga.to_gpu(a)
            same(-d, -a, what=("neg", dtype))
            same(abs(d), np.abs(a), 1e-6, ("abs", dtype))
            same(-d[:, ::2], -a[:, ::2], what=("neg strided", dtype))
            same(d.real, a.real, what=("real", dtype))
            same(d.imag, a.imag, what=("imag", dtype))
            same(d.conj(), a.conj(), what=("conj", dtype))
            for target in (np.int32, np.float64, np.complex64):
                if np.dtype(dtype).kind == "c" and np.dtype(target).kind != "c":
                    continue
                same(d.astype(target), a.astype(target), 1e-6, ("astype", dtype, target))
                same(d.T.astype(target), a.T.astype(target), 1e-6, ("astype of a transpose", dtype, target))
        z = ga.to_gpu(rand(20, np.complex128))
        out = ga.empty(20, np.complex64)
        assert z.conj(out=out) is out
        same(out, z.get().conj().astype(np.complex64), 1e-6, "conj out")
        f = ga.zeros((3, 4), np.float32, order="F")
        assert f.real.flags.f_contiguous and f.imag.flags.f_contiguous
    """)


def test_cumath_every_function(real_gpu):
    on_gpu("""
        s = cudyn.Stream()
        for name, lo, hi, complex_too in (("exp", -3, 3, True), ("log", 0.01, 1, True), ("log10", 0.01, 1, True),
                                          ("sqrt", 0.01, 1, True), ("sin", -3, 3, True), ("cos", -3, 3, True),
                                          ("tan", -1.4, 1.4, True), ("sinh", -3, 3, True), ("cosh", -3, 3, True),
                                          ("tanh", -3, 3, True), ("asin", -0.9, 0.9, False),
                                          ("acos", -0.9, 0.9, False), ("atan", -10, 10, False),
                                          ("fabs", -10, 10, False), ("ceil", -10, 10, False),
                                          ("floor", -10, 10, False)):
            f = getattr(cumath, name)
            ref = getattr(np, {"asin": "arcsin", "acos": "arccos", "atan": "arctan"}.get(name, name))
            dtypes = [np.float32, np.float64] + ([np.complex64, np.complex128] if complex_too else [])
            for dtype in dtypes:
                a = (rng.random(1000) * (hi - lo) + lo).astype(dtype)
                if np.dtype(dtype).kind == "c":
                    a = a + 1j * (rng.random(1000) * (hi - lo) + lo) / 2
                d = ga.to_gpu(a)
                tol = 3e-6 if np.dtype(dtype) in (np.float32, np.complex64) else 1e-13
                same(f(d), ref(a), tol, (name, dtype))
                out = ga.empty_like(d)
                assert f(d, out=out, stream=s) is out
                s.synchronize()
                same(out, ref(a), tol, (name, dtype, "out"))
                same(f(d[::3]), ref(a[::3]), tol, (name, dtype, "strided"))
                assert f(d, out).dtype == d.dtype and f(d, s).dtype == d.dtype
        a = ga.arange(100, dtype=np.float32) / 10
        b = ga.arange(100, dtype=np.float32) / 45.2 + 0.1
        same(cumath.fmod(a, b), np.fmod(a.get(), b.get()), 0, "fmod")
        same(cumath.ldexp(a, b * 10), np.ldexp(a.get(), (b.get() * 10).astype(np.int32)), 0, "ldexp")
        frac, whole = cumath.modf(a)
        same(frac, np.modf(a.get())[0], 0, "modf frac")
        same(whole, np.modf(a.get())[1], 0, "modf whole")
        m, e = cumath.frexp(a)
        same(m, np.frexp(a.get())[0], 0, "frexp")
        same(e, np.frexp(a.get())[1], 0, "frexp exponent")
    """)


def test_reductions_of_every_kind(real_gpu):
    on_gpu("""
        from cudyn import _dtypes
        from cudyn.pycuda.reduction import ReductionKernel
        from cudyn.pycuda.tools import DeviceMemoryPool, register_dtype
        x = rand((300, 7), np.float64)
        d = ga.to_gpu(x)
        for view, ref in ((d, x), (d.T, x.T), (d[::3, 1:], x[::3, 1:]), (ga.to_gpu(np.asfortranarray(x)), x)):
            same(ga.sum(view), ref.sum(), 1e-12, "sum")
            same(ga.max(view), ref.max(), 0, "max")
            same(ga.min(view), ref.min(), 0, "min")
        same(ga.dot(d.T, ga.to_gpu(x.T.copy())), np.dot(x.T.ravel(), x.T.ravel()), 1e-12, "dot of a transpose")
        c = rand(5000, np.complex64)
        same(ga.sum(ga.to_gpu(c)), c.sum(dtype=np.complex64), 1e-5, "complex sum")
        same(ga.dot(ga.to_gpu(c), ga.to_gpu(c)), np.dot(c, c), 1e-5, "complex dot")
        idx = np.arange(0, 2100, 3).astype(np.int32)
        for dtype in (np.float64, np.float32, np.int32):
            a = rand(2100, dtype)
            da, di = ga.to_gpu(a), ga.to_gpu(idx)
            same(ga.subset_sum(di, da), a[idx].sum(dtype=_dtypes.sum_type(np.dtype(dtype))), 1e-6,
                 ("subset_sum", dtype))
            same(ga.subset_max(di, da), a[idx].max(), 0, ("subset_max", dtype))
            same(ga.subset_min(di, da), a[idx].min(), 0, ("subset_min", dtype))
            same(ga.subset_dot(di, da, da), np.dot(a[idx], a[idx]).astype(dtype), 1e-6, ("subset_dot", dtype))
        pool, uses = DeviceMemoryPool(), []
        def allocator(n):
            uses.append(n)
            return pool.allocate(n)
        same(ga.sum(d, allocator=allocator), x.sum(), 1e-12, "sum with an allocator")
        assert len(uses) == 1
        mmc = np.dtype([("cur_min", np.float32), ("cur_max", np.float32)])
        register_dtype(mmc, "mm_pair")
        preamble = '''
        struct mm_pair { float cur_min, cur_max;
            __device__ mm_pair() {}
            __device__ mm_pair(float a, float b) : cur_min(a), cur_max(b) {} };
        __device__ mm_pair agg(mm_pair a, mm_pair b)
        { return mm_pair(fminf(a.cur_min, b.cur_min), fmaxf(a.cur_max, b.cur_max)); }
        '''
        y = rand(20000, np.float32)
        red = ReductionKernel(mmc, "mm_pair(1e30f, -1e30f)", "agg(a, b)", "mm_pair(x[i], x[i])", "const float *x",
                              preamble=preamble)
        r = red(ga.to_gpu(y)).get()
        assert r["cur_min"] == y.min() and r["cur_max"] == y.max()
        m = ga.empty(10, np.float32)
        mx = ReductionKernel(np.float32, 0, "max(a, b)", arguments="float *in")
        rows = ga.to_gpu(rand((10, 200), np.float32))
        for i in range(10):
            mx(rows[i], out=m[i])
        same(m, rows.get().max(axis=1), 0, "reduce out=")
    """)


def test_scans(real_gpu):
    on_gpu("""
        from cudyn.scan import ExclusiveScanKernel, InclusiveScanKernel
        for cls in (InclusiveScanKernel, ExclusiveScanKernel):
            k = cls(np.int64, "a + b", "0")
            for n in (1, 255, 256, 257, 10000, (1 << 20) + 5):
                h = rng.integers(0, 10, n).astype(np.int64)
                d = ga.to_gpu(h)
                want = np.cumsum(h) - (h if cls is ExclusiveScanKernel else 0)
                assert k(d) is d
                same(d, want, 0, (cls.__name__, n))
                out = ga.empty_like(d)
                k(ga.to_gpu(h), out)
                same(out, want, 0, (cls.__name__, n, "out of place"))
        # the order of the operands is kept: "the first nonzero" is associative, not commutative
        first = InclusiveScanKernel(np.int32, "a != 0 ? a : b")
        h = np.where(rng.random(5000) < 0.01, rng.integers(1, 9, 5000), 0).astype(np.int32)
        h[0] = 0
        want = np.zeros_like(h)
        seen = 0
        for k, v in enumerate(h):
            seen = seen or v
            want[k] = seen
        same(first(ga.to_gpu(h)), want, 0, "ordered")
        mx = InclusiveScanKernel(np.float32, "fmaxf(a, b)")
        h = rand(5000, np.float32)
        same(mx(ga.to_gpu(h)), np.maximum.accumulate(h), 0, "max scan")
    """)


def test_rand(real_gpu):
    on_gpu("""
        from cudyn import curandom
        for dtype in (np.float32, np.float64):
            a = curandom.rand((1000, 100), dtype).get()
            assert a.dtype == dtype and a.shape == (1000, 100)
            assert (a >= 0).all() and (a < 1).all() and abs(a.mean() - 0.5) < 0.01 and len(np.unique(a)) > 90000
        b = curandom.rand(100000, np.uint32).get()
        assert b.dtype == np.uint32 and b.max() > 4e9 and len(np.unique(b)) > 99000
        assert not np.array_equal(curandom.rand(100).get(), curandom.rand(100).get())
        np.random.seed(3); one = curandom.rand(50).get()
        np.random.seed(3); two = curandom.rand(50).get()
        assert np.array_equal(one, two)
    """)


def test_gathers_and_joins(real_gpu):
    on_gpu("""
        a = rand(1000, np.float32)
        idx = rng.integers(0, 1000, 300).astype(np.uint32)
        da, di = ga.to_gpu(a), ga.to_gpu(idx)
        same(ga.take(da, di), a[idx], 0, "take")
        b = rand(1000, np.complex64)
        t = ga.multi_take([da, ga.to_gpu(b)], di)
        same(t[0], a[idx], 0, "multi_take")
        same(t[1], b[idx], 0, "multi_take complex")
        dest = np.arange(300, dtype=np.int32)[::-1].copy()
        put = ga.multi_put([ga.to_gpu(a[:300])], ga.to_gpu(dest), dest_shape=(300,))
        want = np.zeros(300, np.float32)
        want[dest] = a[:300]
        same(put[0], want, 0, "multi_put")
        src = np.array([7, 6, 5, 4, 3, 2, 1, 0], np.uint32)
        dst = np.array([0, 1, 2, 3, 32, 33, 34, 35], np.uint32)
        bufs = ga.multi_take_put([da, da], ga.to_gpu(dst), ga.to_gpu(src), dest_shape=(40,), src_offsets=[0, 8])
        for k, buf in enumerate(bufs):
            want = np.zeros(40, np.float32)
            want[dst] = a[src + 8 * k]
            same(buf, want, 0, ("multi_take_put", k))
        x, y = rand((3, 4, 5), np.float32), rand((3, 2, 5), np.float64)
        same(ga.concatenate((ga.to_gpu(x), ga.to_gpu(y)), axis=1), np.concatenate((x, y), axis=1), 0, "concat axis 1")
        same(ga.concatenate((ga.to_gpu(x), ga.to_gpu(x)), axis=-1), np.concatenate((x, x), axis=-1), 0, "axis -1")
        f = np.asfortranarray(rand((2, 2), np.float64))
        same(ga.stack((ga.to_gpu(f), ga.to_gpu(f * 2)), axis=-1), np.stack((f, f * 2), axis=-1), 0, "stack F")
        same(ga.stack((ga.to_gpu(np.array(1.0)), ga.to_gpu(np.array(2.0)))), np.array([1.0, 2.0]), 0, "stack 0-d")
    """)


def test_copies_fills_and_reshapes_of_views(real_gpu):
    on_gpu("""
        big = rand(1 << 22, np.float32)
        d = ga.to_gpu(big)
        same(d[::16], big[::16], 0, "a sparse view, gathered on the device")
        same(d[::16].copy(), big[::16], 0, "its copy")
        x = rand((50, 60), np.float32)
        dx = ga.to_gpu(x)
        v = dx[5:40:3, ::4]
        v[...] = 7
        x[5:40:3, ::4] = 7
        same(dx, x, 0, "fill of a strided view")
        dx[::2, 1::5] = np.arange(12, dtype=np.float64)
        x[::2, 1::5] = np.arange(12)
        same(dx, x, 0, "host rows into a strided view")
        dx[1:3] = ga.to_gpu(np.ones((1, 60), np.float64))
        x[1:3] = 1
        same(dx, x, 0, "a device row broadcast, converted")
        same(dx.reshape(60, 50, order="F"), x.reshape(60, 50, order="F"), 0, "reshape order F")
        f = ga.to_gpu(np.asfortranarray(x))
        same(f.reshape(3000), x.reshape(3000), 0, "reshape of a Fortran array, C order")
        same(ga.to_gpu(np.arange(10, dtype=np.float32)).reverse(), np.arange(10, dtype=np.float32)[::-1], 0,
             "reverse")
        vec = ga.GPUArray(100, dtype=ga.vec.float3)
        vec.fill(ga.vec.make_float3(1, 2, 3))
        assert (vec.get() == ga.vec.make_float3(1, 2, 3)).all()
        z = ga.zeros((4, 4), np.complex64)
        z[1] = 2 + 1j
        want = np.zeros((4, 4), np.complex64)
        want[1] = 2 + 1j
        same(z, want, 0, "complex fill of a row")
        ones = ga.ones((3, 5), np.float64, order="F")
        same(ones, np.ones((3, 5)), 0, "ones in Fortran order")
        # operands that share bytes with the result: numpy's answer (the source read first)
        h = np.arange(1000, dtype=np.float32)
        d = ga.to_gpu(h)
        d[1:] = d[:-1]
        h[1:] = h[:-1].copy()
        same(d, h, 0, "a shifted copy onto itself")
        d += d[0]
        h += h[0]
        same(d, h, 0, "an element of the result as an operand")
        d[1:] += d[:-1]
        h[1:] += h[:-1].copy()
        same(d, h, 0, "an overlapping operand in place, on the fast path")
        t = ga.to_gpu(np.arange(16.0).reshape(4, 4))
        t[...] = t.T
        same(t, np.arange(16.0).reshape(4, 4).T, 0, "a transpose onto itself")
    """)


def test_layer_elementwise_kernel(real_gpu):
    on_gpu("""
        from cudyn.pycuda.elementwise import ElementwiseKernel
        set_seven = ElementwiseKernel("float *z", "z[i] = 7", "set_seven")
        for slc in (slice(5, 20000), slice(5, 20000, 17), slice(3000, 5, -1), slice(1000, -1)):
            a = ga.zeros(50000, np.float32)
            h = np.zeros(50000, np.float32)
            h[slc] = 7
            set_seven(a, slice=slc)
            same(a, h, 0, slc)
        lin = ElementwiseKernel("float a, float *x, float b, float *y, float *z", "z[i] = a*x[i] + b*y[i]", "lin")
        x, y = rand(500, np.float32), rand(500, np.float32)
        z = ga.empty(500, np.float32)
        lin(5, ga.to_gpu(x), 6, ga.to_gpu(y), z)
        same(z, 5 * x + 6 * y, 1e-6, "lin_comb with Python numbers")
        cmul = ElementwiseKernel("pycuda::complex<float> *z, pycuda::complex<float> w", "z[i] = z[i] * w", "cmul",
                                 preamble="#include <stdio.h>\\n")
        c = rand(300, np.complex64)
        dc = ga.to_gpu(c)
        cmul(dc, np.complex64(2 - 1j))
        same(dc, c * np.complex64(2 - 1j), 1e-6, "complex elementwise")
        counter = ElementwiseKernel("unsigned char *d", "d[i] = (unsigned char)(i & 255)", "mod256")
        u = ga.empty(1000, np.uint8)
        counter(u, range=slice(0, 1000, 1))
        same(u, (np.arange(1000) & 255).astype(np.uint8), 0, "range")
    """)


def test_kernel_times_are_the_kernels(real_gpu):
    # a kernel that spins for a number of clock cycles runs at least that
    # many cycles at the fastest clock any GPU has (4 GHz): a lower bound on
    # the time each timing gives, whatever the machine's load
    on_gpu('''
        import cudyn.pycuda.driver as drv
        from cudyn.pycuda.compiler import SourceModule
        SPIN = """extern "C" __global__ void spin(long long cycles, int *done)
        {
            long long start = clock64();
            while (clock64() - start < cycles) { }
            *done = 1;
        }"""
        cycles = 40_000_000
        least = cycles / 4e9
        done = ga.zeros(1, np.int32)
        f = cudyn.SourceModule(SPIN, no_extern_c=True).get_function("spin")
        for stream in (None, cudyn.Stream()):
            t = f(np.int64(cycles), done, grid=(1,), block=(1,), stream=stream, time_kernel=True)
            assert isinstance(t, float) and t >= least, (t, least)
        f.prepare("qP")
        elapsed = f.prepared_timed_call((1,), (1,), cycles, done)
        t = elapsed()
        assert t >= least and elapsed() == t, (t, least)
        # the layer, as PyCUDA's programs call it
        g = SourceModule(SPIN, no_extern_c=True).get_function("spin")
        assert g.prepare([np.int64, np.intp]) is g
        t = g.prepared_timed_call((1, 1), (1, 1, 1), np.int64(cycles), done.gpudata)()
        assert t >= least, (t, least)
        t = g(np.int64(cycles), done, block=(1, 1, 1), time_kernel=True)
        assert t >= least, (t, least)
        assert done.get()[0] == 1
        print("kernel times: at least", least, "s each")
    ''')


# ------------------------------------------------------------ issue 43: kernels written for nvcc, CDP, cuRAND

def test_nvcc_era_kernels_compute_what_nvcc_would(real_gpu):
    # <math.h>'s macros, uint and <pycuda-complex.hpp> inside SourceModule's
    # extern "C"; an ElementwiseKernel preamble that includes them
    on_gpu('''
        from cudyn.pycuda.compiler import SourceModule
        from cudyn.pycuda.elementwise import ElementwiseKernel
        mod = SourceModule("""
        #include <math.h>
        #include <pycuda-complex.hpp>
        __global__ void k(float *x, pycuda::complex<float> *z, uint n)
        {
            uint i = threadIdx.x;
            if (i < n) {
                x[i] = (float)M_PI * i + (INT_MAX > 0 ? 1.0f : 0.0f) + (isinf(INFINITY) ? 10.0f : 0.0f);
                z[i] = pycuda::exp(pycuda::complex<float>(0, (float)M_PI_2 * i)) * pycuda::polar(2.0f);
            }
        }""")
        x, z = ga.zeros(8, np.float32), ga.zeros(8, np.complex64)
        mod.get_function("k")(x, z, np.uint32(8), block=(8, 1, 1))
        same(x, (np.float32(np.pi) * np.arange(8) + 11).astype(np.float32), 1e-6, "math.h in SourceModule")
        same(z, (2 * np.exp(1j * np.pi / 2 * np.arange(8))).astype(np.complex64), 1e-5, "pycuda::exp")
        scale = ElementwiseKernel("float *y, const float *x", "y[i] = fabsf(x[i]) * (float)M_SQRT2 + (uint)1",
                                  "scale", preamble="#include <math.h>\\n#include <pycuda-complex.hpp>\\n")
        h = rand(1000, np.float32) - 0.5
        y = ga.empty(1000, np.float32)
        scale(y, ga.to_gpu(h))
        same(y, np.abs(h) * np.float32(np.sqrt(2)) + 1, 1e-6, "preamble with <math.h>")
    ''')


def test_dynamic_parallelism_through_dynamic_modules(real_gpu):
    # what PyCUDA's test_recursive_launch and test_jit_link_module do: a
    # kernel that launches one of its own source, and one that launches a
    # kernel of another source, linked with the toolkit's libcudadevrt.a
    needs_toolkit("cudadevrt")
    on_gpu(f"""
        import cudyn.pycuda.driver as drv
        from cudyn.pycuda.compiler import DynamicModule, DynamicSourceModule
        a, b = np.arange(64, dtype=np.int64), np.arange(64, dtype=np.int64) * 3 + 1
        da, db, dc, dd = ga.to_gpu(a), ga.to_gpu(b), ga.zeros(64, np.int64), ga.zeros(64, np.int64)
        mod = DynamicSourceModule({RECURSIVE!r}, keep=True)
        mod.get_function("parent")(da, db, dc, dd, grid=(1, 1), block=(64, 1, 1))
        same(dc, a + 1 + b, 0, "parent's own work")
        same(da, 2 * a, 0, "the child's")
        same(dd, 2 * a - b, 0, "the child's")
        hits = ga.zeros(1, np.int32)
        seen = []
        jit = DynamicModule(message_handler=lambda *args: seen.append(args))
        jit.add_source({JIT_OUTER!r}, nvcc_options=["-rdc=true", "-lcudadevrt"])
        jit.add_source({JIT_INNER!r}, nvcc_options=["-rdc=true", "-lcudadevrt"])
        jit.add_stdlib("cudadevrt").link()
        jit.get_function("launcher")(hits, grid=(2, 1), block=(1, 1, 1))
        cudyn.synchronize()
        same(hits, np.array([4], np.int32), 0, "two launchers, two pings each")
        assert seen and seen[0][0] is True, seen
        print("CDP through", jit.module.device, "ok")
    """)


def test_linear_combination_and_jit_options(real_gpu):
    on_gpu('''
        import cudyn.pycuda.driver as drv
        from cudyn.pycuda.compiler import SourceModule
        from cudyn.pycuda.elementwise import get_linear_combination_kernel
        kernel, texrefs = get_linear_combination_kernel(((False, np.float32, np.float32),
                                                         (False, np.complex64, np.complex64)), np.complex64)
        x, y = rand(5000, np.float32), rand(5000, np.complex64)
        dx, dy, z = ga.to_gpu(x), ga.to_gpu(y), ga.empty(5000, np.complex64)
        kernel.prepared_call(dx._grid, dx._block, np.float32(2), dx.gpudata, np.complex64(1 - 2j), dy.gpudata,
                             z.gpudata, dx.mem_size)
        same(z, 2 * x + np.complex64(1 - 2j) * y, 1e-6, "linear combination")
        ptx = cudyn.SourceModule('extern "C" __global__ void k(float *x) { x[threadIdx.x] += 1; }',
                                 options=["-arch=compute_75"], no_extern_c=True).ptx
        seen = []
        mod = drv.module_from_buffer(ptx.encode(), options=[(drv.jit_option.MAX_REGISTERS, 32)],
                                     message_handler=lambda *args: seen.append(args))
        v = ga.zeros(32, np.float32)
        mod.get_function("k")(v, block=(32, 1, 1))
        same(v, np.ones(32, np.float32), 0, "PTX through the linker with JIT options")
        assert seen[0][0] is True and mod.get_function("k").num_regs <= 32
    ''')


CURAND_PRELUDE = """
from cudyn.pycuda import curandom
n = 1 << 20

def poisson_in_place(gen, tolerance):
    for dtype in (np.float32, np.float64, np.uint32):
        a = ga.empty(n, dtype)
        a.fill(10)
        gen.fill_poisson(a)
        share = (a.get() == 9).sum() / n  # Poisson(10) at 9: 0.12511
        assert abs(share - 0.12511) < tolerance, (type(gen).__name__, dtype, share)
"""


def test_curand_pseudo_random_generators(real_gpu):
    # what PyCUDA's test_curand_wrappers does, with statistics: every draw
    # of XORWOW, MRG32k3a and Philox, and skip-ahead against drawing
    needs_toolkit("curand")
    on_gpu(CURAND_PRELUDE + textwrap.dedent("""
        for kind in ("XORWOW", "MRG32k3a", "Philox4_32_10"):
            gen = getattr(curandom, kind + "RandomNumberGenerator")()
            for dtype in (np.float32, np.float64):
                u = gen.gen_uniform(n, dtype).get()
                assert u.dtype == dtype and (u > 0).all() and (u <= 1).all(), kind
                assert abs(u.mean() - 0.5) < 3e-3 and abs(u.var() - 1 / 12) < 2e-3, (kind, dtype)
                for size in (n, n + 1):  # Box-Muller pairs, and one at a time
                    z = gen.gen_normal(size, dtype).get()
                    assert abs(z.mean()) < 1e-2 and abs(z.std() - 1) < 1e-2, (kind, dtype, size, z.mean(), z.std())
                    ln = np.log(gen.gen_log_normal(size, dtype, 0.5, 0.25).get())
                    assert abs(ln.mean() - 0.5) < 3e-3 and abs(ln.std() - 0.25) < 3e-3, (kind, size)
            bits = gen.gen_uniform(n, np.uint32).get()
            assert abs(bits.mean() / 2 ** 32 - 0.5) < 3e-3 and len(np.unique(bits)) > n // 2, kind
            p = gen.gen_poisson(n, np.uint32, 13.0).get()
            assert abs(p.mean() - 13) < 0.05 and abs(p.var() - 13) < 0.3, (kind, p.mean(), p.var())
            poisson_in_place(gen, 0.005)
            gen.call_skip_ahead_sequence(2)
            print(kind, "ok", gen.generator_count, "generators")
        # skip-ahead moves a generator as far as drawing does
        a = curandom.XORWOWRandomNumberGenerator(lambda k: ga.to_gpu(np.arange(k, dtype=np.int32)))
        b = curandom.XORWOWRandomNumberGenerator(lambda k: ga.to_gpu(np.arange(k, dtype=np.int32)))
        count = a.generator_count
        a.gen_uniform(count * 7, np.uint32)        # 7 draws each
        b.call_skip_ahead(7)
        assert (a.gen_uniform(count, np.uint32).get() == b.gen_uniform(count, np.uint32).get()).all()
        b.call_skip_ahead_array(ga.to_gpu(np.full(count, 3, np.uint64)))
        a.gen_uniform(count * 3, np.uint32)
        assert (a.gen_uniform(count, np.uint32).get() == b.gen_uniform(count, np.uint32).get()).all()
        stream = cudyn.Stream()
        on_stream = a.gen_normal(1000, np.float32, stream=stream)
        stream.synchronize()
        assert np.isfinite(on_stream.get()).all()
        print("skip-ahead ok")
    """))


def test_curand_sobol_generators(real_gpu):
    # A quasi-random sequence is no sample: its statistics hold over whole
    # blocks of a dimension's points.  Each check draws 64 points of every
    # dimension from a fresh generator (points 0 to 63, one in each 64th of
    # (0, 1], scrambled or not), so a fraction, a median or a mean over
    # them is within a 64th of the distribution's; PyCUDA's own draws run
    # too.  (With one draw per generator or eight, as a GPU's many
    # generators give a million elements, they are not.)
    needs_toolkit("curand")
    on_gpu(CURAND_PRELUDE + textwrap.dedent("""
        for kind in ("Sobol32", "ScrambledSobol32", "Sobol64", "ScrambledSobol64"):
            fresh = getattr(curandom, kind + "RandomNumberGenerator")
            gen = fresh()
            count = gen.generator_count
            u = gen.gen_uniform(count * 8, np.float64).get().reshape(8, count)
            # floor, not ceil - 1: the unscrambled 64-bit kinds give k/8 itself (libcurand's host generator does)
            assert (np.sort(np.floor(u * 8), axis=0) == np.arange(8)[:, None]).all(), kind
            n = count * 64  # poisson_in_place's size too
            for dtype in (np.float32, np.float64):
                u = fresh().gen_uniform(n, dtype).get()
                assert u.dtype == dtype and (u > 0).all() and (u <= 1).all(), kind
                if dtype == np.float64:  # (float32 can round a scrambled point up to the next 64th)
                    assert (np.sort(np.floor(u.reshape(64, count) * 64), axis=0) == np.arange(64)[:, None]).all(), kind
                for size in (n, n + 1):
                    z = fresh().gen_normal(size, dtype).get()
                    # 0.6827 within one sigma: 43 of 64 points, 42 to 44 scrambled
                    assert np.isfinite(z).all() and abs(np.median(z)) < 0.1, (kind, size)
                    assert abs((abs(z) < 1).mean() - 0.6827) < 0.03, (kind, size, (abs(z) < 1).mean())
                    ln = np.log(fresh().gen_log_normal(size, dtype, 0.5, 0.25).get())
                    assert abs(np.median(ln) - 0.5) < 0.03, (kind, size)
            if gen.generator_bits == 64:
                wide = fresh().gen_uniform(n, np.uint64).get()
                assert wide.dtype == np.uint64 and wide.max() > 2 ** 40, kind
            # Poisson(13)'s quantiles at 64 evenly spread points: a mean within 0.46 of 13
            mean = fresh().gen_poisson(n, np.uint32, 13.0).get().mean()
            assert abs(mean - 13) < 0.75, (kind, mean)
            poisson_in_place(fresh(), 0.02)
            b = fresh()
            b.call_skip_ahead(8 + 2 * (n // count + 1))
            print(kind, "ok", count, "generators")
        a, b = curandom.Sobol32RandomNumberGenerator(), curandom.Sobol32RandomNumberGenerator()
        count = a.generator_count
        a.gen_uniform(count * 2, np.float32)
        b.call_skip_ahead_array(ga.to_gpu(np.full(count, 2, np.uint32)))
        assert (a.gen_uniform(count, np.float32).get() == b.gen_uniform(count, np.float32).get()).all()
        print("skip-ahead ok")
    """))
