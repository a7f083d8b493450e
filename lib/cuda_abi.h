/*
 * cuda_abi.h - the few CUDA driver and NVRTC types and constants cudyn uses,
 * declared here so the library never needs <cuda.h> to build.
 *
 * Names are cudyn's own (cu_result, CU_OK ...) so this header and the real
 * <cuda.h> can meet in one translation unit: tests/check_cuda_abi.c does
 * exactly that when configure is given --with-cuda, and fails on any
 * difference in values, layouts or prototypes.  Handles and structs use
 * CUDA's own struct tags, which makes them the very same types there.
 */
#ifndef CUDYN_CUDA_ABI_H
#define CUDYN_CUDA_ABI_H

#include <stddef.h>
#include <stdint.h>

/* CUresult and other CUDA enums are int-sized; GCC and Clang treat an enum
 * with no negative values as compatible with unsigned int. */
typedef unsigned int cu_result;
typedef int cu_device;                      /* CUdevice */
typedef unsigned long long cu_deviceptr;    /* CUdeviceptr (64-bit) */
typedef uint64_t cu_uint64;                 /* cuuint64_t */
typedef unsigned int cu_enum;               /* any other CUDA enum by value */

typedef struct CUctx_st *cu_context;
typedef struct CUmod_st *cu_module;
typedef struct CUfunc_st *cu_function;
typedef struct CUstream_st *cu_stream;
typedef struct CUevent_st *cu_event;
typedef struct CUlib_st *cu_library;
typedef struct CUkern_st *cu_kernel;
typedef struct CUgraph_st *cu_graph;
typedef struct CUgraphNode_st *cu_graph_node;

/* Structs cudyn only passes through by pointer. */
struct CUlaunchConfig_st;
struct CUctxCreateParams_st;
struct CUgraphEdgeData_st;

/* CUuuid and CUmemLocation (the latter passed by value to
 * cuMemPrefetchAsync_v2 / cuMemAdvise_v2), under CUDA's own tags.  When
 * <cuda.h> is in the same translation unit (the cross-check) its
 * definitions are used, and the check compares the layouts of both. */
#ifndef CUDA_VERSION
struct CUuuid_st {
    char bytes[16];
};
struct CUmemLocation_st {
    cu_enum type;
    int id;
};
#endif
typedef struct CUuuid_st cu_uuid;
typedef struct CUmemLocation_st cu_mem_location;

typedef size_t (*cu_occupancy_b2d_size)(int block_size);

/* cuGetProcAddress flags and results */
enum {
    CU_PROC_ADDRESS_LEGACY_STREAM = 1,
    CU_PROC_ADDRESS_PER_THREAD_STREAM = 2,
    CU_PROC_ADDRESS_SUCCESS = 0,
    CU_PROC_ADDRESS_SYMBOL_NOT_FOUND = 1,
    CU_PROC_ADDRESS_VERSION_NOT_SUFFICIENT = 2
};

/* The CUresult values the library acts on (the full list with names is the
 * data table in status.c). */
enum {
    CU_OK = 0,
    CU_ERR_INVALID_VALUE = 1,
    CU_ERR_OUT_OF_MEMORY = 2,
    CU_ERR_NOT_INITIALIZED = 3,
    CU_ERR_DEINITIALIZED = 4,
    CU_ERR_STUB_LIBRARY = 34,
    CU_ERR_CALL_REQUIRES_NEWER_DRIVER = 36,
    CU_ERR_NO_DEVICE = 100,
    CU_ERR_INVALID_DEVICE = 101,
    CU_ERR_INVALID_IMAGE = 200,
    CU_ERR_INVALID_CONTEXT = 201,
    CU_ERR_NO_BINARY_FOR_GPU = 209,
    CU_ERR_PEER_ACCESS_UNSUPPORTED = 217,
    CU_ERR_INVALID_PTX = 218,
    CU_ERR_UNSUPPORTED_PTX_VERSION = 222,
    CU_ERR_INVALID_HANDLE = 400,
    CU_ERR_NOT_FOUND = 500,
    CU_ERR_NOT_READY = 600,
    CU_ERR_ILLEGAL_ADDRESS = 700,
    CU_ERR_PEER_ACCESS_ALREADY_ENABLED = 704,
    CU_ERR_PEER_ACCESS_NOT_ENABLED = 705,
    CU_ERR_CONTEXT_IS_DESTROYED = 709,
    CU_ERR_LAUNCH_OUT_OF_RESOURCES = 701,
    CU_ERR_LAUNCH_FAILED = 719,
    CU_ERR_NOT_SUPPORTED = 801,
    CU_ERR_UNKNOWN = 999
};

/* CUjit_option */
enum {
    CU_JITOPT_INFO_LOG_BUFFER = 3,
    CU_JITOPT_INFO_LOG_BUFFER_SIZE_BYTES = 4,
    CU_JITOPT_ERROR_LOG_BUFFER = 5,
    CU_JITOPT_ERROR_LOG_BUFFER_SIZE_BYTES = 6
};

/* CUfunction_attribute */
enum {
    CU_FUNC_ATTR_MAX_THREADS_PER_BLOCK = 0,
    CU_FUNC_ATTR_SHARED_SIZE_BYTES = 1,
    CU_FUNC_ATTR_CONST_SIZE_BYTES = 2,
    CU_FUNC_ATTR_LOCAL_SIZE_BYTES = 3,
    CU_FUNC_ATTR_NUM_REGS = 4,
    CU_FUNC_ATTR_PTX_VERSION = 5,
    CU_FUNC_ATTR_BINARY_VERSION = 6,
    CU_FUNC_ATTR_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8
};

/* Stream, event and host-allocation flags */
enum {
    CU_STREAM_FLAG_NON_BLOCKING = 1,
    CU_EVENT_FLAG_BLOCKING_SYNC = 1,
    CU_EVENT_FLAG_DISABLE_TIMING = 2,
    CU_HOSTALLOC_PORTABLE = 1
};

/* nvrtcResult and nvrtcProgram */
typedef unsigned int nvrtc_result; /* enum nvrtcResult */
typedef struct _nvrtcProgram *nvrtc_program;
enum {
    NVRTC_OK = 0,
    NVRTC_ERR_COMPILATION = 6,
    NVRTC_ERR_INTERNAL = 11
};

#endif /* CUDYN_CUDA_ABI_H */
