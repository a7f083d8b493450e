"""The local rank has one reading, the C library's (cudyn_local_rank_info),
and every autoinit uses it (issue 41, row 16): cudyn.autoinit and
cudyn.pycuda.autoinit take the device the library would, and refuse, naming
the variable, a value the library refuses ("abc", a non-ASCII digit), where
they read such values their own way before (device 0, device 1)."""

import pytest

from conftest import run_python

pytestmark = pytest.mark.mock

VARIABLES = ("OMPI_COMM_WORLD_LOCAL_RANK", "SLURM_LOCALID", "PMI_LOCAL_RANK", "MV2_COMM_WORLD_LOCAL_RANK",
             "PALS_LOCAL_RANKID", "CUDYN_DEVICE", "CUDA_DEVICE", "MPI_LOCALRANKID")
AUTOINITS = {
    "cudyn": "import cudyn, cudyn.autoinit\nprint(cudyn.autoinit.device.ordinal, cudyn.device_current())",
    "pycuda": "import cudyn, cudyn.pycuda.autoinit as a\nprint(a.device.ordinal, cudyn.device_current())",
}


def run(autoinit, **env):
    clean = {name: None for name in VARIABLES}
    clean.update(env)
    return run_python(AUTOINITS[autoinit], extra=clean)


@pytest.mark.parametrize("autoinit", sorted(AUTOINITS))
@pytest.mark.parametrize("variable", VARIABLES[:5])
def test_every_launcher_variable_chooses_the_librarys_device(autoinit, variable):
    p = run(autoinit, **{variable: "3"})  # 3 modulo the mock's 2 devices
    assert p.returncode == 0, p.stderr
    assert p.stdout.split() == ["1", "1"]


@pytest.mark.parametrize("autoinit", sorted(AUTOINITS))
@pytest.mark.parametrize("value", ["abc", "\u0661", "-1", "1.0"])
def test_a_value_the_library_refuses_is_refused(autoinit, value):
    p = run(autoinit, SLURM_LOCALID=value)
    assert p.returncode != 0
    assert "InvalidArgument" in p.stderr and "SLURM_LOCALID" in p.stderr, p.stderr


@pytest.mark.parametrize("autoinit", sorted(AUTOINITS))
def test_no_launcher_and_explicit_choices(autoinit):
    assert run(autoinit).stdout.split() == ["0", "0"]
    assert run(autoinit, CUDYN_DEVICE="1", SLURM_LOCALID="0").stdout.split() == ["1", "1"]
    assert run(autoinit, CUDYN_DEVICE="local", SLURM_LOCALID="1").stdout.split() == ["1", "1"]
    p = run(autoinit, CUDYN_DEVICE="\u0661")
    assert p.returncode != 0 and "CUDYN_DEVICE" in p.stderr, p.stderr


def test_pycudas_own_variable_is_a_decimal_ordinal():
    assert run("pycuda", CUDA_DEVICE="1").stdout.split() == ["1", "1"]
    p = run("pycuda", CUDA_DEVICE="\u0661")
    assert p.returncode != 0 and "CUDA_DEVICE" in p.stderr, p.stderr


def test_the_variables_autoinit_names_are_the_librarys():
    # LOCAL_RANK_VARIABLES documents the library's list: each one is read
    p = run_python("""
        import os
        from cudyn import _cudyn, _ranks
        for name in _ranks.LOCAL_RANK_VARIABLES:
            os.environ[name] = "1"
            print(_cudyn._local_rank_info()["variable"] == name)
            del os.environ[name]
        """, extra={name: None for name in VARIABLES})
    assert p.returncode == 0, p.stderr
    assert p.stdout.split() == ["True"] * 5
