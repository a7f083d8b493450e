#!/bin/bash
# The manual: every variable the library reads is in cudyn-env(7); after
# `make install` (staged with DESTDIR) every page is clean for
# `man --warnings`, every CUDYN_API function of cudyn.h has a page of its
# own that declares it and says what it does on its NAME line, every page
# names only functions and types that exist, and `man -M <staged man dir>
# cudyn_launchf` shows its page, with the format alphabet as a table.
. "$top_srcdir/tests/common.sh"
header="$top_srcdir/include/cudyn.h"
env_page="$top_srcdir/man/cudyn-env.7"

# Variables the library reads: getenv("NAME") calls, the names in tables
# that a getenv(table[i].field) call reads, and the header's list.
{
    sed -n 's/.*getenv("\([A-Za-z_][A-Za-z0-9_]*\)").*/\1/p' "$top_srcdir"/lib/*.c "$top_srcdir"/lib/*/*.c
    for table in $(sed -n 's/.*getenv(\([A-Za-z_][A-Za-z0-9_]*\)\[.*/\1/p' "$top_srcdir"/lib/*.c | sort -u); do
        cat "$top_srcdir"/lib/*.c | awk -v t="$table" 'index($0, t "[]") { on = 1 } on { print } on && /;/ { exit }' |
            grep -o '"[A-Za-z_][A-Za-z0-9_]*"' | tr -d '"'
    done
    sed -n '/Environment variables/,/\*\//p' "$header" | grep -o 'CUDYN_[A-Z0-9_]*'
} | sort -u > "$tmp/vars"
[ "$(wc -l < "$tmp/vars")" -ge 6 ] || { echo "FAIL: found only these variables: $(cat "$tmp/vars")"; fail=1; }
while read -r v; do
    grep -qx "\\.B $v" "$env_page" || { echo "FAIL: the library reads $v; man/cudyn-env.7 has no '.B $v' entry"; fail=1; }
done < "$tmp/vars"

command -v man >/dev/null || { echo "SKIP: no man (the variables were checked)"; [ "$fail" = 0 ] && exit 77; exit 1; }
# a minimised system's man is a stub that prints a notice for every page
man -l "$env_page" 2>/dev/null | grep -q 'CUDYN_LIBCUDA' ||
    { echo "SKIP: man cannot show pages here (the variables were checked)"; [ "$fail" = 0 ] && exit 77; exit 1; }

stage="$tmp/stage"
install_staged "$stage"
mandir="$stage$mandir"
cd "$mandir" || exit 1
pages=$(ls man*/*.[0-9])
for p in man1/cudainfo.1 man1/cudyn-saxpy.1 man3/cudyn.3 man7/cudyn-env.7; do
    [ -f "$p" ] || { echo "FAIL: $p is not installed"; fail=1; }
done

# every page as lintian would see it: no groff warnings (".so" links are
# followed from here), a NAME line that whatis can read
for p in $pages; do
    warn=$(LC_ALL=C.UTF-8 MANROFFSEQ='' MANWIDTH=80 man --warnings -E UTF-8 -l "$p" 2>&1 >/dev/null)
    [ -z "$warn" ] || { echo "FAIL: man --warnings $p:"; printf '%s\n' "$warn" | sed 's/^/    | /'; fail=1; }
    if grep -q '^\.so ' "$p"; then
        target=$(sed -n 's/^\.so //p' "$p")
        [ "$(wc -l < "$p")" = 1 ] && [ -f "$target" ] || { echo "FAIL: $p is not one .so line to a page"; fail=1; }
    elif command -v lexgrog >/dev/null; then
        lexgrog "$p" > /dev/null || { echo "FAIL: whatis cannot read the NAME section of $p"; fail=1; }
    fi
    grep -n '[^[:print:][:space:]]' "$p" && { echo "FAIL: $p has bytes outside ASCII"; fail=1; }
    grep -nE '^\.TH ' "$p" | grep -qE '^[0-9]+:\.TH [^ ]+ [0-9] "[0-9]{4}-[0-9]{2}-[0-9]{2}" ' || grep -q '^\.so ' "$p" ||
        { echo "FAIL: $p: .TH has no date as YYYY-MM-DD"; fail=1; }
done

# every function has a page (itself or a link) that declares it
functions=$(awk '/^[ \t]*CUDYN_API([ \t]|$)/ { d = ""; on = 1 }
    on { d = d " " $0 }
    on && /;/ { on = 0; sub(/[ \t]*\(.*/, "", d); n = split(d, w, /[^A-Za-z0-9_]+/); print w[n] }' "$header")
[ "$(printf '%s\n' "$functions" | wc -l)" -gt 50 ] || { echo "FAIL: too few CUDYN_API functions found in cudyn.h"; fail=1; }
for f in $functions; do
    p="man3/$f.3"
    [ -f "$p" ] || { echo "FAIL: $f has no page ($p)"; fail=1; continue; }
    grep -q '^\.so ' "$p" && p=$(sed -n 's/^\.so //p' "$p")
    sed -n '/^\.SH SYNOPSIS/,/^\.SH /p' "$p" | grep -q "[^A-Za-z0-9_]$f(" ||
        { echo "FAIL: $p does not declare $f in its SYNOPSIS"; fail=1; }
done

# every page names only what exists: links are functions or types, and
# the NAME line of a group's page lists its page name and functions
types=$(sed -n -e 's/^typedef .*[^A-Za-z0-9_]\(cudyn_[A-Za-z0-9_]*\);.*/\1/p' -e 's/^struct \(cudyn_[A-Za-z0-9_]*\) {.*/\1/p' \
    -e 's/^} *\(cudyn_[A-Za-z0-9_]*\);.*/\1/p' "$header")
# shellcheck disable=SC2086 # one line of words
{ functions=" $(echo $functions) "; known="$functions$(echo $types) "; }
for p in man3/*.3; do
    name=$(basename "$p" .3)
    if grep -q '^\.so ' "$p"; then
        case $known in *" $name "*) ;; *) echo "FAIL: $p links a name cudyn.h does not declare"; fail=1 ;; esac
        continue
    fi
    [ "$name" = cudyn ] && continue
    listed=$(sed -n '/^\.SH NAME/{n;p;}' "$p" | sed 's/ \\-.*//; s/,//g')
    for n in $listed; do
        [ "$n" = "$name" ] && continue
        case $functions in *" $n "*) ;; *) echo "FAIL: $p names $n, which is no function of cudyn.h"; fail=1 ;; esac
    done
    grep -q "^\\.BR $name (3)" man3/cudyn.3 && continue # a group's page
    case $functions in
    *" $name "*) # a function's own page: its NAME line is its own, and it points to its group's page
        [ "$listed" = "$name" ] || { echo "FAIL: $p names more than $name: $listed"; fail=1; }
        group=$(sed -n '/^\.SH SEE ALSO/{n;s/^\.BR \([^ ]*\) (3).*/\1/p;}' "$p")
        grep -q "^\\.BR $group (3)" man3/cudyn.3 2>/dev/null ||
            { echo "FAIL: $p does not point to its group's page (SEE ALSO: '$group')"; fail=1; } ;;
    *) grep -q "^\\.BR $name (3)" man3/cudyn.3 || { echo "FAIL: cudyn(3) does not list $name(3)"; fail=1; } ;;
    esac
