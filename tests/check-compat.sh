#!/bin/bash
# Forward-compatibility libcuda (CUDYN_COMPAT): which library is chosen
# against the kernel module's version, the fallback to the system driver
# when the compat library cannot work (803/804), and the messages that
# name both libraries and the kernel module.  The kernel module is faked
# through the test-only CUDYN_TEST_KMOD_VERSION_FILE; a copy of the mock
# in a directory named compat answers cuInit with MOCK_CUDA_COMPAT_INIT.
. "$top_srcdir/tests/common.sh"
unset CUDYN_COMPAT MOCK_CUDA_COMPAT_INIT

# install DIR RELEASE: the mock as DIR/libcuda.so.RELEASE, libcuda.so.1 -> it
install() {
    mkdir -p "$1"
    cp "$MOCK_LIBCUDA" "$1/libcuda.so.$2"
    ln -sf "libcuda.so.$2" "$1/libcuda.so.1"
}
install "$tmp/cuda-13.0/compat" 580.65.06
install "$tmp/system" 550.54.14
install "$tmp/system-580" 580.65.06
printf 'NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.54.14  Thu Feb 22 01:44:30 UTC 2024\nGCC version:  gcc version 12.2.0\n' \
    > "$tmp/kmod-550"
printf '580.65.06\n' > "$tmp/kmod-580"   # the /sys/module/nvidia/version form
export CUDYN_TEST_KMOD_VERSION_FILE="$tmp/kmod-550"
compat="$tmp/cuda-13.0/compat/libcuda.so.580.65.06"
both="$tmp/cuda-13.0/compat:$tmp/system"

# 1. A compat library newer than the kernel module that works is used.
out=$(LD_LIBRARY_PATH="$both" "$probe" info)
expect_line "$out" "init_status=CUDYN_OK"
expect_line "$out" "driver_path=$tmp/cuda-13.0/compat/libcuda.so.1"
expect_line "$out" "driver_is_compat=1"
expect_line "$out" "driver_release=580.65.06"
expect_line "$out" "kernel_module_version=550.54.14"
expect_line "$out" "kernel_module_file=$tmp/kmod-550"
expect_line "$out" "compat_policy=auto"
expect_line "$out" "compat_path=$compat"
expect_line "$out" "compat_probe_result=0"
expect_match "$out" "^compat_decision=using the forward-compatibility libcuda $compat \(release 580.65.06\) on kernel module 550.54.14"

# 2. It fails to initialise (803, 804): the decision is made in a child
#    process, and this process ends on the system driver of the kernel
#    module, never binding the compat copy.
for code in 803 804; do
    out=$(MOCK_CUDA_COMPAT_INIT=$code LD_LIBRARY_PATH="$both" "$probe" info)
    expect_line "$out" "init_status=CUDYN_OK"
    expect_line "$out" "driver_path=$tmp/system/libcuda.so.1"
    expect_line "$out" "driver_is_compat=0"
    expect_line "$out" "driver_release=550.54.14"
    expect_line "$out" "compat_path=$compat"
    expect_line "$out" "compat_probe_result=$code"
    expect_match "$out" "compat: cuInit\(0\) of $compat in a child process: $code"
    expect_match "$out" "^compat_decision=not using the forward-compatibility libcuda $compat \(release 580.65.06\): its cuInit answered CUDA_ERROR_[A-Z_]+ \($code\) in a child process; using the system driver .*/system/libcuda.so.550.54.14 \(release 550.54.14\), kernel module 550.54.14 \($tmp/kmod-550\)"
done

# 3. A compat library not newer than the kernel module is never tried; a
#    system driver of another release than the kernel module is skipped.
out=$(CUDYN_TEST_KMOD_VERSION_FILE="$tmp/kmod-580" LD_LIBRARY_PATH="$tmp/cuda-13.0/compat:$tmp/system:$tmp/system-580" \
    "$probe" info)
expect_line "$out" "kernel_module_version=580.65.06"
expect_line "$out" "driver_path=$tmp/system-580/libcuda.so.1"
expect_line "$out" "compat_probe_result=0"
expect_match "$out" "^compat_decision=not using .*: release 580.65.06 is not newer than the kernel module 580.65.06"
expect_match "$out" "system/libcuda.so.550.54.14: skipped: release 550.54.14 does not match the kernel module 580.65.06"
expect_no_match "$out" "in a child process"

