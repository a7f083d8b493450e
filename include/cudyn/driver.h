/*
 * cudyn/driver.h - typed raw driver access, for code that has the CUDA
 * headers and wants to call driver functions cudyn does not wrap, through
 * the driver cudyn loaded.  Optional: cudyn.h never needs CUDA headers.
 *
 *   #include <cudyn/driver.h>
 *   PFN_cuMemAlloc_v3020 alloc = CUDYN_DRIVER_PROC(cuMemAlloc, 3020);
 *   if (alloc) alloc(&ptr, bytes);
 *
 * The version is the CUDA version whose declaration your code calls
 * (cudaTypedefs.h names each one PFN_<name>_v<version>); the driver hands
 * out exactly that variant, or NULL (see cudyn_last_error) if it has none.
 * Work needing a context should run after a cudyn call made one current
 * (cudyn_device_use).
 */
#ifndef CUDYN_DRIVER_H
#define CUDYN_DRIVER_H

#include <cuda.h>
#include <cudaTypedefs.h>

#include <cudyn.h>

/* ISO C has no cast from void * to a function pointer (POSIX gives the
 * two one representation, as for dlsym): C reads it through a union. */
#ifdef __cplusplus
#define CUDYN_DRIVER_PROC(name, version) (reinterpret_cast<PFN_##name##_v##version>(cudyn_driver_proc(#name, version)))
#else
#define CUDYN_DRIVER_PROC(name, version) \
    (((union { void *object; PFN_##name##_v##version function; }){cudyn_driver_proc(#name, version)}).function)
#endif

#endif /* CUDYN_DRIVER_H */
