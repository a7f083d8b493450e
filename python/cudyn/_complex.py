"""The complex type of the kernels cudyn generates: CUDA C++ text.

``cudyn_complex<float>`` and ``cudyn_complex<double>`` have numpy's layout
for complex64 and complex128 (real part, then imaginary part) and the
alignment of CUDA's float2 / double2.  Arithmetic with each other and with
real numbers, comparisons, and the functions numpy gives complex numbers
(abs, exp, log, log10, sqrt, sin ... tanh, pow) follow numpy's formulas:
division is Smith's algorithm with numpy's answer for a zero divisor,
sqrt is Kahan's.  ``pycuda::complex<T>`` names the same type, for kernels
written for PyCUDA, and ``pycuda::`` has its functions (``pycuda::exp(z)``,
``pycuda::polar(r, theta)``).

The text is C++ in an ``extern "C++"`` block: PyCUDA's SourceModule wraps
a kernel's whole source in ``extern "C"``, where a template may not be
declared, and ``#include <pycuda-complex.hpp>`` inside it must still work.

PYCUDA_HEADERS are the headers PyCUDA's kernels include, as cudyn gives
them to NVRTC in memory: ``pycuda-complex.hpp`` (this type) and
``pycuda-helpers.hpp`` (this type and the ``fp_tex_*`` names PyCUDA's
header has under CUDA 12, where its texture-reference functions are gone).
"""

