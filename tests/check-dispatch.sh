#!/bin/bash
# Binding per driver generation: every row is requested at exactly its ABI
# version (never above the driver's), calls land in the right variant,
# missing symbols become stubs, and older variants stand in for newer ones.
. "$top_srcdir/tests/common.sh"

# "exported base version stream need" for every table row
table=$("$top_builddir/tests/tables" | awk '$1 == "driver" {print $2, $3, $4, $5, $6}')
[ "$(printf '%s\n' "$table" | wc -l)" -gt 80 ] || { echo "FAIL: could not read the symbol table"; exit 1; }

# requests_ok DRIVER_VERSION REQUESTS [PT]: each row at or below the driver
# version was requested as base@version, none above it was.
requests_ok() {
    printf '%s\n' "$table" | while read -r exported base version stream need; do
        if [ "$version" -le "$1" ]; then
            case "$2" in *"$base@$version${3:-};"*) ;; *) echo "FAIL: driver $1: $base@$version${3:-} ($exported) not requested";; esac
        else
            case "$2" in *"@$version"*) echo "FAIL: driver $1: a row at $version was requested";; esac
        fi
    done
}

check_generation() { # LIB VERSION MECHANISM
    out=$(CUDYN_LIBCUDA="$1" MOCK_CUDA_VERSION=$2 "$probe" info requests copy event)
    expect_line "$out" "driver_status=CUDYN_OK"
    expect_line "$out" "entry_mechanism=$3"
    expect_line "$out" "copy.roundtrip=1"
    expect_line "$out" "event=CUDYN_OK"
}

# CUDA 13.0: cuGetProcAddress_v2; newest variants used.
check_generation "$MOCK_LIBCUDA" 13000 1
req=$(printf '%s\n' "$out" | sed -n 's/^requests=//p')
msgs=$(requests_ok 13000 "$req"); [ -z "$msgs" ] || { echo "$msgs"; fail=1; }
out=$(CUDYN_LIBCUDA="$MOCK_LIBCUDA" "$probe" info event calls=cuEventElapsedTime_v2 calls=cuEventElapsedTime \
      calls=cuMemcpyHtoD_v2 has=cuCtxCreate_v4 has=cuFuncGetParamInfo has=cuNoSuchFunction)
expect_line "$out" "calls.cuEventElapsedTime_v2=1"
expect_line "$out" "calls.cuEventElapsedTime=0"
expect_line "$out" "has.cuCtxCreate_v4=1"
expect_line "$out" "has.cuFuncGetParamInfo=1"
expect_line "$out" "has.cuNoSuchFunction=0"
expect_line "$out" "symbols_missing=0"

# CUDA 12.4: rows of 12.5+ are never requested; the older variant serves.
check_generation "$MOCK_LIBCUDA" 12040 1
req=$(printf '%s\n' "$out" | sed -n 's/^requests=//p')
msgs=$(requests_ok 12040 "$req"); [ -z "$msgs" ] || { echo "$msgs"; fail=1; }
out=$(CUDYN_LIBCUDA="$MOCK_LIBCUDA" MOCK_CUDA_VERSION=12040 "$probe" event calls=cuEventElapsedTime_v2 \
      calls=cuEventElapsedTime has=cuCtxCreate_v4 has=cuCtxCreate_v2 has=cuCtxCreate has=cuFuncGetParamInfo)
expect_line "$out" "calls.cuEventElapsedTime_v2=0"
expect_line "$out" "calls.cuEventElapsedTime=1"
expect_line "$out" "has.cuCtxCreate_v4=0"
expect_line "$out" "has.cuCtxCreate_v2=1"
expect_line "$out" "has.cuCtxCreate=1"
expect_line "$out" "has.cuFuncGetParamInfo=1"

# CUDA 12.0: cuFuncGetParamInfo (12.4) is absent and its stub says so.
out=$(CUDYN_LIBCUDA="$MOCK_LIBCUDA" MOCK_CUDA_VERSION=12000 "$probe" has=cuFuncGetParamInfo proc=cuFuncGetParamInfo@12040)
expect_line "$out" "has.cuFuncGetParamInfo=0"
expect_line "$out" "proc.cuFuncGetParamInfo@12040=null"
expect_line "$out" "proc=CUDYN_ERROR_DRIVER_TOO_OLD"

# CUDA 11.8: only the 4-argument cuGetProcAddress.
check_generation "$MOCK_LIBCUDA_V11_8" 11080 2
req=$(printf '%s\n' "$out" | sed -n 's/^requests=//p')
msgs=$(requests_ok 11080 "$req"); [ -z "$msgs" ] || { echo "$msgs"; fail=1; }

# CUDA 11.0: no cuGetProcAddress at all: dlsym of exact versioned names.
check_generation "$MOCK_LIBCUDA_V11_0" 11000 3
expect_line "$out" "requests="
out=$(CUDYN_LIBCUDA="$MOCK_LIBCUDA_V11_0" MOCK_CUDA_VERSION=11000 "$probe" copy calls=cuMemcpyHtoD_v2 \
      calls=cuMemcpyHtoD_v2_ptds has=cuLaunchKernelEx proc=cuMemAlloc@3020)
