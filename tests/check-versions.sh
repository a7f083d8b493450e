#!/bin/bash
# One line naming every version involved (cudyn_versions_line), in compile
# and load errors, cudainfo --explain and --json, and the hint for each
# skew known to fail: a PTX ISA newer than the driver accepts, NVRTC newer
# than the driver, CUDA headers of another version than NVRTC.
. "$top_srcdir/tests/common.sh"
unset MOCK_NVRTC_VERSION
export CUDYN_LIBCUDA="$MOCK_LIBCUDA" CUDYN_LIBNVRTC="$MOCK_LIBNVRTC"
printf 'NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.65.06  Sun Jul 27 07:09:38 UTC 2025\n' > "$tmp/kmod"
export CUDYN_TEST_KMOD_VERSION_FILE="$tmp/kmod"
mkdir -p "$tmp/cuda-12.4/include" "$tmp/cuda-13.0/include"
printf '#ifndef __cuda_cuda_h__\n#define __cuda_cuda_h__\n#define CUDA_VERSION 12040\n#endif\n' > "$tmp/cuda-12.4/include/cuda.h"
printf '#define CUDA_VERSION 13000\n' > "$tmp/cuda-13.0/include/cuda.h"
ptx() { # ptx ISA FILE: a PTX text declaring that ISA
    printf '.version %s\n.target sm_90\n.address_size 64\n.visible .entry k()\n{\n}\n' "$1" > "$2"
}

# 1. Every version, and no skew where there is none.
out=$("$probe" versions="$tmp/cuda-13.0/include")
expect_match "$out" "^versions=versions: driver CUDA 13.0 \($MOCK_LIBCUDA, release unknown\), kernel module 580.65.06 \($tmp/kmod\), NVRTC 13.0 \($MOCK_LIBNVRTC\), builtins libnvrtc-builtins.so.13.0 not next to NVRTC, headers $tmp/cuda-13.0/include \(cuda.h CUDA_VERSION 13000\), driver accepts PTX ISA up to 9.0, device sm_90$"

# 2. A PTX of a newer ISA than the driver accepts (222): the load error
#    names every version (NVRTC only once loaded: a load needs none), the
#    ISA against the driver's, and what to change.
ptx 9.9 "$tmp/new.ptx"
out=$(MOCK_CUDA_REJECT=ptx "$probe" load-ptx="$tmp/new.ptx")
expect_line "$out" "load_ptx=CUDYN_ERROR_UNSUPPORTED_PTX"
expect_match "$out" "^load_ptx.message=.*\(222\).*; versions: driver CUDA 13.0 .*kernel module 580.65.06 .*NVRTC not loaded, PTX ISA 9.9 emitted, driver accepts PTX ISA up to 9.0, device sm_90; skew: the PTX is ISA 9.9 but the driver \(CUDA 13.0\) accepts up to 9.0: update the driver, compile to CUBIN"
ptx 8.5 "$tmp/85.ptx"
out=$(MOCK_CUDA_VERSION=12040 MOCK_CUDA_REJECT=ptx "$probe" load-ptx="$tmp/85.ptx")
expect_match "$out" "PTX ISA 8.5 emitted, driver accepts PTX ISA up to 8.4, device sm_90; skew: the PTX is ISA 8.5 but the driver \(CUDA 12.4\) accepts up to 8.4"
# an ISA the driver accepts: the line, without a skew
ptx 8.4 "$tmp/84.ptx"
out=$(MOCK_CUDA_VERSION=12040 MOCK_CUDA_REJECT=ptx "$probe" load-ptx="$tmp/84.ptx")
expect_match "$out" "PTX ISA 8.4 emitted, driver accepts PTX ISA up to 8.4"
expect_no_match "$out" "skew:"
# a driver newer than cudyn's table accepts at least its last row
out=$(MOCK_CUDA_VERSION=13020 "$probe" versions)
expect_match "$out" "driver accepts PTX ISA at least 9.0"

# 3. NVRTC newer than the driver: its PTX will not load.
out=$(MOCK_CUDA_VERSION=12040 MOCK_NVRTC_VERSION=12080 "$probe" versions)
expect_match "$out" "driver CUDA 12.4 .*NVRTC 12.8 .*; skew: NVRTC 12.8 is newer than the driver \(CUDA 12.4\): its PTX will not load; compile to CUBIN"

# 4. Headers of another CUDA than NVRTC, in a compile error.
out=$("$probe" compile-error="$tmp/cuda-12.4/include")
expect_line "$out" "compile_error=CUDYN_ERROR_COMPILE"
expect_match "$out" "#error directive: the versions line follows\); versions: .*headers $tmp/cuda-12.4/include \(cuda.h CUDA_VERSION 12040\).*; skew: the CUDA headers in $tmp/cuda-12.4/include are CUDA 12.4 but NVRTC is 13.0: hand NVRTC the include directory of its own toolkit"
out=$("$probe" compile-error="$tmp/cuda-13.0/include")
expect_match "$out" "headers $tmp/cuda-13.0/include \(cuda.h CUDA_VERSION 13000\)"
expect_no_match "$out" "skew:"

# 5. cudainfo --explain and --json carry the line.
out=$("$cudainfo" --explain)
expect_match "$out" "^  versions: driver CUDA 13.0 .*kernel module 580.65.06 \($tmp/kmod\), NVRTC 13.0 .*driver accepts PTX ISA up to 9.0, device sm_90"
out=$("$cudainfo" --json | /usr/bin/python3 -c 'import json, sys; print(json.load(sys.stdin)["versions"])')
expect_match "$out" "^versions: driver CUDA 13.0 .*device sm_90$"

finish
