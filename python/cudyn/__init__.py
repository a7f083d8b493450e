"""cudyn: NVIDIA GPUs from Python with only the driver installed.

The C extension ``cudyn._cudyn`` wraps cudyn's stable C ABI; this package
re-exports it and adds PyCUDA's and cuda.core's vocabulary on top::

    import numpy as np
    import cudyn

    mod = cudyn.SourceModule('''
    __global__ void scale(float a, float *x, size_t n)
    {
        size_t i = blockIdx.x * blockDim.x + threadIdx.x;
        if (i < n) x[i] *= a;
    }''')
    x = cudyn.gpuarray.to_gpu(np.arange(1024, dtype=np.float32))
    mod.get_function("scale")(np.float32(2), x, np.uint64(x.size), grid=(4,), block=(256,))
    print(x.get()[:4])

Importing cudyn loads no driver and no NVRTC: the first call that needs
them does (``cudyn.loader_info()`` says what was loaded and why).  Every
failure raises a subclass of :class:`cudyn.Error` carrying cudyn's stable
status, the native result, the function and a message a person can act on.

``cudyn.gpuarray``, ``cudyn.cumath``, ``cudyn.elementwise``, ``cudyn.scan``
and ``cudyn.curandom`` are imported on first use; ``cudyn.pycuda`` is the
layer that runs PyCUDA programs unchanged (see its ``install()``).
"""

import importlib
import os as _os
import sys as _sys


def _extend_path():
    # The extension module is built into the build tree's python/cudyn/,
    # the .py files stay in the source tree's: search every cudyn/ directory
    # on sys.path, so that an out-of-tree build works uninstalled.
    here = _os.path.dirname(_os.path.abspath(__file__))
    for entry in _sys.path:
        candidate = _os.path.join(entry or _os.curdir, "cudyn")
        if _os.path.isfile(_os.path.join(candidate, "__init__.py")):
            continue  # a source tree: this file's, or another copy of it
        try:
            absolute = _os.path.abspath(candidate)
        except (OSError, ValueError):
            continue
        if absolute != here and absolute not in __path__ and _os.path.isdir(absolute):
            __path__.append(absolute)


_extend_path()

from . import _cudyn  # noqa: E402  (the C extension: loads no driver)
from ._cudyn import *  # noqa: E402,F401,F403
from . import _info  # noqa: E402
from ._memory import (from_device, from_device_like, mem_alloc, mem_alloc_like, mem_get_info,  # noqa: E402
                      pagelocked_empty, pagelocked_zeros, to_device)

# Names the C extension defines, listed so that `from cudyn import *` and
# help() show them even where the extension lacks one (older builds).
_C_NAMES = (
    "Error", "LoaderError", "InvalidArgument", "DeviceError", "OutOfMemory", "CompileError", "LaunchError",
    "ForkedError", "version", "init", "status_name", "status_string", "loader_info", "last_error",
    "device_count", "device_info", "device_attributes", "device_attribute", "device_use", "device_current",
    "cpu_affinity", "synchronize", "mem_info", "can_access_peer", "enable_peer", "cache_info", "cache_clear", "memcpy_htod",
    "memcpy_dtoh", "memcpy_dtod", "memset_d8", "memset_d16", "memset_d32", "pointer_info", "DeviceMemory",
    "PinnedMemory", "DeviceArray", "from_dlpack", "asarray", "In", "Out", "InOut", "Module", "Function",
    "PreparedFunction", "Stream", "Event", "Graph", "GraphExec", "Elementwise", "Reduction", "Array", "Texture",
    "Linker", "toolkit_info",
)


