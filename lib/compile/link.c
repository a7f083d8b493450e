/*
 * link.c - device linking (cudyn_link_*, cudyn.h "Device linking"):
 * relocatable device code, libraries, LTO-IR and libcudadevrt.a into one
 * CUBIN, through nvJitLink (loader/nvjitlink.c) or, where there is none,
 * the driver's linker (cuLink*).
 *
 * Each input is read whole by cudyn (a file too) and kept, with its name,
 * until the linker goes; its kind is told from its first bytes when the
 * caller says CUDYN_LINK_AUTO, and a CUBIN or fatbinary is checked against
 * its length (image_format.c) before a linker sees it.  The logs of both linkers are gathered into one text
 * (cudyn_link_log), and every failure's message ends with the log's first
 * error line.  A linker is used by one thread at a time.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hints.h"
#include "loader/loader.h"
#include "compile/image.h"
#include "compile/program.h"

#define DRIVER_LOG_BYTES (64 * 1024)
#define MAX_INPUT_BYTES ((size_t)1 << 31)

enum backend { NVJITLINK, DRIVER };

struct cudyn_linker {
    enum backend backend;
    char backend_name[48];
    int cc;         /* the target, 90 for sm_90 */
    bool want_ptx;  /* nvJitLink's -ptx: the result is PTX */
    nvjitlink_handle jl;
    cu_link_state cl;
    char *info_log, *error_log; /* the driver's log buffers (DRIVER_LOG_BYTES each) */
    char *log;                  /* what cudyn_link_log gives: nvJitLink's logs, or the driver's */
    char *note;                 /* cudyn's own lines at the log's top (why the driver's linker) */
    void *image;
    size_t image_bytes;
    /* each input's bytes and name, kept until the linker goes: neither
     * linker promises to copy them before it completes */
    struct kept_input {
        unsigned char *data;
        char *name;
    } *inputs;
    int n_inputs, cap_inputs;
    bool completed;
};

/* ------------------------------------------------------------------ logs */

static char *nvjitlink_log(nvjitlink_handle h, bool errors)
{
    size_t size = 0;
    nvjitlink_result r = errors ? cudyn__nvjitlink.nvJitLinkGetErrorLogSize(h, &size)
                                : cudyn__nvjitlink.nvJitLinkGetInfoLogSize(h, &size);
    if (r != NVJITLINK_OK || size <= 1)
        return NULL;
    char *text = calloc(1, size + 1);
    if (text && (errors ? cudyn__nvjitlink.nvJitLinkGetErrorLog(h, text) : cudyn__nvjitlink.nvJitLinkGetInfoLog(h, text)) !=
                    NVJITLINK_OK) {
        free(text);
        return NULL;
    }
    return text;
}

/* The log as it stands: cudyn's note, then the errors, then the rest. */
static void refresh_log(struct cudyn_linker *l)
{
    char *errors = NULL, *info = NULL;
    if (l->backend == NVJITLINK && l->jl) {
        errors = nvjitlink_log(l->jl, true);
        info = nvjitlink_log(l->jl, false);
    }
    const char *e = l->backend == DRIVER ? l->error_log : errors, *i = l->backend == DRIVER ? l->info_log : info;
    const char *parts[] = {l->note, e, i};
    size_t total = 1;
    for (size_t k = 0; k < N_ELEMS(parts); k++)
        total += parts[k] ? strlen(parts[k]) + 1 : 0;
    char *log = malloc(total);
    if (log) {
        size_t used = 0;
        for (size_t k = 0; k < N_ELEMS(parts); k++)
            if (parts[k] && parts[k][0]) {
                size_t n = strlen(parts[k]);
                memcpy(log + used, parts[k], n);
                used += n;
                if (log[used - 1] != '\n')
                    log[used++] = '\n';
            }
        log[used] = '\0';
        free(l->log);
        l->log = log;
    }
    free(errors);
    free(info);
}

