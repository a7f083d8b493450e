#!/bin/bash
# The package index, Debian and RPM say the same things of cudyn:
# packaging/check-metadata.py compares the version (configure.ac's),
# summaries, descriptions, licence, Python floor and weak dependencies of
# pyproject.toml, packaging/debian and packaging/rpm/cudyn.spec (the
# installed wheel's `pip show` too, in CI's wheel job).  Then it must see
# a difference planted in a copy of those files: a spec one version ahead,
# a Debian synopsis of its own, a Python floor raised in pyproject.toml
# alone, a soname the spec no longer recommends, a description word changed.
# Needs Python 3.11 or later (tomllib); skips in a release tarball without
# packaging/.
. "$top_srcdir/tests/common.sh"
python=${PYTHON:-}
[ -n "$python" ] || { echo "SKIP: configure found no Python 3"; exit 77; }
"$python" -c 'import tomllib' 2>/dev/null || { echo "SKIP: $python has no tomllib (Python 3.11 or later)"; exit 77; }
[ -r "$top_srcdir/packaging/rpm/cudyn.spec" ] && [ -r "$top_srcdir/packaging/debian/control" ] ||
    { echo "SKIP: no packaging/ in this tree"; exit 77; }
check="$top_srcdir/packaging/check-metadata.py"

expect_exit 0 "$python" "$check" --top "$top_srcdir"
printf '%s\n' "$out"

# plant NAME FILE SED-SCRIPT PATTERN: a copy of the files with FILE edited
# must fail, with a FAIL line matching PATTERN
plant() {
    local copy="$tmp/$1"
    mkdir -p "$copy/packaging/rpm" "$copy/packaging/debian"
    cp "$top_srcdir/configure.ac" "$top_srcdir/pyproject.toml" "$copy/"
    cp "$top_srcdir/packaging/rpm/cudyn.spec" "$copy/packaging/rpm/"
    cp "$top_srcdir/packaging/debian/control" "$top_srcdir/packaging/debian/changelog" \
        "$top_srcdir/packaging/debian/copyright" "$copy/packaging/debian/"
    sed -i -e "$3" "$copy/$2"
    if cmp -s "$top_srcdir/$2" "$copy/$2"; then
        echo "FAIL: the $1 edit changed nothing in $2"
        fail=1
        return
    fi
    expect_exit 1 "$python" "$check" --top "$copy"
    expect_match "$out" "^FAIL: $4"
    echo "$1: $(printf '%s\n' "$out" | grep -m1 '^FAIL')"
}
plant version packaging/rpm/cudyn.spec 's/^Version: .*/Version:        9.9.9/' "version: cudyn.spec says '9.9.9'"
plant synopsis packaging/debian/control '/^Package: python3-cudyn/,/^Description:/s/^Description: .*/Description: another summary/' \
    "module summary: debian/control says 'another summary'"
plant floor pyproject.toml 's/^requires-python = .*/requires-python = ">=3.12"/' "Python floor: debian/control says '3.11'"
plant recommends packaging/rpm/cudyn.spec 's/libnvrtc\.so\.12()(64bit) or //' "cudyn-libs recommends: spec cudyn-libs says nothing more and libnvrtc\\.so\\.12 less than debian libcudyn1$"
plant description packaging/rpm/cudyn.spec 's/^its command-line tools:$/its tools:/' "cudyn description: the spec's is not"
plant licence packaging/debian/copyright '0,/^License: Expat$/s//License: GPL-2+/' "licence: debian/copyright says 'GPL-2\+'"
finish
