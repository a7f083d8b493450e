/*
 * error.c - the calling thread's last failure (cudyn_last_error).
 *
 * The record keeps what went wrong and the hint apart: details appended
 * later (a JIT log, the bytes asked for) go after what went wrong, and the
 * hint ends the message only when a caller reads it.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "hints.h"
#include "internal.h"

static _Thread_local cudyn_error tls_error; /* message holds only what went wrong */

static void fill(int status, int origin, int native_code, const char *native_name, const char *function,
                 const char *hint)
{
    tls_error.size = sizeof tls_error;
    tls_error.status = status;
    tls_error.origin = origin;
    tls_error.native_code = native_code;
    cudyn__copy_string(tls_error.native_name, sizeof tls_error.native_name, native_name ? native_name : "");
    cudyn__copy_string(tls_error.function, sizeof tls_error.function, function ? function : "");
    cudyn__copy_string(tls_error.hint, sizeof tls_error.hint, hint ? hint : "");
}

int cudyn__fail(int status, int origin, int native_code, const char *native_name, const char *function,
                const char *hint, const char *fmt, ...)
{
    fill(status, origin, native_code, native_name, function, hint);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(tls_error.message, sizeof tls_error.message, fmt, ap);
    va_end(ap);
    return status;
}

void cudyn__error_append(const char *fmt, ...)
{
    size_t len = strlen(tls_error.message);
    if (len + 1 >= sizeof tls_error.message)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(tls_error.message + len, sizeof tls_error.message - len, fmt, ap);
    va_end(ap);
}

int cudyn__fail_arg(const char *api, const char *arg, const char *what)
{
    return cudyn__fail(CUDYN_ERROR_INVALID_ARGUMENT, CUDYN_ORIGIN_LIBRARY, 0, NULL, api, NULL,
                       "%s: argument '%s' %s", api, arg, what);
}

int cudyn__fail_oom(const char *api)
{
    return cudyn__fail(CUDYN_ERROR_OUT_OF_MEMORY, CUDYN_ORIGIN_SYSTEM, ENOMEM, "ENOMEM", api, NULL,
                       "%s: out of host memory", api);
}

/* "api: fn returned NAME (code): detail" and the code's hint, for a CUresult
 * or an nvrtcResult; a code no table knows keeps its number and the
 * generic status. */
static int fail_native(const struct cudyn__native_code *c, int generic_status, int origin, int code,
                       const char *unknown_name, const char *fn, const char *api, const char *detail)
{
    return cudyn__fail(c ? c->status : generic_status, origin, code, c ? c->name : unknown_name, fn,
                       c ? c->hint : NULL, "%s: %s returned %s (%d)%s%s", api, fn, c ? c->name : "an unknown code",
                       code, detail ? ": " : "", detail ? detail : "");
}

/* A stub answered code for `missing`: the loaded library (its CUDA
 * version) does not provide it. */
static int fail_missing(const char *api, const char *missing, int code, const char *library, int version,
                        const char *hint)
{
    return cudyn__fail(CUDYN_ERROR_SYMBOL_NOT_FOUND, CUDYN_ORIGIN_LOADER, code, NULL, missing, hint,
                       "%s: the loaded %s (CUDA %d.%d) does not provide %s", api, library, version / 1000,
                       version % 1000 / 10, missing);
}

int cudyn__fail_driver(cu_result r, const char *cufn, const char *api)
{
    const char *missing = cudyn__driver_stub_answered(r);
    if (missing)
        return fail_missing(api, missing, (int)r, "driver", cudyn__driver_version_loaded(), HINT_NEWER_DRIVER_FOR);
    int st = fail_native(cudyn__cuda_code((int)r), CUDYN_ERROR_DRIVER, CUDYN_ORIGIN_DRIVER, (int)r,
                         "CUDA_ERROR_UNKNOWN_CODE", cufn, api, cudyn__cuda_description((int)r));
    cudyn__driver_log_append(); /* what the driver logged about it */
    return st;
}

int cudyn__fail_nvrtc(nvrtc_result r, const char *fn, const char *api, const char *detail)
{
    const char *missing = cudyn__nvrtc_stub_answered(r);
    if (missing)
        return fail_missing(api, missing, (int)r, "NVRTC", cudyn__nvrtc_version_loaded(), HINT_NEWER_NVRTC_FOR);
    return fail_native(cudyn__nvrtc_code((int)r), CUDYN_ERROR_NVRTC, CUDYN_ORIGIN_NVRTC, (int)r,
                       "NVRTC_ERROR_UNKNOWN_CODE", fn, api, detail);
}

void cudyn__error_save(cudyn_error *saved)
{
    *saved = tls_error;
}

void cudyn__error_restore(const cudyn_error *saved)
{
    tls_error = *saved;
}

CUDYN_API int cudyn_last_error(cudyn_error *out)
{
    /* Copy no more than the caller's struct holds (an older, smaller
     * cudyn_error stays valid) and tell it how much was filled. */
    if (out && out->size > sizeof out->size) {
        cudyn_error full = tls_error;
        if (full.hint[0]) {
            size_t len = strlen(full.message);
            snprintf(full.message + len, sizeof full.message - len, "; hint: %s", full.hint);
        }
        size_t n = out->size < sizeof full ? out->size : sizeof full;
        memcpy(out, &full, n);
        out->size = n;
        if (n > offsetof(cudyn_error, message) && n < sizeof full && n != offsetof(cudyn_error, hint))
            ((char *)out)[n - 1] = '\0'; /* a cut message (or hint) still ends */
    }
    return tls_error.status;
}

CUDYN_API void cudyn_clear_error(void)
{
    memset(&tls_error, 0, sizeof tls_error);
}
