/*
 * test_nccl.c - the collectives (cudyn_nccl_*) and how NCCL is found.
 *
 * On the mock libnccl (tests/mock/nccl/, over the mock driver with three
 * devices): every collective, send / receive, split and init path with
 * its data checked, by one thread in groups and by a thread per rank;
 * two processes meeting through a unique id; every call with bad
 * arguments (NULL, a wrong rank, a count past the buffer, a host pointer,
 * a destroyed or aborted communicator, an unknown type or operation,
 * INT_MIN as one, a made-up stream); a group in which a call fails
 * starting none of its calls; destroy, abort and wait refused while a
 * group not yet ended holds the communicator; a destroy in a forked child
 * that leaves the parent's NCCL alone;
 * NCCL's failures as statuses with NCCL's own message; an asynchronous
 * error and a silent hang, each a status in bounded time, never a hang;
 * and in processes of their own: no NCCL at all, CUDYN_LIBNCCL naming a
 * FIFO (refused, never a hang), a setuid copy that must not search its
 * own prefix (as root), NCCL too old, the 2.12
 * build without ncclCommSplit and ncclGetLastError, and the pip wheel's
 * layout found beside a loaded library and in a virtual environment.
 *
 * With CUDYN_LIBNCCL naming a real NCCL on a machine with GPUs
 * (tests/gpu-nccl.sh), the same data checks run there, on up to two GPUs,
 * and what only the mock can do is left out.
 */
#include "config.h"

#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cudyn.h"
#include "mock/nccl/mock_nccl_control.h"
#include "testutil.h"

#define N 40000 /* floats per rank: more than one of the mock's 64 KiB rounds */
#define MAX_DEV 3

static int ndev;  /* devices the in-process tests use */
static bool mock; /* the NCCL loaded is the mock */

/* The last error's message (valid until the next call). */
static const char *message(void)
{
    static cudyn_error e;
    e = (cudyn_error){.size = sizeof e};
    cudyn_last_error(&e);
    return e.message;
}

/* A device buffer of `bytes` on device d, filled from host (NULL: zeros). */
static cudyn_devptr upload(int d, const void *host, size_t bytes)
{
    cudyn_devptr p = 0;
    CHECK_STATUS(cudyn_device_use(d), CUDYN_OK);
    CHECK_STATUS(cudyn_mem_alloc(&p, bytes), CUDYN_OK);
    if (host)
        CHECK_STATUS(cudyn_memcpy_htod(p, host, bytes), CUDYN_OK);
    else
        CHECK_STATUS(cudyn_memset_d8(p, 0, bytes), CUDYN_OK);
    return p;
}

static void download(int d, void *host, cudyn_devptr p, size_t bytes)
{
    CHECK_STATUS(cudyn_device_use(d), CUDYN_OK);
    CHECK_STATUS(cudyn_synchronize(), CUDYN_OK);
    CHECK_STATUS(cudyn_memcpy_dtoh(host, p, bytes), CUDYN_OK);
}

static void free_on(int d, cudyn_devptr p)
{
    CHECK_STATUS(cudyn_device_use(d), CUDYN_OK);
    CHECK_STATUS(cudyn_mem_free(p), CUDYN_OK);
}

/* Rank r's value i: small integers, so that every sum is exact. */
static float value(int r, size_t i)
{
    return (float)((i * 7 + (size_t)r * 3) % 101);
}

/* ------------------------------------------------ collectives, in groups */

static void all_reduce_group(cudyn_nccl_comm *comms)
{
    cudyn_devptr buf[MAX_DEV];
    float *host = malloc(N * sizeof *host), *want = calloc(N, sizeof *want);
    for (int r = 0; r < ndev; r++) {
        for (size_t i = 0; i < N; i++) {
            host[i] = value(r, i);
            want[i] += host[i];
        }
        buf[r] = upload(r, host, N * sizeof *host);
    }
    CHECK_STATUS(cudyn_nccl_group_start(), CUDYN_OK);
    for (int r = 0; r < ndev; r++) /* in place */
        CHECK_STATUS(cudyn_nccl_all_reduce(comms[r], buf[r], buf[r], N, 'f', CUDYN_NCCL_SUM, NULL), CUDYN_OK);
    CHECK_STATUS(cudyn_nccl_group_end(), CUDYN_OK);
    for (int r = 0; r < ndev; r++) {
        download(r, host, buf[r], N * sizeof *host);
        CHECK(memcmp(host, want, N * sizeof *host) == 0);
        free_on(r, buf[r]);
    }
    free(host);
    free(want);
}

/* Broadcast from the last rank, reduce (max, doubles) to rank 0. */
static void broadcast_and_reduce(cudyn_nccl_comm *comms)
{
    enum { M = 1000 };
    double host[M], got[M];
    cudyn_devptr in[MAX_DEV], out[MAX_DEV];
    for (int r = 0; r < ndev; r++) {
        for (int i = 0; i < M; i++)
            host[i] = r * 1000.0 + i;
        in[r] = upload(r, host, sizeof host);
        out[r] = upload(r, NULL, sizeof host);
    }
    int root = ndev - 1;
    CHECK_STATUS(cudyn_nccl_group_start(), CUDYN_OK);
    for (int r = 0; r < ndev; r++)
        CHECK_STATUS(cudyn_nccl_broadcast(comms[r], in[r], out[r], M, 'd', root, NULL), CUDYN_OK);
    CHECK_STATUS(cudyn_nccl_group_end(), CUDYN_OK);
    for (int r = 0; r < ndev; r++) {
        download(r, got, out[r], sizeof got);
        CHECK(got[5] == root * 1000.0 + 5 && got[M - 1] == root * 1000.0 + M - 1);
    }
    CHECK_STATUS(cudyn_nccl_group_start(), CUDYN_OK);
    for (int r = 0; r < ndev; r++)
        CHECK_STATUS(cudyn_nccl_reduce(comms[r], in[r], out[r], M, 'd', CUDYN_NCCL_MAX, 0, NULL), CUDYN_OK);
    CHECK_STATUS(cudyn_nccl_group_end(), CUDYN_OK);
    download(0, got, out[0], sizeof got);
    CHECK(got[7] == (ndev - 1) * 1000.0 + 7);
    for (int r = 0; r < ndev; r++) {
        free_on(r, in[r]);
        free_on(r, out[r]);
    }
}

/* All-gather of int32 blocks, then reduce-scatter (min) of them back. */
static void gather_and_scatter(cudyn_nccl_comm *comms)
{
    enum { B = 20000 };
    int32_t *host = malloc(B * MAX_DEV * sizeof *host);
    cudyn_devptr mine[MAX_DEV], all[MAX_DEV];
    for (int r = 0; r < ndev; r++) {
        for (int i = 0; i < B; i++)
            host[i] = r * B + i;
        mine[r] = upload(r, host, B * sizeof *host);
        all[r] = upload(r, NULL, (size_t)B * ndev * sizeof *host);
    }
    CHECK_STATUS(cudyn_nccl_group_start(), CUDYN_OK);
    for (int r = 0; r < ndev; r++)
        CHECK_STATUS(cudyn_nccl_all_gather(comms[r], mine[r], all[r], B, 'i', NULL), CUDYN_OK);
    CHECK_STATUS(cudyn_nccl_group_end(), CUDYN_OK);
    for (int r = 0; r < ndev; r++) {
        download(r, host, all[r], (size_t)B * ndev * sizeof *host);
        int ok = 1;
        for (int i = 0; i < B * ndev; i++)
            ok &= host[i] == i;
        CHECK(ok);
    }
    CHECK_STATUS(cudyn_nccl_group_start(), CUDYN_OK);
    for (int r = 0; r < ndev; r++)
        CHECK_STATUS(cudyn_nccl_reduce_scatter(comms[r], all[r], mine[r], B, 'i', CUDYN_NCCL_MIN, NULL), CUDYN_OK);
    CHECK_STATUS(cudyn_nccl_group_end(), CUDYN_OK);
    for (int r = 0; r < ndev; r++) {
        download(r, host, mine[r], B * sizeof *host);
        CHECK(host[0] == r * B && host[B - 1] == r * B + B - 1);
        free_on(r, mine[r]);
        free_on(r, all[r]);
    }
    free(host);
}

