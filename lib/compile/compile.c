/*
 * compile.c - run-time compilation of CUDA C++ with NVRTC for the device at
 * hand (target choice in target.c), through the persistent cache (cache.c)
 * and the in-process compile sharing (inflight.c).
 *
 * The cache key is every input the caller controls plus the device's
 * compute capability; it needs no NVRTC, so a kernel found in the cache
 * never loads it.  Files the source #includes are recorded in the entry
 * (includes.c) and checked by stat on each hit.  Loading, with rebuilds
 * when the driver rejects an image, is in module/module_source.c.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "hints.h"
#include "loader/loader.h"
#include "compile/inflight.h"
#include "compile/libc_headers.h"
#include "compile/options.h"
#include "compile/program.h"
#include "compile/ptx_interface.h"

#define KEY_FORMAT "cudyn kernel cache key, format 4"

/* --------------------------------------------------------------- access */

static void free_strings(char **v, int n)
{
    for (int i = 0; v && i < n; i++)
        free(v[i]);
    free(v);
}

CUDYN_API void cudyn_program_free(cudyn_program *prog)
{
    if (!prog)
        return;
    struct cudyn__inputs *in = &prog->in;
    free(in->source);
    free(in->name);
    free_strings(in->options, in->num_options);
    free_strings(in->header_names, in->num_headers);
    free_strings(in->header_sources, in->num_headers);
    free_strings(in->expressions, in->num_expressions);
    cudyn__cache_entry_free(&prog->out);
    free(prog);
}

CUDYN_API const char *cudyn_program_log(const cudyn_program *prog)
{
    return prog && prog->out.log ? prog->out.log : "";
}

CUDYN_API const char *cudyn_program_target(const cudyn_program *prog)
{
    return prog ? prog->target.name : "";
}

CUDYN_API const void *cudyn_program_image(const cudyn_program *prog, size_t *bytes)
{
    if (bytes)
        *bytes = prog && prog->out.image ? prog->out.image_size : 0;
    return prog ? prog->out.image : NULL;
}

CUDYN_API const char *cudyn_program_ptx(const cudyn_program *prog, size_t *bytes)
{
    if (bytes)
        *bytes = prog && prog->out.ptx ? prog->out.ptx_size : 0;
    return prog ? (const char *)prog->out.ptx : NULL;
}

CUDYN_API const char *cudyn_program_lowered_name(const cudyn_program *prog, const char *name_expression)
{
    if (!prog || !name_expression)
        return NULL;
    return cudyn__names_lookup(&prog->out.names, name_expression);
}

CUDYN_API int cudyn_program_from_cache(const cudyn_program *prog)
{
    return prog && prog->from_cache;
}

/* ------------------------------------------------------------ arguments */

/* An argument named as the caller knows it: "options" for cudyn_compile,
 * "args->options" for cudyn_compile_ex. */
static int fail_field(const char *api, const char *prefix, const char *field, const char *what)
{
    char arg[64];
    snprintf(arg, sizeof arg, "%s%s", prefix, field);
    return cudyn__fail_arg(api, arg, what);
}

static int check_list(const char *api, const char *prefix, const char *what, const char *count_name,
                      const char *const *v, int n, int max)
{
    if (n < 0 || n > max)
        return fail_field(api, prefix, count_name, "is negative or too large");
    if (n > 0 && !v)
        return fail_field(api, prefix, what, "must not be NULL when its count is positive");
    for (int i = 0; i < n; i++)
        if (!v[i])
            return fail_field(api, prefix, what, "contains a NULL entry");
    return CUDYN_OK;
}

/* Every option that takes a value has one: a bare "-I" at the end would
 * otherwise take the next string NVRTC sees as its value. */
static int check_options(const char *api, const char *const *options, int n)
{
    struct cudyn__option o;
    for (int i = 0; i < n; i += o.used)
        if (cudyn__option_read(options, n, i, &o) != 0)
            return cudyn__fail(CUDYN_ERROR_INVALID_ARGUMENT, CUDYN_ORIGIN_LIBRARY, 0, NULL, api, NULL,
                               "%s: option '%s' takes a value and has none (it is the last option)", api, o.name);
    return CUDYN_OK;
}

int cudyn__compile_fields_check(const char *api, const struct cudyn_compile_args *a, const char *prefix)
{
    if (!a->source)
        return fail_field(api, prefix, "source", "must not be NULL");
    if (a->flags & ~(CUDYN_COMPILE_REBUILD | CUDYN_COMPILE_NO_CACHE))
        return fail_field(api, prefix, "flags", "has bits other than CUDYN_COMPILE_REBUILD and CUDYN_COMPILE_NO_CACHE");
    int st = check_list(api, prefix, "options", "num_options", a->options, a->num_options, CUDYN_MAX_OPTIONS);
    if (st == CUDYN_OK)
        st = check_list(api, prefix, "header_names", "num_headers", a->header_names, a->num_headers,
                        CUDYN_MAX_HEADERS);
    if (st == CUDYN_OK)
        st = check_list(api, prefix, "header_sources", "num_headers", a->header_sources, a->num_headers,
                        CUDYN_MAX_HEADERS);
    if (st == CUDYN_OK)
        st = check_list(api, prefix, "name_expressions", "num_names", a->name_expressions, a->num_names,
                        CUDYN_MAX_NAMES);
    if (st == CUDYN_OK)
        st = check_options(api, a->options, a->num_options);
    return st;
}

