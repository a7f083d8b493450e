/*
 * cudyn.h - use NVIDIA GPUs with no build-time CUDA dependency.
 *
 * cudyn finds the NVIDIA driver (libcuda) and NVRTC (libnvrtc) at run time,
 * binds every entry point at the ABI version its declaration was written
 * for, and offers this small, stable C ABI on top of them.  This header is
 * self-contained (no CUDA headers) and usable from C and C++.
 *
 * Conventions, valid for every function below unless it says otherwise:
 *
 *  - Functions return a cudyn_status; CUDYN_OK (0) means success.  On any
 *    other value the calling thread's last error holds the details (see
 *    cudyn_last_error): the native CUDA / NVRTC code, the failing driver
 *    function and a one-line message with a hint.
 *  - Every function loads and initialises the driver on first use, lazily
 *    and thread-safely; cudyn_init() is optional.  A program therefore
 *    starts, and reports clearly why, on a machine with no GPU.
 *  - Device work runs in the primary context of the calling thread's device
 *    (device 0 unless cudyn_device_use() picked another), retained on first
 *    use.  If the thread already has a current context made by another
 *    library, cudyn uses that one (see "Native handles" for the rules).
 *  - Pointer arguments are checked: NULL where a value is required gives
 *    CUDYN_ERROR_INVALID_ARGUMENT naming the argument, never a crash.
 *  - All functions are thread-safe.  The library never prints (except the
 *    loader trace when CUDYN_DEBUG=1) and never exits the process.
 *  - Size-prefixed structs (cudyn_error, struct cudyn_loader_info,
 *    struct cudyn_device_info, struct cudyn_function_info): set .size =
 *    sizeof the struct before the call; cudyn fills only the fields that
 *    fit, so programs built against an older header keep working with a
 *    newer library.  The three info structs share their name with the
 *    function that fills them, as struct stat and stat() do.
 *
 * Environment variables: CUDYN_LIBCUDA, CUDYN_LIBNVRTC (file or directory
 * overriding the search), CUDYN_DEBUG=1 (loader trace on stderr),
 * CUDYN_PTDS=0|1 (per-thread default stream when cudyn_init() does not say),
 * CUDYN_CACHE_DIR, CUDYN_CACHE=0 (the compiled-kernel cache, see cudyn_compile).
 */
#ifndef CUDYN_H
#define CUDYN_H

#include <stddef.h>
#include <stdint.h>

#if defined(CUDYN_BUILDING_LIBRARY) && defined(__GNUC__)
#define CUDYN_API __attribute__((visibility("default")))
#else
#define CUDYN_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ======================================================================
 * Status codes
 * ====================================================================== */

/*
 * Stable status values, as one list (in the style of libuv's UV_ERRNO_MAP):
 * X(name without the CUDYN_ prefix, value, what cudyn_status_string says).
 * Values are never renumbered; new ones are only appended.  The enum, the
 * names and the descriptions are all generated from this list.
 */
#define CUDYN_STATUS_MAP(X)                                                                                    \
    X(OK, 0, "no error")                                                                                       \
    /* Loader: the driver or NVRTC could not be used. */                                                       \
    X(ERROR_DRIVER_NOT_FOUND, 1, "the NVIDIA driver library (libcuda) was not found")                          \
    X(ERROR_STUB_DRIVER, 2, "only the CUDA toolkit's stub libcuda was found, not a real driver")               \
    X(ERROR_DRIVER_TOO_OLD, 3, "the NVIDIA driver is too old for this operation")                              \
    X(ERROR_NVRTC_NOT_FOUND, 4, "the NVRTC library (libnvrtc) was not found")                                  \
    X(ERROR_SYMBOL_NOT_FOUND, 5, "the loaded library does not provide a needed entry point")                   \
    X(ERROR_INIT_FAILED, 6, "the CUDA driver failed to initialise")                                            \
    /* Usage: the call itself was wrong. */                                                                    \
    X(ERROR_INVALID_ARGUMENT, 7, "an argument is invalid")                                                     \
    X(ERROR_INVALID_DEVICE, 8, "no such device")                                                               \
    X(ERROR_NO_DEVICE, 9, "the driver sees no CUDA-capable device")                                            \
    X(ERROR_INVALID_CONTEXT, 10, "no valid CUDA context for this call")                                        \
    X(ERROR_INVALID_HANDLE, 11, "a handle (stream, event, module, function) is invalid")                       \
    X(ERROR_NOT_FOUND, 12, "the named kernel or variable was not found")                                       \
    X(ERROR_NOT_READY, 13, "the work queried has not finished yet")                                            \
    X(ERROR_NOT_SUPPORTED, 14, "the device or driver does not support this operation")                        \
    X(ERROR_NOT_PERMITTED, 15, "the operation is not permitted")                                               \
    X(ERROR_ALREADY_INITIALIZED, 16, "cudyn was already initialised with different flags")                     \
    /* Resources. */                                                                                           \
    X(ERROR_OUT_OF_MEMORY, 17, "out of memory")                                                                \
    X(ERROR_DEVICE_UNAVAILABLE, 18, "the device is busy, unavailable or in an error state")                    \
    /* Compilation and module images. */                                                                       \
    X(ERROR_COMPILE, 19, "the kernel source failed to compile; see the log")                                   \
    X(ERROR_INVALID_IMAGE, 20, "the module image is invalid")                                                  \
    X(ERROR_NO_BINARY_FOR_GPU, 21, "the module image has no code for this GPU")                                \
    X(ERROR_UNSUPPORTED_PTX, 22, "the PTX is newer than the driver supports")                                  \
    X(ERROR_UNSUPPORTED_ARCH, 23, "NVRTC cannot build code for this GPU")                                      \
    /* Launch and execution. */                                                                                \
    X(ERROR_LAUNCH_FAILED, 24, "the kernel launch or execution failed")                                        \
    X(ERROR_ILLEGAL_ADDRESS, 25, "a kernel accessed an illegal memory address")                                \
    X(ERROR_LAUNCH_TIMEOUT, 26, "a kernel ran longer than the watchdog allows")                                \
    X(ERROR_LAUNCH_OUT_OF_RESOURCES, 27, "too many resources requested for the launch")                        \
    X(ERROR_INVALID_LAUNCH_ARGUMENTS, 28, "the launch arguments do not match the kernel's parameters")         \
    X(ERROR_ILLEGAL_INSTRUCTION, 29, "a kernel executed an illegal instruction or misaligned access")          \
    X(ERROR_ASSERT, 30, "a device-side assert was triggered")                                                  \
    /* Anything else, with the native code kept in the error detail. */                                        \
    X(ERROR_DRIVER, 31, "the CUDA driver reported an error")                                                   \
    X(ERROR_NVRTC, 32, "NVRTC reported an error")                                                              \
    X(ERROR_SYSTEM, 33, "an operating system call failed")                                                     \
    X(ERROR_TIMEOUT, 34, "the operation timed out")                                                            \
    /* Appended in 0.2. */                                                                                     \
    X(ERROR_FORKED, 35, "CUDA was initialised in the parent process before fork(); the child cannot use it") \
    X(ERROR_WRONG_CONTEXT, 36, "the module, kernel, stream or event belongs to another device's context")

