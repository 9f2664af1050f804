// The showcase's ray tracer against a float64 brute-force reference on the host.
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "../backend_fixture.h"
#include "scene.h"

namespace rill::test {
namespace {

class Showcase : public BackendTest {};

void expect_hits_match(const showcase::Image& img, const std::vector<showcase::Triangle>& mesh, int stride) {
    int mismatches = 0, checked = 0;
    for (int y = 0; y < img.height; y += stride)
        for (int x = 0; x < img.width; x += stride) {
            float3 o, d;
            showcase::camera_ray(x, y, img.width, img.height, o, d);
            const float4 want = showcase::reference_hit(o, d, mesh);
            const float4 got = img.hits[static_cast<std::size_t>(y) * img.width + x];
            ++checked;
            // Rays grazing a shared edge may pick either neighbour: compare distances.
            const bool both_miss = want.w < 0 && got.w < 0;
            const bool same_t = want.w >= 0 && got.w >= 0 && std::fabs(want.x - got.x) <= 1e-3f * want.x;
            if (!both_miss && !same_t && ++mismatches <= 3)
                ADD_FAILURE() << "pixel " << x << "," << y << ": hit t=" << got.x << " tri " << got.w << ", want t="
                              << want.x << " tri " << want.w;
        }
    EXPECT_GT(checked, 100);
}

TEST_P(Showcase, PrimaryRaysMatchHostReference) {
    auto mesh = showcase::make_torus(16, 8, 0.9f, 0.35f);
    // Odd height, even width: no ray lies exactly in the torus's symmetry plane,
    // where rays graze shared edges and float and float64 may disagree.
    auto img = showcase::trace_primary_rays(rt(), mesh, 62, 47);
    std::size_t hits = 0;
    for (const auto& h : img.hits) hits += h.w >= 0;
    EXPECT_GT(hits, 100u) << "the torus must be in view";
    EXPECT_LT(hits, img.hits.size()) << "and not fill the whole image";
    expect_hits_match(img, mesh, 1);
}

TEST_P(Showcase, BvhRaysMatchHostReference) {
    // What rill-showcase draws: the same rays through a BVH.
    auto mesh = showcase::make_torus(16, 8, 0.9f, 0.35f);
    auto img = showcase::trace_primary_rays_bvh(rt(), mesh, 62, 47);
    expect_hits_match(img, mesh, 1);
}

TEST_P(Showcase, LoadsObjFiles) {
    // One file per backend: ctest -j runs the backends' tests side by side.
    const auto path = std::filesystem::temp_directory_path() / ("rill-test-tetra-" + rt().backend_name() + ".obj");
    std::ofstream(path) << "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n";
    auto mesh = showcase::load_obj(path.string());
    ASSERT_EQ(mesh.size(), 4u);
    auto img = showcase::trace_primary_rays(rt(), mesh, 40, 30);
    expect_hits_match(img, mesh, 1);
    EXPECT_THROW(showcase::load_obj("/nonexistent/mesh.obj"), Error);
}

RILL_INSTANTIATE_FOR_BACKENDS(Showcase);

}  // namespace
}  // namespace rill::test
