/*
 * test_mock_table.c - the mock driver itself: its cuGetProcAddress table
 * has one entry per row of lib/driver_symbols.h, each resolving to the
 * function of that row's exported name (or its per-thread-stream twin);
 * the three builds export the entry points of the drivers they stand for.
 * Uses the mock directly, without cudyn.
 */
#include "config.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_abi.h"

enum { TWIN_NOSTREAM, TWIN_PTDS, TWIN_PTSZ };
static const char *const twin_suffix[] = {"", "_ptds", "_ptsz"};

static const struct row {
    const char *exported, *base;
    int version, twin;
} rows[] = {
#define DRIVER_SYMBOL(exported, base, abi_version, stream, need, params) \
    {#exported, #base, abi_version, TWIN_##stream},
#include "driver_symbols.h"
#undef DRIVER_SYMBOL
};
#define N_ROWS ((int)(sizeof rows / sizeof rows[0]))

typedef cu_result (*proc_v2_fn)(const char *, void **, int, cu_uint64, cu_enum *);
typedef cu_result (*proc_fn)(const char *, void **, int, cu_uint64);

static int failures;

#define EXPECT(cond, ...)                 \
    do {                                  \
        if (!(cond)) {                    \
            fprintf(stderr, __VA_ARGS__); \
            fputc('\n', stderr);          \
            failures++;                   \
        }                                 \
    } while (0)

/* The symbol a row names, or its twin. */
static void *row_symbol(void *lib, const struct row *r, int twin)
{
    char name[128];
    snprintf(name, sizeof name, "%s%s", r->exported, twin ? twin_suffix[r->twin] : "");
    return dlsym(lib, name);
}

static void check_build(const char *path, int proc_address)
{
    void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    EXPECT(lib, "%s: %s", path, dlerror());
    if (!lib)
        return;
    proc_v2_fn proc_v2 = (proc_v2_fn)dlsym(lib, "cuGetProcAddress_v2");
    proc_fn proc = (proc_fn)dlsym(lib, "cuGetProcAddress");
    EXPECT(!proc_v2 == (proc_address < 2), "%s: cuGetProcAddress_v2 %s", path, proc_v2 ? "exported" : "missing");
    EXPECT(!proc == (proc_address < 1), "%s: cuGetProcAddress %s", path, proc ? "exported" : "missing");
    int (*table_size)(void) = (int (*)(void))dlsym(lib, "mock_proc_table_size");
    EXPECT(table_size && table_size() == (proc_address ? N_ROWS : 0), "%s: table has %d entries, %d rows", path,
           table_size ? table_size() : -1, N_ROWS);

    for (int i = 0; i < N_ROWS; i++) {
        const struct row *r = &rows[i];
        void *plain = row_symbol(lib, r, 0), *twin = r->twin ? row_symbol(lib, r, 1) : plain;
        EXPECT(plain, "%s: %s is not exported", path, r->exported);
        EXPECT(twin, "%s: %s%s is not exported", path, r->exported, twin_suffix[r->twin]);
        for (int pt = 0; pt < 2 && proc_address; pt++) {
            void *fn = NULL;
            cu_enum status = 99;
            cu_uint64 flags = pt ? CU_PROC_ADDRESS_PER_THREAD_STREAM : CU_PROC_ADDRESS_LEGACY_STREAM;
            cu_result res = proc_v2 ? proc_v2(r->base, &fn, r->version, flags, &status) : proc(r->base, &fn, r->version, flags);
            EXPECT(res == CU_OK && (!proc_v2 || status == CU_PROC_ADDRESS_SUCCESS), "%s: %s@%d%s: result %u status %u",
                   path, r->base, r->version, pt ? "/pt" : "", res, status);
            EXPECT(fn == (pt ? twin : plain), "%s: %s@%d%s is not %s%s", path, r->base, r->version, pt ? "/pt" : "",
                   r->exported, pt ? twin_suffix[r->twin] : "");
        }
    }
}

int main(void)
{
    const char *builds[] = {"MOCK_LIBCUDA", "MOCK_LIBCUDA_V11_8", "MOCK_LIBCUDA_V11_0"};
    /* every row, however new, is within the driver's version */
    setenv("MOCK_CUDA_VERSION", "99999", 1);
    for (int b = 0; b < 3; b++) {
        const char *path = getenv(builds[b]);
        if (!path) {
            fprintf(stderr, "SKIP: %s is not set (run through make check)\n", builds[b]);
            return 77;
        }
        check_build(path, 2 - b);
    }
    if (failures)
        fprintf(stderr, "test_mock_table: %d check(s) failed\n", failures);
    return failures ? 1 : 0;
}
