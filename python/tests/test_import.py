"""Importing cudyn: no driver, no NVRTC, nothing heavy; every public name documented."""

import inspect

import pytest

from conftest import run_python


def test_import_loads_no_driver_and_no_nvrtc():
    p = run_python("""
        import numpy, sys
        import cudyn
        maps = open("/proc/self/maps").read()
        print("libcuda" in maps, "libnvrtc" in maps, "cudyn.gpuarray" in sys.modules,
              "cudyn.elementwise" in sys.modules)
        """)
    assert p.returncode == 0, p.stderr
    assert p.stdout.split() == ["False", "False", "False", "False"]


def test_first_use_loads_the_driver():
    p = run_python("""
        import cudyn
        cudyn.device_count()
        maps = open("/proc/self/maps").read()
        print(cudyn.loader_info()["driver_path"] in maps)
        """)
    assert p.returncode == 0, p.stderr
    assert p.stdout.split() == ["True"]


def test_import_without_numpy_imports_no_numpy():
    p = run_python("""
        import sys
        import cudyn
        print("numpy" in sys.modules)
        """)
    assert p.returncode == 0, p.stderr
    assert p.stdout.split() == ["False"]


def test_lazy_submodules_resolve():
    import cudyn
    assert cudyn.gpuarray.__name__ == "cudyn.gpuarray"
    assert cudyn.ElementwiseKernel is cudyn.elementwise.ElementwiseKernel
    assert cudyn.ReductionKernel is cudyn.elementwise.ReductionKernel
    with pytest.raises(AttributeError):
        cudyn.no_such_name
    assert "gpuarray" in dir(cudyn)


def test_status_tables_work_without_a_driver():
    p = run_python("""
        import cudyn
        print(cudyn.status_name(0), cudyn.status_name(17), cudyn.status_name(35))
        print(cudyn.status_string(17))
        print("libcuda" in open("/proc/self/maps").read())
        """, extra={"CUDYN_LIBCUDA": "/nonexistent/libcuda.so.1"})
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    assert lines[0].split() == ["CUDYN_OK", "CUDYN_ERROR_OUT_OF_MEMORY", "CUDYN_ERROR_FORKED"]
    assert lines[1] == "out of memory"
    assert lines[2] == "False"


def test_version():
    import cudyn
    assert isinstance(cudyn.version(), str) and cudyn.version()
    assert cudyn.__version__ == cudyn.version()


def _public(module):
    for name in getattr(module, "__all__", [n for n in dir(module) if not n.startswith("_")]):
        yield name, getattr(module, name)


def test_every_public_name_has_a_docstring():
    import importlib

    import cudyn
    import cudyn.autoinit  # noqa: F401  (a mock device exists)
    from cudyn import cumath, curandom, elementwise, gpuarray, nccl, scan
    layer = [importlib.import_module(f"cudyn.pycuda.{name}") for name in cudyn.pycuda.MODULES]
    missing = []
    for module in [cudyn, gpuarray, elementwise, cudyn.autoinit, cumath, scan, curandom, nccl, cudyn.pycuda] + layer:
        assert module.__doc__, module.__name__
        for name, obj in _public(module):
            if inspect.ismodule(obj) or not (inspect.isclass(obj) or callable(obj)):
                continue
            if not (obj.__doc__ or "").strip():
                missing.append(f"{module.__name__}.{name}")
            if inspect.isclass(obj):
                for attr, member in vars(obj).items():
                    if attr.startswith("_") or not (callable(member) or isinstance(member, property)):
                        continue
                    if not (getattr(member, "__doc__", None) or "").strip():
                        missing.append(f"{module.__name__}.{name}.{attr}")
    assert not missing, "no docstring: " + ", ".join(missing)
