#!/bin/bash
# The wheel's platform tag is honest: packaging/check-wheel.py (which
# .ci/wheel.sh runs on the real wheel with --require manylinux_2_17) and
# setup.py's tagging (proven_platform, which uses check-wheel.py's
# manylinux_tag) read the symbol table as auditwheel's policy check does.
# Small extensions built here, each packed into a wheel:
#  - clean: binds only glibc's first symbol versions: manylinux_2_17 holds,
#    and setup.py tags it so; not with another machine's tag, nor under a
#    file name whose tag is not the WHEEL file's;
#  - planted: also calls dlopen@GLIBC_2.34 (built where glibc has it):
#    check-wheel.py fails a manylinux_2_17 tag and --require
#    manylinux_2_17, naming GLIBC_2.34 and dlopen; setup.py tags it
#    manylinux_2_34, which check-wheel.py then accepts without --require;
#  - C++: NEEDED libstdc++.so.6, which cudyn's wheel must not need:
#    check-wheel.py fails it, setup.py keeps linux_ARCH.
# And the Python tag, which check-wheel.py proves the same way against
# CPython's stable ABI (packaging/stable-abi.txt):
#  - stable: calls PyLong_FromLong (3.2) and PyType_GetName (3.11):
#    cp311-abi3 holds, cp310-abi3 does not (PyType_GetName came in 3.11);
#    named .cpython-311-...so, an abi3 tag fails (only 3.11 loads it);
#  - planted: also calls PyFloat_Pack2, which no stable ABI has: its
#    cp311-abi3 wheel fails naming it, a cp311-cp311 one holds;
#  - the build's own _cudyn.abi3.so (--module), where it was built:
#    nothing outside the floor's stable ABI.
# Needs cc, readelf and a Python 3; the setup.py part needs setuptools.
. "$top_srcdir/tests/common.sh"
python=${PYTHON:-}
[ -n "$python" ] || { echo "SKIP: configure found no Python 3"; exit 77; }
command -v readelf > /dev/null || { echo "SKIP: no readelf (binutils)"; exit 77; }
cc=${CC:-cc}
srcdir_abs=$(cd "$top_srcdir" && pwd)
check="$srcdir_abs/packaging/check-wheel.py"
arch=$("$python" -c 'import platform; print(platform.machine())')
case $arch in
    x86_64) first=GLIBC_2.2.5 ;;
    aarch64) first=GLIBC_2.17 ;;
    *) echo "SKIP: no manylinux rule here for $arch"; exit 77 ;;
esac
"$python" -c 'import platform, sys; sys.exit(platform.libc_ver()[0] != "glibc")' ||
    { echo "SKIP: not a glibc system"; exit 77; }

