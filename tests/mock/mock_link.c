/*
 * mock_link.c - the driver's linker (cuLink*), as far as the mock can
 * emulate it: it joins the PTX text of PTX inputs and of the mock NVRTC's
 * CUBINs (an ELF header with no sections, then PTX; mock_module.c) into
 * one such CUBIN, which cuModuleLoadData reads as any other, and checks
 * that every function a text declares .extern is defined by one of them,
 * as a linker does.  What it cannot link (a real CUBIN, a fatbinary, an
 * object, a library) it refuses: CUDA_ERROR_NOT_SUPPORTED, a line on
 * stderr and in the error log.  The logs go to the buffers given with
 * CU_JIT_INFO_LOG_BUFFER / CU_JIT_ERROR_LOG_BUFFER, as the driver writes
 * them; a failure injected into cuLinkCreate_v2 is said in its error log
 * too.
 */
#include "config.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mock.h"

#define ELF_HEADER_BYTES 64

struct CUlinkState_st {
    char *text; /* the inputs' PTX, joined */
    size_t len;
    int inputs;
    char *info_log, *error_log; /* the caller's buffers, or NULL */
    size_t info_cap, error_cap;
    unsigned char *cubin; /* cuLinkComplete's result, owned here */
    struct CUlinkState_st *next;
};

/* The live link states, as a driver keeps them: one whose cuLinkDestroy
 * failed (an injected fault) stays here, reachable, as a module whose
 * unload failed stays in the module list. */
static struct CUlinkState_st *links;

static void log_to(char *buf, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void log_to(char *buf, size_t cap, const char *fmt, ...)
{
    if (!buf || cap == 0)
        return;
    size_t used = strnlen(buf, cap - 1);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf + used, cap - used, fmt, ap);
    va_end(ap);
}

cu_result cuLinkCreate_v2(unsigned int n, cu_enum *options, void **values, cu_link_state *state)
{
    unsigned int injected = mock_enter("cuLinkCreate_v2");
    if (!injected)
        NEED_CONTEXT();
    if (!state || (n && (!options || !values)))
        return injected ? injected : CU_ERR_INVALID_VALUE;
    struct CUlinkState_st *s = calloc(1, sizeof *s);
    if (!s)
        return CU_ERR_OUT_OF_MEMORY;
    for (unsigned int i = 0; i < n; i++) {
        uintptr_t v = (uintptr_t)values[i];
        switch (options[i]) {
        case CU_JITOPT_INFO_LOG_BUFFER: s->info_log = values[i]; break;
        case CU_JITOPT_INFO_LOG_BUFFER_SIZE_BYTES: s->info_cap = v; break;
        case CU_JITOPT_ERROR_LOG_BUFFER: s->error_log = values[i]; break;
        case CU_JITOPT_ERROR_LOG_BUFFER_SIZE_BYTES: s->error_cap = v; break;
        default: break; /* targets, optimisation levels: nothing to emulate */
        }
    }
    if (s->info_log && s->info_cap)
        s->info_log[0] = '\0';
    if (s->error_log && s->error_cap)
        s->error_log[0] = '\0';
    if (injected) {
        /* a failure injected into the create (MOCK_CUDA_FAIL, mock_fail_next)
         * is said in the error log, where the driver's linker writes why
         * it failed */
        log_to(s->error_log, s->error_cap, "error   : [mock] cuLinkCreate_v2 failed with %u (injected)\n", injected);
        free(s);
        return injected;
    }
    pthread_mutex_lock(&mock.lock);
    s->next = links;
    links = s;
    pthread_mutex_unlock(&mock.lock);
    *state = s;
    return CU_OK;
}

/* The PTX of an input the mock can link, or NULL. */
static const char *input_text(cu_enum type, const char *data, size_t size, size_t *len)
{
    if (type == CU_JITIN_PTX) {
        *len = strnlen(data, size);
        return data;
    }
    uint16_t shnum = 1;
    if (type == CU_JITIN_CUBIN && size > ELF_HEADER_BYTES && memcmp(data, "\177ELF", 4) == 0)
        memcpy(&shnum, data + 0x3C, 2);
    if (shnum != 0)
        return NULL; /* a real CUBIN, or no CUBIN at all */
    *len = strnlen(data + ELF_HEADER_BYTES, size - ELF_HEADER_BYTES);
    return data + ELF_HEADER_BYTES;
}

