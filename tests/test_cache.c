/*
 * test_cache.c - the persistent kernel cache, the load fallbacks and name
 * expressions, with the real libnvrtc (skipped without one) and the mock
 * driver.  Scenarios that need a fresh process (environment read once) run
 * this program again as a child: test_cache child MODE.
 */
#include "config.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cudyn.h"
#include "mock/mock_control.h"
#include "testutil.h"

static const char template_src[] = "template <typename T> __global__ void scale(T *x, T a, size_t n)\n"
                                   "{\n"
                                   "    size_t i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                                   "    if (i < n) x[i] *= a;\n"
                                   "}\n"
                                   "__device__ int counter;\n";

static char dir[256];

/* Compiles src with opts; returns 1 if it came from the cache, 0 if NVRTC
 * built it, -1 on an error. */
static int compile_hit(const char *src, const char *const *opts, int n)
{
    cudyn_program *p = NULL;
    int st = cudyn_compile(&p, src, "cached.cu", 0, opts, n);
    int hit = st == CUDYN_OK ? cudyn_program_from_cache(p) : -1;
    if (st != CUDYN_OK) {
        cudyn_error e = {.size = sizeof e};
        cudyn_last_error(&e);
        fprintf(stderr, "compile failed: %s\n", e.message);
    }
    cudyn_program_free(p);
    return hit;
}

/* The only entry in dir (tests start from an empty one). */
static int entry_path(char *out, size_t cap)
{
    DIR *d = opendir(dir);
    int n = 0;
    struct dirent *e;
    while (d && (e = readdir(d)))
        if (strstr(e->d_name, ".kc") && !strstr(e->d_name, ".tmp")) {
            snprintf(out, cap, "%s/%s", dir, e->d_name);
            n++;
        }
    if (d)
        closedir(d);
    return n;
}

static void clear_dir(void)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    char path[600];
    while (d && (e = readdir(d)))
        if (e->d_name[0] != '.') {
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            unlink(path);
        }
    if (d)
        closedir(d);
}

/* Rewrites byte `offset` of the entry (negative: from the end). */
static void poke(long offset, unsigned char value)
{
    char path[600];
    if (entry_path(path, sizeof path) != 1)
        return;
    int fd = open(path, O_RDWR);
    off_t size = lseek(fd, 0, SEEK_END);
    pwrite(fd, &value, 1, offset >= 0 ? offset : size + offset);
    close(fd);
}

static void test_hits_and_damage(void)
{
    clear_dir();
    const char *o1[] = {"-DA=1", "-DB=2"}, *o2[] = {"-DB=2", "-DA=1"};
    CHECK_EQ_INT(compile_hit(test_saxpy_source, o1, 2), 0);
    char path[600];
    CHECK_EQ_INT(entry_path(path, sizeof path), 1);
    struct stat st;
    CHECK(stat(path, &st) == 0 && (st.st_mode & 0777) == 0600);
    CHECK(stat(dir, &st) == 0 && (st.st_mode & 0777) == 0700);
    CHECK_EQ_INT(compile_hit(test_saxpy_source, o1, 2), 1);
    CHECK_EQ_INT(compile_hit(test_saxpy_source, o2, 2), 0); /* options in another order: another key */
    CHECK_EQ_INT(compile_hit(test_saxpy_source, o1, 1), 0);
    CHECK_EQ_INT(compile_hit(test_saxpy_source, o2, 2), 1);

    /* damage of every kind: removed, rebuilt, then a hit again */
    struct {
        const char *what;
        long offset;
        int truncate_to;
    } damage[] = {{"flipped byte", 200, -1}, {"wrong format version", 8, -1}, {"truncated", 0, 100},
                  {"emptied", 0, 0},          {"bad checksum", -1, -1}};
    for (size_t i = 0; i < sizeof damage / sizeof damage[0]; i++) {
        clear_dir();
        CHECK_EQ_INT(compile_hit(test_saxpy_source, o1, 2), 0);
        if (damage[i].truncate_to >= 0) {
            entry_path(path, sizeof path);
            CHECK(truncate(path, damage[i].truncate_to) == 0);
        } else {
            poke(damage[i].offset, 0x99);
        }
        int hit = compile_hit(test_saxpy_source, o1, 2);
        if (hit != 0) {
            fprintf(stderr, "damage '%s': got %d, expected a rebuild\n", damage[i].what, hit);
            test_failures++;
        }
        CHECK_EQ_INT(compile_hit(test_saxpy_source, o1, 2), 1);
    }

    /* an entry owned by someone else is not trusted */
    clear_dir();
    CHECK_EQ_INT(compile_hit(test_saxpy_source, o1, 2), 0);
    entry_path(path, sizeof path);
    if (geteuid() == 0 && chown(path, 12345, 12345) == 0) {
        CHECK_EQ_INT(compile_hit(test_saxpy_source, o1, 2), 0);
        CHECK(stat(path, &st) == 0 && st.st_uid == 0); /* replaced by our own */
        CHECK_EQ_INT(compile_hit(test_saxpy_source, o1, 2), 1);
    }
    /* and neither is one others may write */
    chmod(path, 0666);
    CHECK_EQ_INT(compile_hit(test_saxpy_source, o1, 2), 0);
}

