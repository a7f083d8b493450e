#!/bin/bash
# CI's clean-root job: what a newcomer types, on a machine that has nothing
# but a fresh Debian 12, so that a step the documentation leaves out fails
# here whatever the CI machine has installed.
#
#  1. a fresh Debian 12 root (mmdebstrap --variant=minbase, from the archive
#     apt uses here), made once per run and copied for each use below;
#  2. in one copy, the release tarball unpacked in /root and its pages run
#     as a reader types them (tests/run-docs.sh --clean-root): README.md's
#     two commands (install the build dependencies, build, cudainfo; make
#     check), its install, build-tree and pip blocks, the tutorial, and
#     docs/python.md's pip, build and Autotools paths;
#  3. in another copy, the Debian packages built from the tarball as
#     pbuilder and sbuild do (only the Build-Depends installed), lintian and
#     blhc on them, then installed and used (.ci/debian-package.sh, from the
#     tarball).  The package's make check is left out (nocheck): step 2 ran
#     the same tests on the same tarball in the same kind of root, and CI's
#     main and distcheck jobs ran them too.
# The two copies run one after the other (each takes both cores).
#
#   .ci/clean-root.sh TARBALL [OUTDIR]     (root; default OUTDIR _ci/clean-root)
#
# OUTDIR gets each step's log and the Debian packages; the last line is the
# summary, and the exit code is 0 when every step held.
set -uo pipefail
tarball=$(realpath "${1:?usage: .ci/clean-root.sh TARBALL [OUTDIR]}") || exit 1
cd "$(dirname "$0")/.." || exit 1
top=$PWD
out=${2:-$top/_ci/clean-root}
[ "$(id -u)" = 0 ] || { echo "clean-root.sh: run as root (mmdebstrap and chroot)"; exit 1; }
rm -rf "$out" && mkdir -p "$out" && out=$(cd "$out" && pwd) || exit 1
export DEBIAN_FRONTEND=noninteractive LC_ALL=C.UTF-8
name=$(basename "$tarball" .tar.gz)
failures=0
summary=()
base=

step() { printf '\n==== %s (%d s)\n' "$*" $SECONDS; }
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# every root made here is unmounted and removed, however the script ends
cleanup() {
    local r m
    [ -n "$base" ] || return 0
    for r in "$base"/*/; do
        for m in dev/shm dev/pts proc; do
            ! mountpoint -q "$r$m" || umount "$r$m" || umount -l "$r$m"
        done
    done
    rm -rf --one-file-system "$base"
}
trap cleanup EXIT

step "tools: mmdebstrap"
command -v mmdebstrap > /dev/null ||
    apt-get install -y -qq --no-install-recommends mmdebstrap > "$out/tools.log" 2>&1 ||
    { cat "$out/tools.log"; fail "apt-get install mmdebstrap"; exit 1; }

# the archive apt uses here (deb822 or one-line sources), bookworm's suites
mirror=$(apt-get indextargets --format '$(REPO_URI)' 'Release: bookworm' 2>/dev/null | grep -m1 /debian/$ ||
    echo http://deb.debian.org/debian/)
security=$(apt-get indextargets --format '$(REPO_URI)' 'Release: bookworm-security' 2>/dev/null | grep -m1 . ||
    echo http://deb.debian.org/debian-security/)

step "a fresh Debian 12 root from $mirror"
base=$(mktemp -d /var/tmp/cudyn-clean-root.XXXXXX) || exit 1
if ! mmdebstrap --variant=minbase --include=ca-certificates bookworm "$base/root" \
        "deb $mirror bookworm main" "deb $mirror bookworm-updates main" "deb $security bookworm-security main" \
        > "$out/mmdebstrap.log" 2>&1; then
    tail -30 "$out/mmdebstrap.log"
    fail "mmdebstrap"
    exit 1
fi
echo "$(du -sh "$base/root" | cut -f1) in $base/root"

# new_root NAME: a copy of the fresh root, with /proc, /dev/pts and a
# /dev/shm of its own mounted and the host's resolver; prints its path
new_root() {
    local r=$base/$1
    cp -a "$base/root" "$r" &&
        mount -t proc proc "$r/proc" && mount -t devpts devpts "$r/dev/pts" && mount -t tmpfs tmpfs "$r/dev/shm" &&
        cp /etc/resolv.conf "$r/etc/resolv.conf" && echo "$r"
}

# in_root ROOT COMMAND: COMMAND in bash as root in ROOT, from /root, with a
# login's environment and nothing of this one
in_root() {
    chroot "$1" /usr/bin/env -i HOME=/root USER=root LOGNAME=root LANG=C.UTF-8 TERM=dumb \
        PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin bash -c "cd /root && $2"
}

step "the pages as a reader types them, in a fresh root"
docs=$(new_root docs) || { fail "copy the root"; exit 1; }
tar -xzf "$tarball" -C "$docs/root" || exit 1
t0=$SECONDS
in_root "$docs" "cd $name && bash tests/run-docs.sh --clean-root --tree . --home /root/pages \
    README.md docs/getting-started.md docs/python.md docs/reference.md" 2>&1 | tee "$out/pages.log"
[ "${PIPESTATUS[0]}" = 0 ] || fail "the pages' commands (above; $out/pages.log)"
summary+=("pages: $(tail -n 1 "$out/pages.log" | sed 's/^run-docs: //') in $((SECONDS - t0)) s")
tests=$(sed -n 's/^# \(TOTAL\|PASS\|SKIP\|FAIL\|ERROR\): *\([0-9]*\)$/\1 \2/p' "$docs/root/$name/test-suite.log" |
    tr '\n' ' ')
summary+=("README's make check: ${tests:-no test-suite.log}")
for f in "$docs/root/$name"/tests/*.log; do   # the logs of the tests that failed
    grep -qE '^:test-result: (FAIL|ERROR)' "${f%.log}.trs" 2>/dev/null && cp "$f" "$out/"
done

step "the Debian packages, built in a fresh root as pbuilder does"
deb=$(new_root deb) || { fail "copy the root"; exit 1; }
tar -xzf "$tarball" -C "$deb/root" || exit 1
t0=$SECONDS
in_root "$deb" "cd $name && CUDYN_DEB_NOCHECK=1 bash .ci/debian-package.sh /root/debian" 2>&1 | tee "$out/debian.log"
[ "${PIPESTATUS[0]}" = 0 ] || fail "the Debian packages (above; $out/debian.log)"
cp -r "$deb/root/debian" "$out/" 2>/dev/null
summary+=("debian: $(sed -n 's/^lintian: \([^,:]*\).*/lintian \1/p' "$out/debian.log" | tail -n 1) in $((SECONDS - t0)) s")

printf '\nclean-root summary: %s; %d failed; %d s\n' "$(IFS=';'; echo "${summary[*]}" | sed 's/;/; /g')" "$failures" \
    "$SECONDS"
[ "$failures" = 0 ]
