/*
 * compile.c - run-time compilation of CUDA C++ with NVRTC for the device at
 * hand (target choice in target.c), through the persistent cache
 * (cache.c), and loading with fallback: a PTX image the driver finds too
 * new (222) is rebuilt as CUBIN, a CUBIN with no code for the GPU (209) as
 * PTX where the driver can JIT it.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cache.h"
#include "internal.h"
#include "target.h"

#define MAX_ARCHS 64
#define MAX_OPTIONS 1000
#define MAX_NAMES 1000

struct cudyn_program {
    /* inputs, kept so a load failure can rebuild for another target */
    char *source;
    char *name;
    char **options;
    int num_options;
    char **expressions;
    int num_expressions;
    int device;
    int cc;
    int archs[MAX_ARCHS];
    size_t n_archs;
    /* what was built */
    struct cudyn__target target;
    unsigned char key[CUDYN_SHA256_BYTES];
    bool from_cache;
    struct cudyn__cache_entry out; /* image, PTX, log, lowered names */
};

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
    free(prog->source);
    free(prog->name);
    free_strings(prog->options, prog->num_options);
    free_strings(prog->expressions, prog->num_expressions);
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

/* ------------------------------------------------------------ preparing */

static char **copy_strings(const char *const *v, int n, bool *ok)
{
    *ok = true;
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

/* NVRTC's architectures; NVRTC before 11.2 cannot list them, and is then
 * trusted with the device's own. */
static size_t supported_archs(int cc, int *archs)
{
    int n = 0;
    if (NVRTC_HAS(nvrtcGetNumSupportedArchs) && cudyn__nvrtc.nvrtcGetNumSupportedArchs(&n) == NVRTC_OK && n > 0 &&
        n <= MAX_ARCHS && cudyn__nvrtc.nvrtcGetSupportedArchs(archs) == NVRTC_OK)
        return (size_t)n;
    archs[0] = cc;
    return 1;
}

/* "-I<toolkit>/include" when the toolkit's headers sit next to NVRTC, so
 * #include <cuda_fp16.h> works as it does with nvcc. */
static bool toolkit_include_option(char *out, size_t cap)
{
    const char *dir = cudyn__nvrtc_dir();
    if (!dir)
        return false;
    char probe[4200];
    snprintf(probe, sizeof probe, "%s/../include/cuda_fp16.h", dir);
    struct stat st;
    if (stat(probe, &st) != 0)
        return false;
    snprintf(out, cap, "-I%s/../include", dir);
    return true;
}

/* The options NVRTC gets: the caller's, then the target and include dir. */
struct option_list {
    const char *v[MAX_OPTIONS + 2];
    int n;
    char arch[64];
    char include[4200];
};

/* add_arch: append --gpu-architecture for the chosen target (the caller
 * did not name one, or a rebuild overrides it); drop_callers_arch: leave
 * out the caller's own target options (a rebuild for another target). */
static void build_options(const struct cudyn_program *prog, bool add_arch, bool drop_callers_arch,
                          struct option_list *o)
{
    o->n = 0;
    for (int i = 0; i < prog->num_options; i++) {
        const char *opt = prog->options[i];
        bool is_arch = strncmp(opt, "--gpu-architecture", 18) == 0 || strncmp(opt, "-arch", 5) == 0;
        if (drop_callers_arch && is_arch) {
            if (!strchr(opt, '='))
                i++; /* "-arch X": the value goes too */
            continue;
        }
        o->v[o->n++] = opt;
    }
    if (add_arch) {
        snprintf(o->arch, sizeof o->arch, "--gpu-architecture=%s", prog->target.name);
        o->v[o->n++] = o->arch;
    }
    if (toolkit_include_option(o->include, sizeof o->include))
        o->v[o->n++] = o->include;
}

static void hash_text(struct cudyn__sha256 *h, const char *s)
{
    uint64_t n = strlen(s);
    cudyn__sha256_update(h, &n, sizeof n); /* length-prefixed: no ambiguity */
    cudyn__sha256_update(h, s, (size_t)n);
}

/* The cache key: every input that changes what NVRTC produces. */
static void compute_key(struct cudyn_program *prog, const struct option_list *o)
{
    struct cudyn__sha256 h;
    cudyn__sha256_init(&h);
    hash_text(&h, "cudyn kernel cache, format 1");
    char nvrtc_id[4400];
    struct cudyn_loader_info l = {.size = sizeof l};
    cudyn_loader_info(&l);
    struct stat st = {0};
    if (l.nvrtc_path)
        stat(l.nvrtc_path, &st);
    snprintf(nvrtc_id, sizeof nvrtc_id, "%d %s %lld %lld", l.nvrtc_version, l.nvrtc_path ? l.nvrtc_path : "",
             (long long)st.st_size, (long long)st.st_mtime);
    hash_text(&h, nvrtc_id);
    hash_text(&h, prog->target.name);
    hash_text(&h, prog->name);
    for (int i = 0; i < o->n; i++)
        hash_text(&h, o->v[i]);
    hash_text(&h, "--");
    for (int i = 0; i < prog->num_expressions; i++)
        hash_text(&h, prog->expressions[i]);
    hash_text(&h, prog->source);
    cudyn__sha256_final(&h, prog->key);
}

/* ------------------------------------------------------------- building */

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

static int fetch_output(const char *api, nvrtc_program p, struct cudyn_program *prog)
{
    struct cudyn__cache_entry *e = &prog->out;
    size_t size = 0;
    if (prog->target.cubin) {
        nvrtc_result r = cudyn__nvrtc.nvrtcGetCUBINSize(p, &size);
        if (r != NVRTC_OK)
            return cudyn__fail_nvrtc(r, "nvrtcGetCUBINSize", api, NULL);
        if (!(e->image = malloc(size ? size : 1)))
            return cudyn__fail_oom(api);
        r = cudyn__nvrtc.nvrtcGetCUBIN(p, (char *)e->image);
        if (r != NVRTC_OK)
            return cudyn__fail_nvrtc(r, "nvrtcGetCUBIN", api, NULL);
        e->image_size = size;
    }
    /* PTX exists for compute_ targets; for sm_ targets NVRTC may keep none. */
    if (cudyn__nvrtc.nvrtcGetPTXSize(p, &size) == NVRTC_OK && size > 0) {
        e->ptx = malloc(size);
        if (e->ptx && cudyn__nvrtc.nvrtcGetPTX(p, (char *)e->ptx) == NVRTC_OK) {
            e->ptx_size = size;
        } else {
            free(e->ptx);
            e->ptx = NULL;
        }
    }
    if (!prog->target.cubin) {
        if (!e->ptx)
            return cudyn__fail(CUDYN_ERROR_NVRTC, CUDYN_ORIGIN_NVRTC, 0, NULL, "nvrtcGetPTX", NULL,
                              "%s: NVRTC produced no PTX for %s", api, prog->target.name);
        e->image = e->ptx;
        e->image_size = e->ptx_size;
    }
    for (int i = 0; i < prog->num_expressions; i++) {
        const char *lowered = NULL;
        nvrtc_result r = cudyn__nvrtc.nvrtcGetLoweredName(p, prog->expressions[i], &lowered);
        if (r != NVRTC_OK)
            return cudyn__fail_nvrtc(r, "nvrtcGetLoweredName", api, prog->expressions[i]);
        if (cudyn__names_add(&e->names, prog->expressions[i], lowered) != 0)
            return cudyn__fail_oom(api);
    }
    return CUDYN_OK;
}

static int run_nvrtc(const char *api, struct cudyn_program *prog, const struct option_list *o)
{
    nvrtc_program p = NULL;
    nvrtc_result r = cudyn__nvrtc.nvrtcCreateProgram(&p, prog->source, prog->name, 0, NULL, NULL);
    if (r != NVRTC_OK)
        return cudyn__fail_nvrtc(r, "nvrtcCreateProgram", api, NULL);
    int st = CUDYN_OK;
    for (int i = 0; i < prog->num_expressions && st == CUDYN_OK; i++) {
        r = cudyn__nvrtc.nvrtcAddNameExpression(p, prog->expressions[i]);
        if (r != NVRTC_OK)
            st = cudyn__fail_nvrtc(r, "nvrtcAddNameExpression", api, prog->expressions[i]);
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
            cudyn__error_append(" (%s for %s: %s)", prog->name, prog->target.name, first[0] ? first : "no log");
        }
    }
    cudyn__nvrtc.nvrtcDestroyProgram(&p);
    return st;
}

