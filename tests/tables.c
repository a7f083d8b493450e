/*
 * tables.c - prints cudyn's data tables, one row a line, for the shell
 * tests that compare them with something else (the driver's exports,
 * cuda.h): they read the tables through the compiler, never with sed.
 *
 *   driver EXPORTED BASE ABI_VERSION STREAM NEED
 *   cuda CODE NAME STATUS
 *   nvrtc CODE NAME STATUS
 *   nccl CODE NAME STATUS
 */
#include "config.h"

#include <stdio.h>

#include "internal.h"
#include "nccl_abi.h"

int main(void)
{
#define DRIVER_SYMBOL(exported, base, version, stream, need, params) \
    printf("driver %s %s %d %s %s\n", #exported, #base, version, #stream, #need);
#include "driver_symbols.h"
#undef DRIVER_SYMBOL
#define CUDA_RESULT(code, name, status, hint) printf("cuda %d %s %s\n", code, #name, #status);
#include "cuda_results.h"
#undef CUDA_RESULT
#define NVRTC_RESULT(code, name, status, hint) printf("nvrtc %d %s %s\n", code, #name, #status);
#include "nvrtc_results.h"
#undef NVRTC_RESULT
#define NCCL_RESULT_ROW(name, code, status) printf("nccl %d %s %s\n", code, #name, #status);
    NCCL_RESULT_MAP(NCCL_RESULT_ROW)
#undef NCCL_RESULT_ROW
    return 0;
}
