#include "group_ops.h"

#include <atomic>
#include <bit>
#include <utility>

#include "rill/core/error.h"
#include "rill/core/op_traits.h"
#include "rill/core/semantics.h"

namespace rill::cpu {

namespace {

bool in_range(const MemoryView& mem, u32 index_bits) {
    const auto i = static_cast<std::int32_t>(index_bits);
    return i >= 0 && i < mem.count;
}

u32* element(const MemoryView& mem, u32 index_bits, std::uint32_t word) {
    return mem.words + static_cast<std::size_t>(static_cast<std::int32_t>(index_bits)) * mem.stride + word;
}

/// One read-modify-write on the bits at `p` of scalar kind `s`; returns the old bits.
template <class Cell>
u32 rmw(Cell& cell, ir::AtomicOp op, Scalar s, u32 v, u32 compare) {
    switch (op) {
        case ir::AtomicOp::Add:
            if (s == Scalar::Float) {
                u32 old = cell.load();
                while (!cell.compare_exchange_weak(old, std::bit_cast<u32>(std::bit_cast<float>(old) + std::bit_cast<float>(v)))) {
                }
                return old;
            }
            return cell.fetch_add(v);
        case ir::AtomicOp::Min: case ir::AtomicOp::Max: {
            const bool is_min = op == ir::AtomicOp::Min;
            u32 old = cell.load();
            for (;;) {
                const bool less = s == Scalar::Int ? static_cast<std::int32_t>(v) < static_cast<std::int32_t>(old) : v < old;
                const bool greater = s == Scalar::Int ? static_cast<std::int32_t>(v) > static_cast<std::int32_t>(old) : v > old;
                if (is_min ? !less : !greater) return old;
                if (cell.compare_exchange_weak(old, v)) return old;
            }
        }
        case ir::AtomicOp::And: return cell.fetch_and(v);
        case ir::AtomicOp::Or: return cell.fetch_or(v);
        case ir::AtomicOp::Xor: return cell.fetch_xor(v);
        case ir::AtomicOp::Exchange: return cell.exchange(v);
        case ir::AtomicOp::CompareExchange: {
            u32 expected = compare;
            cell.compare_exchange_strong(expected, v);
            return expected;
        }
        case ir::AtomicOp::Load: return cell.load();
    }
    RILL_UNREACHABLE("bad atomic op");
}

/// The same interface over a plain word, for shared memory (one thread per block).
struct PlainCell {
    u32& w;
    u32 load() const { return w; }
    bool compare_exchange_weak(u32& expected, u32 desired) { return compare_exchange_strong(expected, desired); }
    bool compare_exchange_strong(u32& expected, u32 desired) {
        if (w == expected) {
            w = desired;
            return true;
        }
        expected = w;
        return false;
    }
    u32 fetch_add(u32 v) { return std::exchange(w, w + v); }
    u32 fetch_and(u32 v) { return std::exchange(w, w & v); }
    u32 fetch_or(u32 v) { return std::exchange(w, w | v); }
    u32 fetch_xor(u32 v) { return std::exchange(w, w ^ v); }
    u32 exchange(u32 v) { return std::exchange(w, v); }
};

template <class T>
u32 bits(T v) {
    if constexpr (std::is_same_v<T, float>) return std::bit_cast<u32>(v);
    else return static_cast<u32>(v);
}
template <class T>
T value(u32 b) {
    if constexpr (std::is_same_v<T, float>) return std::bit_cast<float>(b);
    else return static_cast<T>(b);
}

}  // namespace

void memory_load(const MemoryView& mem, std::uint32_t word, int width, const u32* index, u32* out, int lanes) {
    for (int l = 0; l < lanes; ++l) {
        const bool ok = in_range(mem, index[l]);
        const u32* src = ok ? element(mem, index[l], word) : nullptr;
        for (int c = 0; c < width; ++c) out[c * lanes + l] = ok ? src[c] : 0u;
    }
}

void memory_store(const MemoryView& mem, std::uint32_t word, int width, const u32* index, const u32* value,
                  const u32* mask, int lanes) {
    for (int l = 0; l < lanes; ++l) {
        if (!mask[l] || !in_range(mem, index[l])) continue;
        u32* dst = element(mem, index[l], word);
        for (int c = 0; c < width; ++c) dst[c] = value[c * lanes + l];
    }
}

void memory_atomic(const MemoryView& mem, const ir::Node& n, const u32* index, const u32* value, const u32* compare,
                   const u32* mask, u32* out, int lanes) {
    const auto op = static_cast<ir::AtomicOp>(n.imm[1]);
    for (int l = 0; l < lanes; ++l) {
        out[l] = 0;
        if (!mask[l] || !in_range(mem, index[l])) continue;
        u32& w = *element(mem, index[l], n.imm[0]);
        const u32 v = value ? value[l] : 0u;
        const u32 cmp = compare ? compare[l] : 0u;
        if (mem.shared_between_threads) {
            std::atomic_ref<u32> cell(w);
            out[l] = rmw(cell, op, n.type.scalar, v, cmp);
        } else {
            PlainCell cell{w};
            out[l] = rmw(cell, op, n.type.scalar, v, cmp);
        }
    }
}

void subgroup_op(const ir::Node& n, Type vt, const u32* v, const u32* arg, const u32* mask, u32* out, int lanes,
                 int sg) {
    const auto op = static_cast<ir::SubgroupOp>(n.imm[0]);
    const int width = n.type.width;
    for (int first = 0; first < lanes; first += sg) {
        const int end = std::min(first + sg, lanes);
        int lowest = -1;
        for (int l = first; l < end && lowest < 0; ++l)
            if (mask[l]) lowest = l;
        if (lowest < 0) continue;  // no active invocation in this subgroup
        // The lane a shuffle-like op reads for lane l, or -1 where it is undefined.
        auto source = [&](int l) -> int {
            const auto a = static_cast<std::int64_t>(static_cast<std::int32_t>(arg[l]));
            std::int64_t s = -1;
            switch (op) {
                case ir::SubgroupOp::Broadcast: case ir::SubgroupOp::Shuffle: s = first + a; break;
                case ir::SubgroupOp::ShuffleXor: s = first + ((l - first) ^ a); break;
                case ir::SubgroupOp::ShuffleUp: s = l - a; break;
                case ir::SubgroupOp::ShuffleDown: s = l + a; break;
                default: break;
            }
            return s >= first && s < end && mask[s] ? static_cast<int>(s) : -1;
        };
        switch (op) {
            case ir::SubgroupOp::Elect:
                for (int l = first; l < end; ++l) out[l] = l == lowest ? 1u : 0u;
                break;
            case ir::SubgroupOp::All: case ir::SubgroupOp::Any: {
                const bool all = op == ir::SubgroupOp::All;
                u32 r = all ? 1u : 0u;
                for (int l = first; l < end; ++l)
                    if (mask[l]) r = all ? (r & (v[l] != 0)) : (r | (v[l] != 0));
                for (int l = first; l < end; ++l) out[l] = r;
                break;
            }
            case ir::SubgroupOp::Ballot: {
                u32 words[4] = {0, 0, 0, 0};
                for (int l = first; l < end; ++l)
                    if (mask[l] && v[l]) words[(l - first) / 32] |= 1u << ((l - first) % 32);
                for (int c = 0; c < 4; ++c)
                    for (int l = first; l < end; ++l) out[c * lanes + l] = words[c];
                break;
            }
            case ir::SubgroupOp::BroadcastFirst:
                for (int c = 0; c < width; ++c)
                    for (int l = first; l < end; ++l) out[c * lanes + l] = v[c * lanes + lowest];
                break;
            case ir::SubgroupOp::Broadcast: case ir::SubgroupOp::Shuffle: case ir::SubgroupOp::ShuffleXor:
            case ir::SubgroupOp::ShuffleUp: case ir::SubgroupOp::ShuffleDown:
                for (int l = first; l < end; ++l) {
                    const int s = source(l);
                    for (int c = 0; c < width; ++c) out[c * lanes + l] = s < 0 ? 0u : v[c * lanes + s];
                }
                break;
            case ir::SubgroupOp::Reduce: case ir::SubgroupOp::InclusiveScan: case ir::SubgroupOp::ExclusiveScan: {
                const bool done = ir::visit_elementwise<true>(static_cast<ir::Op>(n.imm[1]), vt.scalar, [&]<ir::Op O, class T>() {
                    if constexpr (std::is_same_v<decltype(sem::binary<O>(T{}, T{})), T>) {
                        for (int c = 0; c < width; ++c) {
                            const u32* vc = v + c * lanes;
                            u32* oc = out + c * lanes;
                            T acc = value<T>(ir::combine_identity_bits(O, vt.scalar));
                            for (int l = first; l < end; ++l) {
                                if (!mask[l]) continue;
                                if (op == ir::SubgroupOp::ExclusiveScan) oc[l] = bits(acc);
                                acc = sem::binary<O>(acc, value<T>(vc[l]));
                                if (op == ir::SubgroupOp::InclusiveScan) oc[l] = bits(acc);
                            }
                            if (op == ir::SubgroupOp::Reduce)
                                for (int l = first; l < end; ++l) oc[l] = bits(acc);
                        }
                    }
                });
                RILL_ASSERT(done, "subgroup reduction of an unsupported op or type");
                break;
            }
        }
    }
}

}  // namespace rill::cpu
