// The ray tracer against Embree in one run: BVH build time and SAH cost,
// rays per second of primary, shadow (any hit) and diffuse-bounce rays, the
// same rays through both (rill-raytrace's rays of one sample), and the broad
// phase of the triangles' bounding boxes (a tree of boxes and every overlap
// against rtcCollide).
//
//   RILL_BACKEND=vulkan rill-bench-raytrace [mesh.obj [--subdivide L] | --triangles N] [--size WxH]
//                                           [--threads N] [--rays-out DIR]
//
// Embree runs on --threads threads (default: all cores), rill's CPU backend
// on as many. rill's times are device times (GPU timestamps) or host wall
// times where the backend has none (the CPU, llvmpipe); Embree's are host
// wall times of rtcIntersect1 / rtcOccluded1 over the rays on a TBB arena.
// A result that differs from Embree's on more than 1 ray in 10^4 stops the
// program: a fast wrong answer is no figure. --subdivide refines the mesh by
// L levels of uniform Loop subdivision first (rill's own, on the device): the
// bunny's 69,451 triangles become 1.11 million at L = 2. --rays-out writes the mesh, the
// rays, rill's answers and times to DIR (bench/ray_dump.h) for the Vulkan
// ray-tracing-pipeline peer, bench/gpu/vkrt_peer.cpp.
#include <tbb/global_control.h>
#include <tbb/info.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

#include <rill/algorithms/subdivision.h>

#include "embree_scene.h"
#include "ray_dump.h"
#include "raytrace_app.h"
#include "timing.h"

namespace {

using namespace rill;


double seconds_since(bench::Clock::time_point t) { return std::chrono::duration<double>(bench::Clock::now() - t).count(); }

/// Writes `header` and `arrays` to `path`, or stops the program saying why.
template <typename Header, typename... Arrays>
void dump(const std::string& path, const Header& header, const Arrays&... arrays) {
    std::FILE* f = std::fopen(path.c_str(), "wb");
    const bool ok = f && ray_dump::put(f, &header, 1) && (ray_dump::put(f, arrays.data(), arrays.size()) && ...);
    if (f) std::fclose(f);
    if (!ok) bench::fail("rill-bench-raytrace --rays-out: cannot write " + path + " (does its folder exist?)");
}

}  // namespace

