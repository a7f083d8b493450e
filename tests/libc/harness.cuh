/* The kernels of tests/libc: each includes one C or C++ library header,
   then lists what that header gives as values (a .values file of REAL,
   INT and TRUE lines).  On a GPU, tests/test_gpu_libc.c runs the kernel
   and compares each REAL and INT with the same expression evaluated by the
   host's C library, and wants every TRUE (a fact only device code can
   check) to hold.  nvcc compiles the same files (tests/check-libc-nvcc.sh),
   NVRTC through cudyn (tests/test_libc_headers.c). */
#define REAL(x) reals[nr++] = (double)(x);
#define INT(x) ints[ni++] = (long long)(x);
#define TRUE(x) ints[ni++] = (x) ? 1 : 0;
#define VALUES_BEGIN                                                            \
    extern "C" __global__ void values(long long *ints, double *reals, int *counts) \
    {                                                                           \
        int ni = 0, nr = 0;
#define VALUES_END                                                              \
        counts[0] = ni;                                                         \
        counts[1] = nr;                                                         \
    }
