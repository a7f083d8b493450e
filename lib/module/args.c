/*
 * args.c - typed launches: argument packs built from a format (format.c;
 * values read as format_codes.h says), In/Out buffers, and the check of
 * arguments against what the kernel takes (kernel_params.c).
 */
#include "config.h"

#include <complex.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "module/args.h"
#include "module/format_codes.h"
#include "module/kernel_params.h"
#include "module/module.h"

struct buffer {
    void *host;
    size_t bytes;
    cudyn_devptr dev;
};

struct cudyn_args {
    cudyn_function f;
    const struct cudyn__format *fmt; /* &own, or the thread's memo (launchf) */
    struct cudyn__format own;
    const char *fmt_text;     /* the caller's (launchf) or fmt_copy (a pack) */
    char *fmt_copy;
    bool check;
    bool checked;             /* passed the check since the last change */
    bool known;               /* the check had something to check against */
    bool owns_structs;        /* a reusable pack keeps copies */
    bool pending;             /* a launch with buffers not finished: they are allocated */
    cudyn_stream pending_stream; /* the stream of that launch */
    uint64_t set, all;        /* a bit per argument: set so far / all of them */
    void *ptrs[CUDYN_MAX_ARGS]; /* what the driver gets */
    _Alignas(16) unsigned char scalars[CUDYN_MAX_ARGS][16];
    void *structs[CUDYN_MAX_ARGS];
    struct buffer buffers[CUDYN_MAX_ARGS];
};

/* What a launch passes for parameters nobody described: when neither the
 * driver nor PTX can say how many parameters a kernel has, a format that is
 * too short would leave the driver reading uninitialised pointers.  Every
 * slot past the format points here instead: the kernel reads zeros, up to
 * the largest parameter the driver allows, never garbage. */
static const unsigned char zero_param[CUDYN_MAX_PARAM_BYTES];

static void zero_tail(struct cudyn_args *a)
{
    for (int i = a->fmt->n; i < CUDYN_MAX_ARGS; i++)
        a->ptrs[i] = (void *)zero_param;
}

static uint64_t bit(int i)
{
    return (uint64_t)1 << i;
}

