/*
 * cudainfo - which GPUs, driver and NVRTC this machine has, how the GPUs
 * are linked, and why something fails.  Results go to stdout, diagnostics
 * to stderr; --json writes one valid document on every path, failures
 * included.  Exit codes: TOOL_EXIT_CODES in common.h (0 and 2-7).
 *
 * It gathers everything first (loader, devices, attributes, links), so the
 * exit code is known before anything is printed, then prints it as text
 * or as JSON.
 */
#include "config.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common.h"
#include "device_select.h"
#include "json.h"
#include "mpi_info.h"
#include "nvml_links.h"
#include "nvml_list.h"

/* The JSON document's layout; a new one gets a new number. */
#define SCHEMA "cudainfo/2"

#define MAX_SELECT 64
#define MAX_PROPS 64

static const char usage_text[] =
    "Usage: cudainfo [OPTION]...\n"
    "Show the NVIDIA driver, NVRTC and GPUs cudyn finds, how the GPUs are linked,\n"
    "and why something fails.\n\n"
    "  -a, --all          every attribute the driver reports for each device\n"
    "      --prop NAME    only this attribute (repeatable; implies -a)\n"
    "  -d, --device SEL   select a device by ordinal, UUID (or unique prefix) or\n"
    "                     PCI bus id (repeatable)\n"
    "      --p2p          how the GPUs are linked: peer access, performance rank,\n"
    "                     native atomics and NVLink links\n"
    "      --mem          free memory too (creates a context on each device)\n"
    "      --nvml         the GPUs as NVML sees them, without cuInit (MIG instances\n"
    "                     included), matched to CUDA ordinals by UUID; shown\n"
    "                     anyway when the CUDA driver cannot initialise\n"
    "      --mpi          whether MPI moves device memory (CUDA-aware MPI) and why,\n"
    "                     and the NCCL cudyn finds for collectives\n"
    "      --require N    fail (exit 5) unless at least N devices are visible\n"
    "      --explain      the loader's search, the toolkit's headers, libcudadevrt.a and\n"
    "                     nvJitLink, and a diagnosis of this machine\n"
    "      --json         one JSON document (schema " SCHEMA ") on stdout\n"
    "  -q, --quiet        print nothing; only the exit code tells\n"
    "      --version      cudyn's version\n"
    "  -h, --help         this help\n\n";

struct options {
    bool all, p2p, mem, explain, nvml, mpi;
    int require;
    const char *select[MAX_SELECT];
    int n_select;
    int props[MAX_PROPS]; /* attribute values, checked against the library's names */
    int n_props;
};

/* Environment variables that change what the driver shows; reported by
 * --explain and in the JSON document. */
static const char *const env_vars[] = {
    "CUDA_VISIBLE_DEVICES", "CUDA_DEVICE_ORDER", "CUDYN_LIBCUDA",        "CUDYN_LIBNVRTC",      "CUDYN_PTDS", "CUDYN_COMPAT",
    "CUDA_PATH",            "CUDA_HOME",         "LD_LIBRARY_PATH",      "CUDA_DISABLE_PTX_JIT", "CUDA_MODULE_LOADING",
    "CUDAINFO_NVML",        "CUDYN_DEVICE",      "CUDYN_LIBNVML",        "CUDYN_LIBNCCL",       "OMPI_MCA_opal_cuda_support",
    "MV2_USE_CUDA",         "MPICH_GPU_SUPPORT_ENABLED", "UCX_TLS",      "NCCL_NVLS_ENABLE",   "CUDYN_TOOLKIT",
    "CUDYN_LIBNVJITLINK",   "CONDA_PREFIX",
};
#define N_ENV (sizeof env_vars / sizeof env_vars[0])

/* One attribute as read: CUDYN_ERROR_NOT_SUPPORTED is a driver that does
 * not know it, any other status a failure (error holds what happened). */
struct attribute {
    int attr;
    int status;
    int value;
    char *error;
};

struct device_row {
    int ordinal;
    int status; /* of cudyn_device_info */
    struct cudyn_device_info info;
    struct failure why; /* why it could not be described */
    size_t free_bytes;
    bool have_free;
    struct attribute *attrs;
    int n_attrs;
};

/* One fact about a pair of devices: its value is meaningful when the
 * status is CUDYN_OK; unknown otherwise. */
struct pair_fact {
    int status;
    int value;
};

/* How device `from` reaches device `to`. */
struct link {
    struct pair_fact access, rank, atomics;
};

struct report {
    struct tool tool;
    struct options opt;
    struct cudyn_loader_info loader;
    char kernel_module[64]; /* its version, "" if not loaded (read once) */
    char versions[2048];    /* cudyn_versions_line, for --explain and the JSON */
    struct cudyn_toolkit_info toolkit; /* with --explain or --json: the toolkit's headers, libcudadevrt.a, nvJitLink */
    const char *loading_mode; /* "lazy", "eager", or NULL: the driver did not say */
    int count;
    struct device_row *rows;
    bool *selected;
    struct link *links; /* count x count, with --p2p */
    struct nvlink_topology nvlink;
    struct nvml_listing nvml; /* with --nvml, or when CUDA cannot list the GPUs */
    struct mpi_info mpi;      /* with --mpi */
    struct failure failure;
};

/* -------------------------------------------------------------- options */

