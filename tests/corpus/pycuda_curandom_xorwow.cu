/* From PyCUDA (inducer/pycuda at 19bed9035edb9990b2928e297125d8e9d470130b), pycuda/curandom.py: the kernel source as the
   library passes it to SourceModule (no_extern_c=True) for
   XORWOWRandomNumberGenerator: random_source with gen_template for its
   uniform_int, uniform_float, normal_float and normal_float2 generators,
   then xorwow_random_source, xorwow_skip_ahead_sequence_source and
   random_skip_ahead64_source, formatted with state_type curandStateXORWOW
   and vector_type unsigned int, as the class does.
   Copyright (c) 2009,10 Andreas Kloeckner and Contributors; MIT licence,
   LICENSE-pycuda beside this file.  tests/corpus/README.md says how cudyn's
   tests compile and check it. */
// Uses C++ features (templates); do not surround with extern C
#include <curand_kernel.h>

extern "C"
{


__global__ void uniform_int(curandStateXORWOW *s, unsigned int *d, const size_t n)
{
  const size_t tidx = blockIdx.x*blockDim.x+threadIdx.x;
  const size_t delta = blockDim.x*gridDim.x;
  for (size_t idx = tidx; idx < n; idx += delta)
    d[idx] = curand(&s[tidx]);
}


__global__ void uniform_float(curandStateXORWOW *s, float *d, const size_t n)
{
  const size_t tidx = blockIdx.x*blockDim.x+threadIdx.x;
  const size_t delta = blockDim.x*gridDim.x;
  for (size_t idx = tidx; idx < n; idx += delta)
    d[idx] = curand_uniform(&s[tidx]);
}


__global__ void normal_float(curandStateXORWOW *s, float *d, const size_t n)
{
  const size_t tidx = blockIdx.x*blockDim.x+threadIdx.x;
  const size_t delta = blockDim.x*gridDim.x;
  for (size_t idx = tidx; idx < n; idx += delta)
    d[idx] = curand_normal(&s[tidx]);
}


__global__ void normal_float2(curandStateXORWOW *s, float2 *d, const size_t n)
{
  const size_t tidx = blockIdx.x*blockDim.x+threadIdx.x;
  const size_t delta = blockDim.x*gridDim.x;
  for (size_t idx = tidx; idx < n; idx += delta)
    d[idx] = curand_normal2(&s[tidx]);
}


}

extern "C" {
__global__ void prepare(curandStateXORWOW *s, const size_t n,
    unsigned int *v, const size_t o)
{
  const size_t id = blockIdx.x*blockDim.x+threadIdx.x;
  if (id < n)
    curand_init(v[id], id, o, &s[id]);
}
}

extern "C" {
__global__ void skip_ahead_sequence(curandStateXORWOW *s, const size_t n, const unsigned long long skip)
{
  const size_t idx = blockIdx.x*blockDim.x+threadIdx.x;
  if (idx < n)
    skipahead_sequence(skip, &s[idx]);
}

__global__ void skip_ahead_sequence_array(curandStateXORWOW *s, const size_t n, const unsigned long long *skip)
{
  const size_t idx = blockIdx.x*blockDim.x+threadIdx.x;
  if (idx < n)
      skipahead_sequence(skip[idx], &s[idx]);
}
}

extern "C" {
__global__ void skip_ahead(curandStateXORWOW *s, const size_t n, const unsigned long long skip)
{
  const size_t idx = blockIdx.x*blockDim.x+threadIdx.x;
  if (idx < n)
    skipahead(skip, &s[idx]);
}

__global__ void skip_ahead_array(curandStateXORWOW *s, const size_t n, const unsigned long long *skip)
{
  const size_t idx = blockIdx.x*blockDim.x+threadIdx.x;
  if (idx < n)
      skipahead(skip[idx], &s[idx]);
}
}
