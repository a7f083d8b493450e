/*
 * loader/files.c - every file cudyn opens by a path (the libraries the
 * loaders try: CUDYN_LIBCUDA, CUDYN_LIBNVRTC, CUDYN_LIBNCCL, CUDYN_LIBNVML
 * and what the searches find; the cache's entries; the version files the
 * loader reads) is refused unless it is a regular file, before anything
 * can block on it.  A FIFO named there would block open(), and dlopen(),
 * which opens and reads it, until a writer came: forever, in practice.
 * A bare soname ("libcuda.so.1") is the dynamic loader's own search and
 * goes to dlopen as it is.  Also what the loaders ask of a path: whether it
 * is a directory, and the file a handle was loaded from.
 */
#include "config.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "loader/loader.h"

/* What a path names other than a regular file, or NULL for a regular file
 * (or one stat cannot see: its opener reports that). */
static const char *irregular(mode_t mode)
{
    if (S_ISREG(mode))
        return NULL;
    return S_ISFIFO(mode) ? "a FIFO" : S_ISDIR(mode) ? "a directory" : S_ISSOCK(mode) ? "a socket" : "a device";
}

void *cudyn__dlopen(const char *file, int flags, char *why, size_t cap)
{
    struct stat st;
    const char *kind = strchr(file, '/') && stat(file, &st) == 0 ? irregular(st.st_mode) : NULL;
    if (kind) { /* stat follows links, as dlopen does; it never blocks */
        snprintf(why, cap, "%s is %s, not a regular file: not opened", file, kind);
        return NULL;
    }
    void *h = dlopen(file, flags);
    if (!h) {
        const char *e = (flags & RTLD_NOLOAD) ? "no copy in this process" : dlerror();
        snprintf(why, cap, "%s", e ? e : "cannot be opened");
    }
    return h;
}

int cudyn__open_regular(int dirfd, const char *path, int flags)
{
    /* O_NONBLOCK: a FIFO opens at once (and is refused below) instead of
     * waiting for a writer; for a regular file it changes nothing */
    int fd = openat(dirfd, path, flags | O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    struct stat st;
    if (fd < 0)
        return -1;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode))
        return fd;
    close(fd);
    errno = EINVAL;
    return -1;
}

FILE *cudyn__fopen_regular(const char *path)
{
    int fd = cudyn__open_regular(AT_FDCWD, path, 0);
    FILE *f = fd >= 0 ? fdopen(fd, "r") : NULL;
    if (fd >= 0 && !f)
        close(fd);
    return f;
}

void cudyn__library_path(void *symbol, const char *fallback, char *out, size_t cap)
{
    Dl_info info;
    if (symbol && dladdr(symbol, &info) && info.dli_fname && info.dli_fname[0])
        cudyn__copy_string(out, cap, info.dli_fname);
    else
        cudyn__copy_string(out, cap, fallback);
}

bool cudyn__is_directory(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

bool cudyn__is_regular_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}
