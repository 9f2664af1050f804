// Streams: shapes of 1 to 4 dimensions, empty streams, edge sizes, implicit
// resize (repeat and stride per dimension), gathers with edge clamping,
// iterator streams, in-place kernels, structs, constants.
#include <cstring>
#include <numeric>
#include <optional>

#include "backend_fixture.h"

struct Ray {
    rill::float3 o, d;
    float tmax;
};
RILL_STRUCT(Ray, o, d, tmax);

struct Hit {
    rill::float4 data;
    Ray ray;
    std::int32_t id;
    rill::bool32 valid;
};
RILL_STRUCT(Hit, data, ray, id, valid);

namespace rill::test {
namespace {

static_assert(sizeof(Ray) == 28, "a stream of Ray is 28 bytes an element");

class Streams : public BackendTest {};

TEST_P(Streams, CopyAtEdgeSizesIncludingEmpty) {
    auto copy = kernel("copy(x, r)", [](In<float> x, Out<float> r) { r = x + 1.0f; });
    for (std::int64_t n : edge_sizes()) {
        SCOPED_TRACE(n);
        std::vector<float> x = random_floats(static_cast<std::size_t>(n), -1, 1);
        auto sx = rt().stream<float>({n}, x);
        auto sr = rt().stream<float>({n});
        copy(sx, sr);
        auto got = sr.download();
        ASSERT_EQ(got.size(), x.size());
        for (std::size_t i = 0; i < x.size(); ++i) ASSERT_EQ(got[i], x[i] + 1.0f) << i;
    }
    auto e = rt().stream<float>({0, 5});
    EXPECT_TRUE(e.empty());
    EXPECT_TRUE(e.download().empty());
    // A zero last dimension gives the others stride 0, which is not a repeat view.
    for (Shape shape : {Shape{5, 0}, Shape{3, 0, 2}, Shape{2, 4, 0}}) {
        SCOPED_TRACE(shape.str());
        auto z = rt().stream<float>(shape, std::vector<float>{});
        z.upload(std::vector<float>{});
        EXPECT_TRUE(z.download().empty());
    }
}

TEST_P(Streams, LargeCopiesWithAndWithoutFinish) {
    auto copy = kernel("big_copy(x, r)", [](In<float> x, Out<float> r) { r = x; });
    // Exact powers of two matter: there every element falls in the unrolled
    // part of the GPU backends' grid-stride loop, none in its remainder.
    for (std::int64_t n : {std::int64_t{1} << 22, (std::int64_t{1} << 22) + 5, std::int64_t{1} << 24})
    for (bool finish_first : {false, true}) {
        SCOPED_TRACE(std::to_string(n) + (finish_first ? " elements, finish() before download" : " elements, download right away"));
        std::vector<float> x(static_cast<std::size_t>(n));
        for (std::int64_t i = 0; i < n; ++i) x[i] = static_cast<float>(i % 1021 + 1);
        auto sx = rt().stream<float>({n}, x);
        auto sr = rt().stream<float>({n});
        copy(sx, sr);
        if (finish_first) rt().finish();
        auto got = sr.download();
        std::int64_t wrong = 0, first = -1;
        for (std::int64_t i = 0; i < n; ++i)
            if (got[i] != x[i] && wrong++ == 0) first = i;
        EXPECT_EQ(wrong, 0) << "first wrong element " << first << ": " << (first >= 0 ? got[first] : 0.0f);
    }
}

// Vulkan stages uploads in 16-byte pieces; a piece just over the 16 MiB staging
// size used to leave the next upload of the same batch writing past the
// mapped staging memory (found by the compaction tests at 2^22 + 1 ints).
TEST_P(Streams, UploadsJustOverTheStagingSize) {
    for (std::int64_t n : {(std::int64_t{1} << 22) + 1, (std::int64_t{1} << 22) + 2, (std::int64_t{1} << 22) + 4097}) {
        std::vector<std::int32_t> a = random_ints(static_cast<std::size_t>(n), -1000, 1000);
        std::vector<std::int32_t> b(static_cast<std::size_t>(n), -7);
        auto sa = rt().stream<std::int32_t>({n}, a);
        auto sb = rt().stream<std::int32_t>({n}, b);
        auto sc = rt().stream<std::int32_t>({n}, a);
        EXPECT_EQ(sa.download(), a) << n;
        EXPECT_EQ(sb.download(), b) << n;
        EXPECT_EQ(sc.download(), a) << n;
    }
}

TEST_P(Streams, BandwidthBenchmarkSequence) {
    // What bench/gpu/bandwidth.cpp does before it times anything.
    auto copy = kernel("copy(x, r)", [](In<float> x, Out<float> r) { r = x; });
    auto saxpy = kernel("saxpy(a, x, y, r)", [](Float a, In<float> x, In<float> y, Out<float> r) { r = a * x + y; });
    const std::int64_t n = std::int64_t{1} << 22;
    std::vector<float> hx(n), hy(n);
    for (std::int64_t i = 0; i < n; ++i) {
        hx[i] = static_cast<float>(i % 1024);
        hy[i] = static_cast<float>(i % 7);
    }
    auto x = rt().stream<float>({n}, hx);
    auto y = rt().stream<float>({n}, hy);
    auto r = rt().stream<float>({n});
    copy(x, r);
    rt().finish();
    std::vector<float> out = r.download();
    std::int64_t wrong = 0, first = -1;
    for (std::int64_t i = 0; i < n; ++i)
        if (out[i] != hx[i] && wrong++ == 0) first = i;
    EXPECT_EQ(wrong, 0) << "copy: first wrong element " << first;
    saxpy(2.0f, x, y, r);
    out = r.download();
    for (std::int64_t i = 0; i < n; i += 4097) ASSERT_EQ(out[i], 2.0f * hx[i] + hy[i]) << i;
}

TEST_P(Streams, DomainViewsAsInputOutputAndGather) {
    auto twice = kernel("twice(x, r)", [](In<float> x, Out<float> r) { r = x * 2.0f; });
    auto look = kernel("look(t, i, r)", [](Gather<float> t, In<std::int32_t> i, Out<float> r) { r = t[i]; });
    std::vector<float> base(20);
    for (int i = 0; i < 20; ++i) base[i] = float(i);
    auto s = rt().stream<float>({20}, base);
    // Output into a domain: elements outside [12, 17) stay as they were.
    twice(s.domain({2}, {7}), s.domain({12}, {17}));
    std::vector<float> want = base;
    for (int i = 0; i < 5; ++i) want[12 + i] = base[2 + i] * 2.0f;
    EXPECT_EQ(s.download(), want);
    // Overlapping input and output views of one stream would race: refused.
    EXPECT_THROW(twice(s.domain({2}, {9}), s.domain({5}, {12})), Error);
    // In place on a domain.
    twice(s.domain({0}, {3}), s.domain({0}, {3}));
    for (int i = 0; i < 3; ++i) want[i] *= 2.0f;
    EXPECT_EQ(s.download(), want);
    // A gather over a domain indexes the domain and clamps to its edges.
    auto idx = rt().stream<std::int32_t>({4}, std::vector<std::int32_t>{-3, 0, 2, 50});
    auto r = rt().stream<float>({4});
    look(s.domain({10}, {15}), idx, r);
    EXPECT_EQ(r.download(), (std::vector<float>{want[10], want[10], want[12], want[14]}));
    // Downloads and uploads of views.
    EXPECT_EQ(s.domain({4}, {8}).download(), (std::vector<float>{want[4], want[5], want[6], want[7]}));
    s.domain({16}, {18}).upload(std::vector<float>{-1.0f, -2.0f});
    want[16] = -1.0f;
    want[17] = -2.0f;
    EXPECT_EQ(s.download(), want);
}

TEST_P(Streams, ReadsOfPartsOfALargeStreamSeeTheKernelBeforeThem) {
    // Reads of a small part of a large buffer take another path than whole
    // reads on some backends (OpenGL: a staging copy, opengl_backend.cpp);
    // each read here follows a kernel that has just written what it reads.
    auto add = kernel("add_k(x, k, r)", [](In<float> x, Float k, Out<float> r) { r = x + k; });
    const std::int64_t n = (std::int64_t{1} << 20) + 3;
    const std::vector<float> hx = random_floats(static_cast<std::size_t>(n), -100, 100);
    auto x = rt().stream<float>({n}, hx);
    auto r = rt().stream<float>({n});
    const std::vector<std::pair<std::int64_t, std::int64_t>> ranges = {
        {0, 1}, {n - 1, n}, {n / 2, n / 2 + 16}, {3, n / 2 - 1}, {n / 2 - 7, n}, {0, n}};
    float k = 1.0f;
    for (const auto& [lo, hi] : ranges) {
        add(x, k, r);
        const std::vector<float> got = r.domain({lo}, {hi}).download();
        ASSERT_EQ(static_cast<std::int64_t>(got.size()), hi - lo);
        for (std::int64_t i = lo; i < hi; ++i)
            ASSERT_EQ(got[static_cast<std::size_t>(i - lo)], hx[static_cast<std::size_t>(i)] + k) << "range " << lo << ".." << hi << ", element " << i;
        k += 1.0f;
    }
}

TEST_P(Streams, TensOfThousandsOfDispatchesEachSeeTheirOwnParameters) {
    // More dispatches than the OpenGL backend's ring of dispatch parameters
    // holds (it takes a new ring then; opengl_backend.cpp), each over its own
    // part of the stream with its own constant, one after another in place.
    auto add = kernel("add_own_k(x, k, r)", [](In<std::int32_t> x, Int k, Out<std::int32_t> r) { r = x + k; });
    constexpr int kCalls = 20000, kSize = 7;
    auto acc = rt().stream<std::int32_t>({kSize});
    std::vector<std::int32_t> want(kSize, 0);
    for (int i = 0; i < kCalls; ++i) {
        const int n = i % kSize + 1;
        auto part = acc.domain({0}, {n});
        add(part, i, part);
        for (int j = 0; j < n; ++j) want[static_cast<std::size_t>(j)] += i;
    }
    EXPECT_EQ(acc.download(), want);
}

TEST_P(Streams, RepeatViews) {
    const std::vector<float> x = random_floats(5, -10, 10);
    auto s = rt().stream<float>({5}, x);
    auto r = s.repeat(3);  // {3, 5}: rows are copies of s, no storage of their own
    ASSERT_EQ(r.shape(), (Shape{3, 5}));
    std::vector<float> tiled;
    for (int k = 0; k < 3; ++k) tiled.insert(tiled.end(), x.begin(), x.end());
    EXPECT_EQ(r.download(), tiled);

    // As a kernel input (with a row-dependent result) and as a gather argument.
    auto k = kernel("rows(in, out)", [](In<float> in, Out<float> out) { out = in * 2.0f + cast<float>(indexof<2>(out).x()); });
    auto out = rt().stream<float>({3, 5});
    k(r, out);
    std::vector<float> got = out.download();
    for (int i = 0; i < 15; ++i) EXPECT_EQ(got[i], x[i % 5] * 2.0f + float(i / 5)) << i;
    auto g = kernel("gather_rows(g, out)", [](Gather<float, 2> g, Out<float> out) {
        Int2 p = indexof<2>(out);
        out = g[Int2(2 - p.x(), 4 - p.y())];
    });
    g(r, out);
    got = out.download();
    for (int i = 0; i < 15; ++i) EXPECT_EQ(got[i], x[4 - i % 5]) << i;

    // Repeats of 2D streams and of empty ones.
    auto m = rt().stream<float>({2, 3}, std::vector<float>{1, 2, 3, 4, 5, 6});
    EXPECT_EQ(m.repeat(2).shape(), (Shape{2, 2, 3}));
    EXPECT_EQ(m.repeat(2).download(), (std::vector<float>{1, 2, 3, 4, 5, 6, 1, 2, 3, 4, 5, 6}));
    EXPECT_EQ(rt().stream<float>({0}).repeat(4).download(), std::vector<float>{});

    // Read-only, rank at most 4, at least once.
    auto copy = kernel("copy(in, out)", [](In<float> in, Out<float> o) { o = in; });
    auto src = rt().stream<float>({3, 5});
    EXPECT_THROW(copy(src, r), Error);
    EXPECT_THROW(r.upload(tiled), Error);
    EXPECT_THROW(s.repeat(0), Error);
    EXPECT_THROW(rt().stream<float>({1, 1, 1, 1}).repeat(2), Error);
}

TEST_P(Streams, TwoDimensionalDomainsAndStrides) {
    auto inc = kernel("inc(x, r)", [](In<std::int32_t> x, Out<std::int32_t> r) { r = x + 1000; });
    const int h = 7, w = 9;
    std::vector<std::int32_t> base(h * w);
    for (int i = 0; i < h * w; ++i) base[i] = i;
    auto s = rt().stream<std::int32_t>({h, w}, base);
    // A 2D domain: rows [1, 4), columns [2, 7); written in place.
    auto d = s.domain({1, 2}, {4, 7});
    EXPECT_FALSE(d.contiguous());
    inc(d, d);
    std::vector<std::int32_t> want = base;
    for (int i = 1; i < 4; ++i)
        for (int j = 2; j < 7; ++j) want[i * w + j] += 1000;
    EXPECT_EQ(s.download(), want);
    // Every second row and every third column, read into a dense stream.
    auto st = s.stride({2, 3});
    ASSERT_EQ(st.shape(), (Shape{4, 3}));
    auto dense = rt().stream<std::int32_t>({4, 3});
    inc(st, dense);
    auto got = dense.download();
    for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 3; ++j) ASSERT_EQ(got[i * 3 + j], want[(2 * i) * w + 3 * j] + 1000) << i << "," << j;
    // Strided views download, upload and take kernel output.
    auto sv = st.download();
    for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 3; ++j) ASSERT_EQ(sv[i * 3 + j], want[(2 * i) * w + 3 * j]);
    inc(dense, st);
    auto all = s.download();
    for (int i = 0; i < h; ++i)
        for (int j = 0; j < w; ++j) {
            const bool on = i % 2 == 0 && j % 3 == 0;
            ASSERT_EQ(all[i * w + j], on ? want[i * w + j] + 2000 : want[i * w + j]) << i << "," << j;
        }
}

