/*
 * mpi_stencil.c - a 2D heat equation (Jacobi) on device buffers, the grid
 * cut in strips of rows over the ranks, one rank per GPU, halo rows
 * exchanged every step by one of three paths chosen at run time:
 *   cuda-aware  MPI moves device memory itself (only when the MPI says it
 *               can: MPIX_Query_cuda_support);
 *   staged      rows go through pinned host buffers and MPI;
 *   ipc         ranks of one node map their neighbours' buffers (CUDA IPC)
 *               and copy rows GPU to GPU (NVLink where there is one); IPC
 *               events and a small MPI handshake per step order the work.
 * The top edge is held at 1, the other edges at 0.  Every cell is updated
 * by the same float operations whatever the decomposition, so the result
 * after K steps is the same bits on 1, 2 or 3 ranks: rank 0 checks it
 * against the same steps on the host and prints its hash.
 *
 * The device is chosen from the launcher's local rank before MPI_Init
 * (cudyn_device_use_local), as a GPU job should, and the process's threads
 * are bound to the CPUs next to it where NVML tells them (bind_near_gpu.h;
 * --no-bind leaves them as the launcher put them).
 *
 * Build: mpicc mpi_stencil.c $(pkg-config --cflags --libs cudyn)
 * Run:   mpirun -n 2 ./mpi_stencil [--path=auto|staged|cuda-aware|ipc] [--no-bind] [nx ny steps]
 *        srun -n 2 --gpus-per-task=1 ./mpi_stencil --path=staged
 */
#define _GNU_SOURCE /* sched_setaffinity, in bind_near_gpu.h */
#include <mpi.h>
#if defined(__has_include)
#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h> /* Open MPI: MPIX_Query_cuda_support */
#endif
#endif
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cudyn.h>

#include "bind_near_gpu.h"

static const char jacobi_source[] =
    "extern \"C\" __global__ void jacobi(const float *in, float *out, int nx, int rows)\n"
    "{\n"
    "    int c = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    int r = blockIdx.y * blockDim.y + threadIdx.y + 1;\n"
    "    if (c >= nx || r > rows) return;\n"
    "    size_t i = (size_t)r * nx + c;\n"
    "    if (c == 0 || c == nx - 1) { out[i] = in[i]; return; }\n"
    "    out[i] = 0.25f * ((in[i - nx] + in[i + nx]) + (in[i - 1] + in[i + 1]));\n"
    "}\n";

static int rank, ranks;

#define CHECK(call)                                                                           \
    do {                                                                                      \
        if ((call) != CUDYN_OK) {                                                             \
            cudyn_error e = {.size = sizeof e};                                               \
            cudyn_last_error(&e);                                                             \
            fprintf(stderr, "mpi_stencil: rank %d: %s failed: %s\n", rank, #call, e.message); \
            MPI_Abort(MPI_COMM_WORLD, 1);                                                     \
        }                                                                                     \
    } while (0)

/* Whether this MPI moves device memory itself. */
static int mpi_is_cuda_aware(void)
{
#if defined(MPIX_CUDA_AWARE_SUPPORT)
    return MPIX_Query_cuda_support();
#else
    return 0; /* no way to ask: assume not */
#endif
}

enum path { PATH_STAGED, PATH_CUDA_AWARE, PATH_IPC };
static const char *const path_names[] = {"staged", "cuda-aware", "ipc"};

/* The same update on the host, in the same order of operations. */
static void host_step(const float *in, float *out, int nx, int rows)
{
    for (int r = 1; r <= rows; r++)
        for (int c = 0; c < nx; c++) {
            size_t i = (size_t)r * nx + c;
            out[i] = c == 0 || c == nx - 1 ? in[i]
                                           : 0.25f * ((in[i - nx] + in[i + nx]) + (in[i - 1] + in[i + 1]));
        }
}

/* FNV-1a over the bytes: one number to compare runs by. */
static uint64_t hash_bytes(const void *data, size_t bytes)
{
    const unsigned char *p = data;
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < bytes; i++)
        h = (h ^ p[i]) * 1099511628211ull;
    return h;
}

/* A strip: rows interior rows and a halo row above and below. */
struct strip {
    int nx, rows, first_row;
    cudyn_devptr buf[2]; /* in and out, swapped every step */
};

static size_t row_bytes(const struct strip *s)
{
    return (size_t)s->nx * sizeof(float);
}

static cudyn_devptr row(const struct strip *s, int b, int r)
{
    return s->buf[b] + (size_t)r * row_bytes(s);
}

/* What a rank keeps of a neighbour on the IPC path. */
struct neighbour {
    int rank; /* MPI_PROC_NULL at the edges */
    int rows;
    cudyn_devptr buf[2]; /* its buffers, mapped here */
    cudyn_event done;    /* its event: its rows for this step are written */
};

