// Stencil iterations over 2D streams: every element's next value is a DSL
// function of its neighbourhood, applied `iterations` times with ping-pong
// buffers on the device.
//
//   rill::Stencil<float> smooth("smooth", 1, [](const rill::Neighbourhood<float>& n, const rill::Expr<rill::float4>& p) {
//       return n(0, 0) + p.x() * (n(-1, 0) + n(1, 0) + n(0, -1) + n(0, 1) - 4.0f * n(0, 0));
//   }, rill::Boundary::Clamp);
//   smooth(image, out, 100, rill::float4{0.2f, 0, 0, 0});   // 100 iterations, p = (0.2, 0, 0, 0)
//
// n(dy, dx) is the element dy rows and dx columns away (|dy|, |dx| at most the
// stencil's radius); the element outside the stream is given by the boundary
// rule: Clamp repeats the edge (a zero-flux boundary for diffusion), Mirror
// reflects about the edge element (-1 reads 1; in a stream narrower than the
// radius it then clamps), Zero reads T{}. The float4 is the call's parameters:
// changing them compiles nothing. n.row() and n.column() are the element's
// position, n.rows() and n.columns() the stream's shape.
//
// Each iteration is one dispatch over tiles of 32 x 32 elements, a workgroup
// of 256 invocations each, an invocation 4 consecutive rows of a column (a
// read that several of its rows share is made once). in and out may be the same stream; both must be
// dense (a fresh stream or a reshape of one) and of the same 2D shape.
// Performance: docs/PERFORMANCE.md#stencils.
#pragma once

#include <algorithm>
#include <cstdlib>
#include <functional>
#include <map>
#include <string>
#include <utility>

#include <rill/rill.h>
#include <rill/algorithms/detail/dense_streams.h>

namespace rill {

/// The default tile width of Stencil's dispatches (docs/PERFORMANCE.md#stencils).
inline constexpr int kDefaultTileWidth = 32;

enum class Boundary { Clamp, Mirror, Zero };

/// The neighbourhood of one element, for a Stencil's body (trace time only).
template <class T>
class Neighbourhood {
public:
    /// Loads already made for this invocation, by (row from the invocation's
    /// first row, column offset) and the IR block they were made in: an
    /// element read by the bodies of several rows is loaded once.
    struct Loads {
        std::map<std::pair<int, int>, std::pair<ir::BlockId, Expr<T>>> made;
    };

    /// The element at row y0 + k, column x of the stream. `interior`: every
    /// element within the radius lies inside the stream (no boundary rule to
    /// apply; known for a whole tile at once).
    Neighbourhood(const Array<T>& in, const Expr<std::int32_t>& y0, int k, const Expr<std::int32_t>& x, const Expr<std::int32_t>& h,
                  const Expr<std::int32_t>& w, int radius, Boundary boundary, bool interior, Loads& loads)
        : in_(in), y0_(y0), k_(k), y_(y0 + k), x_(x), h_(h), w_(w), i0_(y0 * w + x), radius_(radius), boundary_(boundary),
          interior_(interior), loads_(loads) {}

