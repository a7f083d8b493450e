/*
 * test_compile_threads.c - one compile per input (issue 13): threads that
 * compile or load the same source at the same moment share one NVRTC run
 * and, in one context, one module; a failure reaches every one of them;
 * different sources still compile side by side.  CI runs it under
 * ThreadSanitizer too.
 *
 * NVRTC runs are counted from cudyn's CUDYN_DEBUG message for each ("compile
 * NAME for TARGET: NVRTC ..."), written to a file for the test to read
 * (the mock NVRTC's call counter will replace this).
 */
#include "config.h"

#include <pthread.h>

#include "cachetest.h"
#include "mock/mock_control.h"

#define THREADS 32

static pthread_barrier_t start;
static char debug_log[700];
static int saved_stderr = -1;

/* CUDYN_DEBUG lines go to a file while the threads run. */
static void capture_debug(void)
{
    fflush(stderr);
    saved_stderr = dup(2);
    int fd = open(debug_log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    dup2(fd, 2);
    close(fd);
    setenv("CUDYN_DEBUG", "1", 1);
}

/* NVRTC runs since capture_debug: the message of each is written in one
 * piece, though another thread's output may split its line. */
static int nvrtc_runs(void)
{
    unsetenv("CUDYN_DEBUG");
    fflush(stderr);
    dup2(saved_stderr, 2);
    close(saved_stderr);
    FILE *f = fopen(debug_log, "r");
    static char text[1 << 20];
    size_t n = f ? fread(text, 1, sizeof text - 1, f) : 0;
    if (f)
        fclose(f);
    text[n] = '\0';
    int runs = 0;
    for (const char *p = text; (p = strstr(p, ": NVRTC ")); p++)
        runs++;
    return runs;
}

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
    capture_debug();
    pthread_barrier_init(&start, NULL, THREADS);
    for (int i = 0; i < THREADS; i++) {
        jobs[i] = (struct job){.source = sources[i % n_sources]};
        pthread_create(&t[i], NULL, fn, &jobs[i]);
    }
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    pthread_barrier_destroy(&start);
    return nvrtc_runs();
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

/* A failure is not stored, so a thread that arrives after the first
 * compile failed compiles again: all get the error and its log, and NVRTC
 * runs far fewer times than there are threads (exactly once when the
 * compile outlasts the threads' start, which a mock NVRTC with a delay can
 * make sure of). */
static void test_shared_failure(void)
{
    struct job jobs[THREADS];
    char src[256];
    snprintf(src, sizeof src, "extern \"C\" __global__ void broken_%ld() { undefined_%ld; }\n", (long)getpid(),
             (long)getpid());
    const char *s = src;
    int runs = race(compile, jobs, &s, 1);
    CHECK(runs >= 1 && runs <= THREADS / 4);
    for (int i = 0; i < THREADS; i++) {
        CHECK_STATUS(jobs[i].status, CUDYN_ERROR_COMPILE);
        CHECK_CONTAINS(jobs[i].message, "undefined_");
        CHECK(jobs[i].program && strstr(cudyn_program_log(jobs[i].program), "undefined_"));
        cudyn_program_free(jobs[i].program);
    }
    runs = race(load_source, jobs, &s, 1);
    CHECK(runs >= 1 && runs <= THREADS / 4);
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
    snprintf(debug_log, sizeof debug_log, "%s/debug.log", dir);
    use_mock_driver();
    need_nvrtc();
    CHECK_STATUS(cudyn_device_use(0), CUDYN_OK);
    test_same_module();
    test_same_program();
    test_shared_failure();
    test_different_sources();
    return test_result("test_compile_threads");
}
