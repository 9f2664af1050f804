// rill-raytrace on every backend: its camera's rays hit what Embree's do on
// the built-in scene and on the test meshes (../shared/data/meshes); a render
// shows the sky exactly where Embree finds nothing; an empty mesh and errors.
#include <bit>
#include <cmath>
#include <filesystem>
#include <fstream>

#include "test_meshes.h"
#include "../backend_fixture.h"
#include "embree_scene.h"
#include "raytrace_app.h"

namespace rill::test {
namespace {

class RaytraceApp : public BackendTest {};


struct Rays {
    std::vector<float4> origins, directions;
};
Rays camera(Runtime& rt, const raytrace_app::Settings& s, int sample) {
    const std::int64_t n = std::int64_t{s.width} * s.height;
    auto o = rt.stream<float4>({n}), d = rt.stream<float4>({n});
    raytrace_app::camera_rays(s, sample, o, d);
    return Rays{o.download(), d.download()};
}

/// The camera's primary rays through rill's BVH and Embree: hit or miss and
/// t agree but for at most one grazing ray in 10^4.
void expect_primary_hits_agree(Runtime& rt, const app_meshes::Mesh& mesh, int width, int height) {
    raytrace_app::Settings s;
    s.width = width, s.height = height;
    s.camera = raytrace_app::frame(mesh);
    const Rays rays = camera(rt, s, 0);
    const auto n = static_cast<std::int64_t>(rays.origins.size());
    auto v = rt.stream<float4>({static_cast<std::int64_t>(mesh.vertices.size())}, mesh.vertices);
    auto f = rt.stream<int4>({static_cast<std::int64_t>(mesh.faces.size())}, mesh.faces);
    const bvh::Bvh tree = bvh::Bvh::build(v, f);
    auto hits = rt.stream<float4>({n});
    bvh::closest_hit(tree, rt.stream<float4>({n}, rays.origins), rt.stream<float4>({n}, rays.directions), hits);
    const std::vector<float4> got = hits.download();
    const peers::EmbreeScene embree(peers::rows<float>(mesh.vertices), peers::rows<std::int32_t>(mesh.faces), 2);
    std::int64_t differ = 0, hit = 0;
    for (std::int64_t i = 0; i < n; ++i) {
        const auto want = embree.closest({rays.origins[i].x, rays.origins[i].y, rays.origins[i].z, rays.origins[i].w},
                                         {rays.directions[i].x, rays.directions[i].y, rays.directions[i].z, rays.directions[i].w});
        const bool rill_hit = std::bit_cast<std::int32_t>(got[i].w) >= 0;
        hit += rill_hit;
        if (rill_hit != (want.face >= 0) || (rill_hit && std::abs(got[i].x - want.t) > 1e-4f * want.t)) ++differ;
    }
    EXPECT_LE(differ, 1 + n / 10000) << "of " << n << " primary rays";
    EXPECT_GT(hit, n / 10) << "a camera that sees little of the mesh proves little";
}

TEST_P(RaytraceApp, PrimaryRaysHitWhatEmbreeFinds) {
    expect_primary_hits_agree(rt(), app_meshes::sphere_field(20000), 120, 80);
}

TEST_P(RaytraceApp, TestMeshes) {
    const std::filesystem::path dir = test_meshes::dir();
    if (!std::filesystem::exists(dir / "spot.obj")) GTEST_SKIP() << "the test meshes are not at " << dir;
    for (const char* name : {"spot.obj", "teapot.obj"}) {
        SCOPED_TRACE(name);
        const app_meshes::Mesh mesh = app_meshes::read_obj("test", (dir / name).string());
        EXPECT_GT(mesh.faces.size(), 5000u);
        expect_primary_hits_agree(rt(), mesh, 96, 72);
    }
}

TEST_P(RaytraceApp, TheSkyShowsWhereNothingIsHit) {
    const app_meshes::Mesh mesh = app_meshes::sphere_field(3000);
    raytrace_app::Settings s;
    s.width = 64, s.height = 40, s.samples = 1;
    s.camera = raytrace_app::frame(mesh, 0.56f);
    const raytrace_app::Result r = raytrace_app::render(rt(), mesh, s);
    ASSERT_EQ(r.image.pixels.size(), 3u * 64 * 40);
    EXPECT_EQ(r.stats.primary_rays, 64 * 40);
    EXPECT_EQ(r.stats.shadow_rays, 2 * 64 * 40);
    const Rays rays = camera(rt(), s, 1);  // the render's first sample
    const peers::EmbreeScene embree(peers::rows<float>(mesh.vertices), peers::rows<std::int32_t>(mesh.faces), 2);
    const float3 sky = raytrace_app::sky();
    const float want[3] = {std::pow(sky.x, 1 / 2.2f), std::pow(sky.y, 1 / 2.2f), std::pow(sky.z, 1 / 2.2f)};
    std::int64_t sky_pixels = 0, wrong = 0;
    const std::size_t n = 64 * 40;
    for (std::size_t i = 0; i < n; ++i) {
        const bool miss = embree.closest({rays.origins[i].x, rays.origins[i].y, rays.origins[i].z, 0},
                                         {rays.directions[i].x, rays.directions[i].y, rays.directions[i].z, 1e30f}).face < 0;
        bool is_sky = true;
        for (int c = 0; c < 3; ++c) is_sky = is_sky && std::abs(r.image.pixels[c * n + i] - want[c]) < 1e-5f;
        sky_pixels += miss;
        wrong += miss != is_sky;
    }
    EXPECT_GT(sky_pixels, 100);
    EXPECT_LT(sky_pixels, 64 * 40 - 100);
    EXPECT_LE(wrong, 1) << "pixels where the sky shows but Embree hits, or the reverse";
}

TEST_P(RaytraceApp, EmptyMeshAndErrors) {
    raytrace_app::Settings s;
    s.width = 8, s.height = 4, s.samples = 2;
    const raytrace_app::Result r = raytrace_app::render(rt(), app_meshes::Mesh{}, s);
    const float3 sky = raytrace_app::sky();
    for (std::size_t i = 0; i < 32; ++i) ASSERT_NEAR(r.image.pixels[i], std::pow(sky.x, 1 / 2.2f), 1e-5f);
    s.samples = 0;
    EXPECT_EQ(error_message([&] { raytrace_app::render(rt(), app_meshes::Mesh{}, s); }),
              "rill-raytrace: a render of 8x4 pixels and 0 samples; give at least 1x1 pixels and 1 sample");
    EXPECT_EQ(error_message([] { app_meshes::read_obj("rill-raytrace", "/nonexistent/mesh.obj"); }),
              "rill-raytrace: cannot read the OBJ file '/nonexistent/mesh.obj' (Cannot open file [/nonexistent/mesh.obj]); "
              "give a readable Wavefront OBJ file, or none for the built-in scene");
    const std::filesystem::path points = std::filesystem::temp_directory_path() / ("rill_points_only_" + GetParam() + ".obj");
    std::ofstream(points) << "v 0 0 0\nv 1 0 0\nv 0 1 0\n";
    EXPECT_EQ(error_message([&] { app_meshes::read_obj("rill-raytrace", points.string()); }),
              "rill-raytrace: the OBJ file '" + points.string() +
                  "' has no faces (3 vertices, no 'f' lines); give a Wavefront OBJ of polygons, or none for the built-in scene");
    std::filesystem::remove(points);
}

RILL_INSTANTIATE_FOR_BACKENDS(RaytraceApp);

}  // namespace
}  // namespace rill::test
