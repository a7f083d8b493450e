/*
 * test_compile_threads.c - one compile per input (issue 13): threads that
 * compile or load the same source at the same moment share one NVRTC run
 * and, in one context, one module (a warm load asks the driver for the
 * context's device and its compute capability only); a failure reaches
 * every one of them; different sources still compile side by side.  CI
 * runs it under ThreadSanitizer too.
 *
 * It runs on the mock NVRTC, whose call counter says how often NVRTC
 * compiled and whose delay (MOCK_NVRTC_DELAY_MS) keeps each compile going
 * until every thread has arrived.
 */
#include "config.h"

#include <pthread.h>

#include "cachetest.h"
#include "mock/mock_control.h"
#include "mock/nvrtc/mock_nvrtc_control.h"

#define THREADS 32

static pthread_barrier_t start;

struct job {
    const char *source;
    int status;
    cudyn_module module;
    cudyn_program *program;
    char message[1024];
};

static void finish(struct job *j)
{
    cudyn_error e = {.size = sizeof e};
    cudyn_last_error(&e);
    snprintf(j->message, sizeof j->message, "%s", j->status == CUDYN_OK ? "" : e.message);
}

static void *load_source(void *arg)
{
    struct job *j = arg;
    pthread_barrier_wait(&start);
    j->status = cudyn_module_load_source(&j->module, j->source, NULL, 0);
    finish(j);
    return NULL;
}

static void *compile(void *arg)
{
    struct job *j = arg;
    pthread_barrier_wait(&start);
    j->status = cudyn_compile(&j->program, j->source, NULL, 0, NULL, 0);
    finish(j);
    return NULL;
}

/* Runs fn on THREADS threads, each with its own job for `sources` (one
 * source for all, or one each); returns the NVRTC runs. */
static int race(void *(*fn)(void *), struct job *jobs, const char *const *sources, int n_sources)
{
    pthread_t t[THREADS];
    long before = mock_nvrtc_call_count("nvrtcCompileProgram");
    pthread_barrier_init(&start, NULL, THREADS);
    for (int i = 0; i < THREADS; i++) {
        jobs[i] = (struct job){.source = sources[i % n_sources]};
        pthread_create(&t[i], NULL, fn, &jobs[i]);
    }
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    pthread_barrier_destroy(&start);
    return (int)(mock_nvrtc_call_count("nvrtcCompileProgram") - before);
}

static const char *unique_source(const char *tag, int i)
{
    static char src[16][256];
    snprintf(src[i % 16], sizeof src[0], "extern \"C\" __global__ void %s%d_%ld(float *x) { x[0] = %d; }\n", tag, i,
             (long)getpid(), i);
    return src[i % 16];
}

static void test_same_module(void)
{
    struct job jobs[THREADS];
    const char *src = unique_source("shared", 0);
    long loads = mock_call_count("cuModuleLoadDataEx");
    CHECK_EQ_INT(race(load_source, jobs, &src, 1), 1);
    CHECK_EQ_INT(mock_call_count("cuModuleLoadDataEx"), loads + 1);
    for (int i = 0; i < THREADS; i++) {
        CHECK_STATUS(jobs[i].status, CUDYN_OK);
        CHECK(jobs[i].module == jobs[0].module);
    }
    /* one more, warm: the context's device and its compute capability
     * are all it asks the driver (no walk over the devices) */
    long walks = mock_call_count("cuDeviceGetCount") + mock_call_count("cuDeviceGet"),
         attributes = mock_call_count("cuDeviceGetAttribute");
    cudyn_module warm = NULL;
    CHECK_STATUS(cudyn_module_load_source(&warm, src, NULL, 0), CUDYN_OK);
    CHECK(warm == jobs[0].module);
    CHECK_EQ_INT(mock_call_count("cuDeviceGetCount") + mock_call_count("cuDeviceGet"), walks);
    CHECK_EQ_INT(mock_call_count("cuDeviceGetAttribute"), attributes + 2);
    CHECK_STATUS(cudyn_module_unload(warm), CUDYN_OK);
    long unloads = mock_call_count("cuModuleUnload");
    for (int i = 0; i < THREADS; i++)
        CHECK_STATUS(cudyn_module_unload(jobs[i].module), CUDYN_OK);
    CHECK_EQ_INT(mock_call_count("cuModuleUnload"), unloads + 1); /* by the last one */
}

