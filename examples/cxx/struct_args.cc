// struct_args.cc - struct_args.c with cudyn.hpp: a struct passes by value
// as itself, and each argument's C++ type says what it is ('i', 'p', 'f',
// 's' ...), so a double where the kernel takes a float is refused before
// launching wherever cudyn can see the kernel's parameters.  This one
// reports failures as values (cudyn::result), without exceptions.
// Build: c++ -std=c++17 struct_args.cc $(pkg-config --cflags --libs cudyn)
#include <cstdio>

#include <cudyn.hpp>

static const char source[] = R"(
struct testStruct { int value; };
extern "C" __global__
void testkernel(int i, int *pi, float f, float *pf, testStruct s, testStruct *ps)
{
    *pi = i;
    *pf = f;
    ps->value = s.value;
}
)";

struct test_struct { // the kernel's testStruct
    int value;
};

template <class T>
static bool failed(const cudyn::result<T> &r, const char *what)
{
    if (r.ok())
        return false;
    std::fprintf(stderr, "struct_args: %s failed: %s\n", what, r.error().message);
    return true;
}

int main()
{
    auto prog = cudyn::program::compile(source, "testkernel.cu");
    if (failed(prog, "compile"))
        return 1;
    auto module = cudyn::module::load(prog.value());
    if (failed(module, "load"))
        return 1;
    auto kernel = module.value().function("testkernel");
    auto pi = cudyn::device_buffer<int>::create(1);
    auto pf = cudyn::device_buffer<float>::create(1);
    auto ps = cudyn::device_buffer<test_struct>::create(1);
    if (failed(kernel, "function") || failed(pi, "alloc") || failed(pf, "alloc") || failed(ps, "alloc"))
        return 1;
    const cudyn::kernel k = kernel.value();
    const int i = 123;
    const float f = 123.456f;
    const test_struct s = {789};

    // a mistake first: a double where the kernel takes a float
    auto wrong = k.launch(1, 1, i, pi.value(), double(f), pf.value(), s, ps.value());
    if (!wrong.ok())
        std::printf("caught before launching: %s\n", wrong.error().message);
    if (failed(k.launch(1, 1, i, pi.value(), f, pf.value(), s, ps.value()), "launch"))
        return 1;

    int got_i = 0;
    float got_f = 0;
    test_struct got_s = {0};
    if (failed(pi.value().copy_to(&got_i, 1), "copy") || failed(pf.value().copy_to(&got_f, 1), "copy") ||
        failed(ps.value().copy_to(&got_s, 1), "copy"))
        return 1;
    const bool ok = got_i == i && got_f == f && got_s.value == s.value;
    std::printf("testkernel: i=%d f=%g s.value=%d: %s\n", got_i, double(got_f), got_s.value, ok ? "PASS" : "FAIL");
    return ok ? 0 : 1;
}