SOURCE = r"""
#ifndef CUDYN_COMPLEX_DEFINED
#define CUDYN_COMPLEX_DEFINED
extern "C++" {
template <typename T> struct cudyn_same { typedef T type; };

template <typename T> struct __align__(2 * sizeof(T)) cudyn_complex {
    T re, im;
    __device__ __host__ cudyn_complex() {}
    __device__ __host__ cudyn_complex(T r) : re(r), im(0) {}
    __device__ __host__ cudyn_complex(T r, T i) : re(r), im(i) {}
    template <typename U> __device__ __host__ explicit cudyn_complex(const cudyn_complex<U> &z)
        : re((T)z.re), im((T)z.im) {}
    __device__ T real() const { return re; }
    __device__ T imag() const { return im; }
    __device__ cudyn_complex &operator+=(const cudyn_complex &b) { re += b.re; im += b.im; return *this; }
    __device__ cudyn_complex &operator-=(const cudyn_complex &b) { re -= b.re; im -= b.im; return *this; }
    __device__ cudyn_complex &operator*=(const cudyn_complex &b) { return *this = *this * b; }
    __device__ cudyn_complex &operator/=(const cudyn_complex &b) { return *this = *this / b; }
};

#define CUDYN_C cudyn_complex<T>
#define CUDYN_R typename cudyn_same<T>::type

template <typename T> __device__ CUDYN_C operator+(const CUDYN_C &a) { return a; }
template <typename T> __device__ CUDYN_C operator-(const CUDYN_C &a) { return CUDYN_C(-a.re, -a.im); }
template <typename T> __device__ CUDYN_C operator+(const CUDYN_C &a, const CUDYN_C &b)
{ return CUDYN_C(a.re + b.re, a.im + b.im); }
template <typename T> __device__ CUDYN_C operator-(const CUDYN_C &a, const CUDYN_C &b)
{ return CUDYN_C(a.re - b.re, a.im - b.im); }
template <typename T> __device__ CUDYN_C operator*(const CUDYN_C &a, const CUDYN_C &b)
{ return CUDYN_C(a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re); }
template <typename T> __device__ CUDYN_C operator/(const CUDYN_C &a, const CUDYN_C &b)
{
    /* Smith's algorithm; a zero divisor gives numpy's infinities and NaNs */
    T br = b.re < 0 ? -b.re : b.re, bi = b.im < 0 ? -b.im : b.im;
    if (br >= bi) {
        if (br == 0 && bi == 0)
            return CUDYN_C(a.re / br, a.im / br);
        T rat = b.im / b.re, scl = (T)1 / (b.re + b.im * rat);
        return CUDYN_C((a.re + a.im * rat) * scl, (a.im - a.re * rat) * scl);
    }
    T rat = b.re / b.im, scl = (T)1 / (b.im + b.re * rat);
    return CUDYN_C((a.re * rat + a.im) * scl, (a.im * rat - a.re) * scl);
}
template <typename T> __device__ CUDYN_C operator+(const CUDYN_C &a, CUDYN_R b) { return a + CUDYN_C(b); }
template <typename T> __device__ CUDYN_C operator+(CUDYN_R a, const CUDYN_C &b) { return CUDYN_C(a) + b; }
template <typename T> __device__ CUDYN_C operator-(const CUDYN_C &a, CUDYN_R b) { return a - CUDYN_C(b); }
template <typename T> __device__ CUDYN_C operator-(CUDYN_R a, const CUDYN_C &b) { return CUDYN_C(a) - b; }
template <typename T> __device__ CUDYN_C operator*(const CUDYN_C &a, CUDYN_R b) { return CUDYN_C(a.re * b, a.im * b); }
template <typename T> __device__ CUDYN_C operator*(CUDYN_R a, const CUDYN_C &b) { return CUDYN_C(a * b.re, a * b.im); }
template <typename T> __device__ CUDYN_C operator/(const CUDYN_C &a, CUDYN_R b) { return a / CUDYN_C(b); }
template <typename T> __device__ CUDYN_C operator/(CUDYN_R a, const CUDYN_C &b) { return CUDYN_C(a) / b; }
template <typename T> __device__ bool operator==(const CUDYN_C &a, const CUDYN_C &b)
{ return a.re == b.re && a.im == b.im; }
template <typename T> __device__ bool operator!=(const CUDYN_C &a, const CUDYN_C &b) { return !(a == b); }
/* numpy orders complex numbers by real part, then imaginary part */
template <typename T> __device__ bool operator<(const CUDYN_C &a, const CUDYN_C &b)
{ return a.re < b.re || (a.re == b.re && a.im < b.im); }
template <typename T> __device__ bool operator>(const CUDYN_C &a, const CUDYN_C &b) { return b < a; }
template <typename T> __device__ bool operator<=(const CUDYN_C &a, const CUDYN_C &b)
{ return a.re < b.re || (a.re == b.re && a.im <= b.im); }
template <typename T> __device__ bool operator>=(const CUDYN_C &a, const CUDYN_C &b) { return b <= a; }

template <typename T> __device__ T real(const CUDYN_C &z) { return z.re; }
template <typename T> __device__ T imag(const CUDYN_C &z) { return z.im; }
template <typename T> __device__ CUDYN_C conj(const CUDYN_C &z) { return CUDYN_C(z.re, -z.im); }
template <typename T> __device__ T abs(const CUDYN_C &z) { return hypot(z.re, z.im); }
template <typename T> __device__ T arg(const CUDYN_C &z) { return atan2(z.im, z.re); }
template <typename T> __device__ T norm(const CUDYN_C &z) { return z.re * z.re + z.im * z.im; }
template <typename T> __device__ CUDYN_C exp(const CUDYN_C &z)
{ T m = exp(z.re); return CUDYN_C(m * cos(z.im), m * sin(z.im)); }
template <typename T> __device__ CUDYN_C log(const CUDYN_C &z) { return CUDYN_C(log(abs(z)), arg(z)); }
template <typename T> __device__ CUDYN_C log10(const CUDYN_C &z)
{ CUDYN_C l = log(z); T k = (T)0.43429448190325182765; return CUDYN_C(l.re * k, l.im * k); }
template <typename T> __device__ CUDYN_C sqrt(const CUDYN_C &z)
{
    if (z.re == 0 && z.im == 0)
        return CUDYN_C(0, z.im);
    T t = sqrt(((z.re < 0 ? -z.re : z.re) + abs(z)) / 2);
    if (z.re >= 0)
        return CUDYN_C(t, z.im / (2 * t));
    return CUDYN_C((z.im < 0 ? -z.im : z.im) / (2 * t), copysign(t, z.im));
}
template <typename T> __device__ CUDYN_C sin(const CUDYN_C &z)
{ return CUDYN_C(sin(z.re) * cosh(z.im), cos(z.re) * sinh(z.im)); }
template <typename T> __device__ CUDYN_C cos(const CUDYN_C &z)
{ return CUDYN_C(cos(z.re) * cosh(z.im), -sin(z.re) * sinh(z.im)); }
template <typename T> __device__ CUDYN_C tan(const CUDYN_C &z)
{ T d = cos(2 * z.re) + cosh(2 * z.im); return CUDYN_C(sin(2 * z.re) / d, sinh(2 * z.im) / d); }
template <typename T> __device__ CUDYN_C sinh(const CUDYN_C &z)
{ return CUDYN_C(sinh(z.re) * cos(z.im), cosh(z.re) * sin(z.im)); }
template <typename T> __device__ CUDYN_C cosh(const CUDYN_C &z)
{ return CUDYN_C(cosh(z.re) * cos(z.im), sinh(z.re) * sin(z.im)); }
template <typename T> __device__ CUDYN_C tanh(const CUDYN_C &z)
{ T d = cosh(2 * z.re) + cos(2 * z.im); return CUDYN_C(sinh(2 * z.re) / d, sin(2 * z.im) / d); }
template <typename T> __device__ CUDYN_C pow(const CUDYN_C &z, const CUDYN_C &w)
{
    if (z.re == 0 && z.im == 0)
        return w.re == 0 && w.im == 0 ? CUDYN_C(1) : CUDYN_C(0);
    return exp(w * log(z));
}
template <typename T> __device__ CUDYN_C pow(const CUDYN_C &z, CUDYN_R w) { return pow(z, CUDYN_C(w)); }
template <typename T> __device__ CUDYN_C pow(CUDYN_R z, const CUDYN_C &w) { return pow(CUDYN_C(z), w); }

#undef CUDYN_C
#undef CUDYN_R

namespace pycuda {
template <typename T> using complex = cudyn_complex<T>;
using ::real; using ::imag; using ::conj; using ::abs; using ::arg; using ::norm; using ::exp; using ::log;
using ::log10; using ::sqrt; using ::sin; using ::cos; using ::tan; using ::sinh; using ::cosh; using ::tanh;
using ::pow;
template <typename T> __device__ cudyn_complex<T> polar(const T &r, const T &theta = T())
{ return cudyn_complex<T>(r * cos(theta), r * sin(theta)); }
}
} /* extern "C++" */
#endif
"""

HELPERS = r"""
#ifndef CUDYN_PYCUDA_HELPERS_DEFINED
#define CUDYN_PYCUDA_HELPERS_DEFINED
#include <pycuda-complex.hpp>
extern "C++" {
/* the texel types PyCUDA read doubles and complex numbers through */
typedef float fp_tex_float;
typedef int2 fp_tex_double;
typedef uint2 fp_tex_cfloat;
typedef int4 fp_tex_cdouble;
}
#endif
"""

PYCUDA_HEADERS = {"pycuda-complex.hpp": SOURCE, "pycuda-helpers.hpp": HELPERS}
