"""Looking at the package never touches a device (issue 40, item 4):
help(cudyn) and pydoc render every public module, and neither loads the
driver nor makes a context, with the mock driver and with no driver at
all.  cudyn.autoinit chooses a device when it is imported, so it is
imported by name only, never as a lazy attribute that pydoc or dir()
would reach."""

import pytest

from conftest import run_python

pytestmark = pytest.mark.mock

RENDER = """
    import pydoc, sys
    import cudyn, cudyn.pycuda
    for module in (cudyn, cudyn.pycuda):
        text = pydoc.render_doc(module, renderer=pydoc.plaintext)
        assert "NAME" in text, text[:200]
    import cudyn.gpuarray, cudyn.pycuda.driver, cudyn.pycuda.gpuarray
    for name in ("cudyn.gpuarray", "cudyn.pycuda.driver", "cudyn.pycuda.gpuarray"):
        pydoc.render_doc(sys.modules[name], renderer=pydoc.plaintext)
    print("cudyn.autoinit" in sys.modules, "cudyn.pycuda.autoinit" in sys.modules,
          "libcuda" in open("/proc/self/maps").read())
    """


def test_pydoc_makes_no_context_with_the_mock():
    p = run_python(RENDER)
    assert p.returncode == 0, p.stderr
    assert p.stdout.split() == ["False", "False", "False"], p.stdout


def test_pydoc_works_without_a_driver():
    p = run_python(RENDER, extra={"CUDYN_LIBCUDA": "/nonexistent/libcuda.so.1"})
    assert p.returncode == 0, p.stderr
    assert p.stdout.split() == ["False", "False", "False"], p.stdout


def test_autoinit_is_not_a_lazy_attribute():
    p = run_python("""
        import cudyn, cudyn.pycuda
        print("listed" if "autoinit" in dir(cudyn) else "unlisted")
        for module in (cudyn, cudyn.pycuda):
            try:
                module.autoinit
                print("reached")
            except AttributeError:
                print("refused")
        """)
    assert p.returncode == 0, p.stderr
    assert p.stdout.split() == ["unlisted", "refused", "refused"]
