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
typedef unsigned int cu_log_iterator;       /* CUlogIterator */

typedef struct CUctx_st *cu_context;
typedef struct CUmod_st *cu_module;
typedef struct CUfunc_st *cu_function;
typedef struct CUstream_st *cu_stream;
typedef struct CUevent_st *cu_event;
typedef struct CUgraph_st *cu_graph;
typedef struct CUgraphNode_st *cu_graph_node;
typedef struct CUgraphExec_st *cu_graph_exec;
typedef struct CUarray_st *cu_array;
typedef struct CUmemPoolHandle_st *cu_mem_pool;
typedef struct CUlinkState_st *cu_link_state;
typedef unsigned long long cu_texobj;       /* CUtexObject */
typedef unsigned long long cu_surfobj;      /* CUsurfObject */
typedef unsigned long long cu_mem_handle;   /* CUmemGenericAllocationHandle */

/* Structs cudyn only passes through by pointer. */
struct CUctxCreateParams_st;
struct CUgraphEdgeData_st;
struct CUDA_RESOURCE_VIEW_DESC_st; /* always NULL: no resource views */

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
#ifndef CUDA_VERSION
/* CUipcMemHandle, CUipcEventHandle and CUmemPoolPtrExportData: 64 opaque
 * bytes each, passed by value (IPC) or by pointer (pool pointers). */
typedef struct CUipcMemHandle_st {
    char reserved[64];
} CUipcMemHandle_v1;
typedef struct CUipcEventHandle_st {
    char reserved[64];
} CUipcEventHandle_v1;
typedef struct CUmemPoolPtrExportData_st {
    unsigned char reserved[64];
} CUmemPoolPtrExportData_v1;
/* CUmemAllocationProp, CUmemAccessDesc, CUmemPoolProps */
typedef struct CUmemAllocationProp_st {
    cu_enum type;                 /* CUmemAllocationType */
    cu_enum requestedHandleTypes; /* CUmemAllocationHandleType */
    struct CUmemLocation_st location;
    void *win32HandleMetaData;
    struct {
        unsigned char compressionType;
        unsigned char gpuDirectRDMACapable;
        unsigned short usage;
        unsigned char reserved[4];
    } allocFlags;
} CUmemAllocationProp_v1;
typedef struct CUmemAccessDesc_st {
    struct CUmemLocation_st location;
    cu_enum flags; /* CUmemAccess_flags */
} CUmemAccessDesc_v1;
typedef struct CUmemPoolProps_st {
    cu_enum allocType;
    cu_enum handleTypes;
    struct CUmemLocation_st location;
    void *win32SecurityAttributes;
    size_t maxSize;
    unsigned short usage;
    unsigned char reserved[54];
} CUmemPoolProps_v1;
#endif
typedef CUipcMemHandle_v1 cu_ipc_mem_handle;
typedef CUipcEventHandle_v1 cu_ipc_event_handle;
typedef CUmemPoolPtrExportData_v1 cu_mem_pool_ptr_export;
typedef CUmemAllocationProp_v1 cu_mem_alloc_prop;
typedef CUmemAccessDesc_v1 cu_mem_access_desc;
typedef CUmemPoolProps_v1 cu_mem_pool_props;
typedef struct CUuuid_st cu_uuid;
typedef struct CUmemLocation_st cu_mem_location;

/* The structs cudyn fills for arrays, copies, texture and surface objects,
 * extended launches and graph updates, under CUDA's own tags, with CUDA's
 * member names so the cross-check can compare every offset.  Enum members
 * are cu_enum (CUDA's enums are int-sized). */
