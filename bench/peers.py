#!/usr/bin/env python3
"""`make bench-peers`: the same work done through direct C, cudyn,
cuda-python and CuPy, measured in one run and shown in one table.

Rows (lower is better on each; HOW below says exactly what each measures):
the documentation's SAXPY application as a whole process, an empty-kernel
launch loop, and a trivial call (a query of the idle default stream).  The
SAXPY programs: bench/saxpy_direct (the baseline, nothing of cudyn),
cudyn-saxpy, examples/python/saxpy.py for the Python module (column
"cudyn Python") and bench/peers_saxpy.py for cuda-python and CuPy; the other
rows: bench/peers_c for the C columns, this script's workers for Python.
The Python module's rows (import, launch loops from Python, gpuarray
arithmetic, DLPack exchange) compare the column "cudyn Python" with the
peers; the module is found through --cudyn-python (default: the build's
python/staged, made by make check).

A peer that cannot be imported gives a "skipped: <module> not importable
(<error>)" line and empty cells, never a traceback; with no GPU the C
columns run on the mock driver (MOCK_LIBCUDA, as `make bench` does) and the
peers are skipped.  Exit status 0 unless the arguments are wrong.

    peers.py [--peers-c PATH] [--saxpy-direct PATH] [--cudyn-saxpy PATH] [--cudyn-python DIR]
             [--runs N] [--launches N] [--calls N] [--rounds N] [-n ELEMS] [--json]
    peers.py --self-test       checks the table and the JSON on made-up numbers
"""

import argparse
import datetime
import json
import os
import platform
import statistics
import subprocess
import sys
import time

SCHEMA = "cudyn-bench-peers/1"
COLUMNS = ["direct C", "cudyn", "cudyn Python", "cuda-python", "CuPy"]
PEERS = {"cuda-python": "cuda-python", "CuPy": "cupy"}  # column -> the name the workers take
PYTHON_COLUMN = "cudyn Python"  # the Python module: bench/peers.py --worker cudyn
ROWS = [  # key, title, unit, decimals
    ("saxpy_process", "SAXPY application, whole process", "ms", 1),
    ("floor", "driver floor, whole process", "ms", 1),
    ("launch", "empty-kernel launch loop", "us/launch", 3),
    ("call", "trivial call (idle stream query)", "ns/call", 1),
    ("elementwise", "elementwise SAXPY, 2^24 floats", "us", 1),
    ("reduction", "reduction (dot), 2^24 floats", "us", 1),
    ("import", "import the module (numpy loaded)", "ms", 1),
    ("import_core", "import cuda.core (numpy loaded)", "ms", 1),
    ("launch_prepared", "launch loop, prepared call", "us/launch", 3),
    ("ga_2x", "2*x, 2^24 floats", "us/op", 1),
    ("ga_axpy", "a*x + y, 2^24 floats", "us/op", 1),
    ("ga_sum", "sum(x), 2^24 floats", "us/op", 1),
    ("ga_dot", "dot(x, y), 2^24 floats", "us/op", 1),
    ("ga_2x_small", "2*x, 2^10 floats", "us/op", 2),
    ("ga_axpy_small", "a*x + y, 2^10 floats", "us/op", 2),
    ("ga_sum_small", "sum(x), 2^10 floats", "us/op", 2),
    ("ga_dot_small", "dot(x, y), 2^10 floats", "us/op", 2),
    ("ga_exp", "cumath.exp(x), 2^24 floats", "us/op", 1),
    ("ga_gt", "x > 0.5, 2^24 floats", "us/op", 1),
    ("ga_strided", "2 * x[::2], 2^24 floats", "us/op", 1),
    ("ga_setslice", "z[::2] = y[::2], 2^24 floats", "us/op", 1),
    ("ga_concat", "concatenate((x, y)), 2^24 floats", "us/op", 1),
    ("ga_exp_small", "cumath.exp(x), 2^10 floats", "us/op", 2),
    ("ga_gt_small", "x > 0.5, 2^10 floats", "us/op", 2),
    ("ga_strided_small", "2 * x[::2], 2^10 floats", "us/op", 2),
    ("ga_setslice_small", "z[::2] = y[::2], 2^10 floats", "us/op", 2),
    ("ga_concat_small", "concatenate((x, y)), 2^10 floats", "us/op", 2),
    ("exchange", "DLPack/CAI exchange, 2^24 floats", "us", 2),
    ("exchange_small", "DLPack/CAI exchange, 2^10 floats", "us", 2),
]
# The column a row's verdict ("cudyn ahead of the peers") takes for cudyn:
# the C library's, or the Python module's for the rows of the module.
GA_OPS = ("2x", "axpy", "sum", "dot", "exp", "gt", "strided", "setslice", "concat")
PYTHON_ROWS = {"import", "import_core", "launch_prepared", "exchange", "exchange_small"} | \
    {f"ga_{op}{suffix}" for op in GA_OPS for suffix in ("", "_small")}
