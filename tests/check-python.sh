#!/bin/bash
# The Python module's pytest suite (python/tests) on the mock driver and
# mock NVRTC, as the C tests get them: the package staged by make check
# (python/local.mk says how), this build's libcudyn.so.1, CUDYN_LIBCUDA and
# CUDYN_LIBNVRTC at the mocks (the suite may point elsewhere per test; it
# gets MOCK_* as the C tests do, and CUDYN_PYTEST_REAL_NVRTC=1 where a real
# NVRTC is installed).  In a sanitizer build the interpreter is
# not instrumented, so the sanitizer runtime is preloaded, without leak
# detection (the interpreter keeps memory at exit on purpose); in a thread
# build, with the suppressions CPython itself needs (tests/tsan-python.supp).
# CUDYN_PYTEST_FILES names the files of python/tests to run (make
# check-python-concurrency, CI's properties job); all of them when unset.
# Skips (77) without a Python module, numpy or pytest.
#
# CUDYN_PYTHON_INSTALLED=PYTHON (the wheel job of .ci/run): the same suite
# with that interpreter and the cudyn it has installed (a virtual
# environment holding the wheel), instead of this build's stage: the
# module must come from that interpreter's site-packages and load no
# libcudyn.so (the wheel has the library built in).
. "$top_srcdir/tests/common.sh"
installed=${CUDYN_PYTHON_INSTALLED:-}
python=${installed:-${PYTHON:-}}
[ -n "$python" ] || { echo "SKIP: configure found no Python 3"; exit 77; }
[ -n "$installed" ] || [ "${PYTHON_MODULE:-no}" = yes ] ||
    { echo "SKIP: no Python module in this build (no headers for $python, or --without-python)"; exit 77; }
"$python" -c 'import numpy, pytest' 2>/dev/null ||
    { echo "SKIP: $python has no numpy or no pytest"; exit 77; }
[ -d "$top_srcdir/python/tests" ] || { echo "SKIP: no python/tests"; exit 77; }

if [ -z "$installed" ]; then
    export PYTHONPATH="$top_builddir/python/staged${PYTHONPATH:+:$PYTHONPATH}"
    export LD_LIBRARY_PATH="$top_builddir/lib/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fi
# a real NVRTC, where the toolkit is installed, compiles what the mock NVRTC
# cannot (C++ templates, so name expressions): 1 for the tests that need
# one (they unset CUDYN_LIBNVRTC in a child; the mock driver runs the
# result), empty where there is none, as check-examples.sh chooses
CUDYN_PYTEST_REAL_NVRTC=$(CUDYN_LIBCUDA="$MOCK_LIBCUDA" "$probe" info 2>/dev/null |
    sed -n 's/^nvrtc_status=CUDYN_OK$/found/p')
[ "$CUDYN_PYTEST_REAL_NVRTC" = found ] && CUDYN_PYTEST_REAL_NVRTC=1
export CUDYN_PYTEST_REAL_NVRTC
echo "real NVRTC for the tests that need one: ${CUDYN_PYTEST_REAL_NVRTC:-none}"
export CUDYN_LIBCUDA="$MOCK_LIBCUDA" CUDYN_LIBNVRTC="$MOCK_LIBNVRTC"
# nothing written into the source tree (read-only under distcheck)
export PYTHONDONTWRITEBYTECODE=1
case ",${CUDYN_SANITIZER:-no}," in
*,address,*)
    LD_PRELOAD="$("$CC" -print-file-name=libasan.so)${LD_PRELOAD:+ $LD_PRELOAD}"
    export LD_PRELOAD ASAN_OPTIONS="detect_leaks=0${ASAN_OPTIONS:+:$ASAN_OPTIONS}" ;;
*,undefined,*)
    LD_PRELOAD="$("$CC" -print-file-name=libubsan.so)${LD_PRELOAD:+ $LD_PRELOAD}"
    export LD_PRELOAD ;;
*,thread,*)
    LD_PRELOAD="$("$CC" -print-file-name=libtsan.so)${LD_PRELOAD:+ $LD_PRELOAD}"
    TSAN_OPTIONS="suppressions=$top_srcdir/tests/tsan-python.supp${TSAN_OPTIONS:+:$TSAN_OPTIONS}"
    export LD_PRELOAD TSAN_OPTIONS ;;
esac

# the module imports from the stage and loads this build's library, or
# (installed) from the interpreter's site-packages, with no libcudyn.so
where=$("$python" -c 'import cudyn._cudyn as m
print(m.__file__)
print("".join(l for l in open("/proc/self/maps") if "libcudyn.so" in l), end="")' 2>&1)
if [ -n "$installed" ]; then
    site=$("$python" -c 'import sysconfig; print(sysconfig.get_path("platlib"))')
    echo "the installed module: $(printf '%s\n' "$where" | head -n 1)"
    expect_match "$where" "^$site/cudyn/_cudyn"
    expect_no_match "$where" "libcudyn\\.so"
else
    expect_match "$where" "^$top_builddir/python/staged/cudyn/_cudyn"
    expect_match "$where" " $top_builddir/lib/\\.libs/libcudyn\\.so"
fi
[ "$fail" = 0 ] || exit 1

files=()
for f in ${CUDYN_PYTEST_FILES:-}; do
    [ -f "$top_srcdir/python/tests/$f" ] || { echo "FAIL: CUDYN_PYTEST_FILES: no python/tests/$f"; exit 1; }
    files+=("$top_srcdir/python/tests/$f")
done
[ ${#files[@]} -gt 0 ] || files=("$top_srcdir/python/tests")
cd "$tmp" || exit 1
"$python" -m pytest -p no:cacheprovider -q -rs "${files[@]}"
rc=$?
# pytest: 5 is "no tests collected"
[ $rc = 5 ] && { echo "SKIP: pytest collected no tests"; exit 77; }
[ $rc = 0 ] || exit 1
finish