#ifndef CUDA_VERSION
struct CUDA_ARRAY3D_DESCRIPTOR_st {
    size_t Width, Height, Depth;
    cu_enum Format; /* CUarray_format */
    unsigned int NumChannels;
    unsigned int Flags;
};
struct CUDA_MEMCPY2D_st {
    size_t srcXInBytes, srcY;
    cu_enum srcMemoryType; /* CUmemorytype */
    const void *srcHost;
    cu_deviceptr srcDevice;
    cu_array srcArray;
    size_t srcPitch;
    size_t dstXInBytes, dstY;
    cu_enum dstMemoryType;
    void *dstHost;
    cu_deviceptr dstDevice;
    cu_array dstArray;
    size_t dstPitch;
    size_t WidthInBytes, Height;
};
struct CUDA_MEMCPY3D_st {
    size_t srcXInBytes, srcY, srcZ, srcLOD;
    cu_enum srcMemoryType;
    const void *srcHost;
    cu_deviceptr srcDevice;
    cu_array srcArray;
    void *reserved0;
    size_t srcPitch, srcHeight;
    size_t dstXInBytes, dstY, dstZ, dstLOD;
    cu_enum dstMemoryType;
    void *dstHost;
    cu_deviceptr dstDevice;
    cu_array dstArray;
    void *reserved1;
    size_t dstPitch, dstHeight;
    size_t WidthInBytes, Height, Depth;
};
struct CUDA_RESOURCE_DESC_st {
    cu_enum resType; /* CUresourcetype */
    union {
        struct {
            cu_array hArray;
        } array;
        struct {
            cu_deviceptr devPtr;
            cu_enum format;
            unsigned int numChannels;
            size_t sizeInBytes;
        } linear;
        struct {
            cu_deviceptr devPtr;
            cu_enum format;
            unsigned int numChannels;
            size_t width, height, pitchInBytes;
        } pitch2D;
        struct {
            int reserved[32];
        } reserved;
    } res;
    unsigned int flags;
};
struct CUDA_TEXTURE_DESC_st {
    cu_enum addressMode[3]; /* CUaddress_mode */
    cu_enum filterMode;     /* CUfilter_mode */
    unsigned int flags;     /* CU_TRSF_* */
    unsigned int maxAnisotropy;
    cu_enum mipmapFilterMode;
    float mipmapLevelBias, minMipmapLevelClamp, maxMipmapLevelClamp;
    float borderColor[4];
    int reserved[12];
};
/* CUlaunchAttributeValue: a 64-byte union; cudyn sets three members. */
union CUlaunchAttributeValue_union {
    char pad[64];
    int cooperative;
    struct {
        unsigned int x, y, z;
    } clusterDim;
    int priority;
};
struct CUlaunchAttribute_st {
    cu_enum id; /* CUlaunchAttributeID */
    char pad[8 - sizeof(cu_enum)];
    union CUlaunchAttributeValue_union value;
};
struct CUlaunchConfig_st {
    unsigned int gridDimX, gridDimY, gridDimZ;
    unsigned int blockDimX, blockDimY, blockDimZ;
    unsigned int sharedMemBytes;
    cu_stream hStream;
    struct CUlaunchAttribute_st *attrs;
    unsigned int numAttrs;
};
struct CUgraphExecUpdateResultInfo_st {
    cu_enum result; /* CUgraphExecUpdateResult */
    cu_graph_node errorNode, errorFromNode;
};
#endif
typedef struct CUDA_ARRAY3D_DESCRIPTOR_st cu_array3d_desc;
typedef struct CUDA_MEMCPY2D_st cu_memcpy2d;
typedef struct CUDA_MEMCPY3D_st cu_memcpy3d;
typedef struct CUDA_RESOURCE_DESC_st cu_resource_desc;
typedef struct CUDA_TEXTURE_DESC_st cu_texture_desc;
typedef struct CUlaunchAttribute_st cu_launch_attribute;
typedef struct CUlaunchConfig_st cu_launch_config;
typedef struct CUgraphExecUpdateResultInfo_st cu_graph_update_info;

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
    CU_ERR_ALREADY_MAPPED = 208,
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
    CU_ERR_COOPERATIVE_LAUNCH_TOO_LARGE = 720,
    CU_ERR_NOT_SUPPORTED = 801,
    CU_ERR_SYSTEM_DRIVER_MISMATCH = 803,
    CU_ERR_COMPAT_NOT_SUPPORTED = 804,
    CU_ERR_STREAM_CAPTURE_UNSUPPORTED = 900,
    CU_ERR_STREAM_CAPTURE_INVALIDATED = 901,
    CU_ERR_GRAPH_EXEC_UPDATE_FAILURE = 910,
    CU_ERR_UNKNOWN = 999
};

/* CUjit_option */
enum {
    CU_JITOPT_MAX_REGISTERS = 0,
    CU_JITOPT_INFO_LOG_BUFFER = 3,
    CU_JITOPT_INFO_LOG_BUFFER_SIZE_BYTES = 4,
    CU_JITOPT_ERROR_LOG_BUFFER = 5,
    CU_JITOPT_ERROR_LOG_BUFFER_SIZE_BYTES = 6,
    CU_JITOPT_OPTIMIZATION_LEVEL = 7,
    CU_JITOPT_TARGET = 9,
    CU_JITOPT_GENERATE_DEBUG_INFO = 11,
    CU_JITOPT_LOG_VERBOSE = 12,
    CU_JITOPT_GENERATE_LINE_INFO = 13
};

