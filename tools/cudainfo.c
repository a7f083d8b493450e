/*
 * cudainfo - which GPUs, driver and NVRTC this machine has, and why
 * something fails.  Results go to stdout, diagnostics to stderr; --json
 * writes one valid document on every path, failures included.
 *
 * Exit codes: 0 ok, 2 usage, 3 no driver library, 4 cuInit failed,
 * 5 no or too few devices, 6 selected device not found, 7 partial failure.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cudyn.h"
#include "device_select.h"
#include "json.h"

enum exit_code {
    EXIT_OK = 0,
    EXIT_USAGE = 2,
    EXIT_NO_DRIVER = 3,
    EXIT_INIT_FAILED = 4,
    EXIT_NO_DEVICES = 5,
    EXIT_DEVICE_NOT_FOUND = 6,
    EXIT_PARTIAL = 7,
};

#define MAX_SELECT 64
#define MAX_PROPS 64

struct options {
    bool all, p2p, mem, explain, json, quiet;
    int require;
    const char *select[MAX_SELECT];
    int n_select;
    const char *props[MAX_PROPS];
    int n_props;
};

/* Environment variables that change what the driver shows; reported by
 * --explain and in the JSON document. */
static const char *const env_vars[] = {
    "CUDA_VISIBLE_DEVICES", "CUDA_DEVICE_ORDER", "CUDYN_LIBCUDA", "CUDYN_LIBNVRTC", "CUDYN_PTDS",
    "CUDA_PATH",            "CUDA_HOME",         "LD_LIBRARY_PATH", "CUDA_DISABLE_PTX_JIT", "CUDA_MODULE_LOADING",
};
#define N_ENV (sizeof env_vars / sizeof env_vars[0])

static void usage(FILE *out)
{
    fprintf(out,
            "Usage: cudainfo [OPTION]...\n"
            "Show the NVIDIA driver, NVRTC and GPUs cudyn finds, and why something fails.\n\n"
            "  -a, --all          every attribute the driver reports for each device\n"
            "      --prop NAME    only this attribute (repeatable; implies -a)\n"
            "  -d, --device SEL   select a device by ordinal, UUID (or unique prefix) or\n"
            "                     PCI bus id (repeatable)\n"
            "      --p2p          peer-access matrix\n"
            "      --mem          free memory too (creates a context on each device)\n"
            "      --require N    fail (exit 5) unless at least N devices are visible\n"
            "      --explain      the loader's search and a diagnosis of this machine\n"
            "      --json         one JSON document (schema cudainfo/1) on stdout\n"
            "  -q, --quiet        print nothing; only the exit code tells\n"
            "      --version      cudyn's version\n"
            "  -h, --help         this help\n\n"
            "Exit codes: 0 ok, 2 usage, 3 no driver library, 4 cuInit failed,\n"
            "5 no or too few devices, 6 device not found, 7 partial failure.\n");
}

/* ------------------------------------------------------------ utilities */

static const char *mechanism_name(int m)
{
    switch (m) {
    case CUDYN_ENTRY_PROC_ADDRESS_V2: return "cuGetProcAddress_v2";
    case CUDYN_ENTRY_PROC_ADDRESS_V1: return "cuGetProcAddress";
    case CUDYN_ENTRY_DLSYM: return "dlsym";
    default: return "none";
    }
}

/* "580.95.05" from /proc/driver/nvidia/version, or "": the first word of
 * the first line that looks like a version (digits and dots, two dots). */
