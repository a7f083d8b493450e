#!/bin/bash
# examples/mpi_saxpy under mpirun, one rank per GPU: 2 and 3 ranks on two
# mock devices (the third rank shares device 0), and 2 ranks on the real
# GPUs when the machine has them.  examples/mpi_stencil the same way, with
# each halo-exchange path: its result must be the same bits (the same
# hash) on 1, 2 and 3 ranks and by every path.  Skips without an MPI build (configure
# found no mpicc, or --without-mpi) or without mpirun.
. "$top_srcdir/tests/common.sh"
example="$top_builddir/examples/mpi_saxpy"
if [ -z "${MPIRUN:-}" ] || [ ! -x "$example" ]; then
    echo "SKIP: examples/mpi_saxpy not built (no MPI C compiler) or no mpirun"
    exit 77
fi

# Open MPI leaves its own allocations at exit, which LeakSanitizer would
# blame on the ranks; cudyn's leaks are checked by every other test.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"

nvrtc=$(CUDYN_LIBCUDA="$MOCK_LIBCUDA" "$probe" info | sed -n 's/^nvrtc_status=//p')
[ "$nvrtc" = CUDYN_OK ] || export CUDYN_LIBNVRTC="$MOCK_LIBNVRTC"

# Open MPI refuses to run as root unless told twice, starts more ranks than
# there are cores only with --oversubscribe, and gives the ranks the
# variables named with -x (every rank loads the mock through them).
mpi=("$MPIRUN")
openmpi=0
"$MPIRUN" --version 2>&1 | grep -q 'Open MPI' && openmpi=1
if [ $openmpi = 1 ]; then
    mpi+=(--oversubscribe)
    if [ "$(id -u)" = 0 ]; then
        export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    fi
fi
# run_ranks N VARS -- ARGS: mpirun -n N $example ARGS, handing
# the variables VARS (where set) to every rank; output in $out
run_ranks() {
    local n=$1 v rc cmd=("${mpi[@]}")
    shift
    while [ $# -gt 0 ] && [ "$1" != -- ]; do
        v=$1
        shift
        [ $openmpi = 1 ] && [ -n "${!v+set}" ] && cmd+=(-x "$v")
    done
    shift
    out=$(timeout 300 "${cmd[@]}" -n "$n" "$example" "$@" 2>&1)
    rc=$?
    echo "${cmd[*]} -n $n $example $*"
    printf '%s\n' "$out" | sed 's/^/    | /'
    [ $rc = 0 ] || { echo "FAIL: mpirun -n $n $example exited $rc"; fail=1; }
    expect_match "$out" "^$(basename "$example"): $n ranks, .*: PASS$"
}

# stencil_hashes VARS -- PATHS: the stencil on 1, 2 and 3 ranks by each
# path; every run must give the hash of the first
stencil_hashes() {
    local vars=() n p hash first=
    while [ "$1" != -- ]; do vars+=("$1"); shift; done
    shift
    for p in "$@"; do
        for n in 1 2 3; do
            run_ranks $n "${vars[@]}" -- --path=${p%%:*} ${p#*:} 96 64 25
            hash=$(printf '%s\n' "$out" | sed -n 's/^mpi_stencil: .*hash \([0-9a-f]*\),.*/\1/p')
            [ -n "$hash" ] || { echo "FAIL: no hash from the stencil"; fail=1; }
            first=${first:-$hash}
            [ "$hash" = "$first" ] || { echo "FAIL: stencil hash $hash on $n ranks by $p, $first before"; fail=1; }
        done
    done
}

# on the mock: every rank loads it and sees the same two devices
mock_vars=(CUDYN_LIBCUDA MOCK_CUDA_DEVICES CUDYN_LIBNVRTC CUDYN_CACHE_DIR)
export CUDYN_LIBCUDA="$MOCK_LIBCUDA" MOCK_CUDA_DEVICES="A:90,B:90"
run_ranks 2 "${mock_vars[@]}" -- 100000 20
expect_line "$out" "rank 0 of 2: device 0 (A)"
expect_line "$out" "rank 1 of 2: device 1 (B)"
run_ranks 3 "${mock_vars[@]}" -- 100000 20
expect_line "$out" "rank 2 of 3: device 0 (A)"
# the stencil: the mock's device memory is host memory, so the CUDA-aware
# path runs there when told to assume it; the IPC path maps the
# neighbours' memfds
stencil="$top_builddir/examples/mpi_stencil"
if [ -x "$stencil" ]; then
    example=$stencil
    stencil_hashes "${mock_vars[@]}" -- staged: ipc: cuda-aware:--assume-cuda-aware
    run_ranks 3 "${mock_vars[@]}" -- --path=staged 96 64 25
    expect_match "$out" "local rank 2 \(OMPI_COMM_WORLD_LOCAL_RANK\) uses device 0 of 2, which other local ranks share"
    example="$top_builddir/examples/mpi_saxpy"
fi
unset CUDYN_LIBCUDA MOCK_CUDA_DEVICES

# on the GPUs, with the real NVRTC
if [ "$nvrtc" = CUDYN_OK ] && have_real_driver &&
    env -u LD_LIBRARY_PATH "$probe" count | grep -q '^count.devices=[1-9]'; then
    LD_LIBRARY_PATH= run_ranks 2 CUDYN_CACHE_DIR --
    if [ -x "$stencil" ]; then
        example=$stencil
        LD_LIBRARY_PATH= stencil_hashes CUDYN_CACHE_DIR -- staged: ipc:
    fi
fi
finish
