/*
 * driver_symbols.h - the driver symbol table, as data.
 *
 * One row per (function, ABI version):
 *   DRIVER_SYMBOL(exported, base, abi_version, stream, need, params)
 * exported     the exact name the driver exports for this variant; also the
 *              slot's name in the dispatch table
 * base         the name cuGetProcAddress is asked for
 * abi_version  the CUDA version whose declaration `params` matches; it is
 *              what cuGetProcAddress is given, and rows newer than the
 *              driver are never requested
 * stream       NOSTREAM, or PTDS / PTSZ when the driver has a per-thread
 *              default-stream twin named exported_ptds / exported_ptsz
 * need         REQUIRED (cudyn cannot work without it; all exist since
 *              CUDA 7) or OPTIONAL (a stub answers "symbol not found")
 *
 * A function whose signature changed has one row per variant, newest
 * first; the library's adapters call the newest one the driver has.
 * tests/check_cuda_abi.c compares every row with PFN_<base>_v<abi_version>
 * from the real cudaTypedefs.h when configure finds CUDA headers.
 */

/* ---- initialisation and errors ---- */
DRIVER_SYMBOL(cuInit, cuInit, 2000, NOSTREAM, REQUIRED, (unsigned int flags))
/* load_driver.c calls it through dlsym, before binding (the version decides
 * which rows are requested), with this row's checked prototype */
DRIVER_SYMBOL(cuDriverGetVersion, cuDriverGetVersion, 2020, NOSTREAM, REQUIRED, (int *version))
DRIVER_SYMBOL(cuGetErrorString, cuGetErrorString, 6000, NOSTREAM, OPTIONAL, (cu_result error, const char **str))

/* ---- the driver's own error log (CUDA 12.9+), read on failure paths only ---- */
DRIVER_SYMBOL(cuLogsCurrent, cuLogsCurrent, 12090, NOSTREAM, OPTIONAL, (cu_log_iterator *iterator, unsigned int flags))
DRIVER_SYMBOL(cuLogsDumpToMemory, cuLogsDumpToMemory, 12090, NOSTREAM, OPTIONAL, (cu_log_iterator *iterator, char *buffer, size_t *size, unsigned int flags))

/* ---- devices ---- */
DRIVER_SYMBOL(cuDeviceGet, cuDeviceGet, 2000, NOSTREAM, REQUIRED, (cu_device *device, int ordinal))
DRIVER_SYMBOL(cuDeviceGetCount, cuDeviceGetCount, 2000, NOSTREAM, REQUIRED, (int *count))
DRIVER_SYMBOL(cuDeviceGetName, cuDeviceGetName, 2000, NOSTREAM, REQUIRED, (char *name, int len, cu_device dev))
DRIVER_SYMBOL(cuDeviceGetUuid_v2, cuDeviceGetUuid, 11040, NOSTREAM, OPTIONAL, (cu_uuid *uuid, cu_device dev))
DRIVER_SYMBOL(cuDeviceGetUuid, cuDeviceGetUuid, 9020, NOSTREAM, OPTIONAL, (cu_uuid *uuid, cu_device dev))
DRIVER_SYMBOL(cuDeviceTotalMem_v2, cuDeviceTotalMem, 3020, NOSTREAM, REQUIRED, (size_t *bytes, cu_device dev))
DRIVER_SYMBOL(cuDeviceGetAttribute, cuDeviceGetAttribute, 2000, NOSTREAM, REQUIRED, (int *value, cu_enum attrib, cu_device dev))
DRIVER_SYMBOL(cuDeviceGetPCIBusId, cuDeviceGetPCIBusId, 4010, NOSTREAM, OPTIONAL, (char *bus_id, int len, cu_device dev))
DRIVER_SYMBOL(cuDeviceCanAccessPeer, cuDeviceCanAccessPeer, 4000, NOSTREAM, OPTIONAL, (int *can_access, cu_device dev, cu_device peer))
DRIVER_SYMBOL(cuDeviceGetP2PAttribute, cuDeviceGetP2PAttribute, 8000, NOSTREAM, OPTIONAL, (int *value, cu_enum attrib, cu_device src, cu_device dst))

