/*
 * target.h - which architecture NVRTC should build for: a pure function of
 * the device's compute capability, NVRTC's supported architectures and the
 * two versions, so a table of cases can test it (tests/test_target.c).
 */
#ifndef CUDYN_TARGET_H
#define CUDYN_TARGET_H

#include <stdbool.h>
#include <stddef.h>

struct cudyn__target {
    int arch;        /* 90 for sm_90 / compute_90 */
    bool cubin;      /* true: sm_<arch> CUBIN; false: compute_<arch> PTX */
    char name[32];   /* "sm_90", "compute_80" (a forced name is kept as given) */
    char why[256];   /* the reason, for logs and errors */
};

/*
 * cc:             device compute capability as major*10+minor (90)
 * supported:      NVRTC's architectures, any order (nvrtcGetSupportedArchs)
 * nvrtc_version:  major*1000+minor*10; driver_version: likewise
 * forced:         the value of a --gpu-architecture / -arch option, or NULL
 * Returns 0 and fills *out, or -1 with out->why naming cc and the list when
 * NVRTC cannot build anything this device runs.
 */
int cudyn__choose_target(int cc, const int *supported, size_t n_supported, int nvrtc_version, int driver_version,
                        const char *forced, struct cudyn__target *out);

/* One entry of a multi-architecture image (image.c): CUBIN sm_<arch> or
 * PTX compute_<arch>. */
struct cudyn__image_choice {
    int arch;
    bool cubin;
};

/*
 * Which entry of a multi-architecture image a device of `cc` loads:
 *  1. CUBIN sm_cc;
 *  2. else the highest CUBIN below cc of cc's major (SASS runs on later
 *     minors of its major);
 *  3. else the highest PTX at or below cc, which the driver JITs: only when
 *     the driver is at least as new as the NVRTC that made it (built_by;
 *     0 = unknown, allowed).
 * Returns the index, or -1 with `why` naming cc and the entries.
 */
int cudyn__choose_image_entry(int cc, const struct cudyn__image_choice *entries, size_t n, int built_by,
                              int driver_version, char *why, size_t cap);

#endif
