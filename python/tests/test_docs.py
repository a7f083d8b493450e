"""The README's Python programs, and docs/python.md's NCCL one, as printed
there, on the mock driver (the NCCL ones on the mock NCCL, two ranks under
mpirun where mpirun and mpi4py are)."""

import os
import re

import pytest

from conftest import SRCDIR, child_env, run_python

pytestmark = pytest.mark.mock


def python_block(path, section):
    """The first ```python block under '## section' of a Markdown file."""
    lines, inside, code = open(path, encoding="utf-8").read().splitlines(), False, None
    for line in lines:
        if line == f"## {section}":
            inside = True
        elif inside and line.startswith("## "):
            break
        elif inside and code is None and line == "```python":
            code = []
        elif code is not None and line.startswith("```"):
            return "\n".join(code) + "\n"
        elif code is not None:
            code.append(line)
    raise AssertionError(f"no python block under '## {section}' in {path}")


def test_readme_python_program_prints_what_it_says():
    code = python_block(os.path.join(SRCDIR, "README.md"), "Python")
    promised = re.search(r"# prints (.*)$", code, re.M).group(1)
    p = run_python(code)
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip().splitlines()[-1] == promised


def two_ranks(code, tmp_path):
    """code run by two MPI ranks on the mock (skips without mpirun or mpi4py)."""
    import shutil
    import subprocess
    import sys
    mpirun = os.environ.get("MPIRUN") or shutil.which("mpirun")
    if not mpirun:
        pytest.skip("needs mpirun")
    script = tmp_path / "program.py"
    script.write_text(code)
    env = child_env({"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1"})
    p = subprocess.run([mpirun, "--oversubscribe", "-n", "2", sys.executable, str(script)], env=env,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True, timeout=300)
    if "No module named 'mpi4py'" in p.stderr:
        pytest.skip("mpi4py is not installed")
    assert p.returncode == 0, p.stdout + p.stderr
    return p.stdout.splitlines()


def test_readme_nccl_python_program_prints_what_it_says(tmp_path):
    code = python_block(os.path.join(SRCDIR, "README.md"), "MPI: a rank per GPU, halos between processes")
    assert "cudyn.nccl" in code
    promised = re.search(r"# prints (.*)$", code, re.M).group(1)
    assert two_ranks(code, tmp_path) == [promised]


def test_python_guides_nccl_program_prints_what_it_says(tmp_path):
    code = python_block(os.path.join(SRCDIR, "docs", "python.md"), "Across GPUs and nodes: NCCL and MPI")
    promised = re.search(r"# prints (.*) on 2 ranks ", code, re.M).group(1)
    assert two_ranks(code, tmp_path) == [promised]
