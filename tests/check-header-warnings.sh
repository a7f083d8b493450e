#!/bin/bash
# The public headers under the warnings users turn on: cudyn.h (with the
# generated cudyn/version.h), cudyn.hpp and, where configure found CUDA
# headers (--with-cuda), cudyn/driver.h compile with the flags below
# (-Wstrict-prototypes in C only: C++ has no such warning) as C11, C++17
# (with and without exceptions) and C++20, with gcc and with clang.
# tests/header_warnings.c (C, and C++ through header_warnings.cc) and
# tests/header_warnings.cc use every function-like macro, function and
# template of the headers; every object-like macro is used through a list
# written here from the headers, so a new one needs no edit.  A compiler or
# standard that is not there is a SKIP line; the test skips (77) only when
# none can run.
. "$top_srcdir/tests/common.sh"

FLAGS="-Wall -Wextra -Wshadow -Wconversion -Wsign-conversion -Wcast-qual -pedantic -Werror"
src="$top_srcdir/tests"
c_headers="$top_srcdir/include/cudyn.h $top_builddir/include/cudyn/version.h"
driver=()
if [ -n "${CUDA_INCLUDE_DIR:-}" ] && [ -r "$CUDA_INCLUDE_DIR/cuda.h" ]; then
    c_headers="$c_headers $top_srcdir/include/cudyn/driver.h"
    driver=(-DHEADER_WARNINGS_DRIVER_H -isystem "$CUDA_INCLUDE_DIR")   # CUDA's own warnings are not ours
else
    echo "SKIP: cudyn/driver.h (no CUDA headers: configure --with-cuda=DIR)"
fi

# macros FILE...: "F NAME" per function-like macro, "O NAME" per object-like
# one that has a value (not a header guard, not the empty CUDYN_API)
macros() {
    awk 'match($0, /^[ \t]*#[ \t]*define[ \t]+CUDYN_[A-Za-z0-9_]+/) {
        name = substr($0, RSTART, RLENGTH); sub(/^.*define[ \t]+/, "", name)
        rest = substr($0, RSTART + RLENGTH)
        if (rest ~ /^\(/) { print "F", name; next }
        sub(/^[ \t]+/, "", rest)
        if (rest != "" && rest !~ /^\/[*\/]/ && rest !~ /^__attribute__/) print "O", name
    }' "$@" | sort -u
}
# uses FILE...: each object-like macro as an expression statement
uses() {
    macros "$@" | awk '$1 == "O" { printf "    (void)(%s);\n", $2 }'
}
uses $c_headers > "$tmp/header_macros.inc"
uses "$top_srcdir/include/cudyn.hpp" > "$tmp/header_macros_hpp.inc"
echo "object-like macros used: $(wc -l < "$tmp/header_macros.inc") of cudyn.h and cudyn/version.h," \
    "$(wc -l < "$tmp/header_macros_hpp.inc") of cudyn.hpp"
# the function-like ones (X-macro lists, CUDYN_VERSION_AT_LEAST ...) are
# used by hand; those ending in _ are the headers' own row helpers
for name in $(macros $c_headers "$top_srcdir/include/cudyn.hpp" | awk '$1 == "F" && $2 !~ /_$/ { print $2 }'); do
    grep -qw "$name" "$src/header_warnings.c" "$src/header_warnings.cc" ||
        { echo "FAIL: $name is not used in tests/header_warnings.c or .cc: add a use"; fail=1; }
done

ran=0
# try COMPILER LANGUAGE STANDARD FILE [FLAGS...]: compiles FILE; a missing
# compiler or a standard it does not know is a SKIP line
try() {
    local cc=$1 lang=$2 std=$3 file=$4 out
    shift 4
    if ! command -v "$cc" > /dev/null; then
        echo "SKIP: $cc -std=$std: $cc not found"
        return
    fi
    if ! echo 'int main(void) { return 0; }' | "$cc" -x "$lang" -std="$std" -fsyntax-only - 2> /dev/null; then
        echo "SKIP: $cc -std=$std: $cc does not know the standard"
        return
    fi
    ran=$((ran + 1))
    if out=$("$cc" -x "$lang" -std="$std" $FLAGS "$@" -I"$top_builddir/include" -I"$top_srcdir/include" -I"$tmp" \
            -I"$src" "${driver[@]}" -c "$src/$file" -o "$tmp/out.o" 2>&1); then
        echo "ok: $cc -std=$std $* $file"
    else
        echo "FAIL: $cc -std=$std $FLAGS $* $file:"
        printf '%s\n' "$out" | sed 's/^/    | /'
        fail=1
    fi
}
for cc in gcc clang; do
    try "$cc" c c11 header_warnings.c -Wstrict-prototypes
done
for cxx in g++ clang++; do
    try "$cxx" c++ c++17 header_warnings.cc
    try "$cxx" c++ c++17 header_warnings.cc -fno-exceptions
    try "$cxx" c++ c++20 header_warnings.cc
done
[ "$ran" -gt 0 ] || { echo "SKIP: no C or C++ compiler to run"; exit 77; }
finish
