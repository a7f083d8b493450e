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

#endif