/* The last field of the first struct cudyn_compile_args: callers built
 * against it stay valid when the struct grows. */
#define ARGS_V1_SIZE (offsetof(struct cudyn_compile_args, flags) + sizeof(unsigned int))

int cudyn__compile_args_check(const char *api, const struct cudyn_compile_args *args, struct cudyn_compile_args *a)
{
    if (!args)
        return cudyn__fail_arg(api, "args", "must not be NULL");
    if (args->size < ARGS_V1_SIZE)
        return cudyn__fail_arg(api, "args->size", "must be set to sizeof(struct cudyn_compile_args)");
    memset(a, 0, sizeof *a);
    memcpy(a, args, args->size < sizeof *a ? args->size : sizeof *a);
    return cudyn__compile_fields_check(api, a, "args->");
}

/* ------------------------------------------------------------ the inputs */

static char **copy_strings(const char *const *v, int n, bool *ok)
{
    if (n == 0)
        return NULL;
    char **copy = calloc((size_t)n, sizeof *copy);
    for (int i = 0; copy && i < n; i++)
        if (!(copy[i] = strdup(v[i])))
            *ok = false;
    if (!copy)
        *ok = false;
    return copy;
}

/* A program holding copies of the inputs, nothing else yet. */
static int program_alloc(const char *api, const struct cudyn_compile_args *a, struct cudyn_program **out)
{
    struct cudyn_program *prog = calloc(1, sizeof *prog);
    if (!prog)
        return cudyn__fail_oom(api);
    struct cudyn__inputs *in = &prog->in;
    bool ok = true;
    in->source = strdup(a->source);
    in->name = strdup(a->name ? a->name : "kernel.cu");
    in->options = copy_strings(a->options, a->num_options, &ok);
    in->num_options = a->num_options;
    in->header_names = copy_strings(a->header_names, a->num_headers, &ok);
    in->header_sources = copy_strings(a->header_sources, a->num_headers, &ok);
    in->num_headers = a->num_headers;
    in->expressions = copy_strings(a->name_expressions, a->num_names, &ok);
    in->num_expressions = a->num_names;
    in->flags = a->flags;
    if (!ok || !in->source || !in->name) {
        cudyn_program_free(prog);
        return cudyn__fail_oom(api);
    }
    *out = prog;
    return CUDYN_OK;
}

/* The inputs as NVRTC and the scanner take them. */
#define INPUT_LIST(v) ((const char *const *)(v))

/* dev's compute capability as major*10+minor. */
static int cc_of(const char *api, cu_device dev, int *cc)
{
    int major = 0, minor = 0;
    cu_result r = cudyn__drv.cuDeviceGetAttribute(&major, (cu_enum)CUDYN_ATTR_COMPUTE_CAPABILITY_MAJOR, dev);
    if (r == CU_OK)
        r = cudyn__drv.cuDeviceGetAttribute(&minor, (cu_enum)CUDYN_ATTR_COMPUTE_CAPABILITY_MINOR, dev);
    *cc = major * 10 + minor;
    if (r == CU_OK)
        return CUDYN_OK;
    int st = cudyn__fail_driver(r, "cuDeviceGetAttribute", api);
    cudyn__error_append(" (while %s read the device's compute capability)", api);
    return st;
}

int cudyn__device_cc(const char *api, int device, int *cc)
{
    cu_device dev = 0;
    *cc = 0;
    int st = cudyn__get_device(api, device, &dev);
    return st == CUDYN_OK ? cc_of(api, dev, cc) : st;
}

int cudyn__current_device_cc(const char *api, int *device, int *cc)
{
    *device = 0;
    *cc = 0;
    int st = cudyn__need_context(api);
    if (st != CUDYN_OK)
        return st;
    cu_device dev = 0;
    CUDYN_TRY_DRIVER(cudyn__drv.cuCtxGetDevice(&dev), "cuCtxGetDevice", api);
    /* a CUdevice is its ordinal (cuDeviceGet(n) gives n on every driver);
     * taken so here, on the warm path, where a walk over the devices would
     * cost 1 + N driver calls per load; cudyn_device_current, the public
     * answer, walks them and so never relies on it */
    *device = (int)dev;
    return cc_of(api, dev, cc);
}

static void hash_int(struct cudyn__sha256 *h, long long v)
{
    unsigned char b[8];
    for (int i = 0; i < 8; i++)
        b[i] = (unsigned char)((unsigned long long)v >> (8 * i));
    cudyn__sha256_update(h, b, sizeof b);
}

