"""Linker (cudyn_link_*) and toolkit_info(): the driver's linker on the mock
(PTX joined and loaded, an undefined function refused with the log, the
checks of every argument), nvJitLink with a real NVRTC on the mock driver
where the toolkit is installed, and on a real GPU two relocatable units
and a kernel launching kernels (libcudadevrt.a) run and checked."""

import os

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))

CALLER_PTX = (".version 7.0\n.target sm_75\n.address_size 64\n"
              ".extern .func (.param .b32 func_retval0) twice(.param .b32 twice_param_0);\n"
              ".visible .entry k(.param .u64 k_param_0)\n{\n\tret;\n}\n")
CALLEE_PTX = (".version 7.0\n.target sm_75\n.address_size 64\n"
              ".visible .func (.param .b32 func_retval0) twice(.param .b32 twice_param_0)\n{\n\tret;\n}\n")
CALLEE_CU = 'extern "C" __device__ int twice(int x) { return 2 * x; }\n'
CALLER_CU = ('extern "C" __device__ int twice(int x);\n'
             'extern "C" __global__ void k(int *x) { x[threadIdx.x] = twice(x[threadIdx.x]) + 1; }\n')
CDP_CU = ('extern "C" __global__ void child(int *x, int base) { x[threadIdx.x] = base + threadIdx.x; }\n'
          'extern "C" __global__ void parent(int *x) { child<<<1, 32>>>(x + 32 * threadIdx.x, 100 * threadIdx.x); }\n')


@pytest.mark.mock
def test_driver_linker_joins_and_loads():
    import cudyn
    linker = cudyn.Linker(driver=True)
    assert linker.backend.startswith("driver")
    linker.add_data(CALLER_PTX.encode(), cudyn.LINK_PTX, "caller.ptx")
    linker.add_data(memoryview(CALLEE_PTX.encode()), name="callee.ptx")  # LINK_AUTO: PTX
    image = linker.complete()
    assert isinstance(image, bytes) and image[:4] == b"\x7fELF"
    assert "linked" in linker.log
    assert cudyn.Module.from_image(image).get_function("k").param_count == 1
    with pytest.raises(cudyn.InvalidArgument):
        linker.complete()  # once only
    linker.close()
    with pytest.raises(cudyn.InvalidArgument, match="closed"):
        linker.add_data(b"x")


@pytest.mark.mock
def test_an_undefined_function_fails_with_the_log(tmp_path):
    import cudyn
    linker = cudyn.Linker(driver=True)
    path = tmp_path / "caller.ptx"
    path.write_text(CALLER_PTX)
    linker.add_file(path)
    with pytest.raises(cudyn.Error) as info:
        linker.complete()
    assert info.value.status_name == "CUDYN_ERROR_LINK"
    assert "Undefined reference to 'twice'" in info.value.log
    assert "Undefined reference to 'twice'" in str(info.value)


@pytest.mark.mock
def test_arguments_are_checked(tmp_path):
    import cudyn
    with pytest.raises(TypeError):
        cudyn.Linker("-O3")  # a str, not a sequence of str
    with pytest.raises(TypeError):
        cudyn.Linker([3])
    with pytest.raises(cudyn.Error, match="needs nvJitLink") as info:
        cudyn.Linker(["-lto"], driver=True)
    assert info.value.status_name == "CUDYN_ERROR_NOT_SUPPORTED"
    with pytest.raises(cudyn.InvalidArgument):
        cudyn.Linker(driver=True, need_nvjitlink=True)
    linker = cudyn.Linker(driver=True)
    with pytest.raises(cudyn.InvalidArgument, match="kind"):
        linker.add_data(b"x", 99)
    with pytest.raises(TypeError):
        linker.add_data("not bytes")
    with pytest.raises(cudyn.Error) as info:
        linker.add_file(tmp_path / "missing.ptx")
    assert info.value.status_name == "CUDYN_ERROR_NOT_FOUND"
    with pytest.raises(cudyn.Error) as info:
        linker.add_data(b"\xed\x43\x4e\x7f1234", cudyn.LINK_AUTO, "k.ltoir")  # LTO-IR: nvJitLink only
    assert info.value.status_name == "CUDYN_ERROR_NOT_SUPPORTED"
    with pytest.raises(cudyn.InvalidArgument):
        linker.complete()  # nothing to link


IN_FLIGHT = """
import ctypes, threading, time, cudyn
from test_link import CALLER_PTX, CALLEE_PTX
mock = ctypes.CDLL(cudyn.loader_info()["driver_path"])
mock.mock_calls.restype, mock.mock_calls.argtypes = ctypes.c_long, [ctypes.c_char_p]
linker = cudyn.Linker(driver=True)
done = []
adding = threading.Thread(target=lambda: done.append(linker.add_data(CALLER_PTX.encode(), cudyn.LINK_PTX)))
adding.start()
while mock.mock_calls(b"cuLinkAddData_v2") == 0:  # in the driver (MOCK_CUDA_HANG), the GIL released
    time.sleep(0.001)
for name, call in (("close", linker.close), ("add_data", lambda: linker.add_data(CALLEE_PTX.encode())),
                   ("add_file", lambda: linker.add_file("/dev/null")), ("complete", linker.complete),
                   ("log", lambda: linker.log)):
    try:
        call()
        print(name, "accepted")
    except cudyn.InvalidArgument as e:
        print(name, "in use" in str(e))
adding.join()
linker.add_data(CALLEE_PTX.encode(), cudyn.LINK_PTX)
print(done == [None], cudyn.Module.from_image(linker.complete()).get_function("k").name)
linker.close()
linker.close()  # a second does nothing
"""


