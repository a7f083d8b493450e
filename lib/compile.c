/*
 * compile.c - run-time compilation of CUDA C++ with NVRTC for the device at
 * hand (target choice in target.c).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "internal.h"
#include "target.h"

#define MAX_ARCHS 64

struct cudyn_program {
    char *log;
    struct cudyn_target target;
    char *image;      /* CUBIN, or the PTX below */
    size_t image_size;
    char *ptx;        /* NUL-terminated PTX, or NULL */
    size_t ptx_size;
};

CUDYN_API void cudyn_program_free(cudyn_program *prog)
{
    if (!prog)
        return;
    if (prog->image != prog->ptx)
        free(prog->image);
    free(prog->ptx);
    free(prog->log);
    free(prog);
}

CUDYN_API const char *cudyn_program_log(const cudyn_program *prog)
{
    return prog && prog->log ? prog->log : "";
}

CUDYN_API const char *cudyn_program_target(const cudyn_program *prog)
{
    return prog ? prog->target.name : "";
}

CUDYN_API const void *cudyn_program_image(const cudyn_program *prog, size_t *bytes)
{
    if (bytes)
        *bytes = prog ? prog->image_size : 0;
    return prog ? prog->image : NULL;
}

CUDYN_API const char *cudyn_program_ptx(const cudyn_program *prog, size_t *bytes)
{
    if (bytes)
        *bytes = prog && prog->ptx ? prog->ptx_size : 0;
    return prog ? prog->ptx : NULL;
}

static int device_cc(const char *api, int device, int *cc)
{
    int major = 0, minor = 0;
    int st = cudyn_device_attribute(device, CUDYN_ATTR_COMPUTE_CAPABILITY_MAJOR, &major);
    if (st == CUDYN_OK)
        st = cudyn_device_attribute(device, CUDYN_ATTR_COMPUTE_CAPABILITY_MINOR, &minor);
    if (st != CUDYN_OK)
        cudyn_error_append(" (while %s read the device's compute capability)", api);
    *cc = major * 10 + minor;
    return st;
}

/* NVRTC's architectures; NVRTC before 11.2 cannot list them, and is then
 * trusted with the device's own. */
static size_t supported_archs(int cc, int *archs)
{
    int n = 0;
    if (NVRTC_HAS(nvrtcGetNumSupportedArchs) && cudyn_nvrtc.nvrtcGetNumSupportedArchs(&n) == NVRTC_OK && n > 0 &&
        n <= MAX_ARCHS && cudyn_nvrtc.nvrtcGetSupportedArchs(archs) == NVRTC_OK)
        return (size_t)n;
    archs[0] = cc;
    return 1;
}

/* "-I<toolkit>/include" when the toolkit's headers sit next to NVRTC, so
 * #include <cuda_fp16.h> works as it does with nvcc. */
