/*
 * multi_gpu.c - one thread per GPU.  Each thread picks its device with
 * cudyn_device_use, compiles SAXPY from the same source string (cudyn keeps
 * one module per source and device, so nothing here tracks which GPU has
 * which module) and computes its slice of out = a * x + y.  The slices are
 * gathered on device 0: straight from GPU to GPU where the two devices are
 * peers, through host memory where they are not.  Works on one GPU too.
 *
 * Build: cc multi_gpu.c $(pkg-config --cflags --libs cudyn) -pthread
 * Run:   ./multi_gpu [floats]
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include <cudyn.h>

/* Grid-stride: correct for any grid, so every slice size works. */
static const char saxpy_source[] =
    "extern \"C\" __global__ void saxpy(float a, const float *x, const float *y, float *out, size_t n)\n"
    "{\n"
    "    for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)blockDim.x * gridDim.x)\n"
    "        out[i] = a * x[i] + y[i];\n"
    "}\n";

/* What one GPU's thread is given, and what it reports back. */
struct worker {
    int device;
    size_t first, count;    /* its slice of the vectors */
    float a;
    const float *x, *y;     /* host vectors, whole */
    cudyn_devptr gathered;  /* device 0's buffer for the whole result */
    int peer;               /* 1: copy into `gathered` directly (device 0 itself, or a peer) */
    float *staged;          /* else: host memory the slice goes through */
    char error[1200];       /* "" when all went well */
};

/* Keeps the first failure of a worker: the call and cudyn's message.  The
 * last error is per thread, so it must be read on the thread that failed. */
static int failed(struct worker *w, const char *call)
{
    cudyn_error e = {.size = sizeof e};
    cudyn_last_error(&e);
    snprintf(w->error, sizeof w->error, "device %d: %s failed: %s", w->device, call, e.message);
    return 1;
}