TEST_P(Streams, Concatenate) {
    std::vector<std::int32_t> a(2 * 3), b(4 * 3);
    for (int i = 0; i < 6; ++i) a[i] = i;
    for (int i = 0; i < 12; ++i) b[i] = 100 + i;
    auto sa = rt().stream<std::int32_t>({2, 3}, a), sb = rt().stream<std::int32_t>({4, 3}, b);
    auto rows = concatenate(sa, sb, 0);
    ASSERT_EQ(rows.shape(), (Shape{6, 3}));
    std::vector<std::int32_t> want(a);
    want.insert(want.end(), b.begin(), b.end());
    EXPECT_EQ(rows.download(), want);
    auto sc = rt().stream<std::int32_t>({2, 5}, std::vector<std::int32_t>(10, 7));
    auto cols = concatenate(sa, sc, 1);
    ASSERT_EQ(cols.shape(), (Shape{2, 8}));
    auto got = cols.download();
    for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 8; ++j) ASSERT_EQ(got[i * 8 + j], j < 3 ? a[i * 3 + j] : 7) << i << "," << j;
    auto empty = rt().stream<std::int32_t>({0, 3});
    EXPECT_EQ(concatenate(empty, sa, 0).download(), a);
    EXPECT_THROW(concatenate(sa, sc, 0), Error);
}

