/*
 * cache.h - the persistent kernel cache: compiled programs keyed by every
 * input of the compilation, stored one file per entry.
 *
 * Where: CUDYN_CACHE_DIR, else $XDG_CACHE_HOME/cudyn, else ~/.cache/cudyn;
 * CUDYN_CACHE=0 turns it off.  The directory is created 0700; a directory
 * or entry not owned by the user, or writable by others, is not trusted (a
 * cached CUBIN is code).  Entries are written to a temporary file and
 * renamed; a damaged entry is removed and rebuilt, never used.  Failing to
 * read or write the cache never fails a compilation.
 */
#ifndef CUDYN_CACHE_H
#define CUDYN_CACHE_H

#include <stdbool.h>
#include <stddef.h>

#include "names.h"
#include "sha256.h"

/* What a cache entry holds: a compiled program. */
struct cudyn__cache_entry {
    char target[32];
    int arch;
    bool cubin;
    unsigned char *image; /* CUBIN or PTX */
    size_t image_size;
    unsigned char *ptx;   /* NUL-terminated PTX or NULL */
    size_t ptx_size;
    char *log;
    struct cudyn__names names; /* name expression -> lowered name */
};

void cudyn__cache_entry_free(struct cudyn__cache_entry *e);

/* Serialises an entry for `key`; returns a malloc'd buffer, or NULL. */
unsigned char *cudyn__cache_serialise(const unsigned char key[CUDYN_SHA256_BYTES], const struct cudyn__cache_entry *e,
                                     size_t *size);
/* Parses and verifies a file's bytes (magic, version, lengths, checksum,
 * key).  Returns 0 and fills *e, or -1 for anything wrong; never reads
 * outside buf.  The fuzz target calls this directly. */
int cudyn__cache_parse(const unsigned char *buf, size_t size, const unsigned char key[CUDYN_SHA256_BYTES],
                      struct cudyn__cache_entry *e);

/* The directory in use, or NULL when caching is off or not trusted. */
const char *cudyn__cache_dir(void);
/* Looks the key up; 0 on a hit (entry filled), -1 on a miss.  A damaged or
 * mismatching entry is removed. */
int cudyn__cache_load(const unsigned char key[CUDYN_SHA256_BYTES], struct cudyn__cache_entry *e);
/* Stores an entry; failures are only reported under CUDYN_DEBUG. */
void cudyn__cache_store(const unsigned char key[CUDYN_SHA256_BYTES], const struct cudyn__cache_entry *e);
/* Removes an entry (the driver rejected its image). */
void cudyn__cache_remove(const unsigned char key[CUDYN_SHA256_BYTES]);

#endif
