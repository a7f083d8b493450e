/*
 * format_codes.h - how cudyn reads each launch-format character, as data;
 * cudyn.h's CUDYN_LAUNCH_FORMAT_MAP documents the same characters for
 * users, and tests/fuzz_format.c checks that the two lists hold the same
 * characters.
 *
 *   SCALAR_CODE(code, stored, promoted, convert)
 *     the value is read with va_arg(ap, promoted), converted with
 *     convert(stored, value) and passed as `stored`: sizeof(stored) is the
 *     size the kernel's parameter must have.
 *   OTHER_CODE(code, kind)
 *     a struct by value (ARG_STRUCT: pointer and size) or a host buffer
 *     (ARG_IN, ARG_OUT, ARG_INOUT: pointer and size; the kernel gets a
 *     device pointer).
 */
SCALAR_CODE('?', uint8_t, int, CONVERT_BOOL)
SCALAR_CODE('b', int8_t, int, CONVERT_CAST)
SCALAR_CODE('B', uint8_t, int, CONVERT_CAST)
SCALAR_CODE('h', int16_t, int, CONVERT_CAST)
SCALAR_CODE('H', uint16_t, int, CONVERT_CAST)
SCALAR_CODE('i', int32_t, int, CONVERT_CAST)
SCALAR_CODE('I', uint32_t, unsigned int, CONVERT_CAST)
SCALAR_CODE('q', int64_t, long long, CONVERT_CAST)
SCALAR_CODE('Q', uint64_t, unsigned long long, CONVERT_CAST)
SCALAR_CODE('e', uint16_t, double, CONVERT_HALF)
SCALAR_CODE('f', float, double, CONVERT_CAST)
SCALAR_CODE('d', double, double, CONVERT_CAST)
SCALAR_CODE('F', float _Complex, float _Complex, CONVERT_CAST)
SCALAR_CODE('D', double _Complex, double _Complex, CONVERT_CAST)
SCALAR_CODE('p', cudyn_devptr, cudyn_devptr, CONVERT_CAST)
SCALAR_CODE('z', size_t, size_t, CONVERT_CAST)
SCALAR_CODE('t', uint64_t, cudyn_texture, CONVERT_CAST)
SCALAR_CODE('u', uint64_t, cudyn_surface, CONVERT_CAST)
OTHER_CODE('s', ARG_STRUCT)
OTHER_CODE('<', ARG_IN)
OTHER_CODE('>', ARG_OUT)
OTHER_CODE('=', ARG_INOUT)
