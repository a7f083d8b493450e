/*
 * test_gpu_corpus.c - on a GPU (skipped without one): every kernel of the
 * corpus of real nvcc-era kernels (tests/corpus, corpus_kernels.h),
 * compiled through cudyn for the GPU, runs, and its results are checked
 * against the host's: exactly where the arithmetic is exact (inputs are
 * small integers), within the kernel's own precision where it uses fast
 * math (Black-Scholes), statistically for random numbers (cuRAND's
 * XORWOW).  Prints how many of the corpus ran and checked out.
 */
#include "config.h"

#include <math.h>
#include <stdint.h>

#include "corpus_kernels.h"

static cudyn_module load(const char *file, cudyn_program **prog)
{
    size_t k = 0;
    while (k < CORPUS_SIZE && strcmp(corpus[k].file, file) != 0)
        k++;
    cudyn_module m = NULL;
    *prog = NULL;
    int st = k < CORPUS_SIZE ? corpus_compile(k, 0, NULL, prog) : CUDYN_ERROR_NOT_FOUND;
    if (st != CUDYN_OK)
        fprintf(stderr, "%s: %s\n%s\n", file, cudyn_status_name(st), *prog ? cudyn_program_log(*prog) : "");
    CHECK_STATUS(st, CUDYN_OK);
    if (st == CUDYN_OK)
        CHECK_STATUS(cudyn_module_load(&m, *prog), CUDYN_OK);
    return m;
}

static cudyn_function kernel(cudyn_module m, const char *name)
{
    cudyn_function f = NULL;
    if (m)
        CHECK_STATUS(cudyn_module_function(&f, m, name), CUDYN_OK);
    return f;
}

static void unload(cudyn_module m, cudyn_program *p)
{
    if (m)
        cudyn_module_unload(m);
    cudyn_program_free(p);
}

static cudyn_devptr to_device(const void *host, size_t bytes)
{
    cudyn_devptr d = 0;
    CHECK_STATUS(cudyn_mem_alloc(&d, bytes), CUDYN_OK);
    if (d && host)
        CHECK_STATUS(cudyn_memcpy_htod(d, host, bytes), CUDYN_OK);
    else if (d)
        CHECK_STATUS(cudyn_memset_d8(d, 0, bytes), CUDYN_OK);
    return d;
}

static void from_device(void *host, cudyn_devptr d, size_t bytes)
{
    CHECK_STATUS(cudyn_synchronize(), CUDYN_OK);
    CHECK_STATUS(cudyn_memcpy_dtoh(host, d, bytes), CUDYN_OK);
    cudyn_mem_free(d);
}

static bool launch(cudyn_function f, cudyn_dim3 grid, cudyn_dim3 block, void **args)
{
    if (!f)
        return false;
    int st = cudyn_launch(f, grid, block, 0, NULL, args);
    CHECK_STATUS(st, CUDYN_OK);
    return st == CUDYN_OK;
}

static bool report(const char *file, size_t wrong, const char *what)
{
    if (wrong)
        fprintf(stderr, "%s: %zu %s wrong\n", file, wrong, what);
    test_failures += wrong != 0;
    printf("%-36s %s\n", file, wrong ? "WRONG" : what);
    return wrong == 0;
}

/* ---------------------------------------------------------------- PyCUDA */

static bool doublify(void)
{
    cudyn_program *p;
    cudyn_module m = load("pycuda_doublify.cu", &p);
    float a[16], out[16];
    for (int i = 0; i < 16; i++)
        a[i] = (float)(i - 7);
    cudyn_devptr d = to_device(a, sizeof a);
    void *args[] = {&d};
    bool ran = launch(kernel(m, "doublify"), (cudyn_dim3){1, 1, 1}, (cudyn_dim3){4, 4, 1}, args);
    from_device(out, d, sizeof out);
    size_t wrong = 0;
    for (int i = 0; i < 16; i++)
        wrong += out[i] != 2 * a[i];
    unload(m, p);
    return ran && report("pycuda_doublify.cu", wrong, "16 values doubled");
}

