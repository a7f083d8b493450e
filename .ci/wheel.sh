#!/bin/bash
# The Python module as pip users get it, offline, from the release tarball:
#  1. make dist, then python3 -m build --no-isolation from the unpacked
#     tarball: an sdist and, from it, the abi3 wheel (cp311-abi3: the
#     stable ABI of the floor, for every CPython from it on); and with
#     CUDYN_VERSION_SPECIFIC=1 the version-specific wheel of Debian's
#     CPython (cp311-cp311, the one the index serves to 3.11: setup.py);
#  2. each wheel checked as auditwheel would (packaging/check-wheel.py:
#     NEEDED, RPATH, exports, .note.dlopen, tags, size, highest GLIBC, and
#     for the abi3 one its Python symbols against the floor's stable ABI),
#     and each must be a manylinux_2_17 wheel (--require: setup.py tags
#     what the symbol table proves, and python/manylinux_glibc.c keeps it
#     there); their metadata renders on the package index (twine check);
#  3. each installed with pip --no-index into a fresh virtual environment
#     that sees Debian's numpy and pytest (--system-site-packages), where
#     the module's whole pytest suite runs on the mock driver against the
#     installed wheel (tests/check-python.sh with CUDYN_PYTHON_INSTALLED:
#     the module from the environment, no libcudyn.so loaded); for the
#     abi3 one, pip show's version, summary, licence and Python floor are
#     those of packaging/debian and the RPM spec
#     (packaging/check-metadata.py), and python3 -m cudyn lists the mock's
#     GPUs and writes JSON that the installed schema accepts; the installed
#     schemas validate the tools' documents with the stock jsonschema
#     command (Debian's, and the PATH's where it is another version);
#  3b. the abi3 wheel in every other CPython of the floor or later found
#     here (CUDYN_WHEEL_PYTHONS, else python3.N on PATH and pyenv's
#     versions; none on a fresh Debian 12): installed into a fresh virtual
#     environment, the no-numpy checks of 4, a kernel launched and a
#     prepared call through vectorcall (3.12 on), and the pytest suite
#     where that interpreter has numpy and pytest;
#  4. a virtual environment without numpy: import cudyn, DeviceMemory, and
#     arrays that say they need numpy;
#  5. the python3 on PATH, where it is another interpreter with its
#     headers: pip install of the tarball itself into its own virtual
#     environment (setuptools and wheel from Debian's .whl files), then 4
#     there, and 3's pytest suite where it has numpy and pytest;
#  6. pip install . from a fresh clone of this checkout (where it is one):
#     the same files as the tarball's wheel, and no build/ folder left.
#
#   .ci/wheel.sh BUILDDIR [OUTDIR]
#
# BUILDDIR is a configured and built tree (its make dist makes the tarball,
# its mock driver runs the tests); OUTDIR (default _ci/wheel) gets the
# sdist, the wheels and the virtual environments.  The last line is the
# summary; the exit code is 0 when everything held.
set -uo pipefail
build=$(cd "${1:?usage: .ci/wheel.sh BUILDDIR [OUTDIR]}" && pwd) || exit 1
out=${2:-}
[ -z "$out" ] || { mkdir -p "$out" && out=$(cd "$out" && pwd); } || exit 1
cd "$(dirname "$0")/.." || exit 1
top=$PWD
out=${out:-$top/_ci/wheel}
export LC_ALL=C.UTF-8 PIP_NO_INDEX=1 PIP_DISABLE_PIP_VERSION_CHECK=1 PYTHONDONTWRITEBYTECODE=1
mock="$build/tests/mock/.libs/libcuda.so.1"
mock_nvrtc="$build/tests/mock/nvrtc/.libs/libnvrtc.so.13"
# Debian's interpreter, with python3-build, -setuptools, -wheel, -venv, numpy
# and pytest (the python3 on PATH may be another: step 5)
python=/usr/bin/python3
failures=0
summary=()

step() { printf '\n==== %s (%d s)\n' "$*" $SECONDS; }
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
note() { summary+=("$*"); }

rm -rf "$out" && mkdir -p "$out/src" "$out/dist" "$out/run" || exit 1

