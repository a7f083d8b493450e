/*
 * names.h - C++ name expressions ("scale<float>") and the lowered names
 * NVRTC gave them: one list shape, shared by the compiled program, the
 * cache entry and the loaded module.
 */
#ifndef CUDYN_NAMES_H
#define CUDYN_NAMES_H

#include <stddef.h>

struct cudyn__name_pair {
    char *expression;
    char *lowered;
};

struct cudyn__names {
    size_t n;
    struct cudyn__name_pair *pairs;
};

/* Appends a copy of the pair; 0, or -1 when out of memory (the list is
 * unchanged then). */
int cudyn__names_add(struct cudyn__names *names, const char *expression, const char *lowered);
/* dst (empty) receives a copy of src; 0, or -1 when out of memory (dst
 * is left empty). */
int cudyn__names_copy(struct cudyn__names *dst, const struct cudyn__names *src);
void cudyn__names_free(struct cudyn__names *names);
/* The lowered name of `expression`, or NULL if it was not registered. */
const char *cudyn__names_lookup(const struct cudyn__names *names, const char *expression);

#endif
