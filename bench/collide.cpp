// Collision detection against FCL in one run: poses per second of a batch
// (yes/no per pose, and every pair), one pose end to end, the tree build, and
// Horn's per-level candidate counts for a colliding and a separate pose, and
// the two walks (QueryOptions::Traversal) side by side for a few pose counts
// and limits of pairs per pose, which QueryOptions::Traversal::automatic's
// choice rests on.
//
//   RILL_BACKEND=vulkan rill-bench-collide [a.obj [b.obj]] [--poses N] [--spread S] [--threads N]
//                                          [--build-triangles N]
//
// No mesh: two tori. FCL (OBBRSS trees) answers each pose with collide() and
// one contact, on 1 thread and on --threads threads (default: all cores; TBB
// over the poses). rill's times are host wall times of the whole query, its
// read-backs included, until the counts are on the host. A yes/no that
// differs from FCL's on more than 1 pose in 1000 stops the program.
#include <tbb/info.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "collide_app.h"
#include "fcl_meshes.h"
#include "timing.h"

namespace {

using namespace rill;

peers::FclMesh fcl_mesh(const app_meshes::Mesh& m) {
    std::vector<std::array<float, 4>> v;
    std::vector<std::array<std::int32_t, 4>> f;
    for (const float4& x : m.vertices) v.push_back({x.x, x.y, x.z, 0});
    for (const int4& x : m.faces) f.push_back({x.x, x.y, x.z, 0});
    return peers::FclMesh(v, f);
}

struct Trees {
    collision::ObbTree a, b;
};

std::string levels(const std::vector<std::int64_t>& c) {
    std::string s;
    for (std::int64_t x : c) {
        if (!s.empty()) s += ' ';
        s += std::to_string(x);
    }
    return s;
}

}  // namespace

