/*
 * image.h - cudyn's multi-architecture image: one kernel built for several
 * architectures in one file, which cudyn_module_load_image recognises and
 * picks from (target.c's cudyn__choose_image_entry).  The format, also in
 * cudyn.h and cudyn-cc(1); all integers little-endian:
 *
 *   offset    bytes
 *    0         8     magic "CUDYNIMG"
 *    8         4     format version (1)
 *   12         4     number of entries n (1 to 64)
 *   16         8     total size of the image in bytes, checksum included
 *   24         4     version of the NVRTC that built the entries (13000;
 *                    0 = unknown), for the PTX rule
 *   28         4     reserved, 0
 *   32       24n     entries: u32 arch (90), u32 kind (1 CUBIN, 2 PTX),
 *                    u64 offset, u64 size of its bytes
 *   ...              the entries' bytes (PTX ends with its NUL), each at a
 *                    multiple of 64
 *   total-32  32     SHA-256 of every byte before it
 */
#ifndef CUDYN_IMAGE_H
#define CUDYN_IMAGE_H

#include <stdbool.h>
#include <stddef.h>

#define CUDYN_IMAGE_MAGIC "CUDYNIMG"
#define CUDYN_IMAGE_HEADER_BYTES 32
#define CUDYN_IMAGE_MAX_ENTRIES 64
#define CUDYN_IMAGE_MAX_BYTES ((size_t)1 << 30)

struct cudyn__image_part {
    int arch;   /* 90 */
    bool cubin; /* true: SASS for sm_<arch>; false: PTX for compute_<arch> */
    const unsigned char *data;
    size_t size;
};

/* Whether parts fit the format (count, sizes, PTX with its NUL): 0, or -1
 * with the reason in why (cap bytes; why may be NULL when cap is 0). */
int cudyn__image_check(const struct cudyn__image_part *parts, size_t n, char *why, size_t cap);
/* Packs parts into a malloc'd image; 0, -1 when out of memory, -2 when the
 * parts do not fit the format (cudyn__image_check). */
int cudyn__image_pack(const struct cudyn__image_part *parts, size_t n, int built_by, unsigned char **out,
                      size_t *size);
/* "sm_90" / "compute_90" (digits only: no arch-specific suffix); 0 or -1. */
int cudyn__image_parse_arch(const char *name, int *arch, bool *cubin);

/* What an image given to cudyn_module_load_image is. */
enum cudyn__image_kind { CUDYN__IMAGE_PTX, CUDYN__IMAGE_OURS, CUDYN__IMAGE_ELF, CUDYN__IMAGE_FATBIN };

struct cudyn__image_view {
    enum cudyn__image_kind kind;
    size_t bytes; /* the ELF's or container's extent, or 0 where unknown */
    struct cudyn__image_part parts[CUDYN_IMAGE_MAX_ENTRIES]; /* a container's entries */
    size_t n;
    int built_by;
};

/* Everything checked before the driver sees an image, reading nothing
 * past it.  sized: the image is `bytes` long, and its kind, the length, a
 * container's header, every entry's bounds and its checksum, a CUBIN's
 * tables and sections, a fatbinary's header or PTX's NUL are checked
 * against that, in that order; not sized: an image the program embeds,
 * read up to its NUL (PTX) or as far as its own header says.  0, or -1
 * with the reason in why (cap bytes). */
int cudyn__image_inspect(const unsigned char *image, size_t bytes, bool sized, struct cudyn__image_view *v,
                         char *why, size_t cap);

/* image.c: */
/* For cudyn_module_load_image(_sized): when image is cudyn's
 * multi-architecture container, *code is the entry for the current device
 * (else the image itself); *interface receives the kernels' PTX interface
 * when the image has PTX (malloc'd, or NULL); *cubin and *cubin_bytes the
 * CUBIN loaded, when it is one (for its parameter records), else NULL. */
int cudyn__image_select(const char *api, const void *image, size_t bytes, bool sized, const void **code,
                        char **interface, const unsigned char **cubin, size_t *cubin_bytes);


#endif
