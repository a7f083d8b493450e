#!/bin/bash
# cudyn-saxpy on the mock driver (which runs saxpy on the host): the full
# flow passes, a corrupted element is reported with its index, a failure in
# each phase is named with exit 8, no driver gives 3, a hang trips the
# watchdog (9; its message on stderr, a result being written left whole),
# -d all runs the devices at once, --json is valid (UTF-8) on every path,
# and no work is done that the result does not need: nothing freed before
# it, only the devices that run described, no wait for unused inputs.
# "defect N" marks the tests of issue 11's audit findings.
. "$top_srcdir/tests/common.sh"
saxpy="$top_builddir/tools/cudyn-saxpy"
nvrtc=$(CUDYN_LIBCUDA="$MOCK_LIBCUDA" "$probe" info | sed -n 's/^nvrtc_status=//p')
[ "$nvrtc" = CUDYN_OK ] || { echo "SKIP: cudyn-saxpy needs NVRTC to compile its kernel"; exit 77; }
json_ok() {
    # JSON is UTF-8 (RFC 8259); jq and python would quietly replace bad bytes
    if command -v iconv >/dev/null && ! printf '%s\n' "$1" | iconv -f UTF-8 -t UTF-8 >/dev/null 2>&1; then
        return 1
    fi
    if command -v jq >/dev/null; then printf '%s\n' "$1" | jq -e . >/dev/null 2>&1
    else printf '%s\n' "$1" | python3 -m json.tool >/dev/null 2>&1; fi
}
run_json() { # CODE args...: --json valid, result.exit_code = CODE
    want=$1; shift
    json=$("$saxpy" --json "$@" 2>/dev/null); got=$?
    [ "$got" = "$want" ] || { echo "FAIL: cudyn-saxpy --json $* exited $got, expected $want"; fail=1; }
    json_ok "$json" || { echo "FAIL: invalid JSON from cudyn-saxpy --json $*:"; printf '%s\n' "$json"; fail=1; }
    expect_match "$json" "\"schema\":\"cudyn-saxpy/2\""
    expect_match "$json" "\"exit_code\":$want,\"status\":\"(PASS|FAIL)\""
}

export CUDYN_LIBCUDA="$MOCK_LIBCUDA" MOCK_CUDA_MEM_LIMIT=1073741824
small="-n 100003 --iters 3"

# the full flow passes, every phase reported
expect_exit 0 "$saxpy" $small
for phase in "load driver" init generate device context compile "module load" allocate inputs host-to-device \
             launch synchronize device-to-host verify timing; do
    expect_match "$out" "^  $phase +ok "
done
# nothing is freed before the result (below)
expect_no_match "$out" "^  free "
# the inputs are made while the driver starts, the kernel compiled while
# the context is created, the data copied from pageable memory through a
# small pinned buffer, which also measures the host link, and the result
# verified while the device is timed
staged="staged through 4 x 97.6 KiB pinned, ([0-9]+ threads?|by the device thread): [0-9.]+ GB/s"
expect_match "$out" "^  generate +ok .*while the driver started\)$"
expect_match "$out" "compile +ok .*\(cache (hit|miss), sm_90; alongside the context\)"
expect_match "$out" "host memory pageable$"
expect_match "$out" "allocate +ok .*\(3 x 0\.4 MiB on the device, host pageable; 0\.4 MiB pinned probe, staging the copies\)"
expect_match "$out" "host-to-device +ok .*\(x and y, $staged\)"
expect_match "$out" "device-to-host +ok .*\($staged\)"
expect_match "$out" "verify +ok .*100003 exact, [0-9]+ threads"
expect_match "$out" "timing +ok .*\(3 iterations, overlapped with verify\)"
expect_match "$out" "^Kernel \(vectorised grid-stride\): .* GB/s; device-to-device copy .* GB/s"
expect_match "$out" "^Host link \(pinned 0\.4 MiB\): host-to-device [0-9.]+ GB/s, device-to-host [0-9.]+ GB/s$"
# application time, then how to measure the whole process, then the result
# as the last line (the man page says so)
expect_match "$out" "^Application time: [0-9]+ ms \(process start to this result; .*time cudyn-saxpy\)$"
[ "$(printf '%s\n' "$out" | tail -n 2 | head -n 1 | cut -c1-17)" = "Application time:" ] ||
    { echo "FAIL: the application time is not the line before the result"; fail=1; }