/* Chooses the target (or takes `override`), the options and the key. */
static int prepare(const char *api, struct cudyn_program *prog, const char *override, struct option_list *o)
{
    const char *forced = override;
    if (!forced)
        forced = cudyn__forced_target((const char *const *)prog->options, prog->num_options);
    if (cudyn__choose_target(prog->cc, prog->archs, prog->n_archs, cudyn__nvrtc_version_loaded(),
                            cudyn__driver_version_loaded(), forced, &prog->target) != 0)
        return cudyn__fail(CUDYN_ERROR_UNSUPPORTED_ARCH, CUDYN_ORIGIN_LIBRARY, 0, NULL, api, NULL, "%s: device %d: %s", api,
                          prog->device, prog->target.why);
    if (prog->target.cubin && !NVRTC_HAS(nvrtcGetCUBIN)) {
        /* NVRTC before 11.1 makes PTX only. */
        prog->target.cubin = false;
        snprintf(prog->target.name, sizeof prog->target.name, "compute_%d", prog->target.arch);
    }
    const bool callers_target = forced != NULL && override == NULL;
    build_options(prog, !callers_target, override != NULL, o);
    compute_key(prog, o);
    return CUDYN_OK;
}

/* The program's image: from the cache, else from NVRTC (then cached). */
static int obtain(const char *api, struct cudyn_program *prog, const struct option_list *o)
{
    cudyn__cache_entry_free(&prog->out);
    if (cudyn__cache_load(prog->key, &prog->out) == 0 && strcmp(prog->out.target, prog->target.name) == 0) {
        prog->from_cache = true;
        cudyn__debug("compile %s for %s: cache hit", prog->name, prog->target.name);
        return CUDYN_OK;
    }
    cudyn__cache_entry_free(&prog->out);
    prog->from_cache = false;
    int st = run_nvrtc(api, prog, o);
    if (st == CUDYN_OK) {
        snprintf(prog->out.target, sizeof prog->out.target, "%s", prog->target.name);
        prog->out.arch = prog->target.arch;
        prog->out.cubin = prog->target.cubin;
        cudyn__cache_store(prog->key, &prog->out);
    }
    return st;
}

