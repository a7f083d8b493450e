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
 *    library, cudyn uses that one.
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
 * CUDYN_CACHE_DIR, CUDYN_CACHE=0, CUDYN_CACHE_MAX_BYTES (the compiled-kernel
 * cache, see cudyn_compile_ex).
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
    X(ERROR_TIMEOUT, 34, "the operation timed out")

/*
 * What each status means for a caller, group by group:
 *  - loader (1-6): no usable driver or NVRTC; cudyn_loader_info and
 *    `cudainfo --explain` say what was searched;
 *  - usage (7-16): the call was wrong; the message names the argument;
 *  - resources (17-18), compilation (19-23), launch and execution (24-30):
 *    what the driver or NVRTC reported, with the native code kept; the
 *    message says when an execution error is sticky (the process must exit
 *    to use the device again);
 *  - anything else (31-34) keeps the native code in cudyn_error.
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

/* Selects the calling thread's device: retains its primary context (once
 * per process) and makes it current on this thread. */
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

/* cudyn_compile_args.device for a compile without a device: the options
 * must then name the target (--gpu-architecture); nothing is asked of the
 * driver, and a load failure of such a program is not rebuilt. */
#define CUDYN_DEVICE_NONE (-1)

/* cudyn_compile_args.flags (OR them). */
#define CUDYN_COMPILE_REBUILD 1u  /* compile with NVRTC even when the cache holds the
                                     kernel, and replace the entry */
#define CUDYN_COMPILE_NO_CACHE 2u /* neither read nor write the persistent cache */

/*
 * Everything a compilation takes.  Set .size = sizeof(struct
 * cudyn_compile_args) and leave what you do not use zero
 * (struct cudyn_compile_args a = {sizeof a, src}; ...).
 */
struct cudyn_compile_args {
    size_t size;                         /* set by the caller */
    const char *source;                  /* CUDA C++, NUL-terminated (required) */
    const char *name;                    /* file name for the log and for "..." includes;
                                            NULL: "kernel.cu" (the working directory) */
    int device;                          /* ordinal to compile for, or CUDYN_DEVICE_NONE;
                                            cudyn_module_load_source_ex uses the thread's */
    const char *const *options;          /* NVRTC's options, in order */
    int num_options;
    const char *const *header_names;     /* headers in memory, as nvrtcCreateProgram takes
                                            them: the name #include uses ... */
    const char *const *header_sources;   /* ... and the contents */
    int num_headers;
    const char *const *name_expressions; /* C++ names to find kernels by ("scale<float>") */
    int num_names;
    unsigned int flags;                  /* CUDYN_COMPILE_* */
};

/*
 * Compiles args->source for device args->device.  Unless the options name a
 * --gpu-architecture / -arch, the target follows the device's compute
 * capability: CUBIN for sm_XY when NVRTC supports it, else the best older
 * target (see the README).  The caller's options are checked: one that
 * takes a value and has none (a bare "-I" at the end) is
 * CUDYN_ERROR_INVALID_ARGUMENT naming it.  NVRTC output that cudyn cannot
 * load (an empty CUBIN, as -dlto or --optix-ir make) is
 * CUDYN_ERROR_INVALID_IMAGE, never success.  On CUDYN_ERROR_COMPILE, *out
 * still receives the program so its log can be read (free it); on other
 * errors *out is NULL.  Name expressions ("scale<float>", "&my_variable")
 * let templated or overloaded kernels be found by those names:
 * cudyn_module_function(&f, mod, "scale<float>") works on a module loaded
 * from this program, and cudyn_program_lowered_name() gives the mangled name.
 *
 * The persistent cache.  Compiled kernels are kept in files keyed by every
 * input the caller controls and by the device's compute capability: the
 * source, the name, the options in order, the in-memory headers and the
 * name expressions (a CUDYN_DEVICE_NONE compile has its own entries).  The
 * key does not depend on NVRTC: a kernel in the cache is used without
 * loading NVRTC at all (a hit costs well under a millisecond, and works on
 * a machine that has the driver but no NVRTC; one that is not in the cache
 * then fails with CUDYN_ERROR_NVRTC_NOT_FOUND, saying what was searched).
 * Each entry records the NVRTC that built it and its target
 * (cudyn_program_target reports it).  A newer NVRTC leads to a recompile
 * only when the driver rejects the cached image on load (PTX too new, no
 * code for this GPU, an invalid image) and NVRTC is there to rebuild it, or
 * when CUDYN_COMPILE_REBUILD asks; the rebuilt kernel replaces the entry.
 * The toolkit headers cudyn puts on the include path (<NVRTC's
 * directory>/../include) count as part of NVRTC, and are not tracked.
 *
 * Headers from disk are covered too: cudyn reads the source and the
 * in-memory headers for #include lines (all of them, whatever #if
 * surrounds them) and resolves each as NVRTC does: an in-memory header of
 * that name; for "...", the including file's directory (the directory of
 * `name` for the source: the working directory for "kernel.cu"), unless
 * --no-source-include; then the -I / --include-path directories in order.
 * Each file found is recorded with its identity (device, inode, size,
 * modification and change times) and a SHA-256 of its contents, and read
 * for its own includes; each earlier candidate that did not exist is
 * recorded as well.  A hit checks them with stat: an unchanged identity is
 * current, a changed one is hashed again; changed contents, a vanished
 * file or a file appearing where an earlier candidate was missing compile
 * again and replace the entry.  Editing a header never returns stale code.
 * Relative paths are relative to the working directory, and are looked up
 * again on each hit.  A compile is not cached at all (it compiles normally,
 * each time) when what it reads cannot be known: a computed include
 * (#include MACRO), __has_include, an option that reads or writes other
 * files (--use-pch, --create-pch, --time, --fdevice-time-trace), more than
 * 4096 included files or one over 64 MiB.
 *
 * Where: CUDYN_CACHE_DIR, else $XDG_CACHE_HOME/cudyn, else ~/.cache/cudyn;
 * CUDYN_CACHE=0 turns it off; CUDYN_CACHE_MAX_BYTES (default 256 MiB,
 * suffixes K, M, G; 0 = no limit) bounds it, least recently used entries
 * going first.  See cudyn_cache_info and SECURITY.md.  A cache that cannot
 * be used only means compiling again.
 *
 * In one process, compiles of the same inputs for devices of the same
 * compute capability that run at the same time (here and in
 * cudyn_module_load_source_ex) wait for one NVRTC run and share its result
 * or its failure; different inputs compile in parallel.
 */
