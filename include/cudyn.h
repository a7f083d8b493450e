/*
 * cudyn.h - use NVIDIA GPUs with no build-time CUDA dependency.
 *
 * cudyn finds the NVIDIA driver (libcuda) and NVRTC (libnvrtc) at run time,
 * binds every entry point at the ABI version its declaration was written
 * for, and offers this small, stable C ABI on top of them.  This header is
 * self-contained (no CUDA headers) and usable from C and C++: it is written
 * for C99 or C++11, or newer (a strict C89 or C++98 compiler refuses it;
 * GCC and Clang accept it in those modes as an extension).
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
 *    function that fills them, as struct stat and stat() do.  Structs the
 *    caller fills in (struct cudyn_launch_config, cudyn_array_desc,
 *    cudyn_copy, cudyn_texture_desc) carry .size too: this library needs
 *    at least this header's size, and a later one reads only what an older
 *    program's struct holds.
 *
 * Environment variables: CUDYN_LIBCUDA, CUDYN_LIBNVRTC (file or directory
 * overriding the search), CUDYN_LIBNVML (the NVML file cudyn_nvml_* open
 * instead of libnvidia-ml.so.1), CUDYN_DEBUG=1 (loader trace on stderr),
 * CUDYN_PTDS=0|1 (per-thread default stream when cudyn_init() does not say),
 * CUDYN_COMPAT=auto|never|require (a forward-compatibility libcuda: used
 * only when newer than the kernel module and accepted by the GPU, never, or
 * required; see struct cudyn_loader_info), CUDYN_DRIVER_LOG=0 (keeps the
 * driver's error log, CUDA 12.9+, out of the messages of failed calls),
 * CUDYN_CACHE_DIR, CUDYN_CACHE=0, CUDYN_CACHE_MAX_BYTES (the compiled-kernel
 * cache, see cudyn_compile_ex), CUDYN_LIBNCCL (file or directory: the NCCL
 * the collectives use, see "Collectives").  A file these name (and every
 * library or cache file cudyn opens by a path) must be a regular file: a
 * FIFO, a socket or a device is refused unopened, never waited on.  A
 * setuid or setgid program (secure execution) ignores them all.
 */
#ifndef CUDYN_H
#define CUDYN_H

#include <stddef.h>
#include <stdint.h>

#include "cudyn/version.h"

#if defined(CUDYN_BUILDING_LIBRARY) && defined(__GNUC__)
#define CUDYN_API __attribute__((visibility("default")))
#else
#define CUDYN_API
#endif

#ifdef __cplusplus
/* A few functions are named as the struct they fill (cudyn_loader_info,
 * cudyn_device_info ...), as POSIX's stat.  In C++ the function hides the
 * struct's name (write `struct cudyn_device_info`), which g++ -Wshadow
 * reports at each such declaration; the names are the C ABI, so that
 * warning is off for this header's declarations (popped at its end). */
#ifdef __GNUC__
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wshadow"
#endif
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
    X(ERROR_WRONG_CONTEXT, 36, "the module, kernel, stream or event belongs to another device's context") \
    X(ERROR_NCCL_NOT_FOUND, 37, "no usable NCCL library (libnccl.so.2, 2.7.3 or newer) was found")           \
    X(ERROR_NCCL, 38, "NCCL reported an error")                                                                \
    X(ERROR_NCCL_REMOTE, 39, "a peer of the NCCL communicator failed (a process, a node or the network)")     \
    X(ERROR_LINK, 40, "device code failed to link; see the linker's log")

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
 *    cudyn_device_use); the message names both;
 *  - CUDYN_ERROR_NCCL_NOT_FOUND (37): no NCCL could be loaded, or the one
 *    found is too old; the message names every place tried and what to
 *    install (see "Collectives");
 *  - CUDYN_ERROR_NCCL (38): an ncclResult_t with no closer status (its
 *    code and name kept in cudyn_error, origin CUDYN_ORIGIN_NCCL);
 *  - CUDYN_ERROR_NCCL_REMOTE (39): NCCL's ncclRemoteError: another rank's
 *    process, its node or the network failed; the communicator cannot be
 *    used again (cudyn_nccl_comm_wait has aborted it).
 *  - CUDYN_ERROR_LINK (40): the device linker (nvJitLink, or the driver's)
 *    failed on the inputs given (an undefined or doubly defined symbol,
 *    PTX it cannot compile, inputs of mismatched architectures); its
 *    native code is kept (origin CUDYN_ORIGIN_NVJITLINK or
 *    CUDYN_ORIGIN_DRIVER), the message has the log's first error and
 *    cudyn_link_log() all of it (see "Device linking").
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
    CUDYN_ORIGIN_SYSTEM = 5,  /* an errno from the C library */
    /* appended in 0.2 */
    CUDYN_ORIGIN_NVML = 6,    /* an nvmlReturn_t from libnvidia-ml (cudyn_nvml_*) */
    CUDYN_ORIGIN_NCCL = 7,    /* an ncclResult_t from libnccl (cudyn_nccl_*) */
    CUDYN_ORIGIN_NVJITLINK = 8 /* an nvJitLinkResult from libnvJitLink (cudyn_link_*) */
} cudyn_origin;

/* Detail of the calling thread's last failure. */
typedef struct cudyn_error {
    size_t size;             /* set by the caller: sizeof(cudyn_error) */
    int status;              /* a cudyn_status */
    int origin;              /* a cudyn_origin */
    int native_code;         /* CUresult, nvrtcResult or errno, unchanged */
    char native_name[64];    /* "CUDA_ERROR_OUT_OF_MEMORY", "" if none */
    char function[64];       /* "cuMemAlloc", "cudyn_mem_alloc" ... */
    char message[1024];      /* one line a person can act on, with a hint; a
                                failed driver call adds "; driver log: " and
                                the driver's own lines (CUDA 12.9+) */
    /* appended in 0.2 (older callers set a smaller size) */
    char hint[512];          /* the hint alone, "" if none; message ends with
                                "; hint: " and this text */
} cudyn_error;

/*
 * The command a hint names where it sends the reader to a diagnosis of the
 * machine ("...; run cudainfo --explain"): cudainfo(1), one of cudyn's
 * tools.  A binding whose users have another command in its place may
 * show that one instead (the Python module names "python3 -m cudyn
 * --explain", which every installation of it has).
 */
#define CUDYN_EXPLAIN_COMMAND "cudainfo --explain"

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
    X(CUDA_PATH, "CUDA_PATH", "the toolkit in $CUDA_PATH (a library in its lib64 or lib)")                     \
    X(CUDA_HOME, "CUDA_HOME", "the toolkit in $CUDA_HOME (a library in its lib64 or lib)")                     \
    X(TOOLKIT_DIR, "toolkit dir", "/usr/local/cuda or /usr/local/cuda-X.Y, newest first (a library in lib64)") \
    X(UNVERSIONED, "unversioned", "the unversioned name (libcuda.so, libnvrtc.so), tried last")               \
    /* NCCL's own steps (cudyn_nccl_info), in its search order */                                              \
    X(NCCL_ENV, "CUDYN_LIBNCCL", "the file or directory the variable names")                                  \
    X(LOADED_WHEEL, "loaded wheel", "the pip wheel, beside a library already loaded")                        \
    X(PYTHON_ENV, "python env", "the pip wheel, in a virtual or conda environment or the program's prefix")  \
    X(PYTHON_SITE, "python site", "the pip wheel, in the user's or the system's site-packages")                \
    /* nvJitLink's and the toolkit's own steps (cudyn_toolkit_info), in their search order */                  \
    X(NVJITLINK_ENV, "CUDYN_LIBNVJITLINK", "the file or directory the variable names")                         \
    X(NVRTC_DIR, "beside NVRTC", "the toolkit, or pip's NVIDIA wheels, NVRTC was loaded from")                 \
    X(TOOLKIT_ENV, "CUDYN_TOOLKIT", "the toolkit directories the variable names")                              \
    X(CONDA, "conda", "the conda environment of $CONDA_PREFIX (its targets/*-linux or itself)")

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
    double driver_dlopen_ms;     /* of driver_load_ms, the dlopen of the file used */
    /* Forward compatibility (CUDYN_COMPAT, see cudyn-env(7)): the choice is
     * made before binding; cuInit of a forward-compat candidate runs in a
     * forked child that exits at once, so no second libcuda ever works in
     * this process. */
    const char *kernel_module_version; /* "550.54.14", NULL if unknown */
    const char *kernel_module_file;    /* where it was read, NULL if unknown */
    const char *driver_release;        /* of the libcuda used, from its file name ("575.57.08"); NULL if none */
    int driver_is_compat;              /* 1 if the libcuda used is a forward-compatibility library */
    const char *compat_policy;         /* CUDYN_COMPAT in effect: "auto", "never" or "require" */
    const char *compat_path;           /* the forward-compat libcuda seen, used or not; NULL if none */
    const char *compat_decision;       /* one sentence: what was chosen and why; NULL if none was seen */
    int compat_probe_result;           /* CUresult of cuInit in the child; 0 if it succeeded or did not run */
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

/*
 * What cudyn takes of the CUDA toolkit at run time besides NVRTC: the
 * headers it puts on NVRTC's include path (cuda_fp16.h, curand_kernel.h,
 * CUB, libcu++), libcudadevrt.a (dynamic parallelism) and nvJitLink (the
 * device linker).  Strings live as long as the process; NULL where nothing
 * was found.  Where cudyn looks: see "Sources written for nvcc" for the
 * headers and libcudadevrt.a, "Device linking" for nvJitLink.
 */
struct cudyn_toolkit_info {
    size_t size;                    /* set by the caller */
    const char *include_path;       /* the toolkit's include directories, ':'-separated, in the order
                                       NVRTC searches them (after the caller's -I); NULL if none */
    const char *headers_found_by;   /* a string of CUDYN_FOUND_BY_MAP; NULL if none */
    const char *headers_location;   /* the toolkit directory (or pip's nvidia directory) they are in */
    const char *cudadevrt;          /* libcudadevrt.a; NULL if none */
    const char *cudadevrt_found_by; /* a string of CUDYN_FOUND_BY_MAP */
    const char *trace;              /* each place looked at and what it has, one a line */
    int nvjitlink_status;           /* cudyn_status of loading nvJitLink; CUDYN_ERROR_NOT_SUPPORTED when
                                       there is none (the driver's linker then serves) */
    const char *nvjitlink_path;     /* the file loaded */
    const char *nvjitlink_found_by; /* a string of CUDYN_FOUND_BY_MAP */
    int nvjitlink_version;          /* 13000 = nvJitLink 13.0; 0 if none */
    const char *nvjitlink_trace;    /* every place tried and what happened, one a line */
    double nvjitlink_load_ms;       /* finding, opening and binding it */
};

/*
 * Finds (once per process) the toolkit's headers, libcudadevrt.a and
 * nvJitLink, and describes them.  The headers are as a compile in this
 * process would use them now: NVRTC's own toolkit is among the places
 * once NVRTC is loaded (cudyn_loader_info loads it).  Returns CUDYN_OK
 * (nvJitLink's absence is in the fields), or CUDYN_ERROR_INVALID_ARGUMENT
 * for a bad out.
 */
CUDYN_API int cudyn_toolkit_info(struct cudyn_toolkit_info *out);

/* 1 if the loaded driver offers the entry point (base name such as
 * "cuFuncGetParamInfo", or an exact exported name such as "cuMemAlloc_v2"),
 * 0 if not, or if no driver could be loaded.  A name starting with "nccl"
 * ("ncclCommSplit") asks the NCCL cudyn loads for its collectives instead
 * (it loads NCCL, not the driver; 0 if none could be loaded). */
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

/*
 * The library's own version as "MAJOR.MINOR.PATCH" (the package version),
 * which may be newer than the headers a program was built with.  Those
 * give theirs at compile time, for #if: CUDYN_VERSION_MAJOR,
 * CUDYN_VERSION_MINOR, CUDYN_VERSION_PATCH, CUDYN_VERSION_STRING ("0.2.0")
 * and CUDYN_VERSION_NUM (0xMMmmpp, a byte each: 0x000200 is 0.2.0), with
 * CUDYN_VERSION_AT_LEAST(major, minor, patch) to compare (from
 * <cudyn/version.h>, which cudyn.h includes).
 */
