#include "executor.h"

#include <tbb/cache_aligned_allocator.h>
#include <tbb/enumerable_thread_specific.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <atomic>
#include <cstring>

#include "cpu_buffer.h"
#include "eval_node.h"
#include "group_ops.h"
#include "rill/core/error.h"
#include "workgroup_order.h"

namespace rill::cpu {

namespace {

using u32 = std::uint32_t;

std::atomic<std::uint64_t> g_dispatch_serial{1};

// Tight loops over lanes, written with restrict pointers so that they vectorize.
void set_valid(u32* __restrict m, int lanes, int count) {
    if (count == lanes) {
        std::memset(m, 0xff, sizeof(u32) * lanes);
        return;
    }
    for (int l = 0; l < lanes; ++l) m[l] = l < count ? ~0u : 0u;
}

void blend(u32* __restrict dst, const u32* __restrict src, const u32* __restrict m, int lanes, int width) {
    for (int c = 0; c < width; ++c) {
        u32* __restrict d = dst + c * lanes;
        const u32* __restrict v = src + c * lanes;
        for (int l = 0; l < lanes; ++l) d[l] = (v[l] & m[l]) | (d[l] & ~m[l]);
    }
}

void split_mask(const u32* __restrict m, const u32* __restrict cond, u32* __restrict t, u32* __restrict e, int lanes) {
    for (int l = 0; l < lanes; ++l) {
        const u32 c = 0u - static_cast<u32>(cond[l] != 0);
        t[l] = m[l] & c;
        e[l] = m[l] & ~c;
    }
}

void merge_masks(u32* __restrict m, const u32* __restrict a, const u32* __restrict b, int lanes) {
    for (int l = 0; l < lanes; ++l) m[l] = a[l] | b[l];
}

bool all_set(const u32* __restrict m, int lanes) {
    u32 acc = ~0u;
    for (int l = 0; l < lanes; ++l) acc &= m[l];
    return acc == ~0u;
}

/// Loop bookkeeping: lanes that left through Break or Continue.
struct LoopMasks {
    u32* broken;
    u32* continued;
};

// Every buffer a thread writes per block is cache-line aligned and padded:
// sharing a line with what another thread reads (the dispatch, a stream's
// header) made two threads slower than one.
template <class T>
using ThreadVector = std::vector<T, tbb::cache_aligned_allocator<T>>;

/// Per-thread working memory, reused across blocks and dispatches.
struct Scratch {
    ThreadVector<u32> words;              // node and variable columns
    ThreadVector<std::uint8_t> computed;  // Lane-level memo flags, per block
    ThreadVector<u32> masks;              // mask stack: (depth * 4 + k) * lanes
    ThreadVector<std::int64_t> positions; // domain position per dim per lane
    ThreadVector<std::int64_t> addresses; // element index per stream param per lane
    ThreadVector<std::uint8_t> address_ready;
    ThreadVector<u32> shared;             // a group kernel's shared arrays
    ThreadVector<LoopMasks> loops;        // enclosing loops, innermost last
    ThreadVector<u32*> cols;              // where each node's column lives this block
    ThreadVector<ir::ExprId> redirected;  // nodes whose column points into a stream
    ThreadVector<std::uint8_t> direct_ok; // param can be read/written in place
    ThreadVector<u32*> bases;             // first word of each stream param's buffer
    ThreadVector<std::uint8_t> streaming; // node computed straight into a large output
    std::uint64_t dispatch = 0;           // dispatch whose Uniform nodes are in `words`
};

tbb::enumerable_thread_specific<Scratch>& scratch_pool() {
    static tbb::enumerable_thread_specific<Scratch> pool;
    return pool;
}

class BlockRunner final : public NodeContext {
public:
    BlockRunner(const CpuProgram& p, const Dispatch& d, Scratch& s, std::uint64_t serial)
        : p_(p), k_(p.kernel()), d_(d), s_(s), lanes_(p.lanes()), loops_(s.loops), cols_(s.cols),
          redirected_(s.redirected), direct_ok_(s.direct_ok), bases_(s.bases),
          tape_(p.tape()) {
        loops_.clear();
        redirected_.clear();
        const std::size_t nparams = k_.params.size();
        if (s_.words.size() < p_.scratch_words()) s_.words.resize(p_.scratch_words(), 0u);
        s_.computed.resize(k_.nodes.size());
        s_.masks.resize(static_cast<std::size_t>(p_.max_depth() * 4 + 8) * lanes_);
        s_.positions.resize(static_cast<std::size_t>(kMaxRank) * lanes_);
        s_.addresses.resize(nparams * lanes_);
        s_.address_ready.assign(nparams, 0);
        if (s_.shared.size() < p_.shared_words()) s_.shared.resize(p_.shared_words(), 0u);
        cols_.resize(k_.nodes.size());
        s_.streaming.assign(k_.nodes.size(), 0);
        for (ir::ExprId id = 0; id < k_.nodes.size(); ++id) cols_[id] = s_.words.data() + p_.node_offset(id);
        // Inputs may be read in place only from buffers this call does not write.
        direct_ok_.assign(nparams, 0);
        bases_.assign(nparams, nullptr);
        for (std::size_t i = 0; i < nparams; ++i) {
            if (d_.streams[i].buffer) bases_[i] = static_cast<CpuBuffer*>(d_.streams[i].buffer)->words();
            if (k_.params[i].kind == ir::ParamKind::Uniform || !d_.streams[i].buffer) continue;
            bool written = false;
            for (std::size_t j = 0; j < nparams; ++j)
                written = written || (k_.params[j].kind == ir::ParamKind::Output && d_.streams[j].buffer == d_.streams[i].buffer);
            direct_ok_[i] = d_.streams[i].linear && k_.params[i].words == 1 && (!written || k_.params[i].kind == ir::ParamKind::Output);
        }
        if (tape_) set_valid(mask(0), lanes_, lanes_);  // a tape's stores cover every valid lane
        if (s_.dispatch != serial) {
            // Constants and uniforms: once per task, broadcast over all lanes.
            for (ir::ExprId id : p_.uniform_nodes()) eval_node(*this, k_, id, lanes_);
            s_.dispatch = serial;
        }
    }

