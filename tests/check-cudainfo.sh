#!/bin/bash
# cudainfo: every exit code with the library's hint, device selection by
# ordinal, UUID and PCI id (and a device that could not be described),
# attributes with units, how GPUs are linked, and --json valid (UTF-8,
# whatever bytes the environment holds) on every path with the expected
# keys.  "defect N" marks the tests of issue 11's audit findings.
. "$top_srcdir/tests/common.sh"

# JSON is UTF-8 (RFC 8259); jq and python would quietly replace bad bytes
utf8_ok() { ! command -v iconv >/dev/null || printf '%s\n' "$1" | iconv -f UTF-8 -t UTF-8 >/dev/null 2>&1; }
if command -v jq >/dev/null; then
    json_ok() { utf8_ok "$1" && printf '%s\n' "$1" | jq -e . >/dev/null 2>&1; }
    json_get() { printf '%s\n' "$1" | jq -r "$2"; }
elif command -v python3 >/dev/null; then
    json_ok() { utf8_ok "$1" && printf '%s\n' "$1" | python3 -m json.tool >/dev/null 2>&1; }
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
# schema, a loader block and result.exit_code equal to the exit code; and
# it must match tools/schema/cudainfo-2.schema.json (checked at the end).
run_json() {
    want=$1
    shift
    json=$("$cudainfo" --json "$@" 2>/dev/null)
    got=$?
    keep_json cudainfo/2 "$json"
    [ "$got" = "$want" ] || { echo "FAIL: cudainfo --json $* exited $got, expected $want"; fail=1; }
    if ! json_ok "$json"; then
        echo "FAIL: cudainfo --json $* wrote invalid JSON:"
        printf '%s\n' "$json" | sed 's/^/    | /'
        fail=1
        return
    fi
    [ "$(json_get "$json" .schema)" = "cudainfo/2" ] || { echo "FAIL: schema field missing"; fail=1; }
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

# bytes that are not UTF-8 (an environment value, an argument) stay valid
# JSON: each invalid byte is U+FFFD, valid sequences are kept as they are
CUDA_HOME=$'/opt/\xff' run_json 0
expect_line "$(json_get "$json" '.environment.CUDA_HOME')" $'/opt/\xef\xbf\xbd'
CUDA_HOME=$'caf\xc3\xa9 \xf0\x9f\x98\x80 a\xc0\xafb\xed\xa0\x80c\xf4\x90\x80\x80d\xe2\x82' run_json 0
expect_match "$json" '"CUDA_HOME":"caf'$'\xc3\xa9'' '$'\xf0\x9f\x98\x80'' a(\\ufffd){2}b(\\ufffd){3}c(\\ufffd){4}d(\\ufffd){2}"'
run_json 2 $'--bogus\xfe'
expect_line "$(json_get "$json" '.result.message')" $'unrecognized option \'--bogus\xef\xbf\xbd\' (see cudainfo --help)'

# no NVRTC is a machine without the toolkit (exit 0); one found and refused
# is a partial failure that says why
expect_exit 0 env CUDYN_LIBCUDA="$MOCK_LIBCUDA" CUDYN_LIBNVRTC=/nonexistent/libnvrtc.so.13 "$cudainfo"
expect_match "$out" "^NVRTC:   not found \(run-time compilation unavailable\)$"
expect_exit 7 env CUDYN_LIBCUDA="$MOCK_LIBCUDA" CUDYN_LIBNVRTC="$MOCK_LIBNVRTC" MOCK_NVRTC_FAIL=nvrtcVersion:1:1 "$cudainfo"
expect_match "$out" "^NVRTC:   found but not usable"
expect_match "$out" "^cudainfo: NVRTC was found but is not usable: .*nvrtcVersion returned NVRTC_ERROR_OUT_OF_MEMORY \(1\)$"

# -a lists the driver's attributes by name, in their units (the library's
# cudyn_device_attr_unit): bytes as KiB/MiB with the exact value, kHz as MHz,
# booleans as yes/no; JSON keeps the raw value and names the unit
expect_exit 0 "$cudainfo" -a -d 0
expect_match "$out" "^      multiprocessor_count +4$"
expect_match "$out" "^      compute_capability_major +9$"
expect_match "$out" "^      max_shared_memory_per_block +48 KiB \(49152 bytes\)$"
expect_match "$out" "^      l2_cache_size +50 MiB \(52428800 bytes\)$"
expect_match "$out" "^      clock_rate +1755 MHz$"
expect_match "$out" "^      global_memory_bus_width +5120 bits$"
expect_match "$out" "^      gpu_overlap +yes$"
expect_match "$out" "^      integrated +no$"
expect_exit 0 "$cudainfo" --prop warp_size
expect_match "$out" "^      warp_size +32$"
expect_no_match "$out" "multiprocessor_count"
run_json 0 --prop warp_size --prop l2_cache_size --mem
expect_line "$(json_get "$json" '.devices[0].attributes.warp_size.value')" "32"
expect_line "$(json_get "$json" '.devices[0].attributes.warp_size.unit')" ""
expect_line "$(json_get "$json" '.devices[0].attributes.l2_cache_size.value')" "52428800"
expect_line "$(json_get "$json" '.devices[0].attributes.l2_cache_size.unit')" "bytes"
expect_line "$(json_get "$json" '.devices[0].attributes.l2_cache_size.status')" "CUDYN_OK"
expect_line "$(json_get "$json" '.devices[0].free_memory_bytes')" "268435456"

# defect 14: an attribute the driver does not know is "n/a" (null), exit 0;
# a driver error reading one is a partial failure (exit 7) that says so;
# an unknown --prop name is a usage error naming it
MOCK_CUDA_FAIL=cuDeviceGetAttribute:*:1 expect_exit 0 "$cudainfo" --prop warp_size
expect_match "$out" "^      warp_size +n/a \(not supported by this driver\)$"
MOCK_CUDA_FAIL=cuDeviceGetAttribute:*:1 run_json 0 --prop warp_size
expect_line "$(json_get "$json" '.devices[0].attributes.warp_size.value')" "null"
expect_line "$(json_get "$json" '.devices[0].attributes.warp_size.status')" "CUDYN_ERROR_NOT_SUPPORTED"
# (the first read after describing the devices fails: their reads are counted)
MOCK_CUDA_COUNTS="$tmp/counts" "$cudainfo" > /dev/null
first_prop_read=$(( $(awk '$1 == "cuDeviceGetAttribute" {print $2}' "$tmp/counts") + 1 ))
MOCK_CUDA_FAIL=cuDeviceGetAttribute:$first_prop_read:999 expect_exit 7 "$cudainfo" --prop warp_size
expect_match "$out" "^      warp_size +error: "
expect_match "$out" "^cudainfo: device 0, attribute warp_size: .*CUDA_ERROR_UNKNOWN"
MOCK_CUDA_FAIL=cuDeviceGetAttribute:$first_prop_read:999 run_json 7 --prop warp_size
expect_line "$(json_get "$json" '.devices[0].attributes.warp_size.value')" "null"
expect_match "$(json_get "$json" '.devices[0].attributes.warp_size.error')" "CUDA_ERROR_UNKNOWN"
expect_match "$(json_get "$json" '.result.message')" "attribute warp_size"
# a device that cannot be described at all is a partial failure naming it
MOCK_CUDA_FAIL=cuDeviceGetAttribute:*:999 expect_exit 7 "$cudainfo"
expect_match "$out" "^cudainfo: device 0: cudyn_device_info: cuDeviceGetAttribute returned CUDA_ERROR_UNKNOWN"
expect_exit 2 "$cudainfo" --prop no_such_attribute
expect_line "$out" "cudainfo: unknown attribute 'no_such_attribute' for --prop; cudainfo -a lists them all (see cudainfo --help)"
run_json 2 --prop no_such_attribute

# --p2p: peer access, performance rank and native atomics from the driver,
# NVLink links from NVML when it answers (a fake one here), unknown when not
nvml="$top_builddir/tests/mock/nvml/.libs/libnvidia-ml.so.1"
CUDAINFO_NVML=/nonexistent/libnvidia-ml.so.1 expect_exit 0 "$cudainfo" --p2p
expect_match "$out" "^ +0 +- +yes$"
expect_match "$out" "^  0 -> 1  performance rank 0, native atomics yes$"
expect_match "$out" "^NVLink links: unknown \(NVML not available: "
CUDAINFO_NVML=/nonexistent/libnvidia-ml.so.1 run_json 0 --p2p
expect_line "$(json_get "$json" '.p2p.links[0].nvlink_links')" "null"
expect_line "$(json_get "$json" '.p2p.links[0].performance_rank')" "0"
expect_line "$(json_get "$json" '.p2p.links[0].native_atomics')" "true"
expect_line "$(json_get "$json" '.p2p.access[0][1]')" "true"
expect_line "$(json_get "$json" '.p2p.nvml.available')" "false"
# HGX-style: every GPU has its 18 links to NVSwitches, so each pair shows NV18
CUDAINFO_NVML="$nvml" MOCK_NVML=switch:18 expect_exit 0 "$cudainfo" --p2p
expect_match "$out" "^NVLink links \(as nvidia-smi topo -m counts them\):$"
expect_match "$out" "^ +0 +- +NV18$"
expect_match "$out" "^ +1 +NV18 +-$"
CUDAINFO_NVML="$nvml" MOCK_NVML=switch:18 run_json 0 --p2p
expect_line "$(json_get "$json" '.p2p.links[1].nvlink_links')" "18"
expect_line "$(json_get "$json" '.p2p.nvml.available')" "true"
# bridged pairs: 0-1 joined by 4 direct links, 2 has no partner
MOCK_CUDA_DEVICES="A:90,B:90,C:90" CUDAINFO_NVML="$nvml" MOCK_NVML=direct:4 expect_exit 0 "$cudainfo" --p2p
expect_match "$out" "^ +0 +- +NV4 +none$"
expect_match "$out" "^ +2 +none +none +-$"
CUDAINFO_NVML="$nvml" MOCK_NVML=none expect_exit 0 "$cudainfo" --p2p
expect_match "$out" "^ +0 +- +none$"
# NVML present but not answering: unknown, not an error
CUDAINFO_NVML="$nvml" MOCK_NVML=fail expect_exit 0 "$cudainfo" --p2p
expect_match "$out" "^NVLink links: unknown \(nvmlInit_v2 returned 9\)$"
# a driver error on a pair is a partial failure, naming the pair
MOCK_CUDA_FAIL=cuDeviceGetP2PAttribute:1:999 expect_exit 7 "$cudainfo" --p2p
expect_match "$out" "^cudainfo: devices 0 and 1, performance rank: .*CUDA_ERROR_UNKNOWN"
MOCK_CUDA_FAIL=cuDeviceGetP2PAttribute:1:999 run_json 7 --p2p
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
expect_match "$out" "device '2' not found: 2 devices are visible \(ordinals 0\.\.1\)"
expect_no_match "$out" "Tesla T4"
run_json 6 -d 2
expect_exit 6 "$cudainfo" -d 2021
# a device that cannot be described might be the one a UUID or PCI id
# names: its failure is reported (7); an ordinal needs no description, so
# one out of range is not found (6) and one in range is that device's failure
MOCK_CUDA_FAIL=cuDeviceGetName:2:999 expect_exit 7 "$cudainfo" -d GPU-ffff
expect_match "$out" "^cudainfo: device 'GPU-ffff' not among those described; device 1 could not be: .*CUDA_ERROR_UNKNOWN"
MOCK_CUDA_FAIL=cuDeviceGetName:2:999 run_json 7 -d 18:00.0
MOCK_CUDA_FAIL=cuDeviceGetName:2:999 expect_exit 6 "$cudainfo" -d 7
expect_match "$out" "device '7' not found: 2 devices are visible"
MOCK_CUDA_FAIL=cuDeviceGetName:2:999 run_json 6 -d 7
MOCK_CUDA_FAIL=cuDeviceGetName:2:999 expect_exit 7 "$cudainfo" -d 1
expect_match "$out" "^cudainfo: device 1: .*CUDA_ERROR_UNKNOWN"
MOCK_CUDA_FAIL=cuDeviceGetName:2:999 expect_exit 0 "$cudainfo" -d 0
# an empty selector names no device (it is a prefix of every UUID)
expect_exit 6 "$cudainfo" -d ''
expect_match "$out" "device '' not found"
MOCK_CUDA_FAIL=cuDeviceGetName:2:999 expect_exit 6 "$cudainfo" -d ''

# --version and --help are JSON too with --json, on either side of it
run_json 0 --version
expect_line "$(json_get "$json" .version)" "$("$cudainfo" --version | awk '{print $3}')"
run_json 0 -h
expect_line "$(json_get "$json" .help)" "$("$cudainfo" --help)"
json=$("$cudainfo" --help --json) && json_ok "$json" || { echo "FAIL: cudainfo --help --json"; fail=1; }

# 2: usage, in one line naming what is wrong (defect 14), never the whole help
expect_exit 2 "$cudainfo" --no-such-option
expect_line "$out" "cudainfo: unrecognized option '--no-such-option' (see cudainfo --help)"
[ "$(printf '%s\n' "$out" | wc -l)" = 1 ] || { echo "FAIL: a usage error printed more than one line"; fail=1; }
expect_exit 2 "$cudainfo" --all=3
expect_line "$out" "cudainfo: option '--all' takes no value (see cudainfo --help)"
expect_exit 2 "$cudainfo" -az
expect_line "$out" "cudainfo: invalid option '-z' (see cudainfo --help)"
expect_exit 2 "$cudainfo" --require many
expect_line "$out" "cudainfo: --require takes a number of devices from 1 to 1024, not 'many' (see cudainfo --help)"
# no device is always exit 5: --require 0 would promise what cannot be
expect_exit 2 "$cudainfo" --require 0
expect_line "$out" "cudainfo: --require takes a number of devices from 1 to 1024, not '0' (see cudainfo --help)"
expect_exit 2 "$cudainfo" --require
expect_line "$out" "cudainfo: missing value for option '--require' (see cudainfo --help)"
expect_exit 2 "$cudainfo" stray-argument
expect_line "$out" "cudainfo: unexpected argument 'stray-argument' (see cudainfo --help)"
run_json 2 --bogus
expect_line "$(json_get "$json" '.result.message')" "unrecognized option '--bogus' (see cudainfo --help)"
run_json 2 --bogus --json   # --json after the error counts too
expect_exit 0 "$cudainfo" --help
expect_exit 0 "$cudainfo" --version
expect_match "$out" "^cudainfo \(cudyn\) [0-9]"

# 3: no driver library, a stub, and an old driver.  The library's message
# is printed once, without its "; hint: ..." tail, and the library's hint
# on a line of its own (issue 18)
CUDYN_LIBCUDA=/nonexistent/libcuda.so.1 expect_exit 3 "$cudainfo"
expect_match "$out" "^cudainfo: CUDYN_LIBCUDA=/nonexistent/libcuda.so.1 is not usable: [^;]*$"
expect_line "$out" "cudainfo: hint: point CUDYN_LIBCUDA at the driver's libcuda.so.1 (or its directory), or unset it to search the usual places"
[ "$(printf '%s\n' "$out" | grep -c '^cudainfo: ')" = 2 ] || { echo "FAIL: expected two lines, what and hint"; fail=1; }
expect_no_match "$out" "; hint:"
CUDYN_LIBCUDA=/nonexistent/libcuda.so.1 run_json 3
expect_match "$(json_get "$json" .result.hint)" "^point CUDYN_LIBCUDA at"
expect_no_match "$(json_get "$json" .result.message)" "hint"
# --explain: the message once (the trace has it), the hint once
CUDYN_LIBCUDA=/nonexistent/libcuda.so.1 expect_exit 3 "$cudainfo" --explain
[ "$(printf '%s\n' "$out" | grep -c 'is not usable')" = 1 ] || { echo "FAIL: --explain repeats the message:"; printf '%s\n' "$out"; fail=1; }
[ "$(printf '%s\n' "$out" | grep -c 'point CUDYN_LIBCUDA at')" = 1 ] || { echo "FAIL: --explain repeats the hint"; fail=1; }
if ! have_real_driver; then
    # nothing found at all: the loader's own hint, not one of cudainfo's
    (unset CUDYN_LIBCUDA; LD_LIBRARY_PATH="$top_builddir/lib/.libs" expect_exit 3 "$cudainfo"
     expect_match "$out" "^cudainfo: the NVIDIA driver library libcuda.so.1 was not found"
     expect_match "$out" "^cudainfo: hint: (install the NVIDIA driver|the nvidia kernel module is loaded)"
     expect_exit 3 "$cudainfo" --explain
     expect_no_match "$out" "hint: .*cudainfo --explain"
     exit $fail) || fail=1
fi
MOCK_CUDA_STUB=1 expect_exit 3 "$cudainfo"
expect_match "$out" "^cudainfo: .*it is a stub, not a driver$"
expect_match "$out" "^cudainfo: hint: "
MOCK_CUDA_STUB=1 run_json 3
MOCK_CUDA_VERSION=10010 expect_exit 3 "$cudainfo"
expect_match "$out" "cudyn needs CUDA 11.0 or newer"

# 4: cuInit fails
MOCK_CUDA_FAIL=cuInit:1:999 expect_exit 4 "$cudainfo"
expect_match "$out" "^cudainfo: cudyn_init: cuInit returned CUDA_ERROR_UNKNOWN"
expect_match "$out" "^cudainfo: hint: .*Xid"
MOCK_CUDA_FAIL=cuInit:1:999 expect_exit 4 "$cudainfo" --explain
[ "$(printf '%s\n' "$out" | grep -c 'cuInit returned CUDA_ERROR_UNKNOWN')" = 1 ] || { echo "FAIL: --explain repeats the message"; fail=1; }
[ "$(printf '%s\n' "$out" | grep -c 'Xid')" = 1 ] || { echo "FAIL: --explain repeats the hint"; fail=1; }
# --explain's hint does not send the reader to --explain: text and JSON
expect_line "$out" "cudainfo: hint: an unknown driver error; check dmesg for Xid messages"
MOCK_CUDA_FAIL=cuInit:1:999 expect_exit 4 "$cudainfo"
expect_line "$out" "cudainfo: hint: an unknown driver error; check dmesg for Xid messages and run cudainfo --explain"
MOCK_CUDA_DEVICES=none expect_exit 5 "$cudainfo" --explain
expect_no_match "$out" "cudainfo --explain"
expect_match "$out" "hint: no GPU is visible: .*kernel module is loaded$"
MOCK_CUDA_FAIL=cuInit:1:803 expect_exit 4 "$cudainfo"
expect_match "$out" "^cudainfo: hint: the NVIDIA kernel module and the user-space driver \(libcuda\) have different versions"
MOCK_CUDA_FAIL=cuInit:1:999 run_json 4 --explain
expect_match "$(json_get "$json" .result.hint)" "Xid"
expect_no_match "$(json_get "$json" .result.hint)" "cudainfo --explain"
# the driver fails to count its devices after cuInit: 4 as well
MOCK_CUDA_FAIL=cuDeviceGetCount:1:999 expect_exit 4 "$cudainfo"
MOCK_CUDA_FAIL=cuDeviceGetCount:1:999 run_json 4

# 5: no devices, or fewer than required
MOCK_CUDA_DEVICES=none expect_exit 5 "$cudainfo"
expect_match "$out" "CUDA_ERROR_NO_DEVICE"
MOCK_CUDA_DEVICES=none CUDA_VISIBLE_DEVICES=-1 expect_exit 5 "$cudainfo"
expect_match "$out" "^cudainfo: hint: no GPU is visible: check CUDA_VISIBLE_DEVICES"
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

# --explain: the search trace and the diagnosis (not run by a launcher)
unset OMPI_COMM_WORLD_LOCAL_RANK OMPI_COMM_WORLD_LOCAL_SIZE SLURM_LOCALID PMI_LOCAL_RANK PMI_LOCAL_SIZE \
    MV2_COMM_WORLD_LOCAL_RANK MV2_COMM_WORLD_LOCAL_SIZE PALS_LOCAL_RANKID PALS_LOCAL_SIZE
expect_exit 0 "$cudainfo" --explain
expect_match "$out" "^Loader search \(libcuda\):"
expect_match "$out" "\[CUDYN_LIBCUDA\]: using"
expect_match "$out" "^Diagnosis:"
expect_match "$out" "CUDYN_LIBCUDA=$MOCK_LIBCUDA"
expect_match "$out" "local rank: no launcher variable set"
# the local rank, from the first launcher variable set (here SLURM's)
SLURM_LOCALID=3 PALS_LOCAL_RANKID=0 MOCK_CUDA_DEVICES="A:90,B:90" expect_exit 0 "$cudainfo" --explain
expect_line "$out" "  local rank 3 (from SLURM_LOCALID): device 1 of 2, shared with other local ranks"
SLURM_LOCALID=-1 expect_exit 0 "$cudainfo" --explain
expect_line "$out" "  local rank: SLURM_LOCALID is not a rank number"

# --mpi: CUDA-aware MPI (no MPI in cudainfo: the launcher's variables
# answer) and the NCCL cudyn finds, in text and JSON; no NCCL is a report,
# not a failure
unset OMPI_MCA_opal_cuda_support MV2_USE_CUDA MPICH_GPU_SUPPORT_ENABLED UCX_TLS
CUDYN_LIBNCCL="$MOCK_LIBNCCL" expect_exit 0 "$cudainfo" --mpi
expect_line "$out" "MPI:     CUDA-aware: unknown, because no MPI library is loaded in this process, and none of OMPI_MCA_opal_cuda_support, MV2_USE_CUDA, MPICH_GPU_SUPPORT_ENABLED and UCX_TLS is set"
expect_line "$out" "NCCL:    2.28.9, $MOCK_LIBNCCL [CUDYN_LIBNCCL]"
CUDYN_LIBNCCL="$MOCK_LIBNCCL" MV2_USE_CUDA=1 expect_exit 0 "$cudainfo" --mpi --explain
expect_match "$out" "^MPI:     CUDA-aware: yes, because MV2_USE_CUDA=1 turns on MVAPICH2's CUDA support"
expect_match "$out" "^Loader search \(libnccl\):"
expect_match "$out" "\[CUDYN_LIBNCCL\]: using .*NCCL 2\.28\.9"
CUDYN_LIBNCCL="$MOCK_LIBNCCL" UCX_TLS=tcp,self run_json 0 --mpi
expect_line "$(json_get "$json" .mpi.cuda_aware)" "no"
expect_line "$(json_get "$json" .mpi.source)" "UCX_TLS"
expect_line "$(json_get "$json" .mpi.nccl.version)" "2.28.9"
expect_line "$(json_get "$json" .mpi.nccl.error)" "null"
expect_line "$(json_get "$json" .environment.UCX_TLS)" "tcp,self"
CUDYN_LIBNCCL=/nonexistent/libnccl.so.2 run_json 0 --mpi
expect_line "$(json_get "$json" .mpi.nccl.status)" "CUDYN_ERROR_NCCL_NOT_FOUND"
expect_match "$(json_get "$json" .mpi.nccl.error)" "CUDYN_LIBNCCL=/nonexistent/libnccl.so.2 is not a usable NCCL"
CUDYN_LIBNCCL=/nonexistent/libnccl.so.2 expect_exit 0 "$cudainfo" --mpi
expect_match "$out" "^NCCL:    not usable \(CUDYN_ERROR_NCCL_NOT_FOUND\): CUDYN_LIBNCCL=/nonexistent"
# without a driver the MPI section still reports
CUDYN_LIBCUDA=/nonexistent/libcuda.so.1 CUDYN_LIBNCCL="$MOCK_LIBNCCL" run_json 3 --mpi
expect_line "$(json_get "$json" .mpi.nccl.status)" "CUDYN_OK"
run_json 0
expect_line "$(json_get "$json" .mpi)" "null"

# no colour when not on a terminal
expect_no_match "$("$cudainfo")" "$(printf '\033')"

# the manual page is well-formed
if man --help 2>/dev/null | grep -q -- --warnings; then
    warnings=$(LC_ALL=C.UTF-8 MANROFFSEQ='' MANWIDTH=80 man --warnings -l "$top_srcdir/man/cudainfo.1" 2>&1 >/dev/null)
    [ -z "$warnings" ] || { echo "FAIL: man --warnings -l man/cudainfo.1:"; printf '%s\n' "$warnings"; fail=1; }
fi

# The toolkit at run time (cudyn_toolkit_info): CUDYN_TOOLKIT's directories
# alone, as a toolkit (include, lib64) or as pip's wheels (nvidia/*/include
# and lib); "none"; nvJitLink absent where CUDYN_LIBNVJITLINK points nowhere.
mkdir -p "$tmp/tk/include/cccl" "$tmp/tk/lib64" "$tmp/site/nvidia/cu13/include" "$tmp/site/nvidia/cu13/lib" \
    "$tmp/site/nvidia/curand/include"
touch "$tmp/tk/include/cuda_runtime.h" "$tmp/tk/lib64/libcudadevrt.a" "$tmp/site/nvidia/cu13/include/cuda_runtime.h" \
    "$tmp/site/nvidia/cu13/lib/libcudadevrt.a"
export CUDYN_LIBNVJITLINK=/nonexistent/libnvJitLink.so.13
CUDYN_TOOLKIT="$tmp/tk" run_json 0 --explain
expect_line "$(json_get "$json" .toolkit.include_path)" "$tmp/tk/include:$tmp/tk/include/cccl"
expect_line "$(json_get "$json" .toolkit.headers_found_by)" "CUDYN_TOOLKIT"
expect_line "$(json_get "$json" .toolkit.cudadevrt)" "$tmp/tk/lib64/libcudadevrt.a"
expect_line "$(json_get "$json" .toolkit.nvjitlink.status)" "CUDYN_ERROR_NOT_SUPPORTED"
expect_match "$(json_get "$json" .toolkit.nvjitlink.trace)" "CUDYN_LIBNVJITLINK"
expect_match "$(json_get "$json" .versions)" "headers $tmp/tk/include"
CUDYN_TOOLKIT="$tmp/site" run_json 0
expect_line "$(json_get "$json" .toolkit.include_path)" "$tmp/site/nvidia/cu13/include:$tmp/site/nvidia/curand/include"
expect_line "$(json_get "$json" .toolkit.headers_location)" "$tmp/site/nvidia"
expect_line "$(json_get "$json" .toolkit.cudadevrt)" "$tmp/site/nvidia/cu13/lib/libcudadevrt.a"
expect_line "$(json_get "$json" .toolkit.trace)" "null" # without --explain
CUDYN_TOOLKIT=none run_json 0
expect_line "$(json_get "$json" .toolkit.include_path)" "null"
expect_line "$(json_get "$json" .toolkit.cudadevrt)" "null"
expect_exit 0 env CUDYN_TOOLKIT="$tmp/tk" "$cudainfo" --explain
expect_line "$out" "  headers: $tmp/tk/include:$tmp/tk/include/cccl [CUDYN_TOOLKIT]"
expect_line "$out" "  libcudadevrt.a: $tmp/tk/lib64/libcudadevrt.a [CUDYN_TOOLKIT]"
expect_line "$out" "  nvJitLink: none found: cudyn links with the driver's linker"
expect_exit 0 env CUDYN_TOOLKIT=none "$cudainfo" --explain
expect_line "$out" "  headers: none found: kernels can include cudyn's C library headers only"
expect_line "$out" "CUDYN_TOOLKIT=none: no toolkit headers, no libcudadevrt.a"
unset CUDYN_LIBNVJITLINK

# On a machine with a GPU: what cudainfo says matches nvidia-smi.
if have_real_driver && command -v nvidia-smi >/dev/null; then
    json=$(env -u CUDYN_LIBCUDA -u LD_LIBRARY_PATH "$cudainfo" --json)
    keep_json cudainfo/2 "$json"
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
