// What the backends share about keeping released stream buffers for reuse: the
// size classes, and the pool itself with its rule for who stays when it is full.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <optional>

namespace rill {

/// The capacity a pooled stream buffer of `bytes` gets: powers of two from 256
/// bytes to 1 KiB, then four classes per doubling (at most 20% unused), so
/// that a buffer released by one call fits the next call's request of about
/// the same size.
inline std::size_t pool_size_class(std::size_t bytes) {
    std::size_t octave = 256;
    while (octave < bytes) octave *= 2;
    if (octave <= 1024) return octave;
    const std::size_t step = octave / 8;  // octave/2 < bytes <= octave, in eighths of octave
    return (bytes + step - 1) / step * step;
}

/// Released stream buffers (a Vulkan buffer with its memory, a GL buffer name, a
/// host block: `Handle`) kept for later streams of the same size class, up to a
/// bound in bytes. Not thread-safe: the backend's lock guards it.
///
/// When a released buffer does not fit, pooled buffers that no request has
/// taken for `stale_after` requests make room for it, oldest first; if they are
/// not enough, the released buffer is freed and the pool keeps what it has. The
/// stale rule is for a program that moves on to other work: without it the
/// buffers of an earlier phase, once they fill the pool, stay there for good and
/// every buffer of the later phases comes fresh from the driver on each call
/// (which on NVIDIA's drivers costs an allocation and a first touch, and made a
/// radix sort's kernels 2.2x slower on an H100). No benchmark shows it yet: the
/// subdivided bunny's BVH builds after 1920x1080 rays took the same with and
/// without it (H100, 2026-12-06, docs/PERFORMANCE.md#ray-tracing). Evicting the
/// least recently released buffer instead, whatever its age, made a working set
/// a little larger than the pool miss on every buffer (40 allocations a repeat
/// against 1 through lavapipe), each release evicting the next one wanted.
/// RILL_POOL_STALE_REQUESTS sets `stale_after` (0: never evict; docs/TUNING.md).
template <class Handle>
class BufferPool {
public:
    static constexpr std::uint64_t kStaleRequests = 128;

    explicit BufferPool(std::size_t limit = 0, std::uint64_t stale_after = stale_requests_from_env())
        : limit_(limit), stale_after_(stale_after) {}
    BufferPool(const BufferPool&) = delete;
    BufferPool& operator=(const BufferPool&) = delete;

    /// A pooled buffer of exactly `capacity` (a size class), the longest pooled
    /// first, or nothing. Every call counts as a request, hit or miss.
    std::optional<Handle> take(std::size_t capacity) {
        ++requests_;
        const auto it = by_capacity_.find(capacity);
        if (it == by_capacity_.end()) return std::nullopt;
        const Handle h = it->second.handle;
        erase(it);
        return h;
    }

    /// Keeps a released buffer whose commands have all run, after freeing stale
    /// buffers to make room where needed; or frees it through `free(Handle)`.
    template <class Free>
    void give(Handle h, std::size_t capacity, Free&& free) {
        if (capacity > limit_) {
            free(h);
            return;
        }
        while (bytes_ + capacity > limit_ && !by_age_.empty() && stale_after_ > 0) {
            const auto oldest = by_age_.begin()->second;
            if (requests_ - oldest->second.pooled_at < stale_after_) break;
            const Handle victim = oldest->second.handle;
            erase(oldest);
            free(victim);
        }
        if (bytes_ + capacity > limit_) {
            free(h);
            return;
        }
        const auto it = by_capacity_.emplace(capacity, Entry{h, requests_, next_order_});
        by_age_.emplace(next_order_++, it);
        bytes_ += capacity;
    }

    /// Frees every pooled buffer through `free(Handle)`.
    template <class Free>
    void drain(Free&& free) {
        for (const auto& [capacity, e] : by_capacity_) free(e.handle);
        by_capacity_.clear();
        by_age_.clear();
        bytes_ = 0;
    }

    bool empty() const { return by_capacity_.empty(); }
    std::size_t size() const { return by_capacity_.size(); }
    std::size_t bytes() const { return bytes_; }
    std::size_t limit() const { return limit_; }
    /// A new bound; buffers beyond it leave as later releases need room.
    void set_limit(std::size_t limit) { limit_ = limit; }

    static std::uint64_t stale_requests_from_env() {
        const char* v = std::getenv("RILL_POOL_STALE_REQUESTS");
        return v && *v ? std::strtoull(v, nullptr, 10) : kStaleRequests;
    }

private:
    struct Entry {
        Handle handle;
        std::uint64_t pooled_at;  // requests_ when it joined the pool
        std::uint64_t order;      // its key in by_age_
    };
    using ByCapacity = std::multimap<std::size_t, Entry>;

    void erase(typename ByCapacity::iterator it) {
        bytes_ -= it->first;
        by_age_.erase(it->second.order);
        by_capacity_.erase(it);
    }

    ByCapacity by_capacity_;
    std::map<std::uint64_t, typename ByCapacity::iterator> by_age_;  // oldest first
    std::size_t limit_ = 0, bytes_ = 0;
    std::uint64_t requests_ = 0, next_order_ = 0;
    std::uint64_t stale_after_;
};

}  // namespace rill
