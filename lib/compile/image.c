/*
 * image.c - precompiled kernels for several architectures: building one
 * image from source (cudyn_compile_image) or from compiled programs
 * (cudyn_image_build), as cudyn's own container (image_format.c) or a CUDA
 * fatbinary through nvFatbin when it is installed, and picking the entry
 * for the device when cudyn_module_load_image gets a container.
 */
#include "config.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hints.h"
#include "compile/cubin.h"
#include "compile/image.h"
#include "compile/options.h"
#include "compile/program.h"
#include "compile/ptx_interface.h"
#include "loader/loader.h"

/* ------------------------------------------------------------- loading */

/* The entry of a container for the current device. */
static int pick(const char *api, const struct cudyn__image_part *parts, size_t n, int built_by, const void **code)
{
    int device = 0, cc = 0;
    int st = cudyn__current_device_cc(api, &device, &cc);
    if (st != CUDYN_OK)
        return st;
    struct cudyn__image_choice choices[CUDYN_IMAGE_MAX_ENTRIES];
    for (size_t i = 0; i < n; i++)
        choices[i] = (struct cudyn__image_choice){parts[i].arch, parts[i].cubin};
    char why[512];
    int i = cudyn__choose_image_entry(cc, choices, n, built_by, cudyn__driver_version_loaded(), why, sizeof why);
    if (i < 0)
        return cudyn__fail(CUDYN_ERROR_NO_BINARY_FOR_GPU, CUDYN_ORIGIN_LIBRARY, 0, NULL, api, HINT_NO_BINARY,
                           "%s: device %d: %s", api, device, why);
    cudyn__debug("image: device %d (compute capability %d.%d) loads its %s_%d entry", device, cc / 10, cc % 10,
                 parts[i].cubin ? "sm" : "compute", parts[i].arch);
    *code = parts[i].data;
    return CUDYN_OK;
}

/* The interface from a container's PTX (every entry has the same kernels). */
static char *container_interface(const struct cudyn__image_part *parts, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!parts[i].cubin)
            return cudyn__ptx_interface((const char *)parts[i].data, parts[i].size);
    return NULL;
}

int cudyn__image_select(const char *api, const void *image, size_t bytes, bool sized, const void **code,
                        char **interface, const unsigned char **cubin, size_t *cubin_bytes)
{
    *code = image;
    *interface = NULL;
    *cubin = NULL;
    *cubin_bytes = 0;
    struct cudyn__image_view v;
    char why[256];
    if (cudyn__image_inspect(image, bytes, sized, &v, why, sizeof why) != 0)
        return cudyn__fail(CUDYN_ERROR_INVALID_IMAGE, CUDYN_ORIGIN_LIBRARY, 0, NULL, api, HINT_IMAGE, "%s: %s", api,
                           why);
    switch (v.kind) {
    case CUDYN__IMAGE_PTX: /* text, as the driver reads it: up to its NUL */
        *interface = cudyn__ptx_interface(image, strlen(image));
        return CUDYN_OK;
    case CUDYN__IMAGE_ELF:
        *cubin = image;
        *cubin_bytes = v.bytes;
        return CUDYN_OK;
    case CUDYN__IMAGE_FATBIN:
        return CUDYN_OK;
    case CUDYN__IMAGE_OURS:
        break;
    }
    int st = pick(api, v.parts, v.n, v.built_by, code);
    for (size_t i = 0; st == CUDYN_OK && i < v.n; i++)
        if (v.parts[i].data == *code && v.parts[i].cubin) {
            /* the driver reads the entry's CUBIN by its own headers:
             * within the entry, or not at all */
            if (sized && cudyn__cubin_check(v.parts[i].data, v.parts[i].size, why, sizeof why) != 0)
                return cudyn__fail(CUDYN_ERROR_INVALID_IMAGE, CUDYN_ORIGIN_LIBRARY, 0, NULL, api, HINT_IMAGE,
                                   "%s: the cudyn multi-architecture image's sm_%d entry: %s", api,
                                   v.parts[i].arch, why);
            *cubin = v.parts[i].data;
            *cubin_bytes = v.parts[i].size;
        }
    if (st == CUDYN_OK)
        *interface = container_interface(v.parts, v.n);
    return st;
}

