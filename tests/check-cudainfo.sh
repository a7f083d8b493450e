#!/bin/bash
# cudainfo: every exit code with its hint, device selection by ordinal,
# UUID and PCI id, and --json valid on every path with the expected keys.
. "$top_srcdir/tests/common.sh"

if command -v jq >/dev/null; then
    json_ok() { printf '%s\n' "$1" | jq -e . >/dev/null 2>&1; }
    json_get() { printf '%s\n' "$1" | jq -r "$2"; }
elif command -v python3 >/dev/null; then
    json_ok() { printf '%s\n' "$1" | python3 -m json.tool >/dev/null 2>&1; }
    json_get() {
        printf '%s\n' "$1" | python3 -c 'import json,sys
v=json.load(sys.stdin)
for k in sys.argv[1].strip(".").replace("[",".").replace("]","").split("."):
    v = v[int(k)] if isinstance(v, list) else v.get(k)
print("null" if v is None else str(v).lower() if isinstance(v, bool) else v)' "$2"
    }
else
    echo "SKIP: neither jq nor python3 to check JSON"
    exit 77
fi

# run_json CODE [cudainfo args]: --json output must be valid JSON with the
# schema, a loader block and result.exit_code equal to the exit code.
run_json() {
    want=$1
    shift
    json=$("$cudainfo" --json "$@" 2>/dev/null)
    got=$?
    [ "$got" = "$want" ] || { echo "FAIL: cudainfo --json $* exited $got, expected $want"; fail=1; }
    if ! json_ok "$json"; then
        echo "FAIL: cudainfo --json $* wrote invalid JSON:"
        printf '%s\n' "$json" | sed 's/^/    | /'
        fail=1
        return
    fi
    [ "$(json_get "$json" .schema)" = "cudainfo/1" ] || { echo "FAIL: schema field missing"; fail=1; }
    [ "$(json_get "$json" .result.exit_code)" = "$want" ] || { echo "FAIL: result.exit_code != $want"; fail=1; }
    json_get "$json" .loader.driver.status >/dev/null || fail=1
}

export CUDYN_LIBCUDA="$MOCK_LIBCUDA"
export MOCK_CUDA_DEVICES="NVIDIA H100 80GB HBM3:90,Tesla T4:75"

# 0: devices listed under a header naming the driver
expect_exit 0 "$cudainfo"
expect_match "$out" "^Driver:  CUDA 13\.0, .*libcuda\.so\.1 \[CUDYN_LIBCUDA; cuGetProcAddress_v2"
expect_match "$out" "^NVRTC:   "
expect_match "$out" "^  0  NVIDIA H100 80GB HBM3  sm_90  0\.2 GiB  4 SMs  00000000:17:00\.0  GPU-10111213"
expect_match "$out" "^  1  Tesla T4  sm_75"
run_json 0
expect_line "$(json_get "$json" '.devices[1].name')" "Tesla T4"
expect_line "$(json_get "$json" '.devices[0].total_memory_bytes')" "268435456"
expect_line "$(json_get "$json" '.devices[0].free_memory_bytes')" "null"
expect_line "$(json_get "$json" '.loader.driver.version')" "13000"

# -a lists the driver's attributes by name; --prop filters; --mem adds free memory
expect_exit 0 "$cudainfo" -a -d 0
expect_match "$out" "^      multiprocessor_count +4$"
expect_match "$out" "^      compute_capability_major +9$"
expect_exit 0 "$cudainfo" --prop warp_size
expect_match "$out" "^      warp_size +32$"
expect_no_match "$out" "multiprocessor_count"
run_json 0 --prop warp_size --mem
expect_line "$(json_get "$json" '.devices[0].attributes.warp_size')" "32"
expect_line "$(json_get "$json" '.devices[0].free_memory_bytes')" "268435456"
expect_exit 0 "$cudainfo" --p2p
expect_match "$out" "^ +0 +- +yes$"
run_json 0 --p2p --explain -a

# selection by ordinal, UUID (full or prefix, with or without GPU-) and PCI id
for sel in 1 GPU-20212223-2425-2627-2829-2a2b2c2d2e2f GPU-2021 20212223-24 00000000:18:00.0 0000:18:00.0 18:00.0; do
    expect_exit 0 "$cudainfo" -d "$sel"
    expect_match "$out" "^  1  Tesla T4"
    expect_no_match "$out" "H100"
done
# 6: not found, and an ambiguous UUID prefix
expect_exit 6 "$cudainfo" -d 7
expect_match "$out" "device '7' not found"
expect_exit 6 "$cudainfo" -d GPU-
expect_match "$out" "ambiguous"
run_json 6 -d GPU-ffff
# defect 15: digits are an ordinal and nothing else: with two devices "2"
# is out of range (device 1's UUID starts with 2), and "2021" too
expect_exit 6 "$cudainfo" -d 2
expect_match "$out" "device '2' not found"
expect_no_match "$out" "Tesla T4"
run_json 6 -d 2
expect_exit 6 "$cudainfo" -d 2021

# 2: usage
expect_exit 2 "$cudainfo" --no-such-option
expect_match "$out" "Usage: cudainfo"
expect_exit 2 "$cudainfo" --require many
expect_exit 2 "$cudainfo" stray-argument
run_json 2 --bogus
expect_exit 0 "$cudainfo" --help
expect_exit 0 "$cudainfo" --version
expect_match "$out" "^cudainfo \(cudyn\) [0-9]"

