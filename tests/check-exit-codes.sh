#!/bin/bash
# One exit-code table for the three tools (TOOL_EXIT_CODES in
# tools/common.h): every number appears once; each man page's EXIT STATUS
# lists exactly the codes its tool uses (the tool's letter in the table),
# each tool's --help prints that same list, and a tool's sources name no
# exit code of the table that its letter does not claim.
. "$top_srcdir/tests/common.sh"
header="$top_srcdir/tools/common.h"

# "NUMBER NAME LETTERS" per row of the table
table=$(sed -n 's/^ *X(\([0-9]*\), *\(EXIT_[A-Z_]*\), *"\([a-z]*\)".*/\1 \2 \3/p' "$header")
[ "$(printf '%s\n' "$table" | wc -l)" -ge 10 ] || { echo "FAIL: no TOOL_EXIT_CODES table read from $header"; exit 1; }
dup=$(printf '%s\n' "$table" | awk '{print $1}' | sort | uniq -d)
[ -z "$dup" ] || { echo "FAIL: exit code(s) $dup in the table twice"; fail=1; }
dup=$(printf '%s\n' "$table" | awk '{print $2}' | sort | uniq -d)
[ -z "$dup" ] || { echo "FAIL: name(s) $dup in the table twice"; fail=1; }

check_tool() { # LETTER NAME SOURCES...
    local letter=$1 tool=$2 want man help used bad
    shift 2
    want=$(printf '%s\n' "$table" | awk -v l="$letter" 'index($3, l) {print $1}' | sort -n | tr '\n' ' ')
    man=$(sed -n '/^\.SH EXIT STATUS/,/^\.SH /p' "$top_srcdir/man/$tool.1" |
        awk 'prev == ".TP" && $1 == ".B" {print $2} {prev = $0}' | sort -n | tr '\n' ' ')
    [ "$man" = "$want" ] || { echo "FAIL: man/$tool.1 lists exit codes '$man'; the table gives $tool '$want'"; fail=1; }
    help=$("$top_builddir/tools/$tool" --help | sed -n '/^Exit codes:/,$p' | tr '\n' ' ' |
        grep -oE '(:|,) [0-9]+ ' | tr -dc '0-9 \n' | tr -s ' ' '\n' | sed '/^$/d' | sort -n | tr '\n' ' ')
    [ "$help" = "$want" ] || { echo "FAIL: $tool --help lists exit codes '$help', not '$want'"; fail=1; }
    used=$(cat "$@" | grep -oE '\bEXIT_[A-Z_]+\b' | sort -u)
    for name in $used; do
        row=$(printf '%s\n' "$table" | awk -v n="$name" '$2 == n')
        [ -n "$row" ] || continue # not an exit code (the table's own macro names)
        case ${row##* } in *$letter*) ;; *) bad="$bad $name" ;; esac
    done
    [ -z "${bad:-}" ] || { echo "FAIL: $tool's sources use$bad, which TOOL_EXIT_CODES does not give it"; fail=1; }
}
check_tool i cudainfo "$top_srcdir/tools/cudainfo.c"
check_tool s cudyn-saxpy "$top_srcdir/tools/cudyn-saxpy.c" "$top_srcdir"/tools/saxpy_*.c
check_tool c cudyn-cc "$top_srcdir/tools/cudyn-cc.c"
finish