# 4. No system driver to fall back to: the error names the compat library,
#    why it cannot work, and the kernel module's version and file.
out=$(MOCK_CUDA_COMPAT_INIT=804 LD_LIBRARY_PATH="$tmp/cuda-13.0/compat" "$probe" info)
expect_line "$out" "driver_status=CUDYN_ERROR_INIT_FAILED"
expect_match "$out" "^load.message=the forward-compatibility libcuda $compat \(release 580.65.06\) cannot work: its cuInit answered CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE \(804\) in a child process; and no system libcuda matching the kernel module 550.54.14 \($tmp/kmod-550\) was found"
expect_match "$out" "hint: install the user-space driver that matches the kernel module"

# 5. CUDYN_COMPAT=never: the system driver, though the compat one works.
out=$(CUDYN_COMPAT=never LD_LIBRARY_PATH="$both" "$probe" info)
expect_line "$out" "driver_path=$tmp/system/libcuda.so.1"
expect_line "$out" "compat_policy=never"
expect_match "$out" "^compat_decision=not using .*: CUDYN_COMPAT=never; using the system driver"

# 6. CUDYN_COMPAT=require: fails, naming both, where the compat library
#    cannot work, and where the driver found is not a compat library.
out=$(CUDYN_COMPAT=require MOCK_CUDA_COMPAT_INIT=803 LD_LIBRARY_PATH="$both" "$probe" info)
expect_line "$out" "driver_status=CUDYN_ERROR_INIT_FAILED"
expect_match "$out" "^load.message=CUDYN_COMPAT=require, but the forward-compatibility libcuda $compat \(release 580.65.06\) cannot work with the kernel module 550.54.14 \($tmp/kmod-550\): its cuInit answered CUDA_ERROR_SYSTEM_DRIVER_MISMATCH \(803\)"
out=$(CUDYN_COMPAT=require LD_LIBRARY_PATH="$tmp/system" "$probe" info)
expect_line "$out" "driver_status=CUDYN_ERROR_DRIVER_NOT_FOUND"
expect_match "$out" "^load.message=CUDYN_COMPAT=require, but the libcuda found, .*/system/libcuda.so.550.54.14 \(release 550.54.14\), is not a forward-compatibility library \(kernel module 550.54.14"
out=$(CUDYN_COMPAT=require LD_LIBRARY_PATH="$both" "$probe" info)
expect_line "$out" "driver_is_compat=1"

# 7. A bad CUDYN_COMPAT is refused with the values it takes.
out=$(CUDYN_COMPAT=sometimes LD_LIBRARY_PATH="$both" "$probe" info)
expect_line "$out" "driver_status=CUDYN_ERROR_INVALID_ARGUMENT"
expect_match "$out" "^load.message=CUDYN_COMPAT='sometimes' is not valid; hint: set CUDYN_COMPAT to auto \(the default\), never or require"

# 8. CUDYN_LIBCUDA naming a compat library that cannot work: an error, no
#    fall-through (the override rule).
out=$(MOCK_CUDA_COMPAT_INIT=803 CUDYN_LIBCUDA="$tmp/cuda-13.0/compat" LD_LIBRARY_PATH="$tmp/system" "$probe" info)
expect_line "$out" "driver_status=CUDYN_ERROR_INIT_FAILED"
expect_match "$out" "^load.message=CUDYN_LIBCUDA names the forward-compatibility libcuda $compat"

# 9. Kernel module unknown (no version file): a library in a compat
#    directory is still recognised, and the child's cuInit decides.
out=$(CUDYN_TEST_KMOD_VERSION_FILE=/nonexistent MOCK_CUDA_COMPAT_INIT=804 LD_LIBRARY_PATH="$both" "$probe" info)
expect_line "$out" "kernel_module_version="
expect_line "$out" "driver_path=$tmp/system/libcuda.so.1"
expect_match "$out" "kernel module unknown \(no version file\)"

# 10. A driver that is not a compat library costs nothing: no child.
out=$(LD_LIBRARY_PATH="$tmp/system" "$probe" info)
expect_line "$out" "driver_is_compat=0"
expect_line "$out" "compat_decision="
expect_no_match "$out" "child process"