/*
 * What each status means for a caller, group by group:
 *  - loader (1-6): no usable driver or NVRTC; cudyn_loader_info and
 *    `cudainfo --explain` say what was searched;
 *  - usage (7-16): the call was wrong; the message names the argument;
 *  - resources (17-18), compilation (19-23), launch and execution (24-30):
 *    what the driver or NVRTC reported, with the native code kept; the
 *    message says when an execution error is sticky (the process must exit
 *    to use the device again);
 *  - anything else (31-34) keeps the native code in cudyn_error;
 *  - CUDYN_ERROR_FORKED (35): this process is the child of a fork() made
 *    after its parent had initialised CUDA; the driver's state is the
 *    parent's and cannot be used here (see cudyn_init);
 *  - CUDYN_ERROR_WRONG_CONTEXT (36): a module, kernel or event made in one
 *    device's context was used by a thread working in another's (see
 *    cudyn_device_use); the message names both.
 */
typedef enum cudyn_status {
#define CUDYN_STATUS_ENUM_ROW_(name, value, text) CUDYN_##name = value,
    CUDYN_STATUS_MAP(CUDYN_STATUS_ENUM_ROW_)
#undef CUDYN_STATUS_ENUM_ROW_
} cudyn_status;

/* "CUDYN_ERROR_OUT_OF_MEMORY"; "CUDYN_STATUS_UNKNOWN" for values this
 * library does not know.  Works without a driver; never NULL. */
CUDYN_API const char *cudyn_status_name(int status);
/* One sentence describing the status.  Works without a driver; never NULL. */
CUDYN_API const char *cudyn_status_string(int status);

/* Where a failure came from. */
typedef enum cudyn_origin {
    CUDYN_ORIGIN_NONE = 0,    /* no failure recorded */
    CUDYN_ORIGIN_LIBRARY = 1, /* cudyn itself: bad argument, etc. */
    CUDYN_ORIGIN_LOADER = 2,  /* finding / binding libcuda or libnvrtc */
    CUDYN_ORIGIN_DRIVER = 3,  /* a CUresult from libcuda */
    CUDYN_ORIGIN_NVRTC = 4,   /* an nvrtcResult from libnvrtc */
    CUDYN_ORIGIN_SYSTEM = 5   /* an errno from the C library */
} cudyn_origin;

/* Detail of the calling thread's last failure. */
typedef struct cudyn_error {
    size_t size;             /* set by the caller: sizeof(cudyn_error) */
    int status;              /* a cudyn_status */
    int origin;              /* a cudyn_origin */
    int native_code;         /* CUresult, nvrtcResult or errno, unchanged */
    char native_name[64];    /* "CUDA_ERROR_OUT_OF_MEMORY", "" if none */
    char function[64];       /* "cuMemAlloc", "cudyn_mem_alloc" ... */
    char message[1024];      /* one line a person can act on, with a hint */
    /* appended in 0.2 (older callers set a smaller size) */
    char hint[512];          /* the hint alone, "" if none; message ends with
                                "; hint: " and this text */
} cudyn_error;

/*
 * Copies the calling thread's last failure into *out (up to out->size
 * bytes) and returns its status, or CUDYN_OK when this thread has had no
 * failure since it started or since cudyn_clear_error().  Successful calls
 * do not clear it (like errno).  out may be NULL to just read the status.
 */
CUDYN_API int cudyn_last_error(cudyn_error *out);
/* Forgets the calling thread's last failure. */
CUDYN_API void cudyn_clear_error(void);

/* ======================================================================
 * Loader
 * ====================================================================== */

/* cudyn_init flags (OR them). */
#define CUDYN_INIT_DEFAULT 0u
/* The NULL stream is the legacy default stream (synchronises with others). */
#define CUDYN_INIT_LEGACY_STREAM 1u
/* The NULL stream is the per-thread default stream (nvcc's
 * --default-stream per-thread).  Without either flag, CUDYN_PTDS=1 selects
 * it, CUDYN_PTDS=0 or unset selects legacy; other values are an error. */
#define CUDYN_INIT_PER_THREAD_STREAM 2u

/*
 * Loads and binds the driver and calls cuInit.  Optional: any other call
 * does the same on first use with CUDYN_INIT_DEFAULT.  Calling it again
 * returns the first result; different stream flags after the first
 * initialisation give CUDYN_ERROR_ALREADY_INITIALIZED.
 *
 * fork(): the CUDA driver cannot be used in the child of a process that had
 * initialised it.  Every cudyn call in such a child returns
 * CUDYN_ERROR_FORKED (and does not touch the driver); initialise CUDA only
 * after forking, or start workers with posix_spawn / exec.  A child of a
 * parent that never initialised cudyn works normally.
 */
CUDYN_API int cudyn_init(unsigned int flags);

/*
 * How the entry points of the driver were resolved:
 * X(name without CUDYN_ENTRY_, value, the name cudyn_loader_info reports).
 */
#define CUDYN_ENTRY_MECHANISM_MAP(X)                                                                           \
    X(NONE, 0, "none")                          /* driver not loaded */                                       \
    X(PROC_ADDRESS_V2, 1, "cuGetProcAddress_v2") /* CUDA 12.0+ */                                              \
    X(PROC_ADDRESS_V1, 2, "cuGetProcAddress")    /* the 4-argument one of 11.3-11.8 */                         \
    X(DLSYM, 3, "dlsym")                        /* exact versioned names, 11.0-11.2 */

typedef enum cudyn_entry_mechanism {
#define CUDYN_ENTRY_ENUM_ROW_(name, value, text) CUDYN_ENTRY_##name = value,
    CUDYN_ENTRY_MECHANISM_MAP(CUDYN_ENTRY_ENUM_ROW_)
#undef CUDYN_ENTRY_ENUM_ROW_
} cudyn_entry_mechanism;