static void test_name_expressions(void)
{
    const char *names[] = {"scale<float>", "scale<double>", "&counter"};
    for (int round = 0; round < 2; round++) { /* NVRTC, then the cache */
        cudyn_program *p = NULL;
        CHECK_STATUS(cudyn_compile_names(&p, template_src, "scale.cu", 0, NULL, 0, names, 3), CUDYN_OK);
        if (!p)
            return;
        CHECK_EQ_INT(cudyn_program_from_cache(p), round);
        const char *lf = cudyn_program_lowered_name(p, "scale<float>");
        const char *ld = cudyn_program_lowered_name(p, "scale<double>");
        CHECK(lf && strncmp(lf, "_Z", 2) == 0);
        CHECK(ld && strncmp(ld, "_Z", 2) == 0 && strcmp(lf, ld) != 0);
        CHECK(cudyn_program_lowered_name(p, "scale<int>") == NULL);
        cudyn_module m = NULL;
        cudyn_function f = NULL;
        CHECK_STATUS(cudyn_module_load(&m, p), CUDYN_OK);
        CHECK_STATUS(cudyn_module_function(&f, m, "scale<float>"), CUDYN_OK);
        CHECK_STATUS(cudyn_module_function(&f, m, lf), CUDYN_OK);
        CHECK_STATUS(cudyn_module_function(&f, m, "scale<int>"), CUDYN_ERROR_NOT_FOUND);
        cudyn_module_unload(m);
        cudyn_program_free(p);
    }
    /* a name expression that does not name anything */
    const char *bad[] = {"no_such<float>"};
    cudyn_program *p = NULL;
    CHECK(cudyn_compile_names(&p, template_src, NULL, 0, NULL, 0, bad, 1) != CUDYN_OK);
    cudyn_program_free(p);
}