step "release tarball (make dist) and python3 -m build --no-isolation from it"
version=$(sed -n 's/^VERSION = //p' "$build/Makefile")
make -s -C "$build" dist > "$out/dist.log" 2>&1 || { tail -20 "$out/dist.log"; fail "make dist"; exit 1; }
tarball="$build/cudyn-$version.tar.gz"
tar -xzf "$tarball" -C "$out/src" || exit 1
[ -f "$out/src/cudyn-$version/pyproject.toml" ] || fail "the tarball has no pyproject.toml"
if ! (cd "$out/src/cudyn-$version" && "$python" -m build --no-isolation --outdir "$out/dist" .) > "$out/build.log" 2>&1; then
    tail -40 "$out/build.log"
    fail "python3 -m build --no-isolation"
    exit 1
fi
# the version-specific wheel, from the same tree (setup.py builds it apart)
if ! (cd "$out/src/cudyn-$version" && CUDYN_VERSION_SPECIFIC=1 "$python" -m build --no-isolation --wheel \
        --outdir "$out/dist" .) > "$out/build-version-specific.log" 2>&1; then
    tail -40 "$out/build-version-specific.log"
    fail "CUDYN_VERSION_SPECIFIC=1 python3 -m build --no-isolation --wheel"
    exit 1
fi
wheel=$(ls "$out"/dist/cudyn-"$version"-cp3*-abi3-*.whl)
specific_wheel=$(ls "$out"/dist/cudyn-"$version"-cp3*-cp3*-*.whl)
sdist="$out/dist/cudyn-$version.tar.gz"
echo "built: $(cd "$out/dist" && ls)"
[ -f "$wheel" ] || fail "no abi3 wheel (cp3X-abi3) was built"
[ -f "$specific_wheel" ] || fail "no version-specific wheel (cp3X-cp3X) was built"
tar -tzf "$sdist" > "$out/sdist.txt" && grep -q "^cudyn-$version/PKG-INFO$" "$out/sdist.txt" || fail "the sdist has no PKG-INFO"

step "the wheels, as auditwheel would check them"
# the oldest glibc the wheels are to run on (python/manylinux_glibc.c)
manylinux=manylinux_2_17
for w in "$wheel" "$specific_wheel"; do
    log="$out/check-$(basename "$w" .whl).log"
    "$python" "$top/packaging/check-wheel.py" "$w" --library "$build/lib/.libs/libcudyn.so.1" --require "$manylinux" |
        tee "$log"
    [ "${PIPESTATUS[0]}" = 0 ] || fail "packaging/check-wheel.py --require $manylinux $(basename "$w")"
    note "$(sed -n 's/^wheel: \(.*\): [0-9]* bytes (\(.*\))$/\1 \2/p' "$log"), NEEDED $(sed -n 's/^NEEDED: //p' "$log"), \
$(sed -n 's/^highest GLIBC version: \([^,]*\),.*/\1 at most/p' "$log"), $(sed -n 's/.*; \([0-9]*\) Python symbols imported$/\1/p' \
        "$log") Python symbols"
done
if command -v twine > /dev/null; then
    # the long description and the metadata as the package index reads them
    twine --no-color check --strict "$wheel" "$specific_wheel" "$sdist" | tee "$out/twine.log"
    [ "${PIPESTATUS[0]}" = 0 ] && note "twine check: passed" || fail "twine check"
else
    fail "no twine (Debian: twine) to check the metadata the package index reads"
fi

# venv PYTHON DIR [--system-site-packages]: a fresh virtual environment
venv() {
    "$1" -m venv "${@:3}" "$2" > "$out/venv.log" 2>&1 || { cat "$out/venv.log"; fail "$1 -m venv $2"; return 1; }
}

