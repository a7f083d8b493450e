/*
 * saxpy.h - what cudyn-saxpy's parts share: the options, the phases of a
 * run, and one device's run (saxpy_device.c), which cudyn-saxpy.c starts,
 * one thread per device, and reports.
 */
#ifndef CUDYN_SAXPY_H
#define CUDYN_SAXPY_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

#include "common.h"
#include "cudyn.h"
#include "saxpy_host.h"

#define MAX_PHASES 20

struct options {
    const char *device; /* NULL: 0 */
    size_t n;
    int iters;
    bool pinned, naive;
    bool free_all; /* --free: run_release frees device and page-locked memory too */
    double timeout_s;
};

struct phase {
    const char *name;
    int status; /* cudyn_status */
    double ms;
    bool wrong; /* ran, but the result is wrong */
    char note[160];
    char error[1024];
    char hint[512];
};

/* Phases in the order they ran, and the one running now (for the watchdog). */
struct phases {
    struct phase list[MAX_PHASES];
    int n;
    _Atomic(const char *) now;
};

/* Names the phase now running; returns its start time (now_ms). */
double phase_begin(struct phases *ph, const char *name);
/* Records a phase that ran; returns it, for a note or an error. */
struct phase *phase_add(struct phases *ph, const char *name, int status, double ms);
/* The note of the phase recorded last. */
void phase_note(struct phases *ph, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Devices that time together wait here for each other, so the aggregate
 * bandwidth is that of all of them at once.  Each device arrives, or
 * leaves when it will not time, exactly once. */
struct rendezvous {
    pthread_mutex_t lock;
    pthread_cond_t all_here;
    int expected, arrived;
};
void rendezvous_init(struct rendezvous *r, int expected);
void rendezvous_leave(struct rendezvous *r);

struct bandwidth {
    double h2d, d2h;                /* the data copies, GB/s */
    double probe_h2d, probe_d2h;    /* pinned probe copies, GB/s */
    double kernel, copy, kernel_ms; /* the kernel and a device-to-device copy */
};

struct device_run {
    /* set before the run */
    int ordinal;
    const struct options *opt;
    struct inputs *inputs;      /* generated in the background (pageable) */
    struct rendezvous *timing;
    int threads;              /* for host loops and staged copies: min(8, cores) */
    int cores;                /* online, at least 1 */
    int cores_shared;         /* cores / devices running at once, at least 1 */
    bool alone;               /* no thread of its own: runs without the others */
    pthread_t thread;
    int describe_status;        /* of cudyn_device_info */
    double describe_ms;
    struct cudyn_device_info info;
    struct failure undescribed; /* why it could not be described */
    /* what the run found */
    struct phases phases;
    struct failure failure;   /* the first failing phase; exit_code EXIT_OK if none */
    struct mismatches wrong;
    bool verified, timed, at_rendezvous;
    struct bandwidth bw;
    size_t probe_bytes;
    bool from_cache;
    char target[32];
    /* what holds host memory, for run_release */
    cudyn_program *prog;
    cudyn_module mod;
    float *own_out; /* an output buffer made for this run (another has the background one) */
    /* device and page-locked memory (0 or NULL where none), which
     * run_release frees only with --free */
    cudyn_devptr device_memory[3];
    void *locked_memory[4];
};

/* Runs SAXPY on the device, on the calling thread, which it makes the
 * device's: the device phase (its description, made in main), then every
 * phase from the context to the timing.  No vector, module or device
 * memory is freed before the result. */
void run_device(struct device_run *run);
/* After the result: frees what holds host memory, and leaves device and
 * page-locked memory to the driver, which frees them with the context;
 * with --free, frees those too and releases the device's context. */
void run_release(struct device_run *run);

#endif
