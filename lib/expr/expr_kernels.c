/*
 * expr_kernels.c - a generated source's kernels, one module per context.
 *
 * Modules come from cudyn_module_load_source, so a source is compiled once
 * (the persistent cache), and one module serves every object made from the
 * same text in a context.  Each object keeps, per context it was used in,
 * the kernels and what their launch shape needs (expr_shape.c): looked up
 * once, then read without a lock on every launch.  Entries are only ever
 * added (a list with an atomic head) and freed with the object.  A reset
 * or release of any device moves the context generation; the next launch
 * then checks its entry's module: one that survived (another device was
 * reset) keeps serving under the new generation, one a reset destroyed is
 * replaced by a new entry.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "module/module.h"
#include "expr/expr.h"

/* Why an elementwise kernel's block has 256 threads at most
 * (CUDYN_EXPR_MAX_BLOCK, the default): occupancy would often suggest 1024,
 * and for a grid-stride loop that fills the device either way smaller
 * blocks spread the last, partial wave over more multiprocessors. */
int cudyn__expr_kernels_init(struct cudyn__expr_kernels *k, char *source)
{
    k->source = source;
    k->max_block = CUDYN_EXPR_MAX_BLOCK;
    atomic_init(&k->contexts, NULL);
    if (pthread_mutex_init(&k->lock, NULL) != 0) {
        free(source);
        k->source = NULL;
        return -1;
    }
    return 0;
}

/* The shape limits of f, one of k's kernels, on `device`. */
static int read_limits(const char *api, const struct cudyn__expr_kernels *k, cudyn_function f, int device,
                       struct cudyn__shape_limits *lim)
{
    int min_grid = 0, suggested = 0;
    int st = cudyn_occupancy_block_size(&min_grid, &suggested, f, 0, k->max_block);
    lim->block = cudyn__shape_block(suggested, k->max_block, k->pow2);
    if (st == CUDYN_OK && lim->block == 0)
        st = cudyn__fail(CUDYN_ERROR_LAUNCH_OUT_OF_RESOURCES, CUDYN_ORIGIN_LIBRARY, 0, NULL, api, NULL,
                         "%s: occupancy allows no block of a generated kernel on device %d", api, device);
    if (st == CUDYN_OK)
        st = cudyn_occupancy_max_blocks(&lim->blocks_per_sm, f, lim->block, 0);
    if (st == CUDYN_OK)
        st = cudyn_device_attribute(device, CUDYN_ATTR_MULTIPROCESSOR_COUNT, &lim->sms);
    if (st == CUDYN_OK)
        st = cudyn_device_attribute(device, CUDYN_ATTR_MAX_GRID_DIM_X, &lim->max_grid);
    return st;
}

/* The first line of NVRTC's log that names the user's text ("elementwise
 * body(2): error: ..."), else its first error line; "" if none. */
static void first_user_line(const char *log, char *out, size_t cap)
{
    const char *found = NULL;
    for (const char *line = log; *line && !found; line += strcspn(line, "\n"), line += *line == '\n')
        for (int i = 0; cudyn__user_text_names[i] && !found; i++) {
            size_t len = strlen(cudyn__user_text_names[i]);
            if (strncmp(line, cudyn__user_text_names[i], len) == 0 && line[len] == '(')
                found = line;
        }
    if (!found && (found = strstr(log, "error")))
        while (found > log && found[-1] != '\n')
            found--;
    size_t n = found ? strcspn(found, "\n") : 0;
    snprintf(out, cap, "%.*s", (int)(n < cap ? n : cap - 1), found ? found : "");
}

/* A compile error: the status stays NVRTC's; the message becomes the line
 * of the compile's log that names the user's text (without one the first
 * error stays as it was). */
static void explain_compile(const char *api, const struct cudyn__expr_kernels *k,
                            const struct cudyn__compile_failure *failure)
{
    cudyn_error first;
    cudyn__error_save(&first);
    const char *log = failure->log ? failure->log : "";
    char line[700];
    first_user_line(log, line, sizeof line);
    if (line[0])
        cudyn__fail(first.status, first.origin, first.native_code, first.native_name, first.function,
                    "the line number counts from the first line of the text it names; the _source function "
                    "shows the generated lines",
                    "%s: %s does not compile for %s: %s%s", api, k->what,
                    failure->target[0] ? failure->target : "this GPU", line,
                    strstr(log, "cuda_fp16.h") ? "; __half needs cuda_fp16.h, which NVRTC finds when the CUDA "
                                                 "toolkit's include directory sits next to libnvrtc (LIBDIR/../include)"
                                               : "");
}

