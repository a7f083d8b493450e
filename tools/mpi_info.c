/*
 * mpi_info.c - cudainfo's MPI section; see mpi_info.h.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "mpi_info.h"

void mpi_info_gather(struct mpi_info *m)
{
    m->gathered = true;
    m->mpi = (struct cudyn_mpi_cuda){.size = sizeof m->mpi};
    m->nccl = (struct cudyn_nccl_info){.size = sizeof m->nccl};
    cudyn_mpi_cuda_support(&m->mpi);
    cudyn_nccl_info(&m->nccl);
    m->nccl_error[0] = '\0';
    if (m->nccl.status != CUDYN_OK) {
        cudyn_error e = {.size = sizeof e};
        cudyn_last_error(&e);
        snprintf(m->nccl_error, sizeof m->nccl_error, "%s", e.message);
    }
    cudyn_clear_error(); /* NCCL is optional: its absence is reported, not cudainfo's failure */
}

static const char *answer_name(int answer)
{
    return answer == CUDYN_MPI_CUDA_YES ? "yes" : answer == CUDYN_MPI_CUDA_NO ? "no" : "unknown";
}

void mpi_info_print(const struct mpi_info *m, bool trace)
{
    if (!m->gathered)
        return;
    printf("MPI:     CUDA-aware: %s, %s\n", answer_name(m->mpi.answer), m->mpi.reason);
    if (m->nccl.status == CUDYN_OK)
        printf("NCCL:    %s, %s [%s]\n", m->nccl.version_string, m->nccl.path, m->nccl.found_by);
    else
        printf("NCCL:    not usable (%s): %s\n", cudyn_status_name(m->nccl.status), m->nccl_error);
    if (trace)
        printf("\nLoader search (libnccl):\n%s", m->nccl.trace ? m->nccl.trace : "");
}

void mpi_info_json(struct json *j, const struct mpi_info *m)
{
    if (!m->gathered)
        return;
    json_object_begin(j, "mpi");
    json_string(j, "cuda_aware", answer_name(m->mpi.answer));
    json_string(j, "source", m->mpi.source);
    json_string(j, "reason", m->mpi.reason);
    json_object_begin(j, "nccl");
    json_string(j, "status", cudyn_status_name(m->nccl.status));
    json_string(j, "path", m->nccl.path);
    json_string(j, "found_by", m->nccl.found_by);
    json_string(j, "version", m->nccl.version_string);
    json_string(j, "error", m->nccl_error[0] ? m->nccl_error : NULL);
    json_object_end(j);
    json_object_end(j);
}
