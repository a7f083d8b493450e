/*
 * saxpy_direct.c - the baseline of `make bench-peers`: the SAXPY
 * application of the cuda-python documentation, written straight against
 * the CUDA driver API and NVRTC as a C programmer without cudyn would.  It
 * uses nothing of cudyn: both libraries are opened with dlopen (so nothing
 * CUDA is needed to build it), each function is taken by the exact name the
 * library exports for the signature declared below (cuMemAlloc_v2 ...), as
 * <cuda.h> would have bound it.
 *
 * The application, as the documentation has it: compile the kernel with
 * NVRTC to PTX for the device's compute capability (--fmad=false), load it,
 * allocate x, y and out (n floats; 512 x 32768 by default), copy x and y in
 * on a stream, launch 32768 blocks of 512 threads, copy out back,
 * synchronise, verify, free.  Two changes, both made by every program of
 * the comparison: the device's primary context (what cudyn, CuPy and the
 * CUDA runtime use) instead of cuCtxCreate, whose signature changed in
 * CUDA 13; and inputs that can be checked exactly (x[i] = i mod 1024,
 * y[i] = i mod 37, a = 2, as cudyn-saxpy uses) instead of random ones.
 *
 * With --floor it does only what no SAXPY program can avoid: cuInit, the
 * primary context, the three allocations, then exit; its whole-process
 * time is the floor the others stand on (the driver's start-up and
 * teardown).
 *
 * Usage: saxpy_direct [--floor] [--libcuda PATH] [--libnvrtc PATH] [-n ELEMS]
 * Prints "Result = PASS" and exits 0 when every element is right; 1 for a
 * wrong result, 2 for a usage error, 8 for a failed CUDA or NVRTC call.
 */
#include "config.h"

#include <dlfcn.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The few CUDA types used, as the driver's ABI has them. */
typedef int CUresult;
typedef int CUdevice;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUstream_st *CUstream;
typedef unsigned long long CUdeviceptr;
typedef int nvrtcResult;
typedef struct _nvrtcProgram *nvrtcProgram;

enum { CC_MAJOR_ATTRIBUTE = 75, CC_MINOR_ATTRIBUTE = 76 }; /* CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_* */

/* Every entry point used: the exported name and the signature it has. */
static struct {
    CUresult (*cuInit)(unsigned int);
    CUresult (*cuGetErrorName)(CUresult, const char **);
    CUresult (*cuDeviceGet)(CUdevice *, int);
    CUresult (*cuDeviceGetAttribute)(int *, int, CUdevice);
    CUresult (*cuDevicePrimaryCtxRetain)(CUcontext *, CUdevice);
    CUresult (*cuDevicePrimaryCtxRelease_v2)(CUdevice);
    CUresult (*cuCtxSetCurrent)(CUcontext);
    CUresult (*cuModuleLoadData)(CUmodule *, const void *);
    CUresult (*cuModuleGetFunction)(CUfunction *, CUmodule, const char *);
    CUresult (*cuModuleUnload)(CUmodule);
    CUresult (*cuMemAlloc_v2)(CUdeviceptr *, size_t);
    CUresult (*cuMemFree_v2)(CUdeviceptr);
    CUresult (*cuStreamCreate)(CUstream *, unsigned int);
    CUresult (*cuStreamDestroy_v2)(CUstream);
    CUresult (*cuStreamSynchronize)(CUstream);
    CUresult (*cuMemcpyHtoDAsync_v2)(CUdeviceptr, const void *, size_t, CUstream);
    CUresult (*cuMemcpyDtoHAsync_v2)(void *, CUdeviceptr, size_t, CUstream);
    CUresult (*cuLaunchKernel)(CUfunction, unsigned int, unsigned int, unsigned int, unsigned int, unsigned int,
                               unsigned int, unsigned int, CUstream, void **, void **);
} cu;

static struct {
    nvrtcResult (*nvrtcVersion)(int *, int *);
    const char *(*nvrtcGetErrorString)(nvrtcResult);
    nvrtcResult (*nvrtcCreateProgram)(nvrtcProgram *, const char *, const char *, int, const char *const *,
                                      const char *const *);
    nvrtcResult (*nvrtcCompileProgram)(nvrtcProgram, int, const char *const *);
    nvrtcResult (*nvrtcGetProgramLogSize)(nvrtcProgram, size_t *);
    nvrtcResult (*nvrtcGetProgramLog)(nvrtcProgram, char *);
    nvrtcResult (*nvrtcGetPTXSize)(nvrtcProgram, size_t *);
    nvrtcResult (*nvrtcGetPTX)(nvrtcProgram, char *);
    nvrtcResult (*nvrtcDestroyProgram)(nvrtcProgram *);
} nv;

