/*
 * probe.c - runs cudyn calls named on the command line and prints what
 * happened, one "key=value" line each, for the shell tests that need a
 * fresh process per environment (loader search, dispatch per driver).
 *
 *   probe [preload=PATH] [init=FLAGS] info | has=NAME | proc=NAME@VER |
 *         copy | event | meminfo | calls=FN | requests | count |
 *         devices | memory | stream | compile | source | peer | graph | pool |
 *         texture | launch_ex | managed | expr | image | nccl | buffers | link |
 *         versions[=INCLUDE_DIR] | load-ptx=FILE | compile-error[=INCLUDE_DIR] |
 *         launch-block=THREADS
 *
 * The last sixteen are whole workflows of the public API, each stopping at its
 * first failure and cleaning up what it made, as an application does; the
 * fault-injection sweep (tests/fault-sweep.sh) fails every driver and NVRTC
 * call they make in turn.
 */
#include "config.h"

#include <dlfcn.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cudyn.h"
#include "mock/mock_control.h"

static void print_error(const char *what, int st)
{
    cudyn_error e = {.size = sizeof e};
    cudyn_last_error(&e);
    printf("%s=%s\n", what, cudyn_status_name(st));
    if (st != CUDYN_OK)
        printf("%s.message=%s\n%s.function=%s\n", what, e.message, what, e.function);
}

static void info(void)
{
    struct cudyn_loader_info l = {.size = sizeof l};
    cudyn_loader_info(&l);
    printf("driver_status=%s\ninit_status=%s\n", cudyn_status_name(l.driver_status), cudyn_status_name(l.init_status));
    printf("driver_path=%s\ndriver_found_by=%s\ndriver_version=%d\n", l.driver_path ? l.driver_path : "",
           l.driver_found_by ? l.driver_found_by : "", l.driver_version);
    printf("entry_mechanism=%d\nsymbols_bound=%d\nsymbols_missing=%d\nper_thread_stream=%d\n", l.entry_mechanism,
           l.symbols_bound, l.symbols_missing, l.per_thread_stream);
    printf("nvrtc_status=%s\nnvrtc_version=%d\n", cudyn_status_name(l.nvrtc_status), l.nvrtc_version);
    printf("kernel_module_version=%s\nkernel_module_file=%s\ndriver_release=%s\ndriver_is_compat=%d\n",
           l.kernel_module_version ? l.kernel_module_version : "", l.kernel_module_file ? l.kernel_module_file : "",
           l.driver_release ? l.driver_release : "", l.driver_is_compat);
    printf("compat_policy=%s\ncompat_path=%s\ncompat_decision=%s\ncompat_probe_result=%d\n",
           l.compat_policy ? l.compat_policy : "", l.compat_path ? l.compat_path : "",
           l.compat_decision ? l.compat_decision : "", l.compat_probe_result);
    printf("--- driver trace\n%s--- end\n", l.driver_trace ? l.driver_trace : "");
    if (l.driver_status != CUDYN_OK)
        print_error("load", l.driver_status);
}

/* ------------------------------------------------------------ workflows */

/* Each returns the status of its first failed step (CUDYN_OK if none).
 * STEP runs a call only while everything before it succeeded; RELEASE
 * always runs (cleaning up), and its failure counts too. */
#define STEP(call)            \
    do {                      \
        if (st == CUDYN_OK)   \
            st = (call);      \
    } while (0)
#define RELEASE(call)                     \
    do {                                  \
        int release_ = (call);            \
        if (st == CUDYN_OK)               \
            st = release_;                \
    } while (0)

enum { N = 4096 };

static const char saxpy_source[] =
    "extern \"C\" __global__ void saxpy(float a, const float *x, const float *y, float *out, size_t n)\n"
    "{\n"
    "    size_t i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n)\n"
    "        out[i] = a * x[i] + y[i];\n"
    "}\n";

static void fill(float *x, float *y)
{
    for (int i = 0; i < N; i++) {
        x[i] = (float)(i % 1024);
        y[i] = (float)(i % 37);
    }
}

/* out == 2 x + y exactly (the values are small integers) */
static bool saxpy_ok(const float *x, const float *y, const float *out)
{
    for (int i = 0; i < N; i++)
        if (out[i] != 2.0f * x[i] + y[i])
            return false;
    return true;
}

/* Every device described, an attribute read, each one selected. */
static int devices(void)
{
    int n = 0, st = cudyn_device_count(&n);
    for (int i = 0; i < n && st == CUDYN_OK; i++) {
        struct cudyn_device_info info = {.size = sizeof info};
        int sms = 0, current = -1;
        STEP(cudyn_device_info(i, &info));
        STEP(cudyn_device_attribute(i, CUDYN_ATTR_MULTIPROCESSOR_COUNT, &sms));
        STEP(cudyn_device_use(i));
        STEP(cudyn_device_current(&current));
        if (st == CUDYN_OK && current != i)
            st = CUDYN_ERROR_INVALID_DEVICE;
    }
    printf("devices.count=%d\n", n);
    return st;
}

