/*
 * expr.h - what the files behind cudyn_elementwise_* and cudyn_reduction_*
 * share: kernels generated from a C parameter list and the user's
 * expressions.
 *
 *   params_decl.c  the parameter-list parser (pure)
 *   expr_scan.c    how the user's text reaches the pointer parameters (pure)
 *   expr_shape.c   the launch shape and the choice of variant (pure)
 *   expr_source.c  the generated CUDA C++ source
 *   expr_args.c    the values of a launch, from a va_list or a void *[]
 *   expr_kernels.c the compiled kernels, one module per context
 *   elementwise.c, reduction.c  the public functions
 *
 * The pure files use only the C library, so tests link them directly.
 */
#ifndef CUDYN_EXPR_H
#define CUDYN_EXPR_H

#include <stdbool.h>
#include <stddef.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "cudyn.h" /* CUDYN_MAX_ARGS */

/* A kernel takes at most CUDYN_MAX_ARGS (64) parameters: the user's, then
 * the generated ones, n for an elementwise kernel, and for a reduction n,
 * the partials, the count of blocks done and the result. */
#define CUDYN_EXPR_MAX_PARAMS (CUDYN_MAX_ARGS - 2)
#define CUDYN_REDUCE_MAX_PARAMS (CUDYN_MAX_ARGS - 4)
#define CUDYN_EXPR_MAX_NAME 48

/* ------------------------------------------------------------ params_decl.c */

/* One parameter of the user's list, as the generated kernel declares it. */
struct cudyn__param {
    char name[64];
    char type[96];    /* canonical declaration without the name: "const float *__restrict__" */
    char scalar[24];  /* the scalar type, for pointers the pointee's: "float" */
    char code;        /* the launch format character: 'f', 'p' ... */
    size_t elem_size; /* bytes of the scalar (of the pointee for a pointer) */
    bool pointer;
    bool writable;    /* a pointer to data that is neither const nor volatile */
    bool is_volatile; /* a pointer to volatile data */
};

struct cudyn__param_list {
    int count;
    struct cudyn__param p[CUDYN_EXPR_MAX_PARAMS];
    char format[CUDYN_EXPR_MAX_PARAMS + 1]; /* one character per parameter */
    bool uses_half;                         /* the source needs cuda_fp16.h */
};

/* Parses "float a, const float *x, float *y" (empty: no parameters).
 * 0, or -1 with a reason that names the parameter in why. */
int cudyn__params_parse(const char *text, struct cudyn__param_list *out, char *why, size_t cap);
/* Parses a type with no name and no pointer ("float"), for a reduction's
 * result; fills type, scalar, code and elem_size. */
int cudyn__type_parse(const char *text, struct cudyn__param *out, char *why, size_t cap);
/* 0 if name can name generated kernels (an identifier of at most
 * CUDYN_EXPR_MAX_NAME characters), else -1 with a reason. */
int cudyn__kernel_name_check(const char *name, char *why, size_t cap);

/* ------------------------------------------------------------ expr_scan.c */

/* How the user's text (a body or a map expression) reaches each pointer
 * parameter. */
struct cudyn__scan {
    bool used[CUDYN_EXPR_MAX_PARAMS]; /* the text names it */
    bool write_only[CUDYN_EXPR_MAX_PARAMS]; /* writable, and the text only assigns NAME[i] = */
    bool lanes;                       /* a vectorised variant is possible */
    char why[160];                    /* when it is not: the first reason */
};

/* Reads `text` (and `preamble`, which may be NULL) as C++ tokens.  A
 * vectorised variant is possible when every mention of a pointer
 * parameter in the text is NAME[i] (with any spacing), none is preceded by
 * '&', no pointee is volatile, and no #define of the preamble names one.
 * A writable pointer is write_only when every mention is NAME[i] = (an
 * assignment, not ==, +=, ++ or a read). */
void cudyn__scan_text(const char *text, const char *preamble, const struct cudyn__param_list *params,
                      struct cudyn__scan *out);

/* Whether a user's text stays in its place in the generated source (the
 * rule is in expr_scan.c and cudyn.h): 0, or -1 with "the WHAT, line L,
 * column C: what is wrong" in why.  CUDYN_CONFINE_CODE: a preamble, which
 * may hold preprocessor directives. */
#define CUDYN_CONFINE_CODE 1u
int cudyn__text_confine(const char *text, const char *what, unsigned int flags, char *why, size_t cap);

/* ------------------------------------------------------------ expr_shape.c */

/* What a launch shape depends on, for one kernel in one context. */
struct cudyn__shape_limits {
    int block;         /* threads per block (occupancy's choice) */
    int blocks_per_sm; /* resident blocks of that size per multiprocessor */
    int sms;           /* multiprocessors */
    int max_grid;      /* the device's largest grid x */
};

/* The block and the grid for `items` work items (elements, or vectors of
 * lanes elements), one item per thread per step of a grid-stride loop. */
void cudyn__shape(const struct cudyn__shape_limits *lim, size_t items, unsigned int *grid, unsigned int *block);
/* The largest grid cudyn__shape gives with these limits. */
unsigned int cudyn__shape_grid_cap(const struct cudyn__shape_limits *lim);
/* The block size to use from occupancy's suggestion: at most limit, and a
 * power of two when pow2 (a tree reduction needs one); 0 if none. */
int cudyn__shape_block(int suggested, int limit, bool pow2);