[ "$(printf '%s\n' "$out" | tail -n 1)" = "Result = PASS" ] || { echo "FAIL: the result is not the last line"; fail=1; }
expect_exit 0 "$saxpy" $small
expect_match "$out" "cache hit, sm_90"
run_json 0 $small
expect_match "$json" "\"mismatches\":0"
expect_match "$json" "\"whole_process\":\{\"ms\":null,"
expect_match "$json" "\"pinned_probe_bytes\":400012"
expect_exit 0 "$saxpy" $small --naive --pageable
expect_match "$out" "host pageable"
expect_exit 0 "$saxpy" $small --pinned
expect_match "$out" "host memory pinned$"
expect_match "$out" "inputs +ok .*generated into pinned memory"
expect_match "$out" "host-to-device +ok .*\(x and y, pinned: "
expect_match "$out" "device-to-host +ok .*\(pinned: "
# staged in chunks of a slot, several to a vector and one to a tiny one;
# threads copy where the slots are large enough and there are cores
expect_exit 0 "$saxpy" -n 3000017 --iters 2
expect_match "$out" "host-to-device +ok .*\(x and y, staged through 4 x 2\.9 MiB pinned, ([0-9]+ threads?|by the device thread): "
expect_match "$out" "verify +ok .*3000017 exact"
expect_exit 0 "$saxpy" -n 7 --iters 2
expect_match "$out" "device-to-host +ok .*\(staged through 1 x 28 bytes pinned, by the device thread: "
# out of pinned memory: the copies go straight from pageable memory, as
# they would without staging, the host link is not probed, and it passes
for args in "" "-d all"; do
    MOCK_CUDA_DEVICES="A:90,B:80" MOCK_CUDA_FAIL=cuMemHostAlloc:1:2 expect_exit 0 "$saxpy" $small $args
    expect_match "$out" "allocate +ok .*pinned memory unavailable \(the driver is out of it\): copies unstaged, host link not probed\)"
    expect_match "$out" "host-to-device +ok .*\(x and y, pageable: [0-9.]+ GB/s\)"
    expect_match "$out" "device-to-host +ok .*\(pageable: [0-9.]+ GB/s\)"
    expect_match "$out" "^Host link: not probed \(no pinned memory\)$"
    expect_match "$out" "^Result = PASS$"
done
MOCK_CUDA_FAIL=cuMemHostAlloc:1:2 run_json 0 $small
expect_match "$json" "\"pinned_probe_bytes\":0,\"pinned_host_to_device_gbps\":null,\"pinned_device_to_host_gbps\":null"
MOCK_CUDA_FAIL=cuMemHostAlloc:1:2,cuMemcpyHtoD_v2:1:999 expect_exit 8 "$saxpy" $small
expect_match "$out" "^  host-to-device +FAILED "
# with --pinned, out of pinned memory is a failure, as before
MOCK_CUDA_FAIL=cuMemHostAlloc:1:2 expect_exit 8 "$saxpy" $small --pinned
expect_match "$out" "^  allocate +FAILED "
MOCK_CUDA_DEVICES="A:90,B:80" expect_exit 0 "$saxpy" $small -d GPU-2021
expect_no_match "$out" "^Device 0"

