"""The pools follow one rule (issue 41, rows 8 to 12): a block goes back to a
pool only when nothing can still use it (its array is dead, and the work of
every stream that used it is ordered before it is used again); memory the
user freed never enters a pool; pool sizes are checked integers; every
cache keyed by shape or size is bounded.  gpuarray's pool (cudyn._pool)
keeps one list per device, size and stream; the PyCUDA layer's
DeviceMemoryPool waits for the device before it hands out a block that
came back while more than one stream was in use."""

import gc

import numpy as np
import pytest

import cudyn
from conftest import mock_calls, mock_memory_in_use, run_python
from cudyn import _codegen, _ops, _pool, _result

pytestmark = pytest.mark.mock


@pytest.fixture
def ga():
    from cudyn import gpuarray
    gpuarray.free_pool()
    yield gpuarray
    gpuarray.free_pool()


# ------------------------------------------------------------ gpuarray's pool

def test_a_block_made_for_a_stream_is_reused_only_for_that_stream(ga):
    s = cudyn.Stream(cudyn.STREAM_NON_BLOCKING)
    x = ga.to_gpu(np.arange(1024, dtype=np.float32))
    on_s = x.copy(stream=s)             # made for s
    s.synchronize()
    mine = on_s.ptr
    del on_s
    assert ga.pool_info()[0] == 1
    default = x.copy()                  # for the default stream: not s's block
    assert default.ptr != mine
    again = x.copy(stream=s)            # for s again: its block
    assert again.ptr == mine


def test_an_array_used_on_another_stream_is_never_pooled(ga, mock_lib):
    s = cudyn.Stream(cudyn.STREAM_NON_BLOCKING)
    x = ga.to_gpu(np.arange(1024, dtype=np.float32))
    y = x.copy()
    y.get(stream=s)                     # read on s, made for the default stream
    s.synchronize()
    in_use = mock_memory_in_use(mock_lib)
    del y
    assert ga.pool_info() == (0, 0) and mock_memory_in_use(mock_lib) == in_use - x.nbytes
    z = x.copy()
    view = z[::2]
    _ops.assign(view, 0.0, stream=s)      # a view used on s: the array that owns its memory is shared
    s.synchronize()
    assert (z.get()[::2] == 0).all() and (z.get()[1::2] == np.arange(1, 1024, 2)).all()
    del view, z
    assert ga.pool_info() == (0, 0)


def test_an_array_made_for_a_stream_is_marked_in_a_fresh_process():
    # before any stream is seen, mark_used has nothing to mark and returns at
    # once; an array made for a stream is what ends that (no operation on a
    # stream yet): used on the default stream, it must be shared, not pooled
    p = run_python("""
        import numpy as np, cudyn, cudyn.autoinit
        from cudyn import gpuarray as ga
        s = cudyn.Stream(cudyn.STREAM_NON_BLOCKING)
        x = ga.to_gpu(np.arange(1024, dtype=np.float32))
        on_s = x.copy(stream=s)             # made for s: no operation has had a stream yet
        s.synchronize()
        y = 2 * on_s                        # the default stream reads it
        del on_s
        print(ga.pool_info()[0], (y.get() == 2 * np.arange(1024)).all())
        """)
    assert p.returncode == 0, p.stderr
    assert p.stdout.split() == ["0", "True"], p.stdout


def test_a_dead_streams_blocks_are_freed(ga, mock_lib):
    s = cudyn.Stream()
    x = ga.to_gpu(np.arange(256, dtype=np.float32))
    y = x.copy(stream=s)
    del y
    assert ga.pool_info()[0] == 1
    s.synchronize()
    del s
    gc.collect()
    assert ga.pool_info() == (0, 0)


def test_under_the_per_thread_default_stream_each_thread_has_its_blocks():
    p = run_python("""
        import threading, numpy as np, cudyn
        cudyn.init(cudyn.INIT_PER_THREAD_STREAM)
        from cudyn import gpuarray as ga
        x = ga.to_gpu(np.arange(512, dtype=np.float32))
        mine = x.copy()
        ptr = mine.ptr
        del mine
        got = {}
        def other():
            got["other"] = x.copy().ptr   # another thread's default stream: not this thread's block
        t = threading.Thread(target=other); t.start(); t.join()
        print(got["other"] != ptr, x.copy().ptr == ptr)
        shared = x.copy()
        t = threading.Thread(target=lambda: shared.get()); t.start(); t.join()  # used by the other thread
        kept = ga.pool_info()[0]
        del shared
        print(ga.pool_info()[0] == kept)
        """)
    assert p.returncode == 0, p.stderr
    assert p.stdout.split() == ["True", "True", "True"], p.stdout


