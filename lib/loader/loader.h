/*
 * loader/loader.h - the loader wing: finding and binding libcuda and NVRTC
 * (load_driver.c, load_nvrtc.c) and describing what was found
 * (loader_info.c).  First what the wings above call; then what the two
 * loaders found, for loader_info.c, which describes it and hands out raw
 * entry points.  Each state is written once inside its pthread_once
 * routine and read-only after `done` is set.
 */
#ifndef CUDYN_LOADER_LOADER_H
#define CUDYN_LOADER_LOADER_H

#include <pthread.h>
#include <stdio.h>

#include "internal.h"
#include "nccl_abi.h"
#include "nvjitlink_abi.h"

/* ---- what the wings above call ---- */
/* Fast check used by every public call; after init it is one load. */
extern atomic_int cudyn__driver_ready;
int cudyn__need_driver_slow(void);
static inline int cudyn__need_driver(void)
{
    if (CUDYN_LIKELY(atomic_load_explicit(&cudyn__driver_ready, memory_order_acquire)))
        return CUDYN_OK;
    return cudyn__need_driver_slow();
}
/* Loads the driver without requiring cuInit to succeed (for cudyn_has,
 * cudyn_driver_proc, cudyn_loader_info). */
int cudyn__load_driver_only(void);
int cudyn__need_nvrtc(void);
const char *cudyn__nvrtc_dir(void);     /* directory libnvrtc was loaded from, or NULL */
/* nccl.c: finds, loads and binds NCCL once (pthread_once), on the first
 * call that needs it; CUDYN_OK, or the load's failure replayed to the
 * caller.  cudyn__nccl holds its functions, an OPTIONAL row NULL where
 * the NCCL lacks it (NCCL_HAS). */
int cudyn__need_nccl(void);
int cudyn__nccl_version(void); /* ncclGetVersion's code, 0 until loaded */
int cudyn__nccl_has(const char *name); /* cudyn_has for a name starting with "nccl" */
const char *cudyn__nccl_path(void);
/* nvml.c: fills *out (out->size checked by the caller) for the GPU NVML
 * sees whose UUID, or one of whose MIG instances' UUIDs, is uuid ("GPU-"
 * and "MIG-" prefixes ignored); CUDYN_ERROR_NOT_FOUND if none has it. */
int cudyn__nvml_device_by_uuid(const char *uuid, struct cudyn_nvml_device *out, const char *api);


/* The NCCL table (nccl_symbols.h): each row's type and slot. */
#define NCCL_SYMBOL(name, since, need, returns, params) typedef returns(*cudyn__pfn_##name) params;
#include "nccl_symbols.h"
#undef NCCL_SYMBOL
struct cudyn__nccl_table {
#define NCCL_SYMBOL(name, since, need, returns, params) cudyn__pfn_##name name;
#include "nccl_symbols.h"
#undef NCCL_SYMBOL
};
extern struct cudyn__nccl_table cudyn__nccl;
#define NCCL_HAS(name) (cudyn__nccl.name != NULL)


/* nvjitlink.c: finds, loads and binds nvJitLink once (pthread_once), on
 * the first link that needs it; CUDYN_OK, or the load's failure replayed
 * to the caller (CUDYN_ERROR_NOT_SUPPORTED when there is none: the
 * driver's linker serves instead).  cudyn__nvjitlink holds its functions,
 * an OPTIONAL row NULL where the library lacks it (NVJITLINK_HAS). */
int cudyn__need_nvjitlink(void);
enum { PLAIN, VERSIONED }; /* how nvjitlink_symbols.h's rows are exported */
#define NVJITLINK_SYMBOL(name, since, need, how, params) typedef nvjitlink_result(*cudyn__pfn_##name) params;
#include "nvjitlink_symbols.h"
#undef NVJITLINK_SYMBOL
struct cudyn__nvjitlink_table {
#define NVJITLINK_SYMBOL(name, since, need, how, params) cudyn__pfn_##name name;
#include "nvjitlink_symbols.h"
#undef NVJITLINK_SYMBOL
};
extern struct cudyn__nvjitlink_table cudyn__nvjitlink;
#define NVJITLINK_HAS(name) (cudyn__nvjitlink.name != NULL)


/* ---- what the loaders found ---- */
#define LOADER_TRACE_BYTES 16384
#define LOADER_PATH_BYTES 4096

