// stream_pipeline.cc - overlapping copies and kernels: the data goes in
// chunks through two streams, each chunk copied in from page-locked
// memory, scaled, and copied back on its stream, so that one chunk's
// copies can run while the other's kernel does.  Events time the whole.
// Build: c++ -std=c++17 stream_pipeline.cc $(pkg-config --cflags --libs cudyn)
#include <cstdio>
#include <vector>

#include <cudyn.hpp>

static const char source[] = R"(
extern "C" __global__
void scale(float a, float *x, size_t n)
{
    size_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        x[i] *= a;
}
)";

int main()
try {
    const std::size_t n = 1 << 20, chunks = 8, chunk = n / chunks;
    const unsigned int threads = 256, blocks = unsigned((chunk + threads - 1) / threads);
    const float a = 3.0f;

    cudyn::module module = cudyn::module::load_source(source).value();
    cudyn::kernel scale = module.function("scale").value();
    cudyn::host_buffer<float> host(n); // page-locked: asynchronous copies
    for (std::size_t i = 0; i < n; i++)
        host[i] = float(i % 4096);
    cudyn::device_buffer<float> dev(n);
    cudyn::stream streams[2] = {cudyn::stream(CUDYN_STREAM_NON_BLOCKING), cudyn::stream(CUDYN_STREAM_NON_BLOCKING)};
    cudyn::event start(CUDYN_EVENT_DEFAULT), end(CUDYN_EVENT_DEFAULT);

    start.record(streams[0]).value();
    streams[1].wait(start.get()).value(); // the timing starts before either stream's work
    for (std::size_t c = 0; c < chunks; c++) {
        const cudyn::stream &s = streams[c % 2];
        const std::size_t first = c * chunk;
        float *h = host.data() + first;
        cudyn::device_ptr<float> d = dev.data() + std::ptrdiff_t(first);
        cudyn::copy_async(d, h, chunk, s).value();
        scale(blocks, threads, 0, s, a, d, chunk).value();
        cudyn::copy_async(h, d, chunk, s).value();
    }
    cudyn::event second_done(CUDYN_EVENT_DEFAULT);
    second_done.record(streams[1]).value();
    streams[0].wait(second_done.get()).value();
    end.record(streams[0]).value();
    end.synchronize().value();
    float ms = cudyn::event::elapsed_ms(start, end).value();

    std::size_t wrong = 0;
    for (std::size_t i = 0; i < n; i++)
        wrong += host[i] != a * float(i % 4096);
    std::printf("%zu floats in %zu chunks on 2 streams (%.3f ms): %s\n", n, chunks, double(ms), wrong ? "FAIL" : "PASS");
    return wrong ? 1 : 0;
} catch (const cudyn::error &e) {
    std::fprintf(stderr, "stream_pipeline: %s\n", e.what());
    return 1;
}
