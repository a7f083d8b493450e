/*
 * test_memory_ext.c - stream-ordered allocation and the default memory
 * pool, managed memory with prefetch and advice, and pointer queries,
 * against the mock driver (whose pools hold device memory and give it back
 * at synchronisation, and whose managed memory remembers where it was
 * prefetched).  Children check the adapters: CUDA 12.0 prefetches and
 * advises through the v1 functions (a device number, -1 for the host),
 * CUDA 11.0 has no pools.  Every driver call fails in turn.
 */
#include "config.h"

#include "cudyn.h"
#include "fault_sweep.h"

static void expect_message(const char *text)
{
    cudyn_error e = {.size = sizeof e};
    cudyn_last_error(&e);
    CHECK_CONTAINS(e.message, text);
}

static uint64_t pool(int attr)
{
    uint64_t v = 0;
    CHECK_STATUS(cudyn_mem_pool_attribute(0, attr, &v), CUDYN_OK);
    return v;
}

static size_t free_memory(void)
{
    size_t free_bytes = 0, total = 0;
    CHECK_STATUS(cudyn_mem_info(&free_bytes, &total), CUDYN_OK);
    return free_bytes;
}

/* Allocation and free in a loop take no more memory than one of them. */
static void test_stream_ordered(void)
{
    cudyn_stream s = NULL;
    CHECK_STATUS(cudyn_stream_create(&s, 0), CUDYN_OK);
    size_t before = free_memory();
    for (int i = 0; i < 100; i++) {
        cudyn_devptr p = 0;
        CHECK_STATUS(cudyn_mem_alloc_async(&p, 1 << 20, s), CUDYN_OK);
        CHECK_STATUS(cudyn_memset_d32_async(p, (uint32_t)i, (1 << 20) / 4, s), CUDYN_OK);
        if (i == 0)
            CHECK_EQ_INT(pool(CUDYN_POOL_USED_CURRENT), 1 << 20);
        CHECK_STATUS(cudyn_mem_free_async(p, s), CUDYN_OK);
    }
    CHECK_EQ_INT(pool(CUDYN_POOL_RESERVED_HIGH), 1 << 20); /* one allocation's worth, reused */
    CHECK_STATUS(cudyn_stream_synchronize(s), CUDYN_OK);
    CHECK_EQ_INT(free_memory(), before);                 /* threshold 0: all given back */
    CHECK_EQ_INT(pool(CUDYN_POOL_RESERVED_CURRENT), 0);

    /* a threshold keeps memory for the next allocation; trimming returns it */
    CHECK_STATUS(cudyn_mem_pool_set_release_threshold(0, UINT64_MAX), CUDYN_OK);
    CHECK(pool(CUDYN_POOL_RELEASE_THRESHOLD) == UINT64_MAX);
    cudyn_devptr p = 0;
    CHECK_STATUS(cudyn_mem_alloc_async(&p, 1 << 20, s), CUDYN_OK);
    CHECK_STATUS(cudyn_mem_free_async(p, s), CUDYN_OK);
    CHECK_STATUS(cudyn_stream_synchronize(s), CUDYN_OK);
    CHECK_EQ_INT(pool(CUDYN_POOL_RESERVED_CURRENT), 1 << 20);
    CHECK_EQ_INT(free_memory(), before - (1 << 20));
    CHECK_STATUS(cudyn_mem_pool_trim(0, 0), CUDYN_OK);
    CHECK_EQ_INT(pool(CUDYN_POOL_RESERVED_CURRENT), 0);
    CHECK_EQ_INT(free_memory(), before);
    CHECK_STATUS(cudyn_mem_pool_set_release_threshold(0, 0), CUDYN_OK);

    /* bad arguments */
    CHECK_STATUS(cudyn_mem_alloc_async(NULL, 16, s), CUDYN_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(cudyn_mem_alloc_async(&p, 0, s), CUDYN_ERROR_INVALID_ARGUMENT);
    CHECK(p == 0);
    CHECK_STATUS(cudyn_mem_free_async(0, s), CUDYN_OK);
    uint64_t v = 0;
    CHECK_STATUS(cudyn_mem_pool_attribute(0, 3, &v), CUDYN_ERROR_INVALID_ARGUMENT);
    expect_message("'attr'");
    CHECK_STATUS(cudyn_mem_pool_attribute(0, CUDYN_POOL_USED_HIGH, NULL), CUDYN_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(cudyn_mem_pool_attribute(7, CUDYN_POOL_USED_HIGH, &v), CUDYN_ERROR_INVALID_DEVICE);
    CHECK_STATUS(cudyn_mem_pool_trim(-1, 0), CUDYN_ERROR_INVALID_DEVICE);
    /* the driver's out of memory, with the size */
    CHECK_STATUS(cudyn_mem_alloc_async(&p, (size_t)1 << 40, s), CUDYN_ERROR_OUT_OF_MEMORY);
    expect_message("(asked for 1099511627776 bytes)");
    /* a device without pools: the hint says what to use */
    CHECK_EQ_INT(mock_fail_next("cuMemAllocAsync", 801), 0);
    CHECK_STATUS(cudyn_mem_alloc_async(&p, 64, s), CUDYN_ERROR_NOT_SUPPORTED);
    expect_message("CUDYN_ATTR_MEMORY_POOLS_SUPPORTED");
    expect_message("use cudyn_mem_alloc");
    cudyn_stream_destroy(s);
}

static void test_managed(void)
{
    cudyn_devptr m = 0;
    CHECK_STATUS(cudyn_mem_alloc_managed(&m, 4096, CUDYN_MEM_ATTACH_GLOBAL), CUDYN_OK);
    float *host = (float *)(uintptr_t)m; /* valid on the host */
    for (int i = 0; i < 1024; i++)
        host[i] = (float)i;
    long v2 = mock_call_count("cuMemPrefetchAsync_v2");
    CHECK_STATUS(cudyn_mem_prefetch(m, 4096, 1, NULL), CUDYN_OK);
    CHECK_EQ_INT(mock_prefetch_location(m), 1);
    CHECK_EQ_INT(mock_call_count("cuMemPrefetchAsync_v2"), v2 + 1);
    CHECK_STATUS(cudyn_mem_prefetch(m + 1024, 1024, CUDYN_HOST, NULL), CUDYN_OK);
    CHECK_EQ_INT(mock_prefetch_location(m), -1);
    CHECK_STATUS(cudyn_mem_advise(m, 4096, CUDYN_ADVISE_SET_READ_MOSTLY, 0), CUDYN_OK);
    CHECK_STATUS(cudyn_mem_advise(m, 4096, CUDYN_ADVISE_SET_PREFERRED_LOCATION, CUDYN_HOST), CUDYN_OK);
    CHECK_STATUS(cudyn_mem_advise(m, 4096, CUDYN_ADVISE_SET_ACCESSED_BY, 1), CUDYN_OK);
    CHECK(host[1023] == 1023.0f);

    /* bad arguments */
    cudyn_devptr p = 1;
    CHECK_STATUS(cudyn_mem_alloc_managed(&p, 64, 0), CUDYN_ERROR_INVALID_ARGUMENT);
    expect_message("'flags'");
    CHECK(p == 0);
    CHECK_STATUS(cudyn_mem_alloc_managed(&p, 0, CUDYN_MEM_ATTACH_HOST), CUDYN_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(cudyn_mem_prefetch(m, 4096, -5, NULL), CUDYN_ERROR_INVALID_ARGUMENT);
    expect_message("'location'");
    CHECK_STATUS(cudyn_mem_prefetch(m, 4096, 9, NULL), CUDYN_ERROR_INVALID_DEVICE);
    CHECK_STATUS(cudyn_mem_prefetch(0, 4096, 0, NULL), CUDYN_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(cudyn_mem_prefetch(m, 0, 0, NULL), CUDYN_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(cudyn_mem_advise(m, 4096, 7, 0), CUDYN_ERROR_INVALID_ARGUMENT);
    expect_message("'advice'");
    /* device memory is not managed: the driver refuses */
    cudyn_devptr d = 0;
    CHECK_STATUS(cudyn_mem_alloc(&d, 64), CUDYN_OK);
    CHECK_STATUS(cudyn_mem_prefetch(d, 64, 0, NULL), CUDYN_ERROR_INVALID_ARGUMENT);
    expect_message("cuMemPrefetchAsync returned CUDA_ERROR_INVALID_VALUE");
    CHECK_EQ_INT(mock_fail_next("cuMemAllocManaged", 801), 0);
    CHECK_STATUS(cudyn_mem_alloc_managed(&p, 64, CUDYN_MEM_ATTACH_GLOBAL), CUDYN_ERROR_NOT_SUPPORTED);
    expect_message("CUDYN_ATTR_MANAGED_MEMORY");
    cudyn_mem_free(d);
    CHECK_STATUS(cudyn_mem_free(m), CUDYN_OK);
}

static void test_pointers(void)
{
    cudyn_devptr d = 0, m = 0, d1 = 0;
    void *pinned = NULL;
    int on_stack = 0;
    CHECK_STATUS(cudyn_mem_alloc(&d, 256), CUDYN_OK);
    CHECK_STATUS(cudyn_mem_alloc_managed(&m, 256, CUDYN_MEM_ATTACH_GLOBAL), CUDYN_OK);
    CHECK_STATUS(cudyn_host_alloc(&pinned, 256), CUDYN_OK);
    CHECK_STATUS(cudyn_device_use(1), CUDYN_OK);
    CHECK_STATUS(cudyn_mem_alloc(&d1, 64), CUDYN_OK);
    CHECK_STATUS(cudyn_device_use(0), CUDYN_OK);
    static const struct {
        int which, kind, device;
    } want[] = {{0, CUDYN_POINTER_DEVICE, 0}, {1, CUDYN_POINTER_MANAGED, 0}, {2, CUDYN_POINTER_HOST, 0},
                {3, CUDYN_POINTER_DEVICE, 1}, {4, CUDYN_POINTER_UNREGISTERED, -1}};
    const cudyn_devptr ptrs[] = {d + 100, m, (cudyn_devptr)(uintptr_t)pinned, d1, (cudyn_devptr)(uintptr_t)&on_stack};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        struct cudyn_pointer_info info = {.size = sizeof info};
        CHECK_STATUS(cudyn_pointer_info(ptrs[want[i].which], &info), CUDYN_OK);
        CHECK_EQ_INT(info.kind, want[i].kind);
        CHECK_EQ_INT(info.device, want[i].device);
    }
    struct cudyn_pointer_info info = {.size = sizeof info};
    CHECK_STATUS(cudyn_pointer_info(d + 100, &info), CUDYN_OK);
    CHECK(info.range_start == d && info.range_bytes == 256);
    CHECK_STATUS(cudyn_pointer_info((cudyn_devptr)(uintptr_t)&on_stack, &info), CUDYN_OK);
    CHECK(info.range_start == 0 && info.range_bytes == 0);
    CHECK_STATUS(cudyn_pointer_info(d, NULL), CUDYN_ERROR_INVALID_ARGUMENT);
    info.size = 3;
    CHECK_STATUS(cudyn_pointer_info(d, &info), CUDYN_ERROR_INVALID_ARGUMENT);
    expect_message("out->size");
    cudyn_mem_free(d);
    cudyn_mem_free(m);
    cudyn_host_free(pinned);
    CHECK_STATUS(cudyn_device_use(1), CUDYN_OK);
    cudyn_mem_free(d1);
    CHECK_STATUS(cudyn_device_use(0), CUDYN_OK);
}

/* ---- fault injection ---- */

static int op_async(void)
{
    cudyn_devptr p = 0;
    int st = cudyn_mem_alloc_async(&p, 4096, NULL);
    if (st != CUDYN_OK)
        return st;
    st = cudyn_mem_free_async(p, NULL);
    if (st != CUDYN_OK)
        cudyn_mem_free_async(p, NULL); /* the driver kept it: free for real */
    int sync = cudyn_synchronize();
    return st != CUDYN_OK ? st : sync;
}

static int op_pool(void)
{
    uint64_t v = 0;
    int st = cudyn_mem_pool_attribute(0, CUDYN_POOL_RESERVED_CURRENT, &v);
    if (st == CUDYN_OK)
        st = cudyn_mem_pool_set_release_threshold(0, 0);
    if (st == CUDYN_OK)
        st = cudyn_mem_pool_trim(0, 0);
    return st;
}

static int op_managed(void)
{
    cudyn_devptr m = 0;
    int st = cudyn_mem_alloc_managed(&m, 4096, CUDYN_MEM_ATTACH_GLOBAL);
    if (st != CUDYN_OK)
        return st;
    st = cudyn_mem_prefetch(m, 4096, 0, NULL);
    if (st == CUDYN_OK)
        st = cudyn_mem_advise(m, 4096, CUDYN_ADVISE_SET_PREFERRED_LOCATION, 0);
    struct cudyn_pointer_info info = {.size = sizeof info};
    if (st == CUDYN_OK)
        st = cudyn_pointer_info(m, &info);
    cudyn_mem_free(m);
    return st;
}

/* Pools give back what they held at a synchronisation. */
static void pools_give_back(void)
{
    CHECK_EQ_INT(cudyn_synchronize(), CUDYN_OK);
}

static void test_fault_injection(void)
{
    static const struct fault_case cases[] = {
        {"cuMemAllocAsync", op_async},       {"cuMemFreeAsync", op_async},
        {"cuDeviceGetDefaultMemPool", op_pool}, {"cuMemPoolGetAttribute", op_pool},
        {"cuMemPoolSetAttribute", op_pool},  {"cuMemPoolTrimTo", op_pool},
        {"cuMemAllocManaged", op_managed},   {"cuMemPrefetchAsync_v2", op_managed},
        {"cuMemAdvise_v2", op_managed},      {"cuPointerGetAttributes", op_managed},
    };
    static const struct fault_code codes[] = {
        {2, CUDYN_ERROR_OUT_OF_MEMORY}, {999, CUDYN_ERROR_DRIVER}, {700, CUDYN_ERROR_ILLEGAL_ADDRESS},
    };
    FAULT_SWEEP(cases, codes, pools_give_back);
}

/* CUDA 12.0: prefetch and advice through the v1 functions. */
static int child_cuda_12_0(void)
{
    use_mock_driver();
    CHECK(!cudyn_has("cuMemPrefetchAsync_v2") && cudyn_has("cuMemPrefetchAsync"));
    cudyn_devptr m = 0;
    CHECK_STATUS(cudyn_mem_alloc_managed(&m, 4096, CUDYN_MEM_ATTACH_GLOBAL), CUDYN_OK);
    CHECK_STATUS(cudyn_mem_prefetch(m, 4096, 1, NULL), CUDYN_OK);
    CHECK_EQ_INT(mock_prefetch_location(m), 1);
    CHECK_STATUS(cudyn_mem_prefetch(m, 4096, CUDYN_HOST, NULL), CUDYN_OK);
    CHECK_EQ_INT(mock_prefetch_location(m), -1);
    CHECK_EQ_INT(mock_call_count("cuMemPrefetchAsync"), 2);
    CHECK_STATUS(cudyn_mem_advise(m, 4096, CUDYN_ADVISE_SET_ACCESSED_BY, CUDYN_HOST), CUDYN_OK);
    CHECK_EQ_INT(mock_call_count("cuMemAdvise"), 1);
    CHECK_EQ_INT(mock_call_count("cuMemAdvise_v2"), 0);
    CHECK_STATUS(cudyn_mem_free(m), CUDYN_OK);
    return test_failures ? 1 : 0;
}

/* CUDA 11.0: no pools; managed memory and pointer queries work. */
static int child_cuda_11_0(void)
{
    use_mock_driver();
    cudyn_devptr p = 0;
    CHECK_STATUS(cudyn_mem_alloc_async(&p, 64, NULL), CUDYN_ERROR_SYMBOL_NOT_FOUND);
    expect_message("does not provide cuMemAllocAsync");
    uint64_t v = 0;
    CHECK_STATUS(cudyn_mem_pool_attribute(0, CUDYN_POOL_USED_CURRENT, &v), CUDYN_ERROR_SYMBOL_NOT_FOUND);
    CHECK_STATUS(cudyn_mem_alloc_managed(&p, 64, CUDYN_MEM_ATTACH_GLOBAL), CUDYN_OK);
    struct cudyn_pointer_info info = {.size = sizeof info};
    CHECK_STATUS(cudyn_pointer_info(p, &info), CUDYN_OK);
    CHECK_EQ_INT(info.kind, CUDYN_POINTER_MANAGED);
    CHECK_STATUS(cudyn_mem_prefetch(p, 64, 0, NULL), CUDYN_OK);
    CHECK_EQ_INT(mock_prefetch_location(p), 0);
    CHECK_STATUS(cudyn_mem_free(p), CUDYN_OK);
    return test_failures ? 1 : 0;
}

int main(int argc, char **argv)
{
    setenv("MOCK_CUDA_DEVICES", "A:90,B:80", 1);
    if (argc == 2 && strcmp(argv[1], "cuda-12.0") == 0)
        return child_cuda_12_0();
    if (argc == 2 && strcmp(argv[1], "cuda-11.0") == 0)
        return child_cuda_11_0();
    use_mock_driver();
    size_t memory = mock_device_memory_in_use();
    test_stream_ordered();
    test_managed();
    test_pointers();
    test_fault_injection();
    CHECK_EQ_INT(mock_device_memory_in_use(), memory);
    CHECK_EQ_INT(test_run_child(argv[0], "cuda-12.0", "MOCK_LIBCUDA", "12000"), 0);
    CHECK_EQ_INT(test_run_child(argv[0], "cuda-11.0", "MOCK_LIBCUDA_V11_0", "11000"), 0);
    return test_result("test_memory_ext");
}
