/*
 * mpi_stencil.c - a 2D heat equation (Jacobi) on device buffers, the grid
 * cut in strips of rows over the ranks, one rank per GPU, halo rows
 * exchanged every step by one of four paths chosen at run time:
 *   cuda-aware  MPI moves device memory itself (only when the MPI says it
 *               can: cudyn_mpi_cuda_support);
 *   nccl        NCCL sends and receives the rows GPU to GPU, queued on
 *               the stream after the kernel (the unique id travels by
 *               MPI_Bcast); across nodes too;
 *   staged      rows go through pinned host buffers and MPI;
 *   ipc         ranks of one node map their neighbours' buffers (CUDA IPC)
 *               and copy rows GPU to GPU (NVLink where there is one); IPC
 *               events and a small MPI handshake per step order the work.
 * --path=auto (the default) takes cuda-aware where the MPI is, else nccl
 * where cudyn finds NCCL, else staged; the first lines say which and why.
 *
 * The IPC path has three schedules (--schedule):
 *   plain     one kernel over the strip, then the edge rows' copies;
 *   split     the edge rows first, on a stream of their own, and their
 *             copies overlapping the inner rows' kernel on another;
 *   priority  split, the edge kernel launched at the highest priority
 *             (CUDYN_LAUNCH_PRIORITY) so its blocks pass the inner ones.
 * --timings prints, per rank, the mean per step of each phase measured by
 * events (kernel, or edges and inner; halo; the MPI handshake, by the
 * host clock) beside the wall time of a step.  --no-check prints the hash
 * without repeating the steps on the host (for grids where that would
 * take longer than the run: compare its hash with a checked run's).
 *
 * The top edge is held at 1, the other edges at 0.  Every cell is updated
 * by the same float operations whatever the decomposition, path or
 * schedule, so the result after K steps is the same bits on 1, 2 or 3
 * ranks: rank 0 checks it against the same steps on the host and prints
 * its hash.
 *
 * The device is chosen from the launcher's local rank before MPI_Init
 * (cudyn_device_use_local), as a GPU job should, and the process's threads
 * are bound to the CPUs next to it where NVML tells them (bind_near_gpu.h;
 * --no-bind leaves them as the launcher put them).  NVLink multicast
 * (NVLS) is not needed by point-to-point NCCL: set NCCL_NVLS_ENABLE=0
 * where a machine asks for it.
 *
 * Build: mpicc mpi_stencil.c $(pkg-config --cflags --libs cudyn)
 * Run:   mpirun -n 2 ./mpi_stencil [--path=auto|staged|cuda-aware|ipc|nccl]
 *            [--schedule=plain|split|priority] [--timings] [--no-check] [--no-bind] [nx ny steps]
 *        srun -n 2 --gpus-per-task=1 ./mpi_stencil --path=nccl
 */
#define _GNU_SOURCE /* sched_setaffinity, in bind_near_gpu.h */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cudyn.h>

#include "bind_near_gpu.h"

/* Rows first, first + step, ... (count of them) of a strip of nx columns. */
static const char jacobi_source[] =
    "extern \"C\" __global__ void jacobi(const float *in, float *out, int nx, int first, int count, int step)\n"
    "{\n"
    "    int c = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    int y = blockIdx.y * blockDim.y + threadIdx.y;\n"
    "    if (c >= nx || y >= count) return;\n"
    "    size_t i = (size_t)(first + y * step) * nx + c;\n"
    "    if (c == 0 || c == nx - 1) { out[i] = in[i]; return; }\n"
    "    out[i] = 0.25f * ((in[i - nx] + in[i + nx]) + (in[i - 1] + in[i + 1]));\n"
    "}\n";

/* The highest priority of current GPUs (lower is more urgent); the driver
 * clamps a value past its range. */
#define EDGE_PRIORITY (-5)

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

