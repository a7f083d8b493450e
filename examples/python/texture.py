#!/usr/bin/env python3
"""A texture example with cudyn: an image in a CUDA array, read through a
texture object with bilinear filtering and wrap addressing, rotated by a
kernel and checked against the same filter computed on the host."""

import sys
from typing import Any

import numpy as np
from numpy.typing import NDArray

import cudyn
import cudyn.autoinit  # noqa: F401

mod = cudyn.SourceModule("""
__global__ void transformKernel(float *output, cudaTextureObject_t texture, int width, int height, float theta)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || y >= height)
        return;
    float u = x / (float)width - 0.5f;
    float v = y / (float)height - 0.5f;
    float tu = u * cosf(theta) - v * sinf(theta) + 0.5f;
    float tv = v * cosf(theta) + u * sinf(theta) + 0.5f;
    output[y * width + x] = tex2D<float>(texture, tu, tv);
}
""")
transform = mod.get_function("transformKernel")

WIDTH, HEIGHT, theta = 256, 192, np.float32(0.5)
xs, ys = np.meshgrid(np.arange(WIDTH, dtype=np.float32), np.arange(HEIGHT, dtype=np.float32))
# smooth and periodic, as wrap addressing expects
image = (0.5 + 0.25 * np.sin(2 * np.pi * 2 * xs / WIDTH) * np.cos(2 * np.pi * 3 * ys / HEIGHT)).astype(np.float32)

array = cudyn.Array((HEIGHT, WIDTH), np.float32)
array.copy_from(image)
texture = cudyn.Texture(array, filter_mode=cudyn.FILTER_LINEAR, address_mode=cudyn.ADDRESS_WRAP,
                        normalized_coords=True)
output = cudyn.gpuarray.empty((HEIGHT, WIDTH), np.float32)
transform(output, texture, np.int32(WIDTH), np.int32(HEIGHT), theta, block=(16, 16, 1),
          grid=((WIDTH + 15) // 16, (HEIGHT + 15) // 16, 1))
result = output.get()


def bilinear(u: NDArray[np.float32], v: NDArray[np.float32]) -> Any:
    """tex2D<float> at normalised (u, v): linear filtering, wrapped edges."""
    x, y = u * WIDTH - 0.5, v * HEIGHT - 0.5
    x0, y0 = np.floor(x), np.floor(y)
    a, b = x - x0, y - y0
    i, j = x0.astype(int), y0.astype(int)

    def at(ii: NDArray[np.int_], jj: NDArray[np.int_]) -> Any:
        return image[jj % HEIGHT, ii % WIDTH]

    return (1 - a) * (1 - b) * at(i, j) + a * (1 - b) * at(i + 1, j) + (1 - a) * b * at(i, j + 1) + \
        a * b * at(i + 1, j + 1)


u, v = xs / WIDTH - 0.5, ys / HEIGHT - 0.5
c, s = np.cos(theta, dtype=np.float32), np.sin(theta, dtype=np.float32)
want = bilinear(u * c - v * s + 0.5, v * c + u * s + 0.5)
worst = float(np.max(np.abs(result - want)))
ok = worst <= 1e-3   # the GPU's 8-bit filter weights stay well inside this
print(f"transformKernel on a {WIDTH}x{HEIGHT} texture, theta {theta:.2f}: max error {worst:.2g} against the host")
print("PASS" if ok else "FAIL")
sys.exit(0 if ok else 1)
