/*
 * loader/mpi.c - cudyn_mpi_cuda_support: whether the MPI of this process
 * takes device memory.  cudyn never links MPI; it asks the MPI library
 * already in the process (the program's, or mpi4py's, loaded with
 * RTLD_LOCAL or not), and otherwise reads the launcher's variables, whose
 * meanings are the table below.
 */
#include "config.h"

#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "loader/loader.h"

/* The variables that say whether an MPI moves device memory, in the
 * order they are read: X(name, the MPI that reads it). */
#define MPI_CUDA_VARIABLES(X)                                                                                  \
    X("OMPI_MCA_opal_cuda_support", "Open MPI")                                                              \
    X("MV2_USE_CUDA", "MVAPICH2")                                                                             \
    X("MPICH_GPU_SUPPORT_ENABLED", "Cray MPICH")

#define MPIX_GPU_SUPPORT_CUDA 0 /* MPICH's mpi.h */

/* The file of a loaded object whose name starts with "libmpi" (libmpi.so.40,
 * libmpi.so.12, libmpi_cray.so.12, libmpich.so.12). */
static int find_libmpi(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    const char *name = info->dlpi_name, *slash = name ? strrchr(name, '/') : NULL;
    if (!slash || strncmp(slash + 1, "libmpi", 6) != 0)
        return 0;
    *(const char **)data = name;
    return 1;
}

/* `name` in the MPI of this process, or NULL.  A library opened with
 * RTLD_LOCAL (mpi4py's) is not in the global scope: it is found by file. */
static void *mpi_symbol(const char *name)
{
    void *p = dlsym(RTLD_DEFAULT, name);
    const char *file = NULL;
    if (p || !dl_iterate_phdr(find_libmpi, &file))
        return p;
    void *h = dlopen(file, RTLD_LAZY | RTLD_NOLOAD);
    if (!h)
        return NULL;
    p = dlsym(h, name);
    dlclose(h); /* drops the count NOLOAD raised; its owner keeps it loaded */
    return p;
}

/* The answer of a CUDA-aware MPI's own query; false if it has none or is
 * not between MPI_Init and MPI_Finalize (`note` then says which). */
static bool ask_mpi(struct cudyn_mpi_cuda *r, char *note, size_t cap)
{
    int (*initialized)(int *), (*finalized)(int *), (*query)(void), (*gpu_query)(int, int *);
    void *p = mpi_symbol("MPI_Initialized");
    memcpy(&initialized, &p, sizeof p); /* object to function pointer: POSIX dlsym's documented use */
    p = mpi_symbol("MPI_Finalized");
    memcpy(&finalized, &p, sizeof p);
    int init = 0, fin = 0;
    if (!initialized) {
        snprintf(note, cap, "no MPI library is loaded in this process");
        return false;
    }
    if (initialized(&init) != 0 || !init || (finalized && (finalized(&fin) != 0 || fin))) {
        snprintf(note, cap, "MPI is loaded but %s: ask again between MPI_Init and MPI_Finalize",
                 fin ? "finalized" : "not initialised");
        return false;
    }
    p = mpi_symbol("MPIX_Query_cuda_support");
    memcpy(&query, &p, sizeof p);
    p = mpi_symbol("MPIX_GPU_query_support");
    memcpy(&gpu_query, &p, sizeof p);
    int yes = 0;
    if (query) {
        yes = query();
        r->source = "MPIX_Query_cuda_support";
        snprintf(r->reason, sizeof r->reason, "because MPIX_Query_cuda_support() returned %d%s", yes,
                 yes ? "" : " (this MPI was built without CUDA, or its CUDA support is turned off)");
    } else if (gpu_query && gpu_query(MPIX_GPU_SUPPORT_CUDA, &yes) == 0) {
        r->source = "MPIX_GPU_query_support";
        snprintf(r->reason, sizeof r->reason, "because MPIX_GPU_query_support(MPIX_GPU_SUPPORT_CUDA) said %d", yes);
    } else {
        snprintf(note, cap, "this MPI has neither MPIX_Query_cuda_support nor MPIX_GPU_query_support");
        return false;
    }
    r->answer = yes ? CUDYN_MPI_CUDA_YES : CUDYN_MPI_CUDA_NO;
    return true;
}