done

# what a user types after installing
export MANPAGER=cat PAGER=cat MANWIDTH=80 LC_ALL=C.UTF-8
out=$(man -M "$mandir" cudyn_launchf 2>&1)
expect_match "$out" "^CUDYN_LAUNCHF\\(3\\)"
expect_match "$out" "int cudyn_launchf\\(cudyn_function f,"
# its NAME line says what it does, not its group's title, and the format
# alphabet is a table, not the header's X-macro
expect_match "$(sed -n '/^\.SH NAME/{n;p;}' man3/cudyn_launchf.3)" '^cudyn_launchf \\- takes the kernel.s arguments'
expect_match "$out" "^ +[|│]p +[|│] 8 +[|│] POINTER +[|│] device pointer +[|│] cudyn_devptr"
expect_no_match "$out" "CUDYN_LAUNCH_FORMAT_MAP|X\\("
expect_no_match "$(cat man3/*.3)" "^#define [A-Z_]*_MAP\\(X\\)"
# whatis reads each function's own summary
if command -v lexgrog >/dev/null; then
    expect_match "$(lexgrog man3/cudyn_mem_alloc.3)" 'cudyn_mem_alloc - '
    expect_no_match "$(lexgrog man3/cudyn_mem_alloc.3)" 'cudyn memory$'
fi
out=$(man -M "$mandir" 7 cudyn-env 2>&1)
expect_match "$out" "CUDYN_LIBCUDA"
finish