static bool toolkit_include_option(char *out, size_t cap)
{
    const char *dir = cudyn_nvrtc_dir();
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

static char *read_log(nvrtc_program p)
{
    size_t size = 0;
    if (cudyn_nvrtc.nvrtcGetProgramLogSize(p, &size) != NVRTC_OK || size == 0)
        return calloc(1, 1);
    char *log = calloc(1, size + 1);
    if (log && cudyn_nvrtc.nvrtcGetProgramLog(p, log) != NVRTC_OK)
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
    size_t size = 0;
    if (prog->target.cubin) {
        nvrtc_result r = cudyn_nvrtc.nvrtcGetCUBINSize(p, &size);
        if (r != NVRTC_OK)
            return cudyn_fail_nvrtc(r, "nvrtcGetCUBINSize", api, NULL);
        prog->image = malloc(size ? size : 1);
        if (!prog->image)
            return cudyn_fail(CUDYN_ERROR_OUT_OF_MEMORY, CUDYN_ORIGIN_SYSTEM, 12, "ENOMEM", api,
                              "%s: no host memory for a %zu-byte CUBIN", api, size);
        r = cudyn_nvrtc.nvrtcGetCUBIN(p, prog->image);
        if (r != NVRTC_OK)
            return cudyn_fail_nvrtc(r, "nvrtcGetCUBIN", api, NULL);
        prog->image_size = size;
    }
    /* PTX exists for compute_ targets; for sm_ targets NVRTC may keep none. */
    if (cudyn_nvrtc.nvrtcGetPTXSize(p, &size) == NVRTC_OK && size > 0) {
        prog->ptx = malloc(size);
        if (prog->ptx && cudyn_nvrtc.nvrtcGetPTX(p, prog->ptx) == NVRTC_OK) {
            prog->ptx_size = size;
        } else {
            free(prog->ptx);
            prog->ptx = NULL;
        }
    }
    if (!prog->target.cubin) {
        if (!prog->ptx)
            return cudyn_fail(CUDYN_ERROR_NVRTC, CUDYN_ORIGIN_NVRTC, 0, NULL, "nvrtcGetPTX",
                              "%s: NVRTC produced no PTX for %s", api, prog->target.name);
        prog->image = prog->ptx;
        prog->image_size = prog->ptx_size;
    }
    return CUDYN_OK;
}

CUDYN_API int cudyn_compile(cudyn_program **out, const char *source, const char *name, int device,
                            const char *const *options, int num_options)
{
    static const char api[] = "cudyn_compile";
    if (!out)
        return cudyn_fail_arg(api, "out", "must not be NULL");
    *out = NULL;
    if (!source)
        return cudyn_fail_arg(api, "source", "must not be NULL");
    if (num_options < 0 || num_options > 1000)
        return cudyn_fail_arg(api, "num_options", "must be between 0 and 1000");
    if (num_options > 0 && !options)
        return cudyn_fail_arg(api, "options", "must not be NULL when num_options > 0");
    for (int i = 0; i < num_options; i++)
        if (!options[i])
            return cudyn_fail_arg(api, "options", "contains a NULL entry");

    int cc = 0;
    int st = device_cc(api, device, &cc);
    if (st != CUDYN_OK)
        return st;
    st = cudyn_need_nvrtc(api);
    if (st != CUDYN_OK)
        return st;

    int archs[MAX_ARCHS];
    size_t n_archs = supported_archs(cc, archs);
    struct cudyn_program *prog = calloc(1, sizeof *prog);
    if (!prog)
        return cudyn_fail(CUDYN_ERROR_OUT_OF_MEMORY, CUDYN_ORIGIN_SYSTEM, 12, "ENOMEM", api, "%s: out of host memory",
                          api);
    const char *forced = cudyn_forced_target(options, num_options);
    if (cudyn_choose_target(cc, archs, n_archs, cudyn_nvrtc_version_loaded(), cudyn_driver_version_loaded(), forced,
                            &prog->target) != 0) {
        st = cudyn_fail(CUDYN_ERROR_UNSUPPORTED_ARCH, CUDYN_ORIGIN_LIBRARY, 0, NULL, api, "%s: device %d: %s", api,
                        device, prog->target.why);
        cudyn_program_free(prog);
        return st;
    }
    if (prog->target.cubin && !NVRTC_HAS(nvrtcGetCUBIN)) {
        /* NVRTC before 11.1 makes PTX only. */
        prog->target.cubin = false;
        snprintf(prog->target.name, sizeof prog->target.name, "compute_%d", prog->target.arch);
    }

    /* The caller's options, then cudyn's: target and toolkit include dir. */
    const char *all[1003];
    int n = 0;
    for (int i = 0; i < num_options; i++)
        all[n++] = options[i];
    char arch_option[64], include_option[4200];
    if (!forced) {
        snprintf(arch_option, sizeof arch_option, "--gpu-architecture=%s", prog->target.name);
        all[n++] = arch_option;
    }
    if (toolkit_include_option(include_option, sizeof include_option))
        all[n++] = include_option;

    nvrtc_program p = NULL;
    nvrtc_result r = cudyn_nvrtc.nvrtcCreateProgram(&p, source, name ? name : "kernel.cu", 0, NULL, NULL);
    if (r != NVRTC_OK) {
        cudyn_program_free(prog);
        return cudyn_fail_nvrtc(r, "nvrtcCreateProgram", api, NULL);
    }
    r = cudyn_nvrtc.nvrtcCompileProgram(p, n, all);
    prog->log = read_log(p);
    if (r == NVRTC_OK) {
        st = fetch_output(api, p, prog);
    } else {
        char first[512];
        first_error_line(prog->log ? prog->log : "", first, sizeof first);
        st = cudyn_fail_nvrtc(r, "nvrtcCompileProgram", api, NULL);
        cudyn_error_append(" (%s for %s: %s)", name ? name : "kernel.cu", prog->target.name,
                           first[0] ? first : "no log");
    }
    cudyn_nvrtc.nvrtcDestroyProgram(&p);

    if (st == CUDYN_OK || st == CUDYN_ERROR_COMPILE)
        *out = prog; /* a failed compile still hands over its log */
    else
        cudyn_program_free(prog);
    return st;
}

CUDYN_API int cudyn_module_load(cudyn_module *out, const cudyn_program *prog)
{
    static const char api[] = "cudyn_module_load";
    if (!out)
        return cudyn_fail_arg(api, "out", "must not be NULL");
    *out = NULL;
    if (!prog)
        return cudyn_fail_arg(api, "prog", "must not be NULL");
    if (!prog->image)
        return cudyn_fail_arg(api, "prog", "has no image (its compilation failed)");
    cu_module mod = NULL;
    int st = cudyn_load_image(api, &mod, prog->image);
    if (st != CUDYN_OK) {
        cudyn_error_append(" (target %s)", prog->target.name);
        return st;
    }
    *out = (cudyn_module)(void *)mod;
    return CUDYN_OK;
}