static int device_cc(const char *api, int device, int *cc)
{
    int major = 0, minor = 0;
    int st = cudyn_device_attribute(device, CUDYN_ATTR_COMPUTE_CAPABILITY_MAJOR, &major);
    if (st == CUDYN_OK)
        st = cudyn_device_attribute(device, CUDYN_ATTR_COMPUTE_CAPABILITY_MINOR, &minor);
    if (st != CUDYN_OK)
        cudyn__error_append(" (while %s read the device's compute capability)", api);
    *cc = major * 10 + minor;
    return st;
}

static int check_list(const char *api, const char *what, const char *count_name, const char *const *v, int n,
                      int max)
{
    if (n < 0 || n > max)
        return cudyn__fail_arg(api, count_name, "is negative or too large");
    if (n > 0 && !v)
        return cudyn__fail_arg(api, what, "must not be NULL when its count is positive");
    for (int i = 0; i < n; i++)
        if (!v[i])
            return cudyn__fail_arg(api, what, "contains a NULL entry");
    return CUDYN_OK;
}

/* A new program holding copies of the inputs, for `device`. */
static int new_program(const char *api, struct cudyn_program **out, const char *source, const char *name,
                       int device, const char *const *options, int num_options, const char *const *expressions,
                       int num_expressions)
{
    *out = NULL;
    int cc = 0;
    int st = device_cc(api, device, &cc);
    if (st != CUDYN_OK)
        return st;
    st = cudyn__need_nvrtc();
    if (st != CUDYN_OK)
        return st;
    struct cudyn_program *prog = calloc(1, sizeof *prog);
    if (!prog)
        return cudyn__fail_oom(api);
    bool ok1, ok2;
    prog->source = strdup(source);
    prog->name = strdup(name ? name : "kernel.cu");
    prog->options = copy_strings(options, num_options, &ok1);
    prog->num_options = num_options;
    prog->expressions = copy_strings(expressions, num_expressions, &ok2);
    prog->num_expressions = num_expressions;
    prog->device = device;
    prog->cc = cc;
    prog->n_archs = supported_archs(cc, prog->archs);
    if (!prog->source || !prog->name || !ok1 || !ok2) {
        cudyn_program_free(prog);
        return cudyn__fail_oom(api);
    }
    *out = prog;
    return CUDYN_OK;
}

