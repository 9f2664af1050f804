// OpenGL interop: streams written by kernels are drawn straight from their GL
// buffers by the offscreen renderer; the pixels are checked one by one.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <filesystem>

#define STB_IMAGE_IMPLEMENTATION
#include <stb/stb_image.h>

#include <rill/backends/opengl.h>
#include <rill/rill.h>

namespace rill::test {
namespace {

constexpr int kW = 16, kH = 16;

TEST(OpenGlInterop, KernelWrittenPointsAreDrawnWhereTheyShouldBe) {
    Runtime rt("opengl");
    // A kernel writes the positions: point i sits on pixel (3 i mod 16, 2 i + 1).
    auto place = kernel("place(w, h, p)", [](Float w, Float h, Out<float2> p) {
        Int i = indexof(p);
        Float col = cast<float>((i * 3) % 16), row = cast<float>(i * 2 + 1);
        p = Float2(2.0f * (col + 0.5f) / w - 1.0f, 1.0f - 2.0f * (row + 0.5f) / h);
    });
    auto pos = rt.stream<float2>({7});
    place(float(kW), float(kH), pos);
    opengl::OffscreenRenderer r(rt, kW, kH);
    r.clear(float4{0, 0, 0, 1});
    r.draw_points(pos, 1.0f, float4{1, 1, 1, 1});
    const auto px = r.read_rgba();
    ASSERT_EQ(px.size(), std::size_t(kW * kH * 4));
    std::vector<int> lit(kW * kH, 0);
    for (int i = 0; i < 7; ++i) lit[(2 * i + 1) * kW + (3 * i) % 16] = 1;
    for (int row = 0; row < kH; ++row)
        for (int col = 0; col < kW; ++col) {
            const std::uint8_t* p = &px[(row * kW + col) * 4];
            const int want = lit[row * kW + col] ? 255 : 0;
            ASSERT_EQ(p[0], want) << "pixel " << col << "," << row;
            ASSERT_EQ(p[3], 255);
        }
}

TEST(OpenGlInterop, TrianglesAndBufferNames) {
    Runtime rt("opengl");
    // One triangle covering the left half of the image (x < 0).
    std::vector<float2> tri = {{-1, -1}, {0, -1}, {0, 3}};
    std::vector<float2> strip = {{-1, 3}, {0, 3}, {-1, -1}};
    std::vector<float2> both(tri);
    both.insert(both.end(), strip.begin(), strip.end());
    auto corners = rt.stream<float2>({6}, both);
    opengl::OffscreenRenderer r(rt, kW, kH);
    r.clear(float4{0, 0, 1, 1});
    r.draw_triangles(corners, float4{1, 0, 0, 1});
    const auto px = r.read_rgba();
    for (int row = 0; row < kH; ++row)
        for (int col = 0; col < kW; ++col) {
            const std::uint8_t* p = &px[(row * kW + col) * 4];
            const bool left = col < kW / 2;
            ASSERT_EQ(p[0], left ? 255 : 0) << col << "," << row;
            ASSERT_EQ(p[2], left ? 0 : 255) << col << "," << row;
        }
    EXPECT_NE(opengl::buffer_name(corners), 0u);
    EXPECT_EQ(opengl::stride_bytes(corners), 8u);
    EXPECT_EQ(opengl::offset_bytes(corners.domain({2}, {6})), 16u);
}

TEST(OpenGlInterop, ColouredRoundSpritesBlendAsAsked) {
    // Three sprites 9 pixels wide on pixel (8, 8), drawn in order A, B, C:
    // each blend mode against the host's compositing in double (the RGBA8
    // framebuffer rounds each step: 3/255 allowed); the corners of the
    // sprites' squares stay background (round sprites).
    Runtime rt("opengl");
    const float c = 2 * 8.5f / kW - 1;
    auto pos = rt.stream<float2>({3}, std::vector<float2>(3, float2{c, -c}));  // row 8 from the top
    const std::vector<float4> colours{{1, 0.2f, 0, 0.5f}, {0, 1, 0.4f, 0.25f}, {0.1f, 0, 1, 0.75f}};
    auto col = rt.stream<float4>({3}, colours);
    opengl::OffscreenRenderer r(rt, kW, kH);
    auto check = [&](const char* mode, std::array<double, 4> want) {
        const auto px = r.read_rgba();
        const std::uint8_t* centre = &px[(8 * kW + 8) * 4];
        for (int k = 0; k < 4; ++k) EXPECT_NEAR(centre[k] / 255.0, want[k], 3 / 255.0) << mode << ", channel " << k;
        const std::uint8_t* corner = &px[(4 * kW + 4) * 4];
        const std::uint8_t* inside = &px[(4 * kW + 8) * 4];
        EXPECT_EQ(corner[0] + corner[1] + corner[2], 0) << mode << ": outside the round sprite";
        EXPECT_GT(inside[0] + inside[1] + inside[2], 0) << mode << ": inside the round sprite";
    };
    r.clear(float4{0, 0, 0, 1});
    r.draw_points(pos, col, 9.0f);
    check("replace", {colours[2].x, colours[2].y, colours[2].z, colours[2].w});
    r.clear(float4{0, 0, 0, 1});
    r.draw_points(pos, col, 9.0f, opengl::Blend::Over);
    std::array<double, 4> over{0, 0, 0, 1};
    for (const float4& f : colours) {
        const double a = f.w, rgb[3] = {f.x, f.y, f.z};
        for (int k = 0; k < 3; ++k) over[k] = a * rgb[k] + (1 - a) * over[k];
        over[3] = a + (1 - a) * over[3];
    }
    check("over", over);
    r.clear(float4{0, 0, 0, 0});
    r.draw_points(pos, col, 9.0f, opengl::Blend::Under);
    const double background[3] = {0.2, 0.3, 0.4};
    r.draw_background(float4{0.2f, 0.3f, 0.4f, 1});
    std::array<double, 4> under{0, 0, 0, 0};
    for (const float4& f : colours) {
        const double a = f.w, rgb[3] = {f.x, f.y, f.z};
        for (int k = 0; k < 3; ++k) under[k] += (1 - under[3]) * a * rgb[k];
        under[3] += (1 - under[3]) * a;
    }
    for (int k = 0; k < 3; ++k) under[k] += (1 - under[3]) * background[k];
    under[3] = 1;
    const auto px = r.read_rgba();
    EXPECT_NEAR(px[(4 * kW + 4) * 4 + 2] / 255.0, 0.4, 1 / 255.0) << "the background is under the sprites' corners";
    for (int k = 0; k < 4; ++k) EXPECT_NEAR(px[(8 * kW + 8) * 4 + k] / 255.0, under[k], 3 / 255.0) << "under, channel " << k;
    EXPECT_THROW(r.draw_points(pos, col.domain({0}, {2}), 9.0f), Error);
    try {
        r.draw_points(pos, col.domain({0}, {2}), 9.0f);
    } catch (const Error& e) {
        EXPECT_EQ(std::string(e.what()), "rill::opengl::OffscreenRenderer::draw_points: 3 positions but 2 colours; give one colour per point");
    }
    try {
        r.draw_points(pos, col, 0.0f);
        ADD_FAILURE() << "a point size of 0 was taken";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("give a point size in pixels"), std::string::npos) << e.what();
    }
}

TEST(OpenGlInterop, SavesWhatItDrewAsPng) {
    Runtime rt("opengl");
    auto corners = rt.stream<float2>({3}, std::vector<float2>{{-1, -1}, {1, -1}, {-1, 1}});
    opengl::OffscreenRenderer r(rt, 24, 12);
    r.clear(float4{0, 1, 0, 1});
    r.draw_triangles(corners, float4{1, 1, 1, 1});
    const auto path = (std::filesystem::temp_directory_path() / "rill-renderer-test.png").string();
    r.save_png(path);
    int w = 0, h = 0, n = 0;
    unsigned char* png = stbi_load(path.c_str(), &w, &h, &n, 4);
    ASSERT_NE(png, nullptr) << "the PNG cannot be read back";
    ASSERT_EQ(w, 24);
    ASSERT_EQ(h, 12);
    const auto px = r.read_rgba();
    EXPECT_TRUE(std::equal(px.begin(), px.end(), png)) << "the PNG differs from the framebuffer";
    stbi_image_free(png);
    EXPECT_THROW(r.save_png("/nonexistent-dir/x.png"), Error);
}

TEST(OpenGlInterop, OtherBackendsAreRefusedClearly) {
    Runtime cpu("cpu");
    auto s = cpu.stream<float2>({3});
    try {
        opengl::buffer_name(s);
        FAIL() << "no error";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("not stored in an OpenGL runtime"), std::string::npos) << e.what();
    }
    EXPECT_THROW(opengl::OffscreenRenderer(cpu, 8, 8), Error);
}

}  // namespace
}  // namespace rill::test