TEST_P(Streams, NewStreamsAreZero) {
    auto s = rt().stream<int4>({3, 7});
    for (const int4& v : s.download()) ASSERT_EQ(v, (int4{0, 0, 0, 0}));
}

// A backend may hand a new stream memory that an earlier, dropped stream used
// (every backend pools it): the new stream still starts zero, at sizes
// equal to, just under and just over the old one, with and without a finish,
// where the old one was a stream or scratch (which is not zeroed).
TEST_P(Streams, NewStreamsAreZeroWhereDroppedStreamsWere) {
    for (const std::int64_t n : {1, 255, 1000, 4097, 100003}) {
        for (const bool finish : {false, true}) {
            for (const std::int64_t m : {n, std::max<std::int64_t>(n - 3, 1), n + 5}) {
                for (const bool scratch : {false, true}) {
                    const std::vector<std::uint32_t> words(std::size_t(n), 0xdeadbeefu);
                    auto old = scratch ? rt().scratch<std::uint32_t>({n}) : rt().stream<std::uint32_t>({n});
                    old.upload(words);
                    ASSERT_EQ(old.download(), words);
                }
                if (finish) rt().finish();
                const std::vector<std::uint32_t> fresh = rt().stream<std::uint32_t>({m}).download();
                ASSERT_EQ(fresh, std::vector<std::uint32_t>(std::size_t(m), 0u)) << "n " << n << ", m " << m;
            }
        }
    }
}