GA_SIZES = {"": 1 << 24, "_small": 1 << 10}
GA_REPEATS = {"": 20, "_small": 2000}  # operations per timed round
# What each row measures, for the table's notes and the JSON's "how".
HOW = {
    "saxpy_process": "{saxpy_elements} floats; wall clock of the whole process, start to exit, median of {saxpy_runs}"
                     " runs after one untimed warm-up run each. direct C: bench/saxpy_direct, NVRTC on every run as in"
                     " the documentation; cudyn: cudyn-saxpy -q --naive --iters 0, warm kernel cache; cuda-python and"
                     " CuPy: bench/peers_saxpy.py in a fresh interpreter, imports included (CuPy's kernel cache warm)",
    "floor": "bench/saxpy_direct --floor: cuInit, the primary context, three allocations of {saxpy_elements}"
             " floats and exit, nothing else; what the driver's start-up and teardown cost any SAXPY process, timed"
             " as the row above, interleaved with it",
    "launch": "{launches} launches of an empty kernel on the default stream and one synchronisation, timed whole;"
              " median of {rounds} rounds, every column's process pinned to the same CPU. cuLaunchKernel /"
              " cudyn_launch / driver.cuLaunchKernel / a RawKernel call",
    "call": "a query of the idle default stream, {calls} calls per round, median of {rounds} rounds. cuStreamQuery /"
            " cudyn_stream_query / driver.cuStreamQuery / cupy.cuda.runtime.streamQuery; the Python columns"
            " include the interpreter's loop",
}
HOW["elementwise"] = ("a kernel generated from the expression y[i] = a * x[i] + y[i] (in place: reads x and y,"
                      " writes y): cudyn_elementwise_* / CuPy's ElementwiseKernel; one launch timed with events,"
                      " median of 21 after a warm-up")
HOW["reduction"] = ("the dot product of two vectors into device memory, deterministic in cudyn (one launch, the"
                    " last block combining the partials in a fixed order): cudyn_reduction_* / CuPy's"
                    " ReductionKernel; timed as the row above")
HOW["import"] = ("a fresh interpreter with numpy imported first times `import MODULE` alone, median of 5: cudyn,"
                 " cuda.bindings.driver (cuda-python), cupy")
HOW["import_core"] = "as the row above for cuda.core (the cudyn column repeats `import cudyn`)"
HOW["launch_prepared"] = ("the launch loop above through a prepared call whose launch configuration is bound once"
                          " (p = Function.prepare(\"\", grid=, block=), then p()): no argument discovery, no"
                          " geometry parsed per call; the C columns of the launch row are the reference")
for _suffix, _n in (("", "2^24"), ("_small", "2^10")):
    for _op, _text in (("2x", "2*x"), ("axpy", "a*x + y (two kernels, as written)"), ("sum", "sum(x)"),
                       ("dot", "dot(x, y)"), ("exp", "exp(x) (cudyn.cumath.exp / cupy.exp)"),
                       ("gt", "x > 0.5 (a bool array)"), ("strided", "2 * x[::2] (a view with a step, 2^23 of them)"),
                       ("setslice", "z[::2] = y[::2] (in place, a strided copy)"),
                       ("concat", "concatenate((x, y)) (2^25 elements out)")):
        HOW[f"ga_{_op}{_suffix}"] = (f"{_text} on {_n} float32 elements, results to fresh device arrays (each"
                                     " library's memory pool), Python loop of {repeats" + _suffix + "} operations"
                                     " and one synchronisation, wall clock per operation, median of 5 rounds;"
                                     " cudyn.gpuarray / CuPy")
HOW["exchange"] = ("cudyn.from_dlpack(a CuPy array) and cupy.from_dlpack(a cudyn array), a round trip of both,"
                   " checked to give the same device pointer; median per round trip")
HOW["exchange_small"] = "as the row above on 2^10 elements: the same time shows the exchange is O(1)"
HERE = os.path.dirname(os.path.abspath(__file__))
EXAMPLES = os.path.join(os.path.dirname(HERE), "examples", "python")
EMPTY_SOURCE = 'extern "C" __global__ void empty() {}\n'


def one_line(text):
    return " ".join(str(text).split())


# ------------------------------------------------------------ the workers
# Each peer is measured in a process of its own (this script run again
# with --worker), so that one peer's state cannot slow another's, and a
# crash is one failed cell.

def worker_cuda_python(args, put):
    import peers_saxpy as ps
    driver, nvrtc, layout = ps.import_cuda_python()
    package = sys.modules.get("cuda.bindings") or sys.modules.get("cuda")
    put("version", f"{ps.version_of('cuda-bindings', 'cuda-python', module=package) or '?'} ({layout})")
    if args.import_only:
        return
    _, major, minor = ps.cuda_python_setup(driver)
    module = ps.cuda_python_module(driver, nvrtc, EMPTY_SOURCE, major, minor)
    kernel = ps.check(driver.cuModuleGetFunction(module, b"empty"), "cuModuleGetFunction")
    launch, query, sync = driver.cuLaunchKernel, driver.cuStreamQuery, driver.cuCtxSynchronize
    stream = driver.CUstream(0)  # the legacy default stream, as the C columns use
    ps.check(launch(kernel, 1, 1, 1, 1, 1, 1, 0, stream, 0, 0), "cuLaunchKernel")
    for _ in range(1000):
        launch(kernel, 1, 1, 1, 1, 1, 1, 0, stream, 0, 0)
    ps.check(sync(), "cuCtxSynchronize")

    def launches(count):
        for _ in range(count):
            launch(kernel, 1, 1, 1, 1, 1, 1, 0, stream, 0, 0)
        sync()

    def calls(count):
        for _ in range(count):
            query(stream)

    measure(args, put, launches, calls)


