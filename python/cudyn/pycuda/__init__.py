"""cudyn.pycuda: PyCUDA's modules over cudyn, so PyCUDA programs run unchanged.

New code imports it by its own name::

    import cudyn.pycuda.autoinit
    import cudyn.pycuda.driver as cuda
    from cudyn.pycuda.compiler import SourceModule

An existing PyCUDA program needs one line before its imports, or none when
it is started as ``python3 -m cudyn.pycuda program.py [args]``::

    import cudyn.pycuda; cudyn.pycuda.install()
    import pycuda.autoinit               # now cudyn.pycuda.autoinit
    import pycuda.driver as cuda         # now cudyn.pycuda.driver

install() adds an import hook that answers ``pycuda`` and ``pycuda.X`` with
this package and its modules; nothing is ever installed under the name
``pycuda`` on sys.path, so without the call a real PyCUDA (if any) is
imported as usual.  Modules PyCUDA has and this layer does not (OpenGL
interop, sparse solvers, compyte) raise ImportError saying so.  What
differs from PyCUDA, and why, is in docs/python.md ("Coming from PyCUDA").
"""

import importlib
import importlib.abc
import importlib.util
import sys

from cudyn._errors import Unsupported

__all__ = ["install", "uninstall", "installed", "Unsupported", "VERSION", "VERSION_TEXT"]

#: The PyCUDA release whose API this layer follows.
VERSION = (2025, 1, 2)
VERSION_STATUS = ""
VERSION_TEXT = ".".join(str(v) for v in VERSION)

# the modules this layer provides, under pycuda's names
MODULES = ("driver", "compiler", "gpuarray", "cumath", "elementwise", "reduction", "scan", "curandom", "tools",
           "characterize", "autoinit", "autoprimaryctx")

# PyCUDA's modules it does not provide, and why
NOT_PROVIDED = {
    "gl": "OpenGL interop is not part of cudyn (share buffers through CUDA's external memory instead)",
    "sparse": "PyCUDA's sparse solvers are not part of cudyn (CuPy's cupyx.scipy.sparse covers them)",
    "compyte": "compyte is PyCUDA's internal dtype table; cudyn.pycuda.tools.dtype_to_ctype and register_dtype"
               " are the public names",
    "_driver": "pycuda._driver is PyCUDA's C extension; cudyn.pycuda.driver holds its names",
    "_mymako": "PyCUDA's templating helper is not part of cudyn",
    "debug": "pycuda.debug needs cuda-gdb and nvcc's -g; cudyn compiles with NVRTC (-G works in options)",
}




class _Alias(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Answers imports of pycuda and pycuda.X with cudyn.pycuda and cudyn.pycuda.X."""

    def __init__(self):
        self._specs = {}  # cudyn.pycuda.X -> its own spec, restored after the alias's import

    def find_spec(self, fullname, path=None, target=None):
        if fullname != "pycuda" and not fullname.startswith("pycuda."):
            return None
        rest = fullname[len("pycuda"):]
        first = rest[1:].split(".")[0] if rest else ""
        if first and first not in MODULES:
            why = NOT_PROVIDED.get(first, "cudyn.pycuda provides " + ", ".join("pycuda." + m for m in MODULES))
            raise ModuleNotFoundError(f"No module named {fullname!r} in cudyn.pycuda: {why}", name=fullname)
        return importlib.util.spec_from_loader(fullname, self)

    def create_module(self, spec):
        module = importlib.import_module("cudyn.pycuda" + spec.name[len("pycuda"):])
        self._specs[module.__name__] = module.__spec__
        return module

    def exec_module(self, module):
        # the module ran when cudyn.pycuda.X was imported; the import system
        # has just set its __spec__ to the alias's (pycuda.X): it keeps its own
        module.__spec__ = self._specs.get(module.__name__, module.__spec__)


_finder = _Alias()


def installed():
    """Whether install() is in effect."""
    return _finder in sys.meta_path


def install():
    """Makes ``import pycuda`` and ``import pycuda.X`` give this layer.

    Refused (ImportError) when a real PyCUDA is already imported in this
    process: the two cannot share the names.  Calling it twice is harmless."""
    this = sys.modules[__name__]
    for name, module in list(sys.modules.items()):
        if (name == "pycuda" or name.startswith("pycuda.")) and module is not None and \
                module is not sys.modules.get("cudyn.pycuda" + name[len("pycuda"):]):
            raise ImportError(f"cudyn.pycuda.install(): {name} is already imported from elsewhere"
                              f" ({getattr(module, '__file__', None) or module!r}); call install() before the first"
                              " import of pycuda")
    if not installed():
        sys.meta_path.insert(0, _finder)
    sys.modules["pycuda"] = this


def uninstall():
    """Undoes install(): pycuda names resolve as they did before."""
    if installed():
        sys.meta_path.remove(_finder)
    for name in [n for n in sys.modules if n == "pycuda" or n.startswith("pycuda.")]:
        if getattr(sys.modules[name], "__name__", "").startswith("cudyn.pycuda"):
            del sys.modules[name]


def __getattr__(name):
    # pycuda.driver, pycuda.gpuarray ... as attributes after `import pycuda`;
    # not autoinit and autoprimaryctx, which make a context when imported:
    # only their import statement may (help() and pydoc reach attributes)
    if name in MODULES and name not in ("autoinit", "autoprimaryctx"):
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module 'cudyn.pycuda' has no attribute {name!r}")
