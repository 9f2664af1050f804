#include "rill/core/runtime.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <vector>

#include "rill/core/launch.h"
#include "runtime_state.h"

namespace rill {

namespace {

std::atomic<std::uint64_t> next_serial{1};

std::string names_of(const std::vector<BackendFactory>& fs) {
    std::string s;
    for (const auto& f : fs) s += (s.empty() ? "" : ", ") + f.name;
    return s.empty() ? "(none)" : s;
}

std::shared_ptr<detail::RuntimeState> make_state(std::unique_ptr<Backend> b) {
    auto st = std::make_shared<detail::RuntimeState>();
    st->backend = std::move(b);
    st->serial = next_serial++;
    return st;
}

std::shared_ptr<detail::RuntimeState> open_named(const std::string& name) {
    auto fs = ::rill::registered_backends();
    for (const auto& f : fs) {
        if (f.name != name) continue;
        try {
            return make_state(f.create());
        } catch (const Error& e) {
            throw Error("rill::Runtime: backend '" + name + "' cannot start on this machine: " + e.what() +
                        " (backends in this build: " + names_of(fs) + ")");
        }
    }
    throw Error("rill::Runtime: unknown backend '" + name + "'; this build has: " + names_of(fs) +
                ". Pass one of these names or unset RILL_BACKEND to pick the best available.");
}

}  // namespace

Runtime::Runtime() {
    if (const char* env = std::getenv("RILL_BACKEND"); env && *env) {
        state_ = open_named(env);
        return;
    }
    std::string why;
    for (const auto& f : ::rill::registered_backends()) {
        try {
            state_ = make_state(f.create());
            return;
        } catch (const Error& e) {
            why += "\n  " + f.name + ": " + e.what();
        }
    }
    throw Error("rill::Runtime: no backend can start on this machine:" + why);
}

Runtime::Runtime(const std::string& backend) : state_(open_named(backend)) {}

const BackendInfo& Runtime::info() const { return state_->backend->info(); }
Backend& Runtime::backend() const { return *state_->backend; }
void Runtime::finish() { state_->backend->finish(); }

RuntimeStats Runtime::stats() const {
    return RuntimeStats{state_->programs_compiled.load(), state_->backend->shader_compiles(), state_->dispatches.load()};
}

std::uint64_t Runtime::backends_opened() { return next_serial.load() - 1; }

std::vector<std::string> Runtime::registered_backends() {
    std::vector<std::string> names;
    for (const auto& f : rill::registered_backends()) names.push_back(f.name);
    return names;
}

void Runtime::init_stream(StreamBase& s, Shape shape, std::uint32_t words, std::string type_name, BufferContents contents) {
    if (shape.rank == 0)
        throw Error(std::string(contents == BufferContents::Zero ? "Runtime::stream<" : "Runtime::scratch<") + type_name +
                    ">: give a shape of 1 to 4 dimensions, e.g. {n}");
    s.rt_ = state_;
    s.shape_ = shape;
    s.words_ = words;
    s.type_name_ = std::move(type_name);
    s.strides_ = row_major_strides(shape);
    std::size_t bytes = 0;
    const bool overflows = __builtin_mul_overflow(static_cast<std::size_t>(shape.size()), std::size_t{words} * 4, &bytes);
    const BackendInfo& bi = info();
    if (overflows || bytes > bi.limits.max_buffer_bytes)
        throw Error(bi.name + " backend: a stream of " + (overflows ? "more than 2^64" : std::to_string(bytes)) + " bytes (shape " + shape.str() +
                    ") exceeds the device's limit of " + std::to_string(bi.limits.max_buffer_bytes) +
                    " bytes for one stream; split it into smaller streams");
    // Empty streams still get a (tiny) buffer so that they can be bound like any other.
    s.buffer_ = state_->backend->allocate(Backend::granular(bytes), contents);
    // RILL_SCRATCH_PATTERN=1 (a test knob, docs/TUNING.md): scratch holds all-ones
    // bytes (NaN floats, -1 ints), so that an algorithm that reads scratch it
    // never wrote gives wrong results in the tests instead of what a pooled
    // buffer happened to hold.
    if (contents == BufferContents::Undefined && bytes > 0 && state_->scratch_pattern) {
        const std::vector<unsigned char> ones(bytes, 0xff);
        state_->backend->upload(*s.buffer_, 0, ones.data(), bytes);
    }
}

void Runtime::init_zeroed_words(StreamBase& s, std::int64_t count) {
    if (count < 1) throw Error("Runtime::zeroed_words: count = " + std::to_string(count) + "; ask for 1 word or more");
    std::lock_guard lock(state_->zeroed_mutex);
    if (count > state_->zeroed_count) {
        // Room for more than asked, so that a caller whose needs grow slowly
        // does not leave a trail of buffers; streams of the old one keep it.
        const std::int64_t words = std::max<std::int64_t>(count, std::max<std::int64_t>(4096, 2 * state_->zeroed_count));
        init_stream(s, Shape{words}, 1, element_name<std::uint32_t>::get(), BufferContents::Zero);
        state_->zeroed = s.buffer_;
        state_->zeroed_count = words;
    }
    s.rt_ = state_;
    s.buffer_ = state_->zeroed;
    s.shape_ = Shape{count};
    s.words_ = 1;
    s.type_name_ = element_name<std::uint32_t>::get();
    s.strides_ = row_major_strides(s.shape_);
    s.offset_ = 0;
}

std::int64_t Runtime::zeroed_words_held() const {
    std::lock_guard lock(state_->zeroed_mutex);
    return state_->zeroed_count;
}

void Runtime::init_iterator(StreamBase& s, Shape shape, std::uint32_t words, std::string type_name,
                            const IteratorRange& range) {
    if (shape.rank == 0)
        throw Error("Runtime::iterator<" + type_name + ">: give a shape of 1 to 4 dimensions, e.g. {n}");
    if (shape.rank > 1 && range.type.width != shape.rank)
        throw Error("Runtime::iterator<" + type_name + ">: a " + std::to_string(shape.rank) +
                    "-D iterator needs a vector of " + std::to_string(shape.rank) +
                    " components (one per dimension), or use a 1-D shape");
    s.rt_ = state_;
    s.shape_ = shape;
    s.words_ = words;
    s.type_name_ = std::move(type_name);
    s.strides_ = row_major_strides(shape);
    s.iterator_ = std::make_shared<const IteratorRange>(range);
}

Runtime Runtime::of(const StreamBase& s) {
    if (!s.runtime_state())
        throw Error("Runtime::of: the stream was default-constructed; create it with Runtime::stream");
    return Runtime(s.runtime_state());
}

void StreamBase::reshape_view(const Shape& shape, const char* who) {
    if (shape.size() != shape_.size() || shape.rank == 0)
        throw Error(std::string("Stream::") + who + ": shape " + shape.str() + " has " + std::to_string(shape.size()) +
                    " elements but the stream has shape " + shape_.str() + " (" + std::to_string(shape_.size()) +
                    "); the element count must stay the same");
    std::int64_t stride = 1;
    for (int d = shape_.rank - 1; d >= 0; --d) {
        if (shape_.dims[d] != 1 && strides_[d] != stride)
            throw Error(std::string("Stream::") + who + ": the stream is a strided view; copy it into a new "
                        "stream with a kernel before reshaping it");
        stride *= shape_.dims[d];
    }
    shape_ = shape;
    strides_ = row_major_strides(shape);
}

namespace detail {

void dump_file(const std::string& file, const std::string& text) {
    const char* dir = std::getenv("RILL_DUMP");
    if (!dir || !*dir) return;
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    std::ofstream out(std::filesystem::path(dir) / file);
    if (!out) throw Error("RILL_DUMP: cannot write '" + file + "' into '" + std::string(dir) +
                          "'; make the directory writable or unset RILL_DUMP");
    out << text;
}

}  // namespace detail

}  // namespace rill