/*
 * How a library was found: the strings of driver_found_by and
 * nvrtc_found_by, X(name, string, meaning), in search order.
 */
#define CUDYN_FOUND_BY_MAP(X)                                                                                  \
    X(DRIVER_ENV, "CUDYN_LIBCUDA", "the file or directory the variable names")                                \
    X(NVRTC_ENV, "CUDYN_LIBNVRTC", "the file or directory the variable names")                                \
    X(ALREADY_LOADED, "already loaded", "a copy another library had loaded into the process")                  \
    X(SONAME, "soname", "by soname through the dynamic loader's search path")                                 \
    X(LD_LIBRARY_PATH, "LD_LIBRARY_PATH", "a directory of LD_LIBRARY_PATH, by full path (the soname was a stub)") \
    X(WSL, "wsl", "WSL's /usr/lib/wsl/lib")                                                                    \
    X(SYSTEM_DIR, "system dir", "a fixed distribution directory such as /usr/lib64")                          \
    X(CUDA_PATH, "CUDA_PATH", "lib64 or lib under $CUDA_PATH")                                                 \
    X(CUDA_HOME, "CUDA_HOME", "lib64 or lib under $CUDA_HOME")                                                 \
    X(TOOLKIT_DIR, "toolkit dir", "/usr/local/cuda/lib64 or /usr/local/cuda-X.Y/lib64, newest first")          \
    X(UNVERSIONED, "unversioned", "the unversioned name (libcuda.so, libnvrtc.so), tried last")

/* What the loader found.  Strings are owned by the library and live as long
 * as the process; NULL where nothing applies. */
struct cudyn_loader_info {
    size_t size;                 /* set by the caller */
    int driver_status;           /* cudyn_status of loading libcuda */
    int init_status;             /* cudyn_status of cuInit */
    const char *driver_path;     /* file actually loaded */
    const char *driver_found_by; /* a string of CUDYN_FOUND_BY_MAP */
    int driver_version;          /* cuDriverGetVersion: 13000 = CUDA 13.0; 0 if unknown */
    int entry_mechanism;         /* a cudyn_entry_mechanism */
    int symbols_bound;           /* table rows bound */
    int symbols_missing;         /* optional rows the driver lacks (stubs) */
    int per_thread_stream;       /* 1 if the NULL stream is per-thread */
    const char *driver_trace;    /* every place tried and what happened, one per line */
    int nvrtc_status;            /* cudyn_status of loading libnvrtc */
    const char *nvrtc_path;
    const char *nvrtc_found_by;  /* a string of CUDYN_FOUND_BY_MAP */
    int nvrtc_version;           /* 13000 = NVRTC 13.0; 0 if not loaded */
    const char *nvrtc_trace;
    const char *nvrtc_builtins_path; /* libnvrtc-builtins preloaded, or NULL */
    /* appended in 0.2 (older callers set a smaller size) */
    const char *entry_mechanism_name; /* the string of CUDYN_ENTRY_MECHANISM_MAP */
    double driver_load_ms;       /* finding, opening and binding libcuda */
    double init_ms;              /* cuInit */
    double nvrtc_load_ms;        /* finding, opening and binding libnvrtc */
};

/* What cudyn_loader_info_ex may load before it answers (OR them). */
#define CUDYN_LOAD_NOTHING 0u
#define CUDYN_LOAD_DRIVER 1u /* and call cuInit */
#define CUDYN_LOAD_NVRTC 2u
#define CUDYN_LOAD_ALL 3u

/*
 * Loads the driver and NVRTC (if not done yet) and describes what was found.
 * Returns CUDYN_OK when *out was filled, even if loading failed (the
 * statuses in *out tell, and a driver that could not be loaded or
 * initialised leaves its failure as the thread's last error, as cudyn_init
 * does); CUDYN_ERROR_INVALID_ARGUMENT for a bad out.
 */
CUDYN_API int cudyn_loader_info(struct cudyn_loader_info *out);
/* As cudyn_loader_info, loading only what `load` names (CUDYN_LOAD_*); a
 * library not tried yet reports the status CUDYN_ERROR_NOT_READY.  With
 * CUDYN_LOAD_NOTHING it only describes the process as it is, for example
 * whether a kernel came from the cache without NVRTC. */
CUDYN_API int cudyn_loader_info_ex(struct cudyn_loader_info *out, unsigned int load);

/* 1 if the loaded driver offers the entry point (base name such as
 * "cuFuncGetParamInfo", or an exact exported name such as "cuMemAlloc_v2"),
 * 0 if not, or if no driver could be loaded. */
CUDYN_API int cudyn_has(const char *entry_point);

/*
 * Raw entry points, for code written against <cuda.h> / <nvrtc.h>.
 * cudyn_driver_proc("cuMemAlloc", 3020) returns the variant whose signature
 * matches CUDA 3.2's declaration (cuMemAlloc_v2), honouring the stream mode.
 * NULL (with the last error set) if the driver lacks it or is newer than
 * abi_version allows.  include/cudyn/driver.h wraps this with types.
 */
CUDYN_API void *cudyn_driver_proc(const char *name, int abi_version);
CUDYN_API void *cudyn_nvrtc_proc(const char *name);

/* The library's own version as "MAJOR.MINOR.PATCH" (the package version). */
CUDYN_API const char *cudyn_version(void);

/* ======================================================================
 * Devices
 * ====================================================================== */

/* Number of visible devices (honours CUDA_VISIBLE_DEVICES).  Zero devices
 * is CUDYN_OK with *count = 0 when the driver reports "no device". */
CUDYN_API int cudyn_device_count(int *count);

/* Device description.  Integers are in base units (bytes, kHz). */
struct cudyn_device_info {
    size_t size;                    /* set by the caller */
    int ordinal;
    char name[256];
    unsigned char uuid[16];
    char uuid_string[48];           /* "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" */
    char pci_bus_id[32];            /* "0000:17:00.0" */
    int pci_domain, pci_bus, pci_device;
    int cc_major, cc_minor;         /* compute capability */
    uint64_t total_memory;          /* bytes */
    int multiprocessors;
    int clock_khz;                  /* 0 if the driver no longer reports it */
    int memory_clock_khz;
    int memory_bus_width;           /* bits */
    int l2_cache_bytes;
    int shared_memory_per_block;
    int shared_memory_per_block_optin;
    int shared_memory_per_multiprocessor;
    int registers_per_block;
    int registers_per_multiprocessor;
    int warp_size;
    int max_threads_per_block;
    int max_threads_per_multiprocessor;
    int max_block_dim[3];
    int max_grid_dim[3];
    int async_engines;
    int ecc_enabled;
    int integrated;
    int managed_memory;
    int unified_addressing;
    int concurrent_kernels;
    int compute_mode;               /* 0 default, 2 prohibited, 3 exclusive process */
    int kernel_exec_timeout;        /* 1 if a display watchdog applies */
    int cooperative_launch;
};