CUDYN_API const char *cudyn_version(void);

/*
 * Writes into buf (cap bytes, always terminated, cut short with "..." when
 * it does not fit) one line naming every version whose mismatch can make a
 * compile or a load fail: the driver's CUDA version, file and release (and
 * whether it is a forward-compatibility library), the kernel module's
 * version and the file it was read from, NVRTC's version and file, its
 * builtins, the CUDA headers in include_dir handed to NVRTC (with their
 * cuda.h CUDA_VERSION; NULL for none), the highest PTX ISA the driver
 * accepts, and device's compute capability (-1 for no device).  Where a
 * skew among them is one known to fail, the line ends with "; skew: " and
 * what to change.  Failed compiles and loads of PTX append the same line
 * (with the PTX ISA the image declares) to their message.
 * It loads nothing: a library not loaded yet is named "not loaded" (call
 * cudyn_loader_info first to have both).  Returns CUDYN_OK, or
 * CUDYN_ERROR_INVALID_ARGUMENT for a NULL buf, cap 0 or device < -1.
 */
CUDYN_API int cudyn_versions_line(char *buf, size_t cap, int device, const char *include_dir);

/* ======================================================================
 * Devices
 * ====================================================================== */

/* Number of visible devices (honours CUDA_VISIBLE_DEVICES).  Zero devices
 * is CUDYN_OK with *count = 0 when the driver reports "no device". */
CUDYN_API int cudyn_device_count(int *count);

/*
 * GPUs as NVML (libnvidia-ml.so.1, shipped with the driver) sees them,
 * without cuInit: no CUDA state is created, so a process may call these
 * before fork() and use CUDA in the children, and they answer when cuInit
 * itself fails.  NVML is opened with dlopen on first use (CUDYN_LIBNVML,
 * read with secure_getenv, names another file) and initialised and shut
 * down around each call.  NVML ignores CUDA_VISIBLE_DEVICES and orders GPUs
 * by PCI bus id, so its indices are not CUDA ordinals: match the two by
 * uuid (cudyn_device_info's uuid_string).  A GPU in MIG mode is one NVML
 * device whose instances (mig_uuids) are what CUDA shows instead.
 */
#define CUDYN_NVML_MAX_MIG 8 /* MIG instances reported per GPU (7 at most today) */
#define CUDYN_NVML_MAX_CPUS 1024 /* CPUs cpu_affinity can name, as a cpu_set_t */
#define CUDYN_NVML_CPU_WORD_BITS (8 * sizeof(unsigned long))
#define CUDYN_NVML_CPU_WORDS (CUDYN_NVML_MAX_CPUS / CUDYN_NVML_CPU_WORD_BITS)
struct cudyn_nvml_device {
    size_t size;                    /* set by the caller */
    int index;                      /* NVML's index, 0 .. count-1 */
    char name[96];                  /* "NVIDIA H100 80GB HBM3" */
    char uuid[96];                  /* "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" */
    char pci_bus_id[32];            /* "0000:17:00.0", cuDeviceGetPCIBusId's form */
    int pci_domain, pci_bus, pci_device;
    uint64_t total_memory;          /* bytes */
    uint64_t free_memory;           /* bytes, now */
    int mig_mode;                   /* 1 enabled, 0 disabled, -1 the GPU has no MIG */
    int mig_mode_pending;           /* what it becomes at the next GPU reset; -1 no MIG */
    int mig_count;                  /* MIG instances (at most CUDYN_NVML_MAX_MIG) */
    char mig_uuids[CUDYN_NVML_MAX_MIG][96]; /* "MIG-xxxxxxxx-..." each */
    char driver_version[80];        /* the driver's release, "580.65.06" */
    /* Appended: the CPUs nearest the GPU, as NVML tells them
     * (nvmlDeviceGetCpuAffinity: the CPUs of the GPU's NUMA node), for a
     * process that wants its threads next to its GPU.  They are part of
     * the GPU's record, so a listing of every GPU has them too; a program
     * that knows its CUDA ordinal asks cudyn_nvml_device_for_ordinal.
     * One bit per CPU, CPU c at bit c % CUDYN_NVML_CPU_WORD_BITS of word
     * c / CUDYN_NVML_CPU_WORD_BITS, the layout of glibc's cpu_set_t; CPUs
     * numbered CUDYN_NVML_MAX_CPUS and above are not reported.  Whether
     * NVML could tell is a status of its own, not a failure of the call:
     * CUDYN_OK (cpu_affinity is NVML's answer, cpu_count > 0),
     * CUDYN_ERROR_NOT_SUPPORTED (NVML cannot tell for this GPU, or named
     * no CPU), CUDYN_ERROR_SYMBOL_NOT_FOUND (this NVML, of an old driver,
     * has no nvmlDeviceGetCpuAffinity).  Mask and count are 0 unless
     * CUDYN_OK.  Other NVML failures fail the call as any other field's. */
    int cpu_affinity_status;
    int cpu_count;                  /* CPUs set in cpu_affinity */
    unsigned long cpu_affinity[CUDYN_NVML_CPU_WORDS];
};

/* *count = the GPUs NVML sees (all of the machine's; 0 is CUDYN_OK).
 * Without libnvidia-ml: CUDYN_ERROR_DRIVER_NOT_FOUND naming the file and
 * dlerror's reason (origin CUDYN_ORIGIN_LOADER).  An NVML failure keeps
 * its nvmlReturn_t as native_code (origin CUDYN_ORIGIN_NVML), its name
 * ("NVML_ERROR_DRIVER_NOT_LOADED") as native_name and nvmlErrorString's
 * text in the message; its status is the nearest cudyn_status
 * (CUDYN_ERROR_DRIVER_NOT_FOUND when the kernel driver is not loaded,
 * CUDYN_ERROR_DRIVER otherwise).  CUDYN_ERROR_INVALID_ARGUMENT for a NULL
 * count. */
CUDYN_API int cudyn_nvml_device_count(int *count);
/* Fills *out (up to out->size bytes) for NVML's device `index`, with the
 * UUIDs of its MIG instances.  CUDYN_ERROR_INVALID_DEVICE for an index
 * out of range; CUDYN_ERROR_INVALID_ARGUMENT for a NULL out or a size
 * smaller than a size_t; other failures as cudyn_nvml_device_count.  A
 * GPU without MIG is not an error: mig_mode is -1. */
CUDYN_API int cudyn_nvml_device_info(int index, struct cudyn_nvml_device *out);
/*
 * Fills *out as cudyn_nvml_device_info does, for the GPU that CUDA device
 * `ordinal` is (a MIG instance: the GPU it is part of, whose mig_uuids
 * name it): the question a program that has chosen its device asks, "which
 * CPUs are next to my GPU?" (cpu_affinity), without matching NVML's
 * indices to CUDA's itself.  The two are matched by UUID, so ordinals are
 * those this process sees (CUDA_VISIBLE_DEVICES is respected).  Unlike
 * cudyn_nvml_device_count and cudyn_nvml_device_info it loads the CUDA
 * driver (cuInit), for the UUID.
 * CUDYN_ERROR_INVALID_DEVICE for an ordinal CUDA does not have;
 * CUDYN_ERROR_NOT_FOUND when no GPU NVML sees has the device's UUID;
 * other failures as cudyn_nvml_device_info.  cpu_affinity_status, not the
 * return value, says whether NVML knows the CPUs.
 */
CUDYN_API int cudyn_nvml_device_for_ordinal(int ordinal, struct cudyn_nvml_device *out);

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
#define CUDYN_ATTR_PAGEABLE_MEMORY_ACCESS 88
#define CUDYN_ATTR_CONCURRENT_MANAGED_ACCESS 89
#define CUDYN_ATTR_MEMORY_POOLS_SUPPORTED 115
#define CUDYN_ATTR_CLUSTER_LAUNCH 120

CUDYN_API int cudyn_device_attribute(int ordinal, cudyn_device_attr attr, int *value);
/* "multiprocessor_count"; NULL for a value with no known name. */
CUDYN_API const char *cudyn_device_attr_name(cudyn_device_attr attr);
/* What the attribute's value counts: "bytes", "kHz", "bits", "bool" (0 or
 * 1), "enum" (a value of a CUDA enum), "flags" (a bit mask) or "" (a plain
 * number: a count, a dimension, an id); NULL where cudyn_device_attr_name
 * is NULL. */
CUDYN_API const char *cudyn_device_attr_unit(cudyn_device_attr attr);
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
/* Drops cudyn's own retain of the device's primary context, without
 * resetting it: when nothing else in the process (the CUDA runtime,
 * another library) holds it, the driver destroys it now, with everything
 * made in it, rather than at exit.  For a program that is done with a
 * device; the next cudyn call on it retains a fresh context.  Nothing to
 * release is not an error. */
CUDYN_API int cudyn_device_release(int ordinal);
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

/* Copies that return when the host may reuse its buffer: host-to-device and
 * device-to-host copies have finished then; device-to-device copies and
 * memsets are only ordered on the default stream (the driver does not
 * wait for device-side work), so synchronise before reading their result
 * from another stream or device.  A size of 0 does nothing and succeeds. */
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
/* An event other processes can wait on (cudyn_ipc_event_get_handle); the
 * driver requires such events to keep no timing, so the value includes
 * CUDYN_EVENT_DISABLE_TIMING. */
#define CUDYN_EVENT_INTERPROCESS 6u

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
 * Sources written for nvcc.  NVRTC has no C library headers; cudyn gives
 * it, in memory, <math.h>/<cmath>, <stdint.h>/<cstdint>,
 * <limits.h>/<climits>, <float.h>/<cfloat>, <stddef.h>/<cstddef>,
 * <stdbool.h>, <stdlib.h>/<cstdlib>, <string.h>/<cstring>,
 * <assert.h>/<cassert> (NDEBUG decides at each inclusion),
 * <sys/types.h> (glibc's uint, ushort, ulong ...) and <stdio.h>/<cstdio>,
 * each meaning in device code what the real one means there: its macros
 * (INFINITY, NAN, HUGE_VAL, the M_* constants glibc defines, FP_*,
 * INT_MAX, FLT_EPSILON, EXIT_SUCCESS ...), its types (the 64-bit ones are
 * long long, as the toolkit's <cuda/std/cstdint> has them under NVRTC)
 * and the functions device code has of it (NVRTC's own math functions,
 * malloc and free on the device heap, memcpy, memset, printf).  A header
 * of the same name that the caller gives in memory, or that lies in one
 * of the caller's -I / --include-path directories, wins.  The texts are
 * part of every cache key.
 *
 * A plain compile predefines nothing beyond NVRTC's own names: only what
 * the kernel includes is seen.  nvcc gives device code more without any
 * #include (on Linux, through the cuda_runtime.h it includes itself):
 * <cmath>, <cstdlib>, <cstring>, <climits>, <cstddef> and <sys/types.h>,
 * so uint, M_PI, INT_MAX, malloc and std::sqrt, but not uint32_t, FLT_MAX,
 * assert or printf.  A compile that wants that, such as PyCUDA's
 * SourceModule, adds the option CUDYN_OPTION_NVCC_NAMES, which
 * pre-includes the header CUDYN_NVCC_NAMES_HEADER (in memory) bringing
 * exactly those.
 */
#define CUDYN_NVCC_NAMES_HEADER "cudyn/nvcc.h"
#define CUDYN_OPTION_NVCC_NAMES "--pre-include=" CUDYN_NVCC_NAMES_HEADER

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
 * The CUDA toolkit's headers (cuda_fp16.h, curand_kernel.h, CUB,
 * libcu++) are found at run time (cudyn-env(7), cudyn_toolkit_info): their
 * include directories, and include/cccl where CUDA 13+ keeps libcu++, CUB
 * and Thrust, come after the caller's on NVRTC's include path.  They are
 * not tracked file by file: a compile that includes one of them (or a
 * header found nowhere, NVRTC's own) is keyed on the directories'
 * identities as well (device, inode, modification and change times,
 * however their paths are spelled), so another toolkit, or one installed
 * again, compiles anew; one that includes none is keyed without them,
 * and its entry serves whatever toolkit a machine has, or none.  A header
 * NVRTC cannot open makes the message say where cudyn looked for the
 * toolkit.  The C library headers cudyn gives NVRTC in memory ("Sources
 * written for nvcc" above) are part of the key too.
 *
 * Headers from disk are covered too: cudyn reads the source and the
 * in-memory headers for #include lines (all of them, whatever #if
 * surrounds them) and resolves each as NVRTC does: an in-memory header of
 * that name; for "...", the including file's directory (the directory of
 * `name` for the source: the working directory for "kernel.cu"), unless
 * --no-source-include; then the -I / --include-path directories in order,
 * and the toolkit's (a file found there is the toolkit's, in the key as
 * above).  Each file found is recorded with its identity (device, inode,
 * size, modification and change times) and a SHA-256 of its contents,
 * and read for its own includes; each earlier candidate that did not
 * exist is recorded as well.  A hit checks them with stat: an unchanged identity is
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
 * Device linking: relocatable device code, libraries, LTO-IR, dynamic
 * parallelism
 * ====================================================================== */