/* CUjitInputType */
enum {
    CU_JITIN_CUBIN = 0,
    CU_JITIN_PTX = 1,
    CU_JITIN_FATBINARY = 2,
    CU_JITIN_OBJECT = 3,
    CU_JITIN_LIBRARY = 4
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

/* CUarray_format, as data: X(CUDA's name without CU_AD_FORMAT_, value,
 * bytes per channel, 1 if it holds floating point).  The formats cudyn's
 * arrays and textures offer. */
#define CU_ARRAY_FORMAT_MAP(X)    \
    X(UNSIGNED_INT8, 0x01, 1, 0)  \
    X(UNSIGNED_INT16, 0x02, 2, 0) \
    X(UNSIGNED_INT32, 0x03, 4, 0) \
    X(SIGNED_INT8, 0x08, 1, 0)    \
    X(SIGNED_INT16, 0x09, 2, 0)   \
    X(SIGNED_INT32, 0x0a, 4, 0)   \
    X(HALF, 0x10, 2, 1)           \
    X(FLOAT, 0x20, 4, 1)
enum {
#define CU_FORMAT_ENUM_(name, value, bytes, is_float) CU_FORMAT_##name = value,
    CU_ARRAY_FORMAT_MAP(CU_FORMAT_ENUM_)
#undef CU_FORMAT_ENUM_
};

/* CUmemorytype, CUresourcetype, CUaddress_mode, CUfilter_mode, texture
 * flags (CU_TRSF_*) and array flags (CUDA_ARRAY3D_*) */
enum {
    CU_MEMTYPE_HOST = 1,
    CU_MEMTYPE_DEVICE = 2,
    CU_MEMTYPE_ARRAY = 3,
    CU_RESTYPE_ARRAY = 0,
    CU_RESTYPE_LINEAR = 2,
    CU_RESTYPE_PITCH2D = 3,
    CU_ADDRESS_WRAP = 0,
    CU_ADDRESS_CLAMP = 1,
    CU_ADDRESS_MIRROR = 2,
    CU_ADDRESS_BORDER = 3,
    CU_FILTER_POINT = 0,
    CU_FILTER_LINEAR = 1,
    CU_TEXFLAG_READ_AS_INTEGER = 1,
    CU_TEXFLAG_NORMALIZED_COORDINATES = 2,
    CU_ARRAYFLAG_LAYERED = 1,
    CU_ARRAYFLAG_SURFACE_LDST = 2,
    CU_ARRAYFLAG_TEXTURE_GATHER = 8
};

/* CUlaunchAttributeID, CUstreamCaptureStatus, CUgraphExecUpdateResult,
 * CUmemPool_attribute, CUmemLocationType, CUpointer_attribute and
 * CU_DEVICE_CPU (the host as a device, for the v1 prefetch and advice) */
enum {
    CU_LAUNCH_ATTR_COOPERATIVE = 2,
    CU_LAUNCH_ATTR_CLUSTER_DIMENSION = 4,
    CU_LAUNCH_ATTR_PRIORITY = 8,
    CU_CAPTURE_STATUS_NONE = 0,
    CU_CAPTURE_STATUS_ACTIVE = 1,
    CU_CAPTURE_STATUS_INVALIDATED = 2,
    CU_GRAPH_UPDATE_SUCCESS = 0,
    CU_MEMPOOL_RELEASE_THRESHOLD = 4,
    CU_MEMPOOL_RESERVED_MEM_CURRENT = 5,
    CU_MEMPOOL_RESERVED_MEM_HIGH = 6,
    CU_MEMPOOL_USED_MEM_CURRENT = 7,
    CU_MEMPOOL_USED_MEM_HIGH = 8,
    CU_MEMLOC_DEVICE = 1,
    CU_MEMLOC_HOST = 2,
    CU_POINTER_ATTR_MEMORY_TYPE = 2,
    CU_POINTER_ATTR_IS_MANAGED = 8,
    CU_POINTER_ATTR_DEVICE_ORDINAL = 9,
    CU_POINTER_ATTR_RANGE_START_ADDR = 11,
    CU_POINTER_ATTR_RANGE_SIZE = 12,
    CU_DEVICE_HOST = -1
};

/* Stream, event and host-allocation flags */
enum {
    CU_STREAM_FLAG_NON_BLOCKING = 1,
    CU_EVENT_FLAG_BLOCKING_SYNC = 1,
    CU_EVENT_FLAG_DISABLE_TIMING = 2,
    CU_HOSTALLOC_PORTABLE = 1,
    CU_EVENT_FLAG_INTERPROCESS = 4
};

/* IPC and virtual memory: CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS,
 * CUmemAllocationType, CUmemAllocationHandleType, CUmemAccess_flags,
 * CUmemAllocationGranularity_flags */
enum {
    CU_IPC_LAZY_PEER_ACCESS = 1,
    CU_MEM_ALLOCATION_PINNED = 1,
    CU_MEM_HANDLE_NONE = 0,
    CU_MEM_HANDLE_POSIX_FD = 1,
    CU_MEM_ACCESS_READWRITE = 3,
    CU_MEM_GRANULARITY_MINIMUM = 0,
    CU_MEM_GRANULARITY_RECOMMENDED = 1
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
