/*
 * mock_nccl.c - a fake libnccl.so.2 for make check (never installed;
 * cudyn loads it through CUDYN_LIBNCCL).  It is a test double: every call
 * of lib/nccl_symbols.h, collectives done as host copies between the
 * ranks (threads of one process, or processes: world.c), on the mock
 * driver, whose device memory is host memory.  It runs the work when it
 * is queued, as the mock driver does.  What it cannot emulate it refuses
 * with "mock NCCL: ..." on stderr: more than MAX_RANKS ranks, a buffer
 * the mock driver does not know, ranks that call different collectives,
 * and a wait for ranks that never come (where NCCL would hang, the mock
 * gives up after MOCK_NCCL_TIMEOUT_MS).
 *
 * Settings, read at the first call:
 *   MOCK_NCCL_VERSION=22809        what ncclGetVersion says (default
 *                                  2.28.9; the old build: 2.12.12)
 *   MOCK_NCCL_FAIL=fn:N:code,...   the Nth call (1-based; * = every call)
 *                                  of fn returns code (an ncclResult_t)
 *   MOCK_NCCL_ASYNC_ERROR=N:ms     the Nth operation (collective, send or
 *                                  receive) of the process never finishes:
 *                                  the call succeeds, the stream stays busy
 *                                  (the mock driver's cuStreamQuery says
 *                                  not ready) and after ms milliseconds
 *                                  ncclCommGetAsyncError reports
 *                                  ncclRemoteError; ms -1: never, a silent
 *                                  hang.  Aborting the communicator frees
 *                                  the stream.
 *   MOCK_NCCL_TIMEOUT_MS=60000     how long a rank waits for the others
 *   MOCK_NCCL_COUNTS=file          at exit, "fn calls" lines there
 * A setting it cannot read makes every call fail with ncclInternalError.
 * The build flag MOCK_NCCL_OLD=1 makes an NCCL 2.12: no ncclGetLastError,
 * no ncclCommSplit.  A peer that aborts its communicator makes the others'
 * operations turn into ncclRemoteError the same asynchronous way.
 * Tests reach mock_nccl_calls, mock_nccl_fail_next, mock_nccl_hang_next
 * and mock_nccl_live_comms through mock_nccl_control.h.
 */
#include "config.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../calls.h"
#include "mock_nccl.h"

#if MOCK_NCCL_OLD
#define DEFAULT_VERSION 21212
#else
#define DEFAULT_VERSION 22809
#endif
#define COMM_MAGIC 0x6e63636cu
#define MAX_GROUP_OPS 256

__attribute__((visibility("default"))) long mock_nccl_calls(const char *fn);
__attribute__((visibility("default"))) void mock_nccl_hang_next(long delay_ms);
__attribute__((visibility("default"))) int mock_nccl_live_comms(void);
__attribute__((visibility("default"))) void mock_nccl_fail_next(const char *fn, int code);

static struct {
    pthread_once_t once;
    pthread_mutex_t lock;
    char config_error[256];
    int version;
    long hang_nth, hang_delay_ms; /* MOCK_NCCL_ASYNC_ERROR; hang_nth 0: none */
    long ops;                     /* operations queued so far */
    long timeout_ms;
    unsigned int ids;
    struct calls calls;
    struct ncclComm *comms; /* live */
    void *driver;           /* the mock libcuda this process loaded */
} mock = {.once = PTHREAD_ONCE_INIT, .lock = PTHREAD_MUTEX_INITIALIZER};

static _Thread_local char last_error[512];
static _Thread_local struct {
    int depth;
    struct op ops[MAX_GROUP_OPS];
    int n;
    nccl_result failed; /* a call in the group that failed: the end reports it */
} group;

nccl_result mock_nccl_error(nccl_result r, bool loud, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last_error, sizeof last_error, fmt, ap);
    va_end(ap);
    if (loud)
        fprintf(stderr, "%s\n", last_error);
    return r;
}

double mock_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* ------------------------------------------------------------ config */

static bool read_long(const char *name, long min, long max, long *out)
{
    const char *v = getenv(name);
    if (!v || !v[0] || mock_parse_long(v, min, max, out))
        return true;
    snprintf(mock.config_error, sizeof mock.config_error, "mock NCCL: %s=%s is not a number in [%ld, %ld]", name,
             v, min, max);
    return false;
}

