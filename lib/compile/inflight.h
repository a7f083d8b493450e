/*
 * inflight.h - one compile per input: compiles of the same key that run at
 * the same time in one process wait for the first and share its result,
 * its failure included.  Different keys compile in parallel; no lock is
 * held while NVRTC runs.
 */
#ifndef CUDYN_INFLIGHT_H
#define CUDYN_INFLIGHT_H

#include <stdbool.h>

#include "compile/cache.h"

struct cudyn__flight;

/* Joins the compile of `id`.  *leader true: the caller compiles and must
 * call cudyn__flight_land; false: another thread does, call
 * cudyn__flight_wait.  NULL when out of memory (then compile alone). */
struct cudyn__flight *cudyn__flight_join(const unsigned char id[CUDYN_SHA256_BYTES], bool *leader);
/* The leader's result: its status, its thread's last error and, when it
 * has one (success, or a compile error's log), the entry, copied for the
 * waiters.  Wakes them; the flight is then closed to newcomers. */
void cudyn__flight_land(struct cudyn__flight *f, int status, const struct cudyn__cache_entry *e);
/* Waits for the leader: returns its status, makes its error this thread's
 * and copies its entry (if any) into *e; a copy that runs out of memory
 * fails for `api`, the caller's public function. */
int cudyn__flight_wait(const char *api, struct cudyn__flight *f, struct cudyn__cache_entry *e);

#endif