    void run_block(std::int64_t start, int count) {
        start_ = start;
        count_ = count;
        for (ir::ExprId id : redirected_) {
            cols_[id] = s_.words.data() + p_.node_offset(id);
            s_.streaming[id] = 0;
        }
        redirected_.clear();
        positions_ready_ = false;
        std::fill(s_.address_ready.begin(), s_.address_ready.end(), 0);
        if (tape_) {
            run_tape();
            return;
        }
        // Only Lane-level nodes ever set their flag.
        std::memset(s_.computed.data(), 0, s_.computed.size());
        u32* m = mask(0);
        set_valid(m, lanes_, count);
        depth_ = 1;
        run(k_.body, m);
        // The epilogue stores outputs for every lane, returned or not.
        u32* all = mask(depth_++);
        set_valid(all, lanes_, count);
        run(k_.epilogue, all);
    }

    // --- NodeContext ---------------------------------------------------------
    u32* column(ir::ExprId id) override { return cols_[id]; }
    const std::vector<u32>& uniforms() const override { return d_.uniforms; }
    int lanes() const override { return lanes_; }

    void load_input(ir::ExprId id) override {
        const ir::Node& n = k_.node(id);
        const StreamBinding& b = d_.streams[n.aux];
        u32* out = column(id);
        const int w = n.type.width;
        if (b.iterator) {
            iterator_values(b, n, out);
            return;
        }
        const u32* mem = bases_[n.aux];
        const std::uint32_t words = k_.params[n.aux].words;
        if (direct_ok_[n.aux] && count_ == lanes_) {
            // A full block of a dense scalar stream: read it where it lies.
            cols_[id] = const_cast<u32*>(mem) + static_cast<std::size_t>(b.offset + start_);
            redirected_.push_back(id);
            return;
        }
        if (b.linear) {
            const u32* src = mem + static_cast<std::size_t>(b.offset + start_) * words + n.imm[0];
            if (w == 1 && words == 1) {
                std::memcpy(out, src, sizeof(u32) * count_);
            } else {
                for (int c = 0; c < w; ++c)
                    for (int l = 0; l < count_; ++l) out[c * lanes_ + l] = src[static_cast<std::size_t>(l) * words + c];
            }
            return;
        }
        const std::int64_t* addr = addresses(n.aux);
        for (int c = 0; c < w; ++c)
            for (int l = 0; l < count_; ++l)
                out[c * lanes_ + l] = mem[static_cast<std::size_t>(addr[l]) * words + n.imm[0] + c];
    }

