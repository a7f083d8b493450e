/*
 * module_source.c - loading compiled programs (cudyn_module_load) and
 * compiling and loading in one call (cudyn_module_load_source, PyCUDA's
 * SourceModule), with rebuilds when the driver rejects an image:
 *  - an image from the cache (maybe built by another NVRTC) is rebuilt
 *    for the target NVRTC chooses now;
 *  - a fresh image the driver finds too new (222, PTX) is rebuilt as CUBIN
 *    for the GPU, one with no code for the GPU (209, CUBIN) as PTX where
 *    the driver can JIT it.
 * Each rebuild needs NVRTC and replaces the cache entry.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compile/cubin.h"
#include "compile/program.h"
#include "module/module.h"

static bool image_rejected(int status)
{
    return status == CUDYN_ERROR_UNSUPPORTED_PTX || status == CUDYN_ERROR_NO_BINARY_FOR_GPU ||
           status == CUDYN_ERROR_INVALID_IMAGE;
}

/* The target a load failure of a fresh image calls for, or NULL. */
static const char *fallback_target(const struct cudyn_program *prog, int status, char *buf, size_t cap)
{
    int archs[CUDYN_MAX_ARCHS];
    size_t n = cudyn__nvrtc_archs(prog->cc, archs);
    struct cudyn__target t;
    if (status == CUDYN_ERROR_UNSUPPORTED_PTX && !prog->target.cubin) {
        /* PTX too new for the driver: SASS for this GPU needs no JIT */
        if (cudyn__choose_target(prog->cc, archs, n, 0, 0, NULL, &t) == 0 && t.cubin) {
            snprintf(buf, cap, "%s", t.name);
            return buf;
        }
    } else if (status == CUDYN_ERROR_NO_BINARY_FOR_GPU && prog->target.cubin) {
        /* SASS for the wrong GPU: PTX of the best arch at or below cc, if
         * the driver is new enough to JIT NVRTC's PTX */
        int best = 0;
        for (size_t i = 0; i < n; i++)
            if (archs[i] <= prog->cc && archs[i] > best)
                best = archs[i];
        if (best && cudyn__driver_version_loaded() >= cudyn__nvrtc_version_loaded()) {
            snprintf(buf, cap, "compute_%d", best);
            return buf;
        }
    }
    return NULL;
}

/* Ends a load error with what a person needs to decide what to do. */
static void append_load_context(const struct cudyn_program *prog, const char *tried)
{
    if (prog->cc == 0) {
        cudyn__error_append(" (%s was compiled without a device; nothing to rebuild it for)", prog->target.name);
        return;
    }
    int nv = cudyn__nvrtc_version_loaded();
    char nvrtc[240] = "no NVRTC to rebuild it";
    if (nv) {
        int archs[CUDYN_MAX_ARCHS];
        size_t n = cudyn__nvrtc_archs(prog->cc, archs);
        int len = snprintf(nvrtc, sizeof nvrtc, "NVRTC %d.%d supports", nv / 1000, nv % 1000 / 10);
        for (size_t i = 0; i < n && len > 0 && (size_t)len < sizeof nvrtc; i++)
            len += snprintf(nvrtc + len, sizeof nvrtc - (size_t)len, " %d", archs[i]);
    }
    cudyn__error_append(" (device %d has compute capability %d.%d; tried %s%s; %s)", prog->device, prog->cc / 10,
                        prog->cc % 10, prog->target.name, tried, nvrtc);
}

/* The rebuild a rejected image calls for; -1 when none can help. */
static int rebuild_after(const char *api, const struct cudyn_program *cur, int status, struct cudyn_program **next)
{
    if (cur->cc == 0 || cudyn__need_nvrtc() != CUDYN_OK)
        return -1;
    char buf[32];
    const char *target = NULL;
    if (!cur->from_cache && !(target = fallback_target(cur, status, buf, sizeof buf)))
        return -1;
    cudyn__debug("load of %s for %s failed (%s); rebuilding for %s", cur->in.name, cur->target.name,
                 cudyn_status_name(status), target ? target : "the target NVRTC chooses now");
    return cudyn__program_rebuild(api, cur, target, next) == CUDYN_OK ? 0 : -1;
}

/* Loads prog, rebuilding at most twice when the driver rejects the image;
 * *rebuilt receives the program actually loaded when it is not prog (the
 * caller frees it).  A failure keeps the first load error. */
static int load_with_fallback(const char *api, const struct cudyn_program *prog, cu_module *mod,
                              struct cudyn_program **rebuilt)
{
    *rebuilt = NULL;
    int st = cudyn__load_image(api, mod, prog->out.image);
    if (st == CUDYN_OK || !image_rejected(st))
        return st;
    cudyn_error first;
    cudyn__error_save(&first);
    const struct cudyn_program *cur = prog;
    char tried[128] = "";
    for (int attempt = 0; attempt < 2 && st != CUDYN_OK && image_rejected(st); attempt++) {
        if (cur->from_cache)
            cudyn__cache_remove(cur->entry_key); /* never hand out a rejected image again */
        struct cudyn_program *next = NULL;
        if (rebuild_after(api, cur, st, &next) != 0)
            break;
        snprintf(tried + strlen(tried), sizeof tried - strlen(tried), ", then %s", next->target.name);
        st = cudyn__load_image(api, mod, next->out.image);
        cudyn_program_free(*rebuilt);
        *rebuilt = next;
        cur = next;
    }
    if (st == CUDYN_OK)
        return CUDYN_OK;
    cudyn_program_free(*rebuilt);
    *rebuilt = NULL;
    cudyn__error_restore(&first);
    append_load_context(prog, tried);
    return first.status;
}

