/*
 * mock_nvrtc.c - a fake libnvrtc.so.13 for tests on machines without the
 * CUDA toolkit.  Built by `make check`, never installed; cudyn loads it
 * through CUDYN_LIBNVRTC.  It is a test double: it reads what it can read
 * exactly (includes, conditionals, extern "C" kernel signatures) and
 * refuses the rest with "mock NVRTC cannot compile this (...); use the
 * real NVRTC" rather than guess.  It does not compile function bodies, so
 * an error inside one goes unnoticed: tests provoke compile errors with
 * #error, which it reports as NVRTC does.
 *
 * Behaviour is set through the environment (read once, at the first call):
 *   MOCK_NVRTC_VERSION=12040       what nvrtcVersion reports (default 13000;
 *                                  the legacy build: 11010)
 *   MOCK_NVRTC_ARCHS=75,80,90      the supported architectures (default
 *                                  NVRTC 13.0's; the legacy build: 11.1's)
 *   MOCK_NVRTC_FAIL=fn:N:code,...  the Nth call (1-based; * = every call) of
 *                                  the exported function fn returns code
 *   MOCK_NVRTC_DELAY_MS=N          nvrtcCompileProgram sleeps N ms first
 *   MOCK_NVRTC_RENDEZVOUS=N        nvrtcCompileProgram waits until N compiles
 *                                  are in it at once, then all go on: a
 *                                  test that its callers overlap, by
 *                                  counting, not timing (a compile that
 *                                  waited RENDEZVOUS_GUARD_S for the others
 *                                  fails with NVRTC_ERROR_INTERNAL_ERROR
 *                                  and says so, instead of hanging)
 *   MOCK_NVRTC_COUNTS=file         at exit, write "fn calls" lines there
 * A value it cannot use makes every call fail with NVRTC_ERROR_INTERNAL_ERROR
 * (and says why once on stderr), so a test never runs on a half-read setup.
 * The build flag MOCK_NVRTC_LEGACY=1 makes an NVRTC before 11.2: no
 * nvrtcGetNumSupportedArchs / nvrtcGetSupportedArchs.
 *
 * Output: PTX text with one ".entry" per defined extern "C" kernel, its
 * parameters typed as NVRTC types them, and a comment line
 * "// mock-nvrtc input HASH" (FNV-1a of every file the preprocessor read,
 * names and whole texts, and of the -D / -U options), so any change to the
 * input, included files too, changes the output.  After the entries, each
 * kernel's definition as written, then each __device__ function's, in PTX
 * comments (kernel_facts.h's MOCK_SOURCE_HEADER, MOCK_FUNCTION_HEADER),
 * from which the mock driver's host evaluator recognises the map kernels
 * python/cudyn writes and the integer power they call
 * (tests/mock/mock_eval.c).
 * For sm_XY targets also a CUBIN: a 64-byte ELF64 header (e_shoff = 64 +
 * text length, no sections) followed by that text, which is what the mock
 * driver reads.
 *
 * Every exported NVRTC call is counted; mock_nvrtc_calls(fn),
 * mock_nvrtc_fail_next(fn, code), mock_nvrtc_live_programs() and
 * mock_nvrtc_most_compiling() let tests look (through
 * mock_nvrtc_control.h).
 */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../calls.h"
#include "../kernel_facts.h"
#include "mock_nvrtc.h"

#define MAX_ARCHS 64
#define MAX_PENDING 32
#define PROGRAM_MAGIC 0x6e767274u
/* How long a compile waits for MOCK_NVRTC_RENDEZVOUS's others before it
 * gives up: a guard against a hang, far above any wait that succeeds. */
#define RENDEZVOUS_GUARD_S 300

#if MOCK_NVRTC_LEGACY
#define DEFAULT_VERSION 11010
#define DEFAULT_ARCHS "35,37,50,52,53,60,61,62,70,72,75,80,86"
#else
#define DEFAULT_VERSION 13000
#define DEFAULT_ARCHS "75,80,86,87,88,89,90,100,103,110,120,121" /* nvrtcGetSupportedArchs of NVRTC 13.0 */
#endif