#define TRY(w, call)                      \
    do {                                  \
        if ((call) != CUDYN_OK) {         \
            failed(w, #call);             \
            goto done;                    \
        }                                 \
    } while (0)

static void *run_worker(void *arg)
{
    struct worker *w = arg;
    const size_t bytes = w->count * sizeof(float);
    cudyn_module mod = NULL;
    cudyn_devptr dx = 0, dy = 0, dout = 0;

    /* Everything below happens in this device's primary context: the
     * module, the buffers and the launch all belong to device w->device. */
    TRY(w, cudyn_device_use(w->device));
    cudyn_function saxpy;
    TRY(w, cudyn_module_load_source(&mod, saxpy_source, NULL, 0));
    TRY(w, cudyn_module_function(&saxpy, mod, "saxpy"));
    TRY(w, cudyn_mem_alloc(&dx, bytes));
    TRY(w, cudyn_mem_alloc(&dy, bytes));
    TRY(w, cudyn_mem_alloc(&dout, bytes));
    TRY(w, cudyn_memcpy_htod(dx, w->x + w->first, bytes));
    TRY(w, cudyn_memcpy_htod(dy, w->y + w->first, bytes));
    TRY(w, cudyn_launchf(saxpy, (cudyn_dim3){256, 1, 1}, (cudyn_dim3){256, 1, 1}, 0, NULL, "fpppz", w->a, dx, dy,
                         dout, w->count));

    /* Unified addressing: device 0's pointer is valid in a copy made from
     * this device's context.  With peer access enabled the copy goes GPU to
     * GPU; without it, read the slice back and let device 0 upload it. */
    if (w->peer)
        TRY(w, cudyn_memcpy_dtod(w->gathered + w->first * sizeof(float), dout, bytes));
    else
        TRY(w, cudyn_memcpy_dtoh(w->staged + w->first, dout, bytes));
    /* A device-to-device copy may still be running when the call returns,
     * and the main thread reads `gathered` from another context, which does
     * not wait for this one's work: wait here. */
    TRY(w, cudyn_synchronize());

done:
    /* Freed on the thread bound to their device, as they were made. */
    cudyn_mem_free(dx);
    cudyn_mem_free(dy);
    cudyn_mem_free(dout);
    if (mod)
        cudyn_module_unload(mod);
    return NULL;
}

/* Main-thread failures: print the call and cudyn's message. */
#define CHECK(call)                                                              \
    do {                                                                         \
        if ((call) != CUDYN_OK) {                                                \
            cudyn_error e = {.size = sizeof e};                                  \
            cudyn_last_error(&e);                                                \
            fprintf(stderr, "multi_gpu: %s failed: %s\n", #call, e.message);     \
            return 1;                                                            \
        }                                                                        \
    } while (0)

int main(int argc, char **argv)
{
    const size_t n = argc > 1 ? strtoull(argv[1], NULL, 10) : (size_t)1 << 22;
    int devices = 0;
    CHECK(cudyn_device_count(&devices));
    if (devices < 1 || n < (size_t)devices) {
        fprintf(stderr, "multi_gpu: %d devices, %zu floats: nothing to do\n", devices, n);
        return 1;
    }

    float a = 2.0f, *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y), *out = malloc(n * sizeof *out);
    struct worker *w = calloc((size_t)devices, sizeof *w);
    pthread_t *threads = calloc((size_t)devices, sizeof *threads);
    if (!x || !y || !out || !w || !threads) {
        fprintf(stderr, "multi_gpu: out of host memory\n");
        return 1;
    }
    for (size_t i = 0; i < n; i++) { /* small integers: a * x + y is exact in float */
        x[i] = (float)(i % 1024);
        y[i] = (float)(i % 37);
    }

    /* The main thread works on device 0, where the result is gathered. */
    CHECK(cudyn_device_use(0));
    cudyn_devptr gathered;
    CHECK(cudyn_mem_alloc(&gathered, n * sizeof(float)));
    printf("multi_gpu: %zu floats on %d device%s\n", n, devices, devices == 1 ? "" : "s");

    for (int d = 0; d < devices; d++) {
        w[d] = (struct worker){.device = d, .a = a, .x = x, .y = y, .gathered = gathered, .staged = out};
        w[d].first = n / (size_t)devices * (size_t)d;
        w[d].count = d == devices - 1 ? n - w[d].first : n / (size_t)devices;
        /* Device d writes into device 0's memory: that needs d's access to
         * 0 (access is one-way). */
        int can = d == 0;
        if (d > 0) {
            CHECK(cudyn_device_can_access_peer(d, 0, &can));
            if (can)
                CHECK(cudyn_device_enable_peer(d, 0));
            printf("device %d -> device 0: %s\n", d, can ? "peer access" : "through the host");
        }
        w[d].peer = can;
    }

    for (int d = 0; d < devices; d++)
        if (pthread_create(&threads[d], NULL, run_worker, &w[d]) != 0) {
            fprintf(stderr, "multi_gpu: cannot start a thread for device %d\n", d);
            return 1;
        }
    int errors = 0;
    for (int d = 0; d < devices; d++) {
        pthread_join(threads[d], NULL);
        if (w[d].error[0]) {
            fprintf(stderr, "multi_gpu: %s\n", w[d].error);
            errors++;
        }
    }
    if (errors)
        return 1;

    /* Slices that came through the host go up to device 0 now (the main
     * thread is bound to device 0, where `gathered` lives). */
    for (int d = 0; d < devices; d++)
        if (!w[d].peer)
            CHECK(cudyn_memcpy_htod(gathered + w[d].first * sizeof(float), out + w[d].first,
                                    w[d].count * sizeof(float)));
    CHECK(cudyn_memcpy_dtoh(out, gathered, n * sizeof(float)));
    CHECK(cudyn_mem_free(gathered));

    size_t wrong = 0;
    for (size_t i = 0; i < n; i++)
        wrong += out[i] != a * x[i] + y[i];
    printf("multi_gpu: %zu wrong of %zu: %s\n", wrong, n, wrong ? "FAIL" : "PASS");
    free(x);
    free(y);
    free(out);
    free(w);
    free(threads);
    return wrong ? 1 : 0;
}