static bool matrixmul_tiled(void)
{
    enum { N = 64, B = 16 }; /* the -D values of corpus_kernels.h */
    cudyn_program *p;
    cudyn_module m = load("pycuda_matrixmul_tiled.cu", &p);
    static float a[N * N], b[N * N], c[N * N];
    for (int i = 0; i < N * N; i++) {
        a[i] = (float)(i % 5 - 2);
        b[i] = (float)(i % 7 - 3);
    }
    cudyn_devptr da = to_device(a, sizeof a), db = to_device(b, sizeof b), dc = to_device(NULL, sizeof c);
    void *args[] = {&da, &db, &dc};
    bool ran = launch(kernel(m, "MatrixMulKernel"), (cudyn_dim3){N / B, N / B, 1}, (cudyn_dim3){B, B, 1}, args);
    from_device(c, dc, sizeof c);
    cudyn_mem_free(da);
    cudyn_mem_free(db);
    size_t wrong = 0;
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) {
            float sum = 0;
            for (int k = 0; k < N; k++)
                sum += a[i * N + k] * b[k * N + j];
            wrong += c[i * N + j] != sum;
        }
    unload(m, p);
    return ran && report("pycuda_matrixmul_tiled.cu", wrong, "64x64 products exact");
}

/* in: the source, out: the target, as each kernel names them */
static bool transpose(const char *file, bool target_first, unsigned int granularity)
{
    enum { W = 128, H = 64 };
    cudyn_program *p;
    cudyn_module m = load(file, &p);
    static float a[W * H], t[W * H];
    for (int i = 0; i < W * H; i++)
        a[i] = (float)i;
    cudyn_devptr da = to_device(a, sizeof a), dt = to_device(NULL, sizeof t);
    int w = W, h = H;
    void *args_target_first[] = {&dt, &da, &w, &h}, *args_source_first[] = {&da, &dt, &w, &h};
    bool ran = launch(kernel(m, "transpose"), (cudyn_dim3){W / granularity, H / granularity, 1},
                      (cudyn_dim3){16, 16, 1}, target_first ? args_target_first : args_source_first);
    from_device(t, dt, sizeof t);
    cudyn_mem_free(da);
    size_t wrong = 0;
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++)
            wrong += t[x * H + y] != a[y * W + x];
    unload(m, p);
    return ran && report(file, wrong, "128x64 transposed");
}

static bool function_templates(void)
{
    cudyn_program *p;
    cudyn_module m = load("pycuda_function_templates.cu", &p);
    float a[8] = {1.5f, -2, 0, 3, 4, 5, 6, 7}, out[8];
    cudyn_devptr d = to_device(a, sizeof a);
    int n = 5;
    void *args[] = {&d, &n};
    bool ran = launch(kernel(m, "func"), (cudyn_dim3){1, 1, 1}, (cudyn_dim3){8, 1, 1}, args);
    from_device(out, d, sizeof out);
    size_t wrong = 0;
    for (int i = 0; i < 8; i++)
        wrong += out[i] != (i < n ? a[i] + 1 : a[i]);
    unload(m, p);
    return ran && report("pycuda_function_templates.cu", wrong, "5 of 8 incremented");
}

static bool manhattan(void)
{
    enum { W = 7 };
    cudyn_program *p;
    cudyn_module m = load("pycuda_manhattan_math_h.cu", &p);
    int r[W * W], out[W * W];
    for (int i = 0; i < W * W; i++)
        r[i] = i * 3 - 20;
    cudyn_devptr d = to_device(r, sizeof r);
    int w = W, h = W;
    float x = 2, y = 1, z = 1;
    void *args[] = {&d, &w, &h, &x, &y, &z};
    bool ran = launch(kernel(m, "diffusion"), (cudyn_dim3){1, 1, 1}, (cudyn_dim3){W, W, 1}, args);
    from_device(out, d, sizeof out);
    size_t wrong = 0;
    for (int i = 0; i < W * W; i++)
        wrong += out[i] != 3 * r[i] - 4;
    unload(m, p);
    return ran && report("pycuda_manhattan_math_h.cu", wrong, "49 cells as (r-x)+(r-y)+(r-z)");
}

