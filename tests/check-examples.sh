#!/bin/bash
# The examples run end to end: against the mock driver, which runs their
# kernels on the host (elementwise's through tests/mock/mock_elementwise.c),
# and on a real GPU when the machine has one.  Kernels
# are compiled by the real NVRTC when it is installed, else by the mock
# NVRTC (which cannot compile C++ templates: template_kernel then waits for
# a real NVRTC).  The C++ ones (examples/cxx, cudyn.hpp) too.  mpi_saxpy has
# its own test, check-mpi.sh.  dynamic_parallelism runs on a GPU only (the
# mock cannot run a kernel that launches kernels).
. "$top_srcdir/tests/common.sh"
examples="$top_builddir/examples"

nvrtc=$(CUDYN_LIBCUDA="$MOCK_LIBCUDA" "$probe" info | sed -n 's/^nvrtc_status=//p')
if [ "$nvrtc" = CUDYN_OK ]; then
    nvrtc_env=()
    echo "kernels compiled by the real NVRTC"
else
    nvrtc_env=(CUDYN_LIBNVRTC="$MOCK_LIBNVRTC")
    echo "no NVRTC here: kernels compiled by the mock NVRTC"
fi

# on_mock EXAMPLE [VAR=VALUE ...]: runs it on the mock driver with those
# settings (output in $out); it must exit 0 and end with PASS.
on_mock() {
    local ex=$1 rc
    shift
    out=$(env CUDYN_LIBCUDA="$MOCK_LIBCUDA" MOCK_CUDA_MEM_LIMIT=1073741824 "${nvrtc_env[@]}" "$@" "$examples/$ex" 2>&1)
    rc=$?
    echo "mock ($*): examples/$ex:"
    printf '%s\n' "$out" | sed 's/^/    | /'
    [ $rc = 0 ] || { echo "FAIL: examples/$ex on the mock ($*) exited $rc"; fail=1; }
    expect_match "$out" "PASS$"
}

on_mock saxpy
on_mock struct_args
on_mock in_out
on_mock elementwise
[ ${#nvrtc_env[@]} = 0 ] && on_mock template_kernel
on_mock texture
# the C++ examples (cudyn.hpp); struct_args.cc's deliberate mistake is
# refused before launching, the mock describing the kernel's parameters
on_mock cxx/saxpy
on_mock cxx/struct_args
expect_match "$out" "^caught before launching: .*testkernel: parameter 3 is 4 bytes, argument 3 \('d', double\) is 8"
on_mock cxx/stream_pipeline
expect_match "$out" "^1048576 floats in 8 chunks on 2 streams"
# two processes: the mock's device memory is a memfd the second maps
on_mock ipc_share
# texture through the mock NVRTC too, so it runs where the toolkit is not
# installed: the mock samples its texture on the host
out=$(CUDYN_CACHE=0 CUDYN_LIBNVRTC="$MOCK_LIBNVRTC" CUDYN_LIBCUDA="$MOCK_LIBCUDA" "$examples/texture" 2>&1)
rc=$?
[ $rc = 0 ] || { echo "FAIL: examples/texture on the mock driver and mock NVRTC exited $rc: $out"; fail=1; }
expect_match "$out" "PASS$"

# one thread per GPU: one device, then two and three with and without peers
# (MOCK_CUDA_P2P lists FROM-TO pairs; the gather needs device d -> device 0)
on_mock multi_gpu
expect_match "$out" "on 1 device$"
expect_no_match "$out" "^device 1"
on_mock multi_gpu MOCK_CUDA_DEVICES="A:90,B:90"
expect_line "$out" "device 1 -> device 0: peer access"
on_mock multi_gpu MOCK_CUDA_DEVICES="A:90,B:90" MOCK_CUDA_P2P=none
expect_line "$out" "device 1 -> device 0: through the host"
on_mock multi_gpu MOCK_CUDA_DEVICES="A:90,B:90,C:80" MOCK_CUDA_P2P="0-1,1-0"
expect_line "$out" "device 1 -> device 0: peer access"
expect_line "$out" "device 2 -> device 0: through the host"
on_mock multi_gpu MOCK_CUDA_DEVICES="A:90,B:90,C:80" MOCK_CUDA_P2P="2-0,0-2"
expect_line "$out" "device 1 -> device 0: through the host"
expect_line "$out" "device 2 -> device 0: peer access"

# more than 48 KiB of dynamic shared memory: raised through the driver's
# own call, and runs (the mock enforces the 48 KiB default and honours
# cuFuncSetAttribute)
on_mock big_shared
expect_match "$out" "^block_sum with [0-9]+ bytes of dynamic shared memory: PASS"

# raw driver calls through cudyn (built with CUDA headers only), and no
# CUDA library among what it links
if [ -n "$CUDA_INCLUDE_DIR" ]; then
    on_mock raw_driver
    needed=$(readelf -d "$examples/raw_driver" | grep '(NEEDED)')
    expect_match "$needed" 'libcudyn\.so'
    expect_no_match "$needed" 'libcuda\.so|libcudart|libnvrtc'
fi

if have_real_driver && env -u LD_LIBRARY_PATH "$probe" count | grep -q '^count.devices=[1-9]'; then
    gpu_examples="saxpy struct_args template_kernel in_out elementwise multi_gpu big_shared texture ipc_share"
    gpu_examples="$gpu_examples dynamic_parallelism"
    gpu_examples="$gpu_examples cxx/saxpy cxx/struct_args cxx/stream_pipeline"
    [ -n "$CUDA_INCLUDE_DIR" ] && gpu_examples="$gpu_examples raw_driver"
    for ex in $gpu_examples; do
        out=$(env -u LD_LIBRARY_PATH "$examples/$ex" 2>&1)
        rc=$?
        echo "GPU: examples/$ex:"
        printf '%s\n' "$out" | sed 's/^/    | /'
        # big_shared on a GPU with no more than 96 KiB per block; dynamic_parallelism without libcudadevrt.a
        [ $rc = 77 ] && continue
        [ $rc = 0 ] || { echo "FAIL: examples/$ex on the GPU exited $rc"; fail=1; }
    done
fi
finish
