#!/bin/bash
# cudainfo --nvml and the library's cudyn_nvml_* under it, on the CUDA
# mock and the NVML mock (tests/mock/mock_nvml.c): several GPUs, MIG
# instances, NVML seeing GPUs CUDA does not (CUDA_VISIBLE_DEVICES), no
# NVML, a fault in NVML, the listing after a failed cuInit, and each GPU's
# CPU affinity (known, unknown, an NVML without the function).
. "$top_srcdir/tests/common.sh"
nvml="$top_builddir/tests/mock/nvml/.libs/libnvidia-ml.so.1"
[ -e "$nvml" ] || { echo "SKIP: the NVML mock is not built"; exit 77; }
export CUDYN_LIBCUDA="$MOCK_LIBCUDA" CUDYN_LIBNVML="$nvml"
export MOCK_CUDA_DEVICES="NVIDIA H100 80GB HBM3:90,NVIDIA A100-SXM4-40GB:80"
json_of() { /usr/bin/python3 -c 'import json, sys; d = json.load(sys.stdin); print(json.dumps(eval(sys.argv[1]), sort_keys=True))' "$1"; }

# two GPUs, the same in NVML and CUDA: matched by UUID, no difference
expect_exit 0 "$cudainfo" --nvml
expect_line "$out" "NVML: 2 GPUs, driver 575.57.08 (without cuInit)"
expect_line "$out" "  [nvml 0] NVIDIA H100 80GB HBM3  GPU-10111213-1415-1617-1819-1a1b1c1d1e1f  0000:17:00.0  0.2 GiB  MIG not supported  CUDA ordinal: 0"
expect_line "$out" "  [nvml 1] NVIDIA A100-SXM4-40GB  GPU-20212223-2425-2627-2829-2a2b2c2d2e2f  0000:18:00.0  0.2 GiB  MIG not supported  CUDA ordinal: 1"
expect_no_match "$out" "differ"
expect_line "$(printf '%s\n' "$out" | grep -c '^      CPU affinity: unknown (NVML cannot tell)$')" "2"

# the CPUs next to each GPU, where NVML tells them
MOCK_NVML_CPUS="0:0-15,32-47;1:16" expect_exit 0 "$cudainfo" --nvml
expect_line "$out" "      CPU affinity: 0-15,32-47 (32 CPUs)"
expect_line "$out" "      CPU affinity: 16 (1 CPU)"
json=$(MOCK_NVML_CPUS="0:0-15,32-47" "$cudainfo" --json --nvml)
keep_json cudainfo/2 "$json"
expect_line "$(printf '%s' "$json" | json_of '[g["cpu_affinity"] for g in d["nvml"]["gpus"]]')" '["0-15,32-47", null]'
# an old driver's NVML, without nvmlDeviceGetCpuAffinity: the rest as before
CUDYN_LIBNVML="$top_builddir/tests/mock/nvml_old/.libs/libnvidia-ml.so.1" MOCK_NVML_CPUS="0:0" \
    expect_exit 0 "$cudainfo" --nvml
expect_line "$out" "  [nvml 0] NVIDIA H100 80GB HBM3  GPU-10111213-1415-1617-1819-1a1b1c1d1e1f  0000:17:00.0  0.2 GiB  MIG not supported  CUDA ordinal: 0"
expect_line "$(printf '%s\n' "$out" | grep -c '^      CPU affinity: unknown (this NVML has no nvmlDeviceGetCpuAffinity)$')" "2"
# what the mock cannot emulate it refuses, and cudainfo says NVML failed
MOCK_NVML_CPUS="0:3-1" expect_exit 7 "$cudainfo" --nvml
expect_match "$out" "mock NVML: cannot emulate a CPU range"
expect_match "$out" "nvmlDeviceGetCpuAffinity returned 999"
# without --nvml, NVML is not asked
expect_exit 0 "$cudainfo"
expect_no_match "$out" "^NVML"

# JSON: under "nvml", the same facts
json=$("$cudainfo" --json --nvml)
expect_line "$?" "0"
keep_json cudainfo/2 "$json"
expect_line "$(printf '%s' "$json" | json_of 'd["nvml"]["available"], d["nvml"]["driver_version"], d["nvml"]["differs"]')" '[true, "575.57.08", null]'
expect_line "$(printf '%s' "$json" | json_of '[(g["uuid"], g["pci_bus_id"], g["cuda_ordinal"], g["mig_mode"]) for g in d["nvml"]["gpus"]]')" \
    '[["GPU-10111213-1415-1617-1819-1a1b1c1d1e1f", "0000:17:00.0", 0, "not supported"], ["GPU-20212223-2425-2627-2829-2a2b2c2d2e2f", "0000:18:00.0", 1, "not supported"]]'
expect_line "$(printf '%s' "$json" | json_of 'd["nvml"]["gpus"][0]["total_memory"], d["nvml"]["gpus"][0]["mig_instances"]')" '[268435456, []]'
# no "nvml" key unless asked or needed
expect_line "$("$cudainfo" --json | json_of '"nvml" in d')" "false"

