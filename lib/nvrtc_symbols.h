/*
 * nvrtc_symbols.h - the NVRTC symbol table, as data.
 *
 *   NVRTC_SYMBOL(name, since, need, params)
 * NVRTC exports plain names (no versioned variants); `since` is the first
 * NVRTC (CUDA) version that has it, for messages.  A missing OPTIONAL entry
 * point is a stub that answers NVRTC_ERROR_INTERNAL_ERROR and records
 * "symbol not found" naming it.
 */
/* load_nvrtc.c calls it through dlsym, before binding, to vet a candidate,
 * with this row's prototype */
NVRTC_SYMBOL(nvrtcVersion, 7000, REQUIRED, (int *major, int *minor))
NVRTC_SYMBOL(nvrtcGetNumSupportedArchs, 11020, OPTIONAL, (int *count))
NVRTC_SYMBOL(nvrtcGetSupportedArchs, 11020, OPTIONAL, (int *archs))
NVRTC_SYMBOL(nvrtcCreateProgram, 7000, REQUIRED, (nvrtc_program *prog, const char *src, const char *name, int num_headers, const char *const *headers, const char *const *include_names))
NVRTC_SYMBOL(nvrtcDestroyProgram, 7000, REQUIRED, (nvrtc_program *prog))
NVRTC_SYMBOL(nvrtcCompileProgram, 7000, REQUIRED, (nvrtc_program prog, int num_options, const char *const *options))
NVRTC_SYMBOL(nvrtcGetPTXSize, 7000, REQUIRED, (nvrtc_program prog, size_t *size))
NVRTC_SYMBOL(nvrtcGetPTX, 7000, REQUIRED, (nvrtc_program prog, char *ptx))
NVRTC_SYMBOL(nvrtcGetCUBINSize, 11010, OPTIONAL, (nvrtc_program prog, size_t *size))
NVRTC_SYMBOL(nvrtcGetCUBIN, 11010, OPTIONAL, (nvrtc_program prog, char *cubin))
NVRTC_SYMBOL(nvrtcGetProgramLogSize, 7000, REQUIRED, (nvrtc_program prog, size_t *size))
NVRTC_SYMBOL(nvrtcGetProgramLog, 7000, REQUIRED, (nvrtc_program prog, char *log))
NVRTC_SYMBOL(nvrtcAddNameExpression, 8000, OPTIONAL, (nvrtc_program prog, const char *name_expression))
NVRTC_SYMBOL(nvrtcGetLoweredName, 8000, OPTIONAL, (nvrtc_program prog, const char *name_expression, const char **lowered_name))
