/*
 * status.c - cudyn's status names and descriptions, and the translation of
 * every CUresult and nvrtcResult (through CUDA 13) into them.  All tables
 * are data and work with no driver loaded.
 */
#include "config.h"

#include <stddef.h>

#include "internal.h"

struct status_entry {
    const char *name;
    const char *description;
};

/* Indexed by cudyn_status; keep in step with include/cudyn.h. */
static const struct status_entry status_table[] = {
    [CUDYN_OK] = {"CUDYN_OK", "no error"},
    [CUDYN_ERROR_DRIVER_NOT_FOUND] = {"CUDYN_ERROR_DRIVER_NOT_FOUND", "the NVIDIA driver library (libcuda) was not found"},
    [CUDYN_ERROR_STUB_DRIVER] = {"CUDYN_ERROR_STUB_DRIVER", "only the CUDA toolkit's stub libcuda was found, not a real driver"},
    [CUDYN_ERROR_DRIVER_TOO_OLD] = {"CUDYN_ERROR_DRIVER_TOO_OLD", "the NVIDIA driver is too old for this operation"},
    [CUDYN_ERROR_NVRTC_NOT_FOUND] = {"CUDYN_ERROR_NVRTC_NOT_FOUND", "the NVRTC library (libnvrtc) was not found"},
    [CUDYN_ERROR_SYMBOL_NOT_FOUND] = {"CUDYN_ERROR_SYMBOL_NOT_FOUND", "the loaded library does not provide a needed entry point"},
    [CUDYN_ERROR_INIT_FAILED] = {"CUDYN_ERROR_INIT_FAILED", "the CUDA driver failed to initialise"},
    [CUDYN_ERROR_INVALID_ARGUMENT] = {"CUDYN_ERROR_INVALID_ARGUMENT", "an argument is invalid"},
    [CUDYN_ERROR_INVALID_DEVICE] = {"CUDYN_ERROR_INVALID_DEVICE", "no such device"},
    [CUDYN_ERROR_NO_DEVICE] = {"CUDYN_ERROR_NO_DEVICE", "the driver sees no CUDA-capable device"},
    [CUDYN_ERROR_INVALID_CONTEXT] = {"CUDYN_ERROR_INVALID_CONTEXT", "no valid CUDA context for this call"},
    [CUDYN_ERROR_INVALID_HANDLE] = {"CUDYN_ERROR_INVALID_HANDLE", "a handle (stream, event, module, function) is invalid"},
    [CUDYN_ERROR_NOT_FOUND] = {"CUDYN_ERROR_NOT_FOUND", "the named kernel or variable was not found"},
    [CUDYN_ERROR_NOT_READY] = {"CUDYN_ERROR_NOT_READY", "the work queried has not finished yet"},
    [CUDYN_ERROR_NOT_SUPPORTED] = {"CUDYN_ERROR_NOT_SUPPORTED", "the device or driver does not support this operation"},
    [CUDYN_ERROR_NOT_PERMITTED] = {"CUDYN_ERROR_NOT_PERMITTED", "the operation is not permitted"},
    [CUDYN_ERROR_ALREADY_INITIALIZED] = {"CUDYN_ERROR_ALREADY_INITIALIZED", "cudyn was already initialised with different flags"},
    [CUDYN_ERROR_OUT_OF_MEMORY] = {"CUDYN_ERROR_OUT_OF_MEMORY", "out of memory"},
    [CUDYN_ERROR_DEVICE_UNAVAILABLE] = {"CUDYN_ERROR_DEVICE_UNAVAILABLE", "the device is busy, unavailable or in an error state"},
    [CUDYN_ERROR_COMPILE] = {"CUDYN_ERROR_COMPILE", "the kernel source failed to compile; see the log"},
    [CUDYN_ERROR_INVALID_IMAGE] = {"CUDYN_ERROR_INVALID_IMAGE", "the module image is invalid"},
    [CUDYN_ERROR_NO_BINARY_FOR_GPU] = {"CUDYN_ERROR_NO_BINARY_FOR_GPU", "the module image has no code for this GPU"},
    [CUDYN_ERROR_UNSUPPORTED_PTX] = {"CUDYN_ERROR_UNSUPPORTED_PTX", "the PTX is newer than the driver supports"},
    [CUDYN_ERROR_UNSUPPORTED_ARCH] = {"CUDYN_ERROR_UNSUPPORTED_ARCH", "NVRTC cannot build code for this GPU"},
    [CUDYN_ERROR_LAUNCH_FAILED] = {"CUDYN_ERROR_LAUNCH_FAILED", "the kernel launch or execution failed"},
    [CUDYN_ERROR_ILLEGAL_ADDRESS] = {"CUDYN_ERROR_ILLEGAL_ADDRESS", "a kernel accessed an illegal memory address"},
    [CUDYN_ERROR_LAUNCH_TIMEOUT] = {"CUDYN_ERROR_LAUNCH_TIMEOUT", "a kernel ran longer than the watchdog allows"},
    [CUDYN_ERROR_LAUNCH_OUT_OF_RESOURCES] = {"CUDYN_ERROR_LAUNCH_OUT_OF_RESOURCES", "too many resources requested for the launch"},
    [CUDYN_ERROR_INVALID_LAUNCH_ARGUMENTS] = {"CUDYN_ERROR_INVALID_LAUNCH_ARGUMENTS", "the launch arguments do not match the kernel's parameters"},
    [CUDYN_ERROR_ILLEGAL_INSTRUCTION] = {"CUDYN_ERROR_ILLEGAL_INSTRUCTION", "a kernel executed an illegal instruction or misaligned access"},
    [CUDYN_ERROR_ASSERT] = {"CUDYN_ERROR_ASSERT", "a device-side assert was triggered"},
    [CUDYN_ERROR_DRIVER] = {"CUDYN_ERROR_DRIVER", "the CUDA driver reported an error"},
    [CUDYN_ERROR_NVRTC] = {"CUDYN_ERROR_NVRTC", "NVRTC reported an error"},
    [CUDYN_ERROR_SYSTEM] = {"CUDYN_ERROR_SYSTEM", "an operating system call failed"},
    [CUDYN_ERROR_TIMEOUT] = {"CUDYN_ERROR_TIMEOUT", "the operation timed out"},
};

