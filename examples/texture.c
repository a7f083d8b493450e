/*
 * texture.c - the CUDA documentation's texture-object example in C with
 * cudyn: an image in a CUDA array, read through a texture object with
 * normalised coordinates, wrap addressing and bilinear filtering by a
 * kernel that rotates it about its centre; the result is checked on the
 * host against the same transformation sampled the same way.
 * Build: cc texture.c $(pkg-config --cflags --libs cudyn) -lm
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <cudyn.h>

static const char source[] =
    "extern \"C\" __global__\n"
    "void transformKernel(float *output, cudaTextureObject_t texture, int width, int height, float theta)\n"
    "{\n"
    "    int x = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    int y = blockIdx.y * blockDim.y + threadIdx.y;\n"
    "    if (x >= width || y >= height)\n"
    "        return;\n"
    "    float u = x / (float)width - 0.5f;\n" /* normalised, about the centre */
    "    float v = y / (float)height - 0.5f;\n"
    "    float tu = u * cosf(theta) - v * sinf(theta) + 0.5f;\n"
    "    float tv = v * cosf(theta) + u * sinf(theta) + 0.5f;\n"
    "    output[y * width + x] = tex2D<float>(texture, tu, tv);\n"
    "}\n";

#define CHECK(call)                                                          \
    do {                                                                     \
        if ((call) != CUDYN_OK) {                                            \
            cudyn_error e = {.size = sizeof e};                              \
            cudyn_last_error(&e);                                            \
            fprintf(stderr, "texture: %s failed: %s\n", #call, e.message);   \
            return 1;                                                        \
        }                                                                    \
    } while (0)

enum { WIDTH = 256, HEIGHT = 192 };

/* Element (x, y) of the image, wrapped around both edges. */
static float element(const float *image, int x, int y)
{
    x = ((x % WIDTH) + WIDTH) % WIDTH;
    y = ((y % HEIGHT) + HEIGHT) % HEIGHT;
    return image[y * WIDTH + x];
}

/* What tex2D<float> returns at normalised (u, v) with wrap addressing and
 * linear filtering: the four elements around (u W - 0.5, v H - 0.5),
 * weighted by the fractions (exact here; the GPU keeps 8 bits of them). */
static float bilinear(const float *image, float u, float v)
{
    float x = u * WIDTH - 0.5f, y = v * HEIGHT - 0.5f;
    float x0 = floorf(x), y0 = floorf(y), a = x - x0, b = y - y0;
    int i = (int)x0, j = (int)y0;
    return (1 - a) * (1 - b) * element(image, i, j) + a * (1 - b) * element(image, i + 1, j) +
           (1 - a) * b * element(image, i, j + 1) + a * b * element(image, i + 1, j + 1);
}

int main(void)
{
    const float theta = 0.5f; /* radians */
    float *image = malloc(sizeof(float) * WIDTH * HEIGHT), *output = malloc(sizeof(float) * WIDTH * HEIGHT);
    if (!image || !output)
        return 1;
    for (int y = 0; y < HEIGHT; y++) /* smooth and periodic, as wrap addressing expects */
        for (int x = 0; x < WIDTH; x++)
            image[y * WIDTH + x] = 0.5f + 0.25f * sinf(6.2831853f * 2 * x / WIDTH) * cosf(6.2831853f * 3 * y / HEIGHT);

    cudyn_module module;
    cudyn_function kernel;
    CHECK(cudyn_module_load_source(&module, source, NULL, 0));
    CHECK(cudyn_module_function(&kernel, module, "transformKernel"));

    /* the image in a CUDA array, and a texture object reading it */
    struct cudyn_array_desc shape = {.size = sizeof shape, .format = CUDYN_FORMAT_FLOAT, .channels = 1,
                                     .width = WIDTH, .height = HEIGHT};
    cudyn_array array;
    CHECK(cudyn_array_create(&array, &shape));
    CHECK(cudyn_array_copy_from_host(array, image));
    struct cudyn_texture_desc desc = {
        .size = sizeof desc,
        .resource = CUDYN_RESOURCE_ARRAY,
        .array = array,
        .address_mode = {CUDYN_ADDRESS_WRAP, CUDYN_ADDRESS_WRAP},
        .filter = CUDYN_FILTER_LINEAR,
        .read_mode = CUDYN_READ_ELEMENT_TYPE,
        .normalized_coords = 1,
    };
    cudyn_texture texture;
    CHECK(cudyn_texture_create(&texture, &desc));

    cudyn_devptr d_output;
    CHECK(cudyn_mem_alloc(&d_output, sizeof(float) * WIDTH * HEIGHT));
    cudyn_dim3 block = {16, 16, 1}, grid = {(WIDTH + 15) / 16, (HEIGHT + 15) / 16, 1};
    /* 't': a texture object, passed by value */
    CHECK(cudyn_launchf(kernel, grid, block, 0, NULL, "ptiif", d_output, texture, WIDTH, HEIGHT, (double)theta));
    CHECK(cudyn_memcpy_dtoh(output, d_output, sizeof(float) * WIDTH * HEIGHT));

    float worst = 0;
    for (int y = 0; y < HEIGHT; y++)
        for (int x = 0; x < WIDTH; x++) {
            float u = x / (float)WIDTH - 0.5f, v = y / (float)HEIGHT - 0.5f;
            float want = bilinear(image, u * cosf(theta) - v * sinf(theta) + 0.5f,
                                  v * cosf(theta) + u * sinf(theta) + 0.5f);
            float err = fabsf(output[y * WIDTH + x] - want);
            worst = err > worst ? err : worst;
        }
    /* the GPU's 8-bit filter weights and its own sinf/cosf stay well inside this */
    int pass = worst <= 1e-3f;
    printf("transformKernel on a %dx%d texture, theta %.2f: max error %.2g against the host: %s\n", WIDTH, HEIGHT,
           theta, worst, pass ? "PASS" : "FAIL");

    cudyn_mem_free(d_output);
    cudyn_texture_destroy(texture);
    cudyn_array_destroy(array);
    cudyn_module_unload(module);
    free(image);
    free(output);
    return pass ? 0 : 1;
}
