// rill-subdivide: uniform or adaptive Loop subdivision of a triangle mesh on
// the device (rill/algorithms/subdivision.h); writes the result as OBJ and a
// path-traced PNG of it (rill-raytrace's renderer), smooth-shaded by the
// limit normals, adaptive runs coloured by level.
//
//   rill-subdivide [mesh.obj] [--levels L | --adaptive R [--max-level L]] [--flat] [--obj OUT.obj] [--out OUT.png] [--size WxH] [--samples S]
#include <cstdio>
#include <fstream>
#include <string>

#include <rill/algorithms/subdivision.h>

#include "arguments.h"
#include "raytrace_app.h"
#include "stopwatch.h"

namespace {

const char kUsage[] =
    "usage: rill-subdivide [mesh.obj] [options]\n"
    "Refines a triangle mesh by Loop's scheme on the device, each level's connectivity built\n"
    "there from the level before; prints triangles and time per level, writes the result as\n"
    "OBJ and a path-traced PNG.\n"
    "  mesh.obj          a Wavefront OBJ file; none: a coarse torus\n"
    "  --levels L        levels of uniform refinement, 0 to 8 (default 3)\n"
    "  --adaptive R      adaptive refinement instead: split every edge longer than R times\n"
    "                    its distance from the picture's camera (R = 0.01: about 1% of the\n"
    "                    view's height at 45 degrees), on the limit surface, crack-free;\n"
    "                    the picture colours each triangle by its level\n"
    "  --max-level L     the adaptive refinement's deepest level, 0 to 10 (default 6)\n"
    "  --flat            flat shading (default: smooth, by the limit surface's normals)\n"
    "  --obj OUT.obj     the refined mesh (default: not written)\n"
    "  --out OUT.png     the picture (default subdivide.png; none: no picture)\n"
    "  --size WxH        the picture's size (default 960x540)\n"
    "  --samples S       samples per pixel (default 4)\n"
    "RILL_BACKEND=cpu|vulkan|opengl picks the backend (default: the best one here).\n";

const app_args::Usage kArgs{"rill-subdivide", kUsage};

using app_time::Clock;
using app_time::ms_since;

/// An albedo per level: blue (0) through green and yellow to red and magenta.
rill::float4 level_colour(int level) {
    static const rill::float4 kPalette[] = {{0.20f, 0.35f, 0.85f, 0}, {0.15f, 0.65f, 0.85f, 0}, {0.20f, 0.75f, 0.45f, 0},
                                            {0.55f, 0.80f, 0.20f, 0}, {0.90f, 0.80f, 0.20f, 0}, {0.95f, 0.55f, 0.15f, 0},
                                            {0.90f, 0.25f, 0.20f, 0}, {0.80f, 0.20f, 0.60f, 0}, {0.55f, 0.25f, 0.80f, 0}};
    constexpr int n = sizeof(kPalette) / sizeof(kPalette[0]);
    return kPalette[level < 0 ? 0 : level >= n ? n - 1 : level];
}

}  // namespace

