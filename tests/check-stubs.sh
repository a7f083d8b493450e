#!/bin/bash
# The module's type stubs (python/cudyn/**/*.pyi, with py.typed) against the
# module itself, so that they cannot drift from it:
#  - mypy's stubtest imports the package staged by make check (python/
#    local.mk), on the mock driver and this build's libcudyn.so.1 as
#    tests/check-python.sh does, and compares every module, class, function,
#    parameter and constant with its stub: a name the module has and a stub
#    lacks, or the reverse, a parameter added or renamed, a default
#    changed, fails.  mypy reads the stubs from a copy that holds only them,
#    so that it judges the stubs and not the .py files beside them (a
#    public module without a stub fails as "failed to find stubs"; private
#    ones, cudyn._ops and the like, need none).  The C extension's
#    functions and methods are compared by their text signatures (CPY_SIG
#    in python/src; python/tests/test_signatures.py checks each against
#    its C keyword list, and the types' constructors against the stubs).
#  - mypy --strict on examples/python/ with those stubs, as a user's IDE
#    or CI would check code that uses cudyn.  The PyCUDA examples import
#    `pycuda`, which cudyn.pycuda.install() answers at run time: here a
#    stub package `pycuda` that re-exports cudyn.pycuda stands for that
#    hook.  mpi4py may be missing (its examples then skip at run time), so
#    mypy never reads it even where it is installed: its names are Any on
#    every machine, and a machine with mpi4py cannot hide what one without
#    it reports.
# Skips (77) without a Python module, or without mypy or numpy (the stubs
# use numpy.typing) for that interpreter: Debian's python3-mypy.
. "$top_srcdir/tests/common.sh"
python=${PYTHON:-}
[ -n "$python" ] || { echo "SKIP: configure found no Python 3"; exit 77; }
[ "${PYTHON_MODULE:-no}" = yes ] ||
    { echo "SKIP: no Python module in this build (no headers for $python, or --without-python)"; exit 77; }
"$python" -c 'import mypy.stubtest' 2>/dev/null ||
    { echo "SKIP: $python has no mypy (python3-mypy): the type stubs are not checked"; exit 77; }
"$python" -c 'import numpy.typing' 2>/dev/null || { echo "SKIP: $python has no numpy"; exit 77; }
[ "${CUDYN_SANITIZER:-no}" = no ] ||
    { echo "SKIP: a sanitizer build (the stubs do not change with it; check-python.sh runs the module)"; exit 77; }
"$python" -m mypy --version

# only the stubs, in their packages' folders
stubs="$tmp/stubs"
mkdir -p "$stubs"
(cd "$top_srcdir/python" && find cudyn \( -name '*.pyi' -o -name py.typed \) -print) > "$tmp/stub-files"
[ -s "$tmp/stub-files" ] || { echo "FAIL: no type stubs in $top_srcdir/python/cudyn"; exit 1; }
(cd "$top_srcdir/python" && tar cf - -T "$tmp/stub-files") | (cd "$stubs" && tar xf -) || exit 1
# import pycuda.X as cudyn.pycuda.install() makes it (not __main__, which runs nothing when imported)
mkdir -p "$stubs/pycuda"
for f in "$stubs"/cudyn/pycuda/*.pyi; do
    m=$(basename "$f" .pyi)
    case $m in
    __main__) ;;
    __init__) echo "from cudyn.pycuda import *" > "$stubs/pycuda/$m.pyi" ;;
    *) echo "from cudyn.pycuda.$m import *" > "$stubs/pycuda/$m.pyi" ;;
    esac
done
cat > "$tmp/mypy.ini" <<EOF
[mypy]
mypy_path = $stubs
cache_dir = $tmp/cache
[mypy-mpi4py.*]
ignore_missing_imports = True
follow_imports = skip
EOF

export PYTHONPATH="$top_builddir/python/staged${PYTHONPATH:+:$PYTHONPATH}"
export LD_LIBRARY_PATH="$top_builddir/lib/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export CUDYN_LIBCUDA="$MOCK_LIBCUDA" CUDYN_LIBNVRTC="$MOCK_LIBNVRTC"
export PYTHONDONTWRITEBYTECODE=1

cd "$tmp" || exit 1
echo "stubtest: $(wc -l < "$tmp/stub-files") files of $top_srcdir/python/cudyn against $top_builddir/python/staged"
"$python" -m mypy.stubtest --mypy-config-file "$tmp/mypy.ini" cudyn || { echo "FAIL: the stubs differ from the module"; fail=1; }
echo "mypy --strict examples/python"
"$python" -m mypy --config-file "$tmp/mypy.ini" --strict "$top_srcdir/examples/python" ||
    { echo "FAIL: mypy --strict on examples/python"; fail=1; }
finish