#define STATUS_COUNT (sizeof status_table / sizeof status_table[0])

CUDYN_API const char *cudyn_status_name(int status)
{
    if (status < 0 || (size_t)status >= STATUS_COUNT || !status_table[status].name)
        return "CUDYN_STATUS_UNKNOWN";
    return status_table[status].name;
}

CUDYN_API const char *cudyn_status_string(int status)
{
    if (status < 0 || (size_t)status >= STATUS_COUNT || !status_table[status].description)
        return "unknown cudyn status";
    return status_table[status].description;
}

/* Hints for what users hit most; one place so messages stay consistent. */
#define HINT_STUB "a stub libcuda (from the CUDA toolkit's lib64/stubs) was loaded; remove that directory from LD_LIBRARY_PATH or install the NVIDIA driver"
#define HINT_NO_DEVICE "no GPU is visible: check CUDA_VISIBLE_DEVICES (empty or -1 hides all), that /dev/nvidia* exist and are accessible, and that the nvidia kernel module is loaded (run cudainfo --explain)"
#define HINT_OOM "free device memory or allocate less; other processes may hold memory (nvidia-smi shows them)"
#define HINT_BUSY "the device is in exclusive-process compute mode and used by another process, or is unavailable; check nvidia-smi"
#define HINT_MISMATCH "the NVIDIA kernel module and the user-space driver (libcuda) have different versions; reboot after a driver update or reinstall the driver"
#define HINT_COMPAT "a CUDA forward-compatibility libcuda is on the library path but this GPU does not support it; remove the compat directory from LD_LIBRARY_PATH"
#define HINT_IMAGE "the module image is corrupt or was built for something else; rebuild it"
#define HINT_NO_BINARY "the image has no SASS for this GPU and no PTX it can JIT; compile for this GPU's compute capability (cudyn_compile does)"
#define HINT_PTX_JIT "the PTX could not be JIT-compiled; the JIT log above says why"
#define HINT_PTX_VERSION "the PTX was produced by a newer NVRTC/nvcc than the driver supports; update the driver or compile to CUBIN (cudyn_compile does)"
#define HINT_FAULT "a kernel accessed memory out of bounds or freed; this error is sticky: every further call in this process on this device fails the same way, so the process must exit to use the GPU again; check indexing and sizes (compute-sanitizer finds the access)"
#define HINT_LAUNCH_FAILED "a kernel failed while running; this error is sticky: the process must exit to use the GPU again; run under compute-sanitizer to find out why"
#define HINT_RESOURCES "use fewer threads per block, registers or shared memory (cudyn_occupancy_block_size suggests a block size)"
#define HINT_FABRIC "the system is not ready (on NVSwitch systems, check that nvidia-fabricmanager runs)"
#define HINT_UNKNOWN "an unknown driver error; check dmesg for Xid messages and run cudainfo --explain"
#define HINT_NOT_INIT "cuInit has not succeeded; run cudainfo --explain"
#define HINT_OPTION "an NVRTC option is not valid for this NVRTC version (e.g. an architecture it does not know)"
#define HINT_BUILTINS "libnvrtc-builtins could not be loaded; keep it next to libnvrtc, of the same version"