/* ---- primary contexts ---- */
DRIVER_SYMBOL(cuDevicePrimaryCtxRetain, cuDevicePrimaryCtxRetain, 7000, NOSTREAM, REQUIRED, (cu_context *ctx, cu_device dev))
DRIVER_SYMBOL(cuDevicePrimaryCtxRelease_v2, cuDevicePrimaryCtxRelease, 11000, NOSTREAM, OPTIONAL, (cu_device dev))
DRIVER_SYMBOL(cuDevicePrimaryCtxRelease, cuDevicePrimaryCtxRelease, 7000, NOSTREAM, OPTIONAL, (cu_device dev))
DRIVER_SYMBOL(cuDevicePrimaryCtxReset_v2, cuDevicePrimaryCtxReset, 11000, NOSTREAM, OPTIONAL, (cu_device dev))
DRIVER_SYMBOL(cuDevicePrimaryCtxReset, cuDevicePrimaryCtxReset, 7000, NOSTREAM, OPTIONAL, (cu_device dev))
DRIVER_SYMBOL(cuDevicePrimaryCtxGetState, cuDevicePrimaryCtxGetState, 7000, NOSTREAM, OPTIONAL, (cu_device dev, unsigned int *flags, int *active))

/* ---- contexts ---- */
DRIVER_SYMBOL(cuCtxGetCurrent, cuCtxGetCurrent, 4000, NOSTREAM, REQUIRED, (cu_context *ctx))
DRIVER_SYMBOL(cuCtxSetCurrent, cuCtxSetCurrent, 4000, NOSTREAM, REQUIRED, (cu_context ctx))
DRIVER_SYMBOL(cuCtxGetDevice, cuCtxGetDevice, 2000, NOSTREAM, REQUIRED, (cu_device *device))
DRIVER_SYMBOL(cuCtxSynchronize, cuCtxSynchronize, 2000, NOSTREAM, REQUIRED, (void))
DRIVER_SYMBOL(cuCtxEnablePeerAccess, cuCtxEnablePeerAccess, 4000, NOSTREAM, OPTIONAL, (cu_context peer, unsigned int flags))
DRIVER_SYMBOL(cuCtxDisablePeerAccess, cuCtxDisablePeerAccess, 4000, NOSTREAM, OPTIONAL, (cu_context peer))

/* ---- contexts cudyn does not make (it uses primary contexts) ----
 * Not called by cudyn: these rows are here for cudyn_driver_proc() and
 * cudyn_has().  Without cuGetProcAddress (drivers before 11.3) the rows map
 * a request for cuCtxCreate & co. to the right versioned export
 * (cuCtxCreate_v2, not the CUDA 2.0 cuCtxCreate of another signature), and
 * cudyn_has() answers for the exported names (cuCtxCreate_v4) only through
 * them. */
DRIVER_SYMBOL(cuCtxCreate_v4, cuCtxCreate, 12050, NOSTREAM, OPTIONAL, (cu_context *ctx, struct CUctxCreateParams_st *params, unsigned int flags, cu_device dev))
DRIVER_SYMBOL(cuCtxCreate_v2, cuCtxCreate, 3020, NOSTREAM, OPTIONAL, (cu_context *ctx, unsigned int flags, cu_device dev))
DRIVER_SYMBOL(cuCtxDestroy_v2, cuCtxDestroy, 4000, NOSTREAM, OPTIONAL, (cu_context ctx))
DRIVER_SYMBOL(cuCtxPushCurrent_v2, cuCtxPushCurrent, 4000, NOSTREAM, OPTIONAL, (cu_context ctx))
DRIVER_SYMBOL(cuCtxPopCurrent_v2, cuCtxPopCurrent, 4000, NOSTREAM, OPTIONAL, (cu_context *ctx))