static void setup(void)
{
    long version = DEFAULT_VERSION, timeout = 60000;
    const char *fail = getenv("MOCK_NCCL_FAIL"), *hang = getenv("MOCK_NCCL_ASYNC_ERROR");
    mock.hang_delay_ms = -1;
    if (read_long("MOCK_NCCL_VERSION", 1, 999999, &version) && read_long("MOCK_NCCL_TIMEOUT_MS", 1, 3600000, &timeout)) {
        if (fail && !calls_add_rules(&mock.calls, fail, 8))
            snprintf(mock.config_error, sizeof mock.config_error, "mock NCCL: MOCK_NCCL_FAIL=%s: items are fn:N:code",
                     fail);
        if (hang && sscanf(hang, "%ld:%ld", &mock.hang_nth, &mock.hang_delay_ms) != 2)
            snprintf(mock.config_error, sizeof mock.config_error, "mock NCCL: MOCK_NCCL_ASYNC_ERROR=%s is not N:ms",
                     hang);
    }
    mock.version = (int)version;
    mock.timeout_ms = timeout;
    if (mock.config_error[0])
        fprintf(stderr, "%s\n", mock.config_error);
}

__attribute__((destructor)) static void write_counts(void)
{
    calls_write(&mock.calls, &mock.lock, "MOCK_NCCL_COUNTS", "mock NCCL");
}

/* Every exported call: counted, and failed where MOCK_NCCL_FAIL says. */
nccl_result enter(const char *fn)
{
    pthread_once(&mock.once, setup);
    if (mock.config_error[0])
        return mock_nccl_error(ncclInternalError, false, "%s", mock.config_error);
    pthread_mutex_lock(&mock.lock);
    int code = calls_rule_code(&mock.calls, fn, calls_count(&mock.calls, fn));
    pthread_mutex_unlock(&mock.lock);
    if (!code)
        return ncclSuccess;
    mock_nccl_error(code, false, "mock NCCL: %s failed as MOCK_NCCL_FAIL asked", fn);
    /* as NCCL does, a call that fails inside a group fails the group (its
     * end starts nothing); the end itself leaves the group either way */
    if (strcmp(fn, "ncclGroupEnd") == 0 && group.depth > 0 && --group.depth == 0) {
        group.n = 0;
        group.failed = ncclSuccess;
    } else {
        in_group(code);
    }
    return code;
}

long mock_nccl_calls(const char *fn)
{
    pthread_mutex_lock(&mock.lock);
    long n = calls_of(&mock.calls, fn);
    pthread_mutex_unlock(&mock.lock);
    return n;
}

void mock_nccl_fail_next(const char *fn, int code)
{
    pthread_once(&mock.once, setup);
    char rule[96];
    pthread_mutex_lock(&mock.lock);
    snprintf(rule, sizeof rule, "%s:%ld:%d", fn, calls_of(&mock.calls, fn) + 1, code);
    calls_add_rules(&mock.calls, rule, 8);
    pthread_mutex_unlock(&mock.lock);
}

void mock_nccl_hang_next(long delay_ms)
{
    pthread_once(&mock.once, setup);
    pthread_mutex_lock(&mock.lock);
    mock.hang_nth = mock.ops + 1;
    mock.hang_delay_ms = delay_ms;
    pthread_mutex_unlock(&mock.lock);
}

int mock_nccl_version(void)
{
    return mock.version;
}

const char *mock_nccl_last_error(void)
{
    return last_error;
}

bool mock_nccl_in_group(void)
{
    return group.depth > 0;
}

bool next_op_hangs(long *delay_ms)
{
    pthread_mutex_lock(&mock.lock);
    bool hangs = ++mock.ops == mock.hang_nth;
    *delay_ms = mock.hang_delay_ms;
    pthread_mutex_unlock(&mock.lock);
    return hangs;
}

void new_world_name(char *out, size_t cap)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    pthread_mutex_lock(&mock.lock);
    unsigned int n = ++mock.ids;
    pthread_mutex_unlock(&mock.lock);
    snprintf(out, cap, "/mock-nccl-%ld-%u-%lx", (long)getpid(), n, (unsigned long)ts.tv_nsec);
}

/* ------------------------------------------------ the mock driver's help */