/*
 * A kernel that calls a __device__ function of another source, or that
 * launches kernels itself (dynamic parallelism), is compiled as
 * relocatable device code (the option "-rdc=true" of cudyn_compile) and
 * linked: cudyn_link_create, a cudyn_link_add_* per input, then
 * cudyn_link_complete, whose image cudyn_module_load_image_sized loads.
 *
 * The linker is nvJitLink, loaded at run time as NVRTC is: CUDYN_LIBNVJITLINK
 * (a file or directory; set but unusable is an error), a copy already
 * loaded, libnvJitLink.so.13 and .12 by soname, NVRTC's directory (and
 * pip's nvidia/nvjitlink/lib beside pip's NVRTC), $CUDA_PATH, $CUDA_HOME,
 * /usr/local/cuda*, libnvJitLink.so; cudyn_toolkit_info says which.
 * Without nvJitLink cudyn falls back on the driver's own linker (cuLink*),
 * which links in the calling thread's context, takes no LTO-IR and fewer
 * options (the log's first line says why it was chosen).
 *
 * Inputs: CUBIN (NVRTC's with -rdc=true), PTX, LTO-IR (nvJitLink only),
 * fatbinaries, host objects and libraries (.a) of nvcc -rdc.  Each is
 * read whole by cudyn (a file too); CUBINs and fatbinaries are checked
 * against their length before a linker sees them
 * (CUDYN_ERROR_INVALID_IMAGE).  A link that fails on its inputs (an
 * undefined or twice-defined symbol, PTX it cannot compile) is
 * CUDYN_ERROR_LINK; every failure's message ends with the first error of
 * the linker's log, and cudyn_link_log has all of it.  A linker is used by
 * one thread at a time; nothing is cached.
 */
typedef struct cudyn_linker cudyn_linker;

/* What an input is: the numbers nvJitLink uses. */
#define CUDYN_LINK_AUTO 0    /* told from its first bytes: an ELF for the GPU (CUBIN) or for the host
                                (object), "!<arch>" (library), a fatbinary's or LTO-IR's magic, else PTX */
#define CUDYN_LINK_CUBIN 1   /* relocatable (-rdc=true) or whole */
#define CUDYN_LINK_PTX 2     /* text; its NUL is optional */
#define CUDYN_LINK_LTOIR 3   /* NVRTC's or nvcc's -dlto output (nvJitLink only) */
#define CUDYN_LINK_FATBIN 4
#define CUDYN_LINK_OBJECT 5  /* a host object of nvcc -rdc=true -c, with its device code */
#define CUDYN_LINK_LIBRARY 6 /* an archive (.a) of those, such as libcudadevrt.a */

/* cudyn_link_create's flags (OR them). */
#define CUDYN_LINK_DEVRT 1u          /* add libcudadevrt.a, which dynamic parallelism needs, found where
                                        cudyn_toolkit_info says (CUDYN_ERROR_NOT_FOUND naming the places
                                        looked in when there is none) */
#define CUDYN_LINK_USE_DRIVER 2u     /* the driver's linker even when nvJitLink is there */
#define CUDYN_LINK_NEED_NVJITLINK 4u /* nvJitLink or the failure of finding it: no fallback */

/* The most options cudyn_link_create takes. */
#define CUDYN_LINK_MAX_OPTIONS 64

/*
 * A linker for device `device`'s compute capability (sm_XY), or for the
 * -arch=sm_XY the options name (then device may be CUDYN_DEVICE_NONE,
 * with nvJitLink).  options (at most CUDYN_LINK_MAX_OPTIONS) are
 * nvJitLink's: "-O3", "-lto"
 * (link-time optimisation of LTO-IR), "-g", "-lineinfo",
 * "-maxrregcount=N", "-ptx" (the result is PTX, from LTO-IR), "-Xptxas=..."
 * ...; cudyn adds -arch.  The driver's linker takes -arch=sm_XY, -O0 to
 * -O4, -g, -lineinfo, -maxrregcount=N and -verbose, and refuses the
 * others (CUDYN_ERROR_NOT_SUPPORTED naming the option).
 */
CUDYN_API int cudyn_link_create(cudyn_linker **out, int device, const char *const *options, int num_options,
                                unsigned int flags);
/* Adds an input of `bytes` bytes; kind is a CUDYN_LINK_* input kind (or
 * CUDYN_LINK_AUTO); name (may be NULL) is for the log. */
CUDYN_API int cudyn_link_add_data(cudyn_linker *linker, int kind, const void *data, size_t bytes, const char *name);
/* Adds a regular file's contents (at most 2 GiB). */
CUDYN_API int cudyn_link_add_file(cudyn_linker *linker, int kind, const char *path);
/* Adds a compiled program's image (CUBIN or PTX). */
CUDYN_API int cudyn_link_add_program(cudyn_linker *linker, const cudyn_program *prog);
/*
 * Links: *image and *bytes receive the linked CUBIN (PTX with -ptx),
 * owned by the linker and valid until cudyn_link_destroy; load it with
 * cudyn_module_load_image_sized.  A linker completes once.
 */
CUDYN_API int cudyn_link_complete(cudyn_linker *linker, const void **image, size_t *bytes);
/* The linker's log so far, errors first ("" if none); valid until the next
 * call on the linker. */
CUDYN_API const char *cudyn_link_log(const cudyn_linker *linker);
/* Which linker links: "nvJitLink 13.0" or "driver (CUDA 13.0)". */
CUDYN_API const char *cudyn_link_backend(const cudyn_linker *linker);
/* Frees the linker and its image; NULL is accepted. */
CUDYN_API void cudyn_link_destroy(cudyn_linker *linker);

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
 * last error's message.  It takes no length, so it is for images the
 * program itself embeds or built in this process: it reads PTX up to its
 * NUL (text shorter than a magic is PTX), and trusts a container's or a
 * CUBIN's header for the size (a container's entries and checksum are
 * still checked within that size).  An image read from a file, the
 * network or any other source takes cudyn_module_load_image_sized. */
CUDYN_API int cudyn_module_load_image(cudyn_module *out, const void *image);
/* As cudyn_module_load_image, for an image of `bytes` bytes (not 0) from
 * anywhere: nothing past them is read, by cudyn or the driver.  Before
 * anything past a header is read, it checks, against bytes: a container's
 * header, its announced total size (equal to bytes), every entry's offset
 * and size, and its checksum; a CUBIN's ELF64 header tables, sections and
 * segments; a fatbinary's header and announced size; that PTX text has its
 * NUL.  Any of these wrong is CUDYN_ERROR_INVALID_IMAGE saying which. */
CUDYN_API int cudyn_module_load_image_sized(cudyn_module *out, const void *image, size_t bytes);
/* Unloads a module (a shared one from cudyn_module_load_source: when its
 * last user unloads it).  If the driver refuses, the module stays loaded
 * and valid, and the caller may try again. */
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
/* The CUmodule of a cudyn module; NULL for NULL or for a module a device
 * reset destroyed. */
CUDYN_API void *cudyn_module_native(cudyn_module mod);

/* The CUfunction of a kernel, and a kernel from a CUfunction of any origin
 * (cudyn launches it; its parameters are checked where the driver can
 * describe them). */
CUDYN_API void *cudyn_function_native(cudyn_function f);
CUDYN_API cudyn_function cudyn_function_from_native(void *cu_function);

/* The CUstream of a stream, and a stream from a CUstream or cudaStream_t
 * made elsewhere (it stays its maker's). */
CUDYN_API void *cudyn_stream_native(cudyn_stream stream);
CUDYN_API cudyn_stream cudyn_stream_from_native(void *cu_stream);

/* The CUevent of an event, and an event from a CUevent or cudaEvent_t made
 * elsewhere (it stays its maker's). */
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
 * the next synchronising call.  shared_bytes above 48 KiB: the kernel's
 * CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES is raised to it before
 * the launch (once per kernel; it stays raised), as cudyn_launch_ex does;
 * more than the device's CUDYN_ATTR_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN less
 * the kernel's static part is CUDYN_ERROR_INVALID_ARGUMENT.  (cudyn_launchf
 * and cudyn_args_launch launch through here.)
 */
CUDYN_API int cudyn_launch(cudyn_function f, cudyn_dim3 grid, cudyn_dim3 block, unsigned int shared_bytes,
                           cudyn_stream stream, void **args);

/* ======================================================================
 * Typed launches
 * ====================================================================== */

/* The most parameters a launch format describes (and a kernel may have for
 * cudyn to check it). */
#define CUDYN_MAX_ARGS 64

/*
 * What a format character stands for, by kind:
 * X(name without CUDYN_ARG_, value, what the kernel receives).
 */
#define CUDYN_ARG_KIND_MAP(X)                                                                                  \
    X(BOOL, 1, "0 or 1 in one byte")                                                                           \
    X(SIGNED, 2, "a two's-complement integer of its size")                                                     \
    X(UNSIGNED, 3, "an unsigned integer of its size")                                                          \
    X(FLOAT, 4, "an IEEE 754 number of its size: binary16 (half), binary32 (float) or binary64 (double)")     \
    X(COMPLEX, 5, "two IEEE 754 numbers of half its size, the real part first")                                \
    X(POINTER, 6, "a device address")                                                                          \
    X(TEXTURE, 7, "a texture object")                                                                          \
    X(SURFACE, 8, "a surface object")                                                                          \
    X(STRUCT, 9, "a struct by value: as many bytes as the caller gives")                                       \
    X(IN, 10, "the address of a device buffer filled from host memory before the launch")                      \
    X(OUT, 11, "the address of a device buffer copied to host memory after the launch")                        \
    X(INOUT, 12, "the address of a device buffer filled before and copied back after the launch")

typedef enum cudyn_arg_kind {
#define CUDYN_ARG_KIND_ENUM_ROW_(name, value, meaning) CUDYN_ARG_##name = value,
    CUDYN_ARG_KIND_MAP(CUDYN_ARG_KIND_ENUM_ROW_)
#undef CUDYN_ARG_KIND_ENUM_ROW_
} cudyn_arg_kind;

/*
 * cudyn_launchf takes the kernel's arguments as values, described by a
 * format string with one character per kernel parameter (spaces are
 * ignored), in the spirit of PyCUDA's prepared calls.  The characters, as
 * data: X(code, bytes, kind, parameter, what to pass after C's default
 * promotions).  Bytes: the size of the value the kernel receives (0 for a
 * struct, whose size comes with each value); kind: a row of
 * CUDYN_ARG_KIND_MAP (CUDYN_ARG_ and the kind); parameter: what the kernel
 * declares.  The library's parser and the bindings read this table; a
 * character's meaning never changes.
 */
