#!/usr/bin/env python3
"""`make bench-peers`, the all-reduce part: cudyn's NCCL against PyTorch's
torch.distributed.all_reduce (NCCL backend) on the same sizes, one process
per GPU under `mpirun -n 2`, in one run and one table.

cudyn's column is examples/allreduce (C, through cudyn_nccl_*), whose
table this script reads; cudyn's Python module's (cudyn.nccl) and
PyTorch's are this script's own workers (--cudyn-worker, --torch-worker),
started under mpirun the same way, timed the same way.  All take the same
libnccl.so.2: the pip wheel PyTorch imports (nvidia.nccl), handed to cudyn
through CUDYN_LIBNCCL unless that is set.  NVLink multicast stays off
(NCCL_NVLS_ENABLE=0 unless set), for all.  The Python module is this
build's (--cudyn-python DIR, default python/staged, as bench/peers.py), or
the interpreter's own with --cudyn-python installed; where it cannot run
(no cudyn.nccl, no NCCL for it), its column says why and the rest goes on.

Rows: bus bandwidth (algbw * 2(n-1)/n, as nccl-tests) of every size from
8 B to --max-bytes (256M), and the time of the 8-byte one; targets: cudyn
>= 98 % of PyTorch's bus bandwidth at 256 MiB, and no slower at 8 B.

A missing piece (no torch, fewer than two GPUs, no mpirun or no
examples/allreduce) is one "skipped: ..." line and exit status 0.

    peers_nccl.py --mpirun PATH --allreduce PATH [--cudyn-python DIR] [--max-bytes 256M] [--iters N] [--json]
    peers_nccl.py --self-test   checks the table and the JSON on made-up numbers
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from peers import python_module_env  # noqa: E402  (this build's module, as bench/peers.py finds it)

SIZES_FROM = 8


def parse_bytes(text):
    units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    return int(float(text[:-1]) * units[text[-1]]) if text[-1] in units else int(text)


def sizes(max_bytes):
    out, n = [], SIZES_FROM
    while n <= max_bytes:
        out.append(n)
        n *= 2
    return out


def rank_and_size():
    for rank, size in (("OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE"), ("PMI_RANK", "PMI_SIZE"),
                       ("SLURM_PROCID", "SLURM_NTASKS")):
        if rank in os.environ and size in os.environ:
            return int(os.environ[rank]), int(os.environ[size])
    return 0, 1


def torch_worker(args):
    """One rank of PyTorch's all-reduce; rank 0 prints 'bytes us busbw' lines."""
    import torch
    import torch.distributed as dist
    rank, world = rank_and_size()
    local = int(os.environ.get("OMPI_COMM_WORLD_LOCAL_RANK", os.environ.get("SLURM_LOCALID", rank)))
    torch.cuda.set_device(local % torch.cuda.device_count())
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    os.environ.setdefault("MASTER_PORT", "29533")
    dist.init_process_group("nccl", rank=rank, world_size=world)
    for nbytes in sizes(args.max_bytes):
        x = torch.ones(nbytes // 4, dtype=torch.float32, device="cuda")
        for _ in range(5):
            dist.all_reduce(x)
        torch.cuda.synchronize()
        dist.barrier()
        t0 = time.perf_counter()
        for _ in range(args.iters):
            dist.all_reduce(x)
        torch.cuda.synchronize()
        t = torch.tensor([(time.perf_counter() - t0) / args.iters], device="cuda", dtype=torch.float64)
        dist.all_reduce(t, op=dist.ReduceOp.MAX)
        seconds = t.item()
        busbw = nbytes / seconds / 1e9 * 2 * (world - 1) / world
        if rank == 0:
            print("%d %.3f %.4f" % (nbytes, seconds * 1e6, busbw), flush=True)
    if rank == 0:
        print("nccl %s" % ".".join(str(v) for v in torch.cuda.nccl.version()), flush=True)
    dist.destroy_process_group()
    return 0


def cudyn_worker(args):
    """One rank of cudyn.nccl's all-reduce, timed as torch_worker times
    PyTorch's; the unique id goes through a file (no mpi4py needed), and
    the time is the slowest rank's (an all-reduce of the times, max)."""
    import numpy as np

    import cudyn
    import cudyn.autoinit  # noqa: F401  (the rank's GPU, from the launcher's local rank)
    import cudyn.nccl
    rank, world = rank_and_size()
    if rank == 0:
        with open(args.id_file + ".tmp", "wb") as f:
            f.write(cudyn.nccl.get_unique_id())
        os.rename(args.id_file + ".tmp", args.id_file)
    while not os.path.exists(args.id_file):
        time.sleep(0.01)
    with open(args.id_file, "rb") as f:
        uid = f.read()
    with cudyn.nccl.Communicator(world, uid, rank) as nc:
        slowest = cudyn.gpuarray.zeros(1, np.float64)
        for nbytes in sizes(args.max_bytes):
            x = cudyn.gpuarray.ones(nbytes // 4, np.float32)  # a memset (which the mock runs too)
            for _ in range(5):
                nc.all_reduce(x)
            nc.all_reduce(slowest)  # a barrier
            nc.wait(timeout=120)
            t0 = time.perf_counter()
            for _ in range(args.iters):
                nc.all_reduce(x)
            nc.wait(timeout=600)
            slowest.set(np.array([(time.perf_counter() - t0) / args.iters]))
            nc.all_reduce(slowest, op="max")
            nc.wait(timeout=120)
            seconds = float(slowest.get()[0])
            busbw = nbytes / seconds / 1e9 * 2 * (world - 1) / world
            if rank == 0:
                print("%d %.3f %.4f" % (nbytes, seconds * 1e6, busbw), flush=True)
    if rank == 0:
        print("nccl %s" % ".".join(map(str, cudyn.nccl.version())), flush=True)
    return 0


def mpirun(args, env, command):
    cmd = [args.mpirun, "-n", "2"]
    if "Open MPI" in subprocess.run([args.mpirun, "--version"], capture_output=True, text=True).stdout:
        cmd += ["--bind-to", "none"]
        for name in ("NCCL_NVLS_ENABLE", "CUDYN_LIBNCCL", "NCCL_P2P_DISABLE", "NCCL_SHM_DISABLE", "LD_LIBRARY_PATH",
                     "PYTHONPATH"):
            if name in env:
                cmd += ["-x", name]
    return subprocess.run(cmd + command, capture_output=True, text=True, env=env, timeout=600)


def cudyn_rows(args, env):
    """bytes -> (us, busbw) from examples/allreduce's table."""
    run = mpirun(args, env, [args.allreduce, "-b", str(SIZES_FROM), "-e", str(args.max_bytes), "-n",
                             str(args.iters), "--path=nccl"])
    rows = {}
    for line in run.stdout.splitlines():
        f = line.split()
        if len(f) == 8 and f[2] == "float" and f[0].isdigit():
            rows[int(f[0])] = (float(f[4]), float(f[6]))
    if run.returncode != 0 or "PASS" not in run.stdout:
        raise RuntimeError("examples/allreduce failed:\n" + run.stdout + run.stderr)
    return rows


def worker_rows(args, env, mode, extra=()):
    """bytes -> (us, busbw) and the NCCL version from a worker of this
    script under mpirun; RuntimeError with its output when it fails."""
    run = mpirun(args, env, [sys.executable, os.path.abspath(__file__), mode, "--max-bytes", str(args.max_bytes),
                             "--iters", str(args.iters)] + list(extra))
    rows, version = {}, "?"
    for line in run.stdout.splitlines():
        f = line.split()
        if len(f) == 3 and f[0].isdigit():
            rows[int(f[0])] = (float(f[1]), float(f[2]))
        elif len(f) == 2 and f[0] == "nccl":
            version = f[1]
    if run.returncode != 0:
        raise RuntimeError("the %s worker failed:\n%s%s" % (mode, run.stdout, run.stderr))
    return rows, version


def torch_rows(args, env):
    return worker_rows(args, env, "--torch-worker")


def cudyn_python_rows(args, env):
    """cudyn.nccl's rows, or ({}, why) where the module cannot run them
    (the C and PyTorch columns stand without it)."""
    env = dict(env, **{k: v for k, v in python_module_env(args).items() if k in ("PYTHONPATH", "LD_LIBRARY_PATH")})
    with tempfile.TemporaryDirectory(prefix="peers-nccl.") as tmp:
        try:
            rows, _ = worker_rows(args, env, "--cudyn-worker", ["--id-file", os.path.join(tmp, "id")])
            return rows, None
        except (RuntimeError, subprocess.TimeoutExpired) as e:
            lines = [line for line in str(e).splitlines() if line.strip()]
            return {}, lines[-1] if lines else str(e)


def environment(args):
    """The environment both sides run in, or why the comparison is skipped."""
    try:
        import torch
    except Exception as e:  # noqa: BLE001 - any import failure is a skip
        return None, "torch is not importable (%s)" % e
    if not args.mpirun or not os.access(args.allreduce or "", os.X_OK):
        return None, "no mpirun or examples/allreduce (configure found no MPI)"
    if torch.cuda.device_count() < 2:
        return None, "needs 2 GPUs, PyTorch sees %d" % torch.cuda.device_count()
    env = dict(os.environ)
    env.setdefault("NCCL_NVLS_ENABLE", "0")
    if os.geteuid() == 0:
        env.setdefault("OMPI_ALLOW_RUN_AS_ROOT", "1")
        env.setdefault("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
    try:
        import nvidia.nccl
        env.setdefault("CUDYN_LIBNCCL", os.path.join(os.path.dirname(nvidia.nccl.__file__), "lib"))
    except Exception:  # noqa: BLE001 - PyTorch's own NCCL is then not a wheel: cudyn searches
        pass
    return env, None


def report(args, mine, python, theirs, version, env, python_why=None):
    """The table (or JSON) of the C, Python and PyTorch columns; `python`
    empty with python_why where the module could not run."""
    def cell(rows, b, i):
        return rows.get(b, (None, None))[i]
    if args.json:
        print(json.dumps({"schema": "cudyn-bench-peers-nccl/2", "nccl": version, "ranks": 2,
                          "NCCL_NVLS_ENABLE": env.get("NCCL_NVLS_ENABLE"), "cudyn_python_skipped": python_why,
                          "rows": [{"bytes": b, "cudyn_us": cell(mine, b, 0), "cudyn_busbw": cell(mine, b, 1),
                                    "cudyn_python_us": cell(python, b, 0), "cudyn_python_busbw": cell(python, b, 1),
                                    "torch_us": cell(theirs, b, 0), "torch_busbw": cell(theirs, b, 1)}
                                   for b in sizes(args.max_bytes)]}, indent=1))
        return
    print("all-reduce, 2 ranks, float sum, NCCL %s (NCCL_NVLS_ENABLE=%s), bus bandwidth GB/s"
          % (version, env.get("NCCL_NVLS_ENABLE")))
    print("%12s %12s %12s %12s %8s" % ("bytes", "cudyn (C)", "cudyn Python", "torch", "ratio"))
    for b in sizes(args.max_bytes):
        c, p, t = mine.get(b), python.get(b), theirs.get(b)
        ratio = "%.3f" % (c[1] / t[1]) if c and t and t[1] > 0 else "-"
        print("%12d %12s %12s %12s %8s" % (b, "%.2f" % c[1] if c else "-", "%.2f" % p[1] if p else "-",
                                           "%.2f" % t[1] if t else "-", ratio))
    for name, rows in (("cudyn", mine), ("cudyn Python", python)):
        if SIZES_FROM in rows and SIZES_FROM in theirs:
            print("8 B latency: %s %.2f us, torch %.2f us (target: cudyn no slower)"
                  % (name, rows[SIZES_FROM][0], theirs[SIZES_FROM][0]))
    top = max(sizes(args.max_bytes))
    for name, rows in (("cudyn", mine), ("cudyn Python", python)):
        if top in rows and top in theirs and theirs[top][1] > 0:
            print("%d B bus bandwidth: %s %.1f %% of torch's (target >= 98 %%)"
                  % (top, name, 100 * rows[top][1] / theirs[top][1]))
    if python_why:
        print("cudyn Python: skipped: %s" % python_why)


def self_test():
    """The table and the JSON on made-up numbers (no GPU, no torch)."""
    import contextlib
    import io
    args = argparse.Namespace(max_bytes=32, json=False)
    mine = {8: (30.0, 0.0), 16: (31.0, 0.5), 32: (32.0, 1.0)}
    python = {8: (40.0, 0.0), 16: (41.0, 0.25), 32: (42.0, 1.5)}
    theirs = {8: (33.0, 0.0), 16: (31.0, 0.5), 32: (30.0, 2.0)}
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        report(args, mine, python, theirs, "2.28.9", {"NCCL_NVLS_ENABLE": "0"})
        report(args, mine, {}, theirs, "2.28.9", {"NCCL_NVLS_ENABLE": "0"}, "no cudyn.nccl")
        args.json = True
        report(args, mine, python, theirs, "2.28.9", {"NCCL_NVLS_ENABLE": "0"})
    text = out.getvalue()
    assert "NCCL 2.28.9 (NCCL_NVLS_ENABLE=0)" in text, text
    assert "8 B latency: cudyn 30.00 us, torch 33.00 us" in text, text
    assert "8 B latency: cudyn Python 40.00 us, torch 33.00 us" in text, text
    assert "32 B bus bandwidth: cudyn 50.0 % of torch's (target >= 98 %)" in text, text
    assert "32 B bus bandwidth: cudyn Python 75.0 % of torch's (target >= 98 %)" in text, text
    assert "%12d %12s %12s %12s %8s" % (32, "1.00", "1.50", "2.00", "0.500") in text, text
    assert "%12d %12s %12s %12s %8s" % (32, "1.00", "-", "2.00", "0.500") in text, text
    assert "cudyn Python: skipped: no cudyn.nccl" in text, text
    doc = json.loads(text[text.index("{"):])
    assert doc["rows"][2] == {"bytes": 32, "cudyn_us": 32.0, "cudyn_busbw": 1.0, "cudyn_python_us": 42.0,
                              "cudyn_python_busbw": 1.5, "torch_us": 30.0, "torch_busbw": 2.0}, doc
    print("peers_nccl.py self-test ok")
    return 0


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--mpirun", default=os.environ.get("MPIRUN", "mpirun"))
    p.add_argument("--allreduce", default=None, help="examples/allreduce of the build")
    p.add_argument("--cudyn-python", help="the directory that holds this build's cudyn package, or 'installed' for "
                   "the one this interpreter has (default: $CUDYN_PYTHONPATH, else ./python/staged)")
    p.add_argument("--max-bytes", type=parse_bytes, default=256 << 20)
    p.add_argument("--iters", type=int, default=20)
    p.add_argument("--json", action="store_true")
    p.add_argument("--torch-worker", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--cudyn-worker", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--id-file", help=argparse.SUPPRESS)
    p.add_argument("--self-test", action="store_true", help="check the table and the JSON on made-up numbers")
    args = p.parse_args()
    if args.self_test:
        return self_test()
    if args.torch_worker:
        return torch_worker(args)
    if args.cudyn_worker:
        return cudyn_worker(args)
    env, why = environment(args)
    if env is None:
        print("all-reduce peers: skipped: %s" % why)
        return 0
    try:
        theirs, version = torch_rows(args, env)
        mine = cudyn_rows(args, env)
    except (RuntimeError, subprocess.TimeoutExpired) as e:
        print("all-reduce peers: failed: %s" % e)
        return 1
    python, why = cudyn_python_rows(args, env)
    report(args, mine, python, theirs, version, env, why)
    return 0


if __name__ == "__main__":
    sys.exit(main())