# nothing is freed before the result: the module is unloaded after it,
# device and page-locked memory go with the context when the process
# exits; a module unload that hangs or fails cannot change the result
MOCK_CUDA_COUNTS="$tmp/saxpy.counts" "$saxpy" $small > /dev/null 2>&1
expect_line "$(awk '$1 == "cuModuleUnload" {print $1}' "$tmp/saxpy.counts")" "cuModuleUnload"
expect_no_match "$(cat "$tmp/saxpy.counts")" "^cuMem(Free_v2|FreeHost) "
MOCK_CUDA_HANG=cuModuleUnload:30 expect_exit 0 "$saxpy" $small --timeout 2
expect_match "$out" "^Result = PASS$"
expect_match "$out" "^cudyn-saxpy: timed out after 2 s, after the result was written; it stands$"
MOCK_CUDA_FAIL=cuModuleUnload:1:999 expect_exit 0 "$saxpy" $small
expect_match "$out" "^Result = PASS$"
# --free (for leak checkers): after the result, every device and
# page-locked allocation is freed and the primary context released, on each
# device; pageable: 3 device vectors and the probe; --pinned: 3 more
# page-locked vectors
calls() { awk -v f="$2" '$1 == f {n = $2} END {print n + 0}' "$1"; }
MOCK_CUDA_COUNTS="$tmp/free.counts" expect_exit 0 "$saxpy" $small --free
expect_match "$out" "^Result = PASS$"
expect_line "$(calls "$tmp/free.counts" cuMemAlloc_v2) $(calls "$tmp/free.counts" cuMemFree_v2)" "3 3"
expect_line "$(calls "$tmp/free.counts" cuMemHostAlloc) $(calls "$tmp/free.counts" cuMemFreeHost)" "1 1"
expect_line "$(calls "$tmp/free.counts" cuDevicePrimaryCtxRelease_v2)" 1
MOCK_CUDA_DEVICES="A:90,B:80" MOCK_CUDA_COUNTS="$tmp/free2.counts" expect_exit 0 "$saxpy" $small --free --pinned -d all
expect_line "$(calls "$tmp/free2.counts" cuMemAlloc_v2) $(calls "$tmp/free2.counts" cuMemFree_v2)" "6 6"
expect_line "$(calls "$tmp/free2.counts" cuMemHostAlloc) $(calls "$tmp/free2.counts" cuMemFreeHost)" "8 8"
expect_line "$(calls "$tmp/free2.counts" cuDevicePrimaryCtxRelease_v2)" 2
# without it, none of that (the counts above are the ordinary run's)
expect_line "$(calls "$tmp/saxpy.counts" cuMemAlloc_v2) $(calls "$tmp/saxpy.counts" cuMemFree_v2)" "3 0"
expect_line "$(calls "$tmp/saxpy.counts" cuDevicePrimaryCtxRelease_v2)" 0

# only what is needed: the selected device alone is described (all of them
# for a UUID or PCI id, to match it), and --naive asks for no occupancy
# (its grid is one thread per element)
for case in ":1" "-d 1:1" "-d GPU-2021:2" "-d 18:00.0:2" "-d all:2"; do
    args=${case%:*}
    MOCK_CUDA_DEVICES="A:90,B:80" MOCK_CUDA_COUNTS="$tmp/describe.counts" expect_exit 0 "$saxpy" $small $args
    named=$(awk '$1 == "cuDeviceGetName" {print $2}' "$tmp/describe.counts")
    [ "$named" = "${case##*:}" ] || { echo "FAIL: cudyn-saxpy $args described $named devices, not ${case##*:}"; fail=1; }
    expect_match "$out" "^  device +ok "
done
MOCK_CUDA_COUNTS="$tmp/naive.counts" expect_exit 0 "$saxpy" $small --naive
expect_no_match "$(cat "$tmp/naive.counts")" "^cuOccupancy"
MOCK_CUDA_COUNTS="$tmp/grid.counts" expect_exit 0 "$saxpy" $small
expect_match "$(cat "$tmp/grid.counts")" "^cuOccupancyMaxActiveBlocksPerMultiprocessor "

# -d all: every device at once, one thread each, and their sum
MOCK_CUDA_DEVICES="A:90,B:80" expect_exit 0 "$saxpy" $small -d all
expect_match "$out" "^Device 0: A"
expect_match "$out" "^Device 1: B"
expect_match "$out" "^All 2 devices at once: kernel [0-9]+ GB/s, device-to-device copy [0-9]+ GB/s"
MOCK_CUDA_DEVICES="A:90,B:80" run_json 0 $small -d all
expect_match "$json" "\"all_devices\":\{\"devices\":2,"
# at once: both devices are in their synchronize when the watchdog fires
MOCK_CUDA_DEVICES="A:90,B:80" MOCK_CUDA_HANG=cuCtxSynchronize:30 expect_exit 9 "$saxpy" $small -d all --timeout 2
expect_match "$out" "timed out after 2 s with device 0 in phase 'synchronize', device 1 in phase 'synchronize'"
MOCK_CUDA_DEVICES="A:90,B:80" MOCK_CUDA_HANG=cuCtxSynchronize:30 run_json 9 $small -d all --timeout 2
# one device failing fails the run, naming it; the other still passes
MOCK_CUDA_DEVICES="A:90,B:80" MOCK_CUDA_FAIL=cuDeviceGetName:2:999 expect_exit 8 "$saxpy" $small -d all
expect_match "$out" "^Device 1: could not be described"
expect_match "$out" "^  verify +ok "
expect_match "$out" "^Result = FAIL$"
MOCK_CUDA_DEVICES="A:90,B:80" MOCK_CUDA_FAIL=cuDeviceGetName:2:999 run_json 8 $small -d all
expect_match "$json" "\"message\":\"device 1 failed in phase 'device': "
expect_match "$json" "\"ordinal\":0,.*\"exit_code\":0\}"