# NVML sees a third GPU that CUDA_VISIBLE_DEVICES hides, in MIG mode with
# three instances (the CUDA mock shows what CUDA would: the first two)
CUDA_VISIBLE_DEVICES=0,1 MOCK_NVML_GPUS=3 MOCK_NVML_MIG=2:3 expect_exit 0 "$cudainfo" --nvml
expect_line "$out" "NVML: 3 GPUs, driver 575.57.08 (without cuInit)"
expect_line "$out" "  [nvml 0] NVIDIA H100 80GB HBM3  GPU-10111213-1415-1617-1819-1a1b1c1d1e1f  0000:17:00.0  0.2 GiB  MIG disabled  CUDA ordinal: 0"
expect_line "$out" "  [nvml 2] Mock GPU  GPU-30313233-3435-3637-3839-3a3b3c3d3e3f  0000:19:00.0  0.2 GiB  MIG enabled  CUDA ordinal: not visible"
expect_line "$out" "      MIG 0: MIG-02000000-0000-0000-0000-000000000000  CUDA ordinal: not visible"
expect_line "$out" "      MIG 2: MIG-02020000-0000-0000-0000-000000000000  CUDA ordinal: not visible"
expect_no_match "$out" "MIG 3:"
expect_match "$out" "^  NVML and CUDA differ: 1 GPU NVML sees is not visible to CUDA \(CUDA_VISIBLE_DEVICES=0,1\); 1 GPU is in MIG mode: CUDA shows MIG instances"
json=$(CUDA_VISIBLE_DEVICES=0,1 MOCK_NVML_GPUS=3 MOCK_NVML_MIG=2:3 "$cudainfo" --json --nvml)
expect_line "$(printf '%s' "$json" | json_of '[(m["uuid"], m["cuda_ordinal"]) for m in d["nvml"]["gpus"][2]["mig_instances"]]')" \
    '[["MIG-02000000-0000-0000-0000-000000000000", null], ["MIG-02010000-0000-0000-0000-000000000000", null], ["MIG-02020000-0000-0000-0000-000000000000", null]]'
expect_line "$(printf '%s' "$json" | json_of 'd["nvml"]["gpus"][2]["cuda_ordinal"], d["nvml"]["gpus"][1]["mig_mode"]')" '[null, "disabled"]'

# cuInit fails: the NVML listing follows, exit 4 all the same
MOCK_CUDA_FAIL=cuInit:1:999 expect_exit 4 "$cudainfo"
expect_line "$out" "NVML: 2 GPUs, driver 575.57.08 (without cuInit)"
expect_match "$out" "^  \[nvml 1\] NVIDIA A100-SXM4-40GB  GPU-2021.*  CUDA ordinal: unknown$"
expect_line "$out" "  NVML and CUDA differ: CUDA cannot list the GPUs: cuInit failed"
expect_match "$out" "^cudainfo: cudyn_init: cuInit returned CUDA_ERROR_UNKNOWN"
json=$(MOCK_CUDA_FAIL=cuInit:1:999 "$cudainfo" --json)
expect_line "$?" "4"
expect_line "$(printf '%s' "$json" | json_of 'd["nvml"]["available"], len(d["nvml"]["gpus"]), d["result"]["exit_code"]')" '[true, 2, 4]'

# no NVML: said, and a partial failure when asked for (exit 7)
CUDYN_LIBNVML=/nonexistent/libnvidia-ml.so.1 expect_exit 7 "$cudainfo" --nvml
expect_match "$out" "^NVML: not available \(cudyn_nvml_device_count: NVML \(/nonexistent/libnvidia-ml.so.1\) could not be loaded: .*No such file"
expect_line "$out" "cudainfo: NVML could not list the GPUs"
# ... and after a failed cuInit it is only information: still exit 4
CUDYN_LIBNVML=/nonexistent/libnvidia-ml.so.1 MOCK_CUDA_FAIL=cuInit:1:999 expect_exit 4 "$cudainfo"
expect_match "$out" "^NVML: not available "

# a fault in each NVML call the listing makes: its code, name and text
for fn in nvmlInit_v2 nvmlDeviceGetCount_v2 nvmlDeviceGetHandleByIndex_v2 nvmlDeviceGetName nvmlDeviceGetUUID \
          nvmlDeviceGetPciInfo_v3 nvmlDeviceGetMemoryInfo nvmlSystemGetDriverVersion nvmlDeviceGetMigMode \
          nvmlDeviceGetCpuAffinity; do
    MOCK_NVML_FAIL=$fn:15 expect_exit 7 "$cudainfo" --nvml
    expect_match "$out" "^NVML: not available \(cudyn_nvml_device_(count|info): $fn returned 15 \(NVML_ERROR_GPU_IS_LOST: GPU is lost\)\)$"
done
# MIG instances are read only in MIG mode
MOCK_NVML_MIG=0:2 MOCK_NVML_FAIL=nvmlDeviceGetMigDeviceHandleByIndex expect_exit 7 "$cudainfo" --nvml
expect_match "$out" "nvmlDeviceGetMigDeviceHandleByIndex returned 999 \(NVML_ERROR_UNKNOWN: Unknown Error\)"
MOCK_NVML_FAIL=nvmlDeviceGetMigDeviceHandleByIndex expect_exit 0 "$cudainfo" --nvml
# the kernel driver not loaded: NVML's own answer
MOCK_NVML=fail expect_exit 7 "$cudainfo" --nvml
expect_match "$out" "nvmlInit_v2 returned 9 \(NVML_ERROR_DRIVER_NOT_LOADED: Driver Not Loaded\)"
json=$(MOCK_NVML=fail "$cudainfo" --json --nvml)
expect_line "$(printf '%s' "$json" | json_of 'd["nvml"]["available"], d["nvml"]["gpus"], d["result"]["exit_code"]')" '[false, [], 7]'

# --p2p reads the NVML CUDYN_LIBNVML names when CUDAINFO_NVML is unset
MOCK_NVML=switch:18 expect_exit 0 "$cudainfo" --p2p
expect_match "$out" "^ +1 +NV18 +-$"
CUDAINFO_NVML=/nonexistent/libnvidia-ml.so.1 MOCK_NVML=switch:18 expect_exit 0 "$cudainfo" --p2p
expect_match "$out" "^NVLink links: unknown \(NVML not available: "

finish
