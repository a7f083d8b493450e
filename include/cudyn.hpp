/*
 * cudyn.hpp - a header-only C++17 layer over cudyn.h: owners that free
 * what they hold (move-only), errors as exceptions or as values, and
 * kernel calls whose arguments are checked against the kernel.
 *
 * It calls only the C ABI of cudyn.h, so a program links -lcudyn as a C
 * program does, and nothing here changes the library's behaviour.  The
 * manual page is cudyn.hpp(3).
 *
 *  - Every operation is noexcept and returns a cudyn::result<T> (a value
 *    or the full cudyn_error of the failure, like std::expected); value()
 *    gives the value, or throws cudyn::error, or, built without
 *    exceptions (-fno-exceptions), calls std::abort(): test ok() first.
 *  - With exceptions, each owner also has constructors that throw.
 *  - Owners: device_buffer<T>, host_buffer<T> (page-locked), stream,
 *    event, program, module, graph, graph_exec, arg_pack<Ts...>.  A
 *    moved-from owner holds nothing; release() hands the handle over.
 *  - kernel k (from module::function) launches with
 *        k.launch(grid, block, args...)
 *        k(grid, block, shared_bytes, stream, args...)
 *    Each argument's C++ type gives its launch-format character at
 *    compile time (bool '?', 8/16/32/64-bit integers 'b' 'B' 'h' 'H' 'i'
 *    'I' 'q' 'Q', float 'f', double 'd', cudyn::half 'e',
 *    std::complex<float> 'F', std::complex<double> 'D', device_ptr<T> and
 *    device_buffer<T> 'p', texture_object 't', surface_object 'u', any
 *    other trivially copyable struct 's'), and the values go through a
 *    cudyn_args pack: counts, sizes and kinds are checked against the
 *    kernel exactly as cudyn_launchf checks them.  A host pointer does not
 *    compile (pass a device_ptr); a raw cudyn_devptr is a 64-bit integer
 *    ('Q'), which a pointer parameter accepts.
 */
#ifndef CUDYN_HPP
#define CUDYN_HPP

#include "cudyn.h"

#if !defined(__cplusplus) || __cplusplus < 201703L
#error "cudyn.hpp needs C++17 or later (-std=c++17); cudyn.h alone works in C and in C++11"
#endif

#include <complex>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#if defined(__cpp_exceptions) || defined(__EXCEPTIONS)
#define CUDYN_HPP_EXCEPTIONS 1
#include <exception>
#else
#define CUDYN_HPP_EXCEPTIONS 0
#endif

#if __cplusplus >= 202002L && defined(__has_include)
#if __has_include(<span>)
#include <span>
#define CUDYN_HPP_SPAN 1
#endif
#endif
#ifndef CUDYN_HPP_SPAN
#define CUDYN_HPP_SPAN 0
#endif

namespace cudyn {

/* ------------------------------------------------------------ errors */

namespace detail {
/* The calling thread's last error, which the failed call `st` left. */
inline cudyn_error capture(int st) noexcept
{
    cudyn_error e;
    std::memset(&e, 0, sizeof e);
    e.size = sizeof e;
    cudyn_last_error(&e);
    if (e.status != st) { /* never expected: keep at least the status */
        std::memset(&e, 0, sizeof e);
        e.size = sizeof e;
        e.status = st;
        e.origin = CUDYN_ORIGIN_LIBRARY;
        std::strncpy(e.message, cudyn_status_string(st), sizeof e.message - 1);
    }
    return e;
}
/* An error found by this header before any C call (same fields as the
 * library's: status, origin, function, message). */
inline cudyn_error make_error(int st, const char *function, const char *message) noexcept
{
    cudyn_error e;
    std::memset(&e, 0, sizeof e);
    e.size = sizeof e;
    e.status = st;
    e.origin = CUDYN_ORIGIN_LIBRARY;
    std::snprintf(e.function, sizeof e.function, "%s", function);
    std::snprintf(e.message, sizeof e.message, "%s: %s", function, message);
    return e;
}
} // namespace detail

#if CUDYN_HPP_EXCEPTIONS
/* A failure, as an exception: what() is the message with its hint. */
class error : public std::exception {
public:
    explicit error(const cudyn_error &detail) noexcept : detail_(detail) {}
    const char *what() const noexcept override { return detail_.message; }
    /* a cudyn_status */
    int status() const noexcept { return detail_.status; }
    const cudyn_error &detail() const noexcept { return detail_; }

private:
    cudyn_error detail_;
};
#endif

namespace detail {
[[noreturn]] inline void fail(const cudyn_error &e)
{
#if CUDYN_HPP_EXCEPTIONS
    throw error(e);
#else
    (void)e;
    std::abort(); /* value() of a failed result: the caller did not test ok() */
#endif
}
} // namespace detail

/* A value or the error of the failure that prevented it. */
template <class T>
class [[nodiscard]] result {
public:
    result(T value) noexcept(std::is_nothrow_move_constructible_v<T>) : v_(std::in_place_index<0>, std::move(value)) {}
    result(const cudyn_error &e) noexcept : v_(std::in_place_index<1>, e) {}