CUDYN_API int cudyn_compile_ex(cudyn_program **out, const struct cudyn_compile_args *args);
/* cudyn_compile_ex with the source, name, device and options given. */
CUDYN_API int cudyn_compile(cudyn_program **out, const char *source, const char *name, int device,
                            const char *const *options, int num_options);
/* cudyn_compile_ex with name expressions too. */
CUDYN_API int cudyn_compile_names(cudyn_program **out, const char *source, const char *name, int device,
                                  const char *const *options, int num_options,
                                  const char *const *name_expressions, int num_names);
/* The lowered (mangled) name of a registered expression, or NULL. */
CUDYN_API const char *cudyn_program_lowered_name(const cudyn_program *prog, const char *name_expression);
/* 1 if the program came from the persistent cache rather than NVRTC. */
CUDYN_API int cudyn_program_from_cache(const cudyn_program *prog);
/* NVRTC's log ("" if empty); valid until cudyn_program_free.  A program
 * from the cache has the log of the compile that stored it. */
CUDYN_API const char *cudyn_program_log(const cudyn_program *prog);
/* The target: "sm_90" (CUBIN) or "compute_90" (PTX); from the cache, the
 * target the entry was built for. */
CUDYN_API const char *cudyn_program_target(const cudyn_program *prog);
/* The image cudyn_module_load uses (CUBIN or NUL-terminated PTX). */
CUDYN_API const void *cudyn_program_image(const cudyn_program *prog, size_t *bytes);
/* PTX text: always for PTX targets; for CUBIN targets only right after
 * NVRTC built it (NVRTC 12+), not from the cache, which keeps no PTX for
 * CUBIN; else NULL. */
CUDYN_API const char *cudyn_program_ptx(const cudyn_program *prog, size_t *bytes);
CUDYN_API void cudyn_program_free(cudyn_program *prog);

/* ======================================================================
 * Precompiled kernels for several architectures
 * ====================================================================== */

#define CUDYN_IMAGE_CUDYN 0u  /* cudyn's own container, below */
#define CUDYN_IMAGE_FATBIN 1u /* a CUDA fatbinary, through nvFatbin (libnvfatbin of CUDA 12.4+,
                                 found next to NVRTC or by soname) */

/*
 * Compiles args->source once for each architecture of archs ("sm_90" for
 * CUBIN, "compute_90" for PTX; no arch-specific suffixes) and packs the
 * results into one image (malloc'd; free it with cudyn_image_free) that
 * cudyn_module_load_image loads on every device one of them suits, with no
 * NVRTC on that machine.  No device is needed: args->device is not used,
 * and the options must not name a target.  A compile error is
 * CUDYN_ERROR_COMPILE naming the architecture (cudyn_compile_ex with
 * --gpu-architecture and CUDYN_DEVICE_NONE gives the whole log).  Without
 * nvFatbin, CUDYN_IMAGE_FATBIN is CUDYN_ERROR_NOT_SUPPORTED.
 *
 * cudyn's container (integers little-endian): "CUDYNIMG" (8 bytes); u32
 * version 1; u32 number of entries n (1-64); u64 total size; u32 version of
 * the NVRTC that built it (13000); u32 0; n entries of {u32 arch (90), u32
 * kind (1 CUBIN, 2 PTX), u64 offset, u64 size}; the entries' bytes (PTX
 * with its NUL); and a SHA-256 of everything before it in the last 32
 * bytes.  cudyn_module_load_image checks it and loads, for a device of
 * compute capability cc: the CUBIN for cc, else the highest older CUBIN of
 * cc's major, else the highest PTX at or below cc when the driver is at
 * least as new as that NVRTC (it JIT-compiles it); else
 * CUDYN_ERROR_NO_BINARY_FOR_GPU naming cc and the entries.
 */
