/*
 * hints.h - every hint cudyn gives, in one place.  A hint is the second
 * half of an error message: what a person can do about it.  cudyn__fail
 * appends it as "; hint: ..." and keeps it alone in cudyn_error.hint, so
 * the tools print the library's hint and never write their own.
 */
#ifndef CUDYN_HINTS_H
#define CUDYN_HINTS_H

#include "cudyn.h" /* CUDYN_EXPLAIN_COMMAND */

/* ---- finding and loading the driver ---- */
#define HINT_DRIVER_OVERRIDE                                                                                    \
    "point CUDYN_LIBCUDA at the driver's libcuda.so.1 (or its directory), or unset it to search the usual places"
#define HINT_OVERRIDE_STUB                                                                                      \
    "CUDYN_LIBCUDA names the CUDA toolkit's stub; point it at the NVIDIA driver's libcuda.so.1 (often in "        \
    "/usr/lib/x86_64-linux-gnu), or unset it"
#define HINT_NO_DRIVER                                                                                          \
    "install the NVIDIA driver, or set CUDYN_LIBCUDA to its libcuda.so.1 (" CUDYN_EXPLAIN_COMMAND " shows every place "  \
    "searched)"
#define HINT_NO_DRIVER_LIBRARY                                                                                  \
    "the nvidia kernel module is loaded but its user-space library libcuda.so.1 was not found: install the "      \
    "driver's library package (for example libcuda1 or nvidia-driver-libs) or set CUDYN_LIBCUDA"
#define HINT_STUB                                                                                               \
    "a stub libcuda (from the CUDA toolkit's lib64/stubs) was loaded; remove that directory from "              \
    "LD_LIBRARY_PATH or install the NVIDIA driver"
#define HINT_ONLY_STUB "remove the toolkit's lib64/stubs directory from LD_LIBRARY_PATH and install the NVIDIA driver"
#define HINT_UPDATE_DRIVER "update the NVIDIA driver"
#define HINT_DAMAGED_DRIVER "the library is damaged or not an NVIDIA driver; reinstall the driver"
#define HINT_PTDS_VALUE                                                                                         \
    "set CUDYN_PTDS to 0 (legacy default stream) or 1 (per-thread default stream), or unset it"
#define HINT_FORKED                                                                                             \
    "initialise CUDA only after fork() (call cudyn in the children, not in the parent before forking), or start "  \
    "workers with posix_spawn or fork+exec"
#define HINT_STATIC_PROGRAM                                                                                     \
    "link the program dynamically (libcudyn.a can stay static: -Wl,-Bstatic -lcudyn -Wl,-Bdynamic -ldl)"
#define HINT_INIT_FIRST "call cudyn_init before any other cudyn function"
#define HINT_NEWER_DRIVER_FOR "install a newer NVIDIA driver, or ask cudyn_has() first"
#define HINT_ABI_VERSION "pass the oldest CUDA version whose declaration your code uses, or update the driver"

/* ---- finding and loading NVRTC ---- */
#define HINT_NVRTC_OVERRIDE                                                                                     \
    "point CUDYN_LIBNVRTC at libnvrtc.so.N (or its directory), or unset it to search the usual places"
#define HINT_NO_NVRTC                                                                                           \
    "NVRTC is part of the CUDA toolkit: install it from NVIDIA (package cuda-nvrtc-13-0 of NVIDIA's "            \
    "repository), or pip install nvidia-cuda-nvrtc, and set CUDYN_LIBNVRTC if it is not in a standard place; "   \
    "kernels already in cudyn's cache and everything else work without it"
#define HINT_REINSTALL_NVRTC "reinstall NVRTC"
#define HINT_NEWER_NVRTC_FOR "point CUDYN_LIBNVRTC at a newer NVRTC (the CUDA toolkit's libnvrtc)"
#define HINT_NO_NVFATBIN                                                                                        \
    "nvFatbin is part of the CUDA toolkit 12.4+ (package cuda-nvfatbin of NVIDIA's repository, next to NVRTC); "  \
    "without it, build cudyn's own multi-architecture image (CUDYN_IMAGE_CUDYN, cudyn-cc --format cudyn)"

/* ---- finding nvJitLink, libcudadevrt.a and the toolkit headers; linking ---- */
#define HINT_NVJITLINK_OVERRIDE                                                                                 \
    "point CUDYN_LIBNVJITLINK at libnvJitLink.so.N (or its directory), or unset it to search the usual places"
#define HINT_NO_NVJITLINK                                                                                       \
    "nvJitLink is part of the CUDA toolkit (package cuda-nvjitlink-13-0 of NVIDIA's repository, or pip install "  \
    "nvidia-nvjitlink); without it cudyn links with the driver's linker, which takes no LTO-IR"
