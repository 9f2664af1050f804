// Triangle meshes for the apps: Wavefront OBJ files and procedural scenes, as
// the vertex and face streams rill's mesh modules take (rill/algorithms/bvh.h).
#pragma once

#include <string>
#include <vector>

#include <rill/rill.h>

namespace app_meshes {

struct Mesh {
    std::vector<rill::float4> vertices;  ///< x, y, z, 0
    std::vector<rill::int4> faces;       ///< three vertex indices, 0
    std::vector<rill::float4> normals;   ///< per vertex, for smooth shading; empty: flat
    std::vector<rill::float4> colours;   ///< per face, an RGB albedo; empty: grey
};

/// Reads the triangles of an OBJ file (polygons are split into triangles).
/// `program` names the caller in the rill::Error an unreadable file raises.
Mesh read_obj(const std::string& program, const std::string& path);

/// A closed UV sphere: rings x segments quads, the poles as fans.
Mesh sphere(int rings, int segments, float radius, rill::float3 centre);
/// A closed torus about the y axis: nu x nv quads (two triangles each).
Mesh torus(int nu, int nv, float major, float minor);
/// A quad of two triangles (corners in order).
Mesh quad(rill::float3 a, rill::float3 b, rill::float3 c, rill::float3 d);
/// Appends `m`, its vertices moved by `offset`, to `to`.
void append(Mesh& to, const Mesh& m, rill::float3 offset = {0, 0, 0});

/// A test scene of about `triangles` triangles: a ground quad and a grid of
/// spheres (the count sets their number and tessellation), a few at most
/// intersecting: for renders and for benchmarks of any size up to ~10^8.
Mesh sphere_field(std::int64_t triangles);

/// The mesh without the vertices no face uses (faces renumbered); `dropped`
/// gets how many there were.
Mesh without_unused_vertices(const Mesh& m, std::size_t& dropped);

/// The axis-aligned bounds of the vertices that faces use.
void bounds(const Mesh& m, rill::float3& lo, rill::float3& hi);

}  // namespace app_meshes