    bool ok() const noexcept { return v_.index() == 0; }
    explicit operator bool() const noexcept { return ok(); }
    /* CUDYN_OK, or the failure's cudyn_status */
    int status() const noexcept { return ok() ? CUDYN_OK : std::get_if<1>(&v_)->status; }
    /* the failure (precondition: !ok()) */
    const cudyn_error &error() const noexcept { return *std::get_if<1>(&v_); }

    T &value() &
    {
        if (!ok())
            detail::fail(error());
        return *std::get_if<0>(&v_);
    }
    const T &value() const &
    {
        if (!ok())
            detail::fail(error());
        return *std::get_if<0>(&v_);
    }
    T &&value() &&
    {
        if (!ok())
            detail::fail(error());
        return std::move(*std::get_if<0>(&v_));
    }

private:
    std::variant<T, cudyn_error> v_;
};

/* Success with nothing to give, or the error. */
template <>
class [[nodiscard]] result<void> {
public:
    result() noexcept = default;
    result(const cudyn_error &e) noexcept : e_(e) {}

    bool ok() const noexcept { return !e_.has_value(); }
    explicit operator bool() const noexcept { return ok(); }
    int status() const noexcept { return e_ ? e_->status : CUDYN_OK; }
    const cudyn_error &error() const noexcept { return *e_; }
    void value() const
    {
        if (e_)
            detail::fail(*e_);
    }

private:
    std::optional<cudyn_error> e_;
};

namespace detail {
/* result<void> of a C call's status */
inline result<void> check(int st) noexcept
{
    if (st == CUDYN_OK)
        return result<void>();
    return result<void>(capture(st));
}
/* result<bool> of a query's status: true when the work is done, false
 * while some is pending (CUDYN_ERROR_NOT_READY), an error otherwise */
inline result<bool> done(int st) noexcept
{
    if (st == CUDYN_OK || st == CUDYN_ERROR_NOT_READY)
        return st == CUDYN_OK;
    return capture(st);
}
} // namespace detail

/* ------------------------------------------------------------ small types */

/* Grid and block sizes; 1 for the dimensions not given. */
struct dim3 {
    unsigned int x = 1, y = 1, z = 1;
    constexpr dim3(unsigned int x_ = 1, unsigned int y_ = 1, unsigned int z_ = 1) noexcept : x(x_), y(y_), z(z_) {}
    constexpr operator cudyn_dim3() const noexcept { return cudyn_dim3{x, y, z}; }
};

/* A device address of T elements, not owned; a kernel's 'p' argument. */
template <class T>
class device_ptr {
public:
    constexpr device_ptr() noexcept = default;
    constexpr explicit device_ptr(cudyn_devptr address) noexcept : a_(address) {}
    constexpr cudyn_devptr get() const noexcept { return a_; }
    constexpr explicit operator bool() const noexcept { return a_ != 0; }
    /* i elements further (for T = void, i bytes) */
    constexpr device_ptr operator+(std::ptrdiff_t i) const noexcept
    {
        return device_ptr(a_ + static_cast<cudyn_devptr>(i * static_cast<std::ptrdiff_t>(elem())));
    }
    friend constexpr bool operator==(device_ptr a, device_ptr b) noexcept { return a.a_ == b.a_; }
    friend constexpr bool operator!=(device_ptr a, device_ptr b) noexcept { return a.a_ != b.a_; }

private:
    static constexpr std::size_t elem() noexcept
    {
        if constexpr (std::is_void_v<T>)
            return 1;
        else
            return sizeof(T);
    }
    cudyn_devptr a_ = 0;
};

/* IEEE binary16 bits for a kernel's __half parameter ('e'). */
struct half {
    std::uint16_t bits;
};

/* A texture or surface object for a kernel's cudaTextureObject_t ('t') or
 * cudaSurfaceObject_t ('u') parameter (cudyn_texture_create and
 * cudyn_surface_create make them; not owned). */
struct texture_object {
    cudyn_texture handle;
};
struct surface_object {
    cudyn_surface handle;
};

class stream;

/* A stream to work on, not owned: a cudyn::stream, a cudyn_stream (also
 * from elsewhere: cudyn_stream_from_native) or the default stream (the
 * default argument, or nullptr). */
class stream_ref {
public:
    constexpr stream_ref(cudyn_stream s = nullptr) noexcept : s_(s) {}
    stream_ref(const stream &s) noexcept;
    constexpr cudyn_stream get() const noexcept { return s_; }

private:
    cudyn_stream s_;
};

/* ------------------------------------------------------------ owners */

namespace detail {
/* The common part of the owners: one handle, freed by Free, moved not copied. */
template <class Handle, int (*Free)(Handle)>
class owner {
public:
    owner() noexcept = default;
    explicit owner(Handle h) noexcept : h_(h) {}
    owner(owner &&o) noexcept : h_(std::exchange(o.h_, Handle())) {}
    owner &operator=(owner &&o) noexcept
    {
        if (this != &o)
            reset(std::exchange(o.h_, Handle()));
        return *this;
    }
    owner(const owner &) = delete;
    owner &operator=(const owner &) = delete;
    ~owner() { reset(); }

