/*
 * loader/python_sites.c - the site-packages directories where pip puts
 * NVIDIA's wheels (nvidia/nccl/lib, nvidia/cu13/include ...), found from
 * paths alone: no Python runs.  The NCCL search (nccl.c) and the toolkit
 * search (toolkit.c) walk them in the same three steps:
 *  1. the site-packages of every library already loaded (dl_iterate_phdr):
 *     the interpreter's own environment, whatever its prefix;
 *  2. the Python environments named by VIRTUAL_ENV and CONDA_PREFIX, then
 *     the program's own prefix (not under secure execution, where the
 *     invoker may have laid a library beside it): PREFIX/lib{,64}/python3*,
 *     newest first, each with its site-packages and dist-packages;
 *  3. the user's (~/.local) and the system's (/usr/local, /usr) ones.
 */
#include "config.h"

#include <dirent.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#if defined(__has_include)
#if __has_include(<sys/auxv.h>)
#include <sys/auxv.h>
#endif
#endif

#include "loader/loader.h"

#define MAX_SITES 16
#define MAX_PYTHONS 32

struct sites {
    char dirs[MAX_SITES][LOADER_PATH_BYTES];
    int n;
};

/* The ".../site-packages" (or dist-packages) a loaded file lies under. */
static int collect_site(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    struct sites *s = data;
    const char *name = info->dlpi_name;
    const char *at = name ? strstr(name, "/site-packages/") : NULL;
    if (!at && name)
        at = strstr(name, "/dist-packages/");
    if (!at || s->n == MAX_SITES)
        return 0;
    int len = (int)(at - name) + (int)strlen("/site-packages"); /* both names are 14 characters */
    for (int i = 0; i < s->n; i++)
        if ((int)strlen(s->dirs[i]) == len && strncmp(s->dirs[i], name, (size_t)len) == 0)
            return 0;
    snprintf(s->dirs[s->n++], LOADER_PATH_BYTES, "%.*s", len, name);
    return 0;
}

bool cudyn__sites_of_loaded(cudyn__place_fn fn, void *ctx, struct cudyn__text *trace)
{
    struct sites *sites = calloc(1, sizeof *sites);
    if (!sites)
        return false;
    dl_iterate_phdr(collect_site, sites);
    if (sites->n == 0)
        cudyn__text_add(trace, "no loaded library lies in a site-packages directory (not a Python process)");
    bool found = false;
    for (int i = 0; i < sites->n && !found; i++)
        found = fn(sites->dirs[i], FOUND_BY_LOADED_WHEEL, ctx);
    free(sites);
    return found;
}

static int compare_versions_descending(const void *a, const void *b)
{
    return strverscmp(*(char *const *)b, *(char *const *)a);
}

size_t cudyn__names_newest_first(const char *dir, const char *prefix, char **names, size_t max)
{
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    size_t n = 0, len = strlen(prefix);
    struct dirent *e;
    while ((e = readdir(d)) && n < max)
        if (strncmp(e->d_name, prefix, len) == 0 && (names[n] = strdup(e->d_name)))
            n++;
    closedir(d);
    qsort(names, n, sizeof names[0], compare_versions_descending);
    return n;
}

/* PREFIX/lib/python3* and PREFIX/lib64/python3*, newest first, each with
 * its site-packages and dist-packages (Debian's python3/dist-packages
 * too). */
static bool walk_prefix(const char *prefix, enum cudyn__found_by how, cudyn__place_fn fn, void *ctx,
                        struct cudyn__text *trace, const char *looking_for)
{
    static const char *const libdirs[] = {"lib", "lib64"};
    static const char *const site_names[] = {"site-packages", "dist-packages"};
    bool found = false;
    bool looked = false;
    for (size_t l = 0; l < N_ELEMS(libdirs) && !found; l++) {
        char dir[LOADER_PATH_BYTES];
        snprintf(dir, sizeof dir, "%s/%s", prefix, libdirs[l]);
        char *names[MAX_PYTHONS];
        size_t n = cudyn__names_newest_first(dir, "python3", names, N_ELEMS(names));
        looked |= n > 0;
        for (size_t i = 0; i < n; i++) {
            for (size_t s = 0; s < N_ELEMS(site_names) && !found; s++) {
                char site[LOADER_PATH_BYTES * 2];
                snprintf(site, sizeof site, "%s/%s/%s", dir, names[i], site_names[s]);
                found = fn(site, how, ctx);
            }
            free(names[i]);
        }
    }
    if (!found)
        cudyn__text_add(trace, "%s [%s]: %s", prefix, cudyn__found_by_name(how),
                        looked ? looking_for : "no lib/python3*");
    return found;
}

/* Whether this process runs with more privilege than its invoker
 * (setuid, setgid, file capabilities): the kernel's AT_SECURE, which
 * secure_getenv also obeys. */
static bool secure_execution(void)
{
#ifdef AT_SECURE
    if (getauxval(AT_SECURE))
        return true;
#endif
    return getuid() != geteuid() || getgid() != getegid();
}

/* The directory above the one holding this program (/usr for
 * /usr/bin/python3); none under secure execution, where the invoker may
 * have linked the program into a directory of theirs and laid a library
 * beside it, as the variables are ignored there too. */
static bool program_prefix(char *out, size_t cap, struct cudyn__text *trace)
{
    if (secure_execution()) {
        cudyn__text_add(trace, "the program's prefix [%s]: not searched under secure execution (setuid, setgid, "
                               "capabilities)",
                        cudyn__found_by_name(FOUND_BY_PYTHON_ENV));
        return false;
    }
    ssize_t n = readlink("/proc/self/exe", out, cap - 1);
    if (n <= 0)
        return false;
    out[n] = '\0';
    for (int up = 0; up < 2; up++) {
        char *slash = strrchr(out, '/');
        if (!slash || slash == out)
            return false;
        *slash = '\0';
    }
    return true;
}

bool cudyn__sites_of_environments(cudyn__place_fn fn, void *ctx, struct cudyn__text *trace, const char *looking_for)
{
    static const char *const variables[] = {"VIRTUAL_ENV", "CONDA_PREFIX"};
    for (size_t i = 0; i < N_ELEMS(variables); i++) {
        const char *prefix = cudyn__getenv(variables[i]);
        if (prefix && prefix[0] && walk_prefix(prefix, FOUND_BY_PYTHON_ENV, fn, ctx, trace, looking_for))
            return true;
    }
    char prefix[LOADER_PATH_BYTES];
    return program_prefix(prefix, sizeof prefix, trace) &&
           walk_prefix(prefix, FOUND_BY_PYTHON_ENV, fn, ctx, trace, looking_for);
}

bool cudyn__sites_of_user_and_system(cudyn__place_fn fn, void *ctx, struct cudyn__text *trace,
                                     const char *looking_for)
{
    const char *home = cudyn__getenv("HOME");
    if (home && home[0]) {
        char prefix[LOADER_PATH_BYTES];
        snprintf(prefix, sizeof prefix, "%s/.local", home);
        if (walk_prefix(prefix, FOUND_BY_PYTHON_SITE, fn, ctx, trace, looking_for))
            return true;
    }
    return walk_prefix("/usr/local", FOUND_BY_PYTHON_SITE, fn, ctx, trace, looking_for) ||
           walk_prefix("/usr", FOUND_BY_PYTHON_SITE, fn, ctx, trace, looking_for);
}
