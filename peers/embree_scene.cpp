// Embree 3 behind the small interface of embree_scene.h.
#include "embree_scene.h"

#include <embree3/rtcore.h>
#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace rill::peers {

namespace {

RTCRay make_ray(const std::array<float, 4>& o, const std::array<float, 4>& d) {
    RTCRay r{};
    r.org_x = o[0], r.org_y = o[1], r.org_z = o[2], r.tnear = o[3];
    r.dir_x = d[0], r.dir_y = d[1], r.dir_z = d[2], r.tfar = d[3];
    r.mask = ~0u;
    r.flags = 0;
    return r;
}

double area(const RTCBounds& b) {
    const double x = double(b.upper_x) - b.lower_x, y = double(b.upper_y) - b.lower_y, z = double(b.upper_z) - b.lower_z;
    return 2.0 * (x * y + y * z + z * x);
}

// The builder API's tree: a node keeps its children and their boxes.
struct BuildNode {
    bool leaf = false;
    unsigned count = 0;
    BuildNode* children[2] = {nullptr, nullptr};
    RTCBounds bounds[2] = {};
};

double children_area(const BuildNode* n) {
    if (n->leaf) return 0.0;
    double sum = 0.0;
    for (unsigned i = 0; i < n->count; ++i) sum += area(n->bounds[i]) + children_area(n->children[i]);
    return sum;
}

}  // namespace

EmbreeScene::EmbreeScene(const std::vector<std::array<float, 4>>& vertices,
                         const std::vector<std::array<std::int32_t, 4>>& faces, int threads, bool robust) {
    const std::string config = threads > 0 ? "threads=" + std::to_string(threads) : "";
    device_ = rtcNewDevice(config.c_str());
    if (!device_) throw std::runtime_error("Embree: rtcNewDevice failed");
    scene_ = rtcNewScene(device_);
    if (robust) rtcSetSceneFlags(scene_, RTC_SCENE_FLAG_ROBUST);
    rtcSetSceneBuildQuality(scene_, RTC_BUILD_QUALITY_HIGH);
    if (!faces.empty()) {
        RTCGeometry g = rtcNewGeometry(device_, RTC_GEOMETRY_TYPE_TRIANGLE);
        auto* v = static_cast<float*>(rtcSetNewGeometryBuffer(g, RTC_BUFFER_TYPE_VERTEX, 0, RTC_FORMAT_FLOAT3,
                                                              4 * sizeof(float), std::max<std::size_t>(vertices.size(), 1)));
        for (std::size_t i = 0; i < vertices.size(); ++i) std::copy(vertices[i].begin(), vertices[i].end(), v + 4 * i);
        auto* f = static_cast<std::uint32_t*>(rtcSetNewGeometryBuffer(g, RTC_BUFFER_TYPE_INDEX, 0, RTC_FORMAT_UINT3,
                                                                      3 * sizeof(std::uint32_t), faces.size()));
        for (std::size_t i = 0; i < faces.size(); ++i)
            for (int c = 0; c < 3; ++c) f[3 * i + c] = static_cast<std::uint32_t>(faces[i][c]);
        rtcCommitGeometry(g);
        rtcAttachGeometry(scene_, g);
        rtcReleaseGeometry(g);
    }
    rtcCommitScene(scene_);
}

EmbreeScene::~EmbreeScene() {
    rtcReleaseScene(scene_);
    rtcReleaseDevice(device_);
}

EmbreeScene::Hit EmbreeScene::closest(const std::array<float, 4>& origin, const std::array<float, 4>& direction) const {
    RTCIntersectContext context;
    rtcInitIntersectContext(&context);
    RTCRayHit rh{};
    rh.ray = make_ray(origin, direction);
    rh.hit.geomID = RTC_INVALID_GEOMETRY_ID;
    rh.hit.primID = RTC_INVALID_GEOMETRY_ID;
    rtcIntersect1(scene_, &context, &rh);
    if (rh.hit.geomID == RTC_INVALID_GEOMETRY_ID) return Hit{direction[3], 0.0f, 0.0f, -1};
    return Hit{rh.ray.tfar, rh.hit.u, rh.hit.v, static_cast<std::int32_t>(rh.hit.primID)};
}

bool EmbreeScene::occluded(const std::array<float, 4>& origin, const std::array<float, 4>& direction) const {
    RTCIntersectContext context;
    rtcInitIntersectContext(&context);
    RTCRay r = make_ray(origin, direction);
    rtcOccluded1(scene_, &context, &r);
    return r.tfar == -std::numeric_limits<float>::infinity();
}

void EmbreeScene::closest_all(const std::vector<std::array<float, 4>>& origins,
                              const std::vector<std::array<float, 4>>& directions, std::vector<Hit>& hits) const {
    hits.resize(origins.size());
    tbb::parallel_for(tbb::blocked_range<std::size_t>(0, origins.size(), 256), [&](const auto& r) {
        for (std::size_t i = r.begin(); i < r.end(); ++i) hits[i] = closest(origins[i], directions[i]);
    });
}

void EmbreeScene::occluded_all(const std::vector<std::array<float, 4>>& origins,
                               const std::vector<std::array<float, 4>>& directions, std::vector<std::uint8_t>& out) const {
    out.resize(origins.size());
    tbb::parallel_for(tbb::blocked_range<std::size_t>(0, origins.size(), 256), [&](const auto& r) {
        for (std::size_t i = r.begin(); i < r.end(); ++i) out[i] = occluded(origins[i], directions[i]) ? 1 : 0;
    });
}