/* Device and pinned memory: set, copy in every direction, compare. */
static int memory(void)
{
    cudyn_devptr a = 0, b = 0;
    unsigned int *pinned = NULL, host[N];
    size_t free_bytes = 0, total = 0;
    int st = cudyn_mem_alloc(&a, sizeof host);
    STEP(cudyn_mem_alloc(&b, sizeof host));
    STEP(cudyn_host_alloc((void **)&pinned, sizeof host));
    STEP(cudyn_memset_d32(a, 0x01020304u, N));
    STEP(cudyn_memcpy_dtod(b, a, sizeof host));
    STEP(cudyn_memcpy_dtoh(pinned, b, sizeof host));
    STEP(cudyn_memset_d8(a, 0, sizeof host));
    STEP(cudyn_memcpy_htod(a, pinned, sizeof host));
    STEP(cudyn_memcpy_dtoh(host, a, sizeof host));
    STEP(cudyn_mem_info(&free_bytes, &total));
    if (st == CUDYN_OK)
        printf("memory.roundtrip=%d\n", host[0] == 0x01020304u && host[N - 1] == 0x01020304u);
    if (pinned)
        RELEASE(cudyn_host_free(pinned));
    if (b)
        RELEASE(cudyn_mem_free(b));
    if (a)
        RELEASE(cudyn_mem_free(a));
    return st;
}

/* Asynchronous copies on a stream of our own, ordered by an event. */
static int stream(void)
{
    cudyn_stream s = NULL;
    cudyn_event done = NULL;
    cudyn_devptr d = 0;
    float *pinned = NULL;
    int st = cudyn_stream_create(&s, CUDYN_STREAM_NON_BLOCKING);
    STEP(cudyn_event_create(&done, CUDYN_EVENT_DISABLE_TIMING));
    STEP(cudyn_mem_alloc(&d, N * sizeof(float)));
    STEP(cudyn_host_alloc((void **)&pinned, N * sizeof(float)));
    STEP(cudyn_memset_d32_async(d, 0x3f800000u, N, s)); /* 1.0f */
    STEP(cudyn_event_record(done, s));
    STEP(cudyn_stream_wait_event(NULL, done));
    STEP(cudyn_memcpy_dtoh_async(pinned, d, N * sizeof(float), s));
    STEP(cudyn_memcpy_htod_async(d, pinned, N * sizeof(float), s));
    STEP(cudyn_stream_synchronize(s));
    STEP(cudyn_stream_query(s));
    STEP(cudyn_event_synchronize(done));
    STEP(cudyn_event_query(done));
    if (st == CUDYN_OK)
        printf("stream.roundtrip=%d\n", pinned[0] == 1.0f && pinned[N - 1] == 1.0f);
    if (pinned)
        RELEASE(cudyn_host_free(pinned));
    if (d)
        RELEASE(cudyn_mem_free(d));
    if (done)
        RELEASE(cudyn_event_destroy(done));
    if (s)
        RELEASE(cudyn_stream_destroy(s));
    return st;
}

/* The SAXPY of the documentation step by step: compile, load, describe the
 * kernel, launch it with a format and with a reusable argument pack. */
static int compile(void)
{
    static float x[N], y[N], out[N];
    fill(x, y);
    cudyn_program *prog = NULL;
    cudyn_module mod = NULL;
    cudyn_function f = NULL;
    cudyn_args *pack = NULL;
    cudyn_devptr dx = 0, dy = 0, dout = 0;
    struct cudyn_function_info info = {.size = sizeof info};
    int blocks = 0, min_grid = 0, block = 0;
    size_t n = N;
    int st = cudyn_compile(&prog, saxpy_source, "saxpy.cu", 0, NULL, 0);
    STEP(cudyn_module_load(&mod, prog));
    STEP(cudyn_module_function(&f, mod, "saxpy"));
    STEP(cudyn_function_info(f, &info));
    STEP(cudyn_occupancy_max_blocks(&blocks, f, 256, 0));
    STEP(cudyn_occupancy_block_size(&min_grid, &block, f, 0, 0));
    STEP(cudyn_mem_alloc(&dx, sizeof x));
    STEP(cudyn_mem_alloc(&dy, sizeof y));
    STEP(cudyn_mem_alloc(&dout, sizeof out));
    STEP(cudyn_memcpy_htod(dx, x, sizeof x));
    STEP(cudyn_memcpy_htod(dy, y, sizeof y));
    STEP(cudyn_launchf(f, (cudyn_dim3){N / 256, 1, 1}, (cudyn_dim3){256, 1, 1}, 0, NULL, "fpppz", 2.0f, dx, dy,
                       dout, n));
    STEP(cudyn_args_create(&pack, f, "fpppz"));
    STEP(cudyn_args_set(pack, 2.0f, dx, dy, dout, n));
    STEP(cudyn_args_launch(pack, (cudyn_dim3){N / 256, 1, 1}, (cudyn_dim3){256, 1, 1}, 0, NULL));
    STEP(cudyn_synchronize());
    STEP(cudyn_memcpy_dtoh(out, dout, sizeof out));
    if (st == CUDYN_OK)
        printf("compile.result=%d\n", saxpy_ok(x, y, out));
    cudyn_args_free(pack);
    if (dout)
        RELEASE(cudyn_mem_free(dout));
    if (dy)
        RELEASE(cudyn_mem_free(dy));
    if (dx)
        RELEASE(cudyn_mem_free(dx));
    if (mod)
        RELEASE(cudyn_module_unload(mod));
    cudyn_program_free(prog);
    return st;
}