static bool rgb2gray(void)
{
    enum { N = 65536 };
    cudyn_program *p;
    cudyn_module m = load("pycuda_rgb2gray_stdio_h.cu", &p);
    static float r[N], g[N], b[N], gray[N];
    for (int i = 0; i < N; i++) {
        r[i] = (float)(i % 256);
        g[i] = (float)((i / 256) % 256);
        b[i] = (float)((i * 7) % 256);
    }
    cudyn_devptr dd = to_device(NULL, sizeof gray), dr = to_device(r, sizeof r), dg = to_device(g, sizeof g),
                 db = to_device(b, sizeof b);
    void *args[] = {&dd, &dr, &dg, &db};
    bool ran = launch(kernel(m, "rgb2gray"), (cudyn_dim3){64, 1, 1}, (cudyn_dim3){1024, 1, 1}, args);
    from_device(gray, dd, sizeof gray);
    cudyn_mem_free(dr);
    cudyn_mem_free(dg);
    cudyn_mem_free(db);
    size_t wrong = 0;
    for (int i = 0; i < N; i++) {
        float want = (float)(0.299 * r[i] + 0.587 * g[i] + 0.114 * b[i]);
        wrong += fabsf(gray[i] - want) > 1e-4f * (1 + want);
    }
    unload(m, p);
    return ran && report("pycuda_rgb2gray_stdio_h.cu", wrong, "65536 pixels weighted");
}

/* PyCUDA's XORWOW generator: seeded states, then uniform floats in (0, 1]
 * with the mean of a uniform distribution, and normal floats with mean 0
 * and variance 1. */
static bool curandom_xorwow(void)
{
    enum { STATES = 4096, N = 1 << 20, STATE_BYTES = 64 }; /* curandStateXORWOW is 48 bytes */
    cudyn_program *p;
    cudyn_module m = load("pycuda_curandom_xorwow.cu", &p);
    /* curand_init may need more stack than the default (PyCUDA sets 16 KiB) */
    typedef int (*set_limit_fn)(int, size_t);
    set_limit_fn set_limit = (set_limit_fn)cudyn_driver_proc("cuCtxSetLimit", 3010);
    if (set_limit)
        CHECK_EQ_INT(set_limit(0 /* CU_LIMIT_STACK_SIZE */, 16384), 0);
    static unsigned int seeds[STATES];
    for (int i = 0; i < STATES; i++)
        seeds[i] = 12345u + 977u * (unsigned)i;
    cudyn_devptr states = to_device(NULL, (size_t)STATES * STATE_BYTES), dseeds = to_device(seeds, sizeof seeds);
    size_t n_states = STATES, offset = 0, n = N;
    void *prepare_args[] = {&states, &n_states, &dseeds, &offset};
    bool ran = launch(kernel(m, "prepare"), (cudyn_dim3){STATES / 256, 1, 1}, (cudyn_dim3){256, 1, 1}, prepare_args);
    static float out[N];
    cudyn_devptr dout = to_device(NULL, sizeof out);
    void *gen_args[] = {&states, &dout, &n};
    ran = ran && launch(kernel(m, "uniform_float"), (cudyn_dim3){STATES / 256, 1, 1}, (cudyn_dim3){256, 1, 1}, gen_args);
    CHECK_STATUS(cudyn_synchronize(), CUDYN_OK);
    CHECK_STATUS(cudyn_memcpy_dtoh(out, dout, sizeof out), CUDYN_OK);
    size_t wrong = 0;
    double sum = 0;
    for (int i = 0; i < N; i++) {
        wrong += !(out[i] > 0.0f && out[i] <= 1.0f);
        sum += out[i];
    }
    wrong += fabs(sum / N - 0.5) > 0.005;
    ran = ran && launch(kernel(m, "normal_float"), (cudyn_dim3){STATES / 256, 1, 1}, (cudyn_dim3){256, 1, 1}, gen_args);
    from_device(out, dout, sizeof out);
    double s1 = 0, s2 = 0;
    for (int i = 0; i < N; i++) {
        s1 += out[i];
        s2 += (double)out[i] * out[i];
    }
    wrong += fabs(s1 / N) > 0.01 || fabs(s2 / N - 1) > 0.01;
    cudyn_mem_free(states);
    cudyn_mem_free(dseeds);
    unload(m, p);
    return ran && report("pycuda_curandom_xorwow.cu", wrong, "2^20 uniform and normal floats as distributed");
}

/* ---------------------------------------------------------- CUDA samples */

static double normal_cdf(double d)
{
    return 0.5 * erfc(-d / sqrt(2.0));
}

