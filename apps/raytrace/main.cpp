// rill-raytrace: a path-traced image of a mesh through rill's BVH
// (rill/algorithms/bvh.h): primary rays, shadow rays to a square area light,
// a diffuse bounce with its own shadow ray, a sky; samples accumulated.
//
//   rill-raytrace [mesh.obj] [--triangles N] [--size WxH] [--samples S]
//                 [--eye X,Y,Z --target X,Y,Z] [--fov DEGREES] [--out FILE.png]
#include <unistd.h>

#include <cstdio>
#include <string>

#include "arguments.h"
#include "raytrace_app.h"

namespace {

const char kUsage[] =
    "usage: rill-raytrace [mesh.obj] [options]\n"
    "Path-traces a triangle mesh through a BVH built on the device: primary rays, shadow\n"
    "rays to a square area light, one diffuse bounce and a sky. Writes a PNG and prints\n"
    "the BVH build time and the rays per second of each kind.\n"
    "  mesh.obj              a Wavefront OBJ file; none: a field of spheres on a ground plane\n"
    "  --triangles N         the built-in scene's size in triangles (default 200000)\n"
    "  --size WxH            the image (default 960x540)\n"
    "  --samples S           samples per pixel (default 4)\n"
    "  --eye X,Y,Z --target X,Y,Z   the camera (default: the whole mesh, from the front and above)\n"
    "  --fov DEGREES         vertical field of view (default 45)\n"
    "  --out FILE.png        the image (default raytrace.png)\n"
    "RILL_BACKEND=cpu|vulkan|opengl picks the backend (default: the best one here).\n";

const app_args::Usage kArgs{"rill-raytrace", kUsage};

rill::float3 point(const char* flag, const char* text) {
    rill::float3 p{};
    char rest = 0;
    if (std::sscanf(text, "%f,%f,%f%c", &p.x, &p.y, &p.z, &rest) != 3)
        app_args::usage_error(kArgs, std::string(flag) + " takes X,Y,Z, not '" + text + "'");
    return p;
}

double per_second(std::int64_t rays, double ms) { return ms > 0 ? rays / (ms * 1e3) : 0.0; }

}  // namespace

int main(int argc, char** argv) {
    raytrace_app::Settings s;
    std::string input, out = "raytrace.png";
    int triangles = 200000;
    bool eye = false, target = false, fov = false;
    rill::float3 eye_at{}, target_at{};
    app_args::Walker w(kArgs, argc, argv);
    while (w.next()) {
        if (w.is("--triangles")) {
            triangles = w.integer(1, 200000000, "1 to 200000000");
        } else if (w.is("--size")) {
            w.size(s.width, s.height);
        } else if (w.is("--samples")) {
            s.samples = w.integer(1, 65536, "1 to 65536");
        } else if (w.is("--eye")) {
            eye_at = point("--eye", w.value()), eye = true;
        } else if (w.is("--target")) {
            target_at = point("--target", w.value()), target = true;
        } else if (w.is("--fov")) {
            s.camera.fov_degrees = w.number(), fov = true;
            if (!(s.camera.fov_degrees > 0.0f && s.camera.fov_degrees < 179.0f)) w.error("--fov takes 0 to 179 degrees");
        } else if (w.is("--out")) {
            out = w.value();
        } else if (w.positional() && input.empty()) {
            input = w.arg();
        } else {
            w.unknown();
        }
    }
    if (eye != target) app_args::usage_error(kArgs, "give --eye and --target together");
    try {
        const app_meshes::Mesh mesh = input.empty() ? app_meshes::sphere_field(triangles) : app_meshes::read_obj("rill-raytrace", input);
        const float fov_degrees = s.camera.fov_degrees;
        // The built-in scene's ground is wide: closer, its spheres fill the image.
        s.camera = eye ? raytrace_app::Camera{eye_at, target_at, fov_degrees} : raytrace_app::frame(mesh, input.empty() ? 0.56f : 1.0f);
        if (fov) s.camera.fov_degrees = fov_degrees;
        rill::Runtime rt;
        std::printf("backend %s: %s\n", rt.backend_name().c_str(), rt.info().device.c_str());
        std::printf("mesh %s: %zu vertices, %zu faces\n", input.empty() ? "(built-in sphere field)" : input.c_str(), mesh.vertices.size(),
                    mesh.faces.size());
        const bool tty = isatty(fileno(stderr));
        const raytrace_app::Result r = raytrace_app::render(rt, mesh, s, [&](int done, int total) {
            if (tty) std::fprintf(stderr, "\rsample %d / %d", done, total);
        });
        if (tty) std::fprintf(stderr, "\r%30s\r", "");
        const raytrace_app::Stats& t = r.stats;
        std::printf("BVH: %lld triangles (%lld skipped: non-finite or zero area), built in %.2f ms\n",
                    static_cast<long long>(t.triangles), static_cast<long long>(t.skipped), t.build_ms);
        std::printf("%dx%d, %d samples per pixel:\n", s.width, s.height, s.samples);
        std::printf("  primary rays  %11lld in %8.1f ms: %7.1f Mrays/s\n", static_cast<long long>(t.primary_rays), t.primary_ms,
                    per_second(t.primary_rays, t.primary_ms));
        std::printf("  shadow rays   %11lld in %8.1f ms: %7.1f Mrays/s (any hit)\n", static_cast<long long>(t.shadow_rays), t.shadow_ms,
                    per_second(t.shadow_rays, t.shadow_ms));
        std::printf("  bounce rays   %11lld in %8.1f ms: %7.1f Mrays/s\n", static_cast<long long>(t.bounce_rays), t.bounce_ms,
                    per_second(t.bounce_rays, t.bounce_ms));
        std::printf("  shading       %8.1f ms (host wall times; the first sample includes compiling the kernels)\n", t.shade_ms);
        app_images::write_png("rill-raytrace", out, r.image);
        std::printf("wrote %s\n", out.c_str());
    } catch (const rill::Error& e) {
        std::fprintf(stderr, "%s\n", e.what());
        return 1;
    }
    return 0;
}