/* PyCUDA's SourceModule with In/Out buffers, twice: the second load finds
 * the kernel in the persistent cache (when CUDYN_CACHE_DIR allows one). */
static int source(void)
{
    static float x[N], y[N], out[N];
    fill(x, y);
    int st = CUDYN_OK;
    for (int round = 0; round < 2 && st == CUDYN_OK; round++) {
        cudyn_module mod = NULL;
        cudyn_function f = NULL;
        size_t n = N;
        memset(out, 0, sizeof out);
        STEP(cudyn_module_load_source(&mod, saxpy_source, NULL, 0));
        STEP(cudyn_module_function(&f, mod, "saxpy"));
        STEP(cudyn_launchf(f, (cudyn_dim3){N / 256, 1, 1}, (cudyn_dim3){256, 1, 1}, 0, NULL, "f<<>z", 2.0f, x,
                           sizeof x, y, sizeof y, out, sizeof out, n));
        if (st == CUDYN_OK)
            printf("source.result=%d\n", saxpy_ok(x, y, out));
        if (mod)
            RELEASE(cudyn_module_unload(mod));
    }
    return st;
}

/* In/Out buffers through a pack launched without the wait, as the Python
 * module does: an event recorded after the launch is waited for, then the
 * pack is finished (its device buffers freed). */
static int buffers(void)
{
    static float x[N], y[N], out[N];
    fill(x, y);
    cudyn_module mod = NULL;
    cudyn_function f = NULL;
    cudyn_stream s = NULL;
    cudyn_event done = NULL;
    cudyn_args *pack = NULL;
    float a = 2.0f;
    size_t n = N;
    int st = cudyn_module_load_source(&mod, saxpy_source, NULL, 0);
    STEP(cudyn_module_function(&f, mod, "saxpy"));
    STEP(cudyn_stream_create(&s, CUDYN_STREAM_NON_BLOCKING));
    STEP(cudyn_event_create(&done, CUDYN_EVENT_DISABLE_TIMING));
    STEP(cudyn_args_create(&pack, f, "f<<>z"));
    STEP(cudyn_args_set_value(pack, 0, &a, sizeof a));
    STEP(cudyn_args_set_buffer(pack, 1, x, sizeof x));
    STEP(cudyn_args_set_buffer(pack, 2, y, sizeof y));
    STEP(cudyn_args_set_buffer(pack, 3, out, sizeof out));
    STEP(cudyn_args_set_value(pack, 4, &n, sizeof n));
    STEP(cudyn_args_launch_async(pack, (cudyn_dim3){N / 256, 1, 1}, (cudyn_dim3){256, 1, 1}, 0, s));
    STEP(cudyn_event_record(done, s));
    STEP(cudyn_event_synchronize(done));
    if (pack)
        RELEASE(cudyn_args_finish(pack));
    if (st == CUDYN_OK)
        printf("buffers.result=%d\n", saxpy_ok(x, y, out));
    cudyn_args_free(pack);
    if (done)
        RELEASE(cudyn_event_destroy(done));
    if (s)
        RELEASE(cudyn_stream_destroy(s));
    if (mod)
        RELEASE(cudyn_module_unload(mod));
    return st;
}

