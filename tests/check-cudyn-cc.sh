#!/bin/bash
# cudyn-cc: usage errors (in the other tools' words) and every exit code,
# an image for several architectures made with no driver at all, --arch
# repeated, the single-target formats, --header and -I, the cache
# commands, and a man page man(1) reads without warnings.  Compiling needs
# the real NVRTC (those parts skip without it).
. "$top_srcdir/tests/common.sh"
cc="$top_builddir/tools/cudyn-cc"
export CUDYN_CACHE_DIR="$tmp/cache"

# ---- usage (exit 2) and the informational options
expect_exit 0 "$cc" --help
expect_match "$out" "^Usage: cudyn-cc"
expect_exit 0 "$cc" --version
expect_match "$out" "^cudyn-cc \(cudyn\) [0-9]+\.[0-9]+"
# a usage error is one line naming what is wrong, as the other tools say it
expect_exit 2 "$cc"
expect_line "$out" "cudyn-cc: no source file given (see cudyn-cc --help)"
expect_exit 2 "$cc" --no-such-option
expect_line "$out" "cudyn-cc: unrecognized option '--no-such-option' (see cudyn-cc --help)"
expect_exit 2 "$cc" --cache-info=yes
expect_line "$out" "cudyn-cc: option '--cache-info' takes no value (see cudyn-cc --help)"
expect_exit 2 "$cc" -o out.img k.cu
expect_match "$out" "no target given"
expect_exit 2 "$cc" --arch sm_80 k.cu
expect_match "$out" "no output given"
expect_exit 2 "$cc" -o out.img --arch sm_90a k.cu
expect_match "$out" "'sm_90a' is not sm_XY or compute_XY"
expect_exit 2 "$cc" -o out.img --arch sm_80,sm_80 k.cu
expect_match "$out" "--arch: 'sm_80' given twice"
expect_exit 2 "$cc" -o out.img --arch sm_80 --arch compute_90,sm_80 k.cu
expect_match "$out" "--arch: 'sm_80' given twice"
expect_exit 2 "$cc" -o out.img --arch sm_80 --format elf k.cu
expect_exit 2 "$cc" -o out.img --arch sm_80,sm_90 --format cubin k.cu
expect_exit 2 "$cc" -o out.img --arch compute_80 --format cubin k.cu
expect_exit 2 "$cc" -o out.img --arch sm_80 --header nofile k.cu
expect_exit 2 "$cc" -o out.img --arch sm_80 k.cu -I
expect_line "$out" "cudyn-cc: missing value for option '-I' (see cudyn-cc --help)"
expect_exit 2 "$cc" -o out.img --arch sm_80 k.cu -Xnvrtc
expect_line "$out" "cudyn-cc: missing value for option '-Xnvrtc' (see cudyn-cc --help)"
expect_exit 2 "$cc" -o out.img --arch sm_80 -Xptxas -v k.cu
expect_line "$out" "cudyn-cc: invalid option '-Xptxas' (see cudyn-cc --help)"
expect_exit 2 "$cc" -o out.img --arch sm_80 a.cu b.cu
# targets: one spelling each (2 or 3 digits, no leading zero), refused here,
# before NVRTC, so sm_090 cannot pass for a second sm_90
for a in sm_00 sm_0090 sm_9999 sm_9 compute_075; do
    expect_exit 2 "$cc" -o out.img --arch "$a" k.cu
    expect_line "$out" "cudyn-cc: --arch: '$a' is not sm_XY or compute_XY (2 or 3 digits, no leading zero: sm_90) (see cudyn-cc --help)"
done
expect_exit 2 "$cc" -o out.img --arch sm_90,sm_090 k.cu
expect_match "$out" "'sm_090' is not sm_XY"
# the target comes from --arch only: NVRTC's own option would override it
for x in --gpu-architecture=sm_90 -arch=sm_90 -arch --gpu-architecture; do
    expect_exit 2 "$cc" -o out.img --arch sm_80 -Xnvrtc "$x" k.cu
    expect_line "$out" "cudyn-cc: -Xnvrtc $x: targets are given with --arch only (one compile each) (see cudyn-cc --help)"