int main(int argc, char** argv) {
    std::vector<std::string> inputs;
    int poses = 10000, threads = 0, build_triangles = 1000000;
    float spread = 0.5f;
    for (int a = 1; a < argc; ++a) {
        const std::string arg = argv[a];
        if (arg == "--poses" && a + 1 < argc) poses = std::atoi(argv[++a]);
        else if (arg == "--spread" && a + 1 < argc) spread = std::strtof(argv[++a], nullptr);
        else if (arg == "--threads" && a + 1 < argc) threads = std::atoi(argv[++a]);
        else if (arg == "--build-triangles" && a + 1 < argc) build_triangles = std::atoi(argv[++a]);
        else if (arg.rfind("--", 0) != 0 && inputs.size() < 2) inputs.push_back(arg);
        else {
            std::fprintf(stderr, "usage: rill-bench-collide [a.obj [b.obj]] [--poses N] [--spread S] [--threads N] [--build-triangles N]\n");
            return 2;
        }
    }
    if (poses < 1 || threads < 0 || build_triangles < 1) {
        std::fprintf(stderr, "rill-bench-collide: give --poses >= 1, --threads >= 0 and --build-triangles >= 1\n");
        return 2;
    }
    const int peer_threads = threads > 0 ? threads : tbb::info::default_concurrency();
    try {
        const app_meshes::Mesh a = inputs.empty() ? app_meshes::torus(192, 64, 1.0f, 0.3f) : app_meshes::read_obj("rill-bench-collide", inputs[0]);
        const app_meshes::Mesh b = inputs.size() > 1 ? app_meshes::read_obj("rill-bench-collide", inputs[1])
                                   : inputs.empty()  ? app_meshes::torus(128, 48, 0.8f, 0.25f)
                                                     : a;
        Runtime rt;
        std::printf("backend %s: %s\n", rt.backend_name().c_str(), rt.info().device.c_str());
        std::printf("a: %s, %zu triangles; b: %s, %zu triangles; %d poses (spread %.2f); FCL on 1 and %d threads\n",
                    inputs.empty() ? "torus" : inputs[0].c_str(), a.faces.size(),
                    inputs.size() > 1 ? inputs[1].c_str() : inputs.empty() ? "torus" : "a", b.faces.size(), poses, spread, peer_threads);
        const std::vector<collide_app::Pose> batch = collide_app::random_poses(a, b, poses, 1, spread);
        auto va = rt.stream<float4>({std::int64_t(a.vertices.size())}, a.vertices);
        auto fa = rt.stream<int4>({std::int64_t(a.faces.size())}, a.faces);
        auto vb = rt.stream<float4>({std::int64_t(b.vertices.size())}, b.vertices);
        auto fb = rt.stream<int4>({std::int64_t(b.faces.size())}, b.faces);
        const Stream<float4> p = collide_app::upload_poses(rt, batch);
        const collision::ObbTree ta = collision::ObbTree::build(va, fa), tb = collision::ObbTree::build(vb, fb);

        // The answers first: rill's yes/no against FCL's.
        const peers::FclMesh fcl_a = fcl_mesh(a), fcl_b = fcl_mesh(b);
        std::vector<peers::PoseRows> rows(batch.begin(), batch.end());
        std::vector<std::uint8_t> want;
        const double fcl_1 = bench::host_median_ms([&] { want = peers::fcl_collides_all(fcl_a, fcl_b, rows, 1); });
        const double fcl_n = bench::host_median_ms([&] { want = peers::fcl_collides_all(fcl_a, fcl_b, rows, peer_threads); });
        std::vector<std::int32_t> counts;
        collision::Collisions any;
        using Traversal = collision::QueryOptions::Traversal;
        // A query of `some` poses with at most `limit` pairs each, by `walk`,
        // its counts on the host: the median host time.
        auto limited_ms = [&](const Stream<float4>& some, std::int64_t limit, Traversal walk) {
            return bench::median_ms(1, 5, [&] {
                any = collision::collide(ta, tb, some, {.max_pairs_per_pose = limit, .traversal = walk});
                counts = any.counts.download();
            }, rt).host_ms;
        };
        // The poses where the last query's yes/no differs from FCL's.
        auto disagreements = [&] {
            std::int64_t n = 0;
            for (int i = 0; i < poses; ++i) n += (counts[i] > 0) != (want[i] != 0);
            return n;
        };
        const double rill_any = limited_ms(p, 1, Traversal::automatic);
        // The walk the automatic choice did not take, for the comparison (both checked against FCL).
        const bool picked_depth_first = any.candidates_per_level.empty();
        std::int64_t differ = disagreements();
        const std::int64_t colliding = std::count_if(want.begin(), want.end(), [](std::uint8_t w) { return w != 0; });
        const double rill_other = limited_ms(p, 1, picked_depth_first ? Traversal::breadth_first : Traversal::depth_first);
        differ += disagreements();
        if (differ > poses / 1000)
            bench::fail(std::to_string(differ) + " of " + std::to_string(poses) + " poses' yes/no (of both walks) differ from FCL's");
        collision::Collisions all;
        std::int64_t pairs = 0;
        const double rill_all = bench::median_ms(1, 5, [&] {
            all = collision::collide(ta, tb, p);
            counts = all.counts.download();
        }, rt).host_ms;
        for (std::int32_t c : counts) pairs += std::max(c, 0);

        auto per_s = [](int n, double ms) { return n / (ms * 1e-3); };
        std::printf("\n%lld of %d poses collide (FCL agrees with both walks on all but %lld); %lld intersecting pairs in all\n\n",
                    static_cast<long long>(colliding), poses, static_cast<long long>(differ), static_cast<long long>(pairs));
        std::printf("| query | rill | FCL, 1 thread | FCL, %d threads | rill / FCL 1 | rill / FCL %d |\n|---|---|---|---|---|---|\n",
                    peer_threads, peer_threads);
        const char* walk[2] = {"breadth first", "depth first"};
        std::printf("| %d poses, yes/no (%s) | %.3f ms (%.0f poses/s) | %.3f ms (%.0f poses/s) | %.3f ms (%.0f poses/s) | %.2f | %.2f |\n",
                    poses, walk[picked_depth_first], rill_any, per_s(poses, rill_any), fcl_1, per_s(poses, fcl_1), fcl_n,
                    per_s(poses, fcl_n), fcl_1 / rill_any, fcl_n / rill_any);
        std::printf("| %d poses, yes/no (%s, not the automatic walk) | %.3f ms (%.0f poses/s) | | | %.2f | %.2f |\n", poses,
                    walk[!picked_depth_first], rill_other, per_s(poses, rill_other), fcl_1 / rill_other, fcl_n / rill_other);
        std::printf("| %d poses, every pair | %.3f ms (%.0f poses/s) | - | - | %.2f | %.2f |\n", poses, rill_all, per_s(poses, rill_all),
                    fcl_1 / rill_all, fcl_n / rill_all);

        // One pose end to end, a colliding one and a separate one; Horn's per-level counts.
        std::size_t hit = 0, miss = 0;
        while (hit < want.size() && !want[hit]) ++hit;
        while (miss < want.size() && want[miss]) ++miss;
        for (std::size_t which : {hit, miss}) {
            if (which >= batch.size()) continue;
            const Stream<float4> one = collide_app::upload_poses(rt, {batch[which]});
            collision::Collisions c;
            const double ms = bench::median_ms(1, 9, [&] {
                c = collision::collide(ta, tb, one);
                counts = c.counts.download();
            }, rt).host_ms;
            const double fcl_ms = bench::host_median_ms([&] { (void)peers::fcl_pairs(fcl_a, fcl_b, rows[which]); });
            std::printf("| one %s pose, every pair | %.3f ms | %.3f ms (all contacts) | - | %.2f | - |\n",
                        which == hit ? "colliding" : "separate", ms, fcl_ms, fcl_ms / ms);
            std::printf("|   candidate pairs per level (%zu levels, %d pairs) | %s | | | | |\n", c.candidates_per_level.size(),
                        counts[0], levels(c.candidates_per_level).c_str());
            std::printf("|   device time | %s | | | | |\n", bench::breakdown(rt, [&] { c = collision::collide(ta, tb, one); }).c_str());
        }

        // The tree build of a large mesh.
        const app_meshes::Mesh big = app_meshes::sphere_field(build_triangles);
        auto vbig = rt.stream<float4>({std::int64_t(big.vertices.size())}, big.vertices);
        auto fbig = rt.stream<int4>({std::int64_t(big.faces.size())}, big.faces);
        collision::ObbTree tree = collision::ObbTree::build(vbig, fbig);
        const double build = bench::median_ms(1, 5, [&] { tree = collision::ObbTree::build(vbig, fbig); }, rt).host_ms;
        const double fcl_build = bench::host_median_ms([&] { (void)fcl_mesh(big); });
        std::printf("| OBB tree of %zu triangles | %.3f ms | %.3f ms (BVHModel<OBBRSS>) | - | %.2f | - |\n", big.faces.size(), build,
                    fcl_build, fcl_build / build);
        std::printf("|   device time | %s | | | | |\n", bench::breakdown(rt, [&] { tree = collision::ObbTree::build(vbig, fbig); }).c_str());

        // The two walks by pose count (the first of the batch's poses; one: a
        // colliding pose) and limit of pairs per pose.
        std::printf("\n| poses, pairs per pose at most | breadth first | depth first | breadth / depth |\n|---|---|---|---|\n");
        std::vector<int> pose_counts = {1};
        if (poses > 64) pose_counts.push_back(64);
        if (poses > 1) pose_counts.push_back(poses);
        for (int n : pose_counts) {
            const Stream<float4> some = n == 1 ? collide_app::upload_poses(rt, {batch[std::min(hit, batch.size() - 1)]})
                                               : collide_app::upload_poses(rt, {batch.begin(), batch.begin() + n});
            for (std::int64_t limit : {1, 32}) {
                double ms[2];
                for (Traversal walk : {Traversal::breadth_first, Traversal::depth_first})
                    ms[walk == Traversal::depth_first] = limited_ms(some, limit, walk);
                std::printf("| %d, %lld | %.3f ms | %.3f ms | %.2f |\n", n, static_cast<long long>(limit), ms[0], ms[1], ms[0] / ms[1]);
            }
        }
    } catch (const Error& e) {
        std::fprintf(stderr, "%s\n", e.what());
        return 1;
    }
    return 0;
}
