#!/bin/bash
# examples/mpi_saxpy under mpirun, one rank per GPU: 2 and 3 ranks on two
# mock devices (the third rank shares device 0), and 2 ranks on the real
# GPUs when the machine has them.  examples/mpi_stencil the same way, with
# each halo-exchange path (NCCL's on the mock libnccl, whose ranks meet in
# shared memory) and each schedule of the IPC path: its result must be the
# same bits (the same hash) on 1, 2 and 3 ranks and by every path and
# schedule; its first lines say whether the MPI is CUDA-aware and why, and
# --timings adds a line per rank.  examples/allreduce on 2 and 3 ranks,
# every sum checked, by NCCL and by MPI.  NCCL takes one rank per GPU (the
# mock NCCL refuses two ranks on one device, as NCCL does), so NCCL's runs
# have at most as many ranks as devices: what a machine's GPUs run is run
# on the mock with one device too, as on a machine with one GPU.  Every rank binds its threads to
# the CPUs the NVML mock puts next to its GPU (a line per rank says
# which), within what the launcher allows and never beyond it.  Skips
# without an MPI build (configure found no mpicc, or --without-mpi) or
# without mpirun.
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
# Open MPI's own binding (a core per rank for 2 ranks) is turned off, so
# that the examples' binding is what the lines show.
mpi=("$MPIRUN")
openmpi=0
"$MPIRUN" --version 2>&1 | grep -q 'Open MPI' && openmpi=1
if [ $openmpi = 1 ]; then
    mpi+=(--oversubscribe --bind-to none)
    if [ "$(id -u)" = 0 ]; then
        export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    fi
fi
# launch_ranks N VARS -- ARGS: mpirun -n N $example ARGS, handing the
# variables VARS (where set) to every rank; output in $out, exit code in $rc
launch_ranks() {
    local n=$1 v cmd=("${mpi[@]}")
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
}

# run_ranks N VARS -- ARGS: launch_ranks, which must end in PASS
run_ranks() {
    launch_ranks "$@"
    [ $rc = 0 ] || { echo "FAIL: mpirun -n $1 $example exited $rc"; fail=1; }
    expect_match "$out" "^$(basename "$example"): $1 ranks, .*: PASS$"
}

# run_ranks_failing N VARS -- ARGS: launch_ranks, which must fail (not hang)
run_ranks_failing() {
    launch_ranks "$@"
    case $rc in
    0) echo "FAIL: mpirun -n $1 $example succeeded"; fail=1 ;;
    124) echo "FAIL: mpirun -n $1 $example hung (timeout)"; fail=1 ;;
    esac
}

