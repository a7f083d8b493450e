#!/bin/bash
# gpu-nccl.sh - issue 36's measurements in one run, on a machine with two
# GPUs, NCCL and MPI (the build tree's programs; not part of make check):
#   1. tests/test_nccl against the real NCCL (every collective's data
#      checked, bad arguments, two processes);
#   2. examples/allreduce under mpirun -n 2, three times: NCCL's default
#      (NVLink, P2P), NCCL_P2P_DISABLE=1 (shared memory) and
#      NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1 (sockets), the transport
#      each used read from NCCL_DEBUG=INFO;
#   3. examples/mpi_stencil on 1 and 2 ranks (4096 x 4096 cells per GPU,
#      200 steps, as make bench) by every path and IPC schedule, with
#      --timings; one run per grid is checked against the host, every
#      other must give its hash;
#   4. bench/peers_nccl.py: the all-reduce beside torch.distributed's
#      (when torch is importable), cudyn's C and Python (cudyn.nccl)
#      columns;
#   5. the Python module: examples/python/mpi_scale.py under mpirun -n 2
#      (its NCCL all-reduce checked; mpi4py needed) and python/tests'
#      test_nccl.py's GPU tests (cudyn.nccl on the GPUs, mpi4py's own
#      Allreduce on device arrays where the MPI is CUDA-aware);
# then one table.  NCCL is the one CUDYN_LIBNCCL names, else PyTorch's
# wheel (nvidia.nccl); NCCL_NVLS_ENABLE=0 unless set, handed to every
# rank.  mpirun may run as root.  Exit 0 when every check passed, 1 if one
# failed, 77 without two GPUs, NCCL or mpirun.
#
#   cd BUILD && ../tests/gpu-nccl.sh      (or top_builddir=BUILD tests/gpu-nccl.sh)
set -u
top_builddir=${top_builddir:-$PWD}
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
MPIRUN=${MPIRUN:-mpirun}
python=${PYTHON:-python3}
log=${GPU_NCCL_LOG:-$top_builddir/gpu-nccl.log}
export NCCL_NVLS_ENABLE=${NCCL_NVLS_ENABLE:-0}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
unset CUDYN_LIBCUDA
: > "$log"
failed=0
rows=()

say() { printf '%s\n' "$*" | tee -a "$log"; }
row() { rows+=("$(printf "$@")"); }
fail() { say "FAIL: $*"; failed=1; }

if [ -z "${CUDYN_LIBNCCL:-}" ]; then
    wheel=$("$python" -c 'import nvidia.nccl, os; print(os.path.dirname(nvidia.nccl.__file__))' 2>/dev/null) &&
        export CUDYN_LIBNCCL=$wheel/lib
fi
cudainfo=$top_builddir/tools/cudainfo
command -v "$MPIRUN" >/dev/null || { say "SKIP: no $MPIRUN"; exit 77; }
"$cudainfo" -q --require 2 || { say "SKIP: cudainfo sees fewer than two GPUs"; exit 77; }
"$cudainfo" --mpi | tee -a "$log"
"$cudainfo" --mpi | grep -q '^NCCL:    [0-9]' || { say "SKIP: no usable NCCL (CUDYN_LIBNCCL=${CUDYN_LIBNCCL:-unset})"; exit 77; }
mpi=("$MPIRUN" --bind-to none -x NCCL_NVLS_ENABLE -x CUDYN_LIBNCCL -x LD_LIBRARY_PATH)
[ -n "${CUDYN_CACHE_DIR:-}" ] && mpi+=(-x CUDYN_CACHE_DIR)

# ---- 1. the C tests on the real NCCL
t0=$SECONDS
if top_builddir=$top_builddir timeout 180 "$top_builddir/tests/test_nccl" >> "$log" 2>&1; then
    row "%-44s %s (%d s)" "test_nccl (real NCCL, 2 GPUs)" PASS $((SECONDS - t0))
