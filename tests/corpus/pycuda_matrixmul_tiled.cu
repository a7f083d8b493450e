/* From PyCUDA (inducer/pycuda at 19bed9035edb9990b2928e297125d8e9d470130b), examples/from-wiki/matrixmul_tiled.py: the kernel source as the
   example passes it to SourceModule,
   its Python %(MATRIX_SIZE)s and %(BLOCK_SIZE)s placeholders written as the
   macros MATRIX_SIZE and BLOCK_SIZE (the test defines them with -D).
   Copyright (c) 2009,10 Andreas Kloeckner and Contributors; MIT licence,
   LICENSE-pycuda beside this file.  tests/corpus/README.md says how cudyn's
   tests compile and check it. */
__global__ void MatrixMulKernel(float *A, float *B, float *C)
{

  const uint wA = MATRIX_SIZE;
  const uint wB = MATRIX_SIZE;

  // Block index
  const uint bx = blockIdx.x;
  const uint by = blockIdx.y;

  // Thread index
  const uint tx = threadIdx.x;
  const uint ty = threadIdx.y;

  // Index of the first sub-matrix of A processed by the block
  const uint aBegin = wA * BLOCK_SIZE * by;
  // Index of the last sub-matrix of A processed by the block
  const uint aEnd = aBegin + wA - 1;
  // Step size used to iterate through the sub-matrices of A
  const uint aStep = BLOCK_SIZE;

  // Index of the first sub-matrix of B processed by the block
  const uint bBegin = BLOCK_SIZE * bx;
  // Step size used to iterate through the sub-matrices of B
  const uint bStep = BLOCK_SIZE * wB;

  // The element of the block sub-matrix that is computed
  // by the thread
  float Csub = 0;
  // Loop over all the sub-matrices of A and B required to
  // compute the block sub-matrix
  for (int a = aBegin, b = bBegin;
       a <= aEnd;
       a += aStep, b += bStep)
    {
      // Shared memory for the sub-matrix of A
      __shared__ float As[BLOCK_SIZE][BLOCK_SIZE];
      // Shared memory for the sub-matrix of B
      __shared__ float Bs[BLOCK_SIZE][BLOCK_SIZE];

      // Load the matrices from global memory to shared memory
      // each thread loads one element of each matrix
      As[ty][tx] = A[a + wA * ty + tx];
      Bs[ty][tx] = B[b + wB * ty + tx];
      // Synchronize to make sure the matrices are loaded
      __syncthreads();

      // Multiply the two matrices together;
      // each thread computes one element
      // of the block sub-matrix
      for (int k = 0; k < BLOCK_SIZE; ++k)
        Csub += As[ty][k] * Bs[k][tx];

      // Synchronize to make sure that the preceding
      // computation is done before loading two new
      // sub-matrices of A and B in the next iteration
      __syncthreads();
    }

  // Write the block sub-matrix to global memory;
  // each thread writes one element
  const uint c = wB * BLOCK_SIZE * by + BLOCK_SIZE * bx;
  C[c + wB * ty + tx] = Csub;
}
