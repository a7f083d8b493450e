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
# What a tool cannot check is not run under it, with its reason (not_run
# below): initcheck and the two programs whose memory another process
# fills; racecheck, synccheck and initcheck and dynamic parallelism.
. "$top_srcdir/tests/common.sh"

sanitizer=${COMPUTE_SANITIZER:-$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)}
[ -x "$sanitizer" ] || { echo "compute-sanitizer not found: skipped"; exit 77; }
count=$("$probe" count 2>/dev/null | sed -n "s/^count.devices=//p")
[ "${count:-0}" -gt 0 ] 2>/dev/null || { echo "no GPU: skipped"; exit 77; }

export CUDYN_SANITIZE=1
programs=(
    "tests/test_gpu"
    "tests/test_gpu_features"
    "tests/test_gpu_deploy"
    "tests/test_gpu_elementwise"
    "tests/test_gpu_ipc"
    "tests/test_gpu_libc"
    "tests/test_gpu_corpus"
    "tests/test_gpu_link"
    "examples/dynamic_parallelism"
    "examples/saxpy" "examples/struct_args" "examples/in_out" "examples/elementwise"
    "examples/template_kernel" "examples/multi_gpu" "examples/big_shared" "examples/texture"
    "examples/ipc_share"
    "tools/cudainfo -a"
    "tools/cudyn-saxpy -n 1048576 --iters 3 --free"
)
tools=("memcheck --leak-check full" "racecheck" "synccheck" "initcheck")
# the runs left out, each with its reason
declare -A not_run
# initcheck tracks what each process wrote: memory another process filled
# and shared through an IPC handle reads to it as never written
not_run["initcheck examples/ipc_share"]="another process fills its memory"
not_run["initcheck tests/test_gpu_ipc"]="another process fills its memory"
# racecheck, synccheck and initcheck do not follow dynamic parallelism (they
# warn "not supported by the selected tool" and then miscount): memcheck
# alone runs the example that is nothing else, and under the other three
# the tests leave their device-side launches out (CUDYN_SANITIZE_NO_CDP)
no_cdp_tools=(racecheck synccheck initcheck)
for t in "${no_cdp_tools[@]}"; do
    not_run["$t examples/dynamic_parallelism"]="$t does not follow dynamic parallelism"
done
# every run's whole log stays here (CUDYN_SANITIZE_LOGS, else tests/sanitize-logs)
logs=${CUDYN_SANITIZE_LOGS:-$top_builddir/tests/sanitize-logs}
mkdir -p "$logs" || exit 1
# runs at once (CUDYN_SANITIZE_JOBS): each is mostly the sanitizer's own work
jobs=${CUDYN_SANITIZE_JOBS:-4}
case $jobs in '' | *[!0-9]* | 0) echo "CUDYN_SANITIZE_JOBS must be a number from 1 up"; exit 1 ;; esac

# sanitize TOOL PROGRAM LOG: one run; its exit code beside the log (LOG.rc)
sanitize() {
    # --error-exitcode makes an error visible even where the summary is cut short
    # shellcheck disable=SC2086
    local no_cdp=
    case " ${no_cdp_tools[*]} " in *" ${1%% *} "*) no_cdp=1 ;; esac
    (cd "$top_builddir" && CUDYN_SANITIZE_NO_CDP=$no_cdp timeout 600 "$sanitizer" --tool $1 --target-processes all --error-exitcode 99 \
        ./$2) > "$3" 2>&1
    echo $? > "$3.rc"
}

# report TOOL PROGRAM LOG: its verdict; returns 1 for a run with errors
report() {
    local rc errors summaries
    rc=$(cat "$3.rc")
    # memcheck, synccheck and initcheck: "ERROR SUMMARY: N errors";
    # racecheck: "RACECHECK SUMMARY: H hazards displayed (N errors, W warnings)"
    errors=$(sed -n -e 's/^========= ERROR SUMMARY: \([0-9]*\) error.*/\1/p' \
        -e 's/^========= RACECHECK SUMMARY: .*(\([0-9]*\) error.*/\1/p' "$3" | awk '{n += $1} END {print n + 0}')
    summaries=$(grep -cE '^========= (ERROR|RACECHECK) SUMMARY' "$3")
    if [ "$rc" != 0 ] || [ "$errors" != 0 ] || [ "$summaries" = 0 ]; then
        echo "FAIL: ${1%% *} $2: exit $rc, $errors errors"
        grep -E '^=========' "$3" | grep -vE 'COMPUTE-SANITIZER|^=========$' | head -n 40 | sed 's/^/    | /'
        tail -n 5 "$3" | sed 's/^/    > /'
        return 1
    fi
    echo "ok: ${1%% *} $2 ($summaries processes, 0 errors)"
}

runs=() # "TOOL|PROGRAM|LOG"
for p in "${programs[@]}"; do
    [ -x "$top_builddir/${p%% *}" ] || { echo "${p%% *}: not built, skipped"; continue; }
    for t in "${tools[@]}"; do
        why=${not_run["${t%% *} $p"]-}
        [ -z "$why" ] || { echo "${t%% *} $p: not run ($why)"; continue; }
        runs+=("$t|$p|$logs/$(printf '%s' "${t%% *}-$p" | tr -c 'A-Za-z0-9_.-' '_').log")
    done
done
for r in "${runs[@]}"; do
    IFS='|' read -r t p log <<< "$r"
    while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n; done
    sanitize "$t" "$p" "$log" &
done
wait
bad=0
for r in "${runs[@]}"; do
    IFS='|' read -r t p log <<< "$r"
    report "$t" "$p" "$log" || bad=$((bad + 1))
done
runs=${#runs[@]}
echo "check-gpu-sanitize: $runs runs of ${#programs[@]} programs under ${#tools[@]} tools, $bad with errors"
[ "$bad" = 0 ] && [ "$fail" = 0 ]
