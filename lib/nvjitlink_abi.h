/*
 * nvjitlink_abi.h - the few nvJitLink types and constants cudyn uses,
 * declared here (no nvJitLink.h is needed to build), as CUDA 12 and 13's
 * nvJitLink.h define them.  Names are cudyn's own (nvjitlink_result ...),
 * so that this header and a real nvJitLink.h can meet in one translation
 * unit.
 *
 * nvJitLink exports each function under its plain name and, from the
 * header's inline wrappers, as __<name>_<major>_0 ("__nvJitLinkCreate_13_0"):
 * the loader binds the second for the library's major version when it has
 * it, so that a call keeps the ABI of the major it was written for.
 */
#ifndef CUDYN_NVJITLINK_ABI_H
#define CUDYN_NVJITLINK_ABI_H

#include <stddef.h>
#include <stdint.h>

/* The majors whose nvJitLink.h these declarations and nvjitlink_symbols.h
 * follow.  A call is bound to its major's ABI (__<name>_<major>_0), and a
 * newer major's header may change it: loader/nvjitlink.c refuses a
 * library outside these, naming its version and the bounds. */
#define NVJITLINK_OLDEST_MAJOR 12
#define NVJITLINK_NEWEST_MAJOR 13

typedef struct nvJitLink *nvjitlink_handle; /* nvJitLinkHandle */
typedef unsigned int nvjitlink_result;
typedef unsigned int nvjitlink_input_type;

#define NVJITLINK_OK 0

/* nvJitLinkResult: X(name, value, the cudyn status it becomes).  A link
 * that fails on its inputs is CUDYN_ERROR_LINK, with the log. */
#define NVJITLINK_RESULT_MAP(X)                                                                                \
    X(NVJITLINK_ERROR_UNRECOGNIZED_OPTION, 1, CUDYN_ERROR_INVALID_ARGUMENT)                                    \
    X(NVJITLINK_ERROR_MISSING_ARCH, 2, CUDYN_ERROR_INVALID_ARGUMENT)                                           \
    X(NVJITLINK_ERROR_INVALID_INPUT, 3, CUDYN_ERROR_INVALID_IMAGE)                                             \
    X(NVJITLINK_ERROR_PTX_COMPILE, 4, CUDYN_ERROR_LINK)                                                        \
    X(NVJITLINK_ERROR_NVVM_COMPILE, 5, CUDYN_ERROR_LINK)                                                       \
    X(NVJITLINK_ERROR_INTERNAL, 6, CUDYN_ERROR_LINK)                                                           \
    X(NVJITLINK_ERROR_THREADPOOL, 7, CUDYN_ERROR_SYSTEM)                                                       \
    X(NVJITLINK_ERROR_UNRECOGNIZED_INPUT, 8, CUDYN_ERROR_INVALID_IMAGE)                                        \
    X(NVJITLINK_ERROR_FINALIZE, 9, CUDYN_ERROR_LINK)                                                           \
    X(NVJITLINK_ERROR_NULL_INPUT, 10, CUDYN_ERROR_INVALID_ARGUMENT)                                            \
    X(NVJITLINK_ERROR_INCOMPATIBLE_OPTIONS, 11, CUDYN_ERROR_INVALID_ARGUMENT)                                  \
    X(NVJITLINK_ERROR_INCORRECT_INPUT_TYPE, 12, CUDYN_ERROR_INVALID_IMAGE)                                     \
    X(NVJITLINK_ERROR_ARCH_MISMATCH, 13, CUDYN_ERROR_LINK)                                                     \
    X(NVJITLINK_ERROR_OUTDATED_LIBRARY, 14, CUDYN_ERROR_LINK)                                                  \
    X(NVJITLINK_ERROR_MISSING_FATBIN, 15, CUDYN_ERROR_INVALID_IMAGE)                                           \
    X(NVJITLINK_ERROR_UNRECOGNIZED_ARCH, 16, CUDYN_ERROR_INVALID_ARGUMENT)                                     \
    X(NVJITLINK_ERROR_UNSUPPORTED_ARCH, 17, CUDYN_ERROR_UNSUPPORTED_ARCH)                                      \
    X(NVJITLINK_ERROR_LTO_NOT_ENABLED, 18, CUDYN_ERROR_INVALID_ARGUMENT)

/* nvJitLinkInputType: X(kind, value), one row per input kind, `kind`
 * naming both cudyn.h's CUDYN_LINK_<kind> and nvJitLink.h's
 * NVJITLINK_INPUT_<kind>, `value` nvJitLink's number.  compile/link.c
 * hands nvJitLink the value of its row; check_cuda_abi.c compares every
 * row with nvJitLink.h (and with CUDYN_LINK_<kind>, the same numbers). */
#define NVJITLINK_INPUT_MAP(X)                                                                                 \
    X(CUBIN, 1)                                                                                                \
    X(PTX, 2)                                                                                                  \
    X(LTOIR, 3)                                                                                                \
    X(FATBIN, 4)                                                                                               \
    X(OBJECT, 5)                                                                                               \
    X(LIBRARY, 6)

#endif