/* Prepares and obtains; on a compile error the program (with its log) is
 * still handed out. */
static int build(const char *api, struct cudyn_program *prog, const char *override)
{
    struct option_list o;
    int st = prepare(api, prog, override, &o);
    if (st == CUDYN_OK)
        st = obtain(api, prog, &o);
    return st;
}

CUDYN_API int cudyn_compile_names(cudyn_program **out, const char *source, const char *name, int device,
                                  const char *const *options, int num_options, const char *const *name_expressions,
                                  int num_names)
{
    static const char api[] = "cudyn_compile";
    if (!out)
        return cudyn__fail_arg(api, "out", "must not be NULL");
    *out = NULL;
    if (!source)
        return cudyn__fail_arg(api, "source", "must not be NULL");
    int st = check_list(api, "options", "num_options", options, num_options, MAX_OPTIONS);
    if (st == CUDYN_OK)
        st = check_list(api, "name_expressions", "num_names", name_expressions, num_names, MAX_NAMES);
    if (st != CUDYN_OK)
        return st;
    struct cudyn_program *prog = NULL;
    st = new_program(api, &prog, source, name, device, options, num_options, name_expressions, num_names);
    if (st != CUDYN_OK)
        return st;
    st = build(api, prog, NULL);
    if (st == CUDYN_OK || st == CUDYN_ERROR_COMPILE)
        *out = prog; /* a failed compile still hands over its log */
    else
        cudyn_program_free(prog);
    return st;
}

CUDYN_API int cudyn_compile(cudyn_program **out, const char *source, const char *name, int device,
                            const char *const *options, int num_options)
{
    return cudyn_compile_names(out, source, name, device, options, num_options, NULL, 0);
}

/* ------------------------------------------------------------- loading */

/* The target a load failure calls for, or NULL if none can help. */
static const char *fallback_target(const struct cudyn_program *prog, int status, char *buf, size_t cap)
{
    struct cudyn__target t;
    if (status == CUDYN_ERROR_UNSUPPORTED_PTX && !prog->target.cubin) {
        /* PTX too new for the driver: SASS for this GPU needs no JIT */
        if (cudyn__choose_target(prog->cc, prog->archs, prog->n_archs, 0, 0, NULL, &t) == 0 && t.cubin) {
            snprintf(buf, cap, "%s", t.name);
            return buf;
        }
    } else if (status == CUDYN_ERROR_NO_BINARY_FOR_GPU && prog->target.cubin) {
        /* SASS for the wrong GPU: PTX of the best arch at or below cc, if
         * the driver is new enough to JIT NVRTC's PTX */
        int best = 0;
        for (size_t i = 0; i < prog->n_archs; i++)
            if (prog->archs[i] <= prog->cc && prog->archs[i] > best)
                best = prog->archs[i];
        if (best && cudyn__driver_version_loaded() >= cudyn__nvrtc_version_loaded()) {
            snprintf(buf, cap, "compute_%d", best);
            return buf;
        }
    }
    return NULL;
}

static bool image_rejected(int status)
{
    return status == CUDYN_ERROR_UNSUPPORTED_PTX || status == CUDYN_ERROR_NO_BINARY_FOR_GPU ||
           status == CUDYN_ERROR_INVALID_IMAGE;
}

/* Ends a load error with what a person needs to decide what to do. */
static void append_load_context(const struct cudyn_program *prog, const char *rebuilt_for)
{
    char list[200] = "";
    for (size_t i = 0; i < prog->n_archs; i++)
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s%d", i ? " " : "", prog->archs[i]);
    cudyn__error_append(" (device %d has compute capability %d.%d; tried %s%s%s; NVRTC %d.%d supports %s)",
                       prog->device, prog->cc / 10, prog->cc % 10, prog->target.name,
                       rebuilt_for ? ", then " : "", rebuilt_for ? rebuilt_for : "", cudyn__nvrtc_version_loaded() / 1000,
                       cudyn__nvrtc_version_loaded() % 1000 / 10, list);
}

