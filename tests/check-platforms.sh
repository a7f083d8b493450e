#!/bin/bash
# README.md's "Platforms and drivers" against the code: every driver
# function its feature table names is a row of lib/driver_symbols.h (or,
# for cuGetProcAddress and cuGetProcAddress_v2, an entry mechanism of
# cudyn.h) whose ABI version is not newer than the CUDA version the table
# gives; the branch table goes up in CUDA versions; each feature's "first
# branch" is the first branch of that table that gives its CUDA version;
# and the header compiles as C99 and C++11 and is refused by strict C89 and C++98 but
# accepted by the c89 mode of the compiler, as the README and cudyn.h say.
. "$top_srcdir/tests/common.sh"
readme="$top_srcdir/README.md"
symbols="$top_srcdir/lib/driver_symbols.h"
header="$top_srcdir/include/cudyn.h"

section=$(awk '/^## Platforms and drivers$/ { on = 1; next } on && /^## / { exit } on' "$readme")
[ -n "$section" ] || { echo "FAIL: README.md has no '## Platforms and drivers' section"; exit 1; }
# version X.Y as a number like the driver's: 12.4 -> 12040
cuda_num() { echo "$1" | awk -F. '{ printf "%d\n", $1 * 1000 + $2 * 10 }'; }

# the branch table: | R450 | 11.0 |
branches=$(printf '%s\n' "$section" | sed -n 's/^| \(R[0-9][0-9]*\) | \([0-9][0-9]*\.[0-9]\) |$/\1 \2/p')
[ "$(printf '%s\n' "$branches" | grep -c .)" -ge 9 ] ||
    { echo "FAIL: the branch table has fewer than 9 rows:"; printf '%s\n' "$branches"; fail=1; }
for r in R450 R470 R525 R535 R550 R560 R570 R575 R580; do
    printf '%s\n' "$branches" | grep -q "^$r " || { echo "FAIL: the branch table has no $r"; fail=1; }
done
printf '%s\n' "$branches" | awk '{ split($2, v, "."); n = v[1] * 1000 + v[2] * 10; r = substr($1, 2) + 0 }
    NR > 1 && (n < last_n || r <= last_r) { print "FAIL: " $1 " (" $2 ") does not come after the row above it"; bad = 1 }
    { last_n = n; last_r = r } END { exit bad }' || fail=1

# the feature table: | feature | `function` | X.Y | Rnnn |
rows=$(printf '%s\n' "$section" | grep -E '^\| .* \| `cu[A-Za-z0-9_]+` \| [0-9]+\.[0-9] \| R[0-9]+ \|$')
[ "$(printf '%s\n' "$rows" | grep -c .)" -ge 8 ] || { echo "FAIL: the feature table has fewer than 8 rows:"; printf '%s\n' "$rows"; fail=1; }
while IFS= read -r row; do
    fn=$(printf '%s\n' "$row" | sed 's/.*| `\(cu[A-Za-z0-9_]*\)` | .*/\1/')
    ver=$(printf '%s\n' "$row" | sed 's/.* | \([0-9]*\.[0-9]\) | R[0-9]* |$/\1/')
    branch=$(printf '%s\n' "$row" | sed 's/.* | \(R[0-9]*\) |$/\1/')
    need=$(cuda_num "$ver")
    case $fn in
    cuGetProcAddress_v2) abi=$(sed -n 's|.*"cuGetProcAddress_v2") */\* CUDA \([0-9.]*\)+ \*/.*|\1|p' "$header") ;;
    cuGetProcAddress) abi=$(sed -n 's|.*"cuGetProcAddress") */\* the 4-argument one of \([0-9.]*\)-.*|\1|p' "$header") ;;
    *) abi=$(sed -n "s/^DRIVER_SYMBOL($fn, [A-Za-z0-9_]*, \\([0-9]*\\),.*/\\1/p" "$symbols" | head -n 1) ;;
    esac
    case $abi in
    '') echo "FAIL: README names $fn, which is no row of lib/driver_symbols.h"; fail=1; continue ;;
    *.*) abi=$(cuda_num "$abi") ;;
    esac
    [ "$need" -ge "$abi" ] ||
        { echo "FAIL: README says $fn needs CUDA $ver, but cudyn asks for it at ABI version $abi"; fail=1; }
    first=$(printf '%s\n' "$branches" | while read -r r v; do [ "$(cuda_num "$v")" -ge "$need" ] && { echo "$r"; break; }; done)
    [ "$first" = "$branch" ] || { echo "FAIL: $fn needs CUDA $ver: the first branch giving it is $first, not $branch"; fail=1; }
done <<< "$rows"
echo "feature table: $(printf '%s\n' "$rows" | grep -c .) rows checked against lib/driver_symbols.h"

# the minimum standards, said in both places and true
expect_match "$section" 'C99 or C\+\+11'
expect_match "$(sed -n '1,/\*\//p' "$header")" 'C99'
printf '#include <cudyn.h>\nint main(void) { return 0; }\n' > "$tmp/c99.c"
$CC -std=c99 -pedantic-errors -Wall -Wextra -Werror -I"$top_srcdir/include" -I"$top_builddir/include" -c "$tmp/c99.c" \
    -o "$tmp/c99.o" > "$tmp/cc.log" 2>&1 || { echo "FAIL: cudyn.h does not compile as C99:"; cat "$tmp/cc.log"; fail=1; }
$CC -std=c89 -pedantic-errors -I"$top_srcdir/include" -I"$top_builddir/include" -c "$tmp/c99.c" -o "$tmp/c89.o" \
    > /dev/null 2>&1 && { echo "FAIL: cudyn.h compiles as strict C89: the README says a strict C89 compiler refuses it"; fail=1; }
# and, as the README says too, the compilers' own c89 mode accepts it
$CC -std=c89 -I"$top_srcdir/include" -I"$top_builddir/include" -c "$tmp/c99.c" -o "$tmp/c89.o" > "$tmp/cc.log" 2>&1 ||
    { echo "FAIL: cudyn.h does not compile with $CC -std=c89 (the README says it does, as an extension):"; cat "$tmp/cc.log"; fail=1; }
if command -v c++ > /dev/null; then
    cp "$tmp/c99.c" "$tmp/cxx.cc"
    c++ -std=c++11 -pedantic-errors -Wall -Wextra -Werror -I"$top_srcdir/include" -I"$top_builddir/include" \
        -c "$tmp/cxx.cc" -o "$tmp/cxx.o" > "$tmp/cxx.log" 2>&1 ||
        { echo "FAIL: cudyn.h does not compile as C++11:"; cat "$tmp/cxx.log"; fail=1; }
    c++ -std=c++98 -pedantic-errors -I"$top_srcdir/include" -I"$top_builddir/include" -c "$tmp/cxx.cc" \
        -o "$tmp/cxx98.o" > /dev/null 2>&1 && { echo "FAIL: cudyn.h compiles as C++98: the README says C++11"; fail=1; }
fi
finish