// A stream dropped while its kernel may still run gives its memory to a later
// stream (the GPU backends pool it): the later stream's fill, upload and
// kernel never reach the earlier kernel's reads, and of two uploads in a row
// the second stays.
TEST_P(Streams, LaterStreamsInADroppedStreamsMemoryKeepTheirOrder) {
    auto scale = kernel("scale(x, r)", [](In<std::uint32_t> x, Out<std::uint32_t> r) { r = x * 3u + 1u; });
    for (const std::int64_t n : {1, 4097, 300001}) {
        SCOPED_TRACE(n);
        std::vector<std::vector<std::uint32_t>> inputs;
        std::vector<Stream<std::uint32_t>> results;
        for (int round = 0; round < 6; ++round) {
            const std::vector<std::int32_t> raw = random_ints(static_cast<std::size_t>(n), 0, 1 << 30);
            inputs.emplace_back(raw.begin(), raw.end());
            auto in = rt().stream<std::uint32_t>({n}, inputs.back());  // where the last round's input was
            results.push_back(rt().stream<std::uint32_t>({n}));
            scale(in, results.back());
        }
        for (std::size_t round = 0; round < inputs.size(); ++round) {
            const std::vector<std::uint32_t> got = results[round].download();
            for (std::size_t i = 0; i < got.size(); ++i)
                ASSERT_EQ(got[i], inputs[round][i] * 3u + 1u) << "round " << round << ", element " << i;
        }
        for (std::uint32_t round = 0; round < 4; ++round) {
            auto count = rt().stream<std::uint32_t>({n}, std::vector<std::uint32_t>(std::size_t(n), 12345u));
            count.upload(std::vector<std::uint32_t>(std::size_t(n), round));
            ASSERT_EQ(count.download(), std::vector<std::uint32_t>(std::size_t(n), round));
        }
    }
}

// Runtime::zeroed_words: one buffer of the runtime, zero at the start, which
// every caller sees as the last one left it (callers set their words back to
// zero); asked for more words than it has, a new buffer of zeros.
TEST_P(Streams, ZeroedWordsAreOneSharedBufferOfZeros) {
    EXPECT_EQ(rt().zeroed_words_held(), 0);
    auto w = rt().zeroed_words(3);
    EXPECT_GE(rt().zeroed_words_held(), 3);
    EXPECT_EQ(w.download(), std::vector<std::uint32_t>(3, 0u));
    w.upload(std::vector<std::uint32_t>{7, 8, 9});
    EXPECT_EQ(rt().zeroed_words(2).download(), (std::vector<std::uint32_t>{7, 8}));
    w.upload(std::vector<std::uint32_t>(3, 0u));
    const std::int64_t more = 100003;
    EXPECT_EQ(rt().zeroed_words(more).download(), std::vector<std::uint32_t>(std::size_t(more), 0u));
    EXPECT_GE(rt().zeroed_words_held(), more);
    EXPECT_EQ(w.download(), std::vector<std::uint32_t>(3, 0u));  // the old buffer, kept by w
    EXPECT_EQ(error_message([&] { (void)rt().zeroed_words(0); }), "Runtime::zeroed_words: count = 0; ask for 1 word or more");
}

// Scratch streams are undefined until written; written whole, by an upload or
// a kernel, they hold what was written, at edge sizes and in every rank.
TEST_P(Streams, ScratchHoldsWhatIsWritten) {
    auto twice = kernel("twice(x, r)", [](In<std::uint32_t> x, Out<std::uint32_t> r) { r = x * 2u; });
    for (const std::int64_t n : edge_sizes()) {
        SCOPED_TRACE(n);
        std::vector<std::uint32_t> x(static_cast<std::size_t>(n));
        for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<std::uint32_t>(i * 2654435761u);
        auto sx = rt().scratch<std::uint32_t>({n});
        sx.upload(x);
        auto sr = rt().scratch<std::uint32_t>({n});
        twice(sx, sr);
        const std::vector<std::uint32_t> got = sr.download();
        ASSERT_EQ(got.size(), x.size());
        for (std::size_t i = 0; i < x.size(); ++i) ASSERT_EQ(got[i], x[i] * 2u) << i;
    }
    auto s4 = rt().scratch<int4>({2, 3, 5, 7});
    EXPECT_EQ(s4.shape().size(), 210);
    std::vector<int4> v(210);
    for (int i = 0; i < 210; ++i) v[std::size_t(i)] = {i, -i, 2 * i, 7};
    s4.upload(v);
    EXPECT_EQ(s4.download(), v);
    try {
        (void)rt().scratch<float>(Shape{});
        FAIL() << "a scratch stream of no dimensions was made";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("Runtime::scratch<float>: give a shape"), std::string::npos) << e.what();
    }
}

// The profile entry of `kernel` since the last reset, if it ran.
std::optional<KernelTime> profile_entry(Runtime& rt, const std::string& kernel) {
    for (const KernelTime& t : rt.kernel_times())
        if (t.kernel == kernel) return t;
    return std::nullopt;
}

// A GPU's zero-fill of a new stream and its copies between streams are device
// work an algorithm causes, so its profile counts them (the benchmarks' device
// times add up every entry); scratch streams are not filled. The CPU backend's
// streams come zeroed from calloc, with no fill.
TEST_P(Streams, ProfilesCountFillsAndCopies) {
    const std::uint64_t fills = rt().backend_name() == "cpu" ? 0 : 1;
    rt().finish();
    rt().set_profiling(true);
    rt().reset_kernel_times();
    auto count_of = [&](const std::string& name) {
        const std::optional<KernelTime> t = profile_entry(rt(), name);
        return t ? t->calls : std::uint64_t{0};
    };
    {
        auto a = rt().stream<float>({1000});
        auto b = rt().scratch<float>({1000});
        auto c = rt().scratch<float>({1000});
        b.upload(random_floats(1000, -1, 1));
        rt().finish();
        EXPECT_EQ(count_of("fill"), fills);
        rt().backend().copy(*b.buffer(), 0, *c.buffer(), 0, 4000);
        EXPECT_EQ(c.download(), b.download());
        EXPECT_EQ(count_of("copy"), 1u);
    }
    rt().set_profiling(false);
}

