// rill-subdivide: uniform Loop subdivision of a triangle mesh on the device
// (rill/algorithms/subdivision.h); writes the result as OBJ and a
// path-traced PNG of it (rill-raytrace's renderer).
//
//   rill-subdivide [mesh.obj] [--levels L] [--obj OUT.obj] [--out OUT.png] [--size WxH] [--samples S]
#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>

#include <rill/algorithms/subdivision.h>

#include "arguments.h"
#include "raytrace_app.h"

namespace {

const char kUsage[] =
    "usage: rill-subdivide [mesh.obj] [options]\n"
    "Refines a triangle mesh by Loop's scheme on the device, each level's connectivity built\n"
    "there from the level before; prints triangles and time per level, writes the result as\n"
    "OBJ and a path-traced PNG.\n"
    "  mesh.obj          a Wavefront OBJ file; none: a coarse torus\n"
    "  --levels L        levels of refinement, 0 to 8 (default 3)\n"
    "  --obj OUT.obj     the refined mesh (default: not written)\n"
    "  --out OUT.png     the picture (default subdivide.png)\n"
    "  --size WxH        the picture's size (default 960x540)\n"
    "  --samples S       samples per pixel (default 4)\n"
    "RILL_BACKEND=cpu|vulkan|opengl picks the backend (default: the best one here).\n";

const app_args::Usage kArgs{"rill-subdivide", kUsage};

using Clock = std::chrono::steady_clock;

}  // namespace

int main(int argc, char** argv) {
    std::string input, obj, out = "subdivide.png";
    int levels = 3;
    raytrace_app::Settings s;
    app_args::Walker w(kArgs, argc, argv);
    while (w.next()) {
        if (w.is("--levels")) levels = w.integer(0, 8, "0 to 8");
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
        rill::subdivision::Mesh m{rt.stream<rill::float4>({std::int64_t(mesh.vertices.size())}, mesh.vertices),
                                  rt.stream<rill::int4>({std::int64_t(mesh.faces.size())}, mesh.faces), {}};
        for (int level = 1; level <= levels; ++level) {
            rt.finish();
            const auto t0 = Clock::now();
            m = rill::subdivision::loop(m.vertices, m.faces, 1);
            rt.finish();
            const double ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
            std::printf("level %d: %lld vertices, %lld faces in %.2f ms (%.1f M faces/s; the first level includes compiling)\n", level,
                        static_cast<long long>(m.vertices.size()), static_cast<long long>(m.faces.size()), ms,
                        m.faces.size() / (ms * 1e3));
        }
        app_meshes::Mesh fine{m.vertices.download(), m.faces.download()};
        if (!obj.empty()) {
            std::ofstream f(obj);
            if (!f) throw rill::Error("rill-subdivide: cannot write '" + obj + "'; check the folder exists and is writable");
            for (const rill::float4& v : fine.vertices) f << "v " << v.x << ' ' << v.y << ' ' << v.z << '\n';
            for (const rill::int4& t : fine.faces) f << "f " << t.x + 1 << ' ' << t.y + 1 << ' ' << t.z + 1 << '\n';
            std::printf("wrote %s\n", obj.c_str());
        }
        s.camera = raytrace_app::frame(fine);
        app_images::write_png("rill-subdivide", out, raytrace_app::render(rt, fine, s).image);
        std::printf("wrote %s\n", out.c_str());
    } catch (const rill::Error& e) {
        std::fprintf(stderr, "%s\n", e.what());
        return 1;
    }
    return 0;
}
