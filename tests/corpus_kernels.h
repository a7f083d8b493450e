/*
 * corpus_kernels.h - the corpus of real nvcc-era kernels in tests/corpus
 * (written by others: PyCUDA's examples and library, NVIDIA's CUDA
 * samples; tests/corpus/README.md says where each came from and under
 * which licence), as cudyn's tests compile them: each as nvcc would see
 * it, with the names nvcc gives device code without #include
 * (CUDYN_OPTION_NVCC_NAMES), inside extern "C" { } where PyCUDA's
 * SourceModule puts it, C++ kernels found by name expression.
 * test_corpus compiles every one with NVRTC and finds its kernels;
 * test_gpu_corpus runs them on a GPU and checks their results.
 */
#ifndef CUDYN_CORPUS_KERNELS_H
#define CUDYN_CORPUS_KERNELS_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "cudyn.h"
#include "libc_kernels.h" /* libc_read */
#include "testutil.h"

#define CORPUS_MAX_KERNELS 10

struct corpus_kernel {
    const char *file;
    bool extern_c;                             /* wrapped as PyCUDA's SourceModule wraps (no_extern_c=False) */
    bool cxx_names;                            /* kernels are C++ names, found by name expression */
    const char *defines[2];                    /* -D options, NULL-terminated */
    const char *kernels[CORPUS_MAX_KERNELS]; /* the kernels it has, NULL-terminated */
};

static const struct corpus_kernel corpus[] = {
    {"pycuda_doublify.cu", true, false, {NULL}, {"doublify"}},
    {"pycuda_matrixmul_tiled.cu", true, false, {"-DMATRIX_SIZE=64", "-DBLOCK_SIZE=16"}, {"MatrixMulKernel"}},
    {"pycuda_transpose.cu", true, false, {NULL}, {"transpose"}},
    {"pycuda_transpose_big_block.cu", true, false, {NULL}, {"transpose"}},
    {"pycuda_function_templates.cu", false, false, {NULL}, {"func"}},
    {"pycuda_manhattan_math_h.cu", true, false, {NULL}, {"diffusion"}},
    {"pycuda_rgb2gray_stdio_h.cu", true, false, {NULL}, {"rgb2gray"}},
    {"pycuda_curandom_xorwow.cu",
     false,
     false,
     {NULL},
     {"prepare", "uniform_int", "uniform_float", "normal_float", "normal_float2", "skip_ahead", "skip_ahead_array",
      "skip_ahead_sequence", "skip_ahead_sequence_array"}},
    {"BlackScholes_kernel.cuh", false, true, {NULL}, {"BlackScholesGPU"}},
    {"scalarProd_kernel.cuh", false, true, {NULL}, {"scalarProdGPU"}},
    {"simpleAtomicIntrinsics_kernel.cuh", false, true, {NULL}, {"testKernel"}},
    {"simpleVote_kernel.cuh", false, true, {NULL}, {"VoteAnyKernel1", "VoteAllKernel2", "VoteAnyKernel3"}},
};

#define CORPUS_SIZE (sizeof corpus / sizeof corpus[0])

/* Compiles corpus item k for `device` (with `arch`, "--gpu-architecture=..."
 * or NULL, for CUDYN_DEVICE_NONE); the program in *out, also on
 * CUDYN_ERROR_COMPILE (for its log). */
static inline int corpus_compile(size_t k, int device, const char *arch, cudyn_program **out)
{
    const struct corpus_kernel *c = &corpus[k];
    const char *top = getenv("top_srcdir");
    if (!top)
        TEST_SKIP("top_srcdir not set (run through make check)");
    char path[1200];
    snprintf(path, sizeof path, "%s/tests/corpus/%s", top, c->file);
    char *text = libc_read(path), *source = text;
    if (c->extern_c) { /* as SourceModule does */
        size_t n = strlen(text) + 32;
        source = malloc(n);
        if (!source) {
            fprintf(stderr, "out of memory\n");
            exit(1);
        }
        snprintf(source, n, "extern \"C\" {\n%s\n}\n", text);
    }
    const char *options[4];
    int n_options = 0;
    options[n_options++] = CUDYN_OPTION_NVCC_NAMES;
    for (int i = 0; i < 2 && c->defines[i]; i++)
        options[n_options++] = c->defines[i];
    if (arch)
        options[n_options++] = arch;
    int n_names = 0;
    while (c->cxx_names && n_names < CORPUS_MAX_KERNELS && c->kernels[n_names])
        n_names++;
    struct cudyn_compile_args a = {.size = sizeof a, .source = source, .name = path, .device = device,
                                   .options = options, .num_options = n_options,
                                   .name_expressions = c->kernels, .num_names = n_names};
    int st = cudyn_compile_ex(out, &a);
    if (source != text)
        free(source);
    free(text);
    return st;
}

#endif