class Device:
    """One GPU, by ordinal, as cuda.core's ``Device`` and PyCUDA's ``Device``.

    Properties come from ``cudyn.device_info`` (name, uuid, pci_bus_id,
    total_memory, multiprocessors, ...: every field cudyn reports, as
    attributes).  ``use()`` makes it the calling thread's device; as a
    context manager it does so for the ``with`` block and restores the
    previous device afterwards::

        with cudyn.Device(1):
            y = cudyn.gpuarray.to_gpu(x)     # on device 1
    """

    __slots__ = ("ordinal", "_info", "_previous")

    def __init__(self, ordinal=0):
        if isinstance(ordinal, Device):
            ordinal = ordinal.ordinal
        if not isinstance(ordinal, int) or isinstance(ordinal, bool):
            raise TypeError(f"a device ordinal is an int, not {type(ordinal).__name__}")
        self.ordinal = ordinal
        self._info = None
        self._previous = []

    @staticmethod
    def count():
        """The number of devices cudyn sees (0 is an exception: see device_count)."""
        return _cudyn.device_count()

    @property
    def info(self):
        """Every fact of ``cudyn_device_info`` for this device, as a dict."""
        if self._info is None:
            self._info = _cudyn.device_info(self.ordinal)
        return self._info

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        info = self.info
        if name in info:
            return info[name]
        raise AttributeError(f"cudyn.Device has no attribute {name!r}")

    @property
    def compute_capability(self):
        """(major, minor), e.g. (9, 0) for an H100."""
        info = self.info
        if "compute_capability" in info and isinstance(info["compute_capability"], tuple):
            return info["compute_capability"]
        return (info["cc_major"], info["cc_minor"]) if "cc_major" in info else (info["major"], info["minor"])

    @property
    def attributes(self):
        """Every device attribute cudyn knows, as a dict name -> int."""
        return _cudyn.device_attributes(self.ordinal)

    def attribute(self, name):
        """One device attribute by name (as ``attributes`` lists them)."""
        return _cudyn.device_attribute(self.ordinal, name)

    def use(self):
        """Makes this device the calling thread's (its primary context); returns self."""
        _cudyn.device_use(self.ordinal)
        return self

    set_current = use

    def synchronize(self):
        """Waits for all work on this device (it becomes the thread's device)."""
        _cudyn.device_use(self.ordinal)
        _cudyn.synchronize()

    def mem_info(self):
        """(free, total) bytes of this device's memory."""
        _cudyn.device_use(self.ordinal)
        return _cudyn.mem_info()

    def can_access_peer(self, peer):
        """Whether this device can access ``peer``'s memory directly."""
        return _cudyn.can_access_peer(self.ordinal, Device(peer).ordinal)

    def enable_peer(self, peer):
        """Lets this device's context access ``peer``'s memory."""
        _cudyn.enable_peer(self.ordinal, Device(peer).ordinal)

    def __enter__(self):
        try:
            previous = _cudyn.device_current()
        except Error:  # noqa: F405 (from the extension)
            previous = None
        self._previous.append(previous)
        _cudyn.device_use(self.ordinal)
        return self

    def __exit__(self, *exc):
        previous = self._previous.pop()
        if previous is not None and previous != self.ordinal:
            _cudyn.device_use(previous)
        return False

    def __eq__(self, other):
        return isinstance(other, Device) and other.ordinal == self.ordinal

    def __hash__(self):
        return hash(("cudyn.Device", self.ordinal))

    def __repr__(self):
        return f"<cudyn.Device {self.ordinal}>"


class CapturedGraph:
    """What ``with stream.capture() as graph:`` gives: after the block,
    ``graph.graph`` is the captured :class:`cudyn.Graph` and ``graph.launch()``
    replays it (instantiated on first launch)."""

    __slots__ = ("stream", "graph", "_exec")

    def __init__(self, stream):
        self.stream = stream
        self.graph = None
        self._exec = None

    def __enter__(self):
        self.stream.begin_capture()
        return self

    def __exit__(self, kind, value, traceback):
        graph = self.stream.end_capture()  # ends the capture even when the block failed
        if kind is None:
            self.graph = graph
        return False

    def instantiate(self):
        """The executable graph (made once)."""
        if self.graph is None:
            raise RuntimeError("cudyn: the capture has not finished (use the graph after the with block)")
        if self._exec is None:
            self._exec = self.graph.instantiate()
        return self._exec

    def launch(self, stream=None):
        """Replays the captured work on ``stream`` (default: the capturing stream)."""
        self.instantiate().launch(stream=self.stream if stream is None else stream)


def _capture(self):
    """A context manager that captures the work submitted to this stream into a graph::

        with stream.capture() as g:
            kernel(x, grid=..., block=..., stream=stream)
        g.launch()
    """
    return CapturedGraph(self)


if not hasattr(_cudyn.Stream, "capture"):
    try:
        class Stream(_cudyn.Stream):  # noqa: F811 (adds capture() to the extension's type)
            __doc__ = _cudyn.Stream.__doc__
            __slots__ = ()
            capture = _capture
    except TypeError:  # a type that cannot be subclassed: capture through CapturedGraph(stream)
        pass


def current_device():
    """The calling thread's device as a :class:`Device` (device 0 until one is chosen)."""
    return Device(_cudyn.device_current())