static void test_fallbacks(void)
{
    /* PTX the driver finds too new (222): rebuilt as CUBIN for the GPU */
    const char *ptx_opts[] = {"--gpu-architecture=compute_80"};
    cudyn_program *p = NULL;
    CHECK_STATUS(cudyn_compile(&p, test_saxpy_source, NULL, 0, ptx_opts, 1), CUDYN_OK);
    CHECK_EQ_INT(mock_reject_images("ptx"), 0);
    cudyn_module m = NULL;
    cudyn_function f = NULL;
    long loads = mock_call_count("cuModuleLoadDataEx");
    CHECK_STATUS(cudyn_module_load(&m, p), CUDYN_OK);
    CHECK_EQ_INT(mock_call_count("cuModuleLoadDataEx"), loads + 2);
    CHECK_STATUS(cudyn_module_function(&f, m, "saxpy"), CUDYN_OK);
    cudyn_module_unload(m);
    cudyn_program_free(p);

    /* SASS for another GPU (209): rebuilt as PTX */
    const char *sass_opts[] = {"-arch", "sm_80"};
    CHECK_STATUS(cudyn_compile(&p, test_saxpy_source, NULL, 0, sass_opts, 2), CUDYN_OK);
    mock_reject_images("cubin");
    CHECK_STATUS(cudyn_module_load(&m, p), CUDYN_OK);
    CHECK_STATUS(cudyn_module_function(&f, m, "saxpy"), CUDYN_OK);
    cudyn_module_unload(m);

    /* nothing helps: the error names the capability, target and list */
    mock_reject_images("cubin,ptx");
    CHECK_STATUS(cudyn_module_load(&m, p), CUDYN_ERROR_NO_BINARY_FOR_GPU);
    cudyn_error e = {.size = sizeof e};
    cudyn_last_error(&e);
    CHECK_CONTAINS(e.message, "compute capability 9.0");
    CHECK_CONTAINS(e.message, "sm_80");
    CHECK_CONTAINS(e.message, "tried sm_80, then compute_90");
    CHECK_CONTAINS(e.message, "supports 75 80");
    cudyn_program_free(p);
    mock_reject_images("");
}

static void test_load_source(void)
{
    cudyn_module a = NULL, b = NULL, c = NULL;
    long loads = mock_call_count("cuModuleLoadDataEx");
    long unloads = mock_call_count("cuModuleUnload");
    CHECK_STATUS(cudyn_module_load_source(&a, test_saxpy_source, NULL, 0), CUDYN_OK);
    CHECK_STATUS(cudyn_module_load_source(&b, test_saxpy_source, NULL, 0), CUDYN_OK);
    CHECK(a == b);
    CHECK_EQ_INT(mock_call_count("cuModuleLoadDataEx"), loads + 1);
    const char *opt[] = {"-DX=1"};
    CHECK_STATUS(cudyn_module_load_source(&c, test_saxpy_source, opt, 1), CUDYN_OK);
    CHECK(c != a);
    cudyn_function f;
    CHECK_STATUS(cudyn_module_function(&f, a, "saxpy"), CUDYN_OK);
    CHECK_STATUS(cudyn_module_unload(a), CUDYN_OK);
    CHECK_STATUS(cudyn_module_function(&f, b, "saxpy"), CUDYN_OK); /* still loaded for b */
    CHECK_STATUS(cudyn_module_unload(b), CUDYN_OK);
    CHECK_STATUS(cudyn_module_unload(c), CUDYN_OK);
    CHECK_EQ_INT(mock_call_count("cuModuleUnload"), unloads + 2);
    /* a bad source: the compile error and its log line */
    CHECK_STATUS(cudyn_module_load_source(&a, "__global__ void k() { nope; }", NULL, 0), CUDYN_ERROR_COMPILE);
    cudyn_error e = {.size = sizeof e};
    cudyn_last_error(&e);
    CHECK_CONTAINS(e.message, "nope");
}

/* ---- child processes: scenarios that need their own environment ---- */

static int child(const char *mode)
{
    use_mock_driver();
    if (strcmp(mode, "compile") == 0) {
        int hit = compile_hit(test_saxpy_source, NULL, 0);
        return hit < 0 ? 3 : hit;
    }
    if (strncmp(mode, "kernel", 6) == 0) { /* concurrent writers, kernel N */
        char src[512];
        snprintf(src, sizeof src, "extern \"C\" __global__ void k%d(int *x) { x[0] = %d; }\n", atoi(mode + 6) % 3,
                 atoi(mode + 6) % 3);
        int hit = compile_hit(src, NULL, 0);
        return hit < 0 ? 3 : 0;
    }
    return 4;
}

