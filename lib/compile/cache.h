/*
 * cache.h - the persistent kernel cache: compiled programs keyed by the
 * caller's inputs and the device's compute capability (compile.c computes
 * the key), one file per entry.
 *
 * Where: CUDYN_CACHE_DIR, else $XDG_CACHE_HOME/cudyn, else ~/.cache/cudyn;
 * CUDYN_CACHE=0 turns it off.  The directory is created 0700, opened once
 * (O_DIRECTORY | O_NOFOLLOW) and used only through that descriptor; it and
 * each entry must be owned by the user and writable by nobody else, each
 * entry a regular file reached without links (a cached CUBIN is code).
 * Entries are written to a temporary file and renamed; a damaged entry is
 * removed and rebuilt, never used.  CUDYN_CACHE_MAX_BYTES bounds the total
 * (least recently used entries go first).  Failing to read or write the
 * cache never fails a compilation.  SECURITY.md has the whole story.
 */
#ifndef CUDYN_CACHE_H
#define CUDYN_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "compile/includes.h"
#include "compile/names.h"
#include "compile/sha256.h"

/* No kernel is this large: bigger files are damage, not entries. */
#define CUDYN_CACHE_MAX_ENTRY_BYTES ((size_t)64 << 20)
#define CUDYN_CACHE_DEFAULT_MAX_BYTES ((uint64_t)256 << 20)

/* What a cache entry holds: a compiled program. */
struct cudyn__cache_entry {
    char target[32];   /* "sm_90" or "compute_90" */
    int arch;          /* 90 */
    bool cubin;
    int nvrtc_version; /* the NVRTC that built it: 13000 */
    unsigned char *image; /* CUBIN, or NUL-terminated PTX; never empty */
    size_t image_size;
    unsigned char *ptx; /* NUL-terminated PTX: the image itself for PTX
                           targets; for CUBIN targets only right after NVRTC
                           (never stored: only its interface is) */
    size_t ptx_size;
    char *log;
    char *interface; /* the kernels' PTX parameter lists (ptx_interface.c), or NULL */
    struct cudyn__names names; /* name expression -> lowered name */
    struct cudyn__deps deps;   /* files the compile read besides its source */
};

void cudyn__cache_entry_free(struct cudyn__cache_entry *e);
/* dst receives a deep copy of src; 0, or -1 when out of memory (dst empty). */
int cudyn__cache_entry_copy(struct cudyn__cache_entry *dst, const struct cudyn__cache_entry *src);

/* ---- the file format (cache_entry.c) ---- */
#define CUDYN_CACHE_HEADER_BYTES 56

/* Serialises an entry for `key`; returns a malloc'd buffer, or NULL. */
unsigned char *cudyn__cache_serialise(const unsigned char key[CUDYN_SHA256_BYTES], const struct cudyn__cache_entry *e,
                                     size_t *size);
/* Checks the fixed header (the first CUDYN_CACHE_HEADER_BYTES): magic,
 * format version, key and a total size within bounds, before anything
 * else is read.  0 and *total, or -1. */
int cudyn__cache_header(const unsigned char *buf, size_t size, const unsigned char key[CUDYN_SHA256_BYTES],
                       size_t *total);
/* Parses and verifies a whole entry (header, lengths, checksum, sections).
 * Returns 0 and fills *e; CACHE_PARSE_DAMAGED for anything wrong with the
 * entry, CACHE_PARSE_NO_MEMORY when out of memory (the entry may be good);
 * never reads outside buf.  The fuzz target calls this directly. */
enum { CACHE_PARSE_DAMAGED = -1, CACHE_PARSE_NO_MEMORY = -2 };
int cudyn__cache_parse(const unsigned char *buf, size_t size, const unsigned char key[CUDYN_SHA256_BYTES],
                      struct cudyn__cache_entry *e);

/* ---- the directory (cache.c) ---- */
/* Looks the key up; 0 on a hit (entry filled, its time refreshed for the
 * LRU order), -1 on a miss.  Only a damaged entry is removed. */
int cudyn__cache_load(const unsigned char key[CUDYN_SHA256_BYTES], struct cudyn__cache_entry *e);
/* Stores an entry (then evicts over the limit); failures are only reported
 * under CUDYN_DEBUG. */
void cudyn__cache_store(const unsigned char key[CUDYN_SHA256_BYTES], const struct cudyn__cache_entry *e);
/* Removes an entry (the driver rejected its image). */
void cudyn__cache_remove(const unsigned char key[CUDYN_SHA256_BYTES]);

#endif