CUDYN_API int cudyn_compile_image(void **image, size_t *bytes, const struct cudyn_compile_args *args,
                                  const char *const *archs, int num_archs, unsigned int format);
/* Packs compiled programs, one target each (sm_XY or compute_XY, none
 * twice), into one image as cudyn_compile_image does. */
CUDYN_API int cudyn_image_build(void **image, size_t *bytes, const cudyn_program *const *programs,
                                int num_programs, unsigned int format);
/* Frees an image from cudyn_compile_image or cudyn_image_build; NULL is accepted. */
CUDYN_API void cudyn_image_free(void *image);

/* ======================================================================
 * The kernel cache
 * ====================================================================== */

/* What the cache holds.  Strings live as long as the process. */
struct cudyn_cache_info {
    size_t size;           /* set by the caller */
    int enabled;           /* 1 if compiles read and write the cache */
    const char *directory; /* the directory in use; NULL when off */
    const char *reason;    /* why it is off ("CUDYN_CACHE=0" ...); NULL when on */
    uint64_t entries;      /* kernels stored */
    uint64_t bytes;        /* their total size */
    uint64_t max_bytes;    /* the limit (CUDYN_CACHE_MAX_BYTES); 0 = none */
};

CUDYN_API int cudyn_cache_info(struct cudyn_cache_info *out);
/* Removes every entry (a module already loaded stays loaded); *removed
 * (may be NULL) receives how many.  CUDYN_OK with 0 when the cache is off. */
CUDYN_API int cudyn_cache_clear(uint64_t *removed);

/* ======================================================================
 * Modules and kernels
 * ====================================================================== */

typedef struct cudyn_module_st *cudyn_module;
typedef struct cudyn_function_st *cudyn_function;

/*
 * Loads a compiled program into the thread's context.  If the driver
 * rejects the image (CUDA_ERROR_UNSUPPORTED_PTX_VERSION,
 * CUDA_ERROR_NO_BINARY_FOR_GPU, CUDA_ERROR_INVALID_IMAGE) and NVRTC is
 * there, it is rebuilt, at most twice: an image from the cache for the
 * target NVRTC chooses now; a fresh PTX image the driver finds too new as
 * CUBIN for this GPU; a CUBIN with no code for this GPU as PTX when the
 * driver can JIT it.  The rebuilt kernel replaces the cache entry.  The
 * final error names the device's compute capability, the targets tried and
 * NVRTC's architectures.
 */
CUDYN_API int cudyn_module_load(cudyn_module *out, const cudyn_program *prog);
/*
 * Compiles `source` for the thread's device (through the persistent cache)
 * and loads it: PyCUDA's SourceModule.  In one process, the same inputs in
 * the same context give the same module, without compiling or loading
 * again (threads asking at the same time wait for one compile and one
 * load), as long as the files it included are unchanged; each such module
 * is unloaded by its last cudyn_module_unload.
 */
CUDYN_API int cudyn_module_load_source(cudyn_module *out, const char *source, const char *const *options,
                                       int num_options);
/* As cudyn_module_load_source, with everything cudyn_compile_ex takes;
 * args->device is not used (the thread's device is).  With
 * CUDYN_COMPILE_REBUILD or CUDYN_COMPILE_NO_CACHE the module is one of
 * the caller's own, not shared. */
CUDYN_API int cudyn_module_load_source_ex(cudyn_module *out, const struct cudyn_compile_args *args);
/* Loads a PTX (NUL-terminated), CUBIN, fatbin or cudyn multi-architecture
 * image (cudyn_compile_image; the entry for the thread's device is
 * chosen).  A JIT error log, when the driver gives one, ends up in the
 * last error's message. */
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
 * ignored), in the spirit of PyCUDA's prepared calls:
 *
 *   code  parameter            pass (after C's default promotions)
 *   ?     bool                 int
 *   b B   int8_t / uint8_t     int
 *   h H   int16_t / uint16_t   int
 *   i I   int32_t / uint32_t   int / unsigned int
 *   q Q   int64_t / uint64_t   long long / unsigned long long
 *   e     half (__half)        double (a float promotes): converted, rounded to nearest
 *   f     float                double (a float promotes)
 *   d     double               double
 *   F     float complex        float _Complex (C) / two floats in a struct (C++)
 *   D     double complex       double _Complex
 *   p     device pointer       cudyn_devptr (not a plain 0: pass (cudyn_devptr)0)
 *   z     size_t               size_t
 *   s     struct by value      const void *struct_pointer, size_t sizeof_struct
 *   <     In buffer            void *host, size_t bytes: copied to a device buffer
 *                              before the launch; the kernel gets its address
 *   >     Out buffer           void *host, size_t bytes: copied back after it
 *   =     InOut buffer         void *host, size_t bytes: both
 *
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

#ifdef __cplusplus
}
#endif

#endif /* CUDYN_H */
