# Type stubs for cudyn.pycuda.cumath: cudyn.cumath under PyCUDA's name.
from cudyn.cumath import *
from cudyn.cumath import __all__ as __all__