static bool black_scholes(void)
{
    enum { OPTIONS = 4000 };
    const float riskfree = 0.02f, volatility = 0.30f;
    cudyn_program *p;
    cudyn_module m = load("BlackScholes_kernel.cuh", &p);
    static float s[OPTIONS], x[OPTIONS], t[OPTIONS], call[OPTIONS], put[OPTIONS];
    for (int i = 0; i < OPTIONS; i++) {
        s[i] = 5.0f + (float)(i % 25);
        x[i] = 1.0f + (float)(i % 97);
        t[i] = 0.25f + (float)(i % 10) * 0.9f;
    }
    cudyn_devptr dcall = to_device(NULL, sizeof call), dput = to_device(NULL, sizeof put), ds = to_device(s, sizeof s),
                 dx = to_device(x, sizeof x), dt = to_device(t, sizeof t);
    int n = OPTIONS;
    float r = riskfree, v = volatility;
    void *args[] = {&dcall, &dput, &ds, &dx, &dt, &r, &v, &n};
    const char *name = cudyn_program_lowered_name(p, "BlackScholesGPU");
    bool ran = name && launch(kernel(m, name), (cudyn_dim3){(OPTIONS / 2 + 127) / 128, 1, 1},
                              (cudyn_dim3){128, 1, 1}, args);
    from_device(call, dcall, sizeof call);
    from_device(put, dput, sizeof put);
    cudyn_mem_free(ds);
    cudyn_mem_free(dx);
    cudyn_mem_free(dt);
    size_t wrong = 0;
    for (int i = 0; i < OPTIONS; i++) {
        double sq = sqrt((double)t[i]), d1 = (log((double)s[i] / x[i]) + (r + 0.5 * v * v) * t[i]) / (v * sq),
               d2 = d1 - v * sq, e = exp(-r * (double)t[i]);
        double want_call = s[i] * normal_cdf(d1) - x[i] * e * normal_cdf(d2);
        double want_put = x[i] * e * normal_cdf(-d2) - s[i] * normal_cdf(-d1);
        /* the sample's polynomial normal CDF and fast math: about 1e-5 of the price */
        wrong += fabs(call[i] - want_call) > 1e-3 * (1 + fabs(want_call));
        wrong += fabs(put[i] - want_put) > 1e-3 * (1 + fabs(want_put));
    }
    unload(m, p);
    return ran && report("BlackScholes_kernel.cuh", wrong, "4000 calls and puts as the formula prices them");
}

static bool scalar_prod(void)
{
    enum { VECTORS = 16, ELEMENTS = 4096 };
    cudyn_program *p;
    cudyn_module m = load("scalarProd_kernel.cuh", &p);
    static float a[VECTORS * ELEMENTS], b[VECTORS * ELEMENTS], c[VECTORS];
    for (int i = 0; i < VECTORS * ELEMENTS; i++) {
        a[i] = (float)(i % 4);
        b[i] = (float)((i / 3) % 4);
    }
    cudyn_devptr dc = to_device(NULL, sizeof c), da = to_device(a, sizeof a), db = to_device(b, sizeof b);
    int vectors = VECTORS, elements = ELEMENTS;
    void *args[] = {&dc, &da, &db, &vectors, &elements};
    const char *name = cudyn_program_lowered_name(p, "scalarProdGPU");
    bool ran = name && launch(kernel(m, name), (cudyn_dim3){128, 1, 1}, (cudyn_dim3){256, 1, 1}, args);
    from_device(c, dc, sizeof c);
    cudyn_mem_free(da);
    cudyn_mem_free(db);
    size_t wrong = 0;
    for (int v = 0; v < VECTORS; v++) {
        double sum = 0;
        for (int i = 0; i < ELEMENTS; i++)
            sum += (double)a[v * ELEMENTS + i] * b[v * ELEMENTS + i];
        wrong += c[v] != (float)sum; /* small integers: exact */
    }
    unload(m, p);
    return ran && report("scalarProd_kernel.cuh", wrong, "16 dot products of 4096 exact");
}