# 3: no driver library, a stub, and an old driver
CUDYN_LIBCUDA=/nonexistent/libcuda.so.1 expect_exit 3 "$cudainfo"
expect_match "$out" "CUDYN_LIBCUDA=/nonexistent/libcuda.so.1 is not usable"
CUDYN_LIBCUDA=/nonexistent/libcuda.so.1 run_json 3
MOCK_CUDA_STUB=1 expect_exit 3 "$cudainfo"
expect_match "$out" "hint: .*stub"
MOCK_CUDA_STUB=1 run_json 3
MOCK_CUDA_VERSION=10010 expect_exit 3 "$cudainfo"
expect_match "$out" "cudyn needs CUDA 11.0 or newer"

# 4: cuInit fails
MOCK_CUDA_FAIL=cuInit:1:999 expect_exit 4 "$cudainfo"
expect_match "$out" "CUDA_ERROR_UNKNOWN"
expect_match "$out" "hint: .*Xid"
MOCK_CUDA_FAIL=cuInit:1:803 expect_exit 4 "$cudainfo"
expect_match "$out" "kernel module and libcuda versions differ"
MOCK_CUDA_FAIL=cuInit:1:999 run_json 4 --explain

# 5: no devices, or fewer than required
MOCK_CUDA_DEVICES=none expect_exit 5 "$cudainfo"
expect_match "$out" "CUDA_ERROR_NO_DEVICE"
MOCK_CUDA_DEVICES=none CUDA_VISIBLE_DEVICES=-1 expect_exit 5 "$cudainfo"
expect_match "$out" "hint: CUDA_VISIBLE_DEVICES hides every GPU"
MOCK_CUDA_DEVICES=none run_json 5
expect_exit 5 "$cudainfo" --require 3
expect_match "$out" "2 devices visible, 3 required"
expect_exit 0 "$cudainfo" --require 2

# 7: one device fails to describe itself
MOCK_CUDA_FAIL=cuDeviceGetName:2:999 expect_exit 7 "$cudainfo"
expect_match "$out" "^  1  error: "
MOCK_CUDA_FAIL=cuDeviceGetName:2:999 run_json 7

# a driver lacking optional entry points: fields become null, exit 0
MOCK_CUDA_MISSING=cuDeviceGetUuid,cuDeviceGetPCIBusId run_json 0
expect_line "$(json_get "$json" '.devices[0].uuid')" "null"
expect_line "$(json_get "$json" '.devices[0].pci_bus_id')" "00000000:17:00.0"

# -q prints nothing at all
out=$(MOCK_CUDA_DEVICES=none "$cudainfo" -q 2>&1)
[ -z "$out" ] || { echo "FAIL: -q printed: $out"; fail=1; }

# --explain: the search trace and the diagnosis
expect_exit 0 "$cudainfo" --explain
expect_match "$out" "^Loader search \(libcuda\):"
expect_match "$out" "\[CUDYN_LIBCUDA\]: using"
expect_match "$out" "^Diagnosis:"
expect_match "$out" "CUDYN_LIBCUDA=$MOCK_LIBCUDA"

# no colour when not on a terminal
expect_no_match "$("$cudainfo")" "$(printf '\033')"

# On a machine with a GPU: what cudainfo says matches nvidia-smi.
if have_real_driver && command -v nvidia-smi >/dev/null; then
    json=$(env -u CUDYN_LIBCUDA -u LD_LIBRARY_PATH "$cudainfo" --json)
    i=0
    while IFS=, read -r name mem uuid cc bus; do
        name=$(echo $name); mem=$(echo $mem); uuid=$(echo $uuid); cc=$(echo $cc); bus=$(echo $bus)
        got_name=$(json_get "$json" ".devices[$i].name")
        got_uuid=$(json_get "$json" ".devices[$i].uuid")
        got_cc=$(json_get "$json" ".devices[$i].compute_capability")
        got_bus=$(json_get "$json" ".devices[$i].pci_bus_id")
        got_mib=$(( $(json_get "$json" ".devices[$i].total_memory_bytes") / 1048576 ))
        echo "GPU $i: nvidia-smi '$name' $mem MiB $uuid cc $cc $bus; cudainfo '$got_name' $got_mib MiB $got_uuid cc $got_cc $got_bus"
        [ "$got_name" = "$name" ] || { echo "FAIL: name differs"; fail=1; }
        [ "$got_uuid" = "$uuid" ] || { echo "FAIL: UUID differs"; fail=1; }
        [ "$got_cc" = "$cc" ] || { echo "FAIL: compute capability differs"; fail=1; }
        [ "${got_bus#*:}" = "${bus#*:}" ] || { echo "FAIL: PCI bus id differs"; fail=1; }
        # the driver reports usable memory, nvidia-smi the board's: within 5 %
        [ $(( (mem - got_mib) * 100 / mem )) -le 5 ] && [ "$got_mib" -le "$mem" ] ||
            { echo "FAIL: memory differs by more than 5 %"; fail=1; }
        i=$((i + 1))
    done < <(nvidia-smi --query-gpu=name,memory.total,uuid,compute_cap,pci.bus_id --format=csv,noheader,nounits)
    [ "$(json_get "$json" '.devices | length' 2>/dev/null || echo $i)" = "$i" ] || { echo "FAIL: device count differs"; fail=1; }
fi

finish