def test_memory_the_user_freed_never_enters_the_pool(ga):
    a = ga.empty(1000, np.float32)
    a.base.free()
    del a
    assert ga.pool_info() == (0, 0)
    b = ga.zeros(1000, np.float32)      # the next array of that size is fine
    np.testing.assert_array_equal(b.get(), np.zeros(1000, np.float32))


def test_the_pool_keeps_no_empty_lists_and_a_bounded_number_of_them(ga, monkeypatch):
    for n in range(1, 40):
        a = ga.empty(n, np.uint8)
        del a
    assert _pool.lists() == 39
    for n in range(1, 40):
        b = ga.empty(n, np.uint8)       # takes each size's block back: its list goes
        del b
    monkeypatch.setattr(_pool._blocks, "limit", 8)
    for n in range(100, 140):
        c = ga.empty(n, np.uint8)
        del c
    assert _pool.lists() <= 8
    ga.free_pool()
    assert _pool.lists() == 0


def test_caches_keyed_by_shape_are_bounded(ga, monkeypatch):
    for table in (_ops._plans, _ops._flat, _codegen._plans):
        monkeypatch.setattr(table, "limit", 6)
    x = ga.to_gpu(np.arange(64, dtype=np.float32))
    for n in range(1, 30):
        view = x[:n * 2:2]
        assert ((view + 1).get() == view.get() + 1).all()
        _codegen.run_map("z = 0", [("z", x[:n], True)], [], (n,))
        assert not x[:n].get().any()
    assert len(_ops._plans) <= 6 and len(_ops._flat) <= 6 and len(_codegen._plans) <= 6


# ------------------------------------------------------------ the PyCUDA layer's DeviceMemoryPool

@pytest.fixture
def pool():
    from cudyn.pycuda.tools import DeviceMemoryPool
    pool = DeviceMemoryPool()
    yield pool
    pool.stop_holding()


def test_a_block_freed_under_a_live_array_is_not_handed_out_again(pool):
    from cudyn.pycuda import gpuarray
    block = pool.allocate(4096)
    a = gpuarray.GPUArray((1024,), np.float32, gpudata=block)
    a.fill(1.0)
    block.free()
    with pytest.raises(cudyn.InvalidArgument, match="freed"):
        int(block)
    other = pool.allocate(4096)
    assert int(other) != a.ptr
    np.testing.assert_array_equal(a.get(), np.ones(1024, np.float32))  # still its own
    ptr = a.ptr
    del a, block
    assert pool.held_blocks == 1
    assert int(pool.allocate(4096)) == ptr  # nothing can use it now: back in the pool


def test_arrays_made_with_the_pool_as_allocator(pool):
    from cudyn.pycuda import gpuarray
    a = gpuarray.empty(256, np.float32, allocator=pool.allocate)
    ptr = a.ptr
    b = gpuarray.empty(256, np.float32, allocator=pool.allocate)
    assert b.ptr != ptr
    del a
    gc.collect()
    assert gpuarray.empty(256, np.float32, allocator=pool.allocate).ptr == ptr


@pytest.mark.parametrize("size, error", [(-5, cudyn.InvalidArgument), (2.5, TypeError), ("8", TypeError),
                                         (True, TypeError), (None, TypeError)])
def test_pool_sizes_are_checked_integers(pool, size, error):
    with pytest.raises(error):
        pool.allocate(size)
    with pytest.raises(error):
        pool.bin_number(size)
    assert pool.active_blocks == 0


def test_pool_sizes_of_any_integer_type(pool):
    block = pool.allocate(np.int64(100))
    assert block.size == 100 and block.__cuda_array_interface__["shape"] == (100,)
    assert pool.allocate(0).size == 0


def test_reuse_waits_for_the_device_once_streams_are_in_use(pool, mock_lib):
    block = pool.allocate(1000)
    del block
    _pool.stream_key(cudyn.Stream())    # work was given a stream: blocks back since may be in use there
    before = mock_calls(mock_lib, "cuCtxSynchronize")
    first = pool.allocate(1000)
    assert mock_calls(mock_lib, "cuCtxSynchronize") == before + 1
    second = pool.allocate(1000)        # a new block: nothing to wait for
    assert int(second) != int(first)
    assert mock_calls(mock_lib, "cuCtxSynchronize") == before + 1
