// test_cxx.cc - cudyn.hpp on the mock driver, built three times: C++17,
// C++20 (std::span) and C++17 without exceptions (results only).  The
// bytes each C++ argument type gives a kernel (the mock's "record" kernel
// keeps them), the check of arguments against the kernel, owners that free
// what they hold (device memory counted by the mock) and nothing twice,
// results and exceptions that carry the whole cudyn_error, streams,
// events, pinned memory, reusable packs and a captured graph.
#include "cudyn.hpp"

#include <dlfcn.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace {

int failures = 0;

#define EXPECT(cond)                                                              \
    do {                                                                          \
        if (!(cond)) {                                                            \
            std::fprintf(stderr, "%s:%d: EXPECT failed: %s\n", __FILE__, __LINE__, #cond); \
            failures++;                                                           \
        }                                                                         \
    } while (0)

// a result that must have succeeded; says why if not
#define EXPECT_OK(r) expect_ok((r), #r, __LINE__)
template <class R>
bool expect_ok(const R &r, const char *what, int line)
{
    if (r.ok())
        return true;
    std::fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, line, what, r.error().message);
    failures++;
    return false;
}

const char image[] =
    ".version 8.0\n.target sm_90\n.address_size 64\n"
    ".visible .entry record(.param .u8 p0, .param .s8 p1, .param .u8 p2, .param .s16 p3, .param .u16 p4,\n"
    "  .param .s32 p5, .param .u32 p6, .param .s64 p7, .param .u64 p8, .param .b16 p9, .param .f32 p10,\n"
    "  .param .f64 p11, .param .align 4 .b8 p12[8], .param .align 8 .b8 p13[16], .param .u64 p14,\n"
    "  .param .u64 p15, .param .align 8 .b8 p16[16], .param .u32 p17)\n{\n}\n"
    ".visible .entry saxpy(.param .f32 a, .param .u64 x, .param .u64 y, .param .u64 out, .param .u64 n)\n{\n}\n";

struct char_double {
    char c;
    double d;
};
enum class colour : std::uint32_t { red = 7 };

// what the mock exports, found as the library loaded it
void *mock_symbol(const char *name)
{
    struct cudyn_loader_info info;
    std::memset(&info, 0, sizeof info);
    info.size = sizeof info;
    if (cudyn_loader_info(&info) != CUDYN_OK || !info.driver_path)
        return nullptr;
    void *h = dlopen(info.driver_path, RTLD_NOW | RTLD_NOLOAD);
    return h ? dlsym(h, name) : nullptr;
}

std::size_t mock_memory_in_use()
{
    auto used = reinterpret_cast<std::size_t (*)()>(mock_symbol("mock_memory_in_use"));
    return used ? used() : static_cast<std::size_t>(-1);
}

std::vector<unsigned char> mock_recorded()
{
    auto rec = reinterpret_cast<std::size_t (*)(void *, std::size_t)>(mock_symbol("mock_recorded"));
    std::vector<unsigned char> got(4096);
    got.resize(rec ? rec(got.data(), got.size()) : 0);
    return got;
}

template <class T>
void put(std::vector<unsigned char> &v, const T &value)
{
    const auto *b = reinterpret_cast<const unsigned char *>(&value);
    v.insert(v.end(), b, b + sizeof value);
}

constexpr bool same(const char *a, const char *b)
{
    while (*a && *a == *b) {
        a++;
        b++;
    }
    return *a == *b;
}

// The format each C++ type gives, at compile time.
static_assert(same(cudyn::arg_pack<bool, std::int8_t, std::uint8_t, short, unsigned short, int, unsigned,
                                   long long, unsigned long, cudyn::half, float, double, std::complex<float>,
                                   std::complex<double>, cudyn::device_ptr<float>, cudyn::device_buffer<int>,
                                   char_double, colour, cudyn::texture_object, cudyn::surface_object>::format(),
                   "?bBhHiIqQefdFDppsItu"));
static_assert(same(cudyn::arg_pack<>::format(), ""));
static_assert(same(cudyn::arg_pack<std::size_t, cudyn_devptr>::format(), "QQ"));
static_assert(sizeof(cudyn::result<void>) < sizeof(cudyn_error) + 16);