enum candidate_result { CANDIDATE_OK, CANDIDATE_MISSING, CANDIDATE_STUB, CANDIDATE_UNUSABLE };

/* What both loaders record about the library they looked for. */
struct cudyn__library {
    atomic_bool done;          /* the search ran; the fields below are final */
    int status;                /* cudyn_status of finding, loading and binding */
    cudyn_error error;         /* the failure, replayed to each caller */
    void *handle;
    char path[LOADER_PATH_BYTES];
    enum cudyn__found_by found_by;
    int version;               /* 13000 = 13.0 */
    double load_ms;
    double dlopen_ms; /* of load_ms, opening the file that was used */
    struct cudyn__bind_result bind;
    char trace_buf[LOADER_TRACE_BYTES];
    struct cudyn__text trace;
};

/* library.c: a library's one load (under the caller's pthread_once):
 * find() then bind(), the time and the outcome in lib's trace (echoed
 * with echo_prefix under CUDYN_DEBUG), a failure kept in lib to replay
 * and `table` (table_size bytes; NULL: none) cleared, the caller's last
 * error untouched; lib->done set last. */
void cudyn__library_load(struct cudyn__library *lib, const char *echo_prefix, const char *name, int (*find)(void),
                         int (*bind)(void), void *table, size_t table_size);

/* library.c: the steps of a search, from the facts a loader states. */
struct cudyn__search_plan {
    const char *what;        /* in messages: "libnvrtc", "nvJitLink", "NCCL" */
    const char *static_name; /* what a static program cannot load: "NVRTC (libnvrtc)" */
    int not_found;           /* the status of a search that found nothing usable */
    const char *variable;    /* the override: "CUDYN_LIBNVRTC", a file or a directory */
    enum cudyn__found_by variable_how;
    const char *variable_hint; /* a HINT_* for an unusable override */
    const char *const *sonames; /* newest first */
    size_t n_sonames;
    /* dlopens one file with extra_flags added, decides, records (the trace,
     * and `rejected` when it refuses it) */
    enum candidate_result (*try_file)(const char *file, enum cudyn__found_by how, int extra_flags);
    const char *rejected; /* why the last file found was refused, "" if none */
};
/* The start: a static program cannot load the library; the override
 * variable, when set, is the whole search.  True when the search ends
 * here, *status its result. */
bool cudyn__search_override(const struct cudyn__search_plan *plan, int *status);
/* Each soname already loaded in the process (RTLD_NOLOAD). */
bool cudyn__search_loaded(const struct cudyn__search_plan *plan);
/* Each soname by the dynamic loader's own search. */
bool cudyn__search_sonames(const struct cudyn__search_plan *plan);
/* Each soname inside dir whose file exists (the trace keeps to those). */
bool cudyn__search_dir(const struct cudyn__search_plan *plan, const char *dir, enum cudyn__found_by how);
/* toolkit_roots.c's roots: lib64 and lib of $CUDA_PATH and $CUDA_HOME,
 * lib64 of /usr/local/cuda and /usr/local/cuda-X.Y. */
bool cudyn__search_toolkits(const struct cudyn__search_plan *plan);

/* library.c: binds one row of a table into *slot (a function pointer):
 * `preferred` when not NULL and exported, else `name`; counted in
 * lib->bind (a required one missing is first_missing_required). */
void cudyn__library_bind_one(struct cudyn__library *lib, const char *name, const char *preferred, bool required,
                             void *slot);
/* After the rows: the count in the trace; CUDYN_OK, or
 * CUDYN_ERROR_SYMBOL_NOT_FOUND naming the first required row missing
 * ("PATH`what` lacks NAME"), with `hint`. */
int cudyn__library_bound(struct cudyn__library *lib, const char *hint, const char *what);

/* CUDYN_COMPAT: what to do with a forward-compatibility libcuda. */
enum cudyn__compat_policy { COMPAT_AUTO, COMPAT_NEVER, COMPAT_REQUIRE };

/* The forward-compat decision (compat.c), made before binding. */
struct cudyn__compat {
    enum cudyn__compat_policy policy;
    char kmod_version[64];          /* "550.54.14", "" if unknown */
    char kmod_file[LOADER_PATH_BYTES]; /* where it was read */
    char driver_release[64];        /* release of the libcuda used, from its file name; "" if unknown */
    bool driver_is_compat;          /* the libcuda used is a forward-compat library */
    char compat_path[LOADER_PATH_BYTES]; /* the forward-compat libcuda seen first, "" if none */
    char compat_release[64];
    unsigned int probe_result;      /* cuInit in the forked child; 0 also when not probed */
    char decision[LOADER_PATH_BYTES * 2 + 512]; /* one sentence, "" if no compat library was seen */
};

