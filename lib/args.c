/*
 * args.c - typed launches: argument packs built from a format (format.c),
 * In/Out buffers, and the check of arguments against the kernel's
 * parameters (cuFuncGetParamInfo, cached per function).
 */
#include "config.h"

#include <complex.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "internal.h"

/* ---------------------------------------------- parameters of a kernel */

#define PARAM_CACHE_SLOTS 512
#define PARAM_UNKNOWN (-1) /* the driver cannot say: launches go unchecked */

struct param_info {
    _Atomic(cudyn_function) f;
    unsigned int generation;
    int count;
    size_t sizes[CUDYN_MAX_ARGS];
    char name[64];
};

static struct param_info param_cache[PARAM_CACHE_SLOTS];
static pthread_mutex_t param_lock = PTHREAD_MUTEX_INITIALIZER;
static atomic_uint param_generation = 1;

/* A function handle can be reused by the driver after its module is
 * unloaded: forget everything then. */
void cudyn__param_cache_invalidate(void)
{
    atomic_fetch_add_explicit(&param_generation, 1, memory_order_release);
}

static void query_params(cudyn_function f, struct param_info *info)
{
    info->count = PARAM_UNKNOWN;
    snprintf(info->name, sizeof info->name, "kernel");
    if (!DRIVER_HAS(cuFuncGetParamInfo))
        return;
    cu_function fn = (cu_function)(void *)f;
    const char *name = NULL;
    if (DRIVER_HAS(cuFuncGetName) && cudyn__drv.cuFuncGetName(&name, fn) == CU_OK && name)
        snprintf(info->name, sizeof info->name, "%s", name);
    for (int i = 0; i <= CUDYN_MAX_ARGS; i++) {
        size_t offset = 0, size = 0;
        cu_result r = cudyn__drv.cuFuncGetParamInfo(fn, (size_t)i, &offset, &size);
        if (r == CU_ERR_INVALID_VALUE) { /* past the last parameter */
            info->count = i;
            return;
        }
        if (r != CU_OK || i == CUDYN_MAX_ARGS)
            return; /* unknown */
        info->sizes[i] = size;
    }
}

/* The kernel's parameters, from the cache or the driver.  Lock-free for
 * readers: a slot's fields are written before its key is published. */
static const struct param_info *param_info(cudyn_function f)
{
    unsigned int gen = atomic_load_explicit(&param_generation, memory_order_acquire);
    size_t h = ((uintptr_t)f >> 4) % PARAM_CACHE_SLOTS;
    for (size_t probe = 0; probe < 8; probe++) {
        struct param_info *slot = &param_cache[(h + probe) % PARAM_CACHE_SLOTS];
        if (atomic_load_explicit(&slot->f, memory_order_acquire) == f && slot->generation == gen)
            return slot;
    }
    pthread_mutex_lock(&param_lock);
    struct param_info *slot = NULL;
    for (size_t probe = 0; probe < 8 && !slot; probe++) {
        struct param_info *s = &param_cache[(h + probe) % PARAM_CACHE_SLOTS];
        cudyn_function key = atomic_load_explicit(&s->f, memory_order_relaxed);
        if (key == f && s->generation == gen)
            slot = s; /* another thread was first */
        else if (!key || s->generation != gen) {
            atomic_store_explicit(&s->f, NULL, memory_order_relaxed);
            query_params(f, s);
            (void)cudyn__take_missing_symbol();
            s->generation = gen;
            atomic_store_explicit(&s->f, f, memory_order_release);
            slot = s;
        }
    }
    pthread_mutex_unlock(&param_lock);
    return slot; /* NULL: the neighbourhood is full; go unchecked */
}

static int check_params(const char *api, cudyn_function f, const struct cudyn__format *fmt, const char *fmt_text)
{
    const struct param_info *info = param_info(f);
    if (!info || info->count == PARAM_UNKNOWN)
        return CUDYN_OK;
    if (info->count != fmt->n)
        return cudyn__fail(CUDYN_ERROR_INVALID_LAUNCH_ARGUMENTS, CUDYN_ORIGIN_LIBRARY, 0, NULL, api, NULL,
                          "%s: %s takes %d parameter%s, the format \"%s\" gives %d", api, info->name, info->count,
                          info->count == 1 ? "" : "s", fmt_text, fmt->n);
    for (int i = 0; i < fmt->n; i++)
        if (fmt->args[i].size != info->sizes[i])
            return cudyn__fail(CUDYN_ERROR_INVALID_LAUNCH_ARGUMENTS, CUDYN_ORIGIN_LIBRARY, 0, NULL, api, NULL,
                              "%s: %s: parameter %d is %zu bytes, argument %d ('%c', %s) is %zu", api, info->name,
                              i + 1, info->sizes[i], i + 1, fmt->args[i].code, fmt->args[i].what, fmt->args[i].size);
    return CUDYN_OK;
}

