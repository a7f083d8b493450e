/*
 * device_attributes.c - names and units of the driver's device attributes
 * (CUDA's CUdevice_attribute values, which are never renumbered), as one
 * table.  cudainfo -a lists every one of them; nothing here is a hand-kept
 * table of hardware facts: the values come from the driver.
 */
#include "config.h"

#include "api/api.h"

/* What an attribute's integer counts, as cudyn_device_attr_unit says it. */
#define BYTES "bytes"
#define KHZ "kHz"
#define BITS "bits"
#define BOOL "bool"   /* 0 or 1 */
#define ENUM "enum"   /* one value of a CUDA enum (CUcomputemode ...) */
#define FLAGS "flags" /* a bit mask of a CUDA enum's values */
#define COUNT ""      /* a plain number: a count, a dimension, an id */

struct attribute {
    const char *name;
    const char *unit;
};

static const struct attribute attributes[] = {
    [1] = {"max_threads_per_block", COUNT},
    [2] = {"max_block_dim_x", COUNT},
    [3] = {"max_block_dim_y", COUNT},
    [4] = {"max_block_dim_z", COUNT},
    [5] = {"max_grid_dim_x", COUNT},
    [6] = {"max_grid_dim_y", COUNT},
    [7] = {"max_grid_dim_z", COUNT},
    [8] = {"max_shared_memory_per_block", BYTES},
    [9] = {"total_constant_memory", BYTES},
    [10] = {"warp_size", COUNT},
    [11] = {"max_pitch", BYTES},
    [12] = {"max_registers_per_block", COUNT},
    [13] = {"clock_rate", KHZ},
    [14] = {"texture_alignment", BYTES},
    [15] = {"gpu_overlap", BOOL},
    [16] = {"multiprocessor_count", COUNT},
    [17] = {"kernel_exec_timeout", BOOL},
    [18] = {"integrated", BOOL},
    [19] = {"can_map_host_memory", BOOL},
    [20] = {"compute_mode", ENUM},
    [21] = {"maximum_texture1d_width", COUNT},
    [22] = {"maximum_texture2d_width", COUNT},
    [23] = {"maximum_texture2d_height", COUNT},
    [24] = {"maximum_texture3d_width", COUNT},
    [25] = {"maximum_texture3d_height", COUNT},
    [26] = {"maximum_texture3d_depth", COUNT},
    [27] = {"maximum_texture2d_layered_width", COUNT},
    [28] = {"maximum_texture2d_layered_height", COUNT},
    [29] = {"maximum_texture2d_layered_layers", COUNT},
    [30] = {"surface_alignment", BYTES},
    [31] = {"concurrent_kernels", BOOL},
    [32] = {"ecc_enabled", BOOL},
    [33] = {"pci_bus_id", COUNT},
    [34] = {"pci_device_id", COUNT},
    [35] = {"tcc_driver", BOOL},
    [36] = {"memory_clock_rate", KHZ},
    [37] = {"global_memory_bus_width", BITS},
    [38] = {"l2_cache_size", BYTES},
    [39] = {"max_threads_per_multiprocessor", COUNT},
    [40] = {"async_engine_count", COUNT},
    [41] = {"unified_addressing", BOOL},
    [42] = {"maximum_texture1d_layered_width", COUNT},
    [43] = {"maximum_texture1d_layered_layers", COUNT},
    [44] = {"can_tex2d_gather", BOOL},
    [45] = {"maximum_texture2d_gather_width", COUNT},
    [46] = {"maximum_texture2d_gather_height", COUNT},
    [47] = {"maximum_texture3d_width_alternate", COUNT},
    [48] = {"maximum_texture3d_height_alternate", COUNT},
    [49] = {"maximum_texture3d_depth_alternate", COUNT},
    [50] = {"pci_domain_id", COUNT},
    [51] = {"texture_pitch_alignment", BYTES},
    [52] = {"maximum_texturecubemap_width", COUNT},
    [53] = {"maximum_texturecubemap_layered_width", COUNT},
    [54] = {"maximum_texturecubemap_layered_layers", COUNT},
    [55] = {"maximum_surface1d_width", COUNT},
    [56] = {"maximum_surface2d_width", COUNT},
    [57] = {"maximum_surface2d_height", COUNT},
    [58] = {"maximum_surface3d_width", COUNT},
    [59] = {"maximum_surface3d_height", COUNT},
    [60] = {"maximum_surface3d_depth", COUNT},
    [61] = {"maximum_surface1d_layered_width", COUNT},
    [62] = {"maximum_surface1d_layered_layers", COUNT},
    [63] = {"maximum_surface2d_layered_width", COUNT},
    [64] = {"maximum_surface2d_layered_height", COUNT},
    [65] = {"maximum_surface2d_layered_layers", COUNT},
    [66] = {"maximum_surfacecubemap_width", COUNT},
    [67] = {"maximum_surfacecubemap_layered_width", COUNT},
    [68] = {"maximum_surfacecubemap_layered_layers", COUNT},
    [69] = {"maximum_texture1d_linear_width", COUNT},
    [70] = {"maximum_texture2d_linear_width", COUNT},
    [71] = {"maximum_texture2d_linear_height", COUNT},
    [72] = {"maximum_texture2d_linear_pitch", BYTES},
    [73] = {"maximum_texture2d_mipmapped_width", COUNT},
    [74] = {"maximum_texture2d_mipmapped_height", COUNT},
    [75] = {"compute_capability_major", COUNT},
    [76] = {"compute_capability_minor", COUNT},
    [77] = {"maximum_texture1d_mipmapped_width", COUNT},
    [78] = {"stream_priorities_supported", BOOL},
    [79] = {"global_l1_cache_supported", BOOL},
    [80] = {"local_l1_cache_supported", BOOL},
    [81] = {"max_shared_memory_per_multiprocessor", BYTES},
    [82] = {"max_registers_per_multiprocessor", COUNT},
    [83] = {"managed_memory", BOOL},
    [84] = {"multi_gpu_board", BOOL},
    [85] = {"multi_gpu_board_group_id", COUNT},
    [86] = {"host_native_atomic_supported", BOOL},
    [87] = {"single_to_double_precision_perf_ratio", COUNT},
    [88] = {"pageable_memory_access", BOOL},
    [89] = {"concurrent_managed_access", BOOL},
    [90] = {"compute_preemption_supported", BOOL},
    [91] = {"can_use_host_pointer_for_registered_mem", BOOL},
    [92] = {"can_use_stream_mem_ops_v1", BOOL},
    [93] = {"can_use_64_bit_stream_mem_ops_v1", BOOL},
    [94] = {"can_use_stream_wait_value_nor_v1", BOOL},
    [95] = {"cooperative_launch", BOOL},
    [96] = {"cooperative_multi_device_launch", BOOL},
    [97] = {"max_shared_memory_per_block_optin", BYTES},
    [98] = {"can_flush_remote_writes", BOOL},
    [99] = {"host_register_supported", BOOL},
    [100] = {"pageable_memory_access_uses_host_page_tables", BOOL},
    [101] = {"direct_managed_mem_access_from_host", BOOL},
    [102] = {"virtual_address_management_supported", BOOL},
    [103] = {"handle_type_posix_file_descriptor_supported", BOOL},
    [104] = {"handle_type_win32_handle_supported", BOOL},
    [105] = {"handle_type_win32_kmt_handle_supported", BOOL},
    [106] = {"max_blocks_per_multiprocessor", COUNT},
    [107] = {"generic_compression_supported", BOOL},
    [108] = {"max_persisting_l2_cache_size", BYTES},
    [109] = {"max_access_policy_window_size", BYTES},
    [110] = {"gpu_direct_rdma_with_cuda_vmm_supported", BOOL},
    [111] = {"reserved_shared_memory_per_block", BYTES},
    [112] = {"sparse_cuda_array_supported", BOOL},
    [113] = {"read_only_host_register_supported", BOOL},
    [114] = {"timeline_semaphore_interop_supported", BOOL},
    [115] = {"memory_pools_supported", BOOL},
    [116] = {"gpu_direct_rdma_supported", BOOL},
    [117] = {"gpu_direct_rdma_flush_writes_options", FLAGS},
    [118] = {"gpu_direct_rdma_writes_ordering", ENUM},
    [119] = {"mempool_supported_handle_types", FLAGS},
    [120] = {"cluster_launch", BOOL},
    [121] = {"deferred_mapping_cuda_array_supported", BOOL},
    [122] = {"can_use_64_bit_stream_mem_ops", BOOL},
    [123] = {"can_use_stream_wait_value_nor", BOOL},
    [124] = {"dma_buf_supported", BOOL},
    [125] = {"ipc_event_supported", BOOL},
    [126] = {"mem_sync_domain_count", COUNT},
    [127] = {"tensor_map_access_supported", BOOL},
    [128] = {"handle_type_fabric_supported", BOOL},
    [129] = {"unified_function_pointers", BOOL},
    [130] = {"numa_config", ENUM},
    [131] = {"numa_id", COUNT},
    [132] = {"multicast_supported", BOOL},
    [133] = {"mps_enabled", BOOL},
    [134] = {"host_numa_id", COUNT},
    [135] = {"d3d12_cig_supported", BOOL},
    [136] = {"mem_decompress_algorithm_mask", FLAGS},
    [137] = {"mem_decompress_maximum_length", BYTES},
    [138] = {"vulkan_cig_supported", BOOL},
    [139] = {"gpu_pci_device_id", COUNT},
    [140] = {"gpu_pci_subsystem_id", COUNT},
    [141] = {"host_numa_virtual_memory_management_supported", BOOL},
    [142] = {"host_numa_memory_pools_supported", BOOL},
    [143] = {"host_numa_multinode_ipc_supported", BOOL},
    [144] = {"host_memory_pools_supported", BOOL},
    [145] = {"host_virtual_memory_management_supported", BOOL},
    [146] = {"host_alloc_dma_buf_supported", BOOL},
    [147] = {"only_partial_host_native_atomic_supported", BOOL},
};

#define N_ATTRIBUTES ((int)(sizeof attributes / sizeof attributes[0]))

/* The row of a known attribute, or NULL (out of range, or a gap). */
static const struct attribute *row(cudyn_device_attr attr)
{
    if (attr <= 0 || attr >= N_ATTRIBUTES || !attributes[attr].name)
        return NULL;
    return &attributes[attr];
}

CUDYN_API const char *cudyn_device_attr_name(cudyn_device_attr attr)
{
    const struct attribute *a = row(attr);
    return a ? a->name : NULL;
}

CUDYN_API const char *cudyn_device_attr_unit(cudyn_device_attr attr)
{
    const struct attribute *a = row(attr);
    return a ? a->unit : NULL;
}

CUDYN_API int cudyn_device_attr_count(void)
{
    return N_ATTRIBUTES;
}
