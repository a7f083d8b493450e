/*
 * libc_headers.c - the C and C++ library headers cudyn gives NVRTC in
 * memory (libc_headers.h says why and which), as one table of texts.
 *
 * Each text is written for device code under NVRTC: NVRTC already
 * declares the math functions, malloc, free, abs, memcpy, memset, printf,
 * size_t, ptrdiff_t and NULL itself, so a header adds only what NVRTC
 * lacks of the real one: its macros, types and the few functions device
 * code has of it, with the values device code sees (IEEE 754 float and
 * double, LP64 integers).  Measured against nvcc 13 and the GNU C
 * library; tests/libc holds a kernel per header that both compilers
 * accept, and tests/test_gpu_libc.c compares its values with the host's.
 *
 * Macros that the toolkit's libcu++ also defines under NVRTC (the integer
 * limits, INFINITY, NAN, FP_*, offsetof) are defined only when not defined
 * yet, so including <cuda/std/...> first costs nothing.  The 64-bit types
 * are long long, as libcu++ has them under NVRTC, so that both can be
 * included (glibc makes them long: only mangled names differ).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "internal.h"
#include "compile/libc_headers.h"
#include "compile/options.h"

/* A macro defined unless something defined it first. */
#define ONCE(name, value) "#ifndef " name "\n#define " name " " value "\n#endif\n"
#define GUARD(name) "#ifndef " name "\n#define " name "\n"
#define END_GUARD "#endif\n"

/* ------------------------------------------------------------ <math.h> */

/* Infinity and NaN as constant expressions: NVRTC has no
 * __builtin_huge_valf or __builtin_nanf, but newer ones have
 * __builtin_bit_cast; older ones fold 1.0f / 0.0f. */
#define MATH_SPECIALS                                                                                          \
    "#if defined(__has_builtin)\n#if __has_builtin(__builtin_bit_cast)\n#define __CUDYN_BIT_CAST 1\n#endif\n#endif\n" \
    "#ifdef __CUDYN_BIT_CAST\n"                                                                                \
    "#define __CUDYN_INF_F __builtin_bit_cast(float, 0x7f800000u)\n"                                          \
    "#define __CUDYN_NAN_F __builtin_bit_cast(float, 0x7fc00000u)\n"                                          \
    "#define __CUDYN_INF_D __builtin_bit_cast(double, 0x7ff0000000000000ull)\n"                               \
    "#else\n"                                                                                                  \
    "#define __CUDYN_INF_F (1.0f / 0.0f)\n#define __CUDYN_NAN_F (0.0f / 0.0f)\n#define __CUDYN_INF_D (1.0 / 0.0)\n" \
    "#endif\n"                                                                                                 \
    ONCE("INFINITY", "__CUDYN_INF_F") ONCE("NAN", "__CUDYN_NAN_F") ONCE("HUGE_VALF", "__CUDYN_INF_F")          \
    ONCE("HUGE_VAL", "__CUDYN_INF_D") ONCE("HUGE_VALL", "((long double)__CUDYN_INF_D)")                        \
    ONCE("MAXFLOAT", "3.40282346638528859812e+38F")

/* fpclassify's answers (the C library's numbers), and what the device's
 * ilogb returns for 0 and NaN: INT_MIN for both, as glibc says on x86-64. */
#define MATH_CLASSES                                                                                           \
    ONCE("FP_NAN", "0") ONCE("FP_INFINITE", "1") ONCE("FP_ZERO", "2") ONCE("FP_SUBNORMAL", "3")                 \
    ONCE("FP_NORMAL", "4") ONCE("FP_ILOGB0", "(-2147483647 - 1)") ONCE("FP_ILOGBNAN", "(-2147483647 - 1)")     \
    "typedef float float_t;\ntypedef double double_t;\n"

/* The constants glibc defines by default for C++ (as double, as float
 * since glibc 2.35, and as long double, which device code computes as
 * double): one row per constant, to 20 digits. */
