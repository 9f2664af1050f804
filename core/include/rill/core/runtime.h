// Runtime and Stream<T>: the user-facing objects of the core.
//
//   rill::Runtime rt;                                // RILL_BACKEND or best available
//   auto x = rt.stream<rill::float4>({n}, host_x);   // allocate + upload
//   saxpy(2.0f, x, y, result);                       // asynchronous kernel call
//   std::vector<rill::float4> r = result.download(); // waits for the result
//
// A Runtime owns one backend. Streams keep their runtime alive, so a Runtime
// object may go out of scope before its streams. Copying a Runtime or a Stream
// copies a handle: both refer to the same backend or the same data.
#pragma once

#include <cstring>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "rill/core/backend.h"
#include "rill/core/element.h"
#include "rill/core/error.h"
#include "rill/core/shape.h"

namespace rill {

namespace detail {
struct RuntimeState;
struct KernelState;
}  // namespace detail

/// Type-erased part of Stream<T>: a view (shape, offset, strides) of a buffer.
class StreamBase {
public:
    const Shape& shape() const { return shape_; }
    std::int64_t size() const { return shape_.size(); }
    bool empty() const { return size() == 0; }
    /// True for iterator streams (values computed, no storage).
    bool is_iterator() const { return iterator_ != nullptr; }
    /// True when the elements are densely packed in row-major order (a fresh
    /// stream, or a reshape of one); domain and stride views usually are not.
    bool contiguous() const;
    const std::string& element_type_name() const { return type_name_; }
    std::uint32_t element_words() const { return words_; }

    // For the runtime and backends; not needed by users.
    const std::shared_ptr<detail::RuntimeState>& runtime_state() const { return rt_; }
    Buffer* buffer() const { return buffer_.get(); }
    const IteratorRange* iterator() const { return iterator_.get(); }
    std::int64_t offset() const { return offset_; }
    const std::array<std::int64_t, kMaxRank>& strides() const { return strides_; }

protected:
    StreamBase() = default;
    /// Turns this handle into a row-major view of `shape` over the same elements.
    void reshape_view(const Shape& shape, const char* who);
    void domain_view(std::initializer_list<std::int64_t> begin, std::initializer_list<std::int64_t> end);
    void domain_view(const Shape& begin, const Shape& end);
    void stride_view(std::initializer_list<std::int64_t> step);
    void repeat_view(std::int64_t times);
    void extent_view(const char* who);
    /// The same view with elements named `type_name` (Stream::bit_cast).
    void retype_view(std::string type_name, const char* who);
    /// Vectors of `width` components seen as their scalars named `type_name`,
    /// with one more dimension of `width` (Stream::components).
    void components_view(std::uint32_t width, std::string type_name);
    void upload_bytes(const void* src, std::size_t bytes);
    void download_bytes(void* dst, std::size_t bytes) const;
    /// A fresh, densely packed stream of this view's shape and element size.
    StreamBase dense_like() const;

    friend class Runtime;
    std::shared_ptr<detail::RuntimeState> rt_;
    std::shared_ptr<Buffer> buffer_;
    std::shared_ptr<const IteratorRange> iterator_;
    Shape shape_;
    std::int64_t offset_ = 0;
    std::array<std::int64_t, kMaxRank> strides_{};
    std::uint32_t words_ = 0;
    std::string type_name_;
};

/// A typed, shaped stream living on one backend.
template <StreamElement T>
class Stream : public StreamBase {
public:
    using element_type = T;
    Stream() = default;

    /// Copies host data into the stream (Brook's streamRead). `data.size()` must
    /// equal size().
    Stream& upload(std::span<const T> data) {
        check_host_size(data.size(), "upload");
        upload_bytes(data.data(), data.size() * sizeof(T));
        return *this;
    }
    Stream& upload(const std::vector<T>& data) { return upload(std::span<const T>(data)); }

    /// Copies the stream to the host (Brook's streamWrite); waits for pending
    /// kernels that write it.
    std::vector<T> download() const {
        std::vector<T> out(static_cast<std::size_t>(size()));
        download_bytes(out.data(), out.size() * sizeof(T));
        return out;
    }
    void download(std::span<T> out) const {
        check_host_size(out.size(), "download");
        download_bytes(out.data(), out.size() * sizeof(T));
    }

    /// The same elements seen with another shape of the same size (no copy).
    Stream reshape(const Shape& shape) const {
        Stream s = *this;
        s.reshape_view(shape, "reshape");
        return s;
    }

