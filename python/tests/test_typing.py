"""mypy accepts the package as a wheel installs it (issue 40, item 6): the
.py files beside their stubs, where mypy reads the private modules'
sources.  stubtest on that layout (what a user runs on the installed
package) needs mypy to build every module, then compares each with its
stub or, for a private module without one, with its source.  Skips
without mypy (Debian's python3-mypy)."""

import os
import shutil
import subprocess
import sys

import pytest

from conftest import child_env

pytestmark = pytest.mark.mock


def test_stubtest_on_the_installed_layout(tmp_path):
    pytest.importorskip("mypy.stubtest", reason="mypy is not installed (Debian: python3-mypy)")
    pytest.importorskip("numpy.typing")
    import cudyn
    site = tmp_path / "site"
    shutil.copytree(os.path.dirname(cudyn.__file__), site / "cudyn", symlinks=False,
                    ignore=shutil.ignore_patterns("__pycache__"))
    config = tmp_path / "mypy.ini"
    config.write_text(f"[mypy]\ncache_dir = {tmp_path / 'cache'}\n")
    env = child_env({"PYTHONPATH": str(site)})
    p = subprocess.run([sys.executable, "-m", "mypy.stubtest", "--mypy-config-file", str(config), "cudyn"],
                       cwd=str(site), env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       universal_newlines=True, timeout=600)
    assert p.returncode == 0 and "Success" in p.stdout, p.stdout[-4000:]
