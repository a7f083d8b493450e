#!/bin/bash
# The kernels of tests/libc, which cudyn compiles with NVRTC and the C
# library headers it supplies (test_libc_headers) and runs on a GPU
# (test_gpu_libc), are plain CUDA that nvcc accepts with the real C
# library headers: nvcc compiles them for the device here.  Skipped (77)
# without nvcc (NVCC, CUDA_HOME, CUDA_PATH, /usr/local/cuda, PATH) or when
# it cannot run.  --expt-relaxed-constexpr: with nvcc, fpclassify,
# isnormal and isgreater are the host library's constexpr functions.
. "$top_srcdir/tests/common.sh"

nvcc=
for c in "${NVCC:-}" "${CUDA_HOME:+$CUDA_HOME/bin/nvcc}" "${CUDA_PATH:+$CUDA_PATH/bin/nvcc}" \
        /usr/local/cuda/bin/nvcc "$(command -v nvcc 2>/dev/null)"; do
    if [ -n "$c" ] && [ -x "$c" ]; then
        nvcc=$c
        break
    fi
done
if [ -z "$nvcc" ]; then
    echo "SKIP: no nvcc to compare with"
    exit 77
fi
# the oldest architecture it builds for
arch=$("$nvcc" --list-gpu-arch 2>/dev/null | sed -n 's/^compute_\([0-9]*\)$/\1/p' | head -n 1)
if [ -z "$arch" ] || ! printf '__global__ void k() {}\n' > "$tmp/probe.cu" ||
        ! "$nvcc" -cubin -arch="sm_$arch" -o "$tmp/probe.cubin" "$tmp/probe.cu" > "$tmp/probe.log" 2>&1; then
    echo "SKIP: $nvcc cannot compile here:"
    sed 's/^/    | /' "$tmp/probe.log" 2>/dev/null
    exit 77
fi
echo "nvcc: $nvcc ($("$nvcc" --version | sed -n 's/.*release \([0-9.]*\).*/\1/p')), sm_$arch"

cd "$top_srcdir/tests/libc" || exit 1
kernels=(*.cu)
if ! "$nvcc" --expt-relaxed-constexpr -cubin -arch="sm_$arch" --output-directory "$tmp" "${kernels[@]}" \
        > "$tmp/nvcc.log" 2>&1; then
    echo "FAIL: nvcc rejects a kernel of tests/libc:"
    sed 's/^/    | /' "$tmp/nvcc.log"
    fail=1
elif grep -q warning "$tmp/nvcc.log"; then
    echo "FAIL: nvcc warns about a kernel of tests/libc:"
    sed 's/^/    | /' "$tmp/nvcc.log"
    fail=1
else
    echo "nvcc compiles the ${#kernels[@]} kernels of tests/libc"
fi
finish