def worker_cupy(args, put):
    import peers_saxpy as ps
    cp = ps.import_or_skip("cupy")
    put("version", ps.version_of("cupy", module=cp) or "?")
    if args.import_only:
        return
    kernel = cp.RawKernel(EMPTY_SOURCE, "empty")
    sync, query = cp.cuda.runtime.deviceSynchronize, cp.cuda.runtime.streamQuery
    for _ in range(1000):
        kernel((1,), (1,), ())
    sync()

    def launches(count):
        for _ in range(count):
            kernel((1,), (1,), ())
        sync()

    def calls(count):
        for _ in range(count):
            query(0)

    measure(args, put, launches, calls)
    cupy_expressions(cp, put)
    for suffix, n in GA_SIZES.items():
        x = (cp.arange(n, dtype=cp.uint32) % 1024).astype(cp.float32)
        y = (cp.arange(n, dtype=cp.uint32) % 37).astype(cp.float32)
        z = x.copy()

        def set_slice():
            z[::2] = y[::2]
        ops = {"2x": lambda: 2 * x, "axpy": lambda: 2.0 * x + y, "sum": lambda: x.sum(), "dot": lambda: cp.dot(x, y),
               "exp": lambda: cp.exp(x), "gt": lambda: x > 0.5, "strided": lambda: 2 * x[::2], "setslice": set_slice,
               "concat": lambda: cp.concatenate((x, y))}
        array_ops(put, suffix, ops, sync)


def cupy_expressions(cp, put):
    """The elementwise and reduction rows: the same work as peers_c's."""
    n = 1 << 24
    x = (cp.arange(n, dtype=cp.uint32) % 1024 + 1).astype(cp.float32)
    y = x.copy()
    saxpy = cp.ElementwiseKernel("float32 a, float32 x", "float32 y", "y = a * x + y", "saxpy")
    dot = cp.ReductionKernel("float32 x, float32 y", "float32 z", "x * y", "a + b", "z = a", "0", "dot")
    two = cp.float32(2.0)
    for key, run in (("elementwise_us", lambda: saxpy(two, x, y)), ("reduction_us", lambda: dot(x, y))):
        run()  # warm up: compiles or loads from CuPy's cache
        times = []
        start, end = cp.cuda.Event(), cp.cuda.Event()
        for _ in range(21):
            start.record()
            run()
            end.record()
            end.synchronize()
            times.append(cp.cuda.get_elapsed_time(start, end) * 1e3)
        put(key, f"{statistics.median(times):.2f}")


def array_ops(put, suffix, ops, sync):
    """The ga_* rows: each operation repeated in a Python loop, then one
    synchronisation; the wall clock per operation, median of 5 rounds."""
    repeats = GA_REPEATS[suffix]
    for name, op in ops.items():
        for _ in range(3):
            op()
        sync()
        times = []
        for _ in range(5):
            t0 = time.perf_counter_ns()
            for _ in range(repeats):
                op()
            sync()
            times.append((time.perf_counter_ns() - t0) / repeats / 1e3)
        put(f"ga_{name}{suffix}_us", f"{statistics.median(times):.3f}")


