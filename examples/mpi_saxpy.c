/*
 * mpi_saxpy.c - MPI and cudyn, one rank per GPU, in the pattern of PyCUDA's
 * documentation: rank 0 scatters a vector, every rank scales its part on
 * its GPU, x <- 0.9 * x, K times (a SAXPY with y = 0), and rank 0 gathers
 * the parts, checks them bit for bit and prints the time.  Each rank binds
 * its threads to the CPUs next to its GPU where NVML tells them
 * (bind_near_gpu.h; --no-bind leaves them as the launcher put them).
 *
 * Build: mpicc mpi_saxpy.c $(pkg-config --cflags --libs cudyn)
 * Run:   mpirun -n 2 ./mpi_saxpy [--no-bind] [floats per rank] [K]
 */
#define _GNU_SOURCE /* sched_setaffinity, in bind_near_gpu.h */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cudyn.h>

#include "bind_near_gpu.h"

/* x[i] = a * x[i]: in float on the GPU, so the host can repeat it exactly. */
static const char scale_source[] =
    "extern \"C\" __global__ void scale(float a, float *x, size_t n)\n"
    "{\n"
    "    size_t i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n) x[i] = a * x[i];\n"
    "}\n";

static int rank;

/* A failed cudyn call ends every rank: the others would otherwise wait in
 * MPI_Gather for this one forever. */
#define CHECK(call)                                                                         \
    do {                                                                                    \
        if ((call) != CUDYN_OK) {                                                           \
            cudyn_error e = {.size = sizeof e};                                             \
            cudyn_last_error(&e);                                                           \
            fprintf(stderr, "mpi_saxpy: rank %d: %s failed: %s\n", rank, #call, e.message); \
            MPI_Abort(MPI_COMM_WORLD, 1);                                                   \
        }                                                                                   \
    } while (0)

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int ranks;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    /* This example hands MPI host buffers, which every MPI takes; a
     * CUDA-aware one could take the device's (mpi_stencil.c chooses). */
    struct cudyn_mpi_cuda aware = {.size = sizeof aware};
    if (rank == 0 && cudyn_mpi_cuda_support(&aware) == CUDYN_OK)
        printf("mpi_saxpy: CUDA-aware MPI: %s, %s; host buffers here\n",
               aware.answer == CUDYN_MPI_CUDA_YES ? "yes" : aware.answer == CUDYN_MPI_CUDA_NO ? "no" : "unknown",
               aware.reason);
    const char *numbers[2] = {NULL, NULL};
    int bind = 1, positional = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--no-bind") == 0)
            bind = 0;
        else if (positional < 2)
            numbers[positional++] = argv[i];
    }
    const size_t per_rank = numbers[0] ? strtoull(numbers[0], NULL, 10) : (size_t)1 << 22;
    const int steps = numbers[1] ? atoi(numbers[1]) : 100;
    const float a = 0.9f;
    if (per_rank == 0 || per_rank > (size_t)1 << 28 || steps < 0) {
        if (rank == 0)
            fprintf(stderr, "usage: mpi_saxpy [--no-bind] [floats per rank, 1 .. 2^28] [steps]\n");
        MPI_Finalize();
        return 2;
    }

    /* One rank per GPU: the ranks of one machine take its GPUs in turn
     * (node-local rank mod N; on a single machine, rank mod N). */
    MPI_Comm node;
    int local_rank, devices = 0;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    MPI_Comm_rank(node, &local_rank);
    MPI_Comm_free(&node);
    CHECK(cudyn_device_count(&devices));
    if (devices == 0) {
        fprintf(stderr, "mpi_saxpy: rank %d: no GPU\n", rank);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    const int device = local_rank % devices;
    CHECK(cudyn_device_use(device));
    struct cudyn_device_info info = {.size = sizeof info};
    CHECK(cudyn_device_info(device, &info));
    printf("rank %d of %d: device %d (%s)\n", rank, ranks, device, info.name);
    char binding[1024];
    bind_near_gpu(device, bind, binding, sizeof binding);
    printf("rank %d: %s\n", rank, binding);

    /* Rank 0 owns the whole vector; the others only their part. */
    float *all = NULL, *part = malloc(per_rank * sizeof *part);
    const size_t n = per_rank * (size_t)ranks;
    if (rank == 0 && !(all = malloc(n * sizeof *all)))
        part = NULL;
    if (!part) {
        fprintf(stderr, "mpi_saxpy: rank %d: out of host memory\n", rank);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    if (rank == 0)
        for (size_t i = 0; i < n; i++)
            all[i] = (float)(i % 1000) + 1.0f;

    /* Each rank compiles (or finds in the cache) the kernel for its GPU. */
    cudyn_module mod;
    cudyn_function scale;
    CHECK(cudyn_module_load_source(&mod, scale_source, NULL, 0));
    CHECK(cudyn_module_function(&scale, mod, "scale"));
    cudyn_devptr dx;
    CHECK(cudyn_mem_alloc(&dx, per_rank * sizeof(float)));

    MPI_Barrier(MPI_COMM_WORLD); /* time the work, not the start-up */
    double start = MPI_Wtime();
    MPI_Scatter(all, (int)per_rank, MPI_FLOAT, part, (int)per_rank, MPI_FLOAT, 0, MPI_COMM_WORLD);
    CHECK(cudyn_memcpy_htod(dx, part, per_rank * sizeof(float)));
    const unsigned int threads = 256, blocks = (unsigned int)((per_rank + threads - 1) / threads);
    for (int k = 0; k < steps; k++) /* launches on one stream run in order */
        CHECK(cudyn_launchf(scale, (cudyn_dim3){blocks, 1, 1}, (cudyn_dim3){threads, 1, 1}, 0, NULL, "fpz", a, dx,
                            per_rank));
    CHECK(cudyn_memcpy_dtoh(part, dx, per_rank * sizeof(float)));
    MPI_Gather(part, (int)per_rank, MPI_FLOAT, all, (int)per_rank, MPI_FLOAT, 0, MPI_COMM_WORLD);
    double seconds = MPI_Wtime() - start;

    CHECK(cudyn_mem_free(dx));
    CHECK(cudyn_module_unload(mod));
    size_t wrong = 0;
    if (rank == 0) {
        /* The same float multiplications on the host give the same bits.
         * The inputs repeat every 1000 elements, and so do the results. */
        float want[1000];
        for (int v = 0; v < 1000; v++) {
            want[v] = (float)v + 1.0f;
            for (int k = 0; k < steps; k++)
                want[v] = a * want[v];
        }
        for (size_t i = 0; i < n; i++)
            wrong += all[i] != want[i % 1000];
        printf("mpi_saxpy: %d ranks, %zu floats, %d steps: %.3f ms (scatter, compute, gather): %s\n", ranks, n,
               steps, seconds * 1e3, wrong ? "FAIL" : "PASS");
    }
    free(all);
    free(part);
    MPI_Finalize();
    return wrong ? 1 : 0;
}