/* ------------------------------------------------------------ config */

static struct {
    pthread_once_t once;
    pthread_mutex_t lock;
    char config_error[256]; /* set: every call fails */
    int version;
    int archs[MAX_ARCHS];
    int n_archs;
    long delay_ms;
    long rendezvous; /* 0: none */
    /* under lock */
    struct calls calls; /* its rules (MOCK_NVRTC_FAIL) are set once, at setup */
    struct fail_rule pending[MAX_PENDING]; /* from mock_nvrtc_fail_next */
    int n_pending;
    long live_programs;
    long compiling;      /* nvrtcCompileProgram calls in progress now */
    long most_compiling; /* the most of them at once */
    bool rendezvous_met; /* MOCK_NVRTC_RENDEZVOUS compiles were in at once */
    pthread_cond_t compiling_changed;
} mock = {.once = PTHREAD_ONCE_INIT, .lock = PTHREAD_MUTEX_INITIALIZER, .compiling_changed = PTHREAD_COND_INITIALIZER};

static bool parse_archs(const char *spec)
{
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", spec);
    char *save = NULL;
    mock.n_archs = 0;
    for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        long arch;
        if (mock.n_archs == MAX_ARCHS || !mock_parse_long(tok, 10, 10000, &arch))
            return false;
        mock.archs[mock.n_archs++] = (int)arch;
    }
    return mock.n_archs > 0;
}

static void setup(void)
{
    const char *v = getenv("MOCK_NVRTC_VERSION");
    long version = DEFAULT_VERSION;
    const char *bad = NULL;
    if (v && !mock_parse_long(v, 1000, 1000000, &version))
        bad = "MOCK_NVRTC_VERSION is not a version like 12040";
    else if (MOCK_NVRTC_LEGACY ? version >= 11020 : version < 11020)
        bad = MOCK_NVRTC_LEGACY ? "MOCK_NVRTC_VERSION is 11.2 or newer, but this build lacks nvrtcGetSupportedArchs "
                                  "(use MOCK_LIBNVRTC)"
                                : "MOCK_NVRTC_VERSION is older than 11.2, but this build exports "
                                  "nvrtcGetSupportedArchs (use MOCK_LIBNVRTC_LEGACY)";
    mock.version = (int)version;
    v = getenv("MOCK_NVRTC_ARCHS");
    if (!bad && !parse_archs(v ? v : DEFAULT_ARCHS))
        bad = "MOCK_NVRTC_ARCHS is not a list like 75,80,90";
    v = getenv("MOCK_NVRTC_FAIL");
    if (!bad && v && !calls_add_rules(&mock.calls, v, 1000))
        bad = "MOCK_NVRTC_FAIL is not a list like nvrtcCompileProgram:1:6,nvrtcGetPTX:*:11";
    v = getenv("MOCK_NVRTC_DELAY_MS");
    if (!bad && v && !mock_parse_long(v, 0, 600000, &mock.delay_ms))
        bad = "MOCK_NVRTC_DELAY_MS is not a number of milliseconds";
    v = getenv("MOCK_NVRTC_RENDEZVOUS");
    if (!bad && v && !mock_parse_long(v, 1, 10000, &mock.rendezvous))
        bad = "MOCK_NVRTC_RENDEZVOUS is not a number of compiles from 1 to 10000";
    if (bad) {
        snprintf(mock.config_error, sizeof mock.config_error, "%s", bad);
        fprintf(stderr, "mock NVRTC: %s; every call fails with NVRTC_ERROR_INTERNAL_ERROR\n", bad);
    }
}

/* Counts the call and applies fault injection: 0 or the code to return. */
static int enter(const char *fn)
{
    pthread_once(&mock.once, setup);
    if (mock.config_error[0])
        return NVRTC_ERROR_INTERNAL_ERROR;
    pthread_mutex_lock(&mock.lock);
    long calls = calls_count(&mock.calls, fn);
    int code = 0;
    for (int p = 0; p < mock.n_pending && !code; p++)
        if (strcmp(mock.pending[p].fn, fn) == 0) {
            code = mock.pending[p].code;
            mock.pending[p] = mock.pending[--mock.n_pending];
        }
    if (!code)
        code = calls_rule_code(&mock.calls, fn, calls);
    pthread_mutex_unlock(&mock.lock);
    return code;
}