static void hash_text(struct cudyn__sha256 *h, const char *s)
{
    size_t n = strlen(s);
    hash_int(h, (long long)n); /* length-prefixed: no ambiguity */
    cudyn__sha256_update(h, s, n);
}

static void hash_list(struct cudyn__sha256 *h, char *const *v, int n)
{
    hash_int(h, n);
    for (int i = 0; i < n; i++)
        hash_text(h, v[i]);
}

/* The cache key: every input the caller controls, the device's compute
 * capability and cudyn's own headers.  Not NVRTC (a hit must not need
 * it) nor the target it would choose (a forced target is among the
 * options).  Nor the toolkit: a compile that includes none of its headers
 * does not depend on it (includes.h), and its entry serves whatever
 * toolkit a machine has, or none; one that does is stored under
 * toolkit_key instead. */
static void compute_key(struct cudyn_program *prog)
{
    const struct cudyn__inputs *in = &prog->in;
    struct cudyn__sha256 h;
    cudyn__sha256_init(&h);
    hash_text(&h, KEY_FORMAT);
    hash_int(&h, prog->cc);
    hash_text(&h, in->name);
    hash_list(&h, in->options, in->num_options);
    hash_list(&h, in->header_names, in->num_headers);
    hash_list(&h, in->header_sources, in->num_headers);
    for (const struct cudyn__libc_header *l = cudyn__libc_headers; l->name; l++) {
        hash_text(&h, l->name); /* cudyn's own headers: a new text is a new key */
        hash_text(&h, l->text);
    }
    hash_list(&h, in->expressions, in->num_expressions);
    hash_text(&h, in->source);
    cudyn__sha256_final(&h, prog->key);
}

/* The key of a compile that included a toolkit header: the program's and
 * the identities of the include directories the toolkit t gives NVRTC
 * (device, inode, modification and change times: another toolkit, or one
 * installed again, is another key; how a path is spelled is not). */
static void toolkit_key(const struct cudyn_program *prog, const struct cudyn__toolkit *t,
                        unsigned char key[CUDYN_SHA256_BYTES])
{
    struct cudyn__sha256 h;
    cudyn__sha256_init(&h);
    cudyn__sha256_update(&h, prog->key, CUDYN_SHA256_BYTES);
    hash_int(&h, t->n_include);
    for (int i = 0; i < t->n_include; i++) {
        hash_int(&h, (long long)t->identity[i].dev);
        hash_int(&h, (long long)t->identity[i].ino);
        hash_int(&h, t->identity[i].mtime_ns);
        hash_int(&h, t->identity[i].ctime_ns);
    }
    cudyn__sha256_final(&h, key);
}

int cudyn__program_new(const char *api, const struct cudyn_compile_args *a, int cc, struct cudyn_program **out)
{
    *out = NULL;
    if (a->device == CUDYN_DEVICE_NONE && !cudyn__forced_target(a->options, a->num_options))
        return cudyn__fail_arg(api, "device",
                               "is CUDYN_DEVICE_NONE, so the options must name the target (--gpu-architecture)");
    int st = program_alloc(api, a, out);
    if (st != CUDYN_OK)
        return st;
    (*out)->device = a->device;
    (*out)->cc = a->device == CUDYN_DEVICE_NONE ? 0 : cc;
    compute_key(*out);
    return CUDYN_OK;
}

/* ---------------------------------------------------------------- NVRTC */

/* NVRTC's architectures; NVRTC before 11.2 cannot list them, and is then
 * trusted with the device's own. */
size_t cudyn__nvrtc_archs(int cc, int *archs)
{
    int n = 0;
    if (NVRTC_HAS(nvrtcGetNumSupportedArchs) && cudyn__nvrtc.nvrtcGetNumSupportedArchs(&n) == NVRTC_OK && n > 0 &&
        n <= CUDYN_MAX_ARCHS && cudyn__nvrtc.nvrtcGetSupportedArchs(archs) == NVRTC_OK)
        return (size_t)n;
    archs[0] = cc;
    return 1;
}

/* NVRTC's architectures into prog (loads NVRTC); its status. */
static int need_nvrtc(const char *api, struct cudyn_program *prog)
{
    int st = cudyn__need_nvrtc();
    if (st != CUDYN_OK) {
        cudyn__error_append(" (%s: %s is not in the kernel cache, so it needs NVRTC)", api, prog->in.name);
        return st;
    }
    if (prog->n_archs == 0)
        prog->n_archs = cudyn__nvrtc_archs(prog->cc, prog->archs);
    return CUDYN_OK;
}

/* The options NVRTC gets: cudyn's target first (no option of the caller
 * can take it as a value), the caller's, then the include directories of
 * the toolkit loader/toolkit.c found (include, and include/cccl where CUDA
 * 13+ keeps libcu++, CUB and Thrust: nvcc searches it too), searched
 * after the caller's, so that #include <cuda_fp16.h> works as with nvcc. */
