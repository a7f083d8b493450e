/*
 * versions.c - one line naming every version a mismatch between them can
 * break (the driver's CUDA version and release, the kernel module, NVRTC,
 * its builtins, the CUDA headers handed to NVRTC, the PTX ISA emitted
 * against the highest the driver accepts, the device's compute
 * capability), with a hint naming the piece to change where the skew is
 * one known to fail.  Used on the failure paths of compiles and loads, by
 * cudyn_versions_line and through it by `cudainfo --explain` and --json.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loader/loader.h"

/* The highest PTX ISA each driver accepts, as the PTX ISA notes list it:
 * {CUDA version, ISA major*10+minor}.  A driver newer than the last row
 * accepts at least that row's ISA. */
static const struct {
    int cuda;
    int isa;
} ptx_isa_of_driver[] = {
    {11000, 70}, {11010, 71}, {11020, 72}, {11030, 73}, {11040, 74}, {11050, 75}, {11060, 76},
    {11070, 77}, {11080, 78}, {12000, 80}, {12010, 81}, {12020, 82}, {12030, 83}, {12040, 84},
    {12050, 85}, {12060, 85}, {12080, 87}, {12090, 88}, {13000, 90},
};

/* The highest PTX ISA the driver accepts (at least that, for a driver
 * newer than the table). */
static int ptx_isa_max(int driver_version, bool *at_least)
{
    int isa = 0;
    *at_least = false;
    for (size_t i = 0; i < N_ELEMS(ptx_isa_of_driver); i++)
        if (ptx_isa_of_driver[i].cuda <= driver_version)
            isa = ptx_isa_of_driver[i].isa;
    size_t last = N_ELEMS(ptx_isa_of_driver) - 1;
    if (driver_version > ptx_isa_of_driver[last].cuda &&
        driver_version / 10 != ptx_isa_of_driver[last].cuda / 10)
        *at_least = true;
    return isa;
}

/* The ISA of a PTX text's ".version X.Y", as X*10+Y; 0 if none. */
static int ptx_isa_of(const char *ptx)
{
    if (!ptx)
        return 0;
    for (const char *p = strstr(ptx, ".version"); p; p = strstr(p + 1, ".version")) {
        if (p != ptx && p[-1] != '\n' && p[-1] != ' ' && p[-1] != '\t')
            continue;
        int major = 0, minor = 0;
        if (sscanf(p + 8, " %d.%d", &major, &minor) == 2 && major >= 0 && minor >= 0 && minor < 10)
            return major * 10 + minor;
    }
    return 0;
}

/* CUDA_VERSION of dir/cuda.h (12080), 0 if there is none. */
static int headers_cuda_version(const char *dir)
{
    char file[LOADER_PATH_BYTES + 16];
    snprintf(file, sizeof file, "%s/cuda.h", dir);
    FILE *f = cudyn__fopen_regular(file);
    if (!f)
        return 0;
    char line[256];
    int v = 0;
    while (!v && fgets(line, sizeof line, f))
        if (sscanf(line, " #define CUDA_VERSION %d", &v) != 1)
            v = 0;
    fclose(f);
    return v;
}

/* The line being written: buf of cap bytes, n written (cap or more once
 * full), and the skew hints gathered for its end. */
struct line {
    char *buf;
    size_t cap, n;
    char hints[768];
};

static void add_hint(struct line *l, const char *fmt, ...) CUDYN_PRINTF(2, 3);
static void add_hint(struct line *l, const char *fmt, ...)
{
    size_t n = strlen(l->hints), cap = sizeof l->hints;
    if (n + 3 >= cap)
        return;
    if (n)
        n += (size_t)snprintf(l->hints + n, cap - n, "; ");
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(l->hints + n, cap - n, fmt, ap);
    va_end(ap);
}

static void put(struct line *l, const char *fmt, ...) CUDYN_PRINTF(2, 3);
static void put(struct line *l, const char *fmt, ...)
{
    if (l->n >= l->cap)
        return;
    va_list ap;
    va_start(ap, fmt);
    int w = vsnprintf(l->buf + l->n, l->cap - l->n, fmt, ap);
    va_end(ap);
    l->n = w < 0 ? l->cap : l->n + (size_t)w;
}

#define V(v) (v) / 1000, (v) % 1000 / 10

/* The driver and the kernel module. */
static void driver_part(struct line *l, const struct cudyn__library *drv, bool have_driver)
{
    struct cudyn__compat kmod = {0};
    if (have_driver)
        kmod = cudyn__driver.compat;
    else
        cudyn__read_kernel_module_version(&kmod);
    if (have_driver)
        put(l, "driver CUDA %d.%d (%s, release %s%s)", V(drv->version), drv->path,
            kmod.driver_release[0] ? kmod.driver_release : "unknown", kmod.driver_is_compat ? ", forward-compat" : "");
    else
        put(l, "driver not loaded");
    if (kmod.kmod_version[0])
        put(l, ", kernel module %s (%s)", kmod.kmod_version, kmod.kmod_file);
    else
        put(l, ", kernel module unknown (no version file)");
    /* a libcuda whose release differs from the kernel module's never gets
     * here unused: the loader takes it for a forward-compat library */
}

