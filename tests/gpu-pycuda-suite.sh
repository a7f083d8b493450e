#!/bin/bash
# PyCUDA's own test suite (test_driver.py, test_gpuarray.py, test_cumath.py,
# unmodified) run on a GPU through cudyn.pycuda.install(), as
# `python3 -m cudyn.pycuda -m pytest`, in parallel shards; prints the
# passed / failed / skipped / out-of-scope counts, the share of in-scope
# items that pass, and each failure with its one-line reason.  Out of
# scope are the items tests/pycuda-suite-scope.txt lists (texture and
# surface references, a module PyCUDA needs that cudyn does not), whatever
# their outcome.
#
#   PYCUDA_TESTS=DIR tests/gpu-pycuda-suite.sh     (from a build directory, or
#                                                   with cudyn installed)
#
# DIR holds the three files (git clone https://github.com/inducer/pycuda;
# the scope list names the commit it was written for).  PYTHON picks the
# interpreter (numpy and pytest needed; pytools is used by one test,
# pytest-timeout, where present, bounds each test); PYCUDA_SUITE_JOBS the
# shards (4).  Not run by make check: it needs a GPU and PyCUDA's tests.
# Exit status: 0 when at least 90 % of the in-scope items pass, 1 below,
# 77 when it cannot run (no PYCUDA_TESTS, no pytest, no GPU).
set -u
here=$(cd "$(dirname "$0")" && pwd)
top_srcdir=${top_srcdir:-$(dirname "$here")}
python=${PYTHON:-python3}
jobs=${PYCUDA_SUITE_JOBS:-4}
scope=$top_srcdir/tests/pycuda-suite-scope.txt
tests_dir=${PYCUDA_TESTS:-}
[ -n "$tests_dir" ] || { echo "SKIP: set PYCUDA_TESTS to a directory with PyCUDA's test_*.py"; exit 77; }
for f in test_driver.py test_gpuarray.py test_cumath.py; do
    [ -f "$tests_dir/$f" ] || { echo "SKIP: no $tests_dir/$f"; exit 77; }
done
# a build tree: its staged module and library (as tests/check-python.sh)
if [ -d python/staged/cudyn ] && [ -d lib/.libs ]; then
    export PYTHONPATH="$PWD/python/staged${PYTHONPATH:+:$PYTHONPATH}"
    export LD_LIBRARY_PATH="$PWD/lib/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fi
"$python" -c 'import numpy, pytest, cudyn.pycuda' || { echo "SKIP: $python lacks numpy, pytest or cudyn"; exit 77; }
"$python" -c 'import cudyn, sys; sys.exit(0 if cudyn.device_count() > 0 else 1)' 2>/dev/null ||
    { echo "SKIP: no GPU"; exit 77; }
export PYTHONDONTWRITEBYTECODE=1
work=$(mktemp -d "${TMPDIR:-/tmp}/pycuda-suite.XXXXXX")
trap 'rm -rf "$work"' EXIT
cp "$tests_dir"/test_driver.py "$tests_dir"/test_gpuarray.py "$tests_dir"/test_cumath.py "$work"/
cd "$work" || exit 1
run_pytest() {
    "$python" -m cudyn.pycuda -m pytest -p no:cacheprovider "$@"
}
# a hang's bound, not a test's budget: test_curand_wrappers_16gb copies a
# 16 GiB array to the host 30 times, and ran past 300 s in 8 shards on an H200
timeout_opt=
"$python" -c 'import pytest_timeout' 2>/dev/null && timeout_opt=--timeout=900
start=$(date +%s)
run_pytest --collect-only -q test_driver.py test_gpuarray.py test_cumath.py 2>/dev/null | grep '::' > items.txt
[ -s items.txt ] || { echo "FAIL: pytest collected nothing (run_pytest --collect-only shows why)"; exit 1; }
echo "$(wc -l < items.txt) items, $jobs shards, pytest-timeout: ${timeout_opt:-none}"
for k in $(seq 0 $((jobs - 1))); do
    awk -v k="$k" -v n="$jobs" 'NR % n == k' items.txt > "shard$k.txt"
    (run_pytest -q $timeout_opt --junitxml="shard$k.xml" $(cat "shard$k.txt") > "shard$k.log" 2>&1) &
done
wait
echo "ran in $(( $(date +%s) - start )) s"
"$python" - "$scope" shard*.xml <<'PY'
import sys
import xml.etree.ElementTree as ET

scope = {}
for line in open(sys.argv[1]):
    if line.strip() and not line.startswith("#"):
        item, reason = line.rstrip("\n").split("\t", 1)
        scope[item] = reason
outcomes = {}
for path in sys.argv[2:]:
    for case in ET.parse(path).iter("testcase"):
        module, *klass = case.get("classname").split(".")
        item = "::".join([module + ".py"] + klass + [case.get("name")])
        kind, reason = "passed", ""
        for child in case:
            if child.tag in ("failure", "error"):
                kind, reason = "failed", (child.get("message") or "").splitlines()[0] if child.get("message") else ""
            elif child.tag == "skipped":
                kind, reason = "skipped", child.get("message") or ""
                if child.get("type") == "pytest.xfail":
                    kind = "xfailed"
        outcomes[item] = (kind, reason)
counts = {"passed": 0, "failed": 0, "skipped": 0, "xfailed": 0, "out of scope": 0}
failures = []
for item, (kind, reason) in sorted(outcomes.items()):
    if item in scope:
        counts["out of scope"] += 1
        continue
    counts[kind] += 1
    if kind == "failed":
        failures.append((item, reason))
in_scope = len(outcomes) - counts["out of scope"]
print("PyCUDA suite through cudyn.pycuda: " + ", ".join(f"{v} {k}" for k, v in counts.items()) +
      f" ({len(outcomes)} items)")
share = counts["passed"] / in_scope if in_scope else 0
print(f"in scope: {counts['passed']} of {in_scope} pass ({100 * share:.1f} %; target 90 %)")
for item, reason in failures:
    print(f"FAILED {item}: {reason[:200]}")
for item, reason in sorted(scope.items()):
    kind = outcomes.get(item, ("not collected", ""))[0]
    print(f"out of scope ({kind}): {item}: {reason}")
sys.exit(0 if share >= 0.9 else 1)
PY