# defect 1: the driver cannot count its devices after a good cuInit: no
# crash, and no pass having tested no device (with -d all, --json too)
for args in "" "-d all" "--json" "-d all --json"; do
    MOCK_CUDA_FAIL=cuDeviceGetCount:1:999 expect_exit 4 "$saxpy" $small $args
    expect_match "$out" "cuDeviceGetCount returned CUDA_ERROR_UNKNOWN"
    expect_no_match "$out" "PASS"
    MOCK_CUDA_FAIL=cuDeviceGetCount:2:999 expect_exit 8 "$saxpy" $small $args
    expect_no_match "$out" "PASS"
done
MOCK_CUDA_FAIL=cuDeviceGetCount:1:999 run_json 4 $small -d all
MOCK_CUDA_FAIL=cuDeviceGetCount:2:999 run_json 8 $small -d all
expect_match "$json" "\"message\":\"device 0 failed in phase 'device': "

# defect 2: the selected device cannot be described: FAIL, not PASS
MOCK_CUDA_FAIL=cuDeviceGetName:1:999 expect_exit 8 "$saxpy" $small
expect_match "$out" "^  device +FAILED "
expect_match "$out" "cuDeviceGetName returned CUDA_ERROR_UNKNOWN"
expect_match "$out" "^Result = FAIL$"
MOCK_CUDA_FAIL=cuDeviceGetName:1:999 run_json 8 $small

# defect 15: digits are an ordinal only; "2" of two devices is not found,
# though device 1's UUID starts with 2
MOCK_CUDA_DEVICES="A:90,B:80" expect_exit 6 "$saxpy" $small -d 2
expect_match "$out" "device '2' not found"
expect_no_match "$out" "^Device 1"
MOCK_CUDA_DEVICES="A:90,B:80" run_json 6 $small -d 2
# an ordinal never depends on the other devices' descriptions
MOCK_CUDA_DEVICES="A:90,B:80" MOCK_CUDA_FAIL=cuDeviceGetName:2:999 expect_exit 6 "$saxpy" $small -d 7
expect_match "$out" "device '7' not found"
MOCK_CUDA_DEVICES="A:90,B:80" MOCK_CUDA_FAIL=cuDeviceGetName:2:999 expect_exit 0 "$saxpy" $small -d 0
# an empty selector names no device (it is a prefix of every UUID)
expect_exit 6 "$saxpy" $small -d ''
expect_match "$out" "device '' not found"
expect_no_match "$out" "^Device 0"
run_json 6 $small -d ''

# a wrong element: exit 1, with its index and values; the timing that ran
# alongside is not reported
MOCK_CUDA_CORRUPT=4242 expect_exit 1 "$saxpy" $small
expect_match "$out" "verify +WRONG .*1 of 100003 wrong, first at \[4242\]: expected 316, got 317"
expect_match "$out" "timing +ok .*; not reported: the result is wrong\)"
expect_no_match "$out" "^Kernel "
expect_match "$out" "^Result = FAIL$"
MOCK_CUDA_CORRUPT=4242 run_json 1 $small
expect_match "$json" "\"first_bad_index\":4242"