// Each profile entry tells when its kernel's first call began and its last call
// ended, on one clock for all entries, so that the span of an algorithm's
// kernels, gaps included, can be told (the benchmarks compare that with peers
// timed by events). Here `twice` runs, then `after` (reading its result), then
// `twice` again.
TEST_P(Streams, ProfilesTellWhenKernelsRan) {
    auto twice = kernel("span_twice(a, b)", [](In<float> a, Out<float> b) { b = a * 2.0f + 1.0f; });
    auto after = kernel("span_after(b, c)", [](In<float> b, Out<float> c) { c = b - 1.0f; });
    auto a = rt().stream<float>({1 << 18}, random_floats(1 << 18, -1, 1));
    auto b = rt().stream<float>({1 << 18});
    auto c = rt().stream<float>({1 << 18});
    rt().finish();
    rt().set_profiling(true);
    rt().reset_kernel_times();
    twice(a, b);
    after(b, c);
    twice(c, b);
    rt().finish();
    const std::optional<KernelTime> twice_time = profile_entry(rt(), "span_twice"), after_time = profile_entry(rt(), "span_after");
    rt().set_profiling(false);
    ASSERT_TRUE(twice_time) << "no profile entry for span_twice";
    ASSERT_TRUE(after_time) << "no profile entry for span_after";
    const KernelTime &t = *twice_time, &u = *after_time;
    EXPECT_EQ(t.calls, 2u);
    EXPECT_EQ(u.calls, 1u);
    for (const KernelTime& e : {t, u}) {
        EXPECT_LE(e.first_start_ms, e.last_end_ms) << e.kernel;
        EXPECT_GE(e.last_end_ms - e.first_start_ms, e.total_ms * (1 - 1e-9) - 1e-5) << e.kernel;
    }
    EXPECT_LE(t.first_start_ms, u.first_start_ms);
    EXPECT_LE(u.last_end_ms, t.last_end_ms + 1e-5);
    // Each call's own times: as many as calls, adding up to the total, in the
    // order the dependent kernels ran.
    ASSERT_EQ(t.each.size(), 2u);
    ASSERT_EQ(u.each.size(), 1u);
    for (const KernelTime& e : {t, u}) {
        double sum = 0;
        for (const KernelTime::Call& call : e.each) {
            EXPECT_LE(call.start_ms, call.end_ms) << e.kernel;
            sum += call.end_ms - call.start_ms;
        }
        EXPECT_NEAR(sum, e.total_ms, 1e-6 + 1e-9 * e.total_ms) << e.kernel;
    }
    EXPECT_LE(t.each[0].start_ms, u.each[0].start_ms);
    EXPECT_LE(u.each[0].start_ms, t.each[1].start_ms);
    EXPECT_LE(t.each[0].end_ms, u.each[0].end_ms + 1e-5);
    EXPECT_LE(u.each[0].end_ms, t.each[1].end_ms + 1e-5);
    EXPECT_EQ(c.download().size(), std::size_t{1} << 18);
}

TEST_P(Streams, IndexOfInEveryRank) {
    auto k1 = kernel("i1(r)", [](Out<std::int32_t> r) { r = indexof(r); });
    auto k2 = kernel("i2(r)", [](Out<int2> r) { r = indexof<2>(r); });
    auto k3 = kernel("i3(r)", [](Out<int3> r) { r = indexof<3>(r); });
    auto k4 = kernel("i4(r)", [](Out<int4> r) { r = indexof<4>(r); });
    auto s1 = rt().stream<std::int32_t>({257});
    auto s2 = rt().stream<int2>({7, 13});
    auto s3 = rt().stream<int3>({3, 5, 11});
    auto s4 = rt().stream<int4>({2, 3, 5, 7});
    k1(s1);
    k2(s2);
    k3(s3);
    k4(s4);
    auto g1 = s1.download();
    for (int i = 0; i < 257; ++i) ASSERT_EQ(g1[i], i);
    auto g2 = s2.download();
    for (int i = 0; i < 7; ++i)
        for (int j = 0; j < 13; ++j) ASSERT_EQ(g2[i * 13 + j], (int2{i, j}));
    auto g3 = s3.download();
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 5; ++j)
            for (int l = 0; l < 11; ++l) ASSERT_EQ(g3[(i * 5 + j) * 11 + l], (int3{i, j, l}));
    auto g4 = s4.download();
    for (int a = 0; a < 2; ++a)
        for (int b = 0; b < 3; ++b)
            for (int c = 0; c < 5; ++c)
                for (int d = 0; d < 7; ++d) ASSERT_EQ(g4[((a * 3 + b) * 5 + c) * 7 + d], (int4{a, b, c, d}));
}

TEST_P(Streams, ImplicitResizeRepeatsAndStrides) {
    // out {6, 8}; a {3, 16} (repeat rows x2, stride columns /2); b {6, 1} (repeat columns)
    auto k = kernel("resize(a, b, r)", [](In<std::int32_t> a, In<std::int32_t> b, Out<int4> r) {
        auto ia = indexof<2>(a);
        r = Int4(a, b, ia.x(), ia.y());
    });
    std::vector<std::int32_t> a(3 * 16), b(6);
    std::iota(a.begin(), a.end(), 0);
    std::iota(b.begin(), b.end(), 1000);
    auto sa = rt().stream<std::int32_t>({3, 16}, a);
    auto sb = rt().stream<std::int32_t>({6, 1}, b);
    auto sr = rt().stream<int4>({6, 8});
    k(sa, sb, sr);
    auto got = sr.download();
    for (int i = 0; i < 6; ++i)
        for (int j = 0; j < 8; ++j) {
            const int ai = i / 2, aj = j * 2;  // Brook: repeat 123 -> 112233, stride 123456 -> 135
            ASSERT_EQ(got[i * 8 + j], (int4{a[ai * 16 + aj], b[i], ai, aj})) << i << "," << j;
        }
}

