#!/usr/bin/env python3
"""cuda-python's SAXPY with cudyn: the kernel as a string, compiled by NVRTC
for this GPU (through cudyn's cache, so a second run needs no NVRTC),
launched with packed arguments and checked bit for bit.

--fmad=false keeps a * x + y unfused, so the host's float32 result (a
multiply rounded to float, then an add rounded to float, as numpy does it)
is the exact answer.

    python3 saxpy.py [-n ELEMENTS] [-q]
"""

import argparse
import sys
import threading

import numpy as np

import cudyn

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


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("-n", type=int, default=NUM_THREADS * NUM_BLOCKS, help="elements (default 512 x 32768)")
    p.add_argument("-q", "--quiet", action="store_true", help="print only the result line")
    args = p.parse_args()
    n = args.n

    # The GPU starts (driver, context, the kernel from the cache, memory)
    # in a thread while this one makes the data: both take tens of ms, and
    # cudyn's calls release the GIL.
    started = {}

    def start_gpu():
        try:
            cudyn.Device(0).use()
            started["module"] = cudyn.SourceModule(SAXPY, options=["--fmad=false"])
            started["arrays"] = [cudyn.DeviceArray((n,), np.float32) for _ in range(3)]
        except BaseException as e:  # raised again in the main thread
            started["error"] = e

    gpu = threading.Thread(target=start_gpu)
    gpu.start()
    a = np.float32(2.0)
    # the data of every SAXPY program in bench/peers.py: x[i] = i mod 1024, y[i] = i mod 37
    x = np.tile(np.arange(1024, dtype=np.float32), -(-n // 1024))[:n]
    y = np.tile(np.arange(37, dtype=np.float32), -(-n // 37))[:n]
    gpu.join()
    if "error" in started:
        raise started["error"]
    module = started["module"]
    d_x, d_y, d_out = started["arrays"]
    saxpy = module.get_function("saxpy")
    if not args.quiet:
        print(f"compiled for {module.target} ({'from the cache' if module.from_cache else 'by NVRTC'})")

    d_x.set(x)
    d_y.set(y)
    blocks = (n + NUM_THREADS - 1) // NUM_THREADS
    saxpy(a, d_x, d_y, d_out, np.uint64(n), grid=(blocks, 1, 1), block=(NUM_THREADS, 1, 1))
    out = d_out.get()

    expected = a * x            # float32 products, rounded ...
    expected += y               # ... then float32 sums: no fused multiply-add
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