void test_every_type(const cudyn::kernel &record)
{
    char_double cd;
    std::memset(&cd, 0, sizeof cd); // padding is part of what the kernel gets
    cd.c = 'x';
    cd.d = 6.5;
    const std::complex<float> fc(1.0f, 2.0f);
    const std::complex<double> dc(3.0, -4.0);
    const cudyn::device_ptr<float> dp(0x1234567890ull);
    EXPECT_OK(record.launch(1, 1, true, std::int8_t(-5), std::uint8_t(250), short(-30000), static_cast<unsigned short>(60000),
                            -2000000000, 4000000000u, -9000000000000000000ll, 18000000000000000000ull,
                            cudyn::half{0x3E00}, 3.25f, 2.5, fc, dc, dp, std::size_t(12345), cd, colour::red));
    std::vector<unsigned char> want;
    put(want, std::uint8_t(1));
    put(want, std::int8_t(-5));
    put(want, std::uint8_t(250));
    put(want, std::int16_t(-30000));
    put(want, std::uint16_t(60000));
    put(want, std::int32_t(-2000000000));
    put(want, std::uint32_t(4000000000u));
    put(want, std::int64_t(-9000000000000000000ll));
    put(want, std::uint64_t(18000000000000000000ull));
    put(want, std::uint16_t(0x3E00));
    put(want, 3.25f);
    put(want, 2.5);
    put(want, fc);
    put(want, dc);
    put(want, std::uint64_t(0x1234567890ull));
    put(want, std::size_t(12345));
    put(want, cd);
    put(want, std::uint32_t(7));
    EXPECT(mock_recorded() == want);
}

void test_checked_arguments(const cudyn::kernel &saxpy)
{
    cudyn::device_ptr<float> none;
    // a double where the kernel takes a float, as cudyn_launchf refuses it
    cudyn::result<void> r = saxpy.launch(1, 1, 2.0, none, none, none, std::size_t(0));
    EXPECT(!r.ok());
    EXPECT(r.status() == CUDYN_ERROR_INVALID_LAUNCH_ARGUMENTS);
    if (!r.ok()) {
        EXPECT(r.error().status == CUDYN_ERROR_INVALID_LAUNCH_ARGUMENTS);
        EXPECT(std::strstr(r.error().message, "saxpy") != nullptr);
        EXPECT(std::strstr(r.error().message, "parameter 1") != nullptr);
    }
    // one argument short
    r = saxpy.launch(1, 1, 2.0f, none, none, none);
    EXPECT(r.status() == CUDYN_ERROR_INVALID_LAUNCH_ARGUMENTS);
#if CUDYN_HPP_EXCEPTIONS
    bool caught = false;
    try {
        saxpy(1, 1, 0, nullptr, 2.0, none, none, none, std::size_t(0)).value();
    } catch (const cudyn::error &e) {
        caught = true;
        EXPECT(e.status() == CUDYN_ERROR_INVALID_LAUNCH_ARGUMENTS);
        EXPECT(e.detail().status == CUDYN_ERROR_INVALID_LAUNCH_ARGUMENTS);
        EXPECT(std::strcmp(e.what(), e.detail().message) == 0);
        EXPECT(std::strstr(e.what(), "parameter 1") != nullptr);
    }
    EXPECT(caught);
#endif
}

