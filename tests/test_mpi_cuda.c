/*
 * test_mpi_cuda.c - cudyn_mpi_cuda_support.  This program exports a fake
 * MPICH (MPI_Initialized, MPI_Finalized, MPIX_GPU_query_support; linked
 * with -export-dynamic, so the library finds them as it finds a real MPI
 * in a process), whose state and answer the test sets: the MPI's own
 * answer between MPI_Init and MPI_Finalize, and otherwise the launcher's
 * variables in their order.  Open MPI's MPIX_Query_cuda_support is met
 * for real in tests/check-mpi.sh, no MPI at all in check-cudainfo.sh.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cudyn.h"
#include "testutil.h"

int MPI_Initialized(int *flag);
int MPI_Finalized(int *flag);
int MPIX_GPU_query_support(int gpu_type, int *is_supported);

static int initialized, finalized, supported, query_fails;

int MPI_Initialized(int *flag)
{
    *flag = initialized;
    return 0;
}

int MPI_Finalized(int *flag)
{
    *flag = finalized;
    return 0;
}

int MPIX_GPU_query_support(int gpu_type, int *is_supported)
{
    *is_supported = gpu_type == 0 && supported; /* MPIX_GPU_SUPPORT_CUDA */
    return query_fails;
}

static const char *const variables[] = {"OMPI_MCA_opal_cuda_support", "MV2_USE_CUDA", "MPICH_GPU_SUPPORT_ENABLED",
                                        "UCX_TLS"};

/* The answer with only `var` set to `value` (var NULL: none set). */
static struct cudyn_mpi_cuda ask(const char *var, const char *value)
{
    for (size_t i = 0; i < sizeof variables / sizeof variables[0]; i++)
        unsetenv(variables[i]);
    if (var)
        setenv(var, value, 1);
    struct cudyn_mpi_cuda m = {.size = sizeof m};
    CHECK_STATUS(cudyn_mpi_cuda_support(&m), CUDYN_OK);
    printf("%s=%s: %d, %s\n", var ? var : "(none)", var ? value : "", m.answer, m.reason);
    return m;
}

static void expect(const char *var, const char *value, int answer, const char *source, const char *says)
{
    struct cudyn_mpi_cuda m = ask(var, value);
    CHECK_EQ_INT(m.answer, answer);
    CHECK(source ? m.source && strcmp(m.source, source) == 0 : m.source == NULL);
    CHECK(strncmp(m.reason, "because ", 8) == 0);
    CHECK_CONTAINS(m.reason, says);
}

int main(void)
{
    /* loaded, not initialised: the variables answer, the reason says why */
    expect("OMPI_MCA_opal_cuda_support", "1", CUDYN_MPI_CUDA_YES, "OMPI_MCA_opal_cuda_support",
           "turns on Open MPI's CUDA support (MPI is loaded but not initialised");
    expect("OMPI_MCA_opal_cuda_support", "false", CUDYN_MPI_CUDA_NO, "OMPI_MCA_opal_cuda_support", "turns off");
    expect("OMPI_MCA_opal_cuda_support", "maybe", CUDYN_MPI_CUDA_UNKNOWN, "OMPI_MCA_opal_cuda_support",
           "is neither a yes nor a no");
    expect("MV2_USE_CUDA", "1", CUDYN_MPI_CUDA_YES, "MV2_USE_CUDA", "MVAPICH2");
    expect("MPICH_GPU_SUPPORT_ENABLED", "0", CUDYN_MPI_CUDA_NO, "MPICH_GPU_SUPPORT_ENABLED", "Cray MPICH");
    expect("UCX_TLS", "tcp,self", CUDYN_MPI_CUDA_NO, "UCX_TLS", "names no CUDA transport");
    expect("UCX_TLS", "cuda_copy,cuda_ipc,tcp", CUDYN_MPI_CUDA_UNKNOWN, "UCX_TLS", "lets UCX move device memory");
    expect("UCX_TLS", "^ib", CUDYN_MPI_CUDA_UNKNOWN, "UCX_TLS", "lets UCX move device memory");
    expect(NULL, NULL, CUDYN_MPI_CUDA_UNKNOWN, NULL, "none of OMPI_MCA_opal_cuda_support");
    /* the first variable set wins */
    setenv("MV2_USE_CUDA", "1", 1);
    struct cudyn_mpi_cuda m = {.size = sizeof m};
    setenv("OMPI_MCA_opal_cuda_support", "0", 1);
    CHECK_STATUS(cudyn_mpi_cuda_support(&m), CUDYN_OK);
    CHECK_EQ_INT(m.answer, CUDYN_MPI_CUDA_NO);

    /* between MPI_Init and MPI_Finalize the MPI's own answer stands */
    initialized = 1;
    supported = 1;
    expect("OMPI_MCA_opal_cuda_support", "0", CUDYN_MPI_CUDA_YES, "MPIX_GPU_query_support", "said 1");
    supported = 0;
    expect(NULL, NULL, CUDYN_MPI_CUDA_NO, "MPIX_GPU_query_support", "said 0");
    query_fails = 1; /* an MPI that cannot say: the variables again */
    expect("MV2_USE_CUDA", "yes", CUDYN_MPI_CUDA_YES, "MV2_USE_CUDA",
           "this MPI has neither MPIX_Query_cuda_support nor MPIX_GPU_query_support");
    query_fails = 0;
    finalized = 1;
    expect(NULL, NULL, CUDYN_MPI_CUDA_UNKNOWN, NULL, "MPI is loaded but finalized");

    CHECK_STATUS(cudyn_mpi_cuda_support(NULL), CUDYN_ERROR_INVALID_ARGUMENT);
    m.size = sizeof m.size;
    CHECK_STATUS(cudyn_mpi_cuda_support(&m), CUDYN_ERROR_INVALID_ARGUMENT);
    return test_result("test_mpi_cuda");
}
