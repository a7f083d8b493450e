#!/bin/bash
# The README's programs as printed there, taken from README.md (and the
# deploy section of docs/reference.md, which builds on the README's first
# program), compiled against the built library and run on the mock driver;
# each must print what the comment on its printf says ("prints ...").
#  - "A kernel from a string, in C": with the real NVRTC when there is one,
#    else the mock NVRTC (tests/check-docs.sh runs the README's own lines
#    for it, on the mock driver and mock NVRTC of the build tree).
#  - "Kernels that deploy" (docs/reference.md): the section's commands
#    build an image of the first program's kernel with tools/cudyn-cc (no
#    driver) and embed it; its program then loads and runs it with no
#    NVRTC to be found.
. "$top_srcdir/tests/common.sh"
readme="$top_srcdir/README.md"
reference="$top_srcdir/docs/reference.md"

# block SECTION LANG [FILE]: the first ```LANG block under "## SECTION" of
# FILE (README.md)
block() {
    awk -v title="## $1" -v fence="\`\`\`$2" '$0 == title { section = 1; next }
        section && /^## / { exit }
        section && $0 == fence { code = 1; next }
        code && /^```/ { exit }
        code' "${3:-$readme}"
}

# compile NAME SOURCE [CFLAGS...]: builds $tmp/NAME against the built library
compile() {
    name=$1 src=$2
    shift 2
    # shellcheck disable=SC2086 # the flags are words
    if ! $CC $CUDYN_CFLAGS -I"$top_builddir/include" -I"$top_srcdir/include" "$@" "$src" -o "$tmp/$name" \
            -L"$top_builddir/lib/.libs" -lcudyn > "$tmp/cc.log" 2>&1; then
        echo "FAIL: the README program $src does not compile:"
        sed 's/^/    | /' "$tmp/cc.log"
        return 1
    fi
}

# what the program's comment says it prints
printed() {
    sed -n 's|.*/\* prints \(.*\) \*/.*|\1|p' "$1"
}

block "A kernel from a string, in C" c > "$tmp/scale.c"
[ -s "$tmp/scale.c" ] || { echo "FAIL: no \`\`\`c block under '## A kernel from a string, in C' in README.md"; exit 1; }
expected=$(printed "$tmp/scale.c")
[ -n "$expected" ] || { echo "FAIL: the README program says nowhere what it prints (/* prints ... */)"; exit 1; }
compile scale "$tmp/scale.c" || exit 1

export CUDYN_LIBCUDA="$MOCK_LIBCUDA" LD_LIBRARY_PATH="$top_builddir/lib/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
nvrtc=$("$probe" info | sed -n 's/^nvrtc_status=//p')
if [ "$nvrtc" != CUDYN_OK ]; then
    echo "no NVRTC here: the mock NVRTC compiles the kernel"
    export CUDYN_LIBNVRTC="$MOCK_LIBNVRTC"
fi
expect_exit 0 "$tmp/scale"
expect_line "$out" "$expected"

# ---- Kernels that deploy
deploy="$tmp/deploy"
mkdir "$deploy" || exit 1
block "Kernels that deploy" sh "$reference" > "$deploy/build.sh"
block "Kernels that deploy" c "$reference" > "$deploy/app.c"
[ -s "$deploy/build.sh" ] && [ -s "$deploy/app.c" ] ||
    { echo "FAIL: no \`\`\`sh and \`\`\`c blocks under '## Kernels that deploy' in docs/reference.md"; exit 1; }
expected=$(printed "$deploy/app.c")
[ -n "$expected" ] || { echo "FAIL: the deploy program says nowhere what it prints (/* prints ... */)"; exit 1; }
# scale.cu: the kernel of the first program, from its string literal
sed -n '/static const char src\[\] =/,/;$/p' "$tmp/scale.c" | sed -n 's/^ *"\(.*\)\\n";\{0,1\}$/\1/p' |
    sed 's/\\"/"/g' > "$deploy/scale.cu"
grep -q '__global__ void scale' "$deploy/scale.cu" || { echo "FAIL: no scale kernel in the first program"; exit 1; }
# POSIX tools only: no xxd, whose package the README's install line lacks
xxd() { echo "the README's commands use xxd, which is not installed by its apt-get line" >&2; return 127; }
export -f xxd
# building needs no driver
if ! (cd "$deploy" && env PATH="$top_builddir/tools:$PATH" CUDYN_LIBCUDA=/nonexistent bash -e build.sh) \
        > "$tmp/build.log" 2>&1; then
    echo "FAIL: the README's commands under '## Kernels that deploy' failed:"
    sed 's/^/    | /' "$deploy/build.sh" "$tmp/build.log"
    exit 1
fi
compile app "$deploy/app.c" -I"$deploy" || exit 1
expect_exit 0 env CUDYN_LIBNVRTC=/nonexistent/libnvrtc.so.13 "$tmp/app"
expect_line "$out" "$expected"
finish
