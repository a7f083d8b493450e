/*
 * loader/library.c - the one load of an optional library (NCCL,
 * nvJitLink): under the caller's pthread_once, find it, bind its table,
 * keep the failure to replay to every caller, and leave the caller's own
 * last error as it was (loading is not the caller's failure).
 */
#include "config.h"

#include <string.h>

#include "loader/loader.h"

void cudyn__library_load(struct cudyn__library *lib, const char *echo_prefix, const char *name, int (*find)(void),
                         int (*bind)(void), void *table, size_t table_size)
{
    lib->trace = (struct cudyn__text){.buf = lib->trace_buf, .cap = sizeof lib->trace_buf, .echo_prefix = echo_prefix};
    cudyn_error saved_caller_error;
    cudyn__error_save(&saved_caller_error);
    double t0 = cudyn__now_ms();
    lib->status = find();
    if (lib->status == CUDYN_OK)
        lib->status = bind();
    lib->load_ms = cudyn__now_ms() - t0;
    cudyn__text_add(&lib->trace, "load and bind: %.0f us", lib->load_ms * 1e3);
    if (lib->status != CUDYN_OK) {
        memset(table, 0, table_size); /* nothing half-bound is called */
        cudyn__error_save(&lib->error);
        cudyn__text_add(&lib->trace, "%s not usable: %s", name, lib->error.message);
    }
    cudyn__error_restore(&saved_caller_error);
    atomic_store_explicit(&lib->done, true, memory_order_release);
}
