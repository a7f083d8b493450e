#!/bin/bash
# What a change that touches the GPU side is checked with on a machine with
# GPUs, in steps a session can split across its calls, each step's whole
# log kept in OUTDIR and one line of verdict per step printed:
#
#   tests/gpu-verify.sh OUTDIR STEP...      (from a configured, built tree)
#
#   check      make check (the GPU tests run; what needs two GPUs skips)
#   sanitize   make check-gpu-sanitize (compute-sanitizer's four tools)
#   nccl       make check-gpu-nccl (two GPUs, mpirun and NCCL; skips on one)
#   pycuda     tests/gpu-pycuda-suite.sh over PYCUDA_TESTS (PyCUDA's test/)
#   bench      make bench-peers
#   wheels     both wheels (abi3 and the interpreter's own) built with
#              python3 -m build, checked by packaging/check-wheel.py,
#              installed in fresh environments that see the system's
#              packages, the Python suite run on each, and the two builds'
#              launch rows side by side (bench/python_builds.py)
#
# PYTHON picks the interpreter (python3); STEP_TIMEOUT bounds each step in
# seconds (540).  Exit status: 0 when every step held (a skipped one holds).
set -u
out=${1:?usage: tests/gpu-verify.sh OUTDIR STEP...}
shift
[ -f Makefile ] && [ -f config.status ] || { echo "gpu-verify.sh: run it in a configured, built tree"; exit 2; }
mkdir -p "$out" || exit 2
top_srcdir=$(sed -n 's/^abs_top_srcdir = //p' Makefile)
python=${PYTHON:-python3}
limit=${STEP_TIMEOUT:-540}
export NCCL_NVLS_ENABLE=0   # never NVLink multicast on shared machines
failed=0

# step NAME COMMAND...: COMMAND's output in OUTDIR/NAME.log, one verdict line
step() {
    local name=$1 t0=$SECONDS rc
    shift
    timeout "$limit" "$@" > "$out/$name.log" 2>&1
    rc=$?
    printf '%-9s exit %d in %d s: %s\n' "$name" "$rc" $((SECONDS - t0)) "$(summary "$name")"
    [ "$rc" = 0 ] || [ "$rc" = 77 ] || failed=$((failed + 1))
}

# summary NAME: the line of its log that counts what it did
summary() {
    case $1 in
    check) grep -E '^# (TOTAL|PASS|SKIP|FAIL|ERROR):' "$out/check.log" | tr -s ' ' | paste -sd' ' - ;;
    sanitize) grep -E '^check-gpu-sanitize' "$out/sanitize.log" | tail -n 1 ;;
    nccl) tail -n 1 "$out/nccl.log" ;;
    pycuda) grep -E 'in scope' "$out/pycuda.log" | tail -n 1 ;;
    *) tail -n 1 "$out/$1.log" ;;
    esac
}

wheels() {
    local w=$out/wheels
    rm -rf "$w" && mkdir -p "$w" || return 1
    (cd "$top_srcdir" && "$python" -m build --no-isolation --outdir "$w" . &&
        CUDYN_VERSION_SPECIFIC=1 "$python" -m build --no-isolation --wheel --outdir "$w" .) || return 1
    rm -rf "$top_srcdir/_build_py"
    "$python" "$top_srcdir/packaging/check-wheel.py" "$w"/cudyn-*-abi3-*.whl --require manylinux_2_17 || return 1
    local kind status=0
    for kind in abi3 specific; do
        "$python" -m venv --system-site-packages "$w/$kind" || return 1
        # where the interpreter is itself a virtual environment, its packages
        # (numpy, pytest) are not the system's: a .pth file names them
        "$python" -c 'import site; print("\n".join(site.getsitepackages()))' \
            > "$("$w/$kind/bin/python" -c 'import sysconfig; print(sysconfig.get_path("purelib"))')/cudyn-verify-parent.pth" ||
            return 1
        "$w/$kind/bin/pip" install -q --no-deps --no-index --ignore-installed \
            "$(ls "$w"/cudyn-*.whl | if [ $kind = abi3 ]; then grep abi3; else grep -v abi3; fi)" || return 1
        make check TESTS=tests/check-python.sh CUDYN_PYTHON_INSTALLED="$w/$kind/bin/python" VALGRIND= ||
            status=1
        cp tests/check-python.sh.log "$w/$kind-suite.log"
        echo "$kind: $(grep -E '^[0-9]+ (passed|failed)' tests/check-python.sh.log | tail -n 1)"
    done
    "$python" "$top_srcdir/bench/python_builds.py" version-specific="$w/specific/bin/python" \
        abi3="$w/abi3/bin/python" || status=1
    return $status
}

for s in "$@"; do
    case $s in
    check) step check make -j"$(nproc)" check ;;
    sanitize) step sanitize make check-gpu-sanitize ;;
    nccl) step nccl make check-gpu-nccl ;;
    pycuda) step pycuda env PYTHON="$python" "$top_srcdir/tests/gpu-pycuda-suite.sh" ;;
    bench) step bench make bench-peers ;;
    wheels) export out top_srcdir python && export -f wheels && step wheels bash -c wheels ;;
    *) echo "gpu-verify.sh: no step '$s'"; failed=$((failed + 1)) ;;
    esac
done
echo "gpu-verify: $# steps, $failed failed"
[ "$failed" = 0 ]
