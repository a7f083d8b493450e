/* From PyCUDA (inducer/pycuda at 19bed9035edb9990b2928e297125d8e9d470130b), examples/from-wiki/matrix_transpose.py: the kernel source as the
   example passes it to SourceModule,
   its %(block_size)d placeholder written as 16, the block_size the example
   substitutes.
   Copyright (c) 2009,10 Andreas Kloeckner and Contributors; MIT licence,
   LICENSE-pycuda beside this file.  tests/corpus/README.md says how cudyn's
   tests compile and check it. */
#define BLOCK_SIZE 16
#define A_BLOCK_STRIDE (BLOCK_SIZE * a_width)
#define A_T_BLOCK_STRIDE (BLOCK_SIZE * a_height)

__global__ void transpose(float *A, float *A_t, int a_width, int a_height)
{
    // Base indices in A and A_t
    int base_idx_a   = 2 * blockIdx.x * BLOCK_SIZE +
2 * blockIdx.y * A_BLOCK_STRIDE;
    int base_idx_a_t = 2 * blockIdx.y * BLOCK_SIZE +
2 * blockIdx.x * A_T_BLOCK_STRIDE;

    // Global indices in A and A_t
    int glob_idx_a   = base_idx_a + threadIdx.x + a_width * threadIdx.y;
    int glob_idx_a_t = base_idx_a_t + threadIdx.x + a_height * threadIdx.y;

    __shared__ float A_shared[2 * BLOCK_SIZE][2 * BLOCK_SIZE + 1];

    // Store transposed submatrix to shared memory
    A_shared[threadIdx.y][threadIdx.x] = A[glob_idx_a];
    A_shared[threadIdx.y][threadIdx.x + BLOCK_SIZE] =
A[glob_idx_a + A_BLOCK_STRIDE];
    A_shared[threadIdx.y + BLOCK_SIZE][threadIdx.x] =
A[glob_idx_a + BLOCK_SIZE];
    A_shared[threadIdx.y + BLOCK_SIZE][threadIdx.x + BLOCK_SIZE] =
    A[glob_idx_a + BLOCK_SIZE + A_BLOCK_STRIDE];

    __syncthreads();

    // Write transposed submatrix to global memory
    A_t[glob_idx_a_t] = A_shared[threadIdx.x][threadIdx.y];
    A_t[glob_idx_a_t + A_T_BLOCK_STRIDE] =
A_shared[threadIdx.x + BLOCK_SIZE][threadIdx.y];
    A_t[glob_idx_a_t + BLOCK_SIZE] =
A_shared[threadIdx.x][threadIdx.y + BLOCK_SIZE];
    A_t[glob_idx_a_t + A_T_BLOCK_STRIDE + BLOCK_SIZE] =
A_shared[threadIdx.x + BLOCK_SIZE][threadIdx.y + BLOCK_SIZE];
}