else
    fail "tests/test_nccl on the real NCCL (see $log)"
    row "%-44s %s" "test_nccl (real NCCL, 2 GPUs)" FAIL
fi

# ---- 2. the all-reduce, one transport at a time
allreduce() { # LABEL VAR=VALUE...
    local label=$1 extra=() out transport
    shift
    for v in "$@"; do extra+=(-x "$v"); done
    out=$(env "$@" NCCL_DEBUG=INFO timeout 200 "${mpi[@]}" -x NCCL_DEBUG \
        "${extra[@]}" -n 2 "$top_builddir/examples/allreduce" -b 8 -e 256M -n 20 -w 5 2>&1)
    printf '%s\n' "$out" | grep -v 'NCCL INFO' >> "$log"
    transport=$(printf '%s\n' "$out" | grep -m1 -o 'via [A-Za-z/]*' | sed 's/via //')
    printf '%s\n' "$out" | grep -q '^allreduce: 2 ranks, path nccl, .*: PASS$' || fail "allreduce $label"
    local lat bw16 bw256
    lat=$(printf '%s\n' "$out" | awk '$1 == 8 && $3 == "float" {print $5}')
    bw16=$(printf '%s\n' "$out" | awk '$1 == 16777216 && $3 == "float" {print $7}')
    bw256=$(printf '%s\n' "$out" | awk '$1 == 268435456 && $3 == "float" {print $7}')
    row "%-44s 8 B %8s us, busbw 16 MiB %7s, 256 MiB %7s GB/s (%s)" "allreduce, $label" "${lat:-?}" "${bw16:-?}" \
        "${bw256:-?}" "${transport:-transport ?}"
}
allreduce "default"
allreduce "NCCL_P2P_DISABLE=1" NCCL_P2P_DISABLE=1
allreduce "P2P and SHM disabled" NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1

# ---- 3. the stencil: every path and schedule, 1 and 2 ranks
declare -A hash_of
stencil() { # RANKS PATH SCHEDULE [--no-check]
    local n=$1 path=$2 schedule=$3 check=${4:-} ny=$((4096 * $1)) out line cells timings
    out=$(timeout 200 "${mpi[@]}" -n "$n" "$top_builddir/examples/mpi_stencil" --path="$path" --schedule="$schedule" \
        --timings $check 4096 "$ny" 200 2>&1)
    printf '%s\n' "$out" >> "$log"
    line=$(printf '%s\n' "$out" | grep '^mpi_stencil: [0-9]* ranks, ')
    local hash=${line#*hash }
    hash=${hash%%,*}
    cells=$(printf '%s\n' "$line" | sed -n 's/.*, \([0-9.e+]*\) cells\/s: .*/\1/p')
    case $line in *": PASS" | *": unchecked") ;; *) fail "stencil $n ranks $path $schedule: ${line:-no result}" ;; esac
    [ -z "${hash_of[$n]:-}" ] && hash_of[$n]=$hash
    [ "$hash" = "${hash_of[$n]}" ] || fail "stencil $n ranks $path $schedule: hash $hash, ${hash_of[$n]} before"
    timings=$(printf '%s\n' "$out" | sed -n 's/^mpi_stencil: timings rank 0 of [0-9]*, [^:]*: //p')
    row "%-44s %9s cells/s  hash %s  %s" "stencil, $n rank$([ "$n" = 1 ] || echo s), $path/$schedule" \
        "${cells:-?}" "${hash:-?}" "$timings"
    eval "cells_${n}_${path//-/_}_$schedule=\${cells:-0}"
}
for n in 1 2; do
    stencil $n ipc plain # checked against the host
    stencil $n ipc split --no-check
    stencil $n ipc priority --no-check
    stencil $n nccl plain --no-check
    stencil $n staged plain --no-check
