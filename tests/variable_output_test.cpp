// Variable outputs (Brook section 6) against the host's expansion of the same
// rule: 0 to several elements per input, in input order, scalars and structs,
// with extra streams read by the body; the device-count form with an output
// too short (the count still tells the truth) and the exact-length form.
#include <rill/algorithms/variable_output.h>

#include "backend_fixture.h"

struct Segment {
    rill::float2 a;
    rill::float2 b;
    std::int32_t depth;
};
RILL_STRUCT(Segment, a, b, depth);

namespace rill::test {
namespace {

class VariableOutputs : public BackendTest {};

/// Element x emits x % 4 elements, x * 10 + c for c = 0, 1, ...
std::vector<std::uint32_t> host_copies(const std::vector<std::uint32_t>& x) {
    std::vector<std::uint32_t> out;
    for (std::uint32_t v : x)
        for (std::uint32_t c = 0; c < v % 4; ++c) out.push_back(v * 10 + c);
    return out;
}

TEST_P(VariableOutputs, ZeroToThreeCopiesInInputOrder) {
    VariableOutput<std::uint32_t, std::uint32_t> copies(
        "copies", [](const Expr<std::uint32_t>& v, const Int&, Emitter<std::uint32_t>& emit) {
            // Data-dependent emits, as a GPU sees them: a loop and an If.
            For(0, cast<std::int32_t>(v % 4u), [&](Int c) { emit(v * 10u + cast<std::uint32_t>(c)); });
        });
    std::vector<std::int64_t> sizes;
    for (std::int64_t n = 0; n <= 300; ++n) sizes.push_back(n);
    for (std::int64_t n : {1023, 1025, 4095, 4097, 65537, 1000003})
        if (!past_largest(rt(), n)) sizes.push_back(n);
    for (std::int64_t n : sizes) {
        std::vector<std::int32_t> raw = random_ints(static_cast<std::size_t>(n), 0, 100000);
        std::vector<std::uint32_t> x(raw.begin(), raw.end());
        const std::vector<std::uint32_t> want = host_copies(x);
        auto in = rt().stream<std::uint32_t>({n}, x);
        Stream<std::uint32_t> got = copies(in);
        ASSERT_EQ(got.size(), static_cast<std::int64_t>(want.size())) << "n = " << n;
        ASSERT_EQ(got.download(), want) << "n = " << n;
    }
}

TEST_P(VariableOutputs, DeviceCountAndTooShortOutput) {
    VariableOutput<std::uint32_t, std::uint32_t> copies(
        "copies_device", [](const Expr<std::uint32_t>& v, const Int&, Emitter<std::uint32_t>& emit) {
            For(0, cast<std::int32_t>(v % 4u), [&](Int c) { emit(v * 10u + cast<std::uint32_t>(c)); });
        });
    for (std::int64_t n : {0, 1, 257, 70001}) {
        std::vector<std::int32_t> raw = random_ints(static_cast<std::size_t>(n), 0, 100000);
        std::vector<std::uint32_t> x(raw.begin(), raw.end());
        const std::vector<std::uint32_t> want = host_copies(x);
        auto in = rt().stream<std::uint32_t>({n}, x);
        auto count = rt().stream<std::uint32_t>({1}, std::vector<std::uint32_t>{12345});
        // Room for all: the same elements, the rest untouched.
        const auto room = static_cast<std::int64_t>(want.size()) + 5;
        auto out = rt().stream<std::uint32_t>({room}, std::vector<std::uint32_t>(static_cast<std::size_t>(room), 7u));
        copies(in, out, count);
        EXPECT_EQ(count.download()[0], want.size());
        std::vector<std::uint32_t> expect = want;
        expect.resize(static_cast<std::size_t>(room), 7u);
        EXPECT_EQ(out.download(), expect);
        // Room for half: the first half lands, the count still says all.
        const auto half = static_cast<std::int64_t>(want.size() / 2);
        auto small = rt().stream<std::uint32_t>({half});
        copies(in, small, count);
        EXPECT_EQ(count.download()[0], want.size());
        EXPECT_EQ(small.download(), std::vector<std::uint32_t>(want.begin(), want.begin() + half));
    }
    auto in = rt().stream<std::uint32_t>({4});
    auto out = rt().stream<std::uint32_t>({4});
    auto two = rt().stream<std::uint32_t>({2});
    const std::string message = error_message([&] { copies(in, out, two); });
    EXPECT_NE(message.find("VariableOutput 'copies_device': the count stream has 2 elements"), std::string::npos)
        << message;
}

// Adaptive refinement of structs, the shape of GPU Gems 2 ch. 36.3: a segment
// longer than the limit in an extra stream (an extra stream read by the body)
// splits in two halves one level deeper, repeated until none is too long.
TEST_P(VariableOutputs, AdaptiveRefinementOfStructsWithExtraStreams) {
    VariableOutput<Segment, Segment, float> refine(
        "refine", [](const Var<Segment>& s, const Int& i, Emitter<Segment>& emit, const Array<float>& limit) {
            Float2 d = s.b - s.a;
            // Manhattan length: one rounding, the same on every device (no fused multiply-add).
            If(abs(d.x()) + abs(d.y()) > limit.load(i % limit.size()), [&] {
                Float2 mid = (s.a + s.b) * 0.5f;
                Var<Segment> half = s;
                half.b = mid;
                half.depth = s.depth + 1;
                emit(half);
                half.a = mid;
                half.b = s.b;
                emit(half);
            }).Else([&] { emit(s); });
        });
    auto host_refine = [](const std::vector<Segment>& in, const std::vector<float>& limit) {
        std::vector<Segment> out;
        for (std::size_t i = 0; i < in.size(); ++i) {
            const Segment& s = in[i];
            const float dx = s.b[0] - s.a[0], dy = s.b[1] - s.a[1];
            if (std::fabs(dx) + std::fabs(dy) > limit[i % limit.size()]) {
                const float2 mid{(s.a[0] + s.b[0]) * 0.5f, (s.a[1] + s.b[1]) * 0.5f};
                out.push_back(Segment{s.a, mid, s.depth + 1});
                out.push_back(Segment{mid, s.b, s.depth + 1});
            } else {
                out.push_back(s);
            }
        }
        return out;
    };
    std::vector<float> c = random_floats(4 * 1000, -1, 1);
    std::vector<Segment> segs(1000);
    for (std::size_t i = 0; i < segs.size(); ++i)
        segs[i] = Segment{float2{c[4 * i], c[4 * i + 1]}, float2{c[4 * i + 2], c[4 * i + 3]}, 0};
    const std::vector<float> limit = {0.1f, 0.2f, 0.05f};  // halving a segment is exact in float
    auto limits = rt().stream<float>({3}, limit);
    Stream<Segment> s = rt().stream<Segment>({1000}, segs);
    std::vector<Segment> want = segs;
    for (int level = 0; level < 12; ++level) {
        s = refine(s, limits);
        want = host_refine(want, limit);
        ASSERT_EQ(s.size(), static_cast<std::int64_t>(want.size())) << "level " << level;
    }
    const std::vector<Segment> got = s.download();
    for (std::size_t i = 0; i < want.size(); ++i) {
        ASSERT_EQ(got[i].depth, want[i].depth) << i;
        ASSERT_EQ(got[i].a[0], want[i].a[0]) << i;
        ASSERT_EQ(got[i].b[1], want[i].b[1]) << i;
    }
}

RILL_INSTANTIATE_FOR_BACKENDS(VariableOutputs);

}  // namespace
}  // namespace rill::test
