/* From PyCUDA (inducer/pycuda at 19bed9035edb9990b2928e297125d8e9d470130b), examples/from-wiki/manhattan_distance_for_2D_array.py: the kernel source as the
   example passes it to SourceModule.
   Copyright (c) 2009,10 Andreas Kloeckner and Contributors; MIT licence,
   LICENSE-pycuda beside this file.  tests/corpus/README.md says how cudyn's
   tests compile and check it. */
#include<math.h>
__global__ void diffusion(  int* result,int width, int height,float x,float y,float z) {

    int xIndex = blockDim.x * blockIdx.x + threadIdx.x;
    int yIndex = blockDim.y * blockIdx.y + threadIdx.y;

    int flatIndex = xIndex + width * yIndex;
    int topIndex = xIndex + width * (yIndex - 1);
    int bottomIndex = xIndex + width * (yIndex + 1);

    int inc = 1;

    result[flatIndex] = (result[flatIndex]-x)+(result[flatIndex]-y)+(result[flatIndex]-z);
}