    Handle get() const noexcept { return h_; }
    explicit operator bool() const noexcept { return h_ != Handle(); }
    /* hands the handle over: the caller frees it */
    Handle release() noexcept { return std::exchange(h_, Handle()); }
    /* frees what is held (a failure to free is not reported: a destructor
     * has no one to tell; free explicitly with the C call to know) */
    void reset(Handle h = Handle()) noexcept
    {
        Handle old = std::exchange(h_, h);
        if (old != Handle())
            (void)Free(old);
    }

private:
    Handle h_ = Handle();
};

inline int free_program(cudyn_program *p)
{
    cudyn_program_free(p);
    return CUDYN_OK;
}
inline int free_args(cudyn_args *a)
{
    cudyn_args_free(a);
    return CUDYN_OK;
}

/* Has data() and size() of elements convertible to U* (vector, array,
 * string, span ...). */
template <class C, class U, class = void>
struct is_contiguous_of : std::false_type {};
template <class C, class U>
struct is_contiguous_of<C, U,
                        std::void_t<decltype(*std::declval<C &>().data()), decltype(std::declval<C &>().size())>>
    : std::bool_constant<std::is_pointer_v<decltype(std::declval<C &>().data())> &&
                         std::is_convertible_v<decltype(std::declval<C &>().data()), U *> &&
                         sizeof(std::remove_reference_t<decltype(*std::declval<C &>().data())>) == sizeof(U)> {};
} // namespace detail

/* Device memory for n elements of T (cudyn_mem_alloc), freed when the
 * owner goes.  As a kernel argument it is its address ('p'). */
template <class T>
class device_buffer {
    static_assert(std::is_trivially_copyable_v<T>, "device memory holds trivially copyable elements only");

public:
    device_buffer() noexcept = default;
    /* takes over memory from cudyn_mem_alloc (or an alloc of this size) */
    device_buffer(cudyn_devptr ptr, std::size_t count) noexcept : mem_(ptr), n_(count) {}
    device_buffer(device_buffer &&o) noexcept : mem_(std::move(o.mem_)), n_(std::exchange(o.n_, 0)) {}
    device_buffer &operator=(device_buffer &&o) noexcept
    {
        mem_ = std::move(o.mem_);
        n_ = std::exchange(o.n_, 0);
        return *this;
    }

    static result<device_buffer> create(std::size_t count) noexcept
    {
        if (count > SIZE_MAX / sizeof(T))
            return detail::make_error(CUDYN_ERROR_INVALID_ARGUMENT, "cudyn::device_buffer::create",
                                      "the element count times the element size does not fit in size_t");
        cudyn_devptr p = 0;
        int st = cudyn_mem_alloc(&p, count * sizeof(T));
        if (st != CUDYN_OK)
            return detail::capture(st);
        return device_buffer(p, count);
    }
    /* a buffer holding a copy of the host elements */
    static result<device_buffer> create(const T *host, std::size_t count) noexcept
    {
        result<device_buffer> r = create(count);
        if (r.ok()) {
            result<void> c = r.value().copy_from(host, count);
            if (!c.ok())
                return c.error();
        }
        return r;
    }
    template <class C, class = std::enable_if_t<detail::is_contiguous_of<const C, const T>::value>>
    static result<device_buffer> create(const C &host) noexcept
    {
        return create(host.data(), host.size());
    }
#if CUDYN_HPP_EXCEPTIONS
    explicit device_buffer(std::size_t count) : device_buffer(create(count).value()) {}
    template <class C, class = std::enable_if_t<detail::is_contiguous_of<const C, const T>::value>>
    explicit device_buffer(const C &host) : device_buffer(create(host).value())
    {
    }
#endif