    void load_gather(ir::ExprId id) override {
        const ir::Node& n = k_.node(id);
        const StreamBinding& b = d_.streams[n.aux];
        const std::uint32_t words = k_.params[n.aux].words;
        const u32* idx = column(n.args[0]);
        const int rank = b.shape.rank;
        u32* out = column(id);
        const u32* mem = bases_[n.aux];
        const int w = n.type.width;
        for (int l = 0; l < lanes_; ++l) {
            std::int64_t e = b.offset;
            for (int d = 0; d < rank; ++d) {
                std::int64_t i = static_cast<std::int32_t>(idx[d * lanes_ + l]);
                i = std::clamp<std::int64_t>(i, 0, b.shape.dims[d] - 1);  // the edge-clamp rule
                e += i * b.strides[d];
            }
            const u32* src = mem + static_cast<std::size_t>(e) * words + n.imm[0];
            for (int c = 0; c < w; ++c) out[c * lanes_ + l] = src[c];
        }
    }

    void group_value(ir::ExprId id) override {
        const ir::Node& n = k_.node(id);
        u32* out = column(id);
        const std::int64_t wg = k_.workgroup_size ? k_.workgroup_size : lanes_;
        const int sg = p_.subgroup_size();
        for (int l = 0; l < lanes_; ++l) {
            std::int64_t v = 0;
            switch (n.op) {
                case ir::Op::LocalId: v = l; break;
                case ir::Op::GroupId: v = start_ / wg; break;
                case ir::Op::NumGroups: v = d_.domain.size() / wg; break;
                case ir::Op::ArraySize: v = d_.streams[n.aux].shape.size(); break;
                case ir::Op::SubgroupSize: v = sg; break;
                case ir::Op::SubgroupInvocation: v = l % sg; break;
                default: RILL_UNREACHABLE("not a group value");
            }
            out[l] = static_cast<u32>(v);
        }
    }

    void index_of(ir::ExprId id) override {
        const ir::Node& n = k_.node(id);
        const StreamBinding& b = d_.streams[n.aux];
        const int d = static_cast<int>(n.imm[0]);
        const std::int64_t* pos = positions() + static_cast<std::size_t>(d) * lanes_;
        u32* out = column(id);
        for (int l = 0; l < count_; ++l)
            out[l] = static_cast<u32>(pos[l] * b.resize_mul[d] / b.resize_div[d]);
    }

private:
    u32* mask(int depth) { return s_.masks.data() + static_cast<std::size_t>(depth) * lanes_; }


    /// Domain position of each lane, per dimension (row-major unflattening).
    /// Lanes are consecutive elements: the first lane's position takes
    /// divisions, each next one counts on from it (a 64-bit division per lane
    /// and dimension made element kernels over resized streams 10x slower).
    const std::int64_t* positions() {
        if (!positions_ready_) {
            const Shape& dom = d_.domain;
            std::int64_t p[kMaxRank] = {};
            std::int64_t i = start_;
            for (int d = dom.rank - 1; d >= 0; --d) {
                p[d] = i % dom.dims[d];
                i /= dom.dims[d];
            }
            for (int l = 0; l < count_; ++l) {
                for (int d = 0; d < dom.rank; ++d) s_.positions[static_cast<std::size_t>(d) * lanes_ + l] = p[d];
                for (int d = dom.rank - 1; d >= 0 && ++p[d] == dom.dims[d]; --d) p[d] = 0;
            }
            positions_ready_ = true;
        }
        return s_.positions.data();
    }

