/*
 * format_codes.h - how cudyn reads the value of each scalar launch-format
 * character from a va_list (cudyn_launchf, cudyn_args_set, the expression
 * kernels' launches).  What each character is (its size and kind) is
 * cudyn.h's CUDYN_LAUNCH_FORMAT_MAP; format.c does not compile while a row
 * here disagrees with it, or a scalar character there has no row here.
 *
 *   X(code, stored, promoted, convert)
 *     the value is read with va_arg(ap, promoted), converted with
 *     convert(stored, value) and passed as `stored`: sizeof(stored) is the
 *     size CUDYN_LAUNCH_FORMAT_MAP gives.
 *
 * Structs ('s') and In/Out buffers are read by args.c, by their kind.
 */
#ifndef CUDYN_FORMAT_CODES_H
#define CUDYN_FORMAT_CODES_H

#define FORMAT_SCALAR_READS(X) \
    X('?', uint8_t, int, CONVERT_BOOL)                             \
    X('b', int8_t, int, CONVERT_CAST)                              \
    X('B', uint8_t, int, CONVERT_CAST)                             \
    X('h', int16_t, int, CONVERT_CAST)                             \
    X('H', uint16_t, int, CONVERT_CAST)                            \
    X('i', int32_t, int, CONVERT_CAST)                             \
    X('I', uint32_t, unsigned int, CONVERT_CAST)                   \
    X('q', int64_t, long long, CONVERT_CAST)                       \
    X('Q', uint64_t, unsigned long long, CONVERT_CAST)             \
    X('e', uint16_t, double, CONVERT_HALF)                         \
    X('f', float, double, CONVERT_CAST)                            \
    X('d', double, double, CONVERT_CAST)                           \
    X('F', float _Complex, float _Complex, CONVERT_CAST)           \
    X('D', double _Complex, double _Complex, CONVERT_CAST)         \
    X('p', cudyn_devptr, cudyn_devptr, CONVERT_CAST)               \
    X('z', size_t, size_t, CONVERT_CAST)                           \
    X('t', uint64_t, cudyn_texture, CONVERT_CAST)                  \
    X('u', uint64_t, cudyn_surface, CONVERT_CAST)

#endif