TEST_P(Streams, ResizeIn1DAnd3D) {
    auto k = kernel("r1(a, r)", [](In<float> a, Out<float> r) { r = a; });
    std::vector<float> a = {1, 2, 3};
    auto sa = rt().stream<float>({3}, a);
    auto rep = rt().stream<float>({9});
    k(sa, rep);
    EXPECT_EQ(rep.download(), (std::vector<float>{1, 1, 1, 2, 2, 2, 3, 3, 3}));
    std::vector<float> b = {1, 2, 3, 4, 5, 6, 7, 8, 9};
    auto sb = rt().stream<float>({9}, b);
    auto str = rt().stream<float>({3});
    k(sb, str);
    EXPECT_EQ(str.download(), (std::vector<float>{1, 4, 7}));

    auto k3 = kernel("r3(a, r)", [](In<std::int32_t> a, Out<std::int32_t> r) { r = a; });
    std::vector<std::int32_t> c(2 * 6 * 2);
    std::iota(c.begin(), c.end(), 0);
    auto sc = rt().stream<std::int32_t>({2, 6, 2}, c);
    auto out = rt().stream<std::int32_t>({4, 3, 4});
    k3(sc, out);
    auto got = out.download();
    for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 3; ++j)
            for (int l = 0; l < 4; ++l) ASSERT_EQ(got[(i * 3 + j) * 4 + l], c[((i / 2) * 6 + j * 2) * 2 + l / 2]);
}

TEST_P(Streams, GathersClampToTheEdgeInEveryRank) {
    auto k1 = kernel("g1(t, i, r)", [](Gather<float> t, In<std::int32_t> i, Out<float> r) { r = t[i]; });
    auto k2 = kernel("g2(t, i, r)", [](Gather<float, 2> t, In<int2> i, Out<float> r) { r = t[i]; });
    auto k4 = kernel("g4(t, i, r)", [](Gather<float, 4> t, In<int4> i, Out<float> r) { r = t[i]; });
    const std::int64_t n = 101;
    std::vector<float> t = random_floats(n, -10, 10);
    std::vector<std::int32_t> idx = random_ints(1000, -300, 300);
    idx[0] = -2147483647 - 1;
    idx[1] = 2147483647;
    auto st = rt().stream<float>({n}, t);
    auto si = rt().stream<std::int32_t>({1000}, idx);
    auto sr = rt().stream<float>({1000});
    k1(st, si, sr);
    auto got = sr.download();
    for (int i = 0; i < 1000; ++i) ASSERT_EQ(got[i], t[std::clamp<std::int64_t>(idx[i], 0, n - 1)]);

    auto t2 = rt().stream<float>({13, 7}, random_floats(91, 0, 1));
    auto h2 = t2.download();
    std::vector<int2> i2(500);
    for (auto& v : i2) v = int2{random_ints(1, -20, 30)[0], random_ints(1, -20, 30)[0]};
    auto si2 = rt().stream<int2>({500}, i2);
    auto sr2 = rt().stream<float>({500});
    k2(t2, si2, sr2);
    auto g2 = sr2.download();
    for (int i = 0; i < 500; ++i)
        ASSERT_EQ(g2[i], h2[std::clamp(i2[i].x, 0, 12) * 7 + std::clamp(i2[i].y, 0, 6)]);

    auto t4 = rt().stream<float>({2, 3, 4, 5}, random_floats(120, 0, 1));
    auto h4 = t4.download();
    std::vector<int4> i4(300);
    for (auto& v : i4) {
        auto r = random_ints(4, -3, 7);
        v = int4{r[0], r[1], r[2], r[3]};
    }
    auto si4 = rt().stream<int4>({300}, i4);
    auto sr4 = rt().stream<float>({300});
    k4(t4, si4, sr4);
    auto g4 = sr4.download();
    for (int i = 0; i < 300; ++i) {
        int a = std::clamp(i4[i].x, 0, 1), b = std::clamp(i4[i].y, 0, 2), c = std::clamp(i4[i].z, 0, 3),
            d = std::clamp(i4[i].w, 0, 4);
        ASSERT_EQ(g4[i], h4[((a * 3 + b) * 4 + c) * 5 + d]);
    }
}

TEST_P(Streams, IteratorStreams) {
    auto k = kernel("it2(b, r)", [](In<float2> b, Out<float2> r) { r = b; });
    auto b = rt().iterator<float2>({4, 10}, float2{0.0f, 0.0f}, float2{4.0f, 1.0f});
    auto r = rt().stream<float2>({4, 10});
    k(b, r);
    auto got2 = r.download();
    for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 10; ++j) {
            ASSERT_FLOAT_EQ(got2[i * 10 + j].x, float(i)) << i << "," << j;
            ASSERT_NEAR(got2[i * 10 + j].y, j / 10.0f, 3e-7f) << i << "," << j;  // GPU division: 2.5 ULP
        }
    EXPECT_THROW(b.download(), Error);
    auto it1 = rt().iterator<float>({10}, 0.0f, 100.0f);
    auto r1 = rt().stream<float>({10});
    kernel("it1(a, r)", [](In<float> a, Out<float> r) { r = a; })(it1, r1);
    auto got1 = r1.download();
    for (int i = 0; i < 10; ++i) ASSERT_FLOAT_EQ(got1[i], 10.0f * i);
    // A 2D iterator needs one component per dimension.
    EXPECT_THROW(rt().iterator<float>({4, 10}, 0.0f, 100.0f), Error);
    auto a1 = rt().iterator<std::int32_t>({40}, 10, 50);
    auto ki = kernel("iti(a, b, r)", [](In<std::int32_t> a, In<float2> b, Out<float2> r) { r = b + cast<float>(a); });
    auto r2 = rt().stream<float2>({40});
    auto b1 = rt().iterator<float2>({40}, float2{0, 0}, float2{40, -40});
    ki(a1, b1, r2);
    auto got = r2.download();
    for (int i = 0; i < 40; ++i) {
        ASSERT_NEAR(got[i].x, float(i) + 10 + i, 1e-5f) << i;  // GPU division: 2.5 ULP
        ASSERT_NEAR(got[i].y, -float(i) + 10 + i, 1e-5f) << i;
    }
}

