/*
 * libc_kernels.h - the kernels of tests/libc, one per C or C++ library
 * header cudyn gives NVRTC (lib/compile/libc_headers.c), for the tests
 * that compile them (test_libc_headers, with NVRTC) and run them
 * (test_gpu_libc, on a GPU).  tests/libc/harness.cuh says how a kernel
 * is written; check-libc-nvcc.sh compiles the same files with nvcc.
 */
#ifndef CUDYN_LIBC_KERNELS_H
#define CUDYN_LIBC_KERNELS_H

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

#define LIBC_MAX_KERNELS 64

/* $top_srcdir/tests/libc; the test skips outside make check. */
static inline const char *libc_kernel_dir(void)
{
    static char dir[1024];
    const char *top = getenv("top_srcdir");
    if (!top)
        TEST_SKIP("top_srcdir not set (run through make check)");
    snprintf(dir, sizeof dir, "%s/tests/libc", top);
    return dir;
}

static int libc_compare_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The kernels' file names (the *.cu of the directory), sorted; returns how
 * many (free each and the array with libc_kernels_free). */
static inline int libc_kernels(char ***out)
{
    DIR *d = opendir(libc_kernel_dir());
    char **v = calloc(LIBC_MAX_KERNELS, sizeof *v);
    int n = 0;
    struct dirent *e;
    while (d && v && (e = readdir(d)) && n < LIBC_MAX_KERNELS) {
        size_t len = strlen(e->d_name);
        if (len > 3 && strcmp(e->d_name + len - 3, ".cu") == 0)
            v[n++] = strdup(e->d_name);
    }
    if (d)
        closedir(d);
    if (!v || n == 0) {
        fprintf(stderr, "no kernels in %s\n", libc_kernel_dir());
        exit(1);
    }
    qsort(v, (size_t)n, sizeof *v, libc_compare_names);
    *out = v;
    return n;
}

static inline void libc_kernels_free(char **v, int n)
{
    for (int i = 0; i < n; i++)
        free(v[i]);
    free(v);
}

/* A file's contents, NUL-terminated (free it); the test stops without it. */
static inline char *libc_read(const char *path)
{
    FILE *f = fopen(path, "rb");
    char *text = NULL;
    long size = -1;
    if (f && fseek(f, 0, SEEK_END) == 0 && (size = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
        (text = malloc((size_t)size + 1)) && fread(text, 1, (size_t)size, f) == (size_t)size) {
        text[size] = '\0';
        fclose(f);
        return text;
    }
    if (f)
        fclose(f);
    fprintf(stderr, "cannot read %s\n", path);
    exit(1);
}

/* Compiles tests/libc/<file> (named by its full path, so that its "..."
 * includes are found beside it) with extra options; *out gets the
 * program, with its log on CUDYN_ERROR_COMPILE. */
static inline int libc_compile(cudyn_program **out, const char *file, int device, const char *const *options,
                               int num_options)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/%s", libc_kernel_dir(), file);
    char *source = libc_read(path);
    struct cudyn_compile_args a = {.size = sizeof a, .source = source, .name = path, .device = device,
                                   .options = options, .num_options = num_options};
    int st = cudyn_compile_ex(out, &a);
    free(source);
    return st;
}

#endif