/* A ring: every rank sends its block to the next and receives the
 * previous one's, in one group. */
static void ring(cudyn_nccl_comm *comms)
{
    cudyn_devptr out[MAX_DEV], in[MAX_DEV];
    float *host = malloc(N * sizeof *host);
    for (int r = 0; r < ndev; r++) {
        for (size_t i = 0; i < N; i++)
            host[i] = value(r, i);
        out[r] = upload(r, host, N * sizeof *host);
        in[r] = upload(r, NULL, N * sizeof *host);
    }
    CHECK_STATUS(cudyn_nccl_group_start(), CUDYN_OK);
    for (int r = 0; r < ndev; r++) {
        CHECK_STATUS(cudyn_nccl_send(comms[r], out[r], N, 'f', (r + 1) % ndev, NULL), CUDYN_OK);
        CHECK_STATUS(cudyn_nccl_recv(comms[r], in[r], N, 'f', (r + ndev - 1) % ndev, NULL), CUDYN_OK);
    }
    CHECK_STATUS(cudyn_nccl_group_end(), CUDYN_OK);
    for (int r = 0; r < ndev; r++) {
        download(r, host, in[r], N * sizeof *host);
        int from = (r + ndev - 1) % ndev;
        CHECK(host[0] == value(from, 0) && host[N - 1] == value(from, N - 1));
        free_on(r, out[r]);
        free_on(r, in[r]);
    }
    free(host);
}

/* Half, complex and the mean: the types and operations NCCL moves in
 * other forms. */
static void types_and_mean(cudyn_nccl_comm *comms)
{
    uint16_t half[4] = {0x3c00, 0x4000, 0x4200, 0xbc00}; /* 1, 2, 3, -1 */
    float complex_[4] = {1, 2, 3, 4};                    /* 1+2i, 3+4i */
    double mean[2] = {0, 0};
    cudyn_devptr h[MAX_DEV], c[MAX_DEV], m[MAX_DEV];
    for (int r = 0; r < ndev; r++) {
        double mine[2] = {(double)r, 10.0 * r};
        h[r] = upload(r, half, sizeof half);
        c[r] = upload(r, complex_, sizeof complex_);
        m[r] = upload(r, mine, sizeof mine);
    }
    CHECK_STATUS(cudyn_nccl_group_start(), CUDYN_OK);
    for (int r = 0; r < ndev; r++) {
        CHECK_STATUS(cudyn_nccl_all_reduce(comms[r], h[r], h[r], 4, 'e', CUDYN_NCCL_SUM, NULL), CUDYN_OK);
        CHECK_STATUS(cudyn_nccl_all_reduce(comms[r], c[r], c[r], 2, 'F', CUDYN_NCCL_SUM, NULL), CUDYN_OK);
        CHECK_STATUS(cudyn_nccl_all_reduce(comms[r], m[r], m[r], 2, 'd', CUDYN_NCCL_AVG, NULL), CUDYN_OK);
    }
    CHECK_STATUS(cudyn_nccl_group_end(), CUDYN_OK);
    download(0, half, h[0], sizeof half);
    download(0, complex_, c[0], sizeof complex_);
    download(0, mean, m[0], sizeof mean);
    uint16_t want_half[4] = {0x3c00, 0x4000, 0x4200, 0xbc00};
    if (ndev == 3)
        memcpy(want_half, (uint16_t[]){0x4200, 0x4600, 0x4880, 0xc200}, sizeof want_half); /* 3, 6, 9, -3 */
    else if (ndev == 2)
        memcpy(want_half, (uint16_t[]){0x4000, 0x4400, 0x4600, 0xc000}, sizeof want_half); /* 2, 4, 6, -2 */
    CHECK(memcmp(half, want_half, sizeof half) == 0);
    CHECK(complex_[0] == ndev * 1.0f && complex_[1] == ndev * 2.0f && complex_[3] == ndev * 4.0f);
    CHECK(mean[0] == (ndev - 1) / 2.0 && mean[1] == 10.0 * (ndev - 1) / 2.0);
    for (int r = 0; r < ndev; r++) {
        free_on(r, h[r]);
        free_on(r, c[r]);
        free_on(r, m[r]);
    }
}

/* ------------------------------------------------- a thread per rank */

struct rank_thread {
    cudyn_nccl_comm comm;
    int rank;
    int status;
    float got_first, got_last;
};

static void *rank_main(void *arg)
{
    struct rank_thread *t = arg;
    float *host = malloc(N * sizeof *host);
    for (size_t i = 0; i < N; i++)
        host[i] = value(t->rank, i);
    cudyn_devptr send = upload(t->rank, host, N * sizeof *host), recv = upload(t->rank, NULL, N * sizeof *host);
    cudyn_stream s = NULL;
    t->status = cudyn_stream_create(&s, CUDYN_STREAM_NON_BLOCKING);
    if (t->status == CUDYN_OK)
        t->status = cudyn_nccl_all_reduce(t->comm, send, recv, N, 'f', CUDYN_NCCL_SUM, s);
    if (t->status == CUDYN_OK)
        t->status = cudyn_nccl_comm_wait(t->comm, s, 60000);
    if (t->status == CUDYN_OK)
        t->status = cudyn_memcpy_dtoh(host, recv, N * sizeof *host);
    t->got_first = host[0];
    t->got_last = host[N - 1];
    cudyn_stream_destroy(s);
    cudyn_mem_free(send);
    cudyn_mem_free(recv);
    free(host);
    return NULL;
}

static void thread_per_rank(cudyn_nccl_comm *comms)
{
    pthread_t threads[MAX_DEV];
    struct rank_thread t[MAX_DEV];
    for (int r = 0; r < ndev; r++) {
        t[r] = (struct rank_thread){.comm = comms[r], .rank = r};
        CHECK(pthread_create(&threads[r], NULL, rank_main, &t[r]) == 0);
    }
    float first = 0, last = 0;
    for (int r = 0; r < ndev; r++) {
        first += value(r, 0);
        last += value(r, N - 1);
    }
    for (int r = 0; r < ndev; r++) {
        pthread_join(threads[r], NULL);
        CHECK_STATUS(t[r].status, CUDYN_OK);
        CHECK(t[r].got_first == first && t[r].got_last == last);
    }
}

/* Ranks 0 and 2 (color 0, in reverse order of their keys) and rank 1
 * alone (color 1); a rank of no color gets no communicator. */
static void split(cudyn_nccl_comm *comms)
{
    if (ndev < 3)
        return;
    cudyn_nccl_comm sub[MAX_DEV];
    int colors[] = {0, 1, 0}, keys[] = {5, 0, 1};
    CHECK_STATUS(cudyn_nccl_group_start(), CUDYN_OK);
    for (int r = 0; r < ndev; r++)
        CHECK_STATUS(cudyn_nccl_comm_split(comms[r], colors[r], keys[r], &sub[r]), CUDYN_OK);
    CHECK_STATUS(cudyn_nccl_group_end(), CUDYN_OK);
    int rank = -1, nranks = 0, device = -1;
    CHECK_STATUS(cudyn_nccl_comm_rank(sub[0], &rank, &nranks, &device), CUDYN_OK);
    CHECK(rank == 1 && nranks == 2 && device == 0);
    CHECK_STATUS(cudyn_nccl_comm_rank(sub[2], &rank, &nranks, NULL), CUDYN_OK);
    CHECK(rank == 0 && nranks == 2);
    CHECK_STATUS(cudyn_nccl_comm_rank(sub[1], &rank, &nranks, NULL), CUDYN_OK);
    CHECK(rank == 0 && nranks == 1);
    int32_t one = 1, got = 0;
    cudyn_devptr b0 = upload(0, &one, sizeof one), b2 = upload(2, &one, sizeof one);
    CHECK_STATUS(cudyn_nccl_group_start(), CUDYN_OK);
    CHECK_STATUS(cudyn_nccl_all_reduce(sub[0], b0, b0, 1, 'i', CUDYN_NCCL_SUM, NULL), CUDYN_OK);
    CHECK_STATUS(cudyn_nccl_all_reduce(sub[2], b2, b2, 1, 'i', CUDYN_NCCL_SUM, NULL), CUDYN_OK);
    CHECK_STATUS(cudyn_nccl_group_end(), CUDYN_OK);
    download(2, &got, b2, sizeof got);
    CHECK_EQ_INT(got, 2);
    free_on(0, b0);
    free_on(2, b2);
    cudyn_nccl_comm none[MAX_DEV];
    CHECK_STATUS(cudyn_nccl_group_start(), CUDYN_OK);
    for (int r = 0; r < ndev; r++)
        CHECK_STATUS(cudyn_nccl_comm_split(comms[r], r == 1 ? CUDYN_NCCL_NO_COLOR : 0, r, &none[r]), CUDYN_OK);
    CHECK_STATUS(cudyn_nccl_group_end(), CUDYN_OK);
    CHECK(none[1] == NULL && none[0] != NULL && none[2] != NULL);
    for (int r = 0; r < ndev; r++) {
        CHECK_STATUS(cudyn_nccl_comm_destroy(sub[r]), CUDYN_OK);
        CHECK_STATUS(cudyn_nccl_comm_destroy(none[r]), CUDYN_OK);
    }
}

