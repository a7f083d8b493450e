#!/bin/bash
# The README's program ("A kernel from a string, in C") as printed there:
# taken from README.md, compiled against the built library and run on the
# mock driver, with the real NVRTC when there is one, else the mock NVRTC.
# It must print what the comment on its printf says ("prints ...").
. "$top_srcdir/tests/common.sh"
readme="$top_srcdir/README.md"
awk '/^## A kernel from a string, in C/ { section = 1; next }
     section && /^## / { exit }
     section && /^```c$/ { code = 1; next }
     code && /^```/ { exit }
     code' "$readme" > "$tmp/scale.c"
[ -s "$tmp/scale.c" ] || { echo "FAIL: no \`\`\`c block under '## A kernel from a string, in C' in README.md"; exit 1; }
expected=$(sed -n 's|.*/\* prints \(.*\) \*/.*|\1|p' "$tmp/scale.c")
[ -n "$expected" ] || { echo "FAIL: the README program says nowhere what it prints (/* prints ... */)"; exit 1; }

# shellcheck disable=SC2086 # the flags are words
if ! $CC $CUDYN_CFLAGS -I"$top_srcdir/include" "$tmp/scale.c" -o "$tmp/scale" \
        -L"$top_builddir/lib/.libs" -lcudyn > "$tmp/cc.log" 2>&1; then
    echo "FAIL: the README program does not compile:"
    sed 's/^/    | /' "$tmp/cc.log"
    exit 1
fi

export CUDYN_LIBCUDA="$MOCK_LIBCUDA" LD_LIBRARY_PATH="$top_builddir/lib/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
nvrtc=$("$probe" info | sed -n 's/^nvrtc_status=//p')
if [ "$nvrtc" != CUDYN_OK ]; then
    echo "no NVRTC here: the mock NVRTC compiles the kernel"
    export CUDYN_LIBNVRTC="$MOCK_LIBNVRTC"
fi
expect_exit 0 "$tmp/scale"
expect_line "$out" "$expected"
finish
