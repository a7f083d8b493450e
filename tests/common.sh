# common.sh - helpers for cudyn's shell tests (sourced).  Exit-code
# protocol: 0 pass, 77 skip, 1 fail.
set -u
export LC_ALL=C   # sort and grep behave the same on every machine
fail=0
probe="$top_builddir/tests/probe"
cudainfo="$top_builddir/tools/cudainfo"
MOCK_DIR=$(dirname "$MOCK_LIBCUDA")
tmp=$(mktemp -d "${TMPDIR:-/tmp}/cudyn-test.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
tmp=$(cd "$tmp" && pwd -P) # canonical, as the toolkit's include directories are reported

# Keep the machine's own settings out of the tests (CUDYN_LIBNVRTC stays:
# CI sets it to run everything as on a machine without NVRTC).
unset CUDYN_LIBCUDA CUDYN_DEBUG CUDYN_PTDS MOCK_CUDA_VERSION MOCK_CUDA_STUB \
    MOCK_CUDA_DEVICES MOCK_CUDA_MISSING MOCK_CUDA_FAIL MOCK_CUDA_REJECT MOCK_CUDA_P2P CUDA_VISIBLE_DEVICES \
    MOCK_CUDA_COUNTS MOCK_NVRTC_FAIL MOCK_NVRTC_COUNTS CUDYN_COMPAT MOCK_CUDA_COMPAT_INIT CUDYN_TEST_KMOD_VERSION_FILE CUDYN_DRIVER_LOG \
    CUDYN_LIBNVML CUDAINFO_NVML MOCK_NVML MOCK_NVML_GPUS MOCK_NVML_MIG MOCK_NVML_FAIL

# valgrind cannot run what a sanitizer built (configure --enable-sanitizer,
# which the harness passes as CUDYN_SANITIZER): tests that use valgrind
# when it is there see it as not installed.
[ "${CUDYN_SANITIZER:-no}" = no ] || VALGRIND=

# expect_line OUTPUT LINE: OUTPUT has exactly LINE as one of its lines
expect_line() {
    if ! printf '%s\n' "$1" | grep -qxF -- "$2"; then
        echo "FAIL: expected the line '$2' in:"
        printf '%s\n' "$1" | sed 's/^/    | /'
        fail=1
    fi
}

# expect_match OUTPUT REGEX / expect_no_match OUTPUT REGEX
expect_match() {
    if ! printf '%s\n' "$1" | grep -qE -- "$2"; then
        echo "FAIL: expected /$2/ in:"
        printf '%s\n' "$1" | sed 's/^/    | /'
        fail=1
    fi
}
expect_no_match() {
    if printf '%s\n' "$1" | grep -qE -- "$2"; then
        echo "FAIL: did not expect /$2/ in:"
        printf '%s\n' "$1" | sed 's/^/    | /'
        fail=1
    fi
}

# expect_exit CODE command...: runs it, output in $out
expect_exit() {
    want=$1
    shift
    out=$("$@" 2>&1)
    got=$?
    if [ "$got" != "$want" ]; then
        echo "FAIL: '$*' exited $got, expected $want; output:"
        printf '%s\n' "$out" | sed 's/^/    | /'
        fail=1
    fi
}

# one_installer COMMAND...: runs COMMAND while no other test installs
# (flock, where there is one): libtool relinks the Python module inside the
# build tree while make install installs it, and two relinks at once
# trample each other's files.
one_installer() {
    if command -v flock >/dev/null; then
        flock "$top_builddir/tests/install.lock" "$@"
    else
        "$@"
    fi
}

# install_staged DIR: `make install DESTDIR=DIR` of the build tree, without
# the make settings this test runs under; prints the log and fails if it
# does not succeed.
install_staged() {
    if ! one_installer env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL "$MAKE" -C "$top_builddir" install DESTDIR="$1" \
            > "$tmp/install.log" 2>&1; then
        echo "FAIL: make install DESTDIR=$1:"
        sed 's/^/    | /' "$tmp/install.log"
        exit 1
    fi
}

# A real libcuda on this machine changes what "nothing found" means.
have_real_driver() {
    env -u LD_LIBRARY_PATH "$probe" info 2>/dev/null | grep -q '^driver_status=CUDYN_OK$'
}

# keep_json SCHEMA DOCUMENT: a tool's --json output, validated by finish
# against the schema the build installs (tools/schema/bundled: SCHEMA
# cudainfo/2 is cudainfo-2.schema.json, common.schema.json bundled in)
# with the stock validator of Debian's python3-jsonschema, as a user
# would; without it, finish says so and validates nothing.
kept_json=0
keep_json() {
    kept_json=$((kept_json + 1))
    mkdir -p "$tmp/json/${1%/*}" && printf '%s\n' "$2" > "$tmp/json/${1%/*}/$kept_json.json"
    echo "$1" > "$tmp/json/${1%/*}/schema"
}
validate_kept_json() {
    local dir schema docs file doc
    if ! /usr/bin/python3 -c 'import jsonschema' 2>/dev/null; then
        echo "schema: not validated, no python3-jsonschema for /usr/bin/python3"
        return
    fi
    for dir in "$tmp"/json/*/; do
        [ -f "$dir/schema" ] || continue
        schema=$(cat "$dir/schema")
        file="$top_builddir/tools/schema/bundled/$(echo "$schema" | tr / -).schema.json"
        [ -f "$file" ] || { echo "FAIL: no schema $file for $schema (make builds it)"; fail=1; continue; }
        set --
        for doc in "$dir"/*.json; do set -- "$@" -i "$doc"; done
        docs=$(($# / 2))
        if /usr/bin/python3 -m jsonschema "$@" "$file" > "$tmp/schema.log" 2>&1; then
            echo "schema: $docs $schema documents valid (${file#"$top_builddir"/})"
        else
            echo "FAIL: $schema documents that do not match ${file#"$top_builddir"/}:"
            sed 's/^/    | /' "$tmp/schema.log"
            fail=1
        fi
    done
}

finish() {
    [ -x /usr/bin/python3 ] || { [ "$kept_json" = 0 ] || echo "schema: not validated, no /usr/bin/python3"; kept_json=0; }
    [ "$kept_json" = 0 ] || validate_kept_json
    [ "$fail" = 0 ] && echo "PASS: $(basename "$0")"
    exit "$fail"
}