done
# the cache commands take nothing else
expect_exit 2 "$cc" --cache-info -o out.img --arch sm_80 k.cu
expect_line "$out" "cudyn-cc: --cache-info takes no compile arguments (see cudyn-cc --help)"
expect_exit 2 "$cc" --cache-clear -Xnvrtc --use_fast_math
expect_line "$out" "cudyn-cc: --cache-clear takes no compile arguments (see cudyn-cc --help)"
expect_exit 2 "$cc" --cache-info --format ptx
expect_exit 2 "$cc" --cache-info --cache-clear
expect_line "$out" "cudyn-cc: --cache-info and --cache-clear exclude each other (see cudyn-cc --help)"

# ---- the output is never an input (exit 2, before NVRTC, the input
# untouched): the name itself, another name of it, a symbolic link to it
# (either way), a hard link, a --header file
cd "$tmp" || exit 1
printf 'extern "C" __global__ void k(float *x) { x[0] = 1; }\n' > keep.cu
cp keep.cu keep.orig
ln -s keep.cu link.cu
ln keep.cu hard.cu
for o in keep.cu ./keep.cu "$tmp/keep.cu" link.cu hard.cu; do
    expect_exit 2 "$cc" -o "$o" --arch sm_80 keep.cu
    expect_line "$out" "cudyn-cc: the output '$o' is the input 'keep.cu'; it would be overwritten (see cudyn-cc --help)"
done
expect_exit 2 "$cc" -o keep.cu --arch sm_80 link.cu
expect_exit 2 "$cc" -o keep.cu --arch sm_80 --format cubin link.cu
printf '#define X 1\n' > x.h
cp x.h x.orig
expect_exit 2 "$cc" -o x.h --arch sm_80 --header x.h=x.h keep.cu
expect_match "$out" "the output 'x.h' is the input 'x.h'"
cmp -s keep.cu keep.orig && cmp -s x.h x.orig || { echo "FAIL: an input was changed"; fail=1; }
[ -L link.cu ] || { echo "FAIL: link.cu is no longer a symbolic link"; fail=1; }

# ---- the output is written whole or not at all (with the mock NVRTC:
# these need no real one)
mcc() { env CUDYN_LIBNVRTC="$MOCK_LIBNVRTC" "$cc" "$@"; }
temps() { find . -maxdepth 1 -name '.*.img.*' | sort | tr '\n' ' '; }
expect_exit 0 mcc -o w.img --arch sm_80 keep.cu
cp w.img w.orig
# a failed write (past `ulimit -f`: EFBIG, not SIGXFSZ) leaves the previous
# output as it was and no temporary file
expect_exit 11 bash -c 'ulimit -f 0 && exec "$@"' sh env CUDYN_LIBNVRTC="$MOCK_LIBNVRTC" "$cc" -o w.img \
    --arch sm_80,sm_90 keep.cu
expect_line "$out" "cudyn-cc: cannot write w.img: File too large"
cmp -s w.img w.orig || { echo "FAIL: a failed write changed the previous output"; fail=1; }
expect_exit 11 bash -c 'ulimit -f 0 && exec "$@"' sh env CUDYN_LIBNVRTC="$MOCK_LIBNVRTC" "$cc" -o new.img \
    --arch sm_80 keep.cu
[ ! -e new.img ] || { echo "FAIL: a failed write left new.img"; fail=1; }
[ -z "$(temps)" ] || { echo "FAIL: temporary files left behind: $(temps)"; fail=1; }
# a new output's permissions follow the umask; a replaced one keeps its own
(umask 027 && mcc -o u.img --arch sm_80 keep.cu) || { echo "FAIL: cudyn-cc under umask 027"; fail=1; }
expect_line "$(stat -c %a u.img)" 640
chmod 604 w.img
expect_exit 0 mcc -o w.img --arch sm_80,sm_90 keep.cu
expect_line "$(stat -c %a w.img)" 604
cmp -s w.img w.orig && { echo "FAIL: w.img was not replaced"; fail=1; }
# through a symbolic link the file it points to is replaced, the link stays
ln -s w.img wl.img
expect_exit 0 mcc -o wl.img --arch sm_80 keep.cu
[ -L wl.img ] && cmp -s w.img w.orig || { echo "FAIL: -o a link did not replace its target"; fail=1; }
# what cannot be replaced is written in place; a directory is refused
expect_exit 0 mcc -o /dev/null --arch sm_80 keep.cu
mkdir out.d
expect_exit 11 mcc -o out.d --arch sm_80 keep.cu
expect_line "$out" "cudyn-cc: cannot write out.d: Is a directory"
[ -z "$(temps)" ] || { echo "FAIL: temporary files left behind: $(temps)"; fail=1; }