#define CUDYN_LAUNCH_FORMAT_MAP(X)                                                                             \
    X('?', 1, BOOL, "bool", "int")                                                                             \
    X('b', 1, SIGNED, "int8_t", "int")                                                                         \
    X('B', 1, UNSIGNED, "uint8_t", "int")                                                                      \
    X('h', 2, SIGNED, "int16_t", "int")                                                                        \
    X('H', 2, UNSIGNED, "uint16_t", "int")                                                                     \
    X('i', 4, SIGNED, "int32_t", "int")                                                                        \
    X('I', 4, UNSIGNED, "uint32_t", "unsigned int")                                                            \
    X('q', 8, SIGNED, "int64_t", "long long")                                                                  \
    X('Q', 8, UNSIGNED, "uint64_t", "unsigned long long")                                                      \
    X('e', 2, FLOAT, "half (__half)", "double (a float promotes): converted, rounded to nearest even")        \
    X('f', 4, FLOAT, "float", "double (a float promotes)")                                                     \
    X('d', 8, FLOAT, "double", "double")                                                                       \
    X('F', 8, COMPLEX, "float complex", "float _Complex (C) / two floats in a struct (C++)")                  \
    X('D', 16, COMPLEX, "double complex", "double _Complex")                                                   \
    X('p', 8, POINTER, "device pointer", "cudyn_devptr (not a plain 0: pass (cudyn_devptr)0)")                \
    X('z', sizeof(size_t), UNSIGNED, "size_t", "size_t")                                                       \
    X('s', 0, STRUCT, "struct by value", "const void *struct_pointer, size_t sizeof_struct")                  \
    X('<', 8, IN, "In buffer", "void *host, size_t bytes: copied to a device buffer before the launch, which gets its address") \
    X('>', 8, OUT, "Out buffer", "void *host, size_t bytes: a device buffer copied back after the launch")    \
    X('=', 8, INOUT, "InOut buffer", "void *host, size_t bytes: both")                                        \
    X('t', 8, TEXTURE, "texture object", "cudyn_texture")                                                      \
    X('u', 8, SURFACE, "surface object", "cudyn_surface")

/*
 * Example: cudyn_launchf(f, grid, block, 0, NULL, "fpppz", 2.0f, dx, dy, dout, n);
 *
 * In/Out buffers (PyCUDA's drv.In / drv.Out) live only during the call:
 * allocated, copied in on `stream`, the kernel launched, copied out on
 * `stream`, the stream synchronised and the buffers freed; nothing is left
 * behind when any step fails.  Calls without them do not synchronise.
 * (cudyn_args_launch_async leaves that wait to the caller.)
 *
 * Where the driver can describe a kernel's parameters (cuFuncGetParamInfo,
 * CUDA 12.4+), the count and sizes are checked before launching, and a
 * mismatch fails with CUDYN_ERROR_INVALID_LAUNCH_ARGUMENTS and a message
 * such as "saxpy: parameter 3 is 8 bytes, argument 3 ('f', float) is 4".
 * Where cudyn has the kernel's PTX (it compiled the kernel, for a PTX
 * target or with NVRTC 12+, or loaded it from PTX or from a cudyn image
 * with a PTX entry), the count, sizes and kinds are checked on any driver:
 * "parameter 1 is a floating-point value (its PTX says so), argument 1
 * ('i') ...".  The count comes from that PTX, or from a CUBIN's own
 * parameter records (its .nv.info section), so the driver is asked only
 * about parameters that exist; only for a kernel of an image cudyn knows
 * neither of does it ask cuFuncGetParamInfo past the last parameter to
 * find the count (one failing call per kernel, which compute-sanitizer
 * reports).
 * Otherwise the launch goes ahead unchecked.  A malformed
 * format (unknown character, more than CUDYN_MAX_ARGS parameters) is
 * CUDYN_ERROR_INVALID_ARGUMENT.
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

/* Launches with the pack's values, as cudyn_launch would; every value must
 * have been set (CUDYN_ERROR_INVALID_ARGUMENT names the first that was not).
 * With In/Out buffers it returns when their copies back are done, as
 * cudyn_launchf does. */
CUDYN_API int cudyn_args_launch(cudyn_args *args, cudyn_dim3 grid, cudyn_dim3 block, unsigned int shared_bytes,
                                cudyn_stream stream);

/* Sets In/Out buffer `index` (0-based) to `bytes` bytes of host memory at
 * `host`, as cudyn_args_set takes a buffer's pointer and size. */
CUDYN_API int cudyn_args_set_buffer(cudyn_args *args, int index, void *host, size_t bytes);

/*
 * In/Out buffers without the wait, for a caller that waits its own way (a
 * binding that must answer Ctrl-C, an event loop).  cudyn_args_launch_async
 * launches as cudyn_args_launch does, but returns once the copies back are
 * queued on `stream`, keeping the device buffers.  Out and InOut host
 * memory holds the results when the stream has done that work: wait for
 * the stream, or for an event recorded on it after the call, then call
 * cudyn_args_finish, which frees the device buffers.  cudyn_args_finish
 * synchronises the stream first (at once when it is done), so no buffer is
 * freed under a copy even when called early; it returns the first failure
 * of that synchronisation and the frees.  A launch that fails frees
 * everything itself, after the stream is done with what was queued, and
 * leaves nothing to finish.  Without buffers, cudyn_args_launch_async is
 * cudyn_args_launch and there is nothing to finish.  Until
 * cudyn_args_finish, another launch of the pack is
 * CUDYN_ERROR_INVALID_ARGUMENT; cudyn_args_free finishes first.
 */
CUDYN_API int cudyn_args_launch_async(cudyn_args *args, cudyn_dim3 grid, cudyn_dim3 block,
                                      unsigned int shared_bytes, cudyn_stream stream);
/* Frees the device buffers of the pack's unfinished launch, after its
 * stream is done; CUDYN_OK with nothing to finish. */
CUDYN_API int cudyn_args_finish(cudyn_args *args);

/* Frees a pack (finishing an unfinished launch first); NULL is accepted. */
CUDYN_API void cudyn_args_free(cudyn_args *args);

/* ======================================================================
 * Extended launches: clusters, cooperative launches, priority and large
 * dynamic shared memory
 * ====================================================================== */

/* cudyn_launch_config flags (OR them). */
#define CUDYN_LAUNCH_COOPERATIVE 1u /* all blocks resident at once: grid-wide sync works */
#define CUDYN_LAUNCH_PRIORITY 2u    /* launch at .priority instead of the stream's priority */

/* How cudyn_launch_ex launches.  Size-prefixed: set .size. */
struct cudyn_launch_config {
    size_t size;               /* set by the caller: sizeof(struct cudyn_launch_config) */
    cudyn_dim3 grid, block;    /* as for cudyn_launch: no dimension may be 0 */
    unsigned int shared_bytes; /* dynamic shared memory per block, in bytes */
    cudyn_stream stream;       /* NULL: the default stream */
    cudyn_dim3 cluster;        /* blocks per thread-block cluster; {0, 0, 0}: no clusters */
    unsigned int flags;        /* CUDYN_LAUNCH_* */
    int priority;              /* with CUDYN_LAUNCH_PRIORITY: lower is more urgent; the driver
                                  clamps it to the device's range (typically -5 .. 0) */
};

/*
 * Launches `f` with what cudyn_launch cannot express; args as for
 * cudyn_launch.
 *  - Clusters (config->cluster not {0, 0, 0}): every dimension at least 1
 *    and dividing the grid's (CUDYN_ERROR_INVALID_ARGUMENT otherwise).
 *    Needs a device of compute capability 9.0+ (device attribute
 *    CUDYN_ATTR_CLUSTER_LAUNCH) and a driver with cuLaunchKernelEx
 *    (CUDA 11.8+).  Clusters of up to 8 blocks are portable.  Kernels read
 *    their rank with cooperative_groups::this_cluster().block_rank() or
 *    PTX's %cluster_ctarank.
 *  - CUDYN_LAUNCH_COOPERATIVE: every block is resident at once, so
 *    cooperative_groups::this_grid().sync() works.  Needs
 *    CUDYN_ATTR_COOPERATIVE_LAUNCH, and a grid of at most
 *    cudyn_occupancy_max_blocks() x multiprocessors blocks (a larger one
 *    is CUDYN_ERROR_LAUNCH_OUT_OF_RESOURCES).  On a driver without
 *    cuLaunchKernelEx it goes through cuLaunchCooperativeKernel.
 *  - CUDYN_LAUNCH_PRIORITY: needs cuLaunchKernelEx of a CUDA 12.0+ driver.
 *  - shared_bytes above what `f` allows now (48 KiB, unless raised
 *    before): cudyn raises the kernel's
 *    CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES to shared_bytes before
 *    the launch (never after a refused one, which tools such as
 *    compute-sanitizer report as an error); the limit stays raised for later
 *    launches of `f`, and what each kernel allows is remembered.  The most it can be is the
 *    device's CUDYN_ATTR_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN less the static
 *    part; more is CUDYN_ERROR_INVALID_ARGUMENT with both numbers.
 * What the device or the driver cannot do is CUDYN_ERROR_NOT_SUPPORTED,
 * and the message names what is missing (the device attribute, or the
 * driver function).  To know beforehand: cudyn_device_attribute() with
 * CUDYN_ATTR_CLUSTER_LAUNCH, CUDYN_ATTR_COOPERATIVE_LAUNCH and
 * CUDYN_ATTR_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, and
 * cudyn_has("cuLaunchKernelEx").  A launch without clusters, flags or a
 * raise is exactly cudyn_launch.
 */
CUDYN_API int cudyn_launch_ex(cudyn_function f, const struct cudyn_launch_config *config, void **args);

/* ======================================================================
 * CUDA arrays, pitched memory and 2D / 3D copies
 * ====================================================================== */

/*
 * Element formats of arrays, textures and surfaces: X(name without
 * CUDYN_FORMAT_, value, the C type of one channel).  Values are CUDA's
 * CUarray_format.
 */
#define CUDYN_FORMAT_MAP(X)          \
    X(UINT8, 0x01, "uint8_t")        \
    X(UINT16, 0x02, "uint16_t")      \
    X(UINT32, 0x03, "uint32_t")      \
    X(INT8, 0x08, "int8_t")          \
    X(INT16, 0x09, "int16_t")        \
    X(INT32, 0x0a, "int32_t")        \
    X(HALF, 0x10, "half (__half)")   \
    X(FLOAT, 0x20, "float")

typedef enum cudyn_format {
#define CUDYN_FORMAT_ENUM_ROW_(name, value, type) CUDYN_FORMAT_##name = value,
    CUDYN_FORMAT_MAP(CUDYN_FORMAT_ENUM_ROW_)
#undef CUDYN_FORMAT_ENUM_ROW_
} cudyn_format;

/* A CUDA array: memory laid out for texture fetches, read by kernels
 * through texture objects and written through surface objects.  It is the
 * driver's CUarray (cast either way). */
typedef struct cudyn_array_st *cudyn_array;

/* cudyn_array_desc flags (OR them); values are CUDA's CUDA_ARRAY3D_*. */
#define CUDYN_ARRAY_LAYERED 0x01u        /* depth counts layers of 1D or 2D arrays */
#define CUDYN_ARRAY_SURFACE 0x02u        /* may be bound to a surface object */
#define CUDYN_ARRAY_TEXTURE_GATHER 0x08u /* a 2D array read with tex2Dgather */

/* The shape of an array.  Size-prefixed: set .size. */
struct cudyn_array_desc {
    size_t size;           /* set by the caller: sizeof(struct cudyn_array_desc) */
    int format;            /* a cudyn_format */
    unsigned int channels; /* 1, 2 or 4 */
    size_t width;          /* elements per row, > 0 */
    size_t height;         /* rows; 0 for a 1D array */
    size_t depth;          /* slices of a 3D array, or layers of a layered one; 0 otherwise */
    unsigned int flags;    /* CUDYN_ARRAY_* */
};

/*
 * Allocates an array in the thread's context: 1D (height 0, depth 0), 2D
 * (depth 0), 3D, or layered 1D / 2D (CUDYN_ARRAY_LAYERED, depth layers).
 * A layered array needs at least one layer.  Extents beyond the device's
 * (attributes maximum_texture*, cudainfo -a lists them) are refused by the
 * driver with CUDYN_ERROR_INVALID_ARGUMENT.
 */
CUDYN_API int cudyn_array_create(cudyn_array *out, const struct cudyn_array_desc *desc);
/* Frees an array; NULL is accepted and does nothing.  Destroy the texture
 * and surface objects made over it first. */
CUDYN_API int cudyn_array_destroy(cudyn_array array);
/* The shape of an array, as the driver knows it (also for arrays made by
 * other libraries): fills out up to out->size bytes. */
