/*
 * includes.h - the files a compile reads besides its source, found by
 * cudyn itself: NVRTC cannot report them (it has no -MD).
 *
 * The source and the in-memory headers are read for #include lines, all of
 * them whatever #if surrounds them (over-approximating is safe), and each
 * is resolved as NVRTC resolves it:
 *  1. an in-memory header of exactly that name: the caller's, else, for a
 *     C library header cudyn supplies (libc_headers.h) that no -I
 *     directory of the caller has (cudyn__header_on_path, the rule that
 *     decides what NVRTC is given), cudyn's own text, read in turn for
 *     what it includes, each -I candidate recorded as missing; where one
 *     has it, the caller's file wins and is searched for as below;
 *  2. for "..." includes, the including file's directory (for the source,
 *     the directory of the program's name: the working directory for
 *     "kernel.cu"), unless --no-source-include;
 *  3. the -I / --include-path directories, in order;
 *  4. the toolkit's include directories cudyn found (loader/toolkit.c).
 * Each file found is recorded (path, identity, SHA-256 of its contents) and
 * read for its own includes; each earlier candidate that did not exist is
 * recorded too, because a file appearing there would be used instead.
 * A toolkit include directory (cudyn's, or one the caller names with -I)
 * is the exception: a file found there is not tracked, nor read (the
 * toolkit's headers are many, and use __has_include); the compile depends
 * on the toolkit instead (deps->uses_toolkit), and so does one with an
 * include found nowhere (NVRTC's own header, which a toolkit could
 * shadow).  compile.c then keys the entry on the toolkit's identities
 * too, so that a hit needs the same toolkit; a compile that includes no
 * toolkit header does not depend on which toolkit there is, and its
 * entry serves on a machine with another one, or none.
 */
#ifndef CUDYN_INCLUDES_H
#define CUDYN_INCLUDES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "compile/sha256.h"

#define CUDYN_MAX_DEPS 4096
#define CUDYN_MAX_HEADER_BYTES ((size_t)64 << 20)

struct cudyn__dep {
    char *path;     /* as NVRTC opens it: a relative path is relative to the
                       working directory, and is looked up again on each check */
    bool present;   /* false: a candidate that did not exist */
    uint64_t dev, ino, size;
    int64_t mtime_ns, ctime_ns;
    unsigned char sha256[CUDYN_SHA256_BYTES];
};

struct cudyn__deps {
    size_t n, cap;
    struct cudyn__dep *v;
    char uncacheable[256]; /* why the includes cannot be known; "" when they can */
    bool uses_toolkit; /* an include was found in a toolkit include directory, or nowhere
                          (the scan's answer; not stored: the entry's key says it) */
};

/* Where a compile's includes are looked for. */
struct cudyn__include_env {
    const char *name; /* the program's name ("kernel.cu") */
    const char *const *header_names, *const *header_sources;
    int num_headers;
    const char *const *options; /* -I, -include and --no-source-include come from these */
    int num_options;
    const char *const *toolkit_dirs; /* cudyn's toolkit include directories (their cccl too) */
    int num_toolkit_dirs;
};

/*
 * Records what compiling `source` in `env` reads (see above), and whether
 * that depends on the toolkit (out->uses_toolkit).  Returns 0, or -1 when
 * out of memory.  out->uncacheable says when the list cannot be known: a
 * computed #include (#include MACRO), __has_include, an included path
 * that is not a regular file, more than CUDYN_MAX_DEPS files or one over
 * CUDYN_MAX_HEADER_BYTES.
 */
int cudyn__deps_scan(const char *source, const struct cudyn__include_env *env, struct cudyn__deps *out);

/*
 * Checks recorded dependencies against the file system: a file whose
 * identity (device, inode, size, modification and change times) is
 * unchanged is current; one whose identity changed is read again and
 * compared by SHA-256 (the identity is then updated and *refreshed set).
 * Returns 0 when all are current, 1 when any content changed, a file
 * vanished or a missing candidate appeared.
 */
int cudyn__deps_check(struct cudyn__deps *deps, bool *refreshed);

/* Appends a copy of dep (its path copied); 0, or -1 when out of memory. */
int cudyn__deps_add(struct cudyn__deps *deps, const struct cudyn__dep *dep);
/* dst (empty) receives a copy of src; 0, or -1 (dst left empty). */
int cudyn__deps_copy(struct cudyn__deps *dst, const struct cudyn__deps *src);
void cudyn__deps_free(struct cudyn__deps *deps);

/*
 * The lexer the scan uses, for its unit test: calls fn(ctx, quoted, name,
 * length) for each #include / #include_next / #import in text.  Returns 1
 * when text has a computed include or __has_include (what it reads cannot
 * be known without preprocessing), -1 when fn returned non-zero, else 0.
 */
typedef int (*cudyn__include_fn)(void *ctx, bool quoted, const char *name, size_t length);
int cudyn__includes_list(const char *text, size_t n, cudyn__include_fn fn, void *ctx);

#endif