static int attribute_by_name(const char *name)
{
    for (int a = 1; a < cudyn_device_attr_count(); a++)
        if (cudyn_device_attr_name(a) && strcmp(cudyn_device_attr_name(a), name) == 0)
            return a;
    return 0;
}

enum { OPT_PROP = OPT_FIRST_TOOL_OPTION, OPT_P2P, OPT_MEM, OPT_REQUIRE, OPT_EXPLAIN, OPT_NVML, OPT_MPI };

static void take_option(void *options, int c, const char *arg, struct failure *f)
{
    struct options *opt = options;
    switch (c) {
    case 'a': opt->all = true; break;
    case OPT_PROP: {
        int a = attribute_by_name(arg);
        if (!a)
            failure_set(f, EXIT_USAGE, "unknown attribute '%s' for --prop; cudainfo -a lists them all", arg);
        else if (opt->n_props == MAX_PROPS)
            failure_set(f, EXIT_USAGE, "more than %d --prop options", MAX_PROPS);
        else
            opt->props[opt->n_props++] = a;
        break;
    }
    case 'd':
        if (opt->n_select == MAX_SELECT)
            failure_set(f, EXIT_USAGE, "more than %d -d options", MAX_SELECT);
        else
            opt->select[opt->n_select++] = arg;
        break;
    case OPT_P2P: opt->p2p = true; break;
    case OPT_MEM: opt->mem = true; break;
    case OPT_REQUIRE: {
        char *end;
        long v = strtol(arg, &end, 10);
        /* no device at all is exit 5 in any case: 0 would promise otherwise */
        if (!arg[0] || *end || v < 1 || v > 1024)
            failure_set(f, EXIT_USAGE, "--require takes a number of devices from 1 to 1024, not '%s'", arg);
        else
            opt->require = (int)v;
        break;
    }
    case OPT_EXPLAIN: opt->explain = true; break;
    case OPT_NVML: opt->nvml = true; break;
    case OPT_MPI: opt->mpi = true; break;
    }
}

static int parse_options(struct report *r, int argc, char **argv)
{
    static const struct option long_options[] = {
        {"all", no_argument, NULL, 'a'},          {"prop", required_argument, NULL, OPT_PROP},
        {"device", required_argument, NULL, 'd'}, {"p2p", no_argument, NULL, OPT_P2P},
        {"mem", no_argument, NULL, OPT_MEM},      {"require", required_argument, NULL, OPT_REQUIRE},
        {"explain", no_argument, NULL, OPT_EXPLAIN}, {"nvml", no_argument, NULL, OPT_NVML},
        {"mpi", no_argument, NULL, OPT_MPI},      TOOL_LONG_OPTIONS,
        {NULL, 0, NULL, 0},
    };
    return tool_parse(&r->tool, argc, argv, TOOL_SHORT_OPTIONS "ad:", long_options, take_option, &r->opt,
                      &r->failure);
}

/* ---------------------------------------------------------- gathering */

/* Records a failure of part of what was asked, f in `context`; the first
 * one is reported. */
static void partial_failure_of(struct report *r, const char *context, const struct failure *f)
{
    if (r->failure.exit_code != EXIT_OK)
        return;
    r->failure = *f;
    snprintf(r->failure.what, sizeof r->failure.what, "%s: %s", context, f->what);
}

/* As partial_failure_of, for the library's last error. */
static void partial_failure(struct report *r, const char *context)
{
    if (r->failure.exit_code == EXIT_OK)
        failure_from_last_error(&r->failure, EXIT_PARTIAL, context);
}

static bool describe_devices(struct report *r)
{
    r->rows = calloc((size_t)r->count, sizeof *r->rows);
    r->selected = calloc((size_t)r->count, sizeof *r->selected);
    if (!r->rows || !r->selected) { /* no rows: the report gives only the count */
        free(r->rows);
        free(r->selected);
        r->rows = NULL;
        r->selected = NULL;
        return false;
    }
    for (int i = 0; i < r->count; i++) {
        struct device_row *row = &r->rows[i];
        row->ordinal = i;
        row->info.size = sizeof row->info;
        row->status = cudyn_device_info(i, &row->info);
        if (row->status != CUDYN_OK)
            failure_from_last_error(&row->why, EXIT_PARTIAL, NULL);
        r->selected[i] = r->opt.n_select == 0;
    }
    return true;
}

static bool select_devices(struct report *r)
{
    const struct cudyn_device_info **infos = calloc((size_t)r->count, sizeof *infos);
    const struct failure **why = calloc((size_t)r->count, sizeof *why);
    for (int i = 0; infos && why && i < r->count; i++) {
        infos[i] = r->rows[i].status == CUDYN_OK ? &r->rows[i].info : NULL;
        why[i] = &r->rows[i].why;
    }
    for (int s = 0; infos && why && s < r->opt.n_select && r->failure.exit_code == EXIT_OK; s++) {
        int idx = device_select_or_fail(r->opt.select[s], infos, why, r->count, &r->failure);
        if (idx >= 0)
            r->selected[idx] = true;
    }
    bool ok = infos && why;
    free(infos);
    free(why);
    return ok;
}

static bool wants_attribute(const struct options *opt, int a)
{
    if (!cudyn_device_attr_name(a))
        return false;
    for (int p = 0; p < opt->n_props; p++)
        if (opt->props[p] == a)
            return true;
    return opt->n_props == 0;
}

