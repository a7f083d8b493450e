/*
 * check_cuda_abi_mine.c - the layouts of cudyn's private CUDA declarations,
 * compiled without <cuda.h>; check_cuda_abi.c compares them with CUDA's.
 */
#include "config.h"

#include <stddef.h>

#include "check_cuda_abi.h"
#include "cuda_abi.h"

#define LAYOUT_SIZE(type) sizeof(type),
#define LAYOUT_MEMBER(type, member) offsetof(type, member),
extern const size_t cudyn_private_layout[];
const size_t cudyn_private_layout[] = {
    sizeof(cu_result),       sizeof(cu_device),           sizeof(cu_deviceptr), sizeof(cu_uint64),
    sizeof(cu_uuid),         offsetof(cu_uuid, bytes),    sizeof(cu_mem_location),
    offsetof(cu_mem_location, type), offsetof(cu_mem_location, id), sizeof(nvrtc_result),
    sizeof(cu_texobj),       sizeof(cu_surfobj),
    CUDA_ABI_STRUCT_LAYOUT(LAYOUT_SIZE, LAYOUT_MEMBER)
};
