/*
 * module.c - loading images into the thread's context, looking up kernels
 * and globals, kernel attributes and occupancy.
 */
#include "config.h"

#include <stdint.h>
#include <string.h>

#include "internal.h"

#define CU_MODULE(m) ((cu_module)(void *)(m))
#define CU_FUNCTION(f) ((cu_function)(void *)(f))
#define JIT_LOG_BYTES 8192

/* Loads with a JIT error log; on failure the log ends the error message. */

int cudyn_load_image(const char *api, cu_module *mod, const void *image)
{
    int st = cudyn_need_context(api);
    if (st != CUDYN_OK)
        return st;
    if (!DRIVER_HAS(cuModuleLoadDataEx)) {
        CUDYN_TRY_DRIVER(cudyn_drv.cuModuleLoadData(mod, image), "cuModuleLoadData", api);
        return CUDYN_OK;
    }
    char log[JIT_LOG_BYTES] = "";
    cu_enum options[2] = {CU_JITOPT_ERROR_LOG_BUFFER, CU_JITOPT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void *values[2] = {log, (void *)(uintptr_t)sizeof log};
    cu_result r = cudyn_drv.cuModuleLoadDataEx(mod, image, 2, options, values);
    if (r == CU_OK)
        return CUDYN_OK;
    st = cudyn_fail_driver(r, "cuModuleLoadDataEx", api);
    log[sizeof log - 1] = '\0';
    if (log[0]) {
        for (char *p = log; *p; p++)
            if (*p == '\n')
                *p = ' ';
        cudyn_error_append("; JIT log: %s", log);
    }
    return st;
}

CUDYN_API int cudyn_module_load_image(cudyn_module *out, const void *image)
{
    static const char api[] = "cudyn_module_load_image";
    if (!out)
        return cudyn_fail_arg(api, "out", "must not be NULL");
    *out = NULL;
    if (!image)
        return cudyn_fail_arg(api, "image", "must not be NULL");
    cu_module mod = NULL;
    int st = cudyn_load_image(api, &mod, image);
    if (st == CUDYN_OK)
        *out = (cudyn_module)(void *)mod;
    return st;
}

CUDYN_API int cudyn_module_unload(cudyn_module mod)
{
    static const char api[] = "cudyn_module_unload";
    if (!mod)
        return cudyn_fail_arg(api, "mod", "must not be NULL");
    int st = cudyn_need_context(api);
    if (st != CUDYN_OK)
        return st;
    CUDYN_TRY_DRIVER(cudyn_drv.cuModuleUnload(CU_MODULE(mod)), "cuModuleUnload", api);
    return CUDYN_OK;
}

CUDYN_API int cudyn_module_function(cudyn_function *out, cudyn_module mod, const char *name)
{
    static const char api[] = "cudyn_module_function";
    if (!out)
        return cudyn_fail_arg(api, "out", "must not be NULL");
    *out = NULL;
    if (!mod)
        return cudyn_fail_arg(api, "mod", "must not be NULL");
    if (!name || !name[0])
        return cudyn_fail_arg(api, "name", "must be a kernel name");
    int st = cudyn_need_context(api);
    if (st != CUDYN_OK)
        return st;
    cu_function f = NULL;
    cu_result r = cudyn_drv.cuModuleGetFunction(&f, CU_MODULE(mod), name);
    if (r == CU_ERR_NOT_FOUND)
        return cudyn_fail(CUDYN_ERROR_NOT_FOUND, CUDYN_ORIGIN_DRIVER, (int)r, "CUDA_ERROR_NOT_FOUND",
                          "cuModuleGetFunction",
                          "%s: no kernel named '%s' in the module; hint: declare it extern \"C\" __global__, or "
                          "look it up by its lowered (mangled) name",
                          api, name);
    if (r != CU_OK)
        return cudyn_fail_driver(r, "cuModuleGetFunction", api);
    *out = (cudyn_function)(void *)f;
    return CUDYN_OK;
}

CUDYN_API int cudyn_module_global(cudyn_devptr *ptr, size_t *bytes, cudyn_module mod, const char *name)
{
    static const char api[] = "cudyn_module_global";
    if (!ptr)
        return cudyn_fail_arg(api, "ptr", "must not be NULL");
    *ptr = 0;
    if (bytes)
        *bytes = 0;
    if (!mod)
        return cudyn_fail_arg(api, "mod", "must not be NULL");
    if (!name || !name[0])
        return cudyn_fail_arg(api, "name", "must be a variable name");
    int st = cudyn_need_context(api);
    if (st != CUDYN_OK)
        return st;
    cu_deviceptr p = 0;
    size_t size = 0;
    cu_result r = cudyn_drv.cuModuleGetGlobal_v2(&p, &size, CU_MODULE(mod), name);
    if (r == CU_ERR_NOT_FOUND)
        return cudyn_fail(CUDYN_ERROR_NOT_FOUND, CUDYN_ORIGIN_DRIVER, (int)r, "CUDA_ERROR_NOT_FOUND",
                          "cuModuleGetGlobal", "%s: no __device__ or __constant__ variable named '%s' in the module",
                          api, name);
    if (r != CU_OK)
        return cudyn_fail_driver(r, "cuModuleGetGlobal", api);
    *ptr = p;
    if (bytes)
        *bytes = size;
    return CUDYN_OK;
}

CUDYN_API int cudyn_function_info(cudyn_function f, struct cudyn_function_info *out)
{
    static const char api[] = "cudyn_function_info";
    if (!f)
        return cudyn_fail_arg(api, "f", "must not be NULL");
    if (!out)
        return cudyn_fail_arg(api, "out", "must not be NULL");
    if (out->size < sizeof out->size)
        return cudyn_fail_arg(api, "out->size", "must be set to sizeof(struct cudyn_function_info)");
    int st = cudyn_need_context(api);
    if (st != CUDYN_OK)
        return st;
    struct cudyn_function_info info;
    memset(&info, 0, sizeof info);
    static const struct {
        int attr;
        size_t offset;
    } fields[] = {
        {CU_FUNC_ATTR_NUM_REGS, offsetof(struct cudyn_function_info, num_registers)},
        {CU_FUNC_ATTR_SHARED_SIZE_BYTES, offsetof(struct cudyn_function_info, shared_bytes)},
        {CU_FUNC_ATTR_CONST_SIZE_BYTES, offsetof(struct cudyn_function_info, const_bytes)},
        {CU_FUNC_ATTR_LOCAL_SIZE_BYTES, offsetof(struct cudyn_function_info, local_bytes)},
        {CU_FUNC_ATTR_MAX_THREADS_PER_BLOCK, offsetof(struct cudyn_function_info, max_threads_per_block)},
        {CU_FUNC_ATTR_PTX_VERSION, offsetof(struct cudyn_function_info, ptx_version)},
        {CU_FUNC_ATTR_BINARY_VERSION, offsetof(struct cudyn_function_info, binary_version)},
    };
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
        int v = 0;
        CUDYN_TRY_DRIVER(cudyn_drv.cuFuncGetAttribute(&v, (cu_enum)fields[i].attr, CU_FUNCTION(f)),
                         "cuFuncGetAttribute", api);
        memcpy((char *)&info + fields[i].offset, &v, sizeof v);
    }
    info.size = out->size < sizeof info ? out->size : sizeof info;
    memcpy(out, &info, info.size);
    return CUDYN_OK;
}