    device_ptr<T> data() const noexcept { return device_ptr<T>(mem_.get()); }
    std::size_t size() const noexcept { return n_; }
    std::size_t bytes() const noexcept { return n_ * sizeof(T); }
    bool empty() const noexcept { return n_ == 0; }
    explicit operator bool() const noexcept { return static_cast<bool>(mem_); }
    cudyn_devptr release() noexcept
    {
        n_ = 0;
        return mem_.release();
    }

    /* Copies count elements from the host to the start of the buffer
     * (count beyond size() is CUDYN_ERROR_INVALID_ARGUMENT). */
    result<void> copy_from(const T *host, std::size_t count) noexcept
    {
        if (count > n_)
            return too_many("copy_from", count);
        return detail::check(cudyn_memcpy_htod(mem_.get(), host, count * sizeof(T)));
    }
    /* The same queued on s (from page-locked memory, it overlaps other work). */
    result<void> copy_from_async(const T *host, std::size_t count, stream_ref s) noexcept
    {
        if (count > n_)
            return too_many("copy_from_async", count);
        return detail::check(cudyn_memcpy_htod_async(mem_.get(), host, count * sizeof(T), s.get()));
    }
    template <class C, class = std::enable_if_t<detail::is_contiguous_of<const C, const T>::value>>
    result<void> copy_from(const C &host) noexcept
    {
        return copy_from(host.data(), host.size());
    }
    /* Copies count elements from the start of the buffer to the host. */
    result<void> copy_to(T *host, std::size_t count) const noexcept
    {
        if (count > n_)
            return too_many("copy_to", count);
        return detail::check(cudyn_memcpy_dtoh(host, mem_.get(), count * sizeof(T)));
    }
    result<void> copy_to_async(T *host, std::size_t count, stream_ref s) const noexcept
    {
        if (count > n_)
            return too_many("copy_to_async", count);
        return detail::check(cudyn_memcpy_dtoh_async(host, mem_.get(), count * sizeof(T), s.get()));
    }
    template <class C, class = std::enable_if_t<detail::is_contiguous_of<C, T>::value>>
    result<void> copy_to(C &&host) const noexcept
    {
        return copy_to(host.data(), host.size());
    }
    /* All elements to a new vector. */
    result<std::vector<T>> to_vector() const
    {
        std::vector<T> v(n_);
        result<void> r = copy_to(v.data(), n_);
        if (!r.ok())
            return r.error();
        return v;
    }
    /* Every byte to zero. */
    result<void> zero() noexcept { return detail::check(cudyn_memset_d8(mem_.get(), 0, bytes())); }

private:
    result<void> too_many(const char *what, std::size_t count) const noexcept
    {
        char function[64], message[128];
        std::snprintf(function, sizeof function, "cudyn::device_buffer::%s", what);
        std::snprintf(message, sizeof message, "%zu elements asked, the buffer holds %zu", count, n_);
        return detail::make_error(CUDYN_ERROR_INVALID_ARGUMENT, function, message);
    }
    detail::owner<cudyn_devptr, cudyn_mem_free> mem_;
    std::size_t n_ = 0;
};

/* Page-locked host memory for n elements of T (cudyn_host_alloc): copies
 * from and to it run at full speed and may be asynchronous. */
template <class T>
class host_buffer {
    static_assert(std::is_trivially_copyable_v<T>, "page-locked memory holds trivially copyable elements only");

public:
    host_buffer() noexcept = default;
    host_buffer(host_buffer &&o) noexcept : mem_(std::move(o.mem_)), n_(std::exchange(o.n_, 0)) {}
    host_buffer &operator=(host_buffer &&o) noexcept
    {
        mem_ = std::move(o.mem_);
        n_ = std::exchange(o.n_, 0);
        return *this;
    }
    static result<host_buffer> create(std::size_t count) noexcept
    {
        if (count > SIZE_MAX / sizeof(T))
            return detail::make_error(CUDYN_ERROR_INVALID_ARGUMENT, "cudyn::host_buffer::create",
                                      "the element count times the element size does not fit in size_t");
        void *p = nullptr;
        int st = cudyn_host_alloc(&p, count * sizeof(T));
        if (st != CUDYN_OK)
            return detail::capture(st);
        host_buffer b;
        b.mem_.reset(p);
        b.n_ = count;
        return b;
    }
#if CUDYN_HPP_EXCEPTIONS
    explicit host_buffer(std::size_t count) : host_buffer(create(count).value()) {}
#endif

