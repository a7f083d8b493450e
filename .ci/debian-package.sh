#!/bin/bash
# Debian packages from a source checkout or a release tarball (which
# carries packaging/debian and this script), as a distribution builds them:
# make the release tarball (make dist), unpack it as cudyn_VERSION.orig.tar.gz
# + cudyn-VERSION/ with packaging/debian as debian/, build the source and
# binary packages (make check runs inside, on the mock driver, unless
# CUDYN_DEB_NOCHECK=1), check the
# compiler flags with blhc and everything with lintian (errors and warnings
# fail), then install the packages here and use them as a user would
# (the library, the tools, the headers and examples, the Python module).
#
#   .ci/debian-package.sh [OUTDIR]      (root, Debian 12 or newer; default
#                                        OUTDIR: _ci/debian in the checkout)
#
# OUTDIR gets the .deb, .dsc, .changes, the build log and lintian's report.
set -euo pipefail
cd "$(dirname "$0")/.."
top=$PWD
out=${1:-$top/_ci/debian}
start=$(date +%s)
export DEBIAN_FRONTEND=noninteractive LC_ALL=C.UTF-8

step() { printf '\n==== %s\n' "$*"; }
die() { echo "debian-package.sh: $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || die "run as root (it installs the build tools and the packages)"
[ -r packaging/debian/control ] || die "no packaging/debian/control in $top"

step "install the packaging tools"
apt-get update -qq
apt-get install -y -qq --no-install-recommends build-essential debhelper devscripts lintian blhc \
    autoconf automake libtool pkg-config man-db groff-base >/dev/null

rm -rf "$out"
mkdir -p "$out"
work=$(mktemp -d "${TMPDIR:-/tmp}/cudyn-deb.XXXXXX")
trap 'rm -rf "$work"' EXIT

step "release tarball (make dist)"
# a checkout needs Autotools; an unpacked tarball has its configure already
if [ -e .git ] || [ ! -x configure ]; then
    autoreconf -fi >/dev/null 2>&1 || { autoreconf -fi; exit 1; }
fi
# out of tree, unless the checkout is configured in place (a second
# configure would then refuse, and an in-tree one would break later
# out-of-tree builds such as .ci/run's)
if [ -f config.status ]; then dist=$top; else dist=$work/dist; mkdir -p "$dist"; fi
(cd "$dist" && "$top/configure" >"$work/configure.log" 2>&1 && make dist >"$work/dist.log" 2>&1) ||
    { cat "$work/configure.log" "$work/dist.log" 2>/dev/null | tail -40; die "make dist failed"; }
version=$(sed -n 's/^VERSION = //p' "$dist/Makefile")
tarball=$dist/cudyn-$version.tar.gz
[ -n "$version" ] && [ -f "$tarball" ] || die "make dist made no cudyn-$version.tar.gz in $dist"
debversion=$(dpkg-parsechangelog -l packaging/debian/changelog -S Version)
[ "${debversion%-*}" = "$version" ] ||
    die "packaging/debian/changelog is at $debversion, the tarball at $version: add an entry (dch -c packaging/debian/changelog -v $version-1)"

step "build cudyn $debversion from cudyn-$version.tar.gz"
cd "$work"
cp "$tarball" "cudyn_$version.orig.tar.gz"
tar xzf "cudyn_$version.orig.tar.gz"
src=$work/cudyn-$version
cp -a "$top/packaging/debian" "$src/debian"
apt-get build-dep -y -qq "$src" >/dev/null
cd "$src"
# The package's build runs make check as a distribution's does; CI's own
# run leaves it out (CUDYN_DEB_NOCHECK=1, set by .ci/run), since its main
# and distcheck jobs run the same tests on the same tarball.
options="parallel=$(nproc)"
[ "${CUDYN_DEB_NOCHECK:-0}" = 1 ] && options="$options nocheck"
if ! DEB_BUILD_OPTIONS="$options" dpkg-buildpackage -us -uc >"$out/build.log" 2>&1; then
    tail -80 "$out/build.log"
    die "dpkg-buildpackage failed; the whole log is $out/build.log"
fi
cd "$work"
cp ./*.deb ./*.dsc ./*.changes ./*.buildinfo ./*.debian.tar.* "cudyn_$version.orig.tar.gz" "$out"/
changes=$(ls "$out"/cudyn_"${debversion}"_*.changes)
tests=$(sed -n 's/^# \(TOTAL\|PASS\|SKIP\|FAIL\|ERROR\): *\([0-9]*\)$/\1 \2/p' "$out/build.log" | tr '\n' ' ')
skipped=$(sed -n 's/^SKIP: \(tests\/[^ ]*\)$/\1/p' "$out/build.log" | tr '\n' ' ')

step "compiler and linker flags (blhc)"
# every compile and link line of the build must carry dpkg-buildflags'
# hardening flags (the build log has them: the build runs with V=1)
blhc --all --debian "$out/build.log" | tee "$out/blhc.txt" || die "blhc: build flags missing (see above)"

step "lintian"
# errors and warnings fail; info and pedantic tags are shown, and fail nothing
lintian_rc=0
lintian --fail-on error,warning --info --display-info --pedantic "$changes" >"$out/lintian.txt" 2>&1 || lintian_rc=$?
cat "$out/lintian.txt"
tags=$(grep -E '^[EWIPX]: ' "$out/lintian.txt" || true)
[ "$lintian_rc" = 0 ] || die "lintian found errors or warnings (above; $out/lintian.txt)"

step "install the packages and use them"
apt-get install -y -qq --no-install-recommends --reinstall "$out"/libcudyn1_*.deb "$out"/libcudyn-dev_*.deb \
    "$out"/cudyn-tools_*.deb "$out"/python3-cudyn_*.deb >/dev/null
bad=0
check() {   # check WHAT COMMAND...: runs it, prints its output under WHAT
    local o rc=0
    o=$("${@:2}" 2>&1) || rc=$?
    printf '%-34s %s\n' "$1:" "$(printf '%s' "$o" | head -1)"
    [ "$rc" = 0 ] || { printf '%s\n' "$o" | sed 's/^/    | /'; echo "    FAILED (exit $rc)"; bad=1; }
}
if [ -e /usr/share/man/man3/cudyn.3.gz ]; then
    check "man -w cudyn_launchf" man -w cudyn_launchf
    check "man 3 cudyn_launchf" sh -c 'MANPAGER=cat MANWIDTH=80 man 3 cudyn_launchf | grep -m1 "int cudyn_launchf("'
    check "man 7 cudyn-env" sh -c 'MANPAGER=cat MANWIDTH=80 man 7 cudyn-env | grep -m1 CUDYN_LIBCUDA'
else
    echo "man pages not unpacked (dpkg path-exclude in /etc/dpkg/dpkg.cfg.d?): man checks skipped"
fi
check "pkg-config --cflags --libs cudyn" pkg-config --cflags --libs cudyn
examples=/usr/share/doc/libcudyn-dev/examples
if [ ! -d "$examples" ]; then   # not unpacked here: take them from the package
    dpkg-deb -x "$out"/libcudyn-dev_*.deb "$work/root"
    examples=$work/root$examples
    echo "$examples: /usr/share/doc is not unpacked on this system; the package's copy is used"
fi
cp -R "$examples" "$work/examples"
check "make (the installed examples)" make --no-print-directory -C "$work/examples"
check "saxpy linked to" sh -c "ldd '$work/examples/saxpy' | grep -m1 libcudyn"
check "cxx/saxpy linked to" sh -c "ldd '$work/examples/cxx/saxpy' | grep -m1 libcudyn"
if command -v cmake >/dev/null; then   # find_package(cudyn) from the installed libcudyn-dev
    mkdir -p "$work/cmake"
    printf '%s\n' 'cmake_minimum_required(VERSION 3.13)' 'project(consumer C)' 'find_package(cudyn 0.2 REQUIRED)' \
        'add_executable(consumer main.c)' 'target_link_libraries(consumer PRIVATE cudyn::cudyn)' > "$work/cmake/CMakeLists.txt"
    printf '%s\n' '#include <cudyn.h>' '#include <stdio.h>' \
        'int main(void) { puts(CUDYN_VERSION_STRING); return 0; }' > "$work/cmake/main.c"
    check "find_package(cudyn 0.2) (CMake)" sh -c "cmake -S '$work/cmake' -B '$work/cmake/build' >/dev/null &&
        cmake --build '$work/cmake/build' >/dev/null && '$work/cmake/build/consumer'"
else
    echo "cmake not installed: find_package(cudyn) not tried"
fi
check "cudainfo --version" cudainfo --version
# the Python module, for Debian's interpreter (the python3 on PATH may be
# another), with its metadata; python3 -m cudyn exits as cudainfo does
check "import cudyn (python3-cudyn)" /usr/bin/python3 -c 'import cudyn, importlib.metadata as m
assert m.version("cudyn") == cudyn.version(), (m.version("cudyn"), cudyn.version())
print(cudyn.version(), "from", cudyn.__file__, "installed by", m.distribution("cudyn").read_text("INSTALLER").strip())'
module_rc=0
(cd "$work" && /usr/bin/python3 -m cudyn) >/dev/null 2>&1 || module_rc=$?
case $module_rc in 0|3|4|5) ;; *) bad=1 ;; esac
printf '%-34s %s\n' "python3 -m cudyn:" "exit $module_rc (as cudainfo's)"
# no GPU here is fine: 3 no driver, 4 cuInit failed, 5 no device
info_rc=0
cudainfo >/dev/null 2>&1 || info_rc=$?
case $info_rc in 0|3|4|5) ;; *) bad=1 ;; esac
printf '%-34s %s\n' "cudainfo:" "exit $info_rc (0: GPUs listed, 3: no driver, 4: cuInit failed, 5: no device)"
[ "$bad" = 0 ] || die "the installed packages do not work (above)"

step "summary"
echo "cudyn $debversion, from cudyn_$version.orig.tar.gz, in $(($(date +%s) - start)) s"
for deb in "$out"/*.deb; do
    printf '  %-44s %6s KiB\n' "${deb##*/}" "$(( $(stat -c %s "$deb") / 1024 ))"
done
echo "make check in the build: ${tests:-no summary found}"
[ -z "$skipped" ] || echo "  skipped: $skipped"
if [ -z "$tags" ]; then
    echo "lintian: no tags"
else
    echo "lintian: $(printf '%s\n' "$tags" | wc -l) tags, no error or warning (those fail):"
    printf '%s\n' "$tags" | sed 's/^/  /'
fi
echo "blhc: hardening flags on every compile and link line"
echo "installed and used: man pages, pkg-config, the installed examples (C and C++), the CMake package, cudainfo (exit $info_rc), import cudyn and python3 -m cudyn (exit $module_rc)"
echo "output: $out"