struct option_list {
    const char *v[CUDYN_MAX_OPTIONS + 1 + CUDYN_TOOLKIT_MAX_INCLUDE];
    int n;
    char arch[64];
    char include[CUDYN_TOOLKIT_MAX_INCLUDE][LOADER_PATH_BYTES + 2];
};

/* add_arch: cudyn names the target (the caller did not, or a rebuild
 * overrides it); drop_callers_arch: leave out the caller's own. */
static void build_options(const struct cudyn_program *prog, bool add_arch, bool drop_callers_arch,
                          struct option_list *o)
{
    o->n = 0;
    if (add_arch) {
        snprintf(o->arch, sizeof o->arch, "--gpu-architecture=%s", prog->target.name);
        o->v[o->n++] = o->arch;
    }
    struct cudyn__option opt;
    const struct cudyn__inputs *in = &prog->in;
    for (int i = 0; i < in->num_options; i += opt.used) {
        cudyn__option_read(INPUT_LIST(in->options), in->num_options, i, &opt); /* checked: complete */
        if (drop_callers_arch && opt.kind == OPTION_ARCH)
            continue;
        for (int k = 0; k < opt.used; k++)
            o->v[o->n++] = in->options[i + k];
    }
    for (int i = 0; i < prog->toolkit->n_include; i++) {
        snprintf(o->include[i], sizeof o->include[i], "-I%s", prog->toolkit->include[i]);
        o->v[o->n++] = o->include[i];
    }
}

static char *read_log(nvrtc_program p)
{
    size_t size = 0;
    if (cudyn__nvrtc.nvrtcGetProgramLogSize(p, &size) != NVRTC_OK || size == 0)
        return calloc(1, 1);
    char *log = calloc(1, size + 1);
    if (log && cudyn__nvrtc.nvrtcGetProgramLog(p, log) != NVRTC_OK)
        log[0] = '\0';
    return log;
}

/* First line of the log that mentions an error, for the one-line message. */
static void first_error_line(const char *log, char *out, size_t cap)
{
    const char *line = strstr(log, "error");
    if (!line)
        line = log;
    while (line > log && line[-1] != '\n')
        line--;
    size_t n = strcspn(line, "\n");
    if (n >= cap)
        n = cap - 1;
    memcpy(out, line, n);
    out[n] = '\0';
}

/* The PTX, when NVRTC made one (always for compute_ targets; NVRTC 12+
 * also for sm_ targets): the image of PTX targets, and the interface.
 * What failed is kept for a PTX target, whose only image it is: the NVRTC
 * call in *fn with its result (NVRTC_OK and *fn NULL: none made; *fn
 * "malloc": out of memory). */
static nvrtc_result fetch_ptx(nvrtc_program p, struct cudyn__cache_entry *e, const char **fn)
{
    size_t size = 0;
    *fn = "nvrtcGetPTXSize";
    nvrtc_result r = cudyn__nvrtc.nvrtcGetPTXSize(p, &size);
    if (r != NVRTC_OK || size <= 1) {
        if (r == NVRTC_OK)
            *fn = NULL;
        return r;
    }
    e->ptx = malloc(size);
    *fn = e->ptx ? "nvrtcGetPTX" : "malloc";
    r = e->ptx ? cudyn__nvrtc.nvrtcGetPTX(p, (char *)e->ptx) : NVRTC_OK;
    if (e->ptx && r == NVRTC_OK && e->ptx[size - 1] == '\0') {
        e->ptx_size = size;
        e->interface = cudyn__ptx_interface((const char *)e->ptx, size);
        *fn = NULL;
        return NVRTC_OK;
    }
    if (e->ptx && r == NVRTC_OK)
        *fn = NULL; /* no NUL: not PTX cudyn can load */
    free(e->ptx);
    e->ptx = NULL;
    return r;
}

static int fetch_cubin(const char *api, nvrtc_program p, struct cudyn_program *prog)
{
    struct cudyn__cache_entry *e = &prog->out;
    size_t size = 0;
    nvrtc_result r = cudyn__nvrtc.nvrtcGetCUBINSize(p, &size);
    if (r != NVRTC_OK)
        return cudyn__fail_nvrtc(r, "nvrtcGetCUBINSize", api, NULL);
    if (size == 0) /* never a success: a driver would read past it */
        return cudyn__fail(CUDYN_ERROR_INVALID_IMAGE, CUDYN_ORIGIN_LIBRARY, 0, NULL, "nvrtcGetCUBIN", NULL,
                           "%s: NVRTC returned an empty CUBIN for %s (options such as -dlto or --optix-ir make "
                           "other outputs, which cudyn cannot load)",
                           api, prog->target.name);
    if (!(e->image = malloc(size)))
        return cudyn__fail_oom(api);
    r = cudyn__nvrtc.nvrtcGetCUBIN(p, (char *)e->image);
    if (r != NVRTC_OK)
        return cudyn__fail_nvrtc(r, "nvrtcGetCUBIN", api, NULL);
    e->image_size = size;
    return CUDYN_OK;
}

