// One loop per node over width * lanes values. Element-wise ops instantiate the
// shared scalar semantics (core/semantics.h) per (op, type), so these loops are
// what the compiler vectorizes; structure ops move components around.
#include "eval_node.h"

#include <algorithm>
#include <bit>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "rill/core/error.h"
#include "rill/core/op_traits.h"
#include "rill/core/semantics.h"

namespace rill::cpu {

namespace {

using u32 = std::uint32_t;
using ir::Op;

template <class T>
T* as(u32* p) {
    return reinterpret_cast<T*>(p);
}
template <class T>
const T* as(const u32* p) {
    return reinterpret_cast<const T*>(p);
}

template <class R>
u32 bits_of(R v) {
    if constexpr (std::is_same_v<R, float>) return std::bit_cast<u32>(v);
    else return static_cast<u32>(v);
}

/// Runs compute(dst, first, count) over [0, n) and writes `out`: directly, or,
/// when Streaming, through a small L1 buffer flushed with non-temporal stores
/// (whole 64-byte lines, so the store does not read the line first). A loop
/// with a uniform operand runs in chunks too, so that the operand's reads stay
/// on the first lanes of its broadcast column (see LaneLoop).
template <bool Streaming, class Compute>
inline void write_out(u32* out, int n, unsigned uniform, Compute compute) {
    constexpr int kChunk = 64;
#if defined(__SSE2__)
    if constexpr (Streaming) {
        alignas(64) u32 buf[kChunk];
        int i = 0;
        for (; i + kChunk <= n; i += kChunk) {
            compute(buf, i, kChunk);
            for (int j = 0; j < kChunk; j += 4)
                _mm_stream_si128(reinterpret_cast<__m128i*>(out + i + j),
                                 _mm_load_si128(reinterpret_cast<const __m128i*>(buf + j)));
        }
        if (i < n) compute(out + i, i, n - i);
        return;
    }
#endif
    if (!uniform) {
        compute(out, 0, n);
        return;
    }
    for (int i = 0; i < n; i += kChunk) compute(out + i, i, std::min(kChunk, n - i));
}

/// An operand's values for the lanes [first, first + count): a uniform
/// operand's are the same wherever they are read, so it is read from the start.
template <class T>
inline const T* operand(const u32* column, unsigned uniform, int bit, int first) {
    return as<T>(column) + ((uniform >> bit) & 1u ? 0 : first);
}

template <Op O, class T, bool Streaming = false>
void unary_loop(u32* __restrict out, const u32* __restrict a, const u32*, int n, unsigned uniform) {
    using R = decltype(sem::unary<O>(T{}));
    write_out<Streaming>(out, n, uniform, [&](u32* __restrict dst, int first, int count) {
        const T* __restrict x = operand<T>(a, uniform, 0, first);
        R* __restrict y = reinterpret_cast<R*>(dst);
        for (int i = 0; i < count; ++i) y[i] = sem::unary<O>(x[i]);
    });
}

template <Op O, class T, bool Streaming = false>
void binary_loop(u32* __restrict out, const u32* a, const u32* b, int n, unsigned uniform) {
    using R = decltype(sem::binary<O>(T{}, T{}));
    write_out<Streaming>(out, n, uniform, [&](u32* __restrict dst, int first, int count) {
        const T* x = operand<T>(a, uniform, 0, first);
        const T* y = operand<T>(b, uniform, 1, first);
        R* __restrict z = reinterpret_cast<R*>(dst);
        for (int i = 0; i < count; ++i) z[i] = sem::binary<O>(x[i], y[i]);
    });
}

template <Op Inner, Op Outer, bool InnerSecond, class T, bool Streaming>
void fused_binary_loop(u32* __restrict out, const u32* a, const u32* b, const u32* c, int n, unsigned uniform) {
    write_out<Streaming>(out, n, uniform, [&](u32* __restrict dst, int first, int count) {
        const T* x = operand<T>(a, uniform, 0, first);
        const T* y = operand<T>(b, uniform, 1, first);
        const T* w = operand<T>(c, uniform, 2, first);
        T* __restrict z = reinterpret_cast<T*>(dst);
        for (int i = 0; i < count; ++i) {
            const T t = sem::binary<Inner>(x[i], y[i]);
            z[i] = InnerSecond ? sem::binary<Outer>(w[i], t) : sem::binary<Outer>(t, w[i]);
        }
    });
}

/// Calls f.template operator()<O>() for O in {Add, Sub, Mul}; false otherwise.
template <class F>
bool visit_add_sub_mul(Op op, F&& f) {
    switch (op) {
        case Op::Add: f.template operator()<Op::Add>(); return true;
        case Op::Sub: f.template operator()<Op::Sub>(); return true;
        case Op::Mul: f.template operator()<Op::Mul>(); return true;
        default: return false;
    }
}

void convert(u32* out, const u32* a, int n, Scalar from, Scalar to) {
    auto run = [&]<class From>() {
        const From* x = as<From>(a);
        switch (to) {
            case Scalar::Float: for (int i = 0; i < n; ++i) as<float>(out)[i] = sem::convert<float>(x[i]); break;
            case Scalar::Int: for (int i = 0; i < n; ++i) as<std::int32_t>(out)[i] = sem::convert<std::int32_t>(x[i]); break;
            case Scalar::Uint: for (int i = 0; i < n; ++i) out[i] = sem::convert<u32>(x[i]); break;
            case Scalar::Bool: for (int i = 0; i < n; ++i) out[i] = x[i] != From{0} ? 1u : 0u; break;
        }
    };
    switch (from) {
        case Scalar::Float: run.operator()<float>(); break;
        case Scalar::Int: run.operator()<std::int32_t>(); break;
        case Scalar::Uint: case Scalar::Bool: run.operator()<u32>(); break;
    }
}

}  // namespace

void eval_node(NodeContext& ctx, const ir::Kernel& k, ir::ExprId id, int L) {
    const ir::Node& n = k.node(id);
    u32* out = ctx.column(id);
    const int w = n.type.width;
    auto arg = [&](int i) { return ctx.column(n.args[i]); };
    auto arg_width = [&](int i) { return static_cast<int>(k.node(n.args[i]).type.width); };

    switch (n.op) {
        case Op::Const:
            for (int c = 0; c < w; ++c) std::fill(out + c * L, out + (c + 1) * L, n.imm[c]);
            return;
        case Op::Uniform:
            for (int c = 0; c < w; ++c) std::fill(out + c * L, out + (c + 1) * L, ctx.uniforms()[n.imm[0] + c]);
            return;
        case Op::InputLoad: ctx.load_input(id); return;
        case Op::GatherLoad: ctx.load_gather(id); return;
        case Op::IndexOf: ctx.index_of(id); return;
        case Op::ReadVar: case Op::ArrayLoad: case Op::ArrayLoadVector: case Op::SharedLoad: case Op::Atomic:
        case Op::Subgroup:
            return;  // filled by its Def statement
        case Op::LocalId: case Op::GroupId: case Op::NumGroups: case Op::ArraySize: case Op::SubgroupSize:
        case Op::SubgroupInvocation:
            ctx.group_value(id);
            return;
        case Op::Splat:
            for (int c = 0; c < w; ++c) std::memcpy(out + c * L, arg(0), sizeof(u32) * L);
            return;
        case Op::Construct: {
            int c = 0;
            for (int i = 0; i < n.nargs; ++i) {
                const int aw = arg_width(i);
                std::memcpy(out + c * L, arg(i), sizeof(u32) * L * aw);
                c += aw;
            }
            return;
        }
        case Op::Swizzle:
            for (int c = 0; c < w; ++c) std::memcpy(out + c * L, arg(0) + n.imm[c] * L, sizeof(u32) * L);
            return;
        case Op::Insert: {
            std::memcpy(out, arg(0), sizeof(u32) * L * w);
            const int pw = arg_width(1);
            for (int c = 0; c < pw; ++c) std::memcpy(out + n.imm[c] * L, arg(1) + c * L, sizeof(u32) * L);
            return;
        }
        case Op::Cast:
            convert(out, arg(0), w * L, k.node(n.args[0]).type.scalar, n.type.scalar);
            return;
        case Op::Bitcast:
            std::memcpy(out, arg(0), sizeof(u32) * L * w);
            return;
        case Op::Select: {
            const u32* cond = arg(0);
            const u32* a = arg(1);
            const u32* b = arg(2);
            const bool per_component = arg_width(0) > 1;
            for (int c = 0; c < w; ++c) {
                const u32* cc = cond + (per_component ? c * L : 0);
                for (int l = 0; l < L; ++l) {
                    const u32 m = cc[l] ? ~0u : 0u;
                    out[c * L + l] = (a[c * L + l] & m) | (b[c * L + l] & ~m);
                }
            }
            return;
        }
        case Op::All: case Op::Any: {
            const u32* a = arg(0);
            const int aw = arg_width(0);
            for (int l = 0; l < L; ++l) {
                u32 r = n.op == Op::All ? 1u : 0u;
                for (int c = 0; c < aw; ++c) r = n.op == Op::All ? (r & (a[c * L + l] != 0)) : (r | (a[c * L + l] != 0));
                out[l] = r;
            }
            return;
        }
        case Op::Dot: {
            const float* a = as<float>(arg(0));
            const float* b = as<float>(arg(1));
            float* y = as<float>(out);
            const int aw = arg_width(0);
            for (int l = 0; l < L; ++l) y[l] = a[l] * b[l];
            for (int c = 1; c < aw; ++c)
                for (int l = 0; l < L; ++l) y[l] += a[c * L + l] * b[c * L + l];
            return;
        }
        case Op::Fma: {
            const float* a = as<float>(arg(0));
            const float* b = as<float>(arg(1));
            const float* c = as<float>(arg(2));
            float* y = as<float>(out);
            for (int i = 0; i < w * L; ++i) y[i] = sem::fma(a[i], b[i], c[i]);
            return;
        }
        case Op::BitfieldExtract: {
            const u32* a = arg(0);
            const std::int32_t* off = as<std::int32_t>(arg(1));
            const std::int32_t* bits = as<std::int32_t>(arg(2));
            for (int c = 0; c < w; ++c)
                for (int l = 0; l < L; ++l) {
                    const int i = c * L + l;
                    out[i] = n.type.scalar == Scalar::Int
                                 ? static_cast<u32>(sem::bitfield_extract(static_cast<std::int32_t>(a[i]), off[l], bits[l]))
                                 : sem::bitfield_extract(a[i], off[l], bits[l]);
                }
            return;
        }
        default:
            break;
    }
    const LaneLoop loop = elementwise_loop(k, id);
    RILL_ASSERT(loop, std::string("CPU backend cannot evaluate ") + ir::op_name(n.op) + " on " + to_string(n.type));
    loop(out, arg(0), ir::is_elementwise_binary(n.op) ? arg(1) : nullptr, w * L, 0);
}

LaneLoop elementwise_loop(const ir::Kernel& k, ir::ExprId id, bool streaming) {
    const ir::Node& n = k.node(id);
    if (n.nargs == 0) return nullptr;
    const Scalar s = k.node(n.args[0]).type.scalar;
    LaneLoop loop = nullptr;
    if (ir::is_elementwise_unary(n.op))
        ir::visit_elementwise<false>(n.op, s, [&]<Op O, class T>() {
            loop = streaming ? &unary_loop<O, T, true> : &unary_loop<O, T>;
        });
    else if (ir::is_elementwise_binary(n.op))
        ir::visit_elementwise<true>(n.op, s, [&]<Op O, class T>() {
            loop = streaming ? &binary_loop<O, T, true> : &binary_loop<O, T>;
        });
    return loop;
}

FusedLoop fused_loop(const ir::Kernel& k, ir::ExprId id, int inner_arg, bool streaming) {
    const ir::Node& outer = k.node(id);
    if (outer.nargs != 2) return nullptr;
    const ir::Node& inner = k.node(outer.args[inner_arg]);
    const Type t = outer.type;
    auto same_type = [&](ir::ExprId e) { return k.node(e).type == t; };
    if (inner.nargs != 2 || !same_type(outer.args[0]) || !same_type(outer.args[1]) || !same_type(inner.args[0]) ||
        !same_type(inner.args[1]))
        return nullptr;
    FusedLoop loop = nullptr;
    auto with_type = [&]<Op I, Op O, bool Second>() {
        auto pick = [&]<class T>() {
            loop = streaming ? &fused_binary_loop<I, O, Second, T, true> : &fused_binary_loop<I, O, Second, T, false>;
        };
        switch (t.scalar) {
            case Scalar::Float: pick.template operator()<float>(); break;
            case Scalar::Int: pick.template operator()<std::int32_t>(); break;
            case Scalar::Uint: pick.template operator()<u32>(); break;
            case Scalar::Bool: break;
        }
    };
    visit_add_sub_mul(inner.op, [&]<Op I>() {
        visit_add_sub_mul(outer.op, [&]<Op O>() {
            if (inner_arg == 1) with_type.template operator()<I, O, true>();
            else with_type.template operator()<I, O, false>();
        });
    });
    return loop;
}

void fence_streaming_stores() {
#if defined(__SSE2__)
    _mm_sfence();
#endif
}

}  // namespace rill::cpu
