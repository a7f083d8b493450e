/*
 * test_sharing.c - cudyn among other CUDA users, on the mock driver with
 * three devices (0 and 1 are peers, 2 is not): a foreign context adopted
 * and then popped or destroyed, native handles both ways, peer access,
 * launch limits named with their numbers (also by a driver without
 * cuFuncGetAttribute, whose stub names no later failure), device reset
 * retiring modules and events (a refused reset retiring none), modules,
 * kernels and events used from another device's thread, and fork.
 * "Another library" is played by raw driver calls made through
 * cudyn_driver_proc, as a program using <cuda.h> would make them.
 */
#include "config.h"

#include <pthread.h>

#include "cudyn.h"
#include "mock/mock_control.h"
#include "testutil.h"

typedef unsigned int (*ctx_create_fn)(void **ctx, unsigned int flags, int dev);
typedef unsigned int (*ctx_one_fn)(void *ctx);
typedef unsigned int (*ctx_pop_fn)(void **ctx);
typedef unsigned int (*launch_fn)(void *fn, unsigned int gx, unsigned int gy, unsigned int gz, unsigned int bx,
                                  unsigned int by, unsigned int bz, unsigned int shared, void *stream, void **params,
                                  void **extra);

static const cudyn_dim3 one = {1, 1, 1};

/* Kernels the mock knows: "empty" runs, "bounded_empty" allows 256 threads
 * per block (the mock's convention for a function limit below the device's). */
static const char image[] = ".version 8.0\n.target sm_90\n.address_size 64\n"
                            ".visible .entry empty()\n{\n}\n.visible .entry bounded_empty()\n{\n}\n";

static void *foreign_context(int dev)
{
    ctx_create_fn create = (ctx_create_fn)cudyn_driver_proc("cuCtxCreate", 3020);
    void *ctx = NULL;
    CHECK(create && create(&ctx, 0, dev) == 0 && ctx);
    return ctx;
}

/* Another library pushes its own context, cudyn works in it; the library
 * pops it; cudyn's next call goes on in the primary context, no error. */
static void *thread_foreign_context_popped(void *arg)
{
    (void)arg;
    void *foreign = foreign_context(1);
    cudyn_devptr p = 0;
    CHECK_STATUS(cudyn_mem_alloc(&p, 64), CUDYN_OK);
    void *used = NULL;
    CHECK_STATUS(cudyn_context_native(&used), CUDYN_OK);
    CHECK(used == foreign);
    CHECK_STATUS(cudyn_mem_free(p), CUDYN_OK);

    ctx_pop_fn pop = (ctx_pop_fn)cudyn_driver_proc("cuCtxPopCurrent", 4000);
    void *popped = NULL;
    CHECK(pop && pop(&popped) == 0 && popped == foreign);
    CHECK_STATUS(cudyn_mem_alloc(&p, 64), CUDYN_OK); /* no INVALID_CONTEXT: recovered */
    CHECK_STATUS(cudyn_context_native(&used), CUDYN_OK);
    CHECK(used != foreign && used == mock_current_context());
    int dev = -1;
    CHECK_STATUS(cudyn_device_current(&dev), CUDYN_OK);
    CHECK_EQ_INT(dev, 0); /* the thread's device: 0, nothing chose another */
    CHECK_STATUS(cudyn_mem_free(p), CUDYN_OK);
    ctx_one_fn destroy = (ctx_one_fn)cudyn_driver_proc("cuCtxDestroy", 4000);
    CHECK(destroy && destroy(foreign) == 0);
    return NULL;
}

static void test_foreign_context_popped(void)
{
    pthread_t t;
    pthread_create(&t, NULL, thread_foreign_context_popped, NULL);
    pthread_join(t, NULL);
}

/* The other library destroys its context from another thread while it is
 * current here: the driver answers CONTEXT_IS_DESTROYED, cudyn moves on. */
struct destroyed_case {
    pthread_barrier_t adopted, destroyed;
    void *foreign;
};

