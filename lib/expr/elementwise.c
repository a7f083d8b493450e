/*
 * elementwise.c - cudyn_elementwise_*: a kernel made from a parameter list
 * and a loop body, PyCUDA's ElementwiseKernel.  The parts: params_decl.c
 * reads the list, expr_scan.c the body, expr_source.c writes the kernels,
 * expr_kernels.c compiles and loads them per context, expr_shape.c picks
 * the variant and the launch shape.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "module/module.h"
#include "expr/expr.h"

struct cudyn_elementwise {
    char name[CUDYN_EXPR_MAX_NAME + 1];
    char *param_text; /* as the user wrote it, for messages */
    struct cudyn__param_list params;
    struct cudyn__scan scan;
    int lanes;
    struct cudyn__expr_kernels kernels;
};

/* Checks the text arguments; fills the parsed parts of *k. */
static int read_inputs(const char *api, struct cudyn_elementwise *k, const char *params, const char *body,
                       const char *name, const char *preamble)
{
    if (!params)
        return cudyn__fail_arg(api, "params", "must not be NULL (\"\" for no parameters)");
    if (!body)
        return cudyn__fail_arg(api, "body", "must not be NULL");
    char why[400];
    if (cudyn__kernel_name_check(name, why, sizeof why) != 0)
        return cudyn__fail(CUDYN_ERROR_INVALID_ARGUMENT, CUDYN_ORIGIN_LIBRARY, 0, NULL, api, NULL,
                           "%s: argument 'name' (\"%.60s\") %s", api, name, why);
    if (cudyn__params_parse(params, &k->params, why, sizeof why) != 0)
        return cudyn__fail(CUDYN_ERROR_INVALID_ARGUMENT, CUDYN_ORIGIN_LIBRARY, 0, NULL, api, NULL, "%s: \"%s\": %s",
                           api, name, why);
    if (cudyn__text_confine(body, "body", 0, why, sizeof why) != 0 ||
        (preamble && cudyn__text_confine(preamble, "preamble", CUDYN_CONFINE_CODE, why, sizeof why) != 0))
        return cudyn__fail(CUDYN_ERROR_INVALID_ARGUMENT, CUDYN_ORIGIN_LIBRARY, 0, NULL, api, NULL, "%s: \"%s\": %s",
                           api, name, why);
    snprintf(k->name, sizeof k->name, "%s", name);
    cudyn__scan_text(body, preamble, &k->params, &k->scan);
    k->lanes = cudyn__lanes(&k->params, &k->scan);
    if (!(k->param_text = strdup(params)))
        return cudyn__fail_oom(api);
    return CUDYN_OK;
}

static void free_parts(struct cudyn_elementwise *k)
{
    free(k->param_text);
    free(k);
}

CUDYN_API int cudyn_elementwise_create(cudyn_elementwise **out, const char *params, const char *body,
                                       const char *name, const char *preamble)
{
    static const char api[] = "cudyn_elementwise_create";
    if (!out)
        return cudyn__fail_arg(api, "out", "must not be NULL");
    *out = NULL;
    struct cudyn_elementwise *k = calloc(1, sizeof *k);
    if (!k)
        return cudyn__fail_oom(api);
    int st = read_inputs(api, k, params, body, name ? name : "kernel", preamble);
    if (st != CUDYN_OK) {
        free_parts(k);
        return st;
    }
    struct cudyn__ew_text text = {k->name, body, preamble};
    char *source = cudyn__ew_source(&text, &k->params, &k->scan, k->lanes);
    if (!source || cudyn__expr_kernels_init(&k->kernels, source) != 0) {
        free_parts(k);
        return cudyn__fail_oom(api);
    }
    snprintf(k->kernels.names[KERNEL_PLAIN], sizeof k->kernels.names[0], "cudyn_elementwise_%s", k->name);
    if (k->scan.lanes)
        snprintf(k->kernels.names[KERNEL_VECTOR], sizeof k->kernels.names[0], "cudyn_elementwise_%s_vec", k->name);
    snprintf(k->kernels.what, sizeof k->kernels.what, "elementwise \"%s\"", k->name);
    struct cudyn__expr_context *c;
    st = cudyn__expr_context(api, &k->kernels, &c); /* compile now: errors in the text show here */
    if (st != CUDYN_OK) {
        cudyn__expr_kernels_destroy(&k->kernels);
        free_parts(k);
        return st;
    }
    *out = k;
    return CUDYN_OK;
}

/* Launches over n elements with the user's values in v. */
static int launch(const char *api, cudyn_elementwise *k, size_t n, cudyn_stream stream, struct cudyn__expr_values *v)
{
    if (n == 0)
        return CUDYN_OK;
    struct cudyn__expr_context *c;
    int st = cudyn__expr_context(api, &k->kernels, &c);
    if (st != CUDYN_OK)
        return st;
    enum cudyn__variant variant = cudyn__expr_variant(k->scan.lanes, k->lanes, &k->params, &k->scan, v, n);
    int role = variant == VARIANT_VECTOR ? KERNEL_VECTOR : KERNEL_PLAIN;
    size_t items = variant == VARIANT_VECTOR ? n / (size_t)k->lanes : n;
    cudyn_dim3 grid = {1, 1, 1}, block = {1, 1, 1};
    cudyn__shape(&c->limits[role], items, &grid.x, &block.x);
    v->ptrs[k->params.count] = &n;
    return cudyn_launch(c->f[role], grid, block, 0, stream, v->ptrs);
}

CUDYN_API int cudyn_elementwise_launch(cudyn_elementwise *k, size_t n, cudyn_stream stream, ...)
{
    static const char api[] = "cudyn_elementwise_launch";
    if (CUDYN_UNLIKELY(!k))
        return cudyn__fail_arg(api, "k", "must not be NULL");
    struct cudyn__expr_values v;
    va_list ap;
    va_start(ap, stream);
    cudyn__expr_read_va(&k->params, &ap, &v);
    va_end(ap);
    return launch(api, k, n, stream, &v);
}

CUDYN_API int cudyn_elementwise_launch_args(cudyn_elementwise *k, size_t n, cudyn_stream stream, void **args,
                                            int num_args)
{
    static const char api[] = "cudyn_elementwise_launch_args";
    if (CUDYN_UNLIKELY(!k))
        return cudyn__fail_arg(api, "k", "must not be NULL");
    struct cudyn__expr_values v;
    int st = cudyn__expr_read_array(api, k->kernels.what, k->param_text, &k->params, args, num_args, &v);
    if (st != CUDYN_OK)
        return st;
    return launch(api, k, n, stream, &v);
}

CUDYN_API const char *cudyn_elementwise_format(const cudyn_elementwise *k)
{
    return k ? k->params.format : "";
}

CUDYN_API const char *cudyn_elementwise_source(const cudyn_elementwise *k)
{
    return k ? k->kernels.source : "";
}

CUDYN_API void cudyn_elementwise_free(cudyn_elementwise *k)
{
    if (!k)
        return;
    cudyn__expr_kernels_destroy(&k->kernels);
    free_parts(k);
}