static bool read_attributes(struct report *r, struct device_row *row)
{
    row->attrs = calloc((size_t)cudyn_device_attr_count(), sizeof *row->attrs);
    if (!row->attrs)
        return false;
    for (int a = 1; a < cudyn_device_attr_count(); a++) {
        if (!wants_attribute(&r->opt, a))
            continue;
        struct attribute *v = &row->attrs[row->n_attrs++];
        v->attr = a;
        v->status = cudyn_device_attribute(row->ordinal, a, &v->value);
        if (v->status == CUDYN_OK || v->status == CUDYN_ERROR_NOT_SUPPORTED)
            continue;
        char context[128];
        snprintf(context, sizeof context, "device %d, attribute %s", row->ordinal, cudyn_device_attr_name(a));
        struct failure f;
        failure_from_last_error(&f, EXIT_PARTIAL, NULL);
        v->error = strdup(f.what);
        partial_failure_of(r, context, &f);
    }
    return true;
}

static void read_free_memory(struct report *r, struct device_row *row)
{
    size_t total;
    if (cudyn_device_use(row->ordinal) == CUDYN_OK && cudyn_mem_info(&row->free_bytes, &total) == CUDYN_OK) {
        row->have_free = true;
        return;
    }
    char context[64];
    snprintf(context, sizeof context, "device %d, free memory", row->ordinal);
    partial_failure(r, context);
}

/* What each selected device was asked for beyond its description. */
static bool read_devices(struct report *r)
{
    for (int i = 0; i < r->count; i++) {
        struct device_row *row = &r->rows[i];
        if (!r->selected[i])
            continue;
        if (row->status != CUDYN_OK) {
            char context[32];
            snprintf(context, sizeof context, "device %d", i);
            partial_failure_of(r, context, &row->why);
            continue;
        }
        if (r->opt.mem)
            read_free_memory(r, row);
        if ((r->opt.all || r->opt.n_props) && !read_attributes(r, row))
            return false;
    }
    return true;
}

/* A pair fact: unknown where the driver cannot say (too old, or the
 * attribute is not supported); any other error is a partial failure. */
static void read_pair_fact(struct report *r, struct pair_fact *fact, int a, int b, int attr, const char *what)
{
    fact->status = attr ? cudyn_device_p2p_attribute(a, b, attr, &fact->value)
                        : cudyn_device_can_access_peer(a, b, &fact->value);
    if (fact->status == CUDYN_OK || fact->status == CUDYN_ERROR_NOT_SUPPORTED ||
        fact->status == CUDYN_ERROR_SYMBOL_NOT_FOUND)
        return;
    char context[96];
    snprintf(context, sizeof context, "devices %d and %d, %s", a, b, what);
    partial_failure(r, context);
}

static bool read_links(struct report *r)
{
    int n = r->count;
    r->links = calloc((size_t)n * (size_t)n, sizeof *r->links);
    const char **ids = calloc((size_t)n, sizeof *ids);
    if (!r->links || !ids) { /* no links: the report leaves them out */
        free(r->links);
        r->links = NULL;
        free(ids);
        return false;
    }
    for (int a = 0; a < n; a++) {
        ids[a] = r->rows[a].info.pci_bus_id;
        for (int b = 0; b < n; b++) {
            struct link *l = &r->links[a * n + b];
            if (a == b)
                continue;
            read_pair_fact(r, &l->access, a, b, 0, "peer access");
            read_pair_fact(r, &l->rank, a, b, CUDYN_P2P_PERFORMANCE_RANK, "performance rank");
            read_pair_fact(r, &l->atomics, a, b, CUDYN_P2P_NATIVE_ATOMIC_SUPPORTED, "native atomics");
        }
    }
    bool ok = nvlink_topology(&r->nvlink, ids, n);
    free(ids);
    return ok;
}

/* Why the NVRTC found was refused (the search trace's last "rejected: "
 * line), into why; false when none was found at all. */
static bool nvrtc_rejection(const char *trace, char *why, size_t cap)
{
    const char *last = NULL;
    for (const char *p = trace; p && (p = strstr(p, "rejected: ")); p++)
        last = p + strlen("rejected: ");
    if (last && why)
        snprintf(why, cap, "%.*s", (int)strcspn(last, "\n"), last);
    return last != NULL;
}

/* NVML's listing, matched with the CUDA devices described (all of them,
 * whatever -d selects).  False only when out of memory. */
static bool gather_nvml(struct report *r)
{
    struct cudyn_device_info *infos = calloc((size_t)(r->count > 0 ? r->count : 1), sizeof *infos);
    if (!infos)
        return false;
    for (int i = 0; r->rows && i < r->count; i++)
        infos[i] = r->rows[i].info; /* one not described has no UUID: it matches nothing */
    bool ok = nvml_listing_gather(&r->nvml, infos, r->count, NULL);
    free(infos);
    /* asked for and not read: a partial failure (exit 7) */
    if (ok && r->nvml.status != CUDYN_OK && r->failure.exit_code == EXIT_OK)
        failure_set(&r->failure, EXIT_PARTIAL, "NVML could not list the GPUs");
    return ok;
}

/* Loader, devices, what was asked about them: the whole report, and the
 * exit code in r->failure.  False only when out of memory. */