static void *thread_works_in_foreign(void *arg)
{
    struct destroyed_case *c = arg;
    ctx_one_fn push = (ctx_one_fn)cudyn_driver_proc("cuCtxPushCurrent", 4000);
    CHECK(push && push(c->foreign) == 0);
    cudyn_devptr p = 0;
    CHECK_STATUS(cudyn_mem_alloc(&p, 64), CUDYN_OK);
    pthread_barrier_wait(&c->adopted);
    pthread_barrier_wait(&c->destroyed); /* its memory went with it */
    CHECK_STATUS(cudyn_mem_alloc(&p, 64), CUDYN_OK);
    int dev = -1;
    CHECK_STATUS(cudyn_device_current(&dev), CUDYN_OK);
    CHECK_EQ_INT(dev, 0);
    CHECK_STATUS(cudyn_mem_free(p), CUDYN_OK);
    return NULL;
}

static void test_foreign_context_destroyed_elsewhere(void)
{
    struct destroyed_case c;
    pthread_barrier_init(&c.adopted, NULL, 2);
    pthread_barrier_init(&c.destroyed, NULL, 2);
    c.foreign = foreign_context(1);
    ctx_pop_fn pop = (ctx_pop_fn)cudyn_driver_proc("cuCtxPopCurrent", 4000);
    void *popped = NULL;
    CHECK(pop && pop(&popped) == 0); /* made on this thread, used on the other */
    pthread_t t;
    pthread_create(&t, NULL, thread_works_in_foreign, &c);
    pthread_barrier_wait(&c.adopted);
    ctx_one_fn destroy = (ctx_one_fn)cudyn_driver_proc("cuCtxDestroy", 4000);
    CHECK(destroy && destroy(c.foreign) == 0);
    pthread_barrier_wait(&c.destroyed);
    pthread_join(t, NULL);
    pthread_barrier_destroy(&c.adopted);
    pthread_barrier_destroy(&c.destroyed);
}

/* cudyn's handles are the driver's: a raw cuLaunchKernel runs a cudyn
 * function on a cudyn stream, and the conversions are identities. */
static void test_native_handles(void)
{
    CHECK_STATUS(cudyn_device_use(0), CUDYN_OK);
    void *ctx = NULL;
    CHECK_STATUS(cudyn_context_native(&ctx), CUDYN_OK);
    CHECK(ctx && ctx == mock_current_context());
    CHECK_STATUS(cudyn_context_native(NULL), CUDYN_ERROR_INVALID_ARGUMENT);
    cudyn_module mod = NULL;
    cudyn_function f = NULL;
    CHECK_STATUS(cudyn_module_load_image(&mod, image), CUDYN_OK);
    CHECK_STATUS(cudyn_module_function(&f, mod, "empty"), CUDYN_OK);
    CHECK(cudyn_module_native(mod) != NULL);
    CHECK(cudyn_module_native(NULL) == NULL);
    CHECK(cudyn_function_from_native(cudyn_function_native(f)) == f);
    cudyn_stream s = NULL;
    CHECK_STATUS(cudyn_stream_create(&s, 0), CUDYN_OK);
    CHECK(cudyn_stream_from_native(cudyn_stream_native(s)) == s);
    cudyn_event e = NULL;
    CHECK_STATUS(cudyn_event_create(&e, 0), CUDYN_OK);
    CHECK(cudyn_event_from_native(cudyn_event_native(e)) == e);

    launch_fn launch = (launch_fn)cudyn_driver_proc("cuLaunchKernel", 4000);
    long before = mock_call_count("cuLaunchKernel");
    CHECK(launch && launch(cudyn_function_native(f), 1, 1, 1, 1, 1, 1, 0, cudyn_stream_native(s), NULL, NULL) == 0);
    CHECK_EQ_INT(mock_call_count("cuLaunchKernel"), before + 1);
    /* and a stream made elsewhere works in cudyn */
    CHECK_STATUS(cudyn_launch(f, one, one, 0, cudyn_stream_from_native(cudyn_stream_native(s)), NULL), CUDYN_OK);
    CHECK_STATUS(cudyn_stream_synchronize(s), CUDYN_OK);
    CHECK_STATUS(cudyn_event_destroy(e), CUDYN_OK);
    CHECK_STATUS(cudyn_stream_destroy(s), CUDYN_OK);
    CHECK_STATUS(cudyn_module_unload(mod), CUDYN_OK);
}

