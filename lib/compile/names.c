/*
 * names.c - see names.h.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "compile/names.h"

int cudyn__names_add(struct cudyn__names *names, const char *expression, const char *lowered)
{
    struct cudyn__name_pair *grown = realloc(names->pairs, (names->n + 1) * sizeof *grown);
    if (!grown)
        return -1;
    names->pairs = grown;
    char *e = strdup(expression), *l = strdup(lowered);
    if (!e || !l) {
        free(e);
        free(l);
        return -1;
    }
    grown[names->n++] = (struct cudyn__name_pair){e, l};
    return 0;
}

int cudyn__names_copy(struct cudyn__names *dst, const struct cudyn__names *src)
{
    for (size_t i = 0; i < src->n; i++)
        if (cudyn__names_add(dst, src->pairs[i].expression, src->pairs[i].lowered) != 0) {
            cudyn__names_free(dst);
            return -1;
        }
    return 0;
}

void cudyn__names_free(struct cudyn__names *names)
{
    for (size_t i = 0; i < names->n; i++) {
        free(names->pairs[i].expression);
        free(names->pairs[i].lowered);
    }
    free(names->pairs);
    names->pairs = NULL;
    names->n = 0;
}

const char *cudyn__names_lookup(const struct cudyn__names *names, const char *expression)
{
    for (size_t i = 0; i < names->n; i++)
        if (strcmp(names->pairs[i].expression, expression) == 0)
            return names->pairs[i].lowered;
    return NULL;
}
