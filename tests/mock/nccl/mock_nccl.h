/*
 * mock_nccl.h - the parts of the mock libnccl (tests/mock/nccl/):
 * mock_nccl.c holds the configuration, faults, errors, the communicators
 * and groups, api.c the exported calls and their checks, world.c the
 * shared memory in which the ranks of a communicator meet and the work
 * moves, reduce.c the arithmetic of the reductions.
 */
#ifndef CUDYN_MOCK_NCCL_H
#define CUDYN_MOCK_NCCL_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nccl_abi.h"

#define MOCK_INTERNAL __attribute__((visibility("hidden")))

/* ncclResult_t's names, from nccl_abi.h's list. */
enum {
    ncclSuccess = NCCL_OK,
#define MOCK_RESULT_ENUM(name, value, status) name = value,
    NCCL_RESULT_MAP(MOCK_RESULT_ENUM)
#undef MOCK_RESULT_ENUM
};

#define MAX_RANKS 8
/* Bytes a rank stages per round of a collective, and per message piece
 * of a send: large transfers go in pieces. */
#define CHUNK (64 * 1024)

/* The exported functions, as NCCL declares them (nccl_symbols.h), and the
 * mock's controls for tests. */
#define NCCL_SYMBOL(name, since, need, returns, params) __attribute__((visibility("default"))) returns name params;
#include "nccl_symbols.h"
#undef NCCL_SYMBOL

/* ---- world.c: where the ranks meet ---- */

/* What each rank of a collective says it is doing; every rank must say
 * the same (else the mock refuses: NCCL would hang or corrupt). */
struct op_desc {
    int kind; /* enum op_kind */
    int type, redop, root;
    size_t count;
};

enum op_kind {
    OP_ALL_REDUCE,
    OP_BROADCAST,
    OP_REDUCE,
    OP_ALL_GATHER,
    OP_REDUCE_SCATTER,
    OP_SPLIT,
    OP_SEND,
    OP_RECV,
    OP_JOIN /* ncclCommInitRank in a group: waiting for the other ranks */
};

struct rank_slot {
    atomic_int joined;
    atomic_uint_fast64_t written; /* the last round whose data this rank staged */
    atomic_uint_fast64_t read;    /* the last round this rank has read everyone's data of */
    struct op_desc desc;          /* of the round written */
    int device;
    _Alignas(max_align_t) unsigned char data[CHUNK]; /* read as elements of any type */
};

/* One direction between two ranks, for send and receive: a piece at a time. */
struct channel {
    atomic_size_t full; /* 0: empty; else the piece's bytes + 1 */
    unsigned char data[CHUNK];
};

struct world {
    char magic[8];
    atomic_int nranks;  /* set by the first rank to arrive */
    atomic_int joined;  /* ranks that have arrived */
    atomic_int aborted; /* 1 + the rank that aborted, 0 if none */
    struct rank_slot ranks[MAX_RANKS];
    struct channel channels[MAX_RANKS][MAX_RANKS]; /* [from][to] */
};

/* The mock's communicator: one rank's view of a world. */
struct ncclComm {
    uint32_t magic;
    struct world *world;
    char name[128];       /* the shared-memory object's name */
    int rank, nranks, device;
    uint64_t round;       /* the last round of a collective this rank began */
    int splits;           /* ncclCommSplit calls so far: names the children */
    nccl_result async;    /* the asynchronous error once it is due */
    double async_due_ms;  /* when a hung operation's error appears (< 0: never) */
    bool hung;            /* an operation that never finishes holds `held` */
    nccl_stream held;
    char async_message[256];
    struct ncclComm *next;
};

/* Maps the world `name` for rank `rank` of `nranks` (creating it if it is
 * the first); ncclInvalidUsage on a mismatch (the message set). */
nccl_result world_join(struct ncclComm *c, const char *name, int nranks, int rank, int device) MOCK_INTERNAL;
/* True once every rank has arrived; the last one removes the name. */
bool world_complete(struct ncclComm *c) MOCK_INTERNAL;
void world_leave(struct ncclComm *c) MOCK_INTERNAL;

