/*
 * kernel_params.c - what each kernel takes, so a typed launch is checked
 * before the GPU sees it: the count and sizes from the driver
 * (cuFuncGetParamInfo, CUDA 12.4+), the count, sizes and kinds from the PTX
 * of the module it came from (when cudyn has that PTX), and the kernel's
 * name and context for messages.
 *
 * Launches read this on every cudyn_launchf, from many threads, so readers
 * take no lock: each slot is a seqlock.  A writer (under write_lock) makes
 * the sequence odd, changes the slot, and makes it even again; a reader
 * that saw an odd or changed sequence retries on the slow path.  Every
 * field is written with release and read with acquire order (no fences,
 * which ThreadSanitizer cannot follow; on x86 both are plain moves): a
 * reader that sees any new field then sees the odd sequence after it.  A slot
 * belongs to one function handle until that handle's module is unloaded
 * (the driver may hand the same address to another kernel later).
 */
#include "config.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "module/kernel_params.h"

/* A program may hold thousands of kernels (gpuarray keeps hundreds of
 * generated ones); a kernel that finds no free slot near its home goes
 * unchecked, so the table is large and the hash spreads handles well.
 * The pages of slots never used are never touched. */
#define SLOT_BITS 12
#define SLOTS (1u << SLOT_BITS)
#define PROBES 32

struct slot {
    atomic_uint seq;
    _Atomic(cudyn_function) f;
    atomic_int count; /* PARAMS_UNKNOWN: the launch goes unchecked */
    _Atomic(size_t) sizes[CUDYN_MAX_ARGS];
    _Atomic(unsigned char) classes[CUDYN_MAX_ARGS];
    /* read and written under write_lock only */
    cu_module module; /* NULL if unknown: forgotten at every unload */
    struct cudyn__kernel_identity who;
};

static struct slot slots[SLOTS];
static pthread_mutex_t write_lock = PTHREAD_MUTEX_INITIALIZER;
static atomic_uint epoch = 1; /* moves with every change of any slot */

unsigned int cudyn__kernel_epoch(void)
{
    return atomic_load_explicit(&epoch, memory_order_acquire);
}

/* Fibonacci hashing: the driver's handles are heap addresses a fixed
 * stride apart, whose low bits alone would crowd a few homes. */
static size_t home(cudyn_function f)
{
    return (size_t)(((uint64_t)(uintptr_t)f * UINT64_C(0x9E3779B97F4A7C15)) >> (64 - SLOT_BITS));
}

/* ---------------------------------------------------------- writers */

static void write_begin(struct slot *s)
{
    atomic_store_explicit(&s->seq, atomic_load_explicit(&s->seq, memory_order_relaxed) + 1, memory_order_relaxed);
}

static void write_end(struct slot *s)
{
    atomic_store_explicit(&s->seq, atomic_load_explicit(&s->seq, memory_order_relaxed) + 1, memory_order_release);
    atomic_fetch_add_explicit(&epoch, 1, memory_order_release);
}

static void fill(struct slot *s, cudyn_function f, const struct cudyn__kernel_facts *facts)
{
    write_begin(s);
    atomic_store_explicit(&s->f, f, memory_order_release);
    atomic_store_explicit(&s->count, facts->count, memory_order_release);
    for (int i = 0; i < facts->count && i < CUDYN_MAX_ARGS; i++) {
        atomic_store_explicit(&s->sizes[i], facts->sizes[i], memory_order_release);
        atomic_store_explicit(&s->classes[i], (unsigned char)facts->classes[i], memory_order_release);
    }
    s->module = facts->module;
    s->who = facts->who;
    write_end(s);
}

static void clear(struct slot *s)
{
    write_begin(s);
    atomic_store_explicit(&s->f, NULL, memory_order_release);
    s->module = NULL;
    write_end(s);
}

