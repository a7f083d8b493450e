/*
 * mock.h - a fake libcuda.so.1 for tests on machines with no GPU: what its
 * files share.  Built by `make check`, never installed.  It is a test double
 * for code paths a CPU machine cannot reach, not a replacement for a real
 * GPU run: what it cannot emulate it refuses (CUDA_ERROR_NOT_SUPPORTED, and
 * a line on stderr where a person needs to know), it never fakes success.
 *
 * Behaviour is set through the environment (read once, at the first call):
 *   MOCK_CUDA_VERSION=12040       what cuDriverGetVersion reports (default 13000)
 *   MOCK_CUDA_STUB=1              every call returns CUDA_ERROR_STUB_LIBRARY (34);
 *                                 any other value: only a copy whose path
 *                                 contains that text behaves so
 *   MOCK_CUDA_DEVICES="A:90,B:75" device names and compute capabilities
 *                                 (default "Mock GPU:90"; "none": no device)
 *   MOCK_CUDA_P2P=0-1,1-0         which devices can access which peer's memory,
 *                                 as "from-to" pairs (default: every distinct
 *                                 pair; "none": no pair)
 *   MOCK_CUDA_MISSING=a,b         names (base or exported) cuGetProcAddress denies
 *   MOCK_CUDA_FAIL=fn:N:code,...  the Nth call (1-based; * = every call) of the
 *                                 exported function fn returns code
 *   MOCK_CUDA_MEM_LIMIT=bytes     device memory per device (default 256 MiB)
 *   MOCK_CUDA_REJECT=ptx,cubin    module loads of those kinds fail (222 / 209)
 *   MOCK_CUDA_CORRUPT=i           saxpy writes a wrong value at index i
 *   MOCK_CUDA_HANG=fn:seconds     the exported function fn sleeps that long
 * The build flag MOCK_PROC_ADDRESS says which cuGetProcAddress it exports:
 * 2 (default) both, 1 only the 4-argument one (11.3-11.8), 0 none (11.0-11.2).
 * Its cuGetProcAddress table is built from lib/driver_symbols.h, so every
 * row there must have a definition here (the link fails otherwise).
 *
 * Contexts behave as the driver documents them: each thread has a context
 * stack; cuCtxCreate makes a new context and pushes it; allocations,
 * modules, streams and events belong to the context current when they were
 * made and go with it (cuCtxDestroy, cuDevicePrimaryCtxReset, the last
 * cuDevicePrimaryCtxRelease).  A call that needs a context answers
 * CUDA_ERROR_INVALID_CONTEXT (201) when the thread has none, and
 * CUDA_ERROR_CONTEXT_IS_DESTROYED (709) when its current context was
 * destroyed (by another thread) or is a primary context nobody retains.
 * A destroyed context handed to a call is invalid (201); a function or a
 * stream used while another context is current is an invalid handle (400).
 *
 * Device memory lives in host memory, at the address the driver hands out
 * (unified addressing: one address space for every device and pinned host
 * memory).  Kernels run on the host when the mock has a host version of
 * them (mock_launch.c lists them, matched by exact name: extern "C" names,
 * or C++ lowered names checked against the real NVRTC); any other kernel
 * can be looked up but not launched: 801, and once per function the line
 * "mock libcuda: cannot emulate kernel 'NAME'; run this test on a real GPU".
 * Parameters come from the PTX (also the PTX that the mock NVRTC's CUBINs
 * carry after a bare ELF header); a real CUBIN's are unknown.
 *
 * Launch limits are the device's (block 1024 x 1024 x 64, grid 2^31-1 x
 * 65535 x 65535) and the function's.  A function's thread limit is the
 * product of its PTX's .maxntid or .reqntid; without one, 256 for a kernel
 * whose name contains "bounded" (as if compiled with __launch_bounds__(256),
 * so tests can tell the function's limit from the device's), else 1024.
 * Its dynamic shared memory limit is 48 KiB minus its static .shared bytes,
 * and cuFuncSetAttribute may raise it up to the device's opt-in maximum
 * (232448 bytes) minus those.  A kernel fault (the "fault" kernel, or a
 * host kernel reaching outside every allocation) is sticky for the rest of
 * the process, as with a real driver.  mock_* functions
 * (tests/mock/mock_control.h) let tests inspect what happened.
 */
#ifndef CUDYN_MOCK_H
#define CUDYN_MOCK_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "cuda_abi.h"

#ifndef MOCK_PROC_ADDRESS
#define MOCK_PROC_ADDRESS 2
#endif

/* Shared between the mock's files, not part of the fake driver's ABI. */
#define MOCK_INTERNAL __attribute__((visibility("hidden")))

#define MAX_DEVICES 8
#define MAX_RULES 256
#define MAX_COUNTERS 256

/* CUresult values the mock returns that cudyn itself does not name
 * (cuda_abi.h); values from the real cuda.h. */
