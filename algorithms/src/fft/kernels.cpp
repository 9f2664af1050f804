// The FFT's kernels (kernels.h). The line kernel is a Stockham FFT in shared
// memory: each workgroup loads G lines of length R (applying the pass's
// pre-twiddles), runs one radix-r pass per factor of R between two shared
// buffers (no bit reversal: each pass writes its outputs in order), and
// stores the lines. A plan chains such passes through memory for lengths
// above kLineElements (the four-step / Stockham decomposition: pass p
// transforms lines of R_p elements spaced N / R_p apart, after twiddling by
// w_M^(k t), M = R_1 ... R_p).
#include "kernels.h"

#include <cmath>
#include <cstdlib>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <numbers>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <rill/algorithms/detail/kernel_cache.h>
#include <rill/dsl/complex.h>

namespace rill::fft::detail {

namespace {

using C = Expr<float2>;

/// The lockstep and element-wise kernels index only within the streams a
/// plan made or checked (their sizes are the plan's, the last lines of a pass
/// are checked in the code), so they skip rill's bounds checks.
const GroupOptions kInRange{.unchecked_arrays = true};

/// kRadices as a type, for the passes that pick one of them.
using Radices = std::integer_sequence<int, 8, 4, 2, 3, 5, 7, 11, 13, 17, 19>;
/// The radices up to 8: the generic kernel for lines of their products holds
/// only these butterflies, and builds in a fraction of the time of the one
/// that holds every radix (docs/PERFORMANCE.md#fft).
using SmallRadices = std::integer_sequence<int, 8, 4, 2, 3, 5, 7>;
template <int... Rs>
constexpr bool lists_kradices(std::integer_sequence<int, Rs...>) {
    constexpr int listed[] = {Rs...};
    if (std::size(listed) != std::size(kRadices)) return false;
    for (std::size_t i = 0; i < std::size(listed); ++i)
        if (listed[i] != kRadices[i]) return false;
    return true;
}
static_assert(lists_kradices(Radices{}), "Radices must list kRadices");

/// The forward DFT of x (w = exp(-2 pi i / r)), r = x.size(), in registers:
/// of one complex number per element (C), or of several lines' side by side
/// (Lanes).
template <class C>
std::vector<C> dft(const std::vector<C>& x) {
    const int r = static_cast<int>(x.size());
    if (r == 2) return {x[0] + x[1], x[0] - x[1]};
    if (r == 4) {
        C t0 = x[0] + x[2], t1 = x[0] - x[2], t2 = x[1] + x[3], t3 = mul_neg_i(x[1] - x[3]);
        return {t0 + t2, t1 + t3, t0 - t2, t1 - t3};
    }
    if (r == 8) {
        const std::vector<C> e = dft(std::vector<C>{x[0], x[2], x[4], x[6]}), o = dft(std::vector<C>{x[1], x[3], x[5], x[7]});
        constexpr float h = std::numbers::sqrt2_v<float> / 2;
        // w8^1 o = h (1 - i) o, w8^2 o = -i o, w8^3 o = h (-1 - i) o.
        const C o1 = (o[1] + mul_neg_i(o[1])) * h, o2 = mul_neg_i(o[2]), o3 = (mul_neg_i(o[3]) - o[3]) * h;
        return {e[0] + o[0], e[1] + o1, e[2] + o2, e[3] + o3, e[0] - o[0], e[1] - o1, e[2] - o2, e[3] - o3};
    }
    // Odd r: x_t w^(tk) + x_(r-t) w^(-tk) = (x_t + x_(r-t)) cos - i (x_t - x_(r-t)) sin.
    const int h = (r - 1) / 2;
    std::vector<C> s, d;
    for (int t = 1; t <= h; ++t) s.push_back(x[t] + x[r - t]), d.push_back(x[t] - x[r - t]);
    // Each sum is rebuilt as a new expression (Expr values are immutable).
    auto sum = [](std::vector<C> terms) {
        while (terms.size() > 1) {
            std::vector<C> next;
            for (std::size_t i = 0; i + 1 < terms.size(); i += 2) next.push_back(terms[i] + terms[i + 1]);
            if (terms.size() % 2) next.push_back(terms.back());
            terms = std::move(next);
        }
        return terms.front();
    };
    std::vector<C> a, b;
    for (int k = 1; k <= h; ++k) {
        std::vector<C> at{x[0]}, bt;
        for (int t = 1; t <= h; ++t) {
            const double angle = 2.0 * std::numbers::pi * ((t * k) % r) / r;
            at.push_back(s[t - 1] * static_cast<float>(std::cos(angle)));
            bt.push_back(d[t - 1] * static_cast<float>(std::sin(angle)));
        }
        a.push_back(sum(at));
        b.push_back(sum(bt));
    }
    std::vector<C> all{x[0]};
    for (const C& v : s) all.push_back(v);
    std::vector<C> y{sum(all)};
    for (int k = 1; k <= h; ++k) y.push_back(a[k - 1] + mul_neg_i(b[k - 1]));
    for (int k = h + 1; k < r; ++k) y.push_back(a[r - k - 1] + mul_i(b[r - k - 1]));
    return y;
}

/// z w_n^q (w_n = exp(-2 pi i / n)) for a q known when tracing: quarter
/// turns without multiplications, others as z cos - i z sin.
C rotated(const C& z, int q, int n) {
    q %= n;
    if (q == 0) return z;
    if (2 * q == n) return -z;
    if (4 * q == n) return mul_neg_i(z);
    if (4 * q == 3 * n) return mul_i(z);
    const double angle = 2.0 * std::numbers::pi * q / n;
    return z * static_cast<float>(std::cos(angle)) + mul_neg_i(z) * static_cast<float>(std::sin(angle));
}

/// w_M^q of a pass's pre-twiddles from its coarse and fine tables (at
/// `coarse` and `fine` in the twiddle stream): coarse[q / kFine] fine[q % kFine].
C pre_twiddle(const Array<float2>& tw, const Expr<std::int32_t>& coarse, const Expr<std::int32_t>& fine, const Expr<std::int32_t>& q) {
    return cmul(tw.load(coarse + (q >> kFineBits)), tw.load(fine + (q & (kFine - 1))));
}

/// The forward DFT of x in registers, for any length whose prime factors are
/// among kRadices: Cooley-Tukey by the first of kRadices that divides the
/// length (n = r m: the m-point transforms of the r decimated sequences,
/// twiddled by w_n^(n1 k2), then r-point DFTs across them), dft() at the leaves.
std::vector<C> register_fft(const std::vector<C>& x) {
    const int n = static_cast<int>(x.size());
    if (n == 1) return x;
    int r = n;
    for (int c : kRadices)
        if (n % c == 0) {
            r = c;
            break;
        }
    if (r == n) return dft(x);
    const int m = n / r;
    std::vector<std::vector<C>> z(static_cast<std::size_t>(r));
    for (int n1 = 0; n1 < r; ++n1) {
        std::vector<C> sub;
        for (int n2 = 0; n2 < m; ++n2) sub.push_back(x[static_cast<std::size_t>(r * n2 + n1)]);
        const std::vector<C> y = register_fft(sub);
        for (int k2 = 0; k2 < m; ++k2) z[static_cast<std::size_t>(n1)].push_back(rotated(y[static_cast<std::size_t>(k2)], n1 * k2, n));
    }
    std::vector<std::vector<C>> across;  // across[k2][k1] = X[k2 + m k1]
    for (int k2 = 0; k2 < m; ++k2) {
        std::vector<C> col;
        for (int n1 = 0; n1 < r; ++n1) col.push_back(z[static_cast<std::size_t>(n1)][static_cast<std::size_t>(k2)]);
        across.push_back(dft(col));
    }
    std::vector<C> out;
    for (int k1 = 0; k1 < r; ++k1)
        for (int k2 = 0; k2 < m; ++k2) out.push_back(across[static_cast<std::size_t>(k2)][static_cast<std::size_t>(k1)]);
    return out;
}

/// The line kernel's shared memory. Specialized kernels swizzle it
/// (`swizzled`): element i lives at i with its bits 0-2 XORed with its bits
/// 4-6. A power-of-two radix pass writes its butterflies' outputs r elements
/// apart (a line's first pass: 8 float2), which put a half-warp's stores in
/// two banks; swizzled, 16 neighbouring butterflies store to 16 banks. Runs
/// of 16 aligned neighbouring elements (the loads, the passes' reads) stay
/// in 16 banks, and no element leaves its aligned run of 8, so any buffer of
/// a multiple of 8 elements maps onto itself (no memory more: lines of 2048
/// keep their 16 KiB, three workgroups to an NVIDIA SM through Vulkan).
struct LineBuffer {
    const Shared<float2>& mem;
    bool swizzled;
    Expr<std::int32_t> at(const Expr<std::int32_t>& i) const { return swizzled ? Expr<std::int32_t>(i ^ ((i >> 4) & 7)) : i; }
    Expr<float2> load(const Expr<std::int32_t>& i) const { return mem.load(at(i)); }
    void store(const Expr<std::int32_t>& i, const Expr<float2>& v) const { mem.store(at(i), v); }
};

/// Butterfly j of a radix-r pass (k = j mod ns): reads elements j + u count
/// of the line at `line` in buffer `cur`, twiddles element u by w^(k u step)
/// from the line's table (when `twiddled`: in a line's first radix pass, ns =
/// 1, every twiddle is 1), and writes their DFT to (j - k) r + k + u ns in `next`.
template <int r>
void butterfly(const LineBuffer& buf, const Array<float2>& tw, const Expr<std::int32_t>& cur,
               const Expr<std::int32_t>& next, const Expr<std::int32_t>& line, const Expr<std::int32_t>& j,
               const Expr<std::int32_t>& k, const Expr<std::int32_t>& count, const Expr<std::int32_t>& ns,
               const Expr<std::int32_t>& step, const Expr<std::int32_t>& line_twiddles, bool twiddled) {
    std::vector<C> v;
    for (int u = 0; u < r; ++u) {
        C x = buf.load(cur + line + j + u * count);
        v.push_back(u == 0 || !twiddled ? x : cmul(x, tw.load(line_twiddles + k * (u * step))));
    }
    const std::vector<C> y = dft(v);
    Int out = (j - k) * r + k;
    for (int u = 0; u < r; ++u) buf.store(next + line + out + u * ns, y[static_cast<std::size_t>(u)]);
}

/// One radix-r pass over a line of R elements at `line` in shared memory,
/// from buffer `cur` into `next`: butterfly j (of R / r) reads elements j +
/// u R / r, twiddles them by w_(Ns r)^(k u), k = j mod Ns, and writes its
/// outputs to (j - k) r + k + u Ns. Invocation t of the line's T does
/// butterflies t, t + T, ...
template <int r>
void radix_pass(const LineBuffer& buf, const Array<float2>& tw, const Expr<std::int32_t>& cur,
                const Expr<std::int32_t>& next, const Expr<std::int32_t>& line, const Expr<std::int32_t>& R,
                const Expr<std::int32_t>& ns, const Expr<std::int32_t>& t, const Expr<std::int32_t>& T,
                const Expr<std::int32_t>& line_twiddles) {
    Int count = R / r;
    Int twiddle_step = count / ns;  // w_(Ns r)^(k u) = w_R^(k u R / (Ns r))
    Int j = t;
    While([&] { return j < count; }, [&] {
        butterfly<r>(buf, tw, cur, next, line, j, j % ns, count, ns, twiddle_step, line_twiddles, true);
        j = j + T;
    });
}

template <int... Rs>
void any_radix_pass(std::integer_sequence<int, Rs...>, const Expr<std::int32_t>& radix, const LineBuffer& buf,
                    const Array<float2>& tw, const Expr<std::int32_t>& cur, const Expr<std::int32_t>& next,
                    const Expr<std::int32_t>& line, const Expr<std::int32_t>& R, const Expr<std::int32_t>& ns,
                    const Expr<std::int32_t>& t, const Expr<std::int32_t>& T, const Expr<std::int32_t>& line_twiddles) {
    // Uniform in the workgroup: every invocation takes the same branch.
    (If(radix == Rs, [&] { radix_pass<Rs>(buf, tw, cur, next, line, R, ns, t, T, line_twiddles); }), ...);
}

/// body(b, j, k) for butterfly j = t + b T (k = j mod ns) of invocation t's
/// butterflies among `count`, unrolled, the last only where it exists.
template <class Body>
void each_butterfly(int count, int ns, const Expr<std::int32_t>& t, int T, const Body& body) {
    for (int first = 0, b = 0; first < count; first += T, ++b) {
        auto one = [&] {
            Int j = t + first;
            const Expr<std::int32_t> k = ns == 1 ? Expr<std::int32_t>(0) : Expr<std::int32_t>(j % ns);
            body(b, j, k);
        };
        if (first + T <= count) one();
        else If(t + first < count, one);
    }
}

/// radix_pass with every size known when the kernel is traced: the butterflies
/// of an invocation are unrolled, and the first pass of a line (ns = 1, every
/// twiddle 1) multiplies by none.
template <int r>
void radix_pass_known(const LineBuffer& buf, const Array<float2>& tw, int cur, int next, const Expr<std::int32_t>& line,
                      int R, int ns, const Expr<std::int32_t>& t, int T, const Expr<std::int32_t>& line_twiddles) {
    const int count = R / r, twiddle_step = count / ns;
    each_butterfly(count, ns, t, T, [&](int, const Expr<std::int32_t>& j, const Expr<std::int32_t>& k) {
        butterfly<r>(buf, tw, cur, next, line, j, k, count, ns, twiddle_step, line_twiddles, ns > 1);
    });
}

/// radix_pass_known in one buffer: every butterfly of the invocation reads its
/// inputs and computes its outputs into registers, then after a barrier writes
/// them where it read, so that the line needs half the shared memory of two
/// buffers (the caller's barrier follows, as after radix_pass_known).
template <int r>
void radix_pass_in_place(const LineBuffer& buf, const Array<float2>& tw, const Expr<std::int32_t>& line, int R, int ns,
                         const Expr<std::int32_t>& t, int T, const Expr<std::int32_t>& line_twiddles) {
    const int count = R / r, twiddle_step = count / ns;
    std::deque<Var<float2>> held;  // r outputs per butterfly of this invocation (a deque: Vars stay put)
    for (int first = 0; first < count; first += T)
        for (int u = 0; u < r; ++u) held.emplace_back();
    each_butterfly(count, ns, t, T, [&](int b, const Expr<std::int32_t>& j, const Expr<std::int32_t>& k) {
        std::vector<C> v;
        for (int u = 0; u < r; ++u) {
            C x = buf.load(line + j + u * count);
            v.push_back(u == 0 || ns == 1 ? x : cmul(x, tw.load(line_twiddles + k * (u * twiddle_step))));
        }
        const std::vector<C> y = dft(v);
        for (int u = 0; u < r; ++u) held[static_cast<std::size_t>(b * r + u)] = y[static_cast<std::size_t>(u)];
    });
    barrier();
    each_butterfly(count, ns, t, T, [&](int b, const Expr<std::int32_t>& j, const Expr<std::int32_t>& k) {
        Int out = (j - k) * r + k;
        for (int u = 0; u < r; ++u) buf.store(line + out + u * ns, held[static_cast<std::size_t>(b * r + u)]);
    });
}

/// pass.template operator()<r>() for the r of Rs (every radix of kRadices)
/// that equals `radix`, known when the kernel is traced.
template <int... Rs, class Pass>
void with_radix(std::integer_sequence<int, Rs...>, int radix, const Pass& pass) {
    const bool found = ((radix == Rs && (pass.template operator()<Rs>(), true)) || ...);
    if (!found) throw Error("rill::fft: internal error: no radix-" + std::to_string(radix) + " pass");
}

/// The first element's address of line l of a pass: l's digits d0 = l % c0,
/// d1 = (l / c0) % c1, d2 = (l / c0 / c1) % c2 and d3 = the rest, times the
/// multipliers mul(0) .. mul(3) (desc::Count0 .., desc::InMul0 .. or OutMul0 ..).
template <class Count, class Mul>
Expr<std::int32_t> line_address(const Expr<std::int32_t>& l, const Count& c0, const Count& c1, const Count& c2, const Mul& mul) {
    Int q1 = l / c0, q2 = q1 / c1;
    return (l - q1 * c0) * mul(0) + (q1 - q2 * c1) * mul(1) + (q2 % c2) * mul(2) + (q2 / c2) * mul(3);
}

/// Words of a pass that stay run-time values in a specialized kernel: the
/// number of lines (a batch's size) and where the twiddle tables are.
bool run_time_word(int w) {
    return w == desc::Lines || w == desc::LineTwiddles || w == desc::PreFine || w == desc::PreCoarse;
}

/// The line kernel; with `known`, specialized to that pass's schedule;
/// without, generic, with the butterflies of every radix (`large_radices`) or
/// of SmallRadices only. The generic kernel serves a plan's first call only,
/// so it is built for a short build rather than for speed: without spirv-opt,
/// which took 55-65% of its cold build through lavapipe (fft_lines_2048: 252
/// -> 120 ms with the glslang start; docs/PERFORMANCE.md#fft).
LineKernel make_line_kernel(int capacity, std::optional<Words> known, bool large_radices, const std::string& name) {
    return group_kernel<kWorkgroup>(
        name + "(src, dst, twiddles, schedule, at, scale)", GroupOptions{.optimize_spirv = known.has_value()},
        [capacity, known, large_radices](Array<float2> src, Array<float2> dst, Array<float2> tw, Array<std::int32_t> schedule, Int at,
                          Float scale) {
            auto word = [&](int w) -> Int {
                if (known && !run_time_word(w)) return Int((*known)[static_cast<std::size_t>(w)]);
                return schedule.load(at + w);
            };
            // body() where the pass's word w is not 0, decided at trace time when known.
            auto when = [&](int w, const std::function<void()>& body) {
                if (!known) If(word(w) != 0, body);
                else if ((*known)[static_cast<std::size_t>(w)] != 0) body();
            };
            // body(e) for e = local_id() + k * kWorkgroup below `elements`: a loop,
            // unrolled when the count is known.
            auto each_element = [&](const Int& elements, const std::function<void(const Int&)>& body) {
                if (known) {
                    const int count = (*known)[desc::PerGroup] * (*known)[desc::Length];
                    for (int first = 0; first < count; first += kWorkgroup) {
                        Int e = local_id() + first;
                        if (first + kWorkgroup <= count) body(e);
                        else If(e < count, [&] { body(e); });
                    }
                    return;
                }
                Int e = local_id();
                While([&] { return e < elements; }, [&] {
                    body(e);
                    e = e + kWorkgroup;
                });
            };
            Int R = word(desc::Length), lines = word(desc::Lines), G = word(desc::PerGroup), T = word(desc::Threads);
            Int c0 = word(desc::Count0), c1 = word(desc::Count1), c2 = word(desc::Count2);
            // Specialized passes of the full capacity run in one buffer (radix_pass_in_place):
            // 16 KiB, three workgroups to an SM through Vulkan on NVIDIA where two buffers fit one.
            const bool in_place = known && capacity == kLineElements;
            Shared<float2> mem(in_place ? capacity : 2 * capacity, dsl::Unchecked{});
            const LineBuffer buf{mem, known.has_value()};
            Int first_line = group_id() * G;
            Int elements = G * R;

            // The digits of line l and its first element's address for multipliers m0..m3.
            auto address = [&](const Expr<std::int32_t>& l, int mul0) {
                return line_address(l, c0, c1, c2, [&](int i) { return word(mul0 + i); });
            };
            // Element e of the workgroup's G R as (line in the group, element in the line).
            auto split = [&](const Expr<std::int32_t>& e, int rows_word, Int& g, Int& t) {
                if (known) {
                    const bool rows = (*known)[static_cast<std::size_t>(rows_word)] != 0;
                    g = rows ? e / R : e % G;
                    t = rows ? e % R : e / G;
                    return;
                }
                Int rows = word(rows_word);
                g = select(rows != 0, e / R, e % G);
                t = select(rows != 0, e % R, e / G);
            };

            Int in_stride = word(desc::InStride);
            Int pre_fine = word(desc::PreFine), pre_coarse = word(desc::PreCoarse);
            each_element(elements, [&](const Int& e) {
                Int g = 0, t = 0;
                split(e, desc::InRows, g, t);
                Int l = first_line + g;
                Float2 v = Expr<float2>(0.0f, 0.0f);
                If(l < lines, [&] {
                    v = src.load(address(l, desc::InMul0) + t * in_stride);
                    when(desc::ConjIn, [&] { v = conj(v); });
                    when(desc::PreTwiddle, [&] {
                        Int q = ((l / c0) % c1) * t;
                        v = cmul(v, pre_twiddle(tw, pre_coarse, pre_fine, q));
                    });
                });
                buf.store(g * R + t, v);
            });
            barrier();

            Int line = (local_id() / T) * R, t = local_id() % T;
            Int line_twiddles = word(desc::LineTwiddles);
            Int cur = 0;
            if (known) {
                // G T = kWorkgroup (plan_passes): every invocation has a line.
                const Words& w = *known;
                int at_cur = 0, ns = 1;
                for (int p = 0; p < w[desc::RadixCount]; ++p) {
                    const int radix = w[static_cast<std::size_t>(desc::Radices + p)];
                    with_radix(Radices{}, radix, [&]<int r>() {
                        if (in_place) radix_pass_in_place<r>(buf, tw, line, w[desc::Length], ns, t, w[desc::Threads], line_twiddles);
                        else radix_pass_known<r>(buf, tw, at_cur, capacity - at_cur, line, w[desc::Length], ns, t, w[desc::Threads],
                                                 line_twiddles);
                    });
                    if (!in_place) at_cur = capacity - at_cur;
                    barrier();
                    ns *= radix;
                }
                cur = at_cur;
            } else {
                Int ns = 1;
                For(0, word(desc::RadixCount), [&](Expr<std::int32_t> p) {
                    Int radix = schedule.load(at + int(desc::Radices) + p);
                    Int next = capacity - cur;
                    If(local_id() / T < G, [&] {
                        if (large_radices) any_radix_pass(Radices{}, radix, buf, tw, cur, next, line, R, ns, t, T, line_twiddles);
                        else any_radix_pass(SmallRadices{}, radix, buf, tw, cur, next, line, R, ns, t, T, line_twiddles);
                    });
                    barrier();
                    cur = next;
                    ns = ns * radix;
                });
            }

            Int out_stride = word(desc::OutStride);
            each_element(elements, [&](const Int& e) {
                Int g = 0, t2 = 0;
                split(e, desc::OutRows, g, t2);
                Int l = first_line + g;
                If(l < lines, [&] {
                    Float2 v = buf.load(cur + g * R + t2) * scale;
                    when(desc::ConjOut, [&] { v = conj(v); });
                    dst.store(address(l, desc::OutMul0) + t2 * out_stride, v);
                });
            });
        });
}


/// base + c, or base itself for c = 0.
Expr<std::int32_t> plus(const Expr<std::int32_t>& base, int c) { return c == 0 ? base : base + c; }

/// Four lines' complex numbers side by side: their real parts and their
/// imaginary parts, each a float4, so that every operation of a butterfly is
/// one float4 operation for the four lines (what the lockstep kernel is for).
struct Lanes {
    Expr<float4> re, im;
};
Lanes operator+(const Lanes& a, const Lanes& b) { return {a.re + b.re, a.im + b.im}; }
Lanes operator-(const Lanes& a, const Lanes& b) { return {a.re - b.re, a.im - b.im}; }
Lanes operator*(const Lanes& a, float s) { return {a.re * s, a.im * s}; }
Lanes mul_i(const Lanes& a) { return {-a.im, a.re}; }
Lanes mul_neg_i(const Lanes& a) { return {a.im, -a.re}; }
/// a w with one w for the four lines: cmul's products.
Lanes cmul(const Lanes& a, const Expr<float2>& w) {
    Expr<float> wr = w.x(), wi = w.y();
    return {a.re * wr - a.im * wi, a.re * wi + a.im * wr};
}
/// Component c of v.
Expr<float> lane(const Expr<float4>& v, int c) { return c == 0 ? v.x() : c == 1 ? v.y() : c == 2 ? v.z() : v.w(); }

/// A radix-r pass of the lockstep kernel over the lines side by side in
/// `buf`, from `cur` into `next` (offsets of the buffers): butterfly j = b ns
/// + k (count = R / r of them) as in radix_pass, for all the lines at once.
/// Element e of lane group h (of H) has its real parts at 2 (e H + h) and
/// its imaginary parts next to them: every index is one base plus a constant,
/// which the compiled code sees as neighbouring addresses. Twiddles w_R^(k u
/// step) are loaded once for the lines; `twiddled` false in a line's first
/// pass (ns = 1).
template <int r>
void lockstep_pass(const Shared<float4>& buf, int H, const Array<float2>& tw, const Expr<std::int32_t>& cur,
                   const Expr<std::int32_t>& next, int count, const Expr<std::int32_t>& ns,
                   const Expr<std::int32_t>& line_twiddles, bool twiddled) {
    Int step = count / ns;
    For(0, count / ns, [&](const Expr<std::int32_t>& b) {
        For(0, ns, [&](const Expr<std::int32_t>& k) {
            Int j = b * ns + k;
            std::vector<C> w;
            if (twiddled)
                for (int u = 0; u < r; ++u) w.push_back(u == 0 ? C(1.0f, 0.0f) : C(tw.load(line_twiddles + k * (step * u))));
            const Expr<std::int32_t> in = (cur + j * H) * 2, out = (next + (b * ns * r + k) * H) * 2;
            for (int h = 0; h < H; ++h) {
                std::vector<Lanes> x;
                for (int u = 0; u < r; ++u) {
                    const int at = 2 * (u * count * H + h);
                    Lanes e{buf.load(plus(in, at)), buf.load(in + (at + 1))};
                    x.push_back(twiddled && u > 0 ? cmul(e, w[static_cast<std::size_t>(u)]) : e);
                }
                const std::vector<Lanes> y = dft(x);
                for (int u = 0; u < r; ++u) {
                    const Expr<std::int32_t> o = u == 0 ? out : Expr<std::int32_t>(out + ns * (2 * u * H));
                    buf.store(plus(o, 2 * h), y[static_cast<std::size_t>(u)].re);
                    buf.store(o + (2 * h + 1), y[static_cast<std::size_t>(u)].im);
                }
            }
        });
    });
}


}  // namespace

int lockstep_lines(const Words& w) {
    // Eight where a pass reads or writes element t of neighbouring lines next
    // to each other (64 bytes of a row of a column pass), or where lines are
    // so short that a set's own work is most of its time; else four, whose
    // kernels are half the code (docs/PERFORMANCE.md#fft).
    const bool across = !w[desc::InRows] || !w[desc::OutRows];
    if (w[desc::Length] > kLineElements) return 4;  // eight would take all of the CPU's 1 MiB of shared memory
    return across || w[desc::Length] <= 4 ? 8 : 4;
}

int lockstep_sets(const Words& w) {
    // About 2048 elements a workgroup: short lines would otherwise spend
    // more on starting workgroups than on their butterflies.
    return std::max(1, 2048 / (w[desc::Length] * lockstep_lines(w)));
}

namespace {

LineKernel make_lockstep_kernel(const Words& w, const std::string& name) {
    return group_kernel<1>(
        name + "(src, dst, twiddles, schedule, at, scale)", kInRange,
        [w](Array<float2> src, Array<float2> dst, Array<float2> tw, Array<std::int32_t> schedule, Int at, Float scale) {
            const int V = lockstep_lines(w), H = V / 4;
            auto word = [&](int i) { return w[static_cast<std::size_t>(i)]; };
            const int R = word(desc::Length), c0 = word(desc::Count0), c1 = word(desc::Count1), c2 = word(desc::Count2);
            Int lines = schedule.load(at + int(desc::Lines));
            Int line_twiddles = schedule.load(at + int(desc::LineTwiddles));
            // Two buffers of R elements of H lane groups, real and imaginary parts.
            Shared<float4> buf(4 * R * H, dsl::Unchecked{});
            const int Q = lockstep_sets(w);
            // The workgroup's Q sets of V lines, one after another.
            auto each_set = [&](const std::function<void(const Expr<std::int32_t>&)>& body) {
                if (Q == 1) body(group_id() * V);
                else For(0, Q, [&](const Expr<std::int32_t>& q) { body((group_id() * Q + q) * V); });
            };
            each_set([&](const Expr<std::int32_t>& first_line) {
                Int first = first_line;

                // The first element's address of line l for multipliers m0..m3.
                auto address = [&](const Expr<std::int32_t>& l, int mul0) -> Int {
                    return line_address(l, c0, c1, c2, [&](int i) { return word(mul0 + i); });
                };
                // The addresses of the lines first + v: the first one's plus v times the
                // multiplier of the lowest digit with more than one value, when that digit
                // counts in multiples of V (first is a multiple of V).
                auto addresses = [&](int mul0) {
                    std::vector<Int> a;
                    const int counts[3] = {c0, c1, c2};
                    int digit = 0;
                    while (digit < 3 && counts[digit] == 1) ++digit;
                    const bool even = digit == 3 || counts[digit] % V == 0;
                    Int base = address(first, mul0);
                    for (int v = 0; v < V; ++v) a.push_back(even ? Int(base + v * word(mul0 + digit)) : address(first + v, mul0));
                    return a;
                };
                // Both copies of `body`: every line there (no checks), or the last lines of the pass.
                auto full_or_last = [&](const std::function<void(bool)>& body) {
                    If(first + V <= lines, [&] { body(false); }).Else([&] { body(true); });
                };

                const std::vector<Int> in_at = addresses(desc::InMul0);
                const int in_stride = word(desc::InStride);
                Int pre_fine = schedule.load(at + int(desc::PreFine)), pre_coarse = schedule.load(at + int(desc::PreCoarse));
                full_or_last([&](bool last) {
                    For(0, R, [&](const Expr<std::int32_t>& t) {
                        const Expr<std::int32_t> th = t * (2 * H);
                        for (int h = 0; h < H; ++h) {
                            std::vector<Float2> x;
                            for (int c = 0; c < 4; ++c) {
                                const int v = 4 * h + c;
                                x.emplace_back(Expr<float2>(0.0f, 0.0f));
                                auto load = [&] {
                                    Float2& e = x.back();
                                    e = src.load(in_at[static_cast<std::size_t>(v)] + t * in_stride);
                                    if (word(desc::ConjIn)) e = conj(e);
                                    if (word(desc::PreTwiddle)) {
                                        Int q = ((first + v) / c0 % c1) * t;
                                        e = cmul(e, pre_twiddle(tw, pre_coarse, pre_fine, q));
                                    }
                                };
                                if (!last) load();
                                else If(first + v < lines, load);
                            }
                            buf.store(plus(th, 2 * h), Expr<float4>(x[0].x(), x[1].x(), x[2].x(), x[3].x()));
                            buf.store(th + (2 * h + 1), Expr<float4>(x[0].y(), x[1].y(), x[2].y(), x[3].y()));
                        }
                    });
                });

                // Runs of passes of one radix loop at run time (a kernel's code is one
                // butterfly per radix, not per pass); a line's first pass has no
                // twiddles and is traced on its own.
                std::vector<int> radices;
                for (int p = 0; p < word(desc::RadixCount); ++p) radices.push_back(word(desc::Radices + p));
                const int half = R * H;
                Var<std::int32_t> cur = Int(0);
                Var<std::int32_t> ns = Int(1);
                std::size_t p = 0;
                while (p < radices.size()) {
                    const int radix = radices[p];
                    std::size_t end = p + 1;
                    if (p > 0)
                        while (end < radices.size() && radices[end] == radix) ++end;
                    auto one_pass = [&] {
                        with_radix(Radices{}, radix, [&]<int r>() {
                            lockstep_pass<r>(buf, H, tw, cur, half - cur, R / r, ns, line_twiddles, p > 0);
                        });
                        cur = half - cur;
                        ns = ns * radix;
                    };
                    if (end == p + 1) one_pass();
                    else For(0, static_cast<int>(end - p), [&](const Expr<std::int32_t>&) { one_pass(); });
                    p = end;
                }

                const std::vector<Int> out_at = addresses(desc::OutMul0);
                const int out_stride = word(desc::OutStride);
                full_or_last([&](bool last) {
                    For(0, R, [&](const Expr<std::int32_t>& t) {
                        const Expr<std::int32_t> th = (cur + t * H) * 2;
                        for (int h = 0; h < H; ++h) {
                            const Expr<float4> xr = buf.load(plus(th, 2 * h)) * scale, xi = buf.load(th + (2 * h + 1)) * scale;
                            for (int c = 0; c < 4; ++c) {
                                const int v = 4 * h + c;
                                auto store = [&] {
                                    const Expr<float> y = word(desc::ConjOut) ? -lane(xi, c) : lane(xi, c);
                                    dst.store(out_at[static_cast<std::size_t>(v)] + t * out_stride, Expr<float2>(lane(xr, c), y));
                                };
                                if (!last) store();
                                else If(first + v < lines, store);
                            }
                        }
                    });
                });
            });
        });
}

/// A specialized kernel's key: the pass's words with those that stay run-time values zeroed.
Words kernel_key(const Words& words) {
    Words key = words;
    for (int w = 0; w < desc::Words; ++w)
        if (run_time_word(w)) key[static_cast<std::size_t>(w)] = 0;
    return key;
}

/// A readable name for dumps and profiles: the prefix, the line length and the radices.
std::string kernel_name(const std::string& prefix, const Words& key) {
    std::string name = prefix + std::to_string(key[desc::Length]) + "_r";
    for (int p = 0; p < key[desc::RadixCount]; ++p) name += std::to_string(key[static_cast<std::size_t>(desc::Radices + p)]);
    return name;
}

/// The kernel make() returns, made once per key for the process (each caller,
/// a lambda type of its own, has a cache of its own).
template <class Key, class Make>
const LineKernel& once_per_key(const Key& key, const Make& make) {
    static std::mutex mutex;
    static std::map<Key, std::unique_ptr<LineKernel>> kernels;
    std::lock_guard lock(mutex);
    auto& k = kernels[key];
    if (!k) k = std::make_unique<LineKernel>(make());
    return *k;
}

}  // namespace

bool staged(const Words& w) {
    const int R = w[desc::Length];
    return R >= 3 && R <= kStagedLongest && w[desc::InStride] == 1 && w[desc::OutStride] == 1;
}

SplitLine split_line(int R) {
    int n2 = 1;
    for (int d = 2; d * d <= R; ++d)
        if (R % d == 0) n2 = d;
    return {R / n2, n2};
}

bool split(const Words& w) {
    const int R = w[desc::Length];
    if (R <= kStagedLongest) return false;  // the staged kernel's, or the line kernel's where strided
    const SplitLine s = split_line(R);
    return s.n2 > 1 && s.n1 <= kSplitLongestColumn;
}

namespace {

/// How the split kernel lays a line out in shared memory: row k1 (of n1) of
/// n2 columns, element j of it at k1 row + (j ^ swizzle(k1, g)) where n2 is a
/// power of two (rows unpadded; the XOR spreads a column's and a row's
/// accesses over the banks), else at k1 (n2 + 1) + j.
struct SplitLayout {
    int n1, n2, row, line;
    bool xor_swizzle;
    explicit SplitLayout(int R) {
        const SplitLine s = split_line(R);
        n1 = s.n1, n2 = s.n2;
        xor_swizzle = (n2 & (n2 - 1)) == 0;
        row = xor_swizzle ? n2 : n2 + 1;
        line = n1 * row;
    }
    /// Element j of row k1 of line g of the workgroup.
    Expr<std::int32_t> at(const Expr<std::int32_t>& g, const Expr<std::int32_t>& k1, const Expr<std::int32_t>& j) const {
        if (!xor_swizzle) return g * line + k1 * row + j;
        // Neighbouring lines' rows differently swizzled: strided passes put
        // their lines side by side in a subgroup.
        return g * line + k1 * row + (j ^ ((k1 + g * 8) & (n2 - 1)));
    }
};

}  // namespace

int split_strided_shared_bytes() {
    static const int bytes = [] {
        const char* knob = std::getenv("RILL_FFT_STRIDED_SHARED_KIB");
        if (!knob) return 2 * kSplitSharedBytes;
        const std::string v = knob;
        if (v == "8" || v == "16" || v == "32") return std::stoi(v) * 1024;
        throw Error("RILL_FFT_STRIDED_SHARED_KIB is '" + v + "'; give 8, 16 or 32, or unset it");
    }();
    return bytes;
}

int split_lines_per_group(const Words& w) {
    const SplitLayout s(w[desc::Length]);
    // Strided lines: several side by side, so that loads and stores of
    // neighbouring invocations touch neighbouring elements, in up to 32 KiB.
    const int bytes = w[desc::InStride] == 1 && w[desc::OutStride] == 1 ? kSplitSharedBytes : split_strided_shared_bytes();
    int g = 1;
    while (2 * g * s.n2 <= kWorkgroup && 2 * g * s.line * 8 <= bytes) g *= 2;
    return g;
}

const LineKernel& split_line_kernel(const Words& words) {
    const Words key = kernel_key(words);
    return once_per_key(key, [&] {
        const int G = split_lines_per_group(key);
        const SplitLayout lay(key[desc::Length]);
        const bool strided = key[desc::InStride] != 1 || key[desc::OutStride] != 1;
        return group_kernel(static_cast<std::uint32_t>(G * lay.n2),
            kernel_name("fft_split_lines_", key) + (strided ? "_strided" : "") + "(src, dst, twiddles, schedule, at, scale)", kInRange,
            [key, G, lay](Array<float2> src, Array<float2> dst, Array<float2> tw, Array<std::int32_t> schedule, Int at, Float scale) {
                const int n1 = lay.n1, n2 = lay.n2;
                auto word = [&](int w) { return key[static_cast<std::size_t>(w)]; };
                const int c0 = word(desc::Count0), c1 = word(desc::Count1), c2 = word(desc::Count2);
                Shared<float2> buf(G * lay.line, dsl::Unchecked{});
                Int lines = schedule.load(at + int(desc::Lines));
                Int line_twiddles = schedule.load(at + int(desc::LineTwiddles));
                // An invocation's line of the group and its column (load) or
                // row (store): where the pass's elements are contiguous, a
                // line's columns side by side; where strided, the group's
                // lines side by side (neighbouring elements either way).
                auto place = [&](int stride, Int& g, Int& j) {
                    g = stride == 1 ? local_id() / n2 : local_id() % G;
                    j = stride == 1 ? local_id() % n2 : local_id() / G;
                };
                auto address = [&](const Expr<std::int32_t>& l, int mul0) {
                    return line_address(l, c0, c1, c2, [&](int i) { return word(mul0 + i); });
                };
                {
                    // Column j: elements t = j + n2 k1 (pre-twiddled by w_M^(d1 t) in a
                    // pass after a line's first), its n1-point DFT, twiddled by w_R^(j k1).
                    Int g = 0, j = 0;
                    place(word(desc::InStride), g, j);
                    Int l = group_id() * G + g;
                    If(l < lines, [&] {
                        Int base = address(l, desc::InMul0);
                        Int d1 = (l / c0) % c1;
                        Int pre_fine = schedule.load(at + int(desc::PreFine)), pre_coarse = schedule.load(at + int(desc::PreCoarse));
                        std::vector<C> x;
                        for (int k1 = 0; k1 < n1; ++k1) {
                            Int t = j + n2 * k1;
                            const C loaded = src.load(base + t * word(desc::InStride));
                            const C v = word(desc::ConjIn) ? conj(loaded) : loaded;
                            if (!word(desc::PreTwiddle)) {
                                x.push_back(v);
                                continue;
                            }
                            x.push_back(cmul(v, pre_twiddle(tw, pre_coarse, pre_fine, d1 * t)));
                        }
                        const std::vector<C> y = register_fft(x);
                        for (int k1 = 0; k1 < n1; ++k1) {
                            const C& v = y[static_cast<std::size_t>(k1)];
                            buf.store(lay.at(g, Int(k1), j), k1 == 0 ? v : cmul(v, tw.load(line_twiddles + j * k1)));
                        }
                    });
                }
                barrier();
                // Rows k1 = j, j + n2, ...: their n2-point DFTs are X[k1 + n1 k2].
                Int g = 0, j = 0;
                place(word(desc::OutStride), g, j);
                Int l = group_id() * G + g;
                Int base = address(l, desc::OutMul0);
                for (int first = 0; first < n1; first += n2) {
                    Int k1 = j + first;
                    If(l < lines && k1 < n1, [&] {
                        std::vector<C> x;
                        for (int t = 0; t < n2; ++t) x.push_back(buf.load(lay.at(g, k1, Int(t))));
                        const std::vector<C> y = register_fft(x);
                        for (int k2 = 0; k2 < n2; ++k2) {
                            C v = y[static_cast<std::size_t>(k2)] * scale;
                            dst.store(base + (k1 + n1 * k2) * word(desc::OutStride), word(desc::ConjOut) ? conj(v) : v);
                        }
                    });
                }
            });
    });
}

SplitLine3 split_line3(int R) {
    SplitLine3 best{0, 0, 0};
    for (int n1 = 2; n1 <= kSplitLongestColumn && best.n1 == 0; ++n1) {
        if (R % n1) continue;
        for (int n2 = 2; n2 <= n1; ++n2) {
            if ((R / n1) % n2) continue;
            const int n3 = R / n1 / n2;
            if (n3 >= 2 && n3 <= n2 && n3 > best.n3) best = {n1, n2, n3};
        }
    }
    return best;
}

bool split3(const Words& w) {
    // RILL_FFT_NO_THREE_STEP=1 leaves these passes to the line kernels (an A/B knob, docs/TUNING.md).
    static const bool off = env_flag("RILL_FFT_NO_THREE_STEP");
    const int R = w[desc::Length];
    return !off && R > kStagedLongest && R <= kSplit3Longest && !split(w) && split_line3(R).n1 > 0;
}

namespace {

/// The three-step split of a line of R = n1 n2 n3 elements held in a
/// workgroup's buffer of R float2 (split3_line_kernel), for invocation v of
/// T = R / n1, in three steps with a barrier after each of the first two.
struct ThreeStep {
    const Shared<float2>& buf;
    const Array<float2>& tw;
    Expr<std::int32_t> line_twiddles;  // w_R^q, q < R, in tw
    Expr<std::int32_t> v;
    int R, n1, n2, n3, m, T;
    bool swizzled;