def SourceModule(source, options=None, no_extern_c=False, name_expressions=(), headers=None, name="kernel.cu",
                 device=None, arch=None, code=None, keep=None, cache_dir=None, include_dirs=()):
    """Compiles CUDA C++ ``source`` with NVRTC through cudyn's cache, as PyCUDA's SourceModule.

    ``options``: NVRTC options (``["--fmad=false"]``, ``["--ptxas-options=-v"]``;
    the compile log is ``module.log``).  ``no_extern_c=False`` wraps the
    source in ``extern "C"`` so kernels keep their names; pass True for
    templates and use ``name_expressions`` (``["scale<float>"]``) with
    ``module.get_function("scale<float>")``.  ``headers``: a dict of
    in-memory headers, name -> text.  ``include_dirs`` become ``-I``
    options.  The target is the current device's (``module.target``); a
    repeated compile is a cache hit (``module.from_cache``), which needs no
    NVRTC.  ``arch``, ``code``, ``keep`` and ``cache_dir`` are PyCUDA's and
    are refused unless None (cudyn chooses the target and owns the cache).
    """
    for label, value in (("arch", arch), ("code", code), ("keep", keep), ("cache_dir", cache_dir)):
        if value not in (None, False):
            raise TypeError(f"SourceModule: {label}= is PyCUDA's; cudyn compiles for the current device"
                            " through its own cache (CUDYN_CACHE_DIR)")
    kwargs = {}
    if device is not None:
        kwargs["device"] = Device(device).ordinal
    return _cudyn.Module.from_source(source, options=_texts(options, "options", "['--fmad=false']"), name=name,
                                     name_expressions=_texts(name_expressions, "name_expressions", "['scale<float>']"),
                                     headers=dict(headers or {}), no_extern_c=no_extern_c,
                                     include_dirs=_texts(include_dirs, "include_dirs", "['/opt/include']"), **kwargs)


def _texts(value, what, example):
    """A list of strings as a tuple; one string is refused, never split into its characters."""
    if isinstance(value, (str, bytes)):
        raise TypeError(f"SourceModule: {what} is a list of strings, e.g. {example}, not one string")
    return tuple(value or ())


def module_from_file(path):
    """Loads a module from a file: a cudyn-cc image, CUBIN, PTX or fatbin."""
    return _cudyn.Module.from_file(_os.fspath(path))


def module_from_buffer(image):
    """Loads a module from bytes in memory: a cudyn-cc image, CUBIN or PTX."""
    return _cudyn.Module.from_image(image)


def info():
    """The facts of ``cudainfo --json`` as a dict: cudyn's version, the
    driver and NVRTC loaded (or why not), each device, and the kernel cache."""
    return _info.info()


def managed_empty(shape, dtype="float32"):
    """A :class:`cudyn.gpuarray.GPUArray` in managed (unified) memory, uninitialised.

    Managed memory migrates between host and device on demand; use it
    as any device array (``.get()`` copies it to the host)."""
    from .gpuarray import empty  # here: cudyn.gpuarray imports numpy, which `import cudyn` must not
    return empty(shape, dtype, managed=True)


# Submodules imported on first use as attributes (`cudyn.gpuarray` imports
# numpy).  Not autoinit: importing it chooses a device, which only
# `import cudyn.autoinit` may do (help(), pydoc and dir() reach attributes).
_SUBMODULES = ("gpuarray", "elementwise", "cumath", "scan", "curandom", "pycuda")


def __getattr__(name):
    if name in _SUBMODULES:
        return importlib.import_module(f"{__name__}.{name}")  # on first use: they import numpy
    if name in ("ElementwiseKernel", "ReductionKernel"):
        return getattr(importlib.import_module(f"{__name__}.elementwise"), name)
    raise AttributeError(f"module 'cudyn' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_SUBMODULES) | {"ElementwiseKernel", "ReductionKernel"})


__version__ = _cudyn.version() if hasattr(_cudyn, "version") else "0"

__all__ = [n for n in _C_NAMES if hasattr(_cudyn, n)] + [
    "Device", "CapturedGraph", "current_device", "SourceModule", "module_from_file", "module_from_buffer", "info",
    "pagelocked_empty", "pagelocked_zeros", "managed_empty", "ElementwiseKernel", "ReductionKernel", "gpuarray",
    "mem_alloc", "mem_alloc_like", "mem_get_info", "to_device", "from_device", "from_device_like",
]
