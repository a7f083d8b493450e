/*
 * options.c - the NVRTC options the mock emulates, with NVRTC 13.0's
 * messages for bad ones.  Real options whose effect the mock cannot
 * produce (relocatable code, LTO IR, precompiled headers ...) are refused
 * loudly rather than ignored.  --pre-include is emulated: the header is
 * read before the source, as if included from its first line.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mock_nvrtc.h"

enum option_id {
    OPT_ARCH,
    OPT_INCLUDE,
    OPT_DEFINE,
    OPT_UNDEFINE,
    OPT_STD,
    OPT_DEBUG,
    OPT_FAST_MATH,
    OPT_FMAD,
    OPT_PTXAS,
    OPT_PRE_INCLUDE,
    OPT_NO_EFFECT
};

/* How an option takes its value, as NVRTC 13.0 accepts it. */
enum value_form {
    NO_VALUE,     /* a flag */
    EQUALS_VALUE, /* --std=c++17 only */
    ANY_VALUE,    /* "=value" or the next option; one-letter ones also glued on (-Idir, -DX=1) */
};

/* Each option as NVRTC documents it: the long and the short spelling. */
static const struct option_spec {
    const char *long_name, *short_name;
    enum option_id id;
    enum value_form form;
} specs[] = {
    {"--gpu-architecture", "-arch", OPT_ARCH, ANY_VALUE},
    {"--include-path", "-I", OPT_INCLUDE, ANY_VALUE},
    {"--define-macro", "-D", OPT_DEFINE, ANY_VALUE},
    {"--undefine-macro", "-U", OPT_UNDEFINE, ANY_VALUE},
    {"--std", "-std", OPT_STD, EQUALS_VALUE},
    {"--device-debug", "-G", OPT_DEBUG, NO_VALUE},
    {"--use_fast_math", "-use_fast_math", OPT_FAST_MATH, NO_VALUE},
    /* --fmad=false: the mock's host kernels never fuse a multiply and an
     * add (the C they are written in is compiled with contraction off, as
     * ISO C11 builds are), so only true's fused results differ from a GPU's */
    {"--fmad", "-fmad", OPT_FMAD, EQUALS_VALUE},
    /* ptxas's options change only the machine code, which the mock does not
     * make; -v (--verbose) adds ptxas's report to the log */
    {"--ptxas-options", "-Xptxas", OPT_PTXAS, ANY_VALUE},
    /* a header read before the source, as if it began with #include "NAME" */
    {"--pre-include", "-include", OPT_PRE_INCLUDE, ANY_VALUE},
    /* no effect on what the mock emits (kernel names and parameters) */
    {"--generate-line-info", "-lineinfo", OPT_NO_EFFECT, NO_VALUE},
    {"--device-as-default-execution-space", "-default-device", OPT_NO_EFFECT, NO_VALUE},
    {"--disable-warnings", "-w", OPT_NO_EFFECT, NO_VALUE},
};

/* Real NVRTC options that change the output in ways the mock cannot. */
static const char *const not_emulated[] = {
    "--relocatable-device-code",
    "-rdc",
    "--device-c",
    "-dc",
    "--device-w",
    "-dw",
    "--dlto",
    "-dlto",
    "--extensible-whole-program",
    "-ewp",
    "--pch",
    "-pch",
    "--create-pch",
    "-create-pch",
    "--use-pch",
    "-use-pch",
    "--optix-ir",
    "-optix-ir",
    "--time",
    "-time",
    "--fdevice-syntax-only",
    "-fdevice-syntax-only",
    "--fdevice-time-trace",
    "-fdevice-time-trace",
    "--split-compile",
    "-split-compile",
};

static const struct {
    const char *name;
    long cplusplus;
} standards[] = {{"c++03", 199711L}, {"c++11", 201103L}, {"c++14", 201402L}, {"c++17", 201703L}, {"c++20", 202002L}};

#define DEFAULT_CPLUSPLUS 201703L

/* Is `opt` the option `name`, alone or as "name=value"? */
static bool names(const char *opt, const char *name)
{
    size_t n = strlen(name);
    return strncmp(opt, name, n) == 0 && (opt[n] == '\0' || opt[n] == '=');
}

