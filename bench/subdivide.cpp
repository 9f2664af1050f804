// Uniform Loop subdivision against OpenSubdiv's CPU refinement in one run:
// rill's whole refinement to each level (connectivity and positions, on the
// device) against OpenSubdiv's Far::TopologyRefiner plus PrimvarRefiner to
// the same level (topology and positions, one CPU thread: Debian's build has
// no threaded Far refinement).
//
//   RILL_BACKEND=vulkan rill-bench-subdivide [mesh.obj] [--levels L]
//
// No mesh: a torus of 2,400 triangles. rill's times are host wall times of
// the call, waited for (its read-backs included); medians of 5 after a
// warm-up. Each level's vertex and face counts are checked against
// OpenSubdiv's before anything is timed.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include <rill/algorithms/subdivision.h>

#include "meshes.h"
#include "osd_loop.h"
#include "timing.h"

int main(int argc, char** argv) {
    using namespace rill;
    std::string input;
    int levels = 4;
    for (int a = 1; a < argc; ++a) {
        const std::string arg = argv[a];
        if (arg == "--levels" && a + 1 < argc) levels = std::atoi(argv[++a]);
        else if (arg.rfind("--", 0) != 0 && input.empty()) input = arg;
        else {
            std::fprintf(stderr, "usage: rill-bench-subdivide [mesh.obj] [--levels L]\n");
            return 2;
        }
    }
    if (levels < 1 || levels > 8) {
        std::fprintf(stderr, "rill-bench-subdivide: give --levels from 1 to 8\n");
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
        std::printf("| to level | faces | rill | OpenSubdiv (CPU, Far) | OpenSubdiv / rill | rill faces/s |\n|---|---|---|---|---|---|\n");
        for (int level = 1; level <= levels; ++level) {
            subdivision::Mesh out = subdivision::loop(vertices, faces, level);
            const peers::OsdMesh want = peers::osd_loop(v, f, level);
            if (std::size_t(out.vertices.size()) != want.vertices.size() || std::size_t(out.faces.size()) != want.faces.size())
                bench::fail("level " + std::to_string(level) + ": " + std::to_string(out.vertices.size()) + " vertices and " +
                            std::to_string(out.faces.size()) + " faces, OpenSubdiv " + std::to_string(want.vertices.size()) + " and " +
                            std::to_string(want.faces.size()));
            const double ms = bench::median_ms(1, 5, [&] { out = subdivision::loop(vertices, faces, level); }, rt).host_ms;
            const double osd = bench::host_median_ms([&] { (void)peers::osd_loop(v, f, level); });
            std::printf("| %d | %lld | %.3f ms | %.3f ms | %.1f | %.1f M |\n", level, static_cast<long long>(out.faces.size()), ms, osd,
                        osd / ms, out.faces.size() / (ms * 1e3));
        }
    } catch (const Error& e) {
        std::fprintf(stderr, "%s\n", e.what());
        return 1;
    }
    return 0;
}