cu_result cuLinkAddData_v2(cu_link_state state, cu_enum type, void *data, size_t size, const char *name,
                           unsigned int n, cu_enum *options, void **values)
{
    ENTER("cuLinkAddData_v2");
    (void)options;
    (void)values;
    if (!state || !data || size == 0 || (n && (!options || !values)))
        return CU_ERR_INVALID_VALUE;
    size_t len = 0;
    const char *text = input_text(type, data, size, &len);
    if (!text) {
        log_to(state->error_log, state->error_cap, "[mock] cannot link %s: only PTX and the mock NVRTC's CUBINs\n",
               name ? name : "an input");
        return mock_refuse("linking a %s (input type %u)",
                           type == CU_JITIN_CUBIN ? "real CUBIN" : "fatbinary, object or library", type);
    }
    if (!strstr(text, ".version")) {
        log_to(state->error_log, state->error_cap, "[mock] ptxas fatal: %s is not PTX\n", name ? name : "input");
        return CU_ERR_INVALID_PTX;
    }
    char *joined = realloc(state->text, state->len + len + 2);
    if (!joined)
        return CU_ERR_OUT_OF_MEMORY;
    memcpy(joined + state->len, text, len);
    state->len += len;
    joined[state->len++] = '\n';
    joined[state->len] = '\0';
    state->text = joined;
    state->inputs++;
    return CU_OK;
}

/* Whether `name` is defined (".visible .func ... name(" or ".entry name")
 * in the joined text. */
static int defined(const char *text, const char *name, size_t n)
{
    for (const char *p = strstr(text, name); p; p = strstr(p + 1, name)) {
        if (p[n] != '(' && p[n] != ' ')
            continue;
        const char *line = p;
        while (line > text && line[-1] != '\n')
            line--;
        if (!strncmp(line, ".visible .func", 14) || !strncmp(line, ".visible .entry", 15) ||
            !strncmp(line, ".entry", 6) || !strncmp(line, ".func", 5))
            return 1;
    }
    return 0;
}

/* The first function declared .extern and defined by no input, or 0. */
static int undefined_extern(const char *text, char *name, size_t cap)
{
    for (const char *p = strstr(text, ".extern .func"); p; p = strstr(p + 1, ".extern .func")) {
        const char *s = p + 13;
        while (*s == ' ')
            s++;
        if (*s == '(') /* a return value's parameter list comes first */
            s = strchr(s, ')') ? strchr(s, ')') + 1 : s;
        while (*s == ' ')
            s++;
        size_t n = strcspn(s, " (\n");
        if (n == 0 || n >= cap)
            continue;
        memcpy(name, s, n);
        name[n] = '\0';
        if (!defined(text, name, n))
            return 1;
    }
    return 0;
}

cu_result cuLinkComplete(cu_link_state state, void **cubin, size_t *size)
{
    ENTER("cuLinkComplete");
    if (!state || !cubin || !size)
        return CU_ERR_INVALID_VALUE;
    if (!state->inputs) {
        log_to(state->error_log, state->error_cap, "%s", "[mock] nothing to link\n");
        return CU_ERR_INVALID_VALUE;
    }
    char name[256];
    if (undefined_extern(state->text, name, sizeof name)) {
        log_to(state->error_log, state->error_cap, "[mock] nvlink error: Undefined reference to '%s'\n", name);
        return CU_ERR_INVALID_IMAGE;
    }
    free(state->cubin);
    state->cubin = calloc(1, ELF_HEADER_BYTES + state->len + 1);
    if (!state->cubin)
        return CU_ERR_OUT_OF_MEMORY;
    memcpy(state->cubin, "\177ELF\2\1", 6); /* ELF64, little-endian, no sections */
    uint64_t shoff = ELF_HEADER_BYTES + state->len + 1; /* where the mock's size rule ends the image */
    for (int b = 0; b < 8; b++)
        state->cubin[0x28 + b] = (unsigned char)(shoff >> (8 * b));
    memcpy(state->cubin + ELF_HEADER_BYTES, state->text, state->len + 1);
    log_to(state->info_log, state->info_cap, "%s", "[mock] linked\n");
    *cubin = state->cubin;
    *size = (size_t)shoff;
    return CU_OK;
}

cu_result cuLinkDestroy(cu_link_state state)
{
    ENTER("cuLinkDestroy");
    struct CUlinkState_st *found = NULL;
    pthread_mutex_lock(&mock.lock);
    MOCK_LIST_UNLINK_IF(struct CUlinkState_st, links, x, !found && x == state, found = x);
    pthread_mutex_unlock(&mock.lock);
    if (!found)
        return CU_ERR_INVALID_HANDLE;
    free(found->text);
    free(found->cubin);
    free(found);
    return CU_OK;
}