int main(int argc, char** argv) {
    std::string input, rays_out;
    int triangles = 1000000, width = 1920, height = 1080, threads = 0, subdivide = 0;
    for (int a = 1; a < argc; ++a) {
        const std::string arg = argv[a];
        if (arg == "--triangles" && a + 1 < argc) {
            triangles = std::atoi(argv[++a]);
        } else if (arg == "--size" && a + 1 < argc) {
            if (std::sscanf(argv[++a], "%dx%d", &width, &height) != 2) width = 0;
        } else if (arg == "--threads" && a + 1 < argc) {
            threads = std::atoi(argv[++a]);
        } else if (arg == "--subdivide" && a + 1 < argc) {
            subdivide = std::atoi(argv[++a]);
        } else if (arg == "--rays-out" && a + 1 < argc) {
            rays_out = argv[++a];
        } else if (arg.rfind("--", 0) != 0 && input.empty()) {
            input = arg;
        } else {
            std::fprintf(stderr, "usage: rill-bench-raytrace [mesh.obj [--subdivide L] | --triangles N] [--size WxH] [--threads N] [--rays-out DIR]\n");
            return 2;
        }
    }
    if (triangles < 1 || width < 1 || height < 1 || threads < 0 || subdivide < 0 || (subdivide > 0 && input.empty())) {
        std::fprintf(stderr, "rill-bench-raytrace: give --triangles >= 1, --size WxH of at least 1x1, --threads >= 0 and "
                             "--subdivide L >= 0 with a mesh file\n");
        return 2;
    }
    const int peer_threads = threads > 0 ? threads : tbb::info::default_concurrency();
    tbb::global_control limit(tbb::global_control::max_allowed_parallelism, static_cast<std::size_t>(peer_threads));
    try {
        app_meshes::Mesh mesh = input.empty() ? app_meshes::sphere_field(triangles) : app_meshes::read_obj("rill-bench-raytrace", input);
        Runtime rt;
        if (subdivide > 0) {
            std::size_t dropped = 0;
            const app_meshes::Mesh used = app_meshes::without_unused_vertices(mesh, dropped);
            const subdivision::Mesh fine =
                subdivision::loop(rt.stream<float4>({static_cast<std::int64_t>(used.vertices.size())}, used.vertices),
                                  rt.stream<int4>({static_cast<std::int64_t>(used.faces.size())}, used.faces), subdivide);
            mesh = app_meshes::Mesh{fine.vertices.download(), fine.faces.download(), {}, {}};
        }
        std::printf("backend %s: %s\n", rt.backend_name().c_str(), rt.info().device.c_str());
        std::printf("mesh %s%s: %zu triangles; %dx%d rays of each kind; Embree %d threads\n",
                    input.empty() ? "(built-in sphere field)" : input.c_str(),
                    subdivide > 0 ? (", Loop-subdivided " + std::to_string(subdivide) + " levels").c_str() : "", mesh.faces.size(),
                    width, height, peer_threads);
        auto vertices = rt.stream<float4>({static_cast<std::int64_t>(mesh.vertices.size())}, mesh.vertices);
        auto faces = rt.stream<int4>({static_cast<std::int64_t>(mesh.faces.size())}, mesh.faces);

        // Build: rill's whole build (the counts it reads back included) against Embree's
        // commit, host times taken without kernel timing (OpenGL's timer queries around
        // every command cost host time); the refit and the rays by their kernels' times.
        bvh::Bvh fast = bvh::Bvh::build(vertices, faces, bvh::BuildQuality::Fast);
        const double build_fast = bench::median_ms(1, 5, [&] { fast = bvh::Bvh::build(vertices, faces, bvh::BuildQuality::Fast); }, rt).host_ms;
        bvh::Bvh tree = bvh::Bvh::build(vertices, faces);
        const double build = bench::median_ms(1, 5, [&] { tree = bvh::Bvh::build(vertices, faces); }, rt).host_ms;
        // Where the High build's time goes (a call of its own: kernel timing costs OpenGL host time).
        const std::string build_kernels = bench::breakdown(rt, [&] { tree = bvh::Bvh::build(vertices, faces); }, 8);
        rt.set_profiling(true);
        const double refit = bench::median_ms(1, 5, [&] { tree.refit(vertices); }, rt).device_ms;
        const auto v_arrays = peers::rows<float>(mesh.vertices);
        const auto f_arrays = peers::rows<std::int32_t>(mesh.faces);
        double embree_build = 1e30;
        for (int r = 0; r < 3; ++r) {
            const auto t = bench::Clock::now();
            peers::EmbreeScene scene(v_arrays, f_arrays, peer_threads, false);
            embree_build = std::min(embree_build, seconds_since(t) * 1e3);
        }
        const double sah = tree.sah_cost(), sah_fast = fast.sah_cost();
        const double embree_sah = peers::EmbreeScene::binary_sah_cost(v_arrays, f_arrays);
        if (!rays_out.empty()) {
            const ray_dump::MeshHeader h{static_cast<std::int32_t>(mesh.vertices.size()), static_cast<std::int32_t>(mesh.faces.size()),
                                         build_fast, build, refit};
            dump(rays_out + "/mesh.bin", h, mesh.vertices, mesh.faces);
        }

        raytrace_app::Settings s;
        s.width = width, s.height = height;
        s.camera = raytrace_app::frame(mesh, input.empty() ? 0.56f : 1.0f);
        const raytrace_app::SampleRays rays = raytrace_app::sample_rays(rt, tree, mesh, faces, vertices, s, 1);
        const std::int64_t n = std::int64_t{width} * height;
        const peers::EmbreeScene embree(v_arrays, f_arrays, peer_threads, false);
        tbb::task_arena arena(peer_threads);

        std::printf("\n| rays | rill | Embree (%d threads) | rill / Embree | hits |\n|---|---|---|---|---|\n", peer_threads);
        auto row = [&](const char* kind, const char* dump_name, const Stream<float4>& o, const Stream<float4>& d, bool any) {
            const auto ho = o.download(), hd = d.download();
            const auto ao = peers::rows<float>(ho), ad = peers::rows<float>(hd);
            auto hits = rt.stream<float4>({n});
            auto occluded = rt.stream<std::uint32_t>({n});
            const double ms = bench::median_ms(1, 5, [&] {
                if (any) bvh::any_hit(tree, o, d, occluded);
                else bvh::closest_hit(tree, o, d, hits);
            }, rt).device_ms;
            std::vector<peers::EmbreeScene::Hit> want;
            std::vector<std::uint8_t> want_occluded;
            const double peer_ms = bench::host_median_ms([&] {
                arena.execute([&] {
                    if (any) embree.occluded_all(ao, ad, want_occluded);
                    else embree.closest_all(ao, ad, want);
                });
            });
            std::int64_t differ = 0, hit = 0;
            const ray_dump::RaysHeader header{width, height, any, 0, ms};
            if (any) {
                const auto got = occluded.download();
                for (std::int64_t i = 0; i < n; ++i) differ += got[i] != want_occluded[i], hit += got[i];
                if (!rays_out.empty()) dump(rays_out + "/" + dump_name + ".bin", header, ho, hd, got);
            } else {
                const auto got = hits.download();
                for (std::int64_t i = 0; i < n; ++i) {
                    const bool h = std::bit_cast<std::int32_t>(got[i].w) >= 0;
                    hit += h;
                    differ += h != (want[i].face >= 0) || (h && std::abs(got[i].x - want[i].t) > 1e-4f * want[i].t);
                }
                if (!rays_out.empty()) dump(rays_out + "/" + dump_name + ".bin", header, ho, hd, got);
            }
            if (differ > 1 + n / 10000)
                bench::fail(std::string(kind) + " rays: " + std::to_string(differ) + " of " + std::to_string(n) + " differ from Embree");
            std::printf("| %s | %.1f Mrays/s (%.3f ms) | %.1f Mrays/s (%.3f ms) | %.2f | %.1f%% |\n", kind, n / (ms * 1e3), ms,
                        n / (peer_ms * 1e3), peer_ms, peer_ms / ms, 100.0 * hit / n);
        };
        std::printf("(the High-quality tree, height %d)\n", tree.height());
        row("primary (closest hit)", ray_dump::kKinds[0], rays.primary_o, rays.primary_d, false);
        row("shadow (any hit)", ray_dump::kKinds[1], rays.shadow_o, rays.shadow_d, true);
        row("diffuse bounce (closest hit)", ray_dump::kKinds[2], rays.bounce_o, rays.bounce_d, false);
        std::printf("\n| BVH of %zu triangles | rill | Embree (%d threads) | rill / Embree |\n|---|---|---|---|\n", mesh.faces.size(),
                    peer_threads);
        std::printf("| build, Fast (LBVH) | %.3f ms (host wall) | %.3f ms (rtcCommitScene, high quality) | %.3f |\n", build_fast,
                    embree_build, build_fast / embree_build);
        std::printf("| build, High (PLOC) | %.3f ms (host wall) | %.3f ms | %.3f |\n", build, embree_build, build / embree_build);
        std::printf("|   device time | %s | | |\n", build_kernels.c_str());
        std::printf("| refit | %.3f ms | - | - |\n", refit);
        std::printf("| SAH cost, Fast (binary, 1 triangle per leaf) | %.2f | %.2f (rtcBuildBVH, high quality) | %.3f |\n", sah_fast,
                    embree_sah, sah_fast / embree_sah);
        std::printf("| SAH cost, High | %.2f | %.2f | %.3f |\n", sah, embree_sah, sah / embree_sah);

        // Broad phase: every pair of the triangles' bounding boxes that
        // overlap, by a tree of boxes (build_boxes, then overlaps of each box
        // against it) against Embree's rtcCollide of a scene of those boxes
        // with itself. rill's pairs include each box with itself, Embree's not.
        std::vector<float4> box_lo, box_hi;
        for (const int4& f : mesh.faces) {
            const float4 a = mesh.vertices[f.x], b = mesh.vertices[f.y], c = mesh.vertices[f.z];
            box_lo.push_back({std::min({a.x, b.x, c.x}), std::min({a.y, b.y, c.y}), std::min({a.z, b.z, c.z}), 0});
            box_hi.push_back({std::max({a.x, b.x, c.x}), std::max({a.y, b.y, c.y}), std::max({a.z, b.z, c.z}), 0});
        }
        const auto nb = static_cast<std::int64_t>(box_lo.size());
        auto lo = rt.stream<float4>({nb}, box_lo), hi = rt.stream<float4>({nb}, box_hi);
        rt.set_profiling(false);
        bvh::Bvh boxes = bvh::Bvh::build_boxes(lo, hi);
        const double box_build = bench::median_ms(1, 5, [&] { boxes = bvh::Bvh::build_boxes(lo, hi); }, rt).host_ms;
        std::int64_t pairs = 0;
        const double box_query = bench::median_ms(1, 5, [&] { pairs = bvh::overlaps(boxes, lo, hi).size(); }, rt).host_ms;
        double peer_build = 1e30, peer_collide = 1e30;
        std::int64_t peer_pairs = 0;
        for (int r = 0; r < 3; ++r) {
            double b = 0, c = 0;
            arena.execute([&] { peer_pairs = peers::EmbreeScene::overlapping_pairs(peers::rows<float>(box_lo), peers::rows<float>(box_hi), b, c); });
            peer_build = std::min(peer_build, b), peer_collide = std::min(peer_collide, c);
        }
        if (pairs - boxes.triangle_count() != peer_pairs)
            bench::fail("broad phase: rill found " + std::to_string(pairs - boxes.triangle_count()) + " overlapping pairs of boxes, Embree " +
                        std::to_string(peer_pairs));
        std::printf("\n| broad phase, the %lld triangles' boxes (%lld overlapping pairs) | rill (host wall) | Embree (%d threads) | rill / Embree (speed) |\n|---|---|---|---|\n",
                    static_cast<long long>(nb), static_cast<long long>(peer_pairs / 2), peer_threads);
        std::printf("| tree of boxes (build_boxes, PLOC) / rtcCommitScene of user boxes | %.3f ms | %.3f ms | %.3f |\n", box_build, peer_build,
                    peer_build / box_build);
        std::printf("| every box against the tree (overlaps) / rtcCollide | %.3f ms | %.3f ms | %.3f |\n", box_query, peer_collide,
                    peer_collide / box_query);
        std::printf("| both | %.3f ms | %.3f ms | %.3f |\n", box_build + box_query, peer_build + peer_collide,
                    (peer_build + peer_collide) / (box_build + box_query));
    } catch (const Error& e) {
        std::fprintf(stderr, "%s\n", e.what());
        return 1;
    }
    return 0;
}
