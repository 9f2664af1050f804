// rill-collide: which triangles of two meshes intersect, under a batch of
// poses, through rill's OBB trees (rill/algorithms/collision.h); writes a
// picture of the first colliding pose with its intersecting faces marked.
//
//   rill-collide [a.obj [b.obj]] [--pose AX,AY,AZ,TX,TY,TZ | --poses N] [--spread S]
//                [--seed S] [--first K] [--size WxH] [--out FILE.png]
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "arguments.h"
#include "collide_app.h"

namespace {

const char kUsage[] =
    "usage: rill-collide [a.obj [b.obj]] [options]\n"
    "Finds the intersecting triangles of mesh a and mesh b under a batch of random poses of b,\n"
    "with OBB trees built on the device and traversed breadth first (Horn, GPU Gems 2 ch. 36),\n"
    "or with --first K of at most 32, depth first per pose (fewer pairs tested).\n"
    "Prints the trees' build time, the query's time and poses per second, the colliding poses\n"
    "and pairs, and the candidate pairs per level; writes a PNG of the first colliding pose.\n"
    "  a.obj b.obj     Wavefront OBJ files; b defaults to a; none: two tori\n"
    "  --pose AX,AY,AZ,TX,TY,TZ   one pose instead: b turned AX, AY, AZ degrees about x, y\n"
    "                  and z (in that order), then moved by TX, TY, TZ\n"
    "  --poses N       poses in the batch (default 1000; 0 tests none)\n"
    "  --spread S      how far b's centre strays from a's, in the sum of their radii (default 0.5)\n"
    "  --seed S        the poses' random seed (default 1)\n"
    "  --first K       at most K pairs per pose (default: every pair; 1: yes/no per pose, fastest)\n"
    "  --size WxH      the picture (default 960x540)\n"
    "  --out FILE.png  the picture (default collide.png)\n"
    "RILL_BACKEND=cpu|vulkan|opengl picks the backend (default: the best one here).\n";

const app_args::Usage kArgs{"rill-collide", kUsage};

/// --pose AX,AY,AZ,TX,TY,TZ: rotations about x, then y, then z (degrees), then a move.
collide_app::Pose pose_from(const char* text) {
    float v[6];
    char rest = 0;
    if (std::sscanf(text, "%f,%f,%f,%f,%f,%f%c", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &rest) != 6)
        app_args::usage_error(kArgs, std::string("--pose takes AX,AY,AZ,TX,TY,TZ, not '") + text + "'");
    const double r = 3.14159265358979323846 / 180.0;
    const double cx = std::cos(v[0] * r), sx = std::sin(v[0] * r), cy = std::cos(v[1] * r), sy = std::sin(v[1] * r);
    const double cz = std::cos(v[2] * r), sz = std::sin(v[2] * r);
    // R = Rz Ry Rx
    const double m[9] = {cz * cy, cz * sy * sx - sz * cx, cz * sy * cx + sz * sx,
                         sz * cy, sz * sy * sx + cz * cx, sz * sy * cx - cz * sx,
                         -sy,     cy * sx,                cy * cx};
    return {float(m[0]), float(m[1]), float(m[2]), v[3], float(m[3]), float(m[4]), float(m[5]), v[4],
            float(m[6]), float(m[7]), float(m[8]), v[5]};
}

}  // namespace

int main(int argc, char** argv) {
    std::vector<std::string> inputs;
    std::string out = "collide.png";
    int poses = 1000, width = 960, height = 540, seed = 1, first = 0;
    float spread = 0.5f;
    std::vector<collide_app::Pose> given;
    app_args::Walker w(kArgs, argc, argv);
    while (w.next()) {
        if (w.is("--pose")) given.push_back(pose_from(w.value()));
        else if (w.is("--poses")) poses = w.integer(0, 100000000, "0 to 100000000");
        else if (w.is("--spread")) spread = w.number(0.0f, 100.0f, "0 to 100");
        else if (w.is("--seed")) seed = w.integer();
        else if (w.is("--first")) first = w.integer(1, 1 << 30, "1 or more");
        else if (w.is("--size")) w.size(width, height);
        else if (w.is("--out")) out = w.value();
        else if (w.positional() && inputs.size() < 2) inputs.push_back(w.arg());
        else w.unknown();
    }
    try {
        const app_meshes::Mesh a = inputs.empty() ? app_meshes::torus(96, 32, 1.0f, 0.3f) : app_meshes::read_obj("rill-collide", inputs[0]);
        const app_meshes::Mesh b = inputs.size() > 1 ? app_meshes::read_obj("rill-collide", inputs[1])
                                   : inputs.empty()  ? app_meshes::torus(64, 24, 0.8f, 0.25f)
                                                     : a;
        rill::Runtime rt;
        std::printf("backend %s: %s\n", rt.backend_name().c_str(), rt.info().device.c_str());
        std::printf("mesh a %s: %zu faces; mesh b %s: %zu faces\n", inputs.empty() ? "(torus)" : inputs[0].c_str(), a.faces.size(),
                    inputs.size() > 1 ? inputs[1].c_str() : inputs.empty() ? "(torus)" : "(a)", b.faces.size());
        const std::vector<collide_app::Pose> batch =
            given.empty() ? collide_app::random_poses(a, b, poses, std::uint32_t(seed), spread) : given;
        poses = static_cast<int>(batch.size());
        const collide_app::Run r = collide_app::run(rt, a, b, batch, {.max_pairs_per_pose = first});
        const std::int64_t colliding = std::count_if(r.counts.begin(), r.counts.end(), [](std::int32_t c) { return c > 0; });
        std::printf("OBB trees: %lld + %lld triangles (%lld skipped: non-finite or zero area), built in %.2f ms\n",
                    static_cast<long long>(r.triangles_a), static_cast<long long>(r.triangles_b), static_cast<long long>(r.skipped),
                    r.build_ms);
        std::printf("%d poses in %.2f ms (%.0f poses/s; the first run includes compiling the kernels): %lld collide, %zu pairs%s\n",
                    poses, r.query_ms, r.query_ms > 0 ? poses / (r.query_ms * 1e-3) : 0.0, static_cast<long long>(colliding),
                    r.pairs.size(), first ? (" (at most " + std::to_string(first) + " per pose)").c_str() : "");
        std::printf("candidate pairs per level:");
        for (std::int64_t c : r.candidates_per_level) std::printf(" %lld", static_cast<long long>(c));
        const bool walked = poses > 0 && r.triangles_a > 0 && r.triangles_b > 0;
        std::printf("%s\n", walked && r.candidates_per_level.empty() ? " none (walked depth first, a pose per invocation)" : "");
        // The picture: the first colliding pose, else the first pose, else b where it is.
        std::size_t shown = 0;
        while (shown < r.counts.size() && r.counts[shown] <= 0) ++shown;
        if (shown == r.counts.size()) shown = 0;
        const collide_app::Pose pose = batch.empty() ? collide_app::Pose{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0} : batch[shown];
        std::vector<rill::int4> pairs;
        for (const rill::int4& p : r.pairs)
            if (std::size_t(p.x) == shown) pairs.push_back(p);
        if (!batch.empty())
            std::printf("pose %zu: %zu intersecting pairs%s\n", shown, pairs.size(), pairs.empty() ? "" : " (red in a, orange in b)");
        app_images::write_png("rill-collide", out, collide_app::render(rt, a, b, pose, pairs, width, height));
        std::printf("wrote %s\n", out.c_str());
    } catch (const rill::Error& e) {
        std::fprintf(stderr, "%s\n", e.what());
        return 1;
    }
    return 0;
}