# a CUDA error in each phase: exit 8, the phase named, the error translated
# and the library's hint below it (the nth call: a staged copy failing
# halfway, and the straight copies of --pinned)
for case in "context:cuDevicePrimaryCtxRetain:1" "module load:cuModuleLoadDataEx:1" "allocate:cuMemAlloc_v2:1" \
            "allocate:cuMemHostAlloc:1" "host-to-device:cuMemcpyHtoDAsync_v2:1" \
            "host-to-device:cuMemcpyHtoDAsync_v2:7" "host-to-device:cuEventSynchronize:2" \
            "launch:cuLaunchKernel:1" "synchronize:cuCtxSynchronize:1" "device-to-host:cuMemcpyDtoHAsync_v2:1" \
            "device-to-host:cuMemcpyDtoHAsync_v2:5" "timing:cuMemcpyDtoDAsync_v2:1" \
            "host-to-device:cuMemcpyHtoD_v2:1:--pinned" "device-to-host:cuMemcpyDtoH_v2:1:--pinned"; do
    phase=${case%%:*}; rest=${case#*:}; fn=${rest%%:*}; rest=${rest#*:}; nth=${rest%%:*}
    args=; [ "$rest" = "$nth" ] || args=${rest#*:}
    MOCK_CUDA_FAIL="$fn:$nth:999" expect_exit 8 "$saxpy" $small $args
    expect_match "$out" "^  $phase +FAILED "
    expect_match "$out" "CUDA_ERROR_UNKNOWN"
    expect_match "$out" "^    hint: .*Xid"
    code=2; [ "$fn" = cuMemHostAlloc ] && code=3 # out of pinned memory is no failure (above)
    MOCK_CUDA_FAIL="$fn:$nth:$code" run_json 8 $small $args
    expect_match "$json" "\"message\":\"device 0 failed in phase '$phase': "
done

# nothing leaks when a phase fails halfway (valgrind, when installed)
if [ -n "${VALGRIND:-}" ]; then
    real="$top_builddir/tools/.libs/cudyn-saxpy"
    [ -x "$real" ] || real="$saxpy"
    for fn in cuMemAlloc_v2:3 cuMemcpyHtoDAsync_v2:7 cuMemcpyDtoHAsync_v2:1 cuLaunchKernel:1; do
        LD_LIBRARY_PATH="$top_builddir/lib/.libs" MOCK_CUDA_FAIL="$fn:2" \
            $VALGRIND --quiet --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect \
            "$real" -n 1000 --iters 0 > "$tmp/vg.log" 2>&1
        rc=$?
        [ $rc = 8 ] || { echo "FAIL: cudyn-saxpy with $fn failing under valgrind exited $rc"; cat "$tmp/vg.log"; fail=1; }
    done
fi

# --version and --help are JSON too with --json
run_json 0 --version
expect_match "$json" "\"version\":\"[0-9]+\.[0-9]+"
run_json 0 -h
expect_match "$json" "\"help\":\"Usage: cudyn-saxpy"
json=$("$saxpy" -h --json) && json_ok "$json" || { echo "FAIL: cudyn-saxpy -h --json"; fail=1; }

# no driver, no device, unknown device, usage
CUDYN_LIBCUDA=/nonexistent/libcuda.so.1 expect_exit 3 "$saxpy"
expect_match "$out" "is not usable"
CUDYN_LIBCUDA=/nonexistent/libcuda.so.1 run_json 3
MOCK_CUDA_DEVICES=none expect_exit 5 "$saxpy"
MOCK_CUDA_DEVICES=none run_json 5
MOCK_CUDA_FAIL=cuInit:1:999 expect_exit 4 "$saxpy"
# a run that fails before any device used the inputs does not wait for
# them: without a driver, 3 x 512 MiB of them cost no time (the fastest of
# three runs each; leaks are checked elsewhere, not what costs time here)
fastest_ms() {
    local best= t0 ms
    for _ in 1 2 3; do
        t0=$(date +%s%N)
        env CUDYN_LIBCUDA=/nonexistent/libcuda.so.1 ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
            "$saxpy" -q "$@" > /dev/null 2>&1
        ms=$(( ($(date +%s%N) - t0) / 1000000 ))
        [ -n "$best" ] && [ "$best" -le "$ms" ] || best=$ms
    done
    echo "$best"
}
tiny_ms=$(fastest_ms -n 1000) big_ms=$(fastest_ms -n 134217728)
[ $((big_ms - tiny_ms)) -lt 50 ] ||
    { echo "FAIL: without a driver, -n 134217728 took $big_ms ms, -n 1000 $tiny_ms ms: it waited for the inputs"; fail=1; }
expect_exit 6 "$saxpy" -d 7
run_json 6 -d 7
expect_exit 2 "$saxpy" -n 0
expect_line "$out" "cudyn-saxpy: -n takes a number of floats from 1 to 4294967296, not '0' (see cudyn-saxpy --help)"
expect_exit 2 "$saxpy" --iters=-1
expect_exit 2 "$saxpy" --naive=yes
expect_line "$out" "cudyn-saxpy: option '--naive' takes no value (see cudyn-saxpy --help)"
expect_exit 2 "$saxpy" --bogus
expect_line "$out" "cudyn-saxpy: unrecognized option '--bogus' (see cudyn-saxpy --help)"
[ "$(printf '%s\n' "$out" | wc -l)" = 1 ] || { echo "FAIL: a usage error printed more than one line"; fail=1; }
run_json 2 --bogus
run_json 2 $'--bogus\xfe'   # not UTF-8: still valid JSON
expect_match "$json" "unrecognized option '--bogus\\\\ufffd'"

# the watchdog: a synchronize that hangs
MOCK_CUDA_HANG=cuCtxSynchronize:30 expect_exit 9 "$saxpy" $small --timeout 1
expect_match "$out" "timed out after 1 s in phase 'synchronize'"
MOCK_CUDA_HANG=cuCtxSynchronize:30 run_json 9 $small --timeout 1
# a hang while the device is described is blamed on the device phase
MOCK_CUDA_HANG=cuDeviceGetName:30 expect_exit 9 "$saxpy" $small --timeout 1
expect_match "$out" "timed out after 1 s in phase 'device'"
# its message goes to stderr, so -q leaves only the Result line (man page)
out=$(MOCK_CUDA_HANG=cuCtxSynchronize:30 "$saxpy" $small --timeout 1 2>/dev/null)
[ "$out" = "Result = FAIL" ] || { echo "FAIL: after a timeout, stdout holds more than the result: $out"; fail=1; }
out=$(MOCK_CUDA_HANG=cuCtxSynchronize:30 "$saxpy" $small --timeout 1 -q 2>&1)
[ "$out" = "Result = FAIL" ] || { echo "FAIL: -q printed more than the result after a timeout: $out"; fail=1; }

# the watchdog firing while the result is being written waits for it: a
# document longer than a one-page pipe, read only after the timeout, is
# whole (it used to be cut where the pipe was full)
if command -v python3 >/dev/null; then
    MOCK_CUDA_DEVICES="A:90,B:90,C:90,D:90,E:90,F:90,G:90,H:90" python3 - "$saxpy" > "$tmp/slow-reader.log" 2>&1 <<'EOF'
import fcntl, json, os, subprocess, sys, time
r, w = os.pipe()
fcntl.fcntl(w, 1031, 4096)  # F_SETPIPE_SZ: one page
p = subprocess.Popen([sys.argv[1], "-n", "1000", "--iters", "1", "-d", "all", "--json", "--timeout", "2"],
                     stdout=w, stderr=subprocess.DEVNULL)
os.close(w)
time.sleep(4)  # past the timeout, the run long done: the result is being written
data = b""
while True:
    chunk = os.read(r, 65536)
    if not chunk:
        break
    data += chunk
rc = p.wait()
doc = json.loads(data)
assert doc["result"]["exit_code"] == rc == 0, (rc, doc["result"])
EOF
    [ $? = 0 ] || { echo "FAIL: the watchdog cut the result short:"; sed 's/^/    | /' "$tmp/slow-reader.log" | tail -5; fail=1; }
fi

# -q: just the result
expect_exit 0 "$saxpy" $small -q
[ "$out" = "Result = PASS" ] || { echo "FAIL: -q printed: $out"; fail=1; }

# the manual page is well-formed
if man --help 2>/dev/null | grep -q -- --warnings; then
    warnings=$(LC_ALL=C.UTF-8 MANROFFSEQ='' MANWIDTH=80 man --warnings -l "$top_srcdir/man/cudyn-saxpy.1" 2>&1 >/dev/null)
    [ -z "$warnings" ] || { echo "FAIL: man --warnings -l man/cudyn-saxpy.1:"; printf '%s\n' "$warnings"; fail=1; }
fi
finish
