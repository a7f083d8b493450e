#!/bin/bash
# RPM packages for the Fedora and RHEL families, built on Debian from the
# release tarball as a Fedora build root would build them:
#  1. make the release tarball (make dist), in BUILDDIR where one is given
#     (a configured tree), else in a fresh out-of-tree configure;
#  2. rpmbuild -ba packaging/rpm/cudyn.spec with that tarball as Source0:
#     the source package and cudyn, cudyn-libs, cudyn-devel and
#     python3-cudyn; %check runs make check on the mocks unless
#     CUDYN_RPM_NOCHECK=1 (rpmbuild --without check);
#  3. rpmlint on the spec and on every package: no error, and every warning
#     named in the spec's header comment, where the reason for it is;
#  4. what the packages provide and recommend (by soname, as the
#     library's .note.dlopen says), and the packaged programs used: the
#     files unpacked (rpm2cpio) into a scratch root, cudainfo --version and
#     import cudyn from there.
#
#   .ci/rpm.sh [OUTDIR [BUILDDIR]]      (default OUTDIR: _ci/rpm in the checkout)
#
# Debian is not a Fedora build root; these stand in for one:
#  - packaging/rpm/macros.debian-host gives the macros of Fedora's
#    redhat-rpm-config and python-rpm-macros that the spec uses (%python3,
#    %python3_sitearch ...) and Fedora's build behaviour (debuginfo
#    packages, gzipped manual pages, executable shared libraries), and puts
#    the libraries in /usr/lib, where Debian's tools look for them (Fedora's
#    %_libdir is /usr/lib64), loaded with rpmbuild --load;
#  - rpmbuild --nodeps: BuildRequires name Fedora's packages, which
#    Debian's rpm database does not have; Debian's own packages are the
#    build's tools and libraries (.ci/run installs them);
#  - packaging/rpm/rpmlint.toml gives rpmlint Fedora's settings (Debian's
#    rpmlint follows openSUSE's policy).
# The last line is the summary; the exit code is 0 when everything held.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
top=$PWD
out=${1:-$top/_ci/rpm}
build=${2:-}
start=$SECONDS
export LC_ALL=C.UTF-8
spec=$top/packaging/rpm/cudyn.spec
failures=0

step() { printf '\n==== %s (%d s)\n' "$*" $((SECONDS - start)); }
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
die() { echo "rpm.sh: $*" >&2; exit 1; }
[ -r "$spec" ] || die "no $spec"

step "the tools (rpm, rpmlint, elfutils for the debuginfo packages)"
if ! command -v rpmbuild > /dev/null || ! command -v rpmlint > /dev/null || ! command -v eu-strip > /dev/null; then
    [ "$(id -u)" = 0 ] || die "rpmbuild, rpmlint or eu-strip is missing (Debian: apt-get install rpm rpmlint elfutils)"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends rpm rpmlint elfutils > /dev/null ||
        die "apt-get install rpm rpmlint elfutils failed"
fi
echo "$(rpmbuild --version), rpmlint $(rpmlint --version 2>/dev/null | head -n 1)"

