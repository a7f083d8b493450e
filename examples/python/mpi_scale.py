#!/usr/bin/env python3
"""PyCUDA's MPI example with cudyn and mpi4py: one rank per GPU (the
node-local rank picks the device through cudyn.autoinit); rank 0 scatters a
vector, each rank scales its part on its GPU K times, x <- 0.9 * x, and
rank 0 gathers the parts and checks them bit for bit.  Each rank binds its
threads to the CPUs next to its GPU where NVML tells them (--no-bind
leaves them as the launcher put them).

    mpirun -n 2 python3 mpi_scale.py [--no-bind] [floats per rank] [K]

Without mpi4py it says so and exits 77 (skipped); run without mpirun it is
one rank."""

import sys

try:
    from mpi4py import MPI
except ImportError as e:
    print(f"skipped: mpi4py is not installed ({e})")
    sys.exit(77)

import numpy as np

import cudyn
import cudyn.autoinit

comm = MPI.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()
args = [a for a in sys.argv[1:] if a != "--no-bind"]
per_rank = int(args[0]) if len(args) > 0 else 1 << 20
K = int(args[1]) if len(args) > 1 else 10
binding = cudyn.autoinit.bind_near_gpu(enabled="--no-bind" not in sys.argv)[1]
print(f"rank {rank}: {binding}", flush=True)

mod = cudyn.SourceModule("""
__global__ void scale(float a, float *x, size_t n)
{
    size_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = a * x[i];
}
""")
scale = mod.get_function("scale").prepare("fPQ")

full = np.arange(per_rank * size, dtype=np.float32) if rank == 0 else None
part = np.empty(per_rank, dtype=np.float32)
comm.Scatter(full, part, root=0)

x = cudyn.gpuarray.to_gpu(part)
a = np.float32(0.9)
blocks = (per_rank + 255) // 256
for _ in range(K):
    scale((blocks,), (256,), a, x, per_rank)
part = x.get()

gathered = np.empty(per_rank * size, dtype=np.float32) if rank == 0 else None
comm.Gather(part, gathered, root=0)
name = cudyn.autoinit.device.name
print(f"rank {rank} of {size}: device {cudyn.autoinit.device.ordinal} ({name}), {per_rank} floats scaled {K} times")
if rank == 0:
    assert full is not None and gathered is not None  # rank 0 made both
    want = full.copy()
    for _ in range(K):
        want = a * want
    ok = np.array_equal(gathered, want)
    print("PASS" if ok else "FAIL")
    sys.exit(0 if ok else 1)