#define MATH_CONSTANTS(X)                                                                                      \
    X("M_E", "2.7182818284590452354") X("M_LOG2E", "1.4426950408889634074")                                   \
    X("M_LOG10E", "0.43429448190325182765") X("M_LN2", "0.69314718055994530942")                              \
    X("M_LN10", "2.30258509299404568402") X("M_PI", "3.14159265358979323846")                                 \
    X("M_PI_2", "1.57079632679489661923") X("M_PI_4", "0.78539816339744830962")                               \
    X("M_1_PI", "0.31830988618379067154") X("M_2_PI", "0.63661977236758134308")                               \
    X("M_2_SQRTPI", "1.12837916709551257390") X("M_SQRT2", "1.41421356237309504880")                          \
    X("M_SQRT1_2", "0.70710678118654752440")
#define CONSTANT_3_WAYS(name, digits)                                                                          \
    "#define " name " " digits "\n#define " name "f " digits "f\n#define " name "l " digits "L\n"

/* The classification and comparison functions NVRTC does not declare,
 * as the C++ library has them: functions of float and double, of C++
 * linkage even inside extern "C" { } (PyCUDA wraps sources in one).  (With
 * nvcc they are host functions; device code needs
 * --expt-relaxed-constexpr there.) */
#define MATH_FUNCTIONS                                                                                         \
    "extern \"C++\" {\n"                                                                                        \
    "static inline __device__ int fpclassify(float x)\n{\n"                                                    \
    "    return isnan(x) ? FP_NAN : isinf(x) ? FP_INFINITE : x == 0.0f ? FP_ZERO\n"                          \
    "         : fabsf(x) < 1.17549435082228750797e-38F ? FP_SUBNORMAL : FP_NORMAL;\n}\n"                     \
    "static inline __device__ int fpclassify(double x)\n{\n"                                                   \
    "    return isnan(x) ? FP_NAN : isinf(x) ? FP_INFINITE : x == 0.0 ? FP_ZERO\n"                           \
    "         : fabs(x) < 2.22507385850720138309e-308 ? FP_SUBNORMAL : FP_NORMAL;\n}\n"                       \
    "static inline __device__ bool isnormal(float x) { return fpclassify(x) == FP_NORMAL; }\n"                 \
    "static inline __device__ bool isnormal(double x) { return fpclassify(x) == FP_NORMAL; }\n"                \
    "static inline __device__ bool isunordered(double x, double y) { return isnan(x) || isnan(y); }\n"         \
    "static inline __device__ bool isgreater(double x, double y) { return !isunordered(x, y) && x > y; }\n"    \
    "static inline __device__ bool isgreaterequal(double x, double y) { return !isunordered(x, y) && x >= y; }\n" \
    "static inline __device__ bool isless(double x, double y) { return !isunordered(x, y) && x < y; }\n"       \
    "static inline __device__ bool islessequal(double x, double y) { return !isunordered(x, y) && x <= y; }\n" \
    "static inline __device__ bool islessgreater(double x, double y) { return !isunordered(x, y) && x != y; }\n" \
    "}\n"

static const char math_h[] =
    "/* <math.h> for device code, supplied by cudyn: NVRTC declares the math functions; this adds the\n"
    "   C library's macros, float_t and double_t, and the classification functions NVRTC lacks. */\n"
    GUARD("__CUDYN_MATH_H") MATH_SPECIALS MATH_CLASSES MATH_CONSTANTS(CONSTANT_3_WAYS) MATH_FUNCTIONS END_GUARD;

/* The functions <cmath> puts in namespace std: those NVRTC declares,
 * each for double and (suffix f) float. */
#define MATH_LIBRARY(X)                                                                                        \
    X("acos") X("acosh") X("asin") X("asinh") X("atan") X("atan2") X("atanh") X("cbrt") X("ceil") X("copysign") \
    X("cos") X("cosh") X("erf") X("erfc") X("exp") X("exp2") X("expm1") X("fabs") X("fdim") X("floor") X("fma") \
    X("fmax") X("fmin") X("fmod") X("frexp") X("hypot") X("ilogb") X("ldexp") X("lgamma") X("llrint")          \
    X("llround") X("log") X("log10") X("log1p") X("log2") X("logb") X("lrint") X("lround") X("modf") X("nan")  \
    X("nearbyint") X("nextafter") X("pow") X("remainder") X("remquo") X("rint") X("round") X("scalbln")        \
    X("scalbn") X("sin") X("sinh") X("sqrt") X("tan") X("tanh") X("tgamma") X("trunc")
