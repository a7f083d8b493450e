/*
 * test_corpus.c - the corpus of real nvcc-era kernels (tests/corpus,
 * corpus_kernels.h) compiled through cudyn with the real NVRTC (skipped
 * without one), each for a mock device so that its CUBIN is loaded and
 * every kernel it should have is found in it; and the PyCUDA kernels that
 * use nvcc's implicit names (uint) fail without CUDYN_OPTION_NVCC_NAMES,
 * as they would under plain NVRTC.  test_gpu_corpus runs them on a GPU.
 */
#include "config.h"

#include "corpus_kernels.h"

static int compile_and_find(size_t k)
{
    cudyn_program *p = NULL;
    int st = corpus_compile(k, 0, NULL, &p);
    if (st != CUDYN_OK) {
        fprintf(stderr, "%s: %s\n%s\n", corpus[k].file, cudyn_status_name(st), p ? cudyn_program_log(p) : "");
        cudyn_program_free(p);
        return 0;
    }
    cudyn_module m = NULL;
    int found = 0, wanted = 0;
    if (cudyn_module_load(&m, p) == CUDYN_OK) {
        for (int i = 0; i < CORPUS_MAX_KERNELS && corpus[k].kernels[i]; i++, wanted++) {
            cudyn_function f = NULL;
            if (cudyn_module_function(&f, m, corpus[k].kernels[i]) == CUDYN_OK)
                found++;
            else
                fprintf(stderr, "%s: kernel %s not found\n", corpus[k].file, corpus[k].kernels[i]);
        }
        cudyn_module_unload(m);
    }
    cudyn_program_free(p);
    return wanted > 0 && found == wanted;
}

int main(void)
{
    setenv("MOCK_CUDA_DEVICES", "Hopper:90", 1);
    use_mock_driver();
    struct cudyn_loader_info l = {.size = sizeof l};
    cudyn_loader_info(&l);
    if (l.nvrtc_status != CUDYN_OK || !l.nvrtc_path || strstr(l.nvrtc_path, "tests/mock"))
        TEST_SKIP("no real libnvrtc on this machine");
    size_t ok = 0;
    for (size_t k = 0; k < CORPUS_SIZE; k++) {
        int good = compile_and_find(k);
        CHECK(good);
        ok += good;
    }
    printf("corpus: %zu of %zu kernels' files compiled by NVRTC %d.%d, their kernels found\n", ok, CORPUS_SIZE,
           l.nvrtc_version / 1000, l.nvrtc_version % 1000 / 10);
    /* PyCUDA's tiled matrix multiply writes uint, which only nvcc's implicit
     * includes declare: plain NVRTC (and a compile without the option) refuses it */
    static const char uses_uint[] = "extern \"C\" __global__ void k(float *x) { const uint n = 4; x[0] = n; }\n";
    cudyn_program *p = NULL;
    CHECK_STATUS(cudyn_compile(&p, uses_uint, "uint.cu", 0, NULL, 0), CUDYN_ERROR_COMPILE);
    if (p)
        CHECK_CONTAINS(cudyn_program_log(p), "\"uint\" is undefined");
    cudyn_program_free(p);
    return test_result("test_corpus");
}
