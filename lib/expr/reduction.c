/*
 * reduction.c - cudyn_reduction_*: a reduction made from a result type, a
 * neutral value, a combining expression of a and b, and a map expression
 * of element i, PyCUDA's ReductionKernel.
 *
 * One launch: each block combines its threads' values in a fixed tree and
 * writes one partial; the block that finishes last (an atomic count says
 * which) combines the partials in index order and a fixed tree.  No atomic
 * touches a value, so for a device, n and the pointers' alignment (which
 * picks the variant and so the grid) the result has the same bits every
 * run, whichever block comes last.  (A second launch for the partials, as
 * before, cost a launch and its gap: an eighth of a sum over 2^24 floats.)
 *
 * The partials and the count live in a buffer per object and context; the
 * last block sets the count back to 0.  Runs queued on
 * one stream are ordered by it; a run on another stream than the last one
 * first waits for the event the last run recorded, so two runs never use
 * the buffer at the same time.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "module/module.h"
#include "expr/expr.h"

struct cudyn_reduction {
    char name[CUDYN_EXPR_MAX_NAME + 1];
    char *param_text; /* as the user wrote it, for messages */
    struct cudyn__param result;
    struct cudyn__param_list params;
    struct cudyn__scan scan;
    int lanes;
    struct cudyn__expr_kernels kernels;
};

/* Per context: the partials (one per block of the largest grid, then one
 * slot for a result copied to the host, then the count of blocks done),
 * and what orders the runs. */
struct run_state {
    cudyn_devptr partials;
    cudyn_devptr done; /* unsigned int: blocks finished in the running launch; 0 between runs */
    unsigned int cap;  /* partials before the result slot */
    size_t result_size;
    cudyn_event finished; /* recorded after each run */
    cudyn_stream last;
    bool ran;
    pthread_mutex_t lock;
};

static void teardown(struct cudyn__expr_context *c)
{
    struct run_state *s = c->extra;
    if (s->finished)
        cudyn_event_destroy(s->finished);
    if (s->partials)
        cudyn_mem_free(s->partials);
    pthread_mutex_destroy(&s->lock);
    free(s);
    c->extra = NULL;
}

static int setup(const char *api, void *owner, struct cudyn__expr_context *c)
{
    const struct cudyn_reduction *r = owner;
    struct run_state *s = calloc(1, sizeof *s);
    if (!s || pthread_mutex_init(&s->lock, NULL) != 0) {
        free(s);
        return cudyn__fail_oom(api);
    }
    c->extra = s; /* from here on teardown frees it */
    for (int role = KERNEL_PLAIN; role <= KERNEL_VECTOR; role++)
        if (c->f[role] && cudyn__shape_grid_cap(&c->limits[role]) > s->cap)
            s->cap = cudyn__shape_grid_cap(&c->limits[role]);
    s->result_size = r->result.elem_size;
    size_t count_at = (((size_t)s->cap + 1) * s->result_size + 15) & ~(size_t)15;
    int st = cudyn_mem_alloc(&s->partials, count_at + sizeof(unsigned int));
    if (st == CUDYN_OK) {
        s->done = s->partials + count_at;
        st = cudyn_memset_d32(s->done, 0, 1);
    }
    if (st == CUDYN_OK)
        st = cudyn_event_create(&s->finished, CUDYN_EVENT_DISABLE_TIMING);
    return st;
}