/* ---------------------------------------------------------- the packs */

struct buffer {
    void *host;
    size_t bytes;
    cudyn_devptr dev;
};

struct cudyn_args {
    cudyn_function f;
    struct cudyn__format fmt;
    const char *fmt_text;     /* the caller's (launchf) or fmt_copy (a pack) */
    char *fmt_copy;
    bool check;
    bool checked;             /* passed the check since the last change */
    bool owns_structs;        /* a reusable pack keeps copies */
    void *ptrs[CUDYN_MAX_ARGS]; /* what the driver gets */
    _Alignas(16) unsigned char scalars[CUDYN_MAX_ARGS][16];
    void *structs[CUDYN_MAX_ARGS];
    struct buffer buffers[CUDYN_MAX_ARGS];
};

static int set_struct(const char *api, struct cudyn_args *a, int i, const void *value, size_t size)
{
    if (!value)
        return cudyn__fail(CUDYN_ERROR_INVALID_ARGUMENT, CUDYN_ORIGIN_LIBRARY, 0, NULL, api, NULL,
                          "%s: argument %d ('s') points to no struct", api, i + 1);
    if (size == 0 || size > CUDYN_MAX_PARAM_BYTES)
        return cudyn__fail(CUDYN_ERROR_INVALID_ARGUMENT, CUDYN_ORIGIN_LIBRARY, 0, NULL, api, NULL,
                          "%s: argument %d ('s') has size %zu; it must be 1 to %d bytes", api, i + 1, size,
                          CUDYN_MAX_PARAM_BYTES);
    a->fmt.args[i].size = size;
    if (!a->owns_structs) {
        a->ptrs[i] = (void *)value; /* the driver copies it at launch */
        return CUDYN_OK;
    }
    void *copy = realloc(a->structs[i], size); /* malloc: aligned for any type */
    if (!copy)
        return cudyn__fail_oom(api);
    memcpy(copy, value, size);
    a->structs[i] = copy;
    a->ptrs[i] = copy;
    return CUDYN_OK;
}

/* Reads one value per parameter from ap, as cudyn_launchf documents. */
static int read_values(const char *api, struct cudyn_args *a, va_list *ap)
{
    for (int i = 0; i < a->fmt.n; i++) {
        unsigned char *slot = a->scalars[i];
        a->ptrs[i] = slot;
        switch (a->fmt.args[i].code) {
        case '?': slot[0] = va_arg(*ap, int) != 0; break;
        case 'b': { int8_t v = (int8_t)va_arg(*ap, int); memcpy(slot, &v, 1); break; }
        case 'B': { uint8_t v = (uint8_t)va_arg(*ap, int); memcpy(slot, &v, 1); break; }
        case 'h': { int16_t v = (int16_t)va_arg(*ap, int); memcpy(slot, &v, 2); break; }
        case 'H': { uint16_t v = (uint16_t)va_arg(*ap, int); memcpy(slot, &v, 2); break; }
        case 'i': { int32_t v = va_arg(*ap, int); memcpy(slot, &v, 4); break; }
        case 'I': { uint32_t v = va_arg(*ap, unsigned int); memcpy(slot, &v, 4); break; }
        case 'q': { int64_t v = va_arg(*ap, long long); memcpy(slot, &v, 8); break; }
        case 'Q': { uint64_t v = va_arg(*ap, unsigned long long); memcpy(slot, &v, 8); break; }
        case 'e': { unsigned short v = cudyn__half_from_double(va_arg(*ap, double)); memcpy(slot, &v, 2); break; }
        case 'f': { float v = (float)va_arg(*ap, double); memcpy(slot, &v, 4); break; }
        case 'd': { double v = va_arg(*ap, double); memcpy(slot, &v, 8); break; }
        case 'F': { float _Complex v = va_arg(*ap, float _Complex); memcpy(slot, &v, 8); break; }
        case 'D': { double _Complex v = va_arg(*ap, double _Complex); memcpy(slot, &v, 16); break; }
        case 'p': { cudyn_devptr v = va_arg(*ap, cudyn_devptr); memcpy(slot, &v, 8); break; }
        case 'z': { size_t v = va_arg(*ap, size_t); memcpy(slot, &v, sizeof v); break; }
        case 's': {
            const void *p = va_arg(*ap, const void *);
            size_t size = va_arg(*ap, size_t);
            int st = set_struct(api, a, i, p, size);
            if (st != CUDYN_OK)
                return st;
            break;
        }
        default: { /* buffers */
            struct buffer *b = &a->buffers[i];
            b->host = va_arg(*ap, void *);
            b->bytes = va_arg(*ap, size_t);
            if (!b->host && b->bytes)
                return cudyn__fail(CUDYN_ERROR_INVALID_ARGUMENT, CUDYN_ORIGIN_LIBRARY, 0, NULL, api, NULL,
                                  "%s: argument %d ('%c') has no host memory for %zu bytes", api, i + 1,
                                  a->fmt.args[i].code, b->bytes);
            a->ptrs[i] = &b->dev;
            break;
        }
        }
    }
    a->checked = false;
    return CUDYN_OK;
}

