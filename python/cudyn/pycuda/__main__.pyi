# Type stubs for cudyn.pycuda.__main__ (python3 -m cudyn.pycuda SCRIPT: a PyCUDA program on cudyn).
from typing import Sequence

USAGE: str

def main(argv: Sequence[str]) -> int:
    """Runs a script or module (-m) with install() in effect; returns its exit status."""
