// Summed-area tables against a float64 / exact host double loop, and the box
// filter against brute-force box means, over shapes from 1 x 1 to tile and
// row edges, with radii from 0 to past the image.
#include <rill/algorithms/summed_area.h>

#include "backend_fixture.h"

namespace rill::test {
namespace {

class SummedArea : public BackendTest {};

const std::vector<std::pair<std::int64_t, std::int64_t>> kShapes = {{1, 1}, {1, 7}, {7, 1}, {3, 5}, {2, 2049},
                                                                    {257, 129}, {64, 64}, {513, 1001}};

TEST_P(SummedArea, TablesAgainstTheHost) {
    for (auto [h, w] : kShapes) {
        SCOPED_TRACE(std::to_string(h) + " x " + std::to_string(w));
        std::vector<std::uint32_t> px(static_cast<std::size_t>(h * w));
        for (auto& p : px) p = rng()() % 256;
        std::vector<std::uint32_t> want(px.size());
        for (std::int64_t y = 0; y < h; ++y)
            for (std::int64_t x = 0; x < w; ++x)
                want[y * w + x] = px[y * w + x] + (y > 0 ? want[(y - 1) * w + x] : 0) + (x > 0 ? want[y * w + x - 1] : 0) -
                                  (y > 0 && x > 0 ? want[(y - 1) * w + x - 1] : 0);
        auto image = rt().stream<std::uint32_t>({h, w}, px);
        auto sat = rt().stream<std::uint32_t>({h, w});
        summed_area_table(image, sat);
        ASSERT_EQ(sat.download(), want) << "uint32";
        summed_area_table(image, image);  // in place
        ASSERT_EQ(image.download(), want) << "uint32, in place";

        const std::vector<float> f = random_floats(static_cast<std::size_t>(h * w), 0.0f, 1.0f);
        std::vector<double> fw(f.size());
        for (std::int64_t y = 0; y < h; ++y)
            for (std::int64_t x = 0; x < w; ++x)
                fw[y * w + x] = f[y * w + x] + (y > 0 ? fw[(y - 1) * w + x] : 0) + (x > 0 ? fw[y * w + x - 1] : 0) -
                                (y > 0 && x > 0 ? fw[(y - 1) * w + x - 1] : 0);
        auto fi = rt().stream<float>({h, w}, f);
        auto fo = rt().stream<float>({h, w});
        summed_area_table(fi, fo);
        const std::vector<float> got = fo.download();
        for (std::size_t i = 0; i < got.size(); ++i)
            ASSERT_TRUE(close(got[i], fw[i], 1e-5, 2e-6 * std::sqrt(double(h + w)))) << "float at " << i << ": " << got[i]
                                                                                      << " against " << fw[i];
    }
}

TEST_P(SummedArea, VariableBoxFilterAgainstBruteForce) {
    for (auto [h, w] : kShapes) {
        SCOPED_TRACE(std::to_string(h) + " x " + std::to_string(w));
        std::vector<uint4> px(static_cast<std::size_t>(h * w));
        for (auto& p : px) p = uint4{std::uint32_t(rng()() % 256), std::uint32_t(rng()() % 256), std::uint32_t(rng()() % 256), 255u};
        std::vector<std::int32_t> r(px.size());
        for (auto& v : r) v = static_cast<std::int32_t>(rng()() % 12) - 1;  // -1 (taken as 0) .. 10, past small images
        auto image = rt().stream<uint4>({h, w}, px);
        auto sat = rt().stream<uint4>({h, w});
        auto radius = rt().stream<std::int32_t>({h, w}, r);
        auto out = rt().stream<float4>({h, w});
        summed_area_table(image, sat);
        box_filter(sat, radius, out);
        const std::vector<float4> got = out.download();
        for (std::int64_t y = 0; y < h; y += (h > 100 ? 7 : 1))
            for (std::int64_t x = 0; x < w; x += (w > 100 ? 5 : 1)) {
                const std::int64_t k = std::max(r[y * w + x], 0);
                double sum[4] = {0, 0, 0, 0};
                std::int64_t count = 0;
                for (std::int64_t yy = std::max<std::int64_t>(0, y - k); yy <= std::min(h - 1, y + k); ++yy)
                    for (std::int64_t xx = std::max<std::int64_t>(0, x - k); xx <= std::min(w - 1, x + k); ++xx, ++count)
                        for (int c = 0; c < 4; ++c) sum[c] += px[yy * w + xx][c];
                for (int c = 0; c < 4; ++c)
                    ASSERT_TRUE(close(got[y * w + x][c], sum[c] / count, 1e-4, 1e-6))
                        << "pixel " << y << ", " << x << " channel " << c << ": " << got[y * w + x][c] << " against " << sum[c] / count;
            }
    }
    auto sat = rt().stream<uint4>({4, 4});
    auto radius = rt().stream<std::int32_t>({4, 5});
    auto out = rt().stream<float4>({4, 4});
    EXPECT_NE(error_message([&] { box_filter(sat, radius, out); }).find("give one radius and one output per pixel"), std::string::npos);
    auto line = rt().stream<uint4>({16});
    EXPECT_NE(error_message([&] { summed_area_table(line, line); }).find("give a 2D stream"), std::string::npos);
}

}  // namespace

RILL_INSTANTIATE_FOR_BACKENDS(SummedArea);

}  // namespace rill::test
