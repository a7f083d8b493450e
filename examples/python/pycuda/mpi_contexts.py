#!/usr/bin/env python3
"""PyCUDA's MPI pattern with mpi4py: each rank makes a context on its own
GPU (rank modulo the device count), pops it while MPI communicates,
pushes it again for more work, then pops and detaches it.  Rank 0 checks
every part bit for bit.

    mpirun -n 2 python3 -m cudyn.pycuda mpi_contexts.py [floats per rank]

Without mpi4py it says so and exits 77 (skipped); started without mpirun
it is one rank."""

import sys

try:
    from mpi4py import MPI
except ImportError as e:
    print(f"skipped: mpi4py is not installed ({e})")
    sys.exit(77)

import numpy

import pycuda.driver as cuda
from pycuda import gpuarray
from pycuda.compiler import SourceModule

comm = MPI.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()
per_rank = int(sys.argv[1]) if len(sys.argv) > 1 else 1 << 20

cuda.init()
ctx = cuda.Device(rank % cuda.Device.count()).make_context()
scale = SourceModule("""
__global__ void scale(float a, float *x, size_t n)
{
    size_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = a * x[i];
}
""").get_function("scale")

part = numpy.arange(rank * per_rank, (rank + 1) * per_rank, dtype=numpy.float32)
x_gpu = gpuarray.to_gpu(part)
blocks = (per_rank + 255) // 256
scale(numpy.float32(0.5), x_gpu, numpy.uint64(per_rank), block=(256, 1, 1), grid=(blocks, 1))
halved = x_gpu.get()
ctx.pop()                                   # no context of ours is current while MPI talks

neighbour = comm.sendrecv(float(halved[0]), dest=(rank + 1) % size, source=(rank - 1) % size)

ctx.push()                                  # the same context again, for the second step
scale(numpy.float32(4), x_gpu, numpy.uint64(per_rank), block=(256, 1, 1), grid=(blocks, 1))
doubled = x_gpu.get()
device = ctx.get_device().name()
ctx.pop()
ctx.detach()

parts = comm.gather(doubled, root=0)
print(f"rank {rank} of {size}: {device}, {per_rank} floats; neighbour's first half: {neighbour}", flush=True)
if rank == 0:
    assert parts is not None  # the root gathers
    want = 2 * numpy.arange(size * per_rank, dtype=numpy.float32)
    ok = numpy.array_equal(numpy.concatenate(parts), want) and cuda.Context.get_current() is None
    print("PASS" if ok else "FAIL")
    sys.exit(0 if ok else 1)