#define USING_BOTH(f) "using ::" f "; using ::" f "f;\n"

static const char cmath[] =
    "/* <cmath>, supplied by cudyn: <math.h>, and its functions in namespace std. */\n"
    GUARD("__CUDYN_CMATH") "#include <math.h>\nnamespace std {\n"
    "using ::float_t; using ::double_t; using ::abs;\n"
    "using ::fpclassify; using ::isnormal; using ::isunordered; using ::isgreater; using ::isgreaterequal;\n"
    "using ::isless; using ::islessequal; using ::islessgreater;\n"
    "using ::isfinite; using ::isinf; using ::isnan; using ::signbit;\n"
    MATH_LIBRARY(USING_BOTH) "}\n" END_GUARD;

/* ----------------------------------------------------------- <limits.h> */

static const char limits_h[] =
    "/* <limits.h> for device code, supplied by cudyn: the integer types as NVRTC has them (LP64). */\n"
    GUARD("__CUDYN_LIMITS_H")
    ONCE("CHAR_BIT", "8") ONCE("MB_LEN_MAX", "16") ONCE("SCHAR_MIN", "(-128)") ONCE("SCHAR_MAX", "127")
    ONCE("UCHAR_MAX", "255")
    "#if '\\xff' > 0\n" /* plain char is signed or not as the compiler has it */
    ONCE("CHAR_MIN", "0") ONCE("CHAR_MAX", "UCHAR_MAX")
    "#else\n"
    ONCE("CHAR_MIN", "SCHAR_MIN") ONCE("CHAR_MAX", "SCHAR_MAX")
    "#endif\n"
    ONCE("SHRT_MIN", "(-SHRT_MAX - 1)") ONCE("SHRT_MAX", "0x7fff") ONCE("USHRT_MAX", "0xffff")
    ONCE("INT_MIN", "(-INT_MAX - 1)") ONCE("INT_MAX", "0x7fffffff") ONCE("UINT_MAX", "0xffffffff")
    ONCE("LONG_MIN", "(-LONG_MAX - 1)") ONCE("LONG_MAX", "0x7fffffffffffffffL")
    ONCE("ULONG_MAX", "0xffffffffffffffffUL") ONCE("LLONG_MIN", "(-LLONG_MAX - 1)")
    ONCE("LLONG_MAX", "0x7fffffffffffffffLL") ONCE("ULLONG_MAX", "0xffffffffffffffffULL")
    END_GUARD;

/* ------------------------------------------------------------ <float.h> */

