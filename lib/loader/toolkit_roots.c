/*
 * loader/toolkit_roots.c - where CUDA toolkits lie, in the order every
 * search that looks for one tries them: CUDA_PATH, CUDA_HOME (read with
 * secure_getenv), then /usr/local/cuda and /usr/local/cuda-X.Y, newest
 * first, and the library directories of one.  The NVRTC and nvJitLink
 * searches (library.c's cudyn__search_toolkits) and the toolkit's headers
 * and libcudadevrt.a (toolkit.c) walk them; they sit in a file below all
 * of those so that none calls another for them.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include "loader/loader.h"

const char *const cudyn__toolkit_lib_subdirs[CUDYN_TOOLKIT_LIB_SUBDIRS] = {"lib64", "lib"};

static const struct {
    const char *variable;
    enum cudyn__found_by how;
} env_roots[] = {{"CUDA_PATH", FOUND_BY_CUDA_PATH}, {"CUDA_HOME", FOUND_BY_CUDA_HOME}};

bool cudyn__toolkit_env_roots(cudyn__place_fn fn, void *ctx)
{
    for (size_t i = 0; i < N_ELEMS(env_roots); i++) {
        const char *root = cudyn__getenv(env_roots[i].variable);
        if (root && root[0] && fn(root, env_roots[i].how, ctx))
            return true;
    }
    return false;
}

bool cudyn__toolkit_fixed_roots(cudyn__place_fn fn, void *ctx)
{
    if (fn("/usr/local/cuda", FOUND_BY_TOOLKIT_DIR, ctx))
        return true;
    char *names[64];
    size_t n = cudyn__names_newest_first("/usr/local", "cuda-", names, N_ELEMS(names));
    bool found = false;
    for (size_t i = 0; i < n; i++) {
        if (!found) {
            char root[LOADER_PATH_BYTES];
            snprintf(root, sizeof root, "/usr/local/%s", names[i]);
            found = fn(root, FOUND_BY_TOOLKIT_DIR, ctx);
        }
        free(names[i]);
    }
    return found;
}