/* ------------------------------------------------------------ nvFatbin */

typedef int (*fatbin_create_fn)(void **handle, const char **options, size_t n);
typedef int (*fatbin_add_cubin_fn)(void *handle, const void *code, size_t size, const char *arch, const char *id);
typedef int (*fatbin_add_ptx_fn)(void *handle, const char *code, size_t size, const char *arch, const char *id,
                                 const char *options);
typedef int (*fatbin_size_fn)(void *handle, size_t *size);
typedef int (*fatbin_get_fn)(void *handle, void *buffer);
typedef int (*fatbin_destroy_fn)(void **handle);

static struct {
    pthread_once_t once;
    bool ok;
    fatbin_create_fn create;
    fatbin_add_cubin_fn add_cubin;
    fatbin_add_ptx_fn add_ptx;
    fatbin_size_fn size;
    fatbin_get_fn get;
    fatbin_destroy_fn destroy;
    char tried[1024];
} nvfatbin = {.once = PTHREAD_ONCE_INIT};

static const char *const nvfatbin_sonames[] = {"libnvfatbin.so.13", "libnvfatbin.so.12"};

static bool bind_nvfatbin(void *h)
{
    nvfatbin.create = (fatbin_create_fn)dlsym(h, "nvFatbinCreate");
    nvfatbin.add_cubin = (fatbin_add_cubin_fn)dlsym(h, "nvFatbinAddCubin");
    nvfatbin.add_ptx = (fatbin_add_ptx_fn)dlsym(h, "nvFatbinAddPTX");
    nvfatbin.size = (fatbin_size_fn)dlsym(h, "nvFatbinSize");
    nvfatbin.get = (fatbin_get_fn)dlsym(h, "nvFatbinGet");
    nvfatbin.destroy = (fatbin_destroy_fn)dlsym(h, "nvFatbinDestroy");
    return nvfatbin.create && nvfatbin.add_cubin && nvfatbin.add_ptx && nvfatbin.size && nvfatbin.get &&
           nvfatbin.destroy;
}

/* Next to NVRTC first (the same toolkit), then by soname. */
static void nvfatbin_once(void)
{
    const char *dir = cudyn__nvrtc_dir();
    for (int pass = dir ? 0 : 1; pass < 2 && !nvfatbin.ok; pass++)
        for (size_t i = 0; i < sizeof nvfatbin_sonames / sizeof nvfatbin_sonames[0] && !nvfatbin.ok; i++) {
            char file[4200];
            snprintf(file, sizeof file, "%s%s%s", pass == 0 ? dir : "", pass == 0 ? "/" : "", nvfatbin_sonames[i]);
            char why[4300];
            void *h = cudyn__dlopen(file, RTLD_NOW | RTLD_LOCAL, why, sizeof why);
            size_t len = strlen(nvfatbin.tried);
            snprintf(nvfatbin.tried + len, sizeof nvfatbin.tried - len, "%s%s", len ? ", " : "", file);
            nvfatbin.ok = h && bind_nvfatbin(h);
        }
}

