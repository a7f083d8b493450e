/*
 * libc_headers.c - the C library headers cudyn gives NVRTC in memory (see
 * libc_headers.h for which, and why only those).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "compile/libc_headers.h"

#define PRINTF_ONLY                                                                                            \
    "/* supplied by cudyn: device code uses printf alone from this header, and NVRTC declares printf itself */\n"

const struct cudyn__libc_header cudyn__libc_headers[] = {
    {"stdio.h", PRINTF_ONLY},
    {"cstdio", PRINTF_ONLY},
    {NULL, NULL},
};

const char *cudyn__libc_header(const char *name)
{
    for (const struct cudyn__libc_header *h = cudyn__libc_headers; h->name; h++)
        if (strcmp(h->name, name) == 0)
            return h->text;
    return NULL;
}

static int named(const char *const *names, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (strcmp(names[i], name) == 0)
            return 1;
    return 0;
}

int cudyn__headers_with_libc(const char *const *names, const char *const *texts, int n, const char ***out_names,
                             const char ***out_texts, int *out_n)
{
    size_t cap = (size_t)n + sizeof cudyn__libc_headers / sizeof cudyn__libc_headers[0];
    const char **v_names = calloc(cap, sizeof *v_names), **v_texts = calloc(cap, sizeof *v_texts);
    if (!v_names || !v_texts) {
        free(v_names);
        free(v_texts);
        return -1;
    }
    int k = 0;
    for (; k < n; k++) {
        v_names[k] = names[k];
        v_texts[k] = texts[k];
    }
    for (const struct cudyn__libc_header *h = cudyn__libc_headers; h->name; h++)
        if (!named(names, n, h->name)) {
            v_names[k] = h->name;
            v_texts[k++] = h->text;
        }
    *out_names = v_names;
    *out_texts = v_texts;
    *out_n = k;
    return 0;
}