#define ENTER(fn)                                                                                                      \
    do {                                                                                                               \
        int enter_ = enter(fn);                                                                                        \
        if (enter_)                                                                                                    \
            return (nvrtcResult)enter_;                                                                                \
    } while (0)

/* ------------------------------------------------------------ inspection */

MOCK_EXPORT long mock_nvrtc_calls(const char *fn)
{
    pthread_mutex_lock(&mock.lock);
    long n = calls_of(&mock.calls, fn);
    pthread_mutex_unlock(&mock.lock);
    return n;
}

/* MOCK_NVRTC_COUNTS=FILE: the calls, at exit (../calls.h). */
__attribute__((destructor)) static void write_counts(void)
{
    calls_write(&mock.calls, &mock.lock, "MOCK_NVRTC_COUNTS", "mock NVRTC");
}

MOCK_EXPORT void mock_nvrtc_fail_next(const char *fn, int code)
{
    pthread_mutex_lock(&mock.lock);
    if (fn && code && mock.n_pending < MAX_PENDING) {
        struct fail_rule *r = &mock.pending[mock.n_pending++];
        snprintf(r->fn, sizeof r->fn, "%s", fn);
        r->code = code;
    }
    pthread_mutex_unlock(&mock.lock);
}

MOCK_EXPORT long mock_nvrtc_live_programs(void)
{
    pthread_mutex_lock(&mock.lock);
    long n = mock.live_programs;
    pthread_mutex_unlock(&mock.lock);
    return n;
}

MOCK_EXPORT long mock_nvrtc_most_compiling(void)
{
    pthread_mutex_lock(&mock.lock);
    long n = mock.most_compiling;
    pthread_mutex_unlock(&mock.lock);
    return n;
}

/* A compile starts: counted, and under MOCK_NVRTC_RENDEZVOUS it waits for
 * the others; false when they did not come within the guard. */
static bool compile_begins(void)
{
    pthread_mutex_lock(&mock.lock);
    mock.compiling++;
    if (mock.compiling > mock.most_compiling)
        mock.most_compiling = mock.compiling;
    if (mock.rendezvous && mock.compiling >= mock.rendezvous)
        mock.rendezvous_met = true;
    pthread_cond_broadcast(&mock.compiling_changed);
    struct timespec guard;
    clock_gettime(CLOCK_REALTIME, &guard);
    guard.tv_sec += RENDEZVOUS_GUARD_S;
    int r = 0;
    while (mock.rendezvous && !mock.rendezvous_met && r != ETIMEDOUT)
        r = pthread_cond_timedwait(&mock.compiling_changed, &mock.lock, &guard);
    bool met = !mock.rendezvous || mock.rendezvous_met;
    long waiting = mock.compiling;
    pthread_mutex_unlock(&mock.lock);
    if (!met)
        fprintf(stderr, "mock NVRTC: MOCK_NVRTC_RENDEZVOUS=%ld: only %ld compiles came together in %d s\n",
                mock.rendezvous, waiting, RENDEZVOUS_GUARD_S);
    return met;
}

static void compile_ends(void)
{
    pthread_mutex_lock(&mock.lock);
    mock.compiling--;
    pthread_mutex_unlock(&mock.lock);
}

/* ------------------------------------------------------------ programs */

struct _nvrtcProgram {
    unsigned magic;
    char *source;
    char *name;
    struct mock_header *headers;
    int n_headers;
    char **expressions;
    char **lowered; /* after a successful compile */
    int n_expressions;
    bool attempted; /* a compile got past its options: no more name expressions */
    bool compiled;  /* ... and succeeded */
    char *log;
    char *ptx; /* NUL-terminated; ptx_size counts the NUL */
    size_t ptx_size;
    char *cubin; /* NULL for compute_XY targets */
    size_t cubin_size;
};

