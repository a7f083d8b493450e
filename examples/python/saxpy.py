#!/usr/bin/env python3
"""cuda-python's SAXPY with cudyn: the kernel as a string, compiled by NVRTC
for this GPU (through cudyn's cache, so a second run needs no NVRTC),
launched with packed arguments and checked bit for bit.

--fmad=false keeps a * x + y unfused, so the host's float32 result (a
multiply rounded to float, then an add rounded to float, as numpy does it)
is the exact answer.

The GPU's work runs in a thread of its own, started before numpy is even
imported: the driver's start (a few hundred ms on a large machine) then
overlaps the import of numpy, the making of the data and of the expected
result, as cudyn-saxpy's threads overlap them in C.  cudyn's calls release
the GIL, so the two threads run at once.

    python3 saxpy.py [-n ELEMENTS] [-q]
"""

import argparse
import sys
import threading
from typing import Any, Optional

import cudyn  # loads neither the driver nor numpy

SAXPY = """
__global__ void saxpy(float a, float *x, float *y, float *out, size_t n)
{
    size_t tid = blockIdx.x * blockDim.x + threadIdx.x;
    if (tid < n) {
        out[tid] = a * x[tid] + y[tid];
    }
}
"""
NUM_THREADS = 512      # threads per block, as in cuda-python's example
NUM_BLOCKS = 32768     # blocks per grid
FLOAT_BYTES = 4


class GpuWork(threading.Thread):
    """Starts the GPU (driver, context, the kernel from the cache, three
    buffers), waits for the host data, then copies it in, runs SAXPY and
    copies the result back.  An exception is kept for the main thread."""

    def __init__(self, n: int) -> None:
        super().__init__()
        self.n = n
        self.data_ready = threading.Event()
        self.inputs: Optional[tuple[Any, Any, Any, Any]] = None  # (a, x, y, out): set by the main thread
        self.module: Optional[cudyn.Module] = None
        self.error: Optional[BaseException] = None

    def run(self) -> None:
        try:
            cudyn.Device(0).use()
            self.module = cudyn.SourceModule(SAXPY, options=["--fmad=false"])
            saxpy = self.module.get_function("saxpy")
            d_x, d_y, d_out = (cudyn.DeviceMemory(self.n * FLOAT_BYTES) for _ in range(3))
            self.data_ready.wait()
            if self.inputs is None:  # the main thread failed
                return
            a, x, y, out = self.inputs
            cudyn.memcpy_htod(d_x, x)
            cudyn.memcpy_htod(d_y, y)
            blocks = (self.n + NUM_THREADS - 1) // NUM_THREADS
            saxpy(a, d_x, d_y, d_out, self.n, grid=(blocks, 1, 1), block=(NUM_THREADS, 1, 1))
            cudyn.memcpy_dtoh(out, d_out)  # waits for the kernel: the legacy default stream orders both
        except BaseException as e:  # raised again in the main thread
            self.error = e


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("-n", type=int, default=NUM_THREADS * NUM_BLOCKS, help="elements (default 512 x 32768)")
    p.add_argument("-q", "--quiet", action="store_true", help="print only the result line")
    args = p.parse_args()
    n = args.n
    if n < 1:
        p.error("-n must be at least 1")

    gpu = GpuWork(n)
    gpu.start()
    try:
        import numpy as np
        a = np.float32(2.0)
        # the data of every SAXPY program in bench/peers.py: x[i] = i mod 1024, y[i] = i mod 37
        x = np.tile(np.arange(1024, dtype=np.float32), -(-n // 1024))[:n]
        y = np.tile(np.arange(37, dtype=np.float32), -(-n // 37))[:n]
        # touched here, while the driver starts, so the copy back finds its pages in place
        out = np.zeros(n, dtype=np.float32)
        out.fill(np.nan)
        gpu.inputs = (a, x, y, out)
    finally:
        gpu.data_ready.set()
    expected = a * x            # float32 products, rounded ...
    expected += y               # ... then float32 sums: no fused multiply-add
    gpu.join()
    if gpu.error is not None:
        raise gpu.error
    if not args.quiet:
        module = gpu.module
        assert module is not None  # the thread ended without an error
        print(f"compiled for {module.target} ({'from the cache' if module.from_cache else 'by NVRTC'})")

    wrong = int(np.count_nonzero(out != expected))
    print(f"SAXPY of {n} floats: {wrong} elements differ from the host's unfused result")
    print("Result = PASS" if wrong == 0 else "Result = FAIL")
    return 0 if wrong == 0 else 1


if __name__ == "__main__":
    try:
        sys.exit(main())
    except cudyn.Error as e:
        print(f"saxpy.py: {e}", file=sys.stderr)
        sys.exit(1)