static int fetch_output(const char *api, nvrtc_program p, struct cudyn_program *prog)
{
    struct cudyn__cache_entry *e = &prog->out;
    const char *ptx_fn = NULL;
    nvrtc_result ptx_r = fetch_ptx(p, e, &ptx_fn);
    int st = prog->target.cubin ? fetch_cubin(api, p, prog) : CUDYN_OK;
    if (st != CUDYN_OK)
        return st;
    if (!prog->target.cubin) {
        if (!e->ptx && ptx_r != NVRTC_OK)
            return cudyn__fail_nvrtc(ptx_r, ptx_fn, api, NULL);
        if (!e->ptx && ptx_fn) /* malloc */
            return cudyn__fail_oom(api);
        if (!e->ptx)
            return cudyn__fail(CUDYN_ERROR_INVALID_IMAGE, CUDYN_ORIGIN_LIBRARY, 0, NULL, "nvrtcGetPTX", NULL,
                               "%s: NVRTC produced no PTX for %s", api, prog->target.name);
        e->image = e->ptx;
        e->image_size = e->ptx_size;
    }
    const struct cudyn__inputs *in = &prog->in;
    for (int i = 0; i < in->num_expressions; i++) {
        const char *lowered = NULL;
        nvrtc_result r = cudyn__nvrtc.nvrtcGetLoweredName(p, in->expressions[i], &lowered);
        if (r != NVRTC_OK)
            return cudyn__fail_nvrtc(r, "nvrtcGetLoweredName", api, in->expressions[i]);
        if (cudyn__names_add(&e->names, in->expressions[i], lowered) != 0)
            return cudyn__fail_oom(api);
    }
    return CUDYN_OK;
}

/* Name expressions need two functions NVRTC has had since 8.0, which its
 * table still lists as optional. */
static int need_name_functions(const char *api, const struct cudyn_program *prog)
{
    if (prog->in.num_expressions == 0 || (NVRTC_HAS(nvrtcAddNameExpression) && NVRTC_HAS(nvrtcGetLoweredName)))
        return CUDYN_OK;
    int v = cudyn__nvrtc_version_loaded();
    const char *missing = NVRTC_HAS(nvrtcAddNameExpression) ? "nvrtcGetLoweredName" : "nvrtcAddNameExpression";
    return cudyn__fail(CUDYN_ERROR_SYMBOL_NOT_FOUND, CUDYN_ORIGIN_LOADER, 0, NULL, missing, HINT_NEWER_NVRTC_FOR,
                       "%s: name expressions need nvrtcAddNameExpression and nvrtcGetLoweredName; the loaded NVRTC "
                       "(%d.%d) does not provide %s",
                       api, v / 1000, v % 1000 / 10, missing);
}

/* The directory of CUDA headers NVRTC was handed: the first -I or
 * --include-path (the toolkit's are last) whose directory has cuda.h,
 * else the first one. */
static const char *headers_dir(const struct option_list *o, char *out, size_t cap)
{
    const char *first = NULL;
    for (int i = 0; i < o->n; i++) {
        const char *v = o->v[i], *dir = NULL;
        if (strncmp(v, "-I", 2) == 0)
            dir = v + 2;
        else if (strncmp(v, "--include-path=", 15) == 0)
            dir = v + 15;
        while (dir && *dir == ' ')
            dir++;
        if (!dir || !*dir)
            continue;
        if (!first)
            first = dir;
        snprintf(out, cap, "%s/cuda.h", dir);
        struct stat st;
        if (stat(out, &st) == 0) {
            snprintf(out, cap, "%s", dir);
            return out;
        }
    }
    return first;
}

/* NVRTC could not open an #include: says which headers cudyn gives and
 * where it looked for the toolkit's.  True when it did. */
static bool explain_missing_header(const char *log)
{
    static const char marker[] = "cannot open source file \"";
    const char *name = strstr(log, marker);
    if (!name)
        return false;
    name += sizeof marker - 1;
    int len = (int)strcspn(name, "\"\n");
    char where[900];
    cudyn__toolkit_where(where, sizeof where);
    cudyn__error_append("; <%.*s> is neither one of cudyn's C library headers (cudyn.h lists them) nor "
                        "on the include path; %s",
                        len, name, where);
    return true;
}

/* NVRTC did not know a name nvcc gives device code without an #include
 * (uint, M_PI, INT_MAX ...): says which header has it and how to get
 * nvcc's behaviour.  The first such name in the log; true when there was one. */