static bool valid(nvrtcProgram p)
{
    return p && p->magic == PROGRAM_MAGIC;
}

/* The start of each function on an existing program, in NVRTC's order:
 * the call is counted (or failed, MOCK_NVRTC_FAIL), the program checked,
 * then the caller's pointers. */
#define ENTER_ON_PROGRAM(fn, prog, pointers_given) \
    do {                                           \
        ENTER(fn);                                 \
        if (!valid(prog))                          \
            return NVRTC_ERROR_INVALID_PROGRAM;    \
        if (!(pointers_given))                     \
            return NVRTC_ERROR_INVALID_INPUT;      \
    } while (0)

static void free_outputs(nvrtcProgram p)
{
    for (int i = 0; p->lowered && i < p->n_expressions; i++)
        free(p->lowered[i]);
    free(p->lowered);
    free(p->log);
    free(p->ptx);
    free(p->cubin);
    p->lowered = NULL;
    p->log = p->ptx = p->cubin = NULL;
    p->ptx_size = p->cubin_size = 0;
    p->compiled = false;
}

static void free_program(nvrtcProgram p)
{
    free_outputs(p);
    for (int i = 0; i < p->n_headers; i++) {
        free(p->headers[i].name);
        free(p->headers[i].text);
    }
    free(p->headers);
    for (int i = 0; i < p->n_expressions; i++)
        free(p->expressions[i]);
    free(p->expressions);
    free(p->source);
    free(p->name);
    p->magic = 0;
    free(p);
}

static const char *const result_names[] = {
    "NVRTC_SUCCESS",
    "NVRTC_ERROR_OUT_OF_MEMORY",
    "NVRTC_ERROR_PROGRAM_CREATION_FAILURE",
    "NVRTC_ERROR_INVALID_INPUT",
    "NVRTC_ERROR_INVALID_PROGRAM",
    "NVRTC_ERROR_INVALID_OPTION",
    "NVRTC_ERROR_COMPILATION",
    "NVRTC_ERROR_BUILTIN_OPERATION_FAILURE",
    "NVRTC_ERROR_NO_NAME_EXPRESSIONS_AFTER_COMPILATION",
    "NVRTC_ERROR_NO_LOWERED_NAMES_BEFORE_COMPILATION",
    "NVRTC_ERROR_NAME_EXPRESSION_NOT_VALID",
    "NVRTC_ERROR_INTERNAL_ERROR",
    "NVRTC_ERROR_TIME_FILE_WRITE_FAILED",
    "NVRTC_ERROR_NO_PCH_CREATE_ATTEMPTED",
    "NVRTC_ERROR_PCH_CREATE_HEAP_EXHAUSTED",
    "NVRTC_ERROR_PCH_CREATE",
    "NVRTC_ERROR_CANCELLED",
    "NVRTC_ERROR_TIME_TRACE_FILE_WRITE_FAILED",
};

MOCK_EXPORT const char *nvrtcGetErrorString(nvrtcResult result)
{
    enter("nvrtcGetErrorString"); /* counted; it has no status to fail with */
    size_t i = (size_t)result;
    return i < sizeof result_names / sizeof result_names[0] ? result_names[i] : "NVRTC_ERROR unknown";
}

MOCK_EXPORT nvrtcResult nvrtcVersion(int *major, int *minor)
{
    ENTER("nvrtcVersion");
    if (!major || !minor)
        return NVRTC_ERROR_INVALID_INPUT;
    *major = mock.version / 1000;
    *minor = mock.version % 1000 / 10;
    return NVRTC_SUCCESS;
}

#if !MOCK_NVRTC_LEGACY
MOCK_EXPORT nvrtcResult nvrtcGetNumSupportedArchs(int *num_archs)
{
    ENTER("nvrtcGetNumSupportedArchs");
    if (!num_archs)
        return NVRTC_ERROR_INVALID_INPUT;
    *num_archs = mock.n_archs;
    return NVRTC_SUCCESS;
}

