/*
 * mock_nvrtc_control.h - lets a test read what the mock NVRTC saw and make
 * its calls fail.  The mock is whatever libnvrtc cudyn loaded, found
 * through cudyn_loader_info; every function answers -1 when that is not
 * the mock (the real NVRTC, or none).
 */
#ifndef CUDYN_MOCK_NVRTC_CONTROL_H
#define CUDYN_MOCK_NVRTC_CONTROL_H

#include <stddef.h>

#include "cudyn.h"
#include "../loaded_symbol.h"

static inline void *mock_nvrtc_symbol(const char *name)
{
    struct cudyn_loader_info info = {.size = sizeof info};
    return cudyn_loader_info(&info) == CUDYN_OK ? mock_loaded_symbol(info.nvrtc_path, name) : NULL;
}

/* Calls of the exported NVRTC function fn so far (NULL: of all of them). */
static inline long mock_nvrtc_call_count(const char *fn)
{
    long (*calls)(const char *) = (long (*)(const char *))mock_nvrtc_symbol("mock_nvrtc_calls");
    return calls ? calls(fn) : -1;
}

/* Makes the next call of the exported NVRTC function fn return code (an
 * nvrtcResult). */
static inline int mock_nvrtc_fail_next_call(const char *fn, int code)
{
    void (*fail)(const char *, int) = (void (*)(const char *, int))mock_nvrtc_symbol("mock_nvrtc_fail_next");
    if (!fail)
        return -1;
    fail(fn, code);
    return 0;
}

/* Programs created and not yet destroyed: 0 when cudyn cleaned up. */
static inline long mock_nvrtc_programs_alive(void)
{
    long (*alive)(void) = (long (*)(void))mock_nvrtc_symbol("mock_nvrtc_live_programs");
    return alive ? alive() : -1;
}

#endif
