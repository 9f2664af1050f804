// Uniform Loop subdivision against OpenSubdiv in one run: rill's whole
// refinement to each level (connectivity and positions, on the device)
// against
//  - OpenSubdiv's Far::TopologyRefiner plus PrimvarRefiner to the same level
//    (topology and positions, one CPU thread: Debian's build has no threaded
//    Far refinement);
//  - OpenSubdiv's precomputed-stencil path (peers/osd_stencils.h): the
//    topology and a factorized stencil table of the level built on the CPU
//    (once, one thread), then the level's positions from the stencils by its
//    OpenMP evaluator and by its GL-compute evaluator (libosdGPU, on an EGL
//    context of its own on the same GPU), each waited for.
//
// Then adaptive refinement (subdivision::adaptive) under a camera (edges
// split while longer than R times their distance from the eye of the apps'
// default view brought to 0.3 of its distance, so that the near side goes
// deep and the far side stays coarse), to at most --adaptive-level: triangles per level and the
// time, against OpenSubdiv's uniform refinement to the same level with its
// limit positions and normals (Far::PrimvarRefiner::Limit), what gives the
// same finest detail on the limit surface without adaptivity, where that
// level is small enough (5 or less). Then the same criterion about a point
// of the limit surface (the input's middle vertex's limit point): the
// deepest level is reached there, coarse elsewhere.
// Under the last uniform level and each adaptive row, the kernels of one more
// call, longest first.
//
//   RILL_BACKEND=vulkan rill-bench-subdivide [mesh.obj] [--levels L] [--adaptive-level L] [--no-peers]
//
// --no-peers times rill alone (the counts are still checked against
// OpenSubdiv's): the peers' times do not depend on rill's backend, and at
// level 5 of the bunny they are most of a run (bench/gpu/subdivide.sh times
// them in the Vulkan run only).
//
// No mesh: a torus of 2,400 triangles. rill's times are host wall times of
// the call, waited for (its read-backs included); medians of 5 after a
// warm-up. Each level's vertex and face counts are checked against
// OpenSubdiv's before anything is timed.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

#include <rill/algorithms/subdivision.h>

#include "meshes.h"
#include "osd_loop.h"
#include "osd_stencils.h"
#include "raytrace_app.h"
#include "timing.h"

