/*
 * mock_cuda.c - a fake libcuda.so.1 for tests on machines with no GPU.
 * Built by `make check`, never installed.  It is a test double for code
 * paths a CPU machine cannot reach, not a replacement for a real GPU run.
 *
 * Behaviour is set through the environment (read once, at the first call):
 *   MOCK_CUDA_VERSION=12040       what cuDriverGetVersion reports (default 13000)
 *   MOCK_CUDA_STUB=1              every call returns CUDA_ERROR_STUB_LIBRARY (34);
 *                                 any other value: only a copy whose path
 *                                 contains that text behaves so
 *   MOCK_CUDA_DEVICES="A:90,B:75" device names and compute capabilities
 *                                 (default "Mock GPU:90"; "none": no device)
 *   MOCK_CUDA_MISSING=a,b         names (base or exported) cuGetProcAddress denies
 *   MOCK_CUDA_FAIL=fn:N:code,...  the Nth call (1-based; * = every call) of the
 *                                 exported function fn returns code
 *   MOCK_CUDA_MEM_LIMIT=bytes     device memory per device (default 256 MiB)
 *   MOCK_CUDA_REJECT=ptx,cubin    module loads of those kinds fail (222 / 209)
 *   MOCK_CUDA_CORRUPT=i           saxpy writes a wrong value at index i
 *   MOCK_CUDA_HANG=fn:seconds     the exported function fn sleeps that long
 * The build flag MOCK_PROC_ADDRESS says which cuGetProcAddress it exports:
 * 2 (default) both, 1 only the 4-argument one (11.3-11.8), 0 none (11.0-11.2).
 *
 * Device memory lives in host memory; known kernels (saxpy, fault, empty)
 * run on the host.  A fault is sticky for the rest of the process, as with
 * a real driver.  mock_* functions let tests inspect what happened.
 */
#include "config.h"

#include <ctype.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cuda_abi.h"

#ifndef MOCK_PROC_ADDRESS
#define MOCK_PROC_ADDRESS 2
#endif

#define MAX_DEVICES 8
#define MAX_RULES 256
#define MAX_COUNTERS 256

/* ------------------------------------------------------------------ config */

struct fail_rule {
    char fn[64];
    long nth; /* 0 = every call */
    unsigned int code;
};

struct counter {
    char fn[64];
    long calls;
};

struct mock_device {
    char name[64];
    int cc;
};

static struct {
    pthread_once_t once;
    pthread_mutex_t lock;
    int version;
    int stub;
    int n_devices;
    struct mock_device devices[MAX_DEVICES];
    char missing[1024];
    struct fail_rule rules[MAX_RULES];
    int n_rules;
    size_t mem_limit;
    char reject[16];
    long corrupt; /* -1: none */
    char hang_fn[64];
    unsigned int hang_seconds;
    struct counter counters[MAX_COUNTERS];
    int n_counters;
    char proc_log[16384];
    size_t used[MAX_DEVICES];
    int sticky_error; /* set by the "fault" kernel, returned by the next sync */
    char fail_next_fn[64];
    unsigned int fail_next_code;
} mock = {.once = PTHREAD_ONCE_INIT, .lock = PTHREAD_MUTEX_INITIALIZER};

static void parse_devices(const char *spec)
{
    mock.n_devices = 0;
    if (strcmp(spec, "none") == 0)
        return;
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", spec);
    char *save = NULL;
    for (char *tok = strtok_r(buf, ",", &save); tok && mock.n_devices < MAX_DEVICES;
         tok = strtok_r(NULL, ",", &save)) {
        struct mock_device *d = &mock.devices[mock.n_devices++];
        char *colon = strrchr(tok, ':');
        d->cc = colon ? atoi(colon + 1) : 90;
        if (colon)
            *colon = '\0';
        snprintf(d->name, sizeof d->name, "%s", tok);
    }
}

static void parse_rules(const char *spec)
{
    static char buf[16384];
    snprintf(buf, sizeof buf, "%s", spec);
    char *save = NULL;
    for (char *tok = strtok_r(buf, ",", &save); tok && mock.n_rules < MAX_RULES; tok = strtok_r(NULL, ",", &save)) {
        struct fail_rule *r = &mock.rules[mock.n_rules];
        char nth[32] = "";
        if (sscanf(tok, "%63[^:]:%31[^:]:%u", r->fn, nth, &r->code) != 3)
            continue;
        r->nth = strcmp(nth, "*") == 0 ? 0 : atol(nth);
        mock.n_rules++;
    }
}

static void mock_setup(void)
{
    const char *v = getenv("MOCK_CUDA_VERSION");
    mock.version = v ? atoi(v) : 13000;
    v = getenv("MOCK_CUDA_STUB");
    if (v && strcmp(v, "1") == 0) {
        mock.stub = 1;
    } else if (v && v[0]) {
        Dl_info self;
        mock.stub = dladdr((void *)mock_setup, &self) && self.dli_fname && strstr(self.dli_fname, v);
    }
    v = getenv("MOCK_CUDA_DEVICES");
    parse_devices(v && v[0] ? v : "Mock GPU:90");
    v = getenv("MOCK_CUDA_MISSING");
    snprintf(mock.missing, sizeof mock.missing, ",%s,", v ? v : "");
    v = getenv("MOCK_CUDA_FAIL");
    if (v)
        parse_rules(v);
    v = getenv("MOCK_CUDA_MEM_LIMIT");
    mock.mem_limit = v ? strtoull(v, NULL, 10) : (size_t)256 << 20;
    v = getenv("MOCK_CUDA_REJECT");
    snprintf(mock.reject, sizeof mock.reject, "%s", v ? v : "");
    v = getenv("MOCK_CUDA_CORRUPT");
    mock.corrupt = v ? atol(v) : -1;
    v = getenv("MOCK_CUDA_HANG");
    if (v && sscanf(v, "%63[^:]:%u", mock.hang_fn, &mock.hang_seconds) != 2)
        mock.hang_fn[0] = '\0';
}

/* Counts the call and applies fault injection; returns 0 or the code. */
static unsigned int mock_enter(const char *fn)
{
    pthread_once(&mock.once, mock_setup);
    if (mock.stub)
        return CU_ERR_STUB_LIBRARY;
    pthread_mutex_lock(&mock.lock);
    long calls = 0;
    int i;
    for (i = 0; i < mock.n_counters; i++)
        if (strcmp(mock.counters[i].fn, fn) == 0)
            break;
    if (i == mock.n_counters && i < MAX_COUNTERS) {
        snprintf(mock.counters[i].fn, sizeof mock.counters[i].fn, "%s", fn);
        mock.n_counters++;
    }
    if (i < MAX_COUNTERS)
        calls = ++mock.counters[i].calls;
    unsigned int code = 0;
    if (mock.fail_next_code && strcmp(mock.fail_next_fn, fn) == 0) {
        code = mock.fail_next_code;
        mock.fail_next_code = 0;
    }
    for (int r = 0; r < mock.n_rules && !code; r++)
        if (strcmp(mock.rules[r].fn, fn) == 0 && (mock.rules[r].nth == 0 || mock.rules[r].nth == calls))
            code = mock.rules[r].code;
    pthread_mutex_unlock(&mock.lock);
    if (mock.hang_fn[0] && strcmp(mock.hang_fn, fn) == 0)
        sleep(mock.hang_seconds);
    return code;
}

#define ENTER(fn)                              \
    do {                                       \
        unsigned int enter_ = mock_enter(fn); \
        if (enter_)                            \
            return enter_;                     \
    } while (0)

/* ------------------------------------------------------------ inspection */

long mock_calls(const char *fn)
{
    long n = 0;
    pthread_mutex_lock(&mock.lock);
    for (int i = 0; i < mock.n_counters; i++)
        if (strcmp(mock.counters[i].fn, fn) == 0)
            n = mock.counters[i].calls;
    pthread_mutex_unlock(&mock.lock);
    return n;
}

/* Module loads of this kind ("ptx", "cubin", "" for none) fail from now on. */
void mock_reject_images(const char *kind)
{
    pthread_once(&mock.once, mock_setup);
    pthread_mutex_lock(&mock.lock);
    snprintf(mock.reject, sizeof mock.reject, "%s", kind ? kind : "");
    pthread_mutex_unlock(&mock.lock);
}

