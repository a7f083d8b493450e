/*
 * check_cuda_abi.h - the struct layouts cudyn declares itself in
 * lib/cuda_abi.h under CUDA's own tags and member names, as one list:
 * check_cuda_abi.c expands it against cuda.h, check_cuda_abi_mine.c
 * against cudyn's declarations, and every size and offset must agree.
 *   SIZE(type)            sizeof(type)
 *   MEMBER(type, member)  offsetof(type, member)
 */
#define CUDA_ABI_STRUCT_LAYOUT(SIZE, MEMBER)                                                                  \
    SIZE(struct CUDA_ARRAY3D_DESCRIPTOR_st)                                                                   \
    MEMBER(struct CUDA_ARRAY3D_DESCRIPTOR_st, Width)                                                          \
    MEMBER(struct CUDA_ARRAY3D_DESCRIPTOR_st, Height)                                                         \
    MEMBER(struct CUDA_ARRAY3D_DESCRIPTOR_st, Depth)                                                          \
    MEMBER(struct CUDA_ARRAY3D_DESCRIPTOR_st, Format)                                                         \
    MEMBER(struct CUDA_ARRAY3D_DESCRIPTOR_st, NumChannels)                                                    \
    MEMBER(struct CUDA_ARRAY3D_DESCRIPTOR_st, Flags)                                                          \
    SIZE(struct CUDA_MEMCPY2D_st)                                                                             \
    MEMBER(struct CUDA_MEMCPY2D_st, srcXInBytes)                                                              \
    MEMBER(struct CUDA_MEMCPY2D_st, srcY)                                                                     \
    MEMBER(struct CUDA_MEMCPY2D_st, srcMemoryType)                                                            \
    MEMBER(struct CUDA_MEMCPY2D_st, srcHost)                                                                  \
    MEMBER(struct CUDA_MEMCPY2D_st, srcDevice)                                                                \
    MEMBER(struct CUDA_MEMCPY2D_st, srcArray)                                                                 \
    MEMBER(struct CUDA_MEMCPY2D_st, srcPitch)                                                                 \
    MEMBER(struct CUDA_MEMCPY2D_st, dstXInBytes)                                                              \
    MEMBER(struct CUDA_MEMCPY2D_st, dstY)                                                                     \
    MEMBER(struct CUDA_MEMCPY2D_st, dstMemoryType)                                                            \
    MEMBER(struct CUDA_MEMCPY2D_st, dstHost)                                                                  \
    MEMBER(struct CUDA_MEMCPY2D_st, dstDevice)                                                                \
    MEMBER(struct CUDA_MEMCPY2D_st, dstArray)                                                                 \
    MEMBER(struct CUDA_MEMCPY2D_st, dstPitch)                                                                 \
    MEMBER(struct CUDA_MEMCPY2D_st, WidthInBytes)                                                             \
    MEMBER(struct CUDA_MEMCPY2D_st, Height)                                                                   \
    SIZE(struct CUDA_MEMCPY3D_st)                                                                             \
    MEMBER(struct CUDA_MEMCPY3D_st, srcXInBytes)                                                              \
    MEMBER(struct CUDA_MEMCPY3D_st, srcY)                                                                     \
    MEMBER(struct CUDA_MEMCPY3D_st, srcZ)                                                                     \
    MEMBER(struct CUDA_MEMCPY3D_st, srcLOD)                                                                   \
    MEMBER(struct CUDA_MEMCPY3D_st, srcMemoryType)                                                            \
    MEMBER(struct CUDA_MEMCPY3D_st, srcHost)                                                                  \
    MEMBER(struct CUDA_MEMCPY3D_st, srcDevice)                                                                \
    MEMBER(struct CUDA_MEMCPY3D_st, srcArray)                                                                 \
    MEMBER(struct CUDA_MEMCPY3D_st, reserved0)                                                                \
    MEMBER(struct CUDA_MEMCPY3D_st, srcPitch)                                                                 \
    MEMBER(struct CUDA_MEMCPY3D_st, srcHeight)                                                                \
    MEMBER(struct CUDA_MEMCPY3D_st, dstXInBytes)                                                              \
    MEMBER(struct CUDA_MEMCPY3D_st, dstY)                                                                     \
    MEMBER(struct CUDA_MEMCPY3D_st, dstZ)                                                                     \
    MEMBER(struct CUDA_MEMCPY3D_st, dstLOD)                                                                   \
    MEMBER(struct CUDA_MEMCPY3D_st, dstMemoryType)                                                            \
    MEMBER(struct CUDA_MEMCPY3D_st, dstHost)                                                                  \
    MEMBER(struct CUDA_MEMCPY3D_st, dstDevice)                                                                \
    MEMBER(struct CUDA_MEMCPY3D_st, dstArray)                                                                 \
    MEMBER(struct CUDA_MEMCPY3D_st, reserved1)                                                                \
    MEMBER(struct CUDA_MEMCPY3D_st, dstPitch)                                                                 \
    MEMBER(struct CUDA_MEMCPY3D_st, dstHeight)                                                                \
    MEMBER(struct CUDA_MEMCPY3D_st, WidthInBytes)                                                             \
    MEMBER(struct CUDA_MEMCPY3D_st, Height)                                                                   \
    MEMBER(struct CUDA_MEMCPY3D_st, Depth)                                                                    \
    SIZE(struct CUDA_RESOURCE_DESC_st)                                                                        \
    MEMBER(struct CUDA_RESOURCE_DESC_st, resType)                                                             \
    MEMBER(struct CUDA_RESOURCE_DESC_st, res.array.hArray)                                                    \
    MEMBER(struct CUDA_RESOURCE_DESC_st, res.linear.devPtr)                                                   \
    MEMBER(struct CUDA_RESOURCE_DESC_st, res.linear.format)                                                   \
    MEMBER(struct CUDA_RESOURCE_DESC_st, res.linear.numChannels)                                              \
    MEMBER(struct CUDA_RESOURCE_DESC_st, res.linear.sizeInBytes)                                              \
    MEMBER(struct CUDA_RESOURCE_DESC_st, res.pitch2D.devPtr)                                                  \
    MEMBER(struct CUDA_RESOURCE_DESC_st, res.pitch2D.format)                                                  \
    MEMBER(struct CUDA_RESOURCE_DESC_st, res.pitch2D.numChannels)                                             \
    MEMBER(struct CUDA_RESOURCE_DESC_st, res.pitch2D.width)                                                   \
    MEMBER(struct CUDA_RESOURCE_DESC_st, res.pitch2D.height)                                                  \
    MEMBER(struct CUDA_RESOURCE_DESC_st, res.pitch2D.pitchInBytes)                                            \
    MEMBER(struct CUDA_RESOURCE_DESC_st, flags)                                                               \
    SIZE(struct CUDA_TEXTURE_DESC_st)                                                                         \
    MEMBER(struct CUDA_TEXTURE_DESC_st, addressMode)                                                          \
    MEMBER(struct CUDA_TEXTURE_DESC_st, filterMode)                                                           \
    MEMBER(struct CUDA_TEXTURE_DESC_st, flags)                                                                \
    MEMBER(struct CUDA_TEXTURE_DESC_st, maxAnisotropy)                                                        \
    MEMBER(struct CUDA_TEXTURE_DESC_st, mipmapFilterMode)                                                     \
    MEMBER(struct CUDA_TEXTURE_DESC_st, mipmapLevelBias)                                                      \
    MEMBER(struct CUDA_TEXTURE_DESC_st, minMipmapLevelClamp)                                                  \
    MEMBER(struct CUDA_TEXTURE_DESC_st, maxMipmapLevelClamp)                                                  \
    MEMBER(struct CUDA_TEXTURE_DESC_st, borderColor)                                                          \
    MEMBER(struct CUDA_TEXTURE_DESC_st, reserved)                                                             \
    SIZE(union CUlaunchAttributeValue_union)                                                                  \
    SIZE(struct CUlaunchAttribute_st)                                                                         \
    MEMBER(struct CUlaunchAttribute_st, id)                                                                   \
    MEMBER(struct CUlaunchAttribute_st, value)                                                                \
    MEMBER(struct CUlaunchAttribute_st, value.cooperative)                                                    \
    MEMBER(struct CUlaunchAttribute_st, value.clusterDim.x)                                                   \
    MEMBER(struct CUlaunchAttribute_st, value.clusterDim.y)                                                   \
    MEMBER(struct CUlaunchAttribute_st, value.clusterDim.z)                                                   \
    MEMBER(struct CUlaunchAttribute_st, value.priority)                                                       \
    SIZE(struct CUlaunchConfig_st)                                                                            \
    MEMBER(struct CUlaunchConfig_st, gridDimX)                                                                \
    MEMBER(struct CUlaunchConfig_st, gridDimY)                                                                \
    MEMBER(struct CUlaunchConfig_st, gridDimZ)                                                                \
    MEMBER(struct CUlaunchConfig_st, blockDimX)                                                               \
    MEMBER(struct CUlaunchConfig_st, blockDimY)                                                               \
    MEMBER(struct CUlaunchConfig_st, blockDimZ)                                                               \
    MEMBER(struct CUlaunchConfig_st, sharedMemBytes)                                                          \
    MEMBER(struct CUlaunchConfig_st, hStream)                                                                 \
    MEMBER(struct CUlaunchConfig_st, attrs)                                                                   \
    MEMBER(struct CUlaunchConfig_st, numAttrs)                                                                \
    SIZE(struct CUgraphExecUpdateResultInfo_st)                                                               \
    MEMBER(struct CUgraphExecUpdateResultInfo_st, result)                                                     \
    MEMBER(struct CUgraphExecUpdateResultInfo_st, errorNode)                                                  \
    MEMBER(struct CUgraphExecUpdateResultInfo_st, errorFromNode)                                              \
    SIZE(struct CUipcMemHandle_st)                                                                            \
    SIZE(struct CUipcEventHandle_st)                                                                          \
    SIZE(struct CUmemPoolPtrExportData_st)                                                                    \
    SIZE(struct CUmemAllocationProp_st)                                                                       \
    MEMBER(struct CUmemAllocationProp_st, type)                                                               \
    MEMBER(struct CUmemAllocationProp_st, requestedHandleTypes)                                               \
    MEMBER(struct CUmemAllocationProp_st, location)                                                           \
    MEMBER(struct CUmemAllocationProp_st, win32HandleMetaData)                                                \
    MEMBER(struct CUmemAllocationProp_st, allocFlags)                                                         \
    SIZE(struct CUmemAccessDesc_st)                                                                           \
    MEMBER(struct CUmemAccessDesc_st, location)                                                               \
    MEMBER(struct CUmemAccessDesc_st, flags)                                                                  \
    SIZE(struct CUmemPoolProps_st)                                                                            \
    MEMBER(struct CUmemPoolProps_st, allocType)                                                               \
    MEMBER(struct CUmemPoolProps_st, handleTypes)                                                             \
    MEMBER(struct CUmemPoolProps_st, location)                                                                \
    MEMBER(struct CUmemPoolProps_st, win32SecurityAttributes)                                                 \
    MEMBER(struct CUmemPoolProps_st, maxSize)                                                                 \
    MEMBER(struct CUmemPoolProps_st, usage)