// Stream::bit_cast: the same elements as another type of their size, read and
// written by kernels as that type, every bit kept (a NaN's payload, -0); views
// keep their place; a struct of three words is a uint3.
TEST_P(Streams, BitCastSeesTheSameBits) {
    const std::vector<std::uint32_t> bits = {0x3f800000u, 0x80000000u, 0x7fc00001u, 0xff800000u, 0x00000001u,
                                             0x40600000u, 0xffffffffu, 0x12345678u, 0x7f800000u};
    const auto n = static_cast<std::int64_t>(bits.size());
    std::vector<float> f(bits.size());
    std::memcpy(f.data(), bits.data(), bits.size() * 4);
    auto floats = rt().stream<float>({n}, f);
    const Stream<std::uint32_t> words = floats.bit_cast<std::uint32_t>();
    EXPECT_EQ(words.shape(), floats.shape());
    EXPECT_EQ(words.element_type_name(), "uint");
    auto flip = kernel("flip_sign_bit(x, r)", [](In<std::uint32_t> x, Out<std::uint32_t> r) { r = x ^ 0x80000000u; });
    auto out = rt().stream<std::uint32_t>({n});
    flip(words, out);
    std::vector<std::uint32_t> want(bits.size());
    for (std::size_t i = 0; i < bits.size(); ++i) want[i] = bits[i] ^ 0x80000000u;
    EXPECT_EQ(out.download(), want);
    // Written through a view of a domain: the floats hold those bits, the rest as they were.
    flip(out.domain({2}, {6}), words.domain({2}, {6}));
    std::vector<float> got = floats.download();
    std::vector<std::uint32_t> got_bits(got.size());
    std::memcpy(got_bits.data(), got.data(), got.size() * 4);
    EXPECT_EQ(got_bits, bits);
    // A 2D domain: the view's offset and strides carry over.
    std::vector<float> grid(6 * 5);
    for (std::size_t i = 0; i < grid.size(); ++i) grid[i] = static_cast<float>(i) + 0.5f;
    auto g = rt().stream<float>({6, 5}, grid);
    auto corner = g.domain({1, 2}, {4, 5}).bit_cast<std::int32_t>();
    auto as_ints = rt().stream<std::int32_t>({3, 3});
    kernel("copy_ints(x, r)", [](In<std::int32_t> x, Out<std::int32_t> r) { r = x; })(corner, as_ints);
    const std::vector<std::int32_t> ints = as_ints.download();
    for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c) {
            std::int32_t w;
            std::memcpy(&w, &grid[(1 + r) * 5 + 2 + c], 4);
            ASSERT_EQ(ints[r * 3 + c], w) << r << "," << c;
        }
    // A struct of three words, as uint3 and back.
    auto rays = rt().stream<Ray>({2}, std::vector<Ray>{{{1, 2, 3}, {4, 5, 6}, 7}, {{-1, -2, -3}, {-4, -5, -6}, -7}});
    static_assert(sizeof(float3) == 12);
    auto origins = rt().stream<float3>({2});
    kernel("ray_origins(r, o)", [](In<Ray> r, Out<float3> o) { o = r.o; })(rays, origins);
    auto moved = rt().stream<uint3>({2});
    kernel("copy_uint3(x, r)", [](In<uint3> x, Out<uint3> r) { r = x; })(origins.bit_cast<uint3>(), moved);
    const std::vector<float3> back = moved.bit_cast<float3>().download();
    EXPECT_EQ(back[0].x, 1.0f);
    EXPECT_EQ(back[0].z, 3.0f);
    EXPECT_EQ(back[1].y, -2.0f);
    // An iterator computes its values: there are no bits to see.
    auto it = rt().iterator<float>({4}, 0.0f, 1.0f);
    EXPECT_EQ(error_message([&] { (void)it.bit_cast<std::uint32_t>(); }),
              "Stream::bit_cast: an iterator stream of float computes its values and has no bits to reinterpret; "
              "copy it into a stream with a kernel first");
}

// Stream::components: a stream of vectors as its scalars, one more dimension
// of the vector's width; read and written by kernels, downloaded, through
// Arrays; views keep their place.
TEST_P(Streams, ComponentsOfVectorStreams) {
    const std::int64_t n = 1001;  // not a multiple of anything
    std::vector<float4> v(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i) v[i] = {float(i), -float(i), 0.5f * float(i), 7.0f};
    auto vs = rt().stream<float4>({n}, v);
    const Stream<float> comps = vs.components();
    EXPECT_EQ(comps.shape(), (Shape{n, 4}));
    EXPECT_EQ(comps.element_type_name(), "float");
    std::vector<float> flat = comps.download();
    ASSERT_EQ(flat.size(), static_cast<std::size_t>(4 * n));
    for (std::int64_t i = 0; i < n; ++i)
        for (int c = 0; c < 4; ++c) ASSERT_EQ(flat[4 * i + c], v[i][c]) << i << "." << c;
    // Written by a kernel through the components: the vectors hold what it wrote.
    auto twice = kernel("twice(x, r)", [](In<float> x, Out<float> r) { r = x * 2.0f; });
    auto out = rt().stream<float4>({n});
    twice(comps, out.components());
    const std::vector<float4> doubled = out.download();
    for (std::int64_t i = 0; i < n; ++i)
        for (int c = 0; c < 4; ++c) ASSERT_EQ(doubled[i][c], 2.0f * v[i][c]) << i << "." << c;
    // A domain of a 2D stream of int3: its components are that domain's, the rest untouched.
    std::vector<int3> grid(6 * 5);
    for (std::size_t i = 0; i < grid.size(); ++i) grid[i] = {int(i), 100 + int(i), -int(i)};
    auto g = rt().stream<int3>({6, 5}, grid);
    auto corner = g.domain({1, 2}, {4, 5}).components();
    EXPECT_EQ(corner.shape(), (Shape{3, 3, 3}));
    auto negate = kernel("negate(x, r)", [](In<std::int32_t> x, Out<std::int32_t> r) { r = -x; });
    auto copy = rt().stream<std::int32_t>({3, 3, 3});
    negate(corner, copy);
    negate(copy, corner);  // back in place: the same values
    negate(corner, corner);  // in place: negated
    const std::vector<std::int32_t> got = copy.download();
    const std::vector<int3> after = g.download();
    for (int r = 0; r < 6; ++r)
        for (int c = 0; c < 5; ++c) {
            const bool inside = r >= 1 && r < 4 && c >= 2;
            const int3 was = grid[r * 5 + c];
            for (int k = 0; k < 3; ++k) {
                if (inside) {
                    ASSERT_EQ(got[((r - 1) * 3 + c - 2) * 3 + k], -was[k]) << r << "," << c << "." << k;
                }
                ASSERT_EQ(after[r * 5 + c][k], inside ? -was[k] : was[k]) << r << "," << c << "." << k;
            }
        }
    // Bound to an Array: element 4 i + c is component c of vector i.
    auto bump = group_kernel<64>("bump(a, n)", [](Array<float> a, Int n) {
        Int j = global_id();
        If(j < n, [&] { a.atomic_add(j, cast<float>(j % 4)); });
    });
    bump(Groups{(4 * n + 63) / 64}, out.components(), static_cast<std::int32_t>(4 * n));
    const std::vector<float4> bumped = out.download();
    for (std::int64_t i = 0; i < n; ++i)
        for (int c = 0; c < 4; ++c) ASSERT_EQ(bumped[i][c], 2.0f * v[i][c] + float(c)) << i << "." << c;
    // Empty streams have empty components; four dimensions leave no room; an iterator has no memory.
    EXPECT_EQ(rt().stream<uint2>({0}).components().size(), 0);
    EXPECT_EQ(error_message([&] { (void)rt().stream<float2>({1, 2, 3, 4}).components(); }),
              "Stream::components: the stream has rank 4 and its components add a dimension; streams have at most 4 "
              "(reshape it first)");
    auto it = rt().iterator<float2>({4}, float2{0.0f, 0.0f}, float2{4.0f, 1.0f});
    EXPECT_EQ(error_message([&] { (void)it.components(); }),
              "Stream::components: an iterator stream of float2 computes its values and has no components in memory; "
              "copy it into a stream with a kernel first");
}

