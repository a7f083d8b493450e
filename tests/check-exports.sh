#!/bin/bash
# The built library exports exactly the functions of lib/libcudyn.map, all
# at CUDYN_1.0, which the Debian symbols file lists too; its soname is libcudyn.so.1; it needs only the C library
# (and the dynamic loader, for thread-local storage; in sanitizer builds the
# sanitizers' runtimes), no CUDA library, carries no RPATH/RUNPATH and
# needs no static TLS.
. "$top_srcdir/tests/common.sh"
for tool in nm readelf; do
    command -v $tool >/dev/null || { echo "SKIP: $tool not found"; exit 77; }
done

lib="$LIBCUDYN"
[ -r "$lib" ] || { echo "SKIP: no shared library built ($lib)"; exit 77; }

map_names=$(sed -n 's/^ *\(cudyn_[a-z0-9_]*\);$/\1/p' "$top_srcdir/lib/libcudyn.map" | sort)
exported=$(nm -D --defined-only "$lib" | awk '$2 == "T" || $2 == "D" || $2 == "B" || $2 == "R" {print $3}' \
           | grep -v '^CUDYN_1\.0$' | sort)
versioned=$(nm -D --defined-only --with-symbol-versions "$lib" 2>/dev/null | awk '{print $3}' | grep -v '^CUDYN_1\.0')

if [ "$(printf '%s\n' "$exported" | sed 's/@.*//')" != "$map_names" ]; then
    echo "FAIL: exported symbols differ from lib/libcudyn.map:"
    diff <(printf '%s\n' "$map_names") <(printf '%s\n' "$exported" | sed 's/@.*//') 2>/dev/null ||
        { printf 'map:\n%s\nexported:\n%s\n' "$map_names" "$exported"; }
    fail=1
fi
# the header declares exactly the map's functions
header_names=$(grep -oE '^CUDYN_API [^(]*\bcudyn_[a-z0-9_]+\(' "$top_srcdir/include/cudyn.h" | grep -oE 'cudyn_[a-z0-9_]+\($' | tr -d '(' | sort)
[ "$header_names" = "$map_names" ] || { echo "FAIL: include/cudyn.h and lib/libcudyn.map list different functions"; fail=1; }
# the Debian symbols file lists exactly the map's functions (dpkg-gensymbols
# fails the package build on a new one; the RPM has none)
symbols="$top_srcdir/packaging/debian/libcudyn1.symbols"
if [ -r "$symbols" ]; then
    listed=$(sed -n 's/^ \(cudyn_[a-z0-9_]*\)@CUDYN_1\.0 .*/\1/p' "$symbols" | sort)
    [ "$listed" = "$map_names" ] || {
        echo "FAIL: packaging/debian/libcudyn1.symbols and lib/libcudyn.map list different functions:"
        diff <(printf '%s\n' "$map_names") <(printf '%s\n' "$listed")
        fail=1
    }
fi
# every export carries the version node
bad=$(printf '%s\n' "$versioned" | grep -v '@@CUDYN_1\.0$' || true)
[ -z "$bad" ] || { echo "FAIL: symbols not at @@CUDYN_1.0:"; printf '%s\n' "$bad"; fail=1; }

dyn=$(readelf -d "$lib")
expect_match "$dyn" "Library soname: \[libcudyn\.so\.1\]"
expect_no_match "$dyn" "\((RPATH|RUNPATH)\)"
# no static TLS (initial-exec thread-locals): a library loaded with dlopen
# (Python's ctypes, JNI) could then fail with "cannot allocate memory in
# static TLS block"
expect_no_match "$dyn" "STATIC_TLS"
expect_no_match "$dyn" "NEEDED.*(libcuda|libnvrtc)"
# a sanitizer build (configure --enable-sanitizer=LIST, passed here as
# CUDYN_SANITIZER) may also need those sanitizers' runtimes, and only those
allowed='libc\.so\.6|libdl\.so\.2|libpthread\.so\.0|ld-linux[-a-z0-9_.]*\.so\.[0-9]+'
for san in $(printf '%s\n' "${CUDYN_SANITIZER:-no}" | tr ',' ' '); do
    case $san in
    no) ;;
    address) allowed="$allowed|libasan\.so\.[0-9]+" ;;
    thread) allowed="$allowed|libtsan\.so\.[0-9]+" ;;
    undefined) allowed="$allowed|libubsan\.so\.[0-9]+" ;;
    *) echo "FAIL: CUDYN_SANITIZER=$CUDYN_SANITIZER names an unknown sanitizer '$san'"; fail=1 ;;
    esac
done
needed=$(printf '%s\n' "$dyn" | sed -n 's/.*Shared library: \[\(.*\)\]/\1/p' | grep -vE "^($allowed)\$" || true)
[ -z "$needed" ] || { echo "FAIL: unexpected NEEDED entries: $needed"; fail=1; }
finish