/* One pointer parameter at launch, as the variant choice sees it. */
struct cudyn__lane_pointer {
    uint64_t address;
    size_t elem_size;
    bool used;     /* the text indexes it, so the vectorised variant loads it */
    bool writable; /* and may store it back */
};

enum cudyn__variant { VARIANT_PLAIN = 0, VARIANT_VECTOR = 1 };

/* Elements per thread and step in the vectorised variant: 16 bytes of the
 * widest pointee (a float4, a double2), so every load is at most 16 bytes. */
int cudyn__lanes(const struct cudyn__param_list *params, const struct cudyn__scan *scan);
/* The variant for a launch over n elements (see expr_shape.c). */
enum cudyn__variant cudyn__choose_variant(bool vector_kernel, int lanes, const struct cudyn__lane_pointer *ptrs,
                                          int count, size_t n);

/* ------------------------------------------------------------ expr_source.c */

struct cudyn__ew_text {
    const char *name; /* the user's name, checked */
    const char *body;
    const char *preamble; /* NULL: none */
};

struct cudyn__red_text {
    const char *name;
    const struct cudyn__param *result;
    const char *neutral, *reduce, *map;
    const char *preamble;
};

/* The generated source (malloc'd, NULL when out of memory).  The vectorised
 * kernel is written when scan->lanes. */
char *cudyn__ew_source(const struct cudyn__ew_text *t, const struct cudyn__param_list *params,
                       const struct cudyn__scan *scan, int lanes);
char *cudyn__red_source(const struct cudyn__red_text *t, const struct cudyn__param_list *params,
                        const struct cudyn__scan *scan, int lanes);
/* The largest block occupancy may choose for a generated elementwise
 * kernel (expr_kernels.c says why), and for a reduction kernel (reduction.c
 * says why; it is also the size of the kernel's shared array). */
#define CUDYN_EXPR_MAX_BLOCK 256
#define CUDYN_REDUCE_MAX_BLOCK 512
/* The file names the #line directives give the user's text, so NVRTC's
 * log points at it. */
extern const char *const cudyn__user_text_names[];

/* ------------------------------------------------------------ the rest */
/* What follows needs the library's functions and a driver; the pure
 * files above do not use it. */
#include <stdarg.h>

/* The kernels of one generated source, by role. */
enum cudyn__kernel_role { KERNEL_PLAIN, KERNEL_VECTOR, KERNEL_ROLES };

/* A launch's values: ptrs[k] points to parameter k's value (the caller
 * appends n and what else the kernel takes). */
struct cudyn__expr_values {
    void *ptrs[CUDYN_EXPR_MAX_PARAMS + 4];
    _Alignas(16) unsigned char slots[CUDYN_EXPR_MAX_PARAMS][16];
};

/* expr_args.c: the values after n, as cudyn_launchf reads them. */
void cudyn__expr_read_va(const struct cudyn__param_list *params, va_list *ap, struct cudyn__expr_values *v);
/* expr_args.c: the values from args[] as cudyn_launch takes them: exactly
 * one per parameter, none NULL (else CUDYN_ERROR_INVALID_LAUNCH_ARGUMENTS
 * naming `kernel` and its parameters). */
int cudyn__expr_read_array(const char *api, const char *kernel, const char *param_text,
                           const struct cudyn__param_list *params, void **args, int num_args,
                           struct cudyn__expr_values *v);
/* expr_args.c: which variant runs for these values (expr_shape.c). */
enum cudyn__variant cudyn__expr_variant(bool vector_kernel, int lanes, const struct cudyn__param_list *params,
                                        const struct cudyn__scan *scan, const struct cudyn__expr_values *v, size_t n);

/* expr_kernels.c: one context's module of a generated source. */
struct cudyn__expr_context {
    void *ctx;                  /* the CUcontext it was loaded in */
    atomic_uint generation;     /* cudyn__context_generation when last found alive */
    cudyn_module mod;
    cudyn_function f[KERNEL_ROLES]; /* NULL for a role the source lacks */
    struct cudyn__shape_limits limits[KERNEL_ROLES];
    void *extra;                /* what setup made for this context */
    struct cudyn__expr_context *next;
};

/* A generated source and its modules, one per context, made on first use
 * in each (the first by the create function, so compile errors show there). */
struct cudyn__expr_kernels {
    char *source;
    char names[KERNEL_ROLES][CUDYN_EXPR_MAX_NAME + 32]; /* "" for a role the source lacks */
    char what[CUDYN_EXPR_MAX_NAME + 32]; /* "elementwise \"saxpy\"", for messages */
    bool pow2;            /* blocks must be powers of two */
    int max_block;        /* the largest block occupancy may choose */
    /* called once per context after the kernels are found (may be NULL),
     * with owner; teardown frees what setup left in c->extra */
    int (*setup)(const char *api, void *owner, struct cudyn__expr_context *c);
    void (*teardown)(struct cudyn__expr_context *c);
    void *owner;
    pthread_mutex_t lock; /* making a context's module */
    _Atomic(struct cudyn__expr_context *) contexts;
};

/* Takes ownership of source (also on failure). */
int cudyn__expr_kernels_init(struct cudyn__expr_kernels *k, char *source);
/* The calling thread's context's module, loading (and compiling) it on
 * first use there. */
int cudyn__expr_context(const char *api, struct cudyn__expr_kernels *k, struct cudyn__expr_context **out);
/* Unloads every module and frees what setup made. */
void cudyn__expr_kernels_destroy(struct cudyn__expr_kernels *k);

#endif
