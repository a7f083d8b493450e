/*
 * The wheel's glibc floor: the C library functions whose symbol version a
 * newer glibc raised, bound at the version glibc 2.17 already had, so that
 * a wheel built on any glibc loads on glibc 2.17 and later (its tag,
 * manylinux_2_17; setup.py tags what packaging/check-wheel.py measures).
 *
 * Only setup.py compiles this file, into the one extension of the wheel;
 * the Autotools build (libcudyn.so.1, the distributions' packages) binds
 * the glibc it is built on, as a distribution wants.  Each function below
 * is defined here with hidden visibility, so that the calls of the library
 * and the module bind to it when the extension is linked (a definition in
 * an object beats the shared C library's), and it calls the old version
 * by an explicit .symver reference.  Nothing is exported: the extension's
 * version script keeps PyInit__cudyn alone.
 *
 * What moved, and what the old version is:
 *  - glibc 2.34 moved dlopen, dlsym, dlerror, dlclose, dladdr and
 *    pthread_once into libc.so.6 at GLIBC_2.34; the old versions stay
 *    there as compatibility symbols, and on an older glibc they are in
 *    libdl.so.2 and libpthread.so.0, which setup.py therefore puts in
 *    NEEDED (the manylinux policy allows both);
 *  - glibc 2.33 first exported stat, fstat and fstatat (GLIBC_2.33);
 *    before, <sys/stat.h> turned them into __xstat, __fxstat and
 *    __fxstatat with the struct's version (_STAT_VER), which every glibc
 *    still exports;
 *  - glibc 2.38, for C23 (which _GNU_SOURCE selects), turns strtol,
 *    strtoul, strtoull and sscanf into __isoc23_* (GLIBC_2.38), which also
 *    read a 0b prefix; cudyn reads decimal numbers only (%d, %s, base 10),
 *    where both versions agree.
 * A function of glibc newer than 2.17 that cudyn starts to call raises
 * the measured tag, and CI's check (.ci/wheel.sh: check-wheel.py
 * --require manylinux_2_17) fails until it is added here.
 *
 * Each version below is the architecture's first (x86-64: GLIBC_2.2.5,
 * and GLIBC_2.4 for __fxstatat, GLIBC_2.7 for __isoc99_vsscanf; AArch64:
 * GLIBC_2.17 for all, the port's first).  On another architecture, or
 * another C library, nothing here is compiled, and the tag says what the
 * extension needs.
 */
#include <config.h>

#include <features.h>

#if defined(__GLIBC__) && ((defined(__x86_64__) && !defined(__ILP32__)) || defined(__aarch64__))

#include <dlfcn.h>
#include <pthread.h>
#include <stdarg.h>
#include <sys/stat.h>

#if defined(__x86_64__)
# define GLIBC_FIRST "GLIBC_2.2.5"
# define GLIBC_FXSTATAT "GLIBC_2.4"
# define GLIBC_ISOC99 "GLIBC_2.7"
/* _STAT_VER_LINUX of glibc's sysdeps/unix/sysv/linux/x86/bits/stat.h */
# define STAT_VER 1
#else
# define GLIBC_FIRST "GLIBC_2.17"
# define GLIBC_FXSTATAT "GLIBC_2.17"
# define GLIBC_ISOC99 "GLIBC_2.17"
/* _STAT_VER of the generic bits/stat.h, which AArch64 uses */
# define STAT_VER 0
#endif

#define OWN __attribute__((visibility("hidden")))
/* old_NAME is NAME at VERSION */
#define BIND_OLD(name, version) __asm__(".symver old_" #name "," #name "@" version)

#if __GLIBC_PREREQ(2, 34)
extern void *old_dlopen(const char *file, int mode);
extern void *old_dlsym(void *handle, const char *name);
extern char *old_dlerror(void);
extern int old_dlclose(void *handle);
extern int old_dladdr(const void *address, Dl_info *info);
extern int old_pthread_once(pthread_once_t *once, void (*init)(void));
BIND_OLD(dlopen, GLIBC_FIRST);
BIND_OLD(dlsym, GLIBC_FIRST);
BIND_OLD(dlerror, GLIBC_FIRST);
BIND_OLD(dlclose, GLIBC_FIRST);
BIND_OLD(dladdr, GLIBC_FIRST);
BIND_OLD(pthread_once, GLIBC_FIRST);

OWN void *dlopen(const char *file, int mode) { return old_dlopen(file, mode); }
OWN void *dlsym(void *restrict handle, const char *restrict name) { return old_dlsym(handle, name); }
OWN char *dlerror(void) { return old_dlerror(); }
OWN int dlclose(void *handle) { return old_dlclose(handle); }
OWN int dladdr(const void *address, Dl_info *info) { return old_dladdr(address, info); }
OWN int pthread_once(pthread_once_t *once, void (*init)(void)) { return old_pthread_once(once, init); }
#endif

#if __GLIBC_PREREQ(2, 33)
extern int old___xstat(int version, const char *path, struct stat *buf);
extern int old___fxstat(int version, int fd, struct stat *buf);
extern int old___fxstatat(int version, int dirfd, const char *path, struct stat *buf, int flags);
BIND_OLD(__xstat, GLIBC_FIRST);
BIND_OLD(__fxstat, GLIBC_FIRST);
BIND_OLD(__fxstatat, GLIBC_FXSTATAT);

OWN int stat(const char *restrict path, struct stat *restrict buf) { return old___xstat(STAT_VER, path, buf); }
OWN int fstat(int fd, struct stat *buf) { return old___fxstat(STAT_VER, fd, buf); }
OWN int fstatat(int dirfd, const char *restrict path, struct stat *restrict buf, int flags)
{
    return old___fxstatat(STAT_VER, dirfd, path, buf, flags);
}
#endif

#if __GLIBC_PREREQ(2, 38)
extern long old_strtol(const char *text, char **end, int base);
extern unsigned long old_strtoul(const char *text, char **end, int base);
extern unsigned long long old_strtoull(const char *text, char **end, int base);
extern int old___isoc99_vsscanf(const char *text, const char *format, va_list args);
BIND_OLD(strtol, GLIBC_FIRST);
BIND_OLD(strtoul, GLIBC_FIRST);
BIND_OLD(strtoull, GLIBC_FIRST);
BIND_OLD(__isoc99_vsscanf, GLIBC_ISOC99);

/* the names <stdlib.h> and <stdio.h> give these under C23 */
OWN long __isoc23_strtol(const char *text, char **end, int base);
OWN unsigned long __isoc23_strtoul(const char *text, char **end, int base);
OWN unsigned long long __isoc23_strtoull(const char *text, char **end, int base);
OWN int __isoc23_sscanf(const char *text, const char *format, ...);

OWN long __isoc23_strtol(const char *text, char **end, int base) { return old_strtol(text, end, base); }
OWN unsigned long __isoc23_strtoul(const char *text, char **end, int base) { return old_strtoul(text, end, base); }
OWN unsigned long long __isoc23_strtoull(const char *text, char **end, int base)
{
    return old_strtoull(text, end, base);
}
OWN int __isoc23_sscanf(const char *text, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    int n = old___isoc99_vsscanf(text, format, args);
    va_end(args);
    return n;
}
#endif

#endif