expect_line "$out" "calls.cuMemcpyHtoD_v2=1"
expect_line "$out" "calls.cuMemcpyHtoD_v2_ptds=0"
expect_line "$out" "has.cuLaunchKernelEx=0"
expect_line "$out" "proc.cuMemAlloc@3020=found"

# Per-thread default stream: the _ptds / _ptsz variants are bound, through
# cuGetProcAddress (flag) and through dlsym (name).
out=$(CUDYN_PTDS=1 CUDYN_LIBCUDA="$MOCK_LIBCUDA" "$probe" info requests copy calls=cuMemcpyHtoD_v2_ptds calls=cuMemcpyHtoD_v2)
expect_line "$out" "per_thread_stream=1"
expect_match "$out" "requests=.*cuMemcpyHtoD@3020/pt;"
expect_line "$out" "calls.cuMemcpyHtoD_v2_ptds=1"
expect_line "$out" "calls.cuMemcpyHtoD_v2=0"
out=$(CUDYN_PTDS=1 CUDYN_LIBCUDA="$MOCK_LIBCUDA_V11_0" MOCK_CUDA_VERSION=11000 "$probe" copy calls=cuMemcpyHtoD_v2_ptds)
expect_line "$out" "calls.cuMemcpyHtoD_v2_ptds=1"

# A missing newer variant: the older one is used.
out=$(MOCK_CUDA_MISSING=cuEventElapsedTime_v2 CUDYN_LIBCUDA="$MOCK_LIBCUDA" "$probe" event \
      calls=cuEventElapsedTime calls=cuEventElapsedTime_v2 has=cuEventElapsedTime_v2 has=cuEventElapsedTime)
expect_line "$out" "event=CUDYN_OK"
expect_line "$out" "calls.cuEventElapsedTime=1"
expect_line "$out" "calls.cuEventElapsedTime_v2=0"
expect_line "$out" "has.cuEventElapsedTime_v2=0"
expect_line "$out" "has.cuEventElapsedTime=1"

# A missing optional function: its stub answers "symbol not found" naming it.
out=$(MOCK_CUDA_MISSING=cuMemGetInfo CUDYN_LIBCUDA="$MOCK_LIBCUDA" "$probe" info meminfo has=cuMemGetInfo copy)
expect_line "$out" "driver_status=CUDYN_OK"
expect_line "$out" "symbols_missing=1"
expect_line "$out" "meminfo=CUDYN_ERROR_SYMBOL_NOT_FOUND"
expect_line "$out" "meminfo.function=cuMemGetInfo"
expect_match "$out" "meminfo.message=.*does not provide cuMemGetInfo"
expect_line "$out" "has.cuMemGetInfo=0"
expect_line "$out" "copy=CUDYN_OK"

# A missing required function: loading fails naming it.
out=$(MOCK_CUDA_MISSING=cuMemAlloc CUDYN_LIBCUDA="$MOCK_LIBCUDA" "$probe" info)
expect_line "$out" "driver_status=CUDYN_ERROR_SYMBOL_NOT_FOUND"
expect_match "$out" "load.message=.*lacks cuMemAlloc_v2, which cudyn requires"

# Raw access never asks above the driver's version.
out=$(CUDYN_LIBCUDA="$MOCK_LIBCUDA" MOCK_CUDA_VERSION=12020 "$probe" proc=cuMemAlloc@3020 proc=cuCtxCreate@12050 proc=cuNoSuch@3020)
expect_line "$out" "proc.cuMemAlloc@3020=found"
expect_line "$out" "proc.cuCtxCreate@12050=null"
expect_line "$out" "proc=CUDYN_ERROR_DRIVER_TOO_OLD"
expect_line "$out" "proc.cuNoSuch@3020=null"
expect_line "$out" "proc=CUDYN_ERROR_SYMBOL_NOT_FOUND"

# Every exported name in the table exists in a real libcuda: the CUDA
# toolkit's stub exports the driver's full list (skipped without it).
stub=/usr/local/cuda/lib64/stubs/libcuda.so
if [ -r "$stub" ] && command -v nm >/dev/null; then
    names=$(nm -D --defined-only "$stub" | awk '{print $3}')
    printf '%s\n' "$table" | while read -r exported base version stream need; do
        suffix=
        [ "$stream" = PTDS ] && suffix=_ptds
        [ "$stream" = PTSZ ] && suffix=_ptsz
        for n in "$exported" ${suffix:+"$exported$suffix"}; do
            printf '%s\n' "$names" | grep -qxF "$n" || echo "FAIL: $n is not exported by $stub"
        done
    done > "$tmp/missing"
    if [ -s "$tmp/missing" ]; then cat "$tmp/missing"; fail=1; fi
fi

finish