/* Peer access between devices 0 and 1 and a copy across (needs two). */
static int peer(void)
{
    cudyn_devptr on0 = 0, on1 = 0;
    unsigned int host[N];
    int can = 0, rank = 0;
    int st = cudyn_device_can_access_peer(0, 1, &can);
    STEP(cudyn_device_p2p_attribute(0, 1, CUDYN_P2P_PERFORMANCE_RANK, &rank));
    STEP(cudyn_device_enable_peer(0, 1));
    STEP(cudyn_device_enable_peer(1, 0));
    STEP(cudyn_device_use(1));
    STEP(cudyn_mem_alloc(&on1, sizeof host));
    STEP(cudyn_memset_d32(on1, 7, N));
    STEP(cudyn_device_use(0));
    STEP(cudyn_mem_alloc(&on0, sizeof host));
    STEP(cudyn_memcpy_dtod(on0, on1, sizeof host));
    STEP(cudyn_memcpy_dtoh(host, on0, sizeof host));
    STEP(cudyn_device_disable_peer(0, 1));
    STEP(cudyn_device_disable_peer(1, 0));
    if (st == CUDYN_OK)
        printf("peer.roundtrip=%d\n", host[0] == 7 && host[N - 1] == 7);
    if (on0)
        RELEASE(cudyn_mem_free(on0));
    if (on1)
        RELEASE(cudyn_mem_free(on1));
    return st;
}

/* A kernel of the saxpy source, loaded from source: for the workflows
 * below that launch one. */
static int saxpy_kernel(cudyn_module *mod, cudyn_function *f)
{
    int st = cudyn_module_load_source(mod, saxpy_source, NULL, 0);
    STEP(cudyn_module_function(f, *mod, "saxpy"));
    return st;
}

/* Stream capture: a memset, a launch and a copy back captured into a
 * graph, instantiated, launched twice, updated from a second capture. */
static int graph(void)
{
    static float x[N], y[N], out[N];
    fill(x, y);
    cudyn_module mod = NULL;
    cudyn_function f = NULL;
    cudyn_stream s = NULL;
    cudyn_graph g = NULL, g2 = NULL;
    cudyn_graph_exec e = NULL;
    cudyn_devptr dx = 0, dy = 0, dout = 0;
    size_t n = N;
    int st = saxpy_kernel(&mod, &f), status = -1;
    STEP(cudyn_stream_create(&s, CUDYN_STREAM_NON_BLOCKING));
    STEP(cudyn_mem_alloc(&dx, sizeof x));
    STEP(cudyn_mem_alloc(&dy, sizeof y));
    STEP(cudyn_mem_alloc(&dout, sizeof out));
    STEP(cudyn_memcpy_htod(dx, x, sizeof x));
    STEP(cudyn_memcpy_htod(dy, y, sizeof y));
    for (int round = 0; round < 2 && st == CUDYN_OK; round++) {
        status = CUDYN_CAPTURE_NONE;
        STEP(cudyn_stream_begin_capture(s, CUDYN_CAPTURE_GLOBAL));
        if (st == CUDYN_OK)
            status = CUDYN_CAPTURE_ACTIVE; /* begun: ended below whatever fails */
        STEP(cudyn_memset_d32_async(dout, 0, N, s));
        STEP(cudyn_launchf(f, (cudyn_dim3){N / 256, 1, 1}, (cudyn_dim3){256, 1, 1}, 0, s, "fpppz", 2.0f, dx, dy,
                           dout, n));
        STEP(cudyn_memcpy_dtoh_async(out, dout, sizeof out, s));
        STEP(cudyn_stream_capture_status(s, &status));
        if (status != CUDYN_CAPTURE_NONE && st == CUDYN_OK) {
            st = cudyn_stream_end_capture(s, round ? &g2 : &g);
        } else if (status != CUDYN_CAPTURE_NONE) {
            /* a capture begun is ended whatever failed inside it; that
             * ending may fail too, so the first failure is said first */
            print_error("graph.captured", st);
            cudyn_stream_end_capture(s, round ? &g2 : &g);
        }
    }
    STEP(cudyn_graph_instantiate(&e, g, 0));
    STEP(cudyn_graph_launch(e, s));
    STEP(cudyn_graph_exec_update(e, g2));
    STEP(cudyn_graph_launch(e, s));
    STEP(cudyn_stream_synchronize(s));
    if (st == CUDYN_OK)
        printf("graph.result=%d\n", saxpy_ok(x, y, out));
    if (e)
        RELEASE(cudyn_graph_exec_destroy(e));
    if (g2)
        RELEASE(cudyn_graph_destroy(g2));
    if (g)
        RELEASE(cudyn_graph_destroy(g));
    if (dout)
        RELEASE(cudyn_mem_free(dout));
    if (dy)
        RELEASE(cudyn_mem_free(dy));
    if (dx)
        RELEASE(cudyn_mem_free(dx));
    if (s)
        RELEASE(cudyn_stream_destroy(s));
    if (mod)
        RELEASE(cudyn_module_unload(mod));
    return st;
}