static bool gather(struct report *r)
{
    if (r->opt.mpi) /* first: it needs no driver, and reports even when CUDA cannot start */
        mpi_info_gather(&r->mpi);
    int start = tool_start(&r->loader, CUDYN_LOAD_ALL, &r->count, &r->failure);
    if (start != EXIT_OK) {
        /* CUDA cannot list the GPUs: NVML may, without cuInit */
        if (start == EXIT_INIT_FAILED || start == EXIT_NO_DRIVER) {
            r->count = 0;
            return nvml_listing_gather(&r->nvml, NULL, 0,
                                       start == EXIT_INIT_FAILED ? "cuInit failed"
                                                                 : "the CUDA driver library could not be used");
        }
        return true;
    }
    if (r->count < r->opt.require)
        failure_set(&r->failure, EXIT_NO_DEVICES, "%d device%s visible, %d required", r->count,
                    r->count == 1 ? "" : "s", r->opt.require);
    if (!describe_devices(r) || !select_devices(r))
        return false;
    if (r->opt.nvml && !gather_nvml(r))
        return false;
    if (r->failure.exit_code != EXIT_OK)
        return true;
    if (!read_devices(r))
        return false;
    if (r->opt.p2p && !read_links(r))
        return false;
    /* no NVRTC is a machine without the toolkit; a broken one is a failure */
    char why[600];
    if (r->failure.exit_code == EXIT_OK && r->loader.nvrtc_status != CUDYN_OK &&
        nvrtc_rejection(r->loader.nvrtc_trace, why, sizeof why))
        failure_set(&r->failure, EXIT_PARTIAL, "NVRTC was found but is not usable: %s", why);
    return true;
}

static void free_report(struct report *r)
{
    for (int i = 0; r->rows && i < r->count; i++) {
        for (int a = 0; a < r->rows[i].n_attrs; a++)
            free(r->rows[i].attrs[a].error);
        free(r->rows[i].attrs);
    }
    free(r->rows);
    free(r->selected);
    free(r->links);
    nvlink_topology_free(&r->nvlink);
    nvml_listing_free(&r->nvml);
}

/* ------------------------------------------------------------------ JSON */

static void json_attributes(struct json *j, const struct device_row *row)
{
    json_object_begin(j, "attributes");
    for (int i = 0; i < row->n_attrs; i++) {
        const struct attribute *v = &row->attrs[i];
        json_object_begin(j, cudyn_device_attr_name(v->attr));
        json_int_or_null(j, "value", v->status == CUDYN_OK, v->value);
        json_string(j, "unit", cudyn_device_attr_unit(v->attr));
        json_string(j, "status", cudyn_status_name(v->status));
        json_string(j, "error", v->error);
        json_object_end(j);
    }
    json_object_end(j);
}

static void json_device(struct json *j, const struct device_row *row)
{
    const struct cudyn_device_info *d = &row->info;
    json_object_begin(j, NULL);
    json_int(j, "ordinal", row->ordinal);
    json_string(j, "status", cudyn_status_name(row->status));
    if (row->status != CUDYN_OK) {
        json_string(j, "error", row->why.what);
        json_string(j, "hint", row->why.hint[0] ? row->why.hint : NULL);
        json_object_end(j);
        return;
    }
    char cc[16], arch[16];
    snprintf(cc, sizeof cc, "%d.%d", d->cc_major, d->cc_minor);
    snprintf(arch, sizeof arch, "sm_%d%d", d->cc_major, d->cc_minor);
    json_string(j, "name", d->name);
    json_string(j, "uuid", d->uuid_string[0] ? d->uuid_string : NULL);
    json_string(j, "pci_bus_id", d->pci_bus_id);
    json_string(j, "compute_capability", cc);
    json_string(j, "arch", arch);
    json_uint(j, "total_memory_bytes", d->total_memory);
    json_int_or_null(j, "free_memory_bytes", row->have_free, (long long)row->free_bytes);
    json_int(j, "multiprocessors", d->multiprocessors);
    json_int_or_null(j, "clock_khz", d->clock_khz != 0, d->clock_khz);
    json_int_or_null(j, "memory_clock_khz", d->memory_clock_khz != 0, d->memory_clock_khz);
    json_int(j, "memory_bus_width_bits", d->memory_bus_width);
    json_int(j, "l2_cache_bytes", d->l2_cache_bytes);
    json_int(j, "compute_mode", d->compute_mode);
    json_bool(j, "ecc_enabled", d->ecc_enabled != 0);
    json_bool(j, "integrated", d->integrated != 0);
    if (row->attrs)
        json_attributes(j, row);
    json_object_end(j);
}

static void json_fact(struct json *j, const char *key, const struct pair_fact *f, bool boolean)
{
    if (f->status != CUDYN_OK)
        json_null(j, key);
    else if (boolean)
        json_bool(j, key, f->value != 0);
    else
        json_int(j, key, f->value);
}

static void json_links(struct json *j, const struct report *r)
{
    int n = r->count;
    json_array_begin(j, "links");
    for (int a = 0; a < n; a++)
        for (int b = 0; b < n; b++) {
            if (a == b)
                continue;
            const struct link *l = &r->links[a * n + b];
            json_object_begin(j, NULL);
            json_int(j, "from", a);
            json_int(j, "to", b);
            json_fact(j, "access", &l->access, true);
            json_fact(j, "performance_rank", &l->rank, false);
            json_fact(j, "native_atomics", &l->atomics, true);
            int nv = nvlink_links(&r->nvlink, a, b);
            json_int_or_null(j, "nvlink_links", nv >= 0, nv);
            json_object_end(j);
        }
    json_array_end(j);
}

