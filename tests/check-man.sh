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

# every page as lintian would see it: no groff warnings, a NAME line that
# whatis can read.  man renders each page on its own (its warnings are its
# own), nproc at a time; a ".so" link is rendered as the page it names, so
# the link is checked to be one .so line to a page that is rendered here.
# man's seccomp sandbox guards against hostile pages; it changes no output.
links=$(grep -l '^\.so ' $pages)
mkdir -p "$tmp/warn"
# shellcheck disable=SC2016 # the script is sh -c's
printf '%s\n' $pages | grep -vxF -e "${links:-/}" |
    MAN_DISABLE_SECCOMP=1 LC_ALL=C.UTF-8 MANROFFSEQ='' MANWIDTH=80 xargs -n 8 -P "$(nproc 2>/dev/null || echo 2)" sh -c '
        for p; do man --warnings -E UTF-8 -l "$p" 2> "$0/${p%%/*}_${p#*/}" > /dev/null; done' "$tmp/warn"
for p in $pages; do
    w="$tmp/warn/${p%%/*}_${p#*/}"
    [ ! -s "$w" ] || { echo "FAIL: man --warnings $p:"; sed 's/^/    | /' "$w"; fail=1; }
done
if command -v lexgrog >/dev/null; then
    # one line a page, "PAGE: parse failed" for a NAME section whatis cannot read
    # shellcheck disable=SC2086 # one word a page
    lexgrog $(printf '%s\n' $pages | grep -vxF -e "${links:-/}") > "$tmp/lexgrog" 2>&1 ||
        grep -q ': parse failed$' "$tmp/lexgrog" || { echo "FAIL: lexgrog:"; sed 's/^/    | /' "$tmp/lexgrog"; fail=1; }
    sed -n 's/^\(.*\): parse failed$/FAIL: whatis cannot read the NAME section of \1/p' "$tmp/lexgrog" | grep . && fail=1
fi

# every function has a page (itself or a link) that declares it; every page
# names only what exists: links are functions or types, and the NAME line of
# a group's page lists its page name and functions
functions=$(awk '/^[ \t]*CUDYN_API([ \t]|$)/ { d = ""; on = 1 }
    on { d = d " " $0 }
    on && /;/ { on = 0; sub(/[ \t]*\(.*/, "", d); n = split(d, w, /[^A-Za-z0-9_]+/); print w[n] }' "$header")
[ "$(printf '%s\n' "$functions" | wc -l)" -gt 50 ] || { echo "FAIL: too few CUDYN_API functions found in cudyn.h"; fail=1; }
types=$(sed -n -e 's/^typedef .*[^A-Za-z0-9_]\(cudyn_[A-Za-z0-9_]*\);.*/\1/p' -e 's/^struct \(cudyn_[A-Za-z0-9_]*\) {.*/\1/p' \
    -e 's/^} *\(cudyn_[A-Za-z0-9_]*\);.*/\1/p' "$header")
# shellcheck disable=SC2086 # one word a page
awk -v functions="$(echo $functions)" -v types="$(echo $types)" -f "$top_srcdir/tests/check-man.awk" $pages || fail=1

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
