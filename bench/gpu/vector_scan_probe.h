// Probe: single-pass scans whose tiles are read and written as
// 16-byte vectors, over streams of uint4 (n / 4 of them), to measure before
// the DSL gets vector loads of scalar streams. Two layouts of a tile:
//   striped: subgroup w takes V rows of S uint4 in turn (each row one
//            coalesced 16-byte load per lane); a row is scanned with one
//            subgroup scan of the lanes' vector totals;
//   blocked: invocation l takes uint4 l V .. l V + V - 1 (4 V consecutive
//            elements), scanned in registers; one workgroup scan.
// No shared-memory transposes in either. The look-back is rill's
// (look_back.h: two 16-bit halves per value, four words per tile) or the
// compaction's one word per tile (2-bit flag, 30-bit value: exact for the
// probe's data, whose sum stays below 2^30), with the ticket or with tile =
// group_id (unsafe without count_tile's fallback, which the probe does not
// give: the bound).
#pragma once

#include <rill/algorithms/detail/look_back.h>

#include <cstdio>
#include <string>
#include <vector>

#include "../timing.h"

namespace rill::probe {

using namespace rill;
namespace look_back = rill::detail::look_back;

enum class Layout { Striped, Blocked };
enum class State { Halves, Word };

template <int Wg, int V>
auto make_vector_scan(Layout layout, State st, bool ticket) {
    return group_kernel<Wg>("probe_vector_scan(in, out, state, n4)",
                            [layout, st, ticket](Array<uint4> in, Array<uint4> out, Array<std::uint32_t> state, Int) {
        Int t = ticket ? look_back::ticket(state) : Int(group_id());
        Int S = subgroup_size();
        Int lane = subgroup_invocation();
        std::vector<Int> at;  // the uint4 of each of this invocation's V vectors
        if (layout == Layout::Striped) {
            Int chunk = t * (Wg * V) + (local_id() / S) * S * V;
            for (int j = 0; j < V; ++j) at.push_back(chunk + j * S + lane);
        } else {
            for (int j = 0; j < V; ++j) at.push_back(t * (Wg * V) + local_id() * V + j);
        }
        std::vector<Var<uint4>> x;
        for (int j = 0; j < V; ++j) x.emplace_back(in.load(at[j]));  // past n4: zero
        // Inclusive within each vector: x[j] becomes (a, a+b, a+b+c, a+b+c+d).
        for (int j = 0; j < V; ++j) {
            UInt a = x[j].x(), b = a + x[j].y(), c = b + x[j].z(), d = c + x[j].w();
            x[j] = Expr<uint4>(a, b, c, d);
        }
        std::vector<Var<std::uint32_t>> before;  // within the subgroup's rows (striped) or the row (blocked)
        Var<std::uint32_t> carry = 0u;
        for (int j = 0; j < V; ++j) {
            if (layout == Layout::Striped) {
                UInt inc = subgroup_inclusive_add(x[j].w());
                before.emplace_back(carry + inc - x[j].w());
                carry = carry + subgroup_shuffle(inc, S - 1);
            } else {
                before.emplace_back(Expr<std::uint32_t>(carry));
                carry = carry + x[j].w();
            }
        }
        // Striped: the subgroup's total enters the workgroup scan at its last lane.
        UInt own = layout == Layout::Striped ? select(lane == S - 1, Expr<std::uint32_t>(carry), Expr<std::uint32_t>(0u))
                                             : Expr<std::uint32_t>(carry);
        auto finish = [&](const Expr<std::uint32_t>& start) {
            for (int j = 0; j < V; ++j) {
                UInt p = start + before[j];
                out.store(at[j], Expr<uint4>(p, p + x[j].x(), p + x[j].y(), p + x[j].z()));
            }
        };
        if (st == State::Halves) look_back::scan_tile<std::uint32_t>(Wg, ScanOp::Add, 0u, state, t, own, finish);
        else look_back::count_tile(Wg, state, t, own, finish);
    });
}

inline const char* layout_name(Layout l) { return l == Layout::Striped ? "striped" : "blocked"; }
inline const char* state_name(State s) { return s == State::Halves ? "halves" : "word"; }

template <int Wg, int V>
void vector_scan_probe(Runtime& rt, const Stream<uint4>& in, const std::vector<std::uint32_t>& want, std::int64_t n4) {
    const std::int64_t tiles = (n4 + Wg * V - 1) / (Wg * V);
    for (Layout layout : {Layout::Striped, Layout::Blocked})
        for (State st : {State::Halves, State::Word})
            for (bool ticket : {true, false}) {
                auto k = make_vector_scan<Wg, V>(layout, st, ticket);
                auto out = rt.stream<uint4>({n4});
                auto call = [&] {
                    auto state = rt.stream<std::uint32_t>({look_back::state_words(tiles)});
                    k(Groups{tiles}, in, out, state, static_cast<std::int32_t>(n4));
                };
                call();
                const std::vector<uint4> got = out.download();
                for (std::int64_t i = 0; i < n4; ++i) {
                    const uint4 g = got[i];
                    if (g.x != want[4 * i] || g.y != want[4 * i + 1] || g.z != want[4 * i + 2] || g.w != want[4 * i + 3])
                        bench::fail(std::string("probe_vector_scan ") + layout_name(layout) + " " + state_name(st) + " " +
                                    std::to_string(Wg) + " x " + std::to_string(V) + " at uint4 " + std::to_string(i));
                }
                const double ms = bench::median_ms(10, 5, call, rt).device_ms;
                std::printf("| probe_vector_scan %s %s %s | %d x %d uint4 | %.4f ms | | %.1f G elements/s |\n",
                            layout_name(layout), state_name(st), ticket ? "ticket" : "group_id", Wg, V, ms,
                            4.0 * n4 / ms / 1e6);
            }
}

/// Every shape, on n uint32 (n a multiple of 4) of small values.
inline void vector_scan_probes(Runtime& rt, std::int64_t n) {
    const std::int64_t n4 = n / 4;
    std::vector<uint4> h(n4);
    std::vector<std::uint32_t> want(4 * n4);
    std::uint32_t acc = 0;
    for (std::int64_t i = 0; i < n4; ++i) {
        std::uint32_t v[4];
        for (int c = 0; c < 4; ++c) {
            v[c] = (static_cast<std::uint32_t>(4 * i + c) * 2654435761u) >> 30;  // 0..3: the sum stays below 2^30
            want[4 * i + c] = acc;
            acc += v[c];
        }
        h[i] = uint4{v[0], v[1], v[2], v[3]};
    }
    auto in = rt.stream<uint4>({n4}, h);
    vector_scan_probe<128, 2>(rt, in, want, n4);
    vector_scan_probe<128, 4>(rt, in, want, n4);
    vector_scan_probe<256, 2>(rt, in, want, n4);
    vector_scan_probe<256, 3>(rt, in, want, n4);
    vector_scan_probe<256, 4>(rt, in, want, n4);
    vector_scan_probe<512, 2>(rt, in, want, n4);
    vector_scan_probe<512, 4>(rt, in, want, n4);
}

}  // namespace rill::probe