/* Fills *out for device `ordinal` (0 .. count-1).
 * CUDYN_ERROR_INVALID_DEVICE for an ordinal out of range. */
CUDYN_API int cudyn_device_info(int ordinal, struct cudyn_device_info *out);

/*
 * Device attributes.  Values are those of CUDA's CUdevice_attribute, which
 * CUDA never renumbers; cudyn_device_attr_name() gives each a name
 * ("max_threads_per_block"), cudyn_device_attr_count() one past the highest
 * known value.  Values the driver does not know give CUDYN_ERROR_NOT_SUPPORTED.
 */
typedef int cudyn_device_attr;
#define CUDYN_ATTR_MAX_THREADS_PER_BLOCK 1
#define CUDYN_ATTR_MAX_BLOCK_DIM_X 2
#define CUDYN_ATTR_MAX_BLOCK_DIM_Y 3
#define CUDYN_ATTR_MAX_BLOCK_DIM_Z 4
#define CUDYN_ATTR_MAX_GRID_DIM_X 5
#define CUDYN_ATTR_MAX_GRID_DIM_Y 6
#define CUDYN_ATTR_MAX_GRID_DIM_Z 7
#define CUDYN_ATTR_SHARED_MEMORY_PER_BLOCK 8
#define CUDYN_ATTR_WARP_SIZE 10
#define CUDYN_ATTR_REGISTERS_PER_BLOCK 12
#define CUDYN_ATTR_CLOCK_RATE 13
#define CUDYN_ATTR_MULTIPROCESSOR_COUNT 16
#define CUDYN_ATTR_KERNEL_EXEC_TIMEOUT 17
#define CUDYN_ATTR_INTEGRATED 18
#define CUDYN_ATTR_COMPUTE_MODE 20
#define CUDYN_ATTR_CONCURRENT_KERNELS 31
#define CUDYN_ATTR_ECC_ENABLED 32
#define CUDYN_ATTR_PCI_BUS_ID 33
#define CUDYN_ATTR_PCI_DEVICE_ID 34
#define CUDYN_ATTR_MEMORY_CLOCK_RATE 36
#define CUDYN_ATTR_GLOBAL_MEMORY_BUS_WIDTH 37
#define CUDYN_ATTR_L2_CACHE_SIZE 38
#define CUDYN_ATTR_MAX_THREADS_PER_MULTIPROCESSOR 39
#define CUDYN_ATTR_ASYNC_ENGINE_COUNT 40
#define CUDYN_ATTR_UNIFIED_ADDRESSING 41
#define CUDYN_ATTR_PCI_DOMAIN_ID 50
#define CUDYN_ATTR_COMPUTE_CAPABILITY_MAJOR 75
#define CUDYN_ATTR_COMPUTE_CAPABILITY_MINOR 76
#define CUDYN_ATTR_SHARED_MEMORY_PER_MULTIPROCESSOR 81
#define CUDYN_ATTR_REGISTERS_PER_MULTIPROCESSOR 82
#define CUDYN_ATTR_MANAGED_MEMORY 83
#define CUDYN_ATTR_COOPERATIVE_LAUNCH 95
#define CUDYN_ATTR_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN 97

CUDYN_API int cudyn_device_attribute(int ordinal, cudyn_device_attr attr, int *value);
/* "multiprocessor_count"; NULL for a value with no known name. */
CUDYN_API const char *cudyn_device_attr_name(cudyn_device_attr attr);
CUDYN_API int cudyn_device_attr_count(void);

/*
 * Threads and devices.  Each thread picks its device with cudyn_device_use
 * (device 0 until it does).  All threads on a device share its primary
 * context, retained once per process, so memory, streams, events and
 * modules made by one thread are usable by every thread on that device.
 * They belong to that device's context: a module, kernel or event used by a
 * thread working on another device fails with CUDYN_ERROR_WRONG_CONTEXT
 * naming both devices (a stream of another device may be given: the work
 * then runs in the stream's context, and a kernel must belong to it).
 * Device memory is usable from every device in copies (unified
 * addressing); kernels reach another device's memory after
 * cudyn_device_enable_peer.  cudyn_module_load_source keeps one module per
 * source and device, so the same kernel source works on every GPU.
 *
 * cudyn_device_use selects the calling thread's device: retains its primary
 * context (once per process) and makes it current on this thread.
 */
CUDYN_API int cudyn_device_use(int ordinal);
/* The calling thread's device (the one its current context belongs to). */
CUDYN_API int cudyn_device_current(int *ordinal);
/* *can = 1 if device `ordinal` can access memory of device `peer`. */
CUDYN_API int cudyn_device_can_access_peer(int ordinal, int peer, int *can);
/*
 * Lets kernels and copies of device `ordinal` reach memory of device `peer`
 * directly (over NVLink or PCIe), for the primary contexts cudyn uses.
 * Without it, a cudyn_memcpy_dtod between the two still works but is staged
 * by the driver.  Idempotent: enabling twice, or disabling what is not
 * enabled, succeeds; a device with itself is a no-op.  Devices that cannot
 * reach each other give CUDYN_ERROR_NOT_SUPPORTED (cudyn_device_can_access_peer
 * tells beforehand).  Access is one-way: enable (a, b) and (b, a) for both.
 */
CUDYN_API int cudyn_device_enable_peer(int ordinal, int peer);
CUDYN_API int cudyn_device_disable_peer(int ordinal, int peer);
/* How two devices are linked (CUdevice_P2PAttribute values). */
#define CUDYN_P2P_PERFORMANCE_RANK 1       /* relative; lower is faster */
#define CUDYN_P2P_ACCESS_SUPPORTED 2       /* 1 if peer access can be enabled */
#define CUDYN_P2P_NATIVE_ATOMIC_SUPPORTED 3 /* 1 if atomics over the link are native (NVLink) */
#define CUDYN_P2P_CUDA_ARRAY_ACCESS_SUPPORTED 4
CUDYN_API int cudyn_device_p2p_attribute(int ordinal, int peer, int attr, int *value);
/* Resets the device's primary context and releases cudyn's retain of it,
 * destroying every allocation, stream and module made in it by any thread;
 * the next use retains a fresh one.  It does not undo a sticky error: after
 * a kernel fault (CUDYN_ERROR_ILLEGAL_ADDRESS, _LAUNCH_FAILED, _ASSERT,
 * _ILLEGAL_INSTRUCTION) the driver refuses the device to this process until
 * it exits, and calls keep returning that error. */
