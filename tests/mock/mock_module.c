/*
 * mock_module.c - images, modules, functions and what the mock knows of
 * them: names, parameters, launch limits and attributes.
 *
 * An image is PTX text, the mock NVRTC's CUBIN (a bare ELF header, no
 * sections, followed by the same PTX text) or a real CUBIN.  Kernels and
 * their parameters are read from the text, as a driver reads them; a real
 * CUBIN has no text, so only its kernels' names are known (from their
 * ".text.NAME" code sections) and cuFuncGetParamInfo cannot answer.
 */
#include "config.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel_facts.h"
#include "mock.h"

#define MAX_MODULE_FUNCTIONS 64
#define ELF_HEADER_BYTES 64

struct CUmod_st {
    struct CUctx_st *ctx; /* current when it was loaded; it goes with it */
    char *image;          /* the driver's own copy, NUL-terminated */
    size_t image_bytes;
    const char *text; /* the PTX text in the image, or NULL (a real CUBIN) */
    /* handles of the kernels looked up, owned by the module as a driver's are */
    struct CUfunc_st *functions[MAX_MODULE_FUNCTIONS];
    int n_functions;
    struct CUmod_st *next;
};

static struct CUmod_st *modules;

static struct CUmod_st *module_live_locked(cu_module mod)
{
    for (struct CUmod_st *m = modules; m; m = m->next)
        if (m == mod)
            return m;
    return NULL;
}

struct CUfunc_st *function_live(cu_function fn)
{
    struct CUfunc_st *found = NULL;
    pthread_mutex_lock(&mock.lock);
    for (const struct CUmod_st *m = modules; m && !found; m = m->next)
        for (int i = 0; i < m->n_functions; i++)
            if (m->functions[i] == fn)
                found = fn;
    pthread_mutex_unlock(&mock.lock);
    return found;
}

struct CUctx_st *function_context_locked(const struct CUfunc_st *fn)
{
    return fn->module->ctx;
}

const char *module_text(const struct CUmod_st *mod)
{
    return mod->text;
}

static void module_free(struct CUmod_st *mod)
{
    for (int i = 0; i < mod->n_functions; i++) {
        mock_eval_free(mod->functions[i]->eval);
        free(mod->functions[i]->name);
        free(mod->functions[i]);
    }
    free(mod->image);
    free(mod);
}

void modules_release_context(const struct CUctx_st *ctx)
{
    pthread_mutex_lock(&mock.lock);
    MOCK_LIST_UNLINK_IF(struct CUmod_st, modules, m, m->ctx == ctx, module_free(m));
    pthread_mutex_unlock(&mock.lock);
}

/* ------------------------------------------------------------------ images */

/* Byte by byte, as a driver must: a PTX text shorter than 4 bytes ends
 * before the magic could. */
static int is_elf(const void *image)
{
    const unsigned char *p = image;
    return p[0] == 0x7F && p[1] == 'E' && p[2] == 'L' && p[3] == 'F';
}

/* Size of an ELF image from its header, else of a NUL-terminated text. */
static size_t image_size(const void *image)
{
    if (!is_elf(image))
        return strlen(image);
    const unsigned char *p = image;
    uint64_t shoff;
    uint16_t shentsize, shnum;
    memcpy(&shoff, p + 0x28, 8);
    memcpy(&shentsize, p + 0x3A, 2);
    memcpy(&shnum, p + 0x3C, 2);
    return (size_t)(shoff + (uint64_t)shentsize * shnum);
}

/* The PTX text of an image: all of a PTX image, what follows the header
 * of an ELF without sections (the mock NVRTC's CUBIN); NULL for a real
 * CUBIN. */
static const char *image_text(const char *image, size_t bytes)
{
    if (!is_elf(image))
        return image;
    uint16_t shnum;
    memcpy(&shnum, image + 0x3C, 2);
    return shnum == 0 && bytes > ELF_HEADER_BYTES ? image + ELF_HEADER_BYTES : NULL;
}

