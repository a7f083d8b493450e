/*
 * libc_headers.h - the C library headers NVRTC does not have, which cudyn
 * gives it in memory, so a kernel written for nvcc that includes <stdio.h>
 * for printf compiles.
 *
 * Only a header whose whole device-side content NVRTC already builds in is
 * listed, so that the empty text means in device code exactly what the
 * real header means there: <stdio.h> and <cstdio>, whose one device
 * function is printf.  <assert.h> is not (an empty one would ignore a
 * #define NDEBUG before it, which the real one obeys), nor <math.h> or
 * <stdlib.h> (their macros, INFINITY or EXIT_SUCCESS, would be missing):
 * including those stays NVRTC's own clear error.
 *
 * A header the caller gives in memory under the same name wins.  The
 * texts are part of every compile's cache key, so changing one recompiles
 * what was built with the old text.
 */
#ifndef CUDYN_LIBC_HEADERS_H
#define CUDYN_LIBC_HEADERS_H

struct cudyn__libc_header {
    const char *name; /* as #include names it */
    const char *text;
};

/* The table, terminated by a NULL name. */
extern const struct cudyn__libc_header cudyn__libc_headers[];

/* The text cudyn supplies for #include <name>, or NULL when it supplies none. */
const char *cudyn__libc_header(const char *name);

/*
 * The in-memory headers NVRTC gets: the caller's n (names, texts), then
 * each of cudyn's that the caller did not name.  *out_names and *out_texts
 * are new arrays of borrowed pointers (free both); *out_n their length.
 * Returns 0, or -1 when out of memory (nothing allocated).
 */
int cudyn__headers_with_libc(const char *const *names, const char *const *texts, int n, const char ***out_names,
                             const char ***out_texts, int *out_n);

#endif