CUDYN_API int cudyn_device_reset(int ordinal);
/* Waits for all work of the calling thread's context. */
CUDYN_API int cudyn_synchronize(void);

/* ======================================================================
 * Memory
 * ====================================================================== */

/* A device address (CUdeviceptr). */
typedef uint64_t cudyn_devptr;
/* A stream; NULL is the default stream (legacy or per-thread, see init). */
typedef struct cudyn_stream_st *cudyn_stream;
typedef struct cudyn_event_st *cudyn_event;

/* Allocates `bytes` (> 0) of device memory in the thread's context. */
CUDYN_API int cudyn_mem_alloc(cudyn_devptr *out, size_t bytes);
/* Frees device memory; 0 is accepted and does nothing. */
CUDYN_API int cudyn_mem_free(cudyn_devptr ptr);
/* Page-locked host memory, fast and asynchronous for copies. */
CUDYN_API int cudyn_host_alloc(void **out, size_t bytes);
/* Frees memory from cudyn_host_alloc; NULL is accepted. */
CUDYN_API int cudyn_host_free(void *ptr);
/* Free and total memory of the thread's device, in bytes. */
CUDYN_API int cudyn_mem_info(size_t *free_bytes, size_t *total_bytes);

/* Synchronous copies.  A size of 0 does nothing and succeeds. */
CUDYN_API int cudyn_memcpy_htod(cudyn_devptr dst, const void *src, size_t bytes);
CUDYN_API int cudyn_memcpy_dtoh(void *dst, cudyn_devptr src, size_t bytes);
CUDYN_API int cudyn_memcpy_dtod(cudyn_devptr dst, cudyn_devptr src, size_t bytes);
/* Copies ordered on `stream`; host memory should be from cudyn_host_alloc
 * for the copy to be asynchronous. */
CUDYN_API int cudyn_memcpy_htod_async(cudyn_devptr dst, const void *src, size_t bytes, cudyn_stream stream);
CUDYN_API int cudyn_memcpy_dtoh_async(void *dst, cudyn_devptr src, size_t bytes, cudyn_stream stream);
CUDYN_API int cudyn_memcpy_dtod_async(cudyn_devptr dst, cudyn_devptr src, size_t bytes, cudyn_stream stream);
/* Sets `count` elements of 1, 2 or 4 bytes to `value`. */
CUDYN_API int cudyn_memset_d8(cudyn_devptr dst, uint8_t value, size_t count);
CUDYN_API int cudyn_memset_d16(cudyn_devptr dst, uint16_t value, size_t count);
CUDYN_API int cudyn_memset_d32(cudyn_devptr dst, uint32_t value, size_t count);
CUDYN_API int cudyn_memset_d32_async(cudyn_devptr dst, uint32_t value, size_t count, cudyn_stream stream);

/* ======================================================================
 * Streams and events
 * ====================================================================== */

#define CUDYN_STREAM_DEFAULT 0u
#define CUDYN_STREAM_NON_BLOCKING 1u /* does not synchronise with the NULL stream */

CUDYN_API int cudyn_stream_create(cudyn_stream *out, unsigned int flags);
CUDYN_API int cudyn_stream_destroy(cudyn_stream stream);
CUDYN_API int cudyn_stream_synchronize(cudyn_stream stream);
/* CUDYN_OK if all work is done, CUDYN_ERROR_NOT_READY if not (the last
 * error is not touched for NOT_READY). */
CUDYN_API int cudyn_stream_query(cudyn_stream stream);
/* Work later queued on `stream` waits for `event`. */
CUDYN_API int cudyn_stream_wait_event(cudyn_stream stream, cudyn_event event);

#define CUDYN_EVENT_DEFAULT 0u
#define CUDYN_EVENT_BLOCKING_SYNC 1u
#define CUDYN_EVENT_DISABLE_TIMING 2u

CUDYN_API int cudyn_event_create(cudyn_event *out, unsigned int flags);
CUDYN_API int cudyn_event_destroy(cudyn_event event);
CUDYN_API int cudyn_event_record(cudyn_event event, cudyn_stream stream);
CUDYN_API int cudyn_event_synchronize(cudyn_event event);
/* As cudyn_stream_query. */
CUDYN_API int cudyn_event_query(cudyn_event event);
/* Milliseconds between two recorded, completed events. */
CUDYN_API int cudyn_event_elapsed_ms(float *ms, cudyn_event start, cudyn_event end);

/* ======================================================================
 * Run-time compilation (NVRTC)
 * ====================================================================== */

typedef struct cudyn_program cudyn_program;

/*
 * Compiles CUDA C++ `source` for device `device` (an ordinal).  `name` is
 * the file name shown in the log (NULL: "kernel.cu").  `options` are
 * NVRTC's (may be NULL when num_options is 0).  Unless the options name a
 * --gpu-architecture / -arch, the target follows the device's compute
 * capability: CUBIN for sm_XY when NVRTC supports it, else the best older
 * target (see the README).  On CUDYN_ERROR_COMPILE, *out still receives the
 * program so its log can be read (free it); on other errors *out is NULL.
 *
 * Results are kept in a persistent cache keyed by every input (NVRTC
 * version and file, target, options in order, source, name expressions):
 * CUDYN_CACHE_DIR, else $XDG_CACHE_HOME/cudyn, else ~/.cache/cudyn;
 * CUDYN_CACHE=0 turns it off.  A cache that cannot be used only means
 * compiling again.
 */
CUDYN_API int cudyn_compile(cudyn_program **out, const char *source, const char *name, int device,
                            const char *const *options, int num_options);
/*
 * As cudyn_compile, and registers C++ name expressions ("scale<float>",
 * "&my_variable") so templated or overloaded kernels can be found by those
 * names: cudyn_module_function(&f, mod, "scale<float>") works on a module
 * loaded from this program, and cudyn_program_lowered_name() gives the
 * mangled name.
 */
CUDYN_API int cudyn_compile_names(cudyn_program **out, const char *source, const char *name, int device,
                                  const char *const *options, int num_options,
                                  const char *const *name_expressions, int num_names);
