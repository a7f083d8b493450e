/*
 * newer.c - a fake libnvJitLink.so.14: an nvJitLink of a major newer than
 * any whose calls cudyn knows (lib/nvjitlink_abi.h), which cudyn must
 * refuse when it finds it (test_link).  It says it is 14.0 and exports
 * every required function of lib/nvjitlink_symbols.h, so that only the
 * version can refuse it; each of them, called, says so on stderr and
 * fails: a new major's calls may differ, so none is ever emulated.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>

#include "nvjitlink_abi.h"

#define NEWER_MAJOR 14

#define EXPORT __attribute__((visibility("default")))

EXPORT nvjitlink_result nvJitLinkVersion(unsigned int *major, unsigned int *minor);
EXPORT nvjitlink_result nvJitLinkVersion(unsigned int *major, unsigned int *minor)
{
    *major = NEWER_MAJOR;
    *minor = 0;
    return NVJITLINK_OK;
}

static nvjitlink_result called(const char *name)
{
    fprintf(stderr, "fake nvJitLink %d.0: %s called, which cudyn must not do\n", NEWER_MAJOR, name);
    return 6; /* NVJITLINK_ERROR_INTERNAL */
}

#pragma GCC diagnostic ignored "-Wunused-parameter"
#define ROW_REQUIRED(name, params)                                                                             \
    EXPORT nvjitlink_result name params;                                                                       \
    EXPORT nvjitlink_result name params                                                                        \
    {                                                                                                          \
        return called(#name);                                                                                  \
    }
#define ROW_OPTIONAL(name, params)
#define NVJITLINK_SYMBOL(name, since, need, how, params) ROW_##need(name, params)
#include "nvjitlink_symbols.h"
#undef NVJITLINK_SYMBOL