    /// The sub-region [begin, end) in every dimension, as a view of the same
    /// elements (no copy). Usable as kernel input, output or gather argument; a
    /// kernel writing to a domain leaves the rest of the stream untouched.
    Stream domain(std::initializer_list<std::int64_t> begin, std::initializer_list<std::int64_t> end) const {
        Stream s = *this;
        s.domain_view(begin, end);
        return s;
    }
    /// The same, with the corners as shapes (for code that computes them).
    Stream domain(const Shape& begin, const Shape& end) const {
        Stream s = *this;
        s.domain_view(begin, end);
        return s;
    }

    /// Every step[d]-th element in dimension d, as a view (no copy).
    Stream stride(std::initializer_list<std::int64_t> step) const {
        Stream s = *this;
        s.stride_view(step);
        return s;
    }

    /// The whole stream `times` times over, as a new leading dimension: a view
    /// of shape {times, shape...} (no copy; rank at most 4). Read-only: kernels
    /// take it as input or gather argument, not as output.
    Stream repeat(std::int64_t times) const {
        Stream s = *this;
        s.repeat_view(times);
        return s;
    }

    /// The elements from this view's first to its last in memory, as one
    /// contiguous 1D view of the same buffer (no copy). A kernel that binds it
    /// as an Array and indexes element (i, j) at i * strides()[0] + j *
    /// strides()[1] reads the view: BLAS's leading dimension. The extent may
    /// hold elements outside the view (a domain's neighbours), which such a
    /// kernel must leave alone. An empty view gives an empty extent.
    Stream extent() const {
        Stream s = *this;
        s.extent_view("extent");
        return s;
    }

    /// The same elements seen as another element type of the same size (no
    /// copy): `floats.bit_cast<std::uint32_t>()` reads and writes their bits,
    /// a struct of three words is a uint3. Views keep their shape, offset and
    /// strides. Not for iterator streams, whose values are computed.
    template <StreamElement U>
    Stream<U> bit_cast() const {
        static_assert(sizeof(U) == sizeof(T), "rill::Stream::bit_cast: give an element type of the stream's element size");
        Stream<U> s;
        static_cast<StreamBase&>(s) = *this;
        s.retype_view(element_name<U>::get(), "bit_cast");
        return s;
    }

    /// The components of a stream of vectors (float2 .. uint4) as a stream of
    /// their scalars with one more dimension of N (no copy): element
    /// (i..., c) is component c of element (i...). For kernels that take one
    /// component per invocation: 4 invocations then touch the 16 bytes of a
    /// float4 together (ScatterOp's atomics). Views keep their place: a
    /// domain's components are a domain of the components.
    template <class U = T>
        requires requires { typename vector_traits<U>::scalar; }
    Stream<typename vector_traits<U>::scalar> components() const {
        Stream<typename vector_traits<U>::scalar> s;
        static_cast<StreamBase&>(s) = *this;
        s.components_view(vector_traits<U>::width, element_name<typename vector_traits<U>::scalar>::get());
        return s;
    }

private:
    template <StreamElement>
    friend class Stream;

    void check_host_size(std::size_t n, const char* what) const {
        if (static_cast<std::int64_t>(n) != size())
            throw Error(std::string("Stream<") + type_name_ + ">::" + what + ": the host data has " +
                        std::to_string(n) + " elements but the stream has shape " + shape_.str() +
                        " (" + std::to_string(size()) + " elements); pass exactly " +
                        std::to_string(size()) + " elements");
    }
};

struct RuntimeStats {
    std::uint64_t programs_compiled = 0;  // programs built for this runtime (in-memory cache misses)
    std::uint64_t shader_compiles = 0;    // of those, compiled from source (not found in the disk cache)
    std::uint64_t dispatches = 0;
};

class Runtime {
public:
    /// The backend named by $RILL_BACKEND, or the best one that works here.
    /// Each Runtime made this way (or by name) opens a backend of its own: a
    /// device, its queues and caches, tens of milliseconds on a GPU, and
    /// streams that other runtimes cannot use. Copy a Runtime, or take a
    /// stream's with Runtime::of, to share one.
    Runtime();
    /// A named backend ("cpu", "vulkan", "opengl"); throws rill::Error listing
    /// the available ones if the name is unknown or the backend cannot start.
    explicit Runtime(const std::string& backend);

    const BackendInfo& info() const;
    const std::string& backend_name() const { return info().name; }