/* ------------------------------------------------------ bad arguments */

static void bad_buffers(cudyn_nccl_comm c)
{
    cudyn_devptr small = upload(0, NULL, 64);
    float host[16];
    /* not device memory; 0 */
    CHECK_STATUS(cudyn_nccl_broadcast(c, (cudyn_devptr)(uintptr_t)host, small, 4, 'f', 0, NULL),
                 CUDYN_ERROR_INVALID_ARGUMENT);
    CHECK_CONTAINS(message(), "no memory CUDA knows");
    CHECK_STATUS(cudyn_nccl_recv(c, 0, 4, 'f', 0, NULL), CUDYN_ERROR_INVALID_ARGUMENT);
    CHECK_CONTAINS(message(), "must be device memory");
    /* a count whose bytes overflow */
    CHECK_STATUS(cudyn_nccl_all_reduce(c, small, small, SIZE_MAX / 2, 'f', CUDYN_NCCL_SUM, NULL),
                 CUDYN_ERROR_INVALID_ARGUMENT);
    CHECK_CONTAINS(message(), "overflow");
    if (!mock) { /* what follows needs the allocation's exact size, which the mock driver reports */
        free_on(0, small);
        return;
    }
    /* past the end of the allocation: 17 floats in 64 bytes */
    CHECK_STATUS(cudyn_nccl_all_reduce(c, small, small, 17, 'f', CUDYN_NCCL_SUM, NULL), CUDYN_ERROR_INVALID_ARGUMENT);
    CHECK_CONTAINS(message(), "run past the end of its allocation (64 bytes");
    CHECK_STATUS(cudyn_nccl_all_reduce(c, small + 8, small, 15, 'f', CUDYN_NCCL_SUM, NULL),
                 CUDYN_ERROR_INVALID_ARGUMENT);
    CHECK_CONTAINS(message(), "argument 'send'");
    if (ndev >= 2) { /* the send fits, the gathered blocks do not */
        CHECK_STATUS(cudyn_nccl_all_gather(c, small, small, 16 / ndev + 1, 'f', NULL), CUDYN_ERROR_INVALID_ARGUMENT);
        CHECK_CONTAINS(message(), "argument 'recv'");
    }
    CHECK_STATUS(cudyn_nccl_send(c, small, 9, 'd', 0, NULL), CUDYN_ERROR_INVALID_ARGUMENT);
    if (ndev >= 2) { /* memory of another device than the communicator's */
        cudyn_devptr elsewhere = upload(1, NULL, 64);
        CHECK_STATUS(cudyn_nccl_all_reduce(c, small, elsewhere, 4, 'f', CUDYN_NCCL_SUM, NULL),
                     CUDYN_ERROR_INVALID_ARGUMENT);
        CHECK_CONTAINS(message(), "argument 'recv'");
        CHECK_CONTAINS(message(), "lives on device 1, the communicator's is device 0");
        free_on(1, elsewhere);
        CHECK_STATUS(cudyn_device_use(0), CUDYN_OK);
    }
    /* a count of 0 moves nothing and needs no buffer */
    CHECK_STATUS(cudyn_nccl_send(c, 0, 0, 'f', 0, NULL), CUDYN_OK);
    free_on(0, small);
}

