#!/bin/bash
# The API tests (every function, fault injection in each driver call), the
# tests of the features of issue 16, the elementwise and reduction kernels'
# and cudainfo run under valgrind: no leaks, no invalid accesses.
. "$top_srcdir/tests/common.sh"
[ -n "${VALGRIND:-}" ] || { echo "SKIP: valgrind not installed"; exit 77; }
vg="$VALGRIND --quiet --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect --show-leak-kinds=definite,indirect"

MOCK_CUDA_DEVICES="NVIDIA H100 80GB HBM3:90,Tesla T4:75,NVIDIA B200:100" CUDYN_LIBCUDA="$MOCK_LIBCUDA" \
    $vg "$top_builddir/tests/test_api" > "$tmp/api.log" 2>&1
rc=$?
[ $rc = 0 ] || { echo "FAIL: test_api under valgrind exited $rc"; cat "$tmp/api.log"; fail=1; }

CUDYN_LIBCUDA="$MOCK_LIBCUDA" $vg "$top_builddir/tests/test_args" > "$tmp/args.log" 2>&1
rc=$?
[ $rc = 0 ] || { echo "FAIL: test_args under valgrind exited $rc"; cat "$tmp/args.log"; fail=1; }

CUDYN_LIBCUDA="$MOCK_LIBCUDA" $vg "$top_builddir/tests/test_elementwise" > "$tmp/elementwise.log" 2>&1
rc=$?
[ $rc = 0 ] || { echo "FAIL: test_elementwise under valgrind exited $rc"; cat "$tmp/elementwise.log"; fail=1; }

CUDYN_LIBCUDA="$MOCK_LIBCUDA" $vg "$top_builddir/tests/test_errors" > "$tmp/errors.log" 2>&1
rc=$?
[ $rc = 0 ] || { echo "FAIL: test_errors under valgrind exited $rc"; cat "$tmp/errors.log"; fail=1; }

# arrays, copies, textures, extended launches, graphs, pools and managed
# memory, each with fault injection in every driver call it makes
for t in test_texture test_launch_ex test_graph test_memory_ext; do
    CUDYN_LIBCUDA="$MOCK_LIBCUDA" $vg "$top_builddir/tests/$t" > "$tmp/$t.log" 2>&1
    rc=$?
    [ $rc = 0 ] || { echo "FAIL: $t under valgrind exited $rc"; cat "$tmp/$t.log"; fail=1; }
done

# cudainfo itself (libtool keeps the real binary in .libs)
real="$top_builddir/tools/.libs/cudainfo"
[ -x "$real" ] || real="$top_builddir/tools/cudainfo"
for args in "" "-a --p2p --json" "--explain"; do
    LD_LIBRARY_PATH="$top_builddir/lib/.libs" CUDYN_LIBCUDA="$MOCK_LIBCUDA" MOCK_CUDA_DEVICES="A:90,B:80" \
        $vg "$real" $args > "$tmp/ci.log" 2>&1
    rc=$?
    [ $rc = 0 ] || { echo "FAIL: cudainfo $args under valgrind exited $rc"; cat "$tmp/ci.log"; fail=1; }
done
finish