static const char float_h[] =
    "/* <float.h> for device code, supplied by cudyn: IEEE 754 binary32 and binary64; device code\n"
    "   computes long double as double, so its limits are double's. */\n"
    GUARD("__CUDYN_FLOAT_H")
    "#define FLT_RADIX 2\n#define FLT_ROUNDS 1\n#define FLT_EVAL_METHOD 0\n#define DECIMAL_DIG 17\n"
    "#define FLT_MANT_DIG 24\n#define FLT_DIG 6\n#define FLT_DECIMAL_DIG 9\n#define FLT_MIN_EXP (-125)\n"
    "#define FLT_MIN_10_EXP (-37)\n#define FLT_MAX_EXP 128\n#define FLT_MAX_10_EXP 38\n"
    "#define FLT_MAX 3.40282346638528859812e+38F\n#define FLT_MIN 1.17549435082228750797e-38F\n"
    "#define FLT_EPSILON 1.1920928955078125e-07F\n#define FLT_TRUE_MIN 1.40129846432481707092e-45F\n"
    "#define FLT_HAS_SUBNORM 1\n"
    "#define DBL_MANT_DIG 53\n#define DBL_DIG 15\n#define DBL_DECIMAL_DIG 17\n#define DBL_MIN_EXP (-1021)\n"
    "#define DBL_MIN_10_EXP (-307)\n#define DBL_MAX_EXP 1024\n#define DBL_MAX_10_EXP 308\n"
    "#define DBL_MAX 1.79769313486231570815e+308\n#define DBL_MIN 2.22507385850720138309e-308\n"
    "#define DBL_EPSILON 2.22044604925031308085e-16\n#define DBL_TRUE_MIN 4.94065645841246544177e-324\n"
    "#define DBL_HAS_SUBNORM 1\n"
    "#define LDBL_MANT_DIG DBL_MANT_DIG\n#define LDBL_DIG DBL_DIG\n#define LDBL_DECIMAL_DIG DBL_DECIMAL_DIG\n"
    "#define LDBL_MIN_EXP DBL_MIN_EXP\n#define LDBL_MIN_10_EXP DBL_MIN_10_EXP\n#define LDBL_MAX_EXP DBL_MAX_EXP\n"
    "#define LDBL_MAX_10_EXP DBL_MAX_10_EXP\n#define LDBL_MAX 1.79769313486231570815e+308L\n"
    "#define LDBL_MIN 2.22507385850720138309e-308L\n#define LDBL_EPSILON 2.22044604925031308085e-16L\n"
    "#define LDBL_TRUE_MIN 4.94065645841246544177e-324L\n#define LDBL_HAS_SUBNORM 1\n"
    END_GUARD;

/* ----------------------------------------------------------- <stdint.h> */

/* The exact-width types, shared with <sys/types.h> (a typedef repeated
 * with the same type is allowed in C++). */
#define SIGNED_EXACT_TYPES                                                                                     \
    "typedef signed char int8_t;\ntypedef short int16_t;\ntypedef int int32_t;\ntypedef long long int64_t;\n"

/* Each limit of a type family: NAME and its value. */
#define INTEGER_LIMITS(X)                                                                                      \
    X("INT8_MIN", "(-128)") X("INT16_MIN", "(-32767 - 1)") X("INT32_MIN", "(-2147483647 - 1)")                 \
    X("INT64_MIN", "(-9223372036854775807LL - 1)") X("INT8_MAX", "127") X("INT16_MAX", "32767")               \
    X("INT32_MAX", "2147483647") X("INT64_MAX", "9223372036854775807LL") X("UINT8_MAX", "255")                 \
    X("UINT16_MAX", "65535") X("UINT32_MAX", "4294967295U") X("UINT64_MAX", "18446744073709551615ULL")         \
    X("INT_LEAST8_MIN", "INT8_MIN") X("INT_LEAST16_MIN", "INT16_MIN") X("INT_LEAST32_MIN", "INT32_MIN")        \
    X("INT_LEAST64_MIN", "INT64_MIN") X("INT_LEAST8_MAX", "INT8_MAX") X("INT_LEAST16_MAX", "INT16_MAX")        \
    X("INT_LEAST32_MAX", "INT32_MAX") X("INT_LEAST64_MAX", "INT64_MAX") X("UINT_LEAST8_MAX", "UINT8_MAX")      \
    X("UINT_LEAST16_MAX", "UINT16_MAX") X("UINT_LEAST32_MAX", "UINT32_MAX") X("UINT_LEAST64_MAX", "UINT64_MAX") \
    X("INT_FAST8_MIN", "INT8_MIN") X("INT_FAST16_MIN", "INT16_MIN") X("INT_FAST32_MIN", "INT32_MIN")           \
    X("INT_FAST64_MIN", "INT64_MIN") X("INT_FAST8_MAX", "INT8_MAX") X("INT_FAST16_MAX", "INT16_MAX")           \
    X("INT_FAST32_MAX", "INT32_MAX") X("INT_FAST64_MAX", "INT64_MAX") X("UINT_FAST8_MAX", "UINT8_MAX")         \
    X("UINT_FAST16_MAX", "UINT16_MAX") X("UINT_FAST32_MAX", "UINT32_MAX") X("UINT_FAST64_MAX", "UINT64_MAX")   \
    X("INTPTR_MIN", "INT64_MIN") X("INTPTR_MAX", "INT64_MAX") X("UINTPTR_MAX", "UINT64_MAX")                   \
    X("INTMAX_MIN", "INT64_MIN") X("INTMAX_MAX", "INT64_MAX") X("UINTMAX_MAX", "UINT64_MAX")                   \
    X("PTRDIFF_MIN", "(-9223372036854775807L - 1)") X("PTRDIFF_MAX", "9223372036854775807L")                   \
    X("SIZE_MAX", "18446744073709551615UL") X("WCHAR_MIN", "(-2147483647 - 1)") X("WCHAR_MAX", "2147483647")   \
    X("SIG_ATOMIC_MIN", "(-2147483647 - 1)") X("SIG_ATOMIC_MAX", "2147483647") X("WINT_MIN", "0U")            \
    X("WINT_MAX", "4294967295U")