enum { MOCK_ERR_TOO_MANY_PEERS = 711 };

/* Every device's limits: what cuDeviceGetAttribute reports and what a
 * launch is checked against. */
enum {
    MOCK_MAX_THREADS_PER_BLOCK = 1024,
    MOCK_MAX_BLOCK_X = 1024,
    MOCK_MAX_BLOCK_Y = 1024,
    MOCK_MAX_BLOCK_Z = 64,
    MOCK_MAX_GRID_X = 2147483647,
    MOCK_MAX_GRID_Y = 65535,
    MOCK_MAX_GRID_Z = 65535,
    MOCK_SHARED_PER_BLOCK = 49152,
    MOCK_SHARED_PER_BLOCK_OPTIN = 232448,
    MOCK_THREADS_PER_SM = 2048,
    MOCK_BOUNDED_THREADS = 256 /* a "bounded" kernel's limit */
};

/* Multiprocessors of device `dev`: distinct per device, so tests can tell
 * which device answered. */
static inline int mock_multiprocessors(int dev)
{
    return 4 + 2 * dev;
}

/* ------------------------------------------------- the driver's functions */

/* Prototypes of every table row and its per-thread-stream twin, from the
 * table itself: a definition that does not match its row does not compile. */
#define MOCK_TWIN_DECL_NOSTREAM(exported, params)
#define MOCK_TWIN_DECL_PTDS(exported, params) cu_result exported##_ptds params;
#define MOCK_TWIN_DECL_PTSZ(exported, params) cu_result exported##_ptsz params;
#define DRIVER_SYMBOL(exported, base, abi_version, stream, need, params) \
    cu_result exported params;                                           \
    MOCK_TWIN_DECL_##stream(exported, params)
#include "driver_symbols.h"
#undef DRIVER_SYMBOL

/* Exported, but not rows of cudyn's table. */
cu_result cuGetExportTable(const void **table, const void *id);
#if MOCK_PROC_ADDRESS >= 1
cu_result cuGetProcAddress(const char *symbol, void **fn, int version, cu_uint64 flags);
#endif
#if MOCK_PROC_ADDRESS >= 2
cu_result cuGetProcAddress_v2(const char *symbol, void **fn, int version, cu_uint64 flags, cu_enum *status);
#endif

/* ------------------------------------- inspection (tests/mock/mock_control.h) */

long mock_calls(const char *fn);
void mock_fail_next(const char *fn, unsigned int code);
void mock_fail_call(const char *fn, long nth, unsigned int code);
void mock_reject_images(const char *kind);
const char *mock_proc_log(void);
int mock_proc_table_size(void);
size_t mock_memory_in_use(void);
size_t mock_recorded(void *buf, size_t cap);
int mock_contexts_alive(void);
void *mock_context_current(void);
int mock_context_depth(void);
long mock_cross_device_copies(int through_peer);

/* ---------------------------------------------------- configuration, core */

struct mock_device {
    char name[64];
    int cc;
};

struct fail_rule {
    char fn[64];
    long nth; /* 0 = every call */
    unsigned int code;
};

struct counter {
    char fn[64];
    long calls;
};

/* The mock's state; `lock` guards it and every registry (contexts, memory,
 * modules, streams, events), taken for short stretches only. */
struct mock_state {
    pthread_once_t once;
    pthread_mutex_t lock;
    int version;
    int stub;
    int initialised; /* cuInit succeeded */
    int n_devices;
    struct mock_device devices[MAX_DEVICES];
    unsigned char p2p[MAX_DEVICES][MAX_DEVICES]; /* [from][to]: can access */
    char missing[1024];
    struct fail_rule rules[MAX_RULES];
    int n_rules;
    size_t mem_limit;
    char reject[16];
    long corrupt; /* -1: none */
    char hang_fn[64];
    unsigned int hang_seconds;
    struct counter counters[MAX_COUNTERS];
    int n_counters;
    char proc_log[16384];
    unsigned int sticky_error; /* set by a kernel fault; nothing clears it */
    char fail_next_fn[64];
    unsigned int fail_next_code;
    long fail_next_skip; /* calls of fail_next_fn to let through first */
};
extern struct mock_state mock MOCK_INTERNAL;

/* Counts the call of `fn` and applies fault injection; 0 or the code. */
unsigned int mock_enter(const char *fn) MOCK_INTERNAL;

#define ENTER(fn)                              \
    do {                                       \
        unsigned int enter_ = mock_enter(fn); \
        if (enter_)                            \
            return enter_;                     \
    } while (0)

#define NEED_INIT()                        \
    do {                                   \
        if (!mock.initialised)             \
            return CU_ERR_NOT_INITIALIZED; \
    } while (0)

#define CHECK_DEVICE(dev)                         \
    do {                                          \
        NEED_INIT();                              \
        if ((dev) < 0 || (dev) >= mock.n_devices) \
            return CU_ERR_INVALID_DEVICE;         \
    } while (0)

