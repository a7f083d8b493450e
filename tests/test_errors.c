/*
 * test_errors.c - every public function refuses bad arguments with
 * CUDYN_ERROR_INVALID_ARGUMENT and a message naming the argument, and the
 * last error is kept per thread.
 */
#include "config.h"

#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cudyn.h"
#include "testutil.h"

/* The call fails with INVALID_ARGUMENT and the message names `arg`. */
#define CHECK_BAD_ARG(call, arg)                                 \
    do {                                                         \
        CHECK_STATUS(call, CUDYN_ERROR_INVALID_ARGUMENT);        \
        cudyn_error e_ = {.size = sizeof e_};                    \
        cudyn_last_error(&e_);                                   \
        CHECK_CONTAINS(e_.message, "'" arg "'");                 \
        CHECK_EQ_INT(e_.origin, CUDYN_ORIGIN_LIBRARY);           \
    } while (0)

/* Bad arguments: the loader: init flags, loader info, driver and NVRTC entry points. */
static void test_bad_arguments_loader(void)
{
    CHECK_BAD_ARG(cudyn_init(0x100), "flags");
    CHECK_BAD_ARG(cudyn_init(CUDYN_INIT_LEGACY_STREAM | CUDYN_INIT_PER_THREAD_STREAM), "flags");
    CHECK_BAD_ARG(cudyn_loader_info(NULL), "out");
    struct cudyn_loader_info li = {0};
    CHECK_BAD_ARG(cudyn_loader_info(&li), "out->size");
    CHECK(cudyn_driver_proc(NULL, 3020) == NULL);
    CHECK(cudyn_driver_proc("cuMemAlloc", 0) == NULL);
    CHECK(cudyn_nvrtc_proc(NULL) == NULL);
    CHECK_EQ_INT(cudyn_has(NULL), 0);
    CHECK_EQ_INT(cudyn_has(""), 0);
    char line[64] = "untouched";
    CHECK_BAD_ARG(cudyn_versions_line(NULL, sizeof line, -1, NULL), "buf");
    CHECK_BAD_ARG(cudyn_versions_line(line, 0, -1, NULL), "cap");
    CHECK(strcmp(line, "untouched") == 0);
    CHECK_BAD_ARG(cudyn_versions_line(line, sizeof line, -2, NULL), "device");
    CHECK_EQ_INT(line[0], 0);
    /* cut short, terminated, marked */
    CHECK_STATUS(cudyn_versions_line(line, 16, -1, NULL), CUDYN_OK);
    CHECK_EQ_INT((int)strlen(line), 15);
    CHECK_CONTAINS(line, "...");
}

/* Bad arguments: devices: counts, info, attributes, selection, peers, reset. */
static void test_bad_arguments_devices(void)
{
    int v = 0;

    CHECK_BAD_ARG(cudyn_device_count(NULL), "count");
    CHECK_BAD_ARG(cudyn_device_info(0, NULL), "out");
    struct cudyn_device_info di = {0};
    CHECK_BAD_ARG(cudyn_device_info(0, &di), "out->size");
    CHECK_STATUS(cudyn_device_info(7, &(struct cudyn_device_info){.size = sizeof di}), CUDYN_ERROR_INVALID_DEVICE);
    CHECK_STATUS(cudyn_device_info(-1, &(struct cudyn_device_info){.size = sizeof di}), CUDYN_ERROR_INVALID_DEVICE);
    CHECK_BAD_ARG(cudyn_device_attribute(0, CUDYN_ATTR_WARP_SIZE, NULL), "value");
    CHECK_BAD_ARG(cudyn_device_attribute(0, 0, &v), "attr");
    CHECK_STATUS(cudyn_device_attribute(0, 100000, &v), CUDYN_ERROR_NOT_SUPPORTED);
    CHECK_STATUS(cudyn_device_attribute(5, CUDYN_ATTR_WARP_SIZE, &v), CUDYN_ERROR_INVALID_DEVICE);
    CHECK(cudyn_device_attr_name(0) == NULL);
    CHECK(cudyn_device_attr_name(-3) == NULL);
    CHECK(cudyn_device_attr_name(100000) == NULL);
    CHECK(strcmp(cudyn_device_attr_name(CUDYN_ATTR_MULTIPROCESSOR_COUNT), "multiprocessor_count") == 0);
    CHECK_STATUS(cudyn_device_use(9), CUDYN_ERROR_INVALID_DEVICE);
    CHECK_STATUS(cudyn_device_use(-1), CUDYN_ERROR_INVALID_DEVICE);
    CHECK_BAD_ARG(cudyn_device_current(NULL), "ordinal");
    CHECK_BAD_ARG(cudyn_device_can_access_peer(0, 0, NULL), "can");
    CHECK_STATUS(cudyn_device_can_access_peer(0, 9, &v), CUDYN_ERROR_INVALID_DEVICE);
    CHECK_STATUS(cudyn_device_reset(9), CUDYN_ERROR_INVALID_DEVICE);
}

