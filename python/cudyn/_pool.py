"""The memory of arrays that died, kept for the next array of its size (as
CuPy's pool keeps it), so that ``2 * x`` in a loop allocates nothing.

The rule (python/README.md, "The pools"): a block goes back to the pool
only when nothing can still use it, its array dead and the work of every
stream that used it ordered before the block is used again; memory the
user freed never enters the pool.  The pool keeps one list per device,
size and stream: a block is handed out again only to work on the stream
it was made for, which runs after everything that stream did with it.
An array that a gpuarray operation used on another stream than its own
(``mark_used``) is shared: its memory is freed when it dies (cuMemFree
waits for the device's work), never pooled.  The streams: the default
stream (the legacy one, or this thread's own under
``cudyn.init(INIT_PER_THREAD_STREAM)``, whose threads are not ordered with
each other: one list per thread), or a :class:`cudyn.Stream` (held weakly:
its blocks are freed when it goes); other stream handles (ints, foreign
objects) are not pooled.  What cudyn cannot see: an array passed to your
own kernel on another stream than the one it was made on; keep it alive
until that kernel has run (the PyCUDA layer's Function marks its
arguments, as the operations do).

Bounded: at most LIMIT_BYTES kept, at most LIMIT_LISTS lists (the oldest
go first); CUDYN_GPUARRAY_POOL=0 turns the pool off.
"""

import os
import threading
import weakref

from . import _cudyn
from ._bounded import Bounded

LIMIT_BYTES = 1 << 30  # kept for reuse at most
LIMIT_LISTS = 1024     # (device, size, stream) lists at most
#: The key of an array used on more than one stream: never pooled.
SHARED = "shared"

_DeviceMemory = _cudyn.DeviceMemory
_device_current = _cudyn.device_current
_lock = threading.RLock()  # re-entered when a stream dies (its weakref callback) inside a pool call
_enabled = os.environ.get("CUDYN_GPUARRAY_POOL", "1") != "0"
_per_thread = None  # whether the per-thread default stream is in effect (asked once, the driver loaded)
_streams_seen = False  # whether work or a result was given a stream (stream_key) in this process
_bytes = 0


def _evicted(key, blocks):
    global _bytes
    _bytes -= key[1] * len(blocks)
    for memory in blocks:
        memory.free()


_blocks = Bounded(LIMIT_LISTS, _evicted)  # (device, nbytes, stream key) -> [DeviceMemory], never empty


def _forget_stream(ref):
    """A stream went: its blocks are freed (cuMemFree waits for its work)."""
    with _lock:
        keys = [key for key in _blocks if key[2] is ref]
        gone = [_blocks.pop(key) for key in keys]
    for key, blocks in zip(keys, gone):
        _evicted(key, blocks)


def stream_key(stream):
    """The list a block made for work on ``stream`` belongs to, or SHARED."""
    global _per_thread, _streams_seen
    if stream is None:
        if _per_thread is None:
            _per_thread = bool(_cudyn.loader_info(1).get("per_thread_stream"))
        return threading.get_ident() if _per_thread else None
    _streams_seen = True
    if isinstance(stream, _cudyn.Stream):
        return weakref.ref(stream, _forget_stream)
    return SHARED


def one_stream_orders_all():
    """Whether one stream has ordered all the work cudyn saw: no stream
    given to an operation or a result and the legacy default stream in
    effect.  Pools that cannot tell which stream used a block (the PyCUDA
    layer's) reuse blocks at once only then, and after waiting for the
    device otherwise."""
    stream_key(None)  # asks the library which default stream, once
    return not _streams_seen and not _per_thread


def allocate(nbytes, key, device=None):
    """``nbytes`` of device memory on the calling thread's device (``device``,
    where the caller has asked already) for work keyed ``key``: a kept
    block of that size and key, else new memory (the pool emptied first
    when the device has none left)."""
    global _bytes
    if _blocks and key is not SHARED:  # empty unless something was kept
        with _lock:
            blocks = _blocks.get((_device_current() if device is None else device, nbytes, key))
            if blocks:
                memory = blocks.pop()
                if not blocks:
                    del _blocks[(memory.device, nbytes, key)]
                _bytes -= nbytes
                return memory
    try:
        return _DeviceMemory(nbytes)
    except _cudyn.OutOfMemory:
        if not _bytes:
            raise
        free_pool()
        return _DeviceMemory(nbytes)


def release(memory, key):
    """Keeps the memory of an array that died (nothing else holds it) for
    the next array of its size and key; False when it is not kept: the
    user freed it, it is managed, shared between streams or over the limit."""
    global _bytes
    if not _enabled or key is SHARED or memory.freed or getattr(memory, "managed", False):
        return False
    nbytes = memory.nbytes
    with _lock:
        if _bytes + nbytes > LIMIT_BYTES:
            return False
        full = (memory.device, nbytes, key)
        blocks = _blocks.get(full)
        if blocks is not None:
            blocks.append(memory)
        elif len(_blocks) < _blocks.limit:  # room for a list: no eviction to run (put's loop, per operation)
            _blocks[full] = [memory]
        else:
            _blocks.put(full, [memory])
        _bytes += nbytes
    return True


def free_pool():
    """Frees the device memory kept for reuse; returns the bytes freed."""
    global _bytes
    with _lock:
        freed = _bytes
        lists = list(_blocks.values())
        _blocks.clear()
        _bytes = 0
    for blocks in lists:
        for memory in blocks:
            memory.free()
    return freed


def pool_info():
    """(blocks, bytes) kept for reuse now."""
    with _lock:
        return sum(len(blocks) for blocks in _blocks.values()), _bytes


def lists():
    """How many (device, size, stream) lists the pool holds (for tests: bounded, none empty)."""
    return len(_blocks)