/* The next call of fn (exported name) returns code. */
void mock_fail_next(const char *fn, unsigned int code)
{
    pthread_once(&mock.once, mock_setup);
    pthread_mutex_lock(&mock.lock);
    snprintf(mock.fail_next_fn, sizeof mock.fail_next_fn, "%s", fn);
    mock.fail_next_code = code;
    pthread_mutex_unlock(&mock.lock);
}

const char *mock_proc_log(void)
{
    return mock.proc_log;
}

size_t mock_memory_in_use(void)
{
    size_t n = 0;
    pthread_mutex_lock(&mock.lock);
    for (int i = 0; i < MAX_DEVICES; i++)
        n += mock.used[i];
    pthread_mutex_unlock(&mock.lock);
    return n;
}

/* ------------------------------------------------------- contexts/threads */

struct CUctx_st {
    int device;
    int retained;
};
static struct CUctx_st primary_ctx[MAX_DEVICES];
static _Thread_local struct CUctx_st *current;

#define NEED_CONTEXT()                       \
    do {                                     \
        if (!current || !current->retained) \
            return CU_ERR_INVALID_CONTEXT;   \
    } while (0)

static int initialised;

#define NEED_INIT()                       \
    do {                                  \
        if (!initialised)                 \
            return CU_ERR_NOT_INITIALIZED; \
    } while (0)

/* -------------------------------------------------------------- memory */

struct allocation {
    void *host;
    size_t bytes;
    int device;
    struct allocation *next;
};
static struct allocation *allocations;

/* Checks that [ptr, ptr+bytes) lies in one allocation. */
static int valid_range(cu_deviceptr ptr, size_t bytes)
{
    int ok = 0;
    pthread_mutex_lock(&mock.lock);
    for (struct allocation *a = allocations; a; a = a->next) {
        uintptr_t base = (uintptr_t)a->host;
        if (ptr >= base && ptr + bytes <= base + a->bytes) {
            ok = 1;
            break;
        }
    }
    pthread_mutex_unlock(&mock.lock);
    return ok;
}

/* ------------------------------------------------------------ init/errors */

cu_result cuInit(unsigned int flags)
{
    ENTER("cuInit");
    if (flags != 0)
        return CU_ERR_INVALID_VALUE;
    if (mock.n_devices == 0)
        return CU_ERR_NO_DEVICE;
    initialised = 1;
    return CU_OK;
}

cu_result cuDriverGetVersion(int *version)
{
    ENTER("cuDriverGetVersion");
    if (!version)
        return CU_ERR_INVALID_VALUE;
    *version = mock.version;
    return CU_OK;
}

cu_result cuGetErrorName(cu_result error, const char **str)
{
    ENTER("cuGetErrorName");
    static _Thread_local char buf[64];
    snprintf(buf, sizeof buf, "MOCK_ERROR_%u", error);
    *str = buf;
    return CU_OK;
}

cu_result cuGetErrorString(cu_result error, const char **str)
{
    ENTER("cuGetErrorString");
    static _Thread_local char buf[64];
    snprintf(buf, sizeof buf, "mock driver error %u", error);
    *str = buf;
    return CU_OK;
}

/* NVRTC 13 asks the loaded libcuda for private tables; the mock has none,
 * and answers as a driver does for a table it does not know. */
cu_result cuGetExportTable(const void **table, const void *id)
{
    ENTER("cuGetExportTable");
    (void)id;
    if (table)
        *table = NULL;
    return CU_ERR_INVALID_VALUE;
}

/* -------------------------------------------------------------- devices */

cu_result cuDeviceGetCount(int *count)
{
    ENTER("cuDeviceGetCount");
    NEED_INIT();
    *count = mock.n_devices;
    return CU_OK;
}

cu_result cuDeviceGet(cu_device *dev, int ordinal)
{
    ENTER("cuDeviceGet");
    NEED_INIT();
    if (ordinal < 0 || ordinal >= mock.n_devices)
        return CU_ERR_INVALID_DEVICE;
    *dev = ordinal;
    return CU_OK;
}

#define CHECK_DEVICE(dev)                             \
    do {                                              \
        NEED_INIT();                                  \
        if ((dev) < 0 || (dev) >= mock.n_devices)     \
            return CU_ERR_INVALID_DEVICE;             \
    } while (0)

cu_result cuDeviceGetName(char *name, int len, cu_device dev)
{
    ENTER("cuDeviceGetName");
    CHECK_DEVICE(dev);
    snprintf(name, (size_t)len, "%s", mock.devices[dev].name);
    return CU_OK;
}

static void fill_uuid(cu_uuid *uuid, cu_device dev, int variant)
{
    for (int i = 0; i < 16; i++)
        uuid->bytes[i] = (char)(0x10 * (dev + 1) + i + variant);
}

cu_result cuDeviceGetUuid(cu_uuid *uuid, cu_device dev)
{
    ENTER("cuDeviceGetUuid");
    CHECK_DEVICE(dev);
    fill_uuid(uuid, dev, 0);
    return CU_OK;
}

cu_result cuDeviceGetUuid_v2(cu_uuid *uuid, cu_device dev)
{
    ENTER("cuDeviceGetUuid_v2");
    CHECK_DEVICE(dev);
    fill_uuid(uuid, dev, 0);
    return CU_OK;
}

cu_result cuDeviceTotalMem_v2(size_t *bytes, cu_device dev)
{
    ENTER("cuDeviceTotalMem_v2");
    CHECK_DEVICE(dev);
    *bytes = mock.mem_limit;
    return CU_OK;
}

cu_result cuDeviceGetAttribute(int *value, cu_enum attrib, cu_device dev)
{
    ENTER("cuDeviceGetAttribute");
    CHECK_DEVICE(dev);
    if (attrib == 0 || attrib > 147)
        return CU_ERR_INVALID_VALUE;
    switch (attrib) {
    case 1: *value = 1024; break;                   /* max threads per block */
    case 2: case 3: *value = 1024; break;
    case 4: *value = 64; break;
    case 5: *value = 2147483647; break;
    case 6: case 7: *value = 65535; break;
    case 8: *value = 49152; break;
    case 10: *value = 32; break;
    case 12: *value = 65536; break;
    case 13: *value = 1755000; break;               /* clock, kHz */
    case 16: *value = 4 + 2 * dev; break;           /* SMs: distinct per device */
    case 33: *value = 0x17 + dev; break;            /* PCI bus */
    case 34: *value = 0; break;
    case 36: *value = 2619000; break;
    case 37: *value = 5120; break;
    case 38: *value = 50 << 20; break;
    case 39: *value = 2048; break;
    case 40: *value = 2; break;
    case 50: *value = 0; break;
    case 75: *value = mock.devices[dev].cc / 10; break;
    case 76: *value = mock.devices[dev].cc % 10; break;
    case 97: *value = 232448; break;
    default: *value = (int)attrib % 2; break;       /* boolean-like placeholder */
    }
    return CU_OK;
}

cu_result cuDeviceGetPCIBusId(char *bus_id, int len, cu_device dev)
{
    ENTER("cuDeviceGetPCIBusId");
    CHECK_DEVICE(dev);
    snprintf(bus_id, (size_t)len, "00000000:%02X:00.0", 0x17 + dev);
    return CU_OK;
}

cu_result cuDeviceCanAccessPeer(int *can, cu_device dev, cu_device peer)
{
    ENTER("cuDeviceCanAccessPeer");
    CHECK_DEVICE(dev);
    CHECK_DEVICE(peer);
    *can = dev != peer;
    return CU_OK;
}

cu_result cuDeviceGetP2PAttribute(int *value, cu_enum attrib, cu_device src, cu_device dst)
{
    ENTER("cuDeviceGetP2PAttribute");
    CHECK_DEVICE(src);
    CHECK_DEVICE(dst);
    (void)attrib;
    *value = src != dst;
    return CU_OK;
}

/* ------------------------------------------------------------- contexts */

