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
 * Every failure the mock makes (injected or, for module loads, refused)
 * is a line of its error log, as cuLogsCurrent / cuLogsDumpToMemory read
 * it (CUDA 12.9+ rows).
 *   MOCK_CUDA_COMPAT_INIT=803     a copy loaded from a directory named compat
 *                                 answers cuInit with this code, as a
 *                                 forward-compat libcuda that cannot work does
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
 * or C++ lowered names checked against the real NVRTC), or when the host
 * evaluator recognises them: the map kernels python/cudyn writes, known by
 * the shape of the source the mock NVRTC carries in its PTX (mock_eval.c,
 * mock_expr.c).  Any other kernel can be looked up but not launched: 801,
 * and once per function the line "mock libcuda: cannot emulate kernel
 * 'NAME' (WHY); run this test on a real GPU", WHY the evaluator's reason
 * where the kernel's source was there to read.
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
 *
 * Beyond the basics (each file's head says more): CUDA arrays kept in host
 * memory with their extents, 2D / 3D copies between host, device and
 * array memory (mock_array.c); texture objects the host kernels sample
 * with point and linear filtering, every address mode and normalised
 * coordinates, and surface objects (mock_texture.c); launches with
 * cluster, cooperative and priority attributes (mock_launch.c); stream
 * capture into graphs that record launches, copies and memsets and replay
 * them on the host (mock_graph.c); default memory pools that track the
 * bytes they hold and release them at synchronisation (mock_pool.c);
 * managed memory as host memory, with prefetch and advice checked and
 * remembered (mock_memory.c).  What those cannot emulate is refused with
 * CUDA_ERROR_NOT_SUPPORTED and a line on stderr and in the driver's log,
 * which cudyn appends to the failed call's message (mock_refuse).
 */
#ifndef CUDYN_MOCK_H
#define CUDYN_MOCK_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "calls.h"
#include "cuda_abi.h"

#ifndef MOCK_PROC_ADDRESS
#define MOCK_PROC_ADDRESS 2
#endif

/* Shared between the mock's files, not part of the fake driver's ABI. */
#define MOCK_INTERNAL __attribute__((visibility("hidden")))

#define MAX_DEVICES 8
#define MOCK_MAX_PARAMS 64 /* a kernel's parameters the mock reads */

/* CUresult values the mock returns that cudyn itself does not name
 * (cuda_abi.h); values from the real cuda.h. */
enum {
    MOCK_ERR_ILLEGAL_STATE = 401,
    MOCK_ERR_TOO_MANY_PEERS = 711,
    MOCK_ERR_INVALID_CLUSTER_SIZE = 912
};

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
    MOCK_BOUNDED_THREADS = 256, /* a "bounded" kernel's limit */
    MOCK_PORTABLE_CLUSTER = 8,  /* blocks per cluster without the non-portable attribute */
    MOCK_MAX_CLUSTER = 16,      /* with it */
    MOCK_PITCH_ALIGNMENT = 512  /* cuMemAllocPitch rounds rows up to this */
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
cu_result cuGetErrorName(cu_result error, const char **str);
cu_result cuGetExportTable(const void **table, const void *id);
#if MOCK_PROC_ADDRESS >= 1
cu_result cuGetProcAddress(const char *symbol, void **fn, int version, cu_uint64 flags);
#endif
#if MOCK_PROC_ADDRESS >= 2
cu_result cuGetProcAddress_v2(const char *symbol, void **fn, int version, cu_uint64 flags, cu_enum *status);
#endif

/* ------------------------------------- inspection (tests/mock/mock_control.h) */

long mock_calls(const char *fn);
long mock_refusals(const char *what);
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
int mock_arrays_alive(void);
int mock_textures_alive(void);
int mock_graphs_alive(void);
int mock_managed_location(uintptr_t ptr);
/* The mock libnccl's hold on a stream whose collective never finishes
 * (hold = 1) or its release (0): cuStreamQuery answers
 * CUDA_ERROR_NOT_READY while held, a synchronisation of it is refused. */
void mock_stream_hold(void *stream, int hold);

/* ---------------------------------------------------- configuration, core */

struct mock_device {
    char name[64];
    int cc;
};

/* The mock's state; `lock` guards it and every registry (contexts, memory,
 * modules, streams, events), taken for short stretches only. */
struct mock_state {
    pthread_once_t once;
    pthread_mutex_t lock;
    int version;
    int stub;
    char log[16384];  /* the driver's error log (cuLogs*), under lock: its newest lines */
    size_t log_len;
    size_t log_base;  /* the log's offset of log[0] (the older lines went to make room) */
    unsigned int compat_init; /* MOCK_CUDA_COMPAT_INIT, for a copy in a compat directory */
    int initialised; /* cuInit succeeded; atomic: threads call cuInit while others run */
    int n_devices;
    struct mock_device devices[MAX_DEVICES];
    unsigned char p2p[MAX_DEVICES][MAX_DEVICES]; /* [from][to]: can access */
    char missing[1024];
    size_t mem_limit;
    char reject[16];
    long corrupt; /* -1: none */
    char hang_fn[64];
    unsigned int hang_seconds;
    struct calls calls; /* counted calls and MOCK_CUDA_FAIL's rules */
    char proc_log[16384];
    unsigned int sticky_error; /* set by a kernel fault; nothing clears it */
    char fail_next_fn[64];
    unsigned int fail_next_code;
    long fail_next_skip; /* calls of fail_next_fn to let through first */
    /* calls a real driver answers with an error that a tool such as
     * compute-sanitizer reports, for tests that cudyn provokes none */
    long refused_param_info; /* cuFuncGetParamInfo past the last parameter */
    long refused_shared;     /* launches over the kernel's dynamic shared-memory limit */
};
extern struct mock_state mock MOCK_INTERNAL;

/* Counts the call of `fn` and applies fault injection; 0 or the code. */
unsigned int mock_enter(const char *fn) MOCK_INTERNAL;
/* Adds a line to the driver's error log (cuLogsDumpToMemory reads it). */
void mock_log(const char *line) MOCK_INTERNAL;

/* What the mock cannot emulate: CUDA_ERROR_NOT_SUPPORTED, and the line
 * "mock libcuda: cannot emulate WHAT; run this test on a real GPU" on
 * stderr and in the driver's log. */
cu_result mock_refuse(const char *fmt, ...) MOCK_INTERNAL __attribute__((format(printf, 1, 2)));

#define ENTER(fn)                              \
    do {                                       \
        unsigned int enter_ = mock_enter(fn); \
        if (enter_)                            \
            return enter_;                     \
    } while (0)

#define NEED_INIT()                                             \
    do {                                                        \
        if (!__atomic_load_n(&mock.initialised, __ATOMIC_ACQUIRE)) \
            return CU_ERR_NOT_INITIALIZED;                      \
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

/* Every list of the mock's objects is linked through `next`.  Unlinks from
 * the list at `head` each node for which `cond` holds (the node is named
 * `node` in cond and drop) and runs `drop` on it; the mock's lock held.
 * One node only: `!found && (cond)` with `found = node` as the drop. */
#define MOCK_LIST_UNLINK_IF(type, head, node, cond, drop) \
    for (type **link_ = &(head); *link_;) {               \
        type *node = *link_;                              \
        if (cond) {                                       \
            *link_ = node->next;                          \
            drop;                                         \
        } else {                                          \
            link_ = &node->next;                          \
        }                                                 \
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
void arrays_release_context(const struct CUctx_st *ctx) MOCK_INTERNAL;
void textures_release_context(const struct CUctx_st *ctx) MOCK_INTERNAL;

/* ------------------------------------------------------------------ memory */

/* Kinds of allocation: cuMemAlloc, cuMemHostAlloc, cuMemAllocManaged, and
 * cuMemAllocAsync (whose bytes the pool accounts for, not the allocation). */
/* IPC_MEMORY: another process's device memory mapped by cuIpcOpenMemHandle;
 * VMM_MEMORY: a virtual-memory mapping made accessible by cuMemSetAccess
 * (mock_ipc.c owns its pages).  Device memory lives in a memfd, so that
 * another process can map the same bytes. */
enum { DEVICE_MEMORY, HOST_MEMORY, MANAGED_MEMORY, POOL_MEMORY, IPC_MEMORY, VMM_MEMORY };

/* The host address of [ptr, ptr+bytes) if it lies in one allocation (device
 * or pinned host memory), else NULL. */
void *memory_range(cu_deviceptr ptr, size_t bytes) MOCK_INTERNAL;
/* An allocation of `kind` in the current context (device memory is charged
 * to its device); 0 or the driver's error. */
cu_result memory_allocate(void **out, size_t bytes, int kind) MOCK_INTERNAL;
/* Frees the allocation of `kind` starting at ptr (INVALID_VALUE if none);
 * *bytes and *device, when not NULL, receive its size and device. */
cu_result memory_release(uintptr_t ptr, int kind, size_t *bytes, int *device) MOCK_INTERNAL;
/* Registers pages mapped elsewhere (IPC_MEMORY: unmapped when released;
 * VMM_MEMORY: left to mock_ipc.c) as memory of the current context. */
cu_result memory_adopt(void *host, size_t bytes, int kind) MOCK_INTERNAL;
/* The memfd and size behind device memory starting at ptr; -1 if none. */
int memory_shared_fd(uintptr_t ptr, size_t *bytes, int *device) MOCK_INTERNAL;
/* Device memory of `device` taken and given back outside allocations
 * (arrays, pools); memory_charge is 0 or CUDA_ERROR_OUT_OF_MEMORY. */
cu_result memory_charge(int device, size_t bytes) MOCK_INTERNAL;
void memory_refund(int device, size_t bytes) MOCK_INTERNAL;
/* A copy between host memory (side flag 0) and device memory (1), and a
 * memset of count elements of width bytes: what the async and graph paths
 * run. */
cu_result memory_copy(uintptr_t dst, int dst_device, uintptr_t src, int src_device, size_t bytes) MOCK_INTERNAL;
cu_result memory_fill(cu_deviceptr dst, unsigned int value, size_t width, size_t count) MOCK_INTERNAL;
/* A pool allocation freed (by cuMemFreeAsync, or with its context) leaves
 * the use count of its device's pool (mock_pool.c); lock held. */
void pool_forget(int device, size_t bytes) MOCK_INTERNAL;
/* At a synchronisation, pools give back what is above their threshold. */
void pools_settle(void) MOCK_INTERNAL;

/* ------------------------------------------------------------------ arrays */

/* Bytes per channel of a CUarray_format the mock knows (0: none), and
 * whether it holds integers. */
static inline unsigned int mock_format_bytes(cu_enum format)
{
#define MOCK_FORMAT_BYTES_(name, value, bytes, is_float) \
    case value:                                          \
        return bytes;
    switch (format) {
        CU_ARRAY_FORMAT_MAP(MOCK_FORMAT_BYTES_)
    }
#undef MOCK_FORMAT_BYTES_
    return 0;
}

static inline int mock_format_is_integer(cu_enum format)
{
#define MOCK_FORMAT_INTEGER_(name, value, bytes, is_float) \
    case value:                                            \
        return !(is_float);
    switch (format) {
        CU_ARRAY_FORMAT_MAP(MOCK_FORMAT_INTEGER_)
    }
#undef MOCK_FORMAT_INTEGER_
    return 0;
}

/* A 2D or 3D copy as cuMemcpy3D describes it: checked, then done. */
cu_result copy3d_run(const cu_memcpy3d *c) MOCK_INTERNAL;
/* The live array `a` of the current context: its bytes, element size and
 * extents (0 counted as 1); NULL if it is not one. */
struct mock_array_view {
    unsigned char *data;
    size_t element, width, height, depth;
    cu_enum format;
    unsigned int channels, flags;
};
int array_view(cu_array a, struct mock_array_view *out) MOCK_INTERNAL;

/* ----------------------------------------------------------------- streams */

/* 0 if s is the NULL, legacy or per-thread stream, or a live stream (of
 * any context: the real driver takes a stream of another context, and
 * runs the work in the stream's); else CUDA_ERROR_INVALID_HANDLE. */
cu_result stream_usable(cu_stream s) MOCK_INTERNAL;
/* As stream_usable, and the context the stream's work runs in (the
 * current one for the default streams). */
cu_result stream_context(cu_stream s, struct CUctx_st **owner) MOCK_INTERNAL;

/* ------------------------------------------------------- capture and graphs */

/* Work a capturing stream records instead of running (mock_graph.c). */
enum { OP_KERNEL, OP_COPY, OP_COPY3D, OP_FILL };
struct mock_op {
    int kind;
    struct { /* OP_KERNEL: the launch; its parameters are copied when recorded */
        const struct CUfunc_st *fn;
        unsigned int grid[3], block[3], cluster[3], shared;
        int cooperative;
        int n_params;
        size_t param_size[MOCK_MAX_PARAMS];
        void *const *params;
    } kernel;
    struct { /* OP_COPY */
        uintptr_t dst, src;
        int dst_device, src_device;
        size_t bytes;
    } copy;
    cu_memcpy3d copy3d; /* OP_COPY3D (host pointers are read when the graph runs, as on a GPU) */
    struct { /* OP_FILL */
        cu_deviceptr dst;
        unsigned int value;
        size_t width, count;
    } fill;
};
/* For work submitted on `s`: 0 with *recorded = 0 when s is not capturing
 * (run it now), 0 with *recorded = 1 when it was recorded, else an error. */
cu_result capture_record(cu_stream s, const struct mock_op *op, int *recorded) MOCK_INTERNAL;
/* A call that may not run during a capture (cuMemAlloc, synchronous
 * copies and memsets, cuCtxSynchronize): CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED
 * and the capture invalidated when a capture forbids it, else 0. */
cu_result capture_forbids(void) MOCK_INTERNAL;
/* Whether `s` is capturing now. */
int stream_capturing(cu_stream s) MOCK_INTERNAL;
/* Synchronising or querying `s` while it captures: 900, and the capture
 * invalidated; else 0. */
cu_result capture_blocks_wait(cu_stream s) MOCK_INTERNAL;
/* Runs one recorded operation (kernels through kernel_replay). */
cu_result op_run(const struct mock_op *op) MOCK_INTERNAL;

/* --------------------------------------------------------- modules, kernels */

#define MOCK_FUNC_ATTRIBUTES 16 /* CU_FUNC_ATTRIBUTE_* 0..15 */

/* A launch as a host kernel sees it: its function, parameters and shape. */
struct launch {
    const struct CUfunc_st *fn;
    void **params;
    unsigned int grid[3], block[3];
    unsigned int cluster[3]; /* {1, 1, 1} without clusters */
    int cooperative;
    unsigned int shared; /* dynamic shared memory bytes */
};
typedef void (*host_kernel)(const struct launch *l);

/* Parameter i of a launch, read as `type`. */
#define SCALAR(type, l, i) (*(const type *)(l)->params[i])
/* Parameter i, a device pointer to `bytes` bytes the kernel touches: the
 * host address, or NULL after a fault (a kernel reaching outside every
 * allocation faults, sticky, as on a GPU). */
void *launch_buffer(const struct launch *l, int i, size_t bytes) MOCK_INTERNAL;
void kernel_fault(void) MOCK_INTERNAL;
/* Runs a recorded kernel launch again (a graph's). */
cu_result kernel_replay(const struct mock_op *op) MOCK_INTERNAL;

/* Host kernels that read textures and surfaces (mock_texture.c). */
void run_transform_kernel(const struct launch *l) MOCK_INTERNAL;
void run_tex2d_read(const struct launch *l) MOCK_INTERNAL;
void run_tex1d_fetch(const struct launch *l) MOCK_INTERNAL;
void run_surf2d_scale(const struct launch *l) MOCK_INTERNAL;

/* mock_elementwise.c: host versions of the kernels cudyn generates for
 * examples/elementwise.c (see there for what each does). */
void run_cudyn_elementwise_saxpy(const struct launch *l) MOCK_INTERNAL;
void run_cudyn_reduce_dot(const struct launch *l) MOCK_INTERNAL;
void run_cudyn_reduce_dot_vec(const struct launch *l) MOCK_INTERNAL;

struct CUfunc_st {
    char *name;
    struct CUmod_st *module;
    int n_params; /* -1: unknown (a real CUBIN), else read from the PTX */
    size_t param_offset[MOCK_MAX_PARAMS], param_size[MOCK_MAX_PARAMS];
    int attributes[MOCK_FUNC_ATTRIBUTES]; /* what cuFuncGetAttribute answers */
    int warned;                           /* "cannot emulate" was printed */
    struct mock_eval *eval;               /* the host evaluator's reading of it, from its first launch */
};

/* mock_eval.c: the host evaluator of the map kernels python/cudyn writes,
 * which it recognises by the shape of the source the mock NVRTC carries in
 * its PTX (kernel_facts.h), never by name.  mock_eval_of: fn's evaluator
 * (read at its first launch, kept in fn->eval), or NULL and why not in
 * why (empty when fn's image carries no source); mock_eval_run runs a
 * launch of a function it took. */
struct mock_eval;
const struct mock_eval *mock_eval_of(struct CUfunc_st *fn, char *why, size_t cap) MOCK_INTERNAL;
cu_result mock_eval_run(const struct launch *l) MOCK_INTERNAL;
void mock_eval_free(struct mock_eval *e) MOCK_INTERNAL;
/* The PTX text of a module's image (NULL for a real CUBIN). */
const char *module_text(const struct CUmod_st *mod) MOCK_INTERNAL;

/* The live function `fn`, or NULL if it is not one (any more). */
struct CUfunc_st *function_live(cu_function fn) MOCK_INTERNAL;
/* The context a live function's module was loaded in; lock held. */
struct CUctx_st *function_context_locked(const struct CUfunc_st *fn) MOCK_INTERNAL;

#endif /* CUDYN_MOCK_H */
