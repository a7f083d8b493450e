#!/bin/bash
# fault-sweep.sh - never a crash: every driver, NVRTC and NCCL call that each
# workflow of tests/fault-workflows makes is failed in turn, one call per
# run, and every run must end as documented.  Run by `make fault-sweep`;
# CI runs it in the ASan+UBSan build, so LeakSanitizer reports leaks.
#
# For each workflow, one clean run (which must succeed) tells through the
# mocks' call counters (MOCK_CUDA_COUNTS, MOCK_NVRTC_COUNTS,
# MOCK_NCCL_COUNTS) which functions it calls and how often.  Then for each
# function f called n times and each chosen k in 1..n, a run with the k-th
# call of f failing (MOCK_CUDA_FAIL=f:k:CODE, MOCK_NVRTC_FAIL=f:k:CODE or
# MOCK_NCCL_FAIL=f:k:CODE) must:
#   - end by exiting, within FAULT_SWEEP_TIMEOUT seconds: no signal, no
#     abort, no sanitizer report (leaks included);
#   - exit 0 or with one of the workflow's documented failure codes;
#   - when it fails, say why, naming the function or the error it returned
#     (CUDA_ERROR_OUT_OF_MEMORY ...): in its output, its --json result, or
#     probe's WHAT.message for each WHAT that failed;
#   - write JSON that parses, with result.exit_code equal to the exit code,
#     when asked for --json;
#   - have made the k-th call (it followed the clean run up to there).
# A run may also succeed although a call failed (an optional query may fail
# harmlessly), if it says nothing failed: in its --json output no error or
# message, no CUDYN_ERROR_ status (but in the loader block, which describes
# what was found: NVRTC is optional to cudainfo), in its text no FAILED,
# CUDYN_ERROR_, CUDA_ERROR_ or NVRTC_ERROR_ (a program reporting an error
# must not exit 0).  Those are listed as "absorbed" for review.
#
# Which k: every k up to FAULT_SWEEP_FIRST, then FAULT_SWEEP_SPREAD more
# spread evenly up to n (n itself included).
. "$top_srcdir/tests/common.sh"

first=${FAULT_SWEEP_FIRST:-3}
spread=${FAULT_SWEEP_SPREAD:-3}
cuda_code=${FAULT_SWEEP_CUDA_CODE:-2}     # CUDA_ERROR_OUT_OF_MEMORY
nvrtc_code=${FAULT_SWEEP_NVRTC_CODE:-1}   # NVRTC_ERROR_OUT_OF_MEMORY
nccl_code=${FAULT_SWEEP_NCCL_CODE:-2}     # ncclSystemError
timeout=${FAULT_SWEEP_TIMEOUT:-60}
jobs=${FAULT_SWEEP_JOBS:-$(nproc 2>/dev/null || echo 2)}
workflows=${FAULT_SWEEP_WORKFLOWS:-$top_srcdir/tests/fault-workflows}

command -v jq >/dev/null || { echo "SKIP: the sweep needs jq to read --json output"; exit 77; }
[ -r "${MOCK_LIBNVRTC:-}" ] || { echo "SKIP: no mock NVRTC built"; exit 77; }

# A sanitizer's own exit codes, so that its report can never pass for a
# program's documented exit code; leaks are reported at exit in ASan builds.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=1:exitcode=86"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:+$UBSAN_OPTIONS:}print_stacktrace=1:halt_on_error=1:exitcode=87"
export TSAN_OPTIONS="${TSAN_OPTIONS:+$TSAN_OPTIONS:}exitcode=88"
# A release refused below cudyn leaves the object where it was: with the
# mock NVRTC (nvrtcDestroyProgram failing), or, for a module the driver did
# not unload (cuModuleUnload failing), with the caller, who may try again
# (cudyn.h); a tool that reports the error and exits leaves it by design.
echo "leak:libnvrtc.so" > "$tmp/lsan-nvrtcDestroyProgram"
echo "leak:cudyn__module_wrap" > "$tmp/lsan-cuModuleUnload"
case ${CUDYN_SANITIZER:-no} in
*address*) leaks="LeakSanitizer" ;;
*) leaks="not checked (configure --enable-sanitizer=address for LeakSanitizer)" ;;
esac