/* Bad arguments: the NVML listing (through the NVML mock, which sees the
 * CUDA mock's one GPU). */
static void test_bad_arguments_nvml(void)
{
    const char *top = getenv("top_builddir");
    char path[4096];
    if (top) {
        snprintf(path, sizeof path, "%s/tests/mock/nvml/.libs/libnvidia-ml.so.1", top);
        setenv("CUDYN_LIBNVML", path, 1);
    }
    CHECK_BAD_ARG(cudyn_nvml_device_count(NULL), "count");
    CHECK_BAD_ARG(cudyn_nvml_device_info(0, NULL), "out");
    struct cudyn_nvml_device nd = {0};
    CHECK_BAD_ARG(cudyn_nvml_device_info(0, &nd), "out->size");
    CHECK_STATUS(cudyn_nvml_device_info(-1, &(struct cudyn_nvml_device){.size = sizeof nd}),
                 CUDYN_ERROR_INVALID_DEVICE);
    if (!top)
        return;
    int n = -1;
    CHECK_STATUS(cudyn_nvml_device_count(&n), CUDYN_OK);
    CHECK_EQ_INT(n, 1);
    CHECK_STATUS(cudyn_nvml_device_info(1, &(struct cudyn_nvml_device){.size = sizeof nd}),
                 CUDYN_ERROR_INVALID_DEVICE);
    cudyn_error e = {.size = sizeof e};
    cudyn_last_error(&e);
    CHECK_CONTAINS(e.message, "index 1 is out of range (NVML sees 1 GPU)");
    /* an old caller's smaller struct: only its part is written */
    struct cudyn_nvml_device big;
    memset(&big, 0x5a, sizeof big);
    big.size = offsetof(struct cudyn_nvml_device, uuid);
    CHECK_STATUS(cudyn_nvml_device_info(0, &big), CUDYN_OK);
    CHECK(strcmp(big.name, "Mock GPU") == 0);
    CHECK_EQ_INT(big.uuid[0], 0x5a);
    nd.size = sizeof nd;
    CHECK_STATUS(cudyn_nvml_device_info(0, &nd), CUDYN_OK);
    CHECK(strcmp(nd.uuid, "GPU-10111213-1415-1617-1819-1a1b1c1d1e1f") == 0);
    CHECK(strcmp(nd.pci_bus_id, "0000:17:00.0") == 0);
    CHECK_EQ_INT(nd.mig_mode, -1);
    /* a caller of the struct before cpu_affinity was appended: not written */
    memset(&big, 0x5a, sizeof big);
    big.size = offsetof(struct cudyn_nvml_device, cpu_affinity_status);
    CHECK_STATUS(cudyn_nvml_device_info(0, &big), CUDYN_OK);
    CHECK(strcmp(big.driver_version, "575.57.08") == 0);
    CHECK_EQ_INT(big.cpu_affinity_status, 0x5a5a5a5a);
    /* the NVML record of a CUDA ordinal */
    CHECK_BAD_ARG(cudyn_nvml_device_for_ordinal(0, NULL), "out");
    nd.size = 0;
    CHECK_BAD_ARG(cudyn_nvml_device_for_ordinal(0, &nd), "out->size");
    nd.size = sizeof nd;
    CHECK_STATUS(cudyn_nvml_device_for_ordinal(-1, &nd), CUDYN_ERROR_INVALID_DEVICE);
    CHECK_STATUS(cudyn_nvml_device_for_ordinal(9, &nd), CUDYN_ERROR_INVALID_DEVICE);
    CHECK_STATUS(cudyn_nvml_device_for_ordinal(0, &nd), CUDYN_OK);
    CHECK_EQ_INT(nd.index, 0);
    CHECK_EQ_INT(nd.cpu_affinity_status, CUDYN_ERROR_NOT_SUPPORTED); /* MOCK_NVML_CPUS unset */
}