double EmbreeScene::binary_sah_cost(const std::vector<std::array<float, 4>>& vertices,
                                    const std::vector<std::array<std::int32_t, 4>>& faces) {
    std::vector<RTCBuildPrimitive> prims;
    prims.reserve(faces.size());
    for (std::size_t i = 0; i < faces.size(); ++i) {
        RTCBuildPrimitive p{};
        p.lower_x = p.lower_y = p.lower_z = std::numeric_limits<float>::infinity();
        p.upper_x = p.upper_y = p.upper_z = -std::numeric_limits<float>::infinity();
        for (int c = 0; c < 3; ++c) {
            const auto& v = vertices[static_cast<std::size_t>(faces[i][c])];
            p.lower_x = std::min(p.lower_x, v[0]), p.lower_y = std::min(p.lower_y, v[1]), p.lower_z = std::min(p.lower_z, v[2]);
            p.upper_x = std::max(p.upper_x, v[0]), p.upper_y = std::max(p.upper_y, v[1]), p.upper_z = std::max(p.upper_z, v[2]);
        }
        p.geomID = 0;
        p.primID = static_cast<unsigned>(i);
        prims.push_back(p);
    }
    if (prims.empty()) return 0.0;
    RTCDevice device = rtcNewDevice(nullptr);
    RTCBVH bvh = rtcNewBVH(device);
    RTCBuildArguments args = rtcDefaultBuildArguments();
    args.buildQuality = RTC_BUILD_QUALITY_HIGH;
    args.maxBranchingFactor = 2;
    args.maxDepth = 1024;
    args.minLeafSize = 1;
    args.maxLeafSize = 1;
    args.bvh = bvh;
    args.primitives = prims.data();
    args.primitiveCount = prims.size();
    args.primitiveArrayCapacity = prims.size();
    args.createNode = [](RTCThreadLocalAllocator alloc, unsigned count, void*) -> void* {
        auto* n = new (rtcThreadLocalAlloc(alloc, sizeof(BuildNode), 16)) BuildNode;
        n->count = count;
        return n;
    };
    args.setNodeChildren = [](void* node, void** children, unsigned count, void*) {
        for (unsigned i = 0; i < count; ++i) static_cast<BuildNode*>(node)->children[i] = static_cast<BuildNode*>(children[i]);
    };
    args.setNodeBounds = [](void* node, const RTCBounds** bounds, unsigned count, void*) {
        for (unsigned i = 0; i < count; ++i) static_cast<BuildNode*>(node)->bounds[i] = *bounds[i];
    };
    args.createLeaf = [](RTCThreadLocalAllocator alloc, const RTCBuildPrimitive*, std::size_t, void*) -> void* {
        auto* n = new (rtcThreadLocalAlloc(alloc, sizeof(BuildNode), 16)) BuildNode;
        n->leaf = true;
        return n;
    };
    auto* root = static_cast<BuildNode*>(rtcBuildBVH(&args));
    double cost = 1.0;
    if (!root->leaf) {
        RTCBounds all = root->bounds[0];
        for (unsigned i = 1; i < root->count; ++i) {
            const RTCBounds& b = root->bounds[i];
            all.lower_x = std::min(all.lower_x, b.lower_x), all.lower_y = std::min(all.lower_y, b.lower_y);
            all.lower_z = std::min(all.lower_z, b.lower_z), all.upper_x = std::max(all.upper_x, b.upper_x);
            all.upper_y = std::max(all.upper_y, b.upper_y), all.upper_z = std::max(all.upper_z, b.upper_z);
        }
        cost += children_area(root) / area(all);
    }
    rtcReleaseBVH(bvh);
    rtcReleaseDevice(device);
    return cost;
}

namespace {
struct UserBoxes {
    const std::vector<std::array<float, 4>>* lo;
    const std::vector<std::array<float, 4>>* hi;
};
}  // namespace

std::int64_t EmbreeScene::overlapping_pairs(const std::vector<std::array<float, 4>>& lo,
                                            const std::vector<std::array<float, 4>>& hi, double& build_ms, double& collide_ms) {
    using Clock = std::chrono::steady_clock;
    UserBoxes boxes{&lo, &hi};
    RTCDevice device = rtcNewDevice(nullptr);
    RTCScene scene = rtcNewScene(device);
    RTCGeometry g = rtcNewGeometry(device, RTC_GEOMETRY_TYPE_USER);
    rtcSetGeometryUserPrimitiveCount(g, static_cast<unsigned>(lo.size()));
    rtcSetGeometryUserData(g, &boxes);
    rtcSetGeometryBoundsFunction(
        g,
        [](const RTCBoundsFunctionArguments* a) {
            const auto* b = static_cast<const UserBoxes*>(a->geometryUserPtr);
            const auto& l = (*b->lo)[a->primID];
            const auto& h = (*b->hi)[a->primID];
            *a->bounds_o = RTCBounds{l[0], l[1], l[2], 0.0f, h[0], h[1], h[2], 0.0f};
        },
        nullptr);
    rtcCommitGeometry(g);
    rtcAttachGeometry(scene, g);
    rtcReleaseGeometry(g);
    auto t = Clock::now();
    rtcCommitScene(scene);
    build_ms = std::chrono::duration<double, std::milli>(Clock::now() - t).count();
    std::atomic<std::int64_t> pairs{0};
    t = Clock::now();
    rtcCollide(
        scene, scene,
        [](void* count, RTCCollision*, unsigned n) { *static_cast<std::atomic<std::int64_t>*>(count) += n; }, &pairs);
    collide_ms = std::chrono::duration<double, std::milli>(Clock::now() - t).count();
    const RTCError error = rtcGetDeviceError(device);
    rtcReleaseScene(scene);
    rtcReleaseDevice(device);
    if (error != RTC_ERROR_NONE) throw std::runtime_error("Embree's rtcCollide failed with error " + std::to_string(int(error)));
    return pairs.load();
}

}  // namespace rill::peers