static bool explain_nvcc_name(const char *log)
{
    static const char marker[] = "identifier \"";
    for (const char *p = strstr(log, marker); p; p = strstr(p + 1, marker)) {
        const char *name = p + sizeof marker - 1;
        size_t len = strcspn(name, "\"\n");
        char word[64];
        if (len == 0 || len >= sizeof word || !cudyn__starts_with(name + len, "\" is undefined"))
            continue;
        memcpy(word, name, len);
        word[len] = '\0';
        const char *header = cudyn__nvcc_name_header(word);
        if (header) {
            cudyn__error_append("; nvcc gives device code %s without an #include: include <%s>, or give the option "
                                "\"" CUDYN_OPTION_NVCC_NAMES "\" (CUDYN_OPTION_NVCC_NAMES, cudyn-cc --nvcc-names),"
                                " which gives every such name",
                                word, header);
            return true;
        }
    }
    return false;
}

static int run_nvrtc(const char *api, struct cudyn_program *prog, const struct option_list *o)
{
    const struct cudyn__inputs *in = &prog->in;
    int st = need_name_functions(api, prog);
    if (st != CUDYN_OK)
        return st;
    const char **names = NULL, **texts = NULL;
    int num_headers = 0;
    if (cudyn__headers_with_libc(INPUT_LIST(in->header_names), INPUT_LIST(in->header_sources), in->num_headers,
                                 INPUT_LIST(in->options), in->num_options, &names, &texts, &num_headers) != 0)
        return cudyn__fail_oom(api);
    nvrtc_program p = NULL;
    nvrtc_result r = cudyn__nvrtc.nvrtcCreateProgram(&p, in->source, in->name, num_headers, texts, names);
    free(names);
    free(texts);
    if (r != NVRTC_OK)
        return cudyn__fail_nvrtc(r, "nvrtcCreateProgram", api, NULL);
    for (int i = 0; i < in->num_expressions && st == CUDYN_OK; i++) {
        r = cudyn__nvrtc.nvrtcAddNameExpression(p, in->expressions[i]);
        if (r != NVRTC_OK)
            st = cudyn__fail_nvrtc(r, "nvrtcAddNameExpression", api, in->expressions[i]);
    }
    if (st == CUDYN_OK) {
        r = cudyn__nvrtc.nvrtcCompileProgram(p, o->n, o->v);
        prog->out.log = read_log(p);
        if (r == NVRTC_OK) {
            st = fetch_output(api, p, prog);
        } else {
            char first[512];
            first_error_line(prog->out.log ? prog->out.log : "", first, sizeof first);
            st = cudyn__fail_nvrtc(r, "nvrtcCompileProgram", api, NULL);
            cudyn__error_append(" (%s for %s: %s)", in->name, prog->target.name, first[0] ? first : "no log");
            const char *log = prog->out.log ? prog->out.log : "";
            if (!explain_missing_header(log) && !explain_nvcc_name(log)) {
                /* a skew of NVRTC, its builtins and the headers can be the cause */
                char dir[4200], line[768];
                cudyn__versions_line(line, sizeof line, NULL, prog->cc, headers_dir(o, dir, sizeof dir));
                cudyn__error_append("; %s", line);
            }
        }
    }
    cudyn__nvrtc.nvrtcDestroyProgram(&p);
    return st;
}

/* ------------------------------------------------------------ obtaining */

/* The target: `override`, else the caller's, else NVRTC's best for cc. */
static int choose(const char *api, struct cudyn_program *prog, const char *override, bool *callers)
{
    const char *forced = override;
    if (!forced)
        forced = cudyn__forced_target(INPUT_LIST(prog->in.options), prog->in.num_options);
    *callers = forced != NULL && override == NULL;
    if (cudyn__choose_target(prog->cc, prog->archs, prog->n_archs, cudyn__nvrtc_version_loaded(),
                            cudyn__driver_version_loaded(), forced, &prog->target) != 0)
        return cudyn__fail(CUDYN_ERROR_UNSUPPORTED_ARCH, CUDYN_ORIGIN_LIBRARY, 0, NULL, api, NULL, "%s: device %d: %s",
                           api, prog->device, prog->target.why);
    if (prog->target.cubin && !NVRTC_HAS(nvrtcGetCUBIN)) {
        /* NVRTC before 11.1 makes PTX only. */
        prog->target.cubin = false;
        snprintf(prog->target.name, sizeof prog->target.name, "compute_%d", prog->target.arch);
    }
    return CUDYN_OK;
}

/* What the compile reads besides its source (includes.c), and whether it
 * depends on the toolkit; a list that cannot be made (out of memory) only
 * means the result is not stored. */
static void scan_includes(struct cudyn_program *prog)
{
    const struct cudyn__inputs *in = &prog->in;
    struct cudyn__include_env env = {
        in->name, INPUT_LIST(in->header_names), INPUT_LIST(in->header_sources), in->num_headers,
        INPUT_LIST(in->options), in->num_options, NULL, prog->toolkit->n_include,
    };
    const char *toolkit_dirs[CUDYN_TOOLKIT_MAX_INCLUDE];
    for (int i = 0; i < prog->toolkit->n_include; i++)
        toolkit_dirs[i] = prog->toolkit->include[i];
    env.toolkit_dirs = toolkit_dirs;
    if (cudyn__deps_scan(in->source, &env, &prog->out.deps) != 0)
        snprintf(prog->out.deps.uncacheable, sizeof prog->out.deps.uncacheable, "out of memory");
}