/* ---- memory ---- */
DRIVER_SYMBOL(cuMemAlloc_v2, cuMemAlloc, 3020, NOSTREAM, REQUIRED, (cu_deviceptr *ptr, size_t bytes))
DRIVER_SYMBOL(cuMemFree_v2, cuMemFree, 3020, NOSTREAM, REQUIRED, (cu_deviceptr ptr))
DRIVER_SYMBOL(cuMemHostAlloc, cuMemHostAlloc, 2020, NOSTREAM, OPTIONAL, (void **ptr, size_t bytes, unsigned int flags))
DRIVER_SYMBOL(cuMemFreeHost, cuMemFreeHost, 2000, NOSTREAM, OPTIONAL, (void *ptr))
DRIVER_SYMBOL(cuMemGetInfo_v2, cuMemGetInfo, 3020, NOSTREAM, OPTIONAL, (size_t *free_bytes, size_t *total_bytes))
DRIVER_SYMBOL(cuMemcpyHtoD_v2, cuMemcpyHtoD, 3020, PTDS, REQUIRED, (cu_deviceptr dst, const void *src, size_t bytes))
DRIVER_SYMBOL(cuMemcpyDtoH_v2, cuMemcpyDtoH, 3020, PTDS, REQUIRED, (void *dst, cu_deviceptr src, size_t bytes))
DRIVER_SYMBOL(cuMemcpyDtoD_v2, cuMemcpyDtoD, 3020, PTDS, OPTIONAL, (cu_deviceptr dst, cu_deviceptr src, size_t bytes))
DRIVER_SYMBOL(cuMemcpyHtoDAsync_v2, cuMemcpyHtoDAsync, 3020, PTSZ, OPTIONAL, (cu_deviceptr dst, const void *src, size_t bytes, cu_stream stream))
DRIVER_SYMBOL(cuMemcpyDtoHAsync_v2, cuMemcpyDtoHAsync, 3020, PTSZ, OPTIONAL, (void *dst, cu_deviceptr src, size_t bytes, cu_stream stream))
DRIVER_SYMBOL(cuMemcpyDtoDAsync_v2, cuMemcpyDtoDAsync, 3020, PTSZ, OPTIONAL, (cu_deviceptr dst, cu_deviceptr src, size_t bytes, cu_stream stream))
DRIVER_SYMBOL(cuMemsetD8_v2, cuMemsetD8, 3020, PTDS, OPTIONAL, (cu_deviceptr dst, unsigned char value, size_t count))
DRIVER_SYMBOL(cuMemsetD16_v2, cuMemsetD16, 3020, PTDS, OPTIONAL, (cu_deviceptr dst, unsigned short value, size_t count))
DRIVER_SYMBOL(cuMemsetD32_v2, cuMemsetD32, 3020, PTDS, OPTIONAL, (cu_deviceptr dst, unsigned int value, size_t count))
DRIVER_SYMBOL(cuMemsetD32Async, cuMemsetD32Async, 3020, PTSZ, OPTIONAL, (cu_deviceptr dst, unsigned int value, size_t count, cu_stream stream))
DRIVER_SYMBOL(cuMemPrefetchAsync_v2, cuMemPrefetchAsync, 12020, PTSZ, OPTIONAL, (cu_deviceptr ptr, size_t bytes, cu_mem_location location, unsigned int flags, cu_stream stream))
DRIVER_SYMBOL(cuMemPrefetchAsync, cuMemPrefetchAsync, 8000, PTSZ, OPTIONAL, (cu_deviceptr ptr, size_t bytes, cu_device dst, cu_stream stream))
DRIVER_SYMBOL(cuMemAdvise_v2, cuMemAdvise, 12020, NOSTREAM, OPTIONAL, (cu_deviceptr ptr, size_t bytes, cu_enum advice, cu_mem_location location))
DRIVER_SYMBOL(cuMemAdvise, cuMemAdvise, 8000, NOSTREAM, OPTIONAL, (cu_deviceptr ptr, size_t bytes, cu_enum advice, cu_device dev))
DRIVER_SYMBOL(cuPointerGetAttributes, cuPointerGetAttributes, 7000, NOSTREAM, OPTIONAL, (unsigned int count, cu_enum *attributes, void **data, cu_deviceptr ptr))
DRIVER_SYMBOL(cuMemAllocManaged, cuMemAllocManaged, 6000, NOSTREAM, OPTIONAL, (cu_deviceptr *ptr, size_t bytes, unsigned int flags))
DRIVER_SYMBOL(cuMemAllocPitch_v2, cuMemAllocPitch, 3020, NOSTREAM, OPTIONAL, (cu_deviceptr *ptr, size_t *pitch, size_t width_bytes, size_t height, unsigned int element_bytes))
DRIVER_SYMBOL(cuMemcpy2D_v2, cuMemcpy2D, 3020, PTDS, OPTIONAL, (const cu_memcpy2d *copy))
DRIVER_SYMBOL(cuMemcpy2DAsync_v2, cuMemcpy2DAsync, 3020, PTSZ, OPTIONAL, (const cu_memcpy2d *copy, cu_stream stream))
DRIVER_SYMBOL(cuMemcpy3D_v2, cuMemcpy3D, 3020, PTDS, OPTIONAL, (const cu_memcpy3d *copy))
DRIVER_SYMBOL(cuMemcpy3DAsync_v2, cuMemcpy3DAsync, 3020, PTSZ, OPTIONAL, (const cu_memcpy3d *copy, cu_stream stream))

