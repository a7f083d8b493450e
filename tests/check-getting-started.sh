#!/bin/bash
# docs/getting-started.md as a reader follows it: its ```sh blocks run in
# order in one shell (exports and the working directory carry over), from
# a tree that is this build tree, with HOME a fresh directory (so the
# kernel cache is the tutorial's ~/.cache/cudyn); a ```c block after
# <!-- file: NAME --> is saved as NAME where the reader is; a ```text block
# after a ```sh block holds lines its output must have ("..." lines stand
# for any); <!-- skip: why --> keeps the next block from running (the
# install), and <!-- output without a GPU --> marks output that only a
# machine without a driver prints.
. "$top_srcdir/tests/common.sh"
page="$top_srcdir/docs/getting-started.md"
if [ "${CUDYN_SANITIZER:-no}" != no ]; then
    echo "SKIP: a sanitizer build: the tutorial's plain cc cannot link its library"
    exit 77
fi
command -v cc > /dev/null || { echo "SKIP: no cc, which the tutorial uses"; exit 77; }

# the tree the reader built in: this build tree, with the headers of the
# source tree (a VPATH build has them apart)
tree="$tmp/tree"
mkdir "$tree" && for d in lib tools tests man; do ln -s "$top_builddir/$d" "$tree/$d"; done
cp -rs "$top_srcdir/include" "$tree/" || exit 1
[ -d "$top_builddir/include" ] && [ "$top_builddir" != "$top_srcdir" ] && cp -rsf "$top_builddir/include/." "$tree/include/"
mkdir "$tmp/home"

# the page as a script, and the expected output of each block
awk -v dir="$tmp" '
    /^<!-- skip:/ { skip = 1; next }
    /^<!-- file: / { file = $3; next }
    /^<!-- output without a GPU -->/ { nogpu = 1; next }
    /^```/ && !fence {
        fence = substr($0, 4)
        if (skip) { mode = "skip" }
        else if (file != "") { mode = "file"; print "cat > " file " <<'"'"'GETTING_STARTED_EOF'"'"'" > (dir "/script.sh") }
        else if (fence == "sh") { mode = "sh"; n++; print "echo \"@@block " n "\"" > (dir "/script.sh") }
        else if (fence == "text") { mode = "text"; out = dir "/expect." n (nogpu ? ".nogpu" : ""); printf "" > out }
        else { mode = "skip" }
        skip = 0; file = ""; nogpu = 0
        next
    }
    /^```$/ && fence {
        if (mode == "file") print "GETTING_STARTED_EOF" > (dir "/script.sh")
        fence = ""; next
    }
    fence && (mode == "sh" || mode == "file") { print > (dir "/script.sh") }
    fence && mode == "text" { print > out }
    END { print "echo \"@@done\"" > (dir "/script.sh") }
' "$page"
blocks=$(grep -c '^echo "@@block' "$tmp/script.sh")
[ "$blocks" -ge 10 ] || { echo "FAIL: only $blocks runnable blocks in docs/getting-started.md"; exit 1; }

# as a reader without a GPU: no setting of ours, the machine's own PATH
(cd "$tree" && env -u CUDYN_CACHE_DIR -u CUDYN_LIBNVRTC -u CUDYN_LIBCUDA -u LD_LIBRARY_PATH HOME="$tmp/home" \
    bash -e "$tmp/script.sh") > "$tmp/out" 2>&1
grep -q '^@@done$' "$tmp/out" || {
    echo "FAIL: docs/getting-started.md: the commands of block $(grep -c '^@@block' "$tmp/out") failed; the run:"
    sed 's/^/    | /' "$tmp/out"
    exit 1
}
echo "ran the $blocks shell blocks of docs/getting-started.md"

# step 1 is the README's first command, word for word, and its end (after
# the build) succeeds without a GPU while cudainfo says why
first_block() { awk '/^```sh$/ { on = 1; next } on && /^```/ { exit } on' "$1"; }
step1=$(awk '/^## 1\. / { on = 1 } on' "$page" | first_block /dev/stdin)
readme1=$(first_block "$top_srcdir/README.md")
[ -n "$step1" ] && [ "$step1" = "$readme1" ] ||
    { echo "FAIL: step 1 of docs/getting-started.md is not the README's first command:"; echo "  $step1"; echo "  $readme1"; fail=1; }
run=${readme1##*make -j\"\$(nproc)\" && }
[ "$run" != "$readme1" ] || { echo "FAIL: the README's first command does not end with make -j\"\$(nproc)\" && ..."; fail=1; }
(cd "$tree" && CUDYN_LIBCUDA=/nonexistent/libcuda.so.1 bash -ec "$run") > "$tmp/first.out" 2>&1 ||
    { echo "FAIL: the end of the README's first command failed without a driver:"; sed 's/^/    | /' "$tmp/first.out"; fail=1; }
expect_match "$(cat "$tmp/first.out")" "^cudainfo: .*CUDYN_LIBCUDA"
expect_match "$(cat "$tmp/first.out")" "^cudainfo: exit code 3$"

version=$("$cudainfo" --version | sed -n 's/.* \([0-9][0-9.]*\).*/\1/p' | head -n 1)
for expect in "$tmp"/expect.*; do
    [ -e "$expect" ] || continue
    n=${expect#"$tmp/expect."}
    case $n in *.nogpu) n=${n%.nogpu}; have_real_driver && continue ;; esac
    got=$(awk -v n="$n" '/^@@/ { on = ($0 == "@@block " n); next } on' "$tmp/out")
    while IFS= read -r line; do
        case $line in *...*) continue ;; esac
        line=$(printf '%s\n' "$line" | sed "s/^cudainfo [0-9][0-9.]* (cudyn)\$/cudainfo $version (cudyn)/")
        printf '%s\n' "$got" | grep -qxF -- "$line" || {
            echo "FAIL: block $n of docs/getting-started.md did not print: $line"
            printf '%s\n' "$got" | sed 's/^/    | /'
            fail=1
        }
    done < "$expect"
done
finish