/* Ends the last error's message with the log's first error line. */
static void append_log_line(struct cudyn_linker *l)
{
    refresh_log(l);
    const char *log = l->log ? l->log : "";
    const char *line = strstr(log, "error");
    if (!line)
        line = strstr(log, "rror");
    if (!line)
        line = log;
    while (line > log && line[-1] != '\n')
        line--;
    int n = (int)strcspn(line, "\n");
    if (n > 0)
        cudyn__error_append("; the linker says: %.*s", n > 400 ? 400 : n, line);
}

/* A failed linker call: its result's status, the linker's first error,
 * the hint that the whole log is there. */
static int fail_nvjitlink(struct cudyn_linker *l, nvjitlink_result r, const char *fn, const char *api)
{
    int status = CUDYN_ERROR_LINK;
    const char *name = "an nvJitLinkResult cudyn does not know";
#define NVJITLINK_RESULT_ROW(rname, value, rstatus)                                                            \
    if (r == value) {                                                                                          \
        status = rstatus;                                                                                      \
        name = #rname;                                                                                         \
    }
    NVJITLINK_RESULT_MAP(NVJITLINK_RESULT_ROW)
#undef NVJITLINK_RESULT_ROW
    int st = cudyn__fail(status, CUDYN_ORIGIN_NVJITLINK, (int)r, name, fn, HINT_LINK_LOG, "%s: %s returned %s (%u)",
                         api, fn, name, r);
    append_log_line(l);
    return st;
}

/* A failed cuLink* call: the CUresult's status, except that a link which
 * fails on its inputs is CUDYN_ERROR_LINK as with nvJitLink. */
static int fail_driver(struct cudyn_linker *l, cu_result r, const char *fn, const char *api, bool linking)
{
    int st = cudyn__fail_driver(r, fn, api);
    if (linking && (st == CUDYN_ERROR_INVALID_IMAGE || st == CUDYN_ERROR_NO_BINARY_FOR_GPU ||
                    st == CUDYN_ERROR_UNSUPPORTED_PTX || st == CUDYN_ERROR_DRIVER)) {
        const struct cudyn__native_code *code = cudyn__cuda_code((int)r);
        st = cudyn__fail(CUDYN_ERROR_LINK, CUDYN_ORIGIN_DRIVER, (int)r, code ? code->name : NULL, fn, HINT_LINK_LOG,
                         "%s: %s returned %s (%u)", api, fn, code ? code->name : "an unknown CUresult", r);
    }
    append_log_line(l);
    return st;
}

/* -------------------------------------------------------------- creating */

/* The driver's linker takes options as CUjit_option values: those of
 * nvJitLink's it has an equal of. */
static int driver_options(const char *api, const char *const *options, int n, int cc, cu_enum *keys, void **values,
                          unsigned int *count, struct cudyn_linker *l)
{
    unsigned int k = 0;
    int target = cc;
    for (int i = 0; i < n; i++) {
        const char *o = options[i];
        char *end = NULL;
        if (cudyn__starts_with(o, "-arch=sm_")) {
            target = (int)strtol(o + 9, &end, 10);
        } else if (o[0] == '-' && o[1] == 'O' && o[2] >= '0' && o[2] <= '4' && !o[3]) {
            keys[k] = CU_JITOPT_OPTIMIZATION_LEVEL;
            values[k++] = (void *)(uintptr_t)(unsigned)(o[2] - '0');
        } else if (strcmp(o, "-g") == 0) {
            keys[k] = CU_JITOPT_GENERATE_DEBUG_INFO;
            values[k++] = (void *)(uintptr_t)1;
        } else if (strcmp(o, "-lineinfo") == 0) {
            keys[k] = CU_JITOPT_GENERATE_LINE_INFO;
            values[k++] = (void *)(uintptr_t)1;
        } else if (strcmp(o, "-verbose") == 0) {
            keys[k] = CU_JITOPT_LOG_VERBOSE;
            values[k++] = (void *)(uintptr_t)1;
        } else if (cudyn__starts_with(o, "-maxrregcount=")) {
            keys[k] = CU_JITOPT_MAX_REGISTERS;
            values[k++] = (void *)(uintptr_t)(unsigned)strtoul(o + 14, &end, 10);
        } else {
            return cudyn__fail(CUDYN_ERROR_NOT_SUPPORTED, CUDYN_ORIGIN_LIBRARY, 0, NULL, api, HINT_NO_NVJITLINK,
                               "%s: option '%s' needs nvJitLink; the driver's linker takes only -arch=sm_XX, -O0 to "
                               "-O4, -g, -lineinfo, -maxrregcount=N and -verbose",
                               api, o);
        }
        if (end && *end)
            return cudyn__fail_arg(api, "options", "has a number that does not parse (-arch=sm_XX, -maxrregcount=N)");
    }
    keys[k] = CU_JITOPT_TARGET;
    values[k++] = (void *)(uintptr_t)(unsigned)target;
    keys[k] = CU_JITOPT_INFO_LOG_BUFFER;
    values[k++] = l->info_log;
    keys[k] = CU_JITOPT_INFO_LOG_BUFFER_SIZE_BYTES;
    values[k++] = (void *)(uintptr_t)DRIVER_LOG_BYTES;
    keys[k] = CU_JITOPT_ERROR_LOG_BUFFER;
    values[k++] = l->error_log;
    keys[k] = CU_JITOPT_ERROR_LOG_BUFFER_SIZE_BYTES;
    values[k++] = (void *)(uintptr_t)DRIVER_LOG_BYTES;
    *count = k;
    return CUDYN_OK;
}

