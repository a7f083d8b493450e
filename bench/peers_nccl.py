#!/usr/bin/env python3
"""`make bench-peers`, the all-reduce part: cudyn's NCCL against PyTorch's
torch.distributed.all_reduce (NCCL backend) on the same sizes, one process
per GPU under `mpirun -n 2`, in one run and one table.

cudyn's column is examples/allreduce (C, through cudyn_nccl_*), whose
table this script reads; PyTorch's is this script's own worker
(--torch-worker), started under mpirun the same way.  Both take the same
libnccl.so.2: the pip wheel PyTorch imports (nvidia.nccl), handed to cudyn
through CUDYN_LIBNCCL unless that is set.  NVLink multicast stays off
(NCCL_NVLS_ENABLE=0 unless set), for both.  The column for cudyn's Python
module is empty until it has cudyn.nccl (CUDYN_PYTHON_ROW below).

Rows: bus bandwidth (algbw * 2(n-1)/n, as nccl-tests) of every size from
8 B to --max-bytes (256M), and the time of the 8-byte one; targets: cudyn
>= 98 % of PyTorch's bus bandwidth at 256 MiB, and no slower at 8 B.

A missing piece (no torch, fewer than two GPUs, no mpirun or no
examples/allreduce) is one "skipped: ..." line and exit status 0.

    peers_nccl.py --mpirun PATH --allreduce PATH [--max-bytes 256M] [--iters N] [--json]
    peers_nccl.py --self-test   checks the table and the JSON on made-up numbers
"""

import argparse
import json
import os
import subprocess
import sys
import time

SIZES_FROM = 8
# cudyn's Python module gets its column once it has cudyn.nccl (a later
# step): this worker mode then runs it the way --torch-worker runs PyTorch.
CUDYN_PYTHON_ROW = None


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


def mpirun(args, env, command):
    cmd = [args.mpirun, "-n", "2"]
    if "Open MPI" in subprocess.run([args.mpirun, "--version"], capture_output=True, text=True).stdout:
        cmd += ["--bind-to", "none"]
        for name in ("NCCL_NVLS_ENABLE", "CUDYN_LIBNCCL", "NCCL_P2P_DISABLE", "NCCL_SHM_DISABLE", "LD_LIBRARY_PATH"):
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


def torch_rows(args, env):
    run = mpirun(args, env, [sys.executable, os.path.abspath(__file__), "--torch-worker", "--max-bytes",
                             str(args.max_bytes), "--iters", str(args.iters)])
    rows, version = {}, "?"
    for line in run.stdout.splitlines():
        f = line.split()
        if len(f) == 3 and f[0].isdigit():
            rows[int(f[0])] = (float(f[1]), float(f[2]))
        elif len(f) == 2 and f[0] == "nccl":
            version = f[1]
    if run.returncode != 0:
        raise RuntimeError("the PyTorch worker failed:\n" + run.stdout + run.stderr)
    return rows, version


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


def report(args, mine, theirs, version, env):
    if args.json:
        print(json.dumps({"schema": "cudyn-bench-peers-nccl/1", "nccl": version, "ranks": 2,
                          "NCCL_NVLS_ENABLE": env.get("NCCL_NVLS_ENABLE"),
                          "rows": [{"bytes": b, "cudyn_us": mine.get(b, (None, None))[0],
                                    "cudyn_busbw": mine.get(b, (None, None))[1],
                                    "torch_us": theirs.get(b, (None, None))[0],
                                    "torch_busbw": theirs.get(b, (None, None))[1]}
                                   for b in sizes(args.max_bytes)]}, indent=1))
        return
    print("all-reduce, 2 ranks, float sum, NCCL %s (NCCL_NVLS_ENABLE=%s), bus bandwidth GB/s"
          % (version, env.get("NCCL_NVLS_ENABLE")))
    print("%12s %12s %12s %12s %8s" % ("bytes", "cudyn (C)", "cudyn Python", "torch", "ratio"))
    for b in sizes(args.max_bytes):
        c, t = mine.get(b), theirs.get(b)
        ratio = "%.3f" % (c[1] / t[1]) if c and t and t[1] > 0 else "-"
        print("%12d %12s %12s %12s %8s" % (b, "%.2f" % c[1] if c else "-", "-" if CUDYN_PYTHON_ROW is None else "?",
                                           "%.2f" % t[1] if t else "-", ratio))
    if SIZES_FROM in mine and SIZES_FROM in theirs:
        print("8 B latency: cudyn %.2f us, torch %.2f us (target: cudyn no slower)"
              % (mine[SIZES_FROM][0], theirs[SIZES_FROM][0]))
    top = max(sizes(args.max_bytes))
    if top in mine and top in theirs and theirs[top][1] > 0:
        print("%d B bus bandwidth: cudyn %.1f %% of torch's (target >= 98 %%)" % (top, 100 * mine[top][1] / theirs[top][1]))
    if CUDYN_PYTHON_ROW is None:
        print("cudyn Python: skipped: the module has no cudyn.nccl yet")


def self_test():
    """The table and the JSON on made-up numbers (no GPU, no torch)."""
    import contextlib
    import io
    args = argparse.Namespace(max_bytes=32, json=False)
    mine = {8: (30.0, 0.0), 16: (31.0, 0.5), 32: (32.0, 1.0)}
    theirs = {8: (33.0, 0.0), 16: (31.0, 0.5), 32: (30.0, 2.0)}
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        report(args, mine, theirs, "2.28.9", {"NCCL_NVLS_ENABLE": "0"})
        args.json = True
        report(args, mine, theirs, "2.28.9", {"NCCL_NVLS_ENABLE": "0"})
    text = out.getvalue()
    assert "NCCL 2.28.9 (NCCL_NVLS_ENABLE=0)" in text, text
    assert "8 B latency: cudyn 30.00 us, torch 33.00 us" in text, text
    assert "32 B bus bandwidth: cudyn 50.0 % of torch's (target >= 98 %)" in text, text
    assert "%12d %12s %12s %12s %8s" % (32, "1.00", "-", "2.00", "0.500") in text, text
    doc = json.loads(text[text.index("{"):])
    assert doc["rows"][2] == {"bytes": 32, "cudyn_us": 32.0, "cudyn_busbw": 1.0, "torch_us": 30.0,
                              "torch_busbw": 2.0}, doc
    print("peers_nccl.py self-test ok")
    return 0


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--mpirun", default=os.environ.get("MPIRUN", "mpirun"))
    p.add_argument("--allreduce", default=None, help="examples/allreduce of the build")
    p.add_argument("--max-bytes", type=parse_bytes, default=256 << 20)
    p.add_argument("--iters", type=int, default=20)
    p.add_argument("--json", action="store_true")
    p.add_argument("--torch-worker", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--self-test", action="store_true", help="check the table and the JSON on made-up numbers")
    args = p.parse_args()
    if args.self_test:
        return self_test()
    if args.torch_worker:
        return torch_worker(args)
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
    report(args, mine, theirs, version, env)
    return 0


if __name__ == "__main__":
    sys.exit(main())