def worker_cudyn(args, put):
    """The Python module: launch loops, expression kernels, gpuarray, exchange."""
    import peers_saxpy as ps
    cudyn = ps.import_or_skip("cudyn")
    put("version", f"{cudyn.version()} ({os.path.dirname(cudyn.__file__)})")  # which module: the stage or a wheel
    if args.import_only:
        return
    np = ps.import_or_skip("numpy")
    kernel = cudyn.SourceModule(EMPTY_SOURCE, no_extern_c=True).get_function("empty")
    sync = cudyn.synchronize
    grid = block = (1, 1, 1)
    prepared = kernel.prepare("", grid=grid, block=block)
    for _ in range(1000):
        kernel(grid=grid, block=block)
    sync()

    def launches(count):
        for _ in range(count):
            kernel(grid=grid, block=block)
        sync()

    def prepared_launches(count):
        for _ in range(count):
            prepared()
        sync()

    measure(args, put, launches, None)
    per_launch = []
    for _ in range(args.rounds):
        t0 = time.perf_counter_ns()
        prepared_launches(args.launches)
        per_launch.append((time.perf_counter_ns() - t0) / args.launches / 1e3)
    put("launch_prepared_us", f"{statistics.median(per_launch):.4f}")
    if args.mock:  # the rest is the GPU's work: not timed on the mock
        return

    # the expression rows, as peers_c and CuPy do them
    from cudyn import cumath, gpuarray
    n = 1 << 24
    x = gpuarray.to_gpu((np.arange(n, dtype=np.uint32) % 1024 + 1).astype(np.float32))
    y = x.copy()
    saxpy = cudyn.ElementwiseKernel("float a, const float *x, float *y", "y[i] = a * x[i] + y[i]", "saxpy")
    dot = cudyn.ReductionKernel(np.float32, "0", "a + b", "x[i] * y[i]", "const float *x, const float *y", "dot")
    out = gpuarray.empty((), np.float32)
    two = np.float32(2)
    start, end = cudyn.Event(), cudyn.Event()
    for key, run in (("elementwise_us", lambda: saxpy(two, x, y)), ("reduction_us", lambda: dot(x, y, out=out))):
        run()
        times = []
        for _ in range(21):
            start.record()
            run()
            end.record()
            end.synchronize()
            times.append(end.time_since(start) * 1e3)
        put(key, f"{statistics.median(times):.2f}")
    del x, y

    for suffix, n in GA_SIZES.items():
        x = gpuarray.to_gpu((np.arange(n, dtype=np.uint32) % 1024).astype(np.float32))
        y = gpuarray.to_gpu((np.arange(n, dtype=np.uint32) % 37).astype(np.float32))
        z = x.copy()

        def set_slice():
            z[::2] = y[::2]
        ops = {"2x": lambda: 2 * x, "axpy": lambda: 2.0 * x + y, "sum": lambda: gpuarray.sum(x),
               "dot": lambda: gpuarray.dot(x, y), "exp": lambda: cumath.exp(x), "gt": lambda: x > 0.5,
               "strided": lambda: 2 * x[::2], "setslice": set_slice,
               "concat": lambda: gpuarray.concatenate((x, y))}
        array_ops(put, suffix, ops, sync)

    # zero-copy exchange with CuPy, both ways
    try:
        import cupy as cp
    except Exception as e:  # noqa: BLE001 (a skip line)
        put("exchange_error", f"CuPy not importable ({type(e).__name__})")
        return
    for suffix, n in GA_SIZES.items():
        c = cp.zeros(n, dtype=cp.float32)
        g = cudyn.from_dlpack(c)
        back = cp.from_dlpack(gpuarray.GPUArray(g.shape, g.dtype, ptr=g.ptr, owner=g))
        if not (g.ptr == c.data.ptr == back.data.ptr):
            put("exchange_error", "the exchange copied: the pointers differ")
            return
        times = []
        for _ in range(5):
            t0 = time.perf_counter_ns()
            for _ in range(1000):
                cp.from_dlpack(cudyn.from_dlpack(c))
            times.append((time.perf_counter_ns() - t0) / 1000 / 1e3)
        put(f"exchange{suffix}_us", f"{statistics.median(times):.3f}")


def measure(args, put, launches, calls):
    """The medians of the launch loop and of the trivial call."""
    per_launch, per_call = [], []
    for _ in range(args.rounds):
        t0 = time.perf_counter_ns()
        launches(args.launches)
        per_launch.append((time.perf_counter_ns() - t0) / args.launches / 1e3)
    for _ in range(args.rounds if calls else 0):
        t0 = time.perf_counter_ns()
        calls(args.calls)
        per_call.append((time.perf_counter_ns() - t0) / args.calls)
    put("launch_us", f"{statistics.median(per_launch):.4f}")
    if per_call:
        put("call_ns", f"{statistics.median(per_call):.2f}")


def worker(args):
    sys.path.insert(0, HERE)
    import peers_saxpy as ps

    def put(key, value):
        print(f"{key}\t{one_line(value)}", flush=True)

    try:
        {"cuda-python": worker_cuda_python, "cupy": worker_cupy, "cudyn": worker_cudyn}[args.worker](args, put)
    except ps.Skip as e:
        put("skip", e)
    except Exception as e:  # one line, never a traceback
        put("error", f"{type(e).__name__}: {e}")
    return 0


# ------------------------------------------------------------ running things

def gpu_local_cpu():
    """One CPU next to the GPU, for the processes that time launch loops:
    the first CPU this process may use that sysfs lists as local to the
    first NVIDIA PCI device (device 0 on the usual bus-ordered machine),
    else the first CPU it may use; None where affinity cannot be set.
    Every launch loop, C or Python, runs pinned to that one CPU, so the
    rows compare the code and not where the scheduler put each process (a
    doorbell write from the far socket costs more)."""
    try:
        allowed = sorted(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return None
    local = set()
    try:
        root = "/sys/bus/pci/drivers/nvidia"
        devices = sorted(d for d in os.listdir(root) if ":" in d)
        with open(os.path.join(root, devices[0], "local_cpulist")) as f:
            for part in f.read().strip().split(","):
                first, _, last = part.partition("-")
                local.update(range(int(first), int(last or first) + 1))
    except (OSError, IndexError, ValueError):
        pass
    near = [c for c in allowed if c in local]
    return (near or allowed or [None])[0]


def run_lines(argv, env=None, timeout=600, cpu=None):
    """Runs a helper, pinned to `cpu` unless it is None; (its key/value
    lines as a dict, an error or None)."""
    pin = None if cpu is None else (lambda: os.sched_setaffinity(0, {cpu}))
    try:
        p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, timeout=timeout,
                           universal_newlines=True, preexec_fn=pin)
    except (OSError, subprocess.SubprocessError) as e:
        return {}, f"{os.path.basename(argv[0])}: {one_line(e)}"
    facts = {}
    for line in p.stdout.splitlines():
        key, tab, value = line.partition("\t")
        if tab:
            facts[key] = value
    if "error" in facts:
        return facts, facts["error"]
    if p.returncode != 0:
        tail = (p.stderr.strip().splitlines() or [""])[-1]
        return facts, f"{os.path.basename(argv[0])} exited {p.returncode} {one_line(tail)}".strip()
    return facts, None