/* Bad arguments: the collectives (the mock NCCL) and CUDA-aware MPI.
 * test_nccl has those that need a communicator: a wrong rank, a count
 * past the buffer, a destroyed one. */
static void test_bad_arguments_nccl(void)
{
    const char *mock = getenv("MOCK_LIBNCCL");
    if (mock)
        setenv("CUDYN_LIBNCCL", mock, 1);
    CHECK_BAD_ARG(cudyn_mpi_cuda_support(NULL), "out");
    CHECK_BAD_ARG(cudyn_mpi_cuda_support(&(struct cudyn_mpi_cuda){.size = 0}), "out");
    CHECK_BAD_ARG(cudyn_nccl_info(NULL), "out");
    CHECK_BAD_ARG(cudyn_nccl_info(&(struct cudyn_nccl_info){.size = 0}), "out");
    if (!mock)
        return;
    cudyn_nccl_id id = {{0}};
    cudyn_nccl_comm c = NULL;
    CHECK_BAD_ARG(cudyn_nccl_unique_id(NULL), "out");
    CHECK_BAD_ARG(cudyn_nccl_comm_init_rank(NULL, 1, &id, 0), "out");
    CHECK_BAD_ARG(cudyn_nccl_comm_init_rank(&c, 1, NULL, 0), "id");
    CHECK_BAD_ARG(cudyn_nccl_comm_init_rank(&c, 0, &id, 0), "nranks");
    CHECK_STATUS(cudyn_nccl_comm_init_rank(&c, 2, &id, 5), CUDYN_ERROR_INVALID_ARGUMENT);
    CHECK_BAD_ARG(cudyn_nccl_comm_init_all(NULL, 1, NULL), "comms");
    CHECK_BAD_ARG(cudyn_nccl_comm_init_all(&c, 0, NULL), "ndev");
    CHECK_BAD_ARG(cudyn_nccl_comm_split(NULL, 0, 0, &c), "comm");
    CHECK_BAD_ARG(cudyn_nccl_comm_split(c, 0, 0, NULL), "out");
    CHECK_BAD_ARG(cudyn_nccl_comm_rank(NULL, NULL, NULL, NULL), "comm");
    CHECK_BAD_ARG(cudyn_nccl_comm_check(NULL), "comm");
    CHECK_BAD_ARG(cudyn_nccl_comm_wait(NULL, NULL, 0), "comm");
    CHECK_BAD_ARG(cudyn_nccl_comm_abort(NULL), "comm");
    CHECK_STATUS(cudyn_nccl_comm_destroy(NULL), CUDYN_OK);
    CHECK_BAD_ARG(cudyn_nccl_all_reduce(NULL, 0, 0, 1, 'f', CUDYN_NCCL_SUM, NULL), "comm");
    CHECK_BAD_ARG(cudyn_nccl_broadcast(NULL, 0, 0, 1, 'f', 0, NULL), "comm");
    CHECK_BAD_ARG(cudyn_nccl_reduce(NULL, 0, 0, 1, 'f', CUDYN_NCCL_SUM, 0, NULL), "comm");
    CHECK_BAD_ARG(cudyn_nccl_all_gather(NULL, 0, 0, 1, 'f', NULL), "comm");
    CHECK_BAD_ARG(cudyn_nccl_reduce_scatter(NULL, 0, 0, 1, 'f', CUDYN_NCCL_SUM, NULL), "comm");
    CHECK_BAD_ARG(cudyn_nccl_send(NULL, 0, 1, 'f', 0, NULL), "comm");
    CHECK_BAD_ARG(cudyn_nccl_recv(NULL, 0, 1, 'f', 0, NULL), "comm");
    /* with a communicator of one rank: a type, an operation, a buffer */
    CHECK_STATUS(cudyn_nccl_comm_init_all(&c, 1, NULL), CUDYN_OK);
    CHECK_BAD_ARG(cudyn_nccl_all_reduce(c, 0, 0, 1, '?', CUDYN_NCCL_SUM, NULL), "dtype");
    CHECK_BAD_ARG(cudyn_nccl_all_reduce(c, 0, 0, 1, 'f', 9, NULL), "op");
    CHECK_BAD_ARG(cudyn_nccl_all_reduce(c, 0, 0, 1, 'f', CUDYN_NCCL_SUM, NULL), "send");
    CHECK_STATUS(cudyn_nccl_comm_destroy(c), CUDYN_OK);
}

