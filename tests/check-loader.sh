#!/bin/bash
# The libcuda search: overrides, stubs, already-loaded copies, no driver,
# old drivers, the trace and CUDYN_DEBUG.
. "$top_srcdir/tests/common.sh"

# 1. An override that is not usable is an error naming it: no fall-through,
#    even though a usable driver sits on the library path.
out=$(LD_LIBRARY_PATH="$MOCK_DIR" CUDYN_LIBCUDA=/nonexistent/libcuda.so.1 "$probe" info)
expect_line "$out" "driver_status=CUDYN_ERROR_DRIVER_NOT_FOUND"
expect_match "$out" "load.message=CUDYN_LIBCUDA=/nonexistent/libcuda.so.1 is not usable"

# 2. An override may name a directory.
out=$(CUDYN_LIBCUDA="$MOCK_DIR" "$probe" info)
expect_line "$out" "driver_status=CUDYN_OK"
expect_line "$out" "driver_found_by=CUDYN_LIBCUDA"
expect_line "$out" "driver_version=13000"

# 3. A stub under /stubs/ found first is skipped with a message; the real
#    driver later on LD_LIBRARY_PATH is used.
mkdir -p "$tmp/cuda/lib64/stubs" "$tmp/driver"
cp "$MOCK_LIBCUDA" "$tmp/cuda/lib64/stubs/libcuda.so.1"
cp "$MOCK_LIBCUDA" "$tmp/driver/libcuda.so.1"
out=$(LD_LIBRARY_PATH="$tmp/cuda/lib64/stubs:$tmp/driver" "$probe" info)
expect_line "$out" "driver_status=CUDYN_OK"
expect_line "$out" "driver_path=$tmp/driver/libcuda.so.1"
expect_match "$out" "rejected: .*/stubs/libcuda.so.1 is the CUDA toolkit's stub library, not a driver"

# 4. A stub recognised by its answer (CUDA_ERROR_STUB_LIBRARY) likewise.
mkdir -p "$tmp/fake"
cp "$MOCK_LIBCUDA" "$tmp/fake/libcuda.so.1"
out=$(MOCK_CUDA_STUB=/fake/ LD_LIBRARY_PATH="$tmp/fake:$tmp/driver" "$probe" info)
expect_line "$out" "driver_status=CUDYN_OK"
expect_line "$out" "driver_path=$tmp/driver/libcuda.so.1"
expect_match "$out" "answers CUDA_ERROR_STUB_LIBRARY \(34\)"

# 5. Only a stub anywhere: CUDYN_ERROR_STUB_DRIVER with a fix in the message.
if ! have_real_driver; then
    out=$(LD_LIBRARY_PATH="$tmp/cuda/lib64/stubs" "$probe" info)
    expect_line "$out" "driver_status=CUDYN_ERROR_STUB_DRIVER"
    expect_match "$out" "load.message=.*remove the toolkit's lib64/stubs directory from LD_LIBRARY_PATH"
fi
out=$(MOCK_CUDA_STUB=1 CUDYN_LIBCUDA="$MOCK_LIBCUDA" "$probe" info)
expect_line "$out" "driver_status=CUDYN_ERROR_STUB_DRIVER"

# 6. A copy already loaded in the process wins over the search.
mkdir -p "$tmp/loaded"
cp "$MOCK_LIBCUDA" "$tmp/loaded/libcuda.so.1"
out=$(LD_LIBRARY_PATH="$tmp/driver" "$probe" "preload=$tmp/loaded/libcuda.so.1" info)
expect_line "$out" "driver_found_by=already loaded"
expect_line "$out" "driver_path=$tmp/loaded/libcuda.so.1"

# 7. By soname from the loader's path.
out=$(LD_LIBRARY_PATH="$tmp/driver" "$probe" info)
expect_line "$out" "driver_found_by=soname"

# 8. Nothing found: driver-not-found, and the trace lists every place tried.
if ! have_real_driver; then
    out=$(env -u LD_LIBRARY_PATH "$probe" info)
    expect_line "$out" "driver_status=CUDYN_ERROR_DRIVER_NOT_FOUND"
    expect_match "$out" "^libcuda.so.1 \[already loaded\]"
    expect_match "$out" "^libcuda.so.1 \[soname\]"
    expect_match "$out" "^/usr/lib/wsl/lib/libcuda.so.1 \[wsl\]"
    expect_match "$out" "^/usr/lib64/libcuda.so.1 \[system dir\]"
    expect_match "$out" "^libcuda.so \[unversioned\]"
    expect_match "$out" "load.message=.*install the NVIDIA driver"
    # cudainfo exits 3 with a hint
    expect_exit 3 env -u LD_LIBRARY_PATH "$cudainfo"
    expect_match "$out" "hint"
fi

# 9. An old driver is refused with what it supports and what is needed.
out=$(MOCK_CUDA_VERSION=10020 CUDYN_LIBCUDA="$MOCK_LIBCUDA" "$probe" info)
expect_line "$out" "driver_status=CUDYN_ERROR_DRIVER_TOO_OLD"
expect_match "$out" "supports CUDA 10.2; cudyn needs CUDA 11.0 or newer"

# 10. CUDYN_DEBUG=1 prints the trace on stderr; otherwise nothing is printed.
err=$(CUDYN_DEBUG=1 CUDYN_LIBCUDA="$MOCK_LIBCUDA" "$probe" count 2>&1 >/dev/null)
expect_match "$err" "^cudyn: .*libcuda.so.1 \[CUDYN_LIBCUDA\]: using"
expect_match "$err" "^cudyn: cuInit\(0\): ok"
err=$(CUDYN_LIBCUDA="$MOCK_LIBCUDA" "$probe" count 2>&1 >/dev/null)
[ -z "$err" ] || { echo "FAIL: cudyn printed without CUDYN_DEBUG: $err"; fail=1; }

# 11. CUDYN_PTDS must be exactly 0 or 1.
out=$(CUDYN_PTDS=yes CUDYN_LIBCUDA="$MOCK_LIBCUDA" "$probe" count)
expect_line "$out" "count=CUDYN_ERROR_INVALID_ARGUMENT"
expect_match "$out" "CUDYN_PTDS='yes' is not valid"

# 12. No device: a count of zero is not an error; initialising is.
out=$(MOCK_CUDA_DEVICES=none CUDYN_LIBCUDA="$MOCK_LIBCUDA" "$probe" count init=0)
expect_line "$out" "count=CUDYN_OK"
expect_line "$out" "count.devices=0"
expect_line "$out" "init=CUDYN_ERROR_NO_DEVICE"
expect_match "$out" "init.message=.*CUDA_VISIBLE_DEVICES"

# 13. cudyn_init flags that conflict with an earlier initialisation.
out=$(CUDYN_LIBCUDA="$MOCK_LIBCUDA" "$probe" count init=2)
expect_line "$out" "init=CUDYN_ERROR_ALREADY_INITIALIZED"
out=$(CUDYN_LIBCUDA="$MOCK_LIBCUDA" "$probe" init=2 info)
expect_line "$out" "init=CUDYN_OK"
expect_line "$out" "per_thread_stream=1"

finish