#define HINT_NO_CUDADEVRT                                                                                       \
    "libcudadevrt.a comes with the CUDA toolkit (package cuda-cudart-dev-13-0 of NVIDIA's repository); set "      \
    "CUDYN_TOOLKIT to a toolkit directory that has it in lib64 or lib"
#define HINT_LINK_LOG "cudyn_link_log() has the linker's whole log"

/* ---- finding and using NCCL ---- */
#define HINT_NCCL_OVERRIDE                                                                                      \
    "point CUDYN_LIBNCCL at libnccl.so.2 (or its directory), or unset it to search the usual places"
#define HINT_NO_NCCL                                                                                            \
    "install NCCL: pip install nvidia-nccl-cu13 (nvidia-nccl-cu12 for a CUDA 12 driver), or the distribution's "   \
    "libnccl2 package; or set CUDYN_LIBNCCL to its libnccl.so.2"
#define HINT_NCCL_ABORTED "make a new communicator: an aborted one can only be destroyed"
#define HINT_NCCL_PEER                                                                                          \
    "a peer rank's process, node or network failed: see that rank's output; the communicator was aborted"
#define HINT_NCCL_STUCK                                                                                         \
    "a peer rank may be stuck or dead, or the ranks called different collectives; NCCL_DEBUG=WARN says more"

/* ---- modules and launches ---- */
#define HINT_KERNEL_NAME                                                                                        \
    "declare it extern \"C\" __global__, or compile with it as a name expression (cudyn_compile_names) to use "  \
    "its C++ name"

#define HINT_NO_PEER                                                                                            \
    "cudyn_device_can_access_peer tells beforehand; copies between the two still work through cudyn_memcpy_dtod, "  \
    "staged by the driver"

#define HINT_WRONG_CONTEXT                                                                                      \
    "use it from a thread working on its device (cudyn_device_use), or make one on this device too "             \
    "(for kernels, cudyn_module_load_source keeps one module per source and device)"
#define HINT_RELOAD_AFTER_RESET "load the module again after the reset"

/* ---- extended launches, graphs, pools, managed memory, textures ---- */
#define HINT_LAUNCH_EX_DRIVER                                                                                   \
    "install a CUDA 11.8+ driver; cudyn_has(\"cuLaunchKernelEx\") tells beforehand"
#define HINT_PRIORITY_DRIVER "launch priorities need a CUDA 12.0+ driver; use a stream made with a priority instead"
#define HINT_CLUSTER_DEVICE                                                                                     \
    "thread-block clusters need a GPU of compute capability 9.0 or newer; cudyn_device_attribute(ordinal, "       \
    "CUDYN_ATTR_CLUSTER_LAUNCH, &v) tells beforehand"
#define HINT_CLUSTER_SIZE                                                                                       \
    "each cluster dimension must divide the grid's; clusters of more than 8 blocks need the kernel's "            \
    "non-portable cluster size attribute"
#define HINT_COOPERATIVE_DEVICE                                                                                 \
    "this device cannot launch cooperative kernels; cudyn_device_attribute(ordinal, "                            \
    "CUDYN_ATTR_COOPERATIVE_LAUNCH, &v) tells beforehand"
#define HINT_COOPERATIVE_TOO_LARGE                                                                              \
    "every block of a cooperative grid must be resident at once: launch at most cudyn_occupancy_max_blocks() x "  \
    "multiprocessors blocks"
#define HINT_SHARED_OPTIN                                                                                       \
    "use less dynamic shared memory; the device's limit is CUDYN_ATTR_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN less "    \
    "the kernel's static shared memory"
#define HINT_CAPTURE_FORBIDDEN                                                                                  \
    "this call is not allowed while a stream is captured (CUDYN_CAPTURE_GLOBAL forbids it in every thread, "      \
    "THREAD_LOCAL in the capturing one): make it before cudyn_stream_begin_capture or after "                    \
    "cudyn_stream_end_capture, or capture in CUDYN_CAPTURE_RELAXED mode; the legacy default stream and "          \
    "cudyn_launchf's In/Out buffers cannot be captured"
#define HINT_CAPTURE_INVALIDATED                                                                                \
    "a call not allowed during the capture invalidated it; end the capture, remove that call and capture again"
#define HINT_GRAPH_UPDATE "instantiate the new graph with cudyn_graph_instantiate instead of updating"
#define HINT_MEMORY_POOLS                                                                                       \
    "this device or driver has no memory pools (CUDYN_ATTR_MEMORY_POOLS_SUPPORTED is 0, as under some vGPU and "  \
    "WSL setups); use cudyn_mem_alloc"
#define HINT_MANAGED                                                                                            \
    "this device or platform has no managed memory (CUDYN_ATTR_MANAGED_MEMORY is 0); use cudyn_mem_alloc and "    \
    "explicit copies"