/* Bad arguments: memory: allocations, copies and sets, sync and async. */
static void test_bad_arguments_memory(void)
{
    cudyn_devptr d = 0;
    void *h = NULL;
    size_t sz = 0;
    char buf[16];

    CHECK_BAD_ARG(cudyn_mem_alloc(NULL, 16), "out");
    CHECK_BAD_ARG(cudyn_mem_alloc(&d, 0), "bytes");
    CHECK_BAD_ARG(cudyn_host_alloc(NULL, 16), "out");
    CHECK_BAD_ARG(cudyn_host_alloc(&h, 0), "bytes");
    CHECK_BAD_ARG(cudyn_mem_info(NULL, &sz), "free_bytes");
    CHECK_BAD_ARG(cudyn_mem_info(&sz, NULL), "total_bytes");
    CHECK_BAD_ARG(cudyn_memcpy_htod(0, buf, 4), "dst");
    CHECK_BAD_ARG(cudyn_memcpy_htod(4096, NULL, 4), "src");
    CHECK_BAD_ARG(cudyn_memcpy_dtoh(NULL, 4096, 4), "dst");
    CHECK_BAD_ARG(cudyn_memcpy_dtoh(buf, 0, 4), "src");
    CHECK_BAD_ARG(cudyn_memcpy_dtod(0, 4096, 4), "dst");
    CHECK_BAD_ARG(cudyn_memcpy_dtod(4096, 0, 4), "src");
    CHECK_BAD_ARG(cudyn_memcpy_htod_async(0, buf, 4, NULL), "dst");
    CHECK_BAD_ARG(cudyn_memcpy_dtoh_async(NULL, 4096, 4, NULL), "dst");
    CHECK_BAD_ARG(cudyn_memcpy_dtod_async(4096, 0, 4, NULL), "src");
    CHECK_STATUS(cudyn_memcpy_htod(0, NULL, 0), CUDYN_OK); /* size 0: nothing to do */
    CHECK_BAD_ARG(cudyn_memset_d8(0, 1, 4), "dst");
    CHECK_BAD_ARG(cudyn_memset_d16(4097, 1, 4), "dst");
    CHECK_BAD_ARG(cudyn_memset_d32(4098, 1, 4), "dst");
    CHECK_BAD_ARG(cudyn_memset_d32_async(4098, 1, 4, NULL), "dst");
}

