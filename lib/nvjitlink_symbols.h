/*
 * nvjitlink_symbols.h - the nvJitLink functions cudyn calls, as data.
 *
 *   NVJITLINK_SYMBOL(name, since, need, versioned, params)
 * since: the first nvJitLink that has it (12000 = 12.0).  REQUIRED rows
 * exist in every nvJitLink cudyn accepts (the majors of nvjitlink_abi.h,
 * 12 and 13); a library that
 * lacks one is refused.  An OPTIONAL row is NULL where the library lacks
 * it (NVJITLINK_HAS).  versioned: VERSIONED when the library also exports
 * it as __<name>_<major>_0, bound in preference (nvjitlink_abi.h); PLAIN
 * when only the name exists.  Every row returns nvjitlink_result.
 * tests/check_cuda_abi.c compares the rows with the real nvJitLink.h.
 */
NVJITLINK_SYMBOL(nvJitLinkCreate, 12000, REQUIRED, VERSIONED, (nvjitlink_handle *handle, uint32_t num_options, const char **options))
NVJITLINK_SYMBOL(nvJitLinkDestroy, 12000, REQUIRED, VERSIONED, (nvjitlink_handle *handle))
NVJITLINK_SYMBOL(nvJitLinkAddData, 12000, REQUIRED, VERSIONED, (nvjitlink_handle handle, nvjitlink_input_type type, const void *data, size_t size, const char *name))
NVJITLINK_SYMBOL(nvJitLinkComplete, 12000, REQUIRED, VERSIONED, (nvjitlink_handle handle))
NVJITLINK_SYMBOL(nvJitLinkGetLinkedCubinSize, 12000, REQUIRED, VERSIONED, (nvjitlink_handle handle, size_t *size))
NVJITLINK_SYMBOL(nvJitLinkGetLinkedCubin, 12000, REQUIRED, VERSIONED, (nvjitlink_handle handle, void *cubin))
NVJITLINK_SYMBOL(nvJitLinkGetLinkedPtxSize, 12000, REQUIRED, VERSIONED, (nvjitlink_handle handle, size_t *size))
NVJITLINK_SYMBOL(nvJitLinkGetLinkedPtx, 12000, REQUIRED, VERSIONED, (nvjitlink_handle handle, char *ptx))
NVJITLINK_SYMBOL(nvJitLinkGetErrorLogSize, 12000, REQUIRED, VERSIONED, (nvjitlink_handle handle, size_t *size))
NVJITLINK_SYMBOL(nvJitLinkGetErrorLog, 12000, REQUIRED, VERSIONED, (nvjitlink_handle handle, char *log))
NVJITLINK_SYMBOL(nvJitLinkGetInfoLogSize, 12000, REQUIRED, VERSIONED, (nvjitlink_handle handle, size_t *size))
NVJITLINK_SYMBOL(nvJitLinkGetInfoLog, 12000, REQUIRED, VERSIONED, (nvjitlink_handle handle, char *log))
/* the loader asks it for the version; before 12.3 the soname's major is all there is */
NVJITLINK_SYMBOL(nvJitLinkVersion, 12030, OPTIONAL, PLAIN, (unsigned int *major, unsigned int *minor))