/* Stores a fresh result unless the caller or its includes forbid it. */
static void store(struct cudyn_program *prog)
{
    bool refreshed;
    const char *why = NULL;
    if (prog->in.flags & CUDYN_COMPILE_NO_CACHE)
        why = "CUDYN_COMPILE_NO_CACHE";
    else if (prog->out.deps.uncacheable[0])
        why = prog->out.deps.uncacheable;
    else if (cudyn__deps_check(&prog->out.deps, &refreshed) != 0)
        why = "an included file changed while it compiled";
    if (why) {
        cudyn__debug("compile %s for %s: not cached: %s", prog->in.name, prog->target.name, why);
        return;
    }
    if (prog->out.deps.uses_toolkit)
        toolkit_key(prog, prog->toolkit, prog->entry_key);
    else
        memcpy(prog->entry_key, prog->key, sizeof prog->entry_key);
    cudyn__cache_store(prog->entry_key, &prog->out);
}

static bool from_cache(struct cudyn_program *prog);
static bool from_cache_for_toolkit(struct cudyn_program *prog);

/* NVRTC, for the target chosen now (or `override`).  Where the toolkit
 * found before NVRTC was loaded is not the one beside it (loader/toolkit.c),
 * the cache is asked once more, under the key of that one (may_read). */
static int compile_fresh(const char *api, struct cudyn_program *prog, const char *override, bool may_read)
{
    cudyn__cache_entry_free(&prog->out);
    prog->from_cache = false;
    int st = need_nvrtc(api, prog);
    if (st == CUDYN_OK && may_read && prog->toolkit != cudyn__toolkit() && from_cache_for_toolkit(prog))
        return CUDYN_OK;
    prog->toolkit = cudyn__toolkit(); /* NVRTC's include path; the key of an entry that includes from it */
    bool callers = false;
    if (st == CUDYN_OK)
        st = choose(api, prog, override, &callers);
    if (st != CUDYN_OK)
        return st;
    struct option_list *o = malloc(sizeof *o);
    if (!o)
        return cudyn__fail_oom(api);
    build_options(prog, !callers, override != NULL, o);
    if (!(prog->in.flags & CUDYN_COMPILE_NO_CACHE))
        scan_includes(prog);
    cudyn__debug("compile %s for %s: NVRTC %d", prog->in.name, prog->target.name, cudyn__nvrtc_version_loaded());
    st = run_nvrtc(api, prog, o);
    free(o);
    if (st == CUDYN_OK) {
        struct cudyn__cache_entry *e = &prog->out;
        snprintf(e->target, sizeof e->target, "%s", prog->target.name);
        e->arch = prog->target.arch;
        e->cubin = prog->target.cubin;
        e->nvrtc_version = cudyn__nvrtc_version_loaded();
        store(prog);
    }
    return st;
}

/* The entry under `key`, when the files it included are unchanged. */
static bool hit(struct cudyn_program *prog, const unsigned char key[CUDYN_SHA256_BYTES])
{
    struct cudyn__cache_entry e;
    if (cudyn__cache_load(key, &e) != 0)
        return false;
    bool refreshed = false;
    if (cudyn__deps_check(&e.deps, &refreshed) != 0) {
        cudyn__cache_entry_free(&e);
        return false; /* stale: compiled again, and the entry replaced */
    }
    if (refreshed)
        cudyn__cache_store(key, &e); /* same contents: remember the new identities */
    memcpy(prog->entry_key, key, sizeof prog->entry_key);
    cudyn__cache_entry_free(&prog->out);
    prog->out = e;
    prog->from_cache = true;
    struct cudyn__target *t = &prog->target;
    snprintf(t->name, sizeof t->name, "%s", e.target);
    t->arch = e.arch;
    t->cubin = e.cubin;
    snprintf(t->why, sizeof t->why, "from the kernel cache (built by NVRTC %d.%d)", e.nvrtc_version / 1000,
             e.nvrtc_version % 1000 / 10);
    cudyn__debug("compile %s: cache hit (%s)", prog->in.name, e.target);
    return true;
}

/* A hit under the key of the toolkit the process has now (toolkit_key),
 * which prog remembers. */
static bool from_cache_for_toolkit(struct cudyn_program *prog)
{
    prog->toolkit = cudyn__toolkit();
    unsigned char key[CUDYN_SHA256_BYTES];
    toolkit_key(prog, prog->toolkit, key);
    return hit(prog, key);
}

/* A cache hit: an entry that includes no toolkit header, else one that
 * includes from this toolkit. */
static bool from_cache(struct cudyn_program *prog)
{
    return hit(prog, prog->key) || from_cache_for_toolkit(prog);
}

/* What a compile computes, for sharing it: the key, the forced target of a
 * rebuild, and whether the cache may answer. */