MOCK_EXPORT nvrtcResult nvrtcGetSupportedArchs(int *archs)
{
    ENTER("nvrtcGetSupportedArchs");
    if (!archs)
        return NVRTC_ERROR_INVALID_INPUT;
    memcpy(archs, mock.archs, (size_t)mock.n_archs * sizeof *archs);
    return NVRTC_SUCCESS;
}
#endif

MOCK_EXPORT nvrtcResult nvrtcCreateProgram(nvrtcProgram *prog, const char *src, const char *name, int num_headers,
                                           const char *const *headers, const char *const *include_names)
{
    ENTER("nvrtcCreateProgram");
    if (!prog)
        return NVRTC_ERROR_INVALID_PROGRAM;
    if (!src || num_headers < 0 || (num_headers > 0 && (!headers || !include_names)))
        return NVRTC_ERROR_INVALID_INPUT;
    for (int i = 0; i < num_headers; i++)
        if (!headers[i] || !include_names[i])
            return NVRTC_ERROR_INVALID_INPUT;
    nvrtcProgram p = calloc(1, sizeof *p);
    if (!p)
        return NVRTC_ERROR_OUT_OF_MEMORY;
    p->magic = PROGRAM_MAGIC;
    p->source = strdup(src);
    p->name = strdup(name ? name : "default_program");
    p->headers = num_headers ? calloc((size_t)num_headers, sizeof *p->headers) : NULL;
    bool ok = p->source && p->name && (num_headers == 0 || p->headers);
    for (int i = 0; ok && i < num_headers; i++) {
        p->n_headers++;
        p->headers[i].name = strdup(include_names[i]);
        p->headers[i].text = strdup(headers[i]);
        ok = p->headers[i].name && p->headers[i].text;
    }
    if (!ok) {
        free_program(p);
        return NVRTC_ERROR_OUT_OF_MEMORY;
    }
    pthread_mutex_lock(&mock.lock);
    mock.live_programs++;
    pthread_mutex_unlock(&mock.lock);
    *prog = p;
    return NVRTC_SUCCESS;
}

MOCK_EXPORT nvrtcResult nvrtcDestroyProgram(nvrtcProgram *prog)
{
    ENTER("nvrtcDestroyProgram");
    if (!prog || !valid(*prog))
        return NVRTC_ERROR_INVALID_PROGRAM;
    free_program(*prog);
    *prog = NULL;
    pthread_mutex_lock(&mock.lock);
    mock.live_programs--;
    pthread_mutex_unlock(&mock.lock);
    return NVRTC_SUCCESS;
}

/* ------------------------------------------------------------ compiling */

static void emit_kernel(struct mbuf *ptx, const struct mock_kernel *k)
{
    mbuf_printf(ptx, "\n.visible .entry %s(", k->name);
    for (int i = 0; i < k->n_params; i++) {
        const struct mock_param *p = &k->params[i];
        if (p->ptx_type)
            mbuf_printf(ptx, "\n\t.param %s %s_param_%d", p->ptx_type, k->name, i);
        else
            mbuf_printf(ptx, "\n\t.param .align %zu .b8 %s_param_%d[%zu]", p->align, k->name, i, p->size);
        mbuf_str(ptx, i + 1 < k->n_params ? "," : "\n");
    }
    mbuf_str(ptx, ")\n{\n\tret;\n}\n");
}

/* A definition after its header line, one comment line per line
 * (kernel_facts.h). */
static void emit_definition(struct mbuf *ptx, const char *header, const char *name, const char *source)
{
    mbuf_printf(ptx, "\n%s%s\n", header, name);
    for (const char *line = source; *line;) {
        size_t n = strcspn(line, "\n");
        mbuf_printf(ptx, "%s%.*s\n", MOCK_SOURCE_LINE, (int)n, line);
        line += n + (line[n] == '\n');
    }
}

