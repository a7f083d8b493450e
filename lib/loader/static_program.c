/*
 * loader/static_program.c - a statically linked program cannot load a
 * shared library: every loader asks here first (cudyn__refuse_static_program).
 */
#include "config.h"

#include <link.h>

#include "hints.h"
#include "loader/loader.h"

/* dl_iterate_phdr reports the program first: a program without PT_INTERP
 * was linked statically and runs without the dynamic loader. */
static int program_has_interpreter(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    bool *dynamic = data;
    for (ElfW(Half) i = 0; i < info->dlpi_phnum; i++)
        if (info->dlpi_phdr[i].p_type == PT_INTERP)
            *dynamic = true;
    return 1; /* the program only */
}

/* glibc's dlopen in a static program maps a second, uninitialised libc for
 * the loaded library, whose threads, thread-local data and malloc then run
 * on it: libcuda and NVRTC crash there, sometimes only at their first real
 * work.  So a static program is refused before anything is loaded. */
int cudyn__refuse_static_program(int status, const char *library)
{
    bool dynamic = false;
    dl_iterate_phdr(program_has_interpreter, &dynamic);
    if (dynamic)
        return CUDYN_OK;
    return cudyn__fail(status, CUDYN_ORIGIN_LOADER, 0, NULL, "dlopen", HINT_STATIC_PROGRAM,
                       "this program is statically linked (-static), and a static program cannot load %s: "
                       "glibc's dlopen does not work there",
                       library);
}