    T *data() const noexcept { return static_cast<T *>(mem_.get()); }
    std::size_t size() const noexcept { return n_; }
    std::size_t bytes() const noexcept { return n_ * sizeof(T); }
    bool empty() const noexcept { return n_ == 0; }
    T &operator[](std::size_t i) const noexcept { return data()[i]; }
    T *begin() const noexcept { return data(); }
    T *end() const noexcept { return data() + n_; }
#if CUDYN_HPP_SPAN
    /* a host_buffer is a contiguous range too: std::span<T> s = buf; */
    std::span<T> span() const noexcept { return std::span<T>(data(), n_); }
#endif

private:
    detail::owner<void *, cudyn_host_free> mem_;
    std::size_t n_ = 0;
};

/* Copies of count elements between the host and any device address (a
 * part of a buffer: buf.data() + offset); the _async ones are queued on s. */
template <class T>
result<void> copy(device_ptr<T> dst, const T *src, std::size_t count) noexcept
{
    return detail::check(cudyn_memcpy_htod(dst.get(), src, count * sizeof(T)));
}
template <class T>
result<void> copy(T *dst, device_ptr<T> src, std::size_t count) noexcept
{
    return detail::check(cudyn_memcpy_dtoh(dst, src.get(), count * sizeof(T)));
}
template <class T>
result<void> copy_async(device_ptr<T> dst, const T *src, std::size_t count, stream_ref s) noexcept
{
    return detail::check(cudyn_memcpy_htod_async(dst.get(), src, count * sizeof(T), s.get()));
}
template <class T>
result<void> copy_async(T *dst, device_ptr<T> src, std::size_t count, stream_ref s) noexcept
{
    return detail::check(cudyn_memcpy_dtoh_async(dst, src.get(), count * sizeof(T), s.get()));
}

/* A stream (cudyn_stream_create), destroyed when the owner goes. */
class stream : public detail::owner<cudyn_stream, cudyn_stream_destroy> {
public:
    using owner::owner;
    static result<stream> create(unsigned int flags = CUDYN_STREAM_DEFAULT) noexcept
    {
        cudyn_stream s = nullptr;
        int st = cudyn_stream_create(&s, flags);
        if (st != CUDYN_OK)
            return detail::capture(st);
        return stream(s);
    }
#if CUDYN_HPP_EXCEPTIONS
    explicit stream(unsigned int flags) : stream(create(flags).value()) {}
#endif
    result<void> synchronize() const noexcept { return detail::check(cudyn_stream_synchronize(get())); }
    /* true when all work has finished, false while some is pending */
    result<bool> done() const noexcept { return detail::done(cudyn_stream_query(get())); }
    result<void> wait(cudyn_event e) const noexcept { return detail::check(cudyn_stream_wait_event(get(), e)); }
};

inline stream_ref::stream_ref(const stream &s) noexcept : s_(s.get()) {}

/* An event (cudyn_event_create), destroyed when the owner goes. */
class event : public detail::owner<cudyn_event, cudyn_event_destroy> {
public:
    using owner::owner;
    static result<event> create(unsigned int flags = CUDYN_EVENT_DEFAULT) noexcept
    {
        cudyn_event e = nullptr;
        int st = cudyn_event_create(&e, flags);
        if (st != CUDYN_OK)
            return detail::capture(st);
        return event(e);
    }
#if CUDYN_HPP_EXCEPTIONS
    explicit event(unsigned int flags) : event(create(flags).value()) {}
#endif
    result<void> record(stream_ref s = {}) const noexcept { return detail::check(cudyn_event_record(get(), s.get())); }
    result<void> synchronize() const noexcept { return detail::check(cudyn_event_synchronize(get())); }
    result<bool> done() const noexcept { return detail::done(cudyn_event_query(get())); }
    /* milliseconds from start to end, both recorded and complete */
    static result<float> elapsed_ms(const event &start, const event &end) noexcept
    {
        float ms = 0;
        int st = cudyn_event_elapsed_ms(&ms, start.get(), end.get());
        if (st != CUDYN_OK)
            return detail::capture(st);
        return ms;
    }
};

/* A compiled program (cudyn_compile), freed when the owner goes. */
class program : public detail::owner<cudyn_program *, detail::free_program> {
public:
    using owner::owner;
    /* compiles source for `device` (the thread's device: 0 unless
     * cudyn_device_use chose another) through the kernel cache */
    static result<program> compile(const char *source, const char *name = "kernel.cu",
                                   const std::vector<std::string> &options = {}, int device = 0) noexcept
    {
        std::vector<const char *> opts;
        try_reserve(opts, options);
        cudyn_program *p = nullptr;
        int st = cudyn_compile(&p, source, name, device, opts.empty() ? nullptr : opts.data(),
                               static_cast<int>(opts.size()));
        if (st != CUDYN_OK)
            return detail::capture(st);
        return program(p);
    }
    /* NVRTC's log ("" if none) */
    const char *log() const noexcept { return cudyn_program_log(get()); }
    /* "sm_90" (CUBIN) or "compute_90" (PTX) */
    const char *target() const noexcept { return cudyn_program_target(get()); }
    bool from_cache() const noexcept { return cudyn_program_from_cache(get()) == 1; }
    const char *lowered_name(const char *expression) const noexcept
    {
        return cudyn_program_lowered_name(get(), expression);
    }

private:
    static void try_reserve(std::vector<const char *> &opts, const std::vector<std::string> &options) noexcept
    {
#if CUDYN_HPP_EXCEPTIONS
        try {
            for (const std::string &o : options)
                opts.push_back(o.c_str());
        } catch (...) {
            opts.clear(); /* cannot happen without memory; cudyn then compiles without them */
        }
#else
        for (const std::string &o : options)
            opts.push_back(o.c_str());
#endif
    }
};

class kernel;

/* A loaded module (cudyn_module_load ...), unloaded when the owner goes;
 * its kernels are valid while it is loaded. */
class module : public detail::owner<cudyn_module, cudyn_module_unload> {
public:
    using owner::owner;
    static result<module> load(const program &p) noexcept
    {
        cudyn_module m = nullptr;
        int st = cudyn_module_load(&m, p.get());
        if (st != CUDYN_OK)
            return detail::capture(st);
        return module(m);
    }
    /* compiles (through the cache) and loads: PyCUDA's SourceModule */
    static result<module> load_source(const char *source) noexcept
    {
        cudyn_module m = nullptr;
        int st = cudyn_module_load_source(&m, source, nullptr, 0);
        if (st != CUDYN_OK)
            return detail::capture(st);
        return module(m);
    }
    /* PTX, CUBIN, fatbin or a cudyn image */
    static result<module> load_image(const void *image) noexcept
    {
        cudyn_module m = nullptr;
        int st = cudyn_module_load_image(&m, image);
        if (st != CUDYN_OK)
            return detail::capture(st);
        return module(m);
    }
#if CUDYN_HPP_EXCEPTIONS
    explicit module(const program &p) : module(load(p).value()) {}
#endif
    inline result<kernel> function(const char *name) const noexcept;
    /* a __device__ or __constant__ variable's address and size */
    result<std::pair<device_ptr<void>, std::size_t>> global(const char *name) const noexcept
    {
        cudyn_devptr p = 0;
        std::size_t bytes = 0;
        int st = cudyn_module_global(&p, &bytes, get(), name);
        if (st != CUDYN_OK)
            return detail::capture(st);
        return std::make_pair(device_ptr<void>(p), bytes);
    }
};

/* ------------------------------------------------------------ arguments */

namespace detail {
template <class T>
struct is_device_address : std::false_type {};
template <class T>
struct is_device_address<device_ptr<T>> : std::true_type {};
template <class T>
struct is_device_address<device_buffer<T>> : std::true_type {};
template <class>
inline constexpr bool dependent_false = false;
template <class T>
cudyn_devptr address_of(const device_ptr<T> &p) noexcept
{
    return p.get();
}
template <class T>
cudyn_devptr address_of(const device_buffer<T> &b) noexcept
{
    return b.data().get();
}

/* The launch-format character of a C++ argument type (cudyn.h,
 * CUDYN_LAUNCH_FORMAT_MAP). */
template <class A>
constexpr char format_code() noexcept
{
    using U = std::remove_cv_t<std::remove_reference_t<A>>;
    if constexpr (std::is_same_v<U, bool>)
        return '?';
    else if constexpr (is_device_address<U>::value)
        return 'p';
    else if constexpr (std::is_same_v<U, texture_object>)
        return 't';
    else if constexpr (std::is_same_v<U, surface_object>)
        return 'u';
    else if constexpr (std::is_same_v<U, half>)
        return 'e';
    else if constexpr (std::is_same_v<U, std::complex<float>>)
        return 'F';
    else if constexpr (std::is_same_v<U, std::complex<double>>)
        return 'D';
    else if constexpr (std::is_enum_v<U>)
        return format_code<std::underlying_type_t<U>>();
    else if constexpr (std::is_integral_v<U>) {
        static_assert(sizeof(U) == 1 || sizeof(U) == 2 || sizeof(U) == 4 || sizeof(U) == 8,
                      "integers of 8, 16, 32 or 64 bits only");
        constexpr bool s = std::is_signed_v<U>;
        return sizeof(U) == 1 ? (s ? 'b' : 'B')
               : sizeof(U) == 2 ? (s ? 'h' : 'H')
               : sizeof(U) == 4 ? (s ? 'i' : 'I')
                                : (s ? 'q' : 'Q');
    } else if constexpr (std::is_same_v<U, float>)
        return 'f';
    else if constexpr (std::is_same_v<U, double>)
        return 'd';
    else if constexpr (std::is_floating_point_v<U>) {
        static_assert(dependent_false<U>, "a kernel takes no long double: pass a double");
        return 0;
    } else if constexpr (std::is_pointer_v<U> || std::is_array_v<U> || std::is_null_pointer_v<U>) {
        static_assert(dependent_false<U>,
                      "a host pointer cannot be a kernel argument: pass a cudyn::device_ptr<T> or a device_buffer<T>");
        return 0;
    } else if constexpr (std::is_class_v<U> && std::is_trivially_copyable_v<U>) {
        static_assert(sizeof(U) <= 32764, "a struct argument is at most 32764 bytes (the driver's limit)");
        return 's';
    } else {
        static_assert(dependent_false<U>, "a kernel argument must be a number, a device address or a trivially "
                                          "copyable struct");
        return 0;
    }
}

/* The whole format of a list of argument types, as a NUL-terminated array
 * of static storage (the same text for the same types). */
template <class... Args>
struct format {
    static_assert(sizeof...(Args) <= 64, "a kernel takes at most 64 arguments through cudyn");
    static constexpr char text[sizeof...(Args) + 1] = {format_code<Args>()..., '\0'};
};

/* Sets argument i of a pack from a C++ value, as the kernel gets it. */
template <class A>
int set_value(cudyn_args *pack, int i, const A &a) noexcept
{
    using U = std::remove_cv_t<std::remove_reference_t<A>>;
    if constexpr (std::is_same_v<U, bool>) {
        std::uint8_t v = a ? 1 : 0;
        return cudyn_args_set_value(pack, i, &v, sizeof v);
    } else if constexpr (is_device_address<U>::value) {
        cudyn_devptr v = address_of(a);
        return cudyn_args_set_value(pack, i, &v, sizeof v);
    } else {
        return cudyn_args_set_value(pack, i, &a, sizeof a);
    }
}

template <class... Args, std::size_t... I>
int set_values(cudyn_args *pack, std::index_sequence<I...>, const Args &...args) noexcept
{
    int st = CUDYN_OK;
    ((st = st == CUDYN_OK ? set_value(pack, static_cast<int>(I), args) : st), ...);
    return st;
}
} // namespace detail

/*
 * A reusable argument pack (cudyn_args) for one kernel and these argument
 * types, for hot loops: the format is parsed and checked against the
 * kernel once, set() stores new values, launch() costs what cudyn_launch
 * costs.  One pack per thread.
 */
template <class... Args>
class arg_pack : public detail::owner<cudyn_args *, detail::free_args> {
public:
    using owner::owner;
    static result<arg_pack> create(cudyn_function f) noexcept
    {
        cudyn_args *a = nullptr;
        int st = cudyn_args_create(&a, f, format());
        if (st != CUDYN_OK)
            return detail::capture(st);
        return arg_pack(a);
    }
    /* the launch format of Args ("fppp" ...) */
    static constexpr const char *format() noexcept { return detail::format<Args...>::text; }
    result<void> set(const Args &...args) noexcept
    {
        return detail::check(detail::set_values(get(), std::index_sequence_for<Args...>{}, args...));
    }
    result<void> launch(dim3 grid, dim3 block, unsigned int shared_bytes = 0, stream_ref s = {}) const noexcept
    {
        return detail::check(cudyn_args_launch(get(), grid, block, shared_bytes, s.get()));
    }
};

/* A kernel of a loaded module (not owned: valid while the module is). */
class kernel {
public:
    constexpr kernel(cudyn_function f = nullptr) noexcept : f_(f) {}
    cudyn_function get() const noexcept { return f_; }
    explicit operator bool() const noexcept { return f_ != nullptr; }