static int create_driver(const char *api, struct cudyn_linker *l, const char *const *options, int n)
{
    int st = cudyn__need_context(api);
    if (st != CUDYN_OK)
        return st;
    if (!DRIVER_HAS(cuLinkCreate_v2))
        return cudyn__fail(CUDYN_ERROR_NOT_SUPPORTED, CUDYN_ORIGIN_LOADER, 0, NULL, "cuLinkCreate", HINT_NO_NVJITLINK,
                           "%s: no nvJitLink, and the driver has no cuLinkCreate_v2", api);
    l->backend = DRIVER; /* before cuLinkCreate, whose failure's message ends with its error log */
    l->info_log = calloc(1, DRIVER_LOG_BYTES);
    l->error_log = calloc(1, DRIVER_LOG_BYTES);
    if (!l->info_log || !l->error_log)
        return cudyn__fail_oom(api);
    cu_enum keys[CUDYN_LINK_MAX_OPTIONS + 8];
    void *values[CUDYN_LINK_MAX_OPTIONS + 8];
    unsigned int count = 0;
    st = driver_options(api, options, n, l->cc, keys, values, &count, l);
    if (st != CUDYN_OK)
        return st;
    cu_result r = cudyn__drv.cuLinkCreate_v2(count, keys, values, &l->cl);
    if (r != CU_OK) {
        l->cl = NULL;
        return fail_driver(l, r, "cuLinkCreate", api, false);
    }
    snprintf(l->backend_name, sizeof l->backend_name, "driver (CUDA %d.%d)", cudyn__driver_version_loaded() / 1000,
             cudyn__driver_version_loaded() % 1000 / 10);
    return CUDYN_OK;
}

static int create_nvjitlink(const char *api, struct cudyn_linker *l, const char *const *options, int n)
{
    const char *v[CUDYN_LINK_MAX_OPTIONS + 1];
    char arch[32];
    bool has_arch = false;
    for (int i = 0; i < n; i++) {
        v[i] = options[i];
        has_arch |= cudyn__starts_with(options[i], "-arch=");
        l->want_ptx |= strcmp(options[i], "-ptx") == 0;
    }
    int count = n;
    if (!has_arch) {
        snprintf(arch, sizeof arch, "-arch=sm_%d", l->cc);
        v[count++] = arch;
    }
    nvjitlink_result r = cudyn__nvjitlink.nvJitLinkCreate(&l->jl, (uint32_t)count, v);
    if (r != NVJITLINK_OK) {
        l->jl = NULL;
        return fail_nvjitlink(l, r, "nvJitLinkCreate", api);
    }
    l->backend = NVJITLINK;
    const struct cudyn__library *lib = cudyn__nvjitlink_library();
    snprintf(l->backend_name, sizeof l->backend_name, "nvJitLink %d.%d", lib->version / 1000, lib->version % 1000 / 10);
    return CUDYN_OK;
}

