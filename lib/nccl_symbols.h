/*
 * nccl_symbols.h - the NCCL functions cudyn calls, as data.
 *
 *   NCCL_SYMBOL(name, since, need, returns, params)
 * NCCL exports plain names (no versioned variants); `since` is the first
 * NCCL version code that has the function (nccl_abi.h's
 * NCCL_VERSION_CODE).  REQUIRED rows exist in every NCCL cudyn accepts
 * (2.7 and later: ncclSend and ncclRecv set the minimum); a library that
 * lacks one is refused.  An OPTIONAL row is NULL where the NCCL lacks it:
 * callers ask NCCL_HAS first.  The mock libnccl (tests/mock/nccl/api.c)
 * implements every row; a required row it lacks is a link error.
 */
/* loader/nccl.c calls it through dlsym to vet a candidate, before binding */
NCCL_SYMBOL(ncclGetVersion, 2305, REQUIRED, nccl_result, (int *version))
NCCL_SYMBOL(ncclGetErrorString, 2000, REQUIRED, const char *, (nccl_result result))
NCCL_SYMBOL(ncclGetLastError, 21304, OPTIONAL, const char *, (nccl_comm comm))
NCCL_SYMBOL(ncclGetUniqueId, 2000, REQUIRED, nccl_result, (nccl_unique_id *id))
NCCL_SYMBOL(ncclCommInitRank, 2000, REQUIRED, nccl_result, (nccl_comm *comm, int nranks, nccl_unique_id id, int rank))
NCCL_SYMBOL(ncclCommInitAll, 2000, REQUIRED, nccl_result, (nccl_comm *comms, int ndev, const int *devlist))
NCCL_SYMBOL(ncclCommSplit, 21801, OPTIONAL, nccl_result, (nccl_comm comm, int color, int key, nccl_comm *newcomm, void *config))
NCCL_SYMBOL(ncclCommDestroy, 2000, REQUIRED, nccl_result, (nccl_comm comm))
NCCL_SYMBOL(ncclCommAbort, 2000, REQUIRED, nccl_result, (nccl_comm comm))
NCCL_SYMBOL(ncclCommGetAsyncError, 2402, REQUIRED, nccl_result, (nccl_comm comm, nccl_result *async_error))
NCCL_SYMBOL(ncclCommCount, 2000, REQUIRED, nccl_result, (nccl_comm comm, int *count))
NCCL_SYMBOL(ncclCommCuDevice, 2000, REQUIRED, nccl_result, (nccl_comm comm, int *device))
NCCL_SYMBOL(ncclCommUserRank, 2000, REQUIRED, nccl_result, (nccl_comm comm, int *rank))
NCCL_SYMBOL(ncclAllReduce, 2000, REQUIRED, nccl_result, (const void *sendbuff, void *recvbuff, size_t count, nccl_data_type type, nccl_red_op op, nccl_comm comm, nccl_stream stream))
NCCL_SYMBOL(ncclBroadcast, 2000, REQUIRED, nccl_result, (const void *sendbuff, void *recvbuff, size_t count, nccl_data_type type, int root, nccl_comm comm, nccl_stream stream))
NCCL_SYMBOL(ncclReduce, 2000, REQUIRED, nccl_result, (const void *sendbuff, void *recvbuff, size_t count, nccl_data_type type, nccl_red_op op, int root, nccl_comm comm, nccl_stream stream))
NCCL_SYMBOL(ncclAllGather, 2000, REQUIRED, nccl_result, (const void *sendbuff, void *recvbuff, size_t sendcount, nccl_data_type type, nccl_comm comm, nccl_stream stream))
NCCL_SYMBOL(ncclReduceScatter, 2000, REQUIRED, nccl_result, (const void *sendbuff, void *recvbuff, size_t recvcount, nccl_data_type type, nccl_red_op op, nccl_comm comm, nccl_stream stream))
NCCL_SYMBOL(ncclSend, 2703, REQUIRED, nccl_result, (const void *sendbuff, size_t count, nccl_data_type type, int peer, nccl_comm comm, nccl_stream stream))
NCCL_SYMBOL(ncclRecv, 2703, REQUIRED, nccl_result, (void *recvbuff, size_t count, nccl_data_type type, int peer, nccl_comm comm, nccl_stream stream))
NCCL_SYMBOL(ncclGroupStart, 2000, REQUIRED, nccl_result, (void))
NCCL_SYMBOL(ncclGroupEnd, 2000, REQUIRED, nccl_result, (void))