    ThreeStep(const Shared<float2>& b, const Array<float2>& t, const Expr<std::int32_t>& twiddles_at, const Expr<std::int32_t>& invocation,
              int length)
        : buf(b), tw(t), line_twiddles(twiddles_at), v(invocation), R(length) {
        const SplitLine3 f = split_line3(R);
        n1 = f.n1, n2 = f.n2, n3 = f.n3, m = n2 * n3, T = R / n1;
        swizzled = R % 16 == 0;
    }

    /// Element p of the line at p with bits 0-3 XORed with bits 4-7 and 8-11
    /// where R is a multiple of 16 (a bijection on each aligned run of 16): a
    /// half-warp's stores of a column's outputs (neighbouring p), its loads of
    /// the columns j' (p n3 apart within a row, rows m apart) and of the rows
    /// (k1, i') (p m apart) then fall in 16 banks for R = 2048 and 4096.
    Expr<std::int32_t> slot(const Expr<std::int32_t>& p) const {
        return swizzled ? Expr<std::int32_t>(p ^ (((p >> 4) ^ (p >> 8)) & 15)) : p;
    }

    /// Step one's DFT of column v: x[k1] is element t = v + m k1 of the line;
    /// returns its n1-point DFT twiddled by w_R^(v k1), which store_column puts in row k1.
    std::vector<C> column(const std::vector<C>& x) const {
        const std::vector<C> y = register_fft(x);
        std::vector<C> twiddled{y[0]};
        for (int k1 = 1; k1 < n1; ++k1) twiddled.push_back(cmul(y[static_cast<std::size_t>(k1)], tw.load(line_twiddles + v * k1)));
        return twiddled;
    }
    template <class Value>
    void store_column(const Value& y) const {
        for (int k1 = 0; k1 < n1; ++k1) buf.store(slot(v + m * k1), y[static_cast<std::size_t>(k1)]);
    }