/* Loads prog (rebuilding once for another target if the driver rejects
 * it); *built receives the program actually loaded (prog itself, or a
 * rebuilt copy the caller frees). */
static int load_with_fallback(const char *api, const struct cudyn_program *prog, cu_module *mod,
                              struct cudyn_program **rebuilt)
{
    *rebuilt = NULL;
    int st = cudyn__load_image(api, mod, prog->out.image);
    if (st == CUDYN_OK || !image_rejected(st))
        return st;
    if (prog->from_cache)
        cudyn__cache_remove(prog->key); /* never hand out a rejected image again */
    char target[32];
    if (!fallback_target(prog, st, target, sizeof target)) {
        append_load_context(prog, NULL);
        return st;
    }
    cudyn_error first;
    cudyn__error_save(&first);
    cudyn__debug("load of %s for %s failed (%s); rebuilding for %s", prog->name, prog->target.name,
                first.native_name, target);
    struct cudyn_program *again = NULL;
    int st2 = new_program(api, &again, prog->source, prog->name, prog->device,
                          (const char *const *)prog->options, prog->num_options,
                          (const char *const *)prog->expressions, prog->num_expressions);
    if (st2 == CUDYN_OK)
        st2 = build(api, again, target);
    if (st2 == CUDYN_OK)
        st2 = cudyn__load_image(api, mod, again->out.image);
    if (st2 != CUDYN_OK) {
        cudyn_program_free(again);
        cudyn__error_restore(&first);
        append_load_context(prog, target);
        return st;
    }
    *rebuilt = again;
    return CUDYN_OK;
}

CUDYN_API int cudyn_module_load(cudyn_module *out, const cudyn_program *prog)
{
    static const char api[] = "cudyn_module_load";
    if (!out)
        return cudyn__fail_arg(api, "out", "must not be NULL");
    *out = NULL;
    if (!prog)
        return cudyn__fail_arg(api, "prog", "must not be NULL");
    if (!prog->out.image)
        return cudyn__fail_arg(api, "prog", "has no image (its compilation failed)");
    cu_module mod = NULL;
    struct cudyn_program *rebuilt = NULL;
    int st = load_with_fallback(api, prog, &mod, &rebuilt);
    const struct cudyn_program *loaded = rebuilt ? rebuilt : prog;
    if (st == CUDYN_OK)
        st = cudyn__module_wrap(api, mod, &loaded->out.names, (const char *)loaded->out.ptx, loaded->out.ptx_size, NULL,
                                out);
    cudyn_program_free(rebuilt);
    return st;
}

CUDYN_API int cudyn_module_load_source(cudyn_module *out, const char *source, const char *const *options,
                                       int num_options)
{
    static const char api[] = "cudyn_module_load_source";
    if (!out)
        return cudyn__fail_arg(api, "out", "must not be NULL");
    *out = NULL;
    if (!source)
        return cudyn__fail_arg(api, "source", "must not be NULL");
    int st = check_list(api, "options", "num_options", options, num_options, MAX_OPTIONS);
    int device = 0;
    if (st == CUDYN_OK)
        st = cudyn_device_current(&device);
    if (st != CUDYN_OK)
        return st;

    struct cudyn_program *prog = NULL;
    st = new_program(api, &prog, source, "kernel.cu", device, options, num_options, NULL, 0);
    struct option_list o;
    if (st == CUDYN_OK)
        st = prepare(api, prog, NULL, &o);
    /* the same source and options in this context: the same module */
    if (st == CUDYN_OK && cudyn__module_find_shared(prog->key, out)) {
        cudyn_program_free(prog);
        return CUDYN_OK;
    }
    if (st == CUDYN_OK)
        st = obtain(api, prog, &o);
    cu_module mod = NULL;
    struct cudyn_program *rebuilt = NULL;
    if (st == CUDYN_OK)
        st = load_with_fallback(api, prog, &mod, &rebuilt);
    const struct cudyn_program *loaded = rebuilt ? rebuilt : prog;
    if (st == CUDYN_OK)
        st = cudyn__module_wrap(api, mod, &loaded->out.names, (const char *)loaded->out.ptx, loaded->out.ptx_size,
                                prog->key, out);
    cudyn_program_free(rebuilt);
    cudyn_program_free(prog);
    return st;
}
