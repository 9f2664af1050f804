#include "group_ops.h"

#include <algorithm>

#include "native_abi.h"
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

namespace {
/// Element c of lane l's vector k: its index, or -1 outside the stream.
std::int64_t vector_element(const MemoryView& mem, int width, u32 k_bits, int c) {
    const std::int64_t e = std::int64_t{static_cast<std::int32_t>(k_bits)} * width + c;
    return e >= 0 && e < mem.count ? e : -1;
}
}  // namespace

void memory_load_vector(const MemoryView& mem, int width, const u32* k, u32* out, int lanes) {
    for (int l = 0; l < lanes; ++l)
        for (int c = 0; c < width; ++c) {
            const std::int64_t e = vector_element(mem, width, k[l], c);
            out[c * lanes + l] = e >= 0 ? mem.words[e] : 0u;
        }
}

void memory_store_vector(const MemoryView& mem, int width, const u32* k, const u32* value, const u32* mask, int lanes) {
    for (int l = 0; l < lanes; ++l) {
        if (!mask[l]) continue;
        for (int c = 0; c < width; ++c) {
            const std::int64_t e = vector_element(mem, width, k[l], c);
            if (e >= 0) mem.words[e] = value[c * lanes + l];
        }
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
        out[l] = mem.shared_between_threads ? native::atomic_global(w, op, n.type.scalar, v, cmp)
                                            : native::atomic_shared(w, op, n.type.scalar, v, cmp);
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
            case ir::SubgroupOp::Match:
                for (int l = first; l < end; ++l) {
                    u32 words[4] = {0, 0, 0, 0};
                    for (int m = first; m < end; ++m)
                        if (mask[m] && v[m] == v[l]) words[(m - first) / 32] |= 1u << ((m - first) % 32);
                    for (int c = 0; c < 4; ++c) out[c * lanes + l] = words[c];
                }
                break;
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
                            T acc = native::from_bits<T>(ir::combine_identity_bits(O, vt.scalar));
                            for (int l = first; l < end; ++l) {
                                if (!mask[l]) continue;
                                if (op == ir::SubgroupOp::ExclusiveScan) oc[l] = native::to_bits(acc);
                                acc = sem::binary<O>(acc, native::from_bits<T>(vc[l]));
                                if (op == ir::SubgroupOp::InclusiveScan) oc[l] = native::to_bits(acc);
                            }
                            if (op == ir::SubgroupOp::Reduce)
                                for (int l = first; l < end; ++l) oc[l] = native::to_bits(acc);
                        }
                    }
                });
                RILL_ASSERT(done, "subgroup reduction of an unsupported op or type");
                break;
            }
        }
    }
}

std::string barrier_divergence(const ir::Kernel& k, std::int64_t group) {
    return "kernel '" + k.name + "': barrier() was reached by only some invocations of workgroup " +
           std::to_string(group) + " (it is inside an If or a loop whose condition differs between invocations, or "
           "follows a Return that some took); every invocation of a workgroup must reach each barrier(). GPUs hang "
           "or misbehave on this; move the barrier out of the divergent code";
}

}  // namespace rill::cpu