void test_saxpy_and_owners(const cudyn::kernel &saxpy)
{
    const std::size_t before = mock_memory_in_use();
    const std::size_t n = 1000;
    std::vector<float> x(n), y(n), out(n, -1.0f);
    for (std::size_t i = 0; i < n; i++) {
        x[i] = static_cast<float>(i % 100);
        y[i] = static_cast<float>(i % 7);
    }
    {
        auto dx = cudyn::device_buffer<float>::create(x);
        auto dy = cudyn::device_buffer<float>::create(y.data(), y.size());
        auto dout = cudyn::device_buffer<float>::create(n);
        if (!EXPECT_OK(dx) || !EXPECT_OK(dy) || !EXPECT_OK(dout))
            return;
        EXPECT(dx.value().size() == n && dx.value().bytes() == n * sizeof(float));
        EXPECT(mock_memory_in_use() >= before + 3 * n * sizeof(float));
        EXPECT_OK(saxpy.launch(4, 256, 2.0f, dx.value(), dy.value().data(), dout.value(), n));
        EXPECT_OK(dout.value().copy_to(out));
        std::size_t wrong = 0;
        for (std::size_t i = 0; i < n; i++)
            wrong += out[i] != 2.0f * x[i] + y[i];
        EXPECT(wrong == 0);

        // moved, not copied: the moved-from owner holds nothing, and the
        // memory is freed once
        cudyn::device_buffer<float> moved = std::move(dx.value());
        EXPECT(!dx.value() && dx.value().size() == 0 && moved && moved.size() == n);
        cudyn::device_buffer<float> other;
        other = std::move(moved);
        EXPECT(!moved && other.size() == n);
        auto v = other.to_vector();
        EXPECT(EXPECT_OK(v) && v.value() == x);
        // copying more than the buffer holds is refused
        std::vector<float> big(n + 1);
        cudyn::result<void> r = other.copy_from(big);
        EXPECT(r.status() == CUDYN_ERROR_INVALID_ARGUMENT);
        EXPECT(!r.ok() && std::strstr(r.error().message, "1001") != nullptr);
        EXPECT(!r.ok() && std::strcmp(r.error().function, "cudyn::device_buffer::copy_from") == 0);
        // a count whose bytes overflow is refused, not wrapped
        auto huge = cudyn::device_buffer<double>::create(SIZE_MAX / 4);
        EXPECT(huge.status() == CUDYN_ERROR_INVALID_ARGUMENT);
        EXPECT(!huge.ok() && std::strstr(huge.error().message, "does not fit") != nullptr);
        static_assert(!std::is_copy_constructible_v<cudyn::device_buffer<float>>);
        static_assert(!std::is_copy_assignable_v<cudyn::stream>);
        static_assert(std::is_nothrow_move_constructible_v<cudyn::module>);
    }
    EXPECT(mock_memory_in_use() == before);
    // release hands the memory over
    auto b = cudyn::device_buffer<int>::create(4);
    if (EXPECT_OK(b)) {
        cudyn_devptr p = b.value().release();
        EXPECT(p != 0 && !b.value());
        EXPECT(cudyn_mem_free(p) == CUDYN_OK);
    }
    EXPECT(mock_memory_in_use() == before);
}

void test_packs_streams_events(const cudyn::kernel &saxpy)
{
    const std::size_t n = 256;
    auto hx = cudyn::host_buffer<float>::create(n);
    auto hout = cudyn::host_buffer<float>::create(n);
    auto dx = cudyn::device_buffer<float>::create(n);
    auto dout = cudyn::device_buffer<float>::create(n);
    auto s = cudyn::stream::create(CUDYN_STREAM_NON_BLOCKING);
    auto start = cudyn::event::create();
    auto end = cudyn::event::create();
    if (!EXPECT_OK(hx) || !EXPECT_OK(hout) || !EXPECT_OK(dx) || !EXPECT_OK(dout) || !EXPECT_OK(s) ||
        !EXPECT_OK(start) || !EXPECT_OK(end))
        return;
    for (std::size_t i = 0; i < n; i++)
        hx.value()[i] = static_cast<float>(i);
#if CUDYN_HPP_SPAN
    std::span<float> sp = hx.value(); // pinned memory as a span
    EXPECT(sp.size() == n && sp.data() == hx.value().data());
    EXPECT_OK(dx.value().copy_from(std::span<const float>(sp)));
#else
    EXPECT_OK(dx.value().copy_from_async(hx.value().data(), n, s.value()));
#endif
    auto pack = saxpy.pack<float, cudyn::device_ptr<float>, cudyn::device_ptr<float>, cudyn::device_ptr<float>,
                           std::size_t>();
    if (!EXPECT_OK(pack))
        return;
    EXPECT_OK(start.value().record(s.value()));
    for (float a : {1.0f, 3.0f}) { // one pack, new values
        EXPECT_OK(pack.value().set(a, dx.value().data(), dx.value().data(), dout.value().data(), n));
        EXPECT_OK(pack.value().launch(1, 256, 0, s.value()));
    }
    EXPECT_OK(end.value().record(s.value()));
    EXPECT_OK(cudyn::copy_async(hout.value().data(), dout.value().data(), n, s.value()));
    EXPECT_OK(s.value().synchronize());
    auto done = s.value().done();
    EXPECT(EXPECT_OK(done) && done.value());
    EXPECT_OK(end.value().synchronize());
    auto ms = cudyn::event::elapsed_ms(start.value(), end.value());
    EXPECT(EXPECT_OK(ms) && ms.value() >= 0.0f);
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < n; i++)
        wrong += hout.value()[i] != 4.0f * static_cast<float>(i);
    EXPECT(wrong == 0);
    // a pack of the wrong types is refused when it is made
    auto bad = saxpy.pack<double, cudyn::device_ptr<float>, cudyn::device_ptr<float>, cudyn::device_ptr<float>,
                          std::size_t>();
    if (bad.ok()) { // the check runs at the first launch
        EXPECT_OK(bad.value().set(1.0, dx.value().data(), dx.value().data(), dout.value().data(), n));
        EXPECT(bad.value().launch(1, 1).status() == CUDYN_ERROR_INVALID_LAUNCH_ARGUMENTS);
    }
}