/* The target: an -arch=sm_XX of the options, else the device's. */
static int target_of(const char *api, int device, const char *const *options, int n, int *cc)
{
    *cc = 0;
    for (int i = 0; i < n; i++)
        if (cudyn__starts_with(options[i], "-arch=sm_"))
            *cc = atoi(options[i] + 9);
    if (*cc > 0)
        return CUDYN_OK;
    if (device == CUDYN_DEVICE_NONE)
        return cudyn__fail_arg(api, "device", "is CUDYN_DEVICE_NONE, so the options must name -arch=sm_XX");
    return cudyn__device_cc(api, device, cc);
}

/* libcudadevrt.a, found as the toolkit headers are (loader/toolkit.c). */
static int add_devrt(const char *api, struct cudyn_linker *l)
{
    const struct cudyn__toolkit *t = cudyn__toolkit();
    if (!t->cudadevrt[0])
        return cudyn__fail(CUDYN_ERROR_NOT_FOUND, CUDYN_ORIGIN_LIBRARY, 0, NULL, api, HINT_NO_CUDADEVRT,
                           "%s: dynamic parallelism needs libcudadevrt.a, which was not found (looked in: %s)", api,
                           t->looked[0] ? t->looked : "no toolkit directory exists");
    return cudyn_link_add_file(l, CUDYN_LINK_LIBRARY, t->cudadevrt);
}

static int check_options(const char *api, const char *const *options, int n)
{
    if (n < 0 || n > CUDYN_LINK_MAX_OPTIONS) {
        char what[64];
        snprintf(what, sizeof what, "is negative or more than %d (CUDYN_LINK_MAX_OPTIONS)", CUDYN_LINK_MAX_OPTIONS);
        return cudyn__fail_arg(api, "num_options", what);
    }
    if (n > 0 && !options)
        return cudyn__fail_arg(api, "options", "must not be NULL when num_options is positive");
    for (int i = 0; i < n; i++)
        if (!options[i])
            return cudyn__fail_arg(api, "options", "contains a NULL entry");
    return CUDYN_OK;
}

CUDYN_API int cudyn_link_create(cudyn_linker **out, int device, const char *const *options, int num_options,
                                unsigned int flags)
{
    static const char api[] = "cudyn_link_create";
    if (!out)
        return cudyn__fail_arg(api, "out", "must not be NULL");
    *out = NULL;
    if (flags & ~(CUDYN_LINK_DEVRT | CUDYN_LINK_USE_DRIVER | CUDYN_LINK_NEED_NVJITLINK))
        return cudyn__fail_arg(api, "flags", "has bits other than the CUDYN_LINK_* flags");
    if ((flags & CUDYN_LINK_USE_DRIVER) && (flags & CUDYN_LINK_NEED_NVJITLINK))
        return cudyn__fail_arg(api, "flags", "asks for the driver's linker and for nvJitLink at once");
    int st = check_options(api, options, num_options);
    struct cudyn_linker *l = NULL;
    if (st == CUDYN_OK && !(l = calloc(1, sizeof *l)))
        st = cudyn__fail_oom(api);
    if (st == CUDYN_OK)
        st = target_of(api, device, options, num_options, &l->cc);
    if (st == CUDYN_OK && !(flags & CUDYN_LINK_USE_DRIVER)) {
        cudyn_error callers_error;
        cudyn__error_save(&callers_error);
        st = cudyn__need_nvjitlink();
        if (st == CUDYN_OK) {
            st = create_nvjitlink(api, l, options, num_options);
        } else if (!(flags & CUDYN_LINK_NEED_NVJITLINK)) {
            /* no nvJitLink is not this call's failure: the driver's linker serves */
            cudyn__error_restore(&callers_error);
            char note[1200];
            snprintf(note, sizeof note, "cudyn: no nvJitLink (%s); linking with the driver's linker",
                     cudyn__nvjitlink_library()->error.message);
            l->note = strdup(note);
            cudyn__debug("%s", note);
            st = create_driver(api, l, options, num_options);
        }
    } else if (st == CUDYN_OK) {
        st = create_driver(api, l, options, num_options);
    }
    if (st == CUDYN_OK && (flags & CUDYN_LINK_DEVRT))
        st = add_devrt(api, l);
    if (st != CUDYN_OK) {
        cudyn_link_destroy(l);
        return st;
    }
    *out = l;
    return CUDYN_OK;
}