    /// Element index of each lane's element in stream param `p` (after resize).
    const std::int64_t* addresses(std::uint16_t p) {
        std::int64_t* a = s_.addresses.data() + static_cast<std::size_t>(p) * lanes_;
        if (s_.address_ready[p]) return a;
        const StreamBinding& b = d_.streams[p];
        if (b.linear) {
            for (int l = 0; l < count_; ++l) a[l] = b.offset + start_ + l;
        } else {
            // Dimension by dimension; a stride or none needs no division, a
            // dimension of one element is always at 0.
            const std::int64_t* pos = positions();
            for (int l = 0; l < count_; ++l) a[l] = b.offset;
            for (int d = 0; d < b.shape.rank; ++d) {
                if (b.shape.dims[d] == 1) continue;
                const std::int64_t* q = pos + static_cast<std::size_t>(d) * lanes_;
                const std::int64_t div = b.resize_div[d];
                if (div == 1)
                    for (int l = 0; l < count_; ++l) a[l] += q[l] * (b.resize_mul[d] * b.strides[d]);
                else
                    for (int l = 0; l < count_; ++l) a[l] += q[l] / div * b.strides[d];
            }
        }
        s_.address_ready[p] = 1;
        return a;
    }

    void iterator_values(const StreamBinding& b, const ir::Node& n, u32* out) {
        const IteratorRange& r = *b.iterator;
        const std::int64_t* pos = positions();
        for (int c = 0; c < n.type.width; ++c) {
            const int d = b.shape.rank == 1 ? 0 : c;
            const double extent = static_cast<double>(b.shape.dims[d]);
            for (int l = 0; l < count_; ++l) {
                const std::int64_t p = pos[static_cast<std::size_t>(d) * lanes_ + l] * b.resize_mul[d] / b.resize_div[d];
                u32 v;
                if (r.type.scalar == Scalar::Float) {
                    const float s = std::bit_cast<float>(r.start[c]), e = std::bit_cast<float>(r.end[c]);
                    v = std::bit_cast<u32>(s + (e - s) * static_cast<float>(static_cast<double>(p) / extent));
                } else if (r.type.scalar == Scalar::Int) {
                    const std::int64_t s = static_cast<std::int32_t>(r.start[c]), e = static_cast<std::int32_t>(r.end[c]);
                    v = static_cast<u32>(s + (e - s) * p / b.shape.dims[d]);
                } else {
                    const std::int64_t s = r.start[c], e = r.end[c];
                    v = static_cast<u32>(s + (e - s) * p / b.shape.dims[d]);
                }
                out[c * lanes_ + l] = v;
            }
        }
    }

    bool any(const u32* m) const {
        u32 acc = 0;
        for (int l = 0; l < lanes_; ++l) acc |= m[l];
        return acc != 0;
    }

    void evaluate(ir::StmtId s) {
        for (ir::ExprId id : p_.plan(s)) {
            if (p_.level(id) == Level::Lane) {
                if (s_.computed[id]) continue;
                s_.computed[id] = 1;
            }
            eval_node(*this, k_, id, lanes_);
        }
    }