static void bad_arguments(cudyn_nccl_comm *comms)
{
    cudyn_nccl_comm c = comms[0];
    cudyn_devptr b = upload(0, NULL, 4096);
    CHECK_STATUS(cudyn_nccl_all_reduce(NULL, b, b, 4, 'f', CUDYN_NCCL_SUM, NULL), CUDYN_ERROR_INVALID_ARGUMENT);
    CHECK_CONTAINS(message(), "'comm' must not be NULL");
    CHECK_STATUS(cudyn_nccl_all_reduce(c, b, b, 4, 'h', CUDYN_NCCL_SUM, NULL), CUDYN_ERROR_INVALID_ARGUMENT);
    CHECK_CONTAINS(message(), "launch-format character NCCL can carry");
    CHECK_STATUS(cudyn_nccl_all_reduce(c, b, b, 4, 'x', CUDYN_NCCL_SUM, NULL), CUDYN_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(cudyn_nccl_all_reduce(c, b, b, 4, 'f', 5, NULL), CUDYN_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(cudyn_nccl_all_reduce(c, b, b, 4, 'f', -1, NULL), CUDYN_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(cudyn_nccl_reduce_scatter(c, b, b, 1, 'D', CUDYN_NCCL_MAX, NULL), CUDYN_ERROR_INVALID_ARGUMENT);
    CHECK_CONTAINS(message(), "complex");
    CHECK_STATUS(cudyn_nccl_broadcast(c, b, b, 4, 'f', ndev, NULL), CUDYN_ERROR_INVALID_ARGUMENT);
    CHECK_CONTAINS(message(), "root");
    CHECK_STATUS(cudyn_nccl_reduce(c, b, b, 4, 'f', CUDYN_NCCL_SUM, -1, NULL), CUDYN_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(cudyn_nccl_send(c, b, 4, 'f', ndev, NULL), CUDYN_ERROR_INVALID_ARGUMENT);
    CHECK_CONTAINS(message(), "peer");
    CHECK_STATUS(cudyn_nccl_recv(c, b, 4, 'f', -2, NULL), CUDYN_ERROR_INVALID_ARGUMENT);
    int rank = -1;
    CHECK_STATUS(cudyn_nccl_comm_rank(NULL, &rank, NULL, NULL), CUDYN_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(cudyn_nccl_comm_rank(c, NULL, NULL, NULL), CUDYN_OK);
    CHECK_STATUS(cudyn_nccl_comm_check(NULL), CUDYN_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(cudyn_nccl_comm_wait(NULL, NULL, 0), CUDYN_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(cudyn_nccl_comm_abort(NULL), CUDYN_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(cudyn_nccl_comm_destroy(NULL), CUDYN_OK);
    cudyn_nccl_comm out = (cudyn_nccl_comm)1;
    CHECK_STATUS(cudyn_nccl_comm_split(c, -2, 0, &out), CUDYN_ERROR_INVALID_ARGUMENT);
    CHECK(out == NULL);
    CHECK_STATUS(cudyn_nccl_comm_split(c, 0, 0, NULL), CUDYN_ERROR_INVALID_ARGUMENT);
    /* not a communicator cudyn made */
    int junk[16] = {0};
    CHECK_STATUS(cudyn_nccl_all_reduce((cudyn_nccl_comm)(void *)junk, b, b, 4, 'f', CUDYN_NCCL_SUM, NULL),
                 CUDYN_ERROR_INVALID_HANDLE);
    CHECK_CONTAINS(message(), "not a live communicator");
    bad_buffers(c);
    free_on(0, b);
}

static void bad_inits(void)
{
    cudyn_nccl_id id;
    cudyn_nccl_comm c = (cudyn_nccl_comm)1;
    CHECK_STATUS(cudyn_nccl_unique_id(NULL), CUDYN_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(cudyn_nccl_unique_id(&id), CUDYN_OK);
    CHECK_STATUS(cudyn_nccl_comm_init_rank(NULL, 2, &id, 0), CUDYN_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(cudyn_nccl_comm_init_rank(&c, 2, NULL, 0), CUDYN_ERROR_INVALID_ARGUMENT);
    CHECK(c == NULL);
    CHECK_STATUS(cudyn_nccl_comm_init_rank(&c, 0, &id, 0), CUDYN_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(cudyn_nccl_comm_init_rank(&c, 2, &id, 2), CUDYN_ERROR_INVALID_ARGUMENT);
    CHECK_CONTAINS(message(), "rank 2 is not a rank of 2");
    CHECK_STATUS(cudyn_nccl_comm_init_rank(&c, 2, &id, -1), CUDYN_ERROR_INVALID_ARGUMENT);
    cudyn_nccl_comm comms[2];
    CHECK_STATUS(cudyn_nccl_comm_init_all(NULL, 1, NULL), CUDYN_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(cudyn_nccl_comm_init_all(comms, 0, NULL), CUDYN_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(cudyn_nccl_comm_init_all(comms, 2, (int[]){0, 99}), CUDYN_ERROR_INVALID_DEVICE);
    CHECK_CONTAINS(message(), "devices[1] is 99, not a device of this process");
    CHECK(comms[0] == NULL && comms[1] == NULL);
}

/* A group in which one call fails starts none of its calls: the end
 * returns that failure, and no rank waits for a partner that never comes.
 * Groups nest; only the outermost end starts them. */
static void failed_group(cudyn_nccl_comm *comms)
{
    float one = 1, got = 0;
    cudyn_devptr b[MAX_DEV];
    for (int r = 0; r < ndev; r++)
        b[r] = upload(r, &one, sizeof one);
    CHECK_STATUS(cudyn_nccl_group_start(), CUDYN_OK);
    CHECK_STATUS(cudyn_nccl_group_start(), CUDYN_OK);
    for (int r = 0; r < ndev; r++)
        CHECK_STATUS(cudyn_nccl_all_reduce(comms[r], b[r], b[r], 1, r == ndev - 1 ? 'x' : 'f', CUDYN_NCCL_SUM, NULL),
                     r == ndev - 1 ? CUDYN_ERROR_INVALID_ARGUMENT : CUDYN_OK);
    CHECK_STATUS(cudyn_nccl_group_end(), CUDYN_OK); /* inner: nothing starts yet */
    CHECK_STATUS(cudyn_nccl_group_end(), CUDYN_ERROR_INVALID_ARGUMENT);
    CHECK_CONTAINS(message(), "'dtype'");
    download(0, &got, b[0], sizeof got);
    CHECK(got == 1.0f); /* rank 0's all-reduce never ran */
    CHECK_STATUS(cudyn_nccl_group_end(), CUDYN_ERROR_INVALID_ARGUMENT);
    CHECK_CONTAINS(message(), "no group was started on this thread");
    /* the next group is whole again */
    CHECK_STATUS(cudyn_nccl_group_start(), CUDYN_OK);
    for (int r = 0; r < ndev; r++)
        CHECK_STATUS(cudyn_nccl_all_reduce(comms[r], b[r], b[r], 1, 'f', CUDYN_NCCL_SUM, NULL), CUDYN_OK);
    CHECK_STATUS(cudyn_nccl_group_end(), CUDYN_OK);
    download(0, &got, b[0], sizeof got);
    CHECK(got == (float)ndev);
    for (int r = 0; r < ndev; r++)
        free_on(r, b[r]);
}

/* A destroyed communicator is refused, and an aborted one until it is
 * destroyed. */
static void destroyed_and_aborted(void)
{
    cudyn_nccl_comm c[1];
    cudyn_devptr b = upload(0, NULL, 64);
    CHECK_STATUS(cudyn_nccl_comm_init_all(c, 1, NULL), CUDYN_OK);
    CHECK_STATUS(cudyn_nccl_comm_abort(c[0]), CUDYN_OK);
    CHECK_STATUS(cudyn_nccl_all_reduce(c[0], b, b, 4, 'f', CUDYN_NCCL_SUM, NULL), CUDYN_ERROR_INVALID_HANDLE);
    CHECK_CONTAINS(message(), "was aborted");
    CHECK_STATUS(cudyn_nccl_comm_abort(c[0]), CUDYN_ERROR_INVALID_HANDLE);
    CHECK_STATUS(cudyn_nccl_comm_destroy(c[0]), CUDYN_OK);
    CHECK_STATUS(cudyn_nccl_comm_init_all(c, 1, NULL), CUDYN_OK);
    cudyn_nccl_comm gone = c[0];
    CHECK_STATUS(cudyn_nccl_comm_destroy(gone), CUDYN_OK);
    CHECK_STATUS(cudyn_nccl_all_reduce(gone, b, b, 4, 'f', CUDYN_NCCL_SUM, NULL), CUDYN_ERROR_INVALID_HANDLE);
    CHECK_STATUS(cudyn_nccl_comm_destroy(gone), CUDYN_ERROR_INVALID_HANDLE);
    CHECK_STATUS(cudyn_nccl_comm_wait(gone, NULL, 0), CUDYN_ERROR_INVALID_HANDLE);
    free_on(0, b);
}

/* A group not yet ended holds the communicators it will hand to NCCL
 * (calls kept for its end) or NCCL finishes there (an init, a split):
 * destroy, abort and wait refuse them, so that the end never meets a
 * freed or aborted one; after the end they work again. */
static void held_by_a_group(cudyn_nccl_comm *comms)
{
    float one = 1, got = 0;
    cudyn_devptr b[MAX_DEV];
    for (int r = 0; r < ndev; r++)
        b[r] = upload(r, &one, sizeof one);
    CHECK_STATUS(cudyn_nccl_group_start(), CUDYN_OK);
    for (int r = 0; r < ndev; r++)
        CHECK_STATUS(cudyn_nccl_all_reduce(comms[r], b[r], b[r], 1, 'f', CUDYN_NCCL_SUM, NULL), CUDYN_OK);
    CHECK_STATUS(cudyn_nccl_comm_destroy(comms[0]), CUDYN_ERROR_INVALID_ARGUMENT);
    CHECK_CONTAINS(message(), "in use by a group not yet ended");
    CHECK_CONTAINS(message(), "cudyn_nccl_group_end");
    CHECK_STATUS(cudyn_nccl_comm_abort(comms[0]), CUDYN_ERROR_INVALID_ARGUMENT);
    CHECK_CONTAINS(message(), "in use by a group not yet ended");
    CHECK_STATUS(cudyn_nccl_comm_wait(comms[0], NULL, 0), CUDYN_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(cudyn_nccl_group_end(), CUDYN_OK); /* the refusals did not fail the group */
    download(0, &got, b[0], sizeof got);
    CHECK(got == (float)ndev);
    CHECK_STATUS(cudyn_nccl_comm_wait(comms[0], NULL, 1000), CUDYN_OK); /* the end let go */
    for (int r = 0; r < ndev; r++)
        free_on(r, b[r]);
    /* made inside a group: NCCL writes the handle at the end */
    cudyn_nccl_comm made[1] = {NULL};
    CHECK_STATUS(cudyn_nccl_group_start(), CUDYN_OK);
    CHECK_STATUS(cudyn_nccl_comm_init_all(made, 1, NULL), CUDYN_OK);
    CHECK_STATUS(cudyn_nccl_comm_destroy(made[0]), CUDYN_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(cudyn_nccl_group_end(), CUDYN_OK);
    if (cudyn_has("ncclCommSplit")) {
        cudyn_nccl_comm sub = NULL;
        CHECK_STATUS(cudyn_nccl_group_start(), CUDYN_OK);
        CHECK_STATUS(cudyn_nccl_comm_split(made[0], 0, 0, &sub), CUDYN_OK);
        CHECK_STATUS(cudyn_nccl_comm_destroy(sub), CUDYN_ERROR_INVALID_ARGUMENT);
        CHECK_STATUS(cudyn_nccl_comm_destroy(made[0]), CUDYN_ERROR_INVALID_ARGUMENT); /* NCCL splits it at the end */
        CHECK_STATUS(cudyn_nccl_comm_abort(made[0]), CUDYN_ERROR_INVALID_ARGUMENT);
        CHECK_STATUS(cudyn_nccl_group_end(), CUDYN_OK);
        CHECK_STATUS(cudyn_nccl_comm_destroy(sub), CUDYN_OK);
    }
    CHECK_STATUS(cudyn_nccl_comm_destroy(made[0]), CUDYN_OK);
    /* a failed group lets go too */
    CHECK_STATUS(cudyn_nccl_group_start(), CUDYN_OK);
    CHECK_STATUS(cudyn_nccl_comm_init_all(made, 1, NULL), CUDYN_OK);
    CHECK_STATUS(cudyn_nccl_all_reduce(made[0], 0, 0, 1, 'x', CUDYN_NCCL_SUM, NULL), CUDYN_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(cudyn_nccl_group_end(), CUDYN_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(cudyn_nccl_comm_destroy(made[0]), CUDYN_OK);
}

/* Every int is checked as an operation where a call reduces, INT_MIN too
 * (once cudyn's own "no operation"), and a stream is the driver's before
 * NCCL sees it: none of these reaches NCCL. */
static void ops_and_streams_checked(cudyn_nccl_comm c)
{
    cudyn_devptr b = upload(0, NULL, 64);
    long all_reduces = mock ? mock_nccl_call_count("ncclAllReduce") : 0;
    CHECK_STATUS(cudyn_nccl_all_reduce(c, b, b, 4, 'f', INT_MIN, NULL), CUDYN_ERROR_INVALID_ARGUMENT);
    CHECK_CONTAINS(message(), "'op' must be a cudyn_nccl_op");
    CHECK_STATUS(cudyn_nccl_reduce(c, b, b, 4, 'f', INT_MIN, 0, NULL), CUDYN_ERROR_INVALID_ARGUMENT);
    CHECK_CONTAINS(message(), "'op'");
    CHECK_STATUS(cudyn_nccl_reduce_scatter(c, b, b, 4 / ndev, 'f', INT_MIN, NULL), CUDYN_ERROR_INVALID_ARGUMENT);
    CHECK_CONTAINS(message(), "'op'");
    if (mock) { /* a real driver may read through a made-up handle: the mock looks it up */
        cudyn_stream made_up = (cudyn_stream)(uintptr_t)12345;
        CHECK_STATUS(cudyn_nccl_all_reduce(c, b, b, 4, 'f', CUDYN_NCCL_SUM, made_up), CUDYN_ERROR_INVALID_HANDLE);
        CHECK_CONTAINS(message(), "argument 'stream' (0x3039) is not a stream of the driver");
        CHECK_STATUS(cudyn_nccl_send(c, b, 4, 'f', 0, made_up), CUDYN_ERROR_INVALID_HANDLE);
        CHECK_STATUS(cudyn_stream_query(made_up), CUDYN_ERROR_INVALID_HANDLE); /* as cudyn's own waits say */
        CHECK_EQ_INT(mock_nccl_call_count("ncclAllReduce"), all_reduces);
    }
    cudyn_stream s = NULL;
    CHECK_STATUS(cudyn_stream_create(&s, 0), CUDYN_OK);
    if (ndev == 1) {
        CHECK_STATUS(cudyn_nccl_all_reduce(c, b, b, 4, 'f', CUDYN_NCCL_SUM, s), CUDYN_OK); /* a real one goes */
        CHECK_STATUS(cudyn_nccl_comm_wait(c, s, 10000), CUDYN_OK);
    }
    CHECK_STATUS(cudyn_stream_destroy(s), CUDYN_OK);
    free_on(0, b);
}

/* In a child forked after CUDA was initialised, a communicator is the
 * parent's: destroying it there frees cudyn's handle, says the process
 * was forked, and never calls ncclCommDestroy on the parent's NCCL state. */
static void destroyed_in_a_forked_child(void)
{
    cudyn_nccl_comm c[1];
    CHECK_STATUS(cudyn_nccl_comm_init_all(c, 1, NULL), CUDYN_OK);
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        long before = mock_nccl_call_count("ncclCommDestroy");
        int st = cudyn_nccl_comm_destroy(c[0]);
        int ok = st == CUDYN_ERROR_FORKED && strstr(message(), "forked") &&
                 mock_nccl_call_count("ncclCommDestroy") == before &&
                 cudyn_nccl_comm_destroy(c[0]) == CUDYN_ERROR_INVALID_HANDLE; /* the handle is gone */
        if (!ok)
            fprintf(stderr, "test_nccl: destroy in a forked child gave %s: %s\n", cudyn_status_name(st), message());
        _exit(ok ? 0 : 1);
    }
    int status = 0;
    CHECK(pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0);
    CHECK_STATUS(cudyn_nccl_comm_destroy(c[0]), CUDYN_OK); /* the parent's is whole */
}

/* ---------------------------------------- NCCL's failures (the mock) */

static void nccl_failures(cudyn_nccl_comm *comms)
{
    cudyn_devptr b = upload(0, NULL, 64);
    mock_nccl_fail("ncclAllReduce", 1 /* ncclUnhandledCudaError */);
    CHECK_STATUS(cudyn_nccl_all_reduce(comms[0], b, b, 4, 'f', CUDYN_NCCL_SUM, NULL), CUDYN_ERROR_DRIVER);
    cudyn_error e = {.size = sizeof e};
    cudyn_last_error(&e);
    CHECK_EQ_INT(e.origin, CUDYN_ORIGIN_NCCL);
    CHECK_EQ_INT(e.native_code, 1);
    CHECK(strcmp(e.native_name, "ncclUnhandledCudaError") == 0);
    CHECK(strcmp(e.function, "ncclAllReduce") == 0);
    CHECK_CONTAINS(e.message, "NCCL says: mock NCCL: ncclAllReduce failed as MOCK_NCCL_FAIL asked");
    mock_nccl_fail("ncclGroupEnd", 6 /* ncclRemoteError */);
    CHECK_STATUS(cudyn_nccl_group_start(), CUDYN_OK);
    CHECK_STATUS(cudyn_nccl_group_end(), CUDYN_ERROR_NCCL_REMOTE);
    cudyn_last_error(&e);
    CHECK_CONTAINS(e.hint, "peer rank");
    mock_nccl_fail("ncclCommInitAll", 2 /* ncclSystemError */);
    cudyn_nccl_comm c[1] = {NULL};
    CHECK_STATUS(cudyn_nccl_comm_init_all(c, 1, NULL), CUDYN_ERROR_SYSTEM);
    CHECK(c[0] == NULL);
    mock_nccl_fail("ncclGetUniqueId", 3 /* ncclInternalError */);
    cudyn_nccl_id id;
    CHECK_STATUS(cudyn_nccl_unique_id(&id), CUDYN_ERROR_NCCL);
    CHECK_CONTAINS(message(), "ncclGetUniqueId returned ncclInternalError");
    mock_nccl_fail("ncclCommGetAsyncError", 5 /* ncclInvalidUsage */);
    CHECK_STATUS(cudyn_nccl_comm_check(comms[0]), CUDYN_ERROR_NCCL);
    free_on(0, b);
}

/* A collective whose peer stops answering: the call succeeds (the work
 * is queued), the stream never finishes, and the wait turns NCCL's
 * asynchronous error into a status, aborting the communicator; a silent
 * hang ends at the wait's timeout, aborted too. */
static void async_errors(void)
{
    cudyn_nccl_comm c[1];
    cudyn_devptr b = upload(0, NULL, 64);
    CHECK_STATUS(cudyn_nccl_comm_init_all(c, 1, NULL), CUDYN_OK);
    CHECK_STATUS(cudyn_nccl_all_reduce(c[0], b, b, 4, 'f', CUDYN_NCCL_SUM, NULL), CUDYN_OK);
    CHECK_STATUS(cudyn_nccl_comm_wait(c[0], NULL, 60000), CUDYN_OK);
    mock_nccl_hang(50);
    CHECK_STATUS(cudyn_nccl_all_reduce(c[0], b, b, 4, 'f', CUDYN_NCCL_SUM, NULL), CUDYN_OK);
    CHECK_STATUS(cudyn_stream_query(NULL), CUDYN_ERROR_NOT_READY);
    CHECK_STATUS(cudyn_nccl_comm_wait(c[0], NULL, 60000), CUDYN_ERROR_NCCL_REMOTE); /* long before the timeout */
    CHECK_CONTAINS(message(), "a peer stopped answering");
    CHECK_CONTAINS(message(), "the communicator was aborted");
    CHECK_STATUS(cudyn_stream_query(NULL), CUDYN_OK); /* the abort ended the work */
    CHECK_STATUS(cudyn_nccl_comm_check(c[0]), CUDYN_ERROR_INVALID_HANDLE);
    CHECK_STATUS(cudyn_nccl_comm_destroy(c[0]), CUDYN_OK);

    CHECK_STATUS(cudyn_nccl_comm_init_all(c, 1, NULL), CUDYN_OK);
    mock_nccl_hang(-1);
    CHECK_STATUS(cudyn_nccl_all_reduce(c[0], b, b, 4, 'f', CUDYN_NCCL_SUM, NULL), CUDYN_OK);
    CHECK_STATUS(cudyn_nccl_comm_check(c[0]), CUDYN_OK); /* no error: it just never ends */
    CHECK_STATUS(cudyn_nccl_comm_wait(c[0], NULL, 100), CUDYN_ERROR_TIMEOUT);
    CHECK_CONTAINS(message(), "did not finish within 100 ms");
    CHECK_STATUS(cudyn_nccl_all_reduce(c[0], b, b, 4, 'f', CUDYN_NCCL_SUM, NULL), CUDYN_ERROR_INVALID_HANDLE);
    CHECK_STATUS(cudyn_nccl_comm_destroy(c[0]), CUDYN_OK);

    CHECK_STATUS(cudyn_nccl_comm_init_all(c, 1, NULL), CUDYN_OK);
    mock_nccl_hang(0);
    CHECK_STATUS(cudyn_nccl_all_reduce(c[0], b, b, 4, 'f', CUDYN_NCCL_SUM, NULL), CUDYN_OK);
    CHECK_STATUS(cudyn_nccl_comm_check(c[0]), CUDYN_ERROR_NCCL_REMOTE); /* reported, not aborted */
    CHECK_STATUS(cudyn_nccl_comm_abort(c[0]), CUDYN_OK);
    CHECK_STATUS(cudyn_nccl_comm_destroy(c[0]), CUDYN_OK);
    free_on(0, b);
}

/* ---------------------------------------------- two processes, one id */

/* Rank `rank` of two: joins through the id, all-reduces, checks. */
static int process_rank(const cudyn_nccl_id *id, int rank)
{
    int32_t mine[N / 4], want = 0;
    for (int r = 0; r < 2; r++)
        want += r + 1;
    for (int i = 0; i < N / 4; i++)
        mine[i] = (rank + 1) * (i + 1);
    cudyn_nccl_comm c = NULL;
    CHECK_STATUS(cudyn_device_use(rank % ndev), CUDYN_OK);
    CHECK_STATUS(cudyn_nccl_comm_init_rank(&c, 2, id, rank), CUDYN_OK);
    int got_rank = -1, nranks = 0, device = -1;
    CHECK_STATUS(cudyn_nccl_comm_rank(c, &got_rank, &nranks, &device), CUDYN_OK);
    CHECK(got_rank == rank && nranks == 2 && device == rank % ndev);
    cudyn_devptr b = upload(rank % ndev, mine, sizeof mine);
    CHECK_STATUS(cudyn_nccl_all_reduce(c, b, b, N / 4, 'i', CUDYN_NCCL_SUM, NULL), CUDYN_OK);
    CHECK_STATUS(cudyn_nccl_comm_wait(c, NULL, 60000), CUDYN_OK);
    download(rank % ndev, mine, b, sizeof mine);
    CHECK(mine[0] == want && mine[N / 4 - 1] == want * (N / 4));
    free_on(rank % ndev, b);
    CHECK_STATUS(cudyn_nccl_comm_destroy(c), CUDYN_OK);
    return test_failures;
}

/* The id is made before CUDA is initialised (it needs no GPU), so the
 * child forked after it may use CUDA. */
static void two_processes(void)
{
    cudyn_nccl_id id;
    CHECK_STATUS(cudyn_nccl_unique_id(&id), CUDYN_OK);
    fflush(NULL);
    pid_t child = fork();
    if (child == 0)
        _exit(process_rank(&id, 1) ? 1 : 0);
    process_rank(&id, 0);
    int status = 0;
    CHECK(child > 0 && waitpid(child, &status, 0) == child && WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

/* ------------------------------- finding NCCL (each in its own process) */

/* Nothing to find: the status names what to install, and nothing of the
 * driver was loaded to say so. */
static int no_nccl(void)
{
    unsetenv("CUDYN_LIBNCCL");
    unsetenv("VIRTUAL_ENV");
    unsetenv("CONDA_PREFIX");
    setenv("HOME", "/nonexistent", 1);
    cudyn_nccl_id id;
    int st = cudyn_nccl_unique_id(&id);
    if (st == CUDYN_OK) {
        printf("no-nccl: this machine has an NCCL of its own; its absence is not tested here\n");
        return 0;
    }
    CHECK_STATUS(st, CUDYN_ERROR_NCCL_NOT_FOUND);
    cudyn_error e = {.size = sizeof e};
    cudyn_last_error(&e);
    CHECK_CONTAINS(e.message, "NCCL (libnccl.so.2) was not found");
    CHECK_CONTAINS(e.hint, "pip install nvidia-nccl-cu13");
    CHECK_CONTAINS(e.hint, "libnccl2");
    CHECK_STATUS(cudyn_nccl_group_start(), CUDYN_ERROR_NCCL_NOT_FOUND);
    CHECK(cudyn_has("ncclAllReduce") == 0);
    struct cudyn_nccl_info info = {.size = sizeof info};
    CHECK_STATUS(cudyn_nccl_info(&info), CUDYN_OK);
    CHECK_EQ_INT(info.status, CUDYN_ERROR_NCCL_NOT_FOUND);
    CHECK(info.path == NULL && info.version == 0);
    CHECK_CONTAINS(info.trace, "libnccl.so.2 [soname]");
    struct cudyn_loader_info l = {.size = sizeof l};
    CHECK_STATUS(cudyn_loader_info_ex(&l, CUDYN_LOAD_NOTHING), CUDYN_OK);
    CHECK_EQ_INT(l.driver_status, CUDYN_ERROR_NOT_READY);
    return test_result("test_nccl no-nccl");
}

/* CUDYN_LIBNCCL naming a FIFO is refused before dlopen could block on it
 * (it would wait for a writer forever): SIGALRM ends a hang as a failure. */
static int fifo_override(void)
{
    char dir[] = "/tmp/cudyn-nccl-fifo.XXXXXX", path[64];
    CHECK(mkdtemp(dir) != NULL);
    snprintf(path, sizeof path, "%s/libnccl.so.2", dir);
    CHECK(mkfifo(path, 0600) == 0);
    setenv("CUDYN_LIBNCCL", path, 1);
    alarm(60);
    cudyn_nccl_id id;
    CHECK_STATUS(cudyn_nccl_unique_id(&id), CUDYN_ERROR_NCCL_NOT_FOUND);
    CHECK_CONTAINS(message(), "is a FIFO, not a regular file: not opened");
    setenv("CUDYN_LIBNCCL", dir, 1); /* a directory holding it: the same */
    alarm(0);
    unlink(path);
    rmdir(dir);
    return test_result("test_nccl fifo");
}

/* Under secure execution (a setuid copy of this program, run by root as
 * another user) the program's own prefix is not searched: a libnccl.so.2
 * laid beside a link to a setuid program must never load.  The copy
 * lives in PREFIX/bin with the mock NCCL as the pip wheel lays it out
 * under PREFIX/lib/python3.11/site-packages. */
static int secure_child(void)
{
    struct cudyn_nccl_info info = {.size = sizeof info};
    CHECK_STATUS(cudyn_nccl_info(&info), CUDYN_OK);
    char self[4096];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    CHECK(n > 0);
    self[n > 0 ? n : 0] = '\0';
    *strrchr(self, '/') = '\0'; /* PREFIX/bin */
    *strrchr(self, '/') = '\0'; /* PREFIX */
    CHECK(geteuid() != getuid());
    CHECK(info.path == NULL || strncmp(info.path, self, strlen(self)) != 0);
    CHECK_CONTAINS(info.trace, "not searched under secure execution");
    if (info.path && strncmp(info.path, self, strlen(self)) == 0)
        fprintf(stderr, "test_nccl: a setuid program loaded %s from its own prefix\n", info.path);
    return test_result("test_nccl secure");
}

static void copy_file(const char *from, const char *to, mode_t mode)
{
    FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
    char buf[65536];
    size_t n;
    CHECK(in && out);
    while (in && out && (n = fread(buf, 1, sizeof buf, in)) > 0)
        CHECK(fwrite(buf, 1, n, out) == n);
    if (in)
        fclose(in);
    if (out)
        fclose(out);
    CHECK(chmod(to, mode) == 0);
}

#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#endif
#endif

static void secure_execution(void)
{
#ifdef UNDER_ASAN
    /* LeakSanitizer cannot stop the threads of a setuid process (it is not
     * dumpable), nor read its options there: the other builds run this */
    printf("secure: not under AddressSanitizer; not tested\n");
    return;
#endif
    if (geteuid() != 0) {
        printf("secure: not root, so no setuid copy of another user's can be made; not tested\n");
        return;
    }
    char root[] = "/tmp/cudyn-nccl-setuid.XXXXXX", path[256], self[4096];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    CHECK(mkdtemp(root) != NULL && n > 0 && chmod(root, 0755) == 0);
    self[n > 0 ? n : 0] = '\0';
    const char *dirs[] = {"bin", "lib", "lib/python3.11", "lib/python3.11/site-packages",
                          "lib/python3.11/site-packages/nvidia", "lib/python3.11/site-packages/nvidia/nccl",
                          "lib/python3.11/site-packages/nvidia/nccl/lib"};
    for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", root, dirs[i]);
        CHECK(mkdir(path, 0755) == 0);
    }
    snprintf(path, sizeof path, "%s/lib/python3.11/site-packages/nvidia/nccl/lib/libnccl.so.2", root);
    copy_file(getenv("MOCK_LIBNCCL"), path, 0755);
    snprintf(path, sizeof path, "%s/bin/test_nccl", root);
    copy_file(self, path, 0755);
    CHECK(chown(path, 65534, 65534) == 0 && chmod(path, 04755) == 0);
    int rc = run_self(path, "secure");
    if (rc == 127)
        printf("secure: the setuid copy could not run here (a nosuid /tmp?); not tested\n");
    else
        CHECK_EQ_INT(rc, 0);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    CHECK(system(cmd) == 0);
}

/* CUDYN_LIBNCCL set but unusable is the failure: no fall-through. */
static int bad_override(void)
{
    setenv("CUDYN_LIBNCCL", "/nonexistent/libnccl.so.2", 1);
    cudyn_nccl_id id;
    CHECK_STATUS(cudyn_nccl_unique_id(&id), CUDYN_ERROR_NCCL_NOT_FOUND);
    CHECK_CONTAINS(message(), "CUDYN_LIBNCCL=/nonexistent/libnccl.so.2 is not a usable NCCL");
    CHECK_CONTAINS(message(), "point CUDYN_LIBNCCL at libnccl.so.2");
    return test_result("test_nccl bad-override");
}

static int too_old(void)
{
    setenv("MOCK_NCCL_VERSION", "2604", 1);
    cudyn_nccl_id id;
    CHECK_STATUS(cudyn_nccl_unique_id(&id), CUDYN_ERROR_NCCL_NOT_FOUND);
    CHECK_CONTAINS(message(), "is NCCL 2.6.4, older than 2.7.3, the oldest cudyn uses");
    CHECK(cudyn_has("ncclAllReduce") == 0);
    return test_result("test_nccl too-old");
}

/* NCCL 2.12: no ncclCommSplit, no ncclGetLastError; and as 2.9, no mean. */
static int old_nccl(void)
{
    setenv("CUDYN_LIBNCCL", getenv("MOCK_LIBNCCL_OLD"), 1);
    struct cudyn_nccl_info info = {.size = sizeof info};
    CHECK_STATUS(cudyn_nccl_info(&info), CUDYN_OK);
    CHECK(cudyn_has("ncclCommSplit") == 0 && cudyn_has("ncclGetLastError") == 0 && cudyn_has("ncclSend") == 1);
    cudyn_nccl_comm c[1], sub;
    cudyn_devptr b = upload(0, NULL, 64);
    CHECK_STATUS(cudyn_nccl_comm_init_all(c, 1, NULL), CUDYN_OK);
    CHECK_STATUS(cudyn_nccl_comm_split(c[0], 0, 0, &sub), CUDYN_ERROR_NOT_SUPPORTED);
    CHECK_CONTAINS(message(), "has no ncclCommSplit, which came with NCCL 2.18");
    mock_nccl_fail("ncclAllReduce", 4 /* ncclInvalidArgument */);
    CHECK_STATUS(cudyn_nccl_all_reduce(c[0], b, b, 4, 'f', CUDYN_NCCL_SUM, NULL), CUDYN_ERROR_INVALID_ARGUMENT);
    CHECK_CONTAINS(message(), "ncclAllReduce returned ncclInvalidArgument (an argument is invalid)");
    CHECK(!strstr(message(), "NCCL says"));
    int st = cudyn_nccl_all_reduce(c[0], b, b, 4, 'f', CUDYN_NCCL_AVG, NULL);
    const char *v = getenv("MOCK_NCCL_VERSION");
    if (v && strcmp(v, "2904") == 0) {
        CHECK_STATUS(st, CUDYN_ERROR_NOT_SUPPORTED);
        CHECK_CONTAINS(message(), "CUDYN_NCCL_AVG needs NCCL 2.10 or newer");
    } else {
        CHECK_STATUS(st, CUDYN_OK);
        CHECK(info.version == 21212 && strcmp(info.version_string, "2.12.12") == 0);
    }
    CHECK_STATUS(cudyn_nccl_comm_destroy(c[0]), CUDYN_OK);
    free_on(0, b);
    return test_result("test_nccl old");
}

/* The pip wheel's layout: PREFIX/lib/python3.X/site-packages/nvidia/nccl/lib. */
static char *make_wheel(const char *tag)
{
    static char root[256];
    snprintf(root, sizeof root, "%s/tests/nccl-%s-%ld", getenv("top_builddir"), tag, (long)getpid());
    const char *parts[] = {"/lib", "/python3.11", "/site-packages", "/nvidia", "/nccl", "/lib"};
    char dir[512];
    snprintf(dir, sizeof dir, "%s", root);
    CHECK(mkdir(dir, 0700) == 0 || errno == EEXIST);
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++) {
        strcat(dir, parts[i]);
        CHECK(mkdir(dir, 0700) == 0 || errno == EEXIST);
    }
    strcat(dir, "/libnccl.so.2");
    CHECK(symlink(getenv("MOCK_LIBNCCL"), dir) == 0);
    return root;
}

static void remove_tree(const char *root)
{
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    CHECK(system(cmd) == 0);
}

/* Found in VIRTUAL_ENV's site-packages, or in the site-packages of a
 * library already loaded (a Python process). */
static int wheel(const char *how)
{
    unsetenv("CUDYN_LIBNCCL");
    char *root = make_wheel(how);
    if (strcmp(how, "venv") == 0) {
        setenv("VIRTUAL_ENV", root, 1);
    } else {
        char lib[512], nvml[512];
        snprintf(lib, sizeof lib, "%s/lib/python3.11/site-packages/nvidia/libloaded.so", root);
        snprintf(nvml, sizeof nvml, "%s/tests/mock/nvml/.libs/libnvidia-ml.so.1", getenv("top_builddir"));
        CHECK(symlink(nvml, lib) == 0);
        CHECK(dlopen(lib, RTLD_NOW | RTLD_LOCAL) != NULL);
    }
    struct cudyn_nccl_info info = {.size = sizeof info};
    CHECK_STATUS(cudyn_nccl_info(&info), CUDYN_OK);
    CHECK_STATUS(info.status, CUDYN_OK);
    CHECK(info.path && strncmp(info.path, root, strlen(root)) == 0);
    CHECK_CONTAINS(info.found_by, strcmp(how, "venv") == 0 ? "python env" : "loaded wheel");
    CHECK_CONTAINS(info.trace, "nvidia/nccl/lib/libnccl.so.2");
    remove_tree(root);
    return test_result(strcmp(how, "venv") == 0 ? "test_nccl wheel-venv" : "test_nccl wheel-loaded");
}

/* ------------------------------------------------------------- main */

static int in_process(void)
{
    struct cudyn_nccl_info info = {.size = sizeof info};
    CHECK_STATUS(cudyn_nccl_info(&info), CUDYN_OK);
    CHECK_STATUS(info.status, CUDYN_OK);
    printf("NCCL %s, %s [%s]\n", info.version_string, info.path, info.found_by);
    if (mock) {
        CHECK(info.version == 22809 && strcmp(info.version_string, "2.28.9") == 0);
        CHECK(strcmp(info.found_by, "CUDYN_LIBNCCL") == 0);
    }
    CHECK(cudyn_has("ncclCommGetAsyncError") == 1 && cudyn_has("ncclNoSuchFunction") == 0);
    bad_inits();
    cudyn_nccl_comm comms[MAX_DEV];
    CHECK_STATUS(cudyn_nccl_comm_init_all(comms, ndev, NULL), CUDYN_OK);
    for (int r = 0; r < ndev; r++) {
        int rank = -1, nranks = 0, device = -1;
        CHECK_STATUS(cudyn_nccl_comm_rank(comms[r], &rank, &nranks, &device), CUDYN_OK);
        CHECK(rank == r && nranks == ndev && device == r);
    }
    all_reduce_group(comms);
    broadcast_and_reduce(comms);
    gather_and_scatter(comms);
    ring(comms);
    types_and_mean(comms);
    thread_per_rank(comms);
    if (cudyn_has("ncclCommSplit"))
        split(comms);
    bad_arguments(comms);
    failed_group(comms);
    held_by_a_group(comms);
    ops_and_streams_checked(comms[0]);
    destroyed_and_aborted();
    if (mock) {
        destroyed_in_a_forked_child();
        nccl_failures(comms);
        async_errors();
    }
    for (int r = 0; r < ndev; r++)
        CHECK_STATUS(cudyn_nccl_comm_destroy(comms[r]), CUDYN_OK);
    if (mock)
        CHECK_EQ_INT(mock_nccl_comms(), 0);
    return test_result("test_nccl");
}

static int scenario(const char *name)
{
    const char *n = getenv("TEST_NCCL_DEVICES");
    ndev = n ? atoi(n) : 1;
    mock = strstr(getenv("CUDYN_LIBNCCL") ? getenv("CUDYN_LIBNCCL") : "", "tests/mock") != NULL;
    if (strcmp(name, "no-nccl") == 0)
        return no_nccl();
    if (strcmp(name, "bad-override") == 0)
        return bad_override();
    if (strcmp(name, "fifo") == 0)
        return fifo_override();
    if (strcmp(name, "secure") == 0)
        return secure_child();
    if (strcmp(name, "too-old") == 0)
        return too_old();
    if (strcmp(name, "old") == 0)
        return old_nccl();
    if (strcmp(name, "wheel-venv") == 0 || strcmp(name, "wheel-loaded") == 0)
        return wheel(name + 6);
    if (strcmp(name, "processes") == 0) {
        two_processes();
        return test_result("test_nccl processes");
    }
    fprintf(stderr, "test_nccl: unknown scenario %s\n", name);
    return 2;
}

/* The program's dynamic loader (its PT_INTERP), which dl_iterate_phdr
 * reports first. */
static int program_interpreter(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    for (ElfW(Half) i = 0; i < info->dlpi_phnum; i++)
        if (info->dlpi_phdr[i].p_type == PT_INTERP)
            *(const char **)data = (const char *)(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
    return 1;
}

/* Runs the scenario through the dynamic loader with its cache turned off
 * (ld.so --inhibit-cache): an NCCL that ldconfig knows of outside the
 * default directories (a CUDA toolkit's, as on some build machines) is not
 * found by soname then, so "no NCCL" can be tested there too. */
static int run_without_ld_cache(const char *name)
{
    const char *ld = NULL;
    dl_iterate_phdr(program_interpreter, &ld);
    char self[4096];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (!ld || access(ld, X_OK) != 0 || n <= 0)
        return -1;
    self[n] = '\0';
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        execl(ld, ld, "--inhibit-cache", self, name, (char *)NULL);
        _exit(127);
    }
    int status = 0;
    if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
        return -1;
    return WEXITSTATUS(status);
}

/* Runs a scenario in a fresh process with NAME=VALUE set there. */
static void run_scenario(const char *argv0, const char *name, const char *var, const char *value)
{
    char *saved = var && getenv(var) ? strdup(getenv(var)) : NULL;
    if (var)
        setenv(var, value, 1);
    int rc = strcmp(name, "no-nccl") == 0 ? run_without_ld_cache(name) : -1;
    if (rc != 0)
        rc = run_self(argv0, name);
    if (rc != 0)
        fprintf(stderr, "test_nccl: scenario %s%s%s%s exited %d\n", name, var ? " with " : "", var ? var : "",
                var ? "=..." : "", rc);
    CHECK_EQ_INT(rc, 0);
    if (saved)
        setenv(var, saved, 1);
    else if (var)
        unsetenv(var);
    free(saved);
}

int main(int argc, char **argv)
{
    if (argc == 2)
        return scenario(argv[1]);
    const char *real = getenv("CUDYN_LIBNCCL");
    mock = !real || strstr(real, "tests/mock");
    char count[16] = "3";
    if (mock) {
        use_mock_driver();
        if (!getenv("MOCK_LIBNCCL"))
            TEST_SKIP("MOCK_LIBNCCL not set (run through make check)");
        setenv("MOCK_CUDA_DEVICES", "A:90,B:90,C:90", 1);
        setenv("CUDYN_LIBNCCL", getenv("MOCK_LIBNCCL"), 1);
        run_scenario(argv[0], "no-nccl", "CUDYN_LIBNCCL", "");
        run_scenario(argv[0], "bad-override", "VIRTUAL_ENV", "/nonexistent");
        run_scenario(argv[0], "fifo", NULL, NULL);
        secure_execution();
        run_scenario(argv[0], "too-old", NULL, NULL);
        run_scenario(argv[0], "old", NULL, NULL);
        run_scenario(argv[0], "old", "MOCK_NCCL_VERSION", "2904");
        run_scenario(argv[0], "wheel-venv", NULL, NULL);
        run_scenario(argv[0], "wheel-loaded", NULL, NULL);
    } else { /* a real NCCL: on up to two real GPUs, counted without cuInit */
        int n = 0;
        if (cudyn_nvml_device_count(&n) != CUDYN_OK || n == 0)
            TEST_SKIP("CUDYN_LIBNCCL names a real NCCL, but NVML sees no GPU");
        snprintf(count, sizeof count, "%d", n < 2 ? n : 2);
    }
    setenv("TEST_NCCL_DEVICES", count, 1);
    if (atoi(count) >= 2) /* two ranks on one GPU is not allowed by NCCL */
        run_scenario(argv[0], "processes", NULL, NULL);
    ndev = atoi(count);
    return in_process() || test_failures ? 1 : 0;
}