/* ---- stream-ordered memory and pools ---- */
DRIVER_SYMBOL(cuMemAllocAsync, cuMemAllocAsync, 11020, PTSZ, OPTIONAL, (cu_deviceptr *ptr, size_t bytes, cu_stream stream))
DRIVER_SYMBOL(cuMemFreeAsync, cuMemFreeAsync, 11020, PTSZ, OPTIONAL, (cu_deviceptr ptr, cu_stream stream))
DRIVER_SYMBOL(cuDeviceGetDefaultMemPool, cuDeviceGetDefaultMemPool, 11020, NOSTREAM, OPTIONAL, (cu_mem_pool *pool, cu_device dev))
DRIVER_SYMBOL(cuMemPoolSetAttribute, cuMemPoolSetAttribute, 11020, NOSTREAM, OPTIONAL, (cu_mem_pool pool, cu_enum attribute, void *value))
DRIVER_SYMBOL(cuMemPoolGetAttribute, cuMemPoolGetAttribute, 11020, NOSTREAM, OPTIONAL, (cu_mem_pool pool, cu_enum attribute, void *value))
DRIVER_SYMBOL(cuMemPoolTrimTo, cuMemPoolTrimTo, 11020, NOSTREAM, OPTIONAL, (cu_mem_pool pool, size_t keep_bytes))