enum path { PATH_STAGED, PATH_CUDA_AWARE, PATH_IPC, PATH_NCCL };
static const char *const path_names[] = {"staged", "cuda-aware", "ipc", "nccl"};
enum schedule { SCHEDULE_PLAIN, SCHEDULE_SPLIT, SCHEDULE_PRIORITY };
static const char *const schedule_names[] = {"plain", "split", "priority"};

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

/* Per-step events of --timings: [phase][step], NULL without it. */
enum phase { T_KERNEL, T_KERNEL_END, T_INNER, T_INNER_END, T_HALO_END, N_PHASES };

/* Everything a step uses. */
struct run {
    enum path path;
    enum schedule schedule;
    struct strip s;
    struct neighbour nb[2];
    cudyn_event mine;            /* ipc: my rows for this step are written */
    cudyn_stream edges, inner;   /* ipc split / priority */
    cudyn_event edges_done, inner_done;
    cudyn_nccl_comm comm;        /* nccl */
    cudyn_function jacobi;
    float *pinned;               /* staged */
    cudyn_event *marks[N_PHASES];
    double handshake_s, exchange_s; /* host time in the handshake (ipc) / the exchange (staged, cuda-aware) */
};

static void ipc_setup(struct run *r)
{
    struct {
        cudyn_ipc_mem_handle buf[2];
        cudyn_ipc_event_handle done;
        int rows;
    } out, in;
    memset(&out, 0, sizeof out);
    CHECK(cudyn_event_create(&r->mine, CUDYN_EVENT_INTERPROCESS));
    for (int b = 0; b < 2; b++)
        CHECK(cudyn_ipc_mem_get_handle(&out.buf[b], r->s.buf[b]));
    CHECK(cudyn_ipc_event_get_handle(&out.done, r->mine));
    out.rows = r->s.rows;
    for (int side = 0; side < 2; side++) {
        /* side 0: the rank above (rank - 1), side 1: below */
        struct neighbour *nb = &r->nb[side];
        memset(&in, 0, sizeof in);
        MPI_Sendrecv(&out, sizeof out, MPI_BYTE, nb->rank, 0, &in, sizeof in, MPI_BYTE, nb->rank, 0, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        if (nb->rank == MPI_PROC_NULL)
            continue;
        nb->rows = in.rows;
        for (int b = 0; b < 2; b++)
            CHECK(cudyn_ipc_mem_open(&nb->buf[b], &in.buf[b], CUDYN_IPC_LAZY_PEER_ACCESS));
        CHECK(cudyn_ipc_event_open(&nb->done, &in.done));
    }
    if (r->schedule != SCHEDULE_PLAIN) {
        CHECK(cudyn_stream_create(&r->edges, CUDYN_STREAM_NON_BLOCKING));
        CHECK(cudyn_stream_create(&r->inner, CUDYN_STREAM_NON_BLOCKING));
        CHECK(cudyn_event_create(&r->edges_done, CUDYN_EVENT_DISABLE_TIMING));
        CHECK(cudyn_event_create(&r->inner_done, CUDYN_EVENT_DISABLE_TIMING));
    }
}

static void ipc_teardown(struct run *r)
{
    MPI_Barrier(MPI_COMM_WORLD); /* nobody copies into a buffer about to go */
    for (int side = 0; side < 2; side++) {
        if (r->nb[side].rank == MPI_PROC_NULL)
            continue;
        for (int b = 0; b < 2; b++)
            CHECK(cudyn_ipc_mem_close(r->nb[side].buf[b]));
        CHECK(cudyn_event_destroy(r->nb[side].done));
    }
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK(cudyn_event_destroy(r->mine));
    if (r->schedule != SCHEDULE_PLAIN) {
        CHECK(cudyn_stream_destroy(r->edges));
        CHECK(cudyn_stream_destroy(r->inner));
        CHECK(cudyn_event_destroy(r->edges_done));
        CHECK(cudyn_event_destroy(r->inner_done));
    }
}

/* One rank's communicator; rank 0 makes the id and MPI carries it. */
static void nccl_setup(struct run *r)
{
    setenv("NCCL_NVLS_ENABLE", "0", 0); /* no multicast unless asked for */
    cudyn_nccl_id id;
    memset(&id, 0, sizeof id);
    if (rank == 0)
        CHECK(cudyn_nccl_unique_id(&id));
    MPI_Bcast(&id, sizeof id, MPI_BYTE, 0, MPI_COMM_WORLD);
    CHECK(cudyn_nccl_comm_init_rank(&r->comm, ranks, &id, rank));
}

/* The event of `phase` at `step` recorded on `stream`, with --timings. */
static void mark(struct run *r, enum phase phase, int step, cudyn_stream stream)
{
    if (r->marks[phase])
        CHECK(cudyn_event_record(r->marks[phase][step], stream));
}

/* The kernel over `count` rows from `first`, `step` apart, of buffer
 * 1 - b into buffer b, at the highest priority when `urgent`. */
static void launch_rows(struct run *r, int b, int first, int count, int step, cudyn_stream stream, int urgent)
{
    if (count <= 0)
        return;
    const cudyn_dim3 block = {32, 8, 1};
    struct cudyn_launch_config c = {.size = sizeof c, .block = block, .stream = stream};
    c.grid = (cudyn_dim3){(unsigned int)((r->s.nx + 31) / 32), (unsigned int)((count + 7) / 8), 1};
    c.flags = urgent ? CUDYN_LAUNCH_PRIORITY : 0;
    c.priority = EDGE_PRIORITY;
    cudyn_devptr in = r->s.buf[1 - b], out = r->s.buf[b];
    int nx = r->s.nx;
    void *args[] = {&in, &out, &nx, &first, &count, &step};
    CHECK(cudyn_launch_ex(r->jacobi, &c, args));
}

/* Copies my edge rows of buffer b into the neighbours' halos, on stream. */
static void ipc_copy_edges(struct run *r, int b, cudyn_stream stream)
{
    const struct strip *s = &r->s;
    const size_t bytes = row_bytes(s);
    if (r->nb[0].rank != MPI_PROC_NULL)
        CHECK(cudyn_memcpy_dtod_async(r->nb[0].buf[b] + (size_t)(r->nb[0].rows + 1) * bytes, row(s, b, 1), bytes,
                                      stream));
    if (r->nb[1].rank != MPI_PROC_NULL)
        CHECK(cudyn_memcpy_dtod_async(r->nb[1].buf[b], row(s, b, s->rows), bytes, stream));
}

/* The handshake, CPU to CPU: each neighbour has queued this step's copies
 * and recorded its event.  Then the GPU, not the CPU, waits for them: the
 * next kernel reads the halos only once they have arrived, and no CPU
 * waits for a GPU, so the launches run ahead and the GPUs go step by step
 * without an idle round trip.  The waits also order the writes after the
 * neighbour's reads: my next copies into its buffer follow its event of
 * this step, which follows its kernel that read that buffer. */
static void ipc_handshake(struct run *r, int step, cudyn_stream waits)
{
    double t0 = MPI_Wtime();
    int up = r->nb[0].rank, down = r->nb[1].rank, token_up = step, token_down = step;
    MPI_Sendrecv(&step, 1, MPI_INT, up, 1, &token_down, 1, MPI_INT, down, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Sendrecv(&step, 1, MPI_INT, down, 2, &token_up, 1, MPI_INT, up, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    r->handshake_s += MPI_Wtime() - t0;
    for (int side = 0; side < 2; side++)
        if (r->nb[side].rank != MPI_PROC_NULL)
            CHECK(cudyn_stream_wait_event(waits, r->nb[side].done));
}

/* A step of the split schedules: the edge rows on their stream, then
 * their copies, while the inner rows run on the other.  What each wait
 * orders: the inner kernel follows the previous step's edges (it reads
 * them, and overwrites rows they read); the edges follow the previous
 * inner kernel (the same) and the neighbours' halos. */
static void ipc_split_step(struct run *r, int b, int step)
{
    const int rows = r->s.rows;
    CHECK(cudyn_stream_wait_event(r->inner, r->edges_done)); /* the previous step's */
    mark(r, T_KERNEL, step, r->edges);
    launch_rows(r, b, 1, rows > 1 ? 2 : 1, rows - 1, r->edges, r->schedule == SCHEDULE_PRIORITY);
    mark(r, T_KERNEL_END, step, r->edges);
    CHECK(cudyn_event_record(r->edges_done, r->edges));
    mark(r, T_INNER, step, r->inner);
    launch_rows(r, b, 2, rows - 2, 1, r->inner, 0);
    mark(r, T_INNER_END, step, r->inner);
    CHECK(cudyn_event_record(r->inner_done, r->inner));
    ipc_copy_edges(r, b, r->edges);
    mark(r, T_HALO_END, step, r->edges);
    CHECK(cudyn_event_record(r->mine, r->edges));
    ipc_handshake(r, step, r->edges);
    CHECK(cudyn_stream_wait_event(r->edges, r->inner_done));
}

/* Sends my edge rows of buffer b and receives the halos, NCCL's way: in
 * one group, on the kernel's stream, with no host wait. */
static void nccl_exchange(struct run *r, int b)
{
    const struct strip *s = &r->s;
    const int up = r->nb[0].rank, down = r->nb[1].rank;
    CHECK(cudyn_nccl_group_start());
    if (up != MPI_PROC_NULL) {
        CHECK(cudyn_nccl_send(r->comm, row(s, b, 1), (size_t)s->nx, 'f', up, NULL));
        CHECK(cudyn_nccl_recv(r->comm, row(s, b, 0), (size_t)s->nx, 'f', up, NULL));
    }
    if (down != MPI_PROC_NULL) {
        CHECK(cudyn_nccl_send(r->comm, row(s, b, s->rows), (size_t)s->nx, 'f', down, NULL));
        CHECK(cudyn_nccl_recv(r->comm, row(s, b, s->rows + 1), (size_t)s->nx, 'f', down, NULL));
    }
    CHECK(cudyn_nccl_group_end());
}

/* The halo rows of buffer b through MPI: device memory itself where MPI
 * is CUDA-aware, else staged through pinned host memory. */
static void mpi_exchange(struct run *r, int b)
{
    const struct strip *s = &r->s;
    const size_t bytes = row_bytes(s);
    const int up = r->nb[0].rank, down = r->nb[1].rank, n = s->nx;
    double t0 = MPI_Wtime();
    if (r->path == PATH_CUDA_AWARE) {
        void *first = (void *)(uintptr_t)row(s, b, 1), *last = (void *)(uintptr_t)row(s, b, s->rows);
        void *top = (void *)(uintptr_t)row(s, b, 0), *bottom = (void *)(uintptr_t)row(s, b, s->rows + 1);
        CHECK(cudyn_synchronize()); /* MPI reads device memory outside any stream */
        MPI_Sendrecv(first, n, MPI_FLOAT, up, 3, bottom, n, MPI_FLOAT, down, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Sendrecv(last, n, MPI_FLOAT, down, 4, top, n, MPI_FLOAT, up, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        r->exchange_s += MPI_Wtime() - t0;
        return;
    }
    /* pinned[0..n) first row out, [n..2n) last row out, then the two halos in */
    float *send_first = r->pinned, *send_last = r->pinned + n, *recv_top = r->pinned + 2 * n,
          *recv_bottom = r->pinned + 3 * n;
    CHECK(cudyn_memcpy_dtoh(send_first, row(s, b, 1), bytes));
    CHECK(cudyn_memcpy_dtoh(send_last, row(s, b, s->rows), bytes));
    MPI_Sendrecv(send_first, n, MPI_FLOAT, up, 3, recv_bottom, n, MPI_FLOAT, down, 3, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    MPI_Sendrecv(send_last, n, MPI_FLOAT, down, 4, recv_top, n, MPI_FLOAT, up, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (up != MPI_PROC_NULL)
        CHECK(cudyn_memcpy_htod(row(s, b, 0), recv_top, bytes));
    if (down != MPI_PROC_NULL)
        CHECK(cudyn_memcpy_htod(row(s, b, s->rows + 1), recv_bottom, bytes));
    r->exchange_s += MPI_Wtime() - t0;
}

/* Step `step`: buffer 1 - b into buffer b, then its halos. */
static void step_once(struct run *r, int b, int step)
{
    if (r->path == PATH_IPC && r->schedule != SCHEDULE_PLAIN) {
        ipc_split_step(r, b, step);
        return;
    }
    mark(r, T_KERNEL, step, NULL);
    launch_rows(r, b, 1, r->s.rows, 1, NULL, 0);
    mark(r, T_KERNEL_END, step, NULL);
    if (r->path == PATH_IPC) {
        ipc_copy_edges(r, b, NULL);
        mark(r, T_HALO_END, step, NULL);
        CHECK(cudyn_event_record(r->mine, NULL));
        ipc_handshake(r, step, NULL);
    } else if (r->path == PATH_NCCL) {
        nccl_exchange(r, b);
        mark(r, T_HALO_END, step, NULL);
    } else {
        mpi_exchange(r, b);
    }
}

/* ------------------------------------------------------------- timings */

static void timings_create(struct run *r, int steps)
{
    for (int p = 0; p < N_PHASES; p++) {
        r->marks[p] = calloc((size_t)steps + 1, sizeof *r->marks[p]);
        if (!r->marks[p]) {
            fprintf(stderr, "mpi_stencil: rank %d: out of host memory\n", rank);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        for (int k = 0; k < steps; k++)
            CHECK(cudyn_event_create(&r->marks[p][k], CUDYN_EVENT_DEFAULT));
    }
}

/* The mean milliseconds from phase `from` to phase `to` over the steps;
 * -1 where a phase was not recorded (the path has no such phase). */
static double mean_ms(const struct run *r, enum phase from, enum phase to, int steps)
{
    double sum = 0;
    for (int k = 0; k < steps; k++) {
        float ms = 0;
        if (cudyn_event_elapsed_ms(&ms, r->marks[from][k], r->marks[to][k]) != CUDYN_OK) {
            cudyn_clear_error(); /* an event this path never recorded */
            return -1;
        }
        sum += ms;
    }
    return steps > 0 ? sum / steps : 0;
}

static void timings_print(struct run *r, int steps, double seconds)
{
    char inner[64] = "", halo[64] = "-";
    double kernel = mean_ms(r, T_KERNEL, T_KERNEL_END, steps);
    if (r->path == PATH_IPC && r->schedule != SCHEDULE_PLAIN)
        snprintf(inner, sizeof inner, ", inner %.4f ms", mean_ms(r, T_INNER, T_INNER_END, steps));
    if (r->path == PATH_IPC || r->path == PATH_NCCL)
        snprintf(halo, sizeof halo, "%.4f ms", mean_ms(r, T_KERNEL_END, T_HALO_END, steps));
    else
        snprintf(halo, sizeof halo, "%.4f ms (host)", steps ? 1e3 * r->exchange_s / steps : 0.0);
    printf("mpi_stencil: timings rank %d of %d, path %s, schedule %s: step %.4f ms, %s %.4f ms%s, halo %s, "
           "handshake %.4f ms\n",
           rank, ranks, path_names[r->path], schedule_names[r->schedule], steps ? 1e3 * seconds / steps : 0.0,
           inner[0] ? "edges" : "kernel", kernel, inner, halo, steps ? 1e3 * r->handshake_s / steps : 0.0);
    fflush(stdout);
    for (int p = 0; p < N_PHASES; p++) {
        for (int k = 0; k < steps; k++)
            CHECK(cudyn_event_destroy(r->marks[p][k]));
        free(r->marks[p]);
    }
}

/* ------------------------------------------------------- the path chosen */

/* --path=auto: device memory through MPI where it can take it, else NCCL
 * where cudyn finds one, else staging; the first lines say why. */
static enum path choose_path(const char *asked, int assume_aware, int *aware_out)
{
    struct cudyn_mpi_cuda m = {.size = sizeof m};
    CHECK(cudyn_mpi_cuda_support(&m));
    int aware = *aware_out = assume_aware || m.answer == CUDYN_MPI_CUDA_YES;
    if (rank == 0)
        printf("mpi_stencil: CUDA-aware MPI: %s, %s%s\n",
               m.answer == CUDYN_MPI_CUDA_YES ? "yes" : m.answer == CUDYN_MPI_CUDA_NO ? "no" : "unknown", m.reason,
               assume_aware ? " (--assume-cuda-aware: taken as yes)" : "");
    for (int p = 0; p < 4; p++)
        if (strcmp(asked, path_names[p]) == 0)
            return (enum path)p;
    if (strcmp(asked, "auto") != 0)
        return (enum path)-1;
    struct cudyn_nccl_info n = {.size = sizeof n};
    CHECK(cudyn_nccl_info(&n));
    cudyn_clear_error(); /* no NCCL is a choice, not a failure */
    enum path path = aware ? PATH_CUDA_AWARE : n.status == CUDYN_OK ? PATH_NCCL : PATH_STAGED;
    if (rank == 0)
        printf("mpi_stencil: path %s (auto: %s)\n", path_names[path],
               aware ? "MPI takes device memory" : n.status == CUDYN_OK ? "NCCL found" : "no NCCL: staged through host memory");
    return path;
}

/* Whether this run can use `path`; says why not on rank 0. */
static int path_usable(enum path path, int aware)
{
    if (path == PATH_CUDA_AWARE && !aware) {
        if (rank == 0)
            fprintf(stderr, "mpi_stencil: this MPI is not CUDA-aware (cudyn_mpi_cuda_support); use --path=staged, "
                            "--path=nccl or --path=ipc\n");
        return 0;
    }
    if (path == PATH_IPC) { /* IPC works between processes of one node */
        MPI_Comm node;
        int node_ranks;
        MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
        MPI_Comm_size(node, &node_ranks);
        MPI_Comm_free(&node);
        if (node_ranks != ranks) {
            if (rank == 0)
                fprintf(stderr, "mpi_stencil: --path=ipc needs every rank on one node\n");
            return 0;
        }
    }
    return 1;
}

/* ---------------------------------------------------------------- main */

struct options {
    const char *path, *schedule;
    int nx, ny, steps, assume_aware, timings, no_check;
};

static int parse(int argc, char **argv, struct options *o)
{
    int positional = 0;
    *o = (struct options){.path = "auto", .schedule = "plain", .nx = 256, .ny = 256, .steps = 100};
    for (int i = 1; i < argc; i++) {
        if (strncmp(argv[i], "--path=", 7) == 0)
            o->path = argv[i] + 7;
        else if (strncmp(argv[i], "--schedule=", 11) == 0)
            o->schedule = argv[i] + 11;
        else if (strcmp(argv[i], "--timings") == 0)
            o->timings = 1;
        else if (strcmp(argv[i], "--no-check") == 0)
            o->no_check = 1; /* the hash without the host's repeat, for big grids */
        else if (strcmp(argv[i], "--assume-cuda-aware") == 0)
            o->assume_aware = 1; /* for the mock driver, whose device memory is host memory */
        else if (strcmp(argv[i], "--no-bind") == 0)
            continue; /* read before MPI_Init */
        else if (positional < 3)
            *(positional++ == 0 ? &o->nx : positional == 2 ? &o->ny : &o->steps) = atoi(argv[i]);
    }
    return o->nx >= 3 && o->nx <= 1 << 16 && o->ny >= ranks && o->ny <= 1 << 16 && o->steps >= 0;
}

/* The device first, from the launcher's local rank: before MPI_Init, so
 * that an MPI which looks at the device finds it chosen.  Run alone (no
 * launcher), device 0.  Then the CPUs next to it, before MPI_Init starts
 * MPI's threads (they inherit the binding); said once the rank is known. */
static void choose_device(int argc, char **argv, char *binding, size_t cap)
{
    int device = 0;
    int local = cudyn_device_use_local(&device);
    cudyn_error e = {.size = sizeof e};
    if (local != CUDYN_OK && local != CUDYN_ERROR_NOT_FOUND) {
        cudyn_last_error(&e);
        fprintf(stderr, "mpi_stencil: %s\n", e.message);
        exit(1);
    }
    if (local == CUDYN_ERROR_NOT_FOUND) /* the call said -1: no launcher */
        device = 0;
    if (local == CUDYN_OK && cudyn_last_error(&e) == CUDYN_OK && e.message[0])
        fprintf(stderr, "mpi_stencil: %s\n", e.message); /* a warning: local ranks share this GPU */
    int bind = 1;
    for (int i = 1; i < argc; i++)
        bind &= strcmp(argv[i], "--no-bind") != 0;
    bind_near_gpu(device, bind, binding, cap);
}

/* Buffers of this rank's strip, the hot top edge in rank 0's halo. */
static float *setup_strip(struct run *r, int nx, int ny)
{
    struct strip *s = &r->s;
    s->nx = nx;
    s->rows = ny / ranks + (rank < ny % ranks);
    s->first_row = rank * (ny / ranks) + (rank < ny % ranks ? rank : ny % ranks);
    const size_t strip_bytes = (size_t)(s->rows + 2) * row_bytes(s);
    float *host = calloc((size_t)(s->rows + 2) * nx, sizeof *host);
    if (!host) {
        fprintf(stderr, "mpi_stencil: rank %d: out of host memory\n", rank);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    if (rank == 0)
        for (int c = 0; c < nx; c++)
            host[c] = 1.0f; /* the hot edge is rank 0's top halo, never overwritten */
    for (int b = 0; b < 2; b++) {
        CHECK(cudyn_mem_alloc(&s->buf[b], strip_bytes));
        CHECK(cudyn_memcpy_htod(s->buf[b], host, strip_bytes));
    }
    CHECK(cudyn_host_alloc((void **)&r->pinned, 4 * row_bytes(s)));
    r->nb[0] = (struct neighbour){.rank = rank > 0 ? rank - 1 : MPI_PROC_NULL};
    r->nb[1] = (struct neighbour){.rank = rank < ranks - 1 ? rank + 1 : MPI_PROC_NULL};
    return host;
}

/* Rank 0 gathers the interior, repeats the steps on the host and prints
 * the result's hash; every rank learns whether it was right. */
static int check_result(const struct run *r, float *host, int ny, int steps, double seconds, int no_check)
{
    const int nx = r->s.nx;
    int *counts = NULL, *displs = NULL, wrong = 0;
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
        for (int q = 0, at = 0; q < ranks; q++) {
            counts[q] = (ny / ranks + (q < ny % ranks)) * nx;
            displs[q] = at;
            at += counts[q];
        }
    }
    MPI_Gatherv(host + nx, r->s.rows * nx, MPI_FLOAT, all, counts, displs, MPI_FLOAT, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        for (int c = 0; c < nx; c++)
            ref[c] = next[c] = 1.0f;
        for (int k = 0; k < steps && !no_check; k++) {
            host_step(ref, next, nx, ny);
            float *t = ref;
            ref = next;
            next = t;
        }
        wrong = !no_check && memcmp(all, ref + nx, (size_t)ny * nx * sizeof *all) != 0;
        printf("mpi_stencil: %d ranks, path %s, schedule %s, %dx%d, %d steps: hash %016llx, %.3g cells/s: %s\n",
               ranks, path_names[r->path], schedule_names[r->schedule], nx, ny, steps,
               (unsigned long long)hash_bytes(all, (size_t)ny * nx * sizeof *all),
               seconds > 0 ? (double)nx * ny * steps / seconds : 0.0, no_check ? "unchecked" : wrong ? "FAIL" : "PASS");
    }
    free(counts);
    free(displs);
    free(all);
    free(ref);
    free(next);
    MPI_Bcast(&wrong, 1, MPI_INT, 0, MPI_COMM_WORLD);
    return wrong;
}

/* Exits every rank with `code` after MPI_Finalize. */
static int finish(int code)
{
    MPI_Finalize();
    return code;
}

int main(int argc, char **argv)
{
    char binding[1024];
    choose_device(argc, argv, binding, sizeof binding);
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    printf("rank %d: %s\n", rank, binding);
    fflush(stdout);
    struct options o;
    struct run r = {.schedule = SCHEDULE_PLAIN};
    int ok = parse(argc, argv, &o), aware = 0;
    for (int i = 0; i < 3; i++)
        if (strcmp(o.schedule, schedule_names[i]) == 0)
            r.schedule = (enum schedule)i;
    if (!ok || strcmp(o.schedule, schedule_names[r.schedule]) != 0) {
        if (rank == 0)
            fprintf(stderr, "usage: mpi_stencil [--path=auto|staged|cuda-aware|ipc|nccl] "
                            "[--schedule=plain|split|priority] [--timings] [--no-check] [--no-bind] [nx >= 3] "
                            "[ny >= ranks] [steps]\n");
        return finish(2);
    }
    r.path = choose_path(o.path, o.assume_aware, &aware);
    if ((int)r.path < 0) {
        if (rank == 0)
            fprintf(stderr, "mpi_stencil: unknown path '%s'\n", o.path);
        return finish(2);
    }
    if (!path_usable(r.path, aware))
        return finish(77);
    if (r.path != PATH_IPC)
        r.schedule = SCHEDULE_PLAIN; /* the schedules are the IPC path's */
    float *host = setup_strip(&r, o.nx, o.ny);
    cudyn_module mod;
    CHECK(cudyn_module_load_source(&mod, jacobi_source, NULL, 0));
    CHECK(cudyn_module_function(&r.jacobi, mod, "jacobi"));
    if (r.path == PATH_IPC)
        ipc_setup(&r);
    if (r.path == PATH_NCCL)
        nccl_setup(&r);
    if (o.timings)
        timings_create(&r, o.steps);

    MPI_Barrier(MPI_COMM_WORLD);
    double start = MPI_Wtime();
    int b = 1; /* buffer 0 is read first */
    for (int k = 0; k < o.steps; k++, b = 1 - b)
        step_once(&r, b, k);
    CHECK(cudyn_synchronize());
    MPI_Barrier(MPI_COMM_WORLD);
    double seconds = MPI_Wtime() - start;
    if (r.path == PATH_IPC)
        ipc_teardown(&r);
    if (r.path == PATH_NCCL)
        CHECK(cudyn_nccl_comm_destroy(r.comm));
    if (o.timings)
        timings_print(&r, o.steps, seconds);

    CHECK(cudyn_memcpy_dtoh(host, r.s.buf[1 - b], (size_t)(r.s.rows + 2) * row_bytes(&r.s)));
    int wrong = check_result(&r, host, o.ny, o.steps, seconds, o.no_check);
    for (int i = 0; i < 2; i++)
        CHECK(cudyn_mem_free(r.s.buf[i]));
    CHECK(cudyn_host_free(r.pinned));
    CHECK(cudyn_module_unload(mod));
    free(host);
    return finish(wrong ? 1 : 0);
}