static void test_same_program(void)
{
    struct job jobs[THREADS];
    const char *src = unique_source("compiled", 0);
    CHECK_EQ_INT(race(compile, jobs, &src, 1), 1);
    size_t n0 = 0;
    const void *image0 = jobs[0].program ? cudyn_program_image(jobs[0].program, &n0) : NULL;
    for (int i = 0; i < THREADS; i++) {
        CHECK_STATUS(jobs[i].status, CUDYN_OK);
        size_t n = 0;
        const void *image = jobs[i].program ? cudyn_program_image(jobs[i].program, &n) : NULL;
        CHECK(image && n == n0 && memcmp(image, image0, n) == 0);
    }
    for (int i = 0; i < THREADS; i++)
        cudyn_program_free(jobs[i].program);
}

/* A failure is shared by the threads waiting for it (it is not stored, so
 * a thread arriving later would compile again; the mock's delay makes
 * sure none does): all get the error and its log, from one NVRTC run. */
static void test_shared_failure(void)
{
    struct job jobs[THREADS];
    char src[256];
    snprintf(src, sizeof src, "#error undefined_%ld\nextern \"C\" __global__ void broken(float *x) { }\n",
             (long)getpid());
    const char *s = src;
    int runs = race(compile, jobs, &s, 1);
    CHECK_EQ_INT(runs, 1);
    for (int i = 0; i < THREADS; i++) {
        CHECK_STATUS(jobs[i].status, CUDYN_ERROR_COMPILE);
        CHECK_CONTAINS(jobs[i].message, "undefined_");
        CHECK(jobs[i].program && strstr(cudyn_program_log(jobs[i].program), "undefined_"));
        cudyn_program_free(jobs[i].program);
    }
    runs = race(load_source, jobs, &s, 1);
    CHECK_EQ_INT(runs, 1);
    for (int i = 0; i < THREADS; i++) {
        CHECK_STATUS(jobs[i].status, CUDYN_ERROR_COMPILE);
        CHECK_CONTAINS(jobs[i].message, "undefined_");
    }
}

static void test_different_sources(void)
{
    struct job jobs[THREADS];
    const char *sources[8];
    for (int i = 0; i < 8; i++)
        sources[i] = unique_source("apart", i);
    CHECK_EQ_INT(race(load_source, jobs, sources, 8), 8);
    for (int i = 0; i < THREADS; i++) {
        CHECK_STATUS(jobs[i].status, CUDYN_OK);
        CHECK(jobs[i].module == jobs[i % 8].module);
        CHECK(i < 8 || jobs[i].module != jobs[(i + 1) % 8].module);
    }
    for (int i = 0; i < THREADS; i++)
        cudyn_module_unload(jobs[i].module);
}

int main(void)
{
    use_own_cache_dir("test_compile_threads");
    const char *mock_nvrtc = getenv("MOCK_LIBNVRTC");
    if (!mock_nvrtc)
        TEST_SKIP("MOCK_LIBNVRTC not set (run through make check)");
    setenv("CUDYN_LIBNVRTC", mock_nvrtc, 1);
    setenv("MOCK_NVRTC_DELAY_MS", "300", 1); /* each compile outlasts the threads' start */
    use_mock_driver();
    need_nvrtc();
    CHECK_STATUS(cudyn_device_use(0), CUDYN_OK);
    test_same_module();
    test_same_program();
    test_shared_failure();
    test_different_sources();
    return test_result("test_compile_threads");
}
