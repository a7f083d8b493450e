"""``import pycuda.autoprimaryctx``: as autoinit (cudyn's contexts are the primary ones anyway)."""

from .autoinit import context, device  # noqa: F401