/* The constant macros, usable in #if as the standard wants. */
#define INTEGER_CONSTANTS(X)                                                                                   \
    X("INT8_C", "c") X("INT16_C", "c") X("INT32_C", "c") X("INT64_C", "c ## LL") X("UINT8_C", "c")             \
    X("UINT16_C", "c") X("UINT32_C", "c ## U") X("UINT64_C", "c ## ULL") X("INTMAX_C", "c ## LL")              \
    X("UINTMAX_C", "c ## ULL")
#define ONCE_OF_C(name, value) "#ifndef " name "\n#define " name "(c) " value "\n#endif\n"

static const char stdint_h[] =
    "/* <stdint.h> for device code, supplied by cudyn: the exact-width types and their limits; the\n"
    "   64-bit ones are long long, as the toolkit's <cuda/std/cstdint> has them under NVRTC. */\n"
    GUARD("__CUDYN_STDINT_H") SIGNED_EXACT_TYPES
    "typedef unsigned char uint8_t;\ntypedef unsigned short uint16_t;\ntypedef unsigned int uint32_t;\n"
    "typedef unsigned long long uint64_t;\n"
    "typedef int8_t int_least8_t;\ntypedef int16_t int_least16_t;\ntypedef int32_t int_least32_t;\n"
    "typedef int64_t int_least64_t;\ntypedef uint8_t uint_least8_t;\ntypedef uint16_t uint_least16_t;\n"
    "typedef uint32_t uint_least32_t;\ntypedef uint64_t uint_least64_t;\n"
    "typedef int8_t int_fast8_t;\ntypedef int16_t int_fast16_t;\ntypedef int32_t int_fast32_t;\n"
    "typedef int64_t int_fast64_t;\ntypedef uint8_t uint_fast8_t;\ntypedef uint16_t uint_fast16_t;\n"
    "typedef uint32_t uint_fast32_t;\ntypedef uint64_t uint_fast64_t;\n"
    "typedef int64_t intptr_t;\ntypedef uint64_t uintptr_t;\ntypedef int64_t intmax_t;\ntypedef uint64_t uintmax_t;\n"
    INTEGER_LIMITS(ONCE) INTEGER_CONSTANTS(ONCE_OF_C) END_GUARD;

#define USING_INTEGERS(bits)                                                                                   \
    "using ::int" bits "_t; using ::uint" bits "_t; using ::int_least" bits "_t; using ::uint_least" bits "_t;\n" \
    "using ::int_fast" bits "_t; using ::uint_fast" bits "_t;\n"

static const char cstdint[] =
    "/* <cstdint>, supplied by cudyn: <stdint.h>, and its types in namespace std. */\n"
    GUARD("__CUDYN_CSTDINT") "#include <stdint.h>\nnamespace std {\n"
    USING_INTEGERS("8") USING_INTEGERS("16") USING_INTEGERS("32") USING_INTEGERS("64")
    "using ::intptr_t; using ::uintptr_t; using ::intmax_t; using ::uintmax_t;\n}\n" END_GUARD;

/* -------------------------------------------------- <stddef.h>, <stdbool.h> */

