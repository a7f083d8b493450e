"""python3 -m cudyn.pycuda SCRIPT [ARGS] | -m MODULE [ARGS]: runs a PyCUDA
program unchanged, with ``pycuda`` answered by cudyn.pycuda."""

import os
import runpy
import sys

from . import install

USAGE = "usage: python3 -m cudyn.pycuda SCRIPT [ARGS ...]\n       python3 -m cudyn.pycuda -m MODULE [ARGS ...]"


def main(argv):
    if not argv or argv[0] in ("-h", "--help"):
        print(USAGE, file=sys.stdout if argv else sys.stderr)
        return 0 if argv else 2
    install()
    if argv[0] == "-m":
        if len(argv) < 2:
            print(USAGE, file=sys.stderr)
            return 2
        sys.argv = argv[1:]
        runpy.run_module(argv[1], run_name="__main__", alter_sys=True)
        return 0
    script = argv[0]
    if not os.path.isfile(script):
        print(f"cudyn.pycuda: no such script: {script}", file=sys.stderr)
        return 2
    sys.argv = list(argv)
    sys.path.insert(0, os.path.dirname(os.path.abspath(script)))
    runpy.run_path(script, run_name="__main__")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