static int parse(const char *api, struct cudyn_args *a, cudyn_function f, const char *fmt)
{
    if (!f)
        return cudyn__fail_arg(api, "f", "must not be NULL");
    if (!fmt)
        return cudyn__fail_arg(api, "fmt", "must not be NULL");
    char why[128];
    if (cudyn__format_parse(fmt, &a->fmt, why, sizeof why) != 0)
        return cudyn__fail(CUDYN_ERROR_INVALID_ARGUMENT, CUDYN_ORIGIN_LIBRARY, 0, NULL, api, NULL,
                          "%s: format \"%.64s\": %s; see the table in cudyn.h", api, fmt, why);
    a->f = f;
    a->fmt_text = fmt;
    return CUDYN_OK;
}

/* Frees the device side of In/Out buffers; keeps the first error. */
static int release_buffers(struct cudyn_args *a, int st)
{
    cudyn_error first;
    cudyn__error_save(&first);
    for (int i = 0; i < a->fmt.n; i++)
        if (a->buffers[i].dev) {
            int r = cudyn_mem_free(a->buffers[i].dev);
            a->buffers[i].dev = 0;
            if (st == CUDYN_OK)
                st = r;
        }
    if (st != CUDYN_OK && first.status)
        cudyn__error_restore(&first);
    return st;
}

/* Allocate and copy in; launch; copy out and synchronise; free. */
static int launch_with_buffers(const char *api, struct cudyn_args *a, cudyn_dim3 grid, cudyn_dim3 block,
                               unsigned int shared, cudyn_stream stream)
{
    int st = CUDYN_OK;
    for (int i = 0; i < a->fmt.n && st == CUDYN_OK; i++) {
        struct buffer *b = &a->buffers[i];
        enum cudyn__arg_kind k = a->fmt.args[i].kind;
        if (k == ARG_SCALAR || k == ARG_STRUCT || b->bytes == 0)
            continue;
        st = cudyn_mem_alloc(&b->dev, b->bytes);
        if (st == CUDYN_OK && (k == ARG_IN || k == ARG_INOUT))
            st = cudyn_memcpy_htod_async(b->dev, b->host, b->bytes, stream);
    }
    if (st == CUDYN_OK)
        st = cudyn_launch(a->f, grid, block, shared, stream, a->ptrs);
    for (int i = 0; i < a->fmt.n && st == CUDYN_OK; i++) {
        struct buffer *b = &a->buffers[i];
        enum cudyn__arg_kind k = a->fmt.args[i].kind;
        if ((k == ARG_OUT || k == ARG_INOUT) && b->bytes)
            st = cudyn_memcpy_dtoh_async(b->host, b->dev, b->bytes, stream);
    }
    if (st == CUDYN_OK)
        st = cudyn_stream_synchronize(stream); /* the host buffers are ready on return */
    if (st != CUDYN_OK)
        cudyn__error_append(" (%s, with In/Out buffers)", api);
    return release_buffers(a, st);
}

static int launch_pack(const char *api, struct cudyn_args *a, cudyn_dim3 grid, cudyn_dim3 block,
                       unsigned int shared, cudyn_stream stream)
{
    if (a->check && !a->checked) {
        int st = check_params(api, a->f, &a->fmt, a->fmt_text);
        if (st != CUDYN_OK)
            return st;
        a->checked = true;
    }
    if (a->fmt.has_buffers)
        return launch_with_buffers(api, a, grid, block, shared, stream);
    return cudyn_launch(a->f, grid, block, shared, stream, a->ptrs);
}