/* A function with a per-thread-stream twin: two definitions, counted apart
 * so tests can see which one cudyn bound. */
#define TWO_FLAVOURS(name, twin, params, call) \
    cu_result name params                      \
    {                                          \
        ENTER(#name);                          \
        return call;                           \
    }                                          \
    cu_result twin params                      \
    {                                          \
        ENTER(#twin);                          \
        return call;                           \
    }

/* ---------------------------------------------------------------- contexts */

#define MAX_PEERS 16

struct CUctx_st {
    int device;
    int retained;  /* a primary context's retain count; it is active while > 0 */
    int destroyed; /* a created context: cuCtxDestroy was called */
    struct CUctx_st *peers[MAX_PEERS]; /* contexts whose memory this one can access */
    struct CUctx_st *next;             /* every created context, kept so stale handles stay readable */
};

/* The calling thread's current context (top of its stack), or NULL. */
struct CUctx_st *ctx_current(void) MOCK_INTERNAL;
/* 0 and the current context in *ctx, or 201 / 709 (see the top). */
cu_result ctx_need_current(struct CUctx_st **ctx) MOCK_INTERNAL;
/* Whether `from` may access memory of `to` through peer access; lock held. */
int ctx_peer_enabled_locked(const struct CUctx_st *from, const struct CUctx_st *to) MOCK_INTERNAL;

#define NEED_CONTEXT()                                  \
    do {                                                \
        struct CUctx_st *need_ctx_;                     \
        cu_result need_r_ = ctx_need_current(&need_ctx_); \
        if (need_r_)                                    \
            return need_r_;                             \
    } while (0)

/* Each frees or invalidates everything of its kind that belongs to ctx. */
void memory_release_context(const struct CUctx_st *ctx) MOCK_INTERNAL;
void modules_release_context(const struct CUctx_st *ctx) MOCK_INTERNAL;
void streams_release_context(const struct CUctx_st *ctx) MOCK_INTERNAL;

/* ------------------------------------------------------------------ memory */

/* The host address of [ptr, ptr+bytes) if it lies in one allocation (device
 * or pinned host memory), else NULL. */
void *memory_range(cu_deviceptr ptr, size_t bytes) MOCK_INTERNAL;

/* ----------------------------------------------------------------- streams */

/* 0 if s is the NULL, legacy or per-thread stream, or a live stream (of
 * any context: the real driver takes a stream of another context, and
 * runs the work in the stream's); else CUDA_ERROR_INVALID_HANDLE. */
cu_result stream_usable(cu_stream s) MOCK_INTERNAL;
/* As stream_usable, and the context the stream's work runs in (the
 * current one for the default streams). */
cu_result stream_context(cu_stream s, struct CUctx_st **owner) MOCK_INTERNAL;

/* --------------------------------------------------------- modules, kernels */

#define MOCK_MAX_PARAMS 64
#define MOCK_FUNC_ATTRIBUTES 16 /* CU_FUNC_ATTRIBUTE_* 0..15 */

/* A launch as a host kernel sees it (mock_launch.c runs them). */
struct launch {
    const struct CUfunc_st *fn;
    void **params;
    unsigned int grid[3], block[3];
};
typedef void (*host_kernel)(const struct launch *l);

/* Parameter i, a device pointer to `bytes` bytes the kernel touches: the
 * host address, or NULL after a fault (sticky, as on a GPU). */
void *launch_buffer(const struct launch *l, int i, size_t bytes) MOCK_INTERNAL;

/* mock_elementwise.c: host versions of the kernels cudyn generates for
 * examples/elementwise.c (see there for what each does). */
void run_cudyn_elementwise_saxpy(const struct launch *l) MOCK_INTERNAL;
void run_cudyn_reduce_dot(const struct launch *l) MOCK_INTERNAL;
void run_cudyn_reduce_dot_vec(const struct launch *l) MOCK_INTERNAL;
void run_cudyn_reduce_dot_final(const struct launch *l) MOCK_INTERNAL;

struct CUfunc_st {
    char *name;
    struct CUmod_st *module;
    int n_params; /* -1: unknown (a real CUBIN), else read from the PTX */
    size_t param_offset[MOCK_MAX_PARAMS], param_size[MOCK_MAX_PARAMS];
    int attributes[MOCK_FUNC_ATTRIBUTES]; /* what cuFuncGetAttribute answers */
    int warned;                           /* "cannot emulate" was printed */
};

/* The live function `fn`, or NULL if it is not one (any more). */
struct CUfunc_st *function_live(cu_function fn) MOCK_INTERNAL;
/* The context a live function's module was loaded in; lock held. */
struct CUctx_st *function_context_locked(const struct CUfunc_st *fn) MOCK_INTERNAL;

#endif /* CUDYN_MOCK_H */
