#!/bin/bash
# The driver's own error log (cuLogs*, CUDA 12.9+) in cudyn's messages:
# a failure carries the driver's lines for it; success never reads the log
# (zero cost: cuLogsDumpToMemory is not called); CUDYN_DRIVER_LOG=0, an
# older driver, and a fault in the log calls leave the message as it was.
. "$top_srcdir/tests/common.sh"
unset CUDYN_DRIVER_LOG
export CUDYN_LIBCUDA="$MOCK_LIBCUDA"

# 1. A failed call carries the driver's line for it.
out=$(MOCK_CUDA_FAIL=cuMemAlloc_v2:1:2 "$probe" copy)
expect_line "$out" "copy=CUDYN_ERROR_OUT_OF_MEMORY"
expect_match "$out" "^copy.message=cudyn_mem_alloc: cuMemAlloc returned CUDA_ERROR_OUT_OF_MEMORY \(2\): .*; driver log: \[mock\] cuMemAlloc_v2 failed with 2 \(injected\).*; hint: free device memory"
# a refused module load: the driver's line, then the versions and the JIT log
printf '.version 9.9\n.target sm_90\n.address_size 64\n.visible .entry k()\n{\n}\n' > "$tmp/new.ptx"
out=$(MOCK_CUDA_REJECT=ptx "$probe" load-ptx="$tmp/new.ptx")
expect_match "$out" "^load_ptx.message=.*\(222\): .*; driver log: \[mock\] cuModuleLoadDataEx: image rejected with 222; versions: "
# a failed cuInit too (the log is opened before it)
out=$(MOCK_CUDA_FAIL=cuInit:1:999 "$probe" count)
expect_match "$out" "driver log: \[mock\] cuInit failed with 999 \(injected\)"

# 2. Only the lines since the previous failure: the second failure does
#    not repeat the first one's line.
out=$(MOCK_CUDA_FAIL=cuMemAlloc_v2:1:2,cuMemAlloc_v2:2:2 "$probe" copy copy)
expect_match "$out" "failed with 2 \(injected\)"
[ "$(printf '%s\n' "$out" | grep -c 'driver log:')" = 2 ] || { echo "FAIL: two failures, two driver logs:"; echo "$out"; fail=1; }
[ "$(printf '%s\n' "$out" | grep -o 'cuMemAlloc_v2 failed' | wc -l)" = 2 ] || { echo "FAIL: a line repeated:"; echo "$out"; fail=1; }

# 3. Zero cost on success: the log's position is taken once, and it is
#    never read.
MOCK_CUDA_COUNTS="$tmp/counts" "$probe" copy memory stream > /dev/null
expect_line "$(awk '$1 == "cuLogsCurrent"' "$tmp/counts")" "cuLogsCurrent 1"
expect_no_match "$(cat "$tmp/counts")" "^cuLogsDumpToMemory "

# 4. Off: CUDYN_DRIVER_LOG=0, a driver older than 12.9 (no cuLogs*), or a
#    fault in either log call; the failure is reported as before.
for setting in "CUDYN_DRIVER_LOG=0" "MOCK_CUDA_VERSION=12080" "MOCK_CUDA_MISSING=cuLogsDumpToMemory" \
    "MOCK_CUDA_FAIL=cuMemAlloc_v2:1:2,cuLogsDumpToMemory:*:999" "MOCK_CUDA_FAIL=cuMemAlloc_v2:1:2,cuLogsCurrent:*:999"; do
    out=$(env MOCK_CUDA_FAIL=cuMemAlloc_v2:1:2 "$setting" "$probe" copy)
    expect_line "$out" "copy=CUDYN_ERROR_OUT_OF_MEMORY"
    expect_match "$out" "^copy.message=cudyn_mem_alloc: cuMemAlloc returned CUDA_ERROR_OUT_OF_MEMORY \(2\): mock driver error 2 \(asked for 64 bytes\); hint: "
done
MOCK_CUDA_COUNTS="$tmp/counts" CUDYN_DRIVER_LOG=0 MOCK_CUDA_FAIL=cuMemAlloc_v2:1:2 "$probe" copy > /dev/null
expect_no_match "$(cat "$tmp/counts")" "^cuLogs"

finish
