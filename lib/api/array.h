/*
 * array.h - what the files of arrays, copies and textures share: element
 * formats and the 2D / 3D copy every whole-array copy is made of.
 */
#ifndef CUDYN_ARRAY_H
#define CUDYN_ARRAY_H

#include <stdbool.h>
#include <stddef.h>

#include "internal.h"

/* Bytes of one channel of a cudyn_format (CUDA's CUarray_format), from
 * CU_ARRAY_FORMAT_MAP; 0 for a value cudyn does not offer. */
unsigned int cudyn__format_bytes(int format);
/* Whether a format holds integers (filtering needs them read as floats). */
bool cudyn__format_is_integer(int format);
/* "format" must be a cudyn_format and "channels" 1, 2 or 4: CUDYN_OK, or
 * CUDYN_ERROR_INVALID_ARGUMENT naming the argument (`what` is its name,
 * such as "desc->format"). */
int cudyn__check_format(const char *api, const char *format_arg, int format, const char *channels_arg,
                        unsigned int channels);

/* The driver's description of an array (cuArray3DGetDescriptor), once the
 * thread has a context. */
int cudyn__array_shape(const char *api, cudyn_array array, cu_array3d_desc *out);

/* cudyn_memcpy_3d(_async) for `api`: checks, then one cuMemcpy3D. */
int cudyn__memcpy_3d(const char *api, const struct cudyn_copy *copy, cudyn_stream stream, bool async);

#endif