/* The PTX (and for sm_ targets the CUBIN) of the declarations found. */
static nvrtcResult build_outputs(nvrtcProgram p, const struct mock_options *o, const struct mock_pp *pp,
                                 const struct mock_decls *d)
{
    /* every file read, then the macros given as options */
    uint64_t hash = pp->hash;
    for (int i = 0; i < o->n_defines; i++) {
        hash = mock_fnv1a(hash, o->defines[i].undefine ? "\n-U" : "\n-D", 3);
        hash = mock_fnv1a(hash, o->defines[i].text, strlen(o->defines[i].text) + 1);
    }
    struct mbuf ptx = {0};
    mbuf_printf(&ptx, "//\n// mock-nvrtc input %016llx\n//\n\n.version 9.0\n.target sm_%d%s\n.address_size 64\n",
                (unsigned long long)hash, o->arch, o->suffix);
    for (int i = 0; i < d->n_kernels; i++)
        emit_kernel(&ptx, &d->kernels[i]);
    for (int i = 0; i < d->n_kernels; i++)
        if (d->kernels[i].source)
            emit_definition(&ptx, MOCK_SOURCE_HEADER, d->kernels[i].name, d->kernels[i].source);
    for (int i = 0; i < d->n_functions; i++)
        emit_definition(&ptx, MOCK_FUNCTION_HEADER, "", d->functions[i]);
    if (ptx.failed) {
        mbuf_free(&ptx);
        return NVRTC_ERROR_OUT_OF_MEMORY;
    }
    if (o->cubin) {
        p->cubin_size = 64 + ptx.len;
        unsigned char *elf = calloc(1, p->cubin_size);
        if (!elf) {
            mbuf_free(&ptx);
            return NVRTC_ERROR_OUT_OF_MEMORY;
        }
        memcpy(elf, "\177ELF\2\1", 6); /* ELF64, little-endian */
        uint64_t shoff = 64 + ptx.len; /* where the driver's size rule ends the image */
        for (int b = 0; b < 8; b++)
            elf[0x28 + b] = (unsigned char)(shoff >> (8 * b));
        memcpy(elf + 64, ptx.data, ptx.len);
        p->cubin = (char *)elf;
    }
    p->ptx = ptx.data;
    p->ptx_size = ptx.len + 1;
    return NVRTC_SUCCESS;
}

static bool find_name(char *const *names, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (strcmp(names[i], name) == 0)
            return true;
    return false;
}

/* Name expressions: "k" or "&k" of an extern "C" kernel lowers to "k",
 * "&v" of a __device__ / __constant__ variable to "v"; anything else
 * would need C++ name mangling, which the mock refuses. */
/* What ptxas -v prints for each kernel, as the mock driver will describe
 * it (no stack, no spills, MOCK_KERNEL_REGISTERS registers).  ptxas runs
 * only for sm_ targets: a PTX-only compile reports nothing, as NVRTC's. */
static void ptxas_report(struct mock_log *log, const struct mock_options *o, const struct mock_decls *d)
{
    for (int i = 0; i < d->n_kernels; i++) {
        const char *name = d->kernels[i].name;
        mbuf_printf(&log->text, "ptxas info    : Compiling entry function '%s' for 'sm_%d%s'\n", name, o->arch,
                    o->suffix);
        mbuf_printf(&log->text, "ptxas info    : Function properties for %s\n", name);
        mbuf_str(&log->text, "    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n");
        mbuf_printf(&log->text, "ptxas info    : Used %d registers\n", MOCK_KERNEL_REGISTERS);
    }
}

