/*
 * saxpy_stage.h - copies between pageable host vectors and the device,
 * staged through a small page-locked buffer (saxpy_stage.c).
 *
 * The copy engine reads and writes page-locked memory at the link's full
 * speed (53 GB/s on PCIe 5), pageable memory at a fraction of it (6-9 GB/s
 * measured on an H100), and page-locking the vectors themselves costs more
 * than that saves (about 0.4 ms per MiB).  So the vectors go through a few
 * MiB that are page-locked anyway: threads copy one chunk between a vector
 * and a slot of that buffer while the device copies the others.
 */
#ifndef CUDYN_SAXPY_STAGE_H
#define CUDYN_SAXPY_STAGE_H

#include <stdbool.h>
#include <stddef.h>

#include "cudyn.h"

/* Slots the page-locked buffer is cut into (4 MiB each of the 16 MiB
 * probe): a 4 MiB copy takes ~80 us at 53 GB/s, long beside issuing it
 * (~5 us) and handing a chunk between threads (~10-20 us), and with four
 * slots two copies can be queued on the device while the threads fill (or
 * empty) the other two, so neither side waits for the other's jitter. */
#define STAGE_SLOTS 4
/* Threads that copy between the vectors and the slots: one core copies
 * roughly 8-12 GB/s from memory to memory, so it takes 5-6 to keep up
 * with the link; 8 leave a margin.  The device thread only issues the
 * copies and waits, so it is not one of them. */
#define STAGE_THREADS 8

struct stage_buffer {
    char *pinned; /* from cudyn_host_alloc */
    size_t slot;  /* bytes per slot (a multiple of 64 unless there is one slot) */
    int slots;
};
/* Cuts `bytes` of page-locked memory into STAGE_SLOTS slots, or one slot
 * if it is too small to cut. */
void stage_buffer_init(struct stage_buffer *b, void *pinned, size_t bytes);

/* Copying threads worth starting for copies through b: at most `threads`
 * and STAGE_THREADS, fewer for small slots, and of the machine's `cores`
 * one left for the device thread (0: it copies alone). */
int stage_threads(const struct stage_buffer *b, int threads, int cores);

/* One vector of a staged copy: `bytes` (the copy's) on either side. */
struct stage_vector {
    void *host; /* pageable */
    cudyn_devptr dev;
};

/*
 * Copies `count` vectors of `bytes` each from the host to the device
 * (to_device) or back, through b, on the calling thread's default stream,
 * and returns when every byte has arrived.  The calling thread, whose
 * context the device memory is in, makes every driver call; `threads`
 * others (up to STAGE_THREADS) copy, or it copies itself if it has none or
 * none can be started.  `cores` is what this copy may count on (the
 * machine's, shared among the devices copying at once): the threads wait
 * for each other spinning only if each has a core.  *threads_used is set
 * to the copying threads.  On failure the device is left idle and *error
 * holds the failing call's error.
 */
int stage_copy(const struct stage_buffer *b, bool to_device, const struct stage_vector *v, int count, size_t bytes,
               int threads, int cores, int *threads_used, cudyn_error *error);

#endif
