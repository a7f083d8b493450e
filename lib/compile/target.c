/*
 * target.c - the compute-capability-aware target decision (see target.h):
 *  1. cc in NVRTC's list: CUBIN sm_cc (no JIT at load).
 *  2. else the highest listed arch A below cc: CUBIN sm_A when A has cc's
 *     major (SASS runs on later minors of a major), else PTX compute_A,
 *     which the driver JITs, so the driver must be at least as new as NVRTC.
 *  3. nothing listed at or below cc: an error naming cc and the list.
 *  A forced target (an option) wins and is used as given.
 * And which entry of a multi-architecture image a device loads, by the
 * same rules (cudyn__choose_image_entry).
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "compile/target.h"

static void list_archs(char *out, size_t cap, const int *supported, size_t n)
{
    size_t len = 0;
    out[0] = '\0';
    for (size_t i = 0; i < n && len + 1 < cap; i++) {
        int w = snprintf(out + len, cap - len, "%s%d", i ? " " : "", supported[i]);
        if (w < 0)
            break;
        len += (size_t)w;
    }
}

int cudyn__choose_target(int cc, const int *supported, size_t n_supported, int nvrtc_version, int driver_version,
                        const char *forced, struct cudyn__target *out)
{
    memset(out, 0, sizeof *out);
    if (forced && forced[0]) {
        snprintf(out->name, sizeof out->name, "%s", forced);
        out->cubin = strncmp(forced, "sm_", 3) == 0;
        sscanf(forced + (out->cubin ? 3 : strncmp(forced, "compute_", 8) == 0 ? 8 : 0), "%d", &out->arch);
        snprintf(out->why, sizeof out->why, "target %s forced by the options", forced);
        return 0;
    }

    int best_below = 0;
    for (size_t i = 0; i < n_supported; i++) {
        if (supported[i] == cc) {
            out->arch = cc;
            out->cubin = true;
            snprintf(out->name, sizeof out->name, "sm_%d", cc);
            snprintf(out->why, sizeof out->why, "NVRTC supports sm_%d: CUBIN, no JIT at load", cc);
            return 0;
        }
        if (supported[i] < cc && supported[i] > best_below)
            best_below = supported[i];
    }

    char list[160];
    list_archs(list, sizeof list, supported, n_supported);
    if (!best_below) {
        snprintf(out->why, sizeof out->why,
                 "compute capability %d.%d is older than every architecture NVRTC %d.%d supports (%s); use an "
                 "older NVRTC",
                 cc / 10, cc % 10, nvrtc_version / 1000, nvrtc_version % 1000 / 10, list);
        return -1;
    }
    out->arch = best_below;
    if (best_below / 10 == cc / 10) {
        out->cubin = true;
        snprintf(out->name, sizeof out->name, "sm_%d", best_below);
        snprintf(out->why, sizeof out->why, "NVRTC lacks sm_%d; sm_%d CUBIN runs on later GPUs of the same major",
                 cc, best_below);
        return 0;
    }
    if (driver_version < nvrtc_version) {
        snprintf(out->why, sizeof out->why,
                 "compute capability %d.%d needs PTX (NVRTC %d.%d supports %s), but the driver (CUDA %d.%d) is "
                 "older than NVRTC and cannot JIT its PTX; update the driver or use a newer NVRTC",
                 cc / 10, cc % 10, nvrtc_version / 1000, nvrtc_version % 1000 / 10, list, driver_version / 1000,
                 driver_version % 1000 / 10);
        return -1;
    }
    out->cubin = false;
    snprintf(out->name, sizeof out->name, "compute_%d", best_below);
    snprintf(out->why, sizeof out->why, "NVRTC lacks sm_%d and its major; compute_%d PTX is JIT-compiled at load",
             cc, best_below);
    return 0;
}

static int best_entry(int cc, const struct cudyn__image_choice *e, size_t n, bool cubin, bool same_major)
{
    int best = -1;
    for (size_t i = 0; i < n; i++) {
        if (e[i].cubin != cubin || e[i].arch > cc || (same_major && e[i].arch / 10 != cc / 10))
            continue;
        if (best < 0 || e[i].arch > e[best].arch)
            best = (int)i;
    }
    return best;
}

int cudyn__choose_image_entry(int cc, const struct cudyn__image_choice *entries, size_t n, int built_by,
                              int driver_version, char *why, size_t cap)
{
    /* rules 1 and 2: the best CUBIN of cc's major at or below cc */
    int best = best_entry(cc, entries, n, true, true);
    if (best >= 0)
        return best;
    best = best_entry(cc, entries, n, false, false);
    if (best >= 0 && (built_by == 0 || driver_version >= built_by))
        return best;
    char list[256] = "";
    for (size_t i = 0; i < n; i++)
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s_%d", i ? " " : "",
                 entries[i].cubin ? "sm" : "compute", entries[i].arch);
    if (best >= 0)
        snprintf(why, cap,
                 "compute capability %d.%d needs the image's compute_%d PTX, but the driver (CUDA %d.%d) is older "
                 "than the NVRTC that made it (%d.%d) and cannot JIT it (image has %s)",
                 cc / 10, cc % 10, entries[best].arch, driver_version / 1000, driver_version % 1000 / 10,
                 built_by / 1000, built_by % 1000 / 10, list);
    else
        snprintf(why, cap, "the image has no code for compute capability %d.%d (it has %s)", cc / 10, cc % 10, list);
    return -1;
}