def run_timed(argv, env):
    """Runs a whole process; (wall-clock ms, an error or None)."""
    t0 = time.perf_counter()
    try:
        p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, timeout=300,
                           universal_newlines=True)
    except (OSError, subprocess.SubprocessError) as e:
        return None, one_line(e)
    ms = (time.perf_counter() - t0) * 1e3
    if p.returncode == 0 and "Result = PASS" in p.stdout:
        return ms, None
    lines = [l for l in (p.stdout + "\n" + p.stderr).splitlines() if l.strip()]
    tail = one_line(lines[-1] if lines else "")
    if p.returncode == 77 and tail.startswith("skip "):
        return None, "skipped: " + tail[5:]
    return None, f"exited {p.returncode}: {tail}"


def python_module_env(args):
    """The environment that imports this build's Python module: its
    directory first on PYTHONPATH, the build's libcudyn first on
    LD_LIBRARY_PATH; or, for "installed", the interpreter's own cudyn (a
    wheel in a virtual environment) as it is."""
    env = dict(os.environ)
    where = args.cudyn_python or os.environ.get("CUDYN_PYTHONPATH") or "python/staged"
    if where == "installed":
        return env
    if os.path.isdir(where):
        where = os.path.abspath(where)
        env["PYTHONPATH"] = where + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    libs = os.path.abspath("lib/.libs")
    if os.path.isdir(libs):
        env["LD_LIBRARY_PATH"] = libs + (os.pathsep + env["LD_LIBRARY_PATH"] if env.get("LD_LIBRARY_PATH") else "")
    return env


IMPORT_TIMER = ("import numpy, sys, time\n"
                "t0 = time.perf_counter()\n"
                "__import__(sys.argv[1])\n"
                "print((time.perf_counter() - t0) * 1e3)\n")


def import_ms(module, env=None, runs=5):
    """Median milliseconds of `import module` in fresh interpreters with
    numpy already imported; (None, the reason) when it cannot be imported."""
    times = []
    for _ in range(runs):
        try:
            p = subprocess.run([sys.executable, "-c", IMPORT_TIMER, module], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, env=env, timeout=120, universal_newlines=True)
        except (OSError, subprocess.SubprocessError) as e:
            return None, one_line(e)
        if p.returncode != 0:
            tail = (p.stderr.strip().splitlines() or ["?"])[-1]
            return None, f"skipped: {module} not importable ({one_line(tail)})"
        times.append(float(p.stdout.strip().splitlines()[-1]))
    return statistics.median(times), None


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def note(text):
    print(f"bench-peers: {text}", file=sys.stderr, flush=True)