struct cudyn__driver_state {
    struct cudyn__library lib;
    struct cudyn__compat compat;
    int init_status;           /* cuInit */
    cudyn_error init_error;
    double init_ms;
    bool per_thread_stream;
};

struct cudyn__nvrtc_state {
    struct cudyn__library lib;
    char dir[LOADER_PATH_BYTES];
    char builtins_path[LOADER_PATH_BYTES];
    char rejected[LOADER_PATH_BYTES + 128]; /* why the last libnvrtc found was not used, "" if none */
};

/* nvjitlink.c: what its search found (it runs the search if it has not
 * run), for cudyn_toolkit_info. */
const struct cudyn__library *cudyn__nvjitlink_library(void);

extern struct cudyn__driver_state cudyn__driver;
extern struct cudyn__nvrtc_state cudyn__nvrtc_state;

/* Runs the NVRTC search if it has not run (cudyn__need_nvrtc without
 * replaying its error). */
void cudyn__load_nvrtc(void);

/* files.c: the files cudyn opens, refused unless regular files before
 * anything can block on them (a FIFO).  cudyn__dlopen is dlopen(file,
 * flags) for every library the loaders try: NULL with `why` written (the
 * refusal, dlerror's text, or for RTLD_NOLOAD "no copy in this process").
 * cudyn__open_regular opens path (relative to dirfd, or AT_FDCWD) for
 * reading with `flags` added (O_NOFOLLOW ...): the descriptor, or -1 with
 * errno (EINVAL for a file that is not regular); cudyn__fopen_regular is
 * the same as a FILE, or NULL. */
void *cudyn__dlopen(const char *file, int flags, char *why, size_t cap);
int cudyn__open_regular(int dirfd, const char *path, int flags);
FILE *cudyn__fopen_regular(const char *path);

/* files.c: the file a handle was loaded from, found through one of its
 * symbols; whether a path is a directory, or a regular file. */
void cudyn__library_path(void *symbol, const char *fallback, char *out, size_t cap);
bool cudyn__is_directory(const char *path);
bool cudyn__is_regular_file(const char *path);

/* static_program.c: CUDYN_OK, or the failure `status` naming `library`
 * when this process is a statically linked program, which cannot load a
 * shared library. */
int cudyn__refuse_static_program(int status, const char *library);

/* compat.c */
void cudyn__read_kernel_module_version(struct cudyn__compat *c);
/* The release in the name of the file path resolves to ("575.57.08" of
 * libcuda.so.575.57.08); false if the name has none.  real gets the
 * resolved path. */
bool cudyn__library_release(const char *path, char *release, size_t cap, char *real, size_t real_cap);
bool cudyn__in_compat_dir(const char *real_path);
int cudyn__compare_release(const char *a, const char *b); /* <0, 0, >0 as strcmp, by number */
bool cudyn__parse_compat_policy(const char *value, enum cudyn__compat_policy *out);
const char *cudyn__compat_policy_name(enum cudyn__compat_policy p);
/* cuInit(0) of the library in a forked child; 0 with *result, -1 if the
 * child could not be run. */
int cudyn__probe_init_in_child(void *handle, unsigned int *result);

/* What the forward-compat decision depends on, gathered by load_driver.c. */
enum cudyn__compat_probe { PROBE_NOT_RUN, PROBE_COULD_NOT_RUN, PROBE_ANSWERED };
struct cudyn__compat_facts {
    enum cudyn__compat_policy policy;
    bool is_compat;       /* in a compat directory, or a release other than the kernel module's */
    bool already_loaded;  /* another library of the process loaded it first */
    bool not_newer;       /* its release is known, and not newer than the kernel module's */
    const char *release;  /* its release, "unknown" if none */
    const char *kmod;     /* the kernel module's version, "unknown" if none */
    enum cudyn__compat_probe probe;
    unsigned int probe_result; /* its cuInit's answer when PROBE_ANSWERED */
    const char *probe_name;    /* that answer's name ("CUDA_ERROR_...") */
};
/* What to do with the libcuda the search found. */
enum cudyn__compat_verdict {
    COMPAT_USE_FOUND,        /* not a forward-compat library: use it */
    COMPAT_REFUSE_NOT_COMPAT, /* CUDYN_COMPAT=require, and it is not one */
    COMPAT_USE_LOADED,       /* a forward-compat copy already in the process: use it as it is */
    COMPAT_PROBE,            /* ask its cuInit in a child (facts->probe), then decide again */
    COMPAT_USE,              /* a forward-compat library that can work: use it */
    COMPAT_CANNOT_WORK,      /* one that cannot: why_not says why; the policy and how it was
                                found decide between failing and the system driver */
};
/* The decision as a pure function of the facts; why_not gets the reason
 * for COMPAT_CANNOT_WORK. */
