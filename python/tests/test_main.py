"""python3 -m cudyn: cudainfo's listing and exit codes from the module, and
--json valid against the installed schema (cudyn-info/1)."""

import json
import os
import re
import subprocess
import sys

import pytest

from conftest import SRCDIR, child_env, run_python

pytestmark = pytest.mark.mock
SCHEMA = os.path.join(os.environ.get("top_builddir", ""), "tools", "schema", "bundled", "cudyn-info-1.schema.json")


def run_main(*args, extra=None):
    return subprocess.run([sys.executable, "-m", "cudyn"] + list(args), env=child_env(extra), stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, universal_newlines=True, timeout=120)


def validate(doc):
    """Checks doc against the bundled schema the build installs, with the
    stock validator, where jsonschema and the build tree are here."""
    jsonschema = pytest.importorskip("jsonschema")
    if not os.path.isfile(SCHEMA):
        pytest.skip(f"no {SCHEMA} (make builds it; run through make check)")
    with open(SCHEMA) as f:
        schema = json.load(f)
    jsonschema.validators.validator_for(schema).check_schema(schema)
    errors = [e.message for e in jsonschema.validators.validator_for(schema)(schema).iter_errors(doc)]
    assert errors == []


def test_lists_the_devices_as_cudainfo_does():
    p = run_main()
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    import cudyn
    assert lines[0].startswith(f"cudyn {cudyn.version()} (Python module, {os.path.dirname(cudyn.__file__)}; ")
    assert re.match(r"Driver:  CUDA \d+\.\d+, .*libcuda\.so\.1 \[CUDYN_LIBCUDA; \S+, \d+ entry points bound", lines[1])
    assert "Devices: 2 visible" in lines
    assert re.search(r"^  0  Mock GPU A  sm_90  0\.\d GiB  \d+ SMs  [0-9a-f:.]+  GPU-[0-9a-f-]+$", p.stdout, re.M)
    assert re.search(r"^  1  Mock GPU B  sm_80 ", p.stdout, re.M)
    assert p.stderr == ""


def test_json_is_the_module_s_info_and_valid():
    p = run_main("--json")
    assert p.returncode == 0, p.stderr
    doc = json.loads(p.stdout)
    assert doc["schema"] == "cudyn-info/1" and doc["device_count"] == 2
    assert doc["result"] == {"exit_code": 0, "status": "ok", "message": None, "hint": None}
    import cudyn
    assert doc["module"]["extension"] == os.path.abspath(cudyn._cudyn.__file__)
    assert doc["devices"][1]["name"] == "Mock GPU B" and len(doc["devices"][1]["uuid"]) == 32
    validate(doc)


def test_no_driver_says_why_with_cudainfo_s_exit_code():
    extra = {"CUDYN_LIBCUDA": "/nonexistent/libcuda.so.1"}
    p = run_main(extra=extra)
    assert p.returncode == 3, p.stderr
    assert "Driver:  not loaded (CUDYN_ERROR_DRIVER_NOT_FOUND)" in p.stdout.splitlines()
    assert "Devices: none" in p.stdout.splitlines()
    message, hint = p.stderr.splitlines()
    assert message.startswith("python3 -m cudyn: CUDYN_LIBCUDA=/nonexistent/libcuda.so.1 is not usable")
    assert "hint:" not in message and hint.startswith("python3 -m cudyn: hint: ")
    j = run_main("--json", extra=extra)
    doc = json.loads(j.stdout)
    assert j.returncode == 3 and doc["result"]["exit_code"] == 3 and doc["result"]["status"] == "error"
    assert doc["status"] == "CUDYN_ERROR_DRIVER_NOT_FOUND" and doc["devices"] == []
    validate(doc)


