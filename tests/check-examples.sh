#!/bin/bash
# The examples run end to end: against the mock driver (which runs their
# kernels on the host, elementwise's through tests/mock/mock_elementwise.c)
# when NVRTC is installed, and on a real GPU when the machine has one
# (template_kernel and in_out only there: the mock cannot run their kernels).
. "$top_srcdir/tests/common.sh"
ran=0
nvrtc=$(CUDYN_LIBCUDA="$MOCK_LIBCUDA" "$probe" info | sed -n 's/^nvrtc_status=//p')
if [ "$nvrtc" = CUDYN_OK ]; then
    for ex in saxpy struct_args elementwise; do
        out=$(CUDYN_LIBCUDA="$MOCK_LIBCUDA" MOCK_CUDA_MEM_LIMIT=1073741824 "$top_builddir/examples/$ex" 2>&1)
        rc=$?
        [ $rc = 0 ] || { echo "FAIL: examples/$ex on the mock exited $rc: $out"; fail=1; }
        expect_match "$out" "PASS$"
        ran=1
    done
fi
if have_real_driver && env -u LD_LIBRARY_PATH "$probe" count | grep -q '^count.devices=[1-9]'; then
    for ex in saxpy struct_args template_kernel in_out elementwise; do
        out=$(env -u LD_LIBRARY_PATH "$top_builddir/examples/$ex" 2>&1)
        rc=$?
        echo "GPU: examples/$ex: $out"
        [ $rc = 0 ] || { echo "FAIL: examples/$ex on the GPU exited $rc"; fail=1; }
        ran=1
    done
fi
[ $ran = 1 ] || { echo "SKIP: no NVRTC and no GPU"; exit 77; }
finish
