#!/bin/bash
# make check-gpu-sanitize: the GPU tests, the examples and both tools under
# NVIDIA's compute-sanitizer, with each of its four tools: memcheck (leak
# check on), racecheck, synccheck and initcheck.  Every run must report 0
# errors: a failed driver call that cudyn makes, or a read of memory it
# never wrote, counts as much as a fault in a kernel.  Skipped (77) where
# compute-sanitizer or a GPU is missing.
#
# What fails on purpose opts out, by name, and says so: with CUDYN_SANITIZE=1
# the GPU tests leave out their faulting kernel (test_gpu), the launches the
# driver must refuse (test_gpu_features) and the image with no code for the
# GPU (test_gpu_deploy) -- test_may_fail_on_purpose() in tests/testutil.h.
. "$top_srcdir/tests/common.sh"

sanitizer=${COMPUTE_SANITIZER:-$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)}
[ -x "$sanitizer" ] || { echo "compute-sanitizer not found: skipped"; exit 77; }
count=$("$probe" count 2>/dev/null | sed -n "s/^count.devices=//p")
[ "${count:-0}" -gt 0 ] 2>/dev/null || { echo "no GPU: skipped"; exit 77; }

export CUDYN_SANITIZE=1
cc_out="$tmp/image.cubin"
programs=(
    "tests/test_gpu"
    "tests/test_gpu_features"
    "tests/test_gpu_deploy"
    "tests/test_gpu_elementwise"
    "examples/saxpy" "examples/struct_args" "examples/in_out" "examples/elementwise"
    "examples/template_kernel" "examples/multi_gpu" "examples/big_shared" "examples/texture"
    "tools/cudainfo -a"
    "tools/cudyn-saxpy -n 1048576 --iters 3 --free"
)
tools=("memcheck --leak-check full" "racecheck" "synccheck" "initcheck")
# every run's whole log stays here (CUDYN_SANITIZE_LOGS, else tests/sanitize-logs)
logs=${CUDYN_SANITIZE_LOGS:-$top_builddir/tests/sanitize-logs}
mkdir -p "$logs" || exit 1
runs=0 bad=0
for p in "${programs[@]}"; do
    exe=${p%% *}
    [ -x "$top_builddir/$exe" ] || { echo "$exe: not built, skipped"; continue; }
    for t in "${tools[@]}"; do
        runs=$((runs + 1))
        log="$logs/$(printf '%s' "${t%% *}-$p" | tr -c 'A-Za-z0-9_.-' '_').log"
        # --error-exitcode makes an error visible even where the summary is cut short
        # shellcheck disable=SC2086
        (cd "$top_builddir" && timeout 600 "$sanitizer" --tool $t --target-processes all --error-exitcode 99 \
            ./$p) > "$log" 2>&1
        rc=$?
        # memcheck, synccheck and initcheck: "ERROR SUMMARY: N errors";
        # racecheck: "RACECHECK SUMMARY: H hazards displayed (N errors, W warnings)"
        errors=$(sed -n -e 's/^========= ERROR SUMMARY: \([0-9]*\) error.*/\1/p' \
            -e 's/^========= RACECHECK SUMMARY: .*(\([0-9]*\) error.*/\1/p' "$log" | awk '{n += $1} END {print n + 0}')
        summaries=$(grep -cE '^========= (ERROR|RACECHECK) SUMMARY' "$log")
        if [ "$rc" != 0 ] || [ "$errors" != 0 ] || [ "$summaries" = 0 ]; then
            bad=$((bad + 1))
            echo "FAIL: ${t%% *} $p: exit $rc, $errors errors"
            grep -E '^=========' "$log" | grep -vE 'COMPUTE-SANITIZER|^=========$' | head -n 40 | sed 's/^/    | /'
            tail -n 5 "$log" | sed 's/^/    > /'
        else
            echo "ok: ${t%% *} $p ($summaries processes, 0 errors)"
        fi
    done
done
echo "check-gpu-sanitize: $runs runs of ${#programs[@]} programs under ${#tools[@]} tools, $bad with errors"
[ "$bad" = 0 ] && [ "$fail" = 0 ]