/* 1 for a yes, 0 for a no, -1 for anything else. */
static int yes_or_no(const char *v)
{
    static const char *const yes[] = {"1", "true", "yes", "on"}, *const no[] = {"0", "false", "no", "off"};
    for (size_t i = 0; i < N_ELEMS(yes); i++) {
        if (strcasecmp(v, yes[i]) == 0)
            return 1;
        if (strcasecmp(v, no[i]) == 0)
            return 0;
    }
    return -1;
}

/* UCX's transports: an explicit list without a CUDA one cannot move
 * device memory; one with a CUDA transport, "all" or an exclusion list
 * ("^...") may, if the MPI hands UCX device buffers. */
static void read_ucx(struct cudyn_mpi_cuda *r, const char *v, const char *note)
{
    bool cuda = strstr(v, "cuda") || strstr(v, "gdr");
    bool explicit_list = v[0] != '^' && strcmp(v, "all") != 0;
    r->source = "UCX_TLS";
    r->answer = explicit_list && !cuda ? CUDYN_MPI_CUDA_NO : CUDYN_MPI_CUDA_UNKNOWN;
    snprintf(r->reason, sizeof r->reason,
             r->answer == CUDYN_MPI_CUDA_NO
                 ? "because UCX_TLS=%s names no CUDA transport, so UCX cannot move device memory (%s)"
                 : "because UCX_TLS=%s lets UCX move device memory, but whether the MPI hands it device buffers "
                   "is not known (%s)",
             v, note);
}

static void read_variables(struct cudyn_mpi_cuda *r, const char *note)
{
#define MPI_CUDA_VARIABLE(name, mpi)                                                                           \
    {                                                                                                          \
        const char *v = cudyn__getenv(name);                                                                   \
        if (v && v[0]) {                                                                                       \
            int said = yes_or_no(v);                                                                           \
            r->source = name;                                                                                  \
            r->answer = said == 1 ? CUDYN_MPI_CUDA_YES : said == 0 ? CUDYN_MPI_CUDA_NO : CUDYN_MPI_CUDA_UNKNOWN; \
            snprintf(r->reason, sizeof r->reason, "because %s=%s %s (%s)", name, v,                           \
                     said == 1 ? "turns on " mpi "'s CUDA support"                                            \
                     : said == 0 ? "turns off " mpi "'s CUDA support"                                         \
                                 : "is neither a yes nor a no",                                               \
                     note);                                                                                    \
            return;                                                                                            \
        }                                                                                                      \
    }
    MPI_CUDA_VARIABLES(MPI_CUDA_VARIABLE)
#undef MPI_CUDA_VARIABLE
    const char *ucx = cudyn__getenv("UCX_TLS");
    if (ucx && ucx[0]) {
        read_ucx(r, ucx, note);
        return;
    }
    r->answer = CUDYN_MPI_CUDA_UNKNOWN;
    r->source = NULL;
    snprintf(r->reason, sizeof r->reason,
             "because %s, and none of OMPI_MCA_opal_cuda_support, MV2_USE_CUDA, MPICH_GPU_SUPPORT_ENABLED and "
             "UCX_TLS is set",
             note);
}

CUDYN_API int cudyn_mpi_cuda_support(struct cudyn_mpi_cuda *out)
{
    static const char api[] = "cudyn_mpi_cuda_support";
    if (!out)
        return cudyn__fail_arg(api, "out", "must not be NULL");
    if (out->size < sizeof(struct cudyn_mpi_cuda))
        return cudyn__fail_arg(api, "out", "size must be set to sizeof(struct cudyn_mpi_cuda)");
    out->answer = CUDYN_MPI_CUDA_UNKNOWN;
    out->source = NULL;
    out->reason[0] = '\0';
    char note[160];
    if (!ask_mpi(out, note, sizeof note))
        read_variables(out, note);
    return CUDYN_OK;
}