def collect(args):
    """Runs everything; the report that render_table and render_json show."""
    report = {
        "schema": SCHEMA,
        "date": datetime.datetime.now().astimezone().isoformat(timespec="seconds"),
        "machine": {"cpu": cpu_model(), "gpu": None, "compute_capability": None, "driver_version": None,
                    "driver_path": None, "mock": False, "launch_cpu": None},
        "versions": {"cudyn": None, "cudyn Python": None, "cuda-python": None, "cupy": None,
                     "python": platform.python_version()},
        "nvrtc_path": None,
        "settings": {"saxpy_elements": args.n, "saxpy_runs": args.runs, "launches": args.launches,
                     "calls": args.calls, "rounds": args.rounds},
        "columns": COLUMNS,
        "rows": [{"key": key, "title": title, "unit": unit, "values": {c: None for c in COLUMNS}, "errors": {}}
                 for key, title, unit, _ in ROWS],
        "skipped": [],
    }
    rows = {r["key"]: r for r in report["rows"]}

    def cell(key, column, value, error=None):
        rows[key]["values"][column] = value
        if error:
            rows[key]["errors"][column] = error

    # the C columns, in one process; they say which driver the run is on
    note("direct C and cudyn: launch loop and trivial call")
    counts = ["--launches", str(args.launches), "--calls", str(args.calls), "--rounds", str(args.rounds)]
    cpu = report["machine"]["launch_cpu"] = gpu_local_cpu()
    facts, error = run_lines([args.peers_c] + counts, cpu=cpu)
    m = report["machine"]
    mock = facts.get("mock") == "1"
    m.update(gpu=facts.get("device"), compute_capability=facts.get("compute_capability"),
             driver_path=facts.get("driver_path"), mock=mock)
    if facts.get("driver_version", "").isdigit():
        m["driver_version"] = int(facts["driver_version"])
    report["versions"]["cudyn"] = facts.get("cudyn_version")
    report["nvrtc_path"] = facts.get("nvrtc_path") or None
    for key, fact in (("launch", "launch_us"), ("call", "call_ns")):
        for column, side in (("direct C", "direct"), ("cudyn", "cudyn")):
            value = facts.get(f"{fact}.{side}")
            cell(key, column, float(value) if value else None, None if value else error or "not measured")
    for key in ("elementwise", "reduction"):  # cudyn's and CuPy's APIs; not timed on the mock
        value = facts.get(f"{key}_us.cudyn")
        if value or not mock:
            cell(key, "cudyn", float(value) if value else None,
                 None if value else facts.get("expressions_error") or error or "not measured")

    # the peers, each in a process of its own
    peers = []
    cupy_facts = {}
    for column, name in PEERS.items():
        note(f"{column}: launch loop and trivial call")
        argv = [sys.executable, os.path.abspath(__file__), "--worker", name] + counts
        facts, error = run_lines(argv + (["--import-only"] if mock else []), cpu=cpu)
        report["versions"][name] = facts.get("version")
        if "skip" in facts:
            report["skipped"].append({"peer": column, "reason": facts["skip"]})
            continue
        if mock:
            report["skipped"].append({"peer": column, "reason": "no GPU here (the C columns ran on the mock driver)"})
            continue
        peers.append(column)
        for key, fact in (("launch", "launch_us"), ("call", "call_ns")):
            value = facts.get(fact)
            cell(key, column, float(value) if value else None, None if value else error or "not measured")
        if column == "CuPy":
            cupy_facts.update(facts)
        if column == "CuPy":  # the only peer with kernels from expressions
            for key in ("elementwise", "reduction"):
                value = facts.get(f"{key}_us")
                cell(key, column, float(value) if value else None, None if value else error or "not measured")

    # the Python module: imports in fresh interpreters, then its worker
    cudyn_env = python_module_env(args)
    if mock and m["driver_path"]:  # the same mock driver (and NVRTC) as the C columns
        cudyn_env["CUDYN_LIBCUDA"] = m["driver_path"]
        if report["nvrtc_path"]:
            cudyn_env["CUDYN_LIBNVRTC"] = report["nvrtc_path"]
    note("imports in fresh interpreters")
    for key, column, module, env in (("import", PYTHON_COLUMN, "cudyn", cudyn_env),
                                     ("import", "cuda-python", "cuda.bindings.driver", None),
                                     ("import", "CuPy", "cupy", None),
                                     ("import_core", "cuda-python", "cuda.core", None),
                                     ("import_core", PYTHON_COLUMN, "cudyn", cudyn_env)):
        ms, error = import_ms(module, env)
        cell(key, column, ms, error)
    note("cudyn Python: launch loops, expressions, gpuarray, exchange")
    argv = [sys.executable, os.path.abspath(__file__), "--worker", "cudyn"] + counts + (["--mock"] if mock else [])
    facts, error = run_lines(argv, env=cudyn_env, cpu=cpu)
    report["versions"]["cudyn Python"] = facts.get("version")
    python_ok = "skip" not in facts and not (error and not facts.get("launch_us"))
    if "skip" in facts:
        report["skipped"].append({"peer": PYTHON_COLUMN, "reason": facts["skip"]})
    keys = [("launch", "launch_us"), ("launch_prepared", "launch_prepared_us")]
    if not mock:
        keys += [("elementwise", "elementwise_us"), ("reduction", "reduction_us")]
        keys += [(f"ga_{op}{suffix}", f"ga_{op}{suffix}_us") for suffix in GA_SIZES for op in GA_OPS]
        keys += [("exchange", "exchange_us"), ("exchange_small", "exchange_small_us")]
    for key, fact in keys:
        value = facts.get(fact)
        if value or "skip" not in facts:
            cell(key, PYTHON_COLUMN, float(value) if value else None,
                 None if value else (facts.get("exchange_error") if key.startswith("exchange") else None)
                 or error or "not measured")
    if not mock and "CuPy" in peers:
        note("CuPy: gpuarray rows")  # measured by the CuPy worker above
    for key, fact in [(f"ga_{op}{suffix}", f"ga_{op}{suffix}_us") for suffix in GA_SIZES for op in GA_OPS]:
        value = cupy_facts.get(fact)
        if value:
            cell(key, "CuPy", float(value))

    # the SAXPY application, whole processes, interleaved
    env = dict(os.environ)
    size = ["-n", str(args.n)]
    direct = [args.saxpy_direct] + size
    if mock and m["driver_path"]:
        direct += ["--libcuda", m["driver_path"]]
        env["CUDYN_LIBCUDA"] = m["driver_path"]
    if report["nvrtc_path"]:
        direct += ["--libnvrtc", report["nvrtc_path"]]  # the NVRTC cudyn uses
    programs = {"direct C": direct, "cudyn": [args.cudyn_saxpy, "-q", "--naive", "--iters", "0"] + size,
                "floor": direct + ["--floor"]}
    if python_ok:
        programs[PYTHON_COLUMN] = [sys.executable, os.path.join(EXAMPLES, "saxpy.py"), "-q"] + size
    for column in peers:
        programs[column] = [sys.executable, os.path.join(HERE, "peers_saxpy.py"), PEERS[column]] + size
    times = {c: [] for c in programs}
    def row_of(column):  # the floor is a row of its own, in the direct C column
        return ("floor", "direct C") if column == "floor" else ("saxpy_process", column)

    envs = {c: (dict(cudyn_env, **({"CUDYN_LIBCUDA": env["CUDYN_LIBCUDA"]} if "CUDYN_LIBCUDA" in env else {}))
                if c == PYTHON_COLUMN else env) for c in programs}
    for column, argv in list(programs.items()):
        note(f"SAXPY application: warm-up run of {column}")
        _, error = run_timed(argv, envs[column])
        if error:
            cell(*row_of(column), None, error)
            del programs[column]
    for r in range(args.runs):
        note(f"SAXPY application: round {r + 1} of {args.runs}")
        for column, argv in programs.items():
            ms, error = run_timed(argv, envs[column])
            if error:
                key, where = row_of(column)
                rows[key]["errors"][where] = error
            else:
                times[column].append(ms)
    for column in programs:
        if times[column]:
            cell(*row_of(column), statistics.median(times[column]))
    return finish(report)