/* The kernels' interface of a built program: from its PTX, or, where NVRTC
 * gave none (a CUBIN target of an NVRTC before 12), from the CUBIN's own
 * parameter records (*owned is then that malloc'd text, for the caller to
 * free), so the driver is asked about no parameter past the last. */
static const char *interface_of(const struct cudyn_program *p, char **owned)
{
    *owned = NULL;
    if (p->out.interface || !p->out.image || p->out.image_size < 4 ||
        memcmp(p->out.image, "\177ELF", 4) != 0)
        return p->out.interface;
    *owned = cudyn__cubin_interface(p->out.image, p->out.image_size);
    return *owned;
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
    const struct cudyn_program *built = rebuilt ? rebuilt : prog;
    char *owned = NULL;
    if (st == CUDYN_OK)
        st = cudyn__module_wrap(api, mod, &built->out.names, interface_of(built, &owned), out);
    free(owned);
    cudyn_program_free(rebuilt);
    return st;
}

/* Compiles (through the cache and the compiles running now) and loads. */
static int compile_and_load(const char *api, struct cudyn_program *prog, cudyn_module claim, cudyn_module *out)
{
    cu_module mod = NULL;
    struct cudyn_program *rebuilt = NULL;
    int st = cudyn__program_build(api, prog, NULL);
    if (st == CUDYN_OK)
        st = load_with_fallback(api, prog, &mod, &rebuilt);
    const struct cudyn_program *built = rebuilt ? rebuilt : prog;
    char *owned = NULL;
    const char *interface = interface_of(built, &owned);
    if (claim) {
        st = cudyn__module_publish(api, claim, st, mod, &built->out.names, interface, &built->out.deps);
        if (st == CUDYN_OK)
            *out = claim;
    } else if (st == CUDYN_OK) {
        st = cudyn__module_wrap(api, mod, &built->out.names, interface, out);
    }
    free(owned);
    cudyn_program_free(rebuilt);
    return st;
}

/* In the thread's context, one module per inputs: found, or loaded once
 * while others asking for the same wait (not with CUDYN_COMPILE_* flags:
 * those ask for a module of one's own).  A compile error fills *failure
 * when it is not NULL. */
static int load_source(const char *api, cudyn_module *out, const struct cudyn_compile_args *checked,
                       struct cudyn__compile_failure *failure)
{
    struct cudyn_compile_args a = *checked;
    int cc = 0;
    int st = cudyn__current_device_cc(api, &a.device, &cc);
    struct cudyn_program *prog = NULL;
    if (st == CUDYN_OK)
        st = cudyn__program_new(api, &a, cc, &prog);
    if (st != CUDYN_OK)
        return st;
    cudyn_module claim = NULL;
    if (!(a.flags & (CUDYN_COMPILE_REBUILD | CUDYN_COMPILE_NO_CACHE)))
        st = cudyn__module_claim(api, prog->key, out, &claim);
    if (st == CUDYN_OK && !*out)
        st = compile_and_load(api, prog, claim, out);
    if (st == CUDYN_ERROR_COMPILE && failure && !prog->out.log) {
        /* this thread waited for another's compile, whose log stayed with
         * it: compile once more, for the log only (an error path) */
        cudyn_error first;
        cudyn__error_save(&first);
        cudyn__program_build(api, prog, NULL);
        cudyn__error_restore(&first);
    }
    if (st == CUDYN_ERROR_COMPILE && failure) {
        failure->log = prog->out.log;
        prog->out.log = NULL;
        snprintf(failure->target, sizeof failure->target, "%s", prog->target.name);
    }
    cudyn_program_free(prog);
    return st;
}

int cudyn__module_load_generated(cudyn_module *out, const char *source, struct cudyn__compile_failure *failure)
{
    static const char api[] = "cudyn_module_load_source";
    *out = NULL;
    *failure = (struct cudyn__compile_failure){NULL, ""};
    struct cudyn_compile_args a = {.size = sizeof a, .source = source};
    return load_source(api, out, &a, failure);
}

CUDYN_API int cudyn_module_load_source_ex(cudyn_module *out, const struct cudyn_compile_args *args)
{
    static const char api[] = "cudyn_module_load_source_ex";
    if (!out)
        return cudyn__fail_arg(api, "out", "must not be NULL");
    *out = NULL;
    struct cudyn_compile_args a;
    int st = cudyn__compile_args_check(api, args, &a);
    return st == CUDYN_OK ? load_source(api, out, &a, NULL) : st;
}

CUDYN_API int cudyn_module_load_source(cudyn_module *out, const char *source, const char *const *options,
                                       int num_options)
{
    static const char api[] = "cudyn_module_load_source";
    if (!out)
        return cudyn__fail_arg(api, "out", "must not be NULL");
    *out = NULL;
    struct cudyn_compile_args a = {
        .size = sizeof a, .source = source, .options = options, .num_options = num_options,
    };
    int st = cudyn__compile_fields_check(api, &a, "");
    return st == CUDYN_OK ? load_source(api, out, &a, NULL) : st;
}