# Error names and the exported-to-base function names, from cudyn's tables.
tables=$("$top_builddir/tests/tables")
cuda_error=$(printf '%s\n' "$tables" | awk -v c="$cuda_code" '$1 == "cuda" && $2 == c {print $3}')
nvrtc_error=$(printf '%s\n' "$tables" | awk -v c="$nvrtc_code" '$1 == "nvrtc" && $2 == c {print $3}')
nccl_error=$(printf '%s\n' "$tables" | awk -v c="$nccl_code" '$1 == "nccl" && $2 == c {print $3}')
[ -n "$cuda_error" ] && [ -n "$nvrtc_error" ] ||
    { echo "FAIL: codes $cuda_code / $nvrtc_code are not in cudyn's result tables"; exit 1; }
base_name() { # exported driver name (with a _ptds/_ptsz twin suffix) -> base name
    local name=${1%_ptds}
    name=${name%_ptsz}
    printf '%s\n' "$tables" | awk -v e="$name" '$1 == "driver" && $2 == e {print $3; found = 1} END {if (!found) print e}'
}

# unwrap: where argv[0] (kept in program) is libtool's wrapper script (a
# program linked to the uninstalled shared library), argv[0] becomes the
# program it runs and lib_path the directory it puts first on
# LD_LIBRARY_PATH, which run() does as the wrapper would: the same program,
# without a shell per run.
declare -A unwrapped=()
unwrap() {
    local dir
    program=${argv[0]}
    if [ -z "${unwrapped[$program]+set}" ]; then
        unwrapped[$program]="$program"$'\n'
        dir=$(sed -n 's/^ *LD_LIBRARY_PATH="\(.*\):\$LD_LIBRARY_PATH"$/\1/p' "$program" 2>/dev/null | head -n 1)
        if [ -n "$dir" ] && [ -x "${program%/*}/.libs/${program##*/}" ] &&
            grep -q '^# .* - temporary wrapper script for ' "$program"; then
            unwrapped[$program]="${program%/*}/.libs/${program##*/}"$'\n'"$dir"
        fi
    fi
    argv[0]=${unwrapped[$program]%%$'\n'*}
    lib_path=${unwrapped[$program]#*$'\n'}
}

# parse LINE: sets codes, settings (NAME=VALUE), warm (0/1), leak_check
# (0/1), argv, json (0/1) and title (the line without its codes)
parse() {
    local words i=1
    read -ra words <<< "$1"
    codes=${words[0]}
    title=${words[*]:1}
    settings=()
    warm=0
    while [[ ${words[i]:-} =~ ^([A-Z_][A-Z0-9_]*)=(.*)$ ]]; do
        # a value $NAME is taken from the environment (the harness's MOCK_LIBCUDA_V11_0 ...)
        if [[ ${BASH_REMATCH[2]} =~ ^\$([A-Z_][A-Z0-9_]*)$ ]]; then
            settings+=("${words[i]%%=*}=${!BASH_REMATCH[1]:-}")
        else
            settings+=("${words[i]}")
        fi
        i=$((i + 1))
    done
    leak_check=1
    while true; do
        case ${words[i]:-} in
        warm-cache) warm=1 ;;
        no-leak-check) leak_check=0 ;;
        *) break ;;
        esac
        i=$((i + 1))
    done
    case ${words[i]:-} in
    probe) argv=("$top_builddir/tests/probe") ;;
    cudainfo | cudyn-saxpy | cudyn-cc) argv=("$top_builddir/tools/${words[i]}") ;;
    examples/*) argv=("$top_builddir/${words[i]}") ;;
    *) echo "FAIL: $workflows: no program in '$1'"; exit 1 ;;
    esac
    unwrap
    # $NAME in an argument is the harness's NAME ($top_srcdir); $RUN_DIR
    # stays, for run() to make the run's own directory
    local word done name
    for word in "${words[@]:i+1}"; do
        done=
        while [[ $word =~ ^([^$]*)\$([A-Za-z_][A-Za-z0-9_]*)(.*)$ ]]; do
            name=${BASH_REMATCH[2]}
            word=${BASH_REMATCH[3]}
            if [ "$name" = RUN_DIR ]; then done+="${BASH_REMATCH[1]}\$RUN_DIR"; else done+="${BASH_REMATCH[1]}${!name:-}"; fi
        done
        argv+=("$done$word")
    done
    json=0
    [[ " ${words[*]} " == *" --json "* ]] && json=1
    return 0
}

# run DIR [NAME=VALUE...]: the parsed workflow, in DIR (out, err, rc, counts)
run() {
    local dir=$1
    shift
    mkdir -p "$dir/cache"
    [ "$warm" = 0 ] || cp -R "$warm_cache/." "$dir/cache/"
    local asan=$ASAN_OPTIONS
    [ "$leak_check" = 1 ] || asan=$asan:detect_leaks=0
    local ld=()
    if [ -n "$lib_path" ]; then
        ld=("LD_LIBRARY_PATH=$lib_path:${LD_LIBRARY_PATH:-}")
        while [[ ${ld[0]} == *: ]]; do ld[0]=${ld[0]%:}; done
    fi
    env ASAN_OPTIONS="$asan" "${ld[@]}" CUDYN_LIBCUDA="$MOCK_LIBCUDA" CUDYN_LIBNVRTC="$MOCK_LIBNVRTC" CUDYN_CACHE_DIR="$dir/cache" \
        MOCK_CUDA_COUNTS="$dir/cuda.counts" MOCK_NVRTC_COUNTS="$dir/nvrtc.counts" MOCK_NCCL_COUNTS="$dir/nccl.counts" \
        "${settings[@]}" "$@" \
        timeout -k 5 "$timeout" "${argv[@]//\$RUN_DIR/$dir}" > "$dir/out" 2> "$dir/err"
    echo $? > "$dir/rc"
}

# messages DIR: what the run said about failures
messages() {
    if [ "$json" = 1 ]; then
        jq -r '.. | objects | (.message?, .error?) | strings' "$1/out" 2>/dev/null
    elif [ "${argv[0]##*/}" = probe ]; then
        sed -n 's/^[a-z_]*\.message=//p' "$1/out"
    else
        cat "$1/out" "$1/err"
    fi
}