static int set_struct(const char *api, struct cudyn_args *a, int i, const void *value, size_t size)
{
    if (!value)
        return cudyn__fail(CUDYN_ERROR_INVALID_ARGUMENT, CUDYN_ORIGIN_LIBRARY, 0, NULL, api, NULL,
                           "%s: argument %d ('s') points to no struct", api, i + 1);
    if (size == 0 || size > CUDYN_MAX_PARAM_BYTES)
        return cudyn__fail(CUDYN_ERROR_INVALID_ARGUMENT, CUDYN_ORIGIN_LIBRARY, 0, NULL, api, NULL,
                           "%s: argument %d ('s') has size %zu; it must be 1 to %d bytes", api, i + 1, size,
                           CUDYN_MAX_PARAM_BYTES);
    a->own.args[i].size = size; /* fmt is own: formats with structs are never memoised */
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

static int set_buffer(const char *api, struct cudyn_args *a, int i, void *host, size_t bytes)
{
    if (!host && bytes)
        return cudyn__fail(CUDYN_ERROR_INVALID_ARGUMENT, CUDYN_ORIGIN_LIBRARY, 0, NULL, api, NULL,
                           "%s: argument %d ('%c') has no host memory for %zu bytes", api, i + 1,
                           a->fmt->args[i].code, bytes);
    struct buffer *b = &a->buffers[i];
    b->host = host;
    b->bytes = bytes;
    a->ptrs[i] = &b->dev;
    return CUDYN_OK;
}

/* Reads one value per parameter from ap, as cudyn_launchf documents. */
static int read_values(const char *api, struct cudyn_args *a, va_list *ap)
{
    for (int i = 0; i < a->fmt->n; i++) {
        unsigned char *slot = a->scalars[i];
        int st = CUDYN_OK;
        switch (a->fmt->args[i].code) {
#define READ_SCALAR(code, stored, promoted, convert)          \
    case code: {                                              \
        stored v = convert(stored, va_arg(*ap, promoted));    \
        memcpy(slot, &v, sizeof v);                           \
        a->ptrs[i] = slot;                                    \
        break;                                                \
    }
            FORMAT_SCALAR_READS(READ_SCALAR)
#undef READ_SCALAR
        default: { /* a struct or a buffer: a pointer and a size */
            void *p = va_arg(*ap, void *);
            size_t size = va_arg(*ap, size_t);
            st = a->fmt->args[i].kind == CUDYN_ARG_STRUCT ? set_struct(api, a, i, p, size)
                                                           : set_buffer(api, a, i, p, size);
            break;
        }
        }
        if (st != CUDYN_OK)
            return st;
        a->set |= bit(i);
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
    if (cudyn__format_parse(fmt, &a->own, why, sizeof why) != 0)
        return cudyn__fail(CUDYN_ERROR_INVALID_ARGUMENT, CUDYN_ORIGIN_LIBRARY, 0, NULL, api, NULL,
                           "%s: format \"%.64s\": %s; see CUDYN_LAUNCH_FORMAT_MAP in cudyn.h", api, fmt, why);
    a->f = f;
    a->fmt = &a->own;
    a->fmt_text = fmt;
    a->set = 0;
    a->all = a->fmt->n == 64 ? ~(uint64_t)0 : bit(a->fmt->n) - 1;
    return CUDYN_OK;
}

/* Frees the device side of In/Out buffers.  A launch that had failed keeps
 * its error; otherwise the first failed free is the error. */
static int release_buffers(struct cudyn_args *a, int st)
{
    cudyn_error first;
    if (st != CUDYN_OK)
        cudyn__error_save(&first);
    for (int i = 0; i < a->fmt->n; i++)
        if (a->buffers[i].dev) {
            int r = cudyn_mem_free(a->buffers[i].dev);
            a->buffers[i].dev = 0;
            if (r != CUDYN_OK && st == CUDYN_OK) {
                st = r;
                cudyn__error_save(&first);
            }
        }
    if (st != CUDYN_OK)
        cudyn__error_restore(&first); /* later failed frees must not replace it */
    return st;
}

/* Waits for the stream before buffers are freed after a failure (nothing
 * may be freed under a queued copy), keeping the failure's error. */
static void drain(cudyn_stream stream)
{
    cudyn_error first;
    cudyn__error_save(&first);
    cudyn_stream_synchronize(stream);
    cudyn__error_restore(&first);
}

/* Allocates and fills the buffers, launches, and queues the copies back,
 * without waiting: the buffers are then pending until finish_buffers.  A
 * failure releases everything, keeping the first error. */
static int start_with_buffers(const char *api, struct cudyn_args *a, cudyn_dim3 grid, cudyn_dim3 block,
                              unsigned int shared, cudyn_stream stream)
{
    int st = CUDYN_OK;
    bool queued = false; /* the stream has work that touches a buffer */
    for (int i = 0; i < a->fmt->n && st == CUDYN_OK; i++) {
        struct buffer *b = &a->buffers[i];
        cudyn_arg_kind k = a->fmt->args[i].kind;
        if (!ARG_IS_BUFFER(k) || b->bytes == 0)
            continue;
        st = cudyn_mem_alloc(&b->dev, b->bytes);
        if (st == CUDYN_OK && (k == CUDYN_ARG_IN || k == CUDYN_ARG_INOUT)) {
            st = cudyn_memcpy_htod_async(b->dev, b->host, b->bytes, stream);
            queued |= st == CUDYN_OK;
        }
    }
    if (st == CUDYN_OK) {
        st = cudyn_launch(a->f, grid, block, shared, stream, a->ptrs);
        queued |= st == CUDYN_OK;
    }
    for (int i = 0; i < a->fmt->n && st == CUDYN_OK; i++) {
        struct buffer *b = &a->buffers[i];
        cudyn_arg_kind k = a->fmt->args[i].kind;
        if ((k == CUDYN_ARG_OUT || k == CUDYN_ARG_INOUT) && b->bytes)
            st = cudyn_memcpy_dtoh_async(b->host, b->dev, b->bytes, stream);
    }
    if (st == CUDYN_OK) {
        a->pending = true;
        a->pending_stream = stream;
        return CUDYN_OK;
    }
    cudyn__error_append(" (%s, with In/Out buffers)", api);
    if (queued)
        drain(stream);
    return release_buffers(a, st);
}

/* Waits for the pending launch's stream (the host buffers are ready on
 * return), then frees the buffers; the first failure wins. */
static int finish_buffers(const char *api, struct cudyn_args *a)
{
    a->pending = false;
    int st = cudyn_stream_synchronize(a->pending_stream);
    if (st != CUDYN_OK)
        cudyn__error_append(" (%s, with In/Out buffers)", api);
    return release_buffers(a, st);
}

/* Checks the arguments against the kernel (when the pack wants it) and,
 * when nothing could be checked, points the slots past the format at zeros:
 * never let the driver read uninitialised argument slots. */
static int launch_check(const char *api, struct cudyn_args *a)
{
    a->known = false;
    if (a->check) {
        int st = cudyn__kernel_check(api, a->f, a->fmt, a->fmt_text, &a->known);
        if (st != CUDYN_OK)
            return st;
    }
    if (!a->known)
        zero_tail(a);
    a->checked = true;
    return CUDYN_OK;
}

/* Launches a pack whose values are set; with buffers, waits for their
 * copies back and frees them unless leave_pending (then cudyn_args_finish
 * does). */
static int launch_pack(const char *api, struct cudyn_args *a, cudyn_dim3 grid, cudyn_dim3 block,
                       unsigned int shared, cudyn_stream stream, bool leave_pending)
{
    if (!a->checked) {
        int st = launch_check(api, a);
        if (st != CUDYN_OK)
            return st;
    }
    if (!a->fmt->has_buffers)
        return cudyn_launch(a->f, grid, block, shared, stream, a->ptrs);
    int st = start_with_buffers(api, a, grid, block, shared, stream);
    return st == CUDYN_OK && !leave_pending ? finish_buffers(api, a) : st;
}

/*
 * What this thread's last cudyn_launchf parsed and checked.  A hot loop
 * launches one kernel with one format literal again and again: the memo
 * spares it the parse (the same pointer and the same text) and the check
 * (the same kernel, and nothing registered has changed since: the epoch).
 * Formats with structs are not kept: their sizes come with each call.
 */
struct launchf_memo {
    const char *fmt;
    char text[2 * CUDYN_MAX_ARGS + 1]; /* spaces are allowed in a format */
    struct cudyn__format parsed;
    cudyn_function checked_f; /* NULL: not checked */
    unsigned int epoch;
    bool known;
};
static _Thread_local struct launchf_memo memo;

/* The parsed format: the memo's when it is this text, else freshly parsed
 * (and memoised when it may be). */
static int launchf_format(const char *api, struct cudyn_args *a, cudyn_function f, const char *fmt)
{
    if (fmt && fmt == memo.fmt && strcmp(fmt, memo.text) == 0) {
        a->f = f;
        a->fmt = &memo.parsed;
        a->fmt_text = fmt;
        a->set = 0;
        a->all = memo.parsed.n == 64 ? ~(uint64_t)0 : bit(memo.parsed.n) - 1;
        return CUDYN_OK;
    }
    int st = parse(api, a, f, fmt);
    if (st == CUDYN_OK && !a->own.has_structs && strlen(fmt) < sizeof memo.text) {
        memo.fmt = fmt;
        strcpy(memo.text, fmt);
        memo.parsed = a->own;
        memo.checked_f = NULL;
        a->fmt = &memo.parsed;
    }
    return st;
}

CUDYN_API int cudyn_launchf(cudyn_function f, cudyn_dim3 grid, cudyn_dim3 block, unsigned int shared_bytes,
                            cudyn_stream stream, const char *fmt, ...)
{
    static const char api[] = "cudyn_launchf";
    struct cudyn_args a; /* on the stack: no allocation for a plain launch */
    a.check = true;
    a.owns_structs = false;
    int st = launchf_format(api, &a, f, fmt);
    if (st != CUDYN_OK)
        return st;
    if (CUDYN_UNLIKELY(a.fmt->has_buffers)) {
        memset(a.buffers, 0, sizeof a.buffers[0] * (size_t)a.fmt->n);
        a.pending = false;
    }
    va_list ap;
    va_start(ap, fmt);
    st = read_values(api, &a, &ap);
    va_end(ap);
    if (st != CUDYN_OK)
        return st;
    st = cudyn__need_context(api); /* the check asks the driver */
    if (st != CUDYN_OK)
        return st;
    bool memoised = a.fmt == &memo.parsed;
    if (memoised && memo.checked_f == f && memo.epoch == cudyn__kernel_epoch()) {
        a.checked = true; /* checked before, and nothing changed since */
        if (!memo.known)
            zero_tail(&a);
    } else if (memoised) {
        unsigned int epoch = cudyn__kernel_epoch(); /* before the check: a change during it invalidates */
        st = launch_check(api, &a);
        if (st != CUDYN_OK)
            return st;
        memo.checked_f = f;
        memo.epoch = epoch;
        memo.known = a.known;
    }
    return launch_pack(api, &a, grid, block, shared_bytes, stream, false);
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
    if (index < 0 || index >= args->fmt->n)
        return cudyn__fail_arg(api, "index", "is not a parameter of the pack's format");
    if (!value)
        return cudyn__fail_arg(api, "value", "must not be NULL");
    const struct cudyn__arg_spec *spec = &args->fmt->args[index];
    if (ARG_IS_BUFFER(spec->kind))
        return cudyn__fail_arg(api, "index", "names an In/Out buffer; set buffers with cudyn_args_set");
    if (ARG_IS_SCALAR(spec->kind) && size != spec->size)
        return cudyn__fail(CUDYN_ERROR_INVALID_ARGUMENT, CUDYN_ORIGIN_LIBRARY, 0, NULL, api, NULL,
                           "%s: parameter %d ('%c', %s) is %zu bytes, not %zu", api, index + 1, spec->code,
                           spec->what, spec->size, size);
    args->checked = false;
    if (spec->kind == CUDYN_ARG_STRUCT) {
        int st = set_struct(api, args, index, value, size);
        if (st != CUDYN_OK)
            return st;
    } else {
        memcpy(args->scalars[index], value, size);
        args->ptrs[index] = args->scalars[index];
    }
    args->set |= bit(index);
    return CUDYN_OK;
}

CUDYN_API int cudyn_args_set_buffer(cudyn_args *args, int index, void *host, size_t bytes)
{
    static const char api[] = "cudyn_args_set_buffer";
    if (!args)
        return cudyn__fail_arg(api, "args", "must not be NULL");
    if (index < 0 || index >= args->fmt->n)
        return cudyn__fail_arg(api, "index", "is not a parameter of the pack's format");
    if (!ARG_IS_BUFFER(args->fmt->args[index].kind))
        return cudyn__fail_arg(api, "index", "names no In/Out buffer; set it with cudyn_args_set_value");
    int st = set_buffer(api, args, index, host, bytes);
    if (st != CUDYN_OK)
        return st;
    args->set |= bit(index); /* the kernel check sees a pointer either way: it stands */
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

/* The first argument never set, for the message. */
static int first_unset(const cudyn_args *args)
{
    for (int i = 0; i < args->fmt->n; i++)
        if (!(args->set & bit(i)))
            return i;
    return 0;
}

/* cudyn_args_launch and _launch_async: the pack is complete and not
 * pending, then launched. */
static int launch_set_pack(const char *api, cudyn_args *args, cudyn_dim3 grid, cudyn_dim3 block,
                           unsigned int shared_bytes, cudyn_stream stream, bool leave_pending)
{
    if (CUDYN_UNLIKELY(!args))
        return cudyn__fail_arg(api, "args", "must not be NULL");
    if (CUDYN_UNLIKELY(args->set != args->all)) {
        int i = first_unset(args);
        return cudyn__fail(CUDYN_ERROR_INVALID_ARGUMENT, CUDYN_ORIGIN_LIBRARY, 0, NULL, api, NULL,
                           "%s: argument %d ('%c') was never set; set every value with cudyn_args_set or "
                           "cudyn_args_set_value before launching",
                           api, i + 1, args->fmt->args[i].code);
    }
    if (CUDYN_UNLIKELY(args->pending))
        return cudyn__fail_arg(api, "args",
                               "has a launch with In/Out buffers not finished; call cudyn_args_finish first");
    if (CUDYN_UNLIKELY(!args->checked)) {
        int st = cudyn__need_context(api);
        if (st != CUDYN_OK)
            return st;
    }
    return launch_pack(api, args, grid, block, shared_bytes, stream, leave_pending);
}

CUDYN_API int cudyn_args_launch(cudyn_args *args, cudyn_dim3 grid, cudyn_dim3 block, unsigned int shared_bytes,
                                cudyn_stream stream)
{
    return launch_set_pack("cudyn_args_launch", args, grid, block, shared_bytes, stream, false);
}

CUDYN_API int cudyn_args_launch_async(cudyn_args *args, cudyn_dim3 grid, cudyn_dim3 block,
                                      unsigned int shared_bytes, cudyn_stream stream)
{
    return launch_set_pack("cudyn_args_launch_async", args, grid, block, shared_bytes, stream, true);
}

CUDYN_API int cudyn_args_finish(cudyn_args *args)
{
    static const char api[] = "cudyn_args_finish";
    if (!args)
        return cudyn__fail_arg(api, "args", "must not be NULL");
    return args->pending ? finish_buffers(api, args) : CUDYN_OK;
}

CUDYN_API void cudyn_args_free(cudyn_args *args)
{
    if (!args)
        return;
    if (args->pending) { /* its buffers are freed; the caller's last error stays */
        cudyn_error kept;
        cudyn__error_save(&kept);
        finish_buffers("cudyn_args_free", args);
        cudyn__error_restore(&kept);
    }
    for (int i = 0; i < args->fmt->n; i++)
        free(args->structs[i]);
    free(args->fmt_copy);
    free(args);
}
