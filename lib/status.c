/*
 * status.c - cudyn's status names and descriptions (CUDYN_STATUS_MAP in
 * cudyn.h), and the translation of every CUresult and nvrtcResult (the
 * lists cuda_results.h and nvrtc_results.h) into them.  All of it is data
 * generated from those lists and works with no driver loaded.
 */
#include "config.h"

#include <stddef.h>

#include "hints.h"
#include "internal.h"

struct status_entry {
    const char *name;
    const char *description;
};

static const struct status_entry status_table[] = {
#define STATUS_ROW(name, value, text) [value] = {"CUDYN_" #name, text},
    CUDYN_STATUS_MAP(STATUS_ROW)
#undef STATUS_ROW
};

#define STATUS_COUNT (sizeof status_table / sizeof status_table[0])

CUDYN_API const char *cudyn_status_name(int status)
{
    if (status < 0 || (size_t)status >= STATUS_COUNT || !status_table[status].name)
        return "CUDYN_STATUS_UNKNOWN";
    return status_table[status].name;
}

CUDYN_API const char *cudyn_status_string(int status)
{
    if (status < 0 || (size_t)status >= STATUS_COUNT || !status_table[status].description)
        return "unknown cudyn status";
    return status_table[status].description;
}

static const struct cudyn__native_code cuda_codes[] = {
#define CUDA_RESULT(code, name, status, hint) {code, #name, CUDYN_##status, hint},
#include "cuda_results.h"
#undef CUDA_RESULT
};

static const struct cudyn__native_code nvrtc_codes[] = {
#define NVRTC_RESULT(code, name, status, hint) {code, #name, CUDYN_##status, hint},
#include "nvrtc_results.h"
#undef NVRTC_RESULT
};

static const struct cudyn__native_code *find_code(const struct cudyn__native_code *table, size_t n, int code)
{
    for (size_t i = 0; i < n; i++)
        if (table[i].code == code)
            return &table[i];
    return NULL;
}

const struct cudyn__native_code *cudyn__cuda_code(int code)
{
    return find_code(cuda_codes, sizeof cuda_codes / sizeof cuda_codes[0], code);
}

const struct cudyn__native_code *cudyn__nvrtc_code(int code)
{
    return find_code(nvrtc_codes, sizeof nvrtc_codes / sizeof nvrtc_codes[0], code);
}

const char *cudyn__cuda_description(int code)
{
    if (!DRIVER_HAS(cuGetErrorString)) /* false until the table is bound */
        return NULL;
    const char *s = NULL;
    if (cudyn__drv.cuGetErrorString((cu_result)code, &s) != CU_OK)
        return NULL;
    return s;
}
