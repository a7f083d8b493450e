#!/bin/bash
# gpu-fallback-checks.sh - the checks of forward compatibility, the
# versions line, the driver's error log and the NVML listing on a real GPU
# (the mock cannot stand in for them).  Run from the build tree after `make check`:
#     top_builddir=$PWD top_srcdir=$PWD MOCK_LIBCUDA=$PWD/tests/mock/.libs/libcuda.so.1 \
#         tests/gpu-fallback-checks.sh
# Exits 77 without a GPU (no driver or no device), 0 when every check
# holds, 1 otherwise; prints each line it checked.
. "$top_srcdir/tests/common.sh"
unset CUDYN_LIBNVRTC
out=$("$probe" info)
if ! printf '%s\n' "$out" | grep -qx 'init_status=CUDYN_OK'; then
    echo "SKIP: no GPU (the driver did not initialise)"
    exit 77
fi
kmod=$(sed -n 's/^NVRM version:.*Kernel Module//p' /proc/driver/nvidia/version 2>/dev/null | grep -oE '[0-9]+\.[0-9]+(\.[0-9]+)?' | head -1)

# 1. The loader: the system driver, of the kernel module's release.
printf '%s\n' "$out" | grep -E '^(driver_path|driver_release|kernel_module_|driver_is_compat|compat_)'
expect_line "$out" "kernel_module_version=$kmod"
expect_line "$out" "kernel_module_file=/proc/driver/nvidia/version"
expect_line "$out" "driver_release=$kmod"
expect_line "$out" "driver_is_compat=0"
# a CUDA compat directory on this machine, put first: what was decided
for compat in /usr/local/cuda/compat /usr/local/cuda-*/compat; do
    [ -e "$compat/libcuda.so.1" ] || continue
    echo "--- LD_LIBRARY_PATH=$compat"
    c=$(LD_LIBRARY_PATH="$compat" "$probe" info)
    printf '%s\n' "$c" | grep -E '^(init_status|driver_path|driver_is_compat|compat_decision|compat_probe_result)='
    expect_line "$c" "init_status=CUDYN_OK"
    expect_match "$c" "^compat_decision=(using|not using) the forward-compatibility libcuda $(readlink -f "$compat/libcuda.so.1")"
    break
done

# 2. cudainfo --explain names every version, none of them unknown.
out=$("$cudainfo" --explain)
line=$(printf '%s\n' "$out" | grep '^  versions: ')
echo "$line"
expect_match "$line" "^  versions: driver CUDA [0-9]+\.[0-9] \(.*libcuda.so.1, release $kmod\), kernel module $kmod \(/proc/driver/nvidia/version\), NVRTC [0-9]+\.[0-9] \(.*libnvrtc.so.[0-9.]+\), builtins .*libnvrtc-builtins.so.[0-9.]+(, headers .*/include \(cuda.h CUDA_VERSION [0-9]+\))?, driver accepts PTX ISA (up to|at least) [0-9]\.[0-9], device sm_[0-9]+"
expect_no_match "$line" "unknown|not loaded"   # a "; skew:" here is a finding about this machine
json=$("$cudainfo" --json | /usr/bin/python3 -c 'import json, sys; d = json.load(sys.stdin); print(d["versions"]); print(d["loader"]["driver"]["compat"])')
echo "$json"
expect_match "$json" "^versions: driver CUDA"

# 3. Errors carry the driver's own log (a 12.9+ driver) and, for a PTX of
#    a too-new ISA (its .version edited), every version.
driver=$("$probe" info | sed -n 's/^driver_version=//p')
out=$("$probe" launch-block=2048)
printf '%s\n' "$out" | grep '^launch_block'
expect_match "$out" "^launch_block=CUDYN_ERROR_"
[ "$driver" -ge 12090 ] && expect_match "$out" "^launch_block.message=.*; driver log: [^;]+"
printf '.version 9.9\n.target sm_52\n.address_size 64\n.visible .entry k()\n{\n\tret;\n}\n' > "$tmp/new.ptx"
out=$("$probe" load-ptx="$tmp/new.ptx")
printf '%s\n' "$out" | grep '^load_ptx'
expect_line "$out" "load_ptx=CUDYN_ERROR_UNSUPPORTED_PTX"
expect_match "$out" "^load_ptx.message=.*\(222\).*versions: driver CUDA .*kernel module $kmod .*PTX ISA 9.9 emitted, driver accepts PTX ISA .*, device sm_[0-9]+; skew: the PTX is ISA 9.9"
[ "$driver" -ge 12090 ] && expect_match "$out" "^load_ptx.message=.*; driver log: "
out=$(CUDYN_DRIVER_LOG=0 "$probe" launch-block=2048)
expect_no_match "$out" "driver log:"