/* The documentation's kernel. */
static const char saxpy_source[] = "extern \"C\" __global__\n"
                                   "void saxpy(float a, float *x, float *y, float *out, size_t n)\n"
                                   "{\n"
                                   "    size_t tid = blockIdx.x * blockDim.x + threadIdx.x;\n"
                                   "    if (tid < n) {\n"
                                   "        out[tid] = a * x[tid] + y[tid];\n"
                                   "    }\n"
                                   "}\n";

enum { NUM_THREADS = 512, EXIT_WRONG = 1, EXIT_USAGE = 2, EXIT_CUDA = 8 };

static void die(const char *what, const char *detail)
{
    fprintf(stderr, "saxpy_direct: %s: %s\n", what, detail);
    exit(EXIT_CUDA);
}

static void check_cu(CUresult r, const char *call)
{
    if (r != 0) {
        const char *name = NULL;
        if (!cu.cuGetErrorName || cu.cuGetErrorName(r, &name) != 0 || !name)
            name = "unknown CUresult";
        char detail[128];
        snprintf(detail, sizeof detail, "%s (%d)", name, r);
        die(call, detail);
    }
}

static void check_nvrtc(nvrtcResult r, const char *call)
{
    if (r != 0)
        die(call, nv.nvrtcGetErrorString ? nv.nvrtcGetErrorString(r) : "NVRTC error");
}

/* Binds `name` from `lib` into *slot (a function pointer of the table). */
static void bind(void *lib, const char *name, void *slot)
{
    void *p = dlsym(lib, name);
    if (!p)
        die("dlsym", name);
    memcpy(slot, &p, sizeof p);
}

#define BIND(lib, table, fn) bind(lib, #fn, &table.fn)

static void load_driver(const char *path)
{
    void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!lib)
        die("dlopen", dlerror());
    BIND(lib, cu, cuInit);
    BIND(lib, cu, cuGetErrorName);
    BIND(lib, cu, cuDeviceGet);
    BIND(lib, cu, cuDeviceGetAttribute);
    BIND(lib, cu, cuDevicePrimaryCtxRetain);
    BIND(lib, cu, cuDevicePrimaryCtxRelease_v2);
    BIND(lib, cu, cuCtxSetCurrent);
    BIND(lib, cu, cuModuleLoadData);
    BIND(lib, cu, cuModuleGetFunction);
    BIND(lib, cu, cuModuleUnload);
    BIND(lib, cu, cuMemAlloc_v2);
    BIND(lib, cu, cuMemFree_v2);
    BIND(lib, cu, cuStreamCreate);
    BIND(lib, cu, cuStreamDestroy_v2);
    BIND(lib, cu, cuStreamSynchronize);
    BIND(lib, cu, cuMemcpyHtoDAsync_v2);
    BIND(lib, cu, cuMemcpyDtoHAsync_v2);
    BIND(lib, cu, cuLaunchKernel);
}

/* NVRTC by the given path, else by soname, newest first, else from the
 * usual toolkit directory.  NVRTC opens libnvrtc-builtins by soname, which
 * the loader finds only on its search path: it is opened here first, from
 * NVRTC's own directory, as a program shipping NVRTC would arrange. */