# judge DIR FN K LIB: prints "ok" (failed as documented), "succeeded" or
# "FAIL: why"
judge() {
    local dir=$1 fn=$2 k=$3 lib=$4 rc calls failed name error said
    read -r rc < "$dir/rc"
    if grep -qE '(ERROR|WARNING): [A-Za-z]+Sanitizer|runtime error: ' "$dir/err" ||
        { [ "$rc" -ge 86 ] && [ "$rc" -le 88 ]; }; then
        echo "FAIL: sanitizer report (exit $rc)"
        return
    fi
    [ "$rc" != 124 ] && [ "$rc" != 137 ] || { echo "FAIL: no exit within ${timeout} s"; return; }
    [ "$rc" -le 128 ] || { echo "FAIL: killed by signal $((rc - 128))"; return; }
    calls=$(awk -v f="$fn" '$1 == f {print $2}' "$dir/$lib.counts" 2>/dev/null)
    [ "${calls:-0}" -ge "$k" ] ||
        { echo "FAIL: call $k of $fn never made (${calls:-0} calls): the run left the clean run's path"; return; }
    if [ "$json" = 1 ]; then
        jq -e . "$dir/out" >/dev/null 2>&1 || { echo "FAIL: --json output is not JSON"; return; }
        [ "$(jq -r .result.exit_code "$dir/out")" = "$rc" ] ||
            { echo "FAIL: result.exit_code $(jq -r .result.exit_code "$dir/out") but exit $rc"; return; }
    fi
    if [ "${argv[0]##*/}" = probe ]; then
        [ "$rc" = 0 ] || { echo "FAIL: probe exited $rc"; return; }
        failed=$(sed -n 's/^\([a-z_]*\)=CUDYN_ERROR_.*/\1/p' "$dir/out")
        [ -n "$failed" ] || { echo succeeded; return; }
        for what in $failed; do
            grep -q "^$what\.message=." "$dir/out" || { echo "FAIL: $what failed without a message"; return; }
        done
    elif [ "$rc" = 0 ]; then
        if [ "$json" = 1 ]; then
            said=$(messages "$dir"; jq -r 'del(.loader) | .. | objects | .status? | strings |
                select(startswith("CUDYN_ERROR_"))' "$dir/out")
        else
            said=$(grep -hE 'FAILED|(CUDYN|CUDA|NVRTC)_ERROR_' "$dir/out" "$dir/err")
        fi
        [ -z "$said" ] || { echo "FAIL: exit 0, but it reports an error: $(grep -m1 . <<< "$said")"; return; }
        echo succeeded
        return
    else
        [[ ",$codes," == *",$rc,"* ]] || { echo "FAIL: exit $rc is not one of the documented $codes"; return; }
    fi
    name=$fn error=$cuda_error
    [ "$lib" = cuda ] && name=$(base_name "$fn")
    [ "$lib" = nvrtc ] && error=$nvrtc_error
    [ "$lib" = nccl ] && error=$nccl_error
    messages "$dir" | grep -qF -e "$name" -e "$error" ||
        { echo "FAIL: the failure is not explained (no '$name' or '$error' in what it said)"; return; }
    echo ok
}

# ks N: the k to fail for a function called N times
ks() {
    local n=$1 k i
    for ((k = 1; k <= n && k <= first; k++)); do echo $k; done
    for ((i = 1; n > first && i <= spread; i++)); do
        echo $((first + ((n - first) * i + spread - 1) / spread))
    done | sort -un
}

# ---- one clean run per workflow: it must succeed; its counters list the cases
n_workflows=0
: > "$tmp/cases"
while IFS= read -r line; do
    case $line in '' | '#'*) continue ;; esac
    n_workflows=$((n_workflows + 1))
    w=$n_workflows
    printf '%s\n' "$line" > "$tmp/workflow.$w"
    parse "$line"
    printf '%s\n' "$title" > "$tmp/title.$w"
    warm_cache=$tmp/warm.$w
    if [ "$warm" = 1 ]; then
        warm=0 run "$tmp/fill.$w"
        mv "$tmp/fill.$w/cache" "$warm_cache"
        warm=1
    fi
    run "$tmp/clean.$w"
    verdict=$(judge "$tmp/clean.$w" "" 0 cuda)
    rc=$(cat "$tmp/clean.$w/rc")
    if [ "$verdict" != succeeded ] || [ "$rc" != 0 ]; then
        echo "FAIL: the clean run of '$title' exited $rc: ${verdict#FAIL: }"
        sed 's/^/    | /' "$tmp/clean.$w/out" "$tmp/clean.$w/err" | head -40
        fail=1
        continue
    fi
    for lib in cuda nvrtc nccl; do
        [ -r "$tmp/clean.$w/$lib.counts" ] || continue
        while read -r fn n; do
            printf '%s\n' "$lib $fn" >> "$tmp/functions"
            for k in $(ks "$n"); do echo "$w $lib $fn $k $n"; done >> "$tmp/cases"
        done < "$tmp/clean.$w/$lib.counts"
    done
