/*
 * header_warnings.c - the public C headers (cudyn.h, cudyn/version.h and,
 * with CUDA headers, cudyn/driver.h) as users compile them with their
 * strictest warnings.  tests/check-header-warnings.sh compiles this file as
 * C11 and as C++ (it is written in the subset of both) with gcc and clang,
 * -Werror; it is never linked or run.  Every function-like macro is used
 * below (the script fails when one of the headers' is not); the
 * object-like ones come from header_macros.inc, which the script writes
 * from the headers, so a new macro is covered without an edit here.
 */
#include "cudyn.h"
#ifdef HEADER_WARNINGS_DRIVER_H
#include "cudyn/driver.h"
#endif

/* the X-macro lists, whatever their columns */
#define HEADER_WARNINGS_ROW(...) #__VA_ARGS__,
extern const char *const header_warnings_rows[];
const char *const header_warnings_rows[] = {
    CUDYN_STATUS_MAP(HEADER_WARNINGS_ROW) CUDYN_ENTRY_MECHANISM_MAP(HEADER_WARNINGS_ROW)
        CUDYN_FOUND_BY_MAP(HEADER_WARNINGS_ROW) CUDYN_LAUNCH_FORMAT_MAP(HEADER_WARNINGS_ROW)
            CUDYN_FORMAT_MAP(HEADER_WARNINGS_ROW) CUDYN_NCCL_OP_MAP(HEADER_WARNINGS_ROW)
                CUDYN_ARG_KIND_MAP(HEADER_WARNINGS_ROW)};

int header_warnings_c(void);

int header_warnings_c(void)
{
    /* every object-like macro, as an expression */
#include "header_macros.inc"

#if CUDYN_VERSION_AT_LEAST(0, 1, 0)
    int recent = CUDYN_VERSION_AT_LEAST(0, 1, 0);
#else
    int recent = 0;
#endif
    cudyn_error e;
    e.size = sizeof e;
    struct cudyn_device_info d;
    d.size = sizeof d;
    int n = 0;
    if (cudyn_last_error(&e) == CUDYN_OK && cudyn_device_info(0, &d) == CUDYN_OK && cudyn_device_count(&n) == 0)
        recent += n;
#ifdef HEADER_WARNINGS_DRIVER_H
    PFN_cuMemAlloc_v3020 alloc = CUDYN_DRIVER_PROC(cuMemAlloc, 3020);
    CUdeviceptr ptr = 0;
    if (alloc && alloc(&ptr, 16) == CUDA_SUCCESS)
        recent += ptr != 0;
#endif
    return recent + (int)(sizeof header_warnings_rows / sizeof header_warnings_rows[0]);
}
