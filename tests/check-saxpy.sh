#!/bin/bash
# cudyn-saxpy on the mock driver (which runs saxpy on the host): the full
# flow passes, a corrupted element is reported with its index, a failure in
# each phase is named with exit 8, no driver gives 3, a hang trips the
# watchdog (9), and --json is valid on every path.
. "$top_srcdir/tests/common.sh"
saxpy="$top_builddir/tools/cudyn-saxpy"
nvrtc=$(CUDYN_LIBCUDA="$MOCK_LIBCUDA" "$probe" info | sed -n 's/^nvrtc_status=//p')
[ "$nvrtc" = CUDYN_OK ] || { echo "SKIP: cudyn-saxpy needs NVRTC to compile its kernel"; exit 77; }
json_ok() {
    if command -v jq >/dev/null; then printf '%s\n' "$1" | jq -e . >/dev/null 2>&1
    else printf '%s\n' "$1" | python3 -m json.tool >/dev/null 2>&1; fi
}
run_json() { # CODE args...: --json valid, result.exit_code = CODE
    want=$1; shift
    json=$("$saxpy" --json "$@" 2>/dev/null); got=$?
    [ "$got" = "$want" ] || { echo "FAIL: cudyn-saxpy --json $* exited $got, expected $want"; fail=1; }
    json_ok "$json" || { echo "FAIL: invalid JSON from cudyn-saxpy --json $*:"; printf '%s\n' "$json"; fail=1; }
    expect_match "$json" "\"schema\":\"cudyn-saxpy/1\""
    expect_match "$json" "\"exit_code\":$want,\"status\":\"(PASS|FAIL)\""
}

export CUDYN_LIBCUDA="$MOCK_LIBCUDA" MOCK_CUDA_MEM_LIMIT=1073741824
small="-n 100003 --iters 3"

# the full flow passes, every phase reported
expect_exit 0 "$saxpy" $small
for phase in "load driver" init device context compile "module load" allocate host-to-device launch \
             synchronize device-to-host verify timing free; do
    expect_match "$out" "^  $phase +ok "
done
expect_match "$out" "compile +ok .*\(cache (hit|miss), sm_90\)"
expect_match "$out" "verify +ok .*100003 exact"
expect_match "$out" "^Kernel \(vectorised grid-stride\): .* GB/s; device-to-device copy .* GB/s"
expect_match "$out" "^Application time: [0-9]+ ms"
expect_match "$out" "^Result = PASS$"
expect_exit 0 "$saxpy" $small
expect_match "$out" "cache hit, sm_90"
run_json 0 $small
expect_match "$json" "\"mismatches\":0"
expect_exit 0 "$saxpy" $small --naive --pageable
expect_match "$out" "host pageable"
MOCK_CUDA_DEVICES="A:90,B:80" expect_exit 0 "$saxpy" $small -d all
expect_match "$out" "^Device 1: B"
MOCK_CUDA_DEVICES="A:90,B:80" expect_exit 0 "$saxpy" $small -d GPU-2021
expect_no_match "$out" "^Device 0"

# defect 15: digits are an ordinal only; "2" of two devices is not found,
# though device 1's UUID starts with 2
MOCK_CUDA_DEVICES="A:90,B:80" expect_exit 6 "$saxpy" $small -d 2
expect_match "$out" "device '2' not found"
expect_no_match "$out" "^Device 1"
MOCK_CUDA_DEVICES="A:90,B:80" run_json 6 $small -d 2

# a wrong element: exit 1, with its index and values
MOCK_CUDA_CORRUPT=4242 expect_exit 1 "$saxpy" $small
expect_match "$out" "verify +WRONG .*1 of 100003 wrong, first at \[4242\]: expected 316, got 317"
expect_match "$out" "^Result = FAIL$"
MOCK_CUDA_CORRUPT=4242 run_json 1 $small
expect_match "$json" "\"first_bad_index\":4242"

# a CUDA error in each phase: exit 8, the phase named, the error translated
for case in "context:cuDevicePrimaryCtxRetain" "module load:cuModuleLoadDataEx" "allocate:cuMemAlloc_v2" \
            "host-to-device:cuMemcpyHtoD_v2" "launch:cuLaunchKernel" "synchronize:cuCtxSynchronize" \
            "device-to-host:cuMemcpyDtoH_v2" "free:cuMemFree_v2"; do
    phase=${case%%:*}; fn=${case#*:}
    MOCK_CUDA_FAIL="$fn:1:999" expect_exit 8 "$saxpy" $small
    expect_match "$out" "^  $phase +FAILED "
    expect_match "$out" "CUDA_ERROR_UNKNOWN"
    MOCK_CUDA_FAIL="$fn:1:2" run_json 8 $small
done

# nothing leaks when a phase fails halfway (valgrind, when installed)
if [ -n "${VALGRIND:-}" ]; then
    real="$top_builddir/tools/.libs/cudyn-saxpy"
    [ -x "$real" ] || real="$saxpy"
    for fn in cuMemAlloc_v2:3 cuMemcpyDtoH_v2:1 cuLaunchKernel:1; do
        LD_LIBRARY_PATH="$top_builddir/lib/.libs" MOCK_CUDA_FAIL="$fn:2" \
            $VALGRIND --quiet --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect \
            "$real" -n 1000 --iters 0 > "$tmp/vg.log" 2>&1
        rc=$?
        [ $rc = 8 ] || { echo "FAIL: cudyn-saxpy with $fn failing under valgrind exited $rc"; cat "$tmp/vg.log"; fail=1; }
    done
fi

# no driver, no device, unknown device, usage
CUDYN_LIBCUDA=/nonexistent/libcuda.so.1 expect_exit 3 "$saxpy"
expect_match "$out" "is not usable"
CUDYN_LIBCUDA=/nonexistent/libcuda.so.1 run_json 3
MOCK_CUDA_DEVICES=none expect_exit 5 "$saxpy"
MOCK_CUDA_DEVICES=none run_json 5
MOCK_CUDA_FAIL=cuInit:1:999 expect_exit 4 "$saxpy"
expect_exit 6 "$saxpy" -d 7
run_json 6 -d 7
expect_exit 2 "$saxpy" -n 0
expect_exit 2 "$saxpy" --iters=-1
expect_exit 2 "$saxpy" --bogus
run_json 2 --bogus

# the watchdog: a synchronize that hangs
MOCK_CUDA_HANG=cuCtxSynchronize:30 expect_exit 9 "$saxpy" $small --timeout 1
expect_match "$out" "timed out after 1 s in phase 'synchronize'"
MOCK_CUDA_HANG=cuCtxSynchronize:30 run_json 9 $small --timeout 1

# -q: just the result
expect_exit 0 "$saxpy" $small -q
[ "$out" = "Result = PASS" ] || { echo "FAIL: -q printed: $out"; fail=1; }
finish