/* ---- CUresult and nvrtcResult (cuda_results.h, nvrtc_results.h) ---- */
#define HINT_NO_DEVICE                                                                                          \
    "no GPU is visible: check CUDA_VISIBLE_DEVICES (empty or -1 hides all), that /dev/nvidia* exist and are "    \
    "accessible, and that the nvidia kernel module is loaded (run " CUDYN_EXPLAIN_COMMAND ")"
#define HINT_OOM "free device memory or allocate less; other processes may hold memory (nvidia-smi shows them)"
#define HINT_BUSY                                                                                               \
    "the device is in exclusive-process compute mode and used by another process, or is unavailable; check "    \
    "nvidia-smi"
#define HINT_MISMATCH                                                                                           \
    "the NVIDIA kernel module and the user-space driver (libcuda) have different versions; reboot after a "      \
    "driver update or reinstall the driver"
#define HINT_COMPAT                                                                                             \
    "a CUDA forward-compatibility libcuda is on the library path but this GPU does not support it; remove the "  \
    "compat directory from LD_LIBRARY_PATH"
#define HINT_COMPAT_VALUE "set CUDYN_COMPAT to auto (the default), never or require"
#define HINT_COMPAT_REQUIRE                                                                                     \
    "CUDYN_COMPAT=require needs a forward-compatibility libcuda newer than the kernel module that this GPU "     \
    "accepts; unset CUDYN_COMPAT to let cudyn use the system driver"
#define HINT_COMPAT_NO_SYSTEM                                                                                   \
    "install the user-space driver that matches the kernel module (or put its directory on LD_LIBRARY_PATH; "     \
    "after a driver update, reboot so that the kernel module matches it), or use a forward-compatibility "        \
    "package newer than the kernel module on a GPU that supports it"
#define HINT_COMPAT_OVERRIDE                                                                                    \
    "CUDYN_LIBCUDA names a forward-compatibility libcuda that cannot work here; point it at the system driver "  \
    "or unset it"
#define HINT_IMAGE "the module image is corrupt or was built for something else; rebuild it"
#define HINT_NO_BINARY                                                                                          \
    "the image has no SASS for this GPU and no PTX it can JIT; compile for this GPU's compute capability "       \
    "(cudyn_compile does)"
#define HINT_PTX_JIT "the PTX could not be JIT-compiled; the JIT log says why"
#define HINT_PTX_VERSION                                                                                        \
    "the PTX was produced by a newer NVRTC/nvcc than the driver supports; update the driver or compile to "      \
    "CUBIN (cudyn_compile does)"
#define HINT_FAULT                                                                                              \
    "a kernel accessed memory out of bounds or freed; this error is sticky: every further call in this "        \
    "process on this device fails the same way, so the process must exit to use the GPU again; check indexing "  \
    "and sizes (compute-sanitizer finds the access)"
#define HINT_LAUNCH_FAILED                                                                                      \
    "a kernel failed while running; this error is sticky: the process must exit to use the GPU again; run "      \
    "under compute-sanitizer to find out why"
#define HINT_ASSERT                                                                                             \
    "a device-side assert() failed; this error is sticky: the process must exit to use the GPU again"
#define HINT_RESOURCES                                                                                          \
    "use fewer threads per block, registers or shared memory (cudyn_occupancy_block_size suggests a block size)"
#define HINT_TIMEOUT "the display watchdog stopped a long kernel; split the work or use a GPU without a display"
#define HINT_ECC "an uncorrectable ECC error was detected; check nvidia-smi -q and dmesg"
#define HINT_NO_JIT "the driver's PTX JIT library is missing; reinstall the driver or load CUBIN"
#define HINT_JIT_DISABLED "PTX JIT is disabled (CUDA_DISABLE_PTX_JIT?); load CUBIN instead"
#define HINT_MPS "the MPS server could not be reached; check nvidia-cuda-mps-control"
#define HINT_FABRIC "the system is not ready (on NVSwitch systems, check that nvidia-fabricmanager runs)"
#define HINT_UNKNOWN "an unknown driver error; check dmesg for Xid messages and run " CUDYN_EXPLAIN_COMMAND
#define HINT_NOT_INIT "cuInit has not succeeded; run " CUDYN_EXPLAIN_COMMAND
#define HINT_DEINIT "the driver is shutting down (the process is exiting)"
#define HINT_OPTION "an NVRTC option is not valid for this NVRTC version (e.g. an architecture it does not know)"
#define HINT_BUILTINS "libnvrtc-builtins could not be loaded; keep it next to libnvrtc, of the same version"
#define HINT_COMPILE "fix the source; the compile log says where"

#endif