@pytest.mark.mock
def test_a_call_in_flight_holds_the_linker():
    # the lifetime rule: add_data runs in the driver without the GIL; close()
    # meanwhile would free the linker under it, and a second call would
    # race on it (cudyn.h: one thread at a time): both raise "in use"
    from conftest import run_python
    p = run_python(IN_FLIGHT, extra={"MOCK_CUDA_HANG": "cuLinkAddData_v2:1",
                                     "PYTHONPATH": os.pathsep.join([HERE, os.environ.get("PYTHONPATH", "")])})
    assert p.returncode == 0, p.stdout + p.stderr
    assert p.stdout.split("\n")[:6] == ["close True", "add_data True", "add_file True", "complete True",
                                        "log True", "True k"], p.stdout


@pytest.mark.mock
def test_options_with_a_nul_are_refused_not_cut():
    import cudyn
    for make in (lambda: cudyn.Linker(["-arch=sm_90\0 x"], driver=True),
                 lambda: cudyn.Linker(driver=True).add_source(CALLEE_CU, ["-DX=1\0-DY=2"]),
                 lambda: cudyn.Linker(driver=True).add_source(CALLEE_CU, headers={"a.h": "int x;\0int y;"})):
        with pytest.raises(cudyn.InvalidArgument, match="NUL"):
            make()
    with pytest.raises(TypeError, match="a sequence of str, not a str"):
        cudyn.Linker(driver=True).add_source(CALLEE_CU, "-DX=1")
    with pytest.raises(TypeError, match="headers must be a dict"):
        cudyn.Linker(driver=True).add_source(CALLEE_CU, headers=["a.h"])


@pytest.mark.mock
def test_toolkit_info_without_a_toolkit():
    from conftest import run_python
    p = run_python("""
        import cudyn
        t = cudyn.toolkit_info()
        print(t["include_path"], t["cudadevrt"], t["nvjitlink_status"], t["nvjitlink_path"])
        print("CUDYN_TOOLKIT=none" in t["trace"], "/nonexistent" in t["nvjitlink_trace"])
        try:
            cudyn.Linker(devrt=True)
        except cudyn.Error as e:
            print(e.status_name, "libcudadevrt.a" in str(e))
        """, extra={"CUDYN_TOOLKIT": "none", "CUDYN_LIBNVJITLINK": "/nonexistent/libnvJitLink.so.13"})
    assert p.returncode == 0, p.stderr
    assert p.stdout.split() == ["None", "None", "CUDYN_ERROR_NOT_SUPPORTED", "None", "True", "True",
                                "CUDYN_ERROR_NOT_FOUND", "True"]


@pytest.mark.mock
def test_toolkit_info_decodes_a_path_that_is_not_utf8(tmp_path):
    from conftest import run_python
    toolkit = os.fsencode(tmp_path) + b"/tk\xe9"
    os.makedirs(toolkit + b"/include")
    open(toolkit + b"/include/cuda_runtime.h", "wb").close()
    p = run_python("""
        import cudyn
        t = cudyn.toolkit_info()
        print(t["include_path"])
        print("tk\\\\xe9" in t["trace"])
        """, extra={"CUDYN_TOOLKIT": os.fsdecode(toolkit)})
    assert p.returncode == 0, p.stderr
    assert p.stdout.splitlines() == [f"{tmp_path}/tk\\xe9/include", "True"], p.stdout


@pytest.mark.mock
def test_the_toolkit_is_in_the_cache_key(tmp_path):
    """A kernel that includes a toolkit header compiles anew for another
    toolkit, and for the same toolkit's directory changed (installed
    again), and comes from the cache otherwise: its key holds the include
    directories' identities.  One that includes none comes from the cache
    whatever the toolkit (its entry serves any machine)."""
    from conftest import run_python
    for name in ("tk1", "tk2"):
        (tmp_path / name / "include").mkdir(parents=True)
        (tmp_path / name / "include" / "cuda_runtime.h").write_text("")  # what makes a toolkit's headers
        (tmp_path / name / "include" / "tk_value.h").write_text("#define TK_VALUE 1\n")
    code = """
        import sys, cudyn
        m = cudyn.Module.from_source(sys.argv[1] + 'extern "C" __global__ void k(int *x) { *x = 1; }')
        print(m.from_cache)
        """
    def from_cache(toolkit, include="#include <tk_value.h>\n"):
        p = run_python(code, extra={"CUDYN_TOOLKIT": str(tmp_path / toolkit),
                                    "CUDYN_CACHE_DIR": str(tmp_path / "cache")}, args=[include])
        assert p.returncode == 0, p.stderr
        return p.stdout.split()[-1]
    assert [from_cache("tk1"), from_cache("tk1"), from_cache("tk2"), from_cache("tk1")] == \
        ["False", "True", "False", "True"]
    (tmp_path / "tk1" / "include" / "new.h").write_text("")  # the directory changes
    assert [from_cache("tk1"), from_cache("tk1")] == ["False", "True"]
    assert [from_cache("tk1", ""), from_cache("tk2", ""), from_cache("tk1", "")] == ["False", "True", "True"]