int main(int argc, char** argv) {
    std::string input, obj, out = "subdivide.png";
    int levels = 3, max_level = 6;
    float ratio = 0;  // > 0: adaptive
    bool flat = false;
    raytrace_app::Settings s;
    app_args::Walker w(kArgs, argc, argv);
    while (w.next()) {
        if (w.is("--levels")) levels = w.integer(0, 8, "0 to 8");
        else if (w.is("--adaptive")) ratio = w.number(1e-5, 10, "1e-5 to 10");
        else if (w.is("--max-level")) max_level = w.integer(0, 10, "0 to 10");
        else if (w.is("--flat")) flat = true;
        else if (w.is("--obj")) obj = w.value();
        else if (w.is("--out")) out = w.value();
        else if (w.is("--size")) w.size(s.width, s.height);
        else if (w.is("--samples")) s.samples = w.integer(1, 65536, "1 to 65536");
        else if (w.positional() && input.empty()) input = w.arg();
        else w.unknown();
    }
    try {
        std::size_t dropped = 0;
        // rill::subdivision::loop refuses vertices no face uses (scanned meshes have them): dropped here.
        const app_meshes::Mesh mesh = app_meshes::without_unused_vertices(
            input.empty() ? app_meshes::torus(12, 6, 1.0f, 0.4f) : app_meshes::read_obj("rill-subdivide", input), dropped);
        rill::Runtime rt;
        std::printf("backend %s: %s\n", rt.backend_name().c_str(), rt.info().device.c_str());
        std::printf("mesh %s: %zu vertices, %zu faces (%zu unused vertices dropped)\n", input.empty() ? "(torus)" : input.c_str(),
                    mesh.vertices.size(), mesh.faces.size(), dropped);
        const rill::Stream<rill::float4> vertices = rt.stream<rill::float4>({std::int64_t(mesh.vertices.size())}, mesh.vertices);
        const rill::Stream<rill::int4> faces = rt.stream<rill::int4>({std::int64_t(mesh.faces.size())}, mesh.faces);
        s.camera = raytrace_app::frame(mesh);
        app_meshes::Mesh fine;
        if (ratio > 0) {
            // Screen-space size: an edge is split while it is longer than `ratio` times
            // its distance from the camera.
            const rill::subdivision::EdgeCriterion near_camera(
                "subdivide_near_camera", [](const rill::Expr<rill::float3>& a, const rill::Expr<rill::float3>& b,
                                            const rill::Expr<rill::float4>& eye) {
                    return rill::length(a - b) > eye.w() * rill::length((a + b) * 0.5f - eye.xyz());
                });
            const rill::float4 eye{s.camera.eye.x, s.camera.eye.y, s.camera.eye.z, ratio};
            rill::subdivision::adaptive(vertices, faces, near_camera, max_level, eye);  // compiles the kernels
            rt.finish();
            const auto t0 = Clock::now();
            const rill::subdivision::AdaptiveMesh m = rill::subdivision::adaptive(vertices, faces, near_camera, max_level, eye);
            rt.finish();
            const double ms = ms_since(t0);
            for (std::size_t level = 0; level < m.faces_per_level.size(); ++level)
                std::printf("level %zu: %lld triangles finished\n", level, static_cast<long long>(m.faces_per_level[level]));
            std::printf("adaptive to level %d (at most): %lld vertices, %lld faces in %.2f ms (%.1f M faces/s); %lld requests held back\n",
                        max_level, static_cast<long long>(m.vertices.size()), static_cast<long long>(m.faces.size()), ms,
                        m.faces.size() / (ms * 1e3), static_cast<long long>(m.held_back));
            fine = app_meshes::Mesh{m.vertices.download(), m.faces.download(), m.normals.download(), {}};
            for (rill::int4& t : fine.faces) {
                fine.colours.push_back(level_colour(t.w));
                t.w = 0;
            }
            for (rill::float4& v : fine.vertices) v.w = 0;
        } else {
            // Each level from the input in one call (a call's later levels follow their
            // connectivity from the level before, so one call to L beats L calls of one).
            rill::subdivision::Mesh m{vertices, faces, {}};
            for (int level = 1; level <= levels; ++level) {
                rt.finish();
                const auto t0 = Clock::now();
                m = rill::subdivision::loop(vertices, faces, level);
                rt.finish();
                const double ms = ms_since(t0);
                std::printf("level %d: %lld vertices, %lld faces in %.2f ms from the input (%.1f M faces/s%s)\n", level,
                            static_cast<long long>(m.vertices.size()), static_cast<long long>(m.faces.size()), ms,
                            m.faces.size() / (ms * 1e3), level == 1 ? "; includes compiling" : "");
            }
            fine = app_meshes::Mesh{m.vertices.download(), m.faces.download(), {}, {}};
            if (!flat) fine.normals = rill::subdivision::limit_normals(m.vertices, m.faces).download();
        }
        if (!obj.empty()) {
            std::ofstream f(obj);
            if (!f) throw rill::Error("rill-subdivide: cannot write '" + obj + "'; check the folder exists and is writable");
            for (const rill::float4& v : fine.vertices) f << "v " << v.x << ' ' << v.y << ' ' << v.z << '\n';
            for (const rill::float4& n : fine.normals) f << "vn " << n.x << ' ' << n.y << ' ' << n.z << '\n';
            const bool normals = !fine.normals.empty();
            for (const rill::int4& t : fine.faces) {
                f << "f";
                for (int c : {t.x, t.y, t.z}) f << ' ' << c + 1 << (normals ? "//" + std::to_string(c + 1) : std::string());
                f << '\n';
            }
            std::printf("wrote %s\n", obj.c_str());
        }
        if (out == "none") return 0;
        if (flat) fine.normals.clear();
        raytrace_app::Result picture;
        try {
            picture = raytrace_app::render(rt, fine, s);
        } catch (const rill::Error& e) {
            throw rill::Error(std::string(e.what()) + "\nrill-subdivide: the picture of " + std::to_string(fine.faces.size()) +
                              " triangles could not be made (above); write the mesh alone with --obj OUT.obj --out none, or "
                              "refine less");
        }
        app_images::write_png("rill-subdivide", out, picture.image);
        std::printf("wrote %s\n", out.c_str());
    } catch (const rill::Error& e) {
        std::fprintf(stderr, "%s\n", e.what());
        return 1;
    }
    return 0;
}