/* The slot for f, or a free one near its home (write_lock held). */
static struct slot *slot_for_writing(cudyn_function f)
{
    struct slot *free_slot = NULL;
    for (size_t probe = 0; probe < PROBES; probe++) {
        struct slot *s = &slots[(home(f) + probe) % SLOTS];
        cudyn_function key = atomic_load_explicit(&s->f, memory_order_relaxed);
        if (key == f)
            return s;
        if (!key && !free_slot)
            free_slot = s;
    }
    return free_slot; /* NULL: the neighbourhood is full; f goes unchecked */
}

void cudyn__kernel_register(cudyn_function f, const struct cudyn__kernel_facts *facts)
{
    pthread_mutex_lock(&write_lock);
    struct slot *s = slot_for_writing(f);
    if (s)
        fill(s, f, facts);
    pthread_mutex_unlock(&write_lock);
}

bool cudyn__kernel_known(cudyn_function f, cu_module module)
{
    pthread_mutex_lock(&write_lock);
    struct slot *s = slot_for_writing(f);
    bool known = s && atomic_load_explicit(&s->f, memory_order_relaxed) == f && s->module == module;
    pthread_mutex_unlock(&write_lock);
    return known;
}

void cudyn__kernel_forget_module(cu_module module)
{
    pthread_mutex_lock(&write_lock);
    for (size_t i = 0; i < SLOTS; i++)
        if (atomic_load_explicit(&slots[i].f, memory_order_relaxed) &&
            (slots[i].module == module || slots[i].module == NULL))
            clear(&slots[i]);
    pthread_mutex_unlock(&write_lock);
}

void cudyn__kernel_forget_all(void)
{
    pthread_mutex_lock(&write_lock);
    for (size_t i = 0; i < SLOTS; i++)
        if (atomic_load_explicit(&slots[i].f, memory_order_relaxed))
            clear(&slots[i]);
    pthread_mutex_unlock(&write_lock);
}

/* ---------------------------------------------------------- readers */

enum verdict { VERDICT_UNKNOWN, VERDICT_UNCHECKED, VERDICT_MATCH, VERDICT_MISMATCH };

/* Compares a format with one slot; VERDICT_UNKNOWN if the slot is not f's
 * or changed while read. */
static enum verdict compare(struct slot *s, cudyn_function f, const struct cudyn__format *fmt)
{
    unsigned int seq = atomic_load_explicit(&s->seq, memory_order_acquire);
    if (seq & 1u)
        return VERDICT_UNKNOWN;
    enum verdict v = VERDICT_UNKNOWN;
    if (atomic_load_explicit(&s->f, memory_order_acquire) == f) {
        int count = atomic_load_explicit(&s->count, memory_order_acquire);
        if (count == PARAMS_UNKNOWN)
            v = VERDICT_UNCHECKED;
        else if (count != fmt->n)
            v = VERDICT_MISMATCH;
        else {
            v = VERDICT_MATCH;
            for (int i = 0; i < count && v == VERDICT_MATCH; i++)
                if (atomic_load_explicit(&s->sizes[i], memory_order_acquire) != fmt->args[i].size ||
                    !cudyn__param_accepts(atomic_load_explicit(&s->classes[i], memory_order_acquire),
                                          fmt->args[i].kind, fmt->args[i].size))
                    v = VERDICT_MISMATCH;
        }
    }
    return atomic_load_explicit(&s->seq, memory_order_relaxed) == seq ? v : VERDICT_UNKNOWN;
}

static enum verdict lookup(cudyn_function f, const struct cudyn__format *fmt)
{
    for (size_t probe = 0; probe < PROBES; probe++) {
        enum verdict v = compare(&slots[(home(f) + probe) % SLOTS], f, fmt);
        if (v != VERDICT_UNKNOWN)
            return v;
    }
    return VERDICT_UNKNOWN;
}

/* ------------------------------------------------------ the slow path */

static const char *class_name(enum cudyn__param_class cls)
{
    switch (cls) {
    case PARAM_INTEGER: return "an integer";
    case PARAM_FLOAT: return "a floating-point value";
    case PARAM_POINTER: return "a pointer";
    case PARAM_BYTES: return "a struct or array";
    default: return "a value";
    }
}

/* The message for a format that does not match (write_lock held, so the
 * slot cannot change under it). */