done
for p in ipc_plain ipc_split ipc_priority nccl_plain staged_plain; do
    eval "one=\$cells_1_$p two=\$cells_2_$p"
    row "%-44s %s" "weak scaling, $p" "$(awk -v a="$one" -v b="$two" \
        'BEGIN { if (a > 0) printf "%.1f %% (%.3g cells/s on 1 GPU, %.3g on 2; target >= 90 %%)", 100 * b / (2 * a), a, b; else print "?" }')"
done

# ---- 4. beside torch.distributed
if "$python" -c 'import torch' 2>/dev/null; then
    out=$(cd "$top_builddir" && timeout 400 "$python" "$top_srcdir/bench/peers_nccl.py" --mpirun "$MPIRUN" \
        --allreduce "$top_builddir/examples/allreduce" --cudyn-python "$top_builddir/python/staged" 2>&1)
    printf '%s\n' "$out" >> "$log"
    printf '%s\n' "$out" | grep -q 'cudyn .* of torch' || fail "bench/peers_nccl.py"
    printf '%s\n' "$out" | grep -q 'cudyn Python .* of torch' || fail "bench/peers_nccl.py: no cudyn.nccl column"
    while IFS= read -r l; do row "%s" "$l"; done < <(printf '%s\n' "$out" |
        grep -E '^(8 B latency|[0-9]+ B bus bandwidth|all-reduce peers|cudyn Python: skipped)')
else
    row "%-44s %s" "torch.distributed beside cudyn" "skipped: torch is not importable"
fi

# ---- 5. the Python module (this build's, staged by make check)
pyenv=(env PYTHONPATH="$top_builddir/python/staged${PYTHONPATH:+:$PYTHONPATH}" LD_LIBRARY_PATH="$top_builddir/lib/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}")
if [ ! -d "$top_builddir/python/staged/cudyn" ]; then
    row "%-44s %s" "cudyn.nccl (Python)" "skipped: no python/staged (run make check first)"
elif "$python" -c 'import mpi4py' 2>/dev/null; then
    out=$("${pyenv[@]}" timeout 300 "${mpi[@]}" -x PYTHONPATH -n 2 "$python" \
        "$top_srcdir/examples/python/mpi_scale.py" 2>&1)
    printf '%s\n' "$out" >> "$log"
    printf '%s\n' "$out" | grep -q '^PASS$' || fail "examples/python/mpi_scale.py under mpirun -n 2"
    printf '%s\n' "$out" | grep -q 'over 2 ranks: .*: PASS$' || fail "mpi_scale.py: no NCCL all-reduce"
    row "%-44s %s" "mpi_scale.py, 2 ranks" "$(printf '%s\n' "$out" | grep -m1 -E 'all-reduce of the parts|NCCL step skipped')"
else
    row "%-44s %s" "mpi_scale.py, 2 ranks" "skipped: mpi4py is not importable by $python"
fi
if [ -d "$top_builddir/python/staged/cudyn" ] && "$python" -c 'import pytest, numpy' 2>/dev/null; then
    out=$("${pyenv[@]}" MPIRUN="$MPIRUN" timeout 600 "$python" -m pytest -q -rs -p no:cacheprovider \
        "$top_srcdir/python/tests/test_nccl.py" -k "gpu or cuda_aware" 2>&1)
    printf '%s\n' "$out" >> "$log"
    printf '%s\n' "$out" | grep -qE '[0-9]+ passed' && ! printf '%s\n' "$out" | grep -q ' failed' ||
        fail "python/tests/test_nccl.py on the GPUs"
    row "%-44s %s" "test_nccl.py (GPU tests)" "$(printf '%s\n' "$out" | tail -n 1)"
fi

say ""
say "issue 36 on $(hostname): NCCL ${CUDYN_LIBNCCL:-(searched)}, NCCL_NVLS_ENABLE=$NCCL_NVLS_ENABLE, $((SECONDS)) s"
for r in "${rows[@]}"; do say "$r"; done
say "$([ $failed = 0 ] && echo "gpu-nccl: PASS" || echo "gpu-nccl: FAIL") (details in $log)"
exit $failed
