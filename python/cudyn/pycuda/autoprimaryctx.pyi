# Type stubs for cudyn.pycuda.autoprimaryctx (the same as autoinit: cudyn uses primary contexts).
from .autoinit import context as context
from .autoinit import device as device