static int mismatch(const char *api, const struct slot *s, const struct cudyn__format *fmt, const char *fmt_text)
{
    const char *name = s->who.name[0] ? s->who.name : "the kernel";
    int count = atomic_load_explicit(&s->count, memory_order_relaxed);
    if (count != fmt->n)
        return cudyn__fail(CUDYN_ERROR_INVALID_LAUNCH_ARGUMENTS, CUDYN_ORIGIN_LIBRARY, 0, NULL, api, NULL,
                           "%s: %s takes %d parameter%s, the format \"%.64s\" gives %d", api, name, count,
                           count == 1 ? "" : "s", fmt_text, fmt->n);
    for (int i = 0; i < count; i++) {
        size_t size = atomic_load_explicit(&s->sizes[i], memory_order_relaxed);
        enum cudyn__param_class cls = atomic_load_explicit(&s->classes[i], memory_order_relaxed);
        const struct cudyn__arg_spec *a = &fmt->args[i];
        if (size != a->size)
            return cudyn__fail(CUDYN_ERROR_INVALID_LAUNCH_ARGUMENTS, CUDYN_ORIGIN_LIBRARY, 0, NULL, api, NULL,
                               "%s: %s: parameter %d is %zu bytes, argument %d ('%c', %s) is %zu", api, name, i + 1,
                               size, i + 1, a->code, a->what, a->size);
        if (!cudyn__param_accepts(cls, a->kind, a->size))
            return cudyn__fail(CUDYN_ERROR_INVALID_LAUNCH_ARGUMENTS, CUDYN_ORIGIN_LIBRARY, 0, NULL, api, NULL,
                               "%s: %s: parameter %d is %s (its PTX says so), argument %d ('%c') is %s", api, name,
                               i + 1, class_name(cls), i + 1, a->code, a->what);
    }
    return CUDYN_OK; /* it matches after all: it changed since the fast path looked */
}

static void kernel_query(cudyn_function f, struct cudyn__kernel_facts *facts); /* below, with the driver's facts */

int cudyn__kernel_check(const char *api, cudyn_function f, const struct cudyn__format *fmt, const char *fmt_text,
                        bool *checked)
{
    enum verdict v = lookup(f, fmt);
    if (CUDYN_LIKELY(v == VERDICT_MATCH || v == VERDICT_UNCHECKED)) {
        *checked = v == VERDICT_MATCH;
        return CUDYN_OK;
    }
    if (v == VERDICT_UNKNOWN) {
        /* first launch of a kernel cudyn did not look up itself (or a
         * slot being rewritten): ask the driver, outside the lock */
        struct cudyn__kernel_facts facts;
        kernel_query(f, &facts);
        cudyn__kernel_register(f, &facts);
        v = lookup(f, fmt);
        if (v == VERDICT_UNKNOWN) { /* no room near its home: unchecked */
            *checked = false;
            return CUDYN_OK;
        }
        if (v != VERDICT_MISMATCH) {
            *checked = v == VERDICT_MATCH;
            return CUDYN_OK;
        }
    }
    pthread_mutex_lock(&write_lock);
    struct slot *s = slot_for_writing(f);
    bool still_there = s && atomic_load_explicit(&s->f, memory_order_relaxed) == f;
    int st = still_there ? mismatch(api, s, fmt, fmt_text) : CUDYN_OK;
    pthread_mutex_unlock(&write_lock);
    *checked = still_there; /* gone meanwhile (its module was unloaded): unchecked */
    return st;
}

/* f's name and module from the driver, unless the caller knows the module
 * (it looked f up by name in it). */
static void identify(cudyn_function f, cu_module module, struct cudyn__kernel_facts *facts)
{
    memset(facts, 0, sizeof *facts);
    cu_function fn = (cu_function)(void *)f;
    const char *name = NULL;
    if (!module && DRIVER_HAS(cuFuncGetName) && cudyn__drv.cuFuncGetName(&name, fn) == CU_OK && name)
        cudyn__copy_string(facts->who.name, sizeof facts->who.name, name);
    facts->module = module;
    if (!module && (!DRIVER_HAS(cuFuncGetModule) || cudyn__drv.cuFuncGetModule(&facts->module, fn) != CU_OK))
        facts->module = NULL;
}