/* Runs "test_cache child MODE" with extra environment; its exit code. */
static int run_child(const char *mode, const char *const *env)
{
    pid_t pid = fork();
    if (pid == 0) {
        for (int i = 0; env && env[i]; i += 2) {
            if (env[i + 1])
                setenv(env[i], env[i + 1], 1);
            else
                unsetenv(env[i]);
        }
        execl("/proc/self/exe", "test_cache", "child", mode, (char *)NULL);
        _exit(5);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 6;
}

static void test_environment(void)
{
    char xdg[300], other[300];
    snprintf(xdg, sizeof xdg, "%s/xdg", dir);
    snprintf(other, sizeof other, "%s/open", dir);
    /* CUDYN_CACHE=0: never a hit, nothing written */
    clear_dir();
    const char *off[] = {"CUDYN_CACHE", "0", NULL};
    CHECK_EQ_INT(run_child("compile", off), 0);
    CHECK_EQ_INT(run_child("compile", off), 0);
    char path[600];
    CHECK_EQ_INT(entry_path(path, sizeof path), 0);
    /* XDG_CACHE_HOME when CUDYN_CACHE_DIR is unset */
    const char *by_xdg[] = {"CUDYN_CACHE_DIR", NULL, "XDG_CACHE_HOME", xdg, NULL};
    CHECK_EQ_INT(run_child("compile", by_xdg), 0);
    CHECK_EQ_INT(run_child("compile", by_xdg), 1);
    struct stat st;
    char sub[400];
    snprintf(sub, sizeof sub, "%s/cudyn", xdg);
    CHECK(stat(sub, &st) == 0 && S_ISDIR(st.st_mode) && (st.st_mode & 0777) == 0700);
    /* a directory others can write is not used; the compile still works */
    mkdir(other, 0777);
    chmod(other, 0777);
    const char *open_dir[] = {"CUDYN_CACHE_DIR", other, NULL};
    CHECK_EQ_INT(run_child("compile", open_dir), 0);
    CHECK_EQ_INT(run_child("compile", open_dir), 0);
    /* a directory that cannot exist: caching off, compiling fine */
    const char *impossible[] = {"CUDYN_CACHE_DIR", "/dev/null/cudyn", NULL};
    CHECK_EQ_INT(run_child("compile", impossible), 0);
    /* concurrent writers of the same and different kernels */
    clear_dir();
    pid_t pids[12];
    for (int i = 0; i < 12; i++) {
        char mode[32];
        snprintf(mode, sizeof mode, "kernel%d", i);
        if ((pids[i] = fork()) == 0)
            _exit(run_child(mode, NULL));
    }
    for (int i = 0; i < 12; i++) {
        int status = 0;
        waitpid(pids[i], &status, 0);
        CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    }
    for (int k = 0; k < 3; k++) { /* every entry written is whole */
        char src[512];
        snprintf(src, sizeof src, "extern \"C\" __global__ void k%d(int *x) { x[0] = %d; }\n", k, k);
        CHECK_EQ_INT(compile_hit(src, NULL, 0), 1);
    }
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "child") == 0)
        return child(argv[2]);
    const char *base = getenv("CUDYN_CACHE_DIR");
    if (!base)
        TEST_SKIP("CUDYN_CACHE_DIR not set (run through make check)");
    snprintf(dir, sizeof dir, "%s/test_cache.%ld", base, (long)getpid());
    mkdir(base, 0700);
    mkdir(dir, 0700);
    setenv("CUDYN_CACHE_DIR", dir, 1);
    use_mock_driver();
    struct cudyn_loader_info l = {.size = sizeof l};
    cudyn_loader_info(&l);
    if (l.nvrtc_status != CUDYN_OK)
        TEST_SKIP("no libnvrtc on this machine");
    test_hits_and_damage();
    test_name_expressions();
    test_fallbacks();
    test_load_source();
    test_environment();
    return test_result("test_cache");
}