static bool atomics(void)
{
    enum { THREADS = 256, BLOCKS = 64, T = THREADS * BLOCKS };
    cudyn_program *p;
    cudyn_module m = load("simpleAtomicIntrinsics_kernel.cuh", &p);
    int data[11] = {0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0, 0xff}, out[11];
    cudyn_devptr d = to_device(data, sizeof data);
    void *args[] = {&d};
    const char *name = cudyn_program_lowered_name(p, "testKernel");
    bool ran = name && launch(kernel(m, name), (cudyn_dim3){BLOCKS, 1, 1}, (cudyn_dim3){THREADS, 1, 1}, args);
    from_device(out, d, sizeof out);
    /* what every order of the atomic operations gives */
    unsigned int inc = 0, dec = 0;
    int and_all = 0xff, xor_all = 0xff;
    for (unsigned int tid = 0; tid < T; tid++) {
        inc = inc >= 17 ? 0 : inc + 1;
        dec = (dec == 0 || dec > 137) ? 137 : dec - 1;
        and_all &= (int)(2 * tid + 7);
        xor_all ^= (int)tid;
    }
    size_t wrong = 0;
    wrong += out[0] != 10 * T;
    wrong += out[1] != -10 * T;
    wrong += out[2] < 0 || out[2] >= T; /* one thread's id */
    wrong += out[3] != T - 1;
    wrong += out[4] != 0;
    wrong += (unsigned int)out[5] != inc;
    wrong += (unsigned int)out[6] != dec;
    wrong += out[7] < 0 || out[7] >= T;
    wrong += out[8] != and_all;
    wrong += out[9] != -1; /* 1 << tid sets each bit (tids 0-31) */
    wrong += out[10] != xor_all;
    unload(m, p);
    return ran && report("simpleAtomicIntrinsics_kernel.cuh", wrong, "11 atomic results");
}

static bool votes(void)
{
    cudyn_program *p;
    cudyn_module m = load("simpleVote_kernel.cuh", &p);
    enum { N = 64 };
    unsigned int in[N] = {0}, out[N];
    in[40] = 1; /* warp 1 has one true value, warp 0 none */
    cudyn_devptr din = to_device(in, sizeof in), dout = to_device(NULL, sizeof out);
    int size = N;
    void *args[] = {&din, &dout, &size};
    const char *any = cudyn_program_lowered_name(p, "VoteAnyKernel1"), *all = cudyn_program_lowered_name(p, "VoteAllKernel2"),
               *directed = cudyn_program_lowered_name(p, "VoteAnyKernel3");
    bool ran = any && launch(kernel(m, any), (cudyn_dim3){1, 1, 1}, (cudyn_dim3){N, 1, 1}, args);
    CHECK_STATUS(cudyn_synchronize(), CUDYN_OK);
    CHECK_STATUS(cudyn_memcpy_dtoh(out, dout, sizeof out), CUDYN_OK);
    size_t wrong = 0;
    for (int i = 0; i < N; i++)
        wrong += (out[i] != 0) != (i >= 32);
    for (int i = 0; i < N; i++)
        in[i] = i != 40; /* warp 0 all true, warp 1 all but one */
    CHECK_STATUS(cudyn_memcpy_htod(din, in, sizeof in), CUDYN_OK);
    ran = ran && all && launch(kernel(m, all), (cudyn_dim3){1, 1, 1}, (cudyn_dim3){N, 1, 1}, args);
    from_device(out, dout, sizeof out);
    for (int i = 0; i < N; i++)
        wrong += (out[i] != 0) != (i < 32);
    /* three warps: any(tx >= 48) in warps 1 and 2, all() in warp 2 only */
    enum { W = 32, T3 = 3 * W };
    unsigned char info[T3 * 3];
    cudyn_devptr dinfo = to_device(NULL, sizeof info);
    int warp_size = W;
    void *args3[] = {&dinfo, &warp_size};
    ran = ran && directed && launch(kernel(m, directed), (cudyn_dim3){1, 1, 1}, (cudyn_dim3){T3, 1, 1}, args3);
    from_device(info, dinfo, sizeof info);
    for (int tx = 0; tx < T3; tx++) {
        wrong += info[tx * 3] != (tx >= W);
        wrong += info[tx * 3 + 1] != (tx >= (W * 3) / 2);
        wrong += info[tx * 3 + 2] != (tx >= 2 * W);
    }
    cudyn_mem_free(din);
    unload(m, p);
    return ran && report("simpleVote_kernel.cuh", wrong, "votes of 2 and 3 warps");
}

int main(void)
{
    struct cudyn_loader_info l;
    test_need_real_gpu(&l);
    bool (*const runs[])(void) = {doublify,         matrixmul_tiled, function_templates, manhattan, rgb2gray,
                                  curandom_xorwow, black_scholes,   scalar_prod,        atomics,   votes};
    size_t good = 0, total = sizeof runs / sizeof runs[0] + 2;
    for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++)
        good += runs[i]();
    good += transpose("pycuda_transpose.cu", true, 16);
    good += transpose("pycuda_transpose_big_block.cu", false, 32);
    CHECK_EQ_INT(total, CORPUS_SIZE); /* every file of the corpus runs */
    printf("corpus: %zu of %zu ran on the GPU with the results checked\n", good, total);
    return test_result("test_gpu_corpus");
}