CUDYN_API int cudyn_launchf(cudyn_function f, cudyn_dim3 grid, cudyn_dim3 block, unsigned int shared_bytes,
                            cudyn_stream stream, const char *fmt, ...)
{
    static const char api[] = "cudyn_launchf";
    struct cudyn_args a; /* on the stack: no allocation for a plain launch */
    a.check = true;
    a.owns_structs = false;
    int st = parse(api, &a, f, fmt);
    if (st != CUDYN_OK)
        return st;
    memset(a.buffers, 0, sizeof a.buffers[0] * (size_t)a.fmt.n);
    va_list ap;
    va_start(ap, fmt);
    st = read_values(api, &a, &ap);
    va_end(ap);
    if (st != CUDYN_OK)
        return st;
    st = cudyn__need_context(api); /* the check asks the driver */
    if (st != CUDYN_OK)
        return st;
    return launch_pack(api, &a, grid, block, shared_bytes, stream);
}

CUDYN_API int cudyn_args_create(cudyn_args **out, cudyn_function f, const char *fmt)
{
    static const char api[] = "cudyn_args_create";
    if (!out)
        return cudyn__fail_arg(api, "out", "must not be NULL");
    *out = NULL;
    struct cudyn_args *a = calloc(1, sizeof *a);
    if (!a)
        return cudyn__fail_oom(api);
    a->check = true;
    a->owns_structs = true;
    int st = parse(api, a, f, fmt);
    if (st == CUDYN_OK && !(a->fmt_text = a->fmt_copy = strdup(fmt)))
        st = cudyn__fail_oom(api);
    for (int i = 0; st == CUDYN_OK && i < a->fmt.n; i++)
        a->ptrs[i] = a->fmt.args[i].kind == ARG_SCALAR ? (void *)a->scalars[i] : NULL;
    if (st != CUDYN_OK) {
        free(a);
        return st;
    }
    *out = a;
    return CUDYN_OK;
}

CUDYN_API int cudyn_args_set(cudyn_args *args, ...)
{
    static const char api[] = "cudyn_args_set";
    if (!args)
        return cudyn__fail_arg(api, "args", "must not be NULL");
    va_list ap;
    va_start(ap, args);
    int st = read_values(api, args, &ap);
    va_end(ap);
    return st;
}

CUDYN_API int cudyn_args_set_value(cudyn_args *args, int index, const void *value, size_t size)
{
    static const char api[] = "cudyn_args_set_value";
    if (!args)
        return cudyn__fail_arg(api, "args", "must not be NULL");
    if (index < 0 || index >= args->fmt.n)
        return cudyn__fail_arg(api, "index", "is not a parameter of the pack's format");
    if (!value)
        return cudyn__fail_arg(api, "value", "must not be NULL");
    const struct cudyn__arg_spec *spec = &args->fmt.args[index];
    args->checked = false;
    if (spec->kind == ARG_STRUCT)
        return set_struct(api, args, index, value, size);
    if (spec->kind != ARG_SCALAR)
        return cudyn__fail_arg(api, "index", "names an In/Out buffer; set buffers with cudyn_args_set");
    if (size != spec->size)
        return cudyn__fail(CUDYN_ERROR_INVALID_ARGUMENT, CUDYN_ORIGIN_LIBRARY, 0, NULL, api, NULL,
                          "%s: parameter %d ('%c', %s) is %zu bytes, not %zu", api, index + 1, spec->code, spec->what,
                          spec->size, size);
    memcpy(args->scalars[index], value, size);
    args->ptrs[index] = args->scalars[index];
    return CUDYN_OK;
}

CUDYN_API int cudyn_args_check(cudyn_args *args, int enabled)
{
    if (!args)
        return cudyn__fail_arg("cudyn_args_check", "args", "must not be NULL");
    args->check = enabled != 0;
    args->checked = false;
    return CUDYN_OK;
}

CUDYN_API int cudyn_args_launch(cudyn_args *args, cudyn_dim3 grid, cudyn_dim3 block, unsigned int shared_bytes,
                                cudyn_stream stream)
{
    static const char api[] = "cudyn_args_launch";
    if (CUDYN_UNLIKELY(!args))
        return cudyn__fail_arg(api, "args", "must not be NULL");
    for (int i = 0; i < args->fmt.n; i++)
        if (CUDYN_UNLIKELY(!args->ptrs[i]))
            return cudyn__fail(CUDYN_ERROR_INVALID_ARGUMENT, CUDYN_ORIGIN_LIBRARY, 0, NULL, api, NULL,
                              "%s: argument %d ('%c') was never set", api, i + 1, args->fmt.args[i].code);
    if (CUDYN_UNLIKELY(!args->checked)) {
        int st = cudyn__need_context(api);
        if (st != CUDYN_OK)
            return st;
    }
    return launch_pack(api, args, grid, block, shared_bytes, stream);
}

CUDYN_API void cudyn_args_free(cudyn_args *args)
{
    if (!args)
        return;
    for (int i = 0; i < args->fmt.n; i++)
        free(args->structs[i]);
    free(args->fmt_copy);
    free(args);
}