/* The fatbinary of parts, through nvFatbin. */
static int fatbin_pack(const char *api, const struct cudyn__image_part *parts, size_t n, unsigned char **out,
                       size_t *size)
{
    int st = cudyn__refuse_static_program(CUDYN_ERROR_NOT_SUPPORTED, "nvFatbin (libnvfatbin)");
    if (st != CUDYN_OK)
        return st;
    pthread_once(&nvfatbin.once, nvfatbin_once);
    if (!nvfatbin.ok)
        return cudyn__fail(CUDYN_ERROR_NOT_SUPPORTED, CUDYN_ORIGIN_LOADER, 0, NULL, "dlopen", HINT_NO_NVFATBIN,
                           "%s: nvFatbin (libnvfatbin, CUDA 12.4+) was not found (tried %s)", api, nvfatbin.tried);
    void *h = NULL;
    int r = nvfatbin.create(&h, NULL, 0);
    const char *fn = "nvFatbinCreate";
    for (size_t i = 0; i < n && r == 0; i++) {
        char arch[16], id[32];
        snprintf(arch, sizeof arch, "%d", parts[i].arch);
        snprintf(id, sizeof id, "%s_%d", parts[i].cubin ? "sm" : "compute", parts[i].arch);
        fn = parts[i].cubin ? "nvFatbinAddCubin" : "nvFatbinAddPTX";
        r = parts[i].cubin ? nvfatbin.add_cubin(h, parts[i].data, parts[i].size, arch, id)
                           : nvfatbin.add_ptx(h, (const char *)parts[i].data, parts[i].size, arch, id, "");
    }
    *out = NULL;
    bool oom = false;
    if (r == 0) {
        fn = "nvFatbinSize";
        r = nvfatbin.size(h, size);
    }
    if (r == 0 && !(*out = malloc(*size ? *size : 1)))
        oom = true;
    if (r == 0 && !oom) {
        fn = "nvFatbinGet";
        r = nvfatbin.get(h, *out);
    }
    if (h)
        nvfatbin.destroy(&h);
    if (r == 0 && !oom)
        return CUDYN_OK;
    free(*out);
    *out = NULL;
    if (oom)
        return cudyn__fail_oom(api);
    return cudyn__fail(CUDYN_ERROR_INVALID_IMAGE, CUDYN_ORIGIN_LIBRARY, r, NULL, fn, NULL, "%s: %s returned %d", api,
                       fn, r);
}

/* ------------------------------------------------------------ building */

/* One part per program, each a plain sm_XY / compute_XY target, none twice. */
static int parts_of(const char *api, const cudyn_program *const *programs, int n, struct cudyn__image_part *parts,
                    int *built_by)
{
    *built_by = 0;
    for (int i = 0; i < n; i++) {
        const cudyn_program *p = programs[i];
        char arg[32];
        snprintf(arg, sizeof arg, "programs[%d]", i);
        if (!p || !p->out.image)
            return cudyn__fail_arg(api, arg, "is NULL or has no image (its compilation failed)");
        if (cudyn__image_parse_arch(p->target.name, &parts[i].arch, &parts[i].cubin) != 0)
            return cudyn__fail_arg(api, arg, "has a target other than sm_XY or compute_XY");
        for (int k = 0; k < i; k++)
            if (parts[k].arch == parts[i].arch && parts[k].cubin == parts[i].cubin)
                return cudyn__fail_arg(api, arg, "has the same target as an earlier program");
        parts[i].data = p->out.image;
        parts[i].size = p->out.image_size;
        if (p->out.nvrtc_version > *built_by)
            *built_by = p->out.nvrtc_version;
    }
    return CUDYN_OK;
}

CUDYN_API int cudyn_image_build(void **image, size_t *bytes, const cudyn_program *const *programs, int num_programs,
                                unsigned int format)
{
    static const char api[] = "cudyn_image_build";
    if (!image || !bytes)
        return cudyn__fail_arg(api, image ? "bytes" : "image", "must not be NULL");
    *image = NULL;
    *bytes = 0;
    if (!programs || num_programs < 1 || num_programs > CUDYN_IMAGE_MAX_ENTRIES)
        return cudyn__fail_arg(api, "num_programs", "must be 1 to 64, with programs not NULL");
    if (format != CUDYN_IMAGE_CUDYN && format != CUDYN_IMAGE_FATBIN)
        return cudyn__fail_arg(api, "format", "must be CUDYN_IMAGE_CUDYN or CUDYN_IMAGE_FATBIN");
    struct cudyn__image_part parts[CUDYN_IMAGE_MAX_ENTRIES];
    int built_by = 0;
    int st = parts_of(api, programs, num_programs, parts, &built_by);
    if (st != CUDYN_OK)
        return st;
    unsigned char *out = NULL;
    char why[200];
    if (format == CUDYN_IMAGE_FATBIN)
        st = fatbin_pack(api, parts, (size_t)num_programs, &out, bytes);
    else if (cudyn__image_check(parts, (size_t)num_programs, why, sizeof why) != 0)
        st = cudyn__fail(CUDYN_ERROR_INVALID_ARGUMENT, CUDYN_ORIGIN_LIBRARY, 0, NULL, api, NULL,
                         "%s: the programs do not fit a cudyn image: %s", api, why);
    else if (cudyn__image_pack(parts, (size_t)num_programs, built_by, &out, bytes) != 0)
        st = cudyn__fail_oom(api); /* the parts fit: only memory can be missing */
    *image = out;
    return st;
}

