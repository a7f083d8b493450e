/*
 * allreduce.c - an all-reduce benchmark in the manner of nccl-tests'
 * all_reduce_perf, one rank per GPU under MPI: for each size from 8 B to
 * 256 MiB (doubling), the average time of one out-of-place float sum over
 * --iters runs, its algorithm bandwidth (bytes / time) and bus bandwidth
 * (algbw * 2(n-1)/n, what each GPU's links carry), and a check of every
 * element of the result.
 *
 * The path follows what the machine offers (the first lines say which
 * and why): NCCL through cudyn (cudyn_nccl_*; rank 0 makes the unique id
 * and MPI_Bcast carries it), else MPI_Allreduce on device buffers where
 * the MPI is CUDA-aware (cudyn_mpi_cuda_support), else MPI_Allreduce
 * staged through pinned host memory.  --path=nccl|mpi chooses.
 *
 * NVLink multicast (NVLS) is left off unless NCCL_NVLS_ENABLE says
 * otherwise: some shared machines forbid it, and point-to-point NCCL
 * does not need it.
 *
 * Build: mpicc allreduce.c $(pkg-config --cflags --libs cudyn)
 * Run:   mpirun -n 2 -x NCCL_NVLS_ENABLE=0 ./allreduce [--path=auto|nccl|mpi]
 *            [-b MIN_BYTES] [-e MAX_BYTES] [-n ITERS] [-w WARMUP] [--no-bind]
 *        srun -n 2 --gpus-per-task=1 ./allreduce -e 64M
 */
#define _GNU_SOURCE /* sched_setaffinity, in bind_near_gpu.h */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cudyn.h>

#include "bind_near_gpu.h"

static int rank, ranks;

