/*
 * libc_headers.h - the C and C++ library headers NVRTC does not have,
 * which cudyn gives it in memory, so that kernels written for nvcc that
 * include them compile: <math.h>/<cmath>, <stdint.h>/<cstdint>,
 * <limits.h>/<climits>, <float.h>/<cfloat>, <stddef.h>/<cstddef>,
 * <stdbool.h>, <stdlib.h>/<cstdlib>, <string.h>/<cstring>,
 * <assert.h>/<cassert>, <sys/types.h> and <stdio.h>/<cstdio>.  Each means
 * in device code what the real one means there, macros included
 * (libc_headers.c has the texts and what they rest on).
 *
 * Only what a kernel includes is seen: a plain compile predefines nothing
 * beyond NVRTC's own names.  The names nvcc gives device code with no
 * #include at all (uint, M_PI, INT_MAX, malloc, std::sqrt ...) come from
 * one more header, CUDYN_NVCC_NAMES_HEADER ("cudyn/nvcc.h"), which a
 * compile that wants nvcc's behaviour pre-includes (cudyn.h's
 * CUDYN_OPTION_NVCC_NAMES).
 *
 * A header the caller gives in memory under the same name wins, and so
 * does a file of that name in one of the caller's -I / --include-path
 * directories.  The texts are part of every compile's cache key, so
 * changing one recompiles what was built with the old text.
 */
#ifndef CUDYN_LIBC_HEADERS_H
#define CUDYN_LIBC_HEADERS_H

#include <stdbool.h>

#include "cudyn.h"

struct cudyn__libc_header {
    const char *name; /* as #include names it */
    const char *text;
};

/* The table, terminated by a NULL name; at most CUDYN_LIBC_HEADERS_MAX
 * entries (libc_headers.c checks). */
#define CUDYN_LIBC_HEADERS_MAX 32
extern const struct cudyn__libc_header cudyn__libc_headers[];

/* The table's row for #include <name>, or NULL when cudyn supplies none. */
const struct cudyn__libc_header *cudyn__libc_header(const char *name);

/* For a name nvcc gives device code with no #include (uint, M_PI,
 * INT_MAX ...): the header of cudyn's that defines it (the C header:
 * "sys/types.h", "math.h" ...), found from CUDYN_NVCC_NAMES_HEADER down;
 * NULL for any other name.  What a failed compile's message names. */
const char *cudyn__nvcc_name_header(const char *name);

/* Whether a file `name` exists in one of the -I / --include-path
 * directories of the options (complete: checked by the caller), wherever
 * it stands among them: then the caller's file wins over cudyn's text.
 * The one rule for both what NVRTC is given (cudyn__headers_with_libc)
 * and what the include scan records (includes.c). */
bool cudyn__header_on_path(const char *const *options, int num_options, const char *name);

/*
 * The in-memory headers NVRTC gets: the caller's n (names, texts), then
 * each of cudyn's that the caller neither named nor has on the include
 * path of `options`.  *out_names and *out_texts are new arrays of borrowed
 * pointers (free both); *out_n their length.  Returns 0, or -1 when out of
 * memory (nothing allocated).
 */
int cudyn__headers_with_libc(const char *const *names, const char *const *texts, int n, const char *const *options,
                             int num_options, const char ***out_names, const char ***out_texts, int *out_n);

#endif
