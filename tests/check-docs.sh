#!/bin/bash
# The shell commands of README.md and docs/*.md, run as a reader types
# them (tests/run-docs.sh: each block in a fresh shell with only what the
# page set before it, the files the page says to save, the output it
# shows), in a tree that is this build tree with the source tree's
# headers, HOME a fresh directory.  Blocks that install packages or build
# the tree run only in CI's clean-root job (a fresh Debian root, where the
# README's first command builds the tree); blocks that need GPUs run where
# the machine has that many.  Then what the pages say of each other: step
# 1 of the tutorial is the README's first command word for word, and that
# command's end (after the build) succeeds without a driver while cudainfo
# says why.
. "$top_srcdir/tests/common.sh"
if [ "${CUDYN_SANITIZER:-no}" != no ]; then
    echo "SKIP: a sanitizer build: the pages' plain cc cannot link its library"
    exit 77
fi
command -v cc > /dev/null || { echo "SKIP: no cc, which the pages use"; exit 77; }
src=$(cd "$top_srcdir" && pwd) build=$(cd "$top_builddir" && pwd)

# the tree the reader built in: this build tree, with the headers of the
# source tree (a VPATH build has them apart)
tree="$tmp/tree"
mkdir "$tree" && for d in lib tools tests man examples; do ln -s "$build/$d" "$tree/$d"; done
cp -rs "$src/include" "$tree/" || exit 1
[ "$build" != "$src" ] && [ -d "$build/include" ] && cp -rsf "$build/include/." "$tree/include/"

gpus=0
have_real_driver && gpus=$(env -u LD_LIBRARY_PATH "$probe" count | sed -n 's/^count.devices=//p')
RUN_DOCS_TOP="$src/" "$src/tests/run-docs.sh" --gpus "${gpus:-0}" --tree "$tree" --home "$tmp/home" \
    "$src/README.md" "$src"/docs/*.md || fail=1

# step 1 of the tutorial is the README's first command, word for word, and
# its end (after the build) succeeds without a GPU while cudainfo says why
first_block() { awk '/^```sh$/ { on = 1; next } on && /^```/ { exit } on' "$1"; }
step1=$(awk '/^## 1\. / { on = 1 } on' "$src/docs/getting-started.md" | first_block /dev/stdin)
readme1=$(first_block "$src/README.md")
[ -n "$step1" ] && [ "$step1" = "$readme1" ] ||
    { echo "FAIL: step 1 of docs/getting-started.md is not the README's first command:"; echo "  $step1"; echo "  $readme1"; fail=1; }
run=${readme1##*make -j\"\$(nproc)\" && }
[ "$run" != "$readme1" ] || { echo "FAIL: the README's first command does not end with make -j\"\$(nproc)\" && ..."; fail=1; }
(cd "$tree" && CUDYN_LIBCUDA=/nonexistent/libcuda.so.1 bash -ec "$run") > "$tmp/first.out" 2>&1 ||
    { echo "FAIL: the end of the README's first command failed without a driver:"; sed 's/^/    | /' "$tmp/first.out"; fail=1; }
expect_match "$(cat "$tmp/first.out")" "^cudainfo: .*CUDYN_LIBCUDA"
expect_match "$(cat "$tmp/first.out")" "^cudainfo: exit code 3$"

# a table of PERFORMANCE.md's rows quoted in a page (after <!-- rows of
# PERFORMANCE.md: SECTION -->): every line of it, the header too, is a
# line of that section, so a number is stated in one place
perf="$src/PERFORMANCE.md"
for page in "$src/README.md" "$src"/docs/*.md; do
    sed -n 's/^<!-- rows of PERFORMANCE\.md: \(.*\) -->$/\1/p' "$page" |
    while IFS= read -r section; do
        awk -v s="### $section" '$0 == s { on = 1; next } on && /^#/ { exit } on' "$perf" > "$tmp/section"
        [ -s "$tmp/section" ] || { echo "FAIL: ${page#"$src/"} quotes a section of PERFORMANCE.md that is not there: $section"; exit 1; }
        awk -v m="<!-- rows of PERFORMANCE.md: $section -->" '$0 == m { on = 1; next } on && !/^\|/ { exit } on' "$page" |
            grep -v '^|---' | while IFS= read -r row; do
                grep -qxF -- "$row" "$tmp/section" ||
                    { echo "FAIL: ${page#"$src/"}: this row is not in PERFORMANCE.md's section \"$section\":"; echo "    $row"; exit 1; }
            done || exit 1
        echo "${page#"$src/"}: its rows of PERFORMANCE.md's section \"$section\" match"
    done || fail=1
done
finish
