// Errors a user can cause: each must throw rill::Error naming the kernel, the
// argument and the fix (checked word for word, like Halide's test/error/).
#include "../backend_fixture.h"

namespace rill::test {
namespace {

class Errors : public BackendTest {};

#define EXPECT_ERROR(stmt, ...)                                                               \
    do {                                                                                      \
        try {                                                                                 \
            stmt;                                                                             \
            ADD_FAILURE() << "no rill::Error from: " #stmt;                                   \
        } catch (const ::rill::Error& e) {                                                    \
            const std::string msg = e.what();                                                 \
            for (const char* part : {__VA_ARGS__})                                            \
                EXPECT_NE(msg.find(part), std::string::npos) << "missing \"" << part << "\" in: " << msg; \
        }                                                                                     \
    } while (0)

TEST_P(Errors, ShapeMismatchNamesKernelArgumentAndFix) {
    auto saxpy = kernel("saxpy(a, x, y, result)", [](Float a, In<float4> x, In<float4> y, Out<float4> r) { r = a * x + y; });
    auto x = rt().stream<float4>({100, 4});
    auto y = rt().stream<float4>({100});
    auto r = rt().stream<float4>({100});
    EXPECT_ERROR(saxpy(2.0f, x, y, r), "kernel 'saxpy'", "argument 'x'", "100x4", "output has shape 100", "reshape");
    auto x3 = rt().stream<float4>({30});
    EXPECT_ERROR(saxpy(2.0f, x3, y, r), "kernel 'saxpy'", "argument 'x'", "not an integer ratio");
    auto r2 = rt().stream<float4>({50});
    auto two = kernel("two(a, b)", [](Out<float> a, Out<float> b) { a = 1.0f; b = 2.0f; });
    EXPECT_ERROR(two(rt().stream<float>({3}), rt().stream<float>({4})), "kernel 'two'", "argument 'b'", "same shape");
}

TEST_P(Errors, GatherRankAndAliasing) {
    auto g = kernel("lookup(table, i, r)", [](Gather<float, 2> t, In<int2> i, Out<float> r) { r = t[i]; });
    auto t1 = rt().stream<float>({10});
    auto i = rt().stream<int2>({5});
    auto r = rt().stream<float>({5});
    EXPECT_ERROR(g(t1, i, r), "kernel 'lookup'", "argument 'table'", "2 coordinate", "rank 1", "Gather<float, 1>");
    auto g1 = kernel("self(table, r)", [](Gather<float> t, Out<float> r) { r = t[3]; });
    auto s = rt().stream<float>({10});
    EXPECT_ERROR(g1(s, s), "kernel 'self'", "argument 'table'", "also an output", "new stream");
    auto empty = rt().stream<float>({0});
    EXPECT_ERROR(g1(empty, s), "kernel 'self'", "argument 'table'", "is empty");
    auto twice = kernel("twice(a, b)", [](Out<float> a, Out<float> b) { a = 1.0f; b = 2.0f; });
    EXPECT_ERROR(twice(s, s), "kernel 'twice'", "argument 'b'", "must not overlap");
    EXPECT_ERROR(twice(s.domain({0}, {6}), s.domain({4}, {10})), "kernel 'twice'", "argument 'b'", "must not overlap");
    EXPECT_ERROR(s.domain({2}, {11}), "Stream::domain", "[2, 11)", "inside the stream's shape 10");
}

TEST_P(Errors, StreamFromAnotherRuntime) {
    Runtime other(GetParam());
    auto k = kernel("add(a, b, r)", [](In<float> a, In<float> b, Out<float> r) { r = a + b; });
    auto a = rt().stream<float>({4});
    auto b = other.stream<float>({4});
    auto r = rt().stream<float>({4});
    EXPECT_ERROR(k(a, b, r), "kernel 'add'", "argument 'b'", "another rill::Runtime", "same Runtime");
    Stream<float> unset;
    EXPECT_ERROR(k(a, unset, r), "kernel 'add'", "argument 'b'", "Runtime::stream");
}

TEST_P(Errors, IndexOfRankAndHostSizes) {
    auto k = kernel("pos(r)", [](Out<int2> r) { r = indexof<2>(r); });
    auto r = rt().stream<int2>({10});
    EXPECT_ERROR(k(r), "kernel 'pos'", "argument 'r'", "indexof<2>", "indexof<1>");
    auto s = rt().stream<float>({10});
    EXPECT_ERROR(s.upload(std::vector<float>(9)), "upload", "9 elements", "shape 10");
    EXPECT_ERROR(s.reshape({3, 4}), "reshape", "element count");
}

TEST_P(Errors, Reductions) {
    auto sum = reduction("sum", [](In<float> a, Reduce<float> r) { r += a; });
    auto in = rt().stream<float>({10, 9});
    auto out = rt().stream<float>({4, 3});
    EXPECT_ERROR(sum(in, out), "reduction 'sum'", "10x9", "4x3", "dimension 0", "divide");
    auto empty = rt().stream<float>({0});
    EXPECT_ERROR(sum.value(empty), "reduction 'sum'", "empty", "identity");
    auto out1 = rt().stream<float>({5});
    EXPECT_ERROR(sum(in, out1), "reduction 'sum'", "rank");
}

TEST_P(Errors, OutOfMemoryIsAnErrorAndTheRuntimeStaysUsable) {
    // 2^42 floats = 16 TiB: more than any machine here has, on any backend.
    // (On GPUs the storage-buffer size limit usually answers first.)
    EXPECT_ERROR(rt().stream<float>({std::int64_t{1} << 42}), "stream", "17592186044416 bytes");
    auto k = kernel("after(x, r)", [](In<float> x, Out<float> r) { r = x + 1.0f; });
    auto x = rt().stream<float>({5}, std::vector<float>(5, 1.0f));
    auto r = rt().stream<float>({5});
    k(x, r);
    EXPECT_EQ(r.download(), std::vector<float>(5, 2.0f));
}

// Element counts past 64 bits used to wrap: {2^32, 2^32} made a stream of size
// 0 on which kernels ran, {3, 2^62} a negative size.
TEST_P(Errors, ShapesWhoseElementCountOverflows) {
    constexpr std::int64_t k32 = std::int64_t{1} << 32, k62 = std::int64_t{1} << 62;
    EXPECT_ERROR(rt().stream<float>({k32, k32}), "rill::Shape", "4294967296x4294967296", "below 2^63");
    EXPECT_ERROR(rt().stream<float>({3, k62}), "rill::Shape", "3x4611686018427387904", "below 2^63");
    EXPECT_ERROR(rt().stream<float>({2, 2, k62}), "rill::Shape", "2x2x4611686018427387904");
    EXPECT_ERROR(rt().scratch<float4>({k62, 2}), "rill::Shape", "4611686018427387904x2");
    EXPECT_ERROR(rt().iterator<float>({k32, k32}, 0.0f, 1.0f), "rill::Shape", "4294967296x4294967296");
    // A count that fits but whose bytes do not.
    EXPECT_ERROR(rt().stream<float4>({k62}), "stream of more than 2^64 bytes", "shape 4611686018427387904");
    auto s = rt().stream<float>({10});
    EXPECT_ERROR(s.reshape({k32, k32}), "rill::Shape", "4294967296x4294967296");
    EXPECT_ERROR(s.repeat(k62), "Stream::repeat", "4611686018427387904 repetitions of shape 10", "repeat fewer times");
    EXPECT_ERROR(s.reshape({2, 5}).repeat(k62), "Stream::repeat", "shape 2x5");
    Shape written;  // dims written directly bypass the constructor's check; size() still refuses
    written.rank = 2;
    written.dims = {k32, k32, 0, 0};
    EXPECT_ERROR((void)written.size(), "rill::Shape::size", "4294967296x4294967296");
    // The largest counts that fit are accepted by Shape (the device's limits answer next).
    constexpr std::int64_t max = std::numeric_limits<std::int64_t>::max();
    EXPECT_EQ((Shape{3, max / 3}.size()), max / 3 * 3);
    EXPECT_ERROR((Shape{3, max / 3 + 1}), "rill::Shape");
    EXPECT_EQ((Shape{k62, k62, 0}.size()), 0);
}

TEST(ErrorsAnyBackend, UnknownBackendListsTheAvailableOnes) {
    EXPECT_ERROR(Runtime("no-such-backend"), "unknown backend 'no-such-backend'", "cpu");
}

TEST(ErrorsAnyBackend, TracingMistakes) {
    EXPECT_ERROR(kernel("brk(r)", [](Out<float> r) { Break(); r = 1.0f; }), "kernel 'brk'", "Break()", "loop");
    EXPECT_ERROR(kernel("names(a, b)", [](Out<float> r) { r = 1.0f; }), "names 2 parameters", "lambda has 1");
    EXPECT_ERROR(Float(1.0f), "only while a kernel body is traced");
    EXPECT_ERROR(kernel("leak(x, r)", [](In<float> x, Out<float> r) {
        std::optional<Expr<float>> inner;
        Float v = x;
        If(x > 0.0f, [&] { inner.emplace(v * 2.0f); });
        r = *inner;
    }), "kernel 'leak'", "used after that block ended", "rill::Var");
    std::optional<Expr<float>> stolen;
    auto k1 = kernel("a(x, r)", [&](In<float> x, Out<float> r) { stolen.emplace(x * 2.0f); r = x; });
    EXPECT_ERROR(kernel("b(x, r)", [&](In<float> x, Out<float> r) { r = x + *stolen; }), "kernel 'b'",
                 "another kernel's trace");
    EXPECT_ERROR(kernel("zero(r)", [](Out<float> r) { For(0, 10, 0, [&](Int) { r = 1.0f; }); }), "step is 0");
}

RILL_INSTANTIATE_FOR_BACKENDS(Errors);

}  // namespace
}  // namespace rill::test
