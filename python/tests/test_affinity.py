"""The CPUs next to a GPU (cudyn.cpu_affinity, NVML's through the NVML mock)
and cudyn.autoinit.bind_near_gpu, which binds the process's threads to them
within what the process may already use.  Each runs in a child interpreter:
NVML is opened once per process."""

import os
import textwrap

import pytest

from conftest import run_python

pytestmark = pytest.mark.mock

TOP = os.environ.get("top_builddir")
MOCK_NVML = os.path.join(TOP, "tests", "mock", "nvml", ".libs", "libnvidia-ml.so.1") if TOP else None


def nvml_env(cpus):
    if not MOCK_NVML or not os.path.exists(MOCK_NVML):
        pytest.skip("the NVML mock is not built (run through make check)")
    return {"CUDYN_LIBNVML": MOCK_NVML, "MOCK_NVML_CPUS": cpus}


def test_cpu_affinity_is_nvmls_set_or_none():
    p = run_python("""
        import cudyn
        print(sorted(cudyn.cpu_affinity(0)), cudyn.cpu_affinity(1))
        try:
            cudyn.cpu_affinity(5)
        except cudyn.DeviceError as e:
            print("DeviceError", "cudyn_nvml_device_for_ordinal" in str(e))
        """, extra=nvml_env("0:0-3,8"))
    assert p.returncode == 0, p.stderr
    assert p.stdout.splitlines() == ["[0, 1, 2, 3, 8] None", "DeviceError True"]


def test_cpu_affinity_without_nvml_raises():
    p = run_python("""
        import cudyn
        try:
            cudyn.cpu_affinity(0)
        except cudyn.LoaderError as e:
            print("could not be loaded" in str(e))
        """, extra={"CUDYN_LIBNVML": "/nonexistent/libnvidia-ml.so.1"})
    assert p.returncode == 0, p.stderr
    assert p.stdout.split() == ["True"]


def test_cpu_list():
    from cudyn.autoinit import cpu_list
    assert cpu_list({0, 1, 2, 3, 8, 10, 11}) == "0-3,8,10-11"
    assert cpu_list({5}) == "5" and cpu_list(set()) == ""


# A thread started before the binding, then the binding: every thread of
# the process (the driver's too) ends on the CPUs it prints.
BIND = textwrap.dedent("""
    import os, sys, threading, cudyn.autoinit
    from cudyn.autoinit import cpu_list
    stop = threading.Event()
    t = threading.Thread(target=stop.wait)
    t.start()
    before = os.sched_getaffinity(0)
    bound, line = cudyn.autoinit.bind_near_gpu(enabled=sys.argv[1] == "bind")
    print(bound)
    print(line)
    print(cpu_list(before), cpu_list(os.sched_getaffinity(0)), cpu_list(os.sched_getaffinity(t.native_id)))
    stop.set()
    t.join()
""")


def test_bind_near_gpu_binds_every_thread():
    first = min(os.sched_getaffinity(0))
    p = run_python(BIND, extra=nvml_env(f"0:{first}"), args=["bind"])
    assert p.returncode == 0, p.stderr
    bound, line, masks = p.stdout.splitlines()
    assert bound == "True"
    assert line == f"device 0, CPUs {first} (NVML affinity)"
    assert masks.split()[1:] == [str(first), str(first)]


def test_bind_near_gpu_never_widens_nor_guesses():
    allowed = sorted(os.sched_getaffinity(0))
    if len(allowed) < 2:
        pytest.skip("needs two CPUs this process may use")
    first, second = allowed[0], allowed[1]
    # the process may use only the first CPU (as a launcher would bind it):
    # NVML's two CPUs are narrowed to it; GPU 1's only CPU is not widened to
    code = f"import os; os.sched_setaffinity(0, {{{first}}})\n" + BIND.replace(
        "bind_near_gpu(", "bind_near_gpu(int(sys.argv[2]), ")
    p = run_python(code, extra=nvml_env(f"0:{first},{second};1:{second}"), args=["bind", "0"])
    assert p.returncode == 0, p.stderr
    assert p.stdout.splitlines()[:2] == [
        "True", f"device 0, CPUs {first} (NVML affinity, within the CPUs already allowed; NVML's: "
        f"{first}{'-' if second == first + 1 else ','}{second})"]
    p = run_python(code, extra=nvml_env(f"1:{second}"), args=["bind", "1"])
    assert p.returncode == 0, p.stderr
    assert p.stdout.splitlines()[:2] == [
        "False", f"device 1, CPUs {first} (not bound: NVML's CPUs {second} are none of those this process may use)"]
    # NVML cannot tell for GPU 0; --no-bind: the CPUs stay as they were
    p = run_python(BIND, extra=nvml_env(f"1:{second}"), args=["bind"])
    assert p.returncode == 0, p.stderr
    bound, line, masks = p.stdout.splitlines()
    assert bound == "False" and line.endswith("(not bound: NVML cannot tell which CPUs are next to this GPU)")
    assert len(set(masks.split())) == 1
    p = run_python(BIND, extra=nvml_env(f"0:{first}"), args=["no-bind"])
    assert p.returncode == 0, p.stderr
    bound, line, masks = p.stdout.splitlines()
    assert bound == "False" and line.endswith("(not bound: --no-bind)") and len(set(masks.split())) == 1