/* Every CUresult through CUDA 13.0. */
static const struct cudyn__native_code cuda_codes[] = {
    {0, "CUDA_SUCCESS", CUDYN_OK, NULL},
    {1, "CUDA_ERROR_INVALID_VALUE", CUDYN_ERROR_INVALID_ARGUMENT, NULL},
    {2, "CUDA_ERROR_OUT_OF_MEMORY", CUDYN_ERROR_OUT_OF_MEMORY, HINT_OOM},
    {3, "CUDA_ERROR_NOT_INITIALIZED", CUDYN_ERROR_INIT_FAILED, HINT_NOT_INIT},
    {4, "CUDA_ERROR_DEINITIALIZED", CUDYN_ERROR_DRIVER, "the driver is shutting down (the process is exiting)"},
    {5, "CUDA_ERROR_PROFILER_DISABLED", CUDYN_ERROR_DRIVER, NULL},
    {6, "CUDA_ERROR_PROFILER_NOT_INITIALIZED", CUDYN_ERROR_DRIVER, NULL},
    {7, "CUDA_ERROR_PROFILER_ALREADY_STARTED", CUDYN_ERROR_DRIVER, NULL},
    {8, "CUDA_ERROR_PROFILER_ALREADY_STOPPED", CUDYN_ERROR_DRIVER, NULL},
    {34, "CUDA_ERROR_STUB_LIBRARY", CUDYN_ERROR_STUB_DRIVER, HINT_STUB},
    {35, "CUDA_ERROR_INSUFFICIENT_DRIVER", CUDYN_ERROR_DRIVER_TOO_OLD, "the installed NVIDIA driver is older than the CUDA version in use; update the driver"},
    {36, "CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER", CUDYN_ERROR_DRIVER_TOO_OLD, "update the NVIDIA driver"},
    {46, "CUDA_ERROR_DEVICE_UNAVAILABLE", CUDYN_ERROR_DEVICE_UNAVAILABLE, HINT_BUSY},
    {100, "CUDA_ERROR_NO_DEVICE", CUDYN_ERROR_NO_DEVICE, HINT_NO_DEVICE},
    {101, "CUDA_ERROR_INVALID_DEVICE", CUDYN_ERROR_INVALID_DEVICE, NULL},
    {102, "CUDA_ERROR_DEVICE_NOT_LICENSED", CUDYN_ERROR_NOT_PERMITTED, NULL},
    {200, "CUDA_ERROR_INVALID_IMAGE", CUDYN_ERROR_INVALID_IMAGE, HINT_IMAGE},
    {201, "CUDA_ERROR_INVALID_CONTEXT", CUDYN_ERROR_INVALID_CONTEXT, NULL},
    {202, "CUDA_ERROR_CONTEXT_ALREADY_CURRENT", CUDYN_ERROR_DRIVER, NULL},
    {205, "CUDA_ERROR_MAP_FAILED", CUDYN_ERROR_DRIVER, NULL},
    {206, "CUDA_ERROR_UNMAP_FAILED", CUDYN_ERROR_DRIVER, NULL},
    {207, "CUDA_ERROR_ARRAY_IS_MAPPED", CUDYN_ERROR_DRIVER, NULL},
    {208, "CUDA_ERROR_ALREADY_MAPPED", CUDYN_ERROR_DRIVER, NULL},
    {209, "CUDA_ERROR_NO_BINARY_FOR_GPU", CUDYN_ERROR_NO_BINARY_FOR_GPU, HINT_NO_BINARY},
    {210, "CUDA_ERROR_ALREADY_ACQUIRED", CUDYN_ERROR_DRIVER, NULL},
    {211, "CUDA_ERROR_NOT_MAPPED", CUDYN_ERROR_DRIVER, NULL},
    {212, "CUDA_ERROR_NOT_MAPPED_AS_ARRAY", CUDYN_ERROR_DRIVER, NULL},
    {213, "CUDA_ERROR_NOT_MAPPED_AS_POINTER", CUDYN_ERROR_DRIVER, NULL},
    {214, "CUDA_ERROR_ECC_UNCORRECTABLE", CUDYN_ERROR_DEVICE_UNAVAILABLE, "an uncorrectable ECC error was detected; check nvidia-smi -q and dmesg"},
    {215, "CUDA_ERROR_UNSUPPORTED_LIMIT", CUDYN_ERROR_NOT_SUPPORTED, NULL},
    {216, "CUDA_ERROR_CONTEXT_ALREADY_IN_USE", CUDYN_ERROR_DEVICE_UNAVAILABLE, NULL},
    {217, "CUDA_ERROR_PEER_ACCESS_UNSUPPORTED", CUDYN_ERROR_NOT_SUPPORTED, NULL},
    {218, "CUDA_ERROR_INVALID_PTX", CUDYN_ERROR_INVALID_IMAGE, HINT_PTX_JIT},
    {219, "CUDA_ERROR_INVALID_GRAPHICS_CONTEXT", CUDYN_ERROR_DRIVER, NULL},
    {220, "CUDA_ERROR_NVLINK_UNCORRECTABLE", CUDYN_ERROR_DEVICE_UNAVAILABLE, NULL},
    {221, "CUDA_ERROR_JIT_COMPILER_NOT_FOUND", CUDYN_ERROR_NOT_SUPPORTED, "the driver's PTX JIT library is missing; reinstall the driver or load CUBIN"},
    {222, "CUDA_ERROR_UNSUPPORTED_PTX_VERSION", CUDYN_ERROR_UNSUPPORTED_PTX, HINT_PTX_VERSION},
    {223, "CUDA_ERROR_JIT_COMPILATION_DISABLED", CUDYN_ERROR_NOT_PERMITTED, "PTX JIT is disabled (CUDA_DISABLE_PTX_JIT?); load CUBIN instead"},
    {224, "CUDA_ERROR_UNSUPPORTED_EXEC_AFFINITY", CUDYN_ERROR_NOT_SUPPORTED, NULL},
    {225, "CUDA_ERROR_UNSUPPORTED_DEVSIDE_SYNC", CUDYN_ERROR_NOT_SUPPORTED, NULL},
    {226, "CUDA_ERROR_CONTAINED", CUDYN_ERROR_LAUNCH_FAILED, NULL},
    {300, "CUDA_ERROR_INVALID_SOURCE", CUDYN_ERROR_INVALID_IMAGE, NULL},
    {301, "CUDA_ERROR_FILE_NOT_FOUND", CUDYN_ERROR_NOT_FOUND, NULL},
    {302, "CUDA_ERROR_SHARED_OBJECT_SYMBOL_NOT_FOUND", CUDYN_ERROR_SYMBOL_NOT_FOUND, NULL},
    {303, "CUDA_ERROR_SHARED_OBJECT_INIT_FAILED", CUDYN_ERROR_DRIVER, NULL},
    {304, "CUDA_ERROR_OPERATING_SYSTEM", CUDYN_ERROR_SYSTEM, NULL},
    {400, "CUDA_ERROR_INVALID_HANDLE", CUDYN_ERROR_INVALID_HANDLE, NULL},
    {401, "CUDA_ERROR_ILLEGAL_STATE", CUDYN_ERROR_DRIVER, NULL},
    {402, "CUDA_ERROR_LOSSY_QUERY", CUDYN_ERROR_DRIVER, NULL},
    {500, "CUDA_ERROR_NOT_FOUND", CUDYN_ERROR_NOT_FOUND, NULL},
    {600, "CUDA_ERROR_NOT_READY", CUDYN_ERROR_NOT_READY, NULL},
    {700, "CUDA_ERROR_ILLEGAL_ADDRESS", CUDYN_ERROR_ILLEGAL_ADDRESS, HINT_FAULT},
    {701, "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES", CUDYN_ERROR_LAUNCH_OUT_OF_RESOURCES, HINT_RESOURCES},
    {702, "CUDA_ERROR_LAUNCH_TIMEOUT", CUDYN_ERROR_LAUNCH_TIMEOUT, "the display watchdog stopped a long kernel; split the work or use a GPU without a display"},
    {703, "CUDA_ERROR_LAUNCH_INCOMPATIBLE_TEXTURING", CUDYN_ERROR_LAUNCH_FAILED, NULL},
    {704, "CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED", CUDYN_ERROR_DRIVER, NULL},
    {705, "CUDA_ERROR_PEER_ACCESS_NOT_ENABLED", CUDYN_ERROR_DRIVER, NULL},
    {708, "CUDA_ERROR_PRIMARY_CONTEXT_ACTIVE", CUDYN_ERROR_DRIVER, NULL},
    {709, "CUDA_ERROR_CONTEXT_IS_DESTROYED", CUDYN_ERROR_INVALID_CONTEXT, NULL},
    {710, "CUDA_ERROR_ASSERT", CUDYN_ERROR_ASSERT, "a device-side assert() failed; this error is sticky: the process must exit to use the GPU again"},
    {711, "CUDA_ERROR_TOO_MANY_PEERS", CUDYN_ERROR_NOT_SUPPORTED, NULL},
    {712, "CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED", CUDYN_ERROR_INVALID_ARGUMENT, NULL},
    {713, "CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED", CUDYN_ERROR_INVALID_ARGUMENT, NULL},
    {714, "CUDA_ERROR_HARDWARE_STACK_ERROR", CUDYN_ERROR_ILLEGAL_INSTRUCTION, HINT_LAUNCH_FAILED},
    {715, "CUDA_ERROR_ILLEGAL_INSTRUCTION", CUDYN_ERROR_ILLEGAL_INSTRUCTION, HINT_LAUNCH_FAILED},
    {716, "CUDA_ERROR_MISALIGNED_ADDRESS", CUDYN_ERROR_ILLEGAL_INSTRUCTION, HINT_LAUNCH_FAILED},
    {717, "CUDA_ERROR_INVALID_ADDRESS_SPACE", CUDYN_ERROR_ILLEGAL_INSTRUCTION, HINT_LAUNCH_FAILED},
    {718, "CUDA_ERROR_INVALID_PC", CUDYN_ERROR_ILLEGAL_INSTRUCTION, HINT_LAUNCH_FAILED},
    {719, "CUDA_ERROR_LAUNCH_FAILED", CUDYN_ERROR_LAUNCH_FAILED, HINT_LAUNCH_FAILED},
    {720, "CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE", CUDYN_ERROR_LAUNCH_OUT_OF_RESOURCES, NULL},
    {721, "CUDA_ERROR_TENSOR_MEMORY_LEAK", CUDYN_ERROR_LAUNCH_FAILED, NULL},
    {800, "CUDA_ERROR_NOT_PERMITTED", CUDYN_ERROR_NOT_PERMITTED, NULL},
    {801, "CUDA_ERROR_NOT_SUPPORTED", CUDYN_ERROR_NOT_SUPPORTED, NULL},
    {802, "CUDA_ERROR_SYSTEM_NOT_READY", CUDYN_ERROR_DEVICE_UNAVAILABLE, HINT_FABRIC},
    {803, "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH", CUDYN_ERROR_INIT_FAILED, HINT_MISMATCH},
    {804, "CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE", CUDYN_ERROR_INIT_FAILED, HINT_COMPAT},
    {805, "CUDA_ERROR_MPS_CONNECTION_FAILED", CUDYN_ERROR_DEVICE_UNAVAILABLE, "the MPS server could not be reached; check nvidia-cuda-mps-control"},
    {806, "CUDA_ERROR_MPS_RPC_FAILURE", CUDYN_ERROR_DEVICE_UNAVAILABLE, NULL},
    {807, "CUDA_ERROR_MPS_SERVER_NOT_READY", CUDYN_ERROR_DEVICE_UNAVAILABLE, NULL},
    {808, "CUDA_ERROR_MPS_MAX_CLIENTS_REACHED", CUDYN_ERROR_DEVICE_UNAVAILABLE, NULL},
    {809, "CUDA_ERROR_MPS_MAX_CONNECTIONS_REACHED", CUDYN_ERROR_DEVICE_UNAVAILABLE, NULL},
    {810, "CUDA_ERROR_MPS_CLIENT_TERMINATED", CUDYN_ERROR_DEVICE_UNAVAILABLE, NULL},
    {811, "CUDA_ERROR_CDP_NOT_SUPPORTED", CUDYN_ERROR_NOT_SUPPORTED, NULL},
    {812, "CUDA_ERROR_CDP_VERSION_MISMATCH", CUDYN_ERROR_NOT_SUPPORTED, NULL},
    {900, "CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED", CUDYN_ERROR_NOT_PERMITTED, NULL},
    {901, "CUDA_ERROR_STREAM_CAPTURE_INVALIDATED", CUDYN_ERROR_DRIVER, NULL},
    {902, "CUDA_ERROR_STREAM_CAPTURE_MERGE", CUDYN_ERROR_DRIVER, NULL},
    {903, "CUDA_ERROR_STREAM_CAPTURE_UNMATCHED", CUDYN_ERROR_DRIVER, NULL},
    {904, "CUDA_ERROR_STREAM_CAPTURE_UNJOINED", CUDYN_ERROR_DRIVER, NULL},
    {905, "CUDA_ERROR_STREAM_CAPTURE_ISOLATION", CUDYN_ERROR_DRIVER, NULL},
    {906, "CUDA_ERROR_STREAM_CAPTURE_IMPLICIT", CUDYN_ERROR_DRIVER, NULL},
    {907, "CUDA_ERROR_CAPTURED_EVENT", CUDYN_ERROR_DRIVER, NULL},
    {908, "CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD", CUDYN_ERROR_DRIVER, NULL},
    {909, "CUDA_ERROR_TIMEOUT", CUDYN_ERROR_TIMEOUT, NULL},
    {910, "CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE", CUDYN_ERROR_DRIVER, NULL},
    {911, "CUDA_ERROR_EXTERNAL_DEVICE", CUDYN_ERROR_LAUNCH_FAILED, NULL},
    {912, "CUDA_ERROR_INVALID_CLUSTER_SIZE", CUDYN_ERROR_INVALID_ARGUMENT, NULL},
    {913, "CUDA_ERROR_FUNCTION_NOT_LOADED", CUDYN_ERROR_INVALID_HANDLE, NULL},
    {914, "CUDA_ERROR_INVALID_RESOURCE_TYPE", CUDYN_ERROR_INVALID_ARGUMENT, NULL},
    {915, "CUDA_ERROR_INVALID_RESOURCE_CONFIGURATION", CUDYN_ERROR_INVALID_ARGUMENT, NULL},
    {916, "CUDA_ERROR_KEY_ROTATION", CUDYN_ERROR_DRIVER, NULL},
    {999, "CUDA_ERROR_UNKNOWN", CUDYN_ERROR_DRIVER, HINT_UNKNOWN},
};