done < "$workflows"

# ---- every case, $jobs at a time; a case leaves $tmp/case.N/verdict
one_case() { # N W LIB FN K
    local dir=$tmp/case.$1 code=$cuda_code var=MOCK_CUDA_FAIL
    parse "$(cat "$tmp/workflow.$2")"
    warm_cache=$tmp/warm.$2
    [ "$3" = nvrtc ] && code=$nvrtc_code var=MOCK_NVRTC_FAIL
    [ "$3" = nccl ] && code=$nccl_code var=MOCK_NCCL_FAIL
    [ ! -f "$tmp/lsan-$4" ] ||
        export LSAN_OPTIONS="${LSAN_OPTIONS:+$LSAN_OPTIONS:}suppressions=$tmp/lsan-$4"
    run "$dir" "$var=$4:$5:$code"
    judge "$dir" "$4" "$5" "$3" > "$dir/verdict"
    [ "$(< "$dir/verdict")" != ok ] || rm -rf "$dir/cache"
}
n=0
while read -r w lib fn k calls; do
    n=$((n + 1))
    while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n; done
    one_case $n "$w" "$lib" "$fn" "$k" &
done < "$tmp/cases"
wait

# repro W LIB FN K: the command line that repeats a case, from the build tree
repro() {
    local var=MOCK_CUDA_FAIL code=$cuda_code
    [ "$2" = nvrtc ] && var=MOCK_NVRTC_FAIL code=$nvrtc_code
    [ "$2" = nccl ] && var=MOCK_NCCL_FAIL code=$nccl_code
    parse "$(cat "$tmp/workflow.$1")"
    local shown=("$program" "${argv[@]:1}") # the program as the workflow names it
    echo "$var=$3:$4:$code CUDYN_LIBCUDA=$MOCK_LIBCUDA CUDYN_LIBNVRTC=$MOCK_LIBNVRTC" \
        "CUDYN_CACHE_DIR=\$(mktemp -d) ${settings[*]} ${shown[*]//\$RUN_DIR/.}" | sed "s|$top_builddir/||g"
}

