"""``import pycuda.autoinit``: the default device's context, made current on
import and popped at exit, as PyCUDA's.  ``device`` and ``context`` are the
names PyCUDA gives them; the device is chosen by $CUDA_DEVICE, $CUDYN_DEVICE
or the node-local MPI rank (cudyn.autoinit's rule), else device 0."""

import atexit

from . import driver as _driver
from .tools import make_default_context

_driver.init()
context = make_default_context()
device = context.get_device()


def _pop():
    if _driver.Context.get_current() is context:
        context.pop()


atexit.register(_pop)