/* Stream-ordered allocation from the device's default pool. */
static int pool(void)
{
    cudyn_stream s = NULL;
    cudyn_devptr d = 0;
    uint64_t reserved = 0;
    unsigned int host[N];
    int st = cudyn_stream_create(&s, CUDYN_STREAM_NON_BLOCKING);
    STEP(cudyn_mem_pool_set_release_threshold(0, 1u << 20));
    STEP(cudyn_mem_alloc_async(&d, sizeof host, s));
    STEP(cudyn_memset_d32_async(d, 5, N, s));
    STEP(cudyn_memcpy_dtoh_async(host, d, sizeof host, s));
    if (d)
        RELEASE(cudyn_mem_free_async(d, s));
    STEP(cudyn_stream_synchronize(s));
    STEP(cudyn_mem_pool_attribute(0, CUDYN_POOL_RESERVED_CURRENT, &reserved));
    STEP(cudyn_mem_pool_trim(0, 0));
    if (st == CUDYN_OK)
        printf("pool.roundtrip=%d\n", host[0] == 5 && host[N - 1] == 5);
    if (s)
        RELEASE(cudyn_stream_destroy(s));
    return st;
}

/* A 2D array filled from the host and read back, a texture and a surface
 * over it, and a texture over linear memory. */
static int texture(void)
{
    static float in[16 * 8], back[16 * 8];
    for (size_t i = 0; i < sizeof in / sizeof in[0]; i++)
        in[i] = (float)i;
    struct cudyn_array_desc d = {.size = sizeof d, .format = CUDYN_FORMAT_FLOAT, .channels = 1, .width = 16,
                                 .height = 8, .flags = CUDYN_ARRAY_SURFACE};
    struct cudyn_array_desc got = {.size = sizeof got};
    cudyn_array a = NULL;
    cudyn_texture tex = 0, lin = 0;
    cudyn_surface surf = 0;
    cudyn_devptr dl = 0;
    int st = cudyn_array_create(&a, &d);
    STEP(cudyn_array_describe(a, &got));
    STEP(cudyn_array_copy_from_host(a, in));
    STEP(cudyn_array_copy_to_host(back, a));
    struct cudyn_texture_desc t = {.size = sizeof t, .resource = CUDYN_RESOURCE_ARRAY, .array = a,
                                   .filter = CUDYN_FILTER_POINT, .read_mode = CUDYN_READ_ELEMENT_TYPE};
    for (int i = 0; i < 3; i++)
        t.address_mode[i] = CUDYN_ADDRESS_CLAMP;
    STEP(cudyn_texture_create(&tex, &t));
    STEP(cudyn_surface_create(&surf, a));
    STEP(cudyn_mem_alloc(&dl, sizeof in));
    struct cudyn_texture_desc lt = {.size = sizeof lt, .resource = CUDYN_RESOURCE_LINEAR, .device = dl,
                                    .format = CUDYN_FORMAT_FLOAT, .channels = 1, .bytes = sizeof in};
    STEP(cudyn_texture_create(&lin, &lt));
    if (st == CUDYN_OK)
        printf("texture.roundtrip=%d\n", memcmp(in, back, sizeof in) == 0);
    if (lin)
        RELEASE(cudyn_texture_destroy(lin));
    if (dl)
        RELEASE(cudyn_mem_free(dl));
    if (surf)
        RELEASE(cudyn_surface_destroy(surf));
    if (tex)
        RELEASE(cudyn_texture_destroy(tex));
    if (a)
        RELEASE(cudyn_array_destroy(a));
    return st;
}

/* cudyn_launch_ex: a launch with a priority and one with more than 48 KiB
 * of dynamic shared memory (the kernel's limit raised). */
static int launch_ex(void)
{
    static float x[N], y[N], out[N];
    fill(x, y);
    cudyn_module mod = NULL;
    cudyn_function f = NULL;
    cudyn_devptr dx = 0, dy = 0, dout = 0;
    size_t n = N;
    float a = 2.0f;
    void *args[] = {&a, &dx, &dy, &dout, &n};
    int st = saxpy_kernel(&mod, &f);
    STEP(cudyn_mem_alloc(&dx, sizeof x));
    STEP(cudyn_mem_alloc(&dy, sizeof y));
    STEP(cudyn_mem_alloc(&dout, sizeof out));
    STEP(cudyn_memcpy_htod(dx, x, sizeof x));
    STEP(cudyn_memcpy_htod(dy, y, sizeof y));
    struct cudyn_launch_config c = {.size = sizeof c, .grid = {N / 256, 1, 1}, .block = {256, 1, 1},
                                    .flags = CUDYN_LAUNCH_PRIORITY, .priority = -1};
    STEP(cudyn_launch_ex(f, &c, args));
    c.flags = 0;
    c.shared_bytes = 64 * 1024;
    STEP(cudyn_launch_ex(f, &c, args));
    STEP(cudyn_synchronize());
    STEP(cudyn_memcpy_dtoh(out, dout, sizeof out));
    if (st == CUDYN_OK)
        printf("launch_ex.result=%d\n", saxpy_ok(x, y, out));
    if (dout)
        RELEASE(cudyn_mem_free(dout));
    if (dy)
        RELEASE(cudyn_mem_free(dy));
    if (dx)
        RELEASE(cudyn_mem_free(dx));
    if (mod)
        RELEASE(cudyn_module_unload(mod));
    return st;
}