/* ---- pools that other processes can import (api/ipc.c) ---- */
DRIVER_SYMBOL(cuMemPoolCreate, cuMemPoolCreate, 11020, NOSTREAM, OPTIONAL, (cu_mem_pool *pool, const cu_mem_pool_props *props))
DRIVER_SYMBOL(cuMemPoolDestroy, cuMemPoolDestroy, 11020, NOSTREAM, OPTIONAL, (cu_mem_pool pool))
DRIVER_SYMBOL(cuMemAllocFromPoolAsync, cuMemAllocFromPoolAsync, 11020, PTSZ, OPTIONAL, (cu_deviceptr *ptr, size_t bytes, cu_mem_pool pool, cu_stream stream))
DRIVER_SYMBOL(cuMemPoolSetAccess, cuMemPoolSetAccess, 11020, NOSTREAM, OPTIONAL, (cu_mem_pool pool, const cu_mem_access_desc *map, size_t count))
DRIVER_SYMBOL(cuMemPoolExportToShareableHandle, cuMemPoolExportToShareableHandle, 11020, NOSTREAM, OPTIONAL, (void *handle, cu_mem_pool pool, cu_enum handle_type, unsigned long long flags))
DRIVER_SYMBOL(cuMemPoolImportFromShareableHandle, cuMemPoolImportFromShareableHandle, 11020, NOSTREAM, OPTIONAL, (cu_mem_pool *pool, void *handle, cu_enum handle_type, unsigned long long flags))
DRIVER_SYMBOL(cuMemPoolExportPointer, cuMemPoolExportPointer, 11020, NOSTREAM, OPTIONAL, (cu_mem_pool_ptr_export *data, cu_deviceptr ptr))
DRIVER_SYMBOL(cuMemPoolImportPointer, cuMemPoolImportPointer, 11020, NOSTREAM, OPTIONAL, (cu_deviceptr *ptr, cu_mem_pool pool, cu_mem_pool_ptr_export *data))

/* ---- CUDA IPC: memory and event handles (api/ipc.c) ---- */
DRIVER_SYMBOL(cuIpcGetMemHandle, cuIpcGetMemHandle, 4010, NOSTREAM, OPTIONAL, (cu_ipc_mem_handle *handle, cu_deviceptr ptr))
DRIVER_SYMBOL(cuIpcOpenMemHandle_v2, cuIpcOpenMemHandle, 11000, NOSTREAM, OPTIONAL, (cu_deviceptr *ptr, cu_ipc_mem_handle handle, unsigned int flags))
DRIVER_SYMBOL(cuIpcCloseMemHandle, cuIpcCloseMemHandle, 4010, NOSTREAM, OPTIONAL, (cu_deviceptr ptr))
DRIVER_SYMBOL(cuIpcGetEventHandle, cuIpcGetEventHandle, 4010, NOSTREAM, OPTIONAL, (cu_ipc_event_handle *handle, cu_event event))
DRIVER_SYMBOL(cuIpcOpenEventHandle, cuIpcOpenEventHandle, 4010, NOSTREAM, OPTIONAL, (cu_event *event, cu_ipc_event_handle handle))

/* ---- virtual memory management (api/vmm.c) ---- */
DRIVER_SYMBOL(cuMemGetAllocationGranularity, cuMemGetAllocationGranularity, 10020, NOSTREAM, OPTIONAL, (size_t *granularity, const cu_mem_alloc_prop *prop, cu_enum option))
DRIVER_SYMBOL(cuMemAddressReserve, cuMemAddressReserve, 10020, NOSTREAM, OPTIONAL, (cu_deviceptr *ptr, size_t bytes, size_t alignment, cu_deviceptr addr, unsigned long long flags))
DRIVER_SYMBOL(cuMemAddressFree, cuMemAddressFree, 10020, NOSTREAM, OPTIONAL, (cu_deviceptr ptr, size_t bytes))
DRIVER_SYMBOL(cuMemCreate, cuMemCreate, 10020, NOSTREAM, OPTIONAL, (cu_mem_handle *handle, size_t bytes, const cu_mem_alloc_prop *prop, unsigned long long flags))
DRIVER_SYMBOL(cuMemRelease, cuMemRelease, 10020, NOSTREAM, OPTIONAL, (cu_mem_handle handle))
DRIVER_SYMBOL(cuMemMap, cuMemMap, 10020, NOSTREAM, OPTIONAL, (cu_deviceptr ptr, size_t bytes, size_t offset, cu_mem_handle handle, unsigned long long flags))
DRIVER_SYMBOL(cuMemUnmap, cuMemUnmap, 10020, NOSTREAM, OPTIONAL, (cu_deviceptr ptr, size_t bytes))
DRIVER_SYMBOL(cuMemSetAccess, cuMemSetAccess, 10020, NOSTREAM, OPTIONAL, (cu_deviceptr ptr, size_t bytes, const cu_mem_access_desc *desc, size_t count))
DRIVER_SYMBOL(cuMemExportToShareableHandle, cuMemExportToShareableHandle, 10020, NOSTREAM, OPTIONAL, (void *handle, cu_mem_handle alloc, cu_enum handle_type, unsigned long long flags))
DRIVER_SYMBOL(cuMemImportFromShareableHandle, cuMemImportFromShareableHandle, 10020, NOSTREAM, OPTIONAL, (cu_mem_handle *alloc, void *handle, cu_enum handle_type))