void test_graph(const cudyn::kernel &saxpy)
{
    const std::size_t n = 64;
    std::vector<float> ones(n, 1.0f), got(n);
    auto d = cudyn::device_buffer<float>::create(ones);
    auto s = cudyn::stream::create();
    if (!EXPECT_OK(d) || !EXPECT_OK(s))
        return;
    EXPECT_OK(cudyn::graph::begin_capture(s.value()));
    EXPECT_OK(saxpy(1, 64, 0, s.value(), 1.0f, d.value(), d.value(), d.value(), n)); // x = 2x
    auto g = cudyn::graph::end_capture(s.value());
    if (!EXPECT_OK(g))
        return;
    auto exec = g.value().instantiate();
    if (!EXPECT_OK(exec))
        return;
    for (int i = 0; i < 3; i++)
        EXPECT_OK(exec.value().launch(s.value()));
    EXPECT_OK(s.value().synchronize());
    EXPECT_OK(d.value().copy_to(got));
    EXPECT(got == std::vector<float>(n, 8.0f));
}

void test_errors(const cudyn::module &m)
{
    auto f = m.function("no_such_kernel");
    EXPECT(!f.ok() && f.status() == CUDYN_ERROR_NOT_FOUND);
    if (!f.ok()) {
        EXPECT(f.error().size == sizeof(cudyn_error));
        EXPECT(std::strstr(f.error().message, "no_such_kernel") != nullptr);
        EXPECT(std::strcmp(f.error().function, "") != 0);
    }
    auto bad = cudyn::module::load_image("not an image");
    EXPECT(!bad.ok() && bad.status() != CUDYN_OK);
#if CUDYN_HPP_EXCEPTIONS
    bool caught = false;
    try {
        cudyn::kernel k = m.function("no_such_kernel").value();
        (void)k;
    } catch (const cudyn::error &e) {
        caught = e.status() == CUDYN_ERROR_NOT_FOUND && std::strstr(e.what(), "no_such_kernel");
    }
    EXPECT(caught);
    // the constructors that throw
    cudyn::device_buffer<double> b(16);
    EXPECT(b.size() == 16);
    cudyn::stream st(CUDYN_STREAM_DEFAULT);
    EXPECT(static_cast<bool>(st));
#endif
    auto count = cudyn::device_count();
    EXPECT(EXPECT_OK(count) && count.value() >= 1);
    EXPECT_OK(cudyn::synchronize());
}

} // namespace

int main()
{
    const char *mock = std::getenv("MOCK_LIBCUDA");
    if (!mock) {
        std::puts("SKIP: MOCK_LIBCUDA not set (run through make check)");
        return 77;
    }
    setenv("CUDYN_LIBCUDA", mock, 1);
    {
        auto m = cudyn::module::load_image(image);
        if (!EXPECT_OK(m))
            return 1;
        auto record = m.value().function("record");
        auto saxpy = m.value().function("saxpy");
        if (!EXPECT_OK(record) || !EXPECT_OK(saxpy))
            return 1;
        test_every_type(record.value());
        test_checked_arguments(saxpy.value());
        test_saxpy_and_owners(saxpy.value());
        test_packs_streams_events(saxpy.value());
        test_graph(saxpy.value());
        test_errors(m.value());
    }
    EXPECT(mock_memory_in_use() == 0);
    if (failures)
        std::fprintf(stderr, "test_cxx (C++ %ld%s): %d check(s) failed\n", static_cast<long>(__cplusplus),
                     CUDYN_HPP_EXCEPTIONS ? "" : ", no exceptions", failures);
    return failures ? 1 : 0;
}