/* Managed memory: allocated, advised, prefetched both ways, described. */
static int managed(void)
{
    cudyn_devptr m = 0;
    struct cudyn_pointer_info pi = {.size = sizeof pi};
    int st = cudyn_mem_alloc_managed(&m, 4096, CUDYN_MEM_ATTACH_GLOBAL);
    STEP(cudyn_mem_advise(m, 4096, CUDYN_ADVISE_SET_READ_MOSTLY, 0));
    STEP(cudyn_mem_prefetch(m, 4096, 0, NULL));
    STEP(cudyn_memset_d32(m, 9, 1024));
    STEP(cudyn_mem_prefetch(m, 4096, CUDYN_HOST, NULL));
    STEP(cudyn_synchronize());
    STEP(cudyn_pointer_info(m, &pi));
    if (m)
        RELEASE(cudyn_mem_free(m));
    return st;
}

/* An elementwise kernel and a reduction, made, run and freed. */
static int expr(void)
{
    static float x[N], y[N];
    fill(x, y);
    cudyn_elementwise *k = NULL;
    cudyn_reduction *r = NULL;
    cudyn_devptr dx = 0, dy = 0;
    float sum = 0;
    int st = cudyn_mem_alloc(&dx, sizeof x);
    STEP(cudyn_mem_alloc(&dy, sizeof y));
    STEP(cudyn_memcpy_htod(dx, x, sizeof x));
    STEP(cudyn_memcpy_htod(dy, y, sizeof y));
    STEP(cudyn_elementwise_create(&k, "float a, const float *x, float *y", "y[i] = a * x[i] + y[i]", "saxpy",
                                  NULL));
    STEP(cudyn_elementwise_launch(k, (size_t)N, NULL, 2.0f, dx, dy));
    STEP(cudyn_reduction_create(&r, "float", "0", "a + b", "x[i] * y[i]", "const float *x, const float *y", "dot",
                                NULL));
    STEP(cudyn_reduction_run(r, &sum, 0, (size_t)N, NULL, dx, dy));
    if (st == CUDYN_OK)
        printf("expr.ran=1\n");
    cudyn_reduction_free(r);
    cudyn_elementwise_free(k);
    if (dy)
        RELEASE(cudyn_mem_free(dy));
    if (dx)
        RELEASE(cudyn_mem_free(dx));
    return st;
}

/* A multi-architecture image compiled without a device, loaded without
 * and with its length, and its kernel launched. */
static int image(void)
{
    static float x[N], y[N], out[N];
    fill(x, y);
    const char *archs[] = {"sm_90", "compute_80"};
    struct cudyn_compile_args args = {.size = sizeof args, .source = saxpy_source, .name = "saxpy.cu"};
    void *img = NULL;
    size_t bytes = 0, n = N;
    cudyn_module mod = NULL, again = NULL;
    cudyn_function f = NULL;
    cudyn_devptr dx = 0, dy = 0, dout = 0;
    int st = cudyn_compile_image(&img, &bytes, &args, archs, 2, CUDYN_IMAGE_CUDYN);
    STEP(cudyn_module_load_image(&mod, img));
    STEP(cudyn_module_load_image_sized(&again, img, bytes)); /* the same bytes, with their length */
    STEP(cudyn_module_function(&f, mod, "saxpy"));
    STEP(cudyn_mem_alloc(&dx, sizeof x));
    STEP(cudyn_mem_alloc(&dy, sizeof y));
    STEP(cudyn_mem_alloc(&dout, sizeof out));
    STEP(cudyn_memcpy_htod(dx, x, sizeof x));
    STEP(cudyn_memcpy_htod(dy, y, sizeof y));
    STEP(cudyn_launchf(f, (cudyn_dim3){N / 256, 1, 1}, (cudyn_dim3){256, 1, 1}, 0, NULL, "fpppz", 2.0f, dx, dy,
                       dout, n));
    STEP(cudyn_memcpy_dtoh(out, dout, sizeof out));
    if (st == CUDYN_OK)
        printf("image.result=%d\n", saxpy_ok(x, y, out));
    if (dout)
        RELEASE(cudyn_mem_free(dout));
    if (dy)
        RELEASE(cudyn_mem_free(dy));
    if (dx)
        RELEASE(cudyn_mem_free(dx));
    if (again)
        RELEASE(cudyn_module_unload(again));
    if (mod)
        RELEASE(cudyn_module_unload(mod));
    cudyn_image_free(img);
    return st;
}

