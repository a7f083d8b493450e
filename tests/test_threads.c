/*
 * test_threads.c - 32 threads race the first call: the driver is loaded,
 * bound and initialised once, and every thread sees the same result.  CI
 * also runs this under ThreadSanitizer (configure --enable-sanitizer=thread).
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

    /* the same holds for a failing initialisation, in a fresh process */
    return test_result("test_threads");
}
