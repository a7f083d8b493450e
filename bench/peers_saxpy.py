#!/usr/bin/env python3
"""The SAXPY application of the cuda-python documentation, through
cuda-python or CuPy, for `make bench-peers` (bench/peers.py times this
script as a whole process, as it times bench/saxpy_direct and cudyn-saxpy).

    peers_saxpy.py cuda-python|cupy [-n ELEMS]

Every program of the comparison does the same work: the documentation's
kernel, n floats (512 x 32768 by default), x and y copied in from ordinary
host memory, 32768 blocks of 512 threads, out copied back, an exact check
of every element (x[i] = i mod 1024, y[i] = i mod 37, a = 2), everything
freed.  cuda-python does it as the documentation does (NVRTC to PTX with
--fmad=false for the device's compute capability; the primary context
instead of cuCtxCreate, whose signature changed in CUDA 13); CuPy with a
RawKernel of the same source and options (CuPy compiles through its own
kernel cache).

Exit 0 and "Result = PASS" when every element is right; 77 and a
"skip<TAB>reason" line when the module (or NumPy) cannot be imported; 1 for
a wrong result; 8 and an "error<TAB>message" line when a call fails.  Never
a traceback.  bench/peers.py imports the helpers below for its own
launch-loop and trivial-call rows.
"""

import sys

SAXPY_SOURCE = """\
extern "C" __global__
void saxpy(float a, float *x, float *y, float *out, size_t n)
{
    size_t tid = blockIdx.x * blockDim.x + threadIdx.x;
    if (tid < n) {
        out[tid] = a * x[tid] + y[tid];
    }
}
"""
NUM_THREADS = 512
NUM_BLOCKS = 32768
EXIT_WRONG, EXIT_SKIP, EXIT_ERROR = 1, 77, 8


class Skip(Exception):
    """A module this run needs cannot be imported."""


def import_or_skip(name):
    """Imports a module by name, turning any failure into Skip."""
    try:
        return __import__(name, fromlist=["_"])
    except Exception as e:  # a broken install raises more than ImportError
        raise Skip(f"{name} not importable ({type(e).__name__}: {e})") from None


def import_cuda_python():
    """(driver, nvrtc, layout): cuda.bindings (cuda-python 12.x / 13.x),
    else the old layout (from cuda import cuda, nvrtc)."""
    try:
        from cuda.bindings import driver, nvrtc
        return driver, nvrtc, "cuda.bindings"
    except Exception as first:
        try:
            from cuda import cuda as driver, nvrtc  # cuda-python before 12.6
            return driver, nvrtc, "cuda (old layout)"
        except Exception:
            raise Skip(f"cuda.bindings not importable ({type(first).__name__}: {first})") from None


def version_of(*distributions, module=None):
    """The installed version of the first distribution found, else the
    module's __version__, else None."""
    try:
        from importlib import metadata
        for dist in distributions:
            try:
                return metadata.version(dist)
            except metadata.PackageNotFoundError:
                pass
    except ImportError:
        pass
    return getattr(module, "__version__", None)


def check(result, what):
    """cuda-python returns (status, values...): raise on a failed status,
    else give the value (or values)."""
    status = result[0]
    code = getattr(status, "value", status)
    if code != 0:
        raise RuntimeError(f"{what} failed: {status!r}")
    return None if len(result) == 1 else result[1] if len(result) == 2 else result[1:]


def cuda_python_setup(driver):
    """cuInit, device 0, its primary context made current; (device, major, minor)."""
    check(driver.cuInit(0), "cuInit")
    device = check(driver.cuDeviceGet(0), "cuDeviceGet")
    attr = driver.CUdevice_attribute
    major = check(driver.cuDeviceGetAttribute(attr.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device),
                  "cuDeviceGetAttribute")
    minor = check(driver.cuDeviceGetAttribute(attr.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device),
                  "cuDeviceGetAttribute")
    context = check(driver.cuDevicePrimaryCtxRetain(device), "cuDevicePrimaryCtxRetain")
    check(driver.cuCtxSetCurrent(context), "cuCtxSetCurrent")
    return device, major, minor


def cuda_python_module(driver, nvrtc, source, major, minor):
    """NVRTC to PTX as the documentation does, then cuModuleLoadData."""
    prog = check(nvrtc.nvrtcCreateProgram(source.encode(), b"kernel.cu", 0, [], []), "nvrtcCreateProgram")
    options = [b"--fmad=false", f"--gpu-architecture=compute_{major}{minor}".encode()]
    status = nvrtc.nvrtcCompileProgram(prog, len(options), options)[0]
    if getattr(status, "value", status) != 0:
        size = check(nvrtc.nvrtcGetProgramLogSize(prog), "nvrtcGetProgramLogSize")
        log = b" " * size
        nvrtc.nvrtcGetProgramLog(prog, log)
        raise RuntimeError(f"nvrtcCompileProgram failed: {log.decode(errors='replace').strip()}")
    size = check(nvrtc.nvrtcGetPTXSize(prog), "nvrtcGetPTXSize")
    ptx = b" " * size
    check(nvrtc.nvrtcGetPTX(prog, ptx), "nvrtcGetPTX")
    check(nvrtc.nvrtcDestroyProgram(prog), "nvrtcDestroyProgram")
    return check(driver.cuModuleLoadData(ptx), "cuModuleLoadData")


