/*
 * mpi_info.h - cudainfo's MPI section (--mpi): whether the MPI of this
 * process, or the one its launcher set up, moves device memory
 * (cudyn_mpi_cuda_support), and the NCCL cudyn finds for collectives
 * (cudyn_nccl_info).  Neither is a failure of cudainfo: they are reports.
 */
#ifndef CUDYN_MPI_INFO_H
#define CUDYN_MPI_INFO_H

#include <stdbool.h>

#include "cudyn.h"
#include "json.h"

struct mpi_info {
    bool gathered;
    struct cudyn_mpi_cuda mpi;
    struct cudyn_nccl_info nccl;
    char nccl_error[1024]; /* why NCCL cannot be used, "" when it can */
};

void mpi_info_gather(struct mpi_info *m);
/* The section as text; trace adds the NCCL search (--explain). */
void mpi_info_print(const struct mpi_info *m, bool trace);
void mpi_info_json(struct json *j, const struct mpi_info *m);

#endif