static void json_p2p(struct json *j, const struct report *r)
{
    int n = r->count;
    json_object_begin(j, "p2p");
    json_array_begin(j, "access");
    for (int a = 0; a < n; a++) {
        json_array_begin(j, NULL);
        for (int b = 0; b < n; b++)
            if (a == b)
                json_null(j, NULL);
            else
                json_fact(j, NULL, &r->links[a * n + b].access, true);
        json_array_end(j);
    }
    json_array_end(j);
    json_links(j, r);
    json_object_begin(j, "nvml");
    json_bool(j, "available", r->nvlink.known);
    json_string(j, "library", r->nvlink.library);
    json_string(j, "why_not", r->nvlink.known ? NULL : r->nvlink.why);
    json_object_end(j);
    json_object_end(j);
}

static bool module_loaded(const char *name)
{
    FILE *f = fopen("/proc/modules", "r");
    if (!f)
        return false;
    char line[512];
    size_t n = strlen(name);
    bool found = false;
    while (!found && fgets(line, sizeof line, f))
        found = strncmp(line, name, n) == 0 && line[n] == ' ';
    fclose(f);
    return found;
}

static void json_diagnosis(struct json *j)
{
    json_object_begin(j, "diagnosis");
    json_bool(j, "proc_driver_nvidia", access("/proc/driver/nvidia/version", R_OK) == 0);
    json_bool(j, "nvidia_uvm_loaded", module_loaded("nvidia_uvm"));
    json_bool(j, "dev_nvidiactl_accessible", access("/dev/nvidiactl", R_OK | W_OK) == 0);
    json_bool(j, "dev_nvidia0_accessible", access("/dev/nvidia0", R_OK | W_OK) == 0);
    json_object_end(j);
}

/* Every version a skew between them can break, as the library's errors
 * name them; the headers are the toolkit's that cudyn_compile hands NVRTC
 * (the first of its include path). */
static void versions_line(struct report *r)
{
    char include[4200] = "";
    const char *path = r->toolkit.include_path;
    if (path)
        snprintf(include, sizeof include, "%.*s", (int)strcspn(path, ":"), path);
    if (cudyn_versions_line(r->versions, sizeof r->versions, r->count > 0 ? 0 : -1, include[0] ? include : NULL) !=
        CUDYN_OK)
        r->versions[0] = '\0';
}

/* What the toolkit gives at run time: headers, libcudadevrt.a, nvJitLink
 * (cudyn_toolkit_info loads nvJitLink; its absence is no failure). */
static void toolkit(struct report *r)
{
    r->toolkit.size = sizeof r->toolkit;
    if (cudyn_toolkit_info(&r->toolkit) != CUDYN_OK)
        r->toolkit.size = 0;
    cudyn_clear_error();
}

static void json_toolkit(struct json *j, const struct cudyn_toolkit_info *t, bool traces)
{
    if (!t->size)
        return;
    json_object_begin(j, "toolkit");
    json_string(j, "include_path", t->include_path);
    json_string(j, "headers_found_by", t->headers_found_by);
    json_string(j, "headers_location", t->headers_location);
    json_string(j, "cudadevrt", t->cudadevrt);
    json_string(j, "cudadevrt_found_by", t->cudadevrt_found_by);
    json_object_begin(j, "nvjitlink");
    json_string(j, "status", cudyn_status_name(t->nvjitlink_status));
    json_string(j, "path", t->nvjitlink_path);
    json_string(j, "found_by", t->nvjitlink_found_by);
    json_int(j, "version", t->nvjitlink_version);
    if (traces)
        json_string(j, "trace", t->nvjitlink_trace);
    json_object_end(j);
    if (traces)
        json_string(j, "trace", t->trace);
    json_object_end(j);
}

/* The module loading mode in effect, as the driver says it (11.7+):
 * CUDA_MODULE_LOADING is only a request, which the driver's default and
 * its version decide. */
static void loading_mode(struct report *r)
{
    typedef unsigned int (*get_mode_fn)(unsigned int *mode);
    r->loading_mode = NULL;
    if (r->loader.init_status != CUDYN_OK)
        return;
    get_mode_fn get_mode = (get_mode_fn)cudyn_driver_proc("cuModuleGetLoadingMode", 11070);
    unsigned int mode = 0;
    if (get_mode && get_mode(&mode) == 0) /* CUDA_SUCCESS */
        r->loading_mode = mode == 2 ? "lazy" : mode == 1 ? "eager" : NULL;
    cudyn_clear_error(); /* a driver without it is not this run's failure */
}

static void write_json(const struct report *r)
{
    struct json j;
    json_init(&j, stdout);
    json_document_begin(&j, SCHEMA);
    json_loader(&j, &r->loader, r->kernel_module, r->opt.explain);
    json_string(&j, "versions", r->versions[0] ? r->versions : NULL);
    json_string(&j, "module_loading", r->loading_mode);
    json_toolkit(&j, &r->toolkit, r->opt.explain);
    json_object_begin(&j, "environment");
    for (size_t i = 0; i < N_ENV; i++)
        json_string(&j, env_vars[i], getenv(env_vars[i]));
    json_object_end(&j);
    json_array_begin(&j, "devices");
    for (int i = 0; r->rows && i < r->count; i++)
        if (r->selected[i])
            json_device(&j, &r->rows[i]);
    json_array_end(&j);
    nvml_listing_json(&j, &r->nvml);
    mpi_info_json(&j, &r->mpi);
    if (r->links)
        json_p2p(&j, r);
    if (r->opt.explain)
        json_diagnosis(&j);
    int code = r->failure.exit_code;
    json_result(&j, code, code == EXIT_OK ? "ok" : "error", &r->failure);
    json_object_end(&j);
    json_finish(&j);
}

