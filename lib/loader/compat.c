/*
 * compat.c - CUDA forward-compatibility libraries (.../compat/libcuda.so.1):
 * whether the libcuda the search found is one, whether it can work with
 * the kernel module, and the system driver to fall back to.
 *
 * NVIDIA advises against two libcuda copies working in one process, so the
 * choice is made before anything is bound or initialised:
 *   1. the kernel module's version is read from /proc/driver/nvidia/version
 *      (else /sys/module/nvidia/version); a library's release is the
 *      version in the name of the file it resolves to (libcuda.so.R);
 *   2. a libcuda is forward-compat when its directory is named `compat` or
 *      its release differs from the kernel module's;
 *   3. one not newer than the kernel module cannot work and is never used;
 *   4. one that is newer may still be refused by the GPU (803/804), which
 *      only cuInit can tell: cuInit runs in a forked child that exits at
 *      once, so this process never initialises a copy it will not use.
 * Nothing here runs for a driver that is not forward-compat, nor for a copy
 * another library had already loaded (that one is used as it is).
 */
#include "config.h"

#include <ctype.h>
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "loader/loader.h"

/* Where the kernel module says its version, in the order read. */
static const char *const kmod_files[] = {"/proc/driver/nvidia/version", "/sys/module/nvidia/version"};

/* Copies the first "N.N[.N]" of text into out. */
static bool first_release(const char *text, char *out, size_t cap)
{
    for (const char *p = text; *p; p++) {
        if (!isdigit((unsigned char)*p) || (p > text && (isalnum((unsigned char)p[-1]) || p[-1] == '.')))
            continue;
        size_t n = strspn(p, "0123456789.");
        while (n && p[n - 1] == '.')
            n--;
        if (memchr(p, '.', n) && n < cap) {
            memcpy(out, p, n);
            out[n] = '\0';
            return true;
        }
        p += n ? n - 1 : 0;
    }
    return false;
}

void cudyn__read_kernel_module_version(struct cudyn__compat *c)
{
    /* Test-only: the test suite fakes the kernel module with this file.
     * secure_getenv keeps it out of reach of setuid programs. */
    const char *test_file = cudyn__getenv("CUDYN_TEST_KMOD_VERSION_FILE");
    const char *files[N_ELEMS(kmod_files) + 1];
    size_t n = 0;
    if (test_file && test_file[0])
        files[n++] = test_file;
    else
        for (size_t i = 0; i < N_ELEMS(kmod_files); i++)
            files[n++] = kmod_files[i];
    for (size_t i = 0; i < n; i++) {
        FILE *f = cudyn__fopen_regular(files[i]);
        if (!f)
            continue;
        char text[512];
        size_t got = fread(text, 1, sizeof text - 1, f);
        fclose(f);
        text[got] = '\0';
        /* "NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.54.14  Thu ..." or "550.54.14" */
        const char *at = strstr(text, "Kernel Module");
        if (first_release(at ? at : text, c->kmod_version, sizeof c->kmod_version)) {
            cudyn__copy_string(c->kmod_file, sizeof c->kmod_file, files[i]);
            return;
        }
    }
    c->kmod_version[0] = c->kmod_file[0] = '\0';
}

bool cudyn__library_release(const char *path, char *release, size_t cap, char *real, size_t real_cap)
{
    char resolved[PATH_MAX];
    if (!realpath(path, resolved))
        cudyn__copy_string(resolved, sizeof resolved, path);
    cudyn__copy_string(real, real_cap, resolved);
    const char *base = strrchr(resolved, '/');
    base = base ? base + 1 : resolved;
    release[0] = '\0';
    static const char prefix[] = "libcuda.so.";
    if (strncmp(base, prefix, sizeof prefix - 1) != 0)
        return false;
    const char *v = base + sizeof prefix - 1;
    /* libcuda.so.1 is the soname, not a release; NVIDIA's driver branches
     * have three digits, so libcuda.so.1.0.0 (a libtool-built double) has
     * no release either */
    if (!strchr(v, '.') || strspn(v, "0123456789.") != strlen(v) || strlen(v) >= cap || atoi(v) < 100)
        return false;
    cudyn__copy_string(release, cap, v);
    return true;
}

