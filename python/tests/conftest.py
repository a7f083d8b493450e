"""pytest set-up for the cudyn module's tests.

`make check` runs them with the build's mock driver, mock NVRTC and mock
NCCL (MOCK_LIBCUDA, MOCK_LIBNVRTC, MOCK_LIBNCCL, as the C tests get them);
this process then points cudyn at them (CUDYN_LIBCUDA, CUDYN_LIBNVRTC,
CUDYN_LIBNCCL) before the first cudyn call, with two mock devices.
Scenarios that change a process for good (no driver, a stub, an old
driver, a fork, a sticky fault) run in child interpreters through
`run_python`.  Tests that need a real GPU run in child
interpreters without the mock (`real_gpu` fixture) and skip where there is
none.  Without MOCK_LIBCUDA (pytest run by hand) the mock tests skip.
"""

import atexit
import ctypes
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
SRCDIR = os.path.dirname(os.path.dirname(HERE))  # the top of the source tree
MOCK_LIBCUDA = os.environ.get("MOCK_LIBCUDA")
MOCK_LIBNVRTC = os.environ.get("MOCK_LIBNVRTC")
MOCK_LIBNCCL = os.environ.get("MOCK_LIBNCCL")
MOCK_DEVICES = "Mock GPU A:90,Mock GPU B:80"

# The NCCL the user named (a real one, for the GPU tests' children) and the
# kernel cache those children use (make check's, or the user's), as they
# were before this file set the mock's: pytest-xdist's workers inherit the
# environment this process changes below, so the first process to get here
# keeps the user's values under names of their own ("" for unset).
for _name in ("LIBNCCL", "CACHE_DIR"):
    os.environ.setdefault("CUDYN_PYTEST_USER_" + _name, os.environ.get("CUDYN_" + _name, ""))
USER_LIBNCCL = os.environ["CUDYN_PYTEST_USER_LIBNCCL"] or None
USER_CACHE_DIR = os.environ["CUDYN_PYTEST_USER_CACHE_DIR"] or None
# the mock environment of this process and of the children that want it
MOCK_ENV = {}
if MOCK_LIBCUDA:
    MOCK_ENV["CUDYN_LIBCUDA"] = MOCK_LIBCUDA
    MOCK_ENV["MOCK_CUDA_DEVICES"] = MOCK_DEVICES
    if MOCK_LIBNVRTC:
        MOCK_ENV["CUDYN_LIBNVRTC"] = MOCK_LIBNVRTC
    if MOCK_LIBNCCL:
        MOCK_ENV["CUDYN_LIBNCCL"] = MOCK_LIBNCCL
    # a kernel cache of the mock's own, whatever CUDYN_CACHE_DIR says: the
    # key leaves NVRTC out, so an entry the real NVRTC made for a GPU
    # test's child (same source, compute capability 9.0 like mock GPU A)
    # would be a real image, which the mock driver refuses to run
    MOCK_ENV["CUDYN_CACHE_DIR"] = tempfile.mkdtemp(prefix="cudyn-pytest-cache.")
    atexit.register(shutil.rmtree, MOCK_ENV["CUDYN_CACHE_DIR"], ignore_errors=True)
    for _name in ("MOCK_CUDA_FAIL", "MOCK_CUDA_STUB", "MOCK_CUDA_VERSION", "CUDYN_PTDS", "CUDYN_DEVICE"):
        os.environ.pop(_name, None)
    os.environ.update(MOCK_ENV)


def have_module():
    try:
        import cudyn  # noqa: F401
        return True
    except ImportError:
        return False


def pytest_collection_modifyitems(config, items):
    skip_mock = pytest.mark.skip(reason="MOCK_LIBCUDA not set (run through make check)")
    for item in items:
        if "mock" in item.keywords and not MOCK_LIBCUDA:
            item.add_marker(skip_mock)


def pytest_configure(config):
    config.addinivalue_line("markers", "mock: needs the build's mock driver (make check)")
    config.addinivalue_line("markers", "gpu: needs a real GPU (runs in a child interpreter)")


def child_env(extra=None, mock=True):
    """The environment of a child interpreter: this one's, with or without the mock."""
    env = dict(os.environ)
    for name in ("CUDYN_LIBCUDA", "CUDYN_LIBNVRTC", "CUDYN_LIBNCCL", "MOCK_CUDA_DEVICES", "CUDYN_CACHE_DIR"):
        env.pop(name, None)
    if mock:
        env.update(MOCK_ENV)
    else:
        for name, value in (("CUDYN_LIBNCCL", USER_LIBNCCL), ("CUDYN_CACHE_DIR", USER_CACHE_DIR)):
            if value:
                env[name] = value
    env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p and os.path.isdir(p))
    for name, value in (extra or {}).items():
        if value is None:
            env.pop(name, None)
        else:
            env[name] = value
    return env


def run_python(code, extra=None, mock=True, timeout=120, args=()):
    """Runs `code` in a fresh interpreter; the CompletedProcess (text output)."""
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)] + list(args), env=child_env(extra, mock),
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True, timeout=timeout)


def run_script(path, extra=None, mock=True, timeout=300, args=()):
    """Runs a Python file in a fresh interpreter; the CompletedProcess."""
    return subprocess.run([sys.executable, path] + list(args), env=child_env(extra, mock), stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, universal_newlines=True, timeout=timeout)


_real_gpu = None


def real_gpu_count():
    """Devices of a real driver (0 where there is none); asked once, in a child."""
    global _real_gpu
    if _real_gpu is None:
        p = run_python("""
            import cudyn
            try:
                n = cudyn.device_count()
                path = cudyn.loader_info().get("driver_path") or ""
                print(0 if "tests/mock" in path else n)
            except cudyn.Error:
                print(0)
            """, mock=False)
        try:
            _real_gpu = int(p.stdout.strip().splitlines()[-1])
        except (ValueError, IndexError):
            _real_gpu = 0
    return _real_gpu


@pytest.fixture
def real_gpu():
    """Skips unless a real GPU and driver are here; the device count."""
    if os.environ.get("CUDYN_PYTEST_NO_GPU") == "1":
        pytest.skip("CUDYN_PYTEST_NO_GPU=1")
    n = real_gpu_count()
    if n == 0:
        pytest.skip("no real GPU and driver on this machine")
    return n


@pytest.fixture
def mock_lib():
    """The loaded mock driver through ctypes (its mock_* control functions)."""
    if not MOCK_LIBCUDA:
        pytest.skip("MOCK_LIBCUDA not set (run through make check)")
    import cudyn
    cudyn.init()
    path = cudyn.loader_info()["driver_path"]
    return ctypes.CDLL(path)


def mock_memory_in_use(lib):
    lib.mock_memory_in_use.restype = ctypes.c_size_t
    return lib.mock_memory_in_use()


def mock_calls(lib, fn):
    lib.mock_calls.restype = ctypes.c_long
    lib.mock_calls.argtypes = [ctypes.c_char_p]
    return lib.mock_calls(fn.encode())


def mock_fail_next(lib, fn, code):
    lib.mock_fail_next.argtypes = [ctypes.c_char_p, ctypes.c_uint]
    lib.mock_fail_next(fn.encode(), code)
