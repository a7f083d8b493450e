/*
 * loaded_symbol.h - how a test reaches a mock's control functions (shared
 * by mock_control.h and nvrtc/mock_nvrtc_control.h): the symbol `name` of
 * the library cudyn loaded from `path` (as cudyn_loader_info names it),
 * or NULL when nothing is loaded there or it lacks the symbol (not the
 * mock).  The library stays loaded by cudyn, so the handle is not kept.
 */
#ifndef CUDYN_MOCK_LOADED_SYMBOL_H
#define CUDYN_MOCK_LOADED_SYMBOL_H

#include <dlfcn.h>
#include <stddef.h>

static inline void *mock_loaded_symbol(const char *path, const char *name)
{
    if (!path)
        return NULL;
    void *h = dlopen(path, RTLD_NOW | RTLD_NOLOAD);
    if (!h)
        return NULL;
    void *symbol = dlsym(h, name);
    dlclose(h); /* drops the count NOLOAD raised; cudyn's own stays */
    return symbol;
}

#endif
