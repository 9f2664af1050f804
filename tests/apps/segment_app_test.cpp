// rill-segment on its procedural image, on every backend: the region grown
// from a seed in the disc is the disc the image was drawn with (the noise-free
// geometry, not rill's output, is the reference); a PNG written and read back;
// and its errors.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "../backend_fixture.h"
#include "segment_app.h"

namespace rill::test {
namespace {

class SegmentApp : public BackendTest {};

TEST_P(SegmentApp, TheDiscIsFoundThroughTheNoise) {
    for (auto [w, h] : {std::pair{96, 64}, std::pair{75, 51}}) {
        SCOPED_TRACE(std::to_string(w) + " x " + std::to_string(h));
        const segment_app::Image img = segment_app::procedural_image(w, h);
        segment_app::Settings s;
        s.diffusion.iterations = 60;
        s.seeds = {int2{int(0.45f * h), int(0.35f * w)}};  // the disc's centre
        const segment_app::Result r = segment_app::segment(rt(), img, s);
        EXPECT_TRUE(r.growth.converged);
        std::int64_t both = 0, either = 0;
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x) {
                const bool disc = std::hypot((x + 0.5f) / w - 0.35f, (y + 0.5f) / h - 0.45f) < 0.22f;
                const bool got = r.mask[static_cast<std::size_t>(y) * w + x] != 0;
                both += disc && got, either += disc || got;
            }
        EXPECT_GT(double(both) / double(either), 0.97) << "the region is not the disc (intersection over union)";
        const segment_app::Image over = segment_app::overlay(img, r.mask);
        EXPECT_EQ(over.channels, 3);
        // One file per backend: ctest -j runs the backends' tests side by side.
        const std::string path = ::testing::TempDir() + "segment_app_test_" + rt().backend_name() + ".png";
        app_images::write_png("rill-segment", path, over);
        const segment_app::Image back = app_images::read_png("rill-segment", path);
        ASSERT_EQ(back.pixels.size(), over.pixels.size());
        for (std::size_t i = 0; i < back.pixels.size(); ++i) ASSERT_NEAR(back.pixels[i], std::clamp(over.pixels[i], 0.0f, 1.0f), 0.5f / 255 + 1e-6);
        std::remove(path.c_str());
    }
}

TEST_P(SegmentApp, BadInputIsAnError) {
    const segment_app::Image img = segment_app::procedural_image(8, 6);
    segment_app::Settings s;
    s.seeds = {int2{6, 0}};
    EXPECT_EQ(error_message([&] { segment_app::segment(rt(), img, s); }),
              "rill::segment::seed_mask: seed 0 at (row 6, column 0) is outside the image of 6x8; give seeds with 0 <= row < 6 "
              "and 0 <= column < 8");
    s.seeds = {};
    s.diffusion.time_step = 0.5f;
    EXPECT_NE(error_message([&] { segment_app::segment(rt(), img, s); }).find("time_step is 0.5"), std::string::npos);
    EXPECT_EQ(error_message([&] { segment_app::segment(rt(), segment_app::Image{1, 0, 3, {}}, {}); }),
              "segment_app::segment: the image is 0x3 with 1 channels; pass a grey image of at least one pixel");
    EXPECT_NE(error_message([] { app_images::read_png("rill-segment", "/nonexistent/image.png"); }).find("cannot read '/nonexistent/image.png'"),
              std::string::npos);
}

RILL_INSTANTIATE_FOR_BACKENDS(SegmentApp);

}  // namespace
}  // namespace rill::test