# no_numpy PYTHON: import cudyn, a DeviceMemory round trip on the mock, and
# arrays that name numpy as what they need; python3 -m cudyn works too
no_numpy() {
    (cd "$out/run" && CUDYN_LIBCUDA="$mock" CUDYN_LIBNVRTC="$mock_nvrtc" CUDYN_CACHE_DIR="$out/cache" "$1" - <<'PY'
import sys
import cudyn
assert "numpy" not in sys.modules, "import cudyn imported numpy"
try:
    import numpy  # noqa: F401
    sys.exit("this environment has numpy")
except ImportError:
    pass
memory = cudyn.DeviceMemory(16)
cudyn.memcpy_htod(memory, b"0123456789abcdef")
back = bytearray(16)
cudyn.memcpy_dtoh(back, memory)
assert back == b"0123456789abcdef", back
# a launch and a prepared call, through vectorcall where the type has it:
# the abi3 module from 3.12 on (3.11's limited API has none), else always
f = cudyn.SourceModule('extern "C" __global__ void empty() {}', no_extern_c=True).get_function("empty")
f(grid=(1,), block=(1,))
f.prepare("", grid=(1,), block=(1,))()
cudyn.synchronize()
abi3 = cudyn._cudyn.__file__.endswith(".abi3.so")
vectorcall = bool(type(f).__flags__ & (1 << 11))
assert vectorcall == (not abi3 or sys.version_info >= (3, 12)), (abi3, vectorcall)
print(f"  a launch and a prepared call: through {'vectorcall' if vectorcall else 'tp_call'}")
for name, use in (("cudyn.gpuarray", lambda: cudyn.gpuarray), ("cudyn.pagelocked_empty", lambda: cudyn.pagelocked_empty(4)),
                  ("cudyn.ElementwiseKernel", lambda: cudyn.ElementwiseKernel),
                  ("cudyn.DeviceArray", lambda: cudyn.DeviceArray((4,), "float32"))):
    try:
        use()
        sys.exit(f"{name} worked without numpy")
    except ImportError as e:
        assert e.name == "numpy" and "numpy" in str(e), (name, e)
        print(f"  {name}: {type(e).__name__}: {e}")
print(f"no numpy: cudyn {cudyn.version()} from {cudyn.__file__}, DeviceMemory round trip on the mock")
PY
    ) || { fail "$1 without numpy"; return 1; }
    (cd "$out/run" && CUDYN_LIBCUDA="$mock" "$1" -m cudyn) || { fail "$1 -m cudyn without numpy"; return 1; }
}

# suite PYTHON: the module's pytest suite against PYTHON's installed cudyn;
# its tally in suite_tally (run in this shell, not in $(...), so that its
# failure counts)
suite() {
    make -s -C "$build" check TESTS=tests/check-python.sh VALGRIND= CUDYN_PYTHON_INSTALLED="$1" > /dev/null 2>&1
    local rc=$? log="$build/tests/check-python.sh.log"
    cp "$log" "$out/pytest-$(basename "$(dirname "$(dirname "$1")")").log"
    grep -E '^the installed module:|^[0-9]+ (passed|failed)|passed|failed' "$log" | tail -n 3
    suite_tally=failed
    grep -q '^PASS: check-python.sh' "$log" && [ $rc = 0 ] || { tail -60 "$log"; fail "the pytest suite with $1"; return 1; }
    suite_tally=$(grep -E '^[0-9]+ passed|^=+ .*passed' "$log" | tail -n 1 | tr -d '=')
}

# installed_checks PYTHON LABEL: no_numpy's checks where PYTHON has no
# numpy, and the suite where it has numpy and pytest
installed_checks() {
    if ! "$1" -c 'import numpy' 2>/dev/null; then
        no_numpy "$1" && note "$2, no numpy: ok"
    fi
    if "$1" -c 'import numpy, pytest' 2>/dev/null; then
        suite "$1"
        note "$2, pytest: $suite_tally"
    fi
}

step "installed into a fresh virtual environment (with Debian's numpy and pytest)"
if venv "$python" "$out/venv" --system-site-packages &&
        "$out/venv/bin/python" -m pip install --ignore-installed --no-deps "$wheel" > "$out/pip.log" 2>&1; then
    "$out/venv/bin/python" -m pip show cudyn | head -n 3
    got=$(cd "$out/run" && "$out/venv/bin/python" -c 'import importlib.metadata as m; print(m.version("cudyn"))')
    [ "$got" = "$version" ] || fail "importlib.metadata.version(\"cudyn\") is '$got', not $version"
    # what pip show says is what Debian's and the RPM packages say
    if (cd "$out/run" && "$python" "$top/packaging/check-metadata.py" --installed "$out/venv/bin/python") \
            > "$out/metadata.log" 2>&1; then
        note "pip show agrees with packaging/debian and the RPM spec"
    else
        cat "$out/metadata.log"
        fail "packaging/check-metadata.py --installed: the installed metadata differs"
    fi
    suite "$out/venv/bin/python"
    echo "pytest: $suite_tally"
    note "pytest on the installed wheel: $suite_tally"
    (cd "$out/run" && CUDYN_LIBCUDA="$mock" MOCK_CUDA_DEVICES="Mock GPU A:90,Mock GPU B:80" \
        "$out/venv/bin/python" -m cudyn) | tee "$out/main.txt"
    grep -q '^  1  Mock GPU B  sm_80 ' "$out/main.txt" || fail "python3 -m cudyn did not list the mock's second GPU"
    (cd "$out/run" && CUDYN_LIBCUDA="$mock" "$out/venv/bin/python" -m cudyn --json) > "$out/main.json" ||
        fail "python3 -m cudyn --json"