/* One queued operation of a group and how far it got. */
struct op {
    struct ncclComm *comm;
    struct op_desc desc;
    nccl_stream stream;
    const unsigned char *send;
    unsigned char *recv;
    int peer;
    size_t bytes_done;  /* send, receive: bytes moved */
    uint64_t first;     /* collective: its first round (0: not begun) */
    uint64_t rounds, at;/* collective: how many, and the next one */
    bool writing_done;  /* collective: this round's data is staged */
    int color, key;     /* split */
    struct ncclComm **newcomm;
    bool joining;       /* split: the child is joined, waiting for its other ranks */
    bool done;
    nccl_result failed; /* STEP_FAILED: why (its message is the thread's last error) */
};

enum step { STEP_WAIT, STEP_MOVED, STEP_DONE, STEP_FAILED };
/* Moves op on as far as the other ranks let it. */
enum step op_step(struct op *op) MOCK_INTERNAL;
/* Bytes of an element of type; 0 for a type the mock does not know. */
size_t type_size(int type) MOCK_INTERNAL;

/* ---- mock_nccl.c: configuration, faults, errors, groups ---- */
/* Sets the calling thread's last error (ncclGetLastError) and returns r;
 * `loud` also prints it: what the mock refuses to emulate. */
nccl_result mock_nccl_error(nccl_result r, bool loud, const char *fmt, ...) MOCK_INTERNAL
    __attribute__((format(printf, 3, 4)));
const char *mock_nccl_last_error(void) MOCK_INTERNAL;
double mock_now_ms(void) MOCK_INTERNAL;
/* Every exported call starts here: the settings are read once, the call
 * counted, and failed where MOCK_NCCL_FAIL says. */
nccl_result enter(const char *fn) MOCK_INTERNAL;
#define ENTER(fn)                                                                                              \
    do {                                                                                                       \
        nccl_result enter_ = enter(fn);                                                                        \
        if (enter_)                                                                                            \
            return enter_;                                                                                     \
    } while (0)
int mock_nccl_version(void) MOCK_INTERNAL;
/* Counts an operation; true when MOCK_NCCL_ASYNC_ERROR (or
 * mock_nccl_hang_next) picks it, its delay in *delay_ms. */
bool next_op_hangs(long *delay_ms) MOCK_INTERNAL;
void new_world_name(char *out, size_t cap) MOCK_INTERNAL;
/* The mock driver's view: the calling thread's device, the device count,
 * and whether [p, p + bytes) is its memory (else ncclInvalidArgument,
 * loudly); a failed driver call is ncclUnhandledCudaError naming it. */
nccl_result current_device(int *device) MOCK_INTERNAL;
nccl_result device_count(int *count) MOCK_INTERNAL;
nccl_result check_memory(const char *fn, const char *arg, const void *p, size_t bytes) MOCK_INTERNAL;
/* A new, live communicator; comm_free releases it and its world. */
struct ncclComm *comm_new(void) MOCK_INTERNAL;
void comm_free(struct ncclComm *c) MOCK_INTERNAL;
bool comm_live(const struct ncclComm *c) MOCK_INTERNAL;
#define NEED_COMM(c, fn)                                                                                       \
    do {                                                                                                       \
        if (!(c) || !comm_live(c))                                                                             \
            return mock_nccl_error(ncclInvalidArgument, false, "%s: comm %p is not a live communicator", fn,  \
                                   (void *)(c));                                                               \
    } while (0)
/* The operation on `stream` never finishes, as on a GPU whose peer is
 * gone: the stream stays busy, and after delay_ms (< 0: never)
 * ncclCommGetAsyncError reports ncclRemoteError saying `why`. */
void never_finishes(struct ncclComm *c, nccl_stream stream, double delay_ms, const char *why) MOCK_INTERNAL;
/* Queues op in the calling thread's group, or runs it now outside one. */
nccl_result submit(const struct op *op) MOCK_INTERNAL;
bool mock_nccl_in_group(void) MOCK_INTERNAL;
/* r, which a call inside a group also leaves for its end to report. */
nccl_result in_group(nccl_result r) MOCK_INTERNAL;

/* ---- reduce.c ---- */
/* out[i] = op over the ranks' in[r][i], for n elements of type. */
void reduce_elements(void *out, const void *const *in, int nranks, size_t n, int type, int op) MOCK_INTERNAL;

#endif
