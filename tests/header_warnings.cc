// header_warnings.cc - cudyn.hpp, and cudyn.h in C++ (header_warnings.c,
// included below), as users compile them with their strictest warnings:
// tests/check-header-warnings.sh compiles this file as C++17 (with and
// without exceptions) and C++20 with g++ and clang++, -Werror; it is never
// linked or run.  Every class template is instantiated whole
// (a template's warnings appear only once it is), every function template
// and every other function is called once below, with each kind of kernel
// argument; the object-like macros come from header_macros_hpp.inc, which
// the script writes from the header.  A template added to cudyn.hpp gets
// its instantiation here.
#include "cudyn.hpp"
#include "header_warnings.c"

#include <array>
#include <complex>
#include <cstdint>
#include <vector>

namespace {
enum class level : std::int16_t { low, high };
struct point {
    float x, y;
};
} // namespace

// class templates, every member
template class cudyn::result<int>;
template class cudyn::result<bool>;
template class cudyn::result<float>;
template class cudyn::result<std::vector<double>>;
template class cudyn::result<cudyn::device_buffer<float>>;
template class cudyn::device_ptr<float>;
template class cudyn::device_ptr<void>;
template class cudyn::device_buffer<float>;
template class cudyn::device_buffer<double>;
template class cudyn::device_buffer<std::uint8_t>;
template class cudyn::device_buffer<cudyn::half>;
template class cudyn::device_buffer<std::complex<double>>;
template class cudyn::device_buffer<point>;
template class cudyn::host_buffer<float>;
template class cudyn::host_buffer<std::uint8_t>;
template class cudyn::host_buffer<point>;
// one pack with every kind of argument (every launch-format character)
template class cudyn::arg_pack<bool, std::int8_t, std::uint8_t, std::int16_t, std::uint16_t, std::int32_t,
                               std::uint32_t, std::int64_t, std::uint64_t, float, double, cudyn::half,
                               std::complex<float>, std::complex<double>, cudyn::device_ptr<float>,
                               cudyn::device_buffer<double>, cudyn::texture_object, cudyn::surface_object, level,
                               point>;

int header_warnings_cxx();

