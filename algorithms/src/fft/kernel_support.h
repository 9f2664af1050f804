// What the FFT's kernel files share (internal to src/fft): DFTs in registers
// traced from C++ (dft, register_fft), twiddles, a pass's line addresses, and
// the keys, names and process-wide cache of the kernels specialized to a pass.
#pragma once

#include <cmath>
#include <map>
#include <memory>
#include <mutex>
#include <numbers>
#include <string>
#include <utility>
#include <vector>

#include <rill/dsl/complex.h>

#include "kernels.h"

namespace rill::fft::detail {

using C = Expr<float2>;

/// The lockstep and element-wise kernels index only within the streams a
/// plan made or checked (their sizes are the plan's, the last lines of a pass
/// are checked in the code), so they skip rill's bounds checks. A new shape
/// builds its kernels when it is first used: without spirv-opt where the
/// driver optimizes as well (on an H100 every transform of the bench ran as
/// fast without it, and its cold builds took 134 ms a kernel against 238:
/// docs/PERFORMANCE.md#dispatch-and-compile-cost).
inline const GroupOptions kInRange{.spirv_opt = SpirvOpt::UnlessTheDriverOptimizes, .unchecked_arrays = true};

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
template <class T>
T rotated(const T& z, int q, int n) {
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
inline C pre_twiddle(const Array<float2>& tw, const Expr<std::int32_t>& coarse, const Expr<std::int32_t>& fine, const Expr<std::int32_t>& q) {
    return cmul(tw.load(coarse + (q >> kFineBits)), tw.load(fine + (q & (kFine - 1))));
}

/// The forward DFT of x in registers, for any length whose prime factors are
/// among kRadices: Cooley-Tukey by the first of kRadices that divides the
/// length (n = r m: the m-point transforms of the r decimated sequences,
/// twiddled by w_n^(n1 k2), then r-point DFTs across them), dft() at the leaves;
/// of one complex number per element (C) or of several lines' (Lanes).
template <class C>
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

/// The first element's address of line l of a pass: l's digits d0 = l % c0,
/// d1 = (l / c0) % c1, d2 = (l / c0 / c1) % c2 and d3 = the rest, times the
/// multipliers mul(0) .. mul(3) (desc::Count0 .., desc::InMul0 .. or OutMul0 ..).
template <class Count, class Mul>
Expr<std::int32_t> line_address(const Expr<std::int32_t>& l, const Count& c0, const Count& c1, const Count& c2, const Mul& mul) {
    Int q1 = l / c0, q2 = q1 / c1;
    return (l - q1 * c0) * mul(0) + (q1 - q2 * c1) * mul(1) + (q2 % c2) * mul(2) + (q2 / c2) * mul(3);
}

/// line_address of a specialized pass, whose counts and multipliers are
/// known: the first element of line l as read (mul0 = desc::InMul0) or
/// written (desc::OutMul0).
inline Expr<std::int32_t> known_line_address(const Words& key, const Expr<std::int32_t>& l, int mul0) {
    return line_address(l, key[desc::Count0], key[desc::Count1], key[desc::Count2],
                        [&](int i) { return key[static_cast<std::size_t>(mul0 + i)]; });
}

/// body(b, j) for item j = t + b T of invocation t's items among `count`
/// (T invocations sharing them), unrolled, the last only where it exists.
template <class Body>
void each_item(int count, const Expr<std::int32_t>& t, int T, const Body& body) {
    for (int first = 0, b = 0; first < count; first += T, ++b) {
        auto one = [&] { body(b, Expr<std::int32_t>(t + first)); };
        if (first + T <= count) one();
        else If(t + first < count, one);
    }
}

/// Words of a pass that stay run-time values in a specialized kernel: the
/// number of lines (a batch's size) and where the twiddle tables are.
inline bool run_time_word(int w) {
    return w == desc::Lines || w == desc::LineTwiddles || w == desc::PreFine || w == desc::PreCoarse || w == desc::RegisterTwiddles;
}

/// A specialized kernel's key: the pass's words with those that stay run-time values zeroed.
inline Words kernel_key(const Words& words) {
    Words key = words;
    for (int w = 0; w < desc::Words; ++w)
        if (run_time_word(w)) key[static_cast<std::size_t>(w)] = 0;
    return key;
}

/// A readable name for dumps and profiles: the prefix, the line length and the radices.
inline std::string kernel_name(const std::string& prefix, const Words& key) {
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

}  // namespace rill::fft::detail