/* Peer access is enabled once, idempotently, and refused with a reason
 * between devices that cannot reach each other. */
static void test_peer_access(void)
{
    CHECK_STATUS(cudyn_device_enable_peer(0, 1), CUDYN_OK);
    CHECK_STATUS(cudyn_device_enable_peer(0, 1), CUDYN_OK); /* again: still fine */
    CHECK_STATUS(cudyn_device_enable_peer(1, 1), CUDYN_OK); /* itself: nothing to do */
    CHECK_STATUS(cudyn_device_enable_peer(0, 2), CUDYN_ERROR_NOT_SUPPORTED);
    cudyn_error e = {.size = sizeof e};
    cudyn_last_error(&e);
    CHECK_CONTAINS(e.message, "device 0 cannot reach device 2");
    CHECK_CONTAINS(e.hint, "cudyn_device_can_access_peer");
    CHECK_STATUS(cudyn_device_enable_peer(0, 7), CUDYN_ERROR_INVALID_DEVICE);

    /* a copy from device 1 to device 0 goes through peer access now */
    cudyn_devptr on0 = 0, on1 = 0;
    CHECK_STATUS(cudyn_device_use(1), CUDYN_OK);
    CHECK_STATUS(cudyn_mem_alloc(&on1, 4096), CUDYN_OK);
    CHECK_STATUS(cudyn_device_use(0), CUDYN_OK);
    CHECK_STATUS(cudyn_mem_alloc(&on0, 4096), CUDYN_OK);
    long peer_copies = mock_peer_copy_count(1);
    CHECK_STATUS(cudyn_memcpy_dtod(on0, on1, 4096), CUDYN_OK);
    CHECK_EQ_INT(mock_peer_copy_count(1), peer_copies + 1);
    CHECK_STATUS(cudyn_device_disable_peer(0, 1), CUDYN_OK);
    CHECK_STATUS(cudyn_device_disable_peer(0, 1), CUDYN_OK); /* not enabled: still fine */
    long staged = mock_peer_copy_count(0);
    CHECK_STATUS(cudyn_memcpy_dtod(on0, on1, 4096), CUDYN_OK);
    CHECK_EQ_INT(mock_peer_copy_count(0), staged + 1);
    CHECK_STATUS(cudyn_mem_free(on0), CUDYN_OK);
    CHECK_STATUS(cudyn_device_use(1), CUDYN_OK);
    CHECK_STATUS(cudyn_mem_free(on1), CUDYN_OK);
    CHECK_STATUS(cudyn_device_use(0), CUDYN_OK);

    int v = -1;
    CHECK_STATUS(cudyn_device_p2p_attribute(0, 1, CUDYN_P2P_ACCESS_SUPPORTED, &v), CUDYN_OK);
    CHECK_EQ_INT(v, 1);
    CHECK_STATUS(cudyn_device_p2p_attribute(0, 2, CUDYN_P2P_ACCESS_SUPPORTED, &v), CUDYN_OK);
    CHECK_EQ_INT(v, 0);
    CHECK_STATUS(cudyn_device_p2p_attribute(0, 0, CUDYN_P2P_ACCESS_SUPPORTED, &v), CUDYN_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(cudyn_device_p2p_attribute(0, 1, 99, &v), CUDYN_ERROR_INVALID_ARGUMENT);
}

/* expect_refusal: the launch fails with INVALID_ARGUMENT and the message
 * names the limit. */
static void expect_refusal(cudyn_function f, cudyn_dim3 grid, cudyn_dim3 block, unsigned int shared,
                           const char *words)
{
    CHECK_STATUS(cudyn_launch(f, grid, block, shared, NULL, NULL), CUDYN_ERROR_INVALID_ARGUMENT);
    cudyn_error e = {.size = sizeof e};
    cudyn_last_error(&e);
    CHECK_CONTAINS(e.message, "cuLaunchKernel returned CUDA_ERROR_INVALID_VALUE");
    CHECK_CONTAINS(e.message, words);
}

static void test_launch_limits_named(void)
{
    cudyn_module mod = NULL;
    cudyn_function empty = NULL, bounded = NULL;
    CHECK_STATUS(cudyn_module_load_image(&mod, image), CUDYN_OK);
    CHECK_STATUS(cudyn_module_function(&empty, mod, "empty"), CUDYN_OK);
    CHECK_STATUS(cudyn_module_function(&bounded, mod, "bounded_empty"), CUDYN_OK);
    expect_refusal(empty, one, (cudyn_dim3){2048, 1, 1}, 0,
                   "block 2048x1x1 has 2048 threads; empty allows at most 1024 on Mock H200");
    expect_refusal(empty, one, (cudyn_dim3){32, 32, 2}, 0, "block 32x32x2 has 2048 threads");
    expect_refusal(empty, one, (cudyn_dim3){1, 1, 128}, 0, "block 1x1x128: z is 128, Mock H200 allows at most 64");
    expect_refusal(bounded, one, (cudyn_dim3){512, 1, 1}, 0,
                   "block 512x1x1 has 512 threads; bounded_empty allows at most 256");
    expect_refusal(empty, (cudyn_dim3){1, 70000, 1}, one, 0, "grid 1x70000x1: y is 70000, Mock H200 allows at most 65535");
    /* more than 48 KiB of dynamic shared memory: the limit is raised
     * before the launch, once, and no launch is refused first (issue 24,
     * row 11: a refused launch is an error under compute-sanitizer) */
    long refused = mock_refusal_count("shared"), raises = mock_call_count("cuFuncSetAttribute");
    CHECK_STATUS(cudyn_launch(empty, one, one, 64 * 1024, NULL, NULL), CUDYN_OK);
    CHECK_STATUS(cudyn_launch(empty, one, one, 64 * 1024, NULL, NULL), CUDYN_OK);
    CHECK_STATUS(cudyn_launchf(empty, one, one, 60 * 1024, NULL, ""), CUDYN_OK);
    CHECK_EQ_INT(mock_call_count("cuFuncSetAttribute"), raises + 1);
    CHECK_STATUS(cudyn_launch(empty, one, one, 96 * 1024, NULL, NULL), CUDYN_OK); /* raised again, higher */
    CHECK_EQ_INT(mock_call_count("cuFuncSetAttribute"), raises + 2);
    CHECK_EQ_INT(mock_refusal_count("shared"), refused);
    /* more than the device can give: named, not sent to be refused */
    CHECK_STATUS(cudyn_launch(empty, one, one, 232448 + 1, NULL, NULL), CUDYN_ERROR_INVALID_ARGUMENT);
    cudyn_error e = {.size = sizeof e};
    cudyn_last_error(&e);
    CHECK_CONTAINS(e.message, "argument 'shared_bytes' is 232449");
    CHECK_EQ_INT(mock_refusal_count("shared"), refused);
    CHECK_STATUS(cudyn_launch(empty, one, (cudyn_dim3){1024, 1, 1}, 0, NULL, NULL), CUDYN_OK);
    CHECK_STATUS(cudyn_module_unload(mod), CUDYN_OK);
}

/* A driver without cuFuncGetAttribute (an optional row: its stub answers
 * "symbol not found"): a refused launch is still named from what the
 * driver does report, and the stub's answers, which explaining the
 * refusal ignores, name no later, unrelated failure. */
static int scenario_no_function_attributes(void)
{
    setenv("MOCK_CUDA_MISSING", "cuFuncGetAttribute", 1);
    use_mock_driver();
    cudyn_module mod = NULL;
    cudyn_function bounded = NULL;
    CHECK_STATUS(cudyn_module_load_image(&mod, image), CUDYN_OK);
    CHECK_STATUS(cudyn_module_function(&bounded, mod, "bounded_empty"), CUDYN_OK);
    CHECK(!cudyn_has("cuFuncGetAttribute"));
    expect_refusal(bounded, one, (cudyn_dim3){2048, 1, 1}, 0, "block 2048x1x1 has 2048 threads; Mock H200 allows");
    CHECK_EQ_INT(mock_fail_next("cuMemAlloc_v2", 2), 0);
    cudyn_devptr p = 0;
    CHECK_STATUS(cudyn_mem_alloc(&p, 64), CUDYN_ERROR_OUT_OF_MEMORY);
    cudyn_error e = {.size = sizeof e};
    cudyn_last_error(&e);
    CHECK(strcmp(e.function, "cuMemAlloc") == 0);
    CHECK_STATUS(cudyn_module_unload(mod), CUDYN_OK);
    return test_result("test_sharing no-function-attributes");
}

/* Modules, kernels and events belong to their device's context: a thread
 * working on another device is told which is which.  A stream of the
 * kernel's own device may be given (the real driver runs the work there). */
static void test_wrong_context_named(void)
{
    CHECK_STATUS(cudyn_device_use(0), CUDYN_OK);
    cudyn_module mod = NULL;
    cudyn_function f = NULL;
    cudyn_stream on0 = NULL;
    cudyn_event e = NULL;
    CHECK_STATUS(cudyn_module_load_image(&mod, image), CUDYN_OK);
    CHECK_STATUS(cudyn_module_function(&f, mod, "empty"), CUDYN_OK);
    CHECK_STATUS(cudyn_stream_create(&on0, 0), CUDYN_OK);
    CHECK_STATUS(cudyn_event_create(&e, 0), CUDYN_OK);

    CHECK_STATUS(cudyn_device_use(1), CUDYN_OK);
    cudyn_error err = {.size = sizeof err};
    cudyn_function again = NULL;
    CHECK_STATUS(cudyn_module_function(&again, mod, "empty"), CUDYN_ERROR_WRONG_CONTEXT);
    cudyn_last_error(&err);
    CHECK_CONTAINS(err.message, "the module belongs to device 0's context, but this thread works in device 1's");
    CHECK_CONTAINS(err.hint, "cudyn_device_use");
    CHECK_STATUS(cudyn_launch(f, one, one, 0, NULL, NULL), CUDYN_ERROR_WRONG_CONTEXT);
    cudyn_last_error(&err);
    CHECK_CONTAINS(err.message, "kernel empty belongs to device 0's context, but this thread works in device 1's");
    CHECK_STATUS(cudyn_launch(f, one, one, 0, on0, NULL), CUDYN_OK); /* its own device's stream */
    CHECK_STATUS(cudyn_event_record(e, NULL), CUDYN_ERROR_WRONG_CONTEXT);
    cudyn_last_error(&err);
    CHECK_CONTAINS(err.message, "the event belongs to device 0's context");
    CHECK_STATUS(cudyn_event_record(e, on0), CUDYN_OK);

    CHECK_STATUS(cudyn_device_use(0), CUDYN_OK);
    CHECK_STATUS(cudyn_event_destroy(e), CUDYN_OK);
    CHECK_STATUS(cudyn_stream_destroy(on0), CUDYN_OK);
    CHECK_STATUS(cudyn_module_unload(mod), CUDYN_OK);
}

/* A failing cuDeviceGet is that failure, not "device not visible". */
static void test_device_current_reports_the_driver(void)
{
    CHECK_STATUS(cudyn_device_use(0), CUDYN_OK);
    CHECK_EQ_INT(mock_fail_next("cuDeviceGet", 999), 0);
    int dev = -1;
    CHECK_STATUS(cudyn_device_current(&dev), CUDYN_ERROR_DRIVER);
    cudyn_error e = {.size = sizeof e};
    cudyn_last_error(&e);
    CHECK(strcmp(e.function, "cuDeviceGet") == 0);
    CHECK_STATUS(cudyn_device_current(&dev), CUDYN_OK);
}

/* A reset the driver refuses destroys nothing: modules loaded before it
 * still work, and unloading one unloads it from the driver. */
static void test_failed_reset_keeps_modules(void)
{
    CHECK_STATUS(cudyn_device_use(1), CUDYN_OK);
    cudyn_module mod = NULL;
    CHECK_STATUS(cudyn_module_load_image(&mod, image), CUDYN_OK);
    CHECK_EQ_INT(mock_fail_next("cuDevicePrimaryCtxReset_v2", 999), 0);
    CHECK_STATUS(cudyn_device_reset(1), CUDYN_ERROR_DRIVER);
    cudyn_error e = {.size = sizeof e};
    cudyn_last_error(&e);
    CHECK(strcmp(e.function, "cuDevicePrimaryCtxReset") == 0);
    CHECK(cudyn_module_native(mod) != NULL);
    cudyn_function f = NULL;
    CHECK_STATUS(cudyn_module_function(&f, mod, "empty"), CUDYN_OK);
    CHECK_STATUS(cudyn_launch(f, one, one, 0, NULL, NULL), CUDYN_OK);
    long unloads = mock_call_count("cuModuleUnload");
    CHECK_STATUS(cudyn_module_unload(mod), CUDYN_OK);
    CHECK_EQ_INT(mock_call_count("cuModuleUnload"), unloads + 1);
    CHECK_STATUS(cudyn_device_use(0), CUDYN_OK);
}

/* A reset whose release fails says so and keeps cudyn's retain, so the
 * next reset can drop it; modules loaded before a reset are dead handles:
 * using one says why, unloading it only frees it. */
static void test_device_reset(void)
{
    CHECK_STATUS(cudyn_device_use(1), CUDYN_OK);
    cudyn_module before = NULL;
    cudyn_function f = NULL;
    CHECK_STATUS(cudyn_module_load_image(&before, image), CUDYN_OK);
    int contexts = mock_context_count();
    CHECK_EQ_INT(mock_fail_next("cuDevicePrimaryCtxRelease_v2", 999), 0);
    CHECK_STATUS(cudyn_device_reset(1), CUDYN_ERROR_DRIVER);
    cudyn_error e = {.size = sizeof e};
    cudyn_last_error(&e);
    CHECK(strcmp(e.function, "cuDevicePrimaryCtxRelease") == 0);
    CHECK_STATUS(cudyn_device_reset(1), CUDYN_OK); /* this time the retain goes */
    CHECK_EQ_INT(mock_context_count(), contexts - 1);

    CHECK_STATUS(cudyn_module_function(&f, before, "empty"), CUDYN_ERROR_INVALID_HANDLE);
    cudyn_last_error(&e);
    CHECK_CONTAINS(e.message, "destroyed by cudyn_device_reset");
    CHECK(cudyn_module_native(before) == NULL);
    long unloads = mock_call_count("cuModuleUnload");
    CHECK_STATUS(cudyn_module_unload(before), CUDYN_OK);
    CHECK_EQ_INT(mock_call_count("cuModuleUnload"), unloads); /* its handle died with the context */
    cudyn_module after = NULL;
    CHECK_STATUS(cudyn_module_load_image(&after, image), CUDYN_OK); /* the device works again */
    CHECK_STATUS(cudyn_module_function(&f, after, "empty"), CUDYN_OK);
    CHECK_STATUS(cudyn_launch(f, one, one, 0, NULL, NULL), CUDYN_OK);
    CHECK_STATUS(cudyn_module_unload(after), CUDYN_OK);
    CHECK_STATUS(cudyn_device_use(0), CUDYN_OK);
}

/* Events go with the context a reset destroys: using one afterwards is
 * what the driver says of it (an invalid handle), not a claim that it
 * belongs to the reset device's context.  (The mock never hands a freed
 * event's address to a new event, so a reused handle naming its new
 * context cannot be shown here.) */
static void test_reset_forgets_events(void)
{
    CHECK_STATUS(cudyn_device_use(1), CUDYN_OK);
    cudyn_event e = NULL;
    CHECK_STATUS(cudyn_event_create(&e, 0), CUDYN_OK);
    CHECK_STATUS(cudyn_device_reset(1), CUDYN_OK);
    CHECK_STATUS(cudyn_device_use(0), CUDYN_OK);
    int st = cudyn_event_record(e, NULL);
    CHECK(st != CUDYN_OK && st != CUDYN_ERROR_WRONG_CONTEXT);
    cudyn_error err = {.size = sizeof err};
    cudyn_last_error(&err);
    CHECK_CONTAINS(err.message, "CUDA_ERROR_INVALID_HANDLE");
}

/* fork() after CUDA was initialised: the child gets CUDYN_ERROR_FORKED
 * from every call and the parent carries on. */
static int child_after_init(void)
{
    cudyn_devptr p = 0;
    if (cudyn_mem_alloc(&p, 64) != CUDYN_ERROR_FORKED)
        return 1;
    cudyn_error e = {.size = sizeof e};
    cudyn_last_error(&e);
    if (!strstr(e.message, "forked from pid") || !strstr(e.hint, "after fork()"))
        return 2;
    int n = -1;
    if (cudyn_device_count(&n) != CUDYN_ERROR_FORKED || cudyn_synchronize() != CUDYN_ERROR_FORKED)
        return 3;
    if (cudyn_driver_proc("cuMemAlloc", 3020) != NULL)
        return 4;
    return 0;
}

static void test_fork_after_init(void)
{
    cudyn_devptr p = 0;
    CHECK_STATUS(cudyn_mem_alloc(&p, 64), CUDYN_OK);
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0)
        _exit(child_after_init());
    int status = -1;
    CHECK(waitpid(pid, &status, 0) == pid && WIFEXITED(status));
    CHECK_EQ_INT(WEXITSTATUS(status), 0);
    CHECK_STATUS(cudyn_mem_free(p), CUDYN_OK); /* the parent is unaffected */
}