# build NAME [CC ARGS...]: _NAME.so, exporting PyInit__NAME alone, with the
# .note.dlopen string check-wheel.py looks for
build() {
    local name=$1
    shift
    cat > "$tmp/$name.c" <<EOF
#include <stdlib.h>
__attribute__((used, section(".note.dlopen"))) static const char note[] = "[{\"soname\":[\"libcuda.so.1\"]}]";
extern void *old_getenv(const char *);
__asm__(".symver old_getenv, getenv@$first");
#ifdef PLANT
extern void *new_dlopen(const char *, int);
__asm__(".symver new_dlopen, dlopen@GLIBC_2.34");
#endif
#ifdef PYTHON_CALLS
extern void *PyLong_FromLong(long), *PyType_GetName(void *), *PyFloat_Pack2(double);
#endif
__attribute__((visibility("default"))) void *PyInit__$name(void)
{
#ifdef PYTHON_CALLS
    if (old_getenv("CUDYN_NEVER_SET")) {
        PYTHON_CALLS
    }
#endif
#ifdef PLANT
    if (old_getenv("CUDYN_NEVER_SET"))
        return new_dlopen("libcuda.so.1", 1);
#endif
    return old_getenv("HOME");
}
EOF
    printf '{ global: PyInit__%s; local: *; };\n' "$name" > "$tmp/$name.map"
    "$cc" -shared -fPIC -fvisibility=hidden -o "$tmp/_$name.so" "$tmp/$name.c" -Wl,--version-script="$tmp/$name.map" \
        "$@" > "$tmp/$name.log" 2>&1
}
# wheel NAME TAG [PYTHON_TAG [SUFFIX]]: the extension packed as a wheel with
# that platform tag and Python tag (cp311-cp311), its file named
# _NAME.SUFFIX (cpython-311-TAG.so)
wheel() {
    local python_tag=${3:-cp311-cp311}
    "$python" - "$tmp" "$1" "$2" "$python_tag" "${4:-cpython-311-$2.so}" <<'PY'
import os, sys, zipfile
tmp, name, tag, python_tag, suffix = sys.argv[1:6]
with zipfile.ZipFile(os.path.join(tmp, f"{name}-1.0-{python_tag}-{tag}.whl"), "w") as w:
    w.write(os.path.join(tmp, f"_{name}.so"), f"{name}/_{name}.{suffix}")
    w.writestr(f"{name}-1.0.dist-info/WHEEL", f"Wheel-Version: 1.0\nRoot-Is-Purelib: false\nTag: {python_tag}-{tag}\n")
PY
    echo "$tmp/$1-1.0-$python_tag-$2.whl"
}
# tag_by_setup NAME: the platform setup.py gives the extension
tag_by_setup() {
    (cd "$tmp" && PYTHONDONTWRITEBYTECODE=1 "$python" - "$srcdir_abs/setup.py" "$tmp/_$1.so" "$arch" <<'PY'
import importlib.util, sys
spec = importlib.util.spec_from_file_location("cudyn_setup", sys.argv[1])
setup = importlib.util.module_from_spec(spec)
spec.loader.exec_module(setup)  # not as __main__: nothing is built
print(setup.proven_platform("linux_" + sys.argv[3], [sys.argv[2]]))
PY
    ) | tail -n 1
}
has_setuptools=no
"$python" -c 'import setuptools' 2>/dev/null && has_setuptools=yes

build clean || { cat "$tmp/clean.log"; echo "FAIL: cannot build the clean extension"; exit 1; }
expect_exit 0 "$python" "$check" "$(wheel clean "manylinux_2_17_$arch")" --require manylinux_2_17
echo "$out" | grep -E '^(tag|NEEDED|highest)'
expect_line "$out" "clean/_clean.cpython-311-manylinux_2_17_$arch.so: manylinux_2_17_$arch by its symbol table; 0 Python symbols imported"
# a plain linux_ tag is honest too, but not what --require asks for
expect_exit 0 "$python" "$check" "$(wheel clean "linux_$arch")"
expect_exit 1 "$python" "$check" "$(wheel clean "linux_$arch")" --require manylinux_2_17
# the file name, which pip reads, says what WHEEL says
cp "$(wheel clean "manylinux_2_17_$arch")" "$tmp/clean-1.0-cp311-cp311-manylinux_2_5_$arch.whl"
expect_exit 1 "$python" "$check" "$tmp/clean-1.0-cp311-cp311-manylinux_2_5_$arch.whl"
expect_match "$out" "^FAIL: the file name's tags \(cp311-cp311-manylinux_2_5_$arch\) are not WHEEL's"
# and the tag names the object's machine
other=$([ "$arch" = x86_64 ] && echo aarch64 || echo x86_64)
expect_exit 1 "$python" "$check" "$(wheel clean "manylinux_2_17_$other")"
expect_match "$out" "^FAIL: tag .*manylinux_2_17_$other, but .* is for $arch$"

if build planted -DPLANT; then
    readelf -W --dyn-syms "$tmp/_planted.so" | grep -q 'UND dlopen@GLIBC_2.34' ||
        { echo "FAIL: the planted extension does not call dlopen@GLIBC_2.34"; fail=1; }
    expect_exit 1 "$python" "$check" "$(wheel planted "manylinux_2_17_$arch")"
    echo "$out" | grep -E '^FAIL'
    expect_match "$out" "^FAIL: tag cp311-cp311-manylinux_2_17_$arch, but .* needs GLIBC_2.34 for dlopen$"
    expect_line "$out" "highest GLIBC version: GLIBC_2.34, for dlopen"
    expect_exit 1 "$python" "$check" "$(wheel planted "manylinux_2_34_$arch")" --require manylinux_2_17
    expect_match "$out" "^FAIL: --require manylinux_2_17: .* needs manylinux_2_34_$arch$"
    expect_exit 0 "$python" "$check" "$(wheel planted "manylinux_2_34_$arch")"
    if [ $has_setuptools = yes ]; then
        expect_line "$(tag_by_setup planted)" "manylinux_2_34_$arch"
    fi