    /// Runs block `b` for the lanes in `m`; lanes that Break, Continue or Return
    /// are cleared from `m` (and recorded in the enclosing loop's masks).
    void run(ir::BlockId b, u32* m) {
        for (ir::StmtId sid : k_.block(b)) {
            const ir::Stmt& st = k_.stmt(sid);
            switch (st.kind) {
                case ir::StmtKind::Nop:
                    break;
                case ir::StmtKind::Def: {
                    const ir::Node& n = k_.node(st.a);
                    if (n.op == ir::Op::ReadVar) {
                        std::memcpy(column(st.a), s_.words.data() + p_.var_offset(n.aux),
                                    sizeof(u32) * n.type.width * lanes_);
                    } else {
                        evaluate(sid);
                        in_place(st.a, m);
                    }
                    break;
                }
                case ir::StmtKind::ArrayStore: case ir::StmtKind::SharedStore: {
                    evaluate(sid);
                    const MemoryView mem = memory(st.kind == ir::StmtKind::SharedStore, st.a);
                    memory_store(mem, st.d, k_.node(st.b).type.width, column(st.c), column(st.b), m, lanes_);
                    break;
                }
                case ir::StmtKind::ArrayStoreVector:
                    evaluate(sid);
                    memory_store_vector(memory(false, st.a), k_.node(st.b).type.width, column(st.c), column(st.b), m, lanes_);
                    break;
                case ir::StmtKind::Barrier:
                    // Lanes run in lockstep, so a barrier only has to be reached by all
                    // (or by none: code after a Break that every lane took).
                    if (any(m) && (count_ != lanes_ || !all_set(m, lanes_)))
                        throw Error(barrier_divergence(k_, start_ / lanes_));
                    break;
                case ir::StmtKind::Fence:
                    // Other workgroups run on other threads: order this one's plain
                    // stores and loads against its atomics as the GPUs do.
                    if (any(m)) std::atomic_thread_fence(std::memory_order_seq_cst);
                    break;
                case ir::StmtKind::Assign: {
                    evaluate(sid);
                    const int w = k_.vars[st.a].width;
                    u32* dst = s_.words.data() + p_.var_offset(st.a);
                    if (all_set(m, lanes_)) std::memcpy(dst, column(st.b), sizeof(u32) * w * lanes_);
                    else blend(dst, column(st.b), m, lanes_, w);
                    break;
                }
                case ir::StmtKind::Store:
                    direct_store_target(st);
                    evaluate(sid);
                    store(st, m);
                    break;
                case ir::StmtKind::If: {
                    evaluate(sid);
                    const u32* cond = column(st.a);
                    u32* t = mask(depth_++);
                    u32* e = mask(depth_++);
                    split_mask(m, cond, t, e, lanes_);
                    if (any(t)) run(st.b, t);
                    if (any(e)) run(st.c, e);
                    merge_masks(m, t, e, lanes_);
                    depth_ -= 2;
                    break;
                }
                case ir::StmtKind::Loop: {
                    u32* active = mask(depth_++);
                    LoopMasks lm{mask(depth_++), mask(depth_++)};
                    std::memcpy(active, m, sizeof(u32) * lanes_);
                    std::memset(lm.broken, 0, sizeof(u32) * lanes_);
                    loops_.push_back(lm);
                    while (any(active)) {
                        std::memset(lm.continued, 0, sizeof(u32) * lanes_);
                        run(st.a, active);
                        for (int l = 0; l < lanes_; ++l) active[l] |= lm.continued[l];
                        run(st.b, active);
                    }
                    loops_.pop_back();
                    // Lanes leave a loop only through Break (or Return, which keeps them out).
                    std::memcpy(m, lm.broken, sizeof(u32) * lanes_);
                    depth_ -= 3;
                    break;
                }
                case ir::StmtKind::Break:
                case ir::StmtKind::Continue: {
                    RILL_ASSERT(!loops_.empty(), "break or continue outside a loop");
                    u32* into = st.kind == ir::StmtKind::Break ? loops_.back().broken : loops_.back().continued;
                    for (int l = 0; l < lanes_; ++l) {
                        into[l] |= m[l];
                        m[l] = 0;
                    }
                    return;
                }
                case ir::StmtKind::Return:
                    std::memset(m, 0, sizeof(u32) * lanes_);
                    return;
            }
        }
    }

    /// Runs f(word offset, words) once over a step's columns, or once per
    /// component when an operand is uniform (see LaneLoop).
    template <class F>
    void for_each_component(const TapeStep& t, F f) const {
        if (!t.uniform) return f(0, t.count);
        for (int at = 0; at < t.count; at += lanes_) f(static_cast<std::size_t>(at), lanes_);
    }