/* Compiles a.source for one architecture, without a device. */
static int compile_for(const char *api, const struct cudyn_compile_args *a, const char *arch, cudyn_program **out)
{
    const char **options = malloc(((size_t)a->num_options + 1) * sizeof *options);
    char target[64];
    if (!options)
        return cudyn__fail_oom(api);
    snprintf(target, sizeof target, "--gpu-architecture=%s", arch);
    options[0] = target;
    for (int i = 0; i < a->num_options; i++)
        options[i + 1] = a->options[i];
    struct cudyn_compile_args one = *a;
    one.device = CUDYN_DEVICE_NONE;
    one.options = options;
    one.num_options = a->num_options + 1;
    int st = cudyn__program_new(api, &one, 0, out);
    if (st == CUDYN_OK && (st = cudyn__program_build(api, *out, NULL)) != CUDYN_OK) {
        cudyn__error_append(" (compiling for %s)", arch);
        cudyn_program_free(*out);
        *out = NULL;
    }
    free(options);
    return st;
}

/* Plain sm_XY / compute_XY targets, none twice: checked before anything
 * compiles. */
static int check_archs(const char *api, const char *const *archs, int n)
{
    if (!archs || n < 1 || n > CUDYN_IMAGE_MAX_ENTRIES)
        return cudyn__fail_arg(api, "num_archs", "must be 1 to 64, with archs not NULL");
    int arch[CUDYN_IMAGE_MAX_ENTRIES];
    bool cubin[CUDYN_IMAGE_MAX_ENTRIES];
    for (int i = 0; i < n; i++) {
        if (!archs[i] || cudyn__image_parse_arch(archs[i], &arch[i], &cubin[i]) != 0)
            return cudyn__fail_arg(api, "archs", "must name sm_XY or compute_XY targets");
        for (int k = 0; k < i; k++)
            if (arch[k] == arch[i] && cubin[k] == cubin[i])
                return cudyn__fail(CUDYN_ERROR_INVALID_ARGUMENT, CUDYN_ORIGIN_LIBRARY, 0, NULL, api, NULL,
                                   "%s: argument 'archs' names %s twice", api, archs[i]);
    }
    return CUDYN_OK;
}

CUDYN_API int cudyn_compile_image(void **image, size_t *bytes, const struct cudyn_compile_args *args,
                                  const char *const *archs, int num_archs, unsigned int format)
{
    static const char api[] = "cudyn_compile_image";
    if (!image || !bytes)
        return cudyn__fail_arg(api, image ? "bytes" : "image", "must not be NULL");
    *image = NULL;
    *bytes = 0;
    struct cudyn_compile_args a;
    int st = cudyn__compile_args_check(api, args, &a);
    if (st == CUDYN_OK && cudyn__forced_target(a.options, a.num_options))
        st = cudyn__fail_arg(api, "args->options", "must not name a target: the architectures come from archs");
    if (st == CUDYN_OK)
        st = check_archs(api, archs, num_archs);
    if (st == CUDYN_OK && format != CUDYN_IMAGE_CUDYN && format != CUDYN_IMAGE_FATBIN)
        st = cudyn__fail_arg(api, "format", "must be CUDYN_IMAGE_CUDYN or CUDYN_IMAGE_FATBIN");
    if (st != CUDYN_OK)
        return st;
    cudyn_program *programs[CUDYN_IMAGE_MAX_ENTRIES] = {0};
    for (int i = 0; i < num_archs && st == CUDYN_OK; i++)
        st = compile_for(api, &a, archs[i], &programs[i]);
    if (st == CUDYN_OK)
        st = cudyn_image_build(image, bytes, (const cudyn_program *const *)programs, num_archs, format);
    for (int i = 0; i < num_archs; i++)
        cudyn_program_free(programs[i]);
    return st;
}

CUDYN_API void cudyn_image_free(void *image)
{
    free(image);
}