/* ------------------------------------------------------------------ text */

static double gib(uint64_t bytes)
{
    return (double)bytes / (1024.0 * 1024.0 * 1024.0);
}

/* An attribute's value in its unit: bytes as KiB/MiB/GiB with the exact
 * value, kHz as MHz, booleans as yes/no, bit masks in hex. */
static void format_value(char *out, size_t cap, const char *unit, int v)
{
    static const char *const binary[] = {"KiB", "MiB", "GiB"};
    if (strcmp(unit, "bytes") == 0) {
        int k = 0;
        while (k < 3 && (long long)v >= 1024LL << (10 * k))
            k++;
        if (k == 0) {
            snprintf(out, cap, "%d bytes", v);
            return;
        }
        double scaled = (double)v / (double)(1LL << (10 * k));
        snprintf(out, cap, v % (1 << (10 * k)) ? "%.1f %s (%d bytes)" : "%.0f %s (%d bytes)", scaled,
                 binary[k - 1], v);
    } else if (strcmp(unit, "kHz") == 0) {
        snprintf(out, cap, "%.10g MHz", v / 1000.0);
    } else if (strcmp(unit, "bits") == 0) {
        snprintf(out, cap, "%d bits", v);
    } else if (strcmp(unit, "bool") == 0 && (v == 0 || v == 1)) {
        snprintf(out, cap, "%s", v ? "yes" : "no");
    } else if (strcmp(unit, "flags") == 0) {
        snprintf(out, cap, "0x%x", (unsigned)v);
    } else {
        snprintf(out, cap, "%d", v);
    }
}

static void print_attributes(const struct device_row *row)
{
    for (int i = 0; i < row->n_attrs; i++) {
        const struct attribute *v = &row->attrs[i];
        char value[128];
        if (v->status == CUDYN_OK)
            format_value(value, sizeof value, cudyn_device_attr_unit(v->attr), v->value);
        else if (v->status == CUDYN_ERROR_NOT_SUPPORTED)
            snprintf(value, sizeof value, "n/a (not supported by this driver)");
        else
            snprintf(value, sizeof value, "error: %s", cudyn_status_name(v->status));
        printf("      %-52s %s\n", cudyn_device_attr_name(v->attr), value);
    }
}

static void print_header(const struct report *r)
{
    const struct cudyn_loader_info *l = &r->loader;
    const char *kmod = r->kernel_module;
    printf("cudainfo %s (cudyn)\n", cudyn_version());
    if (l->driver_status == CUDYN_OK)
        printf("Driver:  CUDA %d.%d%s%s, %s [%s; %s, %d entry points bound, %d absent]\n", l->driver_version / 1000,
               l->driver_version % 1000 / 10, kmod[0] ? ", kernel module " : "", kmod, l->driver_path,
               l->driver_found_by, l->entry_mechanism_name, l->symbols_bound, l->symbols_missing);
    else
        printf("Driver:  not loaded (%s)\n", cudyn_status_name(l->driver_status));
    if (l->nvrtc_status == CUDYN_OK)
        printf("NVRTC:   %d.%d, %s [%s]\n", l->nvrtc_version / 1000, l->nvrtc_version % 1000 / 10, l->nvrtc_path,
               l->nvrtc_found_by);
    else if (l->nvrtc_status != CUDYN_ERROR_NOT_READY)
        printf("NVRTC:   %s (run-time compilation unavailable)\n",
               nvrtc_rejection(l->nvrtc_trace, NULL, 0) ? "found but not usable" : "not found");
}

static void print_device(const struct device_row *row, bool color)
{
    const struct cudyn_device_info *d = &row->info;
    if (row->status != CUDYN_OK) {
        printf("  %d  error: %s\n", row->ordinal, row->why.what);
        return;
    }
    printf("  %s%d  %s%s  sm_%d%d  %.1f GiB", color ? "\033[1m" : "", row->ordinal, d->name, color ? "\033[0m" : "",
           d->cc_major, d->cc_minor, gib(d->total_memory));
    if (row->have_free)
        printf(" (%.1f GiB free)", gib(row->free_bytes));
    printf("  %d SMs  %s  %s\n", d->multiprocessors, d->pci_bus_id, d->uuid_string[0] ? d->uuid_string : "-");
    print_attributes(row);
}

static const char *fact_text(const struct pair_fact *f, char *buf, size_t cap, bool boolean)
{
    if (f->status != CUDYN_OK)
        return "unknown";
    if (boolean)
        return f->value ? "yes" : "no";
    snprintf(buf, cap, "%d", f->value);
    return buf;
}

/* A matrix over the devices, one cell per ordered pair, as nvidia-smi
 * topo -m prints them. */
typedef const char *(*cell_fn)(const struct report *r, int a, int b, char *buf, size_t cap);

