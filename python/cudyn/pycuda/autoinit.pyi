# Type stubs for cudyn.pycuda.autoinit (importing it pushes a context, popped at exit).
from .driver import Context, Device

context: Context
device: Device