    /// The element dy rows and dx columns away, by the boundary rule.
    Expr<T> operator()(int dy, int dx) const {
        if (dy < -radius_ || dy > radius_ || dx < -radius_ || dx > radius_)
            throw Error("rill::Stencil: the body reads n(" + std::to_string(dy) + ", " + std::to_string(dx) +
                        ") but the stencil's radius is " + std::to_string(radius_) + "; give the Stencil a radius of at least " +
                        std::to_string(std::max(std::abs(dy), std::abs(dx))));
        const std::pair<int, int> key{k_ + dy, dx};
        const ir::BlockId block = dsl::builder().current_block();
        if (auto it = loads_.made.find(key); it != loads_.made.end() && it->second.first == block) return it->second.second;
        Expr<T> value = load(k_ + dy, dx);
        loads_.made.erase(key);
        loads_.made.emplace(key, std::pair<ir::BlockId, Expr<T>>{block, value});
        return value;
    }
    const Expr<std::int32_t>& row() const { return y_; }
    const Expr<std::int32_t>& column() const { return x_; }
    const Expr<std::int32_t>& rows() const { return h_; }
    const Expr<std::int32_t>& columns() const { return w_; }
    int radius() const { return radius_; }

private:
    /// The element at row y0 + r, column x + dx.
    Expr<T> load(int r, int dx) const {
        if (interior_) return in_.load(i0_ + (r * w_ + dx));
        auto reflect = [&](const Expr<std::int32_t>& i, const Expr<std::int32_t>& n) -> Expr<std::int32_t> {
            if (boundary_ != Boundary::Mirror) return i;
            return select(i < 0, -i, select(i >= n, 2 * (n - 1) - i, i));
        };
        Expr<std::int32_t> yy = reflect(y0_ + r, h_), xx = reflect(x_ + dx, w_);
        Expr<std::int32_t> cy = clamp(yy, 0, h_ - 1), cx = clamp(xx, 0, w_ - 1);
        Expr<T> value = in_.load(cy * w_ + cx);
        if (boundary_ == Boundary::Zero) return select(cy == yy && cx == xx, value, Expr<T>(T{}));
        return value;
    }

    const Array<T>& in_;
    Expr<std::int32_t> y0_;
    int k_;
    Expr<std::int32_t> y_, x_, h_, w_, i0_;
    int radius_;
    Boundary boundary_;
    bool interior_;
    Loads& loads_;
};

template <class T>
class Stencil {
public:
    using Body = std::function<Expr<T>(const Neighbourhood<T>&, const Expr<float4>&)>;
    static constexpr int kWorkgroup = 256;
    /// Rows per invocation: reads shared by the rows' neighbourhoods are made once.
    static constexpr int kRows = 4;

    Stencil(std::string name, int radius, Body body, Boundary boundary = Boundary::Clamp)
        : name_(std::move(name)), radius_(radius), boundary_(boundary), tile_width_(tile_width()),
          kernel_(trace(name_, radius, std::move(body), boundary, tile_width_)) {}

    /// out = the body applied `iterations` times to in (0: a copy).
    void operator()(const Stream<T>& in, const Stream<T>& out, int iterations = 1, float4 params = {}) const {
        const std::string who = "rill::Stencil '" + name_ + "'";
        if (in.shape().rank != 2)
            throw Error(who + ": the input has shape " + in.shape().str() + "; give a 2D stream (rows x columns)");
        if (!(in.shape() == out.shape()))
            throw Error(who + ": the input has shape " + in.shape().str() + " but the output " + out.shape().str() +
                        "; give an output of the input's shape");
        detail::require_dense(who, in, "the input");
        detail::require_dense(who, out, "the output");
        if (iterations < 0)
            throw Error(who + ": iterations is " + std::to_string(iterations) + "; give 0 or more");
        const std::int64_t h = in.shape()[0], w = in.shape()[1];
        if (h * w == 0) return;
        if (h * w > 0x7fffffff) throw Error(who + ": more than 2^31 - 1 elements; split the stream");
        if (iterations == 0) {
            if (in.buffer() != out.buffer()) detail::copy_stream(in, out);
            return;
        }
        const std::int64_t tile_height = kWorkgroup / tile_width_ * kRows;
        const std::int64_t tiles_x = (w + tile_width_ - 1) / tile_width_, tiles = tiles_x * ((h + tile_height - 1) / tile_height);
        auto step = [&](const Stream<T>& from, const Stream<T>& to) {
            kernel_(Groups{tiles}, from, to, static_cast<std::int32_t>(h), static_cast<std::int32_t>(w),
                    static_cast<std::int32_t>(tiles_x), params);
        };
        // Ping-pong between out and a scratch stream so that the last
        // iteration writes out; the first never writes the stream it reads.
        // One iteration from one stream into another needs no scratch.
        const bool same = in.buffer() == out.buffer();
        const Stream<T> other = iterations == 1 && !same ? Stream<T>() : Runtime::of(in).template scratch<T>(in.shape());
        const Stream<T>* from = &in;
        for (int i = 0; i < iterations; ++i) {
            const Stream<T>* to = from == &out ? &other : from == &other ? &out : (same || iterations % 2 == 0) ? &other : &out;
            step(*from, *to);
            from = to;
        }
        if (from != &out) detail::copy_stream(*from, out);
    }