else
    cat "$out/pip.log"
    fail "pip install --no-index of the wheel"
fi

step "the version-specific wheel in a fresh virtual environment (with Debian's numpy and pytest)"
if venv "$python" "$out/venv-specific" --system-site-packages &&
        "$out/venv-specific/bin/python" -m pip install --ignore-installed --no-deps "$specific_wheel" \
            > "$out/pip.log" 2>&1; then
    suite "$out/venv-specific/bin/python"
    echo "pytest: $suite_tally"
    note "pytest on the installed version-specific wheel: $suite_tally"
else
    cat "$out/pip.log"
    fail "pip install --no-index of the version-specific wheel"
fi

step "the abi3 wheel in the other CPythons here (the floor and later)"
# CUDYN_WHEEL_PYTHONS, else python3.N on PATH and pyenv's versions: one
# interpreter per version that runs, Debian's own done above
floor=$(sed -n 's/^requires-python = ">=3\.\([0-9]*\)"$/\1/p' "$top/pyproject.toml")
candidates=${CUDYN_WHEEL_PYTHONS:-$(for n in $(seq "$floor" 30); do command -v "python3.$n"; done
    command -v pyenv > /dev/null && ls "$(pyenv root)"/versions/*/bin/python3 2>/dev/null)}
# cpython_version PYTHON: its X.Y where it is a CPython of the floor or later that runs
cpython_version() {
    "$1" - "$floor" 2>/dev/null <<'PY'
import sys
if sys.implementation.name == "cpython" and sys.version_info >= (3, int(sys.argv[1])):
    print("%d.%d" % sys.version_info[:2])
PY
}
seen=" $(cpython_version "$python") "
others=0
for p in $candidates; do
    v=$(cpython_version "$p")
    case "$v$seen" in " "*|*" $v "*) continue ;; esac
    seen="$seen$v "
    others=$((others + 1))
    if venv "$p" "$out/cpython-$v" && "$out/cpython-$v/bin/python" -m pip install "$wheel" > "$out/pip.log" 2>&1; then
        echo "CPython $v ($p): $(basename "$wheel") installed"
        installed_checks "$out/cpython-$v/bin/python" "CPython $v: the abi3 wheel"
    else
        tail -30 "$out/pip.log"
        fail "pip install of the abi3 wheel with CPython $v ($p)"
    fi
done
[ $others -gt 0 ] || { echo "no other CPython of 3.$floor or later here"; note "no other CPython here"; }

step "the installed schemas, with the stock jsonschema command"
make -s -C "$build" install DESTDIR="$out/stage" > "$out/install.log" 2>&1 || { tail "$out/install.log"; fail "make install"; }
schemas=$(find "$out/stage" -type d -path '*/cudyn/schema')
CUDYN_LIBCUDA="$mock" "$build/tools/cudainfo" --json > "$out/cudainfo.json"
CUDYN_LIBCUDA=/nonexistent/libcuda.so.1 "$build/tools/cudainfo" --json > "$out/cudainfo-nodriver.json"
validators=/usr/bin/jsonschema
path_validator=$(command -v jsonschema || true)
[ -n "$path_validator" ] && [ "$(readlink -f "$path_validator")" != /usr/bin/jsonschema ] &&
    validators="$validators $path_validator"
for v in $validators; do
    [ -x "$v" ] || [ "$v" != /usr/bin/jsonschema ] || { fail "no /usr/bin/jsonschema (python3-jsonschema)"; continue; }
    vv=$(cd "$out/run" && "$v" --version 2>/dev/null || echo '?')
    for pair in "cudainfo-2:cudainfo.json" "cudainfo-2:cudainfo-nodriver.json" "cudyn-info-1:main.json"; do
        if (cd "$out/run" && "$v" -i "$out/${pair#*:}" "$schemas/${pair%%:*}.schema.json") > "$out/schema.log" 2>&1; then
            echo "$v ($vv): ${pair#*:} valid against the installed ${pair%%:*}.schema.json"
        else
            sed 's/^/    | /' "$out/schema.log" | tail -20
            fail "$v ($vv): ${pair#*:} against the installed ${pair%%:*}.schema.json"
        fi
    done
    note "schemas valid with jsonschema $vv"
done

step "a virtual environment without numpy"
if venv "$python" "$out/bare" && "$out/bare/bin/python" -m pip install "$wheel" > "$out/pip.log" 2>&1; then
    no_numpy "$out/bare/bin/python" && note "no numpy: import, DeviceMemory, arrays ask for numpy"
else
    cat "$out/pip.log"
    fail "pip install of the wheel without numpy"
fi

step "the python3 on PATH, from the tarball itself"
path_python=$(command -v python3)
if [ "$(readlink -f "$path_python")" = "$(readlink -f "$python")" ]; then
    echo "python3 on PATH is /usr/bin/python3: done above"
elif ! "$path_python" -c 'import os, sysconfig; os.stat(os.path.join(sysconfig.get_paths()["include"], "Python.h"))' \
        2>/dev/null; then
    echo "python3 on PATH ($path_python) has no Python.h: it cannot build the module"
    note "PATH python3 without headers: skipped"
else
    pyv=$("$path_python" -c 'import platform; print(platform.python_version())')
    # its virtual environment has the setuptools of its own ensurepip; wheel
    # comes from Debian's .whl file (python3-wheel-whl): no index needed
    # (Debian's setuptools .whl is patched for Debian's interpreter)
    if venv "$path_python" "$out/path" &&
            "$out/path/bin/python" -m pip install /usr/share/python-wheels/wheel-*.whl > "$out/pip.log" 2>&1 &&
            "$out/path/bin/python" -m pip install --no-build-isolation "$tarball" >> "$out/pip.log" 2>&1; then
        echo "pip install --no-build-isolation $(basename "$tarball") with Python $pyv ($path_python): installed"
        installed_checks "$out/path/bin/python" "PATH python3 $pyv: pip install of the tarball"
    else
        tail -30 "$out/pip.log"
        fail "pip install of $(basename "$tarball") with $path_python"
    fi
fi

step "pip install . from a fresh clone"
if git -C "$top" rev-parse --git-dir > /dev/null 2>&1; then
    # (Debian's setuptools and wheel build it: --system-site-packages)
    git clone -q "$top" "$out/clone" && venv "$python" "$out/clone-venv" --system-site-packages &&
        (cd "$out/clone" && "$out/clone-venv/bin/python" -m pip install --no-build-isolation .) > "$out/pip.log" 2>&1 ||
        { tail -30 "$out/pip.log"; fail "pip install . in a fresh clone"; }
    files() { sed -n 's/^\(cudyn\/[^,]*\),.*/\1/p' "$1" | grep -v '/__pycache__/' | sort; }
    record=$(ls "$out"/clone-venv/lib/python3*/site-packages/cudyn-"$version".dist-info/RECORD 2>/dev/null)
    "$python" -m zipfile -e "$wheel" "$out/unpacked" > /dev/null
    if [ -n "$record" ] && [ "$(files "$record")" = "$(files "$out/unpacked/cudyn-$version.dist-info/RECORD")" ]; then
        echo "pip install . in a clone: the same $(files "$record" | wc -l) files as the tarball's wheel"
        note "pip install . from a clone: same files"
    else
        diff <(files "$record") <(files "$out/unpacked/cudyn-$version.dist-info/RECORD")
        fail "pip install . from a clone installs other files than the tarball's wheel"
    fi
    # setuptools builds in _build_py/, not build/: a build/ folder left in
    # the tree would shadow Debian's `build` module for `python3 -m build`
    # run there next ("No module named build.__main__")
    if [ -e "$out/clone/build" ]; then
        fail "pip install . left a build/ folder in the tree"
    else
        note "no build/ left behind"
    fi
else
    echo "$top is not a git checkout: no clone"
fi

echo
printf 'wheel summary: %s; %s\n' "$(IFS=';'; echo "${summary[*]}" | sed 's/;/; /g')" \
    "$([ $failures = 0 ] && echo 'all held' || echo "$failures failed")"
[ $failures = 0 ]
