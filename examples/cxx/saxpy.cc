// saxpy.cc - the SAXPY of saxpy.c with cudyn.hpp: the program, module and
// buffers free themselves, a failure is an exception carrying cudyn's
// message, and the kernel's arguments are checked against its parameters.
// Build: c++ -std=c++17 saxpy.cc $(pkg-config --cflags --libs cudyn)
#include <cstdio>
#include <vector>

#include <cudyn.hpp>

static const char saxpy_source[] = R"(
extern "C" __global__
void saxpy(float a, float *x, float *y, float *out, size_t n)
{
    size_t tid = blockIdx.x * blockDim.x + threadIdx.x;
    if (tid < n) {
        out[tid] = a * x[tid] + y[tid];
    }
}
)";

int main()
try {
    const unsigned int threads = 256, blocks = 1024;
    const std::size_t n = std::size_t(threads) * blocks;
    std::vector<float> x(n), y(n), out(n);
    for (std::size_t i = 0; i < n; i++) { // exact in float32, and not constant
        x[i] = float(i % 1024);
        y[i] = float(i % 37);
    }

    cudyn::program prog = cudyn::program::compile(saxpy_source, "saxpy.cu").value();
    cudyn::module module(prog);
    cudyn::kernel saxpy = module.function("saxpy").value();

    cudyn::device_buffer<float> dx(x), dy(y), dout(n);
    const float a = 2.0f;
    saxpy.launch(blocks, threads, a, dx, dy, dout, n).value();
    dout.copy_to(out).value();

    std::size_t wrong = 0;
    for (std::size_t i = 0; i < n; i++)
        wrong += out[i] != a * x[i] + y[i];
    std::printf("saxpy on %zu floats for %s: %s\n", n, prog.target(), wrong ? "FAIL" : "PASS");
    return wrong ? 1 : 0;
} catch (const cudyn::error &e) {
    std::fprintf(stderr, "saxpy: %s\n", e.what());
    return 1;
}
