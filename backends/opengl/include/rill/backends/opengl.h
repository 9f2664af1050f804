// OpenGL interop: use rill streams in your own GL drawing with no copy through
// the host (UberFlow renders its particles this way), and a small offscreen
// renderer that works headless (CI included).
//
//   rill::Runtime rt("opengl");
//   auto pos = rt.stream<rill::float2>({n});          // written by kernels
//   rill::opengl::OffscreenRenderer r(rt, 256, 256);
//   r.clear({0, 0, 0, 1});
//   r.draw_points(pos, 3.0f, {1, 1, 1, 1});            // reads the stream where it is
//   r.draw_points(pos, colours, 8.0f, rill::opengl::Blend::Over);  // round sprites, a colour each
//   std::vector<std::uint8_t> rgba = r.read_rgba();    // top row first
//
// No GL type appears here: buffer names are plain 32-bit integers.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "rill/core/runtime.h"

namespace rill::opengl {

/// The GL buffer object holding `s` (a stream of an OpenGL runtime), e.g. to
/// bind it as a vertex buffer: element i starts at byte offset_bytes(s) +
/// i * stride_bytes(s). Call make_current(rt) first on the thread that draws.
/// Kernels that wrote the stream are ordered before your GL commands.
/// Throws rill::Error for a stream of another backend or an iterator.
std::uint32_t buffer_name(const StreamBase& s);
std::size_t offset_bytes(const StreamBase& s);
std::size_t stride_bytes(const StreamBase& s);

/// Makes the runtime's GL context current on this thread (for your GL calls)
/// and orders every kernel issued so far before them; rill's next command
/// waits for them in turn (a barrier), so a kernel may write a stream your
/// draws read.
void make_current(Runtime& rt);

/// How drawn points combine with the pixels under them (colours are
/// straight, not premultiplied, RGBA).
enum class Blend {
    /// The point's colour replaces the pixel.
    Replace,
    /// Back to front: pixel = alpha colour + (1 - alpha) pixel; draw the
    /// farthest points first.
    Over,
    /// Front to back (UberFlow's semi-transparent particles): each point goes
    /// under what is drawn, pixel += (1 - pixel alpha) alpha (colour, 1); draw
    /// the nearest points first, on a clear of (0, 0, 0, 0), then
    /// draw_background() puts the background under them all.
    Under,
};

/// Draws streams into an RGBA8 framebuffer of its own (no window needed).
class OffscreenRenderer {
public:
    OffscreenRenderer(Runtime& rt, int width, int height);
    ~OffscreenRenderer();
    OffscreenRenderer(const OffscreenRenderer&) = delete;
    OffscreenRenderer& operator=(const OffscreenRenderer&) = delete;

    void clear(float4 color);
    /// One point per element; positions are float2 in normalized device
    /// coordinates ([-1, 1], y up), `size` in pixels.
    void draw_points(const Stream<float2>& positions, float size, float4 color);
    /// Round point sprites `size` pixels wide, point i at positions[i] in
    /// colours[i] (one colour per point), combined with the pixels by `blend`.
    void draw_points(const Stream<float2>& positions, const Stream<float4>& colours, float size, Blend blend = Blend::Replace);
    /// Puts `color` (opaque) under everything drawn so far (after Blend::Under).
    void draw_background(float4 color);
    /// One triangle per three elements (float2, normalized device coordinates).
    void draw_triangles(const Stream<float2>& corners, float4 color);
    /// The pixels, width * height * 4 bytes, top row first.
    std::vector<std::uint8_t> read_rgba();
    /// Writes the image as a PNG; throws rill::Error when the file cannot be written.
    void save_png(const std::string& path);

    int width() const { return width_; }
    int height() const { return height_; }

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
    int width_, height_;
};

}  // namespace rill::opengl