static void load_nvrtc(const char *path)
{
    static const char *const names[] = {"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so.11.2",
                                        "libnvrtc.so", "/usr/local/cuda/lib64/libnvrtc.so"};
    void *lib = path ? dlopen(path, RTLD_NOW | RTLD_LOCAL) : NULL;
    for (size_t i = 0; !path && !lib && i < sizeof names / sizeof names[0]; i++)
        lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
    if (!lib)
        die("dlopen libnvrtc", path ? dlerror() : "not found (give --libnvrtc PATH)");
    BIND(lib, nv, nvrtcVersion);
    BIND(lib, nv, nvrtcGetErrorString);
    BIND(lib, nv, nvrtcCreateProgram);
    BIND(lib, nv, nvrtcCompileProgram);
    BIND(lib, nv, nvrtcGetProgramLogSize);
    BIND(lib, nv, nvrtcGetProgramLog);
    BIND(lib, nv, nvrtcGetPTXSize);
    BIND(lib, nv, nvrtcGetPTX);
    BIND(lib, nv, nvrtcDestroyProgram);
    int major = 0, minor = 0;
    Dl_info where;
    const char *slash = NULL;
    if (nv.nvrtcVersion(&major, &minor) == 0 && dladdr(dlsym(lib, "nvrtcVersion"), &where) && where.dli_fname)
        slash = strrchr(where.dli_fname, '/');
    if (slash) {
        char builtins[PATH_MAX];
        snprintf(builtins, sizeof builtins, "%.*s/libnvrtc-builtins.so.%d.%d", (int)(slash - where.dli_fname),
                 where.dli_fname, major, minor);
        dlopen(builtins, RTLD_NOW | RTLD_GLOBAL); /* if it is not there, NVRTC's own error says so */
    }
}

/* PTX of the kernel for compute capability major.minor, as the
 * documentation compiles it. */
static char *compile(int major, int minor)
{
    nvrtcProgram prog;
    check_nvrtc(nv.nvrtcCreateProgram(&prog, saxpy_source, "saxpy.cu", 0, NULL, NULL), "nvrtcCreateProgram");
    char arch[64];
    snprintf(arch, sizeof arch, "--gpu-architecture=compute_%d%d", major, minor);
    const char *options[] = {"--fmad=false", arch};
    nvrtcResult r = nv.nvrtcCompileProgram(prog, 2, options);
    if (r != 0) {
        size_t bytes = 0;
        nv.nvrtcGetProgramLogSize(prog, &bytes);
        char *log = calloc(1, bytes + 1);
        if (log && nv.nvrtcGetProgramLog(prog, log) == 0)
            fprintf(stderr, "%s\n", log);
        free(log);
        check_nvrtc(r, "nvrtcCompileProgram");
    }
    size_t bytes = 0;
    check_nvrtc(nv.nvrtcGetPTXSize(prog, &bytes), "nvrtcGetPTXSize");
    char *ptx = malloc(bytes);
    if (!ptx)
        die("malloc", "no memory for the PTX");
    check_nvrtc(nv.nvrtcGetPTX(prog, ptx), "nvrtcGetPTX");
    check_nvrtc(nv.nvrtcDestroyProgram(&prog), "nvrtcDestroyProgram");
    return ptx;
}

/* --floor: the driver's share of any SAXPY process. */
static int driver_floor(size_t n)
{
    check_cu(cu.cuInit(0), "cuInit");
    CUdevice dev;
    check_cu(cu.cuDeviceGet(&dev, 0), "cuDeviceGet");
    CUcontext ctx;
    check_cu(cu.cuDevicePrimaryCtxRetain(&ctx, dev), "cuDevicePrimaryCtxRetain");
    check_cu(cu.cuCtxSetCurrent(ctx), "cuCtxSetCurrent");
    CUdeviceptr p[3];
    for (int i = 0; i < 3; i++)
        check_cu(cu.cuMemAlloc_v2(&p[i], n * sizeof(float)), "cuMemAlloc");
    for (int i = 0; i < 3; i++)
        check_cu(cu.cuMemFree_v2(p[i]), "cuMemFree");
    printf("Result = PASS (the floor: cuInit, primary context, 3 allocations)\n");
    return 0;
}