/* ---- arrays, texture and surface objects ---- */
DRIVER_SYMBOL(cuArray3DCreate_v2, cuArray3DCreate, 3020, NOSTREAM, OPTIONAL, (cu_array *array, const cu_array3d_desc *desc))
DRIVER_SYMBOL(cuArray3DGetDescriptor_v2, cuArray3DGetDescriptor, 3020, NOSTREAM, OPTIONAL, (cu_array3d_desc *desc, cu_array array))
DRIVER_SYMBOL(cuArrayDestroy, cuArrayDestroy, 2000, NOSTREAM, OPTIONAL, (cu_array array))
DRIVER_SYMBOL(cuTexObjectCreate, cuTexObjectCreate, 5000, NOSTREAM, OPTIONAL, (cu_texobj *tex, const cu_resource_desc *resource, const cu_texture_desc *desc, const struct CUDA_RESOURCE_VIEW_DESC_st *view))
DRIVER_SYMBOL(cuTexObjectDestroy, cuTexObjectDestroy, 5000, NOSTREAM, OPTIONAL, (cu_texobj tex))
DRIVER_SYMBOL(cuSurfObjectCreate, cuSurfObjectCreate, 5000, NOSTREAM, OPTIONAL, (cu_surfobj *surf, const cu_resource_desc *resource))
DRIVER_SYMBOL(cuSurfObjectDestroy, cuSurfObjectDestroy, 5000, NOSTREAM, OPTIONAL, (cu_surfobj surf))

/* ---- streams ---- */
DRIVER_SYMBOL(cuStreamCreate, cuStreamCreate, 2000, NOSTREAM, OPTIONAL, (cu_stream *stream, unsigned int flags))
DRIVER_SYMBOL(cuStreamDestroy_v2, cuStreamDestroy, 4000, NOSTREAM, OPTIONAL, (cu_stream stream))
DRIVER_SYMBOL(cuStreamSynchronize, cuStreamSynchronize, 2000, PTSZ, OPTIONAL, (cu_stream stream))
DRIVER_SYMBOL(cuStreamQuery, cuStreamQuery, 2000, PTSZ, OPTIONAL, (cu_stream stream))
DRIVER_SYMBOL(cuStreamWaitEvent, cuStreamWaitEvent, 3020, PTSZ, OPTIONAL, (cu_stream stream, cu_event event, unsigned int flags))
DRIVER_SYMBOL(cuStreamGetCtx, cuStreamGetCtx, 9020, PTSZ, OPTIONAL, (cu_stream stream, cu_context *ctx))
DRIVER_SYMBOL(cuStreamGetCaptureInfo_v3, cuStreamGetCaptureInfo, 12030, PTSZ, OPTIONAL, (cu_stream stream, cu_enum *status, cu_uint64 *id, cu_graph *graph, const cu_graph_node **deps, const struct CUgraphEdgeData_st **edges, size_t *num_deps))
DRIVER_SYMBOL(cuStreamGetCaptureInfo_v2, cuStreamGetCaptureInfo, 11030, PTSZ, OPTIONAL, (cu_stream stream, cu_enum *status, cu_uint64 *id, cu_graph *graph, const cu_graph_node **deps, size_t *num_deps))