/* ---------------------------------------------------------------- inputs */

/* What an input is, from its first bytes. */
static int kind_of(const unsigned char *p, size_t n)
{
    if (n >= 20 && memcmp(p, "\177ELF", 4) == 0)
        return p[18] == 190 && p[19] == 0 ? CUDYN_LINK_CUBIN : CUDYN_LINK_OBJECT; /* e_machine EM_CUDA */
    if (n >= 8 && memcmp(p, "!<arch>\n", 8) == 0)
        return CUDYN_LINK_LIBRARY;
    if (n >= 4 && memcmp(p, "\x50\xed\x55\xba", 4) == 0)
        return CUDYN_LINK_FATBIN;
    if (n >= 4 && (memcmp(p, "\xed\x43\x4e\x7f", 4) == 0 || memcmp(p, "BC\xc0\xde", 4) == 0))
        return CUDYN_LINK_LTOIR;
    return CUDYN_LINK_PTX;
}

static const char *kind_name(int kind)
{
    static const char *const names[] = {"auto", "CUBIN", "PTX", "LTO-IR", "fatbinary", "object", "library"};
    return kind >= 0 && kind < (int)N_ELEMS(names) ? names[kind] : "unknown";
}

/* Checks what cudyn can check of an input against its length. */
static int check_input(const char *api, int kind, const unsigned char *data, size_t bytes, const char *name)
{
    if (kind != CUDYN_LINK_CUBIN && kind != CUDYN_LINK_FATBIN)
        return CUDYN_OK;
    struct cudyn__image_view *v = malloc(sizeof *v);
    if (!v)
        return cudyn__fail_oom(api);
    char why[256] = "";
    int rc = cudyn__image_inspect(data, bytes, true, v, why, sizeof why);
    enum cudyn__image_kind want = kind == CUDYN_LINK_CUBIN ? CUDYN__IMAGE_ELF : CUDYN__IMAGE_FATBIN;
    if (rc == 0 && v->kind != want)
        snprintf(why, sizeof why, "it is not a %s", kind_name(kind));
    free(v);
    if (why[0])
        return cudyn__fail(CUDYN_ERROR_INVALID_IMAGE, CUDYN_ORIGIN_LIBRARY, 0, NULL, api, NULL,
                           "%s: the %s input %s is damaged: %s", api, kind_name(kind), name, why);
    return CUDYN_OK;
}

/* A copy of the input (PTX with a NUL the driver reads up to) and of its
 * name, owned by the linker; NULL when out of memory. */
static struct kept_input *keep(struct cudyn_linker *l, const unsigned char *data, size_t bytes, const char *name)
{
    if (l->n_inputs == l->cap_inputs) {
        int cap = l->cap_inputs ? 2 * l->cap_inputs : 8;
        struct kept_input *v = realloc(l->inputs, (size_t)cap * sizeof *v);
        if (!v)
            return NULL;
        l->inputs = v;
        l->cap_inputs = cap;
    }
    struct kept_input k = {malloc(bytes + 1), strdup(name)};
    if (!k.data || !k.name) {
        free(k.data);
        free(k.name);
        return NULL;
    }
    memcpy(k.data, data, bytes);
    k.data[bytes] = '\0';
    l->inputs[l->n_inputs] = k;
    return &l->inputs[l->n_inputs++];
}