else
    echo "this glibc has no dlopen@GLIBC_2.34 (older than 2.34): the planted case is not built"
fi

# (only where -lstdc++ finds the shared library: with libstdc++.a alone the
# link succeeds and needs nothing)
if build cxx -Wl,--no-as-needed -lstdc++ && readelf -d "$tmp/_cxx.so" | grep -q 'NEEDED.*libstdc++\.so'; then
    expect_exit 1 "$python" "$check" "$(wheel cxx "manylinux_2_17_$arch")"
    expect_match "$out" "^FAIL: cxx/_cxx.*: NEEDED libstdc\+\+\.so\.6: not on every manylinux platform$"
    [ $has_setuptools = no ] || expect_line "$(tag_by_setup cxx)" "linux_$arch"
else
    echo "no shared libstdc++ to link: the C++ case is not built"
fi

if [ $has_setuptools = yes ]; then
    expect_line "$(tag_by_setup clean)" "manylinux_2_17_$arch"
else
    echo "$python has no setuptools: setup.py's tagging is not tried"
fi

# ---- the Python tag: CPython's stable ABI
build stable -DPYTHON_CALLS='PyLong_FromLong(1); PyType_GetName(0);' ||
    { cat "$tmp/stable.log"; echo "FAIL: cannot build the stable-ABI extension"; exit 1; }
plat=manylinux_2_17_$arch
expect_exit 0 "$python" "$check" "$(wheel stable "$plat" cp311-abi3 abi3.so)"
expect_line "$out" "stable/_stable.abi3.so: $plat by its symbol table; 2 Python symbols imported"
expect_exit 1 "$python" "$check" "$(wheel stable "$plat" cp310-abi3 abi3.so)"
expect_line "$out" "FAIL: tag cp310-abi3-$plat, but stable/_stable.abi3.so imports what CPython 3.10's stable ABI lacks: PyType_GetName"
expect_exit 1 "$python" "$check" "$(wheel stable "$plat" cp311-abi3 "cpython-311-$arch-linux-gnu.so")"
expect_match "$out" "^FAIL: tag cp311-abi3-$plat, but stable/_stable.cpython-311-$arch-linux-gnu.so is not named as a stable-ABI extension"
build planted_py -DPYTHON_CALLS='PyLong_FromLong(1); PyFloat_Pack2(0);' ||
    { cat "$tmp/planted_py.log"; echo "FAIL: cannot build the planted extension"; exit 1; }
expect_exit 1 "$python" "$check" "$(wheel planted_py "$plat" cp311-abi3 abi3.so)"
echo "$out" | grep -E '^FAIL'
expect_line "$out" "FAIL: tag cp311-abi3-$plat, but planted_py/_planted_py.abi3.so imports what CPython 3.11's stable ABI lacks: PyFloat_Pack2"
expect_exit 0 "$python" "$check" "$(wheel planted_py "$plat" cp311-cp311 "cpython-311-$arch-linux-gnu.so")"
module=$(ls "$top_builddir"/python/cudyn/.libs/_cudyn.abi3.so 2>/dev/null)
if [ "${PYTHON_MODULE:-no}" = yes ] && [ -n "$module" ]; then
    floor=$(sed -n 's/^requires-python = ">=3\.\([0-9]*\)"$/cp3\1/p' "$srcdir_abs/pyproject.toml")
    expect_exit 0 "$python" "$check" --module "$module" --abi3 "$floor"
    echo "$out" | head -n 1
else
    echo "no _cudyn.abi3.so built here: the module's own symbols are not checked"
fi
finish
