#!/bin/bash
# cudyn's CUresult and nvrtcResult lists (lib/cuda_results.h,
# lib/nvrtc_results.h) hold every code the CUDA headers define: a code a
# newer CUDA adds and the list lacks fails here.  check_cuda_abi proves the
# other direction (each row names the right code).  Needs --with-cuda.
. "$top_srcdir/tests/common.sh"
[ -n "${CUDA_INCLUDE_DIR:-}" ] && [ -r "$CUDA_INCLUDE_DIR/cuda.h" ] ||
    { echo "SKIP: no CUDA headers (configure --with-cuda=DIR)"; exit 77; }
rows=$("$top_builddir/tests/tables")

# from_header FILE PREFIX: "NAME=CODE" for every enumerator of that prefix
from_header() {
    grep -oE "\b$2[A-Z0-9_]* *= *[0-9]+" "$1" | tr -d ' ' | sort -u
}
from_table() {
    printf '%s\n' "$rows" | awk -v t="$1" '$1 == t {print $3 "=" $2}' | sort -u
}
for pair in "cuda:$CUDA_INCLUDE_DIR/cuda.h:CUDA_(ERROR_|SUCCESS)" "nvrtc:$CUDA_INCLUDE_DIR/nvrtc.h:NVRTC_(ERROR_|SUCCESS)"; do
    table=${pair%%:*}; rest=${pair#*:}; header=${rest%%:*}; prefix=${rest#*:}
    missing=$(comm -23 <(from_header "$header" "$prefix") <(from_table "$table"))
    extra=$(comm -13 <(from_header "$header" "$prefix") <(from_table "$table"))
    [ -z "$missing" ] || { echo "FAIL: $header defines codes lib/${table}_results.h lacks:"; echo "$missing"; fail=1; }
    [ -z "$extra" ] || { echo "FAIL: lib/${table}_results.h has codes $header does not define:"; echo "$extra"; fail=1; }
done
finish