cu_result cuDevicePrimaryCtxRetain(cu_context *ctx, cu_device dev)
{
    ENTER("cuDevicePrimaryCtxRetain");
    CHECK_DEVICE(dev);
    /* as on driver 580: after a kernel fault nothing in the process
     * recovers the device, not even reset, release and retain */
    if (mock.sticky_error)
        return (cu_result)mock.sticky_error;
    pthread_mutex_lock(&mock.lock);
    primary_ctx[dev].device = dev;
    primary_ctx[dev].retained++;
    pthread_mutex_unlock(&mock.lock);
    *ctx = &primary_ctx[dev];
    return CU_OK;
}

static cu_result release(cu_device dev)
{
    CHECK_DEVICE(dev);
    pthread_mutex_lock(&mock.lock);
    int ok = primary_ctx[dev].retained > 0;
    if (ok)
        primary_ctx[dev].retained--;
    pthread_mutex_unlock(&mock.lock);
    return ok ? CU_OK : CU_ERR_INVALID_CONTEXT;
}

cu_result cuDevicePrimaryCtxRelease(cu_device dev)
{
    ENTER("cuDevicePrimaryCtxRelease");
    return release(dev);
}

cu_result cuDevicePrimaryCtxRelease_v2(cu_device dev)
{
    ENTER("cuDevicePrimaryCtxRelease_v2");
    return release(dev);
}

static cu_result reset(cu_device dev)
{
    CHECK_DEVICE(dev);
    pthread_mutex_lock(&mock.lock);
    struct allocation **link = &allocations;
    while (*link) {
        struct allocation *a = *link;
        if (a->device == dev) {
            *link = a->next;
            mock.used[dev] -= a->bytes;
            free(a->host);
            free(a);
        } else {
            link = &a->next;
        }
    }
    pthread_mutex_unlock(&mock.lock); /* a sticky error stays: see retain */
    return CU_OK;
}

cu_result cuDevicePrimaryCtxReset(cu_device dev)
{
    ENTER("cuDevicePrimaryCtxReset");
    return reset(dev);
}

cu_result cuDevicePrimaryCtxReset_v2(cu_device dev)
{
    ENTER("cuDevicePrimaryCtxReset_v2");
    return reset(dev);
}

cu_result cuDevicePrimaryCtxGetState(cu_device dev, unsigned int *flags, int *active)
{
    ENTER("cuDevicePrimaryCtxGetState");
    CHECK_DEVICE(dev);
    *flags = 0;
    *active = primary_ctx[dev].retained > 0;
    return CU_OK;
}

cu_result cuCtxGetCurrent(cu_context *ctx)
{
    ENTER("cuCtxGetCurrent");
    NEED_INIT();
    *ctx = current;
    return CU_OK;
}

cu_result cuCtxSetCurrent(cu_context ctx)
{
    ENTER("cuCtxSetCurrent");
    NEED_INIT();
    current = ctx;
    return CU_OK;
}

cu_result cuCtxGetDevice(cu_device *dev)
{
    ENTER("cuCtxGetDevice");
    NEED_CONTEXT();
    *dev = current->device;
    return CU_OK;
}

cu_result cuCtxSynchronize(void)
{
    ENTER("cuCtxSynchronize");
    NEED_CONTEXT();
    return (cu_result)mock.sticky_error;
}

cu_result cuCtxGetApiVersion(cu_context ctx, unsigned int *version)
{
    ENTER("cuCtxGetApiVersion");
    (void)ctx;
    *version = 3020;
    return CU_OK;
}

/* cuCtxCreate variants exist so binding can be checked; they make a
 * context that behaves like the primary one. */
cu_result cuCtxCreate_v2(cu_context *ctx, unsigned int flags, cu_device dev)
{
    ENTER("cuCtxCreate_v2");
    (void)flags;
    CHECK_DEVICE(dev);
    *ctx = &primary_ctx[dev];
    return CU_OK;
}

cu_result cuCtxCreate_v4(cu_context *ctx, struct CUctxCreateParams_st *params, unsigned int flags, cu_device dev)
{
    ENTER("cuCtxCreate_v4");
    (void)params;
    (void)flags;
    CHECK_DEVICE(dev);
    *ctx = &primary_ctx[dev];
    return CU_OK;
}

cu_result cuCtxDestroy_v2(cu_context ctx)
{
    ENTER("cuCtxDestroy_v2");
    (void)ctx;
    return CU_OK;
}

cu_result cuCtxPushCurrent_v2(cu_context ctx)
{
    ENTER("cuCtxPushCurrent_v2");
    current = ctx;
    return CU_OK;
}

cu_result cuCtxPopCurrent_v2(cu_context *ctx)
{
    ENTER("cuCtxPopCurrent_v2");
    if (ctx)
        *ctx = current;
    current = NULL;
    return CU_OK;
}

cu_result cuCtxEnablePeerAccess(cu_context peer, unsigned int flags)
{
    ENTER("cuCtxEnablePeerAccess");
    (void)peer;
    (void)flags;
    return CU_OK;
}

cu_result cuCtxDisablePeerAccess(cu_context peer)
{
    ENTER("cuCtxDisablePeerAccess");
    (void)peer;
    return CU_OK;
}

/* --------------------------------------------------------------- memory */

cu_result cuMemAlloc_v2(cu_deviceptr *ptr, size_t bytes)
{
    ENTER("cuMemAlloc_v2");
    NEED_CONTEXT();
    if (bytes == 0)
        return CU_ERR_INVALID_VALUE;
    int dev = current->device;
    pthread_mutex_lock(&mock.lock);
    int fits = mock.used[dev] + bytes <= mock.mem_limit;
    pthread_mutex_unlock(&mock.lock);
    if (!fits)
        return CU_ERR_OUT_OF_MEMORY;
    struct allocation *a = calloc(1, sizeof *a);
    void *host = malloc(bytes);
    if (!a || !host) {
        free(a);
        free(host);
        return CU_ERR_OUT_OF_MEMORY;
    }
    memset(host, 0xA5, bytes); /* device memory is not zeroed */
    a->host = host;
    a->bytes = bytes;
    a->device = dev;
    pthread_mutex_lock(&mock.lock);
    a->next = allocations;
    allocations = a;
    mock.used[dev] += bytes;
    pthread_mutex_unlock(&mock.lock);
    *ptr = (cu_deviceptr)(uintptr_t)host;
    return CU_OK;
}

cu_result cuMemFree_v2(cu_deviceptr ptr)
{
    ENTER("cuMemFree_v2");
    NEED_CONTEXT();
    pthread_mutex_lock(&mock.lock);
    for (struct allocation **link = &allocations; *link; link = &(*link)->next) {
        struct allocation *a = *link;
        if ((uintptr_t)a->host == ptr) {
            *link = a->next;
            mock.used[a->device] -= a->bytes;
            pthread_mutex_unlock(&mock.lock);
            free(a->host);
            free(a);
            return CU_OK;
        }
    }
    pthread_mutex_unlock(&mock.lock);
    return CU_ERR_INVALID_VALUE;
}

cu_result cuMemHostAlloc(void **ptr, size_t bytes, unsigned int flags)
{
    ENTER("cuMemHostAlloc");
    NEED_CONTEXT();
    (void)flags;
    *ptr = malloc(bytes);
    return *ptr ? CU_OK : CU_ERR_OUT_OF_MEMORY;
}

cu_result cuMemFreeHost(void *ptr)
{
    ENTER("cuMemFreeHost");
    NEED_CONTEXT();
    free(ptr);
    return CU_OK;
}

cu_result cuMemGetInfo_v2(size_t *free_bytes, size_t *total_bytes)
{
    ENTER("cuMemGetInfo_v2");
    NEED_CONTEXT();
    pthread_mutex_lock(&mock.lock);
    *total_bytes = mock.mem_limit;
    *free_bytes = mock.mem_limit - mock.used[current->device];
    pthread_mutex_unlock(&mock.lock);
    return CU_OK;
}