/* The mock driver cudyn loaded, looked up until found: NCCL is loaded
 * (and asked its version) before the driver.  By the path CUDYN_LIBCUDA
 * gives where it is set: a process may hold a real libcuda.so.1 too (an
 * MPI with an accelerator component loads one), which the soname finds
 * first. */
static void *driver_symbol(const char *name)
{
    pthread_mutex_lock(&mock.lock);
    if (!mock.driver) {
        const char *path = getenv("CUDYN_LIBCUDA");
        mock.driver = dlopen(path && *path ? path : "libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD);
    }
    void *h = mock.driver;
    pthread_mutex_unlock(&mock.lock);
    return h ? dlsym(h, name) : NULL;
}

/* The device of the calling thread's current context (NCCL's cudaGetDevice). */
/* A driver call of the mock's own that failed, as NCCL reports one. */
static nccl_result driver_failed(const char *fn, unsigned int r)
{
    return mock_nccl_error(ncclUnhandledCudaError, false, "mock NCCL: %s returned %u", fn, r);
}

nccl_result current_device(int *device)
{
    unsigned int (*get)(int *) = (unsigned int (*)(int *))driver_symbol("cuCtxGetDevice");
    *device = 0;
    if (!get)
        return mock_nccl_error(ncclInvalidUsage, true, "mock NCCL: it needs the mock libcuda loaded first");
    unsigned int r = get(device);
    return r == 0 || r == 201 /* CUDA_ERROR_INVALID_CONTEXT: none current, NCCL takes device 0 */
               ? ncclSuccess
               : driver_failed("cuCtxGetDevice", r);
}

nccl_result device_count(int *count)
{
    unsigned int (*get)(int *) = (unsigned int (*)(int *))driver_symbol("cuDeviceGetCount");
    if (!get)
        return mock_nccl_error(ncclInvalidUsage, true, "mock NCCL: it needs the mock libcuda loaded first");
    unsigned int r = get(count);
    return r == 0 ? ncclSuccess : driver_failed("cuDeviceGetCount", r);
}

/* [p, p + bytes) lies in memory the mock driver handed out. */
nccl_result check_memory(const char *fn, const char *arg, const void *p, size_t bytes)
{
    typedef unsigned int (*attrs_fn)(unsigned int, unsigned int *, void **, unsigned long long);
    attrs_fn attrs = (attrs_fn)driver_symbol("cuPointerGetAttributes");
    if (bytes == 0)
        return ncclSuccess;
    if (!attrs)
        return mock_nccl_error(ncclInvalidUsage, true, "mock NCCL: %s needs the mock libcuda loaded first", fn);
    unsigned long long start = 0;
    size_t size = 0;
    unsigned int which[] = {11, 12}; /* CU_POINTER_ATTRIBUTE_RANGE_START_ADDR, _RANGE_SIZE */
    void *data[] = {&start, &size};
    unsigned long long at = (unsigned long long)(uintptr_t)p;
    unsigned int r = attrs(2, which, data, at);
    if (r != 0)
        return driver_failed("cuPointerGetAttributes", r);
    if (!start || at - start + bytes > size)
        return mock_nccl_error(ncclInvalidArgument, true,
                               "mock NCCL: %s: %s %p (%zu bytes) is not inside memory of the mock driver", fn, arg,
                               p, bytes);
    return ncclSuccess;
}

static void hold(nccl_stream stream, int on)
{
    void (*h)(void *, int) = (void (*)(void *, int))driver_symbol("mock_stream_hold");
    if (h)
        h((void *)stream, on);
    else
        fprintf(stderr, "mock NCCL: no mock libcuda to hold a stream busy: the hang is not visible\n");
}

/* --------------------------------------------------------- communicators */

struct ncclComm *comm_new(void)
{
    struct ncclComm *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->magic = COMM_MAGIC;
    pthread_mutex_lock(&mock.lock);
    c->next = mock.comms;
    mock.comms = c;
    pthread_mutex_unlock(&mock.lock);
    return c;
}

void comm_free(struct ncclComm *c)
{
    pthread_mutex_lock(&mock.lock);
    for (struct ncclComm **link = &mock.comms; *link; link = &(*link)->next)
        if (*link == c) {
            *link = c->next;
            break;
        }
    pthread_mutex_unlock(&mock.lock);
    if (c->hung)
        hold(c->held, 0);
    world_leave(c);
    c->magic = 0;
    free(c);
}

int mock_nccl_live_comms(void)
{
    int n = 0;
    pthread_mutex_lock(&mock.lock);
    for (struct ncclComm *c = mock.comms; c; c = c->next)
        n++;
    pthread_mutex_unlock(&mock.lock);
    return n;
}

bool comm_live(const struct ncclComm *c)
{
    pthread_mutex_lock(&mock.lock);
    bool live = false;
    for (struct ncclComm *x = mock.comms; x && !live; x = x->next)
        live = x == c;
    pthread_mutex_unlock(&mock.lock);
    return live;
}

/* ------------------------------------------------------------- groups */

/* An earlier operation of the group that op must wait for: one of the
 * same communicator that is a collective, or is op's kind to op's peer. */
static bool blocked(int i)
{
    const struct op *op = &group.ops[i];
    for (int j = 0; j < i; j++) {
        const struct op *e = &group.ops[j];
        if (e->done || e->comm != op->comm)
            continue;
        bool p2p = (e->desc.kind == OP_SEND || e->desc.kind == OP_RECV) &&
                   (op->desc.kind == OP_SEND || op->desc.kind == OP_RECV);
        if (!p2p || (e->desc.kind == op->desc.kind && e->peer == op->peer))
            return true;
    }
    return false;
}

void never_finishes(struct ncclComm *c, nccl_stream stream, double delay_ms, const char *why)
{
    if (!c->hung) {
        c->hung = true;
        c->held = stream;
        hold(stream, 1);
    }
    c->async = ncclRemoteError;
    c->async_due_ms = delay_ms < 0 ? -1 : mock_now_ms() + delay_ms;
    snprintf(c->async_message, sizeof c->async_message, "%s", why);
}

static void pause_us(long us)
{
    struct timespec ts = {0, us * 1000};
    nanosleep(&ts, NULL);
}

/* Runs the group's operations until all are done. */
static nccl_result run_group(void)
{
    double last_move = mock_now_ms();
    for (long pause = 0;; pause = pause < 200 ? pause + 10 : 200) {
        bool all_done = true, moved = false;
        for (int i = 0; i < group.n; i++) {
            struct op *op = &group.ops[i];
            if (op->done)
                continue;
            enum step s = blocked(i) ? STEP_WAIT : op_step(op);
            op->done = s == STEP_DONE;
            moved |= s == STEP_DONE || s == STEP_MOVED;
            all_done &= op->done;
            if (s == STEP_FAILED && op->failed == ncclRemoteError) {
                never_finishes(op->comm, op->stream, 0, last_error);
                op->done = moved = true;
            } else if (s == STEP_FAILED) {
                return op->failed;
            }
        }
        if (all_done)
            return ncclSuccess;
        if (moved)
            last_move = mock_now_ms();
        else if (mock_now_ms() - last_move > mock.timeout_ms)
            return mock_nccl_error(ncclInvalidUsage, true,
                                   "mock NCCL: rank %d waited %ld ms for the other ranks of its communicator; NCCL "
                                   "would hang (one thread driving several ranks needs a group)",
                                   group.ops[0].comm->rank, mock.timeout_ms);
        pause_us(pause);
    }
}

/* Queues op in the group, or runs it now outside one. */
nccl_result submit(const struct op *op)
{
    if (group.n == MAX_GROUP_OPS)
        return mock_nccl_error(ncclInvalidUsage, true, "mock NCCL: more than %d operations in a group",
                               MAX_GROUP_OPS);
    group.ops[group.n++] = *op;
    if (group.depth > 0)
        return ncclSuccess;
    nccl_result r = run_group();
    group.n = 0;
    return r;
}

nccl_result ncclGroupStart(void)
{
    ENTER("ncclGroupStart");
    group.depth++;
    return ncclSuccess;
}

nccl_result ncclGroupEnd(void)
{
    ENTER("ncclGroupEnd");
    if (group.depth == 0)
        return mock_nccl_error(ncclInvalidUsage, false, "ncclGroupEnd without ncclGroupStart");
    if (--group.depth > 0)
        return ncclSuccess;
    nccl_result r = group.failed ? group.failed : run_group();
    group.n = 0;
    group.failed = ncclSuccess;
    return r;
}

/* A failure of a call inside a group is also the group's. */
nccl_result in_group(nccl_result r)
{
    if (r && group.depth > 0 && !group.failed)
        group.failed = r;
    return r;
}