# stencil_hashes VARS -- PATHS: the stencil on 1, 2 and 3 ranks by each
# path; every run must give the hash of the first
stencil_hashes() {
    local vars=() n p hash first=
    while [ "$1" != -- ]; do vars+=("$1"); shift; done
    shift
    for p in "$@"; do
        for n in 1 2 3; do
            # NCCL takes one rank per GPU
            [ "${p%%:*}" = nccl ] && [ $n -gt "$nccl_max_ranks" ] && continue
            run_ranks $n "${vars[@]}" -- --path=${p%%:*} ${p#*:} 96 64 25
            expect_match "$out" "^mpi_stencil: CUDA-aware MPI: (yes|no|unknown), because "
            hash=$(printf '%s\n' "$out" | sed -n 's/^mpi_stencil: .*hash \([0-9a-f]*\),.*/\1/p')
            [ -n "$hash" ] || { echo "FAIL: no hash from the stencil"; fail=1; }
            first=${first:-$hash}
            [ "$hash" = "$first" ] || { echo "FAIL: stencil hash $hash on $n ranks by $p, $first before"; fail=1; }
        done
    done
}

# on the mock: every rank loads it and sees the same two devices, and the
# NVML mock puts GPU 0 next to the first CPU this process may use and GPU
# 1 next to the second (the first again on a machine of one CPU)
nccl_max_ranks=2
mock_vars=(CUDYN_LIBCUDA MOCK_CUDA_DEVICES CUDYN_LIBNVRTC CUDYN_CACHE_DIR CUDYN_LIBNVML MOCK_NVML_CPUS CUDYN_LIBNCCL)
read -r cpu0 cpu1 < <(awk '/^Cpus_allowed_list:/ {
        n = split($2, ranges, ",")
        for (i = 1; i <= n && k < 2; i++) {
            split(ranges[i], r, "-")
            for (c = r[1] + 0; c <= (r[2] == "" ? r[1] : r[2]) + 0 && k < 2; c++) cpus[k++] = c
        }
    } END { print cpus[0], (k < 2 ? cpus[0] : cpus[1]) }' /proc/self/status)
export CUDYN_LIBCUDA="$MOCK_LIBCUDA" MOCK_CUDA_DEVICES="A:90,B:90"
export CUDYN_LIBNVML="$top_builddir/tests/mock/nvml/.libs/libnvidia-ml.so.1" MOCK_NVML_CPUS="0:$cpu0;1:$cpu1"
export CUDYN_LIBNCCL="$MOCK_LIBNCCL"
run_ranks 2 "${mock_vars[@]}" -- 100000 20
expect_line "$out" "rank 0 of 2: device 0 (A)"
expect_line "$out" "rank 1 of 2: device 1 (B)"
expect_line "$out" "rank 0: device 0, CPUs $cpu0 (NVML affinity)"
expect_line "$out" "rank 1: device 1, CPUs $cpu1 (NVML affinity)"
run_ranks 3 "${mock_vars[@]}" -- 100000 20
expect_line "$out" "rank 2 of 3: device 0 (A)"
expect_line "$out" "rank 2: device 0, CPUs $cpu0 (NVML affinity)"
# what is not bound, and why: --no-bind; NVML cannot tell (a GPU it has
# no CPUs for); a launcher's binding is narrowed, never widened (the
# ranks may use only the first CPU: GPU 0 near both gets it, GPU 1 near
# the second alone is left as it was)
run_ranks 2 "${mock_vars[@]}" -- --no-bind 1000 2
expect_match "$out" "^rank 1: device 1, CPUs [-0-9,]* \(not bound: --no-bind\)$"
MOCK_NVML_CPUS="0:$cpu0" run_ranks 2 "${mock_vars[@]}" -- 1000 2
expect_line "$out" "rank 0: device 0, CPUs $cpu0 (NVML affinity)"
expect_match "$out" "^rank 1: device 1, CPUs [-0-9,]* \(not bound: NVML cannot tell which CPUs are next to this GPU\)$"
if [ "$cpu0" != "$cpu1" ] && command -v taskset >/dev/null; then
    mpi=(taskset -c "$cpu0" "${mpi[@]}")
    both="$cpu0,$cpu1"
    [ "$cpu1" = $((cpu0 + 1)) ] && both="$cpu0-$cpu1" # as a cpulist
    MOCK_NVML_CPUS="0:$cpu0,$cpu1;1:$cpu1" run_ranks 2 "${mock_vars[@]}" -- 1000 2
    expect_line "$out" "rank 0: device 0, CPUs $cpu0 (NVML affinity, within the CPUs already allowed; NVML's: $both)"
    expect_line "$out" "rank 1: device 1, CPUs $cpu0 (not bound: NVML's CPUs $cpu1 are none of those this process may use)"
    mpi=("${mpi[@]:3}")
fi
# the stencil: the mock's device memory is host memory, so the CUDA-aware
# path runs there when told to assume it; the IPC path maps the
# neighbours' memfds
stencil="$top_builddir/examples/mpi_stencil"
if [ -x "$stencil" ]; then
    example=$stencil
    stencil_hashes "${mock_vars[@]}" -- staged: ipc: ipc:--schedule=split ipc:--schedule=priority nccl: \
        cuda-aware:--assume-cuda-aware
    # Open MPI answers itself once initialised; the timings, a line per rank
    run_ranks 2 "${mock_vars[@]}" -- --path=ipc --schedule=split --timings 96 64 25
    if [ $openmpi = 1 ]; then
        expect_line "$out" "mpi_stencil: CUDA-aware MPI: no, because MPIX_Query_cuda_support() returned 0 (this MPI was built without CUDA, or its CUDA support is turned off)"
    fi
    expect_match "$out" "^mpi_stencil: timings rank 1 of 2, path ipc, schedule split: step [0-9.]+ ms, edges [0-9.]+ ms, inner [0-9.]+ ms, halo [0-9.]+ ms, handshake [0-9.]+ ms$"
    # auto: not CUDA-aware, NCCL found
    run_ranks 2 "${mock_vars[@]}" -- 96 64 5
    expect_line "$out" "mpi_stencil: path nccl (auto: NCCL found)"
    run_ranks 3 "${mock_vars[@]}" -- --path=staged 96 64 25
    expect_match "$out" "local rank 2 \(OMPI_COMM_WORLD_LOCAL_RANK\) uses device 0 of 2, which other local ranks share"
    expect_line "$out" "rank 1: device 1, CPUs $cpu1 (NVML affinity)"
    expect_line "$out" "rank 2: device 0, CPUs $cpu0 (NVML affinity)"
    example="$top_builddir/examples/mpi_saxpy"
fi
# the all-reduce: every element of every size checked, by NCCL and by MPI
allreduce="$top_builddir/examples/allreduce"
if [ -x "$allreduce" ]; then
    example=$allreduce
    for n in 2 3; do   # three ranks on three devices
        MOCK_CUDA_DEVICES="A:90,B:90,C:90" run_ranks $n "${mock_vars[@]}" -- -e 256K -n 2 -w 1
        expect_match "$out" "^# CUDA-aware MPI: (yes|no|unknown), because "
        expect_line "$out" "# path: nccl"
        expect_match "$out" "^ +262144 +65536 +float +sum +[0-9.]+ +[0-9.]+ +[0-9.]+ +0$"
    done
    # two ranks on one device: NCCL's refusal, not a hang
    MOCK_CUDA_DEVICES="A:90" run_ranks_failing 2 "${mock_vars[@]}" -- -e 64K -n 2
    expect_match "$out" "ranks 0 and 1 of one communicator are both on device 0"
    run_ranks 2 "${mock_vars[@]}" -- --path=mpi -e 64K -n 2
    expect_line "$out" "# path: mpi staged through host memory"
    example="$top_builddir/examples/mpi_saxpy"
fi
# the README's NCCL program, as printed there, on 2 ranks
if [ -n "${MPICC:-}" ]; then
    awk '$0 == "### Collectives across GPUs and nodes: NCCL" { s = 1; next } s && /^##/ { exit }
        s && $0 == "```c" { c = 1; next } c && /^```/ { exit } c' "$top_srcdir/README.md" > "$tmp/sum.c"
    # a sanitizer build's library needs its runtime in the program too
    sanitize=()
    [ "${CUDYN_SANITIZER:-no}" = no ] || sanitize=(-fsanitize="$CUDYN_SANITIZER")
    if $MPICC "${sanitize[@]}" -I"$top_builddir/include" -I"$top_srcdir/include" "$tmp/sum.c" -o "$tmp/sum" \
            -L"$top_builddir/lib/.libs" -lcudyn -Wl,-rpath,"$top_builddir/lib/.libs" > "$tmp/cc.log" 2>&1; then
        cmd=("${mpi[@]}")
        [ $openmpi = 1 ] && for v in "${mock_vars[@]}"; do [ -n "${!v+set}" ] && cmd+=(-x "$v"); done
        out=$(timeout 300 "${cmd[@]}" -n 2 "$tmp/sum" 2>&1)
        expect_line "$out" "sum over 2 ranks: 3"
    else
        echo "FAIL: README's NCCL program does not compile:"
        sed 's/^/    | /' "$tmp/cc.log"
        fail=1
    fi
fi

# on_devices ELEMENTS VARS...: what a machine runs on the devices its driver
# shows, however many (1 or more): mpi_saxpy on 2 ranks (sharing a device
# where there is one), the stencil by every path on 1, 2 and 3 ranks
# (NCCL's on at most one rank per device), the all-reduce on 2 ranks, or on
# 1 where there is one device, with ELEMENTS floats; the ranks get VARS
on_devices() {
    local elements=$1 devices ranks
    shift
    devices=$("$probe" count | sed -n 's/^count.devices=//p')
    run_ranks 2 "$@" --
    expect_match "$out" "^rank 1: device [0-9]+, CPUs [-0-9,]+ \((NVML affinity|not bound: )"
    nccl_max_ranks=$devices
    paths=(staged: ipc: ipc:--schedule=split ipc:--schedule=priority)
    nccl_ok=0
    "$cudainfo" --mpi 2>/dev/null | grep -q '^NCCL:    [0-9]' && nccl_ok=1
    [ $nccl_ok = 1 ] && paths+=(nccl:)
    if [ -x "$stencil" ]; then
        example=$stencil
        stencil_hashes "$@" -- "${paths[@]}"
    fi
    if [ -x "$allreduce" ] && [ $nccl_ok = 1 ]; then
        example=$allreduce
        ranks=2
        if [ "$devices" -lt 2 ]; then
            ranks=1
            echo "one device: the all-reduce runs on 1 rank (NCCL takes one rank per GPU; 2 ranks need 2)"
        fi
        run_ranks $ranks "$@" -- -e "$elements" -n 5
        expect_line "$out" "# path: nccl"
    fi
    example="$top_builddir/examples/mpi_saxpy"
}

# as on a machine with one GPU: the mock with one device
MOCK_CUDA_DEVICES="A:90" on_devices 64K "${mock_vars[@]}"
unset CUDYN_LIBCUDA MOCK_CUDA_DEVICES CUDYN_LIBNVML MOCK_NVML_CPUS CUDYN_LIBNCCL

# on the GPUs, with the real NVRTC, and NCCL where the machine has one
# (the search's, not the mock's), never with NVLink multicast here
if [ "$nvrtc" = CUDYN_OK ] && have_real_driver &&
    env -u LD_LIBRARY_PATH "$probe" count | grep -q '^count.devices=[1-9]'; then
    export NCCL_NVLS_ENABLE=${NCCL_NVLS_ENABLE:-0}
    LD_LIBRARY_PATH= on_devices 64M CUDYN_CACHE_DIR NCCL_NVLS_ENABLE
fi
finish
