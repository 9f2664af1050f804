// Stream views (domain, stride) and host transfers of views that are not
// densely packed. A view is (buffer, offset, shape, strides); kernels read and
// write views directly. Uploads and downloads of a strided view go through a
// dense temporary and a copy kernel built here as IR, so every backend gets
// them without code of its own.
#include <map>
#include <mutex>

#include "rill/core/launch.h"
#include "rill/core/passes.h"
#include "runtime_state.h"

namespace rill {

namespace {

std::array<std::int64_t, kMaxRank> to_array(std::initializer_list<std::int64_t> v) {
    std::array<std::int64_t, kMaxRank> a{};
    std::size_t i = 0;
    for (std::int64_t x : v)
        if (i < a.size()) a[i++] = x;
    return a;
}

/// A kernel that copies each element of one stream into another, `words` 32-bit
/// words at a time (the element type does not matter for a copy).
std::shared_ptr<detail::KernelState> copy_kernel(std::uint32_t words) {
    static std::mutex mutex;
    static std::map<std::uint32_t, std::shared_ptr<detail::KernelState>> cache;
    std::lock_guard lock(mutex);
    auto& slot = cache[words];
    if (slot) return slot;
    ir::Kernel k;
    k.name = "rill_copy_view";
    for (const char* name : {"src", "dst"}) {
        ir::Param p;
        p.name = name;
        p.type_name = std::to_string(words * 4) + "-byte element";
        p.kind = std::string(name) == "src" ? ir::ParamKind::Input : ir::ParamKind::Output;
        p.words = words;
        k.params.push_back(p);
    }
    ir::Builder b(k);
    k.body = b.new_block();
    k.epilogue = b.new_block();
    b.set_current_block(k.epilogue);
    for (std::uint32_t w = 0; w < words; ++w)
        b.append(ir::Stmt{ir::StmtKind::Store, 1, b.input(0, w, Type{Scalar::Uint, 1}), w});
    slot = std::make_shared<detail::KernelState>(std::make_shared<const ir::Kernel>(ir::lower(k)));
    return slot;
}

}  // namespace

bool StreamBase::contiguous() const {
    std::int64_t stride = 1;
    for (int d = shape_.rank - 1; d >= 0; --d) {
        if (shape_.dims[d] != 1 && strides_[d] != stride) return false;
        stride *= shape_.dims[d];
    }
    return true;
}

void StreamBase::domain_view(std::initializer_list<std::int64_t> begin, std::initializer_list<std::int64_t> end) {
    if (static_cast<int>(begin.size()) != shape_.rank || static_cast<int>(end.size()) != shape_.rank)
        throw Error("Stream::domain: give begin and end with one value per dimension (the stream has shape " +
                    shape_.str() + ")");
    Shape b, e;
    b.rank = e.rank = shape_.rank;
    b.dims = to_array(begin);
    e.dims = to_array(end);
    domain_view(b, e);
}

void StreamBase::domain_view(const Shape& begin, const Shape& end) {
    if (begin.rank != shape_.rank || end.rank != shape_.rank)
        throw Error("Stream::domain: give begin and end with one value per dimension (the stream has shape " +
                    shape_.str() + ")");
    const auto& b = begin.dims;
    const auto& e = end.dims;
    for (int d = 0; d < shape_.rank; ++d)
        if (b[d] < 0 || e[d] < b[d] || e[d] > shape_.dims[d])
            throw Error("Stream::domain: [" + std::to_string(b[d]) + ", " + std::to_string(e[d]) + ") in dimension " +
                        std::to_string(d) + " is not inside the stream's shape " + shape_.str() +
                        "; use 0 <= begin <= end <= size");
    for (int d = 0; d < shape_.rank; ++d) {
        offset_ += b[d] * strides_[d];
        shape_.dims[d] = e[d] - b[d];
    }
}

void StreamBase::stride_view(std::initializer_list<std::int64_t> step) {
    if (static_cast<int>(step.size()) != shape_.rank)
        throw Error("Stream::stride: give one step per dimension (the stream has shape " + shape_.str() + ")");
    const auto s = to_array(step);
    for (int d = 0; d < shape_.rank; ++d) {
        if (s[d] < 1) throw Error("Stream::stride: steps must be >= 1, got " + std::to_string(s[d]));
        shape_.dims[d] = (shape_.dims[d] + s[d] - 1) / s[d];
        strides_[d] *= s[d];
    }
}

void StreamBase::repeat_view(std::int64_t times) {
    if (iterator_) throw Error("Stream::repeat: iterator streams cannot be repeated; repeat a stream with storage");
    if (shape_.rank >= kMaxRank)
        throw Error("Stream::repeat: the stream has rank " + std::to_string(shape_.rank) +
                    " and a repeat adds a dimension; streams have at most 4 (reshape it first)");
    if (times < 1) throw Error("Stream::repeat: repeat at least once, got " + std::to_string(times));
    std::int64_t count = 0;
    if (__builtin_mul_overflow(times, shape_.size(), &count))
        throw Error("Stream::repeat: " + std::to_string(times) + " repetitions of shape " + shape_.str() +
                    " have more elements than a 64-bit count holds; repeat fewer times");
    for (int d = shape_.rank; d > 0; --d) {
        shape_.dims[d] = shape_.dims[d - 1];
        strides_[d] = strides_[d - 1];
    }
    shape_.dims[0] = times;
    strides_[0] = 0;  // every repetition reads the same elements
    ++shape_.rank;
}

void StreamBase::extent_view(const char* who) {
    if (iterator_) throw Error(std::string("Stream::") + who + ": an iterator stream has no storage");
    std::int64_t last = 0;
    for (int d = 0; d < shape_.rank; ++d) last += (shape_.dims[d] - 1) * strides_[d];
    const std::int64_t count = empty() ? 0 : last + 1;
    shape_ = Shape{count};
    strides_ = {1, 0, 0, 0};
    if (count == 0) offset_ = 0;
}

void StreamBase::retype_view(std::string type_name, const char* who) {
    if (iterator_)
        throw Error(std::string("Stream::") + who + ": an iterator stream of " + type_name_ +
                    " computes its values and has no bits to reinterpret; copy it into a stream with a kernel first");
    type_name_ = std::move(type_name);
}

void StreamBase::components_view(std::uint32_t width, std::string type_name) {
    if (iterator_)
        throw Error("Stream::components: an iterator stream of " + type_name_ +
                    " computes its values and has no components in memory; copy it into a stream with a kernel first");
    if (shape_.rank >= kMaxRank)
        throw Error("Stream::components: the stream has rank " + std::to_string(shape_.rank) +
                    " and its components add a dimension; streams have at most " + std::to_string(kMaxRank) +
                    " (reshape it first)");
    for (int d = 0; d < shape_.rank; ++d) strides_[d] *= width;
    offset_ *= width;
    shape_.dims[shape_.rank] = width;
    strides_[shape_.rank] = 1;
    ++shape_.rank;
    words_ /= width;
    type_name_ = std::move(type_name);
}

void StreamBase::upload_bytes(const void* src, std::size_t bytes) {
    if (!rt_) throw Error("Stream::upload: the stream was default-constructed; create it with Runtime::stream");
    for (int d = 0; d < shape_.rank && !empty(); ++d)
        if (shape_.dims[d] > 1 && strides_[d] == 0)
            throw Error("Stream::upload: this is a repeat view (its elements appear several times); upload into the "
                        "stream it repeats");
    if (iterator_) throw Error("Stream::upload: iterator streams compute their values and cannot be written");
    if (!bytes) return;
    if (contiguous()) {
        rt_->backend->upload(*buffer_, static_cast<std::size_t>(offset_) * words_ * 4, src, bytes);
        return;
    }
    // A strided view: upload densely, then copy into the view on the device.
    StreamBase dense = dense_like();
    dense.upload_bytes(src, bytes);
    const detail::LaunchArg args[] = {{&dense, nullptr, 0}, {this, nullptr, 0}};
    detail::launch(*copy_kernel(words_), args);
}

void StreamBase::download_bytes(void* dst, std::size_t bytes) const {
    if (!rt_) throw Error("Stream::download: the stream was default-constructed; create it with Runtime::stream");
    if (iterator_)
        throw Error("Stream::download: an iterator stream has no storage; copy it into a stream with a kernel first");
    if (!bytes) return;
    if (contiguous()) {
        rt_->backend->download(*buffer_, static_cast<std::size_t>(offset_) * words_ * 4, dst, bytes);
        return;
    }
    StreamBase dense = dense_like();
    const detail::LaunchArg args[] = {{this, nullptr, 0}, {&dense, nullptr, 0}};
    detail::launch(*copy_kernel(words_), args);
    dense.download_bytes(dst, bytes);
}

namespace detail {
void copy_stream(const StreamBase& src, const StreamBase& dst) {
    const detail::LaunchArg args[] = {{&src, nullptr, 0}, {&dst, nullptr, 0}};
    detail::launch(*copy_kernel(src.element_words()), args);
}
}  // namespace detail

StreamBase StreamBase::dense_like() const {
    StreamBase s;
    s.rt_ = rt_;
    s.shape_ = shape_;
    s.words_ = words_;
    s.type_name_ = type_name_;
    s.strides_ = row_major_strides(shape_);
    const auto n = static_cast<std::size_t>(shape_.size()) * words_ * 4;
    s.buffer_ = rt_->backend->allocate(Backend::granular(n), BufferContents::Undefined);  // written whole by the upload or the copy
    return s;
}

}  // namespace rill
