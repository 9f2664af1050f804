// rill::sample_linear against a float64 interpolation computed here, on
// fields of odd sizes, at random coordinates inside and outside the stream,
// at element centres and on the edges, for scalars and float4.
#include <rill/dsl/sampling.h>

#include <algorithm>
#include <cstring>
#include <cmath>

#include "backend_fixture.h"

namespace rill::test {
namespace {

class Sampling : public BackendTest {};

/// The float64 clamp-to-edge interpolation of field (shape dims, row-major,
/// `width` floats per element) at p, component c.
double reference(const std::vector<float>& field, const std::vector<std::int64_t>& dims, int width, const std::vector<double>& p, int c) {
    const int rank = static_cast<int>(dims.size());
    double sum = 0;
    for (int corner = 0; corner < (1 << rank); ++corner) {
        double weight = 1;
        std::int64_t at = 0;
        for (int d = 0; d < rank; ++d) {
            const double q = std::clamp(p[d], 0.0, static_cast<double>(dims[d] - 1));
            const double base = std::min(std::floor(q), static_cast<double>(dims[d] - 1));
            const double f = q - base;
            const bool up = (corner >> (rank - 1 - d)) & 1;
            weight *= up ? f : 1 - f;
            at = at * dims[d] + std::min<std::int64_t>(static_cast<std::int64_t>(base) + up, dims[d] - 1);
        }
        sum += weight * field[at * width + c];
    }
    return sum;
}

/// Random coordinates over [-3, dims + 3) per dimension, with exact element
/// centres, the last element and half-way points mixed in.
std::vector<float> coordinates(std::size_t n, const std::vector<std::int64_t>& dims) {
    const int rank = static_cast<int>(dims.size());
    std::vector<float> p(n * rank);
    for (std::size_t i = 0; i < n; ++i)
        for (int d = 0; d < rank; ++d) {
            const float hi = static_cast<float>(dims[d]) + 3;
            float v = random_floats(1, -3, hi)[0];
            if (i % 5 == 1) v = std::floor(v);
            if (i % 5 == 2) v = std::floor(v) + 0.5f;
            if (i % 7 == 3) v = static_cast<float>(dims[d] - 1);
            p[i * rank + d] = v;
        }
    return p;
}

Shape shape_of(const std::vector<std::int64_t>& d) {
    if (d.size() == 1) return {d[0]};
    if (d.size() == 2) return {d[0], d[1]};
    return {d[0], d[1], d[2]};
}

template <int Rank, class Point, class T, class K>
void check(Runtime& rt, const K& kernel, const std::vector<std::int64_t>& dims, int width) {
    std::int64_t elements = 1;
    for (auto d : dims) elements *= d;
    const std::vector<float> values = random_floats(elements * width, -100, 100);
    std::vector<T> field(elements);
    std::memcpy(static_cast<void*>(field.data()), values.data(), values.size() * sizeof(float));
    const std::size_t n = 3000;
    const std::vector<float> raw = coordinates(n, dims);
    std::vector<Point> points(n);
    std::memcpy(static_cast<void*>(points.data()), raw.data(), raw.size() * sizeof(float));
    auto f = rt.stream<T>(shape_of(dims), field);
    auto p = rt.stream<Point>({static_cast<std::int64_t>(n)}, points);
    auto out = rt.stream<T>({static_cast<std::int64_t>(n)});
    kernel(f, p, out);
    const std::vector<T> got = out.download();
    std::vector<float> got_raw(n * width);
    std::memcpy(got_raw.data(), got.data(), got_raw.size() * sizeof(float));
    for (std::size_t i = 0; i < n; ++i) {
        std::vector<double> q(raw.begin() + i * Rank, raw.begin() + (i + 1) * Rank);
        for (int c = 0; c < width; ++c) {
            const double want = reference(values, dims, width, q, c);
            ASSERT_TRUE(close(got_raw[i * width + c], want, 1e-4, 1e-5))
                << "rank " << Rank << " point " << i << " (" << q[0] << (Rank > 1 ? ", " + std::to_string(q[1]) : "")
                << (Rank > 2 ? ", " + std::to_string(q[2]) : "") << ") component " << c << ": " << got_raw[i * width + c]
                << ", want " << want;
        }
    }
}

TEST_P(Sampling, LinearInOneDimension) {
    auto k = kernel("sample1(f, p, r)", [](Gather<float> f, In<float> p, Out<float> r) { r = sample_linear(f, p); });
    auto k4 = kernel("sample1_4(f, p, r)", [](Gather<float4> f, In<float> p, Out<float4> r) { r = sample_linear(f, p); });
    for (std::int64_t n : {1, 2, 37}) {
        check<1, float, float>(rt(), k, {n}, 1);
        check<1, float, float4>(rt(), k4, {n}, 4);
    }
}

TEST_P(Sampling, BilinearInTwoDimensions) {
    auto k = kernel("sample2(f, p, r)", [](Gather<float, 2> f, In<float2> p, Out<float> r) { r = sample_linear(f, p); });
    auto k4 = kernel("sample2_4(f, p, r)", [](Gather<float4, 2> f, In<float2> p, Out<float4> r) { r = sample_linear(f, p); });
    for (auto dims : std::vector<std::vector<std::int64_t>>{{1, 1}, {1, 9}, {13, 7}}) {
        check<2, float2, float>(rt(), k, dims, 1);
        check<2, float2, float4>(rt(), k4, dims, 4);
    }
}

TEST_P(Sampling, TrilinearInThreeDimensions) {
    auto k = kernel("sample3(f, p, r)", [](Gather<float, 3> f, In<float3> p, Out<float> r) { r = sample_linear(f, p); });
    auto k2 = kernel("sample3_2(f, p, r)", [](Gather<float2, 3> f, In<float3> p, Out<float2> r) { r = sample_linear(f, p); });
    for (auto dims : std::vector<std::vector<std::int64_t>>{{1, 1, 1}, {2, 1, 5}, {5, 6, 7}}) {
        check<3, float3, float>(rt(), k, dims, 1);
        check<3, float3, float2>(rt(), k2, dims, 2);
    }
}

TEST_P(Sampling, ElementCentresReadTheElementsExactly) {
    auto k = kernel("sample_centres(f, p, r)", [](Gather<float, 2> f, In<float2> p, Out<float> r) { r = sample_linear(f, p); });
    const std::vector<float> values = random_floats(6 * 5, -1e6f, 1e6f);
    std::vector<float2> points;
    for (int y = 0; y < 6; ++y)
        for (int x = 0; x < 5; ++x) points.push_back(float2{static_cast<float>(y), static_cast<float>(x)});
    auto f = rt().stream<float>({6, 5}, values);
    auto p = rt().stream<float2>({30}, points);
    auto out = rt().stream<float>({30});
    k(f, p, out);
    EXPECT_EQ(out.download(), values);
}

TEST_P(Sampling, InAGroupKernel) {
    // Gathers in group kernels take the CPU backend's compiled path too
    // (cpu_native_Sampling), with a strided view as the field.
    auto k = group_kernel<64>("sample_group(f, p, r)", [](Gather<float, 3> f, Array<float3> p, Array<float> r) {
        Int i = global_id();
        If(i < p.size(), [&] { r.store(i, sample_linear(f, p.load(i))); });
    });
    const std::vector<std::int64_t> dims{4, 6, 10};
    const std::vector<float> values = random_floats(4 * 6 * 10, -5, 5);
    auto whole = rt().stream<float>({4, 6, 10}, values);
    auto field = whole.stride({1, 1, 2});  // {4, 6, 5}
    std::vector<float> strided;
    for (int z = 0; z < 4; ++z)
        for (int y = 0; y < 6; ++y)
            for (int x = 0; x < 5; ++x) strided.push_back(values[(z * 6 + y) * 10 + 2 * x]);
    const std::size_t n = 1000;
    const std::vector<float> raw = coordinates(n, {4, 6, 5});
    std::vector<float3> points(n);
    std::memcpy(static_cast<void*>(points.data()), raw.data(), raw.size() * sizeof(float));
    auto p = rt().stream<float3>({std::int64_t(n)}, points);
    auto out = rt().stream<float>({std::int64_t(n)});
    k(Groups{(std::int64_t(n) + 63) / 64}, field, p, out);
    const std::vector<float> got = out.download();
    for (std::size_t i = 0; i < n; ++i) {
        const double want = reference(strided, {4, 6, 5}, 1, {raw[3 * i], raw[3 * i + 1], raw[3 * i + 2]}, 0);
        ASSERT_TRUE(close(got[i], want, 1e-4, 1e-5)) << "point " << i << ": " << got[i] << ", want " << want;
    }
}

RILL_INSTANTIATE_FOR_BACKENDS(Sampling);

}  // namespace
}  // namespace rill::test