static bool supported(int arch, const int *archs, int n_archs)
{
    for (int i = 0; i < n_archs; i++)
        if (archs[i] == arch)
            return true;
    return false;
}

/* "compute_90", "sm_90a", "sm_100f"; false if malformed or unsupported. */
static bool parse_arch(const char *value, const int *archs, int n_archs, struct mock_options *o)
{
    bool cubin;
    if (strncmp(value, "sm_", 3) == 0) {
        cubin = true;
        value += 3;
    } else if (strncmp(value, "compute_", 8) == 0) {
        cubin = false;
        value += 8;
    } else {
        return false;
    }
    char *end;
    long arch = strtol(value, &end, 10);
    if (end == value || arch <= 0 || arch > 10000 || (end[0] && end[1]))
        return false;
    /* arch-specific variants exist from 9.0 (sm_90a), family ones from 10.0 */
    if ((end[0] == 'a' && arch < 90) || (end[0] == 'f' && arch < 100) || (end[0] && end[0] != 'a' && end[0] != 'f'))
        return false;
    if (!supported((int)arch, archs, n_archs))
        return false;
    o->arch = (int)arch;
    o->cubin = cubin;
    o->suffix[0] = end[0];
    o->suffix[1] = '\0';
    return true;
}

/* NVRTC's default target: the oldest architecture it supports from 5.2 on
 * (compute_52 for NVRTC 11 and 12, compute_75 for 13.0). */
static int default_arch(const int *archs, int n_archs)
{
    int best = 0, oldest = 0;
    for (int i = 0; i < n_archs; i++) {
        if (archs[i] >= 52 && (!best || archs[i] < best))
            best = archs[i];
        if (!oldest || archs[i] < oldest)
            oldest = archs[i];
    }
    return best ? best : oldest;
}

static bool push(void *array_ptr, int *n, size_t size)
{
    void **array = array_ptr;
    void *grown = realloc(*array, (size_t)(*n + 1) * size);
    if (!grown)
        return false;
    *array = grown;
    (*n)++;
    return true;
}

/* Applies one recognised option; false if its value is invalid (message
 * logged) or memory ran out (*oom). */
static bool apply(const struct option_spec *spec, const char *value, const int *archs, int n_archs,
                  struct mock_options *o, char *last_arch, size_t last_cap, struct mock_log *log, bool *oom)
{
    switch (spec->id) {
    case OPT_ARCH: {
        char previous[64];
        snprintf(previous, sizeof previous, "%s", last_arch);
        if (!value || !parse_arch(value, archs, n_archs, o)) {
            mbuf_str(&log->text, "nvrtc: error: invalid value for --gpu-architecture (-arch)\n");
            return false;
        }
        snprintf(last_arch, last_cap, "%d%s", o->arch, o->suffix);
        if (previous[0]) /* as NVRTC: the last one wins, with a warning */
            mbuf_printf(&log->text,
                        "nvrtc: warning: \"--gpu-architecture(-arch)=%s\" followed by "
                        "\"--gpu-architecture(-arch)=%s\"\n",
                        previous, last_arch);
        return true;
    }
    case OPT_STD:
        for (size_t i = 0; value && i < sizeof standards / sizeof standards[0]; i++)
            if (strcmp(value, standards[i].name) == 0) {
                o->cplusplus = standards[i].cplusplus;
                return true;
            }
        mbuf_str(&log->text, "nvrtc: error: invalid value for --std(-std)\n");
        return false;
    case OPT_INCLUDE:
        if (value && !(*oom = !push(&o->include_dirs, &o->n_include_dirs, sizeof *o->include_dirs)))
            o->include_dirs[o->n_include_dirs - 1] = value;
        return !*oom;
    case OPT_DEFINE:
    case OPT_UNDEFINE:
        if (value && !(*oom = !push(&o->defines, &o->n_defines, sizeof *o->defines)))
            o->defines[o->n_defines - 1] = (struct mock_define){value, spec->id == OPT_UNDEFINE};
        return !*oom;
    case OPT_DEBUG:
        o->device_debug = true;
        return true;
    case OPT_FAST_MATH:
        o->fast_math = true;
        return true;
    case OPT_FMAD:
        if (value && (strcmp(value, "true") == 0 || strcmp(value, "false") == 0))
            return true;
        mbuf_str(&log->text, "nvrtc: error: invalid value for --fmad (-fmad)\n");
        return false;
    case OPT_PTXAS:
        if (!value || !value[0]) {
            mbuf_str(&log->text, "nvrtc: error: --ptxas-options (-Xptxas) needs a value\n");
            return false;
        }
        for (const char *p = value; *p;) { /* a comma-separated list, as ptxas takes it */
            size_t len = strcspn(p, ",");
            if ((len == 2 && strncmp(p, "-v", 2) == 0) || (len == 9 && strncmp(p, "--verbose", 9) == 0))
                o->ptxas_verbose = true;
            p += len + (p[len] == ',');
        }
        return true;
    case OPT_PRE_INCLUDE:
        if (value && !(*oom = !push(&o->pre_includes, &o->n_pre_includes, sizeof *o->pre_includes)))
            o->pre_includes[o->n_pre_includes - 1] = value;
        return !*oom;
    case OPT_NO_EFFECT:
        return true;
    }
    return true;
}

