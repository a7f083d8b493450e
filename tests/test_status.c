/*
 * test_status.c - status names and descriptions, and the translation of
 * every CUresult through CUDA 13: the mock driver fails cuMemAlloc with
 * each code in turn and the error detail must name it and keep it.
 */
#include "config.h"

#include <stdio.h>

#include "cudyn.h"
#include "testutil.h"

/* Every CUresult but CUDA_SUCCESS, as cuda.h of CUDA 13.0 lists them. */
static const struct {
    int code;
    const char *name;
} cuda_codes[] = {
    {1, "CUDA_ERROR_INVALID_VALUE"},
    {2, "CUDA_ERROR_OUT_OF_MEMORY"},
    {3, "CUDA_ERROR_NOT_INITIALIZED"},
    {4, "CUDA_ERROR_DEINITIALIZED"},
    {5, "CUDA_ERROR_PROFILER_DISABLED"},
    {6, "CUDA_ERROR_PROFILER_NOT_INITIALIZED"},
    {7, "CUDA_ERROR_PROFILER_ALREADY_STARTED"},
    {8, "CUDA_ERROR_PROFILER_ALREADY_STOPPED"},
    {34, "CUDA_ERROR_STUB_LIBRARY"},
    {36, "CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER"},
    {46, "CUDA_ERROR_DEVICE_UNAVAILABLE"},
    {100, "CUDA_ERROR_NO_DEVICE"},
    {101, "CUDA_ERROR_INVALID_DEVICE"},
    {102, "CUDA_ERROR_DEVICE_NOT_LICENSED"},
    {200, "CUDA_ERROR_INVALID_IMAGE"},
    {201, "CUDA_ERROR_INVALID_CONTEXT"},
    {202, "CUDA_ERROR_CONTEXT_ALREADY_CURRENT"},
    {205, "CUDA_ERROR_MAP_FAILED"},
    {206, "CUDA_ERROR_UNMAP_FAILED"},
    {207, "CUDA_ERROR_ARRAY_IS_MAPPED"},
    {208, "CUDA_ERROR_ALREADY_MAPPED"},
    {209, "CUDA_ERROR_NO_BINARY_FOR_GPU"},
    {210, "CUDA_ERROR_ALREADY_ACQUIRED"},
    {211, "CUDA_ERROR_NOT_MAPPED"},
    {212, "CUDA_ERROR_NOT_MAPPED_AS_ARRAY"},
    {213, "CUDA_ERROR_NOT_MAPPED_AS_POINTER"},
    {214, "CUDA_ERROR_ECC_UNCORRECTABLE"},
    {215, "CUDA_ERROR_UNSUPPORTED_LIMIT"},
    {216, "CUDA_ERROR_CONTEXT_ALREADY_IN_USE"},
    {217, "CUDA_ERROR_PEER_ACCESS_UNSUPPORTED"},
    {218, "CUDA_ERROR_INVALID_PTX"},
    {219, "CUDA_ERROR_INVALID_GRAPHICS_CONTEXT"},
    {220, "CUDA_ERROR_NVLINK_UNCORRECTABLE"},
    {221, "CUDA_ERROR_JIT_COMPILER_NOT_FOUND"},
    {222, "CUDA_ERROR_UNSUPPORTED_PTX_VERSION"},
    {223, "CUDA_ERROR_JIT_COMPILATION_DISABLED"},
    {224, "CUDA_ERROR_UNSUPPORTED_EXEC_AFFINITY"},
    {225, "CUDA_ERROR_UNSUPPORTED_DEVSIDE_SYNC"},
    {226, "CUDA_ERROR_CONTAINED"},
    {300, "CUDA_ERROR_INVALID_SOURCE"},
    {301, "CUDA_ERROR_FILE_NOT_FOUND"},
    {302, "CUDA_ERROR_SHARED_OBJECT_SYMBOL_NOT_FOUND"},
    {303, "CUDA_ERROR_SHARED_OBJECT_INIT_FAILED"},
    {304, "CUDA_ERROR_OPERATING_SYSTEM"},
    {400, "CUDA_ERROR_INVALID_HANDLE"},
    {401, "CUDA_ERROR_ILLEGAL_STATE"},
    {402, "CUDA_ERROR_LOSSY_QUERY"},
    {500, "CUDA_ERROR_NOT_FOUND"},
    {600, "CUDA_ERROR_NOT_READY"},
    {700, "CUDA_ERROR_ILLEGAL_ADDRESS"},
    {701, "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES"},
    {702, "CUDA_ERROR_LAUNCH_TIMEOUT"},
    {703, "CUDA_ERROR_LAUNCH_INCOMPATIBLE_TEXTURING"},
    {704, "CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED"},
    {705, "CUDA_ERROR_PEER_ACCESS_NOT_ENABLED"},
    {708, "CUDA_ERROR_PRIMARY_CONTEXT_ACTIVE"},
    {709, "CUDA_ERROR_CONTEXT_IS_DESTROYED"},
    {710, "CUDA_ERROR_ASSERT"},
    {711, "CUDA_ERROR_TOO_MANY_PEERS"},
    {712, "CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED"},
    {713, "CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED"},
    {714, "CUDA_ERROR_HARDWARE_STACK_ERROR"},
    {715, "CUDA_ERROR_ILLEGAL_INSTRUCTION"},
    {716, "CUDA_ERROR_MISALIGNED_ADDRESS"},
    {717, "CUDA_ERROR_INVALID_ADDRESS_SPACE"},
    {718, "CUDA_ERROR_INVALID_PC"},
    {719, "CUDA_ERROR_LAUNCH_FAILED"},
    {720, "CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE"},
    {721, "CUDA_ERROR_TENSOR_MEMORY_LEAK"},
    {800, "CUDA_ERROR_NOT_PERMITTED"},
    {801, "CUDA_ERROR_NOT_SUPPORTED"},
    {802, "CUDA_ERROR_SYSTEM_NOT_READY"},
    {803, "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH"},
    {804, "CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE"},
    {805, "CUDA_ERROR_MPS_CONNECTION_FAILED"},
    {806, "CUDA_ERROR_MPS_RPC_FAILURE"},
    {807, "CUDA_ERROR_MPS_SERVER_NOT_READY"},
    {808, "CUDA_ERROR_MPS_MAX_CLIENTS_REACHED"},
    {809, "CUDA_ERROR_MPS_MAX_CONNECTIONS_REACHED"},
    {810, "CUDA_ERROR_MPS_CLIENT_TERMINATED"},
    {811, "CUDA_ERROR_CDP_NOT_SUPPORTED"},
    {812, "CUDA_ERROR_CDP_VERSION_MISMATCH"},
    {900, "CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED"},
    {901, "CUDA_ERROR_STREAM_CAPTURE_INVALIDATED"},
    {902, "CUDA_ERROR_STREAM_CAPTURE_MERGE"},
    {903, "CUDA_ERROR_STREAM_CAPTURE_UNMATCHED"},
    {904, "CUDA_ERROR_STREAM_CAPTURE_UNJOINED"},
    {905, "CUDA_ERROR_STREAM_CAPTURE_ISOLATION"},
    {906, "CUDA_ERROR_STREAM_CAPTURE_IMPLICIT"},
    {907, "CUDA_ERROR_CAPTURED_EVENT"},
    {908, "CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD"},
    {909, "CUDA_ERROR_TIMEOUT"},
    {910, "CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE"},
    {911, "CUDA_ERROR_EXTERNAL_DEVICE"},
    {912, "CUDA_ERROR_INVALID_CLUSTER_SIZE"},
    {913, "CUDA_ERROR_FUNCTION_NOT_LOADED"},
    {914, "CUDA_ERROR_INVALID_RESOURCE_TYPE"},
    {915, "CUDA_ERROR_INVALID_RESOURCE_CONFIGURATION"},
    {916, "CUDA_ERROR_KEY_ROTATION"},
    {999, "CUDA_ERROR_UNKNOWN"},
};
#define N_CODES (sizeof cuda_codes / sizeof cuda_codes[0])
#define UNKNOWN_CODE 4242