bool cudyn__in_compat_dir(const char *real_path)
{
    const char *slash = strrchr(real_path, '/');
    if (!slash || slash - real_path < 7)
        return false;
    return strncmp(slash - 7, "/compat", 7) == 0;
}

int cudyn__compare_release(const char *a, const char *b)
{
    while (*a || *b) {
        char *ea, *eb;
        unsigned long x = strtoul(a, &ea, 10), y = strtoul(b, &eb, 10);
        if (x != y)
            return x < y ? -1 : 1;
        a = *ea == '.' ? ea + 1 : ea;
        b = *eb == '.' ? eb + 1 : eb;
        if (ea == a && eb == b && !*a && !*b)
            break;
    }
    return 0;
}

const char *cudyn__compat_policy_name(enum cudyn__compat_policy p)
{
    switch (p) {
    case COMPAT_NEVER: return "never";
    case COMPAT_REQUIRE: return "require";
    default: return "auto";
    }
}

bool cudyn__parse_compat_policy(const char *v, enum cudyn__compat_policy *out)
{
    if (!v || !v[0] || strcmp(v, "auto") == 0)
        *out = COMPAT_AUTO;
    else if (strcmp(v, "never") == 0)
        *out = COMPAT_NEVER;
    else if (strcmp(v, "require") == 0)
        *out = COMPAT_REQUIRE;
    else
        return false;
    return true;
}

enum cudyn__compat_verdict cudyn__compat_decide(const struct cudyn__compat_facts *f, char *why_not, size_t cap)
{
    why_not[0] = '\0';
    if (!f->is_compat)
        return f->policy == COMPAT_REQUIRE ? COMPAT_REFUSE_NOT_COMPAT : COMPAT_USE_FOUND;
    if (f->already_loaded)
        return COMPAT_USE_LOADED;
    if (f->policy == COMPAT_NEVER) {
        snprintf(why_not, cap, "CUDYN_COMPAT=never");
        return COMPAT_CANNOT_WORK;
    }
    if (f->not_newer) {
        snprintf(why_not, cap,
                 "release %s is not newer than the kernel module %s, and a forward-compatibility library only "
                 "works on an older kernel module",
                 f->release, f->kmod);
        return COMPAT_CANNOT_WORK;
    }
    if (f->probe == PROBE_NOT_RUN)
        return COMPAT_PROBE;
    /* 803 and 804: the GPU or the kernel module refuses it; any other
     * answer, or no answer, leaves it to this process's cuInit */
    if (f->probe == PROBE_ANSWERED &&
        (f->probe_result == CU_ERR_SYSTEM_DRIVER_MISMATCH || f->probe_result == CU_ERR_COMPAT_NOT_SUPPORTED)) {
        snprintf(why_not, cap, "its cuInit answered %s (%u) in a child process", f->probe_name, f->probe_result);
        return COMPAT_CANNOT_WORK;
    }
    return COMPAT_USE;
}

int cudyn__probe_init_in_child(void *handle, unsigned int *result)
{
    cudyn__pfn_cuInit init = (cudyn__pfn_cuInit)dlsym(handle, "cuInit");
    if (!init)
        return -1;
    int fds[2];
    if (pipe(fds) != 0)
        return -1;
    pid_t pid = fork();
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        return -1;
    }
    if (pid == 0) {
        /* the child only asks and leaves: no exit handlers, no flush */
        close(fds[0]);
        unsigned int r = (unsigned int)init(0);
        ssize_t w = write(fds[1], &r, sizeof r);
        _exit(w == (ssize_t)sizeof r ? 0 : 1);
    }
    close(fds[1]);
    unsigned int r = 0;
    ssize_t got;
    do
        got = read(fds[0], &r, sizeof r);
    while (got < 0 && errno == EINTR);
    close(fds[0]);
    int wstatus;
    while (waitpid(pid, &wstatus, 0) < 0 && errno == EINTR)
        ;
    if (got != (ssize_t)sizeof r)
        return -1;
    *result = r;
    return 0;
}