/* ---- graphs: stream capture, instantiation, launch, update ---- */
DRIVER_SYMBOL(cuStreamBeginCapture_v2, cuStreamBeginCapture, 10010, PTSZ, OPTIONAL, (cu_stream stream, cu_enum mode))
DRIVER_SYMBOL(cuStreamEndCapture, cuStreamEndCapture, 10000, PTSZ, OPTIONAL, (cu_stream stream, cu_graph *graph))
DRIVER_SYMBOL(cuGraphInstantiateWithFlags, cuGraphInstantiateWithFlags, 11040, NOSTREAM, OPTIONAL, (cu_graph_exec *exec, cu_graph graph, unsigned long long flags))
DRIVER_SYMBOL(cuGraphLaunch, cuGraphLaunch, 10000, PTSZ, OPTIONAL, (cu_graph_exec exec, cu_stream stream))
DRIVER_SYMBOL(cuGraphExecUpdate_v2, cuGraphExecUpdate, 12000, NOSTREAM, OPTIONAL, (cu_graph_exec exec, cu_graph graph, cu_graph_update_info *info))
DRIVER_SYMBOL(cuGraphExecUpdate, cuGraphExecUpdate, 10020, NOSTREAM, OPTIONAL, (cu_graph_exec exec, cu_graph graph, cu_graph_node *error_node, cu_enum *result))
DRIVER_SYMBOL(cuGraphExecDestroy, cuGraphExecDestroy, 10000, NOSTREAM, OPTIONAL, (cu_graph_exec exec))
DRIVER_SYMBOL(cuGraphDestroy, cuGraphDestroy, 10000, NOSTREAM, OPTIONAL, (cu_graph graph))

/* ---- events ---- */
DRIVER_SYMBOL(cuEventCreate, cuEventCreate, 2000, NOSTREAM, OPTIONAL, (cu_event *event, unsigned int flags))
DRIVER_SYMBOL(cuEventRecord, cuEventRecord, 2000, PTSZ, OPTIONAL, (cu_event event, cu_stream stream))
DRIVER_SYMBOL(cuEventSynchronize, cuEventSynchronize, 2000, NOSTREAM, OPTIONAL, (cu_event event))
DRIVER_SYMBOL(cuEventQuery, cuEventQuery, 2000, NOSTREAM, OPTIONAL, (cu_event event))
DRIVER_SYMBOL(cuEventElapsedTime_v2, cuEventElapsedTime, 12080, NOSTREAM, OPTIONAL, (float *ms, cu_event start, cu_event end))
DRIVER_SYMBOL(cuEventElapsedTime, cuEventElapsedTime, 2000, NOSTREAM, OPTIONAL, (float *ms, cu_event start, cu_event end))
DRIVER_SYMBOL(cuEventDestroy_v2, cuEventDestroy, 4000, NOSTREAM, OPTIONAL, (cu_event event))

/* ---- modules ---- */
DRIVER_SYMBOL(cuModuleLoadData, cuModuleLoadData, 2000, NOSTREAM, REQUIRED, (cu_module *mod, const void *image))
DRIVER_SYMBOL(cuModuleLoadDataEx, cuModuleLoadDataEx, 2010, NOSTREAM, OPTIONAL, (cu_module *mod, const void *image, unsigned int num_options, cu_enum *options, void **values))
DRIVER_SYMBOL(cuModuleGetFunction, cuModuleGetFunction, 2000, NOSTREAM, REQUIRED, (cu_function *fn, cu_module mod, const char *name))
DRIVER_SYMBOL(cuModuleGetGlobal_v2, cuModuleGetGlobal, 3020, NOSTREAM, OPTIONAL, (cu_deviceptr *ptr, size_t *bytes, cu_module mod, const char *name))
DRIVER_SYMBOL(cuModuleUnload, cuModuleUnload, 2000, NOSTREAM, OPTIONAL, (cu_module mod))
/* no caller in the library: cudainfo reads it through cudyn_driver_proc */
DRIVER_SYMBOL(cuModuleGetLoadingMode, cuModuleGetLoadingMode, 11070, NOSTREAM, OPTIONAL, (cu_enum *mode))