def finish(report):
    """Per row: is cudyn ahead of (below) every peer measured?  None when
    no peer was measured."""
    for row in report["rows"]:
        row["how"] = HOW[row["key"]].format(**report["settings"], repeats=GA_REPEATS[""],
                                            repeats_small=GA_REPEATS["_small"])
        mine = row["values"][PYTHON_COLUMN if row["key"] in PYTHON_ROWS else "cudyn"]
        theirs = [v for c, v in row["values"].items() if c in PEERS and v is not None]
        row["cudyn_ahead"] = None if mine is None or not theirs else all(mine < v for v in theirs)
    return report


# ------------------------------------------------------------ showing it

def render_table(report):
    m, v = report["machine"], report["versions"]
    out = []
    out.append("make bench-peers: the same work through direct C, cudyn, cuda-python and CuPy, in one run"
               " (lower is better)")
    out.append(f"{'date':12} {report['date']}")
    out.append(f"{'CPU':12} {m['cpu']}" + (f"; launch loops pinned to CPU {m['launch_cpu']} (next to the GPU where"
                                           " sysfs tells)" if m.get("launch_cpu") is not None else ""))
    if m["mock"]:
        out.append(f"{'GPU':12} none: the C columns ran on the mock driver ({m['driver_path']});"
                   " the numbers are cudyn's own cost only")
    else:
        driver = m["driver_version"]
        driver = f"CUDA {driver // 1000}.{driver % 1000 // 10}" if driver else "?"
        out.append(f"{'GPU':12} {m['gpu'] or '?'} (compute capability {m['compute_capability'] or '?'}),"
                   f" driver {driver} ({m['driver_path'] or '?'})")
    out.append(f"{'cudyn':12} {v['cudyn'] or '?'}; NVRTC {report['nvrtc_path'] or 'not found'}")
    skipped = {s["peer"]: s["reason"] for s in report["skipped"]}
    if PYTHON_COLUMN in skipped:
        out.append(f"{PYTHON_COLUMN:12} skipped: {skipped[PYTHON_COLUMN]}")
    else:
        out.append(f"{PYTHON_COLUMN:12} {v.get(PYTHON_COLUMN) or '?'}")
    for column, name in PEERS.items():
        if column in skipped:
            out.append(f"{column:12} skipped: {skipped[column]}")
        else:
            out.append(f"{column:12} {v[name] or '?'}")
    out.append(f"{'python':12} {v['python']}")
    out.append("")
    width = 13
    out.append(f"{'':34} {'unit':10}" + "".join(f"{c:>{width}}" for c in COLUMNS) + "  cudyn ahead of the peers")
    for (key, title, unit, decimals), row in zip(ROWS, report["rows"]):
        cells = []
        for c in COLUMNS:
            value = row["values"][c]
            cells.append(f"{'-' if value is None else f'{value:.{decimals}f}':>{width}}")
        ahead = row["cudyn_ahead"]
        verdict = "-" if ahead is None else "yes" if ahead else "NO"
        out.append(f"{title:34} {unit:10}" + "".join(cells) + f"  {verdict}")
    errors = [(row["title"], c, e) for row in report["rows"] for c, e in row["errors"].items()]
    if errors:
        out.append("")
        for title, column, error in errors:
            out.append(f"{title}, {column}: {error}")
    out.append("")
    for row in report["rows"]:
        out.append(f"{row['title']}: {row['how']}.")
    return "\n".join(out) + "\n"


def render_json(report):
    return json.dumps(report, indent=2, sort_keys=False) + "\n"


# ------------------------------------------------------------ self-test

