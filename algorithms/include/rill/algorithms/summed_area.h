// Summed-area tables of 2D streams (Crow 1984; GPU Gems 3 ch. 39.3.2), and the
// box filter of any per-pixel size they make O(1) per pixel.
//
//   rill::summed_area_table(image, sat);     // sat[y][x] = sum of image[0..y][0..x]
//   rill::box_filter(sat, radius, out);      // out[y][x] = mean of image over the box
//                                            //   [y - r, y + r] x [x - r, x + r] (r = radius[y][x]), clipped
//
// The table is a scan of every row, then of every column: rows scan as one
// segmented scan with a head at each row start; columns the same way between
// two transposes, so both passes read rows. Integer elements give exact
// tables (uint32 holds 8-bit pixels up to 16.8 M of them); float tables
// lose the low bits of small boxes far from the origin (Hensley et al. 2005).
#pragma once

#include <rill/algorithms/segmented_scan.h>

namespace rill {

namespace detail::summed_area {

/// out[x][y] = in[y][x] for in of h x w.
template <class T>
void transpose(const Stream<T>& in, const Stream<T>& out, std::int64_t h, std::int64_t w) {
    static const auto kernel = group_kernel<256>("sat_transpose(in, out, h, w)", [](Array<T> in, Array<T> out, Int h, Int w) {
        Int i = global_id();
        If(i < h * w, [&] {
            Int y = i / w;
            Int x = i - y * w;
            out.store(x * h + y, in.load(i));
        });
    });
    kernel(Groups{(h * w + 255) / 256}, in, out, static_cast<std::int32_t>(h), static_cast<std::int32_t>(w));
}

/// Inclusive sums of every run of w consecutive elements of s, in place.
template <class T>
void scan_rows(const Stream<T>& s, std::int64_t w) {
    static const Scan<T> sum("sat_sum", [](const dsl::read_t<T>& a, const dsl::read_t<T>& b) { return a + b; }, T{});
    static const auto heads_kernel = group_kernel<256>("sat_row_heads(heads, n, w)", [](Array<std::uint32_t> heads, Int n, Int w) {
        Int i = global_id();
        If(i < n, [&] { heads.store(i, select(i % w == 0, 1u, 0u)); });
    });
    const std::int64_t n = s.size();
    auto heads = Runtime::of(s).template stream<std::uint32_t>({n});
    heads_kernel(Groups{(n + 255) / 256}, heads, static_cast<std::int32_t>(n), static_cast<std::int32_t>(w));
    sum.inclusive(s, s, heads);
}

/// Floats of T's shape: what a box mean is.
template <class T>
struct Mean {
    using type = float;
};
template <class S, int N>
struct Mean<vec<S, N>> {
    using type = vec<float, N>;
};

}  // namespace detail::summed_area

/// sat[y][x] = the sum of image[0..y][0..x], for a 2D stream of int32,
/// uint32 or float scalars or vectors. sat may be image (in place).
template <class T>
void summed_area_table(const Stream<T>& image, const Stream<T>& sat) {
    if (image.shape().rank != 2)
        throw Error("rill::summed_area_table: the image has shape " + image.shape().str() + "; give a 2D stream (rows x columns)");
    if (!(image.shape() == sat.shape()))
        throw Error("rill::summed_area_table: the image has shape " + image.shape().str() + " but the table has shape " +
                    sat.shape().str() + "; give a table of the image's shape");
    const std::int64_t h = image.shape()[0], w = image.shape()[1];
    if (h * w == 0) return;
    auto columns = Runtime::of(image).template stream<T>({w, h});
    if (image.buffer() != sat.buffer()) detail::copy_stream(image, sat);
    detail::summed_area::scan_rows(sat, w);
    detail::summed_area::transpose(sat, columns, h, w);
    detail::summed_area::scan_rows(columns, h);
    detail::summed_area::transpose(columns, sat, w, h);
}

/// out[y][x] = the mean of the image over the box of half-width radius[y][x]
/// (0: the pixel itself) around (y, x), clipped to the image, from its
/// summed-area table. out holds floats of T's shape (float4 for uint4).
template <class T>
void box_filter(const Stream<T>& sat, const Stream<std::int32_t>& radius, const Stream<typename detail::summed_area::Mean<T>::type>& out) {
    using M = typename detail::summed_area::Mean<T>::type;
    static const auto kernel = group_kernel<256>("sat_box_filter(sat, radius, out, h, w)",
                                                 [](Array<T> sat, Array<std::int32_t> radius, Array<M> out, Int h, Int w) {
        Int i = global_id();
        If(i < h * w, [&] {
            Int y = i / w;
            Int x = i - y * w;
            Int r = max(radius.load(i), 0);
            Int y0 = max(y - r, 0) - 1, y1 = min(y + r, h - 1);
            Int x0 = max(x - r, 0) - 1, x1 = min(x + r, w - 1);
            // Corners before row or column 0 add nothing.
            auto at = [&](const Int& yy, const Int& xx) {
                return select(yy >= 0 && xx >= 0, sat.load(max(yy, 0) * w + max(xx, 0)), Expr<T>(T{}));
            };
            Expr<T> sum = at(y1, x1) - at(y0, x1) - at(y1, x0) + at(y0, x0);
            Expr<float> area = cast<float>((y1 - y0) * (x1 - x0));
            out.store(i, cast<M>(sum) / area);
        });
    });
    if (sat.shape().rank != 2)
        throw Error("rill::box_filter: the table has shape " + sat.shape().str() + "; give the 2D summed-area table of an image");
    if (!(radius.shape() == sat.shape()) || !(out.shape() == sat.shape()))
        throw Error("rill::box_filter: the table has shape " + sat.shape().str() + ", the radii " + radius.shape().str() +
                    " and the output " + out.shape().str() + "; give one radius and one output per pixel");
    const std::int64_t h = sat.shape()[0], w = sat.shape()[1];
    if (h * w == 0) return;
    if (h * w > 0x7fffffff) throw Error("rill::box_filter: more than 2^31 - 1 pixels; split the image");
    kernel(Groups{(h * w + 255) / 256}, sat, radius, out, static_cast<std::int32_t>(h), static_cast<std::int32_t>(w));
}

}  // namespace rill