/* The statuses users branch on, checked exactly. */
static const struct {
    int code;
    int status;
} key_mappings[] = {
    {1, CUDYN_ERROR_INVALID_ARGUMENT},   {2, CUDYN_ERROR_OUT_OF_MEMORY},     {34, CUDYN_ERROR_STUB_DRIVER},
    {35, CUDYN_ERROR_DRIVER_TOO_OLD},    {46, CUDYN_ERROR_DEVICE_UNAVAILABLE}, {100, CUDYN_ERROR_NO_DEVICE},
    {101, CUDYN_ERROR_INVALID_DEVICE},   {200, CUDYN_ERROR_INVALID_IMAGE},   {209, CUDYN_ERROR_NO_BINARY_FOR_GPU},
    {218, CUDYN_ERROR_INVALID_IMAGE},    {222, CUDYN_ERROR_UNSUPPORTED_PTX}, {400, CUDYN_ERROR_INVALID_HANDLE},
    {500, CUDYN_ERROR_NOT_FOUND},        {600, CUDYN_ERROR_NOT_READY},       {700, CUDYN_ERROR_ILLEGAL_ADDRESS},
    {701, CUDYN_ERROR_LAUNCH_OUT_OF_RESOURCES}, {702, CUDYN_ERROR_LAUNCH_TIMEOUT}, {710, CUDYN_ERROR_ASSERT},
    {716, CUDYN_ERROR_ILLEGAL_INSTRUCTION}, {719, CUDYN_ERROR_LAUNCH_FAILED}, {801, CUDYN_ERROR_NOT_SUPPORTED},
    {803, CUDYN_ERROR_INIT_FAILED},      {909, CUDYN_ERROR_TIMEOUT},         {999, CUDYN_ERROR_DRIVER},
};