static int add_to_driver(const char *api, struct cudyn_linker *l, int kind, const unsigned char *data, size_t bytes,
                         const char *name)
{
    static const cu_enum types[] = {
        [CUDYN_LINK_CUBIN] = CU_JITIN_CUBIN,     [CUDYN_LINK_PTX] = CU_JITIN_PTX,
        [CUDYN_LINK_FATBIN] = CU_JITIN_FATBINARY, [CUDYN_LINK_OBJECT] = CU_JITIN_OBJECT,
        [CUDYN_LINK_LIBRARY] = CU_JITIN_LIBRARY,
    };
    if (kind == CUDYN_LINK_LTOIR)
        return cudyn__fail(CUDYN_ERROR_NOT_SUPPORTED, CUDYN_ORIGIN_LIBRARY, 0, NULL, api, HINT_NO_NVJITLINK,
                           "%s: %s is LTO-IR, which only nvJitLink links (this linker is the driver's)", api, name);
    int st = cudyn__need_context(api);
    if (st != CUDYN_OK)
        return st;
    /* the driver reads PTX up to its NUL, which the kept copy has */
    if (kind == CUDYN_LINK_PTX && data[bytes - 1] != '\0')
        bytes++;
    cu_result r = cudyn__drv.cuLinkAddData_v2(l->cl, types[kind], (void *)data, bytes, name, 0, NULL, NULL);
    return r == CU_OK ? CUDYN_OK : fail_driver(l, r, "cuLinkAddData", api, true);
}

/* nvJitLink's nvJitLinkInputType of each CUDYN_LINK_* kind (nvjitlink_abi.h). */
static const nvjitlink_input_type nvjitlink_types[] = {
#define NVJITLINK_INPUT_ROW(kind, value) [CUDYN_LINK_##kind] = value,
    NVJITLINK_INPUT_MAP(NVJITLINK_INPUT_ROW)
#undef NVJITLINK_INPUT_ROW
};
_Static_assert(N_ELEMS(nvjitlink_types) == CUDYN_LINK_LIBRARY + 1, "a CUDYN_LINK_* kind without its row");

static int check_linker(const char *api, const struct cudyn_linker *l)
{
    if (!l)
        return cudyn__fail_arg(api, "linker", "must not be NULL");
    if (l->completed)
        return cudyn__fail(CUDYN_ERROR_INVALID_ARGUMENT, CUDYN_ORIGIN_LIBRARY, 0, NULL, api, NULL,
                           "%s: the linker has completed; make a new one to link again", api);
    return CUDYN_OK;
}

static int add(const char *api, cudyn_linker *linker, int kind, const void *data, size_t bytes, const char *name)
{
    if (kind < CUDYN_LINK_AUTO || kind > CUDYN_LINK_LIBRARY)
        return cudyn__fail_arg(api, "kind", "is not a CUDYN_LINK_* input kind");
    if (bytes == 0 || bytes > MAX_INPUT_BYTES)
        return cudyn__fail_arg(api, "bytes", "is 0 or more than 2 GiB");
    const unsigned char *p = data;
    if (kind == CUDYN_LINK_AUTO)
        kind = kind_of(p, bytes);
    int st = check_input(api, kind, p, bytes, name);
    if (st != CUDYN_OK)
        return st;
    cudyn__debug("%s: %s (%s, %zu bytes) to %s", api, name, kind_name(kind), bytes, linker->backend_name);
    const struct kept_input *k = keep(linker, p, bytes, name);
    if (!k)
        return cudyn__fail_oom(api);
    if (linker->backend == DRIVER) {
        st = add_to_driver(api, linker, kind, k->data, bytes, k->name);
    } else {
        nvjitlink_result r =
            cudyn__nvjitlink.nvJitLinkAddData(linker->jl, nvjitlink_types[kind], k->data, bytes, k->name);
        st = r == NVJITLINK_OK ? CUDYN_OK : fail_nvjitlink(linker, r, "nvJitLinkAddData", api);
    }
    if (st == CUDYN_OK) {
        refresh_log(linker); /* warnings, too */
    } else { /* refused: not an input */
        linker->n_inputs--;
        free(linker->inputs[linker->n_inputs].data);
        free(linker->inputs[linker->n_inputs].name);
    }
    return st;
}