/* The lowered (mangled) name of a registered expression, or NULL. */
CUDYN_API const char *cudyn_program_lowered_name(const cudyn_program *prog, const char *name_expression);
/* 1 if the program came from the persistent cache rather than NVRTC. */
CUDYN_API int cudyn_program_from_cache(const cudyn_program *prog);
/* NVRTC's log ("" if empty); valid until cudyn_program_free. */
CUDYN_API const char *cudyn_program_log(const cudyn_program *prog);
/* The chosen target: "sm_90" (CUBIN) or "compute_90" (PTX). */
CUDYN_API const char *cudyn_program_target(const cudyn_program *prog);
/* The image cudyn_module_load uses (CUBIN or NUL-terminated PTX). */
CUDYN_API const void *cudyn_program_image(const cudyn_program *prog, size_t *bytes);
/* PTX text when NVRTC produced it (always for PTX targets), else NULL. */
CUDYN_API const char *cudyn_program_ptx(const cudyn_program *prog, size_t *bytes);
CUDYN_API void cudyn_program_free(cudyn_program *prog);

/* ======================================================================
 * Modules and kernels
 * ====================================================================== */

typedef struct cudyn_module_st *cudyn_module;
typedef struct cudyn_function_st *cudyn_function;

/*
 * Loads a compiled program into the thread's context.  If the driver
 * rejects the image, it is rebuilt once: PTX the driver finds too new
 * (CUDA_ERROR_UNSUPPORTED_PTX_VERSION) as CUBIN for this GPU, a CUBIN with
 * no code for this GPU (CUDA_ERROR_NO_BINARY_FOR_GPU) as PTX when the
 * driver can JIT it.  The final error names the device's compute
 * capability, the target tried and NVRTC's architectures.
 */
CUDYN_API int cudyn_module_load(cudyn_module *out, const cudyn_program *prog);
/*
 * Compiles `source` for the thread's device (through the persistent cache)
 * and loads it: PyCUDA's SourceModule.  In one process, the same source and
 * options in the same context give the same module, without compiling or
 * loading again; each such module is unloaded by its last
 * cudyn_module_unload.
 */
CUDYN_API int cudyn_module_load_source(cudyn_module *out, const char *source, const char *const *options,
                                       int num_options);
/* Loads a PTX (NUL-terminated), CUBIN or fatbin image.  A JIT error log,
 * when the driver gives one, ends up in the last error's message. */
CUDYN_API int cudyn_module_load_image(cudyn_module *out, const void *image);
CUDYN_API int cudyn_module_unload(cudyn_module mod);
/* Kernel by name (as in the image: extern "C" names, or lowered names). */
CUDYN_API int cudyn_module_function(cudyn_function *out, cudyn_module mod, const char *name);
/* Address and size of a __device__ / __constant__ variable. */
CUDYN_API int cudyn_module_global(cudyn_devptr *ptr, size_t *bytes, cudyn_module mod, const char *name);

struct cudyn_function_info {
    size_t size;              /* set by the caller */
    int num_registers;        /* per thread */
    int shared_bytes;         /* static shared memory */
    int const_bytes;
    int local_bytes;          /* per thread */
    int max_threads_per_block;
    int ptx_version;          /* 90 = PTX ISA 9.0 */
    int binary_version;       /* 90 = sm_90 */
};

CUDYN_API int cudyn_function_info(cudyn_function f, struct cudyn_function_info *out);
/* Active blocks per multiprocessor for a block size and dynamic shared memory. */
CUDYN_API int cudyn_occupancy_max_blocks(int *blocks, cudyn_function f, int block_size, size_t dynamic_shared);
/* Block size that maximises occupancy, and the smallest grid that fills the
 * device with it.  block_size_limit 0 means no limit. */
CUDYN_API int cudyn_occupancy_block_size(int *min_grid, int *block_size, cudyn_function f,
                                         size_t dynamic_shared, int block_size_limit);

/* ======================================================================
 * Native handles: mixing cudyn with the driver, the CUDA runtime, PyTorch,
 * CuPy and other CUDA code in one process
 * ====================================================================== */

/*
 * cudyn's handles are the driver's own, so a cast in either direction is
 * correct and the functions below only say so in code (for bindings that
 * cannot cast, and for readers):
 *   cudyn_stream    is a CUstream (NULL: the default stream cudyn_init
 *                   chose; a CUstream of the runtime or of PyTorch or CuPy,
 *                   e.g. torch.cuda.current_stream().cuda_stream, works)
 *   cudyn_event     is a CUevent
 *   cudyn_function  is a CUfunction (set attributes with cuFuncSetAttribute
 *                   through cudyn_driver_proc, e.g. more than 48 KiB of
 *                   dynamic shared memory)
 *   cudyn_devptr    is a CUdeviceptr, and the runtime's device pointer
 *   cudyn_module    is cudyn's own object around a CUmodule (it also keeps
 *                   C++ lowered names and the kernels' parameters); its
 *                   CUmodule is cudyn_module_native().
 * Lifetimes: a native handle is valid exactly as long as the cudyn object
 * it came from (until cudyn_stream_destroy, cudyn_event_destroy,
 * cudyn_module_unload, or cudyn_device_reset of its device); cudyn never
 * destroys a handle it did not create.  A stream or event made elsewhere
 * stays its maker's: do not pass it to cudyn_stream_destroy.
 *
 * Contexts: cudyn works in the calling thread's current context.  If the
 * thread has none, it makes the primary context of the thread's device
 * current (device 0 unless cudyn_device_use chose another), as the CUDA
 * runtime does.  A context another library made current is used as it is;
 * when that library pops or destroys it, cudyn goes on with whatever is
 * current then, or with the device's primary context, without an error.
 */

/* The CUcontext cudyn works in on this thread (not retained: it lives as
 * long as the primary context, or as long as its other owner keeps it). */
CUDYN_API int cudyn_context_native(void **ctx);
/* The CUmodule of a cudyn module, or NULL for NULL. */
CUDYN_API void *cudyn_module_native(cudyn_module mod);
CUDYN_API void *cudyn_function_native(cudyn_function f);
CUDYN_API cudyn_function cudyn_function_from_native(void *cu_function);
CUDYN_API void *cudyn_stream_native(cudyn_stream stream);
CUDYN_API cudyn_stream cudyn_stream_from_native(void *cu_stream);
CUDYN_API void *cudyn_event_native(cudyn_event event);
CUDYN_API cudyn_event cudyn_event_from_native(void *cu_event);