/* Device linking with the driver's linker (the mock's, which joins PTX):
 * a kernel calling a function of another unit, linked, loaded and found. */
static int link_units(void)
{
    static const char caller[] = ".version 7.0\n.target sm_75\n.address_size 64\n"
                                 ".extern .func (.param .b32 func_retval0) twice(.param .b32 twice_param_0);\n"
                                 ".visible .entry k(.param .u64 k_param_0)\n{\n\tret;\n}\n";
    static const char callee[] = ".version 7.0\n.target sm_75\n.address_size 64\n"
                                 ".visible .func (.param .b32 func_retval0) twice(.param .b32 twice_param_0)\n"
                                 "{\n\tret;\n}\n";
    cudyn_linker *l = NULL;
    cudyn_module mod = NULL;
    cudyn_function f = NULL;
    const void *img = NULL;
    size_t bytes = 0;
    int st = cudyn_link_create(&l, 0, NULL, 0, CUDYN_LINK_USE_DRIVER);
    STEP(cudyn_link_add_data(l, CUDYN_LINK_PTX, caller, sizeof caller, "caller.ptx"));
    STEP(cudyn_link_add_data(l, CUDYN_LINK_AUTO, callee, sizeof callee - 1, "callee.ptx"));
    STEP(cudyn_link_complete(l, &img, &bytes));
    STEP(cudyn_module_load_image_sized(&mod, img, bytes));
    STEP(cudyn_module_function(&f, mod, "k"));
    if (st == CUDYN_OK)
        printf("link.result=%d\n", f != NULL);
    if (mod)
        RELEASE(cudyn_module_unload(mod));
    cudyn_link_destroy(l);
    return st;
}

/* NCCL (the mock's, through CUDYN_LIBNCCL): a communicator per device of
 * this process, an all-reduce of each device's values in one group,
 * waited for in bounded time, checked, and everything released. */
static int nccl(void)
{
    enum { M = 1024 };
    static float host[M];
    cudyn_nccl_comm comms[2] = {NULL, NULL};
    cudyn_devptr buf[2] = {0, 0};
    int st = cudyn_nccl_comm_init_all(comms, 2, NULL);
    for (int d = 0; d < 2; d++) {
        for (int i = 0; i < M; i++)
            host[i] = (float)(i + d);
        STEP(cudyn_device_use(d));
        STEP(cudyn_mem_alloc(&buf[d], sizeof host));
        STEP(cudyn_memcpy_htod(buf[d], host, sizeof host));
    }
    if (st == CUDYN_OK && (st = cudyn_nccl_group_start()) == CUDYN_OK) {
        for (int d = 0; d < 2; d++)
            STEP(cudyn_nccl_all_reduce(comms[d], buf[d], buf[d], M, 'f', CUDYN_NCCL_SUM, NULL));
        RELEASE(cudyn_nccl_group_end()); /* a group begun is ended, whatever failed in it */
    }
    for (int d = 0; d < 2; d++)
        STEP(cudyn_nccl_comm_wait(comms[d], NULL, 10000));
    STEP(cudyn_memcpy_dtoh(host, buf[1], sizeof host));
    if (st == CUDYN_OK)
        printf("nccl.result=%d\n", host[5] == 11.0f && host[M - 1] == 2.0f * (M - 1) + 1);
    for (int d = 0; d < 2; d++) {
        if (buf[d] && cudyn_device_use(d) == CUDYN_OK)
            RELEASE(cudyn_mem_free(buf[d]));
        RELEASE(cudyn_nccl_comm_destroy(comms[d]));
    }
    return st;
}

static const struct {
    const char *name;
    int (*run)(void);
} workflows[] = {
    {"devices", devices}, {"memory", memory}, {"stream", stream},
    {"compile", compile}, {"source", source}, {"peer", peer},
    {"graph", graph},     {"pool", pool},     {"texture", texture},
    {"launch_ex", launch_ex}, {"managed", managed}, {"expr", expr}, {"image", image},
    {"nccl", nccl},       {"link", link_units},
    {"buffers", buffers},
};