    void run_tape() {
        using Kind = TapeStep::Kind;
        const u32* all = mask(0);
        for (const TapeStep& t : *tape_) {
            switch (t.kind) {
                case Kind::Loop:
                    for_each_component(t, [&](std::size_t at, int count) {
                        (s_.streaming[t.id] ? t.loop_streaming : t.loop)(cols_[t.id] + at, cols_[t.a] + at,
                                                                         cols_[t.b] + at, count, t.uniform);
                    });
                    break;
                case Kind::Fused:
                    for_each_component(t, [&](std::size_t at, int count) {
                        (s_.streaming[t.id] ? t.fused_streaming : t.fused)(cols_[t.id] + at, cols_[t.a] + at,
                                                                           cols_[t.b] + at, cols_[t.c] + at, count,
                                                                           t.uniform);
                    });
                    break;
                case Kind::Node: eval_node(*this, k_, t.id, lanes_); break;
                case Kind::ReadVar: {
                    const ir::Node& n = k_.node(k_.stmt(t.id).a);
                    std::memcpy(column(k_.stmt(t.id).a), s_.words.data() + p_.var_offset(n.aux), sizeof(u32) * n.type.width * lanes_);
                    break;
                }
                case Kind::Assign: {
                    const ir::Stmt& st = k_.stmt(t.id);
                    std::memcpy(s_.words.data() + p_.var_offset(st.a), column(st.b), sizeof(u32) * k_.vars[st.a].width * lanes_);
                    break;
                }
                case Kind::StoreTarget: redirect_store(k_.stmt(t.id)); break;
                case Kind::Store: store(k_.stmt(t.id), all); break;
            }
        }
    }

    /// Memory of an Array param (global) or shared array, for this block.
    MemoryView memory(bool shared, std::uint32_t id) const {
        MemoryView v;
        if (shared) {
            const ir::SharedArray& a = k_.shared[id];
            v.words = s_.shared.data() + p_.shared_offset(id);
            v.count = a.count;
            v.stride = a.words;
        } else {
            const StreamBinding& b = d_.streams[id];
            v.stride = k_.params[id].words;
            v.words = bases_[id] + static_cast<std::size_t>(b.offset) * v.stride;
            v.count = b.shape.size();
            v.shared_between_threads = true;
        }
        return v;
    }

    /// Computes in-place node `id` (memory access, atomic, subgroup op) for the lanes in `m`.
    void in_place(ir::ExprId id, const u32* m) {
        const ir::Node& n = k_.node(id);
        u32* out = column(id);
        auto arg = [&](int i) -> const u32* { return i < n.nargs ? column(n.args[i]) : nullptr; };
        switch (n.op) {
            case ir::Op::ArrayLoad: case ir::Op::SharedLoad:
                memory_load(memory(n.op == ir::Op::SharedLoad, n.aux), n.imm[0], n.type.width, arg(0), out, lanes_);
                return;
            case ir::Op::ArrayLoadVector:
                memory_load_vector(memory(false, n.aux), n.type.width, arg(0), out, lanes_);
                return;
            case ir::Op::Atomic:
                memory_atomic(memory(n.imm[2] != 0, n.aux), n, arg(0), arg(1), arg(2), m, out, lanes_);
                return;
            case ir::Op::Subgroup:
                subgroup_op(n, k_.node(n.args[0]).type, arg(0), arg(1), m, out, lanes_, p_.subgroup_size());
                return;
            default:
                RILL_UNREACHABLE("not an in-place node");
        }
    }

    /// For a full block of a dense scalar output, computes the stored value
    /// straight into the output's memory (no scratch column, no copy).
    void direct_store_target(const ir::Stmt& st) {
        if (s_.computed[st.b]) return;
        redirect_store(st);
    }

