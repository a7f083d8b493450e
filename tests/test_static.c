/*
 * test_static.c - a fully static program (-static, built when configure
 * --enable-static builds libcudyn.a) gets a status from cudyn, never a
 * crash.  glibc cannot load the NVIDIA driver into a static executable:
 * its dlopen brings a second C library into the process, which libcuda's
 * threads and thread-local data do not survive.  So cudyn must refuse to
 * load any driver or NVRTC there, with CUDYN_ERROR_DRIVER_NOT_FOUND and a
 * message that says the program is statically linked, whatever
 * CUDYN_LIBCUDA names: the mock driver, a missing file, or (unset) the
 * machine's own driver; and the same for NVRTC, run here without the
 * kernel cache (with glibc 2.36 and NVRTC 13.0,
 * nvrtcCompileProgram crashes in a static program).  Each case runs in a
 * child, so that a crash is reported as one.
 */
#include "config.h"

#include <signal.h>

#include "cudyn.h"
#include "testutil.h"

/* The child: what cudyn_device_count and the error say; 0 if as expected. */
static int child(void)
{
    int n = -1;
    int st = cudyn_device_count(&n);
    cudyn_error e = {.size = sizeof e};
    cudyn_last_error(&e);
    printf("  cudyn_device_count: %s, count %d: %s\n", cudyn_status_name(st), n, e.message);
    CHECK_EQ_INT(st, CUDYN_ERROR_DRIVER_NOT_FOUND);
    CHECK_CONTAINS(e.message, "statically linked");
    CHECK_EQ_INT(n, 0);
    cudyn_program *prog = NULL;
    const char *const options[] = {"--gpu-architecture=compute_90"};
    st = cudyn_compile(&prog, "extern \"C\" __global__ void k() {}", "k.cu", CUDYN_DEVICE_NONE, options, 1);
    cudyn_last_error(&e);
    printf("  cudyn_compile: %s: %s\n", cudyn_status_name(st), e.message);
    CHECK_EQ_INT(st, CUDYN_ERROR_NVRTC_NOT_FOUND);
    CHECK_CONTAINS(e.message, "statically linked");
    cudyn_program_free(prog);
    return test_result("test_static (child)");
}

/* Runs the child with CUDYN_LIBCUDA set to value (NULL: unset). */
static void run_case(const char *argv0, const char *what, const char *value)
{
    setenv("CUDYN_CACHE", "0", 1); /* NVRTC must run */
    if (value)
        setenv("CUDYN_LIBCUDA", value, 1);
    else
        unsetenv("CUDYN_LIBCUDA");
    printf("%s:\n", what);
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        execl(argv0, argv0, "child", (char *)NULL);
        _exit(127);
    }
    int status = 0;
    if (pid < 0 || waitpid(pid, &status, 0) != pid) {
        fprintf(stderr, "%s: the child could not be run\n", what);
        test_failures++;
    } else if (WIFSIGNALED(status)) {
        fprintf(stderr, "%s: the static program crashed (signal %d, %s)\n", what, WTERMSIG(status),
                strsignal(WTERMSIG(status)));
        test_failures++;
    } else if (WEXITSTATUS(status) != 0) {
        fprintf(stderr, "%s: not the status and message expected\n", what);
        test_failures++;
    }
}

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "child") == 0)
        return child();
    const char *mock = getenv("MOCK_LIBCUDA");
    if (!mock)
        TEST_SKIP("MOCK_LIBCUDA not set (run through make check)");
    run_case(argv[0], "the mock driver", mock);
    run_case(argv[0], "a driver that is not there", "/nonexistent/libcuda.so.1");
    run_case(argv[0], "the machine's own driver, if any", NULL);
    return test_result("test_static");
}
