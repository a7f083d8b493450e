/*
 * nccl_abi.h - the few NCCL types and constants cudyn uses, declared here
 * (no nccl.h is needed to build), as NCCL's nccl.h defines them: its
 * ABI has been stable since 2.0 for everything below.  The mock libnccl
 * (tests/mock/mock_nccl.c) is written against this header too.
 *
 * Names are cudyn's own (nccl_result, NCCL_OK ...), so that this header
 * and a real nccl.h can meet in one translation unit.
 */
#ifndef CUDYN_NCCL_ABI_H
#define CUDYN_NCCL_ABI_H

#include <stddef.h>

/* ncclComm_t, ncclResult_t and the enums, passed as int. */
typedef struct ncclComm *nccl_comm;
typedef int nccl_result;
typedef int nccl_data_type;
typedef int nccl_red_op;
/* cudaStream_t is CUstream: the driver's and the runtime's streams are one. */
typedef struct CUstream_st *nccl_stream;

/* ncclUniqueId: 128 opaque bytes, passed by value. */
#define NCCL_UNIQUE_ID_BYTES 128
typedef struct {
    char internal[NCCL_UNIQUE_ID_BYTES];
} nccl_unique_id;

#define NCCL_OK 0          /* ncclSuccess */
#define NCCL_IN_PROGRESS 7 /* ncclInProgress (2.14+): non-blocking work not finished */

/* ncclResult_t: X(name, value, the cudyn status it becomes). */
#define NCCL_RESULT_MAP(X)                                                                                     \
    X(ncclUnhandledCudaError, 1, CUDYN_ERROR_DRIVER)                                                           \
    X(ncclSystemError, 2, CUDYN_ERROR_SYSTEM)                                                                  \
    X(ncclInternalError, 3, CUDYN_ERROR_NCCL)                                                                  \
    X(ncclInvalidArgument, 4, CUDYN_ERROR_INVALID_ARGUMENT)                                                    \
    X(ncclInvalidUsage, 5, CUDYN_ERROR_NCCL)                                                                   \
    X(ncclRemoteError, 6, CUDYN_ERROR_NCCL_REMOTE)                                                             \
    X(ncclInProgress, 7, CUDYN_ERROR_NOT_READY)                                                                \
    X(ncclTimeout, 8, CUDYN_ERROR_TIMEOUT)

/* ncclDataType_t: X(name, value, bytes of one element). */
#define NCCL_DATA_TYPE_MAP(X)                                                                                  \
    X(ncclInt8, 0, 1)                                                                                          \
    X(ncclUint8, 1, 1)                                                                                         \
    X(ncclInt32, 2, 4)                                                                                         \
    X(ncclUint32, 3, 4)                                                                                        \
    X(ncclInt64, 4, 8)                                                                                         \
    X(ncclUint64, 5, 8)                                                                                        \
    X(ncclFloat16, 6, 2)                                                                                       \
    X(ncclFloat32, 7, 4)                                                                                       \
    X(ncclFloat64, 8, 8)

enum {
#define NCCL_TYPE_ENUM(name, value, bytes) name = value,
    NCCL_DATA_TYPE_MAP(NCCL_TYPE_ENUM)
#undef NCCL_TYPE_ENUM
};

/* ncclRedOp_t: the built-in operations, their values those of cudyn's
 * CUDYN_NCCL_OP_MAP (cudyn.h), which passes them through unchanged.
 * ncclAvg came with NCCL 2.10. */
#define NCCL_AVG 4
#define NCCL_AVG_SINCE 21000

/* NCCL's version code: major*1000 + minor*100 + patch up to 2.8, then
 * major*10000 + minor*100 + patch (nccl.h's NCCL_VERSION). */
#define NCCL_VERSION_CODE(major, minor, patch)                                                                 \
    ((major) <= 2 && (minor) <= 8 ? (major) * 1000 + (minor) * 100 + (patch) : (major) * 10000 + (minor) * 100 + (patch))
static inline int nccl_version_major(int code)
{
    return code < 10000 ? code / 1000 : code / 10000;
}
static inline int nccl_version_minor(int code)
{
    return code < 10000 ? code % 1000 / 100 : code % 10000 / 100;
}
static inline int nccl_version_patch(int code)
{
    return code % 100;
}

#endif