static const char stddef_h[] =
    "/* <stddef.h> for device code, supplied by cudyn: NVRTC declares size_t, ptrdiff_t and NULL;\n"
    "   this adds offsetof (NVRTC has no __builtin_offsetof) and max_align_t. */\n"
    GUARD("__CUDYN_STDDEF_H")
    "#ifndef offsetof\n#define offsetof(type, member) ((size_t)&reinterpret_cast<const volatile char &>(((type *)0)->member))\n"
    "#endif\n"
    "typedef long double max_align_t;\n" END_GUARD;

/* std::byte's operators, as C++17 has them (device functions: NVRTC
 * compiles no host code). */
#define BYTE_OPERATOR(op)                                                                                      \
    "__device__ constexpr byte operator" op "(byte a, byte b) noexcept\n"                                      \
    "{ return byte(static_cast<unsigned char>(a) " op " static_cast<unsigned char>(b)); }\n"                   \
    "__device__ constexpr byte &operator" op "=(byte &a, byte b) noexcept { return a = a " op " b; }\n"
#define BYTE_SHIFT(op)                                                                                         \
    "template <class I> __device__ constexpr byte operator" op "(byte a, I n) noexcept\n"                      \
    "{ return byte(static_cast<unsigned char>(static_cast<unsigned int>(a) " op " n)); }\n"                    \
    "template <class I> __device__ constexpr byte &operator" op "=(byte &a, I n) noexcept { return a = a " op " n; }\n"

static const char cstddef[] =
    "/* <cstddef>, supplied by cudyn: <stddef.h>'s names in namespace std, nullptr_t, and (C++17) byte. */\n"
    GUARD("__CUDYN_CSTDDEF") "#include <stddef.h>\nnamespace std {\n"
    "using ::size_t; using ::ptrdiff_t; using ::max_align_t;\ntypedef decltype(nullptr) nullptr_t;\n"
    "#if __cplusplus >= 201703L\nenum class byte : unsigned char {};\nextern \"C++\" {\n"
    BYTE_OPERATOR("|") BYTE_OPERATOR("&") BYTE_OPERATOR("^") BYTE_SHIFT("<<") BYTE_SHIFT(">>")
    "__device__ constexpr byte operator~(byte a) noexcept { return byte(~static_cast<unsigned char>(a)); }\n"
    "template <class I> __device__ constexpr I to_integer(byte a) noexcept { return I(a); }\n"
    "}\n#endif\n}\n" END_GUARD;

static const char stdbool_h[] =
    "/* <stdbool.h>, supplied by cudyn: bool, true and false are C++ keywords already. */\n"
    GUARD("__CUDYN_STDBOOL_H") "#define __bool_true_false_are_defined 1\n#define _Bool bool\n" END_GUARD;

/* ------------------------------------------------------ <stdlib.h> and more */

static const char stdlib_h[] =
    "/* <stdlib.h> for device code, supplied by cudyn: NVRTC declares what device code has of it\n"
    "   (malloc and free on the device heap, abs, labs, llabs); this adds the macros. */\n"
    GUARD("__CUDYN_STDLIB_H") "#define EXIT_SUCCESS 0\n#define EXIT_FAILURE 1\n#define RAND_MAX 2147483647\n"
    END_GUARD;

static const char cstdlib[] =
    "/* <cstdlib>, supplied by cudyn: <stdlib.h>, and its device functions in namespace std. */\n"
    GUARD("__CUDYN_CSTDLIB") "#include <stdlib.h>\nnamespace std {\n"
    "using ::size_t; using ::malloc; using ::free; using ::abs; using ::labs; using ::llabs;\n}\n" END_GUARD;

static const char string_h[] =
    "/* <string.h> for device code, supplied by cudyn: device code has memcpy and memset of it,\n"
    "   which NVRTC declares itself. */\n";

static const char cstring[] =
    "/* <cstring>, supplied by cudyn: memcpy and memset in namespace std. */\n"
    GUARD("__CUDYN_CSTRING") "namespace std {\nusing ::size_t; using ::memcpy; using ::memset;\n}\n" END_GUARD;