/* ---- the driver's linker: cudyn_link_* when there is no nvJitLink ---- */
DRIVER_SYMBOL(cuLinkCreate_v2, cuLinkCreate, 6050, NOSTREAM, OPTIONAL, (unsigned int num_options, cu_enum *options, void **values, cu_link_state *state))
DRIVER_SYMBOL(cuLinkAddData_v2, cuLinkAddData, 6050, NOSTREAM, OPTIONAL, (cu_link_state state, cu_enum type, void *data, size_t size, const char *name, unsigned int num_options, cu_enum *options, void **values))
DRIVER_SYMBOL(cuLinkComplete, cuLinkComplete, 5050, NOSTREAM, OPTIONAL, (cu_link_state state, void **cubin, size_t *size))
DRIVER_SYMBOL(cuLinkDestroy, cuLinkDestroy, 5050, NOSTREAM, OPTIONAL, (cu_link_state state))

/* ---- kernels ---- */
DRIVER_SYMBOL(cuFuncGetAttribute, cuFuncGetAttribute, 2020, NOSTREAM, OPTIONAL, (int *value, cu_enum attrib, cu_function fn))
DRIVER_SYMBOL(cuFuncSetAttribute, cuFuncSetAttribute, 9000, NOSTREAM, OPTIONAL, (cu_function fn, cu_enum attrib, int value))
DRIVER_SYMBOL(cuFuncGetParamInfo, cuFuncGetParamInfo, 12040, NOSTREAM, OPTIONAL, (cu_function fn, size_t index, size_t *offset, size_t *size))
DRIVER_SYMBOL(cuFuncGetName, cuFuncGetName, 12030, NOSTREAM, OPTIONAL, (const char **name, cu_function fn))
DRIVER_SYMBOL(cuFuncGetModule, cuFuncGetModule, 11000, NOSTREAM, OPTIONAL, (cu_module *mod, cu_function fn))
DRIVER_SYMBOL(cuLaunchKernel, cuLaunchKernel, 4000, PTSZ, REQUIRED, (cu_function fn, unsigned int grid_x, unsigned int grid_y, unsigned int grid_z, unsigned int block_x, unsigned int block_y, unsigned int block_z, unsigned int shared_bytes, cu_stream stream, void **params, void **extra))
DRIVER_SYMBOL(cuLaunchKernelEx, cuLaunchKernelEx, 11060, PTSZ, OPTIONAL, (const cu_launch_config *config, cu_function fn, void **params, void **extra))
DRIVER_SYMBOL(cuLaunchCooperativeKernel, cuLaunchCooperativeKernel, 9000, PTSZ, OPTIONAL, (cu_function fn, unsigned int grid_x, unsigned int grid_y, unsigned int grid_z, unsigned int block_x, unsigned int block_y, unsigned int block_z, unsigned int shared_bytes, cu_stream stream, void **params))
DRIVER_SYMBOL(cuOccupancyMaxActiveBlocksPerMultiprocessor, cuOccupancyMaxActiveBlocksPerMultiprocessor, 6050, NOSTREAM, OPTIONAL, (int *blocks, cu_function fn, int block_size, size_t dynamic_shared))
DRIVER_SYMBOL(cuOccupancyMaxPotentialBlockSize, cuOccupancyMaxPotentialBlockSize, 6050, NOSTREAM, OPTIONAL, (int *min_grid, int *block_size, cu_function fn, cu_occupancy_b2d_size shared_for_block, size_t dynamic_shared, int block_size_limit))