static bool run_workflow(const char *name)
{
    for (size_t i = 0; i < sizeof workflows / sizeof workflows[0]; i++)
        if (strcmp(workflows[i].name, name) == 0) {
            print_error(name, workflows[i].run());
            return true;
        }
    return false;
}

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strncmp(a, "preload=", 8) == 0) {
            printf("preload=%s\n", dlopen(a + 8, RTLD_NOW | RTLD_GLOBAL) ? "ok" : dlerror());
        } else if (strncmp(a, "init=", 5) == 0) {
            print_error("init", cudyn_init((unsigned)strtoul(a + 5, NULL, 0)));
        } else if (strncmp(a, "versions", 8) == 0) {
            char line[2048];
            struct cudyn_loader_info l = {.size = sizeof l};
            cudyn_loader_info(&l);
            int st = cudyn_versions_line(line, sizeof line, 0, a[8] == '=' ? a + 9 : NULL);
            printf("versions=%s\n", st == CUDYN_OK ? line : cudyn_status_name(st));
        } else if (strncmp(a, "load-ptx=", 9) == 0) {
            static char ptx[1 << 16];
            FILE *f = fopen(a + 9, "r");
            size_t n = f ? fread(ptx, 1, sizeof ptx - 1, f) : 0;
            if (f)
                fclose(f);
            ptx[n] = '\0';
            cudyn_module mod = NULL;
            print_error("load_ptx", cudyn_module_load_image(&mod, ptx));
        } else if (strncmp(a, "launch-block=", 13) == 0) {
            /* saxpy with that many threads in one block: past the device's
             * limit, the driver refuses the launch */
            static float x[N], y[N], out[N];
            cudyn_module mod = NULL;
            cudyn_function f = NULL;
            size_t n = N;
            int st = cudyn_module_load_source(&mod, saxpy_source, NULL, 0);
            STEP(cudyn_module_function(&f, mod, "saxpy"));
            STEP(cudyn_launchf(f, (cudyn_dim3){1, 1, 1}, (cudyn_dim3){(unsigned)atoi(a + 13), 1, 1}, 0, NULL,
                               "f<<>z", 2.0f, x, sizeof x, y, sizeof y, out, sizeof out, n));
            print_error("launch_block", st);
        } else if (strncmp(a, "compile-error", 13) == 0) {
            char option[1024];
            const char *options[] = {option};
            snprintf(option, sizeof option, "-I%s", a[13] == '=' ? a + 14 : ".");
            cudyn_program *prog = NULL;
            print_error("compile_error", cudyn_compile(&prog, "#error the versions line follows\n", "bad.cu",
                                                       0, options, 1));
            cudyn_program_free(prog); /* a failed compile still gives its log */
        } else if (strcmp(a, "info") == 0) {
            info();
        } else if (strncmp(a, "has=", 4) == 0) {
            printf("has.%s=%d\n", a + 4, cudyn_has(a + 4));
        } else if (strncmp(a, "proc=", 5) == 0) {
            char name[128];
            int version = 0;
            if (sscanf(a + 5, "%127[^@]@%d", name, &version) != 2)
                return 2;
            void *fn = cudyn_driver_proc(name, version);
            printf("proc.%s@%d=%s\n", name, version, fn ? "found" : "null");
            if (!fn)
                print_error("proc", cudyn_last_error(NULL));
        } else if (strcmp(a, "copy") == 0) {
            cudyn_devptr d = 0;
            char in[64] = "through the device and back", out[64] = "";
            int st = cudyn_mem_alloc(&d, sizeof in);
            if (st == CUDYN_OK)
                st = cudyn_memcpy_htod(d, in, sizeof in);
            if (st == CUDYN_OK)
                st = cudyn_memcpy_dtoh(out, d, sizeof out);
            cudyn_mem_free(d);
            print_error("copy", st);
            printf("copy.roundtrip=%d\n", strcmp(in, out) == 0);
        } else if (strcmp(a, "event") == 0) {
            cudyn_event e0 = NULL, e1 = NULL;
            float ms = -1;
            int st = cudyn_event_create(&e0, 0);
            if (st == CUDYN_OK)
                st = cudyn_event_create(&e1, 0);
            if (st == CUDYN_OK)
                st = cudyn_event_record(e0, NULL);
            if (st == CUDYN_OK)
                st = cudyn_event_record(e1, NULL);
            if (st == CUDYN_OK)
                st = cudyn_event_elapsed_ms(&ms, e0, e1);
            if (e0)
                cudyn_event_destroy(e0);
            if (e1)
                cudyn_event_destroy(e1);
            print_error("event", st);
        } else if (strncmp(a, "calls=", 6) == 0) {
            printf("calls.%s=%ld\n", a + 6, mock_call_count(a + 6));
        } else if (strcmp(a, "requests") == 0) {
            printf("requests=%s\n", mock_requests());
        } else if (strcmp(a, "meminfo") == 0) {
            size_t free_bytes = 0, total = 0;
            print_error("meminfo", cudyn_mem_info(&free_bytes, &total));
        } else if (strcmp(a, "count") == 0) {
            int n = -1;
            print_error("count", cudyn_device_count(&n));
            printf("count.devices=%d\n", n);
        } else if (!run_workflow(a)) {
            fprintf(stderr, "probe: unknown action '%s'\n", a);
            return 2;
        }
    }
    return 0;
}
