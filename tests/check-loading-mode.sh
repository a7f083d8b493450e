#!/bin/bash
# cudainfo reports the module loading mode in effect, as the driver says it
# (cuModuleGetLoadingMode, CUDA 11.7+), not only CUDA_MODULE_LOADING: the
# driver's default decides when the variable is unset, and a driver that
# cannot say leaves it unknown without failing the run.
. "$top_srcdir/tests/common.sh"
unset CUDA_MODULE_LOADING
export CUDYN_LIBCUDA="$MOCK_LIBCUDA"
mode() { "$cudainfo" --explain | grep '^  module loading in effect: '; }

expect_line "$(mode)" "  module loading in effect: lazy (CUDA_MODULE_LOADING unset)"
expect_line "$(MOCK_CUDA_VERSION=12000 mode)" "  module loading in effect: eager (CUDA_MODULE_LOADING unset)"
expect_line "$(CUDA_MODULE_LOADING=EAGER mode)" "  module loading in effect: eager (CUDA_MODULE_LOADING=EAGER)"
expect_line "$(MOCK_CUDA_VERSION=12000 CUDA_MODULE_LOADING=LAZY mode)" \
    "  module loading in effect: lazy (CUDA_MODULE_LOADING=LAZY)"
# a driver before 11.7, and a fault in the call: unknown, and the run succeeds
expect_line "$(MOCK_CUDA_VERSION=11040 mode)" \
    "  module loading in effect: unknown (the driver did not say; it does from CUDA 11.7 on) (CUDA_MODULE_LOADING unset)"
expect_exit 0 env MOCK_CUDA_FAIL=cuModuleGetLoadingMode:1:999 "$cudainfo" --explain
expect_match "$out" "module loading in effect: unknown"
expect_no_match "$out" "CUDA_ERROR_|CUDYN_ERROR_"
# the JSON carries it
out=$(CUDA_MODULE_LOADING=EAGER "$cudainfo" --json | /usr/bin/python3 -c 'import json, sys; print(json.load(sys.stdin)["module_loading"])')
expect_line "$out" "eager"
out=$(MOCK_CUDA_VERSION=11040 "$cudainfo" --json | /usr/bin/python3 -c 'import json, sys; print(json.load(sys.stdin)["module_loading"])')
expect_line "$out" "None"

finish