CUDYN_API int cudyn_occupancy_max_blocks(int *blocks, cudyn_function f, int block_size, size_t dynamic_shared)
{
    static const char api[] = "cudyn_occupancy_max_blocks";
    if (!blocks)
        return cudyn_fail_arg(api, "blocks", "must not be NULL");
    *blocks = 0;
    if (!f)
        return cudyn_fail_arg(api, "f", "must not be NULL");
    if (block_size <= 0)
        return cudyn_fail_arg(api, "block_size", "must be greater than 0");
    int st = cudyn_need_context(api);
    if (st != CUDYN_OK)
        return st;
    CUDYN_TRY_DRIVER(cudyn_drv.cuOccupancyMaxActiveBlocksPerMultiprocessor(blocks, CU_FUNCTION(f), block_size,
                                                                           dynamic_shared),
                     "cuOccupancyMaxActiveBlocksPerMultiprocessor", api);
    return CUDYN_OK;
}

CUDYN_API int cudyn_occupancy_block_size(int *min_grid, int *block_size, cudyn_function f, size_t dynamic_shared,
                                         int block_size_limit)
{
    static const char api[] = "cudyn_occupancy_block_size";
    if (!min_grid)
        return cudyn_fail_arg(api, "min_grid", "must not be NULL");
    if (!block_size)
        return cudyn_fail_arg(api, "block_size", "must not be NULL");
    *min_grid = *block_size = 0;
    if (!f)
        return cudyn_fail_arg(api, "f", "must not be NULL");
    if (block_size_limit < 0)
        return cudyn_fail_arg(api, "block_size_limit", "must be 0 (no limit) or positive");
    int st = cudyn_need_context(api);
    if (st != CUDYN_OK)
        return st;
    CUDYN_TRY_DRIVER(cudyn_drv.cuOccupancyMaxPotentialBlockSize(min_grid, block_size, CU_FUNCTION(f), NULL,
                                                                dynamic_shared, block_size_limit),
                     "cuOccupancyMaxPotentialBlockSize", api);
    return CUDYN_OK;
}