# ---- a NUL byte in a source or header is refused (exit 11), not compiled
# up to it
printf 'extern "C" __global__ void k(float *x) { x[0] = 1; }\n\0garbage\n' > nul.cu
expect_exit 11 mcc -o nul.img --arch sm_80 nul.cu
expect_line "$out" "cudyn-cc: nul.cu: a NUL byte at offset 53; a source or header must be text"
[ ! -e nul.img ] || { echo "FAIL: an image was written from a source with a NUL byte"; fail=1; }
expect_exit 11 mcc -o nul.img --arch sm_80 --header x.h=nul.cu keep.cu
expect_match "$out" "nul.cu: a NUL byte at offset 53"

# ---- a directory is said to be one; 64 MiB is the limit, included
mkdir -p src.d
expect_exit 11 mcc -o d.img --arch sm_80 src.d
expect_line "$out" "cudyn-cc: cannot read src.d: Is a directory"
expect_exit 11 mcc -o d.img --arch sm_80 --header x.h=src.d keep.cu
expect_line "$out" "cudyn-cc: cannot read src.d: Is a directory"
# an unused header of exactly 64 MiB is read; one byte more is refused
head -c 67108864 /dev/zero | tr '\0' ' ' > big.h
expect_exit 0 mcc -o big.img --arch sm_80 --header big.h=big.h keep.cu
printf ' ' >> big.h
expect_exit 11 mcc -o big.img --arch sm_80 --header big.h=big.h keep.cu
expect_line "$out" "cudyn-cc: cannot read big.h: larger than 64 MiB, the limit for a source or header"
rm -f big.h
cd "$OLDPWD" || exit 1

# ---- the cache commands
expect_exit 0 "$cc" --cache-info
expect_line "$out" "directory: $tmp/cache"
expect_line "$out" "entries:   0"
expect_exit 0 env CUDYN_CACHE=0 "$cc" --cache-info
expect_line "$out" "cache: off (CUDYN_CACHE=0)"
expect_exit 0 "$cc" --cache-clear
expect_line "$out" "removed 0 entries"

# ---- the man page
if command -v man >/dev/null && man --help 2>&1 | grep -q -- --warnings; then
    warnings=$(man --warnings -l "$top_srcdir/man/cudyn-cc.1" 2>&1 >/dev/null)
    [ -z "$warnings" ] || { echo "FAIL: man/cudyn-cc.1 has warnings:"; echo "$warnings"; fail=1; }
fi

# ---- compiling: needs NVRTC
if ! "$probe" info 2>/dev/null | grep -q '^nvrtc_status=CUDYN_OK$'; then
    echo "SKIP (partly): no libnvrtc; compiling not checked"
    finish
fi
cd "$tmp" || exit 1
mkdir -p inc
printf '#define SCALE 2.0f\n' > inc/scale.h
printf '#define OFFSET 1.0f\n' > offset.txt
cat > k.cu <<'EOF'
#include <scale.h>
#include "offset.h"
extern "C" __global__ void saxpy(float a, float *x) { x[0] = a * x[0] * SCALE + OFFSET; }
EOF
# no driver is needed to build (CUDYN_LIBCUDA names nothing)
expect_exit 0 env CUDYN_LIBCUDA=/nonexistent "$cc" -o k.img --arch sm_80,sm_90,compute_90 -I inc \
    --header offset.h=offset.txt k.cu