CUDYN_API int cudyn_array_describe(cudyn_array array, struct cudyn_array_desc *out);
/* Copies the whole array from tightly packed host memory: width x height
 * x depth elements (0 counting as 1), x fastest, each element channels x
 * the format's size. */
CUDYN_API int cudyn_array_copy_from_host(cudyn_array dst, const void *src);
/* Copies the whole array to tightly packed host memory, laid out as for
 * cudyn_array_copy_from_host. */
CUDYN_API int cudyn_array_copy_to_host(void *dst, cudyn_array src);

/*
 * Allocates `height` rows of `width_bytes` (both > 0) of device memory,
 * each row starting at an address the device reads fast: *pitch receives
 * the bytes from one row to the next (at least width_bytes).
 * element_bytes, the size kernels read at a time, is 4, 8 or 16.  Free
 * with cudyn_mem_free.  Rows of a pitched allocation can back a 2D texture
 * (CUDYN_RESOURCE_PITCH2D).
 */
CUDYN_API int cudyn_mem_alloc_pitch(cudyn_devptr *out, size_t *pitch, size_t width_bytes, size_t height,
                                    unsigned int element_bytes);

/* Where one side of a 2D / 3D copy lies; values are CUDA's CUmemorytype. */
#define CUDYN_COPY_HOST 1   /* host memory (pageable, or from cudyn_host_alloc) */
#define CUDYN_COPY_DEVICE 2 /* device memory, pitched or linear, or managed memory */
#define CUDYN_COPY_ARRAY 3  /* a CUDA array */

/* One side of a copy: the memory and where the copied box starts in it. */
struct cudyn_copy_side {
    int kind;            /* CUDYN_COPY_HOST, _DEVICE or _ARRAY */
    void *host;          /* HOST: the memory (a source is only read) */
    cudyn_devptr device; /* DEVICE: the memory */
    cudyn_array array;   /* ARRAY: the array */
    size_t pitch;        /* HOST, DEVICE: bytes from one row to the next; 0: the copy's width_bytes */
    size_t rows;         /* HOST, DEVICE: rows from one slice to the next; 0: the copy's height */
    size_t x_bytes;      /* first byte of each row (for an array: element x element size) */
    size_t y, z;         /* first row and first slice (an array's layer when layered) */
};

/* A box of width_bytes x height x depth from src to dst.  Size-prefixed. */
struct cudyn_copy {
    size_t size; /* set by the caller: sizeof(struct cudyn_copy) */
    struct cudyn_copy_side src, dst;
    size_t width_bytes; /* bytes of each row, > 0 */
    size_t height;      /* rows; 0 counts as 1 */
    size_t depth;       /* slices; 0 counts as 1 */
};

/*
 * Copies a 2D box (depth at most 1, z 0 on both sides) between host
 * memory, device memory (pitched or not) and arrays, in any combination.
 * A host or device side's pitch must hold x_bytes + width_bytes; an
 * array's box must lie inside it.
 */
CUDYN_API int cudyn_memcpy_2d(const struct cudyn_copy *copy);
/* As cudyn_memcpy_2d, ordered on `stream` (host memory from
 * cudyn_host_alloc makes it asynchronous). */
CUDYN_API int cudyn_memcpy_2d_async(const struct cudyn_copy *copy, cudyn_stream stream);
/* As cudyn_memcpy_2d, for a 3D box: slices of `rows` rows on host and
 * device sides, slices or layers of arrays. */
CUDYN_API int cudyn_memcpy_3d(const struct cudyn_copy *copy);
/* As cudyn_memcpy_3d, ordered on `stream`. */
CUDYN_API int cudyn_memcpy_3d_async(const struct cudyn_copy *copy, cudyn_stream stream);

/* ======================================================================
 * Texture and surface objects
 * ====================================================================== */

/* A texture object (CUtexObject, the runtime's cudaTextureObject_t) and a
 * surface object (CUsurfObject, cudaSurfaceObject_t): 64-bit handles a
 * kernel takes by value (launch format 't' and 'u').  0 is no object. */
typedef uint64_t cudyn_texture;
typedef uint64_t cudyn_surface;

/* What a texture reads; values are CUDA's CUresourcetype. */
#define CUDYN_RESOURCE_ARRAY 0   /* a CUDA array: 1D, 2D, 3D or layered (tex1D, tex2D ...) */
#define CUDYN_RESOURCE_LINEAR 2  /* plain device memory, read by index (tex1Dfetch) */
#define CUDYN_RESOURCE_PITCH2D 3 /* pitched device memory read as a 2D texture (tex2D) */

/* Coordinates outside the texture; values are CUDA's CUaddress_mode.  Wrap
 * and mirror need normalised coordinates. */
#define CUDYN_ADDRESS_WRAP 0
#define CUDYN_ADDRESS_CLAMP 1
#define CUDYN_ADDRESS_MIRROR 2
#define CUDYN_ADDRESS_BORDER 3 /* outside reads border_color */

/* Filtering; values are CUDA's CUfilter_mode. */
#define CUDYN_FILTER_POINT 0  /* the nearest element */
#define CUDYN_FILTER_LINEAR 1 /* (bi/tri)linear interpolation, with 8-bit fractional weights */

/* What a fetch returns; values are the CUDA runtime's cudaTextureReadMode. */
#define CUDYN_READ_ELEMENT_TYPE 0     /* the element as stored (tex2D<uchar4> ...) */
#define CUDYN_READ_NORMALIZED_FLOAT 1 /* 8- and 16-bit integers as float in [0, 1] / [-1, 1] */

/* A texture object's memory and sampling.  Size-prefixed: set .size. */
struct cudyn_texture_desc {
    size_t size;           /* set by the caller: sizeof(struct cudyn_texture_desc) */
    /* what is read */
    int resource;          /* CUDYN_RESOURCE_* */
    cudyn_array array;     /* ARRAY */
    cudyn_devptr device;   /* LINEAR, PITCH2D: the memory */
    int format;            /* LINEAR, PITCH2D: a cudyn_format (an array has its own) */
    unsigned int channels; /* LINEAR, PITCH2D: 1, 2 or 4 */
    size_t bytes;          /* LINEAR: bytes of the memory */
    size_t width, height;  /* PITCH2D: elements per row, rows */
    size_t pitch;          /* PITCH2D: bytes from one row to the next (see cudyn_mem_alloc_pitch) */
    /* how it is read (ignored for LINEAR, which reads elements by index) */
    int address_mode[3];   /* per dimension, CUDYN_ADDRESS_* */
    int filter;            /* CUDYN_FILTER_* */
    int read_mode;         /* CUDYN_READ_* */
    int normalized_coords; /* 1: coordinates in [0, 1) across each dimension; 0: in elements */
    float border_color[4]; /* what CUDYN_ADDRESS_BORDER reads outside */
};

/*
 * Creates a texture object over an array, linear or pitched memory, which
 * must outlive it.  Refused with CUDYN_ERROR_INVALID_ARGUMENT, naming the
 * field: linear filtering of integers read as CUDYN_READ_ELEMENT_TYPE
 * (filtering needs float results), wrap or mirror without normalised
 * coordinates, and filtering or normalised coordinates on LINEAR memory.
 */
CUDYN_API int cudyn_texture_create(cudyn_texture *out, const struct cudyn_texture_desc *desc);
/* Destroys a texture object; 0 is accepted and does nothing. */
CUDYN_API int cudyn_texture_destroy(cudyn_texture texture);
/* A surface object over an array made with CUDYN_ARRAY_SURFACE: kernels
 * read and write it with surf1Dread / surf2Dwrite ... (x in bytes). */
CUDYN_API int cudyn_surface_create(cudyn_surface *out, cudyn_array array);
/* Destroys a surface object; 0 is accepted and does nothing. */
CUDYN_API int cudyn_surface_destroy(cudyn_surface surface);

/* ======================================================================
 * Graphs: capture a stream, instantiate, launch, update
 * ====================================================================== */

/* A graph of captured work (a CUgraph) and an instantiated, launchable
 * graph (a CUgraphExec); cast either way. */
typedef struct cudyn_graph_st *cudyn_graph;
typedef struct cudyn_graph_exec_st *cudyn_graph_exec;

/* Which other calls a capture forbids; values are CUDA's
 * CUstreamCaptureMode.  GLOBAL: unsafe calls (cudyn_mem_alloc, synchronous
 * copies, cudyn_synchronize ...) in any thread; THREAD_LOCAL: in this
 * thread; RELAXED: none. */
#define CUDYN_CAPTURE_GLOBAL 0
#define CUDYN_CAPTURE_THREAD_LOCAL 1
#define CUDYN_CAPTURE_RELAXED 2

/* Capture states; values are CUDA's CUstreamCaptureStatus. */
#define CUDYN_CAPTURE_NONE 0        /* not capturing */
#define CUDYN_CAPTURE_ACTIVE 1      /* capturing */
#define CUDYN_CAPTURE_INVALIDATED 2 /* capturing, but a forbidden call broke it: end it and start again */

/*
 * From now on, work queued on `stream` (launches, async copies and memsets,
 * event records, cudyn_launchf without In/Out buffers) is recorded into a
 * graph instead of run, until cudyn_stream_end_capture.  `stream` must be
 * a stream of cudyn_stream_create: the legacy default stream cannot be
 * captured.  A forbidden call during a capture fails with
 * CUDYN_ERROR_NOT_PERMITTED and invalidates it.
 */
CUDYN_API int cudyn_stream_begin_capture(cudyn_stream stream, int mode);
/* Ends the capture and gives its graph in *out (destroy it with
 * cudyn_graph_destroy).  An invalidated capture gives CUDYN_ERROR_DRIVER
 * (CUDA_ERROR_STREAM_CAPTURE_INVALIDATED) and no graph. */
CUDYN_API int cudyn_stream_end_capture(cudyn_stream stream, cudyn_graph *out);
/* *status = CUDYN_CAPTURE_NONE, _ACTIVE or _INVALIDATED for `stream`. */
CUDYN_API int cudyn_stream_capture_status(cudyn_stream stream, int *status);

/* cudyn_graph_instantiate flags; values are CUDA's. */
#define CUDYN_GRAPH_AUTO_FREE_ON_LAUNCH 1u /* memory the graph allocates is freed before it runs again */

/* Makes a launchable graph (needs a CUDA 11.4+ driver).  The graph may be
 * destroyed afterwards; the instance keeps what it needs. */
CUDYN_API int cudyn_graph_instantiate(cudyn_graph_exec *out, cudyn_graph graph, unsigned int flags);
/* Runs the whole graph on `stream`, ordered with the stream's other work. */
CUDYN_API int cudyn_graph_launch(cudyn_graph_exec exec, cudyn_stream stream);
/*
 * Gives `exec` the parameters of `graph`, a graph of the same shape (the
 * same kernels launched in the same order, the same kinds of copies):
 * capture the same sequence again with new kernel arguments, update, and
 * launch, without instantiating again.  A graph of another shape is
 * CUDYN_ERROR_NOT_SUPPORTED with the driver's reason, and `exec` is left
 * as it was: instantiate the new graph instead.
 */
CUDYN_API int cudyn_graph_exec_update(cudyn_graph_exec exec, cudyn_graph graph);
/* Destroys an instance; NULL is accepted and does nothing. */
CUDYN_API int cudyn_graph_exec_destroy(cudyn_graph_exec exec);
/* Destroys a graph (its instances live on); NULL is accepted. */
CUDYN_API int cudyn_graph_destroy(cudyn_graph graph);

/* ======================================================================
 * Stream-ordered memory and memory pools
 * ====================================================================== */

/*
 * Allocates `bytes` (> 0) of device memory from the device's default
 * memory pool, ordered on `stream`: the memory may be used by work queued
 * on `stream` after this call.  Freed memory returns to the pool and is
 * reused without a driver allocation; the pool gives memory above its
 * release threshold (0 by default) back to the device when the stream
 * synchronises.  Needs a CUDA 11.2+ driver and a device with
 * CUDYN_ATTR_MEMORY_POOLS_SUPPORTED; otherwise CUDYN_ERROR_NOT_SUPPORTED.
 */