/* A child of a process that never initialised cudyn works normally. */
static int fork_before_init(void)
{
    pid_t pid = fork();
    if (pid == 0) {
        cudyn_devptr p = 0;
        _exit(cudyn_mem_alloc(&p, 64) == CUDYN_OK && cudyn_mem_free(p) == CUDYN_OK ? 0 : 1);
    }
    int status = -1;
    return waitpid(pid, &status, 0) == pid && WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

int main(int argc, char **argv)
{
    setenv("MOCK_CUDA_DEVICES", "Mock H200:90,Mock H200:90,Mock T4:75", 1);
    setenv("MOCK_CUDA_P2P", "0-1,1-0", 1);
    if (argc == 2 && strcmp(argv[1], "no-function-attributes") == 0)
        return scenario_no_function_attributes();
    use_mock_driver();
    CHECK_EQ_INT(fork_before_init(), 0); /* first: nothing initialised yet */
    test_foreign_context_popped();
    test_foreign_context_destroyed_elsewhere();
    test_native_handles();
    test_peer_access();
    test_launch_limits_named();
    CHECK_EQ_INT(run_self(argv[0], "no-function-attributes"), 0);
    test_wrong_context_named();
    test_device_current_reports_the_driver();
    test_failed_reset_keeps_modules();
    test_device_reset();
    test_reset_forgets_events();
    test_fork_after_init();
    return test_result("test_sharing");
}