static cu_result copy(cu_deviceptr dst_dev, void *dst_host, cu_deviceptr src_dev, const void *src_host, size_t bytes)
{
    NEED_CONTEXT();
    if ((dst_dev && !valid_range(dst_dev, bytes)) || (src_dev && !valid_range(src_dev, bytes)))
        return CU_ERR_INVALID_VALUE;
    void *dst = dst_dev ? (void *)(uintptr_t)dst_dev : dst_host;
    const void *src = src_dev ? (const void *)(uintptr_t)src_dev : src_host;
    memmove(dst, src, bytes);
    return CU_OK;
}

/* Each copy exists in a legacy and a per-thread-stream flavour, counted
 * apart so tests can see which one cudyn bound. */
#define COPY_FUNCTIONS(name, params, call)       \
    cu_result name params                        \
    {                                            \
        ENTER(#name);                            \
        return call;                             \
    }
COPY_FUNCTIONS(cuMemcpyHtoD_v2, (cu_deviceptr dst, const void *src, size_t bytes), copy(dst, NULL, 0, src, bytes))
COPY_FUNCTIONS(cuMemcpyHtoD_v2_ptds, (cu_deviceptr dst, const void *src, size_t bytes), copy(dst, NULL, 0, src, bytes))
COPY_FUNCTIONS(cuMemcpyDtoH_v2, (void *dst, cu_deviceptr src, size_t bytes), copy(0, dst, src, NULL, bytes))
COPY_FUNCTIONS(cuMemcpyDtoH_v2_ptds, (void *dst, cu_deviceptr src, size_t bytes), copy(0, dst, src, NULL, bytes))
COPY_FUNCTIONS(cuMemcpyDtoD_v2, (cu_deviceptr dst, cu_deviceptr src, size_t bytes), copy(dst, NULL, src, NULL, bytes))
COPY_FUNCTIONS(cuMemcpyDtoD_v2_ptds, (cu_deviceptr dst, cu_deviceptr src, size_t bytes), copy(dst, NULL, src, NULL, bytes))
COPY_FUNCTIONS(cuMemcpyHtoDAsync_v2, (cu_deviceptr dst, const void *src, size_t bytes, cu_stream s), ((void)s, copy(dst, NULL, 0, src, bytes)))
COPY_FUNCTIONS(cuMemcpyHtoDAsync_v2_ptsz, (cu_deviceptr dst, const void *src, size_t bytes, cu_stream s), ((void)s, copy(dst, NULL, 0, src, bytes)))
COPY_FUNCTIONS(cuMemcpyDtoHAsync_v2, (void *dst, cu_deviceptr src, size_t bytes, cu_stream s), ((void)s, copy(0, dst, src, NULL, bytes)))
COPY_FUNCTIONS(cuMemcpyDtoHAsync_v2_ptsz, (void *dst, cu_deviceptr src, size_t bytes, cu_stream s), ((void)s, copy(0, dst, src, NULL, bytes)))
COPY_FUNCTIONS(cuMemcpyDtoDAsync_v2, (cu_deviceptr dst, cu_deviceptr src, size_t bytes, cu_stream s), ((void)s, copy(dst, NULL, src, NULL, bytes)))
COPY_FUNCTIONS(cuMemcpyDtoDAsync_v2_ptsz, (cu_deviceptr dst, cu_deviceptr src, size_t bytes, cu_stream s), ((void)s, copy(dst, NULL, src, NULL, bytes)))

static cu_result fill(cu_deviceptr dst, unsigned int value, size_t width, size_t count)
{
    NEED_CONTEXT();
    if (!valid_range(dst, width * count))
        return CU_ERR_INVALID_VALUE;
    unsigned char *p = (unsigned char *)(uintptr_t)dst;
    for (size_t i = 0; i < count; i++)
        memcpy(p + i * width, &value, width); /* little-endian host */
    return CU_OK;
}

COPY_FUNCTIONS(cuMemsetD8_v2, (cu_deviceptr dst, unsigned char v, size_t n), fill(dst, v, 1, n))
COPY_FUNCTIONS(cuMemsetD8_v2_ptds, (cu_deviceptr dst, unsigned char v, size_t n), fill(dst, v, 1, n))
COPY_FUNCTIONS(cuMemsetD16_v2, (cu_deviceptr dst, unsigned short v, size_t n), fill(dst, v, 2, n))
COPY_FUNCTIONS(cuMemsetD16_v2_ptds, (cu_deviceptr dst, unsigned short v, size_t n), fill(dst, v, 2, n))
COPY_FUNCTIONS(cuMemsetD32_v2, (cu_deviceptr dst, unsigned int v, size_t n), fill(dst, v, 4, n))
COPY_FUNCTIONS(cuMemsetD32_v2_ptds, (cu_deviceptr dst, unsigned int v, size_t n), fill(dst, v, 4, n))
COPY_FUNCTIONS(cuMemsetD32Async, (cu_deviceptr dst, unsigned int v, size_t n, cu_stream s), ((void)s, fill(dst, v, 4, n)))
COPY_FUNCTIONS(cuMemsetD32Async_ptsz, (cu_deviceptr dst, unsigned int v, size_t n, cu_stream s), ((void)s, fill(dst, v, 4, n)))

cu_result cuMemPrefetchAsync(cu_deviceptr ptr, size_t bytes, cu_device dst, cu_stream s)
{
    ENTER("cuMemPrefetchAsync");
    (void)ptr, (void)bytes, (void)dst, (void)s;
    return CU_OK;
}

cu_result cuMemPrefetchAsync_v2(cu_deviceptr ptr, size_t bytes, cu_mem_location loc, unsigned int flags, cu_stream s)
{
    ENTER("cuMemPrefetchAsync_v2");
    (void)ptr, (void)bytes, (void)loc, (void)flags, (void)s;
    return CU_OK;
}

cu_result cuMemAdvise(cu_deviceptr ptr, size_t bytes, cu_enum advice, cu_device dev)
{
    ENTER("cuMemAdvise");
    (void)ptr, (void)bytes, (void)advice, (void)dev;
    return CU_OK;
}

cu_result cuMemAdvise_v2(cu_deviceptr ptr, size_t bytes, cu_enum advice, cu_mem_location loc)
{
    ENTER("cuMemAdvise_v2");
    (void)ptr, (void)bytes, (void)advice, (void)loc;
    return CU_OK;
}

cu_result cuPointerGetAttribute(void *data, cu_enum attribute, cu_deviceptr ptr)
{
    ENTER("cuPointerGetAttribute");
    (void)data, (void)attribute, (void)ptr;
    return CU_ERR_NOT_SUPPORTED;
}

/* ------------------------------------------------------- streams/events */

struct CUstream_st {
    int magic;
};
struct CUevent_st {
    int magic;
    double recorded_ms;
};
#define STREAM_MAGIC 0x57AE
#define EVENT_MAGIC 0xE7E7

cu_result cuStreamCreate(cu_stream *s, unsigned int flags)
{
    ENTER("cuStreamCreate");
    NEED_CONTEXT();
    if (flags > 1)
        return CU_ERR_INVALID_VALUE;
    *s = calloc(1, sizeof **s);
    if (!*s)
        return CU_ERR_OUT_OF_MEMORY;
    (*s)->magic = STREAM_MAGIC;
    return CU_OK;
}

cu_result cuStreamCreateWithPriority(cu_stream *s, unsigned int flags, int priority)
{
    (void)priority;
    return cuStreamCreate(s, flags);
}

cu_result cuStreamDestroy_v2(cu_stream s)
{
    ENTER("cuStreamDestroy_v2");
    NEED_CONTEXT();
    if (!s || s->magic != STREAM_MAGIC)
        return CU_ERR_INVALID_HANDLE;
    s->magic = 0;
    free(s);
    return CU_OK;
}

static cu_result stream_check(cu_stream s)
{
    NEED_CONTEXT();
    if (s && s->magic != STREAM_MAGIC)
        return CU_ERR_INVALID_HANDLE;
    return (cu_result)mock.sticky_error;
}

COPY_FUNCTIONS(cuStreamSynchronize, (cu_stream s), stream_check(s))
COPY_FUNCTIONS(cuStreamSynchronize_ptsz, (cu_stream s), stream_check(s))
COPY_FUNCTIONS(cuStreamQuery, (cu_stream s), stream_check(s))
COPY_FUNCTIONS(cuStreamQuery_ptsz, (cu_stream s), stream_check(s))
COPY_FUNCTIONS(cuStreamWaitEvent, (cu_stream s, cu_event e, unsigned int f), ((void)e, (void)f, stream_check(s)))
COPY_FUNCTIONS(cuStreamWaitEvent_ptsz, (cu_stream s, cu_event e, unsigned int f), ((void)e, (void)f, stream_check(s)))

cu_result cuStreamGetCaptureInfo_v2(cu_stream s, cu_enum *status, cu_uint64 *id, cu_graph *graph,
                                    const cu_graph_node **deps, size_t *num_deps)
{
    ENTER("cuStreamGetCaptureInfo_v2");
    (void)s, (void)id, (void)graph, (void)deps, (void)num_deps;
    *status = 0;
    return CU_OK;
}

cu_result cuStreamGetCaptureInfo_v3(cu_stream s, cu_enum *status, cu_uint64 *id, cu_graph *graph,
                                    const cu_graph_node **deps, const struct CUgraphEdgeData_st **edges,
                                    size_t *num_deps)
{
    ENTER("cuStreamGetCaptureInfo_v3");
    (void)s, (void)id, (void)graph, (void)deps, (void)edges, (void)num_deps;
    *status = 0;
    return CU_OK;
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

cu_result cuEventCreate(cu_event *e, unsigned int flags)
{
    ENTER("cuEventCreate");
    NEED_CONTEXT();
    (void)flags;
    *e = calloc(1, sizeof **e);
    if (!*e)
        return CU_ERR_OUT_OF_MEMORY;
    (*e)->magic = EVENT_MAGIC;
    return CU_OK;
}

static cu_result record(cu_event e)
{
    NEED_CONTEXT();
    if (!e || e->magic != EVENT_MAGIC)
        return CU_ERR_INVALID_HANDLE;
    e->recorded_ms = now_ms();
    return CU_OK;
}

COPY_FUNCTIONS(cuEventRecord, (cu_event e, cu_stream s), ((void)s, record(e)))
COPY_FUNCTIONS(cuEventRecord_ptsz, (cu_event e, cu_stream s), ((void)s, record(e)))

static cu_result event_check(cu_event e)
{
    NEED_CONTEXT();
    if (!e || e->magic != EVENT_MAGIC)
        return CU_ERR_INVALID_HANDLE;
    return CU_OK;
}

COPY_FUNCTIONS(cuEventSynchronize, (cu_event e), event_check(e))
COPY_FUNCTIONS(cuEventQuery, (cu_event e), event_check(e))

static cu_result elapsed(float *ms, cu_event a, cu_event b)
{
    cu_result r = event_check(a);
    if (r == CU_OK)
        r = event_check(b);
    if (r == CU_OK)
        *ms = (float)(b->recorded_ms - a->recorded_ms);
    return r;
}

COPY_FUNCTIONS(cuEventElapsedTime, (float *ms, cu_event a, cu_event b), elapsed(ms, a, b))
COPY_FUNCTIONS(cuEventElapsedTime_v2, (float *ms, cu_event a, cu_event b), elapsed(ms, a, b))

cu_result cuEventDestroy_v2(cu_event e)
{
    ENTER("cuEventDestroy_v2");
    cu_result r = event_check(e);
    if (r == CU_OK) {
        e->magic = 0;
        free(e);
    }
    return r;
}

/* -------------------------------------------------------------- modules */

struct CUfunc_st;
typedef void (*host_kernel)(const struct CUfunc_st *self, void **params, unsigned int threads);

#define MOCK_MAX_PARAMS 64

struct CUfunc_st {
    const char *name;
    host_kernel run;
    int magic;    /* FUNCTION_MAGIC while its module is loaded */
    int n_params; /* -1: unknown (from a CUBIN), else parsed from the PTX */
    size_t param_offset[MOCK_MAX_PARAMS], param_size[MOCK_MAX_PARAMS];
};

/* What the "record" kernel received: each parameter's bytes in turn. */
static unsigned char recorded[4096];
static size_t recorded_bytes;

/* saxpy(float a, const float *x, const float *y, float *out, size_t n):
 * the cuda-python documentation's kernel, on the first `count` elements. */
static void saxpy_first(void **params, size_t count)
{
    float a = *(float *)params[0];
    const float *x = (const float *)(uintptr_t) * (cu_deviceptr *)params[1];
    const float *y = (const float *)(uintptr_t) * (cu_deviceptr *)params[2];
    float *out = (float *)(uintptr_t) * (cu_deviceptr *)params[3];
    for (size_t i = 0; i < count; i++)
        out[i] = a * x[i] + y[i];
    if (mock.corrupt >= 0 && (size_t)mock.corrupt < count)
        out[mock.corrupt] += 1.0f;
}

/* The grid-stride kernel covers n whatever the grid. */
static void run_saxpy(const struct CUfunc_st *self, void **params, unsigned int threads)
{
    (void)self;
    (void)threads;
    saxpy_first(params, *(size_t *)params[4]);
}

/* The documentation's kernel: one element per thread, no loop. */
static void run_saxpy_naive(const struct CUfunc_st *self, void **params, unsigned int threads)
{
    (void)self;
    size_t n = *(size_t *)params[4];
    saxpy_first(params, threads < n ? threads : n);
}

static void run_fault(const struct CUfunc_st *self, void **params, unsigned int threads)
{
    (void)self;
    (void)params, (void)threads;
    mock.sticky_error = CU_ERR_ILLEGAL_ADDRESS;
}

/* testkernel(int i, int *pi, float f, float *pf, testStruct s, testStruct *ps)
 * of the cuda-python documentation, with struct testStruct { int value; }. */
static void run_testkernel(const struct CUfunc_st *self, void **params, unsigned int threads)
{
    (void)self;
    (void)threads;
    int *pi = (int *)(uintptr_t) * (cu_deviceptr *)params[1];
    float *pf = (float *)(uintptr_t) * (cu_deviceptr *)params[3];
    int *ps = (int *)(uintptr_t) * (cu_deviceptr *)params[5];
    *pi = *(int *)params[0];
    *pf = *(float *)params[2];
    *ps = *(int *)params[4];
}

static void run_empty(const struct CUfunc_st *self, void **params, unsigned int threads)
{
    (void)self;
    (void)params, (void)threads;
}

/* record(...): copies the bytes of every parameter, as its PTX declares
 * them, for tests of argument packing. */
static void run_record(const struct CUfunc_st *self, void **params, unsigned int threads)
{
    (void)threads;
    recorded_bytes = 0;
    for (int i = 0; i < self->n_params; i++) {
        size_t n = self->param_size[i];
        if (recorded_bytes + n > sizeof recorded)
            break;
        memcpy(recorded + recorded_bytes, params[i], n);
        recorded_bytes += n;
    }
}

size_t mock_recorded(void *buf, size_t cap)
{
    size_t n = recorded_bytes < cap ? recorded_bytes : cap;
    memcpy(buf, recorded, n);
    return recorded_bytes;
}

/* The kernels the mock can run; any other kernel an image names runs as
 * a no-op. */
static const struct {
    const char *name;
    host_kernel run;
} host_kernels[] = {
    {"saxpy", run_saxpy}, {"saxpy_naive", run_saxpy_naive}, {"fault", run_fault},
    {"empty", run_empty}, {"testkernel", run_testkernel},   {"record", run_record},
};
#define N_HOST_KERNELS (sizeof host_kernels / sizeof host_kernels[0])
#define FUNCTION_MAGIC 0xF00C
#define MAX_MODULE_FUNCTIONS 64

struct CUmod_st {
    int magic;
    const void *image;
    size_t image_bytes;
    /* handles of the kernels looked up, owned by the module as a driver's are */
    struct CUfunc_st *functions[MAX_MODULE_FUNCTIONS];
    int n_functions;
};
#define MODULE_MAGIC 0x30D

/* Size of an ELF (CUBIN) image from its header, else of a NUL-terminated text. */
static size_t image_size(const void *image, int *is_elf)
{
    const unsigned char *p = image;
    *is_elf = p[0] == 0x7f && p[1] == 'E' && p[2] == 'L' && p[3] == 'F';
    if (!*is_elf)
        return strlen(image);
    uint64_t shoff;
    uint16_t shentsize, shnum;
    memcpy(&shoff, p + 0x28, 8);
    memcpy(&shentsize, p + 0x3A, 2);
    memcpy(&shnum, p + 0x3C, 2);
    return (size_t)(shoff + (uint64_t)shentsize * shnum);
}

static cu_result load(cu_module *mod, const void *image)
{
    NEED_CONTEXT();
    if (!image)
        return CU_ERR_INVALID_VALUE;
    int is_elf;
    size_t bytes = image_size(image, &is_elf);
    if (strstr(mock.reject, "ptx") && !is_elf)
        return CU_ERR_UNSUPPORTED_PTX_VERSION;
    if (strstr(mock.reject, "cubin") && is_elf)
        return CU_ERR_NO_BINARY_FOR_GPU;
    if (!is_elf && !strstr(image, ".entry") && !strstr(image, ".version"))
        return CU_ERR_INVALID_IMAGE;
    /* a driver keeps its own copy: callers may free the image right away */
    *mod = calloc(1, sizeof **mod);
    void *copy = malloc(bytes + 1);
    if (!*mod || !copy) {
        free(*mod);
        free(copy);
        return CU_ERR_OUT_OF_MEMORY;
    }
    memcpy(copy, image, bytes);
    ((char *)copy)[bytes] = '\0';
    (*mod)->magic = MODULE_MAGIC;
    (*mod)->image = copy;
    (*mod)->image_bytes = bytes;
    return CU_OK;
}

cu_result cuModuleLoadData(cu_module *mod, const void *image)
{
    ENTER("cuModuleLoadData");
    return load(mod, image);
}

cu_result cuModuleLoadDataEx(cu_module *mod, const void *image, unsigned int n, cu_enum *options, void **values)
{
    ENTER("cuModuleLoadDataEx");
    cu_result r = load(mod, image);
    if (r != CU_OK && r != CU_ERR_INVALID_CONTEXT) {
        for (unsigned int i = 0; i + 1 < n; i++)
            if (options[i] == CU_JITOPT_ERROR_LOG_BUFFER && options[i + 1] == CU_JITOPT_ERROR_LOG_BUFFER_SIZE_BYTES)
                snprintf(values[i], (size_t)(uintptr_t)values[i + 1], "mock JIT: image rejected with %u", r);
    }
    return r;
}

cu_result cuModuleUnload(cu_module mod)
{
    ENTER("cuModuleUnload");
    NEED_CONTEXT();
    if (!mod || mod->magic != MODULE_MAGIC)
        return CU_ERR_INVALID_HANDLE;
    mod->magic = 0;
    for (int i = 0; i < mod->n_functions; i++) {
        mod->functions[i]->magic = 0;
        free((void *)mod->functions[i]->name);
        free(mod->functions[i]);
    }
    free((void *)mod->image);
    free(mod);
    return CU_OK;
}

/* A kernel is found when the image names it and the mock can run it. */
static int image_names(const struct CUmod_st *mod, const char *name)
{
    size_t n = strlen(name);
    const char *p = mod->image;
    for (size_t i = 0; i + n <= mod->image_bytes; i++)
        if (memcmp(p + i, name, n) == 0 && (i + n == mod->image_bytes || p[i + n] == '\0' || p[i + n] == '(' ||
                                           p[i + n] == ' ' || p[i + n] == '\n'))
            return 1;
    return 0;
}

static size_t ptx_type_size(const char *t)
{
    static const struct { const char *name; size_t size; } types[] = {
        {".u8", 1}, {".s8", 1}, {".b8", 1}, {".u16", 2}, {".s16", 2}, {".b16", 2}, {".f16", 2},
        {".u32", 4}, {".s32", 4}, {".b32", 4}, {".f32", 4}, {".u64", 8}, {".s64", 8}, {".b64", 8}, {".f64", 8},
    };
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
        if (strncmp(t, types[i].name, strlen(types[i].name)) == 0 && !isalnum((unsigned char)t[strlen(types[i].name)]))
            return types[i].size;
    return 0;
}

/* Reads ".entry NAME(.param .TYPE [.align A] name[N], ...)" from a PTX
 * image, as the driver knows a kernel's parameters; -1 if not PTX. */
static void parse_params(const struct CUmod_st *mod, const char *name, struct CUfunc_st *fn)
{
    fn->n_params = -1;
    const char *text = mod->image;
    if (memcmp(text, "\177ELF", 4) == 0)
        return;
    char pattern[300];
    snprintf(pattern, sizeof pattern, ".entry %s(", name);
    const char *p = strstr(text, pattern);
    if (!p)
        return;
    p += strlen(pattern);
    const char *end = strchr(p, ')');
    if (!end)
        return;
    fn->n_params = 0;
    size_t offset = 0;
    while (p < end && fn->n_params < MOCK_MAX_PARAMS) {
        const char *param = strstr(p, ".param");
        if (!param || param > end)
            break;
        const char *next = strstr(param + 6, ".param");
        const char *stop = next && next < end ? next : end;
        size_t size = 0, align = 0, count = 1;
        for (const char *t = param + 6; t < stop; t++) {
            if (*t == '.' && !size)
                size = ptx_type_size(t);
            if (strncmp(t, ".align ", 7) == 0)
                align = strtoul(t + 7, NULL, 10);
            if (*t == '[')
                count = strtoul(t + 1, NULL, 10);
        }
        if (!align)
            align = size ? size : 1;
        offset = (offset + align - 1) / align * align;
        fn->param_offset[fn->n_params] = offset;
        fn->param_size[fn->n_params] = size * count;
        offset += size * count;
        fn->n_params++;
        p = stop;
    }
}

cu_result cuModuleGetFunction(cu_function *fn, cu_module mod, const char *name)
{
    ENTER("cuModuleGetFunction");
    NEED_CONTEXT();
    if (!mod || mod->magic != MODULE_MAGIC)
        return CU_ERR_INVALID_HANDLE;
    if (!image_names(mod, name))
        return CU_ERR_NOT_FOUND;
    for (int i = 0; i < mod->n_functions; i++)
        if (strcmp(mod->functions[i]->name, name) == 0) {
            *fn = mod->functions[i];
            return CU_OK;
        }
    if (mod->n_functions == MAX_MODULE_FUNCTIONS)
        return CU_ERR_OUT_OF_MEMORY;
    struct CUfunc_st *f = calloc(1, sizeof *f);
    char *copy = strdup(name);
    if (!f || !copy) {
        free(f);
        free(copy);
        return CU_ERR_OUT_OF_MEMORY;
    }
    f->name = copy;
    f->run = run_empty;
    for (size_t i = 0; i < N_HOST_KERNELS; i++)
        if (strcmp(host_kernels[i].name, name) == 0)
            f->run = host_kernels[i].run;
    f->magic = FUNCTION_MAGIC;
    parse_params(mod, name, f);
    mod->functions[mod->n_functions++] = f;
    *fn = f;
    return CU_OK;
}

cu_result cuModuleGetGlobal_v2(cu_deviceptr *ptr, size_t *bytes, cu_module mod, const char *name)
{
    ENTER("cuModuleGetGlobal_v2");
    (void)ptr, (void)bytes, (void)mod, (void)name;
    return CU_ERR_NOT_FOUND;
}

cu_result cuModuleGetLoadingMode(cu_enum *mode)
{
    ENTER("cuModuleGetLoadingMode");
    *mode = 1;
    return CU_OK;
}

cu_result cuLibraryLoadData(cu_library *lib, const void *code, cu_enum *jo, void **jv, unsigned int nj, cu_enum *lo,
                            void **lv, unsigned int nl)
{
    ENTER("cuLibraryLoadData");
    (void)lib, (void)code, (void)jo, (void)jv, (void)nj, (void)lo, (void)lv, (void)nl;
    return CU_ERR_NOT_SUPPORTED;
}

cu_result cuLibraryUnload(cu_library lib)
{
    ENTER("cuLibraryUnload");
    (void)lib;
    return CU_ERR_NOT_SUPPORTED;
}

cu_result cuLibraryGetKernel(cu_kernel *k, cu_library lib, const char *name)
{
    ENTER("cuLibraryGetKernel");
    (void)k, (void)lib, (void)name;
    return CU_ERR_NOT_SUPPORTED;
}

cu_result cuLibraryGetModule(cu_module *mod, cu_library lib)
{
    ENTER("cuLibraryGetModule");
    (void)mod, (void)lib;
    return CU_ERR_NOT_SUPPORTED;
}

cu_result cuLibraryGetGlobal(cu_deviceptr *ptr, size_t *bytes, cu_library lib, const char *name)
{
    ENTER("cuLibraryGetGlobal");
    (void)ptr, (void)bytes, (void)lib, (void)name;
    return CU_ERR_NOT_SUPPORTED;
}

cu_result cuKernelGetFunction(cu_function *fn, cu_kernel k)
{
    ENTER("cuKernelGetFunction");
    (void)fn, (void)k;
    return CU_ERR_NOT_SUPPORTED;
}

/* -------------------------------------------------------------- kernels */

static int valid_function(cu_function fn)
{
    return fn && fn->magic == FUNCTION_MAGIC;
}

cu_result cuFuncGetAttribute(int *value, cu_enum attrib, cu_function fn)
{
    ENTER("cuFuncGetAttribute");
    NEED_CONTEXT();
    if (!valid_function(fn))
        return CU_ERR_INVALID_HANDLE;
    static const int values[] = {1024, 0, 0, 0, 16, 90, 90};
    if (attrib >= sizeof values / sizeof values[0])
        return CU_ERR_INVALID_VALUE;
    *value = values[attrib];
    return CU_OK;
}

cu_result cuFuncSetAttribute(cu_function fn, cu_enum attrib, int value)
{
    ENTER("cuFuncSetAttribute");
    (void)attrib, (void)value;
    return valid_function(fn) ? CU_OK : CU_ERR_INVALID_HANDLE;
}

cu_result cuFuncGetParamInfo(cu_function fn, size_t index, size_t *offset, size_t *size)
{
    ENTER("cuFuncGetParamInfo");
    if (!valid_function(fn))
        return CU_ERR_INVALID_HANDLE;
    if (fn->n_params < 0)
        return CU_ERR_NOT_SUPPORTED; /* the mock cannot read a CUBIN's */
    if (index >= (size_t)fn->n_params)
        return CU_ERR_INVALID_VALUE;
    *offset = fn->param_offset[index];
    *size = fn->param_size[index];
    return CU_OK;
}

cu_result cuFuncGetName(const char **name, cu_function fn)
{
    ENTER("cuFuncGetName");
    if (!valid_function(fn))
        return CU_ERR_INVALID_HANDLE;
    *name = fn->name;
    return CU_OK;
}

cu_result cuFuncGetModule(cu_module *mod, cu_function fn)
{
    ENTER("cuFuncGetModule");
    (void)mod, (void)fn;
    return CU_ERR_NOT_SUPPORTED;
}

static cu_result launch(cu_function fn, unsigned int gx, unsigned int gy, unsigned int gz, unsigned int bx,
                        unsigned int by, unsigned int bz, void **params)
{
    NEED_CONTEXT();
    if (!valid_function(fn))
        return CU_ERR_INVALID_HANDLE;
    if (!gx || !gy || !gz || !bx || !by || !bz || (unsigned long)bx * by * bz > 1024)
        return CU_ERR_INVALID_VALUE;
    if (mock.sticky_error)
        return (cu_result)mock.sticky_error;
    fn->run(fn, params, gx * gy * gz * bx * by * bz);
    return CU_OK;
}

#define LAUNCH_PARAMS                                                                                            \
    (cu_function fn, unsigned int gx, unsigned int gy, unsigned int gz, unsigned int bx, unsigned int by,        \
     unsigned int bz, unsigned int shared, cu_stream s, void **params, void **extra)
COPY_FUNCTIONS(cuLaunchKernel, LAUNCH_PARAMS, ((void)shared, (void)s, (void)extra, launch(fn, gx, gy, gz, bx, by, bz, params)))
COPY_FUNCTIONS(cuLaunchKernel_ptsz, LAUNCH_PARAMS, ((void)shared, (void)s, (void)extra, launch(fn, gx, gy, gz, bx, by, bz, params)))

cu_result cuLaunchKernelEx(const struct CUlaunchConfig_st *config, cu_function fn, void **params, void **extra)
{
    ENTER("cuLaunchKernelEx");
    (void)config, (void)fn, (void)params, (void)extra;
    return CU_ERR_NOT_SUPPORTED;
}

cu_result cuOccupancyMaxActiveBlocksPerMultiprocessor(int *blocks, cu_function fn, int block_size, size_t shared)
{
    ENTER("cuOccupancyMaxActiveBlocksPerMultiprocessor");
    (void)shared;
    if (!valid_function(fn) || block_size <= 0)
        return CU_ERR_INVALID_VALUE;
    *blocks = 2048 / block_size;
    return CU_OK;
}

cu_result cuOccupancyMaxPotentialBlockSize(int *min_grid, int *block_size, cu_function fn, cu_occupancy_b2d_size f,
                                           size_t shared, int limit)
{
    ENTER("cuOccupancyMaxPotentialBlockSize");
    (void)f, (void)shared;
    if (!valid_function(fn))
        return CU_ERR_INVALID_VALUE;
    *block_size = limit > 0 && limit < 1024 ? limit : 1024;
    *min_grid = 2 * 4;
    return CU_OK;
}

/* ------------------------------------------------------ cuGetProcAddress */
#if MOCK_PROC_ADDRESS >= 1

struct variant {
    const char *base;
    int version;
    void *fn;
    void *per_thread_fn;
    const char *exported;
};

#define V(base, version, fn) {#base, version, (void *)fn, NULL, #fn}
#define VP(base, version, fn, pt) {#base, version, (void *)fn, (void *)pt, #fn}

static const struct variant variants[] = {
    V(cuInit, 2000, cuInit),
    V(cuDriverGetVersion, 2020, cuDriverGetVersion),
    V(cuGetErrorName, 6000, cuGetErrorName),
    V(cuGetErrorString, 6000, cuGetErrorString),
    V(cuDeviceGet, 2000, cuDeviceGet),
    V(cuDeviceGetCount, 2000, cuDeviceGetCount),
    V(cuDeviceGetName, 2000, cuDeviceGetName),
    V(cuDeviceGetUuid, 9020, cuDeviceGetUuid),
    V(cuDeviceGetUuid, 11040, cuDeviceGetUuid_v2),
    V(cuDeviceTotalMem, 3020, cuDeviceTotalMem_v2),
    V(cuDeviceGetAttribute, 2000, cuDeviceGetAttribute),
    V(cuDeviceGetPCIBusId, 4010, cuDeviceGetPCIBusId),
    V(cuDeviceCanAccessPeer, 4000, cuDeviceCanAccessPeer),
    V(cuDeviceGetP2PAttribute, 8000, cuDeviceGetP2PAttribute),
    V(cuDevicePrimaryCtxRetain, 7000, cuDevicePrimaryCtxRetain),
    V(cuDevicePrimaryCtxRelease, 7000, cuDevicePrimaryCtxRelease),
    V(cuDevicePrimaryCtxRelease, 11000, cuDevicePrimaryCtxRelease_v2),
    V(cuDevicePrimaryCtxReset, 7000, cuDevicePrimaryCtxReset),
    V(cuDevicePrimaryCtxReset, 11000, cuDevicePrimaryCtxReset_v2),
    V(cuDevicePrimaryCtxGetState, 7000, cuDevicePrimaryCtxGetState),
    V(cuCtxGetCurrent, 4000, cuCtxGetCurrent),
    V(cuCtxSetCurrent, 4000, cuCtxSetCurrent),
    V(cuCtxGetDevice, 2000, cuCtxGetDevice),
    V(cuCtxSynchronize, 2000, cuCtxSynchronize),
    V(cuCtxGetApiVersion, 3020, cuCtxGetApiVersion),
    V(cuCtxCreate, 3020, cuCtxCreate_v2),
    V(cuCtxCreate, 12050, cuCtxCreate_v4),
    V(cuCtxDestroy, 4000, cuCtxDestroy_v2),
    V(cuCtxPushCurrent, 4000, cuCtxPushCurrent_v2),
    V(cuCtxPopCurrent, 4000, cuCtxPopCurrent_v2),
    V(cuCtxEnablePeerAccess, 4000, cuCtxEnablePeerAccess),
    V(cuCtxDisablePeerAccess, 4000, cuCtxDisablePeerAccess),
    V(cuMemAlloc, 3020, cuMemAlloc_v2),
    V(cuMemFree, 3020, cuMemFree_v2),
    V(cuMemHostAlloc, 2020, cuMemHostAlloc),
    V(cuMemFreeHost, 2000, cuMemFreeHost),
    V(cuMemGetInfo, 3020, cuMemGetInfo_v2),
    VP(cuMemcpyHtoD, 3020, cuMemcpyHtoD_v2, cuMemcpyHtoD_v2_ptds),
    VP(cuMemcpyDtoH, 3020, cuMemcpyDtoH_v2, cuMemcpyDtoH_v2_ptds),
    VP(cuMemcpyDtoD, 3020, cuMemcpyDtoD_v2, cuMemcpyDtoD_v2_ptds),
    VP(cuMemcpyHtoDAsync, 3020, cuMemcpyHtoDAsync_v2, cuMemcpyHtoDAsync_v2_ptsz),
    VP(cuMemcpyDtoHAsync, 3020, cuMemcpyDtoHAsync_v2, cuMemcpyDtoHAsync_v2_ptsz),
    VP(cuMemcpyDtoDAsync, 3020, cuMemcpyDtoDAsync_v2, cuMemcpyDtoDAsync_v2_ptsz),
    VP(cuMemsetD8, 3020, cuMemsetD8_v2, cuMemsetD8_v2_ptds),
    VP(cuMemsetD16, 3020, cuMemsetD16_v2, cuMemsetD16_v2_ptds),
    VP(cuMemsetD32, 3020, cuMemsetD32_v2, cuMemsetD32_v2_ptds),
    VP(cuMemsetD32Async, 3020, cuMemsetD32Async, cuMemsetD32Async_ptsz),
    V(cuMemPrefetchAsync, 8000, cuMemPrefetchAsync),
    V(cuMemPrefetchAsync, 12020, cuMemPrefetchAsync_v2),
    V(cuMemAdvise, 8000, cuMemAdvise),
    V(cuMemAdvise, 12020, cuMemAdvise_v2),
    V(cuPointerGetAttribute, 4000, cuPointerGetAttribute),
    V(cuStreamCreate, 2000, cuStreamCreate),
    V(cuStreamCreateWithPriority, 5050, cuStreamCreateWithPriority),
    V(cuStreamDestroy, 4000, cuStreamDestroy_v2),
    VP(cuStreamSynchronize, 2000, cuStreamSynchronize, cuStreamSynchronize_ptsz),
    VP(cuStreamQuery, 2000, cuStreamQuery, cuStreamQuery_ptsz),
    VP(cuStreamWaitEvent, 3020, cuStreamWaitEvent, cuStreamWaitEvent_ptsz),
    V(cuStreamGetCaptureInfo, 11030, cuStreamGetCaptureInfo_v2),
    V(cuStreamGetCaptureInfo, 12030, cuStreamGetCaptureInfo_v3),
    V(cuEventCreate, 2000, cuEventCreate),
    VP(cuEventRecord, 2000, cuEventRecord, cuEventRecord_ptsz),
    V(cuEventSynchronize, 2000, cuEventSynchronize),
    V(cuEventQuery, 2000, cuEventQuery),
    V(cuEventElapsedTime, 2000, cuEventElapsedTime),
    V(cuEventElapsedTime, 12080, cuEventElapsedTime_v2),
    V(cuEventDestroy, 4000, cuEventDestroy_v2),
    V(cuModuleLoadData, 2000, cuModuleLoadData),
    V(cuModuleLoadDataEx, 2010, cuModuleLoadDataEx),
    V(cuModuleGetFunction, 2000, cuModuleGetFunction),
    V(cuModuleGetGlobal, 3020, cuModuleGetGlobal_v2),
    V(cuModuleUnload, 2000, cuModuleUnload),
    V(cuModuleGetLoadingMode, 11070, cuModuleGetLoadingMode),
    V(cuLibraryLoadData, 12000, cuLibraryLoadData),
    V(cuLibraryUnload, 12000, cuLibraryUnload),
    V(cuLibraryGetKernel, 12000, cuLibraryGetKernel),
    V(cuLibraryGetModule, 12000, cuLibraryGetModule),
    V(cuLibraryGetGlobal, 12000, cuLibraryGetGlobal),
    V(cuKernelGetFunction, 12000, cuKernelGetFunction),
    V(cuFuncGetAttribute, 2020, cuFuncGetAttribute),
    V(cuFuncSetAttribute, 9000, cuFuncSetAttribute),
    V(cuFuncGetParamInfo, 12040, cuFuncGetParamInfo),
    V(cuFuncGetName, 12030, cuFuncGetName),
    V(cuFuncGetModule, 11000, cuFuncGetModule),
    VP(cuLaunchKernel, 4000, cuLaunchKernel, cuLaunchKernel_ptsz),
    V(cuLaunchKernelEx, 11060, cuLaunchKernelEx),
    V(cuOccupancyMaxActiveBlocksPerMultiprocessor, 6050, cuOccupancyMaxActiveBlocksPerMultiprocessor),
    V(cuOccupancyMaxPotentialBlockSize, 6050, cuOccupancyMaxPotentialBlockSize),
};

static int is_missing(const char *name)
{
    char key[80];
    snprintf(key, sizeof key, ",%s,", name);
    return strstr(mock.missing, key) != NULL;
}

/* The newest variant of `base` not newer than `version` or the driver. */
static cu_result proc_address(const char *base, void **fn, int version, cu_uint64 flags, cu_enum *status)
{
    pthread_once(&mock.once, mock_setup);
    if (mock.stub)
        return CU_ERR_STUB_LIBRARY;
    pthread_mutex_lock(&mock.lock);
    size_t len = strlen(mock.proc_log);
    snprintf(mock.proc_log + len, sizeof mock.proc_log - len, "%s@%d%s;", base, version,
             (flags & CU_PROC_ADDRESS_PER_THREAD_STREAM) ? "/pt" : "");
    pthread_mutex_unlock(&mock.lock);

    const struct variant *best = NULL;
    int exists_newer = 0;
    for (size_t i = 0; i < sizeof variants / sizeof variants[0]; i++) {
        const struct variant *v = &variants[i];
        if (strcmp(v->base, base) != 0 || is_missing(v->base) || is_missing(v->exported))
            continue;
        if (v->version > version || v->version > mock.version) {
            exists_newer = 1;
            continue;
        }
        if (!best || v->version > best->version)
            best = v;
    }
    *fn = NULL;
    if (!best) {
        if (status)
            *status = exists_newer ? CU_PROC_ADDRESS_VERSION_NOT_SUFFICIENT : CU_PROC_ADDRESS_SYMBOL_NOT_FOUND;
        return CU_ERR_NOT_FOUND;
    }
    *fn = (flags & CU_PROC_ADDRESS_PER_THREAD_STREAM) && best->per_thread_fn ? best->per_thread_fn : best->fn;
    if (status)
        *status = CU_PROC_ADDRESS_SUCCESS;
    return CU_OK;
}

cu_result cuGetProcAddress(const char *symbol, void **fn, int version, cu_uint64 flags)
{
    return proc_address(symbol, fn, version, flags, NULL);
}

#if MOCK_PROC_ADDRESS >= 2
cu_result cuGetProcAddress_v2(const char *symbol, void **fn, int version, cu_uint64 flags, cu_enum *status)
{
    return proc_address(symbol, fn, version, flags, status);
}
#endif
#endif /* MOCK_PROC_ADDRESS >= 1 */