/* Checks the text arguments; fills the parsed parts of *r. */
static int read_inputs(const char *api, struct cudyn_reduction *r, const char *type, const char *neutral,
                       const char *reduce, const char *map, const char *params, const char *name,
                       const char *preamble)
{
    static const char *const names[] = {"result_type", "neutral", "reduce", "map", "params"};
    const char *const given[] = {type, neutral, reduce, map, params};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (!given[i])
            return cudyn__fail_arg(api, names[i], "must not be NULL");
    char why[400];
    if (cudyn__kernel_name_check(name, why, sizeof why) != 0)
        return cudyn__fail(CUDYN_ERROR_INVALID_ARGUMENT, CUDYN_ORIGIN_LIBRARY, 0, NULL, api, NULL,
                           "%s: argument 'name' (\"%.60s\") %s", api, name, why);
    if (cudyn__type_parse(type, &r->result, why, sizeof why) != 0)
        return cudyn__fail(CUDYN_ERROR_INVALID_ARGUMENT, CUDYN_ORIGIN_LIBRARY, 0, NULL, api, NULL,
                           "%s: \"%s\": the result type \"%.60s\" %s", api, name, type, why);
    if (cudyn__params_parse(params, &r->params, why, sizeof why) != 0)
        return cudyn__fail(CUDYN_ERROR_INVALID_ARGUMENT, CUDYN_ORIGIN_LIBRARY, 0, NULL, api, NULL, "%s: \"%s\": %s",
                           api, name, why);
    if (r->params.count > CUDYN_REDUCE_MAX_PARAMS)
        return cudyn__fail(CUDYN_ERROR_INVALID_ARGUMENT, CUDYN_ORIGIN_LIBRARY, 0, NULL, api, NULL,
                           "%s: \"%s\": %d parameters; a reduction takes at most %d (its kernel adds %d of its own)",
                           api, name, r->params.count, CUDYN_REDUCE_MAX_PARAMS,
                           CUDYN_MAX_ARGS - CUDYN_REDUCE_MAX_PARAMS);
    static const char *const text_names[] = {"neutral", "reduce expression", "map expression", "preamble"};
    const char *const texts[] = {neutral, reduce, map, preamble};
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++)
        if (texts[i] && cudyn__text_confine(texts[i], text_names[i], i == 3 ? CUDYN_CONFINE_CODE : 0, why,
                                            sizeof why) != 0)
            return cudyn__fail(CUDYN_ERROR_INVALID_ARGUMENT, CUDYN_ORIGIN_LIBRARY, 0, NULL, api, NULL,
                               "%s: \"%s\": %s", api, name, why);
    snprintf(r->name, sizeof r->name, "%s", name);
    if (!(r->param_text = strdup(params)))
        return cudyn__fail_oom(api);
    return CUDYN_OK;
}

static void free_parts(struct cudyn_reduction *r)
{
    free(r->param_text);
    free(r);
}

static void name_kernels(struct cudyn_reduction *r)
{
    struct cudyn__expr_kernels *k = &r->kernels;
    snprintf(k->names[KERNEL_PLAIN], sizeof k->names[0], "cudyn_reduce_%s", r->name);
    if (r->scan.lanes)
        snprintf(k->names[KERNEL_VECTOR], sizeof k->names[0], "cudyn_reduce_%s_vec", r->name);
    snprintf(k->what, sizeof k->what, "reduction \"%s\"", r->name);
    k->pow2 = true; /* the tree in cudyn_block_reduce halves the block */
    /* Blocks of up to 512 threads, not elementwise's 256: at the same
     * occupancy half as many blocks write partials, count themselves done
     * and leave the last block fewer partials to combine.  A sum over 2^24
     * floats on an H200: 21.06 us with 256 threads x 8 blocks per
     * multiprocessor, 20.49 with 512 x 4 (PERFORMANCE.md, 2026-11-29). */
    k->max_block = CUDYN_REDUCE_MAX_BLOCK;
    k->setup = setup;
    k->teardown = teardown;
    k->owner = r;
}

CUDYN_API int cudyn_reduction_create(cudyn_reduction **out, const char *result_type, const char *neutral,
                                     const char *reduce, const char *map, const char *params, const char *name,
                                     const char *preamble)
{
    static const char api[] = "cudyn_reduction_create";
    if (!out)
        return cudyn__fail_arg(api, "out", "must not be NULL");
    *out = NULL;
    struct cudyn_reduction *r = calloc(1, sizeof *r);
    if (!r)
        return cudyn__fail_oom(api);
    int st = read_inputs(api, r, result_type, neutral, reduce, map, params, name ? name : "kernel", preamble);
    if (st != CUDYN_OK) {
        free_parts(r);
        return st;
    }
    cudyn__scan_text(map, preamble, &r->params, &r->scan);
    r->lanes = cudyn__lanes(&r->params, &r->scan);
    struct cudyn__red_text text = {r->name, &r->result, neutral, reduce, map, preamble};
    char *source = cudyn__red_source(&text, &r->params, &r->scan, r->lanes);
    if (!source || cudyn__expr_kernels_init(&r->kernels, source) != 0) {
        free_parts(r);
        return cudyn__fail_oom(api);
    }
    name_kernels(r);
    struct cudyn__expr_context *c;
    st = cudyn__expr_context(api, &r->kernels, &c); /* compile now: errors in the text show here */
    if (st != CUDYN_OK) {
        cudyn__expr_kernels_destroy(&r->kernels);
        free_parts(r);
        return st;
    }
    *out = r;
    return CUDYN_OK;
}