    /// Step two, in place: column j' of row k1 (DFT d = k1 n3 + j' of n1 n3),
    /// its n2-point DFT twiddled by w_m^(j' i') = w_R^(n1 j' i').
    void inner_columns() const {
        const int columns = n1 * n3;
        for (int first = 0; first < columns; first += T) {
            auto one = [&] {
                Int d = v + first;
                Int k1 = d / n3, jp = d % n3;
                Int row = k1 * m + jp;
                std::vector<C> x;
                for (int i = 0; i < n2; ++i) x.push_back(buf.load(slot(row + n3 * i)));
                const std::vector<C> y = register_fft(x);
                for (int ip = 0; ip < n2; ++ip) {
                    const C& e = y[static_cast<std::size_t>(ip)];
                    buf.store(slot(row + n3 * ip), ip == 0 ? e : cmul(e, tw.load(line_twiddles + jp * (n1 * ip))));
                }
            };
            if (first + T <= columns) one();
            else If(v + first < columns, one);
        }
    }

    /// Step three: row (k1, i') (DFT d = i' n1 + k1 of n1 n2, neighbouring
    /// invocations neighbouring k1), whose n3-point DFT is X[k1 + n1 (i' + n2
    /// k)] = X[d + n1 n2 k]: out(b, d, k, X) for the invocation's b-th row,
    /// where `active` holds.
    template <class Out>
    void rows(const Expr<bool>& active, const Out& out) const {
        const int count = n1 * n2;
        for (int first = 0, b = 0; first < count; first += T, ++b) {
            auto one = [&] {
                Int d = v + first;
                Int ip = d / n1, k1 = d % n1;
                Int row = k1 * m + ip * n3;
                std::vector<C> x;
                for (int jp = 0; jp < n3; ++jp) x.push_back(buf.load(slot(row + jp)));
                const std::vector<C> y = register_fft(x);
                for (int k = 0; k < n3; ++k) out(b, Expr<std::int32_t>(d), k, y[static_cast<std::size_t>(k)]);
            };
            if (first + T <= count) If(active, one);
            else If(active && v + first < count, one);
        }
    }
    /// Rows an invocation takes in step three.
    int rows_each() const { return (n1 * n2 + T - 1) / T; }
};

}  // namespace

const LineKernel& split3_line_kernel(const Words& words) {
    const Words key = kernel_key(words);
    return once_per_key(key, [&] {
        const int R = key[desc::Length];
        const int T = R / split_line3(R).n1;
        const bool strided = key[desc::InStride] != 1 || key[desc::OutStride] != 1;
        return group_kernel(static_cast<std::uint32_t>(T),
            kernel_name("fft_split3_lines_", key) + (strided ? "_strided" : "") + "(src, dst, twiddles, schedule, at, scale)", kInRange,
            [key, R](Array<float2> src, Array<float2> dst, Array<float2> tw, Array<std::int32_t> schedule, Int at, Float scale) {
                const bool conj_in = key[desc::ConjIn] != 0, conj_out = key[desc::ConjOut] != 0;
                auto word = [&](int w) { return key[static_cast<std::size_t>(w)]; };
                const int c0 = word(desc::Count0), c1 = word(desc::Count1), c2 = word(desc::Count2);
                const int in_stride = word(desc::InStride), out_stride = word(desc::OutStride);
                auto address = [&](const Expr<std::int32_t>& line, int mul0) {
                    return line_address(line, c0, c1, c2, [&](int i) { return word(mul0 + i); });
                };
                Shared<float2> buf(R, dsl::Unchecked{});
                Int lines = schedule.load(at + int(desc::Lines));
                Int l = group_id();
                const ThreeStep s(buf, tw, schedule.load(at + int(desc::LineTwiddles)), local_id(), R);
                // Column v (elements t = v + m k1, pre-twiddled by w_M^(d1 t) in a
                // pass after a line's first). Strided lines are read an element per
                // invocation, neighbouring lines by neighbouring workgroups.
                If(l < lines, [&] {
                    Int in_base = address(l, desc::InMul0);
                    const bool pre = word(desc::PreTwiddle) != 0;
                    Int d1 = pre ? Expr<std::int32_t>((l / c0) % c1) : Expr<std::int32_t>(0);
                    Int pre_fine = pre ? schedule.load(at + int(desc::PreFine)) : Expr<std::int32_t>(0);
                    Int pre_coarse = pre ? schedule.load(at + int(desc::PreCoarse)) : Expr<std::int32_t>(0);
                    std::vector<C> x;
                    for (int k1 = 0; k1 < s.n1; ++k1) {
                        Int t = s.v + s.m * k1;
                        const C loaded = src.load(in_base + t * in_stride);
                        const C e = conj_in ? conj(loaded) : loaded;
                        if (pre) x.push_back(cmul(e, pre_twiddle(tw, pre_coarse, pre_fine, d1 * t)));
                        else x.push_back(e);
                    }
                    s.store_column(s.column(x));
                });
                barrier();
                s.inner_columns();
                barrier();
                Int out_base = address(l, desc::OutMul0);
                const int rows = s.n1 * s.n2;
                s.rows(l < lines, [&](int, const Expr<std::int32_t>& d, int k, const C& X) {
                    const C e = X * scale;
                    dst.store(out_base + (d + rows * k) * out_stride, conj_out ? conj(e) : e);
                });
            });
    });
}

bool bluestein_in_one(std::int64_t padded) {
    static const bool off = env_flag("RILL_FFT_NO_THREE_STEP");
    return !off && padded <= kSplit3Longest && split_line3(static_cast<int>(padded)).n1 > 0;
}

const BluesteinKernel& bluestein_kernel(int length, int padded, std::int64_t inner, bool inverse) {
    static std::mutex mutex;
    static std::map<std::tuple<int, int, std::int64_t, bool>, std::unique_ptr<BluesteinKernel>> kernels;
    std::lock_guard lock(mutex);
    auto& k = kernels[{length, padded, inner, inverse}];
    if (k) return *k;
    const int M = padded, n = length;
    const int T = M / split_line3(M).n1;
    const int W = static_cast<int>(inner);
    k = std::make_unique<BluesteinKernel>(group_kernel(static_cast<std::uint32_t>(T),
        "fft_bluestein_" + std::to_string(n) + "_in_" + std::to_string(M) + (W != 1 ? "_strided" : "") + (inverse ? "_inverse" : "") +
            "(x, y, twiddles, chirp_at, filter_at, line_twiddles, lines, scale)",
        kInRange, [n, M, W, inverse](Array<float2> x, Array<float2> y, Array<float2> tw, Int chirp_at, Int filter_at, Int line_twiddles,
                                     Int lines, Float scale) {
            Shared<float2> buf(M, dsl::Unchecked{});
            const ThreeStep s(buf, tw, line_twiddles, local_id(), M);
            Int l = group_id();
            Expr<bool> active = l < lines;
            // Line l's element t at (o n + t) W + i, o = l / W, i = l % W.
            Int base = W == 1 ? Expr<std::int32_t>(l * n) : Expr<std::int32_t>((l / W) * (n * W) + l % W);
            // a_t = x_t w_t (x conjugated for an inverse), 0 from n to M.
            If(active, [&] {
                std::vector<C> a;
                for (int k1 = 0; k1 < s.n1; ++k1) {
                    if (s.m * k1 >= n) {
                        a.push_back(Expr<float2>(0.0f, 0.0f));
                        continue;
                    }
                    Int t = s.v + s.m * k1;
                    const bool inside = s.m * (k1 + 1) <= n;
                    // Past n the index is clamped (never read out of the stream) and the value dropped.
                    Int u = inside ? Expr<std::int32_t>(t) : Expr<std::int32_t>(min(t, Expr<std::int32_t>(n - 1)));
                    const C loaded = x.load(base + u * W);
                    const C e = cmul(inverse ? conj(loaded) : loaded, tw.load(chirp_at + u));
                    if (inside) a.push_back(e);
                    else a.push_back(select(t < n, e, Expr<float2>(0.0f, 0.0f)));
                }
                s.store_column(s.column(a));
            });
            barrier();
            s.inner_columns();
            barrier();
            // A = DFT(a) times the filter's transform F; the inverse DFT of their
            // product as conj(DFT(conj(A F))), so the second transform is the first's code.
            std::deque<Var<float2>> held;
            for (int i = 0; i < s.rows_each() * s.n3; ++i) held.emplace_back();
            const int rows = s.n1 * s.n2;
            s.rows(active, [&](int b, const Expr<std::int32_t>& d, int k, const C& A) {
                held[static_cast<std::size_t>(b * s.n3 + k)] = conj(cmul(A, tw.load(filter_at + d + rows * k)));
            });
            barrier();
            s.rows(active, [&](int b, const Expr<std::int32_t>& d, int k, const C&) {
                buf.store(s.slot(d + rows * k), held[static_cast<std::size_t>(b * s.n3 + k)]);
            });
            barrier();
            // Column v of the product, read before any invocation writes rows.
            std::deque<Var<float2>> column;
            for (int k1 = 0; k1 < s.n1; ++k1) column.emplace_back();
            If(active, [&] {
                std::vector<C> p;
                for (int k1 = 0; k1 < s.n1; ++k1) p.push_back(buf.load(s.slot(s.v + s.m * k1)));
                const std::vector<C> c = s.column(p);
                for (int k1 = 0; k1 < s.n1; ++k1) column[static_cast<std::size_t>(k1)] = c[static_cast<std::size_t>(k1)];
            });
            barrier();
            If(active, [&] { s.store_column(column); });
            barrier();
            s.inner_columns();
            barrier();
            // y_t = scale w_t conj(B_t) for t < n (conjugated for an inverse).
            s.rows(active, [&](int, const Expr<std::int32_t>& d, int k, const C& B) {
                if (rows * k >= n) return;
                Int t = d + rows * k;
                auto put = [&] {
                    const C e = cmul(conj(B), tw.load(chirp_at + t)) * scale;
                    y.store(base + t * W, inverse ? conj(e) : e);
                };
                if (rows * (k + 1) <= n) put();
                else If(t < n, put);
            });
        }));
    return *k;
}

const LineKernel& staged_line_kernel(const Words& words) {
    const Words key = kernel_key(words);
    return once_per_key(key, [&] {
        const int R = key[desc::Length];
        const bool conj_in = key[desc::ConjIn] != 0, conj_out = key[desc::ConjOut] != 0;
        return group_kernel<kStagedLines>(
            kernel_name("fft_staged_lines_", key) + "(src, dst, twiddles, schedule, at, scale)", kInRange,
            [R, conj_in, conj_out](Array<float2> src, Array<float2> dst, Array<float2>, Array<std::int32_t> schedule, Int at,
                                   Float scale) {
                // Line l at l P in shared memory, P odd: an invocation's t-th
                // elements then fall in different banks (lines of an even length
                // side by side put many invocations' in one bank).
                const int P = R % 2 == 0 ? R + 1 : R;
                Shared<float2> buf(kStagedLines * P, dsl::Unchecked{});
                auto slot = [&](const Expr<std::int32_t>& e) -> Expr<std::int32_t> { return P == R ? e : e + e / R; };
                Int lines = schedule.load(at + int(desc::Lines));
                Int first = group_id() * kStagedLines;
                // Contiguous lines (a single pass over whole lines) lie at l R.
                Int base = first * R, here = min(lines - first, Int(kStagedLines)) * R;
                for (int k = 0; k < R; ++k) {
                    Int e = local_id() + k * kStagedLines;
                    If(e < here, [&] { buf.store(slot(e), src.load(base + e)); });
                }
                barrier();
                Int l = local_id();
                If(first + l < lines, [&] {
                    std::vector<C> x;
                    for (int t = 0; t < R; ++t) {
                        C v = buf.load(l * P + t);
                        x.push_back(conj_in ? conj(v) : v);
                    }
                    const std::vector<C> y = register_fft(x);
                    // Only this invocation reads or writes its line's elements: no barrier between.
                    for (int t = 0; t < R; ++t) {
                        C v = y[static_cast<std::size_t>(t)] * scale;
                        buf.store(l * P + t, conj_out ? conj(v) : v);
                    }
                });
                barrier();
                for (int k = 0; k < R; ++k) {
                    Int e = local_id() + k * kStagedLines;
                    If(e < here, [&] { dst.store(base + e, buf.load(slot(e))); });
                }
            });
    });
}

bool large_radices(const Words& words) {
    for (int p = 0; p < words[desc::RadixCount]; ++p)
        if (words[static_cast<std::size_t>(desc::Radices + p)] > 8) return true;
    return false;
}

const LineKernel& generic_line_kernel(int capacity, bool large_radices) {
    // Each made at its first use: a process pays only for those its transforms need.
    auto make = [](int c, bool large) {
        return make_line_kernel(c, std::nullopt, large, "fft_lines_" + std::to_string(c) + (large ? "_all_radices" : ""));
    };
    if (capacity == kShortLine) {
        if (large_radices) {
            static const LineKernel k = make(kShortLine, true);
            return k;
        }
        static const LineKernel k = make(kShortLine, false);
        return k;
    }
    if (large_radices) {
        static const LineKernel k = make(kLineElements, true);
        return k;
    }
    static const LineKernel k = make(kLineElements, false);
    return k;
}

const LineKernel& line_kernel(int capacity, const Words& words) {
    const Words key = kernel_key(words);
    return once_per_key(std::pair{capacity, key},
                        [&] { return make_line_kernel(capacity, key, true, kernel_name("fft_lines_", key)); });
}

const LineKernel& lockstep_line_kernel(const Words& words) {
    const Words key = kernel_key(words);
    return once_per_key(key, [&] { return make_lockstep_kernel(key, kernel_name("fft_lockstep_lines_", key)); });
}

const RealToComplex& real_to_complex() {
    static const RealToComplex k = group_kernel<kWorkgroup>("fft_real_to_complex(in, out, count)", kInRange,
                                                            [](Array<float> in, Array<float2> out, Int count) {
        Int i = global_id();
        If(i < count, [&] { out.store(i, Expr<float2>(in.load(i), 0.0f)); });
    });
    return k;
}

namespace {

/// The row and the element in it of this invocation where groups_per_row
/// workgroups take each row: one division per workgroup, not per element.
std::pair<Int, Int> row_and_element(const Expr<std::int32_t>& groups_per_row) {
    Int r = group_id() / groups_per_row;
    Int k = (group_id() - r * groups_per_row) * kWorkgroup + local_id();
    return {r, k};
}

}  // namespace

const PackPairs& pack_pairs() {
    static const PackPairs k = group_kernel<kWorkgroup>("fft_pack_pairs(in, out, count)", kInRange,
                                                        [](Array<float> in, Array<float2> out, Int count) {
        Int i = global_id();
        If(i < count, [&] { out.store(i, Expr<float2>(in.load(2 * i), in.load(2 * i + 1))); });
    });
    return k;
}

const UnpackHalf& unpack_half() {
    static const UnpackHalf k = group_kernel<kWorkgroup>(
        "fft_unpack_half(Z, out, twiddles, roots_at, m, groups_per_row)", kInRange,
        [](Array<float2> Z, Array<float2> out, Array<float2> tw, Int roots_at, Int m, Int groups_per_row) {
            const auto [r, k] = row_and_element(groups_per_row);
            If(k <= m, [&] {
                Int row = r * m;
                Expr<float2> zk = Z.load(row + select(k == m, Expr<std::int32_t>(0), Expr<std::int32_t>(k)));
                Expr<float2> zm = conj(Z.load(row + select(k == 0, Expr<std::int32_t>(0), Expr<std::int32_t>(m - k))));
                Expr<float2> even = (zk + zm) * 0.5f, odd = mul_neg_i(zk - zm) * 0.5f;
                out.store(r * (m + 1) + k, even + cmul(tw.load(roots_at + k), odd));
            });
        });
    return k;
}

const PackHalf& pack_half() {
    static const PackHalf k = group_kernel<kWorkgroup>(
        "fft_pack_half(X, Z, twiddles, roots_at, m, groups_per_row)", kInRange,
        [](Array<float2> X, Array<float2> Z, Array<float2> tw, Int roots_at, Int m, Int groups_per_row) {
            const auto [r, k] = row_and_element(groups_per_row);
            If(k < m, [&] {
                Int row = r * (m + 1);
                // X_0's and X_m's imaginary parts are not a real signal's: ignored, as FFTW does.
                auto x = [&](const Expr<std::int32_t>& j) {
                    Expr<float2> v = X.load(row + j);
                    return Expr<float2>(v.x(), select(j == 0 || j == m, Expr<float>(0.0f), v.y()));
                };
                Expr<float2> xk = x(k), xm = conj(x(m - k));
                Z.store(r * m + k, (xk + xm) + mul_i(cmul(xk - xm, conj(tw.load(roots_at + k)))));
            });
        });
    return k;
}

const UnpackPairs& unpack_pairs() {
    static const UnpackPairs k = group_kernel<kWorkgroup>("fft_unpack_pairs(in, out, count)", kInRange,
                                                          [](Array<float2> in, Array<float> out, Int count) {
        Int i = global_id();
        If(i < count, [&] {
            Expr<float2> v = in.load(i);
            out.store(2 * i, v.x());
            out.store(2 * i + 1, v.y());
        });
    });
    return k;
}

const HalfRows& half_rows() {
    static const HalfRows k = group_kernel<kWorkgroup>("fft_half_rows(in, out, rows, n, h)", kInRange,
                                                       [](Array<float2> in, Array<float2> out, Int rows, Int n, Int h) {
        Int i = global_id();
        If(i < rows * h, [&] {
            Int r = i / h;
            out.store(i, in.load(r * n + (i - r * h)));
        });
    });
    return k;
}

const HermitianRows& hermitian_rows() {
    static const HermitianRows k = group_kernel<kWorkgroup>(
        "fft_hermitian_rows(in, out, rows, n, h)", kInRange, [](Array<float2> in, Array<float2> out, Int rows, Int n, Int h) {
            Int i = global_id();
            If(i < rows * n, [&] {
                Int r = i / n, c = i - r * n;
                If(c < h, [&] { out.store(i, in.load(r * h + c)); }).Else([&] { out.store(i, conj(in.load(r * h + n - c))); });
            });
        });
    return k;
}

const RealPart& real_part() {
    static const RealPart k = group_kernel<kWorkgroup>("fft_real_part(in, out, count)", kInRange,
                                                       [](Array<float2> in, Array<float> out, Int count) {
        Int i = global_id();
        If(i < count, [&] { out.store(i, in.load(i).x()); });
    });
    return k;
}

namespace {

/// The (outer, length, inner) index of element t of line l: (o length + t)
/// inner + (l - o inner), o = l / inner, without the division for 1D
/// transforms (inner = 1).
Expr<std::int32_t> axis_index(const Expr<std::int32_t>& l, const Expr<std::int32_t>& t, const Expr<std::int32_t>& length,
                              const Expr<std::int32_t>& inner) {
    Int at = l * length + t;
    If(inner != 1, [&] {
        Int o = l / inner;
        at = (o * length + t) * inner + (l - o * inner);
    });
    return at;
}

}  // namespace

const ChirpIn& chirp_in() {
    // m is a power of two: lines and elements by shifts and masks, not divisions.
    static const ChirpIn k = group_kernel<kWorkgroup>(
        "fft_chirp_in(x, a, twiddles, chirp_at, length, inner, shift, lines, conj_in)", kInRange,
        [](Array<float2> x, Array<float2> a, Array<float2> tw, Int chirp_at, Int length, Int inner, Int shift, Int lines,
           Int conj_in) {
            Int i = global_id();
            If(i < lines << shift, [&] {
                Int t = i & ((1 << shift) - 1);
                Float2 v = Expr<float2>(0.0f, 0.0f);
                If(t < length, [&] {
                    v = x.load(axis_index(i >> shift, t, length, inner));
                    If(conj_in != 0, [&] { v = conj(v); });
                    v = cmul(v, tw.load(chirp_at + t));
                });
                a.store(i, v);
            });
        });
    return k;
}

const ChirpFilter& chirp_filter() {
    static const ChirpFilter k = group_kernel<kWorkgroup>("fft_chirp_filter(a, twiddles, filter_at, shift, count)", kInRange,
                                                          [](Array<float2> a, Array<float2> tw, Int filter_at, Int shift, Int count) {
        Int i = global_id();
        If(i < count, [&] { a.store(i, cmul(a.load(i), tw.load(filter_at + (i & ((1 << shift) - 1))))); });
    });
    return k;
}

const ChirpOut& chirp_out() {
    // An invocation per element of the m-long lines, the ones past `length`
    // idle: cheaper than dividing by a length that is no power of two.
    static const ChirpOut k = group_kernel<kWorkgroup>(
        "fft_chirp_out(a, y, twiddles, chirp_at, length, inner, shift, lines, conj_out, scale)", kInRange,
        [](Array<float2> a, Array<float2> y, Array<float2> tw, Int chirp_at, Int length, Int inner, Int shift, Int lines,
           Int conj_out, Float scale) {
            Int i = global_id();
            Int t = i & ((1 << shift) - 1);
            If(i < lines << shift && t < length, [&] {
                Float2 v = cmul(a.load(i), tw.load(chirp_at + t)) * scale;
                If(conj_out != 0, [&] { v = conj(v); });
                y.store(axis_index(i >> shift, t, length, inner), v);
            });
        });
    return k;
}

}  // namespace rill::fft::detail