CUDYN_API int cudyn_mem_alloc_async(cudyn_devptr *out, size_t bytes, cudyn_stream stream);
/* Frees memory of cudyn_mem_alloc_async once work queued on `stream`
 * before it is done; 0 is accepted and does nothing. */
CUDYN_API int cudyn_mem_free_async(cudyn_devptr ptr, cudyn_stream stream);

/* Attributes of a device's default pool, in bytes; values are CUDA's
 * CUmemPool_attribute. */
#define CUDYN_POOL_RELEASE_THRESHOLD 4    /* memory kept after synchronising (settable) */
#define CUDYN_POOL_RESERVED_CURRENT 5     /* memory the pool holds from the device */
#define CUDYN_POOL_RESERVED_HIGH 6        /* the most it has held */
#define CUDYN_POOL_USED_CURRENT 7         /* memory allocated from it and not freed */
#define CUDYN_POOL_USED_HIGH 8            /* the most allocated at once */

/* Reads an attribute of the default pool of device `ordinal`. */
CUDYN_API int cudyn_mem_pool_attribute(int ordinal, int attr, uint64_t *value);
/* Memory the default pool of `ordinal` keeps when streams synchronise:
 * UINT64_MAX keeps everything it ever allocated, for the fastest reuse. */
CUDYN_API int cudyn_mem_pool_set_release_threshold(int ordinal, uint64_t bytes);
/* Gives memory the pool holds beyond `keep_bytes` back to the device now. */
CUDYN_API int cudyn_mem_pool_trim(int ordinal, size_t keep_bytes);

/* ======================================================================
 * Managed memory and pointer queries
 * ====================================================================== */

/* cudyn_mem_alloc_managed flags; values are CUDA's CUmemAttach_flags. */
#define CUDYN_MEM_ATTACH_GLOBAL 1u /* any stream on any device may use it */
#define CUDYN_MEM_ATTACH_HOST 2u   /* only the host, until attached to a stream */

/*
 * Allocates `bytes` (> 0) of managed (unified) memory, valid on the host
 * (as (void *)(uintptr_t)*out) and on every device; the driver migrates
 * pages where they are used.  Free with cudyn_mem_free.  Needs
 * CUDYN_ATTR_MANAGED_MEMORY; concurrent use by the host and a running
 * kernel needs CUDYN_ATTR_CONCURRENT_MANAGED_ACCESS.
 */
CUDYN_API int cudyn_mem_alloc_managed(cudyn_devptr *out, size_t bytes, unsigned int flags);

/* The host, as a location for cudyn_mem_prefetch and cudyn_mem_advise
 * (any other location is a device ordinal). */
#define CUDYN_HOST (-1)

/*
 * Migrates the managed range [ptr, ptr + bytes) to `location` (a device
 * ordinal or CUDYN_HOST), ordered on `stream`, so the next use there does
 * not fault.  Uses cuMemPrefetchAsync_v2 where the driver has it (12.2+),
 * else the CUDA 8.0 version.
 */
CUDYN_API int cudyn_mem_prefetch(cudyn_devptr ptr, size_t bytes, int location, cudyn_stream stream);

/* Advice for managed memory; values are CUDA's CUmem_advise.  The
 * location is ignored for READ_MOSTLY and its UNSET. */
#define CUDYN_ADVISE_SET_READ_MOSTLY 1
#define CUDYN_ADVISE_UNSET_READ_MOSTLY 2
#define CUDYN_ADVISE_SET_PREFERRED_LOCATION 3
#define CUDYN_ADVISE_UNSET_PREFERRED_LOCATION 4
#define CUDYN_ADVISE_SET_ACCESSED_BY 5
#define CUDYN_ADVISE_UNSET_ACCESSED_BY 6

/* Tells the driver how the managed range will be used, for `location` (a
 * device ordinal or CUDYN_HOST); as cudyn_mem_prefetch, the newest driver
 * variant is used. */
CUDYN_API int cudyn_mem_advise(cudyn_devptr ptr, size_t bytes, int advice, int location);

/* What memory a pointer is; values are the CUDA runtime's cudaMemoryType. */
#define CUDYN_POINTER_UNREGISTERED 0 /* not known to CUDA (plain host memory, or no memory at all) */
#define CUDYN_POINTER_HOST 1         /* page-locked host memory (cudyn_host_alloc) */
#define CUDYN_POINTER_DEVICE 2       /* device memory */
#define CUDYN_POINTER_MANAGED 3      /* managed memory (cudyn_mem_alloc_managed) */

/* What cudyn_pointer_info tells.  Size-prefixed: set .size. */
struct cudyn_pointer_info {
    size_t size;              /* set by the caller: sizeof(struct cudyn_pointer_info) */
    int kind;                 /* CUDYN_POINTER_* */
    int device;               /* the device it was allocated on or for; -1 if none */
    cudyn_devptr range_start; /* the allocation holding it; 0 if unregistered */
    size_t range_bytes;       /* its size */
};

/* Describes the memory at `ptr` (a device address, or a host pointer cast
 * to cudyn_devptr).  Memory CUDA does not know is CUDYN_OK with kind
 * CUDYN_POINTER_UNREGISTERED, not an error. */