# 4. The .note.dlopen metadata, as readelf shows it (binutils 2.41+ decode
#    it as FDO_DLOPEN_METADATA; older ones show the type 0x407c0c0a).
out=$(readelf -n "$top_builddir/lib/.libs/libcudyn.so.1" | grep -A1 -i 'FDO')
echo "$out"
expect_match "$out" "FDO +0x[0-9a-f]+.*(FDO_DLOPEN_METADATA|0x407c0c0a)"

# 5. cudainfo --nvml (NVML, without cuInit) agrees with the CUDA listing:
#    every CUDA device has the NVML GPU (or MIG instance) of its UUID, at
#    the same PCI bus id; with CUDA_VISIBLE_DEVICES unset and no GPU in MIG
#    mode the two sets are the same and nothing "differs".
json=$(env -u CUDA_VISIBLE_DEVICES "$cudainfo" --json --nvml)
echo "cudainfo --json --nvml exited $?"
out=$(printf '%s' "$json" | /usr/bin/python3 -c '
import json, sys
d = json.load(sys.stdin)
n = d["nvml"]
print("nvml_available=%s" % n["available"])
print("nvml_error=%s" % n["error"])
print("nvml_gpus=%d cuda_devices=%d" % (len(n["gpus"]), len(d["devices"])))
mig = any(g["mig_mode"] == "enabled" for g in n["gpus"])
print("mig=%s" % mig)
body = lambda u: u[4:].lower()
by_uuid = {}
for g in n["gpus"]:
    by_uuid[body(g["uuid"])] = (g, g["cuda_ordinal"])
    for m in g["mig_instances"]:
        by_uuid[body(m["uuid"])] = (g, m["cuda_ordinal"])
for dev in d["devices"]:
    g, ordinal = by_uuid.get(body(dev["uuid"]), (None, None))
    if g is None:
        print("device %d %s: NOT IN NVML" % (dev["ordinal"], dev["uuid"]))
        continue
    bus = lambda b: [int(x, 16) for x in b.replace(".", ":").split(":")]  # domain, bus, device, function
    same_bus = bus(dev["pci_bus_id"]) == bus(g["pci_bus_id"])
    print("device %d %s %s: nvml %d %s %s ordinal=%s bus=%s" % (dev["ordinal"], dev["uuid"], dev["pci_bus_id"],
          g["index"], g["uuid"], g["pci_bus_id"], ordinal, "same" if same_bus else "DIFFERENT"))
print("differs=%s" % n["differs"])
')
printf '%s\n' "$out"
expect_line "$out" "nvml_available=True"
expect_no_match "$out" "NOT IN NVML|DIFFERENT"
expect_match "$out" "^device 0 .* ordinal=0 bus=same$"
if printf '%s\n' "$out" | grep -qx 'mig=False'; then
    expect_match "$out" "^nvml_gpus=([0-9]+) cuda_devices=\1$"
    expect_line "$out" "differs=None"
fi
# and with one GPU hidden from CUDA, NVML still sees it and says why
if [ "$(printf '%s\n' "$out" | grep -c '^device ')" -ge 2 ]; then
    out=$(CUDA_VISIBLE_DEVICES=1 "$cudainfo" --nvml)
    printf '%s\n' "$out" | sed -n '/^NVML: /,$p'
    expect_match "$out" "^  NVML and CUDA differ: [0-9]+ GPUs? NVML sees (is|are) not visible to CUDA \(CUDA_VISIBLE_DEVICES=1\)"
    expect_match "$out" "CUDA ordinal: 0$"
fi

finish