@pytest.mark.mock
def test_add_source_needs_a_real_nvrtc():
    import cudyn
    linker = cudyn.Linker(driver=True)
    with pytest.raises(cudyn.Error, match="option -rdc=true"):  # the mock NVRTC makes no relocatable code
        linker.add_source(CALLEE_CU)


@pytest.mark.mock
@pytest.mark.skipif(os.environ.get("CUDYN_PYTEST_REAL_NVRTC") != "1", reason="no real NVRTC installed")
def test_nvjitlink_with_a_real_nvrtc_on_the_mock_driver():
    # the child imports this file for its sources: conftest (which points
    # cudyn at the mocks) is imported by the tests only, not at the top
    from conftest import run_python
    p = run_python("""
        import cudyn
        from test_link import CALLEE_CU, CALLER_CU
        t = cudyn.toolkit_info()
        if t["nvjitlink_status"] != "CUDYN_OK":
            print("skip"); raise SystemExit(0)
        linker = cudyn.Linker(need_nvjitlink=True)
        linker.add_source(CALLER_CU, name="caller.cu")
        linker.add_source('#include "callee.h"\\n', name="callee.cu", headers={"callee.h": CALLEE_CU})
        image = linker.complete()
        print(linker.backend.split()[0], image[:4] == b"\\x7fELF", cudyn.Module.from_image(image).get_function("k").name)
        try:
            broken = cudyn.Linker(need_nvjitlink=True)
            broken.add_source(CALLER_CU)
            broken.complete()
        except cudyn.Error as e:
            print(e.status_name, "twice" in e.log)
        try:
            cudyn.Linker().add_source("__global__ void k() { undefined_name; }")
        except cudyn.CompileError as e:
            print("CompileError", "undefined_name" in e.log)
        """, extra={"CUDYN_LIBNVRTC": None, "PYTHONPATH": os.pathsep.join([HERE, os.environ.get("PYTHONPATH", "")])})
    assert p.returncode == 0, p.stderr
    if p.stdout.strip() != "skip":
        assert p.stdout.split() == ["nvJitLink", "True", "k", "CUDYN_ERROR_LINK", "True", "CompileError", "True"]


@pytest.mark.gpu
def test_linked_kernels_run_on_a_gpu(real_gpu):
    from conftest import run_python
    p = run_python("""
        import numpy as np, cudyn
        from test_link import CALLEE_CU, CALLER_CU, CDP_CU
        for driver in (False, True):
            linker = cudyn.Linker(driver=driver)
            linker.add_source(CALLER_CU)
            linker.add_source(CALLEE_CU)
            mod = cudyn.Module.from_image(linker.complete())
            x = cudyn.gpuarray.to_gpu(np.arange(32, dtype=np.int32))
            mod.get_function("k")(x, grid=(1,), block=(32,))
            assert (x.get() == 2 * np.arange(32) + 1).all(), linker.backend
            if cudyn.toolkit_info()["cudadevrt"]:
                cdp = cudyn.Linker(driver=driver, devrt=True)
                cdp.add_source(CDP_CU)
                mod = cudyn.Module.from_image(cdp.complete())
                y = cudyn.gpuarray.zeros(4 * 32, np.int32)
                mod.get_function("parent")(y, grid=(1,), block=(4,))
                want = (100 * np.arange(4)[:, None] + np.arange(32)[None, :]).ravel()
                assert (y.get() == want).all(), cdp.backend
            print(linker.backend, "ok")
        """, mock=False, timeout=600,
        extra={"PYTHONPATH": os.pathsep.join([HERE, os.environ.get("PYTHONPATH", "")])})
    if p.returncode == 77:
        pytest.skip(p.stdout.strip())
    assert p.returncode == 0, p.stdout + p.stderr
    assert p.stdout.count(" ok") == 2


def test_module_exports_the_linker():
    import cudyn
    assert cudyn.Linker is cudyn._cudyn.Linker and callable(cudyn.toolkit_info)
    assert [cudyn.LINK_AUTO, cudyn.LINK_CUBIN, cudyn.LINK_PTX, cudyn.LINK_LTOIR, cudyn.LINK_FATBIN,
            cudyn.LINK_OBJECT, cudyn.LINK_LIBRARY] == list(range(7))
