/*
 * loader/sonames.h - the libraries the loaders dlopen by soname, as data:
 * the search (load_driver.c, load_nvrtc.c, nvjitlink.c ...) and the .note.dlopen metadata
 * that tells packagers about them (dlopen_note.c) expand the same lists.
 * A list is LIST(FIRST, NEXT): FIRST names the first entry, NEXT each
 * other one, so a JSON array can be written without a trailing comma.
 */
#ifndef CUDYN_LOADER_SONAMES_H
#define CUDYN_LOADER_SONAMES_H

#define CUDYN_DRIVER_SONAME "libcuda.so.1"
/* NVML, for cudyn_nvml_* (GPUs without cuInit). */
#define CUDYN_NVML_SONAME "libnvidia-ml.so.1"
/* NCCL, for cudyn_nccl_* (collectives); the pip wheel's file has the same name. */
#define CUDYN_NCCL_SONAME "libnccl.so.2"

/* NVRTC, newest first: the order the loader tries them in. */
#define CUDYN_NVRTC_SONAMES(FIRST, NEXT)                                                                       \
    FIRST("libnvrtc.so.13") NEXT("libnvrtc.so.12") NEXT("libnvrtc.so.11.2") NEXT("libnvrtc.so.11.1")        \
        NEXT("libnvrtc.so.11.0") NEXT("libnvrtc.so.10.2")

/* nvJitLink, newest first, for cudyn_link_* (the driver's linker when none). */
#define CUDYN_NVJITLINK_SONAMES(FIRST, NEXT) FIRST("libnvJitLink.so.13") NEXT("libnvJitLink.so.12")

/* The builtins NVRTC dlopens itself (the loader preloads the one of the
 * NVRTC it found, from the same directory): one per NVRTC release of the
 * majors above. */
#define CUDYN_NVRTC_BUILTINS_SONAMES(FIRST, NEXT)                                                              \
    FIRST("libnvrtc-builtins.so.13.1") NEXT("libnvrtc-builtins.so.13.0") NEXT("libnvrtc-builtins.so.12.9")  \
        NEXT("libnvrtc-builtins.so.12.8") NEXT("libnvrtc-builtins.so.12.6") NEXT("libnvrtc-builtins.so.12.5") \
        NEXT("libnvrtc-builtins.so.12.4") NEXT("libnvrtc-builtins.so.12.3") NEXT("libnvrtc-builtins.so.12.2") \
        NEXT("libnvrtc-builtins.so.12.1") NEXT("libnvrtc-builtins.so.12.0") NEXT("libnvrtc-builtins.so.11.8") \
        NEXT("libnvrtc-builtins.so.11.7") NEXT("libnvrtc-builtins.so.11.6") NEXT("libnvrtc-builtins.so.11.5") \
        NEXT("libnvrtc-builtins.so.11.4") NEXT("libnvrtc-builtins.so.11.3") NEXT("libnvrtc-builtins.so.11.2") \
        NEXT("libnvrtc-builtins.so.11.1") NEXT("libnvrtc-builtins.so.11.0") NEXT("libnvrtc-builtins.so.10.2")

#endif