TEST_P(Streams, InPlaceKernels) {
    auto k = kernel("inplace(x, x_out)", [](In<float> x, Out<float> y) {
        y = x * 2.0f;
        y = y + x;  // reads the input's value, not the output written so far
    });
    std::vector<float> x = random_floats(4097, -1, 1);
    auto s = rt().stream<float>({4097}, x);
    k(s, s);
    auto got = s.download();
    for (std::size_t i = 0; i < x.size(); ++i) ASSERT_EQ(got[i], x[i] * 2.0f + x[i]);
}

TEST_P(Streams, StructsAsStreamsConstantsAndGathers) {
    auto k = kernel("structs(rays, table, shift, hits)", [](In<Ray> ray, Gather<Hit> table, Var<Ray> shift, Out<Hit> hit) {
        Var<Hit> h = table[cast<int>(ray.tmax)];
        h.ray.o = ray.o + shift.o;
        h.ray.d.z() = ray.d.x() * shift.tmax;
        h.data.w() = dot(ray.d, shift.d);
        h.id = h.id + 1;
        h.valid = ray.tmax > 2.0f;
        hit = h;
    });
    std::vector<Hit> table(5);
    for (int i = 0; i < 5; ++i) {
        table[i].data = float4{float(i), 1, 2, 3};
        table[i].ray = Ray{{1, 1, 1}, {0, 0, float(i)}, 7};
        table[i].id = 10 * i;
        table[i].valid = false;
    }
    std::vector<Ray> rays(300);
    auto f = random_floats(300 * 7, -1, 6);
    std::memcpy(static_cast<void*>(rays.data()), f.data(), sizeof(Ray) * rays.size());
    Ray shift{{1, 2, 3}, {0.5f, -1, 2}, 3};
    auto st = rt().stream<Hit>({5}, table);
    auto sr = rt().stream<Ray>({300}, rays);
    auto sh = rt().stream<Hit>({300});
    k(sr, st, shift, sh);
    auto got = sh.download();
    for (std::size_t i = 0; i < rays.size(); ++i) {
        const Ray& r = rays[i];
        Hit h = table[std::clamp(static_cast<int>(r.tmax), 0, 4)];
        h.ray.o = float3{r.o.x + 1, r.o.y + 2, r.o.z + 3};
        h.ray.d.z = r.d.x * 3;
        h.data.w = r.d.x * 0.5f + r.d.y * -1.0f + r.d.z * 2.0f;
        h.id += 1;
        h.valid = r.tmax > 2.0f;
        ASSERT_EQ(got[i].data.x, h.data.x);
        ASSERT_NEAR(got[i].data.w, h.data.w, 1e-5f);
        ASSERT_EQ(got[i].ray.o, h.ray.o);
        ASSERT_EQ(got[i].ray.d, h.ray.d);
        ASSERT_EQ(got[i].ray.tmax, h.ray.tmax);
        ASSERT_EQ(got[i].id, h.id);
        ASSERT_EQ(static_cast<bool>(got[i].valid), static_cast<bool>(h.valid));
    }
}

TEST_P(Streams, MultipleOutputsAndBoolStreams) {
    auto k = kernel("split(x, lo, hi, neg)", [](In<float> x, Out<float> lo, Out<float> hi, Out<bool32> neg) {
        lo = min(x, 0.5f);
        hi = max(x, 0.5f);
        neg = x < 0.0f;
    });
    auto x = random_floats(1025, -1, 1);
    auto sx = rt().stream<float>({1025}, x);
    auto lo = rt().stream<float>({1025}), hi = rt().stream<float>({1025});
    auto neg = rt().stream<bool32>({1025});
    k(sx, lo, hi, neg);
    auto l = lo.download(), h = hi.download();
    auto ng = neg.download();
    for (std::size_t i = 0; i < x.size(); ++i) {
        ASSERT_EQ(l[i], std::min(x[i], 0.5f));
        ASSERT_EQ(h[i], std::max(x[i], 0.5f));
        ASSERT_EQ(ng[i].value, x[i] < 0.0f ? 1u : 0u);
    }
}

RILL_INSTANTIATE_FOR_BACKENDS(Streams);

}  // namespace
}  // namespace rill::test
