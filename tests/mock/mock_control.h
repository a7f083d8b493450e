/*
 * mock_control.h - lets a test read what the mock driver saw.  The mock is
 * whatever libcuda.so.1 cudyn loaded, found through cudyn_loader_info.
 */
#ifndef CUDYN_MOCK_CONTROL_H
#define CUDYN_MOCK_CONTROL_H

#include <stddef.h>

#include "cudyn.h"
#include "loaded_symbol.h"

static inline void *mock_symbol(const char *name)
{
    struct cudyn_loader_info info = {.size = sizeof info};
    return cudyn_loader_info(&info) == CUDYN_OK ? mock_loaded_symbol(info.driver_path, name) : NULL;
}

/* Calls of an exported mock function so far; -1 if not running on the mock. */
static inline long mock_call_count(const char *fn)
{
    long (*calls)(const char *) = (long (*)(const char *))mock_symbol("mock_calls");
    return calls ? calls(fn) : -1;
}

/* Calls the mock refused as a real driver would, of one kind ("param_info":
 * cuFuncGetParamInfo past the last parameter; "shared": a launch over the
 * kernel's dynamic shared-memory limit); -1 if not running on the mock. */
static inline long mock_refusal_count(const char *what)
{
    long (*refusals)(const char *) = (long (*)(const char *))mock_symbol("mock_refusals");
    return refusals ? refusals(what) : -1;
}

/* "name@version[/pt];" for every cuGetProcAddress request. */
static inline const char *mock_requests(void)
{
    const char *(*log)(void) = (const char *(*)(void))mock_symbol("mock_proc_log");
    return log ? log() : "";
}

static inline size_t mock_device_memory_in_use(void)
{
    size_t (*used)(void) = (size_t(*)(void))mock_symbol("mock_memory_in_use");
    return used ? used() : 0;
}

/* Makes the next call of the exported driver function fn return code. */
static inline int mock_fail_next(const char *fn, unsigned int code)
{
    void (*fail)(const char *, unsigned int) = (void (*)(const char *, unsigned int))mock_symbol("mock_fail_next");
    if (!fail)
        return -1;
    fail(fn, code);
    return 0;
}

/* Makes the nth call from now (1: the next) of fn return code; code 0
 * cancels a failure still pending. */
static inline int mock_fail_nth_call(const char *fn, long nth, unsigned int code)
{
    void (*fail)(const char *, long, unsigned int) =
        (void (*)(const char *, long, unsigned int))mock_symbol("mock_fail_call");
    if (!fail)
        return -1;
    fail(fn, nth, code);
    return 0;
}

/* Makes module loads of one kind fail: "ptx" (222), "cubin" (209), "" none. */
static inline int mock_reject_images(const char *kind)
{
    void (*reject)(const char *) = (void (*)(const char *))mock_symbol("mock_reject_images");
    if (!reject)
        return -1;
    reject(kind);
    return 0;
}

/* The bytes the mock's "record" kernel last received; returns their count. */
static inline size_t mock_recorded_args(void *buf, size_t cap)
{
    size_t (*rec)(void *, size_t) = (size_t(*)(void *, size_t))mock_symbol("mock_recorded");
    return rec ? rec(buf, cap) : 0;
}

/* Contexts that exist in the mock now: primary contexts someone retains,
 * and created contexts not destroyed; -1 if not running on the mock. */
static inline int mock_context_count(void)
{
    int (*alive)(void) = (int (*)(void))mock_symbol("mock_contexts_alive");
    return alive ? alive() : -1;
}

/* The calling thread's current context (the top of its stack) as the mock
 * sees it, without a driver call; NULL if it has none or not on the mock. */
static inline void *mock_current_context(void)
{
    void *(*current)(void) = (void *(*)(void))mock_symbol("mock_context_current");
    return current ? current() : NULL;
}

/* Depth of the calling thread's context stack; -1 if not on the mock. */
static inline int mock_context_stack_depth(void)
{
    int (*depth)(void) = (int (*)(void))mock_symbol("mock_context_depth");
    return depth ? depth() : -1;
}

/* Device-to-device copies between the memory of two different devices so
 * far, that went through peer access (through_peer = 1: the context of one
 * side had enabled access to the other's) or not (0); -1 if not on the mock. */
static inline long mock_peer_copy_count(int through_peer)
{
    long (*copies)(int) = (long (*)(int))mock_symbol("mock_cross_device_copies");
    return copies ? copies(through_peer) : -1;
}

/* CUDA arrays, texture and surface objects, and graphs plus graph
 * instances that exist in the mock now; -1 if not on the mock. */
static inline int mock_live_count(const char *what)
{
    int (*alive)(void) = (int (*)(void))mock_symbol(what);
    return alive ? alive() : -1;
}
#define mock_array_count() mock_live_count("mock_arrays_alive")
#define mock_texture_count() mock_live_count("mock_textures_alive")
#define mock_graph_count() mock_live_count("mock_graphs_alive")

/* Where managed memory holding ptr was last prefetched to: a device
 * ordinal, -1 the host, -2 never; -3 if ptr is not managed memory (or
 * not on the mock). */
static inline int mock_prefetch_location(cudyn_devptr ptr)
{
    int (*where)(uintptr_t) = (int (*)(uintptr_t))mock_symbol("mock_managed_location");
    return where ? where((uintptr_t)ptr) : -3;
}

#endif
