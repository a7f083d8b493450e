/*
 * local_rank.c - the device of this process's rank on its node, from the
 * variables MPI and batch launchers set before the program starts (so it
 * works before MPI_Init, when the CUDA context should already exist).
 *
 * Ordinals are those the process sees: under CUDA_VISIBLE_DEVICES they are
 * already relative to the visible list, so local rank r takes visible
 * device r mod count.  Ranks beyond the device count share devices; the
 * call still succeeds and says so in the thread's error detail.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "api/api.h"

/* The launchers' variables, first found wins:
 * X(local-rank variable, local-size variable or NULL). */
#define LOCAL_RANK_VARIABLES(X)                                           \
    X("OMPI_COMM_WORLD_LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_SIZE") /* Open MPI */ \
    X("SLURM_LOCALID", NULL)                                       /* srun */    \
    X("PMI_LOCAL_RANK", "PMI_LOCAL_SIZE")                          /* MPICH, Hydra */ \
    X("MV2_COMM_WORLD_LOCAL_RANK", "MV2_COMM_WORLD_LOCAL_SIZE")    /* MVAPICH2 */ \
    X("PALS_LOCAL_RANKID", "PALS_LOCAL_SIZE")                      /* HPE PALS (aprun, mpiexec) */

static const struct launcher_variable {
    const char *rank, *size;
} launcher_variables[] = {
#define LOCAL_RANK_ROW_(rank, size) {rank, size},
    LOCAL_RANK_VARIABLES(LOCAL_RANK_ROW_)
#undef LOCAL_RANK_ROW_
};
#define N_LAUNCHER_VARIABLES (sizeof launcher_variables / sizeof launcher_variables[0])

/* A decimal count 0..INT_MAX (no sign, no spaces, no suffix), else -1. */
static int parse_count(const char *text)
{
    if (!text || *text < '0' || *text > '9')
        return -1;
    errno = 0;
    char *end = NULL;
    long v = strtol(text, &end, 10);
    if (errno || *end || v > INT_MAX)
        return -1;
    return (int)v;
}

/* Fills *out (size already checked) without touching the driver's state
 * beyond counting devices; the status of what it found. */
static int describe(const char *api, struct cudyn_local_rank *out)
{
    out->variable = NULL;
    out->local_rank = -1;
    out->local_size = 0;
    out->device_count = 0;
    out->device = -1;
    out->shared = 0;
    const struct launcher_variable *found = NULL;
    const char *text = NULL;
    for (size_t i = 0; i < N_LAUNCHER_VARIABLES && !found; i++)
        if ((text = cudyn__getenv(launcher_variables[i].rank)) != NULL)
            found = &launcher_variables[i];
    if (!found)
        return cudyn__fail(CUDYN_ERROR_NOT_FOUND, CUDYN_ORIGIN_LIBRARY, 0, NULL, api,
                           "start the program with mpirun, mpiexec or srun, or choose the device with "
                           "cudyn_device_use",
                           "%s: no launcher's local-rank variable is set (OMPI_COMM_WORLD_LOCAL_RANK, SLURM_LOCALID, "
                           "PMI_LOCAL_RANK, MV2_COMM_WORLD_LOCAL_RANK, PALS_LOCAL_RANKID)",
                           api);
    out->variable = found->rank;
    int rank = parse_count(text);
    if (rank < 0)
        return cudyn__fail(CUDYN_ERROR_INVALID_ARGUMENT, CUDYN_ORIGIN_LIBRARY, 0, NULL, api,
                           "the launcher sets it to a rank number 0, 1, ...; unset or correct the variable",
                           "%s: %s=\"%.64s\" is not a local rank (a decimal number from 0 to %d)", api, found->rank,
                           text, INT_MAX);
    out->local_rank = rank;
    int size = found->size ? parse_count(cudyn__getenv(found->size)) : -1;
    out->local_size = size > 0 ? size : 0;
    int count = 0;
    int st = cudyn_device_count(&count);
    if (st != CUDYN_OK)
        return st;
    if (count <= 0)
        return cudyn__fail(CUDYN_ERROR_NO_DEVICE, CUDYN_ORIGIN_LIBRARY, 0, NULL, api, NULL,
                           "%s: local rank %d (%s) has no device: none is visible", api, rank, found->rank);
    out->device_count = count;
    out->device = rank % count;
    /* ranks d, d + count, d + 2 count ... take device d; but a launcher
     * that gives each task its own GPU (srun --gpus-per-task=1) leaves
     * every rank one visible device, whose ordinal 0 names a different GPU
     * in each: that is not sharing, and nothing here can tell otherwise */
    out->shared = rank >= count || (out->local_size > 0 && rank < out->local_size - count);
    if (count == 1 && cudyn__getenv("CUDA_VISIBLE_DEVICES"))
        out->shared = 0;
    return CUDYN_OK;
}

CUDYN_API int cudyn_local_rank_info(struct cudyn_local_rank *out)
{
    static const char api[] = "cudyn_local_rank_info";
    if (!out || out->size < sizeof *out)
        return cudyn__fail_arg(api, out ? "out->size" : "out", out ? "must be set to sizeof(struct cudyn_local_rank)"
                                                                   : "must not be NULL");
    return describe(api, out);
}

CUDYN_API int cudyn_device_use_local(int *ordinal_out)
{
    static const char api[] = "cudyn_device_use_local";
    if (ordinal_out)
        *ordinal_out = -1;
    struct cudyn_local_rank l = {.size = sizeof l};
    int st = describe(api, &l);
    if (st == CUDYN_OK)
        st = cudyn_device_use(l.device);
    if (st != CUDYN_OK)
        return st;
    if (ordinal_out)
        *ordinal_out = l.device;
    if (l.shared) /* success with a warning: the detail says who shares */
        cudyn__fail(CUDYN_OK, CUDYN_ORIGIN_LIBRARY, 0, NULL, api,
                    "start one rank per GPU (mpirun -npernode, srun --gpus-per-task=1) unless sharing is meant",
                    "%s: local rank %d (%s) uses device %d of %d, which other local ranks share (%d ranks on this "
                    "node)",
                    api, l.local_rank, l.variable, l.device, l.device_count, l.local_size);
    return CUDYN_OK;
}

/* CUDYN_DEVICE: the device a thread starts on when it chose none. */
int cudyn__first_device(const char *api, int *ordinal)
{
    *ordinal = 0;
    const char *choice = cudyn__getenv("CUDYN_DEVICE");
    if (!choice || !*choice)
        return CUDYN_OK;
    if (strcmp(choice, "local") != 0)
        return cudyn__fail(CUDYN_ERROR_INVALID_ARGUMENT, CUDYN_ORIGIN_LIBRARY, 0, NULL, api,
                           "set CUDYN_DEVICE=local (the launcher's local rank chooses) or unset it",
                           "%s: CUDYN_DEVICE=\"%.64s\" is not a choice cudyn knows", api, choice);
    struct cudyn_local_rank l = {.size = sizeof l};
    int st = describe(api, &l);
    if (st == CUDYN_OK)
        *ordinal = l.device;
    return st;
}