static void flight_id(const struct cudyn_program *prog, const char *override, unsigned char id[CUDYN_SHA256_BYTES])
{
    struct cudyn__sha256 h;
    cudyn__sha256_init(&h);
    cudyn__sha256_update(&h, prog->key, CUDYN_SHA256_BYTES);
    hash_text(&h, override ? override : "");
    hash_int(&h, prog->in.flags);
    cudyn__sha256_final(&h, id);
}

int cudyn__program_build(const char *api, struct cudyn_program *prog, const char *override)
{
    const bool may_read = !override && !(prog->in.flags & (CUDYN_COMPILE_REBUILD | CUDYN_COMPILE_NO_CACHE));
    if (may_read && from_cache(prog))
        return CUDYN_OK;
    unsigned char id[CUDYN_SHA256_BYTES];
    flight_id(prog, override, id);
    bool leader = true;
    struct cudyn__flight *f = cudyn__flight_join(id, &leader);
    if (f && !leader) {
        cudyn__cache_entry_free(&prog->out);
        int st = cudyn__flight_wait(api, f, &prog->out);
        prog->from_cache = false;
        if (prog->out.image) {
            snprintf(prog->target.name, sizeof prog->target.name, "%s", prog->out.target);
            prog->target.arch = prog->out.arch;
            prog->target.cubin = prog->out.cubin;
        }
        return st;
    }
    /* a compile that landed between the miss and the join stored it */
    int st = may_read && from_cache(prog) ? CUDYN_OK : compile_fresh(api, prog, override, may_read);
    if (f)
        cudyn__flight_land(f, st, &prog->out);
    return st;
}

int cudyn__program_rebuild(const char *api, const struct cudyn_program *prog, const char *override,
                           struct cudyn_program **out)
{
    const struct cudyn__inputs *in = &prog->in;
    struct cudyn_compile_args a = {
        sizeof a, in->source, in->name, prog->device, INPUT_LIST(in->options), in->num_options,
        INPUT_LIST(in->header_names), INPUT_LIST(in->header_sources), in->num_headers,
        INPUT_LIST(in->expressions), in->num_expressions, in->flags | CUDYN_COMPILE_REBUILD,
    };
    int st = program_alloc(api, &a, out);
    if (st != CUDYN_OK)
        return st;
    struct cudyn_program *again = *out;
    again->device = prog->device;
    again->cc = prog->cc;
    memcpy(again->key, prog->key, sizeof again->key);
    memcpy(again->archs, prog->archs, sizeof again->archs);
    again->n_archs = prog->n_archs;
    st = cudyn__program_build(api, again, override);
    if (st != CUDYN_OK) {
        cudyn_program_free(again);
        *out = NULL;
    }
    return st;
}

/* --------------------------------------------------------------- public */

/* Compiles checked arguments; on CUDYN_ERROR_COMPILE *out has the log. */
static int compile(const char *api, cudyn_program **out, const struct cudyn_compile_args *a)
{
    struct cudyn_program *prog = NULL;
    int cc = 0;
    int st = a->device == CUDYN_DEVICE_NONE ? CUDYN_OK : cudyn__device_cc(api, a->device, &cc);
    if (st == CUDYN_OK)
        st = cudyn__program_new(api, a, cc, &prog);
    if (st != CUDYN_OK)
        return st;
    st = cudyn__program_build(api, prog, NULL);
    if (st == CUDYN_OK || st == CUDYN_ERROR_COMPILE)
        *out = prog; /* a failed compile still hands over its log */
    else
        cudyn_program_free(prog);
    return st;
}

CUDYN_API int cudyn_compile_ex(cudyn_program **out, const struct cudyn_compile_args *args)
{
    static const char api[] = "cudyn_compile_ex";
    if (!out)
        return cudyn__fail_arg(api, "out", "must not be NULL");
    *out = NULL;
    struct cudyn_compile_args a;
    int st = cudyn__compile_args_check(api, args, &a);
    return st == CUDYN_OK ? compile(api, out, &a) : st;
}

CUDYN_API int cudyn_compile_names(cudyn_program **out, const char *source, const char *name, int device,
                                  const char *const *options, int num_options, const char *const *name_expressions,
                                  int num_names)
{
    static const char api[] = "cudyn_compile";
    if (!out)
        return cudyn__fail_arg(api, "out", "must not be NULL");
    *out = NULL;
    struct cudyn_compile_args a = {
        .size = sizeof a, .source = source, .name = name, .device = device, .options = options,
        .num_options = num_options, .name_expressions = name_expressions, .num_names = num_names,
    };
    int st = cudyn__compile_fields_check(api, &a, "");
    return st == CUDYN_OK ? compile(api, out, &a) : st;
}

CUDYN_API int cudyn_compile(cudyn_program **out, const char *source, const char *name, int device,
                            const char *const *options, int num_options)
{
    return cudyn_compile_names(out, source, name, device, options, num_options, NULL, 0);
}