CUDYN_API int cudyn_link_add_data(cudyn_linker *linker, int kind, const void *data, size_t bytes, const char *name)
{
    static const char api[] = "cudyn_link_add_data";
    int st = check_linker(api, linker);
    if (st != CUDYN_OK)
        return st;
    if (!data)
        return cudyn__fail_arg(api, "data", "must not be NULL");
    return add(api, linker, kind, data, bytes, name ? name : "input");
}

/* A regular file of at most MAX_INPUT_BYTES, read whole (malloc'd). */
static int read_input(const char *api, const char *path, unsigned char **out, size_t *bytes)
{
    int fd = cudyn__open_regular(AT_FDCWD, path, 0); /* a FIFO is refused, never waited on */
    struct stat st;
    if (fd < 0 && errno == EINVAL)
        return cudyn__fail_arg(api, "path", "is not a regular file of 1 byte to 2 GiB");
    if (fd < 0 || fstat(fd, &st) != 0) {
        int e = errno;
        if (fd >= 0)
            close(fd);
        return cudyn__fail(e == ENOENT ? CUDYN_ERROR_NOT_FOUND : CUDYN_ERROR_SYSTEM, CUDYN_ORIGIN_SYSTEM, e, NULL, "open",
                           NULL, "%s: cannot open %s: %s", api, path, strerror(e));
    }
    if (st.st_size <= 0 || (uint64_t)st.st_size > MAX_INPUT_BYTES) {
        close(fd);
        return cudyn__fail_arg(api, "path", "is not a regular file of 1 byte to 2 GiB");
    }
    size_t size = (size_t)st.st_size;
    unsigned char *buf = cudyn__read_whole(fd, size, 0);
    int e = errno;
    close(fd);
    if (!buf && e == ENOMEM)
        return cudyn__fail_oom(api);
    if (!buf)
        return cudyn__fail(CUDYN_ERROR_SYSTEM, CUDYN_ORIGIN_SYSTEM, EIO, NULL, "read", NULL,
                           "%s: %s changed size or could not be read whole", api, path);
    *out = buf;
    *bytes = size;
    return CUDYN_OK;
}

CUDYN_API int cudyn_link_add_file(cudyn_linker *linker, int kind, const char *path)
{
    static const char api[] = "cudyn_link_add_file";
    int st = check_linker(api, linker);
    if (st != CUDYN_OK)
        return st;
    if (!path)
        return cudyn__fail_arg(api, "path", "must not be NULL");
    unsigned char *data = NULL;
    size_t bytes = 0;
    st = read_input(api, path, &data, &bytes);
    if (st == CUDYN_OK)
        st = add(api, linker, kind, data, bytes, path);
    free(data);
    return st;
}

CUDYN_API int cudyn_link_add_program(cudyn_linker *linker, const cudyn_program *prog)
{
    static const char api[] = "cudyn_link_add_program";
    int st = check_linker(api, linker);
    if (st != CUDYN_OK)
        return st;
    if (!prog || !prog->out.image)
        return cudyn__fail_arg(api, "prog", "must be a program that compiled");
    return add(api, linker, prog->target.cubin ? CUDYN_LINK_CUBIN : CUDYN_LINK_PTX, prog->out.image,
               prog->out.image_size, prog->in.name);
}

/* -------------------------------------------------------------- the end */