/* Bad arguments: streams and events. */
static void test_bad_arguments_streams_events(void)
{
    float ms = 0;
    cudyn_stream s = NULL;
    cudyn_event ev = NULL;

    CHECK_BAD_ARG(cudyn_stream_create(NULL, 0), "out");
    CHECK_BAD_ARG(cudyn_stream_create(&s, 0x80), "flags");
    CHECK_BAD_ARG(cudyn_stream_destroy(NULL), "stream");
    CHECK_BAD_ARG(cudyn_stream_wait_event(NULL, NULL), "event");
    CHECK_BAD_ARG(cudyn_event_create(NULL, 0), "out");
    CHECK_BAD_ARG(cudyn_event_create(&ev, 0x40), "flags");
    CHECK_BAD_ARG(cudyn_event_destroy(NULL), "event");
    CHECK_BAD_ARG(cudyn_event_record(NULL, NULL), "event");
    CHECK_BAD_ARG(cudyn_event_synchronize(NULL), "event");
    CHECK_BAD_ARG(cudyn_event_query(NULL), "event");
    CHECK_BAD_ARG(cudyn_event_elapsed_ms(NULL, ev, ev), "ms");
    CHECK_BAD_ARG(cudyn_event_elapsed_ms(&ms, NULL, ev), "start");
}

/* Bad arguments: compiling: sources and options; a refused compile leaves no program. */
static void test_bad_arguments_compile(void)
{
    size_t sz = 0;
    cudyn_program *prog = NULL;

    CHECK_BAD_ARG(cudyn_compile(NULL, "x", NULL, 0, NULL, 0), "out");
    CHECK_BAD_ARG(cudyn_compile(&prog, NULL, NULL, 0, NULL, 0), "source");
    CHECK_BAD_ARG(cudyn_compile(&prog, "x", NULL, 0, NULL, 2), "options");
    CHECK_BAD_ARG(cudyn_compile(&prog, "x", NULL, 0, NULL, -1), "num_options");
    const char *with_null[] = {"-std=c++17", NULL};
    CHECK_BAD_ARG(cudyn_compile(&prog, "x", NULL, 0, with_null, 2), "options");
    CHECK(prog == NULL);
    CHECK(strcmp(cudyn_program_log(NULL), "") == 0);
    CHECK(cudyn_program_image(NULL, &sz) == NULL && sz == 0);
    cudyn_program_free(NULL);
}

/* Bad arguments: modules, functions, globals, occupancy. */
static void test_bad_arguments_modules(void)
{
    size_t sz = 0;
    int v = 0;
    cudyn_module mod = NULL;
    cudyn_function fn = NULL;

    CHECK_BAD_ARG(cudyn_module_load(NULL, NULL), "out");
    CHECK_BAD_ARG(cudyn_module_load(&mod, NULL), "prog");
    CHECK_BAD_ARG(cudyn_module_load_image(&mod, NULL), "image");
    CHECK_BAD_ARG(cudyn_module_unload(NULL), "mod");
    CHECK_BAD_ARG(cudyn_module_function(NULL, mod, "k"), "out");
    CHECK_BAD_ARG(cudyn_module_function(&fn, NULL, "k"), "mod");
    CHECK_BAD_ARG(cudyn_module_global(NULL, &sz, mod, "g"), "ptr");
    CHECK_BAD_ARG(cudyn_function_info(NULL, NULL), "f");
    CHECK_BAD_ARG(cudyn_occupancy_max_blocks(NULL, fn, 128, 0), "blocks");
    CHECK_BAD_ARG(cudyn_occupancy_max_blocks(&v, NULL, 128, 0), "f");
    CHECK_BAD_ARG(cudyn_occupancy_block_size(NULL, &v, fn, 0, 0), "min_grid");
    CHECK_BAD_ARG(cudyn_occupancy_block_size(&v, NULL, fn, 0, 0), "block_size");
}