static cu_result load(cu_module *mod, const void *image)
{
    struct CUctx_st *ctx;
    cu_result r = ctx_need_current(&ctx);
    if (r)
        return r;
    if (!mod || !image)
        return CU_ERR_INVALID_VALUE;
    int elf = is_elf(image);
    pthread_mutex_lock(&mock.lock);
    int reject_ptx = strstr(mock.reject, "ptx") != NULL, reject_cubin = strstr(mock.reject, "cubin") != NULL;
    pthread_mutex_unlock(&mock.lock);
    if (reject_ptx && !elf)
        return CU_ERR_UNSUPPORTED_PTX_VERSION;
    if (reject_cubin && elf)
        return CU_ERR_NO_BINARY_FOR_GPU;
    if (!elf && !strstr(image, ".entry") && !strstr(image, ".version"))
        return CU_ERR_INVALID_IMAGE;
    size_t bytes = image_size(image);
    /* a driver keeps its own copy: callers may free the image right away */
    struct CUmod_st *m = calloc(1, sizeof *m);
    char *copy = malloc(bytes + 1);
    if (!m || !copy) {
        free(m);
        free(copy);
        return CU_ERR_OUT_OF_MEMORY;
    }
    memcpy(copy, image, bytes);
    copy[bytes] = '\0';
    m->ctx = ctx;
    m->image = copy;
    m->image_bytes = bytes;
    m->text = image_text(copy, bytes);
    pthread_mutex_lock(&mock.lock);
    m->next = modules;
    modules = m;
    pthread_mutex_unlock(&mock.lock);
    *mod = m;
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
    if (r != CU_OK && r != CU_ERR_INVALID_CONTEXT && r != CU_ERR_CONTEXT_IS_DESTROYED) {
        char line[96];
        snprintf(line, sizeof line, "[mock] cuModuleLoadDataEx: image rejected with %u", r);
        mock_log(line);
        for (unsigned int i = 0; i + 1 < n; i++)
            if (options[i] == CU_JITOPT_ERROR_LOG_BUFFER && options[i + 1] == CU_JITOPT_ERROR_LOG_BUFFER_SIZE_BYTES)
                snprintf(values[i], (size_t)(uintptr_t)values[i + 1], "mock JIT: image rejected with %u", r);
    }
    return r;
}

/* As the driver: CUDA_MODULE_LOADING=EAGER or LAZY, else lazy from CUDA
 * 12.2 on and eager before (CU_MODULE_EAGER_LOADING 1, _LAZY_LOADING 2). */
cu_result cuModuleGetLoadingMode(cu_enum *mode)
{
    ENTER("cuModuleGetLoadingMode");
    if (!mode)
        return CU_ERR_INVALID_VALUE;
    if (!__atomic_load_n(&mock.initialised, __ATOMIC_ACQUIRE))
        return CU_ERR_NOT_INITIALIZED;
    const char *v = getenv("CUDA_MODULE_LOADING");
    if (v && strcmp(v, "EAGER") == 0)
        *mode = 1;
    else if (v && strcmp(v, "LAZY") == 0)
        *mode = 2;
    else
        *mode = mock.version >= 12020 ? 2 : 1;
    return CU_OK;
}

cu_result cuModuleUnload(cu_module mod)
{
    ENTER("cuModuleUnload");
    NEED_CONTEXT();
    struct CUmod_st *found = NULL;
    pthread_mutex_lock(&mock.lock);
    MOCK_LIST_UNLINK_IF(struct CUmod_st, modules, x, !found && x == mod, found = x);
    if (found)
        module_free(found);
    pthread_mutex_unlock(&mock.lock);
    return found ? CU_OK : CU_ERR_INVALID_HANDLE;
}

/* ------------------------------------------------------------- PTX reading */

/* Where the parameter list of ".entry NAME(" starts in text, or NULL. */
static const char *find_entry(const char *text, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = strstr(text, ".entry"); p; p = strstr(p + 6, ".entry")) {
        const char *q = p + 6;
        while (*q == ' ' || *q == '\t')
            q++;
        if (strncmp(q, name, n) == 0 && q[n] == '(')
            return q + n + 1;
    }
    return NULL;
}