static const char stdio_h[] =
    "/* <stdio.h> for device code, supplied by cudyn: device code has printf of it, which NVRTC\n"
    "   declares itself. */\n";

static const char cstdio[] =
    "/* <cstdio>, supplied by cudyn: printf in namespace std. */\n"
    GUARD("__CUDYN_CSTDIO") "namespace std {\nusing ::size_t; using ::printf;\n}\n" END_GUARD;

/* No include guard: NDEBUG decides at each inclusion, as with the real
 * one.  __assertfail is the device runtime's failed assertion, which NVRTC
 * declares. */
static const char assert_h[] =
    "/* <assert.h> for device code, supplied by cudyn: NDEBUG decides at each inclusion. */\n"
    "#undef assert\n#ifdef NDEBUG\n#define assert(e) (static_cast<void>(0))\n#else\n"
    "#define assert(e) (static_cast<bool>(e) ? static_cast<void>(0) \\\n"
    "    : __assertfail(#e, __FILE__, __LINE__, __PRETTY_FUNCTION__, sizeof(char)))\n#endif\n";

static const char cassert[] = "/* <cassert>, supplied by cudyn: <assert.h>, NDEBUG deciding at each inclusion. */\n"
                              "#include <assert.h>\n";

static const char climits[] = "/* <climits>, supplied by cudyn. */\n#include <limits.h>\n";
static const char cfloat[] = "/* <cfloat>, supplied by cudyn. */\n#include <float.h>\n";

static const char sys_types_h[] =
    "/* <sys/types.h> for device code, supplied by cudyn: the GNU C library's short names (uint,\n"
    "   ushort, ulong, u_char ...), its signed exact-width types (long long for 64 bits, as in\n"
    "   cudyn's <stdint.h>) and ssize_t. */\n"
    GUARD("__CUDYN_SYS_TYPES_H")
    "typedef unsigned char u_char;\ntypedef unsigned short u_short;\ntypedef unsigned int u_int;\n"
    "typedef unsigned long u_long;\ntypedef unsigned short ushort;\ntypedef unsigned int uint;\n"
    "typedef unsigned long ulong;\n" SIGNED_EXACT_TYPES
    "typedef unsigned char u_int8_t;\ntypedef unsigned short u_int16_t;\ntypedef unsigned int u_int32_t;\n"
    "typedef unsigned long long u_int64_t;\ntypedef long ssize_t;\n" END_GUARD;

/* What nvcc 13 gives device code with no #include on Linux (it includes
 * cuda_runtime.h, which brings these), measured: see libc_headers.h. */
static const char nvcc_names[] =
    "/* cudyn/nvcc.h, supplied by cudyn: the names nvcc gives device code without any #include on\n"
    "   Linux.  Not <cstdint>'s unsigned types, <cfloat>, assert or printf: nvcc code includes those. */\n"
    "#include <cmath>\n#include <cstdlib>\n#include <cstring>\n#include <climits>\n#include <cstddef>\n"
    "#include <sys/types.h>\n";

const struct cudyn__libc_header cudyn__libc_headers[] = {
    {"math.h", math_h},
    {"cmath", cmath},
    {"stdint.h", stdint_h},
    {"cstdint", cstdint},
    {"limits.h", limits_h},
    {"climits", climits},
    {"float.h", float_h},
    {"cfloat", cfloat},
    {"stddef.h", stddef_h},
    {"cstddef", cstddef},
    {"stdbool.h", stdbool_h},
    {"stdlib.h", stdlib_h},
    {"cstdlib", cstdlib},
    {"string.h", string_h},
    {"cstring", cstring},
    {"assert.h", assert_h},
    {"cassert", cassert},
    {"sys/types.h", sys_types_h},
    {"stdio.h", stdio_h},
    {"cstdio", cstdio},
    {CUDYN_NVCC_NAMES_HEADER, nvcc_names},
    {NULL, NULL},
};
_Static_assert(sizeof cudyn__libc_headers / sizeof cudyn__libc_headers[0] <= CUDYN_LIBC_HEADERS_MAX + 1,
               "raise CUDYN_LIBC_HEADERS_MAX");

