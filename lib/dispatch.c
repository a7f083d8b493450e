/*
 * dispatch.c - binds the driver and NVRTC symbol tables.
 *
 * Every slot starts as a stub with the right signature that records
 * "symbol not found" naming its function, so no slot is ever NULL.  Binding
 * asks the driver for each row at exactly the row's ABI version:
 * cuGetProcAddress_v2 (CUDA 12.0+), else the 4-argument cuGetProcAddress
 * (11.3-11.8), else dlsym of the exact exported name.  Rows newer than the
 * driver are never requested: a driver asked for a version it does not know
 * may hand back an older variant with another signature.
 */
#include "config.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

struct cudyn__driver_table cudyn__drv;
bool cudyn__drv_present[DRIVER_ROW_COUNT];
struct cudyn__nvrtc_table cudyn__nvrtc;
bool cudyn__nvrtc_present[NVRTC_ROW_COUNT];
atomic_int cudyn__driver_bound_version;
atomic_int cudyn__nvrtc_bound_version;
atomic_uint cudyn__context_generation = 1;

/* ---- stubs: the parameters exist only to match each slot's type ---- */
/* The last stub of each library this thread called: taken, and cleared,
 * by the next look at a failure of that library, so that what a caller
 * ignored never names a later failure of the other library (a driver
 * stub's mark once made a real NVRTC internal error "missing"). */
static _Thread_local const char *tls_missing_driver_symbol;
static _Thread_local const char *tls_missing_nvrtc_symbol;

static const char *take_missing_symbol(const char **mark, bool stub_answer)
{
    const char *name = *mark;
    *mark = NULL;
    return stub_answer ? name : NULL;
}

const char *cudyn__driver_stub_answered(cu_result r)
{
    return take_missing_symbol(&tls_missing_driver_symbol, r == CU_ERR_CALL_REQUIRES_NEWER_DRIVER);
}

const char *cudyn__nvrtc_stub_answered(nvrtc_result r)
{
    return take_missing_symbol(&tls_missing_nvrtc_symbol, r == NVRTC_ERR_INTERNAL);
}

#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"
#endif
#define DRIVER_SYMBOL(exported, base, version, stream, need, params) \
    static cu_result stub_##exported params                          \
    {                                                                \
        tls_missing_driver_symbol = #base;                           \
        return CU_ERR_CALL_REQUIRES_NEWER_DRIVER;                    \
    }
#include "driver_symbols.h"
#undef DRIVER_SYMBOL
#define NVRTC_SYMBOL(name, since, need, params) \
    static nvrtc_result stub_##name params      \
    {                                           \
        tls_missing_nvrtc_symbol = #name;       \
        return NVRTC_ERR_INTERNAL;              \
    }
#include "nvrtc_symbols.h"
#undef NVRTC_SYMBOL
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

/* ---- the rows as data ---- */
struct driver_row {
    const char *base;
    const char *exported;
    int version;
    int stream;
    int need;
    size_t offset;      /* slot in struct cudyn__driver_table */
    void (*stub)(void); /* cast back to the slot's type on use */
};

