// The showcase's library part: Brook-paper kernels (SAXPY, mul + sum SGEMV,
// ray-triangle intersection) and the meshes they run on. Tests and
// benchmarks reuse it.
#pragma once

#include <string>
#include <vector>

#include <rill/rill.h>

namespace rill::showcase {

struct Triangle {
    float3 v0, v1, v2;
};

/// A closed torus of 2 * rings * sides triangles, centred at the origin.
std::vector<Triangle> make_torus(int rings, int sides, float major_radius, float minor_radius);
/// Triangles of a Wavefront OBJ file, scaled and centred into the unit sphere.
/// Throws rill::Error with the path and the reason when it cannot be read.
std::vector<Triangle> load_obj(const std::string& path);

struct Image {
    int width = 0, height = 0;
    std::vector<float4> hits;  // per pixel: (t, u, v, triangle index or -1)
};

/// Casts one primary ray per pixel from a camera looking at the origin and
/// intersects it with every triangle (the Brook paper's krnIntersectTriangle,
/// without its grid). Returns the nearest hit per pixel.
Image trace_primary_rays(Runtime& rt, const std::vector<Triangle>& mesh, int width, int height);
/// The same rays through a BVH built on the device (rill/algorithms/bvh.h):
/// what the showcase draws with; the brute force stays as its reference.
Image trace_primary_rays_bvh(Runtime& rt, const std::vector<Triangle>& mesh, int width, int height);

/// Lambert shading of the hits with the triangle normals, as 8-bit RGB.
std::vector<unsigned char> shade(const Image& image, const std::vector<Triangle>& mesh);
/// Writes 8-bit RGB pixels as a PNG; throws rill::Error on failure.
void write_png(const std::string& path, int width, int height, const std::vector<unsigned char>& rgb);

/// Reference hit for one ray, computed on the host in float64 (for tests).
float4 reference_hit(const float3& origin, const float3& dir, const std::vector<Triangle>& mesh);
/// The ray through pixel (x, y) of the showcase camera.
void camera_ray(int x, int y, int width, int height, float3& origin, float3& dir);

}  // namespace rill::showcase