static void test_names(void)
{
    for (int s = 0; s <= CUDYN_ERROR_TIMEOUT; s++) {
        const char *name = cudyn_status_name(s);
        CHECK(strncmp(name, "CUDYN_", 6) == 0 && strcmp(name, "CUDYN_STATUS_UNKNOWN") != 0);
        CHECK(strcmp(cudyn_status_string(s), "unknown cudyn status") != 0);
        for (int t = 0; t < s; t++)
            CHECK(strcmp(name, cudyn_status_name(t)) != 0);
    }
    CHECK(strcmp(cudyn_status_name(CUDYN_OK), "CUDYN_OK") == 0);
    CHECK(strcmp(cudyn_status_name(CUDYN_ERROR_OUT_OF_MEMORY), "CUDYN_ERROR_OUT_OF_MEMORY") == 0);
    CHECK(strcmp(cudyn_status_name(-1), "CUDYN_STATUS_UNKNOWN") == 0);
    CHECK(strcmp(cudyn_status_name(100000), "CUDYN_STATUS_UNKNOWN") == 0);
    CHECK(strcmp(cudyn_status_string(-5), "unknown cudyn status") == 0);
}

static int expected_status(int code)
{
    for (size_t i = 0; i < sizeof key_mappings / sizeof key_mappings[0]; i++)
        if (key_mappings[i].code == code)
            return key_mappings[i].status;
    return -1;
}

static void test_driver_translation(void)
{
    /* Fail the n-th cuMemAlloc with the n-th code, then an unknown one. */
    static char spec[16384];
    size_t len = 0;
    for (size_t i = 0; i < N_CODES; i++)
        len += (size_t)snprintf(spec + len, sizeof spec - len, "cuMemAlloc_v2:%zu:%d,", i + 1, cuda_codes[i].code);
    snprintf(spec + len, sizeof spec - len, "cuMemAlloc_v2:%zu:%d", N_CODES + 1, UNKNOWN_CODE);
    setenv("MOCK_CUDA_FAIL", spec, 1);

    for (size_t i = 0; i < N_CODES; i++) {
        cudyn_devptr p = 1;
        int st = cudyn_mem_alloc(&p, 64);
        cudyn_error e = {.size = sizeof e};
        CHECK_EQ_INT(cudyn_last_error(&e), st);
        CHECK(st != CUDYN_OK);
        CHECK_EQ_INT(p, 0);
        CHECK_EQ_INT(e.native_code, cuda_codes[i].code);
        CHECK_EQ_INT(e.origin, CUDYN_ORIGIN_DRIVER);
        if (strcmp(e.native_name, cuda_codes[i].name) != 0) {
            fprintf(stderr, "code %d: named '%s', expected '%s'\n", cuda_codes[i].code, e.native_name,
                    cuda_codes[i].name);
            test_failures++;
        }
        CHECK(strcmp(e.function, "cuMemAlloc") == 0);
        CHECK_CONTAINS(e.message, cuda_codes[i].name);
        CHECK_CONTAINS(e.message, "cudyn_mem_alloc");
        int c = cuda_codes[i].code;
        if (c == 2 || c == 34 || c == 35 || c == 46 || c == 100 || c == 209 || c == 222 || c == 700 || c == 803 ||
            c == 804 || c == 999)
            CHECK_CONTAINS(e.message, "hint:");
        if (c == 100)
            CHECK_CONTAINS(e.message, "CUDA_VISIBLE_DEVICES");
        int want = expected_status(cuda_codes[i].code);
        if (want >= 0 && st != want) {
            fprintf(stderr, "code %d: status %s, expected %s\n", cuda_codes[i].code, cudyn_status_name(st),
                    cudyn_status_name(want));
            test_failures++;
        }
    }
    cudyn_devptr p;
    cudyn_error e = {.size = sizeof e};
    CHECK_STATUS(cudyn_mem_alloc(&p, 64), CUDYN_ERROR_DRIVER);
    cudyn_last_error(&e);
    CHECK_EQ_INT(e.native_code, UNKNOWN_CODE);
    CHECK(strcmp(e.native_name, "CUDA_ERROR_UNKNOWN_CODE") == 0);
    CHECK_STATUS(cudyn_mem_alloc(&p, 64), CUDYN_OK);
    CHECK_STATUS(cudyn_mem_free(p), CUDYN_OK);
}

int main(void)
{
    use_mock_driver();
    test_names();
    test_driver_translation();
    return test_result("test_status");
}