def self_test():
    """The table and the JSON on made-up numbers: every row, column, skip
    line and error shows, and the JSON reads back with its schema."""
    settings = argparse.Namespace(n=1 << 24, runs=5, launches=100000, calls=100000, rounds=7)
    report = {
        "schema": SCHEMA, "date": "2000-01-01T00:00:00+00:00",
        "machine": {"cpu": "Test CPU", "gpu": "Test GPU", "compute_capability": "9.0", "driver_version": 13000,
                    "driver_path": "/lib/libcuda.so.1", "mock": False},
        "versions": {"cudyn": "0.0.0", "cuda-python": "12.9.0 (cuda.bindings)", "cupy": None, "python": "3"},
        "nvrtc_path": "/cuda/libnvrtc.so.13",
        "settings": {"saxpy_elements": settings.n, "saxpy_runs": settings.runs, "launches": settings.launches,
                     "calls": settings.calls, "rounds": settings.rounds},
        "columns": COLUMNS,
        "rows": [
            {"key": "saxpy_process", "title": ROWS[0][1], "unit": "ms",
             "values": {"direct C": 1076.0, "cudyn": 301.5, "cuda-python": 1080.0, "CuPy": None},
             "errors": {}},
            {"key": "floor", "title": ROWS[1][1], "unit": "ms",
             "values": {"direct C": 250.0, "cudyn": None, "cuda-python": None, "CuPy": None}, "errors": {}},
            {"key": "launch", "title": ROWS[2][1], "unit": "us/launch",
             "values": {"direct C": 2.9, "cudyn": 2.91, "cuda-python": 5.5, "CuPy": None}, "errors": {}},
            {"key": "call", "title": ROWS[3][1], "unit": "ns/call",
             "values": {"direct C": 50.0, "cudyn": 90.0, "cuda-python": 80.0, "CuPy": None},
             "errors": {"cudyn": "made-up failure"}},
            {"key": "elementwise", "title": ROWS[4][1], "unit": "us",
             "values": {"direct C": None, "cudyn": 76.0, "cuda-python": None, "CuPy": 80.0}, "errors": {}},
            {"key": "reduction", "title": ROWS[5][1], "unit": "us",
             "values": {"direct C": None, "cudyn": 54.0, "cuda-python": None, "CuPy": None}, "errors": {}},
        ],
        "skipped": [{"peer": "CuPy", "reason": "cupy not importable (ModuleNotFoundError: No module named 'cupy')"}],
    }
    titles = {key: (title, unit) for key, title, unit, _ in ROWS}
    for key in [k for k, _, _, _ in ROWS][len(report["rows"]):]:  # the module's rows: one with numbers
        values = {"cudyn Python": 9.5, "cuda-python": 21.0, "CuPy": 228.0} if key == "import" else {}
        report["rows"].append({"key": key, "title": titles[key][0], "unit": titles[key][1], "values": values,
                               "errors": {}})
    for row in report["rows"]:
        for column in COLUMNS:
            row["values"].setdefault(column, None)
    finish(report)
    table = render_table(report)
    back = json.loads(render_json(report))
    problems = []

    def expect(condition, what):
        if not condition:
            problems.append(what)

    expect(back["schema"] == SCHEMA, "the JSON's schema")
    expect(back["columns"] == COLUMNS, "the JSON's columns")
    expect([r["key"] for r in back["rows"]] == [k for k, _, _, _ in ROWS], "the JSON's rows")
    extra = len(ROWS) - 6
    expect([r["cudyn_ahead"] for r in back["rows"]] == [True, None, True, False, True, None, True]
           + [None] * (extra - 1), "cudyn_ahead")
    expect("CuPy         skipped: cupy not importable" in table, "the skip line")
    expect(all(r["how"] for r in back["rows"]), "the JSON's how")
    expect("1076.0" in table and "301.5" in table and "2.910" in table, "the values")
    expect("trivial call (idle stream query), cudyn: made-up failure" in table, "the error line")
    for _, title, unit, _ in ROWS:
        expect(title in table and unit in table, f"the row '{title}'")
    verdicts = [line.split()[-1] for line in table.splitlines() for _, title, unit, _ in ROWS
                if line.startswith(title) and line[len(title):].split()[:1] == [unit]]
    expect(verdicts == ["yes", "-", "yes", "NO", "yes", "-", "yes"] + ["-"] * (extra - 1), "the verdicts")
    if problems:
        sys.stdout.write(table)
        print("self-test FAILED: " + "; ".join(problems))
        return 1
    print("peers.py self-test ok")
    return 0


def main():
    p = argparse.ArgumentParser(description="make bench-peers: direct C, cudyn, cuda-python and CuPy side by side")
    p.add_argument("--peers-c", default="./bench/peers_c", help="the built bench/peers_c")
    p.add_argument("--saxpy-direct", default="./bench/saxpy_direct", help="the built bench/saxpy_direct")
    p.add_argument("--cudyn-saxpy", default="./bench/cudyn-saxpy", help="cudyn-saxpy (a real executable)")
    p.add_argument("--cudyn-python", help="the directory that holds this build's cudyn package, or 'installed'"
                   " for the one this interpreter has (default: $CUDYN_PYTHONPATH, else ./python/staged)")
    p.add_argument("--mock", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--runs", type=int, default=5, help="timed SAXPY processes per column (default 5)")
    p.add_argument("--launches", type=int, default=100000, help="launches per round (default 100000)")
    p.add_argument("--calls", type=int, default=100000, help="trivial calls per round (default 100000)")
    p.add_argument("--rounds", type=int, default=7, help="rounds of each, the median kept (default 7)")
    p.add_argument("-n", type=int, default=512 * 32768, help="SAXPY floats (default 512 x 32768)")
    p.add_argument("--json", action="store_true", help="the table as JSON (schema " + SCHEMA + ")")
    p.add_argument("--self-test", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--worker", choices=sorted(list(PEERS.values()) + ["cudyn"]), help=argparse.SUPPRESS)
    p.add_argument("--import-only", action="store_true", help=argparse.SUPPRESS)
    args = p.parse_args()
    for name in ("runs", "launches", "calls", "rounds", "n"):
        if getattr(args, name) < 1 or (name == "rounds" and args.rounds > 101):
            p.error(f"--{name} must be a positive number" + (" (at most 101)" if name == "rounds" else ""))
    if args.self_test:
        return self_test()
    if args.worker:
        return worker(args)
    report = collect(args)
    sys.stdout.write(render_json(report) if args.json else render_table(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