static void kernel_module_version(char *out, size_t cap)
{
    out[0] = '\0';
    FILE *f = fopen("/proc/driver/nvidia/version", "r");
    if (!f)
        return;
    char line[512];
    if (fgets(line, sizeof line, f)) {
        char *save = NULL;
        for (char *w = strtok_r(line, " \t\n", &save); w; w = strtok_r(NULL, " \t\n", &save)) {
            size_t dots = 0, n = strlen(w);
            bool shaped = n > 0 && w[0] >= '0' && w[0] <= '9';
            for (size_t i = 0; i < n && shaped; i++)
                if (w[i] == '.')
                    dots++;
                else if (w[i] < '0' || w[i] > '9')
                    shaped = false;
            if (shaped && dots >= 1) {
                snprintf(out, cap, "%s", w);
                break;
            }
        }
    }
    fclose(f);
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

static double gib(uint64_t bytes)
{
    return (double)bytes / (1024.0 * 1024.0 * 1024.0);
}

static bool is_tty(FILE *f)
{
    return isatty(fileno(f)) && getenv("NO_COLOR") == NULL;
}

/* ------------------------------------------------------- device selection */

struct device_row {
    int ordinal;
    int status; /* cudyn_status of cudyn_device_info */
    struct cudyn_device_info info;
    char error[1024];
    size_t free_bytes;
    bool have_free;
};

/* ---------------------------------------------------------------- output */

struct report {
    struct options *opt;
    struct cudyn_loader_info loader;
    char kmod[64];
    int count;
    struct device_row *rows;
    bool *selected;
    int exit_code;
    char message[1024];
    char hint[1024];
};

/* A hint for what went wrong, from the failure recorded by cudyn. */
static void diagnose(struct report *r, const cudyn_error *err)
{
    const char *h = NULL;
    switch (err->status) {
    case CUDYN_ERROR_DRIVER_NOT_FOUND:
        h = r->kmod[0] ? "the nvidia kernel module is loaded but libcuda.so.1 is not on the library path; install the "
                         "driver's user-space package (e.g. libcuda1 / nvidia-driver-libs) or set CUDYN_LIBCUDA"
                       : "no NVIDIA driver is installed (no libcuda.so.1, no /proc/driver/nvidia); install the NVIDIA "
                         "driver, or this machine has no NVIDIA GPU";
        break;
    case CUDYN_ERROR_STUB_DRIVER:
        h = "only the CUDA toolkit's stub libcuda was found; remove .../lib64/stubs from LD_LIBRARY_PATH and install "
            "the NVIDIA driver";
        break;
    default: break;
    }
    if (!h) {
        switch (err->native_code) {
        case 34: h = "a stub libcuda answered; remove the toolkit's stubs directory from LD_LIBRARY_PATH"; break;
        case 35: h = "the driver is older than the CUDA version in use; update the NVIDIA driver"; break;
        case 100:
            h = getenv("CUDA_VISIBLE_DEVICES")
                    ? "CUDA_VISIBLE_DEVICES hides every GPU; unset it or list valid ordinals/UUIDs"
                    : "the driver sees no GPU: check that /dev/nvidia0 exists and is readable and that the GPU is "
                      "visible to this container or VM";
            break;
        case 803: h = "the kernel module and libcuda versions differ; reboot after a driver update or reinstall the driver"; break;
        case 804: h = "a forward-compatibility libcuda is on the library path but this GPU does not support it; remove the compat directory from LD_LIBRARY_PATH"; break;
        case 999: h = "an unknown driver error; check dmesg for Xid messages, and that nvidia_uvm is loaded"; break;
        case 46: h = "the GPU is busy or in exclusive-process mode (nvidia-smi shows who uses it)"; break;
        default: break;
        }
    }
    snprintf(r->message, sizeof r->message, "%s", err->message);
    snprintf(r->hint, sizeof r->hint, "%s", h ? h : "");
}

static void json_loader(struct json *j, const struct report *r)
{
    const struct cudyn_loader_info *l = &r->loader;
    json_object_begin(j, "loader");
    json_object_begin(j, "driver");
    json_string(j, "status", cudyn_status_name(l->driver_status));
    json_string(j, "init_status", cudyn_status_name(l->init_status));
    json_string(j, "path", l->driver_path);
    json_string(j, "found_by", l->driver_found_by);
    if (l->driver_version)
        json_int(j, "version", l->driver_version);
    else
        json_null(j, "version");
    json_string(j, "entry_mechanism", l->driver_status == CUDYN_OK ? mechanism_name(l->entry_mechanism) : NULL);
    json_int(j, "symbols_bound", l->symbols_bound);
    json_int(j, "symbols_missing", l->symbols_missing);
    json_bool(j, "per_thread_stream", l->per_thread_stream != 0);
    json_string(j, "kernel_module_version", r->kmod[0] ? r->kmod : NULL);
    json_object_end(j);
    json_object_begin(j, "nvrtc");
    json_string(j, "status", cudyn_status_name(l->nvrtc_status));
    json_string(j, "path", l->nvrtc_path);
    json_string(j, "found_by", l->nvrtc_found_by);
    if (l->nvrtc_version)
        json_int(j, "version", l->nvrtc_version);
    else
        json_null(j, "version");
    json_string(j, "builtins_path", l->nvrtc_builtins_path);
    json_object_end(j);
    if (r->opt->explain) {
        json_string(j, "driver_trace", l->driver_trace);
        json_string(j, "nvrtc_trace", l->nvrtc_trace);
    }
    json_object_end(j);
}

/* Calls show() for each attribute -a (all) or --prop (those named) asks
 * for; ok is 0 where the driver does not report it. */
typedef void (*attribute_fn)(void *ctx, const char *name, int ok, int value);

static void each_attribute(int ordinal, const struct options *opt, attribute_fn show, void *ctx)
{
    for (int a = 1; a < cudyn_device_attr_count(); a++) {
        const char *name = cudyn_device_attr_name(a);
        if (!name)
            continue;
        bool wanted = opt->n_props == 0;
        for (int p = 0; p < opt->n_props && !wanted; p++)
            wanted = strcmp(opt->props[p], name) == 0;
        if (!wanted)
            continue;
        int v = 0;
        int ok = cudyn_device_attribute(ordinal, a, &v) == CUDYN_OK;
        show(ctx, name, ok, v);
    }
}

static void json_attribute(void *ctx, const char *name, int ok, int value)
{
    if (ok)
        json_int(ctx, name, value);
    else
        json_null(ctx, name);
}

static void print_attribute(void *ctx, const char *name, int ok, int value)
{
    (void)ctx;
    if (ok)
        printf("      %-52s %d\n", name, value);
    else
        printf("      %-52s n/a\n", name);
}

static void json_attributes(struct json *j, int ordinal, const struct options *opt)
{
    json_object_begin(j, "attributes");
    each_attribute(ordinal, opt, json_attribute, j);
    json_object_end(j);
}

static void json_device(struct json *j, const struct device_row *row, const struct options *opt)
{
    const struct cudyn_device_info *d = &row->info;
    json_object_begin(j, NULL);
    json_int(j, "ordinal", row->ordinal);
    if (row->status != CUDYN_OK) {
        json_string(j, "status", cudyn_status_name(row->status));
        json_string(j, "error", row->error);
        json_object_end(j);
        return;
    }
    json_string(j, "status", "CUDYN_OK");
    json_string(j, "name", d->name);
    json_string(j, "uuid", d->uuid_string[0] ? d->uuid_string : NULL);
    json_string(j, "pci_bus_id", d->pci_bus_id);
    char cc[16];
    snprintf(cc, sizeof cc, "%d.%d", d->cc_major, d->cc_minor);
    json_string(j, "compute_capability", cc);
    char arch[16];
    snprintf(arch, sizeof arch, "sm_%d%d", d->cc_major, d->cc_minor);
    json_string(j, "arch", arch);
    json_uint(j, "total_memory_bytes", d->total_memory);
    if (row->have_free)
        json_uint(j, "free_memory_bytes", row->free_bytes);
    else
        json_null(j, "free_memory_bytes");
    json_int(j, "multiprocessors", d->multiprocessors);
    if (d->clock_khz)
        json_int(j, "clock_khz", d->clock_khz);
    else
        json_null(j, "clock_khz");
    if (d->memory_clock_khz)
        json_int(j, "memory_clock_khz", d->memory_clock_khz);
    else
        json_null(j, "memory_clock_khz");
    json_int(j, "memory_bus_width_bits", d->memory_bus_width);
    json_int(j, "l2_cache_bytes", d->l2_cache_bytes);
    json_int(j, "compute_mode", d->compute_mode);
    json_bool(j, "ecc_enabled", d->ecc_enabled != 0);
    json_bool(j, "integrated", d->integrated != 0);
    if (opt->all || opt->n_props)
        json_attributes(j, row->ordinal, opt);
    json_object_end(j);
}

static void write_json(struct report *r)
{
    struct json j;
    json_init(&j, stdout);
    json_object_begin(&j, NULL);
    json_string(&j, "schema", "cudainfo/1");
    json_string(&j, "cudyn_version", cudyn_version());
    json_loader(&j, r);
    json_object_begin(&j, "environment");
    for (size_t i = 0; i < N_ENV; i++)
        json_string(&j, env_vars[i], getenv(env_vars[i]));
    json_object_end(&j);
    json_array_begin(&j, "devices");
    for (int i = 0; r->rows && i < r->count; i++)
        if (r->selected[i])
            json_device(&j, &r->rows[i], r->opt);
    json_array_end(&j);
    if (r->opt->p2p && r->rows) {
        json_array_begin(&j, "p2p");
        for (int a = 0; a < r->count; a++) {
            json_array_begin(&j, NULL);
            for (int b = 0; b < r->count; b++) {
                int can = 0;
                if (cudyn_device_can_access_peer(a, b, &can) == CUDYN_OK)
                    json_bool(&j, NULL, can != 0);
                else
                    json_null(&j, NULL);
            }
            json_array_end(&j);
        }
        json_array_end(&j);
    }
    if (r->opt->explain) {
        json_object_begin(&j, "diagnosis");
        json_bool(&j, "proc_driver_nvidia", access("/proc/driver/nvidia/version", R_OK) == 0);
        json_bool(&j, "nvidia_uvm_loaded", module_loaded("nvidia_uvm"));
        json_bool(&j, "dev_nvidiactl_accessible", access("/dev/nvidiactl", R_OK | W_OK) == 0);
        json_bool(&j, "dev_nvidia0_accessible", access("/dev/nvidia0", R_OK | W_OK) == 0);
        json_object_end(&j);
    }
    json_object_begin(&j, "result");
    json_int(&j, "exit_code", r->exit_code);
    json_string(&j, "status", r->exit_code == EXIT_OK ? "ok" : "error");
    json_string(&j, "message", r->message[0] ? r->message : NULL);
    json_string(&j, "hint", r->hint[0] ? r->hint : NULL);
    json_object_end(&j);
    json_object_end(&j);
    json_finish(&j);
}

static void print_header(const struct report *r)
{
    const struct cudyn_loader_info *l = &r->loader;
    printf("cudainfo %s (cudyn)\n", cudyn_version());
    if (l->driver_status == CUDYN_OK)
        printf("Driver:  CUDA %d.%d%s%s, %s [%s; %s, %d entry points bound, %d absent]\n", l->driver_version / 1000,
               l->driver_version % 1000 / 10, r->kmod[0] ? ", kernel module " : "", r->kmod, l->driver_path,
               l->driver_found_by, mechanism_name(l->entry_mechanism), l->symbols_bound, l->symbols_missing);
    else
        printf("Driver:  not loaded (%s)\n", cudyn_status_name(l->driver_status));
    if (l->nvrtc_status == CUDYN_OK)
        printf("NVRTC:   %d.%d, %s [%s]\n", l->nvrtc_version / 1000, l->nvrtc_version % 1000 / 10, l->nvrtc_path,
               l->nvrtc_found_by);
    else
        printf("NVRTC:   not found (run-time compilation unavailable)\n");
}

static void print_device(const struct device_row *row, const struct options *opt, bool color)
{
    const struct cudyn_device_info *d = &row->info;
    if (row->status != CUDYN_OK) {
        printf("  %d  error: %s\n", row->ordinal, row->error);
        return;
    }
    printf("  %s%d  %s%s  sm_%d%d  %.1f GiB", color ? "\033[1m" : "", row->ordinal, d->name, color ? "\033[0m" : "",
           d->cc_major, d->cc_minor, gib(d->total_memory));
    if (row->have_free)
        printf(" (%.1f GiB free)", gib(row->free_bytes));
    printf("  %d SMs  %s  %s\n", d->multiprocessors, d->pci_bus_id, d->uuid_string[0] ? d->uuid_string : "-");
    if (opt->all || opt->n_props)
        each_attribute(row->ordinal, opt, print_attribute, NULL);
}

static void print_explain(const struct report *r)
{
    const struct cudyn_loader_info *l = &r->loader;
    printf("\nLoader search (libcuda):\n%s", l->driver_trace ? l->driver_trace : "");
    printf("\nLoader search (libnvrtc):\n%s", l->nvrtc_trace ? l->nvrtc_trace : "");
    printf("\nDiagnosis:\n");
    printf("  /proc/driver/nvidia/version: %s\n", r->kmod[0] ? r->kmod : "absent (nvidia kernel module not loaded)");
    printf("  nvidia_uvm module: %s\n", module_loaded("nvidia_uvm") ? "loaded" : "not loaded");
    DIR *d = opendir("/dev");
    int nodes = 0;
    if (d) {
        struct dirent *e;
        while ((e = readdir(d)))
            if (strncmp(e->d_name, "nvidia", 6) == 0) {
                char path[300];
                snprintf(path, sizeof path, "/dev/%s", e->d_name);
                struct stat st;
                if (stat(path, &st) == 0)
                    printf("  %-24s mode %04o, %s\n", path, (unsigned)(st.st_mode & 07777),
                           access(path, R_OK | W_OK) == 0 ? "accessible" : "NOT accessible to this user");
                nodes++;
            }
        closedir(d);
    }
    if (!nodes)
        printf("  /dev/nvidia*: none\n");
    for (size_t i = 0; i < N_ENV; i++) {
        const char *v = getenv(env_vars[i]);
        if (v)
            printf("  %s=%s\n", env_vars[i], v);
    }
    if (r->hint[0])
        printf("  hint: %s\n", r->hint);
    else if (r->exit_code == EXIT_OK)
        printf("  no problem found\n");
}

/* ------------------------------------------------------------------ main */

static int parse_options(int argc, char **argv, struct options *opt)
{
    enum { OPT_PROP = 256, OPT_P2P, OPT_MEM, OPT_REQUIRE, OPT_EXPLAIN, OPT_JSON, OPT_VERSION };
    static const struct option longopts[] = {
        {"all", no_argument, NULL, 'a'},          {"prop", required_argument, NULL, OPT_PROP},
        {"device", required_argument, NULL, 'd'}, {"p2p", no_argument, NULL, OPT_P2P},
        {"mem", no_argument, NULL, OPT_MEM},      {"require", required_argument, NULL, OPT_REQUIRE},
        {"explain", no_argument, NULL, OPT_EXPLAIN}, {"json", no_argument, NULL, OPT_JSON},
        {"quiet", no_argument, NULL, 'q'},        {"version", no_argument, NULL, OPT_VERSION},
        {"help", no_argument, NULL, 'h'},         {NULL, 0, NULL, 0},
    };
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, ":ad:qh", longopts, NULL)) != -1) {
        switch (c) {
        case 'a': opt->all = true; break;
        case OPT_PROP:
            if (opt->n_props == MAX_PROPS || !optarg[0])
                return -1;
            opt->props[opt->n_props++] = optarg;
            break;
        case 'd':
            if (opt->n_select == MAX_SELECT || !optarg[0])
                return -1;
            opt->select[opt->n_select++] = optarg;
            break;
        case OPT_P2P: opt->p2p = true; break;
        case OPT_MEM: opt->mem = true; break;
        case OPT_REQUIRE: {
            char *end;
            long v = strtol(optarg, &end, 10);
            if (!optarg[0] || *end || v < 0 || v > 1024)
                return -1;
            opt->require = (int)v;
            break;
        }
        case OPT_EXPLAIN: opt->explain = true; break;
        case OPT_JSON: opt->json = true; break;
        case 'q': opt->quiet = true; break;
        case OPT_VERSION: return 1;
        case 'h': return 2;
        default: return -1;
        }
    }
    return optind < argc ? -1 : 0;
}