int header_warnings_cxx()
{
    // every object-like macro, as an expression
#include "header_macros_hpp.inc"

    int failures = 0;
    const std::vector<float> host(16, 1.0f);
    std::vector<float> back(16);
    std::array<float, 16> fixed{};

    auto buf = cudyn::device_buffer<float>::create(host);
    failures += !buf.ok();
    auto copied = cudyn::device_buffer<float>::create(host.data(), host.size());
    failures += copied.status() != CUDYN_OK;
    auto pinned = cudyn::host_buffer<float>::create(16);
    auto s = cudyn::stream::create(CUDYN_STREAM_NON_BLOCKING);
    auto start = cudyn::event::create();
    auto end = cudyn::event::create(CUDYN_EVENT_DEFAULT);
    if (!buf || !pinned || !s || !start || !end)
        return 1;
    cudyn::device_buffer<float> &b = buf.value();
    cudyn::stream_ref ref(s.value());
    failures += !b.copy_from(host).ok() + !b.copy_from(fixed).ok() + !b.copy_to(back).ok();
    failures += !b.copy_from_async(pinned.value().data(), b.size(), ref).ok();
    failures += !b.copy_to_async(pinned.value().data(), b.size(), s.value()).ok();
    failures += !cudyn::copy(b.data() + 1, host.data(), 2).ok() + !cudyn::copy(back.data(), b.data(), 2).ok();
    failures += !cudyn::copy_async(b.data(), host.data(), 2, ref).ok();
    failures += !cudyn::copy_async(back.data(), b.data(), 2, ref).ok();
    failures += !b.zero().ok();
    auto v = b.to_vector();
    failures += v.ok() ? v.value().size() != b.bytes() / sizeof(float) : 1;
    failures += b.empty() || pinned.value().empty() || pinned.value().bytes() != 64;
    for (float &x : pinned.value())
        x = pinned.value()[0];
#if CUDYN_HPP_SPAN
    std::span<float> span = pinned.value();
    failures += span.size() != pinned.value().span().size();
#endif

    failures += !start.value().record(ref).ok() + !end.value().record().ok();
    failures += !end.value().synchronize().ok() + !s.value().synchronize().ok() + !s.value().wait(end.value().get()).ok();
    auto done = s.value().done();
    auto event_done = end.value().done();
    auto ms = cudyn::event::elapsed_ms(start.value(), end.value());
    failures += !done.ok() || !event_done.ok() || !ms.ok() || ms.value() < 0.0f;

    auto p = cudyn::program::compile("extern \"C\" __global__ void k(float *x) { x[0] = 1; }", "k.cu", {"-lineinfo"});
    if (!p)
        return failures + 1;
    failures += p.value().log() == nullptr || p.value().target() == nullptr || p.value().from_cache();
    failures += p.value().lowered_name("k") != nullptr;
    auto m = cudyn::module::load(p.value());
    auto from_source = cudyn::module::load_source("extern \"C\" __global__ void k() {}");
    auto from_image = cudyn::module::load_image(static_cast<const void *>(host.data()));
    failures += !from_source.ok() + from_image.ok();
    if (!m)
        return failures + 1;
    auto global = m.value().global("k");
    failures += global.ok() && global.value().second == 0;
    auto k = m.value().function("k");
    if (!k)
        return failures + 1;
    const cudyn::kernel &f = k.value();
    auto info = f.info();
    failures += !info.ok() || !f || f.get() == nullptr;

    cudyn::device_buffer<double> doubles;
    cudyn::texture_object tex{};
    cudyn::surface_object surf{};
    const std::complex<float> cf(1, 2);
    const std::complex<double> cd(3, 4);
    const cudyn::half h{0x3c00};
    const point pt{1, 2};
    failures += !f.launch(cudyn::dim3(1), cudyn::dim3(32, 1, 1), b.data()).ok();
    failures += !f(cudyn::dim3(1, 2, 3), 64, 128, ref, true, std::int8_t{1}, std::uint8_t{2}, std::int16_t{3},
                   std::uint16_t{4}, std::int32_t{5}, std::uint32_t{6}, std::int64_t{7}, std::uint64_t{8}, 1.0f, 2.0,
                   h, cf, cd, b.data(), doubles, tex, surf, level::high, pt)
                    .ok();
    auto pack = f.pack<cudyn::device_ptr<float>, float>();
    if (pack) {
        failures += std::string(pack.value().format()) != "pf";
        failures += !pack.value().set(b.data(), 2.0f).ok() + !pack.value().launch(1, 32, 0, ref).ok();
    }

    failures += !cudyn::graph::begin_capture(ref, CUDYN_CAPTURE_GLOBAL).ok();
    auto g = cudyn::graph::end_capture(ref);
    if (g) {
        auto exec = g.value().instantiate();
        if (exec)
            failures += !exec.value().launch(ref).ok() + !exec.value().update(g.value()).ok();
    }

    auto count = cudyn::device_count();
    failures += !count.ok() || count.value() < 1 || !cudyn::synchronize().ok();
    cudyn_devptr raw = b.release();
    cudyn::device_buffer<float> adopted(raw, 16);
    failures += !adopted || adopted.size() != 16;
    cudyn::stream moved = std::move(s.value());
    cudyn_stream handle = moved.release();
    moved.reset(handle);
#if CUDYN_HPP_EXCEPTIONS
    try {
        cudyn::device_buffer<float> thrown(host);
        cudyn::device_buffer<float> sized(std::size_t{4});
        cudyn::host_buffer<float> pinned_sized(4);
        cudyn::stream stream_flags(CUDYN_STREAM_DEFAULT);
        cudyn::event event_flags(CUDYN_EVENT_DISABLE_TIMING);
        cudyn::module loaded(p.value());
        failures += thrown.size() != host.size() || sized.size() != 4 || pinned_sized.size() != 4;
        failures += !stream_flags + !event_flags + !loaded;
    } catch (const cudyn::error &e) {
        failures += e.status() != e.detail().status || e.what() == nullptr;
    }
#endif
    return failures;
}