static void print_matrix(const struct report *r, const char *title, cell_fn cell)
{
    printf("%s\n     ", title);
    for (int b = 0; b < r->count; b++)
        printf(" %5d", b);
    printf("\n");
    for (int a = 0; a < r->count; a++) {
        printf("  %3d", a);
        for (int b = 0; b < r->count; b++) {
            char buf[16];
            printf(" %5s", a == b ? "-" : cell(r, a, b, buf, sizeof buf));
        }
        printf("\n");
    }
}

static const char *access_cell(const struct report *r, int a, int b, char *buf, size_t cap)
{
    return fact_text(&r->links[a * r->count + b].access, buf, cap, true);
}

static const char *nvlink_cell(const struct report *r, int a, int b, char *buf, size_t cap)
{
    int links = nvlink_links(&r->nvlink, a, b);
    if (links < 0)
        return "?";
    if (links == 0)
        return "none";
    snprintf(buf, cap, "NV%d", links);
    return buf;
}

static void print_links(const struct report *r)
{
    print_matrix(r, "Peer access (row can access column):", access_cell);
    if (r->nvlink.known)
        print_matrix(r, "NVLink links (as nvidia-smi topo -m counts them):", nvlink_cell);
    else
        printf("NVLink links: unknown (%s)\n", r->nvlink.why);
    printf("Peer links (performance rank: lower is faster):\n");
    for (int a = 0; a < r->count; a++)
        for (int b = 0; b < r->count; b++) {
            if (a == b)
                continue;
            const struct link *l = &r->links[a * r->count + b];
            char rank[16], atomics[16];
            printf("  %d -> %d  performance rank %s, native atomics %s\n", a, b,
                   fact_text(&l->rank, rank, sizeof rank, false),
                   fact_text(&l->atomics, atomics, sizeof atomics, true));
        }
}

static void print_device_nodes(void)
{
    DIR *d = opendir("/dev");
    int nodes = 0;
    struct dirent *e;
    while (d && (e = readdir(d)))
        if (strncmp(e->d_name, "nvidia", 6) == 0) {
            char path[300];
            struct stat st;
            snprintf(path, sizeof path, "/dev/%s", e->d_name);
            if (stat(path, &st) == 0)
                printf("  %-24s mode %04o, %s\n", path, (unsigned)(st.st_mode & 07777),
                       access(path, R_OK | W_OK) == 0 ? "accessible" : "NOT accessible to this user");
            nodes++;
        }
    if (d)
        closedir(d);
    if (!nodes)
        printf("  /dev/nvidia*: none\n");
}

/* The toolkit's headers, libcudadevrt.a and nvJitLink, and where cudyn
 * looked for them. */
static void print_toolkit(const struct cudyn_toolkit_info *t)
{
    if (!t->size)
        return;
    printf("\nToolkit at run time (headers for NVRTC, libcudadevrt.a, nvJitLink):\n");
    if (t->include_path)
        printf("  headers: %s [%s]\n", t->include_path, t->headers_found_by);
    else
        printf("  headers: none found: kernels can include cudyn's C library headers only\n");
    if (t->cudadevrt)
        printf("  libcudadevrt.a: %s [%s]\n", t->cudadevrt, t->cudadevrt_found_by);
    else
        printf("  libcudadevrt.a: none found: dynamic parallelism cannot be linked\n");
    if (t->nvjitlink_status == CUDYN_OK)
        printf("  nvJitLink: %d.%d, %s [%s]\n", t->nvjitlink_version / 1000, t->nvjitlink_version % 1000 / 10,
               t->nvjitlink_path, t->nvjitlink_found_by);
    else
        printf("  nvJitLink: none found: cudyn links with the driver's linker\n");
    printf("Toolkit search:\n%s", t->trace ? t->trace : "");
    printf("Loader search (libnvJitLink):\n%s", t->nvjitlink_trace ? t->nvjitlink_trace : "");
}

/* The loader's search and what this machine shows.  The failure itself
 * (and the library's hint) is printed once, by report_failure. */
static void print_explain(const struct report *r)
{
    const struct cudyn_loader_info *l = &r->loader;
    const char *kmod = r->kernel_module;
    printf("\nLoader search (libcuda):\n%s", l->driver_trace ? l->driver_trace : "");
    printf("\nLoader search (libnvrtc):\n%s", l->nvrtc_trace ? l->nvrtc_trace : "");
    print_toolkit(&r->toolkit);
    printf("\nDiagnosis:\n");
    printf("  /proc/driver/nvidia/version: %s\n", kmod[0] ? kmod : "absent (nvidia kernel module not loaded)");
    /* a forward-compat libcuda is chosen before binding: only if newer than
     * the kernel module and its cuInit, run in a child process that exits
     * at once, succeeds; else the system driver (cudyn-env(7)) */
    printf("  forward compatibility (CUDYN_COMPAT=%s): %s\n", l->compat_policy ? l->compat_policy : "auto",
           l->compat_decision ? l->compat_decision
                              : "no forward-compatibility libcuda was found; a compat library is used only when "
                                "newer than the kernel module and its cuInit succeeds in a child process");
    printf("  %s\n", r->versions);
    const char *asked = getenv("CUDA_MODULE_LOADING");
    printf("  module loading in effect: %s (CUDA_MODULE_LOADING%s%s)\n",
           r->loading_mode ? r->loading_mode : "unknown (the driver did not say; it does from CUDA 11.7 on)",
           asked && asked[0] ? "=" : " unset", asked && asked[0] ? asked : "");
    printf("  nvidia_uvm module: %s\n", module_loaded("nvidia_uvm") ? "loaded" : "not loaded");
    print_device_nodes();
    for (size_t i = 0; i < N_ENV; i++) {
        const char *v = getenv(env_vars[i]);
        if (v)
            printf("  %s=%s\n", env_vars[i], v);
    }
    struct cudyn_local_rank local = {.size = sizeof local};
    if (cudyn_local_rank_info(&local) == CUDYN_OK)
        printf("  local rank %d (from %s): device %d of %d%s\n", local.local_rank, local.variable, local.device,
               local.device_count, local.shared ? ", shared with other local ranks" : "");
    else if (local.variable)
        printf("  local rank: %s is not a rank number\n", local.variable);
    else
        printf("  local rank: no launcher variable set (not started by mpirun or srun)\n");
    if (r->failure.exit_code == EXIT_OK)
        printf("  no problem found\n");
}

