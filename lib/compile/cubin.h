/*
 * cubin.h - reading a CUBIN (an ELF64 file) within its bounds: whether its
 * headers and sections lie inside the bytes given, and a kernel's
 * parameters from the CUBIN's own records (the .nv.info.<kernel> section's
 * EIATTR_KPARAM_INFO attributes), so that cudyn need not ask the driver
 * past a kernel's last parameter.  Pure: no driver.
 */
#ifndef CUDYN_CUBIN_H
#define CUDYN_CUBIN_H

#include <stddef.h>

#define CUDYN_CUBIN_MAX_PARAMS 64

/* 0 when the ELF header, the program and section header tables and every
 * section's bytes lie within bytes; else -1 with the reason in why. */
int cudyn__cubin_check(const unsigned char *elf, size_t bytes, char *why, size_t cap);
/* The size of a CUBIN the program embeds (no size given): the end of its
 * furthest table or section, read from its own headers; 0 if it is not an
 * ELF64 file. */
size_t cudyn__cubin_extent(const unsigned char *elf);
/* kernel's parameter count and sizes from its .nv.info.<kernel> section:
 * the count (0 to CUDYN_CUBIN_MAX_PARAMS), or -1 when the CUBIN does not
 * say (no such section, records that do not add up, or a parameter bank
 * or size with no parameter records).  A section with none of these
 * attributes is a kernel without parameters (as NVRTC 13 writes one).
 * sizes may be NULL. */
int cudyn__cubin_kernel_params(const unsigned char *elf, size_t bytes, const char *kernel,
                               size_t sizes[CUDYN_CUBIN_MAX_PARAMS]);
/* "NAME(.param .b64 p0, ...)\n" for every kernel whose parameters the
 * CUBIN records (ptx_interface.h's form, with widths but not kinds),
 * malloc'd; NULL if none or out of memory. */
char *cudyn__cubin_interface(const unsigned char *elf, size_t bytes);

#endif
