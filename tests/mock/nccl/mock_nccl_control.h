/*
 * mock_nccl_control.h - lets a test steer and read the mock libnccl: the
 * NCCL cudyn loaded, found through cudyn_nccl_info.  Each returns -1 (or
 * does nothing) when that NCCL is not the mock.
 */
#ifndef CUDYN_MOCK_NCCL_CONTROL_H
#define CUDYN_MOCK_NCCL_CONTROL_H

#include "cudyn.h"
#include "../loaded_symbol.h"

static inline void *mock_nccl_symbol(const char *name)
{
    struct cudyn_nccl_info info = {.size = sizeof info};
    return cudyn_nccl_info(&info) == CUDYN_OK ? mock_loaded_symbol(info.path, name) : NULL;
}

/* Calls of an exported NCCL function so far. */
static inline long mock_nccl_call_count(const char *fn)
{
    long (*calls)(const char *) = (long (*)(const char *))mock_nccl_symbol("mock_nccl_calls");
    return calls ? calls(fn) : -1;
}

/* Makes the next call of fn return the ncclResult_t code. */
static inline int mock_nccl_fail(const char *fn, int code)
{
    void (*fail)(const char *, int) = (void (*)(const char *, int))mock_nccl_symbol("mock_nccl_fail_next");
    if (!fail)
        return -1;
    fail(fn, code);
    return 0;
}

/* Makes the next collective, send or receive never finish; its
 * communicator reports ncclRemoteError after delay_ms (-1: never). */
static inline int mock_nccl_hang(long delay_ms)
{
    void (*hang)(long) = (void (*)(long))mock_nccl_symbol("mock_nccl_hang_next");
    if (!hang)
        return -1;
    hang(delay_ms);
    return 0;
}

/* Communicators of the mock alive now. */
static inline int mock_nccl_comms(void)
{
    int (*live)(void) = (int (*)(void))mock_nccl_symbol("mock_nccl_live_comms");
    return live ? live() : -1;
}

#endif