CUDYN_API int cudyn_pointer_info(cudyn_devptr ptr, struct cudyn_pointer_info *out);

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
 *   reduction NAME:   cudyn_reduce_NAME, cudyn_reduce_NAME_vec
 * (the _vec kernel exists when the text allows a vectorised variant; see
 * below).  The user's text may use any name the preamble declares; names
 * starting with cudyn_ are the generated code's.
 *
 * The texts are code.  The body, the map, reduce and neutral expressions
 * and the parameter list are confined to their place in the generated
 * source, a rule a caller can rely on: outside comments and string or
 * character literals they hold no '#' (no preprocessor directive, no # or
 * ## operator) and no digraph (%: <% %> <: :>); their (), [] and {} are
 * balanced and properly nested; no line ends in a backslash (a line
 * splice, refused inside comments too) and the text does not end in one;
 * comments and literals are closed within the text, ordinary literals on
 * their line; a parameter repeats no qualifier ("const const").  A text
 * that breaks the rule is CUDYN_ERROR_INVALID_ARGUMENT before anything
 * compiles, naming the text, the line and column and what is wrong ("the
 * body, line 1, column 25: '}' closes nothing that the text opened").  The
 * preamble follows the same rule except that it may hold preprocessor
 * directives (#include, #define): it is code at file scope.  Within these
 * limits a text still runs as code inside the kernel (it may read and
 * write any device memory the kernel can reach, loop forever, or call
 * device functions), so a service that evaluates formulas from untrusted
 * users must check them itself; what cudyn guarantees is only that a text
 * cannot add kernels, include files, or redefine the generated code.
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
 * 256 threads for an elementwise kernel; for a reduction at most 512 and a
 * power of two) and enough blocks for the elements, at most as many as fill
 * every multiprocessor at once.
 *
 * Vectorised variant: when the text uses every pointer parameter it names
 * only as NAME[i] (not &NAME[i], NAME + 1, *NAME ...), no such pointer is
 * to volatile data and no #define of the preamble names one, a second kernel
 * handles 16 bytes of the widest element per thread and step (4 floats, 2
 * doubles) with vector loads and stores, storing back only the vectors
 * whose elements the text changed.  A pointer the text only assigns
 * (every mention is NAME[i] = ..., never read) is an output and is not
 * loaded first; its vector is stored when the text set all its elements,
 * element by element otherwise.  Each launch chooses it when n is at
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
 * const float *y" is a dot product).  One launch: each block leaves one
 * partial, and the block that finishes last (an atomic count, the only
 * atomic) combines them in index order through a fixed tree, so a device,
 * n and the pointers' alignment give the same result bits every run.  The
 * parameter list holds at most 60 parameters (the kernel adds 4).
 * Compiles for the calling thread's device, like cudyn_elementwise_create.
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

/* ======================================================================
 * Sharing device memory between processes: CUDA IPC, exportable pools,
 * virtual memory
 * ====================================================================== */

/*
 * Processes of one node share device memory three ways:
 *  - IPC handles (cudyn_ipc_mem_*): 64 bytes naming an allocation of
 *    cudyn_mem_alloc, sent to the other process by any means (a pipe, MPI);
 *  - exportable pools (cudyn_mem_pool_*): a pool whose file descriptor the
 *    other process imports, then each allocation's 64-byte export data;
 *  - virtual memory (cudyn_vmm_*): physical allocations exported as a file
 *    descriptor, mapped into address ranges each process reserves; a
 *    buffer grows by mapping more behind it, without copying.
 * File descriptors travel between processes over a Unix socket
 * (SCM_RIGHTS) or pidfd_getfd(); examples/ipc_share.c has a helper.
 *
 * Every handle is the driver's own: cudyn_ipc_mem_handle holds the bytes
 * of a CUipcMemHandle, cudyn_ipc_event_handle of a CUipcEventHandle,
 * cudyn_pool_ptr_export of a CUmemPoolPtrExportData (memcpy either way),
 * cudyn_mem_pool is a CUmemoryPool, cudyn_vmm_alloc a
 * CUmemGenericAllocationHandle, and every pointer a CUdeviceptr.
 *
 * Failures: a driver older than the call (CUDA 11.2 for pools, 10.2 for
 * virtual memory, 11.0 for cudyn_ipc_mem_open) gives
 * CUDYN_ERROR_SYMBOL_NOT_FOUND naming the entry point; a handle this
 * process exported, opened by itself, CUDYN_ERROR_INVALID_ARGUMENT; a
 * handle whose exporter exited or freed the memory, or of a device this
 * process cannot see, the driver's status with a message naming those
 * causes; sizes not a multiple of the device's granularity,
 * CUDYN_ERROR_INVALID_ARGUMENT naming the granularity, before the driver
 * is called; access from a device without peer access to the memory's,
 * CUDYN_ERROR_NOT_SUPPORTED.
 */
#define CUDYN_IPC_HANDLE_BYTES 64
typedef struct cudyn_ipc_mem_handle {
    unsigned char bytes[CUDYN_IPC_HANDLE_BYTES];
} cudyn_ipc_mem_handle;
typedef struct cudyn_ipc_event_handle {
    unsigned char bytes[CUDYN_IPC_HANDLE_BYTES];
} cudyn_ipc_event_handle;

/* The IPC handle of device memory from cudyn_mem_alloc (ptr must be the
 * start of the allocation).  The handle names the whole allocation and is
 * valid while this process keeps it. */
CUDYN_API int cudyn_ipc_mem_get_handle(cudyn_ipc_mem_handle *out, cudyn_devptr ptr);
/* cudyn_ipc_mem_open flags: let the thread's device reach memory of
 * another device through peer access when it needs to. */
#define CUDYN_IPC_LAZY_PEER_ACCESS 1u
/*
 * Maps memory another process exported into this one, in the thread's
 * context; *out is the start of the allocation (its address differs from
 * the exporter's).  A handle this process made gives
 * CUDYN_ERROR_INVALID_ARGUMENT: use the pointer itself.  Close it with
 * cudyn_ipc_mem_close before the exporter frees it.
 */
CUDYN_API int cudyn_ipc_mem_open(cudyn_devptr *out, const cudyn_ipc_mem_handle *handle, unsigned int flags);
/* Unmaps memory from cudyn_ipc_mem_open (the exporter's stays). */
CUDYN_API int cudyn_ipc_mem_close(cudyn_devptr ptr);
/* The IPC handle of an event made with CUDYN_EVENT_INTERPROCESS (another
 * event gives CUDYN_ERROR_INVALID_ARGUMENT naming the flag). */
CUDYN_API int cudyn_ipc_event_get_handle(cudyn_ipc_event_handle *out, cudyn_event event);
/* Opens an event another process exported: record it, wait on it or
 * query it; destroy it with cudyn_event_destroy. */
CUDYN_API int cudyn_ipc_event_open(cudyn_event *out, const cudyn_ipc_event_handle *handle);

/* A memory pool (a CUmemoryPool). */
typedef struct cudyn_mem_pool_st *cudyn_mem_pool;
/* 64 bytes naming one allocation of an exportable pool. */
typedef struct cudyn_pool_ptr_export {
    unsigned char bytes[CUDYN_IPC_HANDLE_BYTES];
} cudyn_pool_ptr_export;

/* Creates a pool of device `ordinal` whose memory other processes can
 * import through a POSIX file descriptor (cudyn_mem_pool_export_fd).
 * max_bytes 0: the driver's default limit. */
CUDYN_API int cudyn_mem_pool_create_exportable(cudyn_mem_pool *out, int ordinal, size_t max_bytes);
/* Destroys a pool made by cudyn_mem_pool_create_exportable or imported. */
CUDYN_API int cudyn_mem_pool_destroy(cudyn_mem_pool pool);
/* Allocates from `pool` in stream order (free with cudyn_mem_free_async). */
CUDYN_API int cudyn_mem_alloc_from_pool_async(cudyn_devptr *out, size_t bytes, cudyn_mem_pool pool,
                                              cudyn_stream stream);
/* A new file descriptor naming the pool (the caller closes it). */
CUDYN_API int cudyn_mem_pool_export_fd(int *fd_out, cudyn_mem_pool pool);
/* The pool another process exported as fd (fd stays the caller's). */
CUDYN_API int cudyn_mem_pool_import_fd(cudyn_mem_pool *out, int fd);
/* Lets device `ordinal` read and write the pool's memory (an importer's
 * device must be given access when it is not the pool's). */
CUDYN_API int cudyn_mem_pool_set_access(cudyn_mem_pool pool, int ordinal);
/* The export data of an allocation from an exportable pool.  The driver
 * exports a pool's allocations only once the pool itself was exported:
 * call cudyn_mem_pool_export_fd first (CUDYN_ERROR_INVALID_ARGUMENT says so
 * otherwise). */
CUDYN_API int cudyn_mem_pool_export_pointer(cudyn_pool_ptr_export *out, cudyn_devptr ptr);
/* The allocation `data` names, in a pool imported with
 * cudyn_mem_pool_import_fd; free it with cudyn_mem_free_async (the
 * exporter frees its own only after the importer has). */
CUDYN_API int cudyn_mem_pool_import_pointer(cudyn_devptr *out, cudyn_mem_pool pool, const cudyn_pool_ptr_export *data);
/* The CUmemoryPool of a pool, and a pool from a CUmemoryPool. */
CUDYN_API void *cudyn_mem_pool_native(cudyn_mem_pool pool);
CUDYN_API cudyn_mem_pool cudyn_mem_pool_from_native(void *cu_mem_pool);

/* A physical allocation of virtual memory (a CUmemGenericAllocationHandle). */
typedef uint64_t cudyn_vmm_alloc;
/*
 * The size every physical allocation, reservation, mapping and access
 * range on device `ordinal` must be a multiple of (2 MiB on current GPUs);
 * recommended != 0 asks for the size the driver suggests for speed.
 */
CUDYN_API int cudyn_vmm_granularity(size_t *out, int ordinal, int recommended);
/* Reserves `bytes` of device address space (no memory behind it yet),
 * aligned to `alignment` (0: the granularity).  bytes must be a multiple
 * of the thread's device's granularity. */
CUDYN_API int cudyn_vmm_reserve(cudyn_devptr *out, size_t bytes, size_t alignment);
/* Gives back a range from cudyn_vmm_reserve (unmap it first). */
CUDYN_API int cudyn_vmm_free(cudyn_devptr ptr, size_t bytes);
/* cudyn_vmm_create flags: the allocation can be exported as a file
 * descriptor (cudyn_vmm_export_fd). */
#define CUDYN_VMM_EXPORTABLE 1u
/* Creates `bytes` of physical memory on device `ordinal` (a multiple of
 * its granularity). */
CUDYN_API int cudyn_vmm_create(cudyn_vmm_alloc *out, int ordinal, size_t bytes, unsigned int flags);
/* Releases a physical allocation; its memory lives on while it is mapped. */
CUDYN_API int cudyn_vmm_release(cudyn_vmm_alloc alloc);
/* Maps the first `bytes` of `alloc` at ptr (inside a reserved range).
 * The range is not accessible until cudyn_vmm_set_access. */
CUDYN_API int cudyn_vmm_map(cudyn_devptr ptr, size_t bytes, cudyn_vmm_alloc alloc);
/* Unmaps [ptr, ptr + bytes). */
CUDYN_API int cudyn_vmm_unmap(cudyn_devptr ptr, size_t bytes);
/* Lets device `ordinal` read and write the mapped range [ptr, ptr + bytes),
 * whose memory is taken to be the calling thread's device's.  Another
 * device must have peer access to it (cudyn_device_can_access_peer), else
 * CUDYN_ERROR_NOT_SUPPORTED, before the driver is asked. */
CUDYN_API int cudyn_vmm_set_access(cudyn_devptr ptr, size_t bytes, int ordinal);
/* A new file descriptor naming an allocation made with
 * CUDYN_VMM_EXPORTABLE (the caller closes it). */
CUDYN_API int cudyn_vmm_export_fd(int *fd_out, cudyn_vmm_alloc alloc);
/* The allocation another process exported as fd (fd stays the caller's);
 * map it and set access as for one made here. */
CUDYN_API int cudyn_vmm_import_fd(cudyn_vmm_alloc *out, int fd);

/* ======================================================================
 * Rank-local devices (MPI and batch launchers)
 * ====================================================================== */

/* What the launcher says about this process's rank on its node. */
struct cudyn_local_rank {
    size_t size;          /* set by the caller: sizeof(struct cudyn_local_rank) */
    const char *variable; /* the variable used ("SLURM_LOCALID"), NULL if none is set */
    int local_rank;       /* its value; -1 if none */
    int local_size;       /* ranks on this node, where the launcher says; 0 if unknown */
    int device_count;     /* devices visible to this process */
    int device;           /* the ordinal rank-local choice gives: local_rank mod device_count */
    int shared;           /* 1 if other local ranks get the same device */
};

/*
 * Reads the first of OMPI_COMM_WORLD_LOCAL_RANK (Open MPI), SLURM_LOCALID
 * (srun), PMI_LOCAL_RANK (MPICH Hydra), MV2_COMM_WORLD_LOCAL_RANK
 * (MVAPICH2) and PALS_LOCAL_RANKID (HPE PALS) that is set; works before
 * MPI_Init.  Ordinals count the devices this process sees, so
 * CUDA_VISIBLE_DEVICES is respected.  None set: CUDYN_ERROR_NOT_FOUND; a
 * value that is not a decimal number 0..INT_MAX:
 * CUDYN_ERROR_INVALID_ARGUMENT naming the variable.
 */
CUDYN_API int cudyn_local_rank_info(struct cudyn_local_rank *out);
/*
 * Makes the local rank's device the calling thread's (as cudyn_device_use)
 * and stores its ordinal in *ordinal_out (may be NULL).  When more local
 * ranks than devices run, ranks share devices: the call succeeds, and
 * cudyn_last_error then returns CUDYN_OK with a message saying which
 * device is shared.  The environment variable CUDYN_DEVICE=local makes
 * the same choice for every thread that has not chosen a device.
 */
CUDYN_API int cudyn_device_use_local(int *ordinal_out);

/* ======================================================================
 * CUDA-aware MPI
 * ====================================================================== */

/* The answers of cudyn_mpi_cuda_support. */
#define CUDYN_MPI_CUDA_UNKNOWN (-1) /* nothing says: stage through host memory to be safe */
#define CUDYN_MPI_CUDA_NO 0         /* MPI needs host memory: stage, or use NCCL for device buffers */
#define CUDYN_MPI_CUDA_YES 1        /* MPI calls may take device memory */

/* What cudyn_mpi_cuda_support found.  Size-prefixed: set .size. */
struct cudyn_mpi_cuda {
    size_t size;        /* set by the caller: sizeof(struct cudyn_mpi_cuda) */
    int answer;         /* CUDYN_MPI_CUDA_YES, _NO or _UNKNOWN */
    const char *source; /* what answered: "MPIX_Query_cuda_support", "MPIX_GPU_query_support" or the
                           variable's name ("OMPI_MCA_opal_cuda_support"); NULL when nothing did */
    char reason[512];   /* one sentence, "because ...", naming what was asked and what it said */
};

/*
 * Whether the MPI of this process moves device memory itself (a
 * "CUDA-aware" MPI), so that MPI_Send and friends may be given
 * cudyn_devptr addresses.  cudyn never links MPI: it looks in the process.
 *  1. An MPI library already loaded (the program's, or mpi4py's) is asked,
 *     once MPI_Init has run (MPI_Initialized says so): Open MPI's and
 *     MVAPICH2's MPIX_Query_cuda_support(), else MPICH's
 *     MPIX_GPU_query_support(MPIX_GPU_SUPPORT_CUDA, ...).  Its answer
 *     stands.  Asked before MPI_Init, the reason says to ask again after.
 *  2. Otherwise the launcher's variables, the first one set:
 *     OMPI_MCA_opal_cuda_support (Open MPI), MV2_USE_CUDA (MVAPICH2),
 *     MPICH_GPU_SUPPORT_ENABLED (Cray MPICH): 1/true/yes is yes, 0/false/no
 *     is no; UCX_TLS (UCX, under Open MPI or MPICH) naming no cuda
 *     transport is no, naming one is unknown (UCX could, the MPI may not).
 *  3. Otherwise unknown, because nothing in the process or environment says.
 * Always CUDYN_OK when out is valid (the answer is a finding, not a
 * failure); CUDYN_ERROR_INVALID_ARGUMENT for a NULL out or a size too
 * small.  Loads nothing (it needs neither the driver nor NCCL).
 */
CUDYN_API int cudyn_mpi_cuda_support(struct cudyn_mpi_cuda *out);

/* ======================================================================
 * Collectives (NCCL)
 * ====================================================================== */

/*
 * All-reduce, broadcast, reduce, all-gather, reduce-scatter and grouped
 * send / receive between GPUs of one process, of several processes and of
 * several nodes, through NVIDIA's NCCL.  cudyn loads NCCL as it loads the
 * driver: at run time, on the first call of this section that needs it
 * (never at build time, never by cudyn_init), and says why when it
 * cannot.  The search, first usable wins:
 *  1. CUDYN_LIBNCCL, a file or a directory holding libnccl.so.2; set but
 *     unusable is an error, with no fall-through;
 *  2. a copy already loaded in the process (PyTorch's, CuPy's), so that a
 *     process never holds two NCCLs;
 *  3. the pip wheel (nvidia-nccl-cu13, nvidia-nccl-cu12):
 *     site-packages/nvidia/nccl/lib/libnccl.so.2, in the site-packages
 *     (or dist-packages) directory of any library already loaded (a Python
 *     process: cudyn's own module, torch ...), then under VIRTUAL_ENV,
 *     CONDA_PREFIX and the program's own prefix (lib/python3.*);
 *  4. libnccl.so.2 by soname (LD_LIBRARY_PATH, the distribution's libnccl2);
 *  5. the user's and the system's site-packages ($HOME/.local,
 *     /usr/local/lib and /usr/lib's python3.*), a guess, so after the
 *     dynamic loader's own search.
 * A candidate must export ncclGetVersion and be NCCL 2.7.3 or newer (the
 * first with ncclSend and ncclRecv); an older one is passed over and
 * named.  Nothing found is CUDYN_ERROR_NCCL_NOT_FOUND, whose message names
 * every place tried and what to install: `pip install nvidia-nccl-cu13`
 * (cu12 for a CUDA 12 driver), or the distribution's libnccl2 package.
 * cudyn_has("ncclCommSplit") tells whether the NCCL found has a function
 * (it loads NCCL, not the driver); CUDYN_DEBUG=1 prints the search.
 * Under secure execution (setuid, setgid) the variables and the program's
 * own prefix are not searched.
 *
 * Buffers are device memory (cudyn_devptr) of the communicator's device;
 * work is queued on a cudyn stream of that device (NULL: the default
 * stream, per-thread when cudyn_init chose so) and runs asynchronously,
 * like a kernel: the calls return once it is queued.  Where the driver can
 * tell a buffer's allocation, a count that runs past its end is
 * CUDYN_ERROR_INVALID_ARGUMENT, before NCCL sees it; a stream the driver
 * does not know is its CUDYN_ERROR_INVALID_HANDLE, before NCCL sees it.
 *
 * Element types are launch-format characters (CUDYN_LAUNCH_FORMAT_MAP):
 * 'b' int8_t, 'B' uint8_t, 'i' int32_t, 'I' uint32_t, 'q' int64_t,
 * 'Q' uint64_t, 'e' half, 'f' float, 'd' double, and 'F' / 'D' float and
 * double complex (NCCL moves them as pairs, so they reduce only with
 * CUDYN_NCCL_SUM and CUDYN_NCCL_AVG): CUDYN_NCCL_DTYPES below.  Others
 * are CUDYN_ERROR_INVALID_ARGUMENT.  Counts are in elements.
 *
 * Rules NCCL sets, which cudyn cannot check for you: every rank calls the
 * same collectives on a communicator in the same order; the calls that
 * wait for other ranks (cudyn_nccl_comm_init_rank, and the collectives of
 * several communicators driven by one thread) need a thread or process per
 * rank, or a group (cudyn_nccl_group_start) around them; a communicator is
 * used by one thread at a time.
 *
 * Failures: an ncclResult_t becomes a status (ncclInvalidArgument
 * CUDYN_ERROR_INVALID_ARGUMENT, ncclSystemError CUDYN_ERROR_SYSTEM,
 * ncclUnhandledCudaError CUDYN_ERROR_DRIVER, ncclRemoteError
 * CUDYN_ERROR_NCCL_REMOTE, ncclTimeout CUDYN_ERROR_TIMEOUT, others
 * CUDYN_ERROR_NCCL) with origin CUDYN_ORIGIN_NCCL, the code and its name
 * kept, and NCCL's own message (ncclGetLastError, NCCL 2.13+; else
 * ncclGetErrorString) in the message.  A peer that dies does not fail the
 * calls: its GPU work never finishes.  cudyn_nccl_comm_wait turns that into
 * a status in bounded time.
 *
 * cudyn never turns on NVLink SHARP (multicast, NCCL_NVLS_ENABLE): NCCL's
 * own default and environment decide.
 */

/* A unique id: 128 bytes made by one rank (cudyn_nccl_unique_id) and
 * handed to every other, by any means (MPI_Bcast, a file, a socket). */
#define CUDYN_NCCL_ID_BYTES 128
typedef struct cudyn_nccl_id {
    unsigned char bytes[CUDYN_NCCL_ID_BYTES];
} cudyn_nccl_id;

/* The element types the collectives carry, as launch-format characters
 * (a binding asks it before calling: strchr(CUDYN_NCCL_DTYPES, c)). */
#define CUDYN_NCCL_DTYPES "bBiIqQefdFD"

/* A communicator: one rank of a group of GPUs (cudyn's handle around an
 * ncclComm_t). */
typedef struct cudyn_nccl_comm_st *cudyn_nccl_comm;

/*
 * Reduction operations: X(name without CUDYN_NCCL_, value, what the
 * result is).  The values are NCCL's ncclRedOp_t.
 */
#define CUDYN_NCCL_OP_MAP(X)                                                                                   \
    X(SUM, 0, "the sum")                                                                                       \
    X(PROD, 1, "the product")                                                                                  \
    X(MAX, 2, "the largest value")                                                                             \
    X(MIN, 3, "the smallest value")                                                                            \
    X(AVG, 4, "the mean over the ranks (NCCL 2.10+; an older NCCL gives CUDYN_ERROR_NOT_SUPPORTED)")

typedef enum cudyn_nccl_op {
#define CUDYN_NCCL_OP_ENUM_ROW_(name, value, text) CUDYN_NCCL_##name = value,
    CUDYN_NCCL_OP_MAP(CUDYN_NCCL_OP_ENUM_ROW_)
#undef CUDYN_NCCL_OP_ENUM_ROW_
} cudyn_nccl_op;

/* What cudyn found of NCCL.  Strings live as long as the process; NULL
 * where nothing applies. */
struct cudyn_nccl_info {
    size_t size;                /* set by the caller: sizeof(struct cudyn_nccl_info) */
    int status;                 /* cudyn_status of finding and loading NCCL */
    const char *path;           /* the file loaded */
    const char *found_by;       /* a string of CUDYN_FOUND_BY_MAP ("loaded wheel" ...) */
    int version;                /* ncclGetVersion's code, unchanged (22809 is 2.28.9, 2708 is 2.7.8) */
    const char *version_string; /* "2.28.9" */
    double load_ms;             /* finding, opening and binding it */
    const char *trace;          /* every place tried and what happened, one per line */
};

/*
 * Loads NCCL (if not done yet) and describes what was found.  CUDYN_OK
 * when *out was filled, even when loading failed (out->status tells, and
 * the failure is the thread's last error); CUDYN_ERROR_INVALID_ARGUMENT
 * for a bad out.
 */
CUDYN_API int cudyn_nccl_info(struct cudyn_nccl_info *out);

/* Makes a new unique id (on one rank; it needs no GPU). */
CUDYN_API int cudyn_nccl_unique_id(cudyn_nccl_id *out);
/*
 * Joins the communicator of `nranks` ranks named by `id` as rank `rank`
 * (0 .. nranks - 1), on the calling thread's device (cudyn_device_use,
 * cudyn_device_use_local).  It returns once every rank has joined: call
 * it from one thread or process per rank.  rank out of range, nranks < 1:
 * CUDYN_ERROR_INVALID_ARGUMENT.
 */
CUDYN_API int cudyn_nccl_comm_init_rank(cudyn_nccl_comm *out, int nranks, const cudyn_nccl_id *id, int rank);
/*
 * Makes `ndev` communicators of one group in this process, comms[i] of
 * rank i on device devices[i] (devices NULL: devices 0 .. ndev - 1).
 * Their collectives are then called in a group, or from one thread per
 * communicator.
 */
CUDYN_API int cudyn_nccl_comm_init_all(cudyn_nccl_comm *comms, int ndev, const int *devices);
/* cudyn_nccl_comm_split's color for a rank that joins no new communicator. */
#define CUDYN_NCCL_NO_COLOR (-1)
/*
 * Splits `comm`, as MPI_Comm_split does: every rank calls it; the ranks
 * of one color (>= 0) form a new communicator, ordered by key (then by
 * their rank in comm); CUDYN_NCCL_NO_COLOR gives *out = NULL.  Needs
 * ncclCommSplit (NCCL 2.18+): an older NCCL gives CUDYN_ERROR_NOT_SUPPORTED.
 */
CUDYN_API int cudyn_nccl_comm_split(cudyn_nccl_comm comm, int color, int key, cudyn_nccl_comm *out);
/* The rank of `comm`, the number of ranks and its device (an ordinal of
 * this process); each output may be NULL. */
CUDYN_API int cudyn_nccl_comm_rank(cudyn_nccl_comm comm, int *rank, int *nranks, int *device);
/* NCCL's asynchronous error of `comm` as a status: CUDYN_OK while there is
 * none, else the status with NCCL's message (see above).  It does not
 * abort. */
CUDYN_API int cudyn_nccl_comm_check(cudyn_nccl_comm comm);
/*
 * Waits until the work queued on `stream` has finished, checking `comm`'s
 * asynchronous error while it waits (the way to wait for collectives when
 * a peer may fail).  CUDYN_OK when the work finished with no error.  An
 * asynchronous error aborts the communicator and returns its status with
 * NCCL's message; when timeout_ms (>= 0) passes first, the communicator is
 * aborted too and the status is CUDYN_ERROR_TIMEOUT; timeout_ms < 0 waits
 * as long as no error comes.  A failure of the stream itself (a kernel's
 * fault) is returned as it is, without aborting.  While a group not yet
 * ended uses `comm` (see cudyn_nccl_group_start), the wait is refused:
 * CUDYN_ERROR_INVALID_ARGUMENT.
 */
CUDYN_API int cudyn_nccl_comm_wait(cudyn_nccl_comm comm, cudyn_stream stream, int timeout_ms);
/* Stops the communicator's work at once, on this rank (others then see a
 * remote error); afterwards only cudyn_nccl_comm_destroy may be called on
 * it, and anything else is CUDYN_ERROR_INVALID_HANDLE.  Refused while a
 * group not yet ended uses it (CUDYN_ERROR_INVALID_ARGUMENT): end the
 * group first. */
CUDYN_API int cudyn_nccl_comm_abort(cudyn_nccl_comm comm);
/*
 * Frees the communicator after its queued work (abort it first when a
 * peer may have failed, or the wait has no end); NULL is accepted.
 * Refused while a group not yet ended uses it: CUDYN_ERROR_INVALID_ARGUMENT,
 * the communicator untouched; end the group first (cudyn_nccl_group_end).
 * In a child forked after CUDA was initialised the communicator belongs to
 * the parent: the child's handle is freed without calling NCCL, and the
 * status is CUDYN_ERROR_FORKED.
 */
CUDYN_API int cudyn_nccl_comm_destroy(cudyn_nccl_comm comm);

/* recv = op over the ranks of send, count elements, on every rank
 * (send == recv: in place). */
CUDYN_API int cudyn_nccl_all_reduce(cudyn_nccl_comm comm, cudyn_devptr send, cudyn_devptr recv, size_t count,
                                    int dtype, int op, cudyn_stream stream);
/* recv = root's send on every rank (send is read on root only). */
CUDYN_API int cudyn_nccl_broadcast(cudyn_nccl_comm comm, cudyn_devptr send, cudyn_devptr recv, size_t count,
                                   int dtype, int root, cudyn_stream stream);
/* root's recv = op over the ranks of send (recv is written on root only). */
CUDYN_API int cudyn_nccl_reduce(cudyn_nccl_comm comm, cudyn_devptr send, cudyn_devptr recv, size_t count, int dtype,
                                int op, int root, cudyn_stream stream);
/* recv (send_count x nranks elements) = every rank's send, in rank order. */
CUDYN_API int cudyn_nccl_all_gather(cudyn_nccl_comm comm, cudyn_devptr send, cudyn_devptr recv, size_t send_count,
                                    int dtype, cudyn_stream stream);
/* recv (recv_count elements) = rank r's block of op over the ranks of
 * send (recv_count x nranks elements). */
CUDYN_API int cudyn_nccl_reduce_scatter(cudyn_nccl_comm comm, cudyn_devptr send, cudyn_devptr recv,
                                        size_t recv_count, int dtype, int op, cudyn_stream stream);
/* Point to point: count elements to rank `peer`, which receives them with
 * cudyn_nccl_recv.  Both sides call them inside a group when a rank sends
 * and receives at once (a halo exchange), or the two may wait for each
 * other forever. */
CUDYN_API int cudyn_nccl_send(cudyn_nccl_comm comm, cudyn_devptr send, size_t count, int dtype, int peer,
                              cudyn_stream stream);
CUDYN_API int cudyn_nccl_recv(cudyn_nccl_comm comm, cudyn_devptr recv, size_t count, int dtype, int peer,
                              cudyn_stream stream);
/*
 * Calls between these two start together at the end of the group (groups
 * nest; only the outermost end starts them), on each thread its own
 * group: needed for send / receive pairs and for collectives of several
 * communicators driven by one thread.  A group is all or nothing: the
 * collectives, sends and receives are checked when called and handed to
 * NCCL at the end; if one of them (or a split or an init) failed, the end
 * hands NCCL none of them and returns that first failure, so that no
 * peer waits for half a group.  Inits and splits go to NCCL at once and
 * are finished by the end; their communicators are usable after it.  An
 * end without a start is CUDYN_ERROR_INVALID_ARGUMENT.
 *
 * Until its outermost end a group holds every communicator it uses: those
 * of the calls it keeps, those an init or a split inside it makes, and a
 * split's parent.  cudyn_nccl_comm_destroy, cudyn_nccl_comm_abort and
 * cudyn_nccl_comm_wait refuse a held communicator (from any thread) with
 * CUDYN_ERROR_INVALID_ARGUMENT and leave it and the group untouched, so
 * that the end never hands NCCL a destroyed or aborted communicator;
 * after the end (also a failed one) they work again.
 */
CUDYN_API int cudyn_nccl_group_start(void);
CUDYN_API int cudyn_nccl_group_end(void);

#ifdef __cplusplus
}
#ifdef __GNUC__
#pragma GCC diagnostic pop
#endif
#endif

#endif /* CUDYN_H */
