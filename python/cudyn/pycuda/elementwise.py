"""pycuda.elementwise over cudyn: ElementwiseKernel as PyCUDA defines it.

The kernel is CUDA C++ written around ``operation`` (any C types, the
preamble with #include lines, loop_prep and after_loop), compiled once
through cudyn's cache: ``i`` runs over the elements, or over
``range=slice(start, stop, step)`` or ``slice=`` (resolved against the
first array's size), grid-stride, with 64-bit indices.  cudyn's own
cudyn.ElementwiseKernel is the confined, vectorising expression kernel;
this one takes PyCUDA's texts as they are."""

import builtins

import cudyn
from cudyn import _codegen

from . import Unsupported

__all__ = ["ElementwiseKernel", "get_elwise_kernel"]


def _arguments_text(arguments):
    """PyCUDA's arguments: a string of C declarations or a list of VectorArg/ScalarArg."""
    if isinstance(arguments, str):
        return arguments
    return ", ".join(a.declarator() for a in arguments)


def _count(args, parsed, what):
    for (t, name, pointer), a in zip(parsed, args):
        if pointer and isinstance(a, cudyn.DeviceArray):
            return a.size
    raise TypeError(f"{what}: no device array among the pointer arguments to take the element count from;"
                    " pass range=")


def _bounds(n, range_, slice_):
    if range_ is not None and slice_ is not None:
        raise TypeError("give range= or slice=, not both")
    if slice_ is not None:
        return slice_.indices(n)
    if range_ is not None:
        if isinstance(range_, builtins.range):
            return range_.start, range_.stop, range_.step
        if isinstance(range_, slice):
            return (range_.start or 0, range_.stop, range_.step or 1)
        return 0, int(range_), 1
    return 0, n, 1


class ElementwiseKernel:
    """PyCUDA's ElementwiseKernel(arguments, operation, name, keep, options,
    preamble, loop_prep, after_loop); call it with one value per argument
    and range=, slice=, stream= as keywords."""

    def __init__(self, arguments, operation, name="kernel", keep=False, options=None, preamble="", loop_prep="",
                 after_loop=""):
        if keep:
            raise Unsupported("ElementwiseKernel(keep=True): NVRTC writes no intermediate files; the source is"
                              " kernel.source")
        if options:
            raise Unsupported("ElementwiseKernel(options=...): cudyn compiles generated kernels with NVRTC's"
                              " defaults; compile a SourceModule for other options")
        self.arguments = _arguments_text(arguments)
        self.name = name
        self.source, codes, self._parsed = _codegen.loop_source(self.arguments, operation, name, preamble,
                                                                loop_prep, after_loop)
        self._codes = codes
        self._prepared = {}  # device -> prepared kernel

    def _kernel(self):
        device = _codegen._device_current()
        prepared = self._prepared.get(device)
        if prepared is None:
            prepared = self._prepared[device] = _codegen.function(self.source, self.name).prepare(self._codes)
        return prepared

    def __call__(self, *args, range=None, slice=None, stream=None):  # noqa: A002 (PyCUDA's keywords)
        values = _codegen.argument_values(self._parsed, args, f"ElementwiseKernel {self.name}")
        n = _count(args, self._parsed, f"ElementwiseKernel {self.name}") if range is None else None
        start, stop, step = _bounds(n, range, slice)
        if step == 0:
            raise ValueError(f"ElementwiseKernel {self.name}: a step of 0")
        count = len(builtins.range(start, stop, step))
        if count:
            self._kernel()((_codegen.grid_for(count),), (_codegen.BLOCK,), *values, start, stop, step,
                           stream=stream)


def get_elwise_kernel(arguments, operation, name="kernel", keep=False, options=None, **kwargs):
    """An ElementwiseKernel (PyCUDA's older entry point)."""
    return ElementwiseKernel(arguments, operation, name, keep, options, **kwargs)