static int complete_nvjitlink(const char *api, struct cudyn_linker *l)
{
    nvjitlink_result r = cudyn__nvjitlink.nvJitLinkComplete(l->jl);
    if (r != NVJITLINK_OK)
        return fail_nvjitlink(l, r, "nvJitLinkComplete", api);
    size_t size = 0;
    const char *fn = l->want_ptx ? "nvJitLinkGetLinkedPtxSize" : "nvJitLinkGetLinkedCubinSize";
    r = l->want_ptx ? cudyn__nvjitlink.nvJitLinkGetLinkedPtxSize(l->jl, &size)
                    : cudyn__nvjitlink.nvJitLinkGetLinkedCubinSize(l->jl, &size);
    if (r == NVJITLINK_OK && size == 0)
        return cudyn__fail(CUDYN_ERROR_LINK, CUDYN_ORIGIN_NVJITLINK, 0, NULL, fn, HINT_LINK_LOG,
                           "%s: nvJitLink linked nothing", api);
    if (r == NVJITLINK_OK && !(l->image = malloc(size)))
        return cudyn__fail_oom(api);
    if (r == NVJITLINK_OK) {
        fn = l->want_ptx ? "nvJitLinkGetLinkedPtx" : "nvJitLinkGetLinkedCubin";
        r = l->want_ptx ? cudyn__nvjitlink.nvJitLinkGetLinkedPtx(l->jl, l->image)
                        : cudyn__nvjitlink.nvJitLinkGetLinkedCubin(l->jl, l->image);
    }
    if (r != NVJITLINK_OK)
        return fail_nvjitlink(l, r, fn, api);
    l->image_bytes = size;
    return CUDYN_OK;
}

static int complete_driver(const char *api, struct cudyn_linker *l)
{
    int st = cudyn__need_context(api);
    if (st != CUDYN_OK)
        return st;
    void *cubin = NULL;
    size_t size = 0;
    cu_result r = cudyn__drv.cuLinkComplete(l->cl, &cubin, &size);
    if (r != CU_OK)
        return fail_driver(l, r, "cuLinkComplete", api, true);
    if (!cubin || size == 0)
        return cudyn__fail(CUDYN_ERROR_LINK, CUDYN_ORIGIN_DRIVER, 0, NULL, "cuLinkComplete", HINT_LINK_LOG,
                           "%s: the driver's linker linked nothing", api);
    /* the driver's copy lives until cuLinkDestroy; ours as long as the linker */
    if (!(l->image = malloc(size)))
        return cudyn__fail_oom(api);
    memcpy(l->image, cubin, size);
    l->image_bytes = size;
    return CUDYN_OK;
}

CUDYN_API int cudyn_link_complete(cudyn_linker *linker, const void **image, size_t *bytes)
{
    static const char api[] = "cudyn_link_complete";
    if (image)
        *image = NULL;
    if (bytes)
        *bytes = 0;
    int st = check_linker(api, linker);
    if (st != CUDYN_OK)
        return st;
    if (!image || !bytes)
        return cudyn__fail_arg(api, image ? "bytes" : "image", "must not be NULL");
    if (linker->n_inputs == 0)
        return cudyn__fail_arg(api, "linker", "has no inputs");
    st = linker->backend == DRIVER ? complete_driver(api, linker) : complete_nvjitlink(api, linker);
    refresh_log(linker);
    if (st != CUDYN_OK) {
        free(linker->image);
        linker->image = NULL;
        linker->image_bytes = 0;
        return st;
    }
    linker->completed = true;
    *image = linker->image;
    *bytes = linker->image_bytes;
    return CUDYN_OK;
}

CUDYN_API const char *cudyn_link_log(const cudyn_linker *linker)
{
    return linker && linker->log ? linker->log : "";
}

CUDYN_API const char *cudyn_link_backend(const cudyn_linker *linker)
{
    return linker ? linker->backend_name : "";
}

CUDYN_API void cudyn_link_destroy(cudyn_linker *linker)
{
    if (!linker)
        return;
    if (linker->jl)
        cudyn__nvjitlink.nvJitLinkDestroy(&linker->jl);
    if (linker->cl && cudyn__drv.cuLinkDestroy(linker->cl) != CU_OK)
        cudyn__debug("cudyn_link_destroy: cuLinkDestroy failed (its context is gone?)");
    free(linker->info_log);
    free(linker->error_log);
    free(linker->log);
    free(linker->note);
    free(linker->image);
    for (int i = 0; i < linker->n_inputs; i++) {
        free(linker->inputs[i].data);
        free(linker->inputs[i].name);
    }
    free(linker->inputs);
    free(linker);
}
