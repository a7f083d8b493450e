/*
 * cachetest.h - what the kernel-cache tests share: a cache directory of
 * their own, counting and finding its entries, compiling and telling a hit
 * from a compile, and running the test again as a child with its own
 * environment (cudyn reads its environment once per process).
 */
#ifndef CUDYN_CACHETEST_H
#define CUDYN_CACHETEST_H

#include <dirent.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cudyn.h"
#include "testutil.h"

static char dir[512]; /* this test's cache directory */

static inline bool is_entry(const char *name)
{
    size_t n = strlen(name);
    return n > 3 && strcmp(name + n - 3, ".kc") == 0;
}

/* Entries in d (temporary files do not count); the last one's path. */
static inline int entries_in(const char *d, char *last, size_t cap)
{
    DIR *h = opendir(d);
    int n = 0;
    struct dirent *e;
    while (h && (e = readdir(h)))
        if (is_entry(e->d_name)) {
            if (last)
                snprintf(last, cap, "%s/%s", d, e->d_name);
            n++;
        }
    if (h)
        closedir(h);
    return n;
}

static inline int entry_path(char *out, size_t cap)
{
    return entries_in(dir, out, cap);
}

static inline void clear_dir(void)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    char path[1024];
    while (d && (e = readdir(d)))
        if (e->d_name[0] != '.') {
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            unlink(path);
        }
    if (d)
        closedir(d);
}

/* 1 if the program came from the cache, 0 if NVRTC built it, -1 on an
 * error (printed).  *prog_out, if not NULL, keeps the program. */
static inline int compile_args_hit(const struct cudyn_compile_args *a, cudyn_program **prog_out)
{
    cudyn_program *p = NULL;
    int st = cudyn_compile_ex(&p, a);
    int hit = st == CUDYN_OK ? cudyn_program_from_cache(p) : -1;
    if (st != CUDYN_OK) {
        cudyn_error e = {.size = sizeof e};
        cudyn_last_error(&e);
        fprintf(stderr, "compile failed: %s\n", e.message);
    }
    if (prog_out)
        *prog_out = p;
    else
        cudyn_program_free(p);
    return hit;
}

static inline int compile_hit(const char *src, const char *const *opts, int n)
{
    struct cudyn_compile_args a = {.size = sizeof a, .source = src, .name = "cached.cu", .options = opts,
                                   .num_options = n};
    return compile_args_hit(&a, NULL);
}

/* Runs "<this test> child MODE" with extra environment (NAME, VALUE
 * pairs; a NULL value unsets); its exit code. */
static inline int run_child(const char *mode, const char *const *env)
{
    /* the program's path: under valgrind, /proc/self/exe is valgrind */
    static char self[4096];
    ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
    self[len > 0 ? len : 0] = '\0';
    fflush(stderr);
    pid_t pid = fork();
    if (pid == 0) {
        for (int i = 0; env && env[i]; i += 2) {
            if (env[i + 1])
                setenv(env[i], env[i + 1], 1);
            else
                unsetenv(env[i]);
        }
        execl(self, "cachetest", "child", mode, (char *)NULL);
        _exit(5);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 6;
}

/* A fresh cache directory named after the test, under the harness's. */
static inline void use_own_cache_dir(const char *test)
{
    const char *base = getenv("CUDYN_CACHE_DIR");
    if (!base)
        TEST_SKIP("CUDYN_CACHE_DIR not set (run through make check)");
    snprintf(dir, sizeof dir, "%s/%s.%ld", base, test, (long)getpid());
    mkdir(base, 0700);
    mkdir(dir, 0700);
    setenv("CUDYN_CACHE_DIR", dir, 1);
}

/* Skips (77) when there is no NVRTC to compile with. */
static inline void need_nvrtc(void)
{
    struct cudyn_loader_info l = {.size = sizeof l};
    cudyn_loader_info(&l);
    if (l.nvrtc_status != CUDYN_OK)
        TEST_SKIP("no libnvrtc on this machine");
}

#endif
