"""examples/python/*.py run against the mock driver, and on a real GPU where
there is one; examples/python/pycuda/*.py (PyCUDA programs, unchanged) the
same way, under python3 -m cudyn.pycuda."""

import os
import re
import shutil

import pytest

from conftest import SRCDIR, run_script

EXAMPLES = os.path.join(SRCDIR, "examples", "python")
# example -> (arguments on the mock, arguments on a GPU, the line that says it worked)
CASES = {
    "saxpy.py": (["-n", "4096"], [], "Result = PASS"),
    "vec_elm_mul.py": ([], [], "PASS"),
    "gpuarray_double.py": ([], [], "PASS"),
    "struct_args.py": ([], [], "PASS"),
    "texture.py": ([], [], "PASS"),
    "mpi_scale.py": (["4096", "3"], [], "PASS"),
}


PYCUDA_EXAMPLES = os.path.join(EXAMPLES, "pycuda")
# PyCUDA example -> arguments (the same on the mock and on a GPU)
PYCUDA_CASES = {
    "double_array.py": [],
    "multiply_them.py": [],
    "gpudata_slices.py": [],
    "mpi_contexts.py": ["4096"],
}


def test_every_example_is_listed():
    present = sorted(f for f in os.listdir(EXAMPLES) if f.endswith(".py"))
    assert present == sorted(CASES)
    assert sorted(f for f in os.listdir(PYCUDA_EXAMPLES) if f.endswith(".py")) == sorted(PYCUDA_CASES)


# The examples that compute with gpuarray (gpuarray_double.py,
# gpudata_slices.py) run whole on the mock too: its host evaluator runs
# the kernels the Python layer writes (tests/mock/mock_eval.c).
def _check(p, name, expected):
    if name.startswith("mpi_") and p.returncode == 77:
        assert p.stdout.startswith("skipped: mpi4py"), p.stdout
        pytest.skip("mpi4py is not installed")
    assert p.returncode == 0, f"{name} exited {p.returncode}\n{p.stdout}\n{p.stderr}"
    assert expected in p.stdout.splitlines(), p.stdout


@pytest.mark.mock
@pytest.mark.parametrize("name", sorted(CASES))
def test_example_on_the_mock(name):
    args, _, expected = CASES[name]
    _check(run_script(os.path.join(EXAMPLES, name), args=args), name, expected)


@pytest.mark.gpu
@pytest.mark.parametrize("name", sorted(CASES))
def test_example_on_a_gpu(name, real_gpu):
    _, args, expected = CASES[name]
    _check(run_script(os.path.join(EXAMPLES, name), mock=False, args=args), name, expected)


def _mpi_scale_two_ranks(mock, args=()):
    """mpi_scale.py under mpirun -n 2 (skips without mpirun or mpi4py)."""
    mpirun = os.environ.get("MPIRUN") or shutil.which("mpirun")
    if not mpirun:
        pytest.skip("needs mpirun")
    import subprocess
    import sys

    from conftest import child_env
    env = child_env(mock=mock)
    # Open MPI refuses root unless told twice (CI and GPU machines run as root)
    env.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    env.setdefault("NCCL_NVLS_ENABLE", "0")
    p = subprocess.run([mpirun, "--oversubscribe", "-n", "2", sys.executable, os.path.join(EXAMPLES, "mpi_scale.py")]
                       + list(args), env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       universal_newlines=True, timeout=300)
    if p.returncode == 77 or "skipped: mpi4py" in p.stdout:
        pytest.skip("mpi4py is not installed")
    assert p.returncode == 0, p.stdout + p.stderr
    assert "rank 0 of 2: device 0" in p.stdout and "rank 1 of 2: device 1" in p.stdout
    assert "PASS" in p.stdout.splitlines()
    return p.stdout


@pytest.mark.gpu
def test_mpi_example_one_rank_per_gpu(real_gpu):
    if real_gpu < 2:
        pytest.skip("needs two GPUs")
    out = _mpi_scale_two_ranks(mock=False)
    assert "NCCL step skipped" in out or "over 2 ranks: element 1048575 = " in out, out


@pytest.mark.mock
def test_mpi_example_two_ranks_on_the_mock_nccl():
    # two processes meet through the unique id mpi4py broadcast (the mock
    # NCCL's shared memory), each on its mock device
    out = _mpi_scale_two_ranks(mock=True, args=["--no-bind", "4096", "3"])
    assert re.search(r"^NCCL 2\.28\.9 all-reduce of the parts over 2 ranks: element 4095 = (\S+), expected \1, "
                     r"checked on every rank: PASS$", out, re.M), out


@pytest.mark.mock
def test_saxpy_example_catches_a_wrong_element():
    # the mock's saxpy kernel adds 1 to element 5: the exact check must see it
    p = run_script(os.path.join(EXAMPLES, "saxpy.py"), extra={"MOCK_CUDA_CORRUPT": "5"}, args=["-n", "64"])
    assert p.returncode == 1, p.stdout + p.stderr
    assert "1 elements differ" in p.stdout and "Result = FAIL" in p.stdout.splitlines()


def _run_pycuda_example(name, mock):
    import subprocess
    import sys

    from conftest import child_env
    return subprocess.run([sys.executable, "-m", "cudyn.pycuda", os.path.join(PYCUDA_EXAMPLES, name)] +
                          PYCUDA_CASES[name], env=child_env(mock=mock), stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, universal_newlines=True, timeout=300)


@pytest.mark.mock
@pytest.mark.parametrize("name", sorted(PYCUDA_CASES))
def test_pycuda_example_on_the_mock(name):
    _check(_run_pycuda_example(name, mock=True), name, "PASS")


@pytest.mark.gpu
@pytest.mark.parametrize("name", sorted(PYCUDA_CASES))
def test_pycuda_example_on_a_gpu(name, real_gpu):
    p = _run_pycuda_example(name, mock=False)
    _check(p, name, "PASS")
