// The FFT's element-wise kernels (kernels.h): real rows packed as complex
// ones and back, the half spectra of real transforms, and the chirp steps of
// Bluestein's algorithm where it runs as five kernels.
#include "kernel_support.h"

namespace rill::fft::detail {

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