# ---- report: absorbed runs, each failure in detail, then the failures in
# one line each and the totals (what a CI log's tail shows)
n=0 failures=0
: > "$tmp/absorbed"
: > "$tmp/failures"
while read -r w lib fn k calls; do
    n=$((n + 1))
    verdict=$(cat "$tmp/case.$n/verdict" 2>/dev/null || echo "FAIL: no verdict")
    case $verdict in
    ok) ;;
    succeeded) echo "$(cat "$tmp/title.$w"): $fn $k/$calls" >> "$tmp/absorbed" ;;
    *)
        failures=$((failures + 1))
        echo "$(cat "$tmp/title.$w"), call $k of $calls of $fn failing: ${verdict#FAIL: }" >> "$tmp/failures"
        echo "FAIL: $(tail -1 "$tmp/failures")"
        echo "    in the build tree: $(repro "$w" "$lib" "$fn" "$k")"
        # stderr first: a sanitizer's report starts there
        sed 's/^/    | /' "$tmp/case.$n/err" "$tmp/case.$n/out" | cut -c1-400 | head -40
        ;;
    esac
done < "$tmp/cases" > "$tmp/details"
[ $failures = 0 ] || fail=1

if [ -s "$tmp/absorbed" ]; then
    echo "absorbed (the run succeeded although the call failed; by design for optional queries):"
    awk -F': ' '{split($2, f, " "); key = $1 ": " f[1]; if (!(key in seen)) order[++n] = key; seen[key] = seen[key] " " f[2]}
        END {for (i = 1; i <= n; i++) print "    " order[i] " (call" seen[order[i]] ")"}' "$tmp/absorbed"
fi
cat "$tmp/details"
if [ $failures != 0 ]; then
    echo "fault sweep: the $failures failures (details above):"
    sed 's/^/    /' "$tmp/failures"
fi
echo "fault sweep: every call k up to $first, then $spread more spread to the last;" \
    "driver code $cuda_code ($cuda_error), NVRTC code $nvrtc_code ($nvrtc_error), NCCL code $nccl_code" \
    "($nccl_error); leaks: $leaks"
echo "fault sweep: $n_workflows workflows, $(grep -c '^cuda ' <(sort -u "$tmp/functions")) driver functions," \
    "$(grep -c '^nvrtc ' <(sort -u "$tmp/functions")) NVRTC functions," \
    "$(grep -c '^nccl ' <(sort -u "$tmp/functions")) NCCL functions, $n cases" \
    "($(wc -l < "$tmp/absorbed") absorbed), $failures failures"
finish