enum cudyn__compat_verdict cudyn__compat_decide(const struct cudyn__compat_facts *f, char *why_not, size_t cap);

/* python_sites.c: the site-packages directories pip's wheels may lie in,
 * in three steps (see there); each calls fn(site, how, ctx) in turn until
 * it returns true, and says so; `looking_for` ends the trace line of a
 * prefix that had none ("no nvidia/nccl/lib/... in its python3*
 * site-packages"). */
typedef bool (*cudyn__place_fn)(const char *place, enum cudyn__found_by how, void *ctx);
bool cudyn__sites_of_loaded(cudyn__place_fn fn, void *ctx, struct cudyn__text *trace);
/* The entries of dir whose names start with prefix, newest version first
 * (strverscmp), at most max, each malloc'd (free them); how many. */
size_t cudyn__names_newest_first(const char *dir, const char *prefix, char **names, size_t max);
bool cudyn__sites_of_environments(cudyn__place_fn fn, void *ctx, struct cudyn__text *trace, const char *looking_for);
bool cudyn__sites_of_user_and_system(cudyn__place_fn fn, void *ctx, struct cudyn__text *trace,
                                     const char *looking_for);

/* toolkit_roots.c: the toolkit directories the searches try, fn(root, how, ctx)
 * until it returns true: $CUDA_PATH and $CUDA_HOME; /usr/local/cuda and
 * /usr/local/cuda-X.Y, newest first. */
bool cudyn__toolkit_env_roots(cudyn__place_fn fn, void *ctx);
bool cudyn__toolkit_fixed_roots(cudyn__place_fn fn, void *ctx);
/* A toolkit root's library directories, in the order they are tried. */
#define CUDYN_TOOLKIT_LIB_SUBDIRS 2
extern const char *const cudyn__toolkit_lib_subdirs[CUDYN_TOOLKIT_LIB_SUBDIRS];

/* toolkit.c: the toolkit's headers and libcudadevrt.a, as found (see
 * there).  Written once in its pthread_once, read-only after. */
#define CUDYN_TOOLKIT_MAX_INCLUDE 32
struct cudyn__dir_identity {
    uint64_t dev, ino;
    int64_t mtime_ns, ctime_ns;
};
struct cudyn__toolkit {
    bool with_nvrtc; /* the search included the place NVRTC came from */
    int n_include;   /* 0: no headers */
    char include[CUDYN_TOOLKIT_MAX_INCLUDE][LOADER_PATH_BYTES]; /* for NVRTC's include path, in order:
                                                                   canonical paths (realpath) */
    struct cudyn__dir_identity identity[CUDYN_TOOLKIT_MAX_INCLUDE]; /* of each, when searched */
    char include_path[LOADER_PATH_BYTES * 2]; /* the same joined with ':', for reports */
    enum cudyn__found_by headers_found_by;
    char headers_where[LOADER_PATH_BYTES];
    char cudadevrt[LOADER_PATH_BYTES]; /* libcudadevrt.a, "" if none */
    enum cudyn__found_by cudadevrt_found_by;
    char looked[2048]; /* the places looked at for headers, in one line */
    char trace[8192];  /* each place looked at and what it has, one a line */
};
/* The search as it stands for this process: without NVRTC's place until
 * NVRTC is loaded, with it after. */
const struct cudyn__toolkit *cudyn__toolkit(void);
/* One line saying where cudyn looked and what it found, for a message. */
void cudyn__toolkit_where(char *buf, size_t cap);

/* versions.c: the line naming every version involved (see there). ptx:
 * the image's text if it is PTX, else NULL; cc: major*10+minor, 0 if
 * unknown; include_dir: the CUDA headers handed to NVRTC, NULL if none. */
void cudyn__versions_line(char *buf, size_t cap, const char *ptx, int cc, const char *include_dir);

#endif