/* The sizes of f's parameters from cuFuncGetParamInfo.  With the count
 * known (from the PTX cudyn compiled or generated, or the CUBIN's own
 * records), only those parameters are asked for, so no call fails (a tool
 * such as compute-sanitizer reports every failing driver call as an error
 * of the program).  Without it, the driver is asked until it answers
 * CUDA_ERROR_INVALID_VALUE past the last one: the last resort, for kernels
 * of images cudyn knows nothing of. */
static int param_sizes(cudyn_function f, int known_count, struct cudyn__kernel_facts *facts)
{
    cu_function fn = (cu_function)(void *)f;
    if (!DRIVER_HAS(cuFuncGetParamInfo))
        return PARAMS_UNKNOWN;
    if (known_count >= 0 && known_count <= CUDYN_MAX_ARGS) {
        for (int i = 0; i < known_count; i++) {
            size_t offset = 0, size = 0;
            if (cudyn__drv.cuFuncGetParamInfo(fn, (size_t)i, &offset, &size) != CU_OK)
                return PARAMS_UNKNOWN; /* the driver cannot say, or disagrees: the PTX alone stands */
            facts->sizes[i] = size;
        }
        return known_count;
    }
    for (int i = 0; i <= CUDYN_MAX_ARGS; i++) {
        size_t offset = 0, size = 0;
        cu_result r = cudyn__drv.cuFuncGetParamInfo(fn, (size_t)i, &offset, &size);
        if (r == CU_ERR_INVALID_VALUE) /* past the last parameter */
            return i;
        if (r != CU_OK || i == CUDYN_MAX_ARGS)
            break; /* the driver cannot say */
        facts->sizes[i] = size;
    }
    return PARAMS_UNKNOWN;
}

int cudyn__kernel_driver_facts(cudyn_function f, cu_module module, int known_count, struct cudyn__kernel_facts *facts)
{
    identify(f, module, facts);
    return param_sizes(f, known_count, facts);
}

/* What the driver and the module can tell about a kernel cudyn did not
 * look up itself (no lock held: these are driver calls). */
static void kernel_query(cudyn_function f, struct cudyn__kernel_facts *facts)
{
    identify(f, NULL, facts);
    struct cudyn__ptx_kernel ptx = {.count = -1};
    if (facts->module)
        cudyn__module_ptx_params(facts->module, facts->who.name, &ptx, &facts->who.ctx);
    int driver_count = param_sizes(f, ptx.count, facts);
    cudyn__kernel_merge(facts, driver_count, &ptx);
}

/* The driver's count and sizes win; the PTX adds the kinds where both
 * agree on the count, and stands alone where the driver cannot say. */
void cudyn__kernel_merge(struct cudyn__kernel_facts *facts, int driver_count, const struct cudyn__ptx_kernel *ptx)
{
    facts->count = driver_count;
    for (int i = 0; i < CUDYN_MAX_ARGS; i++)
        facts->classes[i] = PARAM_UNKNOWN;
    if (ptx->count < 0 || (driver_count != PARAMS_UNKNOWN && driver_count != ptx->count))
        return;
    facts->count = ptx->count;
    for (int i = 0; i < ptx->count; i++) {
        if (driver_count == PARAMS_UNKNOWN)
            facts->sizes[i] = ptx->params[i].size;
        facts->classes[i] = facts->sizes[i] == ptx->params[i].size ? ptx->params[i].cls : PARAM_UNKNOWN;
    }
}

bool cudyn__kernel_identify(cudyn_function f, struct cudyn__kernel_identity *who)
{
    bool found = false;
    pthread_mutex_lock(&write_lock);
    for (size_t probe = 0; probe < PROBES && !found; probe++) {
        struct slot *s = &slots[(home(f) + probe) % SLOTS];
        if (atomic_load_explicit(&s->f, memory_order_relaxed) == f) {
            *who = s->who;
            found = true;
        }
    }
    pthread_mutex_unlock(&write_lock);
    return found;
}