int main(int argc, char** argv) {
    using namespace rill;
    std::string input;
    int levels = 4, adaptive_level = 6;
    bool timed_peers = true;
    for (int a = 1; a < argc; ++a) {
        const std::string arg = argv[a];
        if (arg == "--levels" && a + 1 < argc) levels = std::atoi(argv[++a]);
        else if (arg == "--adaptive-level" && a + 1 < argc) adaptive_level = std::atoi(argv[++a]);
        else if (arg == "--no-peers") timed_peers = false;
        else if (arg.rfind("--", 0) != 0 && input.empty()) input = arg;
        else {
            std::fprintf(stderr, "usage: rill-bench-subdivide [mesh.obj] [--levels L] [--adaptive-level L] [--no-peers]\n");
            return 2;
        }
    }
    if (levels < 1 || levels > 8 || adaptive_level < 1 || adaptive_level > 10) {
        std::fprintf(stderr, "rill-bench-subdivide: give --levels from 1 to 8 and --adaptive-level from 1 to 10\n");
        return 2;
    }
    try {
        std::size_t dropped = 0;
        const app_meshes::Mesh mesh = app_meshes::without_unused_vertices(
            input.empty() ? app_meshes::torus(40, 30, 1.0f, 0.4f) : app_meshes::read_obj("rill-bench-subdivide", input), dropped);
        Runtime rt;
        std::printf("backend %s: %s\n", rt.backend_name().c_str(), rt.info().device.c_str());
        std::printf("mesh %s: %zu vertices, %zu faces (%zu unused vertices dropped)\n\n", input.empty() ? "(torus)" : input.c_str(),
                    mesh.vertices.size(), mesh.faces.size(), dropped);
        std::vector<std::array<float, 4>> v;
        std::vector<std::array<std::int32_t, 4>> f;
        for (const float4& x : mesh.vertices) v.push_back({x.x, x.y, x.z, 0});
        for (const int4& x : mesh.faces) f.push_back({x.x, x.y, x.z, 0});
        auto vertices = rt.stream<float4>({std::int64_t(v.size())}, mesh.vertices);
        auto faces = rt.stream<int4>({std::int64_t(f.size())}, mesh.faces);
        float lo[3] = {1e30f, 1e30f, 1e30f}, hi[3] = {-1e30f, -1e30f, -1e30f};
        for (const auto& x : v)
            for (int k = 0; k < 3; ++k) lo[k] = std::min(lo[k], x[k]), hi[k] = std::max(hi[k], x[k]);
        const double diagonal = std::sqrt(double(hi[0] - lo[0]) * (hi[0] - lo[0]) + double(hi[1] - lo[1]) * (hi[1] - lo[1]) +
                                          double(hi[2] - lo[2]) * (hi[2] - lo[2]));
        std::printf("| to level | faces | rill | Far + PrimvarRefiner (CPU) | / rill | Far + stencil table (CPU, once) | / rill "
                    "| stencils by OpenMP | stencils by GL compute | GL / rill | rill faces/s |\n"
                    "|---|---|---|---|---|---|---|---|---|---|---|\n");
        std::string gl_note;
        for (int level = 1; level <= levels; ++level) {
            subdivision::Mesh out = subdivision::loop(vertices, faces, level);
            const peers::OsdMesh want = peers::osd_loop(v, f, level);
            if (std::size_t(out.vertices.size()) != want.vertices.size() || std::size_t(out.faces.size()) != want.faces.size())
                bench::fail("level " + std::to_string(level) + ": " + std::to_string(out.vertices.size()) + " vertices and " +
                            std::to_string(out.faces.size()) + " faces, OpenSubdiv " + std::to_string(want.vertices.size()) + " and " +
                            std::to_string(want.faces.size()));
            const double ms = bench::median_ms(1, 5, [&] { out = subdivision::loop(vertices, faces, level); }, rt).host_ms;
            // OpenSubdiv's columns, "-" each without timed peers.
            const std::string peer_columns = [&]() -> std::string {
                if (!timed_peers) return "- | - | - | - | - | - | -";
                const double osd = bench::host_median_ms([&] { (void)peers::osd_loop(v, f, level); });

                // The stencil peers, each checked against PrimvarRefiner's positions first.
                const auto t0 = std::chrono::steady_clock::now();
                peers::OsdStencils stencils(v, f, level);
                const double build = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
                const auto check = [&](const std::vector<std::array<float, 3>>& got, const char* by) {
                    double worst = 0;
                    for (std::size_t i = 0; i < got.size() && i < want.vertices.size(); ++i)
                        for (int k = 0; k < 3; ++k) worst = std::max(worst, std::abs(got[i][k] - want.vertices[i][k]));
                    if (got.size() != want.vertices.size() || worst > 1e-5 * diagonal)
                        bench::fail(std::string("OpenSubdiv's stencils by ") + by + " at level " + std::to_string(level) +
                                    ": off PrimvarRefiner's positions by " + std::to_string(worst));
                };
                check(stencils.evaluate_cpu(), "OpenMP");
                const double omp = bench::host_median_ms([&] { (void)stencils.evaluate_cpu(); });
                std::string gl_ms = "-", gl_ratio = "-";
                if (std::string why; stencils.open_gl(why)) {
                    stencils.evaluate_gl();
                    check(stencils.gl_positions(), "GL compute");
                    const double gl = bench::host_median_ms([&] { stencils.evaluate_gl(); });
                    char text[32];
                    std::snprintf(text, sizeof text, "%.3f ms", gl);
                    gl_ms = text;
                    std::snprintf(text, sizeof text, "%.2f", gl / ms);
                    gl_ratio = text;
                } else {
                    gl_note = why;
                }
                char row[160];
                std::snprintf(row, sizeof row, "%.3f ms | %.1f | %.1f ms | %.1f | %.3f ms | %s | %s", osd, osd / ms, build, build / ms, omp,
                              gl_ms.c_str(), gl_ratio.c_str());
                return row;
            }();
            std::printf("| %d | %lld | %.3f ms | %s | %.1f M |\n", level, static_cast<long long>(out.faces.size()), ms, peer_columns.c_str(),
                        out.faces.size() / (ms * 1e3));
            if (level == levels)
                std::printf("|   device time | %s | | | | | | | | | |\n",
                            bench::breakdown(rt, [&] { out = subdivision::loop(vertices, faces, level); }, 10).c_str());
        }
        if (!gl_note.empty()) std::printf("(no OpenSubdiv GL-compute evaluator: %s)\n", gl_note.c_str());

        const subdivision::EdgeCriterion near_camera(
            "bench_near_camera", [](const Expr<float3>& a, const Expr<float3>& b, const Expr<float4>& eye) {
                return length(a - b) > eye.w() * length((a + b) * 0.5f - eye.xyz());
            });
        const raytrace_app::Camera camera = raytrace_app::frame(mesh, 0.3f);
        std::printf("\nadaptive to at most level %d under the camera at 0.3 of the default view's distance\n\n", adaptive_level);
        std::printf("| criterion | triangles per level | triangles | rill | OpenSubdiv uniform + limit (CPU) | OpenSubdiv / rill | rill triangles/s |\n"
                    "|---|---|---|---|---|---|---|\n");
        // One row per criterion: `from` is the camera's eye, or a point of the surface
        // (refinement down to the deepest level around it, coarse elsewhere).
        const auto row = [&](const char* label, float3 from, float ratio) {
            const float4 eye{from.x, from.y, from.z, ratio};
            subdivision::AdaptiveMesh out = subdivision::adaptive(vertices, faces, near_camera, adaptive_level, eye);
            if (out.held_back != 0) bench::fail("adaptive refinement held requests back");
            const double ms =
                bench::median_ms(1, 5, [&] { out = subdivision::adaptive(vertices, faces, near_camera, adaptive_level, eye); }, rt).host_ms;
            std::string per_level;
            for (std::int64_t n : out.faces_per_level) {
                if (!per_level.empty()) per_level += ' ';
                per_level += std::to_string(n);
            }
            std::string osd_ms = "-", osd_ratio = "-";
            if (timed_peers && adaptive_level <= 5) {
                const double osd = bench::host_median_ms([&] { (void)peers::osd_loop_limit(v, f, adaptive_level); });
                char text[64];
                std::snprintf(text, sizeof text, "%.3f ms", osd);
                osd_ms = text;
                std::snprintf(text, sizeof text, "%.1f", osd / ms);
                osd_ratio = text;
            }
            std::printf("| %s %g | %s | %lld | %.3f ms | %s | %s | %.1f M |\n", label, ratio, per_level.c_str(),
                        static_cast<long long>(out.faces.size()), ms, osd_ms.c_str(), osd_ratio.c_str(), out.faces.size() / (ms * 1e3));
            std::printf("|   device time | %s | | | | | |\n",
                        bench::breakdown(rt, [&] { out = subdivision::adaptive(vertices, faces, near_camera, adaptive_level, eye); }, 8).c_str());
        };
        for (float ratio : {0.01f, 0.005f, 0.0025f, 0.00125f}) row("camera, R =", camera.eye, ratio);
        // Around the limit point of the input's middle vertex (adaptive() to level 0
        // gives the input's vertices on the limit surface, in their order): every edge
        // about it splits, so the deepest level is reached there.
        const float4 p =
            subdivision::adaptive(vertices, faces, near_camera, 0, {}).vertices.download()[mesh.vertices.size() / 2];
        for (float ratio : {0.5f, 0.25f}) row("surface point, R =", float3{p.x, p.y, p.z}, ratio);
    } catch (const Error& e) {
        std::fprintf(stderr, "%s\n", e.what());
        return 1;
    }
    return 0;
}
