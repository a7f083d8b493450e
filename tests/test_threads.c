/*
 * test_threads.c - 32 threads race the first call: the driver is loaded,
 * bound and initialised once, and every thread sees the same result; then
 * typed launches from many threads while other threads load, look up and
 * unload modules (the kernel-parameter registry is read without locks);
 * a module read while another thread resets its device.
 * CI also runs this under ThreadSanitizer (configure --enable-sanitizer=thread).
 */
#include "config.h"

#include <pthread.h>

#include "cudyn.h"
#include "mock/mock_control.h"
#include "testutil.h"

#define THREADS 32

static pthread_barrier_t start;

struct result {
    int status, count, alloc_status;
};

static void *first_call(void *arg)
{
    struct result *r = arg;
    pthread_barrier_wait(&start);
    r->status = cudyn_device_count(&r->count);
    cudyn_devptr p = 0;
    r->alloc_status = cudyn_mem_alloc(&p, 256);
    cudyn_mem_free(p);
    return NULL;
}

/* Two kernels of one image: launches check "empty"'s parameters while the
 * same addresses keep being handed out and forgotten for "record". */
static const char launch_image[] = ".version 8.0\n.visible .entry empty()\n{\n}\n";
static const char churn_image[] = ".version 8.0\n.visible .entry record(.param .u32 a, .param .f32 b)\n{\n}\n";

enum { LAUNCHERS = 8, LAUNCHES = 400, CHURNS = 100 };

struct launch_result {
    cudyn_function f;
    int failures;
};

static void *launcher(void *arg)
{
    struct launch_result *r = arg;
    const cudyn_dim3 one = {1, 1, 1};
    pthread_barrier_wait(&start);
    for (int i = 0; i < LAUNCHES; i++)
        if (cudyn_launchf(r->f, one, one, 0, NULL, "") != CUDYN_OK)
            r->failures++;
    return NULL;
}

static void *churner(void *arg)
{
    int *failures = arg;
    pthread_barrier_wait(&start);
    for (int i = 0; i < CHURNS; i++) {
        cudyn_module m = NULL;
        cudyn_function f = NULL;
        if (cudyn_module_load_image(&m, churn_image) != CUDYN_OK || cudyn_module_function(&f, m, "record") != CUDYN_OK ||
            cudyn_module_unload(m) != CUDYN_OK)
            (*failures)++;
    }
    return NULL;
}

static void test_launches_while_modules_come_and_go(void)
{
    cudyn_module m = NULL;
    struct launch_result r[LAUNCHERS];
    CHECK_STATUS(cudyn_module_load_image(&m, launch_image), CUDYN_OK);
    CHECK_STATUS(cudyn_module_function(&r[0].f, m, "empty"), CUDYN_OK);
    pthread_barrier_init(&start, NULL, LAUNCHERS + 1);
    pthread_t t[LAUNCHERS + 1];
    int churn_failures = 0;
    for (int i = 0; i < LAUNCHERS; i++) {
        r[i] = (struct launch_result){r[0].f, 0};
        pthread_create(&t[i], NULL, launcher, &r[i]);
    }
    pthread_create(&t[LAUNCHERS], NULL, churner, &churn_failures);
    for (int i = 0; i <= LAUNCHERS; i++)
        pthread_join(t[i], NULL);
    pthread_barrier_destroy(&start);
    for (int i = 0; i < LAUNCHERS; i++)
        CHECK_EQ_INT(r[i].failures, 0);
    CHECK_EQ_INT(churn_failures, 0);
    CHECK_STATUS(cudyn_module_unload(m), CUDYN_OK);
}

/* A module asked about from one thread while another thread resets its
 * device: what the reset marks is read without the registry's lock
 * (cudyn_module_native, and each lookup in the module), so ThreadSanitizer
 * checks that it is read and written atomically. */
enum { READS = 2000 };

static void *native_reader(void *arg)
{
    cudyn_module m = arg;
    pthread_barrier_wait(&start);
    for (int i = 0; i < READS; i++)
        (void)cudyn_module_native(m);
    return NULL;
}

static void test_module_read_while_its_device_resets(void)
{
    CHECK_STATUS(cudyn_device_use(1), CUDYN_OK);
    cudyn_module m = NULL;
    CHECK_STATUS(cudyn_module_load_image(&m, launch_image), CUDYN_OK);
    pthread_barrier_init(&start, NULL, 2);
    pthread_t t;
    pthread_create(&t, NULL, native_reader, m);
    pthread_barrier_wait(&start);
    CHECK_STATUS(cudyn_device_reset(1), CUDYN_OK);
    pthread_join(t, NULL);
    pthread_barrier_destroy(&start);
    CHECK(cudyn_module_native(m) == NULL);
    CHECK_STATUS(cudyn_module_unload(m), CUDYN_OK);
    CHECK_STATUS(cudyn_device_use(0), CUDYN_OK);
}

int main(void)
{
    setenv("MOCK_CUDA_DEVICES", "A:90,B:80", 1);
    use_mock_driver();
    pthread_t t[THREADS];
    struct result r[THREADS];
    pthread_barrier_init(&start, NULL, THREADS);
    for (int i = 0; i < THREADS; i++)
        pthread_create(&t[i], NULL, first_call, &r[i]);
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    pthread_barrier_destroy(&start);
    for (int i = 0; i < THREADS; i++) {
        CHECK_STATUS(r[i].status, CUDYN_OK);
        CHECK_EQ_INT(r[i].count, 2);
        CHECK_STATUS(r[i].alloc_status, CUDYN_OK);
    }
    CHECK_EQ_INT(mock_call_count("cuInit"), 1);
    CHECK_EQ_INT(mock_call_count("cuDriverGetVersion"), 1);
    CHECK_EQ_INT(mock_call_count("cuDevicePrimaryCtxRetain"), 1);
    /* one request per table row, not one per thread */
    const char *req = mock_requests();
    const char *first = strstr(req, "cuMemAlloc@3020;");
    CHECK(first && !strstr(first + 1, "cuMemAlloc@3020;"));

    test_launches_while_modules_come_and_go();
    test_module_read_while_its_device_resets();
    return test_result("test_threads");
}