rm -rf "$out" && mkdir -p "$out" || exit 1
work=$(mktemp -d "${TMPDIR:-/tmp}/cudyn-rpm.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT

step "release tarball (make dist)"
if [ -z "$build" ]; then
    if [ -e .git ] || [ ! -x configure ]; then
        autoreconf -fi > "$work/autoreconf.log" 2>&1 || { cat "$work/autoreconf.log"; die "autoreconf failed"; }
    fi
    build=$work/dist
    mkdir -p "$build" && (cd "$build" && "$top/configure" > "$work/configure.log" 2>&1) ||
        { tail -30 "$work/configure.log"; die "configure failed"; }
fi
make -s -C "$build" dist > "$work/dist.log" 2>&1 || { tail -30 "$work/dist.log"; die "make dist failed"; }
version=$(sed -n 's/^VERSION = //p' "$build/Makefile")
tarball=$build/cudyn-$version.tar.gz
[ -f "$tarball" ] || die "make dist made no cudyn-$version.tar.gz in $build"
specversion=$(sed -n 's/^Version: *//p' "$spec")
[ "$specversion" = "$version" ] ||
    die "packaging/rpm/cudyn.spec is at $specversion, the tarball at $version: update Version and add a %changelog entry"

step "rpmbuild -ba cudyn.spec ($(basename "$tarball"))"
mkdir -p "$work/rpmbuild/SOURCES" && cp "$tarball" "$work/rpmbuild/SOURCES/" || exit 1
options=()
[ "${CUDYN_RPM_NOCHECK:-0}" = 1 ] && options+=(--without check)
if ! rpmbuild -ba --nodeps --load="$top/packaging/rpm/macros.debian-host" --define "_topdir $work/rpmbuild" \
        --define "_smp_mflags -j$(nproc)" "${options[@]}" "$spec" > "$out/build.log" 2>&1; then
    tail -80 "$out/build.log"
    die "rpmbuild failed; the whole log is $out/build.log"
fi
find "$work/rpmbuild/RPMS" "$work/rpmbuild/SRPMS" -name '*.rpm' -exec cp {} "$out/" \;
ls "$out"/*.rpm | sed 's|.*/|  |'
tests=$(sed -n 's/^# \(TOTAL\|PASS\|SKIP\|FAIL\|ERROR\): *\([0-9]*\)$/\1 \2/p' "$out/build.log" | tr '\n' ' ')
if [ "${CUDYN_RPM_NOCHECK:-0}" = 1 ]; then
    tests="not run (CUDYN_RPM_NOCHECK=1)"
else
    grep -q '^# FAIL: *0$' "$out/build.log" && grep -q '^# ERROR: *0$' "$out/build.log" ||
        fail "%check: make check did not pass"
fi

step "rpmlint (the spec, the source and binary packages)"
rpmlint -c "$top/packaging/rpm/rpmlint.toml" "$spec" "$out"/*.rpm > "$out/rpmlint.txt" 2>&1
lint_rc=$?
cat "$out/rpmlint.txt"
lint_summary=$(grep -E '^ *[0-9]+ packages and [0-9]+ specfiles checked' "$out/rpmlint.txt" | tail -n 1 | sed "s/^ *//; s/ *$//")
errors=$(echo "$lint_summary" | sed -n 's/.* \([0-9]*\) errors.*/\1/p')
[ -n "$lint_summary" ] || fail "rpmlint printed no summary (exit $lint_rc)"
[ "${errors:-1}" = 0 ] || fail "rpmlint: ${errors:-?} errors"
# every warning's tag is explained in the spec's header comment ("#   TAG:")
for tag in $(sed -n 's/^[^ ]*: W: \([a-z0-9-]*\).*/\1/p' "$out/rpmlint.txt" | sort -u); do
    grep -q "^#   $tag[: ]" "$spec" || fail "rpmlint warning $tag is not explained in the spec's header"
done

step "what the packages provide and recommend"
arch=$(rpm --eval '%{_arch}')
rpmfile() { ls "$out"/"$1"-"$version"-*."$arch".rpm 2>/dev/null | head -n 1; }
libs=$(rpmfile cudyn-libs) python=$(rpmfile python3-cudyn) tools=$(rpmfile cudyn) devel=$(rpmfile cudyn-devel)
for p in "$libs" "$python" "$tools" "$devel"; do [ -n "$p" ] || fail "a package is missing: $(ls "$out")"; done
query() { rpm -qp "$@" 2>/dev/null; }
expect() { # expect WHAT TEXT PATTERN
    if printf '%s\n' "$2" | grep -qE "$3"; then echo "  $1: yes"; else fail "$1: no line matches $3"; fi
}
expect "cudyn-libs provides libcudyn.so.1(CUDYN_1.0)" "$(query --provides "$libs")" '^libcudyn\.so\.1\(CUDYN_1\.0\)'
expect "cudyn-libs recommends libcuda.so.1" "$(query --recommends "$libs")" '^libcuda\.so\.1\(\)\(64bit\)$'
expect "cudyn-libs recommends an NVRTC" "$(query --recommends "$libs")" '^\(libnvrtc\.so\.13\(\)\(64bit\) or '
# (rpm's generator writes the version as PEP 440 normalises it: 0.2 for 0.2.0)
expect "python3-cudyn provides python3dist(cudyn)" "$(query --provides "$python")" \
    "^python3dist\\(cudyn\\) = ${version%.0}(\\.0)?$"
expect "cudyn-devel has the pkg-config file" "$(query --list "$devel")" '/pkgconfig/cudyn\.pc$'
expect "cudyn-devel has the CMake package" "$(query --list "$devel")" '/cmake/cudyn/cudynConfig\.cmake$'
expect "cudyn-devel provides pkgconfig(cudyn)" "$(query --provides "$devel")" "^pkgconfig\\(cudyn\\) = $version$"
for p in "$libs" "$python" "$tools" "$devel"; do
    echo "  $(basename "$p"): $(query --requires "$p" | grep -v '^rpmlib(' | paste -sd, - | sed 's/,/, /g')"
done

step "the packaged programs, unpacked into a scratch root"
root=$work/root
mkdir -p "$root"
for p in "$libs" "$python" "$tools"; do
    (cd "$root" && rpm2cpio "$p" | cpio -idm --quiet) || fail "rpm2cpio $(basename "$p")"
done
libdir=$(rpm --load="$top/packaging/rpm/macros.debian-host" --eval '%{_libdir}')
sitearch=$(find "$root$libdir" -maxdepth 3 -type d -name site-packages | head -n 1)
if readelf -d "$root/usr/bin/cudainfo" "$root$libdir"/libcudyn.so.1 "$sitearch"/cudyn/_cudyn*.so 2>/dev/null |
        grep -E '\((RPATH|RUNPATH)\)'; then
    fail "RPATH or RUNPATH in a packaged binary"
fi
used=$(LD_LIBRARY_PATH="$root$libdir" "$root/usr/bin/cudainfo" --version 2>&1 | head -n 1)
expect "cudainfo --version (the packaged one)" "$used" "$version"
imported=$(cd "$work" && LD_LIBRARY_PATH="$root$libdir" PYTHONPATH="$sitearch" /usr/bin/python3 -c \
    'import cudyn, importlib.metadata as m; print(cudyn.version(), m.version("cudyn"), m.distribution("cudyn").read_text("INSTALLER").strip(), cudyn.__file__)' 2>&1)
expect "import cudyn (the packaged module)" "$imported" "^$version $version rpm $root"

echo
printf 'rpm summary: cudyn %s, %d packages; %%check: %s; rpmlint: %s; %d s; %s\n' "$version" \
    "$(ls "$out"/*.rpm | wc -l)" "${tests:-no summary found}" "${lint_summary:-none}" $((SECONDS - start)) \
    "$([ $failures = 0 ] && echo 'all held' || echo "$failures failed")"
[ $failures = 0 ]