#define CHECK(call)                                                                         \
    do {                                                                                    \
        if ((call) != CUDYN_OK) {                                                           \
            cudyn_error e = {.size = sizeof e};                                             \
            cudyn_last_error(&e);                                                           \
            fprintf(stderr, "allreduce: rank %d: %s failed: %s\n", rank, #call, e.message); \
            MPI_Abort(MPI_COMM_WORLD, 1);                                                   \
        }                                                                                   \
    } while (0)

enum path { PATH_NCCL, PATH_DEVICE, PATH_STAGED };
static const char *const path_names[] = {"nccl", "mpi on device buffers", "mpi staged through host memory"};

struct options {
    const char *path;
    size_t min_bytes, max_bytes;
    int iters, warmup;
};

/* "8", "64K", "256M", "1G" */
static size_t parse_size(const char *s)
{
    char *end;
    double v = strtod(s, &end);
    double unit = *end == 'K' ? 1024.0 : *end == 'M' ? 1048576.0 : *end == 'G' ? 1073741824.0 : 1.0;
    return v > 0 ? (size_t)(v * unit) : 0;
}

static int parse(int argc, char **argv, struct options *o)
{
    *o = (struct options){.path = "auto", .min_bytes = 8, .max_bytes = 256u << 20, .iters = 20, .warmup = 5};
    for (int i = 1; i < argc; i++) {
        const char *next = i + 1 < argc ? argv[i + 1] : "";
        if (strncmp(argv[i], "--path=", 7) == 0)
            o->path = argv[i] + 7;
        else if (strcmp(argv[i], "-b") == 0 && ++i)
            o->min_bytes = parse_size(next);
        else if (strcmp(argv[i], "-e") == 0 && ++i)
            o->max_bytes = parse_size(next);
        else if (strcmp(argv[i], "-n") == 0 && ++i)
            o->iters = atoi(next);
        else if (strcmp(argv[i], "-w") == 0 && ++i)
            o->warmup = atoi(next);
        else if (strcmp(argv[i], "--no-bind") != 0)
            return 0;
    }
    return o->min_bytes >= 4 && o->max_bytes >= o->min_bytes && o->iters > 0 && o->warmup >= 0;
}

/* The path, and the first lines saying why. */
static enum path choose_path(const char *asked)
{
    struct cudyn_mpi_cuda m = {.size = sizeof m};
    CHECK(cudyn_mpi_cuda_support(&m));
    struct cudyn_nccl_info n = {.size = sizeof n};
    CHECK(cudyn_nccl_info(&n));
    cudyn_clear_error(); /* no NCCL is a choice, not a failure */
    enum path mpi = m.answer == CUDYN_MPI_CUDA_YES ? PATH_DEVICE : PATH_STAGED;
    enum path path = strcmp(asked, "mpi") == 0 ? mpi : n.status == CUDYN_OK ? PATH_NCCL : mpi;
    if (strcmp(asked, "nccl") == 0 && n.status != CUDYN_OK) {
        cudyn_nccl_info(&n);
        cudyn_error e = {.size = sizeof e};
        cudyn_last_error(&e);
        if (rank == 0)
            fprintf(stderr, "allreduce: --path=nccl, but %s\n", e.message);
        return (enum path)-1;
    }
    if (rank == 0) {
        printf("# allreduce: %d ranks, float sum, out of place\n", ranks);
        printf("# CUDA-aware MPI: %s, %s\n",
               m.answer == CUDYN_MPI_CUDA_YES ? "yes" : m.answer == CUDYN_MPI_CUDA_NO ? "no" : "unknown", m.reason);
        if (n.status == CUDYN_OK)
            printf("# NCCL %s: %s [%s]\n", n.version_string, n.path, n.found_by);
        else
            printf("# NCCL: not found (%s)\n", cudyn_status_name(n.status));
        printf("# path: %s\n", path_names[path]);
        fflush(stdout);
    }
    return path;
}

/* Device buffers of max_bytes, the send one holding rank r's values
 * (i % 1024) * (r + 1), so that every sum is exact; pinned host memory for
 * staging and checking. */
struct buffers {
    cudyn_devptr send, recv;
    float *host, *host_recv;
    cudyn_stream stream;
    cudyn_nccl_comm comm;
};

static void setup(struct buffers *b, size_t max_bytes, enum path path)
{
    size_t n = max_bytes / sizeof(float);
    CHECK(cudyn_mem_alloc(&b->send, max_bytes));
    CHECK(cudyn_mem_alloc(&b->recv, max_bytes));
    CHECK(cudyn_host_alloc((void **)&b->host, max_bytes));
    if (path == PATH_STAGED)
        CHECK(cudyn_host_alloc((void **)&b->host_recv, max_bytes));
    for (size_t i = 0; i < n; i++)
        b->host[i] = (float)((i % 1024) * (size_t)(rank + 1));
    CHECK(cudyn_memcpy_htod(b->send, b->host, max_bytes));
    CHECK(cudyn_stream_create(&b->stream, CUDYN_STREAM_NON_BLOCKING));
    if (path != PATH_NCCL)
        return;
    setenv("NCCL_NVLS_ENABLE", "0", 0); /* no multicast unless asked for */
    cudyn_nccl_id id;
    memset(&id, 0, sizeof id);
    if (rank == 0)
        CHECK(cudyn_nccl_unique_id(&id));
    MPI_Bcast(&id, sizeof id, MPI_BYTE, 0, MPI_COMM_WORLD);
    CHECK(cudyn_nccl_comm_init_rank(&b->comm, ranks, &id, rank));
}

static void teardown(struct buffers *b)
{
    if (b->comm)
        CHECK(cudyn_nccl_comm_destroy(b->comm));
    CHECK(cudyn_stream_destroy(b->stream));
    CHECK(cudyn_mem_free(b->send));
    CHECK(cudyn_mem_free(b->recv));
    CHECK(cudyn_host_free(b->host));
    CHECK(cudyn_host_free(b->host_recv));
}

/* One all-reduce of `count` floats, queued (NCCL) or done (MPI). */
static void all_reduce(enum path path, struct buffers *b, size_t count)
{
    const size_t bytes = count * sizeof(float);
    if (path == PATH_NCCL) {
        CHECK(cudyn_nccl_all_reduce(b->comm, b->send, b->recv, count, 'f', CUDYN_NCCL_SUM, b->stream));
    } else if (path == PATH_DEVICE) {
        MPI_Allreduce((void *)(uintptr_t)b->send, (void *)(uintptr_t)b->recv, (int)count, MPI_FLOAT, MPI_SUM,
                      MPI_COMM_WORLD);
    } else {
        CHECK(cudyn_memcpy_dtoh(b->host, b->send, bytes));
        MPI_Allreduce(b->host, b->host_recv, (int)count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
        CHECK(cudyn_memcpy_htod(b->recv, b->host_recv, bytes));
    }
}

/* Seconds per all-reduce of `count` floats, the slowest rank's. */
static double time_size(enum path path, struct buffers *b, size_t count, const struct options *o)
{
    for (int i = 0; i < o->warmup; i++)
        all_reduce(path, b, count);
    /* a peer that died shows here, in bounded time, instead of a hang */
    CHECK(b->comm ? cudyn_nccl_comm_wait(b->comm, b->stream, 60000) : cudyn_stream_synchronize(b->stream));
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int i = 0; i < o->iters; i++)
        all_reduce(path, b, count);
    CHECK(cudyn_stream_synchronize(b->stream)); /* no polling in the timed part */
    double mine = (MPI_Wtime() - t0) / o->iters, slowest = 0;
    MPI_Allreduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return slowest;
}

/* Elements of the result that are wrong, over all ranks. */
static long check(struct buffers *b, size_t count)
{
    const size_t sum = (size_t)ranks * (size_t)(ranks + 1) / 2;
    CHECK(cudyn_memcpy_dtoh(b->host, b->recv, count * sizeof(float)));
    long wrong = 0, all = 0;
    for (size_t i = 0; i < count; i++)
        wrong += b->host[i] != (float)((i % 1024) * sum);
    MPI_Allreduce(&wrong, &all, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    for (size_t i = 0; i < count; i++) /* the send buffer's values again, for the next size's staging */
        b->host[i] = (float)((i % 1024) * (size_t)(rank + 1));
    return all;
}

int main(int argc, char **argv)
{
    int device = 0;
    if (cudyn_device_use_local(&device) != CUDYN_OK)
        device = 0; /* no launcher: device 0 */
    int bind = 1;
    for (int i = 1; i < argc; i++)
        bind &= strcmp(argv[i], "--no-bind") != 0;
    char binding[1024];
    bind_near_gpu(device, bind, binding, sizeof binding);
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    struct options o;
    if (!parse(argc, argv, &o)) {
        if (rank == 0)
            fprintf(stderr, "usage: allreduce [--path=auto|nccl|mpi] [-b MIN_BYTES] [-e MAX_BYTES] [-n ITERS] "
                            "[-w WARMUP] [--no-bind]   (sizes: 8, 64K, 256M ...)\n");
        MPI_Finalize();
        return 2;
    }
    enum path path = choose_path(o.path);
    if ((int)path < 0) {
        MPI_Finalize();
        return 77;
    }
    struct buffers b = {0};
    setup(&b, o.max_bytes, path);
    if (rank == 0)
        printf("# %10s %12s %6s %6s %10s %8s %8s %7s\n#%11s %12s %6s %6s %10s %8s %8s\n", "size", "count", "type",
               "redop", "time", "algbw", "busbw", "#wrong", "(B)", "(elements)", "", "", "(us)", "(GB/s)", "(GB/s)");
    long wrong = 0;
    double busbw_sum = 0;
    int sizes = 0;
    for (size_t bytes = o.min_bytes; bytes <= o.max_bytes; bytes *= 2) {
        size_t count = bytes / sizeof(float);
        double t = time_size(path, &b, count, &o);
        long w = check(&b, count);
        double algbw = (double)count * sizeof(float) / t / 1e9, busbw = algbw * 2.0 * (ranks - 1) / ranks;
        wrong += w;
        busbw_sum += busbw;
        sizes++;
        if (rank == 0)
            printf("%12zu %12zu %6s %6s %10.2f %8.2f %8.2f %7ld\n", count * sizeof(float), count, "float", "sum",
                   t * 1e6, algbw, busbw, w);
    }
    if (rank == 0) {
        printf("# Avg bus bandwidth: %.3f GB/s\n", sizes ? busbw_sum / sizes : 0.0);
        printf("allreduce: %d ranks, path %s, %d sizes: %s\n", ranks, path_names[path], sizes, wrong ? "FAIL" : "PASS");
    }
    teardown(&b);
    MPI_Finalize();
    return wrong ? 1 : 0;
}