const struct cudyn__libc_header *cudyn__libc_header(const char *name)
{
    for (const struct cudyn__libc_header *h = cudyn__libc_headers; h->name; h++)
        if (strcmp(h->name, name) == 0)
            return h;
    return NULL;
}

/* Whether text defines name: as a macro ("#define NAME", then a space or
 * a parenthesis) or as a type (a line "typedef ... NAME;"), not as a
 * word inside a function's body. */
static bool defines(const char *text, const char *name)
{
    size_t len = strlen(name);
    for (const char *p = strstr(text, name); p; p = strstr(p + 1, name)) {
        if (p == text || (p[-1] != ' ' && p[-1] != '*'))
            continue;
        if (p - text >= 8 && cudyn__starts_with(p - 8, "#define ") && (p[len] == ' ' || p[len] == '('))
            return true;
        const char *line = p;
        while (line > text && line[-1] != '\n')
            line--;
        if (p[len] == ';' && cudyn__starts_with(line, "typedef "))
            return true;
    }
    return false;
}

/* The header among `header`'s and those it includes (depth levels down)
 * whose text defines name, or NULL. */
static const char *defining(const struct cudyn__libc_header *header, const char *name, int depth)
{
    if (defines(header->text, name))
        return header->name;
    static const char include[] = "#include <";
    for (const char *p = strstr(header->text, include); p && depth > 0; p = strstr(p + 1, include)) {
        char included[64];
        const char *start = p + sizeof include - 1;
        size_t n = strcspn(start, ">\n");
        if (start[n] != '>' || n >= sizeof included)
            continue;
        memcpy(included, start, n);
        included[n] = '\0';
        const struct cudyn__libc_header *h = cudyn__libc_header(included);
        const char *found = h ? defining(h, name, depth - 1) : NULL;
        if (found)
            return found;
    }
    return NULL;
}

const char *cudyn__nvcc_name_header(const char *name)
{
    const struct cudyn__libc_header *nvcc = cudyn__libc_header(CUDYN_NVCC_NAMES_HEADER);
    return nvcc ? defining(nvcc, name, 3) : NULL;
}

static int named(const char *const *names, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (strcmp(names[i], name) == 0)
            return 1;
    return 0;
}

bool cudyn__header_on_path(const char *const *options, int num_options, const char *name)
{
    struct cudyn__option o;
    for (int i = 0; i < num_options; i += o.used) {
        if (cudyn__option_read(options, num_options, i, &o) != 0)
            break; /* checked by the caller */
        if (o.kind != OPTION_INCLUDE_PATH || !o.value)
            continue;
        char path[4200];
        struct stat st;
        snprintf(path, sizeof path, "%s%s%s", o.value, o.value[0] && o.value[strlen(o.value) - 1] != '/' ? "/" : "",
                 name);
        if (stat(path, &st) == 0)
            return true;
    }
    return false;
}

int cudyn__headers_with_libc(const char *const *names, const char *const *texts, int n, const char *const *options,
                             int num_options, const char ***out_names, const char ***out_texts, int *out_n)
{
    size_t cap = (size_t)n + sizeof cudyn__libc_headers / sizeof cudyn__libc_headers[0];
    const char **v_names = calloc(cap, sizeof *v_names), **v_texts = calloc(cap, sizeof *v_texts);
    if (!v_names || !v_texts) {
        free(v_names);
        free(v_texts);
        return -1;
    }
    int k = 0;
    for (; k < n; k++) {
        v_names[k] = names[k];
        v_texts[k] = texts[k];
    }
    for (const struct cudyn__libc_header *h = cudyn__libc_headers; h->name; h++)
        if (!named(names, n, h->name) && !cudyn__header_on_path(options, num_options, h->name)) {
            v_names[k] = h->name;
            v_texts[k++] = h->text;
        }
    *out_names = v_names;
    *out_texts = v_texts;
    *out_n = k;
    return 0;
}