def host_inputs(np, n):
    """x, y and the expected out, exactly representable."""
    i = np.arange(n, dtype=np.uint32)
    x = (i % 1024).astype(np.float32)
    y = (i % 37).astype(np.float32)
    return x, y, np.float32(2.0) * x + y


def saxpy_cuda_python(n):
    driver, nvrtc, _ = import_cuda_python()
    np = import_or_skip("numpy")
    device, major, minor = cuda_python_setup(driver)
    module = cuda_python_module(driver, nvrtc, SAXPY_SOURCE, major, minor)
    kernel = check(driver.cuModuleGetFunction(module, b"saxpy"), "cuModuleGetFunction")

    hx, hy, expected = host_inputs(np, n)
    hout = np.zeros(n, dtype=np.float32)
    nbytes = n * 4
    dx = check(driver.cuMemAlloc(nbytes), "cuMemAlloc")
    dy = check(driver.cuMemAlloc(nbytes), "cuMemAlloc")
    dout = check(driver.cuMemAlloc(nbytes), "cuMemAlloc")
    stream = check(driver.cuStreamCreate(0), "cuStreamCreate")
    check(driver.cuMemcpyHtoDAsync(dx, hx.ctypes.data, nbytes, stream), "cuMemcpyHtoDAsync")
    check(driver.cuMemcpyHtoDAsync(dy, hy.ctypes.data, nbytes, stream), "cuMemcpyHtoDAsync")

    # kernelParams: a contiguous array of pointers to each argument's value,
    # the way the documentation builds it (n is a size_t: 8 bytes)
    values = [np.array([2.0], dtype=np.float32), np.array([int(dx)], dtype=np.uint64),
              np.array([int(dy)], dtype=np.uint64), np.array([int(dout)], dtype=np.uint64),
              np.array([n], dtype=np.uint64)]
    params = np.array([v.ctypes.data for v in values], dtype=np.uint64)
    blocks = (n + NUM_THREADS - 1) // NUM_THREADS
    check(driver.cuLaunchKernel(kernel, blocks, 1, 1, NUM_THREADS, 1, 1, 0, stream, params.ctypes.data, 0),
          "cuLaunchKernel")
    check(driver.cuMemcpyDtoHAsync(hout.ctypes.data, dout, nbytes, stream), "cuMemcpyDtoHAsync")
    check(driver.cuStreamSynchronize(stream), "cuStreamSynchronize")
    right = np.array_equal(hout, expected)

    check(driver.cuStreamDestroy(stream), "cuStreamDestroy")
    for d in (dx, dy, dout):
        check(driver.cuMemFree(d), "cuMemFree")
    check(driver.cuModuleUnload(module), "cuModuleUnload")
    check(driver.cuDevicePrimaryCtxRelease(device), "cuDevicePrimaryCtxRelease")
    return right


def saxpy_cupy(n):
    cp = import_or_skip("cupy")
    np = import_or_skip("numpy")
    kernel = cp.RawKernel(SAXPY_SOURCE, "saxpy", options=("--fmad=false",))
    hx, hy, expected = host_inputs(np, n)
    stream = cp.cuda.Stream()
    with stream:
        dx = cp.asarray(hx)
        dy = cp.asarray(hy)
        dout = cp.empty(n, dtype=cp.float32)
        blocks = (n + NUM_THREADS - 1) // NUM_THREADS
        kernel((blocks,), (NUM_THREADS,), (np.float32(2.0), dx, dy, dout, np.uint64(n)))
        hout = cp.asnumpy(dout, stream=stream)
        stream.synchronize()
    right = np.array_equal(hout, expected)
    del dx, dy, dout
    cp.get_default_memory_pool().free_all_blocks()
    return right


def main(argv):
    usage = "usage: peers_saxpy.py cuda-python|cupy [-n ELEMS]"
    if len(argv) not in (2, 4) or argv[1] not in ("cuda-python", "cupy") or (len(argv) == 4 and argv[2] != "-n"):
        print(usage, file=sys.stderr)
        return 2
    try:
        n = int(argv[3]) if len(argv) == 4 else NUM_THREADS * NUM_BLOCKS
        if n < 1:
            raise ValueError
    except ValueError:
        print(usage, file=sys.stderr)
        return 2
    try:
        right = (saxpy_cuda_python if argv[1] == "cuda-python" else saxpy_cupy)(n)
    except Skip as e:
        print(f"skip\t{e}")
        return EXIT_SKIP
    except Exception as e:  # one line, never a traceback
        print(f"error\t{type(e).__name__}: {e}".replace("\n", " "))
        return EXIT_ERROR
    print("Result = PASS" if right else "Result = FAIL")
    return 0 if right else EXIT_WRONG


if __name__ == "__main__":
    sys.exit(main(sys.argv))