/* Queues the launch (and the copy to the host) on stream, after the last
 * run if that was on another stream; s->lock held. */
static int enqueue(struct cudyn__expr_context *c, struct run_state *s, int role, cudyn_dim3 grid, cudyn_dim3 block,
                   void **args, cudyn_devptr out, void *host, cudyn_stream stream)
{
    int st = CUDYN_OK;
    if (s->ran && s->last != stream)
        st = cudyn_stream_wait_event(stream, s->finished);
    if (st == CUDYN_OK)
        st = cudyn_launch(c->f[role], grid, block, 0, stream, args);
    if (st == CUDYN_OK && host)
        st = cudyn_memcpy_dtoh_async(host, out, s->result_size, stream);
    if (st == CUDYN_OK)
        st = cudyn_event_record(s->finished, stream);
    if (st == CUDYN_OK) {
        s->last = stream;
        s->ran = true;
    }
    return st;
}

static int run(const char *api, cudyn_reduction *r, void *host, cudyn_devptr device, size_t n, cudyn_stream stream,
               struct cudyn__expr_values *v)
{
    if (!host && !device)
        return cudyn__fail_arg(api, "host_result and device_result", "are both empty; give one or both");
    struct cudyn__expr_context *c;
    int st = cudyn__expr_context(api, &r->kernels, &c);
    if (st != CUDYN_OK)
        return st;
    struct run_state *s = c->extra;
    enum cudyn__variant variant = cudyn__expr_variant(r->scan.lanes, r->lanes, &r->params, &r->scan, v, n);
    int role = variant == VARIANT_VECTOR ? KERNEL_VECTOR : KERNEL_PLAIN;
    cudyn_dim3 grid = {1, 1, 1}, block = {1, 1, 1};
    cudyn__shape(&c->limits[role], variant == VARIANT_VECTOR ? n / (size_t)r->lanes : n, &grid.x, &block.x);
    cudyn_devptr out = device ? device : s->partials + (cudyn_devptr)s->cap * s->result_size;
    v->ptrs[r->params.count] = &n;
    v->ptrs[r->params.count + 1] = &s->partials;
    v->ptrs[r->params.count + 2] = &s->done;
    v->ptrs[r->params.count + 3] = &out;
    pthread_mutex_lock(&s->lock);
    st = enqueue(c, s, role, grid, block, v->ptrs, out, host, stream);
    pthread_mutex_unlock(&s->lock);
    if (st == CUDYN_OK && host)
        st = cudyn_stream_synchronize(stream); /* *host_result is ready on return */
    return st;
}

CUDYN_API int cudyn_reduction_run(cudyn_reduction *r, void *host_result, cudyn_devptr device_result, size_t n,
                                  cudyn_stream stream, ...)
{
    static const char api[] = "cudyn_reduction_run";
    if (!r)
        return cudyn__fail_arg(api, "r", "must not be NULL");
    struct cudyn__expr_values v;
    va_list ap;
    va_start(ap, stream);
    cudyn__expr_read_va(&r->params, &ap, &v);
    va_end(ap);
    return run(api, r, host_result, device_result, n, stream, &v);
}

CUDYN_API int cudyn_reduction_run_args(cudyn_reduction *r, void *host_result, cudyn_devptr device_result, size_t n,
                                       cudyn_stream stream, void **args, int num_args)
{
    static const char api[] = "cudyn_reduction_run_args";
    if (!r)
        return cudyn__fail_arg(api, "r", "must not be NULL");
    struct cudyn__expr_values v;
    int st = cudyn__expr_read_array(api, r->kernels.what, r->param_text, &r->params, args, num_args, &v);
    if (st != CUDYN_OK)
        return st;
    return run(api, r, host_result, device_result, n, stream, &v);
}

CUDYN_API const char *cudyn_reduction_format(const cudyn_reduction *r)
{
    return r ? r->params.format : "";
}

CUDYN_API const char *cudyn_reduction_source(const cudyn_reduction *r)
{
    return r ? r->kernels.source : "";
}

CUDYN_API void cudyn_reduction_free(cudyn_reduction *r)
{
    if (!r)
        return;
    cudyn__expr_kernels_destroy(&r->kernels);
    free_parts(r);
}
