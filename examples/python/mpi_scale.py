#!/usr/bin/env python3
"""PyCUDA's MPI example with cudyn and mpi4py: one rank per GPU (the
node-local rank picks the device through cudyn.autoinit); rank 0 says
whether the MPI is CUDA-aware (could take device arrays itself), scatters a
vector, each rank scales its part on its GPU K times, x <- 0.9 * x, and
rank 0 gathers the parts and checks them bit for bit.  Then the parts are
summed across the ranks on the GPUs through NCCL (cudyn.nccl: rank 0 makes
the unique id, mpi4py broadcasts it) and every rank checks the sum against
the one computed on the host.  Each rank binds its threads to the CPUs next
to its GPU where NVML tells them (--no-bind leaves them as the launcher put
them).

    mpirun -n 2 python3 mpi_scale.py [--no-bind] [floats per rank] [K]

Without mpi4py it says so and exits 77 (skipped); without NCCL it says
"NCCL step skipped: ..." and why, and checks the rest; run without mpirun
it is one rank."""

import sys

try:
    from mpi4py import MPI
except ImportError as e:
    print(f"skipped: mpi4py is not installed ({e})")
    sys.exit(77)

import numpy as np

import cudyn
import cudyn.autoinit
import cudyn.nccl

comm = MPI.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()
args = [a for a in sys.argv[1:] if a != "--no-bind"]
per_rank = int(args[0]) if len(args) > 0 else 1 << 20
K = int(args[1]) if len(args) > 1 else 10
binding = cudyn.autoinit.bind_near_gpu(enabled="--no-bind" not in sys.argv)[1]
print(f"rank {rank}: {binding}", flush=True)
if rank == 0:  # whether comm.Scatter could take device arrays itself (it is given host ones here)
    aware = cudyn.nccl.mpi_cuda_support()
    print(f"CUDA-aware MPI: {aware['answer']}, {aware['reason']}", flush=True)

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
want = np.arange(per_rank * size, dtype=np.float32)  # every rank knows the whole vector's start
for _ in range(K):
    want = a * want
ok = rank != 0 or (gathered is not None and np.array_equal(gathered, want))


def nccl_all_reduce(x: cudyn.gpuarray.GPUArray) -> bool:
    """x summed over the ranks on the GPUs through cudyn.nccl, checked on
    every rank against the host's sum of the parts; rank 0 says how it went.
    Whether every rank's sum was right, or True where NCCL is absent."""
    try:  # rank 0 makes the id (it loads NCCL): any failure is every rank's skip
        uid, why = (cudyn.nccl.get_unique_id(), None) if rank == 0 else (None, None)
    except cudyn.Error as e:
        uid, why = None, str(e)
    uid, why = comm.bcast((uid, why), root=0)
    if why:
        if rank == 0:
            print(f"NCCL step skipped: {why}")
        return True
    assert uid is not None  # rank 0 made it, or every rank returned above
    with cudyn.nccl.Communicator(size, uid, rank) as nc:
        nc.all_reduce(x)          # in place, the sum, on the default stream
        nc.wait(timeout=120)      # NCCL's asynchronous error (a dead peer) raises, never hangs
        total = x.get()
    expected = want.reshape(size, per_rank).sum(axis=0, dtype=np.float32) if size > 1 else want
    good = np.allclose(total, expected, rtol=1e-6, atol=0) and (size > 2 or np.array_equal(total, expected))
    good = bool(comm.allreduce(good, op=MPI.LAND))
    if rank == 0:
        print(f"NCCL {'.'.join(map(str, cudyn.nccl.version()))} all-reduce of the parts over {size} ranks: "
              f"element {per_rank - 1} = {total[-1]!r}, expected {expected[-1]!r}, checked on every rank: "
              f"{'PASS' if good else 'FAIL'}")
    return good


ok = nccl_all_reduce(x) and ok
ok = comm.allreduce(ok, op=MPI.LAND)
if rank == 0:
    print("PASS" if ok else "FAIL")
sys.exit(0 if ok else 1)