    /* launches on the default stream without dynamic shared memory */
    template <class... Args>
    result<void> launch(dim3 grid, dim3 block, const Args &...args) const noexcept
    {
        return (*this)(grid, block, 0, stream_ref(), args...);
    }
    template <class... Args>
    result<void> operator()(dim3 grid, dim3 block, unsigned int shared_bytes, stream_ref s,
                            const Args &...args) const noexcept
    {
        cudyn_args *pack = nullptr;
        int st = cudyn_args_create(&pack, f_, detail::format<Args...>::text);
        if (st == CUDYN_OK)
            st = detail::set_values(pack, std::index_sequence_for<Args...>{}, args...);
        if (st == CUDYN_OK)
            st = cudyn_args_launch(pack, grid, block, shared_bytes, s.get());
        result<void> r = detail::check(st); /* before the free: the error is this thread's */
        cudyn_args_free(pack);
        return r;
    }
    /* a pack for launching again and again with new values */
    template <class... Args>
    result<arg_pack<Args...>> pack() const noexcept
    {
        return arg_pack<Args...>::create(f_);
    }
    result<struct cudyn_function_info> info() const noexcept
    {
        struct cudyn_function_info i;
        std::memset(&i, 0, sizeof i);
        i.size = sizeof i;
        int st = cudyn_function_info(f_, &i);
        if (st != CUDYN_OK)
            return detail::capture(st);
        return i;
    }

private:
    cudyn_function f_;
};

inline result<kernel> module::function(const char *name) const noexcept
{
    cudyn_function f = nullptr;
    int st = cudyn_module_function(&f, get(), name);
    if (st != CUDYN_OK)
        return detail::capture(st);
    return kernel(f);
}

/* ------------------------------------------------------------ graphs */

class graph_exec;

/* A graph captured from a stream, destroyed when the owner goes. */
class graph : public detail::owner<cudyn_graph, cudyn_graph_destroy> {
public:
    using owner::owner;
    /* starts capturing the work queued on s */
    static result<void> begin_capture(stream_ref s, int mode = CUDYN_CAPTURE_GLOBAL) noexcept
    {
        return detail::check(cudyn_stream_begin_capture(s.get(), mode));
    }
    /* ends the capture of s: the work queued since, as a graph */
    static result<graph> end_capture(stream_ref s) noexcept
    {
        cudyn_graph g = nullptr;
        int st = cudyn_stream_end_capture(s.get(), &g);
        if (st != CUDYN_OK)
            return detail::capture(st);
        return graph(g);
    }
    inline result<graph_exec> instantiate(unsigned int flags = 0) const noexcept;
};

/* An instantiated graph, launched as often as needed. */
class graph_exec : public detail::owner<cudyn_graph_exec, cudyn_graph_exec_destroy> {
public:
    using owner::owner;
    result<void> launch(stream_ref s = {}) const noexcept { return detail::check(cudyn_graph_launch(get(), s.get())); }
    /* takes the parameters of a graph of the same shape */
    result<void> update(const graph &g) const noexcept { return detail::check(cudyn_graph_exec_update(get(), g.get())); }
};

inline result<graph_exec> graph::instantiate(unsigned int flags) const noexcept
{
    cudyn_graph_exec e = nullptr;
    int st = cudyn_graph_instantiate(&e, get(), flags);
    if (st != CUDYN_OK)
        return detail::capture(st);
    return graph_exec(e);
}

/* ------------------------------------------------------------ devices */

inline result<int> device_count() noexcept
{
    int n = 0;
    int st = cudyn_device_count(&n);
    if (st != CUDYN_OK)
        return detail::capture(st);
    return n;
}

inline result<void> synchronize() noexcept { return detail::check(cudyn_synchronize()); }

} // namespace cudyn

#endif