/* ======================================================================
 * Launch
 * ====================================================================== */

typedef struct cudyn_dim3 {
    unsigned int x, y, z;
} cudyn_dim3;

/*
 * Launches `f` on `stream` as the driver takes it: args[i] points to the
 * value of the i-th kernel parameter.  Dimensions of 0 are invalid
 * arguments.  Launch errors are reported here; execution errors surface at
 * the next synchronising call.
 */
CUDYN_API int cudyn_launch(cudyn_function f, cudyn_dim3 grid, cudyn_dim3 block, unsigned int shared_bytes,
                           cudyn_stream stream, void **args);

/* ======================================================================
 * Typed launches
 * ====================================================================== */

/*
 * cudyn_launchf takes the kernel's arguments as values, described by a
 * format string with one character per kernel parameter (spaces are
 * ignored), in the spirit of PyCUDA's prepared calls.  The characters, as
 * data: X(code, the kernel's parameter, what to pass after C's default
 * promotions).
 */
#define CUDYN_LAUNCH_FORMAT_MAP(X)                                                                             \
    X('?', "bool", "int")                                                                                      \
    X('b', "int8_t", "int")                                                                                    \
    X('B', "uint8_t", "int")                                                                                   \
    X('h', "int16_t", "int")                                                                                   \
    X('H', "uint16_t", "int")                                                                                  \
    X('i', "int32_t", "int")                                                                                   \
    X('I', "uint32_t", "unsigned int")                                                                         \
    X('q', "int64_t", "long long")                                                                             \
    X('Q', "uint64_t", "unsigned long long")                                                                   \
    X('e', "half (__half)", "double (a float promotes): converted, rounded to nearest even")                  \
    X('f', "float", "double (a float promotes)")                                                               \
    X('d', "double", "double")                                                                                 \
    X('F', "float complex", "float _Complex (C) / two floats in a struct (C++)")                               \
    X('D', "double complex", "double _Complex")                                                                \
    X('p', "device pointer", "cudyn_devptr (not a plain 0: pass (cudyn_devptr)0)")                             \
    X('z', "size_t", "size_t")                                                                                 \
    X('s', "struct by value", "const void *struct_pointer, size_t sizeof_struct")                              \
    X('<', "In buffer", "void *host, size_t bytes: copied to a device buffer before the launch, which gets its address") \
    X('>', "Out buffer", "void *host, size_t bytes: a device buffer copied back after the launch")            \
    X('=', "InOut buffer", "void *host, size_t bytes: both")

/*
 * Example: cudyn_launchf(f, grid, block, 0, NULL, "fpppz", 2.0f, dx, dy, dout, n);
 *
 * In/Out buffers (PyCUDA's drv.In / drv.Out) live only during the call:
 * allocated, copied in on `stream`, the kernel launched, copied out on
 * `stream`, the stream synchronised and the buffers freed; nothing is left
 * behind when any step fails.  Calls without them do not synchronise.
 *
 * Where the driver can describe a kernel's parameters (cuFuncGetParamInfo,
 * CUDA 12.4+), the count and sizes are checked before launching, and a
 * mismatch fails with CUDYN_ERROR_INVALID_LAUNCH_ARGUMENTS and a message
 * such as "saxpy: parameter 3 is 8 bytes, argument 3 ('f', float) is 4".
 * On older drivers the launch goes ahead unchecked.  A malformed format
 * (unknown character, more than 64 parameters) is CUDYN_ERROR_INVALID_ARGUMENT.
 */
CUDYN_API int cudyn_launchf(cudyn_function f, cudyn_dim3 grid, cudyn_dim3 block, unsigned int shared_bytes,
                            cudyn_stream stream, const char *fmt, ...);

/*
 * A reusable argument pack for hot loops: the format is parsed and checked
 * against the kernel once, values are set, and launches cost what
 * cudyn_launch costs.  Not thread-safe: one pack per thread.
 */
typedef struct cudyn_args cudyn_args;

CUDYN_API int cudyn_args_create(cudyn_args **out, cudyn_function f, const char *fmt);
/* Sets every value, as cudyn_launchf takes them after the format. */
CUDYN_API int cudyn_args_set(cudyn_args *args, ...);
/* Sets parameter `index` (0-based) from the bytes at `value`; `size` must be
 * the parameter's size (for 's', the struct's; for buffers, not allowed). */
CUDYN_API int cudyn_args_set_value(cudyn_args *args, int index, const void *value, size_t size);
/* Turns the parameter check against the kernel on (1, the default) or off. */
CUDYN_API int cudyn_args_check(cudyn_args *args, int enabled);
CUDYN_API int cudyn_args_launch(cudyn_args *args, cudyn_dim3 grid, cudyn_dim3 block, unsigned int shared_bytes,
                                cudyn_stream stream);
CUDYN_API void cudyn_args_free(cudyn_args *args);

/* ======================================================================
 * Elementwise and reduction kernels from expressions
 * ====================================================================== */