static const struct driver_row driver_rows[DRIVER_ROW_COUNT] = {
#define DRIVER_SYMBOL(exported, base, version, stream, need, params) \
    {#base, #exported, version, stream, need, offsetof(struct cudyn__driver_table, exported), (void (*)(void))stub_##exported},
#include "driver_symbols.h"
#undef DRIVER_SYMBOL
};

struct nvrtc_row {
    const char *name;
    int since;
    int need;
    size_t offset;
    void (*stub)(void);
};

static const struct nvrtc_row nvrtc_rows[NVRTC_ROW_COUNT] = {
#define NVRTC_SYMBOL(name, since, need, params) \
    {#name, since, need, offsetof(struct cudyn__nvrtc_table, name), (void (*)(void))stub_##name},
#include "nvrtc_symbols.h"
#undef NVRTC_SYMBOL
};

/* Slots hold function pointers of many types; POSIX guarantees they share
 * the representation of void *, which dlsym relies on too. */
static void set_slot(void *table, size_t offset, void *fn)
{
    memcpy((char *)table + offset, &fn, sizeof fn);
}

static void set_stub(void *table, size_t offset, void (*stub)(void))
{
    memcpy((char *)table + offset, &stub, sizeof stub);
}

/* Fills every slot with its stub: the state before (or without) a driver. */
static void reset_driver_table(void)
{
    for (int i = 0; i < DRIVER_ROW_COUNT; i++) {
        set_stub(&cudyn__drv, driver_rows[i].offset, driver_rows[i].stub);
        cudyn__drv_present[i] = false;
    }
}

typedef cu_result (*get_proc_v2_fn)(const char *symbol, void **fn, int version, cu_uint64 flags,
                                    cu_enum *status);
typedef cu_result (*get_proc_v1_fn)(const char *symbol, void **fn, int version, cu_uint64 flags);

static const char *stream_suffix(int stream)
{
    return stream == PTDS ? "_ptds" : stream == PTSZ ? "_ptsz" : "";
}

/* How to ask the driver for an entry point: the mechanism and its function,
 * looked up once per binding. */
struct resolver {
    void *handle;
    int mechanism;
    bool per_thread_stream;
    get_proc_v2_fn get_v2;
    get_proc_v1_fn get_v1;
};

static struct resolver make_resolver(void *handle, int mechanism, bool per_thread_stream)
{
    struct resolver r = {handle, mechanism, per_thread_stream, NULL, NULL};
    if (mechanism == CUDYN_ENTRY_PROC_ADDRESS_V2)
        r.get_v2 = (get_proc_v2_fn)dlsym(handle, "cuGetProcAddress_v2");
    else if (mechanism == CUDYN_ENTRY_PROC_ADDRESS_V1)
        r.get_v1 = (get_proc_v1_fn)dlsym(handle, "cuGetProcAddress");
    return r;
}

/* Asks the driver for `base` at exactly `version`; NULL if it has none. */
static void *proc_address(const struct resolver *res, const char *base, const char *exported_for_dlsym, int version)
{
    cu_uint64 flags = res->per_thread_stream ? CU_PROC_ADDRESS_PER_THREAD_STREAM : CU_PROC_ADDRESS_LEGACY_STREAM;
    void *fn = NULL;
    if (res->get_v2) {
        cu_enum found = CU_PROC_ADDRESS_SYMBOL_NOT_FOUND;
        if (res->get_v2(base, &fn, version, flags, &found) != CU_OK || found != CU_PROC_ADDRESS_SUCCESS)
            fn = NULL;
    } else if (res->get_v1) {
        if (res->get_v1(base, &fn, version, flags) != CU_OK)
            fn = NULL;
    } else if (exported_for_dlsym) {
        fn = dlsym(res->handle, exported_for_dlsym);
    }
    return fn;
}

static int pick_mechanism(void *handle)
{
    if (dlsym(handle, "cuGetProcAddress_v2"))
        return CUDYN_ENTRY_PROC_ADDRESS_V2;
    if (dlsym(handle, "cuGetProcAddress"))
        return CUDYN_ENTRY_PROC_ADDRESS_V1;
    return CUDYN_ENTRY_DLSYM;
}

static void *slot_value(size_t offset)
{
    void *fn;
    memcpy(&fn, (char *)&cudyn__drv + offset, sizeof fn);
    return fn;
}

/* cuGetProcAddress answers a request for (base, version) with the newest
 * variant at or below that version: a driver lacking the newer variant
 * hands out the older one, whose signature may differ.  A newer row that
 * got the same function as an older row of its base is therefore absent. */
static void drop_stand_ins(struct cudyn__text *trace, struct cudyn__bind_result *out)
{
    for (int i = 0; i < DRIVER_ROW_COUNT; i++) {
        if (!cudyn__drv_present[i])
            continue;
        for (int j = 0; j < DRIVER_ROW_COUNT; j++) {
            if (j == i || !cudyn__drv_present[j] || driver_rows[j].version >= driver_rows[i].version ||
                strcmp(driver_rows[j].base, driver_rows[i].base) != 0 ||
                slot_value(driver_rows[j].offset) != slot_value(driver_rows[i].offset))
                continue;
            set_stub(&cudyn__drv, driver_rows[i].offset, driver_rows[i].stub);
            cudyn__drv_present[i] = false;
            out->bound--;
            out->missing++;
            cudyn__text_add(trace, "  %s: the driver answered with its older variant %s; treated as absent",
                           driver_rows[i].exported, driver_rows[j].exported);
            break;
        }
    }
}

void cudyn__bind_driver(void *handle, int driver_version, bool per_thread_stream, struct cudyn__text *trace,
                       struct cudyn__bind_result *out)
{
    memset(out, 0, sizeof *out);
    reset_driver_table();
    out->mechanism = pick_mechanism(handle);
    struct resolver res = make_resolver(handle, out->mechanism, per_thread_stream);
    cudyn__text_add(trace, "binding %d entry points with %s, %s default stream", DRIVER_ROW_COUNT,
                   cudyn__mechanism_name(out->mechanism), per_thread_stream ? "per-thread" : "legacy");

    for (int i = 0; i < DRIVER_ROW_COUNT; i++) {
        const struct driver_row *row = &driver_rows[i];
        void *fn = NULL;
        if (row->version <= driver_version) {
            char exported[96];
            snprintf(exported, sizeof exported, "%s%s", row->exported,
                     per_thread_stream ? stream_suffix(row->stream) : "");
            fn = proc_address(&res, row->base, exported, row->version);
        }
        if (fn) {
            set_slot(&cudyn__drv, row->offset, fn);
            cudyn__drv_present[i] = true;
            out->bound++;
            continue;
        }
        out->missing++;
        if (row->version > driver_version)
            cudyn__text_add(trace, "  %s (%s @ %d): not requested, newer than the driver (%d)", row->exported,
                           row->base, row->version, driver_version);
        else
            cudyn__text_add(trace, "  %s (%s @ %d): not provided by the driver%s", row->exported, row->base,
                           row->version, row->need == REQUIRED ? " (REQUIRED)" : "");
        if (row->need == REQUIRED && !out->first_missing_required)
            out->first_missing_required = row->exported;
    }
    drop_stand_ins(trace, out);
    cudyn__text_add(trace, "bound %d of %d entry points; %d missing (stubs answer \"symbol not found\")", out->bound,
                   DRIVER_ROW_COUNT, out->missing);
}

void cudyn__bind_nvrtc(void *handle, struct cudyn__text *trace, struct cudyn__bind_result *out)
{
    memset(out, 0, sizeof *out);
    out->mechanism = CUDYN_ENTRY_DLSYM;
    for (int i = 0; i < NVRTC_ROW_COUNT; i++) {
        const struct nvrtc_row *row = &nvrtc_rows[i];
        void *fn = dlsym(handle, row->name);
        if (fn) {
            set_slot(&cudyn__nvrtc, row->offset, fn);
            cudyn__nvrtc_present[i] = true;
            out->bound++;
            continue;
        }
        set_stub(&cudyn__nvrtc, row->offset, row->stub);
        cudyn__nvrtc_present[i] = false;
        out->missing++;
        cudyn__text_add(trace, "  %s: not provided (NVRTC %d.%d+)%s", row->name, row->since / 1000,
                       row->since % 1000 / 10, row->need == REQUIRED ? " (REQUIRED)" : "");
        if (row->need == REQUIRED && !out->first_missing_required)
            out->first_missing_required = row->name;
    }
}

/* ---- lookups by name ---- */

/* 1 if a row for `name` (base or exported) is bound, 0 if rows exist but
 * none is bound, -1 if the table has no such row. */
int cudyn__table_has(const char *name)
{
    int known = -1;
    for (int i = 0; i < DRIVER_ROW_COUNT; i++) {
        if (strcmp(driver_rows[i].base, name) != 0 && strcmp(driver_rows[i].exported, name) != 0)
            continue;
        if (cudyn__drv_present[i])
            return 1;
        known = 0;
    }
    return known;
}

void *cudyn__resolve_driver_proc(void *handle, int mechanism, int driver_version, bool per_thread_stream,
                                const char *name, int abi_version)
{
    struct resolver res = make_resolver(handle, mechanism, per_thread_stream);
    if (mechanism != CUDYN_ENTRY_DLSYM)
        return proc_address(&res, name, NULL, abi_version);

    /* dlsym only: map (base, version) to the newest exported variant the
     * table knows at or below abi_version; otherwise take the name as is. */
    const struct driver_row *best = NULL;
    for (int i = 0; i < DRIVER_ROW_COUNT; i++) {
        const struct driver_row *row = &driver_rows[i];
        if (strcmp(row->base, name) == 0 && row->version <= abi_version && row->version <= driver_version &&
            (!best || row->version > best->version))
            best = row;
    }
    char exported[96];
    snprintf(exported, sizeof exported, "%s%s", best ? best->exported : name,
             best && per_thread_stream ? stream_suffix(best->stream) : "");
    return dlsym(handle, exported);
}

