/*
 * mock_core.c - the mock driver's configuration (from the environment, see
 * mock.h), call counting and fault injection, initialisation and errors,
 * and cuGetProcAddress with its table, built from lib/driver_symbols.h.
 */
#include "config.h"

#include <dlfcn.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mock.h"

struct mock_state mock = {.once = PTHREAD_ONCE_INIT, .lock = PTHREAD_MUTEX_INITIALIZER};

/* ------------------------------------------------------------ configuration */

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

/* "from-to,..." pairs, "none", or unset: every distinct pair. */
static void parse_p2p(const char *spec)
{
    for (int a = 0; a < MAX_DEVICES; a++)
        for (int b = 0; b < MAX_DEVICES; b++)
            mock.p2p[a][b] = !spec && a != b;
    if (!spec || strcmp(spec, "none") == 0)
        return;
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", spec);
    char *save = NULL;
    for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        int a, b;
        char end;
        if (sscanf(tok, "%d-%d%c", &a, &b, &end) != 2 || a < 0 || b < 0 || a >= MAX_DEVICES || b >= MAX_DEVICES ||
            a == b) {
            fprintf(stderr, "mock libcuda: MOCK_CUDA_P2P: ignoring '%s' (want FROM-TO, two different ordinals)\n", tok);
            continue;
        }
        mock.p2p[a][b] = 1;
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
    /* MOCK_CUDA_COMPAT_INIT=CODE: a copy loaded from a directory named
     * compat answers cuInit with CODE (803, 804), as a forward-compat
     * libcuda does where it cannot work. */
    v = getenv("MOCK_CUDA_COMPAT_INIT");
    if (v && v[0]) {
        Dl_info self;
        if (dladdr((void *)mock_setup, &self) && self.dli_fname && strstr(self.dli_fname, "/compat/"))
            mock.compat_init = (unsigned int)atoi(v);
    }
    v = getenv("MOCK_CUDA_DEVICES");
    parse_devices(v && v[0] ? v : "Mock GPU:90");
    v = getenv("MOCK_CUDA_P2P");
    parse_p2p(v && v[0] ? v : NULL);
    v = getenv("MOCK_CUDA_MISSING");
    snprintf(mock.missing, sizeof mock.missing, ",%s,", v ? v : "");
    v = getenv("MOCK_CUDA_FAIL");
    if (v)
        calls_add_rules(&mock.calls, v, INT_MAX); /* an item it cannot read is skipped */
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

/* ------------------------------------------- call counting, fault injection */

/* The driver's error log (cuLogs*): one line per failure the mock makes.
 * The position a reader holds is an offset into the whole log; the buffer
 * keeps its newest lines, the older half going when it is full (a long
 * test process refuses many kernels, each saying why). */
static void log_line_locked(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void log_line_locked(const char *fmt, ...)
{
    if (mock.log_len + 256 >= sizeof mock.log) {
        const char *keep = strchr(mock.log + mock.log_len / 2, '\n');
        size_t drop = keep ? (size_t)(keep + 1 - mock.log) : mock.log_len;
        memmove(mock.log, mock.log + drop, mock.log_len - drop + 1);
        mock.log_len -= drop;
        mock.log_base += drop;
    }
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(mock.log + mock.log_len, sizeof mock.log - mock.log_len - 1, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    mock.log_len += (size_t)n < 254 ? (size_t)n : 254;
    mock.log[mock.log_len++] = '\n';
    mock.log[mock.log_len] = '\0';
}

void mock_log(const char *line)
{
    pthread_mutex_lock(&mock.lock);
    log_line_locked("%s", line);
    pthread_mutex_unlock(&mock.lock);
}

unsigned int mock_enter(const char *fn)
{
    pthread_once(&mock.once, mock_setup);
    if (mock.stub)
        return CU_ERR_STUB_LIBRARY;
    pthread_mutex_lock(&mock.lock);
    long calls = calls_count(&mock.calls, fn);
    unsigned int code = 0;
    if (mock.fail_next_code && strcmp(mock.fail_next_fn, fn) == 0 && mock.fail_next_skip-- == 0) {
        code = mock.fail_next_code;
        mock.fail_next_code = 0;
    }
    if (!code)
        code = (unsigned int)calls_rule_code(&mock.calls, fn, calls);
    if (code)
        log_line_locked("[mock] %s failed with %u (injected)", fn, code);
    pthread_mutex_unlock(&mock.lock);
    if (mock.hang_fn[0] && strcmp(mock.hang_fn, fn) == 0)
        sleep(mock.hang_seconds);
    return code;
}

long mock_calls(const char *fn)
{
    pthread_mutex_lock(&mock.lock);
    long n = calls_of(&mock.calls, fn);
    pthread_mutex_unlock(&mock.lock);
    return n;
}

/* How many calls the mock refused as a real driver would, of one kind:
 * "param_info" (cuFuncGetParamInfo past the last parameter) or "shared"
 * (a launch over the kernel's dynamic shared-memory limit); -1 for
 * another kind. */
long mock_refusals(const char *what)
{
    pthread_mutex_lock(&mock.lock);
    long n = strcmp(what, "param_info") == 0 ? mock.refused_param_info
             : strcmp(what, "shared") == 0   ? mock.refused_shared
                                             : -1;
    pthread_mutex_unlock(&mock.lock);
    return n;
}

/* MOCK_CUDA_COUNTS=FILE: the calls, at exit (calls.h). */
__attribute__((destructor)) static void write_counts(void)
{
    calls_write(&mock.calls, &mock.lock, "MOCK_CUDA_COUNTS", "mock libcuda");
}

/* The next call of fn (exported name) returns code. */
void mock_fail_next(const char *fn, unsigned int code)
{
    mock_fail_call(fn, 1, code);
}

/* The nth call from now (1: the next) of the exported function fn returns
 * code; 0 cancels what is pending. */
void mock_fail_call(const char *fn, long nth, unsigned int code)
{
    pthread_once(&mock.once, mock_setup);
    pthread_mutex_lock(&mock.lock);
    snprintf(mock.fail_next_fn, sizeof mock.fail_next_fn, "%s", fn);
    mock.fail_next_code = code;
    mock.fail_next_skip = nth > 0 ? nth - 1 : 0;
    pthread_mutex_unlock(&mock.lock);
}

/* Module loads of this kind ("ptx", "cubin", "" for none) fail from now on. */
void mock_reject_images(const char *kind)
{
    pthread_once(&mock.once, mock_setup);
    pthread_mutex_lock(&mock.lock);
    snprintf(mock.reject, sizeof mock.reject, "%s", kind ? kind : "");
    pthread_mutex_unlock(&mock.lock);
}

const char *mock_proc_log(void)
{
    return mock.proc_log;
}

cu_result mock_refuse(const char *fmt, ...)
{
    char what[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    char line[320];
    snprintf(line, sizeof line, "mock libcuda: cannot emulate %s; run this test on a real GPU", what);
    fprintf(stderr, "%s\n", line);
    mock_log(line); /* the driver's log: cudyn appends it to the failed call's message */
    return CU_ERR_NOT_SUPPORTED;
}

/* ------------------------------------------------------- init and errors */

cu_result cuInit(unsigned int flags)
{
    ENTER("cuInit");
    if (flags != 0)
        return CU_ERR_INVALID_VALUE;
    if (mock.compat_init)
        return mock.compat_init;
    if (mock.n_devices == 0)
        return CU_ERR_NO_DEVICE;
    __atomic_store_n(&mock.initialised, 1, __ATOMIC_RELEASE);
    return CU_OK;
}

cu_result cuLogsCurrent(cu_log_iterator *iterator, unsigned int flags)
{
    ENTER("cuLogsCurrent");
    if (!iterator || flags)
        return CU_ERR_INVALID_VALUE;
    pthread_mutex_lock(&mock.lock);
    *iterator = (cu_log_iterator)(mock.log_base + mock.log_len);
    pthread_mutex_unlock(&mock.lock);
    return CU_OK;
}

/* As the driver documents it: from *iterator (NULL: everything), the most
 * recent lines that fit, terminated; *size the bytes written; the
 * iterator moves to the end. */
cu_result cuLogsDumpToMemory(cu_log_iterator *iterator, char *buffer, size_t *size, unsigned int flags)
{
    ENTER("cuLogsDumpToMemory");
    if (!buffer || !size || flags)
        return CU_ERR_INVALID_VALUE;
    pthread_mutex_lock(&mock.lock);
    size_t end = mock.log_base + mock.log_len; /* iterators count from the log's start */
    size_t from = iterator && *iterator >= mock.log_base && *iterator <= end ? *iterator - mock.log_base : 0;
    size_t n = mock.log_len - from;
    cu_result r = CU_OK;
    if (n > 0 && *size < 2) {
        r = CU_ERR_INVALID_VALUE;
        *size = 0;
    } else {
        if (n > *size - 1) { /* keep the newest lines that fit */
            from = mock.log_len - (*size - 1);
            n = *size - 1;
        }
        memcpy(buffer, mock.log + from, n);
        buffer[n] = '\0';
        *size = n;
        if (iterator)
            *iterator = (cu_log_iterator)end;
    }
    pthread_mutex_unlock(&mock.lock);
    return r;
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

/* ------------------------------------------------------ cuGetProcAddress */
#if MOCK_PROC_ADDRESS >= 1

struct variant {
    const char *base;
    int version;
    void *fn;
    void *per_thread_fn;
    const char *exported;
};

/* One entry per row of cudyn's table; a row the mock does not implement is
 * an undefined reference, which the link (-Wl,--no-undefined) refuses. */
#define MOCK_TWIN_NOSTREAM(exported) NULL
#define MOCK_TWIN_PTDS(exported) (void *)exported##_ptds
#define MOCK_TWIN_PTSZ(exported) (void *)exported##_ptsz
#define DRIVER_SYMBOL(exported, base, abi_version, stream, need, params) \
    {#base, abi_version, (void *)exported, MOCK_TWIN_##stream(exported), #exported},
static const struct variant variants[] = {
#include "driver_symbols.h"
};
#undef DRIVER_SYMBOL
#define N_VARIANTS ((int)(sizeof variants / sizeof variants[0]))

/* A driver offers all its functions, not only those cudyn binds: programs
 * fetch these through cudyn_driver_proc (examples/raw_driver.c). */
static const struct variant unbound[] = {
    {"cuGetErrorName", 6000, (void *)cuGetErrorName, NULL, "cuGetErrorName"},
};
#define N_UNBOUND ((int)(sizeof unbound / sizeof unbound[0]))

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
    for (int i = 0; i < N_VARIANTS + N_UNBOUND; i++) {
        const struct variant *v = i < N_VARIANTS ? &variants[i] : &unbound[i - N_VARIANTS];
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

int mock_proc_table_size(void)
{
    return N_VARIANTS;
}

#else /* MOCK_PROC_ADDRESS == 0: dlsym of the exported names only */

int mock_proc_table_size(void)
{
    return 0;
}

#endif