/*
 * PyCUDA's ElementwiseKernel and ReductionKernel (CuPy's likewise) in C:
 * write the parameter list and the loop body, or the reduction's
 * expressions; cudyn writes the kernel, compiles it with NVRTC for the
 * device at hand (through the persistent cache, like
 * cudyn_module_load_source: one module per source and context, compiled
 * once), chooses the launch shape and launches.
 *
 * Parameter lists are C declarations separated by commas:
 * "float a, const float *x, float *__restrict__ y".  A parameter is a
 * scalar of the launch format's alphabet (bool, char, (un)signed char,
 * short, int, long, long long, int8_t ... uint64_t, size_t, float, double,
 * __half) or a pointer to one (a cudyn_devptr at launch, format 'p'), with
 * const / volatile, and __restrict__ after the '*'.  Anything else (a
 * pointer to a pointer, void *, a struct, an array, a name that is a
 * keyword, i, n, or starts with cudyn_ or __) is CUDYN_ERROR_INVALID_ARGUMENT
 * naming the parameter.  __half needs <cuda_fp16.h>, which the generated
 * source includes; NVRTC finds it when the CUDA toolkit's include
 * directory sits next to libnvrtc, and says so otherwise.
 *
 * Names: `name` (NULL: "kernel") must be an identifier of at most 48
 * characters; the kernels are named after it, so they can be told apart in
 * a profiler and by tools such as the test driver:
 *   elementwise NAME: cudyn_elementwise_NAME, cudyn_elementwise_NAME_vec
 *   reduction NAME:   cudyn_reduce_NAME, cudyn_reduce_NAME_vec, cudyn_reduce_NAME_final
 * (the _vec kernel exists when the text allows a vectorised variant; see
 * below).  The user's text may use any name the preamble declares; names
 * starting with cudyn_ are the generated code's.
 *
 * Errors in the user's text: creation compiles, and a compile error is
 * CUDYN_ERROR_COMPILE whose message carries NVRTC's first error line.  The
 * text is placed under #line directives, so that line names it:
 * "elementwise body(2): error: identifier \"z\" is undefined"; the other
 * names are "elementwise preamble", "reduction map", "reduction
 * expression", "reduction neutral" and "reduction preamble".  Generated
 * lines are numbered as they stand in the _source function's text.
 *
 * Launch shape: a grid-stride loop with occupancy's block size (at most
 * 256 threads; a power of two for reductions) and enough blocks for the
 * elements, at most as many as fill every multiprocessor at once.
 *
 * Vectorised variant: when the text uses every pointer parameter it names
 * only as NAME[i] (not &NAME[i], NAME + 1, *NAME ...), no such pointer is
 * to volatile data and no #define of the preamble names one, a second kernel
 * handles 16 bytes of the widest element per thread and step (4 floats, 2
 * doubles) with vector loads and stores, storing back only the vectors
 * whose elements the text changed.  Each launch chooses it when n is at
 * least that many elements, every such pointer is aligned to that many
 * elements (cudyn_mem_alloc's memory is), and the writable ones (not
 * const) do not overlap one another; otherwise the plain kernel runs, the
 * text as written, one element at a time.  Both compute the same thing;
 * declare read-only pointers const so the compiler knows.
 *
 * Objects are thread-safe: launches from several threads and devices may
 * share one (each device's module is made on its first launch there).
 * Launch errors are reported by the launch; execution errors surface at
 * the next synchronising call, as for cudyn_launch.
 */
typedef struct cudyn_elementwise cudyn_elementwise;

/*
 * Makes an elementwise kernel: for each i in [0, n), `body` runs with
 * i (const size_t, the element's index), n (const size_t, the count) and
 * the parameters in scope, e.g. params "float a, const float *x, float *y"
 * and body "y[i] = a * x[i] + y[i]" (statements; the last ';' may be left
 * out; `return` ends element i).  `preamble` (NULL: none) goes before the
 * kernel: #include lines, __device__ functions, constants.  Compiles for
 * the calling thread's device (see the notes above for names and errors).
 */
CUDYN_API int cudyn_elementwise_create(cudyn_elementwise **out, const char *params, const char *body,
                                       const char *name, const char *preamble);
/*
 * Runs the kernel over n elements on `stream`.  The values follow, one per
 * parameter, as cudyn_launchf takes them for the format
 * cudyn_elementwise_format gives (a float as a double, a pointer as a
 * cudyn_devptr ...).  n = 0 does nothing.
 */
CUDYN_API int cudyn_elementwise_launch(cudyn_elementwise *k, size_t n, cudyn_stream stream, ...);
/*
 * As cudyn_elementwise_launch, with args[j] pointing to parameter j's value
 * as cudyn_launch takes them (for bindings and for argument lists built at
 * run time).  num_args other than the parameter count, or a NULL entry, is
 * CUDYN_ERROR_INVALID_LAUNCH_ARGUMENTS naming the kernel and its parameters.
 */
CUDYN_API int cudyn_elementwise_launch_args(cudyn_elementwise *k, size_t n, cudyn_stream stream, void **args,
                                            int num_args);
/* The launch format of the parameters ("fpp" for the example above);
 * "" for NULL.  Valid as long as the object. */
CUDYN_API const char *cudyn_elementwise_format(const cudyn_elementwise *k);
/* The generated CUDA C++ source; "" for NULL.  Valid as long as the object. */
CUDYN_API const char *cudyn_elementwise_source(const cudyn_elementwise *k);
/* Unloads the kernel's modules and frees the object; NULL is accepted. */
CUDYN_API void cudyn_elementwise_free(cudyn_elementwise *k);

typedef struct cudyn_reduction cudyn_reduction;

/*
 * Makes a reduction over n elements: result_type is a scalar type of the
 * parameter alphabet ("float"), `neutral` the value it starts from ("0"),
 * `reduce` combines two results named a and b ("a + b"; it should be
 * associative: the order is a tree), `map` gives element i's value from
 * i, n and the parameters ("x[i] * y[i]" with params "const float *x,
 * const float *y" is a dot product).  No atomics: the first launch leaves
 * one partial per block, a second combines them in a fixed order, so a
 * device, n and the pointers' alignment give the same result bits every
 * run.  Compiles for the calling thread's device, like
 * cudyn_elementwise_create.
 */
CUDYN_API int cudyn_reduction_create(cudyn_reduction **out, const char *result_type, const char *neutral,
                                     const char *reduce, const char *map, const char *params, const char *name,
                                     const char *preamble);
/*
 * Reduces n elements on `stream` into device_result (device memory for one
 * result; 0: none, the run stays asynchronous) and/or *host_result (NULL:
 * none; the call then waits for the stream, and *host_result is ready when
 * it returns); at least one is required.  The values follow as for
 * cudyn_elementwise_launch.  n = 0 gives the neutral value.  Runs of one
 * object on different streams are ordered: a run waits for the previous
 * one when the stream differs (they share a buffer of partial results).
 */
CUDYN_API int cudyn_reduction_run(cudyn_reduction *r, void *host_result, cudyn_devptr device_result, size_t n,
                                  cudyn_stream stream, ...);
/* As cudyn_reduction_run, with the values as cudyn_elementwise_launch_args
 * takes them. */
CUDYN_API int cudyn_reduction_run_args(cudyn_reduction *r, void *host_result, cudyn_devptr device_result, size_t n,
                                       cudyn_stream stream, void **args, int num_args);
/* The launch format of the parameters; "" for NULL. */
CUDYN_API const char *cudyn_reduction_format(const cudyn_reduction *r);
/* The generated CUDA C++ source; "" for NULL. */
CUDYN_API const char *cudyn_reduction_source(const cudyn_reduction *r);
/* Unloads the kernels' modules, frees the buffers and the object; NULL is
 * accepted. */
CUDYN_API void cudyn_reduction_free(cudyn_reduction *r);

#ifdef __cplusplus
}
#endif

#endif /* CUDYN_H */