    const std::string& name() const { return name_; }
    int radius() const { return radius_; }
    Boundary boundary() const { return boundary_; }

private:
    using Kernel = rill::Kernel<Array<T>, Array<T>, Int, Int, Int, Float4>;

    /// Workgroups of width x (256 / width) invocations, tiles of width x
    /// (1024 / width) elements; RILL_STENCIL_TILE_WIDTH (a
    /// tuning knob: 16, 32, 64, 128 or 256) overrides the default.
    static int tile_width() {
        const char* knob = std::getenv("RILL_STENCIL_TILE_WIDTH");
        if (!knob) return kDefaultTileWidth;
        const std::string v = knob;
        for (int w : {16, 32, 64, 128, 256})
            if (v == std::to_string(w)) return w;
        throw Error("RILL_STENCIL_TILE_WIDTH is '" + v + "'; give 16, 32, 64, 128 or 256, or unset it");
    }

    static Kernel trace(const std::string& name, int radius, Body body, Boundary boundary, int tile_w) {
        if (radius < 0 || radius > 16)
            throw Error("rill::Stencil '" + name + "': radius " + std::to_string(radius) + " is outside 0..16; give a radius in that range");
        if (!body) throw Error("rill::Stencil '" + name + "': the body is empty; give a function of the neighbourhood");
        // Every index is clamped into the stream (whose shape the call
        // checks), so the arrays need no checks of their own.
        return group_kernel<kWorkgroup>(
            name + "(in, out, h, w, tiles_x, params)", GroupOptions{.unchecked_arrays = true},
            [body = std::move(body), radius, boundary, tile_w](Array<T> in, Array<T> out, Int h, Int w, Int tiles_x, Float4 params) {
                const int tile_h = kWorkgroup / tile_w * kRows;
                Int tile = group_id();
                Int ty = tile / tiles_x;
                Int y0 = ty * tile_h, x0 = (tile - ty * tiles_x) * tile_w;
                // Each invocation computes kRows consecutive rows of its column.
                Int y = y0 + local_id() / tile_w * kRows, x = x0 + local_id() % tile_w;
                // Most tiles are interior: their body reads without clamps (the same in the whole workgroup).
                Bool interior = y0 >= radius && y0 + (tile_h + radius) <= h && x0 >= radius && x0 + (tile_w + radius) <= w;
                If(interior, [&] {
                    typename Neighbourhood<T>::Loads loads;
                    for (int k = 0; k < kRows; ++k) {
                        Neighbourhood<T> n(in, y, k, x, h, w, radius, boundary, true, loads);
                        out.store((y + k) * w + x, body(n, params));
                    }
                }).Else([&] {
                    // Clamped reads are in the stream for any y and x: every row's
                    // value is computed, and only those inside are stored.
                    typename Neighbourhood<T>::Loads loads;
                    for (int k = 0; k < kRows; ++k) {
                        Neighbourhood<T> n(in, y, k, x, h, w, radius, boundary, false, loads);
                        Expr<T> value = body(n, params);
                        If(y + k < h && x < w, [&] { out.store((y + k) * w + x, value); });
                    }
                });
            });
    }

    std::string name_;
    int radius_;
    Boundary boundary_;
    int tile_width_;
    Kernel kernel_;
};

}  // namespace rill
