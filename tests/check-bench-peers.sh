#!/bin/bash
# bench/peers.py (make bench-peers) without a GPU: its table and JSON on
# made-up numbers (--self-test), and each peer worker, asked only to import
# its module, answers one line (the version, or why it is skipped) and
# never a traceback; bench/peers_nccl.py skips with its reason.  The
# measurements themselves run in make bench-peers.
# Skips without python3.
. "$top_srcdir/tests/common.sh"
python=${PYTHON:-}
if [ -z "$python" ]; then
    echo "SKIP: configure found no Python 3"
    exit 77
fi
peers="$top_srcdir/bench/peers.py"

expect_exit 0 "$python" "$peers" --self-test
expect_line "$out" "peers.py self-test ok"
for peer in cuda-python cupy; do
    expect_exit 0 "$python" "$peers" --worker $peer --import-only
    expect_match "$out" $'^(version|skip)\t'
    expect_no_match "$out" "Traceback"
    [ "$(printf '%s\n' "$out" | wc -l)" = 1 ] || { echo "FAIL: more than one line from the $peer worker"; fail=1; }
done
# the application script: a wrong argument is a usage error, a missing
# module a skip (77) with its reason, never a traceback
expect_exit 2 "$python" "$top_srcdir/bench/peers_saxpy.py" nonsense
if ! "$python" -c "import cupy" 2>/dev/null; then
    expect_exit 77 "$python" "$top_srcdir/bench/peers_saxpy.py" cupy -n 16
    expect_match "$out" $'^skip\tcupy not importable \\('
fi
# the all-reduce beside torch.distributed: without torch (or GPUs, or
# MPI) one line saying why, exit 0, never a traceback
if ! "$python" -c "import torch" 2>/dev/null; then
    expect_exit 0 "$python" "$top_srcdir/bench/peers_nccl.py" --mpirun "${MPIRUN:-mpirun}" \
        --allreduce "$top_builddir/examples/allreduce"
    expect_match "$out" "^all-reduce peers: skipped: torch is not importable \("
    expect_no_match "$out" "Traceback"
fi
# its cudyn.nccl worker, as the table runs it (two ranks under mpirun), on
# the mock driver and mock NCCL: a row per size and the NCCL version
if [ "${CUDYN_SANITIZER:-no}" != no ]; then
    # a plain interpreter cannot load the instrumented module without the
    # sanitizer's runtime preloaded (tests/check-python.sh does that)
    echo "the cudyn.nccl worker: not run in a sanitizer build (CUDYN_SANITIZER=$CUDYN_SANITIZER)"
elif [ "${PYTHON_MODULE:-no}" = yes ] && [ -n "${MPIRUN:-}" ] && command -v "$MPIRUN" >/dev/null; then
    # the ranks get the interpreter by its full path: Open MPI's mpirun
    # started by its full path puts its own bin/ first on the ranks' PATH
    # (as --prefix would), where "python3" can be another interpreter
    expect_exit 0 env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 CUDYN_LIBCUDA="$MOCK_LIBCUDA" \
        CUDYN_LIBNVRTC="$MOCK_LIBNVRTC" CUDYN_LIBNCCL="$MOCK_LIBNCCL" MOCK_CUDA_DEVICES="A:90,B:90" \
        PYTHONPATH="$top_builddir/python/staged${PYTHONPATH:+:$PYTHONPATH}" \
        LD_LIBRARY_PATH="$top_builddir/lib/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
        "$MPIRUN" --oversubscribe -n 2 "$(command -v "$python")" "$top_srcdir/bench/peers_nccl.py" --cudyn-worker \
        --max-bytes 64 --iters 2 --id-file "$tmp/nccl-id"
    expect_line "$out" "nccl 2.28.9"
    [ "$(printf '%s\n' "$out" | grep -cE '^(8|16|32|64) [0-9.]+ [0-9.]+$')" = 4 ] ||
        { echo "FAIL: the cudyn.nccl worker's rows:"; printf '%s\n' "$out" | sed 's/^/    | /'; fail=1; }
else
    echo "the cudyn.nccl worker: not run (no Python module or no mpirun)"
fi
expect_exit 2 "$python" "$top_srcdir/bench/peers_nccl.py" --no-such-option
expect_exit 0 "$python" "$top_srcdir/bench/peers_nccl.py" --self-test
expect_line "$out" "peers_nccl.py self-test ok"
finish
