/* From PyCUDA (inducer/pycuda at 19bed9035edb9990b2928e297125d8e9d470130b), examples/from-wiki/c++_function_templates.py: the kernel source as the
   example passes it to SourceModule (with no_extern_c=1).
   Copyright (c) 2009,10 Andreas Kloeckner and Contributors; MIT licence,
   LICENSE-pycuda beside this file.  tests/corpus/README.md says how cudyn's
   tests compile and check it. */
template <class T>
__device__ T incr(T x) {
    return (x + 1.0);
}

// Needed to avoid name mangling so that PyCUDA can
// find the kernel function:
extern "C" {
    __global__ void func(float *a, int N)
    {
        int idx = threadIdx.x;
        if (idx < N)
            a[idx] = incr(a[idx]);
    }
}
