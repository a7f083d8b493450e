#!/bin/bash
# The public ABI (types and functions of include/cudyn.h as built) matches
# the committed baseline tests/cudyn.abi.  A change fails until the baseline
# is refreshed on purpose (make abi-baseline) with a NEWS line.
. "$top_srcdir/tests/common.sh"
if [ -z "${ABIDIFF:-}" ] || [ -z "${ABIDW:-}" ]; then
    echo "SKIP: abigail-tools (abidw, abidiff) not installed"
    exit 77
fi
# opaque structs (cudyn_args, cudyn_program ...) are not ABI: only types
# defined in the public headers count
"$ABIDW" --no-corpus-path --headers-dir "$top_srcdir/include" --drop-private-types "$LIBCUDYN" > "$tmp/current.abi" || exit 1
if "$ABIDIFF" "$top_srcdir/tests/cudyn.abi" "$tmp/current.abi" > "$tmp/diff" 2>&1; then
    echo "PASS: ABI matches tests/cudyn.abi"
    exit 0
fi
echo "FAIL: the public ABI changed against tests/cudyn.abi:"
cat "$tmp/diff"
echo "If the change is intended: make abi-baseline, add a NEWS line, commit both."
exit 1