nvrtcResult mock_parse_options(int n, const char *const *options, const int *archs, int n_archs,
                               struct mock_options *out, struct mock_log *log)
{
    memset(out, 0, sizeof *out);
    out->cplusplus = DEFAULT_CPLUSPLUS;
    out->arch = default_arch(archs, n_archs);
    char last_arch[64] = "";
    bool oom = false;
    for (int i = 0; i < n; i++) {
        const char *opt = options[i];
        if (!opt) {
            mbuf_str(&log->text, "nvrtc: error: an option is NULL\n");
            return NVRTC_ERROR_INVALID_OPTION;
        }
        const struct option_spec *spec = NULL;
        const char *value = NULL;
        for (size_t s = 0; s < sizeof specs / sizeof specs[0] && !spec; s++) {
            const struct option_spec *c = &specs[s];
            const char *spelled = names(opt, c->long_name)    ? c->long_name
                                  : names(opt, c->short_name) ? c->short_name
                                                              : NULL;
            bool equals = spelled && opt[strlen(spelled)] == '=';
            if (spelled && c->form == NO_VALUE && equals) {
                mbuf_printf(&log->text, "nvrtc: error: %s (%s) does not accept any argument\n", c->long_name,
                            c->short_name);
                return NVRTC_ERROR_INVALID_OPTION;
            }
            if (spelled && (equals || c->form != EQUALS_VALUE)) {
                spec = c;
                if (c->form != NO_VALUE)
                    value = equals ? opt + strlen(spelled) + 1 : i + 1 < n ? options[++i] : NULL;
            } else if (c->form == ANY_VALUE && strlen(c->short_name) == 2 && strncmp(opt, c->short_name, 2) == 0 &&
                       opt[2]) {
                spec = c; /* -Idir, -DX=1, -UX */
                value = opt + 2;
            }
        }
        if (spec) {
            if (!apply(spec, value, archs, n_archs, out, last_arch, sizeof last_arch, log, &oom))
                return oom ? NVRTC_ERROR_OUT_OF_MEMORY : NVRTC_ERROR_INVALID_OPTION;
            continue;
        }
        for (size_t k = 0; k < sizeof not_emulated / sizeof not_emulated[0]; k++)
            if (names(opt, not_emulated[k])) {
                mbuf_printf(&log->text,
                            "nvrtc: error: mock NVRTC cannot compile this (option %s); use the real NVRTC\n", opt);
                return NVRTC_ERROR_INVALID_OPTION;
            }
        mbuf_printf(&log->text, "nvrtc: error: unrecognized option %s found\n", opt);
        return NVRTC_ERROR_INVALID_OPTION;
    }
    return NVRTC_SUCCESS;
}

void mock_options_free(struct mock_options *o)
{
    free(o->include_dirs);
    free(o->pre_includes);
    free(o->defines);
    memset(o, 0, sizeof *o);
}