/* Bad arguments: launches: no kernel, an empty grid or block. */
static void test_bad_arguments_launch(void)
{
    cudyn_dim3 one = {1, 1, 1}, zero = {0, 1, 1};
    char buf[16];

    CHECK_BAD_ARG(cudyn_launch(NULL, one, one, 0, NULL, NULL), "f");
    CHECK_BAD_ARG(cudyn_launch((cudyn_function)(void *)buf, zero, one, 0, NULL, NULL), "grid");
    CHECK_BAD_ARG(cudyn_launch((cudyn_function)(void *)buf, one, zero, 0, NULL, NULL), "block");
}

/* Bad arguments: argument packs with In/Out buffers: no pack, an index out
 * of range or naming no buffer, a buffer without memory, a launch with a
 * value never set; with nothing launched, nothing to finish. */
static void test_bad_arguments_packs(void)
{
    cudyn_dim3 one = {1, 1, 1};
    char buf[16];
    cudyn_args *pack = NULL;
    CHECK_BAD_ARG(cudyn_args_set_buffer(NULL, 0, buf, 1), "args");
    CHECK_BAD_ARG(cudyn_args_launch_async(NULL, one, one, 0, NULL), "args");
    CHECK_BAD_ARG(cudyn_args_finish(NULL), "args");
    CHECK_STATUS(cudyn_args_create(&pack, (cudyn_function)(void *)buf, "f<"), CUDYN_OK);
    CHECK_BAD_ARG(cudyn_args_set_buffer(pack, 2, buf, 1), "index");
    CHECK_BAD_ARG(cudyn_args_set_buffer(pack, -1, buf, 1), "index");
    CHECK_BAD_ARG(cudyn_args_set_buffer(pack, 0, buf, 1), "index"); /* 'f' is a value */
    CHECK_STATUS(cudyn_args_set_buffer(pack, 1, NULL, 8), CUDYN_ERROR_INVALID_ARGUMENT);
    cudyn_error e = {.size = sizeof e};
    cudyn_last_error(&e);
    CHECK_CONTAINS(e.message, "argument 2 ('<') has no host memory for 8 bytes");
    CHECK_STATUS(cudyn_args_set_buffer(pack, 1, buf, sizeof buf), CUDYN_OK);
    CHECK_STATUS(cudyn_args_launch_async(pack, one, one, 0, NULL), CUDYN_ERROR_INVALID_ARGUMENT);
    cudyn_last_error(&e);
    CHECK_CONTAINS(e.message, "argument 1 ('f') was never set");
    CHECK_STATUS(cudyn_args_finish(pack), CUDYN_OK);
    cudyn_args_free(pack);
}

/* cudyn_last_error honours a smaller (older) struct. */
/* Bad arguments: textures and surfaces (issue 24, row 8): a NULL array, a
 * zero device and bad fields are named before any driver is needed. */
static void test_bad_arguments_textures(void)
{
    cudyn_texture t = 0;
    cudyn_surface s = 0;
    struct cudyn_texture_desc d = {.size = sizeof d, .resource = CUDYN_RESOURCE_ARRAY};
    CHECK_BAD_ARG(cudyn_texture_create(&t, &d), "desc->array");
    d.resource = CUDYN_RESOURCE_LINEAR;
    CHECK_BAD_ARG(cudyn_texture_create(&t, &d), "desc->device");
    d.resource = CUDYN_RESOURCE_PITCH2D;
    CHECK_BAD_ARG(cudyn_texture_create(&t, &d), "desc->device");
    d.resource = 99;
    CHECK_BAD_ARG(cudyn_texture_create(&t, &d), "desc->resource");
    d.resource = CUDYN_RESOURCE_ARRAY;
    d.array = (cudyn_array)(void *)&d; /* never read: a field before it is bad */
    d.filter = 7;
    CHECK_BAD_ARG(cudyn_texture_create(&t, &d), "desc->filter");
    d.filter = CUDYN_FILTER_POINT;
    d.read_mode = 9;
    CHECK_BAD_ARG(cudyn_texture_create(&t, &d), "desc->read_mode");
    d.read_mode = CUDYN_READ_ELEMENT_TYPE;
    d.address_mode[2] = 42;
    CHECK_BAD_ARG(cudyn_texture_create(&t, &d), "desc->address_mode[2]");
    CHECK_BAD_ARG(cudyn_texture_create(&t, NULL), "desc");
    CHECK_BAD_ARG(cudyn_surface_create(&s, NULL), "array");
    CHECK_BAD_ARG(cudyn_surface_create(NULL, NULL), "out");
}