[ "$(head -c 8 k.img)" = CUDYNIMG ] || { echo "FAIL: k.img is not a cudyn image"; fail=1; }
# --arch repeated: the targets add up, each once
expect_exit 0 "$cc" -o k3.img --arch sm_80 --arch sm_90,compute_90 -I inc --header offset.h=offset.txt k.cu
entries=$(od -An -tu4 -w24 -j32 -N72 k3.img | awk '{printf "%s%s:%s", (NR > 1 ? " " : ""), $1, $2}')
[ "$entries" = "80:1 90:1 90:2" ] || { echo "FAIL: k3.img holds $entries, not 80:1 90:1 90:2 (arch:kind)"; fail=1; }
expect_exit 0 "$cc" -o k.cubin --arch sm_80 --format cubin -Iinc --header offset.h=offset.txt k.cu
[ "$(head -c 4 k.cubin | od -An -c | tr -d ' ')" = '177ELF' ] || { echo "FAIL: k.cubin is not ELF"; fail=1; }
expect_exit 0 "$cc" -o - --arch compute_90 --format ptx -I inc --header offset.h=offset.txt k.cu
expect_match "$out" "\.entry saxpy"
expect_exit 0 "$cc" -o k2.img --arch sm_90 -Xnvrtc --use_fast_math -D UNUSED=1 -I inc --header offset.h=offset.txt k.cu
# a kernel written for nvcc: <math.h>'s macros, <stdint.h>'s types, and uint,
# which nvcc gives without an #include (--nvcc-names) and <sys/types.h> gives
cat > nvcc_era.cu <<'EOF'
#include <math.h>
#include <stdint.h>
extern "C" __global__ void scale(float *x, uint n, uint64_t seed)
{
    uint i = blockIdx.x * blockDim.x + threadIdx.x;
    uint32_t bits = (uint32_t)(seed >> 32) ^ i;
    if (i < n && i < UINT32_MAX)
        x[i] = isinf(x[i]) ? NAN : x[i] * (float)M_PI + (bits & 1) + (x[i] > 1e30f ? HUGE_VALF : 0.0f);
}
EOF
expect_exit 10 "$cc" -o era.img --arch sm_80 nvcc_era.cu
expect_match "$out" 'identifier "uint" is undefined'
# the message says which header has the name and how to get all of nvcc's
expect_match "$out" 'nvcc gives device code uint without an #include: include <sys/types\.h>, or give the option "--pre-include=cudyn/nvcc\.h"'
expect_exit 0 "$cc" -o era.img --arch sm_80 --nvcc-names nvcc_era.cu
expect_exit 0 "$cc" -o era.img --arch sm_80 -Xnvrtc -include -Xnvrtc sys/types.h nvcc_era.cu
# a compile error: exit 10, NVRTC's log on stderr
printf 'extern "C" __global__ void k() { undefined_thing; }\n' > bad.cu
expect_exit 10 "$cc" -o bad.img --arch sm_80 bad.cu
expect_match "$out" "undefined_thing"
expect_match "$out" "NVRTC's log for sm_80"
expect_no_match "$out" "nvcc gives device code"   # a name nvcc does not give either
[ ! -e bad.img ] || { echo "FAIL: an image was written for a failed compile"; fail=1; }
# an option without its value is refused before NVRTC sees it
expect_exit 8 "$cc" -o k.img --arch sm_80 -Xnvrtc -I k.cu
expect_match "$out" "'-I' takes a value"
# files: a missing source or header, an unwritable output (exit 11)
expect_exit 11 "$cc" -o k.img --arch sm_80 missing.cu
expect_exit 11 "$cc" -o k.img --arch sm_80 --header x.h=missing.h k.cu
expect_exit 11 "$cc" -o /nonexistent/dir/k.img --arch sm_80 -I inc --header offset.h=offset.txt k.cu
# no NVRTC (exit 12), with where it was looked for
expect_exit 12 env CUDYN_LIBNVRTC=/nonexistent/libnvrtc.so.13 "$cc" -o k.img --arch sm_80 k.cu
expect_match "$out" "CUDYN_LIBNVRTC"
# a fatbinary needs nvFatbin (exit 13 without it)
"$cc" -o k.fatbin --arch sm_80 --format fatbin -I inc --header offset.h=offset.txt k.cu 2>err.txt
rc=$?
if [ "$rc" = 13 ]; then
    expect_match "$(cat err.txt)" "nvFatbin"
elif [ "$rc" != 0 ]; then
    echo "FAIL: --format fatbin exited $rc"; cat err.txt; fail=1
fi
# building leaves the kernel cache alone
expect_exit 0 "$cc" --cache-info
expect_line "$out" "entries:   0"
finish