static nvrtcResult lower_names(nvrtcProgram p, const struct mock_decls *d, struct mock_log *log)
{
    if (!p->n_expressions)
        return NVRTC_SUCCESS;
    if (!(p->lowered = calloc((size_t)p->n_expressions, sizeof *p->lowered)))
        return NVRTC_ERROR_OUT_OF_MEMORY;
    for (int i = 0; i < p->n_expressions; i++) {
        const char *e = p->expressions[i];
        char echo[600];
        snprintf(echo, sizeof echo, "#pragma nv_mangled_name %s", e);
        e += strspn(e, " \t");
        bool address = *e == '&';
        e += address ? 1 + strspn(e + 1, " \t") : 0;
        size_t n = strspn(e, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_$");
        char name[256] = "";
        if (n && n < sizeof name && !(e[0] >= '0' && e[0] <= '9') && !e[n + strspn(e + n, " \t")]) {
            memcpy(name, e, n); /* a plain identifier, nothing after it */
            name[n] = '\0';
        }
        bool kernel = false; /* one in a namespace needs its qualified name */
        for (int k = 0; name[0] && k < d->n_kernels; k++)
            kernel = kernel || (strcmp(d->kernels[k].name, name) == 0 && !d->kernels[k].in_namespace);
        bool variable = name[0] && find_name(d->variables, d->n_variables, name);
        if (variable && !address) {
            log_diagnostic(log, "__nv_name_map", i + 2, "error", echo, 24, "expression must have a constant value");
            log_diagnostic(log, "__nv_name_map", i + 2, "error", echo, 24,
                           "Name expression must form address of a __global__ function or the address of a "
                           "__device__/__constant__ variable. Input name expression was: \" %s\"",
                           p->expressions[i]);
            return NVRTC_ERROR_COMPILATION;
        }
        if (!kernel && !variable) {
            log_refusal(log, "__nv_name_map", i + 2, echo,
                        "name expression \"%s\": only an extern \"C\" kernel or &variable is lowered",
                        p->expressions[i]);
            return NVRTC_ERROR_COMPILATION;
        }
        if (!(p->lowered[i] = strdup(name)))
            return NVRTC_ERROR_OUT_OF_MEMORY;
    }
    return NVRTC_SUCCESS;
}

static void sleep_ms(long ms)
{
    struct timespec t = {ms / 1000, ms % 1000 * 1000000L};
    while (nanosleep(&t, &t) != 0 && errno == EINTR)
        ;
}

MOCK_EXPORT nvrtcResult nvrtcCompileProgram(nvrtcProgram prog, int num_options, const char *const *options)
{
    ENTER("nvrtcCompileProgram");
    if (!valid(prog))
        return NVRTC_ERROR_INVALID_PROGRAM;
    if (num_options < 0)
        return NVRTC_ERROR_INVALID_INPUT;
    if (num_options > 0 && !options)
        return NVRTC_ERROR_INVALID_OPTION;
    if (mock.delay_ms)
        sleep_ms(mock.delay_ms);
    if (!compile_begins()) {
        compile_ends();
        return NVRTC_ERROR_INTERNAL_ERROR;
    }
    free_outputs(prog);

    struct mock_log log = {0};
    struct mock_options o;
    struct mock_pp pp = {0};
    struct mock_decls d = {0};
    nvrtcResult r = mock_parse_options(num_options, options, mock.archs, mock.n_archs, &o, &log);
    /* as NVRTC: only a compile that got past its options closes the
     * program to name expressions */
    prog->attempted = prog->attempted || r != NVRTC_ERROR_INVALID_OPTION;
    if (r == NVRTC_SUCCESS) {
        struct mock_source src = {prog->name, prog->source, prog->headers, prog->n_headers, mock.version};
        if (!mock_preprocess(&src, &o, &pp, &log))
            r = pp.out_of_memory ? NVRTC_ERROR_OUT_OF_MEMORY : NVRTC_ERROR_COMPILATION;
    }
    if (r == NVRTC_SUCCESS && !mock_find_declarations(&pp, &d, &log))
        r = d.out_of_memory ? NVRTC_ERROR_OUT_OF_MEMORY : NVRTC_ERROR_COMPILATION;
    if (r == NVRTC_SUCCESS)
        r = lower_names(prog, &d, &log);
    if (r == NVRTC_SUCCESS)
        r = build_outputs(prog, &o, &pp, &d);
    if (r == NVRTC_SUCCESS && o.ptxas_verbose && o.cubin)
        ptxas_report(&log, &o, &d);
    log_summary(&log, prog->name);
    mock_decls_free(&d);
    mock_pp_free(&pp);
    mock_options_free(&o);
    if (log.text.failed && r == NVRTC_SUCCESS)
        r = NVRTC_ERROR_OUT_OF_MEMORY;
    prog->log = log.text.failed ? NULL : log.text.data;
    if (log.text.failed)
        mbuf_free(&log.text);
    if (r != NVRTC_SUCCESS) {
        char *keep = prog->log;
        prog->log = NULL;
        free_outputs(prog); /* nothing half-built stays */
        prog->log = keep;
    }
    prog->compiled = r == NVRTC_SUCCESS;
    compile_ends();
    return r;
}

/* ------------------------------------------------------------ results */

MOCK_EXPORT nvrtcResult nvrtcGetPTXSize(nvrtcProgram prog, size_t *size)
{
    ENTER_ON_PROGRAM("nvrtcGetPTXSize", prog, size);
    *size = prog->compiled ? prog->ptx_size : 1; /* as NVRTC: "" until a compile succeeds */
    return NVRTC_SUCCESS;
}

MOCK_EXPORT nvrtcResult nvrtcGetPTX(nvrtcProgram prog, char *ptx)
{
    ENTER_ON_PROGRAM("nvrtcGetPTX", prog, ptx);
    if (prog->compiled)
        memcpy(ptx, prog->ptx, prog->ptx_size);
    else
        ptx[0] = '\0';
    return NVRTC_SUCCESS;
}

MOCK_EXPORT nvrtcResult nvrtcGetCUBINSize(nvrtcProgram prog, size_t *size)
{
    ENTER_ON_PROGRAM("nvrtcGetCUBINSize", prog, size);
    *size = prog->cubin_size; /* 0 for compute_XY targets, as NVRTC */
    return NVRTC_SUCCESS;
}

MOCK_EXPORT nvrtcResult nvrtcGetCUBIN(nvrtcProgram prog, char *cubin)
{
    ENTER_ON_PROGRAM("nvrtcGetCUBIN", prog, cubin);
    if (prog->cubin)
        memcpy(cubin, prog->cubin, prog->cubin_size);
    return NVRTC_SUCCESS;
}

MOCK_EXPORT nvrtcResult nvrtcGetProgramLogSize(nvrtcProgram prog, size_t *size)
{
    ENTER_ON_PROGRAM("nvrtcGetProgramLogSize", prog, size);
    *size = (prog->log ? strlen(prog->log) : 0) + 1;
    return NVRTC_SUCCESS;
}

MOCK_EXPORT nvrtcResult nvrtcGetProgramLog(nvrtcProgram prog, char *log)
{
    ENTER_ON_PROGRAM("nvrtcGetProgramLog", prog, log);
    strcpy(log, prog->log ? prog->log : "");
    return NVRTC_SUCCESS;
}

MOCK_EXPORT nvrtcResult nvrtcAddNameExpression(nvrtcProgram prog, const char *const name_expression)
{
    ENTER_ON_PROGRAM("nvrtcAddNameExpression", prog, name_expression);
    if (prog->attempted)
        return NVRTC_ERROR_NO_NAME_EXPRESSIONS_AFTER_COMPILATION;
    char **grown = realloc(prog->expressions, (size_t)(prog->n_expressions + 1) * sizeof *grown);
    if (!grown)
        return NVRTC_ERROR_OUT_OF_MEMORY;
    prog->expressions = grown;
    if (!(grown[prog->n_expressions] = strdup(name_expression)))
        return NVRTC_ERROR_OUT_OF_MEMORY;
    prog->n_expressions++;
    return NVRTC_SUCCESS;
}

MOCK_EXPORT nvrtcResult nvrtcGetLoweredName(nvrtcProgram prog, const char *const name_expression,
                                            const char **lowered_name)
{
    ENTER_ON_PROGRAM("nvrtcGetLoweredName", prog, name_expression && lowered_name);
    if (!prog->compiled)
        return NVRTC_ERROR_NO_LOWERED_NAMES_BEFORE_COMPILATION;
    for (int i = 0; i < prog->n_expressions; i++)
        if (strcmp(prog->expressions[i], name_expression) == 0) {
            *lowered_name = prog->lowered[i];
            return NVRTC_SUCCESS;
        }
    return NVRTC_ERROR_NAME_EXPRESSION_NOT_VALID;
}