int main(int argc, char **argv)
{
    const char *libcuda = "libcuda.so.1", *libnvrtc = NULL;
    size_t n = (size_t)NUM_THREADS * 32768;
    bool floor_only = false;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--floor") == 0) {
            floor_only = true;
        } else if (strcmp(argv[i], "--libcuda") == 0 && i + 1 < argc) {
            libcuda = argv[++i];
        } else if (strcmp(argv[i], "--libnvrtc") == 0 && i + 1 < argc) {
            libnvrtc = argv[++i];
        } else if (strcmp(argv[i], "-n") == 0 && i + 1 < argc) {
            char *end;
            unsigned long long v = strtoull(argv[++i], &end, 10);
            if (*end || v == 0 || v > (1ull << 31)) {
                fprintf(stderr, "saxpy_direct: -n takes a number from 1 to 2^31\n");
                return EXIT_USAGE;
            }
            n = (size_t)v;
        } else {
            fprintf(stderr, "usage: saxpy_direct [--floor] [--libcuda PATH] [--libnvrtc PATH] [-n ELEMS]\n");
            return EXIT_USAGE;
        }
    }
    load_driver(libcuda);
    if (floor_only)
        return driver_floor(n);
    load_nvrtc(libnvrtc);

    check_cu(cu.cuInit(0), "cuInit");
    CUdevice dev;
    check_cu(cu.cuDeviceGet(&dev, 0), "cuDeviceGet");
    int major = 0, minor = 0;
    check_cu(cu.cuDeviceGetAttribute(&major, CC_MAJOR_ATTRIBUTE, dev), "cuDeviceGetAttribute");
    check_cu(cu.cuDeviceGetAttribute(&minor, CC_MINOR_ATTRIBUTE, dev), "cuDeviceGetAttribute");
    char *ptx = compile(major, minor);

    CUcontext ctx;
    check_cu(cu.cuDevicePrimaryCtxRetain(&ctx, dev), "cuDevicePrimaryCtxRetain");
    check_cu(cu.cuCtxSetCurrent(ctx), "cuCtxSetCurrent");
    CUmodule mod;
    CUfunction kernel;
    check_cu(cu.cuModuleLoadData(&mod, ptx), "cuModuleLoadData");
    check_cu(cu.cuModuleGetFunction(&kernel, mod, "saxpy"), "cuModuleGetFunction");
    free(ptx);

    size_t bytes = n * sizeof(float);
    float a = 2.0f, *hx = malloc(bytes), *hy = malloc(bytes), *hout = malloc(bytes);
    if (!hx || !hy || !hout)
        die("malloc", "no memory for the host vectors");
    for (size_t i = 0; i < n; i++) {
        hx[i] = (float)(i % 1024);
        hy[i] = (float)(i % 37);
    }
    CUdeviceptr dx, dy, dout;
    check_cu(cu.cuMemAlloc_v2(&dx, bytes), "cuMemAlloc");
    check_cu(cu.cuMemAlloc_v2(&dy, bytes), "cuMemAlloc");
    check_cu(cu.cuMemAlloc_v2(&dout, bytes), "cuMemAlloc");
    CUstream stream;
    check_cu(cu.cuStreamCreate(&stream, 0), "cuStreamCreate");
    check_cu(cu.cuMemcpyHtoDAsync_v2(dx, hx, bytes, stream), "cuMemcpyHtoDAsync");
    check_cu(cu.cuMemcpyHtoDAsync_v2(dy, hy, bytes, stream), "cuMemcpyHtoDAsync");

    void *args[] = {&a, &dx, &dy, &dout, &n};
    unsigned int blocks = (unsigned int)((n + NUM_THREADS - 1) / NUM_THREADS);
    check_cu(cu.cuLaunchKernel(kernel, blocks, 1, 1, NUM_THREADS, 1, 1, 0, stream, args, NULL), "cuLaunchKernel");
    check_cu(cu.cuMemcpyDtoHAsync_v2(hout, dout, bytes, stream), "cuMemcpyDtoHAsync");
    check_cu(cu.cuStreamSynchronize(stream), "cuStreamSynchronize");

    size_t wrong = 0;
    for (size_t i = 0; i < n; i++)
        wrong += hout[i] != a * hx[i] + hy[i];

    check_cu(cu.cuStreamDestroy_v2(stream), "cuStreamDestroy");
    check_cu(cu.cuMemFree_v2(dx), "cuMemFree");
    check_cu(cu.cuMemFree_v2(dy), "cuMemFree");
    check_cu(cu.cuMemFree_v2(dout), "cuMemFree");
    check_cu(cu.cuModuleUnload(mod), "cuModuleUnload");
    check_cu(cu.cuDevicePrimaryCtxRelease_v2(dev), "cuDevicePrimaryCtxRelease");
    free(hx);
    free(hy);
    free(hout);
    if (wrong) {
        printf("%zu of %zu elements wrong\nResult = FAIL\n", wrong, n);
        return EXIT_WRONG;
    }
    printf("Result = PASS\n");
    return 0;
}