/* A real CUBIN has a code section ".text.NAME" for each kernel. */
static int cubin_names(const struct CUmod_st *mod, const char *name)
{
    char section[300];
    int len = snprintf(section, sizeof section, ".text.%s", name);
    if (len < 0 || (size_t)len >= sizeof section)
        return 0;
    size_t n = (size_t)len + 1; /* with its NUL */
    for (size_t i = 0; i + n <= mod->image_bytes; i++)
        if (memcmp(mod->image + i, section, n) == 0)
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

/* Bytes and alignment of one declaration "[.align A] .TYPE name[[N]]" in
 * [from, to), as a .param or .shared. */
static size_t declared_size(const char *from, const char *to, size_t *align)
{
    size_t size = 0, count = 1;
    *align = 0;
    for (const char *t = from; t < to; t++) {
        if (*t == '.' && !size)
            size = ptx_type_size(t);
        if (strncmp(t, ".align ", 7) == 0)
            *align = strtoul(t + 7, NULL, 10);
        if (*t == '[')
            count = strtoul(t + 1, NULL, 10);
    }
    if (!*align)
        *align = size ? size : 1;
    return size * count;
}

static size_t align_up(size_t n, size_t align)
{
    return (n + align - 1) / align * align;
}

/* Reads an entry of the text as the driver knows it: its parameters (with
 * cuFuncGetParamInfo's offsets and sizes), the thread limit of .maxntid or
 * .reqntid (0: none) and the static .shared bytes of its body. */
static void read_entry(const char *params, struct CUfunc_st *fn, int *max_threads, int *static_shared)
{
    *max_threads = 0;
    *static_shared = 0;
    const char *end = strchr(params, ')');
    if (!end)
        return;
    fn->n_params = 0;
    size_t offset = 0;
    for (const char *p = strstr(params, ".param"); p && p < end && fn->n_params < MOCK_MAX_PARAMS;) {
        const char *next = strstr(p + 6, ".param");
        const char *stop = next && next < end ? next : end;
        size_t align, size = declared_size(p + 6, stop, &align);
        offset = align_up(offset, align);
        fn->param_offset[fn->n_params] = offset;
        fn->param_size[fn->n_params] = size;
        offset += size;
        fn->n_params++;
        p = next;
    }
    const char *body = strchr(end, '{');
    if (!body)
        return;
    /* performance directives sit between the parameters and the body */
    for (const char *d = end; d < body; d++)
        if (strncmp(d, ".maxntid", 8) == 0 || strncmp(d, ".reqntid", 8) == 0) {
            long threads = 1;
            char *after = (char *)d + 8;
            for (int k = 0; k < 3; k++) {
                long v = strtol(after, &after, 10);
                threads *= v > 0 ? v : 1;
                while (*after == ' ' || *after == ',')
                    after++;
                if (!isdigit((unsigned char)*after))
                    break;
            }
            *max_threads = threads < MOCK_MAX_THREADS_PER_BLOCK ? (int)threads : MOCK_MAX_THREADS_PER_BLOCK;
        }
    int braces = 0;
    size_t shared = 0;
    for (const char *b = body; *b; b++) {
        if (*b == '{')
            braces++;
        else if (*b == '}' && --braces == 0)
            break;
        else if (strncmp(b, ".shared", 7) == 0 && isspace((unsigned char)b[-1])) { /* a declaration, not ld.shared */
            const char *semi = strchr(b, ';');
            if (!semi)
                break;
            size_t align, size = declared_size(b + 7, semi, &align);
            shared = align_up(shared, align) + size;
            b = semi;
        }
    }
    *static_shared = shared < (size_t)MOCK_SHARED_PER_BLOCK_OPTIN ? (int)shared : MOCK_SHARED_PER_BLOCK_OPTIN;
}

/* "sm_XY" of the text's .target as XY, or 0. */
static int ptx_target(const char *text)
{
    const char *t = strstr(text, ".target");
    if (!t)
        return 0;
    t += 7;
    while (*t == ' ' || *t == '\t')
        t++;
    return strncmp(t, "sm_", 3) == 0 ? atoi(t + 3) : 0;
}

/* ----------------------------------------------------------------- kernels */

/* A kernel is found when the image has it; it can be launched only if the
 * mock has a host version of it (mock_launch.c). */
cu_result cuModuleGetFunction(cu_function *fn, cu_module mod, const char *name)
{
    ENTER("cuModuleGetFunction");
    NEED_CONTEXT();
    if (!fn || !name)
        return CU_ERR_INVALID_VALUE;
    pthread_mutex_lock(&mock.lock);
    struct CUmod_st *m = module_live_locked(mod);
    cu_result r = m ? CU_OK : CU_ERR_INVALID_HANDLE;
    for (int i = 0; m && i < m->n_functions; i++)
        if (strcmp(m->functions[i]->name, name) == 0) {
            *fn = m->functions[i];
            pthread_mutex_unlock(&mock.lock);
            return CU_OK;
        }
    const char *params = m && m->text ? find_entry(m->text, name) : NULL;
    if (r == CU_OK && !params && (m->text || !cubin_names(m, name)))
        r = CU_ERR_NOT_FOUND;
    if (r == CU_OK && m->n_functions == MAX_MODULE_FUNCTIONS)
        r = CU_ERR_OUT_OF_MEMORY;
    struct CUfunc_st *f = r == CU_OK ? calloc(1, sizeof *f) : NULL;
    char *copy = f ? strdup(name) : NULL;
    if (r == CU_OK && !copy) {
        free(f);
        r = CU_ERR_OUT_OF_MEMORY;
    }
    if (r != CU_OK) {
        pthread_mutex_unlock(&mock.lock);
        return r;
    }
    f->name = copy;
    f->module = m;
    f->n_params = -1;
    int max_threads = 0, static_shared = 0;
    if (params)
        read_entry(params, f, &max_threads, &static_shared);
    if (!max_threads)
        max_threads = strstr(name, "bounded") ? MOCK_BOUNDED_THREADS : MOCK_MAX_THREADS_PER_BLOCK;
    int cc = mock.devices[m->ctx->device].cc;
    int target = m->text ? ptx_target(m->text) : 0;
    int *a = f->attributes;
    a[0] = max_threads;                                                          /* MAX_THREADS_PER_BLOCK */
    a[1] = static_shared;                                                        /* SHARED_SIZE_BYTES */
    a[4] = MOCK_KERNEL_REGISTERS;                                                /* NUM_REGS */
    a[5] = target ? target : cc;                                                 /* PTX_VERSION */
    a[6] = cc;                                                                   /* BINARY_VERSION */
    a[8] = static_shared < MOCK_SHARED_PER_BLOCK ? MOCK_SHARED_PER_BLOCK - static_shared : 0; /* MAX_DYNAMIC_SHARED */
    a[9] = -1;                                                                   /* CARVEOUT: default */
    /* 2 CONST, 3 LOCAL, 7 CACHE_MODE_CA, 10-15 cluster attributes: 0 */
    m->functions[m->n_functions++] = f;
    pthread_mutex_unlock(&mock.lock);
    *fn = f;
    return CU_OK;
}

cu_result cuModuleGetGlobal_v2(cu_deviceptr *ptr, size_t *bytes, cu_module mod, const char *name)
{
    ENTER("cuModuleGetGlobal_v2");
    (void)ptr, (void)bytes, (void)mod, (void)name;
    return CU_ERR_NOT_FOUND;
}

/* ---------------------------------------------------------------- functions */

cu_result cuFuncGetAttribute(int *value, cu_enum attrib, cu_function fn)
{
    ENTER("cuFuncGetAttribute");
    NEED_CONTEXT();
    struct CUfunc_st *f = function_live(fn);
    if (!f)
        return CU_ERR_INVALID_HANDLE;
    if (!value || attrib >= MOCK_FUNC_ATTRIBUTES)
        return CU_ERR_INVALID_VALUE;
    pthread_mutex_lock(&mock.lock);
    *value = f->attributes[attrib];
    pthread_mutex_unlock(&mock.lock);
    return CU_OK;
}

/* The settable attributes, with the driver's bounds where the mock knows
 * them; the others are read-only (INVALID_VALUE). */
cu_result cuFuncSetAttribute(cu_function fn, cu_enum attrib, int value)
{
    ENTER("cuFuncSetAttribute");
    NEED_CONTEXT();
    struct CUfunc_st *f = function_live(fn);
    if (!f)
        return CU_ERR_INVALID_HANDLE;
    pthread_mutex_lock(&mock.lock);
    int ok;
    switch (attrib) {
    case 8: /* MAX_DYNAMIC_SHARED_SIZE_BYTES: with the static part, up to the opt-in maximum */
        ok = value >= 0 && value <= MOCK_SHARED_PER_BLOCK_OPTIN - f->attributes[1];
        break;
    case 9: /* PREFERRED_SHARED_MEMORY_CARVEOUT: -1 (default) or a percentage */
        ok = value >= -1 && value <= 100;
        break;
    case 11: case 12: case 13: /* REQUIRED_CLUSTER_WIDTH, _HEIGHT, _DEPTH */
    case 14:                   /* NON_PORTABLE_CLUSTER_SIZE_ALLOWED */
    case 15:                   /* CLUSTER_SCHEDULING_POLICY_PREFERENCE */
        ok = value >= 0;
        break;
    default:
        ok = 0;
    }
    if (ok)
        f->attributes[attrib] = value;
    pthread_mutex_unlock(&mock.lock);
    return ok ? CU_OK : CU_ERR_INVALID_VALUE;
}

cu_result cuFuncGetParamInfo(cu_function fn, size_t index, size_t *offset, size_t *size)
{
    ENTER("cuFuncGetParamInfo");
    struct CUfunc_st *f = function_live(fn);
    if (!f)
        return CU_ERR_INVALID_HANDLE;
    if (f->n_params < 0)
        return CU_ERR_NOT_SUPPORTED; /* a real CUBIN: the mock cannot read its parameters */
    if (index >= (size_t)f->n_params) {
        pthread_mutex_lock(&mock.lock);
        mock.refused_param_info++;
        pthread_mutex_unlock(&mock.lock);
        return CU_ERR_INVALID_VALUE;
    }
    if (offset)
        *offset = f->param_offset[index];
    if (size)
        *size = f->param_size[index];
    return CU_OK;
}

cu_result cuFuncGetName(const char **name, cu_function fn)
{
    ENTER("cuFuncGetName");
    struct CUfunc_st *f = function_live(fn);
    if (!f)
        return CU_ERR_INVALID_HANDLE;
    *name = f->name;
    return CU_OK;
}

cu_result cuFuncGetModule(cu_module *mod, cu_function fn)
{
    ENTER("cuFuncGetModule");
    struct CUfunc_st *f = function_live(fn);
    if (!f)
        return CU_ERR_INVALID_HANDLE;
    if (!mod)
        return CU_ERR_INVALID_VALUE;
    *mod = f->module;
    return CU_OK;
}
