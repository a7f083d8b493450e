#!/bin/bash
# valgrind memcheck over every C test program that runs on the mock driver,
# the examples the mock can run, and both tools' main paths: no invalid
# access, no use of uninitialised memory, no definite or indirect leak.
# (Fault injection runs inside test_api, test_errors and the others; the
# fault sweep, make fault-sweep, covers every call under LeakSanitizer.)
. "$top_srcdir/tests/common.sh"
if [ "${CUDYN_SANITIZER:-no}" != no ]; then
    echo "SKIP: a sanitizer build (--enable-sanitizer=$CUDYN_SANITIZER): valgrind cannot run its programs"
    exit 77
fi
[ -n "${VALGRIND:-}" ] || { echo "SKIP: no valgrind (not installed, or make check VALGRIND=)"; exit 77; }

# What runs under valgrind: a program of the build tree and its arguments,
# one a line.  Every tests/test_*.c that calls use_mock_driver() belongs
# here or in `excluded` with the reason (checked below); the tools and
# examples run on the mock driver and the mock NVRTC, with two devices.
targets='
tests/test_api
tests/test_args
tests/test_cache
tests/test_cache_deps
tests/test_compile_threads
tests/test_driver_h
tests/test_elementwise
tests/test_errors
tests/test_graph
tests/test_image
tests/test_ipc
tests/test_launch_ex
tests/test_local_rank
tests/test_memory_ext
tests/test_mock_nvrtc
tests/test_mpi_cuda
tests/test_nccl
tests/test_nvml
tests/test_nvrtc
tests/test_sharing
tests/test_status
tests/test_texture
tests/test_threads
tests/test_cxx17
tests/test_link
tests/test_corpus
tools/cudainfo
tools/cudainfo -a --p2p --mem --json
tools/cudainfo --explain
tools/cudainfo -d 1 --require 2
tools/cudainfo --mpi --json
tools/cudyn-saxpy -n 4096 --iters 2
tools/cudyn-saxpy -n 4096 --iters 2 -d all --json
tools/cudyn-cc --cache-info
examples/saxpy
examples/struct_args
examples/in_out
examples/elementwise
examples/texture
examples/multi_gpu
examples/cxx/saxpy
examples/cxx/struct_args
'
excluded=''

for src in "$top_srcdir"/tests/test_*.c; do
    grep -q 'use_mock_driver()' "$src" || continue
    t=tests/$(basename "$src" .c)
    printf '%s\n' "$targets" | grep -qx "$t" || printf '%s\n' "$excluded" | grep -q "^$t: " ||
        { echo "FAIL: $t runs on the mock driver but is not in check-valgrind.sh's list"; fail=1; }
done

vg="$VALGRIND --quiet --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect --show-leak-kinds=definite,indirect"
jobs=${VALGRIND_JOBS:-$(nproc 2>/dev/null || echo 1)}

# run_one N PROGRAM ARGS...: PROGRAM under memcheck, its output in
# $tmp/vg.N.log and its exit code in $tmp/vg.N.rc
run_one() {
    local n=$1 program=$2 real rc
    shift 2
    # libtool keeps the real tools in .libs (the files in tools/ are scripts)
    real=$top_builddir/$program
    [ -x "$top_builddir/${program%/*}/.libs/${program##*/}" ] && real=$top_builddir/${program%/*}/.libs/${program##*/}
    if [ ! -x "$real" ]; then
        echo skipped > "$tmp/vg.$n.rc"
        return
    fi
    case $program in
    # CUDYN_TEST_UNDER_VALGRIND: a test leaves out what leaks inside an NVIDIA
    # library itself (test_link: nvJitLink after a failed link)
    tests/*) env CUDYN_LIBCUDA="$MOCK_LIBCUDA" CUDYN_TEST_UNDER_VALGRIND=1 $vg "$real" "$@" > "$tmp/vg.$n.log" 2>&1 ;;
    *) env LD_LIBRARY_PATH="$top_builddir/lib/.libs" CUDYN_LIBCUDA="$MOCK_LIBCUDA" CUDYN_LIBNVRTC="$MOCK_LIBNVRTC" \
        CUDYN_LIBNCCL="$MOCK_LIBNCCL" \
        CUDYN_CACHE_DIR="$tmp/cache" MOCK_CUDA_DEVICES="A:90,B:80" MOCK_CUDA_MEM_LIMIT=1073741824 \
        $vg "$real" "$@" > "$tmp/vg.$n.log" 2>&1 ;;
    esac
    rc=$?
    echo $rc > "$tmp/vg.$n.rc"
    echo "valgrind: [$n/$total] $program${*:+ $*}: exit $rc"
}

runs=0 failed=0 at=0
total=$(printf '%s\n' "$targets" | grep -c .)
# $jobs programs at a time (VALGRIND_JOBS; the CPUs by default), a line
# per program as it starts and ends (this takes minutes: `tail -f
# tests/check-valgrind.sh.log` follows it during make check); the verdicts
# then in the list's order
echo "valgrind: $total programs to run under memcheck, $jobs at a time"
running=0
while read -r program args; do
    [ -n "$program" ] || continue
    at=$((at + 1))
    if [ $running -ge "$jobs" ]; then
        wait -n
        running=$((running - 1))
    fi
    echo "valgrind: [$at/$total] $program${args:+ $args} ..."
    # shellcheck disable=SC2086 # the arguments are words
    run_one $at "$program" $args &
    running=$((running + 1))
done <<< "$targets"
wait
at=0
while read -r program args; do
    [ -n "$program" ] || continue
    at=$((at + 1))
    rc=$(cat "$tmp/vg.$at.rc" 2>/dev/null || echo lost)
    if [ "$rc" = skipped ]; then
        echo "not built here: $program"
        continue
    fi
    runs=$((runs + 1))
    # 77: a test that skips (no NVRTC, say) ran cleanly as far as it went
    if [ "$rc" = 0 ] || { [ "$rc" = 77 ] && [ "${program#tests/}" != "$program" ]; }; then
        echo "valgrind: $program${args:+ $args}: clean"
    else
        echo "FAIL: $program${args:+ $args} under valgrind exited $rc"
        cat "$tmp/vg.$at.log"
        failed=$((failed + 1))
        fail=1
    fi
done <<< "$targets"
echo "valgrind: $runs runs, $failed failed${excluded:+; not run:}"
printf '%s\n' "$excluded" | sed '/^$/d; s/^/    /'
finish