    void redirect_store(const ir::Stmt& st) {
        const ir::Node& n = k_.node(st.b);
        if (!direct_ok_[st.a] || count_ != lanes_ || n.type.width != 1) return;
        if (p_.level(st.b) == Level::Uniform) return;
        if (n.op == ir::Op::ReadVar || n.op == ir::Op::InputLoad || n.op == ir::Op::GatherLoad || n.op == ir::Op::IndexOf)
            return;
        u32* dst = bases_[st.a] + d_.streams[st.a].offset + start_;
        cols_[st.b] = dst;
        redirected_.push_back(st.b);
        const std::int64_t bytes = d_.streams[st.a].shape.size() * static_cast<std::int64_t>(sizeof(u32));
        s_.streaming[st.b] = bytes >= p_.streaming_bytes() && reinterpret_cast<std::uintptr_t>(dst) % 16 == 0;
    }

    void store(const ir::Stmt& st, const u32* m) {
        const StreamBinding& b = d_.streams[st.a];
        const std::uint32_t words = k_.params[st.a].words;
        const ir::Node& n = k_.node(st.b);
        const u32* src = column(st.b);
        u32* mem = bases_[st.a];
        const int w = n.type.width;
        if (b.linear) {
            u32* dst = mem + static_cast<std::size_t>(b.offset + start_) * words + st.c;
            if (src == dst) return;  // computed in place by direct_store_target
            if (w == 1 && words == 1) {
                // Epilogue stores run on all valid lanes: a straight copy.
                std::memcpy(dst, src, sizeof(u32) * count_);
            } else {
                for (int c = 0; c < w; ++c)
                    for (int l = 0; l < count_; ++l) dst[static_cast<std::size_t>(l) * words + c] = src[c * lanes_ + l];
            }
            return;
        }
        const std::int64_t* addr = addresses(st.a);
        for (int l = 0; l < count_; ++l) {
            if (!m[l]) continue;
            for (int c = 0; c < w; ++c) mem[static_cast<std::size_t>(addr[l]) * words + st.c + c] = src[c * lanes_ + l];
        }
    }

    const CpuProgram& p_;
    const ir::Kernel& k_;
    const Dispatch& d_;
    Scratch& s_;
    const int lanes_;
    std::int64_t start_ = 0;
    int count_ = 0;
    int depth_ = 0;
    bool positions_ready_ = false;
    ThreadVector<LoopMasks>& loops_;
    ThreadVector<u32*>& cols_;
    ThreadVector<ir::ExprId>& redirected_;
    ThreadVector<std::uint8_t>& direct_ok_;
    ThreadVector<u32*>& bases_;
    const std::vector<TapeStep>* tape_;
};

}  // namespace

void execute(const CpuProgram& program, const Dispatch& dispatch, const std::function<bool(std::int64_t group)>& elsewhere) {
    const std::int64_t n = dispatch.domain.size();
    const int lanes = program.lanes();
    const std::int64_t blocks = (n + lanes - 1) / lanes;
    const std::uint64_t serial = g_dispatch_serial++;
    // A group kernel's block is a workgroup: one per task keeps workgroups
    // that wait on each other (through atomics) from sharing a thread.
    const std::int64_t grain = program.kernel().is_group_kernel() ? 1 : 4;
    const WorkgroupOrder order(blocks);
    auto body = [&](const tbb::blocked_range<std::int64_t>& r) {
        Scratch& s = scratch_pool().local();
        BlockRunner runner(program, dispatch, s, serial);
        for (std::int64_t taken = r.begin(); taken != r.end(); ++taken) {
            const std::int64_t b = order(taken);
            if (elsewhere && elsewhere(b)) continue;  // a group kernel's block is its workgroup b
            const std::int64_t start = b * lanes;
            runner.run_block(start, static_cast<int>(std::min<std::int64_t>(lanes, n - start)));
        }
        fence_streaming_stores();
    };
    if (blocks <= 1) {
        body(tbb::blocked_range<std::int64_t>(0, blocks));
    } else {
        tbb::parallel_for(tbb::blocked_range<std::int64_t>(0, blocks, grain), body);
    }
}

}  // namespace rill::cpu