/* Every nvrtcResult through CUDA 13.0. */
static const struct cudyn__native_code nvrtc_codes[] = {
    {0, "NVRTC_SUCCESS", CUDYN_OK, NULL},
    {1, "NVRTC_ERROR_OUT_OF_MEMORY", CUDYN_ERROR_OUT_OF_MEMORY, NULL},
    {2, "NVRTC_ERROR_PROGRAM_CREATION_FAILURE", CUDYN_ERROR_NVRTC, NULL},
    {3, "NVRTC_ERROR_INVALID_INPUT", CUDYN_ERROR_INVALID_ARGUMENT, NULL},
    {4, "NVRTC_ERROR_INVALID_PROGRAM", CUDYN_ERROR_INVALID_HANDLE, NULL},
    {5, "NVRTC_ERROR_INVALID_OPTION", CUDYN_ERROR_INVALID_ARGUMENT, HINT_OPTION},
    {6, "NVRTC_ERROR_COMPILATION", CUDYN_ERROR_COMPILE, "fix the source; the compile log says where"},
    {7, "NVRTC_ERROR_BUILTIN_OPERATION_FAILURE", CUDYN_ERROR_NVRTC, HINT_BUILTINS},
    {8, "NVRTC_ERROR_NO_NAME_EXPRESSIONS_AFTER_COMPILATION", CUDYN_ERROR_INVALID_ARGUMENT, NULL},
    {9, "NVRTC_ERROR_NO_LOWERED_NAMES_BEFORE_COMPILATION", CUDYN_ERROR_INVALID_ARGUMENT, NULL},
    {10, "NVRTC_ERROR_NAME_EXPRESSION_NOT_VALID", CUDYN_ERROR_INVALID_ARGUMENT, NULL},
    {11, "NVRTC_ERROR_INTERNAL_ERROR", CUDYN_ERROR_NVRTC, NULL},
    {12, "NVRTC_ERROR_TIME_FILE_WRITE_FAILED", CUDYN_ERROR_SYSTEM, NULL},
    {13, "NVRTC_ERROR_NO_PCH_CREATE_ATTEMPTED", CUDYN_ERROR_NVRTC, NULL},
    {14, "NVRTC_ERROR_PCH_CREATE_HEAP_EXHAUSTED", CUDYN_ERROR_NVRTC, NULL},
    {15, "NVRTC_ERROR_PCH_CREATE", CUDYN_ERROR_NVRTC, NULL},
    {16, "NVRTC_ERROR_CANCELLED", CUDYN_ERROR_NVRTC, NULL},
    {17, "NVRTC_ERROR_TIME_TRACE_FILE_WRITE_FAILED", CUDYN_ERROR_SYSTEM, NULL},
};

static const struct cudyn__native_code *find_code(const struct cudyn__native_code *table, size_t n, int code)
{
    for (size_t i = 0; i < n; i++)
        if (table[i].code == code)
            return &table[i];
    return NULL;
}

const struct cudyn__native_code *cudyn__cuda_code(int code)
{
    return find_code(cuda_codes, sizeof cuda_codes / sizeof cuda_codes[0], code);
}

const struct cudyn__native_code *cudyn__nvrtc_code(int code)
{
    return find_code(nvrtc_codes, sizeof nvrtc_codes / sizeof nvrtc_codes[0], code);
}

const char *cudyn__cuda_description(int code)
{
    if (cudyn__driver_version_loaded() == 0 || !DRIVER_HAS(cuGetErrorString))
        return NULL;
    const char *s = NULL;
    if (cudyn__drv.cuGetErrorString((cu_result)code, &s) != CU_OK)
        return NULL;
    return s;
}