    template <StreamElement T>
    Stream<T> stream(Shape shape) {
        Stream<T> s;
        init_stream(s, shape, element_words<T>, element_name<T>::get(), BufferContents::Zero);
        return s;
    }
    /// A stream whose elements are undefined until written (a GPU backend
    /// hands back memory a dropped stream used, without zeroing it): for
    /// scratch that kernels write whole before reading. Zeroing a stream costs
    /// a write of all of it (on the H100, 1 GB took 0.46 ms).
    template <StreamElement T>
    Stream<T> scratch(Shape shape) {
        Stream<T> s;
        init_stream(s, shape, element_words<T>, element_name<T>::get(), BufferContents::Undefined);
        return s;
    }
    /// A stream holding `data` (its size must be the shape's element count).
    template <StreamElement T>
    Stream<T> stream(Shape shape, std::span<const T> data) {
        // Not zeroed first: the upload writes every element, or throws.
        Stream<T> s = scratch<T>(shape);
        s.upload(data);
        return s;
    }
    template <StreamElement T>
    Stream<T> stream(Shape shape, const std::vector<T>& data) {
        return stream<T>(shape, std::span<const T>(data));
    }

    /// `count` uint32 words that are zero whenever a kernel call starts: the
    /// counters and flags of single-pass algorithms (the workgroup that
    /// finishes last, a look-back), which save a zero-fill per call (a GPU
    /// transfer and its wait; through OpenGL, an upload from the host). A
    /// kernel that changes a word sets it back to zero before it ends. One
    /// buffer per runtime, shared by every caller (calls that bind it are
    /// ordered, as any calls that write one buffer), grown as asked.
    Stream<std::uint32_t> zeroed_words(std::int64_t count) {
        Stream<std::uint32_t> s;
        init_zeroed_words(s, count);
        return s;
    }

    /// How many zeroed words the runtime holds now (0 before the first
    /// zeroed_words call): zeroed_words(zeroed_words_held()) covers all of
    /// them without growing the buffer, which is what a check that every
    /// call left them zero reads.
    std::int64_t zeroed_words_held() const;

    /// An iterator stream (Brook 3.4): element at position p has the value
    /// start + (end - start) * p / n per component, computed when a kernel reads
    /// it, with no storage. A 1D iterator interpolates every component along its
    /// one dimension; an N-D iterator of an N-vector interpolates component c
    /// along dimension c (dimension order, like indexof and gather indices).
    /// Iterators are inputs only.
    template <StreamElement T>
        requires IrValueType<T>
    Stream<T> iterator(Shape shape, T start, T end) {
        IteratorRange r;
        r.type = ir_type_of<T>::value;
        std::memcpy(r.start, &start, sizeof(T));
        std::memcpy(r.end, &end, sizeof(T));
        Stream<T> s;
        init_iterator(s, shape, element_words<T>, element_name<T>::get(), r);
        return s;
    }

    /// Waits until every kernel call issued so far has finished.
    void finish();

    /// Per-kernel device times (GPU timestamps; host time on the CPU backend),
    /// with a GPU's zero-fills of new streams as "fill" and its copies between
    /// streams as "copy". Off unless turned on here or with RILL_PROFILE=1
    /// (which also prints a summary when the runtime is destroyed).
    /// kernel_times() waits for pending work.
    void set_profiling(bool on) { backend().set_profiling(on); }
    std::vector<KernelTime> kernel_times() { return backend().kernel_times(); }
    void reset_kernel_times() { backend().reset_kernel_times(); }
    RuntimeStats stats() const;

    /// The runtime a stream lives on.
    static Runtime of(const StreamBase& s);

    /// Names of the backends compiled into this build, best first.
    static std::vector<std::string> registered_backends();

    /// How many backends this process has opened: each Runtime made by name or
    /// by default opens one (a device and its queues; costly), copies and
    /// Runtime::of share theirs. For a library's tests that a call opens none.
    static std::uint64_t backends_opened();

    Backend& backend() const;
    const std::shared_ptr<detail::RuntimeState>& state() const { return state_; }

private:
    explicit Runtime(std::shared_ptr<detail::RuntimeState> s) : state_(std::move(s)) {}
    void init_stream(StreamBase& s, Shape shape, std::uint32_t words, std::string type_name, BufferContents contents);
    void init_iterator(StreamBase& s, Shape shape, std::uint32_t words, std::string type_name,
                       const IteratorRange& range);
    void init_zeroed_words(StreamBase& s, std::int64_t count);
    std::shared_ptr<detail::RuntimeState> state_;
};

}  // namespace rill
