"""The README's Python program, as printed there, on the mock driver."""

import os
import re

import pytest

from conftest import SRCDIR, run_python

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