/* NVRTC and its builtins. */
static void nvrtc_part(struct line *l, const struct cudyn__nvrtc_state *nv, bool have_nvrtc)
{
    if (!have_nvrtc) {
        put(l, ", NVRTC not loaded");
        return;
    }
    put(l, ", NVRTC %d.%d (%s)", V(nv->lib.version), nv->lib.path);
    /* the loader preloads the builtins of NVRTC's own version from its
     * directory; without them NVRTC looks that soname up itself */
    if (nv->builtins_path[0])
        put(l, ", builtins %s", nv->builtins_path);
    else
        put(l, ", builtins libnvrtc-builtins.so.%d.%d not next to NVRTC", V(nv->lib.version));
}

/* The CUDA headers handed to NVRTC, against NVRTC's version. */
static void headers_part(struct line *l, const char *include_dir, const struct cudyn__nvrtc_state *nv,
                         bool have_nvrtc)
{
    if (!include_dir || !include_dir[0])
        return;
    int h = headers_cuda_version(include_dir);
    if (h)
        put(l, ", headers %s (cuda.h CUDA_VERSION %d)", include_dir, h);
    else
        put(l, ", headers %s (no cuda.h)", include_dir);
    if (h && have_nvrtc && h / 10 != nv->lib.version / 10)
        add_hint(l,
                 "the CUDA headers in %s are CUDA %d.%d but NVRTC is %d.%d: hand NVRTC the include directory of "
                 "its own toolkit",
                 include_dir, V(h), V(nv->lib.version));
}

/* The PTX ISA emitted against the highest the driver accepts. */
static void ptx_part(struct line *l, const char *ptx, const struct cudyn__library *drv, bool have_driver,
                     const struct cudyn__nvrtc_state *nv, bool have_nvrtc)
{
    int isa = ptx_isa_of(ptx);
    if (!have_driver) {
        if (isa)
            put(l, ", PTX ISA %d.%d emitted", isa / 10, isa % 10);
        return;
    }
    bool at_least;
    int max = ptx_isa_max(drv->version, &at_least);
    if (isa)
        put(l, ", PTX ISA %d.%d emitted", isa / 10, isa % 10);
    put(l, ", driver accepts PTX ISA %s%d.%d", at_least ? "at least " : "up to ", max / 10, max % 10);
    if (isa > max && !at_least)
        add_hint(l,
                 "the PTX is ISA %d.%d but the driver (CUDA %d.%d) accepts up to %d.%d: update the driver, compile "
                 "to CUBIN, or emit PTX with an NVRTC no newer than CUDA %d.%d",
                 isa / 10, isa % 10, V(drv->version), max / 10, max % 10, V(drv->version));
    else if (!isa && have_nvrtc && nv->lib.version > drv->version)
        add_hint(l,
                 "NVRTC %d.%d is newer than the driver (CUDA %d.%d): its PTX will not load; compile to CUBIN "
                 "(cudyn_compile does) or update the driver",
                 V(nv->lib.version), V(drv->version));
}

void cudyn__versions_line(char *buf, size_t cap, const char *ptx, int cc, const char *include_dir)
{
    if (!cap)
        return;
    buf[0] = '\0';
    struct line l = {buf, cap, 0, ""};
    const struct cudyn__library *drv = &cudyn__driver.lib;
    const struct cudyn__nvrtc_state *nv = &cudyn__nvrtc_state;
    bool have_driver = atomic_load_explicit(&drv->done, memory_order_acquire) && drv->status == CUDYN_OK;
    bool have_nvrtc = atomic_load_explicit(&nv->lib.done, memory_order_acquire) && nv->lib.status == CUDYN_OK;
    put(&l, "versions: ");
    driver_part(&l, drv, have_driver);
    nvrtc_part(&l, nv, have_nvrtc);
    headers_part(&l, include_dir, nv, have_nvrtc);
    ptx_part(&l, ptx, drv, have_driver, nv, have_nvrtc);
    if (cc > 0)
        put(&l, ", device sm_%d", cc);
    if (l.hints[0])
        put(&l, "; skew: %s", l.hints);
    if (l.n >= cap && cap > 4)
        memcpy(buf + cap - 4, "...", 4);
}

CUDYN_API int cudyn_versions_line(char *buf, size_t cap, int device, const char *include_dir)
{
    static const char api[] = "cudyn_versions_line";
    if (!buf)
        return cudyn__fail_arg(api, "buf", "must not be NULL");
    if (cap == 0)
        return cudyn__fail_arg(api, "cap", "must be at least 1");
    buf[0] = '\0';
    if (device < -1)
        return cudyn__fail_arg(api, "device", "must be a device ordinal, or -1 for none");
    int cc = 0;
    if (device >= 0 && atomic_load_explicit(&cudyn__driver_ready, memory_order_acquire)) {
        /* no device, a fault: the line goes without the compute capability */
        cu_device dev = 0;
        int major = 0, minor = 0;
        if (cudyn__drv.cuDeviceGet(&dev, device) == CU_OK &&
            cudyn__drv.cuDeviceGetAttribute(&major, (cu_enum)CUDYN_ATTR_COMPUTE_CAPABILITY_MAJOR, dev) == CU_OK &&
            cudyn__drv.cuDeviceGetAttribute(&minor, (cu_enum)CUDYN_ATTR_COMPUTE_CAPABILITY_MINOR, dev) == CU_OK)
            cc = major * 10 + minor;
    }
    cudyn__versions_line(buf, cap, NULL, cc, include_dir);
    return CUDYN_OK;
}