@pytest.mark.parametrize("fail, code", [("cuInit:1:100", 5), ("cuInit:1:3", 4)])
def test_driver_that_cannot_start(fail, code):
    p = run_main("--json", extra={"MOCK_CUDA_FAIL": fail})
    assert p.returncode == code, p.stderr
    doc = json.loads(p.stdout)
    assert doc["result"]["exit_code"] == code and doc["result"]["message"]
    validate(doc)


def test_hints_name_the_module_s_own_command():
    # a Python user may have no cudainfo (a wheel installs none): where the
    # library's hint says "run cudainfo --explain", the module's exceptions
    # name python3 -m cudyn --explain, and that command's --explain drops
    # the reference to itself, as cudainfo --explain does
    fail = {"MOCK_CUDA_FAIL": "cuInit:1:999"}
    p = run_python("""
        import cudyn
        try:
            cudyn.init()
        except cudyn.Error as e:
            print(e.hint)
            print(e.message)
        """, extra=fail)
    hint, message = p.stdout.splitlines()
    assert hint.endswith("run python3 -m cudyn --explain"), hint
    assert message.endswith("; hint: " + hint) and "cudainfo" not in p.stdout, p.stdout
    plain = run_main(extra=fail)
    assert plain.stderr.splitlines()[-1].endswith("run python3 -m cudyn --explain"), plain.stderr
    explained = run_main("--explain", extra=fail)
    last = explained.stderr.splitlines()[-1]
    assert last.startswith("python3 -m cudyn: hint: ") and "--explain" not in last, explained.stderr


def test_exit_codes_are_cudainfo_s():
    # the numbers __main__ uses, against TOOL_EXIT_CODES of tools/common.h
    with open(os.path.join(SRCDIR, "tools", "common.h")) as f:
        table = dict((name, int(code)) for code, name in re.findall(r"X\((\d+), (EXIT_\w+),", f.read()))
    from cudyn import __main__ as main
    for name in ("EXIT_OK", "EXIT_USAGE", "EXIT_NO_DRIVER", "EXIT_INIT_FAILED", "EXIT_NO_DEVICES", "EXIT_PARTIAL"):
        assert getattr(main, name) == table[name], name


def test_explain_prints_the_searches_and_the_toolkit(tmp_path):
    (tmp_path / "include").mkdir()
    (tmp_path / "include" / "cuda_runtime.h").write_text("")
    p = run_main("--explain", extra={"CUDYN_TOOLKIT": str(tmp_path), "CUDYN_LIBNVJITLINK": "/nonexistent/libnvJitLink.so.13"})
    assert p.returncode == 0, p.stderr
    assert "\nLoader search (libcuda):\n" in p.stdout and "\nLoader search (libnvrtc):\n" in p.stdout
    assert f"  headers: {tmp_path}/include [CUDYN_TOOLKIT]\n" in p.stdout
    assert "  libcudadevrt.a: none found: dynamic parallelism cannot be linked\n" in p.stdout
    assert "  nvJitLink: none found: cudyn links with the driver's linker\n" in p.stdout
    assert "CUDYN_LIBNVJITLINK=/nonexistent/libnvJitLink.so.13" in p.stdout
    doc = json.loads(run_main("--json", extra={"CUDYN_TOOLKIT": "none"}).stdout)
    assert doc["toolkit"]["include_path"] is None and doc["toolkit"]["cudadevrt"] is None
    validate(doc)


def test_explain_survives_a_toolkit_path_that_is_not_utf8(tmp_path):
    # issue 41, row 5: the library's text (a path of another encoding) is
    # decoded with escapes, never a UnicodeDecodeError
    toolkit = os.fsencode(tmp_path) + b"/tk\xe9"
    os.makedirs(toolkit + b"/include")
    open(toolkit + b"/include/cuda_runtime.h", "wb").close()
    p = run_main("--explain", extra={"CUDYN_TOOLKIT": os.fsdecode(toolkit)})
    assert p.returncode == 0, p.stderr
    assert f"  headers: {tmp_path}/tk\\xe9/include [CUDYN_TOOLKIT]\n" in p.stdout, p.stdout