# 11. A fault in the child's cuInit other than 803/804 says nothing about
#     compatibility: the compat library stays, and this process's own cuInit
#     reports the failure.
out=$(MOCK_CUDA_FAIL=cuInit:1:999 LD_LIBRARY_PATH="$both" "$probe" info)
expect_line "$out" "compat_probe_result=999"
expect_line "$out" "driver_is_compat=1"
expect_line "$out" "init_status=CUDYN_ERROR_INIT_FAILED"

# 12. cudainfo: --explain says the decision, --json carries it.
out=$(MOCK_CUDA_COMPAT_INIT=803 LD_LIBRARY_PATH="$both" "$cudainfo" --explain 2>&1)
expect_match "$out" "^  forward compatibility \(CUDYN_COMPAT=auto\): not using the forward-compatibility libcuda $compat \(release 580.65.06\): its cuInit answered CUDA_ERROR_SYSTEM_DRIVER_MISMATCH \(803\)"
out=$(LD_LIBRARY_PATH="$tmp/system" "$cudainfo" --explain 2>&1)
expect_match "$out" "^  forward compatibility \(CUDYN_COMPAT=auto\): no forward-compatibility libcuda was found"
out=$(MOCK_CUDA_COMPAT_INIT=804 LD_LIBRARY_PATH="$both" "$cudainfo" --json)
doc=$(printf '%s' "$out" | /usr/bin/python3 -c '
import json, sys
c = json.load(sys.stdin)["loader"]["driver"]["compat"]
print("policy=%s is_compat=%s release=%s probe=%s" % (c["policy"], c["driver_is_compat"], c["driver_release"], c["probe_result"]))
print("path=%s" % c["compat_path"])
print("decision=%s" % c["decision"])')
expect_line "$doc" "policy=auto is_compat=False release=550.54.14 probe=804"
expect_line "$doc" "path=$compat"
expect_match "$doc" "^decision=not using the forward-compatibility libcuda"

# 13. A compat library that cannot work and nothing else allowed
#     (CUDYN_COMPAT=require, or CUDYN_LIBCUDA naming it): --explain says what
#     was found and why it was not used, never that none was found.  The
#     set-up of a real machine: compat 580.95.05, kernel module 580.159.04.
install "$tmp/cuda-13.1/compat" 580.95.05
printf 'NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.159.04  Tue Nov  4 10:00:00 UTC 2025\n' > "$tmp/kmod-580.159"
old_compat="$tmp/cuda-13.1/compat/libcuda.so.580.95.05"
not_newer="release 580.95.05 is not newer than the kernel module 580.159.04"
for setup in "CUDYN_COMPAT=require LD_LIBRARY_PATH=$tmp/cuda-13.1/compat:$tmp/system" \
    "CUDYN_LIBCUDA=$tmp/cuda-13.1/compat LD_LIBRARY_PATH=$tmp/system"; do
    out=$(env CUDYN_TEST_KMOD_VERSION_FILE="$tmp/kmod-580.159" $setup "$cudainfo" --explain 2>&1)
    expect_match "$out" "driver not usable: .*forward-compatibility libcuda $old_compat \(release 580.95.05\)"
    expect_match "$out" "^  forward compatibility \(CUDYN_COMPAT=[a-z]+\): not using the forward-compatibility libcuda $old_compat \(release 580.95.05\): $not_newer"
    expect_no_match "$out" "no forward-compatibility libcuda was found"
done
expect_match "$out" "; CUDYN_LIBCUDA names it, so no other libcuda is tried"
out=$(CUDYN_COMPAT=require MOCK_CUDA_COMPAT_INIT=803 LD_LIBRARY_PATH="$both" "$probe" info)
expect_match "$out" "^compat_decision=not using the forward-compatibility libcuda $compat \(release 580.65.06\): its cuInit answered CUDA_ERROR_SYSTEM_DRIVER_MISMATCH \(803\) in a child process; CUDYN_COMPAT=require allows no other libcuda$"
out=$(MOCK_CUDA_COMPAT_INIT=804 LD_LIBRARY_PATH="$tmp/cuda-13.0/compat" "$probe" info)
expect_match "$out" "^compat_decision=not using .*; and no system libcuda matching the kernel module 550.54.14 \($tmp/kmod-550\) was found$"

finish