static void print_text(const struct report *r)
{
    print_header(r);
    if (r->rows) {
        int shown = 0;
        for (int i = 0; i < r->count; i++)
            shown += r->selected[i];
        printf("Devices: %d visible%s\n", r->count, shown > 0 && shown < r->count ? ", selected:" : "");
        bool color = isatty(fileno(stdout)) && getenv("NO_COLOR") == NULL;
        for (int i = 0; i < r->count; i++)
            if (r->selected[i])
                print_device(&r->rows[i], color);
        if (r->links)
            print_links(r);
    } else if (r->count > 0) { /* counted, but not described (out of host memory) */
        printf("Devices: %d visible, not described\n", r->count);
    } else if (r->failure.exit_code != EXIT_USAGE) {
        printf("Devices: none\n");
    }
    nvml_listing_print(&r->nvml);
    mpi_info_print(&r->mpi, r->opt.explain);
    if (r->opt.explain)
        print_explain(r);
}

/* The failure on stderr, its message once: --explain's trace may already
 * hold it word for word. */
static void report_failure(const struct report *r)
{
    struct failure f = r->failure;
    const struct cudyn_loader_info *l = &r->loader;
    if (r->opt.explain && ((l->driver_trace && strstr(l->driver_trace, f.what)) ||
                           (l->nvrtc_trace && strstr(l->nvrtc_trace, f.what))))
        f.what[0] = '\0';
    failure_print(r->tool.name, &f);
}

/* ------------------------------------------------------------------ main */

/* Under --explain, the part of the library's hint that sends the reader
 * to CUDYN_EXPLAIN_COMMAND, "cudainfo --explain" (a parenthesis, or a
 * clause such as "and run cudainfo --explain"), goes: that is what was
 * just shown. */
static void drop_self_reference(char *hint)
{
    static const char me[] = CUDYN_EXPLAIN_COMMAND;
    char *at = strstr(hint, me);
    if (!at)
        return;
    char *from = at, *end = at + strlen(me);
    char *open = NULL;
    for (char *p = at; p > hint && !open && p[-1] != ')'; p--)
        if (p[-1] == '(')
            open = p - 1;
    if (open && strchr(end, ')')) { /* " (cudainfo --explain shows ...)" */
        from = open > hint && open[-1] == ' ' ? open - 1 : open;
        end = strchr(end, ')') + 1;
    } else { /* "; run cudainfo --explain", "and run cudainfo --explain" */
        static const char *const joins[] = {" and ", "; ", ", "};
        if (from - hint >= 4 && strncmp(from - 4, "run ", 4) == 0)
            from -= 4;
        for (size_t i = 0; i < sizeof joins / sizeof joins[0]; i++) {
            size_t n = strlen(joins[i]);
            if ((size_t)(from - hint) >= n && strncmp(from - n, joins[i], n) == 0) {
                from -= n;
                break;
            }
        }
    }
    memmove(from, end, strlen(end) + 1);
}

static int finish(struct report *r)
{
    if (r->opt.explain)
        drop_self_reference(r->failure.hint);
    if (r->opt.explain || r->tool.json) {
        if (r->failure.exit_code != EXIT_USAGE)
            toolkit(r);
        versions_line(r);
        loading_mode(r);
    }
    if (r->tool.json)
        write_json(r);
    else if (!r->tool.quiet) {
        if (r->failure.exit_code != EXIT_USAGE)
            print_text(r);
        fflush(stdout);
        report_failure(r);
    }
    free_report(r);
    return r->failure.exit_code;
}

int main(int argc, char **argv)
{
    static struct report r = {.tool = {.name = "cudainfo", .letter = 'i', .schema = SCHEMA, .ok = "ok", .usage = usage_text}};
    int code = parse_options(&r, argc, argv);
    r.loader.size = sizeof r.loader;
    kernel_module_version(r.kernel_module, sizeof r.kernel_module);
    if (code == EXIT_USAGE) {
        cudyn_loader_info_ex(&r.loader, CUDYN_LOAD_NOTHING); /* described, nothing loaded */
        return finish(&r);
    }
    if (code >= 0)
        return code;
    /* out of memory, what was gathered is reported, and the failure
     * (as text or JSON), unless an earlier one is the first */
    if (!gather(&r) && r.failure.exit_code == EXIT_OK)
        failure_set(&r.failure, EXIT_PARTIAL, "out of host memory");
    return finish(&r);
}