static int finish(struct report *r)
{
    if (r->opt->json)
        write_json(r);
    else if (!r->opt->quiet) {
        if (r->exit_code != EXIT_OK && r->message[0])
            fprintf(stderr, "cudainfo: %s\n", r->message);
        if (r->exit_code != EXIT_OK && r->hint[0] && !r->opt->explain)
            fprintf(stderr, "cudainfo: hint: %s\n", r->hint);
    }
    return r->exit_code;
}

int main(int argc, char **argv)
{
    struct options opt = {0};
    struct report r = {.opt = &opt};
    int parsed = parse_options(argc, argv, &opt);
    for (int i = 1; i < argc; i++) /* --json applies to usage errors too */
        if (strcmp(argv[i], "--json") == 0)
            opt.json = true;
    if (parsed == 1) {
        printf("cudainfo (cudyn) %s\n", cudyn_version());
        return EXIT_OK;
    }
    if (parsed == 2) {
        usage(stdout);
        return EXIT_OK;
    }
    kernel_module_version(r.kmod, sizeof r.kmod);
    r.loader.size = sizeof r.loader;
    cudyn_loader_info(&r.loader);
    if (parsed < 0) {
        r.exit_code = EXIT_USAGE;
        snprintf(r.message, sizeof r.message, "invalid usage (see cudainfo --help)");
        if (!opt.json && !opt.quiet)
            usage(stderr);
        return finish(&r);
    }

    cudyn_error err = {.size = sizeof err};
    bool human = !opt.json && !opt.quiet;
    if (r.loader.driver_status != CUDYN_OK) {
        cudyn_last_error(&err);
        r.exit_code = EXIT_NO_DRIVER;
        diagnose(&r, &err);
    } else if (r.loader.init_status != CUDYN_OK && r.loader.init_status != CUDYN_ERROR_NO_DEVICE) {
        cudyn_init(0);
        cudyn_last_error(&err);
        r.exit_code = EXIT_INIT_FAILED;
        diagnose(&r, &err);
    } else if (cudyn_device_count(&r.count) != CUDYN_OK) {
        cudyn_last_error(&err);
        r.exit_code = EXIT_INIT_FAILED;
        diagnose(&r, &err);
    } else if (r.count == 0) {
        cudyn_init(0);
        cudyn_last_error(&err);
        r.exit_code = EXIT_NO_DEVICES;
        diagnose(&r, &err);
        if (!r.message[0])
            snprintf(r.message, sizeof r.message, "the driver sees no CUDA device");
    } else if (r.count < opt.require) {
        r.exit_code = EXIT_NO_DEVICES;
        snprintf(r.message, sizeof r.message, "%d device%s visible, %d required", r.count, r.count == 1 ? "" : "s",
                 opt.require);
    }

    if (r.count > 0) {
        r.rows = calloc((size_t)r.count, sizeof *r.rows);
        r.selected = calloc((size_t)r.count, sizeof *r.selected);
        if (!r.rows || !r.selected) {
            fprintf(stderr, "cudainfo: out of memory\n");
            return EXIT_PARTIAL;
        }
        const struct cudyn_device_info **infos = calloc((size_t)r.count, sizeof *infos);
        if (!infos) {
            fprintf(stderr, "cudainfo: out of memory\n");
            return EXIT_PARTIAL;
        }
        for (int i = 0; i < r.count; i++) {
            struct device_row *row = &r.rows[i];
            row->ordinal = i;
            row->info.size = sizeof row->info;
            row->status = cudyn_device_info(i, &row->info);
            if (row->status != CUDYN_OK) {
                cudyn_error e = {.size = sizeof e};
                cudyn_last_error(&e);
                snprintf(row->error, sizeof row->error, "%s", e.message);
            }
            r.selected[i] = opt.n_select == 0;
            infos[i] = row->status == CUDYN_OK ? &row->info : NULL;
        }
        for (int s = 0; s < opt.n_select && r.exit_code == EXIT_OK; s++) {
            int idx = device_select(opt.select[s], (const struct cudyn_device_info *const *)infos, r.count);
            if (idx < 0) {
                r.exit_code = EXIT_DEVICE_NOT_FOUND;
                snprintf(r.message, sizeof r.message, "device '%s' %s", opt.select[s],
                         idx == DEVICE_SELECT_AMBIGUOUS ? "is ambiguous: it matches several devices" : "not found");
                snprintf(r.hint, sizeof r.hint,
                         "select by ordinal (0..%d), full or unique UUID prefix, or PCI bus id as cudainfo lists them",
                         r.count - 1);
            } else {
                r.selected[idx] = true;
            }
        }
        free(infos);
        for (int i = 0; i < r.count && r.exit_code == EXIT_OK; i++) {
            if (!r.selected[i])
                continue;
            if (r.rows[i].status != CUDYN_OK) {
                r.exit_code = EXIT_PARTIAL;
                snprintf(r.message, sizeof r.message, "device %d: %s", i, r.rows[i].error);
                continue;
            }
            if (opt.mem) {
                size_t total;
                if (cudyn_device_use(i) == CUDYN_OK && cudyn_mem_info(&r.rows[i].free_bytes, &total) == CUDYN_OK)
                    r.rows[i].have_free = true;
                else
                    r.exit_code = EXIT_PARTIAL;
            }
        }
    }

    if (human) {
        print_header(&r);
        if (r.rows) {
            int shown = 0;
            for (int i = 0; i < r.count; i++)
                shown += r.selected[i];
            printf("Devices: %d visible%s\n", r.count, shown < r.count ? ", selected:" : "");
            for (int i = 0; i < r.count; i++)
                if (r.selected[i])
                    print_device(&r.rows[i], &opt, is_tty(stdout));
            if (opt.p2p) {
                printf("Peer access (row can access column):\n     ");
                for (int b = 0; b < r.count; b++)
                    printf(" %3d", b);
                printf("\n");
                for (int a = 0; a < r.count; a++) {
                    printf("  %3d", a);
                    for (int b = 0; b < r.count; b++) {
                        int can = 0;
                        int st = cudyn_device_can_access_peer(a, b, &can);
                        printf(" %3s", a == b ? "-" : st != CUDYN_OK ? "?" : can ? "yes" : "no");
                    }
                    printf("\n");
                }
            }
        } else {
            printf("Devices: none\n");
        }
        if (opt.explain)
            print_explain(&r);
    }
    int code = finish(&r);
    free(r.rows);
    free(r.selected);
    return code;
}