static void test_error_struct_sizes(void)
{
    cudyn_mem_alloc(NULL, 1);
    struct {
        cudyn_error e;
        char guard[16];
    } small;
    memset(&small, 0x5A, sizeof small);
    small.e.size = offsetof(cudyn_error, message) + 8;
    CHECK_EQ_INT(cudyn_last_error(&small.e), CUDYN_ERROR_INVALID_ARGUMENT);
    CHECK_EQ_INT(small.e.size, offsetof(cudyn_error, message) + 8);
    CHECK_EQ_INT(strlen(small.e.message), 7);
    CHECK((unsigned char)small.e.message[8] == 0x5A); /* nothing written past size */
    CHECK(strcmp(small.e.function, "cudyn_mem_alloc") == 0);
    CHECK_EQ_INT(cudyn_last_error(NULL), CUDYN_ERROR_INVALID_ARGUMENT);
    cudyn_clear_error();
    cudyn_error e = {.size = sizeof e};
    CHECK_EQ_INT(cudyn_last_error(&e), CUDYN_OK);
    CHECK_EQ_INT(e.origin, CUDYN_ORIGIN_NONE);
}

/* Two threads failing differently each keep their own detail. */
static void *fail_in_thread(void *arg)
{
    int which = *(int *)arg;
    for (int i = 0; i < 1000; i++) {
        if (which)
            cudyn_mem_alloc(NULL, 1);
        else
            cudyn_stream_destroy(NULL);
        cudyn_error e = {.size = sizeof e};
        cudyn_last_error(&e);
        const char *expected = which ? "cudyn_mem_alloc" : "cudyn_stream_destroy";
        if (strcmp(e.function, expected) != 0)
            return (void *)1;
    }
    return NULL;
}

static void test_errors_per_thread(void)
{
    pthread_t t[2];
    int which[2] = {0, 1};
    for (int i = 0; i < 2; i++)
        pthread_create(&t[i], NULL, fail_in_thread, &which[i]);
    for (int i = 0; i < 2; i++) {
        void *r;
        pthread_join(t[i], &r);
        CHECK(r == NULL);
    }
}

/* The same bad arguments where no driver can be loaded: each must still be
 * named (INVALID_ARGUMENT), not answered with the loader's status, so
 * every function checks its arguments before the lazy load. */
static int no_driver(void)
{
    setenv("CUDYN_LIBCUDA", "/nonexistent/libcuda.so.1", 1);
    test_bad_arguments_loader();
    /* not test_bad_arguments_devices: whether an ordinal names a device,
     * or an attribute is known to this driver, only the driver can say */
    test_bad_arguments_memory();
    test_bad_arguments_streams_events();
    test_bad_arguments_compile();
    test_bad_arguments_modules();
    test_bad_arguments_launch();
    test_bad_arguments_packs();
    test_bad_arguments_textures();
    int n = 0;
    CHECK(cudyn_device_count(&n) != CUDYN_OK); /* there was truly no driver */
    return test_result("test_errors no-driver");
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "no-driver") == 0)
        return no_driver();
    use_mock_driver();
    CHECK_EQ_INT(run_self(argv[0], "no-driver"), 0);
    test_bad_arguments_loader();
    test_bad_arguments_devices();
    test_bad_arguments_nvml();
    test_bad_arguments_memory();
    test_bad_arguments_streams_events();
    test_bad_arguments_compile();
    test_bad_arguments_modules();
    test_bad_arguments_launch();
    test_bad_arguments_packs();
    test_bad_arguments_textures();
    test_bad_arguments_nccl();
    test_error_struct_sizes();
    test_errors_per_thread();
    return test_result("test_errors");
}
