"""pycuda.cumath over cudyn: cudyn.cumath (any layout, complex numbers, out= and stream=)."""

from cudyn.cumath import *  # noqa: F401,F403
from cudyn.cumath import __all__  # noqa: F401