/* Frees what make_context made; the driver's refusals to free are its own
 * (a module or buffer it keeps), nothing cudyn could undo. */
static void free_context(struct cudyn__expr_kernels *k, struct cudyn__expr_context *c)
{
    if (c->extra && k->teardown)
        k->teardown(c);
    if (c->mod)
        cudyn_module_unload(c->mod);
    free(c);
}

/* Loads the module in the current context and finds its kernels. */
static int make_context(const char *api, struct cudyn__expr_kernels *k, void *ctx, unsigned int generation,
                        struct cudyn__expr_context **out)
{
    struct cudyn__expr_context *c = calloc(1, sizeof *c);
    if (!c)
        return cudyn__fail_oom(api);
    c->ctx = ctx;
    atomic_init(&c->generation, generation);
    int device = 0;
    struct cudyn__compile_failure failure;
    int st = cudyn__module_load_generated(&c->mod, k->source, &failure);
    if (st == CUDYN_ERROR_COMPILE)
        explain_compile(api, k, &failure);
    free(failure.log);
    if (st == CUDYN_OK)
        st = cudyn_device_current(&device);
    for (int role = 0; role < KERNEL_ROLES && st == CUDYN_OK; role++)
        if (k->names[role][0]) {
            st = cudyn_module_function(&c->f[role], c->mod, k->names[role]);
            if (st == CUDYN_OK)
                st = read_limits(api, k, c->f[role], device, &c->limits[role]);
        }
    if (st == CUDYN_OK && k->setup)
        st = k->setup(api, k->owner, c);
    if (st != CUDYN_OK) {
        cudyn_error first;
        cudyn__error_save(&first);
        free_context(k, c);
        cudyn__error_restore(&first);
        return st;
    }
    *out = c;
    return CUDYN_OK;
}

static struct cudyn__expr_context *find(struct cudyn__expr_kernels *k, void *ctx, unsigned int generation)
{
    for (struct cudyn__expr_context *c = atomic_load_explicit(&k->contexts, memory_order_acquire); c; c = c->next)
        if (c->ctx == ctx && atomic_load_explicit(&c->generation, memory_order_acquire) == generation)
            return c;
    return NULL;
}

/* The entry of ctx whose module a reset did not destroy, or NULL (k->lock
 * held: only then do generations change). */
static struct cudyn__expr_context *surviving(struct cudyn__expr_kernels *k, void *ctx)
{
    for (struct cudyn__expr_context *c = atomic_load_explicit(&k->contexts, memory_order_acquire); c; c = c->next)
        if (c->ctx == ctx && cudyn_module_native(c->mod) != NULL)
            return c;
    return NULL;
}

int cudyn__expr_context(const char *api, struct cudyn__expr_kernels *k, struct cudyn__expr_context **out)
{
    void *ctx = NULL;
    int st = cudyn_context_native(&ctx);
    if (st != CUDYN_OK)
        return st;
    unsigned int generation = atomic_load_explicit(&cudyn__context_generation, memory_order_relaxed);
    if (CUDYN_LIKELY((*out = find(k, ctx, generation)) != NULL))
        return CUDYN_OK;
    pthread_mutex_lock(&k->lock);
    *out = find(k, ctx, generation); /* made or renewed by another thread meanwhile */
    if (!*out && (*out = surviving(k, ctx)) != NULL)
        atomic_store_explicit(&(*out)->generation, generation, memory_order_release);
    if (!*out) {
        st = make_context(api, k, ctx, generation, out);
        if (st == CUDYN_OK) {
            (*out)->next = atomic_load_explicit(&k->contexts, memory_order_relaxed);
            atomic_store_explicit(&k->contexts, *out, memory_order_release);
        }
    }
    pthread_mutex_unlock(&k->lock);
    return st;
}

void cudyn__expr_kernels_destroy(struct cudyn__expr_kernels *k)
{
    struct cudyn__expr_context *c = atomic_load_explicit(&k->contexts, memory_order_acquire);
    while (c) {
        struct cudyn__expr_context *next = c->next;
        free_context(k, c);
        c = next;
    }
    atomic_store(&k->contexts, NULL);
    pthread_mutex_destroy(&k->lock);
    free(k->source);
    k->source = NULL;
}