static void ipc_setup(struct strip *s, struct neighbour nb[2], cudyn_event *mine)
{
    struct {
        cudyn_ipc_mem_handle buf[2];
        cudyn_ipc_event_handle done;
        int rows;
    } out, in;
    memset(&out, 0, sizeof out);
    CHECK(cudyn_event_create(mine, CUDYN_EVENT_INTERPROCESS));
    for (int b = 0; b < 2; b++)
        CHECK(cudyn_ipc_mem_get_handle(&out.buf[b], s->buf[b]));
    CHECK(cudyn_ipc_event_get_handle(&out.done, *mine));
    out.rows = s->rows;
    for (int side = 0; side < 2; side++) {
        /* side 0: the rank above (rank - 1), side 1: below */
        memset(&in, 0, sizeof in);
        MPI_Sendrecv(&out, sizeof out, MPI_BYTE, nb[side].rank, 0, &in, sizeof in, MPI_BYTE, nb[side].rank, 0,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (nb[side].rank == MPI_PROC_NULL)
            continue;
        nb[side].rows = in.rows;
        for (int b = 0; b < 2; b++)
            CHECK(cudyn_ipc_mem_open(&nb[side].buf[b], &in.buf[b], CUDYN_IPC_LAZY_PEER_ACCESS));
        CHECK(cudyn_ipc_event_open(&nb[side].done, &in.done));
    }
}

static void ipc_teardown(struct neighbour nb[2], cudyn_event mine)
{
    MPI_Barrier(MPI_COMM_WORLD); /* nobody copies into a buffer about to go */
    for (int side = 0; side < 2; side++) {
        if (nb[side].rank == MPI_PROC_NULL)
            continue;
        for (int b = 0; b < 2; b++)
            CHECK(cudyn_ipc_mem_close(nb[side].buf[b]));
        CHECK(cudyn_event_destroy(nb[side].done));
    }
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK(cudyn_event_destroy(mine));
}

/* The halo rows of buffer b, after a step wrote its interior. */
static void exchange(enum path path, struct strip *s, int b, struct neighbour nb[2], cudyn_event mine, float *pinned,
                     int step)
{
    const size_t bytes = row_bytes(s);
    const int up = nb[0].rank, down = nb[1].rank, n = s->nx;
    if (path == PATH_IPC) {
        /* write my edge rows into the neighbours' halos, GPU to GPU */
        if (up != MPI_PROC_NULL)
            CHECK(cudyn_memcpy_dtod(nb[0].buf[b] + (size_t)(nb[0].rows + 1) * bytes, row(s, b, 1), bytes));
        if (down != MPI_PROC_NULL)
            CHECK(cudyn_memcpy_dtod(nb[1].buf[b], row(s, b, s->rows), bytes));
        CHECK(cudyn_event_record(mine, NULL));
        /* The handshake, CPU to CPU: each neighbour has queued this step's
         * copies and recorded its event.  Then the GPU, not the CPU, waits
         * for them: the next kernel reads the halos only once they have
         * arrived, and no CPU waits for a GPU, so the launches run ahead
         * and the GPUs go step by step without an idle round trip.  The
         * waits also order the writes after the neighbour's reads: my next
         * copies into its buffer follow its event of this step, which
         * follows its kernel that read that buffer. */
        int token_up = step, token_down = step;
        MPI_Sendrecv(&step, 1, MPI_INT, up, 1, &token_down, 1, MPI_INT, down, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Sendrecv(&step, 1, MPI_INT, down, 2, &token_up, 1, MPI_INT, up, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        for (int side = 0; side < 2; side++)
            if (nb[side].rank != MPI_PROC_NULL)
                CHECK(cudyn_stream_wait_event(NULL, nb[side].done));
        return;
    }
    if (path == PATH_CUDA_AWARE) {
        void *first = (void *)(uintptr_t)row(s, b, 1), *last = (void *)(uintptr_t)row(s, b, s->rows);
        void *top = (void *)(uintptr_t)row(s, b, 0), *bottom = (void *)(uintptr_t)row(s, b, s->rows + 1);
        CHECK(cudyn_synchronize()); /* MPI reads device memory outside any stream */
        MPI_Sendrecv(first, n, MPI_FLOAT, up, 3, bottom, n, MPI_FLOAT, down, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Sendrecv(last, n, MPI_FLOAT, down, 4, top, n, MPI_FLOAT, up, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        return;
    }
    /* staged: pinned[0..n) first row out, [n..2n) last row out, then the two halos in */
    float *send_first = pinned, *send_last = pinned + n, *recv_top = pinned + 2 * n, *recv_bottom = pinned + 3 * n;
    CHECK(cudyn_memcpy_dtoh(send_first, row(s, b, 1), bytes));
    CHECK(cudyn_memcpy_dtoh(send_last, row(s, b, s->rows), bytes));
    MPI_Sendrecv(send_first, n, MPI_FLOAT, up, 3, recv_bottom, n, MPI_FLOAT, down, 3, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    MPI_Sendrecv(send_last, n, MPI_FLOAT, down, 4, recv_top, n, MPI_FLOAT, up, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (up != MPI_PROC_NULL)
        CHECK(cudyn_memcpy_htod(row(s, b, 0), recv_top, bytes));
    if (down != MPI_PROC_NULL)
        CHECK(cudyn_memcpy_htod(row(s, b, s->rows + 1), recv_bottom, bytes));
}

int main(int argc, char **argv)
{
    /* The GPU first, from the launcher's local rank: before MPI_Init, so
     * that an MPI which looks at the device finds it chosen.  Run alone
     * (no launcher), device 0. */
    int device = 0;
    int local = cudyn_device_use_local(&device);
    if (local != CUDYN_OK && local != CUDYN_ERROR_NOT_FOUND) {
        cudyn_error e = {.size = sizeof e};
        cudyn_last_error(&e);
        fprintf(stderr, "mpi_stencil: %s\n", e.message);
        return 1;
    }
    if (local == CUDYN_ERROR_NOT_FOUND) /* the call said -1: no launcher */
        device = 0;
    if (local == CUDYN_OK && cudyn_last_error(NULL) == CUDYN_OK) {
        cudyn_error e = {.size = sizeof e};
        cudyn_last_error(&e);
        if (e.message[0]) /* a warning: local ranks share this GPU */
            fprintf(stderr, "mpi_stencil: %s\n", e.message);
    }
    /* Then the CPUs next to it, before MPI_Init starts MPI's threads
     * (they inherit the binding); said once the rank is known. */
    int bind = 1;
    for (int i = 1; i < argc; i++)
        bind &= strcmp(argv[i], "--no-bind") != 0;
    char binding[1024];
    bind_near_gpu(device, bind, binding, sizeof binding);
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    printf("rank %d: %s\n", rank, binding);
    fflush(stdout);

    const char *asked = "auto";
    int nx = 256, ny = 256, steps = 100, positional = 0, assume_aware = 0;
    for (int i = 1; i < argc; i++) {
        if (strncmp(argv[i], "--path=", 7) == 0)
            asked = argv[i] + 7;
        else if (strcmp(argv[i], "--assume-cuda-aware") == 0)
            assume_aware = 1; /* for the mock driver, whose device memory is host memory */
        else if (strcmp(argv[i], "--no-bind") == 0)
            continue; /* read before MPI_Init */
        else if (positional < 3)
            *(positional++ == 0 ? &nx : positional == 2 ? &ny : &steps) = atoi(argv[i]);
    }
    if (nx < 3 || nx > 1 << 16 || ny < ranks || ny > 1 << 16 || steps < 0) {
        if (rank == 0)
            fprintf(stderr, "usage: mpi_stencil [--path=auto|staged|cuda-aware|ipc] [--no-bind] [nx >= 3] "
                            "[ny >= ranks] [steps]\n");
        MPI_Finalize();
        return 2;
    }
    const int aware = assume_aware || mpi_is_cuda_aware();
    enum path path;
    if (strcmp(asked, "auto") == 0) {
        path = aware ? PATH_CUDA_AWARE : PATH_STAGED;
    } else if (strcmp(asked, "staged") == 0) {
        path = PATH_STAGED;
    } else if (strcmp(asked, "ipc") == 0) {
        path = PATH_IPC;
    } else if (strcmp(asked, "cuda-aware") == 0) {
        path = PATH_CUDA_AWARE;
        if (!aware) {
            if (rank == 0)
                fprintf(stderr, "mpi_stencil: this MPI is not CUDA-aware (MPIX_Query_cuda_support); use "
                                "--path=staged or --path=ipc\n");
            MPI_Finalize();
            return 77;
        }
    } else {
        if (rank == 0)
            fprintf(stderr, "mpi_stencil: unknown path '%s'\n", asked);
        MPI_Finalize();
        return 2;
    }
    if (path == PATH_IPC) {
        /* IPC works between processes of one node */
        MPI_Comm node;
        int node_ranks;
        MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
        MPI_Comm_size(node, &node_ranks);
        MPI_Comm_free(&node);
        if (node_ranks != ranks) {
            if (rank == 0)
                fprintf(stderr, "mpi_stencil: --path=ipc needs every rank on one node\n");
            MPI_Finalize();
            return 77;
        }
    }

    struct strip s = {.nx = nx};
    s.rows = ny / ranks + (rank < ny % ranks);
    s.first_row = rank * (ny / ranks) + (rank < ny % ranks ? rank : ny % ranks);
    const size_t strip_bytes = (size_t)(s.rows + 2) * row_bytes(&s);
    float *host = calloc((size_t)(s.rows + 2) * nx, sizeof *host);
    float *pinned = NULL;
    if (!host) {
        fprintf(stderr, "mpi_stencil: rank %d: out of host memory\n", rank);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    if (rank == 0)
        for (int c = 0; c < nx; c++)
            host[c] = 1.0f; /* the hot edge is rank 0's top halo, never overwritten */
    for (int b = 0; b < 2; b++) {
        CHECK(cudyn_mem_alloc(&s.buf[b], strip_bytes));
        CHECK(cudyn_memcpy_htod(s.buf[b], host, strip_bytes));
    }
    CHECK(cudyn_host_alloc((void **)&pinned, 4 * row_bytes(&s)));

    cudyn_module mod;
    cudyn_function jacobi;
    CHECK(cudyn_module_load_source(&mod, jacobi_source, NULL, 0));
    CHECK(cudyn_module_function(&jacobi, mod, "jacobi"));

    struct neighbour nb[2] = {{.rank = rank > 0 ? rank - 1 : MPI_PROC_NULL},
                              {.rank = rank < ranks - 1 ? rank + 1 : MPI_PROC_NULL}};
    cudyn_event mine = NULL;
    if (path == PATH_IPC)
        ipc_setup(&s, nb, &mine);

    const cudyn_dim3 block = {32, 8, 1};
    const cudyn_dim3 grid = {(unsigned int)((nx + 31) / 32), (unsigned int)((s.rows + 7) / 8), 1};
    MPI_Barrier(MPI_COMM_WORLD);
    double start = MPI_Wtime();
    int in = 0;
    for (int k = 0; k < steps; k++) {
        CHECK(cudyn_launchf(jacobi, grid, block, 0, NULL, "ppii", s.buf[in], s.buf[1 - in], nx, s.rows));
        exchange(path, &s, 1 - in, nb, mine, pinned, k);
        in = 1 - in;
    }
    CHECK(cudyn_synchronize());
    MPI_Barrier(MPI_COMM_WORLD);
    double seconds = MPI_Wtime() - start;
    if (path == PATH_IPC)
        ipc_teardown(nb, mine);

    /* rank 0 gathers the interior and repeats the steps on the host */
    CHECK(cudyn_memcpy_dtoh(host, s.buf[in], strip_bytes));
    int *counts = NULL, *displs = NULL;
    float *all = NULL, *ref = NULL, *next = NULL;
    if (rank == 0) {
        counts = malloc(ranks * sizeof *counts);
        displs = malloc(ranks * sizeof *displs);
        all = malloc((size_t)ny * nx * sizeof *all);
        ref = calloc((size_t)(ny + 2) * nx, sizeof *ref);
        next = calloc((size_t)(ny + 2) * nx, sizeof *next);
        if (!counts || !displs || !all || !ref || !next) {
            fprintf(stderr, "mpi_stencil: rank 0: out of host memory\n");
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        for (int r = 0, at = 0; r < ranks; r++) {
            counts[r] = (ny / ranks + (r < ny % ranks)) * nx;
            displs[r] = at;
            at += counts[r];
        }
    }
    MPI_Gatherv(host + nx, s.rows * nx, MPI_FLOAT, all, counts, displs, MPI_FLOAT, 0, MPI_COMM_WORLD);
    int wrong = 0;
    if (rank == 0) {
        for (int c = 0; c < nx; c++)
            ref[c] = next[c] = 1.0f;
        for (int k = 0; k < steps; k++) {
            host_step(ref, next, nx, ny);
            float *t = ref;
            ref = next;
            next = t;
        }
        wrong = memcmp(all, ref + nx, (size_t)ny * nx * sizeof *all) != 0;
        double cells = (double)nx * ny * steps;
        printf("mpi_stencil: %d ranks, path %s, %dx%d, %d steps: hash %016llx, %.3g cells/s: %s\n", ranks,
               path_names[path], nx, ny, steps, (unsigned long long)hash_bytes(all, (size_t)ny * nx * sizeof *all),
               seconds > 0 ? cells / seconds : 0.0, wrong ? "FAIL" : "PASS");
        free(counts);
        free(displs);
        free(all);
        free(ref);
        free(next);
    }
    MPI_Bcast(&wrong, 1, MPI_INT, 0, MPI_COMM_WORLD);
    for (int b = 0; b < 2; b++)
        CHECK(cudyn_mem_free(s.buf[b]));
    CHECK(cudyn_host_free(pinned));
    CHECK(cudyn_module_unload(mod));
    free(host);
    MPI_Finalize();
    return wrong ? 1 : 0;
}
